/*
 * util/alloc.h - the one allocator of liblocus (include/locus/alloc.h).
 *
 * meson.build force-includes this header (-include) into every library
 * source, so malloc, calloc, realloc, free, strdup and strndup written in
 * library code are the locus__ functions below: the hook reaches every
 * allocation without a change at any call site.  The renaming is by
 * object-like macros, so a struct member named `free` (locus_backend's)
 * is renamed the same way in every library file and keeps its offset.
 * The CLI and the tests are not compiled with it: they use libc, which is
 * the same heap (the hook's contract).
 */
#ifndef LOCUS_UTIL_ALLOC_H
#define LOCUS_UTIL_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

void *locus__malloc(size_t n);
void *locus__calloc(size_t n, size_t size);
void *locus__realloc(void *p, size_t n);
void locus__free(void *p);
char *locus__strdup(const char *s);
char *locus__strndup(const char *s, size_t n);

/* Every failed allocation is also recorded, per thread, so an operation
   can tell that one failed somewhere below it even where the failure was
   absorbed (a walk cut short, a log entry dropped, a table left out) or
   could not be returned at all (tree-sitter cannot take a NULL from its
   allocator: its block is then taken from libc).  locus_shell_parser_parse
   resets it first and returns NULL when it is set at the end, so a parse
   under a failed allocation is never an answer (tests/test_allocfail.c). */
void locus__alloc_failed_reset(void);
bool locus__alloc_failed(void);

/* The memory budget of one parse (parser/parse.c).  From
   locus__mem_budget_start() to locus__mem_budget_stop(), this thread's
   heap growth through the hook (bytes allocated minus bytes freed, by
   their usable size; tree-sitter's allocations included, as it is
   compiled to call the trampolines below) is counted, and past `limit`
   bytes locus__mem_over() turns true.  Nothing fails: the parse checks
   it where it checks its time budget and stops with a verdict.  Counting
   is off (and costs nothing) outside a budget. */
void locus__mem_budget_start(size_t limit);
void locus__mem_budget_stop(void);
bool locus__mem_over(void);
/* A block kept by a pool instead of freed is counted by the two below as
   malloc and free count it (its usable size): taken back into use during
   a budget, as allocated; kept during one, as freed (parser/pool.c), so
   that reusing memory never hides what a parse uses. */
void locus__mem_reuse(void *p);
void locus__mem_unuse(void *p);
/* The highest growth seen since the last start (for bench/bigline). */
size_t locus__mem_peak(void);

/* tree-sitter's allocator (meson.build compiles its runtime with
   ts_malloc & co. defined as these): never NULL, see alloc.c. */
void *locus__ts_malloc(size_t n);
void *locus__ts_calloc(size_t n, size_t size);
void *locus__ts_realloc(void *p, size_t n);

#ifndef LOCUS_ALLOC_NO_REDIRECT
#define malloc locus__malloc
#define calloc locus__calloc
#define realloc locus__realloc
#define free locus__free
#define strdup locus__strdup
#define strndup locus__strndup
#endif

#endif
