/*
 * harness/util.c - buffers, errors, digests and lexical paths.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/random.h>
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

static bool buf_reserve(lh_buf *b, size_t extra)
{
	if (b->oom)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1) {
		if (cap > SIZE_MAX / 2) {
			b->oom = true;
			return false;
		}
		cap *= 2;
	}
	char *d = realloc(b->d, cap);
	if (!d) {
		b->oom = true;
		return false;
	}
	b->d = d;
	b->cap = cap;
	return true;
}

void lh_buf_add(lh_buf *b, const char *s, size_t n)
{
	if (!buf_reserve(b, n))
		return;
	if (n)
		memcpy(b->d + b->len, s, n);
	b->len += n;
	b->d[b->len] = '\0';
}

void lh_buf_puts(lh_buf *b, const char *s)
{
	lh_buf_add(b, s, strlen(s));
}

void lh_buf_printf(lh_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !buf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->d + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *lh_buf_take(lh_buf *b)
{
	if (b->oom) {
		lh_buf_free(b);
		return NULL;
	}
	char *d = b->d;
	if (!d)
		d = calloc(1, 1);
	b->d = NULL;
	b->len = b->cap = 0;
	return d;
}

void lh_buf_free(lh_buf *b)
{
	free(b->d);
	b->d = NULL;
	b->len = b->cap = 0;
	b->oom = false;
}

void lh_buf_shquote(lh_buf *b, const char *s)
{
	lh_buf_add(b, "'", 1);
	for (; *s; s++) {
		if (*s == '\'')
			lh_buf_puts(b, "'\\''");
		else
			lh_buf_add(b, s, 1);
	}
	lh_buf_add(b, "'", 1);
}

int lh_err(locus_error *err, int code, const char *fmt, ...)
{
	if (err) {
		memset(err, 0, sizeof *err);
		err->code = code;
		err->offset = -1;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
	}
	return code;
}

void lh_sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	static const char hex[] = "0123456789abcdef";
	if (!EVP_Digest(data ? data : "", len, md, &mdlen, EVP_sha256(),
	                NULL) ||
	    mdlen != 32) {
		/* never a valid digest: compares unequal to any real one */
		memset(out, '?', 64);
		out[64] = '\0';
		return;
	}
	for (unsigned i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
}

double lh_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int lh_path_rel(const char *root, const char *path, char **out,
                locus_error *err)
{
	*out = NULL;
	if (!path)
		path = ".";
	if (memchr(path, '\0', strlen(path) + 1) != path + strlen(path))
		return lh_err(err, LOCUS_EINVALID, "bad path");
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
			return lh_err(err, LOCUS_EDENIED,
			              "%s is outside the workspace %s: refused",
			              path, root);
	}
	size_t n = strlen(rest);
	char *res = malloc(n + 1);
	size_t *starts = malloc((n / 2 + 2) * sizeof *starts);
	if (!res || !starts) {
		free(res);
		free(starts);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	size_t depth = 0, o = 0;
	for (const char *p = rest; *p;) {
		while (*p == '/')
			p++;
		const char *e = p;
		while (*e && *e != '/')
			e++;
		size_t cl = (size_t)(e - p);
		if (cl == 0 || (cl == 1 && p[0] == '.')) {
			/* nothing */
		} else if (cl == 2 && p[0] == '.' && p[1] == '.') {
			if (depth == 0) {
				free(res);
				free(starts);
				return lh_err(
				    err, LOCUS_EDENIED,
				    "%s resolves outside the workspace "
				    "%s: refused",
				    path, root);
			}
			o = starts[--depth];
			if (o > 0)
				o--; /* the '/' before it */
		} else {
			if (o > 0)
				res[o++] = '/';
			starts[depth++] = o;
			memcpy(res + o, p, cl);
			o += cl;
		}
		p = e;
	}
	res[o] = '\0';
	free(starts);
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
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < sizeof r; i++) {
		out[2 * i] = hex[r[i] >> 4];
		out[2 * i + 1] = hex[r[i] & 15];
	}
	out[32] = '\0';
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
