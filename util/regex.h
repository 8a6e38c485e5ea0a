/*
 * util/regex.h - the one PCRE2 set-up: compile, and match under limits.
 *
 * Every match runs under a match context carrying match, depth and heap
 * limits (style.md section 5), and its result is one of three: a match, a
 * real "no", or an error (a limit hit, bad UTF, out of memory) that the
 * caller must treat as failing closed, never as "no match".
 */
#ifndef LOCUS_UTIL_REGEX_H
#define LOCUS_UTIL_REGEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pcre2.h>

typedef struct lu_re_limits {
	uint32_t match;    /* pcre2_set_match_limit */
	uint32_t depth;    /* pcre2_set_depth_limit */
	uint32_t heap_kib; /* pcre2_set_heap_limit, KiB */
} lu_re_limits;

/* The limits most callers use (harness grep, policy rules). */
#define LU_RE_LIMITS_INIT                                                      \
	{                                                                      \
		1000000, 10000, 20000                                          \
	}

typedef enum lu_re_result {
	LU_RE_ERROR = -1,  /* a limit, bad UTF, out of memory: fail closed */
	LU_RE_NOMATCH = 0, /* a real "no" */
	LU_RE_MATCH = 1,
} lu_re_result;

/* A compile failure: PCRE2's code, the pattern offset and its message. */
typedef struct lu_re_error {
	int code;
	size_t offset;
	char message[128];
} lu_re_error;

/* Compile a NUL-terminated pattern with PCRE2 `options`; with `jit`, also
   JIT it where the machine can (the interpreter honours the same limits;
   a pattern compiled per call is not worth it).  NULL on
   failure, with err (optional) filled. */
pcre2_code *lu_re_compile(const char *pattern, uint32_t options, bool jit,
                          lu_re_error *err);

/* A match context with the limits (lim NULL: LU_RE_LIMITS_INIT); NULL when
   out of memory.  Free with pcre2_match_context_free(). */
pcre2_match_context *lu_re_context(const lu_re_limits *lim);

/*
 * Match re against s[0..n) from byte `off`.  `md` may be NULL (a block is
 * made from the pattern and freed here; pass one to read the ovector).  A
 * NULL `re` or `mc` is an error: there is no match without limits.
 * *pcre_rc (optional) receives pcre2_match()'s own return value.
 */
lu_re_result lu_re_match(const pcre2_code *re, const char *s, size_t n,
                         size_t off, pcre2_match_data *md,
                         pcre2_match_context *mc, int *pcre_rc);

/* One match under `lim` (NULL: LU_RE_LIMITS_INIT) with a context of its
   own: for callers that match once. */
lu_re_result lu_re_match_once(const pcre2_code *re, const char *s, size_t n,
                              const lu_re_limits *lim);

/* Whether a pcre2_match() error code is one of the three limits. */
int lu_re_is_limit(int pcre_rc);

#endif
