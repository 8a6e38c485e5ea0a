/*
 * gateway/runs.c - making runs.  A run comes from an agent definition (a
 * JSON object: the manifest's own fields that are not the gateway's to
 * fill, plus `policy` and `workspace`, docs/gateway.md); the gateway adds
 * the run id, tenant, agent, `definition_digest`, checks the manifest
 * with the runner's own loader (a manifest the runner would refuse is
 * never stored), picks the policy, mints the run's token (kept hashed)
 * and stores all of it with an audit record.  A child run (the task
 * tool) is its parent's manifest with the child's id, agent and prompt,
 * without the task tool, under the parent's policy.
 */
#include "gateway/gw.h"

#include <stdio.h>

#include "harness/internal.h"
#include "runner/json.h"
#include "runner/runner.h"
#include "util/sha256.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* clang-format off */
static const char *const def_fields[] = {
    "instructions", "input", "tools", "mcp", "api", "harness", "playbook",
    "budgets", "model", "definition", "policy", "workspace", "agent",
    "tenant", NULL};
/* the definition's members copied into the manifest as they are */
static const char *const carried[] = {
    "instructions", "input", "tools", "mcp", "api", "harness", "playbook",
    "budgets", "model", NULL};
/* clang-format on */

/* The manifest checked as the runner checks it (takes m). */
static int runner_accepts(cJSON *m, locus_error *err)
{
	lr_manifest lm;
	cJSON *copy = cJSON_Duplicate(m, true);
	if (!copy)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	int rc = lr_manifest_load(&lm, copy, err);
	lr_manifest_free(&lm);
	return rc;
}

static int store_run(gw_server *s, cJSON *m, const char *tenant,
                     const char *parent, const char *agent, const char *box,
                     const char *workspace, const char *policy, gw_new_run *out,
                     locus_error *err)
{
	char *text = lr_json_canonical(m);
	char fp[72] = "sha256:";
	lu_sha256_hex(policy, strlen(policy), fp + 7);
	int rc = text ? 0 : lu_err(err, LOCUS_ENOMEM, "out of memory");
	char hash[65];
	gw_token_hash(out->token, hash);
	int64_t now = (int64_t)time(NULL);
	gw_db *db = &s->db;
	if (!rc)
		rc = gw_exec(
		    db, err,
		    "INSERT INTO runs (run_id, tenant, parent_id, "
		    "agent, box, workspace, manifest, policy, "
		    "policy_fingerprint, state, created_at, updated_at) "
		    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'created', ?, ?)",
		    "sssssssssii", out->run_id, tenant, parent, agent, box,
		    workspace, text, policy, fp, now, now);
	if (!rc)
		rc = gw_exec(db, err,
		             "INSERT INTO tokens VALUES (?, 'run', ?, ?, ?, 0)",
		             "sssi", hash, out->run_id, tenant, now);
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "agent", agent);
	cJSON_AddStringToObject(rec, "box", box);
	if (parent)
		cJSON_AddStringToObject(rec, "parent_id", parent);
	cJSON_AddStringToObject(rec, "definition_digest",
	                        lr_json_str(m, "definition_digest", NULL));
	cJSON_AddStringToObject(rec, "policy_fingerprint", fp);
	if (!rc)
		rc = gw_audit(db, "run.create", out->run_id, rec, NULL, err);
	cJSON_Delete(rec);
	free(text);
	return rc;
}

static int mint(gw_new_run *out, locus_error *err)
{
	int rc = gw_new_id("run-", out->run_id, err);
	return rc ? rc : gw_new_id("lgr_", out->token, err);
}

/* The definition's own checks: known fields, types. */
static int check_def(const cJSON *def, const char **tenant, const char **ws,
                     const cJSON **policy, locus_error *err)
{
	int rc = lr_json_known(def, def_fields, "definition", err);
	if (rc)
		return rc;
	const char *bad = NULL;
	*tenant = lr_json_str(def, "tenant", &bad);
	*ws = lr_json_str(def, "workspace", &bad);
	lr_json_str(def, "agent", &bad);
	lr_json_obj(def, "definition", &bad);
	*policy = lr_json_obj(def, "policy", &bad);
	if (bad)
		return lu_err(err, LOCUS_EINVALID, "definition: %s: wrong type",
		              bad);
	if (*ws && (*ws)[0] != '/')
		return lu_err(err, LOCUS_EINVALID,
		              "definition: workspace is not an absolute path");
	if (*tenant && !**tenant)
		return lu_err(err, LOCUS_EINVALID,
		              "definition: an empty tenant");
	return 0;
}

int gw_run_create(gw_server *s, const cJSON *def, const char *box,
                  const char *parent, gw_new_run *out, locus_error *err)
{
	const char *tenant, *ws;
	const cJSON *pol;
	int rc = check_def(def, &tenant, &ws, &pol, err);
	if (rc)
		return rc;
	char *policy = NULL;
	cJSON *std = NULL;
	if (!pol) {
		std = cJSON_CreateObject();
		cJSON_AddStringToObject(std, "preset", "standard");
	}
	if ((rc = gw_policy_text(pol ? pol : std, &policy, err))) {
		cJSON_Delete(std);
		return rc;
	}
	cJSON_Delete(std);
	if ((rc = mint(out, err))) {
		free(policy);
		return rc;
	}
	const cJSON *d = lr_json_obj(def, "definition", NULL);
	cJSON *definition = cJSON_Duplicate(d ? d : def, true);
	const char *name = lr_json_str(def, "agent", NULL);
	if (!name)
		name = lr_json_str(definition, "name", NULL);
	if (!name)
		name = "agent";
	cJSON *m = cJSON_CreateObject();
	char digest[72] = "";
	cJSON_AddNumberToObject(m, "version", 1);
	cJSON_AddStringToObject(m, "run_id", out->run_id);
	cJSON_AddStringToObject(m, "tenant", tenant ? tenant : "default");
	cJSON_AddStringToObject(m, "agent", name);
	cJSON_AddNullToObject(m, "agent_version");
	rc = definition ? lr_json_digest(definition, digest) : LOCUS_ENOMEM;
	cJSON_AddItemToObject(m, "definition", definition);
	cJSON_AddStringToObject(m, "definition_digest", digest);
	for (size_t i = 0; carried[i]; i++) {
		const cJSON *v =
		    cJSON_GetObjectItemCaseSensitive(def, carried[i]);
		if (v)
			cJSON_AddItemToObject(m, carried[i],
			                      cJSON_Duplicate(v, true));
	}
	if (rc)
		rc = lu_err(err, LOCUS_EINVALID,
		            "definition: has no canonical form");
	if (!rc)
		rc = runner_accepts(m, err);
	if (!rc)
		rc = store_run(s, m, tenant ? tenant : "default", parent, name,
		               box, ws, policy, out, err);
	cJSON_Delete(m);
	free(policy);
	return rc;
}

int gw_child_create(gw_server *s, const char *parent, const char *call_id,
                    const char *agent, const char *prompt, gw_new_run *out,
                    locus_error *err)
{
	gw_stmt *st =
	    gw_q(&s->db, err,
	         "SELECT manifest, policy, tenant, workspace, state FROM runs "
	         "WHERE run_id = ?",
	         "s", parent);
	char *man = NULL, *policy = NULL, *tenant = NULL, *ws = NULL,
	     *state = NULL;
	if (st && gw_row(st)) {
		man = gw_col_dup(st, 0);
		policy = gw_col_dup(st, 1);
		tenant = gw_col_dup(st, 2);
		ws = gw_col_dup(st, 3);
		state = gw_col_dup(st, 4);
	}
	gw_done(st);
	cJSON *m = NULL;
	int rc = man && policy && tenant && state
	             ? lr_json_parse(man, strlen(man), &m, err)
	             : LOCUS_EIO;
	if (!rc && strcmp(state, "running"))
		rc = lu_err(err, LOCUS_EDENIED, "the parent run is %s", state);
	if (!rc)
		rc = mint(out, err);
	if (!rc) {
		cJSON_ReplaceItemInObjectCaseSensitive(
		    m, "run_id", cJSON_CreateString(out->run_id));
		cJSON_ReplaceItemInObjectCaseSensitive(
		    m, "agent", cJSON_CreateString(agent));
		cJSON_DeleteItemFromObjectCaseSensitive(m, "input");
		cJSON_AddStringToObject(m, "input", prompt);
		cJSON *tools = cJSON_GetObjectItemCaseSensitive(m, "tools");
		for (cJSON *t = cJSON_IsArray(tools) ? tools->child : NULL;
		     t;) {
			cJSON *next = t->next;
			const char *n = lr_json_str(t, "name", NULL);
			if (n && !strcmp(n, "task"))
				cJSON_Delete(
				    cJSON_DetachItemViaPointer(tools, t));
			t = next;
		}
		rc = runner_accepts(m, err);
	}
	(void)call_id;
	if (!rc)
		rc = store_run(s, m, tenant, parent, agent, "child", ws, policy,
		               out, err);
	cJSON_Delete(m);
	free(man);
	free(policy);
	free(tenant);
	free(ws);
	free(state);
	return rc;
}
