/*
 * parser/linefacts.h - facts about one line, read off its commands.
 *
 * The one place that answers "which files does this line write, with
 * what, under which names", "which files does a command run as code" and
 * "which directory is current for a command": the parser (a file written
 * then run is parsed as the runner's input, or the line is unparsed) and
 * the labeller (a downloaded file that runs is remote code) both ask here.
 * Same-line constants are the parser's (parser/vars.c): they are needed
 * while words are evaluated, before any command exists.
 *
 * Matching is conservative: names are compared by basename after `./`
 * and repeated slashes are dropped (a file written as `a/x.sh` and run as
 * `b/x.sh` matches), a glob matches every name it could expand to, and a
 * dynamic word, `curl -J` or an archive extraction match every name.
 */
#ifndef LOCUS_KNOWLEDGE_LINEFACTS_H
#define LOCUS_KNOWLEDGE_LINEFACTS_H

#include "locus/shell.h"
#include "../knowledge/nameindex.h"

typedef enum lk_content {
	LK_CONTENT_UNKNOWN = 0, /* not known statically (tee of a pipe, sed -i,
	                           an extraction, a dynamic name) */
	LK_CONTENT_STDOUT,      /* the stdout of command `by` (`> f`) */
	LK_CONTENT_DOWNLOAD,    /* fetched from the network by `by` */
} lk_content;

/* One write of a file by a command of the line. */
typedef struct lk_write {
	size_t by;          /* index of the command whose action writes */
	lk_content content; /* after following copies to the original */
	bool append;        /* `>>`: adds to what was there */
	bool copy;          /* reached through cp/mv/ln/install */
	const char *name;   /* the name written, as the writer gave it (NULL
	                       when it matches any name) */
} lk_write;

#define LK_MAX_WRITES 16
/* Writers one line may have: above any real script (the bench's 1 MiB of
   everyday agent lines has about 3,000); past it callers fail closed. */
#define LK_MAX_WRITERS 65536
/* Candidates a line's searches may examine, per command and name of the
   line (plus 65,536): linear, and far above what real lines use. */
#define LK_MATCH_WORK 64

/*
 * The commands of a line that write any file, with every name each one
 * writes indexed by name (parser/linefacts.c): computed once per line,
 * extended when a nested parse adds commands, searched per file a command
 * runs.  Heap memory: lk_writers_free() releases it.
 */
typedef struct lk_wentry lk_wentry;
typedef struct lk_entry_list {
	size_t *v;
	size_t n, cap;
} lk_entry_list;
typedef struct lk_writers {
	lk_wentry *v; /* every name written, in (writer, name) order */
	size_t n, cap;
	size_t nwriters;
	lk_name_index index;
	lk_entry_list any_name; /* entries of a name not known (NULL) */
	lk_entry_list too_long; /* names too long to compare */
	size_t ncommands;       /* commands covered */
	size_t work;            /* candidates examined so far */
	size_t gen;             /* changes when writers are added */
	bool overflow;          /* more than LK_MAX_WRITERS writers, or out of
	                     memory */
	bool work_over;         /* the searches went past LK_MATCH_WORK */
	bool names_over; /* one command writes more names than it keeps */
} lk_writers;

#define LK_WRITERS_INIT                                                        \
	{                                                                      \
		NULL, 0, 0, 0, LK_NAME_INDEX_INIT, {NULL, 0, 0}, {NULL, 0, 0}, \
		    0, 0, 0, false, false, false                               \
	}

/* List and index the writers of the line (out need not be initialised;
   free it with lk_writers_free even when it overflowed). */
void lk_line_writers(const locus_shell_result *r, lk_writers *out);

/* The redirect writes (or opens for writing) the file its target names:
   an operator with '>' (`>`, `>>`, `>|`, `&>`, `&>>`, `<>`, and `>&WORD`
   with WORD not a descriptor: bash reads `>&f` as `&>f`), not a
   descriptor duplication or close (`>&2`, `2>&1`, `>&-`).  A target known
   only at run time counts as a file.  The one answer for the parser's
   line facts, the labeller and the policy's path rules. */
bool lk_redirect_writes(const locus_shell_redirect *r);
/* Add the writers among commands [from, count) to `out` (commands a
   nested parse appended), so that a pass over a growing line stays
   linear. */
void lk_line_writers_from(const locus_shell_result *r, lk_writers *out,
                          size_t from);
void lk_writers_free(lk_writers *wr);
/* Why the writers cannot answer (the line then fails closed), or NULL:
   too many of them, or the searches ran past their work bound (a search
   then stops with what it found). */
const char *lk_writers_failed(const lk_writers *wr);

/* How a run names its file (lk_run.match). */
typedef enum lk_match {
	LK_MATCH_BASE = 0, /* same basename */
	LK_MATCH_EXACT,    /* the same path (/usr/bin/x: a system program
	                      only matches a write of that very path) */
	LK_MATCH_PATH,     /* a bare command name: a file written into a
	                      `bin` directory (~/.local/bin/x, /usr/local/bin/x) */
	LK_MATCH_SUFFIX,   /* the written path ends with these segments
	                      (.git/config) */
	LK_MATCH_DIR,      /* the written path holds this directory
	                      (.git/hooks/) */
	LK_MATCH_MODULE,   /* python -m MOD: MOD.py or a package MOD/ */
} lk_match;

/* What the runner makes of the file (lk_run.as). */
typedef enum lk_runner {
	LK_RUN_EXEC = 0, /* executed: its #! line picks the interpreter, a
	                    shell without one */
	LK_RUN_SHELL,    /* read by a shell (sh F, source F, at -f F) */
	LK_RUN_INTERP,   /* read by the interpreter of the command */
	LK_RUN_MAKE,     /* a makefile: its recipes are shell */
	LK_RUN_CONFIG,   /* a configuration that names programs (git config,
	                    hooks, package.json, .npmrc) */
} lk_runner;

/* A file a command runs as code, and how. */
typedef struct lk_run {
	const char *path; /* as written (or the default name: Makefile) */
	uint32_t flags;   /* LOCUS_WORD_* of the word, 0 for a default */
	lk_match match;
	lk_runner as;
} lk_run;

/*
 * The writes, by any command of the line other than `at` (source order is
 * not run order: functions, loops and pipelines), of a file `path` may
 * name (its word flags and match mode), in source order.  Fills up
 * to `max` entries and returns their count.  A copy (`cp a b`) is
 * followed to the writes of its source; a copy of a file the line did not
 * write is not a write.
 */
size_t lk_line_writes(const locus_shell_result *r, lk_writers *wr, size_t at,
                      const lk_run *path, lk_write *out, size_t max);

#define LK_MAX_RUNS 8

/*
 * The files command `c` runs as code: argv[0] when it is a path (./x,
 * /tmp/x), a shell's or interpreter's script operand, `source F`/`. F`,
 * `python -m MOD` (MOD.py), make's makefile (-f F or the default names),
 * git's config files (GIT_CONFIG_GLOBAL=F, .git/config, .git/hooks/...)
 * and npm's package.json.  Returns the count (at most `max`).
 */
size_t lk_command_runs(const locus_shell_command *c, lk_run *out, size_t max);

/* The last non-empty segment of a path (`a//b/` -> `b`), into buf;
   NULL when it does not fit. */
const char *lk_path_base(const char *path, char *buf, size_t cap);

#endif
