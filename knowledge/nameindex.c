/*
 * knowledge/nameindex.c - the hash of (kind, key) -> entries (nameindex.h).
 *
 * Two levels: an open-addressing table of the distinct key hashes, each
 * slot holding the head and tail of its own list of records, so a lookup
 * walks only the records of its key.  Records are appended in entry order
 * at the tail: every list is ascending.  The slot table doubles when half
 * full (the lists move with their slots, unchanged).
 */
#include <stdlib.h>
#include <string.h>

#include "nameindex.h"
#include "../util/array.h"

struct lk_nrec {
	size_t entry;
	uint32_t next; /* record index + 1, 0 at the list's end */
};

typedef struct lk_nslot {
	uint64_t hash;
	uint32_t head, tail; /* record index + 1; head 0: a free slot */
} slot;

/* FNV-1a over the kind and the key. */
static uint64_t key_hash(unsigned kind, const char *key, size_t len)
{
	uint64_t h = 1469598103934665603ull ^ kind;
	h *= 1099511628211ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)key[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* The slot of `hash`, or the free slot where it goes. */
static slot *probe(slot *t, size_t n, uint64_t hash)
{
	size_t i = (size_t)hash & (n - 1);
	while (t[i].head && t[i].hash != hash)
		i = (i + 1) & (n - 1);
	return &t[i];
}

static bool grow(lk_name_index *x)
{
	size_t n = x->nslots ? x->nslots * 2 : 64;
	slot *t = calloc(n, sizeof *t);
	if (!t)
		return false;
	for (size_t i = 0; i < x->nslots; i++)
		if (x->slots[i].head)
			*probe(t, n, x->slots[i].hash) = x->slots[i];
	free(x->slots);
	x->slots = t;
	x->nslots = n;
	return true;
}

bool lk_nidx_add(lk_name_index *x, unsigned kind, const char *key, size_t len,
                 size_t entry)
{
	if (x->nrec >= UINT32_MAX - 1 ||
	    !lu_reserve(&x->rec, &x->caprec, x->nrec + 1))
		return false;
	if ((x->nkeys + 1) * 2 > x->nslots && !grow(x))
		return false;
	assert(!x->nrec || x->rec[x->nrec - 1].entry <= entry);
	uint64_t h = key_hash(kind, key, len);
	slot *s = probe(x->slots, x->nslots, h);
	uint32_t r = (uint32_t)x->nrec + 1;
	x->rec[x->nrec++] = (lk_nrec){entry, 0};
	if (!s->head) {
		*s = (slot){h, r, r};
		x->nkeys++;
		return true;
	}
	if (x->rec[s->tail - 1].entry == entry) {
		x->nrec--; /* the same entry under the same key again */
		return true;
	}
	x->rec[s->tail - 1].next = r;
	s->tail = r;
	return true;
}

lk_nidx_cursor lk_nidx_find(const lk_name_index *x, unsigned kind,
                            const char *key, size_t len)
{
	lk_nidx_cursor c = {0};
	if (x->nslots)
		c.at =
		    probe(x->slots, x->nslots, key_hash(kind, key, len))->head;
	return c;
}

bool lk_nidx_peek(const lk_name_index *x, const lk_nidx_cursor *c,
                  size_t *entry)
{
	if (!c->at)
		return false;
	*entry = x->rec[c->at - 1].entry;
	return true;
}

void lk_nidx_next(const lk_name_index *x, lk_nidx_cursor *c)
{
	if (c->at)
		c->at = x->rec[c->at - 1].next;
}

void lk_nidx_free(lk_name_index *x)
{
	free(x->rec);
	free(x->slots);
	*x = (lk_name_index)LK_NAME_INDEX_INIT;
}
