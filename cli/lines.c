/*
 * cli/lines.c - the input lines of a stream, one at a time (cli/cli.h).
 *
 * Every subcommand that reads lines (classify, gate, corpus) takes them the
 * same way: getline() with the length it reports (so NUL bytes are data),
 * counted from 1, with the "\n" and nothing else removed.
 */
#include <stdlib.h>
#include <sys/types.h>

#include "cli.h"

bool cli_lines_next(cli_lines *l, char **line, size_t *n)
{
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
