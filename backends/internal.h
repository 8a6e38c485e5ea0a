/*
 * backends/internal.h - what the backends share: the byte buffer, error
 * and clock names of the backends' files, paths confined to a root,
 * listings, the supervisor of host commands, nonces and folder removal
 * (backends/util.c, backends/supervise.c).  The harness's tools use it
 * too (harness/internal.h includes it); net/ and runner/ do not.
 */
#ifndef LOCUS_BACKENDS_INTERNAL_H
#define LOCUS_BACKENDS_INTERNAL_H

#include "locus/harness.h"
#include "../util/buf.h"
#include "../util/clock.h"
#include "../util/error.h"
#include "../util/sha256.h"

#include <stdarg.h>
#include <sys/types.h>

/* A vtable member version 2 added (backend: exec_ctl, write_cas,
   write_many; session: exec_ctl), or NULL for a version-1 struct, which
   ends before it and must not be read past its end. */
#define LH_V2(vt, member) ((vt)->version >= 2 ? (vt)->member : NULL)

/* Text the model reads never holds a raw NUL (a C string would end there,
 * and the rest would be lost without a word).
 * lh_buf_add_shown() appends s[0..n) with each NUL byte written as LH_NUL_SHOWN
 * and returns how many there were. */
#define LH_NUL_SHOWN "\xe2\x90\x80" /* U+2400 SYMBOL FOR NULL */
size_t lh_buf_add_shown(lu_buf *b, const char *s, size_t n);

/* In a child about to exec (async-signal-safe): close every descriptor
 * from `low` up but `keep` (-1: none), so a command never inherits one its
 * caller left open (a pipe at fd 251 reached the bwrap
 * session's commands; the LocalBackend's supervisor already closed them).
 * close_range(2) where the kernel has it, else one close() each up to
 * RLIMIT_NOFILE (at most 1 << 20). */
void lh_close_fds_from(int low, int keep);

/* The largest file a backend reads (the read tool, a plan's old content):
 * every backend refuses more with LOCUS_ETOOBIG, and a session's download
 * never moves more than this and one byte. */
#define LH_MAX_FILE_BYTES (256u << 20)

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

/* A host command under a supervisor (backends/supervise.c). */
typedef struct lh_spawn_opts {
	int root_fd;                     /* working folder */
	const char *command;             /* for /bin/sh -c */
	const char *stdin_path;          /* a FIFO, or NULL for /dev/null */
	int out_fd;                      /* the output file */
	size_t output_max;               /* bytes kept; the rest counted */
	long rlimit_nproc, rlimit_fsize; /* 0: unchanged */
	char *const *envp;               /* the command's environment, or
	                                    NULL: the process's own */
} lh_spawn_opts;

/*
 * Start the supervisor; returns its pid (-1 on failure, err set), *pgid
 * the command's session/group once it exists (-1 when the exec failed).
 * Its exit status is the command's (128+N for signal N; 137 when killed).
 * SIGTERM to it kills the command's whole tree; it also gets SIGTERM when
 * the thread that started it ends (PR_SET_PDEATHSIG).
 */
pid_t lh_spawn(const lh_spawn_opts *o, pid_t *pgid, locus_error *err);

/*
 * The supervisor itself, in the child lh_spawn forked (backends/
 * supervise.c): never returns.  Async-signal-safe throughout (the process
 * forked from may have threads): tests/test_layers.py checks the symbols
 * its object file uses against a list.
 */
_Noreturn void lh_supervise(const lh_spawn_opts *o, pid_t parent, int ready_w);

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

#endif
