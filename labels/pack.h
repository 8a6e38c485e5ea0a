/*
 * labels/pack.h - knowledge packs (not public API).
 *
 * A pack is data about one family of programs (infrastructure,
 * kubernetes, containers, databases, cloud CLIs, platforms, git plumbing,
 * processes and services, secrets, persistence, privilege): which
 * invocations destroy, leak or install something, the tag that says so and
 * a reason naming the pack ("kubernetes: kubectl delete removes cluster
 * resources").  One generic matcher (pack.c) reads every pack; the tables
 * live in labels/packs_*.c, one file per family.
 *
 * Matching a rule against a command (argv after wrappers are peeled):
 *  1. the program: `progs` lists canonical names of the program table
 *     (knowledge/programs.c) separated by spaces ("kubectl oc"); their rows
 *     name this pack, and a command reaches its row through every name
 *     the program goes by.  "*" is every program (rules about paths);
 *  2. the operands: argv[1..] with options removed.  An option's value
 *     given as a separate word is not an operand; which options take one
 *     is read from the family's grammar (`value_opts`), and options known
 *     to take none from `flag_opts`.  After an option of neither list the
 *     next word may be its value or an operand: the matcher tries both
 *     (over-matching is safe, under-matching is not);
 *  3. `words`: a pattern over the operands, space separated, matched from
 *     the first operand: a literal ("delete"), alternatives ("rm|remove"),
 *     a prefix ("delete-*"), any one operand ("*") or any run of operands
 *     ("...").  NULL or "" matches every invocation;
 *  4. `with`: when set, at least one of its conditions holds; `unless`:
 *     when set, none of its conditions holds.  Conditions, space separated:
 *       -x          the short option x, alone or in a cluster (-xv)
 *       --long      --long or --long=VALUE (abbreviations are not
 *                   accepted by the Go and Python CLIs these packs cover)
 *       -word       a single-dash long option (Go's flag package): -word,
 *                   -word=V, --word, --word=V
 *       OPT=V       that option with the value V (OPT=V or OPT V)
 *       ~TEXT       some argument contains TEXT
 *       ^TEXT       some operand after the matched words equals TEXT
 *       #           some operand follows the matched words
 *       $           some argument is dynamic (an expansion or substitution)
 *  5. `check`: when set, a predicate on the whole command (the few rules
 *     that are not patterns: `kill -9 -1`, SQL given to a client, the
 *     line ansible runs on every host, judged through the labeller's entry
 *     the context gives: ll_context).
 * PK_NOCASE compares words ignoring ASCII case (redis-cli flushall).
 * Past 64 operands the operands are not all kept: a rule that reads them
 * (a pattern, `#` or `^`) then applies without being judged (fail
 * closed); a rule that reads none (the rules for every program, whose
 * predicates read every argument themselves) is judged as usual.
 */
#ifndef LOCUS_LABELS_PACK_H
#define LOCUS_LABELS_PACK_H

#include "internal.h"

enum {
	PK_NOCASE = 1 << 0, /* words compared ignoring ASCII case */
};

typedef struct pk_grammar {
	const char *progs;      /* names, space separated */
	const char *value_opts; /* options taking a separate value */
	const char *flag_opts;  /* options taking no value */
} pk_grammar;

typedef struct pk_rule {
	const char *progs;  /* names, space separated; NULL ends a table */
	const char *words;  /* operand pattern, or NULL: any */
	const char *with;   /* any-of conditions, or NULL */
	const char *unless; /* none-of conditions, or NULL */
	uint32_t tag;       /* LOCUS_TAG_* */
	const char *reason; /* "pack: what it does" (static) */
	/* or NULL; ctx: what the top of the labeller gives (ll_context) */
	bool (*check)(const locus_shell_command *c, const ll_context *ctx);
	unsigned flags; /* LK_* */
} pk_rule;

typedef struct pk_pack {
	const char *name;
	const pk_grammar *grammars; /* ends with a NULL progs; may be NULL */
	const pk_rule *rules;       /* ends with a NULL progs */
} pk_pack;

/* The packs, one per family (packs_*.c). */
extern const pk_pack pk_infrastructure;
extern const pk_pack pk_kubernetes;
extern const pk_pack pk_containers;
extern const pk_pack pk_databases;
extern const pk_pack pk_cloud;
extern const pk_pack pk_platforms;
extern const pk_pack pk_git;
extern const pk_pack pk_system;
extern const pk_pack pk_secrets;
extern const pk_pack pk_persistence;
extern const pk_pack pk_privilege;

/* The judgement of one command: the rules for every program (paths,
   words) of every pack, then the rules of the program's own pack, which
   its row in the program table names (knowledge/programs.h: `pack`).
   Adds tags and reasons to `j` (never a floor reason: the packs hold,
   the floor stays the spec's). */
void pk_judge(const locus_shell_command *c, const struct lk_program *prog,
              const ll_context *ctx, ll_judgement *j);

/* Every program a rule names is a row of the program table, under its
   canonical name, whose `pack` is the rule's pack (tests call this; `why`
   says what is wrong). */
bool pk_tables_consistent(char *why, size_t cap);

/* A database client fed by the previous stage of its pipeline: a literal
   producer (echo/printf/cat of a heredoc) whose statements destroy data
   tags the client (packs_db.c). */
void pk_db_piped(const locus_shell_command *client,
                 const locus_shell_command *producer, ll_judgement *j);

/* The statements a database client is given inline (options, operands,
   heredoc) destroy data (packs_db.c; bq query reuses it from the cloud
   pack). */
bool pk_sql_statements_destroy(const locus_shell_command *c,
                               const ll_context *ctx);

/* ---- words.c: the word helpers the matcher (pack.c), the packs'
   predicates and the judgements share (it calls none of them) ---- */

/* The next token of *p (advanced past it), in a space-separated list
   (the rule language's lists); its length in *n; NULL at the end.  This
   and the two below are inline: the matcher's inner loop. */
static inline const char *pk_next_tok(const char **p, size_t *n)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	if (!*s)
		return NULL;
	const char *e = s;
	while (*e && *e != ' ')
		e++;
	*n = (size_t)(e - s);
	*p = e;
	return s;
}

/* The next tail of option word a after a letter of its leading run
   (`-uo.claude/x`: `o.claude/x`, `.claude/x`), from *q (NULL at the
   start); NULL when none is left.  Which letters are flags and which
   takes the rest as its value is the program's grammar: every tail may
   be the value.  Single-dash words only. */
static inline const char *pk_next_attached(const char *a, const char *q)
{
	if (!q) {
		if (a[0] != '-' || a[1] == '-' || !a[1])
			return NULL;
		q = a + 1;
	}
	bool letter = (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z');
	return letter && q[1] ? q + 1 : NULL;
}

/* ASCII lower case. */
static inline char pk_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* tok[0..n) equals w (ignoring case when nocase). */
static inline bool pk_tok_eq(const char *tok, size_t n, const char *w,
                             bool nocase)
{
	for (size_t i = 0; i < n; i++) {
		char a = tok[i], b = w[i];
		if (!b)
			return false;
		if (nocase ? pk_lower(a) != pk_lower(b) : a != b)
			return false;
	}
	return w[n] == '\0';
}

bool pk_word_in(const char *list, const char *w); /* space-separated list */
bool pk_is_option(const char *a);
/* `c` runs with an argument (or heredoc/herestring body) whose text
   contains `needle`. */
bool pk_any_arg_contains(const locus_shell_command *c, const char *needle);

/* labels/folders.c: copy c (cp, mv, install, ln) writes FOLDER/NAME, for
   a folder it copies into and a source's last component, where is_path
   says so (`cp -r hooks .git/` writes .git/hooks; with
   pk_persistence_path also a `.git` made where the line surely copies
   into a folder: `cp -r x/.git .`). */
bool pk_copy_names_path(const locus_shell_command *c,
                        const struct lk_program *row,
                        bool (*is_path)(const char *));

/* Any new name in folder p (joined to cwd when relative and cwd is not
   NULL), folded, may be a persistence file: p is one, or the leading
   components of one (`.git`, `.git/modules`, `.github`). */
bool pk_persistence_folder(const char *p, const char *cwd);

/* labels/home_writes.c: the command writes the person's own files with
   no path on the line: ssh-keygen's ~/.ssh (or /etc/ssh), gpg's key
   ring (the secrets pack's predicates). */
bool pk_ssh_keygen_writes_home(const locus_shell_command *c,
                               const ll_context *ctx);
bool pk_gpg_writes_keyring(const locus_shell_command *c, const ll_context *ctx);

/* labels/packs_paths.c: folded path p ends with a persistence path's
   leading components (`.git` of `.git/hooks`). */
bool pk_persistence_folder_name(const char *p);

/* A program of row p may fill folders (pk_copy_names_path,
   pk_fills_persistence_folder): a copy, an extraction, an interpreter
   whose modules extract (python -m tarfile). */
bool pk_fills_folders(const struct lk_program *p);

/* c writes a file named `.git` (a redirect, or an operand of a row that
   writes every operand, LK_WRITES_ARGS: tee): a gitdir file names the
   folder git takes as the repository (`echo "gitdir: g2" > .git`), whose
   hooks and config then run. */
bool pk_writes_git_entry(const locus_shell_command *c,
                         const struct lk_program *row);

/* c copies into, or extracts into, a folder where any new name may be a
   persistence file (pk_persistence_folder; cwd: the line's directory
   after a cd, or NULL): `cp -r payload/. .git`, `tar -C .git -x`,
   `tar -x --transform=...` (any name). */
bool pk_fills_persistence_folder(const locus_shell_command *c,
                                 const struct lk_program *row, const char *cwd);

/* `c` writes, or may write, a file `is_path` names: a redirect into one
   (lk_redirect_writes: `>& f` included), or any program but a pure
   reader (pk_reader_program) naming one as an argument.  A word computed
   at run time is also matched by its glob form (pk_glob_form) with
   `computed` (NULL: not).  A copy's FOLDER/NAME is pk_copy_names_path's. */
bool pk_writes_path(const locus_shell_command *c, bool (*is_path)(const char *),
                    bool (*computed)(const char *));
/* argv[i] of c may be written: c is not a pure reader, or the word is
   the value of one of its write options (find -fprint F). */
bool pk_arg_written(const locus_shell_command *c, size_t i);
/* argv[i] of c (i > 0) may have its content read, as the secrets rule
   judges it (packs_secrets.c): not an operand of a program that reads
   no content (echo, ls, test, touch, a narrowing chmod...), not a
   pattern or script operand, not cp/mv's destination. */
bool pk_arg_read(const locus_shell_command *c, size_t i);

/* A word computed at run time as a glob: each expansion (`$(..)`, `..`
   in backticks, `${..}`, `$NAME`) replaced by `*`, quotes dropped, into
   buf; *whole when nothing but `*` is left.  NULL when it does not fit.
   `"$(printf .e)nv"` is `*nv`: it may name `.env`. */
const char *pk_glob_form(const char *w, char *buf, size_t cap, bool *whole);

/* The value of the option `shrt`/`lng` ("-m", "--mode") when argv[*i] is
   that option: `-m V` and `--mode V` (*i is advanced past V), `--mode=V`,
   `-mV`; else NULL. */
const char *pk_option_value(const locus_shell_command *c, size_t *i,
                            const char *shrt, const char *lng);

/* Programs whose operands are data, never paths or files (echo, printf,
   basename, which...). */
bool pk_data_program(const char *name);
/* The argv index of the pattern or program operand of grep, rg, sed, awk,
   jq... (data, not a path); 0 when none (-e/-f given). */
size_t pk_pattern_operand(const locus_shell_command *c);

/* The files c's sed scripts (its -e/--expression values, else its first
   operand) read (r R) or write (w W, s///w), in order: cb gets each with
   the command letter ('r' 'R' 'w' 'W').  False when c is no sed, or a
   script cannot be followed (the caller fails closed where it must). */
bool pk_sed_files(const locus_shell_command *c,
                  void (*cb)(void *arg, char cmd, const char *name, size_t n),
                  void *arg);
/* The command only reads its path operands (cat, grep, ls...), so a
   startup file it names is not being changed. */
bool pk_reader_program(const char *name);

/* ---- packs_paths.c ---- */

/* Path facts (packs_paths.c): a path names a credential store / a file
   that makes programs run later / a sudoers file.  `p` is a word as
   written or its value (`~/.ssh/id_rsa`, `/home/u/.aws/credentials`). */
bool pk_secret_path(const char *p);
/* A name test (find -iname/-regex, fd's pattern) aimed at credential
   stores: hit(name, arg) holds for a path the secrets table names
   (`./.env`, `./.ssh/id_x`, `./x.pem`...) and for no ordinary one
   (`./x.py`: a test that matches those is a broad read, as `cat *`).
   A test of the base name only (`base`) is aimed by a name whose last
   component is the secret (.env, id_rsa, x.pem), not by the last
   component of a secret path (`-name config` is not `.kube/config`). */
bool pk_secret_name_hit(bool (*hit)(const char *path, const void *arg),
                        const void *arg, bool base);

/* An assignment-only statement copies a variable whose name says it
   holds a secret, or one another names, into the variables it assigns
   (`x=$GITHUB_TOKEN; echo $x`: labels/label.c holds the print of the
   copy as the print of the original). */
bool pk_copies_secret(const locus_shell_command *c);
/* argv[i] of a declaration command (declare, typeset, local, readonly,
   export) is NAME=VALUE copying such a variable (`declare x=$TOKEN`). */
bool pk_declares_secret(const locus_shell_command *c, size_t i);
/* c expands the variable `name` (n bytes) in its words and is not a
   program known never to print its arguments (test, true...). */
bool pk_prints_name(const locus_shell_command *c, const char *name, size_t n);
/* git c takes the variable `name` (n bytes; 0: any) as config
   (--config-env KEY=name) or its value as its identity (GIT_AUTHOR_NAME=$name):
   git may print it. */
/* The shell itself prints a secret variable's value for c: a
   ${NAME?WORD} whose WORD expands one (its error message), or with
   xtrace on any expansion of one (`set -x; : "$TOKEN"`). */
bool pk_shell_prints_secret(const locus_shell_command *c, bool xtrace);
/* c turns the shell's xtrace on: set -x / -o xtrace, shopt -o xtrace,
   bash -x / -xc, SHELLOPTS holding xtrace. */
bool pk_turns_on_xtrace(const locus_shell_command *c);
/* Some word of c expands the variable `name` (n bytes; 0: any). */
bool pk_expands_name(const locus_shell_command *c, const char *name, size_t n);
/* The line expands a secret variable and passes values on by a route
   the copy tracking does not follow: `$_`, BASH_REMATCH, a for/select
   loop variable, read/mapfile/readarray. */
bool pk_line_reuses_secret(const locus_shell_result *r);
bool pk_git_takes_name(const locus_shell_command *c, const char *name,
                       size_t n);
bool pk_persistence_path(const char *p);
/* The configuration of a coding agent or of locus (.claude/, .mcp.json,
   .codex/, .gemini/, .cursor/, .locus/...): agent-config. */
bool pk_agent_config_path(const char *p);
/* The same for the glob form of a word computed at run time
   (pk_glob_form): its `*` may be any text, a leading dot included. */
bool pk_persistence_computed(const char *form);
bool pk_agent_config_computed(const char *form);
bool pk_sudoers_path(const char *p);
/* pk_secret_path() (secret) or pk_persistence_path() without any
   prefilter: every fragment tried at every position of `p` (tests compare
   the two on many words). */
bool pk_path_reference(bool secret, const char *p);
/* pk_agent_config_path()'s answer with every agent fragment tried at
   every position (agent_raw's one-pass scan is checked against it). */
bool pk_agent_reference(const char *p);
/* Glob component g matches an ordinary file name (a broad glob, not aimed
   at a secret): with `prefilter`, as the matchers ask it; without, every
   name tried by fnmatch alone (tests compare the two). */
bool pk_glob_ordinary(const char *g, bool prefilter);
/* The i-th fragment of the secret or persistence table, NULL past the
   last (tests build words from them). */
const char *pk_path_fragment(bool secret, size_t i);
/* Every fragment of the path tables holds a byte of the prefilter's set
   (packs_paths.c); tests call this, `why` says which does not. */
bool pk_path_tables_consistent(char *why, size_t cap);

/* The SQL classifier (sql.c): the statement text destroys data (DROP,
   TRUNCATE, DELETE/UPDATE without WHERE, ALTER ... DROP, FLUSHALL,
   dropDatabase()...).  `len` bytes of `text`. */
bool pk_sql_destructive(const char *text, size_t len);

#endif
