/*
 * gateway/tools.c - the tools this gateway performs itself (`runs:
 * gateway` in the manifest, `POST /internal/v1/runs/{id}/tools/{name}`):
 * what a box must not do on its own.  One so far:
 *
 *   web_fetch {url}: a GET of an http(s) URL, made by the gateway; the
 *   answer is {"content": "HTTP <status>\n\n<body>"} (the body UTF-8, at
 *   most 256 KiB; no redirect followed, no credential or cookie sent,
 *   20 s at most).
 *
 * Each call is admitted first, here, by the run's policy (the same
 * engine as `POST /v1/admit`; web_fetch is decided as Claude's WebFetch
 * {url}, so WebFetch(domain:...) rules apply) and the decision is an
 * `admission` audit record; only an allow is performed, and what it did
 * is a `tool.gateway` record.  A hold is not waited on (a gateway tool
 * has no park): the model is told the call needs a person's approval and
 * nothing is fetched.  A tool the manifest does not list with `runs:
 * gateway` is refused (404); a listed name this gateway does not know
 * answers {"error"} (docs/gateway.md).
 */
#include "gateway/gw.h"

#include <stdio.h>

#include "net/http.h"
#include "runner/json.h"
#include "runner/runner.h"
#include "util/error.h"
#include "util/utf8.h"

#include <stdlib.h>
#include <string.h>

#define FETCH_MAX_BODY (256u << 10)

/* Is name a `runs: gateway` tool of the run's manifest? */
static bool listed(gw_db *db, const char *run_id, const char *name)
{
	locus_error err;
	gw_db_lock(db);
	gw_stmt *st =
	    gw_q(db, &err, "SELECT manifest FROM runs WHERE run_id = ?", "s",
	         run_id);
	char *man = st && gw_row(st) ? gw_col_dup(st, 0) : NULL;
	gw_done(st);
	gw_db_unlock(db);
	cJSON *m = NULL;
	bool found = false;
	if (man && !lr_json_parse(man, strlen(man), &m, &err)) {
		const cJSON *tools = lr_json_arr(m, "tools", NULL);
		for (const cJSON *t = tools ? tools->child : NULL; t;
		     t = t->next) {
			const char *n = lr_json_str(t, "name", NULL);
			const char *runs = lr_json_str(t, "runs", NULL);
			if (n && runs && !strcmp(n, name) &&
			    !strcmp(runs, "gateway"))
				found = true;
		}
	}
	cJSON_Delete(m);
	free(man);
	return found;
}

/* The GET, into *content or *error (malloc'd). */
static void fetch(const char *url, char **content, char **error, long *status)
{
	*content = *error = NULL;
	*status = 0;
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.timeout_ms = 20000;
	o.connect_timeout_ms = 5000;
	o.max_attempts = 1;
	o.max_body = FETCH_MAX_BODY;
	lhttp_client *c = NULL;
	locus_error err;
	if (lhttp_client_new(&c, &o, &err)) {
		*error = lr_strf("web_fetch: %s", err.message);
		return;
	}
	lhttp_request req = {
	    .method = "GET", .url = url, .retry = LHTTP_RETRY_NONE};
	lhttp_response resp = {0};
	if (lhttp_perform(c, &req, &resp, &err))
		*error = lr_strf("web_fetch: %s", err.message);
	else if (resp.body_len > FETCH_MAX_BODY ||
	         (resp.body && (memchr(resp.body, 0, resp.body_len) ||
	                        !lu_utf8_valid(resp.body, resp.body_len))))
		*error = lr_strf("web_fetch: the body is not UTF-8 text of at "
		                 "most %u bytes",
		                 FETCH_MAX_BODY);
	else {
		*status = resp.status;
		*content = lr_strf("HTTP %ld\n\n%s", resp.status,
		                   resp.body ? resp.body : "");
	}
	lhttp_response_clear(&resp);
	lhttp_client_free(c);
}

static void answer(gw_resp *r, const char *key, const char *text)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, key, text ? text : "out of memory");
	gw_reply(r, 200, o);
}

/* What a performed call did: a tool.gateway record (its own
   transaction: the fetch is made outside any). */
static void record(gw_req *q, const char *call_id, const char *tool,
                   long status, size_t bytes, const char *error)
{
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "call_id", call_id);
	cJSON_AddStringToObject(rec, "tool", tool);
	cJSON_AddNumberToObject(rec, "status", (double)status);
	cJSON_AddNumberToObject(rec, "bytes", (double)bytes);
	if (error)
		cJSON_AddStringToObject(rec, "error", error);
	locus_error err;
	if (!gw_tx_begin(&q->srv->db, &err)) {
		int rc = gw_audit(&q->srv->db, "tool.gateway", q->run_id, rec,
		                  NULL, &err);
		gw_tx_end(&q->srv->db, rc == 0, &err);
	}
	cJSON_Delete(rec);
}

void gw_tool_call(gw_req *q, gw_resp *r, const char *name)
{
	static const char *const req[] = {"call_id", "arguments", NULL};
	cJSON *b = gw_body(q, r, req, NULL);
	if (!b)
		return;
	const char *bad = NULL;
	const char *call_id = lr_json_str(b, "call_id", &bad);
	const cJSON *args = lr_json_obj(b, "arguments", &bad);
	if (bad || !call_id || !*call_id || !args) {
		cJSON_Delete(b);
		gw_refuse(q, r, 422,
		          "call_id is a string, arguments an object");
		return;
	}
	if (!listed(&q->srv->db, q->run_id, name)) {
		cJSON_Delete(b);
		gw_refuse(q, r, 404,
		          "the run's manifest has no gateway tool named %.60s",
		          name);
		return;
	}
	if (strcmp(name, "web_fetch")) {
		cJSON_Delete(b);
		char msg[200];
		snprintf(msg, sizeof msg,
		         "this gateway performs no tool named %.60s (it "
		         "performs web_fetch)",
		         name);
		answer(r, "error", msg);
		return;
	}
	const char *url = lr_json_str(args, "url", NULL);
	if (!url || !args->child || args->child->next ||
	    (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))) {
		cJSON_Delete(b);
		answer(r, "error",
		       "web_fetch takes exactly {\"url\": \"http(s)://...\"}");
		return;
	}
	/* admitted as Claude's WebFetch {url}: its rules apply */
	cJSON *o = cJSON_CreateObject();
	locus_error err;
	int rc = gw_admit_gateway_tool(&q->srv->db, q->run_id, call_id,
	                               "WebFetch", args, o, &err);
	const char *outcome = lr_json_str(o, "outcome", NULL);
	const char *reason = lr_json_str(o, "reason", NULL);
	gw_notify(q->srv);
	if (rc == LOCUS_ECONFLICT)
		gw_refuse(q, r, 409, "%s", err.message);
	else if (rc)
		gw_fail(r, 503, "the call could not be admitted");
	else if (!outcome || strcmp(outcome, "allow")) {
		char *msg = lr_strf(
		    "%s by the gateway's policy: %s%s",
		    outcome && !strcmp(outcome, "require_human") ? "held"
		                                                 : "denied",
		    reason ? reason : "",
		    outcome && !strcmp(outcome, "require_human")
		        ? " (a gateway tool does not wait for a person's "
		          "approval: nothing was fetched)"
		        : "");
		answer(r, "error", msg);
		free(msg);
	} else {
		char *content = NULL, *error = NULL;
		long status = 0;
		fetch(url, &content, &error, &status);
		record(q, call_id, name, status, content ? strlen(content) : 0,
		       error);
		answer(r, error ? "error" : "content", error ? error : content);
		free(content);
		free(error);
	}
	cJSON_Delete(o);
	cJSON_Delete(b);
}
