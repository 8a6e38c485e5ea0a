/*
 * tests/test_options.c - the *_init functions of the options structs,
 * "zero is the default", and older struct versions still read their way
 * (harness/options.c, docs/api.md).
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"

/* The init of one struct: NULL is refused, another version is refused and
   leaves the struct alone, the right one gives zeroes and the version. */
#define CHECK_INIT(type, fn, VERSION)                                          \
	do {                                                                   \
		type o;                                                        \
		memset(&o, 0xAB, sizeof o);                                    \
		ck_assert_int_eq(fn(NULL, VERSION), LOCUS_EUSAGE);             \
		ck_assert_int_eq(fn(&o, VERSION + 1), LOCUS_EINVALID);         \
		ck_assert_int_eq(fn(&o, 0), LOCUS_EINVALID);                   \
		ck_assert_uint_eq(((unsigned char *)&o)[sizeof o - 1], 0xAB);  \
		ck_assert_int_eq(fn(&o, VERSION), 0);                          \
		ck_assert_uint_eq(o.version, VERSION);                         \
		type z;                                                        \
		memset(&z, 0, sizeof z);                                       \
		z.version = VERSION;                                           \
		ck_assert_int_eq(memcmp(&o, &z, sizeof o), 0);                 \
	} while (0)

START_TEST(every_init)
{
	CHECK_INIT(locus_shell_options, locus_shell_options_init,
	           LOCUS_SHELL_OPTIONS_VERSION);
	CHECK_INIT(locus_action_options, locus_action_options_init,
	           LOCUS_ACTION_OPTIONS_VERSION);
	CHECK_INIT(locus_claude_settings_options,
	           locus_claude_settings_options_init,
	           LOCUS_CLAUDE_SETTINGS_OPTIONS_VERSION);
	CHECK_INIT(locus_gate_input, locus_gate_input_init,
	           LOCUS_GATE_INPUT_VERSION);
	CHECK_INIT(locus_audit_options, locus_audit_options_init,
	           LOCUS_AUDIT_OPTIONS_VERSION);
	CHECK_INIT(locus_harness_config, locus_harness_config_init,
	           LOCUS_HARNESS_CONFIG_VERSION);
	CHECK_INIT(locus_call_ctl, locus_call_ctl_init, LOCUS_CALL_CTL_VERSION);
	CHECK_INIT(locus_policy_wrap, locus_policy_wrap_init,
	           LOCUS_POLICY_WRAP_VERSION);
	CHECK_INIT(locus_local_options, locus_local_options_init,
	           LOCUS_LOCAL_OPTIONS_VERSION);
	CHECK_INIT(locus_bwrap_options, locus_bwrap_options_init,
	           LOCUS_BWRAP_OPTIONS_VERSION);
	CHECK_INIT(locus_oci_options, locus_oci_options_init,
	           LOCUS_OCI_OPTIONS_VERSION);
	CHECK_INIT(locus_openshell_options, locus_openshell_options_init,
	           LOCUS_OPENSHELL_OPTIONS_VERSION);
}
END_TEST

/* A harness over a memory backend with one file; `write` of it unread. */
static bool write_unread(const locus_harness_config *cfg, int *rc)
{
	locus_backend *b = NULL;
	locus_error err = {0};
	ck_assert_int_eq(locus_backend_memory_new(&b, &err), 0);
	ck_assert_int_eq(b->write(b, "a.txt", "one\n", 4, &err), 0);
	static const char *const tools[] = {"write", NULL};
	locus_harness *h = NULL;
	*rc = locus_harness_new(&h, b, tools, NULL, NULL, cfg, &err);
	bool changed = false;
	if (*rc == 0) {
		char *out = NULL;
		bool is_error = false;
		const char *args =
		    "{\"path\":\"a.txt\",\"content\":\"two\\n\"}";
		ck_assert_int_eq(locus_harness_call(&out, &is_error, h, "write",
		                                    args, strlen(args), &err),
		                 0);
		locus_free(out);
		char *data = NULL;
		size_t len = 0;
		ck_assert_int_eq(b->read(b, "a.txt", &data, &len, &err), 0);
		changed = strcmp(data, "two\n") == 0;
		ck_assert(changed != is_error);
		free(data);
	}
	locus_harness_free(h);
	locus_backend_free(b);
	return changed;
}

/* Zero is the default: a zero-filled config (version set) keeps the
   read-before-edit rule on, the first case. */
START_TEST(zero_config_requires_read)
{
	int rc;
	locus_harness_config cfg;
	ck_assert_int_eq(
	    locus_harness_config_init(&cfg, LOCUS_HARNESS_CONFIG_VERSION), 0);
	ck_assert(!write_unread(&cfg, &rc));
	ck_assert_int_eq(rc, 0);
	locus_harness_config m = LOCUS_HARNESS_CONFIG_INIT;
	ck_assert(!write_unread(&m, &rc));
	ck_assert(!write_unread(NULL, &rc));
	cfg.allow_unread_edits = true;
	ck_assert(write_unread(&cfg, &rc));
}
END_TEST

/* A version-1 config (the bool was require_read) is still read its way. */
START_TEST(version_1_config)
{
	int rc;
	locus_harness_config v1;
	memset(&v1, 0, sizeof v1);
	v1.version = 1;
	v1.allow_unread_edits = true; /* version 1: require_read = true */
	ck_assert(!write_unread(&v1, &rc));
	ck_assert_int_eq(rc, 0);
	v1.allow_unread_edits = false; /* require_read = false */
	ck_assert(write_unread(&v1, &rc));
	v1.version = 3;
	ck_assert(!write_unread(&v1, &rc));
	ck_assert_int_eq(rc, LOCUS_EINVALID);
}
END_TEST

static bool g_trapped;
static int trap_cas(locus_backend *b, const char *path, const char *data,
                    size_t len, const char *expect, locus_error *err)
{
	(void)b, (void)path, (void)data, (void)len, (void)expect, (void)err;
	g_trapped = true;
	return LOCUS_EIO;
}

/* LOCUS_BACKEND_VERSION 2 grew the vtable: a version-1 backend is still
   taken, and the members it did not have are never read (here they hold
   a trap), nor is a version past the library's accepted. */
START_TEST(version_1_backend)
{
	locus_backend *b = NULL;
	locus_error err = {0};
	ck_assert_int_eq(LOCUS_BACKEND_VERSION, 2);
	ck_assert_int_eq(locus_backend_memory_new(&b, &err), 0);
	ck_assert_int_eq(b->write(b, "a.txt", "one\n", 4, &err), 0);
	int (*cas)(locus_backend *, const char *, const char *, size_t,
	           const char *, locus_error *) = b->write_cas;
	b->write_cas = trap_cas;
	b->version = 1;
	static const char *const tools[] = {"read", "write", NULL};
	locus_harness *h = NULL;
	ck_assert_int_eq(
	    locus_harness_new(&h, b, tools, NULL, NULL, NULL, &err), 0);
	char *out = NULL;
	bool is_error = true;
	const char *r = "{\"path\":\"a.txt\"}";
	ck_assert_int_eq(
	    locus_harness_call(&out, &is_error, h, "read", r, strlen(r), &err),
	    0);
	locus_free(out);
	const char *w = "{\"path\":\"a.txt\",\"content\":\"two\\n\"}";
	ck_assert_int_eq(
	    locus_harness_call(&out, &is_error, h, "write", w, strlen(w), &err),
	    0);
	ck_assert_msg(!is_error, "%s", out);
	locus_free(out);
	ck_assert(!g_trapped);
	locus_harness_free(h);
	b->version = LOCUS_BACKEND_VERSION + 1;
	ck_assert_int_eq(
	    locus_harness_new(&h, b, tools, NULL, NULL, NULL, &err),
	    LOCUS_EUSAGE);
	b->version = LOCUS_BACKEND_VERSION;
	b->write_cas = cas;
	locus_backend_free(b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("options");
	TCase *t = tcase_create("options");
	tcase_add_test(t, every_init);
	tcase_add_test(t, zero_config_requires_read);
	tcase_add_test(t, version_1_config);
	tcase_add_test(t, version_1_backend);
	suite_add_tcase(s, t);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
