/*
 * tests/test_audit.c - the hash-chained audit trail: append, verify,
 * tampering, torn lines, concurrent appenders (issue 3).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "locus/policy.h"

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
	ck_assert_int_eq(locus_audit_verify(path, &records, &bad, &err), 0);
	ck_assert_uint_eq(records, 5);
	ck_assert_uint_eq(bad, 0);
	/* reopen and continue the chain */
	append_n(path, p, 3, 0);
	ck_assert_int_eq(locus_audit_verify(path, &records, &bad, &err), 0);
	ck_assert_uint_eq(records, 8);
	/* each record carries what the spec asks */
	size_t n;
	char *b = slurp(path, &n);
	char *nl = strchr(b, '\n');
	*nl = '\0';
	cJSON *o = cJSON_Parse(b);
	ck_assert_ptr_nonnull(o);
	const char *keys[] = {"seq", "time", "action", "asset", "outcome",
	                      "reason", "checks", "labels", "policy_version",
	                      "prev", "hash"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		ck_assert_msg(cJSON_GetObjectItemCaseSensitive(o, keys[i]),
		              "missing %s", keys[i]);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(o, "policy_version")
	                         ->valuestring,
	                 "strict@1");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(o, "outcome")->valuestring,
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
		ck_assert_int_eq(locus_audit_verify(path, NULL, &bad, &err),
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
	ck_assert_int_eq(locus_audit_verify(path, NULL, &bad, NULL),
	                 LOCUS_EINVALID);
	ck_assert_uint_eq(bad, 2);
	free(b);
	/* a torn last line */
	spit(path, "", 0);
	append_n(path, p, 2, 0);
	b = slurp(path, &n);
	spit(path, b, n - 10);
	ck_assert_int_eq(locus_audit_verify(path, NULL, &bad, NULL),
	                 LOCUS_EINVALID);
	ck_assert_uint_eq(bad, 2);
	/* and appending after it is refused: the chain cannot continue */
	locus_audit *a = NULL;
	ck_assert_int_eq(locus_audit_open(&a, path, 0, NULL), 0);
	locus_decision *d = decision(p, 1);
	locus_error err;
	ck_assert_int_eq(locus_audit_append(a, d, &err), LOCUS_EINVALID);
	locus_decision_free(d);
	locus_audit_close(a);
	free(b);
	/* garbage lines */
	spit(path, "hello\n", 6);
	ck_assert_int_eq(locus_audit_verify(path, NULL, &bad, NULL),
	                 LOCUS_EINVALID);
	ck_assert_uint_eq(bad, 1);
	spit(path, "", 0);
	ck_assert_int_eq(locus_audit_verify(path, NULL, &bad, NULL), 0);
	ck_assert_int_eq(locus_audit_verify("/nonexistent/x", NULL, &bad, &err),
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
	ck_assert_msg(locus_audit_verify(path, &records, &bad, &err) == 0, "%s",
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
	FILE *o = popen(cmd, "r");
	char out[512] = "";
	size_t got = fread(out, 1, sizeof(out) - 1, o);
	out[got] = '\0';
	st = pclose(o);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	ck_assert_msg(strstr(out, "line 3"), "%s", out);
	/* `locus gate --audit` writes a verifiable chain */
	spit(path, "", 0);
	snprintf(cmd, sizeof(cmd),
	         "printf '%%s\\n' '{\"tool\":\"read\",\"arguments\":{\"path\":"
	         "\"a\"}}' '{\"tool\":\"write\",\"arguments\":{\"path\":\"b\","
	         "\"content\":\"\"}}' | %s gate --audit %s >/dev/null && "
	         "%s audit verify %s",
	         bin, path, bin, path);
	o = popen(cmd, "r");
	got = fread(out, 1, sizeof(out) - 1, o);
	out[got] = '\0';
	st = pclose(o);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_msg(strstr(out, "2 records"), "%s", out);
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
	suite_add_tcase(s, t);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_ENV);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
