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
#include "transcript.h"

/* One call and what locus decided on it.  Strings are malloc'd. */
typedef struct au_row {
	const tr_call *call;
	const char *file; /* the transcript's path (borrowed) */
	locus_outcome outcome;
	bool gate_error; /* the gate refused the arguments: deny */
	char *reason;
	char *kind;  /* "workspace.exec"... */
	char **tags; /* the Action's tags, sorted */
	size_t ntags;
	char *verdict, *rule; /* permission verdict and rule, or NULL */
	char *commands;       /* bash: locus_action_json with commands */
	const char *family;   /* the most telling tag, or "other" */
	bool dangerous;       /* a tag that warrants a look */
	bool waived;          /* an allow rule waived a hold */
} au_row;

typedef struct au_report {
	au_row *rows;
	size_t n;
	const tr_set *set;
	const char *policy_name; /* "preset standard", a file name... */
	long unknown, malformed, lines, files;
} au_report;

/* Judge one call with locus_gate() (0, or -1 out of memory). */
int au_judge(au_row *row, const locus_policy *policy,
             locus_shell_parser *parser, const tr_call *call, const char *file);
void au_row_free(au_row *row);

/* ISO 8601 date or time (Z or +HH:MM; no zone is UTC) to seconds since
   the epoch.  0 or -1. */
int cli_parse_time(const char *s, double *out);

/* The most telling tag of a row ("exec:never" first), or "other". */
const char *au_family(char *const *tags, size_t ntags);
/* True for tags that mean harm is possible (danger tags, new tags). */
bool au_dangerous(char *const *tags, size_t ntags);

/* One object per call, then one per file, then the summary. */
int au_write_jsonl(const au_report *rep, FILE *out);
/* One line per held or denied call (all with `all`), then the summary. */
int au_write_text(const au_report *rep, FILE *out, bool all);
int au_write_sarif(const au_report *rep, FILE *out);
int au_write_html(const au_report *rep, FILE *out);

/* The summary object (counts by outcome, kind, tag, agent, session). */
cJSON *au_summary(const au_report *rep);
/* The {"type":"file"} object of one transcript. */
cJSON *au_file_json(const tr_file *f);
/* The JSON object of one row (the JSONL line). */
cJSON *au_row_json(const au_row *row);

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
