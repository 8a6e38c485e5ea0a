/*
 * util/alloc.c - the allocator hook (include/locus/alloc.h), the
 * trampolines that route tree-sitter's and cJSON's allocations through it,
 * and the per-thread count of a parse's heap growth (its memory budget).
 *
 * g_alloc is the library's one piece of process-wide state, by design
 * (like sqlite3_config): it is set before any other call, then only read.
 */
#include "util/alloc.h"
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef strdup
#undef strndup

#include <cjson/cJSON.h>
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locus/alloc.h"
#include "locus/common.h"

static locus_allocator g_alloc;     /* .alloc NULL: the C library's */
static _Thread_local bool t_failed; /* util/alloc.h */

/* The memory budget of the parse running on this thread.  `grown` is
   signed: a block allocated before the start and freed during it makes
   the growth smaller, as it should.  Sizes are malloc_usable_size(),
   which the hook's contract allows (its blocks are the C library's). */
typedef struct mem_budget {
	bool on, over;
	long long grown, peak, limit;
} mem_budget;
static _Thread_local mem_budget t_mem;

static void mem_add(void *p)
{
	if (!t_mem.on || !p)
		return;
	t_mem.grown += (long long)malloc_usable_size(p);
	if (t_mem.grown > t_mem.peak) {
		t_mem.peak = t_mem.grown;
		if (t_mem.peak > t_mem.limit)
			t_mem.over = true;
	}
}

static void mem_sub(void *p)
{
	if (t_mem.on && p)
		t_mem.grown -= (long long)malloc_usable_size(p);
}

void locus__mem_reuse(void *p)
{
	mem_add(p);
}

void locus__mem_unuse(void *p)
{
	mem_sub(p);
}

void locus__mem_budget_start(size_t limit)
{
	t_mem = (mem_budget){
	    .on = true,
	    .limit = limit > (size_t)LLONG_MAX ? LLONG_MAX : (long long)limit};
}

void locus__mem_budget_stop(void)
{
	t_mem.on = false;
}

bool locus__mem_over(void)
{
	return t_mem.over;
}

size_t locus__mem_peak(void)
{
	return (size_t)t_mem.peak;
}

static void *noted(void *p)
{
	if (!p)
		t_failed = true;
	mem_add(p);
	return p;
}

void *locus__malloc(size_t n)
{
	return noted(g_alloc.alloc ? g_alloc.alloc(n ? n : 1, g_alloc.payload)
	                           : malloc(n ? n : 1));
}

void *locus__calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return noted(NULL);
	if (!g_alloc.alloc)
		return noted(calloc(n ? n : 1, size ? size : 1));
	void *p = locus__malloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void *locus__realloc(void *p, size_t n)
{
	mem_sub(p);
	void *q = g_alloc.resize ? g_alloc.resize(p, n ? n : 1, g_alloc.payload)
	                         : realloc(p, n ? n : 1);
	if (!q)
		mem_add(p); /* realloc(3): the old block is still there */
	return noted(q);
}

void locus__free(void *p)
{
	mem_sub(p);
	if (g_alloc.release)
		g_alloc.release(p, g_alloc.payload);
	else
		free(p);
}

char *locus__strdup(const char *s)
{
	return locus__strndup(s, SIZE_MAX);
}

char *locus__strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = locus__malloc(len + 1);
	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

void locus__alloc_failed_reset(void)
{
	t_failed = false;
}

bool locus__alloc_failed(void)
{
	return t_failed;
}

/* ---- tree-sitter: never NULL (its runtime would crash), but recorded -- */

/* A block the hook refused comes from libc (the hook's heap, by its
   contract) and the failure is recorded.  libc failing too is a real
   out-of-memory: tree-sitter's own default allocator aborts then, and so
   do we, rather than hand its runtime a NULL it dereferences. */
static void *ts_checked(void *p, size_t n, void *fallback)
{
	if (p || !n)
		return p;
	t_failed = true;
	if (!fallback)
		abort();
	mem_add(fallback);
	return fallback;
}

void *locus__ts_malloc(size_t n)
{
	void *p = locus__malloc(n);
	return p ? p : ts_checked(NULL, n, malloc(n));
}

void *locus__ts_calloc(size_t n, size_t size)
{
	void *p = locus__calloc(n, size);
	return p ? p : ts_checked(NULL, n * size, calloc(n, size));
}

void *locus__ts_realloc(void *old, size_t n)
{
	void *p = locus__realloc(old, n);
	if (p || !n)
		return p;
	mem_sub(old); /* libc's realloc below moves or frees it */
	return ts_checked(NULL, n, realloc(old, n));
}

int locus_set_allocator(const locus_allocator *a)
{
	if (a && (a->version != LOCUS_ALLOCATOR_VERSION || !a->alloc ||
	          !a->resize || !a->release))
		return LOCUS_EUSAGE;
	if (!a) {
		memset(&g_alloc, 0, sizeof g_alloc);
		cJSON_InitHooks(NULL);
		return 0;
	}
	/* tree-sitter needs no call: its runtime is compiled to call
	   locus__ts_malloc & co. (meson.build), which read g_alloc */
	g_alloc = *a;
	cJSON_Hooks hooks = {.malloc_fn = locus__malloc,
	                     .free_fn = locus__free};
	cJSON_InitHooks(&hooks);
	return 0;
}
