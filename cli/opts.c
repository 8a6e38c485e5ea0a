/*
 * cli/opts.c - a subcommand's options, as a table (see opts.h).
 */
#include "opts.h"

#include <assert.h>
#include <string.h>

#include "policy_cli.h"

int cli_opt_unknown(const char *cmd, const char *arg, void (*usage)(FILE *))
{
	fprintf(stderr, "locus %s: unknown or incomplete option '%s'\n", cmd,
	        arg);
	usage(stderr);
	return 2;
}

/* One row against argv[*i]. */
static cli_opt_result take_one(const cli_opt *o, int argc, char **argv, int *i)
{
	if (!o->name) {
		assert(o->claude && o->cmd);
		int cf = cli_claude_flag(o->claude, o->cmd, argc, argv, i);
		return cf == 1 ? CLI_OPT_TAKEN
		       : cf    ? CLI_OPT_FAILED
		               : CLI_OPT_NOT_OURS;
	}
	assert(!o->flag != !o->value);
	if (strcmp(argv[*i], o->name))
		return CLI_OPT_NOT_OURS;
	if (o->flag) {
		*o->flag = true;
		return CLI_OPT_TAKEN;
	}
	if (*i + 1 >= argc)
		return CLI_OPT_NO_VALUE;
	*o->value = argv[++*i];
	return CLI_OPT_TAKEN;
}

cli_opt_result cli_opt_take(const cli_opt *table, size_t n, int argc,
                            char **argv, int *i)
{
	for (size_t k = 0; k < n; k++) {
		cli_opt_result r = take_one(&table[k], argc, argv, i);
		if (r != CLI_OPT_NOT_OURS)
			return r;
	}
	return CLI_OPT_NOT_OURS;
}

int cli_opt_step(const cli_opt *table, size_t n, const char *cmd,
                 void (*usage)(FILE *), int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	cli_opt_result t = cli_opt_take(table, n, argc, argv, i);
	if (t == CLI_OPT_FAILED)
		return 2;
	if (t == CLI_OPT_NO_VALUE)
		return cli_opt_unknown(cmd, a, usage);
	return t;
}

int cli_opt_parse(const cli_opt *table, size_t n, const char *cmd,
                  void (*usage)(FILE *), int argc, char **argv, int from)
{
	for (int i = from; i < argc; i++) {
		const char *a = argv[i];
		cli_opt_result t = cli_opt_take(table, n, argc, argv, &i);
		if (t == CLI_OPT_TAKEN)
			continue;
		if (t == CLI_OPT_FAILED)
			return 2;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 1;
		}
		return cli_opt_unknown(cmd, a, usage);
	}
	return 0;
}
