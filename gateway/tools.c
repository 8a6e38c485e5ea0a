/*
 * gateway/tools.c - the tools this gateway performs itself (`runs:
 * gateway` in the manifest, `POST /internal/v1/runs/{id}/tools/{name}`):
 * what a box must not do on its own.  The tools are a table:
 *
 *   web_fetch {url}: a GET of an http(s) URL, made by the gateway; the
 *   answer is {"content": "HTTP <status>\n\n<body>"} (the body UTF-8, at
 *   most 256 KiB; no redirect followed, no credential or cookie sent,
 *   20 s at most).  Decided as Claude's WebFetch {url}.
 *
 *   web_search {query}: the gateway asks the search service it was given
 *   (serve --web-search-url URL: a SearXNG-compatible JSON API, GET
 *   URL?q=QUERY&format=json answering {"results": [{title, url,
 *   content}]}); the answer is the first ten results as text.  Decided
 *   as Claude's WebSearch {query}.  Without a search service it answers
 *   {"error"} and asks nothing.
 *
 * Each call is admitted first, here, by the run's policy (the same
 * engine as `POST /v1/admit`, as the Claude tool of the table, so its
 * permission rules apply) and the decision is an
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
#include "net/oci.h"
#include "runner/json.h"
#include "runner/runner.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/utf8.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define FETCH_MAX_BODY (256u << 10)
#define SEARCH_MAX_QUERY 1000
#define SEARCH_RESULTS 10

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

/* The GET, into *content or *error (malloc'd); what names the tool in an
   error. */
static void get(const char *what, const char *url, char **content, char **error,
                long *status)
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
		*error = lr_strf("%s: %s", what, err.message);
		return;
	}
	lhttp_request req = {
	    .method = "GET", .url = url, .retry = LHTTP_RETRY_NONE};
	lhttp_response resp = {0};
	if (lhttp_perform(c, &req, &resp, &err))
		*error = lr_strf("%s: %s", what, err.message);
	else if (resp.body_len > FETCH_MAX_BODY ||
	         (resp.body && (memchr(resp.body, 0, resp.body_len) ||
	                        !lu_utf8_valid(resp.body, resp.body_len))))
		*error = lr_strf("%s: the body is not UTF-8 text of at "
		                 "most %u bytes",
		                 what, FETCH_MAX_BODY);
	else {
		*status = resp.status;
		*content = lr_strf("HTTP %ld\n\n%s", resp.status,
		                   resp.body ? resp.body : "");
	}
	lhttp_response_clear(&resp);
	lhttp_client_free(c);
}

/* ---- the tools ---- */

static bool fetch_args(const cJSON *args)
{
	const char *url = lr_json_str(args, "url", NULL);
	return url && args->child && !args->child->next &&
	       (!strncmp(url, "http://", 7) || !strncmp(url, "https://", 8));
}

static void fetch(const gw_server *s, const cJSON *args, char **content,
                  char **error, long *status)
{
	(void)s;
	get("web_fetch", lr_json_str(args, "url", NULL), content, error,
	    status);
}

static bool search_args(const cJSON *args)
{
	const char *q = lr_json_str(args, "query", NULL);
	return q && *q && strlen(q) <= SEARCH_MAX_QUERY && args->child &&
	       !args->child->next;
}

/* The search service's answer as text: its first results, numbered. */
static char *search_text(const char *body, char **error)
{
	cJSON *j = NULL;
	locus_error err;
	const char *bad = NULL;
	const cJSON *results = NULL;
	if (!lr_json_parse(body, strlen(body), &j, &err))
		results = lr_json_arr(j, "results", &bad);
	if (!results || bad) {
		cJSON_Delete(j);
		*error = lr_strf("web_search: the search service answered "
		                 "no JSON object with a results array");
		return NULL;
	}
	lu_buf b = {0};
	int n = 0;
	for (const cJSON *r = results->child; r && n < SEARCH_RESULTS;
	     r = r->next) {
		const char *title = lr_json_str(r, "title", NULL);
		const char *url = lr_json_str(r, "url", NULL);
		const char *text = lr_json_str(r, "content", NULL);
		if (!url)
			continue; /* a result without a URL is no result */
		lu_buf_printf(&b, "%s%d. %s\n   %s\n", n ? "\n" : "", n + 1,
		              title ? title : "", url);
		if (text && *text)
			lu_buf_printf(&b, "   %s\n", text);
		n++;
	}
	if (!n)
		lu_buf_puts(&b, "no results\n");
	cJSON_Delete(j);
	char *out = lu_buf_take(&b);
	if (!out)
		*error = lr_strf("web_search: out of memory");
	return out;
}

static void search(const gw_server *s, const cJSON *args, char **content,
                   char **error, long *status)
{
	*content = *error = NULL;
	char *q = loci_pct_encode(lr_json_str(args, "query", NULL), false);
	const char *base = s->cfg.web_search_url;
	char *url = q ? lr_strf("%s%sq=%s&format=json", base,
	                        strchr(base, '?') ? "&" : "?", q)
	              : NULL;
	char *body = NULL;
	if (url)
		get("web_search", url, &body, error, status);
	else
		*error = lr_strf("web_search: out of memory");
	if (body && *status != 200) {
		*error = lr_strf("web_search: the search service answered "
		                 "HTTP %ld",
		                 *status);
	} else if (body) {
		/* get() wrote "HTTP <status>\n\n" before the body */
		const char *json = strstr(body, "\n\n");
		*content = search_text(json ? json + 2 : "", error);
	}
	free(body);
	free(url);
	free(q);
}

typedef struct gw_tool {
	const char *name;  /* in the manifest, `runs: gateway` */
	const char *as;    /* the Claude tool it is decided as */
	const char *usage; /* the answer to arguments of another shape */
	bool (*args_ok)(const cJSON *args);
	void (*perform)(const gw_server *s, const cJSON *args, char **content,
	                char **error, long *status);
	size_t config; /* offsetof a gw_config string it needs, or 0 */
	const char *unconfigured;
} gw_tool;

/* clang-format off */
static const gw_tool tools[] = {
    {"web_fetch", "WebFetch",
     "web_fetch takes exactly {\"url\": \"http(s)://...\"}", fetch_args,
     fetch, 0, NULL},
    {"web_search", "WebSearch",
     "web_search takes exactly {\"query\": \"...\"} (1 to 1000 bytes)",
     search_args, search, offsetof(gw_config, web_search_url),
     "web_search: this gateway has no search service (serve "
     "--web-search-url)"},
};
/* clang-format on */

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
	const gw_tool *t = NULL;
	for (size_t i = 0; i < sizeof tools / sizeof *tools; i++)
		if (!strcmp(name, tools[i].name))
			t = &tools[i];
	const char *why =
	    !t ? NULL
	    : t->config && !*(const char *const *)((const char *)&q->srv->cfg +
	                                           t->config)
	        ? t->unconfigured
	    : !t->args_ok(args) ? t->usage
	                        : NULL;
	if (!t) {
		cJSON_Delete(b);
		char msg[200];
		snprintf(msg, sizeof msg,
		         "this gateway performs no tool named %.60s (it "
		         "performs web_fetch and web_search)",
		         name);
		answer(r, "error", msg);
		return;
	}
	if (why) {
		cJSON_Delete(b);
		answer(r, "error", why);
		return;
	}
	/* admitted as the Claude tool: its rules apply */
	cJSON *o = cJSON_CreateObject();
	locus_error err;
	int rc = gw_admit_gateway_tool(&q->srv->db, q->run_id, call_id, t->as,
	                               args, o, &err);
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
		          "approval: nothing was fetched or asked)"
		        : "");
		answer(r, "error", msg);
		free(msg);
	} else {
		char *content = NULL, *error = NULL;
		long status = 0;
		t->perform(q->srv, args, &content, &error, &status);
		record(q, call_id, name, status, content ? strlen(content) : 0,
		       error);
		answer(r, error ? "error" : "content", error ? error : content);
		free(content);
		free(error);
	}
	cJSON_Delete(o);
	cJSON_Delete(b);
}
