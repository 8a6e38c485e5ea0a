/*
 * cli/hook.c - `locus hook AGENT`: a permission hook for coding agents
 * (spec integrations.md section 2, docs/integrations.md).
 *
 *   locus hook claude-code|codex|gemini [--policy FILE | --preset NAME]
 *              [--claude-settings FILE] [--audit FILE] [--root DIR]
 *              [--timeout SECONDS]
 *
 * Reads the agent's pre-tool hook JSON on stdin (at most 16 MiB), decides
 * the tool call with the policy engine's gate (locus_gate already maps the
 * agents' tool and argument names to harness tools; nothing is duplicated
 * here) and answers in the agent's own protocol:
 *
 *   agent        allow                    require_human       deny
 *   claude-code  permissionDecision allow  ... "ask"           ... "deny"
 *   codex        no output                permissionDecision "deny" + reason
 *   gemini       {"decision":"allow"}     {"decision":"deny","reason":...}
 *
 * all with exit status 0.  Anything that stops us from deciding (malformed
 * JSON, wrong types, a payload over the cap, a bad policy, an audit record
 * that cannot be written, the time limit) is fail closed: a message on
 * stderr, the agent's deny answer on stdout, and exit status 2, which all
 * three agents treat as "blocked, stderr is the reason" whatever stdout
 * holds.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "policy_cli.h"

#define HOOK_MAX_INPUT       ((size_t)16 << 20)
#define HOOK_DEFAULT_TIMEOUT 10

/* How an agent is answered. */
typedef enum hook_style {
	HOOK_CLAUDE, /* hookSpecificOutput.permissionDecision allow|ask|deny */
	HOOK_CODEX,  /* silence for allow; permissionDecision deny otherwise */
	HOOK_GEMINI, /* decision allow|deny (no ask) */
} hook_style;

typedef struct hook_agent {
	const char *name;
	const char *event; /* hook_event_name when present */
	hook_style style;
	bool can_ask;
} hook_agent;

static const hook_agent hook_agents[] = {
    {"claude-code", "PreToolUse", HOOK_CLAUDE, true},
    {"codex", "PreToolUse", HOOK_CODEX, false},
    {"gemini", "BeforeTool", HOOK_GEMINI, false},
};

#define HOOK_NAGENTS (sizeof hook_agents / sizeof hook_agents[0])

/*
 * The fail-closed answer the SIGALRM handler writes.  A signal handler can
 * only reach static storage; it is set once, before the alarm is armed,
 * and never changed afterwards.
 */
static const char *alarm_stdout;
static const char *alarm_stderr;

static void on_alarm(int sig)
{
	(void)sig;
	if (alarm_stdout)
		(void)!write(1, alarm_stdout, strlen(alarm_stdout));
	if (alarm_stderr)
		(void)!write(2, alarm_stderr, strlen(alarm_stderr));
	_exit(2);
}

/*
 * The agent's answer for an outcome.  `reason` is the text shown to the
 * model (and the person).  Returns a malloc'd line (with its newline), or
 * NULL when the answer is no output at all (Codex allow).
 */
static char *answer(const hook_agent *a, locus_outcome oc, const char *reason)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	if (a->style == HOOK_GEMINI) {
		cJSON_AddStringToObject(o, "decision",
		                        oc == LOCUS_OUTCOME_ALLOW ? "allow"
		                                                  : "deny");
		if (oc != LOCUS_OUTCOME_ALLOW)
			cJSON_AddStringToObject(o, "reason", reason);
	} else {
		if (a->style == HOOK_CODEX && oc == LOCUS_OUTCOME_ALLOW) {
			/* Codex rejects a plain allow as "unsupported"
			   (and then runs the call anyway): stay silent */
			cJSON_Delete(o);
			return NULL;
		}
		const char *d = "deny";
		if (oc == LOCUS_OUTCOME_ALLOW)
			d = "allow";
		else if (oc == LOCUS_OUTCOME_REQUIRE_HUMAN && a->can_ask)
			d = "ask";
		cJSON *h = cJSON_AddObjectToObject(o, "hookSpecificOutput");
		if (h) {
			cJSON_AddStringToObject(h, "hookEventName",
			                        "PreToolUse");
			cJSON_AddStringToObject(h, "permissionDecision", d);
			cJSON_AddStringToObject(h, "permissionDecisionReason",
			                        reason);
		}
	}
	char *s = cJSON_PrintUnformatted(o);
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

/* The reason handed to the agent for a decision. */
static char *reason_text(const hook_agent *a, locus_outcome oc, const char *why)
{
	const char *head = "locus allowed this call: ";
	if (oc == LOCUS_OUTCOME_DENY)
		head = "locus denied this call: ";
	else if (oc == LOCUS_OUTCOME_REQUIRE_HUMAN)
		head = a->can_ask ? "locus holds this call for a person's "
		                    "approval: "
		                  : "locus holds this call for a person's "
		                    "approval (this agent's hooks cannot ask, "
		                    "so it is blocked; run it yourself or "
		                    "allow it in the policy): ";
	size_t n = strlen(head) + strlen(why) + 1;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s%s", head, why);
	return s;
}

/* Fail closed: message on stderr, the deny answer on stdout, status 2. */
static int blocked(const hook_agent *a, const char *why)
{
	alarm(0);
	char *r = reason_text(a, LOCUS_OUTCOME_DENY, why);
	char *line = answer(a, LOCUS_OUTCOME_DENY, r ? r : why);
	if (line)
		fputs(line, stdout);
	fflush(stdout);
	fprintf(stderr,
	        "locus hook %s: %s; the call is blocked (fail "
	        "closed)\n",
	        a->name, why);
	free(line);
	free(r);
	return 2;
}


/* Read all of stdin, at most `max` bytes.  0; 1 when over; -1 on error. */
static int read_all(size_t max, char **out, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);
	if (!buf)
		return -1;
	for (;;) {
		if (n == cap) {
			if (cap > max) {
				free(buf);
				return 1;
			}
			cap *= 2;
			char *p = realloc(buf, cap + 1);
			if (!p) {
				free(buf);
				return -1;
			}
			buf = p;
		}
		ssize_t got = read(0, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(buf);
			return -1;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > max) {
			free(buf);
			return 1;
		}
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* Append `s` single-quoted for sh ('...' with ' written '\''). */
static bool sh_quote(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t need = *len + 3 + 4 * strlen(s) + 2;
	if (need > *cap) {
		size_t c = need * 2;
		char *p = realloc(*buf, c);
		if (!p)
			return false;
		*buf = p;
		*cap = c;
	}
	char *o = *buf + *len;
	if (*len)
		*o++ = ' ';
	*o++ = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *s;
		}
	}
	*o++ = '\'';
	*o = '\0';
	*len = (size_t)(o - *buf);
	return true;
}

/*
 * Some agents give a shell command as an argv array (["bash", "-lc",
 * "..."]).  Quote it into the one line that runs exactly that argv, so the
 * shell analyzer sees what will run.  Anything but an array of strings is
 * left alone (the gate then refuses the wrong type: fail closed).
 */
static int argv_to_line(cJSON *input)
{
	cJSON *c = cJSON_GetObjectItemCaseSensitive(input, "command");
	if (!cJSON_IsArray(c) || !c->child)
		return 0;
	for (const cJSON *e = c->child; e; e = e->next)
		if (!cJSON_IsString(e))
			return 0;
	char *line = NULL;
	size_t len = 0, cap = 0;
	for (const cJSON *e = c->child; e; e = e->next)
		if (!sh_quote(&line, &len, &cap, e->valuestring)) {
			free(line);
			return -1;
		}
	cJSON *s = cJSON_CreateString(line);
	free(line);
	if (!s)
		return -1;
	/* keeps the key (ReplaceItemViaPointer would drop it) */
	if (!cJSON_ReplaceItemInObjectCaseSensitive(input, "command", s))
		return -1;
	return 0;
}

static void hook_usage(FILE *f)
{
	fprintf(f,
	        "usage: locus hook claude-code|codex|gemini [--policy FILE | "
	        "--preset NAME]\n"
	        "                  [--claude-settings FILE] [--audit FILE] "
	        "[--root DIR]\n"
	        "                  [--timeout SECONDS]\n"
	        "reads the agent's pre-tool hook JSON on stdin, answers in "
	        "its protocol\n");
}

/* Everything one run owns, freed in one place. */
typedef struct hook_run {
	const hook_agent *agent;
	locus_policy *policy;
	locus_audit *audit;
	char *input;
	cJSON *doc;
	char *args;
	locus_decision *decision;
} hook_run;

static void hook_run_free(hook_run *r)
{
	locus_decision_free(r->decision);
	cJSON_free(r->args);
	cJSON_Delete(r->doc);
	free(r->input);
	locus_audit_close(r->audit);
	locus_policy_free(r->policy);
}

/* Parse, decide, audit.  0, or 2 after answering "blocked". */
static int decide(hook_run *r, const char *root_opt, const char *audit_file)
{
	const hook_agent *a = r->agent;
	char why[512];
	size_t len = 0;
	int rc = read_all(HOOK_MAX_INPUT, &r->input, &len);
	if (rc > 0) {
		snprintf(why, sizeof(why), "the hook input is over %zu MiB",
		         HOOK_MAX_INPUT >> 20);
		return blocked(a, why);
	}
	if (rc < 0)
		return blocked(a, "cannot read the hook input");
	if (len == 0)
		return blocked(a, "no hook input on stdin");
	if (memchr(r->input, '\0', len))
		return blocked(a, "the hook input holds a NUL byte");
	const char *end = NULL;
	r->doc = cJSON_ParseWithLengthOpts(r->input, len, &end, false);
	if (!r->doc)
		return blocked(a, "the hook input is not valid JSON");
	while (end && end < r->input + len &&
	       (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
		end++;
	if (end != r->input + len)
		return blocked(a, "text after the hook input's JSON object");
	if (!cJSON_IsObject(r->doc))
		return blocked(a, "the hook input must be a JSON object");
	if (cli_json_dup_keys(r->doc))
		return blocked(a, "duplicate key in the hook input");
	const cJSON *ev =
	    cJSON_GetObjectItemCaseSensitive(r->doc, "hook_event_name");
	if (ev && (!cJSON_IsString(ev) || strcmp(ev->valuestring, a->event))) {
		snprintf(why, sizeof(why),
		         "hook_event_name must be \"%s\" for %s (configure "
		         "locus on that event)",
		         a->event, a->name);
		return blocked(a, why);
	}
	const cJSON *tn = cJSON_GetObjectItemCaseSensitive(r->doc, "tool_name");
	if (!cJSON_IsString(tn) || !tn->valuestring[0])
		return blocked(a, "\"tool_name\" must be a non-empty string");
	cJSON *ti = cJSON_GetObjectItemCaseSensitive(r->doc, "tool_input");
	if (!cJSON_IsObject(ti))
		return blocked(a, "\"tool_input\" must be a JSON object");
	const cJSON *cwd = cJSON_GetObjectItemCaseSensitive(r->doc, "cwd");
	if (cwd && !cJSON_IsString(cwd) && !cJSON_IsNull(cwd))
		return blocked(a, "\"cwd\" must be a string");
	if (argv_to_line(ti))
		return blocked(a, "out of memory");
	r->args = cJSON_PrintUnformatted(ti);
	if (!r->args)
		return blocked(a, "out of memory");

	/* path rules are relative to the agent's working folder */
	char rootbuf[PATH_MAX];
	const char *root = root_opt;
	if (!root && cJSON_IsString(cwd) && cwd->valuestring[0] == '/')
		root = cwd->valuestring;
	if (!root && getcwd(rootbuf, sizeof(rootbuf)))
		root = rootbuf;

	locus_error err;
	memset(&err, 0, sizeof(err));
	if (audit_file && locus_audit_open(&r->audit, audit_file, 0, &err)) {
		snprintf(why, sizeof(why), "audit: %s", err.message);
		return blocked(a, why);
	}
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	in.workspace_root = root;
	rc = locus_gate(&r->decision, r->policy, NULL, tn->valuestring, r->args,
	                strlen(r->args), &in, &err);
	if (rc) {
		snprintf(why, sizeof(why), "the gate could not decide: %s",
		         err.message[0] ? err.message
		                        : locus_error_code_name(rc));
		return blocked(a, why);
	}
	/* no record, no decision */
	if (r->audit && locus_audit_append(r->audit, r->decision, &err)) {
		snprintf(why, sizeof(why), "audit: %s", err.message);
		return blocked(a, why);
	}
	return 0;
}

int cli_hook(int argc, char **argv)
{
	const char *agent_name = NULL, *policy_file = NULL, *preset = NULL;
	const char *claude = NULL, *audit_file = NULL, *root = NULL;
	long timeout = HOOK_DEFAULT_TIMEOUT;
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			hook_usage(stdout);
			return 0;
		} else if (i + 1 < argc && !strcmp(o, "--policy")) {
			policy_file = argv[++i];
		} else if (i + 1 < argc && !strcmp(o, "--preset")) {
			preset = argv[++i];
		} else if (i + 1 < argc && !strcmp(o, "--claude-settings")) {
			claude = argv[++i];
		} else if (i + 1 < argc && !strcmp(o, "--audit")) {
			audit_file = argv[++i];
		} else if (i + 1 < argc && !strcmp(o, "--root")) {
			root = argv[++i];
		} else if (i + 1 < argc && !strcmp(o, "--timeout")) {
			char *e;
			errno = 0;
			timeout = strtol(argv[++i], &e, 10);
			if (errno || *e || timeout < 1 || timeout > 3600) {
				fprintf(stderr, "locus hook: --timeout takes "
				                "1 to 3600 seconds\n");
				return 2;
			}
		} else if (o[0] != '-' && !agent_name) {
			agent_name = o;
		} else {
			fprintf(stderr,
			        "locus hook: unknown or incomplete "
			        "option '%s'\n",
			        o);
			hook_usage(stderr);
			return 2;
		}
	}
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
	char *r =
	    reason_text(a, LOCUS_OUTCOME_DENY, "the hook ran out of time");
	char *line = answer(a, LOCUS_OUTCOME_DENY, r ? r : "timeout");
	char msg[160];
	snprintf(msg, sizeof(msg),
	         "locus hook %s: no decision within %lds; "
	         "the call is blocked (fail closed)\n",
	         a->name, timeout);
	alarm_stdout = line;
	alarm_stderr = msg;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarm((unsigned)timeout);

	hook_run run;
	memset(&run, 0, sizeof(run));
	run.agent = a;
	int status;
	if (cli_policy_build(policy_file, preset, claude, &run.policy)) {
		status = blocked(a, "the policy could not be loaded");
	} else {
		status = decide(&run, root, audit_file);
	}
	if (status == 0) {
		alarm(0);
		locus_outcome oc = locus_decision_outcome(run.decision);
		char *why =
		    reason_text(a, oc, locus_decision_reason(run.decision));
		char *out = why ? answer(a, oc, why) : NULL;
		if (!why || (!out && !(a->style == HOOK_CODEX &&
		                       oc == LOCUS_OUTCOME_ALLOW))) {
			status = blocked(a, "out of memory");
		} else if (out) {
			fputs(out, stdout);
		}
		if (fflush(stdout) && status == 0) {
			fprintf(stderr,
			        "locus hook %s: cannot write the "
			        "answer\n",
			        a->name);
			status = 2;
		}
		free(out);
		free(why);
	}
	alarm(0);
	alarm_stdout = NULL;
	alarm_stderr = NULL;
	hook_run_free(&run);
	free(line);
	free(r);
	return status;
}
