/*
 * cli/policy.c - `locus policy show [--preset NAME | --policy FILE]
 * [--claude-settings FILE] [--compact]`: print the effective policy as JSON.
 * Also the policy loading shared with `locus gate`.
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
#include "../util/read.h"

int cli_read_file(const char *path, size_t max, char **out, size_t *len)
{
	int rc = lu_read_path(path, max, out, len);
	if (rc > 0)
		errno = EFBIG;
	return rc ? -1 : 0;
}

int cli_policy_build(const char *policy_file, const char *preset,
                     const char *claude_file, locus_policy **out)
{
	*out = NULL;
	locus_error err;
	memset(&err, 0, sizeof(err));
	locus_policy *p = NULL;
	int rc;
	if (policy_file && preset) {
		fprintf(stderr,
		        "locus: --policy and --preset exclude each other\n");
		return 2;
	}
	if (policy_file) {
		rc = locus_policy_load_file(&p, policy_file, &err);
		if (rc) {
			/* the message names the path when the file could not
			   be read; else it is about its content */
			size_t pl = strlen(policy_file);
			bool named = !strncmp(err.message, policy_file, pl) &&
			             err.message[pl] == ':';
			fprintf(stderr, "locus%s%s: --policy %s%s%s\n",
			        *cli_command() ? " " : "", cli_command(),
			        named ? "" : policy_file, named ? "" : ": ",
			        err.message);
			return 2;
		}
	} else {
		rc =
		    locus_policy_preset(&p, preset ? preset : "standard", &err);
		if (rc) {
			fprintf(stderr, "locus: %s\n", err.message);
			return 2;
		}
	}
	if (claude_file && cli_add_claude_settings(p, claude_file, false)) {
		locus_policy_free(p);
		return 2;
	}
	*out = p;
	return 0;
}

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
	    CLI_OPT_CLAUDE(&claude, "policy"),
	    CLI_OPT_VALUE("--preset", &preset),
	    CLI_OPT_VALUE("--policy", &policy_file),
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
