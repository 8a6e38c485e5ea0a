/*
 * cli/main.c - the `locus` command: dispatch `locus NAME ARGS...` to
 * cli_NAME(argc, argv) (cli/cli.h), plus --help and --version.
 *
 * Exit status: whatever the subcommand returns; 2 for an unknown subcommand
 * or a missing one.  Only cli/ prints or exits.
 */
#include <stdio.h>
#include <string.h>

#include "locus/common.h"
#include "cli.h"

typedef struct cli_entry {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary; /* one line for --help */
} cli_entry;

/* The subcommand table; --help prints it in this order. */
/* clang-format off */
static const cli_entry cli_table[] = {
	{"classify", cli_classify,
	 "label bash lines: one JSON object per command (args, stdin, --jsonl)"},
	{"corpus", cli_corpus,
	 "run golden cases (DIR|FILE...): prints failures, then N passed, N failed"},
	{"gate", cli_gate,
	 "decide tool calls under a policy: allow, require_human or deny"},
	{"policy", cli_policy,
	 "inspect a policy (policy show), fuzz its grants (policy fuzz)"},
	{"audit", cli_audit,
	 "check an audit trail (audit verify), judge agents' transcripts"},
	{"tool", cli_tool, "run one harness tool call"},
	{"hook", cli_hook,
	 "permission hook for claude-code, codex, gemini (JSON on stdin)"},
	{"jail", cli_jail,
	 "run one command confined by bubblewrap (workspace writable only)"},
	{"mcp", cli_mcp, "serve the harness as an MCP server on stdio"},
	{"runner", cli_runner,
	 "the box runner: one agent's run in a sandbox under a gateway"},
	{"gateway", cli_gateway_exec,
	 "the gateway: runs, admission, approvals (serve, run create, ...)"},
};
/* clang-format on */

#define CLI_TABLE_LEN (sizeof cli_table / sizeof cli_table[0])

static void print_help(FILE *f)
{
	fprintf(f, "usage: locus COMMAND [ARGS...]\n"
	           "       locus --help | --version\n\n"
	           "commands:\n");
	for (size_t i = 0; i < CLI_TABLE_LEN; i++)
		fprintf(f, "  %-9s %s\n", cli_table[i].name,
		        cli_table[i].summary);
	fprintf(f, "\nRun `locus COMMAND --help` for a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_help(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") ||
	    !strcmp(name, "help")) {
		print_help(stdout);
		return 0;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
		printf("locus %s\n", locus_version());
		return 0;
	}
	for (size_t i = 0; i < CLI_TABLE_LEN; i++)
		if (!strcmp(name, cli_table[i].name)) {
			cli_set_command(cli_table[i].name);
			return cli_table[i].run(argc - 1, argv + 1);
		}
	fprintf(
	    stderr,
	    "locus: unknown command '%s' (run `locus --help` for the list)\n",
	    name);
	return 2;
}
