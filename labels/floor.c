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
} floor_pattern;

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
	{ "\\brm\\b[^;&|\\n]*?\\s['\"]?-[a-z-]*[rf]", LL_NEVER_RM, { "rm" } },
	{ "\\b" WIPE "\\b", LL_NEVER_FS, { WIPE } },
	{ "\\bdd\\b[^\\n]*\\bof=\\s*['\"]?/dev/", LL_NEVER_FS, { "of=" } },
	{ "\\bgit\\b[^\\n]*\\bpush\\b[^\\n]*(?:--force(?!-with-lease|-if-"
	  "includes)|\\s['\"]?-[a-z]*f|\\s['\"]?\\+[^\\s]|--mirror)",
	  LL_NEVER_FORCE_PUSH, { "push" } },
	{ "\\bgit\\b[^\\n]*\\breset\\b[^\\n]*--hard", LL_NEVER_RESET,
	  { "--hard" } },
	{ ":\\s*\\(\\s*\\)\\s*\\{", LL_NEVER_FORK_BOMB, { "(" } },
	/* The body before `f|f` is bounded: an unbounded lazy run made this
	   quadratic on `x(){` repeated without a `}` (12 s for 64 KiB). */
	{ "([^\\s(){}|&;<>'\"]+)\\s*\\(\\s*\\)\\s*\\{[^}]{0,64}?\\1\\s*\\|"
	  "\\s*\\1",
	  LL_NEVER_FORK_BOMB, { "(" } },
	{ "\\b" DL "\\b[^\\n]*\\|[^\\n]*\\b" INTERP "\\b", LL_NEVER_REMOTE_CODE,
	  { DL_NEED } },
	{ "(?:^|[\\s;&|(`])(?:" INTERP "|\\.)\\s[^\\n]*(?:\\$\\(|<\\(|`)\\s*"
	  "(?:sudo\\s+)?" DL "\\b",
	  LL_NEVER_REMOTE_CODE, { DL_NEED } },
	{ "(?:^|[;&|(\\n])\\s*(?:\\$\\(|`)\\s*" DL "\\b", LL_NEVER_REMOTE_CODE,
	  { DL_NEED } },
	{ "\\b(?:shutdown|reboot|halt|poweroff)\\b", LL_NEVER_STOP,
	  { "shutdown", "reboot", "halt", "poweroff" } },
	{ "\\b(?:init|telinit)\\s+[06]\\b", LL_NEVER_STOP, { "init" } },
	{ "\\bsystemctl\\b[^\\n]*\\bkexec\\b", LL_NEVER_STOP, { "kexec" } },
};
/* clang-format on */

/* Case-insensitive (ASCII) search for `needle` in text[0..len). */
static bool contains_ci(const char *text, size_t len, const char *needle)
{
	size_t m = strlen(needle);
	if (m == 0 || m > len)
		return m == 0;
	for (size_t i = 0; i + m <= len; i++) {
		size_t k = 0;
		while (k < m) {
			unsigned char a = (unsigned char)text[i + k];
			unsigned char b = (unsigned char)needle[k];
			if (a >= 'A' && a <= 'Z')
				a = (unsigned char)(a - 'A' + 'a');
			if (a != b)
				break;
			k++;
		}
		if (k == m)
			return true;
	}
	return false;
}

static uint32_t marker_class(char m)
{
	return m == 'D'   ? LK_DOWNLOADER
	       : m == 'I' ? LK_SHELL | LK_INTERP | LK_EVAL | LK_SOURCE
	                  : LK_WIPES_DEVICE;
}

/* What the literal prefilter knows about one text: which bytes (folded
   to lower case) it holds, and the program classes found so far. */
typedef struct text_facts {
	ll_floor *floor; /* its rows of each class (class_rows) */
	const char *text;
	size_t len;
	uint8_t bytes[32];  /* bit c: byte c (lower case) occurs */
	uint8_t known, has; /* per marker D, I, W: looked up, found */
} text_facts;

static void text_facts_init(text_facts *tf, ll_floor *f, const char *text,
                            size_t len)
{
	memset(tf, 0, sizeof *tf);
	tf->floor = f;
	tf->text = text;
	tf->len = len;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		tf->bytes[c >> 3] |= (uint8_t)(1u << (c & 7));
	}
}

static bool has_byte(const text_facts *tf, unsigned char c)
{
	return (tf->bytes[c >> 3] >> (c & 7)) & 1u;
}

static size_t marker_index(char m)
{
	return m == 'D' ? 0 : m == 'I' ? 1 : 2;
}

static const lk_program *const *class_rows(ll_floor *f, char marker, size_t *n);

/* The name of p is in the text: searched only when the text holds its
   first two bytes. */
static bool names_in(const text_facts *tf, const lk_program *p)
{
	const unsigned char *nm = (const unsigned char *)p->name;
	return has_byte(tf, nm[0]) && (!nm[1] || has_byte(tf, nm[1])) &&
	       contains_ci(tf->text, tf->len, p->name);
}

/* The text holds the name of a program of the marker's classes. */
static bool contains_class(const text_facts *tf, char marker)
{
	size_t n;
	const lk_program *const *of = class_rows(tf->floor, marker, &n);
	for (size_t i = 0; of && i < n; i++)
		if (names_in(tf, of[i]))
			return true;
	if (of)
		return false;
	/* out of memory for the list: the whole table */
	uint32_t cls = marker_class(marker);
	const lk_program *rows = lk_programs(&n);
	for (size_t i = 0; i < n; i++)
		if ((rows[i].cls & cls) && names_in(tf, &rows[i]))
			return true;
	return false;
}

/* Class lookups are remembered per text: several patterns share them. */
static bool has_class(text_facts *tf, char marker)
{
	uint8_t bit = (uint8_t)(1u << marker_index(marker));
	if (!(tf->known & bit)) {
		tf->known |= bit;
		if (contains_class(tf, marker))
			tf->has |= bit;
	}
	return (tf->has & bit) != 0;
}

static bool may_match(const floor_pattern *fp, text_facts *tf)
{
	for (size_t i = 0; i < sizeof fp->need / sizeof fp->need[0]; i++) {
		const char *nd = fp->need[i];
		if (!nd)
			continue;
		if (nd[0] == '\x01' ? has_class(tf, nd[1])
		                    : contains_ci(tf->text, tf->len, nd))
			return true;
	}
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

#define NPATTERNS (sizeof floor_patterns / sizeof *floor_patterns)
_Static_assert(NPATTERNS <= LL_FLOOR_PATTERNS_MAX, "see internal.h");

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
	/* per marker D, I, W: the program rows of its classes, listed the
	   first time a text needs them (a scan of the whole table per text
	   was most of the prefilter's cost); NULL: not yet */
	const lk_program **of_class[3];
	size_t nof_class[3];
};

/* The rows of the marker's classes; NULL when out of memory (the caller
   scans the whole table). */
static const lk_program *const *class_rows(ll_floor *f, char marker, size_t *n)
{
	size_t k = marker_index(marker);
	if (!f->of_class[k]) {
		uint32_t cls = marker_class(marker);
		size_t nrows, m = 0;
		const lk_program *rows = lk_programs(&nrows);
		for (size_t i = 0; i < nrows; i++)
			m += (rows[i].cls & cls) != 0;
		const lk_program **v = malloc((m ? m : 1) * sizeof *v);
		if (!v)
			return NULL;
		m = 0;
		for (size_t i = 0; i < nrows; i++)
			if (rows[i].cls & cls)
				v[m++] = &rows[i];
		f->of_class[k] = v;
		f->nof_class[k] = m;
	}
	*n = f->nof_class[k];
	return (const lk_program *const *)f->of_class[k];
}

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
	for (size_t k = 0; k < 3; k++)
		free(f->of_class[k]);
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

size_t ll_floor_match(ll_floor *f, const char *text, size_t len,
                      const char **out, size_t max)
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
	text_facts raw, nrm;
	text_facts_init(&raw, f, text, len);
	if (norm && norm_len)
		text_facts_init(&nrm, f, norm, norm_len);
	for (size_t i = 0; i < NPATTERNS && n < max; i++) {
		const char *never = floor_patterns[i].never;
		bool seen = false;
		for (size_t k = 0; k < n; k++)
			if (out[k] == never)
				seen = true;
		if (seen)
			continue;
		/* Removing quotes can create a literal the raw text lacks
		   (r''m -> rm): look in both texts. */
		if (!may_match(&floor_patterns[i], &raw) &&
		    !(norm && norm_len && may_match(&floor_patterns[i], &nrm)))
			continue;
		const pcre2_code *re =
		    floor_re(f, i, len > norm_len ? len : norm_len);
		bool hit = true; /* any failure fails closed */
		if (re && norm) {
			lu_re_result rc =
			    lu_re_match(re, text, len, 0, f->md, f->mctx, NULL);
			if (rc == LU_RE_NOMATCH && norm_len)
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

const char *ll_args_floor(const locus_shell_command *c, ll_floor *floor)
{
	if (c->argc < 2 && c->nredirects == 0)
		return NULL;
	if (!(c->flags & LOCUS_CMD_INLINE_CODE) && !ll_unknown_program(c))
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
