/*
 * cli/audit_transcripts.c - `locus audit transcripts`: judge every tool
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
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include "agents/audit_report.h"
#include "cli.h"
#include "opts.h"
#include "parallel.h"
#include "policy_cli.h"
#include "reports.h"
#include "../util/clock.h"
#include "../util/sha256.h"

typedef struct au_opts {
	const char *policy, *preset, *project;
	const char *claude[16];
	size_t nclaude;
	bool has_since, all, quiet;
	const char *status; /* --status: ran,failed,declined,none */
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
	    "         [--status ran,failed,declined,none] [--quiet] [--jobs N] "
	    "[PATH...]\n"
	    "judges every tool call in Claude Code, Codex CLI and Gemini CLI\n"
	    "session logs; TIME is ISO 8601 (2026-11-30 or "
	    "2026-11-30T12:00:00Z)\n");
}

/* ---- time ---- */

/* ISO 8601 date or time (Z or +HH:MM; no zone is UTC) to seconds since
   the epoch.  0 or -1. */
static int cli_parse_time(const char *s, double *out)
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
	    CLI_OPT_VALUE("--project", &o->project), CLI_OPT_VALUE("--status", &o->status),
	};
	/* clang-format on */
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int t = CLI_OPT_STEP(opts, "audit", usage, argc, argv, &i);
		if (t == CLI_OPT_TAKEN)
			continue;
		if (t)
			return t;
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
	for (const char *p = o->status; p && *p;) {
		size_t k = strcspn(p, ",");
		static const char *const names[] = {"ran", "failed", "declined",
		                                    "none", NULL};
		bool known = false;
		for (size_t i = 0; names[i]; i++)
			known |=
			    strlen(names[i]) == k && !strncmp(names[i], p, k);
		if (!known) {
			fprintf(
			    stderr,
			    "locus audit: --status takes ran, failed, "
			    "declined, none (comma-separated), not '%.*s'\n",
			    (int)k, p);
			return 2;
		}
		p += k + (p[k] == ',');
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

/* --status LIST: the calls whose result is one of LIST (comma-separated:
   ran, failed, declined, none). */
static bool in_status(const au_opts *o, const tr_call *c)
{
	if (!o->status)
		return true;
	const char *name = au_status_name(c->status);
	if (!c->status)
		name = "none";
	size_t n = strlen(name);
	for (const char *p = o->status; *p;) {
		size_t k = strcspn(p, ",");
		if (k == n && !strncmp(p, name, n))
			return true;
		p += k + (p[k] == ',');
	}
	return false;
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
/* Gemini's current layout: ~/.gemini/tmp/<slug>/.project_root holds the
   project root, beside the chats/ folder of the file.  The root, or "". */
static void gemini_project_root(const char *path, char *root, size_t cap)
{
	root[0] = '\0';
	const char *chats = strstr(path, "/chats/");
	const char *next = chats;
	while (next && (next = strstr(next + 1, "/chats/")))
		chats = next;
	if (!chats || strchr(chats + 7, '/'))
		return;
	char file[4096];
	snprintf(file, sizeof file, "%.*s/.project_root", (int)(chats - path),
	         path);
	FILE *fp = fopen(file, "r");
	if (!fp)
		return;
	size_t n = fread(root, 1, cap - 1, fp);
	fclose(fp);
	root[n] = '\0';
	while (n && (root[n - 1] == '\n' || root[n - 1] == '\r' ||
	             root[n - 1] == ' '))
		root[--n] = '\0';
	if (root[0] != '/' || strchr(root, '\n'))
		root[0] = '\0'; /* not an absolute path: not used */
}

static void gemini_roots(tr_set *s, const au_opts *o)
{
	static const char *const keys[] = {"file_path", "absolute_path",
	                                   "dir_path",  "path",
	                                   "directory", NULL};
	for (size_t fi = 0; fi < s->nfiles; fi++) {
		tr_file *f = &s->files[fi];
		if (f->agent != TR_GEMINI)
			continue;
		char root[4096] = "", hash[65];
		gemini_project_root(f->path, root, sizeof root);
		if (!root[0] && !f->project)
			continue;
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

/* ---- judging, file by file ---- */

/* The run: the reports are written as each file's calls are judged. */
typedef struct au_run {
	const au_opts *o;
	const locus_policy *policy;
	locus_shell_parser *parser;
	const char *hash;
	au_totals t;
	au_writer *w[CLI_MAX_REPORTS];
	FILE *f[CLI_MAX_REPORTS];
	size_t nw;
	long calls_seen, bytes_files;
	bool oom, tty, printed;
	double t0, next_note;
} au_run;

/* Progress on stderr (not with --quiet): on a terminal one line redrawn
   from the first file on; else a line after 2 s, then every 5 s. */
static void progress(au_run *r, bool last)
{
	if (r->o->quiet || (last && !r->printed))
		return;
	double t = lu_now();
	if (!last && t < r->next_note)
		return;
	r->printed = true;
	r->next_note = t + (r->tty ? 0.2 : 5.0);
	fprintf(stderr,
	        "%slocus audit: %ld files, %ld calls judged (%ld held, %ld "
	        "denied) in %.0f s%s",
	        r->tty ? "\r" : "", r->t.files, r->t.calls,
	        (long)cJSON_GetObjectItemCaseSensitive(r->t.outcomes,
	                                               "require_human")
	            ->valuedouble,
	        (long)cJSON_GetObjectItemCaseSensitive(r->t.outcomes, "deny")
	            ->valuedouble,
	        t - r->t0, r->tty && !last ? "" : "\n");
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

/* The selected calls of `set` judged into rows (in order), on o->jobs
   threads when more than one.  The row count, or -1 when out of memory. */
static long judge_calls(au_run *r, const tr_set *set, au_row *rows)
{
	const au_opts *o = r->o;
	size_t *sel = malloc((set->ncalls ? set->ncalls : 1) * sizeof *sel);
	bool *ok = calloc(set->ncalls ? set->ncalls : 1, sizeof *ok);
	size_t n = 0;
	long out = 0;
	for (size_t i = 0; sel && i < set->ncalls; i++)
		if (in_time(o, &set->calls[i]) &&
		    in_status(o, &set->calls[i]) &&
		    in_project(o, set, &set->calls[i], r->hash))
			sel[n++] = i;
	int rc = sel && ok ? 0 : -1;
	if (!rc && o->jobs > 1) {
		judge_job j = {r->policy, set, sel, rows, ok};
		cli_parallel p = {o->jobs, cli_parallel_parser_new,
		                  cli_parallel_parser_free, judge_one, &j};
		rc = cli_parallel_run(&p, 0, n);
	} else if (!rc) {
		for (size_t i = 0; i < n; i++) {
			const tr_call *c = &set->calls[sel[i]];
			ok[i] = au_judge(&rows[i], r->policy, r->parser, c,
			                 set->files[c->file].path) == 0;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (!ok[i])
			continue;
		if (rc)
			au_row_free(&rows[i]);
		else
			rows[out++] = rows[i];
	}
	free(sel);
	free(ok);
	return rc ? -1 : out;
}

/* One file read (tr_set.each): its calls judged and written. */
static void each_file(tr_set *set, void *arg)
{
	au_run *r = arg;
	tr_file *f = &set->files[set->nfiles - 1];
	gemini_roots(set, r->o);
	au_row *rows = calloc(set->ncalls ? set->ncalls : 1, sizeof *rows);
	long n = rows ? judge_calls(r, set, rows) : -1;
	if (n < 0)
		r->oom = true;
	for (long i = 0; i < n; i++) {
		rows[i].root = f->root;
		au_totals_add(&r->t, &rows[i]);
		for (size_t k = 0; k < r->nw; k++)
			au_writer_row(r->w[k], &rows[i]);
		au_row_free(&rows[i]);
	}
	free(rows);
	au_totals_file(&r->t, f);
	for (size_t k = 0; k < r->nw; k++)
		au_writer_file(r->w[k], f);
	progress(r, false);
}

/* Open every report's file and writer; 0, or 2 after the message. */
static int open_reports(au_run *r)
{
	const cli_reports *rep = &r->o->out;
	for (size_t i = 0; i < rep->n; i++) {
		const char *path = rep->out[i].path;
		FILE *f = path ? fopen(path, "w") : stdout;
		if (!f) {
			fprintf(stderr, "locus audit: %s: %s\n", path,
			        strerror(errno));
			return 2;
		}
		r->f[r->nw] = f;
		r->w[r->nw] = au_writer_new(rep->formats[rep->out[i].format], f,
		                            path, r->o->all);
		if (!r->w[r->nw]) {
			fprintf(stderr,
			        "locus audit: cannot start the %s "
			        "report\n",
			        rep->formats[rep->out[i].format]);
			if (path)
				fclose(f);
			return 2;
		}
		r->nw++;
	}
	return 0;
}

static int close_reports(au_run *r, bool write)
{
	int status = 0;
	for (size_t i = 0; i < r->nw; i++) {
		int rc = write ? au_writer_end(r->w[i], &r->t) : 0;
		if (r->f[i] != stdout && fclose(r->f[i]))
			rc = -1;
		if (rc) {
			fprintf(stderr, "locus audit: cannot write the %s\n",
			        r->w[i]->path ? r->w[i]->path : "report");
			status = 2;
		}
		au_writer_free(r->w[i]);
	}
	r->nw = 0;
	return status;
}

static int run(const au_opts *o, locus_policy *policy, const char *pname)
{
	char hash[65] = "";
	if (o->project)
		lu_sha256_hex(o->project, strlen(o->project), hash);
	au_run r = {.o = o, .policy = policy, .hash = hash, .tty = isatty(2)};
	r.t0 = lu_now();
	/* a terminal sees it at once; a log after 2 s (short runs and the
	   tests print nothing) */
	r.next_note = r.tty ? r.t0 : r.t0 + 2.0;
	if (au_totals_init(&r.t, pname) ||
	    locus_shell_parser_new(&r.parser, NULL)) {
		fprintf(stderr, "locus audit: out of memory\n");
		au_totals_free(&r.t);
		return 2;
	}
	int status = open_reports(&r);
	bool opened = status == 0;
	for (size_t i = 0; opened && i < o->npaths; i++) {
		/* the folder each file is found under: SARIF locations are
		   relative to it (no home folder in the report) */
		char root[4096];
		snprintf(root, sizeof root, "%s", o->paths[i]);
		struct stat st;
		size_t rl = strlen(root);
		if (stat(root, &st) == 0 && !S_ISDIR(st.st_mode)) {
			char *sl = strrchr(root, '/');
			rl = sl ? (size_t)(sl - root) : 0;
		}
		while (rl > 1 && root[rl - 1] == '/')
			rl--;
		root[rl] = '\0';
		tr_set set = {.each = each_file,
		              .each_arg = &r,
		              .root = rl ? root : NULL};
		if (tr_read_path(&set, o->paths[i])) {
			fprintf(stderr, "locus audit: %s: %s\n", o->paths[i],
			        strerror(errno));
			status = 2;
		}
		for (size_t k = 0; k < set.nfiles; k++)
			if (set.files[k].unreadable)
				fprintf(
				    stderr, "locus audit: %s: NOT READ: %s\n",
				    set.files[k].path, set.files[k].problem);
		r.oom |= set.oom != 0;
		tr_set_free(&set);
	}
	if (r.oom) {
		fprintf(stderr, "locus audit: out of memory\n");
		status = 2;
	}
	int wrc = close_reports(&r, opened && !r.oom);
	if (wrc)
		status = 2;
	progress(&r, true);
	locus_shell_parser_free(r.parser);
	au_totals_free(&r.t);
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
		/* read as Claude Code reads them (cli/policy_build.c) */
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
