/*
 * cli/reports.c - `--format NAME [-o FILE]` reports (see reports.h).
 */
#include "reports.h"

#include <errno.h>
#include <string.h>

int cli_reports_format(cli_reports *r, const char *name)
{
	size_t k = 0;
	while (r->formats[k] && strcmp(r->formats[k], name))
		k++;
	if (!r->formats[k]) {
		fprintf(stderr, "locus %s: unknown format '%s' (", r->cmd,
		        name);
		for (size_t i = 0; r->formats[i]; i++)
			fprintf(stderr, "%s%s", i ? ", " : "", r->formats[i]);
		fputs(")\n", stderr);
		return 2;
	}
	if (r->n == CLI_MAX_REPORTS) {
		fprintf(stderr, "locus %s: too many --format\n", r->cmd);
		return 2;
	}
	r->out[r->n].format = k;
	r->out[r->n++].path = NULL;
	return 0;
}

int cli_reports_path(cli_reports *r, const char *path)
{
	if (!r->n || r->out[r->n - 1].path) {
		fprintf(stderr,
		        "locus %s: -o FILE follows the --format it is for\n",
		        r->cmd);
		return 2;
	}
	r->out[r->n - 1].path = path;
	return 0;
}

int cli_reports_finish(cli_reports *r)
{
	if (!r->n) {
		r->out[0].format = r->def;
		r->out[r->n++].path = NULL;
	}
	int to_stdout = 0;
	for (size_t i = 0; i < r->n; i++)
		to_stdout += !r->out[i].path;
	if (to_stdout > 1) {
		fprintf(stderr,
		        "locus %s: only one format can go to stdout; give the "
		        "others -o FILE\n",
		        r->cmd);
		return 2;
	}
	return 0;
}

int cli_reports_write(const cli_reports *r, cli_report_fn *write, void *arg)
{
	int status = 0;
	for (size_t i = 0; i < r->n; i++) {
		const char *path = r->out[i].path;
		FILE *f = path ? fopen(path, "w") : stdout;
		if (!f) {
			fprintf(stderr, "locus %s: %s: %s\n", r->cmd, path,
			        strerror(errno));
			status = 2;
			continue;
		}
		int rc = write(r->out[i].format, f, arg);
		if (fflush(f) || ferror(f))
			rc = -1;
		if (path && fclose(f))
			rc = -1;
		if (rc) {
			fprintf(stderr,
			        "locus %s: cannot write the %s report\n",
			        r->cmd, r->formats[r->out[i].format]);
			status = 2;
		}
	}
	return status;
}
