/*
 * util/utf8.h - the one strict UTF-8 validator (RFC 3629).
 *
 * Strict: no overlong forms, no surrogates (U+D800..DFFF), nothing past
 * U+10FFFF, no truncated sequence.  NUL is a valid one-byte sequence here;
 * callers that refuse NUL say so themselves (memchr), since some carry
 * binary-safe text.
 */
#ifndef LOCUS_UTIL_UTF8_H
#define LOCUS_UTIL_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Length (1-4) of the valid sequence at s[0..n), or 0 when s does not
   start with one (or n is 0). */
size_t lu_utf8_seq(const char *s, size_t n);

/* Encode code point cp (at most U+10FFFF; the caller excludes surrogates
   where they are not wanted) into out; returns its length, 1-4. */
size_t lu_utf8_encode(uint32_t cp, char out[4]);

/* Offset of the first byte that does not start a valid sequence, or n. */
size_t lu_utf8_invalid_at(const char *s, size_t n);

/* Whether all of s[0..n) is valid. */
bool lu_utf8_valid(const char *s, size_t n);

/* Append s[0..n) with each byte that does not start a valid sequence
   replaced by U+FFFD (EF BF BD). */
void lu_utf8_clean_into(lu_buf *b, const char *s, size_t n);

/* The same as a malloc'd NUL-terminated string (the caller frees), or NULL
   when out of memory. */
char *lu_utf8_clean(const char *s, size_t n);

#endif
