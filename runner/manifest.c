/*
 * runner/manifest.c - manifest v1, read strictly (docs/runner.md): every
 * object's fields are known ones, every type is checked, defaults are the
 * original's, `definition_digest` (when given) is recomputed over the
 * canonical JSON of `definition` and must match; `harness` and `playbook`
 * are objects or null, read only by prompt.c.
 */
#include "runner/runner.h"

#include "util/error.h"
#include "util/array.h"
#include "util/buf.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* clang-format off */
static const char *const top_fields[] = {
    "version", "run_id",  "tenant", "agent",   "agent_version",
    "definition", "definition_digest", "instructions", "input", "tools",
    "mcp", "api", "harness", "playbook", "budgets", "model", NULL};
/* clang-format on */
static const char *const tool_fields[] = {
    "name", "description", "parameters", "labels", "runs", "operation", NULL};
static const char *const op_fields[] = {"method", "path", "query", "body",
                                        NULL};
static const char *const mcp_fields[] = {
    "id", "url", "transport", "tools", "credential_env", NULL};
static const char *const api_fields[] = {"id",
                                         "base_url",
                                         "credential_env",
                                         "credential_header",
                                         "credential_prefix",
                                         NULL};
static const char *const budget_fields[] = {"max_iterations", "max_tokens",
                                            "max_cost_usd",   "timeout_s",
                                            "park_ttl_s",     NULL};
static const char *const model_fields[] = {"model", "base_url", "api_key_env",
                                           "provider", NULL};

static int bad(locus_error *err, const char *where, const char *what)
{
	return lu_err(err, LOCUS_EINVALID, "manifest: %s: %s", where, what);
}

/* A required non-empty string of at most max bytes (0: no cap). */
static int req_str(const cJSON *o, const char *key, size_t max,
                   const char *where, const char **out, locus_error *err)
{
	const char *b = NULL;
	*out = lr_json_str(o, key, &b);
	if (b || !*out || !**out || (max && strlen(*out) > max)) {
		char w[96];
		snprintf(w, sizeof w, "%s.%s", where, key);
		return bad(err, w,
		           b        ? "not a string"
		           : !*out  ? "missing"
		           : !**out ? "empty"
		                    : "too long");
	}
	return 0;
}

/* An optional string (NULL or absent: def). */
static int opt_str(const cJSON *o, const char *key, const char *def,
                   const char *where, const char **out, locus_error *err)
{
	const char *b = NULL;
	*out = lr_json_str(o, key, &b);
	if (b) {
		char w[96];
		snprintf(w, sizeof w, "%s.%s", where, key);
		return bad(err, w, "not a string");
	}
	if (!*out)
		*out = def;
	return 0;
}

/* An optional array of strings. */
static int str_list(const cJSON *o, const char *key, const char *where,
                    const cJSON **out, locus_error *err)
{
	const char *b = NULL;
	*out = lr_json_arr(o, key, &b);
	char w[96];
	snprintf(w, sizeof w, "%s.%s", where, key);
	if (b)
		return bad(err, w, "not an array");
	if (*out)
		for (const cJSON *c = (*out)->child; c; c = c->next)
			if (!cJSON_IsString(c))
				return bad(err, w, "holds a non-string");
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int load_operation(lr_tool *t, const cJSON *op, const char *where,
                          locus_error *err)
{
	int rc = lr_json_known(op, op_fields, where, err);
	if (rc)
		return rc;
	const char *body;
	if ((rc = opt_str(op, "method", "GET", where, &t->op_method, err)) ||
	    (rc = req_str(op, "path", 0, where, &t->op_path, err)) ||
	    (rc = str_list(op, "query", where, &t->op_query, err)) ||
	    (rc = opt_str(op, "body", "none", where, &body, err)))
		return rc;
	static const char *const methods[] = {"GET",   "POST",   "PUT",
	                                      "PATCH", "DELETE", NULL};
	bool ok = false;
	for (size_t i = 0; methods[i]; i++)
		ok = ok || !strcmp(methods[i], t->op_method);
	if (!ok)
		return bad(err, where,
		           "method is not GET/POST/PUT/PATCH/DELETE");
	if (t->op_path[0] != '/')
		return bad(err, where, "path does not start with '/'");
	if (strcmp(body, "json") && strcmp(body, "none"))
		return bad(err, where, "body is not \"json\" or \"none\"");
	t->op_body_json = !strcmp(body, "json");
	return 0;
}

/* runs: ^(box|gateway|(mcp|api):[A-Za-z0-9][A-Za-z0-9._-]{0,127})$ */
static int parse_runs(lr_tool *t, const char *runs, const char *where,
                      locus_error *err)
{
	if (!strcmp(runs, "box")) {
		t->runs = LR_RUNS_BOX;
		return 0;
	}
	if (!strcmp(runs, "gateway")) {
		t->runs = LR_RUNS_GATEWAY;
		return 0;
	}
	if (!strncmp(runs, "mcp:", 4) || !strncmp(runs, "api:", 4)) {
		const char *id = runs + 4;
		size_t n = strlen(id);
		bool ok = n >= 1 && n <= 128 &&
		          strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
		                 "TUVWXYZ0123456789",
		                 id[0]) &&
		          id[0];
		for (size_t i = 1; ok && i < n; i++)
			ok = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
			            "QRSTUVWXYZ0123456789._-",
			            id[i]) != NULL;
		if (ok) {
			t->runs = runs[0] == 'm' ? LR_RUNS_MCP : LR_RUNS_API;
			t->target = id;
			return 0;
		}
	}
	return bad(err, where,
	           "runs is not box, gateway, mcp:<id> or api:<id>");
}

static int load_tool(void *item, const cJSON *o, size_t i, locus_error *err)
{
	lr_tool *t = item;
	char where[48];
	snprintf(where, sizeof where, "tools[%zu]", i);
	int rc = lr_json_known(o, tool_fields, where, err);
	if (rc)
		return rc;
	const char *runs, *b = NULL;
	const cJSON *labels;
	if ((rc = req_str(o, "name", 128, where, &t->name, err)) ||
	    (rc = opt_str(o, "description", "", where, &t->description, err)) ||
	    (rc = opt_str(o, "runs", "box", where, &runs, err)) ||
	    (rc = str_list(o, "labels", where, &labels, err)))
		return rc;
	t->parameters = lr_json_obj(o, "parameters", &b);
	if (b)
		return bad(err, where, "parameters is not an object");
	if ((rc = parse_runs(t, runs, where, err)))
		return rc;
	const cJSON *op = lr_json_obj(o, "operation", &b);
	if (b)
		return bad(err, where, "operation is not an object");
	if (t->runs == LR_RUNS_API && !op)
		return bad(err, where, "an api: tool names no operation");
	if (t->runs != LR_RUNS_API && op)
		return bad(err, where,
		           "an operation on a tool that is not api:");
	return op ? load_operation(t, op, where, err) : 0;
}

static int load_mount(void *item, const cJSON *o, size_t i, locus_error *err)
{
	lr_mount *m = item;
	char where[48];
	snprintf(where, sizeof where, "mcp[%zu]", i);
	int rc = lr_json_known(o, mcp_fields, where, err);
	if (rc || (rc = req_str(o, "id", 128, where, &m->id, err)) ||
	    (rc = req_str(o, "url", 0, where, &m->url, err)) ||
	    (rc = opt_str(o, "transport", "streamable_http", where,
	                  &m->transport, err)) ||
	    (rc = str_list(o, "tools", where, &m->tools, err)) ||
	    (rc = opt_str(o, "credential_env", NULL, where, &m->credential_env,
	                  err)))
		return rc;
	if (strcmp(m->transport, "streamable_http") &&
	    strcmp(m->transport, "sse"))
		return bad(err, where,
		           "transport is not streamable_http or sse");
	m->next_id = 1;
	/* sorted, so checking every tool against its mount is n log n */
	size_t n = m->tools ? (size_t)cJSON_GetArraySize(m->tools) : 0;
	if (!(m->tool_names = calloc(n + 1, sizeof *m->tool_names)))
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	for (const cJSON *c = m->tools ? m->tools->child : NULL; c; c = c->next)
		m->tool_names[m->n_tool_names++] = c->valuestring;
	assert(m->n_tool_names == n);
	if (n > 1)
		qsort(m->tool_names, n, sizeof *m->tool_names, cmp_str);
	return 0;
}

static int load_connector(void *item, const cJSON *o, size_t i,
                          locus_error *err)
{
	lr_connector *c = item;
	char where[48];
	snprintf(where, sizeof where, "api[%zu]", i);
	int rc = lr_json_known(o, api_fields, where, err);
	if (rc || (rc = req_str(o, "id", 128, where, &c->id, err)) ||
	    (rc = req_str(o, "base_url", 0, where, &c->base_url, err)) ||
	    (rc = opt_str(o, "credential_env", NULL, where, &c->credential_env,
	                  err)) ||
	    (rc = opt_str(o, "credential_header", "authorization", where,
	                  &c->credential_header, err)) ||
	    (rc = opt_str(o, "credential_prefix", "Bearer ", where,
	                  &c->credential_prefix, err)))
		return rc;
	return 0;
}

/* An optional integer >= 1 (0 when absent). */
static int budget_int(const cJSON *o, const char *key, long *out,
                      locus_error *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	*out = 0;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!lr_json_is_int(v) || v->valuedouble < 1 || v->valuedouble > 1e15)
		return bad(err, key, "not an integer >= 1");
	*out = (long)v->valuedouble;
	return 0;
}

static int load_budgets(lr_budgets *bu, const cJSON *o, locus_error *err)
{
	bu->max_cost_usd = -1;
	bu->park_ttl_s = 600;
	if (!o)
		return 0;
	int rc = lr_json_known(o, budget_fields, "budgets", err);
	if (rc ||
	    (rc = budget_int(o, "max_iterations", &bu->max_iterations, err)) ||
	    (rc = budget_int(o, "max_tokens", &bu->max_tokens, err)))
		return rc;
	const char *b = NULL;
	double v;
	if (lr_json_num(o, "max_cost_usd", &v, &b)) {
		if (v < 0)
			return bad(err, "budgets.max_cost_usd", "negative");
		bu->max_cost_usd = v;
	}
	/* seconds are at most 1e9 (about 31 years): later turned into
	   milliseconds in a long */
	if (lr_json_num(o, "timeout_s", &v, &b)) {
		if (!(v > 0) || v > 1e9)
			return bad(err, "budgets.timeout_s", "not in (0, 1e9]");
		bu->timeout_s = v;
	}
	if (lr_json_num(o, "park_ttl_s", &v, &b)) {
		if (v < 0 || v > 1e9)
			return bad(err, "budgets.park_ttl_s",
			           "not in [0, 1e9]");
		bu->park_ttl_s = v;
	}
	return b ? bad(err, "budgets", "a limit is not a number") : 0;
}

static int load_model(lr_manifest *m, const cJSON *o, locus_error *err)
{
	if (!o)
		return bad(err, "model", "missing or not an object");
	int rc = lr_json_known(o, model_fields, "model", err);
	if (rc || (rc = req_str(o, "model", 0, "model", &m->model, err)) ||
	    (rc =
	         req_str(o, "base_url", 0, "model", &m->model_base_url, err)) ||
	    (rc = req_str(o, "api_key_env", 0, "model", &m->model_key_env,
	                  err)) ||
	    (rc = opt_str(o, "provider", "openai", "model", &m->provider, err)))
		return rc;
	return 0;
}

/* ---- the arrays of objects: tools, mcp, api ---- */

/* A list's ids sorted, each with its position: an id given twice is two
   neighbours and a tool's mount or connector is a binary search, so a
   gateway that sends 500,000 entries costs n log n, not n^2 (a hang). */
typedef struct id_at {
	const char *id; /* first: cmp_str orders these too */
	size_t at;
} id_at;

typedef int (*item_loader)(void *item, const cJSON *o, size_t i,
                           locus_error *err);

/* One list: arr's objects loaded by `load` into items[0..n) (`size` bytes
   each, n counted by the caller), their ids (the `const char *` at byte
   `id_off` of each) sorted into *ids (the caller frees) and unique. */
static int load_list(const cJSON *arr, void *items, size_t n, size_t size,
                     size_t id_off, item_loader load, const char *what,
                     id_at **ids, locus_error *err)
{
	*ids = calloc(n + 1, sizeof **ids);
	if (!*ids)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	size_t i = 0;
	for (const cJSON *c = arr ? arr->child : NULL; c; c = c->next, i++) {
		assert(i < n);
		void *item = (char *)items + i * size;
		int rc = cJSON_IsObject(c)
		             ? load(item, c, i, err)
		             : bad(err, what, "holds a non-object");
		if (rc)
			return rc;
		(*ids)[i].id = *(const char *const *)((char *)item + id_off);
		(*ids)[i].at = i;
	}
	assert(i == n);
	if (n > 1)
		qsort(*ids, n, sizeof **ids, cmp_str);
	for (i = 1; i < n; i++)
		if (!strcmp((*ids)[i - 1].id, (*ids)[i].id))
			return lu_err(err, LOCUS_EINVALID,
			              "manifest: %s: \"%.60s\" is listed twice",
			              what, (*ids)[i].id);
	return 0;
}

/* Every mcp:/api: target exists; its position into target_index. */
static int check_refs(lr_manifest *m, const id_at *mcp, const id_at *api,
                      locus_error *err)
{
	for (size_t i = 0; i < m->n_tools; i++) {
		lr_tool *t = &m->tools[i];
		if (t->runs != LR_RUNS_MCP && t->runs != LR_RUNS_API)
			continue;
		bool is_mcp = t->runs == LR_RUNS_MCP, found = false;
		const id_at *ids = is_mcp ? mcp : api;
		size_t n = is_mcp ? m->n_mcp : m->n_api;
		size_t k =
		    lu_sorted_find(ids, n, sizeof *ids, offsetof(id_at, id),
		                   t->target, &found);
		if (!found)
			return lu_err(
			    err, LOCUS_EINVALID,
			    "manifest: tool \"%.60s\" runs on %s:%.60s, "
			    "which the manifest does not list",
			    t->name, is_mcp ? "mcp" : "api", t->target);
		t->target_index = ids[k].at;
		assert(t->target_index < n);
	}
	return 0;
}

static int load_lists(lr_manifest *m, locus_error *err)
{
	const char *b = NULL;
	const cJSON *tools = lr_json_arr(m->root, "tools", &b),
	            *mcp = lr_json_arr(m->root, "mcp", &b),
	            *api = lr_json_arr(m->root, "api", &b);
	if (b)
		return bad(err, b, "not an array");
	m->n_tools = tools ? (size_t)cJSON_GetArraySize(tools) : 0;
	m->n_mcp = mcp ? (size_t)cJSON_GetArraySize(mcp) : 0;
	m->n_api = api ? (size_t)cJSON_GetArraySize(api) : 0;
	m->tools = calloc(m->n_tools + 1, sizeof *m->tools);
	m->mcp = calloc(m->n_mcp + 1, sizeof *m->mcp);
	m->api = calloc(m->n_api + 1, sizeof *m->api);
	if (!m->tools || !m->mcp || !m->api)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	id_at *mcp_ids = NULL, *api_ids = NULL, *tool_ids = NULL;
	int rc =
	    load_list(mcp, m->mcp, m->n_mcp, sizeof *m->mcp,
	              offsetof(lr_mount, id), load_mount, "mcp", &mcp_ids, err);
	if (!rc)
		rc = load_list(api, m->api, m->n_api, sizeof *m->api,
		               offsetof(lr_connector, id), load_connector,
		               "api", &api_ids, err);
	if (!rc)
		rc = load_list(tools, m->tools, m->n_tools, sizeof *m->tools,
		               offsetof(lr_tool, name), load_tool, "tools",
		               &tool_ids, err);
	if (!rc)
		rc = check_refs(m, mcp_ids, api_ids, err);
	free(mcp_ids);
	free(api_ids);
	free(tool_ids);
	return rc;
}

static int check_digest(lr_manifest *m, locus_error *err)
{
	const char *b = NULL;
	const cJSON *def = lr_json_obj(m->root, "definition", &b);
	const char *want = lr_json_str(m->root, "definition_digest", &b);
	if (b || !def)
		return bad(err, b ? b : "definition", "missing or mistyped");
	if (lr_json_digest(m->root, m->digest))
		return bad(err, "manifest", "has no canonical form");
	if (!want)
		return 0;
	char got[72];
	if (lr_json_digest(def, got))
		return bad(err, "definition", "has no canonical form");
	if (strcmp(got, want))
		return bad(err, "definition_digest",
		           "does not match the definition's canonical JSON");
	return 0;
}

int lr_manifest_load(lr_manifest *m, cJSON *root, locus_error *err)
{
	memset(m, 0, sizeof *m);
	m->root = root;
	int rc = lr_json_known(root, top_fields, "manifest", err);
	if (rc)
		return rc;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "version");
	if (!v || !(lr_json_is_int(v) && v->valuedouble == 1))
		return bad(err, "version", "missing or not 1");
	const char *b = NULL, *av;
	if ((rc = req_str(root, "run_id", 0, "manifest", &m->run_id, err)) ||
	    (rc = req_str(root, "tenant", 0, "manifest", &m->tenant, err)) ||
	    (rc = req_str(root, "agent", 0, "manifest", &m->agent, err)) ||
	    (rc = opt_str(root, "agent_version", NULL, "manifest", &av, err)) ||
	    (rc = opt_str(root, "instructions", "", "manifest",
	                  &m->instructions, err)) ||
	    (rc = opt_str(root, "input", "", "manifest", &m->input, err)))
		return rc;
	/* harness and playbook are free-form objects, carried as the original
	   does: only harness.plan_mode and the playbook's outline are read (for
	   the system prompt, runner/prompt.c); the gateway's own copy decides
	   through admission (docs/runner.md, decision 17) */
	m->harness = lr_json_obj(root, "harness", &b);
	m->playbook = lr_json_obj(root, "playbook", &b);
	if (b)
		return bad(err, b, "not an object or null");
	const cJSON *budgets = lr_json_obj(root, "budgets", &b);
	const cJSON *model = lr_json_obj(root, "model", &b);
	if (b)
		return bad(err, b, "not an object");
	if ((rc = check_digest(m, err)) || (rc = load_lists(m, err)) ||
	    (rc = load_budgets(&m->budgets, budgets, err)) ||
	    (rc = load_model(m, model, err)))
		return rc;
	return 0;
}

void lr_manifest_free(lr_manifest *m)
{
	for (size_t i = 0; m->mcp && i < m->n_mcp; i++) {
		free(m->mcp[i].session);
		free(m->mcp[i].tool_names);
	}
	free(m->tools);
	free(m->mcp);
	free(m->api);
	cJSON_Delete(m->root);
	memset(m, 0, sizeof *m);
}

const lr_tool *lr_manifest_tool(const lr_manifest *m, const char *name)
{
	for (size_t i = 0; i < m->n_tools; i++)
		if (!strcmp(m->tools[i].name, name))
			return &m->tools[i];
	return NULL;
}
