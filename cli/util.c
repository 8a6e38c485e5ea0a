/*
 * cli/util.c - small helpers shared by the subcommands.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The subcommand being run, for messages of shared helpers (set once by
   main before the subcommand starts; the CLI process runs one). */
static const char *command_name = NULL;

void cli_set_command(const char *name)
{
	command_name = name;
}

const char *cli_command(void)
{
	return command_name ? command_name : "";
}

bool cli_sibling_exe(const char *name, char *out, size_t cap)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return false;
	slash[1] = '\0';
	int k = snprintf(out, cap, "%s%s", exe, name);
	return k > 0 && (size_t)k < cap;
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
