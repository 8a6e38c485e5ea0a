/*
 * cli/hook.c - `locus hook AGENT`: a permission hook for coding agents
 * (spec integrations.md section 2, docs/integrations.md).
 *
 *   locus hook claude-code|codex|gemini [--policy FILE | --preset NAME]
 *              [--claude-settings FILE]... [--claude-project DIR]
 *              [--audit FILE] [--root DIR] [--timeout SECONDS]
 *              [--answer-allow] [--jail] [--no-ask] [--jsonl]
 *   locus hook install AGENT [--project DIR] [--write]   (hook_install.c)
 *   locus hook doctor [AGENT] [--project DIR]            (hook_install.c)
 *
 * Reads the agent's hook JSON on stdin (at most 16 MiB), turns it into the
 * calls it asks for (hook_calls.c), decides each with the policy engine's
 * gate and answers in the agent's own protocol.  A hook must never make
 * the agent more permissive than it is alone, because an `allow` skips
 * the agent's own prompt: locus answers allow only for calls it knows to
 * be safe (hook_safe.c); another call the policy allows gets no decision,
 * so the agent's own permission flow runs.  The table:
 *
 *   agent/event              known safe   allowed   held        denied
 *   claude-code PreToolUse   allow        (none)    ask         deny
 *   claude-code PermissionR. allow        (none)    (none)      deny
 *   codex PreToolUse         (none)       (none)    deny        deny
 *   codex PermissionRequest  allow        (none)    (none)      deny
 *   gemini BeforeTool        allow        {}        ask         deny
 *
 * --jail (hook_jail.c): an allowed shell call the policy wants confined
 * is answered allow with its input rewritten to run under `locus jail`.
 * A Gemini run that cannot ask (hook_ask.c) or --no-ask: a hold is a
 * deny.  `--answer-allow` answers allow for every allowed call (locus is the only
 * gate; Codex PreToolUse then also denies a held call, since nobody else
 * would stop it).  All with exit status 0.  Anything that stops us from
 * deciding (malformed JSON, wrong types, a payload over the cap, a bad
 * policy, an audit record that cannot be written, the time limit) is fail
 * closed: a message on stderr, the agent's deny answer on stdout, and exit
 * status 2, which the three agents treat as "blocked, stderr is the
 * reason" whatever stdout holds.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "agents/hook.h"
#include "opts.h"
#include "policy_cli.h"
#include "../util/json.h"
#include "../util/read.h"

#define HOOK_MAX_INPUT ((size_t)16 << 20)
#define HOOK_DEFAULT_TIMEOUT 10

/* How an agent is answered. */
typedef enum hook_style {
	HOOK_CLAUDE, /* hookSpecificOutput.permissionDecision allow|ask|deny */
	HOOK_CODEX,  /* only a deny (with reason) in PreToolUse */
	HOOK_GEMINI, /* decision allow|ask|deny */
} hook_style;

typedef struct hook_agent {
	const char *name;
	const char *events[2]; /* hook_event_name values; [0] the default */
	hook_style style;
} hook_agent;

static const hook_agent hook_agents[] = {
    {"claude-code", {"PreToolUse", "PermissionRequest"}, HOOK_CLAUDE},
    {"codex", {"PreToolUse", "PermissionRequest"}, HOOK_CODEX},
    {"gemini", {"BeforeTool", NULL}, HOOK_GEMINI},
};

#define HOOK_NAGENTS (sizeof hook_agents / sizeof hook_agents[0])

/* What the agent is told. */
typedef enum hook_verdict {
	V_NONE, /* no decision: the agent's own flow applies */
	V_ALLOW,
	V_ASK,
	V_DENY,
} hook_verdict;

/*
 * The fail-closed answer the SIGALRM handler writes.  A signal handler can
 * only reach static storage; it is set once, before the alarm is armed,
 * and never changed afterwards.
 */
static const char *alarm_stdout;
static const char *alarm_stderr;

/* Where answers go: stdout, or one payload's buffer in --jsonl mode. */
static FILE *hook_out;

static void on_alarm(int sig)
{
	(void)sig;
	if (alarm_stdout)
		(void)!write(1, alarm_stdout, strlen(alarm_stdout));
	if (alarm_stderr)
		(void)!write(2, alarm_stderr, strlen(alarm_stderr));
	_exit(2);
}

static bool is_permission_request(const char *event)
{
	return strcmp(event, "PermissionRequest") == 0;
}

/*
 * The policy's outcome as the agent's verdict (the table above).
 * `known_safe`: every call of the payload is known safe.
 */
static hook_verdict verdict_for(const hook_agent *a, const char *event,
                                locus_outcome oc, bool known_safe,
                                bool answer_allow, bool can_ask)
{
	bool pr = is_permission_request(event);
	switch (oc) {
	case LOCUS_OUTCOME_DENY: return V_DENY;
	case LOCUS_OUTCOME_REQUIRE_HUMAN:
		/* a PermissionRequest is the agent's own prompt: stay silent
		   and it is shown */
		if (pr)
			return V_NONE;
		/* Codex's PreToolUse cannot ask, and its own approval flow
		   may run the call without a prompt (its sandbox, its
		   "never" policy): a hold is a deny with the reason.  A
		   Gemini run that cannot ask (gemini -p) would wait forever
		   on an ask. */
		if (a->style == HOOK_CODEX || !can_ask)
			return V_DENY;
		return V_ASK;
	case LOCUS_OUTCOME_ALLOW:
		if (a->style == HOOK_CODEX && !pr)
			return V_NONE; /* Codex rejects a plain PreToolUse allow */
		return known_safe || answer_allow ? V_ALLOW : V_NONE;
	}
	return V_DENY;
}

static char *line_of(cJSON *o)
{
	char *s = o ? cJSON_PrintUnformatted(o) : NULL;
	cJSON_Delete(o);
	if (!s)
		return NULL;
	size_t n = strlen(s);
	char *line = malloc(n + 2);
	if (line) {
		memcpy(line, s, n);
		line[n] = '\n';
		line[n + 1] = '\0';
	}
	cJSON_free(s);
	return line;
}

/*
 * The agent's answer: a malloc'd line (with its newline), or NULL with
 * *none set when the answer is no output at all.  NULL without *none is
 * out of memory.
 */
static char *answer(const hook_agent *a, const char *event, hook_verdict v,
                    const char *reason, const cJSON *updated, bool *none)
{
	*none = false;
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON *upd =
	    updated && v == V_ALLOW ? cJSON_Duplicate(updated, true) : NULL;
	if (updated && v == V_ALLOW && !upd) {
		cJSON_Delete(o);
		return NULL;
	}
	if (a->style == HOOK_GEMINI) {
		/* {} rather than silence: Gemini reads stderr when stdout is
		   empty, and a warning there would read as an allow */
		static const char *const d[] = {NULL, "allow", "ask", "deny"};
		if (d[v])
			cJSON_AddStringToObject(o, "decision", d[v]);
		if (v == V_ASK || v == V_DENY)
			cJSON_AddStringToObject(o, "reason", reason);
		if (v == V_ASK) /* what Gemini's confirmation shows */
			cJSON_AddStringToObject(o, "systemMessage", reason);
		if (upd) { /* merged over the model's arguments */
			cJSON *h =
			    cJSON_AddObjectToObject(o, "hookSpecificOutput");
			if (!h ||
			    !cJSON_AddItemToObject(h, "tool_input", upd)) {
				cJSON_Delete(upd);
				cJSON_Delete(o);
				return NULL;
			}
		}
		return line_of(o);
	}
	/* Codex takes a PreToolUse allow only with updatedInput */
	if (v == V_NONE || (a->style == HOOK_CODEX && v == V_ALLOW && !upd &&
	                    !is_permission_request(event))) {
		cJSON_Delete(o);
		*none = true;
		return NULL;
	}
	cJSON *h = cJSON_AddObjectToObject(o, "hookSpecificOutput");
	if (!h) {
		cJSON_Delete(upd);
		cJSON_Delete(o);
		return NULL;
	}
	cJSON_AddStringToObject(h, "hookEventName", event);
	cJSON *at = h;
	if (is_permission_request(event)) {
		/* decision.behavior allow|deny (an ask is silence) */
		cJSON *d = cJSON_AddObjectToObject(h, "decision");
		if (d) {
			cJSON_AddStringToObject(
			    d, "behavior", v == V_ALLOW ? "allow" : "deny");
			if (v != V_ALLOW)
				cJSON_AddStringToObject(d, "message", reason);
		}
		at = d;
	} else {
		static const char *const d[] = {NULL, "allow", "ask", "deny"};
		cJSON_AddStringToObject(h, "permissionDecision", d[v]);
		cJSON_AddStringToObject(h, "permissionDecisionReason", reason);
	}
	if (upd && (!at || !cJSON_AddItemToObject(at, "updatedInput", upd))) {
		cJSON_Delete(upd);
		cJSON_Delete(o);
		return NULL;
	}
	return line_of(o);
}

/* The reason handed to the agent for a verdict. */
static char *reason_text(hook_verdict v, locus_outcome oc, const char *why,
                         bool jailed)
{
	const char *head = "locus allowed this call: ";
	if (v == V_ALLOW && jailed)
		head = "locus allowed this call to run in its jail (the "
		       "workspace is the only writable place, no network, "
		       "credentials hidden): ";
	if (v == V_DENY && oc == LOCUS_OUTCOME_REQUIRE_HUMAN)
		head = "locus holds this call for a person's approval (this "
		       "agent's hook cannot ask, so it is blocked; run it "
		       "yourself or allow it in the policy): ";
	else if (v == V_DENY)
		head = "locus denied this call: ";
	else if (v == V_ASK)
		head = "locus holds this call for a person's approval: ";
	size_t n = strlen(head) + strlen(why) + 1;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s%s", head, why);
	return s;
}

/* Fail closed: message on stderr, the deny answer on stdout, status 2. */
static int blocked(const hook_agent *a, const char *event, const char *why)
{
	alarm(0);
	char *r = reason_text(V_DENY, LOCUS_OUTCOME_DENY, why, false);
	bool none;
	char *line = answer(a, event, V_DENY, r ? r : why, NULL, &none);
	if (line)
		fputs(line, hook_out);
	fflush(hook_out);
	fprintf(stderr,
	        "locus hook %s: %s; the call is blocked (fail "
	        "closed)\n",
	        a->name, why);
	free(line);
	free(r);
	return 2;
}

static void hook_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: locus hook claude-code|codex|gemini [--policy FILE | "
	    "--preset NAME]\n"
	    "                  [--claude-settings FILE]... "
	    "[--claude-project DIR]\n"
	    "                  [--audit FILE [--audit-key KEY]] [--root DIR] "
	    "[--timeout SECONDS] [--answer-allow]\n"
	    "                  [--jail] [--no-ask] [--jsonl]\n"
	    "       locus hook install claude-code|codex|gemini "
	    "[--project DIR] [--write]\n"
	    "       locus hook doctor [claude-code|codex|gemini] "
	    "[--project DIR]\n"
	    "reads the agent's hook JSON on stdin, answers in its "
	    "protocol\n");
}

/* The options of one run. */
typedef struct hook_opts {
	const char *policy_file, *preset, *audit_file, *root;
	const char *audit_key;  /* --audit-key: keyed checkpoints */
	cli_claude_opts claude; /* --claude-settings, --claude-project */
	long timeout;
	bool answer_allow;
	bool jail;   /* --jail: allowed shell calls run under locus jail */
	bool jsonl;  /* --jsonl: one payload a line (tests, bulk checks) */
	bool no_ask; /* --no-ask: a hold is a deny (nobody to ask) */
} hook_opts;

/* Everything one run owns, freed in one place. */
typedef struct hook_run {
	const hook_agent *agent;
	const char *event;
	locus_policy *policy;
	locus_audit *audit;
	char *input;
	size_t input_len; /* --jsonl: the line given */
	cJSON *doc;
	hook_plan plan;
	char root[PATH_MAX];
	bool has_root;
	/* the result over all calls */
	locus_outcome outcome;
	char *reason;
	bool known_safe;
	bool plan_mode; /* permission_mode "plan": only reading may run */
	/* --jail: the payload is one shell call that can be rewritten */
	bool jailable;
	bool wants_sandbox; /* the policy's require_sandbox_for matched */
	bool network;       /* a network label: the jail keeps the network */
	const cJSON *tool_input; /* borrowed from doc */
} hook_run;

static void hook_run_free(hook_run *r)
{
	free(r->reason);
	hook_plan_free(&r->plan);
	cJSON_Delete(r->doc);
	free(r->input);
	locus_audit_close(r->audit);
	locus_policy_free(r->policy);
}

/* Read and check the payload; sets r->doc and r->event.  0, or the
 * blocked status. */
static int read_payload(hook_run *r)
{
	const hook_agent *a = r->agent;
	char why[512];
	size_t len = r->input_len;
	int rc = r->input ? 0 : lu_read_all(0, HOOK_MAX_INPUT, &r->input, &len);
	if (rc > 0) {
		snprintf(why, sizeof(why), "the hook input is over %zu MiB",
		         HOOK_MAX_INPUT >> 20);
		return blocked(a, r->event, why);
	}
	if (rc < 0)
		return blocked(a, r->event, "cannot read the hook input");
	if (len == 0)
		return blocked(a, r->event, "no hook input on stdin");
	lu_json_opts jo = LU_JSON_OPTS_INIT;
	jo.object = true;
	switch (lu_json_read(&r->doc, r->input, len, &jo, NULL)) {
	case LU_JSON_OK: break;
	case LU_JSON_NUL:
		return blocked(a, r->event, "the hook input holds a NUL byte");
	case LU_JSON_TRAILING:
		return blocked(a, r->event,
		               "text after the hook input's JSON object");
	case LU_JSON_NOT_OBJECT:
		return blocked(a, r->event,
		               "the hook input must be a JSON object");
	case LU_JSON_DUPLICATE:
		return blocked(a, r->event, "duplicate key in the hook input");
	case LU_JSON_UTF8:
		return blocked(a, r->event,
		               "the hook input is not valid UTF-8");
	default:
		return blocked(a, r->event, "the hook input is not valid JSON");
	}
	const cJSON *ev =
	    cJSON_GetObjectItemCaseSensitive(r->doc, "hook_event_name");
	if (ev) {
		const char *e = cJSON_IsString(ev) ? ev->valuestring : "";
		bool known = false;
		for (size_t i = 0; i < 2 && a->events[i]; i++)
			if (!strcmp(e, a->events[i])) {
				r->event = a->events[i];
				known = true;
			}
		if (!known) {
			if (a->events[1])
				snprintf(why, sizeof(why),
				         "hook_event_name must be \"%s\" or "
				         "\"%s\" for %s (configure locus on "
				         "those events)",
				         a->events[0], a->events[1], a->name);
			else
				snprintf(
				    why, sizeof(why),
				    "hook_event_name must be \"%s\" for %s "
				    "(configure locus on that event)",
				    a->events[0], a->name);
			return blocked(a, r->event, why);
		}
	}
	return 0;
}

/* Decide one call; folds it into r->outcome/reason/known_safe. */
static int decide_call(hook_run *r, const hook_call *c)
{
	char why[512];
	char *args = cJSON_PrintUnformatted(c->input);
	if (!args)
		return blocked(r->agent, r->event, "out of memory");
	locus_error err;
	memset(&err, 0, sizeof(err));
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	in.workspace_root = r->has_root ? r->root : NULL;
	static const char *const jailed[] = {"sandboxed"};
	if (r->jailable) { /* the call will run in the jail */
		in.tags = jailed;
		in.ntags = 1;
	}
	locus_decision *d = NULL;
	int rc = locus_gate(&d, r->policy, NULL, c->tool, args, strlen(args),
	                    &in, &err);
	cJSON_free(args);
	if (rc) {
		snprintf(why, sizeof(why), "the gate could not decide: %s",
		         err.message[0] ? err.message
		                        : locus_error_code_name(rc));
		return blocked(r->agent, r->event, why);
	}
	/* no record, no decision */
	if (r->audit && locus_audit_append(r->audit, d, &err)) {
		locus_decision_free(d);
		snprintf(why, sizeof(why), "audit: %s", err.message);
		return blocked(r->agent, r->event, why);
	}
	locus_outcome oc = locus_decision_outcome(d);
	if (locus_policy_wants_sandbox(r->policy, d))
		r->wants_sandbox = true;
	if (locus_decision_has_label(d, "exec:network") ||
	    locus_decision_has_label(d, "network"))
		r->network = true;
	if (!hook_known_safe(d, c, r->has_root ? r->root : NULL, !r->plan_mode))
		r->known_safe = false;
	if (!r->reason || oc > r->outcome) {
		free(r->reason);
		r->reason = strdup(locus_decision_reason(d));
		r->outcome = oc;
	}
	locus_decision_free(d);
	if (!r->reason)
		return blocked(r->agent, r->event, "out of memory");
	return 0;
}

/* Parse, plan, decide every call, audit.  0, or 2 after answering
 * "blocked". */
static int decide(hook_run *r, const hook_opts *o)
{
	const hook_agent *a = r->agent;
	char why[512];
	int rc = read_payload(r);
	if (rc)
		return rc;
	const cJSON *tn = cJSON_GetObjectItemCaseSensitive(r->doc, "tool_name");
	if (!cJSON_IsString(tn) || !tn->valuestring[0])
		return blocked(a, r->event,
		               "\"tool_name\" must be a non-empty string");
	const cJSON *ti =
	    cJSON_GetObjectItemCaseSensitive(r->doc, "tool_input");
	if (!cJSON_IsObject(ti))
		return blocked(a, r->event,
		               "\"tool_input\" must be a JSON object");
	const cJSON *cwd = cJSON_GetObjectItemCaseSensitive(r->doc, "cwd");
	if (cwd && !cJSON_IsString(cwd) && !cJSON_IsNull(cwd))
		return blocked(a, r->event, "\"cwd\" must be a string");
	const cJSON *mcp =
	    cJSON_GetObjectItemCaseSensitive(r->doc, "mcp_context");
	/* in plan mode a hook allow may run what the mode would not: only
	   reading is approved there, never on an allow rule's word alone */
	const cJSON *mode =
	    cJSON_GetObjectItemCaseSensitive(r->doc, "permission_mode");
	r->plan_mode =
	    cJSON_IsString(mode) && !strcmp(mode->valuestring, "plan");
	rc =
	    hook_plan_build(&r->plan, tn->valuestring, ti,
	                    cJSON_IsObject(mcp) ? mcp : NULL, why, sizeof(why));
	if (rc < 0)
		return blocked(a, r->event, "out of memory");
	if (rc > 0)
		return blocked(a, r->event, why);

	/* path rules and "inside the workspace" are relative to the agent's
	   working folder */
	const char *root = o->root;
	if (!root && cJSON_IsString(cwd) && cwd->valuestring[0] == '/')
		root = cwd->valuestring;
	if (root && strlen(root) < sizeof(r->root)) {
		snprintf(r->root, sizeof(r->root), "%s", root);
		r->has_root = true;
	} else if (!root && getcwd(r->root, sizeof(r->root))) {
		r->has_root = true;
	}

	r->tool_input = ti;
	r->jailable = o->jail && r->has_root &&
	              hook_tool_is_shell(tn->valuestring) &&
	              r->plan.ncalls == 1 && !r->plan.hold_reason;

	locus_error err;
	memset(&err, 0, sizeof(err));
	locus_audit_options ao = LOCUS_AUDIT_OPTIONS_INIT;
	ao.key_path = o->audit_key;
	ao.workspace = r->has_root ? r->root : NULL;
	if (o->audit_file &&
	    locus_audit_open_opts(&r->audit, o->audit_file, &ao, &err)) {
		snprintf(why, sizeof(why), "audit: %s", err.message);
		return blocked(a, r->event, why);
	}
	r->known_safe = r->plan.ncalls > 0;
	for (size_t i = 0; i < r->plan.ncalls; i++)
		if ((rc = decide_call(r, &r->plan.calls[i])))
			return rc;
	if (r->plan.hold_reason && r->outcome < LOCUS_OUTCOME_REQUIRE_HUMAN) {
		free(r->reason);
		r->reason = strdup(r->plan.hold_reason);
		r->outcome = LOCUS_OUTCOME_REQUIRE_HUMAN;
		if (!r->reason)
			return blocked(a, r->event, "out of memory");
	}
	if (r->plan.hold_reason)
		r->known_safe = false;
	return 0;
}

/* Parse the options; 0, or the usage status (2), or -1 for --help. */
static int parse_opts(int argc, char **argv, hook_opts *o,
                      const char **agent_name)
{
	memset(o, 0, sizeof(*o));
	o->timeout = HOOK_DEFAULT_TIMEOUT;
	*agent_name = NULL;
	const cli_opt opts[] = {
	    CLI_OPT_FLAG("--answer-allow", &o->answer_allow),
	    CLI_OPT_FLAG("--jail", &o->jail),
	    CLI_OPT_FLAG("--jsonl", &o->jsonl),
	    CLI_OPT_FLAG("--no-ask", &o->no_ask),
	    CLI_OPT_POLICY(&o->policy_file, &o->preset, &o->claude, "hook"),
	    CLI_OPT_AUDIT(&o->audit_file, &o->audit_key),
	    CLI_OPT_VALUE("--root", &o->root),
	};
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		bool has = i + 1 < argc;
		int t = CLI_OPT_STEP(opts, "hook", hook_usage, argc, argv, &i);
		if (t == CLI_OPT_TAKEN)
			continue;
		if (t)
			return t;
		if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			hook_usage(stdout);
			return -1;
		} else if (has && !strcmp(s, "--timeout")) {
			char *e;
			errno = 0;
			o->timeout = strtol(argv[++i], &e, 10);
			if (errno || *e || o->timeout < 1 ||
			    o->timeout > 3600) {
				fprintf(stderr, "locus hook: --timeout takes "
				                "1 to 3600 seconds\n");
				return 2;
			}
		} else if (s[0] != '-' && !*agent_name) {
			*agent_name = s;
		} else {
			return cli_opt_unknown("hook", s, hook_usage);
		}
	}
	return 0;
}

/* The verdict, printed.  0, or 2 when it cannot be written. */
static int respond(hook_run *r, const hook_opts *o)
{
	const hook_agent *a = r->agent;
	bool can_ask = !o->no_ask && hook_agent_can_ask(a->name);
	hook_verdict v = verdict_for(a, r->event, r->outcome, r->known_safe,
	                             o->answer_allow && !r->plan_mode, can_ask);
	/* --jail: an allowed shell call the policy wants confined runs in
	   the jail, answered allow with the rewritten input (in plan mode
	   only what is known safe: a jail still lets the workspace
	   change) */
	cJSON *updated = NULL;
	bool jailed = r->jailable && r->wants_sandbox &&
	              r->outcome == LOCUS_OUTCOME_ALLOW &&
	              (!r->plan_mode || r->known_safe);
	if (jailed) {
		v = V_ALLOW;
		updated = hook_jail_input(r->tool_input, r->root, r->network);
	}
	char *why = reason_text(v, r->outcome, r->reason, jailed);
	bool none = false;
	char *out = why && (!jailed || updated)
	                ? answer(a, r->event, v, why, updated, &none)
	                : NULL;
	cJSON_Delete(updated);
	int status = 0;
	if (!out && !none)
		status = blocked(a, r->event, "out of memory");
	else if (out)
		fputs(out, hook_out);
	if (fflush(hook_out) && status == 0) {
		fprintf(stderr, "locus hook %s: cannot write the answer\n",
		        a->name);
		status = 2;
	}
	free(out);
	free(why);
	return status;
}

/* One payload: `input` (taken, malloc'd) or, NULL, stdin.  The
 * status. */
static int run_one(const hook_agent *a, const hook_opts *o, char *input,
                   size_t len)
{
	hook_run run;
	memset(&run, 0, sizeof(run));
	run.agent = a;
	run.event = a->events[0];
	run.input = input;
	run.input_len = len;
	int status;
	if (cli_policy_build_claude(o->policy_file, o->preset, &o->claude,
	                            &run.policy))
		status =
		    blocked(a, run.event, "the policy could not be loaded");
	else
		status = decide(&run, o);
	if (status == 0) {
		alarm(0);
		status = respond(&run, o);
	}
	hook_run_free(&run);
	return status;
}

/*
 * --jsonl: one payload a line; for each, one line
 * {"exit":STATUS,"answer":ANSWER} (ANSWER null for no output).  The time
 * limit applies to each payload.  0, or 2 when output fails.
 */
static int run_lines(const hook_agent *a, const hook_opts *o)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		char *buf = NULL, *copy = malloc((size_t)n + 1);
		size_t blen = 0;
		FILE *mem = copy ? open_memstream(&buf, &blen) : NULL;
		if (!mem) {
			free(copy);
			rc = 2;
			break;
		}
		memcpy(copy, line, (size_t)n + 1);
		hook_out = mem;
		alarm((unsigned)o->timeout);
		int st = run_one(a, o, copy, (size_t)n);
		alarm(0);
		fclose(mem);
		hook_out = stdout;
		cJSON *ans = NULL;
		if (buf && blen)
			ans = cJSON_Parse(buf);
		cJSON *res = cJSON_CreateObject();
		cJSON_AddNumberToObject(res, "exit", st);
		if (!ans)
			ans = cJSON_CreateNull();
		cJSON_AddItemToObject(res, "answer", ans);
		char *text = cJSON_PrintUnformatted(res);
		cJSON_Delete(res);
		free(buf);
		if (!text || printf("%s\n", text) < 0) {
			cJSON_free(text);
			rc = 2;
			break;
		}
		cJSON_free(text);
	}
	free(line);
	if (fflush(stdout))
		rc = 2;
	return rc;
}

int cli_hook(int argc, char **argv)
{
	hook_out = stdout;
	if (argc > 1 && !strcmp(argv[1], "install"))
		return cli_hook_install(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "doctor"))
		return cli_hook_doctor(argc - 1, argv + 1);
	hook_opts o;
	const char *agent_name;
	int prc = parse_opts(argc, argv, &o, &agent_name);
	if (prc)
		return prc < 0 ? 0 : prc;
	const hook_agent *a = NULL;
	for (size_t i = 0; agent_name && i < HOOK_NAGENTS; i++)
		if (!strcmp(agent_name, hook_agents[i].name))
			a = &hook_agents[i];
	if (!a) {
		/* exit 2 with a message on stderr blocks in every agent */
		fprintf(stderr,
		        "locus hook: %s agent; expected claude-code, "
		        "codex or gemini; the call is blocked\n",
		        agent_name ? "unknown" : "missing");
		hook_usage(stderr);
		return 2;
	}

	/* bounded time: past the limit, the prepared deny answer goes out */
	char *r = reason_text(V_DENY, LOCUS_OUTCOME_DENY,
	                      "the hook ran out of time", false);
	bool none;
	char *line =
	    answer(a, a->events[0], V_DENY, r ? r : "timeout", NULL, &none);
	char msg[160];
	snprintf(msg, sizeof(msg),
	         "locus hook %s: no decision within %lds; "
	         "the call is blocked (fail closed)\n",
	         a->name, o.timeout);
	alarm_stdout = line;
	alarm_stderr = msg;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarm((unsigned)o.timeout);

	int status = o.jsonl ? run_lines(a, &o) : run_one(a, &o, NULL, 0);
	alarm(0);
	alarm_stdout = NULL;
	alarm_stderr = NULL;
	free(line);
	free(r);
	return status;
}
