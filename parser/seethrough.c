/*
 * parser/seethrough.c - lp_emit(): one raw command in, every command it
 * runs out.
 *
 * Order: peel wrappers (each one is listed as a command of its own, then
 * the wrapped command with the wrappers' names), then look at what the
 * peeled command runs: a shell's -c script or stdin, eval, xargs,
 * parallel, find -exec, fd -x, git aliases and executable config, ssh's
 * remote command, watch, trap, interpreters' inline code (inline.c).
 * Nested scripts go back to the walk through lp_parse_nested(); nested
 * argv go through lp_emit() again, one level deeper.  Recursion here is
 * bounded by the depth limit, checked before every nested step.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "seethrough.h"

unsigned lp_max_depth(const lp_ctx *ctx)
{
	return ctx->opts.max_depth ? ctx->opts.max_depth
	                           : LOCUS_SHELL_DEFAULT_MAX_DEPTH;
}

/* Append s single-quoted, as bash would read it back as one word. */
static bool put_quoted(lp_arena *a, lp_buf *b, const char *s)
{
	if (!lp_buf_putc(a, b, '\''))
		return false;
	for (; *s; s++) {
		if (*s == '\'') {
			if (!lp_buf_append(a, b, "'\\''", 4))
				return false;
		} else if (!lp_buf_putc(a, b, *s)) {
			return false;
		}
	}
	return lp_buf_putc(a, b, '\'');
}

char *lp_join_words(lp_ctx *ctx, const lp_word *words, size_t from, size_t to,
                    bool quote)
{
	lp_buf b = {0};
	for (size_t i = from; i < to; i++) {
		const lp_word *w = &words[i];
		if (i > from && !lp_buf_putc(ctx->arena, &b, ' '))
			return NULL;
		/* A dynamic word goes in as written, so that the nested parse
		   sees it as dynamic too. */
		if (wdyn(w)) {
			const char *t = w->text ? w->text : "";
			if (!lp_buf_append(ctx->arena, &b, t, strlen(t)))
				return NULL;
		} else if (quote) {
			if (!put_quoted(ctx->arena, &b, wval(w)))
				return NULL;
		} else if (!lp_buf_append(ctx->arena, &b, wval(w),
		                          strlen(wval(w)))) {
			return NULL;
		}
	}
	return (char *)(uintptr_t)lp_buf_cstr(ctx->arena, &b);
}

bool lp_dyn_may_be_option(const lp_word *words, size_t n, size_t i)
{
	const lp_word *w = &words[i];
	const char *t = w->text ? w->text : "";
	size_t len = strlen(t);
	/* skip opening quotes ("", '', $"") to the first character bash
	   takes literally or expands */
	size_t k = 0;
	while (k < len &&
	       (t[k] == '"' || t[k] == '\'' ||
	        (t[k] == '$' && (t[k + 1] == '"' || t[k + 1] == '\''))))
		k += t[k] == '$' ? 2 : 1;
	if (k + 1 < len && t[k] == '\\')
		k++; /* \- is a literal dash */
	if (k < len && t[k] != '-' && t[k] != '$' && t[k] != '`')
		return false; /* a literal first character other than '-' */
	if (i + 1 < n)
		return true;
	/* the last word: it stands for several when it may split */
	return lp_dyn_may_split(w);
}

/* The first byte bash takes literally or expands in the word's text,
   past opening quotes ("", '', $"") and a backslash (`\-` is a
   literal dash): its index, and *literal whether it is taken as
   written. */
static size_t first_byte(const char *t, size_t len, bool *literal)
{
	size_t k = 0;
	while (k < len && (t[k] == '"' || t[k] == '\'' ||
	                   (t[k] == '$' && t[k + 1] == '"')))
		k += t[k] == '$' ? 2 : 1;
	*literal = !(k < len && t[k] == '$' && t[k + 1] == '\''); /* $'\x2d' */
	if (!*literal)
		return k;
	if (k + 1 < len && t[k] == '\\')
		k++;
	else if (k < len && (t[k] == '$' || t[k] == '`'))
		*literal = false;
	return k;
}

/* An expansion, substitution or backtick stands outside double quotes in
   the text t: its value may split into several words. */
static bool unquoted_expansion(const char *t)
{
	char q = 0;
	for (size_t i = 0; t[i]; i++) {
		char c = t[i];
		if (q == '\'') {
			q = c == '\'' ? 0 : q;
		} else if (c == '\\' && t[i + 1]) {
			i++;
		} else if (c == '"') {
			q = q ? 0 : '"';
		} else if (!q && c == '\'') {
			q = '\'';
		} else if (!q && (c == '`' || (c == '$' && t[i + 1] &&
		                               !strchr("'\"", t[i + 1])))) {
			return true;
		}
	}
	return false;
}

/* The text (past k) is `--NAME=` with NAME written out: the option is
   known, only its value is not. */
static bool literal_long_name(const char *t, size_t k)
{
	if (t[k] != '-' || t[k + 1] != '-')
		return false;
	size_t e = k + 2 +
	           strspn(t + k + 2, "abcdefghijklmnopqrstuvwxyz"
	                             "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                             "0123456789-");
	return e > k + 2 && t[e] == '=';
}

bool lp_word_may_be_option(const lp_word *w)
{
	uint32_t f = w->flags;
	if (!(f & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST | LOCUS_WORD_GLOB |
	           LOCUS_WORD_BRACE)))
		return false;
	const char *t = w->text ? w->text : "";
	size_t len = strlen(t);
	bool literal;
	size_t k = first_byte(t, len, &literal);
	if (k >= len || !literal)
		return true;
	if (f & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST)) {
		/* `--since="$(date)"` is --since; `--$x`, `-$x` and a
		   value that may split (`src/$f`) may be any option */
		if (unquoted_expansion(t))
			return true;
		return (t[k] == '-' || t[k] == '+') && !literal_long_name(t, k);
	}
	if (t[k] == '-' || t[k] == '+')
		return true;
	/* a glob or brace: `*`, `?(...)`, `[...]`, `{a,-x}` may give a name
	   starting with '-'; `src/` then a glob, `a{b,c}` cannot */
	return strchr("*?[{@!", t[k]) != NULL;
}

bool lp_dyn_may_split(const lp_word *w)
{
	const char *t = w->text ? w->text : "";
	size_t len = strlen(t);
	/* only one double-quoted string cannot split */
	return !(len >= 2 && t[0] == '"' && t[len - 1] == '"' &&
	         !memchr(t + 1, '"', len - 2));
}

void lp_parse_text(lp_ctx *ctx, const char *text, const char *origin,
                   size_t parent, unsigned depth)
{
	if (!text)
		return;
	lp_parse_nested(ctx, text, strlen(text), origin, parent, depth);
}

/* Emit words[0..n) as a command reached through `parent`. */
size_t lp_emit_nested(lp_ctx *ctx, const lp_raw_command *raw,
                      const lp_word *words, size_t n, const char *origin,
                      size_t parent, uint32_t extra_flags)
{
	if (raw->depth + 1 > lp_max_depth(ctx)) {
		lp_unparsed(ctx, "see-through deeper than %u levels",
		            lp_max_depth(ctx));
		return LOCUS_SHELL_NO_PARENT;
	}
	if (n == 0)
		return LOCUS_SHELL_NO_PARENT;
	lp_raw_command nr;
	memset(&nr, 0, sizeof nr);
	nr.nwords = n;
	nr.words = (lp_word *)(uintptr_t)words;
	nr.connector = "";
	nr.pipeline = raw->pipeline;
	nr.origin = origin;
	nr.parent = parent;
	nr.depth = raw->depth + 1;
	nr.function_name = raw->function_name;
	nr.flags =
	    (raw->flags & (LOCUS_CMD_FUNCTION_DEF | LOCUS_CMD_BACKGROUND)) |
	    extra_flags;
	nr.start = raw->start;
	nr.end = raw->end;
	nr.stdin_kind = LP_STDIN_NONE;
	nr.stdin_producer = LOCUS_SHELL_NO_PARENT;
	return lp_emit(ctx, &nr);
}

/* ---- dispatch -------------------------------------------------------- */

typedef void (*see_fn)(lp_ctx *, const lp_raw_command *, size_t, size_t);

static const struct {
	const char *name;
	see_fn fn;
	/* clang-format off */
} programs[] = {
	{ "eval", lp_see_eval },       { "trap", lp_see_trap },
    /* clang-format on */
    {"xargs", lp_see_xargs},
    {"parallel", lp_see_parallel},
    {"find", lp_see_find},
    {"fd", lp_see_fd},
    {"git", lp_see_git},
    {"ssh", lp_see_ssh},
    {"watch", lp_see_watch},
    {"at", lp_see_at},
    {"batch", lp_see_at},
    {"crontab", lp_see_crontab},
    {"make", lp_see_make},
    {"cmake", lp_see_cmake},
    {"sed", lp_sed_command},
};

static void see_through(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                        size_t idx)
{
	const char *name = lp_base_name(wval(&raw->words[pos]));
	/* the row of `name`, found when command idx was pushed */
	const lk_program *prog = lp_command_program(ctx->result, idx);
	lp_see_optvals(ctx, raw, pos, 0, idx);
	lp_check_dynamic_subcommand(ctx, raw, pos, name, prog);
	lp_ssh_config_sources(ctx, raw, pos, name);
	if (prog && (prog->cls & LK_SHELL)) {
		lp_shell_scan(ctx, raw, pos, idx, lu_streq(prog->name, "fish"),
		              LOCUS_ORIGIN_SHELL_C);
		return;
	}
	/* dispatched on the canonical name: gfind is find, gmake is make */
	const char *canon = prog ? prog->name : name;
	for (size_t i = 0; i < sizeof programs / sizeof *programs; i++) {
		if (lu_streq(programs[i].name, canon)) {
			programs[i].fn(ctx, raw, pos, idx);
			return;
		}
	}
	lp_inline_command(ctx, raw, pos, idx, prog);
}

/* ---- peeling wrappers ------------------------------------------------ */

/* Add env's / sudo's NAME=value words to a pushed command. */
static void add_assigns(lp_ctx *ctx, size_t idx, const char *const *extra,
                        size_t nextra)
{
	if (!nextra || idx == LOCUS_SHELL_NO_PARENT)
		return;
	locus_shell_command *c = &ctx->result->commands[idx];
	const char **a = lp_arena_alloc_raw(
	    ctx->arena, (c->nassignments + nextra + 1) * sizeof *a);
	if (!a)
		return;
	for (size_t i = 0; i < c->nassignments; i++)
		a[i] = c->assignments[i];
	for (size_t i = 0; i < nextra; i++)
		a[c->nassignments + i] = extra[i];
	a[c->nassignments + nextra] = NULL;
	c->assignments = a;
	c->nassignments += nextra;
}

/*
 * env -S STRING split as GNU env does (checked in a sandbox), into the
 * words single-quoted for the shell parse: blanks and \_ separate outside
 * quotes, '...' is literal, "..." and bare text decode \t \n \v \f \r
 * \" \' \\ \$ \# (and \_ is a space inside double quotes), \c ends
 * the string, # starts a comment at a word's start, ${NAME} expands (a
 * value we do not know: NULL, the caller fails closed).  *env_words is
 * set when the first word is an option or holds '=': env reads the split
 * words as its own arguments, so they are options and NAME=VALUE
 * assignments before the command (`env -S 'PATH=/usr/bin' git
 * reset --hard` runs git, not a program `PATH=/usr/bin`).
 */
static char *env_split(lp_ctx *ctx, const char *s, bool *dynamic,
                       bool *env_words)
{
	lp_buf out = {0}, word = {0};
	bool in_word = false;
	char q = 0;
	*dynamic = false;
	*env_words = false;
	for (const char *p = s;; p++) {
		char c = *p;
		bool sep = !q && (c == ' ' || c == '\t' || c == '\n' ||
		                  c == '\v' || c == '\f' || c == '\r' ||
		                  (c == '\\' && p[1] == '_'));
		if (!c || sep || (!q && c == '\\' && p[1] == 'c')) {
			if (in_word) {
				const char *wv = lp_buf_cstr(ctx->arena, &word);
				if (!out.len)
					*env_words = wv[0] == '-' ||
					             strchr(wv, '=') != NULL;
				if (out.len)
					lp_buf_putc(ctx->arena, &out, ' ');
				put_quoted(ctx->arena, &out,
				           lp_buf_cstr(ctx->arena, &word));
				word.len = 0;
				in_word = false;
			}
			if (!c || (c == '\\' && p[1] == 'c'))
				break;
			if (c == '\\')
				p++; /* \_ */
			continue;
		}
		if (!q && !in_word && c == '#')
			break; /* a comment to the end */
		in_word = true;
		if (c == q) {
			q = 0;
			continue;
		}
		if (!q && (c == '\'' || c == '"')) {
			q = c;
			continue;
		}
		if (c == '$' && q != '\'') {
			*dynamic = true; /* ${NAME}: the environment */
			return NULL;
		}
		if (c == '\\' && q != '\'' && p[1]) {
			static const char from[] = "tnvfr\"'\\$#_",
			                  to[] = "\t\n\v\f\r\"'\\$# ";
			const char *e = strchr(from, p[1]);
			if (!e)
				return NULL; /* an escape env refuses */
			c = to[e - from];
			p++;
		} else if (c == '\\' && q == '\'' &&
		           (p[1] == '\\' || p[1] == '\'')) {
			c = *++p;
		}
		lp_buf_putc(ctx->arena, &word, c);
	}
	return (char *)(uintptr_t)lp_buf_cstr(ctx->arena, &out);
}

/* A wrapper option whose value pipes into a command (strace -o '|CMD',
   '!CMD'): the command runs beside the wrapper's own. */
static void wrapper_pipe(lp_ctx *ctx, const lp_raw_command *r,
                         const lp_optscan *sc, const char *name, size_t idx)
{
	if (wdyn(sc->pipe)) {
		lp_unparsed(ctx,
		            "%s writes to a file only known at run time, which "
		            "may name a command: %s",
		            name, sc->pipe->text ? sc->pipe->text : "");
		return;
	}
	lp_parse_text(ctx, sc->pipe_value, LOCUS_ORIGIN_OPTION, idx,
	              r->depth + 1);
}

/* A wrapper that runs a command string (su -c, flock -c, script -c) or
   splits one (env -S). */
static void wrapper_script(lp_ctx *ctx, const lp_raw_command *r,
                           const lp_optscan *sc, const char *name, size_t idx)
{
	const lp_word *w = sc->script ? sc->script : sc->split_word;
	const char *value = sc->script ? sc->script_value : sc->split_value;
	if (!w || !value)
		return;
	if (wdyn(w)) {
		lp_unparsed(ctx,
		            "%s runs a command string only known at run "
		            "time: %s",
		            name, w->text ? w->text : "");
		return;
	}
	const char *text = value;
	if (!sc->script) {
		bool dyn, env_words;
		text = env_split(ctx, value, &dyn, &env_words);
		if (!text) {
			lp_unparsed(ctx, "%s -S splits a string %s: %s", name,
			            dyn ? "with ${NAME} expansions"
			                : "with an escape it refuses",
			            value);
			return;
		}
		if (env_words)
			text = lp_arena_printf(ctx->arena, "env %s", text);
	}
	/* env -S STRING ARGS: the string's words, then every word after the
	   string's (GNU env puts them in place of -S and reads the whole
	   again: `env -S 'bash -c' 'x=1; CMD'` runs bash -c 'x=1; CMD', the
	   word is no assignment of env's; checked in coreutils 9.1) */
	size_t after = sc->script ? r->nwords : (size_t)(w - r->words) + 1;
	if (!sc->script && after < r->nwords) {
		const char *rest =
		    lp_join_words(ctx, r->words, after, r->nwords, true);
		text = rest ? lp_arena_printf(ctx->arena, "%s %s", text, rest)
		            : NULL;
	}
	/* a string with a command word makes env a wrapper of what it runs
	   (not an environment dump: `env -S 'python3 -u' x.py`); an empty
	   one leaves env printing the environment (`env -S ''`) */
	if (!sc->script && text && text[strspn(text, " \t")])
		ctx->result->commands[idx].flags |= LOCUS_CMD_WRAPPER;
	lp_parse_text(ctx, text, LOCUS_ORIGIN_WRAPPER_SCRIPT, idx,
	              r->depth + 1);
}

/*
 * su -s PROG [user [args]]: PROG is run as the login shell with the
 * arguments after the user (getopt drops a `--`), so `su -s /bin/rm root
 * -- -rf /` runs `rm -rf /`.  A shell PROG is left to lp_shell_scan; true
 * when the command was handled here.
 */
static bool su_program(lp_ctx *ctx, const lp_raw_command *r, size_t pos,
                       const lp_optscan *sc, size_t idx)
{
	/* util-linux su permutes: `su root -s /bin/rm -- -rf /` gives -s
	   after the user (getopt reads options up to `--`) */
	for (size_t i = sc->cmd + 1; i < r->nwords; i++) {
		const char *v = wval(&r->words[i]);
		if (lu_streq(v, "--"))
			break;
		if (lu_streq(v, "-s") || !strncmp(v, "--shell", 7) ||
		    (v[0] == '-' && v[1] != '-' && strchr(v, 's') &&
		     !strchr(v, 'c'))) {
			const char *sh =
			    v[1] == 's' && !v[2] && i + 1 < r->nwords
			        ? wval(&r->words[i + 1])
			        : "";
			if (!lp_is_shell(lp_base_name(sh))) {
				lp_unparsed(ctx,
				            "%s: a login shell option after "
				            "the user (options permute): %s",
				            wval(&r->words[pos]), v);
				return true;
			}
		}
	}
	if (!sc->seen['s'])
		return false;
	const lp_word *prog = NULL;
	size_t end = sc->cmd < r->nwords ? sc->cmd : r->nwords;
	for (size_t i = pos + 1; i < end; i++) {
		const char *v = wval(&r->words[i]);
		if (lu_streq(v, "-s") || lu_streq(v, "--shell")) {
			if (i + 1 < end)
				prog = &r->words[++i];
		} else if (!strncmp(v, "--shell=", 8) ||
		           (v[0] == '-' && v[1] != '-' && strchr(v, 's'))) {
			prog = NULL; /* attached or clustered: checked below */
			lp_unparsed(ctx,
			            "%s: the login shell option is written "
			            "in a form not analysed: %s",
			            wval(&r->words[pos]), v);
			return true;
		}
	}
	if (!prog)
		return false;
	if (wdyn(prog)) {
		lp_unparsed(ctx,
		            "%s runs a login shell only known at run time: "
		            "%s",
		            wval(&r->words[pos]), prog->text ? prog->text : "");
		return true;
	}
	if (lp_is_shell(lp_base_name(wval(prog))))
		return false;
	if (sc->script) {
		lp_unparsed(ctx, "%s runs %s as the shell of a -c command",
		            wval(&r->words[pos]), wval(prog));
		return true;
	}
	size_t from = sc->cmd < r->nwords ? sc->cmd + 1 : r->nwords;
	if (from < r->nwords && !wdyn(&r->words[from]) &&
	    lu_streq(wval(&r->words[from]), "--"))
		from++;
	size_t na = 1 + (r->nwords - from);
	lp_word *argv = lp_arena_alloc_raw(ctx->arena, na * sizeof *argv);
	if (!argv)
		return true;
	argv[0] = *prog;
	for (size_t i = from; i < r->nwords; i++)
		argv[1 + i - from] = r->words[i];
	lp_emit_nested(ctx, r, argv, na, LOCUS_ORIGIN_WRAPPER_SCRIPT, idx, 0);
	return true;
}

/*
 * capsh [--OPT...] -- ARGS runs `/bin/bash ARGS` (libcap's capsh.c), or
 * the program of --shell=PROG; `capsh -- -c CMD` runs CMD.
 * The words after `--` are emitted as that shell's command.
 */
static void shell_args(lp_ctx *ctx, const lp_raw_command *r, size_t pos,
                       const lp_optscan *sc, size_t idx)
{
	const lp_word *shell = NULL;
	for (size_t i = pos + 1; i < sc->cmd && i < r->nwords; i++)
		if (!strncmp(wval(&r->words[i]), "--shell", 7))
			shell = &r->words[i];
	const char *prog = "bash";
	if (shell) {
		const char *v = wval(shell);
		prog = v[7] == '=' ? v + 8 : "";
		if (wdyn(shell) || !lp_is_shell(lp_base_name(prog))) {
			lp_unparsed(ctx, "%s runs the program of %s",
			            wval(&r->words[pos]),
			            shell->text ? shell->text : v);
			return;
		}
	}
	size_t from = sc->cmd < r->nwords ? sc->cmd : r->nwords;
	size_t na = 1 + (r->nwords - from);
	lp_word *argv = lp_arena_alloc(ctx->arena, na * sizeof *argv);
	if (!argv)
		return;
	argv[0].value = prog;
	argv[0].text = prog;
	for (size_t i = from; i < r->nwords; i++)
		argv[1 + i - from] = r->words[i];
	lp_emit_nested(ctx, r, argv, na, LOCUS_ORIGIN_WRAPPER_SCRIPT, idx, 0);
}

/* The wrapper runs a shell that reads its program from stdin: no command
   and no script option, and its row says so for every form
   (LK_OPT_STDIN_SHELL) or for a letter seen (sudo -s, sudo -i). */
static bool runs_stdin_shell(const lk_optspec *spec, const lp_optscan *sc,
                             size_t n)
{
	if (sc->script || sc->split_value || sc->cmd < n)
		return false;
	if (spec->flags & LK_OPT_STDIN_SHELL)
		return true;
	for (const char *l = spec->shell; l && *l; l++)
		if (sc->seen[(unsigned char)*l & 127])
			return true;
	return false;
}

/* A wrapper's assignment word known only at run time (w, v its value)
   makes an assignment we cannot name when its name is computed (`env
   "$N=V"`, `strace -E "$V"`, a word xargs fills in: the value's part
   before `=` holds an expansion's text, or there is no `=`) or when it
   may split; the line is then not understood (the unquoted `$N=V git`
   is not either).  True when v can be judged as NAME=VALUE: a quoted
   whole word (`env "GIT_EDITOR=$E"`) is an assignment as `N="$E"` is. */
static bool dyn_assign_known(lp_ctx *ctx, const lp_word *w, const char *v,
                             const char *wrapper)
{
	if (!w || !(w->flags & LOCUS_WORD_DYNAMIC))
		return true;
	const char *eq = v ? strchr(v, '=') : NULL;
	if (!eq || eq == v || strcspn(v, "$`<>") < (size_t)(eq - v)) {
		lp_unparsed(ctx,
		            "%s sets a variable whose name is known only "
		            "at run time: %s",
		            wrapper, w->text ? w->text : wval(w));
		return false;
	}
	if (w->text && unquoted_expansion(w->text)) {
		lp_unparsed(ctx, "%s's assignment %s may split into more words",
		            wrapper, w->text ? w->text : wval(w));
		return false;
	}
	return true;
}

/* The assignments a wrapper's env options make (strace -E NAME=VALUE,
   bwrap --setenv NAME VALUE) into out (one per option at most: each
   took a word of the line); their count.  `-E NAME` alone unsets; a
   run-time word is judged by dyn_assign_known. */
static size_t env_assigns(lp_ctx *ctx, const lp_optscan *sc, const char **out,
                          const char *wrapper)
{
	size_t n = 0;
	for (size_t k = 0; k < sc->nenv; k++) {
		const char *v = sc->env[k];
		bool two = sc->env_value[k] != NULL;
		if (two)
			v = lp_arena_printf(ctx->arena, "%s=%s", v,
			                    sc->env_value[k]);
		if (!v || !dyn_assign_known(ctx, sc->env_word[k], v, wrapper) ||
		    (two &&
		     !dyn_assign_known(ctx, sc->env_vword[k], "V=", wrapper)))
			continue;
		if (strchr(v, '=') && v[0] != '=')
			out[n++] = v;
	}
	return n;
}

size_t lp_emit(lp_ctx *ctx, lp_raw_command *raw)
{
	if (lp_out_of_time(ctx))
		return lp_push_raw(ctx, raw, 0, 0, NULL);
	lp_raw_command r = *raw;
	/* a command of parallel's text: the words its input fills in */
	if (!lp_input_mark(ctx, &r))
		return LOCUS_SHELL_NO_PARENT;
	size_t n = r.nwords, pos = 0, nwr = 0, nextra = 0;
	/* scratch for the peeled wrappers' names and assignments (both
	   copied when a command is pushed): on the stack for the usual
	   short command, in the arena for a long one */
	const char *wr_small[16], *extra_small[16];
	const char **wr = wr_small, **extra = extra_small;
	if (n + 1 > sizeof wr_small / sizeof *wr_small) {
		/* read up to nwr / nextra only */
		wr = lp_arena_alloc_raw(ctx->arena, (n + 1) * sizeof *wr);
		extra = lp_arena_alloc_raw(ctx->arena, (n + 1) * sizeof *extra);
		if (!wr || !extra)
			return LOCUS_SHELL_NO_PARENT;
	}

	while (pos < n && !wdyn(&r.words[pos])) {
		size_t at;
		const lk_program *wp = lp_wrapper_match(r.words, n, pos, &at);
		if (!wp)
			break;
		if (nwr == LP_MAX_WRAPPER_CHAIN) {
			/* each peeled wrapper is a command holding every word
			   after it, so a line of one wrapper repeated (`time
			   time ... ls`, 10 KB) cost the square of its length
			   here and in the labeller: past the bound
			   the rest is not analysed */
			lp_unparsed(ctx, "a chain of more than %d wrappers",
			            LP_MAX_WRAPPER_CHAIN);
			return lp_push_raw(ctx, &r, pos, nwr, wr);
		}
		const lk_optspec *spec = wp->opts;
		lp_optscan sc;
		lp_optscan_run(spec, r.words, n, at, &sc);
		bool su_shell = (spec->flags & LK_OPT_SU) && !sc.seen['u'];
		bool sh_args = (spec->flags & LK_OPT_SHELL_ARGS) &&
		               sc.cmd > 0 && sc.cmd <= n &&
		               !wdyn(&r.words[sc.cmd - 1]) &&
		               lu_streq(wval(&r.words[sc.cmd - 1]), "--");
		bool peel = !sc.unknown && !sc.query && !sc.nocmd &&
		            !sc.script && !sc.split_value && !su_shell &&
		            !sh_args && sc.cmd < n;
		lp_raw_command wraw = r;
		if (sc.query)
			wraw.flags |= LOCUS_CMD_QUERY_ONLY;
		if (peel)
			wraw.flags |= LOCUS_CMD_WRAPPER;
		size_t idx = lp_push_raw(ctx, &wraw, pos, nwr, wr);
		if (idx == LOCUS_SHELL_NO_PARENT)
			return idx;
		add_assigns(ctx, idx, extra, nextra);
		if (sc.pipe && !sc.unknown)
			wrapper_pipe(ctx, &r, &sc, wp->name, idx);
		if (sc.unknown) {
			lp_unparsed(ctx, "unknown option %s of wrapper %s",
			            sc.unknown, wp->name);
			return idx;
		}
		if (sc.query || sc.nocmd)
			return idx;
		if (sc.script || sc.split_value) {
			wrapper_script(ctx, &r, &sc, wp->name, idx);
			return idx;
		}
		if (sh_args) {
			shell_args(ctx, &r, pos, &sc, idx);
			return idx;
		}
		if (runs_stdin_shell(spec, &sc, n)) {
			/* no command: a shell reading its stdin (`echo CMD |
			   script`, `sudo -s`, `unshare`, `sg GROUP`) */
			lp_raw_command sraw = r;
			sraw.parent = idx;
			lp_shell_scan(ctx, &sraw, n - 1, idx, false,
			              LOCUS_ORIGIN_WRAPPER_SCRIPT);
			return idx;
		}
		if (su_shell && su_program(ctx, &r, pos, &sc, idx))
			return idx;
		if (su_shell) {
			/* su [-] [user [shell args]]: the args go to the
			   user's shell, so `su root -c CMD` runs CMD */
			size_t sh = sc.cmd < n ? sc.cmd : n - 1;
			lp_raw_command sraw = r;
			sraw.parent = idx;
			lp_shell_scan(ctx, &sraw, sh, idx, false,
			              LOCUS_ORIGIN_WRAPPER_SCRIPT);
			return idx;
		}
		if (!peel)
			return idx; /* a bare wrapper */
		if ((spec->flags & LK_OPT_BACKGROUND) ||
		    (spec->background && sc.seen_bg))
			r.flags |= LOCUS_CMD_BACKGROUND;
		for (size_t i = sc.assign_first; i < sc.assign_end; i++) {
			const lp_word *aw = &r.words[i];
			if (dyn_assign_known(ctx, aw, wval(aw), wp->name))
				extra[nextra++] = wval(aw);
		}
		nextra += env_assigns(ctx, &sc, extra + nextra, wp->name);
		wr[nwr++] = wp->name;
		r.parent = idx;
		pos = sc.cmd;
	}

	if (pos < n && wdyn(&r.words[pos]))
		lp_unparsed(ctx, "command name is dynamic: %s",
		            r.words[pos].text ? r.words[pos].text : "");
	else if (pos < n && (strrchr(wval(&r.words[pos]), '/')
	                         ? strrchr(wval(&r.words[pos]), '/')[1]
	                         : wval(&r.words[pos])[0]) == '\0')
		lp_unparsed(ctx, "command name is empty");
	size_t idx = lp_push_raw(ctx, &r, pos, nwr, wr);
	if (idx == LOCUS_SHELL_NO_PARENT)
		return idx;
	add_assigns(ctx, idx, extra, nextra);
	if (pos < n && !wdyn(&r.words[pos]))
		see_through(ctx, &r, pos, idx);
	return idx;
}
