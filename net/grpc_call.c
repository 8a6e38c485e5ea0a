/*
 * net/grpc_call.c - gRPC calls over net/http.c (see grpc_call.h).
 *
 * The body callback feeds the 5-byte reassembler (grpc.c); a framing
 * violation stops the transfer.  The status is read after the transfer
 * from the response headers (trailers-only answers) and then the
 * trailers, so a trailer's grpc-status wins.
 */
#include "grpc_call.h"

#include "util/buf.h"
#include "util/error.h"
#include "net/http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lh_grpc_channel {
	lhttp_client *http;
	char *url;
	char *auth; /* "Bearer ..." or NULL */
	uint32_t max_message;
	bool (*cancel)(void *ctx);
	void *cancel_ctx;
};

void lh_grpc_channel_set_cancel(lh_grpc_channel *ch, bool (*fn)(void *ctx),
                                void *ctx)
{
	ch->cancel = fn;
	ch->cancel_ctx = ctx;
}

const char *lh_grpc_channel_url(const lh_grpc_channel *ch)
{
	return ch->url;
}

static char *endpoint_url(const lh_grpc_channel_opts *o)
{
	const char *e = o->endpoint;
	bool tls = o->tls || o->ca_file || o->cert_file;
	lu_buf b = {0};
	if (!strncmp(e, "http://", 7) || !strncmp(e, "https://", 8))
		lu_buf_puts(&b, e);
	else
		lu_buf_printf(&b, "%s://%s", tls ? "https" : "http", e);
	/* no path: the method is appended */
	while (b.len && b.d[b.len - 1] == '/')
		b.d[--b.len] = '\0';
	return lu_buf_take(&b);
}

int lh_grpc_channel_new(lh_grpc_channel **out, const lh_grpc_channel_opts *o,
                        locus_error *err)
{
	*out = NULL;
	bool url = o->endpoint && (!strncmp(o->endpoint, "http://", 7) ||
	                           !strncmp(o->endpoint, "https://", 8));
	if (!o->endpoint || !*o->endpoint ||
	    strpbrk(o->endpoint, url ? " \t\r\n?#" : " \t\r\n/?#@"))
		return lu_err(err, LOCUS_EINVALID,
		              "bad gRPC endpoint \"%s\" (want HOST:PORT)",
		              o->endpoint ? o->endpoint : "");
	if (!o->cert_file != !o->key_file)
		return lu_err(err, LOCUS_EINVALID,
		              "a client certificate needs its key (and the "
		              "key its certificate)");
	lh_grpc_channel *ch = calloc(1, sizeof *ch);
	if (!ch)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	ch->url = endpoint_url(o);
	ch->max_message = o->max_message ? o->max_message : LH_GRPC_MAX_MESSAGE;
	if (o->bearer_token) {
		lu_buf b = {0};
		lu_buf_printf(&b, "Bearer %s", o->bearer_token);
		ch->auth = lu_buf_take(&b);
	}
	if (!ch->url || (o->bearer_token && !ch->auth)) {
		lh_grpc_channel_free(ch);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	lhttp_options ho = LHTTP_OPTIONS_INIT;
	ho.base_url = ch->url;
	ho.ca_file = o->ca_file;
	ho.client_cert = o->cert_file;
	ho.client_key = o->key_file;
	ho.http_version = LHTTP_H2_PRIOR; /* h2c, or ALPN h2 for https */
	ho.require_http2 = true;          /* no HTTP/1.1 fallback for gRPC */
	ho.connect_timeout_ms = o->connect_timeout_ms;
	ho.max_attempts = 3;
	/* gRPC errors travel in trailers on a 200: the body cap is only for
	   non-2xx answers (a proxy's error page) */
	ho.max_body = 1u << 20;
	int rc = lhttp_client_new(&ch->http, &ho, err);
	if (rc) {
		lh_grpc_channel_free(ch);
		return rc;
	}
	*out = ch;
	return 0;
}

void lh_grpc_channel_free(lh_grpc_channel *ch)
{
	if (!ch)
		return;
	lhttp_client_free(ch->http);
	if (ch->auth) {
		/* the token is a secret: do not leave it in freed memory */
		memset(ch->auth, 0, strlen(ch->auth));
		free(ch->auth);
	}
	free(ch->url);
	free(ch);
}

typedef struct call_ctx {
	lh_grpc_reader reader;
	lh_grpc_msg_fn on_msg;
	void *payload;
	int stop; /* on_msg's code */
	const lh_grpc_channel *ch;
} call_ctx;

static bool call_cancelled(void *p)
{
	const lh_grpc_channel *ch = ((call_ctx *)p)->ch;
	return ch->cancel && ch->cancel(ch->cancel_ctx);
}

static int on_body(void *p, const lhttp_response *resp, const char *data,
                   size_t len)
{
	(void)resp;
	call_ctx *c = p;
	int rc =
	    lh_grpc_reader_feed(&c->reader, data, len, c->on_msg, c->payload);
	if (rc == 0)
		return 0;
	if (c->reader.failed)
		return LOCUS_EIO;
	c->stop = rc < 0 ? rc : LOCUS_EDENIED;
	return c->stop;
}

static void status_of(const lhttp_response *resp, lh_grpc_status *st)
{
	memset(st, 0, sizeof *st);
	st->http_status = (int)resp->status;
	const lhttp_headers *lists[] = {&resp->headers, &resp->trailers};
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			const lhttp_header *h = &lists[l]->v[i];
			lh_grpc_status_header(st, h->name, strlen(h->name),
			                      h->value, strlen(h->value));
		}
}

static int request_headers(lh_grpc_channel *ch, double timeout_s,
                           lhttp_headers *h)
{
	char t[16];
	lh_grpc_timeout(timeout_s, t);
	int rc = lhttp_headers_add(h, "Content-Type", "application/grpc");
	if (!rc)
		rc = lhttp_headers_add(h, "TE", "trailers");
	if (!rc && *t)
		rc = lhttp_headers_add(h, "grpc-timeout", t);
	if (!rc && ch->auth)
		rc = lhttp_headers_add(h, "Authorization", ch->auth);
	return rc;
}

int lh_grpc_call(lh_grpc_channel *ch, const char *method, const uint8_t *frame,
                 size_t frame_len, double timeout_s, bool idempotent,
                 lh_grpc_msg_fn on_msg, void *payload, lh_grpc_result *res,
                 locus_error *err)
{
	res->code = LH_GRPC_UNKNOWN;
	res->message[0] = '\0';
	lhttp_headers h = {0};
	if (request_headers(ch, timeout_s, &h)) {
		lhttp_headers_clear(&h);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	call_ctx c = {.on_msg = on_msg, .payload = payload, .ch = ch};
	c.reader.max = ch->max_message;
	lhttp_request req = {0};
	req.method = "POST";
	req.url = method;
	req.headers = &h;
	req.body = frame;
	req.body_len = frame_len;
	req.has_body = true;
	req.retry = idempotent ? LHTTP_RETRY_IDEMPOTENT : LHTTP_RETRY_UNSENT;
	/* the server ends the call at grpc-timeout; the transfer gets a
	   little longer so the server's DEADLINE_EXCEEDED can arrive */
	req.timeout_ms = timeout_s > 0 ? (long)(timeout_s * 1000) + 5000 : 0;
	req.on_body = on_body;
	req.cancel = call_cancelled;
	req.ctx = &c;
	lhttp_response resp = {0};
	int rc = lhttp_perform(ch->http, &req, &resp, err);
	lhttp_headers_clear(&h);
	if (c.reader.failed) {
		rc = lu_err(err, LOCUS_EIO, "%s: %s", method, c.reader.error);
	} else if (c.stop) {
		rc = c.stop;
	} else if (!rc && lh_grpc_reader_finish(&c.reader)) {
		rc = lu_err(err, LOCUS_EIO, "%s: %s", method, c.reader.error);
	}
	if (!rc) {
		lh_grpc_status st;
		const char *msg;
		status_of(&resp, &st);
		res->code = lh_grpc_status_final(&st, &msg);
		snprintf(res->message, sizeof res->message, "%s", msg);
	}
	lh_grpc_reader_free(&c.reader);
	lhttp_response_clear(&resp);
	return rc;
}
