/*
 * backends/local_files.c - the LocalBackend's files: stat, read, writes
 * (a temporary file beside the target, mode and owner taken over, renamed
 * over it under a compare-and-swap check), write_many (every file staged,
 * each swapped in with the old one kept aside, all undone on a failure),
 * remove, list and walk.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "local.h"
#include "../util/array.h"
#include "../util/write.h"

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

/* ---------------- files ---------------- */

int lh_l_stat(locus_backend *b, const char *path, locus_stat *out,
              locus_error *err)
{
	local_backend *lb = L(b);
	memset(out, 0, sizeof *out);
	int fd;
	int rc = lh_resolve(lb, path, O_PATH, &fd, err);
	if (rc == LOCUS_ENOTFOUND)
		return 0; /* exists = false */
	if (rc)
		return rc;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return lh_map_errno(err, errno, path, lb->root);
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
		return lu_err(err, LOCUS_EIO, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return lu_err(err, LOCUS_EINVALID, "%s is a folder, not a file",
		              path);
	if (!S_ISREG(st.st_mode))
		return lu_err(err, LOCUS_EINVALID, "%s is not a regular file",
		              path);
	lu_buf buf = {0};
	char tmp[65536];
	for (;;) {
		ssize_t r = read(fd, tmp, sizeof tmp);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			lu_buf_free(&buf);
			return lu_err(err, LOCUS_EIO, "%s: %s", path,
			              strerror(errno));
		}
		if (r == 0)
			break;
		if (buf.len + (size_t)r > LH_MAX_FILE_BYTES) {
			lu_buf_free(&buf);
			return lu_err(err, LOCUS_ETOOBIG,
			              "%s is larger than %u bytes", path,
			              LH_MAX_FILE_BYTES);
		}
		lu_buf_add(&buf, tmp, (size_t)r);
	}
	*len = buf.len;
	*out = lu_buf_take(&buf);
	if (!*out)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	return 0;
}

int lh_l_read(locus_backend *b, const char *path, char **out, size_t *len,
              locus_error *err)
{
	local_backend *lb = L(b);
	*out = NULL;
	*len = 0;
	int fd;
	int rc = lh_resolve(lb, path, O_RDONLY | O_NONBLOCK, &fd, err);
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
	int fd =
	    openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && !expect)
			return 0;
		if (errno == ENOENT)
			return lu_err(
			    err, LOCUS_ECONFLICT,
			    "%s was removed on disk since it was read", path);
		return lh_map_errno(err, errno, path, "");
	}
	if (!expect) {
		close(fd);
		return lu_err(err, LOCUS_ECONFLICT,
		              "%s was created on disk meanwhile", path);
	}
	char *data = NULL;
	size_t len = 0;
	int rc = read_fd_all(fd, path, &data, &len, err);
	close(fd);
	if (rc)
		return rc;
	char sha[65];
	lu_sha256_hex(data, len, sha);
	free(data);
	if (strcmp(sha, expect))
		return lu_err(err, LOCUS_ECONFLICT,
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
		return lh_map_errno(err, errno, path, lb->root);
	if (had)
		keep_meta(fd, had);
	if (lu_write_all(fd, data, len) < 0) {
		int rc = lh_map_errno(err, errno, path, lb->root);
		close(fd);
		unlinkat(dfd, tmp, 0);
		return rc;
	}
	if (close(fd) < 0) {
		int rc = lh_map_errno(err, errno, path, lb->root);
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
	int rc = lh_resolve(lb, path, O_PATH, &fd, err);
	if (rc == LOCUS_ENOTFOUND)
		return lu_err(err, LOCUS_EINVALID,
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
		return lh_escape_err(err, path, lb->root);
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
	int rc = lh_resolve_parent(lb, path, true, &dfd, &name, err);
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
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	t->dfd = dfd;
	t->name = name;
	if (had && S_ISDIR(st.st_mode))
		rc = lu_err(err, LOCUS_EINVALID, "%s is a folder, not a file",
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
		lockfd =
		    openat(t->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		while (lockfd >= 0 && flock(lockfd, LOCK_EX) < 0 &&
		       errno == EINTR)
			;
		rc = lockfd < 0
		         ? lh_map_errno(err, errno, t->path, lb->root)
		         : cas_check(t->dfd, t->name, expect, t->path, err);
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
		rc = lh_map_errno(err, errno, t->path, lb->root);
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
	staged *t;              /* writes: dfd, name, tmp */
	int dfd;                /* removes */
	char *name;             /* removes */
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
		return lh_map_errno(err, errno, op->path, lb->root);
	int rc = cas_check(dfd, name, op->expect_sha256, op->path, err);
	struct stat st;
	if (!rc && o->t && op->expect_sha256 &&
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		int tfd =
		    openat(dfd, o->t->tmp, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (tfd >= 0) {
			keep_meta(tfd, &st); /* the current file's owner */
			close(tfd);
		}
	}
	if (!rc && !o->t) {
		bak_name(lb, name, o->bak);
		if (renameat2(dfd, name, dfd, o->bak, RENAME_NOREPLACE) < 0 &&
		    (errno != EINVAL || renameat(dfd, name, dfd, o->bak) < 0))
			rc = lh_map_errno(err, errno, op->path, lb->root);
	} else if (!rc && !op->expect_sha256) {
		o->created = true;
		int r = renameat2(dfd, o->t->tmp, dfd, name, RENAME_NOREPLACE);
		if (r < 0 && errno == EINVAL) /* no NOREPLACE: link, unlink */
			r = linkat(dfd, o->t->tmp, dfd, name, 0) < 0
			        ? -1
			        : unlinkat(dfd, o->t->tmp, 0);
		if (r < 0)
			rc = errno == EEXIST
			         ? lu_err(err, LOCUS_ECONFLICT,
			                  "%s was created on disk meanwhile",
			                  op->path)
			         : lh_map_errno(err, errno, op->path, lb->root);
	} else if (!rc) {
		if (renameat2(dfd, o->t->tmp, dfd, name, RENAME_EXCHANGE) ==
		    0) {
			memcpy(o->bak, o->t->tmp, sizeof o->bak);
		} else {
			bak_name(lb, name, o->bak);
			if (linkat(dfd, name, dfd, o->bak, 0) < 0 ||
			    renameat(dfd, o->t->tmp, dfd, name) < 0) {
				rc = lh_map_errno(err, errno, op->path,
				                  lb->root);
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

int lh_l_write_many(locus_backend *b, const locus_write_op *ops, size_t n,
                    size_t *failed, locus_error *err)
{
	local_backend *lb = L(b);
	*failed = 0;
	lop *o = calloc(n ? n : 1, sizeof *o);
	if (!o)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	int rc = 0;
	size_t i = 0, k;
	for (k = 0; k < n; k++)
		o[k].dfd = -1;
	/* stage every write (and find every removal's folder) first */
	for (; i < n && !rc; i++) {
		if (ops[i].remove)
			rc = lh_resolve_parent(lb, ops[i].path, false,
			                       &o[i].dfd, &o[i].name, err);
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

int lh_l_write(locus_backend *b, const char *path, const char *data, size_t len,
               locus_error *err)
{
	return l_write_at(b, path, data, len, false, NULL, err);
}

int lh_l_write_cas(locus_backend *b, const char *path, const char *data,
                   size_t len, const char *expect, locus_error *err)
{
	return l_write_at(b, path, data, len, true, expect, err);
}

int lh_l_remove(locus_backend *b, const char *path, locus_error *err)
{
	local_backend *lb = L(b);
	int dfd;
	char *name;
	int rc = lh_resolve_parent(lb, path, false, &dfd, &name, err);
	if (rc)
		return rc;
	if (unlinkat(dfd, name, 0) < 0)
		rc = lh_map_errno(err, errno, path, lb->root);
	close(dfd);
	free(name);
	return rc;
}

static int push_ent(locus_dirent **ents, size_t *n, size_t *cap,
                    const char *name, const struct stat *st)
{
	return lh_dirent_push(ents, n, cap, name, strlen(name),
	                      S_ISDIR(st->st_mode), (uint64_t)st->st_size,
	                      (int64_t)st->st_mtim.tv_sec * 1000000000 +
	                          st->st_mtim.tv_nsec);
}

int lh_l_list(locus_backend *b, const char *path, locus_dirent **out, size_t *n,
              locus_error *err)
{
	local_backend *lb = L(b);
	*out = NULL;
	*n = 0;
	int fd;
	int rc = lh_resolve(lb, path, O_RDONLY | O_DIRECTORY, &fd, err);
	if (rc)
		return rc;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return lh_map_errno(err, errno, path, lb->root);
	}
	size_t cap = 0;
	struct dirent *de;
	while (!rc && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		rc = push_ent(out, n, &cap, de->d_name, &st);
	}
	closedir(d);
	return lh_dirents_finish(out, n, rc, err);
}

/* Iterative walk: a stack of (dir fd, relative prefix). */
/* A folder being walked, and the path of its entries. */
typedef struct walk_frame {
	DIR *d;
	char *prefix;
} walk_frame;

typedef struct walk_stack {
	walk_frame *f;
	size_t depth, cap;
} walk_stack;

/* Enter a sub-folder (name in the top frame's folder, never through a
 * link); full is its path (taken).  An unreadable folder is skipped. */
static int walk_enter(walk_stack *w, const char *name, char *full)
{
	walk_frame *top = &w->f[w->depth - 1];
	int cfd = openat(dirfd(top->d), name,
	                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int oe = cfd < 0 ? errno : 0;
	DIR *cd = cfd >= 0 ? fdopendir(cfd) : NULL;
	if (!cd) {
		if (cfd >= 0)
			close(cfd);
		free(full);
		/* out of descriptors (one per level): saying so beats a
		   result that silently misses the deeper files */
		return oe == EMFILE || oe == ENFILE ? LOCUS_EIO : 0;
	}
	if (!lu_reserve(&w->f, &w->cap, w->depth + 1)) {
		closedir(cd);
		free(full);
		return LOCUS_ENOMEM;
	}
	w->f[w->depth++] = (walk_frame){cd, full};
	return 0;
}

/* Walk until done or max entries: regular files are listed, SKIP_DIRS
 * left out, links never followed.  0 or LOCUS_ENOMEM. */
static int walk_run(walk_stack *w, size_t max, locus_dirent **out, size_t *n)
{
	size_t cap = 0;
	while (w->depth && *n < max) {
		walk_frame *f = &w->f[w->depth - 1];
		struct dirent *de = readdir(f->d);
		if (!de) {
			closedir(f->d);
			free(f->prefix);
			w->depth--;
			continue;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		struct stat sb;
		if (fstatat(dirfd(f->d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW))
			continue;
		size_t pl = strlen(f->prefix);
		char *full = malloc(pl + strlen(de->d_name) + 2);
		if (!full)
			return LOCUS_ENOMEM;
		sprintf(full, "%s%s%s", f->prefix, pl ? "/" : "", de->d_name);
		if (S_ISDIR(sb.st_mode)) {
			if (lh_is_skip_dir(de->d_name)) {
				free(full);
				continue;
			}
			int rc = walk_enter(w, de->d_name, full);
			if (rc)
				return rc;
			continue;
		}
		/* symlinks are not followed: their targets may lie outside */
		int rc =
		    S_ISREG(sb.st_mode) ? push_ent(out, n, &cap, full, &sb) : 0;
		free(full);
		if (rc)
			return LOCUS_ENOMEM;
	}
	return 0;
}

int lh_l_walk(locus_backend *b, const char *path, size_t max,
              locus_dirent **out, size_t *n, locus_error *err)
{
	local_backend *lb = L(b);
	*out = NULL;
	*n = 0;
	int fd;
	int rc = lh_resolve(lb, path, O_RDONLY | O_DIRECTORY, &fd, err);
	if (rc)
		return rc;
	walk_stack w = {0};
	DIR *d = fdopendir(fd);
	char *prefix = strdup("");
	if (!d || !prefix || !lu_reserve(&w.f, &w.cap, 16)) {
		if (d)
			closedir(d);
		else
			close(fd);
		free(prefix);
		free(w.f);
		return lu_err(err, LOCUS_ENOMEM, "cannot open %s", path);
	}
	w.f[w.depth++] = (walk_frame){d, prefix};
	rc = walk_run(&w, max, out, n);
	while (w.depth) {
		closedir(w.f[w.depth - 1].d);
		free(w.f[w.depth - 1].prefix);
		w.depth--;
	}
	free(w.f);
	return lh_dirents_finish(out, n, rc, err);
}
