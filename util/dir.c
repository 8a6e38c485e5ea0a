/*
 * util/dir.c - a folder's entries, sorted (see dir.h).
 */
#include "dir.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add "dir/name" to the list: false when out of memory. */
static bool add_path(char ***paths, size_t *n, size_t *cap, const char *dir,
                     const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *p = malloc(len);
	if (!p || !lu_reserve(paths, cap, *n + 1)) {
		free(p);
		return false;
	}
	snprintf(p, len, "%s/%s", dir, name);
	(*paths)[(*n)++] = p;
	return true;
}

int lu_dir_paths(const char *dir, char ***paths, size_t *n)
{
	*paths = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	char **list = NULL;
	size_t count = 0, cap = 0;
	int err = 0;
	for (;;) {
		errno = 0; /* readdir() tells its end from an error by errno */
		struct dirent *e = readdir(d);
		if (!e) {
			err = errno;
			break;
		}
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!add_path(&list, &count, &cap, dir, e->d_name)) {
			err = ENOMEM;
			break;
		}
	}
	closedir(d);
	if (err) {
		lu_dir_free(list, count);
		errno = err;
		return -1;
	}
	/* the same prefix on every path: sorting paths sorts the names */
	if (count)
		qsort(list, count, sizeof *list, cmp_path);
	*paths = list;
	*n = count;
	return 0;
}

void lu_dir_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
