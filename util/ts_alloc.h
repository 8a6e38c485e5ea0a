/*
 * util/ts_alloc.h - force-included (meson.build) into the tree-sitter
 * runtime and the bash grammar's scanner: their ts_malloc, ts_calloc,
 * ts_realloc and ts_free become direct calls of the library's trampolines
 * (util/alloc.c), so that every block tree-sitter takes goes through the
 * allocator hook (include/locus/alloc.h) and counts against a parse's
 * memory budget, without ts_set_allocator (process-wide state the library
 * must not write on its own).  tree-sitter's alloc.h only defines these
 * names when they are not defined already.
 */
#ifndef LOCUS_UTIL_TS_ALLOC_H
#define LOCUS_UTIL_TS_ALLOC_H

#include <stddef.h>

void *locus__ts_malloc(size_t n);
void *locus__ts_calloc(size_t n, size_t size);
void *locus__ts_realloc(void *p, size_t n);
void locus__free(void *p);

#define ts_malloc locus__ts_malloc
#define ts_calloc locus__ts_calloc
#define ts_realloc locus__ts_realloc
#define ts_free locus__free

#endif
