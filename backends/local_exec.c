/*
 * backends/local_exec.c - the LocalBackend's commands: /bin/sh -c in a new
 * session under a supervisor (lh_spawn forks it; backends/supervise.c), output to a file in a
 * private state folder, background commands' stdin on a FIFO; a timeout,
 * a cancel or kill_shell kills the whole tree.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "local.h"
#include "../util/array.h"
#include "../util/read.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---------------- commands ---------------- */

static int ensure_state(local_backend *lb, locus_error *err)
{
	if (lb->state_dir)
		return 0;
	const char *tmp = getenv("TMPDIR");
	char templ[4096];
	snprintf(templ, sizeof templ, "%s/locus-harness-XXXXXX",
	         tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(templ))
		return lu_err(err, LOCUS_EIO, "cannot make a state folder: %s",
		              strerror(errno));
	lb->state_dir = strdup(templ);
	if (!lb->state_dir) {
		rmdir(templ);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	return 0;
}

/* The background command named handle, its state polled; NULL with err
 * set (LOCUS_ENOTFOUND) when there is none. */
static job *find_job(local_backend *lb, const char *handle, locus_error *err)
{
	for (size_t i = 0; i < lb->njobs; i++)
		if (!strcmp(lb->jobs[i].handle, handle)) {
			lh_job_poll(&lb->jobs[i]);
			return &lb->jobs[i];
		}
	lu_err(err, LOCUS_ENOTFOUND, "no background command %s", handle);
	return NULL;
}

static void close_stdin_of(job *j)
{
	if (j->stdin_fd >= 0) {
		close(j->stdin_fd);
		j->stdin_fd = -1;
	}
}

static int decode_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -1;
}

void lh_job_poll(job *j)
{
	if (j->finished)
		return;
	int st;
	pid_t r = waitpid(j->pid, &st, WNOHANG);
	if (r == j->pid) {
		j->finished = true;
		j->exit_code = decode_status(st);
	}
}

/* Stop a command: its supervisor kills the whole tree (its group, setsid
 * escapes, double forks) and exits; we reap it. */
void lh_kill_group_wait(pid_t pid, job *j)
{
	if (j && j->finished)
		return;
	kill(pid, SIGTERM);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (j) {
		j->finished = true;
		j->exit_code = decode_status(st);
	}
}

static int read_file_from(const char *p, size_t since, char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	lu_buf buf = {0};
	char tmp[65536];
	off_t off = (off_t)since;
	for (;;) {
		ssize_t r = pread(fd, tmp, sizeof tmp, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		lu_buf_add(&buf, tmp, (size_t)r);
		off += r;
		if (buf.len > LH_MAX_FILE_BYTES)
			break;
	}
	close(fd);
	*len = buf.len;
	*out = lu_buf_take(&buf);
	return *out ? 0 : -1;
}

/* The supervisor: forked, it says the command's group on `ready` once the
   command's exec happened (backends/supervise.c). */
pid_t lh_spawn(const lh_spawn_opts *o, pid_t *pgid, locus_error *err)
{
	*pgid = -1;
	int ready[2];
	if (pipe2(ready, O_CLOEXEC) < 0) {
		lu_err(err, LOCUS_EIO, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t parent = getpid();
	pid_t sup = fork();
	if (sup < 0) {
		close(ready[0]);
		close(ready[1]);
		lu_err(err, LOCUS_EIO, "fork: %s", strerror(errno));
		return -1;
	}
	if (sup == 0) {
		close(ready[0]);
		lh_supervise(o, parent, ready[1]);
	}
	close(ready[1]);
	/* the supervisor says the command's group once it exists */
	char *said = NULL;
	size_t n = 0;
	int rrc = lu_read_all(ready[0], 32, &said, &n);
	close(ready[0]);
	*pgid = rrc == 0 && said && n ? (pid_t)atoi(said) : -1;
	free(said);
	return sup;
}

int lh_l_exec_ctl(locus_backend *b, const char *command, double timeout_s,
                  locus_exec_flags flags, const locus_call_ctl *ctl,
                  locus_exec_result *res, locus_error *err);

int lh_l_exec(locus_backend *b, const char *command, double timeout_s,
              locus_exec_flags flags, locus_exec_result *res, locus_error *err)
{
	return lh_l_exec_ctl(b, command, timeout_s, flags, NULL, res, err);
}

/* Reap finished background jobs and close their FIFOs, so a session of
 * many short jobs holds no zombies or fds. */
static void reap_finished(local_backend *lb)
{
	for (size_t i = 0; i < lb->njobs; i++) {
		lh_job_poll(&lb->jobs[i]);
		if (lb->jobs[i].finished)
			close_stdin_of(&lb->jobs[i]);
	}
}

/* The output file of command id, and for a background one its stdin
 * FIFO (held open read-write in *infd). */
static int open_job_files(local_backend *lb, unsigned id, bool bg,
                          char outp[4200], char inp[4200], int *ofd, int *infd,
                          locus_error *err)
{
	snprintf(outp, 4200, "%s/%u.out", lb->state_dir, id);
	snprintf(inp, 4200, "%s/%u.in", lb->state_dir, id);
	*infd = -1;
	*ofd = open(outp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (*ofd < 0)
		return lu_err(err, LOCUS_EIO, "cannot make %s: %s", outp,
		              strerror(errno));
	if (bg) {
		if (mkfifo(inp, 0600) == 0)
			*infd = open(inp, O_RDWR | O_CLOEXEC);
		if (*infd < 0) {
			close(*ofd);
			return lu_err(err, LOCUS_EIO, "cannot make a FIFO: %s",
			              strerror(errno));
		}
	}
	return 0;
}

/* Wait for a foreground command: it ends, is cancelled or times out; a
 * cancelled one, or one timed out without KEEP, is killed (tree and all). */
static void wait_foreground(job *j, int ofd, double timeout_s, bool keep,
                            const locus_call_ctl *ctl, locus_exec_result *res)
{
	useconds_t nap = 2000;
	double last = j->start;
	for (;;) {
		lh_job_poll(j);
		if (j->finished)
			break;
		struct stat st;
		size_t bytes = ctl && ctl->progress && fstat(ofd, &st) == 0
		                   ? (size_t)st.st_size
		                   : 0;
		if (lh_ctl_step(ctl, j->start, &last, bytes)) {
			res->cancelled = true;
			break;
		}
		if (lu_now() - j->start >= timeout_s) {
			res->timed_out = true;
			break;
		}
		usleep(nap);
		if (nap < 50000)
			nap *= 2;
	}
	if (!j->finished && (!keep || res->cancelled)) {
		lh_kill_group_wait(j->pid, j);
		j->finished = false; /* killed, no exit status */
	}
}

int lh_l_exec_ctl(locus_backend *b, const char *command, double timeout_s,
                  locus_exec_flags flags, const locus_call_ctl *ctl,
                  locus_exec_result *res, locus_error *err)
{
	local_backend *lb = L(b);
	memset(res, 0, sizeof *res);
	reap_finished(lb);
	int rc = ensure_state(lb, err);
	if (rc)
		return rc;
	if (!lu_reserve(&lb->jobs, &lb->cap_jobs, lb->njobs + 1))
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	bool bg = flags & LOCUS_EXEC_BACKGROUND;
	bool keep = flags & LOCUS_EXEC_KEEP;
	char outp[4200], inp[4200];
	int ofd, infd;
	rc = open_job_files(lb, ++lb->seq, bg, outp, inp, &ofd, &infd, err);
	if (rc)
		return rc;
	double start = lu_now();
	/* a supervisor (backends/supervise.c) runs the command in its own
	 * session, caps its output and kills whatever it leaves behind */
	lh_spawn_opts so = {lb->root_fd,      command,
	                    bg ? inp : NULL,  ofd,
	                    lb->output_max,   lb->rlimit_nproc,
	                    lb->rlimit_fsize, (char *const *)lb->envp};
	pid_t pgid;
	pid_t pid = lh_spawn(&so, &pgid, err);
	if (pid < 0) {
		close(ofd);
		if (infd >= 0)
			close(infd);
		return LOCUS_EIO;
	}
	job j;
	memset(&j, 0, sizeof j);
	j.pid = pid;
	j.stdin_fd = infd; /* -1 unless background */
	j.start = start;
	j.out_path = strdup(outp);
	if (!bg)
		wait_foreground(&j, ofd, timeout_s, keep, ctl, res);
	close(ofd);
	res->duration_s = lu_now() - start;
	read_file_from(outp, 0, &res->output, &res->output_len);
	if (bg || (res->timed_out && keep)) {
		snprintf(j.handle, sizeof j.handle, "sh%u", ++lb->next_handle);
		memcpy(res->handle, j.handle, sizeof j.handle);
		if (!j.out_path) {
			lh_kill_group_wait(pid, &j);
			return lu_err(err, LOCUS_ENOMEM, "out of memory");
		}
		lb->jobs[lb->njobs++] = j;
		res->finished = false;
		return 0;
	}
	res->finished = j.finished;
	res->exit_code = j.finished ? j.exit_code : -1;
	unlink(outp);
	free(j.out_path);
	return 0;
}

int lh_l_bg_output(locus_backend *b, const char *handle, size_t since,
                   char **out, size_t *len, locus_bg_status *st,
                   locus_error *err)
{
	job *j = find_job(L(b), handle, err);
	*out = NULL;
	*len = 0;
	if (!j)
		return LOCUS_ENOTFOUND;
	st->running = !j->finished;
	st->exit_code = j->exit_code;
	read_file_from(j->out_path, since, out, len);
	st->next = since + *len;
	return 0;
}

int lh_l_bg_write(locus_backend *b, const char *handle, const char *data,
                  size_t len, bool close_stdin, locus_error *err)
{
	local_backend *lb = L(b);
	job *j = find_job(lb, handle, err);
	if (!j)
		return LOCUS_ENOTFOUND;
	if (j->stdin_fd < 0)
		return lu_err(err, LOCUS_EINVALID, "%s has no open stdin",
		              handle);
	if (j->finished)
		return lu_err(err, LOCUS_EINVALID, "%s has exited", handle);
	/* never block on a command that does not read: non-blocking
	 * writes, and poll for room until the deadline */
	int fl = fcntl(j->stdin_fd, F_GETFL);
	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(j->stdin_fd, F_SETFL, fl | O_NONBLOCK);
	size_t off = 0;
	double until = lu_now() + lb->stdin_timeout;
	while (off < len) {
		ssize_t w = write(j->stdin_fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			double left = until - lu_now();
			struct pollfd pf = {j->stdin_fd, POLLOUT, 0};
			if (left <= 0 ||
			    poll(&pf, 1, (int)(left * 1000) + 1) == 0)
				return lu_err(
				    err, LOCUS_ETIMEOUT,
				    "%s is not reading its stdin: %zu of "
				    "%zu bytes written in %.0f s",
				    handle, off, len, lb->stdin_timeout);
			continue;
		}
		if (w < 0)
			return lu_err(err, LOCUS_EIO, "%s stdin: %s", handle,
			              strerror(errno));
		off += (size_t)w;
	}
	if (close_stdin)
		close_stdin_of(j);
	return 0;
}

int lh_l_bg_kill(locus_backend *b, const char *handle, locus_bg_status *st,
                 locus_error *err)
{
	job *j = find_job(L(b), handle, err);
	if (!j)
		return LOCUS_ENOTFOUND;
	lh_kill_group_wait(j->pid, j);
	close_stdin_of(j);
	st->running = false;
	st->exit_code = j->exit_code;
	st->next = 0;
	return 0;
}
