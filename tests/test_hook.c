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
 * Check an answer in the agent's protocol; returns the reason text
 * (malloc'd, "" when none).
 */
static char *check_answer(const char *agent, const run_out *r, ans want)
{
	char *reason = strdup("");
	if (!strcmp(agent, "codex") && want == ANS_NONE) {
		ck_assert_msg(r->out_len == 0,
		              "codex allow must be silent, got "
		              "[%s]",
		              r->out);
		return reason;
	}
	cJSON *o = one_object(r);
	if (!strcmp(agent, "gemini")) {
		const char *d = str_of(o, "decision");
		ck_assert_msg(d != NULL, "gemini answer without decision");
		const char *w = want == ANS_ALLOW ? "allow" : "deny";
		ck_assert_str_eq(d, w);
		const char *why = str_of(o, "reason");
		if (want == ANS_ALLOW) {
			ck_assert_msg(why == NULL,
			              "gemini allow with a reason");
			ck_assert_int_eq(cJSON_GetArraySize(o), 1);
		} else {
			ck_assert_msg(why && *why,
			              "gemini deny needs a reason");
			free(reason);
			reason = strdup(why);
		}
	} else {
		const cJSON *h =
		    cJSON_GetObjectItemCaseSensitive(o, "hookSpecificOutput");
		ck_assert_msg(cJSON_IsObject(h), "no hookSpecificOutput: [%s]",
		              r->out);
		ck_assert_str_eq(str_of(h, "hookEventName"), "PreToolUse");
		const char *d = str_of(h, "permissionDecision");
		ck_assert_msg(d != NULL, "no permissionDecision");
		ck_assert_str_eq(d, ans_name(want));
		const char *why = str_of(h, "permissionDecisionReason");
		/* Codex only honours a deny with a non-empty reason */
		ck_assert_msg(why && *why, "permissionDecisionReason empty");
		free(reason);
		reason = strdup(why);
		/* the legacy top-level fields would be read differently */
		ck_assert_ptr_null(cJSON_GetObjectItem(o, "decision"));
		ck_assert_ptr_null(cJSON_GetObjectItem(o, "continue"));
	}
	cJSON_Delete(o);
	return reason;
}

/* ---- recorded payloads ----------------------------------------------- */

typedef struct pcase {
	const char *agent;
	const char *file;
	const char *opt1, *opt2; /* extra arguments or NULL */
	ans want;
	const char *reason_has; /* substring of the reason, or NULL */
} pcase;

#define SETTINGS "--claude-settings"

static const pcase pcases[] = {
    {"claude-code", "claude-bash-allow.json", NULL, NULL, ANS_ALLOW,
     "all policy checks passed"},
    {"claude-code", "claude-bash-hold.json", NULL, NULL, ANS_ASK,
     "exec:vcs-push"},
    {"claude-code", "claude-bash-deny.json", NULL, NULL, ANS_DENY,
     "exec:never"},
    {"claude-code", "claude-bash-background.json", NULL, NULL, ANS_ASK,
     "exec:background"},
    {"claude-code", "claude-write-allow.json", NULL, NULL, ANS_ALLOW, NULL},
    {"claude-code", "claude-edit-allow.json", NULL, NULL, ANS_ALLOW, NULL},
    {"claude-code", "claude-read-env.json", NULL, NULL, ANS_ALLOW, NULL},
    /* the same read under the project's settings.json deny rule */
    {"claude-code", "claude-read-env.json", SETTINGS, "claude-settings.json",
     ANS_DENY, "permission:deny"},
    {"claude-code", "claude-write-allow.json", "--preset", "strict", ANS_ASK,
     "workspace.write"},
    {"claude-code", "claude-bash-allow.json", "--preset", "readonly", ANS_ALLOW,
     NULL},
    {"claude-code", "claude-write-allow.json", "--preset", "readonly", ANS_DENY,
     "workspace.write"},

    {"codex", "codex-bash-allow.json", NULL, NULL, ANS_NONE, NULL},
    {"codex", "codex-bash-hold.json", NULL, NULL, ANS_DENY, "approval"},
    {"codex", "codex-bash-deny.json", NULL, NULL, ANS_DENY, "exec:never"},
    {"codex", "codex-bash-argv.json", NULL, NULL, ANS_DENY, "exec:never"},
    {"codex", "codex-apply-patch.json", NULL, NULL, ANS_NONE, NULL},
    {"codex", "codex-apply-patch.json", "--preset", "strict", ANS_DENY,
     "workspace.write"},

    {"gemini", "gemini-shell-allow.json", NULL, NULL, ANS_ALLOW, NULL},
    {"gemini", "gemini-shell-hold.json", NULL, NULL, ANS_DENY, "approval"},
    {"gemini", "gemini-shell-deny.json", NULL, NULL, ANS_DENY, "exec:never"},
    {"gemini", "gemini-shell-obfuscated.json", NULL, NULL, ANS_DENY,
     "exec:unparsed"},
    {"gemini", "gemini-write-file.json", NULL, NULL, ANS_ALLOW, NULL},
    {"gemini", "gemini-write-file.json", "--preset", "readonly", ANS_DENY,
     "workspace.write"},
    {"gemini", "gemini-mcp-tool.json", "--preset", "strict", ANS_DENY,
     "workspace.exec"},
    {"gemini", "gemini-mcp-tool.json", "--preset", "readonly", ANS_DENY,
     "denied"},
};

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

/* A held call names the hold in the reason for agents that cannot ask. */
START_TEST(hold_reason_names_the_hold)
{
	const char *agents[] = {"codex", "gemini"};
	const char *files[] = {"codex-bash-hold.json",
	                       "gemini-shell-hold.json"};
	for (size_t i = 0; i < 2; i++) {
		char *path = payload_path(files[i]);
		size_t len;
		char *in = slurp(path, &len);
		const char *av[] = {"locus", "hook", agents[i], NULL};
		run_out r = run(av, in, len);
		ck_assert_int_eq(r.status, 0);
		char *why = check_answer(agents[i], &r, ANS_DENY);
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
	    "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":"
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
	char *why = check_answer("claude-code", &r, ANS_ALLOW);
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
	assert_blocked("codex", &r, "no decision within 1s");
	ck_assert_msg(r.seconds < 10, "took %.1f s", r.seconds);
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
