/*
 * cli/policy_cli.h - helpers shared by `locus gate`, `locus policy` and the
 * policy corpus runner (cli/gate.c, cli/policy.c).
 */
#ifndef LOCUS_CLI_POLICY_H
#define LOCUS_CLI_POLICY_H

#include <stdbool.h>
#include <stdio.h>

#include "locus/policy.h"

/*
 * Build the effective policy: --policy FILE or --preset NAME (default
 * "standard"; both given is a usage error), then the rules of
 * --claude-settings FILE.  Prints a clear error naming the file and field
 * to stderr and returns 2 on failure; 0 on success.
 */
int cli_policy_build(const char *policy_file, const char *preset,
                     const char *claude_file, locus_policy **out);

/*
 * Add the permission rules of a Claude Code settings file, read as Claude
 * Code reads them (agents/hook_settings.c): warnings about skipped or
 * weakened rules go to stderr; "/x" rules of DIR/.claude/settings*.json
 * are relative to DIR.  `optional`: a file that does not exist is skipped.
 * 0, or 2 with a message on stderr.
 */
int cli_add_claude_settings(locus_policy *p, const char *path, bool optional);

/* Read a whole file (at most `max` bytes).  0, or -1 with errno set. */
int cli_read_file(const char *path, size_t max, char **out, size_t *len);

#endif
