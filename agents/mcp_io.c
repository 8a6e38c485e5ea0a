/*
 * agents/mcp_io.c - `locus mcp` output: every message is one whole line
 * written under a lock (the worker and the main thread both answer), ids
 * go back exactly as the client wrote them, text is made valid UTF-8.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mcp.h"
#include "../util/clock.h"
#include "../util/utf8.h"

char *mcp_utf8_clean(const char *s)
{
	return lu_utf8_clean(s, strlen(s));
}

void mcp_output_init(mcp_server *s)
{
	struct stat st;
	int fl = fcntl(1, F_GETFL);
	if (fstat(1, &st) == 0 &&
	    (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) && fl >= 0)
		fcntl(1, F_SETFL, fl | O_NONBLOCK);
	if (s->write_timeout_s <= 0)
		s->write_timeout_s = MCP_WRITE_TIMEOUT_S;
}

/* Drop the client, once, saying why on stderr. */
static void drop_client(mcp_server *s, const char *why, size_t unsent)
{
	if (!atomic_exchange(&s->out_broken, true))
		fprintf(stderr,
		        "locus mcp: %s (%zu bytes of the message unsent): the "
		        "client is dropped, the server stops\n",
		        why, unsent);
}

/*
 * Write n bytes to stdout (caller holds out_lock).  On a non-blocking
 * pipe a full buffer is waited for in 100 ms polls: SIGTERM ends the wait
 * at once, and no byte taken for write_timeout_s drops the client.  An
 * error (EPIPE: the client closed its end) ends the output silently.
 */
static void write_all(mcp_server *s, const char *d, size_t n)
{
	size_t off = 0;
	double idle_since = lu_now();
	while (off < n && !atomic_load(&s->out_broken)) {
		ssize_t w = write(1, d + off, n - off);
		if (w > 0) {
			off += (size_t)w;
			idle_since = lu_now();
			continue;
		}
		if (w < 0 && errno == EINTR && !(s->term && *s->term))
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
		              errno == EINTR)) {
			if (s->term && *s->term) {
				drop_client(s,
				            "stopping on a signal while "
				            "the client was not reading",
				            n - off);
				return;
			}
			if (lu_now() - idle_since >= s->write_timeout_s) {
				char why[128];
				snprintf(
				    why, sizeof why,
				    "the client has not read its output for "
				    "%.0f s",
				    s->write_timeout_s);
				drop_client(s, why, n - off);
				return;
			}
			struct pollfd p = {1, POLLOUT, 0};
			poll(&p, 1, 100);
			continue;
		}
		atomic_store(&s->out_broken, true); /* gone: nobody to tell */
	}
}

void mcp_send(mcp_server *s, cJSON *msg)
{
	char *text = msg ? cJSON_PrintUnformatted(msg) : NULL;
	cJSON_Delete(msg);
	if (!text) {
		/* cannot build the answer: say so in a fixed text */
		text =
		    strdup("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":"
		           "{\"code\":-32603,\"message\":\"out of memory\"}}");
		if (!text)
			return;
	}
	pthread_mutex_lock(&s->out_lock);
	/* the whole line under the lock: a reader never sees two messages
	   interleaved, whichever thread answers */
	write_all(s, text, strlen(text));
	write_all(s, "\n", 1);
	pthread_mutex_unlock(&s->out_lock);
	cJSON_free(text);
}

cJSON *mcp_envelope(const char *id_raw)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON *i = id_raw ? cJSON_CreateRaw(id_raw) : cJSON_CreateNull();
	if (!cJSON_AddStringToObject(o, "jsonrpc", "2.0") || !i ||
	    !cJSON_AddItemToObject(o, "id", i)) {
		cJSON_Delete(i);
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

void mcp_send_error(mcp_server *s, const char *id_raw, int code,
                    const char *message)
{
	cJSON *o = mcp_envelope(id_raw);
	cJSON *e = o ? cJSON_AddObjectToObject(o, "error") : NULL;
	if (e) {
		cJSON_AddNumberToObject(e, "code", code);
		char *m = mcp_utf8_clean(message);
		cJSON_AddStringToObject(e, "message", m ? m : "error");
		free(m);
	}
	mcp_send(s, e ? o : ((void)cJSON_Delete(o), NULL));
}

void mcp_send_result(mcp_server *s, const char *id_raw, cJSON *result)
{
	cJSON *o = mcp_envelope(id_raw);
	if (!o || !result || !cJSON_AddItemToObject(o, "result", result)) {
		cJSON_Delete(result);
		cJSON_Delete(o);
		mcp_send_error(s, id_raw, RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	mcp_send(s, o);
}

/* --- raw scanning (the text is valid JSON: cJSON parsed it) --- */

/* cJSON's whitespace: every byte up to the space (it skips control bytes
   too, so the scanner must, or it would read a value from the wrong
   place). */
static bool ws(char c)
{
	return (unsigned char)c <= 32 && c != '\0';
}

static size_t skip_ws(const char *p, size_t i, size_t n)
{
	while (i < n && ws(p[i]))
		i++;
	return i;
}

/* Past the string that starts at p[i] == '"'. */
static size_t skip_string(const char *p, size_t i, size_t n)
{
	for (i++; i < n && p[i] != '"'; i++)
		if (p[i] == '\\')
			i++;
	return i < n ? i + 1 : n;
}

/* Past the value that starts at p[i]. */
static size_t skip_value(const char *p, size_t i, size_t n)
{
	if (i < n && p[i] == '"')
		return skip_string(p, i, n);
	if (i < n && (p[i] == '{' || p[i] == '[')) {
		size_t depth = 0;
		while (i < n) {
			if (p[i] == '"') {
				i = skip_string(p, i, n);
				continue;
			}
			if (p[i] == '{' || p[i] == '[')
				depth++;
			else if ((p[i] == '}' || p[i] == ']') && --depth == 0)
				return i + 1;
			i++;
		}
		return n;
	}
	while (i < n && p[i] != ',' && p[i] != '}' && p[i] != ']' && !ws(p[i]))
		i++;
	return i;
}

int mcp_raw_member(const char *json, size_t n, const char *key, const char **at,
                   size_t *len)
{
	size_t kl = strlen(key);
	size_t i = skip_ws(json, 0, n);
	if (i >= n || json[i] != '{')
		return -1;
	i++;
	for (;;) {
		i = skip_ws(json, i, n);
		if (i >= n || json[i] != '"')
			return -1;
		size_t ks = i + 1, ke = skip_string(json, i, n) - 1;
		i = skip_ws(json, ke + 1, n);
		if (i >= n || json[i] != ':')
			return -1;
		i = skip_ws(json, i + 1, n);
		size_t vs = i;
		i = skip_value(json, i, n);
		/* a key written with escapes is not matched: callers fall
		   back to cJSON's decoded value */
		if (ke - ks == kl && !memcmp(json + ks, key, kl)) {
			*at = json + vs;
			*len = i - vs;
			return 0;
		}
		i = skip_ws(json, i, n);
		if (i >= n || json[i] != ',')
			return -1;
		i++;
	}
}

char *mcp_id_text(const char *line, size_t n, const cJSON *id)
{
	if (cJSON_IsString(id)) {
		char *c = mcp_utf8_clean(id->valuestring);
		cJSON *s = c ? cJSON_CreateString(c) : NULL;
		char *t = s ? cJSON_PrintUnformatted(s) : NULL;
		free(c);
		cJSON_Delete(s);
		return t;
	}
	if (!cJSON_IsNumber(id) || !isfinite(id->valuedouble))
		return NULL;
	const char *at;
	size_t len;
	if (line && mcp_raw_member(line, n, "id", &at, &len) == 0 && len &&
	    len < 400 && (at[0] == '-' || (at[0] >= '0' && at[0] <= '9'))) {
		char *t = malloc(len + 1);
		if (t) {
			memcpy(t, at, len);
			t[len] = '\0';
		}
		return t;
	}
	char num[40];
	snprintf(num, sizeof num, "%.17g", id->valuedouble);
	return strdup(num);
}

char *mcp_id_key(const char *raw)
{
	if (!raw)
		return NULL;
	size_t n = strlen(raw);
	char *k = malloc(n + 3);
	if (!k)
		return NULL;
	if (raw[0] == '"') {
		/* compare strings by their value, not their escapes; raw is
		   our own text (mcp_id_text): lenient is right */
		cJSON *s = cJSON_Parse(raw);
		const char *v = cJSON_IsString(s) ? s->valuestring : "";
		char *kk = realloc(k, strlen(v) + 3);
		if (kk) {
			k = kk;
			snprintf(k, strlen(v) + 3, "s:%s", v);
		}
		cJSON_Delete(s);
		return k;
	}
	snprintf(k, n + 3, "n:%s", raw);
	return k;
}
