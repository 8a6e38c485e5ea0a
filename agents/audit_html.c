/*
 * agents/audit_html.c - the HTML report of `locus audit transcripts`, written
 * as the calls are judged (docs/audit.md "The HTML report").
 *
 * The page (agents/audit_report.html, built in; inline CSS, JS and SVG, a
 * Content-Security-Policy that forbids every fetch) gets one JSON block:
 * {"summary", "files", "rows", "riskiest", "parts", "calls"}.  It stays
 * small whatever the input: `rows` holds every call up to ROWS_ALL calls,
 * past that the held, denied and allowed-dangerous ones (up to ROWS_FLAG)
 * and the first ROWS_PLAIN others; `riskiest` is the ten riskiest
 * distinct commands (ranked here, each with its count and first place).
 * The full table goes into files beside the page, PART_ROWS calls each
 * (REPORT-calls-0001.html...), plain HTML tables with no script (a fixed
 * layout, so a browser draws one without measuring every cell), linked
 * from the page; a report on stdout has no files beside it, so it says
 * how many calls it leaves out.
 */
#include <stdlib.h>
#include <string.h>

#include "audit_report.h"

extern const char cli_report_html[];

#define DATA_MARK "/*LOCUS_DATA*/"
#define ROWS_ALL 2000
#define ROWS_FLAG 2000
#define ROWS_PLAIN 300
#define PART_ROWS 2000
#define RISKY_KEEP 256

typedef struct risky {
	double rank;
	char *text, *tool, *outcome, *family, *where, *status, *tags;
	bool dangerous;
	long count;
} risky;

typedef struct html_state {
	cJSON *rows;
	long nrows, nflag, nplain, calls;
	risky risk[RISKY_KEEP];
	size_t nrisk;
	/* the parts */
	char *base; /* the -o path without ".html" */
	FILE *part;
	long part_no, part_rows;
	cJSON *parts;
} html_state;

/* ---- escaping ---- */

/* JSON text inside <script>: '<' '>' '&' as \u escapes, so no text of a
   transcript can close the block or open a comment. */
static int put_json(const char *s, FILE *out)
{
	for (; *s; s++) {
		int rc = *s == '<'   ? fputs("\\u003c", out)
		         : *s == '>' ? fputs("\\u003e", out)
		         : *s == '&' ? fputs("\\u0026", out)
		                     : fputc(*s, out);
		if (rc == EOF)
			return -1;
	}
	return 0;
}

/* Text in HTML: & < > " escaped, control characters as spaces, cut at
   `max` bytes on a UTF-8 boundary. */
static void put_html(const char *s, size_t max, FILE *out)
{
	size_t n = strlen(s);
	bool cut = n > max;
	if (cut) {
		n = max;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '&')
			fputs("&amp;", out);
		else if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (c < 0x20 || c == 0x7f)
			fputc(' ', out);
		else
			fputc(c, out);
	}
	if (cut)
		fputs("\xe2\x80\xa6", out);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* ---- ranking (as the page did it: outcome, family, telling tags) ---- */

/* clang-format off */
static const char *const tell[] = {
    "exec:never",      "exec:remote-code", "exec:destructive",
    "exec:secrets",    "exec:privilege",   "exec:persistence",
    "exec:force-push", "exec:shutdown",    "exec:vcs-push",
    "exec:network",    "outside-workspace", NULL};
/* clang-format on */

static double rank(const au_row *r)
{
	double o = r->j.outcome == LOCUS_OUTCOME_DENY            ? 3
	           : r->j.outcome == LOCUS_OUTCOME_REQUIRE_HUMAN ? 2
	           : r->j.dangerous                              ? 2.5
	                                                         : 0;
	int f = -1;
	for (int i = 0; tell[i]; i++)
		if (!strcmp(r->j.family, tell[i]))
			f = i;
	long hot = 0;
	for (size_t i = 0; i < r->j.ntags; i++)
		hot += strchr(r->j.tags[i], ':') != NULL &&
		       strncmp(r->j.tags[i], "permission:", 11) != 0;
	return o * 100 + (f < 0 ? 0 : 20 - f) * 4 + (double)hot;
}

static void risky_free(risky *k)
{
	free(k->text);
	free(k->tool);
	free(k->outcome);
	free(k->family);
	free(k->where);
	free(k->status);
	free(k->tags);
	memset(k, 0, sizeof *k);
}

/* Keep the riskiest distinct commands: the same text is one entry (its
   count grows, its first place stays); when full, the lowest goes. */
static void keep_risky(html_state *h, const au_row *r)
{
	double k = rank(r);
	if (k <= 0)
		return;
	for (size_t i = 0; i < h->nrisk; i++)
		if (!strcmp(h->risk[i].text, r->call->text) &&
		    !strcmp(h->risk[i].tool, r->call->tool)) {
			h->risk[i].count++;
			return;
		}
	size_t slot = h->nrisk;
	if (slot == RISKY_KEEP) {
		slot = 0;
		for (size_t i = 1; i < RISKY_KEEP; i++)
			if (h->risk[i].rank < h->risk[slot].rank)
				slot = i;
		if (h->risk[slot].rank >= k)
			return;
		risky_free(&h->risk[slot]);
	} else {
		h->nrisk++;
	}
	risky *e = &h->risk[slot];
	char where[4200];
	snprintf(where, sizeof where, "%s:%ld", r->file, r->call->line);
	e->rank = k;
	e->count = 1;
	e->dangerous = r->j.dangerous;
	e->text = strdup(r->call->text);
	e->tool = strdup(r->call->tool);
	e->outcome = strdup(locus_outcome_name(r->j.outcome));
	e->family = strdup(r->j.family);
	e->where = strdup(where);
	e->status = strdup(au_status_name(r->call->status));
	e->tags = pl_judged_tags(&r->j);
	if (!e->text || !e->tool || !e->outcome || !e->family || !e->where ||
	    !e->status || !e->tags) {
		risky_free(e);
		h->nrisk--;
		if (slot != h->nrisk)
			h->risk[slot] = h->risk[h->nrisk];
	}
}

static int by_rank(const void *a, const void *b)
{
	const risky *x = a, *y = b;
	return x->rank < y->rank ? 1 : x->rank > y->rank ? -1 : 0;
}

static cJSON *risky_json(html_state *h)
{
	qsort(h->risk, h->nrisk, sizeof *h->risk, by_rank);
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; a && i < h->nrisk && i < 10; i++) {
		const risky *e = &h->risk[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "text", e->text);
		cJSON_AddStringToObject(o, "tool", e->tool);
		cJSON_AddStringToObject(o, "outcome", e->outcome);
		cJSON_AddBoolToObject(o, "dangerous", e->dangerous);
		cJSON_AddStringToObject(o, "family", e->family);
		cJSON_AddStringToObject(o, "where", e->where);
		cJSON_AddStringToObject(o, "status", e->status);
		cJSON_AddStringToObject(o, "tags", e->tags);
		cJSON_AddNumberToObject(o, "count", (double)e->count);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* ---- the parts: the full table in plain HTML files ---- */

static void part_name(const html_state *h, long no, char *out, size_t cap)
{
	snprintf(out, cap, "%s-calls-%04ld.html", h->base, no);
}

static void part_close(html_state *h, bool more)
{
	if (!h->part)
		return;
	char next[4200];
	part_name(h, h->part_no + 1, next, sizeof next);
	fputs("</tbody></table>\n<p>", h->part);
	if (more) {
		fputs("<a href=\"", h->part);
		put_html(base_name(next), 4096, h->part);
		fputs("\">next calls &rarr;</a>", h->part);
	}
	fputs("</p></body></html>\n", h->part);
	fclose(h->part);
	h->part = NULL;
}

static int part_open(html_state *h, const char *page)
{
	char name[4200], prev[4200];
	h->part_no++;
	part_name(h, h->part_no, name, sizeof name);
	part_name(h, h->part_no - 1, prev, sizeof prev);
	h->part = fopen(name, "w");
	if (!h->part)
		return -1;
	h->part_rows = 0;
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "file", base_name(name));
	cJSON_AddNumberToObject(p, "first", (double)h->calls);
	cJSON_AddNumberToObject(p, "deny", 0);
	cJSON_AddNumberToObject(p, "require_human", 0);
	cJSON_AddNumberToObject(p, "dangerous", 0);
	cJSON_AddItemToArray(h->parts, p);
	fprintf(h->part,
	        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
	        "charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-"
	        "Policy\" content=\"default-src 'none'; style-src "
	        "'unsafe-inline'\">\n<title>locus audit: calls, part "
	        "%ld</title>\n<style>body{font:13px/1.4 system-ui,sans-serif;"
	        "margin:16px;color:#1d2330}table{border-collapse:collapse;"
	        "width:100%%;table-layout:fixed}th,td{text-align:left;"
	        "padding:3px 6px;overflow:hidden;"
	        "border-bottom:1px solid #e3e6ec;vertical-align:top}"
	        "th{color:#667085;font-size:12px;position:sticky;top:0;"
	        "background:#fff}td.c{font-family:ui-monospace,monospace;"
	        "white-space:pre-wrap;word-break:break-all}"
	        ".deny{color:#c62828;font-weight:600}.require_human{color:"
	        "#ef8f00;font-weight:600}.dangerous{color:#7b1fa2;"
	        "font-weight:600}</style></head><body>\n<p><a href=\"",
	        h->part_no);
	put_html(base_name(page), 4096, h->part);
	fputs("\">&larr; summary and findings</a>", h->part);
	if (h->part_no > 1) {
		fputs(" &middot; <a href=\"", h->part);
		put_html(base_name(prev), 4096, h->part);
		fputs("\">&larr; previous calls</a>", h->part);
	}
	fprintf(h->part,
	        "</p>\n<table><colgroup><col style=\"width:4em\"><col "
	        "style=\"width:11em\"><col style=\"width:7em\"><col "
	        "style=\"width:8em\"><col><col style=\"width:6em\"><col "
	        "style=\"width:7em\"><col style=\"width:14em\"><col "
	        "style=\"width:12em\"></colgroup>\n"
	        "<thead><tr><th>#</th><th>time</th><th>agent"
	        "</th><th>tool</th><th>command</th><th>result</th><th>"
	        "outcome</th><th>tags</th><th>where</th></tr></thead>"
	        "<tbody>\n");
	return ferror(h->part) ? -1 : 0;
}

static int part_row(au_writer *w, html_state *h, const au_row *r)
{
	if (!h->base)
		return 0;
	if (h->part && h->part_rows == PART_ROWS)
		part_close(h, true);
	if (!h->part && part_open(h, w->path))
		return -1;
	FILE *f = h->part;
	bool danger = r->j.outcome == LOCUS_OUTCOME_ALLOW && r->j.dangerous;
	const char *oc =
	    danger ? "dangerous" : locus_outcome_name(r->j.outcome);
	cJSON *p = cJSON_GetArrayItem(h->parts, (int)h->part_no - 1);
	if (danger || r->j.outcome != LOCUS_OUTCOME_ALLOW) {
		cJSON *v = cJSON_GetObjectItemCaseSensitive(p, oc);
		if (v)
			cJSON_SetNumberValue(v, v->valuedouble + 1);
	}
	fprintf(f, "<tr><td>%ld</td><td>", h->calls);
	put_html(r->call->time ? r->call->time : "", 64, f);
	fprintf(f, "</td><td>%s</td><td>", tr_agent_name(r->call->agent));
	put_html(r->call->tool, 200, f);
	fputs("</td><td class=\"c\">", f);
	put_html(r->call->text, 400, f);
	fprintf(f, "</td><td>%s</td><td class=\"%s\">%s</td><td>",
	        au_status_name(r->call->status), oc,
	        danger                                        ? "allowed!"
	        : r->j.outcome == LOCUS_OUTCOME_DENY          ? "denied"
	        : r->j.outcome == LOCUS_OUTCOME_REQUIRE_HUMAN ? "held"
	                                                      : "allowed");
	for (size_t i = 0; i < r->j.ntags; i++) {
		if (i)
			fputc(' ', f);
		put_html(r->j.tags[i], 200, f);
	}
	fputs("</td><td>", f);
	put_html(base_name(r->file), 400, f);
	fprintf(f, ":%ld</td></tr>\n", r->call->line);
	h->part_rows++;
	return ferror(f) ? -1 : 0;
}

/* ---- the writer ---- */

static int html_row(au_writer *w, const au_row *r)
{
	html_state *h = w->state;
	h->calls++;
	bool flagged = r->j.outcome != LOCUS_OUTCOME_ALLOW || r->j.dangerous;
	/* every call while the page is small; past that the findings and
	   the first others (the parts hold them all) */
	bool keep = h->nrows < ROWS_ALL ||
	            (flagged ? h->nflag < ROWS_FLAG : h->nplain < ROWS_PLAIN);
	if (keep) {
		cJSON *o = au_row_json(r);
		if (!o)
			return -1;
		cJSON_AddNumberToObject(o, "n", (double)h->calls);
		cJSON_AddItemToArray(h->rows, o);
		h->nrows++;
		if (flagged)
			h->nflag++;
		else
			h->nplain++;
	}
	keep_risky(h, r);
	return part_row(w, h, r);
}

static int html_end(au_writer *w, const au_totals *t)
{
	html_state *h = w->state;
	part_close(h, false);
	const char *mark = strstr(cli_report_html, DATA_MARK);
	cJSON *data = cJSON_CreateObject();
	cJSON *sum = au_summary(t);
	if (!mark || !data || !sum) {
		cJSON_Delete(sum);
		cJSON_Delete(data);
		return -1;
	}
	cJSON_AddItemToObject(data, "summary", sum);
	cJSON_AddItemToObject(data, "files", cJSON_Duplicate(t->files_json, 1));
	cJSON_AddItemToObject(data, "rows", h->rows);
	h->rows = NULL;
	cJSON_AddItemToObject(data, "riskiest", risky_json(h));
	cJSON_AddItemToObject(data, "parts", h->parts);
	h->parts = NULL;
	cJSON_AddNumberToObject(data, "calls", (double)h->calls);
	cJSON_AddNumberToObject(data, "part_rows", PART_ROWS);
	char *json = cJSON_PrintUnformatted(data);
	cJSON_Delete(data);
	if (!json)
		return -1;
	size_t head = (size_t)(mark - cli_report_html);
	int rc = fwrite(cli_report_html, 1, head, w->out) == head
	             ? put_json(json, w->out)
	             : -1;
	cJSON_free(json);
	if (!rc && fputs(mark + strlen(DATA_MARK), w->out) == EOF)
		rc = -1;
	return rc;
}

static void html_release(au_writer *w)
{
	html_state *h = w->state;
	if (!h)
		return;
	if (h->part)
		fclose(h->part);
	cJSON_Delete(h->rows);
	cJSON_Delete(h->parts);
	for (size_t i = 0; i < h->nrisk; i++)
		risky_free(&h->risk[i]);
	free(h->base);
	free(h);
	w->state = NULL;
}

int au_html_begin(au_writer *w)
{
	html_state *h = calloc(1, sizeof *h);
	if (!h)
		return -1;
	h->rows = cJSON_CreateArray();
	h->parts = cJSON_CreateArray();
	if (w->path) {
		size_t n = strlen(w->path);
		if (n > 5 && !strcmp(w->path + n - 5, ".html"))
			n -= 5;
		h->base = strndup(w->path, n);
	}
	w->state = h;
	w->row = html_row;
	w->end = html_end;
	w->release = html_release;
	if (!h->rows || !h->parts || (w->path && !h->base)) {
		html_release(w);
		return -1;
	}
	return 0;
}
