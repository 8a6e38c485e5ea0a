/*
 * cli/jail.c - `locus jail`: run one command confined (docs/jail.md).
 *
 *   locus jail [--root DIR] [--network] [--profile FILE] -- COMMAND...
 *   locus jail --print-profile
 *
 * Only the arguments are parsed here; the jail is locus_jail_run()
 * (backends/jail.c).  The command's exit status, stdin, stdout and stderr
 * pass through unchanged.  When the jail cannot be made the command is
 * not run: a message on stderr and exit status 125 (as env(1) and
 * timeout(1) use for their own failures).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cli.h"
#include "locus/harness.h"

#define JAIL_FAILED 125

static int usage(FILE *f)
{
	fprintf(f, "usage: locus jail [--root DIR] [--network] "
	           "[--profile FILE] -- COMMAND [ARG]...\n"
	           "       locus jail --print-profile\n"
	           "runs COMMAND under bubblewrap: DIR (default: the current "
	           "folder) read-write,\n"
	           "the rest read-only, private /tmp, credential stores "
	           "masked, no network\n"
	           "unless --network (docs/jail.md)\n");
	return f == stdout ? 0 : 2;
}

int cli_jail(int argc, char **argv)
{
	locus_jail_options o = LOCUS_JAIL_OPTIONS_INIT;
	int i = 1;
	for (; i < argc; i++) {
		const char *s = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(s, "--")) {
			i++;
			break;
		} else if (!strcmp(s, "--network")) {
			o.network = true;
		} else if (has && !strcmp(s, "--root")) {
			o.root = argv[++i];
		} else if (has && !strcmp(s, "--profile")) {
			o.profile = argv[++i];
		} else if (!strcmp(s, "--print-profile")) {
			fputs(locus_jail_default_profile(), stdout);
			return 0;
		} else if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			return usage(stdout);
		} else if (s[0] == '-') {
			fprintf(stderr, "locus jail: unknown option %s\n", s);
			return usage(stderr);
		} else {
			break; /* the command, without -- */
		}
	}
	if (i >= argc) {
		fprintf(stderr, "locus jail: no command\n");
		return usage(stderr);
	}
	/* the jail dies with us (bwrap --die-with-parent); we die with the
	   agent's shell that started us */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1) {
		fprintf(stderr, "locus jail: the caller has gone; the command "
		                "was not run\n");
		return JAIL_FAILED;
	}
	fflush(stdout);
	int status = -1;
	locus_error err = {0};
	int rc =
	    locus_jail_run(&status, (const char *const *)(argv + i), &o, &err);
	if (rc) {
		fprintf(stderr, "locus jail: %s\n",
		        err.message[0] ? err.message
		                       : locus_error_code_name(rc));
		return JAIL_FAILED;
	}
	return status;
}
