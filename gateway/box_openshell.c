/*
 * gateway/box_openshell.c - the `openshell` box: a run's runner as the
 * main process (SandboxSpec.command) of an NVIDIA OpenShell sandbox made
 * through the gRPC client (net/openshell_client.h), and the monitor that
 * notices when that process has ended.
 *
 * Upstream, any exit of a sandbox's main process (0 too) leaves the
 * sandbox ERROR for good and StartSandbox takes only a STOPPED one, so a
 * box is never started twice: each start of a run's box (the first one,
 * and each after a decision wakes a parked run) deletes the run's earlier
 * sandbox and creates a new one named "lb-<12 hex of the run id's
 * SHA-256>-<n>" (n counts the run's box starts: at most 19 characters, a
 * DNS label, as the gateway requires), so a sandbox made just before a
 * crash of this gateway is still found and deleted by the next start.
 * Its environment holds what docs/runner.md says a box gets: the gateway's
 * URL as the box reaches it, the run's fresh token, the run id, the
 * runner's root, and for each credential variable the manifest names
 * (model.api_key_env, mcp[].credential_env, api[].credential_env) the
 * placeholder openshell:resolve:env:NAME that the sandbox's proxy swaps
 * for the provider's secret on the right host; never a secret of this
 * gateway.
 *
 * The monitor (a thread; over PostgreSQL one in each replica) reads every
 * run with a live sandbox and asks for it: a sandbox that is ERROR (its
 * runner exited, or it never came up) or gone is deleted, and the run's
 * row forgets it.  A run still `created`, `running` or `stopping` then
 * has lost its box before it said how it ended: it becomes `error` (a
 * stopping run `stopped`) with the reason (exit code and the sandbox's
 * condition), its pending approvals abandoned, in one transaction with
 * its audit record; its events, checkpoints and decisions stay.  Each
 * update names the sandbox it saw, so a box started meanwhile (here or
 * on another replica) is never taken for the ended one.
 */
#include "gateway/box.h"

#include <stdio.h>

#include "net/openshell_client.h"
#include "runner/json.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PLACEHOLDER "openshell:resolve:env:"
#define MAX_CREDS 64

/* The sandbox of run_id's n-th box start: "lb-<12 hex>-<n>". */
static void gw_os_sandbox_name(const char *run_id, int64_t n, char out[24])
{
	char hash[65];
	gw_token_hash(run_id, hash);
	snprintf(out, 24, "lb-%.12s-%lld", hash, (long long)n);
}

static int os_client(gw_server *s, lh_os_client *c, locus_error *err)
{
	const gw_openshell *o = &s->cfg.os;
	memset(c, 0, sizeof *c);
	lh_grpc_channel_opts co = {.endpoint = o->endpoint,
	                           .ca_file = o->ca_file,
	                           .cert_file = o->cert_file,
	                           .key_file = o->key_file,
	                           .bearer_token = o->token};
	c->workspace = o->workspace;
	c->call_timeout_s = 30;
	return lh_grpc_channel_new(&c->ch, &co, err);
}

/* The credential variables the manifest names (borrowed from m). */
static size_t cred_names(const cJSON *m, const char **out)
{
	size_t n = 0;
	const char *k =
	    lr_json_str(lr_json_obj(m, "model", NULL), "api_key_env", NULL);
	if (k)
		out[n++] = k;
	static const char *const lists[] = {"mcp", "api"};
	for (size_t l = 0; l < 2; l++) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(m, lists[l]);
		if (!cJSON_IsArray(a))
			continue;
		const cJSON *e;
		cJSON_ArrayForEach(e, a)
		{
			const char *v = lr_json_str(e, "credential_env", NULL);
			bool seen = false;
			for (size_t i = 0; v && i < n; i++)
				seen = seen || !strcmp(out[i], v);
			if (v && !seen && n < MAX_CREDS)
				out[n++] = v;
		}
	}
	return n;
}

/* A box that could not start (sandbox NULL: the start numbered n
   failed) or that ended (the run still names `sandbox`): the run's new
   state when it had not ended, and the record.  Inside a transaction. */
static int box_over(gw_db *db, const char *run_id, const char *sandbox,
                    int64_t n, const char *why, int exit_code, bool has_exit,
                    locus_error *err)
{
	gw_stmt *st = gw_q(
	    db, err, "SELECT state, sandbox, box_n FROM runs WHERE run_id = ?",
	    "s", run_id);
	char *state = NULL, *live = NULL;
	int64_t live_n = -1;
	if (st && gw_row(st)) {
		state = gw_col_dup(st, 0);
		live = gw_col_dup(st, 1);
		live_n = gw_int(st, 2);
	}
	gw_done(st);
	int rc = state ? 0 : LOCUS_EIO;
	bool ours =
	    !rc && (sandbox ? live && !strcmp(live, sandbox) : live_n == n);
	/* a parked run whose new box did not start cannot resume */
	const char *now = NULL;
	if (ours && (!strcmp(state, "created") || !strcmp(state, "running") ||
	             (!sandbox && !strcmp(state, "parked"))))
		now = "error";
	else if (ours && !strcmp(state, "stopping"))
		now = "stopped";
	if (ours && now) {
		cJSON *res = cJSON_CreateObject();
		cJSON_AddStringToObject(res, "status", "error");
		lu_buf eb = {0};
		lu_buf_printf(
		    &eb, "%s%s",
		    sandbox ? "the box ended before the run did: " : "", why);
		char *etext = lu_buf_take(&eb);
		cJSON_AddStringToObject(res, "error", etext ? etext : why);
		free(etext);
		char *text = lr_json_canonical(res);
		cJSON_Delete(res);
		rc = text ? gw_exec(db, err,
		                    "UPDATE runs SET state = ?, result = ?, "
		                    "updated_at = ? WHERE run_id = ?",
		                    "ssis", now, text, (int64_t)time(NULL),
		                    run_id)
		          : LOCUS_ENOMEM;
		free(text);
		if (!rc)
			rc = gw_abandon_pending(db, run_id,
			                        "the run's box ended", err);
	}
	if (!rc && ours)
		rc = gw_exec(db, err,
		             "UPDATE runs SET sandbox = NULL WHERE run_id = ?",
		             "s", run_id);
	if (!rc && ours) {
		cJSON *rec = cJSON_CreateObject();
		cJSON_AddStringToObject(rec, "box", "openshell");
		if (sandbox)
			cJSON_AddStringToObject(rec, "sandbox", sandbox);
		cJSON_AddStringToObject(rec, "why", why);
		if (has_exit)
			cJSON_AddNumberToObject(rec, "exit_code", exit_code);
		cJSON_AddStringToObject(rec, "run_state", now ? now : state);
		rc = gw_audit(db, sandbox ? "box.end" : "box.error", run_id,
		              rec, NULL, err);
		cJSON_Delete(rec);
	}
	free(state);
	free(live);
	return rc;
}

static int box_over_tx(gw_server *s, const char *run_id, const char *sandbox,
                       int64_t n, const char *why, int exit_code, bool has_exit)
{
	locus_error err;
	int rc = gw_tx_begin(&s->db, &err);
	if (rc)
		return rc;
	rc = box_over(&s->db, run_id, sandbox, n, why, exit_code, has_exit,
	              &err);
	if (gw_tx_end(&s->db, rc == 0, &err) && !rc)
		rc = LOCUS_EIO;
	if (!rc)
		gw_notify(s);
	return rc;
}

typedef struct os_env {
	lh_os_kv kv[MAX_CREDS + 8];
	char *owned[MAX_CREDS];
	size_t n, nowned;
} os_env;

static void os_env_free(os_env *e)
{
	for (size_t i = 0; i < e->nowned; i++)
		free(e->owned[i]);
}

static void os_env_put(os_env *e, const char *k, const char *v)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->kv[i].key, k)) {
			e->kv[i].value = v; /* the runner's own win */
			return;
		}
	e->kv[e->n++] = (lh_os_kv){k, v};
}

/* Delete `name` (gone already is fine). */
static int delete_box(lh_os_client *c, const char *name, locus_error *err)
{
	bool deleted;
	int rc = lh_os_delete_sandbox(c, name, &deleted, err);
	return rc == LOCUS_ENOTFOUND ? 0 : rc;
}

/* Delete the run's earlier sandbox, create the n-th with the runner as
   its main process (token, run id, root, placeholders in its
   environment) and let the monitor watch it; a failure makes the run
   `error` with the reason (its own transaction).  Outside any
   transaction. */
static int gw_os_box_start(gw_server *s, const char *run_id, const char *token,
                           const char *manifest, const char *workspace,
                           int64_t n, locus_error *err)
{
	const gw_openshell *o = &s->cfg.os;
	if (!o->endpoint) {
		box_over_tx(s, run_id, NULL, n,
		            "this gateway has no OpenShell gateway "
		            "(serve --openshell-endpoint)",
		            0, false);
		return lu_err(err, LOCUS_EINVALID,
		              "this gateway has no OpenShell gateway (serve "
		              "--openshell-endpoint)");
	}
	char name[24], prev[24];
	gw_os_sandbox_name(run_id, n, name);
	gw_os_sandbox_name(run_id, n - 1, prev);
	cJSON *m = NULL;
	int rc = lr_json_parse(manifest, strlen(manifest), &m, err);
	os_env env = {0};
	const char *creds[MAX_CREDS];
	size_t nc = rc ? 0 : cred_names(m, creds);
	for (size_t i = 0; i < nc; i++) {
		lu_buf b = {0};
		lu_buf_printf(&b, PLACEHOLDER "%s", creds[i]);
		char *v = lu_buf_take(&b);
		if (!v) {
			rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
			break;
		}
		env.owned[env.nowned++] = v;
		os_env_put(&env, creds[i], v);
	}
	os_env_put(&env, "LOCUS_ADMIT_URL",
	           o->admit_url ? o->admit_url : s->url);
	os_env_put(&env, "LOCUS_ADMIT_TOKEN", token);
	os_env_put(&env, "LOCUS_RUN_ID", run_id);
	os_env_put(&env, "LOCUS_RUNNER_ROOT",
	           workspace && *workspace ? workspace : "/sandbox");
	const char *runner = o->runner ? o->runner : "/usr/local/bin/locus";
	const char *const argv[] = {runner, "runner"};
	const char *provs[33];
	size_t np = 0;
	char *plist = o->providers ? strdup(o->providers) : NULL;
	for (char *save = NULL, *p = plist ? strtok_r(plist, ",", &save) : NULL;
	     p && np < 32; p = strtok_r(NULL, ",", &save))
		provs[np++] = p;
	lh_os_client c = {0};
	if (!rc)
		rc = os_client(s, &c, err);
	/* the run's earlier sandbox (its runner parked and exited) */
	if (!rc && n > 1)
		rc = delete_box(&c, prev, err);
	lh_os_sandbox sb = {0};
	lh_os_create cr = {.name = name,
	                   .image = o->image,
	                   .providers = provs,
	                   .nproviders = np,
	                   .command = argv,
	                   .ncommand = 2,
	                   .env = env.kv,
	                   .nenv = env.n};
	if (!rc)
		rc = lh_os_create_sandbox(&c, &cr, &sb, err);
	lh_os_sandbox_clear(&sb);
	if (c.ch)
		lh_grpc_channel_free(c.ch);
	cJSON_Delete(m);
	os_env_free(&env);
	free(plist);
	if (rc) {
		char why[400];
		snprintf(why, sizeof why,
		         "the openshell box could not be created: %s",
		         err->message);
		box_over_tx(s, run_id, NULL, n, why, 0, false);
		return rc;
	}
	/* the monitor watches it from now on (a box started meanwhile has
	   another n, and wins) */
	rc = gw_tx_begin(&s->db, err);
	if (!rc) {
		rc = gw_exec(&s->db, err,
		             "UPDATE runs SET sandbox = ? WHERE run_id = ? AND "
		             "box_n = ?",
		             "ssi", name, run_id, n);
		if (gw_tx_end(&s->db, rc == 0, err) && !rc)
			rc = LOCUS_EIO;
	}
	return rc;
}

static int os_start(gw_server *s, const gw_box_run *b, locus_error *err)
{
	return gw_os_box_start(s, b->run_id, b->token, b->manifest,
	                       b->workspace, b->n, err);
}

const gw_box_ops gw_box_openshell = {
    .kind = "openshell", .name = gw_os_sandbox_name, .start = os_start};

/* ---- the monitor ---- */

typedef struct watched {
	char run_id[208];
	char sandbox[24];
} watched;

/* One look at every run with a live sandbox (at most 256 a sweep). */
int gw_os_sweep(gw_server *s, locus_error *err)
{
	gw_db *db = &s->db;
	watched *w = calloc(256, sizeof *w);
	if (!w)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	size_t n = 0;
	gw_db_lock(db);
	gw_stmt *st = gw_q(db, err,
	                   "SELECT run_id, sandbox FROM runs WHERE sandbox IS "
	                   "NOT NULL ORDER BY run_id LIMIT 256",
	                   "");
	while (st && gw_row(st) && n < 256) {
		snprintf(w[n].run_id, sizeof w[n].run_id, "%s", gw_text(st, 0));
		snprintf(w[n].sandbox, sizeof w[n].sandbox, "%s",
		         gw_text(st, 1));
		n++;
	}
	bool failed = gw_failed(st);
	gw_done(st);
	gw_db_unlock(db);
	lh_os_client c = {0};
	int rc = failed ? LOCUS_EIO : n ? os_client(s, &c, err) : 0;
	for (size_t i = 0; !rc && i < n; i++) {
		lh_os_sandbox sb = {0};
		locus_error e;
		int g = lh_os_get_sandbox(&c, w[i].sandbox, &sb, &e);
		char why[600];
		bool ended = false, has_exit = false;
		int code = 0;
		if (g == LOCUS_ENOTFOUND) {
			ended = true;
			snprintf(why, sizeof why,
			         "the openshell sandbox %s is gone (deleted "
			         "outside this gateway)",
			         w[i].sandbox);
		} else if (!g && sb.phase == LH_OS_PHASE_ERROR) {
			ended = true;
			has_exit = sb.has_exit_code;
			code = sb.exit_code;
			if (has_exit)
				snprintf(why, sizeof why,
				         "the runner in openshell sandbox %s "
				         "exited with code %d (%s)",
				         w[i].sandbox, code,
				         sb.condition ? sb.condition : "");
			else
				snprintf(why, sizeof why,
				         "the openshell sandbox %s failed: %s",
				         w[i].sandbox,
				         sb.condition ? sb.condition : "ERROR");
		}
		lh_os_sandbox_clear(&sb);
		/* a gateway that cannot be asked now: the next sweep */
		if (!ended)
			continue;
		if (delete_box(&c, w[i].sandbox, &e))
			continue;
		box_over_tx(s, w[i].run_id, w[i].sandbox, 0, why, code,
		            has_exit);
	}
	if (c.ch)
		lh_grpc_channel_free(c.ch);
	free(w);
	return rc;
}

static void *monitor(void *arg)
{
	gw_server *s = arg;
	double p = s->cfg.os.poll_s > 0 ? s->cfg.os.poll_s : 2;
	int64_t every = p < 0.05 ? 50 : p > 60 ? 60000 : (int64_t)(p * 1000);
	gw_every(s, every, gw_os_sweep);
	return NULL;
}

int gw_os_monitor_start(gw_server *s, locus_error *err)
{
	if (!s->cfg.os.endpoint)
		return 0;
	return gw_thread_start(s, &s->os_monitor, &s->has_os_monitor, monitor,
	                       "the openshell box monitor", err);
}

void gw_os_monitor_stop(gw_server *s)
{
	gw_thread_stop(s, &s->os_monitor, &s->has_os_monitor);
}
