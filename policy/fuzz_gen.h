/*
 * policy/fuzz_gen.h - the metamorphic line generator shared by fuzz_bypass and the
 * execution oracle: corpus lines with known exec:* tags, rewritten by
 * transformations that keep what bash runs (docs/fuzzing.md).
 */
#ifndef LOCUS_FUZZ_GEN_H
#define LOCUS_FUZZ_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "locus/labels.h"

/* The tags a transformation must keep (or turn into exec:unparsed). */
#define GEN_DANGER_TAGS                                                        \
	(LOCUS_TAG_DESTRUCTIVE | LOCUS_TAG_VCS_PUSH | LOCUS_TAG_FORCE_PUSH |   \
	 LOCUS_TAG_NETWORK | LOCUS_TAG_REMOTE_CODE | LOCUS_TAG_SHUTDOWN |      \
	 LOCUS_TAG_NEVER)

typedef struct gen_line {
	char *text;    /* malloc'd, NUL-terminated */
	uint32_t tags; /* exec:* tags locus gives the original */
	int fork_bomb; /* never executed by the oracle */
} gen_line;

typedef struct gen_corpus {
	gen_line *lines;
	size_t n, cap;
} gen_corpus;

/* Load the `$ ` cases (single physical line, no `$e`) of every *.txt file
 * under each path (file or directory, recursive).  With `need_tags`, keep
 * only parsed lines carrying a GEN_DANGER_TAGS tag; otherwise keep every
 * line.  Returns 0, or -1 on an unreadable path. */
int gen_corpus_load(gen_corpus *c, locus_shell_parser *p,
                    const char *const *paths, size_t npaths, int need_tags);
void gen_corpus_free(gen_corpus *c);

/* Transform `base` with the PRNG seeded by `seed`: a malloc'd line (NULL
 * when memory runs out), and in `trace` a short list of the
 * transformations applied. */
char *gen_transform(const char *base, uint64_t seed, char *trace,
                    size_t tracecap);

/* splitmix64 */
uint64_t gen_mix(uint64_t x);

#endif
