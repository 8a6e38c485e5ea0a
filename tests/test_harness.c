/*
 * tests/test_harness.c - backends, tools and the harness (spec harness.md).
 *
 * One shared tool suite runs against Local, Memory and the bwrap session;
 * the bwrap cases are skipped (and reported as skipped on stderr, not as
 * passes) only when bwrap cannot create namespaces on this machine.
 */
#include "harness_fx.h"

#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

/* A check's own bound: above the sum of the hang guards inside any one
   (cancel_tree: 30 s for the sleeps to start, then 30 s for each of three
   to go), which are what should fail it on a slow machine, not this. */
#define CASE_TIMEOUT 240

/* ---------------- path escapes (LocalBackend) ---------------- */

/*
 * The layout: T/ws is the root, T/outside/secret.txt and T/ws2/secret.txt
 * lie outside (ws2 shares the root's name as a prefix).  Links inside the
 * root point out in every way we know.
 */
static void escape_layout(void)
{
	sh("cd '%s' && mkdir -p ../outside ../ws2 sub/inner && "
	   "echo SECRET > ../outside/secret.txt && "
	   "echo SECRET > ../ws2/secret.txt && echo hi > a.txt && "
	   "echo b > sub/b.txt && ln -s /etc link_out && "
	   "ln -s .. link_rel_out && ln -s sub link_in && "
	   "ln -s /proc/self/root link_proc && ln -s link_loop link_loop && "
	   "ln -s ../../outside sub/up_out && ln -s ../.. sub/up2 && "
	   "ln -s ../../../etc sub/inner/deep && ln -s ../outside link_sib && "
	   "ln -s ../outside/secret.txt link_file_out && "
	   "ln -s /etc/passwd link_passwd && ln -s link_out link_chain && "
	   "ln -s sub/up2 link_via_sub && ln -s /proc/self/cwd link_cwd && "
	   "ln -s '%s/../outside' link_abs_out && "
	   "ln -s /tmp link_tmp && mkdir -p d && ln -s ../../outside d/o",
	   g_root, g_root);
}

static const char *const escape_paths[] = {
    "..",
    "../",
    "../outside/secret.txt",
    "../../etc/passwd",
    "../ws2/secret.txt",
    "/etc/passwd",
    "/etc",
    "/",
    "/tmp",
    "sub/../../outside/secret.txt",
    "./../outside",
    "sub/../..",
    "a.txt/../../outside/secret.txt",
    "sub/inner/../../../outside",
    "link_out",
    "link_out/passwd",
    "link_rel_out/outside/secret.txt",
    "link_rel_out",
    "link_proc/etc/passwd",
    "link_proc",
    "/proc/self/root/etc/passwd",
    "/proc/self/cwd",
    "/proc/1/root/etc",
    "/proc/self/root",
    "link_sib/secret.txt",
    "link_sib",
    "link_file_out",
    "link_passwd",
    "sub/up_out/secret.txt",
    "sub/up2/outside/secret.txt",
    "sub/inner/deep/passwd",
    "link_loop",
    "link_chain/passwd",
    "link_via_sub/outside/secret.txt",
    "link_cwd/etc/passwd",
    "link_abs_out/secret.txt",
    "link_tmp",
    "d/o/secret.txt",
    "//etc/passwd",
    "/./etc/passwd",
    "sub/./../../outside/secret.txt",
    "link_in/../../outside/secret.txt",
    "link_in/up_out/secret.txt",
    "link_in/inner/deep/hostname",
    NULL, /* + "ROOT/../outside" and "T/ws2/secret.txt", added below */
};

static void escape_corpus(locus_backend *b, const char *what)
{
	char extra1[800], extra2[800], extra3[800];
	snprintf(extra1, sizeof extra1, "%s/../outside/secret.txt", g_root);
	snprintf(extra2, sizeof extra2, "%s2/secret.txt", g_root);
	snprintf(extra3, sizeof extra3, "%s/link_out/passwd", g_root);
	const char *extra[] = {extra1, extra2, extra3};
	size_t count = 0;
	for (size_t i = 0; i < sizeof escape_paths / sizeof *escape_paths + 3;
	     i++) {
		size_t np = sizeof escape_paths / sizeof *escape_paths - 1;
		const char *p = i < np       ? escape_paths[i]
		                : i - np < 3 ? extra[i - np]
		                             : NULL;
		if (!p)
			continue;
		count++;
		locus_error err = {0};
		char *data = NULL;
		size_t len = 0;
		int rc = b->read(b, p, &data, &len, &err);
		ck_assert_msg(rc == LOCUS_EDENIED,
		              "%s: read %s not refused (rc %d: %s)", what, p,
		              rc, err.message);
		ck_assert_msg(strstr(err.message, "outside the workspace"),
		              "%s: unclear message for %s: %s", what, p,
		              err.message);
		free(data);
		locus_stat st;
		rc = b->stat(b, p, &st, &err);
		ck_assert_msg(rc == LOCUS_EDENIED, "%s: stat %s not refused",
		              what, p);
		locus_dirent *ents = NULL;
		size_t n = 0;
		rc = b->list(b, p, &ents, &n, &err);
		ck_assert_msg(rc == LOCUS_EDENIED || rc == LOCUS_EINVALID,
		              "%s: list %s not refused (%d)", what, p, rc);
		locus_dirents_free(ents, n);
		/* writes: below the path, and the path itself */
		char wp[900];
		snprintf(wp, sizeof wp, "%s/pwned.txt", p);
		rc = b->write(b, wp, "x", 1, &err);
		ck_assert_msg(rc == LOCUS_EDENIED, "%s: write %s not refused",
		              what, wp);
		if (strcmp(p, "/") && strcmp(p, "..") && strcmp(p, "../")) {
			rc = b->write(b, p, "x", 1, &err);
			ck_assert_msg(
			    rc == LOCUS_EDENIED || rc == LOCUS_EINVALID,
			    "%s: write %s not refused (%d)", what, p, rc);
		}
	}
	ck_assert_uint_ge(count, 40);
	/* nothing outside changed */
	char *s = NULL;
	char path[800];
	snprintf(path, sizeof path, "%s/outside/secret.txt", g_tmp);
	s = slurp(path, NULL);
	ck_assert_str_eq(s, "SECRET\n");
	free(s);
	snprintf(path, sizeof path, "%s/outside/pwned.txt", g_tmp);
	ck_assert_int_ne(access(path, F_OK), 0);
	ck_assert_int_ne(access("/etc/pwned.txt", F_OK), 0);
	ck_assert_int_ne(access("/tmp/pwned.txt", F_OK), 0);
}

static void inside_ok(locus_backend *b)
{
	/* links that stay inside work */
	locus_error err = {0};
	char *data;
	size_t len;
	ck_assert_int_eq(b->read(b, "link_in/b.txt", &data, &len, &err), 0);
	ck_assert_str_eq(data, "b\n");
	free(data);
	ck_assert_int_eq(b->read(b, "sub/../a.txt", &data, &len, &err), 0);
	free(data);
	char abs[800];
	snprintf(abs, sizeof abs, "%s/sub/b.txt", g_root);
	ck_assert_int_eq(b->read(b, abs, &data, &len, &err), 0);
	free(data);
	ck_assert_int_eq(b->write(b, "new/deep/dir/f.txt", "z", 1, &err), 0);
	ck_assert_int_eq(b->write(b, "link_in/w.txt", "w", 1, &err), 0);
	snprintf(abs, sizeof abs, "%s/sub/w.txt", g_root);
	data = slurp(abs, NULL);
	ck_assert_str_eq(data, "w");
	free(data);
}

START_TEST(escape_local_openat2)
{
	mk_tmp();
	escape_layout();
	locus_backend *b;
	locus_error err;
	ck_assert_int_eq(locus_backend_local_new(&b, g_root, NULL, &err), 0);
	ck_assert_str_eq(b->label, "UNISOLATED: host shell");
	escape_corpus(b, "openat2");
	inside_ok(b);
	locus_backend_free(b);
	rm_tmp();
}
END_TEST

START_TEST(escape_local_manual)
{
	mk_tmp();
	escape_layout();
	locus_backend *b;
	locus_error err;
	ck_assert_int_eq(locus_backend_local_new(&b, g_root, NULL, &err), 0);
	lh_local_disable_openat2(b);
	escape_corpus(b, "by hand");
	inside_ok(b);
	locus_backend_free(b);
	rm_tmp();
}
END_TEST

/* ---------------- LocalBackend commands ---------------- */

START_TEST(local_exec_basic)
{
	mk_tmp();
	locus_backend *b;
	locus_error err;
	ck_assert_int_eq(locus_backend_local_new(&b, g_root, NULL, &err), 0);
	locus_exec_result r;
	ck_assert_int_eq(b->exec(b, "echo hi; echo err >&2; pwd; exit 3", 10,
	                         LOCUS_EXEC_DEFAULT, &r, &err),
	                 0);
	ck_assert(r.finished);
	ck_assert_int_eq(r.exit_code, 3);
	char want[800];
	snprintf(want, sizeof want, "hi\nerr\n%s\n", g_root);
	char *real = realpath(g_root, NULL);
	snprintf(want, sizeof want, "hi\nerr\n%s\n", real);
	free(real);
	ck_assert_str_eq(r.output, want);
	locus_exec_result_clear(&r);
	/* stdin is /dev/null for foreground commands: cat ends */
	ck_assert_int_eq(
	    b->exec(b, "cat; echo done", 10, LOCUS_EXEC_DEFAULT, &r, &err), 0);
	ck_assert_str_eq(r.output, "done\n");
	locus_exec_result_clear(&r);
	locus_backend_free(b);
	rm_tmp();
}
END_TEST

/* What another thread does while commands start and end: allocate, and
   read a folder, without pause. */
static void *churn_thread(void *p)
{
	int *stop = p;
	while (!__atomic_load_n(stop, __ATOMIC_SEQ_CST)) {
		for (int i = 0; i < 64; i++)
			free(malloc(16 + (size_t)i * 40));
		DIR *d = opendir("/proc/self/task");
		if (d) {
			while (readdir(d))
				;
			closedir(d);
		}
	}
	return NULL;
}

/*
 * The supervisor is forked while another thread of ours allocates: it must
 * take no lock that thread may have held at the fork (backends/supervise.c
 * is async-signal-safe; tests/test_layers.py checks the symbols it uses).
 * Its opendir did: ASan's allocator is not reset at fork, and about one
 * fork in a few hundred left the supervisor waiting for ever in kill_tree,
 * the harness in waitpid (the CI's harness suite hung so).  Every command
 * here leaves a child for kill_tree to find.  A hang is Check's timeout.
 */
START_TEST(local_exec_threads_allocating)
{
	mk_tmp();
	locus_backend *b;
	locus_error err;
	ck_assert_int_eq(locus_backend_local_new(&b, g_root, NULL, &err), 0);
	int stop = 0;
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, churn_thread, &stop), 0);
	for (int i = 0; i < 400; i++) {
		locus_exec_result r;
		ck_assert_int_eq(b->exec(b, "sleep 5 & echo x", 60,
		                         LOCUS_EXEC_DEFAULT, &r, &err),
		                 0);
		ck_assert_msg(r.finished && r.output &&
		                  !strcmp(r.output, "x\n"),
		              "%d: %s", i, r.output ? r.output : "(none)");
		locus_exec_result_clear(&r);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_SEQ_CST);
	pthread_join(th, NULL);
	locus_backend_free(b);
	rm_tmp();
}
END_TEST

static pid_t first_pid(const char *out)
{
	return out ? (pid_t)atol(out) : 0;
}

START_TEST(local_timeout_kills_group)
{
	mk_tmp();
	locus_backend *b;
	locus_error err;
	ck_assert_int_eq(locus_backend_local_new(&b, g_root, NULL, &err), 0);
	locus_exec_result r;
	ck_assert_int_eq(b->exec(b, "echo $$; sleep 3000 & sleep 3000", 0.5,
	                         LOCUS_EXEC_DEFAULT, &r, &err),
	                 0);
	ck_assert(r.timed_out);
	ck_assert(!r.finished);
	ck_assert_str_eq(r.handle, "");
	pid_t pg = first_pid(r.output);
	ck_assert_int_gt(pg, 1);
	ck_assert_msg(group_gone(pg), "process group %d still alive", pg);
	locus_exec_result_clear(&r);
	/* a finished command's stragglers are not left behind either */
	ck_assert_int_eq(
	    b->exec(b, "echo $$; sleep 30 &", 5, LOCUS_EXEC_DEFAULT, &r, &err),
	    0);
	ck_assert(r.finished);
	pg = first_pid(r.output);
	ck_assert_msg(group_gone(pg), "stragglers of %d alive", pg);
	locus_exec_result_clear(&r);
	locus_backend_free(b);
	rm_tmp();
}
END_TEST

START_TEST(local_background_fifo_kill)
{
	mk_tmp();
	locus_backend *b;
	locus_error err;
	ck_assert_int_eq(locus_backend_local_new(&b, g_root, NULL, &err), 0);
	locus_exec_result r;
	ck_assert_int_eq(b->exec(b,
	                         "echo $$; while read l; do echo got:$l; "
	                         "done; echo eof",
	                         0, LOCUS_EXEC_BACKGROUND, &r, &err),
	                 0);
	ck_assert_str_eq(r.handle, "sh1");
	locus_exec_result_clear(&r);
	ck_assert_int_eq(b->bg_write(b, "sh1", "one\ntwo\n", 8, false, &err),
	                 0);
	char *out = NULL;
	size_t len;
	locus_bg_status st;
	for (int i = 0; i < 3000; i++) {
		free(out);
		ck_assert_int_eq(
		    b->bg_output(b, "sh1", 0, &out, &len, &st, &err), 0);
		if (strstr(out, "got:two"))
			break;
		usleep(10000);
	}
	ck_assert_ptr_nonnull(strstr(out, "got:one\ngot:two\n"));
	ck_assert(st.running);
	pid_t pg = first_pid(out);
	free(out);
	ck_assert_int_eq(b->bg_write(b, "sh1", "", 0, true, &err), 0);
	for (int i = 0; i < 3000; i++) {
		ck_assert_int_eq(
		    b->bg_output(b, "sh1", 0, &out, &len, &st, &err), 0);
		bool done = !st.running;
		if (!done)
			free(out);
		else
			break;
		usleep(10000);
	}
	ck_assert(!st.running);
	ck_assert_int_eq(st.exit_code, 0);
	ck_assert_ptr_nonnull(strstr(out, "eof\n"));
	free(out);
	ck_assert(group_gone(pg));
	/* a second one: killed */
	ck_assert_int_eq(b->exec(b, "echo $$; sleep 60 & sleep 60", 0,
	                         LOCUS_EXEC_BACKGROUND, &r, &err),
	                 0);
	ck_assert_str_eq(r.handle, "sh2");
	locus_exec_result_clear(&r);
	for (int i = 0; i < 3000; i++) {
		ck_assert_int_eq(
		    b->bg_output(b, "sh2", 0, &out, &len, &st, &err), 0);
		if (len)
			break;
		free(out);
		usleep(10000);
	}
	pg = first_pid(out);
	free(out);
	ck_assert_int_gt(pg, 1);
	ck_assert_int_eq(kill(-pg, 0), 0);
	ck_assert_int_eq(b->bg_kill(b, "sh2", &st, &err), 0);
	ck_assert_int_eq(st.exit_code, 128 + SIGKILL);
	ck_assert(group_gone(pg));
	ck_assert_int_eq(b->bg_kill(b, "sh9", &st, &err), LOCUS_ENOTFOUND);
	locus_backend_free(b);
	rm_tmp();
}
END_TEST

START_TEST(local_keep_on_timeout)
{
	mk_tmp();
	locus_backend *b;
	locus_error err;
	ck_assert_int_eq(locus_backend_local_new(&b, g_root, NULL, &err), 0);
	locus_exec_result r;
	ck_assert_int_eq(
	    b->exec(b, "echo $$; sleep 60", 0.3, LOCUS_EXEC_KEEP, &r, &err), 0);
	ck_assert(r.timed_out);
	ck_assert_str_eq(r.handle, "sh1");
	pid_t pg = first_pid(r.output);
	locus_exec_result_clear(&r);
	ck_assert_int_eq(kill(-pg, 0), 0);
	/* freeing the backend ends its background commands */
	locus_backend_free(b);
	ck_assert(group_gone(pg));
	rm_tmp();
}
END_TEST

/* ---------------- the shared tool suite ---------------- */

START_TEST(tool_read)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	put(&f, "a.txt", "one\ntwo\nthree\n");
	call_ok(&f, "read", "{\"path\":\"a.txt\"}",
	        "     1\tone\n     2\ttwo\n     3\tthree\n");
	call_ok(&f, "read", "{\"path\":\"a.txt\",\"offset\":1,\"limit\":1}",
	        "     2\ttwo\n[1 of 3 lines shown; continue with offset=2]");
	call_err(&f, "read", "{\"path\":\"nope.txt\"}",
	         "nope.txt does not exist");
	call_err(&f, "read", "{}", "missing argument 'path'");
	call_err(&f, "read", "{\"path\":3}", "must be a string");
	call_err(&f, "read", "not json", "must be a JSON object");
	/* a long line is cut with a note */
	lu_buf big = {0};
	for (int i = 0; i < 2500; i++)
		lu_buf_add(&big, "x", 1);
	lu_buf_add(&big, "\n", 1);
	put(&f, "long.txt", big.d);
	lu_buf_free(&big);
	call_ok(&f, "read", "{\"path\":\"long.txt\"}",
	        "… [line is 2500 characters]");
	/* invalid UTF-8 and NUL bytes do not break it: mostly NUL, the file
	   is named binary with its length */
	locus_error err;
	ck_assert_int_eq(f.b->write(f.b, "bin", "\xff\xfe\0x\n", 5, &err), 0);
	call_ok(&f, "read", "{\"path\":\"bin\"}", "bin is binary (5 bytes");
	fx_close(&f);
}
END_TEST

START_TEST(tool_write_ledger)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	call_ok(&f, "write", "{\"path\":\"new/n.txt\",\"content\":\"hi\\n\"}",
	        "Created new/n.txt");
	expect_file(&f, "new/n.txt", "hi\n");
	/* the harness's own write re-notes the file: a second write works */
	call_ok(&f, "write", "{\"path\":\"new/n.txt\",\"content\":\"ho\\n\"}",
	        "Updated");
	put(&f, "old.txt", "keep\n");
	call_err(&f, "write", "{\"path\":\"old.txt\",\"content\":\"x\"}",
	         "old.txt has not been read in this session — read it first, "
	         "so the change is made against what is there. Nothing was "
	         "written.");
	call_err(&f, "edit",
	         "{\"path\":\"old.txt\",\"old\":\"keep\",\"new\":\"x\"}",
	         "has not been read in this session");
	expect_file(&f, "old.txt", "keep\n");
	call_ok(&f, "read", "{\"path\":\"old.txt\"}", NULL);
	/* changed behind our back: stale */
	put(&f, "old.txt", "keep!\n");
	call_err(&f, "edit",
	         "{\"path\":\"old.txt\",\"old\":\"keep\",\"new\":\"x\"}",
	         "old.txt has changed since you last read it — read it again "
	         "before changing it. Nothing was written.");
	expect_file(&f, "old.txt", "keep!\n");
	call_ok(&f, "read", "{\"path\":\"old.txt\"}", NULL);
	call_ok(&f, "write", "{\"path\":\"old.txt\",\"content\":\"x\"}",
	        "Updated old.txt");
	expect_file(&f, "old.txt", "x");
	ck_assert_int_ge(f.rec.changes, 3);
	fx_close(&f);
}
END_TEST

START_TEST(tool_edit)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	put(&f, "e.txt", "alpha beta\nbeta gamma\n");
	call_ok(&f, "read", "{\"path\":\"e.txt\"}", NULL);
	call_err(&f, "edit",
	         "{\"path\":\"e.txt\",\"old\":\"beta\",\"new\":\"B\"}",
	         "old text occurs 2 times in e.txt");
	call_err(&f, "edit",
	         "{\"path\":\"e.txt\",\"old\":\"delta\",\"new\":\"B\"}",
	         "old text not found in e.txt. Nothing was written.");
	call_err(&f, "edit", "{\"path\":\"e.txt\",\"old\":\"\",\"new\":\"B\"}",
	         "must not be empty");
	call_err(&f, "edit",
	         "{\"path\":\"zz.txt\",\"old\":\"a\",\"new\":\"B\"}",
	         "does not exist");
	expect_file(&f, "e.txt", "alpha beta\nbeta gamma\n");
	call_ok(&f, "edit",
	        "{\"path\":\"e.txt\",\"old\":\"alpha\",\"new\":\"A\"}",
	        "Updated e.txt");
	call_ok(&f, "edit",
	        "{\"path\":\"e.txt\",\"old\":\"beta\",\"new\":\"B\","
	        "\"replace_all\":true}",
	        NULL);
	expect_file(&f, "e.txt", "A B\nB gamma\n");
	fx_close(&f);
}
END_TEST

START_TEST(tool_multi_edit_atomic)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	const char *orig = "one\ntwo\nthree\n";
	put(&f, "m.txt", orig);
	call_ok(&f, "read", "{\"path\":\"m.txt\"}", NULL);
	call_err(
	    &f, "multi_edit",
	    "{\"path\":\"m.txt\",\"edits\":[{\"old\":\"one\",\"new\":\"1\"},"
	    "{\"old\":\"four\",\"new\":\"4\"}]}",
	    "edit 2 of 2: old text not found");
	expect_file(&f, "m.txt", orig);
	call_err(&f, "multi_edit", "{\"path\":\"m.txt\",\"edits\":[]}",
	         "non-empty");
	call_err(&f, "multi_edit", "{\"path\":\"m.txt\",\"edits\":[3]}", NULL);
	expect_file(&f, "m.txt", orig);
	/* edits see the result of the ones before */
	call_ok(
	    &f, "multi_edit",
	    "{\"path\":\"m.txt\",\"edits\":[{\"old\":\"one\",\"new\":\"1\"},"
	    "{\"old\":\"1\\ntwo\",\"new\":\"1\\n2\"}]}",
	    NULL);
	expect_file(&f, "m.txt", "1\n2\nthree\n");
	fx_close(&f);
}
END_TEST

START_TEST(tool_apply_patch)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	put(&f, "p.py", "def f():\n    return 1\n\ndef g():\n    return 2\n");
	put(&f, "gone.txt", "bye\n");
	put(&f, "mv.txt", "a\nb\n");
	const char *good =
	    "{\"patch\":\"*** Begin Patch\\n"
	    "*** Add File: added/new.txt\\n+hello\\n+world\\n"
	    "*** Update File: p.py\\n@@ def g():\\n-    return 2\\n+    return "
	    "3\\n"
	    "*** Delete File: gone.txt\\n"
	    "*** Update File: mv.txt\\n*** Move to: moved.txt\\n a\\n-b\\n+B\\n"
	    "*** End Patch\"}";
	/* nothing read yet: refused as a whole */
	call_err(&f, "apply_patch", good, "has not been read");
	expect_file(&f, "added/new.txt", NULL);
	call_ok(&f, "read", "{\"path\":\"p.py\"}", NULL);
	call_ok(&f, "read", "{\"path\":\"gone.txt\"}", NULL);
	call_ok(&f, "read", "{\"path\":\"mv.txt\"}", NULL);
	/* a hunk that does not apply: all or nothing */
	const char *bad =
	    "{\"patch\":\"*** Begin Patch\\n"
	    "*** Add File: added/new.txt\\n+hello\\n"
	    "*** Update File: p.py\\n-    return 1\\n+    return 9\\n"
	    "*** Update File: mv.txt\\n-zzz\\n+B\\n"
	    "*** End Patch\"}";
	call_err(&f, "apply_patch", bad, "Nothing was changed");
	expect_file(&f, "added/new.txt", NULL);
	expect_file(&f, "p.py",
	            "def f():\n    return 1\n\ndef g():\n    return 2\n");
	call_err(&f, "apply_patch", "{\"patch\":\"garbage\"}", "Begin Patch");
	call_err(&f, "apply_patch",
	         "{\"patch\":\"*** Begin Patch\\n*** Add File: x\\n+a\\n\"}",
	         "End Patch");
	call_err(&f, "apply_patch",
	         "{\"patch\":\"*** Begin Patch\\n*** Add File: p.py\\n+a\\n"
	         "*** End Patch\"}",
	         "already exists");
	call_ok(&f, "apply_patch", good, NULL);
	expect_file(&f, "added/new.txt", "hello\nworld\n");
	expect_file(&f, "p.py",
	            "def f():\n    return 1\n\ndef g():\n    return 3\n");
	expect_file(&f, "gone.txt", NULL);
	expect_file(&f, "mv.txt", NULL);
	expect_file(&f, "moved.txt", "a\nB\n");
	fx_close(&f);
}
END_TEST

START_TEST(tool_notebook)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	put(&f, "n.ipynb",
	    "{\"cells\":[{\"cell_type\":\"code\",\"id\":\"c1\",\"metadata\":{},"
	    "\"source\":[\"print(1)\\n\"],\"outputs\":[],\"execution_count\":"
	    "null}],"
	    "\"metadata\":{},\"nbformat\":4,\"nbformat_minor\":5}");
	call_err(&f, "notebook_edit",
	         "{\"path\":\"n.ipynb\",\"cell\":0,\"source\":\"x\"}",
	         "has not been read");
	call_ok(&f, "read", "{\"path\":\"n.ipynb\"}", NULL);
	call_ok(
	    &f, "notebook_edit",
	    "{\"path\":\"n.ipynb\",\"cell\":\"c1\",\"source\":\"a=1\\nb=2\"}",
	    NULL);
	call_ok(&f, "notebook_edit",
	        "{\"path\":\"n.ipynb\",\"cell\":1,\"mode\":\"insert\","
	        "\"cell_type\":\"markdown\",\"source\":\"# T\"}",
	        NULL);
	call_err(&f, "notebook_edit",
	         "{\"path\":\"n.ipynb\",\"cell\":7,\"mode\":\"delete\"}",
	         "no cell");
	char *d = get(&f, "n.ipynb");
	cJSON *nb = cJSON_Parse(d);
	ck_assert_ptr_nonnull(nb);
	cJSON *cells = cJSON_GetObjectItem(nb, "cells");
	ck_assert_int_eq(cJSON_GetArraySize(cells), 2);
	cJSON *src =
	    cJSON_GetObjectItem(cJSON_GetArrayItem(cells, 0), "source");
	ck_assert_str_eq(cJSON_GetArrayItem(src, 0)->valuestring, "a=1\n");
	ck_assert_str_eq(cJSON_GetArrayItem(src, 1)->valuestring, "b=2");
	cJSON_Delete(nb);
	free(d);
	call_ok(&f, "notebook_edit",
	        "{\"path\":\"n.ipynb\",\"cell\":0,\"mode\":\"delete\"}", NULL);
	d = get(&f, "n.ipynb");
	nb = cJSON_Parse(d);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(nb, "cells")),
	                 1);
	cJSON_Delete(nb);
	free(d);
	put(&f, "bad.ipynb", "{not json");
	call_ok(&f, "read", "{\"path\":\"bad.ipynb\"}", NULL);
	call_err(&f, "notebook_edit",
	         "{\"path\":\"bad.ipynb\",\"cell\":0,\"source\":\"x\"}",
	         "not a Jupyter notebook");
	expect_file(&f, "bad.ipynb", "{not json");
	fx_close(&f);
}
END_TEST

START_TEST(tool_ls_glob)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	put(&f, "src/a.c", "int a;\n");
	put(&f, "src/deep/b.c", "int b;\n");
	put(&f, "src/deep/c.h", "int c;\n");
	put(&f, "node_modules/x/y.c", "no\n");
	put(&f, ".hidden/z.c", "no\n");
	put(&f, "build/out.c", "no\n");
	put(&f, "README", "r\n");
	bool e;
	char *o = call(&f, "ls", "{}", &e);
	ck_assert(!e);
	ck_assert_ptr_nonnull(strstr(o, "  src/\n    a.c\n    deep/\n"));
	ck_assert_ptr_nonnull(strstr(o, "  README\n"));
	ck_assert_ptr_null(strstr(o, "node_modules"));
	ck_assert_ptr_null(strstr(o, "hidden"));
	ck_assert_ptr_null(strstr(o, "build"));
	ck_assert_ptr_null(strstr(o, "b.c")); /* depth 2 */
	free(o);
	o = call(&f, "glob", "{\"pattern\":\"**/*.c\"}", &e);
	ck_assert(!e);
	ck_assert_ptr_nonnull(strstr(o, "src/a.c\n"));
	ck_assert_ptr_nonnull(strstr(o, "src/deep/b.c\n"));
	ck_assert_ptr_null(strstr(o, "y.c"));
	ck_assert_ptr_null(strstr(o, "z.c"));
	ck_assert_ptr_null(strstr(o, "out.c"));
	ck_assert_ptr_null(strstr(o, "c.h"));
	free(o);
	call_ok(&f, "glob", "{\"pattern\":\"*.c\",\"path\":\"src\"}",
	        "src/a.c");
	call_ok(&f, "glob", "{\"pattern\":\"*.rs\"}", "No files match");
	/* newest first: the other file's mtime is set an hour back, not
	   waited for (Memory's mtime is a write counter: nothing to set) */
	if (_i != BK_MEMORY)
		call_ok(&f, "bash",
		        "{\"command\":\"touch -d '1 hour ago' src/a.c && "
		        "echo set\"}",
		        "set");
	put(&f, "src/deep/b.c", "int b2;\n");
	o = call(&f, "glob", "{\"pattern\":\"src/**/*.c\"}", &e);
	ck_assert_msg(!strncmp(o, "src/deep/b.c\n", 13), "order: %s", o);
	free(o);
	fx_close(&f);
}
END_TEST

START_TEST(tool_grep)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	put(&f, "a.py", "import os\ndef main():\n    os.exit(1)\n");
	put(&f, "b.txt", "Main street\nnothing\n");
	put(&f, "node_modules/m.py", "def main(): pass\n");
	call_ok(&f, "grep", "{\"pattern\":\"def \\\\w+\\\\(\"}",
	        "a.py:2:def main():");
	bool e;
	char *o = call(&f, "grep", "{\"pattern\":\"main\"}", &e);
	ck_assert(!e);
	ck_assert_ptr_null(strstr(o, "node_modules"));
	ck_assert_ptr_null(strstr(o, "Main street"));
	free(o);
	call_ok(&f, "grep",
	        "{\"pattern\":\"main\",\"case_insensitive\":true,"
	        "\"output_mode\":\"files\"}",
	        "b.txt");
	call_ok(&f, "grep",
	        "{\"pattern\":\"o\",\"output_mode\":\"count\","
	        "\"glob\":\"*.py\"}",
	        "a.py:2");
	o = call(&f, "grep", "{\"pattern\":\"o\",\"glob\":\"*.txt\"}", &e);
	ck_assert_ptr_null(strstr(o, "a.py"));
	free(o);
	call_ok(&f, "grep", "{\"pattern\":\"exit\",\"context\":1}",
	        "a.py-2-def main():\na.py:3:    os.exit(1)");
	call_ok(&f, "grep", "{\"pattern\":\"zzz\"}", "No matches");
	call_err(&f, "grep", "{\"pattern\":\"(\"}", NULL);
	fx_close(&f);
}
END_TEST

START_TEST(tool_preview_todos)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	put(&f, "v.txt", "a\nb\nc\n");
	call_ok(&f, "read", "{\"path\":\"v.txt\"}", NULL);
	char *o = NULL;
	locus_error err;
	ck_assert_int_eq(
	    locus_harness_preview(
	        &o, f.h, "edit",
	        JS("{\"path\":\"v.txt\",\"old\":\"b\",\"new\":\"B\"}"), &err),
	    0);
	ck_assert_str_eq(
	    o, "--- a/v.txt\n+++ b/v.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
	free(o);
	expect_file(&f, "v.txt", "a\nb\nc\n");
	ck_assert_int_eq(locus_harness_preview(
	                     &o, f.h, "write",
	                     JS("{\"path\":\"w.txt\",\"content\":\"x\\n\"}"),
	                     &err),
	                 0);
	ck_assert_str_eq(o,
	                 "--- /dev/null\n+++ b/w.txt\n@@ -0,0 +1,1 @@\n+x\n");
	free(o);
	expect_file(&f, "w.txt", NULL);
	ck_assert_int_eq(locus_harness_preview(
	                     &o, f.h, "read", JS("{\"path\":\"v.txt\"}"), &err),
	                 0);
	ck_assert_ptr_null(o);
	ck_assert_int_eq(
	    locus_harness_preview(
	        &o, f.h, "edit",
	        JS("{\"path\":\"v.txt\",\"old\":\"q\",\"new\":\"B\"}"), &err),
	    0);
	ck_assert_ptr_nonnull(strstr(o, "not found"));
	free(o);
	call_ok(&f, "todo_read", "{}", "(no todos)");
	call_ok(
	    &f, "todo_write",
	    "{\"todos\":[{\"content\":\"fix\",\"status\":\"in_progress\","
	    "\"id\":\"t1\"},{\"content\":\"test\",\"status\":\"pending\"}]}",
	    "[~] t1: fix\n[ ] 2: test\n");
	call_err(&f, "todo_write",
	         "{\"todos\":[{\"content\":\"x\",\"status\":\"done\"}]}",
	         "todo 1");
	call_ok(&f, "todo_read", "{}", "[~] t1: fix");
	fx_close(&f);
}
END_TEST

/* A gate that refuses writes and any command mentioning "forbidden". */
static char *test_gate(const char *tool, const char *args, size_t len, void *p)
{
	ck_assert_uint_eq(strlen(args), len); /* NUL-terminated past len */
	(*(int *)p)++;
	if (!strcmp(tool, "write") || strstr(args, "forbidden"))
		return strdup("refused: denied by test policy");
	return NULL;
}

START_TEST(tool_gate_refuses)
{
	fx f;
	int calls = 0;
	if (!fx_open(&f, _i, NULL, test_gate, &calls))
		return;
	call_err(&f, "write", "{\"path\":\"g.txt\",\"content\":\"x\"}",
	         "refused: denied by test policy");
	expect_file(&f, "g.txt", NULL);
	ck_assert_int_eq(calls, 1);
	ck_assert(locus_harness_gated(f.h));
	if (f.b->can_exec) {
		call_err(&f, "bash", "{\"command\":\"touch forbidden.txt\"}",
		         "refused");
		expect_file(&f, "forbidden.txt", NULL);
		ck_assert_int_eq(f.rec.execs, 0);
		call_ok(&f, "bash", "{\"command\":\"echo ok > fine.txt\"}",
		        "exit 0");
		expect_file(&f, "fine.txt", "ok\n");
	}
	call_err(&f, "read", "{\"path\":\"forbidden\"}", "refused");
	fx_close(&f);
}
END_TEST
/* Arguments are read strictly (util/json.h): trailing bytes, a
   key twice, invalid UTF-8 or a NUL are refused as a tool error before
   the gate is asked, and nothing runs or changes. */
static const struct {
	const char *args;
	const char *why;
} bad_args[] = {
    {"{\"path\":\"s.txt\"} {\"path\":\"t.txt\"}", "text after the JSON value"},
    {"{\"path\":\"s.txt\"}x", "text after the JSON value"},
    {"{\"path\":\"s.txt\",\"path\":\"t.txt\"}", "repeat the key 'path'"},
    {"{\"path\":\"s\xff.txt\"}", "invalid UTF-8"},
    {"{\"path\":\"s.txt\\u0000x\"}", "may not contain NUL"},
    {"[\"s.txt\"]", "must be a JSON object"},
};

START_TEST(tool_args_strict)
{
	fx f;
	int calls = 0;
	if (!fx_open(&f, _i, NULL, test_gate, &calls))
		return;
	/* reads the gate would allow */
	for (size_t i = 0; i < sizeof bad_args / sizeof *bad_args; i++)
		call_err(&f, "read", bad_args[i].args, bad_args[i].why);
	ck_assert_int_eq(calls, 0);
	if (f.b->can_exec) {
		call_err(&f, "bash",
		         "{\"command\":\"true\",\"command\":\"touch ran.txt\"}",
		         "repeat the key 'command'");
		call_err(&f, "bash", "{\"command\":\"touch ran.txt\"}\n{}",
		         "text after the JSON value");
		call_err(&f, "bash", "{\"command\":\"touch ran.txt \xc3\"}",
		         "invalid UTF-8");
		expect_file(&f, "ran.txt", NULL);
		ck_assert_int_eq(f.rec.execs, 0);
		ck_assert_int_eq(calls, 0);
	}
	/* the same bytes, well formed, do reach the gate */
	call_err(&f, "read", "{\"path\":\"s.txt\"}", "s.txt does not exist");
	ck_assert_int_eq(calls, 1);
	fx_close(&f);
}
END_TEST

START_TEST(tool_bash)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	call_ok(&f, "bash", "{\"command\":\"echo hi; exit 4\"}",
	        "exit 4\nhi\n");
	ck_assert_int_eq(f.rec.execs, 1);
	ck_assert(f.rec.last.has_exit_code);
	ck_assert_int_eq(f.rec.last.exit_code, 4);
	char want[65];
	lu_sha256_hex("echo hi; exit 4", 15, want);
	ck_assert_str_eq(f.rec.last.command_sha256, want);
	lu_sha256_hex("hi\n", 3, want);
	ck_assert_str_eq(f.rec.last.output_sha256, want);
	ck_assert_uint_eq(f.rec.last.output_bytes, 3);
	ck_assert(!f.rec.last.truncated && !f.rec.last.timed_out);
	ck_assert_str_eq(f.rec.last.backend_label, f.b->label);
	/* files written by commands are seen by the file tools */
	call_ok(&f, "bash",
	        "{\"command\":\"printf 'x\\\\ny\\\\n' > made.txt\"}", "exit 0");
	expect_file(&f, "made.txt", "x\ny\n");
	/* output capping: head 8000 + tail, the middle counted */
	bool e;
	char *o = call(
	    &f, "bash",
	    "{\"command\":\"head -c 50000 /dev/zero | tr '\\\\0' a\"}", &e);
	ck_assert(!e);
	ck_assert_ptr_nonnull(strstr(
	    o, "\n... 20000 characters truncated from the middle ...\n"));
	ck_assert(f.rec.last.truncated);
	free(o);
	call_err(&f, "bash", "{\"command\":\"true\",\"timeout\":601}",
	         "from 1 to 600");
	call_err(&f, "bash", "{\"command\":\"true\",\"on_timeout\":\"x\"}",
	         NULL);
	fx_close(&f);
}
END_TEST

START_TEST(tool_bash_timeout_background)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	/* kill on timeout */
	call_err(&f, "bash",
	         "{\"command\":\"echo start; sleep 3000\",\"timeout\":1,"
	         "\"on_timeout\":\"kill\"}",
	         "timed out after 1s; the command was killed\nstart\n");
	ck_assert(f.rec.last.timed_out && !f.rec.last.has_exit_code);
	/* keep on timeout: a handle.  "second" waits for the file `go`, which
	   the test writes once "first" was read (an event, not a time) */
	bool e;
	char *o = call(&f, "bash",
	               "{\"command\":\"echo first; until [ -e go ]; do sleep "
	               "0.05; done; echo second; sleep 30\",\"timeout\":1}",
	               &e);
	ck_assert_msg(!e && strstr(o, "still running as sh1"), "%s", o);
	for (int i = 0; i < 600 && !strstr(o, "first"); i++) {
		free(o);
		usleep(50000);
		o = call(&f, "bash_output", "{\"handle\":\"sh1\"}", &e);
	}
	ck_assert_msg(strstr(o, "first"), "%s", o);
	free(o);
	o = NULL;
	put(&f, "go", "");
	for (int i = 0; i < 600; i++) {
		free(o);
		o = call(&f, "bash_output", "{\"handle\":\"sh1\"}", &e);
		if (strstr(o, "second"))
			break;
		usleep(50000);
	}
	ck_assert_msg(strstr(o, "sh1: running\n"), "%s", o);
	ck_assert_msg(strstr(o, "second\n[next since="), "%s", o);
	ck_assert_msg(!strstr(o, "first"), "since not honoured: %s", o);
	free(o);
	call_ok(&f, "kill_shell", "{\"handle\":\"sh1\"}", "sh1 killed");
	call_ok(&f, "bash_output", "{\"handle\":\"sh1\",\"since\":0}",
	        "sh1: exited");
	/* background with stdin */
	call_ok(&f, "bash",
	        "{\"command\":\"while read l; do echo got:$l; done; echo eof\","
	        "\"background\":true}",
	        "started in the background as sh2");
	ck_assert(f.rec.last.background);
	call_ok(&f, "write_stdin", "{\"handle\":\"sh2\",\"text\":\"ping\\n\"}",
	        "wrote 5 bytes to sh2");
	call_ok(&f, "write_stdin",
	        "{\"handle\":\"sh2\",\"text\":\"pong\\n\",\"close\":true}",
	        "stdin closed");
	o = NULL;
	for (int i = 0; i < 600; i++) {
		free(o);
		o = call(&f, "bash_output", "{\"handle\":\"sh2\",\"since\":0}",
		         &e);
		if (strstr(o, "exited"))
			break;
		usleep(50000);
	}
	ck_assert_msg(strstr(o, "sh2: exited 0\ngot:ping\ngot:pong\neof\n"),
	              "%s", o);
	free(o);
	call_err(&f, "bash_output", "{\"handle\":\"sh99\"}", "sh99");
	call_err(&f, "kill_shell", "{\"handle\":\"nope\"}", NULL);
	fx_close(&f);
}
END_TEST

/* The API contract: versioned config and call control are
   checked, arguments are (ptr, len) with raw NUL bytes refused, returned
   texts come out first and are freed with locus_free. */
START_TEST(harness_api_contract)
{
	locus_backend *mem;
	locus_error err = {0};
	ck_assert_int_eq(locus_backend_memory_new(&mem, &err), 0);
	locus_harness *h = (locus_harness *)mem;
	locus_harness_config cfg = LOCUS_HARNESS_CONFIG_INIT;
	ck_assert_uint_eq(cfg.version, LOCUS_HARNESS_CONFIG_VERSION);
	ck_assert(!cfg.allow_unread_edits);
	ck_assert_int_eq(cfg.bash_timeout, 120);
	ck_assert_str_eq(cfg.environment, "unknown");
	cfg.version = 0;
	ck_assert_int_eq(
	    locus_harness_new(&h, mem, NULL, NULL, NULL, &cfg, &err),
	    LOCUS_EINVALID);
	ck_assert_ptr_null(h);
	cfg.version = LOCUS_HARNESS_CONFIG_VERSION;
	ck_assert_int_eq(
	    locus_harness_new(&h, mem, NULL, NULL, NULL, &cfg, &err), 0);
	char *o = NULL;
	bool e = false;
	/* only args_len bytes are read */
	ck_assert_int_eq(
	    locus_harness_call(&o, &e, h, "write",
	                       "{\"path\":\"a\",\"content\":\"x\"}junk", 26,
	                       &err),
	    0);
	ck_assert_msg(!e, "%s", o);
	locus_free(o);
	/* a raw NUL byte inside the arguments is refused */
	static const char nul[] = "{\"path\":\"a\0b\"}";
	ck_assert_int_eq(
	    locus_harness_call(&o, &e, h, "read", nul, sizeof nul - 1, &err),
	    0);
	ck_assert(e);
	ck_assert_ptr_nonnull(strstr(o, "NUL"));
	locus_free(o);
	/* NULL arguments are {} */
	ck_assert_int_eq(
	    locus_harness_call(&o, &e, h, "todo_read", NULL, 0, &err), 0);
	locus_free(o);
	locus_call_ctl ctl = LOCUS_CALL_CTL_INIT;
	ctl.version = 9;
	o = (char *)h;
	ck_assert_int_eq(locus_harness_call_ctl(&o, &e, h, "todo_read",
	                                        JS("{}"), &ctl, &err),
	                 LOCUS_EINVALID);
	ck_assert_ptr_null(o);
	ck_assert_int_eq(
	    locus_harness_call(NULL, &e, h, "read", JS("{}"), &err),
	    LOCUS_EUSAGE);
	ck_assert_int_eq(
	    locus_harness_call(&o, &e, NULL, "read", JS("{}"), &err),
	    LOCUS_EUSAGE);
	char *todos = NULL;
	ck_assert_int_eq(locus_harness_todos_json(&todos, h), 0);
	ck_assert_str_eq(todos, "[]");
	locus_free(todos);
	ck_assert_int_eq(locus_harness_todos_json(&todos, NULL), LOCUS_EUSAGE);
	ck_assert_int_eq(locus_harness_prompt_fragment(&todos, NULL),
	                 LOCUS_EUSAGE);
	ck_assert_ptr_null(todos);
	ck_assert_uint_eq(locus_harness_tool_count(NULL), 0);
	ck_assert_ptr_null(locus_harness_tool_name(h, 99));
	ck_assert_ptr_null(locus_harness_tool_description(NULL, "read"));
	locus_harness_free(h);
	locus_backend_free(mem);
}
END_TEST

START_TEST(harness_build)
{
	locus_backend *mem, *loc;
	locus_error err;
	mk_tmp();
	ck_assert_int_eq(locus_backend_memory_new(&mem, &err), 0);
	ck_assert_int_eq(locus_backend_local_new(&loc, g_root, NULL, &err), 0);
	locus_harness *h;
	/* defaults on a no-shell backend: no shell tools */
	ck_assert_int_eq(
	    locus_harness_new(&h, mem, NULL, NULL, NULL, NULL, &err), 0);
	ck_assert_uint_eq(locus_harness_tool_count(h), 10);
	for (size_t i = 0; i < locus_harness_tool_count(h); i++)
		ck_assert_str_ne(locus_harness_tool_name(h, i), "bash");
	locus_harness_free(h);
	const char *const bad[] = {"read", "frobnicate", NULL};
	ck_assert_int_eq(
	    locus_harness_new(&h, mem, bad, NULL, NULL, NULL, &err),
	    LOCUS_ENOTFOUND);
	ck_assert_str_eq(err.message, "no harness tool named 'frobnicate'");
	const char *const sh[] = {"read", "bash", NULL};
	ck_assert_int_eq(locus_harness_new(&h, mem, sh, NULL, NULL, NULL, &err),
	                 LOCUS_EINVALID);
	ck_assert_ptr_nonnull(strstr(err.message, "has no shell for bash"));
	/* order is the spec's, whatever was asked */
	const char *const rev[] = {"todo_read", "bash", "read", NULL};
	recorder rec = {0};
	locus_harness_config cfg = LOCUS_HARNESS_CONFIG_INIT;
	cfg.on_warning = rec_warn;
	cfg.payload = &rec;
	ck_assert_int_eq(
	    locus_harness_new(&h, loc, rev, NULL, NULL, &cfg, &err), 0);
	ck_assert_str_eq(locus_harness_tool_name(h, 0), "read");
	ck_assert_str_eq(locus_harness_tool_name(h, 1), "bash");
	ck_assert_str_eq(locus_harness_tool_name(h, 2), "todo_read");
	ck_assert_int_eq(rec.warnings, 1);
	ck_assert_ptr_nonnull(strstr(rec.warning, "ungated shell tools"));
	ck_assert(!locus_harness_gated(h));
	char *pf = fx_prompt(h);
	ck_assert_ptr_nonnull(strstr(pf, "## Workspace\nThe workspace is "
	                                 "UNISOLATED: host shell, rooted at "));
	ck_assert_ptr_nonnull(strstr(pf, "anything a command does is real."));
	ck_assert_ptr_nonnull(strstr(pf, "bash waits 120s by default (at most "
	                                 "600s)."));
	ck_assert_ptr_null(strstr(pf, "Read a file before"));
	free(pf);
	/* specs: the Action of a call */
	locus_action *act;
	ck_assert_int_eq(
	    locus_harness_spec(&act, h, "bash",
	                       JS("{\"command\":\"rm -rf build\"}"), &err),
	    0);
	ck_assert(locus_action_has_tag(act, "bash"));
	ck_assert(locus_action_has_tag(act, "exec:destructive"));
	ck_assert_str_eq(locus_action_environment(act), "unknown");
	locus_action_free(act);
	ck_assert_int_eq(locus_harness_spec(&act, h, "write", JS("{}"), &err),
	                 LOCUS_ENOTFOUND);
	locus_harness_free(h);
	/* PATCH_TOOLS: apply_patch, no edit/write */
	ck_assert_int_eq(locus_harness_new(&h, loc, locus_patch_tools, NULL,
	                                   NULL, NULL, &err),
	                 0);
	ck_assert_ptr_null(locus_harness_tool_schema(h, "edit"));
	ck_assert_ptr_nonnull(locus_harness_tool_schema(h, "apply_patch"));
	pf = fx_prompt(h);
	ck_assert_ptr_nonnull(strstr(pf, "Change files with apply_patch."));
	ck_assert_ptr_nonnull(strstr(pf, "Read a file before you change it."));
	free(pf);
	char *o;
	bool e;
	ck_assert_int_eq(locus_harness_call(&o, &e, h, "edit", JS("{}"), &err),
	                 LOCUS_ENOTFOUND);
	locus_harness_free(h);
	/* every schema is valid JSON */
	ck_assert_int_eq(
	    locus_harness_new(&h, loc, locus_all_tools, NULL, NULL, NULL, &err),
	    0);
	ck_assert_uint_eq(locus_harness_tool_count(h), 15);
	for (size_t i = 0; i < 15; i++) {
		cJSON *j = cJSON_Parse(locus_harness_tool_schema(
		    h, locus_harness_tool_name(h, i)));
		ck_assert_msg(j != NULL, "schema of %s",
		              locus_harness_tool_name(h, i));
		cJSON_Delete(j);
	}
	locus_harness_free(h);
	locus_backend_free(mem);
	locus_backend_free(loc);
	rm_tmp();
}
END_TEST

START_TEST(hostile_inputs)
{
	fx f;
	if (!fx_open(&f, BK_MEMORY, NULL, NULL, NULL))
		return;
	/* deep JSON, a NUL in a string, huge line, invalid UTF-8 pattern */
	lu_buf deep = {0};
	for (int i = 0; i < 100000; i++)
		lu_buf_add(&deep, "[", 1);
	call_err(&f, "read", deep.d, "nested too deeply");
	lu_buf_free(&deep);
	put(&f, "a", "a\n");
	call_err(&f, "read", "{\"path\":\"a\\u0000b\"}", "NUL");
	call_err(&f, "read", "{\"path\":\"a\\\\u0000b\"}", "does not exist");
	call_err(&f, "grep", "{\"pattern\":\"\\xff(\"}", NULL);
	lu_buf big = {0};
	for (int i = 0; i < (1 << 20); i++)
		lu_buf_add(&big, "y", 1);
	locus_error err;
	ck_assert_int_eq(f.b->write(f.b, "big", big.d, big.len, &err), 0);
	lu_buf_free(&big);
	call_ok(&f, "read", "{\"path\":\"big\"}",
	        "[line is 1048576 characters]");
	call_ok(&f, "grep", "{\"pattern\":\"(y+)+z\"}", NULL);
	call_err(
	    &f, "apply_patch",
	    "{\"patch\":\"*** Begin Patch\\n*** Update File: big\\n@@\\n\"}",
	    NULL);
	fx_close(&f);
}
END_TEST

/* The bwrap session: really isolated, and the escape corpus refused. */
START_TEST(bwrap_isolation)
{
	fx f;
	if (!fx_open(&f, BK_BWRAP, NULL, NULL, NULL))
		return;
	ck_assert_str_eq(f.b->label, "bwrap sandbox");
	ck_assert(f.b->isolated);
	/* no network but loopback */
	call_ok(&f, "bash",
	        "{\"command\":\"tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d "
	        "' '\"}",
	        "exit 0\nlo\n");
	/* the system is read-only, the workspace writable */
	call_ok(&f, "bash",
	        "{\"command\":\"touch /usr/pwned 2>/dev/null; echo $?; touch "
	        "/workspace/ok && echo w\"}",
	        "exit 0\n1\nw\n");
	ck_assert_int_ne(access("/usr/pwned", F_OK), 0);
	/* the host folder around the workspace is not there */
	char cmd[900];
	snprintf(
	    cmd, sizeof cmd,
	    "{\"command\":\"ls %s/outside 2>&1 >/dev/null | wc -l; id -u\"}",
	    g_tmp);
	sh("mkdir -p '%s/outside'", g_tmp);
	call_ok(&f, "bash", cmd, "exit 0\n1\n");
	/* files made on the host side show inside */
	char hp[800];
	snprintf(hp, sizeof hp, "%s/host.txt", g_root);
	FILE *fp = fopen(hp, "w");
	fputs("from host\n", fp);
	fclose(fp);
	call_ok(&f, "read", "{\"path\":\"host.txt\"}", "     1\tfrom host\n");
	call_ok(&f, "read", "{\"path\":\"/workspace/host.txt\"}", "from host");
	fx_close(&f);
}
END_TEST

START_TEST(escape_bwrap)
{
	fx f;
	if (!fx_open(&f, BK_BWRAP, NULL, NULL, NULL))
		return;
	escape_layout();
	if (geteuid() == 0)
		sh("chown -R 65534:65534 '%s'", g_root);
	/* inside the sandbox the root is /workspace: absolute host paths
	 * of the corpus are simply outside it */
	escape_corpus(f.b, "bwrap");
	locus_error err;
	char *data;
	size_t len;
	ck_assert_int_eq(f.b->read(f.b, "link_in/b.txt", &data, &len, &err), 0);
	ck_assert_str_eq(data, "b\n");
	free(data);
	ck_assert_int_eq(f.b->write(f.b, "link_in/w.txt", "w", 1, &err), 0);
	char p[800];
	snprintf(p, sizeof p, "%s/sub/w.txt", g_root);
	data = slurp(p, NULL);
	ck_assert_str_eq(data, "w");
	free(data);
	fx_close(&f);
}
END_TEST

START_TEST(bwrap_kill_no_orphan)
{
	fx f;
	if (!fx_open(&f, BK_BWRAP, NULL, NULL, NULL))
		return;
	call_ok(&f, "bash",
	        "{\"command\":\"sleep 4720.1 & sleep 4720.2\","
	        "\"background\":true}",
	        "sh1");
	/* host view (each command has a pid namespace of its own, so a ps
	 * inside the sandbox sees only itself): the sleeps exist */
	for (int i = 0; i < 1500 && !host_sleep_alive_once("4720.2"); i++)
		usleep(20000);
	ck_assert(host_sleep_alive_once("4720.1"));
	ck_assert(host_sleep_alive_once("4720.2"));
	call_ok(&f, "kill_shell", "{\"handle\":\"sh1\"}",
	        "sh1 killed (exit 137)");
	ck_assert(!host_sleep_alive("4720.1"));
	ck_assert(!host_sleep_alive("4720.2"));
	/* kill on timeout: the group goes too */
	call_err(&f, "bash",
	         "{\"command\":\"sleep 4720.3 & sleep 4720.4\",\"timeout\":1,"
	         "\"on_timeout\":\"kill\"}",
	         "killed");
	ck_assert(!host_sleep_alive("4720.3"));
	ck_assert(!host_sleep_alive("4720.4"));
	fx_close(&f);
}
END_TEST

static bool approve_none(const char *t, const char *a, size_t len,
                         const char *r, void *p)
{
	(void)t;
	ck_assert_uint_eq(strlen(a), len);
	(void)r;
	(*(int *)p)++;
	return false;
}

/* The policy engine as the wrap: refused calls run nothing. */
START_TEST(policy_gate_wrap)
{
	locus_policy *pol;
	locus_error err;
	ck_assert_int_eq(locus_policy_preset(&pol, "standard", &err), 0);
	int asked = 0;
	locus_policy_wrap w = LOCUS_POLICY_WRAP_INIT;
	w.policy = pol;
	w.approve = approve_none;
	w.payload = &asked;
	fx f;
	if (!fx_open(&f, _i, NULL, locus_harness_policy_wrap, &w)) {
		locus_policy_free(pol);
		return;
	}
	ck_assert_int_eq(f.rec.warnings, 0);
	put(&f, "build/keep.txt", "k\n");
	/* .git keeps it on the floor (rm -rf build alone is
	   held, not denied) */
	call_err(&f, "bash", "{\"command\":\"rm -rf build .git\"}",
	         "{\"status\":\"denied\",\"outcome\":\"deny\"");
	expect_file(&f, "build/keep.txt", "k\n");
	call_err(&f, "bash",
	         "{\"command\":\"curl -s http://example.test > got.txt\"}",
	         "{\"status\":\"held_for_approval\","
	         "\"outcome\":\"require_human\"");
	ck_assert_int_eq(asked, 1);
	expect_file(&f, "got.txt", NULL);
	ck_assert_int_eq(f.rec.execs, 0);
	call_ok(&f, "bash", "{\"command\":\"echo fine > fine.txt\"}", "exit 0");
	expect_file(&f, "fine.txt", "fine\n");
	call_ok(&f, "write", "{\"path\":\"w.txt\",\"content\":\"w\"}",
	        "Created");
	call_ok(&f, "read", "{\"path\":\"w.txt\"}", "w");
	/* no policy: fail closed */
	locus_policy_wrap none = LOCUS_POLICY_WRAP_INIT;
	char *r = locus_harness_policy_wrap("read", JS("{}"), &none);
	ck_assert_ptr_nonnull(r);
	free(r);
	/* a wrap payload of an unknown version refuses */
	locus_policy_wrap old = {0};
	old.policy = pol;
	r = locus_harness_policy_wrap("read", JS("{\"path\":\"w.txt\"}"), &old);
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(strstr(r, "unknown version"));
	free(r);
	/* (ptr, len): the bytes past len are not read */
	r = locus_harness_policy_wrap("read", "{\"path\":\"w.txt\"}garbage", 16,
	                              &w);
	ck_assert_ptr_null(r);
	fx_close(&f);
	locus_policy_free(pol);
}
END_TEST

static void count_decision(const char *j, void *p)
{
	(void)j;
	(*(int *)p)++;
}

/* A process that runs (a zombie nobody reaped yet does not). */
static bool alive(pid_t pid)
{
	return kill(pid, 0) == 0 && pid_alive_once(pid);
}

/* The pid a command wrote to `file` in the workspace, or 0. */
static pid_t pid_in(fx *f, const char *file)
{
	char *d = get(f, file);
	pid_t pid = d ? (pid_t)atoi(d) : 0;
	free(d);
	return pid;
}

/*
 * A timeout never turns a command into a background job the policy
 * refuses: under `standard` (exec:background held, nobody to approve) the
 * command is killed at its timeout, after the gate was re-asked with
 * background=true (an audited decision), and nothing of it lives on.
 * Under `permissive` the same call is kept as a handle.
 */
START_TEST(policy_timeout_no_background)
{
	locus_policy *pol;
	locus_error err;
	ck_assert_int_eq(locus_policy_preset(&pol, "standard", &err), 0);
	int decisions = 0;
	locus_policy_wrap w = LOCUS_POLICY_WRAP_INIT;
	w.policy = pol;
	w.on_decision = count_decision;
	w.payload = &decisions;
	fx f;
	if (!fx_open(&f, BK_LOCAL, NULL, locus_harness_policy_wrap, &w)) {
		locus_policy_free(pol);
		return;
	}
	char *frag = fx_prompt(f.h);
	ck_assert_msg(strstr(frag, "does not allow background") &&
	                  !strstr(frag, "with background=true and read"),
	              "%s", frag);
	free(frag);
	call_err(&f, "bash",
	         "{\"command\":\"echo $$ > pid.txt; exec sleep 3000\","
	         "\"timeout\":1}",
	         "timed out after 1s; the command was killed: the policy does "
	         "not let it go on in the background (exec:background)");
	ck_assert_int_eq(decisions, 2); /* the call, then the re-ask */
	ck_assert(f.rec.last.timed_out && !f.rec.last.background);
	pid_t pid = pid_in(&f, "pid.txt");
	ck_assert_int_gt(pid, 0);
	ck_assert_msg(kill(pid, 0) == -1 && errno == ESRCH,
	              "pid %d still alive", (int)pid);
	/* on_timeout=background asked explicitly: the same */
	call_err(&f, "bash",
	         "{\"command\":\"sleep 30\",\"timeout\":1,"
	         "\"on_timeout\":\"background\"}",
	         "exec:background");
	/* the killed jobs are over (their handles were never given out) */
	call_ok(&f, "bash_output", "{\"handle\":\"sh2\"}", "sh2: exited");
	/* a command that ends in time is not asked about twice */
	decisions = 0;
	call_ok(&f, "bash", "{\"command\":\"true\"}", "exit 0");
	ck_assert_int_eq(decisions, 1);
	fx_close(&f);
	locus_policy_free(pol);

	ck_assert_int_eq(locus_policy_preset(&pol, "permissive", &err), 0);
	w.policy = pol;
	if (!fx_open(&f, BK_LOCAL, NULL, locus_harness_policy_wrap, &w)) {
		locus_policy_free(pol);
		return;
	}
	frag = fx_prompt(f.h);
	ck_assert_msg(strstr(frag, "with background=true"), "%s", frag);
	free(frag);
	call_ok(&f, "bash",
	        "{\"command\":\"echo $$ > pid.txt; exec sleep 30\","
	        "\"timeout\":1}",
	        "still running as sh1");
	pid = pid_in(&f, "pid.txt");
	ck_assert_int_eq(kill(pid, 0), 0);
	call_ok(&f, "kill_shell", "{\"handle\":\"sh1\"}", "sh1 killed");
	fx_close(&f);
	locus_policy_free(pol);
}
END_TEST

/* Cancel once the command is under way: every file in `files` (in the
   workspace) holds a whole line and every `sleep ARG` of `sleeps` runs
   (host view).  Polled with a 30 s deadline; `seen` says whether all came
   (the test asserts it), and the cancel comes either way, so nothing
   hangs. */
typedef struct cancel_after {
	locus_call_ctl *ctl;
	const char *files[2];
	const char *sleeps[3];
	bool seen;
} cancel_after;

static bool cancel_ready(const cancel_after *c)
{
	for (size_t k = 0; k < 2 && c->files[k]; k++) {
		char p[800];
		snprintf(p, sizeof p, "%s/%s", g_root, c->files[k]);
		char *d = slurp(p, NULL);
		bool whole = d && *d && d[strlen(d) - 1] == '\n';
		free(d);
		if (!whole)
			return false;
	}
	for (size_t k = 0; k < 3 && c->sleeps[k]; k++)
		if (!host_sleep_alive_once(c->sleeps[k]))
			return false;
	return true;
}

static void *cancel_thread(void *p)
{
	cancel_after *c = p;
	for (int i = 0; i < 3000 && !c->seen; i++) {
		c->seen = cancel_ready(c);
		if (!c->seen)
			usleep(10000);
	}
	locus_call_cancel(c->ctl);
	return NULL;
}

/* Progress comes at most once a second: never before the call's first
   second and never within a second of the one before (lower bounds only:
   a loaded machine makes gaps longer, never shorter).  `last` is reset
   for each call. */
typedef struct progress_count {
	int n;
	double last;
} progress_count;

static void count_progress(double elapsed, size_t bytes, void *p)
{
	progress_count *c = p;
	c->n++;
	ck_assert_msg(elapsed >= 0.99 && elapsed - c->last >= 0.99,
	              "progress at %.3f s, the one before at %.3f s", elapsed,
	              c->last);
	c->last = elapsed;
	(void)bytes;
}

/* locus_harness_call_ctl: a running command is killed on cancel (its whole
   group), a cancelled write writes nothing, progress comes once a second. */
START_TEST(call_ctl_cancel_progress)
{
	fx f;
	if (!fx_open(&f, BK_LOCAL, NULL, NULL, NULL))
		return;
	progress_count progress = {0, 0};
	locus_call_ctl ctl = LOCUS_CALL_CTL_INIT;
	ctl.progress = count_progress;
	ctl.payload = &progress;
	char *out = NULL;
	bool e = false;
	locus_error err = {0};
	/* progress: a 2.5 s command reports (how often depends on the load:
	   count_progress checks none comes early) */
	ck_assert_int_eq(locus_harness_call_ctl(
	                     &out, &e, f.h, "bash",
	                     JS("{\"command\":\"echo a; sleep 2.5; echo b\"}"),
	                     &ctl, &err),
	                 0);
	ck_assert_msg(!e && strstr(out, "exit 0\na\nb\n"), "%s", out);
	free(out);
	ck_assert_msg(progress.n >= 1, "%d", progress.n);
	progress.last = 0;
	/* cancel a running command: it and its background child die */
	cancel_after c = {&ctl, {"pid.txt", "kid.txt"}, {NULL}, false};
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, cancel_thread, &c), 0);
	ck_assert_int_eq(
	    locus_harness_call_ctl(&out, &e, f.h, "bash",
	                           JS("{\"command\":\"sleep 3000 & echo $! > "
	                              "kid.txt; echo $$ > pid.txt; wait\"}"),
	                           &ctl, &err),
	    0);
	pthread_join(th, NULL);
	ck_assert_msg(c.seen, "the command never got under way");
	ck_assert_msg(e && strstr(out, "cancelled"), "%s", out);
	free(out);
	pid_t pid = pid_in(&f, "pid.txt"), kid = pid_in(&f, "kid.txt");
	ck_assert(pid > 0 && kid > 0);
	ck_assert(!alive(pid));
	ck_assert_msg(group_gone(pid), "the group of %d lives on", (int)pid);
	ck_assert_msg(!alive(kid), "the group's child %d lives on", (int)kid);
	/* cancelled before it starts: nothing runs, nothing is written */
	ck_assert_int_eq(
	    locus_harness_call_ctl(&out, &e, f.h, "write",
	                           JS("{\"path\":\"n.txt\",\"content\":\"x\"}"),
	                           &ctl, &err),
	    0);
	ck_assert_msg(e && strstr(out, "cancelled"), "%s", out);
	free(out);
	expect_file(&f, "n.txt", NULL);
	ck_assert(locus_call_cancelled(&ctl) && !locus_call_cancelled(NULL));
	/* a NULL ctl is a plain call */
	ck_assert_int_eq(
	    locus_harness_call_ctl(&out, &e, f.h, "write",
	                           JS("{\"path\":\"n.txt\",\"content\":\"x\"}"),
	                           NULL, &err),
	    0);
	ck_assert_msg(!e, "%s", out);
	free(out);
	expect_file(&f, "n.txt", "x");
	fx_close(&f);
}
END_TEST

/* Cancelling a running command kills its whole tree, escapees that
   cleared their environment included, on Local and on bwrap (the
   SessionBackend's exec_ctl); progress comes while it runs. */
START_TEST(call_ctl_cancel_tree)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	progress_count progress = {0, 0};
	locus_call_ctl ctl = LOCUS_CALL_CTL_INIT;
	ctl.progress = count_progress;
	ctl.payload = &progress;
	char *out = NULL;
	bool e = false;
	locus_error err = {0};
	ck_assert_int_eq(
	    locus_harness_call_ctl(&out, &e, f.h, "bash",
	                           JS("{\"command\":\"echo a; sleep 1.5; "
	                              "echo b\"}"),
	                           &ctl, &err),
	    0);
	ck_assert_msg(!e && strstr(out, "exit 0\na\nb\n"), "%s", out);
	free(out);
	ck_assert_msg(progress.n >= 1, "%d", progress.n);
	progress.last = 0;
	char arg[3][32];
	for (int k = 0; k < 3; k++)
		snprintf(arg[k], sizeof arg[k], "47%02d.%d%d",
		         (int)getpid() % 100, _i, k);
	char cmd[512];
	snprintf(cmd, sizeof cmd,
	         "{\"command\":\"env -i setsid sleep %s >/dev/null 2>&1 & "
	         "(sleep %s >/dev/null 2>&1 &); sleep %s\"}",
	         arg[0], arg[1], arg[2]);
	cancel_after c = {&ctl, {NULL}, {arg[0], arg[1], arg[2]}, false};
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, cancel_thread, &c), 0);
	ck_assert_int_eq(locus_harness_call_ctl(&out, &e, f.h, "bash", cmd,
	                                        strlen(cmd), &ctl, &err),
	                 0);
	pthread_join(th, NULL);
	ck_assert_msg(c.seen, "the three sleeps never all ran (%s)",
	              bk_names[_i]);
	ck_assert_msg(e && strstr(out, "cancelled"), "%s", out);
	free(out);
	for (int k = 0; k < 3; k++)
		ck_assert_msg(!host_sleep_alive(arg[k]), "%s lives on (%s)",
		              arg[k], bk_names[_i]);
	fx_close(&f);
}
END_TEST

/* `locus tool`: one harness for the whole run, through the gate. */
/* `locus tool` (default preset standard): a timeout is no way into the
   background either. */
START_TEST(cli_tool_timeout_no_background)
{
	const char *bin = getenv("LOCUS_BIN");
	ck_assert_msg(bin && !access(bin, X_OK),
	              "LOCUS_BIN not set: run through meson test");
	mk_tmp();
	char cmd[2048];
	snprintf(cmd, sizeof cmd,
	         "'%s' tool bash '{\"command\":\"echo $$ > p.txt; exec sleep "
	         "3000\",\"timeout\":1}' --backend local --root '%s' > "
	         "'%s/out.txt'; echo $? >> "
	         "'%s/out.txt'",
	         bin, g_root, g_tmp, g_tmp);
	ck_assert_int_eq(system(cmd), 0);
	char p[800];
	snprintf(p, sizeof p, "%s/out.txt", g_tmp);
	char *o = slurp(p, NULL);
	ck_assert_msg(strstr(o, "the command was killed") &&
	                  strstr(o, "exec:background") && strstr(o, "\n1\n"),
	              "%s", o);
	free(o);
	snprintf(p, sizeof p, "%s/p.txt", g_root);
	o = slurp(p, NULL);
	pid_t pid = o ? (pid_t)atoi(o) : 0;
	free(o);
	ck_assert(pid > 0 && !alive(pid));
	rm_tmp();
}
END_TEST

/* `locus tool NAME ARGS`: the arguments exactly as given, read strictly;
   a refusal is the tool's error (exit 1) and the command never runs. */
static int cli_tool_args(const char *bin, const char *args, char **out)
{
	char p[800], cmd[3000];
	snprintf(p, sizeof p, "%s/args.json", g_tmp);
	FILE *fp = fopen(p, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(args, fp);
	fclose(fp);
	snprintf(cmd, sizeof cmd,
	         "'%s' tool bash \"$(cat '%s')\" --backend local --root '%s' > "
	         "'%s/out.txt'",
	         bin, p, g_root, g_tmp);
	int st = system(cmd);
	snprintf(p, sizeof p, "%s/out.txt", g_tmp);
	*out = slurp(p, NULL);
	ck_assert_ptr_nonnull(*out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(cli_tool_args_strict)
{
	const char *bin = getenv("LOCUS_BIN");
	ck_assert_msg(bin && !access(bin, X_OK),
	              "LOCUS_BIN not set: run through meson test");
	mk_tmp();
	static const char *const bad[][2] = {
	    {"{\"command\":\"touch ran.txt\"} {}", "text after the JSON value"},
	    {"{\"command\":\"true\",\"command\":\"touch ran.txt\"}",
	     "repeat the key 'command'"},
	    {"{\"command\":\"touch ran.txt\xe2\x82\"}", "invalid UTF-8"},
	};
	char *o, p[800];
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ck_assert_int_eq(cli_tool_args(bin, bad[i][0], &o), 1);
		ck_assert_msg(strstr(o, bad[i][1]), "%s: %s", bad[i][0], o);
		free(o);
		snprintf(p, sizeof p, "%s/ran.txt", g_root);
		ck_assert_int_ne(access(p, F_OK), 0);
	}
	/* the control: well formed, the same command runs */
	ck_assert_int_eq(
	    cli_tool_args(bin, "{\"command\":\"touch ran.txt\"}", &o), 0);
	free(o);
	ck_assert_int_eq(access(p, F_OK), 0);
	rm_tmp();
}
END_TEST

START_TEST(cli_tool_lines)
{
	const char *bin = getenv("LOCUS_BIN");
	ck_assert_msg(bin && !access(bin, X_OK),
	              "LOCUS_BIN not set: run through meson test");
	mk_tmp();
	char cmd[2048];
	snprintf(
	    cmd, sizeof cmd,
	    "printf '%%s\\n' "
	    "'{\"tool\":\"write\",\"arguments\":{\"path\":\"a.txt\","
	    "\"content\":\"x\\n\"}}' "
	    "'{\"tool\":\"edit\",\"arguments\":{\"path\":\"a.txt\",\"old\":"
	    "\"x\",\"new\":\"y\"}}' "
	    "'{\"tool\":\"bash\",\"arguments\":{\"command\":\"rm -rf "
	    "a.txt .git\"}}' "
	    "'{\"tool\":\"read\",\"arguments\":{\"path\":\"a.txt\"}}' "
	    "| '%s' tool - --backend local --root '%s' > '%s/out.txt'; echo $? "
	    ">> '%s/out.txt'",
	    bin, g_root, g_tmp, g_tmp);
	ck_assert_int_eq(system(cmd), 0);
	char p[800];
	snprintf(p, sizeof p, "%s/out.txt", g_tmp);
	char *o = slurp(p, NULL);
	ck_assert_ptr_nonnull(
	    strstr(o, "\"output\":\"Created a.txt (2 bytes)\\n\""));
	ck_assert_ptr_nonnull(
	    strstr(o, "\"output\":\"Updated a.txt (2 bytes)\\n\""));
	ck_assert_ptr_nonnull(strstr(
	    o,
	    "\"is_error\":true,\"output\":\"{\\\"status\\\":\\\"denied\\\""));
	ck_assert_ptr_nonnull(strstr(o, "\"output\":\"     1\\ty\\n\"}\n1\n"));
	free(o);
	rm_tmp();
}
END_TEST

static char *store_it(const char *data, size_t len, void *p)
{
	recorder *r = p;
	r->changes = (int)len; /* reuse: the stored length */
	(void)data;
	return strdup("res-1");
}

/* Config: a small output cap, the result store, kill on timeout. */
START_TEST(config_store_kill)
{
	mk_tmp();
	locus_backend *b;
	locus_error err;
	ck_assert_int_eq(locus_backend_local_new(&b, g_root, NULL, &err), 0);
	recorder rec = {0};
	locus_harness_config cfg = LOCUS_HARNESS_CONFIG_INIT;
	cfg.output_chars = 100;
	cfg.output_head_chars = 40;
	cfg.on_timeout_kill = true;
	cfg.bash_timeout = 1;
	cfg.result_store = store_it;
	cfg.on_exec = rec_exec;
	cfg.payload = &rec;
	locus_harness *h;
	ck_assert_int_eq(locus_harness_new(&h, b, NULL, NULL, NULL, &cfg, &err),
	                 0);
	char *o;
	bool e;
	ck_assert_int_eq(locus_harness_call(&o, &e, h, "bash",
	                                    JS("{\"command\":\"seq 1 1000\"}"),
	                                    &err),
	                 0);
	ck_assert(!e);
	ck_assert_ptr_nonnull(
	    strstr(o, "characters truncated from the middle"));
	ck_assert_ptr_nonnull(strstr(o, "[full output stored as res-1]"));
	ck_assert_ptr_nonnull(strstr(o, "\n1000\n"));
	ck_assert_int_eq(rec.changes, 3893); /* bytes of seq 1 1000 */
	free(o);
	ck_assert_int_eq(locus_harness_call(&o, &e, h, "bash",
	                                    JS("{\"command\":\"sleep 20\"}"),
	                                    &err),
	                 0);
	ck_assert(e);
	ck_assert_ptr_nonnull(
	    strstr(o, "timed out after 1s; the command was killed"));
	free(o);
	char *pf = fx_prompt(h);
	ck_assert_ptr_nonnull(strstr(pf, "bash waits 1s by default"));
	free(pf);
	locus_harness_free(h);
	locus_backend_free(b);
	rm_tmp();
}
END_TEST

/* ---------------- main ---------------- */

/* Local, memory and bwrap (host processes), and the CLI. */
static Suite *host_suite(void)
{
	Suite *s = suite_create("harness");
	TCase *tc = tcase_create("backends");
	tcase_set_timeout(tc, CASE_TIMEOUT);
	tcase_add_test(tc, harness_api_contract);
	tcase_add_test(tc, escape_local_openat2);
	tcase_add_test(tc, escape_local_manual);
	tcase_add_test(tc, local_exec_basic);
	tcase_add_test(tc, local_timeout_kills_group);
	tcase_add_test(tc, local_background_fifo_kill);
	tcase_add_test(tc, local_keep_on_timeout);
	tcase_add_test(tc, local_exec_threads_allocating);
	suite_add_tcase(s, tc);
	TCase *tt = tcase_create("tools");
	tcase_set_timeout(tt, CASE_TIMEOUT);
	tcase_add_loop_test(tt, tool_read, 0, BK_COUNT);
	tcase_add_loop_test(tt, tool_write_ledger, 0, BK_COUNT);
	tcase_add_loop_test(tt, tool_edit, 0, BK_COUNT);
	tcase_add_loop_test(tt, tool_multi_edit_atomic, 0, BK_COUNT);
	tcase_add_loop_test(tt, tool_apply_patch, 0, BK_COUNT);
	tcase_add_loop_test(tt, tool_notebook, 0, BK_COUNT);
	tcase_add_loop_test(tt, tool_ls_glob, 0, BK_COUNT);
	tcase_add_loop_test(tt, tool_grep, 0, BK_COUNT);
	tcase_add_loop_test(tt, tool_preview_todos, 0, BK_COUNT);
	tcase_add_loop_test(tt, tool_gate_refuses, 0, BK_COUNT);
	tcase_add_loop_test(tt, tool_args_strict, 0, BK_COUNT);
	/* shell tools: Local and bwrap */
	tcase_add_test(tt, tool_bash);
	tcase_add_test(tt, tool_bash_timeout_background);
	tcase_add_test(tt, policy_timeout_no_background);
	tcase_add_test(tt, call_ctl_cancel_progress);
	tcase_add_loop_test(tt, call_ctl_cancel_tree, BK_LOCAL, BK_LOCAL + 1);
	tcase_add_loop_test(tt, call_ctl_cancel_tree, BK_BWRAP, BK_BWRAP + 1);
	tcase_add_test(tt, cli_tool_timeout_no_background);
	tcase_add_loop_test(tt, tool_bash, BK_BWRAP, BK_BWRAP + 1);
	tcase_add_loop_test(tt, tool_bash_timeout_background, BK_BWRAP,
	                    BK_BWRAP + 1);
	tcase_add_test(tt, harness_build);
	tcase_add_test(tt, config_store_kill);
	tcase_add_test(tt, cli_tool_lines);
	tcase_add_test(tt, cli_tool_args_strict);
	tcase_add_test(tt, policy_gate_wrap);
	tcase_add_loop_test(tt, policy_gate_wrap, BK_BWRAP, BK_BWRAP + 1);
	tcase_add_test(tt, bwrap_isolation);
	tcase_add_test(tt, escape_bwrap);
	tcase_add_test(tt, bwrap_kill_no_orphan);
	tcase_add_test(tt, hostile_inputs);
	suite_add_tcase(s, tt);
	return s;
}

/* Every tool over remote backends [from, to): the OCI backend against
   its strict fake, or OpenShell over h2c and mTLS against its fake
   gateway. */
static Suite *remote_suite(const char *name, int from, int to)
{
	const TTest *const checks[] = {
	    tool_read,          tool_write_ledger,
	    tool_edit,          tool_multi_edit_atomic,
	    tool_apply_patch,   tool_notebook,
	    tool_ls_glob,       tool_grep,
	    tool_preview_todos, tool_gate_refuses,
	    tool_bash,          tool_bash_timeout_background,
	    policy_gate_wrap,
	};
	Suite *s = suite_create(name);
	TCase *tt = tcase_create("tools");
	tcase_set_timeout(tt, CASE_TIMEOUT);
	for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
		tcase_add_loop_test(tt, checks[i], from, to);
	suite_add_tcase(s, tt);
	return s;
}

/*
 * Three groups, one meson test each (tests/meson.build): `host`, `oci`
 * and `openshell`; no argument runs all three.  Each group has its own
 * bound: the whole suite, which mostly waits on processes (175 s here, 50 s
 * of it CPU), once took past 1,200 s on a CI machine.
 */
int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "all";
	bool all = !strcmp(which, "all");
	if (!all && strcmp(which, "host") && strcmp(which, "oci") &&
	    strcmp(which, "openshell")) {
		fprintf(stderr, "test_harness: unknown group %s\n", which);
		return 2;
	}
	SRunner *sr = srunner_create(NULL);
	if (all || !strcmp(which, "host"))
		srunner_add_suite(sr, host_suite());
	if (all || !strcmp(which, "oci"))
		srunner_add_suite(
		    sr, remote_suite("harness-oci", BK_OCI, BK_OCI + 1));
	if (all || !strcmp(which, "openshell"))
		srunner_add_suite(sr, remote_suite("harness-openshell",
		                                   BK_OS_H2C, BK_OS_END));
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return test_exit(failed);
}
