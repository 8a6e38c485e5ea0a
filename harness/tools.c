/*
 * harness/tools.c - the harness: tool table, the single gate, the read
 * ledger, file tools, search and the shell tools.
 *
 * File-changing tools plan their changes in memory first (lh_change); a
 * call commits the plan, a preview renders it as a unified diff.  So a
 * failed edit, multi_edit or apply_patch writes nothing, and preview shows
 * exactly what a call would do.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "locus/labels.h"
#include "../util/regex.h"
#include "../util/tools.h"
#include "../util/array.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_READ_BYTES  200000
#define MAX_LINE_CHARS  2000
#define MAX_IMAGE_BYTES 5000000
#define LS_PER_DIR      40
#define LS_MAX_LINES    400
#define GLOB_MAX        1000
#define WALK_MAX        200000
#define GREP_MAX_FILE   (16u << 20)

typedef struct ledger_ent {
	char *key;
	char sha[65];
} ledger_ent;

typedef struct bg_ent {
	char handle[16];
	size_t since;
	char *command_sha;
	double start;
} bg_ent;

typedef struct tooldef tooldef;

struct locus_harness {
	locus_backend *b;
	locus_harness_config cfg;
	locus_wrap_fn wrap;
	void *wrap_payload;
	const tooldef *tools[16];
	size_t ntools;
	ledger_ent *led;
	size_t nled, capled;
	cJSON *todos;
	bg_ent *bgs;
	size_t nbgs, capbgs;
	locus_call_ctl *ctl; /* the call in progress (borrowed), or NULL */
};

/* A tool body.  File tools fill a plan (and leave `out` empty); the others
 * write their text to out.  Returns true on success, false for a refusal
 * or failure whose text is in out. */
typedef bool (*tool_fn)(locus_harness *h, const cJSON *args, lh_buf *out,
                        lh_change **plan, size_t *nplan);

struct tooldef {
	const char *name;
	const char *description;
	const char *schema;
	tool_fn fn;
	bool changes_files;
	bool shell;
};

/* The public name lists, built from util/tools.h's table. */
#define ALL_(n, k, f, d, p, t) #n,
#define DEFAULT_(n, k, f, d, p, t) LU_IF_##d(#n, )
#define PATCHSET_(n, k, f, d, p, t) LU_IF_##p(#n, )
const char *const locus_all_tools[] = {LU_TOOLS(ALL_) NULL};
const char *const locus_default_tools[] = {LU_TOOLS(DEFAULT_) NULL};
const char *const locus_patch_tools[] = {LU_TOOLS(PATCHSET_) NULL};
#undef ALL_
#undef DEFAULT_
#undef PATCHSET_

/* ---------------- arguments ---------------- */

/* Fetch an optional argument of a type; false (with a message in out) on
 * a wrong type. */
static bool arg_str(const cJSON *a, const char *k, const char *def,
                    const char **v, lh_buf *out)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, k);
	if (!x || cJSON_IsNull(x)) {
		*v = def;
		if (!def)
			lh_buf_printf(out, "missing argument '%s'", k);
		return def != NULL;
	}
	if (!cJSON_IsString(x)) {
		lh_buf_printf(out, "argument '%s' must be a string", k);
		return false;
	}
	*v = x->valuestring;
	return true;
}

static bool arg_int(const cJSON *a, const char *k, long def, long lo, long hi,
                    long *v, lh_buf *out)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, k);
	if (!x || cJSON_IsNull(x)) {
		*v = def;
		return true;
	}
	if (!cJSON_IsNumber(x) ||
	    x->valuedouble != (double)(long)x->valuedouble ||
	    x->valuedouble < (double)lo || x->valuedouble > (double)hi) {
		lh_buf_printf(out,
		              "argument '%s' must be an integer from %ld "
		              "to %ld",
		              k, lo, hi);
		return false;
	}
	*v = (long)x->valuedouble;
	return true;
}

static bool arg_bool(const cJSON *a, const char *k, bool def, bool *v,
                     lh_buf *out)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, k);
	if (!x || cJSON_IsNull(x)) {
		*v = def;
		return true;
	}
	if (!cJSON_IsBool(x)) {
		lh_buf_printf(out, "argument '%s' must be true or false", k);
		return false;
	}
	*v = cJSON_IsTrue(x);
	return true;
}

/* ---------------- ledger ---------------- */

static char *ledger_key(locus_harness *h, const char *path)
{
	char *rel = NULL;
	locus_error err;
	if (lh_path_rel(h->b->root, path, &rel, &err))
		return NULL;
	return rel;
}

static ledger_ent *ledger_find(locus_harness *h, const char *key)
{
	for (size_t i = 0; i < h->nled; i++)
		if (!strcmp(h->led[i].key, key))
			return &h->led[i];
	return NULL;
}

static void ledger_note(locus_harness *h, const char *path, const char *data,
                        size_t len)
{
	char *key = ledger_key(h, path);
	if (!key)
		return;
	ledger_ent *e = ledger_find(h, key);
	if (!e) {
		if (!lu_reserve(&h->led, &h->capled, h->nled + 1)) {
			free(key);
			return; /* unnoted: a later change is refused */
		}
		e = &h->led[h->nled++];
		e->key = key;
	} else {
		free(key);
	}
	lh_sha256_hex(data, len, e->sha);
}

static void ledger_forget(locus_harness *h, const char *path)
{
	char *key = ledger_key(h, path);
	if (!key)
		return;
	ledger_ent *e = ledger_find(h, key);
	free(key);
	if (e)
		e->sha[0] = '\0';
}

/* NULL when a change to an existing file (with these current bytes) may
 * go ahead; else the refusal text (static format filled into out). */
static bool ledger_check(locus_harness *h, const char *path, const char *data,
                         size_t len, lh_buf *out)
{
	if (!h->cfg.require_read)
		return true;
	char *key = ledger_key(h, path);
	ledger_ent *e = key ? ledger_find(h, key) : NULL;
	free(key);
	if (!e || !e->sha[0]) {
		lh_buf_printf(out,
		              "%s has not been read in this session — read it "
		              "first, so the change is made against what is "
		              "there. Nothing was written.",
		              path);
		return false;
	}
	char sha[65];
	lh_sha256_hex(data, len, sha);
	if (strcmp(sha, e->sha)) {
		lh_buf_printf(out,
		              "%s has changed since you last read it — read it "
		              "again before changing it. Nothing was written.",
		              path);
		return false;
	}
	return true;
}

/* ---------------- plans ---------------- */

static lh_change *plan_add(lh_change **plan, size_t *n)
{
	lh_change *np = realloc(*plan, (*n + 1) * sizeof *np);
	if (!np)
		return NULL;
	*plan = np;
	memset(&np[*n], 0, sizeof *np);
	return &np[(*n)++];
}

/* Plan replacing path's content; `old` is taken over (may be NULL). */
static bool plan_write(lh_change **plan, size_t *n, const char *path, bool had,
                       char *old, size_t olen, const char *data, size_t len,
                       lh_buf *out)
{
	lh_change *c = plan_add(plan, n);
	if (!c || !(c->path = strdup(path)) || !(c->data = malloc(len + 1))) {
		free(old);
		lh_buf_puts(out, "out of memory. Nothing was written.");
		return false;
	}
	memcpy(c->data, data, len);
	c->data[len] = '\0';
	c->len = len;
	c->had = had;
	c->old = old;
	c->olen = olen;
	return true;
}

static void err_text(lh_buf *out, const locus_error *err, const char *tail)
{
	lh_buf_printf(out, "%s%s", err->message[0] ? err->message : "failed",
	              tail ? tail : "");
}

/* Read a file that must exist, and pass the ledger. */
static bool load_for_change(locus_harness *h, const char *path, char **data,
                            size_t *len, lh_buf *out)
{
	locus_error err = {0};
	int rc = h->b->read(h->b, path, data, len, &err);
	if (rc) {
		err_text(out, &err, ". Nothing was written.");
		return false;
	}
	if (!ledger_check(h, path, *data, *len, out)) {
		free(*data);
		*data = NULL;
		return false;
	}
	return true;
}

/* ---------------- read ---------------- */

static size_t utf8_chars(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			c++;
	return c;
}

/* Byte length of the first `chars` characters of s[0..n). */
static size_t utf8_prefix(const char *s, size_t n, size_t chars)
{
	size_t c = 0, i = 0;
	for (; i < n; i++) {
		if (((unsigned char)s[i] & 0xC0) != 0x80) {
			if (c == chars)
				break;
			c++;
		}
	}
	return i;
}

static bool is_image(const char *path)
{
	static const char *const ext[] = {".png", ".jpg",  ".jpeg",
	                                  ".gif", ".webp", NULL};
	size_t pl = strlen(path);
	for (size_t i = 0; ext[i]; i++) {
		size_t el = strlen(ext[i]);
		if (pl > el && !strcasecmp(path + pl - el, ext[i]))
			return true;
	}
	return false;
}

static bool t_read(locus_harness *h, const cJSON *a, lh_buf *out,
                   lh_change **plan, size_t *np)
{
	(void)plan;
	(void)np;
	const char *path;
	long offset, limit;
	if (!arg_str(a, "path", NULL, &path, out) ||
	    !arg_int(a, "offset", 0, 0, 1L << 40, &offset, out) ||
	    !arg_int(a, "limit", 2000, 1, 1L << 40, &limit, out))
		return false;
	locus_stat st;
	locus_error err = {0};
	if (h->b->stat(h->b, path, &st, &err)) {
		err_text(out, &err, NULL);
		return false;
	}
	if (!st.exists) {
		lh_buf_printf(out, "%s does not exist", path);
		return false;
	}
	if (st.is_dir) {
		lh_buf_printf(out, "%s is a folder: use ls to see it", path);
		return false;
	}
	char *data;
	size_t len;
	if (h->b->read(h->b, path, &data, &len, &err)) {
		err_text(out, &err, NULL);
		return false;
	}
	ledger_note(h, path, data, len);
	if (is_image(path)) {
		if (!h->cfg.vision)
			lh_buf_printf(out,
			              "%s is an image (%zu bytes); images "
			              "are not shown in this session.",
			              path, len);
		else if (len > MAX_IMAGE_BYTES)
			lh_buf_printf(out,
			              "%s is an image of %zu bytes, over "
			              "the %d byte limit.",
			              path, len, MAX_IMAGE_BYTES);
		else
			lh_buf_printf(out, "[image %s, %zu bytes]", path, len);
		free(data);
		return true;
	}
	if (len == 0) {
		lh_buf_printf(out, "(%s is empty)", path);
		free(data);
		return true;
	}
	size_t lineno = 0, shown = 0, pos = 0;
	bool stopped = false;
	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (data + pos)) : len - pos;
		lineno++;
		if ((long)(lineno - 1) >= offset) {
			if ((long)shown >= limit || out->len > MAX_READ_BYTES) {
				stopped = true;
				break;
			}
			size_t chars = utf8_chars(data + pos, ll);
			size_t keep =
			    chars > MAX_LINE_CHARS
			        ? utf8_prefix(data + pos, ll, MAX_LINE_CHARS)
			        : ll;
			lh_buf_printf(out, "%6zu\t", lineno);
			lh_buf_add(out, data + pos, keep);
			if (keep < ll)
				lh_buf_printf(out, "… [line is %zu characters]",
				              chars);
			lh_buf_add(out, "\n", 1);
			shown++;
		}
		pos += ll + (nl ? 1 : 0);
	}
	if (stopped) {
		size_t total = lineno;
		for (size_t p = pos; p < len; p++)
			if (data[p] == '\n' && p + 1 < len)
				total++;
		lh_buf_printf(out,
		              "[%zu of %zu lines shown; continue with "
		              "offset=%zu]\n",
		              shown, total, lineno - 1);
	} else if (shown == 0) {
		lh_buf_printf(out,
		              "(offset %ld is past the end: %s has %zu "
		              "lines)",
		              offset, path, lineno);
	}
	free(data);
	return true;
}

/* ---------------- write / edit / multi_edit ---------------- */

static bool t_write(locus_harness *h, const cJSON *a, lh_buf *out,
                    lh_change **plan, size_t *np)
{
	const char *path, *content;
	if (!arg_str(a, "path", NULL, &path, out) ||
	    !arg_str(a, "content", NULL, &content, out))
		return false;
	locus_stat st;
	locus_error err = {0};
	if (h->b->stat(h->b, path, &st, &err)) {
		err_text(out, &err, ". Nothing was written.");
		return false;
	}
	if (st.exists && st.is_dir) {
		lh_buf_printf(out, "%s is a folder. Nothing was written.",
		              path);
		return false;
	}
	char *old = NULL;
	size_t olen = 0;
	if (st.exists && !load_for_change(h, path, &old, &olen, out))
		return false;
	return plan_write(plan, np, path, st.exists, old, olen, content,
	                  strlen(content), out);
}

/* Apply one edit to buf; false with a message (prefixed) on refusal. */
static bool apply_edit(lh_buf *buf, const char *path, const char *old,
                       const char *new_, bool all, const char *prefix,
                       lh_buf *out)
{
	size_t ol = strlen(old), nl = strlen(new_);
	if (!ol) {
		lh_buf_printf(out,
		              "%sold must not be empty. Nothing was "
		              "written.",
		              prefix);
		return false;
	}
	if (!strcmp(old, new_)) {
		lh_buf_printf(out,
		              "%sold and new are the same. Nothing was "
		              "written.",
		              prefix);
		return false;
	}
	size_t count = 0;
	const char *d = buf->d ? buf->d : "";
	for (const char *p = d;
	     (p = memmem(p, buf->len - (size_t)(p - d), old, ol)); p += ol)
		count++;
	if (count == 0) {
		lh_buf_printf(out,
		              "%sold text not found in %s. Nothing was "
		              "written.",
		              prefix, path);
		return false;
	}
	if (count > 1 && !all) {
		lh_buf_printf(out,
		              "%sold text occurs %zu times in %s: add context "
		              "to make it unique, or set replace_all. Nothing "
		              "was written.",
		              prefix, count, path);
		return false;
	}
	lh_buf res = {0};
	const char *p = d, *q;
	while ((q = memmem(p, buf->len - (size_t)(p - d), old, ol))) {
		lh_buf_add(&res, p, (size_t)(q - p));
		lh_buf_add(&res, new_, nl);
		p = q + ol;
		if (!all)
			break;
	}
	lh_buf_add(&res, p, buf->len - (size_t)(p - d));
	if (res.oom) {
		lh_buf_free(&res);
		lh_buf_puts(out, "out of memory. Nothing was written.");
		return false;
	}
	lh_buf_free(buf);
	*buf = res;
	return true;
}

static bool edits_common(locus_harness *h, const char *path, const cJSON *edits,
                         bool single, lh_buf *out, lh_change **plan, size_t *np)
{
	char *data;
	size_t len;
	if (!load_for_change(h, path, &data, &len, out))
		return false;
	lh_buf buf = {0};
	lh_buf_add(&buf, data, len);
	int n = cJSON_GetArraySize(edits), k = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, edits)
	{
		k++;
		char prefix[64] = "";
		if (!single)
			snprintf(prefix, sizeof prefix, "edit %d of %d: ", k,
			         n);
		const char *old, *new_;
		bool all;
		if (!cJSON_IsObject(e) || !arg_str(e, "old", NULL, &old, out) ||
		    !arg_str(e, "new", NULL, &new_, out) ||
		    !arg_bool(e, "replace_all", false, &all, out) ||
		    !apply_edit(&buf, path, old, new_, all, prefix, out)) {
			if (!cJSON_IsObject(e))
				lh_buf_printf(
				    out, "%san edit must be an object", prefix);
			lh_buf_free(&buf);
			free(data);
			return false;
		}
	}
	bool ok = plan_write(plan, np, path, true, data, len,
	                     buf.d ? buf.d : "", buf.len, out);
	lh_buf_free(&buf);
	return ok;
}

static bool t_edit(locus_harness *h, const cJSON *a, lh_buf *out,
                   lh_change **plan, size_t *np)
{
	const char *path, *old, *new_;
	bool all;
	if (!arg_str(a, "path", NULL, &path, out) ||
	    !arg_str(a, "old", NULL, &old, out) ||
	    !arg_str(a, "new", NULL, &new_, out) ||
	    !arg_bool(a, "replace_all", false, &all, out))
		return false;
	cJSON *arr = cJSON_CreateArray();
	cJSON *one = cJSON_CreateObject();
	bool ok = false;
	if (arr && one && cJSON_AddStringToObject(one, "old", old) &&
	    cJSON_AddStringToObject(one, "new", new_) &&
	    cJSON_AddBoolToObject(one, "replace_all", all)) {
		cJSON_AddItemToArray(arr, one);
		one = NULL;
		ok = edits_common(h, path, arr, true, out, plan, np);
	} else {
		lh_buf_puts(out, "out of memory. Nothing was written.");
	}
	cJSON_Delete(one);
	cJSON_Delete(arr);
	return ok;
}

static bool t_multi_edit(locus_harness *h, const cJSON *a, lh_buf *out,
                         lh_change **plan, size_t *np)
{
	const char *path;
	if (!arg_str(a, "path", NULL, &path, out))
		return false;
	const cJSON *edits = cJSON_GetObjectItemCaseSensitive(a, "edits");
	if (!cJSON_IsArray(edits) || cJSON_GetArraySize(edits) == 0) {
		lh_buf_puts(out,
		            "argument 'edits' must be a non-empty list of "
		            "{old, new, replace_all}. Nothing was written.");
		return false;
	}
	return edits_common(h, path, edits, false, out, plan, np);
}

/* ---------------- apply_patch ---------------- */

static bool t_apply_patch(locus_harness *h, const cJSON *a, lh_buf *out,
                          lh_change **plan, size_t *np)
{
	const char *patch;
	if (!arg_str(a, "patch", NULL, &patch, out))
		return false;
	char *msg = NULL;
	int rc = lh_patch_plan(h->b, patch, plan, np, &msg);
	if (rc) {
		lh_buf_puts(out, msg ? msg : "the patch does not apply");
		free(msg);
		return false;
	}
	/* every existing file touched must pass the ledger */
	for (size_t i = 0; i < *np; i++) {
		lh_change *c = &(*plan)[i];
		if (c->had && !ledger_check(h, c->path, c->old, c->olen, out)) {
			lh_changes_free(*plan, *np);
			*plan = NULL;
			*np = 0;
			return false;
		}
	}
	return true;
}

/* ---------------- notebook_edit ---------------- */

static bool t_notebook_edit(locus_harness *h, const cJSON *a, lh_buf *out,
                            lh_change **plan, size_t *np)
{
	const char *path, *source, *mode, *ctype;
	if (!arg_str(a, "path", NULL, &path, out) ||
	    !arg_str(a, "mode", "replace", &mode, out) ||
	    !arg_str(a, "source", "", &source, out) ||
	    !arg_str(a, "cell_type", "code", &ctype, out))
		return false;
	int m = !strcmp(mode, "replace")  ? 0
	        : !strcmp(mode, "insert") ? 1
	        : !strcmp(mode, "delete") ? 2
	                                  : -1;
	if (m < 0 || (strcmp(ctype, "code") && strcmp(ctype, "markdown") &&
	              strcmp(ctype, "raw"))) {
		lh_buf_puts(out, m < 0 ? "mode must be replace, insert or "
		                         "delete. Nothing was written."
		                       : "cell_type must be code, markdown or "
		                         "raw. Nothing was written.");
		return false;
	}
	char *data;
	size_t len;
	if (!load_for_change(h, path, &data, &len, out))
		return false;
	cJSON *nb = cJSON_ParseWithLength(data, len);
	cJSON *cells =
	    nb ? cJSON_GetObjectItemCaseSensitive(nb, "cells") : NULL;
	if (!cJSON_IsArray(cells)) {
		lh_buf_printf(out,
		              "%s is not a Jupyter notebook (no cells "
		              "list). Nothing was written.",
		              path);
		cJSON_Delete(nb);
		free(data);
		return false;
	}
	int ncells = cJSON_GetArraySize(cells);
	const cJSON *cell = cJSON_GetObjectItemCaseSensitive(a, "cell");
	long idx = -1;
	if (cJSON_IsNumber(cell) &&
	    cell->valuedouble == (double)(long)cell->valuedouble) {
		idx = (long)cell->valuedouble;
	} else if (cJSON_IsString(cell)) {
		for (int i = 0; i < ncells; i++) {
			cJSON *id = cJSON_GetObjectItemCaseSensitive(
			    cJSON_GetArrayItem(cells, i), "id");
			if (cJSON_IsString(id) &&
			    !strcmp(id->valuestring, cell->valuestring))
				idx = i;
		}
	}
	long hi = m == 1 ? ncells : ncells - 1;
	if (idx < 0 || idx > hi) {
		lh_buf_printf(out,
		              "no cell %s%s in %s (it has %d cells). "
		              "Nothing was written.",
		              cJSON_IsString(cell) ? "with id " : "",
		              cJSON_IsString(cell) ? cell->valuestring
		                                   : "at that index",
		              path, ncells);
		cJSON_Delete(nb);
		free(data);
		return false;
	}
	cJSON_Delete(nb);
	/* the change is spliced into the text: untouched cells keep their
	 * bytes (numbers, key order, indentation) */
	char *text = NULL;
	size_t tl = 0;
	int rc = lh_notebook_splice(data, len, idx, m, source, ctype, &text,
	                            &tl);
	if (rc) {
		free(data);
		lh_buf_puts(out, rc == LOCUS_ENOMEM
		                     ? "out of memory. Nothing was written."
		                     : "the notebook's cells could not be "
		                       "edited in place. Nothing was written.");
		return false;
	}
	bool ok = plan_write(plan, np, path, true, data, len, text, tl, out);
	free(text);
	return ok;
}

/* ---------------- ls ---------------- */

static int ent_visible(const locus_dirent *d)
{
	return d->name[0] != '.' && !(d->is_dir && lh_is_skip_dir(d->name));
}

static bool t_ls(locus_harness *h, const cJSON *a, lh_buf *out,
                 lh_change **plan, size_t *np)
{
	(void)plan;
	(void)np;
	const char *path;
	long depth;
	if (!arg_str(a, "path", ".", &path, out) ||
	    !arg_int(a, "depth", 2, 1, 20, &depth, out))
		return false;
	typedef struct {
		locus_dirent *e;
		size_t n, i, shown;
		char *dir;
	} frame;
	frame st[21];
	size_t sp = 0, lines = 0;
	locus_error err = {0};
	if (h->b->list(h->b, path, &st[0].e, &st[0].n, &err)) {
		err_text(out, &err, NULL);
		return false;
	}
	st[0].i = st[0].shown = 0;
	st[0].dir = strdup(path);
	lh_buf_printf(out, "%s/\n", path);
	sp = 1;
	bool full = false;
	while (sp) {
		frame *f = &st[sp - 1];
		if (f->i >= f->n || full) {
			size_t hidden = 0;
			for (size_t k = f->i; k < f->n; k++)
				hidden += ent_visible(&f->e[k]);
			if (hidden && !full) {
				lh_buf_printf(out, "%*s... %zu more\n",
				              (int)(2 * sp), "", hidden);
			}
			locus_dirents_free(f->e, f->n);
			free(f->dir);
			sp--;
			continue;
		}
		locus_dirent *d = &f->e[f->i++];
		if (!ent_visible(d))
			continue;
		if (f->shown == LS_PER_DIR) {
			f->i--;
			size_t more = 0;
			for (size_t k = f->i; k < f->n; k++)
				more += ent_visible(&f->e[k]);
			lh_buf_printf(out, "%*s... %zu more\n", (int)(2 * sp),
			              "", more);
			f->i = f->n;
			lines++;
			continue;
		}
		f->shown++;
		if (++lines > LS_MAX_LINES) {
			lh_buf_printf(out, "... (stopped at %d lines)\n",
			              LS_MAX_LINES);
			full = true;
			continue;
		}
		lh_buf_printf(out, "%*s%s%s\n", (int)(2 * sp), "", d->name,
		              d->is_dir ? "/" : "");
		if (d->is_dir && (long)sp < depth) {
			size_t dl = strlen(f->dir) + strlen(d->name) + 2;
			char *sub = malloc(dl);
			if (!sub)
				continue;
			snprintf(sub, dl, "%s/%s", f->dir, d->name);
			frame *c = &st[sp];
			if (h->b->list(h->b, sub, &c->e, &c->n, &err)) {
				free(sub);
				continue;
			}
			c->i = c->shown = 0;
			c->dir = sub;
			sp++;
		}
	}
	return true;
}

/* ---------------- glob ---------------- */

static double search_budget(const locus_harness *h)
{
	return h->cfg.search_budget_s > 0 ? h->cfg.search_budget_s : 10;
}


/* Does rel (a/b/c) match the pattern segments?  DP over segments, so `**`
 * costs no recursion. */
static bool glob_match(const char *pattern, const char *rel)
{
	char *pc = strdup(pattern), *rc = strdup(rel);
	const char *P[128], *S[256];
	size_t np = 0, ns = 0;
	bool res = false;
	if (!pc || !rc)
		goto out;
	for (char *t = strtok(pc, "/"); t; t = strtok(NULL, "/")) {
		if (np == 128)
			goto out;
		if (strcmp(t, "."))
			P[np++] = t;
	}
	for (char *t = strtok(rc, "/"); t; t = strtok(NULL, "/")) {
		if (ns == 256)
			goto out;
		S[ns++] = t;
	}
	/* dp[j]: P[i..] matches S[j..], rolled over i from the end */
	bool dp[257], nx[257];
	for (size_t j = 0; j <= ns; j++)
		nx[j] = j == ns;
	for (size_t i = np; i-- > 0;) {
		bool star = !strcmp(P[i], "**");
		dp[ns] = star && nx[ns];
		for (size_t j = ns; j-- > 0;) {
			if (star)
				dp[j] = nx[j] || (S[j][0] != '.' && dp[j + 1]);
			else
				dp[j] = nx[j + 1] &&
				        fnmatch(P[i], S[j], FNM_PERIOD) == 0;
		}
		memcpy(nx, dp, sizeof dp);
	}
	res = nx[0];
out:
	free(pc);
	free(rc);
	return res;
}

static int by_mtime(const void *x, const void *y)
{
	const locus_dirent *a = x, *b = y;
	if (a->mtime_ns != b->mtime_ns)
		return a->mtime_ns > b->mtime_ns ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void join(lh_buf *out, const char *dir, const char *rel)
{
	if (strcmp(dir, ".") && *dir)
		lh_buf_printf(out, "%s%s", dir,
		              dir[strlen(dir) - 1] == '/' ? "" : "/");
	lh_buf_puts(out, rel);
}

static bool t_glob(locus_harness *h, const cJSON *a, lh_buf *out,
                   lh_change **plan, size_t *np)
{
	(void)plan;
	(void)np;
	const char *pattern, *path;
	if (!arg_str(a, "pattern", NULL, &pattern, out) ||
	    !arg_str(a, "path", ".", &path, out))
		return false;
	locus_dirent *e;
	size_t n;
	locus_error err = {0};
	if (h->b->walk(h->b, path, WALK_MAX, &e, &n, &err)) {
		err_text(out, &err, NULL);
		return false;
	}
	size_t k = 0;
	double deadline = lh_now() + search_budget(h);
	bool out_of_time = false;
	for (size_t i = 0; i < n; i++) {
		if (!out_of_time && (i & 255) == 0 && lh_now() > deadline)
			out_of_time = true;
		if (!out_of_time && glob_match(pattern, e[i].name))
			e[k++] = e[i];
		else
			free(e[i].name);
	}
	if (k)
		qsort(e, k, sizeof *e, by_mtime);
	for (size_t i = 0; i < k && i < GLOB_MAX; i++) {
		join(out, path, e[i].name);
		lh_buf_add(out, "\n", 1);
	}
	if (k > GLOB_MAX)
		lh_buf_printf(out, "... %zu more\n", k - GLOB_MAX);
	if (out_of_time)
		lh_buf_printf(out,
		              "... (stopped: the search's time budget of %.0f s "
		              "ran out)\n",
		              search_budget(h));
	if (!k)
		lh_buf_printf(out, "No files match %s", pattern);
	locus_dirents_free(e, k);
	return true;
}

/* ---------------- grep ---------------- */

static bool t_grep(locus_harness *h, const cJSON *a, lh_buf *out,
                   lh_change **plan, size_t *np)
{
	(void)plan;
	(void)np;
	const char *pattern, *path, *glob, *mode_s;
	bool ci;
	long ctx, limit;
	if (!arg_str(a, "pattern", NULL, &pattern, out) ||
	    !arg_str(a, "path", ".", &path, out) ||
	    !arg_str(a, "glob", "", &glob, out) ||
	    !arg_str(a, "output_mode", "content", &mode_s, out) ||
	    !arg_bool(a, "case_insensitive", false, &ci, out) ||
	    !arg_int(a, "context", 0, 0, 100, &ctx, out) ||
	    !arg_int(a, "limit", 200, 1, 100000, &limit, out))
		return false;
	int m = !strcmp(mode_s, "content") ? LOCUS_GREP_CONTENT
	        : !strcmp(mode_s, "files") ? LOCUS_GREP_FILES
	        : !strcmp(mode_s, "count") ? LOCUS_GREP_COUNT
	                                   : -1;
	locus_grep_mode mode = (locus_grep_mode)m;
	if (m < 0) {
		lh_buf_puts(out, "output_mode must be content, files or count");
		return false;
	}
	locus_error err = {0};
	if (h->b->search) {
		char *text = NULL;
		if (h->b->search(h->b, pattern, path, glob, ci, (int)ctx, mode,
		                 (size_t)limit, &text, &err)) {
			err_text(out, &err, NULL);
			return false;
		}
		lh_buf_puts(out, text);
		free(text);
		return true;
	}
	lu_re_error rerr;
	pcre2_code *re = lu_re_compile(
	    pattern,
	    PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | (ci ? PCRE2_CASELESS : 0),
	    false, &rerr);
	if (!re) {
		lh_buf_printf(out, "bad pattern at offset %zu: %s", rerr.offset,
		              rerr.message);
		return false;
	}
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	pcre2_match_context *mc = lu_re_context(NULL);
	/* a total time budget: catastrophic patterns over many lines stop */
	double deadline = lh_now() + search_budget(h);
	bool out_of_time = false;
	locus_stat st;
	locus_dirent *e = NULL;
	size_t n = 0;
	bool single = false;
	if (h->b->stat(h->b, path, &st, &err) || !st.exists) {
		lh_buf_printf(out, "%s does not exist", path);
		goto fail;
	}
	if (!st.is_dir) {
		e = calloc(1, sizeof *e);
		if (!e || !(e->name = strdup(path)))
			goto oom;
		n = 1;
		single = true;
	} else if (h->b->walk(h->b, path, WALK_MAX, &e, &n, &err)) {
		err_text(out, &err, NULL);
		goto fail;
	}
	size_t lines = 0, nfiles = 0;
	bool stop = false, limited = false;
	for (size_t i = 0; i < n && !stop; i++) {
		if (*glob && !glob_match(strchr(glob, '/') ? glob : glob,
		                         strchr(glob, '/') ? e[i].name
		                         : strrchr(e[i].name, '/')
		                             ? strrchr(e[i].name, '/') + 1
		                             : e[i].name))
			continue;
		if (e[i].size > GREP_MAX_FILE)
			continue;
		lh_buf fp = {0};
		if (single)
			lh_buf_puts(&fp, path);
		else
			join(&fp, path, e[i].name);
		char *data;
		size_t len;
		if (h->b->read(h->b, fp.d, &data, &len, &err)) {
			lh_buf_free(&fp);
			continue;
		}
		if (memchr(data, '\0', len < 8000 ? len : 8000)) {
			free(data);
			lh_buf_free(&fp);
			continue; /* binary */
		}
		if (lh_now() > deadline) {
			out_of_time = stop = true;
			lh_buf_free(&fp);
			free(data);
			break;
		}
		size_t count = 0, pos = 0, lineno = 0, last_shown = 0;
		/* line starts, for context before a match */
		size_t ring[101];
		while (pos <= len && !stop) {
			if (pos == len && (len == 0 || data[len - 1] == '\n'))
				break;
			const char *nl = memchr(data + pos, '\n', len - pos);
			size_t ll = nl ? (size_t)(nl - data - pos) : len - pos;
			lineno++;
			ring[lineno % 101] = pos;
			if ((lineno & 63) == 0 && lh_now() > deadline) {
				out_of_time = stop = true;
				break;
			}
			int r;
			lu_re_match(re, data + pos, ll, 0, md, mc, &r);
			if (lu_re_is_limit(r)) {
				lh_buf_printf(out,
				              "%s:%zu: the pattern hit the "
				              "match limit\n",
				              fp.d, lineno);
			} else if (r > 0) {
				count++;
				if (mode == LOCUS_GREP_CONTENT) {
					size_t from = lineno > (size_t)ctx
					                  ? lineno - (size_t)ctx
					                  : 1;
					if (from <= last_shown)
						from = last_shown + 1;
					else if (last_shown && ctx)
						lh_buf_puts(out, "--\n");
					for (size_t l = from; l <= lineno;
					     l++) {
						size_t s = ring[l % 101];
						const char *e2 = memchr(
						    data + s, '\n', len - s);
						size_t el =
						    e2 ? (size_t)(e2 - data - s)
						       : len - s;
						lh_buf_printf(
						    out, "%s%c%zu%c", fp.d,
						    l == lineno ? ':' : '-', l,
						    l == lineno ? ':' : '-');
						lh_buf_add(out, data + s, el);
						lh_buf_add(out, "\n", 1);
						if (++lines >= (size_t)limit) {
							stop = limited = true;
							break;
						}
					}
					last_shown = lineno;
					/* after-context: show following lines
					 */
					size_t p2 = pos + ll + (nl ? 1 : 0);
					for (long c = 0;
					     c < ctx && !stop && p2 < len;
					     c++) {
						const char *e3 = memchr(
						    data + p2, '\n', len - p2);
						size_t el =
						    e3 ? (size_t)(e3 - data -
						                  p2)
						       : len - p2;
						if (lu_re_match(re, data + p2,
						                el, 0, md, mc,
						                NULL) == LU_RE_MATCH)
							break;
						lh_buf_printf(out, "%s-%zu-",
						              fp.d,
						              last_shown + 1);
						lh_buf_add(out, data + p2, el);
						lh_buf_add(out, "\n", 1);
						last_shown++;
						if (++lines >= (size_t)limit)
							stop = limited = true;
						p2 += el + (e3 ? 1 : 0);
					}
				}
			}
			pos += ll + 1;
			if (!nl)
				break;
		}
		if (count) {
			nfiles++;
			if (mode == LOCUS_GREP_FILES) {
				lh_buf_printf(out, "%s\n", fp.d);
				if (++lines >= (size_t)limit)
					stop = limited = true;
			} else if (mode == LOCUS_GREP_COUNT) {
				lh_buf_printf(out, "%s:%zu\n", fp.d, count);
				if (++lines >= (size_t)limit)
					stop = limited = true;
			}
		}
		free(data);
		lh_buf_free(&fp);
	}
	if (limited)
		lh_buf_printf(out, "... (stopped at limit=%ld)\n", limit);
	if (out_of_time)
		lh_buf_printf(out,
		              "... (stopped: the search's time budget of %.0f s "
		              "ran out; narrow the path or the pattern)\n",
		              search_budget(h));
	if (!nfiles)
		lh_buf_printf(out, "No matches for %s", pattern);
	locus_dirents_free(e, n);
	pcre2_match_context_free(mc);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return true;
oom:
	lh_buf_puts(out, "out of memory");
fail:
	locus_dirents_free(e, n);
	pcre2_match_context_free(mc);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return false;
}

/* ---------------- shell tools ---------------- */

static size_t utf8_back(const char *s, size_t i)
{
	/* move i back to the start of a UTF-8 sequence */
	while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80)
		i--;
	return i;
}

/* Cap output: head + "... N characters truncated from the middle ..." +
 * tail.  Returns true when it cut. */
static bool cap_output(locus_harness *h, const char *s, size_t n, lh_buf *out)
{
	size_t max = h->cfg.output_chars, head = h->cfg.output_head_chars;
	if (head > max)
		head = max;
	if (n <= max) {
		lh_buf_add(out, s, n);
		return false;
	}
	size_t hb = utf8_back(s, head);
	size_t tail = max - head;
	size_t tb = utf8_back(s, n - tail);
	if (tb < hb)
		tb = hb;
	lh_buf_add(out, s, hb);
	lh_buf_printf(out,
	              "\n... %zu characters truncated from the middle "
	              "...\n",
	              utf8_chars(s + hb, tb - hb));
	lh_buf_add(out, s + tb, n - tb);
	if (h->cfg.result_store) {
		char *id = h->cfg.result_store(s, n, h->cfg.payload);
		if (id)
			lh_buf_printf(out, "\n[full output stored as %s]", id);
		free(id);
	}
	return true;
}

static void emit_exec(locus_harness *h, const char *command, bool has_exit,
                      int exit_code, double dur, bool timed_out,
                      const char *kept, size_t kept_len, bool truncated,
                      bool background)
{
	if (!h->cfg.on_exec)
		return;
	locus_exec_record r;
	memset(&r, 0, sizeof r);
	lh_sha256_hex(command, strlen(command), r.command_sha256);
	r.has_exit_code = has_exit;
	r.exit_code = has_exit ? exit_code : 0;
	r.duration_s = (double)(long long)(dur * 1000.0 + 0.5) / 1000.0;
	r.timed_out = timed_out;
	lh_sha256_hex(kept, kept_len, r.output_sha256);
	r.output_bytes = kept_len;
	r.truncated = truncated;
	r.backend_label = h->b->label;
	r.background = background;
	h->cfg.on_exec(&r, h->cfg.payload);
}

static bg_ent *bg_find(locus_harness *h, const char *handle)
{
	for (size_t i = 0; i < h->nbgs; i++)
		if (!strcmp(h->bgs[i].handle, handle))
			return &h->bgs[i];
	return NULL;
}

static void bg_note(locus_harness *h, const char *handle, size_t since)
{
	bg_ent *e = bg_find(h, handle);
	if (!e) {
		if (!lu_reserve(&h->bgs, &h->capbgs, h->nbgs + 1))
			return;
		e = &h->bgs[h->nbgs++];
		memset(e, 0, sizeof *e);
		snprintf(e->handle, sizeof e->handle, "%s", handle);
	}
	e->since = since;
}

/*
 * A command still running at its timeout becomes a background job only when
 * the gate allows this very call with background=true (exec:background):
 * the same gate, re-asked, audited like any decision.  Otherwise it is
 * killed.  True: keep it; else *why is the refusal text (malloc'd, or NULL
 * when it could not be made).  Without a wrap (an ungated harness) there
 * is nobody to ask and it is kept, as before.
 */
static bool keep_allowed(locus_harness *h, const cJSON *a, char **why)
{
	*why = NULL;
	if (!h->wrap)
		return true;
	cJSON *bg = cJSON_Duplicate(a, true);
	char *args = NULL;
	if (bg) {
		cJSON_DeleteItemFromObjectCaseSensitive(bg, "background");
		if (cJSON_AddTrueToObject(bg, "background"))
			args = cJSON_PrintUnformatted(bg);
	}
	cJSON_Delete(bg);
	/* cannot ask: fail closed */
	bool keep = args && lh_wrap_allows(h->wrap, h->wrap_payload, "bash",
	                                   args, strlen(args), why);
	cJSON_free(args);
	return keep;
}

static bool t_bash(locus_harness *h, const cJSON *a, lh_buf *out,
                   lh_change **plan, size_t *np)
{
	(void)plan;
	(void)np;
	const char *cmd;
	long timeout;
	bool bg;
	if (!arg_str(a, "command", NULL, &cmd, out) ||
	    !arg_int(a, "timeout", h->cfg.bash_timeout, 1,
	             h->cfg.bash_max_timeout, &timeout, out) ||
	    !arg_bool(a, "background", false, &bg, out))
		return false;
	const char *ot = NULL;
	if (!arg_str(a, "on_timeout",
	             h->cfg.on_timeout_kill ? "kill" : "background", &ot, out))
		return false;
	bool kill_on = !strcmp(ot, "kill");
	if (!kill_on && strcmp(ot, "background")) {
		lh_buf_puts(out, "on_timeout must be background or kill");
		return false;
	}
	locus_exec_result r;
	locus_error err = {0};
	int flags = bg ? LOCUS_EXEC_BACKGROUND : kill_on ? 0 : LOCUS_EXEC_KEEP;
	int erc = h->ctl && h->b->exec_ctl
	              ? h->b->exec_ctl(h->b, cmd, (double)timeout, flags,
	                               h->ctl, &r, &err)
	              : h->b->exec(h->b, cmd, (double)timeout, flags, &r, &err);
	if (erc) {
		err_text(out, &err, NULL);
		return false;
	}
	if (r.cancelled) {
		lh_buf_puts(out, "cancelled: the command's process group was "
		                 "killed\n");
		emit_exec(h, cmd, false, 0, r.duration_s, false, "", 0, false,
		          false);
		locus_exec_result_clear(&r);
		return false;
	}
	if (bg) {
		bg_note(h, r.handle, 0);
		lh_buf_printf(out,
		              "started in the background as %s; read it with "
		              "bash_output(handle=\"%s\"), stop it with "
		              "kill_shell(handle=\"%s\")",
		              r.handle, r.handle, r.handle);
		emit_exec(h, cmd, false, 0, r.duration_s, false, "", 0, false,
		          true);
		locus_exec_result_clear(&r);
		return true;
	}
	char *refused = NULL;
	if (r.timed_out && r.handle[0] && !keep_allowed(h, a, &refused)) {
		locus_bg_status st;
		locus_error kerr = {0};
		h->b->bg_kill(h->b, r.handle, &st, &kerr);
		r.handle[0] = '\0';
		lh_buf_printf(out,
		              "timed out after %lds; the command was killed: "
		              "the policy does not let it go on in the "
		              "background (exec:background): %s\n",
		              timeout, refused ? refused : "out of memory");
		free(refused);
	} else if (r.timed_out && r.handle[0]) {
		bg_note(h, r.handle, r.output_len);
		lh_buf_printf(out,
		              "timed out after %lds; still running as %s: read "
		              "more with bash_output(handle=\"%s\"), stop it "
		              "with kill_shell(handle=\"%s\")\n",
		              timeout, r.handle, r.handle, r.handle);
	} else if (r.timed_out) {
		lh_buf_printf(out,
		              "timed out after %lds; the command was "
		              "killed\n",
		              timeout);
	} else {
		lh_buf_printf(out, "exit %d\n", r.exit_code);
	}
	size_t at = out->len;
	bool cut = cap_output(h, r.output ? r.output : "", r.output_len, out);
	emit_exec(h, cmd, r.finished, r.exit_code, r.duration_s, r.timed_out,
	          out->d + at, out->len - at, cut, r.handle[0] != '\0');
	locus_exec_result_clear(&r);
	return !r.timed_out || r.handle[0];
}

static bool t_bash_output(locus_harness *h, const cJSON *a, lh_buf *out,
                          lh_change **plan, size_t *np)
{
	(void)plan;
	(void)np;
	const char *handle;
	if (!arg_str(a, "handle", NULL, &handle, out))
		return false;
	bg_ent *e = bg_find(h, handle);
	long since;
	if (!arg_int(a, "since", e ? (long)e->since : 0, 0, 1L << 50, &since,
	             out))
		return false;
	char *data;
	size_t len;
	locus_bg_status st;
	locus_error err = {0};
	if (h->b->bg_output(h->b, handle, (size_t)since, &data, &len, &st,
	                    &err)) {
		err_text(out, &err, NULL);
		return false;
	}
	if (st.running)
		lh_buf_printf(out, "%s: running\n", handle);
	else
		lh_buf_printf(out, "%s: exited %d\n", handle, st.exit_code);
	cap_output(h, data ? data : "", len, out);
	if (len && data[len - 1] != '\n')
		lh_buf_add(out, "\n", 1);
	lh_buf_printf(out, "[next since=%zu]", st.next);
	bg_note(h, handle, st.next);
	free(data);
	return true;
}

static bool t_write_stdin(locus_harness *h, const cJSON *a, lh_buf *out,
                          lh_change **plan, size_t *np)
{
	(void)plan;
	(void)np;
	const char *handle, *text;
	bool cl;
	if (!arg_str(a, "handle", NULL, &handle, out) ||
	    !arg_str(a, "text", "", &text, out) ||
	    !arg_bool(a, "close", false, &cl, out))
		return false;
	locus_error err = {0};
	if (h->b->bg_write(h->b, handle, text, strlen(text), cl, &err)) {
		err_text(out, &err, NULL);
		return false;
	}
	lh_buf_printf(out, "wrote %zu bytes to %s%s", strlen(text), handle,
	              cl ? "; stdin closed" : "");
	return true;
}

static bool t_kill_shell(locus_harness *h, const cJSON *a, lh_buf *out,
                         lh_change **plan, size_t *np)
{
	(void)plan;
	(void)np;
	const char *handle;
	if (!arg_str(a, "handle", NULL, &handle, out))
		return false;
	locus_bg_status st;
	locus_error err = {0};
	if (h->b->bg_kill(h->b, handle, &st, &err)) {
		err_text(out, &err, NULL);
		return false;
	}
	lh_buf_printf(out, "%s killed (exit %d)", handle, st.exit_code);
	return true;
}

/* ---------------- todos ---------------- */

static void render_todos(const cJSON *todos, lh_buf *out)
{
	const cJSON *t;
	if (!cJSON_GetArraySize(todos)) {
		lh_buf_puts(out, "(no todos)");
		return;
	}
	cJSON_ArrayForEach(t, todos)
	{
		const char *st = cJSON_GetObjectItem(t, "status")->valuestring;
		const cJSON *id = cJSON_GetObjectItem(t, "id");
		lh_buf_printf(out, "[%s] %s%s%s\n",
		              !strcmp(st, "completed")     ? "x"
		              : !strcmp(st, "in_progress") ? "~"
		                                           : " ",
		              cJSON_IsString(id) ? id->valuestring : "",
		              cJSON_IsString(id) ? ": " : "",
		              cJSON_GetObjectItem(t, "content")->valuestring);
	}
}

static bool t_todo_write(locus_harness *h, const cJSON *a, lh_buf *out,
                         lh_change **plan, size_t *np)
{
	(void)plan;
	(void)np;
	const cJSON *todos = cJSON_GetObjectItemCaseSensitive(a, "todos");
	if (!cJSON_IsArray(todos)) {
		lh_buf_puts(out, "argument 'todos' must be a list of {content, "
		                 "status, id}");
		return false;
	}
	cJSON *copy = cJSON_CreateArray();
	if (!copy) {
		lh_buf_puts(out, "out of memory");
		return false;
	}
	const cJSON *t;
	int k = 0;
	cJSON_ArrayForEach(t, todos)
	{
		k++;
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(t, "content");
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(t, "status");
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(t, "id");
		const char *sv = cJSON_IsString(s) ? s->valuestring : "pending";
		if (!cJSON_IsString(c) || (s && !cJSON_IsString(s)) ||
		    (strcmp(sv, "pending") && strcmp(sv, "in_progress") &&
		     strcmp(sv, "completed")) ||
		    (id && !cJSON_IsString(id) && !cJSON_IsNumber(id))) {
			lh_buf_printf(out,
			              "todo %d: needs content (text), status "
			              "(pending, in_progress or completed) and "
			              "an optional id",
			              k);
			cJSON_Delete(copy);
			return false;
		}
		cJSON *o = cJSON_CreateObject();
		char idb[32];
		if (cJSON_IsNumber(id))
			snprintf(idb, sizeof idb, "%g", id->valuedouble);
		else
			snprintf(idb, sizeof idb, "%d", k);
		if (!o ||
		    !cJSON_AddStringToObject(o, "content", c->valuestring) ||
		    !cJSON_AddStringToObject(o, "status", sv) ||
		    !cJSON_AddStringToObject(
		        o, "id", cJSON_IsString(id) ? id->valuestring : idb)) {
			cJSON_Delete(o);
			cJSON_Delete(copy);
			lh_buf_puts(out, "out of memory");
			return false;
		}
		cJSON_AddItemToArray(copy, o);
	}
	cJSON_Delete(h->todos);
	h->todos = copy;
	render_todos(h->todos, out);
	return true;
}

static bool t_todo_read(locus_harness *h, const cJSON *a, lh_buf *out,
                        lh_change **plan, size_t *np)
{
	(void)a;
	(void)plan;
	(void)np;
	render_todos(h->todos, out);
	return true;
}

/* ---------------- the table ---------------- */

#define S_PATH "\"path\":{\"type\":\"string\"}"
static const tooldef TOOLS[] = {
    {"read",
     "Read a text file: numbered lines (1-based), offset/limit in lines.",
     "{\"type\":\"object\",\"properties\":{" S_PATH
     ",\"offset\":{\"type\":\"integer\",\"default\":0},\"limit\":{"
     "\"type\":\"integer\",\"default\":2000}},\"required\":[\"path\"]}",
     t_read, false, false},
    {"ls",
     "List a folder as a tree (hidden entries and build folders "
     "left out).",
     "{\"type\":\"object\",\"properties\":{" S_PATH
     ",\"depth\":{\"type\":\"integer\",\"default\":2}}}",
     t_ls, false, false},
    {"glob", "Find files by pattern (** for any depth), newest first.",
     "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":"
     "\"string\"}," S_PATH "},\"required\":[\"pattern\"]}",
     t_glob, false, false},
    {"grep", "Search file contents with a PCRE2 regular expression.",
     "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":"
     "\"string\"}," S_PATH ",\"glob\":{\"type\":\"string\"},"
     "\"case_insensitive\":{\"type\":\"boolean\"},\"context\":{\"type\":"
     "\"integer\"},\"output_mode\":{\"enum\":[\"content\",\"files\","
     "\"count\"]},\"limit\":{\"type\":\"integer\"}},\"required\":["
     "\"pattern\"]}",
     t_grep, false, false},
    {"edit",
     "Replace text in a file you have read; old must occur once "
     "unless replace_all.",
     "{\"type\":\"object\",\"properties\":{" S_PATH
     ",\"old\":{\"type\":\"string\"},\"new\":{\"type\":\"string\"},"
     "\"replace_all\":{\"type\":\"boolean\",\"default\":false}},"
     "\"required\":[\"path\",\"old\",\"new\"]}",
     t_edit, true, false},
    {"multi_edit", "Several edits to one file, all or nothing.",
     "{\"type\":\"object\",\"properties\":{" S_PATH
     ",\"edits\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
     "\"properties\":{\"old\":{\"type\":\"string\"},\"new\":{\"type\":"
     "\"string\"},\"replace_all\":{\"type\":\"boolean\"}},\"required\":["
     "\"old\",\"new\"]}}},\"required\":[\"path\",\"edits\"]}",
     t_multi_edit, true, false},
    {"write",
     "Create or replace a file (an existing one must have been "
     "read).",
     "{\"type\":\"object\",\"properties\":{" S_PATH
     ",\"content\":{\"type\":\"string\"}},\"required\":[\"path\","
     "\"content\"]}",
     t_write, true, false},
    {"apply_patch",
     "Apply a patch in the *** Begin Patch format, all or "
     "nothing.",
     "{\"type\":\"object\",\"properties\":{\"patch\":{\"type\":"
     "\"string\"}},\"required\":[\"patch\"]}",
     t_apply_patch, true, false},
    {"notebook_edit", "Replace, insert or delete a Jupyter notebook cell.",
     "{\"type\":\"object\",\"properties\":{" S_PATH
     ",\"cell\":{\"type\":[\"integer\",\"string\"]},\"source\":{\"type\":"
     "\"string\"},\"mode\":{\"enum\":[\"replace\",\"insert\",\"delete\"]},"
     "\"cell_type\":{\"enum\":[\"code\",\"markdown\",\"raw\"]}},"
     "\"required\":[\"path\",\"cell\"]}",
     t_notebook_edit, true, false},
    {"bash", "Run a shell command in the workspace.",
     "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":"
     "\"string\"},\"timeout\":{\"type\":\"integer\",\"default\":120},"
     "\"background\":{\"type\":\"boolean\",\"default\":false},"
     "\"on_timeout\":{\"enum\":[\"background\",\"kill\"]}},\"required\":["
     "\"command\"]}",
     t_bash, false, true},
    {"bash_output", "New output of a background command.",
     "{\"type\":\"object\",\"properties\":{\"handle\":{\"type\":"
     "\"string\"},\"since\":{\"type\":\"integer\"}},\"required\":["
     "\"handle\"]}",
     t_bash_output, false, true},
    {"kill_shell", "Stop a background command (its whole process group).",
     "{\"type\":\"object\",\"properties\":{\"handle\":{\"type\":"
     "\"string\"}},\"required\":[\"handle\"]}",
     t_kill_shell, false, true},
    {"write_stdin", "Send text to a background command's stdin.",
     "{\"type\":\"object\",\"properties\":{\"handle\":{\"type\":"
     "\"string\"},\"text\":{\"type\":\"string\"},\"close\":{\"type\":"
     "\"boolean\",\"default\":false}},\"required\":[\"handle\"]}",
     t_write_stdin, false, true},
    {"todo_write", "Replace the session's todo list.",
     "{\"type\":\"object\",\"properties\":{\"todos\":{\"type\":\"array\","
     "\"items\":{\"type\":\"object\",\"properties\":{\"content\":{"
     "\"type\":\"string\"},\"status\":{\"enum\":[\"pending\","
     "\"in_progress\",\"completed\"]},\"id\":{\"type\":\"string\"}},"
     "\"required\":[\"content\",\"status\"]}}},\"required\":[\"todos\"]}",
     t_todo_write, false, false},
    {"todo_read", "The session's todo list.",
     "{\"type\":\"object\",\"properties\":{}}", t_todo_read, false, false},
};
#define NTOOLS (sizeof TOOLS / sizeof *TOOLS)

static const tooldef *tool_by_name(const char *name)
{
	for (size_t i = 0; i < NTOOLS; i++)
		if (!strcmp(TOOLS[i].name, name))
			return &TOOLS[i];
	return NULL;
}

static const tooldef *built(const locus_harness *h, const char *name)
{
	for (size_t i = 0; i < h->ntools; i++)
		if (!strcmp(h->tools[i]->name, name))
			return h->tools[i];
	return NULL;
}

/* ---------------- the harness ---------------- */

int locus_harness_new(locus_harness **out, locus_backend *b,
                      const char *const *tools, locus_wrap_fn wrap,
                      void *wrap_payload, const locus_harness_config *cfg,
                      locus_error *err)
{
	if (!out)
		return lh_err(err, LOCUS_EUSAGE, "out is required");
	*out = NULL;
	if (!b || b->version != LOCUS_BACKEND_VERSION || !b->free)
		return lh_err(err, LOCUS_EUSAGE,
		              "the backend is missing or of another version");
	if (cfg && cfg->version != LOCUS_HARNESS_CONFIG_VERSION)
		return lh_err(err, LOCUS_EINVALID,
		              "harness config: unknown version %u (start from "
		              "LOCUS_HARNESS_CONFIG_INIT)",
		              cfg->version);
	locus_harness *h = calloc(1, sizeof *h);
	if (!h)
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	locus_harness_config def = LOCUS_HARNESS_CONFIG_INIT;
	h->cfg = cfg ? *cfg : def;
	if (h->cfg.bash_max_timeout < 1)
		h->cfg.bash_max_timeout = 600;
	if (h->cfg.bash_timeout < 1 ||
	    h->cfg.bash_timeout > h->cfg.bash_max_timeout)
		h->cfg.bash_timeout = h->cfg.bash_max_timeout < 120
		                          ? h->cfg.bash_max_timeout
		                          : 120;
	if (!h->cfg.output_chars)
		h->cfg.output_chars = 30000;
	h->b = b;
	h->wrap = wrap;
	h->wrap_payload = wrap_payload;
	h->todos = cJSON_CreateArray();
	if (!h->todos) {
		free(h);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	bool defaults = tools == NULL;
	if (defaults)
		tools = locus_default_tools;
	/* keep the spec's order, whatever the order asked */
	for (size_t i = 0; tools[i]; i++) {
		const tooldef *t = tool_by_name(tools[i]);
		if (!t) {
			locus_harness_free(h);
			return lh_err(err, LOCUS_ENOTFOUND,
			              "no harness tool named '%s'", tools[i]);
		}
		if (t->shell && !b->can_exec) {
			if (defaults)
				continue;
			locus_harness_free(h);
			return lh_err(err, LOCUS_EINVALID,
			              "the %s backend has no shell for %s",
			              b->label, t->name);
		}
	}
	for (size_t k = 0; k < NTOOLS; k++)
		for (size_t i = 0; tools[i]; i++)
			if (!strcmp(tools[i], TOOLS[k].name) &&
			    (!TOOLS[k].shell || b->can_exec)) {
				h->tools[h->ntools++] = &TOOLS[k];
				break;
			}
	bool shell = false;
	for (size_t i = 0; i < h->ntools; i++)
		shell |= h->tools[i]->shell;
	if (!wrap && shell && !b->isolated && h->cfg.on_warning)
		h->cfg.on_warning(
		    "ungated shell tools: commands run on the host "
		    "with no gate deciding them",
		    h->cfg.payload);
	*out = h;
	return 0;
}

void locus_harness_free(locus_harness *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nled; i++)
		free(h->led[i].key);
	free(h->led);
	free(h->bgs);
	cJSON_Delete(h->todos);
	free(h);
}

bool locus_harness_gated(const locus_harness *h)
{
	return h && h->wrap;
}

size_t locus_harness_tool_count(const locus_harness *h)
{
	return h ? h->ntools : 0;
}

const char *locus_harness_tool_name(const locus_harness *h, size_t i)
{
	return h && i < h->ntools ? h->tools[i]->name : NULL;
}

const char *locus_harness_tool_description(const locus_harness *h,
                                           const char *name)
{
	const tooldef *t = h ? built(h, name) : NULL;
	return t ? t->description : NULL;
}

const char *locus_harness_tool_schema(const locus_harness *h, const char *name)
{
	const tooldef *t = h ? built(h, name) : NULL;
	return t ? t->schema : NULL;
}

/* Write one planned change: compare-and-swap against what the plan was
 * made from (the bytes read, or "absent"), when the backend can. */
static int commit_write(locus_harness *h, const lh_change *c, locus_error *err)
{
	if (!h->b->write_cas)
		return h->b->write(h->b, c->path, c->data, c->len, err);
	char sha[65];
	if (c->had)
		lh_sha256_hex(c->old, c->olen, sha);
	return h->b->write_cas(h->b, c->path, c->data, c->len,
	                       c->had ? sha : NULL, err);
}

/* The text of a commit that failed at path. */
static void commit_refusal(lh_buf *out, const locus_error *err,
                           const char *path)
{
	if (err->code == LOCUS_ECONFLICT)
		lh_buf_printf(out,
		              "%s changed on disk since it was read — read it "
		              "again before changing it. Nothing was written.",
		              path);
	else
		lh_buf_printf(out, "%s: %s. Nothing was written.", path,
		              err->message);
}

/* Commit a plan.  With the backend's write_many, as one batch (all or
 * nothing).  Else one file after another, writes first and removals last,
 * and on a failure part way what was changed is put back (the backend's
 * write keeps the replaced file's mode and owner; a removed file comes
 * back with default metadata). */
static bool commit(locus_harness *h, lh_change *c, size_t n, lh_buf *out)
{
	locus_error err = {0};
	size_t i = 0;
	bool batch = h->b->write_many && n > 1;
	/* one after another: writes in plan order, then removals (stable
	 * sort by `del`), so a failure can put the removed files back */
	for (size_t a = 0, w = 0; !batch && a < n; a++)
		if (!c[a].del) {
			lh_change t = c[a];
			memmove(&c[w + 1], &c[w], (a - w) * sizeof *c);
			c[w++] = t;
		}
	if (batch) {
		/* one batch: all or nothing, the originals put back on a
		 * failure part way (mode and owner included) */
		locus_write_op *ops = calloc(n, sizeof *ops);
		char (*sha)[65] = calloc(n, sizeof *sha);
		int rc = ops && sha ? 0 : LOCUS_ENOMEM;
		for (size_t k = 0; !rc && k < n; k++) {
			if (c[k].had)
				lh_sha256_hex(c[k].old, c[k].olen, sha[k]);
			ops[k] = (locus_write_op){c[k].path, c[k].data, c[k].len,
			                          c[k].del,
			                          c[k].had ? sha[k] : NULL};
		}
		size_t failed = 0;
		if (rc)
			lh_err(&err, rc, "out of memory");
		else
			rc = h->b->write_many(h->b, ops, n, &failed, &err);
		free(ops);
		free(sha);
		if (rc) {
			commit_refusal(out, &err, c[failed < n ? failed : 0].path);
			return false;
		}
		i = n;
	}
	for (; i < n; i++) {
		int rc = c[i].del ? h->b->remove(h->b, c[i].path, &err)
		                  : commit_write(h, &c[i], &err);
		if (rc)
			break;
	}
	if (i < n) {
		commit_refusal(out, &err, c[i].path);
		while (i-- > 0) {
			locus_error e2;
			if (c[i].had)
				h->b->write(h->b, c[i].path, c[i].old,
				            c[i].olen, &e2);
			else
				h->b->remove(h->b, c[i].path, &e2);
		}
		return false;
	}
	for (i = 0; i < n; i++) {
		if (c[i].del) {
			ledger_forget(h, c[i].path);
			lh_buf_printf(out, "Deleted %s\n", c[i].path);
		} else {
			ledger_note(h, c[i].path, c[i].data, c[i].len);
			lh_buf_printf(out, "%s %s (%zu bytes)\n",
			              c[i].had ? "Updated" : "Created",
			              c[i].path, c[i].len);
		}
		if (h->cfg.on_change)
			h->cfg.on_change(c[i].path, h->cfg.payload);
	}
	return true;
}

/* Does the JSON text hold an escaped NUL (\u0000)?  cJSON would cut the
 * string there, so the gate and the body could see different values:
 * such arguments are refused outright. */
static bool has_nul_escape(const char *s)
{
	for (; *s; s++) {
		if (*s != '\\')
			continue;
		if (s[1] == 'u' && s[2] == '0' && s[3] == '0' && s[4] == '0' &&
		    s[5] == '0')
			return true;
		if (s[1])
			s++; /* skip the escaped character */
	}
	return false;
}

static int run_tool(locus_harness *h, const char *tool, const char *args,
                    size_t args_len, bool preview, char **out, bool *is_error,
                    locus_error *err);

/*
 * The public entry: `args_len` bytes of arguments, not NUL-terminated.  A
 * raw NUL byte among them is refused like an escaped one (the gate and the
 * body must see one text); the rest runs on a NUL-terminated copy.
 */
static int run_call(locus_harness *h, const char *tool, const char *args,
                    size_t args_len, bool preview, char **out, bool *is_error,
                    locus_error *err)
{
	if (!out)
		return lh_err(err, LOCUS_EUSAGE, "out is required");
	*out = NULL;
	if (is_error)
		*is_error = true;
	if (!h || !tool)
		return lh_err(err, LOCUS_EUSAGE, "a harness and a tool name");
	if (!args)
		args_len = 0;
	char *z = malloc(args_len + 1);
	if (!z)
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	if (args_len)
		memcpy(z, args, args_len);
	z[args_len] = '\0';
	int rc = run_tool(h, tool, z, args_len, preview, out, is_error, err);
	free(z);
	return rc;
}

static int run_tool(locus_harness *h, const char *tool, const char *args,
                    size_t args_len, bool preview, char **out, bool *is_error,
                    locus_error *err)
{
	const tooldef *t = built(h, tool);
	if (!t)
		return lh_err(err, LOCUS_ENOTFOUND,
		              "no tool named '%s' in this "
		              "harness",
		              tool);
	lh_buf o = {0};
	bool ok = false;
	cJSON *a = NULL;
	if (strlen(args) != args_len || has_nul_escape(args)) {
		lh_buf_puts(&o, "the arguments may not contain NUL characters");
		goto done;
	}
	a = cJSON_Parse(*args ? args : "{}");
	if (!cJSON_IsObject(a)) {
		lh_buf_puts(&o, "the arguments must be a JSON object");
		goto done;
	}
	if (!preview && h->wrap && !locus_call_cancelled(h->ctl)) {
		/* the single gate: nothing runs unless it allows */
		char *why = NULL;
		if (!lh_wrap_allows(h->wrap, h->wrap_payload, tool,
		                    *args ? args : "{}", *args ? args_len : 2,
		                    &why)) {
			/* the wrap's text is what the model gets: the
			   policy wrap gives the refusal JSON */
			lh_buf_puts(&o, why ? why : "refused: the gate did "
			                            "not allow this call");
			free(why);
			goto done;
		}
	}
	if (locus_call_cancelled(h->ctl)) {
		lh_buf_puts(&o, "cancelled before it started: nothing ran");
		goto done;
	}
	lh_change *plan = NULL;
	size_t np = 0;
	if (preview && !t->changes_files) {
		cJSON_Delete(a);
		return 0; /* *out NULL: not a file tool */
	}
	ok = t->fn(h, a, &o, &plan, &np);
	if (ok && t->changes_files && locus_call_cancelled(h->ctl)) {
		/* cancelled while planning: the change is never made */
		ok = false;
		lh_buf_puts(&o, "cancelled: no file was changed");
	} else if (ok && t->changes_files) {
		if (preview) {
			for (size_t i = 0; i < np; i++) {
				char *d = lh_unified_diff(
				    plan[i].path,
				    plan[i].had ? plan[i].old : NULL,
				    plan[i].olen,
				    plan[i].del ? NULL : plan[i].data,
				    plan[i].len);
				if (d)
					lh_buf_puts(&o, d);
				free(d);
			}
		} else {
			ok = commit(h, plan, np, &o);
		}
	}
	lh_changes_free(plan, np);
done:
	cJSON_Delete(a);
	if (is_error)
		*is_error = !ok;
	*out = lh_buf_take(&o);
	if (!*out)
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	return 0;
}

int locus_harness_call(char **out, bool *is_error, locus_harness *h,
                       const char *tool, const char *args_json,
                       size_t args_len, locus_error *err)
{
	return run_call(h, tool, args_json, args_len, false, out, is_error,
	                err);
}

void locus_call_cancel(locus_call_ctl *ctl)
{
	if (ctl)
		__atomic_store_n(&ctl->cancelled, 1, __ATOMIC_SEQ_CST);
}

bool locus_call_cancelled(const locus_call_ctl *ctl)
{
	return ctl && __atomic_load_n(&ctl->cancelled, __ATOMIC_SEQ_CST);
}

int locus_harness_call_ctl(char **out, bool *is_error, locus_harness *h,
                           const char *tool, const char *args_json,
                           size_t args_len, locus_call_ctl *ctl,
                           locus_error *err)
{
	if (ctl && ctl->version != LOCUS_CALL_CTL_VERSION) {
		if (out)
			*out = NULL;
		return lh_err(err, LOCUS_EINVALID,
		              "call control: unknown version %u", ctl->version);
	}
	if (!h)
		return run_call(h, tool, args_json, args_len, false, out,
		                is_error, err);
	h->ctl = ctl;
	int rc = run_call(h, tool, args_json, args_len, false, out, is_error,
	                  err);
	h->ctl = NULL;
	if (!rc && locus_call_cancelled(ctl) && is_error)
		*is_error = true;
	return rc;
}

int locus_harness_preview(char **out, locus_harness *h, const char *tool,
                          const char *args_json, size_t args_len,
                          locus_error *err)
{
	bool e;
	return run_call(h, tool, args_json, args_len, true, out, &e, err);
}

/* What bash does at its timeout: only what the gate really allows. */
static void bash_fragment(const locus_harness *h, lh_buf *o)
{
	int bg = h->wrap ? lh_wrap_background(h->wrap, h->wrap_payload) : 1;
	lh_buf_printf(o, "bash waits %ds by default (at most %ds). ",
	              h->cfg.bash_timeout, h->cfg.bash_max_timeout);
	if (bg == 1)
		lh_buf_puts(o, "Run servers and watchers with background=true "
		               "and read them with bash_output.\n");
	else if (bg == 0)
		lh_buf_puts(o, "This policy does not allow background "
		               "commands (exec:background): background=true "
		               "is refused and a command still running at its "
		               "timeout is killed, so do not start servers or "
		               "watchers.\n");
	else
		lh_buf_puts(o, "A background command (background=true, or "
		               "one still running at its timeout) needs the "
		               "policy's approval (exec:background); without "
		               "it the command is refused or killed at its "
		               "timeout.\n");
}

int locus_harness_prompt_fragment(char **out, const locus_harness *h)
{
	if (!out)
		return LOCUS_EUSAGE;
	*out = NULL;
	if (!h)
		return LOCUS_EUSAGE;
	lh_buf o = {0};
	lh_buf_printf(&o,
	              "## Workspace\nThe workspace is %s, rooted at %s. "
	              "Paths are relative to that root.\n",
	              h->b->label, h->b->root);
	if (h->b->can_exec && !h->b->isolated)
		lh_buf_puts(&o,
		            "Commands run directly on the host machine, not "
		            "in a sandbox: anything a command does is "
		            "real.\n");
	bool edit = built(h, "edit") || built(h, "write") ||
	            built(h, "multi_edit") || built(h, "apply_patch") ||
	            built(h, "notebook_edit");
	if (h->cfg.require_read && edit)
		lh_buf_puts(&o,
		            "Read a file before you change it. A change to a "
		            "file you have not read, or that changed since "
		            "you read it, is refused.\n");
	if (built(h, "bash"))
		bash_fragment(h, &o);
	if (built(h, "apply_patch"))
		lh_buf_puts(&o, "Change files with apply_patch.\n");
	*out = lh_buf_take(&o);
	return *out ? 0 : LOCUS_ENOMEM;
}

int locus_harness_todos_json(char **out, const locus_harness *h)
{
	if (!out)
		return LOCUS_EUSAGE;
	*out = NULL;
	if (!h)
		return LOCUS_EUSAGE;
	/* cJSON's buffer is copied: what we hand out is locus_free's */
	char *s = cJSON_PrintUnformatted(h->todos);
	if (!s)
		return LOCUS_ENOMEM;
	*out = strdup(s);
	cJSON_free(s);
	return *out ? 0 : LOCUS_ENOMEM;
}

int locus_harness_spec(struct locus_action **out, const locus_harness *h,
                       const char *tool, const char *args_json,
                       size_t args_len, locus_error *err)
{
	if (!out)
		return lh_err(err, LOCUS_EUSAGE, "out is required");
	*out = NULL;
	if (!h || !tool || !built(h, tool))
		return lh_err(err, LOCUS_ENOTFOUND,
		              "no tool named '%s' in this harness",
		              tool ? tool : "(null)");
	bool empty = !args_json || args_len == 0;
	/* outside-workspace is judged against the backend's root */
	locus_action_options ao = LOCUS_ACTION_OPTIONS_INIT;
	if (h->b->root && h->b->root[0] == '/')
		ao.workspace_root = h->b->root;
	int rc = locus_action_derive_with(out, NULL, tool,
	                                  empty ? "{}" : args_json,
	                                  empty ? 2 : args_len, &ao, err);
	if (!rc && h->cfg.environment &&
	    locus_action_set_environment(*out, h->cfg.environment)) {
		locus_action_free(*out);
		*out = NULL;
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	return rc;
}
