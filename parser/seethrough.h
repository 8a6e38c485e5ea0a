/*
 * parser/seethrough.h - what the see-through files share (seethrough.c:
 * peeling and dispatch; stdin.c, shells.c, git.c, see_programs.c: what a
 * program runs; wrappers.c: option grammars; inline.c: interpreters'
 * code).  Not part of the walk contract in internal.h.
 */
#ifndef LOCUS_PARSER_SEETHROUGH_H
#define LOCUS_PARSER_SEETHROUGH_H

#include "internal.h"
#include "../knowledge/programs.h"

/* ---- option grammars (wrappers.c) ------------------------------------ */

/* The grammars themselves are rows of the program table
   (knowledge/programs.h, lk_optspec); wrappers.c scans words with them. */

enum { LP_MAX_ENV = 8 };

typedef struct lp_optscan {
	size_t cmd;          /* first word of the command; == nwords if none */
	bool query;          /* a query-only option was seen */
	bool nocmd;          /* the operands are not a command */
	const char *unknown; /* text of an unknown or dynamic option word */
	const lp_word *script;    /* the command string of a script option */
	const char *script_value; /* its value (attached or the word's) */
	const char *split_value;  /* env -S value */
	const lp_word *split_word;
	size_t assign_first, assign_end; /* NAME=value words */
	size_t pos_first;     /* first operand (timeout's DURATION, ssh HOST) */
	bool seen[128];       /* short letters (and long equivalents) seen */
	bool seen_bg;         /* a `background` letter was seen */
	const char *replace;  /* xargs: value of -I / -i (the replace string) */
	bool replace_dynamic; /* that value is only known at run time */
	const lp_word *pipe;  /* a `pipe` option's word (strace -o '|CMD') */
	const char *pipe_value; /* its command, past the | or ! */
	/* the values of `env` options (strace -E NAME=VALUE), in order:
	   NAME=VALUE, or NAME with env_value VALUE (bwrap --setenv NAME
	   VALUE); past LP_MAX_ENV the scan says unknown (fails closed) */
	const char *env[LP_MAX_ENV];
	const char *env_value[LP_MAX_ENV];
	const lp_word *env_word[LP_MAX_ENV];  /* the word env[k] is from */
	const lp_word *env_vword[LP_MAX_ENV]; /* the word env_value[k] is */
	size_t nenv;
} lp_optscan;

/* Scan the options of words[at] (the program) per `spec`. */
void lp_optscan_run(const lk_optspec *spec, const lp_word *words, size_t nwords,
                    size_t at, lp_optscan *out);

/* The wrapper row for words[pos] (a subcommand runner such as `npm exec`
   included), or NULL.  *at is the word after which its options start:
   pos, or pos + 1 for a subcommand runner. */
const lk_program *lp_wrapper_match(const lp_word *words, size_t n, size_t pos,
                                   size_t *at);

/* The option grammar of a see-through program that is not a wrapper
   (xargs, ssh, watch, parallel...), or NULL. */
const lk_optspec *lp_program_spec(const char *name);

/* True when `s` is NAME=... with a valid shell name. */
bool lp_is_assignment(const char *s);

/* Basename: /usr/bin/rm -> rm. */
const char *lp_base_name(const char *s);

/* The table row of a command word's basename, or NULL. */
static inline const lk_program *lp_program(const char *word)
{
	return word ? lk_program_find(lp_base_name(word)) : NULL;
}

/* ---- input words (input.c) ------------------------------------------ */

/* How a program puts its input into the command it runs. */
typedef enum lp_input_kind {
	LP_INPUT_APPEND,   /* xargs: appended after the last word */
	LP_INPUT_REPLACE,  /* xargs -I R: where R stands, nothing appended */
	LP_INPUT_FD,       /* fd -x/-X: {} {/} {//} {.} {/.}, else appended */
	LP_INPUT_PARALLEL, /* parallel: its replacement strings, else
	                      appended */
} lp_input_kind;

typedef struct lp_input {
	lp_input_kind kind;
	const char *replace; /* -I R (parallel: besides {} ...), or NULL */
	bool plus;           /* parallel --plus: any {...} */
	const char *value;   /* what the input is, as a run-time value: the
	                        substitution of its source (`$(git ls-files)`,
	                        `$(echo ARGS)`), or NULL: unknown (${input}) */
} lp_input;

/* The LOCUS_WORD_* flags a word of value v gets from the input: DYNAMIC
   when it holds a replacement string of `in`, MAY_BE_OPTION too when the
   input may start an option; 0 when it holds none. */
uint32_t lp_input_flags(const lp_input *in, const char *v);
/* find -exec's command words w[0..n) as find runs them: a word holding
   {} with a prefix (`.{}` is `../x` for the path `./x`) or with a '/'
   after it (`{}/../M`) is a run-time word, as xargs -I's; {} alone or
   with a suffix that has no '/' ({}.bak) stays a literal path under the
   start point.  NULL when out of memory. */
lp_word *lp_input_find_words(lp_ctx *ctx, const lp_word *w, size_t n);
/* The program appends its input to words[0..n) (no word holds a
   replacement string). */
bool lp_input_appends(const lp_input *in, const lp_word *w, size_t n);
/* words[0..n) as the program runs them: an arena copy with the words
   holding a replacement string flagged (each replacement string's value
   written ${input}), and `{input}` (value ${input}, DYNAMIC and
   MAY_BE_OPTION) appended when the program appends; *nout words.  NULL
   when out of memory. */
lp_word *lp_input_words(lp_ctx *ctx, const lp_input *in, const lp_word *w,
                        size_t n, size_t *nout);
/* `$(PREFIX WORDS)` of the texts of w[from..to) (NULL when out of
   memory): the input's value when it is that command's output. */
const char *lp_input_subst(lp_ctx *ctx, const char *prefix, const lp_word *w,
                           size_t from, size_t to);
/* The input's value when raw reads it from a pipe whose previous stage is
   one command: `$(` its words `)`; else NULL. */
const char *lp_input_piped(lp_ctx *ctx, const lp_raw_command *raw);
/* Under ctx->input: flag r's words, assignments, redirect targets and
   herestring holding a replacement string (copies in the arena).  False
   when out of memory. */
bool lp_input_mark(lp_ctx *ctx, lp_raw_command *r);

/* ---- interpreters (inline.c) ---------------------------------------- */

/* If `name` is an interpreter with inline code support, handle the
   command at ctx->result->commands[idx] built from raw words[pos..]:
   find its code (-c/-e, program operand, stdin), set INLINE_CODE /
   INLINE_DELETES / STDIN_SCRIPT, parse shell-outs.  `prog` is the
   command's row (lp_command_program).  Returns false when it is not an
   interpreter. */
bool lp_inline_command(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                       size_t idx, const lk_program *prog);

/* Shared with inline.c (seethrough.c): the static text a command's stdin
   carries, for shells and interpreters reading their program from stdin.
   Returns the text, or NULL after handling the case itself (downloader:
   nothing; decoder / unknown producer: unparsed).  `what` names the
   reader in reasons ("a shell", "an interpreter"). */
const char *lp_stdin_text(lp_ctx *ctx, const lp_raw_command *raw,
                          const char *what);

/* What a command writes on its stdout, when known statically: echo and
   printf of literal words, cat and tee of a heredoc, tee of a pipe whose
   producer is known.  Returns the text (LP_OUT_TEXT; *dyn set when a
   heredoc in it had expansions), or NULL with *out saying why. */
typedef enum lp_output {
	LP_OUT_UNKNOWN = 0, /* any other program */
	LP_OUT_TEXT,
	LP_OUT_DOWNLOAD, /* a downloader or a socket: remote code */
	LP_OUT_DECODED,  /* a decoder (base64 -d, printf with escapes) */
} lp_output;
const char *lp_command_output(lp_ctx *ctx, size_t idx, lp_output *out,
                              bool *dyn);

/* lp_command_output() for a reader (`what`: "a shell"...): the text, or
   NULL after marking the line unparsed (decoded or unknown output), or
   NULL for a download (left to the labeller). */
const char *lp_output_or_unparsed(lp_ctx *ctx, size_t idx, const char *what);

/* True when w names the process's own stdin as a script operand: "-",
   /dev/stdin, /dev/fd/0, /proc/self/fd/0. */
bool lp_is_stdin_word(const lp_word *w);
/* w, a program or script file a program runs as code, is not a file
   locus can name: a process substitution (`bash <(echo CMD)`), a
   run-time path (`bash "$(printf /tmp/x)"`), /dev/fd or /proc: what it
   is, for the unparsed reason, or NULL. */
const char *lp_program_file_unseen(const lp_word *w);

/* True when stdin is redirected from a process substitution (`< <(...)`):
   the program read there is another command's output. */
bool lp_stdin_procsub(const lp_raw_command *raw);

/* Command i reads, as its stdin, what the program that runs it feeds it:
   it was reached through a program-valued option or a variable naming a
   program (tar --to-command gives the member's content, man -P the page,
   PAGER=sh git's output), directly or through shells given -c, wrappers
   and evals, and has no stdin of its own on the way.  A shell or
   interpreter reading its program there runs text locus never sees. */
bool lp_stdin_from_program(const locus_shell_result *r, size_t i);

/* Inline code of language `lang` (LK_LANG_*) uses only names known to be
   harmless (parser/inline_safe.c): it computes and prints. */
bool lp_inline_proven(const char *code, unsigned lang);

/* Join values of words[from..to) with spaces; dynamic words contribute
   their text as written.  `quote` single-quotes each value. */
char *lp_join_words(lp_ctx *ctx, const lp_word *words, size_t from, size_t to,
                    bool quote);

/* The recipes of makefile text (lines starting with a tab), parsed as
   shell under command idx at `depth`. */
void lp_make_recipes(lp_ctx *ctx, const char *text, size_t idx, unsigned depth);

/* inline.c: scan `code` of language `lang` (LK_LANG_*) as interpreter
   idx's inline code at `depth` (shell-outs parsed, deletes flagged). */
/* awk.c: the commands an awk program runs, each a lone string literal:
   its body code[start..end) (awk escapes undone by the caller), and
   whether the program writes its stdin (`print | "cmd"`). */
enum { LP_AWK_MAX_CMDS = 64 };
typedef struct lp_awk_cmd {
	size_t start, end;
	bool fed;
} lp_awk_cmd;
typedef struct lp_awk_cmds {
	lp_awk_cmd cmd[LP_AWK_MAX_CMDS];
	size_t n;
} lp_awk_cmds;
/* Why the program runs a command that is not a lone literal (a static
   message), or NULL when every one is (then `out` lists them). */
const char *lp_awk_commands(const char *code, lp_awk_cmds *out);
void lp_inline_scan(lp_ctx *ctx, const char *code, unsigned lang, size_t idx,
                    unsigned depth);

/* sed.c: GNU sed's e command and s///e flag in the scripts of the
   command at idx (words[pos] is sed). */
void lp_sed_command(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                    size_t idx);

/* Effective depth limit. */
unsigned lp_max_depth(const lp_ctx *ctx);


/* ---- shared by the see-through files -------------------------------- */

static inline const char *wval(const lp_word *w)
{
	return w->value ? w->value : "";
}

static inline bool wdyn(const lp_word *w)
{
	return (w->flags & LOCUS_WORD_DYNAMIC) != 0;
}

/* seethrough.c: true when the dynamic word words[i] (of n) may stand for
   an option that takes the next word, or for an option and its value:
   its text may begin with '-' (a literal dash or an expansion first) and
   either another word follows or the word is not one double-quoted
   string (an unquoted expansion splits: `bash $X` with X='-c reboot'). */
bool lp_dyn_may_be_option(const lp_word *words, size_t n, size_t i);
/* seethrough.c: true when the dynamic word w may split into several words
   (it is not one double-quoted string). */
bool lp_dyn_may_split(const lp_word *w);

/* seethrough.c: parse `text` (NULL: nothing) as a nested script; emit
   words[0..n) as a command reached through `parent`. */
void lp_parse_text(lp_ctx *ctx, const char *text, const char *origin,
                   size_t parent, unsigned depth);
size_t lp_emit_nested(lp_ctx *ctx, const lp_raw_command *raw,
                      const lp_word *words, size_t n, const char *origin,
                      size_t parent, uint32_t extra_flags);

/* stdin.c: the paths that name the process's own stdin. */
extern const char *const lp_stdin_paths[];

/* shells.c */
bool lp_is_shell(const char *name);
void lp_shell_scan(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                   size_t idx, bool fish, const char *origin);

/* see_programs.c: a dynamic first operand of a subcommand runner; ssh's
   other ways to name local code. */
void lp_check_dynamic_subcommand(lp_ctx *ctx, const lp_raw_command *raw,
                                 size_t pos, const char *name,
                                 const lk_program *prog);
void lp_ssh_config_sources(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                           const char *name);

/* The see-through of one program: raw's command at words[pos], emitted
   as command idx (shells.c, git.c, see_programs.c). */
#define LP_SEE(name)                                                           \
	void name(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,          \
	          size_t idx)
LP_SEE(lp_see_eval);
LP_SEE(lp_see_trap);
LP_SEE(lp_see_xargs);
LP_SEE(lp_see_parallel);
LP_SEE(lp_see_find);
LP_SEE(lp_see_fd);
LP_SEE(lp_see_git);
LP_SEE(lp_see_ssh);
LP_SEE(lp_see_watch);
LP_SEE(lp_see_at);
LP_SEE(lp_see_crontab);
LP_SEE(lp_see_make);
LP_SEE(lp_see_cmake);
#undef LP_SEE
/* Program-valued options of words[pos] (sub: the subcommand's index, for
   git's per-subcommand options). */
void lp_see_optvals(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                    size_t sub, size_t idx);

/* Wrappers peeled from one command (`sudo env nice ... CMD`) before the
   line is unparsed: real lines have a handful, and each costs the words
   after it (lp_emit). */
#define LP_MAX_WRAPPER_CHAIN 64

#endif
