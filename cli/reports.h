/*
 * cli/reports.h - `--format NAME [-o FILE]`, repeatable: the reports of
 * `locus audit transcripts` and `locus policy fuzz`.
 *
 * Each --format adds a report; an -o FILE right after it sends that report
 * to FILE instead of stdout.  At most one report goes to stdout; with no
 * --format there is one, in the default format, on stdout.
 */
#ifndef LOCUS_CLI_REPORTS_H
#define LOCUS_CLI_REPORTS_H

#include <stddef.h>
#include <stdio.h>

#define CLI_MAX_REPORTS 8

typedef struct cli_reports {
	const char *cmd;            /* "audit", "policy fuzz": for messages */
	const char *const *formats; /* the formats, NULL-terminated */
	size_t def;                 /* the default's index in formats */
	struct {
		size_t format;    /* index in formats */
		const char *path; /* NULL: stdout */
	} out[CLI_MAX_REPORTS];
	size_t n;
} cli_reports;

/* --format NAME: 0, or 2 after the message (an unknown format, too many). */
int cli_reports_format(cli_reports *r, const char *name);
/* -o FILE: 0, or 2 after the message (no --format before it to take it). */
int cli_reports_path(cli_reports *r, const char *path);
/* After the options: the default report when none was asked for; 0, or 2
   after the message when two reports would go to stdout. */
int cli_reports_finish(cli_reports *r);

/* Write report `format` (an index in formats) to f: 0, or -1. */
typedef int cli_report_fn(size_t format, FILE *f, void *arg);

/* Write every report with `write`, each file opened, flushed and closed
   here: 0, or 2 when one could not be written (each failure said on
   stderr; the others are still written). */
int cli_reports_write(const cli_reports *r, cli_report_fn *write, void *arg);

#endif
