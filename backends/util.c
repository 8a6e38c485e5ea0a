/*
 * backends/util.c - what the backends share (backends/internal.h): skipped
 * folders, lexical paths, listings, nonces, folder removal, call control.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "../util/path.h"
#include "../util/sha256.h"
#include "../util/array.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const locus_skip_dirs[] = {
    ".git", "node_modules", "__pycache__", ".venv", "venv",
    "dist", "build",        ".mypy_cache", NULL,
};

bool lh_is_skip_dir(const char *name)
{
	for (size_t i = 0; locus_skip_dirs[i]; i++)
		if (!strcmp(name, locus_skip_dirs[i]))
			return true;
	/* the session backend's own state is never shown */
	return !strncmp(name, ".locus-harness", 14);
}

int lh_path_rel(const char *root, const char *path, char **out,
                locus_error *err)
{
	*out = NULL;
	if (!path)
		path = ".";
	if (memchr(path, '\0', strlen(path) + 1) != path + strlen(path))
		return lu_err(err, LOCUS_EINVALID, "bad path");
	const char *rest = path;
	size_t rl = strlen(root);
	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	if (path[0] == '/') {
		if (rl == 1 && root[0] == '/')
			rest = path + 1;
		else if (!strncmp(path, root, rl) &&
		         (path[rl] == '/' || path[rl] == '\0'))
			rest = path + rl;
		else
			return lu_err(err, LOCUS_EDENIED,
			              "%s is outside the workspace %s: refused",
			              path, root);
	}
	while (*rest == '/')
		rest++;
	bool escapes = false;
	char *res = lu_path_collapse(rest, &escapes);
	if (!res)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (escapes) {
		free(res);
		return lu_err(err, LOCUS_EDENIED,
		              "%s resolves outside the workspace %s: refused",
		              path, root);
	}
	if (!strcmp(res, "."))
		res[0] = '\0'; /* the root itself */
	*out = res;
	return 0;
}

void locus_dirents_free(locus_dirent *ents, size_t n)
{
	if (!ents)
		return;
	for (size_t i = 0; i < n; i++)
		free(ents[i].name);
	free(ents);
}

char *lh_strdup_dir(const char *dir)
{
	char *d = strdup(dir);
	size_t n = d ? strlen(d) : 0;
	while (n > 1 && d[n - 1] == '/')
		d[--n] = '\0';
	return d;
}

int lh_dirent_push(locus_dirent **ents, size_t *n, size_t *cap,
                   const char *name, size_t nl, bool is_dir, uint64_t size,
                   int64_t mtime_ns)
{
	if (!lu_reserve(ents, cap, *n + 1))
		return LOCUS_ENOMEM;
	locus_dirent *d = &(*ents)[*n];
	d->name = strndup(name, nl);
	if (!d->name)
		return LOCUS_ENOMEM;
	d->is_dir = is_dir;
	d->size = size;
	d->mtime_ns = mtime_ns;
	(*n)++;
	return 0;
}

static int dirent_cmp(const void *a, const void *b)
{
	return strcmp(((const locus_dirent *)a)->name,
	              ((const locus_dirent *)b)->name);
}

static void close_span(unsigned lo, unsigned hi)
{
	if (lo > hi)
		return;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, lo, hi, 0) == 0)
		return;
#endif
	struct rlimit rl;
	rlim_t top = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 65536;
	if (top > ((rlim_t)1 << 20))
		top = (rlim_t)1 << 20;
	for (unsigned fd = lo; fd <= hi && (rlim_t)fd < top; fd++)
		close((int)fd);
}

void lh_close_fds_from(int low, int keep)
{
	if (keep >= low) {
		close_span((unsigned)low, (unsigned)keep - 1);
		close_span((unsigned)keep + 1, ~0U);
	} else {
		close_span((unsigned)low, ~0U);
	}
}

size_t lh_buf_add_shown(lu_buf *b, const char *s, size_t n)
{
	size_t nuls = 0;
	while (n) {
		const char *z = memchr(s, '\0', n);
		size_t k = z ? (size_t)(z - s) : n;
		lu_buf_add(b, s, k);
		if (!z)
			break;
		lu_buf_puts(b, LH_NUL_SHOWN);
		nuls++;
		s += k + 1;
		n -= k + 1;
	}
	return nuls;
}

int lh_dirents_finish(locus_dirent **ents, size_t *n, int rc, locus_error *err)
{
	if (rc) {
		locus_dirents_free(*ents, *n);
		*ents = NULL;
		*n = 0;
		return lu_err(err, rc, "%s",
		              rc == LOCUS_ENOMEM
		                  ? "out of memory"
		                  : "the walk ran out of file descriptors "
		                    "(one per folder level): the tree is too "
		                    "deep to list whole; narrow the path");
	}
	if (*n)
		qsort(*ents, *n, sizeof **ents, dirent_cmp);
	return 0;
}

void locus_exec_result_clear(locus_exec_result *r)
{
	if (!r)
		return;
	free(r->output);
	r->output = NULL;
	r->output_len = 0;
}

void locus_backend_free(locus_backend *b)
{
	if (b && b->free)
		b->free(b);
}

void locus_session_free(locus_session *s)
{
	if (s && s->free)
		s->free(s);
}

int lh_nonce(char out[33])
{
	unsigned char r[16];
	size_t got = 0;
	while (got < sizeof r) {
		ssize_t n = getrandom(r + got, sizeof r - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	lu_hex(r, sizeof r, out);
	return 0;
}

/* Depth-first, never following links: each folder is opened O_NOFOLLOW
 * beneath the one before, so a link planted inside cannot lead out. */
static void rmtree_in(int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0 || depth > 64)
			continue;
		int c = openat(dirfd(d), de->d_name,
		               O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (c >= 0) {
			rmtree_in(c, depth + 1);
			unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
		}
	}
	closedir(d);
}

void lh_rmtree(const char *path)
{
	if (!path)
		return;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		unlink(path);
		return;
	}
	rmtree_in(fd, 0);
	rmdir(path);
}

bool locus_call_cancelled(const locus_call_ctl *ctl)
{
	return ctl && __atomic_load_n(&ctl->cancelled, __ATOMIC_SEQ_CST);
}

bool lh_ctl_step(const locus_call_ctl *ctl, double start, double *last,
                 size_t bytes)
{
	if (!ctl)
		return false;
	if (locus_call_cancelled(ctl))
		return true;
	double now = lu_now();
	if (ctl->progress && now - *last >= 1.0) {
		*last = now;
		ctl->progress(now - start, bytes, ctl->payload);
	}
	return false;
}
