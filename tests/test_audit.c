/*
 * tests/test_audit.c - the hash-chained audit trail: append, verify,
 * tampering, torn lines, concurrent appenders.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "locus/policy.h"
#include "run_locus.h"

static char tmpl[64];

static const char *tmpfile_path(void)
{
	snprintf(tmpl, sizeof(tmpl), "/tmp/locus-audit-XXXXXX");
	int fd = mkstemp(tmpl);
	ck_assert_int_ge(fd, 0);
	close(fd);
	return tmpl;
}

static locus_decision *decision(const locus_policy *p, int i)
{
	char args[64];
	snprintf(args, sizeof(args), "{\"path\":\"file-%d.txt\"}", i);
	locus_decision *d = NULL;
	ck_assert_int_eq(locus_gate(&d, p, NULL, i % 2 ? "read" : "write", args,
	                            strlen(args), NULL, NULL),
	                 0);
	return d;
}

static void append_n(const char *path, const locus_policy *p, int n, int flags)
{
	locus_audit *a = NULL;
	locus_error err;
	ck_assert_int_eq(locus_audit_open(&a, path, flags, &err), 0);
	for (int i = 0; i < n; i++) {
		locus_decision *d = decision(p, i);
		ck_assert_int_eq(locus_audit_append(a, d, &err), 0);
		locus_decision_free(d);
	}
	locus_audit_close(a);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	b[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return b;
}

static void spit(const char *path, const char *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	ck_assert_uint_eq(fwrite(b, 1, n, f), n);
	fclose(f);
}

/* Offset of line `k` (1-based). */
static char *line_at(char *b, int k)
{
	for (int i = 1; i < k; i++)
		b = strchr(b, '\n') + 1;
	return b;
}

START_TEST(append_and_verify)
{
	locus_policy *p = NULL;
	locus_policy_preset(&p, "strict", NULL);
	const char *path = tmpfile_path();
	append_n(path, p, 5, LOCUS_AUDIT_FSYNC);
	size_t records = 9, bad = 9;
	locus_error err;
	ck_assert_int_eq(locus_audit_verify(&records, &bad, path, &err), 0);
	ck_assert_uint_eq(records, 5);
	ck_assert_uint_eq(bad, 0);
	/* reopen and continue the chain */
	append_n(path, p, 3, 0);
	ck_assert_int_eq(locus_audit_verify(&records, &bad, path, &err), 0);
	ck_assert_uint_eq(records, 8);
	/* each record carries what the spec asks */
	size_t n;
	char *b = slurp(path, &n);
	char *nl = strchr(b, '\n');
	*nl = '\0';
	cJSON *o = cJSON_Parse(b);
	ck_assert_ptr_nonnull(o);
	const char *keys[] = {
	    "seq",    "time",   "action",         "asset", "outcome", "reason",
	    "checks", "labels", "policy_version", "prev",  "hash"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		ck_assert_msg(cJSON_GetObjectItemCaseSensitive(o, keys[i]),
		              "missing %s", keys[i]);
	ck_assert_str_eq(
	    cJSON_GetObjectItemCaseSensitive(o, "policy_version")->valuestring,
	    "strict@3");
	ck_assert_str_eq(
	    cJSON_GetObjectItemCaseSensitive(o, "outcome")->valuestring,
	    "require_human");
	cJSON_Delete(o);
	free(b);
	unlink(path);
	locus_policy_free(p);
}
END_TEST

/* Change one byte of line k: verify names line k. */
START_TEST(tamper_is_named)
{
	locus_policy *p = NULL;
	locus_policy_preset(&p, "standard", NULL);
	const char *path = tmpfile_path();
	for (int k = 1; k <= 6; k++) {
		spit(path, "", 0);
		append_n(path, p, 6, 0);
		size_t n;
		char *b = slurp(path, &n);
		char *l = line_at(b, k);
		char *f = strstr(l, "file-");
		ck_assert_ptr_nonnull(f);
		f[5] = f[5] == '9' ? '8' : '9';
		spit(path, b, n);
		size_t bad = 0;
		locus_error err;
		ck_assert_int_eq(locus_audit_verify(NULL, &bad, path, &err),
		                 LOCUS_EINVALID);
		ck_assert_uint_eq(bad, (size_t)k);
		ck_assert_int_eq(err.line, k);
		free(b);
	}
	/* recomputing the line's own hash still breaks the next link */
	spit(path, "", 0);
	append_n(path, p, 3, 0);
	size_t n;
	char *b = slurp(path, &n);
	char *l2 = line_at(b, 2);
	char *l3 = line_at(b, 3);
	/* drop line 2: line 3's prev and seq no longer fit */
	memmove(l2, l3, strlen(l3) + 1);
	spit(path, b, strlen(b));
	size_t bad = 0;
	ck_assert_int_eq(locus_audit_verify(NULL, &bad, path, NULL),
	                 LOCUS_EINVALID);
	ck_assert_uint_eq(bad, 2);
	free(b);
	/* a torn last line */
	spit(path, "", 0);
	append_n(path, p, 2, 0);
	b = slurp(path, &n);
	spit(path, b, n - 10);
	ck_assert_int_eq(locus_audit_verify(NULL, &bad, path, NULL),
	                 LOCUS_EINVALID);
	ck_assert_uint_eq(bad, 2);
	/* and appending after it is refused: the chain cannot continue
	 * (the writer checks the end of the chain when it opens) */
	locus_audit *a = NULL;
	locus_error err;
	ck_assert_int_eq(locus_audit_open(&a, path, 0, &err), LOCUS_EINVALID);
	ck_assert_ptr_null(a);
	free(b);
	/* garbage lines */
	spit(path, "hello\n", 6);
	ck_assert_int_eq(locus_audit_verify(NULL, &bad, path, NULL),
	                 LOCUS_EINVALID);
	ck_assert_uint_eq(bad, 1);
	spit(path, "", 0);
	ck_assert_int_eq(locus_audit_verify(NULL, &bad, path, NULL), 0);
	ck_assert_int_eq(locus_audit_verify(NULL, &bad, "/nonexistent/x", &err),
	                 LOCUS_EIO);
	unlink(path);
	locus_policy_free(p);
}
END_TEST

/* N processes append M records each, each opening the file itself. */
START_TEST(concurrent_appends)
{
	enum { N = 8, M = 40 };
	locus_policy *p = NULL;
	locus_policy_preset(&p, "standard", NULL);
	const char *path = tmpfile_path();
	pid_t kids[N];
	for (int i = 0; i < N; i++) {
		kids[i] = fork();
		ck_assert_int_ge(kids[i], 0);
		if (kids[i] == 0) {
			locus_audit *a = NULL;
			if (locus_audit_open(&a, path, 0, NULL))
				_exit(3);
			for (int j = 0; j < M; j++) {
				locus_decision *d = decision(p, i * M + j);
				if (locus_audit_append(a, d, NULL))
					_exit(4);
				locus_decision_free(d);
			}
			locus_audit_close(a);
			_exit(0);
		}
	}
	for (int i = 0; i < N; i++) {
		int st = 0;
		waitpid(kids[i], &st, 0);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	size_t n;
	char *b = slurp(path, &n);
	size_t lines = 0;
	bool seen[N * M];
	memset(seen, 0, sizeof(seen));
	for (char *l = b, *nl; (nl = strchr(l, '\n')); l = nl + 1) {
		*nl = '\0';
		cJSON *o = cJSON_Parse(l);
		ck_assert_msg(o != NULL, "torn line %zu", lines + 1);
		const char *asset =
		    cJSON_GetObjectItemCaseSensitive(o, "asset")->valuestring;
		int id = atoi(asset + 5);
		ck_assert(id >= 0 && id < N * M && !seen[id]);
		seen[id] = true;
		cJSON_Delete(o);
		lines++;
		*nl = '\n';
	}
	ck_assert_uint_eq(lines, N * M);
	free(b);
	size_t records = 0, bad = 0;
	locus_error err;
	ck_assert_msg(locus_audit_verify(&records, &bad, path, &err) == 0, "%s",
	              err.message);
	ck_assert_uint_eq(records, N * M);
	unlink(path);
	locus_policy_free(p);
}
END_TEST

START_TEST(cli_verify)
{
	const char *bin = getenv("LOCUS_BIN");
	ck_assert_ptr_nonnull(bin);
	locus_policy *p = NULL;
	locus_policy_preset(&p, "standard", NULL);
	const char *path = tmpfile_path();
	append_n(path, p, 4, 0);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "%s audit verify %s >/dev/null", bin, path);
	int st = system(cmd);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	size_t n;
	char *b = slurp(path, &n);
	char *f = strstr(line_at(b, 3), "\"outcome\":\"");
	f[11] = 'X';
	spit(path, b, n);
	free(b);
	snprintf(cmd, sizeof(cmd), "%s audit verify %s", bin, path);
	char out[512] = "";
	st = run_sh(cmd, out, sizeof(out));
	ck_assert_int_eq(st, 1);
	ck_assert_msg(strstr(out, "line 3"), "%s", out);
	/* `locus gate --audit` writes a verifiable chain */
	spit(path, "", 0);
	snprintf(cmd, sizeof(cmd),
	         "printf '%%s\\n' '{\"tool\":\"read\",\"arguments\":{\"path\":"
	         "\"a\"}}' '{\"tool\":\"write\",\"arguments\":{\"path\":\"b\","
	         "\"content\":\"\"}}' | %s gate --audit %s >/dev/null && "
	         "%s audit verify %s",
	         bin, path, bin, path);
	st = run_sh(cmd, out, sizeof(out));
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strstr(out, "2 records"), "%s", out);
	unlink(path);
	locus_policy_free(p);
}
END_TEST

/* ---- an audit trail the agent cannot end silently ---- */

static locus_audit *open_opts(const char *path, const char *key, unsigned every)
{
	locus_audit_options o = LOCUS_AUDIT_OPTIONS_INIT;
	o.key_path = key;
	o.checkpoint_every = every;
	locus_audit *a = NULL;
	locus_error err = {0};
	ck_assert_msg(locus_audit_open_opts(&a, path, &o, &err) == 0, "%s",
	              err.message);
	return a;
}

static void add(locus_audit *a, const locus_policy *p, int i, int want)
{
	locus_decision *d = decision(p, i);
	locus_error err = {0};
	int rc = locus_audit_append(a, d, &err);
	ck_assert_msg(rc == want, "append: %d (%s), wanted %d", rc, err.message,
	              want);
	locus_decision_free(d);
}

static char g_key[64], g_key2[64];

static void make_keys(void)
{
	snprintf(g_key, sizeof(g_key), "/tmp/locus-akey-XXXXXX");
	int fd = mkstemp(g_key);
	ck_assert(write(fd, "0123456789abcdef-secret-key", 27) == 27);
	close(fd);
	snprintf(g_key2, sizeof(g_key2), "/tmp/locus-akey-XXXXXX");
	fd = mkstemp(g_key2);
	ck_assert(write(fd, "another-key-of-the-attacker", 27) == 27);
	close(fd);
}

/* `head -n1 audit.jsonl > t && mv t audit.jsonl` under a live writer. */
START_TEST(replaced_file_stops_the_writer)
{
	locus_policy *p = NULL;
	locus_policy_preset(&p, "standard", NULL);
	const char *path = tmpfile_path();
	unlink(path);
	locus_audit *a = open_opts(path, NULL, 0);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600); /* created 0600 */
	add(a, p, 1, 0);
	add(a, p, 2, 0);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "head -n1 %s > %s.t && mv %s.t %s", path,
	         path, path, path);
	ck_assert_int_eq(system(cmd), 0);
	add(a, p, 3, LOCUS_EINVALID); /* replaced: stop */
	add(a, p, 4, LOCUS_EINVALID); /* and it stays stopped */
	locus_audit_close(a);
	/* truncation and an in-place rewrite are caught the same way */
	spit(path, "", 0);
	a = open_opts(path, NULL, 0);
	add(a, p, 1, 0);
	add(a, p, 2, 0);
	ck_assert_int_eq(truncate(path, 0), 0);
	add(a, p, 3, LOCUS_EINVALID);
	locus_audit_close(a);
	spit(path, "", 0);
	a = open_opts(path, NULL, 0);
	add(a, p, 1, 0);
	add(a, p, 2, 0);
	size_t n;
	char *b = slurp(path, &n);
	char *f = strstr(line_at(b, 2), "file-");
	f[5] = '7';
	int fd = open(path, O_WRONLY); /* same inode, same size */
	ck_assert(pwrite(fd, b, n, 0) == (ssize_t)n);
	close(fd);
	free(b);
	add(a, p, 3, LOCUS_EINVALID);
	locus_audit_close(a);
	/* another writer's records in between continue the chain: fine */
	spit(path, "", 0);
	a = open_opts(path, NULL, 0);
	add(a, p, 1, 0);
	append_n(path, p, 3, 0);
	add(a, p, 2, 0);
	locus_audit_close(a);
	size_t records = 0;
	ck_assert_int_eq(locus_audit_verify(&records, NULL, path, NULL), 0);
	ck_assert_uint_eq(records, 5);
	unlink(path);
	locus_policy_free(p);
}
END_TEST

START_TEST(keyed_checkpoints)
{
	make_keys();
	locus_policy *p = NULL;
	locus_policy_preset(&p, "standard", NULL);
	const char *path = tmpfile_path();
	locus_audit_report r;
	locus_error err = {0};
	/* an empty trail: fine without a key (0 records, an anchor of
	 * zeros), not with one (nothing proves it was never longer) */
	ck_assert_int_eq(locus_audit_verify_report(&r, path, NULL, &err), 0);
	ck_assert_uint_eq(r.records, 0);
	ck_assert_int_eq(locus_audit_verify_report(&r, path, g_key, &err),
	                 LOCUS_EINVALID);
	/* 7 records, a checkpoint every 3, one at close */
	locus_audit *a = open_opts(path, g_key, 3);
	ck_assert_str_eq(locus_audit_key_path(a), g_key);
	for (int i = 0; i < 7; i++)
		add(a, p, i, 0);
	ck_assert_int_eq(locus_audit_finish(a, &err), 0);
	ck_assert_msg(locus_audit_verify_report(&r, path, g_key, &err) == 0,
	              "%s", err.message);
	ck_assert_uint_eq(r.records, 10);
	ck_assert_uint_eq(r.checkpoints, 3);
	ck_assert(r.closed);
	char anchor[65];
	memcpy(anchor, r.last_hash, sizeof(anchor));
	size_t n;
	char *full = slurp(path, &n);
	/* a cut at a record boundary (after the second checkpoint): the
	 * chain alone still verifies, the key does not */
	char *cut = line_at(full, 9);
	spit(path, full, (size_t)(cut - full));
	ck_assert_int_eq(locus_audit_verify_report(&r, path, NULL, &err), 0);
	ck_assert_uint_eq(r.records, 8);
	ck_assert_str_ne(r.last_hash, anchor); /* an anchor tells too */
	ck_assert_int_eq(locus_audit_verify_report(&r, path, g_key, &err),
	                 LOCUS_EINVALID);
	ck_assert_msg(strstr(err.message, "closing checkpoint"), "%s",
	              err.message);
	/* a forged append after the close (by a writer without the key) */
	spit(path, full, n);
	append_n(path, p, 1, 0);
	ck_assert_int_eq(locus_audit_verify_report(&r, path, NULL, &err), 0);
	ck_assert_int_eq(locus_audit_verify_report(&r, path, g_key, &err),
	                 LOCUS_EINVALID);
	/* ... and a writer with another key does not even continue it: the
	 * last record's MAC does not check out under its key */
	spit(path, full, n);
	locus_audit_options ko = LOCUS_AUDIT_OPTIONS_INIT;
	ko.key_path = g_key2;
	a = NULL;
	ck_assert_int_eq(locus_audit_open_opts(&a, path, &ko, &err),
	                 LOCUS_EINVALID);
	ck_assert_ptr_null(a);
	ck_assert_msg(strstr(err.message, "no valid MAC"), "%s", err.message);
	/* a re-chained rewrite: drop record 2, chain the rest anew */
	spit(path, "", 0);
	a = open_opts(path, g_key2, 3);
	for (int i = 0; i < 6; i++)
		add(a, p, i, 0);
	locus_audit_close(a);
	ck_assert_int_eq(locus_audit_verify_report(&r, path, NULL, &err), 0);
	ck_assert_int_eq(locus_audit_verify_report(&r, path, g_key, &err),
	                 LOCUS_EINVALID);
	/* the CLI: audit verify --key, with counts and the last hash */
	const char *bin = getenv("LOCUS_BIN");
	if (bin) {
		spit(path, full, n);
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "%s audit verify --key %s %s", bin,
		         g_key, path);
		char out[600] = "";
		int st = run_sh(cmd, out, sizeof(out));
		ck_assert_msg(st == 0, "%s", out);
		ck_assert_msg(strstr(out, "10 records") &&
		                  strstr(out, anchor) &&
		                  strstr(out, "3 checkpoints"),
		              "%s", out);
		spit(path, full, (size_t)(cut - full));
		st = system(cmd);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
		/* `locus gate --audit-key` closes with a checkpoint */
		spit(path, "", 0);
		snprintf(cmd, sizeof(cmd),
		         "printf '%%s\\n' '{\"tool\":\"read\",\"arguments\":"
		         "{\"path\":\"a\"}}' | %s gate --root /usr "
		         "--audit %s --audit-key %s >/dev/null && "
		         "%s audit verify --key %s %s >/dev/null",
		         bin, path, g_key, bin, g_key, path);
		st = system(cmd);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", cmd);
	}
	free(full);
	unlink(path);
	unlink(g_key);
	unlink(g_key2);
	locus_policy_free(p);
}
END_TEST

/* The audit key must lie outside the workspace, checked by the library
   for every front end that opens a keyed trail (gate, hook, mcp). */
START_TEST(audit_key_outside_workspace)
{
	char ws[] = "/tmp/locus-aws-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(ws));
	char key_in[300], key_out[300], link_out[300], trail[300];
	snprintf(key_in, sizeof key_in, "%s/sub/k", ws);
	snprintf(trail, sizeof trail, "%s.jsonl", ws);
	snprintf(key_out, sizeof key_out, "%s.key", ws);
	snprintf(link_out, sizeof link_out, "%s.link", ws);
	char sub[300];
	snprintf(sub, sizeof sub, "%s/sub", ws);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	FILE *f = fopen(key_in, "w");
	fputs("0123456789abcdef-secret", f);
	fclose(f);
	f = fopen(key_out, "w");
	fputs("0123456789abcdef-secret", f);
	fclose(f);
	/* a link outside that leads to the key inside: resolved, refused */
	ck_assert_int_eq(symlink(key_in, link_out), 0);
	locus_error err = {0};
	ck_assert_int_eq(locus_audit_check_key(key_in, ws, &err),
	                 LOCUS_EDENIED);
	ck_assert_msg(strstr(err.message, "lies inside the workspace"), "%s",
	              err.message);
	ck_assert_int_eq(locus_audit_check_key(link_out, ws, &err),
	                 LOCUS_EDENIED);
	ck_assert_int_eq(locus_audit_check_key(key_out, ws, &err), 0);
	ck_assert_int_eq(locus_audit_check_key(key_out, "/", &err),
	                 LOCUS_EDENIED);
	ck_assert_int_eq(locus_audit_check_key("/nonexistent/k", ws, &err),
	                 LOCUS_ENOTFOUND);
	/* the open refuses, and leaves no trail behind */
	locus_audit_options o = LOCUS_AUDIT_OPTIONS_INIT;
	o.key_path = key_in;
	o.workspace = ws;
	locus_audit *a = NULL;
	ck_assert_int_eq(locus_audit_open_opts(&a, trail, &o, &err),
	                 LOCUS_EDENIED);
	ck_assert_ptr_null(a);
	/* workspace NULL: the working folder */
	char old[PATH_MAX];
	ck_assert_ptr_nonnull(getcwd(old, sizeof old));
	ck_assert_int_eq(chdir(ws), 0);
	o.workspace = NULL;
	ck_assert_int_eq(locus_audit_open_opts(&a, trail, &o, &err),
	                 LOCUS_EDENIED);
	ck_assert_int_eq(chdir(old), 0);
	o.key_path = key_out;
	o.workspace = ws;
	ck_assert_int_eq(locus_audit_open_opts(&a, trail, &o, &err), 0);
	locus_audit_close(a);
	/* every front end that writes a keyed trail: gate, hook, mcp */
	const char *bin = getenv("LOCUS_BIN");
	if (bin) {
		char cmd[2000], out[2000];
		snprintf(cmd, sizeof cmd,
		         "printf '%%s\\n' '{\"tool\":\"read\",\"arguments\":"
		         "{\"path\":\"a\"}}' | %s gate --root %s --audit %s "
		         "--audit-key %s 2>&1",
		         bin, ws, trail, key_in);
		ck_assert_int_eq(run_sh(cmd, out, sizeof out), 2);
		ck_assert_msg(strstr(out, "lies inside the workspace"), "%s",
		              out);
		snprintf(
		    cmd, sizeof cmd,
		    "printf '%%s' '{\"hook_event_name\":\"PreToolUse\","
		    "\"tool_name\":\"Read\",\"tool_input\":{\"file_path\":"
		    "\"a\"},\"cwd\":\"%s\"}' | %s hook claude-code --root %s "
		    "--audit %s --audit-key %s 2>&1",
		    ws, bin, ws, trail, key_in);
		int st = run_sh(cmd, out, sizeof out);
		ck_assert_msg(st != 0 &&
		                  strstr(out, "lies inside the workspace"),
		              "%d %s", st, out);
		snprintf(
		    cmd, sizeof cmd,
		    "%s mcp --backend local --root %s --audit %s --audit-key "
		    "%s </dev/null "
		    "2>&1",
		    bin, ws, trail, key_in);
		ck_assert_int_eq(run_sh(cmd, out, sizeof out), 2);
		ck_assert_msg(strstr(out, "lies inside the workspace"), "%s",
		              out);
	}
	unlink(key_in);
	unlink(key_out);
	unlink(link_out);
	unlink(trail);
	rmdir(sub);
	rmdir(ws);
}
END_TEST

/* A process that holds the lock stalls nobody for longer than the bound. */
START_TEST(lock_stall_bounded)
{
	locus_policy *p = NULL;
	locus_policy_preset(&p, "standard", NULL);
	const char *path = tmpfile_path();
	int sync[2];
	ck_assert_int_eq(pipe(sync), 0);
	pid_t kid = fork();
	if (kid == 0) {
		int fd = open(path, O_RDONLY);
		flock(fd, LOCK_EX);
		ck_assert(write(sync[1], "x", 1) == 1);
		sleep(30);
		_exit(0);
	}
	char c;
	ck_assert(read(sync[0], &c, 1) == 1);
	locus_audit_options o = LOCUS_AUDIT_OPTIONS_INIT;
	o.lock_timeout_s = 0.5;
	locus_audit *a = NULL;
	locus_error err = {0};
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(locus_audit_open_opts(&a, path, &o, &err), LOCUS_EIO);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double el = (double)(t1.tv_sec - t0.tv_sec) +
	            (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ck_assert_msg(el >= 0.4 && el < 3, "waited %.2f s", el);
	ck_assert_msg(strstr(err.message, "held the lock"), "%s", err.message);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	/* once it is gone, appends go through */
	a = open_opts(path, NULL, 0);
	add(a, p, 1, 0);
	locus_audit_close(a);
	unlink(path);
	locus_policy_free(p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("audit");
	TCase *t = tcase_create("audit");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, append_and_verify);
	tcase_add_test(t, tamper_is_named);
	tcase_add_test(t, concurrent_appends);
	tcase_add_test(t, cli_verify);
	tcase_add_test(t, replaced_file_stops_the_writer);
	tcase_add_test(t, keyed_checkpoints);
	tcase_add_test(t, lock_stall_bounded);
	tcase_add_test(t, audit_key_outside_workspace);
	suite_add_tcase(s, t);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_ENV);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
