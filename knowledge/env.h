/*
 * knowledge/env.h - what locus knows about environment variables: which
 * ones a program reads as shell text it runs (seen through), which ones
 * run code the line does not show, and which are known to be inert.
 *
 * Read by the parser (parser/passes.c: parse the value, or unparsed) and
 * the labeller (labels/env.c: any other variable the line gives a program
 * is not known harmless, docs/tags.md "Environment assignments").
 */
#ifndef LOCUS_KNOWLEDGE_ENV_H
#define LOCUS_KNOWLEDGE_ENV_H

#include <stddef.h>

typedef enum lk_env_class {
	LK_ENV_UNKNOWN = 0, /* not on any list: may change what runs */
	LK_ENV_INERT,       /* known not to change which program runs or
	                       make one run code */
	LK_ENV_SHELL_TEXT,  /* a program runs the value as shell text
	                       (GIT_PAGER, EDITOR, GIT_SSH_COMMAND...) */
	LK_ENV_HIDDEN_CODE, /* runs code the line does not show (LD_PRELOAD,
	                       BASH_ENV, NODE_OPTIONS, PYTHONSTARTUP...) */
} lk_env_class;

/* The class of the variable name[0..n) (an assignment's NAME). */
lk_env_class lk_env_class_of(const char *name, size_t n);

#endif
