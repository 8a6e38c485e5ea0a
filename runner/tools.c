/*
 * runner/tools.c - one tool call of the model: looked up in the manifest,
 * its arguments read strictly, admitted (all but `runs: gateway`), held
 * calls waited on, then performed where the manifest says it runs: the
 * harness over the box (`box`), a question that parks the run
 * (`ask_user`), a child run (`task`), or remote.c's gateway, MCP and API
 * tools.  Events: tool_start before, tool_complete after (the result cut
 * to 4000 characters), harness.exec for every command the harness ran.
 */
#include "runner/runner.h"

#include "util/clock.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

#define LR_RESULT_CHARS 4000

static void set_text(lr_call_result *res, const char *text, bool is_error)
{
	free(res->text);
	res->text = strdup(text ? text : "");
	res->is_error = is_error;
}

void lr_tool_events(lr_run *r, const char *type, const char *call_id,
                    const char *tool, const cJSON *args,
                    const lr_call_result *res, double ms)
{
	cJSON *e = cJSON_CreateObject();
	if (!e)
		return;
	cJSON_AddStringToObject(e, "type", type);
	cJSON_AddStringToObject(e, "call_id", call_id);
	cJSON_AddStringToObject(e, "tool", tool);
	if (args) {
		cJSON_AddItemToObject(e, "arguments", cJSON_Duplicate(args, 1));
	} else {
		const char *t = res && res->text ? res->text : "";
		size_t n = strlen(t);
		if (n > LR_RESULT_CHARS) {
			/* cut on a UTF-8 boundary */
			n = LR_RESULT_CHARS;
			while (n && ((unsigned char)t[n] & 0xc0) == 0x80)
				n--;
		}
		char *cut = strndup(t, n);
		cJSON_AddStringToObject(e, "result", cut ? cut : "");
		if (res && res->is_error)
			cJSON_AddStringToObject(e, "error",
			                        cut && *cut ? cut : "failed");
		else
			cJSON_AddNullToObject(e, "error");
		cJSON_AddNumberToObject(e, "duration_ms", (double)(long)ms);
		free(cut);
	}
	lr_events_emit(&r->ev, e);
}

static lr_outcome ask_user(lr_run *r, const char *call_id, const cJSON *args,
                           lr_call_result *res)
{
	const char *q = lr_json_str(args, "question", NULL);
	if (!q || !*q) {
		set_text(res, "ask_user needs a \"question\" string", true);
		return LR_RAN;
	}
	cJSON *w = cJSON_CreateObject();
	if (!w)
		return LR_FATAL;
	cJSON_AddStringToObject(w, "kind", "question");
	cJSON_AddStringToObject(w, "call_id", call_id);
	cJSON_AddStringToObject(w, "question", q);
	res->waiting = w;
	lr_logf(&r->log, "call %s asks the user: parking", call_id);
	return LR_PARK;
}

/* Perform an admitted call. */
static lr_outcome perform(lr_run *r, const lr_tool *t, const char *call_id,
                          const cJSON *args, const char *decision,
                          lr_call_result *res)
{
	bool is_error = false;
	char *text = NULL;
	switch (t->runs) {
	case LR_RUNS_MCP:
		text = lr_remote_mcp(r, t, args, decision, &is_error);
		break;
	case LR_RUNS_API:
		text = lr_remote_api(r, t, args, decision, &is_error);
		break;
	case LR_RUNS_GATEWAY:
		text = lr_remote_gateway(r, t, call_id, args, &is_error);
		break;
	case LR_RUNS_BOX:
		if (!strcmp(t->name, "ask_user"))
			return ask_user(r, call_id, args, res);
		if (!strcmp(t->name, "task")) {
			text = lr_task_run(r, call_id, args, &is_error);
			break;
		}
		char *canon = lr_json_canonical(args);
		locus_error err;
		r->cur_call_id = call_id;
		int rc = canon ? locus_harness_call(&text, &is_error,
		                                    r->harness, t->name, canon,
		                                    strlen(canon), &err)
		               : LOCUS_ENOMEM;
		r->cur_call_id = NULL;
		free(canon);
		/* the library's buffers go back through locus_free */
		char *own = !rc && text ? strdup(text) : NULL;
		locus_free(text);
		text = own;
		if (!rc && !text)
			rc = LOCUS_ENOMEM;
		if (rc) {
			free(text);
			text = NULL;
			is_error = true;
			set_text(res,
			         rc == LOCUS_ENOMEM ? "out of memory"
			                            : err.message,
			         true);
			return LR_RAN;
		}
		break;
	}
	if (!text)
		return LR_FATAL;
	free(res->text);
	res->text = text;
	res->is_error = is_error;
	return LR_RAN;
}

/* Admit (waiting on a hold up to the TTL) and perform. */
static lr_outcome admit_and_perform(lr_run *r, const lr_tool *t,
                                    const char *call_id, const cJSON *args,
                                    const char *approval_id,
                                    lr_call_result *res)
{
	char *approval = approval_id ? strdup(approval_id) : NULL;
	lr_outcome out = LR_RAN;
	for (int round = 0;; round++) {
		lr_admission a;
		lr_admit(r, call_id, t->name, args, approval, &a);
		if (a.verdict == LR_ALLOW) {
			out =
			    perform(r, t, call_id, args, a.decision_token, res);
			lr_admission_clear(&a);
			break;
		}
		if (a.verdict != LR_HOLD || round >= 2) {
			set_text(res, a.text, true);
			lr_admission_clear(&a);
			break;
		}
		char *who_why = NULL;
		const char *state = lr_approval_wait(
		    r, a.approval_id, r->m.budgets.park_ttl_s, &who_why);
		if (!state) {
			cJSON *w = cJSON_CreateObject();
			if (w) {
				cJSON_AddStringToObject(w, "kind", "approval");
				cJSON_AddStringToObject(w, "call_id", call_id);
				cJSON_AddStringToObject(w, "tool", t->name);
				cJSON_AddStringToObject(w, "approval_id",
				                        a.approval_id);
			}
			res->waiting = w;
			out = w ? LR_PARK : LR_FATAL;
			lr_admission_clear(&a);
			break;
		}
		if (strcmp(state, "approved")) {
			char msg[700];
			snprintf(
			    msg, sizeof msg,
			    "denied by the gateway: the approval %s was %s%s",
			    a.approval_id, state, who_why ? who_why : "");
			free(who_why);
			set_text(res, msg, true);
			lr_admission_clear(&a);
			break;
		}
		free(who_why);
		free(approval);
		approval = a.approval_id;
		a.approval_id = NULL;
		lr_admission_clear(&a);
	}
	free(approval);
	return out;
}

lr_outcome lr_tool_call(lr_run *r, const char *call_id, const char *name,
                        const char *args_json, const char *approval_id,
                        lr_call_result *res, locus_error *err)
{
	(void)err;
	memset(res, 0, sizeof *res);
	const lr_tool *t = lr_manifest_tool(&r->m, name);
	cJSON *args = NULL;
	locus_error perr;
	if (!t) {
		char msg[200];
		snprintf(msg, sizeof msg, "not run: no tool named \"%.80s\"",
		         name);
		set_text(res, msg, true);
		lr_logf(&r->log, "call %s: an unknown tool", call_id);
		return LR_RAN;
	}
	if (lr_json_parse(args_json, strlen(args_json), &args, &perr) ||
	    !cJSON_IsObject(args)) {
		cJSON_Delete(args);
		set_text(res, "not run: the arguments are not a JSON object",
		         true);
		lr_logf(&r->log, "call %s (%s): malformed arguments", call_id,
		        name);
		return LR_RAN;
	}
	lr_tool_events(r, "tool_start", call_id, name, args, NULL, 0);
	double t0 = lu_now();
	lr_outcome out =
	    t->runs == LR_RUNS_GATEWAY
	        ? perform(r, t, call_id, args, NULL, res)
	        : admit_and_perform(r, t, call_id, args, approval_id, res);
	if (out == LR_RAN) {
		if (!res->text)
			set_text(res, "", res->is_error);
		lr_tool_events(r, "tool_complete", call_id, name, NULL, res,
		               (lu_now() - t0) * 1000);
	}
	cJSON_Delete(args);
	return out;
}

/* harness.exec: the ExecRecord, the call it belongs to, attested_by. */
void lr_on_exec(const locus_exec_record *rec, void *payload)
{
	lr_run *r = payload;
	cJSON *e = cJSON_CreateObject();
	if (!e)
		return;
	cJSON_AddStringToObject(e, "type", "harness.exec");
	cJSON_AddStringToObject(e, "call_id",
	                        r->cur_call_id ? r->cur_call_id : "");
	cJSON_AddStringToObject(e, "command_sha256", rec->command_sha256);
	if (rec->has_exit_code)
		cJSON_AddNumberToObject(e, "exit_code", rec->exit_code);
	else
		cJSON_AddNullToObject(e, "exit_code");
	cJSON_AddNumberToObject(e, "duration_s", rec->duration_s);
	cJSON_AddBoolToObject(e, "timed_out", rec->timed_out);
	cJSON_AddStringToObject(e, "output_sha256", rec->output_sha256);
	cJSON_AddNumberToObject(e, "output_bytes", (double)rec->output_bytes);
	cJSON_AddBoolToObject(e, "truncated", rec->truncated);
	cJSON_AddBoolToObject(e, "background", rec->background);
	cJSON_AddStringToObject(e, "attested_by", "runner");
	lr_events_emit(&r->ev, e);
}
