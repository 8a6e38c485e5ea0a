/*
 * parser/plaintext.c - substitutions in text the grammar leaves plain.
 *
 * tree-sitter-bash reads the operand of `${x:-WORD}`, `${x#PAT}`,
 * `${x/PAT/REP}`, `${x^^PAT}`... and the patterns and regexes of `[[ ]]`
 * as leaf nodes (word, regex, extglob_pattern) with no children, so a
 * backtick, `$(..)` or `<(..)` inside them is invisible to the walk; bash
 * expands them (checked in a sandbox: `echo ${x:-`cmd`}`, `"${x/a/`cmd`}"`,
 * `${x-<(cmd)}`, `[[ a =~ x`cmd` ]]`, the same in heredoc bodies and
 * herestrings).  Each substitution found in such a leaf is parsed as a
 * script of its own (origin substitution / process-substitution) under
 * the command holding the word.
 *
 * Quoting inside the leaf: a backslash escapes the next byte; single
 * quotes quote only outside double quotes (inside "${x:-'$(cmd)'}" they are
 * literal characters and the substitution runs); `<(..)` is a process
 * substitution only outside double quotes.
 */
#include <string.h>

#include "walk.h"

/* End of a `$(`/`<(` body starting at s[i] (just after the parenthesis):
   the index of its closing parenthesis, or n when unterminated. */
static size_t paren_end(const char *s, size_t i, size_t n)
{
	int depth = 1;
	for (; i < n; i++) {
		char c = s[i];
		if (c == '\\') {
			i++;
		} else if (c == '\'') {
			const char *q = memchr(s + i + 1, '\'', n - i - 1);
			if (!q)
				return n;
			i = (size_t)(q - s);
		} else if (c == '(') {
			depth++;
		} else if (c == ')' && --depth == 0) {
			return i;
		}
	}
	return n;
}

/* The body of a backtick substitution: `\\`, \` and \$ lose their
   backslash (bash's rule inside backticks). */
static void backtick_body(lp_ctx *ctx, const char *s, size_t n, lp_buf *b)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && strchr("\\`$", s[i + 1]))
			i++;
		lp_buf_putc(ctx->arena, b, s[i]);
	}
}

bool lp_text_substs(lp_ctx *ctx, const char *s, size_t n, bool quoted,
                    size_t parent, unsigned depth)
{
	bool found = false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\\') {
			i++;
			continue;
		}
		if (c == '\'' && !quoted) {
			const char *q = memchr(s + i + 1, '\'', n - i - 1);
			if (!q)
				break;
			i = (size_t)(q - s);
			continue;
		}
		if (c == '`') {
			size_t j = i + 1;
			while (j < n && s[j] != '`')
				j += s[j] == '\\' ? 2 : 1;
			if (j >= n) {
				lp_unparsed(ctx,
				            "unterminated backtick in a word "
				            "the grammar left as text");
				return true;
			}
			lp_buf b = {0};
			backtick_body(ctx, s + i + 1, j - i - 1, &b);
			lp_parse_nested(ctx, lp_buf_cstr(ctx->arena, &b), b.len,
			                LOCUS_ORIGIN_SUBSTITUTION, parent,
			                depth);
			found = true;
			i = j;
			continue;
		}
		bool cmd = c == '$' && i + 1 < n && s[i + 1] == '(' &&
		           !(i + 2 < n && s[i + 2] == '(');
		bool proc = !quoted && (c == '<' || c == '>') && i + 1 < n &&
		            s[i + 1] == '(';
		if (!cmd && !proc)
			continue; /* $(( )): its inside is scanned on */
		size_t j = paren_end(s, i + 2, n);
		if (j >= n) {
			lp_unparsed(ctx,
			            "unterminated substitution in a word the "
			            "grammar left as text");
			return true;
		}
		lp_parse_nested(ctx, s + i + 2, j - i - 2,
		                proc ? LOCUS_ORIGIN_PROCESS_SUBSTITUTION
		                     : LOCUS_ORIGIN_SUBSTITUTION,
		                parent, depth);
		found = true;
		i = j;
	}
	return found;
}

/* The leaf sits in double quotes or an unquoted heredoc body (up to the
   nearest substitution, which starts a new quoting context). */
static bool leaf_quoted(const lp_syms *sy, TSNode n)
{
	for (TSNode p = ts_node_parent(n); !ts_node_is_null(p);
	     p = ts_node_parent(p)) {
		TSSymbol k = ts_node_symbol(p);
		if (k == sy->string || k == sy->heredoc_body)
			return true;
		if (k == sy->command_substitution ||
		    k == sy->process_substitution || k == sy->program)
			return false;
	}
	return false;
}

bool lp_leaf_substs(lp_tree *t, TSNode leaf, size_t parent, unsigned depth)
{
	uint32_t s = ts_node_start_byte(leaf), e = ts_node_end_byte(leaf);
	if (e > t->len || s >= e)
		return false;
	const char *txt = t->src + s;
	size_t n = e - s;
	if (!memchr(txt, '`', n) && !memchr(txt, '(', n))
		return false;
	return lp_text_substs(t->ctx, txt, n, leaf_quoted(t->sy, leaf), parent,
	                      depth);
}
