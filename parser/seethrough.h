/*
 * parser/seethrough.h - what the see-through files (seethrough.c,
 * wrappers.c, inline.c) share.  Not part of the walk contract in
 * internal.h: only these three files include it.
 */
#ifndef LOCUS_PARSER_SEETHROUGH_H
#define LOCUS_PARSER_SEETHROUGH_H

#include "internal.h"

/* ---- option grammars (wrappers.c) ------------------------------------ */

enum {
	LP_OPT_ASSIGNS = 1 << 0,    /* NAME=value words after the options (env, sudo) */
	LP_OPT_NUMERIC = 1 << 1,    /* -N is a number option (nice -10) */
	LP_OPT_LONG_EQ = 1 << 2,    /* every --name[=value] is one word (firejail) */
	LP_OPT_BACKGROUND = 1 << 3, /* the wrapped command runs in the background */
	LP_OPT_DASH = 1 << 4,       /* a lone "-" is an option (env -, su -) */
	LP_OPT_H_HOST = 1 << 5,     /* sudo: -h HOST when a non-option follows,
	                               else -h is --help */
	LP_OPT_SU = 1 << 6,         /* su/runuser: [user [shell args...]] */
	LP_OPT_POS_SCRIPT = 1 << 7, /* flock FILE -c CMD: a script option may
	                               follow the operand */
	LP_OPT_OPT_POS = 1 << 8,    /* the operands before the command are
	                               optional (chroot: no command = shell) */
	LP_OPT_PERMUTE = 1 << 9,    /* options may follow operands (ssh) */
};

/*
 * One program's option grammar, from its manual.  Short option sets are
 * strings of letters.  `longs` is a '|'-separated list of "name:LA" where
 * L is the equivalent short letter ('-' for none) and A the arity: '0' a
 * flag, '1' '2' '3' that many values (in the same word after '=' for the
 * first, or the next words), '?' an optional value given only after '='.
 * --help and --version are query options of every program.
 */
typedef struct lp_optspec {
	const char *name;
	const char *short_val;  /* take a value (attached or next word) */
	const char *short_opt;  /* optional value, attached only (-i[ext]) */
	const char *short_flag; /* no value */
	const char *longs;
	const char *query;  /* letters after which nothing else runs */
	const char *script; /* letters whose value is a shell command string */
	const char *nocmd;  /* letters after which the operands are not a
	                       command (ionice -p PID, sudo -e FILE) */
	const char *split;  /* letters whose value is split into the command
	                       (env -S) */
	const char *background; /* letters that run the command in the
	                           background (sudo -b) */
	unsigned npos;      /* operands before the command (timeout 5) */
	uint32_t flags;     /* LP_OPT_* */
	const char *sub;    /* "|exec|x|": the row applies only when the
	                       next word is one of these subcommands (npm
	                       exec, uv run); options are scanned after it */
} lp_optspec;

typedef struct lp_optscan {
	size_t cmd;          /* first word of the command; == nwords if none */
	bool query;          /* a query-only option was seen */
	bool nocmd;          /* the operands are not a command */
	const char *unknown; /* text of an unknown or dynamic option word */
	const lp_word *script; /* the command string of a script option */
	const char *script_value; /* its value (attached or the word's) */
	const char *split_value;  /* env -S value */
	const lp_word *split_word;
	size_t assign_first, assign_end; /* NAME=value words */
	size_t pos_first;    /* first operand (timeout's DURATION, ssh HOST) */
	bool seen[128];      /* short letters (and long equivalents) seen */
	bool seen_bg;        /* a `background` letter was seen */
	const char *replace; /* xargs: value of -I / -i (the replace string) */
} lp_optscan;

/* Scan the options of words[at] (the program) per `spec`. */
void lp_optscan_run(const lp_optspec *spec, const lp_word *words,
                    size_t nwords, size_t at, lp_optscan *out);

/* The wrapper whose basename is `name`, or NULL. */
const lp_optspec *lp_wrapper_find(const char *name);

/* The wrapper row for words[pos] (a subcommand runner such as `npm exec`
   included), or NULL.  *at is the word after which its options start:
   pos, or pos + 1 for a subcommand runner. */
const lp_optspec *lp_wrapper_match(const lp_word *words, size_t n,
                                   size_t pos, size_t *at);

/* The option grammar of a see-through program that is not a wrapper
   (xargs, ssh, watch, parallel, fd...), or NULL. */
const lp_optspec *lp_program_spec(const char *name);

/* True when `s` is NAME=... with a valid shell name. */
bool lp_is_assignment(const char *s);

/* Basename: /usr/bin/rm -> rm. */
const char *lp_base_name(const char *s);

/* ---- interpreters (inline.c) ---------------------------------------- */

/* If `name` is an interpreter with inline code support, handle the
   command at ctx->result->commands[idx] built from raw words[pos..]:
   find its code (-c/-e, program operand, stdin), set INLINE_CODE /
   INLINE_DELETES / STDIN_SCRIPT, parse shell-outs.  Returns false when
   `name` is not an interpreter. */
bool lp_inline_command(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                       size_t idx);

/* Shared with inline.c (seethrough.c): the static text a command's stdin
   carries, for shells and interpreters reading their program from stdin.
   Returns the text, or NULL after handling the case itself (downloader:
   nothing; decoder / unknown producer: unparsed).  `what` names the
   reader in reasons ("a shell", "an interpreter"). */
const char *lp_stdin_text(lp_ctx *ctx, const lp_raw_command *raw,
                          const char *what);

/* True when w names the process's own stdin as a script operand: "-",
   /dev/stdin, /dev/fd/0, /proc/self/fd/0. */
bool lp_is_stdin_word(const lp_word *w);

/* True when stdin is redirected from a process substitution (`< <(...)`):
   the program read there is another command's output. */
bool lp_stdin_procsub(const lp_raw_command *raw);

/* Join values of words[from..to) with spaces; dynamic words contribute
   their text as written.  `quote` single-quotes each value. */
char *lp_join_words(lp_ctx *ctx, const lp_word *words, size_t from,
                    size_t to, bool quote);

/* Effective depth limit. */
unsigned lp_max_depth(const lp_ctx *ctx);

#endif
