/*
 * tests/test_reliability.c - reliability round 3: each of the
 * red team's findings as a check that failed before its fix.
 *
 * - front ends answer every line at once, and a "\u0000" is a verdict
 *   (exec:unparsed), never "line is not JSON" (item 9);
 * - notebook_edit refuses a notebook with a key twice (item 6);
 * - glob finds files deeper than 256 folders (item 7).
 *
 * The CLI cases drive the built `locus` ($LOCUS_BIN) as a client would:
 * one line written, its answer awaited with stdin left open (a poll with a
 * deadline: a front end that holds its answer back fails, it never hangs
 * the suite).
 */
#include "harness_fx.h"
#include "run_locus.h"

#include <poll.h>

/* ---------------- a line-at-a-time client ---------------- */

typedef struct client {
	pid_t pid;
	int in, out;
	char buf[1 << 16];
	size_t len;
} client;

static void client_start(client *c, const char *const *argv)
{
	memset(c, 0, sizeof *c);
	c->pid = locus_spawn(argv, &c->in, &c->out, NULL);
}

/* Write one line and wait for one answer line (stdin stays open); the
   answer, malloc'd.  No answer within 60 s is a failure: the front end
   kept it in a buffer. */
static char *client_ask(client *c, const char *line)
{
	size_t n = strlen(line);
	ck_assert_int_eq(write(c->in, line, n), (ssize_t)n);
	ck_assert_int_eq(write(c->in, "\n", 1), 1);
	for (;;) {
		char *nl = memchr(c->buf, '\n', c->len);
		if (nl) {
			size_t k = (size_t)(nl - c->buf);
			char *a = strndup(c->buf, k);
			memmove(c->buf, nl + 1, c->len - k - 1);
			c->len -= k + 1;
			return a;
		}
		struct pollfd p = {.fd = c->out, .events = POLLIN};
		int r = poll(&p, 1, 60000);
		ck_assert_msg(r == 1, "no answer to %.80s while stdin is open",
		              line);
		ck_assert_uint_lt(c->len, sizeof c->buf);
		ssize_t got =
		    read(c->out, c->buf + c->len, sizeof c->buf - c->len);
		ck_assert_msg(got > 0,
		              "the front end ended without answering "
		              "%.80s",
		              line);
		c->len += (size_t)got;
	}
}

static void client_end(client *c)
{
	close(c->in);
	close(c->out);
	int st;
	ck_assert_int_eq(waitpid(c->pid, &st, 0), c->pid);
}

static const char nul_call[] =
    "{\"tool\":\"bash\",\"arguments\":{\"command\":\"ls\\u0000 -la\"}}";

/* `locus gate`: every line answered before the next is sent, a bad line
   too; the NUL line is judged (exec:unparsed, held), not refused. */
START_TEST(gate_answers_each_line)
{
	client c;
	const char *argv[] = {"locus", "gate", NULL};
	client_start(&c, argv);
	char *a = client_ask(&c, "not json");
	ck_assert_msg(strstr(a, "\"error\""), "%s", a);
	free(a);
	a = client_ask(&c, nul_call);
	ck_assert_msg(!strstr(a, "not JSON") && strstr(a, "exec:unparsed") &&
	                  strstr(a, "\"outcome\":\"require_human\""),
	              "the NUL call: %s", a);
	free(a);
	/* under permissive too, the NUL line is never allowed */
	a = client_ask(&c, "{\"tool\":\"bash\",\"arguments\":{\"command\":"
	                   "\"ls\"}}");
	ck_assert_msg(strstr(a, "\"outcome\":\"allow\""), "%s", a);
	free(a);
	client_end(&c);
}
END_TEST

/* The library: a NUL in any tool's arguments is an exec the parser could
   not read, under every preset that holds exec:unparsed. */
START_TEST(gate_nul_is_unparsed)
{
	locus_policy *p = NULL;
	locus_error err = {0};
	ck_assert_int_eq(locus_policy_preset(&p, "standard", &err), 0);
	static const struct {
		const char *tool, *args;
	} calls[] = {
	    {"bash", "{\"command\":\"ls\\u0000; rm -rf /\"}"},
	    {"Bash", "{\"command\":\"echo\\u0000\"}"},
	    {"read", "{\"path\":\"a\\u0000b\"}"},
	    {"write", "{\"path\":\"a\",\"content\":\"x\\u0000\"}"},
	};
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		locus_decision *d = NULL;
		int rc = locus_gate(&d, p, NULL, calls[i].tool, calls[i].args,
		                    strlen(calls[i].args), NULL, &err);
		ck_assert_msg(rc == 0, "%s: %s", calls[i].args, err.message);
		ck_assert_msg(locus_decision_outcome(d) != LOCUS_OUTCOME_ALLOW,
		              "%s allowed", calls[i].args);
		char *j = NULL;
		ck_assert_int_eq(locus_decision_json(&j, d, 0), 0);
		ck_assert_msg(strstr(j, "exec:unparsed") &&
		                  strstr(j, "workspace.exec"),
		              "%s", j);
		locus_free(j);
		locus_decision_free(d);
	}
	locus_policy_free(p);
}
END_TEST

/* `locus classify --jsonl` and plain lines, with one thread and with
   --jobs (which batches lines): each answered while stdin is open. */
START_TEST(classify_answers_each_line)
{
	const char *modes[][5] = {
	    {"locus", "classify", "--jsonl", NULL},
	    {"locus", "classify", "--jsonl", "--jobs", "2"},
	    {"locus", "classify", NULL},
	};
	for (size_t m = 0; m < 3; m++) {
		const char *argv[6] = {0};
		for (size_t i = 0; i < 5 && modes[m][i]; i++)
			argv[i] = modes[m][i];
		client c;
		client_start(&c, argv);
		bool jsonl = m < 2;
		char *a = client_ask(&c, jsonl ? "{\"command\":\"ls\"}" : "ls");
		ck_assert_msg(strstr(a, "workspace.read"), "%s", a);
		free(a);
		a = client_ask(&c, jsonl ? nul_call : "rm -rf /");
		ck_assert_msg(strstr(a, jsonl ? "exec:unparsed" : "exec:never"),
		              "%s", a);
		free(a);
		a = client_ask(&c, jsonl ? "{bad" : "echo hi");
		ck_assert_msg(strstr(a, jsonl ? "error" : "workspace.read"),
		              "%s", a);
		free(a);
		client_end(&c);
	}
}
END_TEST

/* `locus tool -` and `locus mcp` answer at once too. */
START_TEST(tool_and_mcp_answer_each_line)
{
	mk_tmp();
	const char *tool[] = {"locus", "tool",   "-",    "--backend",
	                      "local", "--root", g_root, NULL};
	client c;
	client_start(&c, tool);
	char *a = client_ask(
	    &c, "{\"tool\":\"write\",\"arguments\":{\"path\":\"a.txt\","
	        "\"content\":\"hi\\n\"}}");
	ck_assert_msg(strstr(a, "Created a.txt"), "%s", a);
	free(a);
	a = client_ask(&c, "not json");
	ck_assert_msg(strstr(a, "error"), "%s", a);
	free(a);
	client_end(&c);
	const char *mcp[] = {"locus",  "mcp",  "--backend", "local",
	                     "--root", g_root, NULL};
	client_start(&c, mcp);
	a = client_ask(&c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	                   "\"initialize\",\"params\":{\"protocolVersion\":"
	                   "\"2025-06-18\",\"capabilities\":{},"
	                   "\"clientInfo\":{\"name\":\"t\",\"version\":"
	                   "\"1\"}}}");
	ck_assert_msg(strstr(a, "\"id\":1"), "%s", a);
	free(a);
	a = client_ask(&c, "not json");
	ck_assert_msg(strstr(a, "Parse error"), "%s", a);
	free(a);
	client_end(&c);
	rm_tmp();
}
END_TEST

/* ---------------- notebook_edit (item 6) ---------------- */

START_TEST(notebook_duplicate_keys)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	/* Jupyter (Python's json) reads the last "cells" */
	static const char dup[] =
	    "{\"cells\":[{\"cell_type\":\"code\",\"id\":\"a\",\"source\":"
	    "\"first\",\"metadata\":{},\"outputs\":[]}],"
	    "\"cells\":[{\"cell_type\":\"code\",\"id\":\"b\",\"source\":"
	    "\"last\",\"metadata\":{},\"outputs\":[]}],"
	    "\"metadata\":{},\"nbformat\":4,\"nbformat_minor\":5}\n";
	put(&f, "n.ipynb", dup);
	call_ok(&f, "read", "{\"path\":\"n.ipynb\"}", NULL);
	call_err(&f, "notebook_edit",
	         "{\"path\":\"n.ipynb\",\"cell\":0,\"source\":\"x\"}",
	         "has the key 'cells' twice");
	expect_file(&f, "n.ipynb", dup);
	/* a key twice deeper down too (a cell's "source") */
	static const char dup2[] =
	    "{\"cells\":[{\"cell_type\":\"code\",\"id\":\"a\",\"source\":"
	    "\"one\",\"source\":\"two\",\"metadata\":{},\"outputs\":[]}],"
	    "\"metadata\":{},\"nbformat\":4,\"nbformat_minor\":5}\n";
	put(&f, "m.ipynb", dup2);
	call_ok(&f, "read", "{\"path\":\"m.ipynb\"}", NULL);
	call_err(&f, "notebook_edit",
	         "{\"path\":\"m.ipynb\",\"cell\":0,\"source\":\"x\"}",
	         "has the key 'source' twice");
	expect_file(&f, "m.ipynb", dup2);
	fx_close(&f);
}
END_TEST

/* ---------------- glob at any depth (item 7) ---------------- */

START_TEST(glob_deep)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	/* 300 folders deep, then x */
	char path[1024] = "";
	for (int i = 0; i < 300; i++)
		strcat(path, "d/");
	strcat(path, "x");
	put(&f, path, "deep\n");
	put(&f, "x", "top\n");
	bool e;
	char *o = call(&f, "glob", "{\"pattern\":\"**/x\"}", &e);
	ck_assert_msg(!e, "%s", o);
	ck_assert_msg(strstr(o, path) != NULL, "the deep x is missing:\n%.300s",
	              o);
	free(o);
	o = call(&f, "glob", "{\"pattern\":\"d/**/d/x\"}", &e);
	ck_assert_msg(!e && strstr(o, path) != NULL, "%.300s", o);
	free(o);
	/* the native grep's glob filter takes the same matcher (a session
	   hands the glob to rg/grep --include, whose rules are theirs) */
	if (_i == BK_BWRAP) {
		fx_close(&f);
		return;
	}
	o = call(&f, "grep",
	         "{\"pattern\":\"deep\",\"glob\":\"**/x\","
	         "\"output_mode\":\"files\"}",
	         &e);
	ck_assert_msg(!e && strstr(o, path) != NULL, "%.300s", o);
	free(o);
	fx_close(&f);
}
END_TEST

/* ---------------- NUL bytes (item 4) ---------------- */

static void put_bytes(fx *f, const char *path, const char *d, size_t n)
{
	locus_error err = {0};
	ck_assert_msg(f->b->write(f->b, path, d, n, &err) == 0, "put %s: %s",
	              path, err.message);
}

/* read: a file that is mostly text with one NUL is shown whole, the NUL
   visible; a binary file is named binary with its length, and a line of
   it the model never saw cannot be edited. */
START_TEST(read_nul_shown_or_binary)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	static const char bin[] = "line1\nab\0cd HIDDEN\nline3\n";
	put_bytes(&f, "b.txt", bin, sizeof bin - 1);
	bool e;
	char *o = call(&f, "read", "{\"path\":\"b.txt\"}", &e);
	ck_assert_msg(strstr(o, "binary") && strstr(o, "25 bytes"), "%s", o);
	free(o);
	call_err(&f, "edit",
	         "{\"path\":\"b.txt\",\"old\":\"line3\",\"new\":\"x\"}",
	         "has not been read");
	/* one NUL in 300 bytes of text: every line shown */
	char text[400];
	memset(text, 'a', sizeof text);
	memcpy(text, "first\nab", 8);
	text[8] = '\0';
	memcpy(text + 9, "cd HIDDEN\n", 10);
	memcpy(text + 290, "\nline3\n", 7);
	put_bytes(&f, "t.txt", text, 297);
	o = call(&f, "read", "{\"path\":\"t.txt\"}", &e);
	ck_assert_msg(!e && strstr(o, "ab" LH_NUL_SHOWN "cd HIDDEN") &&
	                  strstr(o, "line3") && strstr(o, "1 NUL byte"),
	              "%s", o);
	free(o);
	fx_close(&f);
}
END_TEST

/* bash and bash_output: the output after a NUL is there, and the NUL is
   named (Local and bwrap). */
START_TEST(bash_nul_output_whole)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	bool e;
	char *o =
	    call(&f, "bash",
	         "{\"command\":\"printf 'ok\\\\0'; echo TESTS-FAILED\"}", &e);
	ck_assert_msg(strstr(o, "ok" LH_NUL_SHOWN "TESTS-FAILED") &&
	                  strstr(o, "1 NUL byte"),
	              "%s", o);
	free(o);
	o = call(&f, "bash",
	         "{\"command\":\"printf 'a\\\\0'; echo LATER\","
	         "\"background\":true}",
	         &e);
	ck_assert_msg(!e, "%s", o);
	const char *h = strstr(o, "as sh");
	ck_assert_ptr_nonnull(h);
	char handle[16];
	ck_assert_int_eq(sscanf(h + 3, "%15[a-z0-9]", handle), 1);
	free(o);
	char args[64];
	snprintf(args, sizeof args, "{\"handle\":\"%s\",\"since\":0}", handle);
	/* poll until it exited (a deadline, no fixed sleep) */
	for (int i = 0; i < 600; i++) {
		o = call(&f, "bash_output", args, &e);
		if (strstr(o, "exited"))
			break;
		free(o);
		o = NULL;
		usleep(100000);
	}
	ck_assert_msg(o && strstr(o, "a" LH_NUL_SHOWN "LATER") &&
	                  strstr(o, "1 NUL byte"),
	              "%s", o ? o : "(never exited)");
	free(o);
	fx_close(&f);
}
END_TEST

/* ---------------- bounded reads (item 1) ---------------- */

/* A sparse file past the bound (the agent can make one with truncate):
   refused on every backend before anything is copied; the bwrap session
   moves at most the bound and one byte into its host transfer folder. */
START_TEST(read_bounded)
{
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL))
		return;
	sh("truncate -s 300M '%s/big' && chmod a+r '%s/big'", g_root, g_root);
	bool e;
	char *o = call(&f, "read", "{\"path\":\"big\",\"limit\":1}", &e);
	ck_assert_msg(e && strstr(o, "larger than"), "%.300s", o);
	free(o);
	/* through the backend too: what a plan's old content is read with */
	char *d = NULL;
	size_t len = 0;
	locus_error err = {0};
	ck_assert_int_eq(f.b->read(f.b, "big", &d, &len, &err), LOCUS_ETOOBIG);
	ck_assert_ptr_null(d);
	fx_close(&f);
}
END_TEST

/* ---------------- the audit trail (items 2 and 3) ---------------- */

static locus_decision *a_decision(const locus_policy *p, const char *cmd)
{
	char args[200];
	snprintf(args, sizeof args, "{\"command\":\"%s\"}", cmd);
	locus_decision *d = NULL;
	locus_error err = {0};
	ck_assert_int_eq(
	    locus_gate(&d, p, NULL, "bash", args, strlen(args), NULL, &err), 0);
	return d;
}

static int a_append(locus_audit *a, const locus_policy *p, const char *cmd,
                    locus_error *err)
{
	locus_decision *d = a_decision(p, cmd);
	int rc = locus_audit_append(a, d, err);
	locus_decision_free(d);
	return rc;
}

/* A correctly chained record the keyed writer did not write (the agent
   appending with a keyless writer, as a bash call can): never adopted,
   never sealed, and `audit verify --key` names it. */
START_TEST(audit_forged_record_refused)
{
	mk_tmp();
	char ap[700], kp[700];
	snprintf(ap, sizeof ap, "%s/audit.jsonl", g_tmp);
	snprintf(kp, sizeof kp, "%s/key", g_tmp);
	sh("printf 'k3y-k3y-k3y-k3y-k3y-k3y' > '%s'", kp);
	locus_policy *p = NULL;
	ck_assert_int_eq(locus_policy_preset(&p, "standard", NULL), 0);
	locus_audit_options ao = LOCUS_AUDIT_OPTIONS_INIT;
	ao.key_path = kp;
	ao.checkpoint_every = 2;
	locus_audit *w = NULL;
	locus_error err = {0};
	ck_assert_int_eq(locus_audit_open_opts(&w, ap, &ao, &err), 0);
	ck_assert_int_eq(a_append(w, p, "ls", &err), 0);
	ck_assert_int_eq(a_append(w, p, "echo one", &err), 0);
	/* the forger: chaining needs no secret */
	locus_audit *f = NULL;
	ck_assert_int_eq(locus_audit_open(&f, ap, 0, &err), 0);
	ck_assert_int_eq(a_append(f, p, "echo FORGED", &err), 0);
	locus_audit_close(f);
	/* the writer does not continue over it */
	int rc = a_append(w, p, "echo two", &err);
	ck_assert_msg(rc == LOCUS_EINVALID && strstr(err.message, "forged"),
	              "the writer adopted a forged record: %d %s", rc,
	              err.message);
	locus_audit_close(w);
	/* verification with the key names the forged record (line 4: two
	   records and a checkpoint before it) */
	locus_audit_report r;
	ck_assert_int_eq(locus_audit_verify_report(&r, ap, kp, &err),
	                 LOCUS_EINVALID);
	ck_assert_uint_eq(r.bad_line, 4);
	ck_assert_msg(strstr(err.message, "MAC"), "%s", err.message);
	char cmd[2000], out[2000];
	snprintf(cmd, sizeof cmd, "'%s' audit verify --key '%s' '%s' 2>&1",
	         locus_bin(), kp, ap);
	int st = run_sh(cmd, out, sizeof out);
	ck_assert_msg(st == 1 && strstr(out, "line 4"), "%d %s", st, out);
	/* a new keyed writer does not take the forged end either */
	locus_audit *w2 = NULL;
	ck_assert_int_eq(locus_audit_open_opts(&w2, ap, &ao, &err),
	                 LOCUS_EINVALID);
	/* an honest co-writer with the key is adopted */
	sh("rm -f '%s'", ap);
	ck_assert_int_eq(locus_audit_open_opts(&w, ap, &ao, &err), 0);
	ck_assert_int_eq(locus_audit_open_opts(&w2, ap, &ao, &err), 0);
	ck_assert_int_eq(a_append(w, p, "ls", &err), 0);
	ck_assert_int_eq(a_append(w2, p, "ls -l", &err), 0);
	ck_assert_msg(a_append(w, p, "ls -la", &err) == 0, "%s", err.message);
	ck_assert_int_eq(locus_audit_finish(w2, &err), 0);
	ck_assert_int_eq(locus_audit_finish(w, &err), 0);
	ck_assert_msg(locus_audit_verify_report(&r, ap, kp, &err) == 0, "%s",
	              err.message);
	locus_policy_free(p);
	rm_tmp();
}
END_TEST

/* Refused attempts on the trail are recorded, with their asset. */
START_TEST(audit_refusals_recorded)
{
	fx f;
	locus_policy *pol = NULL;
	locus_policy_preset(&pol, "permissive", NULL);
	locus_policy_wrap w = LOCUS_POLICY_WRAP_INIT;
	w.policy = pol;
	if (!fx_open(&f, BK_LOCAL, NULL, locus_harness_policy_wrap, &w))
		return;
	w.workspace_root = g_root;
	char ap[800];
	snprintf(ap, sizeof ap, "%s/audit.jsonl", g_root);
	locus_error err = {0};
	ck_assert_int_eq(locus_audit_open(&w.audit, ap, 0, &err), 0);
	call_ok(&f, "bash", "{\"command\":\"echo hi\"}", "hi");
	bool e;
	char *o =
	    call(&f, "bash", "{\"command\":\"truncate -s 0 audit.jsonl\"}", &e);
	ck_assert_msg(e && strstr(o, "\"asset\":\"truncate -s 0 audit.jsonl\""),
	              "%s", o);
	free(o);
	o = call(&f, "write",
	         "{\"path\":\"audit.jsonl\",\"content\":\"{}\\n\"}", &e);
	ck_assert_msg(e && strstr(o, "\"asset\":\"audit.jsonl\""), "%s", o);
	free(o);
	locus_audit_close(w.audit);
	w.audit = NULL;
	size_t n;
	char *t = slurp(ap, &n);
	ck_assert_ptr_nonnull(t);
	/* three records: the echo, and the two refusals, each a deny with
	   its asset and the guard's reason */
	const char *l2 = strstr(t, "truncate -s 0 audit.jsonl");
	ck_assert_msg(l2 && strstr(t, "\"asset\":\"audit.jsonl\""), "%s", t);
	size_t denies = 0, lines = 0;
	for (char *l = t, *nl; (nl = strchr(l, '\n')); l = nl + 1) {
		*nl = '\0';
		lines++;
		denies += strstr(l, "\"outcome\":\"deny\"") != NULL;
		*nl = '\n';
	}
	ck_assert_uint_eq(lines, 3);
	ck_assert_uint_eq(denies, 2);
	ck_assert_ptr_nonnull(strstr(t, "audit trail guard"));
	ck_assert_int_eq(locus_audit_verify(NULL, NULL, ap, &err), 0);
	free(t);
	fx_close(&f);
	locus_policy_free(pol);
}
END_TEST

/* ---------------- SIGTERM cleans up (item 5) ---------------- */

/* Entries of dir whose name starts with "locus-". */
static int locus_entries(const char *dir)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, "locus-", 6);
	closedir(d);
	return n;
}

/* `locus tool bash` killed by SIGTERM mid-command: the command's tree,
   the state folder (local) or the transfer folder (bwrap) go, and locus
   dies of SIGTERM. */
START_TEST(tool_sigterm_cleans_up)
{
	mk_tmp();
	if (_i == BK_BWRAP && !bwrap_works()) {
		test_skip("bwrap cannot create namespaces here");
		rm_tmp();
		return;
	}
	if (_i == BK_BWRAP && geteuid() == 0)
		sh("chown 65534:65534 '%s' && chmod 755 '%s'", g_root, g_tmp);
	char tmpdir[700], started[700];
	snprintf(tmpdir, sizeof tmpdir, "%s/tmp", g_tmp);
	snprintf(started, sizeof started, "%s/started", g_root);
	ck_assert_int_eq(mkdir(tmpdir, 0777), 0);
	chmod(tmpdir, 0777);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setenv("TMPDIR", tmpdir, 1);
		int dn = open("/dev/null", O_RDWR);
		dup2(dn, 0);
		dup2(dn, 1);
		execl(locus_bin(), "locus", "tool", "bash",
		      "{\"command\":\"touch started; sleep 71.25\","
		      "\"timeout\":300}",
		      "--root", g_root, "--backend",
		      _i == BK_BWRAP ? "bwrap" : "local", "--preset",
		      "permissive", (char *)NULL);
		_exit(127);
	}
	/* wait (with a deadline) until the command runs */
	for (int i = 0; i < 1200 && access(started, F_OK); i++)
		usleep(50000);
	ck_assert_msg(access(started, F_OK) == 0, "the command never ran");
	ck_assert_int_ge(locus_entries(tmpdir), 1);
	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %d",
	              st);
	ck_assert_msg(locus_entries(tmpdir) == 0,
	              "locus-* folders left in TMPDIR");
	ck_assert(!host_sleep_alive("71.25"));
	rm_tmp();
}
END_TEST

/* ---------------- MCP: one call per id in flight (item 8) ---------------- */

START_TEST(mcp_duplicate_inflight_id)
{
	mk_tmp();
	const char *mcp[] = {"locus",    "mcp",        "--backend",
	                     "local",    "--root",     g_root,
	                     "--preset", "permissive", NULL};
	client c;
	client_start(&c, mcp);
	char *a =
	    client_ask(&c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	                   "\"initialize\",\"params\":{\"protocolVersion\":"
	                   "\"2025-06-18\",\"capabilities\":{},"
	                   "\"clientInfo\":{\"name\":\"t\",\"version\":"
	                   "\"1\"}}}");
	free(a);
	static const char call7[] =
	    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"bash\",\"arguments\":{\"command\":"
	    "\"sleep 63.5\"}}}";
	ck_assert_int_eq(write(c.in, call7, sizeof call7 - 1),
	                 sizeof call7 - 1);
	ck_assert_int_eq(write(c.in, "\n", 1), 1);
	/* the same id again */
	a = client_ask(&c, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
	                   "\"tools/call\",\"params\":{\"name\":\"bash\","
	                   "\"arguments\":{\"command\":\"echo second\"}}}");
	ck_assert_msg(strstr(a, "already in flight") && strstr(a, "-32600"),
	              "%s", a);
	free(a);
	/* the cancel reaches the one call; then a new id runs */
	a = client_ask(&c, "{\"jsonrpc\":\"2.0\",\"method\":"
	                   "\"notifications/cancelled\",\"params\":"
	                   "{\"requestId\":7}}\n"
	                   "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":"
	                   "\"tools/call\",\"params\":{\"name\":\"bash\","
	                   "\"arguments\":{\"command\":\"echo third\"}}}");
	ck_assert_msg(strstr(a, "\"id\":8") && strstr(a, "third"), "%s", a);
	ck_assert_msg(!strstr(a, "second"), "%s", a);
	free(a);
	client_end(&c);
	ck_assert(!host_sleep_alive("63.5"));
	rm_tmp();
}
END_TEST

/* ---------------- no stray descriptor (item 8) ---------------- */

/* A pipe the caller left open at fd 251 (as the red team's shell did)
   never reaches a command (Local, bwrap). */
START_TEST(commands_inherit_no_stray_fd)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(dup2(p[1], 251), 251); /* no close-on-exec */
	fx f;
	if (!fx_open(&f, _i, NULL, NULL, NULL)) {
		close(251);
		return;
	}
	bool e;
	char *o =
	    call(&f, "bash",
	         "{\"command\":\"ls /proc/self/fd | tr '\\\\n' ' '\"}", &e);
	ck_assert_msg(!e && strstr(o, "0 1 2 ") && !strstr(o, "251"), "%s", o);
	free(o);
	fx_close(&f);
	close(251);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* ---------------- the transfer folder out of reach (item 8) -------------- */

/* What a command inside the bwrap session finds of the host-shared
   transfer folder (/run/locus): the path, a write there, the same folder
   through another process's /proc/PID/root, an inherited descriptor.  Each
   finding prints a word; the host side is checked for the planted file. */
#define PROBE_RUN_LOCUS                                                        \
	"[ -e /run/locus ] && echo SEEN; "                                     \
	"echo F > /run/locus/planted-$PLANT 2>/dev/null && echo WROTE; "       \
	"for p in /proc/[0-9]*; do [ -e $p/root/run/locus ] && "               \
	"echo PROCROOT && break; done; "                                       \
	"for f in /proc/self/fd/*; do readlink $f; done | grep -q run/locus "  \
	"&& echo FD; ls /run | wc -l; echo probed"

/* The probe's file name: this test process's own (a leftover of another
   run never answers for this one). */
static char g_plant[32];

static char *probe_args(bool background)
{
	char *a = NULL;
	ck_assert_int_ge(
	    asprintf(&a, "{\"command\":\"PLANT=%s; " PROBE_RUN_LOCUS "\"%s}",
	             g_plant, background ? ",\"background\":true" : ""),
	    0);
	return a;
}

static bool host_planted(void)
{
	const char *t = getenv("TMPDIR");
	char cmd[600];
	snprintf(cmd, sizeof cmd,
	         "ls -d %s/locus-bwrap-*/x/planted-%s >/dev/null 2>&1",
	         t && *t ? t : "/tmp", g_plant);
	return system(cmd) == 0;
}

static void no_run_locus(const char *o, const char *who)
{
	ck_assert_msg(strstr(o, "0\nprobed"), "%s: %s", who, o);
	ck_assert_msg(!strstr(o, "SEEN") && !strstr(o, "WROTE") &&
	                  !strstr(o, "PROCROOT") && !strstr(o, "FD\n"),
	              "%s: the transfer folder is reachable: %s", who, o);
	ck_assert_msg(!host_planted(), "%s: a file planted on the host", who);
}

/* The library's session (as root: the sandbox runs as 65534), a
   background command too, and `locus tool --backend bwrap` run by uid
   65534 itself (as root, through setpriv). */
START_TEST(transfer_folder_unreachable)
{
	fx f;
	if (!fx_open(&f, BK_BWRAP, NULL, NULL, NULL))
		return;
	snprintf(g_plant, sizeof g_plant, "%ld", (long)getpid());
	bool e;
	char *a = probe_args(false);
	char *o = call(&f, "bash", a, &e);
	no_run_locus(o, "bash");
	free(o);
	free(a);
	a = probe_args(true);
	call_ok(&f, "bash", a, "sh1");
	free(a);
	/* bash_output moves the reader's offset: the output is what every
	   poll returned, together */
	lu_buf all = {0};
	for (int i = 0; i < 200; i++) {
		o = call(&f, "bash_output", "{\"handle\":\"sh1\"}", &e);
		lu_buf_puts(&all, o);
		bool done = strstr(o, "exited") != NULL;
		free(o);
		if (done)
			break;
		usleep(50000);
	}
	o = lu_buf_take(&all);
	no_run_locus(o, "background");
	free(o);
	if (geteuid() == 0) {
		sh("chmod 755 '%s'", g_tmp);
		char cmd[2048];
		a = probe_args(false);
		snprintf(cmd, sizeof cmd,
		         "setpriv --reuid=65534 --regid=65534 --clear-groups "
		         "'%s' tool bash '%s' --backend bwrap --preset "
		         "permissive --root '%s' 2>&1",
		         locus_bin(), a, g_root);
		free(a);
		char out[4096];
		run_sh(cmd, out, sizeof out);
		no_run_locus(out, "uid 65534");
	}
	fx_close(&f);
}
END_TEST

/* ---------------- the local environment (item 8) ---------------- */

static char *local_run(const locus_local_options *lo, const char *cmd)
{
	locus_backend *b = NULL;
	locus_error err = {0};
	ck_assert_msg(
	    locus_backend_local_new_opts(&b, g_root, NULL, lo, &err) == 0, "%s",
	    err.message);
	locus_exec_result r;
	ck_assert_int_eq(b->exec(b, cmd, 60, LOCUS_EXEC_DEFAULT, &r, &err), 0);
	char *o = strndup(r.output ? r.output : "", r.output_len);
	locus_exec_result_clear(&r);
	locus_backend_free(b);
	return o;
}

/* Commands inherit the whole environment (the "host shell" label says
   so, docs/harness.md) unless base_env names what they get. */
START_TEST(local_base_env)
{
	mk_tmp();
	setenv("SECRET_TOKEN", "s3cr3t-value", 1);
	static const char cmd[] = "echo tok=$SECRET_TOKEN; echo path=$PATH";
	locus_local_options lo = LOCUS_LOCAL_OPTIONS_INIT;
	char *o = local_run(&lo, cmd);
	ck_assert_msg(strstr(o, "tok=s3cr3t-value"), "%s", o);
	free(o);
	static const char *const names[] = {"PATH", "NOT_SET_ANYWHERE", NULL};
	lo.base_env = names;
	o = local_run(&lo, cmd);
	ck_assert_msg(strstr(o, "tok=\n") && !strstr(o, "s3cr3t") &&
	                  strstr(o, "path=/"),
	              "%s", o);
	free(o);
	/* a version 1 struct is still taken */
	locus_local_options v1 = LOCUS_LOCAL_OPTIONS_INIT;
	v1.version = 1;
	o = local_run(&v1, "echo ok");
	ck_assert_str_eq(o, "ok\n");
	free(o);
	unsetenv("SECRET_TOKEN");
	rm_tmp();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reliability");
	TCase *t = tcase_create("reliability");
	tcase_set_timeout(t, 300);
	tcase_add_test(t, gate_answers_each_line);
	tcase_add_test(t, gate_nul_is_unparsed);
	tcase_add_test(t, classify_answers_each_line);
	tcase_add_test(t, tool_and_mcp_answer_each_line);
	tcase_add_loop_test(t, notebook_duplicate_keys, BK_LOCAL, BK_COUNT);
	tcase_add_loop_test(t, glob_deep, BK_LOCAL, BK_COUNT);
	tcase_add_loop_test(t, read_nul_shown_or_binary, BK_LOCAL, BK_COUNT);
	tcase_add_loop_test(t, read_bounded, BK_LOCAL, BK_LOCAL + 1);
	tcase_add_test(t, audit_forged_record_refused);
	tcase_add_test(t, mcp_duplicate_inflight_id);
	tcase_add_test(t, local_base_env);
	tcase_add_loop_test(t, commands_inherit_no_stray_fd, BK_LOCAL,
	                    BK_LOCAL + 1);
	tcase_add_loop_test(t, commands_inherit_no_stray_fd, BK_BWRAP,
	                    BK_BWRAP + 1);
	tcase_add_loop_test(t, tool_sigterm_cleans_up, BK_LOCAL, BK_LOCAL + 1);
	tcase_add_loop_test(t, tool_sigterm_cleans_up, BK_BWRAP, BK_BWRAP + 1);
	tcase_add_test(t, audit_refusals_recorded);
	tcase_add_test(t, transfer_folder_unreachable);
	tcase_add_loop_test(t, read_bounded, BK_BWRAP, BK_BWRAP + 1);
	tcase_add_loop_test(t, bash_nul_output_whole, BK_LOCAL, BK_LOCAL + 1);
	tcase_add_loop_test(t, bash_nul_output_whole, BK_BWRAP, BK_BWRAP + 1);
	suite_add_tcase(s, t);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return test_exit(failed);
}
