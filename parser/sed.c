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

void lp_sed_command(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                    size_t idx)
{
	const lp_word *w = raw->words;
	size_t n = raw->nwords;
	sed_scan s = {ctx, idx, raw->depth + 1, false};
	bool have_e = false, have_f = false;
	for (size_t i = pos + 1; i < n; i++) {
		const char *v = w[i].value ? w[i].value : "";
		if (!strcmp(v, "--sandbox"))
			return; /* e, r and w are refused */
	}
	size_t first = n;
	for (size_t i = pos + 1; i < n; i++) {
		const char *v = w[i].value ? w[i].value : "";
		if (!strcmp(v, "--")) {
			if (first == n && i + 1 < n)
				first = i + 1;
			break;
		}
		if (!strncmp(v, "--expression", 12)) {
			have_e = true;
			if (v[12] == '=')
				scan(&s, &w[i], v + 13);
			else if (i + 1 < n) {
				scan(&s, &w[i + 1], w[i + 1].value);
				i++;
			}
			continue;
		}
		if (!strncmp(v, "--file", 6)) {
			have_f = true;
			continue;
		}
		if (v[0] == '-' && v[1] && v[1] != '-') {
			for (const char *q = v + 1; *q; q++) {
				if (*q == 'e' || *q == 'f' || *q == 'l') {
					const lp_word *vw = &w[i];
					const char *val = q + 1;
					if (!*val && i + 1 < n) {
						vw = &w[++i];
						val = vw->value;
					}
					if (*q == 'e') {
						have_e = true;
						scan(&s, vw, val);
					}
					have_f |= *q == 'f';
					break;
				}
			}
			continue;
		}
		if (first == n && v[0] != '-')
			first = i;
	}
	if (!have_e && !have_f && first < n)
		scan(&s, &w[first], w[first].value);
	if (s.runs)
		ctx->result->commands[idx].flags |= LOCUS_CMD_INLINE_CODE;
}
