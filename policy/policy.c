/*
 * policy/policy.c - the ControlPolicy: defaults, the strict loader, the
 * embedded presets, and the effective policy as JSON (spec policy.md s. 2).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../util/array.h"
#include "../util/json.h"
#include "../util/read.h"

/* --- string sets -------------------------------------------------------- */

int pl_strset_add(pl_strset *s, const char *v)
{
	return lu_strs_insert(&s->items, &s->n, &s->cap, v, NULL) ? LOCUS_ENOMEM
	                                                          : 0;
}

bool pl_strset_has(const pl_strset *s, const char *v)
{
	bool found;
	lu_sorted_find(s->items, s->n, sizeof *s->items, 0, v, &found);
	return found;
}

void pl_strset_free(pl_strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->items[i]);
	free(s->items);
	memset(s, 0, sizeof(*s));
}

/* --- names -------------------------------------------------------------- */

static const char *const outcome_names[] = {"allow", "require_human", "deny"};
static const char *const severity_names[] = {"low", "medium", "high",
                                             "critical"};

const char *locus_outcome_name(locus_outcome o)
{
	return ((unsigned)o < 3) ? outcome_names[o] : "";
}

const char *locus_severity_name(locus_severity s)
{
	return ((unsigned)s < 4) ? severity_names[s] : "";
}

int locus_severity_parse(locus_severity *out, const char *name)
{
	for (int i = 0; out && name && i < 4; i++) {
		if (strcmp(name, severity_names[i]) == 0) {
			*out = (locus_severity)i;
			return 0;
		}
	}
	return LOCUS_EINVALID;
}

/* --- construction ------------------------------------------------------- */

int locus_policy_new(locus_policy **out)
{
	if (!out)
		return LOCUS_EUSAGE;
	*out = NULL;
	locus_policy *p = calloc(1, sizeof(*p));
	if (!p)
		return LOCUS_ENOMEM;
	p->min_severity = LOCUS_SEVERITY_LOW;
	p->require_verification_score = 0.8;
	p->max_blast_radius = 1;
	p->require_sandbox_strict = true;
	p->version = strdup("");
	if (!p->version || pl_strset_add(&p->require_human_for, "production")) {
		locus_policy_free(p);
		return LOCUS_ENOMEM;
	}
	*out = p;
	return 0;
}

void locus_policy_free(locus_policy *p)
{
	if (!p)
		return;
	pl_strset_free(&p->deny_for);
	pl_strset_free(&p->require_sandbox_for);
	pl_strset_free(&p->allow_sandboxed_for);
	pl_strset_free(&p->require_human_for);
	for (int i = 0; i < 3; i++)
		pl_rules_free(&p->rules[i]);
	free(p->version);
	for (size_t i = 0; i < p->nprotected; i++)
		free(p->protected_paths[i]);
	free(p->protected_paths);
	free(p);
}

int locus_policy_protect_path(locus_policy *p, const char *path)
{
	if (!p || !path || !*path)
		return LOCUS_EUSAGE;
	char real[PATH_MAX];
	const char *keep = realpath(path, real) ? real : path;
	if (!lu_reserve(&p->protected_paths, &p->protected_cap,
	                p->nprotected + 1))
		return LOCUS_ENOMEM;
	char *copy = strdup(keep);
	if (!copy)
		return LOCUS_ENOMEM;
	p->protected_paths[p->nprotected++] = copy;
	return 0;
}

const char *locus_policy_version(const locus_policy *p)
{
	return p && p->version ? p->version : "";
}

size_t locus_policy_rule_count(const locus_policy *p, locus_rule_list list)
{
	unsigned i = (unsigned)list;
	return p && i < sizeof p->rules / sizeof p->rules[0] ? p->rules[i].n
	                                                     : 0;
}

/* --- the loader --------------------------------------------------------- */

/* Largest integer a double holds exactly: bigger counts are refused
 * rather than silently rounded. */
#define PL_MAX_INT 9007199254740991.0

static int load_labels(const pl_doc *doc, const cJSON *v, const char *field,
                       pl_strset *set, locus_error *err)
{
	if (!cJSON_IsArray(v))
		return pl_doc_error(doc, v, field, err,
		                    "expected an array of label strings");
	pl_strset_free(set);
	for (const cJSON *c = v->child; c; c = c->next) {
		if (!cJSON_IsString(c))
			return pl_doc_error(doc, c, field, err,
			                    "expected a label string");
		if (c->valuestring[0] == '\0')
			return pl_doc_error(doc, c, field, err,
			                    "a label is never empty");
		if (pl_strset_add(set, c->valuestring))
			return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	return 0;
}

/* A finite number from 0 to `max` into *out; `type` and `range` are the
   error messages for a value that is not a number or out of range. */
static int load_number(const pl_doc *doc, const cJSON *v, const char *field,
                       double max, const char *type, const char *range,
                       double *out, locus_error *err)
{
	if (!cJSON_IsNumber(v))
		return pl_doc_error(doc, v, field, err, "%s", type);
	if (!isfinite(v->valuedouble) || v->valuedouble < 0 ||
	    v->valuedouble > max)
		return pl_doc_error(doc, v, field, err, "%s", range);
	*out = v->valuedouble;
	return 0;
}

static int load_usd(const pl_doc *doc, const cJSON *v, const char *field,
                    bool *has, double *out, locus_error *err)
{
	if (cJSON_IsNull(v)) {
		*has = false;
		return 0;
	}
	int rc = load_number(doc, v, field, 1e15,
	                     "expected a number of US dollars or null",
	                     "out of range (0 to 1e15 US dollars)", out, err);
	*has = rc == 0;
	return rc;
}

static int load_field(locus_policy *p, const pl_doc *doc, const cJSON *v,
                      locus_error *err)
{
	const char *k = v->string;
	if (strcmp(k, "deny_for") == 0)
		return load_labels(doc, v, k, &p->deny_for, err);
	if (strcmp(k, "require_sandbox_for") == 0)
		return load_labels(doc, v, k, &p->require_sandbox_for, err);
	if (strcmp(k, "require_human_for") == 0)
		return load_labels(doc, v, k, &p->require_human_for, err);
	if (strcmp(k, "require_sandbox_strict") == 0) {
		if (!cJSON_IsBool(v))
			return pl_doc_error(doc, v, k, err,
			                    "expected true or false");
		p->require_sandbox_strict = cJSON_IsTrue(v);
		return 0;
	}
	if (strcmp(k, "allow_sandboxed_for") == 0) {
		int rc = load_labels(doc, v, k, &p->allow_sandboxed_for, err);
		const char *bad = NULL;
		for (size_t i = 0; !rc && !bad && i < p->allow_sandboxed_for.n;
		     i++)
			if (pl_never_confined(p->allow_sandboxed_for.items[i]))
				bad = p->allow_sandboxed_for.items[i];
		if (bad)
			return pl_doc_error(
			    doc, v, k, err,
			    "\"%s\" can never be allowed by confinement "
			    "(network, secrets, persistence, agent config, "
			    "pushes, privilege and the floor stay held)",
			    bad);
		return rc;
	}
	if (strcmp(k, "min_severity") == 0) {
		if (!cJSON_IsString(v) ||
		    locus_severity_parse(&p->min_severity, v->valuestring))
			return pl_doc_error(
			    doc, v, k, err,
			    "expected one of \"low\", \"medium\", "
			    "\"high\", \"critical\"");
		return 0;
	}
	if (strcmp(k, "require_verification_score") == 0)
		return load_number(doc, v, k, 1, "expected a number",
		                   "out of range (0 to 1)",
		                   &p->require_verification_score, err);
	if (strcmp(k, "max_blast_radius") == 0) {
		if (!cJSON_IsNumber(v))
			return pl_doc_error(doc, v, k, err,
			                    "expected an integer");
		double d = v->valuedouble;
		if (!isfinite(d) || d < 0 || d > PL_MAX_INT || floor(d) != d)
			return pl_doc_error(
			    doc, v, k, err,
			    "out of range (an integer from 0 to "
			    "2^53-1)");
		p->max_blast_radius = (int64_t)d;
		return 0;
	}
	if (strcmp(k, "require_human_over_usd") == 0)
		return load_usd(doc, v, k, &p->has_human_over,
		                &p->require_human_over_usd, err);
	if (strcmp(k, "spend_limit_usd") == 0)
		return load_usd(doc, v, k, &p->has_spend_limit,
		                &p->spend_limit_usd, err);
	if (strcmp(k, "version") == 0) {
		if (!cJSON_IsString(v))
			return pl_doc_error(doc, v, k, err,
			                    "expected a string");
		char *nv = strdup(v->valuestring);
		if (!nv)
			return lu_err(err, LOCUS_ENOMEM, "out of memory");
		free(p->version);
		p->version = nv;
		return 0;
	}
	if (strcmp(k, "permissions") == 0)
		return pl_load_permissions(doc, v, k, true, NULL, p->rules,
		                           err);
	return pl_doc_error(doc, v, k, err, "unknown field");
}

int locus_policy_load(locus_policy **out, const char *json, size_t len,
                      locus_error *err)
{
	if (!out)
		return LOCUS_EUSAGE;
	*out = NULL;
	pl_doc doc;
	int rc =
	    pl_doc_parse(&doc, "policy", json ? json : "", json ? len : 0, err);
	if (rc)
		return rc;
	locus_policy *p = NULL;
	if (!cJSON_IsObject(doc.root)) {
		rc = pl_doc_error(&doc, doc.root, "", err,
		                  "a policy is a JSON object");
		goto done;
	}
	rc = locus_policy_new(&p);
	if (rc) {
		lu_err(err, rc, "out of memory");
		goto done;
	}
	for (const cJSON *c = doc.root->child; c && !rc; c = c->next)
		rc = load_field(p, &doc, c, err);
done:
	pl_doc_free(&doc);
	if (rc) {
		locus_policy_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int locus_policy_load_file(locus_policy **out, const char *path,
                           locus_error *err)
{
	if (!out)
		return LOCUS_EUSAGE;
	*out = NULL;
	char *buf = NULL;
	size_t n = 0;
	int r = lu_read_path(path, PL_MAX_DOC, &buf, &n);
	int rc = 0;
	if (r > 0) {
		rc = lu_err(err, LOCUS_ETOOBIG,
		            "%s: file is larger than %zu bytes", path,
		            PL_MAX_DOC);
	} else if (r < 0 && errno == ENOMEM) {
		rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
	} else if (r < 0) {
		int e = errno;
		rc = lu_err(err, LOCUS_EIO, "%s: %s", path, strerror(e));
		if (err)
			err->sys = e;
	}
	if (!rc)
		rc = locus_policy_load(out, buf, n, err);
	free(buf);
	if (!rc && locus_policy_protect_path(*out, path)) {
		locus_policy_free(*out);
		*out = NULL;
		rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	return rc;
}

/* --- presets -------------------------------------------------------------- */

/* Embedded JSON (spec policy.md section 2): each preset sets
 * require_verification_score to 0 and leaves `production` out of
 * require_human_for. */
static const struct {
	const char *name;
	const char *json;
	/* clang-format off */
} presets[] = {
	{"standard",
	 "{\"version\": \"standard@4\",\n"
	 " \"require_verification_score\": 0,\n"
	 " \"require_sandbox_for\": [\"workspace.exec\", \"workspace.read\"],\n"
	 " \"require_sandbox_strict\": false,\n"
	 " \"allow_sandboxed_for\": [\"outside-workspace:tmp\"],\n"
	 " \"deny_for\": [\"exec:never\"],\n"
	 " \"require_human_for\": [\"exec:destructive\", \"exec:force-push\",\n"
	 "   \"exec:vcs-push\", \"exec:remote-code\", \"exec:shutdown\",\n"
	 "   \"exec:unparsed\", \"exec:network\", \"exec:background\",\n"
	 "   \"exec:secrets\", \"exec:persistence\", \"exec:privilege\",\n"
	 "   \"exec:unknown\", \"agent-config\",\n"
	 "   \"outside-workspace\", \"network\", \"unknown-tool\"]}\n"},
    /* clang-format on */
    {"strict",
     "{\"version\": \"strict@3\",\n"
     " \"require_verification_score\": 0,\n"
     " \"require_sandbox_for\": [\"workspace.exec\", \"workspace.read\"],\n"
     " \"require_sandbox_strict\": false,\n"
     " \"deny_for\": [\"exec:never\", \"exec:unparsed\", \"agent-config\"],\n"
     " \"require_human_for\": [\"workspace.exec\", \"workspace.write\",\n"
     "   \"network\", \"outside-workspace\", \"unknown-tool\", "
     "\"exec:unknown\",\n"
     "   \"exec:secrets\", \"exec:persistence\", \"exec:privilege\"]}\n"},
    {"permissive",
     "{\"version\": \"permissive@2\",\n"
     " \"require_verification_score\": 0,\n"
     " \"deny_for\": [\"exec:never\"],\n"
     " \"require_human_for\": [\"exec:secrets\", \"exec:persistence\"]}\n"},
    {"readonly",
     "{\"version\": \"readonly@1\",\n"
     " \"require_verification_score\": 0,\n"
     " \"deny_for\": [\"workspace.write\", \"workspace.exec\", \"network\"],\n"
     " \"require_human_for\": []}\n"},
};

static const char *const preset_names[] = {"standard", "strict", "permissive",
                                           "readonly", NULL};

const char *const *locus_policy_preset_names(void)
{
	return preset_names;
}

const char *locus_policy_preset_json(const char *name)
{
	for (size_t i = 0; name && i < sizeof(presets) / sizeof(presets[0]);
	     i++)
		if (strcmp(presets[i].name, name) == 0)
			return presets[i].json;
	return NULL;
}

int locus_policy_preset(locus_policy **out, const char *name, locus_error *err)
{
	if (!out)
		return LOCUS_EUSAGE;
	*out = NULL;
	const char *j = locus_policy_preset_json(name);
	if (!j)
		return lu_err(
		    err, LOCUS_ENOTFOUND,
		    "unknown preset \"%s\" (standard, strict, permissive, "
		    "readonly)",
		    name ? name : "");
	return locus_policy_load(out, j, strlen(j), err);
}

/* --- Claude Code settings ------------------------------------------------ */

int locus_policy_add_claude_settings(locus_policy *p, const char *json,
                                     size_t len, locus_error *err)
{
	return locus_policy_add_claude_settings_opts(p, json, len, NULL, err);
}

int locus_policy_add_claude_settings_opts(
    locus_policy *p, const char *json, size_t len,
    const locus_claude_settings_options *opts, locus_error *err)
{
	pl_rule_ctx ctx = {true, NULL, NULL, NULL, NULL};
	if (opts && opts->version != LOCUS_CLAUDE_SETTINGS_OPTIONS_VERSION)
		return lu_err(err, LOCUS_EINVALID,
		              "claude settings options: unknown version %u",
		              opts->version);
	if (opts) {
		ctx.base = opts->project_root;
		ctx.home = opts->home;
		ctx.warn = opts->warn;
		ctx.warn_ctx = opts->warn_ctx;
	}
	pl_doc doc;
	int rc = pl_doc_parse(&doc, "settings", json ? json : "",
	                      json ? len : 0, err);
	if (rc)
		return rc;
	pl_rules tmp[3];
	memset(tmp, 0, sizeof(tmp));
	if (!cJSON_IsObject(doc.root)) {
		rc = pl_doc_error(&doc, doc.root, "", err,
		                  "a settings file is a JSON object");
		goto done;
	}
	const cJSON *perm =
	    cJSON_GetObjectItemCaseSensitive(doc.root, "permissions");
	if (perm)
		rc = pl_load_permissions(&doc, perm, "permissions", false, &ctx,
		                         tmp, err);
	if (rc)
		goto done;
	/* move the parsed rules over only now: on error nothing changed */
	for (int l = 0; l < 3 && !rc; l++)
		if (!lu_reserve(&p->rules[l].items, &p->rules[l].cap,
		                p->rules[l].n + tmp[l].n))
			rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (!rc) {
		for (int l = 0; l < 3; l++) {
			for (size_t i = 0; i < tmp[l].n; i++)
				p->rules[l].items[p->rules[l].n++] =
				    tmp[l].items[i];
			tmp[l].n = 0;
		}
	}
done:
	for (int l = 0; l < 3; l++)
		pl_rules_free(&tmp[l]);
	pl_doc_free(&doc);
	return rc;
}

/* --- the effective policy as JSON ----------------------------------------- */

static cJSON *set_json(const pl_strset *s)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; a && i < s->n; i++) {
		cJSON *it = cJSON_CreateString(s->items[i]);
		if (!it || !cJSON_AddItemToArray(a, it)) {
			cJSON_Delete(it);
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}


int locus_policy_json(char **out, const locus_policy *p, unsigned flags)
{
	if (!out)
		return LOCUS_EUSAGE;
	*out = NULL;
	if (!p)
		return LOCUS_EUSAGE;
	cJSON *o = cJSON_CreateObject();
	bool ok = o != NULL;
	ok = ok && lu_json_add(o, "version", cJSON_CreateString(p->version));
	ok = ok && lu_json_add(o, "deny_for", set_json(&p->deny_for));
	ok = ok && lu_json_add(o, "require_sandbox_for",
	                       set_json(&p->require_sandbox_for));
	ok = ok && lu_json_add(o, "require_sandbox_strict",
	                       cJSON_CreateBool(p->require_sandbox_strict));
	ok = ok && lu_json_add(o, "allow_sandboxed_for",
	                       set_json(&p->allow_sandboxed_for));
	ok = ok && lu_json_add(o, "min_severity",
	                       cJSON_CreateString(
	                           locus_severity_name(p->min_severity)));
	ok = ok &&
	     lu_json_add(o, "require_verification_score",
	                 cJSON_CreateNumber(p->require_verification_score));
	ok = ok && lu_json_add(o, "max_blast_radius",
	                       cJSON_CreateNumber((double)p->max_blast_radius));
	ok = ok &&
	     lu_json_add(o, "require_human_over_usd",
	                 p->has_human_over
	                     ? cJSON_CreateNumber(p->require_human_over_usd)
	                     : cJSON_CreateNull());
	ok = ok && lu_json_add(o, "spend_limit_usd",
	                       p->has_spend_limit
	                           ? cJSON_CreateNumber(p->spend_limit_usd)
	                           : cJSON_CreateNull());
	ok = ok && lu_json_add(o, "require_human_for",
	                       set_json(&p->require_human_for));
	cJSON *perm = ok ? cJSON_CreateObject() : NULL;
	ok = ok && lu_json_add(o, "permissions", perm);
	static const char *const lists[3] = {"allow", "ask", "deny"};
	for (int l = 0; ok && l < 3; l++) {
		cJSON *a = cJSON_CreateArray();
		ok = lu_json_add(perm, lists[l], a);
		for (size_t i = 0; ok && i < p->rules[l].n; i++)
			ok = cJSON_AddItemToArray(
			    a, cJSON_CreateString(
			           pl_rule_text(p->rules[l].items[i])));
	}
	if (!ok) {
		cJSON_Delete(o);
		return LOCUS_ENOMEM;
	}
	/* a copy freed with locus_free(), not cJSON_free */
	return lu_json_print(out, o, flags & LOCUS_JSON_PRETTY) ? LOCUS_ENOMEM
	                                                        : 0;
}
