/*
 * util/json.h - the one strict JSON reader (over cJSON).
 *
 * cJSON is lenient where locus must not be: it takes invalid UTF-8, keeps
 * duplicate keys (lookups find the first, so a second "command" or
 * "deny_for" would be the one another consumer acts on), reads "\u0000" and
 * a \u escape with a bad hex digit ("\u00zz") as the end of a string, takes
 * raw control characters in strings and any byte below 0x21 as white space,
 * accepts numbers like "01" or "1." and ignores text after the value.
 * (It also skips a UTF-8 byte order mark at the start; so does the reader.)
 * lu_json_read() refuses each of these and says which problem it found and
 * where, so every caller (the CLI's inputs, the policy loader, tool-call
 * arguments, MCP, the box runner) words its own message over one set of
 * checks.
 */
#ifndef LOCUS_UTIL_JSON_H
#define LOCUS_UTIL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* cJSON's own nesting limit: deeper text never parses. */
#define LU_JSON_MAX_DEPTH 1000

typedef enum lu_json_problem {
	LU_JSON_OK = 0,
	LU_JSON_NOMEM,       /* out of memory */
	LU_JSON_TOOBIG,      /* longer than max_len */
	LU_JSON_NUL,         /* a raw NUL byte */
	LU_JSON_UTF8,        /* invalid UTF-8 */
	LU_JSON_SYNTAX,      /* not JSON (cJSON refused it; also empty text, a
	                        raw control character in a string or between
	                        tokens, a \u without four hex digits) */
	LU_JSON_TRAILING,    /* text other than white space after the value */
	LU_JSON_DEPTH,       /* nested deeper than max_depth */
	LU_JSON_ESCAPED_NUL, /* "\u0000" in a string */
	LU_JSON_NUMBER,      /* a number JSON does not allow (01, 1., .5); with
	                        number_text also one a double cannot hold */
	LU_JSON_DUPLICATE,   /* one key twice in one object */
	LU_JSON_NOT_OBJECT,  /* `object` asked for and the value is not one */
} lu_json_problem;

typedef struct lu_json_opts {
	unsigned version;   /* LU_JSON_OPTS_VERSION */
	size_t max_len;     /* 0: no limit */
	unsigned max_depth; /* 0 or more than LU_JSON_MAX_DEPTH: that */
	bool object;        /* the value must be an object */
	bool any_bytes;     /* invalid UTF-8 is kept, not refused */
	bool duplicates;    /* duplicate keys are kept: the caller checks them
	                       itself with lu_json_duplicate() */
	bool escaped_nul;   /* "\u0000" is kept: the caller refuses it where it
	                       can answer in context (MCP: a tool error that
	                       carries the request's id) */
	bool number_text;   /* every number keeps its text as written in its
	                       `valuestring` (cJSON_Delete frees it), so 1 and
	                       1.0 and a 400-digit integer stay apart; a
	                       fraction or exponent whose double is not finite
	                       (1e400) is refused (LU_JSON_NUMBER; an integer
	                       past a double's range keeps its digits and
	                       valuedouble is infinite): for a caller that hashes
	                       values the way another language reads them
	                       (the box runner's digest, runner/json.h) */
} lu_json_opts;

#define LU_JSON_OPTS_VERSION 1
#define LU_JSON_OPTS_INIT                                                      \
	{                                                                      \
		LU_JSON_OPTS_VERSION, 0, 0, false, false, false, false, false  \
	}

/* Why a read failed. */
typedef struct lu_json_fail {
	lu_json_problem problem;
	size_t offset; /* byte offset of the problem in the text */
	char key[256]; /* LU_JSON_DUPLICATE: the key (cut short if longer) */
} lu_json_fail;

/*
 * Parse text[0..len) (need not end in NUL; not retained).  On success *out
 * is the value, the caller's, freed with cJSON_Delete(), and 0 is returned.
 * On failure *out is NULL, `why` (optional) says what and where, and the
 * problem is returned.  A NULL or wrong-version opts is LU_JSON_OPTS_INIT.
 */
lu_json_problem lu_json_read(cJSON **out, const char *text, size_t len,
                             const lu_json_opts *opts, lu_json_fail *why);

/* The first member, in document order, whose key an earlier member of the
   same object already has, in any object of the tree; NULL when none (or
   out of memory: *oom set, if given).  O(n log n) in the members. */
const cJSON *lu_json_duplicate(const cJSON *root, bool *oom);

/* The byte offset in text (the text `root` was parsed from) where `node`'s
   value starts, or 0 when it is not found. */
size_t lu_json_offset_of(const cJSON *root, const char *text, size_t len,
                         const cJSON *node);

/* Add v to object o under key k: true, or false with v deleted (cJSON
   takes ownership only on success; a NULL v, a failed create, is false). */
bool lu_json_add(cJSON *o, const char *k, cJSON *v);

/* Print o (compact, or indented with `pretty`) into *out, malloc'd with
   the library's allocator (the caller frees: locus_free() outside), and
   delete o.  0, or -1 when out of memory (*out NULL).  cJSON's own print
   buffer never leaves here (one allocator per returned buffer). */
int lu_json_print(char **out, cJSON *o, bool pretty);

/* Write o to `out` (compact on one line, or indented with `pretty`), then
   a newline, and delete o (NULL: out of memory).  0, or -1 when out of
   memory or the write failed. */
int lu_json_write(FILE *out, cJSON *o, bool pretty);

/* Does text[0..len) hold a "\u0000" escape inside a string (a key or a
   value)?  The text need not be valid JSON: the scan never reads past len.
   lu_json_mark_nul_escapes() also rewrites each one in place to "\u0001"
   (same length), for a caller that decodes the string and turns the marks
   back into NUL bytes; lu_json_unmark_nul_escapes() turns every "\u0001"
   escape back into "\u0000" (a real \u0001 too: the caller marked the
   text, so it is judged as holding a NUL either way). */
bool lu_json_has_nul_escape(const char *text, size_t len);
bool lu_json_mark_nul_escapes(char *text, size_t len);
bool lu_json_unmark_nul_escapes(char *text, size_t len);

/* A short English phrase for a problem ("duplicate key", "invalid
   UTF-8"...). */
const char *lu_json_problem_text(lu_json_problem p);

#endif
