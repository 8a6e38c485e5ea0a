/*
 * labels/judgement.c - the reasons of one command's judgement (see
 * labels/internal.h): each reason once, in the order found, at most
 * LL_JUDGEMENT_REASONS (then `dropped`).  Shared by the program tables
 * (tables.c) and the packs (pack.c).
 */
#include "internal.h"
#include "../util/str.h"

void ll_judgement_reason(ll_judgement *j, const char *r)
{
	for (size_t i = 0; i < j->nreasons; i++)
		if (j->reasons[i] == r || lu_streq(j->reasons[i], r))
			return;
	if (j->nreasons < LL_JUDGEMENT_REASONS)
		j->reasons[j->nreasons++] = r;
	else
		j->dropped = true;
}
