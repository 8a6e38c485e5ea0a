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
 * a hook) by the one resolver below (ll_link_resolve: the file tools, the
 * rm rule and the shell's paths, labels/outside.c, use it).  Both the
 * path as written and where it really is are matched: a match on any of
 * them counts (over-labelling is safe).
 */
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pack.h"
#include "../util/str.h"

_Static_assert(LL_LINK_PATH >= PATH_MAX, "realpath(3) writes PATH_MAX bytes");

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

void ll_links_init(ll_links *l, const char *root)
{
	l->steps = LL_LINK_STEPS;
	l->have_real = false;
	l->real[0] = '\0';
	/* the walk starts at the root as given, folded (the kernel follows
	   the root's own links); its real path is looked up only for a link
	   whose absolute target names it */
	l->root = root && root[0] == '/' &&
	                  ll_normal_path(root, l->base, sizeof l->base)
	              ? l->base
	              : NULL;
}

/* The root's real path, looked up once (a root that does not exist yet
   holds no link: as given). */
static const char *real_root(ll_links *l)
{
	if (!l->have_real && !realpath(l->root, l->real))
		snprintf(l->real, sizeof l->real, "%s", l->root);
	l->have_real = true;
	return l->real;
}

/* todo = head "/" todo; false when it does not fit. */
static bool push_front(char *todo, size_t cap, const char *head)
{
	size_t hn = strlen(head), tn = strlen(todo);
	if (hn + 1 + tn + 1 > cap)
		return false;
	memmove(todo + hn + 1, todo, tn + 1);
	memcpy(todo, head, hn);
	todo[hn] = '/';
	return true;
}

/* a "/" b, folded (ll_normal_path) into out; false when it does not fit. */
static bool join_fold(const char *a, const char *b, char *out, size_t cap)
{
	char buf[2 * PATH_MAX];
	return lu_join_fits(buf, sizeof buf, a, b) &&
	       ll_normal_path(buf, out, cap);
}

/* The part of a link's absolute target under the root (its real path or
   the root as given), or NULL. */
static const char *target_in_root(ll_links *l, const char *t)
{
	const char *in = under_root(t, l->root);
	return in ? in : under_root(t, real_root(l));
}

/* One component `comp` (n bytes) appended to cur; false when it does not
   fit. */
static bool append(char *cur, size_t cap, const char *comp, size_t n)
{
	size_t cn = strlen(cur);
	bool slash = !(cn == 1 && cur[0] == '/');
	if (cn + slash + n + 1 > cap)
		return false;
	if (slash)
		cur[cn++] = '/';
	memcpy(cur + cn, comp, n);
	cur[cn + n] = '\0';
	return true;
}

/* The walk of ll_link_resolve: cur holds the real directory reached,
   todo what is left to walk.  `plain`: out is wanted even when no link
   was on the way (ll_path_links does not read it then: the fold is
   skipped). */
static int walk(ll_links *l, char *cur, char *todo, bool follow_last, char *out,
                size_t cap, bool plain)
{
	unsigned hops = 0;
	l->linked = false;
	for (;;) {
		const char *p = todo + strspn(todo, "/");
		if (!*p)
			break;
		size_t n = strcspn(p, "/");
		const char *rest = p + n;
		bool last = !rest[strspn(rest, "/")], slash_end = *rest;
		if (n == 2 && p[0] == '.' && p[1] == '.' &&
		    strcmp(cur, l->root) == 0)
			/* a `..` above the root: out of it (without a link
			   on the way, as written: the lexical rule's) */
			return l->linked && join_fold(cur, p, out, cap)
			           ? LL_LINK_OUTSIDE
			           : LL_LINK_NONE;
		size_t cn = strlen(cur);
		bool dot = n <= 2 && p[0] == '.' && (n == 1 || p[1] == '.');
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *s = strrchr(cur, '/');
			s[s == cur] = '\0';
		} else if (!(n == 1 && p[0] == '.') &&
		           !append(cur, PATH_MAX, p, n)) {
			return LL_LINK_NONE;
		}
		memmove(todo, rest, strlen(rest) + 1);
		if (dot)
			continue;
		if (last && !follow_last && !slash_end)
			break; /* `rm link` (not `rm -r link/`) */
		struct stat st;
		if (!l->steps)
			return LL_LINK_BUDGET;
		l->steps--;
		if (lstat(cur, &st) != 0)
			break; /* missing: the rest as written */
		if (S_ISDIR(st.st_mode))
			continue;
		if (!S_ISLNK(st.st_mode))
			break; /* a file: the rest as written */
		char t[PATH_MAX];
		ssize_t tn = readlink(cur, t, sizeof t - 1);
		if (++hops > LL_LINK_HOPS)
			return LL_LINK_LOOP; /* the kernel says ELOOP */
		if (tn <= 0)
			break;
		t[tn] = '\0';
		l->linked = true;
		cur[cn] = '\0'; /* back to the directory holding the link */
		if (t[0] == '/') {
			const char *in = target_in_root(l, t);
			if (!in)
				/* out of the root: judged where it points, not
				   followed further (nothing outside is read) */
				return join_fold(t, todo, out, cap)
				           ? LL_LINK_OUTSIDE
				           : LL_LINK_NONE;
			memcpy(cur, l->root, strlen(l->root) + 1);
			memmove(t, in, strlen(in) + 1);
		}
		if (!push_front(todo, PATH_MAX, t))
			return LL_LINK_NONE;
	}
	if (!plain && !l->linked)
		return LL_LINK_INSIDE; /* as written: out not wanted */
	return join_fold(cur, todo, out, cap) ? LL_LINK_INSIDE : LL_LINK_NONE;
}

static int resolve(ll_links *l, const char *abs, bool follow_last, char *out,
                   size_t cap, bool plain)
{
	if (!l->root || !abs || abs[0] != '/')
		return LL_LINK_NONE;
	/* a path under the root's real path but not under the root as given
	   is outside-workspace as written: not walked */
	const char *rel = under_root(abs, l->root);
	char cur[PATH_MAX], todo[PATH_MAX];
	if (!rel || strlen(rel) >= sizeof todo)
		return LL_LINK_NONE;
	memcpy(todo, rel, strlen(rel) + 1);
	memcpy(cur, l->root, strlen(l->root) + 1); /* base: < LL_LINK_PATH */
	return walk(l, cur, todo, follow_last, out, cap, plain);
}

int ll_link_resolve(ll_links *l, const char *abs, bool follow_last, char *out,
                    size_t cap)
{
	return resolve(l, abs, follow_last, out, cap, true);
}

/* The classes of abs (absolute, unfolded) as written: the word, its
   folded form and the folded form's part under the root. */
static uint32_t lexical_class(const char *abs, const char *root)
{
	char norm[PATH_MAX];
	uint32_t c = class_of(abs);
	const char *n = ll_normal_path(abs, norm, sizeof norm);
	if (!n)
		return c;
	c |= class_of(n);
	const char *rel = root ? under_root(n, root) : NULL;
	if (rel && *rel)
		c |= class_of(rel);
	return c;
}

uint32_t ll_path_links(ll_links *l, const char *abs, bool follow_last,
                       int *where)
{
	char real[PATH_MAX];
	int w = resolve(l, abs, follow_last, real, sizeof real, false);
	if (where)
		*where = w;
	/* no link on the way: where it is, is where it is written */
	if ((w != LL_LINK_INSIDE && w != LL_LINK_OUTSIDE) || !l->linked)
		return 0;
	uint32_t c = class_of(real);
	const char *rrel = under_root(real, l->root);
	if (rrel && *rrel)
		c |= class_of(rrel);
	return c ? c & ~lexical_class(abs, l->root) : 0;
}

uint32_t ll_path_class(const char *path, const char *root)
{
	if (!path || !*path)
		return 0;
	uint32_t c = class_of(path);
	char joined[PATH_MAX];
	if (!(path[0] == '/' || !root
	          ? lu_copy_fits(joined, sizeof joined, path, strlen(path))
	          : lu_join_fits(joined, sizeof joined, root, path)))
		return c;
	c |= lexical_class(joined, root);
	/* symlinks the workspace holds: only a path under the root is
	   followed (outside it the path is outside-workspace anyway) */
	if (root) {
		ll_links l;
		ll_links_init(&l, root);
		c |= ll_path_links(&l, joined, true, NULL);
	}
	return c;
}

bool ll_path_leaves(const char *path, const char *root)
{
	if (!path || !*path || !root)
		return false;
	char joined[PATH_MAX], real[PATH_MAX];
	if (!(path[0] == '/'
	          ? lu_copy_fits(joined, sizeof joined, path, strlen(path))
	          : lu_join_fits(joined, sizeof joined, root, path)))
		return false;
	ll_links l;
	ll_links_init(&l, root);
	int where = ll_link_resolve(&l, joined, true, real, sizeof real);
	return where == LL_LINK_OUTSIDE || where == LL_LINK_BUDGET;
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
	char joined[PATH_MAX], norm[PATH_MAX], real[PATH_MAX];
	if (!lu_join_fits(joined, sizeof joined, root, rel))
		return false;
	const char *n = ll_normal_path(joined, norm, sizeof norm);
	if (!n || !under_root(n, root))
		return false;
	/* the directory holding the last component (rm removes a link, it
	   does not follow it), walked as the kernel does: `g/../x` with
	   g -> .git/info is .git/x */
	ll_links l;
	ll_links_init(&l, root);
	if (ll_link_resolve(&l, joined, false, real, sizeof real) !=
	    LL_LINK_INSIDE)
		return false;
	char *slash = strrchr(real, '/');
	if (!slash)
		return false;
	*slash = '\0';
	const char *in = under_root(real[0] ? real : "/", l.root);
	return in && !has_git_component(in);
}

bool ll_path_is_dir(const char *rel, const char *root)
{
	char joined[PATH_MAX];
	struct stat st;
	return !lu_join_fits(joined, sizeof joined, root, rel) ||
	       (lstat(joined, &st) == 0 && S_ISDIR(st.st_mode));
}
