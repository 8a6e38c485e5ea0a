/*
 * locus/shell.h - parse a bash line into the simple commands it would run.
 *
 * locus_shell_parse() is the analyzer's front door (spec shell.md section 1).
 * It never fails on input: bad, hostile or unparsable text gives a result
 * whose `parsed` is false, with a reason, and still lists every command that
 * could be found.  The only failure is running out of memory (NULL).
 *
 * Ownership: a locus_shell_result owns every string and array reachable from
 * it (one arena).  Pointers returned by the accessors are borrowed and valid
 * until locus_shell_result_free().  All strings are NUL-terminated; word
 * values never contain NUL (bash cannot pass one in argv, and input holding
 * a NUL byte is unparsed).
 *
 * Thread safety: no global mutable state.  Results are immutable once
 * returned and may be read from several threads.
 */
#ifndef LOCUS_SHELL_H
#define LOCUS_SHELL_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flags of one word (argv element, assignment value, redirect target),
   bits of a uint32_t. */
typedef enum locus_word_flags {
	LOCUS_WORD_DYNAMIC = 1 << 0, /* value not known before run time: an
	                                unresolved $VAR, ${..}, $(..), `..` */
	LOCUS_WORD_GLOB = 1 << 1,    /* unquoted * ? [ (pathname expansion) */
	LOCUS_WORD_BRACE = 1 << 2,   /* unquoted brace expansion {a,b} {1..3} */
	LOCUS_WORD_SUBST = 1 << 3, /* holds a command or process substitution */
	LOCUS_WORD_EXPANSION = 1 << 4, /* holds a parameter expansion, resolved
	                                  or not (same-line constants resolve) */
	LOCUS_WORD_ARITH = 1 << 5,  /* holds $((..)); static when its operands
	                                are, so it does not set DYNAMIC alone */
	LOCUS_WORD_QUOTED = 1 << 6, /* some part was quoted or escaped */
	LOCUS_WORD_MAY_BE_OPTION =
	    1 << 7, /* a value known only at run time (DYNAMIC, SUBST, or an
	               unquoted glob or brace) that may be, or split into, an
	               option locus cannot read: its first byte is not a
	               literal other than '-' or '+' (`"$X"`, `*`, `"-$x"`),
	               or it may split (`src/$f`) */
} locus_word_flags;

/* Flags of one simple command, bits of a uint32_t. */
typedef enum locus_cmd_flags {
	LOCUS_CMD_DYNAMIC = 1 << 0,      /* argv[0] computed at run time and not
	                                     resolved: the line is unparsed */
	LOCUS_CMD_WRITES_FILES = 1 << 1, /* a > >> &> >| redirect to a file
	                                     other than /dev/null, not an fd dup */
	LOCUS_CMD_READS_FILE = 1 << 2,   /* an input redirect (<, <&file) from a
	                                     file; heredocs and herestrings are not */
	LOCUS_CMD_BACKGROUND = 1 << 3,   /* run with & or coproc */
	LOCUS_CMD_SUBST = 1 << 4,        /* a word of it holds a substitution */
	LOCUS_CMD_INLINE_CODE = 1 << 5, /* an interpreter given code inline (-c,
	                                     -e, heredoc, literal pipe): never
	                                     read-only */
	LOCUS_CMD_INLINE_DELETES =
	    1 << 6,                    /* that code calls a file-deleting API */
	LOCUS_CMD_QUERY_ONLY = 1 << 7, /* a wrapper used only to query
	                                     (command -v, sudo -l, --help): it runs
	                                     nothing else */
	LOCUS_CMD_STDIN_SCRIPT = 1 << 8,  /* a shell or interpreter reading its
	                                     program from stdin (heredoc,
	                                     herestring, pipe) */
	LOCUS_CMD_WRAPPER = 1 << 9,       /* this command is a wrapper that the
	                                     next command(s) were peeled from */
	LOCUS_CMD_FUNCTION_DEF = 1 << 10, /* inside a function body (origin
	                                     "function"); `function_name` is set */
	LOCUS_CMD_GLOB_ARGS = 1 << 11,    /* some argument has GLOB or BRACE */
	LOCUS_CMD_DYNAMIC_ARGS = 1 << 12, /* some word (argv, assignment,
	                                     redirect target) is DYNAMIC */
	LOCUS_CMD_ASSIGN_ONLY = 1 << 13,  /* a bare assignment statement (X=1),
	                                     reported as a command with argc 0 */
	LOCUS_CMD_PIPED_IN = 1 << 14,     /* stdin comes from the previous stage
	                                     of its pipeline (connector | or |&) */
	LOCUS_CMD_INLINE_UNPROVEN = 1 << 15, /* inline code locus cannot prove
	                                        harmless (closed world: its
	                                        names are not all known) */
} locus_cmd_flags;

/* Where a nested command came from (`origin`). Strings are stable names. */
#define LOCUS_ORIGIN_TOP ""
#define LOCUS_ORIGIN_SUBSTITUTION "substitution"
#define LOCUS_ORIGIN_PROCESS_SUBSTITUTION "process-substitution"
#define LOCUS_ORIGIN_SHELL_C "shell -c"
#define LOCUS_ORIGIN_STDIN_SCRIPT "stdin-script"
#define LOCUS_ORIGIN_EVAL "eval"
#define LOCUS_ORIGIN_XARGS "xargs"
#define LOCUS_ORIGIN_PARALLEL "parallel"
#define LOCUS_ORIGIN_FIND_EXEC "find -exec"
#define LOCUS_ORIGIN_FD_EXEC "fd -x"
#define LOCUS_ORIGIN_GIT_ALIAS "git alias"
#define LOCUS_ORIGIN_GIT_CONFIG "git config"
#define LOCUS_ORIGIN_SSH "ssh"
#define LOCUS_ORIGIN_WATCH "watch"
#define LOCUS_ORIGIN_INLINE_CODE "inline-code"
#define LOCUS_ORIGIN_FUNCTION "function"
#define LOCUS_ORIGIN_WRAPPER_SCRIPT "wrapper -c" /* su -c, script -c, env -S */
#define LOCUS_ORIGIN_TRAP "trap"
#define LOCUS_ORIGIN_OPTION                                                    \
	"option" /* a program-valued option: git grep -O,
                                       tar --to-command, ssh -o ProxyCommand */
#define LOCUS_ORIGIN_ENVIRONMENT "environment" /* GIT_EDITOR=..., PAGER=... */
#define LOCUS_ORIGIN_WRITTEN_SCRIPT                                            \
	"written-script" /* a file the line wrote,
                                                        then ran */

typedef struct locus_shell_redirect {
	const char *op; /* as written: "<" ">" ">>" "&>" "&>>" ">|" "<&" ">&"
	                       "<<" "<<-" "<<<" ... */
	int fd;         /* explicit descriptor number, or -1 */
	const char *target;    /* the target's value (quote removal done); for a
	                       heredoc its body, for a herestring the string */
	uint32_t target_flags; /* LOCUS_WORD_* of the target */
} locus_shell_redirect;

typedef struct locus_shell_command {
	/* argv after wrappers and leading assignments are stripped; argv[0] is
	   what runs.  argc may be 0 (a bare `sudo`, or an assignment-only
	   statement). */
	size_t argc;
	const char *const *argv;
	const uint32_t *argv_flags; /* LOCUS_WORD_* per argv element */

	const char *name; /* basename of argv[0]; "" when argc is 0 */

	size_t nwords;
	const char *const *words; /* as written (source text of each word,
	                             wrappers and assignments included,
	                             redirections excluded) */

	size_t nwrappers;
	const char *const *wrappers; /* names of wrappers peeled off, outer
	                                first: {"sudo", "env"} */

	size_t nassignments;
	const char *const *assignments; /* "NAME=value" (value after quote
	                                   removal), from the line or a peeled
	                                   env */

	size_t nredirects;
	const locus_shell_redirect *redirects;

	const char *connector; /* "", ";", "&&", "||", "|", "|&", "&" */
	size_t pipeline;       /* commands of one pipeline share the number */
	const char *origin;    /* LOCUS_ORIGIN_* */
	size_t parent;         /* index of the command it was reached through
	                          (the command holding the substitution, the
	                          shell given -c, the wrapper...), or
	                          LOCUS_SHELL_NO_PARENT */
	unsigned depth;        /* 0 at top level, +1 per see-through step */
	const char *function_name; /* enclosing function for FUNCTION_DEF
	                              commands, else NULL */
	uint32_t flags;            /* LOCUS_CMD_* */
	size_t start, end; /* byte range in the top-level input of the text
	                          the command was found in (the whole nested
	                          script's span for nested commands) */
} locus_shell_command;

#define LOCUS_SHELL_NO_PARENT ((size_t)-1)

/*
 * Limits of a parser.  Versioned (libgit2 style): start from
 * LOCUS_SHELL_OPTIONS_INIT and set what you need; a struct whose version
 * the library does not know is refused (LOCUS_EINVALID).
 */
typedef struct locus_shell_options {
	unsigned version;    /* LOCUS_SHELL_OPTIONS_VERSION */
	size_t max_bytes;    /* input size limit; 0 = default 1 MiB */
	unsigned max_depth;  /* see-through depth limit; 0 = default 16 */
	unsigned budget_ms;  /* time budget for the whole parse; 0 = 500 */
	size_t max_commands; /* cap on commands listed; 0 = default 100000 */
	unsigned flags;      /* LOCUS_SHELL_* below; 0 = defaults */
} locus_shell_options;

#define LOCUS_SHELL_OPTIONS_VERSION 1
#define LOCUS_SHELL_OPTIONS_INIT                                               \
	{                                                                      \
		.version = LOCUS_SHELL_OPTIONS_VERSION                         \
	}

/** Fill `opts` with the defaults: zeroed (every field's zero is its
 *  default) with `version` set; the function form of LOCUS_SHELL_OPTIONS_INIT.
 *  @return 0, LOCUS_EUSAGE (NULL opts), LOCUS_EINVALID (a version
 *          other than LOCUS_SHELL_OPTIONS_VERSION; opts untouched) */
LOCUS_API int locus_shell_options_init(locus_shell_options *opts,
                                       unsigned version);

/* Flags of locus_shell_options. */
enum {
	/* Never use the plain-word fast path: every script goes through
	   tree-sitter (the differential tests; the benchmark's baseline).
	   The environment variable LOCUS_FASTPATH=0 does the same for every
	   parser made while it is set. */
	LOCUS_SHELL_NO_FASTPATH = 1u << 0,
};

#define LOCUS_SHELL_DEFAULT_MAX_BYTES ((size_t)1 << 20)
#define LOCUS_SHELL_DEFAULT_MAX_DEPTH 16u
#define LOCUS_SHELL_DEFAULT_BUDGET_MS 500u
#define LOCUS_SHELL_DEFAULT_MAX_COMMANDS ((size_t)100000)

typedef struct locus_shell_result locus_shell_result;
typedef struct locus_shell_parser locus_shell_parser;

/**
 * Create a reusable parser (holds a tree-sitter parser and compiled
 * patterns).  Reusing one parser for many lines is much faster than
 * locus_shell_parse() per line.  One parser must not be used by two threads
 * at once; use one per thread.
 *
 * @param[out] out   the parser, freed with locus_shell_parser_free()
 * @param opts       optional limits, copied; NULL for defaults
 * @return 0, LOCUS_ENOMEM, or LOCUS_EINVALID if the grammar's ABI does not
 *         match the runtime or `opts` has an unknown version
 */
LOCUS_API int locus_shell_parser_new(locus_shell_parser **out,
                                     const locus_shell_options *opts);

/** Free a parser.  NULL is accepted. */
LOCUS_API void locus_shell_parser_free(locus_shell_parser *parser);

/**
 * Parse one bash line (it may span several physical lines).
 *
 * @param parser  from locus_shell_parser_new()
 * @param line    bytes, borrowed, need not be NUL-terminated
 * @param len     their count
 * @return a result, owned by the caller and freed with
 *         locus_shell_result_free(); NULL only when memory runs out.
 *         Unparsable input is not an error: see locus_shell_result_parsed().
 *         A line past the size limit, about 400,000 tokens, the command
 *         cap, the time budget, or 96 MiB of heap growth for its parse
 *         (tree-sitter included) is unparsed with that reason.
 */
LOCUS_API locus_shell_result *
locus_shell_parser_parse(locus_shell_parser *parser, const char *line,
                         size_t len);

/**
 * One-shot convenience: a temporary parser with `opts` (may be NULL).
 * NULL when memory runs out or `opts` has an unknown version.
 */
LOCUS_API locus_shell_result *
locus_shell_parse(const char *line, size_t len,
                  const locus_shell_options *opts);

/** Free a result.  NULL is accepted. */
LOCUS_API void locus_shell_result_free(locus_shell_result *result);

/** True when the line parsed cleanly (spec: not "unparsed"). */
LOCUS_API bool locus_shell_result_parsed(const locus_shell_result *result);

/**
 * Why the line is unparsed, e.g. "the parser found a syntax error at byte
 * 12", "input holds a NUL byte", "command name is dynamic: $X".  NULL when
 * parsed.  Borrowed from the result.
 */
LOCUS_API const char *
locus_shell_result_reason(const locus_shell_result *result);

/** The input as given (borrowed copy owned by the result) and its length. */
LOCUS_API const char *
locus_shell_result_source(const locus_shell_result *result, size_t *len);

/** Number of simple commands found (nested ones included). */
LOCUS_API size_t locus_shell_result_count(const locus_shell_result *result);

/** Command `i` (0 <= i < count), in source order; borrowed. */
LOCUS_API const locus_shell_command *
locus_shell_result_command(const locus_shell_result *result, size_t i);

/** True when any command or word holds a command/process substitution. */
LOCUS_API bool
locus_shell_result_has_substitution(const locus_shell_result *result);

/** True when `&` appears as a connector anywhere on the line. */
LOCUS_API bool
locus_shell_result_has_background(const locus_shell_result *result);

/** True when a function defined on the line calls itself in a pipeline or
 *  in the background, and is called: the fork bomb shape.  Set by the
 *  parser; the labeller puts it on the never-allow floor. */
LOCUS_API bool
locus_shell_result_has_fork_bomb(const locus_shell_result *result);

/** True once the time budget of the parse that made `result`
 *  (locus_shell_options.budget_ms, counted from the start of parsing) is
 *  spent.  Every stage after the parse (the labeller's line-level rules)
 *  reads it and fails closed (exec:unparsed) past the budget, so that no
 *  input escapes it.  NULL gives true. */
LOCUS_API bool locus_shell_result_expired(const locus_shell_result *result);

#ifdef __cplusplus
}
#endif
#endif
