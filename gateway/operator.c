/*
 * gateway/operator.c - the operator API (operator tokens only; a run
 * token never reaches it): create a run from a definition, list and show
 * runs with their events, stop a run, answer a parked question, list
 * pending approvals, decide one (approve or deny, who and why), verify
 * the audit chain, take a decision token (for a guard in front of an MCP
 * or API host), and the page's change stream.  An operator sees only its
 * tenant's runs.  Routes and shapes: docs/gateway.md.
 */
#include "gateway/box.h"

#include <stdio.h>

#include "harness/internal.h"
#include "runner/json.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static cJSON *col_json(gw_stmt *st, int i)
{
	const char *t = gw_text(st, i);
	cJSON *v = NULL;
	locus_error err;
	if (!t || lr_json_parse(t, strlen(t), &v, &err))
		return cJSON_CreateNull();
	return v;
}

static void add_col(cJSON *o, const char *k, gw_stmt *st, int i)
{
	switch (gw_type(st, i)) {
	case GW_COL_NULL: cJSON_AddNullToObject(o, k); break;
	case GW_COL_INT:
		cJSON_AddNumberToObject(o, k, (double)gw_int(st, i));
		break;
	default: cJSON_AddStringToObject(o, k, gw_text(st, i));
	}
}

static void create_run(gw_req *q, gw_resp *r)
{
	static const char *const req[] = {"definition", NULL};
	static const char *const opt[] = {"box", NULL};
	cJSON *b = gw_body(q, r, req, opt);
	if (!b)
		return;
	const char *bad = NULL;
	const cJSON *def = lr_json_obj(b, "definition", &bad);
	const char *box_arg = lr_json_str(b, "box", &bad);
	char box[16];
	snprintf(box, sizeof box, "%.15s", box_arg ? box_arg : "none");
	if (bad || !def ||
	    (strcmp(box, "none") && strcmp(box, "local") &&
	     strcmp(box, "openshell"))) {
		cJSON_Delete(b);
		gw_refuse(q, r, 422,
		          "definition is an object, box none, local or "
		          "openshell");
		return;
	}
	if (!strcmp(box, "openshell") && !q->srv->cfg.os.endpoint) {
		cJSON_Delete(b);
		gw_refuse(q, r, 422,
		          "box openshell: this gateway was started without "
		          "--openshell-endpoint");
		return;
	}
	const char *tenant = lr_json_str(def, "tenant", NULL);
	if (tenant && strcmp(tenant, q->tenant)) {
		cJSON_Delete(b);
		gw_refuse(q, r, 403, "a run for another tenant");
		return;
	}
	cJSON *d = cJSON_Duplicate(def, true);
	if (d && !tenant)
		cJSON_AddStringToObject(d, "tenant", q->tenant);
	gw_new_run nr;
	locus_error err;
	gw_db *db = &q->srv->db;
	int rc = d ? gw_tx_begin(db, &err) : LOCUS_ENOMEM;
	if (!rc) {
		rc = gw_run_create(q->srv, d, box, NULL, &nr, &err);
		if (gw_tx_end(db, rc == 0, &err) && !rc)
			rc = LOCUS_EIO;
	}
	cJSON_Delete(d);
	cJSON_Delete(b);
	if (rc == LOCUS_EINVALID) {
		gw_refuse(q, r, 422, "%s", err.message);
		return;
	}
	if (rc) {
		gw_fail(r, 503, "the run could not be made: %s", err.message);
		return;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "run_id", nr.run_id);
	cJSON_AddStringToObject(o, "token", nr.token);
	cJSON_AddStringToObject(o, "url", q->srv->url);
	cJSON_AddStringToObject(o, "box", box);
	explicit_bzero(nr.token, sizeof nr.token);
	gw_reply(r, 201, o);
	gw_notify(q->srv);
	if (!strcmp(box, "none"))
		return;
	if (gw_box_start(q->srv, nr.run_id, &err)) {
		gw_notify(q->srv);
		/* the run is made (and, for an openshell box, now `error`
		   with the reason): say so, and which run */
		cJSON *f = cJSON_CreateObject();
		char why[400];
		snprintf(why, sizeof why,
		         "run %s: its %s box could not start: %s", nr.run_id,
		         box, err.message);
		cJSON_AddStringToObject(f, "detail", why);
		cJSON_AddStringToObject(f, "run_id", nr.run_id);
		gw_reply(r, 502, f);
	}
}

#define RUN_COLS                                                               \
	"run_id, agent, state, box, parent_id, workspace, next_seq, "          \
	"waiting_approval, created_at, updated_at"
#define N_RUN_COLS 10
/* clang-format off */
static const char *const run_cols[] = {
    "run_id",   "agent",    "state",   "box",        "parent_id",
    "workspace", "next_seq", "waiting_approval", "created_at", "updated_at"};
/* clang-format on */

static cJSON *run_row(gw_stmt *st)
{
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < N_RUN_COLS; i++)
		add_col(o, run_cols[i], st, i);
	return o;
}

static void list_runs(gw_req *q, gw_resp *r)
{
	locus_error err;
	cJSON *o = cJSON_CreateObject();
	cJSON *runs = cJSON_AddArrayToObject(o, "runs");
	gw_db_lock(&q->srv->db);
	gw_stmt *st = gw_q(&q->srv->db, &err,
	                   "SELECT " RUN_COLS " FROM runs WHERE tenant = ? "
	                   "ORDER BY created_at, run_id",
	                   "s", q->tenant);
	while (st && gw_row(st))
		cJSON_AddItemToArray(runs, run_row(st));
	gw_done(st);
	gw_db_unlock(&q->srv->db);
	gw_reply(r, st ? 200 : 503, o);
}

static cJSON *approval_row(gw_stmt *st)
{
	/* clang-format off */
	static const char *const cols[] = {
	    "approval_id", "run_id",        "call_id",       "tool",
	    NULL,          "reason",        NULL,            "policy_fingerprint",
	    "state",       "decided_by",    "justification", "created_at",
	    "decided_at"};
	/* clang-format on */
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < 13; i++)
		if (cols[i])
			add_col(o, cols[i], st, i);
	cJSON_AddItemToObject(o, "arguments", col_json(st, 4));
	cJSON *dec = col_json(st, 6);
	cJSON_AddItemToObject(o, "labels",
	                      cJSON_DetachItemFromObject(dec, "labels"));
	cJSON_AddItemToObject(o, "checks",
	                      cJSON_DetachItemFromObject(dec, "checks"));
	cJSON_Delete(dec);
	return o;
}

#define APPROVAL_COLS                                                          \
	"a.approval_id, a.run_id, a.call_id, a.tool, a.arguments, a.reason, "  \
	"a.decision, a.policy_fingerprint, a.state, a.decided_by, "            \
	"a.justification, a.created_at, a.decided_at"

static void show_run(gw_req *q, gw_resp *r, const char *id)
{
	locus_error err;
	cJSON *o = cJSON_CreateObject();
	gw_db_lock(&q->srv->db);
	gw_stmt *st =
	    gw_q(&q->srv->db, &err,
	         "SELECT " RUN_COLS ", result, manifest FROM runs WHERE "
	         "run_id = ? AND tenant = ?",
	         "ss", id, q->tenant);
	bool found = st && gw_row(st);
	if (found) {
		cJSON *run = run_row(st);
		cJSON_AddItemToObject(run, "result", col_json(st, N_RUN_COLS));
		cJSON_AddItemToObject(run, "manifest",
		                      col_json(st, N_RUN_COLS + 1));
		cJSON_AddItemToObject(o, "run", run);
	}
	gw_done(st);
	if (found) {
		cJSON *evs = cJSON_AddArrayToObject(o, "events");
		st = gw_q(&q->srv->db, &err,
		          "SELECT seq, event FROM events WHERE run_id = ? "
		          "ORDER BY seq",
		          "s", id);
		while (st && gw_row(st)) {
			cJSON *e = cJSON_CreateObject();
			add_col(e, "seq", st, 0);
			cJSON_AddItemToObject(e, "event", col_json(st, 1));
			cJSON_AddItemToArray(evs, e);
		}
		gw_done(st);
		cJSON *aps = cJSON_AddArrayToObject(o, "approvals");
		st = gw_q(&q->srv->db, &err,
		          "SELECT " APPROVAL_COLS " FROM approvals a WHERE "
		          "a.run_id = ? ORDER BY a.created_at",
		          "s", id);
		while (st && gw_row(st))
			cJSON_AddItemToArray(aps, approval_row(st));
		gw_done(st);
	}
	gw_db_unlock(&q->srv->db);
	if (!found) {
		cJSON_Delete(o);
		gw_refuse(q, r, 404, "no run %.60s", id);
		return;
	}
	gw_reply(r, 200, o);
}

static void list_approvals(gw_req *q, gw_resp *r)
{
	static const char *const args[] = {"state", NULL};
	const char *state = gw_arg(q, "state");
	if (!gw_args_known(q, args)) {
		gw_refuse(q, r, 400, "approvals take only ?state=");
		return;
	}
	locus_error err;
	cJSON *o = cJSON_CreateObject();
	cJSON *aps = cJSON_AddArrayToObject(o, "approvals");
	gw_db_lock(&q->srv->db);
	gw_stmt *st = gw_q(
	    &q->srv->db, &err,
	    "SELECT " APPROVAL_COLS " FROM approvals a JOIN runs r ON "
	    "r.run_id = a.run_id WHERE r.tenant = ? AND (a.state = ? OR "
	    "CAST(? AS TEXT) = 'all') ORDER BY a.created_at, a.approval_id",
	    "sss", q->tenant, state ? state : "pending",
	    state ? state : "pending");
	while (st && gw_row(st))
		cJSON_AddItemToArray(aps, approval_row(st));
	gw_done(st);
	gw_db_unlock(&q->srv->db);
	gw_reply(r, 200, o);
}

int gw_decide(gw_server *s, const char *tenant, const char *approval_id,
              bool approve, const char *by, const char *why, char *run_id_out,
              bool *restart, locus_error *err)
{
	*restart = false;
	gw_db *db = &s->db;
	gw_stmt *st = gw_q(db, err,
	                   "SELECT a.state, a.run_id FROM approvals a "
	                   "JOIN runs r ON r.run_id = a.run_id WHERE "
	                   "a.approval_id = ? AND r.tenant = ?",
	                   "ss", approval_id, tenant);
	char *state = NULL;
	if (st && gw_row(st)) {
		state = gw_col_dup(st, 0);
		snprintf(run_id_out, 208, "%s", gw_text(st, 1));
	}
	gw_done(st);
	int rc = 0;
	if (!state)
		rc = lu_err(err, LOCUS_ENOTFOUND, "no approval %.60s",
		            approval_id);
	else if (strcmp(state, "pending"))
		rc = lu_err(err, LOCUS_ECONFLICT,
		            "approval %.60s is already %s", approval_id, state);
	const char *to = approve ? "approved" : "denied";
	if (!rc)
		rc = gw_exec(db, err,
		             "UPDATE approvals SET state = ?, decided_by = ?, "
		             "justification = ?, decided_at = ? WHERE "
		             "approval_id = ? AND state = 'pending'",
		             "sssis", to, by, why, (int64_t)time(NULL),
		             approval_id);
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "approval_id", approval_id);
	cJSON_AddStringToObject(rec, "decision", to);
	cJSON_AddStringToObject(rec, "by", by);
	cJSON_AddStringToObject(rec, "why", why);
	if (!rc)
		rc =
		    gw_audit(db, "approval.decide", run_id_out, rec, NULL, err);
	cJSON_Delete(rec);
	if (!rc)
		rc = gw_resume_if_decided(db, run_id_out, restart, err);
	free(state);
	return rc;
}

static void decide(gw_req *q, gw_resp *r, const char *id)
{
	static const char *const req[] = {"decision", "by", "why", NULL};
	cJSON *b = gw_body(q, r, req, NULL);
	if (!b)
		return;
	const char *d = lr_json_str(b, "decision", NULL);
	const char *by = lr_json_str(b, "by", NULL);
	const char *why = lr_json_str(b, "why", NULL);
	if (!d || !by || !why || !*by || !*why ||
	    (strcmp(d, "approve") && strcmp(d, "deny"))) {
		cJSON_Delete(b);
		gw_refuse(q, r, 422,
		          "decision is approve or deny; by and why are "
		          "non-empty strings");
		return;
	}
	char run_id[208] = "";
	bool restart = false;
	locus_error err;
	gw_db *db = &q->srv->db;
	int rc = gw_tx_begin(db, &err);
	if (!rc) {
		rc = gw_decide(q->srv, q->tenant, id, !strcmp(d, "approve"), by,
		               why, run_id, &restart, &err);
		if (gw_tx_end(db, rc == 0, &err) && !rc)
			rc = LOCUS_EIO;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "approval_id", id);
	cJSON_AddStringToObject(o, "state",
	                        !strcmp(d, "approve") ? "approved" : "denied");
	cJSON_AddStringToObject(o, "run_id", run_id);
	cJSON_AddBoolToObject(o, "resumed", restart);
	cJSON_Delete(b);
	if (rc) {
		cJSON_Delete(o);
		gw_refuse(q, r,
		          rc == LOCUS_ENOTFOUND   ? 404
		          : rc == LOCUS_ECONFLICT ? 409
		                                  : 503,
		          "%s", err.message);
		return;
	}
	gw_reply(r, 200, o);
	gw_notify(q->srv);
	if (restart)
		gw_box_start(q->srv, run_id, &err);
}

/* stop, or answer a parked question: a resume or stop op for the run */
static void run_action(gw_req *q, gw_resp *r, const char *id, bool stop)
{
	static const char *const stop_opt[] = {"reason", NULL};
	static const char *const ans_req[] = {"answer", NULL};
	cJSON *b =
	    stop ? gw_body(q, r, NULL, stop_opt) : gw_body(q, r, ans_req, NULL);
	if (!b)
		return;
	const char *bad = NULL;
	const char *text = lr_json_str(b, stop ? "reason" : "answer", &bad);
	if (bad || (!stop && !text)) {
		cJSON_Delete(b);
		gw_refuse(q, r, 422, "%s is a string",
		          stop ? "reason" : "answer");
		return;
	}
	locus_error err;
	gw_db *db = &q->srv->db;
	int rc = gw_tx_begin(db, &err);
	if (rc) {
		cJSON_Delete(b);
		gw_fail(r, 503, "%s", err.message);
		return;
	}
	gw_stmt *st = gw_q(db, &err,
	                   "SELECT state, result FROM runs WHERE run_id "
	                   "= ? AND tenant = ?",
	                   "ss", id, q->tenant);
	char *state = NULL, *result = NULL;
	if (st && gw_row(st)) {
		state = gw_col_dup(st, 0);
		result = gw_col_dup(st, 1);
	}
	gw_done(st);
	int status = 200;
	const char *why = NULL;
	if (!state) {
		status = 404;
		why = "no such run";
	} else if (stop) {
		bool live = !strcmp(state, "created") ||
		            !strcmp(state, "running") ||
		            !strcmp(state, "parked");
		if (!live) {
			status = 409;
			why = "the run has ended";
		} else
			rc = gw_exec(db, &err,
			             "UPDATE runs SET state = 'stopping', "
			             "updated_at = ? WHERE run_id = ?",
			             "is", (int64_t)time(NULL), id);
		if (live && !rc)
			rc = gw_abandon_pending(db, id, "the run was stopped",
			                        &err);
	} else {
		bool question =
		    result && strstr(result, "\"kind\":\"question\"");
		if (strcmp(state, "parked") || !question) {
			status = 409;
			why = "the run is not parked on a question";
		} else {
			cJSON *op = cJSON_CreateObject();
			cJSON_AddStringToObject(op, "op", "resume");
			cJSON *res = cJSON_AddObjectToObject(op, "resume");
			cJSON_AddStringToObject(res, "answer", text);
			char *t = lr_json_canonical(op);
			cJSON_Delete(op);
			rc = t ? gw_exec(db, &err,
			                 "UPDATE runs SET resume_op = ? WHERE "
			                 "run_id = ?",
			                 "ss", t, id)
			       : LOCUS_ENOMEM;
			free(t);
		}
	}
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "action", stop ? "stop" : "answer");
	if (!rc && !why)
		rc = gw_audit(db, stop ? "run.stop" : "run.answer", id, rec,
		              NULL, &err);
	cJSON_Delete(rec);
	gw_tx_end(db, rc == 0 && !why, &err);
	free(state);
	free(result);
	cJSON_Delete(b);
	if (why)
		gw_refuse(q, r, status, "%s", why);
	else if (rc)
		gw_fail(r, 503, "the run could not be changed");
	else {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "run_id", id);
		gw_reply(r, 200, o);
		gw_notify(q->srv);
		if (!stop)
			gw_box_start(q->srv, id, &err);
	}
}

static void verify(gw_req *q, gw_resp *r)
{
	gw_audit_report rep;
	locus_error err;
	int rc = gw_audit_verify(&q->srv->db, &rep, &err);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "intact", rc == 0);
	cJSON_AddNumberToObject(o, "records", (double)rep.records);
	cJSON_AddStringToObject(o, "last_hash", rep.last_hash);
	if (rc)
		cJSON_AddStringToObject(o, "why", err.message);
	gw_reply(r, 200, o);
}

/* A guard in front of an MCP or API host takes the decision token of the
   call it is about to pass: once, for exactly that tool and arguments. */
static void take_decision(gw_req *q, gw_resp *r)
{
	static const char *const req[] = {"decision_token", "tool", "arguments",
	                                  NULL};
	cJSON *b = gw_body(q, r, req, NULL);
	if (!b)
		return;
	const char *tok = lr_json_str(b, "decision_token", NULL);
	const char *tool = lr_json_str(b, "tool", NULL);
	const cJSON *args = lr_json_obj(b, "arguments", NULL);
	char *canon = args ? lr_json_canonical(args) : NULL;
	if (!tok || !tool || !canon) {
		free(canon);
		cJSON_Delete(b);
		gw_refuse(q, r, 422, "decision_token, tool, arguments{}");
		return;
	}
	char hash[65];
	gw_token_hash(tok, hash);
	locus_error err;
	gw_db *db = &q->srv->db;
	int rc = gw_tx_begin(db, &err);
	bool ok = false;
	if (!rc) {
		rc = gw_exec(db, &err,
		             "UPDATE decisions SET state = 'consumed' WHERE "
		             "token_hash = ? AND state = 'issued' AND tool = ? "
		             "AND arguments = ? AND run_id IN (SELECT run_id "
		             "FROM runs WHERE tenant = ?)",
		             "ssss", hash, tool, canon, q->tenant);
		ok = !rc && gw_changes(db) == 1;
		cJSON *rec = cJSON_CreateObject();
		cJSON_AddStringToObject(rec, "tool", tool);
		cJSON_AddBoolToObject(rec, "taken", ok);
		if (!rc)
			rc = gw_audit(db, "decision.take", NULL, rec, NULL,
			              &err);
		cJSON_Delete(rec);
		gw_tx_end(db, rc == 0, &err);
	}
	free(canon);
	cJSON_Delete(b);
	if (rc)
		gw_fail(r, 503, "the decision could not be taken");
	else if (!ok)
		gw_refuse(q, r, 403,
		          "decision token unknown, used, or for another call");
	else
		gw_reply(r, 200, cJSON_CreateObject());
}

bool gw_operator_route(gw_req *q, gw_resp *r)
{
	const char *p = q->path;
	bool get = !strcmp(q->method, "GET"), post = !strcmp(q->method, "POST");
	if (strncmp(p, "/v1/", 4))
		return false;
	if (q->who != GW_OPERATOR) {
		gw_refuse(q, r, 403,
		          "only an operator token reaches the "
		          "operator API");
		return true;
	}
	const char *rest;
	if (!strcmp(p, "/v1/runs") && post)
		create_run(q, r);
	else if (!strcmp(p, "/v1/runs") && get)
		list_runs(q, r);
	else if (!strcmp(p, "/v1/approvals") && get)
		list_approvals(q, r);
	else if (!strcmp(p, "/v1/audit/verify") && get)
		verify(q, r);
	else if (!strcmp(p, "/v1/decisions/take") && post)
		take_decision(q, r);
	else if (!strcmp(p, "/v1/stream") && get)
		r->sse = true;
	else if (!strncmp(p, "/v1/runs/", 9) && (rest = p + 9) && *rest) {
		const char *slash = strchr(rest, '/');
		char id[208];
		snprintf(id, sizeof id, "%.*s",
		         (int)(slash ? (size_t)(slash - rest) : strlen(rest)),
		         rest);
		if (!slash && get)
			show_run(q, r, id);
		else if (slash && !strcmp(slash, "/stop") && post)
			run_action(q, r, id, true);
		else if (slash && !strcmp(slash, "/answer") && post)
			run_action(q, r, id, false);
		else
			gw_refuse(q, r, 404, "no route %s %s", q->method, p);
	} else if (!strncmp(p, "/v1/approvals/", 14) && p[14] &&
	           !strchr(p + 14, '/') && post)
		decide(q, r, p + 14);
	else
		gw_refuse(q, r, 404, "no route %s %s", q->method, p);
	return true;
}
