/*
 * agents/mcp_rpc.c - `locus mcp`: one JSON-RPC line in, its answer out.
 *
 * Methods: initialize, ping, tools/list (answered here, at once, whatever
 * the worker is running) and tools/call (checked here, queued for the
 * worker).  Notifications are never answered; notifications/cancelled,
 * notifications/initialized and notifications/roots/list_changed act.
 * Responses from the client answer our roots/list.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"
#include "../util/json.h"

/* Protocol versions we speak, newest first: a client's version from this
 * list is echoed, any other gets the newest. */
static const char *const mcp_versions[] = {
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
};

#define MCP_NVERSIONS (sizeof mcp_versions / sizeof mcp_versions[0])

static void do_initialize(mcp_server *s, const char *id, const cJSON *params)
{
	const cJSON *v =
	    cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
	const char *version = mcp_versions[0];
	for (size_t i = 0; cJSON_IsString(v) && i < MCP_NVERSIONS; i++)
		if (!strcmp(v->valuestring, mcp_versions[i]))
			version = mcp_versions[i];
	const cJSON *caps =
	    cJSON_GetObjectItemCaseSensitive(params, "capabilities");
	s->client_roots =
	    cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(caps, "roots"));
	cJSON *r = cJSON_CreateObject();
	if (!r) {
		mcp_send_result(s, id, NULL);
		return;
	}
	cJSON_AddStringToObject(r, "protocolVersion", version);
	cJSON *c = cJSON_AddObjectToObject(r, "capabilities");
	cJSON *tools = c ? cJSON_AddObjectToObject(c, "tools") : NULL;
	/* the list changes when the client's roots open a workspace */
	if (tools)
		cJSON_AddTrueToObject(tools, "listChanged");
	cJSON *info = cJSON_AddObjectToObject(r, "serverInfo");
	if (info) {
		cJSON_AddStringToObject(info, "name", "locus");
		cJSON_AddStringToObject(info, "title",
		                        "locus coding harness (policy-gated)");
		cJSON_AddStringToObject(info, "version", locus_version());
	}
	char *frag = NULL;
	if (s->harness)
		locus_harness_prompt_fragment(&frag, s->harness);
	else
		frag = strdup(s->no_workspace ? s->no_workspace : "");
	char *clean = frag ? mcp_utf8_clean(frag) : NULL;
	if (clean)
		cJSON_AddStringToObject(r, "instructions", clean);
	free(clean);
	locus_free(frag); /* free() for the strdup: the same allocator */
	s->initialized = true;
	mcp_send_result(s, id, r);
}

static bool tool_built(const locus_harness *h, const char *name)
{
	size_t n = h ? locus_harness_tool_count(h) : 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(locus_harness_tool_name(h, i), name))
			return true;
	return false;
}

/* A tool error the model sees (isError), for arguments that do not fit. */
static void arg_error(mcp_server *s, const char *id, const char *tool,
                      const char *why)
{
	char msg[600];
	snprintf(msg, sizeof msg, "invalid arguments for %.60s: %s", tool, why);
	mcp_send_result(s, id, mcp_error_result(msg));
}

static void do_tools_call(mcp_server *s, const char *id, const char *line,
                          size_t n, const cJSON *params)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
	const cJSON *args =
	    cJSON_GetObjectItemCaseSensitive(params, "arguments");
	if (!cJSON_IsString(name)) {
		mcp_send_error(s, id, RPC_INVALID_PARAMS,
		               "tools/call needs params.name (a string)");
		return;
	}
	/* the tool set is fixed at start (--tools), whatever the root */
	if (!tool_built(s->harness, name->valuestring) &&
	    !(s->no_workspace && !s->harness)) {
		char why[200];
		char *c = mcp_utf8_clean(name->valuestring);
		snprintf(why, sizeof why, "unknown tool: %.100s", c ? c : "?");
		free(c);
		mcp_send_error(s, id, RPC_INVALID_PARAMS, why);
		return;
	}
	if (args && !cJSON_IsObject(args) && !cJSON_IsNull(args)) {
		arg_error(s, id, name->valuestring,
		          "'arguments' must be an object");
		return;
	}
	const char *praw;
	size_t plen;
	if (mcp_raw_member(line, n, "params", &praw, &plen) == 0 &&
	    lu_json_has_nul_escape(praw, plen)) {
		/* cJSON would cut the string at the NUL: never run that */
		arg_error(s, id, name->valuestring,
		          "a string holds a NUL character (\\u0000), which "
		          "is not accepted");
		return;
	}
	char *why = s->harness && cJSON_IsObject(args)
	                ? mcp_check_args(locus_harness_tool_schema(
	                                     s->harness, name->valuestring),
	                                 args)
	                : NULL;
	if (why) {
		arg_error(s, id, name->valuestring, why);
		free(why);
		return;
	}
	mcp_calls_submit(s, id, line, n, params);
}

static void do_notification(mcp_server *s, const char *m, const char *line,
                            size_t n)
{
	if (!strcmp(m, "notifications/cancelled"))
		mcp_calls_cancel(s, line, n);
	else if (!strcmp(m, "notifications/initialized") ||
	         !strcmp(m, "notifications/roots/list_changed"))
		mcp_roots_request(s);
	/* anything else: ignored, never answered */
}

static void dispatch(mcp_server *s, const char *id, const char *m,
                     const char *line, size_t n, const cJSON *params)
{
	bool known = !strcmp(m, "initialize") || !strcmp(m, "ping") ||
	             !strcmp(m, "tools/list") || !strcmp(m, "tools/call");
	if (!known) {
		char why[200];
		char *c = mcp_utf8_clean(m);
		snprintf(why, sizeof why, "Method not found: %.100s",
		         c ? c : "?");
		free(c);
		mcp_send_error(s, id, RPC_METHOD_NOT_FOUND, why);
	} else if (params && !cJSON_IsObject(params) && !cJSON_IsNull(params)) {
		mcp_send_error(s, id, RPC_INVALID_PARAMS,
		               "Invalid params: params must be an object");
	} else if (!strcmp(m, "initialize")) {
		pthread_mutex_lock(&s->ws_lock);
		do_initialize(s, id, params);
		pthread_mutex_unlock(&s->ws_lock);
	} else if (!strcmp(m, "ping")) {
		mcp_send_result(s, id, cJSON_CreateObject());
	} else if (!s->initialized) {
		/* the spec: nothing but pings before initialize */
		mcp_send_error(s, id, RPC_INVALID_REQUEST,
		               "Invalid Request: the server is not initialized "
		               "(send initialize first)");
	} else {
		/* the worker may swap the workspace (roots): hold it still */
		pthread_mutex_lock(&s->ws_lock);
		if (!strcmp(m, "tools/list"))
			mcp_send_result(s, id, mcp_tools_list(s));
		else
			do_tools_call(s, id, line, n, params);
		pthread_mutex_unlock(&s->ws_lock);
	}
}

/* The line as one JSON value, or NULL (not JSON, trailing bytes, NUL,
   invalid UTF-8).  Duplicate keys are kept: handle_message answers them
   as an Invalid Request that carries the id; so is "\u0000", which the
   gate refuses in a tool error. */
static cJSON *parse_line(const char *line, size_t n)
{
	lu_json_opts o = LU_JSON_OPTS_INIT;
	o.duplicates = true;
	o.escaped_nul = true; /* the gate refuses it, as a tool error */
	cJSON *msg = NULL;
	lu_json_read(&msg, line, n, &o, NULL);
	return msg;
}

static void handle_message(mcp_server *s, cJSON *msg, const char *line,
                           size_t n)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
	bool id_ok = cJSON_IsString(id) ||
	             (cJSON_IsNumber(id) && isfinite(id->valuedouble));
	/* duplicate keys anywhere: no reader can say which value is meant
	  ; a request is answered below, a notification
	   or a response is never acted on */
	bool dup = lu_json_duplicate(msg, NULL) != NULL;
	if (dup && !id)
		return;
	if (!id && cJSON_IsString(method)) {
		/* a notification: never answered, whatever it is */
		do_notification(s, method->valuestring, line, n);
		return;
	}
	if (!id && method)
		return;
	if (!method && (cJSON_GetObjectItemCaseSensitive(msg, "result") ||
	                cJSON_GetObjectItemCaseSensitive(msg, "error"))) {
		/* a response: ours are to roots/list; others are ignored */
		if (id_ok && !dup)
			mcp_roots_response(s, msg);
		return;
	}
	/* duplicate keys are refused; with two ids, which is meant? */
	size_t ids = 0;
	for (const cJSON *c = msg->child; c; c = c->next)
		ids += c->string && !strcmp(c->string, "id");
	char *idt = id_ok && ids == 1 ? mcp_id_text(line, n, id) : NULL;
	if (!id_ok || dup || !cJSON_IsString(ver) ||
	    strcmp(ver->valuestring, "2.0") || !cJSON_IsString(method)) {
		mcp_send_error(
		    s, idt, RPC_INVALID_REQUEST,
		    "Invalid Request: expected {\"jsonrpc\":\"2.0\", "
		    "\"id\": string or number, \"method\": string}");
	} else if (!idt) {
		mcp_send_error(s, NULL, RPC_INTERNAL_ERROR, "out of memory");
	} else {
		dispatch(s, idt, method->valuestring, line, n, params);
	}
	free(idt);
}

void mcp_handle_line(mcp_server *s, const char *line, size_t n)
{
	/* blank lines carry no message */
	size_t k = 0;
	while (k < n && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r'))
		k++;
	if (k == n)
		return;
	cJSON *msg = parse_line(line, n);
	if (!msg) {
		mcp_send_error(s, NULL, RPC_PARSE_ERROR,
		               "Parse error: the line is not one JSON value");
		return;
	}
	if (cJSON_IsArray(msg))
		/* batching was removed from MCP in 2025-06-18 */
		mcp_send_error(s, NULL, RPC_INVALID_REQUEST,
		               "Invalid Request: batches are not supported");
	else if (!cJSON_IsObject(msg))
		mcp_send_error(s, NULL, RPC_INVALID_REQUEST,
		               "Invalid Request: a message is a JSON object");
	else
		handle_message(s, msg, line, n);
	cJSON_Delete(msg);
}
