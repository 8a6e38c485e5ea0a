/*
 * gateway/db.c - the gateway's state in SQLite: the connection (WAL,
 * synchronous FULL, so a commit survives a kill -9 of the process), the
 * versioned migrations applied at start, transactions, and the audit
 * chain (every decision, refusal and state change as a hash-linked
 * record in the same transaction as the change it records).
 */
#include "gateway/gw.h"

#include <stdio.h>

#include "harness/internal.h"
#include "runner/json.h"
#include "util/sha256.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One schema; each entry is one migration, applied in order, each in its
   own transaction with its version recorded (schema_migrations).  Never
   edit an entry that has shipped: add the next one. */
static const char *const migrations[] = {
    /* 1: the first schema */
    "CREATE TABLE tokens ("
    " hash TEXT PRIMARY KEY,"
    " kind TEXT NOT NULL CHECK (kind IN ('operator', 'run')),"
    " run_id TEXT, tenant TEXT NOT NULL,"
    " created_at INTEGER NOT NULL,"
    " revoked INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE runs ("
    " run_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, parent_id TEXT,"
    " agent TEXT NOT NULL, box TEXT NOT NULL, workspace TEXT,"
    " manifest TEXT NOT NULL, policy TEXT NOT NULL,"
    " policy_fingerprint TEXT NOT NULL,"
    " state TEXT NOT NULL, last_op TEXT, resume_op TEXT,"
    " next_seq INTEGER NOT NULL DEFAULT 0, result TEXT,"
    " waiting_approval TEXT, created_at INTEGER NOT NULL,"
    " updated_at INTEGER NOT NULL);"
    "CREATE TABLE events ("
    " run_id TEXT NOT NULL REFERENCES runs(run_id), seq INTEGER NOT NULL,"
    " event TEXT NOT NULL, PRIMARY KEY (run_id, seq));"
    "CREATE TABLE checkpoints ("
    " checkpoint_id TEXT PRIMARY KEY,"
    " run_id TEXT NOT NULL REFERENCES runs(run_id),"
    " n INTEGER NOT NULL, state TEXT NOT NULL, metadata TEXT,"
    " created_at INTEGER NOT NULL);"
    "CREATE INDEX checkpoints_run ON checkpoints(run_id, n);"
    "CREATE TABLE approvals ("
    " approval_id TEXT PRIMARY KEY,"
    " run_id TEXT NOT NULL REFERENCES runs(run_id),"
    " call_id TEXT NOT NULL, tool TEXT NOT NULL, arguments TEXT NOT NULL,"
    " reason TEXT NOT NULL, decision TEXT NOT NULL,"
    " policy_fingerprint TEXT NOT NULL,"
    " state TEXT NOT NULL, decided_by TEXT, justification TEXT,"
    " created_at INTEGER NOT NULL, decided_at INTEGER);"
    "CREATE INDEX approvals_state ON approvals(state);"
    "CREATE TABLE decisions ("
    " token_hash TEXT PRIMARY KEY,"
    " run_id TEXT NOT NULL REFERENCES runs(run_id),"
    " call_id TEXT NOT NULL, tool TEXT NOT NULL, arguments TEXT NOT NULL,"
    " state TEXT NOT NULL, created_at INTEGER NOT NULL);"
    "CREATE TABLE audit ("
    " seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, run_id TEXT,"
    " record TEXT NOT NULL, hash TEXT NOT NULL);",
};
#define N_MIGRATIONS (sizeof migrations / sizeof migrations[0])

static int db_err(gw_db *db, locus_error *err, const char *what)
{
	int code = sqlite3_extended_errcode(db->h);
	return lh_err(err,
	              (code & 0xff) == SQLITE_CONSTRAINT ? LOCUS_ECONFLICT
	                                                 : LOCUS_EIO,
	              "database: %s: %s", what, sqlite3_errmsg(db->h));
}

static int exec_plain(gw_db *db, const char *sql, locus_error *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int rc =
		    lh_err(err, LOCUS_EIO, "database: %s", msg ? msg : "error");
		sqlite3_free(msg);
		return rc;
	}
	return 0;
}

static int migrate(gw_db *db, locus_error *err)
{
	int rc = exec_plain(db,
	                    "CREATE TABLE IF NOT EXISTS schema_migrations ("
	                    " version INTEGER PRIMARY KEY,"
	                    " applied_at INTEGER NOT NULL)",
	                    err);
	for (size_t v = 1; !rc && v <= N_MIGRATIONS; v++) {
		if ((rc = exec_plain(db, "BEGIN IMMEDIATE", err)))
			break;
		sqlite3_stmt *st =
		    gw_q(db, err,
		         "SELECT 1 FROM schema_migrations WHERE version = ?",
		         "i", (int64_t)v);
		int step = st ? sqlite3_step(st) : SQLITE_ERROR;
		sqlite3_finalize(st);
		if (step == SQLITE_DONE) {
			rc = exec_plain(db, migrations[v - 1], err);
			if (!rc)
				rc = gw_exec(db, err,
				             "INSERT INTO schema_migrations "
				             "VALUES (?, ?)",
				             "ii", (int64_t)v,
				             (int64_t)time(NULL));
		} else if (step != SQLITE_ROW)
			rc = st ? db_err(db, err, "migrations") : LOCUS_EIO;
		locus_error ignored;
		if (rc)
			exec_plain(db, "ROLLBACK", &ignored);
		else
			rc = exec_plain(db, "COMMIT", err);
	}
	return rc;
}

static const char *sqlite_path(const char *url)
{
	if (!strncmp(url, "sqlite://", 9))
		return url + 9;
	if (!strncmp(url, "sqlite:", 7))
		return url + 7;
	return url;
}

int gw_db_open(gw_db *db, const char *url, locus_error *err)
{
	memset(db, 0, sizeof *db);
	if (!strncmp(url, "postgres", 8))
		return lh_err(err, LOCUS_EINVALID,
		              "--db %s: this gateway keeps its state in SQLite "
		              "only (PostgreSQL is not done: docs/gateway.md)",
		              url);
	const char *path = sqlite_path(url);
	if (!*path)
		return lh_err(err, LOCUS_EINVALID, "--db: an empty path");
	if (pthread_mutex_init(&db->lock, NULL))
		return lh_err(err, LOCUS_EIO, "a mutex could not be made");
	db->path = strdup(path);
	int rc = sqlite3_open_v2(path, &db->h,
	                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	                             SQLITE_OPEN_FULLMUTEX,
	                         NULL);
	if (rc != SQLITE_OK || !db->path) {
		rc = lh_err(err, LOCUS_EIO, "database %s: %s", path,
		            db->h ? sqlite3_errmsg(db->h) : "out of memory");
		gw_db_close(db);
		return rc;
	}
	sqlite3_busy_timeout(db->h, 10000);
	rc = exec_plain(db,
	                "PRAGMA journal_mode = WAL;"
	                "PRAGMA synchronous = FULL;"
	                "PRAGMA foreign_keys = ON;",
	                err);
	if (!rc)
		rc = migrate(db, err);
	if (rc)
		gw_db_close(db);
	return rc;
}

void gw_db_close(gw_db *db)
{
	if (db->h)
		sqlite3_close(db->h);
	if (db->path)
		pthread_mutex_destroy(&db->lock);
	free(db->path);
	memset(db, 0, sizeof *db);
}

int gw_db_version(gw_db *db)
{
	locus_error err;
	sqlite3_stmt *st =
	    gw_q(db, &err, "SELECT max(version) FROM schema_migrations", "");
	int v = st && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0)
	                                             : -1;
	sqlite3_finalize(st);
	return v;
}

int gw_tx_begin(gw_db *db, locus_error *err)
{
	pthread_mutex_lock(&db->lock);
	int rc = exec_plain(db, "BEGIN IMMEDIATE", err);
	if (rc)
		pthread_mutex_unlock(&db->lock);
	return rc;
}

int gw_tx_end(gw_db *db, bool ok, locus_error *err)
{
	int rc = 0;
	locus_error ignored;
	if (ok) {
		rc = exec_plain(db, "COMMIT", err);
		if (rc)
			exec_plain(db, "ROLLBACK", &ignored);
	} else
		exec_plain(db, "ROLLBACK", &ignored);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

static sqlite3_stmt *vq(gw_db *db, locus_error *err, const char *sql,
                        const char *fmt, va_list ap)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
		db_err(db, err, "prepare");
		return NULL;
	}
	int rc = SQLITE_OK;
	for (int i = 0; fmt[i] && rc == SQLITE_OK; i++) {
		if (fmt[i] == 's') {
			const char *s = va_arg(ap, const char *);
			rc = s ? sqlite3_bind_text(st, i + 1, s, -1,
			                           SQLITE_TRANSIENT)
			       : sqlite3_bind_null(st, i + 1);
		} else if (fmt[i] == 'i')
			rc = sqlite3_bind_int64(st, i + 1, va_arg(ap, int64_t));
		else
			rc = sqlite3_bind_double(st, i + 1, va_arg(ap, double));
	}
	if (rc != SQLITE_OK) {
		db_err(db, err, "bind");
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

sqlite3_stmt *gw_q(gw_db *db, locus_error *err, const char *sql,
                   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sqlite3_stmt *st = vq(db, err, sql, fmt, ap);
	va_end(ap);
	return st;
}

int gw_exec(gw_db *db, locus_error *err, const char *sql, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sqlite3_stmt *st = vq(db, err, sql, fmt, ap);
	va_end(ap);
	if (!st)
		return LOCUS_EIO;
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		;
	int rc = step == SQLITE_DONE ? 0 : db_err(db, err, "write");
	sqlite3_finalize(st);
	return rc;
}

char *gw_col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? strdup((const char *)t) : NULL;
}

/* ---- the audit chain ---- */

static const char zero_hash[] =
    "0000000000000000000000000000000000000000000000000000000000000000";

int gw_audit(gw_db *db, const char *kind, const char *run_id, cJSON *record,
             char *audit_id, locus_error *err)
{
	sqlite3_stmt *st =
	    gw_q(db, err,
	         "SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1", "");
	if (!st)
		return LOCUS_EIO;
	int64_t seq = 1;
	char prev[65];
	snprintf(prev, sizeof prev, "%s", zero_hash);
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		seq = sqlite3_column_int64(st, 0) + 1;
		snprintf(prev, sizeof prev, "%s",
		         (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return db_err(db, err, "audit");
	cJSON_DeleteItemFromObjectCaseSensitive(record, "seq");
	cJSON_AddNumberToObject(record, "seq", (double)seq);
	cJSON_AddNumberToObject(record, "time", (double)time(NULL));
	cJSON_AddStringToObject(record, "kind", kind);
	cJSON_AddStringToObject(record, "prev", prev);
	if (run_id)
		cJSON_AddStringToObject(record, "run_id", run_id);
	char *text = lr_json_canonical(record);
	if (!text)
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	char hash[65];
	lu_sha256_hex(text, strlen(text), hash);
	int rc = gw_exec(db, err, "INSERT INTO audit VALUES (?, ?, ?, ?, ?)",
	                 "issss", seq, kind, run_id, text, hash);
	free(text);
	if (!rc && audit_id)
		snprintf(audit_id, 32, "au-%lld", (long long)seq);
	return rc;
}

static bool verify_row(int64_t want_seq, const char *prev, const char *text,
                       const char *hash, char *why, size_t cap)
{
	char got[65];
	lu_sha256_hex(text, strlen(text), got);
	if (strcmp(got, hash)) {
		snprintf(why, cap, "record %lld: its hash is not its text's",
		         (long long)want_seq);
		return false;
	}
	cJSON *rec = NULL;
	locus_error e;
	if (lr_json_parse(text, strlen(text), &rec, &e) ||
	    !cJSON_IsObject(rec)) {
		snprintf(why, cap, "record %lld: not a JSON object",
		         (long long)want_seq);
		cJSON_Delete(rec);
		return false;
	}
	const char *p = lr_json_str(rec, "prev", NULL);
	double seq = 0;
	lr_json_num(rec, "seq", &seq, NULL);
	bool ok = p && !strcmp(p, prev) && seq == (double)want_seq;
	if (!ok)
		snprintf(why, cap,
		         "record %lld: it does not follow the one before",
		         (long long)want_seq);
	cJSON_Delete(rec);
	return ok;
}

int gw_audit_verify(gw_db *db, gw_audit_report *rep, locus_error *err)
{
	memset(rep, 0, sizeof *rep);
	pthread_mutex_lock(&db->lock);
	sqlite3_stmt *st = gw_q(
	    db, err, "SELECT seq, record, hash FROM audit ORDER BY seq", "");
	if (!st) {
		pthread_mutex_unlock(&db->lock);
		return LOCUS_EIO;
	}
	char prev[65];
	snprintf(prev, sizeof prev, "%s", zero_hash);
	int64_t want = 1;
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(st, 0);
		const char *text = (const char *)sqlite3_column_text(st, 1);
		const char *hash = (const char *)sqlite3_column_text(st, 2);
		if (seq != want || !text || !hash ||
		    !verify_row(want, prev, text, hash, rep->why,
		                sizeof rep->why)) {
			if (!rep->why[0])
				snprintf(rep->why, sizeof rep->why,
				         "record %lld is missing",
				         (long long)want);
			rep->bad_seq = (long)want;
			break;
		}
		snprintf(prev, sizeof prev, "%s", hash);
		rep->records++;
		want++;
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&db->lock);
	snprintf(rep->last_hash, sizeof rep->last_hash, "%s", prev);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return lh_err(err, LOCUS_EIO, "database: audit read failed");
	return rep->bad_seq ? lh_err(err, LOCUS_EINVALID, "audit: %s", rep->why)
	                    : 0;
}
