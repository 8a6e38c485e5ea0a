/*
 * cli/runner.c - `locus runner`: the box runner (runner/runner.h,
 * docs/runner.md).  Everything comes from the environment; there are no
 * options.  Exit status: 0 done, parked or stopped; 2 refused; 1 error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "runner/runner.h"

static char *copy_env(const char *name, const char *def)
{
	const char *v = getenv(name);
	return strdup(v ? v : def ? def : "");
}

/* A parent runner passes a child run's token and placeholders through an
   inherited socket, LOCUS_ADMIT_TOKEN_FD (never in the exec environment,
   which /proc/<pid>/environ shows to the box's commands): NAME=VALUE
   strings, each ended by a NUL, up to EOF.  Read and closed first thing;
   the values become variables of this process (heap, not the initial
   block), which the runner takes and wipes like any other.  0, or -1 with
   the reason in *why. */
#define TOKEN_FD_MAX (64 << 10)
static int take_token_fd(const char **why)
{
	const char *v = getenv("LOCUS_ADMIT_TOKEN_FD");
	if (!v)
		return 0;
	char *end = NULL;
	long fd = strtol(v, &end, 10);
	struct stat st;
	*why = "LOCUS_ADMIT_TOKEN_FD does not name an inherited socket";
	if (end == v || *end || fd < 3 || fd > 65535 || fstat((int)fd, &st) ||
	    !S_ISSOCK(st.st_mode))
		return -1;
	char *buf = malloc(TOKEN_FD_MAX + 1);
	size_t len = 0;
	ssize_t n = 1;
	while (buf && len < TOKEN_FD_MAX &&
	       ((n = read((int)fd, buf + len, TOKEN_FD_MAX - len)) > 0 ||
	        (n < 0 && errno == EINTR)))
		len += n > 0 ? (size_t)n : 0;
	close((int)fd);
	unsetenv("LOCUS_ADMIT_TOKEN_FD");
	int rc = 0;
	*why = "LOCUS_ADMIT_TOKEN_FD: unreadable, too long or malformed";
	if (!buf || n < 0 || len >= TOKEN_FD_MAX || (len && buf[len - 1]))
		rc = -1;
	for (size_t i = 0; !rc && i < len; i += strlen(buf + i) + 1) {
		char *eq = strchr(buf + i, '=');
		if (!eq || eq == buf + i) {
			rc = -1;
			break;
		}
		*eq = 0;
		if (setenv(buf + i, eq + 1, 1))
			rc = -1;
		*eq = '=';
	}
	if (buf)
		explicit_bzero(buf, TOKEN_FD_MAX + 1);
	free(buf);
	if (!rc && !getenv("LOCUS_ADMIT_TOKEN"))
		rc = -1;
	return rc;
}

int cli_runner(int argc, char **argv)
{
	(void)argv;
	/* first of all: no ptrace, /proc/<pid>/mem or core dump by the box's
	   commands (same uid) from here on; the default, with no opt-out */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) {
		fprintf(stderr,
		        "locus runner: prctl(PR_SET_DUMPABLE) failed\n");
		return 1;
	}
	const char *why = NULL;
	if (take_token_fd(&why)) {
		fprintf(stderr, "locus runner: %s\n", why);
		return 1;
	}
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
	/* the environment the runner cannot start without, named before any
	   folder or log is made (a log under a missing root says nothing) */
	static const char *const needed[] = {
	    "LOCUS_ADMIT_URL", "LOCUS_ADMIT_TOKEN", "LOCUS_RUN_ID"};
	for (size_t i = 0; i < sizeof needed / sizeof *needed; i++) {
		const char *v = getenv(needed[i]);
		if (!v || !*v) {
			fprintf(stderr,
			        "locus runner: %s is unset (the runner takes "
			        "its run from the environment: locus runner "
			        "--help)\n",
			        needed[i]);
			return 1;
		}
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
	/* non-dumpable always (set above); LOCUS_RUNNER_HARDEN=non-dumpable is
	   accepted as the spec names it */
	lr_env env = {.url = url,
	              .token = token,
	              .run_id = run,
	              .root = root,
	              .state_dir = state,
	              .harden = true};
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
