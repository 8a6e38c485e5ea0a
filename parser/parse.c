/* parser/parse.c - placeholder entry points until the walk lands. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int locus_shell_parser_new(locus_shell_parser **out,
                           const locus_shell_options *opts)
{
	*out = calloc(1, sizeof **out);
	if (!*out)
		return LOCUS_ENOMEM;
	if (opts)
		(*out)->opts = *opts;
	return 0;
}

void locus_shell_parser_free(locus_shell_parser *p)
{
	free(p);
}

locus_shell_result *locus_shell_parser_parse(locus_shell_parser *p,
                                             const char *line, size_t len)
{
	(void)p;
	lp_arena arena;
	lp_arena_init(&arena);
	locus_shell_result *r = lp_arena_alloc(&arena, sizeof *r);
	if (!r) {
		lp_arena_release(&arena);
		return NULL;
	}
	r->arena = arena;
	r->source = lp_arena_strndup(&r->arena, line, len);
	r->source_len = len;
	r->parsed = false;
	r->reason = "parser not implemented";
	return r;
}

locus_shell_result *locus_shell_parse(const char *line, size_t len,
                                      const locus_shell_options *opts)
{
	locus_shell_parser *p;
	if (locus_shell_parser_new(&p, opts))
		return NULL;
	locus_shell_result *r = locus_shell_parser_parse(p, line, len);
	locus_shell_parser_free(p);
	return r;
}
