/*
 * labels/tables.c - program tables and per-command judgements.
 *
 * Every list of programs, subcommands and options lives in a static const
 * table below; the code only walks tables.  Judgements are pure functions
 * of one locus_shell_command.  Where a rule is unsure (an option that might
 * take a value, an abbreviated long option) it answers the way that adds a
 * tag or removes "read-only": over-labelling is safe, under-labelling is not.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "../knowledge/git.h"
#include "../parser/linefacts.h"
#include "../knowledge/programs.h"
#include "../knowledge/sed.h"
#include "pack.h"
#include "../util/str.h"

/* ---- small helpers ---------------------------------------------------- */

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (lu_streq(*list, s))
			return true;
	return false;
}

/* `-abc`: a cluster of short options (not `-`, not `--x`). */
static bool is_cluster(const char *a)
{
	return a[0] == '-' && a[1] != '\0' && a[1] != '-';
}

static bool cluster_has(const char *a, char ch)
{
	return is_cluster(a) && strchr(a + 1, ch) != NULL;
}

/*
 * `a` names the long option `full` (exactly, as `full=value`, or as an
 * abbreviation of at least `min` bytes: getopt_long and git's parse-options
 * both accept abbreviations, so `rm --recur` recurses and `sort --o=F`
 * writes F).  A prefix either selects `full` or is ambiguous (an error), so
 * where matching adds a tag or withholds read-only `min` is 3 (`--` and one
 * letter); a larger `min` is only for options whose match makes a command
 * look safer (`--staged`: `--s` may also be `--source`).
 */
static bool long_opt(const char *a, const char *full, size_t min)
{
	if (a[0] != '-' || a[1] != '-')
		return false;
	size_t n = strcspn(a, "=");
	if (n < min)
		return false;
	return strncmp(a, full, n) == 0;
}

/* Exactly `opt`, or `opt=...`. */
static bool opt_eq(const char *a, const char *opt)
{
	size_t n = strlen(opt);
	return strncmp(a, opt, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

static bool is_option(const char *a)
{
	return a[0] == '-' && a[1] != '\0';
}

/* ---- program classes ------------------------------------------------- */

/* Program classes come from the program table (knowledge/programs.h):
   `p` is the row of a command's name (lp_command_program), NULL when the
   table does not know it. */

static bool has_class(const lk_program *p, uint32_t cls)
{
	return p && (p->cls & cls);
}

/* python, python3, python3.12, pypy3: `-m MODULE` runs a module. */
static bool is_python(const lk_program *p)
{
	return p && (lu_streq(p->name, "python") || lu_streq(p->name, "pypy"));
}


bool ll_is_downloader(const lk_program *p)
{
	return has_class(p, LK_DOWNLOADER);
}

bool ll_is_interpreter(const lk_program *p)
{
	return has_class(p, LK_SHELL | LK_INTERP | LK_EVAL | LK_SOURCE);
}

/* Python modules that format or encode their input and run none of it
   (`curl ... | python3 -m json.tool`), with the options they
   take that name no file. */
static const struct {
	const char *module;
	const char *const *options;
	/* clang-format off */
} data_modules[] = {
    {"json.tool",
     (const char *const[]){"--sort-keys", "--no-ensure-ascii", "--json-lines",
                           "--compact", "--tab", "--no-indent", "--indent",
                           NULL}},
    /* clang-format on */
};

bool ll_data_module(const locus_shell_command *c, const lk_program *p)
{
	if (!is_python(p) || c->argc < 3 || !lu_streq(c->argv[1], "-m"))
		return false;
	for (size_t m = 0; m < sizeof data_modules / sizeof *data_modules;
	     m++) {
		if (!lu_streq(c->argv[2], data_modules[m].module))
			continue;
		for (size_t i = 3; i < c->argc; i++) {
			const char *a = c->argv[i];
			/* --indent N: the number */
			if (i > 3 && lu_streq(c->argv[i - 1], "--indent") &&
			    strspn(a, "0123456789") == strlen(a) && *a)
				continue;
			if (!in_list(data_modules[m].options, a))
				return false; /* a file operand, or unknown */
		}
		return true;
	}
	return false;
}

bool ll_awk_runs_input(const locus_shell_command *c, const lk_program *p)
{
	if (c->argc == 0 || !has_class(p, LK_AWK))
		return false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (is_option(a))
			continue; /* -F'|' */
		if (strstr(a, "system") || strstr(a, "getline"))
			return true;
		/* print | "sh", print |& cmd: a pipe to a command (not the
		   string "|"). */
		for (const char *b = strchr(a, '|'); b;
		     b = strchr(b + 1, '|')) {
			if (b > a && b[-1] == '"')
				continue;
			const char *q = b + 1;
			if (*q == '&')
				return true;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '"' || (*q >= 'a' && *q <= 'z'))
				return true;
		}
	}
	return false;
}

/* ---- command views ---------------------------------------------------- */

/*
 * What a command runs, seen as "program + arguments": `git-log x` is git
 * with subcommand log, `python3 -m pip install` is pip with arguments
 * `install`.
 */
typedef struct view {
	const locus_shell_command *cmd; /* the command viewed */
	const char *prog;
	const lk_program *row;   /* prog's row of the program table, or NULL */
	const char *const *args; /* after prog (and after the git subcommand
	                            for git) */
	size_t nargs;
	const char *sub;     /* git: the subcommand, or NULL */
	bool git_bad_global; /* git: a global option other than the
	                            harmless ones (read-only rule) */
	bool module;         /* reached through `python -m` */
} view;

/* Git global options that take a separate value (`-C dir`).  --exec-path
   takes one only as `--exec-path=DIR`: alone it prints and exits, so the
   next word is read as the subcommand (more tags, never fewer). */
/* clang-format off */
static const char *const git_global_with_value[] = {
	"-C", "-c", "--git-dir", "--work-tree", "--namespace",
	"--config-env", "--super-prefix", "--list-cmds", NULL,
};
/* clang-format on */

/* Global options that keep a git command read-only. */
/* clang-format off */
static const char *const git_global_harmless[] = {
	"--no-pager", "-P", "--no-optional-locks", NULL,
};
/* clang-format on */

static void git_view(const locus_shell_command *c, view *v)
{
	size_t i = 1;
	v->cmd = c;
	v->prog = "git";
	v->sub = NULL;
	v->git_bad_global = false;
	if (!lu_streq(c->name, "git")) {
		/* git-X dashed helper: counts as `git X`. */
		v->sub = c->name + 4;
		v->args = c->argv + 1;
		v->nargs = c->argc - 1;
		return;
	}
	while (i < c->argc) {
		const char *a = c->argv[i];
		if (!is_option(a))
			break;
		if (lu_streq(a, "--")) {
			v->git_bad_global = true;
			i++;
			break;
		}
		if (!in_list(git_global_harmless, a))
			v->git_bad_global = true;
		if (in_list(git_global_with_value, a))
			i++;
		i++;
	}
	if (i < c->argc) {
		v->sub = c->argv[i];
		i++;
	}
	if (i > c->argc)
		i = c->argc;
	v->args = c->argv + i;
	v->nargs = c->argc - i;
}

static bool is_git_name(const char *name)
{
	return lu_streq(name, "git") ||
	       (lu_starts_with(name, "git-") && name[4]);
}

static void make_view(const locus_shell_command *c, const lk_program *prog,
                      view *v)
{
	memset(v, 0, sizeof *v);
	v->cmd = c;
	if (is_git_name(c->name)) {
		git_view(c, v);
		v->row =
		    lu_streq(c->name, "git") ? prog : lk_program_find("git");
		return;
	}
	v->prog = c->name;
	v->row = prog;
	v->args = c->argv + 1;
	v->nargs = c->argc - 1;
	/* python -m MODULE ARGS: judge MODULE ARGS. */
	size_t rest;
	const char *mod = ll_python_module(c, prog, &v->row, &rest);
	if (mod) {
		v->prog = mod;
		v->args = c->argv + rest;
		v->nargs = c->argc - rest;
		v->module = true;
	} else {
		v->row = prog;
	}
}


/*
 * Subcommand candidates of a non-git program: the first non-option
 * argument, and when options came before it also the second one (an option
 * may have taken the first as its value: `npm --prefix dir install`).
 */
static size_t sub_candidates(const view *v, const char *out[2])
{
	size_t n = 0;
	bool saw_option = false;
	for (size_t i = 0; i < v->nargs && n < 2; i++) {
		const char *a = v->args[i];
		if (is_option(a) || a[0] == '+') {
			saw_option = true;
			continue;
		}
		out[n++] = a;
		if (n == 1 && !saw_option)
			break;
	}
	return n;
}

/* First non-option argument of a git subcommand (git remote -v show). */
static const char *git_sub2(const view *v)
{
	for (size_t i = 0; i < v->nargs; i++)
		if (!is_option(v->args[i]))
			return v->args[i];
	return NULL;
}

/* ---- subcommand tables ------------------------------------------------ */

/* Python modules that are checks under `python -m`. */
/* clang-format off */
static const char *const check_modules[] = {
	"pytest", "unittest", "mypy", NULL,
};
/* clang-format on */

/* Make targets allowed on a check line (`make test lint`). */
/* clang-format off */
static const char *const make_check_targets[] = {
	"test", "check", "lint", NULL,
};
/* clang-format on */

/* Option word a is one of the option words of `list` (a git row's sub2,
   space separated): "-f" the letter in any cluster, "--fetch" it or an
   abbreviation of it from three characters. */
static bool opt_listed(const char *list, const char *a)
{
	for (const char *w = list; *w;) {
		size_t n = strcspn(w, " ");
		char name[48];
		if (n > 1 && w[0] == '-' &&
		    lu_copy_fits(name, sizeof name, w, n)) {
			if (name[1] != '-' ? cluster_has(a, name[1])
			                   : long_opt(a, name, 3))
				return true;
		}
		w += n;
		w += *w == ' ';
	}
	return false;
}

/* A git row's sub2 (lk_subfx): the operand after the subcommand, then
   option words the form needs one of ("add -f --fetch", "--remote"). */
static bool git_sub2_matches(const char *sub2, const view *v)
{
	size_t n = sub2[0] == '-' ? 0 : strcspn(sub2, " ");
	if (n) {
		const char *s2 = git_sub2(v);
		if (!s2 || strlen(s2) != n || strncmp(s2, sub2, n))
			return false;
	}
	const char *opts = sub2 + n;
	opts += *opts == ' ';
	if (!*opts)
		return true;
	for (size_t i = 0; i < v->nargs; i++) {
		if (lu_streq(v->args[i], "--"))
			break;
		if (opt_listed(opts, v->args[i]))
			return true;
	}
	return false;
}

/*
 * v's form is on its row's closed list of forms that stay offline
 * (lk_program.offline_subs): its first operand, after the options the
 * row's grammar (.opts) reads, or the first two ("config get", the
 * second the next word that is not an option).  No operand at all: the
 * program prints its usage, help or version (`pip --version`, `npm -v`).
 * An option the grammar does not know, before the subcommand, may take
 * the next word as its value (`npm --foo run install` may be `npm
 * install`): not known to be offline.
 */
static bool offline_form(const view *v)
{
	const lk_optspec *g = v->row->opts;
	bool unknown = false;
	size_t i = 0;
	for (; i < v->nargs && is_option(v->args[i]); i++) {
		int k = lk_optspec_word(g, v->args[i]);
		if (k < 0)
			unknown = true;
		else
			i += (size_t)k;
	}
	if (i >= v->nargs)
		return true;
	if (unknown)
		return false;
	const char *list = v->row->offline_subs, *s = v->args[i];
	if (lk_bar_has(list, s, strlen(s)))
		return true;
	for (size_t k = i + 1; k < v->nargs; k++) {
		if (is_option(v->args[k]))
			continue;
		char two[128];
		int n = snprintf(two, sizeof two, "%s %s", s, v->args[k]);
		return n > 0 && (size_t)n < sizeof two &&
		       lk_bar_has(list, two, (size_t)n);
	}
	return false;
}

/* Some operand follows the subcommand word `sub` among v's arguments. */
static bool operand_after(const view *v, const char *sub)
{
	size_t i = 0;
	while (i < v->nargs && v->args[i] != sub)
		i++;
	for (i++; i < v->nargs; i++)
		if (!is_option(v->args[i]))
			return true;
	return false;
}

/* What separates the flags of an option's value: a blank, a comma, an
   `=` (go's `all=-N`) or a quote. */
static bool flag_sep(char ch)
{
	return ch && strchr(" \t,='\"", ch);
}

/* The flag at h is text t (n bytes) of the form "HEAD~TAIL": HEAD then
   any prefix of TAIL, up to a flag separator or the end, ignoring ASCII
   case (gpg reads a list option's value by unique prefix: HEAD is the
   shortest prefix no other value shares). */
static bool prefix_flag(const char *h, const char *t, size_t n)
{
	const char *tilde = memchr(t, '~', n);
	size_t head = (size_t)(tilde - t), k = 0;
	if (strncasecmp(h, t, head) != 0)
		return false;
	h += head;
	while (h[k] && !flag_sep(h[k]) && k < n - head - 1 &&
	       tolower((unsigned char)h[k]) == tilde[1 + k])
		k++;
	return !h[k] || flag_sep(h[k]);
}

/* The candidate of v (a non-git program) that is r's subcommand, or
   NULL. */
static const char *sub_word_matches(const lk_subfx *r, const view *v)
{
	const char *cand[2];
	size_t n = sub_candidates(v, cand);
	for (size_t i = 0; i < n; i++)
		if (lu_streq(cand[i], r->sub))
			return cand[i];
	return NULL;
}

/* a is a cluster of short options holding the letter of `-X` (`pip list
   -lo` is -l -o: the parsers these rows cover, optparse and clap,
   cluster short options). */
static bool cluster_holds(const char *a, const char *text)
{
	return text[0] == '-' && text[1] && text[1] != '-' && !text[2] &&
	       a[0] == '-' && a[1] && a[1] != '-' && strchr(a + 1, text[1]);
}

/* Argument a holds a sub2 text (lk_subfx): an option text (`-http`,
   `--open`) where the argument starts (after one more dash too: Go's
   `--http`, optparse's `--outdated` for `-o`) or in a cluster (`-lo`); a
   text after `=` is the whole argument (`=trace`: go tool trace, not
   trace.out); any other text anywhere in it (`://`, `linker=`). */
static bool arg_holds(const char *a, const char *text)
{
	if (text[0] == '=')
		return lu_streq(a, text + 1);
	if (text[0] == '|') /* "|--recv-keys|...|": any abbreviation */
		return a[0] == '-' && a[1] == '-' && a[2] &&
		       lk_bar_prefix(text, a, strcspn(a, "="));
	if (text[0] != '-')
		return strstr(a, text) != NULL;
	return lu_starts_with(a, text) ||
	       (a[0] == '-' && lu_starts_with(a + 1, text)) ||
	       cluster_holds(a, text);
}

/* Some argument of v holds text (arg_holds), or is computed at run time
   (it may hold it: `cargo rustc -- $FLAGS`, `go run "$PKG"`).  v->args is
   always a tail of c->argv (make_view). */
static bool arg_may_hold(const view *v, const char *text)
{
	const locus_shell_command *c = v->cmd;
	size_t at = (size_t)(v->args - (const char *const *)c->argv);
	for (size_t i = 0; i < v->nargs; i++)
		if (arg_holds(v->args[i], text) ||
		    (c->argv_flags &&
		     (c->argv_flags[at + i] & LOCUS_WORD_DYNAMIC)))
			return true;
	return false;
}

/* sub2 "|--OPT|...| HEAD~TAIL" (lk_subfx): some argument is a listed
   option in any abbreviation whose value (after '=' or the next word)
   holds a flag prefix_flag matches (gpg --keyserver-options
   auto-key-ret), or is computed at run time. */
static bool opt_value_holds(const view *v, const char *text)
{
	const char *sp = strchr(text, ' ');
	char opts[160];
	size_t on = (size_t)(sp - text), vn = strlen(sp + 1);
	if (on >= sizeof opts)
		return true; /* a table row too long: fail closed */
	memcpy(opts, text, on);
	opts[on] = '\0';
	const locus_shell_command *c = v->cmd;
	size_t at = (size_t)(v->args - (const char *const *)c->argv);
	for (size_t i = 0; i < v->nargs; i++) {
		const char *a = v->args[i], *eq = strchr(a, '=');
		if (lu_streq(a, "--"))
			break;
		size_t vi = eq ? i : i + 1;
		if (!arg_holds(a, opts) || vi >= v->nargs)
			continue;
		if (c->argv_flags &&
		    (c->argv_flags[at + vi] & LOCUS_WORD_DYNAMIC))
			return true;
		const char *w = eq ? eq + 1 : v->args[vi];
		for (const char *h = w; *h; h++)
			if ((h == w || flag_sep(h[-1])) &&
			    prefix_flag(h, sp + 1, vn))
				return true;
	}
	return false;
}

/* v has no subcommand (LK_SUB_NONE): no operand after the options the
   row's grammar (.opts) reads, where a word after an option it does not
   know may be that option's value (`yarn --cwd web`), and no option of
   the row's `query` list (`yarn --version`). */
static bool bare_form(const view *v)
{
	const lk_optspec *g = v->row ? v->row->opts : NULL;
	bool value = false;
	for (size_t i = 0; i < v->nargs; i++) {
		const char *a = v->args[i];
		if (!is_option(a)) {
			if (!value)
				return false;
			value = false;
			continue;
		}
		if (v->row && lk_bar_has(v->row->query, a, strlen(a)))
			return false;
		int k = lk_optspec_word(g, a);
		value = k < 0 && !strchr(a, '=');
		if (k > 0)
			i += (size_t)k;
	}
	return true;
}

/* A network or machine-stop subcommand of v's row (lk_subfx): does `v`
   match `r`? */
static bool subfx_matches(const lk_subfx *r, const view *v)
{
	if (!r->sub && r->sub2 && r->sub2[0] == '|' && strchr(r->sub2, ' '))
		return opt_value_holds(v, r->sub2);
	if (!r->sub && r->sub2) /* any form with an argument holding sub2 */
		return arg_may_hold(v, r->sub2);
	if (!r->sub)
		return true;
	if (lu_streq(v->prog, "git")) {
		if (!v->sub || !lu_streq(v->sub, r->sub))
			return false;
		return !r->sub2 || git_sub2_matches(r->sub2, v);
	}
	if (lu_streq(r->sub, LK_SUB_OTHERS))
		return v->row && v->row->offline_subs && !offline_form(v);
	if (!r->sub[0]) /* LK_SUB_NONE */
		return bare_form(v);
	const char *sub = sub_word_matches(r, v);
	if (!sub || !r->sub2)
		return sub != NULL;
	if (!r->sub2[0])
		return operand_after(v, sub);
	return arg_may_hold(v, r->sub2);
}

/* Word i of c (an index into argv) is computed at run time. */
static bool arg_dynamic(const locus_shell_command *c, size_t i)
{
	return c->argv_flags && i < c->argc &&
	       (c->argv_flags[i] & LOCUS_WORD_DYNAMIC);
}

/* Operand word w of a non-git program is not a subcommand it has itself
   (own_subs), or is computed at run time. */
static bool foreign_word(const view *v, size_t i)
{
	const char *w = v->cmd->argv[i];
	return arg_dynamic(v->cmd, i) ||
	       !lk_bar_has(v->row->own_subs, w, strlen(w));
}

/* `git -c alias.NAME=...` before the subcommand NAME: the parser sees
   the alias through (parser/git.c), so NAME is no helper found on PATH. */
static bool git_alias_on_line(const locus_shell_command *c, const char *sub)
{
	size_t n = strlen(sub);
	for (size_t i = 1; i + 1 < c->argc && c->argv[i + 1] != sub; i++)
		if (lu_streq(c->argv[i], "-c") &&
		    !strncasecmp(c->argv[i + 1], "alias.", 6) &&
		    !strncasecmp(c->argv[i + 1] + 6, sub, n) &&
		    c->argv[i + 1][6 + n] == '=')
			return true;
	return false;
}

/* v's subcommand is not one its program has itself (lk_program.own_subs):
   the program runs another named after it (cargo-NAME, git-NAME on PATH)
   or an alias of a config the line does not show.  The options before it
   are read with the row's grammar (.global_opts, else .opts: `docker -H
   tcp://h ps`); after
   an option the grammar does not know, the next operand may be its value,
   so the one after it must be on the list too. */
static bool foreign_sub(const view *v)
{
	if (!v->row || !v->row->own_subs)
		return false;
	const locus_shell_command *c = v->cmd;
	if (lu_streq(v->prog, "git")) {
		if (!v->sub)
			return false;
		for (size_t k = 1; k < c->argc; k++)
			if (c->argv[k] == v->sub && arg_dynamic(c, k))
				return true;
		return !lk_bar_has(v->row->own_subs, v->sub, strlen(v->sub)) &&
		       !git_alias_on_line(c, v->sub);
	}
	size_t at = (size_t)(v->args - (const char *const *)c->argv);
	bool unknown = false;
	for (size_t i = at; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (a[0] == '+' && !arg_dynamic(c, i))
			continue; /* rustup's +toolchain */
		if (is_option(a)) {
			if (lu_streq(a, "--"))
				return i + 1 < c->argc &&
				       foreign_word(v, i + 1);
			if (v->row->plugin_opts &&
			    lk_bar_has(v->row->plugin_opts, a, strcspn(a, "=")))
				return true; /* docker --config DIR */
			int k = lk_optspec_word(v->row->global_opts
			                            ? v->row->global_opts
			                            : v->row->opts,
			                        a);
			if (k < 0)
				unknown = true;
			else
				i += (size_t)k;
			continue;
		}
		if (foreign_word(v, i))
			return true;
		/* `cargo help NAME`, `docker help NAME` run PROG-NAME --help */
		if (lu_streq(c->argv[i], "help")) {
			unknown = true;
			continue;
		}
		if (!unknown)
			return false;
		unknown = false; /* a may be the value: the next one too */
	}
	return false;
}

#define LL_REASON_FOREIGN_SUB                                                  \
	"a subcommand the program does not have itself runs a program named "  \
	"after it (PROGRAM-NAME on PATH) or an alias locus does not see"

/* The first row of `rows` (a row's net_subs or stop_subs, or NULL) that
   `v` matches. */
static const lk_subfx *find_subfx(const lk_subfx *rows, const view *v)
{
	for (const lk_subfx *r = rows; r && r->reason; r++)
		if (subfx_matches(r, v))
			return r;
	return NULL;
}

/* ---- remote archives (LK_RMT) ------------------------------------------ */

/* GNU tar's test (rmt.h, _remdev): a colon after the first byte with no
   slash before it. */
static bool rmt_name(const char *p)
{
	const char *col = p ? strchr(p, ':') : NULL;
	return col && col > p && !memchr(p, '/', (size_t)(col - p));
}

/*
 * An archive GNU tar or cpio opens on another machine (`tar cf
 * host:x.tar f`, checked: tar 1.34 resolves the host): any operand, the
 * value of --file= (an abbreviation too), or of a
 * short cluster's `f`, `F`, `O` or `I` may be the archive; more than the
 * archive is looked at (a member named a:b counts too), never less.
 * --force-local (`--forc` is its shortest prefix) turns it off.
 */
static bool rmt_archive(const locus_shell_command *c, const lk_program *p)
{
	if (!p || !(p->cls & LK_RMT))
		return false;
	for (size_t i = 1; i < c->argc; i++)
		if (long_opt(c->argv[i], "--force-local", 6))
			return false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		const char *v = a;
		if (a[0] == '-' && a[1] == '-') {
			v = long_opt(a, "--file", 5) ? strchr(a, '=') : NULL;
			v = v ? v + 1 : NULL;
		} else if (a[0] == '-') {
			v = a + 1 + strcspn(a + 1, "fFOI");
			v = *v ? v + 1 : NULL;
		}
		if (rmt_name(v))
			return true;
	}
	return false;
}

/* ---- destructive programs -------------------------------------------- */

/* rm with -r -R -f (any cluster), --recursive, --force (abbreviations
   too), before `--`. */
static bool rm_floor(const locus_shell_command *c)
{
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (lu_streq(a, "--"))
			return false;
		if (long_opt(a, "--recursive", 3) || long_opt(a, "--force", 3))
			return true;
		if (cluster_has(a, 'r') || cluster_has(a, 'R') ||
		    cluster_has(a, 'f'))
			return true;
	}
	return false;
}

bool ll_rm_inside(const locus_shell_command *c)
{
	if (c->argc < 2 || !lu_streq(c->name, "rm"))
		return false;
	bool operands = false, opts = true;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		uint32_t f = c->argv_flags ? c->argv_flags[i] : 0;
		if (opts && lu_streq(a, "--")) {
			opts = false;
			continue;
		}
		if (opts && is_option(a)) {
			if (long_opt(a, "--no-preserve-root", 3) ||
			    (f & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST)))
				return false;
			continue;
		}
		if (!ll_rm_operand_inside(a, f))
			return false;
		operands = true;
	}
	return operands;
}

/* Argument a is option r of a program's row (lk_optfx). */
static bool optfx_hits(const lk_optfx *r, const char *a)
{
	if (r->short_opt && cluster_has(a, r->short_opt))
		return true;
	if (!r->long_opt)
		return false;
	if (r->go_flag)
		return a[0] == '-' &&
		       opt_eq(a + 1 + (a[1] == '-'), r->long_opt + 2);
	return long_opt(a, r->long_opt, r->min ? r->min : 3) ||
	       (r->long_prefix && lu_starts_with(a, r->long_opt));
}


/* Some word of c is the option o->opt whose value holds one of o->texts
   as a flag (where a flag starts; a text ending in `$`: as a whole
   flag), or is computed at run time (lk_optval).  The option is read as
   Go's flag package reads it (-opt or --opt, whole, the value after
   '=' or in the next word); an opt ending in ',' (`-Wl,`) is a prefix
   whose value is the rest of the word.  The words after `--` are
   operands. */
static bool optval_runs(const locus_shell_command *c, const lk_optval *o)
{
	size_t on = strlen(o->opt);
	bool comma = on && o->opt[on - 1] == ',';
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i], *v;
		size_t vi = i;
		if (lu_streq(a, "--"))
			break;
		if (comma) {
			if (strncmp(a, o->opt, on) != 0)
				continue;
			v = a + on;
		} else {
			if (a[0] != '-' ||
			    !opt_eq(a + 1 + (a[1] == '-'), o->opt + 1))
				continue;
			const char *eq = strchr(a, '=');
			vi = eq ? i : i + 1;
			if (vi >= c->argc)
				return false; /* no value: refused */
			v = eq ? eq + 1 : c->argv[vi];
		}
		if (c->argv_flags && (c->argv_flags[vi] & LOCUS_WORD_DYNAMIC))
			return true;
		const char *t;
		size_t n;
		for (const char *p = o->texts; (t = pk_next_tok(&p, &n));) {
			/* "-plugin$": the whole flag (not -plugin-opt) */
			bool whole = t[n - 1] == '$';
			n -= whole;
			for (const char *h = v; memchr(t, '~', n) && *h; h++)
				if ((h == v || flag_sep(h[-1])) &&
				    prefix_flag(h, t, n))
					return true;
			for (const char *h = strchr(v, t[0]); h;
			     h = strchr(h + 1, t[0]))
				if (!strncmp(h, t, n) &&
				    (h == v || flag_sep(h[-1])) &&
				    (!whole || !h[n] || flag_sep(h[n])))
					return true;
		}
	}
	return false;
}

/* /dev/tcp/HOST/PORT and /dev/udp/HOST/PORT: bash opens a socket for a
   redirect to or from them. */
static bool net_device(const char *t)
{
	return t && (lu_starts_with(t, "/dev/tcp/") ||
	             lu_starts_with(t, "/dev/udp/"));
}

bool ll_net_redirect(const locus_shell_command *c)
{
	for (size_t i = 0; i < c->nredirects; i++)
		if (net_device(c->redirects[i].target))
			return true;
	return false;
}

/* Devices that are not storage: writing them destroys nothing. */
/* clang-format off */
static const char *const harmless_devices[] = {
	"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", NULL,
};
/* clang-format on */

/* Storage devices: writing one (dd of=, a redirect) destroys what is on
   it.  /proc/PID/cwd and /proc/PID/fd/N may lead anywhere. */
static bool storage_device(const char *path)
{
	/* clang-format off */
	static const char *const prefixes[] = {
		"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-", "loop",
		"sr", "disk/", "mapper/", "mem", "kmem", "port", "nbd", "rbd",
		"zd", "mtd", "ram", "bcache", "drbd", "block/", NULL,
	};
	/* clang-format on */
	char buf[512];
	const char *n = ll_normal_path(path, buf, sizeof buf);
	if (!n)
		return true;
	if (!strncmp(n, "/proc/", 6) &&
	    (strstr(n, "/cwd") || strstr(n, "/fd/")))
		return true;
	if (strncmp(n, "/dev/", 5))
		return false;
	for (const char *const *p = prefixes; *p; p++)
		if (!strncmp(n + 5, *p, strlen(*p)))
			return true;
	return false;
}

bool ll_device_after_cd(const locus_shell_command *c, const char *dir)
{
	char buf[1024];
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *r = &c->redirects[i];
		if (!lk_redirect_writes(r) || r->target[0] == '/')
			continue;
		snprintf(buf, sizeof buf, "%s/%s", dir, r->target);
		if (storage_device(buf))
			return true;
	}
	const lk_program *p = lk_program_find(c->name);
	for (size_t i = 1; p && p->destroys_by && i < c->argc; i++) {
		const char *f = lk_destroyed_file(p, c->argv[i]);
		if (!f || f[0] == '/')
			continue;
		snprintf(buf, sizeof buf, "%s/%s", dir, f);
		if (storage_device(buf))
			return true;
	}
	return false;
}

bool ll_writes_device(const locus_shell_command *c)
{
	/* `>& /dev/sda` too: bash reads it as `&> /dev/sda` */
	for (size_t i = 0; i < c->nredirects; i++)
		if (lk_redirect_writes(&c->redirects[i]) &&
		    storage_device(c->redirects[i].target))
			return true;
	return false;
}

/* ---- git judgements --------------------------------------------------- */

static bool any_arg(const view *v, bool (*pred)(const char *))
{
	for (size_t i = 0; i < v->nargs; i++) {
		if (lu_streq(v->args[i], "--"))
			return false;
		if (pred(v->args[i]))
			return true;
	}
	return false;
}

static bool is_force(const char *a)
{
	return long_opt(a, "--force", 3) && !opt_eq(a, "--force-with-lease") &&
	       !opt_eq(a, "--force-if-includes");
}

static bool is_force_f(const char *a)
{
	return is_force(a) || cluster_has(a, 'f');
}

static bool reset_discards(const char *a)
{
	return long_opt(a, "--hard", 3) || long_opt(a, "--merge", 3);
}

static bool git_reset(const view *v)
{
	return any_arg(v, reset_discards);
}

static bool git_clean(const view *v)
{
	return any_arg(v, is_force_f);
}

/* An operand of git checkout that no ref or revision can be, so git
   reads it as a pathspec and overwrites what it matches (checked by a
   red team: `git checkout :/` and `git checkout '*'` reverted every
   edit of the tree): pathspec magic (`:/`, `:!x`, `:(top)`), a
   wildcard, a trailing `/`, a component starting with `.` (git
   check-ref-format refuses all of these in a ref name). */
static bool pathspec_only(const char *a)
{
	if (a[0] == ':' || strpbrk(a, "*?[") ||
	    (a[0] && a[strlen(a) - 1] == '/'))
		return true;
	for (const char *c = a; *c;) {
		if (*c == '.')
			return true;
		c += strcspn(c, "/");
		while (*c == '/')
			c++;
	}
	return false;
}

static bool git_checkout(const view *v)
{
	for (size_t i = 0; i < v->nargs; i++) {
		const char *a = v->args[i];
		/* `git checkout [REF] -- PATHS` overwrites the paths. */
		if (lu_streq(a, "--"))
			return i + 1 < v->nargs;
		if (is_force_f(a) || lu_streq(a, ".") ||
		    long_opt(a, "--pathspec-from-file", 3))
			return true;
		if (a[0] != '-' && pathspec_only(a))
			return true;
	}
	return false;
}

static bool git_restore(const view *v)
{
	bool staged = false, worktree = false;
	for (size_t i = 0; i < v->nargs; i++) {
		const char *a = v->args[i];
		if (lu_streq(a, "--"))
			break;
		if (long_opt(a, "--staged", 4))
			staged = true;
		else if (long_opt(a, "--worktree", 3))
			worktree = true;
		else if (is_cluster(a) && a[1] != 's') {
			/* -s takes the source tree as its value. */
			if (strchr(a, 'S'))
				staged = true;
			if (strchr(a, 'W'))
				worktree = true;
		}
	}
	/* Only --staged touches the index alone; anything else rewrites
	   the working tree. */
	return !(staged && !worktree);
}

static bool is_discard_changes(const char *a)
{
	return is_force_f(a) || long_opt(a, "--discard-changes", 3);
}

static bool git_switch(const view *v)
{
	return any_arg(v, is_discard_changes);
}

static bool git_always(const view *v)
{
	(void)v;
	return true;
}

static bool is_force_delete(const char *a)
{
	return cluster_has(a, 'D');
}

static bool is_delete(const char *a)
{
	return long_opt(a, "--delete", 3) || cluster_has(a, 'd');
}

/* -D, or -d/--delete with -f/--force (before `--`). */
static bool git_branch(const view *v)
{
	return any_arg(v, is_force_delete) ||
	       (any_arg(v, is_delete) && any_arg(v, is_force_f));
}

static bool git_stash(const view *v)
{
	const char *s = git_sub2(v);
	return s && (lu_streq(s, "drop") || lu_streq(s, "clear"));
}

static bool git_worktree(const view *v)
{
	const char *s = git_sub2(v);
	return s && lu_streq(s, "remove") && any_arg(v, is_force_f);
}

/* --delete, -d in a cluster, :ref (force-push and destructive). */
static bool push_deletes_ref(const char *a)
{
	return is_delete(a) || (a[0] == ':' && a[1] != '\0');
}

static bool push_prunes(const char *a)
{
	return long_opt(a, "--prune", 3);
}

static bool any_arg_all(const view *v, bool (*pred)(const char *))
{
	for (size_t i = 0; i < v->nargs; i++)
		if (pred(v->args[i]))
			return true;
	return false;
}

/* Deletes remote refs: --delete, :ref, or --prune (destructive). */
static bool git_push_deletes(const view *v)
{
	return any_arg_all(v, push_deletes_ref) || any_arg(v, push_prunes);
}

/* Forced without lease: --force (even beside --force-with-lease), -f in a
   cluster, +ref, --mirror. */
static bool git_push_forced(const view *v)
{
	bool after_dd = false;
	for (size_t i = 0; i < v->nargs; i++) {
		const char *a = v->args[i];
		if (lu_streq(a, "--")) {
			after_dd = true;
			continue;
		}
		if (a[0] == '+' && a[1] != '\0')
			return true;
		if (after_dd)
			continue;
		if (is_force_f(a) || long_opt(a, "--mirror", 3))
			return true;
	}
	return false;
}

/* update-ref -d deletes a ref (and its reflog); --stdin reads commands
   that may delete. */
static bool update_ref_deletes(const char *a)
{
	return cluster_has(a, 'd') || long_opt(a, "--stdin", 3);
}

static bool git_update_ref(const view *v)
{
	return any_arg(v, update_ref_deletes);
}

static bool git_reflog(const view *v)
{
	const char *s = git_sub2(v);
	return s && (lu_streq(s, "expire") || lu_streq(s, "delete"));
}

/* --prune=DATE (now, all, any date) deletes unreachable objects at once;
   only --prune=never keeps them. */
static bool gc_prunes(const char *a)
{
	const char *eq = strchr(a, '=');
	return long_opt(a, "--prune", 3) && eq && !lu_streq(eq + 1, "never");
}

static bool git_gc(const view *v)
{
	return any_arg(v, gc_prunes);
}

/* A dry run (labels/harmless.c: spelled exactly, not undone). */
#define GIT_DRY_RUN "-n --dry-run"

static bool dry_run(const view *v)
{
	return ll_harmless(v->cmd, (size_t)(v->args - v->cmd->argv),
	                   GIT_DRY_RUN);
}

static bool git_prune(const view *v)
{
	return !dry_run(v);
}

/* Plumbing and forms that overwrite or discard work: read-tree
   -u with --reset or -m writes the working tree, checkout-index -f
   overwrites files, filter-branch rewrites history, tag -d deletes tags,
   branch -M/-C and checkout -B / switch -C overwrite an existing branch,
   merge/am/rebase/cherry-pick --abort reset the working tree. */
static bool is_u_flag(const char *a)
{
	return lu_streq(a, "-u");
}

static bool read_tree_resets(const char *a)
{
	return long_opt(a, "--reset", 3) || lu_streq(a, "-m");
}

static bool git_read_tree(const view *v)
{
	return any_arg(v, is_u_flag) && any_arg(v, read_tree_resets);
}

static bool is_force_opt(const char *a)
{
	return long_opt(a, "--force", 3) || cluster_has(a, 'f');
}

static bool git_checkout_index(const view *v)
{
	return any_arg(v, is_force_opt);
}

static bool tag_deletes(const char *a)
{
	return long_opt(a, "--delete", 3) || cluster_has(a, 'd');
}

static bool git_tag(const view *v)
{
	return any_arg(v, tag_deletes);
}

static bool overwrites_branch(const char *a)
{
	return cluster_has(a, 'M') || cluster_has(a, 'C') ||
	       cluster_has(a, 'B');
}

static bool git_overwrite_branch(const view *v)
{
	return any_arg(v, overwrites_branch);
}

/* any prefix, as parse-options takes it (`git merge --abo`; found by
   fuzz_bypass's abbreviate transform) */
static bool is_abort(const char *a)
{
	return long_opt(a, "--abort", 3);
}

static bool git_abort(const view *v)
{
	return any_arg(v, is_abort);
}

typedef struct git_rule {
	const char *sub;
	bool (*applies)(const view *v);
	const char *reason;
	const char *never;
} git_rule;

/* clang-format off */
static const git_rule git_destructive[] = {
	{ "reset", git_reset, "git reset discards uncommitted work", NULL },
	{ "clean", git_clean, "git clean -f deletes untracked files", NULL },
	{ "checkout", git_checkout, "git checkout overwrites working files",
	  NULL },
	{ "restore", git_restore, "git restore discards working changes",
	  NULL },
	{ "switch", git_switch, "git switch discards working changes", NULL },
	{ "rm", git_always, "git rm deletes files", NULL },
	{ "branch", git_branch, "git branch force-deletes a branch", NULL },
	{ "stash", git_stash, "git stash drops saved work", NULL },
	{ "worktree", git_worktree, "git worktree remove --force discards work",
	  NULL },
	{ "push", git_push_deletes, "git push deletes remote refs", NULL },
	{ "send-pack", git_push_deletes, "git send-pack deletes remote refs",
	  NULL },
	{ "update-ref", git_update_ref, "git update-ref -d deletes a ref",
	  NULL },
	{ "reflog", git_reflog, "git reflog expire/delete drops history",
	  NULL },
	{ "gc", git_gc, "git gc --prune deletes unreachable commits", NULL },
	{ "prune", git_prune, "git prune deletes unreachable commits", NULL },
	{ "read-tree", git_read_tree, "git read-tree -u overwrites working files",
	  NULL },
	{ "checkout-index", git_checkout_index,
	  "git checkout-index -f overwrites working files", NULL },
	{ "filter-branch", git_always, "git filter-branch rewrites history",
	  NULL },
	{ "filter-repo", git_always, "git filter-repo rewrites history", NULL },
	{ "tag", git_tag, "git tag -d deletes tags", NULL },
	{ "branch", git_overwrite_branch,
	  "git branch -M/-C overwrites an existing branch", NULL },
	{ "checkout", git_overwrite_branch,
	  "git checkout -B resets an existing branch", NULL },
	{ "switch", git_overwrite_branch,
	  "git switch -C resets an existing branch", NULL },
	{ "merge", git_abort, "git merge --abort discards working changes",
	  NULL },
	{ "am", git_abort, "git am --abort discards working changes", NULL },
	{ "cherry-pick", git_abort,
	  "git cherry-pick --abort discards working changes", NULL },
	{ NULL, NULL, NULL, NULL },
};
/* clang-format on */

static bool reset_hard(const char *a)
{
	return long_opt(a, "--hard", 3);
}

/* ---- the per-command judgement ---------------------------------------- */

static bool query_form(const lk_program *p, const locus_shell_command *c);

static void add_reason(ll_judgement *j, const char *r)
{
	ll_judgement_reason(j, r);
}

static void set_never(ll_judgement *j, const char *never)
{
	if (!j->never)
		j->never = never;
}

/* `git push --help`, `git reset -h`: git prints help and exits. */
static bool git_help(const view *v)
{
	return ll_harmless(v->cmd, (size_t)(v->args - v->cmd->argv),
	                   "--help -h");
}

/* Dry runs change nothing: push -n, rm -n (clean -n and prune -n are
   the rules' own). */
static bool git_dry_runs(const view *v)
{
	return (lu_streq(v->sub, "push") || lu_streq(v->sub, "rm") ||
	        lu_streq(v->sub, "send-pack")) &&
	       dry_run(v);
}

static void judge_git(const locus_shell_command *c, const view *v,
                      ll_judgement *j)
{
	if (!v->sub)
		return;
	/* `git push --help`, `git reset -h`: git prints help and exits */
	if (git_help(v))
		return;
	if (git_dry_runs(v))
		return;
	/* git restore f, git checkout -- f: a workspace write (labels/rm.c) */
	bool write = ll_git_restore_as_write(c);
	for (const git_rule *r = git_destructive; r->sub; r++) {
		if (write && lu_streq(r->sub, v->sub)) {
			add_reason(j, LL_REASON_RESTORE_WRITE);
			continue;
		}
		if (lu_streq(r->sub, v->sub) && r->applies(v)) {
			j->tags |= LOCUS_TAG_DESTRUCTIVE;
			add_reason(j, r->reason);
		}
	}
	if (lu_streq(v->sub, "reset") && any_arg(v, reset_hard))
		set_never(j, LL_NEVER_RESET);
	/* send-pack is the plumbing under push: same refspecs and --force. */
	if (lu_streq(v->sub, "push") || lu_streq(v->sub, "send-pack")) {
		j->tags |= LOCUS_TAG_VCS_PUSH;
		add_reason(j, LL_REASON_PUSH);
		bool forced = git_push_forced(v);
		if (forced || any_arg_all(v, push_deletes_ref)) {
			j->tags |= LOCUS_TAG_FORCE_PUSH;
			add_reason(j, LL_REASON_FORCE_PUSH);
		}
		if (forced)
			set_never(j, LL_NEVER_FORCE_PUSH);
	}
}

unsigned ll_git_opt_effects(const locus_shell_command *c)
{
	if (c->argc < 2 || !is_git_name(c->name))
		return 0;
	view v;
	make_view(c, lk_program_find("git"), &v);
	if (!v.sub || git_help(&v))
		return 0;
	unsigned fx = 0;
	for (size_t i = 0; i < v.nargs && !lu_streq(v.args[i], "--"); i++)
		fx |= lk_git_opt_effect(v.sub, v.args[i]);
	return fx;
}

/* ---- arguments computed at run time (dynamic.c) ----------------------- */

#define LL_REASON_DYNAMIC_GIT                                                  \
	"git: a word computed at run time may name any subcommand"

static void add_maybe(ll_judgement *j, uint32_t tags, const char *reason)
{
	j->tags |= tags;
	add_reason(j, reason);
	add_reason(j, LL_REASON_DYNAMIC);
}

/* git whose words from argv[dyn] on are unknown: an unknown subcommand
   may be any; after a known one, every rule of that subcommand (the
   floor's exec:never is left to the literal forms). */
static void dynamic_git(const locus_shell_command *c, const view *v, size_t dyn,
                        ll_judgement *j)
{
	if (!v->sub || dyn < (size_t)(v->args - c->argv)) {
		add_maybe(j,
		          LOCUS_TAG_DESTRUCTIVE | LOCUS_TAG_VCS_PUSH |
		              LOCUS_TAG_FORCE_PUSH | LOCUS_TAG_NETWORK,
		          LL_REASON_DYNAMIC_GIT);
		return;
	}
	if (git_help(v))
		return;
	if (git_dry_runs(v))
		return;
	for (const git_rule *r = git_destructive; r->sub; r++)
		if (lu_streq(r->sub, v->sub))
			add_maybe(j, LOCUS_TAG_DESTRUCTIVE, r->reason);
	if (lu_streq(v->sub, "push") || lu_streq(v->sub, "send-pack"))
		add_maybe(j, LOCUS_TAG_FORCE_PUSH, LL_REASON_FORCE_PUSH);
	for (const lk_subfx *r = v->row ? v->row->net_subs : NULL;
	     r && r->reason; r++)
		if (r->sub && lu_streq(r->sub, v->sub) && r->sub2)
			add_maybe(j, LOCUS_TAG_NETWORK, r->reason);
}

/* The subcommand of a non-git program (sub_candidates) may be one of
   the words from argv[dyn] on. */
static bool sub_may_be_dynamic(const locus_shell_command *c, const view *v,
                               size_t dyn)
{
	size_t base = (size_t)(v->args - c->argv);
	size_t n = 0;
	bool saw_option = false;
	for (size_t i = 0; i < v->nargs; i++) {
		if (base + i >= dyn)
			return true;
		const char *a = v->args[i];
		if (is_option(a) || a[0] == '+') {
			saw_option = true;
			continue;
		}
		if (++n == 2 || !saw_option)
			return false;
	}
	return true; /* the words appended at run time may be it */
}

/* The first row of `rows` whose subcommand is on the line and whose
   second word a run-time argument may be or hold (`uv python "insta$(echo
   l)"`: python install; not git's, see dynamic_git). */
static const lk_subfx *sub2_row_of(const lk_subfx *rows, const view *v)
{
	for (const lk_subfx *r = rows; r && r->reason; r++)
		if (r->sub && r->sub2 && !lu_streq(r->sub, LK_SUB_OTHERS) &&
		    sub_word_matches(r, v))
			return r;
	return NULL;
}

/* The first row of `rows` (a row's net_subs or stop_subs, or NULL) that
   needs a subcommand. */
static const lk_subfx *sub_row_of(const lk_subfx *rows)
{
	for (const lk_subfx *r = rows; r && r->reason; r++)
		if (r->sub)
			return r;
	return NULL;
}

/* The arguments that make a program of the table delete or overwrite
   (lk_program.destroys_by: find -delete, dd of=F).  A file it overwrites
   that is a storage device, or any device but the harmless ones, or a
   path that does not resolve, is on the floor. */
static void judge_destroys_by(const locus_shell_command *c,
                              const lk_program *prog, ll_judgement *j)
{
	for (size_t i = 1; prog && prog->destroys_by && i < c->argc; i++) {
		const char *a = c->argv[i];
		if (!lk_destroys_arg(prog, a))
			continue;
		j->tags |= LOCUS_TAG_DESTRUCTIVE;
		add_reason(j, prog->destroys);
		const char *f = lk_destroyed_file(prog, a);
		char nb[512];
		const char *np = f ? ll_normal_path(f, nb, sizeof nb) : NULL;
		if (f && (!np || storage_device(f) ||
		          (lu_starts_with(np, "/dev/") &&
		           !in_list(harmless_devices, np))))
			set_never(j, LL_NEVER_FS);
	}
}

static void add_option_word(ll_judgement *j, uint32_t tags, const char *reason)
{
	j->tags |= tags;
	add_reason(j, reason);
	add_reason(j, LL_REASON_OPTION_WORD);
}

/* The option word o of row p takes the next word as its value (the
   row's `reads` grammar: make -C DIR, -f FILE). */
static bool row_value_opt(const char *o, const void *p)
{
	const lk_program *row = p;
	const char *v;
	return row && row->reads &&
	       (lk_reads_word(row->reads, o, &v) & LK_RW_NEXT);
}

static bool git_value_opt(const char *o, const void *p)
{
	(void)p;
	return lk_git_rev_value_opt(o);
}

#define LL_REASON_RMT                                                          \
	"tar and cpio open an archive named HOST:FILE on HOST (rsh or ssh)"
#define LL_REASON_GIT_OUTPUT "git --output (and archive -o) writes any file"

/*
 * A word from argv[opt] on may be any option of the program (a run-time
 * value or glob whose first byte is unknown, or that may split: `git log
 * $X` with X=--output=FILE, `make "$T"` with T=--eval=..., `tar czf a.tgz
 * *` beside a file named --remove-files): every option of the row that
 * deletes or runs code locus does not see applies.  For git, after a
 * literal subcommand that reads revision or diff options (knowledge/git.c:
 * --output writes any file, --ext-diff and --textconv run the programs
 * the repository's config names); before the subcommand dynamic_git
 * applies every form.
 */
static void judge_option_word(const locus_shell_command *c, const view *v,
                              const lk_program *prog, size_t opt,
                              ll_judgement *j)
{
	if (!prog)
		return;
	if (lu_streq(v->prog, "git")) {
		if (!v->sub || opt < (size_t)(v->args - c->argv) ||
		    !lk_git_sub_output_opts(v->sub))
			return;
		add_option_word(j, LOCUS_TAG_UNKNOWN, LL_REASON_GIT_OUTPUT);
	} else {
		for (const lk_optfx *o = prog->delete_opts; o && o->reason; o++)
			add_option_word(j, LOCUS_TAG_DESTRUCTIVE, o->reason);
	}
	for (const lk_optfx *o = prog->unseen_opts; o && o->reason; o++)
		add_option_word(j, LOCUS_TAG_UNKNOWN, o->reason);
	for (const lk_optval *o = prog->value_runs; o && o->opt; o++)
		add_option_word(j, LOCUS_TAG_UNKNOWN, o->reason);
}

/* Each option of `rows` (a row's delete_opts or unseen_opts) that some
   argument before a `--` is: `tag`, and the row's reason. */
static void judge_optfx(const locus_shell_command *c, const lk_optfx *rows,
                        uint32_t tag, ll_judgement *j)
{
	for (const lk_optfx *o = rows; o && o->reason; o++) {
		for (size_t i = 1; i < c->argc; i++) {
			if (lu_streq(c->argv[i], "--"))
				break;
			if (optfx_hits(o, c->argv[i])) {
				j->tags |= tag;
				add_reason(j, o->reason);
				break;
			}
		}
	}
}

/* The options of prog's row that run code locus does not see, and the
   option values that name such code (lk_optval), up to a `--`. */
static void judge_unseen(const locus_shell_command *c, const lk_program *prog,
                         ll_judgement *j)
{
	judge_optfx(c, prog ? prog->unseen_opts : NULL, LOCUS_TAG_UNKNOWN, j);
	for (const lk_optval *o = prog ? prog->value_runs : NULL; o && o->opt;
	     o++)
		if (optval_runs(c, o)) {
			j->tags |= LOCUS_TAG_UNKNOWN;
			add_reason(j, o->reason);
		}
}

/* The value of arg option a (lk_program.arg_opts, read as Go's flag
   package reads an option: -opt or --opt, `=VALUE` or the next word),
   or NULL when a is not one; *next: the value is the next word. */
static const char *arg_opt_value(const char *opts, const char *a, bool *next)
{
	*next = false;
	if (a[0] != '-')
		return NULL;
	const char *name = a + 1 + (a[1] == '-');
	size_t n = strcspn(name, "=");
	for (const char *p = opts; p && (p = strchr(p, '|')) && p[1]; p++) {
		const char *o = p + 2; /* past "|-" */
		if (p[1] != '-' || strncmp(o, name, n) || o[n] != '|')
			continue;
		*next = !name[n];
		return name[n] ? name + n + 1 : "";
	}
	return NULL;
}

/* A tool that hands its arguments on to a compiler (clang-tidy x.c --
   -fplugin=P, --extra-arg=-Xclang --extra-arg=-load): those arguments in
   order, judged as the compiler's row judges its own (its unseen options
   and option values; one computed at run time may be any of them).  More
   than fit here: every rule of that row applies. */
static void judge_compiler_args(const locus_shell_command *c, const view *v,
                                const lk_program *prog, ll_judgement *j)
{
	const lk_program *cc = prog && prog->compiler_args
	                           ? lk_program_find(prog->compiler_args)
	                           : NULL;
	if (!cc)
		return;
	enum { CC_ARGS = 64 };
	const char *argv[CC_ARGS];
	uint32_t flags[CC_ARGS];
	size_t n = 1;
	bool dd = false, more = false;
	argv[0] = cc->name;
	flags[0] = 0;
	for (size_t i = 1; i < c->argc && !more; i++) {
		const char *a = c->argv[i], *val = a;
		size_t vi = i;
		bool next = false;
		if (!dd && lu_streq(a, "--")) {
			dd = true;
			continue;
		}
		if (!dd) {
			val = arg_opt_value(prog->arg_opts, a, &next);
			if (next && i + 1 < c->argc)
				val = c->argv[vi = ++i];
		}
		/* a `--` among them (`--extra-arg=--`) ends no reading here:
		   clang-tidy puts the extra arguments last, and every word
		   judged as an option over-labels at worst */
		if (!val || lu_streq(val, "--"))
			continue;
		more = n == CC_ARGS;
		if (!more) {
			argv[n] = val;
			flags[n++] = c->argv_flags ? c->argv_flags[vi] : 0;
		}
	}
	locus_shell_command cmd = {
	    .argc = n, .argv = argv, .argv_flags = flags, .name = cc->name};
	size_t may_opt = 0;
	for (size_t i = 1; i < n && !may_opt; i++)
		if (flags[i] & LOCUS_WORD_MAY_BE_OPTION)
			may_opt = i;
	if (more || may_opt)
		judge_option_word(&cmd, v, cc, more ? 1 : may_opt, j);
	else
		judge_unseen(&cmd, cc, j);
}

/* Build definitions whose NAME makes the value a program the build runs
   (CMAKE_C_COMPILER_LAUNCHER, *_COMPILER, *_CLANG_TIDY...), and those
   whose value is compiler flags (CMAKE_C_FLAGS, meson's c_args, make's
   CFLAGS): checked by a red team, `-DCMAKE_C_COMPILER_LAUNCHER='sh;-c;
   CMD;'` and `'-DCMAKE_C_FLAGS=-wrapper /bin/sh,-c,CMD'` ran CMD. */
/* clang-format off */
static const char *const program_defines[] = {
	"LAUNCHER", "COMPILER", "LINKER", "CLANG_TIDY", "CPPLINT", "CPPCHECK",
	"INCLUDE_WHAT_YOU_USE", "LINK_WHAT_YOU_USE", "MAKE_PROGRAM", "_AR",
	"RANLIB", "EXECUTABLE", "OBJCOPY", "EMULATOR",
	/* cmake's rule variables are command templates
	   (CMAKE_C_COMPILE_OBJECT, CMAKE_C_CREATE_SHARED_LIBRARY,
	   CMAKE_C_ARCHIVE_CREATE, CMAKE_C_LINK_EXECUTABLE) */
	"COMPILE_OBJECT", "CREATE_SHARED_LIBRARY", "CREATE_SHARED_MODULE",
	"CREATE_STATIC_LIBRARY", "ARCHIVE_CREATE", "ARCHIVE_APPEND",
	"ARCHIVE_FINISH", "LINK_EXECUTABLE", NULL,
};

/* make's built-in rules pass these to the compiler and linker too (GNU
   make's manual: OUTPUT_OPTION is `-o $@`, TARGET_ARCH, LDLIBS,
   LOADLIBES; checked by a red team: TARGET_ARCH='-wrapper ...' ran). */
static const char *const make_flag_vars[] = {
	"OUTPUT_OPTION", "TARGET_ARCH", "TARGET_MACH", "LDLIBS", "LOADLIBES",
	NULL,
};
/* clang-format on */

#define LL_REASON_DEFINE_PROGRAM                                               \
	"a build definition names a program locus does not know, or gives "    \
	"it arguments (a launcher, compiler or linter the build runs)"

/* NAME (n bytes, before `=` and any `:TYPE`) holds mark, in any case,
   as whole `_`-separated parts (`_AR` is in CMAKE_AR, not in c_args). */
static bool define_has(const char *name, size_t n, const char *mark)
{
	size_t k = strlen(mark);
	for (size_t i = 0; i + k <= n; i++)
		if (!strncasecmp(name + i, mark, k) &&
		    (i == 0 || mark[0] == '_' || name[i - 1] == '_') &&
		    (i + k == n || name[i + k] == '_'))
			return true;
	return false;
}

/* One definition NAME=VALUE (def) of a build tool; `programs`: NAME may
   name a program (cmake, meson; make's are parsed as commands). */
static void judge_define(const char *def, bool programs, ll_judgement *j)
{
	const char *eq = strchr(def, '=');
	if (!eq)
		return;
	size_t n = strcspn(def, ":=");
	const char *v = eq + 1;
	for (const char *const *m = program_defines; programs && *m; m++) {
		if (!define_has(def, n, *m))
			continue;
		/* one word naming a program of the table (a path to it
		   is the outside rule's) */
		const char *base = strrchr(v, '/');
		base = base ? base + 1 : v;
		if (*v && !strpbrk(v, " \t;,") && lk_program_find(base))
			return;
		j->tags |= LOCUS_TAG_UNKNOWN;
		add_reason(j, LL_REASON_DEFINE_PROGRAM);
		return;
	}
	bool flags = false;
	for (size_t i = 0; i + 5 <= n && !flags; i++)
		flags = !strncasecmp(def + i, "FLAGS", 5); /* CFLAGS, LDFLAGS */
	for (const char *const *m = make_flag_vars; *m && !flags; m++)
		flags = strlen(*m) == n && !strncmp(def, *m, n);
	if (n == 13 && !strncmp(def, "OUTPUT_OPTION", n)) {
		/* `-o FILE`: the file every built-in rule writes */
		j->tags |= LOCUS_TAG_UNKNOWN;
		add_reason(j, LL_REASON_DEFINE_PROGRAM);
		return;
	}
	if (!flags && !define_has(def, n, "_ARGS"))
		return;
	/* the flags, judged as the compiler's own arguments */
	enum { FLAGS = 32 };
	char buf[1024];
	const char *argv[FLAGS];
	if (strlen(v) >= sizeof buf) {
		j->tags |= LOCUS_TAG_UNKNOWN;
		add_reason(j, LL_REASON_DEFINE_PROGRAM);
		return;
	}
	memcpy(buf, v, strlen(v) + 1);
	size_t argc = 1;
	argv[0] = "gcc";
	for (char *t = strtok(buf, " \t;"); t && argc < FLAGS;
	     t = strtok(NULL, " \t;"))
		argv[argc++] = t;
	locus_shell_command cmd = {.argc = argc, .argv = argv, .name = "gcc"};
	judge_unseen(&cmd, lk_program_find("gcc"), j);
}

/* The variable definitions of a build tool (lk_program.defines). */
static void judge_defines(const locus_shell_command *c, const lk_program *prog,
                          ll_judgement *j)
{
	if (!prog || !prog->defines)
		return;
	bool opt = !strcmp(prog->defines, "-D");
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (lu_streq(a, "--"))
			break;
		if (!opt) {
			if (a[0] != '-')
				judge_define(a, false, j);
			continue;
		}
		if (!strncmp(a, "-D", 2))
			judge_define(a[2]              ? a + 2
			             : i + 1 < c->argc ? c->argv[++i]
			                               : "",
			             true, j);
	}
}

/* The argument rules of this file that some value of the words computed
   at run time would satisfy. */
static void judge_dynamic(const locus_shell_command *c, const view *v,
                          const lk_program *prog, bool query, ll_judgement *j)
{
	bool git = lu_streq(v->prog, "git");
	size_t opt = ll_first_option_word(
	    c, git && v->sub ? (size_t)(v->args - c->argv) : 1,
	    git ? git_value_opt : row_value_opt, prog);
	if (opt)
		judge_option_word(c, v, prog, opt, j);
	size_t dyn = ll_first_dynamic_arg(c);
	if (!dyn)
		return;
	if (lu_streq(v->prog, "git")) {
		dynamic_git(c, v, dyn, j);
		return;
	}
	if (sub_may_be_dynamic(c, v, dyn)) {
		const lk_subfx *r =
		    sub_row_of(v->row ? v->row->net_subs : NULL);
		if (r)
			add_maybe(j, LOCUS_TAG_NETWORK, r->reason);
		r = query || !v->row ? NULL : sub_row_of(v->row->stop_subs);
		if (r)
			add_maybe(j, LOCUS_TAG_SHUTDOWN, r->reason);
	} else {
		const lk_subfx *r =
		    sub2_row_of(v->row ? v->row->net_subs : NULL, v);
		if (r)
			add_maybe(j, LOCUS_TAG_NETWORK, r->reason);
		r = query || !v->row ? NULL : sub2_row_of(v->row->stop_subs, v);
		if (r)
			add_maybe(j, LOCUS_TAG_SHUTDOWN, r->reason);
	}
	for (const lk_optfx *o = prog ? prog->delete_opts : NULL;
	     o && o->reason; o++)
		add_maybe(j, LOCUS_TAG_DESTRUCTIVE, o->reason);
	if (prog && prog->destroys_by)
		add_maybe(j, LOCUS_TAG_DESTRUCTIVE, prog->destroys);
}

/* ---- git settings that drop a safety ------------------------ */

/* "section.sub.var" (or "section.var") names the key `sec`.*.`var`
   (sub NULL: no subsection), compared without case as git does. */
static bool cfg_key(const char *key, size_t klen, const char *sec, bool sub,
                    const char *var)
{
	size_t sl = strlen(sec), vl = strlen(var);
	if (klen < sl + vl + 1 || strncasecmp(key, sec, sl) || key[sl] != '.')
		return false;
	if (strncasecmp(key + klen - vl, var, vl) || key[klen - vl - 1] != '.')
		return false;
	bool has_sub = klen - vl - 1 > sl;
	return has_sub == sub;
}

static bool cfg_true(const char *v)
{
	return !*v || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
	       !strcasecmp(v, "on") || !strcmp(v, "1");
}

static bool cfg_false(const char *v)
{
	return !strcasecmp(v, "false") || !strcasecmp(v, "no") ||
	       !strcasecmp(v, "off") || !strcmp(v, "0");
}

static uint32_t cfg_pair(const char *key, size_t klen, const char *value)
{
	uint32_t f = 0;
	if (cfg_key(key, klen, "remote", true, "mirror") && cfg_true(value))
		f |= LL_GITCFG_FORCE_PUSH;
	if ((cfg_key(key, klen, "remote", true, "push") && value[0] == '+'))
		f |= LL_GITCFG_FORCE_PUSH;
	if (cfg_key(key, klen, "clean", false, "requireForce") &&
	    cfg_false(value))
		f |= LL_GITCFG_CLEAN_NOFORCE;
	if ((cfg_key(key, klen, "gc", false, "pruneExpire") ||
	     cfg_key(key, klen, "gc", false, "reflogExpire") ||
	     cfg_key(key, klen, "gc", false, "reflogExpireUnreachable")) &&
	    (!strcasecmp(value, "now") || !strcasecmp(value, "all")))
		f |= LL_GITCFG_PRUNE_NOW;
	if (cfg_key(key, klen, "core", false, "hooksPath"))
		f |= LL_GITCFG_HOOKS_PATH;
	return f;
}

uint32_t ll_git_line_config(const locus_shell_result *r)
{
	uint32_t f = 0;
	size_t n = locus_shell_result_count(r);
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *c = locus_shell_result_command(r, i);
		if (c->argc < 2 || !lu_streq(c->name, "git"))
			continue;
		size_t k = 1;
		for (; k < c->argc && is_option(c->argv[k]); k++) {
			const char *a = c->argv[k];
			if (lu_streq(a, "-c") && k + 1 < c->argc) {
				const char *kv = c->argv[++k];
				const char *eq = strchr(kv, '=');
				size_t kl = eq ? (size_t)(eq - kv) : strlen(kv);
				f |= cfg_pair(kv, kl, eq ? eq + 1 : "");
			} else if (lu_starts_with(a, "--config-env=") ||
			           (lu_streq(a, "--config-env") &&
			            k + 1 < c->argc)) {
				/* --config-env[=]KEY=ENVVAR: the value is the
				   environment's */
				const char *kv =
				    a[12] == '=' ? a + 13 : c->argv[++k];
				const char *eq = strchr(kv, '=');
				size_t kl = eq ? (size_t)(eq - kv) : strlen(kv);
				f |= cfg_pair(kv, kl, "");
			} else if (in_list(git_global_with_value, a)) {
				k++;
			}
		}
		if (k >= c->argc || !lu_streq(c->argv[k], "config"))
			continue;
		size_t ops[2];
		if (lk_git_config_operands(lk_argv_word, c->argv, k + 1,
		                           c->argc, ops, 2) == 2)
			f |= cfg_pair(c->argv[ops[0]], strlen(c->argv[ops[0]]),
			              c->argv[ops[1]]);
	}
	return f;
}

void ll_judge_git_config(const locus_shell_command *c, uint32_t cfg,
                         ll_judgement *j)
{
	if (!cfg || c->argc == 0 || !is_git_name(c->name))
		return;
	view v;
	git_view(c, &v);
	if (!v.sub)
		return;
	if ((cfg & LL_GITCFG_FORCE_PUSH) && lu_streq(v.sub, "push")) {
		j->tags |= LOCUS_TAG_VCS_PUSH | LOCUS_TAG_FORCE_PUSH;
		add_reason(j, "git push is forced by a mirror or + refspec "
		              "setting on the line");
		set_never(j, LL_NEVER_FORCE_PUSH);
	}
	if ((cfg & LL_GITCFG_CLEAN_NOFORCE) && lu_streq(v.sub, "clean") &&
	    !dry_run(&v)) {
		j->tags |= LOCUS_TAG_DESTRUCTIVE;
		add_reason(j, "git clean deletes untracked files "
		              "(clean.requireForce is off)");
	}
	if (cfg & LL_GITCFG_HOOKS_PATH) {
		j->tags |= LOCUS_TAG_UNKNOWN;
		add_reason(j, "git runs hooks from a core.hooksPath directory "
		              "set on the line, which locus does not see");
	}
	if ((cfg & LL_GITCFG_PRUNE_NOW) &&
	    (lu_streq(v.sub, "gc") || lu_streq(v.sub, "maintenance"))) {
		j->tags |= LOCUS_TAG_DESTRUCTIVE;
		add_reason(j, "git gc prunes unreachable commits at once");
	}
}

/* `python -m MODULE ARGS` judged by MODULE's row as `MODULE ARGS`: its
   deleting options (`-m venv --clear`) and its pack (`python3 -m
   pre_commit install` is `pre-commit install`).  The view's argv starts
   at the word before ARGS, whatever it holds (`-mNAME`), as the rules
   read argv from 1 and the row for the name. */
static void judge_module_row(const locus_shell_command *c, const view *v,
                             const ll_context *ctx, ll_judgement *j)
{
	size_t rest = (size_t)(v->args - c->argv);
	if (rest == 0 || rest > c->argc)
		return;
	locus_shell_command m = *c;
	m.argv = c->argv + rest - 1;
	m.argc = c->argc - rest + 1;
	m.argv_flags = c->argv_flags ? c->argv_flags + rest - 1 : NULL;
	m.name = v->row->name;
	judge_optfx(&m, v->row->delete_opts, LOCUS_TAG_DESTRUCTIVE, j);
	/* a word computed at run time may be one of them (`-m venv
	   "$(echo --clear)"`: fuzz_bypass) */
	if (v->row->delete_opts && v->row->delete_opts[0].reason &&
	    ll_first_dynamic_arg(&m)) {
		j->tags |= LOCUS_TAG_DESTRUCTIVE;
		add_reason(j, v->row->delete_opts[0].reason);
		add_reason(j, LL_REASON_DYNAMIC);
	}
	if (v->row->pack != LK_PACK_NONE)
		pk_judge(&m, v->row, ctx, j);
}

/* ---- the closed world of a read-only row's options -------------------- */

#define LL_REASON_READ_OPTION                                                  \
	"a read-only program was given an option that is not in locus's "      \
	"option table for it (it may run a program or write a file: "          \
	"exec:unknown)"

/* name is read by the read_plain list or an argument rule (below). */
static bool read_listed(const char *name);

/* A read-only row that no argument rule reads (ps, bat, sdiff, dpkg):
   its options are known only through the row's read_opts, and any other
   may run a program, write a file or change the system (`sdiff
   --diff-program=CMD`, `bat --pager=CMD`, `yq -i`, `dmesg -C`, `dpkg
   -i`): exec:unknown, as for a program locus does not know.  So is a
   word computed at run time that may be an option. */
static void judge_read_options(const locus_shell_command *c,
                               const lk_program *prog, bool query,
                               ll_judgement *j)
{
	if (!prog || query || c->argc < 2 || lk_effect_of(prog) != LK_FX_READ)
		return;
	const lk_optspec *s = prog->read_opts;
	if ((s && (s->flags & LK_OPT_OPERANDS)) || read_listed(c->name) ||
	    read_listed(prog->name))
		return;
	for (size_t i = 1; i < c->argc; i++) {
		uint32_t f = c->argv_flags ? c->argv_flags[i] : 0;
		const char *a = c->argv[i];
		if ((f & LOCUS_WORD_MAY_BE_OPTION) &&
		    !(s && (s->flags & LK_OPT_COMPLETE))) {
			add_option_word(j, LOCUS_TAG_UNKNOWN,
			                LL_REASON_READ_OPTION);
			return;
		}
		if ((f & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST |
		          LOCUS_WORD_GLOB | LOCUS_WORD_BRACE)) ||
		    a[0] != '-' || !a[1])
			continue;
		if (lu_streq(a, "--"))
			return; /* operands follow */
		int k = lk_optspec_word(s, a);
		if (k == LK_OPTW_COMMAND)
			return; /* the command it runs: judged on its own */
		if (k < 0) {
			j->tags |= LOCUS_TAG_UNKNOWN;
			add_reason(j, LL_REASON_READ_OPTION);
			return;
		}
		i += (size_t)k;
	}
}

#define LL_REASON_CONFIG_OPTION                                                \
	"an option that is not in locus's table of inert options of a "        \
	"program that takes any key of its config as an option (npm: "         \
	"node-options, script-shell, editor, viewer... name programs it "      \
	"runs): exec:unknown"

/* A program whose option words are keys of its config (lk_program
   .config_opts): every option word before `--` is one of the inert ones,
   and no word computed at run time may be an option. */
static void judge_config_options(const locus_shell_command *c,
                                 const lk_program *prog, ll_judgement *j)
{
	const lk_optspec *s = prog ? prog->config_opts : NULL;
	for (size_t i = 1; s && i < c->argc; i++) {
		uint32_t f = c->argv_flags ? c->argv_flags[i] : 0;
		const char *a = c->argv[i];
		if (f & LOCUS_WORD_MAY_BE_OPTION) {
			add_option_word(j, LOCUS_TAG_UNKNOWN,
			                LL_REASON_CONFIG_OPTION);
			return;
		}
		if (a[0] != '-' || !a[1])
			continue;
		if (lu_streq(a, "--"))
			return; /* the script's arguments follow */
		/* a value word is not skipped: one that looks like an
		   option is judged as one (over-read) */
		if (lk_optspec_word(s, a) < 0) {
			j->tags |= LOCUS_TAG_UNKNOWN;
			add_reason(j, LL_REASON_CONFIG_OPTION);
			return;
		}
	}
}

#define LL_REASON_BARE_SECRET                                                  \
	"secrets: $(< FILE) prints a credential store or .env file"

/* A command of no words reading a credential store (`echo "$(<.env)"`:
   bash's `$(< FILE)` prints FILE; a bare `< .env` reads nothing and is
   held the same, over-read). */
static bool bare_reads_secret(const locus_shell_command *c)
{
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *r = &c->redirects[i];
		if (r->op && r->target &&
		    (lu_streq(r->op, "<") || lu_streq(r->op, "<>")) &&
		    pk_secret_path(r->target))
			return true;
	}
	return false;
}

void ll_judge_command(const locus_shell_command *c, const lk_program *prog,
                      const ll_context *ctx, ll_judgement *j)
{
	memset(j, 0, sizeof *j);
	if (c->flags & LOCUS_CMD_INLINE_DELETES) {
		j->tags |= LOCUS_TAG_DESTRUCTIVE;
		add_reason(j, LL_REASON_INLINE_DELETES);
	}
	/* `> /dev/sda`, `>/dev//./sda`: a storage device overwritten */
	if (ll_writes_device(c)) {
		j->tags |= LOCUS_TAG_DESTRUCTIVE;
		add_reason(j, "a redirect overwrites a storage device");
		set_never(j, LL_NEVER_FS);
	}
	/* Also on a bare redirect (`> /dev/tcp/h/80`) or `exec 3<>...`. */
	if (ll_net_redirect(c)) {
		j->tags |= LOCUS_TAG_NETWORK;
		add_reason(j, LL_REASON_NET_REDIRECT);
	}
	if (c->argc == 0 && bare_reads_secret(c)) {
		j->tags |= LOCUS_TAG_SECRETS;
		add_reason(j, LL_REASON_BARE_SECRET);
	}

	if (c->argc == 0 || !c->name[0])
		return;
	view v;
	make_view(c, prog, &v);

	/* the program, or the module `python -m NAME` runs */
	const lk_program *netrow = v.module ? v.row : prog;
	if (netrow && (netrow->cls & LK_NETWORK)) {
		j->tags |= LOCUS_TAG_NETWORK;
		add_reason(j, netrow->net
		                  ? netrow->net
		                  : "a network program reaches the network");
	}
	/* help and version forms print and exit: nothing is deleted */
	bool query = query_form(prog, c);
	if (!query && prog && (prog->cls & (LK_DELETES | LK_WIPES_DEVICE))) {
		/* rm FILE...: a workspace write (labels/rm.c); the line's cd
		   and the root's links are judged later (label.c, action.c) */
		if (ll_rm_as_write(c)) {
			add_reason(j, LL_REASON_RM_WRITE);
		} else {
			j->tags |= LOCUS_TAG_DESTRUCTIVE;
			add_reason(j, prog->destroys);
		}
		if (prog->cls & LK_WIPES_DEVICE)
			set_never(j, LL_NEVER_FS);
	}
	const lk_subfx *nr = find_subfx(v.row ? v.row->net_subs : NULL, &v);
	if (nr) {
		j->tags |= LOCUS_TAG_NETWORK;
		add_reason(j, nr->reason);
	}
	/* npm create NAME: runs the package it downloads, unseen */
	const lk_subfx *rr = find_subfx(v.row ? v.row->run_subs : NULL, &v);
	if (rr) {
		j->tags |= LOCUS_TAG_UNKNOWN;
		add_reason(j, rr->reason);
	}
	if (!query && foreign_sub(&v)) {
		j->tags |= LOCUS_TAG_UNKNOWN;
		add_reason(j, LL_REASON_FOREIGN_SUB);
	}
	if (rmt_archive(c, prog)) {
		j->tags |= LOCUS_TAG_NETWORK;
		add_reason(j, LL_REASON_RMT);
	}

	judge_optfx(c, prog ? prog->delete_opts : NULL, LOCUS_TAG_DESTRUCTIVE,
	            j);
	judge_unseen(c, prog, j);
	judge_compiler_args(c, &v, prog, j);
	judge_defines(c, prog, j);
	judge_read_options(c, prog, query, j);
	judge_config_options(c, prog, j);
	if (lu_streq(c->name, "rm") && !query && rm_floor(c))
		set_never(j, LL_NEVER_RM);
	judge_destroys_by(c, prog, j);
	if (lu_streq(v.prog, "git"))
		judge_git(c, &v, j);

	const lk_subfx *sr =
	    query || !v.row ? NULL : find_subfx(v.row->stop_subs, &v);
	if (sr) {
		j->tags |= LOCUS_TAG_SHUTDOWN;
		add_reason(j, sr->reason);
		set_never(j, LL_NEVER_STOP);
	}
	judge_dynamic(c, &v, prog, query, j);
	/* service and cloud CLIs: network, the generic verb rule */
	if (!query)
		ll_judge_service(c, prog, j);
	/* The knowledge packs (pack.h): destroyers, secrets, persistence,
	   privilege. */
	pk_judge(c, prog, ctx, j);
	if (v.module && v.row && v.row != prog)
		judge_module_row(c, &v, ctx, j);
}

/* clang-format off */
static const char *const system_dirs[] = {
	"/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin",
	"/usr/local/sbin", NULL,
};
/* clang-format on */

/* argv[0] is a bare name, or a path right under a system directory. */
static bool system_program(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	if (!slash)
		return true;
	for (const char *const *d = system_dirs; *d; d++) {
		size_t n = strlen(*d);
		if ((size_t)(slash - argv0) == n && strncmp(argv0, *d, n) == 0)
			return true;
	}
	return false;
}

/* ---- read-only ------------------------------------------------------- */

/* Flags that take a command out of read-only whatever its program. */
#define NOT_READ_FLAGS                                                         \
	(LOCUS_CMD_DYNAMIC | LOCUS_CMD_DYNAMIC_ARGS | LOCUS_CMD_SUBST |        \
	 LOCUS_CMD_BACKGROUND | LOCUS_CMD_WRITES_FILES |                       \
	 LOCUS_CMD_READS_FILE | LOCUS_CMD_INLINE_CODE |                        \
	 LOCUS_CMD_INLINE_DELETES | LOCUS_CMD_STDIN_SCRIPT |                   \
	 LOCUS_CMD_WRAPPER | LOCUS_CMD_FUNCTION_DEF | LOCUS_CMD_ASSIGN_ONLY)

/* Read-only programs without argument rules: a glob is fine for them.
   Sorted (strcmp order) for a binary search: looked up twice for every
   command (ll_tables_consistent checks the order).  whatis, apropos,
   whereis, pgrep, pidof name things as data. */
/* clang-format off */
static const char *const read_plain[] = {
	"[", "[[", "apropos", "basename", "cat", "cd", "cmp", "column",
	"comm", "cut", "df", "diff", "dirname", "du", "echo", "expand",
	"false", "fold", "grep", "head", "hexdump", "id", "jq", "ls",
	"md5sum", "nl", "od", "paste", "pgrep", "pidof", "popd", "pushd",
	"pwd", "readlink", "realpath", "rev", "seq", "sha1sum", "sha256sum",
	"stat", "strings", "tac", "tail", "test", "tr", "true", "type",
	"uname", "wc", "whatis", "whereis", "which", "whoami", NULL,
};
/* clang-format on */

#define NREAD_PLAIN (sizeof read_plain / sizeof *read_plain - 1)

/* name is on the read_plain list. */
static bool read_plain_has(const char *name)
{
	size_t lo = 0, hi = NREAD_PLAIN;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = lu_strcmp(read_plain[mid], name);
		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The program prints and exits: an option word of its row's `query`
   list (rm --help, mkfs -V, shutdown --help) before `--` and before any
   word computed at run time (which could be `--`: `rm -rf "$x" --help`
   with x=-- deletes a file named --help). */
static bool query_form(const lk_program *p, const locus_shell_command *c)
{
	if (!p || !p->query)
		return false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (lu_streq(a, "--") ||
		    (c->argv_flags && (c->argv_flags[i] & LOCUS_WORD_DYNAMIC)))
			return false;
		size_t n = strlen(a);
		for (const char *q = strstr(p->query, a); n && q;
		     q = strstr(q + 1, a))
			if (q > p->query && q[-1] == '|' && q[n] == '|')
				return true;
	}
	return false;
}

static bool args_none_match(const locus_shell_command *c,
                            bool (*bad)(const char *))
{
	for (size_t i = 1; i < c->argc; i++)
		if (bad(c->argv[i]))
			return false;
	return true;
}

/* clang-format off */
static const char *const find_writers[] = {
	"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint",
	"-fprint0", "-fprintf", NULL,
};
/* clang-format on */

static bool find_bad(const char *a)
{
	return in_list(find_writers, a);
}

static bool rg_bad(const char *a)
{
	return long_opt(a, "--pre", 3) || long_opt(a, "--hostname-bin", 3) ||
	       long_opt(a, "--search-zip", 3) || cluster_has(a, 'z');
}

static bool sort_bad(const char *a)
{
	return long_opt(a, "--output", 3) ||
	       long_opt(a, "--compress-program", 3) || cluster_has(a, 'o');
}

static bool tree_bad(const char *a)
{
	/* -o FILE writes; -R with -H writes 00Tree.html files. */
	return long_opt(a, "--output", 3) || cluster_has(a, 'o') ||
	       cluster_has(a, 'R');
}

/* date -s/--set sets the clock.  In a cluster -d -f -r -I take the rest
   as their value (`date -Iseconds` is not -s). */
static bool date_bad(const char *a)
{
	if (long_opt(a, "--set", 3))
		return true;
	if (!is_cluster(a))
		return false;
	for (const char *p = a + 1; *p; p++) {
		if (*p == 's')
			return true;
		if (strchr("dfrI", *p))
			return false;
	}
	return false;
}

static bool base64_bad(const char *a)
{
	return long_opt(a, "--output", 3) || cluster_has(a, 'o');
}

static bool file_bad(const char *a)
{
	/* file -C compiles a magic file into the working directory. */
	return long_opt(a, "--compile", 3) || cluster_has(a, 'C');
}

/* uniq IN OUT writes OUT.  -f -s -w take a separate value. */
static bool uniq_ok(const locus_shell_command *c)
{
	static const char *const with_value[] = {"-f", "-s", "-w", NULL};
	size_t operands = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (in_list(with_value, a)) {
			i++;
			continue;
		}
		if (!is_option(a) || lu_streq(a, "-"))
			operands++;
	}
	return operands < 2;
}

/*
 * A sed script that only prints: addresses (line numbers, $, /regex/,
 * \cREGEXc, first~step, ranges, addr,+N, addr,~N, !) and the commands p P = l q Q n N d D
 * h H g G x { } separated by ; or newlines.  No s (its w/e flags), no
 * w W e r R a i c y, no labels or branches.
 */
static bool sed_script_print_only(const char *s)
{
	static const char cmds[] = "pP=lqQnNdDhHgGx{}";
	const char *p = s;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == ';')
			p++;
		if (!*p)
			return true;
		p = lk_sed_address(p); /* the parser's reader: sed.h */
		if (!p)
			return false;
		while (*p == ' ' || *p == '\t' || *p == '!')
			p++;
		if (!*p)
			return false; /* an address with no command */
		if (!strchr(cmds, *p))
			return false;
		char cmd = *p++;
		if (cmd == '{')
			continue; /* a block: its commands follow directly */
		if (cmd == 'q' || cmd == 'Q' || cmd == 'l') {
			while (*p == ' ' || *p == '\t')
				p++;
			while (*p >= '0' && *p <= '9')
				p++;
		}
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p && *p != ';' && *p != '\n' && *p != '}')
			return false;
	}
}

static bool sed_ok(const locus_shell_command *c)
{
	bool quiet = false, have_e = false;
	const char *scripts[16];
	size_t nscripts = 0;
	size_t operands = 0;
	const char *first_operand = NULL;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (lu_streq(a, "--")) {
			operands += c->argc - i - 1;
			if (!first_operand && i + 1 < c->argc)
				first_operand = c->argv[i + 1];
			break;
		}
		if (lu_streq(a, "--quiet") || lu_streq(a, "--silent")) {
			quiet = true;
		} else if (opt_eq(a, "--expression")) {
			const char *v = strchr(a, '=');
			if (!v && i + 1 >= c->argc)
				return false;
			if (nscripts == 16)
				return false;
			scripts[nscripts++] = v ? v + 1 : c->argv[++i];
			have_e = true;
		} else if (lu_streq(a, "--regexp-extended") ||
		           lu_streq(a, "--posix") ||
		           lu_streq(a, "--separate") ||
		           lu_streq(a, "--unbuffered") ||
		           lu_streq(a, "--null-data") ||
		           lu_streq(a, "--debug") || lu_streq(a, "--sandbox")) {
			continue;
		} else if (is_cluster(a)) {
			for (const char *q = a + 1; *q; q++) {
				if (*q == 'n') {
					quiet = true;
				} else if (*q == 'e') {
					const char *v = q[1] ? q + 1 : NULL;
					if (!v && i + 1 >= c->argc)
						return false;
					if (nscripts == 16)
						return false;
					scripts[nscripts++] =
					    v ? v : c->argv[++i];
					have_e = true;
					break;
				} else if (strchr("Ersuz", *q)) {
					continue;
				} else {
					return false; /* -i -f -l ... */
				}
			}
		} else if (is_option(a)) {
			return false; /* --in-place, --file, unknown */
		} else {
			if (!first_operand)
				first_operand = a;
			operands++;
		}
	}
	if (!quiet)
		return false;
	if (!have_e) {
		if (!first_operand)
			return false;
		scripts[nscripts++] = first_operand;
	}
	for (size_t i = 0; i < nscripts; i++)
		if (!sed_script_print_only(scripts[i]))
			return false;
	return true;
}

static bool node_ok(const locus_shell_command *c)
{
	if (c->argc < 2 ||
	    !(lu_streq(c->argv[1], "--check") || lu_streq(c->argv[1], "-c")))
		return false;
	for (size_t i = 2; i < c->argc; i++)
		if (is_option(c->argv[i]))
			return false;
	return true;
}

static bool command_query_ok(const locus_shell_command *c)
{
	bool query = false;
	size_t i = 1;
	for (; i < c->argc && is_option(c->argv[i]); i++) {
		const char *a = c->argv[i];
		for (const char *q = a + 1; *q; q++) {
			if (*q == 'v' || *q == 'V')
				query = true;
			else if (*q != 'p')
				return false;
		}
	}
	return query;
}

/* git options that run programs or write files, on any subcommand, with
   their abbreviations (parse-options accepts any unambiguous prefix; an
   exact option name wins over a prefix, so `--text` is -a, not
   `--textconv`). */
static bool git_arg_bad(const char *a)
{
	if (lu_streq(a, "--text"))
		return false;
	return long_opt(a, "--output", 3) || long_opt(a, "--ext-diff", 3) ||
	       long_opt(a, "--textconv", 3) || long_opt(a, "--exec", 3) ||
	       long_opt(a, "--open-files-in-pager", 3) ||
	       long_opt(a, "--upload-pack", 3) ||
	       long_opt(a, "--receive-pack", 3);
}

/* clang-format off */
static const char *const git_read_subs[] = {
	"status", "log", "diff", "show", "branch", "remote", "rev-parse",
	"ls-files", "blame", "grep", "describe", "rev-list", "shortlog",
	"cat-file", "show-ref", NULL,
};
/* clang-format on */

/* clang-format off */
static const char *const git_branch_ok[] = {
	"-a", "-r", "-v", "-vv", "--all", "--remotes", "--list", "-l",
	"--show-current", NULL,
};
/* clang-format on */

static bool git_read_ok(const locus_shell_command *c)
{
	view v;
	git_view(c, &v);
	if (v.git_bad_global || !v.sub || !in_list(git_read_subs, v.sub))
		return false;
	for (size_t i = 0; i < v.nargs; i++)
		if (git_arg_bad(v.args[i]))
			return false;
	if (lu_streq(v.sub, "grep")) {
		for (size_t i = 0; i < v.nargs; i++)
			if (lu_streq(v.args[i], "--"))
				break;
			else if (cluster_has(v.args[i], 'O'))
				return false;
	}
	if (lu_streq(v.sub, "branch")) {
		bool list = false;
		for (size_t i = 0; i < v.nargs; i++) {
			const char *a = v.args[i];
			if (lu_streq(a, "--list") || lu_streq(a, "-l"))
				list = true;
			if (in_list(git_branch_ok, a) ||
			    lu_starts_with(a, "--format="))
				continue;
			if (list && !is_option(a))
				continue; /* a pattern after --list */
			return false;
		}
	}
	if (lu_streq(v.sub, "remote")) {
		size_t i = 0;
		while (i < v.nargs && (lu_streq(v.args[i], "-v") ||
		                       lu_streq(v.args[i], "--verbose")))
			i++;
		if (i < v.nargs) {
			if (!lu_streq(v.args[i], "get-url") ||
			    i + 2 != v.nargs || is_option(v.args[i + 1]))
				return false;
		}
	}
	if (lu_streq(v.sub, "cat-file")) {
		size_t modes = 0;
		for (size_t i = 0; i < v.nargs; i++) {
			const char *a = v.args[i];
			if (lu_streq(a, "-p") || lu_streq(a, "-t") ||
			    lu_streq(a, "-s"))
				modes++;
			else if (is_option(a))
				return false;
		}
		if (modes != 1)
			return false;
	}
	return true;
}

/* A lower-case shell name: bash's special variables (PATH, IFS, PS4,
   BASH_CMDS, PROMPT_COMMAND...) are all upper case, and no subscript
   (`a[$(cmd)]` runs code). */
static bool plain_lower_name(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || *s == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return false;
	return true;
}

/*
 * printf -v NAME assigns a shell variable: PATH, BASH_CMDS[ls] or a
 * subscript that runs code change what the line runs, so only a plain
 * lower-case NAME stays read-only.  Options end at the format (the first
 * non-option word) or `--`; bash also takes `-vNAME`.  A glob in option
 * position could expand to `-vPATH`; after the format it is data.
 */
static bool printf_ok(const locus_shell_command *c)
{
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (c->argv_flags &&
		    (c->argv_flags[i] & (LOCUS_WORD_GLOB | LOCUS_WORD_BRACE)))
			return false;
		if (lu_streq(a, "--") || !is_option(a))
			return true;
		if (a[1] != 'v')
			return false; /* bash's printf has no other option */
		const char *name = a + 2;
		if (!*name) {
			if (i + 1 >= c->argc)
				return false;
			name = c->argv[++i];
			if (c->argv_flags &&
			    (c->argv_flags[i] &
			     (LOCUS_WORD_GLOB | LOCUS_WORD_BRACE)))
				return false;
		}
		if (!plain_lower_name(name))
			return false;
	}
	return true;
}

/*
 * An awk program that only reads its input and prints to stdout: no
 * `system`, no `getline` (from a command or a file), no `|` (a pipe to
 * or from a command, `|&` a coprocess; `||` is a logical or), no `>`
 * after the first `print`/`printf` (output redirection only follows one
 * of them, so a `>` before any is a comparison: `$3 > 100 {print}`), no
 * `@` (gawk's @load, @include, indirect calls `@f()`) and no
 * backslash-newline.  Strings are not skipped: a regex `/"/` would make
 * a string scanner lose its place, so the scan is over the raw text and
 * `print "a>b"` stays exec (over-labelling, never under).
 */
static bool awk_program_data(const char *s)
{
	/* clang-format off */
	static const char *const bad_words[] = {
		"system", "getline", "@", "\\\n", "\\\r", NULL,
	};
	/* clang-format on */
	for (const char *const *w = bad_words; *w; w++)
		if (strstr(s, *w))
			return false;
	for (const char *b = strchr(s, '|'); b; b = strchr(b + 1, '|')) {
		if (b[1] != '|')
			return false;
		b++; /* `||` */
	}
	const char *print = strstr(s, "print");
	return !print || !strchr(print, '>');
}

/*
 * awk [-F FS] [-v NAME=VALUE] [--] 'PROGRAM' [FILE | NAME=VALUE]...
 * with a print-only program (awk_program_data).  Any other option is
 * exec: -f/-E/--file (a program we cannot see), gawk's -i/-l/--load/
 * --include, -e/--source, mawk's -W.  An operand under /inet is a gawk
 * network special file; an option after the program is exec too (an awk
 * whose getopt permutes would take `-f x` there).
 */
static bool awk_ok(const locus_shell_command *c)
{
	size_t i = 1;
	for (; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (lu_streq(a, "--")) {
			i++;
			break;
		}
		if (!is_option(a))
			break;
		if (a[1] == 'F' || a[1] == 'v') {
			if (!a[2])
				i++;
			continue;
		}
		if (opt_eq(a, "--field-separator") || opt_eq(a, "--assign")) {
			if (!strchr(a, '='))
				i++;
			continue;
		}
		return false;
	}
	if (i >= c->argc || !awk_program_data(c->argv[i]))
		return false;
	for (i++; i < c->argc; i++)
		if (lu_starts_with(c->argv[i], "/inet") ||
		    (is_option(c->argv[i]) && !lu_streq(c->argv[i], "-")))
			return false; /* and no option after the program */
	return true;
}

/*
 * A pager given files: every option a cluster of `flags` (flag letters
 * that neither take a value nor write: less's -o/-O log files, -k lesskey
 * files, -t/-T tags are not among them), no long option, and no word
 * starting with `+` (an initial command: `less +!cmd` runs a shell,
 * `more +/re` searches), even after `--`.
 */
static bool pager_ok(const locus_shell_command *c, const char *flags)
{
	bool opts = true;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (a[0] == '+')
			return false;
		if (!opts || !is_option(a))
			continue;
		if (lu_streq(a, "--")) {
			opts = false;
			continue;
		}
		for (const char *q = a + 1; *q; q++)
			if (!strchr(flags, *q))
				return false;
	}
	return true;
}

static bool less_ok(const locus_shell_command *c)
{
	return pager_ok(c, "aBcCdeEfFgGiIJKLmMnNqQrRsSuUwWX~");
}

/* util-linux more: -d -l -f -p -c -s -u -e and -NUM (lines per page). */
static bool more_ok(const locus_shell_command *c)
{
	return pager_ok(c, "dlfpcsue0123456789");
}

static bool most_ok(const locus_shell_command *c)
{
	return pager_ok(c, "");
}

/*
 * Inline code that only prints literals: `python3 -c
 * 'print(1)'`, `node -e 'console.log("x")'`, `perl -e 'print "x\n"'`.
 * One row per language: the print call, whether its parentheses may be
 * left out (perl), and the characters a double-quoted string may not
 * hold because the language interpolates them (perl: `"@{[system x]}"`
 * runs code).
 */
typedef struct print_lang {
	unsigned lang;         /* LK_LANG_* */
	const char *call;      /* the print function */
	bool bare;             /* `print "x"` without parentheses */
	const char *dq_forbid; /* not allowed inside "..." */
} print_lang;

/* clang-format off */
static const print_lang print_langs[] = {
	{ LK_LANG_PY, "print", false, "" },
	{ LK_LANG_JS, "console.log", false, "" },
	{ LK_LANG_PERL, "print", true, "$@" },
	{ 0, NULL, false, NULL },
};
/* clang-format on */

/* A literal at p: digits, or a quoted string whose only escapes are \n
   and \t.  Returns the end, or NULL. */
static const char *print_literal(const char *p, const print_lang *l)
{
	if (*p >= '0' && *p <= '9') {
		while ((*p >= '0' && *p <= '9') || *p == '.')
			p++;
		return p;
	}
	if (*p != '"' && *p != '\'')
		return NULL;
	char q = *p++;
	for (; *p && *p != q; p++) {
		if (*p == '\\') {
			if (p[1] != 'n' && p[1] != 't')
				return NULL;
			p++;
		} else if (q == '"' && strchr(l->dq_forbid, *p)) {
			return NULL;
		} else if (*p == '\n' || *p == '`') {
			return NULL;
		}
	}
	return *p ? p + 1 : NULL;
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Statements `CALL(LIT, LIT...)` separated by `;` or newlines. */
static bool code_prints_only(const char *s, const print_lang *l)
{
	size_t n = strlen(l->call);
	const char *p = s;
	bool any = false;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == ';')
			p++;
		if (!*p)
			return any;
		if (strncmp(p, l->call, n) != 0)
			return false;
		p = skip_blanks(p + n);
		bool paren = *p == '(';
		if (!paren && !l->bare)
			return false;
		if (paren)
			p = skip_blanks(p + 1);
		for (;;) {
			p = print_literal(p, l);
			if (!p)
				return false;
			p = skip_blanks(p);
			if (*p != ',')
				break;
			p = skip_blanks(p + 1);
		}
		if (paren) {
			if (*p != ')')
				return false;
			p = skip_blanks(p + 1);
		}
		if (*p && *p != ';' && *p != '\n')
			return false;
		any = true;
	}
}

/* PROG -X CODE exactly, X one of the row's inline-code letters, CODE
   print-only in the row's language.  Any other option or operand stays
   exec (`python3 -i -c ...` reads more code from stdin). */
static bool inline_print_ok(const locus_shell_command *c, const lk_program *p)
{
	if (!p || !(p->cls & LK_INTERP) || !p->interp || !p->interp->code ||
	    c->argc != 3)
		return false;
	const char *o = c->argv[1];
	if (o[0] != '-' || !o[1] || o[2] || !strchr(p->interp->code, o[1]))
		return false;
	for (const print_lang *l = print_langs; l->call; l++)
		if (l->lang == p->interp->lang)
			return code_prints_only(c->argv[2], l);
	return false;
}

/* Read-only programs with argument rules.  No glob argument allowed
   unless glob_ok (the rule checks where globs sit itself). */
typedef struct read_rule {
	const char *name;
	bool (*bad_arg)(const char *a);           /* per argument */
	bool (*ok)(const locus_shell_command *c); /* whole command */
	bool glob_ok;
} read_rule;

/* clang-format off */
static const read_rule read_rules[] = {
	{ "find", find_bad, NULL, false },
	{ "rg", rg_bad, NULL, false },
	{ "sort", sort_bad, NULL, false },
	{ "tree", tree_bad, NULL, false },
	{ "date", date_bad, NULL, false },
	{ "base64", base64_bad, NULL, false },
	{ "file", file_bad, NULL, false },
	{ "uniq", NULL, uniq_ok, false },
	{ "sed", NULL, sed_ok, false },
	{ "node", NULL, node_ok, false },
	{ "command", NULL, command_query_ok, false },
	{ "printf", NULL, printf_ok, true },
	{ "less", NULL, less_ok, false },
	{ "more", NULL, more_ok, false },
	{ "most", NULL, most_ok, false },
	{ NULL, NULL, NULL, false },
};

static bool read_listed(const char *name)
{
	if (read_plain_has(name))
		return true;
	for (const read_rule *r = read_rules; r->name; r++)
		if (lu_streq(r->name, name))
			return true;
	return false;
}
/* clang-format on */

bool ll_command_read_only(const locus_shell_command *c, const lk_program *prog)
{
	if (c->argc == 0 || !c->name[0])
		return false;
	/* An awk's program is inline code: data when it only prints. */
	uint32_t not_read = NOT_READ_FLAGS;
	bool awk = has_class(prog, LK_AWK);
	bool prints = !awk && inline_print_ok(c, prog);
	if (awk || prints)
		not_read &= ~(uint32_t)LOCUS_CMD_INLINE_CODE;
	if (c->flags & not_read)
		return false;
	if (c->origin && c->origin[0])
		return false;
	if (c->nwrappers || c->nassignments)
		return false;
	if (!system_program(c->argv[0]))
		return false;
	if (read_plain_has(c->name))
		return true;
	/* Everything below has argument rules: a glob could smuggle an
	   option (a file named --pre=sh). */
	bool glob = (c->flags & LOCUS_CMD_GLOB_ARGS) != 0;
	if (is_git_name(c->name))
		return !glob && git_read_ok(c);
	if (awk)
		return !glob && awk_ok(c);
	if (prints)
		return !glob;
	for (const read_rule *r = read_rules; r->name; r++) {
		if (!lu_streq(r->name, c->name))
			continue;
		if (glob && !r->glob_ok)
			return false;
		if (r->bad_arg && !args_none_match(c, r->bad_arg))
			return false;
		if (r->ok && !r->ok(c))
			return false;
		return true;
	}
	return false;
}

/* ---- checks ----------------------------------------------------------- */

/* The n bytes at w are exactly the word a (not NULL). */
static bool word_is(const char *w, size_t n, const char *a)
{
	return a && strlen(a) == n && !memcmp(a, w, n);
}

/* One entry `e` (n bytes: "*", "test" or "run lint") of the row's checks
   (lk_program.checks) matches v, strictly: the first argument, and a
   second word the second. */
static bool check_matches(const char *e, size_t n, const view *v)
{
	if (n == 1 && e[0] == '*')
		return true;
	const char *sp = memchr(e, ' ', n);
	size_t n1 = sp ? (size_t)(sp - e) : n;
	if (v->nargs < 1 || !word_is(e, n1, v->args[0]))
		return false;
	if (sp && (v->nargs < 2 || !word_is(sp + 1, n - n1 - 1, v->args[1])))
		return false;
	if (lu_streq(v->prog, "make")) {
		/* every target must be a check target */
		for (size_t i = 0; i < v->nargs; i++)
			if (!is_option(v->args[i]) &&
			    !strchr(v->args[i], '=') &&
			    !in_list(make_check_targets, v->args[i]))
				return false;
	}
	return true;
}

/* Does v run one of its row's checks? */
static bool row_check(const view *v)
{
	const char *list = v->row ? v->row->checks : NULL;
	for (const char *e = list ? list + 1 : NULL; e && *e;) {
		const char *end = strchr(e, '|');
		if (!end)
			break;
		if (end > e && check_matches(e, (size_t)(end - e), v))
			return true;
		e = end + 1;
	}
	return false;
}

bool ll_command_check(const locus_shell_command *c, const lk_program *prog)
{
	if (c->argc == 0 || !c->name[0])
		return false;
	/* Assignments and output redirects are allowed on checks. */
	uint32_t bad = NOT_READ_FLAGS & ~(uint32_t)LOCUS_CMD_WRITES_FILES;
	if (c->flags & bad)
		return false;
	if ((c->origin && c->origin[0]) || c->nwrappers)
		return false;
	if (!system_program(c->argv[0]))
		return false;
	view v;
	make_view(c, prog, &v);
	if (v.module)
		return in_list(check_modules, v.prog);
	if (is_git_name(c->name))
		return false;
	return row_check(&v);
}

/* ---- unknown programs (G2) ------------------------------------------- */

bool ll_unknown_program(const locus_shell_command *c, const lk_program *prog)
{
	if (c->argc == 0 || !c->name[0])
		return false;
	/* A wrapper's inner command is listed and judged on its own. */
	if (c->flags & (LOCUS_CMD_WRAPPER | LOCUS_CMD_QUERY_ONLY))
		return false;
	const char *n = c->name;
	/* A program of the program table is known when the table says what
	   it does with its arguments (data, code, a command it runs); a row
	   that only says "has subcommands" or "extracts" does not. */
	/* a read-only program's arguments are data (last -x shutdown) */
	if (lk_effect_of(prog) == LK_FX_READ)
		return false;
	if (read_plain_has(n) ||
	    has_class(prog, ~(uint32_t)(LK_SUBCOMMANDS | LK_EXTRACTS)) ||
	    is_git_name(n) || (prog && prog->destroys_by))
		return false;
	for (const read_rule *r = read_rules; r->name; r++)
		if (lu_streq(r->name, n))
			return false;
	if (prog && prog->delete_opts)
		return false;
	return !(prog && (prog->net_subs || prog->stop_subs || prog->checks));
}

/* ---- the closed world ------------------------------------- */

/* Workspace code: argv[0] is a path that is not right under a system
   directory (./build.sh, scripts/x.sh, node_modules/.bin/jest): the
   project's own code, judged as before ("runs workspace code"). */
bool ll_program_unknown(const locus_shell_command *c, const lk_program *prog)
{
	if (c->argc == 0 || !c->name[0] || prog)
		return false;
	/* a computed name is unparsed; a wrapper's inner command is judged
	   on its own */
	if (c->flags &
	    (LOCUS_CMD_DYNAMIC | LOCUS_CMD_WRAPPER | LOCUS_CMD_QUERY_ONLY))
		return false;
	/* git-log, git-push: git's helpers, judged as git */
	if (is_git_name(c->name))
		return false;
	return system_program(c->argv[0]);
}

/* A program one of the labeller's tables names is a row of the program
   table (so the closed world and the tables agree): the first name that
   is not, or NULL. */
static const char *table_name_not_row(void)
{
	for (size_t i = 0; i < NREAD_PLAIN; i++)
		if (!lk_program_find(read_plain[i]))
			return read_plain[i];
	for (const read_rule *r = read_rules; r->name; r++)
		if (!lk_program_find(r->name))
			return r->name;
	return NULL;
}

/* A row whose read_opts judge_read_options never reads (not read-only,
   or read by the read_plain list or an argument rule): its name, or
   NULL. */
static const char *read_opts_dead(void)
{
	size_t n;
	const lk_program *p = lk_programs(&n);
	for (size_t i = 0; i < n; i++)
		if (p[i].read_opts && (lk_effect_of(&p[i]) != LK_FX_READ ||
		                       read_listed(p[i].name)))
			return p[i].name;
	return NULL;
}

/* ---- table order (tests) ---------------------------------------------- */

bool ll_tables_consistent(char *why, size_t cap)
{
	if (!ll_service_tables_consistent(why, cap))
		return false;
	const char *dg = read_opts_dead();
	if (dg) {
		snprintf(why, cap,
		         "%s has read_opts but is not a read-only row that no "
		         "argument rule reads: the grammar is never used",
		         dg);
		return false;
	}
	const char *nr = table_name_not_row();
	if (nr) {
		snprintf(why, cap,
		         "%s is in a labeller table but not a row of the "
		         "program table (knowledge/programs.c)",
		         nr);
		return false;
	}
	for (size_t i = 0; i < NREAD_PLAIN; i++) {
		if ((i && strcmp(read_plain[i - 1], read_plain[i]) >= 0) ||
		    !read_plain_has(read_plain[i])) {
			snprintf(why, cap, "read_plain: %s out of order",
			         read_plain[i]);
			return false;
		}
	}
	return true;
}
