/*
 * util/str.h - short-string equality and prefix tests as inline byte
 * loops, and bounded copies of a word (or two joined by "/") into a fixed
 * buffer.
 *
 * The parser's and the labeller's tables hold short words (program names,
 * options, subcommands) compared for every command: a call to strcmp or
 * strncmp (and the strlen a prefix test needs) costs more cycles than the
 * compare itself, and most compares end at the first byte.
 * Both strings are NUL-terminated; neither is read past its NUL.
 * util/str.h is header-only: the loops are inlined where they are used.
 */
#ifndef LOCUS_UTIL_STR_H
#define LOCUS_UTIL_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* a and b are the same string. */
static inline bool lu_streq(const char *a, const char *b)
{
	for (; *a && *a == *b; a++)
		b++;
	return *a == *b;
}

/* a and b are both non-NULL and the same string. */
static inline bool lu_streq_null(const char *a, const char *b)
{
	return a && b && lu_streq(a, b);
}

/* strcmp's order (the sign of strcmp(a, b)), as an inline loop. */
static inline int lu_strcmp(const char *a, const char *b)
{
	for (; *a && *a == *b; a++)
		b++;
	return (int)(unsigned char)*a - (int)(unsigned char)*b;
}

/* s starts with prefix ("" is a prefix of every string). */
static inline bool lu_starts_with(const char *s, const char *prefix)
{
	for (; *prefix && *s == *prefix; prefix++)
		s++;
	return *prefix == '\0';
}

/* The n bytes at src as a string in dst (cap bytes) when they fit with
   their NUL (n < cap); false, dst untouched, when they do not (a word too
   long for the caller's buffer). */
static inline bool lu_copy_fits(char *dst, size_t cap, const char *src,
                                size_t n)
{
	if (n >= cap)
		return false;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return true;
}

/* a "/" b as a string in dst (cap bytes), as snprintf "%s/%s" writes it
   (no folding: "/" and "x" give "//x"); false, dst untouched, when it
   does not fit.  A few stores where snprintf cost ~800 instructions. */
static inline bool lu_join_fits(char *dst, size_t cap, const char *a,
                                const char *b)
{
	size_t an = strlen(a), bn = strlen(b);
	if (an >= cap || bn >= cap - an - 1)
		return false;
	memcpy(dst, a, an);
	dst[an] = '/';
	memcpy(dst + an + 1, b, bn + 1);
	return true;
}

#endif
