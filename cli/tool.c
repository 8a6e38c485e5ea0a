/*
 * cli/tool.c - `locus tool`: call harness tools through the policy gate.
 *
 *   locus tool NAME 'JSON' [--root DIR]
 *              [--backend bwrap|local|memory|oci|openshell]
 *              [--policy FILE | --preset NAME] [--no-read-check]
 *              [--oci-*, --bwrap-uid/--bwrap-gid options: cli/backend.c]
 *   locus tool - [options]      one {"tool":..., "arguments":{...}} per
 *                               stdin line, one result line each:
 *                               {"tool":..., "is_error":..., "output":...}
 *
 * The backend is the bwrap sandbox unless --backend names another; where
 * bwrap cannot start, locus tool refuses (exit 2) and says that --backend
 * local runs commands on the host, unconfined: it never falls back.
 * The gate is the policy (default preset "standard"); a call it holds for a
 * person is refused (there is nobody to ask).  The harness lives for the
 * whole run, so `-` can read a file and then edit it.  With NAME, the
 * result text (a refusal JSON for a refused call) goes to stdout.  Exit status: 0 the call(s) succeeded,
 * 1 a tool refused or failed, 2 usage error or a bad policy.
 *
 * SIGTERM, SIGINT, SIGHUP: the running call is cancelled (its command's
 * tree killed), no further line is read, the harness and the backend are
 * freed (the LocalBackend's locus-harness-* state folder, the bwrap
 * session's locus-bwrap-* transfer folder and a partial download go with
 * them), and locus then dies of the same signal.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "agents/hook.h"
#include "locus/harness.h"
#include "policy_cli.h"
#include "../util/json.h"

/* The signal that ends the run (0: none yet), and the call it cancels. */
static volatile sig_atomic_t g_signal;
static locus_call_ctl g_ctl = LOCUS_CALL_CTL_INIT;

static void on_signal(int sig)
{
	g_signal = sig;
	locus_call_cancel(&g_ctl); /* async-signal-safe */
}

static void catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: a read of stdin returns */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static void warn(const char *m, void *p)
{
	(void)p;
	fprintf(stderr, "locus tool: warning: %s\n", m);
}

static void usage_to(FILE *f)
{
	fprintf(f,
	        "usage: locus tool NAME 'JSON' [--root DIR] [--backend "
	        "bwrap|local|memory|oci|openshell]\n"
	        "                  (default bwrap; local: a host shell, "
	        "unconfined)\n"
	        "                  [--policy FILE | --preset NAME] "
	        "[--no-read-check]\n"
	        "       locus tool - [options]   (JSON lines on stdin)\n"
	        "  local: [--base-env NAME,NAME...] (commands get only these "
	        "variables)\n"
	        "  bwrap: [--bwrap-uid UID] [--bwrap-gid GID] (as root: the "
	        "sandbox's host user)\n"
	        "  oci: --oci-sandbox ID | --oci-create PROJECT_OCID "
	        "[--oci-region R]\n"
	        "       [--oci-profile NAME] [--oci-config FILE] "
	        "[--oci-endpoint URL]\n"
	        "       [--oci-ca FILE] [--oci-routes FILE] "
	        "[--oci-stream sse|ndjson]\n"
	        "       [--oci-expiration PT1H] [--oci-shape SMALL]\n"
	        "       [--oci-data text|base64] "
	        "[--oci-expiry-field duration|minutes] (docs/backends.md)\n"
	        "  openshell (docs/openshell.md):\n%s",
	        cli_openshell_usage);
}

static int usage(void)
{
	usage_to(stderr);
	return 2;
}

static int run_lines(locus_harness *h)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int status = 0;
	while (!g_signal && (n = getline(&line, &cap, stdin)) > 0) {
		cJSON *in = NULL;
		lu_json_read(&in, line, (size_t)n, NULL, NULL);
		cJSON *t = cJSON_GetObjectItemCaseSensitive(in, "tool");
		cJSON *a = cJSON_GetObjectItemCaseSensitive(in, "arguments");
		cJSON *res = cJSON_CreateObject();
		if (!cJSON_IsString(t) || (a && !cJSON_IsObject(a))) {
			cJSON_AddStringToObject(res, "error",
			                        "expected {\"tool\":NAME,"
			                        "\"arguments\":{...}}");
			status = 2;
		} else {
			char *args = a ? cJSON_PrintUnformatted(a) : NULL;
			char *out = NULL;
			bool is_err = true;
			locus_error err = {0};
			int rc = locus_harness_call_ctl(
			    &out, &is_err, h, t->valuestring, args,
			    args ? strlen(args) : 0, &g_ctl, &err);
			cJSON_AddStringToObject(res, "tool", t->valuestring);
			cJSON_AddBoolToObject(res, "is_error", rc || is_err);
			cJSON_AddStringToObject(res, "output",
			                        rc ? err.message : out);
			if ((rc || is_err) && status == 0)
				status = 1;
			locus_free(out);
			cJSON_free(args);
		}
		char *o = cJSON_PrintUnformatted(res);
		if (o)
			printf("%s\n", o);
		free(o);
		cJSON_Delete(res);
		cJSON_Delete(in);
		fflush(stdout);
	}
	free(line);
	return status;
}

/* The backend named by --backend (and the OCI/OpenShell options): 0, a
   LOCUS_E* code, or 1 for a name that is no backend (usage). */
static int open_backend(cli_backend_opts *bo, const char *backend,
                        const char *root, locus_backend **b, locus_error *err)
{
	int rc = cli_bwrap_check(bo, backend, err);
	if (rc)
		return rc; /* a --bwrap-* option with another backend */
	if (bo->any_oci || bo->os.seen || !strcmp(backend, "oci") ||
	    !strcmp(backend, "openshell"))
		return cli_backend_open(bo, backend, b, err);
	if (!strcmp(backend, "local"))
		return cli_local_open(bo, root, b, err);
	if (bo->base_env)
		return cli_local_open(bo, NULL, b, err);
	if (!strcmp(backend, "memory"))
		return locus_backend_memory_new(b, err);
	if (!strcmp(backend, "bwrap"))
		return cli_bwrap_open(bo, root, b, err);
	return 1;
}

int cli_tool(int argc, char **argv)
{
	const char *name = NULL, *json = NULL, *root = ".", *backend = NULL;
	const char *policy_file = NULL, *preset = NULL;
	bool no_read = false;
	cli_backend_opts bo;
	cli_backend_init(&bo);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int f = cli_backend_flag(&bo, argc, argv, &i);
		if (f < 0)
			return usage();
		if (f > 0)
			continue;
		if (!strcmp(a, "--root") && i + 1 < argc)
			root = argv[++i];
		else if (!strcmp(a, "--backend") && i + 1 < argc)
			backend = argv[++i];
		else if (!strcmp(a, "--policy") && i + 1 < argc)
			policy_file = argv[++i];
		else if (!strcmp(a, "--preset") && i + 1 < argc)
			preset = argv[++i];
		else if (!strcmp(a, "--no-read-check"))
			no_read = true;
		else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage_to(stdout);
			return 0;
		} else if (a[0] == '-' && a[1] == '-')
			return usage();
		else if (!name)
			name = a;
		else if (!json)
			json = a;
		else
			return usage();
	}
	if (!name || (strcmp(name, "-") && !json) ||
	    (!strcmp(name, "-") && json))
		return usage();
	bool chosen = backend != NULL;
	if (!chosen)
		backend = CLI_DEFAULT_BACKEND;
	locus_policy *pol = NULL;
	if (cli_policy_build(policy_file, preset, NULL, &pol))
		return 2;
	locus_backend *b = NULL;
	locus_error err = {0};
	catch_signals();
	int rc = open_backend(&bo, backend, root, &b, &err);
	if (rc == 1) {
		locus_policy_free(pol);
		return usage();
	}
	if (rc) {
		fprintf(stderr, "locus tool: %s\n", err.message);
		if (!chosen && !bo.base_env && rc != LOCUS_EINVALID &&
		    rc != LOCUS_EUSAGE)
			fprintf(stderr, "locus tool: %s\n",
			        CLI_BWRAP_DEFAULT_FAILED);
		locus_policy_free(pol);
		return 2;
	}
	char *real = realpath(root, NULL);
	locus_policy_wrap gate = LOCUS_POLICY_WRAP_INIT;
	gate.policy = pol;
	/* a sandbox's paths are its own, not the host's */
	gate.workspace_root =
	    strcmp(backend, "oci") && strcmp(backend, "openshell") ? real
	                                                           : b->root;
	locus_harness_config cfg = LOCUS_HARNESS_CONFIG_INIT;
	cfg.allow_unread_edits = no_read;
	cfg.on_warning = warn;
	locus_harness *h = NULL;
	rc = locus_harness_new(
	    &h, b, locus_all_tools[0] && b->can_exec ? locus_all_tools : NULL,
	    hook_policy_wrap, &gate, &cfg, &err);
	int status = 2;
	if (rc) {
		fprintf(stderr, "locus tool: %s\n", err.message);
	} else if (!strcmp(name, "-")) {
		status = run_lines(h);
	} else {
		char *out = NULL;
		bool is_err = true;
		rc = locus_harness_call_ctl(&out, &is_err, h, name, json,
		                            json ? strlen(json) : 0, &g_ctl,
		                            &err);
		if (rc) {
			fprintf(stderr, "locus tool: %s\n", err.message);
			status = 2;
		} else {
			/* the result is the result, refused or not: the
			   exit status tells them apart */
			fputs(out, stdout);
			if (*out && out[strlen(out) - 1] != '\n')
				fputc('\n', stdout);
			status = is_err ? 1 : 0;
		}
		locus_free(out);
	}
	locus_harness_free(h);
	locus_backend_free(b);
	locus_policy_free(pol);
	free(real);
	if (g_signal) {
		/* cleaned up: now die of it, as the sender expects */
		fflush(stdout);
		signal(g_signal, SIG_DFL);
		raise(g_signal);
	}
	return status;
}
