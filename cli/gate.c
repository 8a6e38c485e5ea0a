/*
 * cli/gate.c - `locus gate`: decide tool calls read as JSON lines, and the
 * policy corpus runner (cli_corpus_policy_file, format in docs/corpus.md).
 *
 *   locus gate [--policy FILE | --preset NAME] [--claude-settings FILE]
 *              [--audit FILE] [--fsync] [--root DIR] [--exit-code]
 *
 * Each input line is {"tool":..., "arguments":{...}} with optional
 * "environment", "blast_radius", "cost_usd", "tags", "spent_usd",
 * "verification": {"survives", "confidence"}, "finding": {"severity"}.
 * Each output line is the decision record (locus_decision_json), or
 * {"error":..., "line":N} for a bad line; the run goes on.
 *
 * Spend: unless a line gives "spent_usd", the spend so far is the sum of
 * the costs of the calls allowed earlier in the run.
 *
 * Exit status: 2 for a usage error, a bad policy, or any bad line; else 0,
 * or with --exit-code the strongest outcome seen (0 allow, 3
 * require_human, 4 deny).
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "opts.h"
#include "agents/hook.h"
#include "policy_cli.h"
#include "../util/json.h"

/* One parsed input line; owns its strings. */
typedef struct gate_call {
	char *tool;
	char *args;
	locus_gate_input in;
	char *env;
	char **tags;
	size_t ntags;
	bool has_spent;
} gate_call;

static void gate_call_free(gate_call *c)
{
	free(c->tool);
	if (c->args)
		cJSON_free(c->args);
	free(c->env);
	for (size_t i = 0; i < c->ntags; i++)
		free(c->tags[i]);
	free(c->tags);
	memset(c, 0, sizeof(*c));
}


static bool nonneg(const cJSON *v)
{
	return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
	       v->valuedouble >= 0 && v->valuedouble <= 1e15;
}

/* Parse a call object.  0, or -1 with a message in `why`. */
/* The "tags" field: strings only; out of memory is an error (a dropped
   tag would decide the call on less than the caller said). */
static int parse_tags(const cJSON *f, gate_call *c, char *why, size_t wl)
{
	if (!cJSON_IsArray(f)) {
		snprintf(why, wl, "\"tags\" must be an array of strings");
		return -1;
	}
	int n = cJSON_GetArraySize(f);
	c->tags = calloc((size_t)n + 1, sizeof(char *));
	if (!c->tags) {
		snprintf(why, wl, "out of memory");
		return -1;
	}
	for (const cJSON *t = f->child; t; t = t->next) {
		if (!cJSON_IsString(t)) {
			snprintf(why, wl,
			         "\"tags\" must be an array of strings");
			return -1;
		}
		char *tag = strdup(t->valuestring);
		if (!tag) {
			snprintf(why, wl, "out of memory");
			return -1;
		}
		c->tags[c->ntags++] = tag;
	}
	c->in.tags = (const char *const *)c->tags;
	c->in.ntags = c->ntags;
	return 0;
}

/* The fields a call's gate input comes from: 1 when `f` is one of them
   (read into c->in), 0 when it is not, -1 with `why` when it is bad. */
static int parse_input_field(const cJSON *f, gate_call *c, char *why, size_t wl)
{
	const char *k = f->string;
	if (!strcmp(k, "blast_radius")) {
		if (!nonneg(f) || floor(f->valuedouble) != f->valuedouble ||
		    f->valuedouble > 9007199254740991.0) {
			snprintf(why, wl,
			         "\"blast_radius\" must be an integer >= 0");
			return -1;
		}
		c->in.has_blast_radius = true;
		c->in.blast_radius = (int64_t)f->valuedouble;
	} else if (!strcmp(k, "cost_usd")) {
		if (!nonneg(f)) {
			snprintf(why, wl, "\"cost_usd\" must be a number >= 0");
			return -1;
		}
		c->in.has_cost = true;
		c->in.cost_usd = f->valuedouble;
	} else if (!strcmp(k, "spent_usd")) {
		if (!nonneg(f)) {
			snprintf(why, wl,
			         "\"spent_usd\" must be a number >= 0");
			return -1;
		}
		c->has_spent = true;
		c->in.spent_usd = f->valuedouble;
	} else if (!strcmp(k, "tags")) {
		return parse_tags(f, c, why, wl) ? -1 : 1;
	} else if (!strcmp(k, "verification")) {
		const cJSON *s =
		    cJSON_GetObjectItemCaseSensitive(f, "survives");
		const cJSON *cf =
		    cJSON_GetObjectItemCaseSensitive(f, "confidence");
		if (!cJSON_IsObject(f) || !cJSON_IsBool(s) ||
		    !cJSON_IsNumber(cf) || !isfinite(cf->valuedouble) ||
		    cf->valuedouble < 0 || cf->valuedouble > 1 ||
		    cJSON_GetArraySize(f) != 2) {
			snprintf(why, wl,
			         "\"verification\" must be {\"survives\": "
			         "bool, \"confidence\": 0..1}");
			return -1;
		}
		c->in.has_verification = true;
		c->in.survives = cJSON_IsTrue(s);
		c->in.confidence = cf->valuedouble;
	} else if (!strcmp(k, "finding")) {
		const cJSON *s =
		    cJSON_GetObjectItemCaseSensitive(f, "severity");
		if (!cJSON_IsObject(f) || cJSON_GetArraySize(f) != 1 ||
		    !cJSON_IsString(s) ||
		    locus_severity_parse(&c->in.finding_severity,
		                         s->valuestring)) {
			snprintf(why, wl,
			         "\"finding\" must be {\"severity\": "
			         "\"low\"|\"medium\"|\"high\"|\"critical\"}");
			return -1;
		}
		c->in.has_finding = true;
	} else {
		return 0;
	}
	return 1;
}

static int parse_call(const cJSON *o, gate_call *c, char *why, size_t wl)
{
	memset(c, 0, sizeof(*c));
	c->in = (locus_gate_input)LOCUS_GATE_INPUT_INIT;
	if (!cJSON_IsObject(o)) {
		snprintf(why, wl, "a tool call is a JSON object");
		return -1;
	}
	for (const cJSON *f = o->child; f; f = f->next) {
		const char *k = f->string;
		int r;
		if (!strcmp(k, "tool")) {
			if (!cJSON_IsString(f) || !f->valuestring[0]) {
				snprintf(why, wl,
				         "\"tool\" must be a non-empty string");
				return -1;
			}
			c->tool = strdup(f->valuestring);
		} else if (!strcmp(k, "arguments")) {
			if (!cJSON_IsObject(f)) {
				snprintf(why, wl,
				         "\"arguments\" must be an object");
				return -1;
			}
			c->args = cJSON_PrintUnformatted(f);
			if (!c->args) {
				snprintf(why, wl, "out of memory");
				return -1;
			}
		} else if (!strcmp(k, "environment")) {
			if (!cJSON_IsString(f)) {
				snprintf(why, wl,
				         "\"environment\" must be a string");
				return -1;
			}
			c->env = strdup(f->valuestring);
			if (!c->env) {
				snprintf(why, wl, "out of memory");
				return -1;
			}
			c->in.environment = c->env;
		} else if ((r = parse_input_field(f, c, why, wl)) != 0) {
			if (r < 0)
				return -1;
		} else {
			snprintf(why, wl,
			         "unknown field \"%.60s\" in the tool call", k);
			return -1;
		}
	}
	if (!c->tool) {
		snprintf(why, wl, "missing \"tool\"");
		return -1;
	}
	return 0;
}

static void print_error(const char *why, unsigned long line)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "error", why);
	cJSON_AddNumberToObject(o, "line", (double)line);
	char *s = cJSON_PrintUnformatted(o);
	printf("%s\n", s ? s : "{\"error\":\"out of memory\"}");
	/* one answer per line, at once: a client waits for it */
	fflush(stdout);
	cJSON_free(s);
	cJSON_Delete(o);
}

/* One `locus gate` run: what every input line is decided with, and what
   the lines so far came to. */
typedef struct gate_run {
	const locus_policy *policy;
	locus_shell_parser *parser;
	locus_audit *audit;
	const char *root; /* absolute, or NULL when getcwd failed */
	bool bad;         /* a line could not be decided */
	int strongest;    /* the strongest outcome so far, -1 before any */
	double spent;     /* cost of the calls allowed so far */
} gate_run;

/* The audit trail (the library refuses a key in the workspace) and the
   parser.  0, or 2 after printing why. */
static int gate_open(gate_run *g, const char *audit_file, const char *audit_key,
                     bool do_fsync)
{
	/* the key must lie outside the workspace */
	if (cli_audit_open("gate", audit_file, audit_key, g->root,
	                   do_fsync ? LOCUS_AUDIT_FSYNC : 0, &g->audit))
		return 2;
	if (locus_shell_parser_new(&g->parser, NULL)) {
		fprintf(stderr, "locus gate: cannot create the shell parser\n");
		return 2;
	}
	return 0;
}

/* Decide one parsed call and print its record (an error line when it
   cannot be decided, or its audit record cannot be written: no record,
   no decision). */
static void gate_decide(gate_run *g, gate_call *c, unsigned long lineno)
{
	char why[300];
	locus_error err;
	memset(&err, 0, sizeof(err));
	if (!c->has_spent)
		c->in.spent_usd = g->spent;
	c->in.workspace_root = g->root;
	/* a shell wrapper is judged as the script it runs, as the hooks
	   judge it (one answer per call, whatever the front end) */
	/* (not with a \u0000: cJSON would cut the command there; such a
	   call is judged unparsed by locus_gate) */
	if (c->args && hook_tool_is_shell(c->tool) &&
	    !lu_json_has_nul_escape(c->args, strlen(c->args))) {
		cJSON *a = cJSON_Parse(c->args);
		char *na = NULL;
		if (a && hook_shell_unwrap(a) == 0)
			na = cJSON_PrintUnformatted(a);
		cJSON_Delete(a);
		char *dup = na ? strdup(na) : NULL;
		cJSON_free(na);
		if (dup) {
			free(c->args);
			c->args = dup;
		}
	}
	locus_decision *d = NULL;
	int rc = locus_gate(&d, g->policy, g->parser, c->tool, c->args,
	                    c->args ? strlen(c->args) : 0, &c->in, &err);
	if (rc) {
		print_error(err.message[0] ? err.message
		                           : locus_error_code_name(rc),
		            lineno);
		g->bad = true;
		return;
	}
	if (g->audit && locus_audit_append(g->audit, d, &err)) {
		/* no record, no decision: fail closed */
		snprintf(why, sizeof(why), "audit: %s", err.message);
		print_error(why, lineno);
		g->bad = true;
		locus_decision_free(d);
		return;
	}
	char *s = NULL;
	if (locus_decision_json(&s, d, 0) == 0) {
		printf("%s\n", s);
		locus_free(s);
	}
	fflush(stdout);
	locus_outcome oc = locus_decision_outcome(d);
	if ((int)oc > g->strongest)
		g->strongest = (int)oc;
	if (oc == LOCUS_OUTCOME_ALLOW && c->in.has_cost)
		g->spent += c->in.cost_usd;
	locus_decision_free(d);
}

/* One input line: blank lines are skipped, anything that is not a call
   object is an error line. */
static void gate_line(gate_run *g, const char *line, size_t n,
                      unsigned long lineno)
{
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	size_t k = 0;
	while (k < n && (line[k] == ' ' || line[k] == '\t'))
		k++;
	if (k == n)
		return;
	char why[300];
	/* "\u0000" is JSON: cJSON would cut the string there, so the escapes
	   are marked (\u0001) for the read and put back in the arguments
	   text, which locus_gate() judges unparsed */
	char *copy = NULL;
	bool nul = lu_json_has_nul_escape(line, n);
	if (nul) {
		copy = malloc(n);
		if (!copy) {
			print_error("out of memory", lineno);
			g->bad = true;
			return;
		}
		memcpy(copy, line, n);
		lu_json_mark_nul_escapes(copy, n);
		line = copy;
	}
	cJSON *o = NULL;
	lu_json_problem jp = lu_json_read(&o, line, n, NULL, NULL);
	free(copy);
	if (!o) {
		snprintf(why, sizeof(why), "%s",
		         jp == LU_JSON_DUPLICATE
		             ? "duplicate key in the tool call"
		         : jp == LU_JSON_NUL
		             ? "the line holds a NUL byte (raw, not \\u0000)"
		             : "line is not JSON");
		print_error(why, lineno);
		g->bad = true;
		return;
	}
	gate_call c;
	memset(&c, 0, sizeof(c));
	if (parse_call(o, &c, why, sizeof(why))) {
		print_error(why, lineno);
		g->bad = true;
	} else {
		if (nul && c.args)
			lu_json_unmark_nul_escapes(c.args, strlen(c.args));
		gate_decide(g, &c, lineno);
	}
	cJSON_Delete(o);
	gate_call_free(&c);
}

/* Every line of stdin; the exit status (2 when a line could not be
   decided; with --exit-code 3 for a hold, 4 for a deny). */
static int gate_lines(gate_run *g, bool exit_code)
{
	cli_lines in = CLI_LINES_INIT(stdin);
	char *line;
	size_t n;
	while (cli_lines_next(&in, &line, &n))
		gate_line(g, line, n, in.lineno);
	cli_lines_free(&in);
	if (g->bad)
		return 2;
	if (!exit_code || g->strongest <= 0)
		return 0;
	return g->strongest == LOCUS_OUTCOME_DENY ? 4 : 3;
}

static void gate_usage(FILE *f)
{
	fprintf(f,
	        "usage: locus gate [--policy FILE | --preset NAME]\n"
	        "                  [--claude-settings FILE]... "
	        "[--claude-project DIR]\n"
	        "                  [--audit FILE [--audit-key KEY]] [--fsync] "
	        "[--root DIR] [--exit-code]\n"
	        "reads tool calls as JSON lines on stdin: "
	        "{\"tool\":...,\"arguments\":{...}}\n");
}

int cli_gate(int argc, char **argv)
{
	const char *policy_file = NULL, *preset = NULL;
	cli_claude_opts claude = {0};
	const char *audit_file = NULL, *root = NULL, *audit_key = NULL;
	bool exit_code = false, do_fsync = false;
	const cli_opt opts[] = {
	    CLI_OPT_FLAG("--exit-code", &exit_code),
	    CLI_OPT_FLAG("--fsync", &do_fsync),
	    CLI_OPT_POLICY(&policy_file, &preset, &claude, "gate"),
	    CLI_OPT_AUDIT(&audit_file, &audit_key),
	    CLI_OPT_VALUE("--root", &root),
	};
	int prc = cli_opt_parse(opts, CLI_OPT_N(opts), "gate", gate_usage, argc,
	                        argv, 1);
	if (prc)
		return prc == 1 ? 0 : 2;
	locus_policy *policy;
	int rc = cli_policy_build_claude(policy_file, preset, &claude, &policy);
	if (rc)
		return rc;
	char rootbuf[PATH_MAX];
	char *root_real = NULL;
	if (root) {
		/* the label and the path rules need an absolute root */
		root_real = cli_absolute_dir(root);
		if (!root_real) {
			fprintf(stderr,
			        "locus gate: --root %s: not a directory\n",
			        root);
			locus_policy_free(policy);
			return 2;
		}
		root = root_real;
	}
	if (!root && getcwd(rootbuf, sizeof(rootbuf)))
		root = rootbuf;
	gate_run g = {.policy = policy, .root = root, .strongest = -1};
	int status = gate_open(&g, audit_file, audit_key, do_fsync);
	if (!status)
		status = gate_lines(&g, exit_code);
	locus_shell_parser_free(g.parser);
	locus_audit_close(g.audit);
	free(root_real);
	locus_policy_free(policy);
	return status;
}

/* --- the policy corpus ------------------------------------------------------ */

/*
 * A case file is a sequence of blocks separated by blank lines; `#` lines
 * are comments.  Keys (one per line, `key: value`):
 *   format: policy                 (optional header)
 *   policy: {JSON}  | preset: NAME  set the policy for the blocks after it
 *   settings: {JSON}               Claude Code settings merged into it
 *   root: DIR                      workspace root for path rules
 *   error: TEXT                    the block's policy/settings must fail to
 *                                  load with a message containing TEXT
 *   call: {JSON}                   a tool call, as `locus gate` reads it
 *   outcome: allow|require_human|deny
 *   reason: TEXT  (exact)  | reason~: TEXT (contains)
 *   permission: allow|ask|deny|none
 *   labels+: L...  labels-: L...   labels present / absent
 *   waived~: TEXT                  some waived check contains TEXT
 * A block without `call:` only sets the context (or tests `error:`).
 */

typedef struct pcase {
	char *policy, *preset, *settings, *root, *error;
	char *call, *outcome, *reason, *reason_has, *permission;
	char *labels_in, *labels_out, *waived_has;
	unsigned long line;
} pcase;

static void pcase_clear(pcase *k)
{
	char **f[] = {&k->policy,     &k->preset,    &k->settings,
	              &k->root,       &k->error,     &k->call,
	              &k->outcome,    &k->reason,    &k->reason_has,
	              &k->permission, &k->labels_in, &k->labels_out,
	              &k->waived_has};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		free(*f[i]);
		*f[i] = NULL;
	}
	k->line = 0;
}

typedef struct pctx {
	locus_policy *policy;
	char *root;
	bool broken; /* the current policy failed to load */
} pctx;

/* Build a policy from a block's policy/preset/settings.  0, or -1 with
 * the loader's message in msg. */
static int block_policy(const pcase *k, const pctx *ctx, locus_policy **out,
                        char *msg, size_t ml)
{
	locus_error err;
	memset(&err, 0, sizeof(err));
	*out = NULL;
	int rc = 0;
	if (k->policy)
		rc = locus_policy_load(out, k->policy, strlen(k->policy), &err);
	else if (k->preset)
		rc = locus_policy_preset(out, k->preset, &err);
	else if (ctx->policy) {
		/* settings on top of the current policy: rebuild it from JSON */
		char *j = NULL;
		if (locus_policy_json(&j, ctx->policy, 0) == 0) {
			rc = locus_policy_load(out, j, strlen(j), &err);
			locus_free(j);
		} else {
			rc = LOCUS_ENOMEM;
		}
	} else {
		rc = locus_policy_preset(out, "standard", &err);
	}
	if (!rc && k->settings)
		rc = locus_policy_add_claude_settings(
		    *out, k->settings, strlen(k->settings), &err);
	if (rc) {
		snprintf(msg, ml, "%s",
		         err.message[0] ? err.message
		                        : locus_error_code_name(rc));
		locus_policy_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

static bool word_in(const locus_decision *d, const char *list, bool want,
                    char *missing, size_t ml)
{
	char *copy = strdup(list);
	bool ok = true;
	for (char *sv = NULL, *w = strtok_r(copy, " \t", &sv); w;
	     w = strtok_r(NULL, " \t", &sv)) {
		if (locus_decision_has_label(d, w) != want) {
			snprintf(missing, ml, "%s", w);
			ok = false;
			break;
		}
	}
	free(copy);
	return ok;
}

/* Run one block. */
/* An `error:` block: its policy must fail to load with that text. */
static bool block_load_error(const char *path, const pcase *k, const pctx *ctx,
                             FILE *out)
{
	char msg[400];
	locus_policy *p = NULL;
	if (!(k->policy || k->preset || k->settings)) {
		fprintf(out,
		        "FAIL %s:%lu: error: needs policy:, preset: or "
		        "settings:\n",
		        path, k->line);
		return false;
	}
	if (block_policy(k, ctx, &p, msg, sizeof(msg)) == 0) {
		fprintf(out,
		        "FAIL %s:%lu: expected a load error containing "
		        "'%s', the policy loaded\n",
		        path, k->line, k->error);
		locus_policy_free(p);
		return false;
	}
	if (!strstr(msg, k->error)) {
		fprintf(out,
		        "FAIL %s:%lu: expected a load error containing "
		        "'%s'\n  got: %s\n",
		        path, k->line, k->error, msg);
		return false;
	}
	return true;
}

/* What of a case's expectations the decision misses, into `bad` (left
   "" when it meets them all). */
static void case_mismatch(const pcase *k, const locus_decision *d, char *bad,
                          size_t bl)
{
	const char *got_out = locus_outcome_name(locus_decision_outcome(d));
	const char *got_reason = locus_decision_reason(d);
	const char *got_perm = locus_decision_permission(d);
	char miss[128];
	bad[0] = '\0';
	if (strcmp(k->outcome, got_out))
		snprintf(bad, bl, "outcome: expected %s", k->outcome);
	else if (k->reason && strcmp(k->reason, got_reason))
		snprintf(bad, bl, "reason: expected '%s'", k->reason);
	else if (k->reason_has && !strstr(got_reason, k->reason_has))
		snprintf(bad, bl, "reason: expected to contain '%s'",
		         k->reason_has);
	else if (k->permission &&
	         strcmp(k->permission, got_perm ? got_perm : "none"))
		snprintf(bad, bl, "permission: expected %s", k->permission);
	else if (k->labels_in &&
	         !word_in(d, k->labels_in, true, miss, sizeof(miss)))
		snprintf(bad, bl, "labels+: %s missing", miss);
	else if (k->labels_out &&
	         !word_in(d, k->labels_out, false, miss, sizeof(miss)))
		snprintf(bad, bl, "labels-: %s present", miss);
	else if (k->waived_has) {
		bool found = false;
		for (size_t i = 0; i < locus_decision_waived_count(d); i++)
			found |= strstr(locus_decision_waived_reason(d, i),
			                k->waived_has) != NULL;
		if (!found)
			snprintf(bad, bl, "waived~: none contains '%s'",
			         k->waived_has);
	}
}

/* A case's call, decided under the block's policy and checked. */
static bool case_call(const char *path, const pcase *k, const pctx *ctx,
                      FILE *out)
{
	cJSON *o = NULL;
	lu_json_read(&o, k->call, strlen(k->call), NULL, NULL);
	gate_call c;
	memset(&c, 0, sizeof(c));
	char why[300];
	if (!o || parse_call(o, &c, why, sizeof(why))) {
		fprintf(out, "FAIL %s:%lu: bad call: %s\n", path, k->line,
		        o ? why : "not JSON");
		cJSON_Delete(o);
		gate_call_free(&c);
		return false;
	}
	cJSON_Delete(o);
	c.in.workspace_root = ctx->root;
	locus_decision *d = NULL;
	locus_error err;
	memset(&err, 0, sizeof(err));
	int rc = locus_gate(&d, ctx->policy, NULL, c.tool, c.args,
	                    c.args ? strlen(c.args) : 0, &c.in, &err);
	gate_call_free(&c);
	if (rc) {
		fprintf(out, "FAIL %s:%lu: gate error: %s\n", path, k->line,
		        err.message);
		return false;
	}
	char bad[300];
	case_mismatch(k, d, bad, sizeof(bad));
	if (bad[0]) {
		char *j = NULL;
		locus_decision_json(&j, d, 0);
		fprintf(out, "FAIL %s:%lu: %s\n  call: %s\n  got: %s\n", path,
		        k->line, bad, k->call, j ? j : "?");
		locus_free(j);
	}
	locus_decision_free(d);
	return !bad[0];
}

static void run_block(const char *path, pcase *k, pctx *ctx, FILE *out,
                      int *passed, int *failed)
{
	char msg[400];
	if (k->root) {
		free(ctx->root);
		ctx->root = strdup(k->root);
	}
	if (k->error) {
		(*(block_load_error(path, k, ctx, out) ? passed : failed))++;
		return;
	}
	if (k->policy || k->preset || k->settings) {
		locus_policy *p = NULL;
		locus_policy_free(ctx->policy);
		ctx->policy = NULL;
		ctx->broken = block_policy(k, ctx, &p, msg, sizeof(msg)) != 0;
		if (ctx->broken) {
			fprintf(out, "FAIL %s:%lu: policy does not load: %s\n",
			        path, k->line, msg);
			(*failed)++;
			return;
		}
		ctx->policy = p;
	}
	if (!k->call)
		return;
	if (!k->outcome) {
		fprintf(out, "FAIL %s:%lu: a case needs outcome:\n", path,
		        k->line);
		(*failed)++;
		return;
	}
	if (ctx->broken) {
		fprintf(out, "FAIL %s:%lu: no usable policy\n", path, k->line);
		(*failed)++;
		return;
	}
	if (!ctx->policy &&
	    locus_policy_preset(&ctx->policy, "standard", NULL)) {
		(*failed)++;
		return;
	}
	(*(case_call(path, k, ctx, out) ? passed : failed))++;
}

int cli_corpus_policy_file(const char *path, FILE *out, int *passed,
                           int *failed)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(out, "FORMAT %s: %s\n", path, strerror(errno));
		return 2;
	}
	static const struct {
		const char *key;
		size_t off;
		/* clang-format off */
	} keys[] = {
		{"policy", offsetof(pcase, policy)},
	    /* clang-format on */
	    {"preset", offsetof(pcase, preset)},
	    {"settings", offsetof(pcase, settings)},
	    {"root", offsetof(pcase, root)},
	    {"error", offsetof(pcase, error)},
	    {"call", offsetof(pcase, call)},
	    {"outcome", offsetof(pcase, outcome)},
	    {"reason", offsetof(pcase, reason)},
	    {"reason~", offsetof(pcase, reason_has)},
	    {"permission", offsetof(pcase, permission)},
	    {"labels+", offsetof(pcase, labels_in)},
	    {"labels-", offsetof(pcase, labels_out)},
	    {"waived~", offsetof(pcase, waived_has)},
	};
	pcase k;
	memset(&k, 0, sizeof(k));
	pctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	int status = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	unsigned long lineno = 0;
	bool open_block = false;
	for (;;) {
		got = getline(&line, &cap, f);
		bool eof = got < 0;
		size_t n = eof ? 0 : (size_t)got;
		if (!eof)
			lineno++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' ||
		             line[n - 1] == ' '))
			n--;
		if (!eof)
			line[n] = '\0';
		if (eof || n == 0) {
			if (open_block)
				run_block(path, &k, &ctx, out, passed, failed);
			pcase_clear(&k);
			open_block = false;
			if (eof)
				break;
			continue;
		}
		if (line[0] == '#')
			continue;
		if (!strncmp(line, "format:", 7))
			continue;
		char *colon = strstr(line, ": ");
		size_t klen = colon ? (size_t)(colon - line) : 0;
		bool known = false;
		for (size_t i = 0; colon && i < sizeof(keys) / sizeof(keys[0]);
		     i++) {
			if (strlen(keys[i].key) == klen &&
			    !strncmp(line, keys[i].key, klen)) {
				char **slot =
				    (char **)((char *)&k + keys[i].off);
				free(*slot);
				*slot = strdup(colon + 2);
				known = true;
			}
		}
		if (!known) {
			fprintf(out, "FORMAT %s:%lu: unknown line '%.60s'\n",
			        path, lineno, line);
			status = 2;
			continue;
		}
		if (!open_block)
			k.line = lineno;
		open_block = true;
	}
	free(line);
	fclose(f);
	pcase_clear(&k);
	locus_policy_free(ctx.policy);
	free(ctx.root);
	return status;
}
