/*
 * parser/checks.c - fail-closed checks (research tree-sitter-bash.md 2.4).
 *
 * tree-sitter-bash has valid lines it silently misreads: a command bash
 * runs shows up as an argument, a redirect target or heredoc text, with no
 * ERROR node.  Each check below spots one such shape from the tree or the
 * bytes and marks the line unparsed with the reason.  They err on the side
 * of firing: a false "unparsed" costs a question to a human, a missed one
 * costs a hidden command.
 *
 * One cursor walk over the tree; an explicit per-depth array remembers the
 * previous sibling so that the bytes *between* siblings (the gaps, where
 * tree-sitter put whitespace, line continuations and control characters it
 * skipped) can be checked.
 */
#include <stdlib.h>
#include <string.h>

#include "walk.h"

/* Reserved words (and `{ }`) that bash never runs as a command name when
   unquoted; tree-sitter lets some through (research S2, S3, `fi;`).
   `time` and `coproc` are not here: before a simple command they are
   wrappers; before a compound command see lp_checks_command. */
static const char *const reserved[] = {
	"!", "{", "}", "[[", "]]", "if", "then", "elif", "else", "fi",
	"case", "esac", "for", "select", "while", "until", "do", "done",
	"in", "function", NULL,
};

bool lp_is_reserved_word(const char *s)
{
	for (const char *const *r = reserved; *r; r++)
		if (!strcmp(*r, s))
			return true;
	return false;
}

void lp_checks_command(lp_tree *t, const lp_raw_command *raw)
{
	lp_ctx *ctx = t->ctx;
	if (raw->nwords == 0)
		return;
	const lp_word *w0 = &raw->words[0];
	const char *name = w0->value ? w0->value : "";
	if (w0->flags & LOCUS_WORD_DYNAMIC) {
		lp_unparsed(ctx, "command name is dynamic: %s",
		            w0->text ? w0->text : name);
		return;
	}
	if (lp_is_reserved_word(name) && !t->test_keyword) {
		lp_unparsed(ctx, "reserved word '%s' used as a command name "
		                 "(misparse)", name);
		return;
	}
	if (w0->flags & (LOCUS_WORD_GLOB | LOCUS_WORD_BRACE)) {
		lp_unparsed(ctx, "command name is a glob or brace pattern: %s",
		            w0->text ? w0->text : name);
		return;
	}
	if (name[0] == '{') {
		lp_unparsed(ctx, "command name starts with '{' (brace "
		                 "expansion): %s", name);
		return;
	}
	if (!strcmp(name, "time") || !strcmp(name, "coproc")) {
		/* The grammar has no rule for `time { ..; }`, `coproc NAME
		   { ..; }`, `time ( .. )`: it reads them as words. */
		for (size_t i = 1; i < raw->nwords; i++) {
			const char *v = raw->words[i].value;
			if (!v)
				continue;
			if (lp_is_reserved_word(v) || v[0] == '(' ||
			    !strcmp(v, "((")) {
				lp_unparsed(ctx, "%s before a compound command "
				                 "(misparse)", name);
				return;
			}
		}
	}
}

typedef struct cframe {
	TSSymbol kind;
	uint32_t start, end;
	bool in_test;
	bool has_prev;
	uint32_t prev_end;
	char prev_last; /* last byte of the previous sibling */
	TSSymbol prev_kind;
} cframe;

typedef struct cstate {
	lp_tree *t;
	const char *delim; /* current heredoc's delimiter, unquoted */
	size_t delim_len;
	bool dash;         /* <<- */
	bool have_row;
	uint32_t last_row;
} cstate;

static bool quoted_kind(const lp_syms *sy, TSSymbol k)
{
	return k == sy->string || k == sy->raw_string ||
	       k == sy->ansi_c_string || k == sy->translated_string ||
	       k == sy->heredoc_body || k == sy->heredoc_content ||
	       k == sy->comment || k == sy->string_content;
}

static void check_gap(cstate *cs, const cframe *p, uint32_t s, uint32_t e,
                      char next_first, TSSymbol next_kind)
{
	lp_tree *t = cs->t;
	const lp_syms *sy = t->sy;
	if (e > t->len)
		e = (uint32_t)t->len;
	if (s >= e || quoted_kind(sy, p->kind))
		return;
	const char *g = t->src + s;
	size_t n = e - s;
	for (size_t i = 0; i < n; i++) {
		char c = g[i];
		if (c == '\r' || c == '\v' || c == '\f') {
			lp_unparsed(t->ctx, "control character outside quotes "
			                    "at byte %zu", (size_t)s + i);
			return;
		}
		if (c == '\n' && (i == 0 || g[i - 1] != '\\') &&
		    (p->kind == sy->command || p->kind == sy->file_redirect)) {
			lp_unparsed(t->ctx, "newline inside a command at byte "
			                    "%zu (misparse)", (size_t)s + i);
			return;
		}
	}
	/* Research S1: `r\<newline>m` is one word to bash, two to
	   tree-sitter.  A gap made only of line continuations between two
	   non-blank, non-operator bytes joins words. */
	if (!p->has_prev || p->kind == sy->concatenation || n < 2 || n % 2)
		return;
	for (size_t i = 0; i < n; i += 2)
		if (g[i] != '\\' || g[i + 1] != '\n')
			return;
	/* Words of one command joined by continuations are joined by the
	   walk (emit_command), as bash does; only redirects and
	   assignments next to the join are left to fail closed. */
	if (p->kind == sy->command && p->prev_kind != sy->file_redirect &&
	    p->prev_kind != sy->herestring_redirect &&
	    p->prev_kind != sy->variable_assignment &&
	    next_kind != sy->file_redirect &&
	    next_kind != sy->herestring_redirect &&
	    next_kind != sy->variable_assignment)
		return;
	static const char sep[] = " \t\n;&|()";
	if (!p->prev_last || strchr(sep, p->prev_last) || !next_first ||
	    strchr(sep, next_first))
		return;
	lp_unparsed(t->ctx, "line continuation inside a word at byte %u", s);
}

/* Heredoc delimiter as written: NAME, 'NAME', "NAME" or \NAME, with NAME
   in [A-Za-z0-9_.-]+.  Anything else the scanner may read differently
   from bash (research S4). */
static bool delim_shape(const char *s, size_t n, const char **d, size_t *dn)
{
	if (n >= 2 && (s[0] == '\'' || s[0] == '"') && s[n - 1] == s[0]) {
		s++;
		n -= 2;
	} else if (n >= 1 && s[0] == '\\') {
		s++;
		n--;
	}
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-'))
			return false;
	}
	*d = s;
	*dn = n;
	return true;
}

static void visit(cstate *cs, TSNode n, const cframe *p, bool in_test)
{
	lp_tree *t = cs->t;
	lp_ctx *ctx = t->ctx;
	const lp_syms *sy = t->sy;
	TSSymbol k = ts_node_symbol(n);
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	if (e > t->len)
		e = (uint32_t)t->len;
	if (s > e)
		s = e;
	(void)p;
	if (!ts_node_is_named(n)) {
		if (t->src[s] == '<' && (e - s == 2 || e - s == 3) &&
		    t->src[s + 1] == '<' && (e - s == 2 || t->src[s + 2] == '-'))
			cs->dash = e - s == 3;
		return;
	}
	if (in_test && (k == sy->command || k == sy->redirected_statement)) {
		lp_unparsed(ctx, "a command inside a test expression at byte "
		                 "%u (misparse)", s);
		return;
	}
	if (k == sy->heredoc_start) {
		TSPoint pt = ts_node_start_point(n);
		if (cs->have_row && pt.row == cs->last_row) {
			lp_unparsed(ctx, "more than one heredoc on one line");
			return;
		}
		cs->have_row = true;
		cs->last_row = pt.row;
		if (!delim_shape(t->src + s, e - s, &cs->delim,
		                 &cs->delim_len)) {
			lp_unparsed(ctx, "unusual heredoc delimiter at byte %u",
			            s);
			cs->delim = NULL;
		}
		return;
	}
	if (k == sy->heredoc_end) {
		if (!cs->delim || cs->delim_len != e - s ||
		    memcmp(cs->delim, t->src + s, e - s) != 0) {
			lp_unparsed(ctx, "heredoc end at byte %u does not match "
			                 "its delimiter", s);
			return;
		}
		if (e < t->len && t->src[e] != '\n') {
			lp_unparsed(ctx, "text after a heredoc delimiter at "
			                 "byte %u", e);
			return;
		}
		/* bash wants the delimiter alone on its line; <<- strips
		   tabs only (the scanner also strips spaces). */
		uint32_t b = s;
		while (b > 0 && t->src[b - 1] != '\n') {
			if (!cs->dash || t->src[b - 1] != '\t') {
				lp_unparsed(ctx, "heredoc delimiter at byte %u "
				                 "is not alone on its line", s);
				return;
			}
			b--;
		}
		return;
	}
	if (k == sy->command_substitution && t->src[s] == '`') {
		const char *txt = t->src + s;
		size_t len = e - s;
		if (memchr(txt, '\n', len)) {
			lp_unparsed(ctx, "backtick substitution spanning lines "
			                 "at byte %u", s);
			return;
		}
		for (size_t i = 0; i + 1 < len; i++) {
			if (txt[i] == '\\' && txt[i + 1] == '`') {
				lp_unparsed(ctx, "escaped backticks inside a "
				                 "backtick substitution at byte "
				                 "%u", s);
				return;
			}
		}
	}
}

static uint32_t first_error_byte(TSNode root)
{
	TSTreeCursor c = ts_tree_cursor_new(root);
	uint32_t at = ts_node_start_byte(root);
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&c);
		if (ts_node_is_error(n) || ts_node_is_missing(n)) {
			at = ts_node_start_byte(n);
			break;
		}
		/* Only descend where the error is. */
		if (ts_node_has_error(n) && ts_tree_cursor_goto_first_child(&c))
			continue;
		bool done = false;
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) {
				done = true;
				break;
			}
		}
		if (done)
			break;
	}
	ts_tree_cursor_delete(&c);
	return at;
}

void lp_checks_tree(lp_tree *t, TSNode root)
{
	lp_ctx *ctx = t->ctx;
	const lp_syms *sy = t->sy;
	if (ts_node_has_error(root))
		lp_unparsed(ctx, "the parser found a syntax error at byte %u%s",
		            first_error_byte(root),
		            t->top ? "" : " of a nested script");

	cstate cs;
	memset(&cs, 0, sizeof cs);
	cs.t = t;
	/* Bytes outside the root (leading/trailing blanks) */
	{
		cframe outer = {0};
		outer.kind = sy->program;
		check_gap(&cs, &outer, 0, ts_node_start_byte(root), 0, 0);
		check_gap(&cs, &outer, ts_node_end_byte(root), (uint32_t)t->len,
		          0, 0);
	}

	size_t cap = 64, depth = 0;
	cframe *st = malloc(cap * sizeof *st);
	if (!st) {
		lp_unparsed(ctx, "out of memory");
		return;
	}
	TSTreeCursor c = ts_tree_cursor_new(root);
	for (;;) {
		if (lp_out_of_time(ctx))
			break;
		TSNode n = ts_tree_cursor_current_node(&c);
		TSSymbol k = ts_node_symbol(n);
		uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
		if (e > t->len)
			e = (uint32_t)t->len;
		if (s > e)
			s = e;
		bool in_test = depth > 0 && st[depth - 1].in_test;
		if (depth > 0) {
			cframe *p = &st[depth - 1];
			uint32_t gs = p->has_prev ? p->prev_end : p->start;
			check_gap(&cs, p, gs, s, s < t->len ? t->src[s] : 0, k);
			p->has_prev = true;
			p->prev_kind = k;
			p->prev_end = e;
			p->prev_last = e > s ? t->src[e - 1] : 0;
		}
		visit(&cs, n, depth > 0 ? &st[depth - 1] : NULL, in_test);
		st[depth] = (cframe){.kind = k,
		                     .start = s,
		                     .end = e,
		                     /* substitutions inside [[ ]] are
		                        ordinary commands */
		                     .in_test = ts_node_is_named(n) &&
		                                (k == sy->test_command ||
		                                 (in_test &&
		                                  k != sy->command_substitution &&
		                                  k != sy->process_substitution))};
		if (ts_tree_cursor_goto_first_child(&c)) {
			if (depth + 2 > cap) {
				cframe *ns = realloc(st, cap * 2 * sizeof *st);
				if (!ns) {
					lp_unparsed(ctx, "out of memory");
					break;
				}
				st = ns;
				cap *= 2;
			}
			depth++;
			continue;
		}
		bool done = false;
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (depth == 0 || !ts_tree_cursor_goto_parent(&c)) {
				done = true;
				break;
			}
			depth--;
			/* trailing gap inside the node we leave */
			cframe *f = &st[depth];
			if (f->has_prev)
				check_gap(&cs, f, f->prev_end, f->end, 0, 0);
		}
		if (done)
			break;
	}
	ts_tree_cursor_delete(&c);
	free(st);
}
