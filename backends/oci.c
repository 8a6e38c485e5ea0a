/*
 * backends/oci.c - OCISandboxBackend: a locus_session over the OCI client
 * (spec sandboxes.md), wrapped by backends/session.c into a backend.
 *
 * exec runs the command under `timeout` inside the sandbox, its output
 * going to a file under /workspace/.locus-harness; what comes back is at
 * most max_output_bytes (head and tail with a note of what was dropped)
 * followed by a marker line with the exit status, or "timeout" when the
 * command did not finish: then there is no exit status.  Files go through
 * the file API with their SHA-256; writes above the part size go in parts
 * joined (and hash-checked) inside the sandbox.
 */
#include "net/oci.h"

#include <errno.h>
#include <openssl/evp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cancel_guard.h"
#include "internal.h"
#include "../util/read.h"

#define STATE_DIR "/workspace/.locus-harness"
#define MARK "\n\036locus-rc "

typedef struct oci_session {
	locus_session base;
	loci_client *c;
	char *id;
	char *label;
	bool owned;
	size_t max_out;
	size_t part;
	unsigned seq;
} oci_session;

const char *locus_session_oci_id(const locus_session *s)
{
	return ((const oci_session *)s)->id;
}

const char *locus_session_oci_label(const locus_session *s)
{
	return ((const oci_session *)s)->label;
}

int locus_session_oci_extend(char **expires, locus_session *ss,
                             const char *duration, locus_error *err)
{
	oci_session *s = (oci_session *)ss;
	return loci_sandbox_extend(s->c, s->id, duration, expires, err);
}

/*
 * The script that runs `command` capped and under timeout.  What comes
 * back is base64 (the event stream is JSON text: NUL bytes and invalid
 * UTF-8 would not survive it), then the status line.
 */
static void wrap_command(lu_buf *sc, const oci_session *s, unsigned id,
                         const char *gtok, const char *command, long secs)
{
	size_t head = s->max_out / 2;
	size_t tail = s->max_out > head + 100 ? s->max_out - head - 100 : 0;
	lu_buf_printf(sc,
	              "F=" STATE_DIR "/x%u\n"
	              "mkdir -p " STATE_DIR " || exit 125\n",
	              id);
	/* under the cancel guard (cancel_guard.h) */
	lh_guard_prefix(sc, STATE_DIR, gtok);
	lu_buf_printf(sc,
	              "timeout -k 2 %ld sh -c 'sh -c \"$1\" </dev/null "
	              ">\"$2.out\" 2>&1; echo $? >\"$2.rc\"' locus-exec ",
	              secs);
	lu_buf_shquote(sc, command);
	lu_buf_puts(sc, " \"$F\"\n");
	lh_guard_cleanup(sc, STATE_DIR, gtok);
	lu_buf_printf(
	    sc,
	    "if [ -f \"$F.rc\" ]; then R=$(cat \"$F.rc\"); else R=timeout; fi\n"
	    "S=$(wc -c <\"$F.out\" 2>/dev/null || echo 0)\n"
	    "{ if [ \"$S\" -le %zu ]; then cat \"$F.out\" 2>/dev/null; else\n"
	    "head -c %zu \"$F.out\"\n"
	    "printf '\\n[... %%s bytes of output dropped ...]\\n' "
	    "$((S - %zu))\n"
	    "tail -c %zu \"$F.out\"; fi; } | base64 -w0\n"
	    "rm -f \"$F.out\" \"$F.rc\"\n"
	    "printf '\\n\\036locus-rc %%s\\n' \"$R\"\n",
	    s->max_out, head, head + tail, tail);
}

/* Split the marker off: *code the exit status, -1 after a timeout. */
static int take_marker(char *out, size_t *len, int *code, locus_error *err)
{
	/* The last marker is ours: the command's output came before it. */
	char *m = NULL;
	size_t ml = sizeof MARK - 1;
	for (size_t i = *len >= ml ? *len - ml + 1 : 0; i-- > 0;)
		if (out[i] == '\n' && !memcmp(out + i, MARK, ml)) {
			m = out + i;
			break;
		}
	if (!m)
		return lu_err(err, LOCUS_EIO,
		              "OCI exec: the command's status line is missing");
	const char *v = m + sizeof MARK - 1;
	if (!strncmp(v, "timeout", 7)) {
		*code = -1;
	} else {
		char *end;
		long c = strtol(v, &end, 10);
		if (end == v || *end != '\n' || c < 0 || c > 255)
			return lu_err(err, LOCUS_EIO,
			              "OCI exec: a bad status line");
		*code = (int)c;
	}
	*len = (size_t)(m - out);
	out[*len] = '\0';
	return 0;
}

/* Stop a cancelled command: the service's cancel (SIGKILL) for what it
   started, when the command id is known, then the guard's kill script
   for the tree below (the service's signal does not reach the group
   `timeout` makes, nor a setsid child). */
static int stop_command(oci_session *s, const char *command_id,
                        const char *gtok, locus_error *err)
{
	locus_error ignored;
	if (command_id[0])
		loci_command_cancel(s->c, s->id, command_id, "SIGKILL",
		                    &ignored);
	lu_buf sc = {0};
	lh_guard_kill_script(&sc, STATE_DIR, gtok);
	if (sc.oom) {
		lu_buf_free(&sc);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	loci_run_result r;
	int rc = loci_run(s->c, s->id, sc.d, "/workspace", 30, 4096, &r, err);
	lu_buf_free(&sc);
	if (!rc && (!r.has_exit_code || r.exit_code != 0))
		rc = lu_err(err, LOCUS_EIO,
		            "OCI: the cancelled command %s may still run in "
		            "sandbox %s (the kill script exited %d)",
		            command_id, s->id, r.exit_code);
	loci_run_result_clear(&r);
	return rc;
}

static int o_exec_ctl(locus_session *ss, const char *command, double timeout_s,
                      const locus_call_ctl *ctl, int *exit_code, char **out,
                      size_t *len, bool *cancelled, locus_error *err)
{
	oci_session *s = (oci_session *)ss;
	*exit_code = -1;
	*out = NULL;
	*len = 0;
	if (cancelled)
		*cancelled = false;
	long secs = timeout_s < 1 ? 1 : (long)(timeout_s + 0.999);
	char gtok[33];
	if (lhttp_random_token(gtok))
		return lu_err(err, LOCUS_EIO, "OCI: no random bytes");
	lu_buf sc = {0};
	wrap_command(&sc, s, ++s->seq, gtok, command, secs);
	if (sc.oom) {
		lu_buf_free(&sc);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	/* progress without a byte count: the output comes back at the end */
	lh_watch w;
	lh_watch_init(&w, ctl, NULL, NULL);
	if (ctl)
		loci_client_set_cancel(s->c, lh_watch_poll, &w);
	loci_run_result r;
	/* Room for base64, the cap's note and the status line. */
	int rc = loci_run(s->c, s->id, sc.d, "/workspace", (double)secs,
	                  s->max_out / 3 * 4 + 8192, &r, err);
	loci_client_set_cancel(s->c, NULL, NULL);
	lu_buf_free(&sc);
	if (w.cancelled) {
		if (cancelled)
			*cancelled = true;
		rc = stop_command(s, r.command_id, gtok, err);
		loci_run_result_clear(&r);
		return rc;
	}
	if (!rc)
		rc = take_marker(r.out, &r.len, exit_code, err);
	if (!rc && loci_b64_decode(r.out, r.len, out, len))
		rc = lu_err(err, LOCUS_EIO,
		            "OCI exec: the output came back garbled");
	loci_run_result_clear(&r);
	return rc;
}

static int o_exec(locus_session *ss, const char *command, double timeout_s,
                  int *exit_code, char **out, size_t *len, locus_error *err)
{
	return o_exec_ctl(ss, command, timeout_s, NULL, exit_code, out, len,
	                  NULL, err);
}

/* A write in parts: each part through the file API, then joined. */
static int upload_parts(oci_session *s, const char *path, const char *data,
                        size_t len, locus_error *err)
{
	lu_buf sc = {0};
	lu_buf_puts(&sc, "P=");
	lu_buf_shquote(&sc, path);
	lu_buf_puts(&sc, "\nset -e\n: > \"$P.join\"\n");
	size_t k = 0;
	int rc = 0;
	for (size_t off = 0; off < len && !rc; off += s->part, k++) {
		size_t n = len - off < s->part ? len - off : s->part;
		lu_buf part = {0};
		lu_buf_printf(&part, "%s.part%zu", path, k);
		rc = part.oom ? LOCUS_ENOMEM
		              : loci_file_write(s->c, s->id, part.d, data + off,
		                                n, err);
		lu_buf_free(&part);
		lu_buf_printf(&sc, "cat \"$P.part%zu\" >> \"$P.join\"\n", k);
	}
	char hex[65];
	lu_sha256_hex(data, len, hex);
	lu_buf_printf(&sc,
	              "rm -f \"$P\".part*\n"
	              "H=$(sha256sum \"$P.join\" | cut -d' ' -f1)\n"
	              "[ \"$H\" = %s ] || { rm -f \"$P.join\"; exit 7; }\n"
	              "mv -f \"$P.join\" \"$P\"\n",
	              hex);
	int code = 0;
	char *o = NULL;
	size_t ol;
	if (!rc)
		rc = sc.oom ? LOCUS_ENOMEM
		            : o_exec(&s->base, sc.d, 120, &code, &o, &ol, err);
	if (!rc && code != 0)
		rc = lu_err(err, LOCUS_EIO,
		            "OCI write %s: joining %zu parts failed (%s)", path,
		            k, code == 7 ? "hash mismatch" : "exit status");
	free(o);
	lu_buf_free(&sc);
	return rc;
}

/* The file API serves /workspace only; the session backend may keep its
   job files elsewhere (a private mktemp folder in /tmp when the sandbox
   lets the shell write there), so those go through exec: base64 in
   bounded pieces, checked with sha256sum. */
static bool in_workspace(const char *path)
{
	return strncmp(path, "/workspace/", 11) == 0;
}

#define EXEC_PIECE ((size_t)96 << 10) /* raw bytes per command */

static int exec_ok(oci_session *s, lu_buf *sc, const char *what,
                   const char *path, char **out, size_t *len, locus_error *err)
{
	int code = -1;
	char *o = NULL;
	size_t ol = 0;
	int rc = sc->oom ? lu_err(err, LOCUS_ENOMEM, "out of memory")
	                 : o_exec(&s->base, sc->d, 60, &code, &o, &ol, err);
	lu_buf_free(sc);
	if (!rc && code != 0)
		rc = lu_err(err, code == 2 ? LOCUS_ENOTFOUND : LOCUS_EIO,
		            "OCI %s %s through the shell failed (exit %d)",
		            what, path, code);
	if (!rc && out) {
		*out = o;
		*len = ol;
	} else {
		free(o);
	}
	return rc;
}

static int upload_exec(oci_session *s, const char *path, const char *data,
                       size_t len, locus_error *err)
{
	char *b64 = malloc(4 * (EXEC_PIECE / 3 + 1) + 1);
	if (!b64)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	int rc = 0;
	size_t off = 0;
	do {
		size_t n = len - off < EXEC_PIECE ? len - off : EXEC_PIECE;
		EVP_EncodeBlock((unsigned char *)b64,
		                (const unsigned char *)data + off, (int)n);
		lu_buf sc = {0};
		lu_buf_puts(&sc, "P=");
		lu_buf_shquote(&sc, path);
		lu_buf_printf(&sc, "\nprintf '%%s' '%s' | base64 -d %s \"$P\"",
		              b64, off ? ">>" : ">");
		rc = exec_ok(s, &sc, "write", path, NULL, NULL, err);
		off += n;
	} while (!rc && off < len);
	free(b64);
	if (rc)
		return rc;
	char hex[65];
	lu_sha256_hex(data, len, hex);
	lu_buf sc = {0};
	lu_buf_puts(&sc, "P=");
	lu_buf_shquote(&sc, path);
	lu_buf_printf(&sc, "\n[ \"$(sha256sum \"$P\" | cut -d' ' -f1)\" = %s ]",
	              hex);
	return exec_ok(s, &sc, "write (hash check)", path, NULL, NULL, err);
}

static int download_exec(oci_session *s, const char *path, char **out,
                         size_t *len, locus_error *err)
{
	lu_buf sc = {0};
	lu_buf_puts(&sc, "P=");
	lu_buf_shquote(&sc, path);
	/* exit 2: missing; then size, hash, and the bytes as base64 */
	lu_buf_puts(&sc, "\n[ -f \"$P\" ] || exit 2\n"
	                 "wc -c <\"$P\"; sha256sum \"$P\" | cut -d' ' -f1\n"
	                 "base64 -w0 \"$P\"\n");
	char *o;
	size_t ol;
	int rc = exec_ok(s, &sc, "read", path, &o, &ol, err);
	if (rc)
		return rc;
	char *nl1 = memchr(o, '\n', ol);
	char *nl2 =
	    nl1 ? memchr(nl1 + 1, '\n', ol - (size_t)(nl1 + 1 - o)) : NULL;
	size_t want = nl1 ? strtoul(o, NULL, 10) : 0;
	char *bytes = NULL;
	size_t n = 0;
	char hex[65];
	if (nl2 &&
	    !loci_b64_decode(nl2 + 1, ol - (size_t)(nl2 + 1 - o), &bytes, &n) &&
	    n == want) {
		lu_sha256_hex(bytes, n, hex);
		if (!strncmp(hex, nl1 + 1, 64)) {
			*out = bytes;
			*len = n;
			free(o);
			return 0;
		}
	}
	free(bytes);
	free(o);
	return lu_err(err, LOCUS_EIO,
	              "OCI read %s through the shell: a bad copy", path);
}

static int o_upload(locus_session *ss, const char *path, const char *data,
                    size_t len, locus_error *err)
{
	oci_session *s = (oci_session *)ss;
	if (!in_workspace(path))
		return upload_exec(s, path, data, len, err);
	if (len > s->part)
		return upload_parts(s, path, data, len, err);
	return loci_file_write(s->c, s->id, path, data, len, err);
}

static int o_download(locus_session *ss, const char *path, char **out,
                      size_t *len, locus_error *err)
{
	oci_session *s = (oci_session *)ss;
	if (!in_workspace(path))
		return download_exec(s, path, out, len, err);
	return loci_file_read(s->c, s->id, path, out, len, err);
}

static void o_free(locus_session *ss)
{
	oci_session *s = (oci_session *)ss;
	if (!s)
		return;
	if (s->owned && s->id) {
		locus_error err;
		loci_sandbox_destroy(s->c, s->id, &err);
	}
	loci_client_free(s->c);
	free(s->id);
	free(s->label);
	free(s);
}

/* ---------------------------------------------------------------- */
/* Construction                                                       */
/* ---------------------------------------------------------------- */

static int read_small(const char *path, char **out, size_t *len,
                      locus_error *err)
{
	int rc = lu_read_path(path, 65535, out, len);
	if (rc > 0)
		return lu_err(err, LOCUS_ETOOBIG, "%s: over 64 KiB", path);
	if (rc < 0 && errno == ENOMEM)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (rc < 0)
		return lu_err(err, LOCUS_ENOTFOUND, "%s: cannot open", path);
	return 0;
}

static int make_routes(loci_routes *rt, const char *file, locus_error *err)
{
	int rc = loci_routes_default(rt, err);
	if (rc || !file)
		return rc;
	char *text = NULL;
	size_t len = 0;
	rc = read_small(file, &text, &len, err);
	if (!rc)
		rc = loci_routes_apply_json(rt, text, len, err);
	free(text);
	if (rc)
		loci_routes_clear(rt);
	return rc;
}

static int make_client(loci_client **out, const locus_oci_options *opt,
                       locus_error *err)
{
	*out = NULL;
	loci_stream_framing fr = LOCI_STREAM_AUTO;
	if (opt->stream && !strcmp(opt->stream, "sse"))
		fr = LOCI_STREAM_SSE;
	else if (opt->stream && !strcmp(opt->stream, "ndjson"))
		fr = LOCI_STREAM_NDJSON;
	else if (opt->stream)
		return lu_err(err, LOCUS_EINVALID,
		              "OCI: stream framing must be sse or ndjson");
	loci_config cfg;
	int rc = loci_config_load(&cfg, opt->config_file, opt->profile, err);
	if (rc)
		return rc;
	loci_signer *sg = NULL;
	loci_routes rt = {0};
	if (!(rc = loci_signer_from_config(&sg, &cfg, err)) &&
	    !(rc = make_routes(&rt, opt->routes_file, err))) {
		loci_client_options co = {0};
		co.endpoint = opt->endpoint;
		co.region = opt->region ? opt->region : cfg.region;
		co.ca_file = opt->ca_file;
		co.framing = fr;
		co.data_base64 = opt->data_base64;
		co.expires_in_minutes = opt->expires_in_minutes;
		if (!co.region || !*co.region)
			rc = lu_err(err, LOCUS_EINVALID,
			            "OCI: no region (--oci-region or the "
			            "profile's region)");
		else
			rc = loci_client_new(out, &co, sg, &rt, err);
		sg = NULL;
	}
	loci_signer_free(sg);
	loci_routes_clear(&rt);
	loci_config_clear(&cfg);
	return rc;
}

static int open_sandbox(oci_session *s, const locus_oci_options *opt,
                        locus_error *err)
{
	if (opt->sandbox_id) {
		if (!(s->id = strdup(opt->sandbox_id)))
			return lu_err(err, LOCUS_ENOMEM, "out of memory");
		return loci_sandbox_attach(s->c, s->id, 300, err);
	}
	loci_create in = {.project_id = opt->create_project,
	                  .display_name = opt->display_name,
	                  .runtime = opt->runtime,
	                  .shape = opt->shape,
	                  .expiration = opt->expiration,
	                  .warmpool_name = opt->warmpool_name,
	                  .env = opt->env,
	                  .ready_timeout_s = opt->ready_timeout_s,
	                  .poll_interval_s = opt->poll_interval_s};
	int rc = loci_sandbox_create(s->c, &in, &s->id, err);
	s->owned = s->id != NULL; /* from here on, o_free deletes it */
	return rc;
}

static const locus_session oci_vtable = {
    .version = LOCUS_SESSION_VERSION,
    .exec = o_exec,
    .upload = o_upload,
    .download = o_download,
    .free = o_free,
    .exec_ctl = o_exec_ctl,
};

int locus_session_oci_new(locus_session **out, const locus_oci_options *opt,
                          locus_error *err)
{
	*out = NULL;
	if (!opt || opt->version != LOCUS_OCI_OPTIONS_VERSION)
		return lu_err(err, LOCUS_EUSAGE, "locus_oci_options version");
	if (!opt->sandbox_id == !opt->create_project)
		return lu_err(err, LOCUS_EINVALID,
		              "OCI: give a sandbox id or a project to create "
		              "one in (not both)");
	oci_session *s = calloc(1, sizeof *s);
	if (!s)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	s->base = oci_vtable;
	s->max_out = opt->max_output_bytes ? opt->max_output_bytes : 900000;
	s->part =
	    opt->write_part_bytes ? opt->write_part_bytes : (size_t)8 << 20;
	int rc = make_client(&s->c, opt, err);
	if (!rc)
		rc = open_sandbox(s, opt, err);
	if (!rc) {
		lu_buf l = {0};
		lu_buf_printf(&l, "oci-sandbox:%s/%s", loci_client_region(s->c),
		              s->id);
		s->label = lu_buf_take(&l);
		if (!s->label)
			rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	if (rc) {
		/* Keep the first error: the clean-up may fail too. */
		locus_error first;
		if (err)
			first = *err;
		o_free(&s->base);
		if (err)
			*err = first;
		return rc;
	}
	*out = &s->base;
	return 0;
}

int locus_backend_oci_new(locus_backend **out, locus_session **session_out,
                          const locus_oci_options *opt, locus_error *err)
{
	*out = NULL;
	if (session_out)
		*session_out = NULL;
	locus_session *s;
	int rc = locus_session_oci_new(&s, opt, err);
	if (rc)
		return rc;
	/* The label is copied by the session backend. */
	rc = locus_backend_session_new(out, s, "/workspace",
	                               locus_session_oci_label(s), true, err);
	if (!rc && session_out)
		*session_out = s;
	return rc;
}
