/*
 * backends/memory.c - MemoryBackend: a sorted map of path -> bytes, no shell.
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

/* A user path looked up: 0 with *i, *found as m_find gives them and, when
 * rel is not NULL, *rel (malloc'd: the caller frees it); or the path's
 * error. */
static int m_lookup(mem_backend *m, const char *path, char **rel, size_t *i,
                    bool *found, locus_error *err)
{
	char *r;
	int rc = lh_path_rel("/", path, &r, err);
	if (rc)
		return rc;
	*i = m_find(m, r, found);
	if (rel)
		*rel = r;
	else
		free(r);
	return 0;
}

/* Take file i out of the table (its path and bytes are the caller's). */
static void m_drop(mem_backend *m, size_t i)
{
	memmove(&m->files[i], &m->files[i + 1],
	        (m->n - i - 1) * sizeof *m->files);
	m->n--;
}

static int m_stat(locus_backend *b, const char *path, locus_stat *out,
                  locus_error *err)
{
	mem_backend *m = M(b);
	memset(out, 0, sizeof *out);
	char *rel;
	size_t i;
	bool f;
	int rc = m_lookup(m, path, &rel, &i, &f, err);
	if (rc)
		return rc;
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

/*
 * The path as the kind a member needs: a file (0 with *i its index) or,
 * want_dir, a folder (0 with *rel, the caller's to free).  The other kind
 * there is LOCUS_EINVALID, nothing there LOCUS_ENOTFOUND.
 */
static int m_want(mem_backend *m, const char *path, bool want_dir, size_t *i,
                  char **rel, locus_error *err)
{
	char *r;
	bool f;
	int rc = m_lookup(m, path, &r, i, &f, err);
	if (rc)
		return rc;
	bool dir = m_is_dir(m, r);
	if (want_dir ? !dir : !f)
		rc = (want_dir ? f : dir)
		         ? lu_err(err, LOCUS_EINVALID,
		                  want_dir ? "%s is not a folder"
		                           : "%s is a folder, not a file",
		                  path)
		         : lu_err(err, LOCUS_ENOTFOUND, "%s does not exist",
		                  path);
	if (rc || !rel)
		free(r);
	else
		*rel = r;
	return rc;
}

static int m_read(locus_backend *b, const char *path, char **out, size_t *len,
                  locus_error *err)
{
	mem_backend *m = M(b);
	*out = NULL;
	*len = 0;
	size_t i;
	int rc = m_want(m, path, false, &i, NULL, err);
	if (rc)
		return rc;
	*out = malloc(m->files[i].len + 1);
	if (!*out)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	memcpy(*out, m->files[i].data, m->files[i].len);
	(*out)[m->files[i].len] = '\0';
	*len = m->files[i].len;
	return 0;
}

/* May a file be written at rel: not a folder, no file where one of its
 * parent folders must be? */
static int m_check_write(mem_backend *m, char *rel, const char *path,
                         locus_error *err)
{
	if (!*rel || m_is_dir(m, rel))
		return lu_err(err, LOCUS_EINVALID, "%s is a folder, not a file",
		              path);
	for (char *s = strchr(rel, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		bool f;
		m_find(m, rel, &f);
		*s = '/';
		if (f)
			return lu_err(err, LOCUS_ENOTFOUND,
			              "%s: a part of the path is not a folder",
			              path);
	}
	return 0;
}

static int m_reserve(mem_backend *m, size_t more)
{
	return lu_reserve(&m->files, &m->cap, m->n + more) ? 0 : LOCUS_ENOMEM;
}

/* Put the bytes `copy` (taken) at rel (taken, or freed); the slot was
 * reserved.  True when a file was replaced: *old gets its bytes. */
static bool m_put(mem_backend *m, char *rel, char *copy, size_t len, mfile *old)
{
	bool f;
	size_t i = m_find(m, rel, &f);
	if (f) {
		*old = m->files[i];
		old->path = NULL;
		free(rel);
	} else {
		memset(old, 0, sizeof *old);
		memmove(&m->files[i + 1], &m->files[i],
		        (m->n - i) * sizeof *m->files);
		m->n++;
		m->files[i].path = rel;
	}
	m->files[i].data = copy;
	m->files[i].len = len;
	m->files[i].mtime = ++m->clock;
	return f;
}

static int m_write(locus_backend *b, const char *path, const char *data,
                   size_t len, locus_error *err)
{
	mem_backend *m = M(b);
	char *rel;
	int rc = lh_path_rel("/", path, &rel, err);
	if (rc)
		return rc;
	rc = m_check_write(m, rel, path, err);
	char *copy = rc ? NULL : malloc(len + 1);
	if (!rc && (!copy || m_reserve(m, 1)))
		rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (rc) {
		free(copy);
		free(rel);
		return rc;
	}
	if (len)
		memcpy(copy, data, len);
	copy[len] = '\0';
	mfile old;
	m_put(m, rel, copy, len, &old);
	free(old.data);
	return 0;
}

/* Is the file at op->path still op->expect_sha256 (NULL: absent)?  0, or
 * LOCUS_ECONFLICT, or the read's error. */
static int m_check_cas(locus_backend *b, const locus_write_op *op,
                       locus_error *err)
{
	char *cur = NULL;
	size_t cl = 0;
	locus_error e2;
	int rc = m_read(b, op->path, &cur, &cl, &e2);
	if (rc && rc != LOCUS_ENOTFOUND)
		return lu_err(err, rc, "%s", e2.message);
	char sha[65] = "";
	if (!rc)
		lu_sha256_hex(cur, cl, sha);
	free(cur);
	const char *expect = op->expect_sha256;
	if ((!expect && !rc) || (expect && (rc || strcmp(sha, expect))))
		return lu_err(err, LOCUS_ECONFLICT,
		              "%s changed since it was read", op->path);
	return 0;
}

/* One thread at a time owns a backend: the check and the write are one
 * step here. */
static int m_write_cas(locus_backend *b, const char *path, const char *data,
                       size_t len, const char *expect, locus_error *err)
{
	locus_write_op op = {.path = path, .expect_sha256 = expect};
	int rc = m_check_cas(b, &op, err);
	return rc ? rc : m_write(b, path, data, len, err);
}

static int m_remove(locus_backend *b, const char *path, locus_error *err)
{
	mem_backend *m = M(b);
	size_t i;
	bool f;
	int rc = m_lookup(m, path, NULL, &i, &f, err);
	if (rc)
		return rc;
	if (!f)
		return lu_err(err, LOCUS_ENOTFOUND, "%s does not exist", path);
	free(m->files[i].path);
	free(m->files[i].data);
	m_drop(m, i);
	return 0;
}

/*
 * write_many: every compare-and-swap check and every allocation first;
 * then the changes, each one's previous state kept, so that a change that
 * cannot be made (a file where an earlier change of the batch made a
 * folder, or the other way round) undoes the ones before it without
 * allocating.
 */
typedef struct mundo {
	char *rel, *copy; /* owned until used */
	char *key;        /* the normalised path, to undo by */
	mfile old;        /* the replaced or removed file */
	bool done, had;   /* made; a file was replaced or removed */
} mundo;

/* Make change k (its allocations done); 0 or the error. */
static int m_apply(mem_backend *m, const locus_write_op *op, mundo *u,
                   locus_error *err)
{
	bool f;
	if (op->remove) {
		size_t i = m_find(m, u->rel, &f);
		if (!f)
			return lu_err(err, LOCUS_ENOTFOUND, "%s does not exist",
			              op->path);
		u->old = m->files[i];
		u->had = true;
		m_drop(m, i);
		free(u->rel);
	} else {
		int rc = m_check_write(m, u->rel, op->path, err);
		if (rc)
			return rc;
		u->had = m_put(m, u->rel, u->copy, op->len, &u->old);
		u->copy = NULL;
	}
	u->rel = NULL;
	u->done = true;
	return 0;
}

/* Undo a change made: the previous bytes (or file) back, a new one gone.
 * Nothing is allocated. */
static void m_undo(mem_backend *m, const locus_write_op *op, mundo *u)
{
	bool f;
	size_t i = m_find(m, u->key, &f);
	if (op->remove) {
		/* re-insert: the slot it left is there */
		memmove(&m->files[i + 1], &m->files[i],
		        (m->n - i) * sizeof *m->files);
		m->files[i] = u->old;
		m->n++;
	} else if (u->had && f) {
		free(m->files[i].data);
		m->files[i].data = u->old.data;
		m->files[i].len = u->old.len;
		m->files[i].mtime = u->old.mtime;
	} else if (f) {
		free(m->files[i].path);
		free(m->files[i].data);
		m_drop(m, i);
	}
	memset(&u->old, 0, sizeof u->old);
}

static int m_write_many(locus_backend *b, const locus_write_op *ops, size_t n,
                        size_t *failed, locus_error *err)
{
	mem_backend *m = M(b);
	*failed = 0;
	mundo *u = calloc(n ? n : 1, sizeof *u);
	int rc = u && !m_reserve(m, n) ? 0 : LOCUS_ENOMEM;
	if (rc)
		lu_err(err, rc, "out of memory");
	size_t i = 0;
	for (; !rc && i < n; i++) {
		rc = lh_path_rel("/", ops[i].path, &u[i].rel, err);
		if (!rc && !(u[i].key = strdup(u[i].rel)))
			rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
		if (!rc)
			rc = m_check_cas(b, &ops[i], err);
		if (!rc && !ops[i].remove) {
			u[i].copy = malloc(ops[i].len + 1);
			if (!u[i].copy) {
				rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
			} else {
				if (ops[i].len)
					memcpy(u[i].copy, ops[i].data,
					       ops[i].len);
				u[i].copy[ops[i].len] = '\0';
			}
		}
	}
	for (size_t k = 0; !rc && k < n; k++) {
		rc = m_apply(m, &ops[k], &u[k], err);
		i = k + 1;
	}
	if (rc) {
		*failed = i ? i - 1 : 0;
		for (size_t k = *failed; k-- > 0;)
			if (u[k].done)
				m_undo(m, &ops[k], &u[k]);
	}
	for (size_t k = 0; u && k < n; k++) {
		free(u[k].rel);
		free(u[k].key);
		free(u[k].copy);
		if (!rc) {
			free(u[k].old.path);
			free(u[k].old.data);
		}
	}
	free(u);
	return rc;
}

static int add_ent(locus_dirent **out, size_t *n, size_t *cap, const char *name,
                   size_t nl, bool dir, const mfile *f)
{
	return lh_dirent_push(out, n, cap, name, nl, dir, dir ? 0 : f->len,
	                      dir ? 0 : f->mtime);
}

static int m_list_walk(locus_backend *b, const char *path, bool recurse,
                       size_t max, locus_dirent **out, size_t *n,
                       locus_error *err)
{
	mem_backend *m = M(b);
	*out = NULL;
	*n = 0;
	char *rel;
	size_t i;
	int rc = m_want(m, path, true, &i, &rel, err);
	if (rc)
		return rc;
	size_t pl = strlen(rel), cap = 0;
	for (i = 0; i < m->n && *n < max; i++) {
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
		if (rc)
			break;
	}
	free(rel);
	rc = lh_dirents_finish(out, n, rc, err);
	if (rc)
		return rc;
	/* "a" (folder) and "a.txt" can interleave: drop repeated folders */
	size_t o = 0;
	for (i = 0; i < *n; i++) {
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

/* The MemoryBackend: no shell, nothing outside it to reach. */
static const locus_backend memory_vtable = {
    .version = LOCUS_BACKEND_VERSION,
    .label = "memory",
    .root = "/",
    .can_exec = false,
    .isolated = true,
    .stat = m_stat,
    .read = m_read,
    .write = m_write,
    .write_cas = m_write_cas,
    .write_many = m_write_many,
    .remove = m_remove,
    .list = m_list,
    .walk = m_walk,
    .free = m_free,
};

int locus_backend_memory_new(locus_backend **out, locus_error *err)
{
	*out = NULL;
	mem_backend *m = calloc(1, sizeof *m);
	if (!m)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	m->base = memory_vtable;
	*out = &m->base;
	return 0;
}
