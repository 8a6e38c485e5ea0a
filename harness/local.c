/*
 * harness/local.c - LocalBackend: a host folder, commands on the host.
 * This file: the backend itself and path confinement; its files are in
 * local_files.c, its commands in local_exec.c (harness/local.h).
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

static void l_free(locus_backend *b);

void lh_local_disable_openat2(locus_backend *b)
{
	if (b && b->free == l_free)
		L(b)->no_openat2 = true;
}

/* ---------------- path resolution ---------------- */

int lh_escape_err(locus_error *err, const char *path, const char *root)
{
	return lh_err(err, LOCUS_EDENIED,
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
 * A symlink met while walking (comp in the folder cur): its target is
 * put in front of the rest of the path (*todo).  An absolute target must
 * name a place under the root; the walk then restarts from the root (the
 * stack of folders is popped).  0 or a negative errno.
 */
static int splice_link(local_backend *lb, int cur, const char *comp,
                       char **todo, int *stack, size_t *depth)
{
	char target[PATH_MAX + 1];
	ssize_t tl = readlinkat(cur, comp, target, PATH_MAX);
	if (tl < 0)
		return -errno;
	target[tl] = '\0';
	if (target[0] == '/') {
		size_t rl = strlen(lb->root_real);
		if (strncmp(target, lb->root_real, rl) ||
		    (target[rl] != '/' && target[rl] != '\0'))
			return -EXDEV;
		while (*depth)
			close(stack[(*depth)--]);
		memmove(target, target + rl, strlen(target + rl) + 1);
	}
	size_t tl2 = strlen(target), rem = strlen(*todo);
	char *nt = malloc(tl2 + rem + 2);
	if (!nt)
		return -ENOMEM;
	memcpy(nt, target, tl2);
	nt[tl2] = '/';
	memcpy(nt + tl2 + 1, *todo, rem + 1);
	free(*todo);
	*todo = nt;
	return 0;
}

/*
 * Manual resolution.  The path is a queue of components; a stack of fds
 * remembers the folders walked so `..` can pop.  Symlinks are read and
 * their target spliced in front of the remaining components.
 */
static int walk_open(local_backend *lb, const char *rel, int flags, int *fd_out)
{
	size_t cap = 16, depth = 0;
	int *stack = malloc(cap * sizeof *stack);
	char *todo = strdup(rel);
	int rc = 0, links = 0;
	if (!stack || !todo) {
		rc = -ENOMEM;
		goto out;
	}
	stack[0] = -1; /* the root; root_fd is not ours to close */
	for (;;) {
		char *p = todo;
		while (*p == '/')
			p++;
		if (!*p)
			break;
		char *e = p;
		while (*e && *e != '/')
			e++;
		bool last = true;
		for (char *q = e; *q; q++)
			if (*q != '/')
				last = false;
		char comp[NAME_MAX + 2];
		size_t cl = (size_t)(e - p);
		if (cl > NAME_MAX) {
			rc = -ENAMETOOLONG;
			goto out;
		}
		memcpy(comp, p, cl);
		comp[cl] = '\0';
		memmove(todo, e, strlen(e) + 1);
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			if (depth == 0) {
				rc = -EXDEV;
				goto out;
			}
			close(stack[depth--]);
			continue;
		}
		int cur = depth ? stack[depth] : lb->root_fd;
		struct stat st;
		if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = -errno;
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			rc = ++links > MAX_SYMLINKS
			         ? -ELOOP
			         : splice_link(lb, cur, comp, &todo, stack,
			                       &depth);
			if (rc)
				goto out;
			continue;
		}
		if (last) {
			int fd =
			    openat(cur, comp, flags | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				rc = -errno;
				goto out;
			}
			*fd_out = fd;
			goto out;
		}
		if (!S_ISDIR(st.st_mode)) {
			rc = -ENOTDIR;
			goto out;
		}
		int fd = openat(cur, comp,
		                O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			rc = -errno;
			goto out;
		}
		if (depth + 1 >= cap) {
			int *ns = realloc(stack, 2 * cap * sizeof *ns);
			if (!ns) {
				close(fd);
				rc = -ENOMEM;
				goto out;
			}
			stack = ns;
			cap *= 2;
		}
		stack[++depth] = fd;
	}
	/* the path named the root itself (or ended in "..") */
	{
		int cur = depth ? stack[depth] : lb->root_fd;
		int fd = openat(cur, ".", flags | O_CLOEXEC);
		if (fd < 0)
			rc = -errno;
		else
			*fd_out = fd;
	}
out:
	while (stack && depth)
		close(stack[depth--]);
	free(stack);
	free(todo);
	return rc;
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
		return lh_err(err, LOCUS_ENOTFOUND, "%s does not exist", path);
	case ENOTDIR:
		return lh_err(err, LOCUS_ENOTFOUND,
		              "%s: a part of the path is not a folder", path);
	case ENOMEM: return lh_err(err, LOCUS_ENOMEM, "out of memory");
	default: {
		int rc = lh_err(err, LOCUS_EIO, "%s: %s", path, strerror(e));
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
		return lh_err(err, LOCUS_EINVALID,
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
		return lh_err(err, LOCUS_EINVALID, "%s is not a file name",
		              path);
	}
	*name = strdup(base);
	free(rel);
	if (!*name) {
		close(*dirfd);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	return 0;
}

static void l_free(locus_backend *b)
{
	local_backend *lb = L(b);
	for (size_t i = 0; i < lb->njobs; i++) {
		job *j = &lb->jobs[i];
		lh_job_poll(j);
		lh_kill_group_wait(j->pid, j);
		if (j->stdin_fd >= 0)
			close(j->stdin_fd);
		free(j->out_path);
	}
	free(lb->jobs);
	if (lb->state_dir) {
		DIR *d = opendir(lb->state_dir);
		if (d) {
			struct dirent *de;
			while ((de = readdir(d)))
				if (de->d_name[0] != '.')
					unlinkat(dirfd(d), de->d_name, 0);
			closedir(d);
		}
		rmdir(lb->state_dir);
		free(lb->state_dir);
	}
	if (lb->root_fd >= 0)
		close(lb->root_fd);
	free(lb->root);
	free(lb->root_real);
	free((void *)(uintptr_t)lb->base.label);
	free(lb);
}

int locus_backend_local_new(locus_backend **out, const char *root,
                            const char *label, locus_error *err)
{
	return locus_backend_local_new_ext(out, root, label, NULL, err);
}

int locus_backend_local_new_ext(locus_backend **out, const char *root,
                                const char *label,
                                const locus_local_options *opts,
                                locus_error *err)
{
	*out = NULL;
	locus_local_options def = LOCUS_LOCAL_OPTIONS_INIT;
	const locus_local_options *o = opts ? opts : &def;
	if (o->version != LOCUS_LOCAL_OPTIONS_VERSION)
		return lh_err(err, LOCUS_EUSAGE,
		              "local options of another version");
	if (!root || !*root)
		return lh_err(err, LOCUS_EUSAGE, "no root folder");
	local_backend *lb = calloc(1, sizeof *lb);
	if (!lb)
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	lb->output_max = o->output_max ? o->output_max : (size_t)64 << 20;
	lb->rlimit_nproc = o->rlimit_nproc;
	lb->rlimit_fsize = o->rlimit_fsize;
	lb->stdin_timeout = o->stdin_timeout_s > 0 ? o->stdin_timeout_s : 10;
	lb->root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lb->root_fd < 0) {
		int e = errno;
		free(lb);
		return lh_err(err, e == ENOENT ? LOCUS_ENOTFOUND : LOCUS_EIO,
		              "cannot open the workspace %s: %s", root,
		              strerror(e));
	}
	lb->root_real = realpath(root, NULL);
	lb->root = strdup(root);
	size_t rl = lb->root ? strlen(lb->root) : 0;
	while (rl > 1 && lb->root[rl - 1] == '/')
		lb->root[--rl] = '\0';
	lb->base.label = strdup(label ? label : "UNISOLATED: host shell");
	if (!lb->root_real || !lb->root || !lb->base.label) {
		l_free(&lb->base);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	lb->base.version = LOCUS_BACKEND_VERSION;
	lb->base.root = lb->root;
	lb->base.can_exec = true;
	lb->base.isolated = false;
	lb->base.stat = lh_l_stat;
	lb->base.read = lh_l_read;
	lb->base.write = lh_l_write;
	lb->base.write_cas = lh_l_write_cas;
	lb->base.write_many = lh_l_write_many;
	lb->base.remove = lh_l_remove;
	lb->base.list = lh_l_list;
	lb->base.walk = lh_l_walk;
	lb->base.exec = lh_l_exec;
	lb->base.exec_ctl = lh_l_exec_ctl;
	lb->base.bg_output = lh_l_bg_output;
	lb->base.bg_write = lh_l_bg_write;
	lb->base.bg_kill = lh_l_bg_kill;
	lb->base.free = l_free;
	*out = &lb->base;
	return 0;
}
