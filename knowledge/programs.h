/*
 * knowledge/programs.h - the one table of what locus knows about programs.
 *
 * Bottom layer: parser/ (see-through, checks) and labels/ (tags, floor,
 * remote code) both read this table and keep no program list of their own
 * for the facts it holds.  It depends on nothing above it.
 *
 * A row is one program under its canonical name.  lk_program_find() maps
 * every other name a program goes by onto its row: versioned and
 * distribution names (python3.12, bash-5.2, ksh93, perl5.36, nodejs),
 * restricted and alternative shells (rbash, lksh, mksh-static), the names
 * Debian's alternatives install (awk, nawk, js, editor...).  A basename is
 * expected (`/usr/bin/rm` -> `rm`): callers strip the directory.
 *
 * Per-program knowledge packs (labels/, danger packs: terraform, kubectl,
 * psql...) attach to a row through its `pack` field: add an LK_PACK_*
 * value below and set it in the row; labels/ maps the value to the pack.
 */
#ifndef LOCUS_KNOWLEDGE_PROGRAMS_H
#define LOCUS_KNOWLEDGE_PROGRAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- what a program is (lk_program.cls) ------------------------------ */
enum {
	LK_SHELL = 1u << 0,  /* runs -c SCRIPT, a script file, or stdin */
	LK_INTERP = 1u << 1, /* interpreter: .interp says how it takes code */
	LK_DOWNLOADER = 1u << 2, /* fetches URLs; .fetch: how it names output */
	LK_DECODER = 1u << 3,    /* output is a transform of its input (base64
	                            -d, gunzip, openssl): fed to a shell, the
	                            script is unknown */
	LK_WRAPPER = 1u << 4, /* runs the command after its options (.opts) */
	LK_SEES = 1u << 5,    /* runs commands found in its arguments
	                         (xargs, ssh, watch; .opts when it has a
	                         grammar) */
	LK_NETWORK = 1u << 6, /* reaches the network, whatever its arguments */
	LK_SUBCOMMANDS = 1u << 7,   /* the first operand picks what it does: a
	                               dynamic one could be anything */
	LK_INERT = 1u << 8,         /* takes data, never code */
	LK_AWK = 1u << 9,           /* an awk: its program may run its input */
	LK_SOURCE = 1u << 10,       /* source / . : runs a file in this shell */
	LK_COPIES = 1u << 11,       /* cp mv install ln: writes the last operand
	                               (or -t DIR) with the sources' content */
	LK_WRITES_ARGS = 1u << 12,  /* tee: every operand gets its stdin */
	LK_NAMES_DATA = 1u << 13,   /* man, which, pgrep, dpkg -L...: operands
	                               are names of things, not commands */
	LK_PAGER = 1u << 14,        /* less, more, most: operands are files */
	LK_WIPES_DEVICE = 1u << 15, /* makes or erases a filesystem (floor) */
	LK_EXTRACTS = 1u << 16,     /* tar, unzip, cpio: writes files whose
	                               names come from its input */
	LK_EVAL = 1u << 17,         /* a builtin that runs a string (eval) */
	LK_DELETES = 1u << 18,      /* deletes files or their contents (rm) */
	LK_UNLINKS = 1u << 19,      /* rm rmdir unlink: an operand that is a
	                               symlink goes itself, what it points to
	                               stays (the last component is not
	                               followed) */
	LK_ABBREVS = 1u << 20,      /* takes any unique prefix of a long option
	                               (Java's joptsimple, Python's argparse):
	                               `--log` may be `--log-retention-ms` */
	LK_RMT = 1u << 21,          /* GNU tar, cpio: an archive named
	                               [USER@]HOST:FILE (a colon before any
	                               slash) is opened on HOST through rsh or
	                               ssh, unless --force-local */
};

/* ---- name rules (lk_program.names) ----------------------------------- */
enum {
	/* NAME followed by a version (digits and dots, optionally after a
	   '-'): python3.12, bash-5.2, ksh93, perl5.36.0, lua5.4 */
	LK_VERSIONED = 1u << 0,
	/* NAME-static, NAME-dbg (Debian's static and debug builds) */
	LK_BUILDS = 1u << 1,
	/* NAME.ANYTHING: mkfs.ext4, mkfs.xfs */
	LK_DOTTED = 1u << 2,
};

/* ---- option grammars (wrappers and see-through programs) ------------- */
enum {
	LK_OPT_ASSIGNS =
	    1 << 0, /* NAME=value words after the options (env, sudo) */
	LK_OPT_NUMERIC = 1 << 1, /* -N is a number option (nice -10) */
	LK_OPT_LONG_EQ =
	    1 << 2, /* every --name[=value] is one word (firejail) */
	LK_OPT_BACKGROUND =
	    1 << 3,             /* the wrapped command runs in the background */
	LK_OPT_DASH = 1 << 4,   /* a lone "-" is an option (env -, su -) */
	LK_OPT_H_HOST = 1 << 5, /* sudo: -h HOST when a non-option follows,
	                           else -h is --help */
	LK_OPT_SU = 1 << 6,     /* su/runuser: [user [shell args...]] */
	LK_OPT_POS_SCRIPT = 1 << 7,   /* flock FILE -c CMD: a script option may
	                               follow the operand */
	LK_OPT_OPT_POS = 1 << 8,      /* the operands before the command are
	                               optional (chroot: no command = shell) */
	LK_OPT_PERMUTE = 1 << 9,      /* options may follow operands (ssh) */
	LK_OPT_REPLACE = 1 << 10,     /* xargs, parallel: -I/-i VALUE is the
	                             replace string */
	LK_OPT_CMD_OPERAND = 1 << 11, /* the operand after the positional
	                                 ones is a command string run with
	                                 sh -c (sg GROUP CMD) */
	LK_OPT_SHELL_ARGS = 1 << 12,  /* the words after `--` are bash's
	                                 arguments (capsh -- -c CMD) */
	LK_OPT_STDIN_SHELL = 1 << 13, /* with no command and no script option
	                                 it runs a shell reading its stdin
	                                 (script, unshare, chroot DIR, sg
	                                 GROUP) */
	LK_OPT_OPERANDS = 1 << 14,    /* read_opts: no word is an option, every
	                                 word is an operand ([ -f x ], expr -5) */
	LK_OPT_COMPLETE = 1 << 15, /* read_opts: every option the program has,
	                              none of which runs a program or writes:
	                              a word known only at run time is one of
	                              them or an error (sha512sum "$f") */
};

/*
 * One program's option grammar, from its manual.  Short option sets are
 * strings of letters.  `longs` is a '|'-separated list of "name:LA" where
 * L is the equivalent short letter ('-' for none) and A the arity: '0' a
 * flag, '1' '2' '3' that many values (in the same word after '=' for the
 * first, or the next words), '?' an optional value given only after '='.
 * --help and --version are query options of every program.
 */
typedef struct lk_optspec {
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
	unsigned npos;          /* operands before the command (timeout 5) */
	uint32_t flags;         /* LK_OPT_* */
	const char *sub;        /* "|exec|x|": the grammar applies only when the
	                           next word is one of these subcommands (npm
	                           exec, uv run); options are scanned after it */
	const char *shell;      /* letters that, with no command, make it run
	                           a shell reading its stdin (sudo -s, sudo -i,
	                           doas -s): LK_OPT_STDIN_SHELL for one form */
	const char *pipe; /* letters whose value, when it starts with | or !,
	                     is a shell command run beside the wrapper's own
	                     command (strace -o '|CMD': popen) */
	const char *runs; /* read_opts: letters (and long names of arity 'c')
	                     after which the words are a command the parser
	                     sees through and judges on its own (fd -x CMD) */
	const char *env;  /* letters whose value NAME=VALUE (or, for a long
	                     name of arity 2, NAME then VALUE) is set in the
	                     command's environment: an assignment before it
	                     (strace -E, systemd-run -E, firejail --env=,
	                     bwrap --setenv) */
	const char *property; /* letters whose value is a unit property
	                         (systemd-run -p): Environment=NAME=VALUE is
	                         an env value, Exec...= a command line */
} lk_optspec;

/* ---- interpreters' inline code --------------------------------------- */
enum {
	LK_LANG_PY = 1 << 0,
	LK_LANG_PERL = 1 << 1,
	LK_LANG_RUBY = 1 << 2,
	LK_LANG_JS = 1 << 3,
	LK_LANG_PHP = 1 << 4,
	LK_LANG_AWK = 1 << 5,
	LK_LANG_LUA = 1 << 6,
	LK_LANG_OSA = 1 << 7,
	LK_LANG_TCL = 1 << 8,
	LK_LANG_OTHER = 1 << 9, /* no pattern table: any code is opaque */
};

enum {
	LK_I_STDIN = 1 << 1,     /* no code and no file: the program is stdin */
	LK_I_CODE_ENDS = 1 << 2, /* -c ends the options (python) */
	LK_I_OPERAND = 1 << 3,   /* the first operand is the program (awk) */
	LK_I_EVAL_SUB = 1 << 4,  /* `deno eval CODE` */
	LK_I_USE_TEXT = 1 << 5,  /* -m/-M (rest letters) are pasted into the
	                            program as `use VALUE;` (perl): a value
	                            holding more than a module name and an
	                            import list is code */
};

struct lk_module;

typedef struct lk_interp {
	const char *cluster;   /* "l:#|d:t=|K:1esun": letters whose optional
	                          value is only some characters, after which
	                          the cluster goes on (lk_cluster_value) */
	unsigned lang;         /* LK_LANG_* */
	const char *code;      /* letters whose value is code */
	const char *code_long; /* "|eval|print|" */
	const char *val;       /* letters taking a value */
	const char *val_long;  /* "|require|import|" next-word values */
	const char *rest;      /* letters taking the rest of the cluster */
	const char *stop;      /* letters after which no inline code runs */
	const char *file;      /* letters naming a program file */
	unsigned flags;        /* LK_I_* */
	const char *query;     /* letters that print and exit, reading no
	                          program (python -V, node -v, perl -v) */
	const struct lk_module *modules; /* a `stop` letter's modules whose
	                                    arguments are code (NULL-named
	                                    end), or NULL */
} lk_interp;

enum {
	LK_M_OPERANDS = 1 << 0,   /* every operand is code (python -m timeit) */
	LK_M_STDIN = 1 << 1,      /* reads code on stdin (python -m code) */
	LK_M_RUNS_FIRST = 1 << 2, /* its first operand is a module it runs
	                             (python -m runpy MOD) */
	LK_M_RUNS_FLAG = 1 << 3,  /* with --module (any abbreviation), its
	                             first operand is a module it runs
	                             (python -m trace --module MOD) */
	LK_M_RUNS_COMMAND = 1 << 4, /* runs a command its line gives, which
	                               locus does not read (python -m
	                               dotenv run CMD): unparsed */
	LK_M_OPAQUE = 1 << 5,       /* runs code in a language of its own
	                               from its line or stdin (IPython's
	                               `!CMD`, isympy): unparsed */
	LK_M_LOADS_STDIN = 1 << 6,  /* an operand `-` or /dev/..., /proc/...
	                               is stdin's data, which it loads as
	                               code (python -m pickle -): unparsed */
};

/* A module an interpreter runs (python -m NAME) that takes code: in its
   own options (-m pdb -c CMD, -m timeit -s SETUP), its operands, or
   stdin; or that runs another module (its grammar's `stop` letter,
   `-m cProfile -m MOD`, or LK_M_RUNS_*).  Any other module runs as a
   program file does. */
typedef struct lk_module {
	const char *name;
	const lk_interp *grammar; /* its options after the name */
	unsigned how;             /* LK_M_* */
} lk_module;

/*
 * A cluster letter c of an lk_interp `cluster` spec, its value starting
 * at p: the end of that value (p itself when it has none), or NULL when
 * c is not in the spec.  An entry "c:SET" takes characters of SET, where
 * `#` stands for a number (decimal digits, or `x` and hex digits), `*`
 * for any character but a blank (perl -i.bak stops at one), a
 * leading `1` limits it to one character, and `=` makes a `:` or `=`
 * after them start a value to the end of the word (perl -d:Module).
 * Perl reads `-le` as -l -e (-l takes octal digits only); getopt's
 * optional values take the whole rest (`rest`).
 */
const char *lk_cluster_value(const char *spec, char c, const char *p);

/* ---- downloaders: where the body goes -------------------------------- */
typedef struct lk_fetch {
	bool saves;             /* saves to a file by default (wget) */
	const char *out_short;  /* letters whose value names the output file */
	const char *out_long;   /* "|output|output-document|" */
	const char *save_short; /* letters that save under the URL's name */
	const char *save_long;
	const char *server_short; /* letters that take the name from the
	                             server (curl -J): unknown */
	const char *server_long;
} lk_fetch;

/* ---- archive extractors: what the member names may reach -------------
 *
 * An extraction writes files whose names come from the archive.  GNU tar
 * strips a leading `/` and refuses `..` unless -P/--absolute-names; cpio
 * -i keeps absolute names unless --no-absolute-filenames; unzip -: keeps
 * `../` and absolute names.  Long options are read as getopt_long does: any
 * prefix counts for the options that make a command write more, only the
 * full spelling for the one that makes it safer (safe_long). */
typedef struct lk_extract {
	const char *x_short;    /* letters that select extraction (tar x,
	                          cpio i); NULL: every run extracts */
	const char *x_long;     /* "|extract|get|" */
	const char *abs_short;  /* letters keeping absolute member names */
	const char *abs_long;   /* "|absolute-names|" */
	const char *safe_long;  /* "|no-absolute-filenames|" (abs_default) */
	bool abs_default;       /* absolute names are kept by default */
	bool oldstyle;          /* the first word may be a dashless cluster
	                          (tar xPf F) */
	const char *in_short;   /* letters that put files into the archive
	                          (tar c r u) */
	const char *in_long;    /* "|create|append|update|" */
	const char *list_short; /* letters naming a file list whose lines
	                           may be options (tar -T: `-C DIR`) */
	const char *list_long;  /* its long name ("files-from") */
	unsigned list_min;      /* the shortest abbreviation of it read as
	                           the option (shorter ones are ambiguous or
	                           another option: tar --file) */
} lk_extract;

/* ---- files a program runs by name (lk_program.reads) ----------------- */

/*
 * The options of a program that runs a file named on its command line (at
 * -f JOB, make -f MAKEFILE) or installs a table (crontab FILE), read the
 * same way by the parser (parser/see_programs.c: a file that is stdin)
 * and the line facts (linefacts.c: a file the line wrote).  A short option
 * cluster is read left to right as getopt does: a letter of `file` or
 * `val` takes the rest of the cluster, or the next word, as its value.
 */
typedef struct lk_reads {
	const char *file;      /* letters whose value is the file it runs */
	const char *file_long; /* "|file|makefile|": --NAME FILE, --NAME=FILE */
	const char *val;       /* other letters taking a value (at -q QUEUE) */
	const char *query; /* letters after which it runs or installs nothing
	                      (at -l, crontab -l) */
} lk_reads;

/* What one option word says (lk_reads_word), as bits. */
enum {
	LK_RW_FILE = 1,  /* it names the file: *value, or the next word */
	LK_RW_NEXT = 2,  /* the next word is its value (the file's, with
	                    LK_RW_FILE): skip it */
	LK_RW_QUERY = 4, /* a query option: nothing runs */
};

/* What the word w says under row r (0: a flag, or not an option); *value
   is the file attached to the word (-fJOB, --file=F), else NULL. */
unsigned lk_reads_word(const lk_reads *r, const char *w, const char **value);

/* How the option word w ("-x...", "--name[=value]") reads in grammar s
   (NULL: no option known): -1 when some part of it is not in s (an
   unknown letter or long name, a value given to a flag; a long name is
   matched whole, never as an abbreviation), else how many of the next
   words are its value (0, or 1 for `-o VALUE`, `--name VALUE`);
   LK_OPTW_COMMAND when the words after it are a command (s->runs, a long
   name of arity 'c', given alone: `-x`, `-Hx`, `--exec`). */
enum { LK_OPTW_COMMAND = -2 };
int lk_optspec_word(const lk_optspec *s, const char *w);

/* ---- arguments that destroy (lk_program.destroys_by) ------------------ */

/*
 * A program that deletes or overwrites files only with certain arguments:
 * an argument equal to a word of `words` (find -delete), or one starting
 * with `assign` (dd of=FILE), whose rest names the file it overwrites (the
 * line facts list it as written; a storage device there is on the floor).
 * The row's .destroys is the reason.
 */
typedef struct lk_destroys_by {
	const char *words;  /* "|-delete|" */
	const char *assign; /* "of=" */
} lk_destroys_by;

/* ---- options with an effect (lk_program.delete_opts, .unseen_opts) --- */

/*
 * An option that gives an otherwise ordinary program an effect: it
 * deletes something (rsync --delete: exec:destructive), or it runs code
 * locus does not see (less +CMD, make --eval: exec:unknown).  Given as
 * the short option in any cluster, the long one or an abbreviation of it,
 * or, with `long_prefix`, any option starting with the long one (rsync
 * --delete-after).  A row's list ends with a NULL reason.
 */
typedef struct lk_optfx {
	char short_opt;       /* 0: none */
	const char *long_opt; /* NULL: none */
	bool long_prefix;
	const char *reason;
	unsigned char min; /* the shortest abbreviation that selects long_opt
	                      (0: `--` and one letter); `--text` is git's
	                      exact -a, so --textconv needs `--textc` */
	bool go_flag;      /* long_opt as Go's flag package reads it: `-name` or
	                 `--name`, whole, its value after '=' or in the next
	                 word (go build -toolexec) */
} lk_optfx;

/*
 * An option whose value is a list of a tool's own flags, some of which name
 * a program the tool runs (`go build -ldflags=-extld=CC`: the linker runs
 * CC).  `opt` is read as Go's flag package reads it (`-opt` or `--opt`,
 * whole; its value after '=' or in the next word); an `opt` ending in ','
 * (`-Wl,`) is a prefix whose value is the rest of the word.  A value that
 * holds one of `texts` (space separated) where a flag starts (after a
 * blank, a comma, `=` or a quote; a text ending in `$` only as a whole
 * flag: `-plugin$` is not `-plugin-opt`; a text "HEAD~TAIL" as a whole
 * flag that is HEAD then any prefix of TAIL, ignoring case: gpg's
 * `show-ph~otos` takes show-phot), or is computed at run time,
 * runs a program named on the line: exec:unknown with `reason`.  A row's
 * list ends with a NULL opt.
 */
typedef struct lk_optval {
	const char *opt;
	const char *texts;
	const char *reason;
} lk_optval;

/* ---- subcommands with an effect (lk_program.net_subs, .stop_subs) ---- */

/*
 * A subcommand that reaches the network (npm install: exec:network) or
 * stops the machine (systemctl reboot: exec:shutdown, on the floor).  For
 * git, `sub` is git's subcommand (after its global options) and `sub2`
 * the first operand after it (git remote show); for another program `sub`
 * is its first operand, or its second when options came before it (`npm
 * --prefix d install`: an option may have taken the first), and `sub2`
 * text some argument holds (`go run PKG@VERSION`: "@"; a sub2 of one short
 * option, "-o", also matches a cluster holding its letter: `pip list -lo`)
 * or that an argument computed at run time may hold.  `sub` NULL: any
 * invocation (npx, reboot); `sub2` NULL: any second word.  A row's
 * list, tried in order, ends with a NULL reason.
 */
typedef struct lk_subfx {
	const char *sub;
	const char *sub2;
	const char *reason;
} lk_subfx;

/*
 * Three more forms.  `sub` "*" (LK_SUB_OTHERS) ends the list of a program
 * whose subcommands are a closed set (lk_program.offline_subs): every form
 * whose subcommand is not on that list of forms known to stay offline
 * reaches the network.  `sub2` "" (a non-git row): some operand follows
 * the subcommand (`npm init vite`, not `npm init -y`).  A git row's `sub2`
 * may hold option words after the operand, or only them ("add -f
 * --fetch", "--remote"): the form needs one of them, a short one in any
 * cluster, a long one or any abbreviation of it from three characters
 * (`--rem=URL`).
 */
#define LK_SUB_OTHERS "*"
/*
 * Two more.  `sub` "" (LK_SUB_NONE): the program run with no subcommand,
 * which has a default action (`yarn`, `yarn --frozen-lockfile` install);
 * not with an option of the row's `query` list (`yarn --version`).  A
 * `sub2` written "|--a|--b|" (sub NULL or not): some argument (after
 * `--` too: over-read) is one of these long options or any abbreviation
 * of it, `--` and one letter on (GnuPG's parser takes every unambiguous
 * prefix, and a prefix it finds ambiguous is an error: `--rec` costs
 * nothing to count).
 */
#define LK_SUB_NONE ""

/* ---- danger packs (labels/): extend here, keep NONE first ------------ */
typedef enum lk_pack {
	LK_PACK_NONE = 0,
	LK_PACK_INFRASTRUCTURE, /* labels/packs_infra.c */
	LK_PACK_KUBERNETES,     /* labels/packs_k8s.c */
	LK_PACK_CONTAINERS,     /* labels/packs_containers.c */
	LK_PACK_DATABASES,      /* labels/packs_db.c */
	LK_PACK_CLOUD,          /* labels/packs_cloud.c */
	LK_PACK_PLATFORMS,      /* labels/packs_platforms.c */
	LK_PACK_GIT,            /* labels/packs_git.c */
	LK_PACK_SYSTEM,         /* labels/packs_system.c */
	LK_PACK_SECRETS,        /* labels/packs_secrets.c */
	LK_PACK_PERSISTENCE,    /* labels/packs_secrets.c (persistence) */
	LK_PACK_PRIVILEGE,      /* labels/packs_privilege.c */
	LK_PACK_COUNT
} lk_pack;

/* ---- effect classes (lk_program.fx) -------------------------
 *
 * What a program may do, whatever its arguments: every row of the table
 * has one (a row whose class bits say it leaves .fx 0 and
 * lk_effect_of() derives it from them; see programs.c).  A program that
 * is in no row is unknown: labels/ tags it exec:unknown (closed world). */
typedef enum lk_effect {
	LK_FX_NONE = 0,   /* derived from the class bits (programs.c) */
	LK_FX_READ,       /* reads and prints: ls, cat, man, pgrep */
	LK_FX_FILES,      /* local files and shell state: cp, touch, tar */
	LK_FX_BUILD,      /* local build, test, lint, format: gcc, eslint */
	LK_FX_WORKSPACE,  /* runs workspace code: make, just, task */
	LK_FX_PACKAGES,   /* package and language version managers */
	LK_FX_INTERP,     /* shells and interpreters */
	LK_FX_VCS,        /* version control: git, hg, svn */
	LK_FX_NETWORK,    /* network clients: curl, ssh, rsync */
	LK_FX_SERVICE,    /* service and cloud CLIs: aws, kubectl, stripe */
	LK_FX_SECRETS,    /* local credential stores: pass, sops, security */
	LK_FX_DATABASE,   /* database clients: psql, mysql, sqlite3 */
	LK_FX_CONTAINERS, /* container and VM runtimes: docker, podman */
	LK_FX_SYSTEM,     /* system administration: systemctl, useradd */
	LK_FX_WRAPPER,    /* runs the command it is given: sudo, timeout */
	LK_FX_DESTROYS,   /* deletes files or erases devices: rm, mkfs */
	LK_FX_COUNT
} lk_effect;

typedef struct lk_program {
	const char *name;     /* canonical name */
	lk_effect fx;         /* effect class; LK_FX_NONE: from .cls */
	uint32_t cls;         /* LK_* class bits */
	uint32_t names;       /* LK_VERSIONED, LK_BUILDS */
	const char *net;      /* LK_NETWORK: "curl reaches the network" */
	const char *destroys; /* LK_DELETES / LK_WIPES_DEVICE / .destroys_by:
	                            reason text */
	const lk_destroys_by *destroys_by; /* arguments that delete or
	                                      overwrite (find -delete) */
	const lk_optfx *delete_opts; /* options that delete (rsync --delete) */
	const lk_optfx *unseen_opts; /* options that run code locus does not
	                                see (less +CMD) */
	const lk_optval *value_runs; /* option values that do (go -ldflags
	                                -extld=CC) */
	const char *compiler_args;   /* the compiler whose arguments the
	                                words after `--` are, and the values
	                                of arg_opts (clang-tidy x.c --
	                                -fplugin=P, --extra-arg=-B.): its
	                                unseen_opts and value_runs judge
	                                them (labels/tables.c) */
	const char *arg_opts;        /* "|-extra-arg|": Go-form options whose
	                                value is one compiler argument */
	const char *defines; /* how a build tool takes variable definitions:
	                        "-D" (cmake, meson: -DNAME=VALUE, -D
	                        NAME=VALUE), "=" (make: NAME=VALUE operands);
	                        a value that names a program or holds
	                        compiler flags is judged (labels/tables.c
	                        judge_defines) */
	const lk_optspec *global_opts; /* the options before the subcommand
	                                  (docker -H HOST ps) where .opts is
	                                  a subcommand's (docker run); NULL:
	                                  .opts */
	const char *plugin_opts;       /* "|--config|": options before the
	                                subcommand that move where its
	                                plugins are found (docker --config
	                                DIR): exec:unknown */
	const char *own_subs;      /* "|build|check|": the closed list of the
	                                subcommands the program has itself
	                                (and known plugins); any other runs a
	                                program named after it (cargo-NAME,
	                                git-NAME on PATH) or an alias from a
	                                config the line does not show:
	                                exec:unknown (labels/tables.c) */
	const lk_subfx *net_subs;  /* subcommands that reach the network */
	const char *offline_subs;  /* "|run|ls|config get|": with a "*" row
	                                ending net_subs, the closed list of
	                                forms that stay offline: the first
	                                operand, or the first two (see
	                                labels/tables.c offline_form) */
	const lk_subfx *run_subs;  /* forms that run a program the table
	                                does not see: a package they download
	                                (npm create, yarn create) or one named
	                                on the line (cargo rustc -- -C
	                                linker=CC): exec:unknown, as `npx
	                                NAME` is for a NAME not in the table */
	const lk_subfx *stop_subs; /* subcommands that stop the machine */
	const char *checks;     /* "|test|run lint|": the first operands (and a
	                       second after a space) that run the project's
	                       checks (tests, linters: exec:check); "|*|":
	                       any invocation (pytest) */
	const char *query;      /* "|--help|--version|": option words after
	                            which the program only prints (help,
	                            version, a listing) and exits */
	const lk_optspec *opts; /* LK_WRAPPER / LK_SEES: option grammar */
	const lk_optspec *read_opts; /* a read-only row without argument rules
	                                (labels/): the options known to be
	                                inert (lk_optspec_word); any other,
	                                or any at all when NULL, is
	                                exec:unknown (closed world) */
	const lk_interp *interp;     /* LK_INTERP / LK_AWK: how code is given */
	const lk_fetch *fetch;       /* LK_DOWNLOADER */
	const lk_reads *reads;       /* options naming a file it runs */
	const lk_extract *extract;   /* LK_EXTRACTS: how it is told to */
	const char *writes;         /* "|-fprint|": option words whose next word
	                            names a file the program writes (find
	                            -fprint F); any other word of a program
	                            the labels call a pure reader is read */
	const char *writes_letters; /* short options, alone or in any
	                               cluster, whose next word names a
	                               file a pure reader writes (tree -o) */
	bool writes_tail;     /* a pure reader's operands after its first are
	                     files it writes (xxd IN OUT) */
	bool sources_written; /* LK_COPIES: the sources change too (mv
	                         removes them, ln gives them a new name) */
	bool dirs_opt;        /* LK_COPIES: -d/--directory makes every
	                         operand a folder it creates (install -d) */
	const char *patterns; /* "|--exclude|-x|": options whose value (the
	                         next word, or after `=` on a long one) is a
	                         name pattern the program matches, never a
	                         file it writes (tar --exclude=.git) */
	bool pattern_lists;   /* a pattern option's values run on to the
	                         next option word (zip -x A B C) */
	lk_pack pack;         /* per-program pack, LK_PACK_NONE if none */

	/* A program that reads any option word as a key of its config, in
	   any abbreviation (npm: --node-options, --script-shell, --editor,
	   --viewer name programs it runs): the options known to be inert;
	   any other before `--`, or a word computed at run time that may be
	   one, is exec:unknown (closed world, labels/tables.c). */
	const lk_optspec *config_opts;
} lk_program;

/* The table's word lists are written "|a|b|c|": true when `list` (NULL:
   empty) holds exactly the n bytes at s (n > 0). */
bool lk_bar_has(const char *list, const char *s, size_t n);

/* The n bytes at name (n > 0) begin some word of the "|a|b|" list: an
   abbreviation getopt_long could read as it (ambiguous ones too). */
bool lk_bar_prefix(const char *list, const char *name, size_t n);

/* The option letters `set` (NULL: none) hold c (not NUL). */
bool lk_has_letter(const char *set, char c);

/* The command (row p, argv[0..argc)) extracts or fills an archive with
   the names of a file list that may change its folder (tar -T LIST with
   a `-C DIR` line): where it writes or reads is in data locus does not
   read. */
bool lk_names_from_list(const lk_program *p, const char *const *argv,
                        size_t argc);
/* The command (row p, argv[0..argc)) extracts an archive. */
bool lk_extracts(const lk_program *p, const char *const *argv, size_t argc);
/* ... and keeps the archive's absolute (or `..`) member names: it may
   write any path. */
bool lk_extracts_anywhere(const lk_program *p, const char *const *argv,
                          size_t argc);

/* argv[i] of a command of row p names a file it writes: the value of
   one of the row's `writes` options (find -fprint F). */
bool lk_writes_operand(const lk_program *p, const char *const *argv, size_t i);

/* The module python -m `mod` (its arguments from argv[*at]) runs in
   the end, through the runners of interpreter grammar it (`-m cProfile
   -m timeit`, `-m runpy http.server`, `-m trace --module X`), four deep
   at most; *at moves to the first argument of the module returned. */
const char *lk_module_runs(const lk_interp *it, const char *mod,
                           const char *const *argv, size_t argc, size_t *at);

/* argv[i] of copy p (LK_COPIES) may be written: its destination (the
   last operand; -t's value, attached, next or after any cluster holding
   t; --target-directory's in any abbreviation), or any word of a move or
   a link (sources_written, cp -l/-s/--link/--symbolic-link: a source
   gets another name).  A plain copy only reads its sources. */
bool lk_copy_writes(const lk_program *p, const char *const *argv, size_t argc,
                    size_t i);

/* The short options of cp, mv, install and ln that take a value (-S
   SUFFIX, -t DIR; install's -g, -m, -o): in a cluster, the first of them
   takes the rest. */
#define LK_COPY_VALUE_LETTERS "Sgmot"

/* The length of module name mod without a trailing `.__main__` (`-m
   pip.__main__` runs what `-m pip` runs). */
size_t lk_module_name_len(const char *mod);

/* a, a long option word (`--name` or `--name=value`), is `name` or an
   abbreviation of it at least min letters long, as getopt_long,
   argparse and optparse take it. */
bool lk_long_abbrev(const char *a, const char *name, size_t min);

/* argv[i] is the value of one of p's pattern options (p->patterns): a
   name the program matches, not a file it writes. */
bool lk_pattern_operand(const lk_program *p, const char *const *argv, size_t i);

/* The row of `name` (a basename), through every other name it goes by;
   NULL when the program is not in the table. */
const lk_program *lk_program_find(const char *name);

/* Argument a makes row p delete or overwrite (find -delete, dd of=F):
   false for NULL or a row without .destroys_by. */
bool lk_destroys_arg(const lk_program *p, const char *a);

/* The file argument a overwrites under row p (dd of=F: F), or NULL. */
const char *lk_destroyed_file(const lk_program *p, const char *a);

/* The row's class bits, 0 for NULL or an unknown name. */
uint32_t lk_classes(const char *name);

/* lk_classes(name) & cls != 0. */
static inline bool lk_is(const char *name, uint32_t cls)
{
	return (lk_classes(name) & cls) != 0;
}

/* The row's effect class: .fx, else the one its class bits give;
   LK_FX_NONE only for NULL (tests check every row has one). */
lk_effect lk_effect_of(const lk_program *p);

/* "read-only", "service or cloud CLI"...; "" past the end. */
const char *lk_effect_name(lk_effect fx);

/* Iterate over rows (for tests, docs and regex building): row i, or NULL
   past the end. */
const lk_program *lk_program_at(size_t i);
/* The whole table (for scans that visit every row): *n rows. */
const lk_program *lk_programs(size_t *n);

/*
 * Write a PCRE2 alternation "(?:a|b|c...)" of every name (canonical and
 * alias) of the programs with any of `cls`, versioned names as
 * NAME[-0-9.]*, into buf.  Returns the length, or 0 when cap is too small.
 */
size_t lk_names_regex(uint32_t cls, char *buf, size_t cap);

#endif
