/*
 * tests/test_hardening.c - the harness's hardening (issue 13): no privilege
 * leak from the bwrap sandbox, job state out of the workspace's reach,
 * writes that lose nothing, bounded processes.  Workspaces are mkdtemp
 * folders; the stress cases are bounded so the suite stays short.
 */
#include "harness_fx.h"

#include <sys/resource.h>

/* Run a shell tool call and return its text (caller frees). */
static char *bash(fx *f, const char *cmd)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "command", cmd);
	char *a = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	bool e;
	char *out = call(f, "bash", a, &e);
	free(a);
	return out;
}

/* Does the workspace hold anything named .locus-* (job state, temp)? */
static bool ws_has_locus_files(void)
{
	char cmd[800];
	snprintf(cmd, sizeof cmd,
	         "test -n \"$(find '%s' -name '.locus*' -print -quit)\"",
	         g_root);
	return system(cmd) == 0;
}

/* ---------------- bwrap: never host uid 0 ---------------- */

START_TEST(bwrap_setuid_attempt_fails)
{
	fx f;
	if (!fx_open(&f, BK_BWRAP, NULL, NULL, NULL))
		return;
	/* the sandbox tries to leave a setuid binary for host users */
	char *o = bash(&f, "cp /bin/true suid && chmod 4755 suid; "
	                   "grep ' /workspace ' /proc/self/mountinfo; id -u");
	ck_assert_msg(strstr(o, "nosuid") && strstr(o, "nodev"),
	              "workspace not mounted nosuid,nodev: %s", o);
	if (geteuid() == 0)
		ck_assert_msg(!strstr(o, "\n0\n"), "sandbox runs as 0: %s", o);
	free(o);
	char p[800];
	snprintf(p, sizeof p, "%s/suid", g_root);
	struct stat st;
	ck_assert_int_eq(stat(p, &st), 0);
	/* whatever its bits, it is not a root-owned setuid file */
	ck_assert_msg(st.st_uid != 0 || !(st.st_mode & S_ISUID),
	              "setuid-root file left: uid %u mode %o",
	              (unsigned)st.st_uid, (unsigned)st.st_mode);
	if (geteuid() == 0)
		ck_assert_uint_eq(st.st_uid, 65534);
	/* setuid does not work inside either: a root-owned setuid copy
	 * made on the host runs without privilege in the sandbox */
	if (geteuid() == 0) {
		sh("cp /usr/bin/id '%s/rootid' && chown 0:0 '%s/rootid' && "
		   "chmod 4755 '%s/rootid'",
		   g_root, g_root, g_root);
		o = bash(&f, "./rootid -u");
		ck_assert_msg(strstr(o, "exit 0\n65534\n"), "%s", o);
		free(o);
	}
	fx_close(&f);
}
END_TEST

START_TEST(bwrap_uid_choice)
{
	if (!bwrap_works() || geteuid() != 0) {
		fprintf(stderr, "SKIPPED (not passed): needs root and bwrap\n");
		return;
	}
	mk_tmp();
	locus_session *s = NULL;
	locus_error err = {0};
	/* a root-owned workspace: the default user (nobody) cannot write it */
	sh("chmod 755 '%s'", g_root);
	ck_assert_int_eq(locus_session_bwrap_new(&s, g_root, &err),
	                 LOCUS_EDENIED);
	ck_assert_msg(strstr(err.message, "chown -R 65534:65534"), "%s",
	              err.message);
	/* uid 0 is never accepted */
	locus_bwrap_options o = LOCUS_BWRAP_OPTIONS_INIT;
	o.uid = 0;
	ck_assert_int_eq(locus_session_bwrap_new_ext(&s, g_root, &o, &err),
	                 LOCUS_EDENIED);
	/* a workspace of another user: the sandbox runs as its owner */
	sh("chown 4242:4243 '%s'", g_root);
	ck_assert_int_eq(locus_session_bwrap_new(&s, g_root, &err), 0);
	int code;
	char *out;
	size_t len;
	ck_assert_int_eq(
	    s->exec(s, "id -u; id -g; touch f", 10, &code, &out, &len, &err), 0);
	ck_assert_str_eq(out, "4242\n4243\n");
	free(out);
	locus_session_free(s);
	char p[800];
	snprintf(p, sizeof p, "%s/f", g_root);
	struct stat st;
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_uid, 4242);
	rm_tmp();
}
END_TEST

/* ---------------- job state out of reach ---------------- */

START_TEST(planted_job_files)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	/* a repository ships forged job state where the old layout kept it */
	sh("mkdir -p '%s/.locus-harness' && cd '%s/.locus-harness' && "
	   "for i in 1 2 3 4 5 6 7 8 9; do echo 0 > j$i.rc; "
	   "echo FORGED > j$i.out; echo 1 > j$i.pid; done",
	   g_root, g_root);
	if (geteuid() == 0 && _i == BK_BWRAP)
		sh("chown -R 65534:65534 '%s'", g_root);
	char *o = bash(&f, "echo real; exit 3");
	ck_assert_msg(!strncmp(o, "exit 3\nreal\n", 12), "%s", o);
	free(o);
	call_ok(&f, "bash", "{\"command\":\"echo bg; exit 4\",\"background\":"
	                    "true}", "sh");
	/* sandboxed code plants answers for the next commands it can guess */
	free(bash(&f, "mkdir -p /tmp/x; for i in $(seq 1 300); do "
	              "echo 0 > /run/locus/$i.rc 2>/dev/null; "
	              "echo FORGED > /run/locus/$i.out 2>/dev/null; done; true"));
	o = bash(&f, "echo real2; exit 5");
	ck_assert_msg(!strncmp(o, "exit 5\nreal2\n", 13), "%s", o);
	free(o);
	bool e;
	for (int i = 0; i < 100; i++) {
		o = call(&f, "bash_output", "{\"handle\":\"sh1\",\"since\":0}",
		         &e);
		if (strstr(o, "exited"))
			break;
		free(o);
		o = NULL;
		usleep(50000);
	}
	ck_assert_msg(o && strstr(o, "sh1: exited 4\nbg\n"), "%s", o);
	ck_assert_msg(!strstr(o, "FORGED"), "%s", o);
	free(o);
	/* nothing of the commands stays in the workspace */
	sh("rm -rf '%s/.locus-harness'", g_root);
	ck_assert_msg(!ws_has_locus_files(), "job files in the workspace");
	fx_close(&f);
}
END_TEST

/* A finished job leaves nothing behind: no script, output or FIFO. */
START_TEST(nothing_left_behind)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	put(&f, "a.txt", "x\n");
	call_ok(&f, "read", "{\"path\":\"a.txt\"}", NULL);
	call_ok(&f, "write", "{\"path\":\"a.txt\",\"content\":\"y\\n\"}",
	        "Updated");
	free(bash(&f, "echo SECRET_TOKEN"));
	call_ok(&f, "bash",
	        "{\"command\":\"echo SECRET2\",\"background\":true}", "sh1");
	bool e;
	char *o = NULL;
	for (int i = 0; i < 100; i++) {
		free(o);
		o = call(&f, "bash_output", "{\"handle\":\"sh1\"}", &e);
		if (strstr(o, "exited"))
			break;
		usleep(50000);
	}
	free(o);
	/* the job folder holds nothing of sh1 once it was read to the end */
	o = bash(&f, "grep -rl 'SECR''ET' ${TMPDIR:-/tmp}/.locus-harness-* "
	             "/run/locus 2>/dev/null; echo done");
	ck_assert_msg(strstr(o, "exit 0\ndone\n"), "left behind: %s", o);
	free(o);
	ck_assert_msg(!ws_has_locus_files(), "state in the workspace");
	fx_close(&f);
}
END_TEST

/* ---------------- the audit trail under a live agent ---------------- */

START_TEST(audit_out_of_the_tools_reach)
{
	fx f;
	locus_policy *pol = NULL;
	locus_policy_preset(&pol, "standard", NULL);
	locus_policy_wrap w = {.policy = pol};
	if (!fx_open(&f, BK_LOCAL, NULL, locus_harness_policy_wrap, &w))
		return;
	w.workspace_root = g_root;
	char ap[800], kp[800];
	snprintf(ap, sizeof ap, "%s/audit.jsonl", g_root);
	snprintf(kp, sizeof kp, "%s/audit.key", g_tmp);
	sh("printf 'k3y-k3y-k3y-k3y-k3y-k3y' > '%s'", kp);
	locus_audit_options ao = LOCUS_AUDIT_OPTIONS_INIT;
	ao.key_path = kp;
	ao.checkpoint_every = 4;
	locus_error err = {0};
	ck_assert_int_eq(locus_audit_open_ext(&w.audit, ap, &ao, &err), 0);
	call_ok(&f, "bash", "{\"command\":\"echo hi\"}", "exit 0\nhi\n");
	/* the tools never touch the trail or the key */
	call_err(&f, "write",
	         "{\"path\":\"audit.jsonl\",\"content\":\"{}\\n\"}",
	         "audit trail");
	call_err(&f, "read", "{\"path\":\"audit.jsonl\"}", "audit trail");
	sh("ln -s audit.jsonl '%s/l' && ln '%s' '%s/hard'", g_root, ap, g_root);
	call_err(&f, "edit", "{\"path\":\"l\",\"old\":\"a\",\"new\":\"b\"}",
	         "audit trail");
	call_err(&f, "write", "{\"path\":\"hard\",\"content\":\"x\"}",
	         "audit trail");
	call_err(&f, "apply_patch",
	         "{\"patch\":\"*** Begin Patch\\n*** Delete File: "
	         "audit.jsonl\\n*** End Patch\"}",
	         "audit trail");
	call_err(&f, "bash",
	         "{\"command\":\"head -n1 audit.jsonl > t && mv t "
	         "audit.jsonl\"}",
	         "audit trail");
	char cmd[1000];
	snprintf(cmd, sizeof cmd, "{\"command\":\"cat %s\"}", kp);
	call_err(&f, "bash", cmd, "audit key");
	/* a command that hides the name still cannot end the trail
	 * silently: the next call finds the file replaced and refuses */
	call_ok(&f, "bash",
	        "{\"command\":\"f=$(ls | grep '^aud'); head -n1 $f > t && "
	        "mv t $f; echo done\"}",
	        "done");
	call_err(&f, "bash", "{\"command\":\"echo after\"}",
	         "no audit record, no decision");
	call_err(&f, "read", "{\"path\":\"t\"}", "no audit record");
	locus_audit_close(w.audit);
	fx_close(&f);
	locus_policy_free(pol);
}
END_TEST

/* ---------------- writes that lose nothing ---------------- */

START_TEST(add_file_refuses_what_exists)
{
	fx f;
	if (!fx_open(&f, BK_LOCAL, locus_all_tools, NULL, NULL))
		return;
	sh("cd '%s' && echo keep > plain && mkfifo fifo && mkdir dir && "
	   "truncate -s 300M big && ln -s nowhere dangling",
	   g_root);
	static const char *const names[] = {"plain", "fifo", "dir", "big",
	                                    NULL};
	for (size_t i = 0; names[i]; i++) {
		char a[300];
		snprintf(a, sizeof a,
		         "{\"patch\":\"*** Begin Patch\\n*** Add File: %s\\n"
		         "+new\\n*** End Patch\"}",
		         names[i]);
		call_err(&f, "apply_patch", a, "already exists");
	}
	expect_file(&f, "plain", "keep\n");
	struct stat st;
	char p[800];
	snprintf(p, sizeof p, "%s/big", g_root);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_size, 300 << 20);
	snprintf(p, sizeof p, "%s/fifo", g_root);
	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	/* a dangling link is not written through either */
	call_err(&f, "apply_patch",
	         "{\"patch\":\"*** Begin Patch\\n*** Add File: dangling\\n"
	         "+new\\n*** End Patch\"}",
	         NULL);
	snprintf(p, sizeof p, "%s/nowhere", g_root);
	ck_assert_int_ne(access(p, F_OK), 0);
	fx_close(&f);
}
END_TEST

static void stat_of(const char *name, struct stat *st)
{
	char p[800];
	snprintf(p, sizeof p, "%s/%s", g_root, name);
	ck_assert_int_eq(lstat(p, st), 0);
}

START_TEST(writes_keep_owner_and_roll_back_metadata)
{
	if (geteuid() != 0) {
		fprintf(stderr, "SKIPPED (not passed): needs root\n");
		return;
	}
	fx f;
	if (!fx_open(&f, BK_LOCAL, locus_all_tools, NULL, NULL))
		return;
	sh("cd '%s' && printf 'a\\nb\\n' > f.txt && chown 4242:4243 f.txt && "
	   "chmod 4750 f.txt && echo x > a.txt",
	   g_root);
	call_ok(&f, "read", "{\"path\":\"f.txt\"}", NULL);
	call_ok(&f, "edit", "{\"path\":\"f.txt\",\"old\":\"a\",\"new\":\"A\"}",
	        "Updated");
	struct stat st;
	stat_of("f.txt", &st);
	ck_assert_uint_eq(st.st_uid, 4242); /* fchown as root */
	ck_assert_uint_eq(st.st_gid, 4243);
	ck_assert_uint_eq(st.st_mode & 07777, 04750);
	/* a patch whose second part fails: the first file is put back
	 * with its content, mode and owner */
	call_ok(&f, "read", "{\"path\":\"f.txt\"}", NULL);
	call_err(&f, "apply_patch",
	         "{\"patch\":\"*** Begin Patch\\n*** Update File: f.txt\\n@@\\n"
	         "-A\\n+Z\\n*** Add File: a.txt/under\\n+x\\n*** End Patch\"}",
	         "Nothing was written");
	expect_file(&f, "f.txt", "A\nb\n");
	stat_of("f.txt", &st);
	ck_assert_uint_eq(st.st_uid, 4242);
	ck_assert_uint_eq(st.st_mode & 07777, 04750);
	fx_close(&f);
	/* not root: the owner cannot be kept, so setuid/setgid go */
	mk_tmp();
	sh("chmod 755 '%s' && chmod 777 '%s' && printf 'x\\n' > '%s/s' && "
	   "chown 4242 '%s/s' && chmod 6777 '%s/s'",
	   g_tmp, g_root, g_root, g_root, g_root);
	pid_t kid = fork();
	if (kid == 0) {
		if (setresgid(4244, 4244, 4244) || setresuid(4244, 4244, 4244))
			_exit(2);
		locus_backend *b;
		locus_error err;
		if (locus_backend_local_new(&b, g_root, NULL, &err))
			_exit(3);
		int rc = b->write(b, "s", "agent\n", 6, &err);
		locus_backend_free(b);
		_exit(rc ? 4 : 0);
	}
	int ws;
	waitpid(kid, &ws, 0);
	ck_assert_int_eq(WEXITSTATUS(ws), 0);
	stat_of("s", &st);
	ck_assert_uint_eq(st.st_uid, 4244);
	ck_assert_uint_eq(st.st_mode & 07777, 0777);
	rm_tmp();
}
END_TEST

/* Two harnesses edit one file 1,500 times each: no update is lost. */
static void edit_loop(int who, int n)
{
	locus_backend *b;
	locus_harness *h;
	locus_error err;
	if (locus_backend_local_new(&b, g_root, NULL, &err) ||
	    locus_harness_new(&h, b, locus_all_tools, NULL, NULL, NULL, &err))
		_exit(2);
	int conflicts = 0;
	for (int i = 0; i < n;) {
		char *o;
		bool e;
		if (locus_harness_call(h, "read", "{\"path\":\"c.txt\"}", &o,
		                       &e, &err))
			_exit(3);
		free(o);
		char *cur;
		size_t len;
		if (b->read(b, "c.txt", &cur, &len, &err))
			_exit(4);
		cJSON *a = cJSON_CreateObject();
		cJSON_AddStringToObject(a, "path", "c.txt");
		lh_buf nb = {0};
		lh_buf_add(&nb, cur, len);
		lh_buf_printf(&nb, "p%d-%d\n", who, i);
		cJSON_AddStringToObject(a, "content", nb.d);
		char *args = cJSON_PrintUnformatted(a);
		if (locus_harness_call(h, "write", args, &o, &e, &err))
			_exit(5);
		if (!e)
			i++;
		else if (strstr(o, "changed"))
			conflicts++;
		else
			_exit(6);
		free(o);
		free(args);
		cJSON_Delete(a);
		lh_buf_free(&nb);
		free(cur);
	}
	locus_harness_free(h);
	locus_backend_free(b);
	_exit(conflicts ? 0 : 0);
}

START_TEST(concurrent_edits_lose_nothing)
{
	enum { N = 1500 };
	mk_tmp();
	sh("echo head > '%s/c.txt'", g_root);
	pid_t k[2];
	for (int w = 0; w < 2; w++)
		if ((k[w] = fork()) == 0)
			edit_loop(w, N);
	for (int w = 0; w < 2; w++) {
		int st;
		waitpid(k[w], &st, 0);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		              "editor %d: %d", w, st);
	}
	char p[800];
	snprintf(p, sizeof p, "%s/c.txt", g_root);
	size_t len;
	char *d = slurp(p, &len);
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += d[i] == '\n';
	ck_assert_uint_eq(lines, 2 * N + 1); /* every edit is there */
	for (int w = 0; w < 2; w++) {
		char tok[32];
		snprintf(tok, sizeof tok, "\np%d-%d\n", w, N - 1);
		ck_assert_msg(strstr(d, tok), "%s missing", tok);
	}
	free(d);
	rm_tmp();
}
END_TEST

/* Context lines are matched loosely but keep the file's own bytes. */
START_TEST(patch_keeps_context_bytes)
{
	static const char *const tools[] = {"read", "apply_patch", NULL};
	fx f;
	if (!fx_open(&f, _i, tools, NULL, NULL))
		return;
	put(&f, "Makefile", "all:\n\tcc -o x x.c\n\techo done\n");
	put(&f, "dos.txt", "one\r\ntwo\r\nthree\r\n");
	call_ok(&f, "read", "{\"path\":\"Makefile\"}", NULL);
	call_ok(&f, "read", "{\"path\":\"dos.txt\"}", NULL);
	/* the model wrote spaces for the tab and no \r */
	call_ok(&f, "apply_patch",
	        "{\"patch\":\"*** Begin Patch\\n*** Update File: Makefile\\n@@\\n"
	        " all:\\n     cc -o x x.c\\n-    echo done\\n+\\techo ok\\n"
	        "*** Update File: dos.txt\\n@@\\n one\\n-two\\n+TWO\\r\\n three\\n"
	        "*** End Patch\"}",
	        "Updated");
	expect_file(&f, "Makefile", "all:\n\tcc -o x x.c\n\techo ok\n");
	expect_file(&f, "dos.txt", "one\r\nTWO\r\nthree\r\n");
	fx_close(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hardening");
	TCase *tb = tcase_create("bwrap");
	tcase_set_timeout(tb, 120);
	tcase_add_test(tb, bwrap_setuid_attempt_fails);
	tcase_add_test(tb, bwrap_uid_choice);
	suite_add_tcase(s, tb);
	TCase *tj = tcase_create("jobs");
	tcase_set_timeout(tj, 120);
	tcase_add_loop_test(tj, planted_job_files, BK_BWRAP, BK_BWRAP + 1);
	tcase_add_loop_test(tj, nothing_left_behind, BK_LOCAL, BK_LOCAL + 1);
	tcase_add_loop_test(tj, nothing_left_behind, BK_BWRAP, BK_BWRAP + 1);
	suite_add_tcase(s, tj);
	TCase *tw = tcase_create("writes");
	tcase_set_timeout(tw, 300);
	tcase_add_test(tw, add_file_refuses_what_exists);
	tcase_add_test(tw, writes_keep_owner_and_roll_back_metadata);
	tcase_add_test(tw, concurrent_edits_lose_nothing);
	tcase_add_loop_test(tw, patch_keeps_context_bytes, 0, BK_COUNT);
	suite_add_tcase(s, tw);
	TCase *ta = tcase_create("audit");
	tcase_add_test(ta, audit_out_of_the_tools_reach);
	suite_add_tcase(s, ta);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
