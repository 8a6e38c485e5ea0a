/*
 * harness/tool_files.c - the file tools: read, write, edit, multi_edit,
 * apply_patch (planned by harness/patch.c) and notebook_edit (spliced by
 * harness/notebook.c).
 */
#define _GNU_SOURCE
#include "internal.h"
#include "tools.h"
#include "locus/labels.h"
#include "../util/regex.h"
#include "../util/tools.h"
#include "../util/array.h"
#include "../util/json.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- read ---------------- */

size_t lh_utf8_chars(const char *s, size_t n)
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

/* Binary, for read: more than one byte in a hundred of the first 8,000
 * is NUL (one NUL in a text file is shown, as LH_NUL_SHOWN). */
static bool looks_binary(const char *d, size_t len)
{
	size_t n = len < 8000 ? len : 8000, z = 0;
	for (size_t i = 0; i < n; i++)
		z += d[i] == '\0';
	return z > 0 && z * 100 > n;
}

bool lh_t_read(locus_harness *h, const cJSON *a, lu_buf *out)
{
	const char *path;
	long offset, limit;
	if (!lh_arg_str(a, "path", NULL, &path, out) ||
	    !lh_arg_int(a, "offset", 0, 0, 1L << 40, &offset, out) ||
	    !lh_arg_int(a, "limit", 2000, 1, 1L << 40, &limit, out))
		return false;
	locus_stat st;
	locus_error err = {0};
	if (h->b->stat(h->b, path, &st, &err)) {
		lh_err_text(out, &err, NULL);
		return false;
	}
	if (!st.exists) {
		lu_buf_printf(out, "%s does not exist", path);
		return false;
	}
	if (st.is_dir) {
		lu_buf_printf(out, "%s is a folder: use ls to see it", path);
		return false;
	}
	char *data;
	size_t len;
	if (h->b->read(h->b, path, &data, &len, &err)) {
		lh_err_text(out, &err, NULL);
		return false;
	}
	if (!is_image(path) && looks_binary(data, len)) {
		/* never noted in the ledger: what the model did not see it
		   may not edit */
		lu_buf_printf(out,
		              "%s is binary (%zu bytes, NUL bytes in it): not "
		              "shown. Look at it with bash (od -c, xxd) if you "
		              "need to; it cannot be edited without a read.",
		              path, len);
		free(data);
		return true;
	}
	lh_ledger_note(h, path, data, len);
	if (is_image(path)) {
		if (!h->cfg.vision)
			lu_buf_printf(out,
			              "%s is an image (%zu bytes); images "
			              "are not shown in this session.",
			              path, len);
		else if (len > MAX_IMAGE_BYTES)
			lu_buf_printf(out,
			              "%s is an image of %zu bytes, over "
			              "the %d byte limit.",
			              path, len, MAX_IMAGE_BYTES);
		else
			lu_buf_printf(out, "[image %s, %zu bytes]", path, len);
		free(data);
		return true;
	}
	if (len == 0) {
		lu_buf_printf(out, "(%s is empty)", path);
		free(data);
		return true;
	}
	size_t lineno = 0, shown = 0, pos = 0, nuls = 0;
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
			size_t chars = lh_utf8_chars(data + pos, ll);
			size_t keep =
			    chars > MAX_LINE_CHARS
			        ? utf8_prefix(data + pos, ll, MAX_LINE_CHARS)
			        : ll;
			lu_buf_printf(out, "%6zu\t", lineno);
			nuls += lh_buf_add_shown(out, data + pos, keep);
			if (keep < ll)
				lu_buf_printf(out, "… [line is %zu characters]",
				              chars);
			lu_buf_add(out, "\n", 1);
			shown++;
		}
		pos += ll + (nl ? 1 : 0);
	}
	if (stopped) {
		size_t total = lineno;
		for (size_t p = pos; p < len; p++)
			if (data[p] == '\n' && p + 1 < len)
				total++;
		lu_buf_printf(out,
		              "[%zu of %zu lines shown; continue with "
		              "offset=%zu]\n",
		              shown, total, lineno - 1);
	} else if (shown == 0) {
		lu_buf_printf(out,
		              "(offset %ld is past the end: %s has %zu "
		              "lines)",
		              offset, path, lineno);
	}
	if (nuls)
		lu_buf_printf(out,
		              "[%zu NUL byte%s in the lines shown, each shown "
		              "as " LH_NUL_SHOWN "]\n",
		              nuls, nuls == 1 ? "" : "s");
	free(data);
	return true;
}

/* ---------------- write / edit / multi_edit ---------------- */

bool lh_t_write(locus_harness *h, const cJSON *a, lu_buf *out, lh_change **plan,
                size_t *np)
{
	const char *path, *content;
	if (!lh_arg_str(a, "path", NULL, &path, out) ||
	    !lh_arg_str(a, "content", NULL, &content, out))
		return false;
	locus_stat st;
	locus_error err = {0};
	if (h->b->stat(h->b, path, &st, &err)) {
		lh_err_text(out, &err, ". Nothing was written.");
		return false;
	}
	if (st.exists && st.is_dir) {
		lu_buf_printf(out, "%s is a folder. Nothing was written.",
		              path);
		return false;
	}
	char *old = NULL;
	size_t olen = 0;
	if (st.exists && !lh_load_for_change(h, path, &old, &olen, out))
		return false;
	return lh_plan_write(plan, np, path, st.exists, old, olen, content,
	                     strlen(content), out);
}

/* Apply one edit to buf; false with a message (prefixed) on refusal. */
static bool apply_edit(lu_buf *buf, const char *path, const char *old,
                       const char *new_, bool all, const char *prefix,
                       lu_buf *out)
{
	size_t ol = strlen(old), nl = strlen(new_);
	if (!ol) {
		lu_buf_printf(out,
		              "%sold must not be empty. Nothing was "
		              "written.",
		              prefix);
		return false;
	}
	if (!strcmp(old, new_)) {
		lu_buf_printf(out,
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
		lu_buf_printf(out,
		              "%sold text not found in %s. Nothing was "
		              "written.",
		              prefix, path);
		return false;
	}
	if (count > 1 && !all) {
		lu_buf_printf(out,
		              "%sold text occurs %zu times in %s: add context "
		              "to make it unique, or set replace_all. Nothing "
		              "was written.",
		              prefix, count, path);
		return false;
	}
	lu_buf res = {0};
	const char *p = d, *q;
	while ((q = memmem(p, buf->len - (size_t)(p - d), old, ol))) {
		lu_buf_add(&res, p, (size_t)(q - p));
		lu_buf_add(&res, new_, nl);
		p = q + ol;
		if (!all)
			break;
	}
	lu_buf_add(&res, p, buf->len - (size_t)(p - d));
	if (res.oom) {
		lu_buf_free(&res);
		lu_buf_puts(out, "out of memory. Nothing was written.");
		return false;
	}
	lu_buf_free(buf);
	*buf = res;
	return true;
}

static bool edits_common(locus_harness *h, const char *path, const cJSON *edits,
                         bool single, lu_buf *out, lh_change **plan, size_t *np)
{
	char *data;
	size_t len;
	if (!lh_load_for_change(h, path, &data, &len, out))
		return false;
	lu_buf buf = {0};
	lu_buf_add(&buf, data, len);
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
		if (!cJSON_IsObject(e) ||
		    !lh_arg_str(e, "old", NULL, &old, out) ||
		    !lh_arg_str(e, "new", NULL, &new_, out) ||
		    !lh_arg_bool(e, "replace_all", false, &all, out) ||
		    !apply_edit(&buf, path, old, new_, all, prefix, out)) {
			if (!cJSON_IsObject(e))
				lu_buf_printf(
				    out, "%san edit must be an object", prefix);
			lu_buf_free(&buf);
			free(data);
			return false;
		}
	}
	bool ok = lh_plan_write(plan, np, path, true, data, len,
	                        buf.d ? buf.d : "", buf.len, out);
	lu_buf_free(&buf);
	return ok;
}

bool lh_t_edit(locus_harness *h, const cJSON *a, lu_buf *out, lh_change **plan,
               size_t *np)
{
	const char *path, *old, *new_;
	bool all;
	if (!lh_arg_str(a, "path", NULL, &path, out) ||
	    !lh_arg_str(a, "old", NULL, &old, out) ||
	    !lh_arg_str(a, "new", NULL, &new_, out) ||
	    !lh_arg_bool(a, "replace_all", false, &all, out))
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
		lu_buf_puts(out, "out of memory. Nothing was written.");
	}
	cJSON_Delete(one);
	cJSON_Delete(arr);
	return ok;
}

bool lh_t_multi_edit(locus_harness *h, const cJSON *a, lu_buf *out,
                     lh_change **plan, size_t *np)
{
	const char *path;
	if (!lh_arg_str(a, "path", NULL, &path, out))
		return false;
	const cJSON *edits = cJSON_GetObjectItemCaseSensitive(a, "edits");
	if (!cJSON_IsArray(edits) || cJSON_GetArraySize(edits) == 0) {
		lu_buf_puts(out,
		            "argument 'edits' must be a non-empty list of "
		            "{old, new, replace_all}. Nothing was written.");
		return false;
	}
	return edits_common(h, path, edits, false, out, plan, np);
}

/* ---------------- apply_patch ---------------- */

bool lh_t_apply_patch(locus_harness *h, const cJSON *a, lu_buf *out,
                      lh_change **plan, size_t *np)
{
	const char *patch;
	if (!lh_arg_str(a, "patch", NULL, &patch, out))
		return false;
	char *msg = NULL;
	int rc = lh_patch_plan(h->b, patch, plan, np, &msg);
	if (rc) {
		lu_buf_puts(out, msg ? msg : "the patch does not apply");
		free(msg);
		return false;
	}
	/* every existing file touched must pass the ledger */
	for (size_t i = 0; i < *np; i++) {
		lh_change *c = &(*plan)[i];
		if (c->had &&
		    !lh_ledger_check(h, c->path, c->old, c->olen, out)) {
			lh_changes_free(*plan, *np);
			*plan = NULL;
			*np = 0;
			return false;
		}
	}
	return true;
}

/* ---------------- notebook_edit ---------------- */

/* notebook_edit's `mode` names, and what each does */
static const struct {
	const char *name;
	lh_notebook_mode mode;
} notebook_modes[] = {
    {"replace", LH_NOTEBOOK_REPLACE},
    {"insert", LH_NOTEBOOK_INSERT},
    {"delete", LH_NOTEBOOK_DELETE},
};

static bool notebook_mode(const char *name, lh_notebook_mode *m)
{
	for (size_t i = 0; i < sizeof notebook_modes / sizeof *notebook_modes;
	     i++)
		if (!strcmp(name, notebook_modes[i].name)) {
			*m = notebook_modes[i].mode;
			return true;
		}
	return false;
}

bool lh_t_notebook_edit(locus_harness *h, const cJSON *a, lu_buf *out,
                        lh_change **plan, size_t *np)
{
	const char *path, *source, *mode, *ctype;
	if (!lh_arg_str(a, "path", NULL, &path, out) ||
	    !lh_arg_str(a, "mode", "replace", &mode, out) ||
	    !lh_arg_str(a, "source", "", &source, out) ||
	    !lh_arg_str(a, "cell_type", "code", &ctype, out))
		return false;
	lh_notebook_mode m = LH_NOTEBOOK_REPLACE;
	bool known = notebook_mode(mode, &m);
	if (!known || (strcmp(ctype, "code") && strcmp(ctype, "markdown") &&
	               strcmp(ctype, "raw"))) {
		lu_buf_puts(out, !known ? "mode must be replace, insert or "
		                          "delete. Nothing was written."
		                        : "cell_type must be code, markdown or "
		                          "raw. Nothing was written.");
		return false;
	}
	char *data;
	size_t len;
	if (!lh_load_for_change(h, path, &data, &len, out))
		return false;
	/* strictly: with a key twice (two "cells") we would edit the first
	   list and Jupyter read the last */
	cJSON *nb = NULL;
	lu_json_opts jo = LU_JSON_OPTS_INIT;
	jo.escaped_nul = true; /* a string may hold one; the splice keeps it */
	lu_json_fail jf;
	lu_json_problem jp = lu_json_read(&nb, data, len, &jo, &jf);
	if (jp == LU_JSON_DUPLICATE || jp == LU_JSON_UTF8) {
		if (jp == LU_JSON_DUPLICATE)
			lu_buf_printf(out,
			              "%s has the key '%.100s' twice in one "
			              "object (byte %zu): readers disagree on "
			              "which one counts, so it is not edited. "
			              "Nothing was written.",
			              path, jf.key, jf.offset);
		else
			lu_buf_printf(
			    out,
			    "%s is not valid UTF-8 (byte %zu), so it "
			    "is not a notebook Jupyter reads. Nothing "
			    "was written.",
			    path, jf.offset);
		free(data);
		return false;
	}
	cJSON *cells =
	    nb ? cJSON_GetObjectItemCaseSensitive(nb, "cells") : NULL;
	if (!cJSON_IsArray(cells)) {
		lu_buf_printf(out,
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
	long hi = m == LH_NOTEBOOK_INSERT ? ncells : ncells - 1;
	if (idx < 0 || idx > hi) {
		lu_buf_printf(out,
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
	int rc =
	    lh_notebook_splice(data, len, idx, m, source, ctype, &text, &tl);
	if (rc) {
		free(data);
		lu_buf_puts(out, rc == LOCUS_ENOMEM
		                     ? "out of memory. Nothing was written."
		                     : "the notebook's cells could not be "
		                       "edited in place. Nothing was written.");
		return false;
	}
	bool ok = lh_plan_write(plan, np, path, true, data, len, text, tl, out);
	free(text);
	return ok;
}
