/*
 * gateway/expiry.c - approvals nobody decides: a pending approval older
 * than the gateway's approval TTL (`serve --approval-ttl SECONDS`, default
 * 86400; 0: never) becomes `expired`, a deny decided by "gateway" with the
 * justification "expired: nobody decided within N s", in one transaction
 * with its audit record and the parked run's resume op (whose box is then
 * started again, as for a person's decision).  A sweeper thread looks
 * every TTL/4 (at least 50 ms, at most 5 s); over PostgreSQL each replica
 * sweeps, and the update of a still-pending row is what makes it expire
 * once.  Decision and reasons: docs/gateway.md.
 */
#include "gateway/box.h"

#include <stdio.h>

#include "runner/json.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The pending approvals past the TTL (ids, at most 64 a sweep). */
static int overdue(gw_db *db, int64_t cutoff, char ids[][48], size_t *n,
                   locus_error *err)
{
	*n = 0;
	gw_db_lock(db);
	gw_stmt *st = gw_q(db, err,
	                   "SELECT approval_id FROM approvals WHERE state = "
	                   "'pending' AND created_at <= ? ORDER BY "
	                   "created_at, approval_id LIMIT 64",
	                   "i", cutoff);
	while (st && gw_row(st) && *n < 64)
		snprintf(ids[(*n)++], 48, "%s", gw_text(st, 0));
	bool failed = gw_failed(st);
	gw_done(st);
	gw_db_unlock(db);
	return failed ? LOCUS_EIO : 0;
}

/* Expire one approval (inside a transaction); *restart: its parked run
   has a resume op now. */
static int expire_one(gw_server *s, const char *id, int64_t now, char *run_id,
                      bool *restart, locus_error *err)
{
	*restart = false;
	run_id[0] = 0;
	gw_db *db = &s->db;
	char why[96];
	snprintf(why, sizeof why, "expired: nobody decided within %lld s",
	         (long long)s->cfg.approval_ttl_s);
	int rc = gw_exec(db, err,
	                 "UPDATE approvals SET state = 'expired', decided_by = "
	                 "'gateway', justification = ?, decided_at = ? WHERE "
	                 "approval_id = ? AND state = 'pending'",
	                 "sis", why, now, id);
	if (rc || gw_changes(db) != 1)
		return rc; /* decided meanwhile (here or on another replica) */
	gw_stmt *st =
	    gw_q(db, err, "SELECT run_id FROM approvals WHERE approval_id = ?",
	         "s", id);
	if (st && gw_row(st))
		snprintf(run_id, 208, "%s", gw_text(st, 0));
	gw_done(st);
	if (!run_id[0])
		return LOCUS_EIO;
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "approval_id", id);
	cJSON_AddStringToObject(rec, "decision", "expired");
	cJSON_AddStringToObject(rec, "by", "gateway");
	cJSON_AddStringToObject(rec, "why", why);
	rc = gw_audit(db, "approval.expire", run_id, rec, NULL, err);
	cJSON_Delete(rec);
	if (!rc)
		rc = gw_resume_if_decided(db, run_id, restart, err);
	return rc;
}

int gw_expire_sweep(gw_server *s, locus_error *err)
{
	if (s->cfg.approval_ttl_s <= 0)
		return 0;
	int64_t now = (int64_t)time(NULL);
	char ids[64][48];
	size_t n = 0;
	int rc = overdue(&s->db, now - s->cfg.approval_ttl_s, ids, &n, err);
	for (size_t i = 0; !rc && i < n; i++) {
		char run_id[208];
		bool restart = false;
		rc = gw_tx_begin(&s->db, err);
		if (rc)
			break;
		rc = expire_one(s, ids[i], now, run_id, &restart, err);
		if (gw_tx_end(&s->db, rc == 0, err) && !rc)
			rc = LOCUS_EIO;
		if (!rc) {
			gw_notify(s);
			if (restart)
				gw_box_start(s, run_id, err);
		}
	}
	return rc;
}

static void *sweeper(void *arg)
{
	gw_server *s = arg;
	int64_t ttl_ms = s->cfg.approval_ttl_s * 1000;
	int64_t every = ttl_ms / 4 < 50     ? 50
	                : ttl_ms / 4 > 5000 ? 5000
	                                    : ttl_ms / 4;
	gw_every(s, every, gw_expire_sweep);
	return NULL;
}

int gw_expiry_start(gw_server *s, locus_error *err)
{
	if (s->cfg.approval_ttl_s <= 0)
		return 0;
	return gw_thread_start(s, &s->sweeper, &s->has_sweeper, sweeper,
	                       "the approval sweeper", err);
}

void gw_expiry_stop(gw_server *s)
{
	gw_thread_stop(s, &s->sweeper, &s->has_sweeper);
}
