/*
 * tests/test_runner_json.c - the box runner's JSON (runner/json.c): what
 * the strict reader refuses in the runner's inputs (gateway answers, model
 * chunks, manifests, its own files), and the canonical writer and digest
 * against the gateway's Python (docs/runner.md "Digest"); the manifest
 * loader's lists (runner/manifest.c: ids unique, targets found, in n log n).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "runner/runner.h"
#include "util/buf.h"

/* ---- refusals ----------------------------------------------------------- */

static const struct {
	const char *text;
	size_t len; /* 0: strlen */
	long offset;
	const char *why; /* a word of the message */
} refused[] = {
    {"{\"decision\":\"allow\",\"decision\":\"deny\"}", 0, 31, "twice"},
    {"{\"a\":{\"b\":1,\"b\":2}}", 0, 16, "twice"},
    {"{\"outcome\":\"allow\"} {}", 0, 20, "after"},
    {"{\"outcome\":\"allow\"}x", 0, 19, "after"},
    {"{\"outcome\":\"allow\"}\0", 20, 19, "NUL"},
    {"{\"a\":\"\xff\"}", 0, 6, "UTF-8"},
    {"{\"a\":\"\xed\xa0\x80\"}", 0, 6, "UTF-8"}, /* an encoded surrogate */
    {"{\"a\":\"\xc0\xaf\"}", 0, 6, "UTF-8"},     /* overlong */
    {"{\"a\":\"x\\u0000y\"}", 0, 7, "u0000"},
    {"{\"a\\u0000\":1}", 0, 3, "u0000"},
    {"{\"a\":\"\\ud800\"}", 0, -1, ": malformed"},
    {"{\"a\":\"\\udc00x\"}", 0, -1, ": malformed"},
    {"{\"a\":\"\\ud800\\u0041\"}", 0, -1, ": malformed"},
    {"{\"a\":\"ls\\u00zz; rm\"}", 0, 8, ": malformed"},
    {"{\"a\":\"x\ny\"}", 0, 7, ": malformed"},
    {"{\"a\":01}", 0, 5, "number"},
    {"{\"a\":1e400}", 0, 5, "number"},
    {"{\"a\":NaN}", 0, -1, ": malformed"},
    {"{\"a\":1,}", 0, -1, ": malformed"},
    {"\xEF\xBB\xBF{}", 0, 0, "byte order mark"},
    {"", 0, -1, ": malformed"},
};

START_TEST(test_refused)
{
	const char *t = refused[_i].text;
	size_t len = refused[_i].len ? refused[_i].len : strlen(t);
	cJSON *v = (cJSON *)1;
	locus_error err = {0};
	ck_assert_int_eq(lr_json_parse(t, len, &v, &err), LOCUS_EINVALID);
	ck_assert_ptr_null(v);
	ck_assert_msg(strstr(err.message, refused[_i].why), "%s: %s", t,
	              err.message);
	if (refused[_i].offset >= 0)
		ck_assert_int_eq(err.offset, refused[_i].offset);
}
END_TEST

START_TEST(test_depth)
{
	char deep[2 * 130 + 1];
	for (int n = 128; n <= 129; n++) {
		memset(deep, '[', (size_t)n);
		memset(deep + n, ']', (size_t)n);
		cJSON *v = NULL;
		locus_error err = {0};
		int rc = lr_json_parse(deep, 2 * (size_t)n, &v, &err);
		ck_assert_int_eq(rc,
		                 n <= LR_JSON_MAX_DEPTH ? 0 : LOCUS_EINVALID);
		cJSON_Delete(v);
	}
}
END_TEST

/* ---- canonical form and digest ----------------------------------------- */

/* text[0..len) parsed, which must succeed. */
static cJSON *parse_ok(const char *text, size_t len)
{
	cJSON *v = NULL;
	locus_error err = {0};
	ck_assert_msg(lr_json_parse(text, len, &v, &err) == 0, "%s",
	              err.message);
	ck_assert_ptr_nonnull(v);
	return v;
}

static char *canon(const char *text)
{
	cJSON *v = parse_ok(text, strlen(text));
	char *c = lr_json_canonical(v);
	cJSON_Delete(v);
	ck_assert_ptr_nonnull(c);
	return c;
}

/* The gateway's json.dumps(sort_keys=True, separators=(",", ":"),
   ensure_ascii=False) of json.loads(text), written out. */
static const struct {
	const char *text, *want;
} canonical[] = {
    {"{ \"b\" : 1, \"a\" : [true, false, null] }",
     "{\"a\":[true,false,null],\"b\":1}"},
    {"[1.0, 0.5, 1e-05, 1e16, 1E16, 100.0, -0.0, -0, 0.1]",
     "[1.0,0.5,1e-05,1e+16,1e+16,100.0,-0.0,0,0.1]"},
    {"[123456789012345678901234567890, -9007199254740993]",
     "[123456789012345678901234567890,-9007199254740993]"},
    /* past a double's range: Python's int keeps every digit */
    {"[1000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000]",
     "[1000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000]"},
    {"[1.5e300, 12345678901234567.0, 2.5e-7]",
     "[1.5e+300,1.2345678901234568e+16,2.5e-07]"},
    {"[\"caf\\u00e9\", \"\\u0001\\b\\f\\n\\r\\t\\\"\\\\\\/\"]",
     "[\"caf\xc3\xa9\",\"\\u0001\\b\\f\\n\\r\\t\\\"\\\\/\"]"},
    {"{\"\xc3\xa9\":1,\"z\":2,\"Z\":3}", "{\"Z\":3,\"z\":2,\"\xc3\xa9\":1}"},
};

START_TEST(test_canonical)
{
	char *c = canon(canonical[_i].text);
	ck_assert_str_eq(c, canonical[_i].want);
	free(c);
}
END_TEST

START_TEST(test_digest_vector)
{
	/* the canonical-JSON vector (docs/runner.md): the digest
	   written out (not computed by the code under test) */
	const char *text =
	    "{\"environment\":\"dev\",\"limits\":{\"Mid\":{\"a\":\"1\","
	    "\"b\":\"2\"},\"alpha\":[true,false,null],\"zeta\":1},"
	    "\"name\":\"box-agent\",\"note\":\"caf\xc3\xa9 \xe2\x80\x93 "
	    "\\\"quoted\\\" \\\\ back\\nslash\",\"revision\":3}";
	cJSON *v = parse_ok(text, strlen(text));
	char *c = lr_json_canonical(v);
	ck_assert_str_eq(c, text); /* already canonical */
	char d[72];
	ck_assert_int_eq(lr_json_digest(v, d), 0);
	ck_assert_str_eq(d, "sha256:566fc5ed4eaa12106b413d569e31c5d2f3074e46"
	                    "af774b9b2bd101af11bb905f");
	free(c);
	cJSON_Delete(v);
}
END_TEST

START_TEST(test_integers)
{
	const char *t = "{\"a\":1,\"b\":1.0,\"c\":-3,\"d\":1e2,\"e\":"
	                "9007199254740992,\"f\":\"1\"}";
	cJSON *v = parse_ok(t, strlen(t));
	long n = -1;
	const char *bad = NULL;
	ck_assert(lr_json_count(v, "a", &n, &bad) && n == 1 && !bad);
	ck_assert(!lr_json_count(v, "b", &n, &bad));
	ck_assert_str_eq(bad, "b"); /* 1.0 is a float, as in Python */
	bad = NULL;
	ck_assert(!lr_json_count(v, "c", &n, &bad) && !strcmp(bad, "c"));
	bad = NULL;
	ck_assert(!lr_json_count(v, "d", &n, &bad) && !strcmp(bad, "d"));
	bad = NULL;
	ck_assert(!lr_json_count(v, "e", &n, &bad) && !strcmp(bad, "e"));
	bad = NULL;
	ck_assert(!lr_json_count(v, "absent", &n, &bad) && !bad);
	double d = 0;
	ck_assert(lr_json_num(v, "b", &d, &bad) && d == 1.0 && !bad);
	ck_assert(!lr_json_num(v, "f", &d, &bad) && !strcmp(bad, "f"));
	bad = NULL;
	ck_assert_ptr_null(lr_json_str(v, "a", &bad));
	ck_assert_str_eq(bad, "a");
	bool b = false;
	bad = NULL;
	ck_assert(!lr_json_bool(v, "a", &b, &bad) && !strcmp(bad, "a"));
	cJSON_Delete(v);
}
END_TEST

/* ---- the manifest's lists ---------------------------------------------- */

/* A manifest with n mcp mounts m0..m<n-1> (the last one's id `last`) and
   one tool on mcp:<target>. */
static cJSON *big_manifest(size_t n, const char *last, const char *target)
{
	lu_buf b = LU_BUF_INIT;
	lu_buf_puts(&b, "{\"version\":1,\"run_id\":\"r\",\"tenant\":\"t\","
	                "\"agent\":\"a\",\"definition\":{},\"model\":{"
	                "\"model\":\"m\",\"base_url\":\"http://x\","
	                "\"api_key_env\":\"K\"},\"mcp\":[");
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n)
			lu_buf_printf(&b, "{\"id\":\"m%zu\",\"url\":\"u\"},",
			              i);
		else
			lu_buf_printf(&b, "{\"id\":\"%s\",\"url\":\"u\"}",
			              last);
	}
	lu_buf_printf(&b, "],\"tools\":[{\"name\":\"x\",\"runs\":\"mcp:%s\"}]}",
	              target);
	ck_assert(!b.oom);
	cJSON *v = parse_ok(b.d, b.len);
	lu_buf_free(&b);
	return v;
}

START_TEST(test_manifest_lists)
{
	/* 200,000 mounts: pairwise comparison would be 2 * 10^10 strcmp */
	size_t n = 200000;
	lr_manifest m;
	locus_error err = {0};
	ck_assert_int_eq(
	    lr_manifest_load(&m, big_manifest(n, "m7", "m5"), &err),
	    LOCUS_EINVALID);
	ck_assert_msg(strstr(err.message, "\"m7\" is listed twice"), "%s",
	              err.message);
	lr_manifest_free(&m);
	ck_assert_int_eq(
	    lr_manifest_load(&m, big_manifest(n, "last", "last"), &err), 0);
	ck_assert_uint_eq(m.n_mcp, n);
	ck_assert_uint_eq(m.tools[0].target_index, n - 1);
	lr_manifest_free(&m);
	ck_assert_int_eq(
	    lr_manifest_load(&m, big_manifest(3, "m9", "m1"), &err), 0);
	ck_assert_uint_eq(m.tools[0].target_index, 1);
	lr_manifest_free(&m);
	ck_assert_int_eq(
	    lr_manifest_load(&m, big_manifest(3, "m9", "nope"), &err),
	    LOCUS_EINVALID);
	ck_assert_msg(strstr(err.message, "does not list"), "%s", err.message);
	lr_manifest_free(&m);
}
END_TEST

START_TEST(test_manifest_mount_tools)
{
	const char *t =
	    "{\"version\":1,\"run_id\":\"r\",\"tenant\":\"t\",\"agent\":\"a\","
	    "\"definition\":{},\"model\":{\"model\":\"m\",\"base_url\":\"u\","
	    "\"api_key_env\":\"K\"},\"mcp\":[{\"id\":\"fs\",\"url\":\"u\","
	    "\"tools\":[\"zeta\",\"alpha\",\"mid\"]},{\"id\":\"all\","
	    "\"url\":\"u\"}],\"tools\":[{\"name\":\"x\",\"runs\":\"mcp:fs\"},"
	    "{\"name\":\"x\",\"runs\":\"box\"}]}";
	lr_manifest m;
	locus_error err = {0};
	ck_assert_int_eq(lr_manifest_load(&m, parse_ok(t, strlen(t)), &err),
	                 LOCUS_EINVALID);
	ck_assert_msg(strstr(err.message, "tools: \"x\" is listed twice"), "%s",
	              err.message);
	/* the mount's tools, sorted for look-up */
	ck_assert_uint_eq(m.mcp[0].n_tool_names, 3);
	ck_assert_str_eq(m.mcp[0].tool_names[0], "alpha");
	ck_assert_str_eq(m.mcp[0].tool_names[2], "zeta");
	ck_assert_uint_eq(m.mcp[1].n_tool_names, 0);
	lr_manifest_free(&m);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("runner-json");
	TCase *tc = tcase_create("reader");
	tcase_add_loop_test(tc, test_refused, 0,
	                    sizeof refused / sizeof *refused);
	tcase_add_test(tc, test_depth);
	suite_add_tcase(s, tc);
	TCase *tw = tcase_create("writer");
	tcase_add_loop_test(tw, test_canonical, 0,
	                    sizeof canonical / sizeof *canonical);
	tcase_add_test(tw, test_digest_vector);
	tcase_add_test(tw, test_integers);
	suite_add_tcase(s, tw);
	TCase *tm = tcase_create("manifest");
	tcase_add_test(tm, test_manifest_lists);
	tcase_add_test(tm, test_manifest_mount_tools);
	suite_add_tcase(s, tm);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
