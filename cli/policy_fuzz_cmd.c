/*
 * cli/policy_fuzz_cmd.c - the command side of `locus policy fuzz`
 * (policy/policy_fuzz.c searches): options, the policy and the allow rules
 * with where they are written, reduction of each finding to its shortest
 * admitted form, the checked fix, and the text / JSONL / SARIF reports.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "opts.h"
#include "policy_cli.h"
#include "agents/audit_report.h"
#include "policy/policy_fuzz.h"
#include "reports.h"
#include "../util/buf.h"
#include "../util/clock.h"
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

/* The path a Read/Edit/Write deny pattern protects, as a shell word:
   `~/.ssh/` + `**` -> `~/.ssh/id_rsa`, `./.env` -> `.env`, `//etc/x` ->
   `/etc/x`, a leading `**` dropped, a lone `*` -> `x`.  NULL when it
   names none. */
static char *protected_file(const char *pat)
{
	char buf[512];
	size_t o = 0;
	const char *p = pat;
	if (!strncmp(p, "./", 2))
		p += 2;
	else if (!strncmp(p, "//", 2))
		p += 1;
	while (!strncmp(p, "**/", 3))
		p += 3;
	for (; *p && o + 16 < sizeof buf; p++) {
		if (p[0] == '*' && p[1] == '*') {
			bool ssh = o >= 5 && !strncmp(buf + o - 5, ".ssh/", 5);
			o += (size_t)snprintf(buf + o, sizeof buf - o, "%s",
			                      ssh ? "id_rsa" : "locus-fuzz");
			p++;
		} else if (*p == '*' || *p == '?') {
			buf[o++] = 'x';
		} else if (strchr(" '\"\\$`;&|<>()[]{}", *p)) {
			return NULL; /* not a plain word: not probed */
		} else {
			buf[o++] = *p;
		}
	}
	buf[o] = '\0';
	if (!o || buf[o - 1] == '/')
		return NULL;
	return strdup(buf);
}

static void classify_deny(pf_rule *r)
{
	const char *t = r->text, *open = strchr(t, '(');
	const char *close = open ? strrchr(open, ')') : NULL;
	if (!open || !close || close < open)
		return;
	size_t nl = (size_t)(open - t);
	char inner[512];
	snprintf(inner, sizeof inner, "%.*s", (int)(close - open - 1),
	         open + 1);
	if (nl == 4 && !strncasecmp(t, "read", 4)) {
		r->deny_file = protected_file(inner);
	} else if ((nl == 4 && !strncasecmp(t, "edit", 4)) ||
	           (nl == 5 && !strncasecmp(t, "write", 5))) {
		r->deny_file = protected_file(inner);
		r->deny_writes = true;
	} else if (nl == 4 && !strncasecmp(t, "bash", 4)) {
		classify_rule(r); /* its prefix */
		r->plain = false;
	}
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
static int rules_of(pf_ctx *c, const char *file, bool settings)
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
	const cJSON *deny = cJSON_GetObjectItemCaseSensitive(perm, "deny");
	const cJSON *e;
	int rc = 0;
	char *text = strndup(buf, len);
	cJSON_ArrayForEach(e, allow)
	{
		if (cJSON_IsString(e) && text &&
		    add_rule(c, e->valuestring, file,
		             rule_line(text, e->valuestring)))
			rc = 2;
		else if (cJSON_IsString(e) && text)
			c->rules[c->nrules - 1].settings = settings;
	}
	/* deny rules are attacked too: lines that do what they deny */
	cJSON_ArrayForEach(e, deny)
	{
		if (!cJSON_IsString(e) || !text)
			continue;
		if (add_rule(c, e->valuestring, file,
		             rule_line(text, e->valuestring))) {
			rc = 2;
			continue;
		}
		pf_rule *r = &c->rules[c->nrules - 1];
		r->deny = true;
		r->settings = settings;
		free(r->prefix);
		r->prefix = NULL;
		r->plain = r->writes = false;
		classify_deny(r);
		if (!r->deny_file && !r->prefix) {
			/* nothing to attack (an MCP or WebFetch rule) */
			free(r->text);
			c->nrules--;
		}
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
	if (o->policy && (rc = rules_of(c, o->policy, false)))
		return rc;
	for (size_t i = 0; i < o->nsettings; i++) {
		/* read as Claude Code reads them (cli/policy_build.c) */
		if (cli_add_claude_settings(c->policy, o->settings[i], false))
			return 2;
		if ((rc = rules_of(c, o->settings[i], true)))
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
		if (c->rules[i].deny)
			continue; /* attacked under the whole policy */
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
	pl_judged r;
	if (pf_judge(c, pf_rule_policy(c, f->rule), "Bash", "command", line,
	             NULL, NULL, &r))
		return false;
	bool ok = pf_admits(c, f->rule, &r, f->core, false) &&
	          (c->rules[f->rule].deny || !strcmp(r.family, f->family));
	pl_judged_free(&r);
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

/* Is `line` (or the finding's write) refused under `p`? */
static bool refused_line(pf_ctx *c, const locus_policy *p, const pf_finding *f,
                         const char *line)
{
	pl_judged r;
	int rc =
	    f->write_file
	        ? pf_judge(c, p, "Write", "file_path", f->write_file, "content",
	                   f->write_content ? f->write_content : "x", &r)
	        : pf_judge(c, p, "Bash", "command", line, NULL, NULL, &r);
	if (rc)
		return false;
	bool ok = r.outcome != LOCUS_OUTCOME_ALLOW;
	pl_judged_free(&r);
	return ok;
}

/* The lines a fix must refuse: every admitted line kept, and every
   spelling of the example the rule admits too (pf_spellings). */
typedef struct attack {
	pf_ctx *c;
	const pf_finding *f;
	char **v;
	size_t n, cap;
} attack;

static void attack_add(attack *a, const char *line)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], line))
			return;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		char **v = realloc(a->v, cap * sizeof *v);
		if (!v)
			return;
		a->v = v;
		a->cap = cap;
	}
	if ((a->v[a->n] = strdup(line)))
		a->n++;
}

static void attack_spelling(void *ctx, const char *line)
{
	attack *a = ctx;
	pl_judged r;
	if (pf_judge(a->c, pf_rule_policy(a->c, a->f->rule), "Bash", "command",
	             line, NULL, NULL, &r))
		return;
	/* the same program doing the same harm in other words */
	if (pf_admits(a->c, a->f->rule, &r, a->f->core, true) &&
	    (a->c->rules[a->f->rule].deny || !strcmp(r.family, a->f->family)))
		attack_add(a, line);
	pl_judged_free(&r);
}

static void attack_free(attack *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

/* Does the rule's policy with `deny` added refuse every attack line? */
static bool holds(pf_ctx *c, const pf_finding *f, const attack *a,
                  const char *list, const char *value)
{
	locus_policy *p =
	    pf_policy_edit(pf_rule_policy(c, f->rule), NULL, list, value);
	bool ok = p != NULL;
	if (f->write_file)
		ok = ok && refused_line(c, p, f, NULL);
	for (size_t i = 0; ok && i < a->n; i++)
		ok = refused_line(c, p, f, a->v[i]);
	locus_policy_free(p);
	return ok;
}

/* The words of the line's first command, for deny rules of a deny
   rule's finding (the program that got round it). */
static void first_word(const char *line, char *out, size_t cap)
{
	size_t n = strcspn(line, " ");
	snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), line);
}

/* Deny rules narrower than dropping the grant: one per option word
   after the prefix (`Bash(git *-fdx*)`), the options without which the
   example is no longer admitted first, then the first plain word
   (`Bash(git clean:*)`), then the other options; Edit(FILE) for a
   planted file.  At most `cap`. */
static size_t deny_rules_for(pf_ctx *c, const pf_finding *f, char out[][200],
                             size_t cap)
{
	const pf_rule *r = &c->rules[f->rule];
	if (f->write_file) {
		snprintf(out[0], 200, "Edit(%s)", f->write_file);
		return 1;
	}
	char prog[128];
	const char *prefix = r->prefix;
	if (r->deny || !prefix) {
		first_word(f->example, prog, sizeof prog);
		prefix = prog;
	}
	size_t pl = strlen(prefix), k = 0;
	if (!pl || strncmp(f->example, prefix, pl) || f->example[pl] != ' ')
		return 0;
	const char *t = f->example + pl + 1, *word = NULL;
	char other[8][200];
	size_t nother = 0;
	for (const char *w = t; *w && k + nother + 1 < cap;
	     w += strcspn(w, " "), w += strspn(w, " ")) {
		if (*w != '-') {
			if (!word && w == t)
				word = w;
			continue;
		}
		size_t n = strcspn(w, " =");
		/* `--` alone ends the options: no rule to deny by */
		if (n == 2 && w[1] == '-')
			continue;
		if (!n || n > 64 || memchr(w, ')', n) || memchr(w, '(', n) ||
		    memchr(w, '\'', n) || memchr(w, '"', n))
			continue;
		/* essential: the example without this word is not admitted */
		size_t wl = strcspn(w, " ");
		char *less = malloc(strlen(f->example) + 1);
		if (!less)
			continue;
		size_t at = (size_t)(w - f->example);
		memcpy(less, f->example, at);
		strcpy(less + at, w + wl + (w[wl] == ' '));
		bool essential = !still(c, f, less);
		free(less);
		if (essential)
			snprintf(out[k++], 200, "Bash(%s *%.*s*)", prefix,
			         (int)n, w);
		else if (nother < 8)
			snprintf(other[nother++], 200, "Bash(%s *%.*s*)",
			         prefix, (int)n, w);
	}
	/* a first plain word is a subcommand only for programs that have
	   them (`git clean`, not `cp x`) */
	/* clang-format off */
	static const char *const subcommanders[] = {
	    "git",  "npm",    "pnpm", "yarn",      "bun",     "docker",
	    "podman", "kubectl", "cargo", "go",     "gh",      "terraform",
	    "aws",  "gcloud", "az",   "systemctl", "pip",     "uv",
	    "helm", "brew",   "apt",  "make",      "pytest",  NULL};
	/* clang-format on */
	bool subs = false;
	for (size_t i = 0; subcommanders[i]; i++)
		subs |= !strncmp(prefix, subcommanders[i],
		                 strlen(subcommanders[i])) &&
		        (prefix[strlen(subcommanders[i])] == ' ' ||
		         !prefix[strlen(subcommanders[i])]);
	if (word && subs && k < cap) {
		size_t n = strcspn(word, " ");
		bool plain = n && n <= 64;
		/* a path or an expansion is no subcommand to deny by name */
		for (size_t i = 0; plain && i < n; i++)
			if (strchr("/~.$`'\"\\*?()", word[i]))
				plain = false;
		if (plain)
			snprintf(out[k++], 200, "Bash(%s %.*s:*)", prefix,
			         (int)n, word);
	}
	for (size_t i = 0; i < nother && k < cap; i++)
		snprintf(out[k++], 200, "%s", other[i]);
	/* a path it reads (or writes): a Read (Edit) deny on its folder,
	   which locus, as Claude Code, applies to the shell's readers and
	   writers too */
	bool reads = !strcmp(f->family, "exec:secrets");
	for (const char *w = f->example; *w && k < cap && !r->deny;
	     w += strcspn(w, " "), w += strspn(w, " ")) {
		size_t n = strcspn(w, " ");
		const char *slash = memchr(w, '/', n);
		if (n < 3 || n > 120 || (w[0] != '~' && w[0] != '/') ||
		    !slash || memchr(w, '\'', n) || memchr(w, '"', n))
			continue;
		const char *last = w + n;
		while (last > w && last[-1] != '/')
			last--;
		/* Claude Code's spelling: `//` for an absolute path (one
		   `/` is relative to the settings file) */
		const char *abs = w[0] == '/' ? "/" : "";
		snprintf(out[k++], 200, "%s(%s%.*s**)", reads ? "Read" : "Edit",
		         abs, (int)(last - w), w);
		if (k < cap)
			snprintf(out[k++], 200, "%s(%s%.*s**)",
			         reads ? "Edit" : "Read", abs, (int)(last - w),
			         w);
	}
	return k;
}

static void fix(pf_ctx *c, pf_finding *f)
{
	const pf_rule *r = &c->rules[f->rule];
	bool allowance = f->rule == c->nrules - 1;
	char rules[12][200], text[700];
	attack a = {.c = c, .f = f};
	for (size_t i = 0; i < f->nadmitted_lines; i++)
		attack_add(&a, f->admitted_lines[i]);
	if (!f->write_file && f->example) {
		attack_add(&a, f->example);
		pf_spellings(f->example, c->seed, attack_spelling, &a);
	}
	f->checked_lines = (long)a.n + (f->write_file ? 1 : 0);
	size_t nr = deny_rules_for(c, f, rules, 12);
	const char *where = r->file ? r->file : "the settings";
	text[0] = '\0';
	for (size_t i = 0; i < nr && !text[0]; i++)
		if (holds(c, f, &a, "deny", rules[i])) {
			snprintf(text, sizeof text,
			         "add \"%s\" to permissions.deny in %s",
			         rules[i], where);
			f->fix_rule = strdup(rules[i]);
			f->verified = true;
		}
	/* a locus policy's own language: the tag in deny_for (a grant
	   waives holds, never denies), or require_human_for for the
	   preset's allowances; never suggested for a Claude Code file */
	const char *set = allowance ? "require_human_for" : "deny_for";
	if (!text[0] && !r->settings && !r->deny &&
	    strcmp(f->family, "indirect") && strcmp(f->family, "other") &&
	    holds(c, f, &a, set, f->family)) {
		snprintf(text, sizeof text, "add \"%s\" to the policy's %s%s",
		         f->family, set,
		         allowance ? ""
		                   : " (an allow rule waives holds, never "
		                     "denies), or narrow the rule");
		f->verified = true;
	}
	if (!text[0] && r->deny)
		snprintf(text, sizeof text,
		         "no single deny rule holds against every spelling: "
		         "remove the grant that admits %s, or run the agent "
		         "in a sandbox that cannot read the file",
		         f->example);
	else if (!text[0])
		snprintf(text, sizeof text,
		         "remove \"%s\" from permissions.allow and allow the "
		         "exact commands you need (no deny rule held against "
		         "every spelling)",
		         r->text);
	attack_free(&a);
	f->fix = strdup(text);
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
			if (f->verified)
				fprintf(out,
				        "    fix: %s (checked against %ld "
				        "spelling%s: all refused)\n",
				        f->fix, f->checked_lines,
				        f->checked_lines == 1 ? "" : "s");
			else
				fprintf(out, "    fix: %s\n", f->fix);
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
	cJSON_AddNumberToObject(fx, "spellings", (double)f->checked_lines);
	return o;
}

static int write_jsonl(const pf_ctx *c, FILE *out)
{
	for (size_t i = 0; i < c->nfound; i++)
		if (lu_json_write(out, finding_json(c, &c->found[i]), false))
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
		if (lu_json_write(out, o, false))
			return -1;
	}
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "type", "summary");
	cJSON_AddNumberToObject(s, "rules", (double)c->nrules);
	cJSON_AddNumberToObject(s, "tested", (double)c->tested);
	cJSON_AddNumberToObject(s, "findings", (double)c->nfound);
	cJSON_AddNumberToObject(s, "seed", (double)c->seed);
	return lu_json_write(out, s, false);
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

/* pf_ctx.progress: the progress line on stderr (not with --quiet);
   `last` ends it. */
static void progress(pf_ctx *c, bool last)
{
	if (last) {
		if (c->progress_tty && c->next_progress > 0)
			fputc('\n', stderr);
		return;
	}
	c->next_progress = c->tested + (c->progress_tty ? 250 : 5000);
	fprintf(stderr,
	        "%slocus policy fuzz: %ld of %ld lines tested, rule %zu of "
	        "%zu, %zu findings so far%s",
	        c->progress_tty ? "\r" : "", c->tested, c->count,
	        c->cur + 1 < c->nrules ? c->cur + 1 : c->nrules, c->nrules,
	        c->nfound, c->progress_tty ? "" : "\n");
	fflush(stderr);
}

static void ctx_free(pf_ctx *c)
{
	for (size_t i = 0; i < c->nrules; i++) {
		pf_rule *r = &c->rules[i];
		for (size_t k = 0; k < r->n; k++) {
			free(r->lines[k]);
			free(r->intents[k]);
		}
		for (size_t k = 0; k < r->n; k++)
			free(r->cores[k]);
		free(r->lines);
		free(r->intents);
		free(r->cores);
		free(r->deny_file);
		free(r->text);
		free(r->prefix);
		locus_policy_free(r->alone);
	}
	free(c->rules);
	for (size_t i = 0; i < c->nfound; i++)
		pf_finding_clear(&c->found[i]);
	free(c->found);
	pf_cores_free(c->cores);
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
	c.progress = o.quiet ? NULL : progress;
	c.progress_tty = isatty(2);
	if ((rc = build(&c, &o)) || locus_shell_parser_new(&c.parser, NULL)) {
		ctx_free(&c);
		return rc ? rc : 2;
	}
	c.deadline = lu_now() + o.seconds;
	pf_search(&c);
	long searched = c.tested;
	for (size_t i = 0; i < c.nfound; i++)
		reduce(&c, &c.found[i]);
	merge(&c);
	for (size_t i = 0; i < c.nfound; i++)
		fix(&c, &c.found[i]);
	if (c.progress)
		c.progress(&c, true);
	c.tested = searched; /* the lines the search tried */
	rc = cli_reports_write(&o.out, write_report, &c);
	if (!rc && c.nfound)
		rc = 1;
	ctx_free(&c);
	return rc;
}
