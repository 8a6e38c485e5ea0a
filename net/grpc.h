/*
 * net/grpc.h - the gRPC-over-HTTP/2 wire rules, as pure functions.
 *
 * Owns: the 5-byte message framing both ways (compressed flag refused, a
 * size cap), grpc-status / grpc-message from headers or trailers
 * (percent-decoded), the status a call ends with when the server did not
 * send one (grpc/grpc doc/PROTOCOL-HTTP2.md: HTTP status mapping, missing
 * status, wrong content-type), and the grpc-timeout header value.  No I/O:
 * the transport (net/grpc_call.c) feeds bytes and headers in.
 */
#ifndef LOCUS_HARNESS_GRPC_H
#define LOCUS_HARNESS_GRPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The status codes (grpc/grpc doc/statuscodes.md). */
typedef enum lh_grpc_code {
	LH_GRPC_OK = 0,
	LH_GRPC_CANCELLED = 1,
	LH_GRPC_UNKNOWN = 2,
	LH_GRPC_INVALID_ARGUMENT = 3,
	LH_GRPC_DEADLINE_EXCEEDED = 4,
	LH_GRPC_NOT_FOUND = 5,
	LH_GRPC_ALREADY_EXISTS = 6,
	LH_GRPC_PERMISSION_DENIED = 7,
	LH_GRPC_RESOURCE_EXHAUSTED = 8,
	LH_GRPC_FAILED_PRECONDITION = 9,
	LH_GRPC_ABORTED = 10,
	LH_GRPC_OUT_OF_RANGE = 11,
	LH_GRPC_UNIMPLEMENTED = 12,
	LH_GRPC_INTERNAL = 13,
	LH_GRPC_UNAVAILABLE = 14,
	LH_GRPC_DATA_LOSS = 15,
	LH_GRPC_UNAUTHENTICATED = 16,
} lh_grpc_code;

/** "NOT_FOUND", "UNAVAILABLE"...; "UNKNOWN_CODE" for a number past 16. */
const char *lh_grpc_code_name(int code);

/* Default cap on one received message (the reader refuses larger ones). */
#define LH_GRPC_MAX_MESSAGE (4u << 20)

/** Write the 5-byte prefix of an uncompressed message of len bytes. */
void lh_grpc_prefix(uint8_t out[5], uint32_t len);

/*
 * Reassembles length-prefixed messages from body bytes as they arrive.
 * A message is handed to on_msg whole (its bytes are valid during the
 * call only).  Zero-initialise, set max (0: LH_GRPC_MAX_MESSAGE), feed,
 * then finish; free with lh_grpc_reader_free.
 */
typedef struct lh_grpc_reader {
	uint32_t max;
	uint8_t *buf;
	size_t len, cap;
	bool failed;
	char error[160]; /* why feed/finish failed */
} lh_grpc_reader;

typedef int (*lh_grpc_msg_fn)(void *payload, const uint8_t *msg, size_t len);

/*
 * Feed body bytes.  Returns 0, -1 on a protocol error (compressed flag set,
 * unknown flag, a message over max, out of memory: r->error says which),
 * or the first non-zero value on_msg returned (feeding stops there).
 * After a failure every later feed returns -1.
 */
int lh_grpc_reader_feed(lh_grpc_reader *r, const void *data, size_t n,
                        lh_grpc_msg_fn on_msg, void *payload);

/** At the end of the body: -1 when a partial message is left over. */
int lh_grpc_reader_finish(lh_grpc_reader *r);

void lh_grpc_reader_free(lh_grpc_reader *r);

/*
 * What the response said about the call: fed every header and trailer as
 * it arrives, then asked for the call's final status.
 */
typedef struct lh_grpc_status {
	int http_status;   /* 0 until the status line */
	bool content_type; /* seen, and application/grpc or application/grpc+...
	                    */
	bool have_code;
	int code;
	char message[512]; /* percent-decoded grpc-message, cut to fit */
} lh_grpc_status;

/** One header or trailer field (name case-insensitive; value trimmed). */
void lh_grpc_status_header(lh_grpc_status *st, const char *name,
                           size_t name_len, const char *value,
                           size_t value_len);

/*
 * One raw header line as libcurl passes them ("HTTP/2 200\r\n",
 * "grpc-status: 5\r\n", trailers alike).  Lines that are neither are ignored.
 */
void lh_grpc_status_line(lh_grpc_status *st, const char *line, size_t len);

/*
 * The call's final status once the response ended (the transport saw no
 * error of its own): grpc-status when sent (a non-numeric value is
 * UNKNOWN); otherwise, after a non-200 HTTP status, the mapping of
 * PROTOCOL-HTTP2.md (400 INTERNAL, 401 UNAUTHENTICATED, 403
 * PERMISSION_DENIED, 404 UNIMPLEMENTED, 429 502 503 504 UNAVAILABLE, other
 * UNKNOWN); a 200 that is not application/grpc or ends without a status is
 * INTERNAL.  *msg points at st->message or at a static explanation.
 */
int lh_grpc_status_final(const lh_grpc_status *st, const char **msg);

/** HTTP status -> gRPC code (the table above). */
int lh_grpc_code_from_http(int http_status);

/*
 * Percent-decode a grpc-message value into out (NUL-terminated, cut to
 * cap-1 bytes).  A malformed escape is kept as is.
 */
void lh_grpc_percent_decode(const char *in, size_t n, char *out, size_t cap);

/*
 * The grpc-timeout value for a deadline of `seconds` (> 0): at most 8
 * digits and a unit, rounded up so the server never gets less time than
 * asked ("1500m", "30S", "2H").  Writes "" for seconds <= 0.
 */
void lh_grpc_timeout(double seconds, char out[16]);

#endif
