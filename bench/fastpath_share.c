/*
 * bench/fastpath_share.c - how many lines of a file the plain-word fast
 * path (parser/fastpath.c) reads at the top level.
 *
 *   fastpath_share FILE     prints "N of M lines"
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "parser/fastpath.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fastpath_share FILE\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	char *line = NULL;
	size_t cap = 0, yes = 0, all = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		all++;
		yes += lp_fastpath_accepts(line, (size_t)n);
	}
	free(line);
	fclose(f);
	printf("%zu of %zu lines\n", yes, all);
	return 0;
}
