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
 *
 * Where such a word, or a glob, may be an option the program reads (its
 * first byte is not known, or it may split: LOCUS_WORD_MAY_BE_OPTION),
 * the options of the program's row that delete or run unseen code apply
 * (ll_first_option_word), unless a literal `--` came before it.
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
	/* the input xargs, parallel and fd -x put in is such a word of
	   its own (parser/input.c) */
	return 0;
}

/* The source text of argv[i] (argv is the tail of the words as written:
   assignments and wrappers come first). */
static const char *word_text(const locus_shell_command *c, size_t i)
{
	return c->nwords >= c->argc ? c->words[c->nwords - c->argc + i] : "";
}

/* The value word argv[i] cannot split into several words: it is literal,
   or one double-quoted string ("$DIR"). */
static bool one_word(const locus_shell_command *c, size_t i)
{
	if (!(c->argv_flags[i] & LOCUS_WORD_MAY_BE_OPTION))
		return true;
	const char *t = word_text(c, i);
	size_t n = strlen(t);
	return n >= 2 && t[0] == '"' && t[n - 1] == '"' &&
	       !memchr(t + 1, '"', n - 2);
}

size_t ll_first_option_word(const locus_shell_command *c, size_t from,
                            bool (*takes_value)(const char *opt,
                                                const void *arg),
                            const void *arg)
{
	if (!c->argv_flags ||
	    !(c->flags &
	      (LOCUS_CMD_DYNAMIC_ARGS | LOCUS_CMD_GLOB_ARGS | LOCUS_CMD_SUBST)))
		return 0;
	for (size_t i = from ? from : 1; i < c->argc; i++) {
		uint32_t f = c->argv_flags[i];
		if (f & LOCUS_WORD_MAY_BE_OPTION)
			return i;
		if (f & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST |
		         LOCUS_WORD_GLOB | LOCUS_WORD_BRACE))
			continue;
		if (strcmp(c->argv[i], "--") == 0)
			return 0; /* operands follow */
		/* the value of an option that takes the next word is no
		   option (`make -C "$DIR"`), unless it may split */
		if (takes_value && i + 1 < c->argc &&
		    takes_value(c->argv[i], arg) && one_word(c, i + 1))
			i++;
	}
	return 0;
}
