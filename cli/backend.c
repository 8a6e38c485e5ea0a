/*
 * cli/backend.c - the cloud sandbox backends' command-line options, shared
 * by `locus tool` and `locus mcp`:
 *
 *   --backend oci  --oci-sandbox ID | --oci-create PROJECT_OCID
 *       [--oci-region R] [--oci-profile NAME] [--oci-config FILE]
 *       [--oci-endpoint URL] [--oci-ca FILE] [--oci-routes FILE]
 *       [--oci-stream sse|ndjson] [--oci-expiration PT1H]
 *       [--oci-shape SMALL|MEDIUM|LARGE] [--oci-data text|base64]
 *       [--oci-expiry-field duration|minutes]
 *
 *   --backend openshell  (the --openshell-* options of cli/openshell_cli.c)
 *
 *   --backend bwrap  (the default of both; where it cannot start they
 *       refuse, never falling back to local: CLI_BWRAP_DEFAULT_FAILED)
 *       [--bwrap-uid UID] [--bwrap-gid GID]: the host user the
 *       sandbox runs as when locus runs as root (never 0; default: the
 *       workspace's owner when not root, else 65534)
 *
 * docs/backends.md explains each (OpenShell: docs/openshell.md).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct {
	const char *flag;
	size_t off;
} oci_flags[] = {
    {"--oci-sandbox", offsetof(locus_oci_options, sandbox_id)},
    {"--oci-create", offsetof(locus_oci_options, create_project)},
    {"--oci-region", offsetof(locus_oci_options, region)},
    {"--oci-profile", offsetof(locus_oci_options, profile)},
    {"--oci-config", offsetof(locus_oci_options, config_file)},
    {"--oci-endpoint", offsetof(locus_oci_options, endpoint)},
    {"--oci-ca", offsetof(locus_oci_options, ca_file)},
    {"--oci-routes", offsetof(locus_oci_options, routes_file)},
    {"--oci-stream", offsetof(locus_oci_options, stream)},
    {"--oci-expiration", offsetof(locus_oci_options, expiration)},
    {"--oci-shape", offsetof(locus_oci_options, shape)},
};

void cli_backend_init(cli_backend_opts *o)
{
	locus_oci_options def = LOCUS_OCI_OPTIONS_INIT;
	cli_openshell os = CLI_OPENSHELL_INIT;
	locus_bwrap_options bw = LOCUS_BWRAP_OPTIONS_INIT;
	memset(o, 0, sizeof *o);
	o->oci = def;
	o->os = os;
	o->bwrap = bw;
}

/* --bwrap-uid N / --bwrap-gid N: a decimal id (0 is refused by
   cli_bwrap_check: in the library's options 0 means "the default user"). */
static int bwrap_flag(cli_backend_opts *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	bool uid = !strcmp(a, "--bwrap-uid");
	if (!uid && strcmp(a, "--bwrap-gid"))
		return 0;
	if (*i + 1 >= argc)
		return -1;
	char *end;
	const char *v = argv[*i + 1];
	long n = strtol(v, &end, 10);
	if (!*v || *end || n < 0 || n > 2147483647L)
		return -1;
	if (uid)
		o->bwrap.uid = n;
	else
		o->bwrap.gid = n;
	o->any_bwrap = true;
	*i += 1;
	return 1;
}

int cli_bwrap_check(const cli_backend_opts *o, const char *backend,
                    locus_error *err)
{
	if (o->any_bwrap && (o->bwrap.uid == 0 || o->bwrap.gid == 0)) {
		snprintf(err->message, sizeof err->message,
		         "the bwrap sandbox never runs as host uid or gid 0: "
		         "choose an unprivileged one");
		return err->code = LOCUS_EINVALID;
	}
	if (!o->any_bwrap || !strcmp(backend, "bwrap"))
		return 0;
	snprintf(err->message, sizeof err->message,
	         "--bwrap-uid and --bwrap-gid need --backend bwrap");
	return err->code = LOCUS_EINVALID;
}

int cli_bwrap_open(const cli_backend_opts *o, const char *root,
                   locus_backend **out, locus_error *err)
{
	*out = NULL;
	locus_session *s = NULL;
	int rc = locus_session_bwrap_new_opts(&s, root, &o->bwrap, err);
	if (!rc)
		rc = locus_backend_session_new(out, s, "/workspace",
		                               "bwrap sandbox", true, err);
	return rc;
}

int cli_local_open(const cli_backend_opts *o, const char *real,
                   locus_backend **out, locus_error *err)
{
	*out = NULL;
	if (!real) {
		snprintf(err->message, sizeof err->message,
		         "--base-env is for the local backend (a sandbox "
		         "starts from a clean environment)");
		err->code = LOCUS_EINVALID;
		return LOCUS_EINVALID;
	}
	locus_local_options lo = LOCUS_LOCAL_OPTIONS_INIT;
	if (!o->base_env)
		return locus_backend_local_new_opts(out, real, NULL, &lo, err);
	/* the names, split in a copy; the backend keeps the values */
	char *copy = strdup(o->base_env);
	size_t n = 1;
	for (const char *c = o->base_env; *c; c++)
		n += *c == ',';
	const char **list = copy ? calloc(n + 1, sizeof *list) : NULL;
	int rc = LOCUS_ENOMEM;
	if (list) {
		size_t k = 0;
		for (char *t = strtok(copy, ","); t; t = strtok(NULL, ","))
			list[k++] = t;
		lo.base_env = list;
		rc = locus_backend_local_new_opts(out, real, NULL, &lo, err);
	} else {
		snprintf(err->message, sizeof err->message, "out of memory");
	}
	free(list);
	free(copy);
	return rc;
}

int cli_backend_flag(cli_backend_opts *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	if (!strcmp(a, "--base-env")) {
		if (*i + 1 >= argc || o->base_env)
			return -1;
		*i += 1;
		o->base_env = argv[*i];
		return 1;
	}
	int os = cli_openshell_arg(&o->os, argc, argv, i);
	if (os)
		return os;
	int bw = bwrap_flag(o, argc, argv, i);
	if (bw)
		return bw;
	if (strncmp(a, "--oci-", 6) != 0)
		return 0;
	if (*i + 1 >= argc)
		return -1;
	const char *v = argv[*i + 1];
	for (size_t k = 0; k < sizeof oci_flags / sizeof oci_flags[0]; k++)
		if (!strcmp(a, oci_flags[k].flag)) {
			*(const char **)((char *)&o->oci + oci_flags[k].off) =
			    v;
			o->any_oci = true;
			*i += 1;
			return 1;
		}
	if (!strcmp(a, "--oci-data") &&
	    (!strcmp(v, "text") || !strcmp(v, "base64"))) {
		o->oci.data_base64 = !strcmp(v, "base64");
	} else if (!strcmp(a, "--oci-expiry-field") &&
	           (!strcmp(v, "duration") || !strcmp(v, "minutes"))) {
		o->oci.expires_in_minutes = !strcmp(v, "minutes");
	} else {
		return -1;
	}
	o->any_oci = true;
	*i += 1;
	return 1;
}

int cli_backend_open(const cli_backend_opts *o, const char *backend,
                     locus_backend **out, locus_error *err)
{
	*out = NULL;
	if (o->os.seen && strcmp(backend, "openshell")) {
		snprintf(err->message, sizeof err->message,
		         "--openshell-* options need --backend openshell");
		return err->code = LOCUS_EINVALID;
	}
	if (!strcmp(backend, "openshell")) {
		cli_openshell os = o->os; /* the token is filled in a copy */
		return cli_openshell_backend(&os, out, err);
	}
	if (o->any_oci && strcmp(backend, "oci")) {
		snprintf(err->message, sizeof err->message,
		         "--oci-* options need --backend oci");
		return err->code = LOCUS_EINVALID;
	}
	if (!o->oci.sandbox_id == !o->oci.create_project) {
		snprintf(err->message, sizeof err->message,
		         "--backend oci needs --oci-sandbox ID or --oci-create "
		         "PROJECT_OCID");
		return err->code = LOCUS_EINVALID;
	}
	int rc = locus_backend_oci_new(out, NULL, &o->oci, err);
	if (rc) {
		char m[sizeof err->message];
		snprintf(m, sizeof m, "OCI sandbox: %s", err->message);
		memcpy(err->message, m, sizeof m);
	}
	return rc;
}
