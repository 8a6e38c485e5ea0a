/*
 * runner/remote.c - the tools whose bodies run outside the box runner:
 * `gateway` (performed by the gateway: POST .../tools/{name}, not admitted
 * by the runner), `mcp:<id>` (tools/call on a mounted MCP server over
 * streamable HTTP) and `api:<id>` (one operation of an API connector).
 * MCP and API calls carry the admission's one-shot decision token in
 * `x-locus-decision`; without one the request is not made.  Credentials
 * are placeholders named by the manifest (the sandbox's proxy swaps them
 * for the real ones on the right host).
 */
#include "runner/runner.h"

#include "net/sse.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

#define LR_DECISION_HEADER "x-locus-decision"
#define LR_MCP_VERSION "2025-06-18"

/* Percent-encode everything but A-Z a-z 0-9 _ . - ~ (space as plus when
   `plus`: the query's form encoding). */
static void quote(lu_buf *b, const char *s, bool plus)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		    c == '-' || c == '~')
			lu_buf_add(b, (const char *)&c, 1);
		else if (c == ' ' && plus)
			lu_buf_puts(b, "+");
		else
			lu_buf_printf(b, "%%%02X", c);
	}
}

/* How an argument is written into a path or a query: a string as is,
   anything else as canonical JSON. */
static char *scalar(const cJSON *v)
{
	return cJSON_IsString(v) ? strdup(v->valuestring)
	                         : lr_json_canonical(v);
}

char *lr_remote_gateway(lr_run *r, const lr_tool *t, const char *call_id,
                        const cJSON *args, bool *is_error)
{
	lu_buf tail = {0};
	lu_buf_puts(&tail, "tools/");
	quote(&tail, t->name, false);
	char *path = lu_buf_take(&tail);
	cJSON *body = path ? cJSON_CreateObject() : NULL;
	if (!body) {
		free(path);
		return NULL;
	}
	cJSON_AddStringToObject(body, "call_id", call_id);
	cJSON_AddItemToObject(body, "arguments", cJSON_Duplicate(args, 1));
	cJSON *ans = NULL;
	locus_error err;
	int rc = lr_gw_run_request(&r->gw, "POST", path, body,
	                           LHTTP_RETRY_UNSENT, &ans, &err);
	free(path);
	cJSON_Delete(body);
	static const char *const fields[] = {"content", "error", NULL};
	char *out = NULL;
	*is_error = true;
	if (rc)
		out = lr_strf("the gateway could not perform %s: %s", t->name,
		              rc == LOCUS_EIO ? "it is unavailable"
		                              : err.message);
	else if (!ans || lr_json_known(ans, fields, "the tool's answer", &err))
		out = lr_strf("the gateway's answer for %s is malformed%s",
		              t->name, "");
	else {
		const cJSON *e = cJSON_GetObjectItem(ans, "error");
		const cJSON *c = cJSON_GetObjectItem(ans, "content");
		if (e && !cJSON_IsNull(e) && !cJSON_IsFalse(e)) {
			char *et = scalar(e);
			out = lr_strf("%s failed: %s", t->name, et ? et : "");
			free(et);
		} else {
			*is_error = false;
			out = c && !cJSON_IsNull(c) ? scalar(c) : strdup("");
		}
	}
	cJSON_Delete(ans);
	return out;
}

/* ---- MCP over streamable HTTP ---- */

/* One SSE event's data is one JSON-RPC message (docs/runner.md, decision
   20): an event whose data is empty or blank carries none (a
   keep-alive, or the event id MCP lets a server send first so that a
   client can resume) and is passed over; any other data that is not a
   JSON object stops the answer with LOCUS_EINVALID: a server that sends
   it is broken or lying, and the runner does not guess which of its
   events to believe. */
static int take_mcp_event(void *ctx, const char *data, size_t len)
{
	size_t blank = 0;
	while (blank < len && (data[blank] == ' ' || data[blank] == '\t' ||
	                       data[blank] == '\r' || data[blank] == '\n'))
		blank++;
	if (blank == len)
		return 0;
	cJSON *m = NULL;
	locus_error e;
	if (lr_json_parse(data, len, &m, &e) || !cJSON_IsObject(m)) {
		cJSON_Delete(m);
		return LOCUS_EINVALID;
	}
	cJSON_AddItemToArray(ctx, m);
	return 0;
}

/* The JSON-RPC messages of an answer (one JSON body, or SSE events; a
   half event at the end of the body is dropped, as SSE says); NULL with
   *rc set when the answer cannot be read (LOCUS_EINVALID: an event that
   is not a message; LOCUS_ENOMEM). */
static cJSON *mcp_messages(const lhttp_response *resp, int *rc)
{
	*rc = LOCUS_EINVALID;
	cJSON *list = cJSON_CreateArray();
	if (!list) {
		*rc = LOCUS_ENOMEM;
		return NULL;
	}
	if (!resp->body)
		return list;
	if (lsse_is_stream(resp)) {
		lsse dec;
		lsse_init(&dec, resp->body_len, take_mcp_event, list);
		int frc = lsse_feed(&dec, resp->body, resp->body_len);
		lsse_free(&dec);
		if (frc) { /* a line cannot outgrow the body: no ETOOBIG */
			*rc = frc == LOCUS_EINVALID ? LOCUS_EINVALID
			                            : LOCUS_ENOMEM;
			cJSON_Delete(list);
			return NULL;
		}
		return list;
	}
	cJSON *v = NULL;
	locus_error e;
	if (lr_json_parse(resp->body, resp->body_len, &v, &e)) {
		cJSON_Delete(list);
		return NULL;
	}
	if (cJSON_IsObject(v))
		cJSON_AddItemToArray(list, v);
	else if (cJSON_IsArray(v)) {
		while (v->child)
			cJSON_AddItemToArray(list,
			                     cJSON_DetachItemFromArray(v, 0));
		cJSON_Delete(v);
	} else
		cJSON_Delete(v);
	return list;
}

static int add_credential(lr_run *r, lhttp_headers *h, const char *env,
                          const char *header, const char *prefix)
{
	if (!env)
		return 0;
	const char *v = lr_secrets_get(&r->secrets, env);
	if (!v)
		return LOCUS_EDENIED;
	char *full = lr_strf("%s%s", prefix, v);
	if (!full)
		return LOCUS_ENOMEM;
	int rc = lhttp_headers_set(h, header, full);
	explicit_bzero(full, strlen(full));
	free(full);
	return rc;
}

static void wipe_headers(lhttp_headers *h)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i].value)
			explicit_bzero(h->v[i].value, strlen(h->v[i].value));
	lhttp_headers_clear(h);
}

/* POST one JSON-RPC message to the mount; *msgs the answer's messages. */
static int mcp_post(lr_run *r, lr_mount *m, const cJSON *msg,
                    const char *decision, cJSON **msgs, char *why, size_t cap)
{
	*msgs = NULL;
	lhttp_headers h = {0};
	int rc = lhttp_headers_add(&h, "Accept",
	                           "application/json, text/event-stream");
	rc =
	    rc ? rc : lhttp_headers_add(&h, "Content-Type", "application/json");
	if (!rc && m->ready)
		rc = lhttp_headers_add(&h, "MCP-Protocol-Version",
		                       LR_MCP_VERSION);
	if (!rc && m->session)
		rc = lhttp_headers_add(&h, "Mcp-Session-Id", m->session);
	if (!rc && decision)
		rc = lhttp_headers_add(&h, LR_DECISION_HEADER, decision);
	if (!rc)
		rc = add_credential(r, &h, m->credential_env, "Authorization",
		                    "Bearer ");
	char *text = rc ? NULL : lr_json_canonical(msg);
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.timeout_ms = 60000;
	o.max_attempts = 1;
	o.max_body = 16u << 20;
	lhttp_client *c = NULL;
	locus_error err;
	if (!rc && text && !(rc = lhttp_client_new(&c, &o, &err))) {
		lhttp_request req = {.method = "POST",
		                     .url = m->url,
		                     .headers = &h,
		                     .body = text,
		                     .body_len = strlen(text),
		                     .has_body = true};
		lhttp_response resp = {0};
		rc = lhttp_perform(c, &req, &resp, &err);
		if (rc)
			snprintf(why, cap, "MCP %s: unreachable (%s)", m->id,
			         locus_error_code_name(rc));
		else if (resp.status < 200 || resp.status >= 300) {
			snprintf(why, cap, "MCP %s answered %ld", m->id,
			         resp.status);
			rc = LOCUS_EIO;
		} else {
			const char *sid =
			    lhttp_headers_get(&resp.headers, "mcp-session-id");
			if (sid && !m->session)
				m->session = strdup(sid);
			int mrc = 0;
			if (!(*msgs = mcp_messages(&resp, &mrc))) {
				snprintf(why, cap, "MCP %s: %s", m->id,
				         mrc == LOCUS_ENOMEM ? "out of memory"
				         : lsse_is_stream(&resp)
				             ? "the answer has an event that "
				               "is not a JSON-RPC message "
				               "(the call may have run)"
				             : "a malformed answer");
				rc = mrc;
			}
		}
		lhttp_response_clear(&resp);
	} else if (!rc) {
		snprintf(why, cap, "MCP %s: out of memory", m->id);
		rc = LOCUS_ENOMEM;
	} else
		snprintf(why, cap, "MCP %s: %s", m->id,
		         rc == LOCUS_EDENIED ? "its credential is not set"
		                             : "out of memory");
	lhttp_client_free(c);
	free(text);
	wipe_headers(&h);
	return rc;
}

static cJSON *rpc(lr_mount *m, const char *method, cJSON *params, bool note)
{
	cJSON *msg = cJSON_CreateObject();
	if (!msg) {
		cJSON_Delete(params);
		return NULL;
	}
	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	if (!note)
		cJSON_AddNumberToObject(msg, "id", (double)m->next_id++);
	cJSON_AddStringToObject(msg, "method", method);
	if (params)
		cJSON_AddItemToObject(msg, "params", params);
	return msg;
}

static int mcp_init(lr_run *r, lr_mount *m, char *why, size_t cap)
{
	cJSON *p = cJSON_CreateObject(), *ci = cJSON_CreateObject();
	if (!p || !ci) {
		cJSON_Delete(p);
		cJSON_Delete(ci);
		return LOCUS_ENOMEM;
	}
	cJSON_AddStringToObject(p, "protocolVersion", LR_MCP_VERSION);
	cJSON_AddItemToObject(p, "capabilities", cJSON_CreateObject());
	cJSON_AddStringToObject(ci, "name", "locus-runner");
	cJSON_AddStringToObject(ci, "version", LOCUS_VERSION);
	cJSON_AddItemToObject(p, "clientInfo", ci);
	cJSON *msg = rpc(m, "initialize", p, false), *msgs = NULL;
	int rc =
	    msg ? mcp_post(r, m, msg, NULL, &msgs, why, cap) : LOCUS_ENOMEM;
	cJSON_Delete(msg);
	bool ok = false;
	for (cJSON *c = msgs ? msgs->child : NULL; c; c = c->next)
		ok = ok || cJSON_IsObject(cJSON_GetObjectItem(c, "result"));
	cJSON_Delete(msgs);
	if (!rc && !ok) {
		snprintf(why, cap, "MCP %s: initialize was not answered",
		         m->id);
		rc = LOCUS_EINVALID;
	}
	if (rc)
		return rc;
	m->ready = true;
	msg = rpc(m, "notifications/initialized", NULL, true);
	rc = msg ? mcp_post(r, m, msg, NULL, &msgs, why, cap) : LOCUS_ENOMEM;
	cJSON_Delete(msg);
	cJSON_Delete(msgs);
	if (rc)
		m->ready = false;
	return rc;
}

/* The text blocks of a tools/call result. */
static char *mcp_text(const cJSON *answer, const char *mount, bool *is_error)
{
	const cJSON *e = cJSON_GetObjectItem(answer, "error");
	if (e) {
		const char *msg =
		    cJSON_IsObject(e) ? lr_json_str(e, "message", NULL) : NULL;
		return lr_strf("MCP %s: %s", mount, msg ? msg : "an error");
	}
	const cJSON *res = lr_json_obj(answer, "result", NULL);
	const cJSON *content = res ? lr_json_arr(res, "content", NULL) : NULL;
	lu_buf b = {0};
	for (const cJSON *c = content ? content->child : NULL; c; c = c->next) {
		const char *type = lr_json_str(c, "type", NULL);
		const char *text = lr_json_str(c, "text", NULL);
		if (type && text && !strcmp(type, "text")) {
			if (b.len)
				lu_buf_puts(&b, "\n");
			lu_buf_puts(&b, text);
		}
	}
	bool err = false;
	if (res)
		lr_json_bool(res, "isError", &err, NULL);
	*is_error = err || !res;
	if (!res) {
		lu_buf_free(&b);
		return lr_strf("MCP %s: the answer has no result%s", mount, "");
	}
	if (!b.d)
		lu_buf_puts(&b, "");
	return lu_buf_take(&b);
}

char *lr_remote_mcp(lr_run *r, const lr_tool *t, const cJSON *args,
                    const char *decision, bool *is_error)
{
	lr_mount *m = &r->m.mcp[t->target_index];
	char why[300] = "";
	*is_error = true;
	if (!decision || !*decision)
		return strdup("not run: the gateway's admission carried no "
		              "decision token, so the MCP call is not made");
	if (!m->ready && mcp_init(r, m, why, sizeof why))
		return strdup(why);
	cJSON *p = cJSON_CreateObject();
	if (!p)
		return NULL;
	cJSON_AddStringToObject(p, "name", t->name);
	cJSON_AddItemToObject(p, "arguments", cJSON_Duplicate(args, 1));
	long id = m->next_id;
	cJSON *msg = rpc(m, "tools/call", p, false), *msgs = NULL;
	int rc = msg ? mcp_post(r, m, msg, decision, &msgs, why, sizeof why)
	             : LOCUS_ENOMEM;
	cJSON_Delete(msg);
	if (rc) {
		cJSON_Delete(msgs);
		return strdup(why[0] ? why : "out of memory");
	}
	const cJSON *answer = NULL;
	for (const cJSON *c = msgs->child; c && !answer; c = c->next) {
		const cJSON *cid = cJSON_GetObjectItem(c, "id");
		if (lr_json_is_int(cid) && (long)cid->valuedouble == id)
			answer = c;
	}
	char *out = answer ? mcp_text(answer, m->id, is_error)
	                   : lr_strf("MCP %s: no answer to tools/call %s",
	                             m->id, t->name);
	cJSON_Delete(msgs);
	return out;
}

/* ---- API connectors ---- */

/* Path, query and body of one operation call (connectors.py's mapping). */
static int api_build(const lr_tool *t, const lr_connector *c, const cJSON *args,
                     char **url, char **body, char *why, size_t cap)
{
	cJSON *rest = cJSON_Duplicate(args, 1);
	lu_buf u = {0};
	if (!rest)
		return LOCUS_ENOMEM;
	size_t bl = strcspn(c->base_url, "?#");
	while (bl && c->base_url[bl - 1] == '/')
		bl--;
	lu_buf_add(&u, c->base_url, bl);
	int rc = 0;
	for (const char *p = t->op_path; *p && !rc;) {
		const char *close = *p == '{' ? strchr(p, '}') : NULL;
		if (!close) {
			lu_buf_add(&u, p++, 1);
			continue;
		}
		char name[130];
		snprintf(name, sizeof name, "%.*s", (int)(close - p - 1),
		         p + 1);
		cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(rest, name);
		char *s = v ? scalar(v) : NULL;
		if (!s) {
			snprintf(why, cap, "%s %s: argument '%s' missing",
			         t->op_method, t->op_path, name);
			rc = LOCUS_EINVALID;
		} else if (!*s || !strcmp(s, ".") || !strcmp(s, "..")) {
			/* percent-encoding leaves them as they are and the URL
			   is sent as is: the server would resolve them to
			   another path than the operation's */
			snprintf(why, cap,
			         "not run: %s %s: argument '%s' is "
			         "empty, '.' or '..'",
			         t->op_method, t->op_path, name);
			rc = LOCUS_EINVALID;
		} else
			quote(&u, s, false);
		free(s);
		cJSON_Delete(v);
		p = close + 1;
	}
	bool first = true;
	for (const cJSON *q = t->op_query ? t->op_query->child : NULL; q && !rc;
	     q = q->next) {
		cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(
		    rest, q->valuestring);
		if (v && !cJSON_IsNull(v)) {
			char *s = scalar(v);
			lu_buf_puts(&u, first ? "?" : "&");
			quote(&u, q->valuestring, true);
			lu_buf_puts(&u, "=");
			quote(&u, s ? s : "", true);
			free(s);
			first = false;
		}
		cJSON_Delete(v);
	}
	*body = NULL;
	if (!rc && t->op_body_json)
		*body = lr_json_canonical(rest);
	else if (!rc && rest->child) {
		snprintf(why, cap,
		         "%s %s takes no body; unexpected argument '%s'",
		         t->op_method, t->op_path, rest->child->string);
		rc = LOCUS_EINVALID;
	}
	cJSON_Delete(rest);
	*url = rc ? NULL : lu_buf_take(&u);
	lu_buf_free(&u);
	return rc;
}

char *lr_remote_api(lr_run *r, const lr_tool *t, const cJSON *args,
                    const char *decision, bool *is_error)
{
	const lr_connector *c = &r->m.api[t->target_index];
	char why[400] = "";
	*is_error = true;
	if (!decision || !*decision)
		return strdup("not run: the gateway's admission carried no "
		              "decision token, so the API call is not made");
	char *url = NULL, *body = NULL;
	if (api_build(t, c, args, &url, &body, why, sizeof why))
		return strdup(why[0] ? why : "out of memory");
	lhttp_headers h = {0};
	int rc = lhttp_headers_add(&h, LR_DECISION_HEADER, decision);
	rc = rc ? rc : lhttp_headers_add(&h, "Accept", "application/json");
	if (!rc && body)
		rc = lhttp_headers_add(&h, "Content-Type", "application/json");
	if (!rc)
		rc = add_credential(r, &h, c->credential_env,
		                    c->credential_header, c->credential_prefix);
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.timeout_ms = 60000;
	o.max_attempts = 1;
	lhttp_client *cl = NULL;
	locus_error err;
	char *out = NULL;
	if (!rc && !(rc = lhttp_client_new(&cl, &o, &err))) {
		lhttp_request req = {.method = t->op_method,
		                     .url = url,
		                     .headers = &h,
		                     .body = body,
		                     .body_len = body ? strlen(body) : 0,
		                     .has_body = body != NULL};
		lhttp_response resp = {0};
		rc = lhttp_perform(cl, &req, &resp, &err);
		if (rc)
			out =
			    lr_strf("%s %s: unreachable", t->op_method, c->id);
		else if (resp.status >= 300) {
			char st[32];
			snprintf(st, sizeof st, "%ld", resp.status);
			out = lr_strf("%s answered %s", c->id, st);
		} else {
			*is_error = false;
			out = strdup(resp.body ? resp.body : "");
		}
		lhttp_response_clear(&resp);
	} else
		out = strdup(rc == LOCUS_EDENIED ? "not run: the connector's "
		                                   "credential is not set"
		                                 : "out of memory");
	lhttp_client_free(cl);
	wipe_headers(&h);
	free(url);
	free(body);
	return out;
}
