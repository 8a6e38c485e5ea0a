/*
 * gateway/admit.c - admission (`POST /v1/admit`) decided by the locus
 * policy engine, the same gate as `locus gate` (locus_gate over the run's
 * policy: a preset or a policy object, the run's workspace as the root),
 * and approval polling (`GET /v1/admit/approval/{id}`).
 *
 * allow: a one-shot decision token (kept hashed) is minted for exactly
 * this call.  require_human: a pending approval (the same call asked
 * again, after a lost answer, gets the same one).  deny, or a call the
 * engine cannot decide: deny.  A re-admission naming an approval runs
 * only when that approval is for this very call and approved; it is then
 * consumed.  Every decision is one audit record, in the transaction that
 * stores it.
 *
 * The runner's own tools (`ask_user` and `task` with `runs: box`: no
 * harness tool, nothing runs in the box) are labelled here, as what they
 * are, and decided by the same policy through locus_decide: a question to
 * a person (agent:question) and a child run whose every call is admitted
 * under this run's policy (agent:task).  Neither changes anything by
 * itself, so both are of kind workspace.read; a policy that wants a person
 * to see them lists the label in require_human_for (docs/gateway.md).
 */
#include "gateway/gw.h"

#include <stdio.h>

#include "harness/internal.h"
#include "locus/policy.h"
#include "runner/json.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int gw_policy_text(const cJSON *policy, char **text, locus_error *err)
{
	*text = NULL;
	const char *preset = lr_json_str(policy, "preset", NULL);
	if (preset && cJSON_GetArraySize(policy) == 1) {
		const char *t = locus_policy_preset_json(preset);
		if (!t)
			return lu_err(err, LOCUS_EINVALID,
			              "policy: no preset named \"%.60s\"",
			              preset);
		*text = strdup(t);
	} else
		*text = cJSON_PrintUnformatted(policy);
	if (!*text)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	locus_policy *p = NULL;
	int rc = locus_policy_load(&p, *text, strlen(*text), err);
	locus_policy_free(p);
	if (rc) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

typedef struct verdict {
	const char *outcome; /* allow require_human deny */
	char reason[512];
	cJSON *labels, *checks;
} verdict;

/* The runner's own tools: what each is, for the policy. */
static const struct runner_tool {
	const char *name, *label, *asset; /* asset: the argument shown */
} runner_tools[] = {
    {"ask_user", "agent:question", "question"},
    {"task", "agent:task", "agent"},
};

/* The runner's own tool of that name, when the manifest runs it in the box
   (a `task` served by an MCP server is that server's tool, gated as any). */
static const struct runner_tool *runner_tool(const char *manifest,
                                             const char *tool)
{
	const struct runner_tool *rt = NULL;
	for (size_t i = 0; i < sizeof runner_tools / sizeof runner_tools[0];
	     i++)
		if (!strcmp(tool, runner_tools[i].name))
			rt = &runner_tools[i];
	cJSON *m = NULL;
	locus_error err;
	if (!rt || !manifest ||
	    lr_json_parse(manifest, strlen(manifest), &m, &err))
		return NULL;
	bool box = false;
	const cJSON *tools = lr_json_arr(m, "tools", NULL);
	for (const cJSON *t = tools ? tools->child : NULL; t; t = t->next) {
		const char *n = lr_json_str(t, "name", NULL);
		const char *runs = lr_json_str(t, "runs", NULL);
		if (n && !strcmp(n, tool))
			box = !runs || !strcmp(runs, "box");
	}
	cJSON_Delete(m);
	return box ? rt : NULL;
}

/* locus_gate for a call, or locus_decide over the action of one of the
   runner's own tools. */
static int gate(locus_decision **d, const locus_policy *p,
                const struct runner_tool *rt, const char *tool,
                const char *args, const locus_gate_input *in, locus_error *err)
{
	if (!rt)
		return locus_gate(d, p, NULL, tool, args, strlen(args), in,
		                  err);
	cJSON *a = NULL;
	int rc = lr_json_parse(args, strlen(args), &a, err);
	const char *asset = rc ? NULL : lr_json_str(a, rt->asset, NULL);
	locus_action *act = NULL;
	if (!rc && !asset)
		rc = lu_err(err, LOCUS_EINVALID,
		            "%s: the argument \"%s\" is not a string", tool,
		            rt->asset);
	if (!rc)
		rc = locus_action_new(&act, tool, LOCUS_KIND_READ, asset, err);
	if (!rc)
		rc = locus_action_add_tag(act, tool);
	if (!rc)
		rc = locus_action_add_tag(act, rt->label);
	if (!rc)
		rc = locus_decide(d, p, act, in, err);
	locus_action_free(act);
	cJSON_Delete(a);
	return rc;
}

/* The policy engine's decision on one call (fail closed: an error is a
   deny naming it). */
static void decide(verdict *v, const char *policy, const char *workspace,
                   const char *manifest, const char *tool, const char *args)
{
	locus_policy *p = NULL;
	locus_decision *d = NULL;
	locus_error err;
	v->labels = cJSON_CreateArray();
	v->checks = cJSON_CreateArray();
	int rc = locus_policy_load(&p, policy, strlen(policy), &err);
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	in.workspace_root = workspace && workspace[0] == '/' ? workspace : NULL;
	if (!rc)
		rc = gate(&d, p, runner_tool(manifest, tool), tool, args, &in,
		          &err);
	if (rc) {
		v->outcome = "deny";
		snprintf(v->reason, sizeof v->reason,
		         "the policy engine could not decide this call: %s",
		         err.message);
	} else {
		locus_outcome o = locus_decision_outcome(d);
		v->outcome = o == LOCUS_OUTCOME_ALLOW ? "allow"
		             : o == LOCUS_OUTCOME_REQUIRE_HUMAN
		                 ? "require_human"
		                 : "deny";
		snprintf(v->reason, sizeof v->reason, "%s",
		         locus_decision_reason(d));
		for (size_t i = 0; i < locus_decision_label_count(d); i++)
			cJSON_AddItemToArray(
			    v->labels,
			    cJSON_CreateString(locus_decision_label(d, i)));
		for (size_t i = 0; i < locus_decision_check_count(d); i++) {
			locus_outcome co = locus_decision_check_outcome(d, i);
			cJSON *c = cJSON_CreateObject();
			cJSON_AddStringToObject(
			    c, "outcome",
			    co == LOCUS_OUTCOME_ALLOW ? "allow"
			    : co == LOCUS_OUTCOME_REQUIRE_HUMAN
			        ? "require_human"
			        : "deny");
			cJSON_AddStringToObject(
			    c, "reason", locus_decision_check_reason(d, i));
			cJSON_AddItemToArray(v->checks, c);
		}
	}
	locus_decision_free(d);
	locus_policy_free(p);
}

typedef struct admission {
	const char *run_id, *call_id, *tool, *approval_id;
	char *args; /* canonical */
	const cJSON *args_json;
	char *policy, *fingerprint, *workspace, *state, *manifest;
	bool by_gateway; /* a tool the gateway performs: no hold, no token */
} admission;

static void admission_free(admission *a)
{
	free(a->args);
	free(a->policy);
	free(a->fingerprint);
	free(a->workspace);
	free(a->state);
	free(a->manifest);
}

static int load_run(gw_db *db, admission *a, locus_error *err)
{
	gw_stmt *st = gw_q(db, err,
	                   "SELECT policy, policy_fingerprint, workspace, "
	                   "state, manifest FROM runs WHERE run_id = ?",
	                   "s", a->run_id);
	if (st && gw_row(st)) {
		a->policy = gw_col_dup(st, 0);
		a->fingerprint = gw_col_dup(st, 1);
		a->workspace = gw_col_dup(st, 2);
		a->state = gw_col_dup(st, 3);
		a->manifest = gw_col_dup(st, 4);
	}
	gw_done(st);
	return a->policy && a->fingerprint && a->state ? 0 : LOCUS_EIO;
}

/* A re-admission naming an approval. */
static int readmit(gw_db *db, admission *a, verdict *v, locus_error *err)
{
	v->labels = cJSON_CreateArray();
	v->checks = cJSON_CreateArray();
	gw_stmt *st =
	    gw_q(db, err,
	         "SELECT run_id, call_id, tool, arguments, state, decided_by, "
	         "justification FROM approvals WHERE approval_id = ?",
	         "s", a->approval_id);
	if (!st)
		return LOCUS_EIO;
	v->outcome = "deny";
	bool consume = false;
	if (!gw_row(st) || strcmp(gw_text(st, 0), a->run_id))
		snprintf(v->reason, sizeof v->reason,
		         "no approval %.60s for this run", a->approval_id);
	else if (strcmp(gw_text(st, 1), a->call_id) ||
	         strcmp(gw_text(st, 2), a->tool) ||
	         strcmp(gw_text(st, 3), a->args))
		snprintf(v->reason, sizeof v->reason,
		         "approval %.60s is for another call", a->approval_id);
	else if (strcmp(gw_text(st, 4), "approved"))
		snprintf(v->reason, sizeof v->reason, "approval %.60s is %s",
		         a->approval_id, gw_text(st, 4));
	else {
		const char *by = gw_text(st, 5);
		const char *why = gw_text(st, 6);
		v->outcome = "allow";
		snprintf(v->reason, sizeof v->reason, "approved by %s: %s",
		         by ? by : "?", why ? why : "");
		consume = true;
	}
	gw_done(st);
	if (!consume)
		return 0;
	return gw_exec(db, err,
	               "UPDATE approvals SET state = 'consumed' WHERE "
	               "approval_id = ? AND state = 'approved'",
	               "s", a->approval_id);
}

/* require_human: the pending approval of this very call, or a new one. */
static int hold(gw_db *db, admission *a, verdict *v, char *ap, locus_error *err)
{
	gw_stmt *st = gw_q(db, err,
	                   "SELECT approval_id FROM approvals WHERE "
	                   "run_id = ? AND call_id = ? AND tool = ? AND "
	                   "arguments = ? AND state = 'pending'",
	                   "ssss", a->run_id, a->call_id, a->tool, a->args);
	if (!st)
		return LOCUS_EIO;
	bool found = gw_row(st);
	if (found)
		snprintf(ap, 48, "%s", gw_text(st, 0));
	gw_done(st);
	if (found)
		return 0;
	int rc = gw_new_id("ap-", ap, err);
	if (rc)
		return rc;
	cJSON *dec = cJSON_CreateObject();
	cJSON_AddItemToObject(dec, "labels", cJSON_Duplicate(v->labels, 1));
	cJSON_AddItemToObject(dec, "checks", cJSON_Duplicate(v->checks, 1));
	char *dec_text = lr_json_canonical(dec);
	cJSON_Delete(dec);
	rc = dec_text ? gw_exec(db, err,
	                        "INSERT INTO approvals (approval_id, run_id, "
	                        "call_id, tool, arguments, reason, decision, "
	                        "policy_fingerprint, state, created_at) VALUES "
	                        "(?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
	                        "ssssssssi", ap, a->run_id, a->call_id, a->tool,
	                        a->args, v->reason, dec_text, a->fingerprint,
	                        (int64_t)time(NULL))
	              : LOCUS_ENOMEM;
	free(dec_text);
	return rc;
}

static int issue_token(gw_db *db, admission *a, char *token, locus_error *err)
{
	int rc = gw_new_id("ldt_", token, err);
	char hash[65];
	gw_token_hash(token, hash);
	if (!rc)
		rc = gw_exec(db, err,
		             "INSERT INTO decisions VALUES (?, ?, ?, ?, ?, "
		             "'issued', ?)",
		             "sssssi", hash, a->run_id, a->call_id, a->tool,
		             a->args, (int64_t)time(NULL));
	return rc;
}

/* Decide and store, inside a transaction; the answer into o. */
static int admit_tx(gw_db *db, admission *a, cJSON *o, locus_error *err)
{
	int rc = load_run(db, a, err);
	if (rc)
		return rc;
	if (strcmp(a->state, "running"))
		return lu_err(err, LOCUS_ECONFLICT, "the run is %s", a->state);
	verdict v = {0};
	char ap[48] = "", token[48] = "", audit_id[32] = "";
	if (a->approval_id)
		rc = readmit(db, a, &v, err);
	else
		decide(&v, a->policy, a->workspace, a->manifest, a->tool,
		       a->args);
	if (!rc && !a->by_gateway && !strcmp(v.outcome, "require_human"))
		rc = hold(db, a, &v, ap, err);
	if (!rc && !a->by_gateway && !strcmp(v.outcome, "allow"))
		rc = issue_token(db, a, token, err);
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "call_id", a->call_id);
	cJSON_AddStringToObject(rec, "tool", a->tool);
	cJSON_AddItemToObject(rec, "arguments",
	                      cJSON_Duplicate(a->args_json, true));
	cJSON_AddStringToObject(rec, "outcome", v.outcome);
	cJSON_AddStringToObject(rec, "reason", v.reason);
	cJSON_AddItemToObject(rec, "labels", cJSON_Duplicate(v.labels, 1));
	cJSON_AddItemToObject(rec, "checks", cJSON_Duplicate(v.checks, 1));
	cJSON_AddStringToObject(rec, "policy_fingerprint", a->fingerprint);
	if (a->by_gateway)
		cJSON_AddStringToObject(rec, "performed_by", "gateway");
	if (a->approval_id)
		cJSON_AddStringToObject(rec, "approval_id", a->approval_id);
	else if (ap[0])
		cJSON_AddStringToObject(rec, "approval_id", ap);
	if (!rc)
		rc = gw_audit(db, "admission", a->run_id, rec, audit_id, err);
	cJSON_Delete(rec);
	cJSON_AddStringToObject(o, "outcome", v.outcome);
	cJSON_AddBoolToObject(o, "allowed", !strcmp(v.outcome, "allow"));
	cJSON_AddStringToObject(o, "reason", v.reason);
	cJSON_AddStringToObject(o, "audit_id", audit_id);
	if (ap[0])
		cJSON_AddStringToObject(o, "approval_id", ap);
	if (token[0])
		cJSON_AddStringToObject(o, "decision_token", token);
	cJSON_AddItemToObject(o, "labels", v.labels);
	cJSON_AddItemToObject(o, "checks", v.checks);
	cJSON_AddStringToObject(o, "policy_fingerprint", a->fingerprint);
	explicit_bzero(token, sizeof token);
	return rc;
}

void gw_admit(gw_req *q, gw_resp *r)
{
	static const char *const req[] = {"run_id", "call_id", "tool",
	                                  "arguments", NULL};
	static const char *const opt[] = {"approval_id", NULL};
	cJSON *b = gw_body(q, r, req, opt);
	if (!b)
		return;
	admission a = {0};
	const char *bad = NULL;
	a.run_id = lr_json_str(b, "run_id", &bad);
	a.call_id = lr_json_str(b, "call_id", &bad);
	a.tool = lr_json_str(b, "tool", &bad);
	a.approval_id = lr_json_str(b, "approval_id", &bad);
	const cJSON *args = lr_json_obj(b, "arguments", &bad);
	if (bad || !a.run_id || !a.call_id || !a.tool || !args || !*a.tool ||
	    !*a.call_id) {
		cJSON_Delete(b);
		gw_refuse(q, r, 422, "a mistyped admission (%s)",
		          bad ? bad : "an empty field");
		return;
	}
	if (strcmp(a.run_id, q->run_id)) {
		cJSON_Delete(b);
		gw_refuse(q, r, 403, "an admission for another run");
		return;
	}
	a.args = lr_json_canonical(args);
	a.args_json = args;
	gw_db *db = &q->srv->db;
	locus_error err;
	cJSON *o = cJSON_CreateObject();
	int rc = a.args && o ? gw_tx_begin(db, &err) : LOCUS_ENOMEM;
	if (!rc) {
		rc = admit_tx(db, &a, o, &err);
		if (gw_tx_end(db, rc == 0, &err) && !rc)
			rc = LOCUS_EIO;
	}
	admission_free(&a);
	cJSON_Delete(b);
	if (rc == LOCUS_ECONFLICT) {
		cJSON_Delete(o);
		gw_refuse(q, r, 409, "%s", err.message);
	} else if (rc) {
		cJSON_Delete(o);
		gw_fail(r, 503, "the admission could not be stored");
	} else {
		gw_reply(r, 200, o);
		gw_notify(q->srv);
	}
}

int gw_admit_gateway_tool(gw_db *db, const char *run_id, const char *call_id,
                          const char *tool, const cJSON *args, cJSON *answer,
                          locus_error *err)
{
	admission a = {.run_id = run_id,
	               .call_id = call_id,
	               .tool = tool,
	               .args_json = args,
	               .by_gateway = true};
	a.args = lr_json_canonical(args);
	int rc = a.args ? gw_tx_begin(db, err) : LOCUS_ENOMEM;
	if (!rc) {
		rc = admit_tx(db, &a, answer, err);
		if (gw_tx_end(db, rc == 0, err) && !rc)
			rc = LOCUS_EIO;
	}
	admission_free(&a);
	return rc;
}

void gw_approval_poll(gw_req *q, gw_resp *r, const char *approval_id)
{
	if (!gw_no_body(q, r))
		return;
	locus_error err;
	gw_db_lock(&q->srv->db);
	gw_stmt *st = gw_q(&q->srv->db, &err,
	                   "SELECT state, decided_by, justification FROM "
	                   "approvals WHERE approval_id = ? AND run_id = ?",
	                   "ss", approval_id, q->run_id);
	char *state = NULL, *by = NULL, *why = NULL;
	if (st && gw_row(st)) {
		state = gw_col_dup(st, 0);
		by = gw_col_dup(st, 1);
		why = gw_col_dup(st, 2);
	}
	gw_done(st);
	gw_db_unlock(&q->srv->db);
	if (!state) {
		gw_refuse(q, r, 404, "no approval %.60s for this run",
		          approval_id);
		return;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "approval_id", approval_id);
	cJSON_AddStringToObject(o, "state", state);
	/* who settled it and why: the runner tells the model */
	if (by)
		cJSON_AddStringToObject(o, "decided_by", by);
	if (why)
		cJSON_AddStringToObject(o, "justification", why);
	free(state);
	free(by);
	free(why);
	gw_reply(r, 200, o);
}
