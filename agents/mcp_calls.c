/*
 * agents/mcp_calls.c - `locus mcp` tool calls: a FIFO served by one worker
 * thread, so calls run one at a time in the order they came (a write then
 * a read of the same file sent back to back behave as sent) while the main
 * thread goes on answering ping, tools/list and cancellations.
 *
 * Bounded: at most opt.max_calls calls queued or running; one more gets
 * -32000 "server busy" at once.  A cancelled call that has not started is
 * dropped (nothing ran, not even the gate); a running one is cancelled
 * through its locus_call_ctl (the command's process group is killed, a
 * file change not yet made is never made).  Either way no response is
 * sent, as the specification asks.  With a progressToken, a running
 * command sends notifications/progress about once a second.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp.h"

struct mcp_call {
	mcp_call *next;
	mcp_server *s;
	char *id;  /* JSON text of the request id */
	char *key; /* mcp_id_key(id) */
	char *tool;
	char *args;     /* JSON text */
	char *progress; /* JSON text of _meta.progressToken, or NULL */
	locus_call_ctl ctl;
};

static void call_free(mcp_call *c)
{
	if (!c)
		return;
	free(c->id);
	free(c->key);
	free(c->tool);
	free(c->args);
	free(c->progress);
	free(c);
}

static char *dup_n(const char *p, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, p, n);
		d[n] = '\0';
	}
	return d;
}

/* notifications/progress: progress is whole seconds elapsed (it must grow
   from one notification to the next), the message says more. */
static void on_progress(double elapsed, size_t bytes, void *payload)
{
	mcp_call *c = payload;
	if (!c->progress || locus_call_cancelled(&c->ctl))
		return;
	cJSON *o = cJSON_CreateObject();
	cJSON *p = o ? cJSON_AddObjectToObject(o, "params") : NULL;
	cJSON *tok = cJSON_CreateRaw(c->progress);
	char msg[120];
	snprintf(msg, sizeof msg, "%s running for %.0f s, %zu bytes of output",
	         c->tool, elapsed, bytes);
	if (!p || !tok || !cJSON_AddStringToObject(o, "jsonrpc", "2.0") ||
	    !cJSON_AddStringToObject(o, "method", "notifications/progress") ||
	    !cJSON_AddItemToObject(p, "progressToken", tok)) {
		if (!p || !cJSON_GetObjectItem(p, "progressToken"))
			cJSON_Delete(tok);
		cJSON_Delete(o);
		return;
	}
	cJSON_AddNumberToObject(p, "progress", (double)(long long)elapsed);
	cJSON_AddStringToObject(p, "message", msg);
	mcp_send(c->s, o);
}

/* Run one call on the harness and answer it (unless cancelled). */
static void run_call(mcp_server *s, mcp_call *c)
{
	char *out = NULL;
	bool is_error = true;
	locus_error err;
	memset(&err, 0, sizeof err);
	cJSON *result;
	if (!s->harness) {
		result = mcp_error_result(
		    s->no_workspace ? s->no_workspace : "no workspace is open");
	} else {
		int rc = locus_harness_call_ctl(&out, &is_error, s->harness,
		                                c->tool, c->args,
		                                strlen(c->args), &c->ctl, &err);
		if (rc) {
			result = NULL;
			if (!locus_call_cancelled(&c->ctl))
				mcp_send_error(
				    s, c->id,
				    rc == LOCUS_ENOTFOUND ? RPC_INVALID_PARAMS
				                          : RPC_INTERNAL_ERROR,
				    err.message[0] ? err.message
				                   : locus_error_code_name(rc));
			locus_free(out);
			return;
		}
		result = mcp_tool_result(s, c->tool, c->args, out ? out : "",
		                         is_error);
		locus_free(out);
	}
	if (locus_call_cancelled(&c->ctl))
		cJSON_Delete(result);
	else
		mcp_send_result(s, c->id, result);
}

/* A root from roots/list to move to, taken in call order. */
static void maybe_reroot(mcp_server *s)
{
	pthread_mutex_lock(&s->calls_lock);
	char *root = s->new_root;
	s->new_root = NULL;
	pthread_mutex_unlock(&s->calls_lock);
	if (!root)
		return;
	char *why = NULL;
	if (mcp_workspace_open(s, root, &why)) {
		fprintf(stderr, "locus mcp: the client's root %s: %s\n", root,
		        why ? why : "cannot open it");
	} else {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "jsonrpc", "2.0");
		cJSON_AddStringToObject(o, "method",
		                        "notifications/tools/list_changed");
		mcp_send(s, o);
	}
	free(why);
	free(root);
}

/* Calls wait a bounded time for the client's roots (lock held). */
static void wait_roots(mcp_server *s)
{
	while (s->roots_pending && !s->aborting) {
		if (pthread_cond_timedwait(&s->calls_cond, &s->calls_lock,
		                           &s->roots_deadline) == ETIMEDOUT &&
		    s->roots_pending) {
			fprintf(stderr, "locus mcp: the client did not answer "
			                "roots/list in time: keeping the "
			                "workspace\n");
			s->roots_pending = false;
		}
	}
}

static void *worker(void *p)
{
	mcp_server *s = p;
	pthread_mutex_lock(&s->calls_lock);
	for (;;) {
		while (!s->head && !s->eof && !s->new_root)
			pthread_cond_wait(&s->calls_cond, &s->calls_lock);
		if (s->head)
			wait_roots(s);
		if (s->new_root) {
			pthread_mutex_unlock(&s->calls_lock);
			maybe_reroot(s);
			pthread_mutex_lock(&s->calls_lock);
			continue;
		}
		if (!s->head)
			break; /* eof and drained */
		mcp_call *c = s->head;
		s->head = c->next;
		if (!s->head)
			s->tail = NULL;
		s->running = c;
		pthread_mutex_unlock(&s->calls_lock);
		if (!locus_call_cancelled(&c->ctl))
			run_call(s, c);
		pthread_mutex_lock(&s->calls_lock);
		s->running = NULL;
		s->inflight--;
		call_free(c);
	}
	s->worker_done = true;
	pthread_mutex_unlock(&s->calls_lock);
	return NULL;
}

int mcp_calls_start(mcp_server *s)
{
	/* the worker takes no signals: SIGTERM must reach the reader */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&s->worker, NULL, worker, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	s->worker_started = rc == 0;
	return rc ? -1 : 0;
}

/* The raw text of params._meta.progressToken, or NULL. */
static char *progress_token(const char *line, size_t n)
{
	const char *p, *m, *t;
	size_t pl, ml, tl;
	if (mcp_raw_member(line, n, "params", &p, &pl) ||
	    mcp_raw_member(p, pl, "_meta", &m, &ml) ||
	    mcp_raw_member(m, ml, "progressToken", &t, &tl) || !tl ||
	    !(t[0] == '"' || t[0] == '-' || (t[0] >= '0' && t[0] <= '9')))
		return NULL;
	if (t[0] != '"' || tl > 4096)
		return tl > 4096 ? NULL : dup_n(t, tl);
	/* a string token goes back as clean UTF-8, re-encoded */
	char *raw = dup_n(t, tl);
	/* one string member of a message mcp_rpc.c already read strictly */
	cJSON *j = raw ? cJSON_Parse(raw) : NULL;
	free(raw);
	char *id = cJSON_IsString(j) ? mcp_id_text(NULL, 0, j) : NULL;
	cJSON_Delete(j);
	return id;
}

void mcp_calls_submit(mcp_server *s, const char *id, const char *line, size_t n,
                      const cJSON *params)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
	const cJSON *args =
	    cJSON_GetObjectItemCaseSensitive(params, "arguments");
	mcp_call *c = calloc(1, sizeof *c);
	if (c) {
		locus_call_ctl init = LOCUS_CALL_CTL_INIT;
		c->ctl = init;
		c->ctl.progress = on_progress;
		c->ctl.payload = c;
		c->s = s;
		c->id = strdup(id);
		c->key = mcp_id_key(id);
		c->tool = strdup(name->valuestring);
		c->args = cJSON_IsObject(args) ? cJSON_PrintUnformatted(args)
		                               : strdup("{}");
		c->progress = progress_token(line, n);
	}
	if (!c || !c->id || !c->key || !c->tool || !c->args) {
		call_free(c);
		mcp_send_error(s, id, RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	pthread_mutex_lock(&s->calls_lock);
	/* an id names one call while it is in flight: a cancel must know
	   which; compared by value, as cancels are */
	bool dup = s->running && !strcmp(s->running->key, c->key);
	for (const mcp_call *q = s->head; q && !dup; q = q->next)
		dup = !strcmp(q->key, c->key);
	if (dup) {
		pthread_mutex_unlock(&s->calls_lock);
		mcp_send_error(s, id, RPC_INVALID_REQUEST,
		               "Invalid Request: a call with this id is "
		               "already in flight; use a new id for each "
		               "request");
		call_free(c);
		return;
	}
	if (s->inflight >= s->opt.max_calls) {
		pthread_mutex_unlock(&s->calls_lock);
		char why[160];
		snprintf(why, sizeof why,
		         "server busy: %zu tool calls are already queued or "
		         "running (--max-calls); try again when one is done",
		         s->opt.max_calls);
		mcp_send_error(s, id, RPC_SERVER_BUSY, why);
		call_free(c);
		return;
	}
	s->inflight++;
	if (s->tail)
		s->tail->next = c;
	else
		s->head = c;
	s->tail = c;
	pthread_cond_broadcast(&s->calls_cond);
	pthread_mutex_unlock(&s->calls_lock);
}

void mcp_calls_cancel(mcp_server *s, const char *line, size_t n)
{
	const char *p, *r;
	size_t pl, rl;
	if (mcp_raw_member(line, n, "params", &p, &pl) ||
	    mcp_raw_member(p, pl, "requestId", &r, &rl) || !rl)
		return;
	char *raw = dup_n(r, rl);
	char *key = raw ? mcp_id_key(raw) : NULL;
	free(raw);
	if (!key)
		return;
	pthread_mutex_lock(&s->calls_lock);
	for (mcp_call **pp = &s->head; *pp; pp = &(*pp)->next) {
		mcp_call *c = *pp;
		if (strcmp(c->key, key))
			continue;
		/* not started: it never will */
		*pp = c->next;
		if (s->tail == c) {
			s->tail = NULL;
			for (mcp_call *t = s->head; t; t = t->next)
				s->tail = t;
		}
		s->inflight--;
		call_free(c);
		break;
	}
	if (s->running && !strcmp(s->running->key, key))
		locus_call_cancel(&s->running->ctl);
	pthread_mutex_unlock(&s->calls_lock);
	free(key);
}

void mcp_calls_stop(mcp_server *s, bool abort)
{
	pthread_mutex_lock(&s->calls_lock);
	s->eof = true;
	if (abort) {
		s->aborting = true;
		while (s->head) {
			mcp_call *c = s->head;
			s->head = c->next;
			s->inflight--;
			call_free(c);
		}
		s->tail = NULL;
		if (s->running)
			locus_call_cancel(&s->running->ctl);
		free(s->new_root);
		s->new_root = NULL;
	}
	pthread_cond_broadcast(&s->calls_cond);
	pthread_mutex_unlock(&s->calls_lock);
}

void mcp_calls_join(mcp_server *s, const volatile sig_atomic_t *term)
{
	if (!s->worker_started)
		return;
	bool aborted = false;
	for (;;) {
		pthread_mutex_lock(&s->calls_lock);
		bool done = s->worker_done;
		pthread_mutex_unlock(&s->calls_lock);
		if (done)
			break;
		if (!aborted &&
		    ((term && *term) || atomic_load(&s->out_broken))) {
			/* SIGTERM, or the client dropped, while draining:
			   stop now */
			mcp_calls_stop(s, true);
			aborted = true;
		}
		struct timespec nap = {0, 20 * 1000 * 1000};
		nanosleep(&nap, NULL);
	}
	pthread_join(s->worker, NULL);
	s->worker_started = false;
}
