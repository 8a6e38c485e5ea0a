/*
 * backends/local.h - what the LocalBackend's files share: the backend, its
 * jobs, and path confinement (local_paths.c).
 */
#ifndef LOCUS_HARNESS_LOCAL_H
#define LOCUS_HARNESS_LOCAL_H

#include "internal.h"

#define MAX_SYMLINKS 40

typedef struct job {
	char handle[16];
	pid_t pid;
	int stdin_fd; /* -1 when closed or none */
	bool finished;
	int exit_code;
	char *out_path;
	double start;
} job;

typedef struct local_backend {
	locus_backend base;
	size_t output_max; /* bytes of a command's output kept on disk */
	long rlimit_nproc, rlimit_fsize;
	double stdin_timeout;
	char **envp;     /* base_env: NAME=VALUE..., NULL-terminated; or NULL */
	char *root;      /* as given, for messages and absolute paths */
	char *root_real; /* realpath */
	int root_fd;
	bool no_openat2;
	char *state_dir; /* mkdtemp, made on first exec */
	job *jobs;
	size_t njobs, cap_jobs;
	unsigned next_handle;
	unsigned seq;
} local_backend;

static inline local_backend *L(locus_backend *b)
{
	return (local_backend *)b;
}

int lh_escape_err(locus_error *err, const char *path, const char *root);

int lh_map_errno(locus_error *err, int e, const char *path, const char *root);

/* Resolve a user path to an open fd (flags for the final open). */
int lh_resolve(local_backend *lb, const char *path, int flags, int *fd_out,
               locus_error *err);

/*
 * Resolve the parent folder of a path for a change (write, remove): the
 * parent is opened (created if missing when mk) and the last name returned.
 */
int lh_resolve_parent(local_backend *lb, const char *path, bool mk, int *dirfd,
                      char **name, locus_error *err);

int lh_l_stat(locus_backend *b, const char *path, locus_stat *out,
              locus_error *err);

int lh_l_read(locus_backend *b, const char *path, char **out, size_t *len,
              locus_error *err);

int lh_l_write_many(locus_backend *b, const locus_write_op *ops, size_t n,
                    size_t *failed, locus_error *err);

int lh_l_write(locus_backend *b, const char *path, const char *data, size_t len,
               locus_error *err);

int lh_l_write_cas(locus_backend *b, const char *path, const char *data,
                   size_t len, const char *expect, locus_error *err);

int lh_l_remove(locus_backend *b, const char *path, locus_error *err);

int lh_l_list(locus_backend *b, const char *path, locus_dirent **out, size_t *n,
              locus_error *err);

/* Iterative walk: a stack of (dir fd, relative prefix). */
int lh_l_walk(locus_backend *b, const char *path, size_t max,
              locus_dirent **out, size_t *n, locus_error *err);

void lh_job_poll(job *j);

/* Stop a command: its supervisor kills the whole tree (its group, setsid
 * escapes, double forks) and exits; we reap it. */
void lh_kill_group_wait(pid_t pid, job *j);

int lh_l_exec(locus_backend *b, const char *command, double timeout_s,
              locus_exec_flags flags, locus_exec_result *res, locus_error *err);

int lh_l_exec_ctl(locus_backend *b, const char *command, double timeout_s,
                  locus_exec_flags flags, const locus_call_ctl *ctl,
                  locus_exec_result *res, locus_error *err);

int lh_l_bg_output(locus_backend *b, const char *handle, size_t since,
                   char **out, size_t *len, locus_bg_status *st,
                   locus_error *err);

int lh_l_bg_write(locus_backend *b, const char *handle, const char *data,
                  size_t len, bool close_stdin, locus_error *err);

int lh_l_bg_kill(locus_backend *b, const char *handle, locus_bg_status *st,
                 locus_error *err);

#endif
