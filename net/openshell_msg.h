/*
 * net/openshell_msg.h - the OpenShell gateway's messages in C terms.
 *
 * Owns the translation between locus's view of a request or response and
 * the nanopb structs generated from net/openshell.proto.  Encoders
 * write the canonical protobuf a deterministic serializer would (fields in
 * number order by nanopb, proto3 defaults left out, map entries sorted by
 * key) and return it framed for gRPC (5-byte prefix first).  Decoders skip
 * unknown fields and keep unknown enum values as numbers.
 */
#ifndef LOCUS_HARNESS_OPENSHELL_MSG_H
#define LOCUS_HARNESS_OPENSHELL_MSG_H

#include "locus/common.h"

/* A key and value of a protobuf map<string, string>. */
typedef struct lh_os_kv {
	const char *key;
	const char *value;
} lh_os_kv;

/* A request body ready to send: the 5-byte prefix, then the message. */
typedef struct lh_os_frame {
	uint8_t *data; /* malloc'd */
	size_t len;
} lh_os_frame;

void lh_os_frame_free(lh_os_frame *f);

/* Which lifecycle request a name + workspace pair encodes. */
typedef enum lh_os_name_rpc {
	LH_OS_GET,
	LH_OS_DELETE,
	LH_OS_STOP,
	LH_OS_START,
} lh_os_name_rpc;

typedef struct lh_os_create {
	const char *name;      /* NULL or "": the gateway picks one */
	const char *workspace; /* NULL or "": "default" */
	const char *image;     /* NULL: the gateway's default template */
	const lh_os_kv *labels;
	size_t nlabels;
	const char *const *providers; /* provider records to attach */
	size_t nproviders;
	/* spec.command, the sandbox's main process (argv, no shell); none:
	   the gateway's default login shell */
	const char *const *command;
	size_t ncommand;
	bool tty;            /* spec.tty: a pseudo-terminal for it */
	const lh_os_kv *env; /* spec.environment */
	size_t nenv;
} lh_os_create;

typedef struct lh_os_exec {
	const char *sandbox_id; /* metadata.id, not the name */
	const char *const *argv;
	size_t argc;
	const char *workdir; /* NULL: none */
	const lh_os_kv *env;
	size_t nenv;
	uint32_t timeout_seconds; /* 0: none */
	const uint8_t *stdin_data;
	size_t stdin_len;
} lh_os_exec;

/* Every encoder: 0, LOCUS_ENOMEM, or LOCUS_EINVALID (nanopb refused). */
int lh_os_encode_health(lh_os_frame *out, locus_error *err);
int lh_os_encode_create(lh_os_frame *out, const lh_os_create *req,
                        locus_error *err);
int lh_os_encode_name(lh_os_frame *out, lh_os_name_rpc rpc, const char *name,
                      const char *workspace, locus_error *err);
int lh_os_encode_exec(lh_os_frame *out, const lh_os_exec *req,
                      locus_error *err);

/* The fields of a Sandbox the backend reads; strings malloc'd. */
typedef struct lh_os_sandbox {
	char *id;
	char *name;
	char *workspace;
	int phase; /* SandboxPhase; any number, unknown ones kept */
	bool has_exit_code;
	int exit_code;
	char *condition; /* "reason: message" of the last condition, or NULL */
} lh_os_sandbox;

void lh_os_sandbox_clear(lh_os_sandbox *s);

/* Decoders: 0 or LOCUS_EINVALID with the reason in err. */
int lh_os_decode_health(const uint8_t *msg, size_t len, int *status,
                        char **version, locus_error *err);
/* A SandboxResponse; a response without a sandbox is LOCUS_EINVALID. */
int lh_os_decode_sandbox(const uint8_t *msg, size_t len, lh_os_sandbox *out,
                         locus_error *err);
int lh_os_decode_deleted(const uint8_t *msg, size_t len, bool *deleted,
                         locus_error *err);

/* One ExecSandboxEvent. */
typedef enum lh_os_event_kind {
	LH_OS_EV_NONE = 0, /* no payload (or one this client does not know) */
	LH_OS_EV_STDOUT = 1,
	LH_OS_EV_STDERR = 2,
	LH_OS_EV_EXIT = 3,
} lh_os_event_kind;

/*
 * Decode an event; for stdout/stderr the chunk is handed to on_data during
 * the call (not kept), for exit *exit_code is set.
 */
int lh_os_decode_event(const uint8_t *msg, size_t len, lh_os_event_kind *kind,
                       int *exit_code,
                       int (*on_data)(void *p, int kind, const uint8_t *d,
                                      size_t n),
                       void *payload, locus_error *err);

/* "READY", "PROVISIONING"... or NULL for a value this client does not know. */
const char *lh_os_phase_name(int phase);

#define LH_OS_PHASE_PROVISIONING 1
#define LH_OS_PHASE_READY 2
#define LH_OS_PHASE_ERROR 3
#define LH_OS_PHASE_DELETING 4
#define LH_OS_PHASE_STOPPED 7

#endif
