/*
 * net/oci_stream.c - running a command and reading its event stream.
 *
 * The framing is UNKNOWN (docs/backends.md): SSE (`data:` lines, events split
 * by a blank line) or NDJSON (one JSON object per line; an array of them
 * is accepted too), chosen by --oci-stream or else by the response's
 * Content-Type.  Each event is a SandboxCommandEvent {commandId, seq,
 * event: STARTED|STDOUT|STDERR|FINISHED, data, exitCode}.  Events are
 * taken in seq order: one at or below the last seq is a duplicate and
 * dropped.  A stream that ends before FINISHED is re-opened with
 * stream_events?fromSeq=<last+1> until the deadline.
 */
#include "net/oci_client.h"

#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/clock.h"
#include "net/sse.h"

#define MAX_LINE ((size_t)8 << 20) /* one event; more is a broken stream */
#define MAX_RESUMES 20

typedef struct stream {
	loci_client *c;
	loci_run_result *res;
	size_t max_out;
	int framing; /* resolved for the current response; 0 unknown */
	lu_buf line; /* NDJSON: the line being read */
	lsse sse;    /* SSE: the decoder (net/sse.h) */
	lu_buf out;
	int fail; /* a LOCUS_E* code once the stream is unusable */
	char why[160];
} stream;

void loci_run_result_clear(loci_run_result *r)
{
	free(r->out);
	memset(r, 0, sizeof *r);
}

static int stream_fail(stream *s, int code, const char *why)
{
	if (!s->fail) {
		s->fail = code;
		snprintf(s->why, sizeof s->why, "%s", why);
	}
	return code;
}

static void keep_output(stream *s, const char *d)
{
	char *dec = NULL;
	const char *bytes = d;
	size_t n = strlen(d);
	if (s->c->data_base64) {
		int rc = loci_b64_decode(d, n, &dec, &n);
		if (rc) {
			stream_fail(s, rc == LOCUS_ENOMEM ? rc : LOCUS_EIO,
			            "event data is not base64");
			return;
		}
		bytes = dec;
	}
	size_t room = s->out.len < s->max_out ? s->max_out - s->out.len : 0;
	lu_buf_add(&s->out, bytes, n < room ? n : room);
	free(dec);
	if (s->out.oom)
		stream_fail(s, LOCUS_ENOMEM, "out of memory");
}

static void on_event(stream *s, cJSON *ev)
{
	loci_run_result *r = s->res;
	cJSON *seq = cJSON_GetObjectItem(ev, "seq");
	const char *kind =
	    cJSON_GetStringValue(cJSON_GetObjectItem(ev, "event"));
	const char *cid =
	    cJSON_GetStringValue(cJSON_GetObjectItem(ev, "commandId"));
	if (!cJSON_IsObject(ev) || !cJSON_IsNumber(seq) ||
	    seq->valuedouble < 1 || !kind) {
		stream_fail(s, LOCUS_EIO, "an event without seq or event kind");
		return;
	}
	if (cid && !r->command_id[0])
		snprintf(r->command_id, sizeof r->command_id, "%s", cid);
	else if (cid && strcmp(cid, r->command_id)) {
		stream_fail(s, LOCUS_EIO, "an event of another command");
		return;
	}
	uint64_t n = (uint64_t)seq->valuedouble;
	if (n <= r->last_seq || r->finished)
		return; /* a duplicate (replayed after a resume, or repeated) */
	r->last_seq = n;
	const char *data =
	    cJSON_GetStringValue(cJSON_GetObjectItem(ev, "data"));
	if (!strcmp(kind, "STDOUT") || !strcmp(kind, "STDERR")) {
		if (data)
			keep_output(s, data);
	} else if (!strcmp(kind, "FINISHED")) {
		r->finished = true;
		cJSON *ec = cJSON_GetObjectItem(ev, "exitCode");
		r->has_exit_code = cJSON_IsNumber(ec);
		r->exit_code = r->has_exit_code ? ec->valueint : -1;
	}
	/* STARTED and kinds added later carry nothing the harness needs. */
}

static void on_json(stream *s, const char *text, size_t len)
{
	cJSON *j = cJSON_ParseWithLength(text, len);
	if (!j) {
		stream_fail(s, LOCUS_EIO, "an event that is not JSON");
		return;
	}
	if (cJSON_IsArray(j)) {
		cJSON *e;
		cJSON_ArrayForEach(e, j) on_event(s, e);
	} else {
		on_event(s, j);
	}
	cJSON_Delete(j);
}

static int on_sse_event(void *ctx, const char *data, size_t len)
{
	stream *s = ctx;
	on_json(s, data, len);
	return s->fail;
}

static void ndjson_line(stream *s, const char *l, size_t n)
{
	if (n && l[n - 1] == '\r')
		n--;
	if (n && strspn(l, " \t") < n)
		on_json(s, l, n);
}

static int sse_body(stream *s, const char *d, size_t n)
{
	int rc = lsse_feed(&s->sse, d, n);
	if (rc == LOCUS_ETOOBIG)
		stream_fail(s, rc, "an event over 8 MiB");
	else if (rc == LOCUS_ENOMEM)
		stream_fail(s, rc, "out of memory");
	return s->fail;
}

static int on_body(void *ctx, const lhttp_response *resp, const char *d,
                   size_t n)
{
	stream *s = ctx;
	if (!s->framing)
		s->framing = s->c->framing          ? (int)s->c->framing
		             : lsse_is_stream(resp) ? LOCI_STREAM_SSE
		                                    : LOCI_STREAM_NDJSON;
	if (s->framing == LOCI_STREAM_SSE)
		return sse_body(s, d, n);
	for (size_t i = 0; i < n && !s->fail; i++) {
		const char *nl = memchr(d + i, '\n', n - i);
		size_t k = nl ? (size_t)(nl - d) : n;
		lu_buf_add(&s->line, d + i, k - i);
		if (s->line.len > MAX_LINE)
			return stream_fail(s, LOCUS_ETOOBIG,
			                   "an event over 8 MiB");
		if (!nl)
			break;
		ndjson_line(s, s->line.d ? s->line.d : "", s->line.len);
		s->line.len = 0;
		i = k;
	}
	if (s->line.oom)
		stream_fail(s, LOCUS_ENOMEM, "out of memory");
	return s->fail;
}

/* End of one response: after a complete response an NDJSON line without
   its newline still counts; a half SSE event never does (the SSE rule),
   nor anything torn by a dropped connection. */
static void end_response(stream *s, bool complete)
{
	if (complete && s->framing == LOCI_STREAM_NDJSON && s->line.len &&
	    !s->fail)
		ndjson_line(s, s->line.d, s->line.len);
	s->line.len = 0;
	lsse_reset(&s->sse);
	s->framing = 0;
}

static cJSON *run_body(const char *command, const char *cwd, long secs)
{
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "command", command);
	if (cwd)
		cJSON_AddStringToObject(b, "cwd", cwd);
	char t[32];
	snprintf(t, sizeof t, "PT%ldS", secs);
	cJSON_AddStringToObject(b, "timeout", t);
	return b;
}

static const char accept_h[] =
    "text/event-stream, application/x-ndjson, application/json";

/* One streaming request: run_and_stream (first) or stream_events. */
static int open_stream(stream *s, const char *sandbox, const char *body,
                       long timeout_ms, locus_error *err)
{
	loci_run_result *r = s->res;
	char from[24];
	snprintf(from, sizeof from, "%llu",
	         (unsigned long long)r->last_seq + 1);
	const char *run_vars[] = {"sandboxId", sandbox, NULL};
	const char *ev_vars[] = {"sandboxId",   sandbox,   "commandId",
	                         r->command_id, "fromSeq", from,
	                         NULL};
	bool first = !r->command_id[0];
	loci_call call = {.op = first ? LOCI_RUN_AND_STREAM : LOCI_EVENTS,
	                  .vars = first ? run_vars : ev_vars,
	                  .body = body,
	                  .body_len = strlen(body),
	                  .accept = accept_h,
	                  .timeout_ms = timeout_ms,
	                  .on_body = on_body,
	                  .body_ctx = s};
	lhttp_response resp;
	int rc = loci_request(s->c, &call, &resp, err);
	end_response(s, rc == 0);
	if (!rc && (resp.status < 200 || resp.status > 299))
		rc = loci_status_error(&resp, call.op, err);
	else if (s->fail)
		rc = lu_err(err, s->fail, "OCI %s: %s (opc-request-id %s)",
		            loci_op_name(call.op), s->why, resp.request_id);
	else if (rc == LOCUS_EIO && resp.body_streamed)
		rc = 1; /* dropped mid-stream: resume */
	lhttp_response_clear(&resp);
	return rc;
}

int loci_run(loci_client *c, const char *sandbox, const char *command,
             const char *cwd, double timeout_s, size_t max_out,
             loci_run_result *out, locus_error *err)
{
	memset(out, 0, sizeof *out);
	out->exit_code = -1;
	long secs = (long)timeout_s + 1;
	/* The in-sandbox `timeout` acts first; the service's is a backstop,
	   and the stream's deadline a bit later still. */
	cJSON *b = run_body(command, cwd, secs + 30);
	char *body = cJSON_PrintUnformatted(b);
	cJSON_Delete(b);
	if (!body)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	stream s = {.c = c, .res = out, .max_out = max_out};
	lsse_init(&s.sse, MAX_LINE, on_sse_event, &s);
	double end = lu_now() + (double)secs + 60;
	int rc;
	for (;;) {
		long left = (long)((end - lu_now()) * 1000);
		if (left <= 0) {
			rc = lu_err(err, LOCUS_ETIMEOUT,
			            "OCI: command %s did not finish in time",
			            out->command_id);
			break;
		}
		rc = open_stream(&s, sandbox, body, left, err);
		if (rc < 0 && !(rc == LOCUS_EIO && out->command_id[0] &&
		                !s.fail && !out->finished))
			break; /* a refusal, or nothing to resume from */
		if (out->finished) {
			rc = 0;
			break;
		}
		if (!out->command_id[0]) {
			rc = lu_err(
			    err, LOCUS_EIO,
			    "OCI run_and_stream: the stream ended before "
			    "its first event");
			break;
		}
		if (++out->resumes > MAX_RESUMES) {
			rc = lu_err(err, LOCUS_EIO,
			            "OCI: command %s: stream dropped %d times",
			            out->command_id, MAX_RESUMES);
			break;
		}
		s.fail = 0;
		struct timespec ts = {
		    0, 100000000L * (out->resumes < 10 ? out->resumes : 9)};
		nanosleep(&ts, NULL);
	}
	free(body);
	lu_buf_free(&s.line);
	lsse_free(&s.sse);
	if (rc) {
		lu_buf_free(&s.out);
		return rc;
	}
	out->len = s.out.len;
	out->out = lu_buf_take(&s.out);
	return out->out ? 0 : lu_err(err, LOCUS_ENOMEM, "out of memory");
}
