/*
 * cli/util.c - small helpers shared by the subcommands.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "../util/buf.h"

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

int cli_print_json(FILE *out, cJSON *o, bool pretty)
{
	char *s = !o       ? NULL
	          : pretty ? cJSON_Print(o)
	                   : cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!s)
		return -1;
	int rc = fprintf(out, "%s\n", s) < 0 ? -1 : 0;
	cJSON_free(s);
	return rc;
}

char *cli_format(const char *fmt, ...)
{
	lu_buf b = LU_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	lu_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return lu_buf_take(&b);
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
