/*
 * tests/harness_fx.h - fixtures shared by the harness suites: a per-test
 * mkdtemp scratch folder, shell set-up, and a harness over one of the
 * backends (Local, Memory, bwrap, OpenShell over h2c and over mTLS against
 * the fake gateway; bwrap and OpenShell reported as skipped, never as
 * passed, when they cannot run here).
 */
#ifndef LOCUS_TEST_HARNESS_FX_H
#define LOCUS_TEST_HARNESS_FX_H

#define _GNU_SOURCE
#include <check.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/internal.h"
#include "locus/harness.h"
#include "locus/labels.h"
#include "locus/policy.h"
#include "oci_fixture.h"
#include "openshell_fx.h"
#include "skip.h"

/* A string literal as the (ptr, len) pair the harness API takes. */
#define JS(lit) (lit), (sizeof(lit) - 1)

/* The prompt fragment, which must be made (freed with locus_free). */
static inline char *fx_prompt(const locus_harness *h)
{
	char *pf = NULL;
	ck_assert_int_eq(locus_harness_prompt_fragment(&pf, h), 0);
	ck_assert_ptr_nonnull(pf);
	return pf;
}

/* ---------------- fixtures ---------------- */

static char g_tmp[512];  /* per-test scratch: T */
static char g_root[600]; /* T/ws */

__attribute__((format(printf, 1, 2))) static inline void sh(const char *fmt,
                                                            ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	ck_assert_msg(rc == 0, "setup failed: %s", cmd);
}

static inline void mk_tmp(void)
{
	/* Check forks a process per test and the subreaper bit is not
	 * inherited: killed groups' members are re-parented to us, and we
	 * reap them so "no process left" sees absence, not zombies */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	snprintf(g_tmp, sizeof g_tmp, "/tmp/locus-ht-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(g_tmp));
	snprintf(g_root, sizeof g_root, "%s/ws", g_tmp);
	ck_assert_int_eq(mkdir(g_root, 0755), 0);
}

static inline void rm_tmp(void)
{
	if (g_tmp[0]) {
		char cmd[700];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
		(void)system(cmd);
	}
}

static inline char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	lu_buf b = {0};
	char tmp[4096];
	size_t r;
	while ((r = fread(tmp, 1, sizeof tmp, f)) > 0)
		lu_buf_add(&b, tmp, r);
	fclose(f);
	if (len)
		*len = b.len;
	return lu_buf_take(&b);
}

/* Reap whatever the killed groups left to us (we are their subreaper). */
static inline void reap(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* The group is gone: polled for at most 30 s, a hang guard (a killed
   tree takes a moment to go on a loaded machine). */
static inline bool group_gone(pid_t pgid)
{
	for (int i = 0; i < 3000; i++) {
		reap();
		if (kill(-pgid, 0) == -1 && errno == ESRCH)
			return true;
		usleep(10000);
	}
	return false;
}

/* Alive right now (a zombie is not)? */
static inline bool pid_alive_once(pid_t p)
{
	char path[64], st[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)p);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return false;
	size_t n = fread(st, 1, sizeof st - 1, fp);
	fclose(fp);
	st[n] = '\0';
	char *c = strrchr(st, ')');
	return !(c && c[1] == ' ' && (c[2] == 'Z' || c[2] == 'X'));
}

/* Host view, once: is a process with the command line `sleep ARG` alive? */
static inline bool host_sleep_alive_once(const char *arg)
{
	char want[64];
	int wl = snprintf(want, sizeof want, "sleep%c%s", '\0', arg) + 1;
	bool found = false;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		char p[300], buf[128];
		snprintf(p, sizeof p, "/proc/%s/cmdline", e->d_name);
		FILE *fp = fopen(p, "r");
		size_t n = fp ? fread(buf, 1, sizeof buf, fp) : 0;
		if (fp)
			fclose(fp);
		found = n == (size_t)wl && !memcmp(buf, want, n) &&
		        pid_alive_once(atoi(e->d_name));
	}
	if (d)
		closedir(d);
	return found;
}

/* Host view: is a `sleep ARG` still alive after up to 30 s?  (A killed
   tree takes a moment to go; the wait is a hang guard, it ends as soon as
   the process is gone.) */
static inline bool host_sleep_alive(const char *arg)
{
	for (int i = 0; i < 3000; i++) {
		reap();
		if (!host_sleep_alive_once(arg))
			return false;
		usleep(10000);
	}
	return true;
}

/* BK_OCI (the strict OCI fake, tests/oci_fixture.h) and the OpenShell
   kinds (the strict fake gateway, tests/openshell_fx.h, over h2c and over
   mTLS with a token) are outside the 0..BK_COUNT loops: suites add them
   per test. */
enum {
	BK_LOCAL,
	BK_MEMORY,
	BK_BWRAP,
	BK_COUNT,
	BK_OCI = BK_COUNT,
	BK_OS_H2C,
	BK_OS_MTLS,
	BK_OS_END
};
static const char *const bk_names[] = {
    "local", "memory", "bwrap", "oci", "openshell-h2c", "openshell-mtls"};

static int bwrap_state = -1; /* -1 unknown, 0 cannot, 1 can */

static inline bool bwrap_works(void)
{
	if (bwrap_state < 0)
		bwrap_state = system("bwrap --unshare-all --die-with-parent "
		                     "--ro-bind / / true >/dev/null 2>&1") == 0;
	return bwrap_state == 1;
}

typedef struct recorder {
	int execs;
	locus_exec_record last;
	int warnings;
	char warning[256];
	int changes;
} recorder;

static inline void rec_exec(const locus_exec_record *r, void *p)
{
	recorder *rc = p;
	rc->execs++;
	rc->last = *r;
}

static inline void rec_warn(const char *m, void *p)
{
	recorder *rc = p;
	rc->warnings++;
	snprintf(rc->warning, sizeof rc->warning, "%s", m);
}

static inline void rec_change(const char *path, void *p)
{
	(void)path;
	((recorder *)p)->changes++;
}

typedef struct fx {
	int kind;
	fake_proc os; /* the OpenShell kinds' fake gateway */
	locus_backend *b;
	locus_harness *h;
	recorder rec;
	locus_harness_config cfg;
} fx;

/* false: this backend cannot run here (reported, not counted as a pass) */
static inline bool fx_open(fx *f, int kind, const char *const *tools,
                           locus_wrap_fn wrap, void *wp)
{
	memset(f, 0, sizeof *f);
	f->kind = kind;
	mk_tmp();
	locus_error err = {0};
	int rc;
	if (kind == BK_LOCAL) {
		rc = locus_backend_local_new(&f->b, g_root, NULL, &err);
	} else if (kind == BK_MEMORY) {
		rc = locus_backend_memory_new(&f->b, &err);
	} else if (kind == BK_OCI) {
		rc = fx_oci_open(&f->b, &err);
	} else if (kind == BK_OS_H2C || kind == BK_OS_MTLS) {
		if (!os_fx_works()) {
			test_skip("the fake OpenShell gateway cannot run here");
			rm_tmp();
			return false;
		}
		rc = os_fx_open(&f->os, kind == BK_OS_MTLS, g_root, g_tmp,
		                &f->b, &err);
	} else {
		if (!bwrap_works()) {
			test_skip("bwrap cannot create namespaces here");
			rm_tmp();
			return false;
		}
		locus_session *s;
		/* as root the sandbox runs as nobody: the workspace is
		 * theirs (never host uid 0 in the sandbox) */
		if (geteuid() == 0)
			sh("chown 65534:65534 '%s'", g_root);
		rc = locus_session_bwrap_new(&s, g_root, &err);
		if (!rc)
			rc = locus_backend_session_new(&f->b, s, "/workspace",
			                               "bwrap sandbox", true,
			                               &err);
	}
	ck_assert_msg(rc == 0, "%s backend: %s", bk_names[kind], err.message);
	locus_harness_config def = LOCUS_HARNESS_CONFIG_INIT;
	f->cfg = def;
	f->cfg.on_exec = rec_exec;
	f->cfg.on_warning = rec_warn;
	f->cfg.on_change = rec_change;
	f->cfg.payload = &f->rec;
	static const char *const all_but_shell[] = {
	    "read",          "ls",         "glob",      "grep",
	    "edit",          "multi_edit", "write",     "apply_patch",
	    "notebook_edit", "todo_write", "todo_read", NULL};
	if (!tools)
		tools = f->b->can_exec ? locus_all_tools : all_but_shell;
	rc = locus_harness_new(&f->h, f->b, tools, wrap, wp, &f->cfg, &err);
	ck_assert_msg(rc == 0, "harness: %s", err.message);
	return true;
}

static inline void fx_close(fx *f)
{
	locus_harness_free(f->h);
	locus_backend_free(f->b);
	if (f->kind == BK_OCI)
		fx_oci_close();
	fake_stop(&f->os);
	rm_tmp();
}

static inline void put(fx *f, const char *path, const char *data)
{
	locus_error err = {0};
	ck_assert_msg(f->b->write(f->b, path, data, strlen(data), &err) == 0,
	              "put %s: %s", path, err.message);
}

static inline char *get(fx *f, const char *path)
{
	char *d = NULL;
	size_t len;
	locus_error err;
	if (f->b->read(f->b, path, &d, &len, &err))
		return NULL;
	return d;
}

/* Call a tool; returns its text (caller frees), *is_err its flag. */
static inline char *call(fx *f, const char *tool, const char *args,
                         bool *is_err)
{
	char *out = NULL;
	bool e = true;
	locus_error err = {0};
	int rc =
	    locus_harness_call(&out, &e, f->h, tool, args, strlen(args), &err);
	ck_assert_msg(rc == 0, "%s: rc %d %s", tool, rc, err.message);
	ck_assert_ptr_nonnull(out);
	if (is_err)
		*is_err = e;
	return out;
}

static inline void call_ok(fx *f, const char *tool, const char *args,
                           const char *want_sub)
{
	bool e;
	char *o = call(f, tool, args, &e);
	ck_assert_msg(!e, "%s %s failed: %s", tool, args, o);
	if (want_sub)
		ck_assert_msg(strstr(o, want_sub), "%s %s: no '%s' in:\n%s",
		              tool, args, want_sub, o);
	free(o);
}

static inline void call_err(fx *f, const char *tool, const char *args,
                            const char *want_sub)
{
	bool e;
	char *o = call(f, tool, args, &e);
	ck_assert_msg(e, "%s %s should fail: %s", tool, args, o);
	if (want_sub)
		ck_assert_msg(strstr(o, want_sub), "%s %s: no '%s' in:\n%s",
		              tool, args, want_sub, o);
	free(o);
}

static inline void expect_file(fx *f, const char *path, const char *want)
{
	char *d = get(f, path);
	if (!want) {
		ck_assert_msg(d == NULL, "%s should not exist", path);
		return;
	}
	ck_assert_msg(d != NULL, "%s missing", path);
	ck_assert_msg(!strcmp(d, want), "%s is\n%s\nnot\n%s", path, d, want);
	free(d);
}

#endif
