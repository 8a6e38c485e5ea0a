/*
 * harness/memory.c - MemoryBackend: a sorted map of path -> bytes, no shell.
 *
 * Folders exist implicitly (a path is a folder when some file lies under
 * it).  Paths are normalised lexically against "/"; `..` may not climb
 * above it.  mtime is a counter, so newer writes sort first in glob.
 */
#include "internal.h"
#include "../util/array.h"

#include <stdlib.h>
#include <stddef.h>
#include <string.h>

typedef struct mfile {
	char *path; /* relative, no leading '/' */
	char *data;
	size_t len;
	int64_t mtime;
} mfile;

typedef struct mem_backend {
	locus_backend base;
	mfile *files;
	size_t n, cap;
	int64_t clock;
} mem_backend;

static mem_backend *M(locus_backend *b)
{
	return (mem_backend *)b;
}

/* Binary search: index of path, or the insertion point with *found false. */
static size_t m_find(mem_backend *m, const char *path, bool *found)
{
	return lu_sorted_find(m->files, m->n, sizeof *m->files,
	                      offsetof(mfile, path), path, found);
}

static bool under(const char *file, const char *dir)
{
	if (!*dir)
		return true;
	size_t dl = strlen(dir);
	return !strncmp(file, dir, dl) && file[dl] == '/';
}

static bool m_is_dir(mem_backend *m, const char *rel)
{
	if (!*rel)
		return true;
	bool f;
	size_t i = m_find(m, rel, &f);
	if (f)
		i++;
	/* files under rel sort right after rel itself (or "rel-x" between:
	 * scan the few that share the prefix) */
	for (; i < m->n && !strncmp(m->files[i].path, rel, strlen(rel)); i++)
		if (under(m->files[i].path, rel))
			return true;
	return false;
}

static int m_stat(locus_backend *b, const char *path, locus_stat *out,
                  locus_error *err)
{
	mem_backend *m = M(b);
	memset(out, 0, sizeof *out);
	char *rel;
	int rc = lh_path_rel("/", path, &rel, err);
	if (rc)
		return rc;
	bool f;
	size_t i = m_find(m, rel, &f);
	if (f) {
		out->exists = true;
		out->size = m->files[i].len;
		out->mtime_ns = m->files[i].mtime;
	} else if (m_is_dir(m, rel)) {
		out->exists = true;
		out->is_dir = true;
	}
	free(rel);
	return 0;
}

static int m_read(locus_backend *b, const char *path, char **out, size_t *len,
                  locus_error *err)
{
	mem_backend *m = M(b);
	*out = NULL;
	*len = 0;
	char *rel;
	int rc = lh_path_rel("/", path, &rel, err);
	if (rc)
		return rc;
	bool f;
	size_t i = m_find(m, rel, &f);
	if (!f) {
		rc = m_is_dir(m, rel)
		         ? lh_err(err, LOCUS_EINVALID,
		                  "%s is a folder, not a file", path)
		         : lh_err(err, LOCUS_ENOTFOUND, "%s does not exist",
		                  path);
		free(rel);
		return rc;
	}
	free(rel);
	*out = malloc(m->files[i].len + 1);
	if (!*out)
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	memcpy(*out, m->files[i].data, m->files[i].len);
	(*out)[m->files[i].len] = '\0';
	*len = m->files[i].len;
	return 0;
}

static int m_write(locus_backend *b, const char *path, const char *data,
                   size_t len, locus_error *err)
{
	mem_backend *m = M(b);
	char *rel;
	int rc = lh_path_rel("/", path, &rel, err);
	if (rc)
		return rc;
	if (!*rel || m_is_dir(m, rel)) {
		free(rel);
		return lh_err(err, LOCUS_EINVALID, "%s is a folder, not a file",
		              path);
	}
	/* a file may not sit where a parent folder must be */
	for (char *s = strchr(rel, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		bool f;
		m_find(m, rel, &f);
		*s = '/';
		if (f) {
			free(rel);
			return lh_err(err, LOCUS_ENOTFOUND,
			              "%s: a part of the path is not a folder",
			              path);
		}
	}
	char *copy = malloc(len + 1);
	if (!copy) {
		free(rel);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	if (len)
		memcpy(copy, data, len);
	copy[len] = '\0';
	bool f;
	size_t i = m_find(m, rel, &f);
	if (f) {
		free(m->files[i].data);
		free(rel);
	} else {
		if (!lu_reserve(&m->files, &m->cap, m->n + 1)) {
			free(copy);
			free(rel);
			return lh_err(err, LOCUS_ENOMEM,
			              "out of memory");
		}
		memmove(&m->files[i + 1], &m->files[i],
		        (m->n - i) * sizeof *m->files);
		m->n++;
		m->files[i].path = rel;
	}
	m->files[i].data = copy;
	m->files[i].len = len;
	m->files[i].mtime = ++m->clock;
	return 0;
}

/* One thread at a time owns a backend: the check and the write are one
 * step here. */
static int m_write_cas(locus_backend *b, const char *path, const char *data,
                       size_t len, const char *expect, locus_error *err)
{
	char *cur = NULL;
	size_t cl = 0;
	locus_error e2;
	int rc = m_read(b, path, &cur, &cl, &e2);
	if (rc && rc != LOCUS_ENOTFOUND)
		return lh_err(err, rc, "%s", e2.message);
	char sha[65] = "";
	if (!rc)
		lh_sha256_hex(cur, cl, sha);
	free(cur);
	if ((!expect && !rc) || (expect && (rc || strcmp(sha, expect))))
		return lh_err(err, LOCUS_ECONFLICT,
		              "%s changed since it was read", path);
	return m_write(b, path, data, len, err);
}

static int m_remove(locus_backend *b, const char *path, locus_error *err)
{
	mem_backend *m = M(b);
	char *rel;
	int rc = lh_path_rel("/", path, &rel, err);
	if (rc)
		return rc;
	bool f;
	size_t i = m_find(m, rel, &f);
	free(rel);
	if (!f)
		return lh_err(err, LOCUS_ENOTFOUND, "%s does not exist", path);
	free(m->files[i].path);
	free(m->files[i].data);
	memmove(&m->files[i], &m->files[i + 1],
	        (m->n - i - 1) * sizeof *m->files);
	m->n--;
	return 0;
}

static int add_ent(locus_dirent **out, size_t *n, size_t *cap, const char *name,
                   size_t nl, bool dir, const mfile *f)
{
	if (!lu_reserve(out, cap, *n + 1))
		return LOCUS_ENOMEM;
	locus_dirent *d = &(*out)[*n];
	d->name = strndup(name, nl);
	if (!d->name)
		return LOCUS_ENOMEM;
	d->is_dir = dir;
	d->size = dir ? 0 : f->len;
	d->mtime_ns = dir ? 0 : f->mtime;
	(*n)++;
	return 0;
}

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const locus_dirent *)a)->name,
	              ((const locus_dirent *)b)->name);
}

static int m_list_walk(locus_backend *b, const char *path, bool recurse,
                       size_t max, locus_dirent **out, size_t *n,
                       locus_error *err)
{
	mem_backend *m = M(b);
	*out = NULL;
	*n = 0;
	char *rel;
	int rc = lh_path_rel("/", path, &rel, err);
	if (rc)
		return rc;
	if (!m_is_dir(m, rel)) {
		bool f;
		m_find(m, rel, &f);
		rc =
		    f ? lh_err(err, LOCUS_EINVALID, "%s is not a folder", path)
		      : lh_err(err, LOCUS_ENOTFOUND, "%s does not exist", path);
		free(rel);
		return rc;
	}
	size_t pl = strlen(rel), cap = 0;
	for (size_t i = 0; i < m->n && *n < max; i++) {
		const char *p = m->files[i].path;
		if (!under(p, rel))
			continue;
		const char *name = pl ? p + pl + 1 : p;
		const char *slash = strchr(name, '/');
		if (recurse) {
			/* leave out files under SKIP_DIRS */
			bool skip = false;
			for (const char *c = name; c && !skip;) {
				const char *e = strchr(c, '/');
				if (!e)
					break;
				char part[256];
				size_t cl = (size_t)(e - c);
				if (cl < sizeof part) {
					memcpy(part, c, cl);
					part[cl] = '\0';
					skip = lh_is_skip_dir(part);
				}
				c = e + 1;
			}
			if (!skip)
				rc = add_ent(out, n, &cap, name, strlen(name),
				             false, &m->files[i]);
		} else if (slash) {
			size_t nl = (size_t)(slash - name);
			if (*n && strlen((*out)[*n - 1].name) == nl &&
			    !strncmp((*out)[*n - 1].name, name, nl))
				continue;
			rc = add_ent(out, n, &cap, name, nl, true, NULL);
		} else {
			rc = add_ent(out, n, &cap, name, strlen(name), false,
			             &m->files[i]);
		}
		if (rc) {
			locus_dirents_free(*out, *n);
			*out = NULL;
			*n = 0;
			free(rel);
			return lh_err(err, LOCUS_ENOMEM, "out of memory");
		}
	}
	free(rel);
	if (*n)
		qsort(*out, *n, sizeof **out, ent_cmp);
	/* "a" (folder) and "a.txt" can interleave: drop repeated folders */
	size_t o = 0;
	for (size_t i = 0; i < *n; i++) {
		if (o && (*out)[i].is_dir && (*out)[o - 1].is_dir &&
		    !strcmp((*out)[i].name, (*out)[o - 1].name)) {
			free((*out)[i].name);
			continue;
		}
		(*out)[o++] = (*out)[i];
	}
	*n = o;
	return 0;
}

static int m_list(locus_backend *b, const char *path, locus_dirent **out,
                  size_t *n, locus_error *err)
{
	return m_list_walk(b, path, false, SIZE_MAX, out, n, err);
}

static int m_walk(locus_backend *b, const char *path, size_t max,
                  locus_dirent **out, size_t *n, locus_error *err)
{
	return m_list_walk(b, path, true, max, out, n, err);
}

static void m_free(locus_backend *b)
{
	mem_backend *m = M(b);
	for (size_t i = 0; i < m->n; i++) {
		free(m->files[i].path);
		free(m->files[i].data);
	}
	free(m->files);
	free(m);
}

int locus_backend_memory_new(locus_backend **out, locus_error *err)
{
	*out = NULL;
	mem_backend *m = calloc(1, sizeof *m);
	if (!m)
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	m->base.version = LOCUS_BACKEND_VERSION;
	m->base.label = "memory";
	m->base.root = "/";
	m->base.can_exec = false;
	m->base.isolated = true;
	m->base.stat = m_stat;
	m->base.read = m_read;
	m->base.write = m_write;
	m->base.write_cas = m_write_cas;
	m->base.remove = m_remove;
	m->base.list = m_list;
	m->base.walk = m_walk;
	m->base.free = m_free;
	*out = &m->base;
	return 0;
}
