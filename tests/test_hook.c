/*
 * tests/test_hook.c - `locus hook AGENT` as a black box (LOCUS_BIN).
 *
 * Recorded payloads of each agent (tests/hook-payloads/, written from the
 * agents' documented formats) go through the built binary; each answer is
 * checked in the agent's own protocol: exit status, and the JSON fields
 * Claude Code, Codex and Gemini CLI read.  Malformed input of every kind
 * must come back blocked (exit 2, deny answer, a message on stderr).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "run_locus.h"

static char *payload_path(const char *name)
{
	const char *root = getenv("LOCUS_SOURCE_ROOT");
	ck_assert_msg(root && *root, "LOCUS_SOURCE_ROOT is not set");
	size_t n = strlen(root) + strlen(name) + 32;
	char *p = malloc(n);
	ck_assert_ptr_nonnull(p);
	snprintf(p, n, "%s/tests/hook-payloads/%s", root, name);
	return p;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = (n + 4096 + 1) * 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		size_t got = fread(buf + n, 1, 4096, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* What an agent is told.  ANS_NONE: no output (Codex allow). */
typedef enum ans { ANS_ALLOW, ANS_ASK, ANS_DENY, ANS_NONE } ans;

static const char *ans_name(ans a)
{
	static const char *const n[] = {"allow", "ask", "deny", "none"};
	return n[a];
}

/* Parse stdout as exactly one JSON object on one line. */
static cJSON *one_object(const run_out *r)
{
	ck_assert_msg(r->out_len > 0 && r->out[r->out_len - 1] == '\n',
	              "answer is not one line: [%s]", r->out);
	ck_assert_msg(memchr(r->out, '\n', r->out_len - 1) == NULL,
	              "answer has more than one line: [%s]", r->out);
	cJSON *o = cJSON_Parse(r->out);
	ck_assert_msg(cJSON_IsObject(o), "answer is not a JSON object: [%s]",
	              r->out);
	return o;
}

static const char *str_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/*
 * Check an answer in the agent's protocol for `event` (PreToolUse,
 * PermissionRequest; Gemini's BeforeTool when NULL); returns the reason
 * text (malloc'd, "" when none).  ANS_NONE is no decision: no output for
 * Claude Code and Codex, `{}` for Gemini.
 */
static char *check_answer_ev(const char *agent, const char *event,
                             const run_out *r, ans want)
{
	char *reason = strdup("");
	if (!event)
		event = "PreToolUse";
	bool pr = !strcmp(event, "PermissionRequest");
	if (strcmp(agent, "gemini") != 0 && want == ANS_NONE) {
		ck_assert_msg(r->out_len == 0,
		              "%s: no decision must be silent, got [%s]", agent,
		              r->out);
		return reason;
	}
	cJSON *o = one_object(r);
	if (!strcmp(agent, "gemini")) {
		const char *d = str_of(o, "decision");
		const char *why = str_of(o, "reason");
		if (want == ANS_NONE) {
			ck_assert_msg(cJSON_GetArraySize(o) == 0,
			              "gemini no decision must be {}: [%s]",
			              r->out);
		} else if (want == ANS_ALLOW) {
			ck_assert_msg(d && !strcmp(d, "allow"), "[%s]", r->out);
			ck_assert_msg(why == NULL,
			              "gemini allow with a reason");
			ck_assert_int_eq(cJSON_GetArraySize(o), 1);
		} else {
			ck_assert_msg(d != NULL,
			              "gemini answer without decision");
			ck_assert_str_eq(d, ans_name(want));
			ck_assert_msg(why && *why, "gemini %s needs a reason",
			              d);
			if (want == ANS_ASK)
				ck_assert_str_eq(str_of(o, "systemMessage"),
				                 why);
			free(reason);
			reason = strdup(why);
		}
	} else {
		const cJSON *h =
		    cJSON_GetObjectItemCaseSensitive(o, "hookSpecificOutput");
		ck_assert_msg(cJSON_IsObject(h), "no hookSpecificOutput: [%s]",
		              r->out);
		ck_assert_str_eq(str_of(h, "hookEventName"), event);
		const char *why = NULL;
		if (pr) {
			/* decision.behavior allow|deny; an ask is silence */
			ck_assert_msg(want == ANS_ALLOW || want == ANS_DENY,
			              "PermissionRequest cannot answer %s",
			              ans_name(want));
			const cJSON *d =
			    cJSON_GetObjectItemCaseSensitive(h, "decision");
			ck_assert_msg(cJSON_IsObject(d), "no decision: [%s]",
			              r->out);
			ck_assert_str_eq(str_of(d, "behavior"), ans_name(want));
			ck_assert_ptr_null(
			    cJSON_GetObjectItem(h, "permissionDecision"));
			why = str_of(d, "message");
			if (want == ANS_DENY)
				ck_assert_msg(why && *why,
				              "deny without message");
			else
				ck_assert_msg(why == NULL,
				              "allow with a message");
		} else {
			const char *d = str_of(h, "permissionDecision");
			ck_assert_msg(d != NULL, "no permissionDecision");
			ck_assert_str_eq(d, ans_name(want));
			why = str_of(h, "permissionDecisionReason");
			/* Codex only honours a deny with a non-empty reason */
			ck_assert_msg(why && *why,
			              "permissionDecisionReason empty");
			ck_assert_msg(
			    strcmp(agent, "codex") != 0 || want == ANS_DENY,
			    "codex PreToolUse only takes a deny: [%s]", r->out);
		}
		free(reason);
		reason = strdup(why ? why : "");
		/* the legacy top-level fields would be read differently */
		ck_assert_ptr_null(cJSON_GetObjectItem(o, "decision"));
		ck_assert_ptr_null(cJSON_GetObjectItem(o, "continue"));
	}
	cJSON_Delete(o);
	return reason;
}

static char *check_answer(const char *agent, const run_out *r, ans want)
{
	return check_answer_ev(agent, NULL, r, want);
}

static void assert_blocked(const char *agent, const run_out *r,
                           const char *err_has);

/* ---- recorded payloads ----------------------------------------------- */

typedef struct pcase {
	const char *agent;
	const char *file;
	const char *opt1, *opt2; /* extra arguments or NULL */
	ans want;
	const char *reason_has; /* substring of the reason, or NULL */
} pcase;

#define SETTINGS "--claude-settings"

/* clang-format off */
static const pcase pcases[] = {
    /* read-only inside the workspace: known safe, allowed */
    {"claude-code", "claude-bash-allow.json", NULL, NULL, ANS_ALLOW,
     "all policy checks passed"},
    {"claude-code", "claude-bash-hold.json", NULL, NULL, ANS_ASK,
     "exec:vcs-push"},
    {"claude-code", "claude-bash-deny.json", NULL, NULL, ANS_DENY,
     "exec:never"},
    {"claude-code", "claude-bash-background.json", NULL, NULL, ANS_ASK,
     "exec:background"},
    /* allowed by the preset but not known safe: Claude's own prompt */
    {"claude-code", "claude-write-allow.json", NULL, NULL, ANS_NONE, NULL},
    {"claude-code", "claude-edit-allow.json", NULL, NULL, ANS_NONE, NULL},
    {"claude-code", "claude-write-allow.json", "--answer-allow", NULL,
     ANS_ALLOW, NULL},
    /* Read of a credential file is exec:secrets, as `cat .env` */
    {"claude-code", "claude-read-env.json", NULL, NULL, ANS_ASK,
     "exec:secrets"},
    /* the same read under the project's settings.json deny rule */
    {"claude-code", "claude-read-env.json", SETTINGS, "claude-settings.json",
     ANS_DENY, "permission:deny"},
    {"claude-code", "claude-write-allow.json", "--preset", "strict", ANS_ASK,
     "workspace.write"},
    {"claude-code", "claude-bash-allow.json", "--preset", "readonly", ANS_ALLOW,
     NULL},
    {"claude-code", "claude-write-allow.json", "--preset", "readonly", ANS_DENY,
     "workspace.write"},

    /* Codex PreToolUse cannot ask, and Codex's own flow may run a call
       without a prompt: a hold is a deny with the reason */
    {"codex", "codex-bash-allow.json", NULL, NULL, ANS_NONE, NULL},
    {"codex", "codex-bash-hold.json", NULL, NULL, ANS_DENY, "approval"},
    {"codex", "codex-bash-hold.json", "--answer-allow", NULL, ANS_DENY,
     "approval"},
    {"codex", "codex-bash-deny.json", NULL, NULL, ANS_DENY, "exec:never"},
    {"codex", "codex-bash-argv.json", NULL, NULL, ANS_DENY, "exec:never"},
    {"codex", "codex-apply-patch.json", NULL, NULL, ANS_NONE, NULL},
    {"codex", "codex-apply-patch.json", "--preset", "strict", ANS_DENY,
     "approval"},
    {"codex", "codex-apply-patch.json", "--preset", "readonly", ANS_DENY,
     "workspace.write"},

    {"gemini", "gemini-shell-allow.json", NULL, NULL, ANS_ALLOW, NULL},
    {"gemini", "gemini-shell-hold.json", NULL, NULL, ANS_ASK, "approval"},
    {"gemini", "gemini-shell-deny.json", NULL, NULL, ANS_DENY, "exec:never"},
    {"gemini", "gemini-shell-obfuscated.json", NULL, NULL, ANS_ASK,
     "exec:unparsed"},
    {"gemini", "gemini-write-file.json", NULL, NULL, ANS_NONE, NULL},
    {"gemini", "gemini-write-file.json", "--answer-allow", NULL, ANS_ALLOW,
     NULL},
    {"gemini", "gemini-write-file.json", "--preset", "readonly", ANS_DENY,
     "workspace.write"},
    {"gemini", "gemini-mcp-tool.json", "--preset", "strict", ANS_ASK,
     "workspace.exec"},
    {"gemini", "gemini-mcp-tool.json", "--preset", "readonly", ANS_DENY,
     "denied"},

    /* every tool the agents really send */
    {"claude-code", "claude-monitor.json", NULL, NULL, ANS_ALLOW, NULL},
    {"claude-code", "claude-monitor.json", "--preset", "strict", ANS_ALLOW,
     NULL},
    /* a tool locus does not know is held under standard */
    {"claude-code", "claude-powershell.json", NULL, NULL, ANS_ASK,
     "unknown-tool"},
    {"claude-code", "claude-mcp-command.json", NULL, NULL, ANS_DENY,
     "exec:never"},
    {"claude-code", "claude-bash-unsandboxed.json", NULL, NULL, ANS_ASK,
     "dangerouslyDisableSandbox"},
    {"claude-code", "claude-bash-unsandboxed.json", "--answer-allow", NULL,
     ANS_ASK, "dangerouslyDisableSandbox"},
    {"gemini", "gemini-grep-search.json", NULL, NULL, ANS_ALLOW, NULL},
    /* /etc/passwd is outside the payload's cwd: held */
    {"gemini", "gemini-read-many-files.json", NULL, NULL, ANS_ASK,
     "outside-workspace"},
    {"gemini", "gemini-read-many-files.json", "--preset", "readonly",
     ANS_NONE, NULL},
    {"gemini", "gemini-shell-background.json", NULL, NULL, ANS_ASK,
     "exec:background"},
    {"gemini", "gemini-web-fetch.json", SETTINGS, "claude-settings-rules.json",
     ANS_DENY, "permission:deny"},
    /* plan mode: an allow rule alone, or --answer-allow, approves nothing */
    {"claude-code", "claude-plan-write.json", SETTINGS,
     "claude-settings-rules.json", ANS_NONE, NULL},
    {"claude-code", "claude-plan-write.json", "--answer-allow", NULL, ANS_NONE,
     NULL},
};
/* clang-format on */

#define NPCASES (sizeof pcases / sizeof pcases[0])

START_TEST(recorded_payload)
{
	const pcase *c = &pcases[_i];
	char *path = payload_path(c->file);
	size_t len;
	char *in = slurp(path, &len);
	char *opt2 = NULL;
	if (c->opt2 && !strcmp(c->opt1, SETTINGS))
		opt2 = payload_path(c->opt2);
	const char *av[] = {
	    "locus", "hook", c->agent, c->opt1, opt2 ? opt2 : c->opt2, NULL};
	if (!c->opt1)
		av[3] = NULL;
	run_out r = run(av, in, len);
	ck_assert_msg(r.status == 0, "%s %s: exit %d, stderr [%s]", c->agent,
	              c->file, r.status, r.err);
	char *why = check_answer(c->agent, &r, c->want);
	if (c->reason_has)
		ck_assert_msg(strstr(why, c->reason_has),
		              "%s %s: reason [%s] "
		              "lacks [%s]",
		              c->agent, c->file, why, c->reason_has);
	if (c->want != ANS_ALLOW && c->want != ANS_NONE)
		ck_assert_msg(strncmp(why, "locus ", 6) == 0,
		              "the reason should name locus: [%s]", why);
	/* a decision is not an error: nothing on stderr */
	ck_assert_msg(r.err_len == 0, "stderr: [%s]", r.err);
	free(why);
	run_free(&r);
	free(in);
	free(opt2);
	free(path);
}
END_TEST

/* PermissionRequest (Claude Code, Codex): the agent is about to show its
 * own prompt.  Only a known-safe call is approved; a hold is silence (the
 * prompt is shown); a deny is decision.behavior deny with a message. */
static const struct {
	const char *agent, *file, *opt;
	ans want;
	const char *reason_has;
} prcases[] = {
    {"claude-code", "claude-permission-read.json", NULL, ANS_ALLOW, NULL},
    {"claude-code", "claude-permission-write.json", NULL, ANS_NONE, NULL},
    {"claude-code", "claude-permission-hold.json", NULL, ANS_NONE, NULL},
    {"claude-code", "claude-permission-hold.json", "--answer-allow", ANS_NONE,
     NULL},
    {"claude-code", "claude-permission-deny.json", NULL, ANS_DENY,
     "exec:never"},
    {"codex", "codex-permission-read.json", NULL, ANS_ALLOW, NULL},
    {"codex", "codex-permission-hold.json", NULL, ANS_NONE, NULL},
    {"codex", "codex-permission-deny.json", NULL, ANS_DENY, "exec:never"},
    {"codex", "codex-permission-network.json", NULL, ANS_NONE, NULL},
    /* bash -lc 'npm test' is judged as `npm test`: not known safe alone,
       covered by an allow rule Bash(npm test:*) */
    {"codex", "codex-permission-lc.json", NULL, ANS_NONE, NULL},
};

START_TEST(permission_request)
{
	char *path = payload_path(prcases[_i].file);
	size_t len;
	char *in = slurp(path, &len);
	const char *av[] = {"locus", "hook", prcases[_i].agent, prcases[_i].opt,
	                    NULL};
	run_out r = run(av, in, len);
	ck_assert_msg(r.status == 0, "%s: exit %d [%s]", prcases[_i].file,
	              r.status, r.err);
	char *why = check_answer_ev(prcases[_i].agent, "PermissionRequest", &r,
	                            prcases[_i].want);
	if (prcases[_i].reason_has)
		ck_assert_msg(strstr(why, prcases[_i].reason_has), "[%s]", why);
	ck_assert_msg(r.err_len == 0, "stderr: [%s]", r.err);
	free(why);
	run_free(&r);
	free(in);
	free(path);
}
END_TEST

/* Rules written for Bash cover Codex's `bash -lc '...'` wrapper. */
START_TEST(codex_lc_rule_covers_script)
{
	char *path = payload_path("codex-permission-lc.json");
	char *settings = payload_path("claude-settings-rules.json");
	size_t len;
	char *in = slurp(path, &len);
	const char *av[] = {"locus", "hook", "codex", SETTINGS, settings, NULL};
	run_out r = run(av, in, len);
	ck_assert_int_eq(r.status, 0);
	free(check_answer_ev("codex", "PermissionRequest", &r, ANS_ALLOW));
	run_free(&r);
	free(in);
	free(settings);
	free(path);
	/* two path fields naming different files: refused */
	path = payload_path("claude-read-two-paths.json");
	in = slurp(path, &len);
	const char *av2[] = {"locus", "hook", "claude-code", NULL};
	r = run(av2, in, len);
	assert_blocked("claude-code", &r, "different paths");
	run_free(&r);
	free(in);
	free(path);
}
END_TEST

/* A held call names the hold in the reason: Gemini's ask, and Codex's
 * deny when locus is the only gate (--answer-allow). */
START_TEST(hold_reason_names_the_hold)
{
	const char *agents[] = {"codex", "gemini"};
	const char *files[] = {"codex-bash-hold.json",
	                       "gemini-shell-hold.json"};
	const ans want[] = {ANS_DENY, ANS_ASK};
	for (size_t i = 0; i < 2; i++) {
		char *path = payload_path(files[i]);
		size_t len;
		char *in = slurp(path, &len);
		const char *av[] = {"locus", "hook", agents[i],
		                    "--answer-allow", NULL};
		run_out r = run(av, in, len);
		ck_assert_int_eq(r.status, 0);
		char *why = check_answer(agents[i], &r, want[i]);
		ck_assert_msg(strstr(why, "held") || strstr(why, "holds"),
		              "hold not named: %s", why);
		ck_assert_msg(strstr(why, "approval"), "hold not named: %s",
		              why);
		free(why);
		run_free(&r);
		free(in);
		free(path);
	}
}
END_TEST

/* ---- never more permissive than the agent ---------- */

/* A fresh workspace: notes.txt, sub/, and outlink -> /etc. */
static char *make_workspace(void)
{
	char *dir = strdup("/tmp/locus-hook-ws-XXXXXX");
	ck_assert_ptr_nonnull(dir);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char p[512];
	snprintf(p, sizeof p, "%s/notes.txt", dir);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs("hello\n", f);
	fclose(f);
	snprintf(p, sizeof p, "%s/sub", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/outlink", dir);
	ck_assert_int_eq(symlink("/etc", p), 0);
	return dir;
}

static void remove_workspace(char *dir)
{
	char p[512];
	const char *names[] = {"notes.txt", "outlink", "sub"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		(void)remove(p);
	}
	rmdir(dir);
	free(dir);
}

/* The payload of `tool` with `input` (taken) in workspace `cwd`. */
static char *payload_of(const char *event, const char *tool, cJSON *input,
                        const char *cwd)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "session_id", "s-e2e");
	cJSON_AddStringToObject(o, "cwd", cwd);
	cJSON_AddStringToObject(o, "hook_event_name", event);
	cJSON_AddStringToObject(o, "tool_name", tool);
	cJSON_AddItemToObject(o, "tool_input", input);
	char *s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	ck_assert_ptr_nonnull(s);
	return s;
}

static char *bash_payload(const char *event, const char *line, const char *cwd)
{
	cJSON *in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "command", line);
	return payload_of(event, "Bash", in, cwd);
}

/* Does the answer approve the call (skip the agent's prompt)? */
static bool approves(const run_out *r)
{
	return strstr(r->out, "\"permissionDecision\":\"allow\"") ||
	       strstr(r->out, "\"behavior\":\"allow\"") ||
	       strstr(r->out, "\"decision\":\"allow\"");
}

/* Each line of a tests/hook-payloads/ list (comments and blanks out). */
static size_t read_lines(const char *file, char ***out)
{
	char *path = payload_path(file);
	size_t len;
	char *text = slurp(path, &len);
	free(path);
	char **v = NULL;
	size_t n = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (!line[0] || line[0] == '#')
			continue;
		v = realloc(v, (n + 1) * sizeof(*v));
		ck_assert_ptr_nonnull(v);
		v[n++] = strdup(line);
	}
	free(text);
	*out = v;
	return n;
}

/* `line` sent by `agent` on `event`: must not be approved. */
static void assert_not_approved(const char *agent, const char *event,
                                const char *line, const char *ws)
{
	char *in = bash_payload(event, line, ws);
	const char *av[] = {"locus", "hook", agent, NULL};
	run_out r = run(av, in, strlen(in));
	ck_assert_msg(r.status == 0, "%s [%s]: exit %d", agent, line, r.status);
	ck_assert_msg(!approves(&r), "%s %s [%s] approved: %s", agent, event,
	              line, r.out);
	run_free(&r);
	free(in);
}

START_TEST(never_allows_what_it_does_not_know)
{
	char *ws = make_workspace();
	char **lines;
	size_t n = read_lines("not-known-safe.txt", &lines);
	ck_assert_uint_gt(n, 40);
	for (size_t i = 0; i < n; i++) {
		assert_not_approved("claude-code", "PreToolUse", lines[i], ws);
		assert_not_approved("claude-code", "PermissionRequest",
		                    lines[i], ws);
		assert_not_approved("gemini", "BeforeTool", lines[i], ws);
		assert_not_approved("codex", "PermissionRequest", lines[i], ws);
		free(lines[i]);
	}
	free(lines);
	remove_workspace(ws);
}
END_TEST

START_TEST(allows_what_it_knows)
{
	char *ws = make_workspace();
	char **lines;
	size_t n = read_lines("known-safe.txt", &lines);
	ck_assert_uint_gt(n, 10);
	for (size_t i = 0; i < n; i++) {
		char *in = bash_payload("PreToolUse", lines[i], ws);
		const char *av[] = {"locus", "hook", "claude-code", NULL};
		run_out r = run(av, in, strlen(in));
		ck_assert_int_eq(r.status, 0);
		char *why = check_answer("claude-code", &r, ANS_ALLOW);
		free(why);
		run_free(&r);
		free(in);
		free(lines[i]);
	}
	free(lines);
	remove_workspace(ws);
}
END_TEST

/* File tools: a read inside the workspace is known safe; one outside it,
 * through a symlink, or with paths that disagree is not. */
START_TEST(file_tools_known_safe_inside_only)
{
	char *ws = make_workspace();
	char inside[600], link[600];
	snprintf(inside, sizeof inside, "%s/notes.txt", ws);
	snprintf(link, sizeof link, "%s/outlink/hostname", ws);
	static const struct {
		const char *tool, *key;
		int which; /* 0 inside, 1 /etc/passwd, 2 via the link, 3 ~ */
		ans want;
	} c[] = {
	    {"Read", "file_path", 0, ANS_ALLOW},
	    {"Read", "file_path", 1, ANS_NONE},
	    {"Read", "file_path", 2, ANS_NONE},
	    {"Read", "file_path", 3, ANS_NONE},
	    {"Grep", "path", 0, ANS_ALLOW},
	    {"Grep", "path", 1, ANS_NONE},
	    {"Glob", "path", 2, ANS_NONE},
	    {"LS", "path", 0, ANS_ALLOW},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		const char *v = c[i].which == 0   ? inside
		                : c[i].which == 1 ? "/etc/passwd"
		                : c[i].which == 2 ? link
		                                  : "~/.ssh/id_rsa";
		cJSON *in = cJSON_CreateObject();
		cJSON_AddStringToObject(in, c[i].key, v);
		if (!strcmp(c[i].tool, "Grep") || !strcmp(c[i].tool, "Glob"))
			cJSON_AddStringToObject(in, "pattern", "/etc");
		char *p = payload_of("PreToolUse", c[i].tool, in, ws);
		const char *av[] = {"locus", "hook", "claude-code", NULL};
		run_out r = run(av, p, strlen(p));
		ck_assert_msg(r.status == 0, "%s %s: %d [%s]", c[i].tool, v,
		              r.status, r.err);
		if (c[i].want == ANS_ALLOW)
			free(check_answer("claude-code", &r, ANS_ALLOW));
		else
			ck_assert_msg(!approves(&r), "%s %s approved: %s",
			              c[i].tool, v, r.out);
		run_free(&r);
		free(p);
	}
	/* Gemini's shell runs in dir_path: outside the workspace, `ls` lists
	   outside it */
	const char *dirs[] = {"sub", "/etc", "outlink"};
	const ans dwant[] = {ANS_ALLOW, ANS_NONE, ANS_NONE};
	for (size_t i = 0; i < 3; i++) {
		cJSON *gin = cJSON_CreateObject();
		cJSON_AddStringToObject(gin, "command", "ls");
		cJSON_AddStringToObject(gin, "dir_path", dirs[i]);
		char *gp =
		    payload_of("BeforeTool", "run_shell_command", gin, ws);
		const char *gv[] = {"locus", "hook", "gemini", NULL};
		run_out gr = run(gv, gp, strlen(gp));
		ck_assert_int_eq(gr.status, 0);
		if (dwant[i] == ANS_ALLOW)
			free(check_answer("gemini", &gr, ANS_ALLOW));
		else
			ck_assert_msg(!approves(&gr),
			              "dir_path %s approved: %s", dirs[i],
			              gr.out);
		run_free(&gr);
		free(gp);
	}
	/* two path fields that disagree: blocked */
	cJSON *in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "file_path", inside);
	cJSON_AddStringToObject(in, "path", "/etc/shadow");
	char *p = payload_of("PreToolUse", "Read", in, ws);
	const char *av[] = {"locus", "hook", "claude-code", NULL};
	run_out r = run(av, p, strlen(p));
	assert_blocked("claude-code", &r, "different paths");
	run_free(&r);
	free(p);
	remove_workspace(ws);
}
END_TEST

/* ---- malformed input: blocked, whatever it is ------------------------- */

static const char *const agents[] = {"claude-code", "codex", "gemini"};

/* The answer for a blocked call: exit 2, deny, message on stderr. */
static void assert_blocked(const char *agent, const run_out *r,
                           const char *err_has)
{
	ck_assert_msg(r->status == 2, "%s: exit %d, want 2 (stderr [%s])",
	              agent, r->status, r->err);
	char *why = check_answer(agent, r, ANS_DENY);
	ck_assert_msg(r->err_len > 0, "%s: blocked without a message", agent);
	if (err_has)
		ck_assert_msg(strstr(r->err, err_has),
		              "%s: stderr [%s] lacks "
		              "[%s]",
		              agent, r->err, err_has);
	free(why);
}

static const struct {
	const char *input;
	const char *err_has;
} bad_inputs[] = {
    {"", "no hook input"},
    {"nope", "not valid JSON"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}",
     "not valid JSON"},
    {"[1,2,3]", "JSON object"},
    {"\"Bash\"", "JSON object"},
    {"null", "JSON object"},
    {"{}", "tool_name"},
    {"{\"tool_name\":5,\"tool_input\":{}}", "tool_name"},
    {"{\"tool_name\":\"\",\"tool_input\":{}}", "tool_name"},
    {"{\"tool_name\":\"Bash\"}", "tool_input"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":\"ls\"}", "tool_input"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":[\"ls\"]}", "tool_input"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":5}}", "command"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":[1,2]}}", "command"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"},"
     "\"cwd\":7}",
     "cwd"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}} xx",
     "after"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}"
     "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}",
     "after"},
    /* JSON.parse in the agent keeps the last duplicate; we must not
       decide on the first */
    {"{\"tool_name\":\"Read\",\"tool_name\":\"Bash\",\"tool_input\":"
     "{\"command\":\"ls\"}}",
     "duplicate"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\","
     "\"command\":\"rm -rf /\"}}",
     "duplicate"},
    {"{\"tool_name\":\"Bash; rm\",\"tool_input\":{}}", "tool name"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls \xff\xfe\"}}",
     NULL},
};

#define NBAD (sizeof bad_inputs / sizeof bad_inputs[0])

START_TEST(malformed_blocked)
{
	for (size_t a = 0; a < 3; a++) {
		const char *in = bad_inputs[_i].input;
		const char *av[] = {"locus", "hook", agents[a], NULL};
		run_out r = run(av, in, strlen(in));
		assert_blocked(agents[a], &r, bad_inputs[_i].err_has);
		run_free(&r);
	}
}
END_TEST

START_TEST(wrong_event_blocked)
{
	const char *ev[] = {"PostToolUse", "AfterTool", "PreToolUse"};
	for (size_t a = 0; a < 3; a++) {
		char in[200];
		snprintf(in, sizeof in,
		         "{\"hook_event_name\":\"%s\",\"tool_name\":\"Bash\","
		         "\"tool_input\":{\"command\":\"ls\"}}",
		         ev[a]);
		const char *av[] = {"locus", "hook", agents[a], NULL};
		run_out r = run(av, in, strlen(in));
		assert_blocked(agents[a], &r, "hook_event_name");
		run_free(&r);
	}
}
END_TEST

START_TEST(nul_byte_blocked)
{
	static const char in[] = "{\"tool_name\":\"Bash\",\"tool_input\":"
	                         "{\"command\":\"ls\"}}\0{\"x\":1}";
	for (size_t a = 0; a < 3; a++) {
		const char *av[] = {"locus", "hook", agents[a], NULL};
		run_out r = run(av, in, sizeof in - 1);
		assert_blocked(agents[a], &r, "NUL");
		run_free(&r);
	}
}
END_TEST

START_TEST(huge_input_blocked)
{
	/* 17 MiB of a valid-looking command: over the 16 MiB cap */
	size_t n = (size_t)17 << 20;
	char *in = malloc(n);
	ck_assert_ptr_nonnull(in);
	const char *head =
	    "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"";
	size_t hl = strlen(head);
	memcpy(in, head, hl);
	memset(in + hl, 'a', n - hl - 3);
	memcpy(in + n - 3, "\"}}", 3);
	const char *av[] = {"locus", "hook", "claude-code", NULL};
	run_out r = run(av, in, n);
	assert_blocked("claude-code", &r, "16 MiB");
	run_free(&r);
	free(in);
}
END_TEST

START_TEST(big_input_decided)
{
	/* 1 MiB Write content is under the cap: decided, not blocked */
	size_t body = (size_t)1 << 20;
	const char *head =
	    "{\"hook_event_name\":\"PreToolUse\",\"cwd\":\"/w\","
	    "\"tool_name\":"
	    "\"Write\",\"tool_input\":{\"file_path\":\"/w/a.txt\","
	    "\"content\":\"";
	size_t hl = strlen(head);
	char *in = malloc(hl + body + 8);
	ck_assert_ptr_nonnull(in);
	memcpy(in, head, hl);
	memset(in + hl, 'x', body);
	memcpy(in + hl + body, "\"}}", 4);
	const char *av[] = {"locus", "hook", "claude-code", NULL};
	run_out r = run(av, in, strlen(in));
	ck_assert_int_eq(r.status, 0);
	/* a write is allowed by the preset, not known safe: no decision */
	char *why = check_answer("claude-code", &r, ANS_NONE);
	free(why);
	run_free(&r);
	free(in);
}
END_TEST

START_TEST(deep_nesting_blocked)
{
	size_t depth = 100000;
	const char *head = "{\"tool_name\":\"Bash\",\"tool_input\":{\"x\":";
	size_t hl = strlen(head);
	char *in = malloc(hl + 2 * depth + 8);
	ck_assert_ptr_nonnull(in);
	memcpy(in, head, hl);
	memset(in + hl, '[', depth);
	memset(in + hl + depth, ']', depth);
	memcpy(in + hl + 2 * depth, "}}", 3);
	for (size_t a = 0; a < 3; a++) {
		const char *av[] = {"locus", "hook", agents[a], NULL};
		run_out r = run(av, in, strlen(in));
		assert_blocked(agents[a], &r, NULL);
		run_free(&r);
	}
	free(in);
}
END_TEST

START_TEST(stdin_never_closed_times_out)
{
	const char *in = "{\"tool_name\":\"Bash\",";
	const char *av[] = {"locus", "hook", "codex", "--timeout", "1", NULL};
	run_out r = run_ex(av, in, strlen(in), true);
	/* run_ex fails a locus that never answers (60 s): the message is
	   the timeout's own */
	assert_blocked("codex", &r, "no decision within 1s");
	run_free(&r);
}
END_TEST

START_TEST(usage_errors)
{
	const char *in = "{\"tool_name\":\"Bash\",\"tool_input\":{}}";
	const char *av1[] = {"locus", "hook", NULL};
	run_out r = run(av1, in, strlen(in));
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "agent"), "stderr [%s]", r.err);
	run_free(&r);
	const char *av2[] = {"locus", "hook", "cursor", NULL};
	r = run(av2, in, strlen(in));
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "unknown agent"), "stderr [%s]", r.err);
	run_free(&r);
	const char *av3[] = {"locus", "hook", "codex", "--bogus", NULL};
	r = run(av3, in, strlen(in));
	ck_assert_int_eq(r.status, 2);
	run_free(&r);
	const char *av4[] = {"locus", "hook", "codex", "--timeout", "0", NULL};
	r = run(av4, in, strlen(in));
	ck_assert_int_eq(r.status, 2);
	run_free(&r);
	/* a bad policy blocks in the agent's protocol */
	const char *av5[] = {"locus",    "hook",   "gemini",
	                     "--preset", "nosuch", NULL};
	r = run(av5, in, strlen(in));
	assert_blocked("gemini", &r, "policy");
	run_free(&r);
	const char *av6[] = {"locus",
	                     "hook",
	                     "claude-code",
	                     "--policy",
	                     "/nonexistent/policy.json",
	                     NULL};
	r = run(av6, in, strlen(in));
	assert_blocked("claude-code", &r, "policy");
	run_free(&r);
}
END_TEST

/* ---- install and doctor ---------------------------- */

/* The code block after `<!-- snippet: NAME -->` in docs/integrations.md. */
static char *doc_snippet(const char *name)
{
	const char *root = getenv("LOCUS_SOURCE_ROOT");
	char path[512];
	snprintf(path, sizeof path, "%s/docs/integrations.md", root);
	size_t len;
	char *doc = slurp(path, &len);
	char marker[128];
	snprintf(marker, sizeof marker, "<!-- snippet: %s -->", name);
	char *m = strstr(doc, marker);
	ck_assert_ptr_nonnull(m);
	char *b = strstr(m, "```");
	ck_assert_ptr_nonnull(b);
	b = strchr(b, '\n') + 1;
	char *e = strstr(b, "\n```");
	ck_assert_ptr_nonnull(e);
	char *out = strndup(b, (size_t)(e - b) + 1);
	free(doc);
	return out;
}

static char *make_tmp(const char *tag)
{
	char *d = malloc(64);
	snprintf(d, 64, "/tmp/locus-%s-XXXXXX", tag);
	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void rm_rf(const char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* What install writes is what the docs show. */
START_TEST(install_writes_the_documented_hooks)
{
	char *proj = make_tmp("proj");
	const char *agents2[] = {"claude-code", "gemini"};
	const char *snips[] = {"claude-settings", "gemini-settings"};
	for (int i = 0; i < 2; i++) {
		const char *av[] = {"locus",     "hook", "install", agents2[i],
		                    "--project", proj,   NULL};
		run_out r = run(av, "", 0);
		ck_assert_msg(r.status == 0, "%s: %d [%s]", agents2[i],
		              r.status, r.err);
		ck_assert_ptr_nonnull(strstr(r.err, "dry run"));
		cJSON *got = cJSON_Parse(r.out);
		char *sn = doc_snippet(snips[i]);
		cJSON *want = cJSON_Parse(sn);
		ck_assert_msg(cJSON_Compare(cJSON_GetObjectItem(got, "hooks"),
		                            cJSON_GetObjectItem(want, "hooks"),
		                            true),
		              "%s: install and the docs differ:\n%s\n%s",
		              agents2[i], r.out, sn);
		cJSON_Delete(got);
		cJSON_Delete(want);
		free(sn);
		run_free(&r);
	}
	const char *av[] = {"locus",     "hook", "install", "codex",
	                    "--project", proj,   NULL};
	run_out r = run(av, "", 0);
	ck_assert_int_eq(r.status, 0);
	char *sn = doc_snippet("codex-config");
	char *hooks_part =
	    strndup(sn, (size_t)(strstr(sn, "[mcp_servers") - sn));
	/* the docs' block minus its trailing blank line */
	hooks_part[strlen(hooks_part) - 1] = '\0';
	ck_assert_msg(strstr(r.out, hooks_part), "codex: [%s] lacks [%s]",
	              r.out, hooks_part);
	free(hooks_part);
	free(sn);
	run_free(&r);
	/* a dry run writes nothing */
	char p[600];
	snprintf(p, sizeof p, "%s/.claude", proj);
	ck_assert_int_ne(access(p, F_OK), 0);
	rm_rf(proj);
	free(proj);
}
END_TEST

/* --write merges: other settings and hooks stay, ours is replaced, twice
 * is the same as once; a file that is not JSON is left alone. */
START_TEST(install_merges)
{
	char *proj = make_tmp("proj");
	char p[600];
	snprintf(p, sizeof p, "%s/.claude", proj);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/.claude/settings.json", proj);
	FILE *f = fopen(p, "w");
	fputs(
	    "{\"model\": \"opus\", \"permissions\": {\"deny\": "
	    "[\"Read(./.env)\"]},"
	    " \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": "
	    "[{\"type\": \"command\", \"command\": \"./audit.sh\"}]}, "
	    "{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", "
	    "\"command\": \"locus hook claude-code\"}]}]}}",
	    f);
	fclose(f);
	for (int k = 0; k < 2; k++) {
		const char *av[] = {"locus",       "hook",      "install",
		                    "claude-code", "--project", proj,
		                    "--write",     NULL};
		run_out r = run(av, "", 0);
		ck_assert_msg(r.status == 0, "[%s]", r.err);
		run_free(&r);
	}
	size_t len;
	char *text = slurp(p, &len);
	cJSON *o = cJSON_Parse(text);
	ck_assert_str_eq(cJSON_GetObjectItem(o, "model")->valuestring, "opus");
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(o, "permissions"));
	cJSON *pre =
	    cJSON_GetObjectItem(cJSON_GetObjectItem(o, "hooks"), "PreToolUse");
	ck_assert_int_eq(cJSON_GetArraySize(pre), 2); /* audit.sh + ours */
	ck_assert_ptr_nonnull(strstr(text, "./audit.sh"));
	ck_assert_ptr_nonnull(strstr(text, "command -v locus"));
	ck_assert_int_eq(
	    cJSON_GetArraySize(cJSON_GetObjectItem(
	        cJSON_GetObjectItem(o, "hooks"), "PermissionRequest")),
	    1);
	cJSON_Delete(o);
	free(text);
	/* not JSON: refused, untouched */
	f = fopen(p, "w");
	fputs("{ not json", f);
	fclose(f);
	const char *av[] = {"locus",     "hook", "install", "claude-code",
	                    "--project", proj,   "--write", NULL};
	run_out r = run(av, "", 0);
	ck_assert_int_eq(r.status, 2);
	run_free(&r);
	text = slurp(p, &len);
	ck_assert_str_eq(text, "{ not json");
	free(text);
	rm_rf(proj);
	free(proj);
}
END_TEST

/* The doctor tests' environment: `locus` linked into bin, bin first on
 * PATH, HOME at home; the old PATH and HOME kept for doctor_env_leave. */
typedef struct doctor_env {
	char np[4096];
	char *old_path, *old_home;
} doctor_env;

static void doctor_env_enter(doctor_env *e, const char *bin, const char *home)
{
	char p[800];
	snprintf(p, sizeof p, "%s/locus", bin);
	char *abs = realpath(getenv("LOCUS_BIN"), NULL);
	ck_assert_int_eq(symlink(abs, p), 0);
	free(abs);
	e->old_path = strdup(getenv("PATH"));
	e->old_home = strdup(getenv("HOME") ? getenv("HOME") : "/");
	snprintf(e->np, sizeof e->np, "%s:/usr/bin:/bin", bin);
	setenv("PATH", e->np, 1);
	setenv("HOME", home, 1);
}

static void doctor_env_leave(doctor_env *e)
{
	setenv("PATH", e->old_path, 1);
	setenv("HOME", e->old_home, 1);
	free(e->old_path);
	free(e->old_home);
}

/* doctor's live test sends the project folder as the payload's cwd: a
 * name with a quote and a backslash stays valid JSON (it was printed into
 * the text, and the hook denied the broken payload as bad input). */
START_TEST(doctor_quoted_project)
{
	char *top = make_tmp("quoted"), *home = make_tmp("home"),
	     *bin = make_tmp("bin");
	char proj[700];
	snprintf(proj, sizeof proj, "%s/a \"q\" \\b", top);
	ck_assert_int_eq(mkdir(proj, 0755), 0);
	doctor_env env;
	doctor_env_enter(&env, bin, home);
	const char *av[] = {"locus",     "hook", "install", "claude-code",
	                    "--project", proj,   "--write", NULL};
	run_out r = run(av, "", 0);
	ck_assert_int_eq(r.status, 0);
	run_free(&r);
	const char *dv[] = {"locus",     "hook", "doctor", "claude-code",
	                    "--project", proj,   NULL};
	r = run(dv, "", 0);
	ck_assert_msg(r.status == 0 && strstr(r.out, "rm -rf /) is denied") &&
	                  strstr(r.out, "0 problems"),
	              "doctor: %d\n%s", r.status, r.out);
	run_free(&r);
	doctor_env_leave(&env);
	rm_rf(top);
	rm_rf(home);
	rm_rf(bin);
	free(top);
	free(home);
	free(bin);
}
END_TEST

/* doctor: a good setup passes (it runs the hook commands themselves); a
 * missing hook, a missing guard and a missing binary are problems. */
START_TEST(doctor_checks_a_setup)
{
	char *proj = make_tmp("proj"), *home = make_tmp("home"),
	     *bin = make_tmp("bin");
	char p[600];
	doctor_env env;
	doctor_env_enter(&env, bin, home);
	for (int i = 0; i < 3; i++) {
		const char *av[] = {"locus",     "hook", "install", agents[i],
		                    "--project", proj,   "--write", NULL};
		run_out r = run(av, "", 0);
		ck_assert_int_eq(r.status, 0);
		run_free(&r);
	}
	const char *av[] = {"locus", "hook", "doctor", "--project", proj, NULL};
	run_out r = run(av, "", 0);
	ck_assert_msg(r.status == 0, "doctor: %d\n%s", r.status, r.out);
	ck_assert_ptr_nonnull(strstr(r.out, "rm -rf /) is denied"));
	ck_assert_ptr_nonnull(strstr(r.out, "0 problems"));
	/* install's default is --jail, and doctor says which mode runs */
	ck_assert_msg(strstr(r.out, "--jail: an allowed shell call runs "
	                            "confined") &&
	                  !strstr(r.out, "no --jail"),
	              "%s", r.out);
	run_free(&r);
	/* --no-jail is the explicit choice: still no problem, but said */
	const char *nj[] = {"locus",   "hook",      "install",
	                    "gemini",  "--project", proj,
	                    "--write", "--no-jail", NULL};
	r = run(nj, "", 0);
	ck_assert_int_eq(r.status, 0);
	run_free(&r);
	snprintf(p, sizeof p, "%s/.gemini/settings.json", proj);
	size_t gl;
	char *g = slurp(p, &gl);
	ck_assert_msg(g && strstr(g, "locus hook gemini\"") &&
	                  !strstr(g, "--jail"),
	              "%s", g);
	free(g);
	const char *avg[] = {"locus",     "hook", "doctor", "gemini",
	                     "--project", proj,   NULL};
	r = run(avg, "", 0);
	ck_assert_msg(r.status == 0 && strstr(r.out, "no --jail (installed "
	                                             "with --no-jail)"),
	              "doctor: %d\n%s", r.status, r.out);
	run_free(&r);
	/* a hook without the guard */
	snprintf(p, sizeof p, "%s/.gemini/settings.json", proj);
	FILE *f = fopen(p, "w");
	fputs(
	    "{\"hooks\": {\"BeforeTool\": [{\"matcher\": \"run_shell_command\","
	    " \"hooks\": [{\"type\": \"command\", \"command\": \"locus hook "
	    "gemini\"}]}]}}",
	    f);
	fclose(f);
	const char *av2[] = {"locus",     "hook", "doctor", "gemini",
	                     "--project", proj,   NULL};
	r = run(av2, "", 0);
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.out, "no guard"));
	ck_assert_ptr_nonnull(strstr(r.out, "does not send write_file"));
	run_free(&r);
	/* no locus on PATH: the guard blocks, doctor says so */
	setenv("PATH", "/usr/bin:/bin", 1);
	const char *av3[] = {"locus",     "hook", "doctor", "claude-code",
	                     "--project", proj,   NULL};
	r = run(av3, "", 0);
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.out, "locus is not on PATH"));
	run_free(&r);
	/* nothing installed */
	setenv("PATH", env.np, 1);
	rm_rf(proj);
	ck_assert_int_eq(mkdir(proj, 0755), 0);
	r = run(av3, "", 0);
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.out, "no locus hook is installed"));
	run_free(&r);
	doctor_env_leave(&env);
	rm_rf(proj);
	rm_rf(home);
	rm_rf(bin);
	free(proj);
	free(home);
	free(bin);
}
END_TEST

/* --claude-project reads the hierarchy Claude Code reads: the user's
 * settings, the project's, the local ones; "/x" is the project's even
 * when the session runs in a subfolder. */
static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(claude_project_hierarchy)
{
	char *proj = make_tmp("proj"), *home = make_tmp("home");
	char p[600];
	snprintf(p, sizeof p, "%s/.claude", proj);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/sub", proj);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/.claude", home);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/.claude/settings.json", proj);
	write_file(p, "{\"permissions\": {\"allow\": [\"Bash(npm test:*)\"], "
	              "\"deny\": [\"Edit(/gen/**)\"]}}");
	snprintf(p, sizeof p, "%s/.claude/settings.local.json", proj);
	write_file(p, "{\"permissions\": {\"deny\": [\"Read(./.env)\"]}}");
	snprintf(p, sizeof p, "%s/.claude/settings.json", home);
	write_file(p, "{\"permissions\": {\"deny\": [\"Bash(curl:*)\"]}}");
	char *old_home = strdup(getenv("HOME") ? getenv("HOME") : "/");
	setenv("HOME", home, 1);
	char sub[600], envf[600], gen[600];
	snprintf(sub, sizeof sub, "%s/sub", proj);
	snprintf(envf, sizeof envf, "%s/.env", proj);
	snprintf(gen, sizeof gen, "%s/gen/out.c", proj);
	const char *av[] = {"locus", "hook", "claude-code", "--claude-project",
	                    proj,    NULL};
	struct {
		char *payload;
		ans want;
	} c[4];
	c[0].payload = bash_payload("PreToolUse", "npm test", proj);
	c[0].want = ANS_ALLOW; /* the project's allow rule */
	cJSON *in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "file_path", envf);
	c[1].payload = payload_of("PreToolUse", "Read", in, sub);
	c[1].want = ANS_DENY; /* settings.local.json */
	c[2].payload =
	    bash_payload("PreToolUse", "curl -s https://x.test", proj);
	c[2].want = ANS_DENY; /* the user's settings */
	in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "file_path", gen);
	cJSON_AddStringToObject(in, "content", "");
	c[3].payload = payload_of("PreToolUse", "Write", in, sub);
	c[3].want = ANS_DENY; /* "/gen" is the project's gen/, cwd sub/ */
	for (int i = 0; i < 4; i++) {
		run_out r = run(av, c[i].payload, strlen(c[i].payload));
		ck_assert_msg(r.status == 0, "%d: %d [%s]", i, r.status, r.err);
		free(check_answer("claude-code", &r, c[i].want));
		run_free(&r);
		free(c[i].payload);
	}
	setenv("HOME", old_home, 1);
	free(old_home);
	rm_rf(proj);
	rm_rf(home);
	free(proj);
	free(home);
}
END_TEST

/* ---- audit -------------------------------------------------------------- */

START_TEST(audit_appends_records)
{
	char dir[] = "/tmp/locus-hook-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char audit[256];
	snprintf(audit, sizeof audit, "%s/audit.jsonl", dir);
	const char *files[] = {"claude-bash-allow.json",
	                       "claude-bash-deny.json",
	                       "claude-bash-hold.json"};
	for (size_t i = 0; i < 3; i++) {
		char *path = payload_path(files[i]);
		size_t len;
		char *in = slurp(path, &len);
		const char *av[] = {"locus",   "hook", "claude-code",
		                    "--audit", audit,  NULL};
		run_out r = run(av, in, len);
		ck_assert_int_eq(r.status, 0);
		run_free(&r);
		free(in);
		free(path);
	}
	size_t len;
	char *text = slurp(audit, &len);
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	ck_assert_int_eq(lines, 3);
	ck_assert_ptr_nonnull(strstr(text, "\"outcome\":\"allow\""));
	ck_assert_ptr_nonnull(strstr(text, "\"outcome\":\"deny\""));
	ck_assert_ptr_nonnull(strstr(text, "\"outcome\":\"require_human\""));
	free(text);
	const char *av[] = {"locus", "audit", "verify", audit, NULL};
	run_out r = run(av, NULL, 0);
	ck_assert_msg(r.status == 0, "audit verify: %d [%s%s]", r.status, r.out,
	              r.err);
	run_free(&r);

	/* an audit file that cannot be written: no record, no decision */
	char bad[300];
	snprintf(bad, sizeof bad, "%s/no/such/dir/audit.jsonl", dir);
	char *path = payload_path("gemini-shell-allow.json");
	char *in = slurp(path, &len);
	const char *av2[] = {"locus", "hook", "gemini", "--audit", bad, NULL};
	r = run(av2, in, len);
	assert_blocked("gemini", &r, "audit");
	run_free(&r);
	free(in);
	free(path);
	unlink(audit);
	rmdir(dir);
}
END_TEST

static Suite *hook_suite(void)
{
	Suite *s = suite_create("hook");
	TCase *t = tcase_create("payloads");
	tcase_add_loop_test(t, recorded_payload, 0, (int)NPCASES);
	tcase_add_test(t, hold_reason_names_the_hold);
	tcase_add_test(t, codex_lc_rule_covers_script);
	tcase_add_loop_test(t, permission_request, 0,
	                    (int)(sizeof prcases / sizeof prcases[0]));
	suite_add_tcase(s, t);
	t = tcase_create("known-safe");
	tcase_set_timeout(t, 300);
	tcase_add_test(t, never_allows_what_it_does_not_know);
	tcase_add_test(t, allows_what_it_knows);
	tcase_add_test(t, file_tools_known_safe_inside_only);
	suite_add_tcase(s, t);
	t = tcase_create("malformed");
	tcase_set_timeout(t, 60);
	tcase_add_loop_test(t, malformed_blocked, 0, (int)NBAD);
	tcase_add_test(t, wrong_event_blocked);
	tcase_add_test(t, nul_byte_blocked);
	tcase_add_test(t, huge_input_blocked);
	tcase_add_test(t, big_input_decided);
	tcase_add_test(t, deep_nesting_blocked);
	tcase_add_test(t, stdin_never_closed_times_out);
	tcase_add_test(t, usage_errors);
	suite_add_tcase(s, t);
	t = tcase_create("install");
	tcase_set_timeout(t, 300);
	tcase_add_test(t, install_writes_the_documented_hooks);
	tcase_add_test(t, install_merges);
	tcase_add_test(t, doctor_checks_a_setup);
	tcase_add_test(t, doctor_quoted_project);
	tcase_add_test(t, claude_project_hierarchy);
	suite_add_tcase(s, t);
	t = tcase_create("audit");
	tcase_add_test(t, audit_appends_records);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(hook_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
