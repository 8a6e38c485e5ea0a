/*
 * bench/ts_alloc.c - the C library behind tree-sitter's allocation calls
 * for ts_raw, which links the runtime without liblocus (the runtime is
 * compiled to call these: util/ts_alloc.h).  The same calls tree-sitter's
 * default allocator makes, so the baseline is unchanged.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../util/ts_alloc.h"

static void *checked(void *p, size_t n)
{
	if (!p && n) {
		fprintf(stderr, "ts_raw: out of memory\n");
		abort();
	}
	return p;
}

void *locus__ts_malloc(size_t n)
{
	return checked(malloc(n), n);
}

void *locus__ts_calloc(size_t n, size_t size)
{
	return checked(calloc(n, size), n * size);
}

void *locus__ts_realloc(void *p, size_t n)
{
	return checked(realloc(p, n), n);
}

void locus__free(void *p)
{
	free(p);
}
