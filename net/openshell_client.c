/*
 * net/openshell_client.c - OpenShell gateway RPCs (see
 * openshell_client.h).
 */
#define _GNU_SOURCE
#include "net/openshell_client.h"

#include "util/error.h"
#include "util/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SVC "/openshell.v1.OpenShell/"

static double call_timeout(const lh_os_client *c)
{
	return c->call_timeout_s > 0 ? c->call_timeout_s : 30;
}

/* A non-OK status as a locus error. */
static int status_error(const char *rpc, const lh_grpc_result *r,
                        locus_error *err)
{
	int code;
	switch (r->code) {
	case LH_GRPC_NOT_FOUND: code = LOCUS_ENOTFOUND; break;
	case LH_GRPC_UNAUTHENTICATED:
	case LH_GRPC_PERMISSION_DENIED: code = LOCUS_EDENIED; break;
	case LH_GRPC_OUT_OF_RANGE:
	case LH_GRPC_RESOURCE_EXHAUSTED: code = LOCUS_ETOOBIG; break;
	case LH_GRPC_DEADLINE_EXCEEDED: code = LOCUS_ETIMEOUT; break;
	case LH_GRPC_INVALID_ARGUMENT: code = LOCUS_EINVALID; break;
	default: code = LOCUS_EIO;
	}
	return lu_err(err, code, "openshell %s: %s: %.180s", rpc,
	              lh_grpc_code_name(r->code),
	              *r->message ? r->message : "(no message)");
}

/* A unary call's one response message, copied. */
typedef struct unary {
	uint8_t *msg;
	size_t len;
	int count;
} unary;

static int keep_msg(void *p, const uint8_t *m, size_t len)
{
	unary *u = p;
	if (++u->count > 1)
		return LOCUS_EINVALID; /* a unary call answers once */
	u->msg = malloc(len ? len : 1);
	if (!u->msg)
		return LOCUS_ENOMEM;
	memcpy(u->msg, m, len);
	u->len = len;
	return 0;
}

/* Call a unary RPC; on success u holds the response (free u->msg). */
static int unary_call(lh_os_client *c, const char *rpc, const lh_os_frame *f,
                      bool idempotent, unary *u, locus_error *err)
{
	memset(u, 0, sizeof *u);
	char method[96];
	snprintf(method, sizeof method, SVC "%s", rpc);
	lh_grpc_result res;
	int rc = lh_grpc_call(c->ch, method, f->data, f->len, call_timeout(c),
	                      idempotent, keep_msg, u, &res, err);
	if (rc == LOCUS_EINVALID && u->count > 1)
		rc =
		    lu_err(err, LOCUS_EIO,
		           "openshell %s: more than one response message", rpc);
	else if (!rc && res.code != LH_GRPC_OK)
		rc = status_error(rpc, &res, err);
	else if (!rc && u->count != 1)
		rc = lu_err(err, LOCUS_EIO,
		            "openshell %s: OK without a response message", rpc);
	if (rc) {
		free(u->msg);
		memset(u, 0, sizeof *u);
	}
	return rc;
}

int lh_os_health(lh_os_client *c, int *status, char **version, locus_error *err)
{
	lh_os_frame f;
	unary u;
	int rc = lh_os_encode_health(&f, err);
	if (!rc)
		rc = unary_call(c, "Health", &f, true, &u, err);
	lh_os_frame_free(&f);
	if (!rc) {
		rc = lh_os_decode_health(u.msg, u.len, status, version, err);
		free(u.msg);
	}
	return rc;
}

static int sandbox_call(lh_os_client *c, const char *rpc, lh_os_frame *f,
                        bool idempotent, lh_os_sandbox *out, locus_error *err)
{
	unary u;
	memset(out, 0, sizeof *out);
	int rc = unary_call(c, rpc, f, idempotent, &u, err);
	lh_os_frame_free(f);
	if (rc)
		return rc;
	rc = lh_os_decode_sandbox(u.msg, u.len, out, err);
	free(u.msg);
	return rc;
}

int lh_os_create_sandbox(lh_os_client *c, const lh_os_create *req,
                         lh_os_sandbox *out, locus_error *err)
{
	lh_os_frame f;
	lh_os_create r = *req;
	if (!r.workspace)
		r.workspace = c->workspace;
	int rc = lh_os_encode_create(&f, &r, err);
	if (rc)
		return rc;
	/* not idempotent: retried only when surely not sent */
	return sandbox_call(c, "CreateSandbox", &f, false, out, err);
}

static int name_call(lh_os_client *c, lh_os_name_rpc rpc, const char *name,
                     lh_os_sandbox *out, locus_error *err)
{
	static const char *const names[] = {"GetSandbox", "DeleteSandbox",
	                                    "StopSandbox", "StartSandbox"};
	lh_os_frame f;
	int rc = lh_os_encode_name(&f, rpc, name, c->workspace, err);
	if (rc)
		return rc;
	return sandbox_call(c, names[rpc], &f, rpc == LH_OS_GET, out, err);
}

int lh_os_get_sandbox(lh_os_client *c, const char *name, lh_os_sandbox *out,
                      locus_error *err)
{
	return name_call(c, LH_OS_GET, name, out, err);
}

int lh_os_stop_sandbox(lh_os_client *c, const char *name, lh_os_sandbox *out,
                       locus_error *err)
{
	return name_call(c, LH_OS_STOP, name, out, err);
}

int lh_os_start_sandbox(lh_os_client *c, const char *name, lh_os_sandbox *out,
                        locus_error *err)
{
	return name_call(c, LH_OS_START, name, out, err);
}

int lh_os_delete_sandbox(lh_os_client *c, const char *name, bool *deleted,
                         locus_error *err)
{
	*deleted = false;
	lh_os_frame f;
	unary u;
	int rc = lh_os_encode_name(&f, LH_OS_DELETE, name, c->workspace, err);
	if (!rc)
		rc = unary_call(c, "DeleteSandbox", &f, true, &u, err);
	lh_os_frame_free(&f);
	if (!rc) {
		rc = lh_os_decode_deleted(u.msg, u.len, deleted, err);
		free(u.msg);
	}
	return rc;
}

static void nap(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	nanosleep(&ts, NULL);
}

int lh_os_wait_ready(lh_os_client *c, const char *name, double timeout_s,
                     double poll_s, lh_os_sandbox *out, locus_error *err)
{
	double end = lu_now() + timeout_s;
	char last[32] = "none";
	for (;;) {
		int rc = lh_os_get_sandbox(c, name, out, err);
		if (rc)
			return rc;
		const char *ph = lh_os_phase_name(out->phase);
		if (ph)
			snprintf(last, sizeof last, "%s", ph);
		else
			snprintf(last, sizeof last, "%d (unknown)", out->phase);
		if (out->phase == LH_OS_PHASE_READY)
			return 0;
		if (out->phase == LH_OS_PHASE_ERROR) {
			rc = lu_err(
			    err, LOCUS_EIO,
			    "openshell sandbox %s is in phase ERROR: %.160s",
			    name,
			    out->condition ? out->condition
			                   : "(no condition given)");
			lh_os_sandbox_clear(out);
			return rc;
		}
		lh_os_sandbox_clear(out);
		if (lu_now() + poll_s > end)
			return lu_err(
			    err, LOCUS_ETIMEOUT,
			    "openshell sandbox %s not READY within %.0f "
			    "s (last phase %s)",
			    name, timeout_s, last);
		nap(poll_s);
	}
}

/* ================= exec ================= */

typedef struct exec_ctx {
	lh_os_chunk_fn on_chunk;
	void *payload;
	bool exited;
	int exit_code;
	int after_exit; /* events after the exit event */
	locus_error *err;
} exec_ctx;

static int on_event(void *p, const uint8_t *m, size_t len)
{
	exec_ctx *x = p;
	lh_os_event_kind kind;
	int code = 0;
	if (x->exited) {
		x->after_exit++;
		return 0;
	}
	int rc = lh_os_decode_event(m, len, &kind, &code, x->on_chunk,
	                            x->payload, x->err);
	if (rc)
		return rc;
	if (kind == LH_OS_EV_EXIT) {
		x->exited = true;
		x->exit_code = code;
	}
	return 0;
}

int lh_os_exec_stream(lh_os_client *c, const lh_os_exec *req,
                      lh_os_chunk_fn on_chunk, void *payload, int *exit_code,
                      locus_error *err)
{
	*exit_code = -1;
	lh_os_frame f;
	int rc = lh_os_encode_exec(&f, req, err);
	if (rc)
		return rc;
	if (f.len > LH_OS_MAX_REQUEST) {
		size_t n = f.len;
		lh_os_frame_free(&f);
		return lu_err(
		    err, LOCUS_ETOOBIG,
		    "openshell ExecSandbox: a request of %zu bytes is "
		    "over the %u-byte limit kept under the gateway's 1 "
		    "MiB",
		    n, LH_OS_MAX_REQUEST);
	}
	double deadline = call_timeout(c);
	if (req->timeout_seconds && req->timeout_seconds + 10.0 > deadline)
		deadline = req->timeout_seconds + 10.0;
	exec_ctx x = {.on_chunk = on_chunk, .payload = payload, .err = err};
	lh_grpc_result res;
	rc = lh_grpc_call(c->ch, SVC "ExecSandbox", f.data, f.len, deadline,
	                  false, on_event, &x, &res, err);
	lh_os_frame_free(&f);
	if (rc)
		return rc;
	if (res.code != LH_GRPC_OK)
		return status_error("ExecSandbox", &res, err);
	if (!x.exited)
		return lu_err(err, LOCUS_EIO,
		              "openshell ExecSandbox: the stream ended without "
		              "an exit event (the command's fate is unknown)");
	*exit_code = x.exit_code;
	return 0;
}
