/*
 * util/array.h - Array(T): a typed growable array with asserted access.
 *
 * In the style of tree-sitter's lib/src/array.h: a macro struct
 * {contents, size, capacity} over a few type-erased helpers.  Unlike
 * tree-sitter's, growth never aborts: lu_array_push() and
 * lu_array_reserve() return false when memory runs out and leave the
 * array as it was, so library code can fail cleanly (GUIDE.md: the library
 * never exits).  Capacity doubles from LU_ARRAY_FIRST (or from what a
 * reserve asked for).  An all-zero Array is empty and valid; free it with
 * lu_array_delete().
 *
 *     Array(int) a = LU_ARRAY_INIT;
 *     if (!lu_array_push(&a, 42)) return LOCUS_ENOMEM;
 *     int x = *lu_array_get(&a, 0);   // asserts 0 < a.size
 *     lu_array_delete(&a);
 */
#ifndef LOCUS_UTIL_ARRAY_H
#define LOCUS_UTIL_ARRAY_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>

#define LU_ARRAY_FIRST 8

#define Array(T)                                                               \
	struct {                                                               \
		T *contents;                                                   \
		size_t size;                                                   \
		size_t capacity;                                               \
	}

#define LU_ARRAY_INIT                                                          \
	{                                                                      \
		NULL, 0, 0                                                     \
	}

/* Make room for `n` elements in all (not `n` more).  False on overflow or
   out of memory; the array is unchanged then. */
#define lu_array_reserve(a, n)                                                 \
	lu_array__reserve(&(a)->contents, &(a)->capacity, (n),                 \
	                  sizeof *(a)->contents)

/* Append v (evaluated once, after the growth).  False when out of memory:
   nothing was appended. */
#define lu_array_push(a, v)                                                    \
	(lu_array_reserve((a), (a)->size + 1)                                  \
	     ? ((a)->contents[(a)->size++] = (v), true)                        \
	     : false)

/* Append one zeroed element and return a pointer to it, or NULL. */
#define lu_array_grow_one(a)                                                   \
	(lu_array_reserve((a), (a)->size + 1)                                  \
	     ? lu_array__zero(&(a)->contents[(a)->size++],                     \
	                      sizeof *(a)->contents)                           \
	     : NULL)

/* The same growth for a (pointer, size_t capacity) pair of any struct whose
   fields are not an Array(T): make room for `need` elements in *ptr.
   False when out of memory (nothing changed).
       if (!lu_reserve(&rs->items, &rs->cap, rs->n + 1)) return ENOMEM; */
#define lu_reserve(ptr, cap, need)                                             \
	lu_array__reserve((ptr), (cap), (need), sizeof **(ptr))

/* A pointer to element i; asserts i < size. */
#define lu_array_get(a, i)                                                     \
	(assert((size_t)(i) < (a)->size), &(a)->contents[(size_t)(i)])

/* The last element; asserts the array is not empty. */
#define lu_array_back(a) lu_array_get((a), (a)->size - 1)

/* Remove and return the last element; asserts the array is not empty. */
#define lu_array_pop(a) (assert((a)->size > 0), (a)->contents[--(a)->size])

#define lu_array_clear(a) ((a)->size = 0)

/* Free the storage; the array is empty and reusable afterwards. */
#define lu_array_delete(a)                                                     \
	lu_array__delete(&(a)->contents, &(a)->size, &(a)->capacity)

/*
 * The capacity to grow to so that at least `need` elements fit: `cap`
 * doubled (from `first` when 0) until it does.  0 when that overflows
 * SIZE_MAX / elem (the caller fails as for out of memory).  Shared by the
 * buffers and the arrays that live in other allocators (the parser's
 * arena), so every growth policy is this one.
 */
size_t lu_grow_capacity(size_t cap, size_t need, size_t first, size_t elem);

/* ---- sorted arrays of strings ------------------------------------------ */

/*
 * Binary search in n elements of `size` bytes at base, sorted by the
 * `const char *` member at byte `offset` of each (strcmp order; offset 0
 * and size sizeof(char *) for a plain array of strings).  Returns the index
 * of `key`, *found true, or the index it would be inserted at, *found false.
 */
size_t lu_sorted_find(const void *base, size_t n, size_t size, size_t offset,
                      const char *key, bool *found);

/*
 * Insert a copy of s into the sorted array of unique strings *items
 * (*n used, *cap allocated).  0 when inserted or already there (*added,
 * if given, says which), -1 when out of memory (nothing changed).
 */
int lu_strs_insert(char ***items, size_t *n, size_t *cap, const char *s,
                   bool *added);

/* ---- type-erased helpers (use the macros above) ----------------------- */

/* `contents` is the address of a T* (passed as void * so any T works
   without type-punning through void **). */
bool lu_array__reserve_impl(void *contents, size_t *capacity, size_t n,
                            size_t elem);
void lu_array__delete_impl(void *contents, size_t *size, size_t *capacity);
void *lu_array__zero(void *p, size_t elem);

#define lu_array__reserve(contents, capacity, n, elem)                         \
	lu_array__reserve_impl((void *)(contents), (capacity), (n), (elem))
#define lu_array__delete(contents, size, capacity)                             \
	lu_array__delete_impl((void *)(contents), (size), (capacity))

#endif
