/*
 * tests/run_locus.h - run the built `locus` (LOCUS_BIN) as a child process
 * for the CLI-level suites: feed stdin, collect stdout and stderr through
 * poll() (no deadlock on large output), return the exit status and the
 * wall time.  Header-only: each test program includes it once.
 */
#ifndef LOCUS_TESTS_RUN_LOCUS_H
#define LOCUS_TESTS_RUN_LOCUS_H

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct run_out {
	char *out, *err;
	size_t out_len, err_len;
	int status; /* exit code, or 128+signal */
	double seconds;
} run_out;

static const char *locus_bin(void)
{
	const char *b = getenv("LOCUS_BIN");
	ck_assert_msg(b && *b, "LOCUS_BIN is not set");
	return b;
}

static void append(char **buf, size_t *len, const char *s, size_t n)
{
	char *p = realloc(*buf, *len + n + 1);
	ck_assert_ptr_nonnull(p);
	memcpy(p + *len, s, n);
	*len += n;
	p[*len] = '\0';
	*buf = p;
}

/*
 * Run LOCUS_BIN with argv (argv[0] ignored), feeding `in`.  keep_open
 * leaves stdin open after the input (an agent that never closes it).
 */
static run_out run_ex(const char *const *argv, const char *in, size_t in_len,
                      bool keep_open)
{
	int pin[2], pout[2], perr[2];
	ck_assert_int_eq(pipe(pin), 0);
	ck_assert_int_eq(pipe(pout), 0);
	ck_assert_int_eq(pipe(perr), 0);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		dup2(perr[1], 2);
		close(pin[0]);
		close(pin[1]);
		close(pout[0]);
		close(pout[1]);
		close(perr[0]);
		close(perr[1]);
		size_t n = 0;
		while (argv[n])
			n++;
		char **av = calloc(n + 1, sizeof *av);
		av[0] = (char *)(uintptr_t)locus_bin();
		for (size_t i = 1; i < n; i++)
			av[i] = (char *)(uintptr_t)argv[i];
		execv(av[0], av);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	signal(SIGPIPE, SIG_IGN);
	fcntl(pin[1], F_SETFL, O_NONBLOCK);

	run_out r = {0};
	append(&r.out, &r.out_len, "", 0);
	append(&r.err, &r.err_len, "", 0);
	size_t sent = 0;
	int wfd = pin[1], held = -1;
	if (!in || in_len == 0) {
		if (keep_open)
			held = wfd;
		else
			close(wfd);
		wfd = -1;
	}
	bool out_open = true, err_open = true;
	while (out_open || err_open || wfd >= 0) {
		struct pollfd p[3] = {
		    {.fd = out_open ? pout[0] : -1, .events = POLLIN},
		    {.fd = err_open ? perr[0] : -1, .events = POLLIN},
		    {.fd = wfd, .events = POLLOUT}};
		int k = poll(p, 3, 60000);
		ck_assert_msg(k > 0, "locus did not answer within 60 s");
		char buf[65536];
		if (p[0].revents) {
			ssize_t got = read(pout[0], buf, sizeof buf);
			if (got > 0)
				append(&r.out, &r.out_len, buf, (size_t)got);
			else
				out_open = false;
		}
		if (p[1].revents) {
			ssize_t got = read(perr[0], buf, sizeof buf);
			if (got > 0)
				append(&r.err, &r.err_len, buf, (size_t)got);
			else
				err_open = false;
		}
		if (wfd >= 0 && p[2].revents) {
			ssize_t put = write(wfd, in + sent, in_len - sent);
			if (put > 0)
				sent += (size_t)put;
			if (put < 0 && errno != EAGAIN) /* reader gone */
				sent = in_len;
			if (sent == in_len) {
				if (keep_open)
					held = wfd;
				else
					close(wfd);
				wfd = -1;
			}
		}
	}
	close(pout[0]);
	close(perr[0]);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	if (held >= 0)
		close(held);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r.seconds = (double)(t1.tv_sec - t0.tv_sec) +
	            (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return r;
}

static run_out run(const char *const *argv, const char *in, size_t in_len)
{
	return run_ex(argv, in, in_len, false);
}

static void run_free(run_out *r)
{
	free(r->out);
	free(r->err);
}

#endif
