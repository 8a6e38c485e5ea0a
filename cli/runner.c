/*
 * cli/runner.c - `locus runner`: the box runner (runner/runner.h,
 * docs/runner.md).  Everything comes from the environment; there are no
 * options.  Exit status: 0 done, parked or stopped; 2 refused; 1 error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "runner/runner.h"

static char *copy_env(const char *name, const char *def)
{
	const char *v = getenv(name);
	return strdup(v ? v : def ? def : "");
}

int cli_runner(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		bool help =
		    !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
		fprintf(
		    help ? stdout : stderr,
		    "usage: locus runner\n\n"
		    "Runs one agent for one run inside a sandbox, under the "
		    "gateway at\nLOCUS_ADMIT_URL (token LOCUS_ADMIT_TOKEN, run "
		    "LOCUS_RUN_ID); the box is\nLOCUS_RUNNER_ROOT (default "
		    "/sandbox).  See docs/runner.md.\n"
		    "Exit status: 0 done, parked or stopped; 2 refused; 1 "
		    "error.\n");
		return help ? 0 : 2;
	}
	char *url = copy_env("LOCUS_ADMIT_URL", NULL);
	char *token = copy_env("LOCUS_ADMIT_TOKEN", NULL);
	char *run = copy_env("LOCUS_RUN_ID", NULL);
	char *root = copy_env("LOCUS_RUNNER_ROOT", "/sandbox");
	char *state = copy_env("LOCUS_RUNNER_STATE_DIR", ".locus");
	const char *h = getenv("LOCUS_RUNNER_HARDEN");
	if (!url || !token || !run || !root || !state) {
		fprintf(stderr, "locus runner: out of memory\n");
		return 1;
	}
	if (h && *h && strcmp(h, "non-dumpable")) {
		fprintf(stderr, "locus runner: LOCUS_RUNNER_HARDEN must be "
		                "non-dumpable or unset\n");
		return 1;
	}
	lr_env env = {.url = url,
	              .token = token,
	              .run_id = run,
	              .root = root,
	              .state_dir = state,
	              .harden = h && *h};
	int code = lr_main(&env);
	explicit_bzero(token, strlen(token));
	if (code == LR_EXIT_ERROR)
		fprintf(stderr,
		        "locus runner: the run failed or the gateway "
		        "could not be used (see %s/%s/runner.log)\n",
		        root, state);
	else if (code == LR_EXIT_REFUSED)
		fprintf(stderr,
		        "locus runner: the run was refused (see "
		        "%s/%s/runner.log)\n",
		        root, state);
	free(url);
	free(token);
	free(run);
	free(root);
	free(state);
	return code;
}
