/*
 * gateway/runner_routes.c - the routes docs/runner.md says a gateway
 * serves, for run tokens only, each for the token's own run: next,
 * manifest, events (numbered, idempotent: a batch already taken answers
 * 409 {"next_seq"}), checkpoints, result, child runs.  Admission and
 * approval polling are admit.c's, gateway tools tools.c's.  Every state change is
 * one transaction with its audit record.
 */
#include "gateway/box.h"

#include <stdio.h>

#include "harness/internal.h"
#include "runner/json.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* clang-format off */
static const char *const token_f[] = {"type", "text", NULL};
static const char *const think_f[] = {"type", "iteration", "text", "tool_calls", NULL};
static const char *const start_f[] = {"type", "call_id", "tool", "arguments", NULL};
static const char *const complete_f[] = {"type", "call_id", "tool", "result", "error",
                                         "duration_ms", NULL};
static const char *const exec_f[] = {"type", "call_id", "command_sha256", "exit_code",
                                     "duration_s", "timed_out", "output_sha256",
                                     "output_bytes", "truncated", "background",
                                     "attested_by", NULL};
/* clang-format on */

static const struct {
	const char *type;
	const char *const *fields; /* exactly these; NULL: any */
	                           /* clang-format off */
} event_types[] = {
    {"token", token_f},
                                   /* clang-format on */
    {"think", think_f},
    {"tool_start", start_f},
    {"tool_complete", complete_f},
    {"harness.exec", exec_f},
    {"tool.sandbox.output", NULL},
    {"playbook_step", NULL},
    {"playbook_progress", NULL},
};

static const char *check_event(const cJSON *ev)
{
	const char *type = lr_json_str(ev, "type", NULL);
	if (!cJSON_IsObject(ev) || !type)
		return "an event that is not an object with a type";
	for (size_t i = 0; i < sizeof event_types / sizeof event_types[0];
	     i++) {
		if (strcmp(type, event_types[i].type))
			continue;
		const char *const *f = event_types[i].fields;
		if (!f)
			return NULL;
		size_t n = 0;
		for (const cJSON *c = ev->child; c; c = c->next, n++) {
			bool ok = false;
			for (size_t k = 0; f[k] && !ok; k++)
				ok = !strcmp(f[k], c->string);
			if (!ok)
				return "an event with a field its type does "
				       "not have";
		}
		size_t want = 0;
		while (f[want])
			want++;
		if (n != want)
			return "an event missing a field of its type";
		if (!strcmp(type, "harness.exec")) {
			const char *by = lr_json_str(ev, "attested_by", NULL);
			if (!by || strcmp(by, "runner"))
				return "harness.exec not attested by the "
				       "runner";
		}
		return NULL;
	}
	return "an event of a type not allowed";
}

static int set_state(gw_db *db, const char *run_id, const char *state,
                     const char *last_op, locus_error *err)
{
	return gw_exec(db, err,
	               "UPDATE runs SET state = ?, last_op = coalesce(?, "
	               "last_op), updated_at = ? WHERE run_id = ?",
	               "ssis", state, last_op, (int64_t)time(NULL), run_id);
}

static void next_op(gw_req *q, gw_resp *r)
{
	if (!gw_no_body(q, r))
		return;
	gw_db *db = &q->srv->db;
	locus_error err;
	if (gw_tx_begin(db, &err)) {
		gw_fail(r, 503, "%s", err.message);
		return;
	}
	gw_stmt *st = gw_q(db, &err,
	                   "SELECT state, last_op, resume_op FROM runs "
	                   "WHERE run_id = ?",
	                   "s", q->run_id);
	char *state = NULL, *last = NULL, *resume = NULL;
	if (st && gw_row(st)) {
		state = gw_col_dup(st, 0);
		last = gw_col_dup(st, 1);
		resume = gw_col_dup(st, 2);
	}
	gw_done(st);
	char *op = NULL;
	const char *new_state = NULL;
	int rc = state ? 0 : LOCUS_EIO;
	if (!rc && !strcmp(state, "created")) {
		op = strdup("{\"op\":\"start\"}");
		new_state = "running";
	} else if (!rc && !strcmp(state, "parked") && resume) {
		op = resume;
		resume = NULL;
		new_state = "running";
	} else if (!rc && !strcmp(state, "running") && last)
		op = strdup(last); /* a retry of next gets the same op */
	else if (!rc) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "op", "stop");
		char why[96];
		snprintf(why, sizeof why, "the run is %s", state);
		cJSON_AddStringToObject(o, "reason", why);
		op = lr_json_canonical(o);
		cJSON_Delete(o);
		if (!strcmp(state, "stopping"))
			new_state = "stopped";
	}
	if (!rc && !op)
		rc = LOCUS_ENOMEM;
	if (!rc && new_state) {
		rc = set_state(db, q->run_id, new_state,
		               strcmp(new_state, "running") ? NULL : op, &err);
		if (!rc && !strcmp(state, "parked"))
			rc = gw_exec(db, &err,
			             "UPDATE runs SET resume_op = NULL, "
			             "waiting_approval = NULL WHERE run_id = ?",
			             "s", q->run_id);
		cJSON *rec = cJSON_CreateObject();
		cJSON_AddStringToObject(rec, "from", state);
		cJSON_AddStringToObject(rec, "to", new_state);
		cJSON *op_json = NULL;
		if (!lr_json_parse(op, strlen(op), &op_json, &err))
			cJSON_AddItemToObject(rec, "op", op_json);
		if (!rc)
			rc = gw_audit(db, "run.state", q->run_id, rec, NULL,
			              &err);
		cJSON_Delete(rec);
	}
	if (gw_tx_end(db, rc == 0, &err) || rc) {
		free(op);
		op = NULL;
		gw_fail(r, 503, "the run's next step could not be stored");
	} else {
		r->status = 200;
		r->body = op;
		r->content_type = "application/json";
		gw_notify(q->srv);
	}
	free(state);
	free(last);
	free(resume);
}

static void manifest(gw_req *q, gw_resp *r)
{
	if (!gw_no_body(q, r))
		return;
	locus_error err;
	gw_db_lock(&q->srv->db);
	gw_stmt *st =
	    gw_q(&q->srv->db, &err,
	         "SELECT manifest FROM runs WHERE run_id = ?", "s", q->run_id);
	char *m = st && gw_row(st) ? gw_col_dup(st, 0) : NULL;
	gw_done(st);
	gw_db_unlock(&q->srv->db);
	if (!m) {
		gw_fail(r, 503, "the manifest could not be read");
		return;
	}
	r->status = 200;
	r->body = m;
	r->content_type = "application/json";
}

static void events(gw_req *q, gw_resp *r)
{
	static const char *const req[] = {"seq_from", "events", NULL};
	cJSON *b = gw_body(q, r, req, NULL);
	if (!b)
		return;
	const cJSON *from = cJSON_GetObjectItemCaseSensitive(b, "seq_from");
	const cJSON *evs = cJSON_GetObjectItemCaseSensitive(b, "events");
	int n = cJSON_IsArray(evs) ? cJSON_GetArraySize(evs) : 0;
	if (!lr_json_is_int(from) || from->valuedouble < 0 || n < 1) {
		cJSON_Delete(b);
		gw_refuse(q, r, 422, "a mistyped batch of events");
		return;
	}
	if (n > 64) {
		cJSON_Delete(b);
		gw_refuse(q, r, 413, "a batch of %d events (at most 64)", n);
		return;
	}
	for (const cJSON *e = evs->child; e; e = e->next) {
		const char *why = check_event(e);
		if (why) {
			cJSON_Delete(b);
			gw_refuse(q, r, 422, "%s", why);
			return;
		}
	}
	int64_t seq = (int64_t)from->valuedouble;
	gw_db *db = &q->srv->db;
	locus_error err;
	if (gw_tx_begin(db, &err)) {
		cJSON_Delete(b);
		gw_fail(r, 503, "%s", err.message);
		return;
	}
	gw_stmt *st =
	    gw_q(db, &err, "SELECT next_seq FROM runs WHERE run_id = ?", "s",
	         q->run_id);
	int64_t next = st && gw_row(st) ? gw_int(st, 0) : -1;
	gw_done(st);
	int rc = next < 0 ? LOCUS_EIO : 0;
	bool conflict = !rc && seq != next;
	for (const cJSON *e = evs->child; !rc && !conflict && e;
	     e = e->next, seq++) {
		char *t = lr_json_canonical(e);
		rc =
		    t ? gw_exec(db, &err, "INSERT INTO events VALUES (?, ?, ?)",
		                "sis", q->run_id, seq, t)
		      : LOCUS_ENOMEM;
		free(t);
	}
	if (!rc && !conflict)
		rc = gw_exec(db, &err,
		             "UPDATE runs SET next_seq = ?, updated_at = ? "
		             "WHERE run_id = ?",
		             "iis", seq, (int64_t)time(NULL), q->run_id);
	cJSON_Delete(b);
	if (gw_tx_end(db, rc == 0 && !conflict, &err) || rc) {
		gw_fail(r, 503, "the events could not be stored");
		return;
	}
	cJSON *o = cJSON_CreateObject();
	if (conflict) {
		/* already taken (an answer lost on the way back) or out of
		   order: the runner skips or resends from next_seq */
		cJSON_AddStringToObject(o, "detail",
		                        seq < next ? "already have these"
		                                   : "out of sequence");
		cJSON_AddNumberToObject(o, "next_seq", (double)next);
		gw_reply(r, 409, o);
		return;
	}
	cJSON_AddNumberToObject(o, "next_seq", (double)seq);
	gw_reply(r, 200, o);
	gw_notify(q->srv);
}

static void put_checkpoint(gw_req *q, gw_resp *r)
{
	static const char *const req[] = {"thread_id", "state", NULL};
	static const char *const opt[] = {"checkpoint_id", "metadata", NULL};
	cJSON *b = gw_body(q, r, req, opt);
	if (!b)
		return;
	const char *thread = lr_json_str(b, "thread_id", NULL);
	const cJSON *state = cJSON_GetObjectItemCaseSensitive(b, "state");
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(b, "metadata");
	if (!thread || strcmp(thread, q->run_id) || !cJSON_IsObject(state)) {
		cJSON_Delete(b);
		gw_refuse(q, r, 422,
		          "a checkpoint of another thread, or a state that is "
		          "not an object");
		return;
	}
	char id[48];
	locus_error err;
	char *st_text = lr_json_canonical(state);
	char *meta_text = meta ? lr_json_canonical(meta) : NULL;
	gw_db *db = &q->srv->db;
	int rc = st_text ? gw_new_id("cp-", id, &err) : LOCUS_ENOMEM;
	if (!rc && !(rc = gw_tx_begin(db, &err))) {
		rc = gw_exec(
		    db, &err,
		    "INSERT INTO checkpoints SELECT CAST(? AS TEXT), "
		    "CAST(? AS TEXT), coalesce(max(n), 0) + 1, "
		    "CAST(? AS TEXT), CAST(? AS TEXT), "
		    "CAST(? AS BIGINT) FROM checkpoints WHERE run_id = ?",
		    "ssssis", id, q->run_id, st_text, meta_text,
		    (int64_t)time(NULL), q->run_id);
		cJSON *rec = cJSON_CreateObject();
		cJSON_AddStringToObject(rec, "checkpoint_id", id);
		if (!rc)
			rc = gw_audit(db, "checkpoint", q->run_id, rec, NULL,
			              &err);
		cJSON_Delete(rec);
		if (gw_tx_end(db, rc == 0, &err))
			rc = LOCUS_EIO;
	}
	free(st_text);
	free(meta_text);
	cJSON_Delete(b);
	if (rc) {
		gw_fail(r, 503, "the checkpoint could not be stored");
		return;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "checkpoint_id", id);
	gw_reply(r, 200, o);
}

static void get_checkpoint(gw_req *q, gw_resp *r)
{
	static const char *const args[] = {"thread_id", "checkpoint_id", NULL};
	if (!gw_no_body(q, r))
		return;
	const char *thread = gw_arg(q, "thread_id");
	const char *cid = gw_arg(q, "checkpoint_id");
	if (!gw_args_known(q, args) || !thread || strcmp(thread, q->run_id)) {
		gw_refuse(q, r, 400,
		          "a checkpoint query other than "
		          "thread_id=<this run>[&checkpoint_id=]");
		return;
	}
	locus_error err;
	gw_db_lock(&q->srv->db);
	gw_stmt *st =
	    cid && *cid
	        ? gw_q(&q->srv->db, &err,
	               "SELECT checkpoint_id, state FROM checkpoints WHERE "
	               "run_id = ? AND checkpoint_id = ?",
	               "ss", q->run_id, cid)
	        : gw_q(&q->srv->db, &err,
	               "SELECT checkpoint_id, state FROM checkpoints WHERE "
	               "run_id = ? ORDER BY n DESC LIMIT 1",
	               "s", q->run_id);
	char *id = NULL, *state = NULL;
	if (st && gw_row(st)) {
		id = gw_col_dup(st, 0);
		state = gw_col_dup(st, 1);
	}
	gw_done(st);
	gw_db_unlock(&q->srv->db);
	cJSON *s = NULL;
	if (!id || !state || lr_json_parse(state, strlen(state), &s, &err))
		gw_fail(r, 404, "no checkpoint");
	else {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "checkpoint_id", id);
		cJSON_AddItemToObject(o, "state", s);
		gw_reply(r, 200, o);
	}
	free(id);
	free(state);
}

/* clang-format off */
static const char *const result_opt[] = {
    "final_message", "stop_reason", "error", "usage_reported",
    "cost_usd_reported", "waiting", NULL};
static const char *const wait_approval[] = {"kind", "call_id", "tool", "approval_id", NULL};
static const char *const wait_question[] = {"kind", "call_id", "question", NULL};
/* clang-format on */

static bool waiting_ok(const cJSON *w)
{
	const char *kind = lr_json_str(w, "kind", NULL);
	const char *const *f = !kind                       ? NULL
	                       : !strcmp(kind, "approval") ? wait_approval
	                       : !strcmp(kind, "question") ? wait_question
	                                                   : NULL;
	if (!f || !cJSON_IsObject(w))
		return false;
	size_t n = 0, want = 0;
	for (const cJSON *c = w->child; c; c = c->next, n++) {
		bool ok = false;
		for (size_t k = 0; f[k] && !ok; k++)
			ok = !strcmp(f[k], c->string);
		if (!ok || !cJSON_IsString(c))
			return false;
	}
	while (f[want])
		want++;
	return n == want;
}

static void result(gw_req *q, gw_resp *r)
{
	static const char *const req[] = {"status", NULL};
	cJSON *b = gw_body(q, r, req, result_opt);
	if (!b)
		return;
	const char *status = lr_json_str(b, "status", NULL);
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(b, "waiting");
	bool parked = status && !strcmp(status, "parked");
	const char *bad =
	    !status || (strcmp(status, "done") && !parked &&
	                strcmp(status, "refused") && strcmp(status, "error"))
	        ? "a status other than done, parked, refused or error"
	    : parked && !waiting_ok(w) ? "a parked result without waiting"
	    : !parked && w && !cJSON_IsNull(w) ? "waiting on a run that is "
	                                         "not parked"
	                                       : NULL;
	if (bad) {
		cJSON_Delete(b);
		gw_refuse(q, r, 422, "%s", bad);
		return;
	}
	const char *ap = parked ? lr_json_str(w, "approval_id", NULL) : NULL;
	char *text = lr_json_canonical(b);
	gw_db *db = &q->srv->db;
	locus_error err;
	bool resumed = false;
	int rc = text ? gw_tx_begin(db, &err) : LOCUS_ENOMEM;
	if (!rc) {
		rc = gw_exec(db, &err,
		             "UPDATE runs SET result = ?, state = ?, "
		             "waiting_approval = ?, updated_at = ? "
		             "WHERE run_id = ?",
		             "sssis", text, status, ap, (int64_t)time(NULL),
		             q->run_id);
		cJSON *rec = cJSON_CreateObject();
		cJSON_AddStringToObject(rec, "status", status);
		const char *keys[] = {"stop_reason", "error", NULL};
		for (size_t i = 0; keys[i]; i++) {
			const char *v = lr_json_str(b, keys[i], NULL);
			if (v)
				cJSON_AddStringToObject(rec, keys[i], v);
		}
		if (w && !cJSON_IsNull(w))
			cJSON_AddItemToObject(rec, "waiting",
			                      cJSON_Duplicate(w, true));
		if (!rc)
			rc = gw_audit(db, "run.result", q->run_id, rec, NULL,
			              &err);
		cJSON_Delete(rec);
		if (!rc && ap)
			rc =
			    gw_resume_if_decided(db, q->run_id, &resumed, &err);
		/* an ended run waits for nobody: its holds are abandoned */
		if (!rc && !parked)
			rc = gw_abandon_pending(db, q->run_id,
			                        "the run ended before anyone "
			                        "decided",
			                        &err);
		if (gw_tx_end(db, rc == 0, &err))
			rc = LOCUS_EIO;
	}
	free(text);
	cJSON_Delete(b);
	if (rc) {
		gw_fail(r, 503, "the result could not be stored");
		return;
	}
	gw_reply(r, 200, cJSON_CreateObject());
	gw_notify(q->srv);
	if (resumed)
		gw_box_start(q->srv, q->run_id, &err);
}

static void children(gw_req *q, gw_resp *r)
{
	static const char *const req[] = {"call_id", "agent", "prompt", NULL};
	cJSON *b = gw_body(q, r, req, NULL);
	if (!b)
		return;
	const char *call = lr_json_str(b, "call_id", NULL);
	const char *agent = lr_json_str(b, "agent", NULL);
	const char *prompt = lr_json_str(b, "prompt", NULL);
	if (!call || !agent || !prompt || !*agent) {
		cJSON_Delete(b);
		gw_refuse(q, r, 422, "call_id, agent and prompt are strings");
		return;
	}
	gw_new_run nr;
	locus_error err;
	gw_db *db = &q->srv->db;
	int rc = gw_tx_begin(db, &err);
	if (!rc) {
		rc = gw_child_create(q->srv, q->run_id, call, agent, prompt,
		                     &nr, &err);
		if (gw_tx_end(db, rc == 0, &err) && !rc)
			rc = LOCUS_EIO;
	}
	cJSON_Delete(b);
	if (rc == LOCUS_EINVALID || rc == LOCUS_EDENIED) {
		gw_refuse(q, r, 422, "%s", err.message);
		return;
	}
	if (rc) {
		gw_fail(r, 503, "the child run could not be made");
		return;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "run_id", nr.run_id);
	cJSON_AddStringToObject(o, "admit_token", nr.token);
	explicit_bzero(nr.token, sizeof nr.token);
	gw_reply(r, 200, o);
	gw_notify(q->srv);
}

static bool seg_is(const char *p, const char *seg, const char **rest)
{
	size_t n = strlen(seg);
	if (strncmp(p, seg, n))
		return false;
	*rest = p + n;
	return true;
}

bool gw_runner_route(gw_req *q, gw_resp *r)
{
	const char *p = q->path, *rest;
	bool get = !strcmp(q->method, "GET"), post = !strcmp(q->method, "POST"),
	     put = !strcmp(q->method, "PUT");
	bool runner = !strncmp(p, "/internal/v1/", 13) ||
	              !strcmp(p, "/v1/admit") || !strncmp(p, "/v1/admit/", 10);
	if (!runner)
		return false;
	if (q->who != GW_RUN) {
		gw_refuse(q, r, 403,
		          "only a run token reaches the runner's "
		          "routes");
		return true;
	}
	if (!strcmp(p, "/internal/v1/runner/next") && get)
		next_op(q, r);
	else if (!strcmp(p, "/internal/v1/runner/manifest") && get)
		manifest(q, r);
	else if (!strcmp(p, "/v1/admit") && post)
		gw_admit(q, r);
	else if (seg_is(p, "/v1/admit/approval/", &rest) && *rest &&
	         !strchr(rest, '/') && get)
		gw_approval_poll(q, r, rest);
	else if (seg_is(p, "/internal/v1/runs/", &rest)) {
		size_t n = strlen(q->run_id);
		if (strncmp(rest, q->run_id, n) || rest[n] != '/') {
			gw_refuse(
			    q, r, 403,
			    "the path names another run than the token's");
			return true;
		}
		rest += n + 1;
		if (!strcmp(rest, "events") && post)
			events(q, r);
		else if (!strcmp(rest, "result") && post)
			result(q, r);
		else if (!strcmp(rest, "checkpoint") && put)
			put_checkpoint(q, r);
		else if (!strcmp(rest, "checkpoint") && get)
			get_checkpoint(q, r);
		else if (!strcmp(rest, "children") && post)
			children(q, r);
		else if (!strncmp(rest, "tools/", 6) && rest[6] &&
		         !strchr(rest + 6, '/') && post)
			gw_tool_call(q, r, rest + 6);
		else
			gw_refuse(q, r, 404, "no route %s %s", q->method, p);
	} else
		gw_refuse(q, r, 404, "no route %s %s", q->method, p);
	return true;
}
