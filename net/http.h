/*
 * net/http.h - the one HTTP client of locus (libcurl underneath).
 *
 * Shared by the cloud sandbox backends (OCI over HTTP/1.1, OpenShell gRPC
 * over HTTP/2) and the box runner's gateway client.  It owns: one reusable
 * connection per client, per-attempt and overall deadlines, an idle
 * timeout for streams, retries with capped exponential backoff and jitter
 * on 429 (honouring Retry-After) and 5xx, re-preparing every attempt (so a
 * request signer sees a fresh Date), TLS verification with an optional CA
 * file and client certificate, HTTP/1.1 or HTTP/2 (prior knowledge for
 * h2c, ALPN h2 over TLS, optionally required), response headers and
 * trailers kept apart, streaming bodies through a callback, cancellation,
 * and a request id taken from a configurable response header for errors.
 *
 * It knows nothing about any one service: signing, retry tokens and error
 * bodies are the caller's (the `prepare` hook, fixed headers, the status).
 *
 * Rules:
 * - One client is used by one thread at a time (it holds a curl handle).
 * - All strings given in are borrowed for the call; everything handed out
 *   is owned by the response and freed by lhttp_response_clear().
 * - TLS peer and host verification are always on; there is no switch.
 * - Redirects are never followed (a signed request must not be replayed to
 *   another host).
 * - An HTTP error status is not a function error: lhttp_perform() returns
 *   0 with resp->status set once the retries are spent; callers decide.
 *   Function errors are transport failures (LOCUS_EIO), deadlines
 *   (LOCUS_ETIMEOUT), cancellation (LOCUS_EDENIED), a body past max_body
 *   (LOCUS_ETOOBIG), a callback's refusal (its code) and LOCUS_ENOMEM.
 */
#ifndef LOCUS_NET_HTTP_H
#define LOCUS_NET_HTTP_H

#include "locus/common.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lhttp_version {
	LHTTP_HTTP1 = 0,    /* HTTP/1.1 only (OCI) */
	LHTTP_H2_PRIOR = 1, /* http:// URLs as HTTP/2 without Upgrade (h2c);
	                       https:// URLs as LHTTP_H2_TLS */
	LHTTP_H2_TLS = 2,   /* HTTP/2 over TLS via ALPN, 1.1 if refused */
} lhttp_version;

#define LHTTP_OPTIONS_VERSION 1

typedef struct lhttp_options {
	unsigned version; /* LHTTP_OPTIONS_VERSION */
	/* Prefix of request paths that are not whole URLs ("https://h:1"),
	   the endpoint override of every backend.  May be NULL. */
	const char *base_url;
	const char *ca_file; /* PEM bundle to trust instead of the system's */
	const char *client_cert; /* PEM, for mTLS; NULL: none */
	const char *client_key;  /* PEM, for mTLS */
	lhttp_version http_version;
	bool require_http2; /* fail (LOCUS_EIO) when the server did not speak
	                       HTTP/2 (gRPC must not fall back to 1.1) */
	long connect_timeout_ms; /* 0: 10 s */
	long timeout_ms;         /* one attempt, whole transfer; 0: none */
	long idle_timeout_ms;    /* no byte either way for this long; 0: none.
	                            Checked about every second. */
	long deadline_ms;        /* all attempts and sleeps together; 0: none */
	int max_attempts;        /* 0: 5; 1: no retries */
	long backoff_initial_ms; /* 0: 250; doubled each retry */
	long backoff_max_ms;     /* 0: 8000 */
	long retry_after_max_ms; /* Retry-After beyond this is cut to it; 0: 60
	                            s */
	size_t max_body;         /* buffered body cap; 0: 64 MiB */
	const char *request_id_header; /* kept in resp->request_id, e.g.
	                                  "opc-request-id"; NULL: none */
	const char *user_agent;        /* NULL: "locus/<version>" */
	/* Tests only: sleep hook for the backoff (ms), NULL: nanosleep. */
	void (*sleep_ms)(long ms, void *payload);
	void *sleep_payload;
} lhttp_options;

#define LHTTP_OPTIONS_INIT                                                     \
	{                                                                      \
		.version = LHTTP_OPTIONS_VERSION                               \
	}

typedef struct lhttp_header {
	char *name; /* as received (case kept); compare case-insensitively */
	char *value;
} lhttp_header;

/* A header list (for requests and responses). */
typedef struct lhttp_headers {
	lhttp_header *v;
	size_t n, cap;
} lhttp_headers;

/** Append a copy of name/value.  LOCUS_ENOMEM. */
int lhttp_headers_add(lhttp_headers *h, const char *name, const char *value);
/** Set name (replacing every earlier one, case-insensitively). */
int lhttp_headers_set(lhttp_headers *h, const char *name, const char *value);
/** The first value of name (case-insensitive), or NULL. */
const char *lhttp_headers_get(const lhttp_headers *h, const char *name);
void lhttp_headers_clear(lhttp_headers *h);

typedef struct lhttp_response {
	long status;           /* final HTTP status; 0 when none was received */
	int http_major;        /* 1 or 2 */
	lhttp_headers headers; /* of the final response */
	lhttp_headers trailers; /* after the body (HTTP/2, chunked 1.1) */
	char *body; /* buffered body (NUL-terminated) or NULL; with an
	               on_body callback only non-2xx bodies land here */
	size_t body_len;
	char request_id[128]; /* value of options.request_id_header, or "" */
	int attempts;         /* attempts made */
	bool
	    body_streamed; /* on_body received bytes (no retry was made then) */
} lhttp_response;

/** Free what a response holds and zero it.  Safe on a zeroed response. */
void lhttp_response_clear(lhttp_response *r);

typedef struct lhttp_request lhttp_request;

/*
 * Called before each attempt with `headers` holding a copy of
 * req->headers; add or set what changes per attempt (Date and a
 * signature).  `url` is the full URL about to be sent.  Return 0, or a
 * negative LOCUS_E* code (with err filled) to stop without sending.
 */
typedef int (*lhttp_prepare_fn)(void *ctx, const lhttp_request *req,
                                const char *url, lhttp_headers *headers,
                                locus_error *err);

/*
 * Streamed body bytes of a 2xx response, in order, as they arrive (for
 * HTTP/2 across DATA frames: re-frame yourself).  resp->headers are
 * complete when it is called.  Return 0 to go on, or a negative LOCUS_E*
 * code to abort the transfer (lhttp_perform returns it, no retry).
 */
typedef int (*lhttp_body_fn)(void *ctx, const lhttp_response *resp,
                             const char *data, size_t len);

/* Polled about every second and between retries: true stops the call
   with LOCUS_EDENIED ("cancelled"). */
typedef bool (*lhttp_cancel_fn)(void *ctx);

typedef enum lhttp_retry {
	LHTTP_RETRY_NONE = 0, /* one attempt */
	/* Not idempotent: retry only what the server surely did not act on
	   (429, connection refused or unresolved before sending). */
	LHTTP_RETRY_UNSENT = 1,
	/* Idempotent, or made so by a retry token: also 500/502/503/504 and
	   transport failures and timeouts (while nothing was streamed). */
	LHTTP_RETRY_IDEMPOTENT = 2,
} lhttp_retry;

struct lhttp_request {
	const char *method; /* "GET", "POST", "PUT", "DELETE", "HEAD", ... */
	/* "http(s)://..." or a path appended to options.base_url.  Sent as is
	   (percent-encoding kept, no dot-segment removal). */
	const char *url;
	const lhttp_headers *headers; /* fixed for every attempt; may be NULL */
	const void *body;             /* sent with an exact Content-Length */
	size_t body_len;
	bool has_body; /* send a body (also an empty one: Content-Length 0) */
	lhttp_retry retry;
	long timeout_ms; /* this request's attempt timeout; 0: the option's */
	long idle_timeout_ms; /* 0: the option's */
	lhttp_prepare_fn prepare;
	lhttp_body_fn on_body;
	lhttp_cancel_fn cancel;
	void *ctx; /* for the three callbacks */
};

typedef struct lhttp_client lhttp_client;

/** Make a client.  Options are copied.  LOCUS_EINVALID, LOCUS_ENOMEM. */
int lhttp_client_new(lhttp_client **out, const lhttp_options *opt,
                     locus_error *err);
void lhttp_client_free(lhttp_client *c);

/**
 * Send req (with retries) and fill *resp (zeroed first; clear it after,
 * also on failure).  On a failure err->message names the method, the URL
 * path, the attempt count, curl's reason and the request id when known.
 */
int lhttp_perform(lhttp_client *c, const lhttp_request *req,
                  lhttp_response *resp, locus_error *err);

/**
 * The authority of a URL as it goes into a Host header: "host[:port]",
 * without userinfo, port kept only when written.  LOCUS_EINVALID when url
 * has no "scheme://".  out is cap bytes.
 */
int lhttp_url_authority(const char *url, char *out, size_t cap,
                        locus_error *err);

/** The request target of a URL: path and query as written ("/" if none). */
const char *lhttp_url_target(const char *url);

/** A random token of 32 lowercase hex characters (OpenSSL RAND_bytes), for
    retry tokens and request ids.  LOCUS_EIO when the RNG fails. */
int lhttp_random_token(char out[33]);

/** Parse Retry-After (delta seconds or an HTTP date) as ms from `now`
    (Unix seconds); -1 when it cannot be parsed. */
long lhttp_parse_retry_after(const char *value, int64_t now);

/** IMF-fixdate ("Thu, 05 Jan 2014 21:31:40 GMT") of Unix time t. */
void lhttp_format_date(int64_t t, char out[32]);

#ifdef __cplusplus
}
#endif
#endif
