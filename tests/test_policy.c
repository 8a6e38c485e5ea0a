/*
 * tests/test_policy.c - the ControlPolicy, its strict loader, presets,
 * permission rules and the gate.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include "locus/policy.h"
#include "run_locus.h"

static locus_policy *load(const char *json)
{
	locus_policy *p = NULL;
	locus_error err;
	memset(&err, 0, sizeof(err));
	int rc = locus_policy_load(&p, json, strlen(json), &err);
	ck_assert_msg(rc == 0, "load failed: %s", err.message);
	return p;
}

/* The decision carries label `l`. */
static bool has_label(const locus_decision *d, const char *l)
{
	for (size_t i = 0; i < locus_decision_label_count(d); i++)
		if (strcmp(locus_decision_label(d, i), l) == 0)
			return true;
	return false;
}

/* Gate one call; returns the decision (caller frees). */
static locus_decision *gate(const locus_policy *p, const char *tool,
                            const char *args, const locus_gate_input *in)
{
	locus_decision *d = NULL;
	locus_error err;
	memset(&err, 0, sizeof(err));
	int rc = locus_gate(&d, p, NULL, tool, args, args ? strlen(args) : 0,
	                    in, &err);
	ck_assert_msg(rc == 0, "gate failed: %s", err.message);
	return d;
}

static void expect(const locus_policy *p, const char *tool, const char *args,
                   const locus_gate_input *in, locus_outcome o,
                   const char *reason)
{
	locus_decision *d = gate(p, tool, args, in);
	ck_assert_msg(locus_decision_outcome(d) == o, "%s %s: outcome %s (%s)",
	              tool, args, locus_outcome_name(locus_decision_outcome(d)),
	              locus_decision_reason(d));
	if (reason)
		ck_assert_str_eq(locus_decision_reason(d), reason);
	locus_decision_free(d);
}

static const char *perm(const locus_policy *p, const char *tool,
                        const char *args, const char *root)
{
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	in.workspace_root = root;
	locus_decision *d = gate(p, tool, args, &in);
	const char *v = locus_decision_permission(d);
	static char buf[16];
	snprintf(buf, sizeof(buf), "%s", v ? v : "none");
	/* the verdict is also a label */
	if (v) {
		char l[32];
		snprintf(l, sizeof(l), "permission:%s", v);
		ck_assert(locus_decision_has_label(d, l));
	}
	locus_decision_free(d);
	return buf;
}

/* --- the API contract ------------------------------------------ */

/* Option structs carry a version the library checks; getters take NULL
   and answer fail-closed; buffers come out through out-parameters first. */
START_TEST(api_versions_and_null_getters)
{
	locus_policy *p = NULL;
	ck_assert_int_eq(locus_policy_preset(&p, "standard", NULL), 0);
	locus_decision *d = (locus_decision *)p; /* must be reset to NULL */
	locus_error err = {0};
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	ck_assert_uint_eq(in.version, LOCUS_GATE_INPUT_VERSION);
	in.version = 0; /* a zeroed struct of the old API */
	ck_assert_int_eq(
	    locus_gate(&d, p, NULL, "read", "{\"path\":\"a\"}", 12, &in, &err),
	    LOCUS_EINVALID);
	ck_assert_ptr_null(d);
	ck_assert_ptr_nonnull(strstr(err.message, "version"));
	ck_assert_int_eq(locus_gate(NULL, p, NULL, "read", NULL, 0, NULL, NULL),
	                 LOCUS_EUSAGE);
	locus_action *a = NULL;
	ck_assert_int_eq(locus_action_classify(&a, NULL, "ls", 2, NULL), 0);
	ck_assert_int_eq(locus_decide(&d, p, a, &in, NULL), LOCUS_EINVALID);
	ck_assert_ptr_null(d);
	in.version = LOCUS_GATE_INPUT_VERSION;
	ck_assert_int_eq(locus_decide(&d, p, a, &in, NULL), 0);
	char *j = NULL;
	ck_assert_int_eq(locus_decision_json(&j, d, LOCUS_JSON_PRETTY), 0);
	ck_assert_ptr_nonnull(strchr(j, '\n'));
	locus_free(j);
	ck_assert_int_eq(locus_decision_json(&j, NULL, 0), LOCUS_EUSAGE);
	ck_assert_ptr_null(j);
	ck_assert_int_eq(locus_decision_refusal_json(&j, NULL), LOCUS_EUSAGE);
	ck_assert_int_eq(locus_policy_json(&j, NULL, 0), LOCUS_EUSAGE);
	ck_assert_int_eq(locus_policy_json(NULL, p, 0), LOCUS_EUSAGE);
	locus_decision_free(d);
	locus_action_free(a);

	/* NULL decisions read as denied and empty */
	ck_assert_int_eq(locus_decision_outcome(NULL), LOCUS_OUTCOME_DENY);
	ck_assert_str_eq(locus_decision_reason(NULL), "");
	ck_assert_str_eq(locus_decision_action(NULL), "");
	ck_assert_str_eq(locus_decision_asset(NULL), "");
	ck_assert_uint_eq(locus_decision_check_count(NULL), 0);
	ck_assert_int_eq(locus_decision_check_outcome(NULL, 0),
	                 LOCUS_OUTCOME_DENY);
	ck_assert_ptr_null(locus_decision_check_reason(NULL, 0));
	ck_assert_uint_eq(locus_decision_waived_count(NULL), 0);
	ck_assert_ptr_null(locus_decision_waived_reason(NULL, 0));
	ck_assert_uint_eq(locus_decision_label_count(NULL), 0);
	ck_assert_ptr_null(locus_decision_label(NULL, 0));
	ck_assert(!locus_decision_has_label(NULL, "bash"));
	ck_assert_ptr_null(locus_decision_permission(NULL));
	ck_assert_ptr_null(locus_decision_permission_rule(NULL));
	ck_assert_str_eq(locus_decision_policy_version(NULL), "");

	/* rule lists are an enum; an unknown one counts nothing */
	ck_assert_uint_eq(locus_policy_rule_count(NULL, LOCUS_RULES_DENY), 0);
	ck_assert_uint_eq(locus_policy_rule_count(p, (locus_rule_list)3), 0);
	ck_assert_uint_eq(locus_policy_rule_count(p, (locus_rule_list)-1), 0);

	/* Claude settings options and audit options are checked too */
	locus_claude_settings_options co = LOCUS_CLAUDE_SETTINGS_OPTIONS_INIT;
	co.version = 2;
	ck_assert_int_eq(
	    locus_policy_add_claude_settings_opts(p, "{}", 2, &co, NULL),
	    LOCUS_EINVALID);
	co.version = LOCUS_CLAUDE_SETTINGS_OPTIONS_VERSION;
	ck_assert_int_eq(
	    locus_policy_add_claude_settings_opts(p, "{}", 2, &co, NULL), 0);
	locus_audit_options ao = LOCUS_AUDIT_OPTIONS_INIT;
	ao.version = 0;
	locus_audit *au = (locus_audit *)p;
	ck_assert_int_eq(
	    locus_audit_open_opts(&au, "/nonexistent/a", &ao, NULL),
	    LOCUS_EINVALID);
	ck_assert_ptr_null(au);
	size_t records = 7;
	ck_assert_int_eq(locus_audit_verify(&records, NULL, NULL, NULL),
	                 LOCUS_EUSAGE);

	/* a reason is never cut short: 60 denied labels (it was a 512-byte
	   buffer) */
	char doc[8192] = "{\"deny_for\":[";
	const char *tags[60];
	char names[60][32];
	for (int i = 0; i < 60; i++) {
		snprintf(names[i], sizeof names[i], "label-%02d-abcdefghij", i);
		tags[i] = names[i];
		snprintf(doc + strlen(doc), sizeof doc - strlen(doc),
		         "%s\"%s\"", i ? "," : "", names[i]);
	}
	strcat(doc, "]}");
	locus_policy *many = NULL;
	ck_assert_int_eq(locus_policy_load(&many, doc, strlen(doc), NULL), 0);
	locus_gate_input tin = LOCUS_GATE_INPUT_INIT;
	tin.tags = tags;
	tin.ntags = 60;
	ck_assert_int_eq(locus_gate(&d, many, NULL, "read", "{\"path\":\"a\"}",
	                            12, &tin, NULL),
	                 0);
	ck_assert_int_eq(locus_decision_outcome(d), LOCUS_OUTCOME_DENY);
	const char *why = locus_decision_check_reason(d, 0);
	ck_assert_uint_gt(strlen(why), 60 * 20);
	ck_assert_ptr_nonnull(strstr(why, "'label-59-abcdefghij'] are denied"));
	locus_decision_free(d);
	locus_policy_free(many);

	/* every operand of a long command line meets the Read rules (the
	   first 256 did) */
	locus_policy *rd = NULL;
	static const char rdoc[] =
	    "{\"permissions\":{\"deny\":[\"Read(secret.txt)\"]}}";
	ck_assert_int_eq(locus_policy_load(&rd, rdoc, sizeof rdoc - 1, NULL),
	                 0);
	char cmd[4096] = "{\"command\":\"cat";
	for (int i = 0; i < 300; i++)
		snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " f%d",
		         i);
	strcat(cmd, " secret.txt\"}");
	locus_gate_input rin = LOCUS_GATE_INPUT_INIT;
	rin.workspace_root = "/ws";
	ck_assert_int_eq(
	    locus_gate(&d, rd, NULL, "bash", cmd, strlen(cmd), &rin, NULL), 0);
	ck_assert_str_eq(locus_decision_permission(d), "deny");
	ck_assert_int_eq(locus_decision_outcome(d), LOCUS_OUTCOME_DENY);
	locus_decision_free(d);
	locus_policy_free(rd);

	locus_severity sev = LOCUS_SEVERITY_LOW;
	ck_assert_int_eq(locus_severity_parse(&sev, "high"), 0);
	ck_assert_int_eq(sev, LOCUS_SEVERITY_HIGH);
	ck_assert_int_eq(locus_severity_parse(&sev, "High"), LOCUS_EINVALID);
	ck_assert_int_eq(sev, LOCUS_SEVERITY_HIGH);
	locus_policy_free(p);
}
END_TEST

/* --- defaults and each check ------------------------------------------------ */

/* locus_action_new: an Action from its fields (the Python binding's
   Action(name, kind=...)), decided like a derived one. */
START_TEST(action_from_fields)
{
	locus_action *a = (locus_action *)&a;
	locus_error err = {0};
	ck_assert_int_eq(locus_action_new(&a, "", LOCUS_KIND_READ, NULL, &err),
	                 LOCUS_EUSAGE);
	ck_assert_ptr_null(a);
	ck_assert_int_eq(locus_action_new(&a, "x", (locus_kind)7, NULL, &err),
	                 LOCUS_EINVALID);
	ck_assert_int_eq(
	    locus_action_new(NULL, "x", LOCUS_KIND_READ, NULL, NULL),
	    LOCUS_EUSAGE);
	ck_assert_int_eq(
	    locus_action_new(&a, "deploy", LOCUS_KIND_EXEC, "prod-db", &err),
	    0);
	ck_assert_str_eq(locus_action_tool(a), "deploy");
	ck_assert_str_eq(locus_action_asset(a), "prod-db");
	ck_assert_str_eq(locus_action_environment(a), "unknown");
	ck_assert_int_eq(locus_action_blast_radius(a), 1);
	ck_assert_uint_eq(locus_action_tag_count(a), 0);
	ck_assert_ptr_null(locus_action_shell(a));
	ck_assert_int_eq(locus_action_add_tag(a, "irreversible"), 0);
	ck_assert_int_eq(locus_action_set_environment(a, "production"), 0);
	locus_policy *p = NULL;
	const char *doc = "{\"require_verification_score\":0,"
	                  "\"deny_for\":[\"irreversible\"]}";
	ck_assert_int_eq(locus_policy_load(&p, doc, strlen(doc), &err), 0);
	locus_decision *d = NULL;
	ck_assert_int_eq(locus_decide(&d, p, a, NULL, &err), 0);
	ck_assert_int_eq(locus_decision_outcome(d), LOCUS_OUTCOME_DENY);
	ck_assert(locus_decision_has_label(d, "production"));
	ck_assert(locus_decision_has_label(d, "workspace.exec"));
	ck_assert(!locus_decision_has_label(d, "deploy"));
	locus_decision_free(d);
	locus_action_free(a);
	ck_assert_int_eq(
	    locus_action_new(&a, "look", LOCUS_KIND_READ, NULL, &err), 0);
	ck_assert_int_eq(locus_decide(&d, p, a, NULL, &err), 0);
	ck_assert_int_eq(locus_decision_outcome(d), LOCUS_OUTCOME_ALLOW);
	locus_decision_free(d);
	locus_action_free(a);
	locus_policy_free(p);
}
END_TEST

START_TEST(library_defaults)
{
	locus_policy *p = NULL;
	ck_assert_int_eq(locus_policy_new(&p), 0);
	/* faithful to the original: no verification -> every call is held */
	expect(p, "read", "{\"path\":\"a.txt\"}", NULL,
	       LOCUS_OUTCOME_REQUIRE_HUMAN, "no verification provided");
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	in.has_verification = true;
	in.survives = true;
	in.confidence = 0.9;
	expect(p, "read", "{\"path\":\"a.txt\"}", &in, LOCUS_OUTCOME_ALLOW,
	       "all policy checks passed");
	in.environment = "production";
	expect(p, "read", "{\"path\":\"a.txt\"}", &in,
	       LOCUS_OUTCOME_REQUIRE_HUMAN,
	       "labels ['production'] require human approval");
	ck_assert_str_eq(locus_policy_version(p), "");
	locus_policy_free(p);
	locus_policy_free(NULL);
	locus_decision_free(NULL);
	locus_audit_close(NULL);
}
END_TEST

/* allow_sandboxed_for: a hold waived only for a call that runs confined,
 * through a refinement label of the holding one; such an allow always
 * wants the sandbox (a front end that cannot confine never sees it, since
 * it does not tag the call sandboxed); a never-confined label is never
 * waived, not even through a refinement of it. */
START_TEST(confined_allow)
{
	locus_policy *p =
	    load("{\"require_verification_score\": 0,"
	         " \"require_sandbox_strict\": false,"
	         " \"require_human_for\": [\"outside-workspace\","
	         "   \"exec:network\", \"exec:destructive\"],"
	         " \"allow_sandboxed_for\": [\"outside-workspace:tmp\","
	         "   \"exec:network:x\"]}");
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	in.workspace_root = "/home/user/project";
	const char *tmp = "{\"command\":\"cp src/a.c /tmp/a.c.orig\"}";
	const char *etc = "{\"command\":\"cp src/a.c /etc/a.c\"}";
	const char *rm = "{\"command\":\"rm /tmp/a.c.orig\"}";
	locus_decision *d = gate(p, "bash", tmp, &in);
	ck_assert_int_eq(locus_decision_outcome(d),
	                 LOCUS_OUTCOME_REQUIRE_HUMAN);
	ck_assert(locus_decision_has_label(d, "outside-workspace:tmp"));
	ck_assert(!locus_policy_wants_sandbox(p, d));
	locus_decision_free(d);
	const char *sb[] = {"sandboxed", "exec:network:x"};
	in.tags = sb;
	in.ntags = 1;
	d = gate(p, "bash", tmp, &in);
	ck_assert_int_eq(locus_decision_outcome(d), LOCUS_OUTCOME_ALLOW);
	/* require_sandbox_for is empty: the allow itself wants the jail */
	ck_assert(locus_policy_wants_sandbox(p, d));
	locus_decision_free(d);
	expect(p, "bash", etc, &in, LOCUS_OUTCOME_REQUIRE_HUMAN,
	       "labels ['outside-workspace'] require human approval");
	expect(p, "bash", rm, &in, LOCUS_OUTCOME_REQUIRE_HUMAN,
	       "labels ['exec:destructive', 'outside-workspace'] require "
	       "human approval");
	/* a refinement of a never-confined label waives nothing */
	in.ntags = 2;
	expect(p, "bash", "{\"command\":\"curl -s https://example.com\"}", &in,
	       LOCUS_OUTCOME_REQUIRE_HUMAN,
	       "labels ['exec:network'] require human approval");
	locus_policy_free(p);
	/* the loader refuses a never-confined label */
	locus_policy *bad = NULL;
	locus_error err;
	memset(&err, 0, sizeof(err));
	const char *j = "{\"allow_sandboxed_for\": [\"exec:network\"]}";
	ck_assert_int_ne(locus_policy_load(&bad, j, strlen(j), &err), 0);
	ck_assert_ptr_null(bad);
	/* standard: /tmp scratch only; strict waives nothing */
	ck_assert_int_eq(locus_policy_preset(&p, "standard", NULL), 0);
	in.ntags = 1;
	expect(p, "bash", tmp, &in, LOCUS_OUTCOME_ALLOW, NULL);
	expect(p, "bash", "{\"command\":\"frobnicate --all\"}", &in,
	       LOCUS_OUTCOME_REQUIRE_HUMAN, NULL);
	locus_policy_free(p);
	ck_assert_int_eq(locus_policy_preset(&p, "strict", NULL), 0);
	expect(p, "bash", tmp, &in, LOCUS_OUTCOME_REQUIRE_HUMAN, NULL);
	locus_policy_free(p);
}
END_TEST

START_TEST(each_check_reason)
{
	locus_policy *p = load("{\"require_verification_score\": 0,"
	                       " \"deny_for\": [\"workspace.write\"],"
	                       " \"require_sandbox_for\": [\"workspace.read\"],"
	                       " \"min_severity\": \"high\","
	                       " \"max_blast_radius\": 3,"
	                       " \"require_human_over_usd\": 1.5,"
	                       " \"spend_limit_usd\": 10,"
	                       " \"require_human_for\": [\"staging\"],"
	                       " \"version\": \"v7\"}");
	const char *rd = "{\"path\":\"a\"}";
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	expect(p, "write", "{\"path\":\"a\",\"content\":\"x\"}", &in,
	       LOCUS_OUTCOME_DENY,
	       "labels ['workspace.write'] are denied by policy");
	expect(p, "read", rd, &in, LOCUS_OUTCOME_DENY,
	       "labels ['workspace.read'] require a sandbox and the action is "
	       "not sandboxed");
	const char *sb[] = {"sandboxed"};
	in.tags = sb;
	in.ntags = 1;
	expect(p, "read", rd, &in, LOCUS_OUTCOME_ALLOW,
	       "all policy checks passed");
	in.has_finding = true;
	in.finding_severity = LOCUS_SEVERITY_MEDIUM;
	expect(p, "read", rd, &in, LOCUS_OUTCOME_DENY,
	       "finding severity medium is below the minimum high");
	in.finding_severity = LOCUS_SEVERITY_CRITICAL;
	expect(p, "read", rd, &in, LOCUS_OUTCOME_ALLOW, NULL);
	in.has_blast_radius = true;
	in.blast_radius = 4;
	expect(p, "read", rd, &in, LOCUS_OUTCOME_REQUIRE_HUMAN,
	       "blast radius 4 exceeds the maximum 3");
	in.blast_radius = 3;
	in.has_cost = true;
	in.cost_usd = 2;
	expect(p, "read", rd, &in, LOCUS_OUTCOME_REQUIRE_HUMAN,
	       "cost 2.00 USD exceeds the approval threshold 1.50 USD");
	in.cost_usd = 1;
	in.spent_usd = 9.5;
	expect(p, "read", rd, &in, LOCUS_OUTCOME_DENY,
	       "spend 9.50 USD plus cost 1.00 USD exceeds the limit 10.00 USD");
	in.spent_usd = 9;
	expect(p, "read", rd, &in, LOCUS_OUTCOME_ALLOW, NULL);
	in.environment = "staging";
	locus_decision *d = gate(p, "read", rd, &in);
	ck_assert_int_eq(locus_decision_outcome(d),
	                 LOCUS_OUTCOME_REQUIRE_HUMAN);
	ck_assert_str_eq(locus_decision_reason(d),
	                 "labels ['staging'] require human approval");
	ck_assert_str_eq(locus_decision_policy_version(d), "v7");
	ck_assert_uint_eq(locus_decision_check_count(d), 1);
	locus_decision_free(d);
	/* negative inputs are refused */
	in.cost_usd = -1;
	locus_error err;
	ck_assert_int_eq(
	    locus_gate(&d, p, NULL, "read", rd, strlen(rd), &in, &err),
	    LOCUS_EINVALID);
	ck_assert_ptr_null(d);
	locus_policy_free(p);
}
END_TEST

START_TEST(verification_rules)
{
	locus_policy *p = load("{\"require_human_for\": []}");
	const char *rd = "{\"path\":\"a\"}";
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	in.has_verification = true;
	in.survives = false;
	in.confidence = 0.99;
	expect(p, "read", rd, &in, LOCUS_OUTCOME_DENY,
	       "verification says the action does not survive");
	in.survives = true;
	in.confidence = 0.5;
	expect(p, "read", rd, &in, LOCUS_OUTCOME_REQUIRE_HUMAN,
	       "verification confidence 0.50 is below the bar 0.80");
	in.confidence = 0.8;
	expect(p, "read", rd, &in, LOCUS_OUTCOME_ALLOW, NULL);
	locus_policy_free(p);
}
END_TEST

/* The original's rogue demo: every fired check, strongest wins, "; ". */
START_TEST(strongest_wins_and_order)
{
	locus_policy *p = load("{\"deny_for\": [\"irreversible\"],"
	                       " \"require_verification_score\": 0}");
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	const char *tags[] = {"irreversible"};
	in.tags = tags;
	in.ntags = 1;
	in.environment = "production";
	in.has_blast_radius = true;
	in.blast_radius = 999;
	locus_decision *d = gate(p, "wipe_database", "{}", &in);
	ck_assert_int_eq(locus_decision_outcome(d), LOCUS_OUTCOME_DENY);
	ck_assert_str_eq(
	    locus_decision_reason(d),
	    "labels ['irreversible'] are denied by policy; blast "
	    "radius 999 exceeds the maximum 1; labels ['production'] "
	    "require human approval");
	ck_assert_uint_eq(locus_decision_check_count(d), 3);
	ck_assert_int_eq(locus_decision_check_outcome(d, 1),
	                 LOCUS_OUTCOME_REQUIRE_HUMAN);
	/* unknown tools are exec, fail closed */
	ck_assert(locus_decision_has_label(d, "workspace.exec"));
	ck_assert(locus_decision_has_label(d, "wipe_database"));
	char *r = NULL;
	ck_assert_int_eq(locus_decision_refusal_json(&r, d), 0);
	ck_assert_str_eq(r,
	                 "{\"status\":\"denied\",\"outcome\":\"deny\","
	                 "\"action\":\"wipe_database\",\"asset\":\"\","
	                 "\"reason\":\"labels ['irreversible'] are denied by "
	                 "policy; blast radius 999 exceeds the maximum 1; "
	                 "labels ['production'] require human approval\"}");
	locus_free(r);
	locus_decision_free(d);
	d = gate(p, "read", "{\"path\":\"x\"}", NULL);
	ck_assert_int_eq(locus_decision_refusal_json(&r, d), LOCUS_EUSAGE);
	locus_decision_free(d);
	locus_policy_free(p);
}
END_TEST

/* --- the loader ------------------------------------------------------------ */

static const struct bad_doc {
	const char *json;
	size_t len;       /* 0: strlen */
	const char *want; /* in the message */
	int line;         /* expected error line, 0: any */
	                  /* clang-format off */
} bad_docs[] = {
	{"", 0, "empty document", 1},
                          /* clang-format on */
    {"{\"deny_for\": [\"a\"", 0, "malformed JSON", 1},
    {"{\"deny_for\": [\"a\"]", 0, "malformed JSON", 1},
    {"[1, 2]", 0, "a policy is a JSON object", 1},
    {"{\"deny_for\": \"exec:never\"}", 0, "field \"deny_for\"", 1},
    {"{\"deny_for\": [1]}", 0, "field \"deny_for\": expected a label", 1},
    {"{\"deny_for\": [\"\"]}", 0, "never empty", 1},
    {"{\"require_human_for\": {}}", 0, "field \"require_human_for\"", 1},
    {"{\"min_severity\": \"severe\"}", 0, "field \"min_severity\"", 1},
    {"{\"min_severity\": 2}", 0, "field \"min_severity\"", 1},
    {"{\"require_verification_score\": 1.5}", 0, "out of range", 1},
    {"{\"require_verification_score\": -0.1}", 0, "out of range", 1},
    {"{\"require_verification_score\": \"0.8\"}", 0, "expected a number", 1},
    {"{\"max_blast_radius\": 1e999}", 0, "field \"max_blast_radius\"", 1},
    {"{\"max_blast_radius\": 1.5}", 0, "field \"max_blast_radius\"", 1},
    {"{\"max_blast_radius\": -1}", 0, "field \"max_blast_radius\"", 1},
    {"{\"max_blast_radius\": 99999999999999999999}", 0, "out of range", 1},
    {"{\"max_blast_radius\": NaN}", 0, "malformed JSON", 1},
    {"{\"max_blast_radius\": Infinity}", 0, "malformed JSON", 1},
    {"{\"max_blast_radius\": 01}", 0, "malformed number", 1},
    {"{\"spend_limit_usd\": -5}", 0, "field \"spend_limit_usd\"", 1},
    {"{\"spend_limit_usd\": \"5\"}", 0, "field \"spend_limit_usd\"", 1},
    {"{\"require_human_over_usd\": true}", 0, "require_human_over_usd", 1},
    {"{\"version\": 3}", 0, "field \"version\"", 1},
    {"{\"versoin\": \"x\"}", 0, "field \"versoin\": unknown field", 1},
    {"{\n  \"deny_for\": [],\n  \"deny_for\": [\"x\"]\n}", 0,
     "field \"deny_for\": duplicate key", 3},
    {"{\"permissions\": {\"allow\": [\"Bash\"], \"allow\": []}}", 0,
     "duplicate key", 1},
    {"{\"permissions\": {\"allow\": [\"Bash(\"]}}", 0, "permissions.allow[0]",
     1},
    {"{\"permissions\": {\"allow\": [\"\"]}}", 0, "empty rule", 1},
    {"{\"permissions\": {\"deny\": [\"Bash(git:* x)\"]}}", 0, ":*", 1},
    {"{\"permissions\": {\"deny\": [\"Bash()\"]}}", 0, "empty specifier", 1},
    {"{\"permissions\": {\"deny\": [\"mcp__x(y)\"]}}", 0, "no specifier", 1},
    {"{\"permissions\": {\"deny\": [\"Ba sh\"]}}", 0, "tool name", 1},
    {"{\"permissions\": {\"deny\": [7]}}", 0, "expected a rule string", 1},
    {"{\"permissions\": {\"allow\": [], \"defaultMode\": \"x\"}}", 0,
     "permissions.defaultMode", 1},
    {"{\"permissions\": []}", 0, "field \"permissions\"", 1},
    {"{\"version\": \"a\\u0000b\"}", 0, "\\u0000", 1},
    {"{\"version\": \"\xff\"}", 0, "invalid UTF-8", 1},
    {"{\"version\": \"\xc0\xaf\"}", 0, "invalid UTF-8", 1},
    {"{\"version\": \"\xed\xa0\x80\"}", 0, "invalid UTF-8", 1},
    {"{\"version\": \"a\"}\0{}", 18, "NUL byte", 1},
    {"{\"version\": \"a\"} {}", 0, "malformed JSON", 1},
    {"{\"version\": \"a\",}", 0, "malformed JSON", 1},
    {"{\"version\": \"\\ud800\"}", 0, "malformed JSON", 1},
    {"\n\n   {\"deny_for\": [\"a\", 2]}", 0, "line 3, column 23", 3},
};

START_TEST(loader_rejects)
{
	const struct bad_doc *b = &bad_docs[_i];
	size_t len = b->len ? b->len : strlen(b->json);
	locus_policy *p = (locus_policy *)1;
	locus_error err;
	memset(&err, 0, sizeof(err));
	int rc = locus_policy_load(&p, b->json, len, &err);
	ck_assert_msg(rc == LOCUS_EINVALID, "case %d: rc %d", _i, rc);
	ck_assert_ptr_null(p);
	ck_assert_msg(strstr(err.message, b->want), "case %d: '%s' lacks '%s'",
	              _i, err.message, b->want);
	ck_assert_msg(strncmp(err.message, "policy: line ", 13) == 0 ||
	                  strncmp(err.message, "policy: ", 8) == 0,
	              "case %d: %s", _i, err.message);
	if (b->line)
		ck_assert_msg(err.line == b->line,
		              "case %d: line %d want %d (%s)", _i, err.line,
		              b->line, err.message);
}
END_TEST

START_TEST(loader_hostile)
{
	/* deep nesting: past cJSON's limit is a parse error, no crash */
	size_t n = 200000;
	char *deep = malloc(2 * n + 32);
	size_t o = 0;
	o += (size_t)sprintf(deep, "{\"deny_for\": ");
	for (size_t i = 0; i < n; i++)
		deep[o++] = '[';
	for (size_t i = 0; i < n; i++)
		deep[o++] = ']';
	deep[o++] = '}';
	locus_policy *p = NULL;
	locus_error err;
	ck_assert_int_eq(locus_policy_load(&p, deep, o, &err), LOCUS_EINVALID);
	ck_assert_ptr_null(p);
	/* nesting under the limit: still a wrong type */
	o = (size_t)sprintf(deep, "{\"deny_for\": [[[[[[[[[[\"x\"]]]]]]]]]]}");
	ck_assert_int_eq(locus_policy_load(&p, deep, o, &err), LOCUS_EINVALID);
	ck_assert_ptr_nonnull(strstr(err.message, "deny_for"));
	free(deep);
	/* too big */
	size_t big = (size_t)5 << 20;
	char *huge = malloc(big);
	memset(huge, ' ', big);
	huge[0] = '{';
	huge[big - 1] = '}';
	ck_assert_int_eq(locus_policy_load(&p, huge, big, &err), LOCUS_ETOOBIG);
	free(huge);
	/* every truncation of a valid document fails cleanly */
	const char *good = "{\"deny_for\": [\"exec:never\"], \"permissions\": "
	                   "{\"allow\": [\"Bash(git diff:*)\"]}, \"version\": "
	                   "\"x\", \"spend_limit_usd\": 2.5}";
	size_t gl = strlen(good);
	for (size_t i = 0; i < gl; i++) {
		int rc = locus_policy_load(&p, good, i, &err);
		ck_assert_msg(rc == LOCUS_EINVALID, "prefix %zu loaded", i);
		ck_assert_ptr_null(p);
	}
	ck_assert_int_eq(locus_policy_load(&p, good, gl, &err), 0);
	locus_policy_free(p);
	/* every single-byte corruption: structure, keys, NUL and bad UTF-8
	   are refused; only a byte inside a value string may still load
	   (a label or rule text that changed), or the same byte */
	char *mut = strdup(good);
	char *where = calloc(gl, 1); /* 0 outside strings, 'k' key, 'v' value */
	for (size_t i = 0, open = 0; i < gl; i++) {
		if (good[i] != '"')
			continue;
		if (!open) {
			open = i + 1;
			continue;
		}
		size_t k = i + 1;
		while (good[k] == ' ')
			k++;
		memset(where + open, good[k] == ':' ? 'k' : 'v', i - open);
		open = 0;
	}
	static const char junk[] = {'\0',   '"', '{', ']',
	                            '\xff', ',', ':', '\\'};
	for (size_t i = 0; i < gl; i++) {
		for (size_t j = 0; j < sizeof(junk); j++) {
			memcpy(mut, good, gl);
			mut[i] = junk[j];
			int rc = locus_policy_load(&p, mut, gl, &err);
			bool same = good[i] == junk[j];
			bool may = where[i] == 'v' && junk[j] != '"' &&
			           junk[j] != '\0' && junk[j] != '\xff';
			ck_assert_msg(same  ? rc == 0
			              : may ? rc == 0 || rc == LOCUS_EINVALID
			                    : rc == LOCUS_EINVALID,
			              "byte %zu -> %#x: rc %d", i,
			              (unsigned char)junk[j], rc);
			ck_assert(rc != 0 || p != NULL);
			locus_policy_free(p);
			p = NULL;
		}
	}
	free(where);
	free(mut);
}
END_TEST

/* --- presets ------------------------------------------------------------ */

/* outside-workspace follows the gate input's root */
START_TEST(gate_root_outside_workspace)
{
	locus_policy *p = NULL;
	ck_assert_int_eq(locus_policy_preset(&p, "standard", NULL), 0);
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	in.workspace_root = "/srv/app";
	expect(p, "read", "{\"path\":\"/srv/app/a\"}", &in, LOCUS_OUTCOME_ALLOW,
	       NULL);
	expect(p, "bash", "{\"command\":\"cat ../x\"}", &in,
	       LOCUS_OUTCOME_REQUIRE_HUMAN,
	       "labels ['outside-workspace'] require human approval");
	in.workspace_root = "/";
	expect(p, "read", "{\"path\":\"/srv/app/a\"}", &in, LOCUS_OUTCOME_ALLOW,
	       NULL);
	/* a relative root is refused, not guessed */
	in.workspace_root = "srv/app";
	locus_decision *d = NULL;
	locus_error err;
	ck_assert_int_eq(
	    locus_gate(&d, p, NULL, "read", "{\"path\":\"a\"}", 12, &in, &err),
	    LOCUS_EINVALID);
	ck_assert_ptr_null(d);
	locus_policy_free(p);
}
END_TEST

START_TEST(presets)
{
	const char *const *names = locus_policy_preset_names();
	size_t count = 0;
	for (; names[count]; count++) {
		locus_policy *p = NULL;
		ck_assert_int_eq(locus_policy_preset(&p, names[count], NULL),
		                 0);
		char *j = NULL;
		ck_assert_int_eq(locus_policy_json(&j, p, 0), 0);
		ck_assert_ptr_nonnull(
		    strstr(j, "\"require_verification_score\":0"));
		ck_assert_ptr_null(strstr(j, "production"));
		/* the printed policy loads back to the same policy */
		locus_policy *q = load(j);
		char *j2 = NULL;
		ck_assert_int_eq(locus_policy_json(&j2, q, 0), 0);
		ck_assert_str_eq(j, j2);
		locus_free(j);
		locus_free(j2);
		locus_policy_free(q);
		locus_policy_free(p);
	}
	ck_assert_uint_eq(count, 4);
	locus_policy *p = NULL;
	locus_error err;
	ck_assert_int_eq(locus_policy_preset(&p, "lenient", &err),
	                 LOCUS_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(err.message, "lenient"));

	/* standard: exec:never denied, pushes held, reads allowed */
	locus_policy_preset(&p, "standard", NULL);
	expect(p, "read", "{\"path\":\"a\"}", NULL, LOCUS_OUTCOME_ALLOW, NULL);
	expect(p, "write", "{\"path\":\"a\",\"content\":\"\"}", NULL,
	       LOCUS_OUTCOME_ALLOW, NULL);
	/* a tool locus does not know is held (fail closed) */
	expect(p, "mcp__github__create_issue", "{}", NULL,
	       LOCUS_OUTCOME_REQUIRE_HUMAN,
	       "labels ['unknown-tool'] require human approval");
	locus_policy_free(p);
	/* strict: writes, exec and network held */
	locus_policy_preset(&p, "strict", NULL);
	expect(p, "write", "{\"path\":\"a\",\"content\":\"\"}", NULL,
	       LOCUS_OUTCOME_REQUIRE_HUMAN,
	       "labels ['workspace.write'] require human approval");
	expect(p, "WebFetch", "{\"url\":\"https://x.com\"}", NULL,
	       LOCUS_OUTCOME_REQUIRE_HUMAN,
	       "labels ['network', 'unknown-tool'] require human approval");
	expect(p, "read", "{\"path\":\"a\"}", NULL, LOCUS_OUTCOME_ALLOW, NULL);
	locus_policy_free(p);
	/* readonly: reads only */
	locus_policy_preset(&p, "readonly", NULL);
	expect(p, "edit", "{\"path\":\"a\",\"old\":\"x\",\"new\":\"y\"}", NULL,
	       LOCUS_OUTCOME_DENY,
	       "labels ['workspace.write'] are denied by policy");
	expect(p, "grep", "{\"pattern\":\"x\"}", NULL, LOCUS_OUTCOME_ALLOW,
	       NULL);
	expect(p, "some_tool", "{}", NULL, LOCUS_OUTCOME_DENY,
	       "labels ['workspace.exec'] are denied by policy");
	locus_policy_free(p);
}
END_TEST

/* Shell-dependent: these need the parser. */
START_TEST(presets_shell)
{
	locus_policy *p = NULL;
	locus_policy_preset(&p, "standard", NULL);
	const char *rm = "{\"command\":\"rm -rf /\"}";
	locus_decision *d = gate(p, "bash", rm, NULL);
	ck_assert_int_eq(locus_decision_outcome(d), LOCUS_OUTCOME_DENY);
	ck_assert_ptr_nonnull(strstr(locus_decision_reason(d), "'exec:never'"));
	locus_decision_free(d);
	expect(
	    p, "bash", "{\"command\":\"git push origin main\"}", NULL,
	    LOCUS_OUTCOME_REQUIRE_HUMAN,
	    "labels ['exec:network', 'exec:vcs-push'] require human approval");
	expect(p, "bash", "{\"command\":\"ls -la\"}", NULL, LOCUS_OUTCOME_ALLOW,
	       "all policy checks passed");
	expect(p, "bash", "{\"command\":\"make build\"}", NULL,
	       LOCUS_OUTCOME_ALLOW, NULL);
	locus_policy_free(p);
	locus_policy_preset(&p, "permissive", NULL);
	expect(p, "bash", "{\"command\":\"git push origin main\"}", NULL,
	       LOCUS_OUTCOME_ALLOW, NULL);
	/* The floor (rm of the root) is denied by every preset;
	   rm -rf build inside the workspace is held by standard only */
	expect(p, "bash", "{\"command\":\"sudo sh -c 'rm -rf /'\"}", NULL,
	       LOCUS_OUTCOME_DENY, NULL);
	expect(p, "bash", "{\"command\":\"sudo sh -c 'rm -rf build'\"}", NULL,
	       LOCUS_OUTCOME_ALLOW, NULL);
	locus_policy_free(p);
	locus_policy_preset(&p, "readonly", NULL);
	expect(p, "bash", "{\"command\":\"cat a.txt | wc -l\"}", NULL,
	       LOCUS_OUTCOME_ALLOW, NULL);
	expect(p, "bash", "{\"command\":\"cat a > b\"}", NULL,
	       LOCUS_OUTCOME_DENY, NULL);
	locus_policy_free(p);
}
END_TEST

/* --- permission rules ------------------------------------------------------ */

static locus_policy *rules(const char *allow, const char *ask, const char *deny)
{
	char buf[2048];
	snprintf(buf, sizeof(buf),
	         "{\"require_verification_score\": 0, \"permissions\": "
	         "{\"allow\": [%s], \"ask\": [%s], \"deny\": [%s]}}",
	         allow, ask, deny);
	return load(buf);
}

#define BASH(c) "{\"command\":\"" c "\"}"

START_TEST(shell_rules)
{
	locus_policy *p = rules("\"Bash(git diff:*)\", \"Bash(npm test)\", "
	                        "\"Bash(npm run *)\", \"Bash(ls:*)\"",
	                        "\"Bash(git push:*)\"", "\"Bash(rm:*)\"");
	ck_assert_str_eq(perm(p, "bash", BASH("git diff"), NULL), "allow");
	ck_assert_str_eq(perm(p, "bash", BASH("git diff --stat"), NULL),
	                 "allow");
	ck_assert_str_eq(perm(p, "bash", BASH("git diffx"), NULL), "none");
	ck_assert_str_eq(perm(p, "bash", BASH("npm test"), NULL), "allow");
	ck_assert_str_eq(perm(p, "bash", BASH("npm test --watch"), NULL),
	                 "none");
	ck_assert_str_eq(perm(p, "bash", BASH("npm run build"), NULL), "allow");
	ck_assert_str_eq(perm(p, "Bash", BASH("npm run"), NULL), "allow");
	/* every command must be covered: wrappers and nested ones too */
	ck_assert_str_eq(perm(p, "bash", BASH("sudo git diff"), NULL), "none");
	ck_assert_str_eq(perm(p, "bash", BASH("git diff && ls"), NULL),
	                 "allow");
	ck_assert_str_eq(perm(p, "bash", BASH("git diff && make"), NULL),
	                 "none");
	ck_assert_str_eq(perm(p, "bash", BASH("git diff $(make)"), NULL),
	                 "none");
	ck_assert_str_eq(perm(p, "bash", BASH("ls | sh -c 'make'"), NULL),
	                 "none");
	/* no writing redirect, and the line must parse */
	ck_assert_str_eq(perm(p, "bash", BASH("git diff > out.txt"), NULL),
	                 "none");
	ck_assert_str_eq(perm(p, "bash", BASH("git diff 2>/dev/null"), NULL),
	                 "allow");
	ck_assert_str_eq(perm(p, "bash", BASH("git diff \\\"unclosed"), NULL),
	                 "none");
	/* assignments are part of the command for allow */
	ck_assert_str_eq(
	    perm(p, "bash", BASH("GIT_EXTERNAL_DIFF=x git diff"), NULL),
	    "none");
	/* a word only known at run time is covered by `*` only */
	ck_assert_str_eq(perm(p, "bash", BASH("git diff $REF"), NULL), "allow");
	ck_assert_str_eq(perm(p, "bash", BASH("git $SUB"), NULL), "ask");
	/* ($SUB may be `push`: the ask rule matches, fail closed) */
	/* ask/deny: any command, wrappers looked through */
	ck_assert_str_eq(perm(p, "bash", BASH("git push origin"), NULL), "ask");
	ck_assert_str_eq(perm(p, "bash", BASH("sudo rm -rf x"), NULL), "deny");
	ck_assert_str_eq(perm(p, "bash", BASH("echo $(rm x)"), NULL), "deny");
	ck_assert_str_eq(perm(p, "bash", BASH("ls; rm x"), NULL), "deny");
	ck_assert_str_eq(perm(p, "bash", BASH("find . -exec rm {} +"), NULL),
	                 "deny");
	/* deny beats ask beats allow, whatever the order */
	ck_assert_str_eq(perm(p, "bash", BASH("git push; rm x"), NULL), "deny");
	ck_assert_str_eq(perm(p, "bash", BASH("git diff; git push"), NULL),
	                 "ask");
	/* quoted data is not a command */
	ck_assert_str_eq(perm(p, "bash", BASH("ls 'rm -rf /'"), NULL), "allow");
	locus_policy_free(p);

	/* a dynamic word may be anything for deny */
	p = rules("", "", "\"Bash(rm -rf:*)\"");
	ck_assert_str_eq(perm(p, "bash", BASH("rm $F /"), NULL), "deny");
	ck_assert_str_eq(perm(p, "bash", BASH("rm -r /"), NULL), "none");
	locus_policy_free(p);
}
END_TEST

START_TEST(path_and_other_rules)
{
	locus_policy *p = rules("\"Read(src/**)\", \"Edit(docs/*.md)\", "
	                        "\"WebFetch(domain:x.com)\", \"mcp__github\"",
	                        "\"Edit(*.lock)\"",
	                        "\"Edit(/etc/**)\", \"Read(.env)\", "
	                        "\"mcp__github__delete_repo\"");
	const char *root = "/w";
	ck_assert_str_eq(perm(p, "read", "{\"path\":\"src/a/b.c\"}", root),
	                 "allow");
	ck_assert_str_eq(
	    perm(p, "Read", "{\"file_path\":\"/w/src/x.c\"}", root), "allow");
	ck_assert_str_eq(perm(p, "read", "{\"path\":\"srcx/a.c\"}", root),
	                 "none");
	ck_assert_str_eq(perm(p, "read", "{\"path\":\"src/../../x\"}", root),
	                 "none");
	ck_assert_str_eq(
	    perm(p, "grep", "{\"pattern\":\"x\",\"path\":\"src\"}", root),
	    "allow");
	ck_assert_str_eq(perm(p, "read", "{\"path\":\"a/.env\"}", root),
	                 "deny");
	ck_assert_str_eq(perm(p, "edit",
	                      "{\"path\":\"docs/a.md\",\"old\":\"a\","
	                      "\"new\":\"b\"}",
	                      root),
	                 "allow");
	ck_assert_str_eq(perm(p, "edit",
	                      "{\"path\":\"docs/x/a.md\",\"old\":\"a\","
	                      "\"new\":\"b\"}",
	                      root),
	                 "none");
	ck_assert_str_eq(perm(p, "write",
	                      "{\"path\":\"/etc/passwd\","
	                      "\"content\":\"\"}",
	                      root),
	                 "deny");
	ck_assert_str_eq(perm(p, "write",
	                      "{\"path\":\"../../etc/passwd\","
	                      "\"content\":\"\"}",
	                      root),
	                 "deny");
	ck_assert_str_eq(perm(p, "write",
	                      "{\"path\":\"/etc//./x/../shadow\","
	                      "\"content\":\"\"}",
	                      root),
	                 "deny");
	ck_assert_str_eq(perm(p, "write",
	                      "{\"path\":\"sub/Cargo.lock\","
	                      "\"content\":\"\"}",
	                      root),
	                 "ask");
	ck_assert_str_eq(
	    perm(p, "apply_patch",
	         "{\"patch\":\"*** Begin Patch\\n*** Update File: "
	         "docs/a.md\\n*** Add File: /etc/cron.d/x\\n*** End "
	         "Patch\\n\"}",
	         root),
	    "deny");
	ck_assert_str_eq(perm(p, "apply_patch",
	                      "{\"patch\":\"*** Begin Patch\\n*** Update File: "
	                      "docs/a.md\\n*** End Patch\\n\"}",
	                      root),
	                 "allow");
	/* domain:x.com is that host (Claude Code): not its subdomains */
	ck_assert_str_eq(
	    perm(p, "webfetch", "{\"url\":\"https://api.x.com/a\"}", root),
	    "none");
	ck_assert_str_eq(
	    perm(p, "WebFetch", "{\"url\":\"https://x.com.evil.io/\"}", root),
	    "none");
	ck_assert_str_eq(
	    perm(p, "WebFetch", "{\"url\":\"https://x.com@evil.io/\"}", root),
	    "none");
	ck_assert_str_eq(perm(p, "mcp__github__create_issue", "{}", root),
	                 "allow");
	ck_assert_str_eq(perm(p, "mcp__github__delete_repo", "{}", root),
	                 "deny");
	ck_assert_str_eq(perm(p, "mcp__githubx__create_issue", "{}", root),
	                 "none");
	locus_policy_free(p);

	p = rules("\"*\"", "", "\"mcp__db__*\"");
	ck_assert_str_eq(perm(p, "read", "{\"path\":\"a\"}", NULL), "allow");
	ck_assert_str_eq(perm(p, "anything", "{}", NULL), "allow");
	ck_assert_str_eq(perm(p, "mcp__db__drop", "{}", NULL), "deny");
	ck_assert_str_eq(perm(p, "mcp__dbx__drop", "{}", NULL), "allow");
	locus_policy_free(p);
}
END_TEST

START_TEST(allow_waives_require_human_only)
{
	/* library defaults hold every call without verification ... */
	locus_policy *p = load("{\"deny_for\": [\"exec:never\"], "
	                       "\"permissions\": {\"allow\": [\"Read\", "
	                       "\"Bash(rm:*)\"]}}");
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	in.environment = "production";
	in.has_blast_radius = true;
	in.blast_radius = 50;
	locus_decision *d = gate(p, "read", "{\"path\":\"a\"}", &in);
	/* ... an allow rule is approval given in advance */
	ck_assert_int_eq(locus_decision_outcome(d), LOCUS_OUTCOME_ALLOW);
	ck_assert_str_eq(locus_decision_reason(d), "all policy checks passed");
	ck_assert_uint_eq(locus_decision_waived_count(d), 3);
	ck_assert_str_eq(locus_decision_waived_reason(d, 0),
	                 "no verification provided");
	ck_assert_str_eq(locus_decision_permission_rule(d), "Read");
	locus_decision_free(d);
	/* but never a deny check */
	d = gate(p, "bash", BASH("rm -rf /"), NULL);
	ck_assert_int_eq(locus_decision_outcome(d), LOCUS_OUTCOME_DENY);
	ck_assert_str_eq(locus_decision_permission(d), "allow");
	locus_decision_free(d);
	locus_policy_free(p);
	/* ask and deny are enforced without listing permission:* labels */
	p = rules("", "\"Read\"", "\"Write\"");
	expect(p, "read", "{\"path\":\"a\"}", NULL, LOCUS_OUTCOME_REQUIRE_HUMAN,
	       "labels ['permission:ask'] require human approval");
	expect(p, "write", "{\"path\":\"a\",\"content\":\"\"}", NULL,
	       LOCUS_OUTCOME_DENY,
	       "labels ['permission:deny'] are denied by policy");
	locus_policy_free(p);
}
END_TEST

START_TEST(claude_settings)
{
	locus_policy *p = NULL;
	locus_policy_preset(&p, "standard", NULL);
	const char *s = "{\"model\": \"x\", \"hooks\": {}, \"permissions\": "
	                "{\"allow\": [\"Read(src/**)\", \"Bash(git diff:*)\"], "
	                "\"deny\": [\"Read(./.env)\"], \"defaultMode\": "
	                "\"acceptEdits\"}}";
	locus_error err;
	ck_assert_int_eq(
	    locus_policy_add_claude_settings(p, s, strlen(s), &err), 0);
	ck_assert_uint_eq(locus_policy_rule_count(p, LOCUS_RULES_ALLOW), 2);
	ck_assert_uint_eq(locus_policy_rule_count(p, LOCUS_RULES_DENY), 1);
	ck_assert_str_eq(perm(p, "Read", "{\"file_path\":\"/w/.env\"}", "/w"),
	                 "deny");
	/* a bad allow rule is skipped (as Claude Code does), the rest kept */
	const char *bad =
	    "{\"permissions\": {\"allow\": [\"Edit\", \"Bash(\"]}}";
	ck_assert_int_eq(
	    locus_policy_add_claude_settings(p, bad, strlen(bad), &err), 0);
	ck_assert_uint_eq(locus_policy_rule_count(p, LOCUS_RULES_ALLOW), 3);
	/* the file itself still has to be right */
	const char *notarr = "{\"permissions\": {\"allow\": \"Bash\"}}";
	ck_assert_int_eq(
	    locus_policy_add_claude_settings(p, notarr, strlen(notarr), &err),
	    LOCUS_EINVALID);
	const char *dup = "{\"permissions\": {}, \"permissions\": {}}";
	ck_assert_int_eq(
	    locus_policy_add_claude_settings(p, dup, strlen(dup), &err),
	    LOCUS_EINVALID);
	locus_policy_free(p);
}
END_TEST

START_TEST(gate_hostile_arguments)
{
	locus_policy *p = NULL;
	locus_policy_preset(&p, "standard", NULL);
	locus_decision *d = NULL;
	locus_error err;
	/* a duplicate key would let the tool run what the policy never saw */
	const char *dup = "{\"command\":\"ls\",\"command\":\"rm -rf /\"}";
	ck_assert_int_eq(
	    locus_gate(&d, p, NULL, "bash", dup, strlen(dup), NULL, &err),
	    LOCUS_EINVALID);
	ck_assert_ptr_null(d);
	const char *arr = "[1]";
	ck_assert_int_eq(locus_gate(&d, p, NULL, "bash", arr, 3, NULL, &err),
	                 LOCUS_EINVALID);
	ck_assert_int_eq(
	    locus_gate(&d, p, NULL, "bash", "{\"command\":", 11, NULL, &err),
	    LOCUS_EINVALID);
	ck_assert_int_eq(locus_gate(&d, p, NULL, "", "{}", 2, NULL, &err),
	                 LOCUS_EINVALID);
	ck_assert_int_eq(locus_gate(&d, p, NULL,
	                            "b\xff"
	                            "ash",
	                            "{}", 2, NULL, &err),
	                 LOCUS_EINVALID);
	ck_assert_int_eq(
	    locus_gate(&d, p, NULL, "bash;rm", "{}", 2, NULL, &err),
	    LOCUS_EINVALID);
	/* \u0000 is JSON: judged unparsed, never allowed */
	const char *nul = "{\"command\":\"ls\\u0000; rm -rf /\"}";
	ck_assert_int_eq(
	    locus_gate(&d, p, NULL, "bash", nul, strlen(nul), NULL, &err), 0);
	ck_assert_int_ne(locus_decision_outcome(d), LOCUS_OUTCOME_ALLOW);
	locus_decision_free(d);
	d = NULL;
	/* a 1 MiB command: decided, never allowed blindly */
	size_t n = (size_t)1 << 20;
	char *big = malloc(n + 64);
	size_t o = (size_t)sprintf(big, "{\"command\":\"");
	for (size_t i = 0; i < n; i++)
		big[o++] = (i % 3) ? 'a' : ' ';
	o += (size_t)sprintf(big + o, "\"}");
	int rc = locus_gate(&d, p, NULL, "bash", big, o, NULL, &err);
	ck_assert_int_eq(rc, 0);
	locus_decision_free(d);
	free(big);
	locus_policy_free(p);
}
END_TEST

/* --- the CLI --------------------------------------------------------------- */

START_TEST(cli_gate_and_show)
{
	const char *bin = getenv("LOCUS_BIN");
	ck_assert_ptr_nonnull(bin);
	char cmd[1024], out[8192];
	snprintf(
	    cmd, sizeof(cmd),
	    "printf '%%s\\n' '{\"tool\":\"read\",\"arguments\":{\"path\":"
	    "\"a\"}}' 'not json' '{\"tool\":\"write\",\"arguments\":{\"path\":"
	    "\"a\",\"content\":\"\"}}' | %s gate --preset readonly --exit-code",
	    bin);
	int st = run_sh(cmd, out, sizeof(out));
	ck_assert_int_eq(st, 2); /* a bad line */
	char *l2 = strchr(out, '\n');
	ck_assert_ptr_nonnull(l2);
	ck_assert_ptr_nonnull(strstr(out, "\"outcome\":\"allow\""));
	ck_assert(strncmp(l2 + 1, "{\"error\":", 9) == 0);
	ck_assert_ptr_nonnull(strstr(l2, "\"line\":2"));
	ck_assert_ptr_nonnull(strstr(l2, "\"outcome\":\"deny\""));
	snprintf(
	    cmd, sizeof(cmd),
	    "printf '%%s\\n' '{\"tool\":\"read\",\"arguments\":{\"path\":"
	    "\"a\"}}' '{\"tool\":\"write\",\"arguments\":{\"path\":"
	    "\"a\",\"content\":\"\"}}' | %s gate --preset readonly --exit-code",
	    bin);
	ck_assert_int_eq(run_sh(cmd, out, sizeof(out)), 4);
	snprintf(
	    cmd, sizeof(cmd),
	    "printf '%%s\\n' '{\"tool\":\"write\",\"arguments\":{\"path\":"
	    "\"a\",\"content\":\"\"}}' | %s gate --preset strict --exit-code",
	    bin);
	ck_assert_int_eq(run_sh(cmd, out, sizeof(out)), 3);
	snprintf(cmd, sizeof(cmd),
	         "printf '%%s\\n' '{\"tool\":\"write\",\"arguments\":{\"path\":"
	         "\"a\",\"content\":\"\"}}' | %s gate --preset strict",
	         bin);
	ck_assert_int_eq(run_sh(cmd, out, sizeof(out)), 0);
	snprintf(cmd, sizeof(cmd), "%s gate --preset nope </dev/null 2>&1",
	         bin);
	ck_assert_int_eq(run_sh(cmd, out, sizeof(out)), 2);
	ck_assert_ptr_nonnull(strstr(out, "nope"));
	snprintf(cmd, sizeof(cmd), "%s policy show --preset strict --compact",
	         bin);
	ck_assert_int_eq(run_sh(cmd, out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"version\":\"strict@3\""));
	snprintf(cmd, sizeof(cmd),
	         "f=$(mktemp) && printf '{\"deny_for\": 1}' >$f && "
	         "%s policy show --policy $f 2>&1; st=$?; rm -f $f; exit $st",
	         bin);
	ck_assert_int_eq(run_sh(cmd, out, sizeof(out)), 2);
	ck_assert_ptr_nonnull(strstr(out, "deny_for"));
}
END_TEST

/* A write to a file locus was started with (the policy file,
   a settings file) is agent-config: denied by a policy that denies it,
   however the path is spelled; other files are not. */
START_TEST(protected_files)
{
	char dir[] = "/tmp/locus-protect-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char pol[256], set[256];
	snprintf(pol, sizeof pol, "%s/policy.json", dir);
	snprintf(set, sizeof set, "%s/settings.json", dir);
	FILE *f = fopen(pol, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\"version\": \"t\", \"require_verification_score\": 0, "
	      "\"deny_for\": [\"agent-config\"]}",
	      f);
	fclose(f);
	f = fopen(set, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{}", f);
	fclose(f);
	locus_policy *p = NULL;
	locus_error err;
	ck_assert_int_eq(locus_policy_load_file(&p, pol, &err), 0);
	ck_assert_int_eq(locus_policy_protect_path(p, set), 0);
	ck_assert_int_eq(locus_policy_protect_path(NULL, set), LOCUS_EUSAGE);
	/* l -> a/b: `l/../../policy.json` is the root's policy.json to the
	   kernel (the link first, then `..`), the root's parent's when
	   folded as text */
	char sub[300], lnk[300];
	snprintf(sub, sizeof sub, "%s/a", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof sub, "%s/a/b", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(lnk, sizeof lnk, "%s/l", dir);
	ck_assert_int_eq(symlink("a/b", lnk), 0);
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	in.workspace_root = dir;
	static const struct {
		const char *tool, *args;
		bool denied;
		/* clang-format off */
	} calls[] = {
	    {"write", "{\"path\":\"policy.json\",\"content\":\"{}\"}", true},
	    {"write", "{\"path\":\"l/../../policy.json\",\"content\":\"{}\"}",
	     true},
	    {"edit",
	     "{\"path\":\"l/../../settings.json\",\"old_string\":\"a\","
	     "\"new_string\":\"b\"}",
	     true},
	    /* clang-format on */
	    {"edit",
	     "{\"path\":\"./x/../settings.json\",\"old_string\":\"a\","
	     "\"new_string\":\"b\"}",
	     true},
	    {"Write", "{\"file_path\":\"policy.json\",\"content\":\"\"}", true},
	    {"bash", "{\"command\":\"echo {} > policy.json\"}", true},
	    {"apply_patch",
	     "{\"patch\":\"*** Begin Patch\\n*** Add File: settings.json"
	     "\\n+{}\\n*** End Patch\"}",
	     true},
	    {"write", "{\"path\":\"other.json\",\"content\":\"{}\"}", false},
	    {"read", "{\"path\":\"policy.json\"}", false},
	};
	for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
		locus_decision *d = gate(p, calls[i].tool, calls[i].args, &in);
		ck_assert_msg(has_label(d, "agent-config") == calls[i].denied,
		              "%s %s", calls[i].tool, calls[i].args);
		ck_assert_int_eq(locus_decision_outcome(d) ==
		                     LOCUS_OUTCOME_DENY,
		                 calls[i].denied);
		locus_decision_free(d);
	}
	locus_policy_free(p);
	unlink(pol);
	unlink(set);
	unlink(lnk);
	rmdir(sub);
	snprintf(sub, sizeof sub, "%s/a", dir);
	rmdir(sub);
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy");
	TCase *t = tcase_create("policy");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, library_defaults);
	tcase_add_test(t, action_from_fields);
	tcase_add_test(t, api_versions_and_null_getters);
	tcase_add_test(t, gate_root_outside_workspace);
	tcase_add_test(t, each_check_reason);
	tcase_add_test(t, confined_allow);
	tcase_add_test(t, verification_rules);
	tcase_add_test(t, strongest_wins_and_order);
	tcase_add_loop_test(t, loader_rejects, 0,
	                    (int)(sizeof(bad_docs) / sizeof(bad_docs[0])));
	tcase_add_test(t, loader_hostile);
	tcase_add_test(t, presets);
	tcase_add_test(t, path_and_other_rules);
	tcase_add_test(t, allow_waives_require_human_only);
	tcase_add_test(t, claude_settings);
	tcase_add_test(t, gate_hostile_arguments);
	tcase_add_test(t, cli_gate_and_show);
	suite_add_tcase(s, t);
	/* these need the shell parser */
	TCase *sh = tcase_create("shell");
	tcase_set_timeout(sh, 120);
	tcase_add_test(sh, presets_shell);
	tcase_add_test(sh, shell_rules);
	tcase_add_test(sh, protected_files);
	suite_add_tcase(s, sh);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_ENV);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
