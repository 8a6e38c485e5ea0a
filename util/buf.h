/*
 * util/buf.h - the one growable byte buffer.
 *
 * `d` is NUL-terminated whenever it is not NULL (the NUL is not counted in
 * `len`).  Appends never fail loudly: the first allocation failure sets
 * `oom`, later appends do nothing, and lu_buf_take() returns NULL, so a
 * builder checks once at the end.  An all-zero lu_buf is empty and valid.
 */
#ifndef LOCUS_UTIL_BUF_H
#define LOCUS_UTIL_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct lu_buf {
	char *d;
	size_t len, cap;
	bool oom; /* an append failed: the contents are incomplete */
} lu_buf;

#define LU_BUF_INIT                                                            \
	{                                                                      \
		NULL, 0, 0, false                                              \
	}

/* Append s[0..n) (s may hold NULs; s may be NULL when n is 0). */
void lu_buf_add(lu_buf *b, const char *s, size_t n);
void lu_buf_puts(lu_buf *b, const char *s);
void lu_buf_putc(lu_buf *b, char c);
void lu_buf_printf(lu_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void lu_buf_vprintf(lu_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Append s single-quoted for POSIX sh ('it'\''s). */
void lu_buf_shquote(lu_buf *b, const char *s);
/* Is s a non-empty word sh reads as itself, with no quotes: only letters,
   digits and _./:=@%+,- (no expansion, globbing or operator character)?
   An '=' may still make it an assignment in a command's first words. */
bool lu_sh_plain(const char *s);
/* Drop the contents, keep the storage (and a set oom). */
void lu_buf_clear(lu_buf *b);

/* Hand over the contents, malloc'd (the caller frees; "" when empty), or
   NULL when an append failed; the buffer is reset either way. */
char *lu_buf_take(lu_buf *b);
/* Free the storage; the buffer is empty and reusable afterwards. */
void lu_buf_free(lu_buf *b);

/* printf into a new string (malloc'd; NULL when out of memory). */
char *lu_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
