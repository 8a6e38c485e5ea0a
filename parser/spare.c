/*
 * parser/spare.c - heap scratch a parser keeps across lines (internal.h,
 * lp_spare_*): the walk's frame stack, its emit log and the per-command
 * node lists, which every walk used to malloc and free again.
 *
 * A walk borrows a slot's buffer at its start and gives it back at its
 * end; a nested walk (a script inside the line) finds the slot empty and
 * uses a buffer of its own, which it gives back in turn (the larger of two
 * is kept).  A buffer past LP_SPARE_MAX_BYTES is freed instead of kept, so
 * one huge line does not pin its memory.  Only the parser's thread touches
 * the slots (one parser per thread).  The memory budget counts a borrowed
 * buffer as allocated and a kept one as freed (util/alloc.h), as the pool
 * does (pool.c).
 */
#include <stdlib.h>

#include "internal.h"
#include "util/alloc.h"

void *lp_spare_take(locus_shell_parser *p, lp_spare_slot which, size_t *cap)
{
	lp_spare *s = &p->spare[which];
	void *v = s->v;
	*cap = v ? s->cap : 0;
	s->v = NULL;
	s->cap = 0;
	if (v)
		locus__mem_reuse(v);
	return v;
}

/* Free a kept buffer: the budget took it off when it was kept. */
static void drop_kept(void *v)
{
	locus__mem_reuse(v);
	free(v);
}

void lp_spare_give(locus_shell_parser *p, lp_spare_slot which, void *v,
                   size_t cap, size_t elem)
{
	lp_spare *s = &p->spare[which];
	if (!v)
		return;
	if (cap > LP_SPARE_MAX_BYTES / elem || (s->v && s->cap >= cap)) {
		free(v);
		return;
	}
	if (s->v) /* the smaller of the two */
		drop_kept(s->v);
	locus__mem_unuse(v);
	s->v = v;
	s->cap = cap;
}

void lp_spare_free(locus_shell_parser *p)
{
	for (unsigned i = 0; i < LP_SPARE_SLOTS; i++) {
		if (p->spare[i].v)
			drop_kept(p->spare[i].v);
		p->spare[i].v = NULL;
		p->spare[i].cap = 0;
	}
}
