/*
 * agents/audit_text.c - the reports of `locus audit transcripts` written
 * as the calls are judged, file by file (docs/audit.md): the running
 * totals (the summary), the JSONL and text writers, and the result names
 * (agents/audit_writer.c picks a format; SARIF is agents/sarif.c, HTML
 * agents/audit_html.c).  Nothing here keeps a row: memory is bounded by
 * the totals (counts per kind, tag, agent, session) and the writers' caps,
 * not by the input.
 */
#include <stdlib.h>
#include <string.h>

#include "audit_report.h"
#include "../util/json.h"

/* ---- statuses ---- */

const char *au_status_name(const char *status)
{
	if (!status)
		return "no result";
	if (!strcmp(status, "ok"))
		return "ran";
	if (!strcmp(status, "error"))
		return "failed";
	if (!strcmp(status, "cancelled"))
		return "declined";
	return status;
}

/* ---- totals ---- */

static void inc(cJSON *obj, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (v)
		cJSON_SetNumberValue(v, v->valuedouble + 1);
	else
		cJSON_AddNumberToObject(obj, key, 1);
}

int au_totals_init(au_totals *t, const char *policy_name)
{
	memset(t, 0, sizeof *t);
	t->policy_name = policy_name;
	t->outcomes = cJSON_CreateObject();
	t->kinds = cJSON_CreateObject();
	t->tags = cJSON_CreateObject();
	t->agents = cJSON_CreateObject();
	t->statuses = cJSON_CreateObject();
	t->sessions = cJSON_CreateArray();
	t->files_json = cJSON_CreateArray();
	if (!t->outcomes || !t->kinds || !t->tags || !t->agents ||
	    !t->statuses || !t->sessions || !t->files_json) {
		au_totals_free(t);
		return -1;
	}
	cJSON_AddNumberToObject(t->outcomes, "allow", 0);
	cJSON_AddNumberToObject(t->outcomes, "require_human", 0);
	cJSON_AddNumberToObject(t->outcomes, "deny", 0);
	return 0;
}

void au_totals_free(au_totals *t)
{
	cJSON_Delete(t->outcomes);
	cJSON_Delete(t->kinds);
	cJSON_Delete(t->tags);
	cJSON_Delete(t->agents);
	cJSON_Delete(t->statuses);
	cJSON_Delete(t->sessions);
	cJSON_Delete(t->files_json);
	memset(t, 0, sizeof *t);
}

/* The per-session entry (sessions kept in first-seen order; a transcript
   without a session id is its own session).  The last one found is
   remembered: a file's calls are one session, mostly. */
static cJSON *session_entry(au_totals *t, const au_row *r)
{
	const char *id = r->call->session ? r->call->session : r->file;
	if (t->last_session && !strcmp(tr_str(t->last_session, "session"), id))
		return t->last_session;
	for (cJSON *s = t->sessions->child; s; s = s->next)
		if (!strcmp(tr_str(s, "session"), id))
			return t->last_session = s;
	cJSON *s = cJSON_CreateObject();
	if (!s)
		return NULL;
	cJSON_AddStringToObject(s, "session", id);
	cJSON_AddStringToObject(s, "agent", tr_agent_name(r->call->agent));
	cJSON_AddStringToObject(s, "file", r->file);
	cJSON_AddNumberToObject(s, "calls", 0);
	cJSON_AddNumberToObject(s, "require_human", 0);
	cJSON_AddNumberToObject(s, "deny", 0);
	cJSON_AddItemToArray(t->sessions, s);
	return t->last_session = s;
}

void au_totals_add(au_totals *t, const au_row *r)
{
	const char *on = locus_outcome_name(r->j.outcome);
	t->calls++;
	inc(t->outcomes, on);
	inc(t->kinds, r->j.kind[0] ? r->j.kind : "none");
	for (size_t i = 0; i < r->j.ntags; i++)
		inc(t->tags, r->j.tags[i]);
	inc(t->agents, tr_agent_name(r->call->agent));
	inc(t->statuses, au_status_name(r->call->status));
	cJSON *s = session_entry(t, r);
	if (s) {
		inc(s, "calls");
		if (r->j.outcome != LOCUS_OUTCOME_ALLOW)
			inc(s, on);
	}
	t->dangerous_allowed +=
	    r->j.dangerous && r->j.outcome == LOCUS_OUTCOME_ALLOW;
	if (r->j.dangerous && r->j.outcome == LOCUS_OUTCOME_ALLOW &&
	    r->call->status && !strcmp(r->call->status, "ok"))
		t->dangerous_ran++;
}

void au_totals_file(au_totals *t, const tr_file *f)
{
	t->files++;
	t->lines += f->lines;
	t->unknown += f->unknown;
	t->malformed += f->malformed;
	t->unreadable += f->unreadable != 0;
	cJSON *o = au_file_json(f);
	if (o)
		cJSON_AddItemToArray(t->files_json, o);
}

cJSON *au_summary(const au_totals *t)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "type", "summary");
	cJSON_AddStringToObject(o, "policy", t->policy_name);
	cJSON_AddNumberToObject(o, "files", (double)t->files);
	cJSON_AddNumberToObject(o, "lines", (double)t->lines);
	cJSON_AddNumberToObject(o, "unknown_lines", (double)t->unknown);
	cJSON_AddNumberToObject(o, "malformed_lines", (double)t->malformed);
	cJSON_AddNumberToObject(o, "unreadable_files", (double)t->unreadable);
	cJSON_AddNumberToObject(o, "calls", (double)t->calls);
	cJSON_AddItemToObject(o, "outcomes", cJSON_Duplicate(t->outcomes, 1));
	cJSON_AddItemToObject(o, "kinds", cJSON_Duplicate(t->kinds, 1));
	cJSON_AddItemToObject(o, "tags", cJSON_Duplicate(t->tags, 1));
	cJSON_AddItemToObject(o, "agents", cJSON_Duplicate(t->agents, 1));
	cJSON_AddItemToObject(o, "statuses", cJSON_Duplicate(t->statuses, 1));
	cJSON_AddItemToObject(o, "sessions", cJSON_Duplicate(t->sessions, 1));
	cJSON_AddNumberToObject(o, "dangerous_allowed",
	                        (double)t->dangerous_allowed);
	cJSON_AddNumberToObject(o, "dangerous_allowed_ran",
	                        (double)t->dangerous_ran);
	return o;
}

cJSON *au_file_json(const tr_file *f)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "type", "file");
	cJSON_AddStringToObject(o, "file", f->path);
	cJSON_AddStringToObject(o, "agent", tr_agent_name(f->agent));
	cJSON_AddNumberToObject(o, "lines", (double)f->lines);
	cJSON_AddNumberToObject(o, "records", (double)f->records);
	cJSON_AddNumberToObject(o, "calls", (double)f->calls);
	cJSON_AddNumberToObject(o, "unknown_lines", (double)f->unknown);
	cJSON_AddNumberToObject(o, "malformed_lines", (double)f->malformed);
	if (f->unreadable)
		cJSON_AddStringToObject(o, "unreadable", f->problem);
	if (f->problem_line) {
		cJSON *p = cJSON_AddObjectToObject(o, "first_problem");
		cJSON_AddNumberToObject(p, "line", (double)f->problem_line);
		cJSON_AddStringToObject(p, "what", f->problem);
	}
	return o;
}

/* ---- JSONL ---- */

static int jsonl_row(au_writer *w, const au_row *r)
{
	return lu_json_write(w->out, au_row_json(r), false);
}

static int jsonl_end(au_writer *w, const au_totals *t)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, t->files_json)
	{
		if (lu_json_write(w->out, cJSON_Duplicate(f, 1), false))
			return -1;
	}
	return lu_json_write(w->out, au_summary(t), false);
}

/* ---- text ---- */

/* A command on one line: control characters shown as spaces, cut at
   `max` bytes (on a UTF-8 boundary). */
static void one_line(FILE *out, const char *s, size_t max)
{
	size_t n = strlen(s);
	bool cut = n > max;
	if (cut) {
		n = max;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	for (size_t i = 0; i < n; i++)
		fputc((unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i],
		      out);
	if (cut)
		fputs("...", out);
}

static int text_row(au_writer *w, const au_row *r)
{
	static const char *const shout[] = {"allow", "HOLD", "DENY"};
	if (!w->all && r->j.outcome == LOCUS_OUTCOME_ALLOW && !r->j.dangerous)
		return 0;
	const char *oc = r->j.outcome == LOCUS_OUTCOME_ALLOW && r->j.dangerous
	                     ? "ALLOW!"
	                     : shout[r->j.outcome];
	fprintf(w->out, "%s:%ld: %-6s %-9s %s ", r->file, r->call->line, oc,
	        au_status_name(r->call->status), r->call->tool);
	one_line(w->out, r->call->text, 160);
	fprintf(w->out, "\n    %s [%s]%s%s%s\n", r->j.reason, r->j.family,
	        r->j.rule ? " (rule " : "", r->j.rule ? r->j.rule : "",
	        r->j.rule ? ")" : "");
	return ferror(w->out) ? -1 : 0;
}

static long num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? (long)v->valuedouble : 0;
}

static void print_counts(FILE *out, const char *title, const cJSON *obj)
{
	fprintf(out, "%s:", title);
	for (const cJSON *c = obj ? obj->child : NULL; c; c = c->next)
		fprintf(out, " %s %ld%s", c->string, (long)c->valuedouble,
		        c->next ? "," : "");
	fputc('\n', out);
}

static int text_end(au_writer *w, const au_totals *t)
{
	FILE *out = w->out;
	const cJSON *f;
	cJSON_ArrayForEach(f, t->files_json)
	{
		const char *un = tr_str(f, "unreadable");
		const cJSON *p =
		    cJSON_GetObjectItemCaseSensitive(f, "first_problem");
		if (un)
			fprintf(out, "%s: NOT READ: %s\n", tr_str(f, "file"),
			        un);
		else if (p)
			fprintf(out,
			        "%s: %ld unknown, %ld malformed lines (first, "
			        "line %ld: %s)\n",
			        tr_str(f, "file"), num(f, "unknown_lines"),
			        num(f, "malformed_lines"), num(p, "line"),
			        tr_str(p, "what"));
	}
	fprintf(out,
	        "%ld calls in %ld files (%ld lines, %ld unknown, %ld "
	        "malformed) under %s: %ld allowed, %ld held for a human, %ld "
	        "denied; %ld dangerous calls allowed (%ld of them ran)\n",
	        t->calls, t->files, t->lines, t->unknown, t->malformed,
	        t->policy_name, num(t->outcomes, "allow"),
	        num(t->outcomes, "require_human"), num(t->outcomes, "deny"),
	        t->dangerous_allowed, t->dangerous_ran);
	if (t->unreadable)
		fprintf(out, "%ld files NOT READ (listed above)\n",
		        t->unreadable);
	print_counts(out, "agents", t->agents);
	print_counts(out, "results", t->statuses);
	print_counts(out, "kinds", t->kinds);
	print_counts(out, "tags", t->tags);
	return ferror(out) ? -1 : 0;
}

/* ---- set-up (agents/audit_writer.c picks the format) ---- */

int au_jsonl_begin(au_writer *w)
{
	w->row = jsonl_row;
	w->end = jsonl_end;
	return 0;
}

int au_text_begin(au_writer *w)
{
	w->row = text_row;
	w->end = text_end;
	return 0;
}
