/*
 * cli/mcp.c - `locus mcp`: the harness as an MCP server over stdio
 * (spec integrations.md section 1, docs/mcp.md, docs/integrations.md).
 *
 *   locus mcp [--root DIR] [--allow-broad-root]
 *             [--backend bwrap|local|memory|oci|openshell] (default bwrap)
 *             [--oci-* / --openshell-* as locus tool]
 *             [--policy FILE | --preset NAME] [--claude-settings FILE]
 *             [--audit FILE] [--tools a,b,c] [--no-read-check]
 *             [--max-calls N]
 *
 * This file: options, the read loop and shutdown.  The workspace is
 * opened in mcp_workspace.c, the protocol is in mcp_rpc.c, tool calls in
 * mcp_calls.c (see mcp.h).
 *
 * Robustness: a line that is not JSON gets -32700 (id null) and the server
 * goes on; a line over MCP_MAX_LINE (16 MiB) is skipped without being
 * buffered past the cap and answered with -32600 (id null).  EOF on stdin:
 * the calls already received run, then every background job is ended and
 * the server exits 0.  SIGTERM, SIGINT, SIGHUP: queued calls are dropped,
 * the running one is cancelled (its process group killed), every job is
 * ended, exit 0.
 *
 * Exit status: 0 at EOF, on SIGTERM or when the client stops reading; 2
 * for a usage error, a bad policy, a root refused, or a backend/harness
 * that cannot be built.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "agents/mcp.h"
#include "opts.h"
#include "policy_cli.h"

#define MCP_MAX_TOOLS 64

static volatile sig_atomic_t g_term;

static void on_term(int sig)
{
	(void)sig;
	g_term = 1;
}

/* --- the read loop ---------------------------------------------------- */

static const char too_long[] =
    "Invalid Request: the message is over the 16 MiB line limit";

/* Wait for input, 100 ms at a time, so a SIGTERM or a dropped client is
   seen promptly. */
static bool wait_input(mcp_server *s)
{
	struct pollfd p = {0, POLLIN, 0};
	while (!g_term && !atomic_load(&s->out_broken)) {
		int r = poll(&p, 1, 100);
		if (r > 0)
			return true;
		if (r < 0 && errno != EINTR)
			return true; /* let read() report it */
	}
	return false;
}

/*
 * Read stdin line by line.  A line is buffered up to MCP_MAX_LINE; past
 * that its bytes are dropped as they come until the newline, then one
 * error is sent, so memory stays bounded whatever the client sends.
 */
static void serve(mcp_server *s)
{
	size_t cap = 1 << 16, len = 0, scanned = 0;
	char *buf = malloc(cap);
	bool skipping = false;
	if (!buf) {
		fprintf(stderr, "locus mcp: out of memory\n");
		return;
	}
	for (;;) {
		if (atomic_load(&s->out_broken))
			break;
		char *nl = memchr(buf + scanned, '\n', len - scanned);
		if (nl) {
			size_t n = (size_t)(nl - buf);
			if (skipping)
				mcp_send_error(s, NULL, RPC_INVALID_REQUEST,
				               too_long);
			else
				mcp_handle_line(s, buf, n);
			skipping = false;
			memmove(buf, nl + 1, len - n - 1);
			len -= n + 1;
			scanned = 0;
			continue;
		}
		scanned = len;
		if (len > MCP_MAX_LINE) {
			skipping = true;
			len = scanned = 0;
		}
		if (cap - len < (1 << 16)) {
			char *p = realloc(buf, cap * 2);
			if (!p) {
				fprintf(stderr, "locus mcp: out of memory\n");
				break;
			}
			buf = p;
			cap *= 2;
		}
		if (!wait_input(s))
			break;
		ssize_t got = read(0, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			/* EOF: a last line without its newline still counts */
			if (skipping)
				mcp_send_error(s, NULL, RPC_INVALID_REQUEST,
				               too_long);
			else if (len)
				mcp_handle_line(s, buf, len);
			break;
		}
		len += (size_t)got;
	}
	free(buf);
}

/* --- options ---------------------------------------------------------- */

static void mcp_usage(FILE *f)
{
	fprintf(f,
	        "usage: locus mcp [--root DIR] [--allow-broad-root]\n"
	        "                 [--backend bwrap|local|memory|oci|openshell]"
	        " (default bwrap;\n                  local: a host shell, "
	        "unconfined)"
	        "\n                 [--oci-*, --openshell-*, --bwrap-uid/gid, "
	        "--base-env as for locus tool]\n"
	        "                 [--policy FILE | --preset NAME] "
	        "[--claude-settings FILE]...\n"
	        "                 [--claude-project DIR] "
	        "[--audit FILE [--audit-key KEY]]\n"
	        "                 [--tools a,b,c] [--no-read-check] "
	        "[--max-calls N]\n"
	        "                 [--write-timeout SECONDS]\n"
	        "serves the harness as an MCP server on stdin/stdout "
	        "(JSON-RPC, one message a line)\n");
}

/* Split "a,b,c" into names (pointers into `list`, which is modified). */
static int split_tools(char *list, const char **names, size_t max)
{
	size_t n = 0;
	for (char *save = NULL, *t = strtok_r(list, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ')
			t++;
		size_t l = strlen(t);
		while (l && t[l - 1] == ' ')
			t[--l] = '\0';
		if (!l)
			continue;
		if (n + 1 >= max)
			return -1;
		names[n++] = t;
	}
	names[n] = NULL;
	return n ? 0 : -1;
}

/* The options of the command that the server does not read itself. */
typedef struct mcp_cli {
	cli_claude_opts claude; /* --claude-settings, --claude-project */
	cli_backend_opts cloud; /* --oci-*, --openshell-*, --bwrap-*,
	                           --base-env (cli/backend.c) */
	const char *backend;
} mcp_cli;

/* mcp_options.open_backend: `ctx` is the mcp_cli. */
static int open_backend(void *ctx, const char *root, const char *real,
                        locus_backend **b, locus_error *err)
{
	const mcp_cli *m = ctx;
	const char *kind = m->backend;
	if (!strcmp(kind, "oci") || !strcmp(kind, "openshell"))
		return cli_backend_open(&m->cloud, kind, b, err);
	if (!strcmp(kind, "local"))
		return cli_local_open(&m->cloud, real, b, err);
	if (m->cloud.base_env)
		return cli_local_open(&m->cloud, NULL, b, err);
	if (!strcmp(kind, "memory"))
		return locus_backend_memory_new(b, err);
	return cli_bwrap_open(&m->cloud, root, b, err);
}

/* 0, 1 for --help, 2 for a usage error. */
static int parse_args(int argc, char **argv, mcp_options *o, mcp_cli *m,
                      const char **tools)
{
	o->backend = NULL;
	o->max_calls = MCP_DEFAULT_CALLS;
	cli_backend_init(&m->cloud);
	const cli_opt opts[] = {
	    CLI_OPT_FLAG("--no-read-check", &o->no_read_check),
	    CLI_OPT_FLAG("--allow-broad-root", &o->allow_broad_root),
	    CLI_OPT_VALUE("--root", &o->root),
	    CLI_OPT_VALUE("--backend", &o->backend),
	    CLI_OPT_POLICY(&o->policy_file, &o->preset, &m->claude, "mcp"),
	    CLI_OPT_AUDIT(&o->audit_file, &o->audit_key),
	    CLI_OPT_VALUE("--tools", tools),
	};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		int f = cli_backend_flag(&m->cloud, argc, argv, &i);
		if (f > 0)
			continue;
		int t = f < 0 ? CLI_OPT_NOT_OURS
		              : CLI_OPT_STEP(opts, "mcp", mcp_usage, argc, argv,
		                             &i);
		if (t == CLI_OPT_TAKEN)
			continue;
		if (t)
			return t;
		if (f < 0) {
			fprintf(stderr, "locus mcp: bad option '%s'\n", a);
			mcp_usage(stderr);
			return 2;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			mcp_usage(stdout);
			return 1;
		} else if (more && !strcmp(a, "--max-calls")) {
			char *end;
			long v = strtol(argv[++i], &end, 10);
			if (*end || v < 1 || v > 1024) {
				fprintf(stderr, "locus mcp: --max-calls is "
				                "1 to 1024\n");
				return 2;
			}
			o->max_calls = (size_t)v;
		} else if (more && !strcmp(a, "--write-timeout")) {
			char *end;
			double v = strtod(argv[++i], &end);
			if (*end || !(v >= 0.1 && v <= 3600)) {
				fprintf(stderr, "locus mcp: --write-timeout is "
				                "0.1 to 3600 seconds\n");
				return 2;
			}
			o->write_timeout_s = v;
		} else {
			return cli_opt_unknown("mcp", a, mcp_usage);
		}
	}
	bool chosen = o->backend != NULL; /* else the default, bwrap */
	if (!o->backend)
		o->backend = CLI_DEFAULT_BACKEND;
	if (strcmp(o->backend, "local") && strcmp(o->backend, "memory") &&
	    strcmp(o->backend, "bwrap") && strcmp(o->backend, "oci") &&
	    strcmp(o->backend, "openshell")) {
		fprintf(stderr, "locus mcp: --backend is local, memory, bwrap, "
		                "oci or openshell\n");
		return 2;
	}
	locus_error be = {0};
	if (cli_bwrap_check(&m->cloud, o->backend, &be)) {
		fprintf(stderr, "locus mcp: %s\n", be.message);
		return 2;
	}
	if (m->cloud.os.seen && strcmp(o->backend, "openshell")) {
		fprintf(stderr, "locus mcp: --openshell-* options need "
		                "--backend openshell\n");
		return 2;
	}
	m->backend = o->backend;
	o->open_backend = open_backend;
	o->backend_ctx = m;
	if (!chosen && !m->cloud.base_env && !strcmp(o->backend, "bwrap"))
		o->open_hint = CLI_BWRAP_DEFAULT_FAILED;
	return 0;
}

/* The first workspace: --root, or the current folder unless that is too
   broad (then the client's roots may still give one). */
static int first_workspace(mcp_server *s)
{
	char *why = NULL;
	if (!mcp_workspace_open(s, s->opt.root ? s->opt.root : ".", &why))
		return 0;
	if (s->opt.root) {
		fprintf(stderr, "locus mcp: %s\n", why ? why : "cannot start");
		free(why);
		return -1;
	}
	char *cwd = realpath(".", NULL);
	bool broad = cwd && mcp_root_broad(cwd) && !s->opt.allow_broad_root;
	free(cwd);
	if (!broad) {
		fprintf(stderr, "locus mcp: %s\n", why ? why : "cannot start");
		free(why);
		return -1;
	}
	/* no workspace until the client's roots give one */
	fprintf(stderr, "locus mcp: %s; waiting for the client's roots\n", why);
	s->no_workspace = why;
	return 0;
}

static void serve_until_done(mcp_server *s)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a client that goes away must not kill us mid-record */
	signal(SIGPIPE, SIG_IGN);
	s->term = &g_term;
	s->write_timeout_s = s->opt.write_timeout_s;
	mcp_output_init(s);
	if (mcp_calls_start(s)) {
		fprintf(stderr, "locus mcp: cannot start the worker thread\n");
		return;
	}
	serve(s);
	/* a signal, or a client dropped: what is queued or running is for
	   nobody; else (EOF) the queue drains */
	mcp_calls_stop(s, g_term != 0 || atomic_load(&s->out_broken));
	mcp_calls_join(s, &g_term);
}

int cli_mcp(int argc, char **argv)
{
	mcp_server s;
	memset(&s, 0, sizeof s);
	mcp_cli m;
	memset(&m, 0, sizeof m);
	const char *tools_arg = NULL;
	int prc = parse_args(argc, argv, &s.opt, &m, &tools_arg);
	if (prc)
		return prc == 1 ? 0 : 2;
	const char *tool_names[MCP_MAX_TOOLS + 1];
	char *tools_copy = tools_arg ? strdup(tools_arg) : NULL;
	if (tools_arg && (!tools_copy || split_tools(tools_copy, tool_names,
	                                             MCP_MAX_TOOLS + 1))) {
		fprintf(stderr, "locus mcp: --tools takes a comma-separated "
		                "list of tool names\n");
		free(tools_copy);
		return 2;
	}
	s.opt.tools = tools_arg ? tool_names : NULL;
	if (cli_policy_build_claude(s.opt.policy_file, s.opt.preset, &m.claude,
	                            &s.policy)) {
		free(tools_copy);
		return 2;
	}
	pthread_mutex_init(&s.out_lock, NULL);
	pthread_mutex_init(&s.ws_lock, NULL);
	pthread_mutex_init(&s.calls_lock, NULL);
	pthread_cond_init(&s.calls_cond, NULL);
	s.gate = (locus_policy_wrap)LOCUS_POLICY_WRAP_INIT;
	s.gate.policy = s.policy;
	int status = 2;
	/* workspace NULL: the working folder */
	if (cli_audit_open("mcp", s.opt.audit_file, s.opt.audit_key, s.opt.root,
	                   0, &s.audit))
		goto done;
	s.gate.audit = s.audit;
	if (first_workspace(&s))
		goto done;
	serve_until_done(&s);
	status = 0;
done:
	/* every background job the harness started ends here */
	mcp_workspace_close(&s);
	free(s.new_root);
	locus_audit_close(s.audit);
	locus_policy_free(s.policy);
	pthread_cond_destroy(&s.calls_cond);
	pthread_mutex_destroy(&s.calls_lock);
	pthread_mutex_destroy(&s.ws_lock);
	pthread_mutex_destroy(&s.out_lock);
	free(tools_copy);
	return status;
}
