/*
 * labels/dynamic.c - where a command's arguments stop being known before
 * run time (docs/tags.md, "Arguments computed at run time").
 *
 * A word holding an unresolved expansion or a substitution may be any
 * value, and unquoted it may split into any number of words: from the
 * first such word on, the argument rules (tables.c, the packs) treat the
 * rest of the command as unknown and apply every rule that some value
 * could satisfy.  The never-allow floor is not derived this way: it needs
 * the literal form.
 */
#include <string.h>

#include "internal.h"

size_t ll_first_dynamic_arg(const locus_shell_command *c)
{
	if (c->argv_flags)
		for (size_t i = 1; i < c->argc; i++)
			if (c->argv_flags[i] &
			    (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST))
				return i;
	/* xargs and fd -x without a placeholder append their input after
	   the last word (the parser marks the command, not a word) */
	if ((c->flags & LOCUS_CMD_DYNAMIC_ARGS) && c->origin &&
	    (strcmp(c->origin, LOCUS_ORIGIN_XARGS) == 0 ||
	     strcmp(c->origin, LOCUS_ORIGIN_PARALLEL) == 0 ||
	     strcmp(c->origin, LOCUS_ORIGIN_FD_EXEC) == 0))
		return c->argc;
	return 0;
}
