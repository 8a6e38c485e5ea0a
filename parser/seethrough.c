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

static const char *wval(const lp_word *w)
{
	return w->value ? w->value : "";
}

static bool wdyn(const lp_word *w)
{
	return (w->flags & LOCUS_WORD_DYNAMIC) != 0;
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
	lp_buf b = { 0 };
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

static void parse_text(lp_ctx *ctx, const char *text, const char *origin,
                       size_t parent, unsigned depth)
{
	if (!text)
		return;
	lp_parse_nested(ctx, text, strlen(text), origin, parent, depth);
}

/* Emit words[0..n) as a command reached through `parent`. */
static size_t emit_nested(lp_ctx *ctx, const lp_raw_command *raw,
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
	nr.flags = (raw->flags & (LOCUS_CMD_FUNCTION_DEF | LOCUS_CMD_BACKGROUND)) |
	           extra_flags;
	nr.start = raw->start;
	nr.end = raw->end;
	nr.stdin_kind = LP_STDIN_NONE;
	nr.stdin_producer = LOCUS_SHELL_NO_PARENT;
	return lp_emit(ctx, &nr);
}

/* ---- what feeds stdin ------------------------------------------------ */

/* echo's output when it is literal, else NULL (sets *decoded when -e
   would interpret escapes). */
static const char *echo_text(lp_ctx *ctx, const locus_shell_command *c,
                             bool *decoded)
{
	size_t i = 1;
	bool e = false, nl = true;
	for (; i < c->argc; i++) {
		const char *v = c->argv[i];
		if (v[0] != '-' || !v[1] || strspn(v + 1, "neE") != strlen(v + 1))
			break;
		for (const char *p = v + 1; *p; p++) {
			if (*p == 'n')
				nl = false;
			else if (*p == 'e')
				e = true;
			else
				e = false;
		}
	}
	lp_buf b = { 0 };
	for (size_t k = i; k < c->argc; k++) {
		const char *v = c->argv[k];
		if (e && strchr(v, '\\')) {
			*decoded = true;
			return NULL;
		}
		if (k > i && !lp_buf_putc(ctx->arena, &b, ' '))
			return NULL;
		if (!lp_buf_append(ctx->arena, &b, v, strlen(v)))
			return NULL;
	}
	if (nl && !lp_buf_putc(ctx->arena, &b, '\n'))
		return NULL;
	return lp_buf_cstr(ctx->arena, &b);
}

/* printf's output when its format has no escape and uses only %s and
   %%; anything else decodes (NULL, *decoded set). */
static const char *printf_text(lp_ctx *ctx, const locus_shell_command *c,
                               bool *decoded)
{
	size_t i = 1;
	if (i < c->argc && lp_streq(c->argv[i], "--"))
		i++;
	if (i >= c->argc || c->argv[i][0] == '-') {
		*decoded = true; /* printf -v VAR prints nothing we can see */
		return NULL;
	}
	const char *fmt = c->argv[i++];
	lp_buf b = { 0 };
	do {
		bool used = false;
		for (const char *p = fmt; *p; p++) {
			char ch = *p;
			if (ch == '\\') {
				/* an escape is decoding (spec: printf with
				   escapes is a decoder) */
				*decoded = true;
				return NULL;
			} else if (ch == '%') {
				p++;
				if (*p == '%') {
					ch = '%';
				} else if (*p == 's') {
					used = true;
					const char *arg = i < c->argc ? c->argv[i++] : "";
					if (!lp_buf_append(ctx->arena, &b, arg, strlen(arg)))
						return NULL;
					continue;
				} else {
					*decoded = true;
					return NULL;
				}
			}
			if (!lp_buf_putc(ctx->arena, &b, ch))
				return NULL;
			if (b.len > ((size_t)1 << 20)) {
				*decoded = true;
				return NULL;
			}
		}
		if (!used)
			break;
	} while (i < c->argc);
	return lp_buf_cstr(ctx->arena, &b);
}

/* cat's output when it only copies a heredoc or herestring. */
static const char *cat_text(lp_ctx *ctx, const locus_shell_command *c,
                            bool *dynamic)
{
	for (size_t i = 1; i < c->argc; i++)
		if (strcmp(c->argv[i], "-"))
			return NULL;
	const char *text = NULL;
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *r = &c->redirects[i];
		if (r->fd > 0 || !r->op || strncmp(r->op, "<<", 2))
			continue;
		text = r->target ? r->target : "";
		*dynamic = (r->target_flags & LOCUS_WORD_DYNAMIC) != 0;
	}
	(void)ctx;
	return text;
}

static bool any_dynamic_arg(const locus_shell_command *c)
{
	for (size_t i = 1; i < c->argc; i++)
		if (c->argv_flags[i] & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_GLOB))
			return true;
	return false;
}

const char *lp_stdin_text(lp_ctx *ctx, const lp_raw_command *raw,
                          const char *what)
{
	switch (raw->stdin_kind) {
	case LP_STDIN_HEREDOC:
	case LP_STDIN_HERESTRING:
		if (raw->stdin_flags & LOCUS_WORD_DYNAMIC)
			lp_unparsed(ctx, "%s runs a %s whose text is only known "
			                 "at run time",
			            what,
			            raw->stdin_kind == LP_STDIN_HEREDOC
			                    ? "heredoc"
			                    : "herestring");
		return raw->stdin_text ? raw->stdin_text : "";
	case LP_STDIN_PIPE:
		break;
	default:
		return NULL;
	}
	size_t p = raw->stdin_producer;
	if (p == LOCUS_SHELL_NO_PARENT || p >= ctx->result->ncommands) {
		lp_unparsed(ctx, "%s runs the output of a compound command", what);
		return NULL;
	}
	return lp_output_or_unparsed(ctx, p, what);
}

const char *lp_output_or_unparsed(lp_ctx *ctx, size_t p, const char *what)
{
	const locus_shell_command *c = &ctx->result->commands[p];
	const char *name = c->name ? c->name : "";
	bool dyn = false;
	lp_output out;
	const char *text = lp_command_output(ctx, p, &out, &dyn);
	if (out == LP_OUT_DOWNLOAD)
		return NULL; /* remote code: the labels tag it */
	if (out == LP_OUT_DECODED) {
		lp_unparsed(ctx, "%s runs decoded input (%s)", what, name);
		return NULL;
	}
	if (!text) {
		lp_unparsed(ctx, "%s runs the output of %s", what,
		            *name ? name : "a command");
		return NULL;
	}
	if (dyn)
		lp_unparsed(ctx, "%s runs a heredoc whose text is only known "
		                 "at run time",
		            what);
	return text;
}

/* The heredoc or herestring on stdin of a command, or NULL. */
static const char *stdin_doc(const locus_shell_command *c, bool *dynamic)
{
	const char *text = NULL;
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *r = &c->redirects[i];
		if (r->fd > 0 || !r->op || strncmp(r->op, "<<", 2))
			continue;
		text = r->target ? r->target : "";
		*dynamic = (r->target_flags & LOCUS_WORD_DYNAMIC) != 0;
	}
	return text;
}


#define OUTPUT_DEPTH 8

static const char *output_depth(lp_ctx *ctx, size_t idx, lp_output *out,
                                bool *dyn, unsigned depth)
{
	*out = LP_OUT_UNKNOWN;
	if (idx >= ctx->result->ncommands || depth > OUTPUT_DEPTH)
		return NULL;
	const locus_shell_command *c = &ctx->result->commands[idx];
	const char *name = c->name ? c->name : "";
	uint32_t cls = lk_classes(name);
	/* a socket read by cat is left unknown: the line is unparsed (and
	   the labeller still sees the network and the floor) */
	if (cls & LK_DOWNLOADER) {
		*out = LP_OUT_DOWNLOAD;
		return NULL;
	}
	bool decoded = false;
	const char *text = NULL;
	if (lp_streq(name, "echo") && !any_dynamic_arg(c))
		text = echo_text(ctx, c, &decoded);
	else if (lp_streq(name, "printf") && !any_dynamic_arg(c))
		text = printf_text(ctx, c, &decoded);
	else if (lp_streq(name, "cat"))
		text = cat_text(ctx, c, dyn);
	else if (cls & LK_WRITES_ARGS) {
		/* tee copies its input */
		text = stdin_doc(c, dyn);
		if (!text && (c->flags & LOCUS_CMD_PIPED_IN))
			return output_depth(ctx, lp_producer(ctx, idx), out, dyn,
			                    depth + 1);
	} else if (cls & LK_DECODER)
		decoded = true;
	if (decoded) {
		*out = LP_OUT_DECODED;
		return NULL;
	}
	if (text)
		*out = LP_OUT_TEXT;
	return text;
}

const char *lp_command_output(lp_ctx *ctx, size_t idx, lp_output *out,
                              bool *dyn)
{
	*dyn = false;
	return output_depth(ctx, idx, out, dyn, 0);
}

/* Paths that name the process's own stdin: a script operand that is one
   of them makes a shell or interpreter read its program from stdin. */
static const char *const stdin_paths[] = {
	"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/dev/fd/00",
	NULL,
};

bool lp_is_stdin_word(const lp_word *w)
{
	return w && !wdyn(w) && lp_in_list(stdin_paths, wval(w));
}

/* A `< <(...)` redirect of stdin: the script is another command's
   output. */
bool lp_stdin_procsub(const lp_raw_command *raw)
{
	for (size_t i = 0; i < raw->nredirects; i++) {
		const locus_shell_redirect *r = &raw->redirects[i];
		if (!r->op || strcmp(r->op, "<") || r->fd > 0)
			continue;
		const char *t = r->target ? r->target : "";
		if ((r->target_flags & LOCUS_WORD_SUBST) || !strncmp(t, "<(", 2) ||
		    !strncmp(t, ">(", 2))
			return true;
	}
	return false;
}

/* ---- shells ---------------------------------------------------------- */

/* bash, bash5, bash-5.2, ksh93, mksh-static ... (the program table) */
static bool is_shell(const char *name)
{
	return lk_is(name, LK_SHELL);
}

/* Origins whose commands get {} replaced by their input. */
static bool placeholder_origin(const char *o)
{
	return o && (lp_streq(o, LOCUS_ORIGIN_XARGS) ||
	             lp_streq(o, LOCUS_ORIGIN_FIND_EXEC) ||
	             lp_streq(o, LOCUS_ORIGIN_FD_EXEC) ||
	             lp_streq(o, LOCUS_ORIGIN_PARALLEL));
}

/* Long options of the shells that take the next word. */
static const char *const shell_long_val[] = {
	"--rcfile", "--init-file", "--init-command", "--debug",
	"--debug-output", "--profile", "--features", NULL,
};

/*
 * words[pos] is a shell (or su's shell arguments start after pos).  Find
 * its script: a -c in any short cluster makes the first operand the
 * script; no -c and no operand means it reads stdin.
 */
static void shell_scan(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                       size_t idx, bool fish, const char *origin)
{
	const lp_word *words = raw->words;
	size_t n = raw->nwords, i = pos + 1;
	bool have_c = false, have_s = false;
	const char *script = NULL;
	const lp_word *script_word = NULL;
	for (; i < n; i++) {
		const lp_word *w = &words[i];
		const char *v = wval(w);
		if (wdyn(w))
			break;
		if (lp_streq(v, "--") || lp_streq(v, "-")) {
			have_s |= v[1] == '\0'; /* `sh - ARGS` reads stdin */
			i++;
			break;
		}
		if ((v[0] != '-' && v[0] != '+') || !v[1])
			break;
		if (v[0] == '-' && v[1] == '-') {
			if (!strncmp(v, "--command", 9) && fish) {
				have_c = true;
				if (v[9] == '=') {
					script = v + 10;
					script_word = w;
				} else if (i + 1 < n) {
					script_word = &words[++i];
					script = wval(script_word);
				}
				continue;
			}
			if (lp_in_list(shell_long_val, v) && i + 1 < n)
				i++;
			continue;
		}
		for (size_t j = 1; v[j]; j++) {
			char c = v[j];
			if (c == 's' && v[0] == '-' && !fish) {
				have_s = true; /* operands are arguments */
			} else if (c == 'c') {
				have_c = true;
				if (fish && !script_word) {
					/* fish -c takes its value like getopt */
					if (v[j + 1]) {
						script = v + j + 1;
						script_word = w;
					} else if (i + 1 < n) {
						script_word = &words[++i];
						script = wval(script_word);
					}
					break;
				}
			} else if (c == 'o' || c == 'O' ||
			           (fish && strchr("Cdpf", c))) {
				if (!v[j + 1] && i + 1 < n)
					i++;
				break;
			}
		}
	}
	if (have_c) {
		if (!script_word && i < n) {
			script_word = &words[i];
			script = wval(script_word);
		}
		if (!script_word) {
			/* `xargs sh -c`: the script is the input */
			if (raw->flags & LOCUS_CMD_DYNAMIC_ARGS)
				lp_unparsed(ctx, "a shell -c script comes from input");
			return;
		}
		if (placeholder_origin(raw->origin) && strstr(script, "{}")) {
			lp_unparsed(ctx, "a shell -c script holds the {} "
			                 "placeholder: its input becomes code");
		}
		if (wdyn(script_word) && script_word != &words[pos]) {
			lp_unparsed(ctx, "a shell -c script is only known at run "
			                 "time: %s",
			            script_word->text ? script_word->text : "");
			return;
		}
		parse_text(ctx, script, origin, idx, raw->depth + 1);
		return;
	}
	if (i < n && !have_s && !lp_is_stdin_word(&words[i]))
		return; /* a script file: parsed when the line wrote it
		           (written.c), else a known limit */
	if (lp_stdin_procsub(raw)) {
		ctx->result->commands[idx].flags |= LOCUS_CMD_STDIN_SCRIPT;
		lp_unparsed(ctx, "a shell reads its script from a process "
		                 "substitution");
		return;
	}
	if (raw->stdin_kind == LP_STDIN_NONE && raw->origin &&
	    lp_streq(raw->origin, LOCUS_ORIGIN_PROCESS_SUBSTITUTION)) {
		/* tee >(sh): the shell runs what the outer command writes */
		ctx->result->commands[idx].flags |= LOCUS_CMD_STDIN_SCRIPT;
		lp_unparsed(ctx, "a shell in a process substitution runs the "
		                 "data written to it");
		return;
	}
	if (raw->stdin_kind == LP_STDIN_HEREDOC ||
	    raw->stdin_kind == LP_STDIN_HERESTRING ||
	    raw->stdin_kind == LP_STDIN_PIPE)
		ctx->result->commands[idx].flags |= LOCUS_CMD_STDIN_SCRIPT;
	const char *text = lp_stdin_text(ctx, raw, "a shell");
	parse_text(ctx, text, LOCUS_ORIGIN_STDIN_SCRIPT, idx, raw->depth + 1);
}

/* ---- eval, trap ------------------------------------------------------ */

static void see_eval(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                     size_t idx)
{
	size_t from = pos + 1;
	if (from < raw->nwords && !wdyn(&raw->words[from]) &&
	    lp_streq(wval(&raw->words[from]), "--"))
		from++;
	for (size_t i = from; i < raw->nwords; i++) {
		if (wdyn(&raw->words[i])) {
			lp_unparsed(ctx, "eval runs a word only known at run "
			                 "time: %s",
			            raw->words[i].text ? raw->words[i].text : "");
			return;
		}
	}
	if (from >= raw->nwords)
		return;
	parse_text(ctx, lp_join_words(ctx, raw->words, from, raw->nwords, false),
	           LOCUS_ORIGIN_EVAL, idx, raw->depth + 1);
}

static void see_trap(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                     size_t idx)
{
	size_t i = pos + 1, n = raw->nwords;
	if (i < n && !wdyn(&raw->words[i]) && lp_streq(wval(&raw->words[i]), "--"))
		i++;
	if (i < n && !wdyn(&raw->words[i]) && wval(&raw->words[i])[0] == '-' &&
	    wval(&raw->words[i])[1])
		return; /* trap -l, trap -p: they print */
	if (n - i < 2)
		return; /* trap SIG resets the signal */
	const lp_word *w = &raw->words[i];
	if (wdyn(w)) {
		lp_unparsed(ctx, "trap runs a command only known at run time: %s",
		            w->text ? w->text : "");
		return;
	}
	if (!*wval(w) || lp_streq(wval(w), "-"))
		return;
	parse_text(ctx, wval(w), LOCUS_ORIGIN_TRAP, idx, raw->depth + 1);
}

/* ---- xargs, parallel, find, fd ---------------------------------------- */

/*
 * Scan the options of a see-through program (`name`, from the spec table)
 * in words[pos..n).  False when it runs nothing to see: an unknown option
 * (the line is then unparsed: we cannot tell where its command starts), a
 * query-only form, or an option that takes no command.
 */
static bool scan_program(lp_ctx *ctx, const char *name,
                         const lp_raw_command *raw, size_t n, size_t pos,
                         lp_optscan *sc)
{
	lp_optscan_run(lp_program_spec(name), raw->words, n, pos, sc);
	if (sc->unknown) {
		lp_unparsed(ctx, "unknown option %s of %s", sc->unknown, name);
		return false;
	}
	return !sc->query && !sc->nocmd;
}

static void see_xargs(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                      size_t idx)
{
	lp_optscan sc;
	if (!scan_program(ctx, "xargs", raw, raw->nwords, pos, &sc))
		return;
	/* Without -I, xargs appends its input to the command: the
	   arguments are only known at run time. */
	uint32_t f = (sc.seen['I'] || sc.seen['i']) ? 0 : LOCUS_CMD_DYNAMIC_ARGS;
	/* -I R with R other than {}: a shell script holding R runs input */
	const char *rs = sc.replace;
	if (rs && *rs && strcmp(rs, "{}")) {
		bool shell = false, holds = false;
		for (size_t i = sc.cmd; i < raw->nwords; i++) {
			const char *v = wval(&raw->words[i]);
			shell |= is_shell(lp_base_name(v));
			holds |= i > sc.cmd && strstr(v, rs) != NULL;
		}
		if (shell && holds)
			lp_unparsed(ctx, "xargs puts its input into a shell "
			                 "script (-I %s)", rs);
	}
	/* xargs -I X X ARGS: the program is the input */
	const char *ph = (sc.seen['I'] || sc.seen['i']) ? (rs && *rs ? rs : "{}")
	                                               : NULL;
	if (ph && sc.cmd < raw->nwords && strstr(wval(&raw->words[sc.cmd]), ph))
		lp_unparsed(ctx, "xargs fills the program name in from its input "
		                 "(-I %s)", ph);
	if (sc.cmd >= raw->nwords) {
		lp_word *echo = lp_arena_alloc(ctx->arena, sizeof *echo);
		if (!echo)
			return;
		echo->value = echo->text = "echo";
		emit_nested(ctx, raw, echo, 1, LOCUS_ORIGIN_XARGS, idx, f);
		return;
	}
	emit_nested(ctx, raw, raw->words + sc.cmd, raw->nwords - sc.cmd,
	            LOCUS_ORIGIN_XARGS, idx, f);
}

static bool is_parallel_sep(const lp_word *w)
{
	const char *v = wval(w);
	return !wdyn(w) && (lp_streq(v, ":::") || lp_streq(v, "::::") ||
	                    lp_streq(v, ":::+") || lp_streq(v, "::::+"));
}

/* GNU parallel composes a command line and runs it with a shell, unless
   -q quotes it: without -q the command words are shell text. */
static void see_parallel(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                         size_t idx)
{
	lp_optscan sc;
	size_t n = raw->nwords;
	if (!scan_program(ctx, "parallel", raw, n, pos, &sc))
		return;
	size_t sep = sc.cmd;
	while (sep < n && !is_parallel_sep(&raw->words[sep]))
		sep++;
	if (sep > sc.cmd) {
		if (sc.seen['q'])
			emit_nested(ctx, raw, raw->words + sc.cmd, sep - sc.cmd,
			            LOCUS_ORIGIN_PARALLEL, idx, 0);
		else
			parse_text(ctx,
			           lp_join_words(ctx, raw->words, sc.cmd, sep, false),
			           LOCUS_ORIGIN_PARALLEL, idx, raw->depth + 1);
		return;
	}
	/* No command: the arguments are the commands. */
	if (sep >= n || strcmp(wval(&raw->words[sep]), ":::")) {
		lp_unparsed(ctx, "parallel runs commands read from its input");
		return;
	}
	for (size_t i = sep + 1; i < n; i++) {
		const lp_word *w = &raw->words[i];
		if (is_parallel_sep(w)) {
			if (strcmp(wval(w), ":::")) {
				lp_unparsed(ctx, "parallel runs commands read "
				                 "from a file");
				return;
			}
			continue;
		}
		if (wdyn(w)) {
			lp_unparsed(ctx, "parallel runs a command only known "
			                 "at run time: %s",
			            w->text ? w->text : "");
			return;
		}
		if (raw->depth + 1 > lp_max_depth(ctx)) {
			lp_unparsed(ctx, "see-through deeper than %u levels",
			            lp_max_depth(ctx));
			return;
		}
		parse_text(ctx, wval(w), LOCUS_ORIGIN_PARALLEL, idx,
		           raw->depth + 1);
	}
}

static const char *const find_exec[] = {
	"-exec", "-execdir", "-ok", "-okdir", NULL,
};

static void see_find(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                     size_t idx)
{
	const lp_word *w = raw->words;
	size_t n = raw->nwords;
	for (size_t i = pos + 1; i < n; i++) {
		if (wdyn(&w[i]) || !lp_in_list(find_exec, wval(&w[i])))
			continue;
		size_t start = i + 1, j = start;
		/* `;` ends it; `+` only right after {} */
		for (; j < n; j++) {
			const char *v = wval(&w[j]);
			if (wdyn(&w[j]))
				continue;
			if (lp_streq(v, ";"))
				break;
			if (lp_streq(v, "+") && j > start &&
			    lp_streq(wval(&w[j - 1]), "{}"))
				break;
		}
		if (start < j && strstr(wval(&w[start]), "{}"))
			lp_unparsed(ctx, "find -exec runs the file it found as "
			                 "the program: %s", wval(&w[start]));
		emit_nested(ctx, raw, w + start, j - start,
		            LOCUS_ORIGIN_FIND_EXEC, idx, 0);
		i = j;
	}
}

/* fd -x CMD... [;]  fd -X CMD... [;] (also in a cluster such as -Hx) */
static bool is_fd_exec(const char *v)
{
	if (lp_streq(v, "--exec") || lp_streq(v, "--exec-batch"))
		return true;
	if (v[0] != '-' || v[1] == '-' || !v[1])
		return false;
	size_t n = strlen(v);
	for (size_t i = 1; i < n; i++)
		if (!isalpha((unsigned char)v[i]))
			return false;
	return v[n - 1] == 'x' || v[n - 1] == 'X';
}

static void see_fd(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                   size_t idx)
{
	const lp_word *w = raw->words;
	size_t n = raw->nwords;
	for (size_t i = pos + 1; i < n; i++) {
		if (wdyn(&w[i]) || !is_fd_exec(wval(&w[i])))
			continue;
		size_t start = i + 1, j = start;
		bool placeholder = false;
		for (; j < n; j++) {
			if (!wdyn(&w[j]) && lp_streq(wval(&w[j]), ";"))
				break;
			if (strchr(wval(&w[j]), '{'))
				placeholder = true;
		}
		if (start < j && strchr(wval(&w[start]), '{'))
			lp_unparsed(ctx, "fd -x runs the file it found as the "
			                 "program: %s", wval(&w[start]));
		emit_nested(ctx, raw, w + start, j - start, LOCUS_ORIGIN_FD_EXEC,
		            idx, placeholder ? 0 : LOCUS_CMD_DYNAMIC_ARGS);
		i = j;
	}
}

/* ---- git ------------------------------------------------------------- */

static void see_optvals(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                        size_t sub, size_t idx);

/* Config keys whose value git runs as a shell command ('*' is a
   subsection). */
static const char *const git_exec_keys[] = {
	"core.pager", "core.editor", "core.sshcommand", "core.fsmonitor",
	"core.askpass", "core.gitproxy", "sequence.editor", "diff.external",
	"diff.*.command", "diff.*.textconv", "merge.*.driver",
	"filter.*.clean", "filter.*.smudge", "filter.*.process",
	"credential.helper", "credential.*.helper", "gpg.program",
	"gpg.*.program", "pager.*", "interactive.difffilter",
	"mergetool.*.cmd", "difftool.*.cmd", "remote.*.uploadpack",
	"remote.*.receivepack", "uploadpack.packobjectshook",
	"sendemail.sendmailcmd", "sendemail.tocmd", "sendemail.cccmd",
	"browser.*.cmd", "man.*.cmd", "core.hookspath",
	/* issue 9: more program-valued keys */
	"core.alternaterefscommand", "gpg.*.defaultkeycommand",
	"submodule.*.update", "sendemail.smtpserver", "include.path",
	"includeif.*.path", "sendemail.*.smtpserver", NULL,
};

/* key is "section[.sub].var" (n bytes); case-insensitive for section and
   variable as git compares them. */
static bool git_key_match(const char *pat, const char *key, size_t n)
{
	const char *pdot = strchr(pat, '.');
	const char *kdot = memchr(key, '.', n);
	if (!pdot || !kdot)
		return false;
	size_t ps = (size_t)(pdot - pat), ks = (size_t)(kdot - key);
	if (ps != ks || strncasecmp(pat, key, ps))
		return false;
	const char *klast = kdot;
	for (const char *p = kdot; p < key + n; p++)
		if (*p == '.')
			klast = p;
	const char *pvar = strrchr(pat, '.') + 1;
	bool psub = strchr(pdot + 1, '.') != NULL; /* "a.*.b" */
	bool ksub = klast != kdot;
	size_t kvl = (size_t)(key + n - (klast + 1));
	if (lp_streq(pdot + 1, "*")) /* "pager.*": any var, no subsection */
		return !ksub && kvl > 0;
	if (psub != ksub)
		return false;
	return strlen(pvar) == kvl && !strncasecmp(pvar, klast + 1, kvl);
}

static bool git_bool(const char *v)
{
	static const char *const b[] = { "", "true", "false", "yes", "no",
	                                 "on", "off", "1", "0", NULL };
	for (const char *const *p = b; *p; p++)
		if (!strcasecmp(*p, v))
			return true;
	return false;
}

typedef struct git_alias {
	const char *name;
	size_t nlen;
	const char *value;
} git_alias;

/* One -c KEY=VALUE. */
static void git_config(lp_ctx *ctx, const lp_raw_command *raw,
                       const lp_word *w, const char *kv, size_t idx,
                       git_alias *aliases, size_t *naliases, size_t cap)
{
	const char *eq = strchr(kv, '=');
	size_t klen = eq ? (size_t)(eq - kv) : strlen(kv);
	const char *value = eq ? eq + 1 : "";
	bool alias = klen > 6 && !strncasecmp(kv, "alias.", 6);
	bool exec = false;
	for (const char *const *k = git_exec_keys; *k && !exec; k++)
		exec = git_key_match(*k, kv, klen);
	if (!alias && !exec && w && wdyn(w) &&
	    (memchr(kv, '$', klen) || memchr(kv, '`', klen))) {
		lp_unparsed(ctx, "git -c sets a key only known at run time: %s",
		            kv);
		return;
	}
	if (!alias && !exec)
		return;
	if (w && wdyn(w)) {
		lp_unparsed(ctx, "git -c sets %.*s to a value only known at "
		                 "run time",
		            (int)klen, kv);
		return;
	}
	if (alias) {
		if (naliases && *naliases < cap) {
			aliases[*naliases].name = kv + 6;
			aliases[*naliases].nlen = klen - 6;
			aliases[*naliases].value = value;
			(*naliases)++;
		}
		return;
	}
	if (git_bool(value) || (klen == 14 && !strncasecmp(kv, "core.hookspath", 14)))
		return; /* hooksPath names a directory: a known limit */
	if (!strncasecmp(kv, "credential.", 11)) {
		/* "!cmd" is shell, an absolute path runs as is, a bare name
		   is git credential-NAME */
		if (value[0] == '!')
			value++;
		else if (value[0] != '/')
			return;
	}
	if (!strncasecmp(kv, "submodule.", 10)) {
		/* update = !cmd runs cmd; checkout, rebase, merge, none */
		if (value[0] != '!')
			return;
		value++;
	}
	if (!strncasecmp(kv, "sendemail.", 10) && value[0] != '/')
		return; /* smtpServer is a host unless it is a program path */
	if (!strncasecmp(kv, "include", 7)) {
		lp_unparsed(ctx, "git reads configuration from %s, which the "
		                 "line does not show",
		            value);
		return;
	}
	parse_text(ctx, value, LOCUS_ORIGIN_GIT_CONFIG, idx, raw->depth + 1);
}

/* git's split_cmdline: blanks separate, '' and "" quote, \ escapes. */
static size_t git_split(lp_ctx *ctx, const char *s, lp_word **out)
{
	size_t cap = strlen(s) / 2 + 2, n = 0;
	lp_word *v = lp_arena_alloc(ctx->arena, cap * sizeof *v);
	if (!v)
		return 0;
	const char *p = s;
	while (*p) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		lp_buf b = { 0 };
		char q = 0;
		for (; *p && (q || !isspace((unsigned char)*p)); p++) {
			if (*p == '\\' && p[1] && q != '\'') {
				p++;
			} else if (!q && (*p == '"' || *p == '\'')) {
				q = *p;
				continue;
			} else if (q && *p == q) {
				q = 0;
				continue;
			}
			lp_buf_putc(ctx->arena, &b, *p);
		}
		if (n < cap) {
			v[n].value = lp_buf_cstr(ctx->arena, &b);
			v[n].text = v[n].value;
			v[n].flags = LOCUS_WORD_QUOTED;
			n++;
		}
	}
	*out = v;
	return n;
}

static const git_alias *git_find_alias(const git_alias *a, size_t n,
                                       const char *name)
{
	const git_alias *found = NULL;
	for (size_t i = 0; i < n; i++) /* the last -c wins */
		if (strlen(name) == a[i].nlen &&
		    !strncasecmp(name, a[i].name, a[i].nlen))
			found = &a[i];
	return found;
}

/* A command string git runs with a shell (rebase -x, filter-branch...). */
static void git_run(lp_ctx *ctx, const lp_raw_command *raw, const lp_word *w,
                    const char *value, const char *origin, size_t idx)
{
	if (wdyn(w)) {
		lp_unparsed(ctx, "git runs a command only known at run time: %s",
		            w->text ? w->text : "");
		return;
	}
	parse_text(ctx, value, origin, idx, raw->depth + 1);
}

/* Subcommands that take a shell command: their value is parsed. */
static void git_subcommand(lp_ctx *ctx, const lp_raw_command *raw,
                           const lp_word *w, size_t i, size_t n, size_t idx)
{
	const char *sub = wval(&w[i]);
	if (lp_streq(sub, "rebase") || lp_streq(sub, "difftool") ||
	    lp_streq(sub, "filter-branch")) {
		bool fb = sub[0] == 'f';
		for (size_t k = i + 1; k < n; k++) {
			const char *v = wval(&w[k]);
			const char *eq = strchr(v, '=');
			size_t nl = eq ? (size_t)(eq - v) : strlen(v);
			bool opt;
			if (fb)
				opt = nl > 9 && !strncmp(v, "--", 2) &&
				      !strncmp(v + nl - 7, "-filter", 7);
			else if (sub[0] == 'r')
				opt = (nl == 6 && !strncmp(v, "--exec", 6)) ||
				      !strncmp(v, "-x", 2);
			else
				opt = (nl == 8 && !strncmp(v, "--extcmd", 8)) ||
				      !strncmp(v, "-x", 2);
			if (!opt || wdyn(&w[k]))
				continue;
			if (eq)
				git_run(ctx, raw, &w[k], eq + 1,
				        LOCUS_ORIGIN_SHELL_C, idx);
			else if (v[1] == 'x' && v[2])
				git_run(ctx, raw, &w[k], v + 2,
				        LOCUS_ORIGIN_SHELL_C, idx);
			else if (k + 1 < n) {
				k++;
				git_run(ctx, raw, &w[k], wval(&w[k]),
				        LOCUS_ORIGIN_SHELL_C, idx);
			}
		}
		return;
	}
	if (lp_streq(sub, "submodule") || lp_streq(sub, "bisect")) {
		const char *verb = sub[0] == 's' ? "foreach" : "run";
		size_t k = i + 1;
		while (k < n && wval(&w[k])[0] == '-')
			k++;
		if (k >= n || strcmp(wval(&w[k]), verb))
			return;
		k++;
		while (k < n && sub[0] == 's' && wval(&w[k])[0] == '-')
			k++;
		if (k < n)
			parse_text(ctx, lp_join_words(ctx, w, k, n, sub[0] == 'b'),
			           LOCUS_ORIGIN_SHELL_C, idx, raw->depth + 1);
		return;
	}
	if (lp_streq(sub, "config")) {
		/* git config [opts] [set] KEY VALUE: the value runs later on */
		static const char *const val_opts[] = {
			"-f", "--file", "--blob", "--type", "--default",
			"--comment", "--value", NULL,
		};
		size_t k = i + 1, ops[2], nops = 0;
		for (; k < n && nops < 2; k++) {
			const char *v = wval(&w[k]);
			if (v[0] == '-') {
				if (lp_in_list(val_opts, v))
					k++;
				continue;
			}
			if (nops == 0 && lp_streq(v, "set"))
				continue;
			ops[nops++] = k;
		}
		if (nops < 2 || wdyn(&w[ops[0]]))
			return;
		const char *key = wval(&w[ops[0]]);
		const lp_word *vw = &w[ops[1]];
		size_t kl = strlen(key);
		if (kl > 6 && !strncasecmp(key, "alias.", 6)) {
			if (!wdyn(vw) && wval(vw)[0] == '!')
				git_run(ctx, raw, vw, wval(vw) + 1,
				        LOCUS_ORIGIN_GIT_ALIAS, idx);
			else if (wdyn(vw))
				git_run(ctx, raw, vw, "", LOCUS_ORIGIN_GIT_ALIAS,
				        idx);
			return;
		}
		char *kv = lp_arena_printf(ctx->arena, "%s=%s", key,
		                           wdyn(vw) && vw->text ? vw->text
		                                                : wval(vw));
		if (kv)
			git_config(ctx, raw, vw, kv, idx, NULL, NULL, 0);
	}
}

#define GIT_MAX_ALIASES 64
#define GIT_ALIAS_CHAIN 16

static void see_git(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                    size_t idx)
{
	static const char *const val_opts[] = {
		"-C", "--git-dir", "--work-tree", "--namespace",
		"--super-prefix", "--attr-source", "--list-cmds", NULL,
	};
	static const char *const flag_opts[] = {
		"-p", "--paginate", "-P", "--no-pager", "--bare",
		"--no-replace-objects", "--literal-pathspecs",
		"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
		"--no-optional-locks", "--no-lazy-fetch", "--no-advice", NULL,
	};
	static const char *const query_opts[] = {
		"--version", "-v", "--help", "-h", "--exec-path", "--html-path",
		"--man-path", "--info-path", NULL,
	};
	const lp_word *w = raw->words;
	size_t n = raw->nwords, i = pos + 1;
	git_alias aliases[GIT_MAX_ALIASES];
	size_t naliases = 0;
	for (; i < n; i++) {
		const char *v = wval(&w[i]);
		if (wdyn(&w[i]))
			break;
		if (v[0] != '-')
			break;
		if (lp_streq(v, "-c")) {
			if (i + 1 < n) {
				i++;
				const char *kv = wdyn(&w[i]) && w[i].text ? w[i].text
				                                          : wval(&w[i]);
				git_config(ctx, raw, &w[i], kv, idx, aliases,
				           &naliases, GIT_MAX_ALIASES);
			}
			continue;
		}
		if (!strncmp(v, "--config-env", 12)) {
			const char *kv = v[12] == '=' ? v + 13
			                 : i + 1 < n ? wval(&w[++i]) : "";
			size_t kl = strcspn(kv, "=");
			bool risky = kl > 6 && !strncasecmp(kv, "alias.", 6);
			for (const char *const *k = git_exec_keys; *k && !risky; k++)
				risky = git_key_match(*k, kv, kl);
			if (risky)
				lp_unparsed(ctx, "git --config-env sets %.*s from "
				                 "the environment",
				            (int)kl, kv);
			continue;
		}
		if (lp_in_list(val_opts, v)) {
			i++;
			continue;
		}
		if (lp_in_list(flag_opts, v) || !strncmp(v, "--exec-path=", 12))
			continue;
		bool attached = false;
		for (const char *const *o = val_opts; *o && !attached; o++) {
			size_t ol = strlen(*o);
			attached = (*o)[1] == '-' && !strncmp(v, *o, ol) &&
			           v[ol] == '=';
		}
		if (attached || (v[1] == 'C' && v[2]) )
			continue;
		if (lp_in_list(query_opts, v))
			return;
		lp_unparsed(ctx, "unknown git option %s", v);
		return;
	}
	for (size_t k = pos + 1; k < n; k++)
		if (!wdyn(&w[k]) && !strncasecmp(wval(&w[k]), "ext::", 5)) {
			/* git runs the rest of an ext:: URL as a command */
			lp_unparsed(ctx, "git ext:: URL runs a command: %s",
			            wval(&w[k]));
			return;
		}
	if (i < n && wdyn(&w[i])) {
		lp_unparsed(ctx, "subcommand of git is dynamic: %s",
		            w[i].text ? w[i].text : "");
		return;
	}
	if (i >= n)
		return;
	see_optvals(ctx, raw, pos, i, idx);
	if (!naliases) {
		git_subcommand(ctx, raw, w, i, n, idx);
		return;
	}

	/* Resolve aliases given with -c, chained ones included. */
	lp_word *cur = (lp_word *)(uintptr_t)(w + i);
	size_t ncur = n - i;
	bool expanded = false;
	for (unsigned k = 0;; k++) {
		if (k == GIT_ALIAS_CHAIN) {
			lp_unparsed(ctx, "git alias chain longer than %u",
			            GIT_ALIAS_CHAIN);
			return;
		}
		const git_alias *a = git_find_alias(aliases, naliases,
		                                    wval(&cur[0]));
		if (!a)
			break;
		if (a->value[0] == '!') {
			/* git runs `sh -c 'VALUE "$@"' VALUE ARGS...` */
			lp_buf b = { 0 };
			const char *args = lp_join_words(ctx, cur, 1, ncur, true);
			if (!args)
				return;
			lp_buf_append(ctx->arena, &b, a->value + 1,
			              strlen(a->value + 1));
			if (*args) {
				lp_buf_putc(ctx->arena, &b, ' ');
				lp_buf_append(ctx->arena, &b, args, strlen(args));
			}
			parse_text(ctx, lp_buf_cstr(ctx->arena, &b),
			           LOCUS_ORIGIN_GIT_ALIAS, idx, raw->depth + 1);
			return;
		}
		lp_word *split;
		size_t ns = git_split(ctx, a->value, &split);
		if (!ns)
			break;
		if (wval(&split[0])[0] == '-') {
			lp_unparsed(ctx, "git alias %.*s starts with an option",
			            (int)a->nlen, a->name);
			return;
		}
		lp_word *next = lp_arena_alloc(ctx->arena,
		                               (ns + ncur) * sizeof *next);
		if (!next)
			return;
		memcpy(next, split, ns * sizeof *next);
		memcpy(next + ns, cur + 1, (ncur - 1) * sizeof *next);
		cur = next;
		ncur = ns + ncur - 1;
		expanded = true;
	}
	if (!expanded) {
		git_subcommand(ctx, raw, w, i, n, idx);
		return;
	}
	lp_word *argv = lp_arena_alloc(ctx->arena, (ncur + 1) * sizeof *argv);
	if (!argv)
		return;
	argv[0] = w[pos];
	memcpy(argv + 1, cur, ncur * sizeof *argv);
	emit_nested(ctx, raw, argv, ncur + 1, LOCUS_ORIGIN_GIT_ALIAS, idx, 0);
}

/* ---- ssh, watch ------------------------------------------------------ */

static void see_ssh(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                    size_t idx)
{
	lp_optscan sc;
	if (!scan_program(ctx, "ssh", raw, raw->nwords, pos, &sc) ||
	    sc.cmd >= raw->nwords)
		return;
	/* the remote shell gets the words joined with spaces */
	parse_text(ctx, lp_join_words(ctx, raw->words, sc.cmd, raw->nwords, false),
	           LOCUS_ORIGIN_SSH, idx, raw->depth + 1);
}

static void see_watch(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                      size_t idx)
{
	lp_optscan sc;
	if (!scan_program(ctx, "watch", raw, raw->nwords, pos, &sc) ||
	    sc.cmd >= raw->nwords)
		return;
	if (sc.seen['x']) {
		emit_nested(ctx, raw, raw->words + sc.cmd, raw->nwords - sc.cmd,
		            LOCUS_ORIGIN_WATCH, idx, 0);
		return;
	}
	/* watch runs `sh -c` with its arguments joined by spaces */
	parse_text(ctx, lp_join_words(ctx, raw->words, sc.cmd, raw->nwords, false),
	           LOCUS_ORIGIN_WATCH, idx, raw->depth + 1);
}

/* ---- scheduled and stdin-fed programs --------------------------------- */

/* at/batch read a shell script on stdin (or -f FILE) and run it later. */
static void see_at(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                   size_t idx)
{
	for (size_t i = pos + 1; i < raw->nwords; i++) {
		const lp_word *w = &raw->words[i];
		const char *v = wval(w);
		if (wdyn(w) || v[0] != '-' || lp_streq(v, "--"))
			continue;
		/* list, remove, cat, version: nothing is queued */
		if (strpbrk(v + 1, "lrdcV") && !strchr(v + 1, 'f'))
			return;
		if (strchr(v + 1, 'f')) {
			const char *f = strchr(v, 'f')[1] ? strchr(v, 'f') + 1
			                : i + 1 < raw->nwords
			                        ? wval(&raw->words[i + 1])
			                        : "";
			if (!lp_in_list(stdin_paths, f))
				return; /* a file: see written.c */
		}
	}
	if (lp_stdin_procsub(raw)) {
		lp_unparsed(ctx, "at reads its script from a process "
		                 "substitution");
		return;
	}
	if (raw->stdin_kind != LP_STDIN_HEREDOC &&
	    raw->stdin_kind != LP_STDIN_HERESTRING &&
	    raw->stdin_kind != LP_STDIN_PIPE)
		return;
	ctx->result->commands[idx].flags |= LOCUS_CMD_STDIN_SCRIPT;
	parse_text(ctx, lp_stdin_text(ctx, raw, "at"),
	           LOCUS_ORIGIN_STDIN_SCRIPT, idx, raw->depth + 1);
}

/* crontab FILE / crontab - / crontab fed on stdin installs commands that
   run later, in a format we do not parse. */
static void see_crontab(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                        size_t idx)
{
	(void)idx;
	bool operand = false;
	for (size_t i = pos + 1; i < raw->nwords; i++) {
		const lp_word *w = &raw->words[i];
		const char *v = wval(w);
		if (!wdyn(w) && v[0] == '-' && v[1]) {
			if (strpbrk(v + 1, "lerTV"))
				return; /* list, edit, remove, test, version */
			if (lp_streq(v, "-u") || lp_streq(v, "-s"))
				i++;
			continue;
		}
		operand = true;
	}
	if (operand || raw->stdin_kind != LP_STDIN_NONE)
		lp_unparsed(ctx, "crontab installs a table of commands that run "
		                 "later");
}

void lp_make_recipes(lp_ctx *ctx, const char *text, size_t idx,
                     unsigned depth)
{
	/* recipe lines start with a tab; @ - + are make's prefixes */
	for (const char *p = text; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (*p == '\t') {
			size_t k = strspn(p, "\t @-+");
			if (k < len)
				lp_parse_nested(ctx, p + k, len - k,
				                LOCUS_ORIGIN_STDIN_SCRIPT, idx, depth);
		}
		p = e ? e + 1 : NULL;
	}
}

/* make -f - / -f /dev/stdin reads its makefile (recipes are shell) from
   stdin; a makefile the line wrote is handled in written.c. */
static void see_make(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                     size_t idx)
{
	for (size_t i = pos + 1; i < raw->nwords; i++) {
		const char *v = wval(&raw->words[i]);
		const char *f = NULL;
		if (lp_streq(v, "-f") || lp_streq(v, "--file") ||
		    lp_streq(v, "--makefile"))
			f = i + 1 < raw->nwords ? wval(&raw->words[i + 1]) : "";
		else if (!strncmp(v, "-f", 2))
			f = v + 2;
		else if (!strncmp(v, "--file=", 7))
			f = v + 7;
		else if (!strncmp(v, "--makefile=", 11))
			f = v + 11;
		if (!f || !lp_in_list(stdin_paths, f))
			continue;
		lp_unparsed(ctx, "make reads a makefile fed by the line: "
		                 "its recipes are not fully analysed");
		lp_make_recipes(ctx, lp_stdin_text(ctx, raw, "make"), idx,
		                raw->depth + 1);
		return;
	}
}

/* ---- program-valued options -------------------------------------------- */

/*
 * Options whose value is a command the program runs with a shell (or as a
 * program): the value is parsed as shell with origin "option".  `longs`
 * accept unambiguous abbreviations as getopt_long and git parse-options
 * do (any prefix of three letters or more); `keys` are -o KEY=VALUE
 * settings (ssh -o ProxyCommand=...), compared without case; `prefix` is
 * a value prefix (tar --checkpoint-action=exec=CMD).
 */
static const struct optval_rule {
	const char *prog;
	const char *sub;    /* "|clone|" or NULL */
	const char *shorts; /* letters taking a command value */
	const char *longs;  /* "|upload-pack|" */
	const char *keys;   /* "|proxycommand|": -o KEY=CMD */
	const char *prefix; /* the value starts with this: the rest runs */
} optval_rules[] = {
	{ "git", "|grep|", "O", "|open-files-in-pager|", NULL, NULL },
	{ "git", "|clone|", "u", "|upload-pack|", NULL, NULL },
	{ "git", "|fetch|pull|ls-remote|fetch-pack|", NULL,
	  "|upload-pack|exec|", NULL, NULL },
	{ "git", "|push|send-pack|", NULL, "|receive-pack|exec|", NULL, NULL },
	{ "git", "|archive|", NULL, "|exec|", NULL, NULL },
	{ "man", NULL, "P", "|pager|", NULL, NULL },
	{ "tar", NULL, "IF",
	  "|to-command|use-compress-program|info-script|new-volume-script|"
	  "rsh-command|",
	  NULL, NULL },
	{ "gtar", NULL, "IF",
	  "|to-command|use-compress-program|info-script|new-volume-script|"
	  "rsh-command|",
	  NULL, NULL },
	{ "tar", NULL, NULL, "|checkpoint-action|", NULL, "exec=" },
	{ "gtar", NULL, NULL, "|checkpoint-action|", NULL, "exec=" },
	{ "rg", NULL, NULL, "|pre|", NULL, NULL },
	{ "sort", NULL, NULL, "|compress-program|", NULL, NULL },
	{ "ssh", NULL, NULL, NULL,
	  "|proxycommand|localcommand|knownhostscommand|", NULL },
	{ "scp", NULL, "S", NULL,
	  "|proxycommand|localcommand|knownhostscommand|", NULL },
	/* sftp -D runs a local sftp server program */
	{ "sftp", NULL, "SD", NULL,
	  "|proxycommand|localcommand|knownhostscommand|", NULL },
	{ "rsync", NULL, "e", "|rsh|rsync-path|", NULL, NULL },
	{ "nodemon", NULL, "x", "|exec|", NULL, NULL },
	{ "nix-shell", NULL, NULL, "|run|command|", NULL, NULL },
	{ "vagrant", "|ssh|", "c", "|command|", NULL, NULL },
	{ "zip", NULL, NULL, "|unzip-command|", NULL, NULL },
};

static bool bar_has(const char *list, const char *s, size_t n)
{
	for (const char *p = list; p && (p = strchr(p, '|')) != NULL; p++)
		if (n && !strncmp(p + 1, s, n) && p[1 + n] == '|')
			return true;
	return false;
}

/* --name (n bytes) is `name` from the list or an abbreviation of one. */
static bool long_matches(const char *list, const char *name, size_t n)
{
	if (!list || !n)
		return false;
	for (const char *p = list; (p = strchr(p, '|')) != NULL && p[1]; p++) {
		const char *e = strchr(p + 1, '|');
		size_t len = e ? (size_t)(e - p - 1) : strlen(p + 1);
		if (n <= len && (n >= 3 || n == len) && !strncmp(p + 1, name, n))
			return true;
	}
	return false;
}

static void optval_run(lp_ctx *ctx, const lp_raw_command *raw,
                       const struct optval_rule *rl, const lp_word *w,
                       const char *value, size_t idx)
{
	if (!value)
		return;
	if (rl->keys) {
		size_t kl = strcspn(value, "= \t");
		char key[64];
		if (kl == 0 || kl >= sizeof key)
			return;
		for (size_t i = 0; i < kl; i++)
			key[i] = (char)tolower((unsigned char)value[i]);
		key[kl] = '\0';
		if (!bar_has(rl->keys, key, kl))
			return;
		value += kl;
		value += strspn(value, " \t");
		if (*value == '=')
			value++;
	}
	if (rl->prefix) {
		size_t pl = strlen(rl->prefix);
		if (strncmp(value, rl->prefix, pl))
			return;
		value += pl;
	}
	if (wdyn(w)) {
		lp_unparsed(ctx, "%s runs a command given in an option only "
		                 "known at run time: %s",
		            rl->prog, w->text ? w->text : "");
		return;
	}
	parse_text(ctx, value, LOCUS_ORIGIN_OPTION, idx, raw->depth + 1);
}

/* Look for program-valued options of words[pos] (sub: index of its
   subcommand word, or 0). */
static void see_optvals(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                        size_t sub, size_t idx)
{
	const char *name = lp_base_name(wval(&raw->words[pos]));
	const lp_word *w = raw->words;
	size_t n = raw->nwords;
	for (size_t r = 0; r < sizeof optval_rules / sizeof *optval_rules; r++) {
		const struct optval_rule *rl = &optval_rules[r];
		if (strcmp(rl->prog, name))
			continue;
		size_t from = pos + 1;
		if (rl->sub) {
			if (!sub || sub >= n || wdyn(&w[sub]) ||
			    !bar_has(rl->sub, wval(&w[sub]), strlen(wval(&w[sub]))))
				continue;
			from = sub + 1;
		}
		char both[16];
		const char *shorts = rl->shorts ? rl->shorts
		                     : rl->keys ? "o" : "";
		if (rl->keys && rl->shorts) {
			/* -o KEY=CMD and the command letters */
			snprintf(both, sizeof both, "o%s", rl->shorts);
			shorts = both;
		}
		for (size_t i = from; i < n; i++) {
			const char *v = wval(&w[i]);
			if (lp_streq(v, "--"))
				break;
			if (v[0] != '-' || !v[1])
				continue;
			if (v[1] == '-') {
				const char *nm = v + 2, *eq = strchr(nm, '=');
				size_t nl = eq ? (size_t)(eq - nm) : strlen(nm);
				if (!long_matches(rl->longs, nm, nl))
					continue;
				if (eq)
					optval_run(ctx, raw, rl, &w[i], eq + 1, idx);
				else if (i + 1 < n) {
					i++;
					optval_run(ctx, raw, rl, &w[i], wval(&w[i]),
					           idx);
				}
				continue;
			}
			for (size_t j = 1; v[j]; j++) {
				if (!strchr(shorts, v[j]))
					continue;
				bool key_only = rl->keys && v[j] == 'o';
				bool cmd = rl->shorts && strchr(rl->shorts, v[j]);
				if (!key_only && !cmd)
					break;
				const struct optval_rule *use = rl;
				struct optval_rule plain = *rl;
				if (!key_only) {
					plain.keys = NULL;
					use = &plain;
				}
				if (v[j + 1])
					optval_run(ctx, raw, use, &w[i], v + j + 1,
					           idx);
				else if (i + 1 < n) {
					i++;
					optval_run(ctx, raw, use, &w[i], wval(&w[i]),
					           idx);
				}
				break;
			}
		}
	}
}

/* Environment values that carry code (GIT_EDITOR=..., LD_PRELOAD=...) are
   handled once for the whole line by lp_checks_env() in checks.c. */

/* ---- dynamic subcommands ---------------------------------------------- */

/* Programs whose first operand picks what they do: a dynamic one could
   be anything (`systemctl ${X:-poweroff}`). */
static void check_dynamic_subcommand(lp_ctx *ctx, const lp_raw_command *raw,
                                     size_t pos, const char *name)
{
	if (!lk_is(name, LK_SUBCOMMANDS))
		return;
	for (size_t i = pos + 1; i < raw->nwords; i++) {
		const lp_word *w = &raw->words[i];
		if (wdyn(w)) {
			lp_unparsed(ctx, "subcommand of %s is dynamic: %s", name,
			            w->text ? w->text : "");
			return;
		}
		if (wval(w)[0] != '-')
			return;
	}
}

/* ---- ssh's other ways to name local code (issue 9) ---------------------- */

/* ssh, scp, sftp: a config read from stdin or a descriptor (-F), a
   PKCS#11 or security-key library (-I, -o PKCS11Provider=,
   SecurityKeyProvider=) and config includes load code the line does not
   show. */
static void ssh_config_sources(lp_ctx *ctx, const lp_raw_command *raw,
                               size_t pos, const char *name)
{
	static const char *const family[] = { "ssh", "scp", "sftp", "autossh",
	                                      "sshfs", NULL };
	if (!lp_in_list(family, name))
		return;
	static const char *const code_keys[] = {
		"pkcs11provider", "securitykeyprovider", "include", "match",
		NULL,
	};
	for (size_t i = pos + 1; i < raw->nwords; i++) {
		const char *v = wval(&raw->words[i]);
		const char *val = NULL;
		if (v[0] != '-' || v[1] == '-')
			continue;
		char opt = v[1];
		if (opt != 'F' && opt != 'I' && opt != 'o')
			continue;
		val = v[2] ? v + 2 : i + 1 < raw->nwords ? wval(&raw->words[i + 1])
		                                         : "";
		if (opt == 'I') {
			lp_unparsed(ctx, "%s -I loads a PKCS#11 library", name);
			return;
		}
		if (opt == 'F') {
			if (lp_in_list(stdin_paths, val) || !strncmp(val, "/dev/fd/", 8) ||
			    !strncmp(val, "/proc/", 6) || !strncmp(val, "<(", 2)) {
				lp_unparsed(ctx, "%s reads its configuration from "
				                 "input: %s", name, val);
				return;
			}
			continue;
		}
		for (size_t k = 0; code_keys[k]; k++) {
			size_t kl = strlen(code_keys[k]);
			if (!strncasecmp(val, code_keys[k], kl) &&
			    (val[kl] == '=' || val[kl] == ' ')) {
				lp_unparsed(ctx, "%s -o %s names code the line does "
				                 "not show", name, code_keys[k]);
				return;
			}
		}
	}
}

/* ---- dispatch -------------------------------------------------------- */

typedef void (*see_fn)(lp_ctx *, const lp_raw_command *, size_t, size_t);

static const struct {
	const char *name;
	see_fn fn;
} programs[] = {
	{ "eval", see_eval },       { "trap", see_trap },
	{ "xargs", see_xargs },     { "parallel", see_parallel },
	{ "find", see_find },       { "fd", see_fd },
	{ "git", see_git },         { "ssh", see_ssh },
	{ "watch", see_watch },     { "at", see_at },
	{ "batch", see_at },        { "crontab", see_crontab },
	{ "make", see_make },       { "sed", lp_sed_command },
};

static void see_through(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                        size_t idx)
{
	const char *name = lp_base_name(wval(&raw->words[pos]));
	see_optvals(ctx, raw, pos, 0, idx);
	check_dynamic_subcommand(ctx, raw, pos, name);
	ssh_config_sources(ctx, raw, pos, name);
	const lk_program *prog = lk_program_find(name);
	if (prog && (prog->cls & LK_SHELL)) {
		shell_scan(ctx, raw, pos, idx, lp_streq(prog->name, "fish"),
		           LOCUS_ORIGIN_SHELL_C);
		return;
	}
	/* dispatched on the canonical name: gfind is find, gmake is make */
	const char *canon = prog ? prog->name : name;
	for (size_t i = 0; i < sizeof programs / sizeof *programs; i++) {
		if (lp_streq(programs[i].name, canon)) {
			programs[i].fn(ctx, raw, pos, idx);
			return;
		}
	}
	lp_inline_command(ctx, raw, pos, idx);
}

/* ---- peeling wrappers ------------------------------------------------ */

/* Add env's / sudo's NAME=value words to a pushed command. */
static void add_assigns(lp_ctx *ctx, size_t idx, const char *const *extra,
                        size_t nextra)
{
	if (!nextra || idx == LOCUS_SHELL_NO_PARENT)
		return;
	locus_shell_command *c = &ctx->result->commands[idx];
	const char **a = lp_arena_alloc(ctx->arena, (c->nassignments + nextra + 1) *
	                                                    sizeof *a);
	if (!a)
		return;
	for (size_t i = 0; i < c->nassignments; i++)
		a[i] = c->assignments[i];
	for (size_t i = 0; i < nextra; i++)
		a[c->nassignments + i] = extra[i];
	c->assignments = a;
	c->nassignments += nextra;
}

/*
 * env -S STRING split as GNU env does (checked in a sandbox), into the
 * words single-quoted for the shell parse: blanks and \_ separate outside
 * quotes, '...' is literal, "..." and bare text decode \t \n \v \f \r
 * \" \' \\ \$ \# (and \_ is a space inside double quotes), \c ends
 * the string, # starts a comment at a word's start, ${NAME} expands (a
 * value we do not know: NULL, the caller fails closed).
 */
static char *env_split(lp_ctx *ctx, const char *s, bool *dynamic)
{
	lp_buf out = { 0 }, word = { 0 };
	bool in_word = false;
	char q = 0;
	*dynamic = false;
	for (const char *p = s;; p++) {
		char c = *p;
		bool sep = !q && (c == ' ' || c == '\t' || c == '\n' ||
		                  c == '\v' || c == '\f' || c == '\r' ||
		                  (c == '\\' && p[1] == '_'));
		if (!c || sep || (!q && c == '\\' && p[1] == 'c')) {
			if (in_word) {
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
			static const char from[] = "tnvfr\"'\\$#_", to[] =
				"\t\n\v\f\r\"'\\$# ";
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

/* A wrapper that runs a command string (su -c, flock -c, script -c) or
   splits one (env -S). */
static void wrapper_script(lp_ctx *ctx, const lp_raw_command *r,
                           const lp_optscan *sc, const char *name,
                           size_t idx)
{
	const lp_word *w = sc->script ? sc->script : sc->split_word;
	const char *value = sc->script ? sc->script_value : sc->split_value;
	if (!w || !value)
		return;
	if (wdyn(w)) {
		lp_unparsed(ctx, "%s runs a command string only known at run "
		                 "time: %s",
		            name, w->text ? w->text : "");
		return;
	}
	const char *text = value;
	if (!sc->script) {
		bool dyn;
		text = env_split(ctx, value, &dyn);
		if (!text) {
			lp_unparsed(ctx, "%s -S splits a string %s: %s", name,
			            dyn ? "with ${NAME} expansions"
			                : "with an escape it refuses",
			            value);
			return;
		}
	}
	if (!sc->script && sc->cmd < r->nwords) {
		/* env -S STRING ARGS: the string's words, then the rest */
		const char *rest = lp_join_words(ctx, r->words, sc->cmd,
		                                 r->nwords, true);
		text = rest ? lp_arena_printf(ctx->arena, "%s %s", text, rest)
		            : NULL;
	}
	parse_text(ctx, text, LOCUS_ORIGIN_WRAPPER_SCRIPT, idx, r->depth + 1);
}

/*
 * su -s PROG [user [args]]: PROG is run as the login shell with the
 * arguments after the user (getopt drops a `--`), so `su -s /bin/rm root
 * -- -rf /` runs `rm -rf /`.  A shell PROG is left to shell_scan; true
 * when the command was handled here.
 */
static bool su_program(lp_ctx *ctx, const lp_raw_command *r, size_t pos,
                       const lp_optscan *sc, size_t idx)
{
	/* util-linux su permutes: `su root -s /bin/rm -- -rf /` gives -s
	   after the user (getopt reads options up to `--`) */
	for (size_t i = sc->cmd + 1; i < r->nwords; i++) {
		const char *v = wval(&r->words[i]);
		if (lp_streq(v, "--"))
			break;
		if (lp_streq(v, "-s") || !strncmp(v, "--shell", 7) ||
		    (v[0] == '-' && v[1] != '-' && strchr(v, 's') &&
		     !strchr(v, 'c'))) {
			const char *sh = v[1] == 's' && !v[2] && i + 1 < r->nwords
			                         ? wval(&r->words[i + 1])
			                         : "";
			if (!is_shell(lp_base_name(sh))) {
				lp_unparsed(ctx, "%s: a login shell option after "
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
		if (lp_streq(v, "-s") || lp_streq(v, "--shell")) {
			if (i + 1 < end)
				prog = &r->words[++i];
		} else if (!strncmp(v, "--shell=", 8) ||
		           (v[0] == '-' && v[1] != '-' && strchr(v, 's'))) {
			prog = NULL; /* attached or clustered: checked below */
			lp_unparsed(ctx, "%s: the login shell option is written "
			                 "in a form not analysed: %s",
			            wval(&r->words[pos]), v);
			return true;
		}
	}
	if (!prog)
		return false;
	if (wdyn(prog)) {
		lp_unparsed(ctx, "%s runs a login shell only known at run time: "
		                 "%s",
		            wval(&r->words[pos]), prog->text ? prog->text : "");
		return true;
	}
	if (is_shell(lp_base_name(wval(prog))))
		return false;
	if (sc->script) {
		lp_unparsed(ctx, "%s runs %s as the shell of a -c command",
		            wval(&r->words[pos]), wval(prog));
		return true;
	}
	size_t from = sc->cmd < r->nwords ? sc->cmd + 1 : r->nwords;
	if (from < r->nwords && !wdyn(&r->words[from]) &&
	    lp_streq(wval(&r->words[from]), "--"))
		from++;
	size_t na = 1 + (r->nwords - from);
	lp_word *argv = lp_arena_alloc(ctx->arena, na * sizeof *argv);
	if (!argv)
		return true;
	argv[0] = *prog;
	for (size_t i = from; i < r->nwords; i++)
		argv[1 + i - from] = r->words[i];
	emit_nested(ctx, r, argv, na, LOCUS_ORIGIN_WRAPPER_SCRIPT, idx, 0);
	return true;
}

size_t lp_emit(lp_ctx *ctx, lp_raw_command *raw)
{
	if (lp_out_of_time(ctx))
		return lp_push_raw(ctx, raw, 0, 0, NULL);
	lp_raw_command r = *raw;
	size_t n = r.nwords, pos = 0, nwr = 0, nextra = 0;
	/* scratch for the peeled wrappers' names and assignments (both
	   copied when a command is pushed): on the stack for the usual
	   short command, in the arena for a long one */
	const char *wr_small[16], *extra_small[16];
	const char **wr = wr_small, **extra = extra_small;
	if (n + 1 > sizeof wr_small / sizeof *wr_small) {
		wr = lp_arena_alloc(ctx->arena, (n + 1) * sizeof *wr);
		extra = lp_arena_alloc(ctx->arena, (n + 1) * sizeof *extra);
		if (!wr || !extra)
			return LOCUS_SHELL_NO_PARENT;
	}

	while (pos < n && !wdyn(&r.words[pos])) {
		size_t at;
		const lk_program *wp = lp_wrapper_match(r.words, n, pos, &at);
		if (!wp)
			break;
		const lp_optspec *spec = wp->opts;
		lp_optscan sc;
		lp_optscan_run(spec, r.words, n, at, &sc);
		bool su_shell = (spec->flags & LK_OPT_SU) && !sc.seen['u'];
		bool peel = !sc.unknown && !sc.query && !sc.nocmd &&
		            !sc.script && !sc.split_value && !su_shell &&
		            sc.cmd < n;
		lp_raw_command wraw = r;
		if (sc.query)
			wraw.flags |= LOCUS_CMD_QUERY_ONLY;
		if (peel)
			wraw.flags |= LOCUS_CMD_WRAPPER;
		size_t idx = lp_push_raw(ctx, &wraw, pos, nwr, wr);
		if (idx == LOCUS_SHELL_NO_PARENT)
			return idx;
		add_assigns(ctx, idx, extra, nextra);
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
		if (su_shell && su_program(ctx, &r, pos, &sc, idx))
			return idx;
		if (su_shell) {
			/* su [-] [user [shell args]]: the args go to the
			   user's shell, so `su root -c CMD` runs CMD */
			size_t sh = sc.cmd < n ? sc.cmd : n - 1;
			lp_raw_command sraw = r;
			sraw.parent = idx;
			shell_scan(ctx, &sraw, sh, idx, false,
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
			extra[nextra++] = wdyn(aw) && aw->text ? aw->text : wval(aw);
		}
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
