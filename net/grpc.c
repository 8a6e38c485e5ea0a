/*
 * net/grpc.c - gRPC framing, status and timeout rules (see grpc.h).
 */
#include "grpc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const code_names[] = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
};

const char *lh_grpc_code_name(int code)
{
	if (code < 0 || (size_t)code >= sizeof code_names / sizeof *code_names)
		return "UNKNOWN_CODE";
	return code_names[code];
}

void lh_grpc_prefix(uint8_t out[5], uint32_t len)
{
	out[0] = 0; /* not compressed: locus never sends grpc-encoding */
	out[1] = (uint8_t)(len >> 24);
	out[2] = (uint8_t)(len >> 16);
	out[3] = (uint8_t)(len >> 8);
	out[4] = (uint8_t)len;
}

/* ================= reader ================= */

static int reader_fail(lh_grpc_reader *r, const char *fmt, unsigned long v)
{
	r->failed = true;
	/* fmt is always one of this file's literals (-Wformat-nonliteral
	   cannot see that) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(r->error, sizeof r->error, fmt, v);
#pragma GCC diagnostic pop
	return -1;
}

static bool reader_reserve(lh_grpc_reader *r, size_t need)
{
	if (need <= r->cap)
		return true;
	size_t cap = r->cap ? r->cap : 256;
	while (cap < need)
		cap *= 2;
	uint8_t *b = realloc(r->buf, cap);
	if (!b)
		return false;
	r->buf = b;
	r->cap = cap;
	return true;
}

/* Length of the message at p (5-byte prefix checked), or -1. */
static int check_prefix(lh_grpc_reader *r, const uint8_t *p, uint32_t *len)
{
	uint32_t max = r->max ? r->max : LH_GRPC_MAX_MESSAGE;
	if (p[0] == 1)
		return reader_fail(r,
		                   "the server sent a compressed message "
		                   "(flag %lu) though none was accepted",
		                   1);
	if (p[0] != 0)
		return reader_fail(r, "bad message flag %lu", p[0]);
	*len = (uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 8 | p[4];
	if (*len > max)
		return reader_fail(r, "a message of %lu bytes is over the cap",
		                   *len);
	return 0;
}

int lh_grpc_reader_feed(lh_grpc_reader *r, const void *data, size_t n,
                        lh_grpc_msg_fn on_msg, void *payload)
{
	if (r->failed)
		return -1;
	const uint8_t *p = data;
	while (n > 0) {
		/* fast path: whole messages straight from the input */
		if (r->len == 0 && n >= 5) {
			uint32_t len;
			if (check_prefix(r, p, &len))
				return -1;
			if (n - 5 >= len) {
				int rc = on_msg(payload, p + 5, len);
				if (rc)
					return rc;
				p += 5 + (size_t)len;
				n -= 5 + (size_t)len;
				continue;
			}
		}
		/* buffer: first the prefix, then the body */
		size_t want = 5;
		uint32_t len = 0;
		if (r->len >= 5) {
			if (check_prefix(r, r->buf, &len))
				return -1;
			want = 5 + (size_t)len;
		}
		size_t take = want - r->len < n ? want - r->len : n;
		if (!reader_reserve(r, want))
			return reader_fail(r, "out of memory (%lu bytes)",
			                   (unsigned long)want);
		memcpy(r->buf + r->len, p, take);
		r->len += take;
		p += take;
		n -= take;
		if (r->len == 5) {
			if (check_prefix(r, r->buf, &len))
				return -1;
			if (len > 0)
				continue;
		}
		if (r->len >= 5 && r->len == 5 + (size_t)len) {
			r->len = 0;
			int rc = on_msg(payload, r->buf + 5, len);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int lh_grpc_reader_finish(lh_grpc_reader *r)
{
	if (r->failed)
		return -1;
	if (r->len)
		return reader_fail(r,
		                   "the body ended inside a message (%lu bytes "
		                   "left over)",
		                   (unsigned long)r->len);
	return 0;
}

void lh_grpc_reader_free(lh_grpc_reader *r)
{
	free(r->buf);
	r->buf = NULL;
	r->len = r->cap = 0;
}

/* ================= status ================= */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

void lh_grpc_percent_decode(const char *in, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	if (!cap)
		return;
	for (size_t i = 0; i < n && o + 1 < cap; i++) {
		int hi, lo;
		if (in[i] == '%' && i + 2 < n &&
		    (hi = hexval(in[i + 1])) >= 0 &&
		    (lo = hexval(in[i + 2])) >= 0) {
			out[o++] = (char)(hi << 4 | lo);
			i += 2;
		} else {
			out[o++] = in[i];
		}
	}
	out[o] = '\0';
}

static bool name_is(const char *name, size_t n, const char *want)
{
	return strlen(want) == n && !strncasecmp(name, want, n);
}

void lh_grpc_status_header(lh_grpc_status *st, const char *name,
                           size_t name_len, const char *value, size_t value_len)
{
	while (value_len && isspace((unsigned char)*value)) {
		value++;
		value_len--;
	}
	while (value_len && isspace((unsigned char)value[value_len - 1]))
		value_len--;
	if (name_is(name, name_len, "content-type")) {
		static const char g[] = "application/grpc";
		size_t gl = sizeof g - 1;
		st->content_type =
		    value_len >= gl && !strncasecmp(value, g, gl) &&
		    (value_len == gl || value[gl] == '+' || value[gl] == ';');
	} else if (name_is(name, name_len, "grpc-status")) {
		int code = 0;
		bool ok = value_len > 0 && value_len <= 3;
		for (size_t i = 0; ok && i < value_len; i++) {
			if (!isdigit((unsigned char)value[i]))
				ok = false;
			else
				code = code * 10 + (value[i] - '0');
		}
		st->have_code = true;
		st->code = ok ? code : LH_GRPC_UNKNOWN;
	} else if (name_is(name, name_len, "grpc-message")) {
		lh_grpc_percent_decode(value, value_len, st->message,
		                       sizeof st->message);
	}
}

void lh_grpc_status_line(lh_grpc_status *st, const char *line, size_t len)
{
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (len >= 5 && !strncmp(line, "HTTP/", 5)) {
		/* a new response (after a 1xx) starts over */
		const char *sp = memchr(line, ' ', len);
		int code = 0;
		/* at most three digits count: a longer number is no status
		   (and never overflows: fuzz_grpc) */
		if (sp)
			for (sp++;
			     sp < line + len && isdigit((unsigned char)*sp);
			     sp++)
				code =
				    code > 999 ? 1000 : code * 10 + (*sp - '0');
		memset(st, 0, sizeof *st);
		st->http_status = code;
		return;
	}
	const char *colon = memchr(line, ':', len);
	if (!colon || colon == line)
		return;
	lh_grpc_status_header(st, line, (size_t)(colon - line), colon + 1,
	                      len - (size_t)(colon - line) - 1);
}

int lh_grpc_code_from_http(int http_status)
{
	switch (http_status) {
	case 200: return LH_GRPC_OK;
	case 400: return LH_GRPC_INTERNAL;
	case 401: return LH_GRPC_UNAUTHENTICATED;
	case 403: return LH_GRPC_PERMISSION_DENIED;
	case 404: return LH_GRPC_UNIMPLEMENTED;
	case 429:
	case 502:
	case 503:
	case 504: return LH_GRPC_UNAVAILABLE;
	default: return LH_GRPC_UNKNOWN;
	}
}

int lh_grpc_status_final(const lh_grpc_status *st, const char **msg)
{
	if (st->http_status != 200) {
		/* a proxy or a non-gRPC server answered: its status decides,
		 * whatever grpc-status it may carry */
		*msg = st->http_status ? "the server answered with a non-200 "
		                         "HTTP status"
		                       : "no HTTP response";
		return st->http_status ? lh_grpc_code_from_http(st->http_status)
		                       : LH_GRPC_UNAVAILABLE;
	}
	if (!st->content_type) {
		*msg = "the response is not application/grpc";
		return LH_GRPC_INTERNAL;
	}
	if (!st->have_code) {
		*msg = "the response ended without grpc-status";
		return LH_GRPC_INTERNAL;
	}
	*msg = st->message;
	return st->code;
}

void lh_grpc_timeout(double seconds, char out[16])
{
	out[0] = '\0';
	if (!(seconds > 0))
		return;
	/* the finest unit whose count fits in 8 digits, rounded up */
	static const struct {
		char unit;
		double per_second;
	} units[] = {{'m', 1e3}, {'S', 1}, {'M', 1.0 / 60}, {'H', 1.0 / 3600}};
	for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
		double v = ceil(seconds * units[i].per_second);
		if (v <= 99999999.0) {
			snprintf(out, 16, "%.0f%c", v, units[i].unit);
			return;
		}
	}
	snprintf(out, 16, "99999999H");
}
