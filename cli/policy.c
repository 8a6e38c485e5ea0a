/*
 * cli/policy.c - `locus policy show [--preset NAME | --policy FILE]
 * [--claude-settings FILE] [--compact]`: print the effective policy as JSON.
 * (The policy loading shared with `locus gate` is cli/policy_build.c.)
 *
 * Exit status: 0, or 2 for a usage error, an unknown preset or a bad
 * policy/settings file (nothing is evaluated on a bad file).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "agents/hook.h"
#include "policy_cli.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: locus policy show [--preset NAME | --policy FILE] "
	        "[--claude-settings FILE]...\n"
	        "                         [--claude-project DIR] "
	        "[--compact]\n"
	        "       locus policy fuzz [OPTIONS] (locus policy fuzz "
	        "--help)\n"
	        "presets: standard (default), strict, permissive, readonly\n");
}

int cli_policy(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "fuzz"))
		return cli_policy_fuzz(argc, argv);
	if (argc < 2 || strcmp(argv[1], "show") != 0) {
		if (argc >= 2 &&
		    (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
			usage(stdout);
			return 0;
		}
		usage(stderr);
		return 2;
	}
	const char *policy_file = NULL, *preset = NULL;
	cli_claude_opts claude = {0};
	bool compact = false;
	const cli_opt opts[] = {
	    CLI_OPT_FLAG("--compact", &compact),
	    CLI_OPT_POLICY(&policy_file, &preset, &claude, "policy"),
	};
	int prc = cli_opt_parse(opts, CLI_OPT_N(opts), "policy", usage, argc,
	                        argv, 2);
	if (prc)
		return prc == 1 ? 0 : 2;
	locus_policy *p;
	int rc = cli_policy_build_claude(policy_file, preset, &claude, &p);
	if (rc)
		return rc;
	char *s = NULL;
	if (locus_policy_json(&s, p, compact ? 0 : LOCUS_JSON_PRETTY)) {
		fprintf(stderr, "locus policy: out of memory\n");
		locus_policy_free(p);
		return 2;
	}
	printf("%s\n", s);
	locus_free(s);
	locus_policy_free(p);
	return 0;
}
