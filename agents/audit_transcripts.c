/*
 * agents/audit_transcripts.c - `locus audit transcripts`: judge every tool
 * call of agents' session logs under a policy (docs/audit.md).
 *
 *   locus audit transcripts [--policy FILE | --preset NAME]
 *       [--claude-settings FILE]... [--since TIME] [--project DIR]
 *       [--format jsonl|sarif|html|text [-o FILE]]... [--all] [--quiet]
 *       [--jobs N] [PATH...]
 *
 * PATHs are files or folders (searched for *.jsonl and *.json); none means
 * the agents' own folders (~/.claude/projects, ~/.codex/sessions,
 * ~/.gemini/tmp) that exist.  Each call goes through locus_gate() exactly
 * as the hook would have sent it; a call whose arguments the gate refuses
 * is reported as denied (the hook fails closed the same way).  Unknown and
 * malformed lines are counted per file and reported, never fatal.  With
 * --jobs N the calls are judged on N threads, one parser each, into rows
 * kept in the calls' order: the reports are the same bytes.
 *
 * Exit status: 0 when the report was written; 2 for a usage error, a bad
 * policy, a PATH that cannot be read or an output that cannot be written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include "audit_report.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/parallel.h"
#include "cli/policy_cli.h"
#include "cli/reports.h"
#include "../util/sha256.h"

typedef struct au_opts {
	const char *policy, *preset, *project;
	const char *claude[16];
	size_t nclaude;
	bool has_since, all, quiet;
	size_t jobs;
	double since;
	cli_reports out; /* --format, -o */
	const char **paths;
	size_t npaths;
} au_opts;

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: locus audit transcripts [--policy FILE | --preset NAME]\n"
	    "         [--claude-settings FILE]... [--since TIME] [--project "
	    "DIR]\n"
	    "         [--format jsonl|sarif|html|text [-o FILE]]... [--all]\n"
	    "         [--quiet] [--jobs N] [PATH...]\n"
	    "judges every tool call in Claude Code, Codex CLI and Gemini CLI\n"
	    "session logs; TIME is ISO 8601 (2026-11-30 or "
	    "2026-11-30T12:00:00Z)\n");
}

/* ---- time ---- */

int cli_parse_time(const char *s, double *out)
{
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	int y, mo, d, h = 0, mi = 0, n = 0;
	double sec = 0;
	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
		return -1;
	const char *p = s + n;
	if (*p == 'T' || *p == ' ') {
		int m = 0;
		if (sscanf(p + 1, "%2d:%2d%n", &h, &mi, &m) != 2 || m != 5)
			return -1;
		p += 1 + m;
		if (*p == ':') {
			char *end;
			sec = strtod(p + 1, &end);
			if (end == p + 1)
				return -1;
			p = end;
		}
	}
	double off = 0;
	if (*p == 'Z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int oh, om, m = 0;
		if (sscanf(p + 1, "%2d:%2d%n", &oh, &om, &m) != 2 || m != 5)
			return -1;
		off = (oh * 3600 + om * 60) * (*p == '-' ? -1 : 1);
		p += 1 + m;
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    sec < 0 || sec >= 61)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	*out = (double)timegm(&tm) + sec - off;
	return 0;
}

/* ---- options ---- */

/* The report formats, in the order the messages list them. */
enum { AU_JSONL, AU_SARIF, AU_HTML, AU_TEXT };
static const char *const au_formats[] = {"jsonl", "sarif", "html", "text",
                                         NULL};

static int parse_opts(au_opts *o, int argc, char **argv)
{
	o->out = (cli_reports){
	    .cmd = "audit", .formats = au_formats, .def = AU_TEXT};
	/* clang-format off */
	const cli_opt opts[] = {
	    CLI_OPT_FLAG("--all", &o->all),           CLI_OPT_FLAG("--quiet", &o->quiet),
	    CLI_OPT_VALUE("--policy", &o->policy),     CLI_OPT_VALUE("--preset", &o->preset),
	    CLI_OPT_VALUE("--project", &o->project),
	};
	/* clang-format on */
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		cli_opt_result t = CLI_OPT_TAKE(opts, argc, argv, &i);
		if (t == CLI_OPT_TAKEN)
			continue;
		if (t == CLI_OPT_NO_VALUE)
			return cli_opt_unknown("audit", a, usage);
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 1;
		} else if (!strcmp(a, "--jobs") && v) {
			if (!cli_parse_jobs("audit", v, &o->jobs))
				return 2;
			i++;
		} else if (!strcmp(a, "--format") && v) {
			if (cli_reports_format(&o->out, v))
				return 2;
			i++;
		} else if (!strcmp(a, "-o") && v) {
			if (cli_reports_path(&o->out, v))
				return 2;
			i++;
		} else if (!strcmp(a, "--since") && v) {
			if (cli_parse_time(v, &o->since)) {
				fprintf(stderr,
				        "locus audit: --since '%s' is not an "
				        "ISO 8601 date or time\n",
				        v);
				return 2;
			}
			o->has_since = true;
			i++;
		} else if (!strcmp(a, "--claude-settings") && v) {
			if (o->nclaude ==
			    sizeof o->claude / sizeof o->claude[0]) {
				fprintf(stderr, "locus audit: too many "
				                "--claude-settings\n");
				return 2;
			}
			o->claude[o->nclaude++] = v;
			i++;
		} else if (a[0] == '-' && a[1]) {
			return cli_opt_unknown("audit", a, usage);
		} else {
			o->paths[o->npaths++] = a;
		}
	}
	return cli_reports_finish(&o->out);
}

/* ---- filters ---- */

static bool in_project(const au_opts *o, const tr_set *s, const tr_call *c,
                       const char *hash)
{
	if (!o->project)
		return true;
	const tr_file *f = &s->files[c->file];
	if (f->project && !strcmp(f->project, hash))
		return true;
	if (!c->cwd)
		return false;
	size_t n = strlen(o->project);
	while (n > 1 && o->project[n - 1] == '/')
		n--;
	return !strncmp(c->cwd, o->project, n) &&
	       (c->cwd[n] == '\0' || c->cwd[n] == '/');
}

static bool in_time(const au_opts *o, const tr_call *c)
{
	double t;
	if (!o->has_since || !c->time || cli_parse_time(c->time, &t))
		return true; /* a call of unknown time is kept */
	return t >= o->since;
}

/*
 * Gemini records only the SHA-256 of the project root.  A folder above an
 * absolute path the session's calls name whose hash is that projectHash is
 * the root (exact: the hash decides), used as the calls' working folder so
 * workspace paths are judged inside the workspace.
 */
static void gemini_roots(tr_set *s, const au_opts *o)
{
	static const char *const keys[] = {"file_path", "absolute_path",
	                                   "dir_path",  "path",
	                                   "directory", NULL};
	for (size_t fi = 0; fi < s->nfiles; fi++) {
		tr_file *f = &s->files[fi];
		if (f->agent != TR_GEMINI || !f->project)
			continue;
		char root[4096] = "", hash[65];
		if (o->project) {
			lu_sha256_hex(o->project, strlen(o->project), hash);
			if (!strcmp(hash, f->project))
				snprintf(root, sizeof root, "%s", o->project);
		}
		for (size_t i = 0; !root[0] && i < s->ncalls; i++) {
			if (s->calls[i].file != fi)
				continue;
			/* args are ours (printed by the reader) or, for a
			   call whose arguments were not an object, as written:
			   read as the gate reads them */
			cJSON *a = tr_object(s->calls[i].args);
			for (size_t k = 0; keys[k] && !root[0]; k++) {
				const char *v = tr_str(a, keys[k]);
				if (!v || v[0] != '/' ||
				    strlen(v) >= sizeof root)
					continue;
				char dir[4096];
				snprintf(dir, sizeof dir, "%s", v);
				/* the path itself (a dir_path may be the root), then
				   each folder above it */
				size_t n = strlen(dir);
				while (n > 1 && !root[0]) {
					dir[n] = '\0';
					lu_sha256_hex(dir, strlen(dir), hash);
					if (!strcmp(hash, f->project))
						snprintf(root, sizeof root,
						         "%s", dir);
					while (n > 1 && dir[n - 1] != '/')
						n--;
					if (n > 1)
						n--; /* drop the '/' too */
				}
			}
			cJSON_Delete(a);
		}
		for (size_t i = 0; root[0] && i < s->ncalls; i++)
			if (s->calls[i].file == fi && !s->calls[i].cwd)
				s->calls[i].cwd = strdup(root);
	}
}

/* ---- judging ---- */

static void progress(const au_opts *o, size_t i, size_t n)
{
	if (o->quiet || n < 200 || !isatty(2))
		return;
	if (i % 64 && i != n)
		return;
	int w = 40, done = (int)(w * i / n);
	fprintf(stderr, "\rlocus audit: [%.*s%*s] %zu/%zu calls", done,
	        "########################################", w - done, "", i, n);
	if (i == n)
		fputc('\n', stderr);
}

/* --jobs: the calls to judge, each into its own row. */
typedef struct judge_job {
	const locus_policy *policy;
	const tr_set *set;
	const size_t *calls; /* indexes into set->calls */
	au_row *rows;
	bool *ok;
} judge_job;

static void judge_one(void *state, size_t i, void *arg)
{
	judge_job *j = arg;
	const tr_call *c = &j->set->calls[j->calls[i]];
	j->ok[i] = au_judge(&j->rows[i], j->policy, state, c,
	                    j->set->files[c->file].path) == 0;
}

/* The selected calls judged on o->jobs threads, the rows that came out
   moved down in order into rep->rows.  -1 when out of memory. */
static int judge_parallel(const au_opts *o, locus_policy *policy,
                          const tr_set *set, const char *hash, au_report *rep)
{
	size_t *sel = malloc((set->ncalls ? set->ncalls : 1) * sizeof *sel);
	bool *ok = calloc(set->ncalls ? set->ncalls : 1, sizeof *ok);
	size_t n = 0;
	for (size_t i = 0; sel && i < set->ncalls; i++)
		if (in_time(o, &set->calls[i]) &&
		    in_project(o, set, &set->calls[i], hash))
			sel[n++] = i;
	judge_job j = {policy, set, sel, rep->rows, ok};
	cli_parallel p = {o->jobs, cli_parallel_parser_new,
	                  cli_parallel_parser_free, judge_one, &j};
	int rc = sel && ok ? cli_parallel_run(&p, 0, n) : -1;
	for (size_t i = 0; i < n; i++) {
		if (!ok[i])
			continue;
		if (rc)
			au_row_free(&rep->rows[i]);
		else
			rep->rows[rep->n++] = rep->rows[i];
	}
	free(sel);
	free(ok);
	return rc;
}

typedef struct au_written {
	const au_report *rep;
	bool all; /* --all: the text report lists allowed calls too */
} au_written;

/* One report (cli_report_fn over the judged calls). */
static int write_report(size_t format, FILE *f, void *arg)
{
	const au_written *w = arg;
	switch (format) {
	case AU_JSONL: return au_write_jsonl(w->rep, f);
	case AU_SARIF: return au_write_sarif(w->rep, f);
	case AU_HTML: return au_write_html(w->rep, f);
	default: return au_write_text(w->rep, f, w->all);
	}
}

static int run(const au_opts *o, locus_policy *policy, const char *pname)
{
	tr_set set = {0};
	int status = 0;
	for (size_t i = 0; i < o->npaths; i++)
		if (tr_read_path(&set, o->paths[i])) {
			fprintf(stderr, "locus audit: %s: %s\n", o->paths[i],
			        strerror(errno));
			status = 2;
		}
	if (set.oom) {
		fprintf(stderr, "locus audit: out of memory\n");
		tr_set_free(&set);
		return 2;
	}
	char hash[65] = "";
	if (o->project)
		lu_sha256_hex(o->project, strlen(o->project), hash);
	gemini_roots(&set, o);
	au_report rep = {
	    .set = &set, .policy_name = pname, .files = (long)set.nfiles};
	rep.rows = calloc(set.ncalls ? set.ncalls : 1, sizeof *rep.rows);
	locus_shell_parser *parser = NULL;
	if (!rep.rows || locus_shell_parser_new(&parser, NULL)) {
		fprintf(stderr, "locus audit: out of memory\n");
		free(rep.rows);
		tr_set_free(&set);
		return 2;
	}
	for (size_t i = 0; i < set.nfiles; i++) {
		rep.unknown += set.files[i].unknown;
		rep.malformed += set.files[i].malformed;
		rep.lines += set.files[i].lines;
	}
	if (o->jobs > 1 && judge_parallel(o, policy, &set, hash, &rep)) {
		fprintf(stderr, "locus audit: out of memory\n");
		status = 2;
	}
	for (size_t i = 0; o->jobs <= 1 && i < set.ncalls; i++) {
		progress(o, i + 1, set.ncalls);
		const tr_call *c = &set.calls[i];
		if (!in_time(o, c) || !in_project(o, &set, c, hash))
			continue;
		if (au_judge(&rep.rows[rep.n], policy, parser, c,
		             set.files[c->file].path) == 0)
			rep.n++;
	}
	au_written w = {&rep, o->all};
	if (cli_reports_write(&o->out, write_report, &w))
		status = 2;
	for (size_t i = 0; i < rep.n; i++)
		au_row_free(&rep.rows[i]);
	free(rep.rows);
	locus_shell_parser_free(parser);
	tr_set_free(&set);
	return status;
}

/* The agents' own folders, those that exist. */
static size_t default_paths(const char **paths, char bufs[3][4096])
{
	static const char *const rel[] = {".claude/projects", ".codex/sessions",
	                                  ".gemini/tmp"};
	const char *home = getenv("HOME");
	size_t n = 0;
	for (size_t i = 0; home && i < 3; i++) {
		snprintf(bufs[n], 4096, "%s/%s", home, rel[i]);
		if (access(bufs[n], R_OK) == 0) {
			paths[n] = bufs[n];
			n++;
		}
	}
	return n;
}

int cli_audit_transcripts(int argc, char **argv)
{
	au_opts o;
	memset(&o, 0, sizeof o);
	o.paths = calloc((size_t)argc + 3, sizeof *o.paths);
	if (!o.paths)
		return 2;
	int rc = parse_opts(&o, argc, argv);
	if (rc) {
		free(o.paths);
		return rc == 1 ? 0 : rc;
	}
	char bufs[3][4096];
	if (!o.npaths)
		o.npaths = default_paths(o.paths, bufs);
	if (!o.npaths) {
		fprintf(stderr, "locus audit: no PATH given and no agent "
		                "folder found under $HOME\n");
		free(o.paths);
		return 2;
	}
	locus_policy *policy = NULL;
	rc = cli_policy_build(o.policy, o.preset, NULL, &policy);
	char pname[1024];
	int pn = snprintf(pname, sizeof pname, "%s%s",
	                  o.policy ? o.policy : "preset ",
	                  o.policy ? "" : (o.preset ? o.preset : "standard"));
	for (size_t i = 0; !rc && i < o.nclaude; i++) {
		/* read as Claude Code reads them (agents/hook_settings.c) */
		if (cli_add_claude_settings(policy, o.claude[i], false))
			rc = 2;
		else if (pn > 0 && (size_t)pn < sizeof pname)
			pn += snprintf(pname + pn, sizeof pname - (size_t)pn,
			               " + %s", o.claude[i]);
	}
	if (rc) {
		locus_policy_free(policy);
		free(o.paths);
		return rc;
	}
	rc = run(&o, policy, pname);
	locus_policy_free(policy);
	free(o.paths);
	return rc;
}
