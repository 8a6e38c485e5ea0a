/*
 * net/openshell_client.h - the OpenShell gateway client.
 *
 * Owns the RPCs the backend uses, each as one call: Health,
 * CreateSandbox, GetSandbox, waiting for READY, DeleteSandbox, Stop and
 * Start, and ExecSandbox streamed (stdout/stderr chunks as they come, then
 * the exit event; a stream that ends without one is an error).  Lifecycle
 * calls are keyed by name + workspace, exec by the sandbox id, as the
 * gateway does.  A gRPC error becomes a locus error whose message names the
 * RPC, the status and the gateway's text; NOT_FOUND is LOCUS_ENOTFOUND,
 * UNAUTHENTICATED and PERMISSION_DENIED LOCUS_EDENIED, OUT_OF_RANGE and
 * RESOURCE_EXHAUSTED (the gateway's two answers to a request over 1 MiB)
 * LOCUS_ETOOBIG, DEADLINE_EXCEEDED LOCUS_ETIMEOUT, others LOCUS_EIO.
 */
#ifndef LOCUS_HARNESS_OPENSHELL_CLIENT_H
#define LOCUS_HARNESS_OPENSHELL_CLIENT_H

#include "grpc_call.h"
#include "openshell_msg.h"

/* Every request stays under the gateway's 1 MiB decode limit with room
   for framing and headers. */
#define LH_OS_MAX_REQUEST (960u * 1024)

typedef struct lh_os_client {
	lh_grpc_channel *ch;
	const char *workspace; /* borrowed; NULL: the gateway's default */
	double call_timeout_s; /* unary calls; 0: 30 */
} lh_os_client;

int lh_os_health(lh_os_client *c, int *status, char **version,
                 locus_error *err);
int lh_os_create_sandbox(lh_os_client *c, const lh_os_create *req,
                         lh_os_sandbox *out, locus_error *err);
int lh_os_get_sandbox(lh_os_client *c, const char *name, lh_os_sandbox *out,
                      locus_error *err);
/* *deleted: what the gateway said. */
int lh_os_delete_sandbox(lh_os_client *c, const char *name, bool *deleted,
                         locus_error *err);
int lh_os_stop_sandbox(lh_os_client *c, const char *name, lh_os_sandbox *out,
                       locus_error *err);
int lh_os_start_sandbox(lh_os_client *c, const char *name, lh_os_sandbox *out,
                        locus_error *err);

/*
 * Poll GetSandbox every poll_s until READY (out filled).  ERROR fails at
 * once with the sandbox's last condition; a phase this client does not
 * know (a newer gateway) is waited through like PROVISIONING; past
 * timeout_s LOCUS_ETIMEOUT naming the last phase seen.
 */
int lh_os_wait_ready(lh_os_client *c, const char *name, double timeout_s,
                     double poll_s, lh_os_sandbox *out, locus_error *err);

/* Output of an exec as it streams: kind is LH_OS_EV_STDOUT or _STDERR. */
typedef int (*lh_os_chunk_fn)(void *payload, int kind, const uint8_t *data,
                              size_t len);

/*
 * ExecSandbox: argv run by the gateway as `/bin/bash -lc '<escaped argv>'`.
 * *exit_code is the exit event's code (124 when timeout_seconds passed, as
 * the gateway reports it).  The gRPC deadline is max(call timeout,
 * timeout_seconds + 10), as the SDK's.  A request over LH_OS_MAX_REQUEST is
 * LOCUS_ETOOBIG before anything is sent.
 */
int lh_os_exec_stream(lh_os_client *c, const lh_os_exec *req,
                      lh_os_chunk_fn on_chunk, void *payload, int *exit_code,
                      locus_error *err);

#endif
