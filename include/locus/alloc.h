/*
 * locus/alloc.h - the library's allocator hook.
 *
 * Every allocation liblocus makes itself goes through one process-wide
 * allocator, and so do tree-sitter's (its runtime is compiled to call the
 * library's trampolines: util/ts_alloc.h) and cJSON's
 * (cJSON_InitHooks): count them, cap them, or fail the Nth one to test
 * that each failure is a clean LOCUS_ENOMEM (tests/test_allocfail.c).
 * Like sqlite3_config(SQLITE_CONFIG_MALLOC), it is the one process-wide
 * setting: set it before any other locus call, while no thread uses locus
 * (or cJSON, or tree-sitter), and not again while one does.
 *
 * Blocks cross between locus, the C library and callers in both
 * directions (a caller may free() a result; libc's realpath() or getline()
 * hand locus malloc'd blocks): the hook must hand out and take back blocks
 * of the C library's heap.  It wraps malloc; it does not replace the heap.
 * PCRE2, OpenSSL and libcurl keep their own allocators.
 */
#ifndef LOCUS_ALLOC_H
#define LOCUS_ALLOC_H

#include <stddef.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LOCUS_ALLOCATOR_VERSION 1

typedef struct locus_allocator {
	unsigned int version; /* LOCUS_ALLOCATOR_VERSION */
	/* NULL is a failed allocation: locus returns LOCUS_ENOMEM (or a
	   NULL result where that is the contract) and changes nothing. */
	void *(*alloc)(size_t size, void *payload);
	/* realloc(3)'s contract: on NULL the old block is still valid. */
	void *(*resize)(void *ptr, size_t size, void *payload);
	/* must accept NULL and any block of the C library's heap */
	void (*release)(void *ptr, void *payload);
	void *payload; /* passed to each callback, never touched */
} locus_allocator;

/**
 * Route every later allocation of liblocus, tree-sitter and cJSON through
 * the callbacks in a (copied).  NULL restores the C library's allocator.
 *
 * Inside tree-sitter a failed allocation cannot be returned as NULL (its
 * runtime would crash): the block is taken from the C library instead and
 * the parse under way reports it (locus_shell_parse returns NULL, the gate
 * an out-of-memory error), so a failure anywhere is still an error.
 *
 * @param a  the allocator, or NULL
 * @return 0, or LOCUS_EUSAGE (a wrong version or a NULL callback)
 */
LOCUS_API int locus_set_allocator(const locus_allocator *a);

#ifdef __cplusplus
}
#endif
#endif
