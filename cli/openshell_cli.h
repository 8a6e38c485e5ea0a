/*
 * cli/openshell_cli.h - the --openshell-* options shared by `locus tool`
 * and `locus mcp` (docs/openshell.md).
 *
 *   --backend openshell --openshell-endpoint HOST:PORT
 *   (--openshell-sandbox ID | --openshell-create NAME)
 *   [--openshell-workspace WS] [--openshell-image IMAGE]
 *   [--openshell-token-env VAR]
 *   [--openshell-ca FILE --openshell-cert FILE --openshell-key FILE]
 */
#ifndef LOCUS_CLI_OPENSHELL_H
#define LOCUS_CLI_OPENSHELL_H

#include "locus/harness.h"

typedef struct cli_openshell {
	locus_openshell_options o;
	const char *token_env; /* the variable holding the bearer token */
	bool seen;             /* any --openshell-* option was given */
} cli_openshell;

#define CLI_OPENSHELL_INIT                                                     \
	{                                                                      \
		LOCUS_OPENSHELL_OPTIONS_INIT, NULL, false                      \
	}

/* Usage lines for the options (for a usage message). */
extern const char cli_openshell_usage[];

/*
 * If argv[*i] is an --openshell-* option, take it and its value (advancing
 * *i) and return 1; 0 when it is not one; -1 when its value is missing.
 */
int cli_openshell_arg(cli_openshell *c, int argc, char **argv, int *i);

/*
 * Build the backend (err says why not: a missing option, or the
 * backend's own error).  The token is read from the environment here and
 * never printed.
 */
int cli_openshell_backend(cli_openshell *c, locus_backend **out,
                          locus_error *err);

#endif
