/*
 * parser/arena.c - the bump allocator that owns a parse result.
 *
 * Every string and array of a locus_shell_result lives here, so freeing a
 * result is one walk over a short list of blocks.  Blocks grow
 * geometrically; an allocation larger than a block gets a block of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../util/array.h"

struct lp_arena_block {
	lp_arena_block *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

#define LP_ARENA_FIRST 4096u
#define LP_ARENA_MAX_BLOCK (1u << 20)

void lp_arena_init(lp_arena *a)
{
	memset(a, 0, sizeof *a);
}

void lp_arena_release(lp_arena *a)
{
	lp_arena_block *b = a->head;
	while (b) {
		lp_arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
}

void *lp_arena_alloc_raw(lp_arena *a, size_t n)
{
	if (a->failed)
		return NULL;
	n = (n + 15u) & ~(size_t)15u;
	if (n == 0)
		n = 16;
	lp_arena_block *b = a->head;
	if (!b || b->size - b->used < n) {
		size_t size = b ? b->size * 2 : LP_ARENA_FIRST;
		if (size > LP_ARENA_MAX_BLOCK)
			size = LP_ARENA_MAX_BLOCK;
		if (size < n)
			size = n;
		lp_arena_block *nb = malloc(sizeof *nb + size);
		if (!nb) {
			a->failed = true;
			return NULL;
		}
		nb->size = size;
		nb->used = 0;
		/* A big one-off block goes behind the head so that the head's
		   free space is not wasted. */
		if (b && size == n && b->size - b->used > 256) {
			nb->next = b->next;
			b->next = nb;
		} else {
			nb->next = b;
			a->head = nb;
		}
		b = nb;
	}
	void *p = b->data + b->used;
	b->used += n;
	return p;
}

bool lp_arena_pop(lp_arena *a, const void *p, size_t n)
{
	lp_arena_block *b = a->head;
	n = (n + 15u) & ~(size_t)15u;
	if (n == 0)
		n = 16;
	if (!b || !p || b->used < n ||
	    (const unsigned char *)p != b->data + b->used - n)
		return false;
	b->used -= n;
	return true;
}

void *lp_arena_alloc(lp_arena *a, size_t n)
{
	void *p = lp_arena_alloc_raw(a, n);
	if (p)
		memset(p, 0, n);
	return p;
}

char *lp_arena_strndup(lp_arena *a, const char *s, size_t n)
{
	char *p = lp_arena_alloc_raw(a, n + 1);
	if (!p)
		return NULL;
	if (n)
		memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *lp_arena_strdup(lp_arena *a, const char *s)
{
	return lp_arena_strndup(a, s, strlen(s));
}

char *lp_arena_printf(lp_arena *a, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		va_end(ap2);
		return NULL;
	}
	char *p = lp_arena_alloc_raw(a, (size_t)n + 1);
	if (p)
		vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}

void *lp_arena_grow(lp_arena *a, void *old, size_t old_bytes, size_t new_bytes)
{
	/* only the copied part is written: the rest is zeroed (callers
	   rely on it for arrays) */
	size_t keep = old && old_bytes < new_bytes ? old_bytes
	              : old                        ? new_bytes
	                                           : 0;
	char *p = lp_arena_alloc_raw(a, new_bytes);
	if (!p)
		return NULL;
	if (keep)
		memcpy(p, old, keep);
	memset(p + keep, 0, new_bytes - keep);
	return p;
}

bool lp_buf_append(lp_arena *a, lp_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = lu_grow_capacity(b->cap, b->len + n + 1, 16, 1);
		if (!cap || b->len + n + 1 < b->len) {
			a->failed = true; /* overflow: as out of memory */
			return false;
		}
		/* bytes are written before they are read: no zeroing */
		char *d = lp_arena_alloc_raw(a, cap);
		if (!d)
			return false;
		if (b->len)
			memcpy(d, b->data, b->len);
		b->data = d;
		b->cap = cap;
	}
	if (n)
		memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
	return true;
}

bool lp_buf_putc(lp_arena *a, lp_buf *b, char c)
{
	return lp_buf_append(a, b, &c, 1);
}

const char *lp_buf_cstr(lp_arena *a, lp_buf *b)
{
	if (!b->data && !lp_buf_append(a, b, "", 0))
		return NULL;
	return b->data;
}
