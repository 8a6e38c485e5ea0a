/*
 * locus/harness.h - the coding harness: workspace backends and tools.
 *
 * Spec: docs/spec/harness.md.  A backend is a struct of function pointers
 * (libgit2 sys/odb_backend style: a version field and a required free).  The
 * harness builds tools over one backend; a tool call is JSON in, text out.
 *
 * Paths given to a backend are relative to its root or absolute inside it;
 * anything that resolves outside the root is refused with LOCUS_EDENIED and
 * a message naming the path.
 *
 * Allocators (docs/api.md): every buffer the harness returns to its caller
 * (tool results, previews, prompts, todos) is freed with locus_free().
 * Buffers flowing the other way, from a backend, a session or a callback
 * into the library (a backend's read/list/exec output, a wrap's refusal,
 * a result_store id), are allocated with malloc(3) by their maker and
 * released by the library with free(3).  Objects have their own _free.
 */
#ifndef LOCUS_HARNESS_H
#define LOCUS_HARNESS_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Backends                                                             */
/* ------------------------------------------------------------------ */

/* 2: the backend vtable grew exec_ctl, write_cas and
   write_many, the session vtable exec_ctl.  A version-1 struct (shorter:
   it ends before them) is still accepted; the library never reads the
   members it did not have and treats them as NULL. */
#define LOCUS_BACKEND_VERSION 2
#define LOCUS_SESSION_VERSION 2

/* Folders every walk (ls, glob, grep) leaves out.  NULL-terminated. */
LOCUS_API extern const char *const locus_skip_dirs[];

typedef struct locus_stat {
	bool exists;
	bool is_dir;
	uint64_t size;
	int64_t mtime_ns; /* 0 when the backend has no clock */
} locus_stat;

typedef struct locus_dirent {
	char *name; /* walk: path relative to the walked folder ("a/b.c") */
	bool is_dir;
	uint64_t size;
	int64_t mtime_ns;
} locus_dirent;

/** Free an array of entries from list or walk.  NULL is accepted. */
LOCUS_API void locus_dirents_free(locus_dirent *ents, size_t n);

/*
 * How a backend's exec/exec_ctl runs a command: LOCUS_EXEC_DEFAULT or an
 * or of the bits below (an unknown bit is ignored).
 */
typedef enum locus_exec_flags {
	/* Run in the foreground: wait for the end or the timeout; on timeout
	   the command's process group is killed (out->timed_out). */
	LOCUS_EXEC_DEFAULT = 0,
	/* Start the command and return at once: out->finished false and
	   out->handle names it for bg_output/bg_write/bg_kill; timeout_s is
	   not applied. */
	LOCUS_EXEC_BACKGROUND = 1 << 0,
	/* Foreground, but on timeout keep the command running under a handle
	   (out->timed_out, out->handle set) instead of killing its group. */
	LOCUS_EXEC_KEEP = 1 << 1,
} locus_exec_flags;

typedef struct locus_exec_result {
	bool finished; /* false: still running (handle set) or killed */
	int exit_code; /* valid when finished; 128+N for signal N */
	bool timed_out;
	char handle[16]; /* "sh1"... when the command lives on, else "" */
	char *output;    /* malloc'd (may be NULL when empty) */
	size_t output_len;
	double duration_s;
	bool cancelled; /* stopped by locus_call_cancel (group killed) */
} locus_exec_result;

/** Free the output of a result (not the struct). */
LOCUS_API void locus_exec_result_clear(locus_exec_result *r);

/* State of a background command, from bg_output. */
typedef struct locus_bg_status {
	bool running;
	int exit_code; /* when !running */
	size_t next;   /* offset to pass as `since` next time */
} locus_bg_status;

/*
 * Control of one tool call in progress (locus_harness_call_ctl).  Another
 * thread (or a signal handler) may cancel the call with locus_call_cancel():
 * a call cancelled before it starts runs nothing (not even the gate), a
 * running command's process group is killed (backends with exec_ctl), and
 * a file change not yet made is never made.  While a command runs,
 * `progress` (optional) is called from the calling thread at most about
 * once a second with the seconds elapsed and the bytes of output so far.
 * Initialise with LOCUS_CALL_CTL_INIT (an unknown version is refused:
 * LOCUS_EINVALID); `cancelled` is only read and set through the two
 * functions below.
 */
typedef struct locus_call_ctl {
	unsigned version; /* LOCUS_CALL_CTL_VERSION */
	int cancelled;
	void (*progress)(double elapsed_s, size_t output_bytes, void *payload);
	void *payload;
} locus_call_ctl;

#define LOCUS_CALL_CTL_VERSION 1
#define LOCUS_CALL_CTL_INIT                                                    \
	{                                                                      \
		.version = LOCUS_CALL_CTL_VERSION                              \
	}

/** Fill `opts` with the defaults: zeroed (every field's zero is its
 *  default) with `version` set; the function form of LOCUS_CALL_CTL_INIT.
 *  @return 0, LOCUS_EUSAGE (NULL opts), LOCUS_EINVALID (a version
 *          other than LOCUS_CALL_CTL_VERSION; opts untouched) */
LOCUS_API int locus_call_ctl_init(locus_call_ctl *opts, unsigned version);

/** Cancel the call (any thread; async-signal-safe; idempotent). */
LOCUS_API void locus_call_cancel(locus_call_ctl *ctl);
/** True once locus_call_cancel() was called; false for NULL. */
LOCUS_API bool locus_call_cancelled(const locus_call_ctl *ctl);

/* One change of a write_many batch. */
typedef struct locus_write_op {
	const char *path;
	const char *data; /* the new bytes (unused when remove) */
	size_t len;
	bool remove;               /* remove the file instead of writing it */
	const char *expect_sha256; /* what the file must still be; NULL:
	                              it must not exist */
} locus_write_op;

/* What a search (grep) reports. */
typedef enum locus_grep_mode {
	LOCUS_GREP_CONTENT = 0, /* matching lines, with context */
	LOCUS_GREP_FILES = 1,   /* names of files that match */
	LOCUS_GREP_COUNT = 2,   /* matches per file */
} locus_grep_mode;

/*
 * A workspace backend.  Every fallible member returns 0 or a negative
 * LOCUS_E* code and then fills `err` (optional) with a message naming the
 * path; on failure its out-parameters are left NULL/0 and nothing was
 * changed unless the member says otherwise.  Codes every member may give:
 * LOCUS_ENOMEM, LOCUS_EIO (err->sys = errno; a remote backend: the
 * transport failed), LOCUS_ETIMEOUT (a remote backend did not answer in
 * time), LOCUS_EDENIED (the path resolves outside the root); the members
 * list the others.  Buffers a member returns through `char **out` or in
 * locus_exec_result/locus_dirent are malloc'd by the backend and freed by
 * the harness with free() (locus_dirents_free, locus_exec_result_clear).
 */
typedef struct locus_backend locus_backend;
struct locus_backend {
	unsigned version;  /* LOCUS_BACKEND_VERSION */
	const char *label; /* "UNISOLATED: host shell", "memory", ... */
	const char *root;  /* shown in prompts */
	bool can_exec;
	bool isolated;

	/* Facts about a path.  A path that does not exist is not an
	 * error: 0 with out->exists false.  Required. */
	int (*stat)(locus_backend *b, const char *path, locus_stat *out,
	            locus_error *err);
	/* Read a whole file (out is NUL-terminated past len).  Required.
	 * LOCUS_ENOTFOUND: no such file; LOCUS_EINVALID: a folder;
	 * LOCUS_ETOOBIG: past the backend's size limit. */
	int (*read)(locus_backend *b, const char *path, char **out, size_t *len,
	            locus_error *err);
	/* Create or replace atomically; creates parent folders.  Required.
	 * LOCUS_EINVALID: the path is a folder; LOCUS_ENOTFOUND: a part of
	 * the path is a file. */
	int (*write)(locus_backend *b, const char *path, const char *data,
	             size_t len, locus_error *err);
	/* Remove a file.  Required.  LOCUS_ENOTFOUND: no such file. */
	int (*remove)(locus_backend *b, const char *path, locus_error *err);
	/* Entries of one folder, sorted by name (*out freed with
	 * locus_dirents_free).  Required.  LOCUS_ENOTFOUND: no such folder;
	 * LOCUS_EINVALID: not a folder. */
	int (*list)(locus_backend *b, const char *path, locus_dirent **out,
	            size_t *n, locus_error *err);
	/* Every file below path (SKIP_DIRS and .locus-harness left out),
	 * names relative to path, sorted.  At most max entries (more are
	 * not an error: the first max are returned).  Required.
	 * LOCUS_ENOTFOUND: no such folder. */
	int (*walk)(locus_backend *b, const char *path, size_t max,
	            locus_dirent **out, size_t *n, locus_error *err);

	/* Run a shell command as `flags` say (locus_exec_flags); NULL when
	 * can_exec is false.  A command that fails or times out is not an error: 0 with
	 * out->finished/exit_code/timed_out set (clear it with
	 * locus_exec_result_clear).  LOCUS_EIO: the command could not be
	 * started. */
	int (*exec)(locus_backend *b, const char *command, double timeout_s,
	            locus_exec_flags flags, locus_exec_result *out,
	            locus_error *err);
	/* Output of a background command from byte `since`.
	 * LOCUS_ENOTFOUND: no command with that handle. */
	int (*bg_output)(locus_backend *b, const char *handle, size_t since,
	                 char **out, size_t *len, locus_bg_status *st,
	                 locus_error *err);
	/* Write to a background command's stdin (and close it).
	 * LOCUS_ENOTFOUND: no such handle; LOCUS_ETIMEOUT: the command did
	 * not read in time (nothing more is written); LOCUS_EIO: it exited
	 * or closed its stdin. */
	int (*bg_write)(locus_backend *b, const char *handle, const char *data,
	                size_t len, bool close_stdin, locus_error *err);
	/* Kill the group; st gets the exit status.
	 * LOCUS_ENOTFOUND: no such handle. */
	int (*bg_kill)(locus_backend *b, const char *handle,
	               locus_bg_status *st, locus_error *err);

	/* Optional search (grep) for backends where reading every file
	 * would be slow (sessions); NULL: the harness searches natively with
	 * PCRE2 over walk and read.  *out is the tool's text (malloc'd).
	 * LOCUS_EINVALID: a pattern the backend's engine refuses. */
	int (*search)(locus_backend *b, const char *pattern, const char *path,
	              const char *glob, bool case_insensitive, int context,
	              locus_grep_mode mode, size_t limit, char **out,
	              locus_error *err);

	void (*free)(locus_backend *b); /* required; never fails */

	/* Optional: exec under a call's control (NULL: exec is used and the
	 * command cannot be cancelled).  While the command runs it polls
	 * locus_call_cancelled(ctl) and kills the command's process group
	 * when set (then out->cancelled), and calls ctl->progress about once
	 * a second.  ctl may be NULL (then exactly exec).  Codes as exec. */
	int (*exec_ctl)(locus_backend *b, const char *command, double timeout_s,
	                locus_exec_flags flags,
	                const struct locus_call_ctl *ctl,
	                locus_exec_result *out, locus_error *err);

	/* Optional compare-and-swap write: like write, but only while the
	 * file's SHA-256 is still `expect_sha256` (NULL: while it does not
	 * exist), checked under a lock right before the rename; otherwise
	 * LOCUS_ECONFLICT and nothing is written.  The harness uses it for
	 * every change it commits, so of two concurrent edits of one file one
	 * wins and the other is refused.  NULL: plain write.  Codes as
	 * write, plus LOCUS_ECONFLICT. */
	int (*write_cas)(locus_backend *b, const char *path, const char *data,
	                 size_t len, const char *expect_sha256,
	                 locus_error *err);

	/* Optional: several changes all or nothing (the harness's commit of
	 * a plan: apply_patch of several files, a Move).  Every write is
	 * staged first (its bytes in a temporary file beside the target, the
	 * replaced file's mode and owner taken over); then each change is
	 * made under its compare-and-swap check (the file's SHA-256 must
	 * still be op.expect_sha256, NULL: it must not exist), the file it
	 * replaces or removes kept aside; when one fails, every change made
	 * is undone (the very files put back: content, mode, owner) and
	 * *failed is its index.  0: all made; LOCUS_ECONFLICT (a file changed
	 * meanwhile), LOCUS_EINVALID, LOCUS_ENOTFOUND, LOCUS_EDENIED,
	 * LOCUS_EIO, LOCUS_ENOMEM: nothing changed (folders made for new
	 * files may stay).  NULL: the harness writes one after another. */
	int (*write_many)(locus_backend *b, const struct locus_write_op *ops,
	                  size_t n, size_t *failed, locus_error *err);
};

/** Free a backend through its vtable.  NULL is accepted. */
LOCUS_API void locus_backend_free(locus_backend *b);

/**
 * A folder on the host.  Files are confined to root (component by component,
 * symlinks re-checked, openat2(RESOLVE_BENEATH) when the kernel has it);
 * commands run with root as working folder, each in its own process group.
 * Not isolated: label "UNISOLATED: host shell" unless `label` is given.
 */
LOCUS_API int locus_backend_local_new(locus_backend **out, const char *root,
                                      const char *label, locus_error *err);

#define LOCUS_LOCAL_OPTIONS_VERSION 2

/*
 * Options of the LocalBackend (start from LOCUS_LOCAL_OPTIONS_INIT).
 * output_max: bytes of a command's output kept on disk (the rest counted
 * and dropped, with a note); 0: 64 MiB.  rlimit_nproc, rlimit_fsize:
 * RLIMIT_NPROC and RLIMIT_FSIZE (bytes) set for every command; 0: left as
 * they are.  stdin_timeout_s: how long write_stdin waits for a command to
 * read (0: 10 s); then it fails, it never blocks.
 * base_env (version 2): NULL, commands inherit the whole environment of
 * the process (tokens and keys included: the backend is a host shell);
 * else a NULL-terminated list of variable names, and commands get only
 * those of them that are set when the backend is made (the original's
 * `base_env` allowlist; docs/harness.md).  A version 1 struct is still
 * taken (without base_env).
 */
typedef struct locus_local_options {
	unsigned version;
	size_t output_max;
	long rlimit_nproc;
	long rlimit_fsize;
	double stdin_timeout_s;
	const char *const *base_env; /* version 2 */
} locus_local_options;

#define LOCUS_LOCAL_OPTIONS_INIT                                               \
	{                                                                      \
		.version = LOCUS_LOCAL_OPTIONS_VERSION                         \
	}

/** Fill `opts` with the defaults: zeroed (every field's zero is its
 *  default) with `version` set; the function form of LOCUS_LOCAL_OPTIONS_INIT.
 *  @return 0, LOCUS_EUSAGE (NULL opts), LOCUS_EINVALID (a version
 *          other than LOCUS_LOCAL_OPTIONS_VERSION; opts untouched) */
LOCUS_API int locus_local_options_init(locus_local_options *opts,
                                       unsigned version);

/** locus_backend_local_new with options (NULL: the defaults). */
LOCUS_API int locus_backend_local_new_opts(locus_backend **out,
                                           const char *root, const char *label,
                                           const locus_local_options *opts,
                                           locus_error *err);

/** An in-memory map of files, no shell.  Starts empty. */
LOCUS_API int locus_backend_memory_new(locus_backend **out, locus_error *err);

/**
 * The three-call session interface any sandbox can provide.  Each member
 * returns 0 or a negative LOCUS_E* code with `err` filled (optional):
 * LOCUS_EIO (the sandbox or its transport failed), LOCUS_ETIMEOUT (no
 * answer in time), LOCUS_EDENIED (the service refused the credentials),
 * LOCUS_ENOMEM.  `exec` runs a POSIX sh command line in the sandbox;
 * *exit_code is -1 when it did not finish within timeout_s (the session
 * must stop it then; that is not an error); *out (malloc'd, freed by the
 * caller with free()) holds stdout and stderr.  `upload` creates or
 * replaces a file (parents created); `download` reads one
 * (LOCUS_ENOTFOUND when absent; *out malloc'd, NUL-terminated past *len).
 */
typedef struct locus_session locus_session;
struct locus_session {
	unsigned version; /* LOCUS_SESSION_VERSION */
	int (*exec)(locus_session *s, const char *command, double timeout_s,
	            int *exit_code, char **out, size_t *len, locus_error *err);
	int (*upload)(locus_session *s, const char *path, const char *data,
	              size_t len, locus_error *err);
	int (*download)(locus_session *s, const char *path, char **out,
	                size_t *len, locus_error *err);
	void (*free)(locus_session *s); /* required; never fails */

	/* Optional (NULL: exec, which cannot be cancelled): exec under a
	 * call's control.  While the command runs it polls
	 * locus_call_cancelled(ctl) (at least about once a second) and calls
	 * ctl->progress about once a second (seconds elapsed; bytes of output
	 * so far where the sandbox streams them, else 0).  Once cancelled it
	 * stops the command as far as the sandbox allows (docs/backends.md
	 * says how far, per backend) and returns 0 with *cancelled set and
	 * *exit_code -1; when it could not confirm the command stopped it
	 * returns LOCUS_EIO (with *cancelled set) naming what is left.  ctl
	 * NULL: exactly exec (*cancelled false). */
	int (*exec_ctl)(locus_session *s, const char *command, double timeout_s,
	                const struct locus_call_ctl *ctl, int *exit_code,
	                char **out, size_t *len, bool *cancelled,
	                locus_error *err);
};

LOCUS_API void locus_session_free(locus_session *s);

/**
 * A bubblewrap sandbox over the host folder `dir`: new namespaces (no
 * network), `dir` bound read-write at /workspace, /usr /bin /lib /lib64
 * /etc read-only, private /proc /dev /tmp.  One sandbox lives as long as
 * the session.  LOCUS_EIO when bwrap is missing or cannot start.
 */
LOCUS_API int locus_session_bwrap_new(locus_session **out, const char *dir,
                                      locus_error *err);

#define LOCUS_BWRAP_OPTIONS_VERSION 1

/*
 * Options of the bwrap session (versioned, libgit2 style: start from
 * LOCUS_BWRAP_OPTIONS_INIT).
 *
 * Sandboxed code never runs as host uid 0.  When locus runs as root, bwrap
 * is started as `uid`/`gid` (setresuid before exec), so everything the
 * sandbox creates is owned by that unprivileged host user; 0 (the zeroed
 * struct's default) or -1 picks the owner of `dir` when that is
 * not root, else 65534 (nobody): uid and gid 0 are never used.  A uid that
 * cannot write `dir` is refused (LOCUS_EDENIED, the message says what to
 * chown).  When locus does not run as root, the sandbox runs as locus's
 * own uid and uid/gid must be 0 or -1.  The workspace
 * is bound nosuid,nodev.
 *
 * output_max: bytes of output kept on disk per command (stdout and stderr
 * together); the rest is counted and dropped.  0: 64 MiB.
 * tmp_max: size of the sandbox's private /tmp (a tmpfs).  0: 256 MiB.
 */
typedef struct locus_bwrap_options {
	unsigned version;
	long uid;
	long gid;
	size_t output_max;
	size_t tmp_max;
} locus_bwrap_options;

#define LOCUS_BWRAP_OPTIONS_INIT                                               \
	{                                                                      \
		.version = LOCUS_BWRAP_OPTIONS_VERSION, .uid = -1, .gid = -1   \
	}

/** Fill `opts` with the defaults: zeroed (every field's zero is its
 *  default) with `version` set; the function form of LOCUS_BWRAP_OPTIONS_INIT.
 *  @return 0, LOCUS_EUSAGE (NULL opts), LOCUS_EINVALID (a version
 *          other than LOCUS_BWRAP_OPTIONS_VERSION; opts untouched) */
LOCUS_API int locus_bwrap_options_init(locus_bwrap_options *opts,
                                       unsigned version);

/** locus_session_bwrap_new with options (NULL: the defaults). */
LOCUS_API int locus_session_bwrap_new_opts(locus_session **out, const char *dir,
                                           const locus_bwrap_options *opts,
                                           locus_error *err);

/* ---- locus jail (docs/jail.md) ---- */

#define LOCUS_JAIL_OPTIONS_VERSION 1

/*
 * One command confined by bubblewrap: `root` read-write, the rest of the
 * file system read-only, private /tmp /var/tmp /run, the credential
 * stores masked, no network unless `network`, new namespaces, no
 * capability, no_new_privs, no setuid/setgid bit can be set, killed with
 * its parent.  `profile`: a profile file (docs/jail.md); NULL: the user's
 * ~/.config/locus/jail.profile ($XDG_CONFIG_HOME) when it exists, else
 * the built-in one.  `home`: NULL for $HOME.
 */
typedef struct locus_jail_options {
	unsigned version; /* LOCUS_JAIL_OPTIONS_VERSION */
	const char *root; /* NULL: the current folder; never "/" */
	bool network;
	const char *profile;
	const char *home;
} locus_jail_options;

#define LOCUS_JAIL_OPTIONS_INIT                                                \
	{                                                                      \
		.version = LOCUS_JAIL_OPTIONS_VERSION                          \
	}

/**
 * Run argv (argv[0] looked up on PATH inside the jail) with the caller's
 * stdin, stdout, stderr and environment (less the profile's unsetenv
 * names), and wait for it.
 *
 * @param[out] status  the command's exit status as a shell shows it
 *                     (128 + N for signal N); -1 when it did not run
 * @return 0 once the command ran; LOCUS_EIO when the jail cannot be made
 *         (bwrap missing, no user namespaces): the command did NOT run;
 *         LOCUS_ENOTFOUND (no root folder, a profile that cannot be
 *         read), LOCUS_EINVALID (a bad profile line), LOCUS_EUSAGE
 */
LOCUS_API int locus_jail_run(int *status, const char *const *argv,
                             const locus_jail_options *opts, locus_error *err);

/** The built-in profile's text (a static string). */
LOCUS_API const char *locus_jail_default_profile(void);

/* ---- NVIDIA OpenShell (docs/sandboxes.md) ---- */

#define LOCUS_OPENSHELL_OPTIONS_VERSION 1

typedef struct locus_openshell_options {
	unsigned version; /* LOCUS_OPENSHELL_OPTIONS_VERSION */
	/* The gateway, "HOST:PORT" (or an http:// / https:// URL); NULL:
	   "127.0.0.1:17670".  TLS when ca_file or cert_file is set. */
	const char *endpoint;
	/* Exactly one of: attach to the sandbox with this id (metadata.id;
	   never stopped or deleted by locus), or create one with this name
	   (owned: deleted on free, and on any failure before return). */
	const char *sandbox_id;
	const char *create_name;
	const char *workspace; /* NULL: the gateway's "default" */
	const char *image;     /* create: template image; NULL: default */
	const char *const *providers; /* create: provider records to attach
	                                 (NULL-terminated; may be NULL) */
	const char *bearer_token;     /* borrowed; NULL: none */
	const char *ca_file;          /* PEM CA to trust (TLS) */
	const char *cert_file;        /* client certificate (mTLS) */
	const char *key_file;         /* its key */
	double ready_timeout_s;       /* create: wait for READY; 0: 300 */
	double poll_interval_s;       /* 0: 1 */
	/* A command's output kept: past it, the first and the last half
	   with a note of what was dropped between them.  0: 64 MiB. */
	size_t output_max;
} locus_openshell_options;

#define LOCUS_OPENSHELL_OPTIONS_INIT                                           \
	{                                                                      \
		.version = LOCUS_OPENSHELL_OPTIONS_VERSION                     \
	}

/** Fill `opts` with the defaults: zeroed (every field's zero is its
 *  default) with `version` set; the function form of LOCUS_OPENSHELL_OPTIONS_INIT.
 *  @return 0, LOCUS_EUSAGE (NULL opts), LOCUS_EINVALID (a version
 *          other than LOCUS_OPENSHELL_OPTIONS_VERSION; opts untouched) */
LOCUS_API int locus_openshell_options_init(locus_openshell_options *opts,
                                           unsigned version);

/**
 * A session in an OpenShell sandbox through its gateway (gRPC over HTTP/2:
 * h2c, or TLS with ALPN h2 and optional client certificates).  Commands
 * run in /sandbox through ExecSandbox (the gateway's `bash -lc`), framed by
 * random markers so login-shell output never reaches the caller; files
 * move through exec (stdin in parts under 1 MiB per request, base64 back,
 * SHA-256 checked).  Checks the gateway (Health) and the sandbox (one
 * exec) before returning.  *label_out (may be NULL) gets the ExecRecord
 * label "openshell:<endpoint>/<sandbox id>" (freed with locus_free()).
 */
LOCUS_API int locus_session_openshell_new(locus_session **out, char **label_out,
                                          const locus_openshell_options *opt,
                                          locus_error *err);

/** The session above under a SessionBackend rooted at /sandbox. */
LOCUS_API int locus_backend_openshell_new(locus_backend **out,
                                          const locus_openshell_options *opt,
                                          locus_error *err);

/**
 * A backend over a session, doing stat/list/walk/search/background with
 * short shell scripts.  Takes ownership of `session` (also on failure).
 * `root` is the workspace path inside the sandbox ("/workspace").
 */
LOCUS_API int locus_backend_session_new(locus_backend **out,
                                        locus_session *session,
                                        const char *root, const char *label,
                                        bool isolated, locus_error *err);

/*
 * OCI Generative AI Sandboxes (docs/backends.md).  Either connect to
 * `sandbox_id` (never deleted by locus) or create one in the project
 * `create_project` (owned: stopped and deleted by the session's free, and
 * by any failure before this returns).  Requests are signed with the
 * `~/.oci/config` profile (API key or session token).  Paths and stream
 * framing no public source confirms come from `routes_file` and
 * `stream`.  Strings are copied.
 */
#define LOCUS_OCI_OPTIONS_VERSION 1

typedef struct locus_oci_options {
	unsigned version;           /* LOCUS_OCI_OPTIONS_VERSION */
	const char *sandbox_id;     /* connect; or: */
	const char *create_project; /* create (project OCID) */
	const char *region;         /* NULL: the profile's region */
	const char *config_file;    /* NULL: $OCI_CONFIG_FILE, ~/.oci/config */
	const char *profile;        /* NULL: $OCI_CLI_PROFILE, "DEFAULT" */
	const char *endpoint;       /* NULL: https://inference.generativeai.
	                               <region>.oci.oraclecloud.com */
	const char *ca_file;        /* PEM CA bundle; NULL: the system's */
	const char *routes_file;    /* JSON {"create": "POST /...", ...} */
	const char *stream;         /* "sse", "ndjson"; NULL: Content-Type */
	const char *expiration;     /* create: ISO 8601, NULL: "PT1H" */
	const char *shape;          /* create: NULL: "SMALL" */
	const char *runtime;        /* create: NULL: "python-3.11" */
	const char *display_name;   /* create: NULL: "locus-harness-<rand>" */
	const char *warmpool_name;  /* create: optional */
	const char *const *env;     /* create: "NAME=value", NULL-terminated */
	size_t max_output_bytes;    /* kept per command; 0: 900 kB */
	double ready_timeout_s;     /* create: 0: 300 */
	double poll_interval_s;     /* create: 0: 2 */
	bool data_base64;           /* event data is base64 (else text) */
	bool expires_in_minutes;    /* create sends expiresInMinutes */
	size_t write_part_bytes;    /* larger writes go in parts; 0: 8 MiB */
} locus_oci_options;

#define LOCUS_OCI_OPTIONS_INIT                                                 \
	{                                                                      \
		.version = LOCUS_OCI_OPTIONS_VERSION                           \
	}

/** Fill `opts` with the defaults: zeroed (every field's zero is its
 *  default) with `version` set; the function form of LOCUS_OCI_OPTIONS_INIT.
 *  @return 0, LOCUS_EUSAGE (NULL opts), LOCUS_EINVALID (a version
 *          other than LOCUS_OCI_OPTIONS_VERSION; opts untouched) */
LOCUS_API int locus_oci_options_init(locus_oci_options *opts, unsigned version);

/**
 * A session in an OCI sandbox (root /workspace).  LOCUS_EINVALID for bad
 * options or config, LOCUS_EDENIED when the service refuses the
 * signature, LOCUS_ENOTFOUND for an unknown sandbox, LOCUS_EIO,
 * LOCUS_ETIMEOUT when it does not become RUNNING in time.
 */
LOCUS_API int locus_session_oci_new(locus_session **out,
                                    const locus_oci_options *opt,
                                    locus_error *err);

/** The sandbox id and "oci-sandbox:<region>/<id>" of an OCI session. */
LOCUS_API const char *locus_session_oci_id(const locus_session *s);
LOCUS_API const char *locus_session_oci_label(const locus_session *s);

/** Extend the sandbox's life by an ISO 8601 duration; *expires gets the
    new expiry time as the service writes it (freed with locus_free()).
    LOCUS_EINVALID for a duration the service refuses. */
LOCUS_API int locus_session_oci_extend(char **expires, locus_session *s,
                                       const char *duration, locus_error *err);

/**
 * locus_session_oci_new wrapped in a SessionBackend (root /workspace,
 * label "oci-sandbox:<region>/<id>", isolated).  *session_out, when not
 * NULL, gets the session (owned by the backend) for extend.
 */
LOCUS_API int locus_backend_oci_new(locus_backend **out,
                                    locus_session **session_out,
                                    const locus_oci_options *opt,
                                    locus_error *err);

/* ------------------------------------------------------------------ */
/* Harness                                                              */
/* ------------------------------------------------------------------ */

typedef struct locus_exec_record {
	char command_sha256[65];
	bool has_exit_code;
	int exit_code;
	double duration_s; /* ms precision */
	bool timed_out;
	char output_sha256[65]; /* of the kept output */
	size_t output_bytes;
	bool truncated;
	const char *backend_label;
	bool background;
} locus_exec_record;

/*
 * The gate: return NULL to allow, or a refusal allocated with malloc(3)
 * (the harness frees it with free(3)): the text the caller (the model)
 * gets as the refused call's result, verbatim.  `args_json` holds
 * `args_len` bytes (a JSON object, NUL-terminated past them as a
 * convenience); both are borrowed for the call.
 */
typedef char *(*locus_wrap_fn)(const char *tool, const char *args_json,
                               size_t args_len, void *payload);

/*
 * How a harness behaves.  Versioned: start from LOCUS_HARNESS_CONFIG_INIT
 * or locus_harness_config_init() and set what you need; an unknown
 * version is refused by locus_harness_new (LOCUS_EINVALID).  Every field's
 * zero is its default (version 2): a zero-filled config with its
 * version set is the defaults, read-before-edit included.
 */
typedef struct locus_harness_config {
	unsigned version; /* LOCUS_HARNESS_CONFIG_VERSION */
	/* false (the default): a file must be read before it is changed.
	   Version 1 held `require_read` here, the opposite; the library
	   still reads a version-1 config that way. */
	bool allow_unread_edits;
	int bash_timeout;
	int bash_max_timeout;
	bool on_timeout_kill; /* false: background (the default) */
	size_t output_chars;
	size_t output_head_chars;
	bool vision;
	const char *environment;
	/* Over-long bash output: store it, return an id (malloc'd; the
	   harness frees it with free()) or NULL. */
	char *(*result_store)(const char *data, size_t len, void *payload);
	void (*on_exec)(const locus_exec_record *rec, void *payload);
	void (*on_change)(const char *path, void *payload);
	/* "ungated shell tools" on an unisolated backend with no wrap. */
	void (*on_warning)(const char *message, void *payload);
	void *payload;
	/* grep and glob stop after this many seconds in all (0: 10 s) with a
	 * note saying so; PCRE2 match, depth and heap limits hold per line. */
	double search_budget_s;
} locus_harness_config;

#define LOCUS_HARNESS_CONFIG_VERSION 2
#define LOCUS_HARNESS_CONFIG_INIT                                              \
	{                                                                      \
		.version = LOCUS_HARNESS_CONFIG_VERSION, .bash_timeout = 120,  \
		.bash_max_timeout = 600, .output_chars = 30000,                \
		.output_head_chars = 8000, .environment = "unknown",           \
	}

/** Fill `opts` with the defaults: zeroed (every field's zero is its
 *  default) with `version` set; the function form of LOCUS_HARNESS_CONFIG_INIT.
 *  @return 0, LOCUS_EUSAGE (NULL opts), LOCUS_EINVALID (a version
 *          other than LOCUS_HARNESS_CONFIG_VERSION; opts untouched) */
LOCUS_API int locus_harness_config_init(locus_harness_config *opts,
                                        unsigned version);

/* Tool sets (NULL-terminated); selected with these or an explicit list. */
LOCUS_API extern const char
    *const locus_all_tools[]; /* the order of the spec */
LOCUS_API extern const char
    *const locus_default_tools[]; /* all but apply_patch */
LOCUS_API extern const char
    *const locus_patch_tools[]; /* all but edit, multi_edit,
                                                   write */

typedef struct locus_harness locus_harness;

/**
 * Build a harness.  The backend is borrowed (outlives the harness).
 * `tools`: NULL-terminated names; NULL means locus_default_tools (minus the
 * shell tools when the backend has no shell).  An unknown name, or a shell
 * tool on a no-shell backend, is LOCUS_ENOTFOUND / LOCUS_EINVALID with a
 * message naming it.  `wrap` may be NULL (then, with shell tools on an
 * unisolated backend, config->on_warning gets "ungated shell tools").
 * `config` is copied (NULL: LOCUS_HARNESS_CONFIG_INIT).
 *
 * @return 0; LOCUS_ENOTFOUND (unknown tool); LOCUS_EINVALID (a shell tool
 *         without a shell, a config of an unknown version); LOCUS_EUSAGE
 *         (no backend, or one of another version); LOCUS_ENOMEM
 */
LOCUS_API int locus_harness_new(locus_harness **out, locus_backend *backend,
                                const char *const *tools, locus_wrap_fn wrap,
                                void *wrap_payload,
                                const locus_harness_config *config,
                                locus_error *err);
LOCUS_API void locus_harness_free(locus_harness *h);

/** True when the harness was built with a wrap, or warned that it was not. */
LOCUS_API bool locus_harness_gated(const locus_harness *h);

/** Tools built, in the spec's order (0 and NULL for a NULL harness or an
 *  index past the count).  Names are static. */
LOCUS_API size_t locus_harness_tool_count(const locus_harness *h);
LOCUS_API const char *locus_harness_tool_name(const locus_harness *h, size_t i);
/** The tool's description (static text), or NULL for a tool not built. */
LOCUS_API const char *locus_harness_tool_description(const locus_harness *h,
                                                     const char *name);
/** JSON Schema of the tool's parameters (static text), or NULL. */
LOCUS_API const char *locus_harness_tool_schema(const locus_harness *h,
                                                const char *name);

/**
 * Call a tool through the wrap.
 *
 * @param[out] out       the text result, for successes and refusals alike;
 *                       freed with locus_free(); NULL on error
 * @param[out] is_error  optional; set for refusals and failures
 * @param h              the harness
 * @param tool           a tool name (NUL-terminated)
 * @param args_json      the arguments object, borrowed, `args_len` bytes
 *                       (need not end in NUL; a NUL byte among them is
 *                       refused as a tool error); NULL or 0 bytes mean {}
 * @return 0 when *out was produced (refusals and tool failures included);
 *         LOCUS_ENOTFOUND for a tool not built; LOCUS_EUSAGE (NULL out, h
 *         or tool); LOCUS_ENOMEM
 */
LOCUS_API int locus_harness_call(char **out, bool *is_error, locus_harness *h,
                                 const char *tool, const char *args_json,
                                 size_t args_len, locus_error *err);

/**
 * locus_harness_call() under `ctl` (may be NULL): see locus_call_ctl.  A
 * cancelled call returns 0 with *is_error set and *out "cancelled..." (the
 * caller that cancelled it usually drops the result).  One call at a time
 * per harness: the harness is not thread-safe, only ctl is shared.
 *
 * @return as locus_harness_call(); LOCUS_EINVALID for a ctl of an unknown
 *         version (nothing runs)
 */
LOCUS_API int locus_harness_call_ctl(char **out, bool *is_error,
                                     locus_harness *h, const char *tool,
                                     const char *args_json, size_t args_len,
                                     locus_call_ctl *ctl, locus_error *err);

/**
 * The prompt fragment: what the model should know about this workspace.
 *
 * @param[out] out  freed with locus_free(); NULL on error
 * @return 0, LOCUS_EUSAGE (NULL out or h), LOCUS_ENOMEM
 */
LOCUS_API int locus_harness_prompt_fragment(char **out, const locus_harness *h);

/**
 * The unified diff a file-changing call would make, or the refusal it would
 * get, without making it (the gate is not asked).
 *
 * @param[out] out  freed with locus_free(); NULL for non-file tools
 * @return as locus_harness_call()
 */
LOCUS_API int locus_harness_preview(char **out, locus_harness *h,
                                    const char *tool, const char *args_json,
                                    size_t args_len, locus_error *err);

/* ------------------------------------------------------------------ */
/* The standard wrap: the policy engine's gate (locus/policy.h)          */
/* ------------------------------------------------------------------ */

struct locus_policy;

/*
 * Payload of locus_harness_policy_wrap.  `policy` is borrowed.  A call the
 * policy holds for a person (require_human) is refused unless `approve`
 * is set and returns true for it; a gate error refuses (fail closed).
 * `on_decision`, when set, sees every decision's JSON record (for audit;
 * borrowed for the callback).  Versioned: start from
 * LOCUS_POLICY_WRAP_INIT; a payload of an unknown version refuses every
 * call.
 */
typedef struct locus_policy_wrap {
	unsigned version; /* LOCUS_POLICY_WRAP_VERSION */
	const struct locus_policy *policy;
	const char *environment;    /* NULL: "unknown" */
	const char *workspace_root; /* for path rules and outside-workspace;
	                               NULL: none for rules, the current
	                               directory for the label */
	/* args_json: args_len bytes (NUL-terminated past them) */
	bool (*approve)(const char *tool, const char *args_json,
	                size_t args_len, const char *reason, void *payload);
	void (*on_decision)(const char *decision_json, void *payload);
	void *payload;
	/* Optional audit trail (borrowed): every decision is appended before
	   the call may run; a record that cannot be written refuses the call
	   (no audit record, no decision). */
	struct locus_audit *audit;
} locus_policy_wrap;

#define LOCUS_POLICY_WRAP_VERSION 1
#define LOCUS_POLICY_WRAP_INIT                                                 \
	{                                                                      \
		.version = LOCUS_POLICY_WRAP_VERSION                           \
	}

/** Fill `opts` with the defaults: zeroed (every field's zero is its
 *  default) with `version` set; the function form of LOCUS_POLICY_WRAP_INIT.
 *  @return 0, LOCUS_EUSAGE (NULL opts), LOCUS_EINVALID (a version
 *          other than LOCUS_POLICY_WRAP_VERSION; opts untouched) */
LOCUS_API int locus_policy_wrap_init(locus_policy_wrap *opts, unsigned version);

/** A locus_wrap_fn: pass it with a locus_policy_wrap as wrap_payload.  The
 *  refusal it returns is the gate's refusal JSON (malloc'd). */
LOCUS_API char *locus_harness_policy_wrap(const char *tool,
                                          const char *args_json,
                                          size_t args_len, void *wrap_payload);

struct locus_action;

/**
 * The Action a call would be (the tool's spec): locus_action_derive() with
 * the config's environment set.
 *
 * @param[out] out  freed with locus_action_free(); NULL on error
 * @param args_json `args_len` bytes, borrowed; NULL or 0 bytes mean {}
 * @return 0; LOCUS_ENOTFOUND for a tool not built; LOCUS_EUSAGE (NULL
 *         out); the codes of locus_action_derive()
 */
LOCUS_API int locus_harness_spec(struct locus_action **out,
                                 const locus_harness *h, const char *tool,
                                 const char *args_json, size_t args_len,
                                 locus_error *err);

/**
 * The todo list as JSON.
 *
 * @param[out] out  freed with locus_free(); NULL on error
 * @return 0, LOCUS_EUSAGE (NULL out or h), LOCUS_ENOMEM
 */
LOCUS_API int locus_harness_todos_json(char **out, const locus_harness *h);

#ifdef __cplusplus
}
#endif
#endif
