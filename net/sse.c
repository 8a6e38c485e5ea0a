/*
 * net/sse.c - the incremental Server-Sent Events decoder (net/sse.h).
 *
 * A line is collected across chunks in `line` (memchr per chunk, not a
 * byte loop); a complete line is taken as a field.  Only `data` matters
 * to locus's readers; a line without a colon is a field with an empty
 * value, as the WHATWG rules say ("data" alone adds an empty line).
 */
#include "net/sse.h"

#include <string.h>

#include "locus/common.h"

void lsse_init(lsse *s, size_t max, lsse_event_fn on_event, void *ctx)
{
	memset(s, 0, sizeof *s);
	s->on_event = on_event;
	s->ctx = ctx;
	s->max = max;
}

static void end_event(lsse *s)
{
	if (s->has_data) {
		int rc = s->on_event(s->ctx, s->data.d ? s->data.d : "",
		                     s->data.len);
		if (rc)
			s->rc = rc;
	}
	lu_buf_clear(&s->data);
	s->has_data = false;
}

static void take_line(lsse *s, const char *l, size_t n)
{
	if (n && l[n - 1] == '\r')
		n--;
	if (n == 0) {
		end_event(s);
		return;
	}
	const char *colon = memchr(l, ':', n);
	size_t name = colon ? (size_t)(colon - l) : n;
	if (name != 4 || memcmp(l, "data", 4))
		return; /* a comment (name 0), event:, id:, retry:, unknown */
	const char *v = colon ? colon + 1 : l + n;
	size_t vn = (size_t)(l + n - v);
	if (vn && *v == ' ') {
		v++;
		vn--;
	}
	size_t sep = s->has_data ? 1 : 0;
	if (s->data.len + sep + vn > s->max) {
		s->rc = LOCUS_ETOOBIG;
		return;
	}
	if (sep)
		lu_buf_putc(&s->data, '\n');
	lu_buf_add(&s->data, v, vn);
	s->has_data = true;
	if (s->data.oom)
		s->rc = LOCUS_ENOMEM;
}

int lsse_feed(lsse *s, const char *d, size_t n)
{
	size_t i = 0;
	while (i < n && !s->rc) {
		const char *nl = memchr(d + i, '\n', n - i);
		size_t k = nl ? (size_t)(nl - d) : n;
		if (s->line.len + (k - i) > s->max) {
			s->rc = LOCUS_ETOOBIG;
			break;
		}
		if (nl && !s->line.len) {
			take_line(s, d + i, k - i); /* whole in this chunk */
		} else {
			lu_buf_add(&s->line, d + i, k - i);
			if (s->line.oom) {
				s->rc = LOCUS_ENOMEM;
				break;
			}
			if (!nl)
				break; /* the rest comes in a later chunk */
			take_line(s, s->line.d, s->line.len);
			lu_buf_clear(&s->line);
		}
		i = k + 1;
	}
	return s->rc;
}

void lsse_reset(lsse *s)
{
	lu_buf_clear(&s->line);
	lu_buf_clear(&s->data);
	s->line.oom = s->data.oom = false;
	s->has_data = false;
	s->rc = 0;
}

bool lsse_is_stream(const lhttp_response *resp)
{
	const char *ct = lhttp_headers_get(&resp->headers, "content-type");
	return ct && strstr(ct, "text/event-stream");
}

void lsse_free(lsse *s)
{
	lu_buf_free(&s->line);
	lu_buf_free(&s->data);
	s->has_data = false;
}
