/*
 * tests/test_util.c - the util/ layer: Array(T), the buffer, strict UTF-8,
 * SHA-256 and hex, the strict JSON reader, PCRE2 under limits, the tool
 * table, sorted folder listings.
 */
#include <check.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/array.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/dir.h"
#include "util/json.h"
#include "util/path.h"
#include "util/read.h"
#include "util/regex.h"
#include "util/sha256.h"
#include "util/str.h"
#include "util/tools.h"
#include "util/utf8.h"
#include "util/write.h"

/* ---- base64 and whole writes ---------------------------------------- */

START_TEST(test_base64)
{
	static const struct {
		const char *in;
		bool breaks;
		int rc;
		const char *want;
		/* clang-format off */
	} cases[] = {
	    {"aGk=", false, 0, "hi"},        {"aGk", false, 0, "hi"},
	    /* clang-format on */
	    {"AQID\n", false, 0, "\1\2\3"},
	    {"", false, 0, ""},
	    {"aGVs\nbG8=\n", true, 0, "hello"},
	    {"aGVs\nbG8=", false, 1, NULL},
	    {"a", false, 1, NULL},
	    {"aG=k", false, 1, NULL},
	    {"a b=", false, 1, NULL},
	    {" aGk=", false, 1, NULL},
	    {"aGk*", false, 1, NULL},
	    {"aGk===", false, 1, NULL},
	    {"aGVsbG8=\r\n", true, 0, "hello"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *o = (char *)1;
		size_t n = 99;
		int rc = lu_base64_decode(cases[i].in, strlen(cases[i].in),
		                          cases[i].breaks, &o, &n);
		ck_assert_msg(rc == cases[i].rc, "%s: %d", cases[i].in, rc);
		if (rc) {
			ck_assert_ptr_null(o);
			continue;
		}
		size_t wl = strlen(cases[i].want);
		ck_assert_uint_eq(n, wl);
		ck_assert(!memcmp(o, cases[i].want, wl) && o[n] == '\0');
		free(o);
	}
}
END_TEST

START_TEST(test_write_all)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	char big[200000];
	memset(big, 'w', sizeof big);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[1]);
		char *got;
		size_t n;
		int rc = lu_read_all(p[0], sizeof big, &got, &n);
		_exit(rc == 0 && n == sizeof big && got[n - 1] == 'w' ? 0 : 1);
	}
	close(p[0]);
	/* more than a pipe holds: short writes are continued */
	ck_assert_int_eq(lu_write_all(p[1], big, sizeof big), 0);
	close(p[1]);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* a closed descriptor: -1 with errno */
	errno = 0;
	ck_assert_int_eq(lu_write_all(p[1], "x", 1), -1);
	ck_assert_int_eq(errno, EBADF);
}
END_TEST

/* ---- Array(T) and the growth policy ------------------------------------ */

START_TEST(test_array)
{
	Array(int) a = LU_ARRAY_INIT;
	for (int i = 0; i < 1000; i++)
		ck_assert(lu_array_push(&a, i * 3));
	ck_assert_uint_eq(a.size, 1000);
	ck_assert_uint_ge(a.capacity, 1000);
	ck_assert_int_eq(*lu_array_get(&a, 999), 2997);
	ck_assert_int_eq(*lu_array_back(&a), 2997);
	ck_assert_int_eq(lu_array_pop(&a), 2997);
	ck_assert_uint_eq(a.size, 999);
	int *z = lu_array_grow_one(&a);
	ck_assert_ptr_nonnull(z);
	ck_assert_int_eq(*z, 0);
	lu_array_clear(&a);
	ck_assert_uint_eq(a.size, 0);
	lu_array_delete(&a);
	ck_assert_ptr_null(a.contents);
	ck_assert_uint_eq(a.capacity, 0);
	/* a reservation that cannot be met leaves the array as it was */
	Array(double) d = LU_ARRAY_INIT;
	ck_assert(!lu_array_reserve(&d, SIZE_MAX / 4));
	ck_assert_ptr_null(d.contents);
	ck_assert(lu_array_push(&d, 1.5));
	lu_array_delete(&d);
}
END_TEST

START_TEST(test_array_get_asserts)
{
	Array(int) a = LU_ARRAY_INIT;
	ck_assert(lu_array_push(&a, 1));
	int v = *lu_array_get(&a, 1); /* past the end: the assert fires */
	(void)v;
	lu_array_delete(&a);
}
END_TEST

START_TEST(test_sorted)
{
	char **items = NULL;
	size_t n = 0, cap = 0;
	bool added;
	const char *in[] = {"m", "b", "z", "b", "a", "m"};
	for (size_t i = 0; i < 6; i++) {
		ck_assert_int_eq(
		    lu_strs_insert(&items, &n, &cap, in[i], &added), 0);
		ck_assert(added == (i != 3 && i != 5));
	}
	ck_assert_uint_eq(n, 4);
	ck_assert_str_eq(items[0], "a");
	ck_assert_str_eq(items[1], "b");
	ck_assert_str_eq(items[2], "m");
	ck_assert_str_eq(items[3], "z");
	bool found;
	ck_assert_uint_eq(
	    lu_sorted_find(items, n, sizeof *items, 0, "m", &found), 2);
	ck_assert(found);
	ck_assert_uint_eq(
	    lu_sorted_find(items, n, sizeof *items, 0, "c", &found), 2);
	ck_assert(!found);
	ck_assert_uint_eq(
	    lu_sorted_find(items, 0, sizeof *items, 0, "c", &found), 0);
	/* a member at an offset */
	struct row {
		int x;
		const char *name;
	} rows[] = {{1, "ant"}, {2, "bee"}, {3, "cat"}};
	ck_assert_uint_eq(lu_sorted_find(rows, 3, sizeof *rows,
	                                 offsetof(struct row, name), "cat",
	                                 &found),
	                  2);
	ck_assert(found);
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
}
END_TEST

START_TEST(test_grow_capacity)
{
	ck_assert_uint_eq(lu_grow_capacity(0, 1, 8, 4), 8);
	ck_assert_uint_eq(lu_grow_capacity(8, 9, 8, 4), 16);
	ck_assert_uint_eq(lu_grow_capacity(0, 100, 64, 1), 128);
	ck_assert_uint_eq(lu_grow_capacity(16, 4, 8, 4), 16);
	ck_assert_uint_eq(lu_grow_capacity(0, SIZE_MAX / 8 + 1, 8, 8), 0);
	/* doubling would overflow: exactly what was asked */
	size_t big = SIZE_MAX / 2 + 1;
	ck_assert_uint_eq(lu_grow_capacity(big, big + 1, 8, 1), big + 1);
}
END_TEST

/* ---- the buffer --------------------------------------------------------- */

START_TEST(test_buf)
{
	lu_buf b = LU_BUF_INIT;
	lu_buf_puts(&b, "ab");
	lu_buf_add(&b, "c\0d", 3);
	lu_buf_putc(&b, 'e');
	lu_buf_printf(&b, "-%d-%s", 42, "x");
	ck_assert_uint_eq(b.len, 11);
	ck_assert_mem_eq(b.d, "abc\0de-42-x", 12);
	lu_buf_clear(&b);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_str_eq(b.d, "");
	lu_buf_shquote(&b, "it's");
	ck_assert_str_eq(b.d, "'it'\\''s'");
	char *s = lu_buf_take(&b);
	ck_assert_str_eq(s, "'it'\\''s'");
	ck_assert_ptr_null(b.d);
	free(s);
	/* empty take is "" */
	s = lu_buf_take(&b);
	ck_assert_str_eq(s, "");
	free(s);
	/* a long printf grows it */
	for (int i = 0; i < 1000; i++)
		lu_buf_printf(&b, "%04d", i);
	ck_assert_uint_eq(b.len, 4000);
	ck_assert_uint_eq(strlen(b.d), 4000);
	/* after oom, appends do nothing and take gives NULL */
	b.oom = true;
	lu_buf_puts(&b, "more");
	ck_assert_uint_eq(b.len, 4000);
	ck_assert_ptr_null(lu_buf_take(&b));
	ck_assert(!b.oom);
	lu_buf_free(&b);
}
END_TEST

/* ---- UTF-8 -------------------------------------------------------------- */

static const struct {
	const char *s;
	size_t n, bad; /* offset of the first bad byte, or n */
	               /* clang-format off */
} utf8_cases[] = {
	{"", 0, 0},
                       /* clang-format on */
    {"abc", 3, 3},
    {"a\0b", 3, 3}, /* NUL is valid UTF-8 */
    {"\xC3\xA9", 2, 2},
    {"\xE2\x82\xAC", 3, 3},
    {"\xF0\x9F\x98\x80", 4, 4},
    {"\xF4\x8F\xBF\xBF", 4, 4}, /* U+10FFFF */
    {"\xED\x9F\xBF", 3, 3},     /* U+D7FF */
    {"\xEE\x80\x80", 3, 3},     /* U+E000 */
    {"a\x80", 2, 1},            /* a lone continuation byte */
    {"\xC0\xAF", 2, 0},         /* overlong '/' */
    {"\xC1\xBF", 2, 0},         /* overlong */
    {"\xE0\x80\xAF", 3, 0},     /* overlong */
    {"\xE0\x9F\xBF", 3, 0},     /* overlong (U+07FF) */
    {"\xF0\x8F\xBF\xBF", 4, 0}, /* overlong (U+FFFF) */
    {"\xED\xA0\x80", 3, 0},     /* a surrogate */
    {"\xED\xBF\xBF", 3, 0},     /* a surrogate */
    {"\xF4\x90\x80\x80", 4, 0}, /* past U+10FFFF */
    {"\xF5\x80\x80\x80", 4, 0},
    {"\xFF", 1, 0},
    {"ab\xE2\x82", 4, 2}, /* truncated */
    {"\xC3", 1, 0},
    {"\xE2\x28\xA1", 3, 0}, /* a bad continuation */
    {"ok\xF0\x9F\x98", 5, 2},
};

START_TEST(test_utf8)
{
	const char *s = utf8_cases[_i].s;
	size_t n = utf8_cases[_i].n, bad = utf8_cases[_i].bad;
	ck_assert_uint_eq(lu_utf8_invalid_at(s, n), bad);
	ck_assert(lu_utf8_valid(s, n) == (bad == n));
	char *c = lu_utf8_clean(s, n);
	ck_assert_ptr_nonnull(c);
	/* the cleaned text is valid, and equal to the input when it was */
	ck_assert(lu_utf8_valid(c, strlen(c)) || memchr(s, 0, n));
	if (bad == n && !memchr(s, 0, n))
		ck_assert_str_eq(c, s);
	free(c);
}
END_TEST

/* The same cases at every alignment of the eight-byte ASCII scan: after
   0..17 ASCII bytes and before 0..9 more, the first bad byte moves by the
   prefix (a valid case stays valid). */
START_TEST(test_utf8_padded)
{
	const char *s = utf8_cases[_i].s;
	size_t n = utf8_cases[_i].n, bad = utf8_cases[_i].bad;
	char buf[64];
	for (size_t pre = 0; pre < 18; pre++)
		for (size_t post = 0; post < 10; post++) {
			memset(buf, 'a', pre);
			memcpy(buf + pre, s, n);
			memset(buf + pre + n, 'z', post);
			size_t len = pre + n + post;
			size_t want = bad == n ? len : pre + bad;
			ck_assert_msg(lu_utf8_invalid_at(buf, len) == want,
			              "case %d, %zu before, %zu after", _i, pre,
			              post);
		}
}
END_TEST

START_TEST(test_utf8_clean)
{
	char *c = lu_utf8_clean("a\xFF"
	                        "b\xE2\x82",
	                        5);
	ck_assert_str_eq(c, "a\xEF\xBF\xBD"
	                    "b\xEF\xBF\xBD\xEF\xBF\xBD");
	free(c);
	ck_assert_uint_eq(lu_utf8_seq("\xE2\x82\xAC", 2), 0);
	ck_assert_uint_eq(lu_utf8_seq("\xE2\x82\xAC", 3), 3);
	ck_assert_uint_eq(lu_utf8_seq("x", 0), 0);
}
END_TEST

/* lu_utf8_encode: each length's first and last code point, as the bytes
   RFC 3629 gives, and read back as one valid sequence. */
START_TEST(test_utf8_encode)
{
	static const struct {
		uint32_t cp;
		const char *bytes;
	} cases[] = {
	    {0x41, "A"},
	    {0x7F, "\x7F"},
	    {0x80, "\xC2\x80"},
	    {0x7FF, "\xDF\xBF"},
	    {0x800, "\xE0\xA0\x80"},
	    {0x20AC, "\xE2\x82\xAC"},
	    {0xFFFF, "\xEF\xBF\xBF"},
	    {0x10000, "\xF0\x90\x80\x80"},
	    {0x10FFFF, "\xF4\x8F\xBF\xBF"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char out[4];
		size_t n = lu_utf8_encode(cases[i].cp, out);
		ck_assert_uint_eq(n, strlen(cases[i].bytes));
		ck_assert(!memcmp(out, cases[i].bytes, n));
		ck_assert_uint_eq(lu_utf8_seq(out, n), n);
	}
}
END_TEST

/* ---- SHA-256 and hex ---------------------------------------------------- */

START_TEST(test_sha256)
{
	char h[65];
	ck_assert_int_eq(lu_sha256_hex("", 0, h), 0);
	ck_assert_str_eq(h, "e3b0c44298fc1c149afbf4c8996fb924"
	                    "27ae41e4649b934ca495991b7852b855");
	ck_assert_int_eq(lu_sha256_hex(NULL, 0, h), 0);
	ck_assert_str_eq(h, "e3b0c44298fc1c149afbf4c8996fb924"
	                    "27ae41e4649b934ca495991b7852b855");
	ck_assert_int_eq(lu_sha256_hex("abc", 3, h), 0);
	ck_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223"
	                    "b00361a396177a9cb410ff61f20015ad");
	char x[9];
	lu_hex("\x00\x7f\x80\xff", 4, x);
	ck_assert_str_eq(x, "007f80ff");
	ck_assert_int_eq(lu_hex_digit('0'), 0);
	ck_assert_int_eq(lu_hex_digit('f'), 15);
	ck_assert_int_eq(lu_hex_digit('F'), 15);
	ck_assert_int_eq(lu_hex_digit('g'), -1);
}
END_TEST

/* ---- strict JSON -------------------------------------------------------- */

static const struct {
	const char *text;
	size_t len; /* 0: strlen */
	lu_json_problem want;
	size_t offset;
	const char *key;
	/* clang-format off */
} json_cases[] = {
	{"{\"a\":1}", 0, LU_JSON_OK, 0, NULL},
    /* clang-format on */
    {"  [1, 2.5, -0, 1e3, \"x\"]  \n", 0, LU_JSON_OK, 0, NULL},
    {"\"\\u00e9\"", 0, LU_JSON_OK, 0, NULL},
    {"", 0, LU_JSON_SYNTAX, 0, NULL},
    {"{\"a\":}", 0, LU_JSON_SYNTAX, 5, NULL},
    {"{\"a\":1} x", 0, LU_JSON_TRAILING, 8, NULL},
    {"{\"a\":1}{}", 0, LU_JSON_TRAILING, 7, NULL},
    {"{\"a\":\"x\0y\"}", 11, LU_JSON_NUL, 7, NULL},
    {"{\"a\":\"\xC0\xAF\"}", 0, LU_JSON_UTF8, 6, NULL},
    {"{\"a\":\"x\\u0000\"}", 0, LU_JSON_ESCAPED_NUL, 7, NULL},
    {"{\"a\\u0000\":1}", 0, LU_JSON_ESCAPED_NUL, 3, NULL},
    {"{\"a\":\"x\\\\u0000\"}", 0, LU_JSON_OK, 0, NULL},
    {"{\"a\":01}", 0, LU_JSON_NUMBER, 5, NULL},
    {"{\"a\":1.}", 0, LU_JSON_NUMBER, 5, NULL},
    {"[1.5e]", 0, LU_JSON_SYNTAX, 0, NULL},
    /* what cJSON lets through: a \u with a bad hex digit reads as 0 and
       ends the string ("ls\u00zz; rm" would be "ls"), raw control
       characters in strings, any byte below 0x21 as white space (which
       also hid "01" from the number check) */
    {"[\"ls\\u00zz; rm\"]", 0, LU_JSON_SYNTAX, 4, NULL},
    {"[\"a\\uzzzzb\"]", 0, LU_JSON_SYNTAX, 3, NULL},
    {"[\"a\\u12\"]", 0, LU_JSON_SYNTAX, 0, NULL},
    {"[\"a\\u00E9\\u00e9\"]", 0, LU_JSON_OK, 0, NULL},
    {"[\"a\nb\"]", 0, LU_JSON_SYNTAX, 3, NULL},
    {"[\"a\x01\"]", 0, LU_JSON_SYNTAX, 3, NULL},
    {"\x0b[1]", 0, LU_JSON_SYNTAX, 0, NULL},
    {"[1,\x0c 2]", 0, LU_JSON_SYNTAX, 3, NULL},
    {"[\x0b"
     "01]",
     0, LU_JSON_SYNTAX, 1, NULL},
    {" \t\r\n[1]\n", 0, LU_JSON_OK, 0, NULL},
    /* a byte order mark is skipped, as cJSON does, and offsets stay in
       step after it */
    {"\xEF\xBB\xBF[1]", 0, LU_JSON_OK, 0, NULL},
    {"\xEF\xBB\xBF{\"a\":1,\"a\":2}", 0, LU_JSON_DUPLICATE, 14, "a"},
    {"\xEF\xBB\xBF[01]", 0, LU_JSON_NUMBER, 4, NULL},
    /* lone surrogates (cJSON refuses them) */
    {"[\"\\ud800\"]", 0, LU_JSON_SYNTAX, 0, NULL},
    {"[\"\\udc00\"]", 0, LU_JSON_SYNTAX, 0, NULL},
    {"[\"\\ud800\\u0041\"]", 0, LU_JSON_SYNTAX, 0, NULL},
    {"[\"\\ud83d\\ude00\"]", 0, LU_JSON_OK, 0, NULL},
    {"{\"a\":1,\"a\":2}", 0, LU_JSON_DUPLICATE, 11, "a"},
    {"{\"a\":1,\"b\":{\"c\":1,\"c\":[]}}", 0, LU_JSON_DUPLICATE, 22, "c"},
    {"[{\"x\":1},{\"y\":2,\"y\":3}]", 0, LU_JSON_DUPLICATE, 20, "y"},
    {"{\"a\":1,\"b\":2,\"b\":3,\"a\":4}", 0, LU_JSON_DUPLICATE, 17, "b"},
};

START_TEST(test_json)
{
	const char *t = json_cases[_i].text;
	size_t len = json_cases[_i].len ? json_cases[_i].len : strlen(t);
	cJSON *v = (cJSON *)1;
	lu_json_fail why;
	lu_json_problem p = lu_json_read(&v, t, len, NULL, &why);
	ck_assert_msg(p == json_cases[_i].want, "%s: problem %d (%s)", t, p,
	              lu_json_problem_text(p));
	if (p == LU_JSON_OK) {
		ck_assert_ptr_nonnull(v);
		cJSON_Delete(v);
		return;
	}
	ck_assert_ptr_null(v);
	ck_assert_int_eq(why.problem, p);
	if (json_cases[_i].offset)
		ck_assert_uint_eq(why.offset, json_cases[_i].offset);
	if (json_cases[_i].key)
		ck_assert_str_eq(why.key, json_cases[_i].key);
}
END_TEST

START_TEST(test_json_options)
{
	cJSON *v = NULL;
	lu_json_fail why;
	lu_json_opts o = LU_JSON_OPTS_INIT;
	o.object = true;
	ck_assert_int_eq(lu_json_read(&v, "[1]", 3, &o, &why),
	                 LU_JSON_NOT_OBJECT);
	ck_assert_ptr_null(v);
	o.object = false;
	o.max_len = 4;
	ck_assert_int_eq(lu_json_read(&v, "[1, 2]", 6, &o, &why),
	                 LU_JSON_TOOBIG);
	o.max_len = 0;
	o.any_bytes = true;
	ck_assert_int_eq(lu_json_read(&v, "\"\xFF\"", 3, &o, &why), LU_JSON_OK);
	cJSON_Delete(v);
	o.any_bytes = false;
	o.duplicates = true;
	ck_assert_int_eq(lu_json_read(&v, "{\"a\":1,\"a\":2}", 13, &o, &why),
	                 LU_JSON_OK);
	const cJSON *d = lu_json_duplicate(v, NULL);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->valueint, 2);
	ck_assert_uint_eq(lu_json_offset_of(v, "{\"a\":1,\"a\":2}", 13, d), 11);
	cJSON_Delete(v);
	o.duplicates = false;
	o.escaped_nul = true;
	ck_assert_int_eq(lu_json_read(&v, "[\"a\\u0000\"]", 11, &o, &why),
	                 LU_JSON_OK);
	cJSON_Delete(v);
	/* the other checks still run */
	ck_assert_int_eq(lu_json_read(&v, "[\"\\u0000\", 01]", 14, &o, &why),
	                 LU_JSON_NUMBER);
	o.escaped_nul = false;
	o.max_depth = 3;
	ck_assert_int_eq(lu_json_read(&v, "[[[1]]]", 7, &o, &why), LU_JSON_OK);
	cJSON_Delete(v);
	ck_assert_int_eq(lu_json_read(&v, "[[[[1]]]]", 9, &o, &why),
	                 LU_JSON_DEPTH);
	ck_assert_uint_eq(why.offset, 3);
	/* past cJSON's own limit it is still depth, not syntax */
	size_t n = 5000;
	char *deep = malloc(2 * n);
	ck_assert_ptr_nonnull(deep);
	memset(deep, '[', n);
	memset(deep + n, ']', n);
	ck_assert_int_eq(lu_json_read(&v, deep, 2 * n, NULL, &why),
	                 LU_JSON_DEPTH);
	ck_assert_uint_eq(why.offset, LU_JSON_MAX_DEPTH);
	free(deep);
	/* number_text: each number keeps its text, in every position */
	o.max_depth = 0;
	o.number_text = true;
	const char *nt = "{\"a\":[1.0, -0, 1e2],\"b\":{\"c\":"
	                 "123456789012345678901234567890},\"d\":1}";
	ck_assert_int_eq(lu_json_read(&v, nt, strlen(nt), &o, &why),
	                 LU_JSON_OK);
	const cJSON *a = cJSON_GetObjectItem(v, "a");
	ck_assert_str_eq(cJSON_GetArrayItem(a, 0)->valuestring, "1.0");
	ck_assert_str_eq(cJSON_GetArrayItem(a, 1)->valuestring, "-0");
	ck_assert_str_eq(cJSON_GetArrayItem(a, 2)->valuestring, "1e2");
	ck_assert_str_eq(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(v, "b"), "c")->valuestring,
	    "123456789012345678901234567890");
	ck_assert_str_eq(cJSON_GetObjectItem(v, "d")->valuestring, "1");
	cJSON *dup = cJSON_Duplicate(v, 1); /* the text is copied along */
	ck_assert_str_eq(cJSON_GetObjectItem(dup, "d")->valuestring, "1");
	cJSON_Delete(dup);
	cJSON_Delete(v);
	ck_assert_int_eq(lu_json_read(&v, "-12.5e-3 ", 9, &o, &why),
	                 LU_JSON_OK);
	ck_assert_str_eq(v->valuestring, "-12.5e-3");
	cJSON_Delete(v);
	/* a number a double cannot hold has no text to hash against */
	ck_assert_int_eq(lu_json_read(&v, "[1, 1e400]", 10, &o, &why),
	                 LU_JSON_NUMBER);
	ck_assert_uint_eq(why.offset, 4);
	ck_assert_ptr_null(v);
	/* but an integer keeps its digits, however many */
	char big[420] = "[";
	memset(big + 1, '7', 400);
	strcpy(big + 401, "]");
	ck_assert_int_eq(lu_json_read(&v, big, strlen(big), &o, &why),
	                 LU_JSON_OK);
	ck_assert_uint_eq(strlen(cJSON_GetArrayItem(v, 0)->valuestring), 400);
	cJSON_Delete(v);
	ck_assert_int_eq(lu_json_read(&v, "\xEF\xBB\xBF[2.5]", 8, &o, &why),
	                 LU_JSON_OK);
	ck_assert_str_eq(cJSON_GetArrayItem(v, 0)->valuestring, "2.5");
	cJSON_Delete(v);
	o.number_text = false;
	ck_assert_int_eq(lu_json_read(&v, "[1]", 3, &o, &why), LU_JSON_OK);
	ck_assert_ptr_null(cJSON_GetArrayItem(v, 0)->valuestring);
	cJSON_Delete(v);
	/* a wrong-version opts is the default */
	o.version = 99;
	o.object = true;
	ck_assert_int_eq(lu_json_read(&v, "[1]", 3, &o, NULL), LU_JSON_OK);
	cJSON_Delete(v);
	ck_assert_int_eq(lu_json_read(&v, NULL, 0, NULL, NULL), LU_JSON_SYNTAX);
	/* lu_json_add owns v either way */
	cJSON *obj = cJSON_CreateObject();
	ck_assert(lu_json_add(obj, "a", cJSON_CreateNumber(1)));
	ck_assert(!lu_json_add(obj, "b", NULL));
	ck_assert_int_eq(cJSON_GetArraySize(obj), 1);
	char *txt = NULL;
	ck_assert_int_eq(lu_json_print(&txt, obj, false), 0);
	ck_assert_str_eq(txt, "{\"a\":1}");
	free(txt);
	ck_assert_int_eq(lu_json_print(&txt, NULL, true), -1);
	ck_assert_ptr_null(txt);
}
END_TEST

START_TEST(test_json_wide)
{
	/* 100,000 keys: the duplicate check is not quadratic */
	size_t keys = 100000;
	char *wide = malloc(keys * 16 + 32);
	ck_assert_ptr_nonnull(wide);
	size_t k = 0;
	wide[k++] = '{';
	for (size_t i = 0; i < keys; i++)
		k += (size_t)sprintf(wide + k, "%s\"k%zu\":1", i ? "," : "", i);
	wide[k++] = '}';
	cJSON *v = NULL;
	ck_assert_int_eq(lu_json_read(&v, wide, k, NULL, NULL), LU_JSON_OK);
	cJSON_Delete(v);
	k--;
	k += (size_t)sprintf(wide + k, ",\"k777\":2}");
	lu_json_fail why;
	ck_assert_int_eq(lu_json_read(&v, wide, k, NULL, &why),
	                 LU_JSON_DUPLICATE);
	ck_assert_str_eq(why.key, "k777");
	free(wide);
}
END_TEST

/* ---- paths -------------------------------------------------------------- */

static const struct {
	const char *in, *out;
	bool escapes;
	/* clang-format off */
} path_cases[] = {
	{"/", "/", false},
    /* clang-format on */
    {"//a//b/", "/a/b", false},
    {"/a/./b/.", "/a/b", false},
    {"/a/../b", "/b", false},
    {"/../../a", "/a", false},
    {"/a/b/../..", "/", false},
    {"a/b/../c", "a/c", false},
    {"a/..", ".", false},
    {"", ".", false},
    {"./", ".", false},
    {"../a", "../a", true},
    {"a/../../b", "../b", true},
    {"../../x/..", "../..", true},
};

START_TEST(test_path)
{
	bool esc = false;
	char *p = lu_path_collapse(path_cases[_i].in, &esc);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p, path_cases[_i].out);
	ck_assert(esc == path_cases[_i].escapes);
	free(p);
	p = lu_path_collapse(path_cases[_i].in, NULL);
	ck_assert_str_eq(p, path_cases[_i].out);
	free(p);
}
END_TEST

/* lu_path_find: the first executable FOLDER/name of a PATH-style list; an
   empty folder is the working folder only when asked (the shell's PATH,
   not jail's bwrap lookup). */
START_TEST(test_path_find)
{
	char dir[] = "/tmp/locus-util-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char prog[64], plain[64], list[160], out[96];
	snprintf(prog, sizeof prog, "%s/prog", dir);
	snprintf(plain, sizeof plain, "%s/plain", dir);
	FILE *f = fopen(prog, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	f = fopen(plain, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(chmod(prog, 0755), 0);
	ck_assert(!lu_path_find(NULL, "prog", true, out, sizeof out));
	snprintf(list, sizeof list, "/nonexistent:%s", dir);
	ck_assert(lu_path_find(list, "prog", false, out, sizeof out));
	ck_assert_str_eq(out, prog);
	/* not executable (unless root, who may run anything marked so) */
	if (geteuid() != 0)
		ck_assert(!lu_path_find(list, "plain", true, out, sizeof out));
	/* too long for out: not found */
	ck_assert(!lu_path_find(list, "prog", false, out, 8));
	char cwd[4096];
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
	ck_assert_int_eq(chdir(dir), 0);
	ck_assert(lu_path_find(":/nonexistent", "prog", true, out, sizeof out));
	ck_assert_str_eq(out, "./prog");
	ck_assert(
	    !lu_path_find(":/nonexistent", "prog", false, out, sizeof out));
	ck_assert(!lu_path_find("", "prog", true, out, sizeof out));
	ck_assert_int_eq(chdir(cwd), 0);
	unlink(prog);
	unlink(plain);
	rmdir(dir);
}
END_TEST

/* ---- bounded reads ------------------------------------------------------ */

START_TEST(test_read)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	/* more than one read's worth, with a NUL inside */
	size_t n = 200000;
	char *big = malloc(n);
	ck_assert_ptr_nonnull(big);
	for (size_t i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	big[7] = '\0';
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		ssize_t w = write(p[1], big, n);
		_exit(w == (ssize_t)n ? 0 : 1);
	}
	close(p[1]);
	char *out = NULL;
	size_t len = 0;
	ck_assert_int_eq(lu_read_all(p[0], n, &out, &len), 0);
	close(p[0]);
	int st = 0;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_uint_eq(len, n);
	ck_assert_mem_eq(out, big, n);
	ck_assert_int_eq(out[n], '\0');
	free(out);
	/* one byte over the limit: refused, nothing returned */
	char dir[] = "/tmp/locus-util-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof path, "%s/f", dir);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(big, 1, 100, f), 100);
	fclose(f);
	ck_assert_int_eq(lu_read_path(path, 99, &out, &len), 1);
	ck_assert_ptr_null(out);
	ck_assert_int_eq(lu_read_path(path, 100, &out, &len), 0);
	ck_assert_uint_eq(len, 100);
	free(out);
	unlink(path);
	rmdir(dir);
	errno = 0;
	ck_assert_int_eq(lu_read_path(path, 100, &out, &len), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(lu_read_path("/", 100, &out, &len), -1);
	free(big);
}
END_TEST

/* ---- PCRE2 -------------------------------------------------------------- */

START_TEST(test_regex)
{
	lu_re_error err;
	ck_assert_ptr_null(lu_re_compile("a(", 0, false, &err));
	ck_assert_int_ne(err.code, 0);
	ck_assert_uint_eq(err.offset, 2);
	ck_assert(err.message[0]);
	pcre2_code *re = lu_re_compile("b+c", 0, true, &err);
	ck_assert_ptr_nonnull(re);
	ck_assert_int_eq(lu_re_match_once(re, "abbc", 4, NULL), LU_RE_MATCH);
	ck_assert_int_eq(lu_re_match_once(re, "abbd", 4, NULL), LU_RE_NOMATCH);
	/* binary-safe: the length counts, not a NUL */
	ck_assert_int_eq(lu_re_match_once(re, "a\0bc", 4, NULL), LU_RE_MATCH);
	pcre2_match_context *mc = lu_re_context(NULL);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	int rc = 0;
	ck_assert_int_eq(lu_re_match(re, "xbcbbc", 6, 2, md, mc, &rc),
	                 LU_RE_MATCH);
	ck_assert_int_eq(rc, 1);
	ck_assert_uint_eq(pcre2_get_ovector_pointer(md)[0], 3);
	/* no limits, no match: an error */
	ck_assert_int_eq(lu_re_match(re, "bc", 2, 0, md, NULL, &rc),
	                 LU_RE_ERROR);
	ck_assert_int_eq(lu_re_match(NULL, "bc", 2, 0, md, mc, &rc),
	                 LU_RE_ERROR);
	pcre2_match_data_free(md);
	pcre2_match_context_free(mc);
	pcre2_code_free(re);
	/* catastrophic backtracking hits a limit: an error, never "no" */
	re = lu_re_compile("^(a+)+$", 0, false, NULL);
	ck_assert_ptr_nonnull(re);
	char s[64];
	memset(s, 'a', 40);
	s[40] = 'b';
	lu_re_limits lim = {10000, 1000, 1000};
	mc = lu_re_context(&lim);
	ck_assert_int_eq(lu_re_match(re, s, 41, 0, NULL, mc, &rc), LU_RE_ERROR);
	ck_assert(lu_re_is_limit(rc));
	pcre2_match_context_free(mc);
	pcre2_code_free(re);
}
END_TEST

/* ---- the tool table ----------------------------------------------------- */

#define NAME(n, k, f, d, p, t) #n,
#define DEF(n, k, f, d, p, t) LU_IF_##d(#n, )
#define PATCHSET(n, k, f, d, p, t) LU_IF_##p(#n, )
static const char *const all[] = {LU_TOOLS(NAME) NULL};
static const char *const def[] = {LU_TOOLS(DEF) NULL};
static const char *const patch[] = {LU_TOOLS(PATCHSET) NULL};

START_TEST(test_tools)
{
	size_t n = 0;
	for (; lu_tool_at(n); n++) {
		const lu_tool *t = lu_tool_at(n);
		ck_assert_str_eq(t->name, all[n]);
		ck_assert_ptr_eq(lu_tool_find(t->name), t);
		ck_assert(t->title && t->title[0]);
		/* every tool is reached from its own name */
		ck_assert_str_eq(lu_tool_from_agent(t->name), t->name);
		for (size_t k = 0; k < n; k++)
			ck_assert_str_ne(lu_tool_at(k)->name, t->name);
	}
	ck_assert_uint_eq(n, 15);
	ck_assert_ptr_null(all[n]);
	ck_assert_ptr_null(lu_tool_find("webfetch"));
	ck_assert_ptr_null(lu_tool_find(NULL));
	/* the presets: apply_patch only in the patch set, edit and
	   multi_edit only in the default one */
	size_t nd = 0, np = 0;
	for (; def[nd]; nd++)
		ck_assert_str_ne(def[nd], "apply_patch");
	for (; patch[np]; np++) {
		ck_assert_str_ne(patch[np], "edit");
		ck_assert_str_ne(patch[np], "multi_edit");
		ck_assert_str_ne(patch[np], "write");
	}
	ck_assert_uint_eq(nd, 14);
	ck_assert_uint_eq(np, 12);
	ck_assert_int_eq(lu_tool_find("bash")->kind, LU_TOOL_EXECS);
	ck_assert(lu_tool_find("bash")->flags & LU_TOOL_SHELL);
	ck_assert(lu_tool_find("write_stdin")->flags & LU_TOOL_STDIN);
	ck_assert(lu_tool_find("apply_patch")->flags & LU_TOOL_PATCH);
	ck_assert_int_eq(lu_tool_find("todo_write")->kind, LU_TOOL_READS);
	/* agents' names */
	ck_assert_str_eq(lu_tool_from_agent("Bash"), "bash");
	ck_assert_str_eq(lu_tool_from_agent("run_shell_command"), "bash");
	ck_assert_str_eq(lu_tool_from_agent("MultiEdit"), "multi_edit");
	ck_assert_str_eq(lu_tool_from_agent("NotebookRead"), "read");
	ck_assert_str_eq(lu_tool_from_agent("KillBash"), "kill_shell");
	ck_assert_ptr_null(lu_tool_from_agent("mcp__x__bash"));
	ck_assert_ptr_null(lu_tool_from_agent("WebFetch"));
	ck_assert(lu_tool_is_web("WebFetch"));
	ck_assert(lu_tool_is_web("google_web_search"));
	ck_assert(!lu_tool_is_web("mcp__x__fetch"));
	ck_assert(!lu_tool_is_web("Bash"));
	char norm[8];
	lu_tool_norm("Multi_Edit-Tool", norm, sizeof norm);
	ck_assert_str_eq(norm, "multied");
}
END_TEST

/* A word sh reads as itself needs no quotes; anything else does. */
START_TEST(test_sh_plain)
{
	const char *plain[] = {"ls",          "-la",  "a/b.c", "x=1",
	                       "user@host:x", "100%", "a+b,c", "_"};
	const char *not_plain[] = {"",   "a b",  "$x", "*",   "a;b",      "'",
	                           "\"", "a\\b", "~",  "a|b", "\xc3\xa9", "#"};
	for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
		ck_assert_msg(lu_sh_plain(plain[i]), "%s", plain[i]);
	for (size_t i = 0; i < sizeof not_plain / sizeof *not_plain; i++)
		ck_assert_msg(!lu_sh_plain(not_plain[i]), "%s", not_plain[i]);
}
END_TEST

/* "\u0000" found only inside strings (keys too), an escaped backslash
   before "u0000" is no escape, and the marks keep the length. */
#define HAS_NUL(s) lu_json_has_nul_escape((s), strlen(s))
START_TEST(test_json_nul_escape)
{
	ck_assert(HAS_NUL("{\"a\":\"x\\u0000y\"}"));
	ck_assert(HAS_NUL("{\"\\u0000\":1}"));
	ck_assert(!HAS_NUL("{\"a\":\"x\\\\u0000\"}"));
	ck_assert(!HAS_NUL("\\u0000"));
	ck_assert(!HAS_NUL("{\"a\":\"\\u000\"}"));
	/* cut short: never read past len */
	ck_assert(!lu_json_has_nul_escape("\"\\u0000\"", 6));
	char t[] = "[\"\\u0000\", \"b\\u0000\\u0001\", \"\\\\u0000\"]";
	char want[] = "[\"\\u0001\", \"b\\u0001\\u0001\", \"\\\\u0000\"]";
	ck_assert(lu_json_mark_nul_escapes(t, strlen(t)));
	ck_assert_str_eq(t, want);
	ck_assert(!lu_json_mark_nul_escapes(t, strlen(t)));
}
END_TEST

/* A folder's entries as "dir/name", in strcmp order, "." and ".." left
   out; a missing folder is an error with errno. */
START_TEST(test_dir_paths)
{
	char dir[] = "/tmp/locus-util-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	const char *names[] = {"b", "a.txt", "B", ".hidden", "a"};
	char p[128];
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		FILE *f = fopen(p, "w");
		ck_assert_ptr_nonnull(f);
		fclose(f);
	}
	char **paths;
	size_t n;
	ck_assert_int_eq(lu_dir_paths(dir, &paths, &n), 0);
	ck_assert_uint_eq(n, 5);
	const char *order[] = {".hidden", "B", "a", "a.txt", "b"};
	for (size_t i = 0; i < n; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, order[i]);
		ck_assert_str_eq(paths[i], p);
		unlink(p);
	}
	lu_dir_free(paths, n);
	rmdir(dir);
	errno = 0;
	ck_assert_int_eq(lu_dir_paths(dir, &paths, &n), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_null(paths);
	ck_assert_uint_eq(n, 0);
}
END_TEST

/* util/str.h's inline loops answer what strcmp, strncmp and a
   prefix compare answer, on every pair of a set of near misses. */
START_TEST(test_str_loops)
{
	/* clang-format off */
	static const char *const w[] = {
	    "", "a", "ab", "abc", "abd", "b", "git", "git-log", "gi",
	    "\xff", "\x7f", "tr", "true", "[", "[[", "-", "--",
	};
	/* clang-format on */
	size_t n = sizeof w / sizeof *w;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < n; k++) {
			int c = strcmp(w[i], w[k]), l = lu_strcmp(w[i], w[k]);
			ck_assert_msg((c < 0) == (l < 0) && (c > 0) == (l > 0),
			              "'%s' '%s'", w[i], w[k]);
			ck_assert(lu_streq(w[i], w[k]) == (c == 0));
			ck_assert(lu_starts_with(w[i], w[k]) ==
			          (strncmp(w[i], w[k], strlen(w[k])) == 0));
		}
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("containers");
	tcase_add_test(tc, test_array);
	tcase_add_test(tc, test_str_loops);
#ifndef NDEBUG
	tcase_add_test_raise_signal(tc, test_array_get_asserts, SIGABRT);
#endif
	tcase_add_test(tc, test_grow_capacity);
	tcase_add_test(tc, test_sorted);
	tcase_add_test(tc, test_buf);
	tcase_add_test(tc, test_dir_paths);
	suite_add_tcase(s, tc);
	TCase *tt = tcase_create("text");
	tcase_add_loop_test(tt, test_utf8, 0,
	                    sizeof utf8_cases / sizeof *utf8_cases);
	tcase_add_loop_test(tt, test_utf8_padded, 0,
	                    sizeof utf8_cases / sizeof *utf8_cases);
	tcase_add_test(tt, test_utf8_clean);
	tcase_add_test(tt, test_utf8_encode);
	tcase_add_test(tt, test_sh_plain);
	tcase_add_test(tt, test_sha256);
	tcase_add_test(tt, test_path_find);
	tcase_add_test(tt, test_read);
	tcase_add_test(tt, test_base64);
	tcase_add_test(tt, test_write_all);
	tcase_add_loop_test(tt, test_path, 0,
	                    sizeof path_cases / sizeof *path_cases);
	suite_add_tcase(s, tt);
	TCase *tj = tcase_create("json");
	tcase_add_loop_test(tj, test_json, 0,
	                    sizeof json_cases / sizeof *json_cases);
	tcase_add_test(tj, test_json_options);
	tcase_add_test(tj, test_json_wide);
	tcase_add_test(tj, test_json_nul_escape);
	suite_add_tcase(s, tj);
	TCase *tr = tcase_create("regex and tools");
	tcase_add_test(tr, test_regex);
	tcase_add_test(tr, test_tools);
	suite_add_tcase(s, tr);
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
