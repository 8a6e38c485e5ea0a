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
 * The spool sits in the box, where commands can write: every line carries
 * "mac", HMAC-SHA256 keyed with the run's token over the canonical
 * {"event","seq"}, so a command cannot add or change an event the runner
 * then sends as its own (a harness.exec "attested_by: runner").  A line
 * whose MAC does not match is dropped and counted in the log.
 */
#include "runner/runner.h"

#include "harness/internal.h"
#include "util/buf.h"
#include "util/sha256.h"

#include <errno.h>
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

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static long read_seq(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = 0;
	if (f) {
		if (fscanf(f, "%ld", &v) != 1 || v < 0)
			v = 0;
		fclose(f);
	}
	return v;
}

/* Replace path with text atomically. */
static int write_file(const char *path, const char *text, size_t len)
{
	size_t n = strlen(path) + 8;
	char *tmp = malloc(n);
	if (!tmp)
		return LOCUS_ENOMEM;
	snprintf(tmp, n, "%s.tmp", path);
	FILE *f = fopen(tmp, "we");
	int rc = 0;
	if (!f || fwrite(text, 1, len, f) != len)
		rc = LOCUS_EIO;
	if (f && fclose(f))
		rc = LOCUS_EIO;
	if (!rc && rename(tmp, path))
		rc = LOCUS_EIO;
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
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

/* The spool's entries appended to `into` (malformed lines and lines whose
   MAC does not match skipped). */
static void read_spool(lr_events *e, cJSON *into)
{
	FILE *f = fopen(e->spool_path, "re");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long bad = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		cJSON *v = NULL;
		locus_error err;
		double seq;
		static const char *const fields[] = {"event", "mac", "seq",
		                                     NULL};
		char want[65];
		const char *mac = NULL;
		if (lr_json_parse(line, (size_t)(n - (line[n - 1] == '\n')), &v,
		                  &err) ||
		    lr_json_known(v, fields, "spool", &err) ||
		    !lr_json_is_int(cJSON_GetObjectItem(v, "seq")) ||
		    !lr_json_num(v, "seq", &seq, NULL) || seq < 0 ||
		    !lr_json_obj(v, "event", NULL) ||
		    !(mac = lr_json_str(v, "mac", NULL)) ||
		    !entry_mac(e, v, want) || strcmp(mac, want)) {
			cJSON_Delete(v);
			bad++;
			continue;
		}
		cJSON_DeleteItemFromObject(v, "mac");
		cJSON_AddItemToArray(into, v);
	}
	free(line);
	fclose(f);
	if (bad)
		lr_logf(e->log,
		        "events: %ld spool lines dropped (malformed, "
		        "or their MAC does not match)",
		        bad);
}

int lr_events_open(lr_events *e, lr_gw *gw, const char *state_dir, lr_log *log,
                   locus_error *err)
{
	memset(e, 0, sizeof *e);
	e->gw = gw;
	e->log = log;
	e->spool_path = join(state_dir, "events.jsonl");
	e->seq_path = join(state_dir, "events.seq");
	e->pending = cJSON_CreateArray();
	if (!e->spool_path || !e->seq_path || !e->pending) {
		lr_events_close(e);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	e->next_seq = read_seq(e->seq_path);
	/* a spool newer than the seq file (a crash between the two) */
	cJSON *sp = cJSON_CreateArray();
	if (sp) {
		read_spool(e, sp);
		for (cJSON *c = sp->child; c; c = c->next) {
			double s = cJSON_GetObjectItem(c, "seq")->valuedouble;
			if ((long)s + 1 > e->next_seq)
				e->next_seq = (long)s + 1;
		}
		if (sp->child)
			lr_logf(log, "events: %d spooled events to replay",
			        cJSON_GetArraySize(sp));
		cJSON_Delete(sp);
	}
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

static long seq_of(const cJSON *w)
{
	return (long)cJSON_GetObjectItem(w, "seq")->valuedouble;
}

/* Send one batch: entries [*i, j) (consecutive numbers).  0 sent (or
   known), else LOCUS_EIO / LOCUS_EINVALID. *i moves past what the gateway
   has. */
static int send_batch(lr_events *e, cJSON **items, size_t *i, size_t j,
                      locus_error *err)
{
	long from = seq_of(items[*i]);
	cJSON *body = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	if (!body || !arr) {
		cJSON_Delete(body);
		cJSON_Delete(arr);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	cJSON_AddNumberToObject(body, "seq_from", (double)from);
	cJSON_AddItemToObject(body, "events", arr);
	for (size_t k = *i; k < j; k++)
		cJSON_AddItemReferenceToArray(
		    arr, cJSON_GetObjectItem(items[k], "event"));
	char path[256];
	lr_gw_run_path(e->gw, "events", path, sizeof path);
	cJSON *ans = NULL;
	int rc = lr_gw_request(e->gw, "POST", path, body,
	                       LHTTP_RETRY_IDEMPOTENT, &ans, NULL, err);
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
			rc = lh_err(err, LOCUS_EINVALID,
			            "the gateway refused events %ld..%ld (409)",
			            from, last);
	} else if (rc != LOCUS_EIO && rc != LOCUS_ENOMEM) {
		rc = lh_err(err, LOCUS_EINVALID,
		            "the gateway refused events: %s", err->message);
	}
	cJSON_Delete(ans);
	return rc;
}

/* The entries not delivered, as the spool's new contents. */
static int rewrite_spool(lr_events *e, cJSON **items, size_t from, size_t n)
{
	if (from >= n) {
		if (unlink(e->spool_path) && errno != ENOENT)
			return LOCUS_EIO;
		return 0;
	}
	lu_buf b = {0};
	for (size_t k = from; k < n; k++) {
		char mac[65];
		cJSON *line = cJSON_Duplicate(items[k], 1);
		if (line && entry_mac(e, items[k], mac))
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
	int rc = b.oom ? LOCUS_ENOMEM : write_file(e->spool_path, b.d, b.len);
	lu_buf_free(&b);
	return rc;
}

int lr_events_flush(lr_events *e, locus_error *err)
{
	char seq[32];
	int sl = snprintf(seq, sizeof seq, "%ld\n", e->next_seq);
	if (write_file(e->seq_path, seq, (size_t)sl))
		lr_logf(e->log, "events: %s could not be written",
		        "events.seq");
	cJSON *all = cJSON_CreateArray();
	if (!all)
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	read_spool(e, all);
	bool had_spool = all->child != NULL;
	while (e->pending->child)
		cJSON_AddItemToArray(all,
		                     cJSON_DetachItemFromArray(e->pending, 0));
	size_t n = (size_t)cJSON_GetArraySize(all), i = 0;
	cJSON **items = n ? malloc(n * sizeof *items) : NULL;
	if (n && !items) {
		cJSON_Delete(all);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	size_t k = 0;
	/* numbers only go up: a line both spooled and kept in memory (a spool
	   that could not be rewritten) is sent once */
	for (cJSON *c = all->child; c; c = c->next)
		if (!k || seq_of(c) > seq_of(items[k - 1]))
			items[k++] = c;
	n = k;
	int rc = 0;
	while (i < n && !rc) {
		size_t j = i + 1;
		while (j < n && j - i < LR_EVENT_BATCH &&
		       seq_of(items[j]) == seq_of(items[j - 1]) + 1)
			j++;
		rc = send_batch(e, items, &i, j, err);
	}
	if (i < n || had_spool) {
		if (rewrite_spool(e, items, i, n)) {
			/* keep them in memory: the next flush tries again */
			for (size_t m = i; m < n; m++)
				cJSON_AddItemReferenceToArray(e->pending,
				                              items[m]);
			lr_logf(e->log, "events: the spool could not be "
			                "written");
			cJSON *keep = cJSON_Duplicate(e->pending, 1);
			cJSON_Delete(e->pending);
			e->pending = keep ? keep : cJSON_CreateArray();
		}
	}
	if (i < n)
		lr_logf(e->log, "events: %zu spooled (%s)", n - i,
		        rc == LOCUS_EIO ? "the gateway is unavailable"
		                        : "refused");
	else if (had_spool)
		lr_logf(e->log, "events: the spool was replayed");
	e->down = rc == LOCUS_EIO;
	free(items);
	cJSON_Delete(all);
	return rc;
}
