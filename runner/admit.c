/*
 * runner/admit.c - admission: `POST /v1/admit {run_id, call_id, tool,
 * arguments[, approval_id]}` before every call but the gateway's own.
 * Only `outcome: "allow"` (with `allowed` not false) runs the call; a
 * hold (`require_human` with an approval id) is waited on; everything else,
 * and every failure to get a clean answer, is a call that does not run.
 */
#include "runner/runner.h"

#include "util/clock.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* clang-format off */
static const char *const answer_fields[] = {
    "outcome", "allowed", "reason", "audit_id", "approval_id",
    "decision_token", "labels", "checks", "policy_fingerprint", NULL};
/* clang-format on */

void lr_admission_clear(lr_admission *a)
{
	free(a->approval_id);
	if (a->decision_token)
		explicit_bzero(a->decision_token, strlen(a->decision_token));
	free(a->decision_token);
	free(a->text);
	memset(a, 0, sizeof *a);
}

static void undecided(lr_admission *out, const char *why)
{
	out->verdict = LR_UNDECIDED;
	out->text = lr_strf("not run: the gateway could not decide this call "
	                    "(%s)",
	                    why);
}

/* Safe in a URL path segment. */
static bool id_ok(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 200)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr(
		        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		        "0123456789._:-",
		        s[i]))
			return false;
	return true;
}

static void read_answer(const cJSON *a, lr_admission *out)
{
	locus_error err;
	if (lr_json_known(a, answer_fields, "the admission", &err)) {
		undecided(out, err.message);
		return;
	}
	const char *b = NULL;
	const char *outcome = lr_json_str(a, "outcome", &b);
	const char *reason = lr_json_str(a, "reason", &b);
	const char *approval = lr_json_str(a, "approval_id", &b);
	const char *token = lr_json_str(a, "decision_token", &b);
	lr_json_str(a, "audit_id", &b);
	lr_json_str(a, "policy_fingerprint", &b);
	lr_json_arr(a, "labels", &b);
	/* absent or true: a null "allowed" is not an allow */
	const cJSON *al = cJSON_GetObjectItemCaseSensitive(a, "allowed");
	bool allowed = !al || cJSON_IsTrue(al);
	if (b || !outcome) {
		undecided(out, b ? "a mistyped field in the answer"
		                 : "the answer has no outcome");
		return;
	}
	if (!reason)
		reason = "no reason given";
	if (!strcmp(outcome, "allow") && allowed) {
		out->verdict = LR_ALLOW;
		out->decision_token = token ? strdup(token) : NULL;
		return;
	}
	if (!strcmp(outcome, "require_human") && approval && id_ok(approval)) {
		out->verdict = LR_HOLD;
		out->approval_id = strdup(approval);
		out->text = lr_strf("held for a person's approval (%s): %s",
		                    approval, reason);
		return;
	}
	/* deny, an unknown outcome, allow with allowed:false, a hold without
	   a usable approval id */
	out->verdict = LR_DENY;
	out->text =
	    lr_strf("denied by the gateway: %s%s", reason,
	            strcmp(outcome, "deny") && strcmp(outcome, "require_human")
	                ? " (an answer this runner does not run)"
	                : "");
}

void lr_admit(lr_run *r, const char *call_id, const char *tool,
              const cJSON *args, const char *approval_id, lr_admission *out)
{
	memset(out, 0, sizeof *out);
	cJSON *body = cJSON_CreateObject();
	if (!body) {
		undecided(out, "out of memory");
		return;
	}
	cJSON_AddStringToObject(body, "run_id", r->env->run_id);
	cJSON_AddStringToObject(body, "call_id", call_id);
	cJSON_AddStringToObject(body, "tool", tool);
	cJSON_AddItemToObject(body, "arguments", cJSON_Duplicate(args, 1));
	if (approval_id)
		cJSON_AddStringToObject(body, "approval_id", approval_id);
	cJSON *ans = NULL;
	locus_error err;
	int rc = lr_gw_request(&r->gw, "POST", "/v1/admit", body,
	                       LHTTP_RETRY_UNSENT, &ans, NULL, &err);
	cJSON_Delete(body);
	if (rc)
		undecided(out, rc == LOCUS_EIO ? "the gateway is unavailable"
		                               : err.message);
	else if (!ans)
		undecided(out, "an empty answer");
	else
		read_answer(ans, out);
	cJSON_Delete(ans);
	static const char *const names[] = {"allow", "hold", "deny",
	                                    "undecided"};
	lr_logf(&r->log, "admit %s (%s): %s", call_id, tool,
	        names[out->verdict]);
	if (out->verdict != LR_ALLOW && !out->text)
		out->verdict = LR_UNDECIDED; /* no text: out of memory */
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts))
		;
}

char *lr_who_why(const char *who, const char *why)
{
	/* at most 200 bytes of each: a gateway's text, handed to the model */
	return lr_strf("%s%.200s%s%.200s", who && *who ? " by " : "",
	               who && *who ? who : "", why && *why ? ": " : "",
	               why && *why ? why : "");
}

const char *lr_approval_wait(lr_run *r, const char *approval_id, double ttl_s,
                             char **who_why)
{
	*who_why = NULL;
	static const char *const settled[] = {
	    "approved", "denied", "consumed", "expired", "abandoned", NULL};
	double end = lu_now() + ttl_s;
	long delay = 200;
	char path[300];
	snprintf(path, sizeof path, "/v1/admit/approval/%s", approval_id);
	for (;;) {
		cJSON *ans = NULL;
		locus_error err;
		int rc =
		    lr_gw_request(&r->gw, "GET", path, NULL,
		                  LHTTP_RETRY_IDEMPOTENT, &ans, NULL, &err);
		const char *state = rc ? NULL : lr_json_str(ans, "state", NULL);
		const char *found = NULL;
		for (size_t i = 0; state && settled[i] && !found; i++)
			if (!strcmp(state, settled[i]))
				found = settled[i];
		bool unknown = state && !found && strcmp(state, "pending");
		if (found || unknown)
			*who_why =
			    lr_who_why(lr_json_str(ans, "decided_by", NULL),
			               lr_json_str(ans, "justification", NULL));
		cJSON_Delete(ans);
		if (found || unknown) {
			lr_logf(&r->log, "approval %s: %s", approval_id,
			        found ? found
			              : "an unknown state (not approved)");
			return found ? found : "denied";
		}
		double left = end - lu_now();
		if (left <= 0 || lr_run_left(r) <= 0)
			return NULL;
		/* left is at most the manifest's park_ttl_s (<= 1e9 s): the
		   product fits a long */
		long ms = (double)delay < left * 1000 ? delay
		                                      : (long)(left * 1000) + 1;
		sleep_ms(ms);
		if (delay < 2000)
			delay *= 2;
	}
}
