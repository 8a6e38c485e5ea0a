/*
 * fuzz_grpc - what a hostile OpenShell gateway controls: the response
 * body (5-byte framed messages, reassembled across any split) decoded as
 * every message the client reads, and the header/trailer lines that carry
 * the status.
 *
 * Input: the first byte picks the split size of the body feed; the rest
 * is the body, and also the header lines (split at '\n').
 *
 * Invariants: the reader returns 0 or -1 (with a reason) and never hands
 * over a message longer than its cap; every decoder returns 0 or
 * LOCUS_EINVALID; a decoded sandbox has a non-empty id; an event's chunk
 * bytes never exceed the message; the final status is a code 0..16 (or
 * what the server sent) with a NUL-terminated message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/grpc.h"
#include "net/openshell_msg.h"

#include "fuzz_check.h"

#define CAP 65536

static int chunk(void *p, int kind, const uint8_t *d, size_t n)
{
	size_t *total = p;
	FUZZ_CHECK(kind == LH_OS_EV_STDOUT || kind == LH_OS_EV_STDERR,
	           "kind %d", kind);
	FUZZ_CHECK(d != NULL || n == 0, "NULL chunk");
	*total += n;
	return 0;
}

static int on_msg(void *p, const uint8_t *m, size_t len)
{
	(void)p;
	FUZZ_CHECK(len <= CAP, "a %zu-byte message past the cap", len);
	locus_error err;
	size_t total = 0;
	lh_os_event_kind k;
	int code;
	int rc = lh_os_decode_event(m, len, &k, &code, chunk, &total, &err);
	FUZZ_CHECK(rc == 0 || rc == LOCUS_EINVALID, "event rc %d", rc);
	FUZZ_CHECK(total <= len, "chunks %zu > message %zu", total, len);
	lh_os_sandbox s;
	rc = lh_os_decode_sandbox(m, len, &s, &err);
	FUZZ_CHECK(rc == 0 || rc == LOCUS_EINVALID, "sandbox rc %d", rc);
	if (rc == 0)
		FUZZ_CHECK(s.id && *s.id, "a sandbox without an id");
	lh_os_sandbox_clear(&s);
	int st;
	char *ver = NULL;
	rc = lh_os_decode_health(m, len, &st, &ver, &err);
	FUZZ_CHECK(rc == 0 || rc == LOCUS_EINVALID, "health rc %d", rc);
	free(ver);
	bool del;
	rc = lh_os_decode_deleted(m, len, &del, &err);
	FUZZ_CHECK(rc == 0 || rc == LOCUS_EINVALID, "deleted rc %d", rc);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t step = (size_t)data[0] + 1;
	data++;
	size--;
	lh_grpc_reader r = {.max = CAP};
	int rc = 0;
	for (size_t off = 0; off < size && rc == 0; off += step) {
		size_t n = size - off < step ? size - off : step;
		rc = lh_grpc_reader_feed(&r, data + off, n, on_msg, NULL);
	}
	FUZZ_CHECK(rc == 0 || rc == -1, "feed rc %d", rc);
	if (rc == 0)
		rc = lh_grpc_reader_finish(&r);
	if (rc)
		FUZZ_CHECK(r.failed && r.error[0],
		           "a failure without a reason");
	lh_grpc_reader_free(&r);

	lh_grpc_status st = {0};
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);
		lh_grpc_status_line(&st, p, n);
		p += n;
	}
	const char *msg = NULL;
	int code = lh_grpc_status_final(&st, &msg);
	FUZZ_CHECK(code >= 0 && code <= 999, "code %d", code);
	FUZZ_CHECK(msg && strlen(msg) < sizeof st.message, "message");
	return 0;
}
