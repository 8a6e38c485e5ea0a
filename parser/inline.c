/* parser/inline.c - placeholder for the interpreter pattern table. */
#include <stdlib.h>

#include "internal.h"

lp_inline_table *lp_inline_table_new(void)
{
	return NULL;
}

void lp_inline_table_free(lp_inline_table *t)
{
	(void)t;
}
