/*
 * util/base64.h - the one base64 decoder (RFC 4648 section 4 alphabet).
 */
#ifndef LOCUS_UTIL_BASE64_H
#define LOCUS_UTIL_BASE64_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Decode s[0..n) into *out (malloc'd, NUL-terminated past *len; the caller
 * frees).  Strict: only the alphabet, then at most two '=' at the very
 * end; no blanks; a final group of one character is refused.  Padding may
 * be left out ("aGk" is "hi").  CR and LF are skipped anywhere when
 * `line_breaks` (the output of base64(1)), else only at the end.  0, 1 for
 * text that is not base64 (*out NULL), -1 when out of memory.
 */
int lu_base64_decode(const char *s, size_t n, bool line_breaks, char **out,
                     size_t *len);

#endif
