/*
 * backends/supervise.c - one supervisor process per host command.
 *
 * The LocalBackend does not run a command itself: it forks a supervisor,
 * which is a child subreaper (PR_SET_CHILD_SUBREAPER), so every process the
 * command leaves behind (`setsid` children, double forks) is re-parented
 * to it instead of to init, and can be found and killed.  The supervisor:
 *
 *  - forks the command: the child calls setsid() and execs /bin/sh -c;
 *    the supervisor waits until the exec happened (a CLOEXEC pipe reaches
 *    EOF), so the command's session exists before anyone may signal it;
 *  - copies the command's output (stdout and stderr, one pipe) to the
 *    output file, keeping the first `output_max` bytes and counting the
 *    rest (a note says how many were dropped);
 *  - when the command's leader ends, kills what is left of its tree, then
 *    exits with the leader's status (128+N for a signal N);
 *  - on SIGTERM, SIGHUP or SIGINT (a kill, a timeout, the harness closing,
 *    or locus dying: PR_SET_PDEATHSIG), kills the whole tree and exits 137.
 *
 * The tree is every descendant of the supervisor: /proc/PID/task/TID/children
 * walked from the supervisor down, each process SIGKILLed, reaped, and the
 * walk repeated until no child is left (orphans come back to us).
 *
 * This file is the forked child's code only (lh_spawn, in local_exec.c,
 * forks it): async-signal-safe throughout, see below.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "../util/write.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * Everything the supervisor does after the fork is async-signal-safe:
 * system calls and the formatting below, never malloc, stdio or opendir.
 * It is forked from a process that may have threads (an MCP server's
 * workers, a test's watcher); a lock another thread held at the fork (the
 * allocator's) is never released in the child, and one malloc waits on it
 * for ever.  That happened: ASan's allocator is not reset at fork, the
 * supervisor's opendir hung in kill_tree, and the harness waited on it.
 */

/* Text for the supervisor: append s, or the decimal v, to a buffer of
   `cap` bytes at *len (cut at the end, always terminated). */
typedef struct sv_text {
	char *d;
	size_t len, cap;
} sv_text;

static void sv_puts(sv_text *t, const char *s)
{
	while (*s && t->len + 1 < t->cap)
		t->d[t->len++] = *s++;
	t->d[t->len] = '\0';
}

static void sv_putu(sv_text *t, unsigned long long v)
{
	char dig[24];
	size_t n = 0;
	do
		dig[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < sizeof dig);
	while (n && t->len + 1 < t->cap)
		t->d[t->len++] = dig[--n];
	t->d[t->len] = '\0';
}

/* One entry of getdents64 (the kernel's layout: linux_dirent64). */
typedef struct sv_dirent {
	unsigned long long ino;
	long long off;
	unsigned short reclen;
	unsigned char type;
	char name[];
} sv_dirent;

/* SIGKILL pid's children listed by one of its threads, and below them. */
static void kill_descendants(pid_t pid, int depth);

static void kill_children_of_task(pid_t pid, const char *tid, int depth)
{
	char cp[96];
	sv_text t = {cp, 0, sizeof cp};
	sv_puts(&t, "/proc/");
	sv_putu(&t, (unsigned long long)pid);
	sv_puts(&t, "/task/");
	sv_puts(&t, tid);
	sv_puts(&t, "/children");
	int fd = open(cp, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[1024];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	/* a full buffer may end inside a number: there only what a space
	   ends is a pid (the rest is found in the next round of kill_tree) */
	if ((size_t)n == sizeof buf - 1)
		while (n > 0 && buf[n - 1] != ' ' && buf[n - 1] != '\n')
			n--;
	buf[n] = ' '; /* ends the last number */
	unsigned long long c = 0;
	bool in = false;
	for (ssize_t i = 0; i <= n; i++) {
		if (buf[i] >= '0' && buf[i] <= '9') {
			if (c < (1ull << 31)) /* past it: no pid, never wraps */
				c = c * 10 + (unsigned)(buf[i] - '0');
			in = true;
			continue;
		}
		if (in && c > 0 && c < (1ull << 31)) {
			kill((pid_t)c, SIGSTOP); /* no more forks meanwhile */
			kill_descendants((pid_t)c, depth + 1);
			kill((pid_t)c, SIGKILL);
		}
		c = 0;
		in = false;
	}
}

/* SIGKILL pid's descendants, depth first (read from /proc). */
static void kill_descendants(pid_t pid, int depth)
{
	if (depth > 64)
		return;
	char path[64];
	sv_text t = {path, 0, sizeof path};
	sv_puts(&t, "/proc/");
	sv_putu(&t, (unsigned long long)pid);
	sv_puts(&t, "/task");
	int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	/* the entries are read a buffer at a time: the depth (up to 64)
	   multiplies what each level keeps on the stack */
	_Alignas(8) char ents[512];
	long got;
	while ((got = syscall(SYS_getdents64, dfd, ents, sizeof ents)) > 0) {
		for (long off = 0; off < got;) {
			const sv_dirent *de = (const sv_dirent *)(ents + off);
			if (de->reclen == 0)
				break;
			off += de->reclen;
			if (de->name[0] != '.')
				kill_children_of_task(pid, de->name, depth);
		}
	}
	close(dfd);
}

/* Kill everything below us until nothing is left (bounded rounds). */
static void kill_tree(pid_t leader, int *leader_status, bool *leader_done)
{
	for (int round = 0; round < 200; round++) {
		if (leader > 0)
			kill(-leader, SIGKILL);
		kill_descendants(getpid(), 0);
		int st;
		pid_t r;
		bool any = false;
		while ((r = waitpid(-1, &st, WNOHANG)) > 0) {
			any = true;
			if (r == leader && !*leader_done) {
				*leader_done = true;
				*leader_status = st;
			}
		}
		if (r < 0 && errno == ECHILD)
			return;
		if (!any) {
			struct timespec ms = {0, 1000 * 1000};
			nanosleep(&ms, NULL);
		}
	}
}

/* The command child: its own session, then exec (errno to `ex` if not). */
static void command_child(const lh_spawn_opts *o, int out_w, int ex_w)
{
	int e = 0;
	if (setsid() < 0 || fchdir(o->root_fd) < 0)
		e = errno;
	int i0 = o->stdin_path ? open(o->stdin_path, O_RDONLY)
	                       : open("/dev/null", O_RDONLY);
	if (!e && (i0 < 0 || dup2(i0, 0) < 0 || dup2(out_w, 1) < 0 ||
	           dup2(out_w, 2) < 0))
		e = errno ? errno : EIO;
	if (!e && o->rlimit_nproc) {
		struct rlimit rl = {o->rlimit_nproc, o->rlimit_nproc};
		if (setrlimit(RLIMIT_NPROC, &rl) < 0)
			e = errno;
	}
	if (!e && o->rlimit_fsize) {
		struct rlimit rl = {o->rlimit_fsize, o->rlimit_fsize};
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
			e = errno;
	}
	if (!e) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);
		if (o->envp) {
			char *const av[] = {
			    "sh", "-c", (char *)(uintptr_t)o->command, NULL};
			execve("/bin/sh", av, o->envp);
		} else {
			execl("/bin/sh", "sh", "-c", o->command, (char *)NULL);
		}
		e = errno;
	}
	(void)lu_write_all(ex_w, &e, sizeof e);
	_exit(127);
}

/* Copy the output pipe to the file until EOF, under the cap. */
static bool pump(int in, int out, size_t max, size_t *kept,
                 unsigned long long *dropped)
{
	char buf[65536];
	ssize_t n = read(in, buf, sizeof buf);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	size_t room = max > *kept ? max - *kept : 0;
	size_t k = (size_t)n < room ? (size_t)n : room;
	if (k)
		(void)lu_write_all(out, buf, k);
	*kept += k;
	*dropped += (unsigned long long)((size_t)n - k);
	return true;
}

/* Close every fd from 3 up but the ones kept: the harness's other fds
 * (other jobs' stdin FIFOs above all) must not live on in us. */
static void close_others(int *keep, int n)
{
	for (int i = 1; i < n; i++) /* (a few: no qsort after the fork) */
		for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int x = keep[j];
			keep[j] = keep[j - 1];
			keep[j - 1] = x;
		}
	unsigned from = 3;
	for (int i = 0; i <= n; i++) {
		unsigned to = i < n ? (unsigned)keep[i] : ~0U;
		if (i < n && keep[i] < 3)
			continue;
		if (to > from && syscall(SYS_close_range, from, to - 1, 0) < 0)
			for (unsigned f = from; f < to && f < 65536; f++)
				close((int)f);
		from = to + 1;
		if (i < n && (unsigned)keep[i] == ~0U)
			break;
	}
}

/* Tell lh_spawn the command's group ("-1": the exec failed). */
static void say_group(int ready_w, pid_t group)
{
	char pg[24];
	sv_text t = {pg, 0, sizeof pg};
	if (group < 0)
		sv_puts(&t, "-1");
	else
		sv_putu(&t, (unsigned long long)group);
	sv_puts(&t, "\n");
	(void)lu_write_all(ready_w, pg, t.len);
}

/* The note after a capped output: how many bytes were not kept. */
static void note_dropped(int out_fd, unsigned long long dropped, size_t max)
{
	char note[160];
	sv_text t = {note, 0, sizeof note};
	sv_puts(&t, "\n[... ");
	sv_putu(&t, dropped);
	sv_puts(&t, " more bytes dropped: the output cap is ");
	sv_putu(&t, (unsigned long long)max);
	sv_puts(&t, " bytes ...]\n");
	(void)lu_write_all(out_fd, note, t.len);
}

void lh_supervise(const lh_spawn_opts *o, pid_t parent, int ready_w)
{
	int keep[] = {o->out_fd, o->root_fd, ready_w};
	close_others(keep, 3);
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGCHLD);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	/* a parent gone before it read `ready_w` must not kill us before
	   the tree is killed (the command's child sets it back) */
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 ||
	    prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
		_exit(125);
	setpgid(0, 0); /* terminal signals for the harness are not ours */
	int p[2], ex[2];
	if (pipe2(p, O_CLOEXEC) < 0 || pipe2(ex, O_CLOEXEC) < 0)
		_exit(125);
	/* _Fork, not fork: no atfork handler runs here (POSIX 2024 lists
	   only _Fork as async-signal-safe; a handler of a library the
	   process uses could take a lock another thread held at our own
	   fork) */
	pid_t cmd = _Fork();
	if (cmd < 0)
		_exit(125);
	if (cmd == 0) {
		close(p[0]);
		close(ex[0]);
		command_child(o, p[1], ex[1]);
	}
	close(p[1]);
	close(ex[1]);
	/* wait for the exec: the command's setsid() is done by then */
	int e = 0;
	ssize_t got;
	while ((got = read(ex[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(ex[0]);
	say_group(ready_w, got > 0 ? -1 : cmd);
	close(ready_w);
	bool leader_done = false, killed = false, eof = false;
	int leader_status = 0;
	size_t kept = 0;
	unsigned long long dropped = 0;
	while (!eof || !leader_done) {
		struct pollfd fds[2] = {{sfd, POLLIN, 0},
		                        {eof ? -1 : p[0], POLLIN, 0}};
		if (poll(fds, 2, 1000) < 0 && errno != EINTR)
			break;
		if (fds[1].revents)
			eof = !pump(p[0], o->out_fd, o->output_max, &kept,
			            &dropped);
		struct signalfd_siginfo si;
		while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
			if (si.ssi_signo != SIGCHLD)
				killed = true;
		}
		if (killed) {
			kill_tree(cmd, &leader_status, &leader_done);
			leader_done = true;
			continue;
		}
		int st;
		pid_t r;
		while ((r = waitpid(-1, &st, WNOHANG)) > 0)
			if (r == cmd) {
				leader_done = true;
				leader_status = st;
				/* the leader is done: what it left goes */
				kill_tree(cmd, &leader_status, &leader_done);
			}
	}
	if (!eof) /* killed: drain what is buffered, without waiting */
		while (fcntl(p[0], F_SETFL, O_NONBLOCK) == 0 &&
		       pump(p[0], o->out_fd, o->output_max, &kept, &dropped))
			if (errno == EAGAIN)
				break;
	if (dropped)
		note_dropped(o->out_fd, dropped, o->output_max);
	kill_tree(cmd, &leader_status, &leader_done);
	if (killed)
		_exit(128 + SIGKILL);
	if (WIFEXITED(leader_status))
		_exit(WEXITSTATUS(leader_status));
	if (WIFSIGNALED(leader_status))
		_exit(128 + WTERMSIG(leader_status));
	_exit(125);
}
