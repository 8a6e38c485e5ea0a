/*
 * knowledge/nameindex.h - entries found by name, in the order they came.
 *
 * The index behind the writers of a line (linefacts.c): each entry (a
 * name a command writes, numbered in insertion order) is filed under one
 * or more (kind, key) pairs, and a lookup lists the entries filed under a
 * pair in ascending order, so that a search that stops after the first
 * few matches sees them in source order, as a scan would.  Only the key's
 * hash is kept: a collision yields an extra candidate, which the caller's
 * own match test (the exact rule, kept in one place) turns down.
 */
#ifndef LOCUS_KNOWLEDGE_NAMEINDEX_H
#define LOCUS_KNOWLEDGE_NAMEINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lk_nrec lk_nrec; /* one entry in the list of a key */

typedef struct lk_name_index {
	lk_nrec *rec;
	size_t nrec, caprec;
	struct lk_nslot *slots; /* the distinct keys (nameindex.c) */
	size_t nslots;          /* a power of two, or 0 */
	size_t nkeys;
} lk_name_index;

#define LK_NAME_INDEX_INIT                                                     \
	{                                                                      \
		NULL, 0, 0, NULL, 0, 0                                         \
	}

/* File `entry` (not below any entry filed before) under (kind, key[0..len)).
   False when out of memory (the index is unchanged and still usable). */
bool lk_nidx_add(lk_name_index *x, unsigned kind, const char *key, size_t len,
                 size_t entry);

/* A position in the list of one (kind, key). */
typedef struct lk_nidx_cursor {
	uint32_t at; /* record index + 1 of the next candidate, 0: done */
} lk_nidx_cursor;

/* Start the list of (kind, key[0..len)). */
lk_nidx_cursor lk_nidx_find(const lk_name_index *x, unsigned kind,
                            const char *key, size_t len);

/* The entry at the cursor (true), or false at the end of the list. */
bool lk_nidx_peek(const lk_name_index *x, const lk_nidx_cursor *c,
                  size_t *entry);

/* Past the entry at the cursor. */
void lk_nidx_next(const lk_name_index *x, lk_nidx_cursor *c);

void lk_nidx_free(lk_name_index *x);

#endif
