/*
 * backends/openshell.c - the OpenShell session and backend.
 *
 * A locus_session over the gateway client (openshell_client.h).  The
 * gateway runs every argv as `/bin/bash -lc '<escaped argv>'`, so login
 * files are sourced and may print to stdout or stderr.  Every command is
 * therefore run by a small sh wrapper that prints a random begin marker,
 * runs the script with stderr joined to stdout (in the order written),
 * and prints an end marker with the exit status: only the bytes between
 * the markers are output, and the marker's status is the command's.  The
 * script travels as an argument when it is valid UTF-8 and small enough
 * for the gateway's per-argument limit, else on stdin into a temp file.
 *
 * Timeouts: the wrapper runs the script under coreutils `timeout` at the
 * caller's deadline (the sandbox stops it, process group and all) and
 * the gateway's timeout_seconds is a backstop a little later; a 124 from
 * either at the deadline, or an end without the end marker after the
 * gateway's 124, is "did not finish" (exit code -1).
 *
 * Files: upload sends stdin in parts of at most PART bytes (each request
 * stays under the gateway's 1 MiB), the last part checking the SHA-256 of
 * what arrived; download copies the file aside, then prints its base64
 * and SHA-256 between the markers, and the hash is checked here.
 *
 * Provider credentials are placeholders in the sandbox
 * (openshell:resolve:env:KEY); nothing here reads, prints or logs the
 * sandbox's environment, and error messages quote only the gateway's
 * status text and at most a short tail of a failed command's output.
 */
#define _GNU_SOURCE
#include "cancel_guard.h"
#include "internal.h"
#include "net/http.h"
#include "net/openshell_client.h"
#include "../util/base64.h"
#include "../util/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROOT "/sandbox"
#define DEFAULT_ENDPOINT "127.0.0.1:17670"
#define PART (768u * 1024)          /* stdin bytes per upload request */
#define ARG_MAX_SCRIPT (30u * 1024) /* the gateway allows 32 KiB per arg */
#define MAX_DOWNLOAD (256u << 20)   /* base64 text of one download */

typedef struct os_session {
	locus_session base;
	lh_os_client cli;
	char *workspace;
	char *id;   /* metadata.id: exec key */
	char *name; /* owned sandboxes: lifecycle key */
	bool owned;
	size_t output_max;
} os_session;

struct run_opts;
static int os_run(os_session *s, const char *script, const struct run_opts *o,
                  int *code, char **out, size_t *len, bool *cancelled,
                  locus_error *err);

/* ================= running a script ================= */

typedef struct collect {
	lu_buf out;  /* stdout (the wrapper's only stream); the head once
	                the window is passed */
	lu_buf tail; /* window mode: the bytes after the head, the last
	                `max - max / 2` kept */
	lu_buf err;  /* stderr: login noise, or the wrapper failing */
	size_t max;
	bool window;    /* past max: keep head and tail (else fail) */
	size_t dropped; /* window mode: bytes dropped between them */
	bool over;
} collect;

/* Window mode: append to the tail, dropping its oldest bytes past twice
   its size (amortised: each byte is moved at most once). */
static void tail_add(collect *c, const uint8_t *d, size_t n)
{
	size_t keep = c->max - c->max / 2;
	lu_buf_add(&c->tail, (const char *)d, n);
	if (c->tail.len > 2 * keep + 65536) {
		size_t drop = c->tail.len - keep;
		memmove(c->tail.d, c->tail.d + drop, keep);
		c->tail.len = keep;
		c->tail.d[keep] = '\0';
		c->dropped += drop;
	}
}

static int on_chunk(void *p, int kind, const uint8_t *d, size_t n)
{
	collect *c = p;
	if (kind != LH_OS_EV_STDOUT) {
		if (c->err.len <= 4096) /* only a tail of it is ever shown */
			lu_buf_add(&c->err, (const char *)d, n);
		return c->err.oom ? LOCUS_ENOMEM : 0;
	}
	if (!c->window && c->out.len + n > c->max) {
		c->over = true;
		return LOCUS_ETOOBIG;
	}
	size_t head = c->window ? c->max / 2 : c->max;
	size_t take = c->out.len < head ? head - c->out.len : 0;
	take = take < n ? take : n;
	lu_buf_add(&c->out, (const char *)d, take);
	if (take < n)
		tail_add(c, d + take, n - take);
	return c->out.oom || c->tail.oom ? LOCUS_ENOMEM : 0;
}

/* Window mode, at the end: the tail cut to its size, then joined to the
   head (with a note when bytes were dropped). */
static void window_join(collect *c)
{
	size_t keep = c->max - c->max / 2;
	if (c->tail.len > keep) {
		size_t drop = c->tail.len - keep;
		memmove(c->tail.d, c->tail.d + drop, keep);
		c->tail.len = keep;
		c->dropped += drop;
	}
	if (c->dropped)
		lu_buf_printf(&c->out,
		              "\n[... %zu bytes of output dropped: the output "
		              "cap is %zu bytes ...]\n",
		              c->dropped, c->max);
	lu_buf_add(&c->out, c->tail.d ? c->tail.d : "", c->tail.len);
	lu_buf_free(&c->tail);
}

/* Split the collected stdout at the markers. */
static int unframe(collect *c, const char *tok, int *status, bool *ended,
                   char **out, size_t *len)
{
	char b[48], e[48];
	snprintf(b, sizeof b, "\nB%s\n", tok);
	snprintf(e, sizeof e, "\nE%s ", tok);
	*ended = false;
	*out = NULL;
	*len = 0;
	const char *d = c->out.d ? c->out.d : "";
	const char *start = memmem(d, c->out.len, b, strlen(b));
	if (!start)
		return -1;
	start += strlen(b);
	size_t rest = c->out.len - (size_t)(start - d);
	/* the last end marker: the script's own output cannot know tok */
	const char *end = NULL, *p = start;
	while ((p = memmem(p, rest - (size_t)(p - start), e, strlen(e)))) {
		end = p;
		p++;
	}
	size_t n = end ? (size_t)(end - start) : rest;
	if (end) {
		*ended = true;
		*status = atoi(end + strlen(e));
	}
	char *o = malloc(n + 1);
	if (!o)
		return -2;
	memcpy(o, start, n);
	o[n] = '\0';
	*out = o;
	*len = n;
	return 0;
}

/* Where the guard of a command keeps its pid (cancel_guard.h). */
#define GUARD_DIR "${TMPDIR:-/tmp}"

/*
 * The wrapper: B and E are the markers around the script's output, t the
 * in-sandbox timeout.  The script is $S (set in front of the wrapper, in
 * the same argument) or, with script_stdin, read from stdin into a temp
 * file first.  pass_stdin keeps stdin for the script (uploads).  The
 * script runs under the cancel guard `gtok`.
 */
static void build_wrapper(lu_buf *w, const char *tok, const char *gtok, long t,
                          bool script_stdin, bool pass_stdin)
{
	if (script_stdin)
		lu_buf_puts(w, "f=$(mktemp) || exit 97\n"
		               "cat > \"$f\" || exit 97\n");
	lu_buf_printf(w, "printf '\\n%%s\\n' 'B%s'\n", tok);
	lu_buf_printf(w,
	              "cd " ROOT " || { printf '\\nE%s %%s\\n' 125; exit 125; "
	              "}\n",
	              tok);
	lu_buf_puts(w, "if command -v timeout >/dev/null 2>&1; then "
	               "set -- ");
	lh_guard_prefix(w, GUARD_DIR, gtok);
	lu_buf_printf(w, "timeout -k 2 %ld sh; else set -- ", t);
	lh_guard_prefix(w, GUARD_DIR, gtok);
	lu_buf_puts(w, "sh; fi\n");
	if (script_stdin)
		lu_buf_puts(w, "\"$@\" \"$f\" </dev/null 2>&1\nrc=$?\nrm -f "
		               "\"$f\"\n");
	else if (pass_stdin)
		lu_buf_puts(w, "\"$@\" -c \"$S\" sh 2>&1\nrc=$?\n");
	else
		lu_buf_puts(w, "\"$@\" -c \"$S\" sh </dev/null 2>&1\nrc=$?\n");
	lh_guard_cleanup(w, GUARD_DIR, gtok);
	lu_buf_printf(w, "printf '\\nE%s %%s\\n' \"$rc\"\nexit \"$rc\"\n", tok);
}

/* One script run: what goes in, and how. */
struct run_opts {
	const uint8_t *in; /* the script's stdin; NULL: /dev/null */
	size_t in_len;
	double timeout_s;
	size_t max_out;
	bool window; /* past max_out keep head and tail (commands); else
	                LOCUS_ETOOBIG (file transfers) */
	const locus_call_ctl *ctl; /* may be NULL */
};
typedef struct run_opts run_opts;

/* Output bytes so far, for progress. */
static size_t collected(const void *p)
{
	const collect *c = p;
	return c->out.len + c->tail.len + c->dropped;
}

/* The request of one run: the script as one argument S='...' in front of
   the wrapper when it fits the gateway's per-argument limit as valid
   UTF-8 (a proto3 string), else on stdin. */
static int build_request(const char *script, const run_opts *o, const char *tok,
                         const char *gtok, lu_buf *full, bool *script_stdin,
                         locus_error *err)
{
	long t = o->timeout_s >= 1 ? (long)ceil(o->timeout_s) : 1;
	*script_stdin = strlen(script) > ARG_MAX_SCRIPT ||
	                !lu_utf8_valid(script, strlen(script));
	if (!*script_stdin) {
		lu_buf_puts(full, "S=");
		lu_buf_shquote(full, script);
		lu_buf_puts(full, "\n");
		if (full->len > ARG_MAX_SCRIPT) {
			lu_buf_free(full);
			*script_stdin = true;
		}
	}
	if (*script_stdin && o->in)
		return lu_err(err, LOCUS_EUSAGE,
		              "a large script cannot also take stdin");
	build_wrapper(full, tok, gtok, t, *script_stdin, o->in != NULL);
	return full->oom ? lu_err(err, LOCUS_ENOMEM, "out of memory") : 0;
}

/* Stop a cancelled command: the guard's kill script, as a command of its
   own (the gateway has no cancel: the first one runs on otherwise). */
static int kill_guarded(os_session *s, const char *gtok, locus_error *err)
{
	lu_buf sc = {0};
	lh_guard_kill_script(&sc, GUARD_DIR, gtok);
	if (sc.oom) {
		lu_buf_free(&sc);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	run_opts ko = {.timeout_s = 30, .max_out = 4096};
	int code = -1;
	char *o = NULL;
	size_t ol;
	int rc = os_run(s, sc.d, &ko, &code, &o, &ol, NULL, err);
	free(o);
	lu_buf_free(&sc);
	if (!rc && code != 0)
		rc = lu_err(err, LOCUS_EIO,
		            "openshell: the cancelled command may still run in "
		            "sandbox %s (the kill script exited %d)",
		            s->id, code);
	return rc;
}

/*
 * Run `script` in the sandbox: *code is its exit status, or -1 when it did
 * not finish within timeout_s.  *out is what it wrote to stdout and
 * stderr, in order (malloc'd, NUL-terminated).  Under o->ctl a cancel
 * stops the exec, kills the command (kill_guarded) and sets *cancelled.
 */
static int os_run(os_session *s, const char *script, const run_opts *o,
                  int *code, char **out, size_t *len, bool *cancelled,
                  locus_error *err)
{
	*code = -1;
	*out = NULL;
	*len = 0;
	if (cancelled)
		*cancelled = false;
	char tok[33], gtok[33];
	if (lhttp_random_token(tok) || lhttp_random_token(gtok))
		return lu_err(err, LOCUS_EIO, "no random bytes for a marker");
	long t = o->timeout_s >= 1 ? (long)ceil(o->timeout_s) : 1;
	lu_buf full = {0};
	bool script_stdin;
	int rc = build_request(script, o, tok, gtok, &full, &script_stdin, err);
	if (rc) {
		lu_buf_free(&full);
		return rc;
	}
	const char *argv[] = {"sh", "-c", full.d};
	lh_os_exec req = {.sandbox_id = s->id, .argv = argv, .argc = 3};
	/* the gateway's timeout: a backstop after the sandbox's own */
	req.timeout_seconds = (uint32_t)(t + 5);
	if (script_stdin) {
		req.stdin_data = (const uint8_t *)script;
		req.stdin_len = strlen(script);
	} else if (o->in) {
		req.stdin_data = o->in;
		req.stdin_len = o->in_len;
	}
	collect c = {.max = o->max_out, .window = o->window};
	int gw_code = -1;
	double t0 = lu_now();
	lh_watch w;
	lh_watch_init(&w, o->ctl, collected, &c);
	if (o->ctl)
		lh_grpc_channel_set_cancel(s->cli.ch, lh_watch_poll, &w);
	rc = lh_os_exec_stream(&s->cli, &req, on_chunk, &c, &gw_code, err);
	lh_grpc_channel_set_cancel(s->cli.ch, NULL, NULL);
	double took = lu_now() - t0;
	lu_buf_free(&full);
	if (w.cancelled) {
		lu_buf_free(&c.out);
		lu_buf_free(&c.tail);
		lu_buf_free(&c.err);
		if (cancelled)
			*cancelled = true;
		return kill_guarded(s, gtok, err);
	}
	if (rc) {
		if (c.over)
			rc = lu_err(
			    err, LOCUS_ETOOBIG,
			    "openshell: the command's output is over %zu "
			    "bytes",
			    o->max_out);
		lu_buf_free(&c.out);
		lu_buf_free(&c.tail);
		lu_buf_free(&c.err);
		return rc;
	}
	if (c.window)
		window_join(&c);
	int status = -1;
	bool ended;
	int u = c.out.oom ? -2 : unframe(&c, tok, &status, &ended, out, len);
	if (u == -2) {
		rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
	} else if (u < 0 && gw_code != 124) {
		/* the wrapper never ran (no /bin/sh?) or died before its
		   marker: the tail of stderr says why */
		const char *e = c.err.d ? c.err.d : "";
		size_t el = c.err.len > 200 ? 200 : c.err.len;
		rc =
		    lu_err(err, LOCUS_EIO,
		           "openshell: the command ran without locus's framing "
		           "(exit %d): %.*s",
		           gw_code, (int)el, e + c.err.len - el);
	} else if (!ended || (status == 124 && took + 0.5 >= (double)t)) {
		*code = -1; /* did not finish in time */
	} else {
		*code = status;
	}
	lu_buf_free(&c.out);
	lu_buf_free(&c.err);
	if (rc) {
		free(*out);
		*out = NULL;
		*len = 0;
	}
	return rc;
}

/* ================= session ================= */

/* Output kept of one command; past it the head and tail halves. */
#define OUTPUT_MAX ((size_t)64 << 20)

static int os_exec_ctl(locus_session *ss, const char *command, double timeout_s,
                       const locus_call_ctl *ctl, int *exit_code, char **out,
                       size_t *len, bool *cancelled, locus_error *err)
{
	os_session *s = (os_session *)ss;
	run_opts o = {.timeout_s = timeout_s > 0 ? timeout_s : 120,
	              .max_out = s->output_max,
	              .window = true,
	              .ctl = ctl};
	bool c = false;
	int rc = os_run(s, command, &o, exit_code, out, len, &c, err);
	if (cancelled)
		*cancelled = c;
	return rc;
}

static int os_exec(locus_session *ss, const char *command, double timeout_s,
                   int *exit_code, char **out, size_t *len, locus_error *err)
{
	return os_exec_ctl(ss, command, timeout_s, NULL, exit_code, out, len,
	                   NULL, err);
}

static int os_upload(locus_session *ss, const char *path, const char *data,
                     size_t len, locus_error *err)
{
	os_session *s = (os_session *)ss;
	char hash[65];
	lu_sha256_hex(data, len, hash);
	size_t off = 0;
	do {
		size_t n = len - off > PART ? PART : len - off;
		bool last = off + n == len;
		lu_buf sc = {0};
		lu_buf_puts(&sc, "P=");
		lu_buf_shquote(&sc, path);
		lu_buf_printf(&sc, "\ncat %s \"$P\" || exit 3\n",
		              off == 0 ? ">" : ">>");
		if (last)
			lu_buf_printf(&sc,
			              "h=$(sha256sum < \"$P\") || exit 4\n"
			              "[ \"${h%%%% *}\" = %s ] || exit 5\n",
			              hash);
		if (sc.oom)
			return lu_err(err, LOCUS_ENOMEM, "out of memory");
		int code;
		char *o;
		size_t ol;
		run_opts ro = {.in = (const uint8_t *)data + off,
		               .in_len = n,
		               .timeout_s = 120,
		               .max_out = 1u << 20};
		int rc = os_run(s, sc.d, &ro, &code, &o, &ol, NULL, err);
		lu_buf_free(&sc);
		if (!rc && code != 0)
			rc = lu_err(err, LOCUS_EIO,
			            "upload to %s failed (%s): %.160s", path,
			            code == 5  ? "the SHA-256 of what arrived "
			                         "differs"
			            : code < 0 ? "timed out"
			                       : "cannot write",
			            o ? o : "");
		free(o);
		if (rc)
			return rc;
		off += n;
	} while (off < len);
	return 0;
}

static int os_download(locus_session *ss, const char *path, char **out,
                       size_t *len, locus_error *err)
{
	os_session *s = (os_session *)ss;
	*out = NULL;
	*len = 0;
	lu_buf sc = {0};
	lu_buf_puts(&sc, "P=");
	lu_buf_shquote(&sc, path);
	lu_buf_puts(&sc, "\n[ -f \"$P\" ] || exit 3\n"
	                 "t=$(mktemp) || exit 4\n"
	                 "cat -- \"$P\" > \"$t\" || { rm -f \"$t\"; exit 3; }\n"
	                 "base64 < \"$t\" && h=$(sha256sum < \"$t\") || "
	                 "{ rm -f \"$t\"; exit 4; }\n"
	                 "rm -f \"$t\"\nprintf '#%s\\n' \"${h%% *}\"\n");
	if (sc.oom)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	int code;
	char *o;
	size_t ol;
	run_opts ro = {.timeout_s = 300, .max_out = MAX_DOWNLOAD};
	int rc = os_run(s, sc.d, &ro, &code, &o, &ol, NULL, err);
	lu_buf_free(&sc);
	if (rc)
		return rc;
	if (code != 0) {
		free(o);
		return code == 3 ? lu_err(err, LOCUS_ENOTFOUND,
		                          "%s cannot be read", path)
		                 : lu_err(err, LOCUS_EIO,
		                          "download of %s failed", path);
	}
	char *hashline = NULL;
	for (size_t i = ol; i-- > 0;)
		if (o[i] == '#' && (i == 0 || o[i - 1] == '\n')) {
			hashline = o + i;
			break;
		}
	char want[65] = "", got[65];
	if (hashline && strlen(hashline) >= 65) {
		memcpy(want, hashline + 1, 64);
		want[64] = '\0';
	}
	/* base64(1) wraps its lines */
	int d = hashline ? lu_base64_decode(o, (size_t)(hashline - o), true,
	                                    out, len)
	                 : 1;
	free(o);
	if (d < 0)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (d == 0)
		lu_sha256_hex(*out, *len, got);
	if (d || strcmp(got, want)) {
		free(*out);
		*out = NULL;
		*len = 0;
		return lu_err(
		    err, LOCUS_EIO,
		    "download of %s: the content did not arrive intact "
		    "(base64 or SHA-256 mismatch)",
		    path);
	}
	return 0;
}

static void os_free(locus_session *ss)
{
	os_session *s = (os_session *)ss;
	if (s->owned && s->name) {
		bool deleted;
		locus_error e;
		lh_os_delete_sandbox(&s->cli, s->name, &deleted, &e);
	}
	lh_grpc_channel_free(s->cli.ch);
	free(s->workspace);
	free(s->id);
	free(s->name);
	free(s);
}

/* ================= construction ================= */

static int os_connect(os_session *s, const locus_openshell_options *o,
                      const char *token, locus_error *err)
{
	lh_grpc_channel_opts co = {0};
	co.endpoint = o->endpoint ? o->endpoint : DEFAULT_ENDPOINT;
	co.ca_file = o->ca_file;
	co.cert_file = o->cert_file;
	co.key_file = o->key_file;
	co.bearer_token = token;
	int rc = lh_grpc_channel_new(&s->cli.ch, &co, err);
	if (rc)
		return rc;
	int st = 0;
	char *ver = NULL;
	rc = lh_os_health(&s->cli, &st, &ver, err);
	free(ver);
	if (!rc && st != 1 && st != 2)
		rc = lu_err(err, LOCUS_EIO,
		            "openshell gateway %s is not healthy (status %d)",
		            co.endpoint, st);
	return rc;
}

static int os_create(os_session *s, const locus_openshell_options *o,
                     locus_error *err)
{
	size_t np = 0;
	while (o->providers && o->providers[np])
		np++;
	lh_os_create cr = {.name = o->create_name,
	                   .image = o->image,
	                   .providers = o->providers,
	                   .nproviders = np};
	lh_os_sandbox sb;
	int rc = lh_os_create_sandbox(&s->cli, &cr, &sb, err);
	if (rc)
		return rc;
	/* owned from here: any later failure deletes it (os_free) */
	s->owned = true;
	s->name = sb.name ? strdup(sb.name) : NULL;
	lh_os_sandbox_clear(&sb);
	if (!s->name)
		return lu_err(
		    err, LOCUS_EIO,
		    "openshell CreateSandbox answered without a name");
	rc = lh_os_wait_ready(
	    &s->cli, s->name, o->ready_timeout_s > 0 ? o->ready_timeout_s : 300,
	    o->poll_interval_s > 0 ? o->poll_interval_s : 1, &sb, err);
	if (rc)
		return rc;
	s->id = strdup(sb.id);
	lh_os_sandbox_clear(&sb);
	return s->id ? 0 : lu_err(err, LOCUS_ENOMEM, "out of memory");
}

static const locus_session openshell_vtable = {
    .version = LOCUS_SESSION_VERSION,
    .exec = os_exec,
    .upload = os_upload,
    .download = os_download,
    .free = os_free,
    .exec_ctl = os_exec_ctl,
};

int locus_session_openshell_new(locus_session **out, char **label_out,
                                const locus_openshell_options *o,
                                locus_error *err)
{
	*out = NULL;
	if (label_out)
		*label_out = NULL;
	if (!o || o->version != LOCUS_OPENSHELL_OPTIONS_VERSION)
		return lu_err(err, LOCUS_EUSAGE,
		              "locus_openshell_options: wrong version");
	if (!(o->sandbox_id && *o->sandbox_id) ==
	    !(o->create_name && *o->create_name))
		return lu_err(err, LOCUS_EINVALID,
		              "openshell: give a sandbox id to attach to, or a "
		              "name to create (exactly one)");
	os_session *s = calloc(1, sizeof *s);
	if (!s)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	s->base = openshell_vtable;
	s->output_max = o->output_max ? o->output_max : OUTPUT_MAX;
	s->cli.call_timeout_s = 30;
	if (o->workspace && !(s->workspace = strdup(o->workspace))) {
		os_free(&s->base);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	s->cli.workspace = s->workspace;
	int rc = os_connect(s, o, o->bearer_token, err);
	if (!rc && o->sandbox_id) {
		s->id = strdup(o->sandbox_id);
		if (!s->id)
			rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
	} else if (!rc) {
		rc = os_create(s, o, err);
	}
	/* prove the sandbox runs commands (and that the id is right) */
	int code = -1;
	char *probe = NULL;
	size_t pl;
	run_opts ro = {.timeout_s = 60, .max_out = 4096};
	if (!rc)
		rc =
		    os_run(s, "echo ready", &ro, &code, &probe, &pl, NULL, err);
	if (!rc && (code != 0 || !probe || strcmp(probe, "ready\n")))
		rc =
		    lu_err(err, LOCUS_EIO,
		           "openshell sandbox %s does not run commands in " ROOT
		           " (exit %d)",
		           s->id, code);
	free(probe);
	if (rc) {
		os_free(&s->base);
		return rc;
	}
	if (label_out) {
		lu_buf b = {0};
		lu_buf_printf(&b, "openshell:%s/%s",
		              o->endpoint ? o->endpoint : DEFAULT_ENDPOINT,
		              s->id);
		if (!(*label_out = lu_buf_take(&b))) {
			os_free(&s->base);
			return lu_err(err, LOCUS_ENOMEM, "out of memory");
		}
	}
	*out = &s->base;
	return 0;
}

int locus_backend_openshell_new(locus_backend **out,
                                const locus_openshell_options *o,
                                locus_error *err)
{
	*out = NULL;
	locus_session *s;
	char *label;
	int rc = locus_session_openshell_new(&s, &label, o, err);
	if (rc)
		return rc;
	rc = locus_backend_session_new(out, s, ROOT, label, true, err);
	free(label);
	return rc;
}
