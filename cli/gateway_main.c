/*
 * cli/gateway_main.c - the locus-gateway executable: `locus gateway`
 * (cli/gateway.c) in a process of its own, so that only the gateway
 * loads the HTTP server and database libraries (cli/gateway_exec.c).
 * `locus gateway ARGS` and `locus-gateway ARGS` are the same command.
 */
#include "cli.h"

int main(int argc, char **argv)
{
	cli_set_command("gateway");
	return cli_gateway(argc, argv);
}
