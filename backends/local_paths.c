/*
 * backends/local_paths.c - the LocalBackend's path confinement (see
 * backends/local.h): every path resolved beneath the root.
 *
 * Every path is resolved beneath the root's directory fd: with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) when the kernel has it,
 * else component by component with O_NOFOLLOW, following symlinks by hand
 * and refusing any that leads out (absolute targets outside the root,
 * `..` above it).  The fd that is finally used is the one that was checked,
 * so a symlink swapped in later cannot redirect it.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "local.h"
#include "../util/array.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


/* ---------------- path resolution ---------------- */

int lh_escape_err(locus_error *err, const char *path, const char *root)
{
	return lu_err(err, LOCUS_EDENIED,
	              "%s resolves outside the workspace %s: refused", path,
	              root);
}

/* Turn the user's path into a path relative to the root. */
static int to_rel(local_backend *lb, const char *path, char **rel,
                  locus_error *err)
{
	if (path && path[0] == '/' && lb->root_real &&
	    strncmp(path, lb->root, strlen(lb->root)) != 0) {
		size_t rl = strlen(lb->root_real);
		if (!strncmp(path, lb->root_real, rl) &&
		    (path[rl] == '/' || path[rl] == '\0'))
			return lh_path_rel(lb->root_real, path, rel, err);
	}
	return lh_path_rel(lb->root, path, rel, err);
}

static int try_openat2(local_backend *lb, const char *rel, int flags,
                       int *fd_out)
{
	struct open_how how;
	memset(&how, 0, sizeof how);
	how.flags = (unsigned long long)(flags | O_CLOEXEC);
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	long r = syscall(SYS_openat2, lb->root_fd, *rel ? rel : ".", &how,
	                 sizeof how);
	if (r < 0)
		return -errno;
	*fd_out = (int)r;
	return 0;
}

/*
 * The manual resolution's state: the rest of the path as a queue of
 * components, the folders walked so far (fds, so `..` can pop; the root
 * is lb->root_fd, not ours to close) and the symlinks followed.
 */
typedef struct walker {
	local_backend *lb;
	char *todo;
	Array(int) dirs;
	int links;
} walker;

static int walker_dir(const walker *w)
{
	return w->dirs.size ? *lu_array_back(&w->dirs) : w->lb->root_fd;
}

static void walker_pop_all(walker *w)
{
	while (w->dirs.size)
		close(lu_array_pop(&w->dirs));
}

/*
 * A symlink met while walking (comp in the current folder): its target is
 * put in front of the rest of the path.  An absolute target must name a
 * place under the root; the walk then restarts from the root (every
 * folder is popped).  0 or a negative errno.
 */
static int splice_link(walker *w, const char *comp)
{
	char target[PATH_MAX + 1];
	ssize_t tl = readlinkat(walker_dir(w), comp, target, PATH_MAX);
	if (tl < 0)
		return -errno;
	target[tl] = '\0';
	if (target[0] == '/') {
		const char *rr = w->lb->root_real;
		size_t rl = strlen(rr);
		if (strncmp(target, rr, rl) ||
		    (target[rl] != '/' && target[rl] != '\0'))
			return -EXDEV;
		walker_pop_all(w);
		memmove(target, target + rl, strlen(target + rl) + 1);
	}
	size_t tl2 = strlen(target), rem = strlen(w->todo);
	char *nt = malloc(tl2 + rem + 2);
	if (!nt)
		return -ENOMEM;
	memcpy(nt, target, tl2);
	nt[tl2] = '/';
	memcpy(nt + tl2 + 1, w->todo, rem + 1);
	free(w->todo);
	w->todo = nt;
	return 0;
}

/*
 * Take the next component off the queue into comp; *last when only
 * slashes follow it.  1 when one was taken, 0 when the queue is empty,
 * -ENAMETOOLONG.
 */
static int next_comp(walker *w, char comp[NAME_MAX + 2], bool *last)
{
	char *p = w->todo;
	while (*p == '/')
		p++;
	if (!*p)
		return 0;
	char *e = p;
	while (*e && *e != '/')
		e++;
	*last = true;
	for (const char *q = e; *q; q++)
		if (*q != '/')
			*last = false;
	size_t cl = (size_t)(e - p);
	if (cl > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(comp, p, cl);
	comp[cl] = '\0';
	memmove(w->todo, e, strlen(e) + 1);
	return 1;
}

/* The final open, in folder dir: 1 with *fd_out, or a negative errno. */
static int open_final(int dir, const char *name, int flags, int *fd_out)
{
	int fd = openat(dir, name, flags | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*fd_out = fd;
	return 1;
}

/*
 * One component: `.` stays, `..` pops (never above the root), a symlink
 * is spliced in, the last component is opened with `flags`, any other
 * must be a folder and is pushed.  0 to go on, 1 when *fd_out is set, or
 * a negative errno.
 */
static int walk_step(walker *w, const char *comp, bool last, int flags,
                     int *fd_out)
{
	if (!strcmp(comp, "."))
		return 0;
	if (!strcmp(comp, "..")) {
		if (!w->dirs.size)
			return -EXDEV;
		close(lu_array_pop(&w->dirs));
		return 0;
	}
	int cur = walker_dir(w);
	struct stat st;
	if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode))
		return ++w->links > MAX_SYMLINKS ? -ELOOP
		                                 : splice_link(w, comp);
	if (last)
		return open_final(cur, comp, flags | O_NOFOLLOW, fd_out);
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	int fd =
	    openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!lu_array_push(&w->dirs, fd)) {
		close(fd);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Manual resolution: components are taken off the queue one by one
 * (walk_step) until the last is opened.  A path that names the root
 * itself (or ends in "..") opens the folder reached.  0 or a negative
 * errno.
 */
static int walk_open(local_backend *lb, const char *rel, int flags, int *fd_out)
{
	walker w = {.lb = lb, .todo = strdup(rel)};
	int rc = w.todo ? 0 : -ENOMEM;
	char comp[NAME_MAX + 2];
	bool last = false;
	while (rc == 0) {
		rc = next_comp(&w, comp, &last);
		if (rc == 1)
			rc = walk_step(&w, comp, last, flags, fd_out);
		else if (rc == 0)
			rc = open_final(walker_dir(&w), ".", flags, fd_out);
	}
	walker_pop_all(&w);
	lu_array_delete(&w.dirs);
	free(w.todo);
	return rc < 0 ? rc : 0;
}

/* Open rel beneath the root; negative errno on failure. */
static int open_beneath(local_backend *lb, const char *rel, int flags,
                        int *fd_out)
{
	if (!lb->no_openat2) {
		int rc = try_openat2(lb, rel, flags, fd_out);
		if (rc != -ENOSYS && rc != -EPERM)
			return rc;
		/* seccomp or an old kernel: resolve by hand */
	}
	return walk_open(lb, rel, flags, fd_out);
}

int lh_map_errno(locus_error *err, int e, const char *path, const char *root)
{
	switch (e) {
	case EXDEV:
	case ELOOP: return lh_escape_err(err, path, root);
	case ENOENT:
		return lu_err(err, LOCUS_ENOTFOUND, "%s does not exist", path);
	case ENOTDIR:
		return lu_err(err, LOCUS_ENOTFOUND,
		              "%s: a part of the path is not a folder", path);
	case ENOMEM: return lu_err(err, LOCUS_ENOMEM, "out of memory");
	default: {
		int rc = lu_err(err, LOCUS_EIO, "%s: %s", path, strerror(e));
		if (err)
			err->sys = e;
		return rc;
	}
	}
}

/* Resolve a user path to an open fd (flags for the final open). */
int lh_resolve(local_backend *lb, const char *path, int flags, int *fd_out,
               locus_error *err)
{
	char *rel = NULL;
	int rc = to_rel(lb, path, &rel, err);
	if (rc)
		return rc;
	int e = open_beneath(lb, rel, flags, fd_out);
	free(rel);
	if (e < 0)
		return lh_map_errno(err, -e, path, lb->root);
	return 0;
}

/*
 * Resolve the parent folder of a path for a change (write, remove): the
 * parent is opened (created if missing when mk) and the last name returned.
 */
int lh_resolve_parent(local_backend *lb, const char *path, bool mk, int *dirfd,
                      char **name, locus_error *err)
{
	char *rel = NULL;
	*name = NULL;
	int rc = to_rel(lb, path, &rel, err);
	if (rc)
		return rc;
	if (!*rel) {
		free(rel);
		return lu_err(err, LOCUS_EINVALID,
		              "%s is the workspace folder, not a file", path);
	}
	char *slash = strrchr(rel, '/');
	const char *base = slash ? slash + 1 : rel;
	if (slash)
		*slash = '\0';
	const char *dir = slash ? rel : "";
	int e = open_beneath(lb, dir, O_PATH | O_DIRECTORY, dirfd);
	if (e == -ENOENT && mk) {
		/* create the missing folders one by one, each checked */
		char *p = rel;
		for (;;) {
			char *s = strchr(p, '/');
			if (s)
				*s = '\0';
			int fd;
			e = open_beneath(lb, rel, O_PATH | O_DIRECTORY, &fd);
			if (e == -ENOENT) {
				char *ls = strrchr(rel, '/');
				int pfd = lb->root_fd, own = -1;
				if (ls) {
					*ls = '\0';
					e = open_beneath(lb, rel,
					                 O_PATH | O_DIRECTORY,
					                 &own);
					*ls = '/';
					if (e < 0)
						break;
					pfd = own;
				}
				if (mkdirat(pfd, ls ? ls + 1 : rel, 0777) < 0 &&
				    errno != EEXIST)
					e = -errno;
				else
					e = 0;
				if (own >= 0)
					close(own);
				if (e < 0)
					break;
			} else if (e < 0) {
				break;
			} else {
				close(fd);
			}
			if (!s)
				break;
			*s = '/';
			p = s + 1;
		}
		if (e == 0)
			e = open_beneath(lb, rel, O_PATH | O_DIRECTORY, dirfd);
	}
	if (e < 0) {
		free(rel);
		return lh_map_errno(err, -e, path, lb->root);
	}
	if (!strcmp(base, ".") || !strcmp(base, "..")) {
		close(*dirfd);
		free(rel);
		return lu_err(err, LOCUS_EINVALID, "%s is not a file name",
		              path);
	}
	*name = strdup(base);
	free(rel);
	if (!*name) {
		close(*dirfd);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	return 0;
}
