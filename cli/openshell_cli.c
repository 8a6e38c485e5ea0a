/*
 * cli/openshell_cli.c - the --openshell-* options (see openshell_cli.h).
 */
#include "openshell_cli.h"

#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_openshell_usage[] =
    "  --backend openshell --openshell-endpoint HOST:PORT\n"
    "    (--openshell-sandbox ID | --openshell-create NAME)\n"
    "    [--openshell-workspace WS] [--openshell-image IMAGE]\n"
    "    [--openshell-token-env VAR]\n"
    "    [--openshell-ca FILE --openshell-cert FILE --openshell-key FILE]\n";

int cli_openshell_arg(cli_openshell *c, int argc, char **argv, int *i)
{
	static const struct {
		const char *name;
		size_t off;
	} opts[] = {
	    {"--openshell-endpoint", offsetof(cli_openshell, o.endpoint)},
	    {"--openshell-sandbox", offsetof(cli_openshell, o.sandbox_id)},
	    {"--openshell-create", offsetof(cli_openshell, o.create_name)},
	    {"--openshell-workspace", offsetof(cli_openshell, o.workspace)},
	    {"--openshell-image", offsetof(cli_openshell, o.image)},
	    {"--openshell-token-env", offsetof(cli_openshell, token_env)},
	    {"--openshell-ca", offsetof(cli_openshell, o.ca_file)},
	    {"--openshell-cert", offsetof(cli_openshell, o.cert_file)},
	    {"--openshell-key", offsetof(cli_openshell, o.key_file)},
	};
	for (size_t k = 0; k < sizeof opts / sizeof *opts; k++) {
		if (strcmp(argv[*i], opts[k].name))
			continue;
		if (*i + 1 >= argc)
			return -1;
		*(const char **)((char *)c + opts[k].off) = argv[++*i];
		c->seen = true;
		return 1;
	}
	return 0;
}

__attribute__((format(printf, 2, 3))) static int usage_err(locus_error *err,
                                                           const char *fmt, ...)
{
	memset(err, 0, sizeof *err);
	err->code = LOCUS_EINVALID;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
	return LOCUS_EINVALID;
}

int cli_openshell_backend(cli_openshell *c, locus_backend **out,
                          locus_error *err)
{
	*out = NULL;
	if (!c->o.endpoint)
		return usage_err(err, "--backend openshell needs "
		                      "--openshell-endpoint HOST:PORT");
	if (!c->o.sandbox_id == !c->o.create_name)
		return usage_err(err, "give --openshell-sandbox ID or "
		                      "--openshell-create NAME (one of them)");
	if (!c->o.cert_file != !c->o.key_file)
		return usage_err(err, "--openshell-cert and --openshell-key "
		                      "go together");
	if (c->token_env) {
		const char *t = getenv(c->token_env);
		if (!t || !*t)
			return usage_err(err,
			                 "--openshell-token-env %s: the "
			                 "variable is not set",
			                 c->token_env);
		c->o.bearer_token = t;
	}
	return locus_backend_openshell_new(out, &c->o, err);
}
