/*
 * gateway/gw.h - `locus gateway`: the control plane the box runner talks
 * to (docs/gateway.md).  Internal to the `locus` executable, like
 * runner/; it reads and writes JSON with the runner's strict reader and
 * canonical writer (runner/json.h), so a manifest's digest is computed
 * the one way both sides agree on.
 *
 * Pieces: db.c (SQLite, migrations, transactions, the audit chain),
 * token.c (ids and tokens, hashed at rest), server.c (libmicrohttpd,
 * bodies, authentication, dispatch), runner_routes.c (every route of
 * docs/runner.md), admit.c (admission by the locus policy engine),
 * operator.c (the operator API), runs.c (a run from a definition: its
 * manifest and token), box.c (starting a run's box), page.c (the web
 * page and its event stream), tools.c (the tools the gateway performs),
 * expiry.c (approvals nobody decides), box_openshell.c (the openshell
 * box and its monitor), approvals.c (what settling a run's approvals does
 * to the run).
 */
#ifndef LOCUS_GATEWAY_GW_H
#define LOCUS_GATEWAY_GW_H

#include "locus/common.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- db.c ---- */

/* The connection's lock, first come first served: each waiter sleeps on
   its own condition, and an unlock hands the lock to the one that has
   waited longest (no barging: under many concurrent runs a plain mutex
   let some requests wait while later ones went ahead, the admission
   tail of docs/benchmark.md). */
typedef struct gw_waiter gw_waiter;
typedef struct gw_lock {
	pthread_mutex_t m;
	bool held;
	gw_waiter *head, *tail; /* the queue, oldest first */
} gw_lock;

typedef struct gw_db {
	sqlite3 *h;         /* SQLite, or */
	struct pg_conn *pg; /* PostgreSQL (libpq's PGconn) */
	gw_lock lock;       /* one statement at a time on the connection */
	char *path;         /* the SQLite file, or "postgresql" */
	long changes;       /* rows the last write changed */
	bool in_tx;         /* between gw_tx_begin and gw_tx_end */
} gw_db;

/* Open the database at url: "postgres://..." or "postgresql://..." (a
   libpq URI: several gateways may share it), else SQLite ("sqlite:PATH",
   "sqlite://PATH" or a plain path; WAL, synchronous FULL, foreign keys);
   then apply every migration not yet applied (each in its own
   transaction). */
int gw_db_open(gw_db *db, const char *url, locus_error *err);
void gw_db_close(gw_db *db);
/* Take and give back the connection (reads outside a transaction;
   gw_tx_begin and gw_tx_end take and give it themselves). */
void gw_db_lock(gw_db *db);
void gw_db_unlock(gw_db *db);
/* Is the database shared with other gateway processes (PostgreSQL)? */
bool gw_db_shared(const gw_db *db);
/* The schema version after migrations. */
int gw_db_version(gw_db *db);

/* A transaction: locks the connection, BEGIN IMMEDIATE (PostgreSQL: BEGIN
   and the one advisory lock every replica's writers take).  Every state
   change of a request happens between gw_tx_begin and gw_tx_end; end
   commits when ok, else rolls back; both unlock. */
int gw_tx_begin(gw_db *db, locus_error *err);
int gw_tx_end(gw_db *db, bool ok, locus_error *err);

/* A statement with its parameters bound from fmt: 's' a string (NULL
   binds NULL), 'i' an int64_t, 'd' a double; `?` marks each.  NULL on
   error (err set).  Walk its rows with gw_row, free it with gw_done. */
typedef struct gw_stmt gw_stmt;
gw_stmt *gw_q(gw_db *db, locus_error *err, const char *sql, const char *fmt,
              ...);
bool gw_row(gw_stmt *st);                /* the next row: true, else done */
bool gw_failed(const gw_stmt *st);       /* a step failed (or st is NULL) */
const char *gw_text(gw_stmt *st, int i); /* NULL for SQL NULL */
int64_t gw_int(gw_stmt *st, int i);
typedef enum gw_coltype { GW_COL_NULL, GW_COL_INT, GW_COL_TEXT } gw_coltype;
gw_coltype gw_type(gw_stmt *st, int i);
void gw_done(gw_stmt *st);
/* gw_q, stepped to the end: 0, or LOCUS_EIO (LOCUS_ECONFLICT on a
   constraint). */
int gw_exec(gw_db *db, locus_error *err, const char *sql, const char *fmt, ...);
/* Rows the last gw_exec changed. */
long gw_changes(const gw_db *db);
/* Column i of the current row as a malloc'd string (NULL for SQL NULL or
   ENOMEM). */
char *gw_col_dup(gw_stmt *st, int i);

/* Append an audit record (inside a transaction): record gets "seq",
   "time", "kind", "prev"; its canonical text is stored with its SHA-256
   as the chain's next link.  *audit_id (optional, 32 bytes) gets
   "au-<seq>". */
int gw_audit(gw_db *db, const char *kind, const char *run_id, cJSON *record,
             char *audit_id, locus_error *err);
/* Check the whole chain: each record's prev is the hash before it, each
   hash the SHA-256 of its text, numbers one after the other. */
typedef struct gw_audit_report {
	long records;
	long bad_seq; /* 0: intact */
	char last_hash[65];
	char why[160];
} gw_audit_report;
int gw_audit_verify(gw_db *db, gw_audit_report *rep, locus_error *err);

/* ---- token.c ---- */

/* A fresh id "<prefix><32 hex>" into out (at least 48 bytes). */
int gw_new_id(const char *prefix, char *out, locus_error *err);
/* The hash kept at rest for a token: hex SHA-256. */
void gw_token_hash(const char *token, char out[65]);
/* With no live operator token in the database: store `given` (hashed),
   or mint one into `minted` (48 bytes) and set *did_mint. */
int gw_bootstrap_operator(gw_db *db, const char *given, char *minted,
                          bool *did_mint, locus_error *err);

/* A tenant's name: 1-64 of [A-Za-z0-9._-]. */
bool gw_tenant_ok(const char *tenant);
/* A new operator token for tenant (stored hashed, an audit record):
   token (48 bytes) gets the secret, id (24 bytes) its public id
   "tok-<16 hex of the hash>". */
int gw_token_create(gw_db *db, const char *tenant, char *token, char *id,
                    locus_error *err);
/* Revoke the live operator token with that id (LOCUS_ENOTFOUND: none). */
int gw_token_revoke(gw_db *db, const char *id, locus_error *err);
/* [{token_id, tenant, created_at, revoked}] of every operator token, or
   NULL on error. */
cJSON *gw_token_list(gw_db *db, locus_error *err);

/* ---- server.c ---- */

#define GW_MAX_RUNNER_BODY (16u << 20)
#define GW_MAX_OPERATOR_BODY (1u << 20)

typedef struct gw_server gw_server;

/* The OpenShell gateway the `openshell` box uses (serve --openshell-*);
   endpoint NULL: no openshell box. */
typedef struct gw_openshell {
	const char *endpoint;  /* HOST:PORT, or an http(s):// URL */
	const char *workspace; /* NULL: the gateway's "default" */
	const char *image;     /* NULL: its default */
	const char *token;     /* bearer token, NULL: none */
	const char *ca_file, *cert_file, *key_file;
	const char *providers; /* comma-separated provider records */
	const char *runner;    /* the runner in the image; NULL:
	                          /usr/local/bin/locus */
	const char *admit_url; /* this gateway as a box reaches it; NULL:
	                          its listening URL */
	double poll_s;         /* the monitor's period; 0: 2 s */
} gw_openshell;

typedef struct gw_config {
	const char *db_url;
	const char *listen;     /* "HOST:PORT"; 127.0.0.1:7480 by default */
	const char *locus_bin;  /* the runner started in boxes */
	const char *token_file; /* where a minted operator token goes */
	int64_t approval_ttl_s; /* a pending approval older expires; 0 never */
	gw_openshell os;
	const char *web_search_url; /* web_search's service; NULL: none */
} gw_config;

/* The caller of a request. */
typedef enum gw_who { GW_NOBODY, GW_RUN, GW_OPERATOR } gw_who;

typedef struct gw_req {
	gw_server *srv;
	const char *method, *path; /* path without the query */
	const char *query;         /* raw, after '?', or "" */
	const char *body;
	size_t body_len;
	const char *content_type;
	gw_who who;
	char run_id[208]; /* GW_RUN: the token's run */
	char tenant[128];
	char client[64]; /* the peer's address, for refusals */
	void *conn;      /* the MHD connection (query arguments) */
} gw_req;

typedef struct gw_resp {
	int status;
	char *body; /* malloc'd */
	const char *content_type;
	bool sse; /* the page's change stream (server.c sends it) */
} gw_resp;

struct gw_server {
	gw_db db;
	gw_config cfg;
	char url[96]; /* http://host:port */
	void *mhd;
	int listen_fd;
	/* bumped (under db.lock) at every change the page shows */
	pthread_mutex_t change_lock;
	pthread_cond_t change_cond;
	uint64_t changes;
	volatile int stopping;
	pthread_cond_t stop_cond; /* wakes the sweeper (under change_lock) */
	pthread_t sweeper;
	bool has_sweeper;
	pthread_t os_monitor; /* box_openshell.c */
	bool has_os_monitor;
};

int gw_server_start(gw_server **out, const gw_config *cfg, locus_error *err);
void gw_server_stop(gw_server *s);
/* Wake the page's event streams (after a commit). */
void gw_notify(gw_server *s);

/* Answer helpers: a JSON body (takes o), an error {"detail": why}. */
void gw_reply(gw_resp *r, int status, cJSON *o);
void gw_fail(gw_resp *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Record a refusal in the audit chain (its own transaction) and answer it
   with status and why. */
void gw_refuse(gw_req *q, gw_resp *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The body as a JSON object whose keys are all in `required` or
   `optional` and which has every `required` key; else the answer is set
   (400 malformed, 415 wrong type, 422 fields) and NULL is returned. */
cJSON *gw_body(gw_req *q, gw_resp *r, const char *const *required,
               const char *const *optional);
/* A GET must not carry a body: false with 400 set. */
bool gw_no_body(gw_req *q, gw_resp *r);
/* A query argument (decoded), or NULL. */
const char *gw_arg(const gw_req *q, const char *name);
/* Every query argument's name is in allowed. */
bool gw_args_known(const gw_req *q, const char *const *allowed);

/* ---- runner_routes.c ---- */
/* True when the route is one of docs/runner.md's (then r is set). */
bool gw_runner_route(gw_req *q, gw_resp *r);

/* ---- admit.c ---- */
void gw_admit(gw_req *q, gw_resp *r);
void gw_approval_poll(gw_req *q, gw_resp *r, const char *approval_id);
/* Admit a call the gateway itself performs (tools.c) for run_id: decided
   and recorded as an admission, in its own transaction, but no hold is
   made and no decision token issued; the answer's fields into answer. */
int gw_admit_gateway_tool(gw_db *db, const char *run_id, const char *call_id,
                          const char *tool, const cJSON *args, cJSON *answer,
                          locus_error *err);
/* The run's policy (JSON text) and its fingerprint "sha256:<hex>". */
int gw_policy_text(const cJSON *policy, char **text, locus_error *err);

/* ---- runs.c ---- */
typedef struct gw_new_run {
	char run_id[64];
	char token[64];
} gw_new_run;
/* Make a run from a definition (the file's JSON object): checks it, builds
   the manifest (checked with the runner's own loader), mints the token,
   stores run + token + audit record.  Inside a transaction. */
int gw_run_create(gw_server *s, const cJSON *def, const char *box,
                  const char *parent, gw_new_run *out, locus_error *err);
/* A child run of `parent` for the task tool (inside a transaction). */
int gw_child_create(gw_server *s, const char *parent, const char *call_id,
                    const char *agent, const char *prompt, gw_new_run *out,
                    locus_error *err);

/* ---- box.c: starting a run's box, in gateway/box.h ---- */

/* ---- box_openshell.c (the box itself: gateway/box.h) ---- */
/* One look at every live sandbox: an ended one is deleted, and a run it
   left without a result becomes `error`. */
int gw_os_sweep(gw_server *s, locus_error *err);
/* The monitor thread (none without an OpenShell endpoint). */
int gw_os_monitor_start(gw_server *s, locus_error *err);
void gw_os_monitor_stop(gw_server *s);

/* ---- periodic.c ---- */
/* A background thread's loop (the sweeper, the box monitor): sweep(s)
   every `every_ms` until the server stops, waiting on stop_cond under
   change_lock and sweeping outside it; a failed sweep waits for the
   next. */
void gw_every(gw_server *s, int64_t every_ms,
              int (*sweep)(gw_server *s, locus_error *err));
/* Start `body` (a loop over gw_every) as *th, *running set; an error
   names `what` when the thread cannot start. */
int gw_thread_start(gw_server *s, pthread_t *th, bool *running,
                    void *(*body)(void *), const char *what, locus_error *err);
/* Stop the server's loops (stopping set, stop_cond broadcast) and join
   *th when *running; *running cleared. */
void gw_thread_stop(gw_server *s, pthread_t *th, bool *running);

/* ---- tools.c ---- */
/* POST /internal/v1/runs/{id}/tools/{name}. */
void gw_tool_call(gw_req *q, gw_resp *r, const char *name);

/* ---- expiry.c ---- */
/* Expire the pending approvals older than cfg.approval_ttl_s (each with
   its audit record and its parked run's resume op; boxes started). */
int gw_expire_sweep(gw_server *s, locus_error *err);
/* The sweeper thread (none when the TTL is 0); stop joins it. */
int gw_expiry_start(gw_server *s, locus_error *err);
void gw_expiry_stop(gw_server *s);

/* ---- operator.c ---- */
bool gw_operator_route(gw_req *q, gw_resp *r);
/* Settle approval_id (approve/deny) inside a transaction; sets the parked
   run's resume op.  *restart is set when a box should be started. */
int gw_decide(gw_server *s, const char *tenant, const char *approval_id,
              bool approve, const char *by, const char *why, char *run_id_out,
              bool *restart, locus_error *err);

/* ---- page.c ---- */
bool gw_page_route(gw_req *q, gw_resp *r);

/* ---- approvals.c ---- */
/* Settle the run's pending approvals as abandoned (by "gateway", why),
   with one audit record; inside a transaction. */
int gw_abandon_pending(gw_db *db, const char *run_id, const char *why,
                       locus_error *err);

/* A run's resume op once the approval it waits for is settled; called
   inside a transaction by the result route and by gw_decide. */
int gw_resume_if_decided(gw_db *db, const char *run_id, bool *resumed,
                         locus_error *err);

#endif
