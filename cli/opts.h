/*
 * cli/opts.h - a subcommand's options, as a table.
 *
 * A subcommand lists its flags (`--name` sets a bool), its options with a
 * value (`--name VALUE` sets a string) and, when it takes a policy, the
 * Claude Code settings options (cli_claude_flag) in a table of cli_opt
 * rows.  A subcommand with no operands and nothing else hands the whole
 * command line to cli_opt_parse(); the others hand each argument to
 * cli_opt_take() and keep in their own loop what needs more than storing
 * (a number's range, --help's status, operands).
 */
#ifndef LOCUS_CLI_OPTS_H
#define LOCUS_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct cli_claude_opts; /* cli/policy_cli.h */

/* One row; make it with the macros below. */
typedef struct cli_opt {
	const char *name;               /* "--policy"; NULL: a Claude row */
	bool *flag;                     /* a flag: set to true */
	const char **value;             /* a value: the next argument */
	struct cli_claude_opts *claude; /* --claude-settings FILE (repeatable,
	                                   capped), --claude-project DIR */
	const char *cmd; /* names the command in the cap's error */
} cli_opt;

#define CLI_OPT_FLAG(n, p)                                                     \
	{                                                                      \
		.name = (n), .flag = (p)                                       \
	}
#define CLI_OPT_VALUE(n, p)                                                    \
	{                                                                      \
		.name = (n), .value = (p)                                      \
	}
#define CLI_OPT_CLAUDE(c, command)                                             \
	{                                                                      \
		.claude = (c), .cmd = (command)                                \
	}

/* The rows of the options that choose the policy a command decides under
   (--policy FILE, --preset NAME, the Claude settings options) and of its
   audit trail (--audit FILE, --audit-key KEY): gate, hook, mcp and policy
   take them alike. */
#define CLI_OPT_POLICY(file, preset, claude, command)                          \
	CLI_OPT_VALUE("--policy", (file)),                                     \
	    CLI_OPT_VALUE("--preset", (preset)),                               \
	    CLI_OPT_CLAUDE((claude), (command))
#define CLI_OPT_AUDIT(file, key)                                               \
	CLI_OPT_VALUE("--audit", (file)), CLI_OPT_VALUE("--audit-key", (key))

typedef enum cli_opt_result {
	CLI_OPT_FAILED = -2,   /* ours, but refused (too many
	                          --claude-settings): the error is printed,
	                          the usage status is 2 */
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

/* argv[from..argc) for a command whose options are all in the table (no
   operands): 0; 1 after --help (-h) printed `usage` to stdout; 2 after a
   usage error (message and usage on stderr, naming `cmd`). */
int cli_opt_parse(const cli_opt *table, size_t n, const char *cmd,
                  void (*usage)(FILE *), int argc, char **argv, int from);

#define CLI_OPT_N(table) (sizeof(table) / sizeof((table)[0]))
#define CLI_OPT_TAKE(table, argc, argv, i)                                     \
	cli_opt_take((table), CLI_OPT_N(table), (argc), (argv), (i))

/* argv[*i] of a command with its own loop (operands, ranges, --help),
   through the table: CLI_OPT_TAKEN (go on), CLI_OPT_NOT_OURS (the caller
   reads it), else the usage status 2, printed (a refused value, or a row's
   option without its value). */
int cli_opt_step(const cli_opt *table, size_t n, const char *cmd,
                 void (*usage)(FILE *), int argc, char **argv, int *i);
#define CLI_OPT_STEP(table, cmd, usage, argc, argv, i)                         \
	cli_opt_step((table), CLI_OPT_N(table), (cmd), (usage), (argc),        \
	             (argv), (i))

#endif
