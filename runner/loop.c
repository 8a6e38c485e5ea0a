/*
 * runner/loop.c - the agent loop: ask the model, run the tool calls it
 * makes (tools.c), until it answers without one or a budget ends it.  A
 * call that waits on a person parks the run: the agent state (messages,
 * the pending call, counters, the next event number) is checkpointed with
 * the gateway, what it waits for goes to .locus/parked.json and the
 * result.  A resume reads the checkpoint back and finishes the pending
 * call first: a held call is re-admitted naming its approval (and runs
 * only if the gateway says it was approved and admits it), a question gets
 * the answer as its result.
 */
#include "runner/runner.h"

#include "util/error.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

static const char *const state_fields[] = {"messages", "pending", "counters",
                                           NULL};
/* clang-format off */
static const char *const counter_fields[] = {
    "iterations", "prompt_tokens", "completion_tokens", "cost_usd",
    "next_seq", NULL};
/* clang-format on */
static const char *const pending_fields[] = {"kind",        "call_id",  "tool",
                                             "approval_id", "question", NULL};
static const char *const resume_fields[] = {
    "approval_id", "decision", "justification", "decided_by", "answer", NULL};

void lr_end_clear(lr_end *e)
{
	free(e->final_message);
	free(e->stop_reason);
	free(e->error);
	cJSON_Delete(e->waiting);
	memset(e, 0, sizeof *e);
}

static void end_error(lr_end *end, const char *what, const char *detail)
{
	end->status = "error";
	free(end->error);
	end->error = lr_strf("%s%s", what, detail);
}

static void add_message(lr_run *r, const char *role, const char *content,
                        const char *call_id)
{
	cJSON *m = cJSON_CreateObject();
	if (!m)
		return;
	cJSON_AddStringToObject(m, "role", role);
	if (call_id)
		cJSON_AddStringToObject(m, "tool_call_id", call_id);
	cJSON_AddStringToObject(m, "content", content ? content : "");
	cJSON_AddItemToArray(r->messages, m);
}

static cJSON *counters(lr_run *r)
{
	cJSON *c = cJSON_CreateObject();
	if (!c)
		return NULL;
	cJSON_AddNumberToObject(c, "iterations", (double)r->iterations);
	cJSON_AddNumberToObject(c, "prompt_tokens", (double)r->prompt_tokens);
	cJSON_AddNumberToObject(c, "completion_tokens",
	                        (double)r->completion_tokens);
	cJSON_AddNumberToObject(c, "cost_usd", r->cost_usd);
	cJSON_AddNumberToObject(c, "next_seq", (double)r->ev.next_seq);
	return c;
}

/* Checkpoint, parked.json, the parked end. */
static void park(lr_run *r, cJSON *waiting, lr_end *end)
{
	cJSON *body = cJSON_CreateObject(), *state = cJSON_CreateObject();
	if (!body || !state) {
		cJSON_Delete(body);
		cJSON_Delete(state);
		cJSON_Delete(waiting);
		end_error(end, "", "out of memory");
		return;
	}
	cJSON_AddItemReferenceToObject(state, "messages", r->messages);
	cJSON_AddItemToObject(state, "pending", cJSON_Duplicate(waiting, 1));
	cJSON_AddItemToObject(state, "counters", counters(r));
	cJSON_AddStringToObject(body, "thread_id", r->env->run_id);
	cJSON_AddItemToObject(body, "state", state);
	cJSON *ans = NULL;
	locus_error err;
	int rc = lr_gw_run_request(&r->gw, "PUT", "checkpoint", body,
	                           LHTTP_RETRY_IDEMPOTENT, &ans, &err);
	cJSON_Delete(body);
	const char *cid = ans ? lr_json_str(ans, "checkpoint_id", NULL) : NULL;
	if (rc || !cid || !*cid) {
		cJSON_Delete(ans);
		cJSON_Delete(waiting);
		end_error(end, "the run could not be checkpointed to park: ",
		          rc ? err.message : "no checkpoint_id in the answer");
		return;
	}
	cJSON *parked = cJSON_CreateObject();
	if (parked) {
		cJSON_AddStringToObject(parked, "checkpoint_id", cid);
		cJSON_AddItemToObject(parked, "waiting",
		                      cJSON_Duplicate(waiting, 1));
		if (lr_json_file_write(r->state_dir, "parked.json", parked))
			lr_logf(&r->log, "parked.json could not be written");
		cJSON_Delete(parked);
	}
	lr_logf(&r->log, "parked (checkpoint saved)");
	cJSON_Delete(ans);
	end->status = "parked";
	end->waiting = waiting;
}

/* The assistant message's tool calls from index `from` on. */
static bool run_calls(lr_run *r, const cJSON *calls, int from, lr_end *end)
{
	int i = 0;
	for (const cJSON *tc = calls ? calls->child : NULL; tc;
	     tc = tc->next, i++) {
		if (i < from)
			continue;
		const cJSON *fn = cJSON_GetObjectItem(tc, "function");
		const char *id = lr_json_str(tc, "id", NULL);
		const char *name = fn ? lr_json_str(fn, "name", NULL) : NULL;
		const char *args =
		    fn ? lr_json_str(fn, "arguments", NULL) : NULL;
		if (!id || !name || !args) {
			end_error(end, "", "a malformed tool call");
			return false;
		}
		lr_call_result res;
		locus_error err;
		lr_outcome o =
		    lr_tool_call(r, id, name, args, NULL, &res, &err);
		if (o == LR_PARK) {
			free(res.text);
			park(r, res.waiting, end);
			return false;
		}
		if (o == LR_FATAL) {
			free(res.text);
			cJSON_Delete(res.waiting);
			end_error(end, "",
			          "a tool call failed (out of memory)");
			return false;
		}
		add_message(r, "tool", res.text, id);
		free(res.text);
	}
	return true;
}

static bool budget_left(lr_run *r, lr_end *end, const char *last)
{
	const lr_budgets *b = &r->m.budgets;
	const char *why = NULL;
	if (lr_run_left(r) <= 0)
		why = "timeout_s";
	else if (b->max_iterations && r->iterations >= b->max_iterations)
		why = "max_iterations";
	else if (b->max_tokens &&
	         r->prompt_tokens + r->completion_tokens >= b->max_tokens)
		why = "max_tokens";
	else if (b->max_cost_usd >= 0 && r->cost_usd > b->max_cost_usd)
		why = "max_cost_usd";
	if (!why)
		return true;
	lr_logf(&r->log, "budget %s reached", why);
	end->status = "done";
	end->stop_reason = strdup(why);
	end->final_message = last ? strdup(last) : NULL;
	return false;
}

static void think_event(lr_run *r, const lr_turn *t)
{
	cJSON *e = cJSON_CreateObject(), *calls = cJSON_CreateArray();
	if (!e || !calls) {
		cJSON_Delete(e);
		cJSON_Delete(calls);
		return;
	}
	cJSON_AddStringToObject(e, "type", "think");
	cJSON_AddNumberToObject(e, "iteration", (double)r->iterations);
	cJSON_AddStringToObject(e, "text", t->reasoning ? t->reasoning : "");
	for (const cJSON *tc = t->tool_calls->child; tc; tc = tc->next) {
		cJSON *c = cJSON_CreateObject();
		if (!c)
			continue;
		cJSON_AddStringToObject(c, "id", lr_json_str(tc, "id", NULL));
		cJSON_AddStringToObject(
		    c, "name",
		    lr_json_str(cJSON_GetObjectItem(tc, "function"), "name",
		                NULL));
		cJSON_AddItemToArray(calls, c);
	}
	cJSON_AddItemToObject(e, "tool_calls", calls);
	lr_events_emit(&r->ev, e);
}

static void flush(lr_run *r, lr_end *end)
{
	locus_error err;
	if (lr_events_flush(&r->ev, &err) == LOCUS_EINVALID && !end->status)
		end_error(end, "", err.message);
}

static void agent_loop(lr_run *r, lr_end *end)
{
	char *last = NULL;
	while (!end->status && budget_left(r, end, last)) {
		r->iterations++;
		lr_turn t;
		locus_error err;
		if (lr_model_call(r, &t, &err)) {
			lr_logf(&r->log, "model call failed (%s)",
			        locus_error_code_name(err.code));
			end_error(end, "the model call failed: ", err.message);
			break;
		}
		r->prompt_tokens += t.prompt_tokens;
		r->completion_tokens += t.completion_tokens;
		if (t.has_cost)
			r->cost_usd += t.cost_usd;
		think_event(r, &t);
		cJSON *m = cJSON_CreateObject();
		if (m) {
			cJSON_AddStringToObject(m, "role", "assistant");
			if (t.content)
				cJSON_AddStringToObject(m, "content",
				                        t.content);
			else
				cJSON_AddNullToObject(m, "content");
			if (t.tool_calls->child)
				cJSON_AddItemReferenceToObject(m, "tool_calls",
				                               t.tool_calls);
			cJSON *own = cJSON_Duplicate(m, 1);
			cJSON_Delete(m);
			if (own)
				cJSON_AddItemToArray(r->messages, own);
		}
		lr_logf(&r->log, "turn %ld: %d tool calls", r->iterations,
		        cJSON_GetArraySize(t.tool_calls));
		flush(r, end);
		free(last);
		last = t.content ? strdup(t.content) : NULL;
		if (!t.tool_calls->child && !end->status) {
			end->status = "done";
			end->stop_reason = strdup("completed");
			end->final_message = last;
			last = NULL;
		} else if (!end->status)
			run_calls(r, t.tool_calls, 0, end);
		lr_turn_clear(&t);
		flush(r, end);
	}
	free(last);
}

/* ---- resume ---- */

static int load_counters(lr_run *r, const cJSON *c, locus_error *err)
{
	if (lr_json_known(c, counter_fields, "checkpoint counters", err))
		return LOCUS_EINVALID;
	/* counts are integers in [0, 2^53) (cost a number >= 0): never a cast
	   of an out-of-range number */
	long n[5] = {0};
	double cost = 0;
	const char *b = NULL;
	for (int i = 0; i < 5; i++) {
		bool ok = i == 3
		              ? lr_json_num(c, counter_fields[i], &cost, &b) &&
		                    cost >= 0
		              : lr_json_count(c, counter_fields[i], &n[i], &b);
		if (!ok)
			return lu_err(err, LOCUS_EINVALID,
			              "checkpoint counters: %s missing or bad",
			              counter_fields[i]);
	}
	r->iterations = n[0];
	r->prompt_tokens = n[1];
	r->completion_tokens = n[2];
	r->cost_usd = cost;
	lr_events_seq_at_least(&r->ev, n[4]);
	return 0;
}

/* GET the checkpoint (the one parked.json names, else the newest). */
static int load_checkpoint(lr_run *r, cJSON **state, locus_error *err)
{
	/* parked.json is in the box: only an id of safe characters is
	   used, else the newest checkpoint is asked for */
	cJSON *pj = NULL;
	locus_error e2;
	const char *id = NULL;
	if (!lr_json_file_read(r->state_dir, "parked.json", LR_MAX_STATE_FILE,
	                       &pj, &e2))
		id = lr_json_str(pj, "checkpoint_id", NULL);
	if (id && strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM"
	                     "NOPQRSTUVWXYZ0123456789._-:") != strlen(id))
		id = NULL;
	char *tail = lr_strf("checkpoint?thread_id=%s%s%s", r->env->run_id,
	                     id ? "&checkpoint_id=" : "", id ? id : "");
	cJSON_Delete(pj);
	if (!tail)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	cJSON *ans = NULL;
	int rc = lr_gw_run_request(&r->gw, "GET", tail, NULL,
	                           LHTTP_RETRY_IDEMPOTENT, &ans, err);
	free(tail);
	if (rc)
		return rc;
	static const char *const fields[] = {"checkpoint_id", "state", NULL};
	if (!ans || lr_json_known(ans, fields, "the checkpoint", err) ||
	    !lr_json_obj(ans, "state", NULL)) {
		cJSON_Delete(ans);
		return lu_err(err, LOCUS_EINVALID,
		              "the checkpoint is malformed");
	}
	*state = cJSON_DetachItemFromObject(ans, "state");
	cJSON_Delete(ans);
	return 0;
}

/* The pending call's arguments and index in the last assistant message. */
static const cJSON *find_call(lr_run *r, const char *call_id, int *index)
{
	const cJSON *last = NULL;
	for (const cJSON *m = r->messages->child; m; m = m->next) {
		const char *role = lr_json_str(m, "role", NULL);
		if (role && !strcmp(role, "assistant"))
			last = m;
	}
	const cJSON *calls =
	    last ? lr_json_arr(last, "tool_calls", NULL) : NULL;
	int i = 0;
	for (const cJSON *tc = calls ? calls->child : NULL; tc;
	     tc = tc->next, i++) {
		const char *id = lr_json_str(tc, "id", NULL);
		if (id && !strcmp(id, call_id)) {
			*index = i;
			return calls;
		}
	}
	return NULL;
}

/* Finish the pending call with the gateway's resume object. */
static void finish_pending(lr_run *r, const cJSON *pending, const cJSON *resume,
                           lr_end *end)
{
	locus_error err;
	const char *kind = lr_json_str(pending, "kind", NULL);
	const char *call_id = lr_json_str(pending, "call_id", NULL);
	int idx = -1;
	const cJSON *calls = call_id ? find_call(r, call_id, &idx) : NULL;
	if (!kind || !calls ||
	    lr_json_known(pending, pending_fields, "pending", &err) ||
	    lr_json_known(resume, resume_fields, "the resume", &err)) {
		end_error(end, "",
		          "the checkpoint's pending call or the resume "
		          "is malformed");
		return;
	}
	const cJSON *tc = cJSON_GetArrayItem(calls, idx);
	const cJSON *fn = cJSON_GetObjectItem(tc, "function");
	const char *name = lr_json_str(fn, "name", NULL);
	const char *args = lr_json_str(fn, "arguments", NULL);
	if (!strcmp(kind, "question")) {
		const cJSON *ans = cJSON_GetObjectItem(resume, "answer");
		if (!ans) {
			end_error(end, "",
			          "the run waits for an answer, the "
			          "resume has none");
			return;
		}
		char *text = cJSON_IsString(ans) ? strdup(ans->valuestring)
		                                 : lr_json_canonical(ans);
		lr_call_result res = {.text = text};
		lr_tool_events(r, "tool_complete", call_id, name ? name : "",
		               NULL, &res, 0);
		add_message(r, "tool", text, call_id);
		free(text);
	} else if (!strcmp(kind, "approval")) {
		const char *want = lr_json_str(pending, "approval_id", NULL);
		const char *got = lr_json_str(resume, "approval_id", NULL);
		const char *decision = lr_json_str(resume, "decision", NULL);
		if (!want || !got || strcmp(want, got) || !name || !args) {
			end_error(end, "",
			          "the resume names another approval "
			          "than the parked call's");
			return;
		}
		lr_logf(&r->log, "resume: approval %s is %s", got,
		        decision ? decision : "(no decision)");
		lr_call_result res = {0};
		lr_outcome o = LR_RAN;
		if (decision && !strcmp(decision, "approved")) {
			o = lr_tool_call(r, call_id, name, args, got, &res,
			                 &err);
		} else {
			/* who decided and why reach the model */
			char *ww = lr_who_why(
			    lr_json_str(resume, "decided_by", NULL),
			    lr_json_str(resume, "justification", NULL));
			bool denied = decision && !strcmp(decision, "denied");
			char msg[700];
			snprintf(msg, sizeof msg, "%s (%s): %s%s",
			         denied ? "denied by a person" : "not approved",
			         got, decision ? decision : "no decision",
			         ww ? ww : "");
			free(ww);
			res.text = strdup(msg);
			res.is_error = true;
			lr_tool_events(r, "tool_complete", call_id, name, NULL,
			               &res, 0);
		}
		if (o == LR_PARK) {
			free(res.text);
			park(r, res.waiting, end);
			return;
		}
		add_message(r, "tool", res.text, call_id);
		free(res.text);
		cJSON_Delete(res.waiting);
	} else {
		end_error(end, "", "the checkpoint waits for an unknown kind");
		return;
	}
	run_calls(r, calls, idx + 1, end);
}

static void resume_run(lr_run *r, const cJSON *resume, lr_end *end)
{
	cJSON *state = NULL;
	locus_error err;
	int rc = load_checkpoint(r, &state, &err);
	if (rc) {
		end_error(end,
		          "the checkpoint could not be read: ", err.message);
		return;
	}
	const cJSON *msgs = lr_json_arr(state, "messages", NULL);
	const cJSON *pending = lr_json_obj(state, "pending", NULL);
	const cJSON *ctr = lr_json_obj(state, "counters", NULL);
	if (lr_json_known(state, state_fields, "the checkpoint", &err) ||
	    !msgs || !pending || !ctr || load_counters(r, ctr, &err)) {
		cJSON_Delete(state);
		end_error(end, "the checkpoint is malformed: ", err.message);
		return;
	}
	cJSON_Delete(r->messages);
	r->messages = cJSON_DetachItemFromObject(state, "messages");
	lr_logf(&r->log, "resumed from the checkpoint (%d messages)",
	        cJSON_GetArraySize(r->messages));
	finish_pending(r, pending, resume, end);
	cJSON_Delete(state);
	flush(r, end);
}

void lr_loop(lr_run *r, const char *op, const cJSON *resume, lr_end *end)
{
	memset(end, 0, sizeof *end);
	if (!strcmp(op, "resume"))
		resume_run(r, resume, end);
	else {
		char *sys = lr_system_prompt(&r->m);
		if (!sys) {
			end_error(end, "out of memory", "");
			return;
		}
		if (sys[0])
			add_message(r, "system", sys, NULL);
		free(sys);
		add_message(r, "user", r->m.input, NULL);
	}
	if (!end->status)
		agent_loop(r, end);
}
