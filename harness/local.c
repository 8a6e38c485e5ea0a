/*
 * harness/local.c - LocalBackend: a host folder, commands on the host.
 *
 * Every path is resolved beneath the root's directory fd: with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) when the kernel has it,
 * else component by component with O_NOFOLLOW, following symlinks by hand
 * and refusing any that leads out (absolute targets outside the root,
 * `..` above it).  The fd that is finally used is the one that was checked,
 * so a symlink swapped in later cannot redirect it.
 *
 * Commands run under /bin/sh -c in a new session (own process group), with
 * output to a file in a private state folder; background commands read
 * stdin from a FIFO.  A timeout kills the whole group.
 */
#define _GNU_SOURCE
#include "internal.h"
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

#define MAX_FILE_BYTES (256u << 20)
#define MAX_SYMLINKS   40

typedef struct job {
	char handle[16];
	pid_t pid;
	int stdin_fd; /* -1 when closed or none */
	bool finished;
	int exit_code;
	char *out_path;
	double start;
} job;

typedef struct local_backend {
	locus_backend base;
	size_t output_max; /* bytes of a command's output kept on disk */
	long rlimit_nproc, rlimit_fsize;
	double stdin_timeout;
	char *root;      /* as given, for messages and absolute paths */
	char *root_real; /* realpath */
	int root_fd;
	bool no_openat2;
	char *state_dir; /* mkdtemp, made on first exec */
	job *jobs;
	size_t njobs, cap_jobs;
	unsigned next_handle;
	unsigned seq;
} local_backend;

static local_backend *L(locus_backend *b)
{
	return (local_backend *)b;
}

static void l_free(locus_backend *b);

void lh_local_disable_openat2(locus_backend *b)
{
	if (b && b->free == l_free)
		L(b)->no_openat2 = true;
}

/* ---------------- path resolution ---------------- */

static int escape_err(locus_error *err, const char *path, const char *root)
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
			if (++links > MAX_SYMLINKS) {
				rc = -ELOOP;
				goto out;
			}
			char target[PATH_MAX + 1];
			ssize_t tl = readlinkat(cur, comp, target, PATH_MAX);
			if (tl < 0) {
				rc = -errno;
				goto out;
			}
			target[tl] = '\0';
			if (target[0] == '/') {
				/* absolute: only if it names a place under
				 * the root, then restart from the root */
				size_t rl = strlen(lb->root_real);
				if (strncmp(target, lb->root_real, rl) ||
				    (target[rl] != '/' && target[rl] != '\0')) {
					rc = -EXDEV;
					goto out;
				}
				while (depth)
					close(stack[depth--]);
				memmove(target, target + rl,
				        strlen(target + rl) + 1);
			}
			size_t tl2 = strlen(target), rem = strlen(todo);
			char *nt = malloc(tl2 + rem + 2);
			if (!nt) {
				rc = -ENOMEM;
				goto out;
			}
			memcpy(nt, target, tl2);
			nt[tl2] = '/';
			memcpy(nt + tl2 + 1, todo, rem + 1);
			free(todo);
			todo = nt;
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

static int map_errno(locus_error *err, int e, const char *path,
                     const char *root)
{
	switch (e) {
	case EXDEV:
	case ELOOP:
		return escape_err(err, path, root);
	case ENOENT:
		return lh_err(err, LOCUS_ENOTFOUND, "%s does not exist", path);
	case ENOTDIR:
		return lh_err(err, LOCUS_ENOTFOUND,
		              "%s: a part of the path is not a folder", path);
	case ENOMEM:
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	default: {
		int rc = lh_err(err, LOCUS_EIO, "%s: %s", path, strerror(e));
		if (err)
			err->sys = e;
		return rc;
	}
	}
}

/* Resolve a user path to an open fd (flags for the final open). */
static int resolve(local_backend *lb, const char *path, int flags, int *fd_out,
                   locus_error *err)
{
	char *rel = NULL;
	int rc = to_rel(lb, path, &rel, err);
	if (rc)
		return rc;
	int e = open_beneath(lb, rel, flags, fd_out);
	free(rel);
	if (e < 0)
		return map_errno(err, -e, path, lb->root);
	return 0;
}

/*
 * Resolve the parent folder of a path for a change (write, remove): the
 * parent is opened (created if missing when mk) and the last name returned.
 */
static int resolve_parent(local_backend *lb, const char *path, bool mk,
                          int *dirfd, char **name, locus_error *err)
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
		return map_errno(err, -e, path, lb->root);
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

/* ---------------- files ---------------- */

static int l_stat(locus_backend *b, const char *path, locus_stat *out,
                  locus_error *err)
{
	local_backend *lb = L(b);
	memset(out, 0, sizeof *out);
	int fd;
	int rc = resolve(lb, path, O_PATH, &fd, err);
	if (rc == LOCUS_ENOTFOUND)
		return 0; /* exists = false */
	if (rc)
		return rc;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return map_errno(err, errno, path, lb->root);
	}
	close(fd);
	out->exists = true;
	out->is_dir = S_ISDIR(st.st_mode);
	out->size = (uint64_t)st.st_size;
	out->mtime_ns =
	    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return 0;
}

static int read_fd_all(int fd, const char *path, char **out, size_t *len,
                       locus_error *err)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return lh_err(err, LOCUS_EIO, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return lh_err(err, LOCUS_EINVALID, "%s is a folder, not a file",
		              path);
	if (!S_ISREG(st.st_mode))
		return lh_err(err, LOCUS_EINVALID, "%s is not a regular file",
		              path);
	lh_buf buf = {0};
	char tmp[65536];
	for (;;) {
		ssize_t r = read(fd, tmp, sizeof tmp);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			lh_buf_free(&buf);
			return lh_err(err, LOCUS_EIO, "%s: %s", path,
			              strerror(errno));
		}
		if (r == 0)
			break;
		if (buf.len + (size_t)r > MAX_FILE_BYTES) {
			lh_buf_free(&buf);
			return lh_err(err, LOCUS_ETOOBIG,
			              "%s is larger than %u bytes", path,
			              MAX_FILE_BYTES);
		}
		lh_buf_add(&buf, tmp, (size_t)r);
	}
	*len = buf.len;
	*out = lh_buf_take(&buf);
	if (!*out)
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	return 0;
}

static int l_read(locus_backend *b, const char *path, char **out, size_t *len,
                  locus_error *err)
{
	local_backend *lb = L(b);
	*out = NULL;
	*len = 0;
	int fd;
	int rc = resolve(lb, path, O_RDONLY | O_NONBLOCK, &fd, err);
	if (rc)
		return rc;
	rc = read_fd_all(fd, path, out, len, err);
	close(fd);
	return rc;
}

/*
 * The temporary file's owner and mode: the replaced file's.  As root the
 * owner is kept with fchown; when it cannot be kept (not root, or fchown
 * refused), setuid and setgid are cleared, so agent content never ends up
 * setuid to a user who did not write it.  fchown clears the bits itself,
 * so the mode is set after it.
 */
static void keep_meta(int fd, const struct stat *st)
{
	mode_t mode = st->st_mode & 07777;
	struct stat t;
	bool uid_kept = false, gid_kept = false;
	if (fstat(fd, &t) == 0) {
		if ((t.st_uid != st->st_uid || t.st_gid != st->st_gid) &&
		    geteuid() == 0)
			(void)fchown(fd, st->st_uid, st->st_gid);
		if (fstat(fd, &t) == 0) {
			uid_kept = t.st_uid == st->st_uid;
			gid_kept = t.st_gid == st->st_gid;
		}
	}
	if (!uid_kept)
		mode &= ~(mode_t)S_ISUID;
	if (!gid_kept || !uid_kept)
		mode &= ~(mode_t)S_ISGID;
	(void)fchmod(fd, mode);
}

/* Under the folder's lock: is name still what the caller read? */
static int cas_check(int dfd, const char *name, const char *expect,
                     const char *path, locus_error *err)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	                               O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && !expect)
			return 0;
		if (errno == ENOENT)
			return lh_err(err, LOCUS_ECONFLICT,
			              "%s was removed on disk since it was read",
			              path);
		return map_errno(err, errno, path, "");
	}
	if (!expect) {
		close(fd);
		return lh_err(err, LOCUS_ECONFLICT,
		              "%s was created on disk meanwhile", path);
	}
	char *data = NULL;
	size_t len = 0;
	int rc = read_fd_all(fd, path, &data, &len, err);
	close(fd);
	if (rc)
		return rc;
	char sha[65];
	lh_sha256_hex(data, len, sha);
	free(data);
	if (strcmp(sha, expect))
		return lh_err(err, LOCUS_ECONFLICT,
		              "%s changed on disk since it was read", path);
	return 0;
}

/* Write data to a new temporary file beside name; *tmp gets its name. */
static int write_temp(local_backend *lb, int dfd, const char *name,
                      const struct stat *had, const char *data, size_t len,
                      char tmp[NAME_MAX + 1], const char *path,
                      locus_error *err)
{
	int fd = -1;
	for (int tries = 0; tries < 100 && fd < 0; tries++) {
		snprintf(tmp, NAME_MAX + 1, ".%.200s.locus-%d-%u", name,
		         (int)getpid(), lb->seq++);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		            0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0)
		return map_errno(err, errno, path, lb->root);
	if (had)
		keep_meta(fd, had);
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int rc = map_errno(err, errno, path, lb->root);
			close(fd);
			unlinkat(dfd, tmp, 0);
			return rc;
		}
		off += (size_t)w;
	}
	if (close(fd) < 0) {
		int rc = map_errno(err, errno, path, lb->root);
		unlinkat(dfd, tmp, 0);
		return rc;
	}
	return 0;
}

/* A write made in two steps: the bytes in a temporary file beside the
 * target (stage), then the rename over it (commit). */
typedef struct staged {
	int dfd;
	char *name, *path;
	char tmp[NAME_MAX + 1];
} staged;

static void staged_free(staged *t, bool unlink_tmp)
{
	if (!t)
		return;
	if (unlink_tmp && t->tmp[0])
		unlinkat(t->dfd, t->tmp, 0);
	if (t->dfd >= 0)
		close(t->dfd);
	free(t->name);
	free(t->path);
	free(t);
}

static int l_stage_at(locus_backend *b, const char *path, const char *data,
                      size_t len, staged **out, int depth, locus_error *err);

/* A link that stays inside the root: stage the place it names. */
static int stage_through_link(locus_backend *b, const char *path,
                              const char *data, size_t len, staged **out,
                              int depth, locus_error *err)
{
	local_backend *lb = L(b);
	int fd;
	int rc = resolve(lb, path, O_PATH, &fd, err);
	if (rc == LOCUS_ENOTFOUND)
		return lh_err(err, LOCUS_EINVALID,
		              "%s is a dangling link: refused", path);
	if (rc)
		return rc;
	char lp[64], target[PATH_MAX + 1];
	snprintf(lp, sizeof lp, "/proc/self/fd/%d", fd);
	ssize_t tl = readlink(lp, target, PATH_MAX);
	close(fd);
	size_t rl = strlen(lb->root_real);
	if (depth > MAX_SYMLINKS || tl <= 0 || (size_t)tl <= rl ||
	    strncmp(target, lb->root_real, rl) || target[rl] != '/')
		return escape_err(err, path, lb->root);
	target[tl] = '\0';
	return l_stage_at(b, target, data, len, out, depth + 1, err);
}

static int l_stage_at(locus_backend *b, const char *path, const char *data,
                      size_t len, staged **out, int depth, locus_error *err)
{
	local_backend *lb = L(b);
	*out = NULL;
	int dfd;
	char *name;
	int rc = resolve_parent(lb, path, true, &dfd, &name, err);
	if (rc)
		return rc;
	struct stat st;
	bool had = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (had && S_ISLNK(st.st_mode)) {
		close(dfd);
		free(name);
		return stage_through_link(b, path, data, len, out, depth, err);
	}
	staged *t = calloc(1, sizeof *t);
	if (!t || !(t->path = strdup(path))) {
		free(t);
		close(dfd);
		free(name);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	t->dfd = dfd;
	t->name = name;
	if (had && S_ISDIR(st.st_mode))
		rc = lh_err(err, LOCUS_EINVALID, "%s is a folder, not a file",
		            path);
	else
		rc = write_temp(lb, dfd, name,
		                had && S_ISREG(st.st_mode) ? &st : NULL, data,
		                len, t->tmp, path, err);
	if (rc) {
		t->tmp[0] = '\0';
		staged_free(t, false);
		return rc;
	}
	*out = t;
	return 0;
}

/* Rename a staged file over its target; with cas, only while the target
 * is still what the caller read, checked under a lock of the folder that
 * every CAS writer of it takes.  The token is freed. */
static int l_commit_at(local_backend *lb, staged *t, bool cas,
                       const char *expect, locus_error *err)
{
	int rc = 0, lockfd = -1;
	struct stat st;
	if (cas) {
		lockfd = openat(t->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		while (lockfd >= 0 && flock(lockfd, LOCK_EX) < 0 &&
		       errno == EINTR)
			;
		rc = lockfd < 0 ? map_errno(err, errno, t->path, lb->root)
		                : cas_check(t->dfd, t->name, expect, t->path,
		                            err);
		if (!rc && expect &&
		    fstatat(t->dfd, t->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			/* the file may have been replaced (same bytes,
			 * other owner): the temp takes the current one's */
			int tfd = openat(t->dfd, t->tmp,
			                 O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
			if (tfd >= 0) {
				keep_meta(tfd, &st);
				close(tfd);
			}
		}
	}
	if (!rc && renameat(t->dfd, t->tmp, t->dfd, t->name) < 0)
		rc = map_errno(err, errno, t->path, lb->root);
	if (!rc)
		t->tmp[0] = '\0'; /* renamed: nothing to remove */
	if (lockfd >= 0)
		close(lockfd); /* drops the lock */
	staged_free(t, true);
	return rc;
}

static int l_write_at(locus_backend *b, const char *path, const char *data,
                      size_t len, bool cas, const char *expect,
                      locus_error *err)
{
	staged *t;
	int rc = l_stage_at(b, path, data, len, &t, 0, err);
	return rc ? rc : l_commit_at(L(b), t, cas, expect, err);
}

/* ---- write_many: stage all, swap each under its check, undo on failure */

/* One change of a batch: its staged file (writes) or its folder and name
 * (removes), the file it replaced or removed kept aside as `bak`. */
typedef struct lop {
	staged *t;   /* writes: dfd, name, tmp */
	int dfd;     /* removes */
	char *name;  /* removes */
	char bak[NAME_MAX + 1]; /* the replaced/removed file, kept aside */
	bool done, created;
} lop;

static int lop_dfd(const lop *o)
{
	return o->t ? o->t->dfd : o->dfd;
}

static const char *lop_name(const lop *o)
{
	return o->t ? o->t->name : o->name;
}

/* A fresh hidden name beside name for the file kept aside. */
static void bak_name(local_backend *lb, const char *name,
                     char bak[NAME_MAX + 1])
{
	snprintf(bak, NAME_MAX + 1, ".%.200s.locus-bak-%d-%u", name,
	         (int)getpid(), lb->seq++);
}

static int lock_dir(int dfd)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	while (fd >= 0 && flock(fd, LOCK_EX) < 0 && errno == EINTR)
		;
	return fd;
}

/*
 * Make one change under its folder's lock.  A write over a file swaps the
 * staged file in with renameat2(RENAME_EXCHANGE), so the old file lives on
 * under the temporary name (or is hard-linked aside first where the file
 * system cannot exchange); a new file goes in with RENAME_NOREPLACE; a
 * removal renames the file aside.
 */
static int lop_do(local_backend *lb, lop *o, const locus_write_op *op,
                  locus_error *err)
{
	int dfd = lop_dfd(o);
	const char *name = lop_name(o);
	int lk = lock_dir(dfd);
	if (lk < 0)
		return map_errno(err, errno, op->path, lb->root);
	int rc = cas_check(dfd, name, op->expect_sha256, op->path, err);
	struct stat st;
	if (!rc && o->t && op->expect_sha256 &&
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		int tfd = openat(dfd, o->t->tmp, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (tfd >= 0) {
			keep_meta(tfd, &st); /* the current file's owner */
			close(tfd);
		}
	}
	if (!rc && !o->t) {
		bak_name(lb, name, o->bak);
		if (renameat2(dfd, name, dfd, o->bak, RENAME_NOREPLACE) < 0 &&
		    (errno != EINVAL || renameat(dfd, name, dfd, o->bak) < 0))
			rc = map_errno(err, errno, op->path, lb->root);
	} else if (!rc && !op->expect_sha256) {
		o->created = true;
		int r = renameat2(dfd, o->t->tmp, dfd, name, RENAME_NOREPLACE);
		if (r < 0 && errno == EINVAL) /* no NOREPLACE: link, unlink */
			r = linkat(dfd, o->t->tmp, dfd, name, 0) < 0
			        ? -1
			        : unlinkat(dfd, o->t->tmp, 0);
		if (r < 0)
			rc = errno == EEXIST
			         ? lh_err(err, LOCUS_ECONFLICT,
			                  "%s was created on disk meanwhile",
			                  op->path)
			         : map_errno(err, errno, op->path, lb->root);
	} else if (!rc) {
		if (renameat2(dfd, o->t->tmp, dfd, name, RENAME_EXCHANGE) == 0) {
			memcpy(o->bak, o->t->tmp, sizeof o->bak);
		} else {
			bak_name(lb, name, o->bak);
			if (linkat(dfd, name, dfd, o->bak, 0) < 0 ||
			    renameat(dfd, o->t->tmp, dfd, name) < 0) {
				rc = map_errno(err, errno, op->path, lb->root);
				unlinkat(dfd, o->bak, 0);
				o->bak[0] = '\0';
			}
		}
	}
	if (!rc) {
		o->done = true;
		if (o->t)
			o->t->tmp[0] = '\0'; /* in place: nothing to remove */
	}
	close(lk);
	return rc;
}

/* Undo a change made: the file kept aside goes back (the very inode:
 * content, mode, owner), a created one goes. */
static void lop_undo(lop *o)
{
	int dfd = lop_dfd(o);
	const char *name = lop_name(o);
	int lk = lock_dir(dfd);
	if (o->bak[0]) {
		if (renameat(dfd, o->bak, dfd, name) == 0)
			o->bak[0] = '\0';
	} else if (o->created) {
		unlinkat(dfd, name, 0);
	}
	if (lk >= 0)
		close(lk);
}

static void lop_free(lop *o)
{
	if (o->bak[0])
		unlinkat(lop_dfd(o), o->bak, 0);
	staged_free(o->t, true);
	if (!o->t && o->dfd >= 0)
		close(o->dfd);
	free(o->name);
}

static int l_write_many(locus_backend *b, const locus_write_op *ops, size_t n,
                        size_t *failed, locus_error *err)
{
	local_backend *lb = L(b);
	*failed = 0;
	lop *o = calloc(n ? n : 1, sizeof *o);
	if (!o)
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	int rc = 0;
	size_t i = 0, k;
	for (k = 0; k < n; k++)
		o[k].dfd = -1;
	/* stage every write (and find every removal's folder) first */
	for (; i < n && !rc; i++) {
		if (ops[i].remove)
			rc = resolve_parent(lb, ops[i].path, false, &o[i].dfd,
			                    &o[i].name, err);
		else
			rc = l_stage_at(b, ops[i].path, ops[i].data, ops[i].len,
			                &o[i].t, 0, err);
	}
	if (!rc)
		for (i = 0; i < n && !rc; i++)
			rc = lop_do(lb, &o[i], &ops[i], err);
	if (rc) {
		*failed = i - 1;
		for (k = *failed; k-- > 0;)
			if (o[k].done)
				lop_undo(&o[k]);
	}
	for (k = 0; k < n; k++)
		lop_free(&o[k]);
	free(o);
	return rc;
}

static int l_write(locus_backend *b, const char *path, const char *data,
                   size_t len, locus_error *err)
{
	return l_write_at(b, path, data, len, false, NULL, err);
}

static int l_write_cas(locus_backend *b, const char *path, const char *data,
                       size_t len, const char *expect, locus_error *err)
{
	return l_write_at(b, path, data, len, true, expect, err);
}

static int l_remove(locus_backend *b, const char *path, locus_error *err)
{
	local_backend *lb = L(b);
	int dfd;
	char *name;
	int rc = resolve_parent(lb, path, false, &dfd, &name, err);
	if (rc)
		return rc;
	if (unlinkat(dfd, name, 0) < 0)
		rc = map_errno(err, errno, path, lb->root);
	close(dfd);
	free(name);
	return rc;
}

static int cmp_dirent(const void *a, const void *b)
{
	return strcmp(((const locus_dirent *)a)->name,
	              ((const locus_dirent *)b)->name);
}

static int push_ent(locus_dirent **ents, size_t *n, size_t *cap,
                    const char *name, const struct stat *st)
{
	if (!lu_reserve(ents, cap, *n + 1))
		return LOCUS_ENOMEM;
	locus_dirent *d = &(*ents)[*n];
	d->name = strdup(name);
	if (!d->name)
		return LOCUS_ENOMEM;
	d->is_dir = S_ISDIR(st->st_mode);
	d->size = (uint64_t)st->st_size;
	d->mtime_ns =
	    (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	(*n)++;
	return 0;
}

static int l_list(locus_backend *b, const char *path, locus_dirent **out,
                  size_t *n, locus_error *err)
{
	local_backend *lb = L(b);
	*out = NULL;
	*n = 0;
	int fd;
	int rc = resolve(lb, path, O_RDONLY | O_DIRECTORY, &fd, err);
	if (rc)
		return rc;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return map_errno(err, errno, path, lb->root);
	}
	size_t cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (push_ent(out, n, &cap, de->d_name, &st)) {
			closedir(d);
			locus_dirents_free(*out, *n);
			*out = NULL;
			*n = 0;
			return lh_err(err, LOCUS_ENOMEM, "out of memory");
		}
	}
	closedir(d);
	if (*n)
		qsort(*out, *n, sizeof **out, cmp_dirent);
	return 0;
}

/* Iterative walk: a stack of (dir fd, relative prefix). */
static int l_walk(locus_backend *b, const char *path, size_t max,
                  locus_dirent **out, size_t *n, locus_error *err)
{
	local_backend *lb = L(b);
	*out = NULL;
	*n = 0;
	int fd;
	int rc = resolve(lb, path, O_RDONLY | O_DIRECTORY, &fd, err);
	if (rc)
		return rc;
	typedef struct {
		DIR *d;
		char *prefix;
	} frame;
	size_t depth = 0, fcap = 16, cap = 0;
	frame *st = malloc(fcap * sizeof *st);
	if (!st) {
		close(fd);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	st[0].d = fdopendir(fd);
	st[0].prefix = strdup("");
	if (!st[0].d || !st[0].prefix) {
		if (st[0].d)
			closedir(st[0].d);
		else
			close(fd);
		free(st[0].prefix);
		free(st);
		return lh_err(err, LOCUS_ENOMEM, "cannot open %s", path);
	}
	depth = 1;
	rc = 0;
	while (depth && *n < max) {
		frame *f = &st[depth - 1];
		struct dirent *de = readdir(f->d);
		if (!de) {
			closedir(f->d);
			free(f->prefix);
			depth--;
			continue;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		struct stat sb;
		if (fstatat(dirfd(f->d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW))
			continue;
		size_t pl = strlen(f->prefix);
		char *full = malloc(pl + strlen(de->d_name) + 2);
		if (!full) {
			rc = LOCUS_ENOMEM;
			break;
		}
		sprintf(full, "%s%s%s", f->prefix, pl ? "/" : "", de->d_name);
		if (S_ISDIR(sb.st_mode)) {
			if (lh_is_skip_dir(de->d_name)) {
				free(full);
				continue;
			}
			int cfd = openat(dirfd(f->d), de->d_name,
			                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			                     O_CLOEXEC);
			DIR *cd = cfd >= 0 ? fdopendir(cfd) : NULL;
			if (!cd) {
				if (cfd >= 0)
					close(cfd);
				free(full);
				continue;
			}
			if (depth == fcap) {
				frame *ns = realloc(st, 2 * fcap * sizeof *ns);
				if (!ns) {
					closedir(cd);
					free(full);
					rc = LOCUS_ENOMEM;
					break;
				}
				st = ns;
				fcap *= 2;
			}
			st[depth].d = cd;
			st[depth].prefix = full;
			depth++;
			continue;
		}
		/* symlinks are not followed: their targets may lie outside */
		if (S_ISREG(sb.st_mode) && push_ent(out, n, &cap, full, &sb)) {
			free(full);
			rc = LOCUS_ENOMEM;
			break;
		}
		free(full);
	}
	while (depth) {
		closedir(st[depth - 1].d);
		free(st[depth - 1].prefix);
		depth--;
	}
	free(st);
	if (rc) {
		locus_dirents_free(*out, *n);
		*out = NULL;
		*n = 0;
		return lh_err(err, rc, "out of memory");
	}
	if (*n)
		qsort(*out, *n, sizeof **out, cmp_dirent);
	return 0;
}

/* ---------------- commands ---------------- */

static int ensure_state(local_backend *lb, locus_error *err)
{
	if (lb->state_dir)
		return 0;
	const char *tmp = getenv("TMPDIR");
	char templ[4096];
	snprintf(templ, sizeof templ, "%s/locus-harness-XXXXXX",
	         tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(templ))
		return lh_err(err, LOCUS_EIO, "cannot make a state folder: %s",
		              strerror(errno));
	lb->state_dir = strdup(templ);
	if (!lb->state_dir) {
		rmdir(templ);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	return 0;
}

static job *find_job(local_backend *lb, const char *handle)
{
	for (size_t i = 0; i < lb->njobs; i++)
		if (!strcmp(lb->jobs[i].handle, handle))
			return &lb->jobs[i];
	return NULL;
}

static int decode_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -1;
}

static void job_poll(job *j)
{
	if (j->finished)
		return;
	int st;
	pid_t r = waitpid(j->pid, &st, WNOHANG);
	if (r == j->pid) {
		j->finished = true;
		j->exit_code = decode_status(st);
	}
}

/* Stop a command: its supervisor kills the whole tree (its group, setsid
 * escapes, double forks) and exits; we reap it. */
static void kill_group_wait(pid_t pid, job *j)
{
	if (j && j->finished)
		return;
	kill(pid, SIGTERM);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (j) {
		j->finished = true;
		j->exit_code = decode_status(st);
	}
}

static int read_file_from(const char *p, size_t since, char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	lh_buf buf = {0};
	char tmp[65536];
	off_t off = (off_t)since;
	for (;;) {
		ssize_t r = pread(fd, tmp, sizeof tmp, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		lh_buf_add(&buf, tmp, (size_t)r);
		off += r;
		if (buf.len > MAX_FILE_BYTES)
			break;
	}
	close(fd);
	*len = buf.len;
	*out = lh_buf_take(&buf);
	return *out ? 0 : -1;
}

/* One wait step of a foreground command under ctl: progress about once a
   second; true when the call was cancelled. */
static bool ctl_step(const locus_call_ctl *ctl, int ofd, double start,
                     double *last)
{
	if (!ctl)
		return false;
	if (locus_call_cancelled(ctl))
		return true;
	double now = lh_now();
	if (ctl->progress && now - *last >= 1.0) {
		struct stat st;
		*last = now;
		ctl->progress(now - start,
		              fstat(ofd, &st) == 0 ? (size_t)st.st_size : 0,
		              ctl->payload);
	}
	return false;
}

static int l_exec_ctl(locus_backend *b, const char *command, double timeout_s,
                      int flags, const locus_call_ctl *ctl,
                      locus_exec_result *res, locus_error *err);

static int l_exec(locus_backend *b, const char *command, double timeout_s,
                  int flags, locus_exec_result *res, locus_error *err)
{
	return l_exec_ctl(b, command, timeout_s, flags, NULL, res, err);
}

static int l_exec_ctl(locus_backend *b, const char *command, double timeout_s,
                      int flags, const locus_call_ctl *ctl,
                      locus_exec_result *res, locus_error *err)
{
	local_backend *lb = L(b);
	memset(res, 0, sizeof *res);
	/* finished background jobs are reaped and their FIFOs closed here,
	 * so a session of many short jobs holds no zombies or fds */
	for (size_t i = 0; i < lb->njobs; i++) {
		job_poll(&lb->jobs[i]);
		if (lb->jobs[i].finished && lb->jobs[i].stdin_fd >= 0) {
			close(lb->jobs[i].stdin_fd);
			lb->jobs[i].stdin_fd = -1;
		}
	}
	int rc = ensure_state(lb, err);
	if (rc)
		return rc;
	if (!lu_reserve(&lb->jobs, &lb->cap_jobs, lb->njobs + 1))
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	unsigned id = ++lb->seq;
	char outp[4200], inp[4200];
	snprintf(outp, sizeof outp, "%s/%u.out", lb->state_dir, id);
	snprintf(inp, sizeof inp, "%s/%u.in", lb->state_dir, id);
	bool bg = flags & LOCUS_EXEC_BACKGROUND;
	bool keep = flags & LOCUS_EXEC_KEEP;
	int ofd = open(outp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (ofd < 0)
		return lh_err(err, LOCUS_EIO, "cannot make %s: %s", outp,
		              strerror(errno));
	int infd = -1;
	if (bg) {
		if (mkfifo(inp, 0600) == 0)
			infd = open(inp, O_RDWR | O_CLOEXEC);
		if (infd < 0) {
			close(ofd);
			return lh_err(err, LOCUS_EIO, "cannot make a FIFO: %s",
			              strerror(errno));
		}
	}
	double start = lh_now();
	/* a supervisor (harness/supervise.c) runs the command in its own
	 * session, caps its output and kills whatever it leaves behind */
	lh_spawn_opts so = {lb->root_fd,      command,
	                    bg ? inp : NULL,  ofd,
	                    lb->output_max,   lb->rlimit_nproc,
	                    lb->rlimit_fsize};
	pid_t pgid;
	pid_t pid = lh_spawn(&so, &pgid, err);
	if (pid < 0) {
		close(ofd);
		if (infd >= 0)
			close(infd);
		return LOCUS_EIO;
	}
	job j;
	memset(&j, 0, sizeof j);
	j.pid = pid;
	j.stdin_fd = bg ? infd : -1;
	if (!bg && infd >= 0)
		close(infd);
	j.start = start;
	j.out_path = strdup(outp);
	if (!bg) {
		useconds_t nap = 2000;
		double last = start;
		for (;;) {
			job_poll(&j);
			if (j.finished)
				break;
			if (ctl_step(ctl, ofd, start, &last)) {
				res->cancelled = true;
				break;
			}
			if (lh_now() - start >= timeout_s) {
				res->timed_out = true;
				break;
			}
			usleep(nap);
			if (nap < 50000)
				nap *= 2;
		}
		if (!j.finished && (!keep || res->cancelled)) {
			kill_group_wait(pid, &j);
			j.finished = false; /* killed, no exit status */
		}
	}
	close(ofd);
	res->duration_s = lh_now() - start;
	read_file_from(outp, 0, &res->output, &res->output_len);
	if (bg || (res->timed_out && keep)) {
		snprintf(j.handle, sizeof j.handle, "sh%u", ++lb->next_handle);
		memcpy(res->handle, j.handle, sizeof j.handle);
		if (!j.out_path) {
			kill_group_wait(pid, &j);
			return lh_err(err, LOCUS_ENOMEM, "out of memory");
		}
		lb->jobs[lb->njobs++] = j;
		res->finished = false;
		return 0;
	}
	res->finished = j.finished;
	res->exit_code = j.finished ? j.exit_code : -1;
	unlink(outp);
	free(j.out_path);
	return 0;
}

static int l_bg_output(locus_backend *b, const char *handle, size_t since,
                       char **out, size_t *len, locus_bg_status *st,
                       locus_error *err)
{
	job *j = find_job(L(b), handle);
	*out = NULL;
	*len = 0;
	if (!j)
		return lh_err(err, LOCUS_ENOTFOUND, "no background command %s",
		              handle);
	job_poll(j);
	st->running = !j->finished;
	st->exit_code = j->exit_code;
	read_file_from(j->out_path, since, out, len);
	st->next = since + *len;
	return 0;
}

static int l_bg_write(locus_backend *b, const char *handle, const char *data,
                      size_t len, bool close_stdin, locus_error *err)
{
	local_backend *lb = L(b);
	job *j = find_job(lb, handle);
	if (!j)
		return lh_err(err, LOCUS_ENOTFOUND, "no background command %s",
		              handle);
	job_poll(j);
	if (j->stdin_fd < 0)
		return lh_err(err, LOCUS_EINVALID, "%s has no open stdin",
		              handle);
	if (j->finished)
		return lh_err(err, LOCUS_EINVALID, "%s has exited", handle);
	/* never block on a command that does not read: non-blocking
	 * writes, and poll for room until the deadline */
	int fl = fcntl(j->stdin_fd, F_GETFL);
	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(j->stdin_fd, F_SETFL, fl | O_NONBLOCK);
	size_t off = 0;
	double until = lh_now() + lb->stdin_timeout;
	while (off < len) {
		ssize_t w = write(j->stdin_fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			double left = until - lh_now();
			struct pollfd pf = {j->stdin_fd, POLLOUT, 0};
			if (left <= 0 || poll(&pf, 1, (int)(left * 1000) + 1) == 0)
				return lh_err(err, LOCUS_ETIMEOUT,
				              "%s is not reading its stdin: %zu of "
				              "%zu bytes written in %.0f s",
				              handle, off, len, lb->stdin_timeout);
			continue;
		}
		if (w < 0)
			return lh_err(err, LOCUS_EIO, "%s stdin: %s", handle,
			              strerror(errno));
		off += (size_t)w;
	}
	if (close_stdin) {
		close(j->stdin_fd);
		j->stdin_fd = -1;
	}
	return 0;
}

static int l_bg_kill(locus_backend *b, const char *handle, locus_bg_status *st,
                     locus_error *err)
{
	job *j = find_job(L(b), handle);
	if (!j)
		return lh_err(err, LOCUS_ENOTFOUND, "no background command %s",
		              handle);
	job_poll(j);
	kill_group_wait(j->pid, j);
	if (j->stdin_fd >= 0) {
		close(j->stdin_fd);
		j->stdin_fd = -1;
	}
	st->running = false;
	st->exit_code = j->exit_code;
	st->next = 0;
	return 0;
}

static void l_free(locus_backend *b)
{
	local_backend *lb = L(b);
	for (size_t i = 0; i < lb->njobs; i++) {
		job *j = &lb->jobs[i];
		job_poll(j);
		kill_group_wait(j->pid, j);
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
	lb->base.stat = l_stat;
	lb->base.read = l_read;
	lb->base.write = l_write;
	lb->base.write_cas = l_write_cas;
	lb->base.write_many = l_write_many;
	lb->base.remove = l_remove;
	lb->base.list = l_list;
	lb->base.walk = l_walk;
	lb->base.exec = l_exec;
	lb->base.exec_ctl = l_exec_ctl;
	lb->base.bg_output = l_bg_output;
	lb->base.bg_write = l_bg_write;
	lb->base.bg_kill = l_bg_kill;
	lb->base.free = l_free;
	*out = &lb->base;
	return 0;
}
