/*
 * tests/run_locus.h - the one way the C suites run the built `locus`
 * (LOCUS_BIN) as a child process: locus_spawn() starts it on pipes (a
 * client that talks to it line by line builds on it), run()/run_ex() feed
 * stdin and collect stdout and stderr through poll() (no deadlock on large
 * output) and return the exit status, and run_sh() runs a shell line that
 * runs locus (a `cd`, setpriv or env prefix, redirections) and returns its
 * output and exit status.  Header-only: each test program includes it
 * once.
 */
#ifndef LOCUS_TESTS_RUN_LOCUS_H
#define LOCUS_TESTS_RUN_LOCUS_H

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct run_out {
	char *out, *err;
	size_t out_len, err_len;
	int status; /* exit code, or 128+signal */
} run_out;

static inline const char *locus_bin(void)
{
	const char *b = getenv("LOCUS_BIN");
	ck_assert_msg(b && *b, "LOCUS_BIN is not set");
	return b;
}

static inline void append(char **buf, size_t *len, const char *s, size_t n)
{
	char *p = realloc(*buf, *len + n + 1);
	ck_assert_ptr_nonnull(p);
	memcpy(p + *len, s, n);
	*len += n;
	p[*len] = '\0';
	*buf = p;
}

/*
 * Start LOCUS_BIN with argv (argv[0] ignored) on pipes: *in is the write
 * end of its stdin, *out the read end of its stdout, *err of its stderr
 * (err NULL: its stderr goes to /dev/null).  SIGPIPE is ignored from then
 * on, so a child that stops reading is a write error, not our death.
 */
static inline pid_t locus_spawn(const char *const *argv, int *in, int *out,
                                int *err)
{
	int pin[2], pout[2], perr[2] = {-1, -1};
	ck_assert_int_eq(pipe(pin), 0);
	ck_assert_int_eq(pipe(pout), 0);
	if (err)
		ck_assert_int_eq(pipe(perr), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		if (err)
			dup2(perr[1], 2);
		else
			dup2(open("/dev/null", O_WRONLY), 2);
		close(pin[0]);
		close(pin[1]);
		close(pout[0]);
		close(pout[1]);
		if (err) {
			close(perr[0]);
			close(perr[1]);
		}
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
	*in = pin[1];
	*out = pout[0];
	if (err) {
		close(perr[1]);
		*err = perr[0];
	}
	signal(SIGPIPE, SIG_IGN);
	return pid;
}

/*
 * Run LOCUS_BIN with argv (argv[0] ignored), feeding `in`.  keep_open
 * leaves stdin open after the input (an agent that never closes it).
 * Each wait for output is bounded (60 s): a hang is a failure.
 */
static inline run_out run_ex(const char *const *argv, const char *in,
                             size_t in_len, bool keep_open)
{
	int pin[2], pout[2], perr[2];
	pid_t pid = locus_spawn(argv, &pin[1], &pout[0], &perr[0]);
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
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return r;
}

static inline run_out run(const char *const *argv, const char *in,
                          size_t in_len)
{
	return run_ex(argv, in, in_len, false);
}

static inline void run_free(run_out *r)
{
	free(r->out);
	free(r->err);
}

/*
 * Run a shell line that runs locus (its stdout, and its stderr where the
 * line says 2>&1, into out[cap], NUL-terminated; what does not fit is
 * dropped).  Returns the exit status, or -1 when it did not exit.
 */
static inline int run_sh(const char *line, char *out, size_t cap)
{
	FILE *o = popen(line, "r");
	ck_assert_ptr_nonnull(o);
	size_t got = fread(out, 1, cap - 1, o);
	out[got] = '\0';
	char sink[4096];
	while (fread(sink, 1, sizeof sink, o) > 0)
		;
	int st = pclose(o);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
