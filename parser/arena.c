/*
 * parser/arena.c - the bump allocator that owns a parse result.
 *
 * Every string and array of a locus_shell_result lives here, so freeing a
 * result is one walk over a short list of blocks.  Blocks grow
 * geometrically from LP_ARENA_FIRST (4 KiB: the bench batch's lines use
 * 884 bytes on average, 99% of them less than 4 KiB); an allocation larger
 * than a block gets a block of its own.  An arena made for a parser draws
 * its blocks from the parser's pool and gives them back to it
 * (pool.c): a parser reuses its blocks across lines.
 *
 * Zeroing rule: nothing is zeroed unless the caller asks for it.
 * lp_arena_alloc zeroes, and is for memory that is read before all of it
 * is written: a struct whose fields are left 0 (the result, lp_vars, an
 * lp_word with only some fields set), a hash table whose empty slots are
 * 0, a flag array that is or-ed into.  Everything else takes
 * lp_arena_alloc_raw: strings (every byte up to the NUL written), arrays
 * filled up to their count before they are read, with a terminator
 * written explicitly where the public API promises one (argv[argc] and
 * the other NULL-ended lists of lp_push_raw).  lp_arena_grow copies and
 * does not zero the new tail: its arrays are read only up to their count.
 * A reused block is marked undefined for valgrind and a kept one poisoned
 * for ASan (pool.c), so a read that breaks the rule is still reported.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "../util/array.h"

void lp_arena_init(lp_arena *a)
{
	memset(a, 0, sizeof *a);
}

void lp_arena_init_pooled(lp_arena *a, lp_pool *pool)
{
	memset(a, 0, sizeof *a);
	if (pool)
		lp_pool_ref(pool);
	a->pool = pool;
}

void lp_arena_release(lp_arena *a)
{
	lp_pool_give(a->pool, a->head);
	a->head = NULL;
	a->pool = NULL;
}

void *lp_arena_alloc_raw(lp_arena *a, size_t n)
{
	if (a->failed)
		return NULL;
	if (n > SIZE_MAX / 2) {
		a->failed = true; /* no such block: as out of memory */
		return NULL;
	}
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
		lp_arena_block *nb = lp_pool_block(a->pool, size);
		if (!nb) {
			a->failed = true;
			return NULL;
		}
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
	/* the tail past the copy is not zeroed (the zeroing rule above) */
	size_t keep = old && old_bytes < new_bytes ? old_bytes
	              : old                        ? new_bytes
	                                           : 0;
	char *p = lp_arena_alloc_raw(a, new_bytes);
	if (!p)
		return NULL;
	if (keep)
		memcpy(p, old, keep);
	return p;
}

/* Room for n more bytes and the NUL after them. */
static bool buf_room(lp_arena *a, lp_buf *b, size_t n)
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
	return true;
}

bool lp_buf_append(lp_arena *a, lp_buf *b, const char *s, size_t n)
{
	if (!buf_room(a, b, n))
		return false;
	if (n)
		memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
	return true;
}

bool lp_buf_putc(lp_arena *a, lp_buf *b, char c)
{
	if (!buf_room(a, b, 1))
		return false;
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
	return true;
}

bool lp_buf_fill(lp_arena *a, lp_buf *b, char c, size_t n)
{
	if (!buf_room(a, b, n))
		return false;
	memset(b->data + b->len, c, n);
	b->len += n;
	b->data[b->len] = '\0';
	return true;
}

const char *lp_buf_cstr(lp_arena *a, lp_buf *b)
{
	if (!b->data && !lp_buf_append(a, b, "", 0))
		return NULL;
	return b->data;
}
