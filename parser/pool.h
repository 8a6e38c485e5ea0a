/*
 * parser/pool.h - the arena's blocks and the per-parser pool that keeps
 * them across lines (arena.c, pool.c; not seen by the rest of parser/).
 *
 * A parser owns one lp_pool.  Every result it makes holds a reference to
 * it, so a result freed after its parser (or on another thread) never
 * reaches freed memory: the pool is freed with its last reference.  See
 * pool.c for the rules and docs/design.md, "The arena".
 */
#ifndef LOCUS_PARSER_POOL_H
#define LOCUS_PARSER_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

struct lp_arena_block {
	lp_arena_block *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

/* Block sizes: the first block of an arena, doubling up to the largest;
   an allocation larger than a block gets a block of its own size. */
#define LP_ARENA_FIRST 4096u
#define LP_ARENA_MAX_BLOCK (1u << 20)

/* The pool keeps the block sizes LP_ARENA_FIRST << k, k < LP_POOL_CLASSES
   (4 KiB to 64 KiB), and at most LP_POOL_MAX_BYTES of them in all. */
#define LP_POOL_CLASSES 5u
#define LP_POOL_MAX_BYTES ((size_t)256 << 10)

/* A block of `size` data bytes for an arena of `pool` (NULL: no pool):
   one the pool kept when it has one of that size, else a new one from the
   allocator.  NULL when memory runs out. */
lp_arena_block *lp_pool_block(lp_pool *pool, size_t size);

/* Give an arena's blocks back: to the pool when it is open, has room and
   keeps that size, else to the allocator; then drop the arena's
   reference.  Any thread may call it (a result may be freed anywhere). */
void lp_pool_give(lp_pool *pool, lp_arena_block *blocks);

#endif
