/*
 * cli/gateway_exec.c - `locus gateway ...`: the gateway is its own
 * executable, locus-gateway (cli/gateway_main.c), installed beside
 * `locus`.  It links libmicrohttpd, SQLite and libpq, whose libraries
 * (with GnuTLS, Kerberos, LDAP...) cost every process that loads them
 * about 6 ms of CPU and 12 million instructions before main; `locus`
 * itself, started once per tool call by the hooks, loads none of them
 * (docs/gateway.md, docs/benchmark.md).  This replaces the process with
 * locus-gateway and the same arguments, so the pid, the descriptors and
 * the signals a caller sends stay what they were.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_gateway_exec(int argc, char **argv)
{
	(void)argc;
	char exe[PATH_MAX];
	if (!cli_sibling_exe("locus-gateway", exe, sizeof exe)) {
		fprintf(stderr, "locus gateway: cannot find this executable's "
		                "directory (/proc/self/exe)\n");
		return 1;
	}
	/* argv[0] stays "gateway": locus-gateway reads its arguments from
	   argv[1], as cli_gateway does under `locus` */
	execv(exe, argv);
	fprintf(stderr, "locus gateway: cannot run %s: %s\n", exe,
	        strerror(errno));
	return 1;
}
