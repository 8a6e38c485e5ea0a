/*
 * tests/fake_proc.h - start a loopback fake service (a /usr/bin/python3
 * script under tests/) for a suite, and stop it.
 *
 * The script binds 127.0.0.1:0 and prints "PORT <n>" as its first line on
 * stdout; it exits when its stdin closes, so a crashed test never leaves a
 * server behind.  Header-only: include it from one test file.
 */
#ifndef LOCUS_TESTS_FAKE_PROC_H
#define LOCUS_TESTS_FAKE_PROC_H

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct fake_proc {
	pid_t pid;
	int stdin_fd; /* closing it tells the fake to exit */
	int port;
} fake_proc;

/* Start `/usr/bin/python3 $LOCUS_SOURCE_ROOT/tests/<script> args...`
   (args NULL-terminated, at most 30).  0 or -1 (message on stderr). */
static inline int fake_start(fake_proc *f, const char *script,
                             const char *const *args)
{
	const char *root = getenv("LOCUS_SOURCE_ROOT");
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/%s", root ? root : ".", script);
	int in[2], out[2];
	if (pipe(in) || pipe(out))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		const char *argv[34] = {"/usr/bin/python3", path};
		int n = 2;
		for (int i = 0; args && args[i] && n < 33; i++)
			argv[n++] = args[i];
		argv[n] = NULL;
		execv(argv[0], (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	f->pid = pid;
	f->stdin_fd = in[1];
	f->port = 0;
	char line[128];
	size_t len = 0;
	while (len + 1 < sizeof line) {
		struct pollfd p = {out[0], POLLIN, 0};
		if (poll(&p, 1, 20000) <= 0)
			break;
		ssize_t r = read(out[0], line + len, 1);
		if (r <= 0)
			break;
		if (line[len] == '\n')
			break;
		len++;
	}
	line[len] = '\0';
	close(out[0]);
	if (sscanf(line, "PORT %d", &f->port) != 1 || f->port <= 0) {
		fprintf(stderr, "fake %s did not start (got \"%s\")\n", script,
		        line);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(f->stdin_fd);
		return -1;
	}
	return 0;
}

static inline void fake_stop(fake_proc *f)
{
	if (f->pid <= 0)
		return;
	close(f->stdin_fd);
	for (int i = 0; i < 50; i++) {
		if (waitpid(f->pid, NULL, WNOHANG) == f->pid) {
			f->pid = 0;
			return;
		}
		usleep(20000);
	}
	kill(f->pid, SIGKILL);
	waitpid(f->pid, NULL, 0);
	f->pid = 0;
}

#endif
