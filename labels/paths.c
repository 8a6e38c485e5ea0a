/*
 * labels/paths.c - the one path classifier for every tool:
 * what a file tool's path names, with the same tables the shell rules
 * use (labels/packs_paths.c): a credential store (exec:secrets when read),
 * a file that makes programs run later (exec:persistence when written),
 * the configuration of a coding agent or of locus (agent-config when
 * written).
 *
 * The path is normalised before it is matched: joined to the workspace
 * root when relative, `//`, `.` and `..` folded (`.git//hooks`,
 * `.git/info/../hooks`, `./.git/./config`), and the symlinks the
 * workspace holds followed (a link `h -> .git/hooks` makes `h/pre-commit`
 * a hook): the deepest existing directory of the path is resolved with
 * realpath(3), and when it lies inside the root the resolved form is
 * matched too.  Both the path as written and its normal forms are
 * matched: a match on any of them counts (over-labelling is safe).
 */
#include <limits.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pack.h"

static uint32_t class_of(const char *p)
{
	uint32_t c = 0;
	if (pk_secret_path(p))
		c |= LL_PATH_SECRET;
	if (pk_persistence_path(p))
		c |= LL_PATH_PERSISTENCE;
	if (pk_agent_config_path(p))
		c |= LL_PATH_AGENT_CONFIG;
	return c;
}

/* The part of abs under root ("" for the root itself), or NULL. */
static const char *under_root(const char *abs, const char *root)
{
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (strncmp(abs, root, n) != 0)
		return NULL;
	if (abs[n] == '\0')
		return abs + n;
	if (abs[n] == '/' || n == 1)
		return abs + n + (abs[n] == '/');
	return NULL;
}

/* abs with the deepest existing directory resolved by realpath(3), into
   out; false when nothing resolves or it does not fit. */
static bool resolve_links(const char *abs, char *out, size_t cap)
{
	char dir[PATH_MAX];
	size_t n = strlen(abs);
	if (n >= sizeof dir)
		return false;
	memcpy(dir, abs, n + 1);
	for (;;) {
		char real[PATH_MAX];
		if (realpath(dir, real)) {
			const char *rest = abs + strlen(dir);
			int w =
			    snprintf(out, cap, "%s%s%s", real,
			             *rest && *rest != '/' ? "/" : "", rest);
			return w > 0 && (size_t)w < cap;
		}
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return false;
		*slash = '\0';
	}
}

uint32_t ll_path_class(const char *path, const char *root)
{
	if (!path || !*path)
		return 0;
	uint32_t c = class_of(path);
	char joined[PATH_MAX], norm[PATH_MAX], real[PATH_MAX];
	int w = path[0] == '/' || !root
	            ? snprintf(joined, sizeof joined, "%s", path)
	            : snprintf(joined, sizeof joined, "%s/%s", root, path);
	if (w < 0 || (size_t)w >= sizeof joined)
		return c;
	const char *n = ll_normal_path(joined, norm, sizeof norm);
	if (!n)
		return c;
	c |= class_of(n);
	const char *rel = root ? under_root(n, root) : NULL;
	if (rel && *rel)
		c |= class_of(rel);
	/* symlinks the workspace holds: only a link inside the root is
	   followed (outside it the path is outside-workspace anyway) */
	if (rel && resolve_links(n, real, sizeof real) && strcmp(real, n)) {
		c |= class_of(real);
		const char *rrel = under_root(real, root);
		if (rrel && *rrel)
			c |= class_of(rrel);
	}
	return c;
}

/* A `.git` component in a path relative to the root. */
static bool has_git_component(const char *rel)
{
	for (const char *p = rel; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 4 && !strncmp(p, ".git", 4))
			return true;
		p += n;
		while (*p == '/')
			p++;
	}
	return false;
}

bool ll_path_dir_inside(const char *rel, const char *root)
{
	if (!rel || !*rel || rel[0] == '/' || !root || root[0] != '/')
		return false;
	char joined[PATH_MAX], norm[PATH_MAX], real[PATH_MAX], rroot[PATH_MAX];
	int w = snprintf(joined, sizeof joined, "%s/%s", root, rel);
	if (w < 0 || (size_t)w >= sizeof joined)
		return false;
	/* a root that does not exist (yet) holds no link: as written */
	if (!realpath(root, rroot) &&
	    snprintf(rroot, sizeof rroot, "%s", root) >= (int)sizeof rroot)
		return false;
	const char *n = ll_normal_path(joined, norm, sizeof norm);
	if (!n || !under_root(n, root))
		return false;
	/* the directory holding the last component (rm removes a link, it
	   does not follow it) */
	char *slash = strrchr(norm, '/');
	if (!slash)
		return false;
	if (slash == norm)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (!resolve_links(norm, real, sizeof real))
		return false;
	const char *in = under_root(real, rroot);
	return in && !has_git_component(in);
}

bool ll_path_is_dir(const char *rel, const char *root)
{
	char joined[PATH_MAX];
	struct stat st;
	int w = snprintf(joined, sizeof joined, "%s/%s", root, rel);
	return w < 0 || (size_t)w >= sizeof joined ||
	       (lstat(joined, &st) == 0 && S_ISDIR(st.st_mode));
}
