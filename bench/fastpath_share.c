/*
 * bench/fastpath_share.c - how many lines of a file the plain-word fast
 * path (parser/fastpath.c) reads at the top level.
 *
 *   fastpath_share FILE     prints "N of M lines"
 *   fastpath_share -r FILE  prints the lines it does not read, then that
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "parser/fastpath.h"

int main(int argc, char **argv)
{
	int rejected = argc == 3 && !strcmp(argv[1], "-r");
	if (argc != 2 + rejected) {
		fprintf(stderr, "usage: fastpath_share [-r] FILE\n");
		return 2;
	}
	const char *file = argv[1 + rejected];
	FILE *f = fopen(file, "r");
	if (!f) {
		perror(file);
		return 2;
	}
	char *line = NULL;
	size_t cap = 0, yes = 0, all = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		all++;
		bool ok = lp_fastpath_accepts(line, (size_t)n);
		yes += ok;
		if (rejected && !ok)
			printf("%.*s\n", (int)n, line);
	}
	free(line);
	fclose(f);
	printf("%zu of %zu lines\n", yes, all);
	return 0;
}
