/*
 * harness/internal.h - helpers shared by the backends and the tools.
 */
#ifndef LOCUS_HARNESS_INTERNAL_H
#define LOCUS_HARNESS_INTERNAL_H

#include "locus/harness.h"
#include "../util/buf.h"
#include "../util/clock.h"
#include "../util/error.h"
#include "../util/sha256.h"

#include <stdarg.h>
#include <sys/types.h>

/* The harness's byte buffer and digest are util's (util/buf.h,
   util/sha256.h); the lh_ names stay for the harness's many callers. */
typedef lu_buf lh_buf;
#define lh_buf_add lu_buf_add
#define lh_buf_puts lu_buf_puts
#define lh_buf_printf lu_buf_printf
#define lh_buf_take lu_buf_take
#define lh_buf_free lu_buf_free
#define lh_buf_shquote lu_buf_shquote
#define lh_sha256_hex(data, len, out) ((void)lu_sha256_hex(data, len, out))

/* The error setter and the monotonic clock are util's (util/error.h,
   util/clock.h). */
#define lh_err lu_err
#define lh_now lu_now

bool lh_is_skip_dir(const char *name);

/*
 * Lexical normalisation of a path against a root: absolute paths must lie
 * under root; "." and empty parts dropped; ".." pops (and may not leave the
 * root).  *out is the relative path ("" for the root itself), malloc'd.
 */
int lh_path_rel(const char *root, const char *path, char **out,
                locus_error *err);

/* One wait step of a command under a call's control: progress (the bytes
 * of output so far) about once a second; true once the call is cancelled.
 * ctl NULL: never cancelled. */
bool lh_ctl_step(const locus_call_ctl *ctl, double start, double *last,
                 size_t bytes);

/* 32 random hex characters (getrandom); -1 when there is no randomness. */
int lh_nonce(char out[33]);

/* A host command under a supervisor (harness/supervise.c). */
typedef struct lh_spawn_opts {
	int root_fd;                     /* working folder */
	const char *command;             /* for /bin/sh -c */
	const char *stdin_path;          /* a FIFO, or NULL for /dev/null */
	int out_fd;                      /* the output file */
	size_t output_max;               /* bytes kept; the rest counted */
	long rlimit_nproc, rlimit_fsize; /* 0: unchanged */
} lh_spawn_opts;

/*
 * Start the supervisor; returns its pid (-1 on failure, err set), *pgid
 * the command's session/group once it exists (-1 when the exec failed).
 * Its exit status is the command's (128+N for signal N; 137 when killed).
 * SIGTERM to it kills the command's whole tree; it also gets SIGTERM when
 * the thread that started it ends (PR_SET_PDEATHSIG).
 */
pid_t lh_spawn(const lh_spawn_opts *o, pid_t *pgid, locus_error *err);

/* What notebook_edit does to cell idx (its `mode` argument). */
typedef enum lh_notebook_mode {
	LH_NOTEBOOK_REPLACE, /* replace the cell's source */
	LH_NOTEBOOK_INSERT,  /* a new cell before it (idx == cells: append) */
	LH_NOTEBOOK_DELETE,  /* remove the cell */
} lh_notebook_mode;

/*
 * notebook_edit on the text: `mode` applied to cell idx.  Bytes outside
 * the change are kept.  LOCUS_EINVALID when the text is not a notebook or
 * idx is out of range; *out malloc'd.
 */
int lh_notebook_splice(const char *t, size_t n, long idx, lh_notebook_mode mode,
                       const char *source, const char *ctype, char **out,
                       size_t *olen);

/* A copy of a folder's path without trailing slashes ("/" stays "/");
 * NULL when out of memory. */
char *lh_strdup_dir(const char *dir);

/* Append an entry (a copy of name[0..nl)) to *ents (*n used, *cap
 * allocated).  0, or LOCUS_ENOMEM with nothing appended. */
int lh_dirent_push(locus_dirent **ents, size_t *n, size_t *cap,
                   const char *name, size_t nl, bool is_dir, uint64_t size,
                   int64_t mtime_ns);

/* The end of every list and walk: when rc (an allocation failed) the
 * entries are freed, *ents NULL, *n 0, and rc returned with err "out of
 * memory"; else they are sorted by name and 0 is returned. */
int lh_dirents_finish(locus_dirent **ents, size_t *n, int rc, locus_error *err);

/* Remove a folder and everything under it, never following a link. */
void lh_rmtree(const char *path);

/* Tests: make a LocalBackend resolve paths without openat2. */
void lh_local_disable_openat2(locus_backend *b);

/* A unified diff (malloc'd); old or new_ NULL for a created or deleted
 * file.  NULL on allocation failure. */
char *lh_unified_diff(const char *path, const char *old, size_t olen,
                      const char *new_, size_t nlen);

/* One planned file change of a tool call (write, edit, apply_patch...). */
typedef struct lh_change {
	char *path;
	bool had; /* the file existed: old holds its bytes */
	char *old;
	size_t olen;
	bool del; /* remove the file */
	char *data;
	size_t len;
} lh_change;

void lh_changes_free(lh_change *c, size_t n);

/*
 * Plan an apply_patch call against the backend's files.  On a malformed
 * patch or one that does not apply, returns LOCUS_EINVALID with *msg set
 * (malloc'd) and no plan.
 */
int lh_patch_plan(locus_backend *b, const char *patch, lh_change **out,
                  size_t *n, char **msg);

/* The policy's word on background commands, for the prompt (gate.c). */
typedef enum lh_bg_word {
	LH_BG_ALLOWED, /* background commands run */
	LH_BG_REFUSED, /* denied, or held with nobody to approve */
	LH_BG_HELD,    /* held for a person who may approve */
	LH_BG_UNKNOWN, /* not the policy wrap: its word is per call */
} lh_bg_word;

lh_bg_word lh_wrap_background(locus_wrap_fn wrap, const void *wrap_payload);

/*
 * Ask the wrap, with an explicit outcome: true only for a clear allow.
 * The standard policy wrap is asked in its explicit form, so an allocation
 * failure while building a refusal still refuses; *why is the refusal
 * (malloc'd; NULL when it could not be made: show a fixed text).
 */
bool lh_wrap_allows(locus_wrap_fn wrap, void *payload, const char *tool,
                    const char *args, size_t args_len, char **why);
#endif
