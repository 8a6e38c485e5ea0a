/*
 * driver.c - runs inside the oracle's sandbox as its pid 1 (statically
 * linked).  Reads NUL-terminated lines on stdin; for each: empties the
 * log, runs `/oracle/bash -c LINE` in its own process group with stdin and
 * stdout on /dev/null and CPU/file limits, kills the group after a time
 * limit (and whatever it left behind), then prints
 *
 *     @@LINE <index> <status>\n<log records>@@END\n
 *
 * As pid 1 of the sandbox's pid namespace it cannot be killed by a line
 * (`kill -9 -1` spares init) and it reaps every orphan.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOG_PATH "/oracle/log/log"
#define LINE_MS 2000

/* clang-format off */
static char *env[] = {
	"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
	"HOME=/work",
	"BASH_ENV=/oracle/env.sh",
	"LC_ALL=C",
	NULL,
};
/* clang-format on */

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void run(const char *line, size_t idx)
{
	int fd = open(LOG_PATH, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0)
		close(fd);
	long t0 = now_ms();
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		int nul = open("/dev/null", O_RDWR);
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
		struct rlimit cpu = {2, 3}, fsz = {1 << 20, 1 << 20};
		setrlimit(RLIMIT_CPU, &cpu);
		setrlimit(RLIMIT_FSIZE, &fsz);
		chdir("/work");
		char *argv[] = {"bash", "-c", (char *)line, NULL};
		execve("/oracle/bash", argv, env);
		_exit(127);
	}
	int status = -1, done = 0;
	if (pid > 0)
		setpgid(pid, pid);
	while (pid > 0 && !done) {
		pid_t w = waitpid(-1, &status, WNOHANG);
		if (w == pid) {
			done = 1;
			break;
		}
		if (w > 0)
			continue; /* an orphan reaped */
		if (now_ms() - t0 > LINE_MS) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			status = -2;
			break;
		}
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	if (pid > 0)
		kill(-pid, SIGKILL); /* background jobs left behind */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	printf("@@LINE %zu %d\n", idx, status);
	FILE *f = fopen(LOG_PATH, "r");
	if (f) {
		char buf[8192];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, f)) > 0)
			fwrite(buf, 1, n, stdout);
		fclose(f);
	}
	printf("@@END\n");
	fflush(stdout);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	size_t cap = 1 << 16, len = 0, idx = 0;
	char *buf = malloc(cap);
	if (!buf)
		return 1;
	int c;
	while ((c = getchar()) != EOF) {
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				return 1;
			buf = nb;
			cap *= 2;
		}
		if (c == '\0') {
			buf[len] = '\0';
			run(buf, idx++);
			len = 0;
		} else {
			buf[len++] = (char)c;
		}
	}
	printf("@@DONE %zu\n", idx);
	return 0;
}
