/*
 * parser/passes.c - fail-closed passes over the finished line, after the
 * walk (found by the oracle): text bash evaluates again, source fed by the
 * line, environment that carries code, shells fed a script that was not
 * parsed.  Each pass reads the public commands once (per-command child
 * facts instead of a scan per command) and stays inside the
 * line's time budget.
 */
#include <stdlib.h>
#include <string.h>

#include "seethrough.h"
#include "walk.h"
#include "../knowledge/env.h"
#include "../knowledge/programs.h"

/* The commands of the finished line, one at a time, inside its time
   budget: those that exist when the pass starts (a nested parse a pass
   runs appends commands that it does not visit). */
typedef struct pass_iter {
	size_t next, n;
	size_t i; /* the index of the command pass_next() returned */
} pass_iter;

static pass_iter pass_begin(const lp_ctx *ctx)
{
	pass_iter it = {0, locus_shell_result_count(ctx->result), 0};
	return it;
}

/* The next command, or NULL past the last or once the budget is spent. */
static const locus_shell_command *pass_next(lp_ctx *ctx, pass_iter *it)
{
	if (it->next >= it->n || lp_out_of_time(ctx))
		return NULL;
	it->i = it->next++;
	return locus_shell_result_command(ctx->result, it->i);
}

/* ---- text that bash evaluates again (found by the oracle) ---------------

   Bash runs command substitutions found in *data* in a few places: an
   arithmetic context reads a variable's value as an expression, and an
   array subscript in it runs `$(..)` (`x='a[$(rm y)]'; echo $((x))`,
   `let`, `[[ $x -eq 1 ]]`, `declare -i`, `test -v`, `printf -v`, `read`
   into a name); `${x@P}` and PS4 under `set -x` expand prompts; `compgen
   -C` runs a command; `declare -a a='(..)'` re-parses.  When the line holds
   literal command text (`$(` or a backtick inside single quotes or
   escaped) and one of these evaluators, it is not understood. */
/* clang-format off */
static const char *const reeval_cmds[] = {
	"let", "declare", "typeset", "local", "readonly", "export", "printf",
	"read", "mapfile", "readarray", "test", "[", "compgen", "complete",
	"set", "unset", NULL,
};
/* clang-format on */
/* clang-format off */
static const char *const reeval_text[] = {
	"((", "$[", "[[", "@P", "PS0=", "PS1=", "PS2=", "PS4=",
	"PROMPT_COMMAND=", "${", NULL, /* ${a[..]}: a subscript */
};
/* clang-format on */

/* `$'\x24('`: ANSI-C text that decodes to `$(` or a backtick. */
/* clang-format off */
static const char *const ansi_code[] = {
	"\\x24(", "\\044(", "\\u0024(", "\\U00000024(", "\\x60", "\\140",
	"\\u0060", NULL,
};
/* clang-format on */

/* s[0..n) holds `$(` */
static bool has_dollar_paren(const char *s, size_t n)
{
	for (const char *p = s, *e = s + n;
	     (p = memchr(p, '$', (size_t)(e - p))) != NULL; p++)
		if (p + 1 < e && p[1] == '(')
			return true;
	return false;
}

static bool literal_code_text(const char *s, size_t n)
{
	/* every text found below holds a backquote, a `$(` or (an ANSI-C
	   code) a backslash: a line with none of them, most lines, is
	   passed over by three vectorised scans instead of the byte loop */
	if (!memchr(s, '`', n) && !memchr(s, '\\', n) &&
	    !has_dollar_paren(s, n))
		return false;
	bool sq = false, dq = false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!sq && !dq && c == '$' && i + 1 < n && s[i + 1] == '\'') {
			/* $'...': scan to its end (\' does not close it) */
			size_t j = i + 2;
			while (j < n && s[j] != '\'') {
				for (size_t k = 0; ansi_code[k]; k++)
					if (!strncmp(s + j, ansi_code[k],
					             strlen(ansi_code[k])))
						return true;
				if (s[j] == '`' || (s[j] == '$' && j + 1 < n &&
				                    s[j + 1] == '('))
					return true;
				j += s[j] == '\\' ? 2 : 1;
			}
			i = j;
			continue;
		}
		if (sq) {
			if (c == '\'')
				sq = false;
			else if (c == '`' ||
			         (c == '$' && i + 1 < n && s[i + 1] == '('))
				return true;
			continue;
		}
		if (c == '\\' && i + 1 < n) {
			if (s[i + 1] == '`' ||
			    (s[i + 1] == '$' && i + 2 < n && s[i + 2] == '('))
				return true;
			i++;
			continue;
		}
		/* "$(( '$(rm y)' ))": single quotes are literal inside
		   double quotes, and the substitution runs */
		if (dq && c == '\'' && i + 2 < n && s[i + 1] == '$' &&
		    s[i + 2] == '(')
			return true;
		if (c == '"')
			dq = !dq;
		else if (c == '\'' && !dq)
			sq = true;
	}
	return false;
}

/* Bash's own tables of command names: writing them (by assignment,
   printf -v, declare, read...) rebinds names like `hash -p`. */
/* clang-format off */
static const char *const name_tables[] = {
	"BASH_CMDS", "BASH_ALIASES", NULL,
};
/* clang-format on */

void lp_checks_reeval(lp_ctx *ctx)
{
	const locus_shell_result *r = ctx->result;
	size_t len = 0;
	const char *src = locus_shell_result_source(r, &len);
	if (!locus_shell_result_parsed(r))
		return;
	for (size_t i = 0; name_tables[i]; i++)
		if (strstr(src, name_tables[i])) {
			lp_unparsed(ctx,
			            "the line touches %s (rebinds command "
			            "names)",
			            name_tables[i]);
			return;
		}
	if (!literal_code_text(src, len))
		return;
	bool trigger = false;
	for (size_t i = 0; reeval_text[i] && !trigger; i++)
		trigger = strstr(src, reeval_text[i]) != NULL;
	pass_iter it = pass_begin(ctx);
	for (const locus_shell_command *c;
	     !trigger && (c = pass_next(ctx, &it));) {
		for (size_t k = 0; reeval_cmds[k] && !trigger; k++)
			trigger = !strcmp(c->name, reeval_cmds[k]);
		/* printf evaluates only what -v names */
		if (trigger && !strcmp(c->name, "printf")) {
			trigger = false;
			for (size_t k = 1; k < c->argc && !trigger; k++)
				trigger = !strncmp(c->argv[k], "-v", 2);
		}
	}
	if (trigger)
		lp_unparsed(ctx, "literal command text on a line that "
		                 "evaluates data (arithmetic, declare, prompt "
		                 "expansion)");
}

/* `source /dev/stdin <<< 'rm y'`, `. <(echo rm y)`: source runs text the
   line feeds it, which we do not parse (found by the oracle). */
/* clang-format off */
static const char *const fed_paths[] = {
	"/dev/stdin", "/dev/fd/", "/proc/self/fd/", "-", NULL,
};
/* clang-format on */

/* What the children of each command are (one pass; children come after
   their parent), so that no check scans the line once per command. */
enum { CHILD_DOWNLOADER = 1, CHILD_STDIN_SCRIPT = 2 };

static unsigned char *child_facts(lp_ctx *ctx)
{
	const locus_shell_result *r = ctx->result;
	size_t n = locus_shell_result_count(r);
	unsigned char *f = lp_arena_alloc(ctx->arena, n ? n : 1);
	for (size_t j = 0; f && j < n; j++) {
		const locus_shell_command *d = locus_shell_result_command(r, j);
		if (d->parent >= j)
			continue;
		const lk_program *dp = lp_command_program(r, j);
		if (dp && (dp->cls & LK_DOWNLOADER))
			f[d->parent] |= CHILD_DOWNLOADER;
		if (!strcmp(d->origin, LOCUS_ORIGIN_STDIN_SCRIPT))
			f[d->parent] |= CHILD_STDIN_SCRIPT;
	}
	return f;
}

/* The child facts of command i, the table built on first use; -1 when out
   of memory (the result fails). */
static int kid_facts(lp_ctx *ctx, unsigned char **kids, size_t i)
{
	if (!*kids && !(*kids = child_facts(ctx)))
		return -1;
	return (*kids)[i];
}

void lp_checks_source(lp_ctx *ctx)
{
	unsigned char *kids = NULL;
	pass_iter it = pass_begin(ctx);
	for (const locus_shell_command *c; (c = pass_next(ctx, &it));) {
		if (c->argc < 2 ||
		    (strcmp(c->name, "source") && strcmp(c->name, ".")))
			continue;
		const char *f = c->argv[1];
		bool fed = (c->argv_flags[1] & LOCUS_WORD_SUBST) != 0;
		for (size_t k = 0; fed_paths[k] && !fed; k++)
			fed = !strncmp(f, fed_paths[k], strlen(fed_paths[k])) &&
			      (fed_paths[k][strlen(fed_paths[k]) - 1] == '/' ||
			       !strcmp(f, fed_paths[k]));
		/* a download sourced is remote code, labelled as such
		   (spec: `source <(curl ...)`); leave it parsed */
		int k = fed ? kid_facts(ctx, &kids, it.i) : 0;
		if (k < 0)
			return;
		if (k & CHILD_DOWNLOADER)
			fed = false;
		if (fed) {
			lp_unparsed(ctx, "'%s' runs text fed by the line",
			            c->name);
			return;
		}
	}
}

/* ---- environment that carries code (found by hand with the oracle) ------

   Programs run shell text taken from the environment: `GIT_PAGER='rm -rf
   x' git -p log` runs rm.  Those values are parsed as nested scripts
   (origin "environment"); names whose code we cannot see (a function
   imported by bash, a startup file, a preloaded library) make the line
   unparsed.  Assignments before a command, through env, and given to
   export/declare all count. */
/* clang-format off */
static const char *const declaring_cmds[] = {
	"export", "declare", "typeset", "readonly", "local", NULL,
};
/* clang-format on */

/* Option variables of pagers whose `+CMD` runs at start (less reads
   LESS as options: LESS='+!cmd' and LESS='-R +!cmd' run cmd; checked in
   less 590 inside bubblewrap).  `-+X` resets an option: not a command. */
/* clang-format off */
static const char *const env_pager_options[] = {"LESS", NULL};
/* clang-format on */

static bool pager_command(const char *v)
{
	for (const char *p = strchr(v, '+'); p; p = strchr(p + 1, '+'))
		if (p == v || p[-1] != '-')
			return true;
	return false;
}

static bool env_name_is(const char *a, size_t n, const char *name)
{
	size_t l = strlen(name);
	if (name[l - 1] == '_') /* prefix entry */
		return n >= l && !strncmp(a, name, l);
	return n == l && !strncmp(a, name, l);
}

static void env_assignment(lp_ctx *ctx, const char *a, size_t idx,
                           unsigned depth)
{
	const char *eq = strchr(a, '=');
	if (!eq)
		return;
	size_t n = (size_t)(eq - a);
	if (n > 0 && a[n - 1] == '+') /* NAME+=value */
		n--;
	lk_env_class cls = lk_env_class_of(a, n);
	if (cls == LK_ENV_HIDDEN_CODE) {
		lp_unparsed(ctx,
		            "%.*s in the environment runs code the line "
		            "does not show",
		            (int)n, a);
		return;
	}
	for (size_t k = 0; env_pager_options[k]; k++)
		if (env_name_is(a, n, env_pager_options[k]) &&
		    pager_command(eq + 1)) {
			lp_unparsed(
			    ctx,
			    "%.*s holds a command the pager runs at start "
			    "(+CMD)",
			    (int)n, a);
			return;
		}
	if (cls == LK_ENV_SHELL_TEXT && eq[1])
		lp_parse_nested(ctx, eq + 1, strlen(eq + 1), "environment", idx,
		                depth + 1);
}

/* How many of c's assignments it inherited from the wrapper it was peeled
   from: `X=1 sudo cmd` lists X=1 on sudo and on cmd, and the wrapper's
   assignments come first, in the same order.  Those are scanned once, on
   the wrapper (the command they are written on). */
static size_t inherited_assignments(const locus_shell_result *r,
                                    const locus_shell_command *c)
{
	if (!c->nwrappers || c->parent == LOCUS_SHELL_NO_PARENT)
		return 0;
	const locus_shell_command *p = locus_shell_result_command(r, c->parent);
	if (!p || !(p->flags & LOCUS_CMD_WRAPPER) ||
	    p->nassignments > c->nassignments)
		return 0;
	size_t k = 0;
	while (k < p->nassignments &&
	       !strcmp(p->assignments[k], c->assignments[k]))
		k++;
	return k;
}

void lp_checks_env(lp_ctx *ctx)
{
	const locus_shell_result *r = ctx->result;
	pass_iter it = pass_begin(ctx); /* nested ones come after */
	for (const locus_shell_command *c; (c = pass_next(ctx, &it));) {
		size_t i = it.i;
		/* env_assignment parses nested scripts, whose commands may
		   move the command array: c is fetched again after each
		   (it dangled when the array grew: ASan, fuzz-bypass) */
		for (size_t k = inherited_assignments(r, c);
		     k < c->nassignments; k++) {
			env_assignment(ctx, c->assignments[k], i, c->depth);
			c = locus_shell_result_command(r, i);
		}
		bool decl = lp_in_list(declaring_cmds, c->name);
		for (size_t k = 1; decl && k < c->argc; k++) {
			env_assignment(ctx, c->argv[k], i, c->depth);
			c = locus_shell_result_command(r, i);
		}
	}
}

/* ---- shells fed a script the walk did not parse (found by the oracle) ---

   `bash < <(echo rm -rf /)`, `sh 0<<<'rm -rf /'`: a shell with no -c and
   no script file reads its program from stdin.  When no command was
   parsed from that input (origin stdin-script), the line is not
   understood.  (A script file the line wrote is parsed in written.c.) */
/* A shell (`p` is c's row) that has neither -c nor a script operand: it
   runs what its stdin holds. */
static bool shell_reads_input(const locus_shell_command *c, const lk_program *p)
{
	if (c->argc == 0 || !p || !(p->cls & LK_SHELL) ||
	    (c->flags & LOCUS_CMD_QUERY_ONLY))
		return false;
	for (size_t k = 1; k < c->argc; k++) {
		const char *a = c->argv[k];
		if (!strcmp(a, "--version") || !strcmp(a, "--help"))
			return false; /* it prints and runs nothing */
		if (a[0] == '-' && a[1] != '-' && strchr(a + 1, 'c'))
			return false; /* -c: an inline script */
		if (a[0] == '-' && strchr(a, 's') && a[1] != '-')
			break; /* -s: the rest are positional */
		if (a[0] != '-' && a[0] != '+')
			return false; /* a file: written.c */
	}
	return true;
}

/* Command i's stdin is fed by the line: a pipe, a heredoc, a `<`
   redirect, a program that feeds it (tar --to-command=sh). */
static bool stdin_fed(const locus_shell_result *r, size_t i)
{
	const locus_shell_command *c = locus_shell_result_command(r, i);
	bool fed =
	    (c->flags & (LOCUS_CMD_PIPED_IN | LOCUS_CMD_STDIN_SCRIPT)) != 0 ||
	    lp_stdin_from_program(r, i);
	for (size_t k = 0; k < c->nredirects && !fed; k++) {
		const char *op = c->redirects[k].op;
		int fd = c->redirects[k].fd;
		fed = (fd == -1 || fd == 0) && op[0] == '<' &&
		      strcmp(op, "<&") != 0;
	}
	return fed;
}

/* An interpreter with no code option and no operand reads its program from
   stdin (`python3`, `python3 -`, `perl -w`). */
static bool interp_reads_input(const locus_shell_command *c,
                               const lk_program *p)
{
	if (c->argc == 0 || !p || !(p->cls & LK_INTERP) || !p->interp ||
	    !(p->interp->flags & LK_I_STDIN))
		return false;
	for (size_t k = 1; k < c->argc; k++) {
		const char *a = c->argv[k];
		if (a[0] != '-' || a[1] == '-')
			return false; /* an operand, a long option */
		for (const char *l = a + 1; *l; l++)
			if ((p->interp->query &&
			     strchr(p->interp->query, *l)) ||
			    strchr(p->interp->code, *l) ||
			    strchr(p->interp->val, *l) ||
			    strchr(p->interp->file, *l))
				return false;
	}
	return true;
}

/* c is in a nested script (`sh -c 'sh'`, awk's system("sh")) and inherits
   the stdin of a command that runs it, which the line feeds. */
static bool inherits_fed_stdin(const locus_shell_result *r,
                               const locus_shell_command *c)
{
	unsigned hops = 0;
	while (c->origin && c->origin[0] &&
	       c->parent != LOCUS_SHELL_NO_PARENT && hops++ < 64) {
		size_t up = c->parent;
		c = locus_shell_result_command(r, up);
		if (!c)
			return false;
		if (stdin_fed(r, up))
			return true;
	}
	return false;
}

void lp_checks_shell_input(lp_ctx *ctx)
{
	if (!locus_shell_result_parsed(ctx->result))
		return;
	unsigned char *kids = NULL;
	pass_iter it = pass_begin(ctx);
	for (const locus_shell_command *c; (c = pass_next(ctx, &it));) {
		const lk_program *p = lp_command_program(ctx->result, it.i);
		bool shell = shell_reads_input(c, p);
		if (!shell && !interp_reads_input(c, p))
			continue;
		if (!stdin_fed(ctx->result, it.i)) {
			/* not fed by the line: the stdin of the command
			   that runs it, or the harness's (a terminal, a
			   pipe, /dev/null: locus cannot tell which) */
			lp_unparsed(
			    ctx, "%s reads a program from %s", c->name,
			    inherits_fed_stdin(ctx->result, c)
			        ? "the stdin of the command that runs it"
			        : "a stdin the line does not show");
			return;
		}
		if (!shell)
			continue; /* stdin.c reads what is piped to it */
		int k = kid_facts(ctx, &kids, it.i);
		if (k < 0)
			return;
		if (!(k & CHILD_STDIN_SCRIPT) &&
		    !(c->flags & LOCUS_CMD_PIPED_IN)) {
			lp_unparsed(ctx,
			            "%s reads a script from its input that "
			            "was not parsed",
			            c->name);
			return;
		}
	}
}
