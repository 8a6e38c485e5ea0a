/*
 * harness/patch.c - the `*** Begin Patch` format (add, update with context
 * hunks, delete, move), planned in memory so a patch applies all or
 * nothing.
 *
 *   *** Begin Patch
 *   *** Add File: PATH          then lines starting with '+'
 *   *** Delete File: PATH
 *   *** Update File: PATH       optionally *** Move to: NEWPATH, then
 *   @@ [a line to find first]   chunks of ' ' context, '-' old, '+' new
 *   *** End of File             (optional: the chunk ends the file)
 *   *** End Patch
 *
 * A chunk's old lines (context and '-') are searched from the cursor:
 * exactly, then ignoring trailing blanks, then ignoring surrounding blanks.
 */
#include "internal.h"
#include "../util/array.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sv {
	const char *s;
	size_t n;
} sv;

typedef struct svec {
	sv *v;
	size_t n, cap;
} svec;

static bool svec_push(svec *a, const char *s, size_t n)
{
	if (!lu_reserve(&a->v, &a->cap, a->n + 1))
		return false;
	a->v[a->n++] = (sv){s, n};
	return true;
}

void lh_changes_free(lh_change *c, size_t n)
{
	if (!c)
		return;
	for (size_t i = 0; i < n; i++) {
		free(c[i].path);
		free(c[i].old);
		free(c[i].data);
	}
	free(c);
}

static bool starts(sv l, const char *p)
{
	size_t pl = strlen(p);
	return l.n >= pl && !memcmp(l.s, p, pl);
}

static char *rest_of(sv l, const char *p)
{
	size_t pl = strlen(p);
	const char *s = l.s + pl;
	size_t n = l.n - pl;
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return strndup(s, n);
}

static sv trim(sv l, bool left)
{
	while (l.n && (l.s[l.n - 1] == ' ' || l.s[l.n - 1] == '\t' ||
	               l.s[l.n - 1] == '\r'))
		l.n--;
	while (left && l.n && (*l.s == ' ' || *l.s == '\t')) {
		l.s++;
		l.n--;
	}
	return l;
}

static bool sv_eq(sv a, sv b, int mode)
{
	if (mode) {
		a = trim(a, mode == 2);
		b = trim(b, mode == 2);
	}
	return a.n == b.n && !memcmp(a.s, b.s, a.n);
}

/* Find needle (k lines) in hay from `from`; SIZE_MAX when absent. */
static size_t find_seq(const svec *hay, size_t from, const sv *needle, size_t k,
                       bool at_end)
{
	for (int mode = 0; mode < 3; mode++) {
		if (at_end && hay->n >= k && hay->n - k >= from) {
			size_t i = hay->n - k, j = 0;
			while (j < k && sv_eq(hay->v[i + j], needle[j], mode))
				j++;
			if (j == k)
				return i;
		}
		for (size_t i = from; i + k <= hay->n; i++) {
			size_t j = 0;
			while (j < k && sv_eq(hay->v[i + j], needle[j], mode))
				j++;
			if (j == k)
				return i;
		}
	}
	return SIZE_MAX;
}

static void split_lines(const char *t, size_t len, svec *out, bool *final_nl)
{
	size_t start = 0;
	for (size_t i = 0; i < len; i++)
		if (t[i] == '\n') {
			svec_push(out, t + start, i - start);
			start = i + 1;
		}
	if (start < len)
		svec_push(out, t + start, len - start);
	*final_nl = len == 0 || t[len - 1] == '\n';
}

static int fail(char **msg, const char *fmt, const char *arg, size_t line)
{
	lh_buf b = {0};
	/* fmt is always one of this file's literals (-Wformat-nonliteral
	   cannot see that) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	lh_buf_printf(&b, fmt, arg ? arg : "");
#pragma GCC diagnostic pop
	if (line)
		lh_buf_printf(&b, " (patch line %zu)", line);
	lh_buf_puts(&b, ". Nothing was changed.");
	*msg = lh_buf_take(&b);
	return LOCUS_EINVALID;
}

static lh_change *add_change(lh_change **c, size_t *n, size_t *cap)
{
	if (!lu_reserve(c, cap, *n + 1))
		return NULL;
	memset(&(*c)[*n], 0, sizeof **c);
	return &(*c)[(*n)++];
}

/* The planned content of a path so far (a later section may see an
 * earlier one's result). */
static lh_change *planned(lh_change *c, size_t n, const char *path)
{
	for (size_t i = n; i-- > 0;)
		if (!strcmp(c[i].path, path))
			return &c[i];
	return NULL;
}

/* Current bytes of path: from the plan, else the backend. */
static int current(locus_backend *b, lh_change *c, size_t n, const char *path,
                   char **data, size_t *len, bool *exists)
{
	lh_change *p = planned(c, n, path);
	if (p) {
		*exists = !p->del;
		*len = p->len;
		*data = p->del ? NULL : malloc(p->len + 1);
		if (!p->del) {
			if (!*data)
				return LOCUS_ENOMEM;
			memcpy(*data, p->data, p->len);
			(*data)[p->len] = '\0';
		}
		return 0;
	}
	locus_error err;
	int rc = b->read(b, path, data, len, &err);
	*exists = rc == 0;
	if (rc == LOCUS_ENOTFOUND)
		return 0;
	return rc;
}

static int set_change(locus_backend *b, lh_change **c, size_t *n, size_t *cap,
                      const char *path, bool del, const char *data, size_t len)
{
	lh_change *p = planned(*c, *n, path);
	if (!p) {
		p = add_change(c, n, cap);
		if (!p)
			return LOCUS_ENOMEM;
		p->path = strdup(path);
		if (!p->path)
			return LOCUS_ENOMEM;
		locus_error err;
		p->had = b->read(b, path, &p->old, &p->olen, &err) == 0;
	}
	free(p->data);
	p->data = NULL;
	p->len = 0;
	p->del = del;
	if (!del) {
		p->data = malloc(len + 1);
		if (!p->data)
			return LOCUS_ENOMEM;
		memcpy(p->data, data, len);
		p->data[len] = '\0';
		p->len = len;
	}
	return 0;
}

/* m[i] = v, growing m as needed. */
static bool map_set(size_t **m, size_t *cap, size_t i, size_t v)
{
	if (i >= *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		while (nc <= i)
			nc *= 2;
		size_t *x = realloc(*m, nc * sizeof *x);
		if (!x)
			return false;
		*m = x;
		*cap = nc;
	}
	(*m)[i] = v;
	return true;
}

int lh_patch_plan(locus_backend *b, const char *patch, lh_change **out,
                  size_t *nout, char **msg)
{
	*out = NULL;
	*nout = 0;
	*msg = NULL;
	svec L = {0};
	bool nl;
	split_lines(patch, strlen(patch), &L, &nl);
	lh_change *c = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	char *path = NULL, *data = NULL;
	svec F = {0}, oldl = {0}, newl = {0};
	size_t *nmap = NULL, nmap_cap = 0; /* newl[k]: its line in oldl */
	lh_buf nb = {0};
	size_t i = 0;
	while (i < L.n && trim(L.v[i], true).n == 0)
		i++;
	if (i >= L.n || !sv_eq(L.v[i], (sv){"*** Begin Patch", 15}, 1)) {
		rc = fail(msg, "the patch must start with *** Begin Patch",
		          NULL, i + 1);
		goto out;
	}
	i++;
	bool ended = false;
	while (i < L.n && !ended) {
		sv l = L.v[i];
		if (sv_eq(l, (sv){"*** End Patch", 13}, 1)) {
			ended = true;
			break;
		}
		free(path);
		path = NULL;
		if (starts(l, "*** Add File:")) {
			path = rest_of(l, "*** Add File:");
			size_t at = i + 1;
			i++;
			lh_buf_free(&nb);
			while (i < L.n && !starts(L.v[i], "***")) {
				if (!L.v[i].n || L.v[i].s[0] != '+') {
					rc = fail(
					    msg,
					    "%s: every line of an added file "
					    "starts with +",
					    path, i + 1);
					goto out;
				}
				lh_buf_add(&nb, L.v[i].s + 1, L.v[i].n - 1);
				lh_buf_add(&nb, "\n", 1);
				i++;
			}
			bool ex;
			size_t dl;
			rc = current(b, c, n, path, &data, &dl, &ex);
			free(data);
			data = NULL;
			/* anything there refuses: a file too large or
			 * unreadable to read, a FIFO, a folder */
			locus_stat st = {0};
			locus_error se;
			bool planned_del = planned(c, n, path) && !ex;
			if (!planned_del && !ex && rc != LOCUS_EDENIED &&
			    (rc != 0 || b->stat(b, path, &st, &se) != 0 ||
			     st.exists))
				ex = true;
			if (rc == LOCUS_EDENIED || ex) {
				rc = fail(
				    msg,
				    ex ? "%s already exists: use Update File"
				       : "%s is outside the workspace",
				    path, at);
				goto out;
			}
			rc = set_change(b, &c, &n, &cap, path, false,
			                nb.d ? nb.d : "", nb.len);
			if (rc)
				goto out;
			continue;
		}
		if (starts(l, "*** Delete File:")) {
			path = rest_of(l, "*** Delete File:");
			bool ex;
			size_t dl;
			rc = current(b, c, n, path, &data, &dl, &ex);
			free(data);
			data = NULL;
			if (rc || !ex) {
				rc = fail(msg,
				          "%s does not exist: cannot delete it",
				          path, i + 1);
				goto out;
			}
			rc = set_change(b, &c, &n, &cap, path, true, NULL, 0);
			if (rc)
				goto out;
			i++;
			continue;
		}
		if (!starts(l, "*** Update File:")) {
			rc = fail(msg,
			          "expected *** Add File, *** Update File, "
			          "*** Delete File or *** End Patch",
			          NULL, i + 1);
			goto out;
		}
		path = rest_of(l, "*** Update File:");
		size_t at = i + 1;
		i++;
		char *move = NULL;
		if (i < L.n && starts(L.v[i], "*** Move to:"))
			move = rest_of(L.v[i++], "*** Move to:");
		bool ex;
		size_t dl = 0;
		rc = current(b, c, n, path, &data, &dl, &ex);
		if (rc || !ex) {
			free(move);
			rc = fail(msg, "%s does not exist: cannot update it",
			          path, at);
			goto out;
		}
		F.n = 0;
		bool fnl;
		split_lines(data, dl, &F, &fnl);
		size_t cursor = 0;
		bool any = false;
		/* F's views point into data; replaced lines point into the
		 * patch (which outlives this loop) */
		while (i < L.n && !starts(L.v[i], "*** ")) {
			sv h = L.v[i];
			char *find = NULL;
			if (starts(h, "@@")) {
				find = rest_of(h, "@@");
				i++;
			} else if (any) {
				free(find);
				break;
			}
			if (find && *find) {
				size_t k = find_seq(&F, cursor,
				                    &(sv){find, strlen(find)},
				                    1, false);
				if (k == SIZE_MAX) {
					rc = fail(msg,
					          "%s: cannot find the @@ line",
					          path, i);
					free(find);
					free(move);
					goto out;
				}
				cursor = k + 1;
			}
			free(find);
			oldl.n = newl.n = 0;
			bool eof = false;
			size_t chunk_at = i + 1;
			while (i < L.n && !starts(L.v[i], "@@") &&
			       !starts(L.v[i], "*** ")) {
				sv x = L.v[i];
				char op = x.n ? x.s[0] : ' ';
				sv body = x.n ? (sv){x.s + 1, x.n - 1} : x;
				bool ctx = op == ' ';
				if (ctx || op == '-')
					svec_push(&oldl, body.s, body.n);
				if (ctx || op == '+') {
					svec_push(&newl, body.s, body.n);
					if (!map_set(&nmap, &nmap_cap, newl.n - 1,
					             ctx ? oldl.n - 1 : SIZE_MAX)) {
						rc = LOCUS_ENOMEM;
						free(move);
						goto out;
					}
				} else if (op != '-') {
					rc = fail(
					    msg,
					    "%s: a hunk line must start with "
					    "' ', '-' or '+'",
					    path, i + 1);
					free(move);
					goto out;
				}
				i++;
			}
			if (i < L.n &&
			    sv_eq(L.v[i], (sv){"*** End of File", 15}, 1)) {
				eof = true;
				i++;
			}
			any = true;
			size_t pos;
			if (oldl.n == 0)
				pos = eof || cursor == 0 ? F.n : cursor;
			else
				pos = find_seq(&F, cursor, oldl.v, oldl.n, eof);
			if (pos == SIZE_MAX) {
				rc = fail(
				    msg,
				    "%s: a hunk's old lines were not found "
				    "(the file differs from what the patch "
				    "expects)",
				    path, chunk_at);
				free(move);
				goto out;
			}
			/* context lines keep the file's own bytes (tabs, \r):
			 * they were matched fuzzily, not rewritten */
			for (size_t k = 0; k < newl.n; k++)
				if (nmap[k] != SIZE_MAX)
					newl.v[k] = F.v[pos + nmap[k]];
			/* F := F[0..pos) + newl + F[pos+oldl.n..) */
			size_t tail = F.n - pos - oldl.n;
			size_t need = pos + newl.n + tail;
			while (F.cap < need + 1) {
				size_t nc = F.cap ? F.cap * 2 : 16;
				sv *nv = realloc(F.v, nc * sizeof *nv);
				if (!nv) {
					rc = LOCUS_ENOMEM;
					free(move);
					goto out;
				}
				F.v = nv;
				F.cap = nc;
			}
			memmove(F.v + pos + newl.n, F.v + pos + oldl.n,
			        tail * sizeof *F.v);
			if (newl.n)
				memcpy(F.v + pos, newl.v, newl.n * sizeof *F.v);
			F.n = need;
			cursor = pos + newl.n;
			if (i < L.n && starts(L.v[i], "*** "))
				break;
		}
		if (!any) {
			rc = fail(msg, "%s: an update with no hunks", path, at);
			free(move);
			goto out;
		}
		lh_buf_free(&nb);
		for (size_t k = 0; k < F.n; k++) {
			lh_buf_add(&nb, F.v[k].s, F.v[k].n);
			if (k + 1 < F.n || fnl)
				lh_buf_add(&nb, "\n", 1);
		}
		if (nb.oom) {
			rc = LOCUS_ENOMEM;
			free(move);
			goto out;
		}
		const char *dest = move ? move : path;
		if (move) {
			bool mex;
			char *md = NULL;
			size_t ml;
			rc = current(b, c, n, move, &md, &ml, &mex);
			free(md);
			if (rc || mex) {
				rc = fail(msg, "cannot move to %s: it exists",
				          move, at);
				free(move);
				goto out;
			}
			rc = set_change(b, &c, &n, &cap, path, true, NULL, 0);
		}
		if (!rc)
			rc = set_change(b, &c, &n, &cap, dest, false,
			                nb.d ? nb.d : "", nb.len);
		free(move);
		free(data);
		data = NULL;
		if (rc)
			goto out;
	}
	if (!ended)
		rc = fail(msg, "the patch must end with *** End Patch", NULL,
		          L.n);
	else if (n == 0)
		rc = fail(msg, "the patch changes nothing", NULL, 0);
out:
	if (rc == LOCUS_ENOMEM && !*msg)
		*msg = strdup("out of memory. Nothing was changed.");
	free(path);
	free(data);
	free(L.v);
	free(F.v);
	free(oldl.v);
	free(newl.v);
	free(nmap);
	lh_buf_free(&nb);
	if (rc) {
		lh_changes_free(c, n);
		return rc ? rc : LOCUS_EINVALID;
	}
	*out = c;
	*nout = n;
	return 0;
}
