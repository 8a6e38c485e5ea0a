/*
 * parser/internal.h - what the parser's files share (not public API).
 *
 * The parser is split in two halves that meet at lp_emit():
 *
 *   walk side (parse.c, walk.c, word.c, checks.c, vars.c): bytes -> tree ->
 *     "raw commands": each simple command's words evaluated (quote removal,
 *     same-line constants), its assignments, redirects, connector, pipeline,
 *     origin, and what feeds its stdin.  Substitutions found in its words are
 *     walked after it, with the command as their parent.
 *
 *   see-through side (seethrough.c, wrappers.c, inline.c): lp_emit() takes
 *     one raw command, peels wrappers (emitting each wrapper as its own
 *     command too), and finds code the command runs: `sh -c`, eval, xargs,
 *     find -exec, git aliases, ssh, interpreters' inline code, scripts fed
 *     on stdin.  Nested scripts go back to the walk side through
 *     lp_parse_nested(); nested argv (xargs rm ...) go through lp_emit()
 *     again with a new origin.
 *
 * Everything lives in the result's arena: nothing here is freed piecemeal.
 */
#ifndef LOCUS_PARSER_INTERNAL_H
#define LOCUS_PARSER_INTERNAL_H

#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "locus/shell.h"
#include "../util/str.h"

/* `s` is one of the NULL-terminated `list`. */
static inline bool lp_in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (lu_streq(*list, s))
			return true;
	return false;
}

/* ---- arena ------------------------------------------------------------ */

/* The zeroing rule (arena.c): lp_arena_alloc zeroes, for memory read
   before every byte is written (structs whose fields are left 0, tables
   whose empty slots are 0, flag arrays that are or-ed into); everything
   else (strings, arrays filled up to their count, terminators written
   explicitly) takes lp_arena_alloc_raw, and lp_arena_grow copies without
   zeroing the new tail. */
typedef struct lp_arena_block lp_arena_block;
typedef struct lp_pool lp_pool; /* pool.c: blocks kept across lines */
typedef struct lp_arena {
	lp_arena_block *head;
	lp_pool *pool; /* where the blocks come from and go back to, or NULL
	                  (the allocator) */
	bool failed;   /* an allocation failed: the result is NULL */
} lp_arena;

/* An arena with no pool (blocks from and back to the allocator). */
void lp_arena_init(lp_arena *a);
/* An arena drawing on `pool` (may be NULL); it holds a reference to the
   pool until lp_arena_release(). */
void lp_arena_init_pooled(lp_arena *a, lp_pool *pool);
/* Give every block back (to the pool, or the allocator) and drop the
   pool reference.  The arena is empty and pool-less afterwards. */
void lp_arena_release(lp_arena *a);
/* Zeroed memory, 16-byte aligned; NULL (and a->failed) on OOM. */
void *lp_arena_alloc(lp_arena *a, size_t n);
/* The same, not zeroed: for memory the caller writes before reading. */
void *lp_arena_alloc_raw(lp_arena *a, size_t n);
/* Give back p[0..n) when it is the arena's last allocation (true), so
   that a buffer found to be a copy of another string costs nothing. */
bool lp_arena_pop(lp_arena *a, const void *p, size_t n);
/* Copy of s[0..n) plus a NUL. */
char *lp_arena_strndup(lp_arena *a, const char *s, size_t n);
char *lp_arena_strdup(lp_arena *a, const char *s);
/* printf into the arena. */
char *lp_arena_printf(lp_arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Grow an arena-backed array: returns a new block of new_bytes holding
   the old contents (the old block is simply abandoned).  The bytes past
   old_bytes are not zeroed: callers read an array only up to its count. */
void *lp_arena_grow(lp_arena *a, void *old, size_t old_bytes, size_t new_bytes);

/* The parser's block pool (pool.c): made with the parser (one reference),
   closed when the parser is freed (its kept blocks freed, its reference
   dropped); every arena made by lp_arena_init_pooled holds one more.
   lp_pool_ref() takes a reference. */
lp_pool *lp_pool_new(void);
void lp_pool_ref(lp_pool *pool);
void lp_pool_close(lp_pool *pool);
/* For tests: blocks the pool's arenas took from the allocator so far, and
   bytes the pool keeps now. */
void lp_pool_stats(lp_pool *pool, size_t *made, size_t *kept);

/* A growable byte buffer in the arena. */
typedef struct lp_buf {
	char *data;
	size_t len, cap;
} lp_buf;
bool lp_buf_append(lp_arena *a, lp_buf *b, const char *s, size_t n);
bool lp_buf_putc(lp_arena *a, lp_buf *b, char c);
/* n copies of c */
bool lp_buf_fill(lp_arena *a, lp_buf *b, char c, size_t n);
/* NUL-terminated view (appends a NUL that is not counted in len). */
const char *lp_buf_cstr(lp_arena *a, lp_buf *b);

/* ---- the result ------------------------------------------------------- */

struct locus_shell_result {
	lp_arena arena;
	const char *source;
	size_t source_len;
	bool parsed;
	const char *reason;
	bool has_substitution;
	bool has_background;
	bool has_fork_bomb;
	struct timespec deadline; /* when the time budget of the line ends */
	locus_shell_command *commands;
	size_t ncommands, cap;
	size_t *producers; /* per command: the command whose stdout feeds its
	                      stdin through a pipe, or LOCUS_SHELL_NO_PARENT
	                      (capacity cap) */
	bool commands_in_arena; /* the first LP_FIRST_COMMANDS live in the
	                           arena; past them both arrays are heap
	                           memory (freed with the result) */
	const struct lk_program **programs; /* per command: the program-table
	                      row of its name, looked up once when it is pushed
	                      (NULL: not in the table; capacity cap; in the
	                      arena with the other two) */
};

/* Commands a result holds in its arena before its arrays move to the heap
   (result.c): 98% of the bench batch's lines have at most 4. */
#define LP_FIRST_COMMANDS 4u

/* Free the command arrays when they are heap memory (result.c). */
void lp_result_free_commands(locus_shell_result *r);

/* The program-table row of command i's name (knowledge/programs.h), found
   once when the command was pushed, so that no stage looks a name up
   again (13.7 lookups per line before); NULL when the table does
   not know the name or i is past the end.  A result built by hand (tests)
   has no rows: the name is looked up. */
const struct lk_program *lp_command_program(const locus_shell_result *r,
                                            size_t i);

/* ---- words and raw commands ------------------------------------------ */

typedef struct lp_word {
	const char *value; /* after quote removal and constant resolution */
	const char *text;  /* as written */
	uint32_t flags;    /* LOCUS_WORD_* */
} lp_word;

/* seethrough.c: the word may be, or split into, an option locus cannot
   read (LOCUS_WORD_MAY_BE_OPTION): a run-time value, glob or brace whose
   text does not start with a literal other than '-' or '+', or that may
   split.  Wherever it stands, not only before another word: getopt_long,
   git's parse-options and clap take an option's value in the same word
   (`--exec=CMD`, `-xCMD`). */
bool lp_word_may_be_option(const lp_word *w);

typedef enum lp_stdin_kind {
	LP_STDIN_NONE = 0,
	LP_STDIN_HEREDOC,    /* stdin_text = body; stdin_flags say if the body
	                        had expansions (DYNAMIC) */
	LP_STDIN_HERESTRING, /* stdin_text = the string's value */
	LP_STDIN_PIPE,       /* fed by the previous pipeline stage: see
	                        stdin_producer */
	LP_STDIN_FILE,       /* < file */
} lp_stdin_kind;

typedef struct lp_raw_command {
	size_t nwords;
	lp_word *words; /* command name first, then arguments, in argv order
	                   (arguments after a redirect or heredoc operator merged
	                   back in, as bash does) */
	size_t nassigns;
	lp_word *assigns; /* leading NAME=value; value holds "NAME=value" */
	size_t nredirects;
	locus_shell_redirect *redirects;

	const char *connector;
	size_t pipeline;
	const char *origin;
	size_t parent;
	unsigned depth;
	const char *function_name;
	uint32_t flags; /* LOCUS_CMD_* known to the walk (BACKGROUND,
	                   WRITES_FILES, READS_FILE, SUBST, PIPED_IN,
	                   FUNCTION_DEF) */
	size_t start, end;

	lp_stdin_kind stdin_kind;
	const char *stdin_text; /* heredoc body or herestring value */
	uint32_t stdin_flags;   /* LOCUS_WORD_* of that text */
	size_t stdin_producer;  /* LP_STDIN_PIPE: index of the command whose
	                           stdout feeds this one (innermost command of
	                           the previous stage), else
	                           LOCUS_SHELL_NO_PARENT */
} lp_raw_command;

/* ---- the parse context ----------------------------------------------- */

typedef struct lp_vars lp_vars; /* same-line constants (vars.c) */
typedef struct lp_inline_table lp_inline_table; /* compiled PCRE2 table */

typedef struct lp_ctx {
	struct locus_shell_parser *parser;
	locus_shell_result *result;
	lp_arena *arena; /* == &result->arena */
	locus_shell_options opts;
	struct timespec deadline;
	bool timed_out;
	unsigned steps; /* work counter; the clock is read every 256 steps */
	size_t written_runs; /* written.c: texts parsed as written scripts */
	size_t written_cap;  /* written.c: the most it parses on the line */
	lp_vars *vars;
	size_t next_pipeline; /* walk side: next free pipeline number */
	/* input.c: while text a program fills in from its input is parsed
	   (parallel's command), its replacement strings; else NULL */
	const struct lp_input *input;
} lp_ctx;

/* Heap scratch a parser keeps across lines (spare.c). */
typedef enum lp_spare_slot {
	LP_SPARE_FRAMES, /* walk.c: the frame stack */
	LP_SPARE_LOG,    /* walk.c: the emit log */
	LP_SPARE_WORDS,  /* walk.c: a command's word nodes */
	LP_SPARE_SUBST,  /* walk.c: a command's substitution nodes */
	LP_SPARE_TNODES, /* treepass.c: the tree pass's stack */
	LP_SPARE_SLOTS
} lp_spare_slot;
typedef struct lp_spare {
	void *v;
	size_t cap; /* in elements */
} lp_spare;
/* A kept buffer larger than this is freed instead. */
#define LP_SPARE_MAX_BYTES ((size_t)64 << 10)

/* The parser object behind locus_shell_parser (parse.c). */
struct locus_shell_parser {
	void *ts; /* TSParser * */
	locus_shell_options opts;
	lp_inline_table *inline_table;
	lp_pool *pool; /* arena blocks kept across lines (pool.c) */
	lp_spare spare[LP_SPARE_SLOTS]; /* heap scratch kept (spare.c) */
	void *syms; /* walk side: node kinds looked up once (walk.h lp_syms) */
	bool syms_ready; /* lp_syms_init done: on the first tree-sitter parse,
	                   not at creation (the fast path never needs it) */
	/* What a layer above keeps per parser (the labeller's compiled
	   floor patterns: labels/floor.c), freed with the parser. */
	void *above;
	void (*above_free)(void *);
};

/* Borrow slot `which`'s buffer (NULL and *cap 0 when there is none or it
   is lent), give one back (capacity `cap` elements of `elem` bytes; kept
   when the slot is free or holds a smaller one and it is at most
   LP_SPARE_MAX_BYTES, else freed; NULL is accepted), free them all (with
   the parser). */
void *lp_spare_take(struct locus_shell_parser *p, lp_spare_slot which,
                    size_t *cap);
void lp_spare_give(struct locus_shell_parser *p, lp_spare_slot which, void *v,
                   size_t cap, size_t elem);
void lp_spare_free(struct locus_shell_parser *p);

/* Mark the line unparsed.  The first reason is kept; later ones are
   ignored.  Parsing continues so that every findable command is listed. */
void lp_unparsed(lp_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The line's time budget ran out: unparsed with that reason, or, when it
   already was, the reason it had with the budget said after it. */
void lp_unparsed_budget(lp_ctx *ctx);

/* True once the time budget is spent (marks the line unparsed the first
   time).  Cheap: reads the clock every 256 calls. */
bool lp_out_of_time(lp_ctx *ctx);

/* Append a finished command to the result; returns its index, or
   LOCUS_SHELL_NO_PARENT when the command cap is reached (the line is then
   unparsed) or memory ran out. */
size_t lp_push_command(lp_ctx *ctx, const locus_shell_command *cmd);

/* Walk side: parse `text` (a script found inside the line: `sh -c` payload,
   eval string, heredoc fed to a shell...) and emit its commands with the
   given origin and parent, at depth `depth`.  Past opts.max_depth the line
   is unparsed and nothing is emitted.  `text` is copied as needed. */
void lp_parse_nested(lp_ctx *ctx, const char *text, size_t len,
                     const char *origin, size_t parent, unsigned depth);

/* See-through side: emit one raw command (and whatever it runs).  Returns
   the index of the innermost command that really runs (the peeled one), or
   LOCUS_SHELL_NO_PARENT if nothing was emitted. */
size_t lp_emit(lp_ctx *ctx, lp_raw_command *raw);

/* The command whose stdout feeds command idx through a pipe (the
   innermost command of the previous stage), or LOCUS_SHELL_NO_PARENT
   (none, or a compound command). */
size_t lp_producer(const lp_ctx *ctx, size_t idx);

/* Build the public command for `raw` as is (no peeling) and push it.
   Shared helper for the see-through side: computes name (basename of
   argv[0]), the argv/words/flags arrays, GLOB_ARGS and DYNAMIC_ARGS. */
size_t lp_push_raw(lp_ctx *ctx, const lp_raw_command *raw, size_t first_argv,
                   size_t nwrappers, const char *const *wrappers);

/* written.c: files the line writes and then runs are parsed as the
   runner's input, or the line is unparsed (after the walk). */
void lp_checks_written(lp_ctx *ctx);

/* inline.c: compile / free the interpreter pattern table. */
lp_inline_table *lp_inline_table_new(void);
void lp_inline_table_free(lp_inline_table *t);

#endif
