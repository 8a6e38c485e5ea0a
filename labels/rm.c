/*
 * labels/rm.c - the rm commands that are less than a destructive delete
 * (docs/tags.md, "The rm rule"):
 *
 * - `rm FILE...` and `unlink FILE` with no option, every operand a named
 *   path inside the workspace: a workspace write, as the write tool that
 *   can empty the same file is (not exec:destructive).  The line must
 *   change no directory, and at the action (which knows the root) the
 *   root's symlinks must keep every operand's directory inside it.
 * - `find DIR ... -exec rm -rf {} +` over starting points provably inside
 *   the workspace: held (exec:destructive), not on the floor, as `rm -rf
 *   DIR/x` is.
 * - `git restore PATHS` and `git checkout [REV] -- PATHS` of named files
 *   inside the workspace: a workspace write (the file's content is
 *   replaced by a committed one, as the write tool could), with the same
 *   line and root conditions as rm, and at the action no path an existing
 *   directory (that would discard every change under it).
 */
#define _GNU_SOURCE /* FNM_CASEFOLD */
#include <fnmatch.h>
#include <string.h>

#include "internal.h"

static bool eq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* The flags that make a command's words known only at run time. */
#define RUN_TIME                                                               \
	(LOCUS_CMD_DYNAMIC | LOCUS_CMD_DYNAMIC_ARGS | LOCUS_CMD_SUBST |        \
	 LOCUS_CMD_GLOB_ARGS)

/* One rm operand names a path provably inside the workspace:
   static, relative, no glob, not the root itself (`.`, `src/..`), not
   climbing out (`../x`), not a .git directory or inside one. */
bool ll_rm_operand_inside(const char *a, uint32_t flags)
{
	if (flags & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST | LOCUS_WORD_GLOB |
	             LOCUS_WORD_BRACE))
		return false;
	if (!a[0] || a[0] == '/' || a[0] == '~' || strpbrk(a, "*?[]{}$`\\"))
		return false;
	/* the depth below the workspace root, component by component: it
	   must stay above 0 (`src/..` is the root, `a/../../x` outside) */
	long depth = 0;
	for (const char *p = a; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0)
				return false;
		} else if (n == 4 && !strncmp(p, ".git", 4)) {
			return false;
		} else if (n && !(n == 1 && p[0] == '.')) {
			depth++;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	return depth > 0;
}

bool ll_rm_as_write(const locus_shell_command *c)
{
	bool rm = eq(c->name, "rm"), un = eq(c->name, "unlink");
	/* at the top of the line, as written: no wrapper (sudo rm runs as
	   another user), not run by xargs, find, ssh, a function... */
	if ((!rm && !un) || c->argc < 2 || c->nwrappers ||
	    (c->origin && !eq(c->origin, LOCUS_ORIGIN_TOP)) ||
	    (c->flags & RUN_TIME))
		return false;
	bool opts = true;
	size_t n = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		uint32_t f = c->argv_flags ? c->argv_flags[i] : 0;
		if (opts && eq(a, "--")) {
			opts = false;
			continue;
		}
		/* any option, wherever it stands (GNU rm permutes: `rm x -rf`
		   is `rm -rf x`): -f, -r, -i, -d, -v, --anything */
		if (opts && a[0] == '-' && a[1])
			return false;
		if (!ll_rm_operand_inside(a, f) || ll_path_class(a, NULL))
			return false;
		n++;
	}
	return rm ? n > 0 : n == 1;
}

bool ll_rm_write_resolves(const locus_shell_command *c, const char *root)
{
	if (!root)
		return false;
	bool opts = true;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (opts && eq(a, "--")) {
			opts = false;
			continue;
		}
		if (!ll_path_dir_inside(a, root) || ll_path_class(a, root))
			return false;
	}
	return true;
}

bool ll_line_changes_dir(const locus_shell_result *r)
{
	size_t n = locus_shell_result_count(r);
	for (size_t i = 0; i < n; i++) {
		const char *name = locus_shell_result_command(r, i)->name;
		if (eq(name, "cd") || eq(name, "pushd") || eq(name, "popd"))
			return true;
	}
	return false;
}

/* ---- find -exec rm -rf {} + ------------------------------------------ */

/* find's expression operators: with one, a test no longer bounds what
   -exec is given. */
static bool find_operator(const char *w)
{
	return eq(w, "-o") || eq(w, "-or") || eq(w, ",") || eq(w, "!") ||
	       eq(w, "-not") || eq(w, "(") || eq(w, ")");
}

/* A -name/-iname test of f, before its -exec, whose pattern matches
   neither `.` (the starting point itself) nor `.git`. */
static bool name_excludes_root(const locus_shell_command *f, size_t from)
{
	bool found = false;
	for (size_t i = from; i + 1 < f->argc; i++) {
		const char *w = f->argv[i];
		if (eq(w, "-exec") || eq(w, "-execdir"))
			break;
		if (find_operator(w))
			return false;
		int fl = eq(w, "-iname") ? FNM_CASEFOLD : 0;
		if (!eq(w, "-name") && !fl)
			continue;
		const char *p = f->argv[++i];
		if (fnmatch(p, ".", fl) != 0 && fnmatch(p, "..", fl) != 0 &&
		    fnmatch(p, ".git", fl) != 0)
			found = true;
	}
	return found;
}

/* Every starting point of find f is provably inside the workspace, and
   find follows no symlink and reads no list of starting points. */
static bool find_starts_inside(const locus_shell_command *f)
{
	if (f->flags & RUN_TIME)
		return false;
	size_t i = 1;
	/* -H -L -P -D DEBUG -OLEVEL come before the starting points */
	for (; i < f->argc && f->argv[i][0] == '-' && f->argv[i][1]; i++) {
		const char *w = f->argv[i];
		if (eq(w, "-P") || !strncmp(w, "-O", 2))
			continue;
		if (eq(w, "-D") && i + 1 < f->argc) {
			i++;
			continue;
		}
		if (eq(w, "-H") || eq(w, "-L"))
			return false;
		break; /* the expression */
	}
	bool named = false, dot = false;
	for (; i < f->argc; i++) {
		const char *w = f->argv[i];
		uint32_t fl = f->argv_flags ? f->argv_flags[i] : 0;
		if ((w[0] == '-' && w[1]) || find_operator(w))
			break;
		if (eq(w, ".") || eq(w, "./"))
			dot = true;
		else if (ll_rm_operand_inside(w, fl))
			named = true;
		else
			return false;
	}
	/* no starting point: GNU find starts at `.` */
	dot = dot || !named;
	size_t expr = i;
	for (; i < f->argc; i++)
		if (eq(f->argv[i], "-follow") || eq(f->argv[i], "-files0-from"))
			return false;
	return !dot || name_excludes_root(f, expr);
}

bool ll_rm_found_inside(const locus_shell_result *r, size_t i)
{
	const locus_shell_command *c = locus_shell_result_command(r, i);
	if (!eq(c->name, "rm") || !c->origin ||
	    !eq(c->origin, LOCUS_ORIGIN_FIND_EXEC) ||
	    c->parent == LOCUS_SHELL_NO_PARENT ||
	    (c->flags & (LOCUS_CMD_DYNAMIC | LOCUS_CMD_SUBST)))
		return false;
	const locus_shell_command *f = locus_shell_result_command(r, c->parent);
	if (!f || !eq(f->name, "find"))
		return false;
	bool opts = true, found = false;
	for (size_t k = 1; k < c->argc; k++) {
		const char *a = c->argv[k];
		if (opts && eq(a, "--")) {
			opts = false;
			continue;
		}
		if (opts && a[0] == '-' && a[1]) {
			size_t n = strlen(a);
			if (n >= 3 && !strncmp(a, "--no-preserve-root", n))
				return false; /* --n... abbreviates it */
			continue;
		}
		if (eq(a, "{}"))
			found = true;
		else if (!ll_rm_operand_inside(
		             a, c->argv_flags ? c->argv_flags[k] : 0))
			return false;
	}
	return found && find_starts_inside(f);
}

/* ---- git restore PATHS, git checkout [REV] -- PATHS ------------------- */

/* A pathspec that names one path inside the workspace: static, relative,
   no glob (git globs pathspecs itself), no magic (`:(glob)`, `:/`), not
   the root or .git, no protected file. */
static bool named_pathspec(const char *a, uint32_t flags)
{
	/* `src/`, `src/.`: a directory, every change under it */
	size_t n = strlen(a);
	const char *last = strrchr(a, '/');
	last = last ? last + 1 : a;
	return a[0] != ':' && n && a[n - 1] != '/' && !eq(last, ".") &&
	       ll_rm_operand_inside(a, flags) && !ll_path_class(a, NULL);
}

/* Short options of git restore that keep it a write of the named paths
   (-W worktree, -S staged, -q quiet); -s takes the source as its value. */
static bool restore_cluster(const char *a, bool *takes)
{
	*takes = false;
	for (const char *p = a + 1; *p; p++) {
		if (*p == 's') {
			*takes = p[1] == '\0';
			return true;
		}
		if (!strchr("WSq", *p))
			return false;
	}
	return true;
}

static bool restore_option(const locus_shell_command *c, size_t *i)
{
	const char *a = c->argv[*i];
	if (eq(a, "--worktree") || eq(a, "--staged") || eq(a, "--quiet") ||
	    !strncmp(a, "--source=", 9))
		return true;
	if (eq(a, "--source")) {
		++*i;
		return *i < c->argc;
	}
	bool takes;
	if (a[1] == '-' || !restore_cluster(a, &takes))
		return false;
	if (takes)
		++*i;
	return *i < c->argc;
}

/* Every pathspec of a git restore/checkout that is a workspace write,
   checked against the root when one is given: the directory holding it
   stays inside (its links followed), it is not an existing directory
   (every change under it would go) and names no protected file. */
static bool restore_paths(const locus_shell_command *c, const char *root)
{
	if (!eq(c->name, "git") || c->argc < 3 || c->nwrappers ||
	    (c->origin && !eq(c->origin, LOCUS_ORIGIN_TOP)) ||
	    (c->flags & RUN_TIME))
		return false;
	bool restore = eq(c->argv[1], "restore");
	if (!restore && !eq(c->argv[1], "checkout"))
		return false;
	bool ended = false;
	size_t paths = 0, words = 0;
	for (size_t i = 2; i < c->argc; i++) {
		const char *a = c->argv[i];
		uint32_t f = c->argv_flags ? c->argv_flags[i] : 0;
		if (!ended && eq(a, "--")) {
			ended = true;
			continue;
		}
		if (!ended && a[0] == '-' && a[1]) {
			if (restore ? !restore_option(c, &i)
			            : !(eq(a, "-q") || eq(a, "--quiet")))
				return false;
			continue;
		}
		if (!restore && !ended) {
			/* git checkout REV -- PATHS: one revision word */
			if (++words > 1)
				return false;
			continue;
		}
		if (!named_pathspec(a, f))
			return false;
		if (root && (!ll_path_dir_inside(a, root) ||
		             ll_path_class(a, root) || ll_path_is_dir(a, root)))
			return false;
		paths++;
	}
	/* checkout without `--` names a branch or a path: not this form */
	return paths > 0 && (restore || ended);
}

bool ll_git_restore_as_write(const locus_shell_command *c)
{
	return restore_paths(c, NULL);
}

bool ll_git_restore_resolves(const locus_shell_command *c, const char *root)
{
	return root && restore_paths(c, root);
}
