/*
 * agents/audit_html.c - the HTML report of `locus audit transcripts`: one
 * self-contained page (agents/audit_report.html, built in; inline CSS, JS and
 * SVG, a Content-Security-Policy that forbids every fetch) with the
 * report's data as one JSON block: {"summary", "rows", "files"}, the same
 * objects as the JSONL records.  The page draws the summary, the
 * timelines, the filtered table and each command's see-through tree.
 */
#include <string.h>

#include "audit_report.h"

extern const char cli_report_html[];

#define DATA_MARK "/*LOCUS_DATA*/"

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

int au_write_html(const au_report *rep, FILE *out)
{
	const char *mark = strstr(cli_report_html, DATA_MARK);
	cJSON *data = cJSON_CreateObject();
	cJSON *rows = cJSON_AddArrayToObject(data, "rows");
	cJSON *files = cJSON_AddArrayToObject(data, "files");
	cJSON *sum = au_summary(rep);
	if (!mark || !rows || !files || !sum) {
		cJSON_Delete(sum);
		cJSON_Delete(data);
		return -1;
	}
	cJSON_AddItemToObject(data, "summary", sum);
	for (size_t i = 0; i < rep->n; i++)
		cJSON_AddItemToArray(rows, au_row_json(&rep->rows[i]));
	for (size_t i = 0; i < rep->set->nfiles; i++)
		cJSON_AddItemToArray(files, au_file_json(&rep->set->files[i]));
	char *json = cJSON_PrintUnformatted(data);
	cJSON_Delete(data);
	if (!json)
		return -1;
	int rc = fwrite(cli_report_html, 1, (size_t)(mark - cli_report_html),
	                out) == (size_t)(mark - cli_report_html)
	             ? put_json(json, out)
	             : -1;
	cJSON_free(json);
	if (!rc && fputs(mark + strlen(DATA_MARK), out) == EOF)
		rc = -1;
	return rc;
}
