/*
 * runner/run.c - one runner process: ask the gateway what to do
 * (`GET /internal/v1/runner/next`), fetch and check the manifest
 * (`GET /internal/v1/runner/manifest`), build the runtime (refusing what
 * this runner does not have), wipe the secrets from the environment, run
 * or resume the loop, deliver the events, post the result
 * (`POST /internal/v1/runs/{id}/result`) and return the exit code:
 * 0 done, parked or told to stop; 2 refused; 1 error.
 */
#include "runner/runner.h"

#include "util/error.h"
#include "util/clock.h"
#include "util/array.h"
#include "util/buf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const next_fields[] = {"op", "resume", "reason", NULL};

/* mkdir -p of root/rel (0700 for what it creates); root must exist. */
static int make_dirs(const char *root, const char *dir)
{
	struct stat st;
	if (stat(root, &st) || !S_ISDIR(st.st_mode))
		return -1;
	char *p = strdup(dir);
	if (!p)
		return -1;
	for (char *s = p + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0700) && errno != EEXIST) {
				free(p);
				return -1;
			}
			*s = '/';
		}
	int rc = mkdir(p, 0700) && errno != EEXIST ? -1 : 0;
	free(p);
	return rc;
}

static bool safe_id(const char *s)
{
	return s && *s && strlen(s) <= 200 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                 "0123456789._-") == strlen(s) &&
	       strcmp(s, ".") && strcmp(s, "..");
}

/* A relative state folder without "..": the runner writes only there. */
static bool safe_rel(const char *s)
{
	if (!s || !*s || s[0] == '/')
		return false;
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, "/");
		if (!n || (n == 2 && !strncmp(p, "..", 2)))
			return false;
		p += n;
		if (*p)
			p++;
	}
	return true;
}

static int refuse(lr_end *end, char *why)
{
	end->status = "refused";
	free(end->error);
	end->error = why;
	return LOCUS_EDENIED;
}

/* A credential variable may not be one of the runner's own (LOCUS_*): a
   manifest naming LOCUS_ADMIT_TOKEN as a model key would send the run's
   token to the model's host. */
static const char *own_variable(const lr_manifest *m)
{
	if (!strncmp(m->model_key_env, "LOCUS_", 6))
		return m->model_key_env;
	for (size_t i = 0; i < m->n_mcp; i++)
		if (m->mcp[i].credential_env &&
		    !strncmp(m->mcp[i].credential_env, "LOCUS_", 6))
			return m->mcp[i].credential_env;
	for (size_t i = 0; i < m->n_api; i++)
		if (m->api[i].credential_env &&
		    !strncmp(m->api[i].credential_env, "LOCUS_", 6))
			return m->api[i].credential_env;
	return NULL;
}

/* What the runner cannot do is refused before anything runs. */
static int check_capabilities(lr_run *r, lr_end *end)
{
	const lr_manifest *m = &r->m;
	const char *own = own_variable(m);
	if (own)
		return refuse(end,
		              lr_strf("the manifest names the runner's own "
		                      "variable %.80s as a credential",
		                      own));
	if (strcmp(m->provider, "openai"))
		return refuse(
		    end, lr_strf("the model provider '%.60s' is not one this "
		                 "runner has (openai)",
		                 m->provider));
	if (!getenv(m->model_key_env))
		return refuse(
		    end, lr_strf("the model's key variable %.80s is not set",
		                 m->model_key_env));
	for (size_t i = 0; i < m->n_tools; i++) {
		const lr_tool *t = &m->tools[i];
		bool ok = true;
		if (t->runs == LR_RUNS_BOX) {
			ok = !strcmp(t->name, "ask_user") ||
			     !strcmp(t->name, "task");
			for (size_t k = 0; !ok && locus_all_tools[k]; k++)
				ok = !strcmp(t->name, locus_all_tools[k]);
			if (!ok)
				return refuse(
				    end, lr_strf("the box has no tool named "
				                 "'%.80s'",
				                 t->name));
		} else if (t->runs == LR_RUNS_MCP) {
			const lr_mount *mt = &m->mcp[t->target_index];
			if (strcmp(mt->transport, "streamable_http"))
				return refuse(
				    end,
				    lr_strf("MCP mount '%.80s': this runner "
				            "speaks streamable_http only",
				            mt->id));
			bool listed = !mt->n_tool_names;
			if (!listed)
				lu_sorted_find(mt->tool_names, mt->n_tool_names,
				               sizeof *mt->tool_names, 0,
				               t->name, &listed);
			if (!listed)
				return refuse(
				    end,
				    lr_strf("tool '%.80s' is not among its "
				            "mount's tools",
				            t->name));
		}
	}
	const char *unset = NULL;
	for (size_t i = 0; i < m->n_mcp + m->n_api && !unset; i++) {
		const char *env = i < m->n_mcp
		                      ? m->mcp[i].credential_env
		                      : m->api[i - m->n_mcp].credential_env;
		if (env && !getenv(env))
			unset = env;
	}
	if (unset)
		return refuse(
		    end,
		    lr_strf("the credential variable %.80s is not set", unset));
	return 0;
}

/* The model's view of one tool. */
static cJSON *tool_json(lr_run *r, const lr_tool *t)
{
	cJSON *o = cJSON_CreateObject(), *fn = cJSON_CreateObject();
	if (!o || !fn) {
		cJSON_Delete(o);
		cJSON_Delete(fn);
		return NULL;
	}
	cJSON_AddStringToObject(o, "type", "function");
	cJSON_AddStringToObject(fn, "name", t->name);
	const char *desc = t->description;
	const cJSON *params = t->parameters;
	cJSON *own = NULL;
	bool harness_tool = t->runs == LR_RUNS_BOX && strcmp(t->name, "task") &&
	                    strcmp(t->name, "ask_user");
	const cJSON *props =
	    params ? cJSON_GetObjectItem(params, "properties") : NULL;
	if (harness_tool && (!props || !props->child)) {
		const char *schema =
		    locus_harness_tool_schema(r->harness, t->name);
		locus_error err;
		if (schema &&
		    !lr_json_parse(schema, strlen(schema), &own, &err))
			params = own;
	}
	if (harness_tool && !desc[0])
		desc = locus_harness_tool_description(r->harness, t->name);
	cJSON_AddStringToObject(fn, "description", desc ? desc : "");
	if (params)
		cJSON_AddItemToObject(fn, "parameters",
		                      cJSON_Duplicate(params, 1));
	else {
		cJSON *p = cJSON_AddObjectToObject(fn, "parameters");
		if (p) {
			cJSON_AddStringToObject(p, "type", "object");
			cJSON_AddObjectToObject(p, "properties");
		}
	}
	cJSON_Delete(own);
	cJSON_AddItemToObject(o, "function", fn);
	return o;
}

static int build_harness(lr_run *r, locus_error *err)
{
	int rc = locus_backend_local_new(&r->backend, r->env->root,
	                                 "OpenShell sandbox", err);
	if (rc)
		return rc;
	/* The sandbox is the isolation; the gateway is the gate (no wrap). */
	r->backend->isolated = true;
	const char **names = calloc(r->m.n_tools + 1, sizeof *names);
	if (!names)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	size_t k = 0;
	for (size_t i = 0; i < r->m.n_tools; i++) {
		const lr_tool *t = &r->m.tools[i];
		if (t->runs == LR_RUNS_BOX && strcmp(t->name, "ask_user") &&
		    strcmp(t->name, "task"))
			names[k++] = t->name;
	}
	locus_harness_config cfg = LOCUS_HARNESS_CONFIG_INIT;
	cfg.environment = "sandbox";
	cfg.on_exec = lr_on_exec;
	cfg.payload = r;
	rc = locus_harness_new(&r->harness, r->backend,
	                       (const char *const *)names, NULL, NULL, &cfg,
	                       err);
	free(names);
	return rc;
}

static int build_runtime(lr_run *r, locus_error *err)
{
	int rc = build_harness(r, err);
	if (rc)
		return rc;
	r->tools_json = cJSON_CreateArray();
	r->messages = cJSON_CreateArray();
	if (!r->tools_json || !r->messages)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	for (size_t i = 0; i < r->m.n_tools; i++) {
		cJSON *t = tool_json(r, &r->m.tools[i]);
		if (!t)
			return lu_err(err, LOCUS_ENOMEM, "out of memory");
		cJSON_AddItemToArray(r->tools_json, t);
	}
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.max_attempts = 3;
	o.max_body = 16u << 20;
	return lhttp_client_new(&r->model_http, &o, err);
}

/* The secrets: the token, every placeholder the manifest names, and the
   variables a parent runner named in LOCUS_RUNNER_SECRETS (a child run
   inherits the parent's placeholders and must wipe them all, not only the
   ones its own manifest names). */
static int take_secrets(lr_run *r)
{
	const lr_manifest *m = &r->m;
	const char *inherited = getenv("LOCUS_RUNNER_SECRETS");
	char *list = strdup(inherited ? inherited : "");
	size_t n = 3 + m->n_mcp + m->n_api, k = 0;
	for (const char *p = list ? list : ""; *p; p++)
		n += *p == ',';
	const char **names = calloc(n + 1, sizeof *names);
	if (!names || !list) {
		free(names);
		free(list);
		return LOCUS_ENOMEM;
	}
	names[k++] = "LOCUS_ADMIT_TOKEN";
	names[k++] = m->model_key_env;
	for (size_t i = 0; i < m->n_mcp; i++)
		names[k++] = m->mcp[i].credential_env;
	for (size_t i = 0; i < m->n_api; i++)
		names[k++] = m->api[i].credential_env;
	for (char *save = NULL, *t = strtok_r(list, ",", &save); t && k < n;
	     t = strtok_r(NULL, ",", &save))
		names[k++] = t;
	int rc = lr_secrets_take(&r->secrets, names, k);
	free(names);
	free(list);
	return rc;
}

static cJSON *usage_json(const lr_run *r)
{
	cJSON *u = cJSON_CreateObject();
	if (!u)
		return NULL;
	cJSON_AddNumberToObject(u, "prompt_tokens", (double)r->prompt_tokens);
	cJSON_AddNumberToObject(u, "completion_tokens",
	                        (double)r->completion_tokens);
	cJSON_AddNumberToObject(
	    u, "total_tokens",
	    (double)(r->prompt_tokens + r->completion_tokens));
	cJSON_AddNumberToObject(u, "iterations", (double)r->iterations);
	return u;
}

/* .locus/result.json: how this process ended (a parent's task reads it). */
static void write_result_file(lr_run *r, const cJSON *body)
{
	if (lr_json_file_write(r->state_dir, "result.json", body))
		lr_logf(&r->log, "result.json could not be written");
}

static int post_result(lr_run *r, const lr_end *end)
{
	cJSON *b = cJSON_CreateObject();
	if (!b)
		return LOCUS_ENOMEM;
	cJSON_AddStringToObject(b, "status", end->status);
	if (end->final_message)
		cJSON_AddStringToObject(b, "final_message", end->final_message);
	if (end->stop_reason)
		cJSON_AddStringToObject(b, "stop_reason", end->stop_reason);
	if (end->error)
		cJSON_AddStringToObject(b, "error", end->error);
	if (strcmp(end->status, "refused")) {
		cJSON_AddItemToObject(b, "usage_reported", usage_json(r));
		cJSON_AddNumberToObject(b, "cost_usd_reported", r->cost_usd);
	}
	if (end->waiting)
		cJSON_AddItemToObject(b, "waiting",
		                      cJSON_Duplicate(end->waiting, 1));
	write_result_file(r, b);
	cJSON *ans = NULL;
	locus_error err;
	int rc = lr_gw_run_request(&r->gw, "POST", "result", b,
	                           LHTTP_RETRY_IDEMPOTENT, &ans, &err);
	cJSON_Delete(ans);
	cJSON_Delete(b);
	lr_logf(&r->log, "result %s: %s", end->status,
	        rc ? "not delivered" : "delivered");
	return rc;
}

/* GET next: -1 and *op set to go on, or an exit code (stop 0, failure 1). */
static int ask_next(lr_run *r, cJSON **ans, const char **op)
{
	locus_error err;
	int rc = lr_gw_request(&r->gw, "GET", "/internal/v1/runner/next", NULL,
	                       LHTTP_RETRY_IDEMPOTENT, ans, NULL, &err);
	if (rc) {
		lr_logf(&r->log, "next: the gateway could not be asked (%s)",
		        locus_error_code_name(rc));
		return LR_EXIT_ERROR;
	}
	*op = lr_json_str(*ans, "op", NULL);
	const char *why = NULL;
	if (!*op)
		why = "no op";
	else if (lr_json_known(*ans, next_fields, "next", &err))
		why = "unknown fields";
	else if (strcmp(*op, "start") && strcmp(*op, "resume") &&
	         strcmp(*op, "stop"))
		why = "an unknown op";
	else if (!strcmp(*op, "resume") && !lr_json_obj(*ans, "resume", NULL))
		why = "resume without a resume object";
	if (why || !strcmp(*op, "stop")) {
		lr_logf(&r->log, "next: stop (%s)",
		        why ? why
		            : "the gateway "
		              "said stop");
		return LR_EXIT_DONE;
	}
	lr_logf(&r->log, "next: %s", *op);
	return -1;
}

/* GET manifest and load it; 0, or the end (refused/error) filled. */
static int get_manifest(lr_run *r, lr_end *end)
{
	cJSON *root = NULL;
	locus_error err;
	int rc = lr_gw_request(&r->gw, "GET", "/internal/v1/runner/manifest",
	                       NULL, LHTTP_RETRY_IDEMPOTENT, &root, NULL, &err);
	if (rc == LOCUS_EINVALID || (!rc && !root))
		return refuse(end, lr_strf("the manifest is malformed: %s",
		                           rc ? err.message : "empty"));
	if (rc) {
		end->status = "error";
		end->error = strdup("the manifest could not be fetched");
		return rc;
	}
	if ((rc = lr_manifest_load(&r->m, root, &err)))
		return refuse(end, lr_strf("%s", err.message));
	lr_logf(&r->log, "manifest %s (%zu tools)", r->m.digest, r->m.n_tools);
	if (strcmp(r->m.run_id, r->env->run_id))
		return refuse(
		    end, lr_strf("the manifest is for run '%.80s', not this "
		                 "box's",
		                 r->m.run_id));
	return 0;
}

static int prepare(lr_run *r, lr_end *end)
{
	int rc = get_manifest(r, end);
	if (rc || (rc = check_capabilities(r, end)))
		return rc;
	locus_error err;
	if (take_secrets(r) || build_runtime(r, &err)) {
		end->status = "error";
		end->error = strdup("the runtime could not be built");
		return LOCUS_EIO;
	}
	if (lr_secrets_wipe(&r->secrets, r->env->harden, &err)) {
		lr_logf(&r->log, "secrets: %s", err.message);
		end->status = "error";
		end->error = strdup(err.message);
		return LOCUS_EIO;
	}
	lr_logf(&r->log, "secrets: %zu variables wiped%s", r->secrets.n,
	        r->env->harden ? ", non-dumpable" : "");
	return 0;
}

static void run_free(lr_run *r)
{
	locus_harness_free(r->harness);
	locus_backend_free(r->backend);
	lhttp_client_free(r->model_http);
	cJSON_Delete(r->messages);
	cJSON_Delete(r->tools_json);
	lr_manifest_free(&r->m);
	lr_events_close(&r->ev);
	lr_secrets_free(&r->secrets);
	lr_gw_close(&r->gw);
	lr_log_close(&r->log);
	free(r->state_dir);
}

static int finish(lr_run *r, lr_end *end)
{
	locus_error err;
	/* no command runs past this point (background jobs are killed), so
	   none can add to or race the last delivery */
	locus_harness_free(r->harness);
	r->harness = NULL;
	locus_backend_free(r->backend);
	r->backend = NULL;
	int ev = lr_events_flush(&r->ev, &err);
	int rc = post_result(r, end);
	int code = !strcmp(end->status, "refused") ? LR_EXIT_REFUSED
	           : !strcmp(end->status, "error") ? LR_EXIT_ERROR
	                                           : LR_EXIT_DONE;
	if (rc || ev) {
		lr_logf(&r->log, "%s",
		        rc ? "the result was not delivered"
		           : "events are still spooled");
		if (code == LR_EXIT_DONE)
			code = LR_EXIT_ERROR;
	}
	return code;
}

int lr_main(const lr_env *env)
{
	lr_run r = {.env = env, .t0 = lu_now()};
	if (!env->root || !env->state_dir || !safe_rel(env->state_dir))
		return LR_EXIT_ERROR;
	if (!(r.state_dir = lr_path(env->root, env->state_dir)))
		return LR_EXIT_ERROR;
	if (make_dirs(env->root, r.state_dir)) {
		free(r.state_dir);
		return LR_EXIT_ERROR;
	}
	char *lp = lr_path(r.state_dir, "runner.log");
	if (lp) {
		lr_log_open(&r.log, lp);
		free(lp);
	}
	locus_error err;
	if (!env->url || !*env->url || !env->token || !*env->token ||
	    !safe_id(env->run_id)) {
		lr_logf(&r.log, "LOCUS_ADMIT_URL, LOCUS_ADMIT_TOKEN or "
		                "LOCUS_RUN_ID is missing or malformed");
		run_free(&r);
		return LR_EXIT_ERROR;
	}
	if (lr_gw_open(&r.gw, env->url, env->token, env->run_id, &r.log,
	               &err) ||
	    lr_events_open(&r.ev, &r.gw, r.state_dir, &r.log, &err)) {
		lr_logf(&r.log, "start: %s", err.message);
		run_free(&r);
		return LR_EXIT_ERROR;
	}
	cJSON *next = NULL;
	const char *op = NULL;
	int code = ask_next(&r, &next, &op);
	if (code < 0) {
		lr_end end = {0};
		if (!prepare(&r, &end))
			lr_loop(&r, op, lr_json_obj(next, "resume", NULL),
			        &end);
		if (!end.status)
			end.status = "error";
		code = finish(&r, &end);
		lr_end_clear(&end);
	}
	cJSON_Delete(next);
	run_free(&r);
	return code;
}
