/*
 * stub.c - the only "program" inside the oracle's sandbox (linked
 * statically, so it needs no library).  Every name under /usr/bin in the
 * sandbox is a symlink to it, and bash's command_not_found_handle runs it
 * for any other name.  It appends one record to /oracle/log/log:
 *
 *     NAME \t ARG1 \x1f ARG2 ... \n      (newlines in arguments as \x1e)
 *
 * and exits 0, running nothing.  A shell name (sh, dash, ...) is logged
 * and then replaced by the real bash bound at /oracle/bash (named "bash"
 * so it reads BASH_ENV and keeps the catch-all), so scripts given to
 * nested shells really run and their commands are logged too.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#define LOG_PATH "/oracle/log/log"

static const char *const shells[] = {"sh",   "bash", "dash",  "ash", "ksh",
                                     "mksh", "zsh",  "rbash", NULL};

static void put(char *buf, size_t *n, size_t cap, const char *s)
{
	for (; *s && *n + 1 < cap; s++)
		buf[(*n)++] = *s == '\n' ? '\x1e' : *s;
}

int main(int argc, char **argv)
{
	(void)argc;
	/* The name is the path bash executed (AT_EXECFN), not argv[0],
	   which `exec -a NAME` sets freely; only the catch-all handler
	   runs /oracle/stub itself and passes the name in argv[0]. */
	const char *name = (const char *)getauxval(AT_EXECFN);
	if (!name || !strcmp(name, "/oracle/stub"))
		name = argv[0] ? argv[0] : "";
	const char *slash = strrchr(name, '/');
	if (slash)
		name = slash + 1;
	static char buf[65536];
	size_t n = 0;
	put(buf, &n, sizeof buf - 2, name);
	buf[n++] = '\t';
	for (int i = 1; argv[i]; i++) {
		if (i > 1 && n + 2 < sizeof buf)
			buf[n++] = '\x1f';
		put(buf, &n, sizeof buf - 2, argv[i]);
	}
	buf[n++] = '\n';
	int fd =
	    open(LOG_PATH, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0) {
		/* one write: concurrent stubs of a pipeline never interleave */
		ssize_t w = write(fd, buf, n);
		(void)w;
		close(fd);
	}
	for (size_t i = 0; shells[i]; i++)
		if (!strcmp(name, shells[i])) {
			argv[0] = "bash";
			execv("/oracle/bash", argv);
			return 127;
		}
	return 0;
}
