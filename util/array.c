/*
 * util/array.c - the type-erased half of Array(T) and the one growth policy.
 */
#include "array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t lu_grow_capacity(size_t cap, size_t need, size_t first, size_t elem)
{
	assert(elem > 0 && first > 0);
	size_t max = SIZE_MAX / elem;
	if (need > max)
		return 0;
	size_t c = cap ? cap : first;
	while (c < need) {
		if (c > max / 2)
			return need; /* doubling would overflow: exactly enough */
		c *= 2;
	}
	return c > max ? max : c;
}

bool lu_array__reserve_impl(void *contents, size_t *capacity, size_t n,
                            size_t elem)
{
	if (n <= *capacity)
		return true;
	size_t cap = lu_grow_capacity(*capacity, n, LU_ARRAY_FIRST, elem);
	if (!cap)
		return false;
	void *old;
	memcpy(&old, contents, sizeof old);
	void *p = realloc(old, cap * elem);
	if (!p)
		return false;
	memcpy(contents, &p, sizeof p);
	*capacity = cap;
	return true;
}

void lu_array__delete_impl(void *contents, size_t *size, size_t *capacity)
{
	void *old;
	memcpy(&old, contents, sizeof old);
	free(old);
	old = NULL;
	memcpy(contents, &old, sizeof old);
	*size = *capacity = 0;
}

void *lu_array__zero(void *p, size_t elem)
{
	return memset(p, 0, elem);
}

size_t lu_sorted_find(const void *base, size_t n, size_t size, size_t offset,
                      const char *key, bool *found)
{
	const char *b = base;
	size_t lo = 0, hi = n;
	*found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *s;
		memcpy(&s, b + mid * size + offset, sizeof s);
		int c = strcmp(s, key);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int lu_strs_insert(char ***items, size_t *n, size_t *cap, const char *s,
                   bool *added)
{
	bool found;
	size_t pos = lu_sorted_find(*items, *n, sizeof **items, 0, s, &found);
	if (added)
		*added = false;
	if (found)
		return 0;
	if (!lu_reserve(items, cap, *n + 1))
		return -1;
	size_t len = strlen(s) + 1;
	char *copy = malloc(len);
	if (!copy)
		return -1;
	memcpy(copy, s, len);
	memmove(*items + pos + 1, *items + pos, (*n - pos) * sizeof **items);
	(*items)[pos] = copy;
	(*n)++;
	if (added)
		*added = true;
	return 0;
}
