/*
 * agents/audit_writer.c - one report of `locus audit transcripts` behind
 * one interface (agents/audit_report.h au_writer): the format picked by
 * name, rows, finished files and the trailer handed to it, failures
 * remembered.  The formats are in agents/audit_text.c (JSONL, text),
 * agents/sarif.c and agents/audit_html.c.
 */
#include <stdlib.h>
#include <string.h>

#include "audit_report.h"

au_writer *au_writer_new(const char *format, FILE *out, const char *path,
                         bool all)
{
	static const struct {
		const char *name;
		int (*begin)(au_writer *w);
	} formats[] = {
	    {"jsonl", au_jsonl_begin},
	    {"text", au_text_begin},
	    {"sarif", au_sarif_begin},
	    {"html", au_html_begin},
	};
	au_writer *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->out = out;
	w->path = path;
	w->all = all;
	for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
		if (!strcmp(format, formats[i].name)) {
			if (formats[i].begin(w))
				break;
			return w;
		}
	free(w);
	return NULL;
}

int au_writer_row(au_writer *w, const au_row *r)
{
	if (w->failed)
		return -1;
	if (w->row(w, r))
		w->failed = true;
	return w->failed ? -1 : 0;
}

int au_writer_file(au_writer *w, const tr_file *f)
{
	if (w->failed || !w->file)
		return w->failed ? -1 : 0;
	if (w->file(w, f))
		w->failed = true;
	return w->failed ? -1 : 0;
}

int au_writer_end(au_writer *w, const au_totals *t)
{
	int rc = w->failed || w->end(w, t) ? -1 : 0;
	if (fflush(w->out) || ferror(w->out))
		rc = -1;
	return rc;
}

void au_writer_free(au_writer *w)
{
	if (!w)
		return;
	if (w->release)
		w->release(w);
	free(w);
}
