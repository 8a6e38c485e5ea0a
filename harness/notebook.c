/*
 * harness/notebook.c - notebook_edit as an edit of the JSON text.
 *
 * A notebook is parsed (cJSON) only to check it and to find a cell by id;
 * the change itself splices the file's text: the replaced `source` value,
 * the inserted or deleted cell.  Every other byte stays as it was, so
 * untouched cells keep their numbers (12345678901234567890 is not printed
 * back as 1.23e+19), their key order and the file's indentation.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CELLS 100000

typedef struct span {
	size_t s, e; /* [s, e) */
} span;

static size_t ws(const char *t, size_t n, size_t i)
{
	while (i < n &&
	       (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
		i++;
	return i;
}

/* End of the JSON value at i (the text was validated by cJSON). */
static size_t skip_value(const char *t, size_t n, size_t i)
{
	if (i >= n)
		return n;
	if (t[i] == '"') {
		for (i++; i < n && t[i] != '"'; i++)
			if (t[i] == '\\')
				i++;
		return i < n ? i + 1 : n;
	}
	if (t[i] == '{' || t[i] == '[') {
		int depth = 0;
		for (; i < n; i++) {
			if (t[i] == '"') {
				i = skip_value(t, n, i) - 1;
				continue;
			}
			if (t[i] == '{' || t[i] == '[')
				depth++;
			else if ((t[i] == '}' || t[i] == ']') && --depth == 0)
				return i + 1;
		}
		return n;
	}
	while (i < n && !strchr(",]} \t\r\n", t[i]))
		i++;
	return i;
}

/* The value of member `key` of the object at i; false when absent. */
static bool member(const char *t, size_t n, size_t i, const char *key, span *v)
{
	size_t kl = strlen(key);
	i = ws(t, n, i);
	if (i >= n || t[i] != '{')
		return false;
	i = ws(t, n, i + 1);
	while (i < n && t[i] == '"') {
		size_t ke = skip_value(t, n, i);
		bool hit = ke - i == kl + 2 && !memcmp(t + i + 1, key, kl);
		i = ws(t, n, ke);
		if (i >= n || t[i] != ':')
			return false;
		i = ws(t, n, i + 1);
		size_t ve = skip_value(t, n, i);
		if (hit) {
			v->s = i;
			v->e = ve;
			return true;
		}
		i = ws(t, n, ve);
		if (i < n && t[i] == ',')
			i = ws(t, n, i + 1);
	}
	return false;
}

/* Spans of the elements of the array at a.s. */
static size_t elements(const char *t, size_t n, span a, span *el, size_t max)
{
	size_t k = 0, i = ws(t, n, a.s + 1);
	while (i < a.e && t[i] != ']' && k < max) {
		size_t e = skip_value(t, n, i);
		el[k].s = i;
		el[k].e = e;
		k++;
		i = ws(t, n, e);
		if (i < n && t[i] == ',')
			i = ws(t, n, i + 1);
	}
	return k;
}

static char *source_json(const char *src)
{
	/* Jupyter keeps source as a list of lines, each with its '\n' */
	cJSON *arr = cJSON_CreateArray();
	for (const char *p = src; arr && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
		char *line = strndup(p, n);
		cJSON *s = line ? cJSON_CreateString(line) : NULL;
		free(line);
		if (!s) {
			cJSON_Delete(arr);
			return NULL;
		}
		cJSON_AddItemToArray(arr, s);
		p += n;
	}
	char *j = arr ? cJSON_PrintUnformatted(arr) : NULL;
	cJSON_Delete(arr);
	return j;
}

/* Replace the source of cell c: only the source value changes (or a
 * "source" member is added before the cell's '}'). */
static void splice_replace(lu_buf *b, const char *t, size_t n, span c,
                           const char *src)
{
	span sv;
	if (member(t, n, c.s, "source", &sv)) {
		lu_buf_add(b, t, sv.s);
		lu_buf_puts(b, src);
		lu_buf_add(b, t + sv.e, n - sv.e);
		return;
	}
	size_t close = c.e - 1; /* the cell's '}' */
	size_t last = close;
	while (last > c.s + 1 && strchr(" \t\r\n", t[last - 1]))
		last--;
	lu_buf_add(b, t, last);
	lu_buf_puts(b, t[last - 1] == '{' ? "" : ", ");
	lu_buf_printf(b, "\"source\": %s", src);
	lu_buf_add(b, t + last, n - last);
}

/* Insert the cell text `cell` before element idx of the k in `cells`
 * (idx == k: append), with the separator the file uses. */
static void splice_insert(lu_buf *b, const char *t, size_t n, span cells,
                          const span *el, size_t k, size_t idx,
                          const char *cell)
{
	if (k == 0) {
		lu_buf_add(b, t, cells.s + 1);
		lu_buf_puts(b, cell);
		lu_buf_add(b, t + cells.s + 1, n - cells.s - 1);
	} else if (idx < k) {
		/* the text between the previous element (or '[') and this
		 * one separates the new cell from it too */
		size_t from = idx ? el[idx - 1].e : cells.s + 1;
		size_t sep = from;
		if (idx && t[ws(t, n, sep)] == ',')
			sep = ws(t, n, sep) + 1;
		lu_buf_add(b, t, el[idx].s);
		lu_buf_puts(b, cell);
		lu_buf_puts(b, ",");
		lu_buf_add(b, t + sep, el[idx].s - sep);
		lu_buf_add(b, t + el[idx].s, n - el[idx].s);
	} else {
		size_t sep = k > 1 ? ws(t, n, el[k - 2].e) + 1 : cells.s + 1;
		lu_buf_add(b, t, el[k - 1].e);
		lu_buf_puts(b, ",");
		lu_buf_add(b, t + sep, el[k - 1].s - sep);
		lu_buf_puts(b, cell);
		lu_buf_add(b, t + el[k - 1].e, n - el[k - 1].e);
	}
}

/* A new cell of type ctype with the source JSON src (malloc'd). */
static char *new_cell(const char *ctype, const char *src)
{
	lu_buf cell = {0};
	lu_buf_printf(&cell, "{\"cell_type\": \"%s\", ", ctype);
	if (!strcmp(ctype, "code"))
		lu_buf_puts(&cell, "\"execution_count\": null, ");
	lu_buf_puts(&cell, "\"metadata\": {}, ");
	if (!strcmp(ctype, "code"))
		lu_buf_puts(&cell, "\"outputs\": [], ");
	lu_buf_printf(&cell, "\"source\": %s}", src);
	return lu_buf_take(&cell);
}

/* Delete element idx of k with the separator on one side. */
static void splice_delete(lu_buf *b, const char *t, size_t n, const span *el,
                          size_t k, size_t idx)
{
	size_t s = el[idx].s, e = el[idx].e;
	if (idx + 1 < k)
		e = el[idx + 1].s;
	else if (idx > 0)
		s = el[idx - 1].e;
	lu_buf_add(b, t, s);
	lu_buf_add(b, t + e, n - e);
}

int lh_notebook_splice(const char *t, size_t n, long idx, lh_notebook_mode mode,
                       const char *source, const char *ctype, char **out,
                       size_t *olen)
{
	*out = NULL;
	*olen = 0;
	span cells, *el = NULL;
	if (!member(t, n, 0, "cells", &cells) || t[cells.s] != '[')
		return LOCUS_EINVALID;
	el = malloc(MAX_CELLS * sizeof *el);
	if (!el)
		return LOCUS_ENOMEM;
	size_t k = elements(t, n, cells, el, MAX_CELLS);
	int rc = 0;
	lu_buf b = {0};
	char *src = mode == LH_NOTEBOOK_DELETE ? NULL : source_json(source);
	char *cell = NULL;
	/* replace and delete name a cell that exists; insert may append */
	if (idx < 0 || (size_t)idx > k ||
	    ((size_t)idx == k && mode != LH_NOTEBOOK_INSERT))
		rc = LOCUS_EINVALID;
	else if (mode != LH_NOTEBOOK_DELETE && !src)
		rc = LOCUS_ENOMEM;
	else if (mode == LH_NOTEBOOK_REPLACE)
		splice_replace(&b, t, n, el[idx], src);
	else if (mode == LH_NOTEBOOK_DELETE)
		splice_delete(&b, t, n, el, k, (size_t)idx);
	else if (!(cell = new_cell(ctype, src)))
		rc = LOCUS_ENOMEM;
	else
		splice_insert(&b, t, n, cells, el, k, (size_t)idx, cell);
	free(cell);
	if (!rc && b.oom)
		rc = LOCUS_ENOMEM;
	if (!rc) {
		/* the result must still be a notebook */
		cJSON *chk = cJSON_ParseWithLength(b.d ? b.d : "", b.len);
		bool ok = cJSON_IsArray(
		    cJSON_GetObjectItemCaseSensitive(chk, "cells"));
		cJSON_Delete(chk);
		rc = ok ? 0 : LOCUS_EINVALID;
	}
	if (!rc) {
		*olen = b.len;
		*out = lu_buf_take(&b);
	}
	lu_buf_free(&b);
	cJSON_free(src);
	free(el);
	return rc;
}
