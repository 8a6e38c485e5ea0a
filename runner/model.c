/*
 * runner/model.c - the agent's model: an OpenAI-compatible chat
 * completions endpoint (`model.base_url` + "/chat/completions", the key
 * read from the variable `model.api_key_env` names: a placeholder the
 * sandbox's proxy swaps for the real key, so the runner never holds one).
 * Streamed as SSE: content deltas become `token` events as they arrive,
 * tool-call deltas are put together by their index; a plain JSON answer is
 * read too.  Anything malformed fails the turn: no tool call of a turn
 * that was not read whole ever runs.
 */
#include "runner/runner.h"

#include "util/error.h"
#include "net/sse.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LR_MAX_TOOL_CALLS 128
#define LR_MAX_MODEL_BODY (16u << 20)
#define LR_MAX_SSE_LINE (4u << 20) /* one SSE line or event's data */

typedef struct slot {
	lu_buf id, name, args;
	bool used;
} slot;

typedef struct sse {
	lr_run *r;
	lsse dec;        /* the SSE decoder (net/sse.h) */
	lu_buf whole;    /* mode 2: the one JSON body */
	size_t streamed; /* bytes of an SSE stream so far */
	char why[200];   /* what fail() said */
	int mode;        /* 0 unknown, 1 SSE, 2 one JSON body */
	bool done;
	lu_buf content, reasoning;
	slot calls[LR_MAX_TOOL_CALLS];
	long prompt_tokens, completion_tokens;
	double cost;
	bool has_cost;
	locus_error *err;
	int rc;
} sse;

static int fail(sse *s, const char *why)
{
	if (!s->rc) {
		s->rc = lu_err(s->err, LOCUS_EINVALID, "the model's answer: %s",
		               why);
		/* kept: the transfer's own error replaces err's */
		snprintf(s->why, sizeof s->why, "%s", why);
	}
	return s->rc;
}

static void emit_token(lr_run *r, const char *text)
{
	cJSON *e = cJSON_CreateObject();
	if (!e)
		return;
	cJSON_AddStringToObject(e, "type", "token");
	cJSON_AddStringToObject(e, "text", text);
	lr_events_emit(&r->ev, e);
}

static int take_usage(sse *s, const cJSON *u)
{
	if (!u)
		return 0;
	const char *b = NULL;
	double v;
	lr_json_count(u, "prompt_tokens", &s->prompt_tokens, &b);
	lr_json_count(u, "completion_tokens", &s->completion_tokens, &b);
	if (lr_json_num(u, "cost", &v, &b)) {
		s->cost = v;
		s->has_cost = true;
	}
	if (b || s->prompt_tokens < 0 || s->completion_tokens < 0 ||
	    s->cost < 0)
		return fail(s,
		            "usage holds a mistyped, negative or out-of-range "
		            "count");
	return 0;
}

/* One tool-call delta; `pos` is its place in a whole message (mode 2,
   where calls carry no index). */
static int take_call_delta(sse *s, const cJSON *tc, long pos)
{
	const char *b = NULL;
	double idx = (double)pos;
	if (!cJSON_IsObject(tc))
		return fail(s, "a tool call is not an object");
	if (!lr_json_num(tc, "index", &idx, &b) && s->mode == 1)
		return fail(s, "a tool-call delta has no index");
	if (b || idx < 0 || idx >= LR_MAX_TOOL_CALLS || idx != (long)idx)
		return fail(s, "a tool-call index is out of range");
	slot *sl = &s->calls[(long)idx];
	const char *id = lr_json_str(tc, "id", &b);
	const char *type = lr_json_str(tc, "type", &b);
	const cJSON *fn = lr_json_obj(tc, "function", &b);
	const char *name = fn ? lr_json_str(fn, "name", &b) : NULL;
	const char *args = fn ? lr_json_str(fn, "arguments", &b) : NULL;
	if (b)
		return fail(s, "a tool call has a mistyped field");
	if (type && strcmp(type, "function"))
		return fail(s, "a tool call is not of type function");
	sl->used = true;
	if (id)
		lu_buf_puts(&sl->id, id);
	if (name)
		lu_buf_puts(&sl->name, name);
	if (args)
		lu_buf_puts(&sl->args, args);
	return 0;
}

/* One chunk (SSE) or the whole answer (mode 2). */
static int take_object(sse *s, const cJSON *o)
{
	const char *b = NULL;
	if (!cJSON_IsObject(o))
		return fail(s, "a chunk is not a JSON object");
	if (cJSON_GetObjectItemCaseSensitive(o, "error"))
		return fail(s, "the model reported an error");
	const cJSON *choices = lr_json_arr(o, "choices", &b);
	const cJSON *usage = lr_json_obj(o, "usage", &b);
	if (b)
		return fail(s, "choices or usage is mistyped");
	if (take_usage(s, usage))
		return s->rc;
	for (const cJSON *c = choices ? choices->child : NULL; c; c = c->next) {
		double idx = 0;
		if (!cJSON_IsObject(c))
			return fail(s, "a choice is not an object");
		lr_json_num(c, "index", &idx, &b);
		if (idx != 0)
			continue; /* only the first choice is used */
		const cJSON *d =
		    lr_json_obj(c, s->mode == 1 ? "delta" : "message", &b);
		if (b)
			return fail(s, "a choice's delta is not an object");
		if (!d)
			continue;
		const char *text = lr_json_str(d, "content", &b);
		const char *think = lr_json_str(d, "reasoning_content", &b);
		if (!think)
			think = lr_json_str(d, "reasoning", &b);
		const cJSON *tcs = lr_json_arr(d, "tool_calls", &b);
		if (b)
			return fail(s, "a delta has a mistyped field");
		if (text && *text) {
			lu_buf_puts(&s->content, text);
			emit_token(s->r, text);
		}
		if (think)
			lu_buf_puts(&s->reasoning, think);
		long k = 0;
		for (const cJSON *tc = tcs ? tcs->child : NULL; tc;
		     tc = tc->next, k++) {
			if (take_call_delta(s, tc, k))
				return s->rc;
		}
	}
	return 0;
}

static int take_json(sse *s, const char *text, size_t len)
{
	cJSON *o = NULL;
	locus_error e2;
	if (lr_json_parse(text, len, &o, &e2)) {
		char why[300];
		snprintf(why, sizeof why, "%s", e2.message);
		return fail(s, why);
	}
	int rc = take_object(s, o);
	cJSON_Delete(o);
	return rc;
}

/* One SSE event's data (event:, id:, retry: are not used by chat
   completions; an event with empty data carries nothing). */
static int on_event(void *ctx, const char *data, size_t len)
{
	sse *s = ctx;
	if (!len)
		return 0;
	if (s->done)
		return fail(s, "data after [DONE]");
	if (len == 6 && !memcmp(data, "[DONE]", 6))
		s->done = true;
	else
		take_json(s, data, len);
	return s->rc;
}

static int on_body(void *ctx, const lhttp_response *resp, const char *data,
                   size_t len)
{
	sse *s = ctx;
	if (!s->mode)
		s->mode = lsse_is_stream(resp) ? 1 : 2;
	if (s->mode == 2) {
		if (s->whole.len + len > LR_MAX_MODEL_BODY)
			return fail(s, "longer than 16 MiB");
		lu_buf_add(&s->whole, data, len);
		return 0;
	}
	/* a stream counts against the same cap: an endless one fails the turn
	   instead of growing the turn's text and events without bound */
	if (len > LR_MAX_MODEL_BODY - s->streamed)
		return fail(s, "too large (a stream longer than 16 MiB)");
	s->streamed += len;
	int rc = lsse_feed(&s->dec, data, len);
	if (rc == LOCUS_ETOOBIG)
		return fail(s, "an SSE line or event longer than 4 MiB");
	if (rc == LOCUS_ENOMEM)
		return fail(s, "out of memory");
	return s->rc;
}

static cJSON *request_body(lr_run *r)
{
	cJSON *b = cJSON_CreateObject();
	if (!b)
		return NULL;
	cJSON_AddStringToObject(b, "model", r->m.model);
	cJSON_AddItemReferenceToObject(b, "messages", r->messages);
	if (cJSON_GetArraySize(r->tools_json) > 0)
		cJSON_AddItemReferenceToObject(b, "tools", r->tools_json);
	cJSON_AddTrueToObject(b, "stream");
	cJSON *so = cJSON_AddObjectToObject(b, "stream_options");
	if (so)
		cJSON_AddTrueToObject(so, "include_usage");
	return b;
}

/* The assembled turn into out. */
static int finish(sse *s, lr_turn *out)
{
	out->tool_calls = cJSON_CreateArray();
	if (!out->tool_calls)
		return lu_err(s->err, LOCUS_ENOMEM, "out of memory");
	for (size_t i = 0; i < LR_MAX_TOOL_CALLS; i++) {
		slot *sl = &s->calls[i];
		if (!sl->used)
			continue;
		if (!sl->id.len || !sl->name.len)
			return fail(s, "a tool call has no id or no name");
		cJSON *tc = cJSON_CreateObject(), *fn = cJSON_CreateObject();
		if (!tc || !fn) {
			cJSON_Delete(tc);
			cJSON_Delete(fn);
			return lu_err(s->err, LOCUS_ENOMEM, "out of memory");
		}
		cJSON_AddStringToObject(tc, "id", sl->id.d);
		cJSON_AddStringToObject(tc, "type", "function");
		cJSON_AddStringToObject(fn, "name", sl->name.d);
		cJSON_AddStringToObject(fn, "arguments",
		                        sl->args.len ? sl->args.d : "{}");
		cJSON_AddItemToObject(tc, "function", fn);
		cJSON_AddItemToArray(out->tool_calls, tc);
	}
	out->content = s->content.len ? lu_buf_take(&s->content) : NULL;
	out->reasoning = s->reasoning.len ? lu_buf_take(&s->reasoning) : NULL;
	out->prompt_tokens = s->prompt_tokens;
	out->completion_tokens = s->completion_tokens;
	out->cost_usd = s->cost;
	out->has_cost = s->has_cost;
	return 0;
}

static void sse_free(sse *s)
{
	lsse_free(&s->dec);
	lu_buf_free(&s->whole);
	lu_buf_free(&s->content);
	lu_buf_free(&s->reasoning);
	for (size_t i = 0; i < LR_MAX_TOOL_CALLS; i++) {
		lu_buf_free(&s->calls[i].id);
		lu_buf_free(&s->calls[i].name);
		lu_buf_free(&s->calls[i].args);
	}
}

void lr_turn_clear(lr_turn *t)
{
	free(t->content);
	free(t->reasoning);
	cJSON_Delete(t->tool_calls);
	memset(t, 0, sizeof *t);
}

int lr_model_call(lr_run *r, lr_turn *out, locus_error *err)
{
	memset(out, 0, sizeof *out);
	const char *key = lr_secrets_get(&r->secrets, r->m.model_key_env);
	if (!key)
		return lu_err(err, LOCUS_EINVALID,
		              "the model's key variable "
		              "is not set");
	cJSON *body = request_body(r);
	char *text = body ? lr_json_canonical(body) : NULL;
	cJSON_Delete(body);
	size_t bl = strlen(r->m.model_base_url), al = strlen(key) + 8;
	char *url = malloc(bl + 20), *auth = malloc(al);
	lhttp_headers h = {0};
	int rc = text && url && auth ? 0 : LOCUS_ENOMEM;
	if (!rc) {
		while (bl && r->m.model_base_url[bl - 1] == '/')
			bl--;
		snprintf(url, bl + 20, "%.*s/chat/completions", (int)bl,
		         r->m.model_base_url);
		snprintf(auth, al, "Bearer %s", key);
		rc =
		    lhttp_headers_add(&h, "Authorization", auth) ||
		    lhttp_headers_add(&h, "Content-Type", "application/json") ||
		    lhttp_headers_add(&h, "Accept", "text/event-stream");
	}
	sse s = {.r = r, .err = err};
	lsse_init(&s.dec, LR_MAX_SSE_LINE, on_event, &s);
	if (!rc) {
		double left = lr_run_left(r);
		long tmo = left < 600 ? (long)(left * 1000) + 1 : 600000;
		lhttp_request req = {.method = "POST",
		                     .url = url,
		                     .headers = &h,
		                     .body = text,
		                     .body_len = strlen(text),
		                     .has_body = true,
		                     .retry = LHTTP_RETRY_UNSENT,
		                     .timeout_ms = tmo,
		                     .idle_timeout_ms = 120000,
		                     .on_body = on_body,
		                     .ctx = &s};
		lhttp_response resp = {0};
		rc = lhttp_perform(r->model_http, &req, &resp, err);
		if (rc && s.rc)
			rc = lu_err(err, s.rc, "the model's answer: %s", s.why);
		else if (!rc && (resp.status < 200 || resp.status >= 300))
			rc = lu_err(err, LOCUS_EIO, "the model answered %ld",
			            resp.status);
		else if (!rc && s.mode == 2)
			rc = take_json(&s, s.whole.d ? s.whole.d : "",
			               s.whole.len);
		else if (!rc && s.mode == 1 && !s.done)
			rc = fail(&s, "the stream ended without [DONE]");
		else if (!rc && !s.mode)
			rc = fail(&s, "an empty answer");
		lhttp_response_clear(&resp);
	} else
		lu_err(err, LOCUS_ENOMEM, "out of memory");
	for (size_t i = 0; i < h.n; i++)
		explicit_bzero(h.v[i].value, strlen(h.v[i].value));
	lhttp_headers_clear(&h);
	if (auth)
		explicit_bzero(auth, strlen(auth));
	free(auth);
	free(url);
	free(text);
	if (!rc)
		rc = finish(&s, out);
	sse_free(&s);
	if (rc)
		lr_turn_clear(out);
	return rc;
}
