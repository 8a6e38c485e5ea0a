/*
 * parser/sed.c - GNU sed commands that run programs.
 *
 * GNU sed's `e COMMAND` runs COMMAND with a shell, a bare `e` runs the
 * pattern space, and the `e` flag of `s///e` runs the pattern space after
 * the substitution (checked in a sandbox): `sed 's/x/rm -rf y/e'` deletes.
 * The scripts of a sed command (-e, --expression, the first operand) are
 * scanned: `e COMMAND` is parsed as shell (origin inline-code), a pattern
 * space run is input turned into code (unparsed; fed by a download it is
 * remote code, tagged by the labeller through LOCUS_CMD_INLINE_CODE).
 * `--sandbox` refuses e, r and w.  A script the scanner cannot follow
 * that holds an `e` fails closed.  Addresses are read by knowledge/sed.c,
 * the reader the labeller's print-only check uses too.
 */
#include <string.h>

#include "seethrough.h"
#include "../knowledge/sed.h"

typedef struct sed_scan {
	lp_ctx *ctx;
	size_t idx;
	unsigned depth;
	bool runs; /* something runs: the command carries inline code */
	const lp_word *words;
} sed_scan;

static void on_exec(void *arg, const char *cmd, size_t n)
{
	sed_scan *s = arg;
	s->runs = true;
	if (!n)
		lp_unparsed(s->ctx, "sed e runs its pattern space (input) as a "
		                    "command");
	else
		lp_parse_nested(s->ctx, cmd, n, LOCUS_ORIGIN_INLINE_CODE,
		                s->idx, s->depth);
}

static void on_run_space(void *arg)
{
	sed_scan *s = arg;
	s->runs = true;
	lp_unparsed(s->ctx,
	            "sed s///e runs the pattern space (input) as a command");
}

static const lk_sed_visitor runs_visitor = {on_exec, on_run_space, NULL};

/* Scan one script; false when it cannot be followed. */
static bool scan_script(sed_scan *s, const char *p)
{
	return lk_sed_walk(p, &runs_visitor, s);
}

static void scan(sed_scan *s, const lp_word *w, const char *text)
{
	if (!text || !strchr(text, 'e'))
		return; /* no e anywhere: nothing runs */
	if (w && (w->flags & LOCUS_WORD_DYNAMIC)) {
		lp_unparsed(s->ctx, "sed runs a script only known at run time");
		return;
	}
	if (!scan_script(s, text))
		lp_unparsed(s->ctx,
		            "a sed script holding e is not understood: "
		            "%s",
		            text);
}

static const char *word_value(const void *words, size_t i)
{
	return ((const lp_word *)words)[i].value;
}

/* A script file fed by the line (`sed -f - f <<<'1e CMD'`, -f
   /dev/stdin from a pipe) or by another command (`-f <(...)`) holds
   commands locus does not read: unparsed.  A file of the workspace is
   workspace code, as a script run by name is. */
static void on_script(void *arg, size_t i, char kind, const char *text)
{
	sed_scan *s = arg;
	const lp_word *w = &s->words[i];
	if (kind == 'e') {
		scan(s, w, text);
		return;
	}
	if (lp_in_list(lp_stdin_paths, text) &&
	    !(w->flags & LOCUS_WORD_DYNAMIC))
		lp_unparsed(s->ctx, "sed reads its script from stdin");
	else if (w->flags & LOCUS_WORD_SUBST)
		lp_unparsed(s->ctx, "sed reads its script from another "
		                    "command's output");
}

void lp_sed_command(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                    size_t idx)
{
	const lp_word *w = raw->words;
	size_t n = raw->nwords;
	sed_scan s = {ctx, idx, raw->depth + 1, false, w};
	for (size_t i = pos + 1; i < n; i++) {
		const char *v = w[i].value ? w[i].value : "";
		if (!strcmp(v, "--sandbox"))
			return; /* e, r and w are refused */
	}
	const lk_sed_args a = {word_value, w, pos + 1, n, on_script, &s};
	lk_sed_scripts(&a);
	if (s.runs)
		ctx->result->commands[idx].flags |= LOCUS_CMD_INLINE_CODE;
}
