/*
 * parser/fastpath.h - the plain-word fast path (fastpath.c): scripts made
 * only of plain and quoted words, | && || and ;, read without tree-sitter
 * into the same raw commands the walk builds.
 */
#ifndef LOCUS_PARSER_FASTPATH_H
#define LOCUS_PARSER_FASTPATH_H

#include "walk.h"

/* True when s[0..n) is a script the fast path reads (pure: no side
   effect).  The differential tests use it to count what it accepts. */
bool lp_fastpath_accepts(const char *s, size_t n);

/* Walk t (the line or a nested script, already through the byte gates)
   without tree-sitter when the fast path accepts it and the parser's
   options allow it: emits its commands as lp_walk_tree would and returns
   true.  False, with nothing done, otherwise. */
bool lp_fastpath_walk(lp_tree *t, const char *origin, size_t parent,
                      unsigned depth);

/* True when the environment turns the fast path off (LOCUS_FASTPATH=0 or
   off): read once when a parser is made. */
bool lp_fastpath_env_off(void);

#endif
