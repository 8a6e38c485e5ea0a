/*
 * net/grpc_call.h - gRPC calls over the shared HTTP client (net/http.h).
 *
 * Owns one channel to one server: HTTP/2 required (prior knowledge for
 * http://, ALPN h2 for https://, with a CA file and a client certificate
 * for mTLS), the request headers of the gRPC HTTP/2 protocol
 * (content-type application/grpc, te: trailers, grpc-timeout, an optional
 * bearer token) and the call's end: every response message handed over as
 * it is reassembled, then the status from headers or trailers (grpc.h).
 * Unary and server-streaming calls only (one request message).
 */
#ifndef LOCUS_HARNESS_GRPC_CALL_H
#define LOCUS_HARNESS_GRPC_CALL_H

#include "grpc.h"
#include "locus/common.h"

typedef struct lh_grpc_channel_opts {
	const char
	    *endpoint; /* "host:port", "http://host:port" or "https://..." */
	bool tls;      /* "host:port" over TLS (also when a CA or cert given) */
	const char *ca_file;
	const char *cert_file; /* client certificate (mTLS) */
	const char *key_file;
	const char *bearer_token; /* NULL: no authorization header */
	long connect_timeout_ms;  /* 0: 10 s */
	uint32_t max_message;     /* 0: LH_GRPC_MAX_MESSAGE */
} lh_grpc_channel_opts;

typedef struct lh_grpc_channel lh_grpc_channel;

/** LOCUS_EINVALID for a bad endpoint, LOCUS_ENOMEM, LOCUS_EIO. */
int lh_grpc_channel_new(lh_grpc_channel **out, const lh_grpc_channel_opts *o,
                        locus_error *err);
void lh_grpc_channel_free(lh_grpc_channel *ch);

/*
 * A cancel check for the channel's calls from now on (fn NULL: none):
 * polled about every second while a call runs; true ends the call with
 * LOCUS_EDENIED ("cancelled").  Called on the calling thread.
 */
void lh_grpc_channel_set_cancel(lh_grpc_channel *ch, bool (*fn)(void *ctx),
                                void *ctx);

/** The URL the channel sends to ("http://127.0.0.1:17670"). */
const char *lh_grpc_channel_url(const lh_grpc_channel *ch);

typedef struct lh_grpc_result {
	int code; /* lh_grpc_code */
	char message[512];
} lh_grpc_result;

/*
 * Call `method` ("/openshell.v1.OpenShell/Health") with one framed request
 * (5-byte prefix included: openshell_msg.h makes them).  on_msg gets every
 * response message; its negative LOCUS_E* return cancels the call and is
 * returned (a positive one counts as LOCUS_EDENIED).
 * timeout_s > 0 is sent as grpc-timeout and bounds the transfer.
 * `idempotent` lets the HTTP client retry transport failures.
 *
 * Returns 0 when the call ended with a gRPC status (res->code, which may
 * be an error such as NOT_FOUND), or a negative LOCUS_E* when it did not:
 * LOCUS_EIO (connection, TLS, not HTTP/2, a framing violation),
 * LOCUS_ETIMEOUT (the deadline), LOCUS_ENOMEM, or on_msg's code.
 */
int lh_grpc_call(lh_grpc_channel *ch, const char *method, const uint8_t *frame,
                 size_t frame_len, double timeout_s, bool idempotent,
                 lh_grpc_msg_fn on_msg, void *payload, lh_grpc_result *res,
                 locus_error *err);

#endif
