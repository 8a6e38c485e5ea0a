/*
 * cli/util.c - small helpers shared by the subcommands.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "cli.h"

char *cli_absolute_dir(const char *dir)
{
	char *real = dir ? realpath(dir, NULL) : NULL;
	struct stat st;
	if (!real || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
		free(real);
		return NULL;
	}
	return real;
}
