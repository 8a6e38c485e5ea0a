/*
 * cli/policy_fuzz_cmd.c - the command side of `locus policy fuzz`
 * (cli/policy_fuzz.c searches): options, the policy and the allow rules
 * with where they are written, reduction of each finding to its shortest
 * admitted form, the checked fix, and the text / JSONL / SARIF reports.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli.h"
#include "opts.h"
#include "policy_cli.h"
#include "policy_fuzz.h"
#include "reports.h"
#include "../util/json.h"

#define PF_MAX_SETTINGS 16

typedef struct pf_opts {
	const char *policy, *preset;
	const char *settings[PF_MAX_SETTINGS];
	size_t nsettings;
	cli_reports out; /* --format, -o */
	double seconds;
	long count;
	uint64_t seed;
	bool quiet;
} pf_opts;

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: locus policy fuzz [--policy FILE | --preset NAME]\n"
	        "         [--claude-settings FILE]... [--time SECONDS] "
	        "[--count N] [--seed N]\n"
	        "         [--format text|jsonl|sarif [-o FILE]]... [--quiet]\n"
	        "searches the allow rules for dangerous lines they let "
	        "through; exit 1 when one is found\n");
}

static int num_opt(const char *name, const char *v, double lo, double hi,
                   double *out)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (errno || end == v || *end || !(d >= lo && d <= hi)) {
		fprintf(stderr,
		        "locus policy fuzz: %s wants a number from %g to "
		        "%g, not '%s'\n",
		        name, lo, hi, v);
		return -1;
	}
	*out = d;
	return 0;
}

/* One option with its value at argv[i + 1]; 0 taken, 2 bad. */
static int one_opt(pf_opts *o, const char *a, const char *v)
{
	double d;
	if (!strcmp(a, "--policy") || !strcmp(a, "--preset")) {
		*(!strcmp(a, "--policy") ? &o->policy : &o->preset) = v;
	} else if (!strcmp(a, "--claude-settings")) {
		if (o->nsettings == PF_MAX_SETTINGS) {
			fprintf(stderr,
			        "locus policy fuzz: at most %d settings "
			        "files\n",
			        PF_MAX_SETTINGS);
			return 2;
		}
		o->settings[o->nsettings++] = v;
	} else if (!strcmp(a, "--time")) {
		if (num_opt(a, v, 0.001, 86400, &o->seconds))
			return 2;
	} else if (!strcmp(a, "--count") || !strcmp(a, "--seed")) {
		if (num_opt(a, v, a[2] == 'c' ? 1 : 0, 1e15, &d))
			return 2;
		if (a[2] == 'c')
			o->count = (long)d;
		else
			o->seed = (uint64_t)d;
	} else if (!strcmp(a, "--format")) {
		return cli_reports_format(&o->out, v);
	} else if (!strcmp(a, "-o")) {
		return cli_reports_path(&o->out, v);
	} else {
		return -1;
	}
	return 0;
}

/* The report formats, in the order the messages list them. */
enum { PF_TEXT, PF_JSONL, PF_SARIF };
static const char *const pf_formats[] = {"text", "jsonl", "sarif", NULL};

static int parse_opts(pf_opts *o, int argc, char **argv)
{
	o->out = (cli_reports){
	    .cmd = "policy fuzz", .formats = pf_formats, .def = PF_TEXT};
	o->seconds = 30;
	o->count = 20000;
	o->seed = 1;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 1;
		}
		if (!strcmp(a, "--quiet")) {
			o->quiet = true;
			continue;
		}
		int rc = i + 1 < argc ? one_opt(o, a, argv[i + 1]) : -1;
		if (rc > 0)
			return rc;
		if (rc < 0)
			return cli_opt_unknown("policy fuzz", a, usage);
		i++;
	}
	if (o->policy && o->preset) {
		fprintf(stderr,
		        "locus: --policy and --preset exclude each other\n");
		return 2;
	}
	return cli_reports_finish(&o->out);
}

/* ---- the policy and its allow rules ---- */

/* The 1-based line where `rule` is written as a JSON string, or 0. */
static long rule_line(const char *text, const char *rule)
{
	cJSON *s = cJSON_CreateString(rule);
	char *q = s ? cJSON_PrintUnformatted(s) : NULL;
	cJSON_Delete(s);
	const char *hit = q ? strstr(text, q) : NULL;
	cJSON_free(q);
	if (!hit)
		return 0;
	long line = 1;
	for (const char *p = text; p < hit; p++)
		line += *p == '\n';
	return line;
}

static void classify_rule(pf_rule *r)
{
	const char *t = r->text, *open = strchr(t, '(');
	size_t nl = open ? (size_t)(open - t) : strlen(t);
	if (nl == 1 && t[0] == '*') {
		r->plain = r->writes = true;
		return;
	}
	static const char *const writers[] = {"Edit", "Write", "MultiEdit",
	                                      "NotebookEdit", NULL};
	for (size_t i = 0; writers[i]; i++)
		if (strlen(writers[i]) == nl && !strncasecmp(t, writers[i], nl))
			r->writes = true;
	if (nl != 4 || strncasecmp(t, "bash", 4))
		return;
	if (!open) {
		r->plain = true;
		return;
	}
	const char *close = strrchr(open, ')');
	size_t n = close ? (size_t)(close - open - 1) : strlen(open + 1);
	char inner[512];
	snprintf(inner, sizeof inner, "%.*s", (int)n, open + 1);
	char *star = strchr(inner, '*');
	if (n >= 2 && !strcmp(inner + n - 2, ":*"))
		inner[n - 2] = '\0';
	else if (star)
		*star = '\0';
	size_t k = strlen(inner);
	while (k && (inner[k - 1] == ' ' || inner[k - 1] == ':'))
		inner[--k] = '\0';
	if (!k)
		r->plain = true;
	else
		r->prefix = strdup(inner);
}

static int add_rule(pf_ctx *c, const char *text, const char *file, long line)
{
	pf_rule *n = realloc(c->rules, (c->nrules + 1) * sizeof *n);
	if (!n)
		return -1;
	c->rules = n;
	pf_rule *r = &c->rules[c->nrules];
	memset(r, 0, sizeof *r);
	if (!(r->text = strdup(text)))
		return -1;
	r->file = file;
	r->line = line;
	c->nrules++;
	classify_rule(r);
	return 0;
}

/* The allow rules of a policy document or Claude settings file. */
static int rules_of(pf_ctx *c, const char *file)
{
	char *buf;
	size_t len;
	if (cli_read_file(file, (size_t)4 << 20, &buf, &len)) {
		fprintf(stderr, "locus: %s: %s\n", file, strerror(errno));
		return 2;
	}
	cJSON *doc = NULL;
	lu_json_read(&doc, buf, len, NULL, NULL);
	const cJSON *perm =
	    cJSON_GetObjectItemCaseSensitive(doc, "permissions");
	const cJSON *allow = cJSON_GetObjectItemCaseSensitive(perm, "allow");
	const cJSON *e;
	int rc = 0;
	char *text = strndup(buf, len);
	cJSON_ArrayForEach(e, allow)
	{
		if (cJSON_IsString(e) && text &&
		    add_rule(c, e->valuestring, file,
		             rule_line(text, e->valuestring)))
			rc = 2;
	}
	free(text);
	cJSON_Delete(doc);
	free(buf);
	return rc;
}

/* The effective policy: --policy or --preset, then every settings file. */
static int build(pf_ctx *c, const pf_opts *o)
{
	int rc = cli_policy_build(o->policy, o->preset, NULL, &c->policy);
	if (rc)
		return rc;
	if (o->policy && (rc = rules_of(c, o->policy)))
		return rc;
	for (size_t i = 0; i < o->nsettings; i++) {
		/* read as Claude Code reads them (cli/hook_settings.c) */
		if (cli_add_claude_settings(c->policy, o->settings[i], false))
			return 2;
		if ((rc = rules_of(c, o->settings[i])))
			return rc;
	}
	char self[300];
	snprintf(self, sizeof self, "(%s %s allowances)",
	         o->policy ? "policy" : "preset",
	         o->policy   ? o->policy
	         : o->preset ? o->preset
	                     : "standard");
	if (add_rule(c, self, o->policy, 0))
		return 2;
	c->rules[c->nrules - 1].plain = true;
	/* each rule fuzzed alone, so a finding names the rule that admits it
	   (deny and ask rules, and the rest of the policy, stay) */
	for (size_t i = 0; i < c->nrules; i++) {
		c->rules[i].alone = pf_policy_edit(
		    c->policy, i + 1 < c->nrules ? c->rules[i].text : "", NULL,
		    NULL);
		if (!c->rules[i].alone) {
			fprintf(stderr,
			        "locus policy fuzz: cannot isolate rule %s\n",
			        c->rules[i].text);
			return 2;
		}
	}
	return 0;
}

/* ---- reduction ---- */

static bool still(pf_ctx *c, const pf_finding *f, const char *line)
{
	au_row r;
	if (pf_judge(c, c->rules[f->rule].alone, "Bash", "command", line, NULL,
	             NULL, &r))
		return false;
	bool ok = pf_worth(&r) && !strcmp(r.family, f->family);
	au_row_free(&r);
	return ok;
}

/* The end of the shell word at `w` (quotes and backslashes kept whole),
   and the blanks after it. */
static const char *word_end(const char *w)
{
	char q = 0;
	for (; *w; w++) {
		if (q) {
			if (*w == q)
				q = 0;
			else if (q == '"' && *w == '\\' && w[1])
				w++;
		} else if (*w == '\'' || *w == '"') {
			q = *w;
		} else if (*w == '\\' && w[1]) {
			w++;
		} else if (*w == ' ' || *w == '\n' || *w == '\t') {
			break;
		}
	}
	while (*w == ' ' || *w == '\t')
		w++;
	return w;
}

/* Delete shell words while the line stays admitted by the same rule with
   the same family: the shortest admitted example. */
static void reduce(pf_ctx *c, pf_finding *f)
{
	if (f->write_file || !f->example)
		return;
	/* words never deleted: the rule's prefix, or the program */
	const char *prefix = c->rules[f->rule].prefix;
	size_t keep = prefix ? 0 : 1;
	for (const char *p = prefix; p && *p; p += strspn(p, " ")) {
		keep++;
		p += strcspn(p, " ");
	}
	char *cur = strdup(f->example);
	int tries = 0;
	for (bool changed = cur != NULL; changed && tries < 400;) {
		changed = false;
		/* a line of its own after a newline may be the whole finding */
		const char *nl = strchr(cur, '\n');
		if (nl && nl[1] && ((void)tries++, still(c, f, nl + 1))) {
			char *rest = strdup(nl + 1);
			if (rest) {
				free(cur);
				cur = rest;
				changed = true;
				continue;
			}
		}
		/* the program and the rule's prefix stay */
		char *w = cur;
		for (size_t k = 0; k < keep && *w; k++)
			w += (word_end(w) - w) + (*w == '\n');
		while (*w && tries < 400) {
			if (*w == '\n') {
				w++;
				continue;
			}
			const char *end = word_end(w);
			size_t wl = (size_t)(end - w);
			char *cand = malloc(strlen(cur) + 1);
			if (!cand || !wl) {
				free(cand);
				break;
			}
			size_t pre = (size_t)(w - cur);
			memcpy(cand, cur, pre);
			strcpy(cand + pre, end);
			size_t cl = strlen(cand), lead = strspn(cand, " \n\t;");
			memmove(cand, cand + lead, cl - lead + 1);
			cl -= lead;
			while (cl && cand[cl - 1] == ' ')
				cand[--cl] = '\0';
			tries++;
			/* a program alone (`rm`) says too little: two words */
			if (*word_end(cand) && still(c, f, cand)) {
				free(cur);
				cur = cand;
				changed = true;
				break;
			}
			free(cand);
			w += wl;
		}
	}
	if (cur && strlen(cur) < strlen(f->example)) {
		free(f->example);
		f->example = cur;
	} else {
		free(cur);
	}
}

/* ---- fixes, checked ---- */

/* Is the finding's example refused under `p`? */
static bool refused(pf_ctx *c, const locus_policy *p, const pf_finding *f)
{
	au_row r;
	int rc =
	    f->write_file
	        ? pf_judge(c, p, "Write", "file_path", f->write_file, "content",
	                   f->write_content ? f->write_content : "x", &r)
	        : pf_judge(c, p, "Bash", "command", f->example, NULL, NULL, &r);
	if (rc)
		return false;
	bool ok = r.outcome != LOCUS_OUTCOME_ALLOW;
	au_row_free(&r);
	return ok;
}

/* A deny rule narrower than removing the grant: the option or subcommand
   after the prefix that made the line dangerous. */
static void deny_rule_for(const pf_rule *r, const pf_finding *f, char *out,
                          size_t cap)
{
	out[0] = '\0';
	if (f->write_file) {
		snprintf(out, cap, "Edit(%s)", f->write_file);
		return;
	}
	size_t pl = r->prefix ? strlen(r->prefix) : 0;
	if (!pl || strncmp(f->example, r->prefix, pl) || f->example[pl] != ' ')
		return;
	const char *t = f->example + pl + 1;
	/* the first option word after the prefix, else the first word */
	const char *opt = NULL;
	for (const char *w = t; *w; w += strcspn(w, " "), w += strspn(w, " "))
		if (*w == '-') {
			opt = w;
			break;
		}
	const char *use = opt ? opt : t;
	size_t n = strcspn(use, opt ? " =" : " ");
	if (!n || n > 64 || memchr(use, ')', n) || memchr(use, '(', n))
		return;
	/* a path or an expansion is no subcommand to deny by name */
	for (size_t i = 0; !opt && i < n; i++)
		if (strchr("/~.$`'\"\\*?", use[i]))
			return;
	if (opt)
		snprintf(out, cap, "Bash(%s *%.*s*)", r->prefix, (int)n, use);
	else
		snprintf(out, cap, "Bash(%s %.*s:*)", r->prefix, (int)n, use);
}

static void fix(pf_ctx *c, pf_finding *f)
{
	const pf_rule *r = &c->rules[f->rule];
	bool allowance = f->rule == c->nrules - 1;
	char rule[200], text[400];
	deny_rule_for(r, f, rule, sizeof rule);
	locus_policy *p =
	    rule[0] ? pf_policy_edit(c->policy, NULL, "deny", rule) : NULL;
	const char *set = allowance ? "require_human_for" : "deny_for";
	if (p && refused(c, p, f)) {
		snprintf(text, sizeof text, "add \"%s\" to permissions.deny",
		         rule);
		f->verified = true;
	} else if (strcmp(f->family, "indirect") &&
	           strcmp(f->family, "other") &&
	           ((void)locus_policy_free(p),
	            p = pf_policy_edit(c->policy, NULL, set, f->family)) &&
	           refused(c, p, f)) {
		rule[0] = '\0';
		snprintf(
		    text, sizeof text,
		    allowance
		        ? "add \"%s\" to the policy's require_human_for"
		        : "add \"%s\" to the policy's deny_for (an allow "
		          "rule waives holds, never denies), or narrow the "
		          "rule",
		    f->family);
		f->verified = true;
	} else {
		rule[0] = '\0';
		snprintf(text, sizeof text,
		         "remove \"%s\" and allow the exact commands you need",
		         r->text);
	}
	locus_policy_free(p);
	f->fix = strdup(text);
	f->fix_rule = rule[0] ? strdup(rule) : NULL;
}

/* Findings of one rule reduced to the same example are one finding. */
static void merge(pf_ctx *c)
{
	size_t out = 0;
	for (size_t i = 0; i < c->nfound; i++) {
		pf_finding *f = &c->found[i];
		size_t k = 0;
		for (; k < out; k++) {
			pf_finding *g = &c->found[k];
			if (g->rule == f->rule && f->example && g->example &&
			    !strcmp(g->example, f->example) &&
			    !g->write_file == !f->write_file &&
			    (!g->write_file ||
			     !strcmp(g->write_file, f->write_file)))
				break;
		}
		if (k < out) {
			c->found[k].admitted += f->admitted;
			pf_finding_clear(f);
			continue;
		}
		c->found[out++] = *f;
	}
	c->nfound = out;
}

/* ---- reports ---- */

static size_t rule_findings(const pf_ctx *c, size_t ri)
{
	size_t n = 0;
	for (size_t i = 0; i < c->nfound; i++)
		n += c->found[i].rule == ri;
	return n;
}

static void where(const pf_rule *r, char *out, size_t cap)
{
	if (r->file && r->line)
		snprintf(out, cap, " (%s:%ld)", r->file, r->line);
	else if (r->file)
		snprintf(out, cap, " (%s)", r->file);
	else
		out[0] = '\0';
}

static int write_text(const pf_ctx *c, FILE *out)
{
	char w[600];
	for (size_t ri = 0; ri < c->nrules; ri++) {
		const pf_rule *r = &c->rules[ri];
		where(r, w, sizeof w);
		fprintf(out, "%s%s: %s\n", r->text, w,
		        rule_findings(c, ri) ? "admits dangerous lines"
		                             : "clean");
		for (size_t i = 0; i < c->nfound; i++) {
			const pf_finding *f = &c->found[i];
			if (f->rule != ri)
				continue;
			fprintf(out, "  %-18s %s (%ld admitted)\n", f->family,
			        f->intent, f->admitted);
			if (f->write_file)
				fprintf(out, "    e.g. write %s, then: %s\n",
				        f->write_file, f->example);
			else
				fprintf(out, "    e.g. %s\n", f->example);
			fprintf(out, "    fix: %s%s\n", f->fix,
			        f->verified ? " (checked: then refused)" : "");
		}
	}
	fprintf(out,
	        "%zu findings in %zu rules; %ld lines tested (seed %llu)\n",
	        c->nfound, c->nrules, c->tested, (unsigned long long)c->seed);
	return ferror(out) ? -1 : 0;
}

static cJSON *finding_json(const pf_ctx *c, const pf_finding *f)
{
	const pf_rule *r = &c->rules[f->rule];
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "type", "finding");
	cJSON_AddStringToObject(o, "rule", r->text);
	if (r->file)
		cJSON_AddStringToObject(o, "file", r->file);
	else
		cJSON_AddNullToObject(o, "file");
	cJSON_AddNumberToObject(o, "line", (double)r->line);
	cJSON_AddStringToObject(o, "intent", f->intent);
	cJSON_AddStringToObject(o, "family", f->family);
	cJSON *tags = cJSON_AddArrayToObject(o, "tags");
	for (const char *t = f->tags; t && *t;) {
		size_t n = strcspn(t, " ");
		char one[128];
		snprintf(one, sizeof one, "%.*s", (int)n, t);
		cJSON_AddItemToArray(tags, cJSON_CreateString(one));
		t += n + (t[n] == ' ');
	}
	cJSON_AddStringToObject(o, "example", f->example);
	if (f->write_file) {
		cJSON *wr = cJSON_AddObjectToObject(o, "write");
		cJSON_AddStringToObject(wr, "file", f->write_file);
		if (f->write_content)
			cJSON_AddStringToObject(wr, "content",
			                        f->write_content);
	} else {
		cJSON_AddNullToObject(o, "write");
	}
	cJSON_AddNumberToObject(o, "admitted", (double)f->admitted);
	cJSON *fx = cJSON_AddObjectToObject(o, "fix");
	cJSON_AddStringToObject(fx, "text", f->fix);
	if (f->fix_rule)
		cJSON_AddStringToObject(fx, "deny_rule", f->fix_rule);
	cJSON_AddBoolToObject(fx, "checked", f->verified);
	return o;
}

static int write_jsonl(const pf_ctx *c, FILE *out)
{
	for (size_t i = 0; i < c->nfound; i++)
		if (cli_print_json(out, finding_json(c, &c->found[i]), false))
			return -1;
	for (size_t ri = 0; ri < c->nrules; ri++) {
		const pf_rule *r = &c->rules[ri];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "type", "rule");
		cJSON_AddStringToObject(o, "rule", r->text);
		if (r->file)
			cJSON_AddStringToObject(o, "file", r->file);
		cJSON_AddNumberToObject(o, "line", (double)r->line);
		cJSON_AddNumberToObject(o, "candidates", (double)r->n);
		cJSON_AddNumberToObject(o, "findings",
		                        (double)rule_findings(c, ri));
		if (cli_print_json(out, o, false))
			return -1;
	}
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "type", "summary");
	cJSON_AddNumberToObject(s, "rules", (double)c->nrules);
	cJSON_AddNumberToObject(s, "tested", (double)c->tested);
	cJSON_AddNumberToObject(s, "findings", (double)c->nfound);
	cJSON_AddNumberToObject(s, "seed", (double)c->seed);
	return cli_print_json(out, s, false);
}

static int write_sarif(const pf_ctx *c, FILE *out)
{
	sarif_doc *d = sarif_new();
	if (!d)
		return -1;
	for (size_t i = 0; i < c->nfound; i++) {
		const pf_finding *f = &c->found[i];
		const pf_rule *r = &c->rules[f->rule];
		char id[160], msg[2400];
		snprintf(id, sizeof id, "admit/%s", f->family);
		snprintf(msg, sizeof msg,
		         "%s admits %s%s%s%s (%s; %s). Fix: %s%s.", r->text,
		         f->write_file ? "writing " : "",
		         f->write_file ? f->write_file : "",
		         f->write_file ? " then " : "", f->example, f->tags,
		         f->intent, f->fix, f->verified ? " (checked)" : "");
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "permissionRule", r->text);
		cJSON_AddStringToObject(p, "example", f->example);
		cJSON_AddStringToObject(p, "intent", f->intent);
		if (sarif_add(d, id, "error", msg, r->file, r->line, p)) {
			sarif_free(d);
			return -1;
		}
	}
	return sarif_write(d, out);
}

/* ---- the command ---- */

static void ctx_free(pf_ctx *c)
{
	for (size_t i = 0; i < c->nrules; i++) {
		pf_rule *r = &c->rules[i];
		for (size_t k = 0; k < r->n; k++) {
			free(r->lines[k]);
			free(r->intents[k]);
		}
		free(r->lines);
		free(r->intents);
		free(r->text);
		free(r->prefix);
		locus_policy_free(r->alone);
	}
	free(c->rules);
	for (size_t i = 0; i < c->nfound; i++)
		pf_finding_clear(&c->found[i]);
	free(c->found);
	locus_shell_parser_free(c->parser);
	locus_policy_free(c->policy);
}

/* One report (cli_report_fn over the run). */
static int write_report(size_t format, FILE *f, void *arg)
{
	const pf_ctx *c = arg;
	return format == PF_JSONL   ? write_jsonl(c, f)
	       : format == PF_SARIF ? write_sarif(c, f)
	                            : write_text(c, f);
}

int cli_policy_fuzz(int argc, char **argv)
{
	pf_opts o;
	memset(&o, 0, sizeof o);
	int rc = parse_opts(&o, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	pf_ctx c;
	memset(&c, 0, sizeof c);
	c.count = o.count;
	c.seed = o.seed;
	c.quiet = o.quiet;
	if ((rc = build(&c, &o)) || locus_shell_parser_new(&c.parser, NULL)) {
		ctx_free(&c);
		return rc ? rc : 2;
	}
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	c.deadline = (double)ts.tv_sec + ts.tv_nsec / 1e9 + o.seconds;
	pf_search(&c);
	long searched = c.tested;
	for (size_t i = 0; i < c.nfound; i++)
		reduce(&c, &c.found[i]);
	merge(&c);
	for (size_t i = 0; i < c.nfound; i++)
		fix(&c, &c.found[i]);
	c.tested = searched; /* the lines the search tried */
	rc = cli_reports_write(&o.out, write_report, &c);
	if (!rc && c.nfound)
		rc = 1;
	ctx_free(&c);
	return rc;
}
