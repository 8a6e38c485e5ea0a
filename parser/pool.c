/*
 * parser/pool.c - the per-parser pool of arena blocks, reused across lines.
 *
 * Without it every line mallocs its result's first block (and most lines
 * need only that one: 884 bytes on average over the bench batch, 99% of
 * lines under 4 KiB) and frees it with the result, and glibc consolidates
 * its fast bins on every such large request.  With it a parser reuses the
 * blocks of the results it made once they are freed.
 *
 * Rules:
 *  - Bounded: only the sizes an arena grows through (LP_ARENA_FIRST << k,
 *    k < LP_POOL_CLASSES) are kept, LP_POOL_MAX_BYTES in all; a block past
 *    either bound goes back to the allocator.  After one huge line the
 *    parser keeps at most that much, whatever the line took.
 *  - No global state, one parser per thread as before.  A result may be
 *    freed on any thread, before or after its parser: a freed result's
 *    blocks are pushed on `returned`, a lock-free stack (compare-and-swap
 *    push by any thread; only the parser's thread pops, and it takes the
 *    whole stack at once with an exchange, so there is no ABA).  `free`,
 *    sorted by size, is the parser's thread's only.
 *  - Lifetime: the parser and each result hold a reference; the last one
 *    frees the pool and whatever it still keeps.  Once the parser is freed
 *    (`closed`) results give their blocks to the allocator.
 *  - The memory budget (util/alloc.h) counts a reused block as if it had
 *    been malloc'd (locus__mem_reuse), and one given back during a parse
 *    as freed, so a parse's count does not depend on what the pool holds.
 *  - Sanitizers: a kept block's data is poisoned (ASan) and no-access
 *    (valgrind) until it is reused, then undefined, so that a read of a
 *    freed result or of memory not written since reuse is still reported.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "pool.h"
#include "util/alloc.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LP_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define LP_ASAN 1
#endif
#ifdef LP_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define VG_NOACCESS(p, n) VALGRIND_MAKE_MEM_NOACCESS(p, n)
#define VG_UNDEFINED(p, n) VALGRIND_MAKE_MEM_UNDEFINED(p, n)
#endif
#endif
#ifndef VG_NOACCESS
#define VG_NOACCESS(p, n) ((void)(p), (void)(n))
#define VG_UNDEFINED(p, n) ((void)(p), (void)(n))
#endif

struct lp_pool {
	/* any thread */
	_Atomic(lp_arena_block *) returned;
	atomic_size_t kept; /* bytes in `returned` and `free` */
	atomic_uint refs;
	atomic_bool closed;
	/* the parser's thread only */
	lp_arena_block *free[LP_POOL_CLASSES];
	size_t made; /* blocks taken from the allocator (tests) */
};

lp_pool *lp_pool_new(void)
{
	lp_pool *p = malloc(sizeof *p);
	if (!p)
		return NULL;
	atomic_init(&p->returned, NULL);
	atomic_init(&p->kept, 0);
	atomic_init(&p->refs, 1);
	atomic_init(&p->closed, false);
	for (unsigned k = 0; k < LP_POOL_CLASSES; k++)
		p->free[k] = NULL;
	p->made = 0;
	return p;
}

/* The class of a block of `size` data bytes, or LP_POOL_CLASSES when the
   pool does not keep that size. */
static unsigned size_class(size_t size)
{
	for (unsigned k = 0; k < LP_POOL_CLASSES; k++)
		if (size == (size_t)LP_ARENA_FIRST << k)
			return k;
	return LP_POOL_CLASSES;
}

/* Free kept blocks (the budget took them off when they were kept). */
static void free_chain(lp_arena_block *b)
{
	while (b) {
		lp_arena_block *next = b->next;
		locus__mem_reuse(b);
		free(b);
		b = next;
	}
}

/* Move what results gave back into the parser's sorted lists. */
static void take_returned(lp_pool *p)
{
	if (!atomic_load_explicit(&p->returned, memory_order_relaxed))
		return;
	lp_arena_block *b =
	    atomic_exchange_explicit(&p->returned, NULL, memory_order_acquire);
	while (b) {
		lp_arena_block *next = b->next;
		unsigned k = size_class(b->size); /* < LP_POOL_CLASSES */
		b->next = p->free[k];
		p->free[k] = b;
		b = next;
	}
}

lp_arena_block *lp_pool_block(lp_pool *p, size_t size)
{
	unsigned k = p ? size_class(size) : LP_POOL_CLASSES;
	if (k < LP_POOL_CLASSES) {
		if (!p->free[k])
			take_returned(p);
		lp_arena_block *b = p->free[k];
		if (b) {
			p->free[k] = b->next;
			atomic_fetch_sub_explicit(&p->kept, size,
			                          memory_order_relaxed);
			UNPOISON(b->data, b->size);
			VG_UNDEFINED(b->data, b->size);
			locus__mem_reuse(b);
			b->used = 0;
			return b;
		}
	}
	lp_arena_block *b = malloc(sizeof *b + size);
	if (!b)
		return NULL;
	if (p)
		p->made++;
	b->size = size;
	b->used = 0;
	return b;
}

/* Keep b when the pool is open and has room for it (true). */
static bool keep(lp_pool *p, lp_arena_block *b)
{
	if (size_class(b->size) == LP_POOL_CLASSES ||
	    atomic_load_explicit(&p->closed, memory_order_acquire))
		return false;
	size_t was =
	    atomic_fetch_add_explicit(&p->kept, b->size, memory_order_relaxed);
	if (was + b->size > LP_POOL_MAX_BYTES) {
		atomic_fetch_sub_explicit(&p->kept, b->size,
		                          memory_order_relaxed);
		return false;
	}
	/* as free() would have: the parse's budget counts it given back */
	locus__mem_unuse(b);
	POISON(b->data, b->size);
	VG_NOACCESS(b->data, b->size);
	lp_arena_block *head =
	    atomic_load_explicit(&p->returned, memory_order_relaxed);
	do
		b->next = head;
	while (!atomic_compare_exchange_weak_explicit(&p->returned, &head, b,
	                                              memory_order_release,
	                                              memory_order_relaxed));
	return true;
}

static void destroy(lp_pool *p)
{
	free_chain(atomic_exchange(&p->returned, NULL));
	for (unsigned k = 0; k < LP_POOL_CLASSES; k++)
		free_chain(p->free[k]);
	free(p);
}

static void unref(lp_pool *p)
{
	if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) == 1)
		destroy(p);
}

void lp_pool_ref(lp_pool *p)
{
	atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
}

void lp_pool_give(lp_pool *p, lp_arena_block *b)
{
	while (b) {
		lp_arena_block *next = b->next;
		if (!p || !keep(p, b))
			free(b);
		b = next;
	}
	if (p)
		unref(p);
}

void lp_pool_close(lp_pool *p)
{
	if (!p)
		return;
	atomic_store_explicit(&p->closed, true, memory_order_release);
	take_returned(p);
	for (unsigned k = 0; k < LP_POOL_CLASSES; k++) {
		for (lp_arena_block *b = p->free[k]; b; b = b->next)
			atomic_fetch_sub_explicit(&p->kept, b->size,
			                          memory_order_relaxed);
		free_chain(p->free[k]);
		p->free[k] = NULL;
	}
	unref(p);
}

void lp_pool_stats(lp_pool *p, size_t *made, size_t *kept)
{
	if (made)
		*made = p ? p->made : 0;
	if (kept)
		*kept = p ? atomic_load(&p->kept) : 0;
}
