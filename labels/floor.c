/*
 * labels/floor.c - the raw-text floor: PCRE2 patterns over the text of a
 * line that does not parse, and over the arguments of programs we know
 * nothing about (G2).
 */
#include <stdlib.h>
#include <string.h>

#include <pcre2.h>

#include "internal.h"
#include "../knowledge/programs.h"
#include "../parser/internal.h"
#include "../util/regex.h"

/*
 * Raw-text patterns for unparsed lines.  They match anywhere in the text,
 * data included: an unparsable line that mentions `rm -rf` is treated as
 * running it (fail closed).  Compiled case-insensitive with DOTALL off;
 * `[^\n]*` keeps each match on one physical line where that is enough.
 */
typedef struct floor_pattern {
	const char *re;
	const char *never;
	/* Literals one of which every match contains (compared ignoring
	   case): a pattern is compiled and run only when the text holds one,
	   so ordinary unparsed lines skip PCRE2 entirely. */
	const char *need[8];
	/* NULL, or a cheap test every text a match is found in passes (a
	   shape the regex requires besides its literals: `(`, blanks, `)`,
	   blanks, `{` for a function definition); a text that fails it is
	   not given to PCRE2 (ll_floor_match_unfiltered() runs every
	   pattern anyway; tests compare the two) */
	bool (*shape)(const char *text, size_t len);
} floor_pattern;

/* PCRE2's \s without UCP: space, \t \n \v \f \r */
static bool re_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* `(`, blanks, `)`, blanks, `{`: a function definition's head */
static bool has_fn_head(const char *t, size_t len)
{
	for (const char *p = memchr(t, '(', len); p;
	     p = memchr(p + 1, '(', len - (size_t)(p + 1 - t))) {
		const char *q = p + 1, *end = t + len;
		while (q < end && re_space(*q))
			q++;
		if (q == end || *q != ')')
			continue;
		for (q++; q < end && re_space(*q); q++)
			;
		if (q < end && *q == '{')
			return true;
	}
	return false;
}

static bool has_pipe(const char *t, size_t len)
{
	return memchr(t, '|', len) != NULL;
}

/* `$(` or a backquote, and with `lt` `<(` too */
static bool has_subst_open(const char *t, size_t len, bool lt)
{
	if (memchr(t, '`', len))
		return true;
	for (const char *p = memchr(t, '(', len); p;
	     p = memchr(p + 1, '(', len - (size_t)(p + 1 - t)))
		if (p > t && (p[-1] == '$' || (lt && p[-1] == '<')))
			return true;
	return false;
}

static bool has_subst(const char *t, size_t len)
{
	return has_subst_open(t, len, false);
}

static bool has_subst_or_procsubst(const char *t, size_t len)
{
	return has_subst_open(t, len, true);
}

/* Program-name alternations are built from the program table when the
   patterns are compiled: DL the downloaders, INTERP the shells and
   interpreters, WIPE the programs that make or erase a filesystem.  As a
   `need` literal the same marker stands for "any of those names". */
#define DL "\001D"
#define INTERP "\001I"
#define WIPE "\001W"
#define DL_NEED DL

/* clang-format off */
static const floor_pattern floor_patterns[] = {
	{ "\\brm\\b[^;&|\\n]*?\\s['\"]?-[a-z-]*[rf]", LL_NEVER_RM, { "rm" }, NULL },
	{ "\\b" WIPE "\\b", LL_NEVER_FS, { WIPE }, NULL },
	{ "\\bdd\\b[^\\n]*\\bof=\\s*['\"]?/dev/", LL_NEVER_FS, { "of=" }, NULL },
	{ "\\bgit\\b[^\\n]*\\bpush\\b[^\\n]*(?:--force(?!-with-lease|-if-"
	  "includes)|\\s['\"]?-[a-z]*f|\\s['\"]?\\+[^\\s]|--mirror)",
	  LL_NEVER_FORCE_PUSH, { "push" }, NULL },
	{ "\\bgit\\b[^\\n]*\\breset\\b[^\\n]*--hard", LL_NEVER_RESET,
	  { "--hard" }, NULL },
	{ ":\\s*\\(\\s*\\)\\s*\\{", LL_NEVER_FORK_BOMB, { "(" }, has_fn_head },
	/* The body before `f|f` is bounded: an unbounded lazy run made this
	   quadratic on `x(){` repeated without a `}` (12 s for 64 KiB). */
	{ "([^\\s(){}|&;<>'\"]+)\\s*\\(\\s*\\)\\s*\\{[^}]{0,64}?\\1\\s*\\|"
	  "\\s*\\1",
	  LL_NEVER_FORK_BOMB, { "(" }, has_fn_head },
	{ "\\b" DL "\\b[^\\n]*\\|[^\\n]*\\b" INTERP "\\b", LL_NEVER_REMOTE_CODE,
	  { DL_NEED }, has_pipe },
	{ "(?:^|[\\s;&|(`])(?:" INTERP "|\\.)\\s[^\\n]*(?:\\$\\(|<\\(|`)\\s*"
	  "(?:sudo\\s+)?" DL "\\b",
	  LL_NEVER_REMOTE_CODE, { DL_NEED }, has_subst_or_procsubst },
	{ "(?:^|[;&|(\\n])\\s*(?:\\$\\(|`)\\s*" DL "\\b", LL_NEVER_REMOTE_CODE,
	  { DL_NEED }, has_subst },
	{ "\\b(?:shutdown|reboot|halt|poweroff)\\b", LL_NEVER_STOP,
	  { "shutdown", "reboot", "halt", "poweroff" }, NULL },
	{ "\\b(?:init|telinit)\\s+[06]\\b", LL_NEVER_STOP, { "init" }, NULL },
	{ "\\bsystemctl\\b[^\\n]*\\bkexec\\b", LL_NEVER_STOP, { "kexec" }, NULL },
};
/* clang-format on */

static uint32_t marker_class(char m)
{
	return m == 'D'   ? LK_DOWNLOADER
	       : m == 'I' ? LK_SHELL | LK_INTERP | LK_EVAL | LK_SOURCE
	                  : LK_WIPES_DEVICE;
}

static const char markers[] = "DIW"; /* the markers, in lits order */
#define NMARKERS (sizeof markers - 1)

#define NPATTERNS (sizeof floor_patterns / sizeof *floor_patterns)
_Static_assert(NPATTERNS <= LL_FLOOR_PATTERNS_MAX, "see internal.h");
#define NNEED (sizeof floor_patterns[0].need / sizeof floor_patterns[0].need[0])

/*
 * The literal prefilter.  Every `need` literal of the patterns and every
 * program name of the marker classes is numbered once per cache (on its
 * first text); a text is then read once for all patterns: at each
 * position the AND of the masks of its two bytes (folded to lower case)
 * is the set of literals whose first two bytes start there, and only
 * those are compared.  A pattern may match when the text holds one of its
 * literals (for a marker: a name of its classes).  A literal is compared
 * as written with the folded text (a case-insensitive search for a
 * lower-case needle; a literal with an upper-case letter is never found).
 */
typedef struct floor_lits {
	size_t n, words;        /* literals; 64-bit words in a set */
	const char **lit;       /* literal k (static text) */
	size_t *len;            /* its length (> 0) */
	unsigned char cls[256]; /* byte -> class; 0: at no literal's first
	                           two positions (and the end of the text) */
	size_t ncls;
	uint64_t *at[2]; /* [class * words + w]: the literals whose byte 0 /
	                    byte 1 is of that class (a one-byte literal:
	                    every class at 1) */
	uint64_t *need;  /* [pattern * words + w] */
	uint64_t *found; /* [2 * words]: per text (raw, normalized) */
} floor_lits;

/* Some pattern needs a name of the marker's classes (a marker only in
   the patterns' text, as INTERP, adds no literals). */
static bool marker_needed(char marker)
{
	for (size_t i = 0; i < NPATTERNS; i++)
		for (size_t k = 0; k < NNEED; k++) {
			const char *nd = floor_patterns[i].need[k];
			if (nd && nd[0] == '\x01' && nd[1] == marker)
				return true;
		}
	return false;
}

/* The literals in order: each pattern's own needs, then the names of
   each marker's classes (once, however many patterns use it); with `l`
   NULL only counted.  The span of marker k's names goes to span[k]. */
static size_t lits_list(floor_lits *l, size_t span[NMARKERS][2])
{
	size_t n = 0, nrows;
	const lk_program *rows = lk_programs(&nrows);
	for (size_t i = 0; i < NPATTERNS; i++)
		for (size_t k = 0; k < NNEED; k++) {
			const char *nd = floor_patterns[i].need[k];
			if (!nd || nd[0] == '\x01')
				continue;
			if (l) {
				l->lit[n] = nd;
				l->need[i * l->words + n / 64] |= 1ull
				                                  << (n % 64);
			}
			n++;
		}
	for (size_t m = 0; m < NMARKERS; m++) {
		span[m][0] = n;
		uint32_t cls = marker_class(markers[m]);
		bool needed = marker_needed(markers[m]);
		for (size_t r = 0; needed && r < nrows; r++)
			if (rows[r].cls & cls) {
				if (l)
					l->lit[n] = rows[r].name;
				n++;
			}
		span[m][1] = n;
	}
	return n;
}

/* Pattern i may match when a name of marker m's span is found. */
static void lits_need_markers(floor_lits *l, size_t span[NMARKERS][2])
{
	for (size_t i = 0; i < NPATTERNS; i++)
		for (size_t k = 0; k < NNEED; k++) {
			const char *nd = floor_patterns[i].need[k];
			if (!nd || nd[0] != '\x01')
				continue;
			size_t m = (size_t)(strchr(markers, nd[1]) - markers);
			for (size_t b = span[m][0]; b < span[m][1]; b++)
				l->need[i * l->words + b / 64] |= 1ull
				                                  << (b % 64);
		}
}

/* The byte classes and the position masks of the numbered literals;
   false when a literal is empty (a table error: the caller fails
   closed). */
static bool lits_masks(floor_lits *l)
{
	for (size_t k = 0; k < l->n; k++) {
		l->len[k] = strlen(l->lit[k]);
		if (l->len[k] == 0)
			return false;
		for (size_t p = 0; p < 2 && p < l->len[k]; p++) {
			unsigned char c = (unsigned char)l->lit[k][p];
			if (!l->cls[c])
				l->cls[c] = (unsigned char)l->ncls++;
		}
	}
	for (size_t k = 0; k < l->n; k++) {
		uint64_t bit = 1ull << (k % 64);
		size_t w = k / 64;
		for (size_t p = 0; p < 2; p++) {
			if (p < l->len[k]) {
				size_t c = l->cls[(unsigned char)l->lit[k][p]];
				l->at[p][c * l->words + w] |= bit;
				continue;
			}
			/* past a one-byte literal any byte, or the end */
			for (size_t c = 0; c < l->ncls; c++)
				l->at[p][c * l->words + w] |= bit;
		}
	}
	return true;
}

static void lits_free(floor_lits *l)
{
	if (!l)
		return;
	free(l->lit);
	free(l->len);
	free(l->at[0]);
	free(l->at[1]);
	free(l->need);
	free(l->found);
	free(l);
}

/* The prefilter of the patterns; NULL when out of memory or a literal is
   empty (every pattern is then run: fail closed, the same matches). */
static floor_lits *lits_new(void)
{
	size_t span[NMARKERS][2];
	size_t n = lits_list(NULL, span);
	floor_lits *l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	l->n = n;
	l->words = (n + 63) / 64;
	l->ncls = 1;
	/* at most 2n + 1 classes: sized for that before they are known */
	size_t cmax = 2 * n + 1 < 256 ? 2 * n + 1 : 256;
	l->lit = calloc(n ? n : 1, sizeof *l->lit);
	l->len = calloc(n ? n : 1, sizeof *l->len);
	l->at[0] = calloc(cmax * l->words + 1, sizeof *l->at[0]);
	l->at[1] = calloc(cmax * l->words + 1, sizeof *l->at[1]);
	l->need = calloc(NPATTERNS * l->words + 1, sizeof *l->need);
	l->found = calloc(2 * l->words + 1, sizeof *l->found);
	if (!l->lit || !l->len || !l->at[0] || !l->at[1] || !l->need ||
	    !l->found) {
		lits_free(l);
		return NULL;
	}
	lits_list(l, span);
	lits_need_markers(l, span);
	if (!lits_masks(l)) {
		lits_free(l);
		return NULL;
	}
	return l;
}

static unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

/* Literal k at text[i..): its bytes against the folded text. */
static bool lit_at(const floor_lits *l, size_t k, const char *text, size_t len,
                   size_t i)
{
	size_t m = l->len[k];
	if (m > len - i)
		return false;
	for (size_t j = 0; j < m; j++)
		if (fold((unsigned char)text[i + j]) !=
		    (unsigned char)l->lit[k][j])
			return false;
	return true;
}

/* The literals text[0..len) holds, into found[0..words). */
static void lits_scan(const floor_lits *l, const char *text, size_t len,
                      uint64_t *found)
{
	size_t W = l->words;
	memset(found, 0, W * sizeof *found);
	for (size_t i = 0; i < len; i++) {
		size_t c0 = l->cls[fold((unsigned char)text[i])];
		if (!c0)
			continue;
		size_t c1 =
		    i + 1 < len ? l->cls[fold((unsigned char)text[i + 1])] : 0;
		const uint64_t *a0 = l->at[0] + c0 * W, *a1 = l->at[1] + c1 * W;
		for (size_t w = 0; w < W; w++) {
			uint64_t m = a0[w] & a1[w] & ~found[w];
			while (m) {
				unsigned b = (unsigned)__builtin_ctzll(m);
				m &= m - 1;
				if (lit_at(l, w * 64 + b, text, len, i))
					found[w] |= 1ull << b;
			}
		}
	}
}

/* Pattern i may match: the text holds one of its literals. */
static bool may_match(const floor_lits *l, size_t i, const uint64_t *found)
{
	for (size_t w = 0; w < l->words; w++)
		if (l->need[i * l->words + w] & found[w])
			return true;
	return false;
}

/* The pattern with each program-class marker replaced by the names'
   alternation; malloc'd, NULL on OOM or overflow (fails closed). */
static char *expand_pattern(const char *re)
{
	size_t cap = strlen(re) + 1;
	for (const char *m = strchr(re, '\x01'); m; m = strchr(m + 1, '\x01'))
		cap += 8192;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	size_t k = 0;
	for (const char *p = re; *p; p++) {
		if (*p != '\x01') {
			out[k++] = *p;
			continue;
		}
		size_t n = lk_names_regex(marker_class(p[1]), out + k, cap - k);
		if (n == 0) {
			free(out);
			return NULL;
		}
		k += n;
		p++;
	}
	out[k] = '\0';
	return out;
}

/*
 * The same text with the quoting bash removes before running it taken out
 * and brace-expansion punctuation turned into blanks, so that `r''m -rf /`,
 * `\\rm -rf /` and `{rm,-rf,/}` meet the patterns as `rm -rf /`.  Matching
 * both the raw and this text only adds matches (fail closed).  Returns a
 * malloc'd copy with *out_len == 0 when it equals the input, NULL on OOM.
 */
static char *normalize(const char *text, size_t len, size_t *out_len)
{
	char *o = malloc(len + 1);
	if (!o)
		return NULL;
	size_t k = 0;
	bool changed = false;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (c == '\\' && i + 1 < len && text[i + 1] == '\n') {
			i++; /* a line continuation joins the words around it */
			changed = true;
			continue;
		}
		if (c == '\'' || c == '"' || c == '\\') {
			changed = true;
			continue;
		}
		if (c == '{' || c == '}' || c == ',') {
			o[k++] = ' ';
			changed = true;
			continue;
		}
		o[k++] = c;
	}
	o[k] = '\0';
	*out_len = changed ? k : 0;
	return o;
}

/*
 * The compiled patterns: each compiled the first time a text passes its
 * literal prefilter, then kept as long as the cache (one per parser for
 * locus_action_derive(), one per line for locus_shell_label()); JIT-
 * compiled only when a text over 8 KiB needs it (the one-line hook path
 * never pays for the JIT).  Limits bound the work on hostile 1 MiB input;
 * hitting one is a match.
 */
struct ll_floor {
	pcre2_code *re[NPATTERNS];
	bool jit[NPATTERNS];
	pcre2_match_context *mctx;
	pcre2_match_data *md; /* one ovector pair: only "does it match" */
	/* the literal prefilter, made on the first text (NULL: not yet, or
	   out of memory, then every pattern is run and it is tried again
	   next text) */
	floor_lits *lits;
};

#define FLOOR_JIT_BYTES 8192

ll_floor *ll_floor_new(void)
{
	ll_floor *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	lu_re_limits lim = {2000000, 10000, 20000};
	f->mctx = lu_re_context(&lim);
	f->md = pcre2_match_data_create(1, NULL);
	if (!f->mctx || !f->md) {
		ll_floor_free(f);
		return NULL;
	}
	return f;
}

void ll_floor_free(ll_floor *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < NPATTERNS; i++)
		pcre2_code_free(f->re[i]);
	lits_free(f->lits);
	pcre2_match_context_free(f->mctx);
	pcre2_match_data_free(f->md);
	free(f);
}

static const pcre2_code *floor_re(ll_floor *f, size_t i, size_t len)
{
	if (!f->re[i]) {
		/* a failure (out of memory) is a match this time and is tried
		   again next time: never cached */
		char *src = expand_pattern(floor_patterns[i].re);
		f->re[i] = src ? lu_re_compile(src, PCRE2_CASELESS, false, NULL)
		               : NULL;
		free(src);
	}
	/* Big texts only: the interpreter spends its whole match limit on
	   a 100 KiB line of `curl a;` (0.3 s a pattern), the JIT a few
	   milliseconds. */
	if (f->re[i] && !f->jit[i] && len > FLOOR_JIT_BYTES) {
		f->jit[i] = true;
		pcre2_jit_compile(f->re[i], PCRE2_JIT_COMPLETE);
	}
	return f->re[i];
}

/* ll_floor_match(), with the literal prefilter or (tests) without. */
static size_t floor_match(ll_floor *f, const char *text, size_t len,
                          const char **out, size_t max, bool prefilter)
{
	ll_floor *own = f ? NULL : ll_floor_new();
	if (!f && !own) {
		if (max == 0)
			return 0;
		out[0] = LL_NEVER_RM; /* out of memory: fail closed */
		return 1;
	}
	if (!f)
		f = own;
	size_t n = 0;
	size_t norm_len = 0;
	char *norm = normalize(text, len, &norm_len);
	if (!f->lits && prefilter)
		f->lits = lits_new();
	floor_lits *l = prefilter ? f->lits : NULL;
	/* Removing quotes can create a literal the raw text lacks
	   (r''m -> rm): the literals of both texts count. */
	if (l) {
		lits_scan(l, text, len, l->found);
		if (norm && norm_len)
			lits_scan(l, norm, norm_len, l->found + l->words);
		else
			memset(l->found + l->words, 0,
			       l->words * sizeof *l->found);
	}
	for (size_t i = 0; i < NPATTERNS && n < max; i++) {
		const char *never = floor_patterns[i].never;
		bool seen = false;
		for (size_t k = 0; k < n; k++)
			if (out[k] == never)
				seen = true;
		if (seen)
			continue;
		if (l && !may_match(l, i, l->found) &&
		    !may_match(l, i, l->found + l->words))
			continue;
		bool (*shape)(const char *, size_t) =
		    l ? floor_patterns[i].shape : NULL;
		bool raw = !shape || shape(text, len);
		bool other = norm_len && (!shape || shape(norm, norm_len));
		if (norm && !raw && !other)
			continue; /* neither text has the shape a match needs */
		const pcre2_code *re =
		    floor_re(f, i, len > norm_len ? len : norm_len);
		bool hit = true; /* any failure fails closed */
		if (re && norm) {
			lu_re_result rc =
			    raw ? lu_re_match(re, text, len, 0, f->md, f->mctx,
			                      NULL)
			        : LU_RE_NOMATCH;
			if (rc == LU_RE_NOMATCH && other)
				rc = lu_re_match(re, norm, norm_len, 0, f->md,
				                 f->mctx, NULL);
			hit = rc != LU_RE_NOMATCH;
		}
		if (hit)
			out[n++] = never;
	}
	free(norm);
	ll_floor_free(own);
	return n;
}

size_t ll_floor_match(ll_floor *f, const char *text, size_t len,
                      const char **out, size_t max)
{
	return floor_match(f, text, len, out, max, true);
}

size_t ll_floor_match_unfiltered(ll_floor *f, const char *text, size_t len,
                                 const char **out, size_t max)
{
	return floor_match(f, text, len, out, max, false);
}

size_t ll_floor_patterns(const char *text, size_t len, const char **out,
                         size_t max)
{
	return ll_floor_match(NULL, text, len, out, max);
}

static void floor_free_any(void *f)
{
	ll_floor_free(f);
}

ll_floor *ll_parser_floor(locus_shell_parser *p)
{
	if (!p)
		return NULL;
	if (!p->above) {
		p->above = ll_floor_new();
		p->above_free = floor_free_any;
	}
	return p->above;
}

/*
 * G2: programs we know nothing about (vim -c, gdb -ex, sqlite3 .shell,
 * emacs --eval, a tclsh heredoc...) and interpreter code we scanned only
 * for known call shapes may run a command written in their arguments.  The
 * raw-text floor patterns are matched against the arguments joined by
 * spaces, with heredoc and herestring bodies (code fed on stdin).  Known
 * data-taking programs (echo, git commit -m, grep) are not matched: their
 * arguments are data.  Over-reporting on unknown programs is accepted.
 */
/* An unknown program's own subcommand with a machine-stop name acts on
   what the program manages (`vagrant halt`, `virsh reboot vm`), not on
   the machine: that first word is left out of its text. */
/* clang-format off */
static const char *const stop_subcommands[] = {
	"shutdown", "reboot", "halt", "poweroff", NULL,
};
/* clang-format on */

static size_t args_start(const locus_shell_command *c)
{
	if ((c->flags & LOCUS_CMD_INLINE_CODE) || c->argc < 2)
		return 1;
	for (const char *const *w = stop_subcommands; *w; w++)
		if (strcmp(c->argv[1], *w) == 0)
			return 2;
	return 1;
}

const char *ll_args_floor(const locus_shell_command *c, const lk_program *prog,
                          ll_floor *floor)
{
	if (c->argc < 2 && c->nredirects == 0)
		return NULL;
	if (!(c->flags & LOCUS_CMD_INLINE_CODE) && !ll_unknown_program(c, prog))
		return NULL;
	size_t first = args_start(c);
	size_t len = 0;
	for (size_t i = first; i < c->argc; i++)
		len += strlen(c->argv[i]) + 1;
	for (size_t i = 0; i < c->nredirects; i++)
		if (c->redirects[i].op && c->redirects[i].target &&
		    strncmp(c->redirects[i].op, "<<", 2) == 0)
			len += strlen(c->redirects[i].target) + 1;
	if (len == 0)
		return NULL;
	char *text = malloc(len + 1);
	if (!text)
		return LL_NEVER_RM; /* out of memory: fail closed */
	size_t k = 0;
	for (size_t i = first; i < c->argc; i++) {
		size_t m = strlen(c->argv[i]);
		memcpy(text + k, c->argv[i], m);
		k += m;
		text[k++] = ' ';
	}
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *r = &c->redirects[i];
		if (!r->op || !r->target || strncmp(r->op, "<<", 2) != 0)
			continue;
		size_t m = strlen(r->target);
		memcpy(text + k, r->target, m);
		k += m;
		text[k++] = '\n';
	}
	text[k] = '\0';
	const char *hit = NULL;
	ll_floor_match(floor, text, k, &hit, 1);
	free(text);
	return hit;
}
