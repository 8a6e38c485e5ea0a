/*
 * runner/runner.h - the box runner (`locus runner`, docs/runner.md).
 *
 * One agent's loop for one run inside a sandbox, with a gateway as the
 * control plane: the gateway decides every call, performs the tools a box
 * must not, keeps checkpoints and writes every record.  The runner has no
 * policy, no model key and no audit chain of its own; every call but the
 * gateway's own is admitted by the gateway first, and anything that is not
 * a clear `allow` (a hold, a deny, a transport error, a 4xx/5xx, a
 * malformed answer) means the call does not run.
 *
 * Files: json.c (util's strict reader, canonical writer), gateway.c (the
 * bearer client), manifest.c (manifest v1), events.c (numbering, batches,
 * the spool), model.c (OpenAI-compatible chat completions, streamed),
 * admit.c (admission and holds), tools.c (box/ask_user/task), remote.c
 * (gateway/mcp/api tools), loop.c (the agent loop, parking), run.c
 * (next/manifest/result, exit codes), secrets.c (environment hygiene),
 * files.c (the state folder's files), log.c (.locus/runner.log).  Only cli/runner.c prints or exits.
 */
#ifndef LOCUS_RUNNER_H
#define LOCUS_RUNNER_H

#include "locus/harness.h"
#include "net/http.h"
#include "runner/json.h"

#include <stdio.h>

/* Exit codes of `locus runner` (docs/spec/runner.md). */
enum { LR_EXIT_DONE = 0, LR_EXIT_ERROR = 1, LR_EXIT_REFUSED = 2 };

/* What the process was started with (cli/runner.c reads the environment;
   the strings are copies owned by the caller). */
typedef struct lr_env {
	const char *url;       /* LOCUS_ADMIT_URL */
	const char *token;     /* LOCUS_ADMIT_TOKEN (a secret) */
	const char *run_id;    /* LOCUS_RUN_ID */
	const char *root;      /* LOCUS_RUNNER_ROOT or /sandbox */
	const char *state_dir; /* LOCUS_RUNNER_STATE_DIR (relative to root)
	                          or ".locus" */
	bool harden;           /* LOCUS_RUNNER_HARDEN=non-dumpable */
	const char *self_exe;  /* for child runs; NULL: /proc/self/exe */
} lr_env;

/** Run (or resume) the run to its end or its next park; the exit code. */
int lr_main(const lr_env *env);

/* ---- log.c: .locus/runner.log, names and statuses, never values ---- */
typedef struct lr_log {
	FILE *f; /* NULL: logging off (the folder could not be made) */
} lr_log;
void lr_log_open(lr_log *l, const char *path);
void lr_logf(lr_log *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void lr_log_close(lr_log *l);
/* A malloc'd formatted string, or NULL (out of memory). */
char *lr_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- files.c: the state folder's files ---- */
/* The most read back of one (parked.json, a child's result.json): the
   gateway's own body cap. */
#define LR_MAX_STATE_FILE (16u << 20)
/* "<dir>/<name>", malloc'd, or NULL (out of memory). */
char *lr_path(const char *dir, const char *name);
/* Replace the file at path with text[0..len) atomically (path.tmp, then
   rename).  0, LOCUS_EIO, LOCUS_ENOMEM. */
int lr_file_replace(const char *path, const char *text, size_t len);
/* Replace <dir>/<name> with v's canonical JSON (lr_file_replace). */
int lr_json_file_write(const char *dir, const char *name, const cJSON *v);
/* Read <dir>/<name> whole and strictly into *out (cJSON_Delete it).
   LOCUS_ENOTFOUND it cannot be opened or read, LOCUS_EINVALID longer
   than max bytes or malformed, LOCUS_ENOMEM. */
int lr_json_file_read(const char *dir, const char *name, size_t max,
                      cJSON **out, locus_error *err);

/* ---- gateway.c ---- */
typedef struct lr_gw {
	lhttp_client *http;
	char *auth; /* "Bearer <token>": a secret, never logged */
	const char *run_id;
	lr_log *log;
} lr_gw;

int lr_gw_open(lr_gw *g, const char *url, const char *token, const char *run_id,
               lr_log *log, locus_error *err);
void lr_gw_close(lr_gw *g);
/*
 * One request: body (may be NULL) sent as canonical JSON; a 2xx answer's
 * body parsed strictly into *out (NULL when empty).  Errors: LOCUS_EIO the
 * gateway is unavailable (transport, timeout, 5xx), LOCUS_ENOTFOUND 404,
 * LOCUS_ECONFLICT 409, LOCUS_EDENIED any other 4xx (then *out is the
 * parsed error body when it is JSON), LOCUS_EINVALID a malformed answer.
 * *status (may be NULL) gets the HTTP status.
 */
int lr_gw_request(lr_gw *g, const char *method, const char *path,
                  const cJSON *body, lhttp_retry retry, cJSON **out,
                  long *status, locus_error *err);
/* lr_gw_request on "/internal/v1/runs/<run id>/<tail>" (no status). */
int lr_gw_run_request(lr_gw *g, const char *method, const char *tail,
                      const cJSON *body, lhttp_retry retry, cJSON **out,
                      locus_error *err);

/* ---- manifest.c ---- */
typedef enum lr_runs {
	LR_RUNS_BOX,
	LR_RUNS_GATEWAY,
	LR_RUNS_MCP,
	LR_RUNS_API
} lr_runs;

typedef struct lr_tool {
	const char *name;
	const char *description; /* "" when none */
	const cJSON *parameters; /* NULL: none given */
	lr_runs runs;
	const char *target; /* mcp/api id */
	size_t target_index;
	/* api: the operation */
	const char *op_method, *op_path;
	const cJSON *op_query; /* array of names */
	bool op_body_json;
} lr_tool;

typedef struct lr_mount {
	const char *id, *url, *transport, *credential_env;
	const cJSON *tools;      /* array of names; empty: all */
	const char **tool_names; /* the same names sorted (strcmp), owned */
	size_t n_tool_names;
	char *session; /* Mcp-Session-Id once initialised */
	bool ready;
	long next_id;
} lr_mount;

typedef struct lr_connector {
	const char *id, *base_url, *credential_env, *credential_header,
	    *credential_prefix;
} lr_connector;

typedef struct lr_budgets {
	long max_iterations; /* 0: none */
	long max_tokens;     /* 0: none */
	double max_cost_usd; /* < 0: none */
	double timeout_s;    /* 0: none */
	double park_ttl_s;   /* 600 */
} lr_budgets;

typedef struct lr_manifest {
	cJSON *root; /* owned; every string below points into it */
	const char *run_id, *tenant, *agent, *instructions, *input;
	/* free-form objects (NULL: absent or null), read only for the system
	   prompt (prompt.c) */
	const cJSON *harness, *playbook;
	lr_tool *tools;
	size_t n_tools;
	lr_mount *mcp;
	size_t n_mcp;
	lr_connector *api;
	size_t n_api;
	lr_budgets budgets;
	const char *model, *model_base_url, *model_key_env, *provider;
	char digest[72]; /* of the whole manifest as received */
} lr_manifest;

/* Parse and check a manifest (takes `root` over, also on failure).
   LOCUS_EINVALID with the reason. */
int lr_manifest_load(lr_manifest *m, cJSON *root, locus_error *err);
void lr_manifest_free(lr_manifest *m);
const lr_tool *lr_manifest_tool(const lr_manifest *m, const char *name);

/* ---- prompt.c ---- */
/* The system prompt: instructions, a "Plan mode" section when
   harness.plan_mode is true, the playbook's outline (malloc'd; "" when
   there is none of the three; NULL on ENOMEM). */
char *lr_system_prompt(const lr_manifest *m);

/* ---- events.c ---- */
#define LR_EVENT_BATCH 64
/* Event numbers (and any count read from JSON) stay below 2^53: exact as
   a JSON number, and in a long. */
#define LR_SEQ_LIMIT LR_JSON_INT_LIMIT
typedef struct lr_events {
	lr_gw *gw;
	char *spool_path, *seq_path;
	long next_seq;  /* the number the next event gets */
	cJSON *pending; /* array of {"seq","event"} not yet sent */
	bool down;      /* the last delivery failed */
	bool spooled; /* events.jsonl exists (left by a process, or written) */
	lr_log *log;
} lr_events;

int lr_events_open(lr_events *e, lr_gw *gw, const char *state_dir, lr_log *log,
                   locus_error *err);
void lr_events_close(lr_events *e);
/* Queue one event (taken over; its "type" must be an allowed one). */
void lr_events_emit(lr_events *e, cJSON *event);
/* Deliver what is queued (the spool read at open first), in order, in
   batches of at most 64; what cannot be delivered stays queued and is
   written to the spool as a backup (never read back by this process).  0 all delivered,
   LOCUS_EIO spooled (the gateway is down), LOCUS_EINVALID the gateway
   refused a batch (the run fails). */
int lr_events_flush(lr_events *e, locus_error *err);
/* At least n (from a checkpoint): numbering never goes back. */
void lr_events_seq_at_least(lr_events *e, long n);

/* ---- the run ---- */
typedef struct lr_run lr_run;

/* model.c */
typedef struct lr_turn {
	char *content;     /* may be NULL */
	char *reasoning;   /* may be NULL */
	cJSON *tool_calls; /* array [{id,type,function{name,arguments}}] */
	long prompt_tokens, completion_tokens;
	double cost_usd;
	bool has_cost;
} lr_turn;
void lr_turn_clear(lr_turn *t);
int lr_model_call(lr_run *r, lr_turn *out, locus_error *err);

/* admit.c */
typedef enum lr_verdict { LR_ALLOW, LR_HOLD, LR_DENY, LR_UNDECIDED } lr_verdict;
typedef struct lr_admission {
	lr_verdict verdict;
	char *approval_id;    /* LR_HOLD */
	char *decision_token; /* LR_ALLOW: one-shot, a secret */
	char *text;           /* what the model gets when it does not run */
} lr_admission;
void lr_admission_clear(lr_admission *a);
/* POST /v1/admit; never fails: anything but a clean allow is not allow. */
void lr_admit(lr_run *r, const char *call_id, const char *tool,
              const cJSON *args, const char *approval_id, lr_admission *out);
/* Poll a hold until settled or `ttl_s` passes: "approved", "denied", ...,
   or NULL when still pending at the TTL (or the gateway is away).  *who_why
   (malloc'd, or NULL) gets " by WHO: WHY" from the settled answer's
   optional decided_by and justification strings. */
const char *lr_approval_wait(lr_run *r, const char *approval_id, double ttl_s,
                             char **who_why);
/* " by WHO: WHY", " by WHO", ": WHY" or "" from optional strings (NULL
   only when out of memory). */
char *lr_who_why(const char *who, const char *why);

/* tools.c / remote.c */
typedef enum lr_outcome { LR_RAN, LR_PARK, LR_FATAL } lr_outcome;
typedef struct lr_call_result {
	char *text; /* for the model */
	bool is_error;
	cJSON *waiting; /* LR_PARK: the "waiting" object */
} lr_call_result;
/* Perform one tool call (admission included).  approval_id: a resumed
   held call's approval. */
lr_outcome lr_tool_call(lr_run *r, const char *call_id, const char *name,
                        const char *args_json, const char *approval_id,
                        lr_call_result *res, locus_error *err);
/* tool_start (args given) or tool_complete (res given) of one call. */
void lr_tool_events(lr_run *r, const char *type, const char *call_id,
                    const char *tool, const cJSON *args,
                    const lr_call_result *res, double ms);
/* The harness's on_exec: a harness.exec event for the current call. */
void lr_on_exec(const locus_exec_record *rec, void *payload);
char *lr_remote_gateway(lr_run *r, const lr_tool *t, const char *call_id,
                        const cJSON *args, bool *is_error);
char *lr_remote_mcp(lr_run *r, const lr_tool *t, const cJSON *args,
                    const char *decision, bool *is_error);
char *lr_remote_api(lr_run *r, const lr_tool *t, const cJSON *args,
                    const char *decision, bool *is_error);
char *lr_task_run(lr_run *r, const char *call_id, const cJSON *args,
                  bool *is_error);

/* secrets.c */
typedef struct lr_secrets {
	char **names;  /* variables wiped */
	char **values; /* their values, kept for the runner's own use */
	size_t n;
} lr_secrets;
/* Copy the named variables' values (missing ones are skipped). */
int lr_secrets_take(lr_secrets *s, const char *const *names, size_t n);
const char *lr_secrets_get(const lr_secrets *s, const char *name);
/* Wipe every taken variable from environ and from the initial environment
   block, then check /proc/self/environ holds none of the values.
   LOCUS_EIO when a value is still readable there. */
int lr_secrets_wipe(const lr_secrets *s, bool harden, locus_error *err);
void lr_secrets_free(lr_secrets *s);

struct lr_run {
	const lr_env *env;
	char *state_dir; /* absolute */
	lr_log log;
	lr_gw gw;
	lr_events ev;
	lr_manifest m;
	lr_secrets secrets;
	lhttp_client *model_http;
	locus_backend *backend;
	locus_harness *harness;
	cJSON *messages;   /* the chat so far */
	cJSON *tools_json; /* the tools as the model sees them */
	long iterations;
	long prompt_tokens, completion_tokens;
	double cost_usd;
	double t0;
	const char *cur_call_id; /* harness.exec events name it */
};

/* Seconds left of timeout_s (a large number when none; runner/budget.c). */
double lr_run_left(const lr_run *r);
/* loop.c */
typedef struct lr_end {
	const char *status; /* done, parked, refused, error */
	char *final_message, *stop_reason, *error;
	cJSON *waiting;
} lr_end;
void lr_end_clear(lr_end *e);
/* op: "start" or "resume" (with `resume` the gateway's object). */
void lr_loop(lr_run *r, const char *op, const cJSON *resume, lr_end *end);

#endif
