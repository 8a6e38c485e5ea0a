/*
 * tests/test_http.c - net/http.c against the loopback server
 * tests/fake_http.py: exact bodies, retries and their delays, retry-after,
 * the prepare hook per attempt, streaming and trailers, timeouts, cut
 * connections, cancellation, body caps, TLS with a CA file.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "net/http.h"
#include "fake_proc.h"

static fake_proc plain, tls, h2;
static char h2_base[64];
static char tls_dir[64];
static char base[64], tls_base[64];

static void plain_up(void)
{
	ck_assert_int_eq(fake_start(&plain, "fake_http.py", NULL), 0);
	snprintf(base, sizeof base, "http://127.0.0.1:%d", plain.port);
}

static void plain_down(void)
{
	fake_stop(&plain);
}

static void tls_up(void)
{
	snprintf(tls_dir, sizeof tls_dir, "/tmp/locus-http-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tls_dir));
	const char *args[] = {"--tls", tls_dir, NULL};
	ck_assert_int_eq(fake_start(&tls, "fake_http.py", args), 0);
	snprintf(tls_base, sizeof tls_base, "https://127.0.0.1:%d", tls.port);
}

static void tls_down(void)
{
	fake_stop(&tls);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tls_dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void h2_up(void)
{
	ck_assert_int_eq(fake_start(&h2, "fake_h2.py", NULL), 0);
	snprintf(h2_base, sizeof h2_base, "http://127.0.0.1:%d", h2.port);
}

static void h2_down(void)
{
	fake_stop(&h2);
}

/* Backoff sleeps are recorded, not slept. */
typedef struct sleeps {
	long ms[16];
	int n;
} sleeps;

static void record_sleep(long ms, void *p)
{
	sleeps *s = p;
	if (s->n < 16)
		s->ms[s->n] = ms;
	s->n++;
}

static lhttp_client *client(lhttp_options *o, sleeps *s)
{
	o->base_url = o->base_url ? o->base_url : base;
	o->request_id_header = "opc-request-id";
	if (s) {
		o->sleep_ms = record_sleep;
		o->sleep_payload = s;
	}
	lhttp_client *c = NULL;
	locus_error err;
	ck_assert_msg(lhttp_client_new(&c, o, &err) == 0, "%s", err.message);
	return c;
}

static cJSON *body_json(const lhttp_response *r)
{
	ck_assert_ptr_nonnull(r->body);
	cJSON *j = cJSON_ParseWithLength(r->body, r->body_len);
	ck_assert_ptr_nonnull(j);
	return j;
}

/* Value of header `name` in an /echo or /log record. */
static const char *rec_header(cJSON *rec, const char *name)
{
	cJSON *h;
	cJSON_ArrayForEach(h, cJSON_GetObjectItem(rec, "headers"))
	{
		const char *k = cJSON_GetArrayItem(h, 0)->valuestring;
		if (strcasecmp(k, name) == 0)
			return cJSON_GetArrayItem(h, 1)->valuestring;
	}
	return NULL;
}

static const char *rec_str(cJSON *rec, const char *field)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(rec, field));
}

START_TEST(get_sends_target_as_written)
{
	lhttp_options o = LHTTP_OPTIONS_INIT;
	lhttp_client *c = client(&o, NULL);
	lhttp_request rq = {.method = "GET",
	                    .url = "/echo/a/../b?x=Pjwf%3A%20PHX-AD-1&y=1"};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_int_eq(r.http_major, 1);
	ck_assert_int_eq(r.attempts, 1);
	ck_assert(strncmp(r.request_id, "rid-", 4) == 0);
	cJSON *j = body_json(&r);
	ck_assert_str_eq(rec_str(j, "method"), "GET");
	ck_assert_str_eq(rec_str(j, "target"),
	                 "/echo/a/../b?x=Pjwf%3A%20PHX-AD-1&y=1");
	ck_assert_ptr_null(rec_header(j, "Expect"));
	ck_assert(strncmp(rec_header(j, "User-Agent"), "locus/", 6) == 0);
	ck_assert_ptr_nonnull(lhttp_headers_get(&r.headers, "content-type"));
	cJSON_Delete(j);
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

static void check_body_method(const char *method, const char *body, size_t len,
                              const char *ctype)
{
	lhttp_options o = LHTTP_OPTIONS_INIT;
	lhttp_client *c = client(&o, NULL);
	lhttp_headers h = {0};
	if (ctype)
		ck_assert_int_eq(lhttp_headers_add(&h, "Content-Type", ctype),
		                 0);
	lhttp_request rq = {.method = method,
	                    .url = "/echo",
	                    .headers = &h,
	                    .body = body,
	                    .body_len = len,
	                    .has_body = true};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), 0);
	ck_assert_int_eq(r.status, 200);
	cJSON *j = body_json(&r);
	ck_assert_str_eq(rec_str(j, "method"), method);
	ck_assert_int_eq(
	    (int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "body_len")),
	    (int)len);
	char cl[32];
	snprintf(cl, sizeof cl, "%zu", len);
	ck_assert_str_eq(rec_header(j, "Content-Length"), cl);
	ck_assert_ptr_null(rec_header(j, "Transfer-Encoding"));
	ck_assert_ptr_null(rec_header(j, "Expect"));
	if (ctype)
		ck_assert_str_eq(rec_header(j, "Content-Type"), ctype);
	else
		ck_assert_ptr_null(rec_header(j, "Content-Type"));
	if (len)
		ck_assert(memcmp(rec_str(j, "body"), body, len) == 0);
	cJSON_Delete(j);
	lhttp_response_clear(&r);
	lhttp_headers_clear(&h);
	lhttp_client_free(c);
}

START_TEST(bodies_are_exact)
{
	static char big[200000];
	memset(big, 'b', sizeof big);
	check_body_method("POST", "{\"a\":1}", 7, "application/json");
	check_body_method("PUT", "raw\x01\x02", 5, "application/octet-stream");
	check_body_method("POST", "", 0, "application/json");
	check_body_method("PATCH", "x", 1, NULL);
	check_body_method("PUT", big, sizeof big, "application/octet-stream");
}
END_TEST

START_TEST(delete_and_head)
{
	lhttp_options o = LHTTP_OPTIONS_INIT;
	lhttp_client *c = client(&o, NULL);
	lhttp_request rq = {.method = "DELETE", .url = "/echo"};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), 0);
	cJSON *j = body_json(&r);
	ck_assert_str_eq(rec_str(j, "method"), "DELETE");
	cJSON_Delete(j);
	lhttp_response_clear(&r);
	rq.method = "HEAD";
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_uint_eq(r.body_len, 0);
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

/* prepare: adds x-attempt (changes per attempt) to the fixed headers. */
static int add_attempt(void *ctx, const lhttp_request *req, const char *url,
                       lhttp_headers *h, locus_error *err)
{
	(void)req;
	(void)err;
	int *n = ctx;
	++*n;
	ck_assert(strncmp(url, "http://127.0.0.1:", 17) == 0);
	ck_assert_str_eq(lhttp_headers_get(h, "opc-retry-token"), "tok-1");
	char v[16];
	snprintf(v, sizeof v, "%d", *n);
	return lhttp_headers_set(h, "x-attempt", v);
}

START_TEST(retries_5xx_same_token_fresh_prepare)
{
	sleeps s = {0};
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.backoff_initial_ms = 100;
	o.backoff_max_ms = 400;
	lhttp_client *c = client(&o, &s);
	lhttp_headers h = {0};
	lhttp_headers_add(&h, "opc-retry-token", "tok-1");
	int n = 0;
	lhttp_request rq = {.method = "POST",
	                    .url = "/flaky/five/3/503",
	                    .headers = &h,
	                    .body = "{}",
	                    .body_len = 2,
	                    .has_body = true,
	                    .retry = LHTTP_RETRY_IDEMPOTENT,
	                    .prepare = add_attempt,
	                    .ctx = &n};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_int_eq(r.attempts, 4);
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(s.n, 3);
	/* Equal jitter: each delay is in [base/2, base], base 100, 200, 400. */
	long bases[] = {100, 200, 400};
	for (int i = 0; i < 3; i++)
		ck_assert_msg(s.ms[i] >= bases[i] / 2 && s.ms[i] <= bases[i],
		              "delay %d = %ld", i, s.ms[i]);
	lhttp_response_clear(&r);
	/* The server saw the same token on each attempt, x-attempt 1..4. */
	lhttp_request lg = {.url = "/log"};
	ck_assert_int_eq(lhttp_perform(c, &lg, &r, &err), 0);
	cJSON *log = body_json(&r), *rec;
	int seen = 0;
	cJSON_ArrayForEach(rec, log)
	{
		if (strcmp(rec_str(rec, "target"), "/flaky/five/3/503"))
			continue;
		seen++;
		ck_assert_str_eq(rec_header(rec, "opc-retry-token"), "tok-1");
		char v[16];
		snprintf(v, sizeof v, "%d", seen);
		ck_assert_str_eq(rec_header(rec, "x-attempt"), v);
	}
	ck_assert_int_eq(seen, 4);
	cJSON_Delete(log);
	lhttp_response_clear(&r);
	lhttp_headers_clear(&h);
	lhttp_client_free(c);
}
END_TEST

START_TEST(retry_after_honoured_and_capped)
{
	sleeps s = {0};
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.retry_after_max_ms = 5000;
	lhttp_client *c = client(&o, &s);
	/* Not idempotent: a 429 is still retried (the server did not act). */
	lhttp_request rq = {.method = "POST",
	                    .url = "/flaky/ra/1/429?ra=3",
	                    .has_body = true,
	                    .retry = LHTTP_RETRY_UNSENT};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_int_eq(s.n, 1);
	ck_assert_int_eq(s.ms[0], 3000);
	lhttp_response_clear(&r);
	s.n = 0;
	rq.url = "/flaky/racap/1/429?ra=100000";
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), 0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_int_eq(s.ms[0], 5000);
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

START_TEST(no_retry_of_5xx_when_not_idempotent)
{
	sleeps s = {0};
	lhttp_options o = LHTTP_OPTIONS_INIT;
	lhttp_client *c = client(&o, &s);
	lhttp_request rq = {.method = "POST",
	                    .url = "/flaky/noidem/1/503",
	                    .has_body = true,
	                    .retry = LHTTP_RETRY_UNSENT};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), 0);
	ck_assert_int_eq(r.status, 503);
	ck_assert_int_eq(r.attempts, 1);
	ck_assert_int_eq(s.n, 0);
	ck_assert(strncmp(r.request_id, "rid-", 4) == 0);
	ck_assert_ptr_nonnull(strstr(r.body, "TooMany"));
	lhttp_response_clear(&r);
	/* 4xx other than 429 is never retried. */
	rq.url = "/status/409";
	rq.retry = LHTTP_RETRY_IDEMPOTENT;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), 0);
	ck_assert_int_eq(r.status, 409);
	ck_assert_int_eq(r.attempts, 1);
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

START_TEST(retries_spent_returns_last_status)
{
	sleeps s = {0};
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.max_attempts = 3;
	lhttp_client *c = client(&o, &s);
	lhttp_request rq = {.url = "/status/500",
	                    .retry = LHTTP_RETRY_IDEMPOTENT};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), 0);
	ck_assert_int_eq(r.status, 500);
	ck_assert_int_eq(r.attempts, 3);
	ck_assert_int_eq(s.n, 2);
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

START_TEST(deadline_stops_retrying)
{
	sleeps s = {0};
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.deadline_ms = 2000;
	lhttp_client *c = client(&o, &s);
	/* Retry-After 30 s cannot fit a 2 s deadline: no sleep, the 429
	   comes back at once. */
	lhttp_request rq = {.url = "/flaky/dl/5/429?ra=30",
	                    .retry = LHTTP_RETRY_IDEMPOTENT};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), 0);
	ck_assert_int_eq(r.status, 429);
	ck_assert_int_eq(r.attempts, 1);
	ck_assert_int_eq(s.n, 0);
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

typedef struct collect {
	char buf[4096];
	size_t len;
	int calls;
	int stop_after; /* 0: never */
	const char *ctype;
} collect;

static int on_body(void *ctx, const lhttp_response *resp, const char *d,
                   size_t n)
{
	collect *c = ctx;
	c->calls++;
	c->ctype = lhttp_headers_get(&resp->headers, "Content-Type");
	ck_assert_int_eq(resp->status, 200);
	ck_assert_uint_le(c->len + n, sizeof c->buf);
	memcpy(c->buf + c->len, d, n);
	c->len += n;
	if (c->stop_after && c->calls >= c->stop_after)
		return LOCUS_EINVALID;
	return 0;
}

START_TEST(stream_and_trailers)
{
	lhttp_options o = LHTTP_OPTIONS_INIT;
	lhttp_client *c = client(&o, NULL);
	collect col = {0};
	lhttp_request rq = {.url = "/stream/5?ms=20",
	                    .on_body = on_body,
	                    .ctx = &col,
	                    .retry = LHTTP_RETRY_IDEMPOTENT};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), 0);
	ck_assert_int_eq(r.status, 200);
	col.buf[col.len] = '\0';
	ck_assert_str_eq(col.buf,
	                 "chunk 0\nchunk 1\nchunk 2\nchunk 3\nchunk 4\n");
	ck_assert_str_eq(col.ctype, "text/plain");
	ck_assert(r.body_streamed);
	ck_assert_ptr_null(r.body);
	ck_assert_str_eq(lhttp_headers_get(&r.trailers, "x-trailer"), "done");
	ck_assert_ptr_null(lhttp_headers_get(&r.headers, "x-trailer"));
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

START_TEST(stream_abort_and_error_bodies)
{
	sleeps s = {0};
	lhttp_options o = LHTTP_OPTIONS_INIT;
	lhttp_client *c = client(&o, &s);
	collect col = {.stop_after = 2};
	lhttp_request rq = {.url = "/stream/5",
	                    .on_body = on_body,
	                    .ctx = &col,
	                    .retry = LHTTP_RETRY_IDEMPOTENT};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), LOCUS_EINVALID);
	ck_assert_int_eq(r.attempts, 1);
	ck_assert_int_eq(s.n, 0);
	lhttp_response_clear(&r);
	/* An error status goes to resp->body, not the callback. */
	collect col2 = {0};
	rq.ctx = &col2;
	rq.url = "/status/404";
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), 0);
	ck_assert_int_eq(r.status, 404);
	ck_assert_int_eq(col2.calls, 0);
	ck_assert_ptr_nonnull(strstr(r.body, "\"code\""));
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

START_TEST(attempt_timeout)
{
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.timeout_ms = 300;
	lhttp_client *c = client(&o, NULL);
	lhttp_request rq = {.url = "/slow?ms=3000"};
	lhttp_response r;
	locus_error err;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), LOCUS_ETIMEOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 3);
	ck_assert_ptr_nonnull(strstr(err.message, "/slow"));
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

START_TEST(idle_timeout)
{
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.idle_timeout_ms = 1000;
	lhttp_client *c = client(&o, NULL);
	collect col = {0};
	lhttp_request rq = {
	    .url = "/stall?ms=6000", .on_body = on_body, .ctx = &col};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), LOCUS_ETIMEOUT);
	ck_assert_ptr_nonnull(strstr(err.message, "idle"));
	ck_assert_int_eq(col.calls, 1); /* "first\n" arrived */
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

START_TEST(cut_connection)
{
	sleeps s = {0};
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.max_attempts = 2;
	lhttp_client *c = client(&o, &s);
	lhttp_request rq = {.url = "/cut", .retry = LHTTP_RETRY_IDEMPOTENT};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), LOCUS_EIO);
	ck_assert_int_eq(r.attempts, 2);
	ck_assert_ptr_nonnull(strstr(err.message, "attempt 2"));
	lhttp_response_clear(&r);
	/* Streamed bytes already reached the caller: never retried. */
	collect col = {0};
	rq.on_body = on_body;
	rq.ctx = &col;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), LOCUS_EIO);
	ck_assert_int_eq(r.attempts, 1);
	ck_assert_str_eq(col.buf, "0123456789");
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

START_TEST(refused_connection)
{
	sleeps s = {0};
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.base_url = "http://127.0.0.1:1";
	o.max_attempts = 3;
	lhttp_client *c = client(&o, &s);
	lhttp_request rq = {.method = "POST",
	                    .url = "/x",
	                    .has_body = true,
	                    .retry = LHTTP_RETRY_UNSENT};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), LOCUS_EIO);
	ck_assert_int_eq(r.attempts, 3);
	ck_assert_int_eq(s.n, 2);
	ck_assert_int_eq(r.status, 0);
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

static bool cancel_now(void *ctx)
{
	int *n = ctx;
	return ++*n >= 1;
}

START_TEST(cancel_stops)
{
	lhttp_options o = LHTTP_OPTIONS_INIT;
	lhttp_client *c = client(&o, NULL);
	int n = 0;
	lhttp_request rq = {
	    .url = "/slow?ms=5000", .cancel = cancel_now, .ctx = &n};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), LOCUS_EDENIED);
	ck_assert_ptr_nonnull(strstr(err.message, "cancelled"));
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

START_TEST(body_cap)
{
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.max_body = 1000;
	lhttp_client *c = client(&o, NULL);
	lhttp_request rq = {.url = "/big/100000"};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), LOCUS_ETOOBIG);
	lhttp_response_clear(&r);
	rq.url = "/big/1000";
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), 0);
	ck_assert_uint_eq(r.body_len, 1000);
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

START_TEST(tls_with_ca_file)
{
	char ca[128];
	snprintf(ca, sizeof ca, "%s/ca.pem", tls_dir);
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.base_url = tls_base;
	o.ca_file = ca;
	lhttp_client *c = client(&o, NULL);
	lhttp_request rq = {.url = "/echo"};
	lhttp_response r;
	locus_error err;
	ck_assert_msg(lhttp_perform(c, &rq, &r, &err) == 0, "%s", err.message);
	ck_assert_int_eq(r.status, 200);
	lhttp_response_clear(&r);
	lhttp_client_free(c);
	/* Without the CA the server's certificate is not trusted, and no
	   retry can change that. */
	sleeps s = {0};
	lhttp_options o2 = LHTTP_OPTIONS_INIT;
	o2.base_url = tls_base;
	c = client(&o2, &s);
	rq.retry = LHTTP_RETRY_IDEMPOTENT;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), LOCUS_EIO);
	ck_assert_int_eq(r.status, 0);
	ck_assert_int_eq(r.attempts, 1);
	ck_assert_int_eq(s.n, 0);
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

/* One gRPC call over h2c: frames come back through on_body, grpc-status
   through the trailers (or the headers of a trailers-only reply). */
static void grpc_call(const char *method, collect *col, lhttp_response *r)
{
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.base_url = h2_base;
	o.http_version = LHTTP_H2_PRIOR;
	o.require_http2 = true;
	lhttp_client *c = client(&o, NULL);
	lhttp_headers h = {0};
	lhttp_headers_add(&h, "Content-Type", "application/grpc");
	lhttp_headers_add(&h, "TE", "trailers");
	static const char frame[] = "\0\0\0\0\5hello";
	char path[64];
	snprintf(path, sizeof path, "/locus.test.Echo/%s", method);
	lhttp_request rq = {.method = "POST",
	                    .url = path,
	                    .headers = &h,
	                    .body = frame,
	                    .body_len = 10,
	                    .has_body = true,
	                    .on_body = on_body,
	                    .ctx = col};
	locus_error err;
	ck_assert_msg(lhttp_perform(c, &rq, r, &err) == 0, "%s", err.message);
	ck_assert_int_eq(r->http_major, 2);
	ck_assert_int_eq(r->status, 200);
	lhttp_headers_clear(&h);
	lhttp_client_free(c);
}

START_TEST(h2c_stream_with_trailers)
{
	collect col = {0};
	lhttp_response r;
	grpc_call("Stream", &col, &r);
	static const char want[] = "\0\0\0\0\5hello"
	                           "\0\0\0\0\3two"
	                           "\0\0\0\0\5three";
	ck_assert_uint_eq(col.len, sizeof want - 1);
	ck_assert(memcmp(col.buf, want, col.len) == 0);
	ck_assert_str_eq(lhttp_headers_get(&r.trailers, "grpc-status"), "0");
	ck_assert_str_eq(lhttp_headers_get(&r.trailers, "x-done"), "yes");
	ck_assert_ptr_null(lhttp_headers_get(&r.headers, "grpc-status"));
	ck_assert_str_eq(lhttp_headers_get(&r.headers, "content-type"),
	                 "application/grpc");
	lhttp_response_clear(&r);
}
END_TEST

START_TEST(h2c_trailers_only)
{
	collect col = {0};
	lhttp_response r;
	grpc_call("Missing", &col, &r);
	ck_assert_int_eq(col.calls, 0);
	const char *st = lhttp_headers_get(&r.headers, "grpc-status");
	if (!st)
		st = lhttp_headers_get(&r.trailers, "grpc-status");
	ck_assert_str_eq(st, "5");
	lhttp_response_clear(&r);
}
END_TEST

START_TEST(require_http2_refuses_http1)
{
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.http_version = LHTTP_H2_TLS; /* http:// URL: curl stays on 1.1 */
	o.require_http2 = true;
	lhttp_client *c = client(&o, NULL);
	lhttp_request rq = {.url = "/echo"};
	lhttp_response r;
	locus_error err;
	ck_assert_int_eq(lhttp_perform(c, &rq, &r, &err), LOCUS_EIO);
	ck_assert_ptr_nonnull(strstr(err.message, "HTTP/2"));
	lhttp_response_clear(&r);
	lhttp_client_free(c);
}
END_TEST

START_TEST(helpers)
{
	char a[64];
	locus_error err;
	ck_assert_int_eq(
	    lhttp_url_authority("http://localhost:7000/api", a, sizeof a, &err),
	    0);
	ck_assert_str_eq(a, "localhost:7000");
	ck_assert_int_eq(lhttp_url_authority("https://u:p@iaas.example.com?x",
	                                     a, sizeof a, &err),
	                 0);
	ck_assert_str_eq(a, "iaas.example.com");
	ck_assert_int_eq(lhttp_url_authority("/no/scheme", a, sizeof a, &err),
	                 LOCUS_EINVALID);
	ck_assert_str_eq(lhttp_url_target("http://h:1/a/b?c=%20"),
	                 "/a/b?c=%20");
	ck_assert_str_eq(lhttp_url_target("http://h:1?q"), "?q");
	ck_assert_str_eq(lhttp_url_target("http://h:1"), "/");
	ck_assert_int_eq(lhttp_parse_retry_after("7", 0), 7000);
	ck_assert_int_eq(lhttp_parse_retry_after(" 0 ", 0), 0);
	ck_assert_int_eq(lhttp_parse_retry_after("1.5", 0), -1);
	ck_assert_int_eq(lhttp_parse_retry_after("soon", 0), -1);
	ck_assert_int_eq(lhttp_parse_retry_after(NULL, 0), -1);
	ck_assert_int_eq(lhttp_parse_retry_after(
	                     "Sun, 05 Jan 2014 21:31:50 GMT", 1388957500),
	                 10000);
	ck_assert_int_eq(lhttp_parse_retry_after(
	                     "Sun, 05 Jan 2014 21:31:30 GMT", 1388957500),
	                 0);
	char d[32];
	lhttp_format_date(1388957500, d);
	ck_assert_str_eq(d, "Sun, 05 Jan 2014 21:31:40 GMT");
	char t1[33], t2[33];
	ck_assert_int_eq(lhttp_random_token(t1), 0);
	ck_assert_int_eq(lhttp_random_token(t2), 0);
	ck_assert_uint_eq(strlen(t1), 32);
	ck_assert_uint_eq(strspn(t1, "0123456789abcdef"), 32);
	ck_assert_str_ne(t1, t2);
	lhttp_headers h = {0};
	lhttp_headers_add(&h, "A", "1");
	lhttp_headers_add(&h, "a", "2");
	lhttp_headers_set(&h, "A", "3");
	ck_assert_uint_eq(h.n, 1);
	ck_assert_str_eq(lhttp_headers_get(&h, "a"), "3");
	lhttp_headers_clear(&h);
	/* Bad option structs are refused. */
	lhttp_options bad = {0};
	lhttp_client *c = NULL;
	ck_assert_int_eq(lhttp_client_new(&c, &bad, &err), LOCUS_EUSAGE);
	lhttp_options half = LHTTP_OPTIONS_INIT;
	half.client_cert = "x.pem";
	ck_assert_int_eq(lhttp_client_new(&c, &half, &err), LOCUS_EINVALID);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("http");
	TCase *tc = tcase_create("plain");
	tcase_add_unchecked_fixture(tc, plain_up, plain_down);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, get_sends_target_as_written);
	tcase_add_test(tc, bodies_are_exact);
	tcase_add_test(tc, delete_and_head);
	tcase_add_test(tc, retries_5xx_same_token_fresh_prepare);
	tcase_add_test(tc, retry_after_honoured_and_capped);
	tcase_add_test(tc, no_retry_of_5xx_when_not_idempotent);
	tcase_add_test(tc, retries_spent_returns_last_status);
	tcase_add_test(tc, deadline_stops_retrying);
	tcase_add_test(tc, stream_and_trailers);
	tcase_add_test(tc, stream_abort_and_error_bodies);
	tcase_add_test(tc, attempt_timeout);
	tcase_add_test(tc, idle_timeout);
	tcase_add_test(tc, cut_connection);
	tcase_add_test(tc, refused_connection);
	tcase_add_test(tc, cancel_stops);
	tcase_add_test(tc, body_cap);
	tcase_add_test(tc, require_http2_refuses_http1);
	suite_add_tcase(s, tc);
	TCase *tt = tcase_create("tls");
	tcase_add_unchecked_fixture(tt, tls_up, tls_down);
	tcase_set_timeout(tt, 60);
	tcase_add_test(tt, tls_with_ca_file);
	suite_add_tcase(s, tt);
	TCase *t2 = tcase_create("h2c");
	tcase_add_unchecked_fixture(t2, h2_up, h2_down);
	tcase_set_timeout(t2, 60);
	tcase_add_test(t2, h2c_stream_with_trailers);
	tcase_add_test(t2, h2c_trailers_only);
	suite_add_tcase(s, t2);
	TCase *th = tcase_create("helpers");
	tcase_add_test(th, helpers);
	suite_add_tcase(s, th);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
