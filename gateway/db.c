/*
 * gateway/db.c - the gateway's state in a database: SQLite (WAL,
 * synchronous FULL, so a commit survives a kill -9 of the process) or
 * PostgreSQL through libpq (several gateway processes over one database),
 * behind one small statement interface (gw_q, gw_row, gw_text...); the
 * versioned migrations applied at start; transactions (on PostgreSQL each
 * takes one advisory lock, so the writers of every replica are serialized
 * and the audit chain has one order); and the audit chain (every
 * decision, refusal and state change as a hash-linked record in the same
 * transaction as the change it records).
 */
#include "gateway/gw.h"

#include <stdio.h>

#include "harness/internal.h"
#include "runner/json.h"
#include "util/sha256.h"

#include <libpq-fe.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One schema; each entry is one migration, applied in order, each in its
   own transaction with its version recorded (schema_migrations).  Never
   edit an entry that has shipped: add the next one.  PostgreSQL's list is
   the same schema in its dialect (BIGINT for times and counters), entry
   for entry. */
static const char *const sqlite_migrations[] = {
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
    /* 2: a run's box starts counted, and its live openshell sandbox */
    "ALTER TABLE runs ADD COLUMN box_n INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN sandbox TEXT;",
};
static const char *const pg_migrations[] = {
    /* 1: the first schema */
    "CREATE TABLE tokens ("
    " hash TEXT PRIMARY KEY,"
    " kind TEXT NOT NULL CHECK (kind IN ('operator', 'run')),"
    " run_id TEXT, tenant TEXT NOT NULL,"
    " created_at BIGINT NOT NULL,"
    " revoked BIGINT NOT NULL DEFAULT 0);"
    "CREATE TABLE runs ("
    " run_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, parent_id TEXT,"
    " agent TEXT NOT NULL, box TEXT NOT NULL, workspace TEXT,"
    " manifest TEXT NOT NULL, policy TEXT NOT NULL,"
    " policy_fingerprint TEXT NOT NULL,"
    " state TEXT NOT NULL, last_op TEXT, resume_op TEXT,"
    " next_seq BIGINT NOT NULL DEFAULT 0, result TEXT,"
    " waiting_approval TEXT, created_at BIGINT NOT NULL,"
    " updated_at BIGINT NOT NULL);"
    "CREATE TABLE events ("
    " run_id TEXT NOT NULL REFERENCES runs(run_id), seq BIGINT NOT NULL,"
    " event TEXT NOT NULL, PRIMARY KEY (run_id, seq));"
    "CREATE TABLE checkpoints ("
    " checkpoint_id TEXT PRIMARY KEY,"
    " run_id TEXT NOT NULL REFERENCES runs(run_id),"
    " n BIGINT NOT NULL, state TEXT NOT NULL, metadata TEXT,"
    " created_at BIGINT NOT NULL);"
    "CREATE INDEX checkpoints_run ON checkpoints(run_id, n);"
    "CREATE TABLE approvals ("
    " approval_id TEXT PRIMARY KEY,"
    " run_id TEXT NOT NULL REFERENCES runs(run_id),"
    " call_id TEXT NOT NULL, tool TEXT NOT NULL, arguments TEXT NOT NULL,"
    " reason TEXT NOT NULL, decision TEXT NOT NULL,"
    " policy_fingerprint TEXT NOT NULL,"
    " state TEXT NOT NULL, decided_by TEXT, justification TEXT,"
    " created_at BIGINT NOT NULL, decided_at BIGINT);"
    "CREATE INDEX approvals_state ON approvals(state);"
    "CREATE TABLE decisions ("
    " token_hash TEXT PRIMARY KEY,"
    " run_id TEXT NOT NULL REFERENCES runs(run_id),"
    " call_id TEXT NOT NULL, tool TEXT NOT NULL, arguments TEXT NOT NULL,"
    " state TEXT NOT NULL, created_at BIGINT NOT NULL);"
    "CREATE TABLE audit ("
    " seq BIGINT PRIMARY KEY, kind TEXT NOT NULL, run_id TEXT,"
    " record TEXT NOT NULL, hash TEXT NOT NULL);",
    /* 2: a run's box starts counted, and its live openshell sandbox */
    "ALTER TABLE runs ADD COLUMN box_n BIGINT NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN sandbox TEXT;",
};
#define N_MIGRATIONS (sizeof sqlite_migrations / sizeof sqlite_migrations[0])
_Static_assert(sizeof pg_migrations == sizeof sqlite_migrations,
               "one schema: a migration in each dialect");

/* PostgreSQL advisory lock keys: migrations, and every write transaction */
#define PG_LOCK_MIGRATE "27026"
#define PG_LOCK_WRITE "27027"

/* A statement: a prepared SQLite statement stepped row by row, or a
   PostgreSQL result (the whole answer) walked row by row. */
struct gw_stmt {
	gw_db *db;
	sqlite3_stmt *lite;
	PGresult *pg;
	int row;     /* PostgreSQL: the current row, -1 before the first */
	bool failed; /* a step or the query failed */
};

static int db_err(gw_db *db, locus_error *err, const char *what)
{
	if (db->pg)
		return lu_err(err, LOCUS_EIO, "database: %s: %s", what,
		              PQerrorMessage(db->pg));
	int code = sqlite3_extended_errcode(db->h);
	return lu_err(err,
	              (code & 0xff) == SQLITE_CONSTRAINT ? LOCUS_ECONFLICT
	                                                 : LOCUS_EIO,
	              "database: %s: %s", what, sqlite3_errmsg(db->h));
}

static int exec_plain(gw_db *db, const char *sql, locus_error *err)
{
	if (db->pg) {
		PGresult *r = PQexec(db->pg, sql);
		ExecStatusType st = PQresultStatus(r);
		int rc = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK
		             ? 0
		             : lu_err(err, LOCUS_EIO, "database: %s",
		                      PQresultErrorMessage(r));
		PQclear(r);
		return rc;
	}
	char *msg = NULL;
	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int rc =
		    lu_err(err, LOCUS_EIO, "database: %s", msg ? msg : "error");
		sqlite3_free(msg);
		return rc;
	}
	return 0;
}

static int migrate(gw_db *db, locus_error *err)
{
	const char *const *list = db->pg ? pg_migrations : sqlite_migrations;
	int rc =
	    exec_plain(db,
	               db->pg ? "SELECT pg_advisory_lock(" PG_LOCK_MIGRATE ")"
	                      : "SELECT 1",
	               err);
	if (!rc)
		rc = exec_plain(db,
		                "CREATE TABLE IF NOT EXISTS schema_migrations ("
		                " version BIGINT PRIMARY KEY,"
		                " applied_at BIGINT NOT NULL)",
		                err);
	for (size_t v = 1; !rc && v <= N_MIGRATIONS; v++) {
		if ((rc = exec_plain(db, db->pg ? "BEGIN" : "BEGIN IMMEDIATE",
		                     err)))
			break;
		gw_stmt *st =
		    gw_q(db, err,
		         "SELECT 1 FROM schema_migrations WHERE version = ?",
		         "i", (int64_t)v);
		bool have = st && gw_row(st);
		bool failed = !st || st->failed;
		gw_done(st);
		if (failed)
			rc = db_err(db, err, "migrations");
		else if (!have) {
			rc = exec_plain(db, list[v - 1], err);
			if (!rc)
				rc = gw_exec(db, err,
				             "INSERT INTO schema_migrations "
				             "VALUES (?, ?)",
				             "ii", (int64_t)v,
				             (int64_t)time(NULL));
		}
		locus_error ignored;
		if (rc)
			exec_plain(db, "ROLLBACK", &ignored);
		else
			rc = exec_plain(db, "COMMIT", err);
	}
	if (db->pg) {
		locus_error ignored;
		exec_plain(db, "SELECT pg_advisory_unlock(" PG_LOCK_MIGRATE ")",
		           &ignored);
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

static int open_pg(gw_db *db, const char *url, locus_error *err)
{
	db->pg = PQconnectdb(url);
	if (!db->pg || PQstatus(db->pg) != CONNECTION_OK)
		return lu_err(err, LOCUS_EIO, "database: %s",
		              db->pg ? PQerrorMessage(db->pg)
		                     : "out of memory");
	return exec_plain(db, "SET client_min_messages = warning", err);
}

static void ignore_notice(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

struct gw_waiter {
	pthread_cond_t c;
	bool go;
	gw_waiter *next;
};

static int lock_init(gw_lock *l)
{
	memset(l, 0, sizeof *l);
	return pthread_mutex_init(&l->m, NULL);
}

void gw_db_lock(gw_db *db)
{
	gw_lock *l = &db->lock;
	pthread_mutex_lock(&l->m);
	if (!l->held && !l->head) {
		l->held = true;
		pthread_mutex_unlock(&l->m);
		return;
	}
	gw_waiter w = {.go = false, .next = NULL};
	pthread_cond_init(&w.c, NULL);
	if (l->tail)
		l->tail->next = &w;
	else
		l->head = &w;
	l->tail = &w;
	while (!w.go) /* handed over by gw_db_unlock */
		pthread_cond_wait(&w.c, &l->m);
	pthread_mutex_unlock(&l->m);
	pthread_cond_destroy(&w.c);
}

void gw_db_unlock(gw_db *db)
{
	gw_lock *l = &db->lock;
	pthread_mutex_lock(&l->m);
	gw_waiter *w = l->head;
	if (w) {
		/* held stays true: the lock passes to the oldest waiter */
		l->head = w->next;
		if (!l->head)
			l->tail = NULL;
		w->go = true;
		pthread_cond_signal(&w->c);
	} else
		l->held = false;
	pthread_mutex_unlock(&l->m);
}

int gw_db_open(gw_db *db, const char *url, locus_error *err)
{
	memset(db, 0, sizeof *db);
	bool pg = !strncmp(url, "postgres://", 11) ||
	          !strncmp(url, "postgresql://", 13);
	const char *path = pg ? url : sqlite_path(url);
	if (!*path)
		return lu_err(err, LOCUS_EINVALID, "--db: an empty path");
	if (lock_init(&db->lock))
		return lu_err(err, LOCUS_EIO, "a mutex could not be made");
	db->path = strdup(pg ? "postgresql" : path);
	int rc;
	if (pg) {
		rc = db->path ? open_pg(db, url, err)
		              : lu_err(err, LOCUS_ENOMEM, "out of memory");
		/* no notices on stderr: library code never prints */
		if (db->pg)
			PQsetNoticeProcessor(db->pg, ignore_notice, NULL);
	} else {
		rc =
		    sqlite3_open_v2(path, &db->h,
		                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
		                        SQLITE_OPEN_FULLMUTEX,
		                    NULL);
		if (rc != SQLITE_OK || !db->path)
			rc = lu_err(err, LOCUS_EIO, "database %s: %s", path,
			            db->h ? sqlite3_errmsg(db->h)
			                  : "out of memory");
		else {
			sqlite3_busy_timeout(db->h, 10000);
			rc = exec_plain(db,
			                "PRAGMA journal_mode = WAL;"
			                "PRAGMA synchronous = FULL;"
			                "PRAGMA foreign_keys = ON;",
			                err);
		}
	}
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
	if (db->pg)
		PQfinish(db->pg);
	if (db->path)
		pthread_mutex_destroy(&db->lock.m);
	free(db->path);
	memset(db, 0, sizeof *db);
}

bool gw_db_shared(const gw_db *db)
{
	return db->pg != NULL;
}

int gw_db_version(gw_db *db)
{
	locus_error err;
	gw_db_lock(db);
	gw_stmt *st =
	    gw_q(db, &err, "SELECT max(version) FROM schema_migrations", "");
	int v = st && gw_row(st) ? (int)gw_int(st, 0) : -1;
	gw_done(st);
	gw_db_unlock(db);
	return v;
}

/* A connection that dropped (a restart of the server) is made again
   before a transaction; what was in flight failed and was not taken. */
static void pg_alive(gw_db *db)
{
	if (db->pg && PQstatus(db->pg) != CONNECTION_OK)
		PQreset(db->pg);
}

int gw_tx_begin(gw_db *db, locus_error *err)
{
	gw_db_lock(db);
	pg_alive(db);
	int rc = exec_plain(db, db->pg ? "BEGIN" : "BEGIN IMMEDIATE", err);
	if (!rc && db->pg)
		rc = exec_plain(
		    db, "SELECT pg_advisory_xact_lock(" PG_LOCK_WRITE ")", err);
	db->in_tx = rc == 0;
	if (rc) {
		locus_error ignored;
		if (db->pg)
			exec_plain(db, "ROLLBACK", &ignored);
		gw_db_unlock(db);
	}
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
	db->in_tx = false;
	gw_db_unlock(db);
	return rc;
}

/* sql with each ? turned into $1, $2... (PostgreSQL); our statements have
   no ? inside a literal. */
static char *pg_sql(const char *sql)
{
	size_t n = strlen(sql), q = 0;
	for (size_t i = 0; i < n; i++)
		q += sql[i] == '?';
	char *out = malloc(n + q * 6 + 1), *o = out;
	if (!out)
		return NULL;
	int k = 0;
	for (size_t i = 0; i < n; i++)
		if (sql[i] == '?')
			o += sprintf(o, "$%d", ++k);
		else
			*o++ = sql[i];
	*o = 0;
	return out;
}

static gw_stmt *pg_query(gw_db *db, locus_error *err, const char *sql,
                         const char *fmt, va_list ap)
{
	enum { MAXP = 16 };
	char nums[MAXP][32];
	const char *vals[MAXP];
	int np = 0;
	for (; fmt[np] && np < MAXP; np++) {
		if (fmt[np] == 's')
			vals[np] = va_arg(ap, const char *);
		else if (fmt[np] == 'i') {
			snprintf(nums[np], sizeof nums[np], "%lld",
			         (long long)va_arg(ap, int64_t));
			vals[np] = nums[np];
		} else {
			snprintf(nums[np], sizeof nums[np], "%.17g",
			         va_arg(ap, double));
			vals[np] = nums[np];
		}
	}
	char *q = pg_sql(sql);
	gw_stmt *st = calloc(1, sizeof *st);
	if (!q || !st) {
		free(q);
		free(st);
		lu_err(err, LOCUS_ENOMEM, "out of memory");
		return NULL;
	}
	st->db = db;
	st->row = -1;
	st->pg = PQexecParams(db->pg, q, np, NULL, vals, NULL, NULL, 0);
	free(q);
	ExecStatusType s = PQresultStatus(st->pg);
	if (s != PGRES_TUPLES_OK && s != PGRES_COMMAND_OK) {
		const char *state =
		    PQresultErrorField(st->pg, PG_DIAG_SQLSTATE);
		lu_err(err,
		       state && !strncmp(state, "23", 2) ? LOCUS_ECONFLICT
		                                         : LOCUS_EIO,
		       "database: %s", PQresultErrorMessage(st->pg));
		PQclear(st->pg);
		free(st);
		return NULL;
	}
	if (s == PGRES_COMMAND_OK) {
		const char *n = PQcmdTuples(st->pg);
		db->changes = n && *n ? atol(n) : 0;
	}
	return st;
}

static gw_stmt *vq(gw_db *db, locus_error *err, const char *sql,
                   const char *fmt, va_list ap)
{
	if (db->pg && !db->in_tx)
		pg_alive(db); /* never inside a transaction: its work is lost */
	if (db->pg)
		return pg_query(db, err, sql, fmt, ap);
	sqlite3_stmt *lite = NULL;
	if (sqlite3_prepare_v2(db->h, sql, -1, &lite, NULL) != SQLITE_OK) {
		db_err(db, err, "prepare");
		return NULL;
	}
	int rc = SQLITE_OK;
	for (int i = 0; fmt[i] && rc == SQLITE_OK; i++) {
		if (fmt[i] == 's') {
			const char *s = va_arg(ap, const char *);
			rc = s ? sqlite3_bind_text(lite, i + 1, s, -1,
			                           SQLITE_TRANSIENT)
			       : sqlite3_bind_null(lite, i + 1);
		} else if (fmt[i] == 'i')
			rc = sqlite3_bind_int64(lite, i + 1,
			                        va_arg(ap, int64_t));
		else
			rc = sqlite3_bind_double(lite, i + 1,
			                         va_arg(ap, double));
	}
	gw_stmt *st = rc == SQLITE_OK ? calloc(1, sizeof *st) : NULL;
	if (!st) {
		if (rc != SQLITE_OK)
			db_err(db, err, "bind");
		else
			lu_err(err, LOCUS_ENOMEM, "out of memory");
		sqlite3_finalize(lite);
		return NULL;
	}
	st->db = db;
	st->lite = lite;
	return st;
}

gw_stmt *gw_q(gw_db *db, locus_error *err, const char *sql, const char *fmt,
              ...)
{
	va_list ap;
	va_start(ap, fmt);
	gw_stmt *st = vq(db, err, sql, fmt, ap);
	va_end(ap);
	return st;
}

bool gw_row(gw_stmt *st)
{
	if (!st || st->failed)
		return false;
	if (st->pg)
		return ++st->row < PQntuples(st->pg);
	int step = sqlite3_step(st->lite);
	if (step == SQLITE_ROW)
		return true;
	if (step != SQLITE_DONE)
		st->failed = true;
	else
		st->db->changes = sqlite3_changes(st->db->h);
	return false;
}

bool gw_failed(const gw_stmt *st)
{
	return !st || st->failed;
}

const char *gw_text(gw_stmt *st, int i)
{
	if (st->pg)
		return PQgetisnull(st->pg, st->row, i)
		           ? NULL
		           : PQgetvalue(st->pg, st->row, i);
	return (const char *)sqlite3_column_text(st->lite, i);
}

int64_t gw_int(gw_stmt *st, int i)
{
	if (st->pg) {
		const char *t = gw_text(st, i);
		return t ? strtoll(t, NULL, 10) : 0;
	}
	return sqlite3_column_int64(st->lite, i);
}

gw_coltype gw_type(gw_stmt *st, int i)
{
	if (st->pg) {
		if (PQgetisnull(st->pg, st->row, i))
			return GW_COL_NULL;
		Oid t = PQftype(st->pg, i);
		return t == 20 || t == 21 || t == 23 ? GW_COL_INT : GW_COL_TEXT;
	}
	switch (sqlite3_column_type(st->lite, i)) {
	case SQLITE_NULL: return GW_COL_NULL;
	case SQLITE_INTEGER: return GW_COL_INT;
	default: return GW_COL_TEXT;
	}
}

void gw_done(gw_stmt *st)
{
	if (!st)
		return;
	if (st->pg)
		PQclear(st->pg);
	if (st->lite)
		sqlite3_finalize(st->lite);
	free(st);
}

int gw_exec(gw_db *db, locus_error *err, const char *sql, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	gw_stmt *st = vq(db, err, sql, fmt, ap);
	va_end(ap);
	if (!st)
		return LOCUS_EIO;
	while (gw_row(st))
		;
	int rc = st->failed ? db_err(db, err, "write") : 0;
	gw_done(st);
	return rc;
}

long gw_changes(const gw_db *db)
{
	return db->changes;
}

char *gw_col_dup(gw_stmt *st, int i)
{
	const char *t = gw_text(st, i);
	return t ? strdup(t) : NULL;
}

/* ---- the audit chain ---- */

static const char zero_hash[] =
    "0000000000000000000000000000000000000000000000000000000000000000";

int gw_audit(gw_db *db, const char *kind, const char *run_id, cJSON *record,
             char *audit_id, locus_error *err)
{
	gw_stmt *st =
	    gw_q(db, err,
	         "SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1", "");
	if (!st)
		return LOCUS_EIO;
	int64_t seq = 1;
	char prev[65];
	snprintf(prev, sizeof prev, "%s", zero_hash);
	if (gw_row(st)) {
		seq = gw_int(st, 0) + 1;
		snprintf(prev, sizeof prev, "%s", gw_text(st, 1));
	}
	bool failed = gw_failed(st);
	gw_done(st);
	if (failed)
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
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
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
	gw_db_lock(db);
	pg_alive(db);
	gw_stmt *st = gw_q(
	    db, err, "SELECT seq, record, hash FROM audit ORDER BY seq", "");
	if (!st) {
		gw_db_unlock(db);
		return LOCUS_EIO;
	}
	char prev[65];
	snprintf(prev, sizeof prev, "%s", zero_hash);
	int64_t want = 1;
	while (gw_row(st)) {
		int64_t seq = gw_int(st, 0);
		const char *text = gw_text(st, 1);
		const char *hash = gw_text(st, 2);
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
	bool failed = gw_failed(st) && !rep->bad_seq;
	gw_done(st);
	gw_db_unlock(db);
	snprintf(rep->last_hash, sizeof rep->last_hash, "%s", prev);
	if (failed)
		return lu_err(err, LOCUS_EIO, "database: audit read failed");
	return rep->bad_seq ? lu_err(err, LOCUS_EINVALID, "audit: %s", rep->why)
	                    : 0;
}
