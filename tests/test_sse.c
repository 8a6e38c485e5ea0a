/*
 * tests/test_sse.c - net/sse.c, the one Server-Sent Events decoder: a
 * sample stream in every chunking (whole, byte by byte, every two and
 * three pieces), CRLF, multi-line data, comments and ignored fields, a
 * half event at the end, the cap, a callback that stops, reset, and out
 * of memory; and the Content-Type test every reader makes.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "locus/alloc.h"
#include "locus/common.h"
#include "net/sse.h"
#include "util/buf.h"

/* Each event's data as "[data]", so joins and empty events show. */
typedef struct seen {
	lu_buf all;
	int events;
	int stop_at; /* return 5 from this event (1-based); 0 never */
} seen;

static int collect(void *ctx, const char *data, size_t len)
{
	seen *v = ctx;
	ck_assert_uint_eq(strlen(data), len); /* NUL-terminated, no NUL */
	lu_buf_putc(&v->all, '[');
	lu_buf_add(&v->all, data, len);
	lu_buf_putc(&v->all, ']');
	v->events++;
	return v->events == v->stop_at ? 5 : 0;
}

static const char sample[] = ": a comment, then a keep-alive\n"
                             ":\n"
                             "event: message\n"
                             "id: 7\n"
                             "retry: 100\n"
                             "data: {\"a\":\n"
                             "data:1}\n"
                             "\n"
                             "data:  two spaces keep one\r\n"
                             "datum: not data\r\n"
                             "data\r\n"
                             "data: last\r\n"
                             "\r\n"
                             "id: an event without data is not delivered\n"
                             "\n"
                             "data:\n"
                             "\n"
                             "data: a half event, never delivered\n";

static const char expect[] = "[{\"a\":\n1}][ two spaces keep one\n\nlast][]";

/* Feed sample cut at `cuts` (ascending offsets); check the events. */
static void run_cuts(const size_t *cuts, size_t ncuts)
{
	seen v = {0};
	lsse d;
	lsse_init(&d, 1024, collect, &v);
	size_t at = 0, n = sizeof sample - 1;
	for (size_t i = 0; i <= ncuts; i++) {
		size_t end = i < ncuts ? cuts[i] : n;
		ck_assert_int_eq(lsse_feed(&d, sample + at, end - at), 0);
		at = end;
	}
	ck_assert_int_eq(v.events, 3);
	ck_assert_str_eq(v.all.d, expect);
	lsse_free(&d);
	lu_buf_free(&v.all);
}

START_TEST(whole_and_byte_by_byte)
{
	run_cuts(NULL, 0);
	size_t n = sizeof sample - 1, cuts[sizeof sample];
	for (size_t i = 0; i + 1 < n; i++)
		cuts[i] = i + 1;
	run_cuts(cuts, n - 1);
}
END_TEST

START_TEST(every_two_and_three_pieces)
{
	size_t n = sizeof sample - 1;
	for (size_t i = 0; i <= n; i++) {
		size_t c1[1] = {i};
		run_cuts(c1, 1);
		for (size_t j = i; j <= n; j += 3) {
			size_t c2[2] = {i, j};
			run_cuts(c2, 2);
		}
	}
}
END_TEST

START_TEST(half_event_dropped_by_reset)
{
	seen v = {0};
	lsse d;
	lsse_init(&d, 64, collect, &v);
	ck_assert_int_eq(lsse_feed(&d, "data: one\n", 10), 0);
	ck_assert_int_eq(lsse_feed(&d, "data: tw", 8), 0);
	lsse_reset(&d); /* the stream ended: nothing delivered */
	ck_assert_int_eq(v.events, 0);
	const char s2[] = "data: two\n\n";
	ck_assert_int_eq(lsse_feed(&d, s2, sizeof s2 - 1), 0);
	ck_assert_int_eq(v.events, 1);
	ck_assert_str_eq(v.all.d, "[two]");
	lsse_free(&d);
	lu_buf_free(&v.all);
}
END_TEST

START_TEST(line_cap)
{
	seen v = {0};
	lsse d;
	lsse_init(&d, 10, collect, &v);
	/* exactly 10 bytes of line ("data: 1234") is allowed */
	ck_assert_int_eq(lsse_feed(&d, "data: 1234\n\n", 12), 0);
	ck_assert_str_eq(v.all.d, "[1234]");
	/* 11 bytes, split so no one chunk holds the whole line */
	ck_assert_int_eq(lsse_feed(&d, "data: 12", 8), 0);
	ck_assert_int_eq(lsse_feed(&d, "345", 3), LOCUS_ETOOBIG);
	/* sticky: the rest is not read */
	ck_assert_int_eq(lsse_feed(&d, "\n\ndata: x\n\n", 11), LOCUS_ETOOBIG);
	ck_assert_int_eq(v.events, 1);
	/* a comment line is capped too (an endless line is a broken stream) */
	lsse_reset(&d);
	ck_assert_int_eq(lsse_feed(&d, ":12345678901\n", 13), LOCUS_ETOOBIG);
	lsse_free(&d);
	lu_buf_free(&v.all);
}
END_TEST

START_TEST(event_cap)
{
	seen v = {0};
	lsse d;
	lsse_init(&d, 10, collect, &v);
	/* 4 + 1 + 5 = 10 bytes of joined data: allowed */
	const char ok[] = "data:abcd\ndata:efghi\n\n";
	ck_assert_int_eq(lsse_feed(&d, ok, sizeof ok - 1), 0);
	ck_assert_str_eq(v.all.d, "[abcd\nefghi]");
	/* short lines, but 3 + 1 + 3 + 1 + 3 = 11 bytes joined */
	const char big[] = "data:abc\ndata:def\ndata:ghi\n\n";
	ck_assert_int_eq(lsse_feed(&d, big, sizeof big - 1), LOCUS_ETOOBIG);
	ck_assert_int_eq(v.events, 1);
	lsse_free(&d);
	lu_buf_free(&v.all);
}
END_TEST

START_TEST(callback_stops)
{
	seen v = {.stop_at = 2};
	lsse d;
	lsse_init(&d, 64, collect, &v);
	const char s[] = "data: 1\n\ndata: 2\n\ndata: 3\n\n";
	ck_assert_int_eq(lsse_feed(&d, s, sizeof s - 1), 5);
	ck_assert_int_eq(lsse_feed(&d, s, sizeof s - 1), 5);
	ck_assert_int_eq(v.events, 2);
	ck_assert_str_eq(v.all.d, "[1][2]");
	lsse_reset(&d); /* clears the error */
	v.stop_at = 0;
	ck_assert_int_eq(lsse_feed(&d, s, 9), 0);
	ck_assert_int_eq(v.events, 3);
	lsse_free(&d);
	lu_buf_free(&v.all);
}
END_TEST

static void *no_alloc(size_t n, void *p)
{
	(void)n, (void)p;
	return NULL;
}
static void *no_resize(void *b, size_t n, void *p)
{
	(void)b, (void)n, (void)p;
	return NULL;
}
static void do_release(void *b, void *p)
{
	(void)p;
	free(b);
}

START_TEST(out_of_memory)
{
	seen v = {0};
	lsse d;
	lsse_init(&d, 64, collect, &v);
	locus_allocator a = {LOCUS_ALLOCATOR_VERSION, no_alloc, no_resize,
	                     do_release, NULL};
	ck_assert_int_eq(locus_set_allocator(&a), 0);
	/* a line split across chunks must be kept: it cannot be */
	int rc1 = lsse_feed(&d, "data: x", 7);
	lsse_reset(&d);
	/* a whole line needs no line buffer, but its data does */
	int rc2 = lsse_feed(&d, "data: x\n\n", 9);
	ck_assert_int_eq(locus_set_allocator(NULL), 0);
	ck_assert_int_eq(rc1, LOCUS_ENOMEM);
	ck_assert_int_eq(rc2, LOCUS_ENOMEM);
	ck_assert_int_eq(v.events, 0);
	lsse_free(&d);
	lu_buf_free(&v.all);
}
END_TEST

START_TEST(is_stream_by_content_type)
{
	lhttp_response r = {0};
	ck_assert(!lsse_is_stream(&r)); /* no Content-Type */
	ck_assert_int_eq(
	    lhttp_headers_add(&r.headers, "Content-Type", "application/json"),
	    0);
	ck_assert(!lsse_is_stream(&r));
	lhttp_headers_clear(&r.headers);
	ck_assert_int_eq(lhttp_headers_add(&r.headers, "content-type",
	                                   "text/event-stream; charset=utf-8"),
	                 0);
	ck_assert(lsse_is_stream(&r));
	lhttp_headers_clear(&r.headers);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sse");
	TCase *t = tcase_create("decoder");
	tcase_add_test(t, whole_and_byte_by_byte);
	tcase_add_test(t, every_two_and_three_pieces);
	tcase_add_test(t, half_event_dropped_by_reset);
	tcase_add_test(t, line_cap);
	tcase_add_test(t, event_cap);
	tcase_add_test(t, callback_stops);
	tcase_add_test(t, out_of_memory);
	tcase_add_test(t, is_stream_by_content_type);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
