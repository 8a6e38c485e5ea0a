/*
 * cli/stubs.c - weak placeholders for subcommands written elsewhere.
 *
 * Each is overridden by the real definition (cli/gate.c, cli/policy.c,
 * cli/audit.c, cli/tool.c, cli/bench.c, and the policy corpus runner) as
 * soon as that file is listed in cli/meson.build: a strong symbol in another
 * object of the same executable wins over a weak one, with no link error.
 */
#include <stdio.h>

#include "cli.h"

#define CLI_STUB(fn, name)                                                   \
	__attribute__((weak)) int fn(int argc, char **argv)                  \
	{                                                                    \
		(void)argc;                                                  \
		(void)argv;                                                  \
		fprintf(stderr, "locus " name ": not built yet\n");          \
		return 2;                                                    \
	}

CLI_STUB(cli_gate, "gate")
CLI_STUB(cli_policy, "policy")
CLI_STUB(cli_audit, "audit")
CLI_STUB(cli_tool, "tool")
CLI_STUB(cli_bench, "bench")

__attribute__((weak)) int cli_corpus_policy_file(const char *path, FILE *out,
                                                 int *passed, int *failed)
{
	(void)out;
	(void)passed;
	(void)failed;
	fprintf(stderr, "locus corpus: %s: policy cases are not supported yet\n",
	        path);
	return 2;
}
