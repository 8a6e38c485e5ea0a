/*
 * cli/cli.h - the `locus` command's subcommands.
 *
 * main.c dispatches `locus NAME ARGS...` to cli_NAME(argc, argv) with
 * argv[0] == "NAME".  Each returns the process exit status: 0 success,
 * 2 usage error or malformed input (after processing the other inputs),
 * other codes as the subcommand documents.  Only cli/ prints or exits.
 */
#ifndef LOCUS_CLI_H
#define LOCUS_CLI_H

int cli_classify(int argc, char **argv); /* cli/classify.c */
int cli_corpus(int argc, char **argv);   /* cli/corpus.c */
int cli_gate(int argc, char **argv);     /* cli/gate.c (policy engine) */
int cli_policy(int argc, char **argv);   /* cli/policy.c: policy show */
int cli_audit(int argc, char **argv);    /* cli/audit.c: audit verify */
int cli_tool(int argc, char **argv);     /* cli/tool.c (harness) */
int cli_bench(int argc, char **argv);    /* cli/bench.c */

#endif
