/*
 * backends/session.h - what the SessionBackend's files share: the backend,
 * its jobs, and the script helpers (session_script.c).
 */
#ifndef LOCUS_HARNESS_SESSION_H
#define LOCUS_HARNESS_SESSION_H

#include "internal.h"

/* ================= SessionBackend ================= */

typedef struct sjob {
	char handle[16];
	unsigned n;
	bool finished;
	bool collected; /* its files are gone: finished and read to the end */
	int exit_code;
} sjob;

typedef struct session_backend {
	locus_backend base;
	locus_session *s;
	char *root;
	char *label;
	char
	    *state; /* private job folder in the sandbox (mktemp -d), or NULL */
	char nonce[33];
	sjob *jobs;
	size_t njobs, cap;
	unsigned seq, next_handle;
} session_backend;

#define SESSION_OUTPUT_MAX ((size_t)64 << 20)

static inline session_backend *S(locus_backend *b)
{
	return (session_backend *)b;
}

/* Is s the bubblewrap session (bwrap.c)? */
bool lh_session_is_bwrap(const locus_session *s);

/* The prefix that runs an agent's command inside the bwrap session: a
 * nested bwrap with the session's mounts but a fresh /run (the host-shared
 * transfer folder /run/locus out of reach), its own pid namespace and
 * /proc.  session_jobs.c runs every job under it; bwrap.c checks at start
 * that it works there. */
#define LH_BWRAP_NEST                                                          \
	"bwrap --unshare-user --unshare-pid --die-with-parent --bind / / "     \
	"--tmpfs /run --proc /proc --dev /dev --"

/* Run a script; exit code and output. */
int lh_srun(session_backend *sb, const char *script, double timeout, int *code,
            char **out, size_t *len, locus_error *err);

/* Absolute sandbox path of a user path (lexically inside the root). */
int lh_sabs(session_backend *sb, const char *path, lu_buf *abs,
            locus_error *err);

/*
 * The prelude every path script starts with: P is the path; the deepest
 * existing ancestor is resolved and must stay under the root (exit 91).
 */
void lh_prelude(lu_buf *sc, session_backend *sb, const char *abs);

int lh_path_script(session_backend *sb, const char *path, const char *body,
                   int *code, char **out, size_t *len, locus_error *err);

/*
 * A path script whose output is not wanted, its exit code read as every
 * script here writes it: 3 a folder where a file is wanted
 * (LOCUS_EINVALID), 4 no such path (LOCUS_ENOTFOUND).  Other codes are
 * the caller's (*code, 0 returned).
 */
int lh_path_check(session_backend *sb, const char *path, const char *body,
                  int *code, locus_error *err);

/* Stage a write: make the target's folder, upload the bytes beside it
 * under a temporary name; *tmp gets that file's sandbox path. */
int lh_s_stage(session_backend *sb, const char *path, const char *data,
               size_t len, lu_buf *tmp, locus_error *err);

int lh_s_write_many(locus_backend *b, const locus_write_op *ops, size_t n,
                    size_t *failed, locus_error *err);

/* Kill the job's group and every process still marked with its id. */
int lh_s_kill_job(session_backend *sb, unsigned id, locus_error *err);

/*
 * The agent's commands run as jobs (run.sh: a pid namespace each, so
 * nothing they start outlives them), on the bwrap session always, on other
 * sessions when backgrounded, kept on timeout, or run under a call's
 * control on a session without exec_ctl (a job can be killed).
 * Otherwise, a plain command goes straight through the session's exec
 * (its exec_ctl under a call's control), with fewer round trips.
 */
int lh_s_exec_ctl(locus_backend *b, const char *command, double timeout_s,
                  locus_exec_flags flags, const locus_call_ctl *ctl,
                  locus_exec_result *res, locus_error *err);

int lh_s_exec(locus_backend *b, const char *command, double timeout_s,
              locus_exec_flags flags, locus_exec_result *res, locus_error *err);

int lh_s_bg_output(locus_backend *b, const char *handle, size_t since,
                   char **out, size_t *len, locus_bg_status *st,
                   locus_error *err);

int lh_s_bg_write(locus_backend *b, const char *handle, const char *data,
                  size_t len, bool close_stdin, locus_error *err);

int lh_s_bg_kill(locus_backend *b, const char *handle, locus_bg_status *st,
                 locus_error *err);

#endif
