/*
 * tests/test_grpc.c - the gRPC wire rules (net/grpc.c) and the
 * OpenShell messages (net/openshell_msg.c) as pure functions.
 *
 * The message vectors are what protoc-generated Python (python3-protobuf
 * 3.21, SerializeToString(deterministic=True)) writes for the same values
 * from net/openshell.proto; the fake gateway checks the same property
 * on every request at run time.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/grpc.h"
#include "net/openshell_msg.h"

/* ================= framing ================= */

typedef struct collect {
	char got[4096];
	size_t n;
	int calls;
	int stop_at; /* return 7 on this call (1-based), 0: never */
} collect;

static int on_msg(void *p, const uint8_t *m, size_t len)
{
	collect *c = p;
	c->calls++;
	if (c->stop_at && c->calls == c->stop_at)
		return 7;
	c->n += (size_t)snprintf(c->got + c->n, sizeof c->got - c->n, "[%.*s]",
	                         (int)len, (const char *)m);
	return 0;
}

static size_t frame(uint8_t *out, const char *msg)
{
	size_t n = strlen(msg);
	lh_grpc_prefix(out, (uint32_t)n);
	memcpy(out + 5, msg, n);
	return n + 5;
}

START_TEST(prefix_big_endian)
{
	uint8_t p[5];
	lh_grpc_prefix(p, 0x01020304u);
	ck_assert_int_eq(p[0], 0);
	ck_assert_int_eq(p[1], 1);
	ck_assert_int_eq(p[2], 2);
	ck_assert_int_eq(p[3], 3);
	ck_assert_int_eq(p[4], 4);
}
END_TEST

START_TEST(reader_any_split)
{
	uint8_t body[256];
	size_t n = frame(body, "hello");
	n += frame(body + n, "");
	n += frame(body + n, "second message");
	/* every split of the body into two feeds, and byte by byte */
	for (size_t cut = 0; cut <= n; cut++) {
		lh_grpc_reader r = {0};
		collect c = {0};
		ck_assert_int_eq(lh_grpc_reader_feed(&r, body, cut, on_msg, &c),
		                 0);
		ck_assert_int_eq(
		    lh_grpc_reader_feed(&r, body + cut, n - cut, on_msg, &c),
		    0);
		ck_assert_int_eq(lh_grpc_reader_finish(&r), 0);
		ck_assert_str_eq(c.got, "[hello][][second message]");
		lh_grpc_reader_free(&r);
	}
	lh_grpc_reader r = {0};
	collect c = {0};
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(
		    lh_grpc_reader_feed(&r, body + i, 1, on_msg, &c), 0);
	ck_assert_int_eq(lh_grpc_reader_finish(&r), 0);
	ck_assert_str_eq(c.got, "[hello][][second message]");
	lh_grpc_reader_free(&r);
}
END_TEST

START_TEST(reader_refuses_compressed_and_big)
{
	uint8_t body[64];
	size_t n = frame(body, "zz");
	body[0] = 1; /* compressed: never accepted */
	lh_grpc_reader r = {0};
	collect c = {0};
	ck_assert_int_eq(lh_grpc_reader_feed(&r, body, n, on_msg, &c), -1);
	ck_assert_ptr_nonnull(strstr(r.error, "compressed"));
	ck_assert_int_eq(c.calls, 0);
	/* stays failed */
	body[0] = 0;
	ck_assert_int_eq(lh_grpc_reader_feed(&r, body, n, on_msg, &c), -1);
	lh_grpc_reader_free(&r);

	body[0] = 2; /* no such flag */
	lh_grpc_reader r2 = {0};
	ck_assert_int_eq(lh_grpc_reader_feed(&r2, body, n, on_msg, &c), -1);
	lh_grpc_reader_free(&r2);

	/* over the cap: refused from the prefix alone, before any body */
	lh_grpc_reader r3 = {.max = 16};
	lh_grpc_prefix(body, 17);
	ck_assert_int_eq(lh_grpc_reader_feed(&r3, body, 5, on_msg, &c), -1);
	ck_assert_ptr_nonnull(strstr(r3.error, "17 bytes"));
	lh_grpc_reader_free(&r3);

	/* default cap: 4 MiB */
	lh_grpc_reader r4 = {0};
	lh_grpc_prefix(body, LH_GRPC_MAX_MESSAGE + 1);
	ck_assert_int_eq(lh_grpc_reader_feed(&r4, body, 3, on_msg, &c), 0);
	ck_assert_int_eq(lh_grpc_reader_feed(&r4, body + 3, 2, on_msg, &c), -1);
	lh_grpc_reader_free(&r4);
}
END_TEST

START_TEST(reader_leftover_and_stop)
{
	uint8_t body[64];
	size_t n = frame(body, "abcdef");
	lh_grpc_reader r = {0};
	collect c = {0};
	ck_assert_int_eq(lh_grpc_reader_feed(&r, body, n - 1, on_msg, &c), 0);
	ck_assert_int_eq(lh_grpc_reader_finish(&r), -1);
	ck_assert_ptr_nonnull(strstr(r.error, "inside a message"));
	lh_grpc_reader_free(&r);

	/* a callback's non-zero value stops the feed and is returned */
	n += frame(body + n, "x");
	lh_grpc_reader r2 = {0};
	collect c2 = {.stop_at = 1};
	ck_assert_int_eq(lh_grpc_reader_feed(&r2, body, n, on_msg, &c2), 7);
	ck_assert_int_eq(c2.calls, 1);
	lh_grpc_reader_free(&r2);
}
END_TEST

/* ================= status ================= */

static void lines(lh_grpc_status *st, const char *const *l)
{
	for (; *l; l++)
		lh_grpc_status_line(st, *l, strlen(*l));
}

START_TEST(status_from_trailers)
{
	lh_grpc_status st = {0};
	const char *const l[] = {"HTTP/2 200\r\n",
	                         "content-type: application/grpc\r\n", "\r\n",
	                         "grpc-status: 0\r\n", NULL};
	lines(&st, l);
	const char *msg;
	ck_assert_int_eq(lh_grpc_status_final(&st, &msg), LH_GRPC_OK);
}
END_TEST

START_TEST(status_trailers_only)
{
	lh_grpc_status st = {0};
	const char *const l[] = {
	    "HTTP/2 200\r\n", "Content-Type: application/grpc+proto\r\n",
	    "Grpc-Status: 9\r\n",
	    "grpc-message: sandbox%20is%20not%20ready %E2%9C%93 100%\r\n",
	    NULL};
	lines(&st, l);
	const char *msg;
	ck_assert_int_eq(lh_grpc_status_final(&st, &msg),
	                 LH_GRPC_FAILED_PRECONDITION);
	ck_assert_str_eq(msg, "sandbox is not ready \xe2\x9c\x93 100%");
	ck_assert_str_eq(lh_grpc_code_name(9), "FAILED_PRECONDITION");
	ck_assert_str_eq(lh_grpc_code_name(17), "UNKNOWN_CODE");
}
END_TEST

START_TEST(status_missing_and_http)
{
	const char *msg;
	/* 200 application/grpc, no grpc-status at the end */
	lh_grpc_status st = {0};
	const char *const a[] = {"HTTP/2 200\r\n",
	                         "content-type: application/grpc\r\n", NULL};
	lines(&st, a);
	ck_assert_int_eq(lh_grpc_status_final(&st, &msg), LH_GRPC_INTERNAL);
	ck_assert_ptr_nonnull(strstr(msg, "without grpc-status"));

	/* 200 but not gRPC */
	lh_grpc_status st2 = {0};
	const char *const b[] = {"HTTP/2 200\r\n",
	                         "content-type: text/html\r\n",
	                         "grpc-status: 0\r\n", NULL};
	lines(&st2, b);
	ck_assert_int_eq(lh_grpc_status_final(&st2, &msg), LH_GRPC_INTERNAL);

	/* application/grpcx is not application/grpc */
	lh_grpc_status st3 = {0};
	const char *const c[] = {"HTTP/2 200\r\n",
	                         "content-type: application/grpcx\r\n",
	                         "grpc-status: 0\r\n", NULL};
	lines(&st3, c);
	ck_assert_int_eq(lh_grpc_status_final(&st3, &msg), LH_GRPC_INTERNAL);

	/* a non-200 wins over any grpc-status it carries */
	static const int http[][2] = {
	    {400, LH_GRPC_INTERNAL},          {401, LH_GRPC_UNAUTHENTICATED},
	    {403, LH_GRPC_PERMISSION_DENIED}, {404, LH_GRPC_UNIMPLEMENTED},
	    {429, LH_GRPC_UNAVAILABLE},       {502, LH_GRPC_UNAVAILABLE},
	    {503, LH_GRPC_UNAVAILABLE},       {504, LH_GRPC_UNAVAILABLE},
	    {500, LH_GRPC_UNKNOWN},           {302, LH_GRPC_UNKNOWN}};
	for (size_t i = 0; i < sizeof http / sizeof *http; i++) {
		lh_grpc_status s = {0};
		char line[32];
		snprintf(line, sizeof line, "HTTP/2 %d\r\n", http[i][0]);
		lh_grpc_status_line(&s, line, strlen(line));
		lh_grpc_status_line(&s, "grpc-status: 0\r\n", 16);
		ck_assert_int_eq(lh_grpc_status_final(&s, &msg), http[i][1]);
	}
	/* no response at all */
	lh_grpc_status none = {0};
	ck_assert_int_eq(lh_grpc_status_final(&none, &msg),
	                 LH_GRPC_UNAVAILABLE);

	/* a garbage grpc-status is UNKNOWN, not OK */
	lh_grpc_status g = {0};
	const char *const d[] = {"HTTP/2 200\r\n",
	                         "content-type: application/grpc\r\n",
	                         "grpc-status: 0x\r\n", NULL};
	lines(&g, d);
	ck_assert_int_eq(lh_grpc_status_final(&g, &msg), LH_GRPC_UNKNOWN);

	/* a 100-continue before the real response starts over */
	lh_grpc_status h = {0};
	const char *const e[] = {"HTTP/1.1 100 Continue\r\n",
	                         "grpc-status: 0\r\n", "HTTP/2 503\r\n", NULL};
	lines(&h, e);
	ck_assert_int_eq(lh_grpc_status_final(&h, &msg), LH_GRPC_UNAVAILABLE);
}
END_TEST

START_TEST(percent_decode_edges)
{
	char out[8];
	lh_grpc_percent_decode("%4", 2, out, sizeof out);
	ck_assert_str_eq(out, "%4");
	lh_grpc_percent_decode("%zz%41", 6, out, sizeof out);
	ck_assert_str_eq(out, "%zzA");
	lh_grpc_percent_decode("abcdefghij", 10, out, sizeof out);
	ck_assert_str_eq(out, "abcdefg");
}
END_TEST

START_TEST(timeout_header)
{
	char t[16];
	lh_grpc_timeout(30, t);
	ck_assert_str_eq(t, "30000m");
	lh_grpc_timeout(1.0001, t);
	ck_assert_str_eq(t, "1001m");
	lh_grpc_timeout(0, t);
	ck_assert_str_eq(t, "");
	lh_grpc_timeout(200000, t); /* 2e8 ms is 9 digits: seconds */
	ck_assert_str_eq(t, "200000S");
	lh_grpc_timeout(1e9, t);
	ck_assert_str_eq(t, "16666667M");
}
END_TEST

/* ================= messages ================= */

static char *hex(const uint8_t *d, size_t n)
{
	char *s = malloc(2 * n + 1);
	for (size_t i = 0; i < n; i++)
		sprintf(s + 2 * i, "%02x", d[i]);
	s[2 * n] = '\0';
	return s;
}

/* The message of a frame as hex, after checking its prefix. */
static char *body_hex(const lh_os_frame *f)
{
	ck_assert_uint_ge(f->len, 5);
	uint32_t n = (uint32_t)f->data[1] << 24 | (uint32_t)f->data[2] << 16 |
	             (uint32_t)f->data[3] << 8 | f->data[4];
	ck_assert_int_eq(f->data[0], 0);
	ck_assert_uint_eq(n, f->len - 5);
	return hex(f->data + 5, f->len - 5);
}

static void unhex(const char *h, uint8_t *out, size_t *n)
{
	*n = strlen(h) / 2;
	for (size_t i = 0; i < *n; i++) {
		unsigned v;
		sscanf(h + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
}

START_TEST(encode_vectors)
{
	lh_os_frame f;
	char *h;
	ck_assert_int_eq(lh_os_encode_health(&f, NULL), 0);
	h = body_hex(&f);
	ck_assert_str_eq(h, "");
	free(h);
	lh_os_frame_free(&f);

	const lh_os_kv labels[] = {{"b", "2"}, {"a", "1"}, {"e", ""}};
	lh_os_create c = {
	    .name = "box", .workspace = "", .labels = labels, .nlabels = 3};
	ck_assert_int_eq(lh_os_encode_create(&f, &c, NULL), 0);
	h = body_hex(&f);
	ck_assert_str_eq(h, "0a001203626f781a060a01611201311a060a01621201321a"
	                    "050a01651200");
	free(h);
	lh_os_frame_free(&f);

	const char *const prov[] = {"gh", "oai"};
	lh_os_create c2 = {
	    .image = "img:1", .providers = prov, .nproviders = 2};
	ck_assert_int_eq(lh_os_encode_create(&f, &c2, NULL), 0);
	h = body_hex(&f);
	ck_assert_str_eq(h, "0a1232070a05696d673a314202676842036f6169");
	free(h);
	lh_os_frame_free(&f);

	/* the main process (spec.command 12, tty 13) and spec.environment
	   (5, sorted): the bytes protobuf's deterministic serialiser writes */
	const char *const cmd[] = {"/opt/locus", "runner"};
	const lh_os_kv senv[] = {{"B", "2"}, {"A", "1"}};
	lh_os_create c3 = {.name = "lb-1",
	                   .command = cmd,
	                   .ncommand = 2,
	                   .env = senv,
	                   .nenv = 2};
	ck_assert_int_eq(lh_os_encode_create(&f, &c3, NULL), 0);
	h = body_hex(&f);
	ck_assert_str_eq(h, "0a242a060a01411201312a060a0142120132620a2f6f7074"
	                    "2f6c6f637573620672756e6e657212046c622d31");
	free(h);
	lh_os_frame_free(&f);
	const char *const sh[] = {"sh"};
	lh_os_create c4 = {.command = sh, .ncommand = 1, .tty = true};
	ck_assert_int_eq(lh_os_encode_create(&f, &c4, NULL), 0);
	h = body_hex(&f);
	ck_assert_str_eq(h, "0a06620273686801");
	free(h);
	lh_os_frame_free(&f);

	ck_assert_int_eq(lh_os_encode_name(&f, LH_OS_GET, "box", "ws", NULL),
	                 0);
	h = body_hex(&f);
	ck_assert_str_eq(h, "0a03626f7812027773");
	free(h);
	lh_os_frame_free(&f);
	for (int rpc = LH_OS_DELETE; rpc <= LH_OS_START; rpc++) {
		ck_assert_int_eq(lh_os_encode_name(&f, (lh_os_name_rpc)rpc,
		                                   "box", NULL, NULL),
		                 0);
		h = body_hex(&f);
		ck_assert_str_eq(h, "0a03626f78");
		free(h);
		lh_os_frame_free(&f);
	}

	const char *const argv[] = {"sh", "-c", "", ""};
	const lh_os_kv env[] = {{"Z", "1"}, {"A", ""}};
	const uint8_t in[] = {0x00, 0xff};
	lh_os_exec e = {.sandbox_id = "sb-1",
	                .argv = argv,
	                .argc = 4,
	                .env = env,
	                .nenv = 2,
	                .timeout_seconds = 30,
	                .stdin_data = in,
	                .stdin_len = 2};
	ck_assert_int_eq(lh_os_encode_exec(&f, &e, NULL), 0);
	h = body_hex(&f);
	ck_assert_str_eq(h, "0a0473622d311202736812022d63120012002205"
	                    "0a0141120022060a015a120131281e320200ff");
	free(h);
	lh_os_frame_free(&f);
}
END_TEST

typedef struct chunks {
	char data[64];
	size_t n;
	int kind;
} chunks;

static int on_data(void *p, int kind, const uint8_t *d, size_t n)
{
	chunks *c = p;
	c->kind = kind;
	memcpy(c->data + c->n, d, n);
	c->n += n;
	return 0;
}

START_TEST(decode_events)
{
	uint8_t b[64];
	size_t n;
	lh_os_event_kind k;
	int code = -1;
	chunks c = {0};
	/* exit 0 is an empty sub-message: still the exit event */
	unhex("1a00", b, &n);
	ck_assert_int_eq(lh_os_decode_event(b, n, &k, &code, on_data, &c, NULL),
	                 0);
	ck_assert_int_eq(k, LH_OS_EV_EXIT);
	ck_assert_int_eq(code, 0);
	unhex("1a02087c", b, &n);
	ck_assert_int_eq(lh_os_decode_event(b, n, &k, &code, on_data, &c, NULL),
	                 0);
	ck_assert_int_eq(k, LH_OS_EV_EXIT);
	ck_assert_int_eq(code, 124);
	/* stdout, with an unknown field (99: varint) before it */
	unhex("b806010a040a026869", b, &n);
	ck_assert_int_eq(lh_os_decode_event(b, n, &k, &code, on_data, &c, NULL),
	                 0);
	ck_assert_int_eq(k, LH_OS_EV_STDOUT);
	ck_assert_int_eq(c.n, 2);
	ck_assert_int_eq(memcmp(c.data, "hi", 2), 0);
	/* an empty event (a payload this client does not know) */
	ck_assert_int_eq(lh_os_decode_event(b, 0, &k, &code, on_data, &c, NULL),
	                 0);
	ck_assert_int_eq(k, LH_OS_EV_NONE);
	/* truncated: an error, not a crash */
	unhex("0a040a0268", b, &n);
	locus_error err = {0};
	ck_assert_int_eq(lh_os_decode_event(b, n, &k, &code, on_data, &c, &err),
	                 LOCUS_EINVALID);
	ck_assert_ptr_nonnull(strstr(err.message, "ExecSandboxEvent"));
}
END_TEST

START_TEST(decode_sandbox)
{
	uint8_t b[256];
	size_t n;
	lh_os_sandbox s;
	unhex("0a2f0a1c0a0473622d311203626f7822060a01781201793a0764656661756c74"
	      "1a0f2a0b1a05526561647922026f6b3002",
	      b, &n);
	ck_assert_int_eq(lh_os_decode_sandbox(b, n, &s, NULL), 0);
	ck_assert_str_eq(s.id, "sb-1");
	ck_assert_str_eq(s.name, "box");
	ck_assert_str_eq(s.workspace, "default");
	ck_assert_int_eq(s.phase, LH_OS_PHASE_READY);
	ck_assert(!s.has_exit_code);
	ck_assert_str_eq(s.condition, "Ready: ok");
	lh_os_sandbox_clear(&s);

	/* phase 9 (newer gateways: COMPLETED) and exit_code 0 present; an
	 * unknown field 20 (a string) inside Sandbox */
	unhex("0a140a060a0473622d311a0430094800a20103616263", b, &n);
	ck_assert_int_eq(lh_os_decode_sandbox(b, n, &s, NULL), 0);
	ck_assert_str_eq(s.id, "sb-1");
	ck_assert_int_eq(s.phase, 9);
	ck_assert_ptr_null(lh_os_phase_name(s.phase));
	ck_assert(s.has_exit_code);
	ck_assert_int_eq(s.exit_code, 0);
	lh_os_sandbox_clear(&s);

	/* no id: refused */
	unhex("0a00", b, &n);
	ck_assert_int_eq(lh_os_decode_sandbox(b, n, &s, NULL), LOCUS_EINVALID);
	ck_assert_ptr_null(s.id);

	bool del = false;
	unhex("0801", b, &n);
	ck_assert_int_eq(lh_os_decode_deleted(b, n, &del, NULL), 0);
	ck_assert(del);
	int st;
	char *ver;
	unhex("080112053031322e33", b, &n);
	ck_assert_int_eq(lh_os_decode_health(b, n, &st, &ver, NULL), 0);
	ck_assert_int_eq(st, 1);
	ck_assert_str_eq(ver, "012.3");
	free(ver);
}
END_TEST

static int count_data(void *p, int kind, const uint8_t *d, size_t n)
{
	size_t *total = p;
	ck_assert_int_eq(kind, LH_OS_EV_STDERR);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(d[i], (uint8_t)((*total + i) % 251));
	*total += n;
	return 0;
}

/* A chunk over 64 KiB (nanopb's heap bytes would stop at 65535). */
START_TEST(decode_big_chunk)
{
	size_t n = 300000;
	uint8_t *m = malloc(n + 16);
	/* 12 <len> { 0a <len> data } */
	size_t k = 0, inner = n + 1 + 3; /* tag + 3-byte varint */
	m[k++] = 0x12;
	m[k++] = (uint8_t)(0x80 | (inner & 0x7f));
	m[k++] = (uint8_t)(0x80 | ((inner >> 7) & 0x7f));
	m[k++] = (uint8_t)(inner >> 14);
	m[k++] = 0x0a;
	m[k++] = (uint8_t)(0x80 | (n & 0x7f));
	m[k++] = (uint8_t)(0x80 | ((n >> 7) & 0x7f));
	m[k++] = (uint8_t)(n >> 14);
	for (size_t i = 0; i < n; i++)
		m[k++] = (uint8_t)(i % 251);
	lh_os_event_kind kind;
	int code;
	size_t total = 0;
	ck_assert_int_eq(
	    lh_os_decode_event(m, k, &kind, &code, count_data, &total, NULL),
	    0);
	ck_assert_int_eq(kind, LH_OS_EV_STDERR);
	ck_assert_uint_eq(total, n);
	/* and a stdin of 300000 bytes encodes whole */
	const char *argv[] = {"cat"};
	lh_os_exec e = {.sandbox_id = "s",
	                .argv = argv,
	                .argc = 1,
	                .stdin_data = m,
	                .stdin_len = n};
	lh_os_frame f;
	ck_assert_int_eq(lh_os_encode_exec(&f, &e, NULL), 0);
	ck_assert_uint_gt(f.len, n);
	lh_os_frame_free(&f);
	free(m);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("grpc");
	TCase *t = tcase_create("framing");
	tcase_add_test(t, prefix_big_endian);
	tcase_add_test(t, reader_any_split);
	tcase_add_test(t, reader_refuses_compressed_and_big);
	tcase_add_test(t, reader_leftover_and_stop);
	suite_add_tcase(s, t);
	t = tcase_create("status");
	tcase_add_test(t, status_from_trailers);
	tcase_add_test(t, status_trailers_only);
	tcase_add_test(t, status_missing_and_http);
	tcase_add_test(t, percent_decode_edges);
	tcase_add_test(t, timeout_header);
	suite_add_tcase(s, t);
	t = tcase_create("messages");
	tcase_add_test(t, encode_vectors);
	tcase_add_test(t, decode_events);
	tcase_add_test(t, decode_sandbox);
	tcase_add_test(t, decode_big_chunk);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
