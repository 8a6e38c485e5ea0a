/*
 * cli/opts.h - a subcommand's plain options, as a table.
 *
 * A subcommand lists its flags (`--name` sets a bool) and its options with
 * a value (`--name VALUE` sets a string) in a table of cli_opt rows and
 * hands each argument to cli_opt_take(); what needs more than storing (a
 * number's range, a repeatable option with a cap, --help) stays in the
 * subcommand's own loop, before or after the table.
 */
#ifndef LOCUS_CLI_OPTS_H
#define LOCUS_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One option: exactly one of `flag` and `value` is set. */
typedef struct cli_opt {
	const char *name;   /* "--policy" */
	bool *flag;         /* a flag: set to true */
	const char **value; /* an option with a value: the next argument */
} cli_opt;

typedef enum cli_opt_result {
	CLI_OPT_NO_VALUE = -1, /* ours, but the value is missing (the last
	                          argument): the caller's usage error */
	CLI_OPT_NOT_OURS = 0,  /* not in the table */
	CLI_OPT_TAKEN = 1,     /* stored; *i moved past a value */
} cli_opt_result;

/* argv[*i] against the n rows of `table`. */
cli_opt_result cli_opt_take(const cli_opt *table, size_t n, int argc,
                            char **argv, int *i);

/* "locus CMD: unknown or incomplete option 'ARG'" and the usage on
   stderr; returns 2 (the usage status). */
int cli_opt_unknown(const char *cmd, const char *arg, void (*usage)(FILE *));

#define CLI_OPT_TAKE(table, argc, argv, i)                                     \
	cli_opt_take((table), sizeof(table) / sizeof((table)[0]), (argc),      \
	             (argv), (i))

#endif
