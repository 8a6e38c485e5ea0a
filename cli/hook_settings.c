/*
 * cli/hook_settings.c - the policy a hook decides under: a preset or
 * policy file, plus the permission rules of Claude Code settings files,
 * either named (--claude-settings, several allowed) or found the way
 * Claude Code finds them for a project (--claude-project DIR).
 *
 * Claude Code merges the permission arrays of every settings source
 * (managed, user, project, local); a deny anywhere wins over an ask, an
 * ask over an allow.  So the order of the files does not change a
 * decision: the rules are a union with that precedence.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hook.h"
#include "policy_cli.h"

#define SETTINGS_MAX ((size_t)4 << 20)

/* The managed settings file of Claude Code on Linux. */
static const char managed_settings[] = "/etc/claude-code/managed-settings.json";

/* Add one settings file.  `optional`: a file that does not exist is
 * skipped.  0 or 2 (message printed). */
static int add_settings(locus_policy *p, const char *path, bool optional)
{
	char *buf;
	size_t len;
	if (cli_read_file(path, SETTINGS_MAX, &buf, &len)) {
		if (optional && errno == ENOENT)
			return 0;
		fprintf(stderr, "locus: %s: %s\n", path, strerror(errno));
		return 2;
	}
	locus_error err;
	memset(&err, 0, sizeof(err));
	int rc = locus_policy_add_claude_settings(p, buf, len, &err);
	free(buf);
	if (rc) {
		fprintf(stderr, "locus: %s: %s\n", path, err.message);
		return 2;
	}
	return 0;
}

static int add_project(locus_policy *p, const char *project)
{
	struct stat st;
	if (stat(project, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "locus: --claude-project %s: not a folder\n",
		        project);
		return 2;
	}
	const char *home = getenv("HOME");
	char path[4096];
	int rc = add_settings(p, managed_settings, true);
	if (!rc && home && home[0]) {
		snprintf(path, sizeof(path), "%s/.claude/settings.json", home);
		rc = add_settings(p, path, true);
	}
	static const char *const local[] = {".claude/settings.json",
	                                    ".claude/settings.local.json"};
	for (size_t i = 0; !rc && i < 2; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", project,
		                     local[i]) >= sizeof(path)) {
			fprintf(stderr, "locus: --claude-project: path too long\n");
			return 2;
		}
		rc = add_settings(p, path, true);
	}
	return rc;
}

int cli_policy_build_ex(const char *policy_file, const char *preset,
                        const char *const *settings, size_t nsettings,
                        const char *project, locus_policy **out)
{
	int rc = cli_policy_build(policy_file, preset, NULL, out);
	if (rc)
		return rc;
	for (size_t i = 0; !rc && i < nsettings; i++)
		rc = add_settings(*out, settings[i], false);
	if (!rc && project)
		rc = add_project(*out, project);
	if (rc) {
		locus_policy_free(*out);
		*out = NULL;
	}
	return rc;
}
