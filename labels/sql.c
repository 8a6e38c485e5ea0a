/*
 * labels/sql.c - the SQL classifier: does statement text given inline to
 * a database client destroy data?  (DROP, TRUNCATE, ALTER ...
 * DROP, FLUSHALL/FLUSHDB, dropDatabase(), drop(), deleteMany({});
 * DELETE and UPDATE ... SET with or without WHERE, MongoDB's
 * deleteMany, deleteOne, remove, the update and replace calls with any filter: a filter
 * narrows what is deleted or overwritten, it does not make it harmless,
 * and `DELETE FROM users WHERE id=1` is what a person wants to see.)
 *
 * A small tokenizer, not a SQL parser: string literals, quoted
 * identifiers, dollar quotes and comments are skipped, words are compared
 * ignoring case, statements end at `;`.  It errs towards "destroys".
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "pack.h"

typedef struct lexer {
	const char *s;
	size_t n, i;
} lexer;

static bool is_word_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_word_char(char c)
{
	return is_word_start(c) || (c >= '0' && c <= '9') || c == '$';
}

/* Skip a quoted run starting at lx->i (quote q); '' and \x escapes. */
static void skip_quoted(lexer *lx, char q)
{
	lx->i++;
	while (lx->i < lx->n) {
		char c = lx->s[lx->i++];
		if (c == '\\' && q != '"' && lx->i < lx->n) {
			lx->i++;
		} else if (c == q) {
			if (lx->i < lx->n && lx->s[lx->i] == q)
				lx->i++; /* doubled quote */
			else
				return;
		}
	}
}

/* $tag$ ... $tag$ (PostgreSQL); returns false if not a dollar quote. */
static bool skip_dollar(lexer *lx)
{
	size_t j = lx->i + 1;
	while (j < lx->n && is_word_char(lx->s[j]) && lx->s[j] != '$')
		j++;
	if (j >= lx->n || lx->s[j] != '$')
		return false;
	size_t tag = j - lx->i + 1;
	const char *t = lx->s + lx->i;
	for (size_t k = j + 1; k + tag <= lx->n; k++)
		if (memcmp(lx->s + k, t, tag) == 0) {
			lx->i = k + tag;
			return true;
		}
	lx->i = lx->n;
	return true;
}

/* The next token: a word (*len > 0, returns its start), ";" (returns
   ";" with *len 0), or NULL at the end. */
static const char *next_token(lexer *lx, size_t *len)
{
	while (lx->i < lx->n) {
		char c = lx->s[lx->i];
		if (c == '\'' || c == '"' || c == '`') {
			skip_quoted(lx, c);
		} else if (c == '-' && lx->i + 1 < lx->n &&
		           lx->s[lx->i + 1] == '-') {
			while (lx->i < lx->n && lx->s[lx->i] != '\n')
				lx->i++;
		} else if (c == '/' && lx->i + 1 < lx->n &&
		           lx->s[lx->i + 1] == '*') {
			const char *e = NULL;
			for (size_t k = lx->i + 2; k + 1 < lx->n; k++)
				if (lx->s[k] == '*' && lx->s[k + 1] == '/') {
					e = lx->s + k + 2;
					break;
				}
			lx->i = e ? (size_t)(e - lx->s) : lx->n;
		} else if (c == '$' && skip_dollar(lx)) {
			continue;
		} else if (c == ';') {
			lx->i++;
			*len = 0;
			return ";";
		} else if (is_word_start(c)) {
			size_t st = lx->i;
			while (lx->i < lx->n && is_word_char(lx->s[lx->i]))
				lx->i++;
			*len = lx->i - st;
			return lx->s + st;
		} else {
			lx->i++;
		}
	}
	return NULL;
}

static bool kw(const char *w, size_t n, const char *k)
{
	size_t m = strlen(k);
	if (n != m)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = w[i];
		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		if (c != k[i])
			return false;
	}
	return true;
}

/* Words that destroy wherever they appear as keywords. */
static const char *const always[] = {
    "DROP", "TRUNCATE", "FLUSHALL", "FLUSHDB", "SHUTDOWN", "DROPDB", NULL,
};

static bool sql_words_destroy(const char *text, size_t len)
{
	lexer lx = {text, len, 0};
	const char *w;
	size_t n;
	const char *prev = ";";
	size_t prev_n = 0;
	/* In the current statement: a DELETE, or an UPDATE (with SET). */
	bool pending = false, update = false, set_seen = false;
	bool first = true;
	for (;;) {
		w = next_token(&lx, &n);
		if (!w || n == 0) {
			/* end of a statement */
			if (pending && (!update || set_seen))
				return true;
			if (!w)
				return false;
			pending = update = set_seen = false;
			first = true;
			prev = ";";
			prev_n = 0;
			continue;
		}
		for (const char *const *k = always; *k; k++)
			if (kw(w, n, *k))
				return true;
		bool after_on =
		    kw(prev, prev_n, "ON") || kw(prev, prev_n, "FOR") ||
		    kw(prev, prev_n, "GRANT") || kw(prev, prev_n, "REVOKE");
		if (kw(w, n, "DELETE") && !after_on) {
			pending = true;
			update = false;
		} else if (kw(w, n, "UPDATE") && !after_on) {
			pending = true;
			update = true;
			set_seen = false;
		} else if (kw(w, n, "SET")) {
			set_seen = true;
		} else if (first && (kw(w, n, "DEL") || kw(w, n, "UNLINK"))) {
			return true; /* redis: DEL key */
		}
		first = false;
		prev = w;
		prev_n = n;
	}
}

/* MongoDB shell: db.dropDatabase(), coll.drop(), deleteMany({}),
   remove({}), dropUser(), dropAllUsers()... `name(` with only blanks
   and an empty object or nothing inside. */
static bool call_at(const char *text, size_t len, const char *name,
                    bool empty_only)
{
	size_t m = strlen(name);
	for (size_t i = 0; i + m <= len; i++) {
		if (memcmp(text + i, name, m) != 0)
			continue;
		if (i > 0 && is_word_char(text[i - 1]) && name[0] != '.')
			continue;
		size_t j = i + m;
		while (j < len && (text[j] == ' ' || text[j] == '\t'))
			j++;
		if (j >= len || text[j] != '(')
			continue;
		if (!empty_only)
			return true;
		j++;
		while (j < len &&
		       (text[j] == ' ' || text[j] == '\t' || text[j] == '\n'))
			j++;
		if (j < len && text[j] == ')')
			return true;
		if (j < len && text[j] == '{') {
			j++;
			while (j < len && (text[j] == ' ' || text[j] == '\t' ||
			                   text[j] == '\n'))
				j++;
			if (j < len && text[j] == '}')
				return true;
		}
	}
	return false;
}

bool pk_sql_destructive(const char *text, size_t len)
{
	/* clang-format off */
	static const char *const calls[] = {
	    "dropDatabase", ".drop",     "dropCollection",
	    "dropIndexes",  "dropIndex", "dropUser",
	    "dropAllUsers", "dropRole",  "dropAllRoles",
	    "drop",
	    /* With a filter or not, as DELETE with WHERE */
	    "deleteMany", "deleteOne", "remove", "updateMany", "updateOne",
	    "replaceOne", "findOneAndDelete", "findOneAndReplace",
	    "findOneAndUpdate", "bulkWrite", NULL,
	};
	/* clang-format on */
	for (const char *const *c = calls; *c; c++)
		if (call_at(text, len, *c, false))
			return true;
	return sql_words_destroy(text, len);
}
