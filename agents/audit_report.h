/*
 * agents/audit_report.h - judged tool calls and the report writers of `locus
 * audit transcripts` (docs/audit.md): JSONL and text (audit_text.c), SARIF
 * 2.1.0 (sarif.c, also used by `locus policy fuzz`), HTML (audit_html.c).
 */
#ifndef LOCUS_CLI_AUDIT_REPORT_H
#define LOCUS_CLI_AUDIT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "locus/policy.h"
#include "policy/judge.h"
#include "transcript.h"

/* One call, where it was found, and what locus decided on it. */
typedef struct au_row {
	const tr_call *call;
	const char *file; /* the transcript's path (borrowed) */
	const char *root; /* the folder it was found under, or NULL */
	pl_judged j;      /* the decision (policy/judge.h) */
} au_row;

/* The running totals of an audit: the summary, built call by call
   (agents/audit_text.c). */
typedef struct au_totals {
	const char *policy_name; /* "preset standard", a file name... */
	long files, lines, unknown, malformed, unreadable;
	long calls, dangerous_allowed, dangerous_ran;
	cJSON *outcomes, *kinds, *tags, *agents, *statuses, *sessions;
	cJSON *files_json; /* the {"type":"file"} objects */
	cJSON *last_session;
} au_totals;

int au_totals_init(au_totals *t, const char *policy_name);
void au_totals_add(au_totals *t, const au_row *r);
void au_totals_file(au_totals *t, const tr_file *f);
void au_totals_free(au_totals *t);

/* Judge one call with locus_gate() (pl_judge; 0, or -1 out of memory). */
int au_judge(au_row *row, const locus_policy *policy,
             locus_shell_parser *parser, const tr_call *call, const char *file);
void au_row_free(au_row *row);


/* What a call's result says: "ran", "failed", "declined", "no result". */
const char *au_status_name(const char *status);

/* The summary object (counts by outcome, kind, tag, agent, result,
   session). */
cJSON *au_summary(const au_totals *t);
/* The {"type":"file"} object of one transcript. */
cJSON *au_file_json(const tr_file *f);
/* The JSON object of one row (the JSONL line). */
cJSON *au_row_json(const au_row *row);

/*
 * One report, written as the rows come (agents/audit_writer.c): JSONL and
 * text (agents/audit_text.c), SARIF (agents/sarif.c), HTML (agents/audit_html.c).  `path` is
 * the report's -o FILE or NULL (stdout); the HTML report writes the full
 * table into files beside it.
 */
typedef struct au_writer au_writer;
struct au_writer {
	FILE *out;
	const char *path;
	bool all, failed;
	int (*row)(au_writer *w, const au_row *r);
	int (*end)(au_writer *w, const au_totals *t);
	int (*file)(au_writer *w, const tr_file *f); /* optional: a file done */
	void (*release)(au_writer *w);
	void *state; /* the format's own */
};
au_writer *au_writer_new(const char *format, FILE *out, const char *path,
                         bool all);
int au_writer_row(au_writer *w, const au_row *r);
/* A transcript read to its end (after its rows). */
int au_writer_file(au_writer *w, const tr_file *f);
/* The trailer (summary, files, rules...); 0 or -1. */
int au_writer_end(au_writer *w, const au_totals *t);
void au_writer_free(au_writer *w);
/* Each format's set-up (it fills row/end and maybe file/release): 0 or
   -1.  au_writer_new (agents/audit_writer.c) picks one by name. */
int au_jsonl_begin(au_writer *w);
int au_text_begin(au_writer *w);
int au_sarif_begin(au_writer *w);
int au_html_begin(au_writer *w);

/* ---- SARIF, shared with `locus policy fuzz` (agents/sarif.c) ---- */

typedef struct sarif_doc sarif_doc;

/* A SARIF log with one run of the locus driver.  NULL when out of memory. */
sarif_doc *sarif_new(void);
/*
 * Add a result.  `rule_id` is "<outcome>/<tag>" (e.g. "deny/exec:never",
 * "allow/exec:destructive"); its rule is added on first use with help from
 * docs/tags.md.  `uri` is a path (made a relative or file:// URI here;
 * NULL: no location),
 * `line` 1-based (0: no region).  `props` (may be NULL) is taken over.
 */
int sarif_add(sarif_doc *d, const char *rule_id, const char *level,
              const char *message, const char *uri, long line, cJSON *props);
/* A notification of the run (an unreadable line, a skipped file). */
int sarif_note(sarif_doc *d, const char *level, const char *message,
               const char *uri, long line);
/* Print and free. */
int sarif_write(sarif_doc *d, FILE *out);
void sarif_free(sarif_doc *d);

/* "error" for deny, "warning" for require_human, "note" for allow. */
const char *sarif_level(locus_outcome outcome);

/* docs/tags.md, built in (cli/meson.build), and one tag's section of it:
   its heading after "### " and its text; false when undocumented. */
extern const char cli_tags_md[];
bool cli_tag_help(const char *tag, char *title, size_t tcap, char **body);

#endif
