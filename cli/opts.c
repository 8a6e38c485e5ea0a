/*
 * cli/opts.c - a subcommand's plain options, as a table (see opts.h).
 */
#include "opts.h"

#include <assert.h>
#include <string.h>

int cli_opt_unknown(const char *cmd, const char *arg, void (*usage)(FILE *))
{
	fprintf(stderr, "locus %s: unknown or incomplete option '%s'\n", cmd,
	        arg);
	usage(stderr);
	return 2;
}

cli_opt_result cli_opt_take(const cli_opt *table, size_t n, int argc,
                            char **argv, int *i)
{
	const char *a = argv[*i];
	for (size_t k = 0; k < n; k++) {
		const cli_opt *o = &table[k];
		assert(!o->flag != !o->value);
		if (strcmp(a, o->name))
			continue;
		if (o->flag) {
			*o->flag = true;
			return CLI_OPT_TAKEN;
		}
		if (*i + 1 >= argc)
			return CLI_OPT_NO_VALUE;
		*o->value = argv[++*i];
		return CLI_OPT_TAKEN;
	}
	return CLI_OPT_NOT_OURS;
}
