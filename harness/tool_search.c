/*
 * harness/tool_search.c - the search tools: ls, glob and grep (PCRE2 over
 * the backend's walk and read, or the backend's own search), under a time
 * budget.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "tools.h"
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

/* ---------------- ls ---------------- */

static int ent_visible(const locus_dirent *d)
{
	return d->name[0] != '.' && !(d->is_dir && lh_is_skip_dir(d->name));
}

bool lh_t_ls(locus_harness *h, const cJSON *a, lh_buf *out,
                 lh_change **plan, size_t *np)
{
	(void)plan;
	(void)np;
	const char *path;
	long depth;
	if (!lh_arg_str(a, "path", ".", &path, out) ||
	    !lh_arg_int(a, "depth", 2, 1, 20, &depth, out))
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
		lh_err_text(out, &err, NULL);
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

bool lh_t_glob(locus_harness *h, const cJSON *a, lh_buf *out,
                   lh_change **plan, size_t *np)
{
	(void)plan;
	(void)np;
	const char *pattern, *path;
	if (!lh_arg_str(a, "pattern", NULL, &pattern, out) ||
	    !lh_arg_str(a, "path", ".", &path, out))
		return false;
	locus_dirent *e;
	size_t n;
	locus_error err = {0};
	if (h->b->walk(h->b, path, WALK_MAX, &e, &n, &err)) {
		lh_err_text(out, &err, NULL);
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

bool lh_t_grep(locus_harness *h, const cJSON *a, lh_buf *out,
                   lh_change **plan, size_t *np)
{
	(void)plan;
	(void)np;
	const char *pattern, *path, *glob, *mode_s;
	bool ci;
	long ctx, limit;
	if (!lh_arg_str(a, "pattern", NULL, &pattern, out) ||
	    !lh_arg_str(a, "path", ".", &path, out) ||
	    !lh_arg_str(a, "glob", "", &glob, out) ||
	    !lh_arg_str(a, "output_mode", "content", &mode_s, out) ||
	    !lh_arg_bool(a, "case_insensitive", false, &ci, out) ||
	    !lh_arg_int(a, "context", 0, 0, 100, &ctx, out) ||
	    !lh_arg_int(a, "limit", 200, 1, 100000, &limit, out))
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
			lh_err_text(out, &err, NULL);
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
		lh_err_text(out, &err, NULL);
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
