/*
 * net/sse.h - one incremental Server-Sent Events decoder.
 *
 * Used by every SSE reader (the OCI event stream, the model's chat
 * completions stream, the gateway's MCP answers).  Bytes are fed in any
 * chunking; once per complete event the callback gets the event's data:
 * its `data:` lines joined by "\n", one leading space of each value
 * removed (the WHATWG rules).  Lines end in "\n" or "\r\n"; comment lines
 * (":...") and the fields event:, id:, retry: and unknown ones are
 * ignored; an event ends at an empty line, and one without a data line is
 * not delivered.  A half event (no empty line after it) is never
 * delivered: lsse_reset() drops it at the end of a stream.
 */
#ifndef LOCUS_NET_SSE_H
#define LOCUS_NET_SSE_H

#include <stdbool.h>
#include <stddef.h>

#include "net/http.h"
#include "util/buf.h"

/* One event's data, NUL-terminated (not counted in len).  A nonzero
   return stops the decoder: lsse_feed returns it, now and after. */
typedef int (*lsse_event_fn)(void *ctx, const char *data, size_t len);

typedef struct lsse {
	lsse_event_fn on_event;
	void *ctx;
	size_t max;  /* longest line and longest event data, in bytes */
	lu_buf line; /* the line being read, without its end */
	lu_buf data; /* the data lines of the event being read */
	bool has_data;
	int rc; /* sticky: the first error */
} lsse;

/* Set up `s` (no allocation yet).  `max` caps one line and one event's
   joined data; past it lsse_feed fails with LOCUS_ETOOBIG. */
void lsse_init(lsse *s, size_t max, lsse_event_fn on_event, void *ctx);

/* Decode d[0..n).  Returns 0, LOCUS_ETOOBIG (a line or an event over
   `max`), LOCUS_ENOMEM, or the callback's nonzero return; an error is
   sticky (later calls return it and do nothing). */
int lsse_feed(lsse *s, const char *d, size_t n);

/* Drop a half line and a half event (end of a stream or a reconnect) and
   clear the error; the storage is kept. */
void lsse_reset(lsse *s);

/* Free the storage; `s` must be set up again before reuse. */
void lsse_free(lsse *s);

/* Whether a response is an event stream (its Content-Type names
   text/event-stream), the one test every reader makes. */
bool lsse_is_stream(const lhttp_response *resp);

#endif
