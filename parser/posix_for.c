/*
 * parser/posix_for.c - POSIX `for NAME do ... done`: no `in`, no terminator.
 *
 * bash and POSIX read `for i do BODY; done` as `for i in "$@"; do BODY;
 * done` (also `select i do`), but tree-sitter-bash wants `;` or a newline
 * before `do`.  When a script does not parse, each `for NAME<blanks>do`
 * outside quotes and comments has its last blank replaced by `;` (the same
 * length, so every byte offset stays), and the copy is parsed again.  The
 * new tree is kept only when it has no error and every replaced byte is the
 * terminator of a for or select statement: a rewrite that lands anywhere
 * else (a string the scan misread, a heredoc body) keeps the old tree and
 * the syntax error.
 */
#include <string.h>

#include "walk.h"

static bool name_byte(unsigned char c, bool first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && c >= '0' && c <= '9');
}

static bool blank(unsigned char c)
{
	return c == ' ' || c == '\t';
}

/* Bytes after which a reserved word may start a command. */
static bool command_start(const char *s, size_t i)
{
	if (i == 0)
		return true;
	return strchr(" \t\n;&|(){", s[i - 1]) != NULL;
}

/* The offset of the blank to replace when `for NAME<blanks>do<delim>`
   starts at s[i], else 0 (never a valid offset: `for` is before it). */
static size_t candidate(const char *s, size_t len, size_t i)
{
	size_t kw = 0;
	if (i + 3 <= len && !memcmp(s + i, "for", 3))
		kw = 3;
	else if (i + 6 <= len && !memcmp(s + i, "select", 6))
		kw = 6;
	if (!kw || !command_start(s, i))
		return 0;
	size_t j = i + kw;
	if (j >= len || !blank((unsigned char)s[j]))
		return 0;
	while (j < len && blank((unsigned char)s[j]))
		j++;
	if (j >= len || !name_byte((unsigned char)s[j], true))
		return 0;
	while (j < len && name_byte((unsigned char)s[j], false))
		j++;
	if (j >= len || !blank((unsigned char)s[j]))
		return 0;
	while (j < len && blank((unsigned char)s[j]))
		j++;
	if (j + 2 > len || memcmp(s + j, "do", 2))
		return 0;
	if (j + 2 < len && !strchr(" \t\n;&|()", s[j + 2]))
		return 0;
	return j - 1;
}

size_t lp_posix_for_rewrite(char *s, size_t len, uint32_t *offs, size_t max)
{
	size_t n = 0;
	char quote = 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (quote == '\'') {
			if (c == '\'')
				quote = 0;
			continue;
		}
		if (c == '\\') {
			i++;
			continue;
		}
		if (quote == '"') {
			if (c == '"')
				quote = 0;
			continue;
		}
		if (c == '\'' || c == '"') {
			quote = c;
			continue;
		}
		if (c == '#' && command_start(s, i)) {
			while (i < len && s[i] != '\n')
				i++;
			continue;
		}
		size_t b = candidate(s, len, i);
		if (!b)
			continue;
		if (n == max || b > UINT32_MAX)
			return 0; /* too many to verify: keep the error */
		s[b] = ';';
		offs[n++] = (uint32_t)b;
		i = b;
	}
	return n;
}

bool lp_posix_for_verify(const lp_syms *sy, TSNode root, const uint32_t *offs,
                         size_t n)
{
	if (ts_node_has_error(root))
		return false;
	size_t found = 0;
	lp_cursor cur;
	lp_cursor_init(&cur, root);
	bool enter = true;
	while (lp_cursor_next(&cur, enter)) {
		TSNode node = lp_cursor_node(&cur);
		enter = true;
		if (ts_node_symbol(node) != sy->for_statement)
			continue;
		uint32_t kids = ts_node_child_count(node);
		for (uint32_t k = 0; k < kids; k++) {
			TSNode kid = ts_node_child(node, k);
			if (ts_node_is_named(kid) ||
			    strcmp(ts_node_type(kid), ";"))
				continue;
			uint32_t at = ts_node_start_byte(kid);
			for (size_t m = 0; m < n; m++)
				if (offs[m] == at)
					found++;
		}
	}
	lp_cursor_free(&cur);
	return found == n;
}
