/*
 * net/oci.h - internals of the OCI Generative AI Sandboxes backend.
 *
 * Four pieces, one file each:
 *   oci_sign.c    OCI request signing (draft-cavage, signature version 1,
 *                 RSA-SHA256), the request signer used as net/http's
 *                 prepare hook;
 *   oci_config.c  the ~/.oci/config reader (profiles, DEFAULT inheritance);
 *   oci_routes.c  the one table of operations -> method and path
 *                 (built-in draft defaults, overridable by a JSON file);
 *   oci_client.c  the service client: lifecycle, commands and their event
 *                 streams, files;
 * and oci.c, the SessionBackend over the client (locus/harness.h).
 *
 * Facts and guesses about the service: docs/backends.md says which are
 * assumed.
 */
#ifndef LOCUS_HARNESS_OCI_H
#define LOCUS_HARNESS_OCI_H

#include "locus/harness.h"
#include "net/http.h"

/* ---------------------------------------------------------------- */
/* Signing                                                            */
/* ---------------------------------------------------------------- */

typedef struct loci_signer loci_signer;

/**
 * A signer from a PEM private key (RSA; PKCS#1 or PKCS#8, encrypted when
 * passphrase is given).  key_id is the whole keyId ("<tenancy>/<user>/
 * <fingerprint>" or "ST$<token>").  LOCUS_EINVALID for a key that cannot
 * be read or is not RSA.
 */
int loci_signer_new(loci_signer **out, const char *key_id, const char *pem,
                    size_t pem_len, const char *passphrase, locus_error *err);
void loci_signer_free(loci_signer *s);
const char *loci_signer_key_id(const loci_signer *s);

/** Tests: a fixed clock (Unix seconds) for the Date header; NULL: time(). */
void loci_signer_set_clock(loci_signer *s, int64_t (*now)(void *), void *p);

typedef struct loci_sign_input {
	const char *method; /* any case; lowercased in (request-target) */
	const char *target; /* path?query exactly as sent */
	const char *host;   /* host[:port] exactly as sent */
	const char *date;   /* IMF-fixdate */
	/* Body headers (POST, PUT, PATCH): content-length, content-type and
	   x-content-sha256 are signed too. */
	bool sign_body;
	const char *content_type;
	const void *body;
	size_t body_len;
} loci_sign_input;

typedef struct loci_signature {
	char body_sha256[48]; /* base64 SHA-256 of the body (when signed) */
	char content_length[24];
	char *signing_string; /* malloc'd */
	char *authorization;  /* malloc'd: `Signature version="1",...` */
} loci_signature;

int loci_sign(const loci_signer *s, const loci_sign_input *in,
              loci_signature *out, locus_error *err);
void loci_signature_clear(loci_signature *sig);

/**
 * net/http prepare hook (ctx: a loci_signer): sets date, host and, for
 * POST/PUT/PATCH, content-length and x-content-sha256, then
 * authorization.  A fresh date on every attempt, so retries re-sign.
 */
int loci_prepare(void *ctx, const lhttp_request *req, const char *url,
                 lhttp_headers *headers, locus_error *err);

/** base64 of SHA-256(data): the form of x-content-sha256 and
    opc-content-sha256.  out: 45 bytes. */
void loci_sha256_b64(const void *data, size_t len, char out[48]);

/** Strict base64 (padding optional, no line breaks inside) into *out
    (malloc'd, NUL-terminated past *len).  LOCUS_EINVALID when malformed. */
int loci_b64_decode(const char *s, size_t n, char **out, size_t *len);

/* ---------------------------------------------------------------- */
/* ~/.oci/config                                                      */
/* ---------------------------------------------------------------- */

typedef struct loci_config {
	char *user, *fingerprint, *tenancy, *region;
	char *key_file; /* "~/" expanded */
	char *pass_phrase;
	char *security_token_file; /* "~/" expanded */
} loci_config;

/**
 * Read one profile.  path NULL: $OCI_CONFIG_FILE, else ~/.oci/config;
 * profile NULL: $OCI_CLI_PROFILE, else "DEFAULT".  Keys missing in the
 * profile come from [DEFAULT].  LOCUS_ENOTFOUND for a missing file or
 * profile, LOCUS_EINVALID for a malformed line (err->line set).
 */
int loci_config_load(loci_config *out, const char *path, const char *profile,
                     locus_error *err);
void loci_config_clear(loci_config *c);

/**
 * The signer a profile describes: a session token (security_token_file:
 * keyId "ST$<token>") or an API key (tenancy/user/fingerprint), both with
 * key_file (and pass_phrase).
 */
int loci_signer_from_config(loci_signer **out, const loci_config *c,
                            locus_error *err);

/* ---------------------------------------------------------------- */
/* Routes                                                             */
/* ---------------------------------------------------------------- */

typedef enum loci_op {
	LOCI_CREATE,
	LOCI_GET,
	LOCI_DELETE,
	LOCI_EXTEND,
	LOCI_STOP,
	LOCI_RESUME,
	LOCI_RUN,            /* run_sandbox_command: returns {id} */
	LOCI_RUN_AND_STREAM, /* the event stream of a new command */
	LOCI_EVENTS,         /* stream_sandbox_command_events (fromSeq) */
	LOCI_GET_COMMAND,
	LOCI_OUTPUT,
	LOCI_CANCEL,
	LOCI_WRITE_FILE,
	LOCI_READ_FILE,
	LOCI_OP_COUNT
} loci_op;

typedef struct loci_route {
	char method[8];
	char *path; /* template: {sandboxId} {commandId} {projectId}
	               {filePath} {fromSeq}; may carry ?query */
} loci_route;

typedef struct loci_routes {
	loci_route r[LOCI_OP_COUNT];
} loci_routes;

/** The operation's name in the route file ("create", "run_and_stream"). */
const char *loci_op_name(loci_op op);

/** The built-in table (a draft: GUESSES, docs/backends.md). */
int loci_routes_default(loci_routes *out, locus_error *err);

/**
 * Override entries from a JSON object {"op": "METHOD /path", ...}.
 * Unknown operation names, methods other than GET/POST/PUT/DELETE, paths
 * not starting with '/' and non-string values are LOCUS_EINVALID.
 */
int loci_routes_apply_json(loci_routes *rt, const char *json, size_t len,
                           locus_error *err);
void loci_routes_clear(loci_routes *rt);

/**
 * The request path of op.  vars are name/value pairs, NULL-terminated
 * ("sandboxId", id, "fromSeq", "7", NULL).  Each {name} in the template is
 * replaced by the percent-encoded value ('/' kept); a variable the
 * template does not name is appended as a query parameter, except
 * sandboxId and commandId (a route without them is the file's mistake).
 * malloc'd; NULL on allocation failure.
 */
char *loci_route_path(const loci_routes *rt, loci_op op,
                      const char *const *vars);

/** Percent-encode s for a query value or path segment (RFC 3986
    unreserved kept, '/' kept when keep_slash).  malloc'd. */
char *loci_pct_encode(const char *s, bool keep_slash);

/* ---------------------------------------------------------------- */
/* Client                                                             */
/* ---------------------------------------------------------------- */

typedef enum loci_stream_framing {
	LOCI_STREAM_AUTO = 0, /* by the response Content-Type */
	LOCI_STREAM_SSE,
	LOCI_STREAM_NDJSON,
} loci_stream_framing;

typedef struct loci_client_options {
	const char *endpoint; /* NULL: https://inference.generativeai.
	                         <region>.oci.oraclecloud.com */
	const char *region;
	const char *ca_file;
	loci_stream_framing framing;
	bool data_base64; /* event data is base64 (UNKNOWN: default text) */
	/* Create sends expiresInMinutes instead of expirationDuration (the
	   newer field; which one the service wants is UNKNOWN). */
	bool expires_in_minutes;
	long request_timeout_ms; /* one non-stream request; 0: 60 s */
	int max_attempts;        /* 0: 5 */
	/* Tests: backoff sleep hook passed to net/http. */
	void (*sleep_ms)(long ms, void *payload);
	void *sleep_payload;
} loci_client_options;

typedef struct loci_client loci_client;

/** Takes ownership of signer and routes (also on failure). */
int loci_client_new(loci_client **out, const loci_client_options *opt,
                    loci_signer *signer, loci_routes *routes, locus_error *err);
void loci_client_free(loci_client *c);
const char *loci_client_region(const loci_client *c);

typedef struct loci_create {
	const char *project_id;
	const char *display_name; /* NULL: "locus-harness-<random>" */
	const char *runtime;      /* NULL: "python-3.11" */
	const char *shape;        /* NULL: "SMALL" */
	const char *expiration;   /* NULL: "PT1H" */
	const char *warmpool_name;
	const char *const *env; /* "NAME=value", NULL-terminated; may be NULL */
	double ready_timeout_s; /* 0: 300 */
	double poll_interval_s; /* 0: 2 */
} loci_create;

/**
 * Create a sandbox and wait until RUNNING.  *id_out (malloc'd) is set as
 * soon as the service gave an id, even when the wait then fails: the
 * caller owns what exists (oci.c deletes it).
 */
int loci_sandbox_create(loci_client *c, const loci_create *in, char **id_out,
                        locus_error *err);
/** lifecycleState of a sandbox (malloc'd); LOCUS_ENOTFOUND on 404. */
int loci_sandbox_state(loci_client *c, const char *id, char **state,
                       char **expires, locus_error *err);
/** Resume when SUSPENDED, then wait for RUNNING.  Refuses other states. */
int loci_sandbox_attach(loci_client *c, const char *id, double timeout_s,
                        locus_error *err);
/** Stop (wait for STOPPED, bounded) then delete; 404 counts as done. */
int loci_sandbox_destroy(loci_client *c, const char *id, locus_error *err);
/** Add an ISO 8601 duration; *expires (malloc'd) the new timeExpires. */
int loci_sandbox_extend(loci_client *c, const char *id, const char *duration,
                        char **expires, locus_error *err);

typedef struct loci_run_result {
	bool finished; /* FINISHED seen */
	bool has_exit_code;
	int exit_code; /* when has_exit_code */
	char *out;     /* stdout and stderr in seq order, malloc'd */
	size_t len;
	uint64_t last_seq;
	int resumes; /* streams re-opened after a drop */
	char command_id[128];
} loci_run_result;

void loci_run_result_clear(loci_run_result *r);

/**
 * Run a shell line in the sandbox and collect its events (duplicates by
 * seq dropped, a dropped stream resumed from the last seq).  max_out caps
 * what is kept (the caller caps inside the sandbox too); the service's
 * timeout is timeout_s + grace.  LOCUS_ETIMEOUT when the stream could not
 * be finished in time.
 */
int loci_run(loci_client *c, const char *sandbox, const char *command,
             const char *cwd, double timeout_s, size_t max_out,
             loci_run_result *out, locus_error *err);

/**
 * A cancel check for the client's requests from now on (fn NULL: none):
 * polled about every second while a request runs and between retries;
 * true ends the request with LOCUS_EDENIED ("cancelled").  Called on the
 * calling thread.
 */
void loci_client_set_cancel(loci_client *c, bool (*fn)(void *ctx), void *ctx);

/** cancel_sandbox_command: signal "SIGTERM" or "SIGKILL". */
int loci_command_cancel(loci_client *c, const char *sandbox,
                        const char *command_id, const char *signal,
                        locus_error *err);

/** Write one file (opc-content-sha256 sent; the answer's hash checked). */
int loci_file_write(loci_client *c, const char *sandbox, const char *path,
                    const void *data, size_t len, locus_error *err);
/** Read one file; the opc-content-sha256 header is verified. */
int loci_file_read(loci_client *c, const char *sandbox, const char *path,
                   char **out, size_t *len, locus_error *err);

#endif
