/*
 * harness/gate.c - the standard wrap: every tool call goes through the
 * policy engine's gate before its body runs (the single-gate rule).
 * Anything but a clear allow refuses: deny, a hold nobody approved, and
 * any error of the gate itself (fail closed).
 */
#include "internal.h"
#include "locus/policy.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* A refusal JSON for a call the policy engine could not decide (it made
   no decision to render): same keys as locus_decision_refusal_json(). */
static char *refusal(const char *tool, const char *prefix, const char *reason)
{
	lh_buf why = {0};
	lh_buf_printf(&why, "%s%s", prefix, reason ? reason : "");
	char *w = lh_buf_take(&why);
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

char *locus_harness_policy_wrap(const char *tool, const char *args_json,
                                void *wrap_payload)
{
	const locus_policy_wrap *w = wrap_payload;
	if (!w || !w->policy)
		return refusal(tool, "not run: no policy to decide this call",
		               NULL);
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	in.environment = w->environment;
	in.workspace_root = w->workspace_root;
	locus_decision *d = NULL;
	locus_error err = {0};
	const char *args = args_json ? args_json : "{}";
	int rc = locus_gate(&d, w->policy, NULL, tool, args, strlen(args), &in,
	                    &err);
	if (rc) {
		locus_decision_free(d);
		return refusal(tool,
		               "not run: the gate could not decide this call: ",
		               err.message[0] ? err.message : "error");
	}
	if (w->audit && locus_audit_append(w->audit, d, &err) != 0) {
		locus_decision_free(d);
		return refusal(tool, "not run: no audit record, no decision: ",
		               err.message[0] ? err.message : "write failed");
	}
	if (w->on_decision) {
		char *j = NULL;
		if (locus_decision_json(d, 0, &j) == 0 && j)
			w->on_decision(j, w->payload);
		free(j);
	}
	locus_outcome o = locus_decision_outcome(d);
	const char *reason = locus_decision_reason(d);
	char *res = NULL;
	bool refuse = o == LOCUS_OUTCOME_DENY ||
	              (o == LOCUS_OUTCOME_REQUIRE_HUMAN &&
	               !(w->approve && w->approve(tool, args, reason, w->payload)));
	if (o != LOCUS_OUTCOME_ALLOW && o != LOCUS_OUTCOME_REQUIRE_HUMAN &&
	    o != LOCUS_OUTCOME_DENY)
		res = refusal(tool, "denied: unknown outcome", NULL);
	else if (refuse && locus_decision_refusal_json(d, &res) != 0)
		res = refusal(tool, "not run: out of memory rendering the "
		                    "refusal", NULL);
	locus_decision_free(d);
	return res;
}

/* What the policy says of a background command, without deciding (no audit
   record, nobody asked): for the prompt fragment.  1 allowed, 0 refused
   (denied, or held with nobody to approve), -1 held for a person who may
   approve, -2 not the policy wrap (unknown). */
int lh_wrap_background(locus_wrap_fn wrap, const void *wrap_payload)
{
	const locus_policy_wrap *w = wrap_payload;
	if (wrap != locus_harness_policy_wrap || !w)
		return -2;
	if (!w->policy)
		return 0;
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
		return 1;
	return o == LOCUS_OUTCOME_REQUIRE_HUMAN && w->approve ? -1 : 0;
}
