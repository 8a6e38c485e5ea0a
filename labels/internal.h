/*
 * labels/internal.h - what the labeller's files share (not public API).
 *
 * tables.c holds every program table (data, not if-chains) and the pure
 * per-command judgements built on them; label.c combines them into a
 * line's verdict (locus_shell_label) and applies the raw-text floor
 * patterns to unparsed lines; action.c turns verdicts into Actions.
 */
#ifndef LOCUS_LABELS_INTERNAL_H
#define LOCUS_LABELS_INTERNAL_H

#include "locus/labels.h"

/* A program-table row (knowledge/programs.h).  The judgements below take
   the row of the command's name as the parser found it once
   (lp_command_program), instead of looking the name up again. */
struct lk_program;

/* Static reason texts shared by label.c and action.c. */
#define LL_REASON_UNPARSED "could not be parsed"
#define LL_REASON_UNPARSED_BUDGET                                              \
	"could not be parsed: labelling exceeded the line's time budget"
#define LL_REASON_BACKGROUND "runs in the background"
#define LL_REASON_CHECK "runs tests or linters"
#define LL_REASON_REMOTE_CODE "runs code it downloaded"
#define LL_REASON_INLINE_DELETES "inline code deletes files"
#define LL_REASON_PUSH "pushes commits"
#define LL_REASON_FORCE_PUSH "rewrites or deletes remote history"
#define LL_REASON_NET_REDIRECT                                                 \
	"a /dev/tcp or /dev/udp redirect reaches the network"
/* The static form in a verdict; the Action names the program
   ("NAME's arguments hold a dangerous command"). */
#define LL_REASON_ARGS_FLOOR "a command's arguments hold a dangerous command"
#define LL_REASON_ARGS_HIDDEN                                                  \
	"a command substitution hides what an unknown program's arguments "    \
	"hold"

/* Floor reasons (the `never` strings). */
#define LL_NEVER_RM "recursive delete"
#define LL_NEVER_FS "destroys a filesystem"
#define LL_NEVER_FORCE_PUSH "force-push without lease"
#define LL_NEVER_RESET "discards uncommitted work"
#define LL_NEVER_FORK_BOMB "fork bomb"
#define LL_NEVER_REMOTE_CODE "pipes a download into a shell"
#define LL_NEVER_STOP "stops the machine"

/* Reasons one command's judgement keeps; a reason past them is not lost
   silently: the verdict says some were left out (the tags stay). */
#define LL_JUDGEMENT_REASONS 16
#define LL_REASON_DROPPED                                                      \
	"more reasons than one command keeps (16): some are not listed"

/* What one command does, judged alone.  Reason strings are static. */
typedef struct ll_judgement {
	uint32_t tags; /* LOCUS_TAG_* (never NEVER or CHECK) */
	const char *reasons[LL_JUDGEMENT_REASONS]; /* tag reasons, in order */
	size_t nreasons;
	bool dropped;      /* a reason past LL_JUDGEMENT_REASONS was given */
	const char *never; /* floor reason (LL_NEVER_*), or NULL */
} ll_judgement;

/* Add a static reason to j once (compared by text); past the cap it sets
   j->dropped. */
void ll_judgement_reason(ll_judgement *j, const char *reason);

/* What the per-command judgements are given by the top of the labeller
   (label.c): the entry that labels a line found in a command's argument
   (`ansible HOSTS -a CMD` runs CMD on every host: the infrastructure pack
   judges it as a line of its own).  The labelling recursion goes through
   this pointer, so no file below label.c calls up into it and the file
   graph of labels/ has no cycle (tests/test_layers.py). */
typedef struct ll_context {
	/* The exec:* tags of the verdict of the parsed line r into *tags (as
	   locus_shell_label labels it); nonzero when it could not be
	   labelled (out of memory). */
	int (*line_tags)(const locus_shell_result *r, uint32_t *tags);
	/* The command's row of the program table (NULL: none), set by
	   pk_judge for its rules. */
	const struct lk_program *row;
} ll_context;

/* Tags, reasons and floor reason of one command (not the line-level ones:
   remote code, background, check, unparsed). */
void ll_judge_command(const locus_shell_command *c,
                      const struct lk_program *prog, const ll_context *ctx,
                      ll_judgement *out);

/* symlink.c: `ln -s` (not -r) with its links in another folder than
   the current directory: each relative target ops[0..ntargets) is
   resolved by the kernel from the folder its link lands in, dirname(link)
   (when link is set) or dir (when set; both for `ln -s T LINK`, where
   LINK may be a folder). */
enum { LL_LN_MAX = 64 };
typedef struct ll_ln {
	size_t ops[LL_LN_MAX]; /* argv indexes of the operands */
	size_t nops;
	size_t ntargets;
	const char *link; /* the link's name (`ln -s T LINK`) */
	const char *dir;  /* the folder the links land in */
	const char *tdir; /* -t/--target-directory's value */
	bool sym, rel, no_tdir;
} ll_ln;
/* Fills *f and returns true for such an ln (*f is only read then); false
   for any other command,
   a hard link, -r, a link in the current directory, or words locus
   cannot place (an unknown option, a run-time word, more than LL_LN_MAX
   operands): those are judged from the current directory. */
bool ll_ln_targets(const locus_shell_command *c, ll_ln *f);

/* Arguments computed at run time (dynamic.c): the first argv index (>= 1)
   holding an unresolved expansion or a substitution, from which on any
   words may follow (the input xargs, parallel and fd -x put in is such a
   word: parser/input.c); 0 when every argument is known before run
   time. */
size_t ll_first_dynamic_arg(const locus_shell_command *c);
/* The first argv index (>= from, >= 1) whose word may be an option locus
   cannot read (LOCUS_WORD_MAY_BE_OPTION: a run-time value or glob that
   may start with '-' or '+', or split), before a literal `--`; 0 when
   there is none.  A literal option for which takes_value(word, arg)
   (NULL: none) holds takes the next word as its value: that word is
   skipped when it cannot split. */
size_t ll_first_option_word(const locus_shell_command *c, size_t from,
                            bool (*takes_value)(const char *opt,
                                                const void *arg),
                            const void *arg);
#define LL_REASON_OPTION_WORD                                                  \
	"an argument known only at run time may be this option"
/* The reason added beside a tag that a run-time argument may select. */
#define LL_REASON_DYNAMIC                                                      \
	"an argument computed at run time may select this form"

/* Git settings on the line that make commands destructive (-c KEY=VALUE
   or `git config KEY VALUE`): remote.*.mirror / + push refspecs force
   pushes, clean.requireForce=false lets `git clean` delete, gc prune
   expiry now/all deletes at once. */
enum {
	LL_GITCFG_FORCE_PUSH = 1 << 0,
	LL_GITCFG_CLEAN_NOFORCE = 1 << 1,
	LL_GITCFG_PRUNE_NOW = 1 << 2,
	LL_GITCFG_HOOKS_PATH = 1 << 3, /* core.hooksPath: hooks from a directory
	                                  locus does not see */
};
uint32_t ll_git_line_config(const locus_shell_result *r);
/* Add what those settings make command c do to j. */
void ll_judge_git_config(const locus_shell_command *c, uint32_t cfg,
                         ll_judgement *j);

/* The command is on the read-only list with its argument rules, and
   top-level, static, unwrapped, unassigned, not writing or reading files. */
bool ll_command_read_only(const locus_shell_command *c,
                          const struct lk_program *prog);

/* The command is a check (test runner, linter, type checker) in a form
   allowed on an exec:check line (assignments and output redirects
   allowed; no wrappers, not nested, static). */
bool ll_command_check(const locus_shell_command *c,
                      const struct lk_program *prog);

/* words.c: `path` resolved lexically (//, ., .., /proc/PID/root), into
   buf; NULL when it does not fit. */
const char *ll_normal_path(const char *path, char *buf, size_t cap);
/* After `cd dir`, a relative redirect target or dd of= of c names a
   storage device (cd /dev; dd of=sda). */
bool ll_device_after_cd(const locus_shell_command *c, const char *dir);
/* An output redirect of c overwrites a storage device (/dev/sda...). */
bool ll_writes_device(const locus_shell_command *c);

/* A redirect to or from /dev/tcp/... or /dev/udp/... (a socket). */
bool ll_net_redirect(const locus_shell_command *c);

/* The program is in none of the labeller's tables (not read-only listed,
   not a known network, destructive, shutdown, check, git, package-manager,
   shell or interpreter program) and is not a wrapper the parser peeled. */
bool ll_unknown_program(const locus_shell_command *c,
                        const struct lk_program *prog);

/* `python -m MODULE ARGS` (any spelling: `-mMODULE`, `-Im MODULE`,
   through runners such as `-m cProfile -m MODULE`): the module's name,
   *row its row in the program table (`-m pip.__main__` is pip's) or NULL,
   *rest the index of ARGS; NULL when c runs no module. */
const char *ll_python_module(const locus_shell_command *c,
                             const struct lk_program *prog,
                             const struct lk_program **row, size_t *rest);

/* rm: every operand is a static relative path inside the
   workspace (not the root, not .git, no glob or variable): a recursive or
   forced rm of it is held (exec:destructive), not on the floor. */
bool ll_rm_inside(const locus_shell_command *c);
/* rm.c: one rm operand a is a static relative path inside the workspace
   (not the root, not .git, no glob or variable); flags: its
   LOCUS_WORD_*. */
bool ll_rm_operand_inside(const char *a, uint32_t flags);

/* rm.c: `rm FILE...` / `unlink FILE` with no option, at the top of the
   line, every operand a named path inside the workspace that is not a
   credential, persistence or agent-config path: a workspace write (the
   write tool can empty the same files), not exec:destructive, as long as
   the line changes no directory and the root's symlinks keep every
   operand inside (ll_rm_write_resolves). */
bool ll_rm_as_write(const locus_shell_command *c);
#define LL_REASON_RM_WRITE                                                     \
	"rm of named files inside the workspace: a workspace write (the "      \
	"write tool can empty the same files)"
/* rm.c: every operand of the rm-as-write command c, resolved against the
   root (its symlinks followed), stays inside it, out of .git, and names
   no credential, persistence or agent-config file.  False without a root. */
bool ll_rm_write_resolves(const locus_shell_command *c, const char *root);
/* rm.c: command i is an rm that find -exec runs on what it finds under
   starting points provably inside the workspace (`find src -name X -exec
   rm -rf {} +`; `.` only when a -name test cannot match `.` or `.git`):
   held, not on the floor. */
bool ll_rm_found_inside(const locus_shell_result *r, size_t i);
/* rm.c: `git restore [-W|-S|-s REV|-q] PATHS` or `git checkout [REV] --
   PATHS`, no other option, every path a named file inside the workspace
   (no glob, no pathspec magic, not .git, no protected file): a workspace
   write rather than exec:destructive, under the conditions of rm FILE;
   ll_git_restore_resolves adds the root's (links followed, no path an
   existing directory). */
bool ll_git_restore_as_write(const locus_shell_command *c);
/* tables.c: the LK_GIT_* bits (knowledge/git.h) the options of a git
   command give: `git apply --unsafe-paths` writes anywhere, `git init
   --template=DIR` installs DIR's hooks (0: none, or a help form). */
unsigned ll_git_opt_effects(const locus_shell_command *c);
bool ll_git_restore_resolves(const locus_shell_command *c, const char *root);
#define LL_REASON_RESTORE_WRITE                                                \
	"git restore/checkout of named files inside the workspace: a "         \
	"workspace write (the write tool can overwrite the same files)"
/* rm.c: the line holds a cd, pushd or popd (anywhere): relative operands
   may be read from another directory. */
bool ll_line_changes_dir(const locus_shell_result *r);
#define LL_REASON_RM_INSIDE                                                    \
	"a recursive or forced rm of paths inside the workspace (held, not "   \
	"on the floor)"
/* G2 on a parsed line: code locus cannot tell from data is held. */
#define LL_REASON_ARGS_HELD                                                    \
	"a command's arguments hold a dangerous command (held: locus cannot "  \
	"tell code from data there)"

/* env.c: the first variable command i gives a program's environment that
   is not known to be inert (its length in *len), or NULL.  `allexport`:
   the line runs `set -a` (ll_line_allexport). */
const char *ll_env_not_inert(const locus_shell_result *r, size_t i,
                             bool allexport, size_t *len);
bool ll_line_allexport(const locus_shell_result *r);
/* A command that runs after command i follows it on the line (not one of
   its own substitutions). */
bool ll_command_follows(const locus_shell_result *r, size_t i);
/* The closed world: the program is in no row of the program
   table (prog NULL), named by a bare name or a path right under a system
   directory (a path elsewhere is workspace code), not computed, not a
   wrapper the parser peeled.  exec:unknown. */
bool ll_program_unknown(const locus_shell_command *c,
                        const struct lk_program *prog);
#define LL_REASON_UNKNOWN "runs a program locus does not know"
/* closed world for inline code (parser/inline_safe.c) */
#define LL_REASON_INLINE_UNPROVEN                                              \
	"runs inline code locus cannot prove harmless (it uses names "         \
	"outside the known-harmless vocabulary: the environment, files, "      \
	"processes, other code)"
#define LL_REASON_ENV                                                          \
	"gives a program a variable locus does not know to be inert"
/* service.c: a service or cloud CLI (effect class LK_FX_SERVICE) reaches
   the network; a destructive verb among its first operands or long
   options is exec:destructive (also for credential stores). */
void ll_judge_service(const locus_shell_command *c,
                      const struct lk_program *prog, ll_judgement *j);
/* service.c: the subcommand table lists network forms of prog (npm
   install, pip download...): it, not the package-manager rule of
   service.c, says when prog reaches the network. */
bool ll_network_subs_known(const char *prog);
/* The verb table is sorted and every verb is found (tests). */
bool ll_service_tables_consistent(char *why, size_t cap);
/* The function names a line defines, sorted (borrowed from the result). */
typedef struct ll_functions {
	const char **names;
	size_t n;
} ll_functions;
void ll_functions_init(ll_functions *f, const locus_shell_result *r);
void ll_functions_free(ll_functions *f);
/* Command i of r is unknown (ll_program_unknown) and no function of the
   line (f) is named like it. */
bool ll_command_unknown(const locus_shell_result *r, size_t i,
                        const ll_functions *f);

/* G2: for an unknown program or a command with inline code, the floor
   reason (static) when the raw-text floor patterns match its arguments
   joined by spaces (heredoc/herestring bodies included), else NULL. */
typedef struct ll_floor ll_floor;
const char *ll_args_floor(const locus_shell_command *c,
                          const struct lk_program *prog, ll_floor *floor);

/* Program classes used by the line-level remote-code rule, of a row
   (NULL: an unknown program, neither). */
bool ll_is_downloader(const struct lk_program *prog);
bool ll_is_interpreter(const struct lk_program *prog);
/* `python3 -m json.tool` (options only): formats its input, runs none of
   it. */
bool ll_data_module(const locus_shell_command *c,
                    const struct lk_program *prog);
/* awk whose program runs commands (system(), `| getline`, print | "cmd"):
   fed a download, it runs it. */
bool ll_awk_runs_input(const locus_shell_command *c,
                       const struct lk_program *prog);
/* Floor patterns for the raw text of an unparsed line: fills up to `max`
   floor reasons (static strings) matched in `text`, returns the count.  A
   PCRE2 error counts as a match (fail closed). */
size_t ll_floor_patterns(const char *text, size_t len, const char **out,
                         size_t max);
/* The floor's compiled patterns (floor.c): each compiled on first need
   and kept; NULL on OOM.  One cache must not be used by two threads at
   once.  ll_floor_match() is ll_floor_patterns() through a cache (NULL:
   a cache of its own for the call). */
ll_floor *ll_floor_new(void);
void ll_floor_free(ll_floor *f);
size_t ll_floor_match(ll_floor *f, const char *text, size_t len,
                      const char **out, size_t max);
/* ll_floor_match() without the literal prefilter: every pattern is run
   (tests check the prefilter hides no match). */
size_t ll_floor_match_unfiltered(ll_floor *f, const char *text, size_t len,
                                 const char **out, size_t max);
/* The verdict of `result` into *out, with the floor patterns cached in
   `floor` (NULL: a cache for this line only). */
int ll_label(locus_shell_verdict **out, const locus_shell_result *result,
             ll_floor *floor);
/* The floor cache kept by a parser (made on first use; NULL for a NULL
   parser or on OOM): patterns are compiled once per parser. */
ll_floor *ll_parser_floor(locus_shell_parser *parser);
/* At least the number of floor patterns (floor.c checks it). */
#define LL_FLOOR_PATTERNS_MAX 16

/* outside.c: what the workspace's symlinks add to a bash line's paths
   (its redirect targets and path arguments, from every directory a
   cd/pushd may have left it in, through ll_path_links): the LL_PATH_*
   bits a path has only where it really is, for its role (persistence
   and agent-config when written, secrets when read), with the first
   word for each; a word a link leads out of the root; a word left
   unresolved by the bound.  Words are borrowed from the result. */
enum { LL_SHELL_LINK_BITS = 3 };
typedef struct ll_shell_links {
	const char *word[LL_SHELL_LINK_BITS]; /* by LL_PATH_* bit */
	const char *outside;
	const char *unknown;
} ll_shell_links;
/* outside.c: the first path of a bash line outside `root` (borrowed from
   the result, or a static string), or NULL; `root` NULL means no root is
   known (every path counts as outside).  *oom set when memory ran out
   (the answer is then "outside").  With `links` (and a root), the same
   walk fills it (ll_shell_links: zeroed first). */
const char *ll_outside_shell(const locus_shell_result *r, const char *root,
                             bool *oom, ll_shell_links *links);
/* outside.c: every path of the line outside `root` is in a scratch folder
   (/tmp, /var/tmp: private to each call in the jail).  false without a
   root or on OOM. */
bool ll_outside_scratch(const locus_shell_result *r, const char *root,
                        bool *oom);
/* paths.c: what a file tool's path names, with the shell's
   tables, after normalising it (root joined, // . .. folded, the
   workspace's symlinks followed): LL_PATH_* bits. */
enum {
	LL_PATH_SECRET = 1 << 0,       /* a credential store */
	LL_PATH_PERSISTENCE = 1 << 1,  /* makes programs run later */
	LL_PATH_AGENT_CONFIG = 1 << 2, /* a coding agent's or locus's config */
};
uint32_t ll_path_class(const char *path, const char *root);

/* paths.c: the one symlink resolver (docs/tags.md, "Symlinks of the
   workspace"), for the file tools, the rm rule and the shell's paths.  A
   path under the root is walked component by component from the root's
   real path, as the kernel would: links followed (dangling ones too: a
   write creates their target), `..` after a link taken from where the
   link led.  Bounded: nothing outside the root is ever looked at (a link
   out of it ends the walk), at most LL_LINK_HOPS links per path, at most
   LL_LINK_STEPS lstat(2) calls per ll_links (one per call judged). */
enum { LL_LINK_HOPS = 40, LL_LINK_STEPS = 4096, LL_LINK_PATH = 4096 };
typedef struct ll_links {
	const char *root;        /* base, NULL: none */
	char base[LL_LINK_PATH]; /* the root as given (absolute), folded */
	char real[LL_LINK_PATH]; /* its real path, looked up on first need */
	bool have_real;
	bool linked;    /* the last walk followed a link */
	unsigned steps; /* lstat(2) calls left */
} ll_links;
enum {
	LL_LINK_NONE,    /* not under the root, or too long: not walked */
	LL_LINK_INSIDE,  /* walked; the real path is inside the root */
	LL_LINK_OUTSIDE, /* a link or `..` leads out of the root */
	LL_LINK_LOOP,    /* more than LL_LINK_HOPS links (ELOOP) */
	LL_LINK_BUDGET,  /* the steps ran out: unknown */
};
void ll_links_init(ll_links *l, const char *root);
/* abs (absolute, unfolded) walked; out gets where it really is (the part
   past a missing component folded as written).  `follow_last`: a link in
   the last component is followed (rm and mv do not).  LL_LINK_*. */
int ll_link_resolve(ll_links *l, const char *abs, bool follow_last, char *out,
                    size_t cap);
/* The LL_PATH_* bits abs has only where it really is (not as written);
   *where (may be NULL) gets ll_link_resolve's answer. */
uint32_t ll_path_links(ll_links *l, const char *abs, bool follow_last,
                       int *where);
/* A file tool's path (relative to root, or absolute) that lies under the
   root as written leads out of it through a symlink (or cannot be
   resolved within the bound). */
bool ll_path_leaves(const char *path, const char *root);
/* The directory holding `rel` (a relative path), joined to the root and
   its symlinks resolved (the deepest existing directory, realpath(3)),
   lies inside the root's real path and not in a .git directory; the last
   component itself is not followed.  False without a root. */
bool ll_path_dir_inside(const char *rel, const char *root);
/* rel (relative to root) is an existing directory (lstat(2): a link is
   not followed); true when the joined path does not fit. */
bool ll_path_is_dir(const char *rel, const char *root);

/* A file tool's path (relative to the root, or absolute) is outside. */
bool ll_outside_path(const char *path, const char *root, bool *oom);

/* The labeller's sorted tables are in order (tests): false with the
   first problem in why. */
bool ll_tables_consistent(char *why, size_t cap);

/* Tag name -> bit (0 when not an exec:* tag). */
uint32_t ll_tag_bit(const char *name);

/* ---- options that make a command harmless (harmless.c) ---------------- */

/* `a` spells the harmless option `opt` (n bytes: --dry-run, -n, -help)
   so the program reads nothing else: exactly, or opt=VALUE with a value
   that keeps it on (--dry-run=client).  Never an abbreviation, never a
   letter in a cluster. */
bool ll_harmless_word(const char *a, const char *opt, size_t n);
/* `a` turns opt off: opt=VALUE with another value (--dry-run=false),
   --no-NAME or an abbreviation of it. */
bool ll_harmless_undone(const char *a, const char *opt, size_t n);
/* Some word of c from `from` up to `--` turns an option of `list`
   (space-separated) off, or is computed at run time. */
bool ll_harmless_spoiled(const locus_shell_command *c, size_t from,
                         const char *list);
/* An option of `list` is spelled exactly before `--` and nothing spoils
   it (ll_harmless_spoiled). */
bool ll_harmless(const locus_shell_command *c, size_t from, const char *list);

#endif
