/*
 * harness/gate.c - the standard wrap: every tool call goes through the
 * policy engine's gate before its body runs (the single-gate rule).
 * Anything but a clear allow refuses: deny, a hold nobody approved, and
 * any error of the gate itself (fail closed).
 */
#define _GNU_SOURCE
#include "internal.h"
#include "tools.h"
#include "locus/policy.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A refusal JSON for a call the policy engine could not decide (it made
   no decision to render): same keys as locus_decision_refusal_json(). */
static char *refusal(const char *tool, const char *prefix, const char *reason)
{
	lu_buf why = {0};
	lu_buf_printf(&why, "%s%s", prefix, reason ? reason : "");
	char *w = lu_buf_take(&why);
	cJSON *o = cJSON_CreateObject();
	char *text = NULL;
	if (o && w && cJSON_AddStringToObject(o, "status", "denied") &&
	    cJSON_AddStringToObject(o, "outcome", "deny") &&
	    cJSON_AddStringToObject(o, "action", tool ? tool : "") &&
	    cJSON_AddStringToObject(o, "asset", "") &&
	    cJSON_AddStringToObject(o, "reason", w))
		text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text) /* still a refusal, even out of memory */
		text = w ? w : strdup("refused");
	else
		free(w);
	return text;
}

/* ---- the built-in deny: the audit trail and its key ---- */

/* Is `p` (a path as a tool gives it) the file `target` names?  Compared
 * lexically and resolved (a symlink to it), and by inode (a hard link). */
static bool same_file(const char *root, const char *p, const char *target)
{
	if (!p || !target || !*p)
		return false;
	lu_buf full = {0};
	if (p[0] != '/') {
		char cwd[4096];
		const char *base = root ? root : getcwd(cwd, sizeof cwd);
		lu_buf_printf(&full, "%s/", base ? base : ".");
	}
	lu_buf_puts(&full, p);
	if (full.oom)
		return true; /* cannot tell: treat as touching it */
	bool hit = !strcmp(full.d, target);
	char *real = hit ? NULL : realpath(full.d, NULL);
	hit = hit || (real && !strcmp(real, target));
	free(real);
	struct stat a, b;
	if (!hit && stat(full.d, &a) == 0 && stat(target, &b) == 0)
		hit = a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	lu_buf_free(&full);
	return hit;
}

/* The paths a patch names (Add/Update/Delete File, Move to). */
static bool patch_touches(const char *root, const char *patch,
                          const char *target)
{
	static const char *const heads[] = {
	    "*** Add File: ", "*** Update File: ", "*** Delete File: ",
	    "*** Move to: ", NULL};
	for (const char *l = patch; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t ll = nl ? (size_t)(nl - l) : strlen(l);
		for (size_t i = 0; heads[i]; i++) {
			size_t hl = strlen(heads[i]);
			if (ll > hl && !strncmp(l, heads[i], hl)) {
				char *p = strndup(l + hl, ll - hl);
				bool hit = !p || same_file(root, p, target);
				free(p);
				if (hit)
					return true;
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	return false;
}

/* Does the call name the file?  For commands: its path or its name
 * appears in the text (a first line; the writer's identity check is what
 * guarantees the trail). */
static bool call_touches(const char *root, const cJSON *a, const char *target)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(a, "path");
	const cJSON *pa = cJSON_GetObjectItemCaseSensitive(a, "patch");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(a, "command");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(a, "text");
	if (cJSON_IsString(p) && same_file(root, p->valuestring, target))
		return true;
	if (cJSON_IsString(pa) && patch_touches(root, pa->valuestring, target))
		return true;
	const char *name = strrchr(target, '/');
	name = name ? name + 1 : target;
	for (int i = 0; i < 2; i++) {
		const cJSON *x = i ? t : c;
		if (cJSON_IsString(x) &&
		    (strstr(x->valuestring, target) ||
		     (*name && strstr(x->valuestring, name))))
			return true;
	}
	return false;
}

/* NULL, or the refusal reason when the call touches the audit trail. */
static const char *audit_guard(const locus_policy_wrap *w, const char *args,
                               size_t args_len)
{
	if (!w->audit)
		return NULL;
	const char *ap = locus_audit_path(w->audit);
	const char *kp = locus_audit_key_path(w->audit);
	cJSON *a = NULL;
	/* the reading the tool body gets (lenient cJSON would see the
	   first of two "path" keys while the gate judged the other) */
	if (lh_args_read(&a, args, args_len, NULL) != LU_JSON_OK)
		return "the arguments cannot be read";
	const char *why = NULL;
	if (ap && call_touches(w->workspace_root, a, ap))
		why = "the call names the audit trail: tools never touch it";
	else if (kp && call_touches(w->workspace_root, a, kp))
		why = "the call names the audit key: tools never touch it";
	cJSON_Delete(a);
	return why;
}

/*
 * The decision, explicit: 1 only for a clear allow; 0 refuses with *res
 * the refusal text (malloc'd, or NULL when even that could not be made:
 * the caller shows a fixed refusal).  Anything unexpected refuses.
 * `args` is NUL-terminated, `args_len` bytes.
 */
static int policy_decide_z(const char *tool, const char *args, size_t args_len,
                           const locus_policy_wrap *w, char **res)
{
	if (w && w->version != LOCUS_POLICY_WRAP_VERSION) {
		*res = refusal(tool,
		               "not run: a policy wrap of an unknown "
		               "version (start from LOCUS_POLICY_WRAP_INIT)",
		               NULL);
		return 0;
	}
	if (!w || !w->policy) {
		*res = refusal(tool, "not run: no policy to decide this call",
		               NULL);
		return 0;
	}
	const char *guard = audit_guard(w, args, args_len);
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	in.environment = w->environment;
	in.workspace_root = w->workspace_root;
	locus_decision *d = NULL;
	locus_error err = {0};
	int rc =
	    locus_gate(&d, w->policy, NULL, tool, args, args_len, &in, &err);
	if (guard && !rc && d) {
		/* the call as the gate saw it (its asset, its labels), made a
		   deny: recorded like any other refusal */
		char why[200];
		snprintf(why, sizeof why, "the audit trail guard: %s", guard);
		if (locus_decision_deny(d, why) == LOCUS_EUSAGE)
			rc = LOCUS_EUSAGE;
	} else if (guard) {
		/* the gate could not decide it: nothing to record, refused */
		locus_decision_free(d);
		*res = refusal(tool, "denied: ", guard);
		return 0;
	}
	if (rc || !d) {
		locus_decision_free(d);
		*res = refusal(tool,
		               "not run: the gate could not decide this call: ",
		               err.message[0] ? err.message : "error");
		return 0;
	}
	if (w->audit && locus_audit_append(w->audit, d, &err) != 0) {
		locus_decision_free(d);
		*res = refusal(tool, "not run: no audit record, no decision: ",
		               err.message[0] ? err.message : "write failed");
		return 0;
	}
	if (w->on_decision) {
		char *j = NULL;
		if (locus_decision_json(&j, d, 0) == 0 && j)
			w->on_decision(j, w->payload);
		locus_free(j);
	}
	locus_outcome o = locus_decision_outcome(d);
	int allowed = 0;
	if (o == LOCUS_OUTCOME_ALLOW)
		allowed = 1;
	else if (o == LOCUS_OUTCOME_REQUIRE_HUMAN && w->approve &&
	         w->approve(tool, args, args_len, locus_decision_reason(d),
	                    w->payload))
		allowed = 1;
	else if (o != LOCUS_OUTCOME_REQUIRE_HUMAN && o != LOCUS_OUTCOME_DENY)
		*res = refusal(tool, "denied: unknown outcome", NULL);
	else if (locus_decision_refusal_json(res, d) != 0)
		*res = refusal(tool,
		               "not run: out of memory rendering the "
		               "refusal",
		               NULL);
	locus_decision_free(d);
	return allowed;
}

/* policy_decide_z() over (ptr, len) arguments (NULL: {}), on a
   NUL-terminated copy: the audit guard parses it as text. */
static int policy_decide(const char *tool, const char *args_json,
                         size_t args_len, const locus_policy_wrap *w,
                         char **res)
{
	*res = NULL;
	if (!args_json) {
		args_json = "{}";
		args_len = 2;
	}
	char *z = malloc(args_len + 1);
	if (!z) {
		*res = refusal(tool, "not run: out of memory", NULL);
		return 0;
	}
	memcpy(z, args_json, args_len);
	z[args_len] = '\0';
	int rc = policy_decide_z(tool, z, args_len, w, res);
	free(z);
	return rc;
}

char *locus_harness_policy_wrap(const char *tool, const char *args_json,
                                size_t args_len, void *wrap_payload)
{
	char *res = NULL;
	if (policy_decide(tool, args_json, args_len, wrap_payload, &res) == 1)
		return NULL;
	return res ? res : strdup("refused");
}

bool lh_wrap_allows(locus_wrap_fn wrap, void *payload, const char *tool,
                    const char *args, size_t args_len, char **why)
{
	*why = NULL;
	if (wrap == locus_harness_policy_wrap) /* the explicit form */
		return policy_decide(tool, args, args_len, payload, why) == 1;
	*why = wrap(tool, args, args_len, payload);
	return *why == NULL;
}

/* What the policy says of a background command, without deciding (no audit
   record, nobody asked): for the prompt fragment. */
lh_bg_word lh_wrap_background(locus_wrap_fn wrap, const void *wrap_payload)
{
	const locus_policy_wrap *w = wrap_payload;
	if (wrap != locus_harness_policy_wrap || !w)
		return LH_BG_UNKNOWN;
	if (w->version != LOCUS_POLICY_WRAP_VERSION || !w->policy)
		return LH_BG_REFUSED; /* every call is refused */
	static const char probe[] = "{\"command\":\"sleep 1\","
	                            "\"background\":true}";
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	in.environment = w->environment;
	in.workspace_root = w->workspace_root;
	locus_decision *d = NULL;
	locus_error err = {0};
	int rc = locus_gate(&d, w->policy, NULL, "bash", probe,
	                    sizeof probe - 1, &in, &err);
	locus_outcome o = rc ? LOCUS_OUTCOME_DENY : locus_decision_outcome(d);
	locus_decision_free(d);
	if (o == LOCUS_OUTCOME_ALLOW)
		return LH_BG_ALLOWED;
	return o == LOCUS_OUTCOME_REQUIRE_HUMAN && w->approve ? LH_BG_HELD
	                                                      : LH_BG_REFUSED;
}
