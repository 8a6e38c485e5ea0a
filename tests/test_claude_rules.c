/*
 * tests/test_claude_rules.c - Claude Code settings read as Claude Code
 * reads them: `~/` is the home directory, "/x"
 * the settings' project, bad rules skipped or holding their tool, warnings,
 * and symlinks resolved before path rules match.  The rule forms that need
 * no home or file system are in corpus/policy/claude-rules.txt.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "locus/policy.h"

typedef struct warnings {
	char text[4096];
	int n;
} warnings;

static void collect(void *ctx, const char *message)
{
	warnings *w = ctx;
	w->n++;
	strncat(w->text, message, sizeof(w->text) - strlen(w->text) - 2);
	strcat(w->text, "\n");
}

/* The standard preset plus `settings`, read for project `project`. */
static locus_policy *load(const char *settings, const char *project,
                          warnings *w)
{
	locus_policy *p = NULL;
	ck_assert_int_eq(locus_policy_preset(&p, "permissive", NULL), 0);
	locus_claude_settings_options o = LOCUS_CLAUDE_SETTINGS_OPTIONS_INIT;
	o.project_root = project;
	o.home = "/home/dev";
	o.warn = collect;
	o.warn_ctx = w;
	locus_error err;
	memset(&err, 0, sizeof(err));
	ck_assert_msg(locus_policy_add_claude_settings_opts(
	                  p, settings, strlen(settings), &o, &err) == 0,
	              "%s", err.message);
	return p;
}

/* The permission verdict ("none" when no rule matched). */
static const char *perm(const locus_policy *p, const char *tool,
                        const char *args, const char *root)
{
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	in.workspace_root = root;
	locus_decision *d = NULL;
	locus_error err;
	ck_assert_int_eq(
	    locus_gate(&d, p, NULL, tool, args, strlen(args), &in, &err), 0);
	static char buf[16];
	const char *v = locus_decision_permission(d);
	snprintf(buf, sizeof(buf), "%s", v ? v : "none");
	locus_decision_free(d);
	return buf;
}

START_TEST(home_is_expanded)
{
	warnings w = {{0}, 0};
	locus_policy *p =
	    load("{\"permissions\": {\"deny\": [\"Read(~/.ssh/**)\"],"
	         " \"allow\": [\"Read(~/notes/*)\"]}}",
	         "/proj", &w);
	/* Claude sends absolute paths */
	ck_assert_str_eq(perm(p, "Read",
	                      "{\"file_path\":\"/home/dev/.ssh/id_rsa\"}",
	                      "/proj"),
	                 "deny");
	ck_assert_str_eq(
	    perm(p, "Read", "{\"file_path\":\"~/.ssh/config\"}", "/proj"),
	    "deny");
	ck_assert_str_eq(
	    perm(p, "Read", "{\"file_path\":\"/home/eve/.ssh/x\"}", "/proj"),
	    "none");
	ck_assert_str_eq(
	    perm(p, "Read", "{\"file_path\":\"/home/dev/notes/a\"}", "/proj"),
	    "allow");
	/* the shell too: cat ~/.ssh/id_rsa, with the path written out */
	ck_assert_str_eq(perm(p, "bash",
	                      "{\"command\":\"cat /home/dev/.ssh/id_rsa\"}",
	                      "/proj"),
	                 "deny");
	ck_assert_int_eq(w.n, 0);
	locus_policy_free(p);
}
END_TEST

/* "/x" is relative to the settings file's project, not the call's folder
 * (a session started in a subfolder). */
START_TEST(slash_is_the_project)
{
	warnings w = {{0}, 0};
	locus_policy *p =
	    load("{\"permissions\": {\"allow\": [\"Edit(/src/**)\"],"
	         " \"deny\": [\"Edit(/gen/**)\"]}}",
	         "/proj", &w);
	ck_assert_str_eq(
	    perm(p, "Write",
	         "{\"file_path\":\"/proj/src/a.c\",\"content\":\"\"}",
	         "/proj/sub"),
	    "allow");
	ck_assert_str_eq(
	    perm(p, "Write",
	         "{\"file_path\":\"/proj/sub/src/a.c\",\"content\":"
	         "\"\"}",
	         "/proj/sub"),
	    "none");
	/* a relative path is the call's: sub/../src/a.c from /proj/sub */
	ck_assert_str_eq(perm(p, "Write",
	                      "{\"file_path\":\"../src/a.c\",\"content\":\"\"}",
	                      "/proj/sub"),
	                 "allow");
	ck_assert_str_eq(
	    perm(p, "Write", "{\"file_path\":\"/proj/gen/x\",\"content\":\"\"}",
	         "/proj/sub"),
	    "deny");
	/* the deny is also read as the absolute /gen, with a warning */
	ck_assert_str_eq(perm(p, "Write",
	                      "{\"file_path\":\"/gen/x\",\"content\":\"\"}",
	                      "/proj/sub"),
	                 "deny");
	ck_assert_int_eq(w.n, 1);
	ck_assert_ptr_nonnull(strstr(w.text, "//path"));
	locus_policy_free(p);
}
END_TEST

START_TEST(bad_rules)
{
	warnings w = {{0}, 0};
	locus_policy *p =
	    load("{\"permissions\": {\"allow\": [\"Bash(\", \"Read\", \"*\", "
	         "\"mcp__*\", \"mcp__*__query\", \"mcp__db__*\"], "
	         "\"deny\": [\"WebFetch(domain:)\", \"Ba sh(x)\"]}}",
	         "/proj", &w);
	/* 1 bad allow skipped, 3 unanchored allows skipped, 2 bad denies */
	ck_assert_int_eq(w.n, 6);
	ck_assert_ptr_nonnull(strstr(w.text, "skipped"));
	ck_assert_ptr_nonnull(strstr(w.text, "every WebFetch call is held"));
	ck_assert_ptr_nonnull(strstr(w.text, "every * call is held"));
	ck_assert_uint_eq(locus_policy_rule_count(p, LOCUS_RULES_ALLOW), 2);
	ck_assert_uint_eq(locus_policy_rule_count(p, LOCUS_RULES_DENY), 0);
	ck_assert_uint_eq(locus_policy_rule_count(p, LOCUS_RULES_ASK), 2);
	/* the bad WebFetch deny holds fetches, not everything ... but the
	   unreadable "Ba sh(x)" holds every call */
	ck_assert_str_eq(
	    perm(p, "WebFetch", "{\"url\":\"https://x.test\"}", "/proj"),
	    "ask");
	ck_assert_str_eq(perm(p, "mcp__db__query", "{}", "/proj"), "ask");
	locus_policy_free(p);

	memset(&w, 0, sizeof(w));
	p = load("{\"permissions\": {\"deny\": [\"WebFetch(domain:)\"], "
	         "\"allow\": [\"mcp__db__*\"]}}",
	         "/proj", &w);
	ck_assert_str_eq(
	    perm(p, "WebFetch", "{\"url\":\"https://x.test\"}", "/proj"),
	    "ask");
	ck_assert_str_eq(
	    perm(p, "Read", "{\"file_path\":\"/proj/a\"}", "/proj"), "none");
	ck_assert_str_eq(perm(p, "mcp__db__query", "{}", "/proj"), "allow");
	locus_policy_free(p);
}
END_TEST

/* A symlink inside the workspace is judged where it points. */
START_TEST(symlinks_resolved)
{
	char dir[] = "/tmp/locus-rules-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char p1[300], p2[300], p3[300];
	snprintf(p1, sizeof p1, "%s/.env", dir);
	FILE *f = fopen(p1, "w");
	ck_assert_ptr_nonnull(f);
	fputs("KEY=1\n", f);
	fclose(f);
	snprintf(p2, sizeof p2, "%s/config.txt", dir);
	ck_assert_int_eq(symlink(".env", p2), 0);
	snprintf(p3, sizeof p3, "%s/src", dir);
	ck_assert_int_eq(symlink("/etc", p3), 0);
	warnings w = {{0}, 0};
	locus_policy *p =
	    load("{\"permissions\": {\"deny\": [\"Read(./.env)\"], "
	         "\"allow\": [\"Read(src/**)\"]}}",
	         dir, &w);
	char args[400];
	snprintf(args, sizeof args, "{\"file_path\":\"%s\"}", p2);
	ck_assert_str_eq(perm(p, "Read", args, dir), "deny");
	ck_assert_str_eq(
	    perm(p, "bash", "{\"command\":\"cat config.txt\"}", dir), "deny");
	/* src -> /etc: the allow on src/... does not cover /etc/hostname */
	snprintf(args, sizeof args, "{\"file_path\":\"%s/src/hostname\"}", dir);
	ck_assert_str_eq(perm(p, "Read", args, dir), "none");
	locus_policy_free(p);
	unlink(p1);
	unlink(p2);
	unlink(p3);
	rmdir(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("claude-rules");
	TCase *t = tcase_create("rules");
	tcase_add_test(t, home_is_expanded);
	tcase_add_test(t, slash_is_the_project);
	tcase_add_test(t, bad_rules);
	tcase_add_test(t, symlinks_resolved);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
