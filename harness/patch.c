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
	lu_buf b = {0};
	/* fmt is always one of this file's literals (-Wformat-nonliteral
	   cannot see that) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	lu_buf_printf(&b, fmt, arg ? arg : "");
#pragma GCC diagnostic pop
	if (line)
		lu_buf_printf(&b, " (patch line %zu)", line);
	lu_buf_puts(&b, ". Nothing was changed.");
	*msg = lu_buf_take(&b);
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

/* One patch being planned: its lines, the plan so far, and the scratch
 * of the Update File section being read. */
typedef struct pplan {
	locus_backend *b;
	svec L;   /* the patch's lines */
	size_t i; /* the next line to read */
	lh_change *c;
	size_t n, cap;
	char **msg;
	svec F;                 /* the updated file's lines (views into data) */
	svec oldl, newl;        /* a hunk's old lines (context, '-') and new */
	size_t *nmap, nmap_cap; /* newl[k]: its line in oldl, or SIZE_MAX */
	char *data;             /* the updated file's bytes */
	lu_buf nb;              /* a file's new text */
} pplan;

/* *** Add File: PATH, then lines starting with '+'.  Anything already at
 * the path refuses: a file too large or unreadable to read, a FIFO, a
 * folder. */
static int plan_add(pplan *p, const char *path)
{
	size_t at = p->i + 1;
	p->i++;
	lu_buf_free(&p->nb);
	while (p->i < p->L.n && !starts(p->L.v[p->i], "***")) {
		sv l = p->L.v[p->i];
		if (!l.n || l.s[0] != '+')
			return fail(p->msg,
			            "%s: every line of an added file starts "
			            "with +",
			            path, p->i + 1);
		lu_buf_add(&p->nb, l.s + 1, l.n - 1);
		lu_buf_add(&p->nb, "\n", 1);
		p->i++;
	}
	bool ex;
	size_t dl;
	char *data = NULL;
	int rc = current(p->b, p->c, p->n, path, &data, &dl, &ex);
	free(data);
	locus_stat st = {0};
	locus_error se;
	bool planned_del = planned(p->c, p->n, path) && !ex;
	if (!planned_del && !ex && rc != LOCUS_EDENIED &&
	    (rc != 0 || p->b->stat(p->b, path, &st, &se) != 0 || st.exists))
		ex = true;
	if (rc == LOCUS_EDENIED || ex)
		return fail(p->msg,
		            ex ? "%s already exists: use Update File"
		               : "%s is outside the workspace",
		            path, at);
	return set_change(p->b, &p->c, &p->n, &p->cap, path, false,
	                  p->nb.d ? p->nb.d : "", p->nb.len);
}

/* *** Delete File: PATH */
static int plan_delete(pplan *p, const char *path)
{
	bool ex;
	size_t dl;
	char *data = NULL;
	int rc = current(p->b, p->c, p->n, path, &data, &dl, &ex);
	free(data);
	if (rc || !ex)
		return fail(p->msg, "%s does not exist: cannot delete it", path,
		            p->i + 1);
	p->i++;
	return set_change(p->b, &p->c, &p->n, &p->cap, path, true, NULL, 0);
}

/* Read a hunk's lines (up to the next @@ or ***) into oldl and newl, and
 * an `*** End of File` after them (*eof). */
static int read_hunk(pplan *p, const char *path, bool *eof)
{
	p->oldl.n = p->newl.n = 0;
	*eof = false;
	while (p->i < p->L.n && !starts(p->L.v[p->i], "@@") &&
	       !starts(p->L.v[p->i], "*** ")) {
		sv x = p->L.v[p->i];
		char op = x.n ? x.s[0] : ' ';
		sv body = x.n ? (sv){x.s + 1, x.n - 1} : x;
		bool ctx = op == ' ';
		if (ctx || op == '-')
			svec_push(&p->oldl, body.s, body.n);
		if (ctx || op == '+') {
			svec_push(&p->newl, body.s, body.n);
			if (!map_set(&p->nmap, &p->nmap_cap, p->newl.n - 1,
			             ctx ? p->oldl.n - 1 : SIZE_MAX))
				return LOCUS_ENOMEM;
		} else if (op != '-') {
			return fail(p->msg,
			            "%s: a hunk line must start with ' ', '-' "
			            "or '+'",
			            path, p->i + 1);
		}
		p->i++;
	}
	if (p->i < p->L.n &&
	    sv_eq(p->L.v[p->i], (sv){"*** End of File", 15}, 1)) {
		*eof = true;
		p->i++;
	}
	return 0;
}

/* Find the hunk's old lines in F from *cursor and put its new lines in
 * their place (context lines keep the file's own bytes). */
static int apply_hunk(pplan *p, const char *path, size_t *cursor, bool eof,
                      size_t chunk_at)
{
	svec *F = &p->F;
	size_t pos;
	if (p->oldl.n == 0)
		pos = eof || *cursor == 0 ? F->n : *cursor;
	else
		pos = find_seq(F, *cursor, p->oldl.v, p->oldl.n, eof);
	if (pos == SIZE_MAX)
		return fail(p->msg,
		            "%s: a hunk's old lines were not found (the file "
		            "differs from what the patch expects)",
		            path, chunk_at);
	/* context lines keep the file's own bytes (tabs, \r): they were
	 * matched fuzzily, not rewritten */
	for (size_t k = 0; k < p->newl.n; k++)
		if (p->nmap[k] != SIZE_MAX)
			p->newl.v[k] = F->v[pos + p->nmap[k]];
	/* F := F[0..pos) + newl + F[pos+oldl.n..) */
	size_t tail = F->n - pos - p->oldl.n;
	size_t need = pos + p->newl.n + tail;
	if (!lu_reserve(&F->v, &F->cap, need + 1))
		return LOCUS_ENOMEM;
	memmove(F->v + pos + p->newl.n, F->v + pos + p->oldl.n,
	        tail * sizeof *F->v);
	if (p->newl.n)
		memcpy(F->v + pos, p->newl.v, p->newl.n * sizeof *F->v);
	F->n = need;
	*cursor = pos + p->newl.n;
	return 0;
}

/* The hunks of an Update File section, applied to F in order. */
static int update_hunks(pplan *p, const char *path, size_t at)
{
	size_t cursor = 0;
	bool any = false;
	/* F's views point into data; replaced lines point into the patch
	 * (which outlives the plan) */
	while (p->i < p->L.n && !starts(p->L.v[p->i], "*** ")) {
		sv h = p->L.v[p->i];
		char *find = NULL;
		if (starts(h, "@@")) {
			find = rest_of(h, "@@");
			p->i++;
		} else if (any) {
			break;
		}
		if (find && *find) {
			size_t k = find_seq(
			    &p->F, cursor, &(sv){find, strlen(find)}, 1, false);
			if (k == SIZE_MAX) {
				free(find);
				return fail(p->msg,
				            "%s: cannot find the @@ line", path,
				            p->i);
			}
			cursor = k + 1;
		}
		free(find);
		bool eof;
		size_t chunk_at = p->i + 1;
		int rc = read_hunk(p, path, &eof);
		if (!rc)
			rc = apply_hunk(p, path, &cursor, eof, chunk_at);
		if (rc)
			return rc;
		any = true;
		if (p->i < p->L.n && starts(p->L.v[p->i], "*** "))
			break;
	}
	return any ? 0 : fail(p->msg, "%s: an update with no hunks", path, at);
}

/* *** Update File: PATH, an optional *** Move to: NEWPATH, then hunks. */
static int plan_update(pplan *p, const char *path)
{
	size_t at = p->i + 1;
	p->i++;
	char *move = NULL;
	if (p->i < p->L.n && starts(p->L.v[p->i], "*** Move to:"))
		move = rest_of(p->L.v[p->i++], "*** Move to:");
	bool ex, fnl;
	size_t dl = 0;
	free(p->data);
	p->data = NULL;
	int rc = current(p->b, p->c, p->n, path, &p->data, &dl, &ex);
	if (rc || !ex) {
		free(move);
		return fail(p->msg, "%s does not exist: cannot update it", path,
		            at);
	}
	p->F.n = 0;
	split_lines(p->data, dl, &p->F, &fnl);
	rc = update_hunks(p, path, at);
	lu_buf_free(&p->nb);
	for (size_t k = 0; !rc && k < p->F.n; k++) {
		lu_buf_add(&p->nb, p->F.v[k].s, p->F.v[k].n);
		if (k + 1 < p->F.n || fnl)
			lu_buf_add(&p->nb, "\n", 1);
	}
	if (!rc && p->nb.oom)
		rc = LOCUS_ENOMEM;
	if (!rc && move) {
		bool mex;
		char *md = NULL;
		size_t ml;
		rc = current(p->b, p->c, p->n, move, &md, &ml, &mex);
		free(md);
		if (rc || mex)
			rc = fail(p->msg, "cannot move to %s: it exists", move,
			          at);
		else
			rc = set_change(p->b, &p->c, &p->n, &p->cap, path, true,
			                NULL, 0);
	}
	if (!rc)
		rc = set_change(p->b, &p->c, &p->n, &p->cap, move ? move : path,
		                false, p->nb.d ? p->nb.d : "", p->nb.len);
	free(move);
	free(p->data);
	p->data = NULL;
	return rc;
}

/* The sections between *** Begin Patch and *** End Patch. */
static int plan_sections(pplan *p)
{
	while (p->i < p->L.n) {
		sv l = p->L.v[p->i];
		if (sv_eq(l, (sv){"*** End Patch", 13}, 1))
			return p->n ? 0
			            : fail(p->msg, "the patch changes nothing",
			                   NULL, 0);
		const char *kind =
		    starts(l, "*** Add File:")      ? "*** Add File:"
		    : starts(l, "*** Delete File:") ? "*** Delete File:"
		    : starts(l, "*** Update File:") ? "*** Update File:"
		                                    : NULL;
		if (!kind)
			return fail(p->msg,
			            "expected *** Add File, *** Update File, "
			            "*** Delete File or *** End Patch",
			            NULL, p->i + 1);
		char *path = rest_of(l, kind);
		if (!path)
			return LOCUS_ENOMEM;
		int rc = kind[4] == 'A'   ? plan_add(p, path)
		         : kind[4] == 'D' ? plan_delete(p, path)
		                          : plan_update(p, path);
		free(path);
		if (rc)
			return rc;
	}
	return fail(p->msg, "the patch must end with *** End Patch", NULL,
	            p->L.n);
}

int lh_patch_plan(locus_backend *b, const char *patch, lh_change **out,
                  size_t *nout, char **msg)
{
	*out = NULL;
	*nout = 0;
	*msg = NULL;
	pplan p = {.b = b, .msg = msg};
	bool nl;
	split_lines(patch, strlen(patch), &p.L, &nl);
	while (p.i < p.L.n && trim(p.L.v[p.i], true).n == 0)
		p.i++;
	int rc;
	if (p.i >= p.L.n ||
	    !sv_eq(p.L.v[p.i], (sv){"*** Begin Patch", 15}, 1)) {
		rc = fail(msg, "the patch must start with *** Begin Patch",
		          NULL, p.i + 1);
	} else {
		p.i++;
		rc = plan_sections(&p);
	}
	if (rc == LOCUS_ENOMEM && !*msg)
		*msg = strdup("out of memory. Nothing was changed.");
	free(p.data);
	free(p.L.v);
	free(p.F.v);
	free(p.oldl.v);
	free(p.newl.v);
	free(p.nmap);
	lu_buf_free(&p.nb);
	if (rc) {
		lh_changes_free(p.c, p.n);
		return rc;
	}
	*out = p.c;
	*nout = p.n;
	return 0;
}
