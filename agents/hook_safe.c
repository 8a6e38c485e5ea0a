/*
 * agents/hook_safe.c - "known safe": the only calls `locus hook` answers with
 * `allow` (docs/integrations.md, "Never more permissive than the agent").
 *
 * An `allow` from a hook skips the agent's own permission prompt, so it is
 * given only when locus positively knows the call is harmless:
 *
 *   - an explicit permission allow rule (the user's own) covered it, or
 *   - it is read-only (kind workspace.read, no exec:* tag, not labelled
 *     outside-workspace) and every path it names stays inside the
 *     workspace root: file tools' path fields, and for a shell line every
 *     word that looks like a path, every input redirect, every `cd`.
 *
 * Paths are collapsed lexically ("a/../b"); when the path exists it is
 * also resolved with realpath(3), so a symlink inside the workspace that
 * points out of it is outside.  Anything this file cannot judge (a word
 * known only at run time, `~`, an option with a path glued to it, a
 * command it cannot parse) is not known safe: the agent then decides.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook.h"
#include "../util/path.h"
#include "locus/shell.h"

/* Is `p` equal to `root` or below it?  Both collapsed absolute paths. */
static bool under(const char *root, const char *p)
{
	size_t rl = strlen(root);
	if (rl == 1)
		return true; /* root "/" */
	return strncmp(p, root, rl) == 0 && (p[rl] == '\0' || p[rl] == '/');
}

/*
 * Does path `p` (absolute, or relative to `base`) stay inside `root`?
 * `resolve`: also follow symlinks when the path exists.
 */
static bool path_inside(const char *root, const char *base, const char *p,
                        bool resolve)
{
	if (!root || !p[0] || p[0] == '~')
		return false;
	char *joined = NULL;
	if (p[0] == '/') {
		joined = strdup(p);
	} else {
		size_t n = strlen(base) + strlen(p) + 2;
		joined = malloc(n);
		if (joined)
			snprintf(joined, n, "%s/%s", base, p);
	}
	char *abs = joined ? lu_path_collapse(joined, NULL) : NULL;
	char *rt = lu_path_collapse(root, NULL);
	bool ok = abs && rt && under(rt, abs);
	if (ok && resolve) {
		char real[PATH_MAX], realroot[PATH_MAX];
		/* a path that does not exist reads nothing; one that does is
		   judged where it really is */
		if (realpath(abs, real)) {
			if (!realpath(rt, realroot))
				ok = false;
			else
				ok = under(realroot, real);
		} else if (errno != ENOENT && errno != ENOTDIR) {
			ok = false; /* it may exist where we cannot see */
		}
	}
	free(joined);
	free(abs);
	free(rt);
	return ok;
}

/* Does any '/'-separated segment of `w` equal ".."? */
static bool has_dotdot(const char *w)
{
	for (const char *s = w; *s;) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n == 2 && s[0] == '.' && s[1] == '.')
			return true;
		s += n;
		if (*s == '/')
			s++;
	}
	return false;
}

/* One value that may be a path: every word is judged as one (a word that
 * is not a path names nothing that exists, so it stays inside; one that
 * exists is judged where it really is: `ls outlink` with outlink -> /etc
 * lists /etc). */
static bool value_ok(const char *root, const char *base, const char *v)
{
	if (!v[0])
		return true;
	if (v[0] == '~')
		return false;
	return path_inside(root, base, v, true);
}

/* One argv word of a read-only command. */
static bool word_ok(const char *root, const char *base, const char *w)
{
	const char *eq = strchr(w, '=');
	if (w[0] == '-') {
		/* --file=PATH: the value is judged; -fPATH with a slash glued
		   to a short option cannot be told apart: not known safe */
		if (eq)
			return value_ok(root, base, eq + 1);
		return !strchr(w, '/') && !strchr(w, '~');
	}
	if (eq && !value_ok(root, base, eq + 1))
		return false;
	return value_ok(root, base, w);
}

/* A glob word names what it expands to: every match must stay inside
 * (`cat out*' with out -> /etc).  Expanded here as bash would, relative to
 * `base`; too many matches is not known safe. */
static bool glob_ok(const char *root, const char *base, const char *w)
{
	if (w[0] == '/' || w[0] == '~')
		return false; /* judged by word_ok already; be plain */
	char pat[PATH_MAX];
	if ((size_t)snprintf(pat, sizeof(pat), "%s/%s", base, w) >= sizeof(pat))
		return false;
	glob_t g;
	int rc = glob(pat, GLOB_NOSORT, NULL, &g);
	if (rc == GLOB_NOMATCH)
		return true; /* bash passes the word as written */
	bool ok = rc == 0 && g.gl_pathc <= 10000;
	for (size_t i = 0; ok && i < g.gl_pathc; i++)
		ok = path_inside(root, root, g.gl_pathv[i], true);
	if (rc == 0)
		globfree(&g);
	return ok;
}

static bool is_dir_change(const char *name)
{
	return !strcmp(name, "cd") || !strcmp(name, "pushd") ||
	       !strcmp(name, "popd");
}

static bool redirect_ok(const char *root, const char *base,
                        const locus_shell_redirect *r)
{
	const char *op = r->op;
	if (!strcmp(op, "<<") || !strcmp(op, "<<-") || !strcmp(op, "<<<"))
		return true; /* the text is on the line */
	if (r->target_flags & LOCUS_WORD_DYNAMIC)
		return false;
	const char *t = r->target;
	if (!strcmp(t, "-") || strspn(t, "0123456789") == strlen(t))
		return true; /* an fd duplication or close */
	if (!strcmp(t, "/dev/null"))
		return true;
	return value_ok(root, base, t);
}

static bool command_ok(const char *root, const char *base,
                       const locus_shell_command *c)
{
	if (c->flags & (LOCUS_CMD_DYNAMIC | LOCUS_CMD_DYNAMIC_ARGS))
		return false;
	for (size_t i = 0; i < c->nassignments; i++) {
		const char *eq = strchr(c->assignments[i], '=');
		if (eq && !value_ok(root, base, eq + 1))
			return false;
	}
	for (size_t i = 0; i < c->nredirects; i++)
		if (!redirect_ok(root, base, &c->redirects[i]))
			return false;
	if (c->argc == 0)
		return true;
	if (is_dir_change(c->name)) {
		/* `cd` alone goes home, `cd -` and popd somewhere earlier */
		if (strcmp(c->name, "popd") == 0 || c->argc != 2 ||
		    c->argv[1][0] == '-')
			return false;
		return path_inside(root, base, c->argv[1], true);
	}
	for (size_t i = 0; i < c->argc; i++) {
		if (!word_ok(root, base, c->argv[i]))
			return false;
		if (c->argv_flags && (c->argv_flags[i] & LOCUS_WORD_GLOB) &&
		    !glob_ok(root, base, c->argv[i]))
			return false;
	}
	return true;
}

static const char *str_field(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Gemini's run_shell_command runs in `dir_path` when given. */
static bool shell_ok(const hook_call *call, const char *root)
{
	const char *cmd = str_field(call->input, "command");
	if (!cmd)
		return false;
	const char *dir = str_field(call->input, "dir_path");
	char *base = NULL;
	if (dir) {
		if (!path_inside(root, root, dir, true))
			return false;
		size_t n = strlen(root) + strlen(dir) + 2;
		base = malloc(n);
		if (!base)
			return false;
		if (dir[0] == '/')
			snprintf(base, n, "%s", dir);
		else
			snprintf(base, n, "%s/%s", root, dir);
	}
	locus_shell_result *sh = locus_shell_parse(cmd, strlen(cmd), NULL);
	bool ok = sh && locus_shell_result_parsed(sh) &&
	          locus_shell_result_count(sh) > 0;
	for (size_t i = 0; ok && i < locus_shell_result_count(sh); i++) {
		const locus_shell_command *c =
		    locus_shell_result_command(sh, i);
		ok = c && command_ok(root, base ? base : root, c);
	}
	locus_shell_result_free(sh);
	free(base);
	return ok;
}

/* The path fields of the agents' file tools (Claude, Gemini, harness). */
/* clang-format off */
static const char *const path_fields[] = {
	"path", "file_path", "notebook_path", "absolute_path", "dir_path",
	NULL};
/* clang-format on */

static bool files_ok(const hook_call *call, const char *root, bool glob_tool)
{
	for (size_t i = 0; path_fields[i]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(
		    call->input, path_fields[i]);
		if (!v)
			continue;
		if (!cJSON_IsString(v) ||
		    !path_inside(root, root, v->valuestring, true))
			return false;
	}
	/* a Glob pattern may name its own root ("/etc/ *", "../x/ **"); a
	   Grep pattern is a regular expression, not a path */
	const char *pat = glob_tool ? str_field(call->input, "pattern") : NULL;
	if (pat && (pat[0] == '/' || pat[0] == '~' || has_dotdot(pat)) &&
	    !path_inside(root, root, pat, false))
		return false;
	const char *glob = str_field(call->input, "glob");
	if (glob && (glob[0] == '/' || glob[0] == '~' || has_dotdot(glob)))
		return false;
	/* no path field: these tools default to the working folder */
	return true;
}

bool hook_known_safe(const locus_decision *d, const hook_call *call,
                     const char *root, bool trust_rules)
{
	if (!d || locus_decision_outcome(d) != LOCUS_OUTCOME_ALLOW)
		return false;
	const char *perm = locus_decision_permission(d);
	if (trust_rules && perm && strcmp(perm, "allow") == 0)
		return true;
	if (!root || root[0] != '/')
		return false;
	if (!locus_decision_has_label(d, "workspace.read") ||
	    locus_decision_has_label(d, "outside-workspace"))
		return false;
	for (size_t i = 0; i < locus_decision_label_count(d); i++)
		if (strncmp(locus_decision_label(d, i), "exec:", 5) == 0)
			return false;
	const char *action = locus_decision_action(d);
	if (strcmp(action, "bash") == 0)
		return shell_ok(call, root);
	if (!strcmp(action, "read") || !strcmp(action, "ls") ||
	    !strcmp(action, "glob") || !strcmp(action, "grep"))
		return files_ok(call, root, strcmp(action, "glob") == 0);
	return false;
}
