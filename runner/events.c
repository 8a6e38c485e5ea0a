/*
 * runner/events.c - the run's event stream.  Every event gets the next
 * sequence number (kept in .locus/events.seq, so numbering continues
 * across runner processes of one run); delivery is
 * `POST /internal/v1/runs/{id}/events {"seq_from", "events"}` in batches
 * of at most 64 consecutive numbers, in order.  What cannot be delivered
 * goes to .locus/events.jsonl (one {"event","seq"} per line) and is sent
 * before anything newer once the gateway answers again, so each event
 * reaches the gateway once and in order.  A 409 whose body says
 * {"next_seq": N} (the gateway already has events before N: an answer that
 * was lost on the way back) skips what it has.
 *
 * The spool sits in the box, where commands can write.  So a running
 * runner keeps undelivered events in memory and never reads the spool back
 * (it rewrites it at every flush); a starting one replays only lines that
 * carry "mac", HMAC-SHA256 keyed with the run's token over the canonical
 * {"event","seq"} (a command cannot add or change an event the runner then
 * sends as its own, a harness.exec "attested_by: runner"), and that are an
 * event this runner makes, numbered one after the other.
 */
#include "runner/runner.h"

#include "util/error.h"
#include "util/buf.h"
#include "util/sha256.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* clang-format off */
static const char *const allowed_types[] = {
    "token", "think", "tool_start", "tool_complete", "tool.sandbox.output",
    "harness.exec", "playbook_step", "playbook_progress", NULL};
/* clang-format on */

/* events.seq: a decimal number in [0, 2^53) (anything else counts as 0:
   the file is in the box, and numbers only go up from the spool and the
   checkpoint anyway). */
static long read_seq(const char *path)
{
	FILE *f = fopen(path, "re");
	char buf[32] = "";
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *end = NULL;
	errno = 0;
	long long v = strtoll(buf, &end, 10);
	if (errno || end == buf || (*end && strcmp(end, "\n")) || v < 0 ||
	    v >= LR_SEQ_LIMIT)
		return 0;
	return (long)v;
}

/* hex HMAC-SHA256(token, canonical {"event","seq"} of w) into out. */
static bool entry_mac(const lr_events *e, const cJSON *w, char out[65])
{
	cJSON *plain = cJSON_CreateObject();
	if (!plain)
		return false;
	cJSON_AddItemReferenceToObject(plain, "event",
	                               cJSON_GetObjectItem(w, "event"));
	cJSON_AddItemReferenceToObject(plain, "seq",
	                               cJSON_GetObjectItem(w, "seq"));
	char *t = lr_json_canonical(plain);
	cJSON_Delete(plain);
	const char *key = e->gw->auth + 7; /* "Bearer " */
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int ml = 0;
	bool ok = t &&
	          HMAC(EVP_sha256(), key, (int)strlen(key),
	               (const unsigned char *)t, strlen(t), md, &ml) &&
	          ml == 32;
	free(t);
	if (ok)
		lu_hex(md, 32, out);
	return ok;
}

/* An entry's number: every entry is built by lr_events_emit or checked
   by spool_line_seq, so it has one. */
static long seq_of(const cJSON *w)
{
	const cJSON *seq = cJSON_GetObjectItem(w, "seq");
	assert(lr_json_is_int(seq) && seq->valuedouble >= 0);
	return (long)seq->valuedouble;
}

/* What a spooled event may hold: each type's fields, each with its kind
   (s string, S string or null, i integer >= 0, I integer or null, n number
   >= 0, b boolean, a any JSON, c think's tool_calls, r the text "runner").
   Only types this runner emits; every field is required. */
typedef struct spool_shape {
	const char *type;
	const char *fields[11]; /* "kind:name", NULL-terminated */
} spool_shape;

static const spool_shape spool_shapes[] = {
    {"token", {"s:text", NULL}},
    {"think", {"i:iteration", "s:text", "c:tool_calls", NULL}},
    {"tool_start", {"s:call_id", "s:tool", "a:arguments", NULL}},
    {"tool_complete",
     {"s:call_id", "s:tool", "s:result", "S:error", "i:duration_ms", NULL}},
    {"harness.exec",
     {"s:call_id", "s:command_sha256", "I:exit_code", "n:duration_s",
      "b:timed_out", "s:output_sha256", "i:output_bytes", "b:truncated",
      "b:background", "r:attested_by", NULL}},
};

static bool spool_kind(char kind, const cJSON *v)
{
	switch (kind) {
	case 's': return cJSON_IsString(v);
	case 'S': return cJSON_IsString(v) || cJSON_IsNull(v);
	case 'i': return lr_json_is_int(v) && v->valuedouble >= 0;
	case 'I': return lr_json_is_int(v) || cJSON_IsNull(v);
	case 'n':
		return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
		       v->valuedouble >= 0;
	case 'b': return cJSON_IsBool(v);
	case 'a': return v != NULL;
	case 'r': return cJSON_IsString(v) && !strcmp(v->valuestring, "runner");
	case 'c':
		if (!cJSON_IsArray(v))
			return false;
		for (const cJSON *c = v->child; c; c = c->next) {
			static const char *const idname[] = {"id", "name",
			                                     NULL};
			if (lr_json_known(c, idname, "a tool call", NULL) ||
			    cJSON_GetArraySize(c) != 2 ||
			    !cJSON_IsString(cJSON_GetObjectItem(c, "id")) ||
			    !cJSON_IsString(cJSON_GetObjectItem(c, "name")))
				return false;
		}
		return true;
	}
	return false;
}

/* True when `ev` is an event this runner could have made: an allowed
   type with exactly its fields, each of its kind. */
static bool spool_event_ok(const cJSON *ev)
{
	const char *type = lr_json_str(ev, "type", NULL);
	const spool_shape *sh = NULL;
	for (size_t i = 0;
	     type && i < sizeof spool_shapes / sizeof *spool_shapes; i++)
		if (!strcmp(type, spool_shapes[i].type))
			sh = &spool_shapes[i];
	if (!sh)
		return false;
	size_t nf = 0;
	for (; sh->fields[nf]; nf++)
		if (!spool_kind(sh->fields[nf][0],
		                cJSON_GetObjectItemCaseSensitive(
		                    ev, sh->fields[nf] + 2)))
			return false;
	/* no other field (a key given twice is refused by the reader) */
	return cJSON_GetArraySize(ev) == (int)nf + 1;
}

/* One spool line: exactly {"event", "mac", "seq"}, seq an integer in
   [0, 2^53), the event valid, the MAC this run's.  Its seq (the "mac"
   member removed), or -1. */
static long spool_line_seq(const lr_events *e, cJSON *v)
{
	static const char *const keys[] = {"event", "mac", "seq", NULL};
	const cJSON *seq = cJSON_GetObjectItemCaseSensitive(v, "seq");
	const char *mac = lr_json_str(v, "mac", NULL);
	char want[65];
	if (lr_json_known(v, keys, "a spool line", NULL) ||
	    cJSON_GetArraySize(v) != 3 || !mac || !lr_json_is_int(seq) ||
	    seq->valuedouble < 0 ||
	    !spool_event_ok(cJSON_GetObjectItemCaseSensitive(v, "event")) ||
	    !entry_mac(e, v, want) || strcmp(mac, want))
		return -1;
	cJSON_DeleteItemFromObjectCaseSensitive(v, "mac");
	return (long)seq->valuedouble;
}

/* The spool left by an earlier process, appended to e->pending: only at
   start-up (while running, undelivered events stay in memory and the spool
   is their backup, never read back: a command in the box can write it).
   Each line must be an event this runner makes, numbered one after the
   other; the first line that is not ends the replay (it and what follows
   are dropped and logged). */
static void read_spool(lr_events *e)
{
	FILE *f = fopen(e->spool_path, "re");
	if (!f)
		return;
	e->spooled = true;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long bad = 0, kept = 0, prev = -1;
	while ((n = getline(&line, &cap, f)) > 0) {
		cJSON *v = NULL;
		locus_error err;
		long seq = -1;
		if (!bad &&
		    !lr_json_parse(line, (size_t)(n - (line[n - 1] == '\n')),
		                   &v, &err))
			seq = spool_line_seq(e, v);
		if (bad || seq < 0 || (prev >= 0 && seq != prev + 1)) {
			cJSON_Delete(v);
			bad++;
			continue;
		}
		prev = seq;
		cJSON_AddItemToArray(e->pending, v);
		kept++;
	}
	free(line);
	fclose(f);
	if (kept)
		lr_logf(e->log, "events: %ld spooled events to replay", kept);
	if (bad)
		lr_logf(e->log,
		        "events: %ld spool lines dropped (malformed, not "
		        "an event this runner makes, out of order, or "
		        "their MAC does not match)",
		        bad);
}

int lr_events_open(lr_events *e, lr_gw *gw, const char *state_dir, lr_log *log,
                   locus_error *err)
{
	memset(e, 0, sizeof *e);
	e->gw = gw;
	e->log = log;
	e->spool_path = lr_path(state_dir, "events.jsonl");
	e->seq_path = lr_path(state_dir, "events.seq");
	e->pending = cJSON_CreateArray();
	if (!e->spool_path || !e->seq_path || !e->pending) {
		lr_events_close(e);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	e->next_seq = read_seq(e->seq_path);
	/* a spool newer than the seq file (a crash between the two) */
	read_spool(e);
	cJSON *last =
	    cJSON_GetArrayItem(e->pending, cJSON_GetArraySize(e->pending) - 1);
	if (last && seq_of(last) + 1 > e->next_seq)
		e->next_seq = seq_of(last) + 1;
	return 0;
}

void lr_events_close(lr_events *e)
{
	free(e->spool_path);
	free(e->seq_path);
	cJSON_Delete(e->pending);
	memset(e, 0, sizeof *e);
}

void lr_events_seq_at_least(lr_events *e, long n)
{
	if (n > e->next_seq)
		e->next_seq = n;
}

void lr_events_emit(lr_events *e, cJSON *event)
{
	const char *type = lr_json_str(event, "type", NULL);
	bool ok = false;
	for (size_t i = 0; type && allowed_types[i] && !ok; i++)
		ok = !strcmp(type, allowed_types[i]);
	cJSON *w = ok ? cJSON_CreateObject() : NULL;
	if (!w) {
		lr_logf(e->log, "events: an event was dropped (%s)",
		        ok ? "out of memory" : "not an allowed type");
		cJSON_Delete(event);
		return;
	}
	cJSON_AddNumberToObject(w, "seq", (double)e->next_seq++);
	cJSON_AddItemToObject(w, "event", event);
	cJSON_AddItemToArray(e->pending, w);
}

/* Send one batch: entries [*i, j) (consecutive numbers).  0 sent (or
   known), else LOCUS_EIO / LOCUS_EINVALID. *i moves past what the gateway
   has. */
static int send_batch(lr_events *e, cJSON **items, size_t *i, size_t j,
                      locus_error *err)
{
	assert(*i < j && j - *i <= LR_EVENT_BATCH);
	long from = seq_of(items[*i]);
	cJSON *body = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	if (!body || !arr) {
		cJSON_Delete(body);
		cJSON_Delete(arr);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	cJSON_AddNumberToObject(body, "seq_from", (double)from);
	cJSON_AddItemToObject(body, "events", arr);
	for (size_t k = *i; k < j; k++)
		cJSON_AddItemReferenceToArray(
		    arr, cJSON_GetObjectItem(items[k], "event"));
	cJSON *ans = NULL;
	int rc = lr_gw_run_request(e->gw, "POST", "events", body,
	                           LHTTP_RETRY_IDEMPOTENT, &ans, err);
	cJSON_Delete(body);
	if (!rc) {
		*i = j;
	} else if (rc == LOCUS_ECONFLICT) {
		double next;
		long last = seq_of(items[j - 1]);
		if (ans && lr_json_num(ans, "next_seq", &next, NULL) &&
		    next > (double)from && next <= (double)e->next_seq) {
			lr_logf(e->log,
			        "events: the gateway had %ld..%ld "
			        "already",
			        from, (long)next - 1);
			while (*i < j && seq_of(items[*i]) < (long)next)
				(*i)++;
			rc = 0;
		} else
			rc = lu_err(err, LOCUS_EINVALID,
			            "the gateway refused events %ld..%ld (409)",
			            from, last);
	} else if (rc != LOCUS_EIO && rc != LOCUS_ENOMEM) {
		rc = lu_err(err, LOCUS_EINVALID,
		            "the gateway refused events: %s", err->message);
	}
	cJSON_Delete(ans);
	return rc;
}

/* The entries not delivered, as the spool's new contents (a backup for
   the next process; this one never reads it back).  Rewritten (or
   removed) at every flush, whatever is there: a file a command wrote holds
   after the flush exactly what this process has not delivered. */
static int rewrite_spool(lr_events *e)
{
	if (!e->pending->child) {
		if (unlink(e->spool_path) && errno != ENOENT)
			return LOCUS_EIO;
		e->spooled = false;
		return 0;
	}
	lu_buf b = {0};
	for (const cJSON *c = e->pending->child; c; c = c->next) {
		char mac[65];
		cJSON *line = cJSON_Duplicate(c, 1);
		if (line && entry_mac(e, c, mac))
			cJSON_AddStringToObject(line, "mac", mac);
		char *t = line ? lr_json_canonical(line) : NULL;
		cJSON_Delete(line);
		if (!t) {
			lu_buf_free(&b);
			return LOCUS_ENOMEM;
		}
		lu_buf_puts(&b, t);
		lu_buf_puts(&b, "\n");
		free(t);
	}
	int rc =
	    b.oom ? LOCUS_ENOMEM : lr_file_replace(e->spool_path, b.d, b.len);
	lu_buf_free(&b);
	if (!rc)
		e->spooled = true;
	return rc;
}

int lr_events_flush(lr_events *e, locus_error *err)
{
	char seq[32];
	int sl = snprintf(seq, sizeof seq, "%ld\n", e->next_seq);
	if (lr_file_replace(e->seq_path, seq, (size_t)sl))
		lr_logf(e->log, "events: %s could not be written",
		        "events.seq");
	size_t n = (size_t)cJSON_GetArraySize(e->pending), i = 0;
	cJSON **items = n ? malloc(n * sizeof *items) : NULL;
	if (n && !items)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	size_t k = 0;
	for (cJSON *c = e->pending->child; c; c = c->next)
		items[k++] = c;
	assert(k == n);
	bool had_spool = e->spooled;
	int rc = 0;
	while (i < n && !rc) {
		size_t j = i + 1;
		while (j < n && j - i < LR_EVENT_BATCH &&
		       seq_of(items[j]) == seq_of(items[j - 1]) + 1)
			j++;
		rc = send_batch(e, items, &i, j, err);
	}
	/* what was delivered leaves memory; the rest stays for the next flush */
	for (size_t m = 0; m < i; m++)
		cJSON_Delete(cJSON_DetachItemViaPointer(e->pending, items[m]));
	free(items);
	if (rewrite_spool(e))
		lr_logf(e->log, "events: the spool could not be written");
	if (i < n)
		lr_logf(e->log, "events: %zu spooled (%s)", n - i,
		        rc == LOCUS_EIO ? "the gateway is unavailable"
		                        : "refused");
	else if (had_spool)
		lr_logf(e->log, "events: the spool was replayed");
	e->down = rc == LOCUS_EIO;
	return rc;
}
