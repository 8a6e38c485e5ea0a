/*
 * util/buf.c - the growable byte buffer.
 */
#include "buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

static bool reserve(lu_buf *b, size_t extra)
{
	if (b->oom)
		return false;
	if (extra < b->cap && b->len + extra + 1 <= b->cap)
		return true;
	size_t need = b->len + extra + 1;
	size_t cap = need > b->len ? lu_grow_capacity(b->cap, need, 64, 1) : 0;
	char *d = cap ? realloc(b->d, cap) : NULL;
	if (!d) {
		b->oom = true;
		return false;
	}
	b->d = d;
	b->cap = cap;
	return true;
}

void lu_buf_add(lu_buf *b, const char *s, size_t n)
{
	if (!reserve(b, n))
		return;
	if (n)
		memcpy(b->d + b->len, s, n);
	b->len += n;
	b->d[b->len] = '\0';
}

void lu_buf_puts(lu_buf *b, const char *s)
{
	lu_buf_add(b, s, strlen(s));
}

void lu_buf_putc(lu_buf *b, char c)
{
	lu_buf_add(b, &c, 1);
}

void lu_buf_vprintf(lu_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	if (n >= 0 && reserve(b, (size_t)n)) {
		vsnprintf(b->d + b->len, (size_t)n + 1, fmt, ap2);
		b->len += (size_t)n;
	}
	va_end(ap2);
}

void lu_buf_printf(lu_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	lu_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void lu_buf_shquote(lu_buf *b, const char *s)
{
	lu_buf_putc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			lu_buf_puts(b, "'\\''");
		else
			lu_buf_putc(b, *s);
	}
	lu_buf_putc(b, '\'');
}

bool lu_sh_plain(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz"
		            "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-",
		            *s))
			return false;
	return true;
}

void lu_buf_clear(lu_buf *b)
{
	b->len = 0;
	if (b->d)
		b->d[0] = '\0';
}

char *lu_buf_take(lu_buf *b)
{
	if (b->oom) {
		lu_buf_free(b);
		return NULL;
	}
	char *d = b->d;
	if (!d)
		d = calloc(1, 1);
	b->d = NULL;
	b->len = b->cap = 0;
	return d;
}

void lu_buf_free(lu_buf *b)
{
	free(b->d);
	b->d = NULL;
	b->len = b->cap = 0;
	b->oom = false;
}

char *lu_format(const char *fmt, ...)
{
	lu_buf b = LU_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	lu_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return lu_buf_take(&b);
}
