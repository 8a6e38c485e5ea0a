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

bool lh_t_ls(locus_harness *h, const cJSON *a, lu_buf *out)
{
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
	lu_buf_printf(out, "%s/\n", path);
	sp = 1;
	bool full = false;
	while (sp) {
		frame *f = &st[sp - 1];
		if (f->i >= f->n || full) {
			size_t hidden = 0;
			for (size_t k = f->i; k < f->n; k++)
				hidden += ent_visible(&f->e[k]);
			if (hidden && !full) {
				lu_buf_printf(out, "%*s... %zu more\n",
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
			lu_buf_printf(out, "%*s... %zu more\n", (int)(2 * sp),
			              "", more);
			f->i = f->n;
			lines++;
			continue;
		}
		f->shown++;
		if (++lines > LS_MAX_LINES) {
			lu_buf_printf(out, "... (stopped at %d lines)\n",
			              LS_MAX_LINES);
			full = true;
			continue;
		}
		lu_buf_printf(out, "%*s%s%s\n", (int)(2 * sp), "", d->name,
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


/* The '/'-separated parts of s (strtok: empty parts dropped; with
 * skip_dot, "." too), in a malloc'd array over s; NULL when out of memory. */
static const char **split_parts(char *s, bool skip_dot, size_t *n)
{
	size_t cap = 1;
	for (const char *c = s; *c; c++)
		cap += *c == '/';
	const char **v = malloc(cap * sizeof *v);
	*n = 0;
	if (!v)
		return NULL;
	for (char *t = strtok(s, "/"); t; t = strtok(NULL, "/"))
		if (!skip_dot || strcmp(t, "."))
			v[(*n)++] = t;
	return v;
}

/* Does rel (a/b/c) match the pattern segments?  DP over segments, so `**`
 * costs no recursion; any depth (a fixed 256 once missed
 * deeper files without a word).  *oom set when memory ran out. */
static bool glob_match(const char *pattern, const char *rel, bool *oom)
{
	char *pc = strdup(pattern), *rc = strdup(rel);
	const char **P = NULL, **S = NULL;
	bool *dp = NULL, *nx = NULL;
	size_t np = 0, ns = 0;
	bool res = false;
	if (!pc || !rc || !(P = split_parts(pc, true, &np)) ||
	    !(S = split_parts(rc, false, &ns)) ||
	    !(dp = malloc((ns + 1) * sizeof *dp)) ||
	    !(nx = malloc((ns + 1) * sizeof *nx))) {
		*oom = true;
		goto out;
	}
	/* dp[j]: P[i..] matches S[j..], rolled over i from the end */
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
		bool *t = nx;
		nx = dp;
		dp = t;
	}
	res = nx[0];
out:
	free(dp);
	free(nx);
	free(P);
	free(S);
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

static void join(lu_buf *out, const char *dir, const char *rel)
{
	if (strcmp(dir, ".") && *dir)
		lu_buf_printf(out, "%s%s", dir,
		              dir[strlen(dir) - 1] == '/' ? "" : "/");
	lu_buf_puts(out, rel);
}

bool lh_t_glob(locus_harness *h, const cJSON *a, lu_buf *out)
{
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
	double deadline = lu_now() + search_budget(h);
	bool out_of_time = false, oom = false;
	for (size_t i = 0; i < n; i++) {
		if (!out_of_time && (i & 255) == 0 && lu_now() > deadline)
			out_of_time = true;
		if (!out_of_time && !oom &&
		    glob_match(pattern, e[i].name, &oom))
			e[k++] = e[i];
		else
			free(e[i].name);
	}
	if (k)
		qsort(e, k, sizeof *e, by_mtime);
	for (size_t i = 0; i < k && i < GLOB_MAX; i++) {
		join(out, path, e[i].name);
		lu_buf_add(out, "\n", 1);
	}
	if (k > GLOB_MAX)
		lu_buf_printf(out, "... %zu more\n", k - GLOB_MAX);
	if (out_of_time)
		lu_buf_printf(
		    out,
		    "... (stopped: the search's time budget of %.0f s "
		    "ran out)\n",
		    search_budget(h));
	if (oom)
		lu_buf_puts(out, "... (stopped: out of memory; the result is "
		                 "incomplete)\n");
	if (n >= WALK_MAX)
		lu_buf_printf(out,
		              "... (stopped: the walk lists at most %d "
		              "entries; the result is incomplete: narrow "
		              "the path)\n",
		              WALK_MAX);
	if (!k)
		lu_buf_printf(out, "No files match %s", pattern);
	locus_dirents_free(e, k);
	return true;
}

/* ---------------- grep ---------------- */

/* One native grep run: the compiled pattern, what to show, and where the
 * shown lines and the time budget stand. */
typedef struct grep_run {
	pcre2_code *re;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	locus_grep_mode mode;
	long ctx, limit;
	double deadline;
	size_t lines; /* output lines so far (against limit) */
	bool stop, limited, out_of_time, oom;
	lu_buf *out;
} grep_run;

/* Count one output line against the limit. */
static void grep_line_done(grep_run *g)
{
	if (++g->lines >= (size_t)g->limit)
		g->stop = g->limited = true;
}

/* The length of the line that starts at s. */
static size_t line_len(const char *data, size_t len, size_t s)
{
	const char *e = memchr(data + s, '\n', len - s);
	return e ? (size_t)(e - data - s) : len - s;
}

/*
 * Show a match at line `lineno` (starting at pos, ll bytes): the context
 * before it (line starts in ring), the line, then up to ctx lines after
 * it that do not match themselves.  *last_shown is the last line shown.
 */
static void grep_show(grep_run *g, const char *name, const char *data,
                      size_t len, const size_t ring[101], size_t lineno,
                      size_t next, size_t *last_shown)
{
	size_t ctx = (size_t)g->ctx;
	size_t from = lineno > ctx ? lineno - ctx : 1;
	if (from <= *last_shown)
		from = *last_shown + 1;
	else if (*last_shown && ctx)
		lu_buf_puts(g->out, "--\n");
	for (size_t l = from; l <= lineno && !g->stop; l++) {
		size_t s = ring[l % 101];
		lu_buf_printf(g->out, "%s%c%zu%c", name,
		              l == lineno ? ':' : '-', l,
		              l == lineno ? ':' : '-');
		lu_buf_add(g->out, data + s, line_len(data, len, s));
		lu_buf_add(g->out, "\n", 1);
		grep_line_done(g);
	}
	*last_shown = lineno;
	/* after-context: the following lines, up to the next match */
	size_t p2 = next;
	for (size_t c = 0; c < ctx && !g->stop && p2 < len; c++) {
		size_t el = line_len(data, len, p2);
		if (lu_re_match(g->re, data + p2, el, 0, g->md, g->mc, NULL) ==
		    LU_RE_MATCH)
			break;
		lu_buf_printf(g->out, "%s-%zu-", name, *last_shown + 1);
		lu_buf_add(g->out, data + p2, el);
		lu_buf_add(g->out, "\n", 1);
		(*last_shown)++;
		grep_line_done(g);
		p2 += el + (p2 + el < len ? 1 : 0);
	}
}

/* Search one file's text line by line; the number of matching lines. */
static size_t grep_text(grep_run *g, const char *name, const char *data,
                        size_t len)
{
	size_t count = 0, pos = 0, lineno = 0, last_shown = 0;
	size_t ring[101]; /* line starts, for context before a match */
	while (pos <= len && !g->stop) {
		if (pos == len && (len == 0 || data[len - 1] == '\n'))
			break;
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - data - pos) : len - pos;
		lineno++;
		ring[lineno % 101] = pos;
		if ((lineno & 63) == 0 && lu_now() > g->deadline) {
			g->out_of_time = g->stop = true;
			break;
		}
		int r;
		lu_re_match(g->re, data + pos, ll, 0, g->md, g->mc, &r);
		if (lu_re_is_limit(r)) {
			lu_buf_printf(
			    g->out, "%s:%zu: the pattern hit the match limit\n",
			    name, lineno);
		} else if (r > 0) {
			count++;
			if (g->mode == LOCUS_GREP_CONTENT)
				grep_show(g, name, data, len, ring, lineno,
				          pos + ll + (nl ? 1 : 0), &last_shown);
		}
		pos += ll + 1;
		if (!nl)
			break;
	}
	return count;
}

/* Search one file of the walk (glob, size and binary checks first);
 * true when it matched. */
static bool grep_file(grep_run *g, locus_harness *h, const char *path,
                      const char *glob, const locus_dirent *e, bool single)
{
	const char *base =
	    strrchr(e->name, '/') ? strrchr(e->name, '/') + 1 : e->name;
	bool oom = false;
	if (*glob &&
	    !glob_match(glob, strchr(glob, '/') ? e->name : base, &oom)) {
		if (oom)
			g->oom = g->stop = true;
		return false;
	}
	if (e->size > GREP_MAX_FILE)
		return false;
	lu_buf fp = {0};
	if (single)
		lu_buf_puts(&fp, path);
	else
		join(&fp, path, e->name);
	char *data = NULL;
	size_t len, count = 0;
	locus_error err;
	if (h->b->read(h->b, fp.d, &data, &len, &err)) {
		lu_buf_free(&fp);
		return false;
	}
	if (memchr(data, '\0', len < 8000 ? len : 8000)) {
		/* binary */
	} else if (lu_now() > g->deadline) {
		g->out_of_time = g->stop = true;
	} else {
		count = grep_text(g, fp.d, data, len);
	}
	if (count && g->mode == LOCUS_GREP_FILES) {
		lu_buf_printf(g->out, "%s\n", fp.d);
		grep_line_done(g);
	} else if (count && g->mode == LOCUS_GREP_COUNT) {
		lu_buf_printf(g->out, "%s:%zu\n", fp.d, count);
		grep_line_done(g);
	}
	free(data);
	lu_buf_free(&fp);
	return count > 0;
}

/* The files to search: path itself, or every file of its walk. */
static bool grep_targets(locus_harness *h, const char *path, locus_dirent **e,
                         size_t *n, bool *single, lu_buf *out)
{
	locus_stat st;
	locus_error err = {0};
	*single = false;
	if (h->b->stat(h->b, path, &st, &err) || !st.exists) {
		lu_buf_printf(out, "%s does not exist", path);
		return false;
	}
	if (st.is_dir) {
		if (h->b->walk(h->b, path, WALK_MAX, e, n, &err)) {
			lh_err_text(out, &err, NULL);
			return false;
		}
		return true;
	}
	*e = calloc(1, sizeof **e);
	if (!*e || !((*e)->name = strdup(path))) {
		free(*e);
		*e = NULL;
		lu_buf_puts(out, "out of memory");
		return false;
	}
	*n = 1;
	*single = true;
	return true;
}

/* grep with PCRE2 over the backend's walk and read, under the budget. */
static bool grep_native(locus_harness *h, grep_run *g, const char *pattern,
                        const char *path, const char *glob, bool ci)
{
	lu_re_error rerr;
	g->re = lu_re_compile(pattern,
	                      PCRE2_UTF | PCRE2_MATCH_INVALID_UTF |
	                          (ci ? PCRE2_CASELESS : 0),
	                      false, &rerr);
	if (!g->re) {
		lu_buf_printf(g->out, "bad pattern at offset %zu: %s",
		              rerr.offset, rerr.message);
		return false;
	}
	g->md = pcre2_match_data_create_from_pattern(g->re, NULL);
	g->mc = lu_re_context(NULL);
	/* a total time budget: catastrophic patterns over many lines stop */
	g->deadline = lu_now() + search_budget(h);
	locus_dirent *e = NULL;
	size_t n = 0, nfiles = 0;
	bool single;
	bool ok = grep_targets(h, path, &e, &n, &single, g->out);
	for (size_t i = 0; ok && i < n && !g->stop; i++)
		nfiles += grep_file(g, h, path, glob, &e[i], single);
	if (ok && g->limited)
		lu_buf_printf(g->out, "... (stopped at limit=%ld)\n", g->limit);
	if (ok && g->out_of_time)
		lu_buf_printf(
		    g->out,
		    "... (stopped: the search's time budget of %.0f s "
		    "ran out; narrow the path or the pattern)\n",
		    search_budget(h));
	if (ok && g->oom)
		lu_buf_puts(g->out, "... (stopped: out of memory; the result "
		                    "is incomplete)\n");
	if (ok && !nfiles)
		lu_buf_printf(g->out, "No matches for %s", pattern);
	locus_dirents_free(e, n);
	pcre2_match_context_free(g->mc);
	pcre2_match_data_free(g->md);
	pcre2_code_free(g->re);
	return ok;
}

bool lh_t_grep(locus_harness *h, const cJSON *a, lu_buf *out)
{
	const char *pattern, *path, *glob, *mode_s;
	bool ci;
	grep_run g = {.out = out};
	if (!lh_arg_str(a, "pattern", NULL, &pattern, out) ||
	    !lh_arg_str(a, "path", ".", &path, out) ||
	    !lh_arg_str(a, "glob", "", &glob, out) ||
	    !lh_arg_str(a, "output_mode", "content", &mode_s, out) ||
	    !lh_arg_bool(a, "case_insensitive", false, &ci, out) ||
	    !lh_arg_int(a, "context", 0, 0, 100, &g.ctx, out) ||
	    !lh_arg_int(a, "limit", 200, 1, 100000, &g.limit, out))
		return false;
	int m = !strcmp(mode_s, "content") ? LOCUS_GREP_CONTENT
	        : !strcmp(mode_s, "files") ? LOCUS_GREP_FILES
	        : !strcmp(mode_s, "count") ? LOCUS_GREP_COUNT
	                                   : -1;
	if (m < 0) {
		lu_buf_puts(out, "output_mode must be content, files or count");
		return false;
	}
	g.mode = (locus_grep_mode)m;
	if (!h->b->search)
		return grep_native(h, &g, pattern, path, glob, ci);
	char *text = NULL;
	locus_error err = {0};
	if (h->b->search(h->b, pattern, path, glob, ci, (int)g.ctx, g.mode,
	                 (size_t)g.limit, &text, &err)) {
		lh_err_text(out, &err, NULL);
		return false;
	}
	lu_buf_puts(out, text);
	free(text);
	return true;
}
