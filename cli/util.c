/*
 * cli/util.c - small helpers shared by the subcommands.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "cli.h"

bool cli_json_dup_keys(const cJSON *object)
{
	/* cJSON keeps every duplicate and lookups find the first: a second
	   "command" would be the one a naive consumer runs.  Objects here are
	   small (tool calls, hook payloads), so the quadratic scan is fine. */
	if (!object)
		return false;
	for (const cJSON *c = object->child; c; c = c->next)
		for (const cJSON *p = object->child; p != c; p = p->next)
			if (c->string && p->string &&
			    !strcmp(p->string, c->string))
				return true;
	return false;
}

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
