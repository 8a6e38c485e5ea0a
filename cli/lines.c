/*
 * cli/lines.c - the input lines of a stream, one at a time (cli/cli.h).
 *
 * Every subcommand that reads lines (classify, gate, corpus) takes them the
 * same way: getline() with the length it reports (so NUL bytes are data),
 * counted from 1, with the "\n" and nothing else removed.
 */
#include <poll.h>
#include <stdlib.h>
#include <sys/types.h>

#include "cli.h"

/* The stream's buffer still holds bytes not read: the next line (or part
   of it) is there without a wait.  glibc's FILE fields (there is no
   call for it: __fpending is for output); elsewhere false, and the fd is
   polled as before.  A batch then polls once a buffer (4 KiB from a
   pipe), not once a line: 10,000 poll(2) calls were ~3 % of
   `locus classify`'s CPU time on the benchmark batches. */
static bool buffered(FILE *f)
{
#ifdef __GLIBC__
	return f->_IO_read_ptr < f->_IO_read_end;
#else
	(void)f;
	return false;
#endif
}

bool cli_lines_idle(const cli_lines *l)
{
	if (buffered(l->f))
		return false;
	int fd = fileno(l->f);
	if (fd < 0)
		return false;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	return poll(&p, 1, 0) == 0;
}

bool cli_lines_next(cli_lines *l, char **line, size_t *n)
{
	/* the stdio buffer may still hold lines when the fd is idle: the
	   flush is then early, never late */
	if (l->answers && cli_lines_idle(l))
		fflush(l->answers);
	ssize_t got = getline(&l->buf, &l->cap, l->f);
	if (got < 0)
		return false;
	size_t len = (size_t)got;
	l->lineno++;
	if (len && l->buf[len - 1] == '\n')
		l->buf[--len] = '\0';
	*line = l->buf;
	*n = len;
	return true;
}

void cli_lines_free(cli_lines *l)
{
	free(l->buf);
	l->buf = NULL;
	l->cap = 0;
}
