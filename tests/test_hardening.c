/*
 * tests/test_hardening.c - the harness's hardening: no privilege
 * leak from the bwrap sandbox, job state out of the workspace's reach,
 * writes that lose nothing, bounded processes.  Workspaces are mkdtemp
 * folders; the stress cases are bounded so the suite stays short.
 */
#include "harness_fx.h"
#include "run_locus.h"

/* GCC 12 at -O3 reports the text a tool call returns (through the inlined
 * call() helper's out-parameter) as a dangling pointer to that helper's
 * local: a false positive that breaks a release build with tests. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif

#include <dirent.h>
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
	         "test -n \"$(find '%s' \\( -name '.locus*' -o -name "
	         "'*.locus-*' \\) -print -quit)\"",
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
		test_skip("needs root and bwrap");
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
	/* uid 0 picks the default (nobody here, never root): this root-owned
	   folder is still refused */
	locus_bwrap_options o = LOCUS_BWRAP_OPTIONS_INIT;
	o.uid = 0;
	ck_assert_int_eq(locus_session_bwrap_new_opts(&s, g_root, &o, &err),
	                 LOCUS_EDENIED);
	/* a workspace of another user: the sandbox runs as its owner */
	sh("chown 4242:4243 '%s'", g_root);
	ck_assert_int_eq(locus_session_bwrap_new(&s, g_root, &err), 0);
	int code;
	char *out;
	size_t len;
	ck_assert_int_eq(
	    s->exec(s, "id -u; id -g; touch f", 10, &code, &out, &len, &err),
	    0);
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

/* A sandbox that closed its control channel while still running (a bwrap
   stuck or failing as it starts) is an error, never a SIGPIPE: the library
   runs inside an agent's host, and a pipe write could kill the CLI
   silently (exit 141: hardening's default_backend_is_bwrap on the CI of
   3b77237).  A stand-in `bwrap` first on PATH replaces its stdin and
   waits: the start-up probe's `run` is buffered, nothing answers, and its
   `kill` after 20 s meets a closed end (the old pipe: SIGPIPE, always). */
START_TEST(bwrap_closed_channel_is_an_error)
{
	mk_tmp();
	char bin[900], p[1000];
	snprintf(bin, sizeof bin, "%s/fakebin", g_tmp);
	ck_assert_int_eq(mkdir(bin, 0755), 0);
	snprintf(p, sizeof p, "%s/bwrap", bin);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs("#!/bin/sh\nexec </dev/null >/dev/null\nexec sleep 60\n", f);
	fclose(f);
	ck_assert_int_eq(chmod(p, 0755), 0);
	/* as root the sandbox runs as the workspace's owner, never root */
	if (geteuid() == 0)
		sh("chown 65534:65534 '%s' && chmod 755 '%s'", g_root, g_tmp);
	char *old_path = strdup(getenv("PATH"));
	char np[2000];
	snprintf(np, sizeof np, "%s:/usr/bin:/bin", bin);
	setenv("PATH", np, 1);
	signal(SIGPIPE, SIG_DFL);
	locus_session *s = NULL;
	locus_error err = {0};
	int rc = locus_session_bwrap_new(&s, g_root, &err);
	setenv("PATH", old_path, 1);
	free(old_path);
	ck_assert_int_ne(rc, 0);
	ck_assert_ptr_null(s);
	ck_assert_msg(strstr(err.message, "bwrap did not start") ||
	                  strstr(err.message, "cannot reach the sandbox"),
	              "%s", err.message);
	rm_tmp();
}
END_TEST

/* The sandbox's host user from the command line: --bwrap-uid/--bwrap-gid,
   parsed once (cli/backend.c) for locus tool and locus mcp. */
START_TEST(bwrap_uid_flag)
{
	const char *bin = getenv("LOCUS_BIN");
	if (!bin || !bwrap_works() || geteuid() != 0) {
		test_skip("needs LOCUS_BIN, root and bwrap");
		return;
	}
	mk_tmp();
	char cmd[2000], out[2000];
	sh("chown 4321:777 '%s'", g_root);
	snprintf(cmd, sizeof cmd,
	         "%s tool bash '{\"command\":\"id -u; id -g; touch f\"}' "
	         "--backend bwrap --bwrap-uid 4321 --bwrap-gid 777 --root '%s' "
	         "2>&1",
	         bin, g_root);
	ck_assert_int_eq(run_sh(cmd, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "exit 0\n4321\n777\n"), "%s", out);
	struct stat st;
	char p[800];
	snprintf(p, sizeof p, "%s/f", g_root);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_uid, 4321);
	/* uid 0 is refused; the flags need --backend bwrap (tool and mcp) */
	/* clang-format off */
	const char *bad[] = {
	    "tool bash '{}' --backend bwrap --bwrap-uid 0",
	    "tool read '{}' --backend local --bwrap-uid 4321",
	    "mcp --backend memory --bwrap-gid 777 </dev/null",
	    "tool read '{}' --bwrap-uid x"};
	/* clang-format on */
	const char *why[] = {"never runs as host uid", "need --backend bwrap",
	                     "need --backend bwrap", "usage"};
	for (int k = 0; k < 4; k++) {
		snprintf(cmd, sizeof cmd, "%s %s --root '%s' 2>&1", bin, bad[k],
		         g_root);
		int rc = run_sh(cmd, out, sizeof out);
		ck_assert_msg(rc == 2, "%s: %d %s", cmd, rc, out);
		ck_assert_msg(strstr(out, why[k]), "%s: %s", cmd, out);
	}
	rm_tmp();
}
END_TEST

/* `locus tool` and `locus mcp` run in the bwrap sandbox unless --backend
   names another; where bwrap cannot start they refuse (exit 2, naming
   --backend local) and run nothing: never a fallback to the host shell.
   As root, and as uid 65534 itself (through setpriv). */
START_TEST(default_backend_is_bwrap)
{
	const char *bin = getenv("LOCUS_BIN");
	if (!bin || !bwrap_works()) {
		test_skip("needs LOCUS_BIN and bwrap");
		return;
	}
	mk_tmp();
	if (geteuid() == 0)
		sh("chown 65534:65534 '%s' && chmod 755 '%s'", g_root, g_tmp);
	static const char *const as[] = {
	    "", "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups "};
	char cmd[3000], out[4000];
	for (int k = 0; k < (geteuid() == 0 ? 2 : 1); k++) {
		/* no --backend: the sandbox (its root is /workspace) */
		snprintf(cmd, sizeof cmd,
		         "cd '%s' && %s'%s' tool bash '{\"command\":\"pwd; "
		         "touch made%d\"}' --preset permissive 2>&1",
		         g_root, as[k], bin, k);
		int st = run_sh(cmd, out, sizeof out);
		ck_assert_msg(st == 0 && strstr(out, "exit 0\n/workspace\n"),
		              "%s: %d %s", as[k], st, out);
		snprintf(cmd, sizeof cmd, "%s/made%d", g_root, k);
		ck_assert_int_eq(access(cmd, F_OK), 0);
		/* bwrap cannot start: refused, nothing runs */
		snprintf(
		    cmd, sizeof cmd,
		    "cd '%s' && %s/usr/bin/env PATH=/nonexistent '%s' tool "
		    "bash '{\"command\":\"touch notrun\"}' --preset "
		    "permissive 2>&1",
		    g_root, as[k], bin);
		st = run_sh(cmd, out, sizeof out);
		ck_assert_msg(st == 2 && strstr(out, "no bwrap on PATH") &&
		                  strstr(out, "--backend local"),
		              "%s: %d %s", as[k], st, out);
		snprintf(cmd, sizeof cmd,
		         "cd '%s' && PATH=/nonexistent '%s' mcp --root . "
		         "</dev/null 2>&1",
		         g_root, bin);
		st = run_sh(cmd, out, sizeof out);
		ck_assert_msg(st == 2 && strstr(out, "--backend local"),
		              "mcp: %d %s", st, out);
		snprintf(cmd, sizeof cmd, "%s/notrun", g_root);
		ck_assert_int_ne(access(cmd, F_OK), 0);
	}
	/* the local backend is chosen on purpose, and says what it is */
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && '%s' tool bash '{\"command\":\"pwd\"}' --backend "
	         "local --preset permissive 2>&1",
	         g_root, bin);
	ck_assert_int_eq(run_sh(cmd, out, sizeof out), 0);
	ck_assert_msg(strstr(out, g_root), "%s", out);
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && '%s' mcp --root . </dev/null 2>&1", g_root, bin);
	ck_assert_int_eq(run_sh(cmd, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "on bwrap sandbox (/workspace)"), "%s", out);
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && '%s' mcp --backend local --root . </dev/null 2>&1",
	         g_root, bin);
	ck_assert_int_eq(run_sh(cmd, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "on UNISOLATED: host shell"), "%s", out);
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
	call_ok(&f, "bash",
	        "{\"command\":\"echo bg; exit 4\",\"background\":"
	        "true}",
	        "sh");
	/* sandboxed code plants answers for the next commands it can guess */
	free(bash(&f,
	          "mkdir -p /tmp/x; for i in $(seq 1 300); do "
	          "echo 0 > /run/locus/$i.rc 2>/dev/null; "
	          "echo FORGED > /run/locus/$i.out 2>/dev/null; done; true"));
	o = bash(&f, "echo real2; exit 5");
	ck_assert_msg(!strncmp(o, "exit 5\nreal2\n", 13), "%s", o);
	free(o);
	bool e;
	for (int i = 0; i < 600; i++) {
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
	for (int i = 0; i < 600; i++) {
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

/* ---------------- rules see resolved paths ---------------- */

START_TEST(rules_see_resolved_paths)
{
	fx f;
	locus_policy *pol = NULL;
	locus_error err = {0};
	ck_assert_int_eq(locus_policy_preset(&pol, "standard", NULL), 0);
	static const char rules[] =
	    "{\"permissions\": {\"deny\": [\"Read(./.env)\"]}}";
	ck_assert_msg(locus_policy_add_claude_settings(
	                  pol, rules, sizeof rules - 1, &err) == 0,
	              "%s", err.message);
	locus_policy_wrap w = LOCUS_POLICY_WRAP_INIT;
	w.policy = pol;
	if (!fx_open(&f, BK_LOCAL, NULL, locus_harness_policy_wrap, &w))
		return;
	w.workspace_root = g_root;
	sh("cd '%s' && echo SECRET=1 > .env && ln -s .env l && mkdir d && "
	   "ln -s ../.env d/inner",
	   g_root);
	call_err(&f, "read", "{\"path\":\".env\"}", "denied");
	call_err(&f, "read", "{\"path\":\"l\"}", "denied");
	call_err(&f, "read", "{\"path\":\"d/inner\"}", "denied");
	/* a glob is expanded where the line runs: .e* names .env */
	call_err(&f, "bash", "{\"command\":\"cat .e*\"}", "denied");
	call_err(&f, "bash", "{\"command\":\"cat ?en[v]\"}", "denied");
	call_ok(&f, "bash", "{\"command\":\"echo fine\"}", "fine");
	fx_close(&f);
	locus_policy_free(pol);
}
END_TEST

/* ---------------- the audit trail under a live agent ---------------- */

START_TEST(audit_out_of_the_tools_reach)
{
	fx f;
	locus_policy *pol = NULL;
	/* permissive: the name-hiding command below must run (standard holds
	   its dynamic mv target as outside-workspace) */
	locus_policy_preset(&pol, "permissive", NULL);
	locus_policy_wrap w = LOCUS_POLICY_WRAP_INIT;
	w.policy = pol;
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
	ck_assert_int_eq(locus_audit_open_opts(&w.audit, ap, &ao, &err), 0);
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
	        "{\"command\":\"f=$(ls | grep '^aud'); mv $f t && "
	        "head -n1 t > $f; echo done\"}",
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
		test_skip("needs root");
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
	struct stat st2;
	stat_of("f.txt", &st2);
	ck_assert_uint_eq(st2.st_uid, 4242);
	ck_assert_uint_eq(st2.st_mode & 07777, 04750);
	/* staged before any rename: f.txt was never replaced at all */
	ck_assert_uint_eq(st2.st_ino, st.st_ino);
	ck_assert_msg(!ws_has_locus_files(), "a staged file was left");
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
		if (locus_harness_call(&o, &e, h, "read",
		                       JS("{\"path\":\"c.txt\"}"), &err))
			_exit(3);
		free(o);
		char *cur;
		size_t len;
		if (b->read(b, "c.txt", &cur, &len, &err))
			_exit(4);
		cJSON *a = cJSON_CreateObject();
		cJSON_AddStringToObject(a, "path", "c.txt");
		lu_buf nb = {0};
		lu_buf_add(&nb, cur, len);
		lu_buf_printf(&nb, "p%d-%d\n", who, i);
		cJSON_AddStringToObject(a, "content", nb.d);
		char *args = cJSON_PrintUnformatted(a);
		if (locus_harness_call(&o, &e, h, "write", args, strlen(args),
		                       &err))
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
		lu_buf_free(&nb);
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
	size_t len = 0;
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

/* Metadata of a workspace file as the host sees it (Local, bwrap). */
typedef struct meta {
	bool exists;
	ino_t ino;
	mode_t mode;
	uid_t uid;
} meta;

static meta meta_of(const char *name)
{
	char p[800];
	snprintf(p, sizeof p, "%s/%s", g_root, name);
	struct stat st;
	meta m = {0};
	if (lstat(p, &st) == 0)
		m = (meta){true, st.st_ino, st.st_mode & 07777, st.st_uid};
	return m;
}

/* x and y with modes (and, as root, an owner) of their own. */
static void batch_setup(fx *f, bool host)
{
	put(f, "x", "x1\n");
	put(f, "y", "y1\n");
	if (host) {
		sh("chmod 0754 '%s/x' && chmod 0705 '%s/y'", g_root, g_root);
		if (geteuid() == 0)
			sh("chown 4242:4243 '%s/x' '%s/y'", g_root, g_root);
	}
}

static void expect_same(const meta *before, const char *name)
{
	meta now = meta_of(name);
	ck_assert_msg(now.exists, "%s is gone", name);
	ck_assert_msg(now.ino == before->ino && now.mode == before->mode &&
	                  now.uid == before->uid,
	              "%s: inode %lu mode %o uid %u, was %lu %o %u", name,
	              (unsigned long)now.ino, (unsigned)now.mode,
	              (unsigned)now.uid, (unsigned long)before->ino,
	              (unsigned)before->mode, (unsigned)before->uid);
}

/* write_many: a failure part way (here a compare-and-swap that no longer
   holds, after a write, a removal and a new file were made) undoes every
   change: the very files come back (content, inode, mode, owner), the new
   one goes, no temporary or kept-aside file stays. */
START_TEST(write_many_rolls_back)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	ck_assert_ptr_nonnull(f.b->write_many);
	bool host = _i != BK_MEMORY;
	batch_setup(&f, host);
	meta mx = meta_of("x"), my = meta_of("y");
	char sx[65], sy[65];
	lu_sha256_hex("x1\n", 3, sx);
	lu_sha256_hex("y1\n", 3, sy);
	locus_write_op ops[] = {
	    {"x", "x2\n", 3, false, sx},
	    {"y", NULL, 0, true, sy},
	    {"sub/n", "new\n", 4, false, NULL},
	    {"x2", "z\n", 2, false, sx}, /* x2 does not exist: a conflict */
	};
	size_t failed = 99;
	locus_error err = {0};
	ck_assert_int_eq(f.b->write_many(f.b, ops, 4, &failed, &err),
	                 LOCUS_ECONFLICT);
	ck_assert_uint_eq(failed, 3);
	expect_file(&f, "x", "x1\n");
	expect_file(&f, "y", "y1\n");
	expect_file(&f, "sub/n", NULL);
	if (host) {
		expect_same(&mx, "x");
		expect_same(&my, "y");
		ck_assert_msg(!ws_has_locus_files(), "temporary files left");
	}
	/* a removed file that is gone meanwhile is a conflict too */
	locus_write_op gone[] = {{"x", "x3\n", 3, false, sx},
	                         {"nope", NULL, 0, true, sy}};
	ck_assert_int_ne(f.b->write_many(f.b, gone, 2, &failed, &err), 0);
	ck_assert_uint_eq(failed, 1);
	expect_file(&f, "x", "x1\n");
	/* all of it when nothing is in the way; x keeps its mode */
	ck_assert_int_eq(f.b->write_many(f.b, ops, 3, &failed, &err), 0);
	expect_file(&f, "x", "x2\n");
	expect_file(&f, "y", NULL);
	expect_file(&f, "sub/n", "new\n");
	if (host) {
		ck_assert_uint_eq(meta_of("x").mode, 0754);
		if (_i == BK_LOCAL && geteuid() == 0)
			ck_assert_uint_eq(meta_of("x").uid, 4242);
		ck_assert_msg(!ws_has_locus_files(), "temporary files left");
	}
	fx_close(&f);
}
END_TEST

/* apply_patch of several files that fails part way (an Add File whose
   path became a folder when a later Add File made its parent) changes
   nothing: updated and deleted files are back with their mode and owner,
   added ones are gone.  On every backend. */
START_TEST(patch_fails_mid_way_rolls_back)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	bool host = _i != BK_MEMORY;
	batch_setup(&f, host);
	meta mx = meta_of("x"), my = meta_of("y");
	call_ok(&f, "read", "{\"path\":\"x\"}", NULL);
	call_ok(&f, "read", "{\"path\":\"y\"}", NULL);
	call_err(
	    &f, "apply_patch",
	    "{\"patch\":\"*** Begin Patch\\n*** Update File: x\\n@@\\n-x1\\n"
	    "+x2\\n*** Delete File: y\\n*** Add File: d\\n+file\\n"
	    "*** Add File: d/e\\n+inner\\n*** End Patch\"}",
	    "Nothing was written");
	expect_file(&f, "x", "x1\n");
	expect_file(&f, "y", "y1\n");
	expect_file(&f, "d/e", NULL);
	if (host) {
		expect_same(&mx, "x");
		expect_same(&my, "y");
		ck_assert(!meta_of("d/e").exists);
		ck_assert_msg(!ws_has_locus_files(), "temporary files left");
	}
	fx_close(&f);
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
	call_ok(
	    &f, "apply_patch",
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

/* notebook_edit keeps every byte it was not asked to change. */
START_TEST(notebook_number_fidelity)
{
	static const char *const tools[] = {"read", "notebook_edit", NULL};
	fx f;
	if (!fx_open(&f, _i, tools, NULL, NULL))
		return;
	static const char nb[] =
	    "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n"
	    "   \"execution_count\": 12345678901234567890,\n"
	    "   \"metadata\": {\"x\": 1.50, \"y\": 1e400},\n"
	    "   \"outputs\": [],\n   \"source\": [\"a = 1\\n\"]\n  },\n"
	    "  {\n   \"cell_type\": \"markdown\",\n   \"metadata\": {},\n"
	    "   \"source\": [\"old\"]\n  },\n"
	    "  {\"cell_type\": \"raw\", \"metadata\": {\"n\": -0.0}, "
	    "\"source\": []}\n ],\n"
	    " \"metadata\": {\"v\": 4.000},\n \"nbformat\": 4,\n"
	    " \"nbformat_minor\": 5\n}\n";
	put(&f, "n.ipynb", nb);
	call_ok(&f, "read", "{\"path\":\"n.ipynb\"}", NULL);
	call_ok(&f, "notebook_edit",
	        "{\"path\":\"n.ipynb\",\"cell\":1,\"source\":\"new\\ntext\"}",
	        "Updated");
	char *d = get(&f, "n.ipynb");
	/* only the source value changed */
	const char *at = strstr(nb, "[\"old\"]");
	size_t pre = (size_t)(at - nb);
	ck_assert_msg(!strncmp(d, nb, pre), "prefix changed:\n%s", d);
	ck_assert_msg(!strncmp(d + pre, "[\"new\\n\",\"text\"]", 16), "%s", d);
	ck_assert_str_eq(d + pre + 16, at + 7);
	free(d);
	/* insert in the middle and at the end, delete both again */
	call_ok(&f, "read", "{\"path\":\"n.ipynb\"}", NULL);
	call_ok(&f, "notebook_edit",
	        "{\"path\":\"n.ipynb\",\"cell\":1,\"mode\":\"insert\","
	        "\"source\":\"mid\"}",
	        "Updated");
	call_ok(&f, "read", "{\"path\":\"n.ipynb\"}", NULL);
	call_ok(&f, "notebook_edit",
	        "{\"path\":\"n.ipynb\",\"cell\":4,\"mode\":\"insert\","
	        "\"cell_type\":\"markdown\",\"source\":\"end\"}",
	        "Updated");
	d = get(&f, "n.ipynb");
	ck_assert_msg(strstr(d, "12345678901234567890") && strstr(d, "1e400") &&
	                  strstr(d, "-0.0") && strstr(d, "4.000") &&
	                  strstr(d, "1.50"),
	              "numbers rewritten:\n%s", d);
	cJSON *j = cJSON_Parse(d);
	cJSON *cells = cJSON_GetObjectItem(j, "cells");
	ck_assert_int_eq(cJSON_GetArraySize(cells), 5);
	ck_assert_str_eq(
	    cJSON_GetArrayItem(
	        cJSON_GetObjectItem(cJSON_GetArrayItem(cells, 1), "source"), 0)
	        ->valuestring,
	    "mid");
	ck_assert_str_eq(
	    cJSON_GetObjectItem(cJSON_GetArrayItem(cells, 4), "cell_type")
	        ->valuestring,
	    "markdown");
	cJSON_Delete(j);
	free(d);
	call_ok(&f, "read", "{\"path\":\"n.ipynb\"}", NULL);
	call_ok(&f, "notebook_edit",
	        "{\"path\":\"n.ipynb\",\"cell\":4,\"mode\":\"delete\"}",
	        "Updated");
	call_ok(&f, "read", "{\"path\":\"n.ipynb\"}", NULL);
	call_ok(&f, "notebook_edit",
	        "{\"path\":\"n.ipynb\",\"cell\":1,\"mode\":\"delete\"}",
	        "Updated");
	d = get(&f, "n.ipynb");
	at = strstr(d, "[\"new\\n\",\"text\"]");
	ck_assert_ptr_nonnull(at);
	ck_assert_msg(!strncmp(d, nb, pre), "after delete:\n%s", d);
	ck_assert_str_eq(d + pre + 16, strstr(nb, "[\"old\"]") + 7);
	free(d);
	fx_close(&f);
}
END_TEST

/* ---------------- bounded processes ---------------- */

static bool pid_alive(pid_t p)
{
	for (int i = 0; i < 3000; i++) {
		reap();
		if ((kill(p, 0) < 0 && errno == ESRCH) || !pid_alive_once(p))
			return false; /* a zombie waiting for us is not alive */
		usleep(10000);
	}
	return true;
}

/* `setsid` and double-fork children do not outlive their command. */
START_TEST(setsid_escape_is_killed)
{
	fx f;
	if (!fx_open(&f, BK_LOCAL, NULL, NULL, NULL))
		return;
	char *o =
	    bash(&f, "setsid sleep 300 >/dev/null 2>&1 & echo $!; "
	             "( ( sleep 301 >/dev/null 2>&1 & echo $! > df ) & ); "
	             "i=0; until [ -s df ] || [ $i -ge 600 ]; do sleep 0.05; "
	             "i=$((i+1)); done; cat df");
	int a = 0, b = 0;
	ck_assert_msg(sscanf(o, "exit 0\n%d\n%d", &a, &b) == 2, "%s", o);
	free(o);
	ck_assert_msg(!pid_alive(a), "setsid child %d survived", a);
	ck_assert_msg(!pid_alive(b), "double fork %d survived", b);
	/* kill_shell and a timeout kill the escapees too */
	call_ok(&f, "bash",
	        "{\"command\":\"setsid sleep 302 >/dev/null 2>&1 & echo $!; "
	        "sleep 300\",\"background\":true}",
	        "sh1");
	/* poll (10 s at most) until the background command said its pid */
	int c = 0;
	for (int i = 0; i < 500 && c <= 0; i++) {
		bool e;
		o = call(&f, "bash_output", "{\"handle\":\"sh1\"}", &e);
		const char *nl = strchr(o, '\n');
		if (!nl || sscanf(nl + 1, "%d", &c) != 1)
			c = 0;
		free(o);
		if (c <= 0)
			usleep(20000);
	}
	ck_assert_msg(c > 0, "the background command never said its pid");
	call_ok(&f, "kill_shell", "{\"handle\":\"sh1\"}", "killed");
	ck_assert_msg(!pid_alive(c), "escapee %d survived kill_shell", c);
	o = bash(&f, "x");
	free(o);
	call_err(&f, "bash",
	         "{\"command\":\"setsid sleep 303 & echo $! > pid; sleep 30\","
	         "\"timeout\":1,\"on_timeout\":\"kill\"}",
	         "killed");
	char *pf = get(&f, "pid");
	ck_assert_ptr_nonnull(pf);
	ck_assert_msg(!pid_alive(atoi(pf)), "escapee survived the timeout");
	free(pf);
	/* freeing the backend (the harness closing) kills them too */
	call_ok(&f, "bash",
	        "{\"command\":\"setsid sleep 304 & echo $! > pid2; sleep 300\","
	        "\"background\":true}",
	        "sh");
	/* poll (10 s at most) until the background command wrote its pid */
	int d = 0;
	for (int i = 0; i < 500 && d <= 0; i++) {
		pf = get(&f, "pid2");
		d = pf ? atoi(pf) : 0;
		free(pf);
		if (d <= 0)
			usleep(20000);
	}
	ck_assert_msg(d > 0, "the background command never wrote its pid");
	fx_close(&f);
	ck_assert_msg(!pid_alive(d), "escapee %d survived close", d);
}
END_TEST

START_TEST(bwrap_setsid_escape_is_killed)
{
	fx f;
	if (!fx_open(&f, BK_BWRAP, NULL, NULL, NULL))
		return;
	free(bash(&f,
	          "setsid sleep 4710.1 >/dev/null 2>&1 & "
	          "( ( sleep 4710.2 >/dev/null 2>&1 & ) & ); echo started"));
	/* seen from the host, where no namespace hides anything */
	ck_assert_msg(!host_sleep_alive("4710.1"), "setsid escapee left");
	ck_assert_msg(!host_sleep_alive("4710.2"), "double fork left");
	fx_close(&f);
}
END_TEST

/* Escapees that clear their environment (no LOCUS_JOB mark), setsid and
   double-fork do not outlive their command in the bwrap sandbox: at its
   end, on kill_shell, on a timeout and on close. */
START_TEST(bwrap_envclear_escape_is_killed)
{
	fx f;
	if (!fx_open(&f, BK_BWRAP, NULL, NULL, NULL))
		return;
	/* each escapee says it runs (a file, then exec sleep) and the command
	   waits for both (30 s at most) before it ends */
	char *o = bash(&f, "env -i /bin/sh -c 'setsid sh -c \"touch s1; exec "
	                   "sleep 4711.1\" >/dev/null 2>&1 & (setsid sh -c "
	                   "\"touch s2; exec sleep 4711.2\" >/dev/null 2>&1 &) "
	                   "&'; i=0; until [ -e s1 ] && [ -e s2 ] || [ $i -ge "
	                   "600 ]; do sleep 0.05; i=$((i+1)); done; ls s1 s2; "
	                   "echo started");
	ck_assert_msg(strstr(o, "exit 0\ns1\ns2\nstarted"), "%s", o);
	free(o);
	ck_assert_msg(!host_sleep_alive("4711.1"), "env -i setsid survived");
	ck_assert_msg(!host_sleep_alive("4711.2"), "double fork survived");
	call_ok(&f, "bash",
	        "{\"command\":\"env -i setsid sleep 4711.3 >/dev/null 2>&1 & "
	        "sleep 300\",\"background\":true}",
	        "sh1");
	for (int i = 0; i < 1500 && !host_sleep_alive_once("4711.3"); i++)
		usleep(20000);
	ck_assert_msg(host_sleep_alive_once("4711.3"), "escapee never ran");
	call_ok(&f, "kill_shell", "{\"handle\":\"sh1\"}", "killed");
	ck_assert_msg(!host_sleep_alive("4711.3"), "survived kill_shell");
	call_err(&f, "bash",
	         "{\"command\":\"env -i setsid sleep 4711.4 >/dev/null 2>&1 & "
	         "sleep 300\",\"timeout\":1,\"on_timeout\":\"kill\"}",
	         "killed");
	ck_assert_msg(!host_sleep_alive("4711.4"), "survived the timeout");
	call_ok(&f, "bash",
	        "{\"command\":\"env -i setsid sleep 4711.5 >/dev/null 2>&1 & "
	        "sleep 300\",\"background\":true}",
	        "sh");
	for (int i = 0; i < 1500 && !host_sleep_alive_once("4711.5"); i++)
		usleep(20000);
	ck_assert_msg(host_sleep_alive_once("4711.5"), "escapee never ran");
	fx_close(&f);
	ck_assert_msg(!host_sleep_alive("4711.5"), "survived close");
}
END_TEST

/* When locus itself gets SIGTERM or SIGHUP, its commands' trees go too. */
START_TEST(locus_killed_commands_go)
{
	int sigs[] = {SIGTERM, SIGHUP};
	for (int k = 0; k < 2; k++) {
		mk_tmp();
		int pp[2];
		ck_assert_int_eq(pipe(pp), 0);
		pid_t kid = fork();
		if (kid == 0) {
			/* a stand-in for locus: default signal actions (not
			 * Check's handlers), a group of its own */
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			setpgid(0, 0);
			close(pp[0]);
			locus_backend *b;
			locus_error err;
			if (locus_backend_local_new(&b, g_root, NULL, &err))
				_exit(2);
			locus_exec_result r;
			if (b->exec(
			        b,
			        "setsid sleep 305 >/dev/null 2>&1 & echo $!; "
			        "sleep 300",
			        60, LOCUS_EXEC_BACKGROUND, &r, &err))
				_exit(3);
			locus_exec_result_clear(&r);
			char *o;
			size_t len;
			locus_bg_status st;
			for (int i = 0; i < 200; i++) {
				if (b->bg_output(b, r.handle, 0, &o, &len, &st,
				                 &err))
					_exit(4);
				if (len) {
					if (write(pp[1], o, len) < 0)
						_exit(5);
					break;
				}
				free(o);
				usleep(10000);
			}
			pause(); /* until the signal ends us, default action */
			_exit(0);
		}
		close(pp[1]);
		char buf[64] = "";
		ck_assert_int_gt(read(pp[0], buf, sizeof buf - 1), 0);
		close(pp[0]);
		int esc = atoi(buf);
		ck_assert_int_gt(esc, 0);
		ck_assert_int_eq(kill(esc, 0), 0);
		kill(kid, sigs[k]);
		waitpid(kid, NULL, 0);
		ck_assert_msg(!pid_alive(esc), "escapee %d outlived locus (%d)",
		              esc, sigs[k]);
		rm_tmp();
	}
}
END_TEST

/* Every command has its own session, with no race. */
START_TEST(own_session_every_time)
{
	fx f;
	if (!fx_open(&f, BK_LOCAL, NULL, NULL, NULL))
		return;
	for (int i = 0; i < 100; i++) {
		char *o = bash(&f, "read -r p _ _ _ _ s _ < /proc/$$/stat; "
		                   "[ \"$p\" = \"$s\" ] && echo own");
		ck_assert_msg(strstr(o, "exit 0\nown\n"), "run %d: %s", i, o);
		free(o);
	}
	fx_close(&f);
}
END_TEST

/* A flood of output is capped on disk and in memory. */
START_TEST(output_flood_capped)
{
	mk_tmp();
	locus_backend *b;
	locus_error err;
	if (_i == BK_LOCAL) {
		locus_local_options o = LOCUS_LOCAL_OPTIONS_INIT;
		o.output_max = 1 << 20;
		ck_assert_int_eq(
		    locus_backend_local_new_opts(&b, g_root, NULL, &o, &err),
		    0);
	} else {
		if (!bwrap_works()) {
			test_skip("no bwrap");
			rm_tmp();
			return;
		}
		if (geteuid() == 0)
			sh("chown 65534:65534 '%s'", g_root);
		locus_bwrap_options o = LOCUS_BWRAP_OPTIONS_INIT;
		o.output_max = 1 << 20;
		locus_session *s;
		ck_assert_int_eq(
		    locus_session_bwrap_new_opts(&s, g_root, &o, &err), 0);
		ck_assert_int_eq(locus_backend_session_new(&b, s, "/workspace",
		                                           "bwrap", true, &err),
		                 0);
	}
	/* 200 MiB of output: no more than the cap is kept */
	locus_exec_result r;
	double t0 = lu_now();
	ck_assert_int_eq(b->exec(b,
	                         "head -c 209715200 /dev/zero | tr '\\0' a; "
	                         "echo; echo tail-line",
	                         120, LOCUS_EXEC_DEFAULT, &r, &err),
	                 0);
	ck_assert_msg(r.finished && r.exit_code == 0, "exit %d", r.exit_code);
	ck_assert_uint_le(r.output_len, (1 << 20) + 200);
	ck_assert_msg(strstr(r.output, "more bytes dropped: the output cap is "
	                               "1048576 bytes"),
	              "no note");
	locus_exec_result_clear(&r);
	ck_assert(lu_now() - t0 < 60);
	locus_backend_free(b);
	rm_tmp();
}
END_TEST

/* 1,100 background jobs: reaped, their FIFOs closed, no EMFILE. */
START_TEST(many_background_jobs)
{
	fx f;
	if (!fx_open(&f, BK_LOCAL, NULL, NULL, NULL))
		return;
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	struct rlimit low = {256, rl.rlim_max}; /* EMFILE early if leaking */
	setrlimit(RLIMIT_NOFILE, &low);
	for (int i = 0; i < 1100; i++) {
		bool e;
		char *o =
		    call(&f, "bash",
		         "{\"command\":\"true\",\"background\":true}", &e);
		ck_assert_msg(!e, "job %d: %s", i, o);
		free(o);
	}
	/* another call reaps the jobs that ended: poll (10 s at most) until
	   the last ones have ended and been reaped */
	char cmd[200];
	snprintf(cmd, sizeof cmd,
	         "test $(ps -o stat= --ppid %d | grep -c Z) -le 2",
	         (int)getpid());
	bool reaped = false;
	for (int i = 0; i < 200 && !reaped; i++) {
		free(bash(&f, "true"));
		reaped = system(cmd) == 0;
		if (!reaped)
			usleep(50000);
	}
	ck_assert_msg(reaped, "zombies left");
	int fds = 0;
	DIR *d = opendir("/proc/self/fd");
	while (d && readdir(d))
		fds++;
	if (d)
		closedir(d);
	ck_assert_msg(fds < 60, "%d fds open", fds);
	setrlimit(RLIMIT_NOFILE, &rl);
	fx_close(&f);
}
END_TEST

/* write_stdin to a command that does not read returns, it never hangs. */
START_TEST(write_stdin_non_reader)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	if (_i == BK_LOCAL) {
		/* a short deadline for the test */
		locus_harness_free(f.h);
		locus_backend_free(f.b);
		locus_local_options o = LOCUS_LOCAL_OPTIONS_INIT;
		o.stdin_timeout_s = 1;
		locus_error err;
		ck_assert_int_eq(
		    locus_backend_local_new_opts(&f.b, g_root, NULL, &o, &err),
		    0);
		ck_assert_int_eq(
		    locus_harness_new(&f.h, f.b, NULL, NULL, NULL, NULL, &err),
		    0);
	}
	call_ok(&f, "bash", "{\"command\":\"sleep 60\",\"background\":true}",
	        "sh1");
	/* 1 MiB: far more than a pipe holds */
	lu_buf big = {0};
	lu_buf_puts(&big, "{\"handle\":\"sh1\",\"text\":\"");
	for (int i = 0; i < (1 << 20) / 64; i++)
		lu_buf_puts(&big, "0123456789012345678901234567890123456789"
		                  "012345678901234567890123");
	lu_buf_puts(&big, "\"}");
	bool e;
	char *o = call(&f, "write_stdin", big.d, &e);
	/* it returned, as an error (no wall-clock bound: the suite's
	   timeout catches a hang) */
	ck_assert_msg(e, "should fail: %s", o);
	free(o);
	lu_buf_free(&big);
	call_ok(&f, "kill_shell", "{\"handle\":\"sh1\"}", "killed");
	fx_close(&f);
}
END_TEST

/* A catastrophic pattern over many lines stops at the time budget. */
START_TEST(catastrophic_grep_bounded)
{
	static const char *const tools[] = {"grep", NULL};
	fx f;
	if (!fx_open(&f, _i, tools, NULL, NULL))
		return;
	if (_i != BK_BWRAP) {
		locus_harness_free(f.h);
		f.cfg.search_budget_s = 2;
		locus_error err;
		ck_assert_int_eq(locus_harness_new(&f.h, f.b, tools, NULL, NULL,
		                                   &f.cfg, &err),
		                 0);
	}
	lu_buf t = {0};
	for (int i = 0; i < 3000; i++)
		lu_buf_puts(&t, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\n");
	put(&f, "a.txt", t.d);
	put(&f, "b.txt", t.d);
	lu_buf_free(&t);
	/* bounded by its work, not by the wall clock: the budget and the match
	   limit say so in the output, and in-process (not bwrap) the CPU time
	   this process spent stays far below what 6,000 unbounded lines take */
	struct timespec c0, c1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	bool e;
	char *o = call(&f, "grep", "{\"pattern\":\"(a|aa|a?a)+$\"}", &e);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	double cpu = (double)(c1.tv_sec - c0.tv_sec) +
	             (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;
	/* the match limit (ours), the backtracking limit (the sandbox's
	   grep -P) or the time budget */
	ck_assert_msg(strstr(o, " limit") || strstr(o, "time budget"),
	              "no limit said: %.300s", o);
	if (_i != BK_BWRAP)
		ck_assert_msg(cpu < 8, "grep took %.1f s of CPU: %.300s", cpu,
		              o);
	free(o);
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
	tcase_add_test(tb, bwrap_uid_flag);
	tcase_add_test(tb, default_backend_is_bwrap);
	tcase_add_test(tb, bwrap_closed_channel_is_an_error);
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
	tcase_add_loop_test(tw, write_many_rolls_back, 0, BK_COUNT);
	tcase_add_loop_test(tw, patch_fails_mid_way_rolls_back, 0, BK_COUNT);
	tcase_add_loop_test(tw, notebook_number_fidelity, 0, BK_COUNT);
	suite_add_tcase(s, tw);
	TCase *tp = tcase_create("processes");
	tcase_set_timeout(tp, 300);
	tcase_add_test(tp, setsid_escape_is_killed);
	tcase_add_test(tp, own_session_every_time);
	tcase_add_test(tp, locus_killed_commands_go);
	tcase_add_test(tp, bwrap_setsid_escape_is_killed);
	tcase_add_test(tp, bwrap_envclear_escape_is_killed);
	tcase_add_loop_test(tp, output_flood_capped, BK_LOCAL, BK_LOCAL + 1);
	tcase_add_loop_test(tp, output_flood_capped, BK_BWRAP, BK_BWRAP + 1);
	tcase_add_test(tp, many_background_jobs);
	tcase_add_loop_test(tp, write_stdin_non_reader, BK_LOCAL, BK_LOCAL + 1);
	tcase_add_loop_test(tp, write_stdin_non_reader, BK_BWRAP, BK_BWRAP + 1);
	tcase_add_loop_test(tp, catastrophic_grep_bounded, 0, BK_COUNT);
	suite_add_tcase(s, tp);
	TCase *ta = tcase_create("audit");
	tcase_add_test(ta, audit_out_of_the_tools_reach);
	tcase_add_test(ta, rules_see_resolved_paths);
	suite_add_tcase(s, ta);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return test_exit(failed);
}
