/*
 * agents/mcp.h - the pieces of `locus mcp` (docs/mcp.md), one concern a file
 * (the command, cli/mcp.c, holds the options, the read loop and shutdown):
 *
 *   mcp_rpc.c    JSON-RPC dispatch of one line (methods, notifications)
 *   mcp_io.c     output: one whole line per message under a lock, ids as
 *                written, UTF-8 cleaning, raw member scanning
 *   mcp_calls.c  the tools/call queue: one worker in arrival order, the
 *                in-flight bound, cancellation, progress
 *   mcp_tools.c  tools/list (titles, annotations, strict schemas, output
 *                schemas), argument checking, the call's result
 *   mcp_struct.c ls, glob and grep text read back as structuredContent
 *   mcp_roots.c  the client's roots as the workspace
 *   mcp_workspace.c  the backend and harness over a root
 *
 * Threads: the main thread reads stdin and answers everything but
 * tools/call at once; one worker runs tool calls one after the other (the
 * harness is not thread-safe); both write through mcp_send().
 */
#ifndef LOCUS_CLI_MCP_H
#define LOCUS_CLI_MCP_H

#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <time.h>
#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "locus/harness.h"
#include "locus/policy.h"

/* JSON-RPC error codes. */
enum {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL_ERROR = -32603,
	RPC_SERVER_BUSY = -32000, /* the in-flight bound (--max-calls) */
};

#define MCP_MAX_LINE ((size_t)16 << 20)
#define MCP_DEFAULT_CALLS 16
#define MCP_ROOTS_WAIT_S 10.0
#define MCP_WRITE_TIMEOUT_S 30.0

typedef struct mcp_call mcp_call;

typedef struct mcp_options {
	const char *root; /* NULL: not given */
	const char *backend;
	const char *policy_file, *preset, *audit_file;
	const char *audit_key;    /* --audit-key: keyed checkpoints */
	const char *const *tools; /* NULL: the default set */
	bool no_read_check;
	bool allow_broad_root;
	size_t max_calls;
	double write_timeout_s;
	/* The backend over `root` (`real`: its real path; NULL for the
	   memory and cloud backends), as the command's options say (cli/mcp.c:
	   --backend, --oci-*, --openshell-*, --bwrap-*, --base-env).  0 or
	   a LOCUS_E* code with the message in err. */
	int (*open_backend)(void *ctx, const char *root, const char *real,
	                    locus_backend **b, locus_error *err);
	void *backend_ctx;
	/* Said after the reason when open_backend fails (how to choose
	   another backend), or NULL. */
	const char *open_hint;
} mcp_options;

typedef struct mcp_server {
	mcp_options opt;
	locus_policy *policy;
	struct locus_audit *audit;

	/* the workspace: built by the main thread before serving, or by
	   the worker when the client's roots change it */
	pthread_mutex_t ws_lock; /* held to swap harness/backend, and by the
	                            main thread to read them */
	locus_backend *backend;
	locus_harness *harness;
	locus_policy_wrap gate;
	char *root_real;
	char *no_workspace; /* why there is none yet (malloc'd), or NULL */

	/* output */
	pthread_mutex_t out_lock; /* held while one message is written */
	_Atomic bool out_broken;  /* the client is gone or was dropped */
	double write_timeout_s;   /* --write-timeout: no byte taken this
	                             long, the client is dropped */
	const volatile sig_atomic_t *term; /* SIGTERM/INT/HUP seen */

	/* protocol state (main thread) */
	bool initialized;
	bool client_roots; /* the client declared capabilities.roots */
	unsigned next_request;

	/* the call queue (calls_lock) */
	pthread_mutex_t calls_lock;
	pthread_cond_t calls_cond;
	mcp_call *head, *tail;
	mcp_call *running;
	size_t inflight; /* queued + running */
	bool eof;        /* no more calls will come: drain, then stop */
	bool aborting;   /* SIGTERM: nothing more runs */
	bool roots_pending;
	struct timespec roots_deadline; /* CLOCK_REALTIME */
	char *new_root; /* a root from roots/list to switch to, or NULL */
	bool worker_started, worker_done;
	pthread_t worker;
} mcp_server;

/* --- mcp_io.c --- */

/* A copy of s that is valid UTF-8 (bad bytes become U+FFFD). */
char *mcp_utf8_clean(const char *s);
/* Make stdout non-blocking when it is a pipe or a socket, so a client
   that stops reading cannot block a writer for good (mcp_send). */
void mcp_output_init(mcp_server *s);
/* Write one message as one line (takes msg; NULL is "out of memory").
   A client that takes no byte for write_timeout_s, or a SIGTERM while
   waiting, drops the client: out_broken, a line on stderr, nothing more
   is written. */
void mcp_send(mcp_server *s, cJSON *msg);
/* {"jsonrpc":"2.0","id":<id_raw>}; id_raw is JSON text or NULL (null). */
cJSON *mcp_envelope(const char *id_raw);
void mcp_send_error(mcp_server *s, const char *id_raw, int code,
                    const char *message);
void mcp_send_result(mcp_server *s, const char *id_raw, cJSON *result);
/*
 * The JSON text of member `key` of the object that `json` (n bytes, a valid
 * JSON object) holds: *at and *len, 0; -1 when it has no such member.
 */
int mcp_raw_member(const char *json, size_t n, const char *key, const char **at,
                   size_t *len);
/* The id of a message as JSON text to answer with (malloc'd): integers and
   other numbers exactly as written, strings re-encoded as clean UTF-8.
   NULL when the id is not a string or a finite number. */
char *mcp_id_text(const char *line, size_t n, const cJSON *id);
/* A key to compare ids by ("n:<as written>" or "s:<string>"), malloc'd. */
char *mcp_id_key(const char *raw_text);

/* --- mcp_rpc.c --- */

void mcp_handle_line(mcp_server *s, const char *line, size_t n);

/* --- mcp_calls.c --- */

int mcp_calls_start(mcp_server *s);
/* Queue a tools/call (the request's id as text, its params); answers the
   busy error itself when the bound is reached. */
void mcp_calls_submit(mcp_server *s, const char *id_raw, const char *line,
                      size_t n, const cJSON *params);
/* notifications/cancelled: drop a queued call, stop a running one. */
void mcp_calls_cancel(mcp_server *s, const char *line, size_t n);
/* EOF: the queued calls run, then the worker ends.  `abort` (SIGTERM):
   queued calls are dropped and the running one cancelled.  Returns at
   once; mcp_calls_join waits for the worker, aborting when *term gets set
   meanwhile. */
void mcp_calls_stop(mcp_server *s, bool abort);
void mcp_calls_join(mcp_server *s, const volatile sig_atomic_t *term);

/* --- mcp_tools.c --- */

/* The tools/list result for the harness (NULL: out of memory). */
cJSON *mcp_tools_list(const mcp_server *s);
/* Check arguments against the tool's schema: NULL when they fit, else a
   message naming the field (malloc'd). */
char *mcp_check_args(const char *schema_text, const cJSON *args);
/* The tools/call result for a tool's text (worker thread). */
cJSON *mcp_tool_result(const mcp_server *s, const char *tool, const char *args,
                       const char *text, bool is_error);

/* --- mcp_struct.c --- */

/* structuredContent for ls, glob and grep from their text, or NULL. */
cJSON *mcp_struct_of(const char *tool, const char *text, const char *args);
/* A tool-error result with a message (argument errors and the like). */
cJSON *mcp_error_result(const char *message);

/* --- mcp_roots.c --- */

/* After notifications/initialized: ask for roots when it applies. */
void mcp_roots_request(mcp_server *s);
/* A response the client sent (to our roots/list). */
void mcp_roots_response(mcp_server *s, const cJSON *msg);
/* A root is too broad (/, the home folder) unless allowed. */
bool mcp_root_broad(const char *real);

/* --- mcp_workspace.c --- */

/* Build the harness over `root` (the worker or the main thread; nothing
   else may use the harness meanwhile).  0, or -1 with *why (malloc'd). */
int mcp_workspace_open(mcp_server *s, const char *root, char **why);
void mcp_workspace_close(mcp_server *s);

#endif
