/*
 * cli/mcp.c - `locus mcp`: the harness as an MCP server over stdio
 * (spec integrations.md section 1, docs/integrations.md).
 *
 *   locus mcp [--root DIR] [--backend local|memory|bwrap]
 *             [--policy FILE | --preset NAME] [--claude-settings FILE]
 *             [--audit FILE] [--tools a,b,c] [--no-read-check]
 *
 * JSON-RPC 2.0, one message per line; nothing but MCP on stdout, logs on
 * stderr.  Methods: initialize, ping, tools/list, tools/call; every
 * notification is ignored (never answered).  Every tool call passes the
 * policy gate; a call it refuses (deny, or a hold: there is nobody to ask
 * over MCP) does not run and comes back as an isError result whose text is
 * the refusal JSON {"status","outcome","action","asset","reason"}.
 *
 * Robustness: a line that is not JSON gets -32700 (id null) and the server
 * goes on; a line over MCP_MAX_LINE (16 MiB) is skipped without being
 * buffered past the cap and answered with -32600 (id null); EOF on stdin
 * ends the server with status 0.  Requests are served one at a time.
 *
 * Exit status: 0 at EOF (or when the client stops reading), 2 for a usage
 * error, a bad policy, or a backend/harness that cannot be built.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "locus/harness.h"
#include "policy_cli.h"

#define MCP_MAX_LINE  ((size_t)16 << 20)
#define MCP_MAX_TOOLS 64

/* JSON-RPC error codes. */
enum {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL_ERROR = -32603,
};

/* Protocol versions we speak, newest first: a client's version from this
 * list is echoed, any other gets the newest. */
static const char *const mcp_versions[] = {
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
};

#define MCP_NVERSIONS (sizeof mcp_versions / sizeof mcp_versions[0])

typedef struct mcp_server {
	locus_harness *harness;
	locus_policy_wrap gate; /* the standard wrap's payload */
	bool out_broken; /* the client stopped reading */
} mcp_server;

/* --- output -----------------------------------------------------------------
 */

/* A copy of s that is valid UTF-8 (each bad byte becomes U+FFFD), so the
 * client's JSON parser sees exactly what we mean. */
static char *utf8_clean(const char *s)
{
	size_t n = strlen(s);
	char *o = malloc(3 * n + 1);
	if (!o)
		return NULL;
	size_t k = 0;
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		unsigned c = p[i];
		size_t len = 0;
		unsigned min = 0, cp = 0;
		if (c < 0x80) {
			o[k++] = (char)c;
			i++;
			continue;
		} else if (c >= 0xC2 && c <= 0xDF) {
			len = 2, min = 0x80, cp = c & 0x1F;
		} else if (c >= 0xE0 && c <= 0xEF) {
			len = 3, min = 0x800, cp = c & 0x0F;
		} else if (c >= 0xF0 && c <= 0xF4) {
			len = 4, min = 0x10000, cp = c & 0x07;
		}
		bool ok = len > 0 && i + len <= n;
		for (size_t j = 1; ok && j < len; j++) {
			if ((p[i + j] & 0xC0) != 0x80)
				ok = false;
			else
				cp = (cp << 6) | (p[i + j] & 0x3F);
		}
		if (ok && (cp < min || cp > 0x10FFFF ||
		           (cp >= 0xD800 && cp <= 0xDFFF)))
			ok = false;
		if (ok) {
			memcpy(o + k, p + i, len);
			k += len;
			i += len;
		} else {
			memcpy(o + k, "\xEF\xBF\xBD", 3);
			k += 3;
			i++;
		}
	}
	o[k] = '\0';
	return o;
}

/* Write one message as one line.  Takes `msg`. */
static void send_msg(mcp_server *s, cJSON *msg)
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
	if (!s->out_broken &&
	    (fputs(text, stdout) == EOF || fputc('\n', stdout) == EOF ||
	     fflush(stdout) == EOF))
		s->out_broken = true;
	cJSON_free(text);
}

static cJSON *response(const cJSON *id)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	/* a number id goes back as the same double: cJSON's own printing
	   rounds large integers (9007199254740991 came back ...990) */
	char num[40];
	cJSON *i;
	if (cJSON_IsNumber(id)) {
		snprintf(num, sizeof(num), "%.17g", id->valuedouble);
		i = cJSON_CreateRaw(num);
	} else {
		i = id ? cJSON_Duplicate(id, true) : cJSON_CreateNull();
	}
	if (!i || !cJSON_AddItemToObject(o, "id", i)) {
		cJSON_Delete(i);
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static void send_error(mcp_server *s, const cJSON *id, int code,
                       const char *message)
{
	cJSON *o = response(id);
	cJSON *e = o ? cJSON_AddObjectToObject(o, "error") : NULL;
	if (e) {
		cJSON_AddNumberToObject(e, "code", code);
		char *m = utf8_clean(message);
		cJSON_AddStringToObject(e, "message", m ? m : "error");
		free(m);
	}
	send_msg(s, e ? o : (cJSON_Delete(o), NULL));
}

static void send_result(mcp_server *s, const cJSON *id, cJSON *result)
{
	cJSON *o = response(id);
	if (!o || !result || !cJSON_AddItemToObject(o, "result", result)) {
		cJSON_Delete(result);
		cJSON_Delete(o);
		send_error(s, id, RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	send_msg(s, o);
}

/* --- methods ---------------------------------------------------------------
 */

static void do_initialize(mcp_server *s, const cJSON *id, const cJSON *params)
{
	const cJSON *v =
	    cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
	const char *version = mcp_versions[0];
	for (size_t i = 0; cJSON_IsString(v) && i < MCP_NVERSIONS; i++)
		if (!strcmp(v->valuestring, mcp_versions[i]))
			version = mcp_versions[i];
	cJSON *r = cJSON_CreateObject();
	if (!r) {
		send_result(s, id, NULL);
		return;
	}
	cJSON_AddStringToObject(r, "protocolVersion", version);
	cJSON *caps = cJSON_AddObjectToObject(r, "capabilities");
	cJSON *tools = caps ? cJSON_AddObjectToObject(caps, "tools") : NULL;
	if (tools)
		cJSON_AddFalseToObject(tools, "listChanged");
	cJSON *info = cJSON_AddObjectToObject(r, "serverInfo");
	if (info) {
		cJSON_AddStringToObject(info, "name", "locus");
		cJSON_AddStringToObject(info, "title",
		                        "locus coding harness (policy-gated)");
		cJSON_AddStringToObject(info, "version", locus_version());
	}
	char *frag = locus_harness_prompt_fragment(s->harness);
	char *clean = frag ? utf8_clean(frag) : NULL;
	if (clean)
		cJSON_AddStringToObject(r, "instructions", clean);
	free(clean);
	free(frag);
	send_result(s, id, r);
}

static void do_tools_list(mcp_server *s, const cJSON *id)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *arr = r ? cJSON_AddArrayToObject(r, "tools") : NULL;
	size_t n = locus_harness_tool_count(s->harness);
	for (size_t i = 0; arr && i < n; i++) {
		const char *name = locus_harness_tool_name(s->harness, i);
		const char *desc =
		    locus_harness_tool_description(s->harness, name);
		const char *schema =
		    locus_harness_tool_schema(s->harness, name);
		cJSON *t = cJSON_CreateObject();
		cJSON *sc = schema ? cJSON_Parse(schema) : NULL;
		if (!cJSON_IsObject(sc)) {
			cJSON_Delete(sc);
			sc = cJSON_Parse("{\"type\":\"object\"}");
		}
		if (!t || !sc) {
			cJSON_Delete(t);
			cJSON_Delete(sc);
			cJSON_Delete(r);
			r = NULL;
			break;
		}
		cJSON_AddStringToObject(t, "name", name);
		cJSON_AddStringToObject(t, "description", desc ? desc : "");
		cJSON_AddItemToObject(t, "inputSchema", sc);
		cJSON_AddItemToArray(arr, t);
	}
	send_result(s, id, r);
}

/* JSON type check against one schema "type" name. */
static bool type_ok(const cJSON *v, const char *type)
{
	if (!strcmp(type, "string"))
		return cJSON_IsString(v);
	if (!strcmp(type, "boolean"))
		return cJSON_IsBool(v);
	if (!strcmp(type, "number"))
		return cJSON_IsNumber(v);
	if (!strcmp(type, "integer"))
		return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
		       floor(v->valuedouble) == v->valuedouble;
	if (!strcmp(type, "array"))
		return cJSON_IsArray(v);
	if (!strcmp(type, "object"))
		return cJSON_IsObject(v);
	if (!strcmp(type, "null"))
		return cJSON_IsNull(v);
	return true; /* a type we do not know: the tool checks */
}

/*
 * Check the arguments against the top level of the tool's schema
 * (required keys, each property's type and enum).  Deeper structure is the
 * tool's to check.  0, or -1 with a message.
 */
static int check_args(const char *schema_text, const cJSON *args, char *why,
                      size_t wl)
{
	cJSON *schema = schema_text ? cJSON_Parse(schema_text) : NULL;
	if (!schema)
		return 0;
	int rc = 0;
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(schema, "required");
	const cJSON *r;
	cJSON_ArrayForEach(r, req)
	{
		if (cJSON_IsString(r) &&
		    !cJSON_GetObjectItemCaseSensitive(args, r->valuestring)) {
			snprintf(why, wl, "missing required argument '%s'",
			         r->valuestring);
			rc = -1;
			goto out;
		}
	}
	const cJSON *props =
	    cJSON_GetObjectItemCaseSensitive(schema, "properties");
	const cJSON *a;
	cJSON_ArrayForEach(a, args)
	{
		const cJSON *p =
		    cJSON_GetObjectItemCaseSensitive(props, a->string);
		if (!p)
			continue;
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "type");
		bool ok = true;
		if (cJSON_IsString(t)) {
			ok = type_ok(a, t->valuestring);
		} else if (cJSON_IsArray(t)) {
			ok = false;
			const cJSON *e;
			cJSON_ArrayForEach(e, t)
			{
				ok |= cJSON_IsString(e) &&
				      type_ok(a, e->valuestring);
			}
		}
		const cJSON *en = cJSON_GetObjectItemCaseSensitive(p, "enum");
		if (ok && cJSON_IsArray(en)) {
			ok = false;
			const cJSON *e;
			cJSON_ArrayForEach(e, en)
			{
				ok |= cJSON_Compare(e, a, true);
			}
		}
		if (!ok) {
			snprintf(why, wl,
			         "argument '%.60s' does not match the "
			         "tool's inputSchema",
			         a->string);
			rc = -1;
			goto out;
		}
	}
out:
	cJSON_Delete(schema);
	return rc;
}

static bool tool_built(const locus_harness *h, const char *name)
{
	size_t n = locus_harness_tool_count(h);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(locus_harness_tool_name(h, i), name))
			return true;
	return false;
}

static void do_tools_call(mcp_server *s, const cJSON *id, const cJSON *params)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
	const cJSON *args =
	    cJSON_GetObjectItemCaseSensitive(params, "arguments");
	char why[300];
	if (!cJSON_IsString(name)) {
		send_error(s, id, RPC_INVALID_PARAMS,
		           "tools/call needs params.name (a string)");
		return;
	}
	if (!tool_built(s->harness, name->valuestring)) {
		char *n = utf8_clean(name->valuestring);
		snprintf(why, sizeof(why), "unknown tool: %.100s", n ? n : "?");
		free(n);
		send_error(s, id, RPC_INVALID_PARAMS, why);
		return;
	}
	if (args && !cJSON_IsObject(args) && !cJSON_IsNull(args)) {
		send_error(s, id, RPC_INVALID_PARAMS,
		           "tools/call params.arguments must be an object");
		return;
	}
	if (cJSON_IsObject(args) &&
	    check_args(locus_harness_tool_schema(s->harness, name->valuestring),
	               args, why, sizeof(why))) {
		send_error(s, id, RPC_INVALID_PARAMS, why);
		return;
	}
	char *a = cJSON_IsObject(args) ? cJSON_PrintUnformatted(args) : NULL;
	if (cJSON_IsObject(args) && !a) {
		send_error(s, id, RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	char *out = NULL;
	bool is_error = true;
	locus_error err;
	memset(&err, 0, sizeof(err));
	int rc = locus_harness_call(s->harness, name->valuestring, a ? a : "{}",
	                            &out, &is_error, &err);
	cJSON_free(a);
	if (rc) {
		free(out);
		send_error(s, id,
		           rc == LOCUS_ENOTFOUND ? RPC_INVALID_PARAMS
		                                 : RPC_INTERNAL_ERROR,
		           err.message[0] ? err.message
		                          : locus_error_code_name(rc));
		return;
	}
	/* a refusal by the gate: the text is the refusal JSON */
	char *clean = utf8_clean(out ? out : "");
	free(out);
	cJSON *r = cJSON_CreateObject();
	cJSON *content = r ? cJSON_AddArrayToObject(r, "content") : NULL;
	cJSON *block = content ? cJSON_CreateObject() : NULL;
	if (!clean || !block) {
		free(clean);
		cJSON_Delete(block);
		cJSON_Delete(r);
		send_error(s, id, RPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	cJSON_AddStringToObject(block, "type", "text");
	cJSON_AddStringToObject(block, "text", clean);
	cJSON_AddItemToArray(content, block);
	cJSON_AddBoolToObject(r, "isError", is_error);
	free(clean);
	send_result(s, id, r);
}

/* --- dispatch ----------------------------------------------------------------
 */


static void handle_line(mcp_server *s, const char *line, size_t n)
{
	/* blank lines carry no message */
	size_t k = 0;
	while (k < n && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r'))
		k++;
	if (k == n)
		return;
	const char *end = NULL;
	cJSON *msg = memchr(line, '\0', n)
	                 ? NULL
	                 : cJSON_ParseWithLengthOpts(line, n, &end, false);
	if (msg) {
		while (end < line + n &&
		       (*end == ' ' || *end == '\t' || *end == '\r'))
			end++;
		if (end != line + n) {
			cJSON_Delete(msg);
			msg = NULL;
		}
	}
	if (!msg) {
		send_error(s, NULL, RPC_PARSE_ERROR,
		           "Parse error: the line is "
		           "not one JSON value");
		return;
	}
	if (cJSON_IsArray(msg)) {
		/* batching was removed from MCP in 2025-06-18 */
		send_error(s, NULL, RPC_INVALID_REQUEST,
		           "Invalid Request: batches are not supported");
		cJSON_Delete(msg);
		return;
	}
	if (!cJSON_IsObject(msg)) {
		send_error(s, NULL, RPC_INVALID_REQUEST,
		           "Invalid Request: a message is a JSON object");
		cJSON_Delete(msg);
		return;
	}
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
	bool id_ok = cJSON_IsString(id) ||
	             (cJSON_IsNumber(id) && isfinite(id->valuedouble));
	if (!id && method) {
		/* a notification: never answered, whatever it is */
		cJSON_Delete(msg);
		return;
	}
	if (!method && !id_ok &&
	    (cJSON_GetObjectItemCaseSensitive(msg, "result") ||
	     cJSON_GetObjectItemCaseSensitive(msg, "error"))) {
		/* a response without a usable id: nothing to answer */
		cJSON_Delete(msg);
		return;
	}
	if (!method && (cJSON_GetObjectItemCaseSensitive(msg, "result") ||
	                cJSON_GetObjectItemCaseSensitive(msg, "error"))) {
		/* a response to a request we never sent: ignored */
		cJSON_Delete(msg);
		return;
	}
	if (!id_ok || !cJSON_IsString(ver) || strcmp(ver->valuestring, "2.0") ||
	    !cJSON_IsString(method) || cli_json_dup_keys(msg)) {
		send_error(s, id_ok ? id : NULL, RPC_INVALID_REQUEST,
		           "Invalid Request: expected {\"jsonrpc\":\"2.0\", "
		           "\"id\": string or number, \"method\": string}");
		cJSON_Delete(msg);
		return;
	}
	const char *m = method->valuestring;
	bool known = !strcmp(m, "initialize") || !strcmp(m, "ping") ||
	             !strcmp(m, "tools/list") || !strcmp(m, "tools/call");
	if (!known) {
		char why[200];
		char *c = utf8_clean(m);
		snprintf(why, sizeof(why), "Method not found: %.100s",
		         c ? c : "?");
		free(c);
		send_error(s, id, RPC_METHOD_NOT_FOUND, why);
	} else if (params && !cJSON_IsObject(params) && !cJSON_IsNull(params)) {
		send_error(s, id, RPC_INVALID_PARAMS,
		           "Invalid params: params must be an object");
	} else if (!strcmp(m, "initialize")) {
		do_initialize(s, id, params);
	} else if (!strcmp(m, "ping")) {
		send_result(s, id, cJSON_CreateObject());
	} else if (!strcmp(m, "tools/list")) {
		do_tools_list(s, id);
	} else {
		do_tools_call(s, id, params);
	}
	cJSON_Delete(msg);
}

/*
 * Read stdin line by line.  A line is buffered up to MCP_MAX_LINE; past
 * that its bytes are dropped as they come until the newline, then one
 * error is sent, so memory stays bounded whatever the client sends.
 */
static void serve(mcp_server *s)
{
	size_t cap = 1 << 16, len = 0, scanned = 0;
	char *buf = malloc(cap);
	bool skipping = false;
	if (!buf) {
		fprintf(stderr, "locus mcp: out of memory\n");
		return;
	}
	while (!s->out_broken) {
		char *nl = memchr(buf + scanned, '\n', len - scanned);
		if (nl) {
			size_t n = (size_t)(nl - buf);
			if (skipping) {
				send_error(
				    s, NULL, RPC_INVALID_REQUEST,
				    "Invalid Request: the message is over "
				    "the 16 MiB line limit");
				skipping = false;
			} else {
				handle_line(s, buf, n);
			}
			memmove(buf, nl + 1, len - n - 1);
			len -= n + 1;
			scanned = 0;
			continue;
		}
		scanned = len;
		if (len > MCP_MAX_LINE) {
			skipping = true;
			len = scanned = 0;
		}
		if (cap - len < (1 << 16)) {
			size_t nc = cap * 2;
			char *p = realloc(buf, nc);
			if (!p) {
				fprintf(stderr, "locus mcp: out of memory\n");
				break;
			}
			buf = p;
			cap = nc;
		}
		ssize_t got = read(0, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			/* EOF: a last line without its newline still counts */
			if (skipping)
				send_error(
				    s, NULL, RPC_INVALID_REQUEST,
				    "Invalid Request: the message is over "
				    "the 16 MiB line limit");
			else if (len)
				handle_line(s, buf, len);
			break;
		}
		len += (size_t)got;
	}
	free(buf);
}

/* --- setup ---------------------------------------------------------------- */

static void warn(const char *m, void *p)
{
	(void)p;
	fprintf(stderr, "locus mcp: warning: %s\n", m);
}

static void mcp_usage(FILE *f)
{
	fprintf(f,
	        "usage: locus mcp [--root DIR] [--backend local|memory|bwrap]\n"
	        "                 [--policy FILE | --preset NAME] "
	        "[--claude-settings FILE]\n"
	        "                 [--audit FILE] [--tools a,b,c] "
	        "[--no-read-check]\n"
	        "serves the harness as an MCP server on stdin/stdout "
	        "(JSON-RPC, one message a line)\n");
}

/* Split "a,b,c" into names (pointers into `list`, which is modified). */
static int split_tools(char *list, const char **names, size_t max)
{
	size_t n = 0;
	for (char *save = NULL, *t = strtok_r(list, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ')
			t++;
		size_t l = strlen(t);
		while (l && t[l - 1] == ' ')
			t[--l] = '\0';
		if (!l)
			continue;
		if (n + 1 >= max)
			return -1;
		names[n++] = t;
	}
	names[n] = NULL;
	return n ? 0 : -1;
}

int cli_mcp(int argc, char **argv)
{
	const char *root = ".", *backend = "local", *policy_file = NULL;
	const char *preset = NULL, *claude = NULL, *audit_file = NULL;
	char *tools_arg = NULL;
	bool no_read = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			mcp_usage(stdout);
			return 0;
		} else if (!strcmp(a, "--no-read-check")) {
			no_read = true;
		} else if (i + 1 < argc && !strcmp(a, "--root")) {
			root = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--backend")) {
			backend = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--policy")) {
			policy_file = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--preset")) {
			preset = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--claude-settings")) {
			claude = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--audit")) {
			audit_file = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--tools")) {
			tools_arg = argv[++i];
		} else {
			fprintf(stderr,
			        "locus mcp: unknown or incomplete option "
			        "'%s'\n",
			        a);
			mcp_usage(stderr);
			return 2;
		}
	}
	const char *tool_names[MCP_MAX_TOOLS + 1];
	char *tools_copy = tools_arg ? strdup(tools_arg) : NULL;
	if (tools_arg && (!tools_copy || split_tools(tools_copy, tool_names,
	                                             MCP_MAX_TOOLS + 1))) {
		fprintf(stderr, "locus mcp: --tools takes a comma-separated "
		                "list of tool names\n");
		free(tools_copy);
		return 2;
	}
	if (strcmp(backend, "local") && strcmp(backend, "memory") &&
	    strcmp(backend, "bwrap")) {
		fprintf(stderr, "locus mcp: --backend is local, memory or "
		                "bwrap\n");
		free(tools_copy);
		return 2;
	}
	mcp_server s;
	memset(&s, 0, sizeof(s));
	locus_policy *policy = NULL;
	if (cli_policy_build(policy_file, preset, claude, &policy)) {
		free(tools_copy);
		return 2;
	}
	s.gate.policy = policy;
	locus_error err;
	memset(&err, 0, sizeof(err));
	int status = 2;
	locus_backend *b = NULL;
	char *real = NULL;
	int rc;
	if (audit_file &&
	    locus_audit_open(&s.gate.audit, audit_file, 0, &err)) {
		fprintf(stderr, "locus mcp: %s\n", err.message);
		goto done;
	}
	/* an absolute root in prompts, and for the policy's path rules */
	if (strcmp(backend, "memory"))
		real = realpath(root, NULL);
	if (!strcmp(backend, "local")) {
		rc =
		    locus_backend_local_new(&b, real ? real : root, NULL, &err);
	} else if (!strcmp(backend, "memory")) {
		rc = locus_backend_memory_new(&b, &err);
	} else {
		locus_session *ses = NULL;
		rc = locus_session_bwrap_new(&ses, root, &err);
		if (!rc)
			rc = locus_backend_session_new(
			    &b, ses, "/workspace", "bwrap sandbox", true, &err);
	}
	if (rc) {
		fprintf(stderr, "locus mcp: %s\n", err.message);
		goto done;
	}
	/* path rules are resolved against the root the tools see */
	s.gate.workspace_root = strcmp(backend, "local") || !real ? b->root : real;
	locus_harness_config cfg = LOCUS_HARNESS_CONFIG_INIT;
	cfg.require_read = !no_read;
	cfg.on_warning = warn;
	rc = locus_harness_new(&s.harness, b, tools_arg ? tool_names : NULL,
	                       locus_harness_policy_wrap, &s.gate, &cfg, &err);
	if (rc) {
		fprintf(stderr, "locus mcp: %s\n", err.message);
		goto done;
	}
	fprintf(stderr, "locus mcp: serving %zu tools on %s (%s), policy %s\n",
	        locus_harness_tool_count(s.harness), b->label,
	        b->root ? b->root : "", locus_policy_version(policy));
	/* a client that goes away must not kill us mid-record */
	signal(SIGPIPE, SIG_IGN);
	serve(&s);
	status = 0;
done:
	locus_harness_free(s.harness);
	locus_backend_free(b);
	locus_audit_close(s.gate.audit);
	locus_policy_free(policy);
	free(real);
	free(tools_copy);
	return status;
}
