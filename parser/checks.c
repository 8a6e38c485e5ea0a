/*
 * parser/checks.c - fail-closed checks over the tree (docs/design.md,
 * "Fail-closed checks").
 *
 * tree-sitter-bash has valid lines it silently misreads: a command bash
 * runs shows up as an argument, a redirect target or heredoc text, with no
 * ERROR node.  Each check below spots one such shape from the tree or the
 * bytes and marks the line unparsed with the reason.  They err on the side
 * of firing: a false "unparsed" costs a question to a human, a missed one
 * costs a hidden command.
 *
 * This file holds the checks over the tree (checks_command.c those on one
 * command, passes.c those over the finished line).  They are visitors of
 * the one tree pass (treepass.c): lp_checks_begin() before it,
 * lp_checks_node() as each node is reached, lp_checks_leave() once its
 * children are done.  Each node's frame remembers the previous child so
 * that the bytes *between* siblings (the gaps, where tree-sitter put
 * whitespace, line continuations and control characters it skipped) can
 * be checked.
 */
#include <string.h>

#include "walk.h"

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

bool lp_gap_dashes(const char *src, uint32_t s, uint32_t e, uint32_t *pos,
                   size_t max, size_t *n)
{
	*n = 0;
	for (uint32_t i = s; i < e; i++) {
		char c = src[i];
		if (blank(c))
			continue;
		if (c == '\\' && i + 1 < e && src[i + 1] == '\n') {
			i++;
			continue;
		}
		/* a whole word: a blank of the gap on either side */
		if (c != '-' || i == s || i + 1 >= e || !blank(src[i - 1]) ||
		    !blank(src[i + 1]))
			return false;
		if (*n < max)
			pos[*n] = i;
		++*n;
	}
	return true;
}

/* Bytes of a gap that are not blanks: text tree-sitter-bash dropped from
   the tree (docs/design.md "Fail-closed checks": what the tree leaves out
   bash still runs).  Lone `-` words between the children of a
   redirected_statement around a simple command are the one drop the walk
   restores (lp_gap_dashes); anything else fails closed.  The `16#` of a
   `number` in arithmetic is its base, not a drop. */
static void check_dropped(lp_tree *t, const lp_tnode *p, uint32_t s, uint32_t e)
{
	const lp_syms *sy = t->sy;
	if (p->kind == sy->number)
		return;
	uint32_t pos[1];
	size_t nd;
	bool dashes = lp_gap_dashes(t->src, s, e, pos, 1, &nd);
	if (dashes && nd == 0)
		return;
	if (dashes && p->kind == sy->redirected_statement) {
		TSNode body = ts_node_named_child(p->node, 0);
		if (!ts_node_is_null(body) &&
		    ts_node_symbol(body) == sy->command)
			return;
	}
	uint32_t at = s;
	while (at < e &&
	       (blank(t->src[at]) || t->src[at] == '\\' || t->src[at] == '\n'))
		at++;
	lp_unparsed(t->ctx,
	            "text at byte %u is missing from the parse tree "
	            "(misparse)",
	            at);
}

static void check_gap(lp_tree *t, const lp_tnode *p, uint32_t s, uint32_t e,
                      char next_first, TSSymbol next_kind)
{
	const lp_syms *sy = t->sy;
	if (e > t->len)
		e = (uint32_t)t->len;
	if (s >= e || lp_kind_is(sy, p->kind, LP_KIND_QUOTED))
		return;
	const char *g = t->src + s;
	size_t n = e - s;
	for (size_t i = 0; i < n; i++) {
		char c = g[i];
		if (c == '\r' || c == '\v' || c == '\f') {
			lp_unparsed(t->ctx,
			            "control character outside quotes "
			            "at byte %zu",
			            (size_t)s + i);
			return;
		}
		if (c == '\n' && (i == 0 || g[i - 1] != '\\') &&
		    (p->kind == sy->command || p->kind == sy->file_redirect)) {
			lp_unparsed(t->ctx,
			            "newline inside a command at byte "
			            "%zu (misparse)",
			            (size_t)s + i);
			return;
		}
		if (!blank(c) && c != '\n' &&
		    !(c == '\\' && i + 1 < n && g[i + 1] == '\n')) {
			check_dropped(t, p, s, e);
			return;
		}
		/* the pieces of one word touch (or are joined by line
		   continuations): a blank between them is two words the
		   grammar glued (`$"-"- $"a."c` read as one) */
		if (p->kind == sy->concatenation && c != '\\' &&
		    !(c == '\n' && i > 0 && g[i - 1] == '\\')) {
			lp_unparsed(t->ctx,
			            "a blank inside a word at byte %zu "
			            "(misparse)",
			            (size_t)s + i);
			return;
		}
	}
	/* Misparse S1 (docs/design.md): `r\<newline>m` is one word to bash, two to
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
   from bash (misparse S4, docs/design.md). */
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

/* ${x@P}, ${a[@]@P}: the `@` operator followed by P. */
static bool prompt_expansion(lp_tree *t, TSNode n)
{
	uint32_t cc = ts_node_child_count(n);
	for (uint32_t i = 0; i + 1 < cc; i++) {
		TSNode a = ts_node_child(n, i), b = ts_node_child(n, i + 1);
		uint32_t as = ts_node_start_byte(a), bs = ts_node_start_byte(b);
		if (ts_node_is_named(a) || ts_node_is_named(b) ||
		    ts_node_end_byte(a) != as + 1 || bs >= t->len ||
		    ts_node_end_byte(b) != bs + 1)
			continue;
		if (t->src[as] == '@' && t->src[bs] == 'P')
			return true;
	}
	return false;
}

/* Nodes whose text bash evaluates as arithmetic: $(( )), $[ ], (( )),
   for (( )), and the index of a subscript. */
static bool arith_context(lp_tree *t, TSNode n)
{
	const lp_syms *sy = t->sy;
	TSSymbol k = ts_node_symbol(n);
	if (k == sy->arithmetic_expansion || k == sy->c_style_for_statement ||
	    k == sy->subscript)
		return true;
	if (k == sy->compound_statement) {
		uint32_t s = ts_node_start_byte(n);
		return s + 1 < t->len && t->src[s] == '(' &&
		       t->src[s + 1] == '(';
	}
	return false;
}

static bool has_code_text(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '`' ||
		    (s[i] == '$' && i + 1 < n && s[i + 1] == '('))
			return true;
	return false;
}

/* Research (oracle): inside arithmetic single quotes do not quote, and
   text that reads `$(`/a backtick after the first expansion is expanded
   again when it lands in a subscript.  A literal node holding such text
   (single quotes, $'..' once decoded, an escaped \$( or \`) is code we
   cannot see.  Real substitutions are command_substitution nodes and are
   walked as usual. */
static bool arith_literal_code(lp_tree *t, TSNode n)
{
	const lp_syms *sy = t->sy;
	TSSymbol k = ts_node_symbol(n);
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	if (e > t->len || s >= e)
		return false;
	const char *txt = t->src + s;
	size_t len = e - s;
	if (k == sy->raw_string)
		return has_code_text(txt, len);
	if (k == sy->ansi_c_string) {
		lp_buf out = {0};
		if (len < 3 ||
		    !lp_ansi_c_decode(t->ctx->arena, &out, txt + 2, len - 3))
			return true;
		return out.data && has_code_text(out.data, out.len);
	}
	if (k == sy->command_substitution || k == sy->process_substitution ||
	    ts_node_child_count(n) > 0)
		return false; /* children are visited on their own */
	for (size_t i = 0; i + 1 < len; i++)
		if (txt[i] == '\\' &&
		    (txt[i + 1] == '`' ||
		     (txt[i + 1] == '$' && i + 2 < len && txt[i + 2] == '(')))
			return true;
	return false;
}


/* An unquoted word never holds a raw newline in bash (only
   `\<newline>`, which is removed).  The scanner makes one of a heredoc
   body line starting with a backslash: `sh <<'E'` / `\rm -rf /` / `E`
   (fuzz_bypass). */
static bool word_newline(lp_tree *t, uint32_t s, uint32_t e)
{
	for (uint32_t i = s; i < e; i++)
		if (t->src[i] == '\n' && (i == s || t->src[i - 1] != '\\')) {
			lp_unparsed(t->ctx,
			            "newline inside a word at byte "
			            "%u (misparse)",
			            i);
			return true;
		}
	return false;
}

static void heredoc_start(lp_tree *t, lp_checks_state *cs, const lp_tnode *f)
{
	uint32_t s = f->start, e = f->end;
	TSPoint pt = ts_node_start_point(f->node);
	if (cs->have_row && pt.row == cs->last_row) {
		lp_unparsed(t->ctx, "more than one heredoc on one line");
		return;
	}
	cs->have_row = true;
	cs->last_row = pt.row;
	if (!delim_shape(t->src + s, e - s, &cs->delim, &cs->delim_len)) {
		lp_unparsed(t->ctx, "unusual heredoc delimiter at byte %u", s);
		cs->delim = NULL;
	}
}

static void heredoc_end(lp_tree *t, const lp_checks_state *cs,
                        const lp_tnode *f)
{
	lp_ctx *ctx = t->ctx;
	uint32_t s = f->start, e = f->end;
	if (!cs->delim || cs->delim_len != e - s ||
	    memcmp(cs->delim, t->src + s, e - s) != 0) {
		lp_unparsed(ctx,
		            "heredoc end at byte %u does not match "
		            "its delimiter",
		            s);
		return;
	}
	if (e < t->len && t->src[e] != '\n') {
		lp_unparsed(ctx, "text after a heredoc delimiter at byte %u",
		            e);
		return;
	}
	/* bash wants the delimiter alone on its line; <<- strips tabs
	   only (the scanner also strips spaces). */
	uint32_t b = s;
	while (b > 0 && t->src[b - 1] != '\n') {
		if (!cs->dash || t->src[b - 1] != '\t') {
			lp_unparsed(ctx,
			            "heredoc delimiter at byte %u is not "
			            "alone on its line",
			            s);
			return;
		}
		b--;
	}
}

static void backtick_subst(lp_tree *t, uint32_t s, uint32_t e)
{
	const char *txt = t->src + s;
	size_t len = e - s;
	if (memchr(txt, '\n', len)) {
		lp_unparsed(t->ctx,
		            "backtick substitution spanning lines at "
		            "byte %u",
		            s);
		return;
	}
	for (size_t i = 0; i + 1 < len; i++) {
		if (txt[i] == '\\' && txt[i + 1] == '`') {
			lp_unparsed(t->ctx,
			            "escaped backticks inside a backtick "
			            "substitution at byte %u",
			            s);
			return;
		}
	}
}

/*
 * After a quoted part the grammar ends a concatenation with a lone `$`
 * and reads the name after it as a node of its own (`"a"b$x,`: bash
 * expands $x).  In a command's words the walk glues the two and word.c
 * keeps the expansion; anywhere else (`y="a"b$x, ls` reads as y=ab$ and
 * a command `x,`; redirect targets, for lists, arrays) the tree is wrong:
 * unparsed.
 */
static void lone_dollar(lp_tree *t, const lp_tnode *f, const lp_tnode *p)
{
	const lp_syms *sy = t->sy;
	if (!p || p->kind != sy->concatenation || f->end != f->start + 1 ||
	    t->src[f->start] != '$' || f->end != p->end ||
	    !lp_starts_name(t->src + f->end, t->len - f->end))
		return;
	TSNode up = ts_node_parent(p->node);
	TSSymbol k = ts_node_is_null(up) ? 0 : ts_node_symbol(up);
	if (k == sy->command || k == sy->command_name)
		return;
	lp_unparsed(t->ctx,
	            "a `$` the grammar splits from the name it expands at "
	            "byte %u (misparse)",
	            f->start);
}

/* The checks on one node, in this order (the first reason is kept). */
static void visit(lp_tree *t, lp_checks_state *cs, const lp_tnode *f,
                  const lp_tnode *p)
{
	lp_ctx *ctx = t->ctx;
	const lp_syms *sy = t->sy;
	TSSymbol k = f->kind;
	uint32_t s = f->start, e = f->end;
	if (!f->named) {
		lone_dollar(t, f, p);
		/* `-<<` and `-<<-` are one token to tree-sitter-bash: a word
		   `-` (restored by the walk) and the operator */
		if (e - s >= 3 && t->src[s] == '-' && t->src[s + 1] == '<')
			s++;
		if (t->src[s] == '<' && (e - s == 2 || e - s == 3) &&
		    t->src[s + 1] == '<' &&
		    (e - s == 2 || t->src[s + 2] == '-'))
			cs->dash = e - s == 3;
		return;
	}
	if (p && p->in_test &&
	    (k == sy->command || k == sy->redirected_statement)) {
		lp_unparsed(ctx,
		            "a command inside a test expression at byte "
		            "%u (misparse)",
		            s);
		return;
	}
	if (k == sy->expansion && prompt_expansion(t, f->node)) {
		lp_unparsed(ctx,
		            "${..@P} at byte %u expands a prompt (runs "
		            "command substitutions in the value)",
		            s);
		return;
	}
	if (((p && p->in_arith) || arith_context(t, f->node)) &&
	    arith_literal_code(t, f->node)) {
		lp_unparsed(ctx,
		            "quoted command text inside arithmetic at "
		            "byte %u (bash expands it)",
		            s);
		return;
	}
	if (k == sy->word && word_newline(t, s, e))
		return;
	if (k == sy->heredoc_start)
		heredoc_start(t, cs, f);
	else if (k == sy->heredoc_end)
		heredoc_end(t, cs, f);
	else if (k == sy->command_substitution && t->src[s] == '`')
		backtick_subst(t, s, e);
}

static uint32_t first_error_byte(TSNode root)
{
	lp_cursor c;
	lp_cursor_init(&c, root);
	uint32_t at = ts_node_start_byte(root);
	for (bool more = true; more;) {
		TSNode n = lp_cursor_node(&c);
		if (ts_node_is_error(n) || ts_node_is_missing(n)) {
			at = ts_node_start_byte(n);
			break;
		}
		/* Only descend where the error is. */
		more = lp_cursor_next(&c, ts_node_has_error(n));
	}
	lp_cursor_free(&c);
	return at;
}

/*
 * Backslash-newline is removed by bash before tokens are formed, also
 * inside double quotes and unquoted heredoc bodies, where the grammar
 * keeps it: `"$\<newline>(cmd)"` runs cmd, `"$\<newline>X"` expands X
 * (checked in a sandbox).  A `$` followed by line continuations and then
 * anything that can follow `$` in an expansion is a join the grammar does
 * not see: fail closed.  (Between other characters the join is done by
 * the walk for words, and is harmless inside quotes: "a\<newline>b".)
 */
static void check_dollar_continuation(lp_tree *t)
{
	const char *s = t->src;
	size_t n = t->len;
	for (size_t i = 0; i + 2 < n; i++) {
		if (s[i] == '\\') {
			i++; /* an escaped byte, `\$` included */
			continue;
		}
		if (s[i] != '$' || s[i + 1] != '\\' || s[i + 2] != '\n')
			continue;
		size_t j = i + 1;
		while (j + 1 < n && s[j] == '\\' && s[j + 1] == '\n')
			j += 2;
		if (j < n && !strchr(" \t\n\"'", s[j])) {
			lp_unparsed(t->ctx,
			            "a line continuation after $ at byte "
			            "%zu joins an expansion the grammar "
			            "does not see",
			            i);
			return;
		}
	}
}

void lp_checks_begin(lp_tree *t, lp_checks_state *cs, TSNode root)
{
	memset(cs, 0, sizeof *cs);
	check_dollar_continuation(t);
	if (ts_node_has_error(root))
		lp_unparsed(t->ctx,
		            "the parser found a syntax error at byte %u%s",
		            first_error_byte(root),
		            t->top ? "" : " of a nested script");
	/* Bytes outside the root (leading/trailing blanks) */
	lp_tnode outer;
	memset(&outer, 0, sizeof outer);
	outer.kind = t->sy->program;
	check_gap(t, &outer, 0, ts_node_start_byte(root), 0, 0);
	check_gap(t, &outer, ts_node_end_byte(root), (uint32_t)t->len, 0, 0);
}

/* A word of a command line: a name, an assignment or an argument. */
static bool word_like(const lp_syms *sy, TSSymbol k)
{
	return k == sy->command_name || k == sy->variable_assignment ||
	       (lp_kind_is(sy, k, LP_KIND_TEST_WORD) &&
	        k != sy->test_operator && k != sy->regex);
}

/*
 * Misparse S10 (docs/design.md): two words of one command with no byte
 * between them are one word to bash (the grammar joins touching pieces
 * into a concatenation).  The grammar splits `x=z$E$E/b rm -rf /` after
 * the second `$`: assignment `x=z$E$`, command `E/b`, and the rm becomes
 * its argument (found by fuzz_fastpath, where the fast path reads the
 * line as bash does).  A redirect may touch a word (`a>b`), so only
 * words are compared, and a name or argument touching the next is left to
 * the walk, which joins them (S1).
 */
static void check_split_word(lp_tree *t, const lp_tnode *p, uint32_t s,
                             TSSymbol k)
{
	const lp_syms *sy = t->sy;
	if (p->kind != sy->command || !p->has_prev || p->prev_end != s ||
	    !word_like(sy, p->prev_kind) || !word_like(sy, k))
		return;
	/* the name and arguments that touch are joined by the walk (S1's
	   rule: `'r'\m -rf x` runs rm); an assignment is not */
	if (p->prev_kind != sy->variable_assignment &&
	    k != sy->variable_assignment)
		return;
	lp_unparsed(t->ctx,
	            "two words of one command touch at byte %u: the "
	            "grammar split one word (misparse)",
	            s);
}

void lp_checks_node(lp_tree *t, lp_checks_state *cs, lp_tnode *f, lp_tnode *p)
{
	const lp_syms *sy = t->sy;
	TSSymbol k = f->kind;
	uint32_t s = f->start, e = f->end;
	if (p) {
		/* the gap before this child */
		uint32_t gs = p->has_prev ? p->prev_end : p->start;
		check_gap(t, p, gs, s, s < t->len ? t->src[s] : 0, k);
		if (f->named)
			check_split_word(t, p, s, k);
		p->has_prev = true;
		p->prev_kind = k;
		p->prev_end = e;
		p->prev_last = e > s ? t->src[e - 1] : 0;
	}
	visit(t, cs, f, p);
	bool in_test = p && p->in_test;
	/* substitutions inside [[ ]] are ordinary commands */
	f->in_test = f->named && (k == sy->test_command ||
	                          (in_test && k != sy->command_substitution &&
	                           k != sy->process_substitution));
	/* a substitution inside arithmetic is a script of its own */
	f->in_arith = k != sy->command_substitution &&
	              k != sy->process_substitution &&
	              ((p && p->in_arith) || arith_context(t, f->node));
}

void lp_checks_leave(lp_tree *t, const lp_tnode *f)
{
	/* the trailing gap inside the node left */
	if (f->has_prev)
		check_gap(t, f, f->prev_end, f->end, 0, 0);
}
