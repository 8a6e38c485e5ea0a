/*
 * parser/shells.c - shells and the builtins that run a string: `sh -c`
 * in any option cluster, a shell's stdin or script operand, eval, trap.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "seethrough.h"

/* ---- shells ---------------------------------------------------------- */

/* bash, bash5, bash-5.2, ksh93, mksh-static ... (the program table) */
bool lp_is_shell(const char *name)
{
	return lk_is(name, LK_SHELL);
}

/* Origins whose commands get {} replaced by their input. */
static bool placeholder_origin(const char *o)
{
	return o && (lu_streq(o, LOCUS_ORIGIN_XARGS) ||
	             lu_streq(o, LOCUS_ORIGIN_FIND_EXEC) ||
	             lu_streq(o, LOCUS_ORIGIN_FD_EXEC) ||
	             lu_streq(o, LOCUS_ORIGIN_PARALLEL));
}

/* Long options of the shells that take the next word. */
/* clang-format off */
static const char *const shell_long_val[] = {
	"--rcfile", "--init-file", "--init-command", "--debug",
	"--debug-output", "--profile", "--features", NULL,
};
/* clang-format on */

/* What a shell's options say (lp_shell_scan). */
typedef struct shell_opts {
	size_t i;    /* the first word after the options */
	bool have_c; /* -c (fish: -c/--command VALUE) */
	bool have_s; /* -s or `-`: the operands are arguments, stdin runs */
	bool query;  /* --version, --help: it prints and runs nothing */
	const char *script; /* fish's -c value, when given with it */
	const lp_word *script_word;
	/* a word only known at run time where an option may stand, before
	   any -c: it may be -c (`bash "$X" reboot` with X=-c runs reboot) */
	const lp_word *dyn_option;
} shell_opts;

/* fish -c/--command takes its value like getopt: `attached` (NULL: none)
   or the next word. */
static void fish_value(shell_opts *o, const lp_word *words, size_t n,
                       const lp_word *w, const char *attached)
{
	if (attached) {
		o->script = attached;
		o->script_word = w;
	} else if (o->i + 1 < n) {
		o->script_word = &words[++o->i];
		o->script = wval(o->script_word);
	}
}

/* One short-option cluster -xyz (or +xyz) of a shell. */
static void shell_cluster(shell_opts *o, const lp_word *words, size_t n,
                          const lp_word *w, bool fish)
{
	const char *v = wval(w);
	for (size_t j = 1; v[j]; j++) {
		char c = v[j];
		if (c == 's' && v[0] == '-' && !fish) {
			o->have_s = true; /* operands are arguments */
		} else if (c == 'c') {
			o->have_c = true;
			if (fish && !o->script_word) {
				fish_value(o, words, n, w,
				           v[j + 1] ? v + j + 1 : NULL);
				return;
			}
		} else if (c == 'o' || c == 'O' ||
		           (fish && strchr("Cdpf", c))) {
			if (!v[j + 1] && o->i + 1 < n)
				o->i++;
			return;
		}
	}
}

/* Scan the options of the shell at words[pos]. */
static void shell_options(shell_opts *o, const lp_word *words, size_t n,
                          size_t pos, bool fish)
{
	memset(o, 0, sizeof *o);
	for (o->i = pos + 1; o->i < n; o->i++) {
		const lp_word *w = &words[o->i];
		const char *v = wval(w);
		if (wdyn(w) && !o->have_c &&
		    lp_dyn_may_be_option(words, n, o->i))
			o->dyn_option = w;
		if (wdyn(w))
			break;
		if (lu_streq(v, "--") || lu_streq(v, "-")) {
			o->have_s |= v[1] == '\0'; /* `sh - ARGS` reads stdin */
			o->i++;
			break;
		}
		if ((v[0] != '-' && v[0] != '+') || !v[1])
			break;
		if (v[0] == '-' && v[1] == '-') {
			if (!strncmp(v, "--command", 9) && fish) {
				o->have_c = true;
				fish_value(o, words, n, w,
				           v[9] == '=' ? v + 10 : NULL);
				continue;
			}
			if (lp_in_list(shell_long_val, v) && o->i + 1 < n)
				o->i++;
			o->query |=
			    lu_streq(v, "--version") || lu_streq(v, "--help");
			continue;
		}
		shell_cluster(o, words, n, w, fish);
	}
}

/* sh -c SCRIPT: the script is parsed. */
static void shell_c_script(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                           size_t idx, shell_opts *o, const char *origin)
{
	const lp_word *words = raw->words;
	if (!o->script_word && o->i < raw->nwords) {
		o->script_word = &words[o->i];
		o->script = wval(o->script_word);
	}
	if (!o->script_word) {
		/* `xargs sh -c`: the script is the input */
		if (raw->flags & LOCUS_CMD_DYNAMIC_ARGS)
			lp_unparsed(ctx, "a shell -c script comes from input");
		return;
	}
	if (placeholder_origin(raw->origin) && strstr(o->script, "{}")) {
		lp_unparsed(ctx, "a shell -c script holds the {} "
		                 "placeholder: its input becomes code");
	}
	if (wdyn(o->script_word) && o->script_word != &words[pos]) {
		lp_unparsed(ctx,
		            "a shell -c script is only known at run "
		            "time: %s",
		            o->script_word->text ? o->script_word->text : "");
		return;
	}
	lp_parse_text(ctx, o->script, origin, idx, raw->depth + 1);
}

/* A shell with no -c and no script operand: it runs its stdin. */
static void shell_stdin(lp_ctx *ctx, const lp_raw_command *raw, size_t idx)
{
	if (lp_stdin_procsub(raw)) {
		ctx->result->commands[idx].flags |= LOCUS_CMD_STDIN_SCRIPT;
		lp_unparsed(ctx, "a shell reads its script from a process "
		                 "substitution");
		return;
	}
	if (raw->stdin_kind == LP_STDIN_NONE && raw->origin &&
	    lu_streq(raw->origin, LOCUS_ORIGIN_PROCESS_SUBSTITUTION)) {
		/* tee >(sh): the shell runs what the outer command writes */
		ctx->result->commands[idx].flags |= LOCUS_CMD_STDIN_SCRIPT;
		lp_unparsed(ctx, "a shell in a process substitution runs the "
		                 "data written to it");
		return;
	}
	if (raw->stdin_kind == LP_STDIN_NONE ||
	    raw->stdin_kind == LP_STDIN_FILE) {
		/* the harness's stdin (a terminal, a pipe, /dev/null: locus
		   cannot tell), the stdin of the command that runs it, or a
		   file: a program locus does not see */
		lp_unparsed(ctx, "a shell reads its program from %s",
		            raw->stdin_kind == LP_STDIN_FILE
		                ? "a file on its stdin"
		                : "a stdin the line does not show");
		return;
	}
	if (raw->stdin_kind == LP_STDIN_HEREDOC ||
	    raw->stdin_kind == LP_STDIN_HERESTRING ||
	    raw->stdin_kind == LP_STDIN_PIPE)
		ctx->result->commands[idx].flags |= LOCUS_CMD_STDIN_SCRIPT;
	const char *text = lp_stdin_text(ctx, raw, "a shell");
	lp_parse_text(ctx, text, LOCUS_ORIGIN_STDIN_SCRIPT, idx,
	              raw->depth + 1);
}

/*
 * words[pos] is a shell (or su's shell arguments start after pos).  Find
 * its script: a -c in any short cluster makes the first operand the
 * script; no -c and no operand means it reads stdin.
 */
void lp_shell_scan(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                   size_t idx, bool fish, const char *origin)
{
	shell_opts o;
	shell_options(&o, raw->words, raw->nwords, pos, fish);
	if (o.dyn_option) {
		lp_unparsed(ctx,
		            "a shell option only known at run time may run a "
		            "command: %s",
		            o.dyn_option->text ? o.dyn_option->text : "");
		return;
	}
	if (o.have_c) {
		shell_c_script(ctx, raw, pos, idx, &o, origin);
		return;
	}
	if (o.i < raw->nwords && !o.have_s &&
	    !lp_is_stdin_word(&raw->words[o.i])) {
		const char *why = lp_program_file_unseen(&raw->words[o.i]);
		if (why)
			lp_unparsed(ctx, "a shell runs a script from %s", why);
		return; /* a script file: parsed when the line wrote it
		           (written.c), else a known limit */
	}
	if (o.query)
		return;
	shell_stdin(ctx, raw, idx);
}

/* ---- eval, trap ------------------------------------------------------ */

void lp_see_eval(lp_ctx *ctx, const lp_raw_command *raw, size_t pos, size_t idx)
{
	size_t from = pos + 1;
	if (from < raw->nwords && !wdyn(&raw->words[from]) &&
	    lu_streq(wval(&raw->words[from]), "--"))
		from++;
	for (size_t i = from; i < raw->nwords; i++) {
		if (wdyn(&raw->words[i])) {
			lp_unparsed(ctx,
			            "eval runs a word only known at run "
			            "time: %s",
			            raw->words[i].text ? raw->words[i].text
			                               : "");
			return;
		}
	}
	if (from >= raw->nwords)
		return;
	lp_parse_text(ctx,
	              lp_join_words(ctx, raw->words, from, raw->nwords, false),
	              LOCUS_ORIGIN_EVAL, idx, raw->depth + 1);
}

void lp_see_trap(lp_ctx *ctx, const lp_raw_command *raw, size_t pos, size_t idx)
{
	size_t i = pos + 1, n = raw->nwords;
	if (i < n && !wdyn(&raw->words[i]) &&
	    lu_streq(wval(&raw->words[i]), "--"))
		i++;
	if (i < n && !wdyn(&raw->words[i]) && wval(&raw->words[i])[0] == '-' &&
	    wval(&raw->words[i])[1])
		return; /* trap -l, trap -p: they print */
	if (n - i < 2)
		return; /* trap SIG resets the signal */
	const lp_word *w = &raw->words[i];
	if (wdyn(w)) {
		lp_unparsed(ctx,
		            "trap runs a command only known at run time: %s",
		            w->text ? w->text : "");
		return;
	}
	if (!*wval(w) || lu_streq(wval(w), "-"))
		return;
	lp_parse_text(ctx, wval(w), LOCUS_ORIGIN_TRAP, idx, raw->depth + 1);
}
