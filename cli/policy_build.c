/*
 * cli/policy_build.c - the policy a command decides under: a preset or
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

#include "cli.h"
#include "policy_cli.h"
#include "../util/read.h"

#define SETTINGS_MAX ((size_t)4 << 20)

/* The managed settings file of Claude Code on Linux. */
static const char managed_settings[] = "/etc/claude-code/managed-settings.json";

static void warn_stderr(void *ctx, const char *message)
{
	fprintf(stderr, "locus: %s: warning: %s\n", (const char *)ctx, message);
}

/*
 * The project a settings file belongs to: DIR for DIR/.claude/settings*.json
 * (so Claude's "/x" rules are DIR/x), none for the user's own
 * ~/.claude/settings.json or any other file (then the rules are read
 * against the workspace the call comes from).  Malloc'd or NULL.
 */
static char *project_of(const char *path)
{
	char *abs = realpath(path, NULL);
	if (!abs)
		return NULL;
	char *slash = strrchr(abs, '/');
	if (slash && slash > abs) {
		*slash = '\0';
		char *dir = strrchr(abs, '/');
		if (dir && strcmp(dir + 1, ".claude") == 0) {
			*dir = '\0';
			const char *home = getenv("HOME");
			char *h = home ? realpath(home, NULL) : NULL;
			bool user = h && strcmp(h, abs[0] ? abs : "/") == 0;
			free(h);
			if (!user) {
				if (!abs[0])
					strcpy(abs, "/");
				return abs;
			}
		}
	}
	free(abs);
	return NULL;
}

int cli_add_claude_settings(locus_policy *p, const char *path, bool optional)
{
	char *buf;
	size_t len;
	if (cli_read_file(path, SETTINGS_MAX, &buf, &len)) {
		if (optional && errno == ENOENT)
			return 0;
		fprintf(stderr, "locus: %s: %s\n", path, strerror(errno));
		return 2;
	}
	char *project = project_of(path);
	locus_claude_settings_options opts = LOCUS_CLAUDE_SETTINGS_OPTIONS_INIT;
	opts.project_root = project;
	opts.warn = warn_stderr;
	opts.warn_ctx = (void *)(uintptr_t)path;
	locus_error err;
	memset(&err, 0, sizeof(err));
	int rc =
	    locus_policy_add_claude_settings_opts(p, buf, len, &opts, &err);
	/* the settings file is one locus was started with: a write to it is
	   agent-config */
	if (!rc && locus_policy_protect_path(p, path))
		rc = LOCUS_ENOMEM;
	free(buf);
	free(project);
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
	int rc = cli_add_claude_settings(p, managed_settings, true);
	if (!rc && home && home[0]) {
		snprintf(path, sizeof(path), "%s/.claude/settings.json", home);
		rc = cli_add_claude_settings(p, path, true);
	}
	static const char *const local[] = {".claude/settings.json",
	                                    ".claude/settings.local.json"};
	for (size_t i = 0; !rc && i < 2; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", project,
		                     local[i]) >= sizeof(path)) {
			fprintf(stderr,
			        "locus: --claude-project: path too long\n");
			return 2;
		}
		rc = cli_add_claude_settings(p, path, true);
	}
	return rc;
}

int cli_audit_open(const char *cmd, const char *file, const char *key,
                   const char *workspace, unsigned flags, locus_audit **out)
{
	if (key && !file) {
		fprintf(stderr, "locus %s: --audit-key needs --audit FILE\n",
		        cmd);
		return 2;
	}
	if (!file)
		return 0;
	locus_error err;
	memset(&err, 0, sizeof(err));
	locus_audit_options ao = LOCUS_AUDIT_OPTIONS_INIT;
	ao.flags = flags;
	ao.key_path = key;
	ao.workspace = workspace;
	if (locus_audit_open_opts(out, file, &ao, &err)) {
		fprintf(stderr, "locus %s: %s\n", cmd, err.message);
		return 2;
	}
	return 0;
}

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

int cli_policy_build_ex(const char *policy_file, const char *preset,
                        const char *const *settings, size_t nsettings,
                        const char *project, locus_policy **out)
{
	int rc = cli_policy_build(policy_file, preset, NULL, out);
	if (rc)
		return rc;
	for (size_t i = 0; !rc && i < nsettings; i++)
		rc = cli_add_claude_settings(*out, settings[i], false);
	if (!rc && project)
		rc = add_project(*out, project);
	if (rc) {
		locus_policy_free(*out);
		*out = NULL;
	}
	return rc;
}

int cli_claude_flag(cli_claude_opts *o, const char *cmd, int argc, char **argv,
                    int *i)
{
	const char *a = argv[*i];
	if (*i + 1 >= argc)
		return 0;
	if (!strcmp(a, "--claude-project")) {
		o->project = argv[++*i];
		return 1;
	}
	if (strcmp(a, "--claude-settings"))
		return 0;
	if (o->nsettings == CLI_MAX_SETTINGS) {
		fprintf(stderr, "locus %s: at most %d --claude-settings\n", cmd,
		        CLI_MAX_SETTINGS);
		return 2;
	}
	o->settings[o->nsettings++] = argv[++*i];
	return 1;
}

int cli_policy_build_claude(const char *policy_file, const char *preset,
                            const cli_claude_opts *o, locus_policy **out)
{
	return cli_policy_build_ex(policy_file, preset, o->settings,
	                           o->nsettings, o->project, out);
}
