/*
 * agents/audit_text.c - the JSONL and text reports of `locus audit
 * transcripts` (docs/audit.md).
 *
 * JSONL: one {"type":"call"} object per judged call (au_row_json), one
 * {"type":"file"} per transcript read (its counts, the first unknown or
 * malformed line), and a last {"type":"summary"}.
 * Text: the held and denied calls (every call with --all), one line each,
 * the files with unreadable lines, and the summary in a few lines.
 */
#include <stdlib.h>
#include <string.h>

#include "audit_report.h"
#include "cli/cli.h"

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
	if (f->problem_line) {
		cJSON *p = cJSON_AddObjectToObject(o, "first_problem");
		cJSON_AddNumberToObject(p, "line", (double)f->problem_line);
		cJSON_AddStringToObject(p, "what", f->problem);
	}
	return o;
}

int au_write_jsonl(const au_report *rep, FILE *out)
{
	for (size_t i = 0; i < rep->n; i++)
		if (cli_print_json(out, au_row_json(&rep->rows[i]), false))
			return -1;
	for (size_t i = 0; i < rep->set->nfiles; i++)
		if (cli_print_json(out, au_file_json(&rep->set->files[i]),
		                   false))
			return -1;
	return cli_print_json(out, au_summary(rep), false);
}

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

int au_write_text(const au_report *rep, FILE *out, bool all)
{
	static const char *const shout[] = {"allow", "HOLD", "DENY"};
	for (size_t i = 0; i < rep->n; i++) {
		const au_row *r = &rep->rows[i];
		if (!all && r->outcome == LOCUS_OUTCOME_ALLOW && !r->dangerous)
			continue;
		const char *oc =
		    r->outcome == LOCUS_OUTCOME_ALLOW && r->dangerous
		        ? "ALLOW!"
		        : shout[r->outcome];
		fprintf(out, "%s:%ld: %-6s %s ", r->file, r->call->line, oc,
		        r->call->tool);
		one_line(out, r->call->text, 160);
		fprintf(out, "\n    %s [%s]%s%s%s\n", r->reason, r->family,
		        r->rule ? " (rule " : "", r->rule ? r->rule : "",
		        r->rule ? ")" : "");
	}
	for (size_t i = 0; i < rep->set->nfiles; i++) {
		const tr_file *f = &rep->set->files[i];
		if (f->problem_line)
			fprintf(out,
			        "%s: %ld unknown, %ld malformed lines (first, "
			        "line %ld: %s)\n",
			        f->path, f->unknown, f->malformed,
			        f->problem_line, f->problem);
	}
	cJSON *s = au_summary(rep);
	if (!s)
		return -1;
	const cJSON *oc = cJSON_GetObjectItemCaseSensitive(s, "outcomes");
	fprintf(out,
	        "%ld calls in %ld files (%ld lines, %ld unknown, %ld "
	        "malformed) under %s: %ld allowed, %ld held for a human, %ld "
	        "denied; %ld dangerous calls allowed\n",
	        num(s, "calls"), num(s, "files"), num(s, "lines"),
	        num(s, "unknown_lines"), num(s, "malformed_lines"),
	        rep->policy_name, num(oc, "allow"), num(oc, "require_human"),
	        num(oc, "deny"), num(s, "dangerous_allowed"));
	print_counts(out, "agents",
	             cJSON_GetObjectItemCaseSensitive(s, "agents"));
	print_counts(out, "kinds",
	             cJSON_GetObjectItemCaseSensitive(s, "kinds"));
	print_counts(out, "tags", cJSON_GetObjectItemCaseSensitive(s, "tags"));
	cJSON_Delete(s);
	return ferror(out) ? -1 : 0;
}
