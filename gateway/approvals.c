/*
 * gateway/approvals.c - what settling a run's approvals does to the run,
 * shared by the routes that end or wake runs (runner_routes.c,
 * operator.c, expiry.c) and the box monitor (box_openshell.c): pending
 * approvals abandoned when the run ends, the resume op of a parked run
 * whose approval is settled.  Each inside the caller's transaction, with
 * its audit record; nothing here starts a box.
 */
#include "gateway/gw.h"

#include "runner/json.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int gw_abandon_pending(gw_db *db, const char *run_id, const char *why,
                       locus_error *err)
{
	int rc =
	    gw_exec(db, err,
	            "UPDATE approvals SET state = 'abandoned', decided_by = "
	            "'gateway', justification = ?, decided_at = ? WHERE "
	            "run_id = ? AND state = 'pending'",
	            "sis", why, (int64_t)time(NULL), run_id);
	long n = rc ? 0 : gw_changes(db);
	if (rc || n == 0)
		return rc;
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddNumberToObject(rec, "approvals", (double)n);
	cJSON_AddStringToObject(rec, "why", why);
	rc = gw_audit(db, "approval.abandon", run_id, rec, NULL, err);
	cJSON_Delete(rec);
	return rc;
}

int gw_resume_if_decided(gw_db *db, const char *run_id, bool *resumed,
                         locus_error *err)
{
	*resumed = false;
	gw_stmt *st =
	    gw_q(db, err,
	         "SELECT a.approval_id, a.state, a.justification, "
	         "a.decided_by FROM runs r "
	         "JOIN approvals a ON a.approval_id = r.waiting_approval "
	         "WHERE r.run_id = ? AND r.state = 'parked' "
	         "AND r.resume_op IS NULL",
	         "s", run_id);
	if (!st)
		return LOCUS_EIO;
	cJSON *o = NULL;
	if (gw_row(st)) {
		const char *ap = gw_text(st, 0);
		const char *state = gw_text(st, 1);
		const char *why = gw_text(st, 2);
		const char *by = gw_text(st, 3);
		if (state && strcmp(state, "pending")) {
			o = cJSON_CreateObject();
			cJSON *res = cJSON_AddObjectToObject(o, "resume");
			cJSON_AddStringToObject(o, "op", "resume");
			cJSON_AddStringToObject(res, "approval_id", ap);
			/* consumed: approved and already re-admitted */
			cJSON_AddStringToObject(
			    res, "decision",
			    !strcmp(state, "consumed") ? "approved" : state);
			if (why)
				cJSON_AddStringToObject(res, "justification",
				                        why);
			if (by)
				cJSON_AddStringToObject(res, "decided_by", by);
		}
	}
	gw_done(st);
	if (!o)
		return 0;
	char *text = lr_json_canonical(o);
	cJSON_Delete(o);
	int rc = text
	             ? gw_exec(db, err,
	                       "UPDATE runs SET resume_op = ? WHERE run_id = ?",
	                       "ss", text, run_id)
	             : LOCUS_ENOMEM;
	free(text);
	*resumed = rc == 0;
	return rc;
}
