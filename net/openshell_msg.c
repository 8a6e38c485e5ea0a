/*
 * net/openshell_msg.c - OpenShell requests and responses over nanopb
 * (see openshell_msg.h).
 *
 * Request structs point at the caller's strings (cast: nanopb's fields are
 * not const) and are never pb_release'd; response structs are decoded with
 * heap fields and always pb_release'd.  An empty string is sent as absent
 * (NULL): proto3 leaves defaults out and the strict fake checks it; map
 * entries are the exception (key and value always written).
 */
#include "openshell_msg.h"

#include "grpc.h"
#include "util/buf.h"
#include "util/error.h"
#include "openshell.pb.h"

#include <pb_decode.h>
#include <pb_encode.h>
#include <stdlib.h>
#include <string.h>

void lh_os_frame_free(lh_os_frame *f)
{
	free(f->data);
	f->data = NULL;
	f->len = 0;
}

static char *opt(const char *s)
{
	return s && *s ? (char *)(uintptr_t)s : NULL;
}

/* Encode a filled struct as a framed message. */
static int encode(lh_os_frame *out, const pb_msgdesc_t *fields, const void *msg,
                  locus_error *err)
{
	out->data = NULL;
	out->len = 0;
	size_t n;
	if (!pb_get_encoded_size(&n, fields, msg))
		return lu_err(err, LOCUS_EINVALID, "cannot encode the request");
	if (n > UINT32_MAX - 5)
		return lu_err(err, LOCUS_ETOOBIG, "request too large");
	uint8_t *buf = malloc(n + 5);
	if (!buf)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	lh_grpc_prefix(buf, (uint32_t)n);
	pb_ostream_t os = pb_ostream_from_buffer(buf + 5, n);
	if (!pb_encode(&os, fields, msg) || os.bytes_written != n) {
		free(buf);
		return lu_err(err, LOCUS_EINVALID,
		              "cannot encode the request: %s",
		              PB_GET_ERROR(&os));
	}
	out->data = buf;
	out->len = n + 5;
	return 0;
}

int lh_os_encode_health(lh_os_frame *out, locus_error *err)
{
	openshell_v1_HealthRequest m = openshell_v1_HealthRequest_init_zero;
	return encode(out, openshell_v1_HealthRequest_fields, &m, err);
}

/* Map entries: every generated XxxEntry is {char *key; char *value;}. */
typedef struct kv_entry {
	char *key;
	char *value;
} kv_entry;

static int kv_cmp(const void *a, const void *b)
{
	const kv_entry *x = a, *y = b;
	return strcmp(x->key, y->key);
}

/* Sorted entries (deterministic serialisation sorts map keys). */
static kv_entry *kv_sorted(const lh_os_kv *kv, size_t n, pb_size_t *count)
{
	*count = 0;
	if (!n)
		return NULL;
	if (n > (pb_size_t)-1)
		return NULL;
	kv_entry *e = calloc(n, sizeof *e);
	if (!e)
		return NULL;
	/* a map entry carries key and value even when empty (as protobuf's
	 * own serialisers write them): "" is sent, never NULL */
	for (size_t i = 0; i < n; i++) {
		e[i].key = (char *)(uintptr_t)(kv[i].key ? kv[i].key : "");
		e[i].value =
		    (char *)(uintptr_t)(kv[i].value ? kv[i].value : "");
	}
	qsort(e, n, sizeof *e, kv_cmp);
	*count = (pb_size_t)n;
	return e;
}

int lh_os_encode_create(lh_os_frame *out, const lh_os_create *req,
                        locus_error *err)
{
	openshell_v1_CreateSandboxRequest m =
	    openshell_v1_CreateSandboxRequest_init_zero;
	/* the spec is always present, empty unless asked for (as the SDK) */
	m.has_spec = true;
	if (req->image && *req->image) {
		m.spec.has_template = true;
		m.spec.template.image = (char *)(uintptr_t)req->image;
	}
	if (req->nproviders > (pb_size_t)-1)
		return lu_err(err, LOCUS_EINVALID, "too many providers");
	m.spec.providers_count = (pb_size_t)req->nproviders;
	m.spec.providers = (char **)(uintptr_t)req->providers;
	if (req->ncommand > (pb_size_t)-1)
		return lu_err(err, LOCUS_EINVALID, "too many arguments");
	m.spec.command_count = (pb_size_t)req->ncommand;
	m.spec.command = (char **)(uintptr_t)req->command;
	m.spec.tty = req->tty;
	m.name = opt(req->name);
	m.workspace = opt(req->workspace);
	kv_entry *labels =
	    kv_sorted(req->labels, req->nlabels, &m.labels_count);
	kv_entry *env =
	    kv_sorted(req->env, req->nenv, &m.spec.environment_count);
	int rc = (req->nlabels && !labels) || (req->nenv && !env)
	             ? lu_err(err, LOCUS_ENOMEM, "out of memory")
	             : 0;
	m.labels = (void *)labels;
	m.spec.environment = (void *)env;
	if (!rc)
		rc = encode(out, openshell_v1_CreateSandboxRequest_fields, &m,
		            err);
	free(labels);
	free(env);
	return rc;
}

int lh_os_encode_name(lh_os_frame *out, lh_os_name_rpc rpc, const char *name,
                      const char *workspace, locus_error *err)
{
	/* the four requests are distinct messages with the same two fields */
	openshell_v1_GetSandboxRequest g = {opt(name), opt(workspace)};
	openshell_v1_DeleteSandboxRequest d = {opt(name), opt(workspace)};
	openshell_v1_StopSandboxRequest s = {opt(name), opt(workspace)};
	openshell_v1_StartSandboxRequest t = {opt(name), opt(workspace)};
	switch (rpc) {
	case LH_OS_GET:
		return encode(out, openshell_v1_GetSandboxRequest_fields, &g,
		              err);
	case LH_OS_DELETE:
		return encode(out, openshell_v1_DeleteSandboxRequest_fields, &d,
		              err);
	case LH_OS_STOP:
		return encode(out, openshell_v1_StopSandboxRequest_fields, &s,
		              err);
	case LH_OS_START:
		return encode(out, openshell_v1_StartSandboxRequest_fields, &t,
		              err);
	}
	return lu_err(err, LOCUS_EUSAGE, "unknown request");
}

/* A bytes field as a callback (nanopb's heap bytes are 16-bit sized). */
typedef struct bytes_arg {
	const uint8_t *data;
	size_t len;
} bytes_arg;

static bool encode_bytes(pb_ostream_t *os, const pb_field_t *field,
                         void *const *arg)
{
	const bytes_arg *b = *arg;
	if (!b->len)
		return true; /* proto3: the default is left out */
	return pb_encode_tag_for_field(os, field) &&
	       pb_encode_string(os, b->data, b->len);
}

int lh_os_encode_exec(lh_os_frame *out, const lh_os_exec *req, locus_error *err)
{
	openshell_v1_ExecSandboxRequest m =
	    openshell_v1_ExecSandboxRequest_init_zero;
	if (req->argc > (pb_size_t)-1)
		return lu_err(err, LOCUS_EINVALID, "too many arguments");
	m.sandbox_id = opt(req->sandbox_id);
	m.command_count = (pb_size_t)req->argc;
	m.command = (char **)(uintptr_t)req->argv;
	m.workdir = opt(req->workdir);
	m.timeout_seconds = req->timeout_seconds;
	kv_entry *env = kv_sorted(req->env, req->nenv, &m.environment_count);
	if (req->nenv && !env)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	m.environment = (void *)env;
	bytes_arg in = {req->stdin_data, req->stdin_len};
	m.stdin.funcs.encode = encode_bytes;
	m.stdin.arg = &in;
	int rc = encode(out, openshell_v1_ExecSandboxRequest_fields, &m, err);
	free(env);
	return rc;
}

/* ================= decoding ================= */

static int decode(const uint8_t *msg, size_t len, const pb_msgdesc_t *fields,
                  void *dest, const char *what, locus_error *err)
{
	pb_istream_t is = pb_istream_from_buffer(msg, len);
	if (!pb_decode(&is, fields, dest))
		return lu_err(err, LOCUS_EINVALID,
		              "the gateway sent a malformed %s: %s", what,
		              PB_GET_ERROR(&is));
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int lh_os_decode_health(const uint8_t *msg, size_t len, int *status,
                        char **version, locus_error *err)
{
	openshell_v1_HealthResponse m = openshell_v1_HealthResponse_init_zero;
	int rc = decode(msg, len, openshell_v1_HealthResponse_fields, &m,
	                "HealthResponse", err);
	if (rc)
		return rc;
	*status = (int)m.status;
	*version = m.version ? strdup(m.version) : NULL;
	pb_release(openshell_v1_HealthResponse_fields, &m);
	return 0;
}

void lh_os_sandbox_clear(lh_os_sandbox *s)
{
	free(s->id);
	free(s->name);
	free(s->workspace);
	free(s->condition);
	memset(s, 0, sizeof *s);
}

static char *condition_text(const openshell_v1_SandboxStatus *st)
{
	if (!st->conditions_count)
		return NULL;
	const openshell_v1_SandboxCondition *c =
	    &st->conditions[st->conditions_count - 1];
	lu_buf b = {0};
	lu_buf_puts(&b, c->reason ? c->reason : "");
	if (c->message) {
		if (b.len)
			lu_buf_puts(&b, ": ");
		lu_buf_puts(&b, c->message);
	}
	return lu_buf_take(&b);
}

int lh_os_decode_sandbox(const uint8_t *msg, size_t len, lh_os_sandbox *out,
                         locus_error *err)
{
	memset(out, 0, sizeof *out);
	openshell_v1_SandboxResponse m = openshell_v1_SandboxResponse_init_zero;
	int rc = decode(msg, len, openshell_v1_SandboxResponse_fields, &m,
	                "SandboxResponse", err);
	if (rc)
		return rc;
	const openshell_v1_Sandbox *s = &m.sandbox;
	if (!m.has_sandbox || !s->has_metadata || !s->metadata.id ||
	    !*s->metadata.id) {
		pb_release(openshell_v1_SandboxResponse_fields, &m);
		return lu_err(
		    err, LOCUS_EINVALID,
		    "the gateway's SandboxResponse has no sandbox id");
	}
	out->id = dup_or_null(s->metadata.id);
	out->name = dup_or_null(s->metadata.name);
	out->workspace = dup_or_null(s->metadata.workspace);
	out->phase = (int)s->status.phase;
	out->has_exit_code = s->status.has_exit_code;
	out->exit_code = s->status.exit_code;
	out->condition = condition_text(&s->status);
	bool oom = !out->id || (s->metadata.name && !out->name) ||
	           (s->metadata.workspace && !out->workspace);
	pb_release(openshell_v1_SandboxResponse_fields, &m);
	if (oom) {
		lh_os_sandbox_clear(out);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	return 0;
}

int lh_os_decode_deleted(const uint8_t *msg, size_t len, bool *deleted,
                         locus_error *err)
{
	openshell_v1_DeleteSandboxResponse m =
	    openshell_v1_DeleteSandboxResponse_init_zero;
	int rc = decode(msg, len, openshell_v1_DeleteSandboxResponse_fields, &m,
	                "DeleteSandboxResponse", err);
	*deleted = !rc && m.deleted;
	return rc;
}

/* Decoding an event: the chunk is handed on in pieces as it is read. */
typedef struct chunk_arg {
	int (*on_data)(void *p, int kind, const uint8_t *d, size_t n);
	void *payload;
	int kind;
	int rc; /* on_data's refusal */
} chunk_arg;

static bool decode_chunk(pb_istream_t *is, const pb_field_t *field, void **arg)
{
	(void)field;
	chunk_arg *c = *arg;
	uint8_t piece[16384];
	while (is->bytes_left) {
		size_t n = is->bytes_left < sizeof piece ? is->bytes_left
		                                         : sizeof piece;
		if (!pb_read(is, piece, n))
			return false;
		if (c->on_data &&
		    (c->rc = c->on_data(c->payload, c->kind, piece, n)))
			return false;
	}
	return true;
}

/* Called when the oneof's sub-message starts: point its data at us. */
static bool payload_started(pb_istream_t *is, const pb_field_t *field,
                            void **arg)
{
	(void)is;
	chunk_arg *c = *arg;
	pb_callback_t *data = NULL;
	if (field->tag == openshell_v1_ExecSandboxEvent_stdout_tag) {
		c->kind = LH_OS_EV_STDOUT;
		data = &((openshell_v1_ExecSandboxStdout *)field->pData)->data;
	} else if (field->tag == openshell_v1_ExecSandboxEvent_stderr_tag) {
		c->kind = LH_OS_EV_STDERR;
		data = &((openshell_v1_ExecSandboxStderr *)field->pData)->data;
	}
	if (data) {
		data->funcs.decode = decode_chunk;
		data->arg = c;
	}
	return true;
}

int lh_os_decode_event(const uint8_t *msg, size_t len, lh_os_event_kind *kind,
                       int *exit_code,
                       int (*on_data)(void *p, int kind, const uint8_t *d,
                                      size_t n),
                       void *payload, locus_error *err)
{
	*kind = LH_OS_EV_NONE;
	openshell_v1_ExecSandboxEvent m =
	    openshell_v1_ExecSandboxEvent_init_zero;
	chunk_arg c = {.on_data = on_data, .payload = payload};
	m.cb_payload.funcs.decode = payload_started;
	m.cb_payload.arg = &c;
	int rc = decode(msg, len, openshell_v1_ExecSandboxEvent_fields, &m,
	                "ExecSandboxEvent", err);
	if (c.rc)
		return c.rc;
	if (rc)
		return rc;
	switch (m.which_payload) {
	case openshell_v1_ExecSandboxEvent_stdout_tag:
		*kind = LH_OS_EV_STDOUT;
		break;
	case openshell_v1_ExecSandboxEvent_stderr_tag:
		*kind = LH_OS_EV_STDERR;
		break;
	case openshell_v1_ExecSandboxEvent_exit_tag:
		/* the presence of the oneof member, not of exit_code (0 is
		 * an empty sub-message) */
		*kind = LH_OS_EV_EXIT;
		*exit_code = m.payload.exit.exit_code;
		break;
	default: break;
	}
	return 0;
}

const char *lh_os_phase_name(int phase)
{
	static const char *const names[] = {
	    "UNSPECIFIED", "PROVISIONING", "READY",   "ERROR",   "DELETING",
	    "UNKNOWN",     "STOPPING",     "STOPPED", "STARTING"};
	if (phase < 0 || (size_t)phase >= sizeof names / sizeof *names)
		return NULL;
	return names[phase];
}
