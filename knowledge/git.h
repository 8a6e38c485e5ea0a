/*
 * knowledge/git.h - what locus knows about git's command grammar, read by
 * the parser (parser/git.c: what git runs) and the labeller
 * (labels/tables.c, labels/packs_git.c: what git config changes).
 *
 * Rows, not code: the subcommands that run their operands as a shell
 * command (`git submodule foreach CMD`, `git bisect run CMD ARGS`) and the
 * options of `git config` that take a value, so that every reader of
 * `git config [options] [set] KEY VALUE` finds the same KEY and VALUE.
 */
#ifndef LOCUS_KNOWLEDGE_GIT_H
#define LOCUS_KNOWLEDGE_GIT_H

#include <stdbool.h>
#include <stddef.h>

/* git SUB [options] VERB [options] CMD...: the operands after VERB are a
   command git runs with a shell. */
typedef struct lk_git_runner {
	const char *sub;  /* "submodule" */
	const char *verb; /* "foreach" */
	bool verb_opts;   /* options may follow VERB (submodule foreach
	                     --recursive CMD) */
	bool argv;        /* CMD ARGS is an argv, each word quoted into the
	                     script (bisect run); else the words are joined
	                     as shell text (submodule foreach) */
} lk_git_runner;

/* The runner row of subcommand `sub`, or NULL. */
const lk_git_runner *lk_git_runner_find(const char *sub);

/* True when `opt`, an option word of `git config`, takes the next word as
   its value (-f FILE, --type TYPE...). */
bool lk_git_config_takes_value(const char *opt);

/*
 * The operands of `git config [options] [set] KEY VALUE...`: the words
 * from `from` to `n` (word(words, i) is the text of word i), options and
 * their values skipped, the `set` verb of git 2.46 dropped.  Writes the
 * indices of at most `max` operands to ops and returns how many.
 */
size_t lk_git_config_operands(const char *(*word)(const void *, size_t),
                              const void *words, size_t from, size_t n,
                              size_t *ops, size_t max);

/* The `word` of lk_git_config_operands() for a plain argv (a
   `const char *const *`). */
const char *lk_argv_word(const void *argv, size_t i);

/* KEY (n bytes, "section[.sub].var", compared as git compares: without
   case for the section and the variable) is on the closed list of keys
   known to be inert: data git never runs, no program, URL,
   file or directory it reads code from.  Every other key may run
   something. */
bool lk_git_key_inert(const char *key, size_t n);

/* Subcommand `sub` reads git's revision and diff options (setup_revisions,
   diff_opt_parse), or its own, such that some option writes any file
   (`--output=FILE`, archive's `-o`) or runs a program the repository's
   config names (`--ext-diff`, `--textconv`): checked in git 2.39 inside
   bubblewrap, where `git SUB --output=F` creates F even when git then
   stops on a usage error. */
bool lk_git_sub_output_opts(const char *sub);

/* The option word `opt` of those subcommands takes the next word as its
   value (`git log -n "$N"`, `--author "$A"`): exact spellings only,
   checked in git 2.39 inside bubblewrap (`git log OPT --output=F` did
   not create F). */
bool lk_git_rev_value_opt(const char *opt);

/* What an option word of a subcommand does past the repository
   (lk_git_opt_effect): */
enum {
	LK_GIT_ANYWHERE = 1, /* writes paths outside the repository (apply
	                        --unsafe-paths) */
	LK_GIT_HOOKS = 2,    /* installs hooks from a directory, which later
	                        git commands run (init/clone --template) */
};
/* The LK_GIT_* bits option word `arg` of `git SUB` gives (any
   abbreviation git takes for it; `--template=DIR` or `--template` DIR):
   0 for every other word. */
unsigned lk_git_opt_effect(const char *sub, const char *arg);
#endif
