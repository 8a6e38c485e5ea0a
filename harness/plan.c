/*
 * harness/plan.c - tool arguments, planned file changes and their commit:
 * a plan is made in memory (lh_change), then committed as one batch
 * (write_many) or one change after another, with the read ledger updated.
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

/* ---------------- arguments ---------------- */

lu_json_problem lh_args_read(cJSON **out, const char *args, size_t len,
                             lu_buf *why)
{
	lu_json_opts o = LU_JSON_OPTS_INIT;
	o.object = true;
	lu_json_fail f;
	if (!args || !len) {
		args = "{}";
		len = 2;
	}
	lu_json_problem p = lu_json_read(out, args, len, &o, &f);
	if (!why)
		return p;
	switch (p) {
	case LU_JSON_OK:
	case LU_JSON_NOMEM: break;
	case LU_JSON_NUL:
	case LU_JSON_ESCAPED_NUL:
		lu_buf_puts(why,
		            "the arguments may not contain NUL characters");
		break;
	case LU_JSON_SYNTAX:
	case LU_JSON_NOT_OBJECT:
		lu_buf_puts(why, "the arguments must be a JSON object");
		break;
	case LU_JSON_DUPLICATE:
		lu_buf_printf(why,
		              "the arguments repeat the key '%s' (byte %zu)",
		              f.key, f.offset);
		break;
	default:
		lu_buf_printf(
		    why, "the arguments are not strict JSON: %s (byte %zu)",
		    lu_json_problem_text(p), f.offset);
		break;
	}
	return p;
}

/* Fetch an optional argument of a type; false (with a message in out) on
 * a wrong type. */
bool lh_arg_str(const cJSON *a, const char *k, const char *def, const char **v,
                lu_buf *out)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, k);
	if (!x || cJSON_IsNull(x)) {
		*v = def;
		if (!def)
			lu_buf_printf(out, "missing argument '%s'", k);
		return def != NULL;
	}
	if (!cJSON_IsString(x)) {
		lu_buf_printf(out, "argument '%s' must be a string", k);
		return false;
	}
	*v = x->valuestring;
	return true;
}

bool lh_arg_int(const cJSON *a, const char *k, long def, long lo, long hi,
                long *v, lu_buf *out)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, k);
	if (!x || cJSON_IsNull(x)) {
		*v = def;
		return true;
	}
	if (!cJSON_IsNumber(x) ||
	    x->valuedouble != (double)(long)x->valuedouble ||
	    x->valuedouble < (double)lo || x->valuedouble > (double)hi) {
		lu_buf_printf(out,
		              "argument '%s' must be an integer from %ld "
		              "to %ld",
		              k, lo, hi);
		return false;
	}
	*v = (long)x->valuedouble;
	return true;
}

bool lh_arg_bool(const cJSON *a, const char *k, bool def, bool *v, lu_buf *out)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, k);
	if (!x || cJSON_IsNull(x)) {
		*v = def;
		return true;
	}
	if (!cJSON_IsBool(x)) {
		lu_buf_printf(out, "argument '%s' must be true or false", k);
		return false;
	}
	*v = cJSON_IsTrue(x);
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
bool lh_plan_write(lh_change **plan, size_t *n, const char *path, bool had,
                   char *old, size_t olen, const char *data, size_t len,
                   lu_buf *out)
{
	lh_change *c = plan_add(plan, n);
	if (!c || !(c->path = strdup(path)) || !(c->data = malloc(len + 1))) {
		free(old);
		lu_buf_puts(out, "out of memory. Nothing was written.");
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

void lh_err_text(lu_buf *out, const locus_error *err, const char *tail)
{
	lu_buf_printf(out, "%s%s", err->message[0] ? err->message : "failed",
	              tail ? tail : "");
}

/* Read a file that must exist, and pass the ledger. */
bool lh_load_for_change(locus_harness *h, const char *path, char **data,
                        size_t *len, lu_buf *out)
{
	locus_error err = {0};
	int rc = h->b->read(h->b, path, data, len, &err);
	if (rc) {
		lh_err_text(out, &err, ". Nothing was written.");
		return false;
	}
	if (!lh_ledger_check(h, path, *data, *len, out)) {
		free(*data);
		*data = NULL;
		return false;
	}
	return true;
}

/* Write one planned change: compare-and-swap against what the plan was
 * made from (the bytes read, or "absent"), when the backend can. */
static int commit_write(locus_harness *h, const lh_change *c, locus_error *err)
{
	if (!LH_V2(h->b, write_cas))
		return h->b->write(h->b, c->path, c->data, c->len, err);
	char sha[65];
	if (c->had)
		lu_sha256_hex(c->old, c->olen, sha);
	return h->b->write_cas(h->b, c->path, c->data, c->len,
	                       c->had ? sha : NULL, err);
}

/* The text of a commit that failed at path. */
static void commit_refusal(lu_buf *out, const locus_error *err,
                           const char *path)
{
	if (err->code == LOCUS_ECONFLICT)
		lu_buf_printf(out,
		              "%s changed on disk since it was read — read it "
		              "again before changing it. Nothing was written.",
		              path);
	else
		lu_buf_printf(out, "%s: %s. Nothing was written.", path,
		              err->message);
}

/* Commit a plan.  With the backend's write_many, as one batch (all or
 * nothing).  Else one file after another, writes first and removals last,
 * and on a failure part way what was changed is put back (the backend's
 * write keeps the replaced file's mode and owner; a removed file comes
 * back with default metadata). */
bool lh_commit(locus_harness *h, lh_change *c, size_t n, lu_buf *out)
{
	locus_error err = {0};
	size_t i = 0;
	bool batch = LH_V2(h->b, write_many) && n > 1;
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
		char(*sha)[65] = calloc(n, sizeof *sha);
		int rc = ops && sha ? 0 : LOCUS_ENOMEM;
		for (size_t k = 0; !rc && k < n; k++) {
			if (c[k].had)
				lu_sha256_hex(c[k].old, c[k].olen, sha[k]);
			ops[k] = (locus_write_op){c[k].path, c[k].data,
			                          c[k].len, c[k].del,
			                          c[k].had ? sha[k] : NULL};
		}
		size_t failed = 0;
		if (rc)
			lu_err(&err, rc, "out of memory");
		else
			rc = h->b->write_many(h->b, ops, n, &failed, &err);
		free(ops);
		free(sha);
		if (rc) {
			commit_refusal(out, &err,
			               c[failed < n ? failed : 0].path);
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
			lh_ledger_forget(h, c[i].path);
			lu_buf_printf(out, "Deleted %s\n", c[i].path);
		} else {
			lh_ledger_note(h, c[i].path, c[i].data, c[i].len);
			lu_buf_printf(out, "%s %s (%zu bytes)\n",
			              c[i].had ? "Updated" : "Created",
			              c[i].path, c[i].len);
		}
		if (h->cfg.on_change)
			h->cfg.on_change(c[i].path, h->cfg.payload);
	}
	return true;
}
