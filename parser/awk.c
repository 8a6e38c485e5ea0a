/*
 * parser/awk.c - the ways an awk program runs a command, each seen or not.
 *
 * Every awk (awk, gawk, mawk, nawk, busybox awk) runs `/bin/sh -c TEXT` for
 * system(TEXT), `print | TEXT`, `TEXT | getline` and gawk's `|&`
 * coprocess.  This scanner finds each such place and the lone string
 * literal it holds, which inline.c sees through as `sh -c`.  Anything else (a
 * variable, a concatenation, `-v c=...`, a regex alternation the scanner
 * cannot tell from a pipe, gawk's `@` directives and indirect calls
 * `@f()`, which reach system too) makes the program not fully seen, and
 * the caller marks the line unparsed.  Strings, regex literals and
 * comments are skipped; the scan is one pass over the program text.
 */
#include <string.h>

#include "seethrough.h"

static bool ident_byte(unsigned char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* A significant byte after which `/` starts a regex and a string starts an
   operand of its own (0: the start of the program). */
static bool operand_start(char prev)
{
	return prev == 0 || strchr("{};(,=!~&|\n?:", prev) != NULL;
}

/* The end of the string literal starting at s[i] (its closing quote), or
   len when unterminated. */
static size_t string_end(const char *s, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (s[i] == '\\' && i + 1 < len)
			i++;
		else if (s[i] == '"' || s[i] == '\n')
			return s[i] == '"' ? i : len;
	}
	return len;
}

/* The end of the regex literal starting at s[i] (its closing slash), or
   len. */
static size_t regex_end(const char *s, size_t len, size_t i)
{
	bool bracket = false;
	for (i++; i < len; i++) {
		char c = s[i];
		if (c == '\\' && i + 1 < len)
			i++;
		else if (c == '\n')
			return len;
		else if (bracket) {
			if (c == ']')
				bracket = false;
		} else if (c == '[') {
			bracket = true;
			if (i + 1 < len && s[i + 1] == ']')
				i++; /* []...] */
		} else if (c == '/')
			return i;
	}
	return len;
}

static size_t skip_blanks(const char *s, size_t len, size_t i)
{
	while (i < len && blank(s[i]))
		i++;
	return i;
}

/* At s[i]: a lone string literal closing an expression (`"cmd")`, `"cmd";`,
   `"cmd"}`, end of line or program): true, *end past it. */
static bool lone_literal(const char *s, size_t len, size_t i, const char *ends,
                         size_t *end)
{
	if (i >= len || s[i] != '"')
		return false;
	size_t e = string_end(s, len, i);
	if (e >= len)
		return false;
	size_t j = skip_blanks(s, len, e + 1);
	*end = e + 1;
	return j >= len || strchr(ends, s[j]) != NULL;
}

static bool word_at(const char *s, size_t len, size_t i, const char *w)
{
	size_t n = strlen(w);
	return i + n <= len && !memcmp(s + i, w, n) &&
	       (i == 0 || !ident_byte((unsigned char)s[i - 1])) &&
	       (i + n == len || !ident_byte((unsigned char)s[i + n]));
}

/* state of the scan: the last significant byte, and where the last string
   literal operand started (a `"cmd" | getline` check) */
typedef struct awk_scan {
	char prev;
	size_t lit_start, lit_end; /* lit_end: one past; 0 when none */
	char lit_prev;             /* the significant byte before it */
} awk_scan;

/* Record the literal s[start..end) (quotes included) as a command. */
static bool add_cmd(lp_awk_cmds *out, size_t start, size_t end, bool fed)
{
	if (out->n == LP_AWK_MAX_CMDS)
		return false;
	out->cmd[out->n++] = (lp_awk_cmd){start + 1, end - 1, fed};
	return true;
}

/* A pipe at s[i]: false when its command is not a lone literal. */
static bool pipe_seen(const char *s, size_t len, size_t i, const awk_scan *st,
                      lp_awk_cmds *out)
{
	size_t j = i + 1;
	if (j < len && s[j] == '&')
		j++;
	j = skip_blanks(s, len, j);
	if (word_at(s, len, j, "getline")) {
		/* the command is the operand left of the pipe */
		size_t k = i;
		while (k > 0 && blank(s[k - 1]))
			k--;
		return st->lit_end && k == st->lit_end &&
		       operand_start(st->lit_prev) &&
		       add_cmd(out, st->lit_start, st->lit_end, false);
	}
	size_t end;
	return lone_literal(s, len, j, ";}\n#)", &end) &&
	       add_cmd(out, j, end, true);
}

const char *lp_awk_commands(const char *s, lp_awk_cmds *out)
{
	size_t len = strlen(s);
	awk_scan st = {0, 0, 0, 0};
	out->n = 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (blank(c) ||
		    (c == '\\' && i + 1 < len && s[i + 1] == '\n')) {
			i += c == '\\';
			continue;
		}
		if (c == '#') {
			while (i < len && s[i] != '\n')
				i++;
			st.prev = '\n';
			continue;
		}
		if (c == '"') {
			size_t e = string_end(s, len, i);
			st.lit_prev = st.prev;
			st.lit_start = i;
			st.lit_end = e < len ? e + 1 : 0;
			i = e;
			st.prev = '"';
			continue;
		}
		if (c == '/' && operand_start(st.prev)) {
			i = regex_end(s, len, i);
			st.prev = '/';
			continue;
		}
		if (c == '@')
			return "a gawk @ directive or indirect call";
		if (c == '|') {
			if (i + 1 < len && s[i + 1] == '|') {
				i++;
				st.prev = '|';
				continue;
			}
			if (!pipe_seen(s, len, i, &st, out))
				return "a pipe to or from a command computed "
				       "at run time (or more than 64)";
			st.prev = '|';
			continue;
		}
		if (word_at(s, len, i, "system")) {
			size_t j = skip_blanks(s, len, i + 6), end;
			size_t lit = j < len ? skip_blanks(s, len, j + 1) : len;
			if (j >= len || s[j] != '(' ||
			    !lone_literal(s, len, lit, ")", &end) ||
			    !add_cmd(out, lit, end, false))
				return "system() of a command computed at run "
				       "time (or more than 64)";
			i += 5;
			st.prev = 'm';
			continue;
		}
		if (ident_byte((unsigned char)c)) {
			while (i + 1 < len &&
			       ident_byte((unsigned char)s[i + 1]))
				i++;
		}
		st.prev = c == '\n' ? '\n' : s[i];
	}
	return NULL;
}
