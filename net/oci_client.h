/*
 * net/oci_client.h - what oci_client.c and oci_stream.c share: the
 * client struct and one signed request.  Private to those two files.
 */
#ifndef LOCUS_HARNESS_OCI_CLIENT_H
#define LOCUS_HARNESS_OCI_CLIENT_H

#include "net/oci.h"

struct loci_client {
	lhttp_client *http;
	loci_signer *signer;
	loci_routes routes;
	char *region;
	loci_stream_framing framing;
	bool data_base64;
	bool expires_in_minutes;
	long timeout_ms;
	bool (*cancel)(void *ctx); /* loci_client_set_cancel */
	void *cancel_ctx;
};

/* One request of an operation. */
typedef struct loci_call {
	loci_op op;
	const char *const *vars; /* for loci_route_path */
	const void *body;        /* sent for every method but GET/DELETE */
	size_t body_len;
	const char *content_type; /* NULL: application/json */
	const char *accept;
	const char *const *extra; /* more headers: name, value, ..., NULL */
	long timeout_ms;          /* 0: the client's (none when streaming) */
	long idle_timeout_ms;
	lhttp_body_fn on_body;
	void *body_ctx;
} loci_call;

/* Sign and send; resp as lhttp_perform (HTTP errors are not failures). */
int loci_request(loci_client *c, const loci_call *call, lhttp_response *resp,
                 locus_error *err);

/* err from a non-2xx answer: the service's code and message and the
   request id; returns the matching LOCUS_E* code. */
int loci_status_error(const lhttp_response *r, loci_op op, locus_error *err);

/* loci_request, and a non-2xx answer is a failure (loci_status_error);
   resp is filled either way (the caller clears it). */
int loci_request_ok(loci_client *c, const loci_call *call, lhttp_response *resp,
                    locus_error *err);

/* ISO 8601 duration -> whole minutes (rounded up), 1 min .. 48 h. */
int loci_duration_minutes(const char *iso, long *minutes, locus_error *err);

#endif
