/*
 * cli/policy_cli.h - the policy a command decides under (cli/policy_build.c):
 * a preset or policy file and the permission rules of Claude Code settings
 * files, with their options; shared by `locus gate`, `policy`, `hook`,
 * `mcp`, `audit transcripts`, `policy fuzz` and the policy corpus runner.
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
 * Code reads them (cli/policy_build.c): warnings about skipped or
 * weakened rules go to stderr; "/x" rules of DIR/.claude/settings*.json
 * are relative to DIR.  `optional`: a file that does not exist is skipped.
 * 0, or 2 with a message on stderr.
 */
int cli_add_claude_settings(locus_policy *p, const char *path, bool optional);

/*
 * Open the audit trail of --audit FILE (none without it) with --audit-key
 * KEY, `flags` (LOCUS_AUDIT_*) and the agent's `workspace` (NULL: the
 * working folder; a key must lie outside it) into *out: gate's and mcp's.
 * 0, or 2 after printing why as `locus CMD: ...` (a key without a file is
 * a usage error).
 */
int cli_audit_open(const char *cmd, const char *file, const char *key,
                   const char *workspace, unsigned flags, locus_audit **out);

/* Read a whole file (at most `max` bytes).  0, or -1 with errno set. */
int cli_read_file(const char *path, size_t max, char **out, size_t *len);

/*
 * cli/policy_build.c: the effective policy of a hook (or MCP) run:
 * --policy FILE or --preset NAME, then the permission rules of every
 * --claude-settings FILE (in order), then, with `project`, the settings
 * hierarchy Claude Code reads for that project (managed, user
 * ~/.claude/settings.json, DIR/.claude/settings.json,
 * DIR/.claude/settings.local.json; files that do not exist are skipped).
 * Prints a clear error to stderr and returns 2 on failure; 0 on success.
 */
int cli_policy_build_ex(const char *policy_file, const char *preset,
                        const char *const *settings, size_t nsettings,
                        const char *project, locus_policy **out);

/* The Claude Code settings options every policy-taking command accepts
   (locus hook, gate, policy show, mcp): --claude-settings FILE, up to
   CLI_MAX_SETTINGS times, and --claude-project DIR. */
#define CLI_MAX_SETTINGS 16

typedef struct cli_claude_opts {
	const char *settings[CLI_MAX_SETTINGS];
	size_t nsettings;
	const char *project;
} cli_claude_opts;

/*
 * argv[*i] when it is one of those options (its value taken, *i moved
 * past it): 1; 0 when it is not one of them; 2 when there are too many
 * --claude-settings (the error printed, naming `cmd`).
 */
int cli_claude_flag(cli_claude_opts *o, const char *cmd, int argc, char **argv,
                    int *i);

/* cli_policy_build_ex with those options. */
int cli_policy_build_claude(const char *policy_file, const char *preset,
                            const cli_claude_opts *o, locus_policy **out);

#endif
