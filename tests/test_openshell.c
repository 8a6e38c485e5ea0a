/*
 * tests/test_openshell.c - the OpenShell client and backend against the
 * strict fake gateway (tests/fake_openshell.py, /usr/bin/python3) over h2c
 * and mTLS, and every fault the fake can play.  The shared tool suite runs
 * over the same backend in tests/test_harness.c.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cancel_fx.h"
#include "fake_proc.h"
#include "net/openshell_client.h"
#include "locus/harness.h"
#include "skip.h"

#define PLACEHOLDER "openshell:resolve:env:GITHUB_TOKEN"

typedef struct gw {
	fake_proc p;
	char endpoint[64];
	char dir[64]; /* certificates (TLS) */
	char sbx[64]; /* a preset sandbox's folder */
	char ca[128], cert[128], key[128];
} gw;

/* Start the fake with extra args (NULL-terminated); preset sandbox
   "pre" with id "sb-pre" over a temp folder. */
static void gw_start(gw *g, bool tls, const char *const *extra)
{
	memset(g, 0, sizeof *g);
	snprintf(g->dir, sizeof g->dir, "/tmp/locus-os-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(g->dir));
	snprintf(g->sbx, sizeof g->sbx, "%s/sbx", g->dir);
	ck_assert_int_eq(mkdir(g->sbx, 0755), 0);
	const char *root = getenv("LOCUS_SOURCE_ROOT");
	static char proto[4096], pre[256];
	snprintf(proto, sizeof proto, "%s/net/openshell.proto",
	         root ? root : ".");
	snprintf(pre, sizeof pre, "pre:sb-pre:%s", g->sbx);
	const char *args[32] = {"--proto", proto, "--sandbox",  pre,
	                        "--polls", "2",   "--lifetime", "240"};
	int n = 8;
	if (tls) {
		args[n++] = "--tls";
		args[n++] = g->dir;
	}
	for (int i = 0; extra && extra[i] && n < 30; i++)
		args[n++] = extra[i];
	args[n] = NULL;
	ck_assert_int_eq(fake_start(&g->p, "fake_openshell.py", args), 0);
	snprintf(g->endpoint, sizeof g->endpoint, "127.0.0.1:%d", g->p.port);
	snprintf(g->ca, sizeof g->ca, "%s/ca.crt", g->dir);
	snprintf(g->cert, sizeof g->cert, "%s/client.crt", g->dir);
	snprintf(g->key, sizeof g->key, "%s/client.key", g->dir);
}

static void gw_stop(gw *g)
{
	fake_stop(&g->p);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", g->dir);
	ck_assert_int_eq(system(cmd), 0);
}

static lh_os_client client(gw *g, bool tls, const char *token)
{
	lh_grpc_channel_opts co = {.endpoint = g->endpoint};
	if (tls) {
		co.ca_file = g->ca;
		co.cert_file = g->cert;
		co.key_file = g->key;
	}
	co.bearer_token = token;
	lh_os_client c = {.call_timeout_s = 20};
	locus_error err;
	ck_assert_msg(lh_grpc_channel_new(&c.ch, &co, &err) == 0, "%s",
	              err.message);
	return c;
}

static bool no_placeholder(const char *s)
{
	return !s || !strstr(s, PLACEHOLDER);
}

/* Run a command through the backend: output (caller frees), exit code. */
static char *run(locus_backend *b, const char *cmd, double t, int *code)
{
	locus_exec_result r;
	locus_error err;
	ck_assert_msg(b->exec(b, cmd, t, LOCUS_EXEC_DEFAULT, &r, &err) == 0,
	              "%s: %s", cmd, err.message);
	*code = r.finished ? r.exit_code : -1;
	char *o = r.output ? r.output : strdup("");
	return o;
}

START_TEST(create_exec_files_h2c)
{
	gw g;
	gw_start(&g, false, NULL);
	locus_openshell_options o = LOCUS_OPENSHELL_OPTIONS_INIT;
	o.endpoint = g.endpoint;
	o.create_name = "locus-test";
	o.poll_interval_s = 0.05;
	locus_backend *b;
	locus_error err;
	ck_assert_msg(locus_backend_openshell_new(&b, &o, &err) == 0, "%s",
	              err.message);
	ck_assert_str_eq(b->root, "/sandbox");
	ck_assert(b->isolated);
	ck_assert(!strncmp(b->label, "openshell:127.0.0.1:", 20));
	ck_assert_ptr_nonnull(strstr(b->label, "/sb-"));

	/* login noise (with the placeholder) never reaches the output */
	int code;
	char *out = run(b, "echo hi; echo err >&2; exit 3", 10, &code);
	ck_assert_int_eq(code, 3);
	ck_assert_str_eq(out, "hi\nerr\n");
	free(out);
	out = run(b, "pwd; printf 'no newline'", 10, &code);
	ck_assert_int_eq(code, 0);
	ck_assert_str_eq(out, "/sandbox\nno newline");
	free(out);

	/* files: text, binary with NULs, and one of 2.5 MiB (4 parts) */
	static const char bin[] = "a\0b\xff\n\0";
	ck_assert_int_eq(b->write(b, "d/bin", bin, sizeof bin, &err), 0);
	char *d;
	size_t len;
	ck_assert_int_eq(b->read(b, "d/bin", &d, &len, &err), 0);
	ck_assert_uint_eq(len, sizeof bin);
	ck_assert_int_eq(memcmp(d, bin, len), 0);
	free(d);
	size_t big = 2621440 + 7;
	char *data = malloc(big);
	for (size_t i = 0; i < big; i++)
		data[i] = (char)(i * 7 + i / 4096);
	ck_assert_msg(b->write(b, "big.bin", data, big, &err) == 0, "%s",
	              err.message);
	ck_assert_msg(b->read(b, "big.bin", &d, &len, &err) == 0, "%s",
	              err.message);
	ck_assert_uint_eq(len, big);
	ck_assert_int_eq(memcmp(d, data, big), 0);
	free(d);
	free(data);
	ck_assert_int_eq(b->read(b, "nope", &d, &len, &err), LOCUS_ENOTFOUND);

	/* a script over the per-argument limit travels on stdin */
	char *longcmd = malloc(70010);
	strcpy(longcmd, "x=");
	memset(longcmd + 2, 'y', 69990);
	strcpy(longcmd + 69992, "; echo ${#x}");
	out = run(b, longcmd, 10, &code);
	ck_assert_int_eq(code, 0);
	ck_assert_str_eq(out, "69990\n");
	free(out);
	free(longcmd);

	/* a timeout: did not finish (not exit 124), and within bounds */
	out = run(b, "sleep 30", 1, &code);
	ck_assert_int_eq(code, -1);
	free(out);
	/* a command's own 124 before the deadline is its exit code */
	out = run(b, "exit 124", 10, &code);
	ck_assert_int_eq(code, 124);
	free(out);

	locus_backend_free(b);
	/* the owned sandbox is gone */
	lh_os_client c = client(&g, false, NULL);
	lh_os_sandbox s;
	ck_assert_int_eq(lh_os_get_sandbox(&c, "locus-test", &s, &err),
	                 LOCUS_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(err.message, "NOT_FOUND"));
	lh_grpc_channel_free(c.ch);
	gw_stop(&g);
}
END_TEST

START_TEST(attach_mtls_token)
{
	gw g;
	const char *extra[] = {"--require-client-cert", "--token", "s3cret",
	                       NULL};
	gw_start(&g, true, extra);
	locus_openshell_options o = LOCUS_OPENSHELL_OPTIONS_INIT;
	o.endpoint = g.endpoint;
	o.sandbox_id = "sb-pre";
	o.ca_file = g.ca;
	o.cert_file = g.cert;
	o.key_file = g.key;
	o.bearer_token = "s3cret";
	locus_backend *b;
	locus_error err;
	ck_assert_msg(locus_backend_openshell_new(&b, &o, &err) == 0, "%s",
	              err.message);
	ck_assert_int_eq(b->write(b, "hello.txt", "hi\n", 3, &err), 0);
	char path[128];
	snprintf(path, sizeof path, "%s/hello.txt", g.sbx);
	ck_assert_int_eq(access(path, F_OK), 0); /* really in the folder */
	int code;
	char *out = run(b, "cat hello.txt", 10, &code);
	ck_assert_str_eq(out, "hi\n");
	free(out);
	char label[128];
	snprintf(label, sizeof label, "openshell:%s/sb-pre", g.endpoint);
	ck_assert_str_eq(b->label, label);
	locus_backend_free(b);
	/* attached: not deleted */
	ck_assert_int_eq(access(path, F_OK), 0);

	/* no client certificate: the handshake fails */
	o.cert_file = o.key_file = NULL;
	ck_assert_int_eq(locus_backend_openshell_new(&b, &o, &err), LOCUS_EIO);
	/* wrong token: UNAUTHENTICATED (Health is unauthenticated, the
	   first exec is not) */
	o.cert_file = g.cert;
	o.key_file = g.key;
	o.bearer_token = "wrong";
	ck_assert_int_eq(locus_backend_openshell_new(&b, &o, &err),
	                 LOCUS_EDENIED);
	ck_assert_ptr_nonnull(strstr(err.message, "UNAUTHENTICATED"));
	ck_assert_ptr_null(strstr(err.message, "wrong"));
	o.bearer_token = NULL;
	ck_assert_int_eq(locus_backend_openshell_new(&b, &o, &err),
	                 LOCUS_EDENIED);
	ck_assert_ptr_nonnull(strstr(err.message, "missing authorization"));
	/* plain h2c to a TLS gateway: not HTTP/2, no gRPC */
	o.ca_file = o.cert_file = o.key_file = NULL;
	o.bearer_token = "s3cret";
	ck_assert_int_eq(locus_backend_openshell_new(&b, &o, &err), LOCUS_EIO);
	gw_stop(&g);
}
END_TEST

START_TEST(lifecycle_and_status_codes)
{
	gw g;
	gw_start(&g, false, NULL);
	lh_os_client c = client(&g, false, NULL);
	locus_error err;
	int st;
	char *ver;
	ck_assert_int_eq(lh_os_health(&c, &st, &ver, &err), 0);
	ck_assert_int_eq(st, 1);
	free(ver);
	lh_os_create cr = {.name = "box"};
	lh_os_sandbox s;
	ck_assert_int_eq(lh_os_create_sandbox(&c, &cr, &s, &err), 0);
	ck_assert_int_eq(s.phase, LH_OS_PHASE_PROVISIONING);
	char id[64];
	snprintf(id, sizeof id, "%s", s.id);
	lh_os_sandbox_clear(&s);
	/* the name is taken */
	ck_assert_int_eq(lh_os_create_sandbox(&c, &cr, &s, &err), LOCUS_EIO);
	ck_assert_ptr_nonnull(strstr(err.message, "ALREADY_EXISTS"));
	/* exec before READY: FAILED_PRECONDITION (trailers-only) */
	const char *argv[] = {"true"};
	lh_os_exec ex = {.sandbox_id = id, .argv = argv, .argc = 1};
	int code;
	ck_assert_int_eq(lh_os_exec_stream(&c, &ex, NULL, NULL, &code, &err),
	                 LOCUS_EIO);
	ck_assert_ptr_nonnull(strstr(err.message, "FAILED_PRECONDITION"));
	ck_assert_ptr_nonnull(strstr(err.message, "sandbox is not ready"));
	ck_assert_int_eq(lh_os_wait_ready(&c, "box", 10, 0.05, &s, &err), 0);
	lh_os_sandbox_clear(&s);
	ck_assert_int_eq(lh_os_exec_stream(&c, &ex, NULL, NULL, &code, &err),
	                 0);
	ck_assert_int_eq(code, 0);
	/* the gateway's timeout: exit 124 as it reports it */
	const char *slp[] = {"sleep", "20"};
	lh_os_exec ex2 = {
	    .sandbox_id = id, .argv = slp, .argc = 2, .timeout_seconds = 1};
	ck_assert_int_eq(lh_os_exec_stream(&c, &ex2, NULL, NULL, &code, &err),
	                 0);
	ck_assert_int_eq(code, 124);
	/* stop -> not ready; start -> ready again */
	ck_assert_int_eq(lh_os_stop_sandbox(&c, "box", &s, &err), 0);
	ck_assert_int_eq(s.phase, LH_OS_PHASE_STOPPED);
	lh_os_sandbox_clear(&s);
	ck_assert_int_eq(lh_os_exec_stream(&c, &ex, NULL, NULL, &code, &err),
	                 LOCUS_EIO);
	ck_assert_int_eq(lh_os_start_sandbox(&c, "box", &s, &err), 0);
	lh_os_sandbox_clear(&s);
	ck_assert_int_eq(lh_os_wait_ready(&c, "box", 10, 0.05, &s, &err), 0);
	lh_os_sandbox_clear(&s);
	ck_assert_int_eq(lh_os_exec_stream(&c, &ex, NULL, NULL, &code, &err),
	                 0);
	/* INVALID_ARGUMENT: the gateway's env key rule */
	const lh_os_kv env[] = {{"1BAD", "x"}};
	lh_os_exec ex3 = {
	    .sandbox_id = id, .argv = argv, .argc = 1, .env = env, .nenv = 1};
	ck_assert_int_eq(lh_os_exec_stream(&c, &ex3, NULL, NULL, &code, &err),
	                 LOCUS_EINVALID);
	ck_assert_ptr_nonnull(strstr(err.message, "INVALID_ARGUMENT"));
	/* NOT_FOUND for an unknown id */
	lh_os_exec ex4 = {.sandbox_id = "sb-none", .argv = argv, .argc = 1};
	ck_assert_int_eq(lh_os_exec_stream(&c, &ex4, NULL, NULL, &code, &err),
	                 LOCUS_ENOTFOUND);
	/* over 1 MiB: refused here before sending ... */
	size_t n = 1100000;
	uint8_t *in = calloc(1, n);
	lh_os_exec ex5 = {.sandbox_id = id,
	                  .argv = argv,
	                  .argc = 1,
	                  .stdin_data = in,
	                  .stdin_len = n};
	ck_assert_int_eq(lh_os_exec_stream(&c, &ex5, NULL, NULL, &code, &err),
	                 LOCUS_ETOOBIG);
	/* ... and the gateway's OUT_OF_RANGE maps to the same */
	char *huge = malloc(n + 1);
	memset(huge, 'a', n);
	huge[n] = '\0';
	ck_assert_int_eq(lh_os_get_sandbox(&c, huge, &s, &err), LOCUS_ETOOBIG);
	ck_assert_ptr_nonnull(strstr(err.message, "OUT_OF_RANGE"));
	free(huge);
	free(in);
	bool del;
	ck_assert_int_eq(lh_os_delete_sandbox(&c, "box", &del, &err), 0);
	ck_assert(del);
	ck_assert_int_eq(lh_os_delete_sandbox(&c, "box", &del, &err),
	                 LOCUS_ENOTFOUND);
	lh_grpc_channel_free(c.ch);
	gw_stop(&g);
}
END_TEST

/* The sandbox's main process (spec.command): started once at READY with
   the spec's environment, any exit is a terminal ERROR with its code, the
   sandbox cannot be started again, delete removes it; the spec rules the
   gateway enforces are refused before anything is made. */
START_TEST(main_process_is_terminal)
{
	gw g;
	gw_start(&g, false, NULL);
	lh_os_client c = client(&g, false, NULL);
	locus_error err;
	static const char script[] = "test \"$RUN_ID\" = r-1 || exit 9; "
	                             "echo started > /sandbox/main.out; exit 3";
	const char *const cmd[] = {"/bin/sh", "-c", script};
	const lh_os_kv env[] = {{"RUN_ID", "r-1"}};
	lh_os_create cr = {.name = "main",
	                   .command = cmd,
	                   .ncommand = 3,
	                   .env = env,
	                   .nenv = 1};
	lh_os_sandbox s;
	ck_assert_msg(lh_os_create_sandbox(&c, &cr, &s, &err) == 0, "%s",
	              err.message);
	lh_os_sandbox_clear(&s);
	/* READY starts it; its exit (3) makes the sandbox ERROR for good:
	   waiting for READY fails with the condition */
	int rc = 0;
	for (int i = 0; i < 2000; i++) {
		rc = lh_os_get_sandbox(&c, "main", &s, &err);
		ck_assert_int_eq(rc, 0);
		bool done = s.phase == LH_OS_PHASE_ERROR;
		if (done) {
			ck_assert(s.has_exit_code);
			ck_assert_int_eq(s.exit_code, 3);
			ck_assert_ptr_nonnull(
			    strstr(s.condition, "MainProcessExited"));
		}
		lh_os_sandbox_clear(&s);
		if (done)
			break;
		ck_assert_msg(i < 1999, "the main process never ended");
		usleep(20000); /* a poll, bounded by the loop */
	}
	ck_assert_int_eq(lh_os_wait_ready(&c, "main", 5, 0.05, &s, &err),
	                 LOCUS_EIO);
	ck_assert_ptr_nonnull(strstr(err.message, "MainProcessExited"));
	ck_assert_int_eq(lh_os_start_sandbox(&c, "main", &s, &err), LOCUS_EIO);
	ck_assert_ptr_nonnull(strstr(err.message, "FAILED_PRECONDITION"));
	bool del;
	ck_assert_int_eq(lh_os_delete_sandbox(&c, "main", &del, &err), 0);
	ck_assert(del);

	/* what the gateway refuses (INVALID_ARGUMENT, nothing made) */
	const char *const empty0[] = {"", "x"};
	const lh_os_kv reserved[] = {{"OPENSHELL_X", "1"}};
	const lh_os_kv newline[] = {{"A", "1\n2"}};
	struct {
		lh_os_create cr;
		const char *why;
	} bad[] = {
	    {{.name = "e1", .command = empty0, .ncommand = 2},
	     "spec.command[0] must not be empty"},
	    {{.name = "e2", .env = reserved, .nenv = 1}, "reserved"},
	    {{.name = "e3", .env = newline, .nenv = 1}, "newline"},
	    {{.name = "a-name-of-20-chars-x"}, "maximum length"},
	    {{.name = "a--b"}, "consecutive hyphens"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ck_assert_int_eq(lh_os_create_sandbox(&c, &bad[i].cr, &s, &err),
		                 LOCUS_EINVALID);
		ck_assert_msg(strstr(err.message, "INVALID_ARGUMENT") &&
		                  strstr(err.message, bad[i].why),
		              "%zu: %s", i, err.message);
		if (bad[i].cr.name && strlen(bad[i].cr.name) <= 19)
			ck_assert_int_eq(
			    lh_os_get_sandbox(&c, bad[i].cr.name, &s, &err),
			    LOCUS_ENOTFOUND);
	}
	lh_grpc_channel_free(c.ch);
	gw_stop(&g);
}
END_TEST

START_TEST(oversize_resource_exhausted)
{
	gw g;
	const char *extra[] = {"--oversize", "resource_exhausted", NULL};
	gw_start(&g, false, extra);
	lh_os_client c = client(&g, false, NULL);
	locus_error err;
	lh_os_sandbox s;
	size_t n = 1100000;
	char *huge = malloc(n + 1);
	memset(huge, 'a', n);
	huge[n] = '\0';
	ck_assert_int_eq(lh_os_get_sandbox(&c, huge, &s, &err), LOCUS_ETOOBIG);
	ck_assert_ptr_nonnull(strstr(err.message, "RESOURCE_EXHAUSTED"));
	free(huge);
	lh_grpc_channel_free(c.ch);
	gw_stop(&g);
}
END_TEST

/* A backend over a fake playing `fault`: the error of making it. */
static int with_fault(const char *fault, bool create, double ready_timeout,
                      locus_error *err, gw *g)
{
	const char *extra[] = {"--fault", fault, NULL};
	gw_start(g, false, extra);
	locus_openshell_options o = LOCUS_OPENSHELL_OPTIONS_INIT;
	o.endpoint = g->endpoint;
	if (create)
		o.create_name = "faulty";
	else
		o.sandbox_id = "sb-pre";
	o.poll_interval_s = 0.05;
	o.ready_timeout_s = ready_timeout;
	locus_backend *b = NULL;
	int rc = locus_backend_openshell_new(&b, &o, err);
	locus_backend_free(b);
	return rc;
}

START_TEST(faults)
{
	gw g;
	locus_error err;
	/* a stream cut before the exit event is a failure */
	ck_assert_int_eq(with_fault("cut-stream", false, 0, &err, &g),
	                 LOCUS_EIO);
	ck_assert_ptr_nonnull(strstr(err.message, "without an exit event"));
	gw_stop(&g);
	ck_assert_int_eq(with_fault("unavailable", false, 0, &err, &g),
	                 LOCUS_EIO);
	ck_assert_ptr_nonnull(strstr(err.message, "UNAVAILABLE"));
	gw_stop(&g);
	/* an unknown phase value is waited through */
	ck_assert_msg(with_fault("unknown-phase", true, 20, &err, &g) == 0,
	              "%s", err.message);
	gw_stop(&g);
	/* ERROR fails with the sandbox's condition, and the sandbox that was
	   created is deleted */
	ck_assert_int_eq(with_fault("error-phase", true, 20, &err, &g),
	                 LOCUS_EIO);
	ck_assert_ptr_nonnull(strstr(err.message, "ERROR"));
	ck_assert_ptr_nonnull(strstr(err.message, "ImagePullFailed"));
	lh_os_client c = client(&g, false, NULL);
	lh_os_sandbox s;
	ck_assert_int_eq(lh_os_get_sandbox(&c, "faulty", &s, &err),
	                 LOCUS_ENOTFOUND);
	lh_grpc_channel_free(c.ch);
	gw_stop(&g);
	ck_assert_int_eq(with_fault("never-ready", true, 1, &err, &g),
	                 LOCUS_ETIMEOUT);
	ck_assert_ptr_nonnull(strstr(err.message, "PROVISIONING"));
	gw_stop(&g);
	/* nothing listening */
	locus_openshell_options o = LOCUS_OPENSHELL_OPTIONS_INIT;
	o.endpoint = "127.0.0.1:1";
	o.sandbox_id = "x";
	locus_backend *b;
	ck_assert_int_eq(locus_backend_openshell_new(&b, &o, &err), LOCUS_EIO);
	/* bad options */
	o.create_name = "y";
	ck_assert_int_eq(locus_backend_openshell_new(&b, &o, &err),
	                 LOCUS_EINVALID);
	o.version = 99;
	ck_assert_int_eq(locus_backend_openshell_new(&b, &o, &err),
	                 LOCUS_EUSAGE);
}
END_TEST

/* The placeholder is in the sandbox's environment and its login noise;
   nothing the tools return shows it unless a command prints it. */
START_TEST(placeholder_never_shown)
{
	gw g;
	gw_start(&g, false, NULL);
	locus_openshell_options o = LOCUS_OPENSHELL_OPTIONS_INIT;
	o.endpoint = g.endpoint;
	o.sandbox_id = "sb-pre";
	locus_backend *b;
	locus_error err;
	ck_assert_int_eq(locus_backend_openshell_new(&b, &o, &err), 0);
	locus_harness_config cfg = LOCUS_HARNESS_CONFIG_INIT;
	locus_harness *h;
	ck_assert_int_eq(
	    locus_harness_new(&h, b, locus_all_tools, NULL, NULL, &cfg, &err),
	    0);
	static const char *const calls[][2] = {
	    {"write", "{\"file_path\":\"a.txt\",\"content\":\"x\\n\"}"},
	    {"read", "{\"file_path\":\"a.txt\"}"},
	    {"ls", "{}"},
	    {"glob", "{\"pattern\":\"*\"}"},
	    {"grep", "{\"pattern\":\"x\"}"},
	    {"edit", "{\"file_path\":\"a.txt\",\"old_string\":\"x\","
	             "\"new_string\":\"y\"}"},
	    {"bash", "{\"command\":\"echo done\"}"},
	    {"read", "{\"file_path\":\"missing.txt\"}"},
	};
	for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
		char *out;
		bool is_err;
		ck_assert_int_eq(locus_harness_call(&out, &is_err, h,
		                                    calls[i][0], calls[i][1],
		                                    strlen(calls[i][1]), &err),
		                 0);
		ck_assert_msg(no_placeholder(out), "%s leaked: %s", calls[i][0],
		              out);
		free(out);
	}
	char *frag = NULL;
	ck_assert_int_eq(locus_harness_prompt_fragment(&frag, h), 0);
	ck_assert(no_placeholder(frag));
	locus_free(frag);
	/* the value is a placeholder the sandbox holds, not a secret */
	int code;
	char *out = run(b, "printf %s \"$GITHUB_TOKEN\"", 10, &code);
	ck_assert_str_eq(out, PLACEHOLDER);
	free(out);
	locus_harness_free(h);
	locus_backend_free(b);
	gw_stop(&g);
}
END_TEST

/* Run a shell line, its stdout (caller frees) and exit status. */
static char *sh_out(const char *cmd, int *status)
{
	FILE *f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	char *buf = calloc(1, 65536);
	size_t n = fread(buf, 1, 65535, f);
	buf[n] = '\0';
	int st = pclose(f);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return buf;
}

/* The front ends: `locus tool` and `locus mcp` with --backend openshell,
   the token from the environment, over mTLS. */
START_TEST(cli_front_ends)
{
	gw g;
	const char *extra[] = {"--require-client-cert", "--token", "tok-1",
	                       NULL};
	gw_start(&g, true, extra);
	const char *bin = getenv("LOCUS_BIN");
	ck_assert_ptr_nonnull(bin);
	char opts[1024], cmd[2048];
	snprintf(opts, sizeof opts,
	         "--backend openshell --openshell-endpoint %s "
	         "--openshell-sandbox sb-pre --openshell-token-env OS_TOK "
	         "--openshell-ca %s --openshell-cert %s --openshell-key %s",
	         g.endpoint, g.ca, g.cert, g.key);
	int st;
	snprintf(cmd, sizeof cmd,
	         "OS_TOK=tok-1 %s tool write "
	         "'{\"path\":\"cli.txt\",\"content\":\"from cli\\n\"}' %s",
	         bin, opts);
	char *out = sh_out(cmd, &st);
	ck_assert_msg(st == 0, "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd,
	         "OS_TOK=tok-1 %s tool bash '{\"command\":\"cat cli.txt\"}' %s",
	         bin, opts);
	out = sh_out(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "from cli"), "%s", out);
	ck_assert(no_placeholder(out));
	free(out);
	/* the token variable unset: a usage error, nothing sent */
	snprintf(cmd, sizeof cmd, "%s tool ls '{}' %s 2>&1", bin, opts);
	out = sh_out(cmd, &st);
	ck_assert_int_eq(st, 2);
	ck_assert_ptr_nonnull(strstr(out, "OS_TOK"));
	free(out);
	/* a wrong token: refused by the gateway; the token is not echoed */
	snprintf(cmd, sizeof cmd, "OS_TOK=bad-tok %s tool ls '{}' %s 2>&1", bin,
	         opts);
	out = sh_out(cmd, &st);
	ck_assert_int_eq(st, 2);
	ck_assert_ptr_nonnull(strstr(out, "UNAUTHENTICATED"));
	ck_assert_ptr_null(strstr(out, "bad-tok"));
	free(out);
	/* locus mcp serves the sandbox */
	snprintf(
	    cmd, sizeof cmd,
	    "printf '%%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":"
	    "\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
	    "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
	    "\"version\":\"1\"}}}' '{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}' "
	    "'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"read\",\"arguments\":"
	    "{\"path\":\"cli.txt\"}}}' | OS_TOK=tok-1 %s mcp %s",
	    bin, opts);
	out = sh_out(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "from cli"), "%s", out);
	free(out);
	/* options without the backend */
	snprintf(cmd, sizeof cmd,
	         "%s tool ls '{}' --openshell-endpoint 127.0.0.1:1 2>&1", bin);
	out = sh_out(cmd, &st);
	ck_assert_int_eq(st, 2);
	free(out);
	gw_stop(&g);
}
END_TEST

/* An HTTP/1.1-only server (tests/fake_http.py) is not a gRPC gateway:
   over TLS libcurl would fall back to 1.1, which is refused. */
START_TEST(http1_refused)
{
	char dir[64];
	snprintf(dir, sizeof dir, "/tmp/locus-os-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	const char *args[] = {"--tls", dir, NULL};
	fake_proc p;
	ck_assert_int_eq(fake_start(&p, "fake_http.py", args), 0);
	char ep[64], ca[128];
	snprintf(ep, sizeof ep, "127.0.0.1:%d", p.port);
	snprintf(ca, sizeof ca, "%s/ca.pem", dir);
	lh_grpc_channel_opts co = {.endpoint = ep, .ca_file = ca};
	lh_os_client c = {.call_timeout_s = 10};
	locus_error err;
	ck_assert_int_eq(lh_grpc_channel_new(&c.ch, &co, &err), 0);
	int st;
	char *ver = NULL;
	ck_assert_int_eq(lh_os_health(&c, &st, &ver, &err), LOCUS_EIO);
	ck_assert_msg(strstr(err.message, "HTTP/2"), "%s", err.message);
	lh_grpc_channel_free(c.ch);
	fake_stop(&p);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The fake's strictness itself: what a sloppy encoder or a call without
   a deadline would send is refused (so the suites above prove locus sends
   neither). */
START_TEST(fake_is_strict)
{
	gw g;
	gw_start(&g, false, NULL);
	lh_os_client c = client(&g, false, NULL);
	locus_error err;
	lh_grpc_result res;
	/* GetSandbox{name:"box", workspace:"ws"} with the fields reversed */
	static const uint8_t rev[] = {0,   0,   0,    0, 9,   0x12, 2,
	                              'w', 's', 0x0a, 3, 'b', 'o',  'x'};
	ck_assert_int_eq(
	    lh_grpc_call(c.ch, "/openshell.v1.OpenShell/GetSandbox", rev,
	                 sizeof rev, 10, true, NULL, NULL, &res, &err),
	    0);
	ck_assert_int_eq(res.code, LH_GRPC_INVALID_ARGUMENT);
	ck_assert_msg(strstr(res.message, "non-canonical"), "%s", res.message);
	/* a default sent (workspace "") and an unknown field (9) */
	static const uint8_t def[] = {0, 0,   0,   0,   7,    0x0a,
	                              3, 'b', 'o', 'x', 0x12, 0};
	ck_assert_int_eq(lh_grpc_call(c.ch,
	                              "/openshell.v1.OpenShell/GetSandbox", def,
	                              12, 10, true, NULL, NULL, &res, &err),
	                 0);
	ck_assert_int_eq(res.code, LH_GRPC_INVALID_ARGUMENT);
	static const uint8_t unk[] = {0, 0,   0,   0,   7,    0x0a,
	                              3, 'b', 'o', 'x', 0x48, 1};
	ck_assert_int_eq(lh_grpc_call(c.ch,
	                              "/openshell.v1.OpenShell/GetSandbox", unk,
	                              12, 10, true, NULL, NULL, &res, &err),
	                 0);
	ck_assert_int_eq(res.code, LH_GRPC_INVALID_ARGUMENT);
	/* the canonical form passes that check (and finds no such box) */
	static const uint8_t ok[] = {0, 0, 0, 0, 5, 0x0a, 3, 'b', 'o', 'x'};
	ck_assert_int_eq(
	    lh_grpc_call(c.ch, "/openshell.v1.OpenShell/GetSandbox", ok,
	                 sizeof ok, 10, true, NULL, NULL, &res, &err),
	    0);
	ck_assert_int_eq(res.code, LH_GRPC_NOT_FOUND);
	/* no grpc-timeout (timeout 0): refused */
	ck_assert_int_eq(
	    lh_grpc_call(c.ch, "/openshell.v1.OpenShell/GetSandbox", ok,
	                 sizeof ok, 0, true, NULL, NULL, &res, &err),
	    0);
	ck_assert_int_eq(res.code, LH_GRPC_INVALID_ARGUMENT);
	ck_assert_msg(strstr(res.message, "grpc-timeout"), "%s", res.message);
	lh_grpc_channel_free(c.ch);
	gw_stop(&g);
}
END_TEST

/* ---- cancellation (exec_ctl) and the output window ---- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return strdup("");
	char buf[256];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strdup(buf);
}

static locus_session *attach_pre(gw *g, size_t output_max)
{
	locus_openshell_options o = LOCUS_OPENSHELL_OPTIONS_INIT;
	o.endpoint = g->endpoint;
	o.sandbox_id = "sb-pre";
	o.output_max = output_max;
	locus_session *s;
	locus_error err;
	ck_assert_msg(locus_session_openshell_new(&s, NULL, &o, &err) == 0,
	              "%s", err.message);
	ck_assert_ptr_nonnull(s->exec_ctl);
	return s;
}

/* The gateway has no cancel and the (strict) fake, like it, lets a
   command whose stream was cancelled run on: only locus's kill script
   stops it, its setsid child too. */
START_TEST(cancel_kills_the_command)
{
	gw g;
	gw_start(&g, false, NULL);
	locus_session *s = attach_pre(&g, 0);
	cancel_fx_ticker(s, "", g.sbx);
	int code;
	char *out;
	size_t len;
	bool cancelled;
	locus_error err;
	char tick[256], esc[256];
	snprintf(tick, sizeof tick, "%s/tick", g.sbx);
	snprintf(esc, sizeof esc, "%s/esc", g.sbx);
	char *t1 = slurp(tick), *e1 = slurp(esc);
	ck_assert_str_ne(t1, "");
	ck_assert_str_ne(e1, "");
	free(t1);
	free(e1);
	/* the loop and its setsid child are killed, not left ticking */
	snprintf(tick, sizeof tick, "%s/tick.pid", g.sbx);
	snprintf(esc, sizeof esc, "%s/esc.pid", g.sbx);
	ck_assert_msg(cancel_fx_pid_gone(tick), "the command still runs");
	ck_assert_msg(cancel_fx_pid_gone(esc), "its setsid child still runs");

	/* a ctl never cancelled: an ordinary result */
	locus_call_ctl quiet = LOCUS_CALL_CTL_INIT;
	ck_assert_int_eq(s->exec_ctl(s, "echo fine; exit 4", 20, &quiet, &code,
	                             &out, &len, &cancelled, &err),
	                 0);
	ck_assert(!cancelled);
	ck_assert_int_eq(code, 4);
	ck_assert_str_eq(out, "fine\n");
	free(out);
	/* the guard's files are gone after a normal end and after the
	   cancel: only this command's own pid file is there */
	ck_assert_int_eq(s->exec(s,
	                         "ls -a \"${TMPDIR:-/tmp}\" | grep -c "
	                         "locus-c- || true",
	                         20, &code, &out, &len, &err),
	                 0);
	ck_assert_str_eq(out, "1\n");
	free(out);
	locus_session_free(s);
	gw_stop(&g);
}
END_TEST

/* Output past the cap is cut to its head and tail with a note, not an
   error (as the other backends). */
START_TEST(output_window)
{
	gw g;
	gw_start(&g, false, NULL);
	locus_session *s = attach_pre(&g, 1u << 20);
	int code;
	char *out;
	size_t len;
	locus_error err;
	ck_assert_msg(s->exec(s,
	                      "echo START; head -c 3000000 /dev/zero | tr "
	                      "'\\0' a; echo; echo END",
	                      60, &code, &out, &len, &err) == 0,
	              "%s", err.message);
	ck_assert_int_eq(code, 0);
	ck_assert_uint_le(len, (1u << 20) + 200);
	ck_assert_uint_ge(len, (1u << 20) - 400);
	ck_assert(!strncmp(out, "START\naaaa", 10));
	ck_assert_str_eq(out + len - 5, "\nEND\n");
	ck_assert_msg(strstr(out, "bytes of output dropped"), "no note");
	/* head + dropped + tail = everything the command wrote */
	const char *note = strstr(out, "\n[... ");
	ck_assert_ptr_nonnull(note);
	size_t dropped = strtoul(note + 6, NULL, 10);
	size_t kept = len - (size_t)(strchr(note + 1, '\n') + 1 - note);
	ck_assert_uint_eq(kept + dropped, 6 + 3000000 + 1 + 4);
	free(out);
	/* under the cap: whole, no note */
	ck_assert_int_eq(s->exec(s, "head -c 500000 /dev/zero | tr '\\0' b", 60,
	                         &code, &out, &len, &err),
	                 0);
	ck_assert_uint_eq(len, 500000);
	ck_assert_ptr_null(strstr(out, "dropped"));
	free(out);
	locus_session_free(s);
	gw_stop(&g);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("openshell");
	TCase *t = tcase_create("fake");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, create_exec_files_h2c);
	tcase_add_test(t, attach_mtls_token);
	tcase_add_test(t, lifecycle_and_status_codes);
	tcase_add_test(t, main_process_is_terminal);
	tcase_add_test(t, oversize_resource_exhausted);
	tcase_add_test(t, faults);
	tcase_add_test(t, placeholder_never_shown);
	tcase_add_test(t, cli_front_ends);
	tcase_add_test(t, http1_refused);
	tcase_add_test(t, fake_is_strict);
	tcase_add_test(t, cancel_kills_the_command);
	tcase_add_test(t, output_window);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	if (access("/usr/bin/python3", X_OK) ||
	    system("/usr/bin/python3 -c 'import grpc, google.protobuf' "
	           ">/dev/null 2>&1") ||
	    system("bwrap --unshare-user --unshare-net --ro-bind / / true "
	           ">/dev/null 2>&1")) {
		fprintf(stderr, "SKIPPED (not passed): the fake gateway needs "
		                "/usr/bin/python3 with grpcio and protobuf, "
		                "and bwrap\n");
		return TEST_SKIPPED;
	}
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return test_exit(failed);
}
