/*
 * knowledge/programs.c - the one program-knowledge table (see programs.h).
 *
 * Data, not code: one row per program, grouped by what it is; a program
 * that is several things (ssh: network and see-through; npm: subcommands
 * and `npm exec` runner) has one row with every class.  Option grammars
 * and inline-code options come from the programs' manuals.  Every other
 * name a program goes by is resolved in lk_program_find(): the version
 * and build rules of its row, then the alias table.
 */
#include <ctype.h>
#include <string.h>

#include "programs.h"

#define OPTS(...) (&(const lk_optspec){__VA_ARGS__})
/* tar's options whose value is a member-name pattern (or a file of them,
   read): never a file it writes (lk_program.patterns) */
#define TAR_PATTERNS "|--exclude|--exclude-from|-X|--include|"

#define INTERP(...) (&(const lk_interp){NULL, __VA_ARGS__, NULL})
/* an interpreter whose -m modules take code (lk_module) */
#define INTERP_M(...) (&(const lk_interp){NULL, __VA_ARGS__})
/* perl, ruby: cluster letters whose value is only some characters */
#define INTERP_CLUSTER(c, ...) (&(const lk_interp){c, __VA_ARGS__, NULL})

/* python -m NAME for the standard modules that take code (checked in
   python3.11: `-m timeit -s SETUP STMT...` runs SETUP and every STMT,
   `-m pdb -c CMD` runs CMD as a debugger command, which may be any
   statement, `-m code` reads statements on stdin), and the runners that
   run another module (`-m cProfile -m timeit STMT`); options as the
   modules' getopt reads them. */
static const lk_module python_modules[13];
/* clang-format off */
static const lk_module python_modules[13] = {
    {"timeit",
     INTERP_M(LK_LANG_PY, "s", "|setup|", "nru", "|number|repeat|unit|", "",
              "", "", 0, "h", NULL),
     LK_M_OPERANDS},
    /* pdb reads its commands (statements among them) on stdin too */
    {"pdb",
     INTERP_M(LK_LANG_PY, "c", "|command|", "", "", "", "m", "", 0, "h",
              python_modules),
     LK_M_STDIN},
    {"code", INTERP_M(LK_LANG_PY, "", "", "", "", "", "", "", 0, "qh", NULL),
     LK_M_STDIN},
    {"asyncio", INTERP_M(LK_LANG_PY, "", "", "", "", "", "", "", 0, "h", NULL),
     LK_M_STDIN},
    {"cProfile",
     INTERP_M(LK_LANG_PY, "", "", "os", "|outfile|sort|", "", "m", "", 0, "h",
              python_modules),
     0},
    {"profile",
     INTERP_M(LK_LANG_PY, "", "", "os", "|outfile|sort|", "", "m", "", 0, "h",
              python_modules),
     0},
    {"runpy", INTERP_M(LK_LANG_PY, "", "", "", "", "", "", "", 0, "", python_modules),
     LK_M_RUNS_FIRST},
    /* trace's -m is --missing; --module makes the program a module */
    {"trace",
     INTERP_M(LK_LANG_PY, "", "", "fC",
              "|file|coverdir|ignore-module|ignore-dir|", "", "", "", 0, "h",
              python_modules),
     LK_M_RUNS_FLAG},
    /* python-dotenv: `run CMD` runs CMD with the .env file's values,
       `list`/`get` print them (checked by a red team) */
    {"dotenv", INTERP_M(LK_LANG_PY, "", "", "", "", "", "", "", 0, "", NULL),
     LK_M_RUNS_COMMAND},
    /* REPLs that run code given with -c or on stdin, in a language of
       their own (IPython's `!CMD` runs a shell command; checked by a
       red team: `-m IPython -c CODE` and `echo CODE | -m IPython` ran
       it), and pickle's command line, which loads (runs) a pickle
       written on stdin (`-m pickle -`; checked the same) */
    {"IPython", INTERP_M(LK_LANG_PY, "", "", "", "", "", "", "", 0, "", NULL),
     LK_M_OPAQUE},
    {"isympy", INTERP_M(LK_LANG_PY, "", "", "", "", "", "", "", 0, "", NULL),
     LK_M_OPAQUE},
    {"pickle", INTERP_M(LK_LANG_PY, "", "", "", "", "", "", "", 0, "", NULL),
     LK_M_LOADS_STDIN},
    {NULL, NULL, 0},
};
/* clang-format on */

/* How downloaders name what they save (lk_fetch). */
/* GNU tar, bsdtar: -x/--extract/--get, old-style `tar xPf`; -P and
   --absolute-names keep `/` and `..` (checked in tar inside bubblewrap).
   -T/--files-from LIST: GNU tar reads a line `-C DIR` of LIST as the
   option (checked: `printf -- '-C ..\nm\n' | tar -xf a.tar -T -`
   extracted m into the parent), bsdtar a line `-C` then DIR; --file is
   not --files-from, and --f, --fi, --fil are ambiguous */
static const lk_extract extract_tar = {.x_short = "x",
                                       .x_long = "|extract|get|",
                                       .abs_short = "P",
                                       .abs_long = "|absolute-names|",
                                       .oldstyle = true,
                                       .in_short = "cru",
                                       .in_long = "|create|append|update|",
                                       .list_short = "T",
                                       .list_long = "files-from",
                                       .list_min = 5};
/* cpio -i keeps absolute names unless --no-absolute-filenames (cpio(1));
   -p (pass-through) writes the listed files into its folder */
static const lk_extract extract_cpio = {.x_short = "ip",
                                        .x_long = "|extract|pass-through|",
                                        .safe_long = "|no-absolute-filenames|",
                                        .abs_default = true};
/* 7-Zip and unrar: the command comes first, and only `x` and `e` write
   the members (`7z a backup.7z .git` reads .git) */
static const lk_extract extract_7z = {.x_short = "xe", .oldstyle = true};
/* unzip -: keeps `../` and absolute names (unzip(1), checked) */
static const lk_extract extract_unzip = {.abs_short = ":"};

static const lk_fetch fetch_curl = {
    .out_short = "o",
    .out_long = "|output|",
    .save_short = "O",
    .save_long = "|remote-name|remote-name-all|",
    .server_short = "J",
    .server_long = "|remote-header-name|",
};
/* wget -o FILE is its log: still a file the line writes */
static const lk_fetch fetch_wget = {
    .saves = true,
    .out_short = "Oo",
    .out_long = "|output-document|output-file|",
};
static const lk_fetch fetch_saves_o = {
    .saves = true,
    .out_short = "o",
    .out_long = "|output|",
};
static const lk_fetch fetch_aria2c = {
    .saves = true,
    .out_short = "o",
    .out_long = "|out|",
};
static const lk_fetch fetch_httpie = {
    .out_short = "o",
    .out_long = "|output|",
    .save_short = "d",
    .save_long = "|download|",
};
static const lk_fetch fetch_saves = {.saves = true};

/* Files run by name (lk_reads).  at/batch: -f JOB (at(1): -q QUEUE, -t
   TIME, -u USER take values; -l atq, -r/-d atrm, -c cat, -V version queue
   nothing); crontab FILE (-u USER; -l list, -e edit, -r remove, -T test,
   -V version); make -f/--file/--makefile (-C -I -o -W -E take values). */
static const lk_reads reads_at = {.file = "f", .val = "qtu", .query = "lrdcV"};
static const lk_reads reads_crontab = {.val = "u", .query = "lerTV"};
static const lk_reads reads_make = {
    .file = "f", .file_long = "|file|makefile|", .val = "CIoWE"};

/* find -delete deletes what it finds; dd of=FILE overwrites FILE. */
static const lk_destroys_by destroys_find = {.words = "|-delete|"};
static const lk_destroys_by destroys_dd = {.assign = "of="};
/* cmake -E's built-in file commands (checked with cmake: remove_directory
   removes the tree) */
static const lk_destroys_by destroys_cmake = {
    .words = "|remove|remove_directory|rm|"};

/* Options that make an otherwise ordinary program delete something
   (lk_optfx: exec:destructive). */
/* clang-format off */
static const lk_optfx delete_opts_crontab[] = {
	{ 'r', NULL, false, "crontab -r deletes the crontab", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx delete_opts_rsync[] = {
	{ 0, "--delete", true, "rsync --delete deletes files", 0, false },
	{ 0, "--remove-source-files", false,
	  "rsync --remove-source-files deletes files", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
/* Every prefix of --recursive-unlink shorter than --recursiv is ambiguous
   (--recursion, --record-size, --remove-files...): tar refuses it, so
   counting it costs nothing and a prefix table can never fall behind */
static const lk_optfx delete_opts_tar[] = {
	{ 0, "--remove-files", false, "tar --remove-files deletes files", 0, false },
	{ 0, "--recursive-unlink", false, "tar --recursive-unlink deletes "
	  "the directories it extracts over", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
/* zip -m moves files into the archive (they are deleted); zstd and lz4
   --rm delete their sources; 7-Zip's -sdel deletes what it added (zip
   refuses --m and --mo as ambiguous, so any prefix of --move counts) */
static const lk_optfx delete_opts_zip[] = {
	{ 'm', "--move", false, "zip -m deletes the files it adds", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
#define LK_RM_SOURCE(p)                                                        \
	{                                                                      \
		{0, "--rm", false, p " --rm deletes the source files", 4, false}, \
		{                                                              \
			0, NULL, false, NULL, 0, false                         \
		}                                                              \
	}
/* python -m venv --clear DIR deletes DIR's contents first (checked by a
   red team: src/main.c and .git were gone).  argparse refuses `--c` as
   ambiguous with --copies: read as --clear all the same (fuzz_bypass
   abbreviates; the over-reading holds a line that fails) */
static const lk_optfx delete_opts_venv[] = {
	{ 0, "--clear", false, "venv --clear deletes the contents of the "
	  "folder it makes the environment in", 3, false },
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx delete_opts_virtualenv[] = {
	{ 0, "--clear", false, "virtualenv --clear deletes the folder it "
	  "makes the environment in first", 3, false },
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx delete_opts_zstd[] = LK_RM_SOURCE("zstd");
static const lk_optfx delete_opts_lz4[] = LK_RM_SOURCE("lz4");
#define LK_SDEL(p)                                                             \
	{                                                                      \
		{0, "--sdel", false, p " -sdel deletes the files it adds", 0,  \
		 true},                                                        \
		{                                                              \
			0, NULL, false, NULL, 0, false                         \
		}                                                              \
	}
static const lk_optfx delete_opts_7z[] = LK_SDEL("7z");
static const lk_optfx delete_opts_7za[] = LK_SDEL("7za");
static const lk_optfx delete_opts_7zr[] = LK_SDEL("7zr");
static const lk_optfx delete_opts_gtar[] = {
	{ 0, "--remove-files", false, "gtar --remove-files deletes files", 0, false },
	{ 0, "--recursive-unlink", false, "gtar --recursive-unlink deletes "
	  "the directories it extracts over", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};

/* Options that run code locus does not see (lk_optfx: exec:unknown, as for
   a program locus does not know): a pager command (`less +'!cmd'`: `!`
   runs a shell), a makefile given on the line (`make --eval`), zip's test
   command. */
static const lk_optfx unseen_opts_less[] = {
	{ 0, "+", true, "less +CMD runs pager commands (! runs a shell) "
	  "locus does not see", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx unseen_opts_more[] = {
	{ 0, "+", true, "more +CMD runs pager commands locus does not see", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx unseen_opts_most[] = {
	{ 0, "+", true, "most +CMD runs pager commands locus does not see", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx unseen_opts_make[] = {
	{ 'E', "--eval", false, "make --eval runs a makefile given on the line", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx unseen_opts_zip[] = {
	{ 'T', "--unzip-command", false, "zip -TT runs a test command", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
/* a shared library loaded into the program: ssh-keygen's PKCS#11 and FIDO
   providers */
static const lk_optfx unseen_opts_ssh_keygen[] = {
	{ 'D', NULL, false, "ssh-keygen -D loads a PKCS#11 library (its code "
	  "runs)", 0, false },
	{ 'w', NULL, false, "ssh-keygen -w loads a FIDO provider library (its "
	  "code runs)", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
/* a program named by an option's value runs in the program's place or
   beside it: go's -exec (the test binary run by it), -toolexec (every
   compiler and linker call), -vettool; install's strip program; any
   cargo configuration given on the line (target.*.runner and .linker,
   build.rustc-wrapper name programs) */
static const lk_optfx unseen_opts_go[] = {
	{ 0, "--exec", false, "go -exec runs the test or program binary through "
	  "a program named on the line", 0, true },
	{ 0, "--toolexec", false, "go -toolexec runs every compiler and linker "
	  "call through a program named on the line", 0, true },
	{ 0, "--vettool", false, "go vet -vettool runs a program named on the "
	  "line", 0, true },
	{ 0, NULL, false, NULL, 0, false },
};
/* -ldflags: -extld and -extar name the external linker and archiver,
   -extldflags passes flags to it (gcc -B DIR runs DIR's ld) */
static const lk_optval value_runs_go[] = {
	{ "-ldflags", "-extld -extar -o -tmpdir -capturehostobjs -memprofile "
	  "-cpuprofile @", "go -ldflags: -extld/-extar/-extldflags run a linker "
	  "or archiver named on the line; -o and the profile flags write where "
	  "the line says; @FILE reads more flags (or the value is computed at "
	  "run time)" },
	{ "-gcflags", "-o -memprofile -cpuprofile -blockprofile -mutexprofile "
	  "-traceprofile -json -linkobj -asmhdr -importcfg -embedcfg @",
	  "go -gcflags: -o, -json and the profile flags write where the line "
	  "says; @FILE reads more flags (or the value is computed at run time)" },
	{ "-asmflags", "-o @", "go -asmflags: -o writes where the line says; "
	  "@FILE reads more flags (or the value is computed at run time)" },
	{ "-gccgoflags", "-wrapper -B -fplugin -specs --specs -o -Wl @",
	  "go -gccgoflags passes flags to gccgo, a gcc driver (-wrapper, -B, "
	  "-fplugin, -specs run programs; or the value is computed at run "
	  "time)" },
	{ NULL, NULL, NULL },
};
static const lk_optfx unseen_opts_split[] = {
	{ 0, "--filter", false, "split --filter runs a shell command given on "
	  "the line for every piece", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx unseen_opts_cpio[] = {
	{ 0, "--rsh-command", false, "cpio --rsh-command runs a program named "
	  "on the line", 4, false },
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx unseen_opts_gotestsum[] = {
	{ 0, "--raw-command", false, "gotestsum --raw-command runs the command "
	  "given on the line", 0, false },
	{ 0, "--post-run-command", false, "gotestsum --post-run-command runs a "
	  "command given on the line", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
/* argparse refuses every prefix shorter than --gcov-exe as ambiguous */
static const lk_optfx unseen_opts_gcovr[] = {
	{ 0, "--gcov-executable", false, "gcovr --gcov-executable runs a program "
	  "named on the line", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
/* ctest --build-and-test ... --test-command CMD runs CMD (checked) */
static const lk_optfx unseen_opts_ctest[] = {
	{ 0, "--test-command", true, "ctest --test-command runs a command given "
	  "on the line", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
/* meson test --wrapper (argparse: any unique prefix from --wr) */
static const lk_optfx unseen_opts_meson[] = {
	{ 0, "--wrapper", false, "meson test --wrapper runs the tests through "
	  "a program named on the line", 4, false },
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx unseen_opts_cppcheck[] = {
	{ 0, "--addon-python", false, "cppcheck --addon-python runs a program "
	  "named on the line", 0, false },
	/* the value goes to popen: a shell command (checked) */
	{ 0, "--clang", true, "cppcheck --clang= runs a shell command given on "
	  "the line", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
/* pandoc's filters are programs (found in PATH), its Lua filters code */
static const lk_optfx unseen_opts_pandoc[] = {
	{ 'F', "--filter", false, "pandoc --filter runs a program named on the "
	  "line", 6, false },
	{ 0, "--lua-filter", false, "pandoc --lua-filter runs Lua code from a "
	  "file", 4, false },
	{ 0, NULL, false, NULL, 0, false },
};
/* openssl -engine / -provider load a shared library named on the line
   (a constructor runs: checked with OpenSSL 3.0), -provider-path says
   where from; one dash or two, `=` or the next word, no abbreviation */
static const lk_optfx unseen_opts_openssl[] = {
	{ 0, "--engine", false, "openssl -engine loads a shared library named "
	  "on the line", 0, true },
	{ 0, "--provider", false, "openssl -provider loads a shared library "
	  "named on the line", 0, true },
	{ 0, "--provider-path", false, "openssl -provider-path loads providers "
	  "from a directory named on the line", 0, true },
	/* openssl engine -pre/-post CMD:ARG: control commands of an engine,
	   `dynamic -pre SO_PATH:/x.so -pre LOAD` loads any library (checked
	   by a red team: the library's constructor ran) */
	{ 0, "--pre", false, "openssl engine -pre/-post runs an engine's "
	  "control commands (SO_PATH: and LOAD load a library named on the "
	  "line)", 0, true },
	{ 0, "--post", false, "openssl engine -pre/-post runs an engine's "
	  "control commands (SO_PATH: and LOAD load a library named on the "
	  "line)", 0, true },
	{ 0, NULL, false, NULL, 0, false },
};
/* rustc and rustdoc (-C for its doctests) read `_` as `-` in -C and -Z
   keys (checked: -C link_arg=-wrapper ran the program); `min` 17: whole,
   so that --codegen=opt-level= is no abbreviation.  -C link-arg(s)=, -Z
   pre-link-arg(s)=: flags for the linker, which may run programs (gcc -B
   DIR, -specs=, -wrapper).  +/DIR: rustup's proxy runs DIR/bin/rustc.
   @FILE: more options from a file (checked: -Clinker= in it ran the
   program).  Each row's reason names its program (tests/test_knowledge). */
#define LK_RUSTUP_DIR(P)                                                       \
	{ 0, "+/", true, P " +/DIR: rustup runs that directory's " P, 0,       \
	  false }
#define LK_RUSTC_UNSEEN(P)                                                     \
	{ 0, "linker=", true, P " -C linker= runs a program named on the "     \
	  "line", 0, false },                                                  \
	{ 0, "-Clinker=", true, P " -C linker= runs a program named on the "   \
	  "line", 0, false },                                                  \
	{ 0, "--codegen=linker=", true, P " -C linker= runs a program named "  \
	  "on the line", 17, false },                                          \
	LK_RUSTC_LINK_ARG(P, "link-arg", 0),                                   \
	LK_RUSTC_LINK_ARG(P, "link_arg", 0),                                   \
	LK_RUSTC_LINK_ARG(P, "-Clink-arg", 0),                                 \
	LK_RUSTC_LINK_ARG(P, "-Clink_arg", 0),                                 \
	LK_RUSTC_LINK_ARG(P, "--codegen=link-arg", 18),                        \
	LK_RUSTC_LINK_ARG(P, "--codegen=link_arg", 18),                        \
	LK_RUSTC_LINK_ARG(P, "pre-link-arg", 0),                               \
	LK_RUSTC_LINK_ARG(P, "pre_link_arg", 0),                               \
	LK_RUSTC_LINK_ARG(P, "-Zpre-link-arg", 0),                             \
	LK_RUSTC_LINK_ARG(P, "-Zpre_link_arg", 0),                             \
	LK_RUSTC_LOADS(P, "codegen-backend"),                                  \
	LK_RUSTC_LOADS(P, "codegen_backend"),                                  \
	LK_RUSTC_LOADS(P, "-Zcodegen-backend"),                                \
	LK_RUSTC_LOADS(P, "-Zcodegen_backend"),                                \
	LK_RUSTC_LOADS(P, "llvm-plugins"),                                     \
	LK_RUSTC_LOADS(P, "llvm_plugins"),                                     \
	LK_RUSTC_LOADS(P, "-Zllvm-plugins"),                                   \
	LK_RUSTC_LOADS(P, "-Zllvm_plugins"),                                   \
	LK_RUSTUP_DIR(P),                                                      \
	{ 0, "@", true, P " @FILE reads more options from a file (-C linker= " \
	  "there runs a program)", 0, false }
/* nightly's -Z codegen-backend= and -Z llvm-plugins= load a shared
   library (checked) */
#define LK_RUSTC_LOADS(P, OPT)                                                 \
	{ 0, OPT, true, P " -Z codegen-backend/llvm-plugins loads a shared "   \
	  "library named on the line", 0, false }
#define LK_RUSTC_LINK_ARG(P, OPT, MIN)                                         \
	{ 0, OPT, true, P " -C link-arg passes flags to the linker that may "  \
	  "run programs (gcc -B, -specs, -wrapper)", MIN, false }
static const lk_optfx unseen_opts_rustc[] = {
	LK_RUSTC_UNSEEN("rustc"),
	{ 0, NULL, false, NULL, 0, false },
};
/* rustdoc --test runs doctests through --test-runtool (--runtool) */
static const lk_optfx unseen_opts_rustdoc[] = {
	LK_RUSTC_UNSEEN("rustdoc"),
	{ 0, "--test-runtool", true, "rustdoc --test-runtool runs the doctests "
	  "through a program named on the line", 0, false },
	{ 0, "--runtool", true, "rustdoc --runtool runs the doctests through a "
	  "program named on the line", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx unseen_opts_clippy_driver[] = {
	LK_RUSTC_UNSEEN("clippy-driver"),
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx unseen_opts_cargo_clippy[] = {
	LK_RUSTUP_DIR("cargo-clippy"),
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx unseen_opts_rustfmt[] = {
	LK_RUSTUP_DIR("rustfmt"),
	{ 0, NULL, false, NULL, 0, false },
};
/* A C compiler driver (gcc, clang and their kin) runs programs named by
   -wrapper, -B DIR (its ld, as, cc1), -fplugin=, -specs= (a specs file
   can run any command), clang's -fpass-plugin= and --ld-path=, and reads
   more options from @FILE.  (Checked: gcc -wrapper 'sh,-c,CMD' -E -x c
   /dev/null ran CMD.)  One table a driver: each reason names it. */
#define LK_CC_UNSEEN(P)                                                        \
	{ 0, "-wrapper", true, P " -wrapper runs its passes through a program " \
	  "named on the line", 0, false },                                     \
	{ 0, "-B", true, P " -B DIR runs that directory's linker, assembler "  \
	  "and passes", 0, false },                                            \
	{ 0, "-fplugin", true, P " -fplugin loads a shared library named on "  \
	  "the line", 0, false },                                              \
	{ 0, "-fpass-plugin", true, P " -fpass-plugin loads a shared library " \
	  "named on the line", 0, false },                                     \
	{ 0, "-specs", true, P " -specs: a specs file may run any program", 0, \
	  false },                                                             \
	{ 0, "--specs", true, P " -specs: a specs file may run any program",   \
	  0, false },                                                          \
	{ 0, "--ld-path", true, P " --ld-path runs a linker named on the "     \
	  "line", 0, false },                                                  \
	{ 0, "@", true, P " @FILE reads more options from a file (they may "   \
	  "name programs to run)", 0, false },                                 \
	{ 0, "--prefix", true, P " --prefix DIR (-B) runs that directory's "   \
	  "linker, assembler and passes", 0, false },                          \
	{ 0, "--plugin", true, P " --plugin (-fplugin) loads a shared library " \
	  "named on the line", 0, false },                                     \
	{ 0, "--config", true, P " --config FILE reads more options from a "   \
	  "file (clang)", 0, false },                                          \
	{ 0, "-ccc-", true, P " -ccc-install-dir and -ccc-* name the "         \
	  "programs clang runs", 0, false },                                   \
	{ 0, "-load", true, P " -load (clang -cc1, -Xanalyzer, -mllvm) loads a " \
	  "shared library named on the line", 0, false },                      \
	{ 0, "-ccbin", true, P " -ccbin names the host compiler it runs "      \
	  "(nvcc)", 0, false },                                                \
	{ 0, "--compiler-bindir", true, P " --compiler-bindir names the host " \
	  "compiler it runs (nvcc)", 0, false },                               \
	{ 0, "-fuse-ld=", true, P " -fuse-ld= runs the linker it names (a "    \
	  "path, or ld.NAME from PATH)", 0, false },                           \
	{ 0, "--driver-mode", true, P " --driver-mode reads the line with "    \
	  "another driver's options (cl: -clang: passes them on)", 0, false }, \
	{ 0, "-clang:", true, P " -clang: passes an option to clang (cl "      \
	  "mode)", 0, false },                                                 \
	{ 0, "/clang:", true, P " /clang: passes an option to clang (cl "      \
	  "mode)", 0, false },                                                 \
	{ 0, NULL, false, NULL, 0, false }
/* -Wl, and -Xlinker (flags for the linker) and clang's -Xclang (for the
   compiler): a plugin loads a shared library, -o writes where the line
   says (`-Wl,-o,/x`, `-Xlinker -o -Xlinker /x`) */
#define LK_CC_LINKER_TEXTS                                                     \
	"-plugin$ --plugin$ --plugin= -o$ --output$ --output= -mllvm @ "        \
	"--error-handling-script"
#define LK_CC_LINKER(P, OPT)                                                   \
	{ OPT, LK_CC_LINKER_TEXTS, P " " OPT ": the linker's -plugin (and "     \
	  "lld's -mllvm -load) loads a shared library, its -o writes where "    \
	  "the line says (or the value is computed at run time)" }
#define LK_CC_PASSES(P, OPT)                                                   \
	{ OPT, "-wrapper -B -fplugin -fpass-plugin -specs --specs -load @",     \
	  P " " OPT ": flags for a pass that run programs or load libraries "   \
	  "(or the value is computed at run time)" }
#define LK_CC_VALUES(P)                                                        \
	LK_CC_LINKER(P, "-Wl,"), LK_CC_LINKER(P, "-Xlinker"),                  \
	LK_CC_LINKER(P, "-for-linker"),                                        \
	LK_CC_PASSES(P, "-Wp,"), LK_CC_PASSES(P, "-Xpreprocessor"),            \
	LK_CC_PASSES(P, "-Wa,"), LK_CC_PASSES(P, "-Xassembler"),               \
	LK_CC_PASSES(P, "-Xcompiler"), LK_CC_PASSES(P, "-Xanalyzer"),          \
	{ "-Xclang", "-load -plugin -add-plugin -fplugin -fpass-plugin",       \
	  P " -Xclang -load loads a shared library named on the line (or the " \
	  "value is computed at run time)" },                                  \
	{ NULL, NULL, NULL }
#define LK_CC_TABLES(ID, P)                                                    \
	static const lk_optfx unseen_opts_##ID[] = {LK_CC_UNSEEN(P)};          \
	static const lk_optval value_runs_##ID[] = {LK_CC_VALUES(P)};
LK_CC_TABLES(cc, "cc")
LK_CC_TABLES(cxx, "c++")
LK_CC_TABLES(gcc, "gcc")
LK_CC_TABLES(gxx, "g++")
LK_CC_TABLES(clang, "clang")
LK_CC_TABLES(clangxx, "clang++")
LK_CC_TABLES(cpp, "cpp")
LK_CC_TABLES(gfortran, "gfortran")
LK_CC_TABLES(gccgo, "gccgo")
LK_CC_TABLES(c89, "c89")
LK_CC_TABLES(c99, "c99")
LK_CC_TABLES(gdc, "gdc")
LK_CC_TABLES(mpicc, "mpicc")
LK_CC_TABLES(mpicxx, "mpicxx")
LK_CC_TABLES(mpicpp, "mpic++")
LK_CC_TABLES(hipcc, "hipcc")
LK_CC_TABLES(nvcc, "nvcc")
/* include-what-you-use reads clang's arguments (its own come after
   -Xiwyu): -Xclang -load, -fplugin, -B load or run what they name */
LK_CC_TABLES(iwyu_long, "include-what-you-use")
LK_CC_TABLES(iwyu, "iwyu")
/* binutils and the linkers load LTO plugins (--plugin) and read more
   options from @FILE; lld and llc load LLVM plugins (-mllvm -load,
   -load); mold -run runs a command (checked: ar/ranlib --plugin, gold
   -plugin, ar/gold/lld @FILE, lld -mllvm -load= and llc -load loaded a
   stand-in library) */
#define LK_BINUTILS_UNSEEN(P)                                                  \
	{ 0, "-plugin", true, P " --plugin loads a shared library named on "    \
	  "the line", 0, false },                                              \
	{ 0, "--plugin", true, P " --plugin loads a shared library named on "   \
	  "the line", 0, false },                                              \
	{ 0, "-load", true, P " -load (-mllvm -load) loads a shared library "   \
	  "named on the line", 0, false },                                     \
	{ 0, "--load", true, P " --load loads a shared library named on the "   \
	  "line", 0, false },                                                  \
	{ 0, "-run", true, P " -run runs a command (mold)", 0, false },        \
	{ 0, "--error-handling-script", true, P " --error-handling-script "    \
	  "runs a script named on the line (ld 2.40)", 0, false },              \
	{ 0, "@", true, P " @FILE reads more options from a file", 0, false }, \
	{ 0, NULL, false, NULL, 0, false }
#define LK_BINUTILS(ID, P)                                                     \
	static const lk_optfx unseen_opts_##ID[] = {LK_BINUTILS_UNSEEN(P)};
LK_BINUTILS(ar, "ar")
LK_BINUTILS(ranlib, "ranlib")
LK_BINUTILS(objcopy, "objcopy")
LK_BINUTILS(strip, "strip")
LK_BINUTILS(as, "as")
LK_BINUTILS(gold, "gold")
LK_BINUTILS(ld_gold, "ld.gold")
LK_BINUTILS(ld_lld, "ld.lld")
LK_BINUTILS(llc, "llc")
LK_BINUTILS(clang_tidy, "clang-tidy")
LK_BINUTILS(ld, "ld")
/* ghc -pgmF CMD (and every -pgm*: the preprocessor, compiler, linker it
   runs), ghc -e EXPR (code given on the line) */
static const lk_optfx unseen_opts_ghc[] = {
	{ 0, "-pgm", true, "ghc -pgm* runs a program named on the line", 0,
	  false },
	{ 0, "--e", false, "ghc -e runs code given on the line", 0, true },
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx unseen_opts_install[] = {
	/* `--strip` is its own option; `--strip-` is already this one */
	{ 0, "--strip-program", false, "install --strip-program runs a program "
	  "named on the line", 8, false },
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx unseen_opts_cargo[] = {
	{ 0, "--config", false, "cargo --config sets configuration that may "
	  "name programs to run (target.*.runner, build.rustc-wrapper)", 0,
	  false },
	LK_RUSTUP_DIR("cargo"),
	{ 0, NULL, false, NULL, 0, false },
};
/* code given on the line to programs whose rows have no interpreter
   rules (a second red team, checked in bubblewrap: dc -e "!CMD", rake
   -e, pylint --init-hook ran CMD; java -agentpath: loaded a library,
   -XX:OnOutOfMemoryError ran a command, javac -J passes JVM options) */
static const lk_optfx unseen_opts_dc[] = {
	{ 'e', "--expression", false, "dc -e runs dc code given on the line "
	  "(! runs a shell command)", 0, false },
	{ 'f', "--file", false, "dc -f runs a dc program file (! runs a shell "
	  "command)", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx unseen_opts_rake[] = {
	{ 'e', "--execute", false, "rake -e runs Ruby code given on the line",
	  0, false },
	{ 'p', "--execute-print", false, "rake -p runs Ruby code given on the "
	  "line", 0, false },
	{ 'E', "--execute-continue", false, "rake -E runs Ruby code given on "
	  "the line", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
static const lk_optfx unseen_opts_pylint[] = {
	{ 0, "--init-hook", false, "pylint --init-hook runs Python code given "
	  "on the line", 6, false },
	{ 0, NULL, false, NULL, 0, false },
};
#define LK_JVM_UNSEEN(P, PRE)                                                  \
	{ 0, PRE "-agentpath:", true, P " -agentpath: loads a native library "  \
	  "named on the line", 0, false },                                     \
	{ 0, PRE "-agentlib:", true, P " -agentlib: loads a native agent (jdwp " \
	  "opens a debugger port)", 0, false },                                \
	{ 0, PRE "-javaagent:", true, P " -javaagent: loads a Java agent", 0,   \
	  false },                                                             \
	{ 0, PRE "-XX:OnOutOfMemoryError", true, P " -XX:OnOutOfMemoryError "  \
	  "runs a command given on the line", 0, false },                      \
	{ 0, PRE "-XX:OnError", true, P " -XX:OnError runs a command given on " \
	  "the line", 0, false },                                              \
	{ 0, PRE "@", true, P " @FILE reads more options from a file", 0,      \
	  false },                                                             \
	{ 0, NULL, false, NULL, 0, false }
static const lk_optfx unseen_opts_java[] = {LK_JVM_UNSEEN("java", "")};
/* every JDK tool (and kotlinc, scalac) hands -J<flag> to its own JVM
   (checked by a red team: jar and javadoc -J-agentpath: loaded the
   library); besides java's, the flags that put other classes in the
   tool's place */
#define LK_JDK_UNSEEN(P)                                                       \
	{ 0, "-J-Xbootclasspath", true, P " -J-Xbootclasspath loads classes "   \
	  "from a path named on the line", 0, false },                         \
	{ 0, "-J--patch-module", true, P " -J--patch-module replaces the "      \
	  "tool's classes with ones named on the line", 0, false },             \
	{ 0, "-J-Djava.system.class.loader", true, P " -J-Djava.system.class"  \
	  ".loader loads a class named on the line", 0, false },               \
	LK_JVM_UNSEEN(P, "-J")
static const lk_optfx unseen_opts_javac[] = {LK_JDK_UNSEEN("javac")};
static const lk_optfx unseen_opts_jar[] = {LK_JDK_UNSEEN("jar")};
static const lk_optfx unseen_opts_javadoc[] = {LK_JDK_UNSEEN("javadoc")};
static const lk_optfx unseen_opts_jdeps[] = {LK_JDK_UNSEEN("jdeps")};
static const lk_optfx unseen_opts_kotlinc[] = {LK_JDK_UNSEEN("kotlinc")};
static const lk_optfx unseen_opts_scalac[] = {LK_JDK_UNSEEN("scalac")};
/* gpg runs the photo viewer (a shell command; default xdg-open) for
   photo IDs shown by --list-options/--verify-options show-photos or the
   old --show-photos (checked by a red team: --photo-viewer CMD ran) */
#define LK_GPG_UNSEEN(P)                                                       \
	{ 0, "--photo-viewer", false, P " --photo-viewer names a command run "  \
	  "for photo IDs", 2, false },                                         \
	{ 0, "--show-photos", false, P " --show-photos runs the photo viewer "  \
	  "(a command, xdg-open by default)", 6, false },                      \
	{ 0, NULL, false, NULL, 0, false }
/* gpg takes any unique prefix of a long option: --list-op and
   --verify-o on (--list-o is also --list-only) */
/* gpg reads a list option's value by unique prefix, ignoring case
   (parse_options; checked by a red team: show-photo and show-phot ran
   the viewer, show-p is also show-policy-urls): "show-ph~otos" is
   show-ph followed by any prefix of "otos" */
#define LK_GPG_SHOW(P, O)                                                      \
	{ O, "show-ph~otos", P " --list-options/--verify-options show-photos "   \
	  "runs the photo viewer (a command, xdg-open by default)" }
#define LK_GPG_VALUES(P)                                                       \
	LK_GPG_SHOW(P, "-list-options"), LK_GPG_SHOW(P, "-list-option"),       \
	LK_GPG_SHOW(P, "-list-optio"), LK_GPG_SHOW(P, "-list-opti"),           \
	LK_GPG_SHOW(P, "-list-opt"), LK_GPG_SHOW(P, "-list-op"),               \
	LK_GPG_SHOW(P, "-verify-options"), LK_GPG_SHOW(P, "-verify-option"),   \
	LK_GPG_SHOW(P, "-verify-optio"), LK_GPG_SHOW(P, "-verify-opti"),       \
	LK_GPG_SHOW(P, "-verify-opt"), LK_GPG_SHOW(P, "-verify-op"),           \
	LK_GPG_SHOW(P, "-verify-o"),                                           \
	{ NULL, NULL, NULL }
static const lk_optfx unseen_opts_gpg[] = {LK_GPG_UNSEEN("gpg")};
static const lk_optfx unseen_opts_gpg2[] = {LK_GPG_UNSEEN("gpg2")};
static const lk_optval value_runs_gpg[] = {LK_GPG_VALUES("gpg")};
static const lk_optval value_runs_gpg2[] = {LK_GPG_VALUES("gpg2")};
/* pytest --basetemp DIR empties DIR first (checked: --basetemp=.git
   wiped the repository) */
static const lk_optfx delete_opts_pytest[] = {
	{ 0, "--basetemp", false, "pytest --basetemp deletes the directory it "
	  "names before the run", 0, false },
	{ 0, NULL, false, NULL, 0, false },
};
/* the programs a repository's config names for git's diffs (--ext-diff:
   diff.external and diff.DRIVER.command; --textconv:
   diff.DRIVER.textconv), on any subcommand */
static const lk_optfx unseen_opts_git[] = {
	{ 0, "--exec-path", false, "git --exec-path=DIR runs the helpers (and "
	  "git itself) from DIR", 11, false },
	{ 0, "--ext-diff", false, "git --ext-diff runs the diff program the "
	  "repository's config names", 0, false },
	{ 0, "--textconv", false, "git --textconv runs the conversion programs "
	  "the repository's config names", 7, false },
	{ 0, NULL, false, NULL, 0, false },
};
/* clang-format on */

#define LK_NET(p, s)                                                           \
	{                                                                      \
		s, NULL, p " " s " reaches the network"                        \
	}
#define LK_NET_ANY(p)                                                          \
	{                                                                      \
		NULL, NULL, p " reaches the network"                           \
	}

/*
 * The subcommands a program has itself (lk_program.own_subs).  cargo
 * runs `cargo-NAME` from PATH for any other NAME, or an alias of a
 * .cargo/config.toml (cargo 1.95 `--list`; not its aliases b c d r t rm,
 * which a config's [alias] overrides: `cargo b` with b = "foo" runs
 * cargo-foo; the rustup components clippy, fmt, miri; test runners and
 * readers of the project known by name); git runs an alias of any config
 * it reads, then `git-NAME` from its exec-path or PATH (the builtins of
 * git 2.39-2.51 and the scripts Debian's git package ships; not the
 * helpers of other packages, gui, citool, p4, svn, cvs*, archimport,
 * send-email, for which a config's alias runs when they are missing;
 * lfs stays: its rows judge it; for-each-repo, remote-ext, remote-fd and
 * web--browse run what they are given: not on the list).  Checked:
 * `cargo foo` runs cargo-foo from PATH, `git xyz` git-xyz.
 */
#define LK_CARGO_SUBS                                                          \
	"|build|test|run|check|clippy|fmt|add|doc|clean|update|tree|bench|"    \
	"install|metadata|config|fetch|fix|generate-lockfile|git-checkout|"    \
	"help|info|init|locate-project|login|logout|miri|new|owner|package|"   \
	"pkgid|publish|read-manifest|remove|report|rustc|rustdoc|search|"      \
	"uninstall|vendor|verify-project|version|yank|nextest|llvm-cov|"       \
	"tarpaulin|expand|machete|"
#define LK_GIT_SUBS                                                            \
	"|status|diff|log|add|commit|push|show|checkout|branch|pull|fetch|"    \
	"rev-parse|reset|rebase|stash|remote|merge|restore|switch|config|"     \
	"clone|tag|ls-files|grep|blame|cherry-pick|init|am|annotate|apply|"    \
	"archive|backfill|bisect|bugreport|bundle|cat-file|check-attr|"        \
	"check-ignore|check-mailmap|check-ref-format|checkout--worker|"        \
	"checkout-index|cherry|clean|column|commit-graph|commit-tree|"         \
	"count-objects|credential|credential-cache|"                           \
	"credential-cache--daemon|credential-store|daemon|describe|"           \
	"diagnose|diff-files|diff-index|diff-tree|difftool|"                   \
	"difftool--helper|fast-export|fast-import|fetch-pack|filter-branch|"   \
	"fmt-merge-msg|for-each-ref|format-patch|fsck|fsck-objects|"           \
	"fsmonitor--daemon|gc|get-tar-commit-id|hash-object|help|hook|"        \
	"http-backend|http-fetch|http-push|imap-send|index-pack|init-db|"      \
	"instaweb|interpret-trailers|last-modified|lfs|ls-remote|ls-tree|"     \
	"mailinfo|mailsplit|maintenance|merge-base|merge-file|merge-index|"    \
	"merge-octopus|merge-one-file|merge-ours|merge-recursive|"             \
	"merge-recursive-ours|merge-recursive-theirs|merge-resolve|"           \
	"merge-subtree|merge-tree|mergetool|mergetool--lib|mktag|mktree|"      \
	"multi-pack-index|mv|name-rev|notes|pack-objects|pack-redundant|"      \
	"pack-refs|patch-id|prune|prune-packed|quiltimport|range-diff|"        \
	"read-tree|receive-pack|reflog|refs|remote-ftp|remote-ftps|"           \
	"remote-http|remote-https|repack|replace|replay|request-pull|"         \
	"rerere|rev-list|revert|rm|send-pack|sh-i18n|sh-i18n--envsubst|"       \
	"sh-setup|shell|shortlog|show-branch|show-index|show-ref|"             \
	"sparse-checkout|stage|stripspace|submodule|submodule--helper|"        \
	"subtree|symbolic-ref|unpack-file|unpack-objects|update-index|"        \
	"update-ref|update-server-info|upload-archive|"                        \
	"upload-archive--writer|upload-pack|var|verify-commit|verify-pack|"    \
	"verify-tag|version|whatchanged|worktree|write-tree|"
/* docker 28 runs a CLI plugin (docker-NAME in ~/.docker/cli-plugins or
   /usr/libexec/docker/cli-plugins) for any other NAME; buildx and
   compose are the ones known; `docker --config DIR` runs those of
   DIR/cli-plugins (checked, docker 28.2: `docker --config ./cfg build .`
   ran its docker-buildx): plugin_opts */
#define LK_DOCKER_SUBS                                                         \
	"|run|ps|build|exec|compose|images|logs|pull|push|stop|rm|rmi|"        \
	"inspect|image|container|network|volume|system|attach|bake|builder|"   \
	"buildx|checkpoint|commit|config|context|cp|create|diff|events|"       \
	"export|help|history|import|info|kill|load|login|logout|manifest|"     \
	"node|pause|plugin|port|rename|restart|save|search|secret|service|"    \
	"stack|start|stats|swarm|tag|top|trust|unpause|update|version|wait|"
/* dotnet runs a .NET tool (dotnet-NAME, a global or the repository's
   local tool) for any other NAME (dotnet ef, dotnet-script) */
#define LK_DOTNET_SUBS                                                         \
	"|add|build|build-server|clean|dev-certs|format|fsi|help|list|"        \
	"msbuild|new|nuget|pack|package|project|publish|reference|remove|"     \
	"restore|run|sdk|sln|solution|store|test|tool|vstest|watch|workload|"
/* brew runs an external command (brew-NAME on PATH, a tap's cmd/) for any
   other NAME */
#define LK_BREW_SUBS                                                           \
	"|analytics|autoremove|bundle|casks|cleanup|command|commands|help|"    \
	"completions|config|deps|desc|developer|docs|doctor|dr|fetch|"         \
	"formulae|home|homepage|info|abv|install|leaves|link|ln|list|ls|log|"  \
	"migrate|missing|options|outdated|pin|postinstall|reinstall|remove|"   \
	"rm|search|services|shellenv|tap|tap-info|uninstall|unlink|unpin|"     \
	"untap|up|update|upgrade|uses|--cache|--caskroom|--cellar|--env|"      \
	"--prefix|--repository|--version|"
/* cabal 3.12 runs an external command (cabal-NAME on PATH) for any other
   NAME */
#define LK_CABAL_V(s) s "|v1-" s "|v2-" s "|new-" s
#define LK_CABAL_SUBS                                                                                                                                                                                                                                                    \
	"|" LK_CABAL_V("bench") "|" LK_CABAL_V("build") "|check|" LK_CABAL_V("clean") "|" LK_CABAL_V("configure") "|" LK_CABAL_V("exec") "|fetch|" LK_CABAL_V("freeze") "|gen-bounds|get|" LK_CABAL_V("haddock") "|haddock-project|help|hscolour|info|init|" LK_CABAL_V( \
	    "install") "|list|list-bin|outdated|path|report|" LK_CABAL_V("rep"                                                                                                                                                                                           \
	                                                                 "l") "|" LK_CABAL_V("run") "|" LK_CABAL_V("sdist") "|"                                                                                                                                          \
	                                                                                                                    "target|" LK_CABAL_V("test") "|unpack|" LK_CABAL_V(                                                                                          \
	                                                                                                                        "update") "|"                                                                                                                            \
	                                                                                                                                  "upload|user-config|"

/*
 * Closed subcommand lists (lk_program.offline_subs): the forms known to
 * stay offline; with the "*" row that ends the program's net_subs, every
 * other subcommand, alias or typo reaches the network.  npm 11 (`npm help
 * CMD` lists the aliases) and pip 24 refuse a command they do not know,
 * so a word not on the list is a command that may reach the registry or
 * an error.  npm's `init` (and `innit`) and `pack` are offline only
 * without a package operand (their net_subs rows for `init NAME` come
 * first); `config` and
 * `pkg` only for the verbs that read.
 */
/* npm reads every option word (anywhere before `--`, one dash or two,
   any unique abbreviation) as a key of its config (nopt), and keys name
   programs it runs: node-options (NODE_OPTIONS of every node process a
   script starts), script-shell, shell, editor, browser, viewer, git;
   userconfig and globalconfig load more config, prefix (-C) picks
   another package's scripts (checked by a red team: `npm test
   --node-options=--import=data:...` and `--node-opt=` ran the code, on
   test, start, run-script, t, restart and stop; `npm help json
   --viewer=browser` ran xdg-open).  The options below are known inert
   (output, saving, auditing, which workspace; a boolean also as
   `--key=false`); the wrapper grammar judges exec's -c/--call. */
static const lk_optspec npm_config_opts = {
    .short_val = "wc",
    .short_flag = "sqdgDSEOPBafyvhlp",
    .longs = "silent:s?|quiet:q?|json:-?|long:l?|parseable:p?|global:g?|"
             "all:a?|save:S?|save-dev:D?|save-exact:E?|save-optional:O?|"
             "save-peer:-?|save-prod:P?|save-bundle:B?|no-save:-0|"
             "dry-run:-?|yes:y?|no:-0|audit:-?|no-audit:-0|fund:-?|"
             "no-fund:-0|force:f?|legacy-peer-deps:-?|strict-peer-deps:-?|"
             "prefer-offline:-?|prefer-online:-?|offline:-?|"
             "ignore-scripts:-?|package-lock:-?|no-package-lock:-0|"
             "package-lock-only:-?|workspaces:-?|workspace:w1|"
             "include-workspace-root:-?|if-present:-?|"
             "foreground-scripts:-?|progress:-?|no-progress:-0|color:-?|"
             "no-color:-0|unicode:-?|update-notifier:-?|"
             "no-update-notifier:-0|production:-?|omit:-1|include:-1|"
             "depth:-1|loglevel:-1|tag:-1|access:-1|otp:-1|registry:-1|"
             "before:-1|call:c1|package:-1|install-links:-?|"
             "bin-links:-?|no-bin-links:-0|usage:h?|verbose:-?|"
             "git-tag-version:-?|no-git-tag-version:-0",
};
#define NPM_OFFLINE                                                            \
	"|run|run-script|rum|urn|test|t|tst|start|stop|restart|ls|list|ll|"    \
	"la|explain|why|help|hlep|help-search|prefix|root|config get|"         \
	"config list|config ls|c get|c list|c ls|get|pkg get|query|version|"   \
	"verison|init|innit|pack|completion|"
/* not uninstall, cache purge/remove, config set/unset/edit: offline, but
   they delete or change what is installed or what later installs fetch,
   outside the workspace (a red team's finding: held, their reason says
   network) */
#define PIP_OFFLINE                                                            \
	"|list|show|freeze|check|cache dir|cache info|cache list|help|hash|"   \
	"debug|inspect|completion|config list|config get|config debug|"

/* hg 6 (its aliases from `hg help`; it also takes any unambiguous prefix
   of a command, which is not listed: `hg stat` is held): the local
   commands.  update/checkout, commit and merge work on the local
   repository (subrepositories of .hgsub may be pulled: left). */
#define HG_OFFLINE                                                             \
	"|status|st|diff|log|history|add|addremove|annotate|blame|branch|"     \
	"branches|bookmarks|bookmark|cat|commit|ci|config|showconfig|copy|cp|" \
	"files|forget|grep|heads|help|identify|id|init|locate|manifest|"       \
	"merge|move|mv|rename|paths|phase|remove|rm|resolve|revert|root|"      \
	"summary|sum|tag|tags|tip|update|up|checkout|co|verify|version|"       \
	"shelve|unshelve|export|import|graft|backout|archive|rebase|"          \
	"histedit|strip|"
/* svn 1.14: the commands that work on the working copy alone (status
   without -u, diff without -r/-c, info without -r; mkdir, move, copy and
   delete of working-copy paths: a URL operand is a commit, held by the
   "://" and "^/" rows); log, blame, list, cat, update, checkout, commit,
   switch, merge, lock, the prop* commands and every other reach the
   repository. */
#define SVN_OFFLINE                                                            \
	"|status|st|stat|add|revert|diff|di|info|cleanup|help|h|?|resolve|"    \
	"resolved|changelist|cl|patch|upgrade|mkdir|move|mv|rename|ren|"       \
	"copy|cp|delete|del|remove|rm|"

/* Subcommands that reach the network (lk_subfx: exec:network), one list a
   program, in the order they are tried. */
/* clang-format off */
static const lk_subfx net_subs_apt[] = {
	LK_NET("apt", "install"), LK_NET("apt", "update"),
	LK_NET("apt", "upgrade"), LK_NET("apt", "full-upgrade"),
	LK_NET("apt", "dist-upgrade"), LK_NET("apt", "build-dep"),
	LK_NET("apt", "satisfy"), LK_NET("apt", "source"),
	LK_NET("apt", "download"), LK_NET("apt", "reinstall"),
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_apt_get[] = {
	LK_NET("apt-get", "install"), LK_NET("apt-get", "update"),
	LK_NET("apt-get", "upgrade"), LK_NET("apt-get", "dist-upgrade"),
	LK_NET("apt-get", "source"), LK_NET("apt-get", "download"),
	LK_NET("apt-get", "build-dep"), LK_NET("apt-get", "satisfy"),
	LK_NET("apt-get", "reinstall"),
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_brew[] = {
	LK_NET("brew", "install"), LK_NET("brew", "update"),
	LK_NET("brew", "upgrade"), LK_NET("brew", "fetch"),
	LK_NET("brew", "tap"),
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_bun[] = {
	LK_NET("bun", "install"), LK_NET("bun", "i"), LK_NET("bun", "add"),
	LK_NET("bun", "publish"), LK_NET("bun", "update"),
	LK_NET("bun", "upgrade"), LK_NET("bun", "x"), LK_NET("bun", "create"),
	{ NULL, "--inspect", "bun --inspect opens a debugger port: whoever "
	  "reaches it runs code" },
	{ NULL, NULL, NULL },
};
static const lk_subfx run_subs_bun[] = {
	{ "create", NULL, "bun create downloads a template package and runs it" },
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_bunx[] = {
	LK_NET_ANY("bunx"),
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_cargo[] = {
	LK_NET("cargo", "install"), LK_NET("cargo", "fetch"),
	LK_NET("cargo", "publish"), LK_NET("cargo", "update"),
	LK_NET("cargo", "add"), LK_NET("cargo", "search"),
	LK_NET("cargo", "info"), LK_NET("cargo", "vendor"),
	LK_NET("cargo", "generate-lockfile"), LK_NET("cargo", "login"),
	LK_NET("cargo", "owner"), LK_NET("cargo", "yank"),
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_gh[] = {
	LK_NET_ANY("gh"),
	{ NULL, NULL, NULL },
};
static const lk_subfx run_subs_git[] = {
	{ "help", "-w --web", "git help --web runs a browser" },
	{ "merge-index", NULL, "git merge-index runs the program it is given "
	  "for each unmerged file" },
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_git[] = {
	{ "daemon", NULL, "git daemon serves repositories on the network" },
	{ "instaweb", NULL, "git instaweb serves the repository over HTTP and "
	  "runs a browser" },
	LK_NET("git", "push"), LK_NET("git", "pull"), LK_NET("git", "fetch"),
	LK_NET("git", "clone"), LK_NET("git", "ls-remote"),
	LK_NET("git", "submodule"), LK_NET("git", "send-email"),
	LK_NET("git", "request-pull"), LK_NET("git", "send-pack"),
	LK_NET("git", "fetch-pack"), LK_NET("git", "http-fetch"),
	LK_NET("git", "http-push"), LK_NET("git", "imap-send"),
	LK_NET("git", "svn"),
	/* the curl transports run directly (checked by a red team: `git
	   remote-https x URL` asked for URL); git-remote-https counts as
	   git remote-https */
	LK_NET("git", "remote-http"), LK_NET("git", "remote-https"),
	LK_NET("git", "remote-ftp"), LK_NET("git", "remote-ftps"),
	{ "remote", "show", "git remote show reaches the network" },
	{ "remote", "update", "git remote update reaches the network" },
	{ "remote", "prune", "git remote prune reaches the network" },
	{ "remote", "add -f --fetch",
	  "git remote add -f fetches the remote it adds" },
	{ "remote", "set-head -a --auto",
	  "git remote set-head -a asks the remote for its HEAD" },
	{ "archive", "--remote",
	  "git archive --remote reaches the network" },
	{ "maintenance", "run",
	  "git maintenance run reaches the network (its prefetch task "
	  "fetches every remote)" },
	{ "lfs", "pull", "git lfs pull reaches the network" },
	{ "lfs", "fetch", "git lfs fetch reaches the network" },
	{ "lfs", "push", "git lfs push reaches the network" },
	{ "lfs", "clone", "git lfs clone reaches the network" },
	{ "lfs", "lock", "git lfs lock reaches the network" },
	{ "lfs", "unlock", "git lfs unlock reaches the network" },
	{ "lfs", "locks", "git lfs locks reaches the network" },
	{ "lfs", "pre-push", "git lfs pre-push reaches the network" },
	{ "lfs", "smudge", "git lfs smudge reaches the network" },
	{ "lfs", "filter-process", "git lfs filter-process reaches the "
	  "network" },
	{ NULL, NULL, NULL },
};
/* media and document converters open a URL operand themselves (ffmpeg -i
   https://..., an output to tcp://, pandoc and ImageMagick inputs) */
#define LK_NET_URL(p)                                                          \
	{                                                                      \
		{NULL, "://", p " opens a URL given on the line"}, {           \
			NULL, NULL, NULL                                       \
		}                                                              \
	}
static const lk_subfx net_subs_ffmpeg[] = LK_NET_URL("ffmpeg");
static const lk_subfx net_subs_ffprobe[] = LK_NET_URL("ffprobe");
static const lk_subfx net_subs_convert[] = LK_NET_URL("convert");
static const lk_subfx net_subs_magick[] = LK_NET_URL("magick");
static const lk_subfx net_subs_pandoc[] = LK_NET_URL("pandoc");
static const lk_subfx net_subs_openssl[] = {
	LK_NET("openssl", "s_client"), LK_NET("openssl", "s_server"),
	LK_NET("openssl", "s_time"), LK_NET("openssl", "ocsp"),
	LK_NET("openssl", "cmp"),
	/* OpenSSL 3 opens an http:// input (-in, -CAfile, -CRL ...) */
	{ NULL, "://", "openssl opens a URL given on the line" },
	{ NULL, NULL, NULL },
};
/* they fetch an http:// operand (checked by a red team: xmllint did a
   GET against a local server) */
static const lk_subfx net_subs_xmllint[] = {
	{ NULL, "://", "xmllint fetches a URL given on the line" },
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_gron[] = {
	{ NULL, "://", "gron fetches a URL given on the line" },
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_playwright[] = {
	LK_NET("playwright", "install"), { NULL, NULL, NULL },
};
static const lk_subfx net_subs_zig[] = {
	LK_NET("zig", "fetch"), { NULL, NULL, NULL },
};
static const lk_subfx net_subs_buf[] = {
	LK_NET("buf", "curl"), LK_NET("buf", "push"), { NULL, NULL, NULL },
};
/* Servers an interpreter starts that others reach: the workspace served
   or code run by whoever connects (checked: `node --inspect=0.0.0.0`
   listened on every interface; `php -S HOST:PORT` is PHP's built-in web
   server, serving the folder and running its PHP). */
static const lk_subfx net_subs_node[] = {
	{ NULL, "--inspect", "node --inspect opens a debugger port: whoever "
	  "reaches it runs code" },
	{ "inspect", NULL, "node inspect runs the script under a debugger "
	  "port" },
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_venv[] = {
	/* argparse takes any unambiguous prefix (`--upgrade-`); a shorter
	   one is ambiguous with --upgrade and fails, and --upgrade itself
	   stays offline: every `--u...` is read as --upgrade-deps (the
	   over-reading holds `venv --upgrade`, which is rare) */
	{ NULL, "--u", "venv --upgrade-deps (python -m venv) "
	  "installs pip from the package index" },
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_pydoc[] = {
	{ NULL, "-p", "pydoc -p serves documentation on a network port" },
	{ NULL, "-b", "pydoc -b serves documentation and opens a browser" },
	{ NULL, "-n", "pydoc -n serves documentation on a host name" },
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_php[] = {
	{ NULL, "-S", "php -S serves the folder (and runs its PHP) on a "
	  "network port" },
	{ NULL, "--server", "php --server serves the folder (and runs its "
	  "PHP) on a network port" },
	{ NULL, NULL, NULL },
};
/* deno run/install URL fetches the code it runs (checked: deno run -A
   http://127.0.0.1:8000/x.ts) */
static const lk_subfx net_subs_deno[] = {
	{ NULL, "://", "deno fetches code from a URL given on the line" },
	{ NULL, "--inspect", "deno --inspect opens a debugger port: whoever "
	  "reaches it runs code" },
	{ "upgrade", NULL, "deno upgrade downloads a new deno" },
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_go[] = {
	LK_NET("go", "get"), LK_NET("go", "install"), LK_NET("go", "mod"),
	{ "run", "@", "go run PKG@VERSION downloads the module and runs it" },
	LK_NET("go", "work"),
	{ "list", "-versions", "go list -m -versions asks the module proxy" },
	{ "list", "-u", "go list -m -u asks the module proxy for updates" },
	{ "list", "-retracted", "go list -m -retracted asks the module proxy" },
	{ "tool", "://", "go tool pprof URL fetches a profile" },
	{ "doc", "-http", "go doc -http fetches and runs pkgsite" },
	{ "tool", "-http", "go tool pprof -http serves a web UI on a port" },
	{ "tool", "=trace", "go tool trace serves its viewer over HTTP" },
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_mkdocs[] = {
	LK_NET("mkdocs", "gh-deploy"),
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_nix[] = {
	LK_NET("nix", "run"), LK_NET("nix", "shell"), LK_NET("nix", "develop"),
	LK_NET("nix", "build"), LK_NET("nix", "profile"), LK_NET("nix", "flake"),
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_vale[] = {
	LK_NET("vale", "sync"),
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_npm[] = {
	LK_NET("npm", "i"), LK_NET("npm", "install"), LK_NET("npm", "ci"),
	LK_NET("npm", "add"), LK_NET("npm", "publish"),
	LK_NET("npm", "update"), LK_NET("npm", "exec"), LK_NET("npm", "x"),
	LK_NET("npm", "install-test"), LK_NET("npm", "it"),
	LK_NET("npm", "up"), LK_NET("npm", "create"),
	{ "init", "", "npm init NAME downloads create-NAME and runs it" },
	{ "innit", "", "npm innit NAME downloads create-NAME and runs it" },
	{ "pack", "", "npm pack NAME fetches NAME from the registry" },
	{ LK_SUB_OTHERS, NULL,
	  "npm reaches the network (a subcommand not known to stay offline)" },
	{ NULL, NULL, NULL },
};
/* go tool link/compile/asm/cgo: the toolchain's own programs called
   directly read -extld, -o, @FILE as -ldflags does (value_runs_go) */
static const lk_subfx run_subs_go[] = {
	{ "tool", "link", "go tool link runs the linker directly (-extld, "
	  "-extldflags, @FILE name programs to run)" },
	{ "tool", "compile", "go tool compile runs the compiler directly (its -o "
	  "and @FILE: files the line names)" },
	{ "tool", "asm", "go tool asm runs the assembler directly" },
	{ "tool", "cgo", "go tool cgo runs the C compiler it is given" },
	{ "tool", "-html", "go tool cover -html opens a browser (a program "
	  "the environment names)" },
	{ "tool", "-web", "go tool pprof -web opens a browser (a program the "
	  "environment names)" },
	{ NULL, NULL, NULL },
};
/* cmake -E env/time/chdir run the command after them (checked); meson
   devenv runs one in the build's environment (checked) */
static const lk_subfx run_subs_cmake[] = {
	{ "env", "-E", "cmake -E env runs the command after it, unseen" },
	{ "time", "-E", "cmake -E time runs the command after it, unseen" },
	{ "chdir", "-E", "cmake -E chdir runs the command after it, unseen" },
	/* --tidy, --lwyu, --cpplint, --iwyu, --cppcheck name programs it
	   runs (checked by a red team: --tidy='sh;-c;CMD' ran CMD) */
	{ "__run_co_compile", "-E", "cmake -E __run_co_compile runs the "
	  "tools its options name, unseen" },
	{ "tar", "-E", "cmake -E tar may extract an archive's members "
	  "anywhere, unseen" },
	{ "environment", "-E", "cmake -E environment prints the "
	  "environment (tokens among it)" },
	{ NULL, NULL, NULL },
};
/* meson wrap asks WrapDB; meson subprojects download/update fetch what
   the wraps name */
static const lk_subfx net_subs_meson[] = {
	{ "wrap", NULL, "meson wrap reaches WrapDB (install, update, search, "
	  "status)" },
	{ "subprojects", "download", "meson subprojects download fetches the "
	  "wraps' sources" },
	{ "subprojects", "update", "meson subprojects update fetches the "
	  "wraps' sources" },
	{ "subprojects", "checkout", "meson subprojects checkout may fetch the "
	  "wraps' repositories" },
	{ NULL, NULL, NULL },
};
static const lk_subfx run_subs_meson[] = {
	{ "subprojects", "=foreach", "meson subprojects foreach runs a command "
	  "given on the line in each subproject" },
	{ "devenv", NULL, "meson devenv runs a command given on the line" },
	{ NULL, NULL, NULL },
};
/* cargo rustc/rustdoc pass the words after `--` to rustc: -C linker= runs
   a program named there, -C link-arg(s) pass flags to the linker (gcc -B
   DIR, -specs=, -wrapper run programs) */
#define LK_CARGO_LOADS(SUB, TEXT)                                              \
	{ SUB, TEXT, "cargo " SUB " -- -Z " TEXT " loads a shared library "     \
	  "named on the line" }
static const lk_subfx run_subs_cargo[] = {
	{ "doc", "--open", "cargo doc --open runs a browser ($BROWSER, "
	  "xdg-open)" },
	{ "rustdoc", "--open", "cargo rustdoc --open runs a browser ($BROWSER, "
	  "xdg-open)" },
	{ "llvm-cov", "--open", "cargo llvm-cov --open runs a browser" },
	{ "rustc", "linker=", "cargo rustc -- -C linker= runs a program named "
	  "on the line" },
	{ "rustc", "link-arg", "cargo rustc -- -C link-arg passes flags to the "
	  "linker that may run programs (gcc -B, -specs, -wrapper)" },
	{ "rustc", "link_arg", "cargo rustc -- -C link_arg passes flags to the "
	  "linker that may run programs (gcc -B, -specs, -wrapper)" },
	{ "rustc", "@", "cargo rustc -- @FILE: rustc reads more options from a "
	  "file (-C linker= there runs a program)" },
	LK_CARGO_LOADS("rustc", "codegen-backend"),
	LK_CARGO_LOADS("rustc", "codegen_backend"),
	LK_CARGO_LOADS("rustc", "llvm-plugins"),
	LK_CARGO_LOADS("rustc", "llvm_plugins"),
	/* cargo clippy passes the words after `--` to clippy-driver, a
	   rustc (checked: -Clinker= ran the linker for build.rs) */
	{ "clippy", "linker=", "cargo clippy -- -C linker= runs a program named "
	  "on the line" },
	{ "clippy", "link-arg", "cargo clippy -- -C link-arg passes flags to the "
	  "linker that may run programs" },
	{ "clippy", "link_arg", "cargo clippy -- -C link_arg passes flags to the "
	  "linker that may run programs" },
	{ "clippy", "@", "cargo clippy -- @FILE: more rustc options from a file" },
	LK_CARGO_LOADS("clippy", "codegen-backend"),
	LK_CARGO_LOADS("clippy", "codegen_backend"),
	LK_CARGO_LOADS("clippy", "llvm-plugins"),
	LK_CARGO_LOADS("clippy", "llvm_plugins"),
	{ "rustdoc", "linker=", "cargo rustdoc -- -C linker= runs a program "
	  "named on the line" },
	{ "rustdoc", "link_arg", "cargo rustdoc -- -C link_arg passes flags to "
	  "the linker that may run programs (gcc -B, -specs, -wrapper)" },
	{ "rustdoc", "runtool", "cargo rustdoc -- --test-runtool runs the "
	  "doctests through a program named on the line" },
	{ "rustdoc", "link-arg", "cargo rustdoc -- -C link-arg passes flags to "
	  "the linker that may run programs (gcc -B, -specs, -wrapper)" },
	{ NULL, NULL, NULL },
};
static const lk_subfx run_subs_npm[] = {
	{ "create", NULL, "npm create downloads a package and runs it" },
	{ "init", "", "npm init NAME downloads create-NAME and runs it" },
	{ "innit", "", "npm innit NAME downloads create-NAME and runs it" },
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_npx[] = {
	LK_NET_ANY("npx"),
	{ NULL, NULL, NULL },
};
/* pip list --outdated/--uptodate asks the index for the latest versions */
static const lk_subfx net_subs_pip[] = {
	LK_NET("pip", "install"), LK_NET("pip", "download"),
	{ "list", "-o", "pip list --outdated reaches the network" },
	{ "list", "-u", "pip list --uptodate reaches the network" },
	{ LK_SUB_OTHERS, NULL,
	  "pip reaches the network (a subcommand not known to stay offline)" },
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_pip3[] = {
	LK_NET("pip3", "install"), LK_NET("pip3", "download"),
	{ "list", "-o", "pip3 list --outdated reaches the network" },
	{ "list", "-u", "pip3 list --uptodate reaches the network" },
	{ LK_SUB_OTHERS, NULL,
	  "pip3 reaches the network (a subcommand not known to stay offline)" },
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_pipx[] = {
	LK_NET("pipx", "run"), LK_NET("pipx", "install"),
	LK_NET("pipx", "upgrade"),
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_pnpm[] = {
	LK_NET("pnpm", "install"), LK_NET("pnpm", "i"), LK_NET("pnpm", "add"),
	LK_NET("pnpm", "publish"), LK_NET("pnpm", "update"),
	LK_NET("pnpm", "upgrade"), LK_NET("pnpm", "dlx"),
	LK_NET("pnpm", "create"),
	{ NULL, NULL, NULL },
};
static const lk_subfx run_subs_pnpm[] = {
	{ "create", NULL, "pnpm create downloads a package and runs it" },
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_uv[] = {
	LK_NET("uv", "pip"), LK_NET("uv", "add"), LK_NET("uv", "sync"),
	LK_NET("uv", "lock"), LK_NET("uv", "run"), LK_NET("uv", "tool"),
	LK_NET("uv", "build"), LK_NET("uv", "tree"), LK_NET("uv", "export"),
	LK_NET("uv", "remove"), LK_NET("uv", "publish"),
	{ "venv", NULL, "uv venv may download a Python (python-downloads is "
	  "automatic) and, with --seed, pip and setuptools" },
	{ "python", "install", "uv python install downloads a Python" },
	{ "python", "upgrade", "uv python upgrade downloads a Python" },
	{ "self", "update", "uv self update reaches the network" },
	{ "format", NULL, "uv format downloads ruff" },
	{ "auth", NULL, "uv auth logs in to an index" },
	{ "version", "--bump", "uv version --bump locks and syncs (it may "
	  "download)" },
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_uvx[] = {
	LK_NET_ANY("uvx"),
	{ NULL, NULL, NULL },
};
static const lk_subfx run_subs_yarn[] = {
	{ "create", NULL, "yarn create downloads a package and runs it" },
	{ NULL, NULL, NULL },
};

/* getent's hosts databases resolve a key through DNS when nsswitch says
   so (checked by a red team: `getent hosts NAME` sent a query to port
   53): the name carries data out.  With no key they list /etc/hosts. */
static const lk_subfx net_subs_getent[] = {
	{ "hosts", "", "getent hosts NAME resolves the name through DNS" },
	{ "ahosts", "", "getent ahosts NAME resolves the name through DNS" },
	{ "ahostsv4", "", "getent ahostsv4 NAME resolves the name through "
	  "DNS" },
	{ "ahostsv6", "", "getent ahostsv6 NAME resolves the name through "
	  "DNS" },
	{ "networks", "", "getent networks NAME may resolve the name through "
	  "DNS" },
	{ NULL, NULL, NULL },
};
/* gpg's keyserver and key-fetch commands are served by dirmngr over HTTP
   and HKP (checked by a red team: --fetch-keys did a GET on a loopback
   server, --recv-keys asked the keyserver); --auto-key-retrieve and
   --auto-key-locate fetch keys a --verify or an --encrypt needs, and
   so does --keyserver-options auto-key-retrieve (any unique prefix of
   the value, checked by a red team: `--verify --keyserver-options
   auto-key-retrieve` imported the signer's key); every option is read
   anywhere on the line, in any abbreviation */
#define GPG_NET_OPTS                                                           \
	"|--fetch-keys|--recv-keys|--receive-keys|--send-keys|"                \
	"--refresh-keys|--search-keys|--locate-keys|--locate-external-keys|"  \
	"--keyserver|--auto-key-retrieve|--auto-key-locate|"
/* --keyserver-options' value read by unique prefix, ignoring case (a
   is auto-key-retrieve among the keyserver options gpg tries first) */
#define GPG_KSO_NET "|--keyserver-options| a~uto-key-retrieve"
static const lk_subfx net_subs_gpg[] = {
	{ NULL, GPG_NET_OPTS, "gpg's keyserver and key-fetch commands "
	  "(--recv-keys, --fetch-keys, --send-keys, --keyserver...) reach the "
	  "network through dirmngr" },
	{ NULL, GPG_KSO_NET, "gpg --keyserver-options auto-key-retrieve "
	  "fetches the signer's key from a keyserver" },
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_gpg2[] = {
	{ NULL, GPG_NET_OPTS, "gpg2's keyserver and key-fetch commands "
	  "(--recv-keys, --fetch-keys, --send-keys, --keyserver...) reach the "
	  "network through dirmngr" },
	{ NULL, GPG_KSO_NET, "gpg2 --keyserver-options auto-key-retrieve "
	  "fetches the signer's key from a keyserver" },
	{ NULL, NULL, NULL },
};
/* valgrind --log-socket=HOST:PORT sends its log over TCP (checked by a
   red team: a loopback listener got the log); --xml-socket the same */
static const lk_subfx net_subs_valgrind[] = {
	{ NULL, "--log-socket", "valgrind --log-socket sends its log to a "
	  "network address" },
	{ NULL, "--xml-socket", "valgrind --xml-socket sends its output to a "
	  "network address" },
	{ NULL, NULL, NULL },
};
/* registry operations the docker CLI (or its buildx and compose plugins)
   does besides pull/push/login: docker manifest (checked by a red team:
   `docker manifest inspect` asked registry-1.docker.io), search, trust,
   buildx imagetools, a build that pushes its image, compose pull/push,
   the image and plugin forms of pull/push/install */
#define LK_REGISTRY_SUBS(p)                                                    \
	LK_NET(p, "pull"), LK_NET(p, "push"), LK_NET(p, "login"),              \
	    LK_NET(p, "search"), LK_NET(p, "manifest"), LK_NET(p, "trust"),    \
	    { "image", "=pull", p " image pull reaches the network" },         \
	    { "image", "=push", p " image push reaches the network" },         \
	    { "compose", "=pull", p " compose pull reaches the network" },     \
	    { "compose", "=push", p " compose push reaches the network" },     \
	    { "compose", "--push", p " compose build --push reaches the "      \
	      "network" },                                                     \
	    { "plugin", "=install", p " plugin install reaches the network" }, \
	    { "plugin", "=push", p " plugin push reaches the network" },       \
	    { "plugin", "=upgrade", p " plugin upgrade reaches the network" }
#define LK_PUSHING_BUILD(p, s)                                                 \
	{ s, "--push", p " " s " --push pushes the image to a registry" },     \
	    { s, "type=registry", p " " s " --output type=registry pushes "    \
	      "the image to a registry" },                                     \
	    { s, "push=true", p " " s " --output push=true pushes the image "  \
	      "to a registry" }
static const lk_subfx net_subs_docker[] = {
	LK_REGISTRY_SUBS("docker"),
	{ "buildx", "=imagetools", "docker buildx imagetools reaches a "
	  "registry" },
	LK_PUSHING_BUILD("docker", "buildx"),
	LK_PUSHING_BUILD("docker", "build"),
	LK_PUSHING_BUILD("docker", "bake"),
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_podman[] = {
	LK_REGISTRY_SUBS("podman"),
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_nerdctl[] = {
	LK_REGISTRY_SUBS("nerdctl"),
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_docker_compose[] = {
	LK_NET("docker-compose", "pull"), LK_NET("docker-compose", "push"),
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_podman_compose[] = {
	LK_NET("podman-compose", "pull"), LK_NET("podman-compose", "push"),
	{ NULL, NULL, NULL },
};
/* yarn runs a package script for a word it does not have (`yarn
   build`): its list stays open.  With no subcommand it installs (yarn
   1 and berry); info, outdated, audit, the npm group (berry: npm
   publish/info/login/audit), login, the upgrade forms and remove (it
   installs again) reach the registry; set version and plugin import
   download yarn or a plugin; workspaces focus installs. */
static const lk_subfx net_subs_yarn[] = {
	{ LK_SUB_NONE, NULL, "yarn with no subcommand installs the "
	  "dependencies" },
	LK_NET("yarn", "install"), LK_NET("yarn", "i"), LK_NET("yarn", "add"),
	LK_NET("yarn", "publish"), LK_NET("yarn", "update"),
	LK_NET("yarn", "upgrade"), LK_NET("yarn", "dlx"),
	LK_NET("yarn", "create"), LK_NET("yarn", "info"),
	LK_NET("yarn", "outdated"), LK_NET("yarn", "audit"),
	LK_NET("yarn", "login"), LK_NET("yarn", "logout"),
	LK_NET("yarn", "npm"), LK_NET("yarn", "up"),
	LK_NET("yarn", "upgrade-interactive"), LK_NET("yarn", "remove"),
	LK_NET("yarn", "global"), LK_NET("yarn", "owner"),
	LK_NET("yarn", "tag"), LK_NET("yarn", "team"),
	LK_NET("yarn", "import"), LK_NET("yarn", "dedupe"),
	LK_NET("yarn", "unplug"), LK_NET("yarn", "policies"),
	{ "set", "=version", "yarn set version downloads a yarn release" },
	{ "plugin", "=import", "yarn plugin import downloads a plugin" },
	{ "workspaces", "=focus", "yarn workspaces focus installs the "
	  "dependencies" },
	{ NULL, NULL, NULL },
};
/* mvn downloads what a build needs, as cargo build does (judged as the
   build); these goals download what the line names or everything at
   once, or ask the remote repositories again (deploy and release:perform:
   the platforms pack) */
#define LK_MVN_NET(p)                                                          \
	{ NULL, "dependency:get", p " dependency:get downloads the artifact "  \
	  "the line names" },                                                  \
	    { NULL, "dependency:resolve", p " dependency:resolve downloads "   \
	      "the dependencies" },                                            \
	    { NULL, "dependency:go-offline", p " dependency:go-offline "       \
	      "downloads every dependency and plugin" },                       \
	    { NULL, "dependency:copy", p " dependency:copy downloads the "     \
	      "artifact the line names" },                                     \
	    { NULL, "dependency:unpack", p " dependency:unpack downloads the " \
	      "artifact the line names" },                                     \
	    { NULL, "-Dartifact=", p " -Dartifact= downloads the artifact the "\
	      "line names" },                                                  \
	    { NULL, "=-U", p " -U asks the remote repositories again" },       \
	    { NULL, "=--update-snapshots", p " --update-snapshots asks the "   \
	      "remote repositories again" },                                   \
	    { NULL, "versions:display", p " versions:display-*-updates asks "  \
	      "the remote repositories" },                                     \
	    { NULL, "versions:use-", p " versions:use-* asks the remote "      \
	      "repositories" },                                                \
	{                                                                      \
		NULL, "release:prepare",                                       \
		    p " release:prepare pushes to the source repository"       \
	}
static const lk_subfx net_subs_mvn[] = {
	LK_MVN_NET("mvn"),
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_mvnw[] = {
	LK_MVN_NET("mvnw"),
	{ NULL, NULL, NULL },
};
/* dotnet build/run/test restore as a build does; these forms download
   what they name (nuget push/delete: the platforms pack) */
static const lk_subfx net_subs_dotnet[] = {
	LK_NET("dotnet", "restore"),
	{ "add", "=package", "dotnet add package downloads the package" },
	{ "package", "=add", "dotnet package add downloads the package" },
	{ "package", "=update", "dotnet package update downloads packages" },
	{ "package", "=search", "dotnet package search asks the feed" },
	{ "tool", "=install", "dotnet tool install downloads a tool" },
	{ "tool", "=update", "dotnet tool update downloads a tool" },
	{ "tool", "=restore", "dotnet tool restore downloads the tools" },
	{ "tool", "=search", "dotnet tool search asks the feed" },
	{ "new", "=install", "dotnet new install downloads templates" },
	{ "new", "=update", "dotnet new update downloads templates" },
	{ "new", "=search", "dotnet new search asks the feed" },
	{ "workload", "=install", "dotnet workload install downloads "
	  "workloads" },
	{ "workload", "=update", "dotnet workload update downloads workloads" },
	{ "workload", "=restore", "dotnet workload restore downloads "
	  "workloads" },
	{ "workload", "=repair", "dotnet workload repair downloads workloads" },
	{ "workload", "=search", "dotnet workload search asks the feed" },
	{ NULL, NULL, NULL },
};
/* mix: deps.get/update fetch from hex.pm or git; every hex.* task talks
   to hex.pm (hex.publish uploads); local.hex/rebar, archive.install and
   escript.install download code */
static const lk_subfx net_subs_mix[] = {
	LK_NET("mix", "deps.get"), LK_NET("mix", "deps.update"),
	LK_NET("mix", "local.hex"), LK_NET("mix", "local.rebar"),
	LK_NET("mix", "archive.install"), LK_NET("mix", "escript.install"),
	{ NULL, "hex.", "mix hex.* reaches hex.pm" },
	{ NULL, NULL, NULL },
};
#define LK_PUB_NET(p)                                                          \
	{ "pub", "=get", p " pub get downloads the dependencies" },            \
	    { "pub", "=upgrade", p " pub upgrade downloads the dependencies" },\
	    { "pub", "=downgrade", p " pub downgrade downloads the "           \
	      "dependencies" },                                                \
	    { "pub", "=add", p " pub add downloads the dependency" },          \
	    { "pub", "=outdated", p " pub outdated asks pub.dev" },            \
	    { "pub", "=publish", p " pub publish uploads the package" },       \
	    { "pub", "=global", p " pub global activate downloads a package" },\
	{                                                                      \
		"pub", "=cache", p " pub cache add/repair downloads packages"  \
	}
static const lk_subfx net_subs_flutter[] = {
	LK_PUB_NET("flutter"),
	{ "packages", NULL, "flutter packages (pub) reaches pub.dev" },
	LK_NET("flutter", "upgrade"), LK_NET("flutter", "precache"),
	{ NULL, NULL, NULL },
};
static const lk_subfx net_subs_dart[] = {
	LK_PUB_NET("dart"),
	{ NULL, NULL, NULL },
};
/* cabal build fetches what it needs, as a build does; these forms
   download the index or packages, or upload */
#define LK_CABAL_NET(s)                                                        \
	LK_NET("cabal", s), LK_NET("cabal", "v1-" s), LK_NET("cabal", "v2-" s),\
	    LK_NET("cabal", "new-" s)
static const lk_subfx net_subs_cabal[] = {
	LK_CABAL_NET("update"), LK_CABAL_NET("install"),
	LK_NET("cabal", "fetch"), LK_NET("cabal", "get"),
	LK_NET("cabal", "unpack"), LK_NET("cabal", "upload"),
	LK_NET("cabal", "report"),
	{ NULL, NULL, NULL },
};
/* gem search asks rubygems.org (remote by default since RubyGems 2);
   list/info/specification/dependency ask it with -r/--remote, -b/--both */
static const lk_subfx net_subs_gem[] = {
	LK_NET("gem", "install"), LK_NET("gem", "update"),
	LK_NET("gem", "push"), LK_NET("gem", "fetch"),
	LK_NET("gem", "search"), LK_NET("gem", "query"),
	LK_NET("gem", "outdated"), LK_NET("gem", "signin"),
	LK_NET("gem", "sources"),
	{ "list", "-r", "gem list --remote asks rubygems.org" },
	{ "list", "-b", "gem list --both asks rubygems.org" },
	{ "info", "-r", "gem info --remote asks rubygems.org" },
	{ "info", "-b", "gem info --both asks rubygems.org" },
	{ "specification", "-r", "gem specification --remote asks "
	  "rubygems.org" },
	{ "dependency", "-r", "gem dependency --remote asks rubygems.org" },
	{ NULL, NULL, NULL },
};
/* swift build fetches as a build does; these resolve or update the
   package graph, or talk to a registry */
static const lk_subfx net_subs_swift[] = {
	{ "package", "=resolve", "swift package resolve fetches the "
	  "dependencies" },
	{ "package", "=update", "swift package update fetches the "
	  "dependencies" },
	{ "package", "=fetch", "swift package fetch fetches the dependencies" },
	{ "package", "=edit", "swift package edit may fetch a dependency" },
	{ "package-registry", NULL, "swift package-registry reaches a "
	  "registry" },
	{ NULL, NULL, NULL },
};
/* sbt's commands are any words (`sbt clean publish`, `sbt +publish`):
   a word holding publish (publishLocal too: over-read), update or
   sonatype */
static const lk_subfx net_subs_sbt[] = {
	{ NULL, "publish", "sbt publish uploads artifacts" },
	{ NULL, "sonatype", "sbt sonatype* reaches Sonatype" },
	{ NULL, "update", "sbt update downloads the dependencies" },
	{ NULL, NULL, NULL },
};
/* hg and svn are closed lists (offline_subs, their defines above): every
   other command, alias or abbreviation may reach a repository (hg
   pull/push/clone/incoming/outgoing/serve/bundle; svn
   checkout/update/commit/log/blame/list/cat/switch/merge/lock...).  A
   URL (svn's ^/ too) on the line reaches it whatever the command. */
static const lk_subfx net_subs_hg[] = {
	{ NULL, "://", "hg opens a URL given on the line" },
	{ "identify", "", "hg identify SOURCE asks the repository it names" },
	{ "id", "", "hg id SOURCE asks the repository it names" },
	{ "summary", "|--remote|", "hg summary --remote asks the default "
	  "remote" },
	{ "sum", "|--remote|", "hg sum --remote asks the default remote" },
	{ LK_SUB_OTHERS, NULL,
	  "hg reaches the network (a command not known to stay offline)" },
	{ NULL, NULL, NULL },
};
#define LK_SVN_ASKS(s, o)                                                      \
	{ s, o, "svn " s " " o " asks the repository" }
static const lk_subfx net_subs_svn[] = {
	{ NULL, "://", "svn opens a URL given on the line" },
	{ NULL, "^/", "svn opens the repository (a ^/ URL)" },
	LK_SVN_ASKS("status", "-u"), LK_SVN_ASKS("st", "-u"),
	LK_SVN_ASKS("stat", "-u"), LK_SVN_ASKS("status", "--show-updates"),
	LK_SVN_ASKS("st", "--show-updates"),
	LK_SVN_ASKS("stat", "--show-updates"),
	LK_SVN_ASKS("diff", "-r"), LK_SVN_ASKS("diff", "-c"),
	LK_SVN_ASKS("di", "-r"), LK_SVN_ASKS("di", "-c"),
	LK_SVN_ASKS("info", "-r"),
	{ LK_SUB_OTHERS, NULL,
	  "svn reaches the repository (a command not known to stay "
	  "offline)" },
	{ NULL, NULL, NULL },
};

/* Subcommands that stop the machine (lk_subfx: exec:shutdown, on the
   floor); `init`/`telinit` runlevels are matched exactly. */
static const lk_subfx stop_subs_shutdown[] = {
	{ NULL, NULL, "shutdown stops the machine" },
	{ NULL, NULL, NULL },
};
static const lk_subfx stop_subs_reboot[] = {
	{ NULL, NULL, "reboot stops the machine" },
	{ NULL, NULL, NULL },
};
static const lk_subfx stop_subs_halt[] = {
	{ NULL, NULL, "halt stops the machine" },
	{ NULL, NULL, NULL },
};
static const lk_subfx stop_subs_poweroff[] = {
	{ NULL, NULL, "poweroff stops the machine" },
	{ NULL, NULL, NULL },
};
static const lk_subfx stop_subs_systemctl[] = {
	{ "poweroff", NULL, "systemctl poweroff stops the machine" },
	{ "reboot", NULL, "systemctl reboot stops the machine" },
	{ "halt", NULL, "systemctl halt stops the machine" },
	{ "kexec", NULL, "systemctl kexec stops the machine" },
	{ "soft-reboot", NULL, "systemctl soft-reboot stops the machine" },
	{ NULL, NULL, NULL },
};
static const lk_subfx stop_subs_loginctl[] = {
	{ "poweroff", NULL, "loginctl poweroff stops the machine" },
	{ "reboot", NULL, "loginctl reboot stops the machine" },
	{ NULL, NULL, NULL },
};
static const lk_subfx stop_subs_init[] = {
	{ "0", NULL, "init 0 stops the machine" },
	{ "6", NULL, "init 6 stops the machine" },
	{ NULL, NULL, NULL },
};
static const lk_subfx stop_subs_telinit[] = {
	{ "0", NULL, "telinit 0 stops the machine" },
	{ "6", NULL, "telinit 6 stops the machine" },
	{ NULL, NULL, NULL },
};
/* clang-format on */

/* util-linux setarch ARCH [options] PROG, and its per-architecture names
   (linux32, i386...) without the ARCH operand; options permute. */
static const lk_optspec opts_setarch = {
    .short_flag = "BFILRSTXZ3v",
    .longs = "addr-no-randomize:R0|fdpic-funcptrs:F0|mmap-page-zero:Z0|"
             "addr-compat-layout:L0|read-implies-exec:X0|32bit:B0|"
             "short-inode:I0|whole-seconds:S0|sticky-timeouts:T0|3gb:30|"
             "4gb:-0|uname-2.6:-0|verbose:v0|list:-0",
    .query = "hV",
    .npos = 1,
    .flags = LK_OPT_PERMUTE,
};
static const lk_optspec opts_setarch_alias = {
    .short_flag = "BFILRSTXZ3v",
    .longs = "addr-no-randomize:R0|fdpic-funcptrs:F0|mmap-page-zero:Z0|"
             "addr-compat-layout:L0|read-implies-exec:X0|32bit:B0|"
             "short-inode:I0|whole-seconds:S0|sticky-timeouts:T0|3gb:30|"
             "4gb:-0|uname-2.6:-0|verbose:v0",
    .query = "hV",
};

/* The options of read-only rows without argument rules (lk_program.read_opts,
   labels/tables.c judge_read_options): from each program's manual, the
   options that only select, format or print; left out on purpose, so
   exec:unknown: those that run a program (bat/ack/ag --pager, sdiff and
   diff3 --diff-program, man -P/-H, nm --plugin), write a file (yq -i,
   shuf -o, xmllint --output, history -w, journalctl --cursor-file), change
   the system (dmesg -C/-c/-n, ss -K, journalctl --vacuum-time,
   --rotate, dpkg
   -i/-r/-P, apt-cache -o/-c) or that the manual does not name.  A long
   name is matched whole: an abbreviation is unknown. */
/* clang-format off */
static const lk_optspec ro_operands = {
    .flags = LK_OPT_OPERANDS,
};
static const lk_optspec ro_ack = {
    .short_opt = "C",
    .short_flag = "ilLwvchHnkrRQfgoxs1",
    .short_val = "mAB",
    .longs =
        "ignore-case:i0|smart-case:-0|no-smart-case:-0|"
        "files-with-matches:l0|files-without-matches:L0|word-regexp:w0|"
        "invert-match:v0|count:c0|no-filename:h0|with-filename:H0|"
        "nocolor:-0|noheading:-0|heading:-0|nopager:-0|color:-0|"
        "literal:Q0|type:-1|ignore-dir:-1|noignore-dir:-1|"
        "ignore-file:-1|max-count:m1|column:-0|context:C?|"
        "before-context:B1|after-context:A1|sort-files:-0|follow:-0|"
        "nofollow:-0|recurse:r0|no-recurse:n0",
};
static const lk_optspec ro_ag = {
    .short_opt = "ABC",
    .short_flag = "aiswvcHlLnzQfuUtSo",
    .short_val = "Ggm",
    .longs =
        "ignore-case:i0|case-sensitive:s0|smart-case:S0|word-regexp:w0|"
        "invert-match:v0|count:c0|files-with-matches:l0|"
        "files-without-matches:L0|literal:Q0|hidden:-0|ignore:-1|"
        "ignore-dir:-1|skip-vcs-ignores:U0|unrestricted:u0|"
        "all-types:a0|all-text:t0|search-zip:z0|depth:-1|follow:f0|"
        "file-search-regex:G1|filename-pattern:g1|after:A?|before:B?|"
        "context:C?|max-count:m1|nocolor:-0|color:-0|noheading:-0|"
        "heading:-0|nobreak:-0|nogroup:-0|group:-0|column:-0|"
        "vimgrep:-0|stats:-0|only-matching:o0|numbers:-0|nonumbers:-0|"
        "filename:-0|nofilename:-0|print0:00|ackmate:-0|silent:-0",
};
static const lk_optspec ro_apt_cache = {
    .short_flag = "nfiaqg",
    .longs =
        "names-only:n0|full:f0|important:i0|all-versions:a0|"
        "no-all-versions:-0|recurse:-0|no-recommends:-0|no-suggests:-0|"
        "installed:-0|quiet:q0|generate:g0|no-generate:-0|"
        "no-pre-depends:-0|no-depends:-0|no-conflicts:-0|no-breaks:-0|"
        "no-replaces:-0|no-enhances:-0",
};
static const lk_optspec ro_arch = {
    .flags = 0,
};
static const lk_optspec ro_b2sum = {
    .short_flag = "bctwz",
    .short_val = "l",
    .longs =
        "binary:b0|check:c0|length:l1|tag:-0|text:t0|zero:z0|"
        "ignore-missing:-0|quiet:-0|status:-0|strict:-0|warn:w0",
    .flags = LK_OPT_COMPLETE,
};
static const lk_optspec ro_bat = {
    .short_flag = "AnpPuLSsfd",
    .short_val = "lHrm",
    .longs =
        "show-all:A0|plain:p0|language:l1|highlight-line:H1|"
        "file-name:-1|diff:d0|diff-context:-1|tabs:-1|wrap:-1|"
        "chop-long-lines:S0|terminal-width:-1|number:n0|color:-1|"
        "italic-text:-1|decorations:-1|force-colorization:f0|paging:-1|"
        "map-syntax:m1|ignored-suffix:-1|theme:-1|list-themes:-0|"
        "list-languages:L0|style:-1|line-range:r1|unbuffered:u0|"
        "squeeze-blank:s0|squeeze-limit:-1|strip-ansi:-1|"
        "nonprintable-notation:-1|binary:-1",
};
static const lk_optspec ro_cksum = {
    .short_flag = "czw",
    .short_val = "al",
    .longs =
        "algorithm:a1|base64:-0|check:c0|length:l1|raw:-0|tag:-0|"
        "untagged:-0|zero:z0|debug:-0|ignore-missing:-0|quiet:-0|"
        "status:-0|strict:-0|warn:w0",
};
static const lk_optspec ro_dmesg = {
    .short_flag = "TtHwWkuxLrSdePpJ",
    .short_val = "lfsF",
    .longs =
        "ctime:T0|notime:t0|human:H0|follow:w0|follow-new:W0|kernel:k0|"
        "userspace:u0|decode:x0|color:L?|raw:r0|syslog:S0|"
        "show-delta:d0|reltime:e0|nopager:P0|force-prefix:p0|json:J0|"
        "level:l1|facility:f1|buffer-size:s1|file:F1|since:-1|until:-1|"
        "time-format:-1|noescape:-0",
};
static const lk_optspec ro_dpkg = {
    .short_flag = "lLsSpcIC",
    .longs =
        "list:l0|listfiles:L0|status:s0|search:S0|print-avail:p0|"
        "contents:c0|info:I0|audit:C0|print-architecture:-0|"
        "print-foreign-architectures:-0|get-selections:-0|"
        "compare-versions:-0|validate-pkgname:-0|validate-version:-0|"
        "field:f0",
};
static const lk_optspec ro_dpkg_query = {
    .short_flag = "lWsLSpc",
    .short_val = "f",
    .longs =
        "list:l0|show:W0|status:s0|listfiles:L0|search:S0|"
        "print-avail:p0|control-path:c0|control-list:-0|"
        "control-show:-0|showformat:f1|load-avail:-0|no-pager:-0",
};
static const lk_optspec ro_egrep = {
    .short_flag = "abcEFGHhiIlLnoqRrsTUvwxyZzP",
    .short_val = "ABCdDefm",
    .longs =
        "extended-regexp:E0|fixed-strings:F0|basic-regexp:G0|"
        "perl-regexp:P0|regexp:e1|file:f1|ignore-case:i0|"
        "no-ignore-case:-0|word-regexp:w0|line-regexp:x0|null-data:z0|"
        "no-messages:s0|invert-match:v0|byte-offset:b0|line-number:n0|"
        "line-buffered:-0|with-filename:H0|no-filename:h0|label:-1|"
        "only-matching:o0|quiet:q0|silent:q0|binary-files:-1|text:a0|"
        "directories:d1|devices:D1|recursive:r0|"
        "dereference-recursive:R0|include:-1|exclude:-1|"
        "exclude-from:-1|exclude-dir:-1|files-without-match:L0|"
        "files-with-matches:l0|count:c0|initial-tab:T0|null:Z0|"
        "before-context:B1|after-context:A1|context:C1|color:-?|"
        "colour:-?|max-count:m1|no-ignore-case:-0",
};
static const lk_optspec ro_fd = {
    .runs = "xX",
    .short_flag = "HIsiglFaLpuq01h",
    .short_val = "tedEcjSoC",
    .longs =
        "hidden:H0|no-ignore:I0|no-ignore-vcs:-0|no-ignore-parent:-0|"
        "unrestricted:u0|case-sensitive:s0|ignore-case:i0|glob:g0|"
        "regex:-0|fixed-strings:F0|and:-1|absolute-path:a0|"
        "list-details:l0|follow:L0|full-path:p0|print0:00|max-depth:d1|"
        "min-depth:-1|exact-depth:-1|prune:-0|type:t1|extension:e1|"
        "exclude:E1|size:S1|changed-within:-1|changed-before:-1|"
        "owner:o1|format:-1|exec:-c|exec-batch:-c|batch-size:-1|"
        "color:c1|threads:j1|max-results:-1|quiet:q0|show-errors:-0|"
        "base-directory:-1|path-separator:-1|search-path:-1|"
        "strip-cwd-prefix:-?|one-file-system:-0|ignore-file:-1|"
        "hyperlink:-?",
};
static const lk_optspec ro_findmnt = {
    .short_flag = "AabcDefiJklmnPprRsuUvxy",
    .short_val = "dFoOStTwNQMI",
    .longs =
        "all:A0|ascii:a0|bytes:b0|canonicalize:c0|df:D0|direction:d1|"
        "evaluate:e0|first-only:f0|tab-file:F1|fstab:s0|invert:i0|"
        "json:J0|kernel:k0|list:l0|mtab:m0|noheadings:n0|notruncate:u0|"
        "options:O1|output:o1|output-all:-0|pairs:P0|poll:p?|raw:r0|"
        "source:S1|target:T1|types:t1|nofsroot:v0|timeout:w1|uniq:U0|"
        "verify:x0|verbose:-0|mountpoint:M1|submounts:R0|real:-0|"
        "pseudo:-0|shadowed:-0|id:I1|uniq-id:-1|filter:Q1",
};
static const lk_optspec ro_free = {
    .short_flag = "bkmgthlvwL",
    .short_val = "sc",
    .longs =
        "bytes:b0|kilo:-0|mega:-0|giga:-0|tera:-0|peta:-0|kibi:k0|"
        "mebi:m0|gibi:g0|tebi:-0|pebi:-0|human:h0|si:-0|lohi:l0|"
        "total:t0|committed:v0|wide:w0|line:L0|seconds:s1|count:c1",
};
static const lk_optspec ro_getconf = {
    .short_flag = "a",
    .short_val = "v",
};
static const lk_optspec ro_getent = {
    .short_flag = "i",
    .longs =
        "no-idn:i0",
};
static const lk_optspec ro_hash = {
    .short_flag = "rltd",
};
static const lk_optspec ro_iostat = {
    .short_opt = "p",
    .short_flag = "cdhHkmNstxyz",
    .short_val = "gjo",
    .longs =
        "dec:-1|human:-0|pretty:-0|compact:-0",
};
static const lk_optspec ro_journalctl = {
    .short_opt = "n",
    .short_flag = "abefklmqrxNh",
    .short_val = "uptSUDMgFcoi",
    .longs =
        "no-pager:-0|pager-end:e0|follow:f0|reverse:r0|lines:n?|"
        "since:S1|until:U1|unit:u1|user-unit:-1|priority:p1|"
        "facility:-1|identifier:t1|grep:g1|case-sensitive:-?|boot:b?|"
        "list-boots:-0|output:o1|output-fields:-1|all:a0|full:-0|"
        "no-full:-0|catalog:x0|quiet:q0|merge:m0|system:-0|user:-0|"
        "directory:D1|file:i1|machine:M1|utc:-0|no-hostname:-0|"
        "disk-usage:-0|fields:N0|field:F1|cursor:c1|after-cursor:-1|"
        "show-cursor:-0|dmesg:k0|header:-0|list-catalog:-0|"
        "dump-catalog:-0|truncate-newline:-0|verify:-0|no-tail:-0|"
        "namespace:-1",
};
static const lk_optspec ro_ldd = {
    .short_flag = "vurd",
    .longs =
        "verbose:v0|unused:u0|data-relocs:d0|function-relocs:r0",
};
static const lk_optspec ro_locale = {
    .short_flag = "amkcv",
    .longs =
        "all-locales:a0|charmaps:m0|keyword-name:k0|category-name:c0|"
        "verbose:v0",
};
static const lk_optspec ro_locate = {
    .short_flag = "icbeAwqSHN0",
    .short_val = "lnrd",
    .longs =
        "ignore-case:i0|count:c0|basename:b0|existing:e0|all:A0|"
        "wholename:w0|null:00|quiet:q0|statistics:S0|limit:l1|regex:-0|"
        "regexp:r1|database:d1|literal:N0",
};
static const lk_optspec ro_lsb_release = {
    .short_flag = "vidrcas",
    .longs =
        "version:v0|id:i0|description:d0|release:r0|codename:c0|all:a0|"
        "short:s0",
};
static const lk_optspec ro_lsblk = {
    .short_flag = "abdDfimnOpsSJlPrtTzMANv",
    .short_val = "oxeIQw",
    .longs =
        "all:a0|bytes:b0|nodeps:d0|discard:D0|fs:f0|ascii:i0|perms:m0|"
        "noheadings:n0|output-all:O0|paths:p0|inverse:s0|scsi:S0|"
        "json:J0|list:l0|pairs:P0|raw:r0|topology:t0|tree:T?|zoned:z0|"
        "merge:M0|output:o1|sort:x1|exclude:e1|include:I1|filter:Q1|"
        "width:w1|nvme:N0|virtio:v0",
};
static const lk_optspec ro_lscpu = {
    .short_flag = "abcJxyBCr",
    .short_val = "s",
    .short_opt = "ep",
    .longs =
        "all:a0|online:b0|offline:c0|json:J0|hex:x0|physical:y0|"
        "bytes:B0|caches:C?|extended:e?|parse:p?|sysroot:s1|"
        "output-all:-0|hierarchic:-?|raw:r0",
};
static const lk_optspec ro_lsof = {
    .short_opt = "giosTFL",
    .short_flag = "?abChlKnNOPRtUvVXwxMQE",
    .short_val = "cdpuk",
};
static const lk_optspec ro_lspci = {
    .short_flag = "mvntkbDPxM",
    .short_val = "sdiAp",
};
static const lk_optspec ro_lsusb = {
    .short_flag = "vt",
    .short_val = "sdD",
    .longs =
        "verbose:v0|tree:t0",
};
static const lk_optspec ro_man = {
    .short_flag = "kfawWlKtZDh7",
    .short_val = "sSMLmRE",
    .longs =
        "apropos:k0|whatis:f0|all:a0|where:w0|path:w0|location:w0|"
        "where-cat:W0|location-cat:W0|local-file:l0|global-apropos:K0|"
        "sections:S1|manpath:M1|locale:L1|systems:m1|"
        "regex:-0|wildcard:-0|names-only:-0|exact:-0|ascii:70|"
        "encoding:E1|no-subpages:-0|no-hyphenation:-0|"
        "no-justification:-0|default:D0|nh:-0|nj:-0",
};
static const lk_optspec ro_mpstat = {
    .short_flag = "AnTu",
    .short_val = "IPo",
    .longs =
        "dec:-1",
};
static const lk_optspec ro_netstat = {
    .short_opt = "I",
    .short_flag = "rigsMvWnNeplacCFtuwxLo46Z",
    .short_val = "A",
    .longs =
        "route:r0|interfaces:i0|groups:g0|statistics:s0|masquerade:M0|"
        "verbose:v0|wide:W0|numeric:n0|numeric-hosts:-0|"
        "numeric-ports:-0|numeric-users:-0|symbolic:N0|extend:e0|"
        "program:p0|timers:o0|listening:l0|all:a0|continuous:c0|tcp:t0|"
        "udp:u0|udplite:U0|raw:w0|unix:x0|inet:-0|inet6:-0",
};
static const lk_optspec ro_nm = {
    .short_flag = "AaBCDgjlnoPprSsuvVW",
    .short_val = "ft",
    .longs =
        "debug-syms:a0|demangle:C?|no-demangle:-0|dynamic:D0|"
        "defined-only:U0|extern-only:g0|line-numbers:l0|"
        "numeric-sort:n0|no-sort:p0|portability:P0|reverse-sort:r0|"
        "print-size:S0|print-armap:s0|size-sort:-0|special-syms:-0|"
        "undefined-only:u0|format:f1|radix:t1|print-file-name:A0|"
        "synthetic:-0|with-symbol-versions:-0|"
        "without-symbol-versions:-0|quiet:-0",
};
static const lk_optspec ro_nproc = {
    .longs =
        "all:-0|ignore:-1",
};
static const lk_optspec ro_objdump = {
    .short_flag = "adDfghlrRsStTwxzCFGeLVZ",
    .short_val = "jMbmEIP",
    .short_opt = "W",
    .longs =
        "archive-headers:a0|disassemble:d?|disassemble-all:D0|"
        "file-headers:f0|section-headers:h0|headers:h0|all-headers:x0|"
        "private-headers:p0|full-contents:s0|source:S0|syms:t0|"
        "dynamic-syms:T0|reloc:r0|dynamic-reloc:R0|wide:w0|demangle:C?|"
        "line-numbers:l0|section:j1|disassembler-options:M1|"
        "architecture:m1|target:b1|start-address:-1|stop-address:-1|"
        "no-show-raw-insn:-0|show-raw-insn:-0|prefix-addresses:-0|"
        "visualize-jumps:-?|disassembler-color:-1|debugging:g0|"
        "dwarf:W?|no-addresses:-0|insn-width:-1|source-comment:-?",
};
static const lk_optspec ro_pkg_config = {
    .longs =
        "cflags:-0|cflags-only-I:-0|cflags-only-other:-0|libs:-0|"
        "libs-only-l:-0|libs-only-L:-0|libs-only-other:-0|"
        "modversion:-0|exists:-0|atleast-version:-1|exact-version:-1|"
        "max-version:-1|atleast-pkgconfig-version:-1|variable:-1|"
        "print-variables:-0|print-requires:-0|"
        "print-requires-private:-0|print-provides:-0|print-errors:-0|"
        "short-errors:-0|silence-errors:-0|errors-to-stdout:-0|"
        "list-all:-0|list-package-names:-0|static:-0|uninstalled:-0|"
        "keep-system-cflags:-0|keep-system-libs:-0|debug:-0|"
        "validate:-0",
};
static const lk_optspec ro_ps = {
    .short_flag = "AaCcdefFHjlLMNrSTvVwxXyZ",
    .short_val = "CGgkOopqstUu",
    .longs =
        "sort:-1|pid:-1|ppid:-1|user:-1|User:-1|group:-1|Group:-1|"
        "sid:-1|tty:-1|forest:-0|format:-1|headers:-0|no-headers:-0|"
        "cols:-1|columns:-1|width:-1|lines:-1|rows:-1|cumulative:-0|"
        "deselect:-0|context:-0|info:-0|quick-pid:-1",
};
static const lk_optspec ro_pstree = {
    .short_flag = "aAcgGhlnpsStTuUZ",
    .short_val = "HCN",
    .longs =
        "arguments:a0|ascii:A0|compact-not:c0|color:C1|show-pgids:g0|"
        "vt100:G0|highlight-all:h0|highlight-pid:H1|long:l0|"
        "numeric-sort:n0|ns-sort:N1|show-pids:p0|show-parents:s0|"
        "ns-changes:S0|thread-names:t0|hide-threads:T0|uid-changes:u0|"
        "unicode:U0|security-context:Z0",
};
static const lk_optspec ro_readelf = {
    .short_flag = "ahlSgtesrudVAcDIWCTLnzP",
    .short_val = "xpR",
    .short_opt = "w",
    .longs =
        "all:a0|file-header:h0|program-headers:l0|segments:l0|"
        "section-headers:S0|sections:S0|section-groups:g0|"
        "section-details:t0|headers:e0|symbols:s0|syms:s0|dyn-syms:-0|"
        "lto-syms:-0|notes:n0|relocs:r0|unwind:u0|dynamic:d0|"
        "version-info:V0|arch-specific:A0|archive-index:c0|"
        "use-dynamic:D0|histogram:I0|wide:W0|demangle:C?|"
        "no-demangle:-0|hex-dump:x1|string-dump:p1|relocated-dump:R1|"
        "debug-dump:w?|sym-base:-1",
};
static const lk_optspec ro_sha224sum = {
    .short_flag = "bctwz",
    .longs =
        "binary:b0|check:c0|tag:-0|text:t0|zero:z0|ignore-missing:-0|"
        "quiet:-0|status:-0|strict:-0|warn:w0",
    .flags = LK_OPT_COMPLETE,
};
static const lk_optspec ro_shasum = {
    .short_flag = "bctU0w",
    .short_val = "a",
    .longs =
        "algorithm:a1|binary:b0|check:c0|text:t0|UNIVERSAL:U0|01:00|"
        "tag:-0|zero:z0|ignore-missing:-0|quiet:-0|status:-0|strict:-0|"
        "warn:w0",
    .flags = LK_OPT_COMPLETE,
};
static const lk_optspec ro_size = {
    .short_flag = "ABGdoxt",
    .longs =
        "format:-1|radix:-1|totals:t0|common:-0",
};
static const lk_optspec ro_ss = {
    .short_flag = "HhOnrapleoimTsZzb46twuxSdM0E",
    .short_val = "fA",
    .longs =
        "no-header:H0|oneline:O0|numeric:n0|resolve:r0|all:a0|"
        "listening:l0|options:o0|extended:e0|memory:m0|info:i0|"
        "processes:p0|threads:T0|summary:s0|context:Z0|contexts:z0|"
        "bpf:b0|cgroup:-0|tos:-0|tipcinfo:-0|ipv4:40|ipv6:60|tcp:t0|"
        "udp:u0|raw:w0|unix:x0|packet:00|dccp:d0|sctp:S0|vsock:-0|"
        "xdp:-0|mptcp:M0|inet-sockopt:-0|family:f1|query:A1|socket:A1|"
        "events:E0",
};
static const lk_optspec ro_sum = {
    .short_flag = "rs",
    .longs =
        "sysv:s0",
    .flags = LK_OPT_COMPLETE,
};
static const lk_optspec ro_top = {
    .short_opt = "w",
    .short_flag = "bcHiSs1O",
    .short_val = "dnpuUoeE",
    .longs =
        "batch-mode:b0|iterations:n1|delay:d1|pid:p1|user:u1|"
        "sort-override:o1|width:w1|accum-time-toggle:S0|"
        "cmdline-toggle:c0|threads-show:H0|idle-toggle:i0|"
        "single-cpu-toggle:10|scale-summary-mem:E1|scale-task-mem:e1|"
        "filter-any-user:U1",
};
static const lk_optspec ro_tput = {
    .short_flag = "Sx",
    .short_val = "T",
};
static const lk_optspec ro_tty = {
    .short_flag = "s",
    .longs =
        "silent:s0|quiet:s0",
};
static const lk_optspec ro_uptime = {
    .short_flag = "ps",
    .longs =
        "pretty:p0|since:s0|container:c0|raw:r0",
};
static const lk_optspec ro_vmstat = {
    .short_flag = "afmnsdDtwyT",
    .short_val = "Sp",
    .longs =
        "active:a0|forks:f0|slabs:m0|one-header:n0|stats:s0|disk:d0|"
        "disk-sum:D0|partition:p1|unit:S1|timestamp:t0|wide:w0|"
        "no-first:y0",
};
static const lk_optspec ro_w = {
    .short_flag = "hiusfopn",
    .longs =
        "no-header:h0|ip-addr:i0|no-current:u0|short:s0|from:f0|"
        "old-style:o0|pids:p0|no-truncat:n0",
};
static const lk_optspec ro_who = {
    .short_flag = "abdHlmpqrstuTw",
    .longs =
        "all:a0|boot:b0|dead:d0|heading:H0|login:l0|lookup:-0|mesg:T0|"
        "message:T0|writable:T0|process:p0|count:q0|runlevel:r0|"
        "short:s0|time:t0|users:u0|ips:-0",
};
static const lk_optspec ro_yq = {
    .short_flag = "rePjMCnNv",
    .short_val = "oIpf",
    .longs =
        "output-format:o1|input-format:p1|indent:I1|null-input:n0|"
        "exit-status:e0|unwrapScalar:r?|prettyPrint:P0|no-colors:M0|"
        "colors:C0|no-doc:N0|expression:-1|from-file:-1|"
        "verbose:v0|header-preprocess:-?|front-matter:f1|raw-output:r0|"
        "compact-output:-0",
};
static const lk_optspec ro_last = {
    .short_flag = "adFiwxRT",
    .short_val = "nfstp",
    .longs =
        "hostlast:a0|dns:d0|fulltimes:F0|ip:i0|fullnames:w0|system:x0|"
        "nohostname:R0|limit:n1|file:f1|since:s1|until:t1|present:p1|"
        "time-format:-1|tab-separated:T0",
};
static const lk_optspec ro_lastlog = {
    .short_val = "ubt",
    .longs = "user:u1|before:b1|time:t1",
};
/* clang-format on */

/* clang-format off */
static const lk_program programs[] = {

    /* ---- shells: -c SCRIPT, a script file, or their program on stdin ---- */
    {.name = "sh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "bash", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "dash", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "zsh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "ksh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "ash", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "mksh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "lksh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "pdksh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "oksh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "loksh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "yash", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "posh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "fish", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "csh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "tcsh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "bsd-csh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "rbash", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "rksh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "elvish", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "xonsh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "nu", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "osh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "ysh", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "rc", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "es", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},
    {.name = "sash", .cls = LK_SHELL, .names = LK_VERSIONED | LK_BUILDS},

    /* ---- interpreters and their inline-code options ---- */
    {.name = "python",
     .cls = LK_INTERP,
     .names = LK_VERSIONED | LK_BUILDS,
     .interp = INTERP_M(LK_LANG_PY, "c", "", "WXQ", "|check-hash-based-pycs|",
                        "", "m", "", LK_I_STDIN | LK_I_CODE_ENDS, "Vh",
                        python_modules)},
    {.name = "pypy",
     .cls = LK_INTERP,
     .names = LK_VERSIONED,
     .interp = INTERP_M(LK_LANG_PY, "c", "", "WXQ", "", "", "m", "",
                        LK_I_STDIN | LK_I_CODE_ENDS, "Vh", python_modules)},
    {.name = "perl",
     .cls = LK_INTERP,
     .names = LK_VERSIONED,
     .interp = INTERP_CLUSTER("l:#|0:#|C:#IOEioSADLa|d:t=|i:*|D:*",
                              LK_LANG_PERL, "eE", "", "I", "", "mMxV", "",
                              "",
                              LK_I_STDIN | LK_I_USE_TEXT, "vVh")},
    {.name = "ruby",
     .cls = LK_INTERP,
     .names = LK_VERSIONED,
     .interp = INTERP_CLUSTER("0:#|T:#|W:#=|K:1esunESUN", LK_LANG_RUBY, "e",
                              "", "ICrEX",
                              "|enable|disable|encoding|external-encoding|"
                              "internal-encoding|dump|backtrace-limit|",
                              "xF", "", "", LK_I_STDIN, "vh")},
    {.name = "node",
     .cls = LK_INTERP, .net_subs = net_subs_node,
     .names = LK_VERSIONED,
     .interp = INTERP(LK_LANG_JS, "ep", "|eval|print|", "rC",
                      "|require|import|loader|experimental-loader|input-type|"
                      "title|conditions|disable-warning|env-file|"
                      "env-file-if-exists|unhandled-rejections|"
                      "dns-result-order|report-filename|report-dir|"
                      "report-directory|diagnostic-dir|"
                      "experimental-default-type|secure-heap|"
                      "secure-heap-min|inspect-port|debug-port|"
                      "test-reporter|test-reporter-destination|"
                      "test-name-pattern|test-skip-pattern|openssl-config|"
                      "heapsnapshot-signal|disable-proto|icu-data-dir|"
                      "redirect-warnings|trace-event-categories|"
                      "trace-event-file-pattern|watch-path|"
                      "stack-trace-limit|max-http-header-size|"
                      "cpu-prof-dir|heap-prof-dir|cpu-prof-name|"
                      "heap-prof-name|experimental-config-file|"
                      "localstorage-file|run|",
                      "", "c", "", LK_I_STDIN, "vh")},
    {.name = "bun", .checks = "|test|run test|run lint|run typecheck|", .net_subs = net_subs_bun, .run_subs = run_subs_bun,
     .cls = LK_INTERP | LK_SUBCOMMANDS | LK_WRAPPER,
     .interp = INTERP(LK_LANG_JS, "ep", "|eval|print|", "rdl",
                      "|preload|cwd|env-file|define|loader|config|",
                      "", "", "", 0, NULL),
     .opts =
         OPTS(.sub = "|x|", .longs = "bun:-0|silent:-0|verbose:-0|package:-1")},
    {.name = "deno",
     .cls = LK_INTERP, .net_subs = net_subs_deno,
     .interp = INTERP(LK_LANG_JS, "", "", "", "", "", "", "", LK_I_EVAL_SUB, NULL)},
    {.name = "php",
     .cls = LK_INTERP, .net_subs = net_subs_php,
     .names = LK_VERSIONED,
     .interp = INTERP(LK_LANG_PHP, "rBRE",
                      "|run|process-begin|process-code|process-end|",
                      "dcztSA",
                      "|php-ini|define|docroot|server|zend-extension|rf|rc|"
                      "re|rz|ri|",
                      "", "", "fF", LK_I_STDIN, "vhmi")},
    {.name = "lua",
     .cls = LK_INTERP,
     .names = LK_VERSIONED,
     .interp = INTERP(LK_LANG_LUA, "e", "", "l", "", "", "", "", LK_I_STDIN,
                      "v")},
    {.name = "luajit",
     .cls = LK_INTERP,
     .names = LK_VERSIONED,
     .interp = INTERP(LK_LANG_LUA, "e", "", "lj", "", "", "", "", LK_I_STDIN,
                      "v")},
    {.name = "osascript",
     .cls = LK_INTERP,
     .interp = INTERP(LK_LANG_OSA, "e", "", "ls", "", "", "", "", LK_I_STDIN, NULL)},
    {.name = "Rscript",
     .cls = LK_INTERP,
     .interp = INTERP(LK_LANG_OTHER, "e", "", "", "", "", "", "", 0, NULL)},
    {.name = "tclsh",
     .cls = LK_INTERP,
     .names = LK_VERSIONED,
     .interp = INTERP(LK_LANG_TCL, "", "", "", "", "", "", "", LK_I_STDIN, NULL)},
    {.name = "wish",
     .cls = LK_INTERP,
     .names = LK_VERSIONED,
     .interp = INTERP(LK_LANG_TCL, "", "", "", "", "", "", "", LK_I_STDIN, NULL)},
    {.name = "expect",
     .cls = LK_INTERP,
     .interp = INTERP(LK_LANG_TCL, "c", "", "D", "", "", "", "fb", LK_I_STDIN,
                      "v")},
    {.name = "raku",
     .cls = LK_INTERP,
     .interp = INTERP(LK_LANG_OTHER, "e", "", "IM", "", "", "", "", LK_I_STDIN, NULL)},
    {.name = "perl6",
     .cls = LK_INTERP,
     .interp = INTERP(LK_LANG_OTHER, "e", "", "IM", "", "", "", "", LK_I_STDIN, NULL)},
    {.name = "julia",
     .cls = LK_INTERP,
     .names = LK_VERSIONED,
     .interp = INTERP(LK_LANG_OTHER, "eE", "|eval|print|", "HJCpt",
                      "|project|color|procs|threads|sysimage|cpu-target|"
                      "home|optimize|depwarn|startup-file|history-file|"
                      "compile|banner|",
                      "", "", "L", LK_I_STDIN, "vh")},
    {.name = "R",
     .cls = LK_INTERP,
     .interp = INTERP(LK_LANG_OTHER, "e", "", "", "", "", "", "f", LK_I_STDIN, NULL)},
    {.name = "pwsh",
     .cls = LK_INTERP,
     .interp = INTERP(LK_LANG_OTHER, "c", "|command|", "", "", "", "", "f",
                      LK_I_STDIN, NULL)},
    {.name = "guile",
     .cls = LK_INTERP,
     .names = LK_VERSIONED,
     .interp =
         INTERP(LK_LANG_OTHER, "ce", "", "lLCx", "", "", "", "s", LK_I_STDIN, NULL)},
    {.name = "gnuplot",
     .cls = LK_INTERP,
     .interp = INTERP(LK_LANG_OTHER, "e", "", "", "", "", "", "", LK_I_STDIN, NULL)},
    {.name = "m4",
     .cls = LK_INTERP,
     .interp =
         INTERP(LK_LANG_OTHER, "", "", "DUItLlFRBSTo", "", "d", "", "", LK_I_STDIN, NULL)},
    {.name = "qjs",
     .cls = LK_INTERP,
     .interp =
         INTERP(LK_LANG_JS, "e", "|eval|", "I",
                "|memory-limit|stack-size|include|", "", "", "", LK_I_STDIN,
                NULL)},
    {.name = "ts-node",
     .cls = LK_INTERP,
     .interp = INTERP(LK_LANG_JS, "ep", "|eval|print|", "rPOCDI",
                      "|require|project|compiler-options|compiler|"
                      "ignore-diagnostics|ignore|dir|scope-dir|",
                      "", "", "", LK_I_STDIN, NULL)},
    {.name = "tsx",
     .cls = LK_INTERP,
     .interp = INTERP(LK_LANG_JS, "ep", "|eval|print|", "r",
                      "|require|import|tsconfig|disable-warning|env-file|"
                      "conditions|",
                      "", "", "", LK_I_STDIN, NULL)},

    /* ---- awks: the program operand may run its input ---- */
    {.name = "awk",
     .cls = LK_AWK,
     .interp = INTERP(LK_LANG_AWK, "e", "|source|", "FvilW",
                      "|field-separator|assign|include|load|", "odpDL", "",
                      "fE", LK_I_OPERAND, NULL)},
    {.name = "gawk",
     .cls = LK_AWK,
     .interp = INTERP(LK_LANG_AWK, "e", "|source|", "FvilW",
                      "|field-separator|assign|include|load|", "odpDL", "",
                      "fE", LK_I_OPERAND, NULL)},
    {.name = "mawk",
     .cls = LK_AWK,
     .interp =
         INTERP(LK_LANG_AWK, "", "", "FvW", "", "", "", "f", LK_I_OPERAND, NULL)},
    {.name = "nawk",
     .cls = LK_AWK,
     .interp =
         INTERP(LK_LANG_AWK, "", "", "Fv", "", "", "", "f", LK_I_OPERAND, NULL)},
    {.name = "original-awk",
     .cls = LK_AWK,
     .interp =
         INTERP(LK_LANG_AWK, "", "", "Fv", "", "", "", "f", LK_I_OPERAND, NULL)},
    {.name = "busybox-awk",
     .cls = LK_AWK,
     .interp =
         INTERP(LK_LANG_AWK, "e", "", "Fv", "", "", "", "f", LK_I_OPERAND, NULL)},
    {.name = "goawk",
     .cls = LK_AWK,
     .interp =
         INTERP(LK_LANG_AWK, "", "", "Fv", "", "", "", "f", LK_I_OPERAND, NULL)},

    /* ---- builtins that run a string or a file ---- */
    {.name = "eval", .cls = LK_EVAL},
    {.name = "source", .cls = LK_SOURCE},
    {.name = ".", .cls = LK_SOURCE},

    /* ---- downloaders and how they name what they save ---- */
    {.name = "curl",
     .cls = LK_DOWNLOADER | LK_NETWORK,
     .net = "curl reaches the network",
     .fetch = &fetch_curl},
    {.name = "curlie",
     .cls = LK_DOWNLOADER | LK_NETWORK,
     .net = "curlie reaches the network",
     .fetch = &fetch_curl},
    {.name = "wget",
     .cls = LK_DOWNLOADER | LK_NETWORK,
     .net = "wget reaches the network",
     .fetch = &fetch_wget},
    {.name = "wget2",
     .cls = LK_DOWNLOADER | LK_NETWORK,
     .net = "wget2 reaches the network",
     .fetch = &fetch_wget},
    {.name = "fetch",
     .cls = LK_DOWNLOADER | LK_NETWORK,
     .net = "fetch reaches the network",
     .fetch = &fetch_saves_o},
    {.name = "aria2c",
     .cls = LK_DOWNLOADER | LK_NETWORK,
     .net = "aria2c reaches the network",
     .fetch = &fetch_aria2c},
    {.name = "axel",
     .cls = LK_DOWNLOADER | LK_NETWORK,
     .net = "axel reaches the network",
     .fetch = &fetch_saves_o},
    {.name = "http",
     .cls = LK_DOWNLOADER | LK_NETWORK,
     .net = "http reaches the network",
     .fetch = &fetch_httpie},
    {.name = "https",
     .cls = LK_DOWNLOADER | LK_NETWORK,
     .net = "https reaches the network",
     .fetch = &fetch_httpie},
    {.name = "xh",
     .cls = LK_DOWNLOADER | LK_NETWORK,
     .net = "xh reaches the network",
     .fetch = &fetch_httpie},
    {.name = "xhs",
     .cls = LK_DOWNLOADER | LK_NETWORK,
     .net = "xhs reaches the network",
     .fetch = &fetch_httpie},
    {.name = "lwp-download",
     .cls = LK_DOWNLOADER | LK_NETWORK,
     .net = "lwp-download reaches the network",
     .fetch = &fetch_saves},

    /* ---- other network programs ---- */
    {.name = "ssh",
     .cls = LK_NETWORK | LK_SEES,
     .net = "ssh reaches the network",
     .opts = OPTS(.short_val = "BbcDEeFIiJLlmOoPpQRSWw",
                  .short_flag = "46AaCfGgKkMNnqsTtVvXxYy", .query = "GVQ",
                  .nocmd = "NsOW", .npos = 1, .flags = LK_OPT_PERMUTE)},
    {.name = "scp", .cls = LK_NETWORK, .net = "scp reaches the network"},
    {.name = "sftp", .cls = LK_NETWORK, .net = "sftp reaches the network"},
    {.name = "rsync", .cls = LK_NETWORK, .net = "rsync reaches the network",
     .delete_opts = delete_opts_rsync,
     .patterns = "|--exclude|--include|--exclude-from|--include-from|--filter|-f|"},
    {.name = "nc", .cls = LK_NETWORK, .net = "nc reaches the network"},
    {.name = "ncat", .cls = LK_NETWORK, .net = "ncat reaches the network"},
    {.name = "netcat", .cls = LK_NETWORK, .net = "netcat reaches the network"},
    {.name = "socat", .cls = LK_NETWORK, .net = "socat reaches the network"},
    {.name = "telnet", .cls = LK_NETWORK, .net = "telnet reaches the network"},
    {.name = "ftp", .cls = LK_NETWORK, .net = "ftp reaches the network"},
    {.name = "mosh", .cls = LK_NETWORK, .net = "mosh reaches the network"},
    {.name = "nc.openbsd",
     .cls = LK_NETWORK,
     .net = "nc.openbsd reaches the network"},
    {.name = "nc.traditional",
     .cls = LK_NETWORK,
     .net = "nc.traditional reaches the network"},
    {.name = "lftp", .cls = LK_NETWORK, .net = "lftp reaches the network"},
    {.name = "tftp", .cls = LK_NETWORK, .net = "tftp reaches the network"},
    {.name = "autossh",
     .cls = LK_NETWORK,
     .net = "autossh reaches the network"},
    {.name = "rclone", .fx = LK_FX_SERVICE, .cls = LK_NETWORK, .net = "rclone reaches the network"},
    {.name = "sshfs", .cls = LK_NETWORK, .net = "sshfs reaches the network"},

    /* ---- decoders: the output is a transform of the input ---- */
    {.name = "base64", .cls = LK_DECODER},
    {.name = "base32", .cls = LK_DECODER},
    {.name = "basenc", .cls = LK_DECODER},
    {.name = "xxd", .cls = LK_DECODER, .writes_tail = true},
    {.name = "openssl", .cls = LK_DECODER, .net_subs = net_subs_openssl,
     .unseen_opts = unseen_opts_openssl},
    {.name = "tr", .cls = LK_DECODER},
    {.name = "rev", .cls = LK_DECODER},
    {.name = "gunzip", .cls = LK_DECODER},
    {.name = "zcat", .cls = LK_DECODER},
    {.name = "gzip", .cls = LK_DECODER},
    {.name = "bzip2", .cls = LK_DECODER},
    {.name = "bzcat", .cls = LK_DECODER},
    {.name = "bunzip2", .cls = LK_DECODER},
    {.name = "xz", .cls = LK_DECODER},
    {.name = "xzcat", .cls = LK_DECODER},
    {.name = "unxz", .cls = LK_DECODER},
    {.name = "zstd", .cls = LK_DECODER, .delete_opts = delete_opts_zstd},
    {.name = "zstdcat", .cls = LK_DECODER},
    {.name = "unzstd", .cls = LK_DECODER},
    {.name = "uudecode", .cls = LK_DECODER},
    {.name = "iconv", .cls = LK_DECODER},
    {.name = "od", .cls = LK_DECODER},
    {.name = "lz4", .cls = LK_DECODER, .delete_opts = delete_opts_lz4},
    {.name = "lzcat", .cls = LK_DECODER},
    {.name = "brotli", .cls = LK_DECODER},
    {.name = "gpg", .net_subs = net_subs_gpg, .fx = LK_FX_SECRETS, .cls = LK_DECODER, .unseen_opts = unseen_opts_gpg, .value_runs = value_runs_gpg, .pack = LK_PACK_SECRETS},
    {.name = "age", .cls = LK_DECODER},
    {.name = "lzma", .cls = LK_DECODER},
    {.name = "unlzma", .cls = LK_DECODER},
    {.name = "compress", .cls = LK_DECODER},
    {.name = "uncompress", .cls = LK_DECODER},
    {.name = "rot13", .cls = LK_DECODER},
    {.name = "recode", .cls = LK_DECODER},
    {.name = "ccrypt", .cls = LK_DECODER},
    {.name = "sed", .cls = LK_DECODER},

    /* ---- programs whose first operand picks what they do ---- */
    {.name = "systemctl", .stop_subs = stop_subs_systemctl, .fx = LK_FX_SYSTEM, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_SYSTEM},
    /* subcommand runners: the rest of argv after their options */
    {.name = "npm", .checks = "|test|run test|run lint|run typecheck|", .net_subs = net_subs_npm, .fx = LK_FX_PACKAGES,
     .offline_subs = NPM_OFFLINE, .run_subs = run_subs_npm,
     .config_opts = &npm_config_opts,
     .cls = LK_SUBCOMMANDS | LK_WRAPPER,
     .opts = OPTS(.sub = "|exec|x|", .short_val = "cwC", .short_flag = "ysgd",
                  .longs = "package:-1|call:c1|workspace:w1|workspaces:-0|"
                           "include-workspace-root:-0|yes:y0|no:-0|"
                           "prefix:C1|silent:s0|global:g0|loglevel:-1|"
                           "if-present:-0|json:-0",
                  .script = "c"), .pack = LK_PACK_PLATFORMS},
    {.name = "pnpm", .checks = "|test|run test|run lint|run typecheck|", .net_subs = net_subs_pnpm, .run_subs = run_subs_pnpm, .fx = LK_FX_PACKAGES,
     .cls = LK_SUBCOMMANDS | LK_WRAPPER,
     .opts = OPTS(.sub = "|exec|dlx|", .short_val = "cF",
                  .longs = "recursive:r0|parallel:-0|package:-1|shell-mode:c0|"
                           "filter:F1|silent:s0|no-bail:-0",
                  .short_flag = "rs"), .pack = LK_PACK_PLATFORMS},
    {.name = "yarn", .checks = "|test|run test|run lint|run typecheck|", .net_subs = net_subs_yarn, .run_subs = run_subs_yarn, .fx = LK_FX_PACKAGES,
     .query = "|--help|-h|--version|-v|",
     .cls = LK_SUBCOMMANDS | LK_WRAPPER,
     /* yarn 1's global options too: read before a subcommand, they
        tell `yarn --cwd web` (installs) from `yarn -s build` */
     .opts = OPTS(.sub = "|exec|dlx|", .short_val = "p", .short_flag = "qs",
                  .longs = "package:p1|quiet:q0|cwd:-1|silent:s0|verbose:-0|"
                           "offline:-0|prefer-offline:-0|frozen-lockfile:-0|"
                           "pure-lockfile:-0|immutable:-0|production:-0|"
                           "no-lockfile:-0|ignore-scripts:-0|"
                           "ignore-engines:-0|non-interactive:-0|json:-0|"
                           "no-progress:-0|network-timeout:-1|mutex:-1|"
                           "cache-folder:-1|modules-folder:-1|registry:-1|"
                           "check-files:-0|force:-0|use-yarnrc:-1"),
     .pack = LK_PACK_PLATFORMS},
    /* docker run IMAGE CMD / docker exec CONTAINER CMD */
    {.name = "docker", .own_subs = LK_DOCKER_SUBS, .plugin_opts = "|--config|",
     .global_opts = OPTS(.short_val = "Hcl", .short_flag = "Dv",
                  .longs = "host:H1|context:c1|config:-1|log-level:l1|"
                           "tlscacert:-1|tlscert:-1|tlskey:-1|tls:-0|"
                           "tlsverify:-0|debug:D0"),
     .net_subs = net_subs_docker, .fx = LK_FX_CONTAINERS,
     .cls = LK_SUBCOMMANDS | LK_WRAPPER,
     .opts =
         OPTS(.sub = "|run|exec|", .short_val = "acehlmpuvwe",
              .short_flag = "diPqt",
              .longs = "rm:-0|detach:d0|interactive:i0|tty:t0|privileged:-0|"
                       "init:-0|read-only:-0|publish-all:P0|quiet:q0|"
                       "no-healthcheck:-0|oom-kill-disable:-0|sig-proxy:-?|"
                       "attach:a1|cpu-shares:c1|env:e1|env-file:-1|hostname:h1|"
                       "label:l1|memory:m1|publish:p1|user:u1|volume:v1|"
                       "workdir:w1|name:-1|network:-1|net:-1|entrypoint:-1|"
                       "mount:-1|platform:-1|pull:-1|cpus:-1|gpus:-1|"
                       "add-host:-1|cap-add:-1|cap-drop:-1|device:-1|dns:-1|"
                       "ipc:-1|pid:-1|restart:-1|runtime:-1|security-opt:-1|"
                       "shm-size:-1|stop-signal:-1|tmpfs:-1|ulimit:-1|"
                       "userns:-1|uts:-1|volumes-from:-1|expose:-1|"
                       "health-cmd:-1|log-driver:-1|log-opt:-1|cidfile:-1|"
                       "group-add:-1|memory-swap:-1|detach-keys:-1|"
                       "privileged:-0|network-alias:-1|label-file:-1",
              .npos = 1), .pack = LK_PACK_CONTAINERS},
    {.name = "podman", .net_subs = net_subs_podman, .fx = LK_FX_CONTAINERS,
     .cls = LK_SUBCOMMANDS | LK_WRAPPER,
     .opts =
         OPTS(.sub = "|run|exec|", .short_val = "acehlmpuvwe",
              .short_flag = "diPqt",
              .longs = "rm:-0|detach:d0|interactive:i0|tty:t0|privileged:-0|"
                       "init:-0|read-only:-0|publish-all:P0|quiet:q0|"
                       "attach:a1|env:e1|env-file:-1|hostname:h1|label:l1|"
                       "memory:m1|publish:p1|user:u1|volume:v1|workdir:w1|"
                       "name:-1|network:-1|net:-1|entrypoint:-1|mount:-1|"
                       "platform:-1|pull:-1|cap-add:-1|cap-drop:-1|device:-1|"
                       "security-opt:-1|userns:-1|pod:-1",
              .npos = 1), .pack = LK_PACK_CONTAINERS},
    /* kubectl exec POD [-c C] -- CMD */
    {.name = "kubectl", .fx = LK_FX_SERVICE,
     .cls = LK_SUBCOMMANDS | LK_WRAPPER,
     .opts =
         OPTS(.sub = "|exec|", .short_val = "cnf", .short_flag = "itq",
              .longs = "container:c1|namespace:n1|filename:f1|stdin:i0|tty:t0|"
                       "quiet:q0|pod-running-timeout:-1|context:-1|"
                       "kubeconfig:-1",
              .npos = 1, .flags = LK_OPT_PERMUTE), .pack = LK_PACK_KUBERNETES},
    {.name = "apt", .net_subs = net_subs_apt, .fx = LK_FX_PACKAGES, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_SYSTEM},
    {.name = "apt-get", .net_subs = net_subs_apt_get, .fx = LK_FX_PACKAGES, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_SYSTEM},
    {.name = "pip", .net_subs = net_subs_pip, .offline_subs = PIP_OFFLINE, .fx = LK_FX_PACKAGES, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_SECRETS},
    {.name = "pip3", .net_subs = net_subs_pip3, .offline_subs = PIP_OFFLINE, .fx = LK_FX_PACKAGES, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_SECRETS},
    {.name = "cargo", .own_subs = LK_CARGO_SUBS,
     .global_opts = OPTS(.short_val = "CZ", .short_flag = "vqV",
                  .longs = "color:-1|config:-1|verbose:v0|quiet:q0|"
                           "frozen:-0|locked:-0|offline:-0|list:-0|"
                           "explain:-1|version:V0"),
     .unseen_opts = unseen_opts_cargo, .run_subs = run_subs_cargo, .checks = "|test|check|clippy|", .net_subs = net_subs_cargo, .fx = LK_FX_BUILD, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_PLATFORMS},
    {.name = "go", .unseen_opts = unseen_opts_go, .value_runs = value_runs_go, .run_subs = run_subs_go, .checks = "|test|vet|", .net_subs = net_subs_go, .fx = LK_FX_BUILD, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_PERSISTENCE},
    {.name = "gh", .net_subs = net_subs_gh, .fx = LK_FX_SERVICE, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_PLATFORMS},
    {.name = "brew", .own_subs = LK_BREW_SUBS, .net_subs = net_subs_brew, .fx = LK_FX_PACKAGES, .cls = LK_SUBCOMMANDS | LK_NAMES_DATA},
    {.name = "dnf", .fx = LK_FX_PACKAGES, .cls = LK_SUBCOMMANDS | LK_NAMES_DATA},
    {.name = "yum", .fx = LK_FX_PACKAGES, .cls = LK_SUBCOMMANDS | LK_NAMES_DATA},
    {.name = "snap", .fx = LK_FX_PACKAGES, .cls = LK_SUBCOMMANDS | LK_NAMES_DATA},
    {.name = "helm", .fx = LK_FX_SERVICE, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_KUBERNETES},
    {.name = "terraform", .fx = LK_FX_SERVICE, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_INFRASTRUCTURE},
    {.name = "tofu", .fx = LK_FX_SERVICE, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_INFRASTRUCTURE},
    {.name = "aws", .fx = LK_FX_SERVICE, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_CLOUD},
    {.name = "gcloud", .fx = LK_FX_SERVICE, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_CLOUD},
    {.name = "az", .fx = LK_FX_SERVICE, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_CLOUD},
    {.name = "nix", .net_subs = net_subs_nix, .fx = LK_FX_PACKAGES, .cls = LK_SUBCOMMANDS},
    {.name = "zypper", .fx = LK_FX_PACKAGES, .cls = LK_SUBCOMMANDS | LK_NAMES_DATA},
    {.name = "apk", .fx = LK_FX_PACKAGES, .cls = LK_SUBCOMMANDS | LK_NAMES_DATA},
    {.name = "pacman", .fx = LK_FX_PACKAGES, .cls = LK_SUBCOMMANDS | LK_NAMES_DATA},
    {.name = "rustup", .fx = LK_FX_PACKAGES, .cls = LK_SUBCOMMANDS},
    {.name = "dotnet", .net_subs = net_subs_dotnet, .own_subs = LK_DOTNET_SUBS, .fx = LK_FX_BUILD, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_PLATFORMS},
    {.name = "pipx", .net_subs = net_subs_pipx, .fx = LK_FX_PACKAGES, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_PLATFORMS},
    {.name = "uv", .net_subs = net_subs_uv, .fx = LK_FX_PACKAGES,
     .cls = LK_SUBCOMMANDS | LK_WRAPPER,
     .opts = OPTS(.sub = "|run|", .short_val = "p", .short_flag = "qv",
                  .longs =
                      "python:p1|with:-1|with-requirements:-1|with-editable:-1|"
                      "project:-1|directory:-1|package:-1|extra:-1|group:-1|"
                      "env-file:-1|index:-1|index-url:-1|all-extras:-0|"
                      "all-packages:-0|all-groups:-0|no-project:-0|no-sync:-0|"
                      "frozen:-0|locked:-0|isolated:-0|active:-0|no-dev:-0|"
                      "no-env-file:-0|only-dev:-0|offline:-0|quiet:q0|"
                      "verbose:v0|script:-0|module:-0|no-config:-0|exact:-0"), .pack = LK_PACK_PLATFORMS},
    {.name = "poetry", .fx = LK_FX_PACKAGES,
     .cls = LK_SUBCOMMANDS | LK_WRAPPER,
     .opts = OPTS(.sub = "|run|", .short_val = "CP", .short_flag = "qvn",
                  .longs = "directory:C1|project:P1|quiet:q0|verbose:v0|"
                           "no-interaction:n0|no-ansi:-0|ansi:-0"), .pack = LK_PACK_PLATFORMS},
    {.name = "conda", .fx = LK_FX_PACKAGES,
     .cls = LK_SUBCOMMANDS | LK_WRAPPER,
     .opts = OPTS(
             .sub = "|run|", .short_val = "np", .short_flag = "qv",
             .longs =
                 "name:n1|prefix:p1|cwd:-1|no-capture-output:-0|live-stream:-0|"
                 "quiet:q0|verbose:v0|dev:-0")},
    {.name = "flatpak", .fx = LK_FX_PACKAGES, .cls = LK_SUBCOMMANDS | LK_NAMES_DATA},
    {.name = "journalctl", .read_opts = &ro_journalctl, .fx = LK_FX_READ, .cls = LK_SUBCOMMANDS},
    {.name = "loginctl", .stop_subs = stop_subs_loginctl, .fx = LK_FX_SYSTEM, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_PERSISTENCE},
    {.name = "git-lfs", .fx = LK_FX_VCS, .cls = LK_SUBCOMMANDS, .pack = LK_PACK_GIT},
    {.name = "svn", .net_subs = net_subs_svn, .offline_subs = SVN_OFFLINE, .fx = LK_FX_VCS, .cls = LK_SUBCOMMANDS},
    {.name = "hg", .net_subs = net_subs_hg, .offline_subs = HG_OFFLINE, .fx = LK_FX_VCS, .cls = LK_SUBCOMMANDS},

    /* ---- wrappers and see-through programs (option grammars from their
       manuals) ---- */
    {.name = "sudo", .fx = LK_FX_WRAPPER,
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "aCcDgprRtTUu", .short_flag = "ABbEeHiKklNnPSsVv",
              .longs =
                  "askpass:A0|bell:B0|background:b0|close-from:C1|chdir:D1|"
                  "preserve-env:E?|edit:e0|group:g1|set-home:H0|host:-1|"
                  "login:i0|remove-timestamp:K0|reset-timestamp:k0|list:l0|"
                  "no-update:N0|non-interactive:n0|preserve-groups:P0|"
                  "prompt:p1|chroot:R1|role:r1|stdin:S0|shell:s0|type:t1|"
                  "command-timeout:T1|other-user:U1|user:u1|validate:v0|"
                  "login-class:c1|auth-type:a1",
              .query = "KlvV", .nocmd = "e", .background = "b",
              .flags = LK_OPT_ASSIGNS | LK_OPT_H_HOST, .shell = "is")},
    {.name = "doas",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "Cu", .short_flag = "Lns", .query = "CL",
                  .shell = "s")},
    {.name = "su",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "cgGsw", .short_flag = "flmpPhV",
              .longs = "command:c1|session-command:c1|fast:f0|group:g1|"
                       "supp-group:G1|login:l0|preserve-environment:p0|pty:P0|"
                       "shell:s1|whitelist-environment:w1",
              .query = "hV", .script = "c", .flags = LK_OPT_DASH | LK_OPT_SU)},
    {.name = "runuser",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "cgGswu", .short_flag = "flmpPhV",
              .longs = "command:c1|session-command:c1|fast:f0|group:g1|"
                       "supp-group:G1|login:l0|preserve-environment:p0|pty:P0|"
                       "shell:s1|whitelist-environment:w1|user:u1",
              .query = "hV", .script = "c", .flags = LK_OPT_DASH | LK_OPT_SU)},
    {.name = "run0",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "ugD",
              .longs = "no-ask-password:-0|unit:-1|property:-1|description:-1|"
                       "slice:-1|slice-inherit:-0|user:u1|group:g1|nice:-1|"
                       "chdir:D1|setenv:E1|background:-1|pty:-0|pipe:-0|"
                       "shell-prompt-prefix:-1|lightweight:-1|machine:-1|"
                       "area:-1|via-shell:-0|empower:-0",
              .env = "E", .flags = LK_OPT_STDIN_SHELL)},
    {.name = "pkexec",
     .cls = LK_WRAPPER,
     .opts = OPTS(.longs = "user:u1|keep-cwd:-0|disable-internal-agent:-0",
                  .flags = LK_OPT_STDIN_SHELL)},
    {.name = "env",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "uCSa", .short_flag = "i0v",
                  .longs = "ignore-environment:i0|null:00|unset:u1|chdir:C1|"
                           "split-string:S1|debug:v0|block-signal:-?|"
                           "default-signal:-?|ignore-signal:-?|"
                           "list-signal-handling:-0|argv0:a1",
                  .split = "S", .flags = LK_OPT_ASSIGNS | LK_OPT_DASH), .pack = LK_PACK_SECRETS},
    {.name = "nohup", .cls = LK_WRAPPER, .opts = OPTS()},
    {.name = "time",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "fo", .short_flag = "apqvV",
                  .longs =
                      "format:f1|output:o1|append:a0|portability:p0|verbose:v0|"
                      "quiet:q0",
                  .query = "V")},
    {.name = "command",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_flag = "pvV", .query = "vV")},
    {.name = "builtin", .cls = LK_WRAPPER, .opts = OPTS()},
    {.name = "exec",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "a", .short_flag = "cl")},
    {.name = "nice",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "n", .longs = "adjustment:n1",
                  .flags = LK_OPT_NUMERIC)},
    {.name = "ionice",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "cnpPu", .short_flag = "t",
              .longs = "class:c1|classdata:n1|pid:p1|pgid:P1|uid:u1|ignore:t0",
              .nocmd = "pPu")},
    {.name = "stdbuf",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "ioe", .longs = "input:i1|output:o1|error:e1")},
    {.name = "timeout",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "sk", .short_flag = "fpv",
              .longs =
                  "signal:s1|kill-after:k1|foreground:f0|preserve-status:p0|"
                  "verbose:v0",
              .npos = 1)},
    {.name = "unbuffer", .cls = LK_WRAPPER, .opts = OPTS(.short_flag = "p")},
    {.name = "chronic", .cls = LK_WRAPPER, .opts = OPTS(.short_flag = "ev")},
    {.name = "setsid",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_flag = "cfw", .longs = "ctty:c0|fork:f0|wait:w0")},
    {.name = "flock",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "wEc", .short_flag = "sexnouFhV",
                  .longs = "shared:s0|exclusive:x0|unlock:u0|nonblock:n0|nb:n0|"
                           "timeout:w1|wait:w1|conflict-exit-code:E1|close:o0|"
                           "command:c1|no-fork:F0|verbose:-0",
                  .query = "hV", .script = "c", .npos = 1,
                  .flags = LK_OPT_POS_SCRIPT)},
    {.name = "taskset",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_flag = "acphV", .longs = "all-tasks:a0|cpu-list:c0|pid:p0",
              .query = "hV", .nocmd = "p", .npos = 1)},
    {.name = "chroot",
     .cls = LK_WRAPPER,
     .opts = OPTS(.longs = "groups:-1|userspec:-1|skip-chdir:-0", .npos = 1,
                  .flags = LK_OPT_OPT_POS | LK_OPT_STDIN_SHELL)},
    {.name = "unshare",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "RwSG", .short_opt = "muinpUCT",
              .short_flag = "frchV",
              .longs = "mount:m?|uts:u?|ipc:i?|net:n?|pid:p?|user:U?|cgroup:C?|"
                       "time:T?|fork:f0|kill-child:-?|mount-proc:-?|"
                       "map-root-user:r0|map-current-user:c0|map-user:-1|"
                       "map-group:-1|map-users:-1|map-groups:-1|map-auto:-0|"
                       "propagation:-1|setgroups:-1|root:R1|wd:w1|setuid:S1|"
                       "setgid:G1|monotonic:-1|boottime:-1|keep-caps:-0|"
                       "load-interp:-1",
              .query = "hV", .flags = LK_OPT_STDIN_SHELL)},
    {.name = "nsenter",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "tSGW", .short_opt = "muinpCUTrw",
              .short_flag = "aFZechV",
              .longs = "target:t1|all:a0|mount:m?|uts:u?|ipc:i?|net:n?|pid:p?|"
                       "cgroup:C?|user:U?|time:T?|setuid:S1|setgid:G1|"
                       "preserve-credentials:-0|root:r?|wd:w?|wdns:W1|env:e0|"
                       "no-fork:F0|follow-context:Z0|join-cgroup:c0|"
                       "user-parent:-0|keep-caps:-0",
              .query = "hV", .flags = LK_OPT_STDIN_SHELL)},
    {.name = "strace",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "abeIoOpPsSUXEu",
              .short_flag = "AcCdDfFhiknqrtTvVwxyYzZ", .pipe = "o",
              .longs = "output:o1|output-separately:-0|trace:-1|trace-path:-1|"
                       "trace-fds:-1|status:-1|signal:-1|abbrev:-1|verbose:-1|"
                       "raw:-1|read:-1|write:-1|fault:-1|inject:-1|kvm:-1|"
                       "quiet:-?|silent:-?|decode-fds:-?|decode-pids:-1|"
                       "secontext:-?|summary-only:c0|summary:C0|"
                       "summary-wall-clock:w0|summary-sort-by:S1|"
                       "summary-columns:U1|summary-syscall-overhead:O1|"
                       "syscall-times:-?|timestamps:-?|absolute-timestamps:-?|"
                       "relative-timestamps:-?|follow-forks:f0|daemonize:-?|"
                       "attach:p1|user:u1|env:E1|columns:a1|string-limit:s1|"
                       "strings-in-hex:-?|const-print-style:X1|seccomp-bpf:-0|"
                       "stack-trace:k0|stack-traces:k0|debug:d0|tips:-?|"
                       "instruction-pointer:i0|no-abbrev:v0|interruptible:I1|"
                       "argv0:-1|successful-only:z0|failed-only:Z0|"
                       "syscall-limit:-1|always-show-pid:-0",
              .query = "hV", .env = "E")},
    {.name = "ltrace",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "aADeFlnopsuwxX", .short_flag = "bcCfhiLrStTV",
              .longs = "output:o1|library:l1|config:F1|align:a1|demangle:C0|"
                       "indent:n1",
              .query = "hV")},
    {.name = "systemd-run",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "upEHM", .short_flag = "rtPqGdSh",
                  .longs =
                      "unit:u1|property:p1|description:-1|slice:-1|"
                      "slice-inherit:-0|remain-after-exit:r0|send-sighup:-0|"
                      "service-type:-1|uid:-1|gid:-1|nice:-1|"
                      "working-directory:-1|same-dir:d0|setenv:E1|pty:t0|"
                      "pipe:P0|quiet:q0|collect:G0|user:-0|system:-0|host:H1|"
                      "machine:M1|scope:-0|on-active:-1|on-boot:-1|"
                      "on-startup:-1|on-unit-active:-1|on-unit-inactive:-1|"
                      "on-calendar:-1|on-clock-change:-0|on-timezone-change:-0|"
                      "timer-property:-1|path-property:-1|socket-property:-1|"
                      "no-block:-0|wait:-0|shell:S0|no-ask-password:-0|"
                      "job-mode:-1|expand-environment:-1|json:-1|"
                      "ignore-failure:-0|background:-1",
                  .query = "h", .shell = "S", .env = "E",
                  .property = "p"),
     .pack = LK_PACK_PERSISTENCE},
    /* firejail takes every option as one word, values after '=';
       --env=NAME=VALUE sets a variable of the command */
    {.name = "firejail",
     .cls = LK_WRAPPER,
     .opts = OPTS(.longs = "env:E1", .env = "E",
                  .flags = LK_OPT_LONG_EQ | LK_OPT_STDIN_SHELL)},
    {.name = "bwrap",
     .cls = LK_WRAPPER,
     .opts = OPTS(.longs =
                      "args:-1|argv0:-1|level-prefix:-0|unshare-all:-0|"
                      "share-net:-0|unshare-user:-0|unshare-user-try:-0|"
                      "unshare-ipc:-0|unshare-pid:-0|unshare-net:-0|"
                      "unshare-uts:-0|unshare-cgroup:-0|unshare-cgroup-try:-0|"
                      "userns:-1|userns2:-1|disable-userns:-0|"
                      "assert-userns-disabled:-0|pidns:-1|uid:-1|gid:-1|"
                      "hostname:-1|chdir:-1|clearenv:-0|setenv:E2|unsetenv:-1|"
                      "lock-file:-1|sync-fd:-1|bind:-2|bind-try:-2|dev-bind:-2|"
                      "dev-bind-try:-2|ro-bind:-2|ro-bind-try:-2|remount-ro:-1|"
                      "overlay-src:-1|overlay:-3|tmp-overlay:-1|ro-overlay:-1|"
                      "exec-label:-1|file-label:-1|proc:-1|dev:-1|tmpfs:-1|"
                      "mqueue:-1|dir:-1|file:-2|bind-data:-2|ro-bind-data:-2|"
                      "symlink:-2|seccomp:-1|add-seccomp-fd:-1|block-fd:-1|"
                      "userns-block-fd:-1|info-fd:-1|json-status-fd:-1|"
                      "new-session:-0|die-with-parent:-0|as-pid-1:-0|"
                      "cap-add:-1|cap-drop:-1|perms:-1|size:-1|chmod:-2|"
                      "bind-fd:-2|ro-bind-fd:-2",
                  .env = "E")},
    {.name = "xvfb-run",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "efnpsw", .short_flag = "adlh",
                  .longs = "auto-servernum:a0|auto-display:d0|error-file:e1|"
                           "auth-file:f1|server-num:n1|listen-tcp:l0|"
                           "xauth-protocol:p1|server-args:s1|wait:w1",
                  .query = "h")},
    {.name = "caffeinate",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "tw", .short_flag = "dimsu")},
    {.name = "coproc",
     .cls = LK_WRAPPER,
     .opts = OPTS(.flags = LK_OPT_BACKGROUND)},
    {.name = "busybox",
     .cls = LK_WRAPPER,
     .opts = OPTS(.longs = "list:L0|list-full:L0|install:L0|show:L1",
                  .nocmd = "L")},
    {.name = "chrt",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "TPD", .short_flag = "bdfiormRapvhV",
              .longs = "batch:b0|deadline:d0|fifo:f0|idle:i0|other:o0|rr:r0|"
                       "ext:e0|reset-on-fork:R0|all-tasks:a0|max:m0|pid:p0|"
                       "verbose:v0|sched-runtime:T1|sched-period:P1|"
                       "sched-deadline:D1",
              .query = "mhV", .nocmd = "p", .npos = 1)},
    {.name = "script",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "cEBIOTmo", .short_opt = "t", .short_flag = "aefqhV",
              .longs = "append:a0|command:c1|echo:E1|return:e0|flush:f0|"
                       "force:-0|log-io:B1|log-in:I1|log-out:O1|log-timing:T1|"
                       "logging-format:m1|output-limit:o1|quiet:q0|timing:t?",
              .query = "hV", .script = "c",
              /* the operand is the typescript file, never a command; util-linux
              permutes, so `script FILE -qc CMD` still runs CMD */
              .nocmd = "", .npos = 1,
              .flags = LK_OPT_PERMUTE | LK_OPT_STDIN_SHELL)},
    {.name = "eatmydata", .cls = LK_WRAPPER, .opts = OPTS()},
    {.name = "fakeroot",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "lfsib", .short_flag = "uhv",
              .longs = "lib:l1|faked:f1|unknown-is-real:u0", .query = "hv",
              .flags = LK_OPT_STDIN_SHELL)},
    {.name = "torsocks",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "uapP", .short_flag = "idqh",
              .longs = "user:u1|pass:p1|address:a1|port:P1|isolate:i0|debug:d0|"
                       "quiet:q0|shell:-0",
              .query = "h")},
    {.name = "proxychains",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "f", .short_flag = "q")},
    {.name = "proxychains4",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "f", .short_flag = "q")},
    {.name = "dbus-run-session",
     .cls = LK_WRAPPER,
     .opts = OPTS(.longs = "config-file:-1|dbus-daemon:-1")},
    {.name = "catchsegv", .cls = LK_WRAPPER, .opts = OPTS()},
    {.name = "nocache", .cls = LK_WRAPPER, .opts = OPTS()},
    /* toybox is busybox's sibling: `toybox APPLET ARGS` */
    {.name = "toybox",
     .cls = LK_WRAPPER,
     .opts = OPTS(.longs = "long:L0", .nocmd = "L")},
    /* libfaketime: faketime [-m] [-f] [-p PID] TIMESTAMP PROG ARGS */
    {.name = "faketime",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "p", .short_flag = "mf",
                  .longs = "exclude-monotonic:-0|disable-shm:-0|date-prog:-1",
                  .npos = 1)},
    {.name = "setpriv",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_flag = "dhV",
              .longs =
                  "dump:d0|no-new-privs:-0|nnp:-0|inh-caps:-1|"
                  "ambient-caps:-1|bounding-set:-1|keep-groups:-0|"
                  "clear-groups:-0|init-groups:-0|groups:-1|rgid:-1|egid:-1|"
                  "regid:-1|ruid:-1|euid:-1|reuid:-1|securebits:-1|"
                  "pdeathsig:-1|selinux-label:-1|apparmor-profile:-1|"
                  "landlock-access:-1|landlock-rule:-1|reset-env:-0",
              .query = "dhV")},
    {.name = "prlimit",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "po", .short_opt = "cdefilmnqrstuvxy",
              .short_flag = "hV",
              .longs =
                  "core:c?|data:d?|nice:e?|fsize:f?|sigpending:i?|"
                  "memlock:l?|rss:m?|nofile:n?|msgqueue:q?|rtprio:r?|"
                  "stack:s?|cpu:t?|nproc:u?|as:v?|locks:x?|rttime:y?|pid:p1|"
                  "output:o1|noheadings:-0|raw:-0|verbose:-0",
              .query = "hV", .nocmd = "p")},
    {.name = "numactl",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "ipPmNCwoLMISf", .short_flag = "albsHtuTV",
                  .longs =
                      "all:a0|interleave:i1|preferred:p1|preferred-many:P1|"
                      "membind:m1|cpunodebind:N1|physcpubind:C1|localalloc:l0|"
                      "balancing:b0|weighted-interleave:w1|show:s0|hardware:H0|"
                      "offset:o1|length:L1|shmmode:M1|shmid:I1|shm:S1|file:f1|"
                      "strict:t0|huge:u0|touch:T0",
                  .query = "sHV")},
    {.name = "cgexec",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "g", .short_flag = "h", .longs = "sticky:-0",
                  .query = "h")},
    /* valgrind takes every option as --name=value */
    {.name = "valgrind", .net_subs = net_subs_valgrind,
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_flag = "hvqd", .query = "h", .flags = LK_OPT_LONG_EQ)},
    {.name = "dbus-launch",
     .cls = LK_WRAPPER,
     .opts = OPTS(.flags = LK_OPT_LONG_EQ)},
    {.name = "ssh-agent",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "aEOPt", .short_flag = "csDdk", .nocmd = "k")},
    {.name = "fakechroot",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "ldec", .short_flag = "shv",
              .longs = "lib:l1|elfloader:d1|use-system-libs:s0|environment:e1|"
                       "config-dir:c1",
              .query = "hv")},
    {.name = "schroot",
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.short_val = "cudno", .short_flag = "hVlipaqvbref",
              .longs =
                  "chroot:c1|user:u1|directory:d1|session-name:n1|option:o1|"
                  "preserve-environment:p0|all:a0|quiet:q0|verbose:v0|"
                  "begin-session:b0|run-session:r0|end-session:e0|force:f0|"
                  "list:l0|info:i0|config:l0|location:l0|"
                  "automatic-session:-0|recover-session:-0|all-chroots:a0|"
                  "all-sessions:a0|all-source-chroots:a0|"
                  "exclude-aliases:-0",
              .query = "hVli", .nocmd = "be", .flags = LK_OPT_STDIN_SHELL)},
    {.name = "daemonize",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "ceopluE", .short_flag = "av",
                  .flags = LK_OPT_BACKGROUND)},
    /* task spooler: queues the command */
    {.name = "tsp",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "LDWN", .short_flag = "ngfmdEBhVlKCS",
                  .query = "hVlKCS", .flags = LK_OPT_BACKGROUND)},
    {.name = "nq",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_flag = "cqt", .flags = LK_OPT_BACKGROUND)},
    /* entr -s makes the operand a shell string: not listed, so the
     scan reports it and the line is unparsed */
    {.name = "entr", .cls = LK_WRAPPER, .opts = OPTS(.short_flag = "acdnprz")},
    {.name = "screen",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "cehpSTt", .short_flag = "aAdDfilLmOqQrRUvx",
                  .query = "v")},
    {.name = "dtach",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "acAner", .short_flag = "Ez", .nocmd = "a")},
    {.name = "sshpass",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "fdpP", .short_flag = "evhV", .query = "hV")},
    {.name = "retry",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "tsmx",
                  .longs = "tries:t1|sleep:s1|min:m1|max:x1|until:-1|delay:-1|"
                           "times:-1")},
    {.name = "ifne", .cls = LK_WRAPPER, .opts = OPTS(.short_flag = "n")},
    {.name = "systemd-inhibit",
     .cls = LK_WRAPPER,
     .opts = OPTS(.longs = "what:-1|who:-1|why:-1|mode:-1|list:-0|no-pager:-0|"
                           "no-legend:-0")},
    {.name = "systemd-cat",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "tp",
                  .longs = "identifier:t1|priority:p1|stderr-priority:-1|"
                           "level-prefix:-1|namespace:-1")},
    /* sg [-] [group [-c] command]: like su, the rest goes to sh */
    /* More programs that run the command after their options
       (util-linux setarch and its aliases, choom; daemontools/s6
       privilege droppers; gosu/su-exec; cpulimit, trickle; perf stat /
       record / trace; proot; AppArmor's aa-exec; GPU offload runners) */
    {.name = "setarch",
     .cls = LK_WRAPPER,
     .opts = &opts_setarch,
     .names = 0},
    {.name = "linux32", .cls = LK_WRAPPER, .opts = &opts_setarch_alias},
    {.name = "linux64", .cls = LK_WRAPPER, .opts = &opts_setarch_alias},
    {.name = "i386", .cls = LK_WRAPPER, .opts = &opts_setarch_alias},
    {.name = "x86_64", .cls = LK_WRAPPER, .opts = &opts_setarch_alias},
    {.name = "uname26", .cls = LK_WRAPPER, .opts = &opts_setarch_alias},
    {.name = "choom",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "np", .short_flag = "hV",
                  .longs = "adjust:n1|pid:p1", .query = "hV",
                  .nocmd = "p")},
    {.name = "gosu", .cls = LK_WRAPPER, .opts = OPTS(.npos = 1)},
    {.name = "su-exec", .cls = LK_WRAPPER, .opts = OPTS(.npos = 1)},
    {.name = "setuidgid", .cls = LK_WRAPPER, .opts = OPTS(.npos = 1)},
    {.name = "envuidgid", .cls = LK_WRAPPER, .opts = OPTS(.npos = 1)},
    {.name = "envdir", .cls = LK_WRAPPER, .opts = OPTS(.npos = 1)},
    {.name = "s6-setuidgid", .cls = LK_WRAPPER, .opts = OPTS(.npos = 1)},
    {.name = "s6-envdir", .cls = LK_WRAPPER, .opts = OPTS(.npos = 1)},
    {.name = "softlimit",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "madslfcrtop")},
    {.name = "cpulimit",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "lpPe", .short_flag = "bzikvfqrh",
                  .longs = "limit:l1|pid:p1|exe:e1|path:P1|background:b0|"
                           "lazy:z0|include-children:i0|kill:k0|"
                           "verbose:v0|foreground:f0|quiet:q0|help:h0",
                  .query = "h", .nocmd = "pPe", .background = "b")},
    {.name = "trickle",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "wtlnduLP", .short_flag = "hvVs",
                  .query = "hV")},
    {.name = "perf",
     .cls = LK_WRAPPER,
     .opts = OPTS(.sub = "|stat|record|trace|",
                  .short_val = "eorFpCxcGt", .short_flag = "agqvsBniA",
                  .longs = "event:e1|output:o1|repeat:r1|freq:F1|pid:p1|"
                           "cpu:C1|field-separator:x1|count:c1|cgroup:G1|"
                           "tid:t1|all-cpus:a0|call-graph:-1|quiet:q0|"
                           "verbose:v0|append:A0",
                  .nocmd = "pt")},
    {.name = "proot",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "rbqwkivRS", .short_flag = "0Vh",
                  .longs = "rootfs:r1|bind:b1|mount:b1|qemu:q1|cwd:w1|"
                           "pwd:w1|kernel-release:k1|verbose:v1|"
                           "kill-on-exit:-0|link2symlink:-0|change-id:i1|"
                           "root-id:00",
                  .query = "Vh", .flags = LK_OPT_STDIN_SHELL)},
    {.name = "aa-exec",
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "pn", .short_flag = "idvh",
                  .longs = "profile:p1|namespace:n1|immediate:i0|"
                           "verbose:v0|debug:d0",
                  .query = "h")},
    {.name = "prime-run", .cls = LK_WRAPPER, .opts = OPTS(.npos = 0)},
    {.name = "primusrun", .cls = LK_WRAPPER, .opts = OPTS(.npos = 0)},
    /* sg [-] GROUP [-c] CMD runs `sh -c CMD` (shadow's newgrp.c) */
    {.name = "sg",
     .cls = LK_WRAPPER,
     .opts = OPTS(.npos = 1, .flags = LK_OPT_DASH | LK_OPT_POS_SCRIPT |
                                      LK_OPT_CMD_OPERAND | LK_OPT_STDIN_SHELL)},
    /* capsh [--OPT[=V]...] -- ARGS runs /bin/bash ARGS (--shell=PROG
       another program; `==` runs capsh again) */
    {.name = "capsh",
     .cls = LK_WRAPPER,
     .opts = OPTS(.flags = LK_OPT_LONG_EQ | LK_OPT_SHELL_ARGS)},
    {.name = "npx", .net_subs = net_subs_npx, .fx = LK_FX_PACKAGES,
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "pc", .short_flag = "yq",
                  .longs = "package:p1|call:c1|yes:y0|no:-0|quiet:q0",
                  .script = "c")},
    {.name = "bunx", .net_subs = net_subs_bunx, .fx = LK_FX_PACKAGES,
     .cls = LK_WRAPPER,
     .opts = OPTS(.longs = "bun:-0|silent:-0|verbose:-0|package:-1")},
    {.name = "uvx", .net_subs = net_subs_uvx, .fx = LK_FX_PACKAGES,
     .cls = LK_WRAPPER,
     .opts = OPTS(.short_val = "p", .short_flag = "qv",
                  .longs = "python:p1|with:-1|from:-1|quiet:q0|verbose:v0|"
                           "isolated:-0|offline:-0")},
    {.name = "pipenv", .fx = LK_FX_PACKAGES,
     .cls = LK_WRAPPER,
     .opts = OPTS(.sub = "|run|", .longs = "python:-1|verbose:-0|quiet:-0")},
    {.name = "mamba", .fx = LK_FX_PACKAGES,
     .cls = LK_WRAPPER,
     .opts = OPTS(.sub = "|run|", .short_val = "np",
                  .longs = "name:n1|prefix:p1|cwd:-1|no-capture-output:-0|live-"
                           "stream:-0")},
    {.name = "asdf", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|exec|")},
    {.name = "direnv", .fx = LK_FX_FILES, .pack = LK_PACK_PERSISTENCE,
     .cls = LK_WRAPPER,
     .opts = OPTS(.sub = "|exec|", .npos = 1)},
    {.name = "devcontainer", .fx = LK_FX_CONTAINERS,
     .cls = LK_WRAPPER,
     .opts =
         OPTS(.sub = "|exec|",
              .longs =
                  "workspace-folder:-1|container-id:-1|id-label:-1|"
                  "config:-1|remote-env:-1|user-data-folder:-1|"
                  "docker-path:-1|log-level:-1|log-format:-1|"
                  "skip-post-create:-0|terminal-columns:-1|terminal-rows:-1")},
    {.name = "xargs",
     .cls = LK_SEES,
     .opts =
         OPTS(.short_val = "aEdIsnPLJRS", .short_opt = "eil",
              .short_flag = "0optrx",
              .longs = "null:00|arg-file:a1|delimiter:d1|eof:e?|replace:i?|"
                       "max-lines:l?|max-args:n1|max-procs:P1|open-tty:o0|"
                       "interactive:p0|process-slot-var:-1|no-run-if-empty:r0|"
                       "max-chars:s1|show-limits:-0|verbose:t0|exit:x0",
              .flags = LK_OPT_REPLACE)},
    {.name = "parallel",
     .cls = LK_SEES,
     .opts =
         OPTS(.short_val = "aCdEIjLnNPsSe", .short_flag = "0kmquvXrg",
              .longs =
                  "arg-file:a1|arg-file-sep:-1|arg-sep:-1|bar:-0|"
                  "basefile:-1|bf:-1|block:-1|block-size:-1|cat:-0|"
                  "colsep:C1|delay:-1|delimiter:d1|env:-1|eta:-0|fifo:-0|"
                  "group:-0|halt:-1|halt-on-error:-1|header:-1|joblog:-1|"
                  "jobs:j1|keep-order:k0|max-lines:L1|max-args:n1|nice:-1|"
                  "pipe:-0|progress:-0|results:-1|res:-1|retries:-1|"
                  "return:-1|sshlogin:S1|sshloginfile:-1|slf:-1|tag:-0|"
                  "tagstring:-1|timeout:-1|tmpdir:-1|trc:-1|transferfile:-1|"
                  "tf:-1|workdir:-1|wd:-1|dry-run:-0|null:00|memfree:-1|"
                  "load:-1|line-buffer:-0|lb:-0|ungroup:u0|xargs:m0|"
                  "max-chars:s1|will-cite:-0|no-notice:-0|quote:q0|"
                  "shuf:-0|verbose:v0|no-run-if-empty:r0|linebuffer:-0|"
                  "keep-order:k0|plus:-0|resume:-0|resume-failed:-0|"
                  "compress:-0|eof:E1|replace:I1|max-replace-args:N1|"
                  "max-procs:P1|transfer:-0|cleanup:-0|fg:-0|bg:-0|"
                  "tty:-0|id:-1|semaphore:-0|shebang:-0|citation:-0",
              .flags = LK_OPT_REPLACE)},
    {.name = "watch",
     .cls = LK_SEES,
     .opts =
         OPTS(.short_val = "nq", .short_flag = "bcCdegprtwxhv",
              .longs = "beep:b0|color:c0|no-color:C0|differences:d?|errexit:e0|"
                       "chgexit:g0|interval:n1|precise:p0|no-rerun:r0|"
                       "no-title:t0|no-wrap:w0|exec:x0|equexit:q1",
              .query = "hv")},

    /* ---- other programs that run commands found in their arguments ---- */
    /* find's write actions (GNU find(1)): -fprintf FILE FORMAT; -delete */
    {.name = "find",
     .fx = LK_FX_READ,
     .cls = LK_SEES,
     .writes = "|-fprint|-fprint0|-fprintf|-fls|",
     .destroys = "find -delete deletes files",
     .destroys_by = &destroys_find},
    {.name = "fd", .read_opts = &ro_fd, .fx = LK_FX_READ, .cls = LK_SEES},
    {.name = "make", .checks = "|test|check|lint|", .fx = LK_FX_WORKSPACE, .cls = LK_SEES, .reads = &reads_make, .defines = "=",
     .unseen_opts = unseen_opts_make, .pack = LK_PACK_SECRETS},
    {.name = "git", .own_subs = LK_GIT_SUBS, .run_subs = run_subs_git, .net_subs = net_subs_git, .unseen_opts = unseen_opts_git, .fx = LK_FX_VCS, .cls = LK_SEES, .pack = LK_PACK_GIT},
    {.name = "at", .fx = LK_FX_SYSTEM, .cls = LK_SEES, .pack = LK_PACK_PERSISTENCE,
     .reads = &reads_at},
    {.name = "batch", .fx = LK_FX_SYSTEM, .cls = LK_SEES, .pack = LK_PACK_PERSISTENCE,
     .reads = &reads_at},
    {.name = "crontab", .fx = LK_FX_SYSTEM, .cls = LK_SEES, .pack = LK_PACK_PERSISTENCE,
     .reads = &reads_crontab, .delete_opts = delete_opts_crontab},
    {.name = "trap", .cls = LK_SEES},

    /* ---- programs that write files: copies and tee ---- */
    {.name = "cp", .cls = LK_COPIES | LK_INERT},
    {.name = "mv", .cls = LK_COPIES | LK_INERT, .sources_written = true},
    {.name = "install", .unseen_opts = unseen_opts_install, .cls = LK_COPIES | LK_INERT, .pack = LK_PACK_PRIVILEGE,
     .dirs_opt = true},
    {.name = "ln", .cls = LK_COPIES | LK_INERT, .sources_written = true},
    {.name = "gcp", .cls = LK_COPIES | LK_INERT},
    {.name = "gmv", .cls = LK_COPIES | LK_INERT, .sources_written = true},
    {.name = "tee", .cls = LK_WRITES_ARGS | LK_INERT},

    /* ---- archive extractors: the names of the files they write come from the
       archive ---- */
    {.name = "tar", .cls = LK_EXTRACTS | LK_RMT, .extract = &extract_tar,
     .delete_opts = delete_opts_tar, .patterns = TAR_PATTERNS},
    {.name = "gtar", .cls = LK_EXTRACTS | LK_RMT, .extract = &extract_tar, .delete_opts = delete_opts_gtar,
     .patterns = TAR_PATTERNS},
    {.name = "bsdtar", .cls = LK_EXTRACTS, .extract = &extract_tar, .patterns = TAR_PATTERNS},
    {.name = "unzip", .cls = LK_EXTRACTS, .extract = &extract_unzip,
     .patterns = "|-x|", .pattern_lists = true},
    {.name = "7z", .cls = LK_EXTRACTS, .extract = &extract_7z, .delete_opts = delete_opts_7z},
    {.name = "7za", .cls = LK_EXTRACTS, .extract = &extract_7z, .delete_opts = delete_opts_7za},
    {.name = "7zr", .cls = LK_EXTRACTS, .extract = &extract_7z, .delete_opts = delete_opts_7zr},
    {.name = "cpio", .unseen_opts = unseen_opts_cpio, .cls = LK_EXTRACTS | LK_RMT, .extract = &extract_cpio},
    {.name = "unrar", .cls = LK_EXTRACTS, .extract = &extract_7z},
    {.name = "ar", .unseen_opts = unseen_opts_ar, .cls = LK_EXTRACTS},
    {.name = "pax", .cls = LK_EXTRACTS},
    {.name = "busybox-tar", .cls = LK_EXTRACTS, .extract = &extract_tar},

    /* ---- programs that take data, never code ---- */
    {.name = "touch", .cls = LK_INERT},
    {.name = "mkdir", .cls = LK_INERT, .pack = LK_PACK_PRIVILEGE},
    {.name = "chmod", .cls = LK_INERT, .pack = LK_PACK_PRIVILEGE},
    {.name = "chown", .cls = LK_INERT, .pack = LK_PACK_PRIVILEGE},
    {.name = "chgrp", .cls = LK_INERT, .pack = LK_PACK_PRIVILEGE},
    {.name = "sleep", .cls = LK_INERT},
    {.name = "kill", .fx = LK_FX_SYSTEM, .cls = LK_INERT, .pack = LK_PACK_SYSTEM},
    {.name = "wait", .cls = LK_INERT},
    {.name = "logger", .cls = LK_INERT},
    {.name = "export", .cls = LK_INERT, .pack = LK_PACK_SECRETS},
    {.name = "declare", .cls = LK_INERT, .pack = LK_PACK_SECRETS},
    {.name = "typeset", .cls = LK_INERT, .pack = LK_PACK_SECRETS},
    {.name = "local", .cls = LK_INERT, .pack = LK_PACK_SECRETS},
    {.name = "readonly", .cls = LK_INERT, .pack = LK_PACK_SECRETS},
    {.name = "unset", .cls = LK_INERT},
    {.name = "set", .cls = LK_INERT, .pack = LK_PACK_SECRETS},
    {.name = "shift", .cls = LK_INERT},
    {.name = "exit", .cls = LK_INERT},
    {.name = "return", .cls = LK_INERT},
    {.name = "read", .cls = LK_INERT},
    {.name = "true", .cls = LK_INERT},
    {.name = "false", .cls = LK_INERT},
    {.name = ":", .cls = LK_INERT},
    {.name = "break", .cls = LK_INERT},
    {.name = "continue", .cls = LK_INERT},
    {.name = "shopt", .cls = LK_INERT},
    {.name = "umask", .cls = LK_INERT},

    /* ---- programs whose operands are names of things (data) ---- */
    {.name = "man", .read_opts = &ro_man, .cls = LK_NAMES_DATA},
    {.name = "info", .cls = LK_NAMES_DATA},
    {.name = "whatis", .cls = LK_NAMES_DATA},
    {.name = "apropos", .cls = LK_NAMES_DATA},
    {.name = "tldr", .cls = LK_NAMES_DATA},
    {.name = "help", .cls = LK_NAMES_DATA},
    {.name = "which", .cls = LK_NAMES_DATA},
    {.name = "whereis", .cls = LK_NAMES_DATA},
    {.name = "pgrep", .cls = LK_NAMES_DATA},
    {.name = "pidof", .cls = LK_NAMES_DATA},
    {.name = "dpkg-query", .read_opts = &ro_dpkg_query, .cls = LK_NAMES_DATA},
    {.name = "apt-cache", .read_opts = &ro_apt_cache, .cls = LK_NAMES_DATA},
    {.name = "command-not-found", .cls = LK_NAMES_DATA},
    {.name = "locate", .read_opts = &ro_locate, .cls = LK_NAMES_DATA},
    {.name = "plocate", .read_opts = &ro_locate, .cls = LK_NAMES_DATA},
    {.name = "mlocate", .read_opts = &ro_locate, .cls = LK_NAMES_DATA},
    {.name = "getent", .net_subs = net_subs_getent, .read_opts = &ro_getent, .cls = LK_NAMES_DATA},
    {.name = "finger", .cls = LK_NAMES_DATA},
    {.name = "look", .cls = LK_NAMES_DATA},

    /* package tools: their operands are package and file names */
    {.name = "dpkg", .read_opts = &ro_dpkg, .cls = LK_NAMES_DATA},
    {.name = "rpm", .cls = LK_NAMES_DATA},
    {.name = "apt-file", .cls = LK_NAMES_DATA},
    /* machine stop: the labeller's shutdown rows; only the query forms
       are here (systemd's shutdown --help prints) */
    {.name = "shutdown", .stop_subs = stop_subs_shutdown, .fx = LK_FX_SYSTEM, .query = "|--help|--version|"},
    {.name = "reboot", .stop_subs = stop_subs_reboot, .fx = LK_FX_SYSTEM, .query = "|--help|--version|"},
    {.name = "halt", .stop_subs = stop_subs_halt, .fx = LK_FX_SYSTEM, .query = "|--help|--version|"},
    {.name = "poweroff", .stop_subs = stop_subs_poweroff, .fx = LK_FX_SYSTEM, .query = "|--help|--version|"},

    /* ---- pagers: operands are files ---- */
    {.name = "less", .cls = LK_PAGER, .unseen_opts = unseen_opts_less},
    {.name = "more", .cls = LK_PAGER, .unseen_opts = unseen_opts_more},
    {.name = "most", .cls = LK_PAGER, .unseen_opts = unseen_opts_most},
    {.name = "pg", .cls = LK_PAGER},
    {.name = "pager", .cls = LK_PAGER},
    {.name = "sensible-pager", .cls = LK_PAGER},

    /* ---- programs that delete files or their contents ---- */
    {.name = "rm",
     .cls = LK_DELETES | LK_UNLINKS,
     .destroys = "rm deletes files",
     .query = "|--help|--version|"},
    {.name = "rmdir",
     .cls = LK_DELETES | LK_UNLINKS,
     .destroys = "rmdir deletes directories",
     .query = "|--help|--version|"},
    {.name = "unlink",
     .cls = LK_DELETES | LK_UNLINKS,
     .destroys = "unlink deletes files",
     .query = "|--help|--version|"},
    {.name = "truncate",
     .cls = LK_DELETES,
     .destroys = "truncate discards file contents",
     .query = "|--help|--version|"},

    /* ---- programs that make or erase a filesystem or partition table (floor)
       ---- */
    {.name = "mkfs",
     .cls = LK_WIPES_DEVICE,
     .names = LK_DOTTED,
     .destroys = "mkfs makes a new filesystem",
     .query = "|-h|--help|-V|--version|"},
    {.name = "mke2fs",
     .cls = LK_WIPES_DEVICE,
     .names = LK_DOTTED,
     .destroys = "mke2fs makes a new filesystem",
     .query = "|-V|"},
    {.name = "mkswap",
     .cls = LK_WIPES_DEVICE,
     .destroys = "mkswap overwrites a device with swap",
     .query = "|-h|--help|-V|--version|"},
    {.name = "wipefs",
     .cls = LK_WIPES_DEVICE,
     .destroys = "wipefs erases filesystem signatures",
     .query = "|-h|--help|-V|--version|"},
    {.name = "shred",
     .cls = LK_WIPES_DEVICE,
     .destroys = "shred destroys files",
     .query = "|--help|--version|"},
    {.name = "mkdosfs",
     .cls = LK_WIPES_DEVICE,
     .destroys = "mkdosfs makes a new filesystem"},
    {.name = "mkntfs",
     .cls = LK_WIPES_DEVICE,
     .destroys = "mkntfs makes a new filesystem"},
    {.name = "mkexfatfs",
     .cls = LK_WIPES_DEVICE,
     .destroys = "mkexfatfs makes a new filesystem"},
    {.name = "mkreiserfs",
     .cls = LK_WIPES_DEVICE,
     .destroys = "mkreiserfs makes a new filesystem"},
    {.name = "jfs_mkfs",
     .cls = LK_WIPES_DEVICE,
     .destroys = "jfs_mkfs makes a new filesystem"},
    {.name = "mkudffs",
     .cls = LK_WIPES_DEVICE,
     .destroys = "mkudffs makes a new filesystem"},
    {.name = "sgdisk",
     .cls = LK_WIPES_DEVICE,
     .destroys = "sgdisk rewrites a partition table",
     .query = "|-p|--print|-i|--info|-v|--verify|-L|--list-types|-O|--print-"
              "mbr|-?|--help|-V|--version|"},
    {.name = "sfdisk",
     .cls = LK_WIPES_DEVICE,
     .destroys = "sfdisk rewrites a partition table",
     .query =
         "|-l|--list|-d|--dump|-s|--show-size|-J|--json|-V|--verify|-g|--show-"
         "geometry|-F|--list-free|-r|--reorder-dry|-h|--help|-v|--version|"},
    {.name = "blkdiscard",
     .cls = LK_WIPES_DEVICE,
     .destroys = "blkdiscard discards every block of a device",
     .query = "|-h|--help|-V|--version|"},
    {.name = "flash_erase",
     .cls = LK_WIPES_DEVICE,
     .destroys = "flash_erase erases flash memory"},
    {.name = "flash_eraseall",
     .cls = LK_WIPES_DEVICE,
     .destroys = "flash_eraseall erases flash memory"},
    {.name = "srm", .cls = LK_WIPES_DEVICE, .destroys = "srm destroys files"},
    {.name = "mformat",
     .cls = LK_WIPES_DEVICE,
     .destroys = "mformat makes a new filesystem"},

    /* ---- programs only the danger packs know (labels/packs_*.c) ---- */
    {.name = "addgroup", .fx = LK_FX_SYSTEM, .pack = LK_PACK_PRIVILEGE},
    {.name = "adduser", .fx = LK_FX_SYSTEM, .pack = LK_PACK_PRIVILEGE},
    {.name = "ansible", .fx = LK_FX_SERVICE, .pack = LK_PACK_INFRASTRUCTURE},
    {.name = "ansible-playbook", .fx = LK_FX_SERVICE, .pack = LK_PACK_INFRASTRUCTURE},
    {.name = "ansible-pull", .fx = LK_FX_SERVICE, .pack = LK_PACK_INFRASTRUCTURE},
    {.name = "awslocal", .fx = LK_FX_SERVICE, .pack = LK_PACK_CLOUD},
    {.name = "bq", .fx = LK_FX_SERVICE, .pack = LK_PACK_CLOUD},
    {.name = "bw", .fx = LK_FX_SERVICE, .pack = LK_PACK_SECRETS},
    {.name = "chage", .fx = LK_FX_SYSTEM, .pack = LK_PACK_PRIVILEGE},
    {.name = "chkconfig", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "chpasswd", .fx = LK_FX_SYSTEM, .pack = LK_PACK_PRIVILEGE},
    {.name = "chsh", .fx = LK_FX_SYSTEM, .pack = LK_PACK_PRIVILEGE},
    {.name = "clickhouse", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "clickhouse-client", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "cockroach", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "cqlsh", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "docker-compose", .net_subs = net_subs_docker_compose, .fx = LK_FX_CONTAINERS, .pack = LK_PACK_CONTAINERS},
    {.name = "doctl", .fx = LK_FX_SERVICE, .pack = LK_PACK_CLOUD},
    {.name = "doppler", .fx = LK_FX_SERVICE, .pack = LK_PACK_SECRETS},
    {.name = "dropdb", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "dropuser", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "duckdb", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "echo", .fx = LK_FX_READ, .pack = LK_PACK_SECRETS},
    {.name = "firewall-cmd", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "flit", .fx = LK_FX_PACKAGES, .pack = LK_PACK_PLATFORMS},
    {.name = "fly", .fx = LK_FX_SERVICE, .pack = LK_PACK_CLOUD},
    {.name = "flyctl", .fx = LK_FX_SERVICE, .pack = LK_PACK_CLOUD},
    {.name = "gem", .net_subs = net_subs_gem, .fx = LK_FX_PACKAGES, .pack = LK_PACK_PLATFORMS},
    {.name = "git-branch", .fx = LK_FX_VCS, .pack = LK_PACK_GIT},
    {.name = "git-checkout-index", .fx = LK_FX_VCS, .pack = LK_PACK_GIT},
    {.name = "git-credential-cache", .fx = LK_FX_VCS, .pack = LK_PACK_GIT},
    {.name = "git-credential-store", .fx = LK_FX_VCS, .pack = LK_PACK_GIT},
    {.name = "git-filter-branch", .fx = LK_FX_VCS, .pack = LK_PACK_GIT},
    {.name = "git-filter-repo", .fx = LK_FX_VCS, .pack = LK_PACK_GIT},
    {.name = "git-read-tree", .fx = LK_FX_VCS, .pack = LK_PACK_GIT},
    {.name = "glab", .fx = LK_FX_SERVICE, .pack = LK_PACK_PLATFORMS},
    {.name = "gopass", .fx = LK_FX_SECRETS, .pack = LK_PACK_SECRETS},
    {.name = "gpasswd", .fx = LK_FX_SYSTEM, .pack = LK_PACK_PRIVILEGE},
    {.name = "gpg2", .net_subs = net_subs_gpg2, .fx = LK_FX_SECRETS, .unseen_opts = unseen_opts_gpg2, .value_runs = value_runs_gpg2, .pack = LK_PACK_SECRETS},
    {.name = "gradle", .fx = LK_FX_BUILD, .pack = LK_PACK_PLATFORMS},
    {.name = "gradlew", .fx = LK_FX_BUILD, .pack = LK_PACK_PLATFORMS},
    {.name = "groupmod", .fx = LK_FX_SYSTEM, .pack = LK_PACK_PRIVILEGE},
    {.name = "gsutil", .fx = LK_FX_SERVICE, .pack = LK_PACK_CLOUD},
    {.name = "hatch", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|run|"), .pack = LK_PACK_PLATFORMS},
    {.name = "hcloud", .fx = LK_FX_SERVICE, .pack = LK_PACK_CLOUD},
    {.name = "heroku", .fx = LK_FX_SERVICE, .pack = LK_PACK_CLOUD},
    {.name = "hub", .fx = LK_FX_SERVICE, .pack = LK_PACK_PLATFORMS},
    {.name = "infisical", .fx = LK_FX_SERVICE, .pack = LK_PACK_SECRETS},
    {.name = "influx", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "ip6tables", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "ip6tables-restore", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "iptables", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "iptables-legacy", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "iptables-nft", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "iptables-restore", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "k3d", .fx = LK_FX_CONTAINERS, .pack = LK_PACK_KUBERNETES},
    {.name = "k3s", .fx = LK_FX_SERVICE, .pack = LK_PACK_KUBERNETES},
    {.name = "keepassxc-cli", .fx = LK_FX_SECRETS, .pack = LK_PACK_SECRETS},
    {.name = "keydb-cli", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "killall", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "killall5", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "kind", .fx = LK_FX_CONTAINERS, .pack = LK_PACK_KUBERNETES},
    {.name = "kubecolor", .fx = LK_FX_SERVICE, .pack = LK_PACK_KUBERNETES},
    {.name = "launchctl", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "linode-cli", .fx = LK_FX_SERVICE, .pack = LK_PACK_CLOUD},
    {.name = "lpass", .fx = LK_FX_SERVICE, .pack = LK_PACK_SECRETS},
    {.name = "mariadb", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "mariadb-admin", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "microk8s", .fx = LK_FX_SERVICE, .pack = LK_PACK_KUBERNETES},
    {.name = "minikube", .fx = LK_FX_CONTAINERS, .pack = LK_PACK_KUBERNETES},
    {.name = "mongo", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "mongorestore", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "mongosh", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "mvn", .net_subs = net_subs_mvn, .fx = LK_FX_BUILD, .pack = LK_PACK_PLATFORMS},
    {.name = "mvnw", .net_subs = net_subs_mvnw, .fx = LK_FX_BUILD, .pack = LK_PACK_PLATFORMS},
    {.name = "mysql", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "mysqladmin", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "nerdctl", .net_subs = net_subs_nerdctl, .fx = LK_FX_CONTAINERS, .pack = LK_PACK_CONTAINERS},
    {.name = "netlify", .fx = LK_FX_SERVICE, .pack = LK_PACK_SECRETS},
    {.name = "nft", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "oc", .fx = LK_FX_SERVICE, .pack = LK_PACK_KUBERNETES},
    {.name = "oci", .fx = LK_FX_SERVICE, .pack = LK_PACK_CLOUD},
    {.name = "op", .fx = LK_FX_SERVICE, .pack = LK_PACK_SECRETS},
    {.name = "opentofu", .fx = LK_FX_SERVICE, .pack = LK_PACK_INFRASTRUCTURE},
    {.name = "pass", .fx = LK_FX_SECRETS, .pack = LK_PACK_SECRETS},
    {.name = "passwd", .fx = LK_FX_SYSTEM, .pack = LK_PACK_PRIVILEGE},
    {.name = "pdm", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|run|"), .pack = LK_PACK_PLATFORMS},
    {.name = "pg_dropcluster", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "pg_restore", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "pg_dump", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "pkill", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "podman-compose", .net_subs = net_subs_podman_compose, .fx = LK_FX_CONTAINERS, .pack = LK_PACK_CONTAINERS},
    {.name = "printenv", .fx = LK_FX_READ, .pack = LK_PACK_SECRETS},
    {.name = "printf", .fx = LK_FX_READ, .pack = LK_PACK_SECRETS},
    {.name = "ps", .read_opts = &ro_ps, .fx = LK_FX_READ, .pack = LK_PACK_SECRETS},
    {.name = "psql", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "pulumi", .fx = LK_FX_SERVICE, .pack = LK_PACK_INFRASTRUCTURE},
    {.name = "rc-update", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "redis-cli", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "scw", .fx = LK_FX_SERVICE, .pack = LK_PACK_CLOUD},
    {.name = "security", .fx = LK_FX_SECRETS, .pack = LK_PACK_SECRETS},
    {.name = "service", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "setcap", .fx = LK_FX_SYSTEM, .pack = LK_PACK_PRIVILEGE},
    {.name = "snowsql", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "sops", .fx = LK_FX_SECRETS, .pack = LK_PACK_SECRETS},
    {.name = "sqlcmd", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "sqlite", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "sqlite3", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "ssh-copy-id", .fx = LK_FX_NETWORK, .pack = LK_PACK_PERSISTENCE},
    {.name = "sudoedit", .fx = LK_FX_SYSTEM, .pack = LK_PACK_PERSISTENCE},
    {.name = "terragrunt", .fx = LK_FX_SERVICE, .pack = LK_PACK_INFRASTRUCTURE},
    {.name = "twine", .fx = LK_FX_SERVICE, .pack = LK_PACK_PLATFORMS},
    {.name = "ufw", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "update-rc.d", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "useradd", .fx = LK_FX_SYSTEM, .pack = LK_PACK_PRIVILEGE},
    {.name = "usermod", .fx = LK_FX_SYSTEM, .pack = LK_PACK_PRIVILEGE},
    {.name = "usql", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "valkey-cli", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "vault", .fx = LK_FX_SERVICE, .pack = LK_PACK_CLOUD},
    {.name = "vercel", .fx = LK_FX_SERVICE, .pack = LK_PACK_SECRETS},
    {.name = "visudo", .fx = LK_FX_SYSTEM, .pack = LK_PACK_PERSISTENCE},
    {.name = "vultr-cli", .fx = LK_FX_SERVICE, .pack = LK_PACK_CLOUD},

    /* ---- the long tail: programs agents run, with their effect class;
       a program that runs commands named in its arguments (gdb, vim,
       nodemon, concurrently, cross-env) is left out: unknown, held ---- */
    /* read-only: they read and print (the labeller's read-only list and its argument rules, system and file inspection) */
    {.name = "[", .fx = LK_FX_READ},
    {.name = "[[", .fx = LK_FX_READ},
    {.name = "ack", .read_opts = &ro_ack, .fx = LK_FX_READ},
    {.name = "ag", .read_opts = &ro_ag, .fx = LK_FX_READ},
    {.name = "arch", .read_opts = &ro_arch, .fx = LK_FX_READ},
    {.name = "b2sum", .read_opts = &ro_b2sum, .fx = LK_FX_READ},
    {.name = "basename", .fx = LK_FX_READ},
    {.name = "bat", .read_opts = &ro_bat, .fx = LK_FX_READ},
    {.name = "batcat", .read_opts = &ro_bat, .fx = LK_FX_READ},
    {.name = "btop", .fx = LK_FX_READ},
    {.name = "cal", .fx = LK_FX_READ},
    {.name = "caller", .read_opts = &ro_operands, .fx = LK_FX_READ},
    {.name = "cat", .fx = LK_FX_READ},
    {.name = "cd", .fx = LK_FX_READ},
    {.name = "cksum", .read_opts = &ro_cksum, .fx = LK_FX_READ},
    {.name = "clear", .fx = LK_FX_READ},
    {.name = "cloc", .fx = LK_FX_READ},
    {.name = "cmp", .fx = LK_FX_READ},
    {.name = "colordiff", .fx = LK_FX_READ},
    {.name = "column", .fx = LK_FX_READ},
    {.name = "comm", .fx = LK_FX_READ},
    {.name = "cut", .fx = LK_FX_READ},
    {.name = "date", .fx = LK_FX_READ},
    {.name = "delta", .fx = LK_FX_READ},
    {.name = "df", .fx = LK_FX_READ},
    {.name = "diff", .fx = LK_FX_READ},
    {.name = "diff3", .fx = LK_FX_READ},
    {.name = "dig", .fx = LK_FX_READ, .cls = LK_NETWORK, .net = "dig asks a server on the network (a DNS name can carry data out)"},
    {.name = "dir", .fx = LK_FX_READ},
    {.name = "dirname", .fx = LK_FX_READ},
    {.name = "dirs", .fx = LK_FX_READ},
    {.name = "dmesg", .read_opts = &ro_dmesg, .fx = LK_FX_READ},
    {.name = "du", .fx = LK_FX_READ},
    {.name = "egrep", .read_opts = &ro_egrep, .fx = LK_FX_READ},
    {.name = "exa", .fx = LK_FX_READ},
    {.name = "expand", .fx = LK_FX_READ},
    {.name = "expr", .read_opts = &ro_operands, .fx = LK_FX_READ},
    {.name = "eza", .fx = LK_FX_READ},
    {.name = "factor", .read_opts = &ro_operands, .fx = LK_FX_READ},
    {.name = "fgrep", .read_opts = &ro_egrep, .fx = LK_FX_READ},
    {.name = "file", .fx = LK_FX_READ},
    {.name = "findmnt", .read_opts = &ro_findmnt, .fx = LK_FX_READ},
    {.name = "fmt", .fx = LK_FX_READ},
    {.name = "fold", .fx = LK_FX_READ},
    {.name = "free", .read_opts = &ro_free, .fx = LK_FX_READ},
    {.name = "getconf", .read_opts = &ro_getconf, .fx = LK_FX_READ},
    {.name = "getfacl", .fx = LK_FX_READ},
    {.name = "grep", .fx = LK_FX_READ},
    {.name = "gron", .fx = LK_FX_READ, .net_subs = net_subs_gron},
    {.name = "groups", .read_opts = &ro_arch, .fx = LK_FX_READ},
    {.name = "hash", .read_opts = &ro_hash, .fx = LK_FX_READ},
    {.name = "head", .fx = LK_FX_READ},
    {.name = "hexdump", .fx = LK_FX_READ},
    {.name = "history", .fx = LK_FX_READ},
    {.name = "host", .fx = LK_FX_READ, .cls = LK_NETWORK, .net = "host asks a server on the network (a DNS name can carry data out)"},
    {.name = "htop", .fx = LK_FX_READ},
    {.name = "id", .fx = LK_FX_READ},
    {.name = "iostat", .read_opts = &ro_iostat, .fx = LK_FX_READ},
    {.name = "jobs", .fx = LK_FX_READ},
    {.name = "join", .fx = LK_FX_READ},
    {.name = "jq", .fx = LK_FX_READ},
    {.name = "last", .read_opts = &ro_last, .fx = LK_FX_READ},
    {.name = "lastlog", .read_opts = &ro_lastlog, .fx = LK_FX_READ},
    {.name = "ldd", .read_opts = &ro_ldd, .fx = LK_FX_READ},
    {.name = "locale", .read_opts = &ro_locale, .fx = LK_FX_READ},
    {.name = "logname", .read_opts = &ro_arch, .fx = LK_FX_READ},
    {.name = "ls", .fx = LK_FX_READ},
    {.name = "lsattr", .fx = LK_FX_READ},
    {.name = "lsb_release", .read_opts = &ro_lsb_release, .fx = LK_FX_READ},
    {.name = "lsblk", .read_opts = &ro_lsblk, .fx = LK_FX_READ},
    {.name = "lscpu", .read_opts = &ro_lscpu, .fx = LK_FX_READ},
    {.name = "lsd", .fx = LK_FX_READ},
    {.name = "lsmod", .read_opts = &ro_arch, .fx = LK_FX_READ},
    {.name = "lsof", .read_opts = &ro_lsof, .fx = LK_FX_READ},
    {.name = "lspci", .read_opts = &ro_lspci, .fx = LK_FX_READ},
    {.name = "lsusb", .read_opts = &ro_lsusb, .fx = LK_FX_READ},
    {.name = "md5", .fx = LK_FX_READ},
    {.name = "md5sum", .fx = LK_FX_READ},
    {.name = "mpstat", .read_opts = &ro_mpstat, .fx = LK_FX_READ},
    {.name = "namei", .fx = LK_FX_READ},
    {.name = "netstat", .read_opts = &ro_netstat, .fx = LK_FX_READ},
    {.name = "nl", .fx = LK_FX_READ},
    {.name = "nm", .read_opts = &ro_nm, .fx = LK_FX_READ},
    {.name = "nproc", .read_opts = &ro_nproc, .fx = LK_FX_READ},
    {.name = "nslookup", .fx = LK_FX_READ, .cls = LK_NETWORK, .net = "nslookup asks a server on the network (a DNS name can carry data out)"},
    {.name = "numfmt", .fx = LK_FX_READ},
    {.name = "objdump", .read_opts = &ro_objdump, .fx = LK_FX_READ},
    {.name = "paste", .fx = LK_FX_READ},
    {.name = "popd", .fx = LK_FX_READ},
    {.name = "pr", .fx = LK_FX_READ},
    {.name = "pstree", .read_opts = &ro_pstree, .fx = LK_FX_READ},
    {.name = "pushd", .fx = LK_FX_READ},
    {.name = "pwd", .fx = LK_FX_READ},
    {.name = "readelf", .read_opts = &ro_readelf, .fx = LK_FX_READ},
    {.name = "readlink", .fx = LK_FX_READ},
    {.name = "realpath", .fx = LK_FX_READ},
    {.name = "reset", .fx = LK_FX_READ},
    {.name = "rg", .fx = LK_FX_READ},
    {.name = "scc", .fx = LK_FX_READ},
    {.name = "sdiff", .fx = LK_FX_READ},
    {.name = "seq", .fx = LK_FX_READ},
    {.name = "sha1sum", .fx = LK_FX_READ},
    {.name = "sha224sum", .read_opts = &ro_sha224sum, .fx = LK_FX_READ},
    {.name = "sha256sum", .fx = LK_FX_READ},
    {.name = "sha384sum", .read_opts = &ro_sha224sum, .fx = LK_FX_READ},
    {.name = "sha512sum", .read_opts = &ro_sha224sum, .fx = LK_FX_READ},
    {.name = "shasum", .read_opts = &ro_shasum, .fx = LK_FX_READ},
    {.name = "shuf", .fx = LK_FX_READ},
    {.name = "size", .read_opts = &ro_size, .fx = LK_FX_READ},
    {.name = "sort", .fx = LK_FX_READ},
    {.name = "ss", .read_opts = &ro_ss, .fx = LK_FX_READ},
    {.name = "stat", .fx = LK_FX_READ},
    {.name = "strings", .fx = LK_FX_READ},
    {.name = "sum", .read_opts = &ro_sum, .fx = LK_FX_READ},
    {.name = "sw_vers", .fx = LK_FX_READ},
    {.name = "tac", .fx = LK_FX_READ},
    {.name = "tail", .fx = LK_FX_READ},
    {.name = "test", .fx = LK_FX_READ},
    {.name = "times", .read_opts = &ro_operands, .fx = LK_FX_READ},
    {.name = "tokei", .fx = LK_FX_READ},
    {.name = "top", .read_opts = &ro_top, .fx = LK_FX_READ},
    {.name = "tput", .read_opts = &ro_tput, .fx = LK_FX_READ},
    {.name = "tree", .fx = LK_FX_READ, .writes_letters = "o"},
    {.name = "tsort", .fx = LK_FX_READ},
    {.name = "tty", .read_opts = &ro_tty, .fx = LK_FX_READ},
    {.name = "type", .fx = LK_FX_READ},
    {.name = "ugrep", .fx = LK_FX_READ},
    {.name = "uname", .fx = LK_FX_READ},
    {.name = "unexpand", .fx = LK_FX_READ},
    {.name = "uniq", .fx = LK_FX_READ},
    {.name = "uptime", .read_opts = &ro_uptime, .fx = LK_FX_READ},
    {.name = "users", .read_opts = &ro_arch, .fx = LK_FX_READ},
    {.name = "vdir", .fx = LK_FX_READ},
    {.name = "vmstat", .read_opts = &ro_vmstat, .fx = LK_FX_READ},
    {.name = "w", .read_opts = &ro_w, .fx = LK_FX_READ},
    {.name = "wc", .fx = LK_FX_READ},
    {.name = "wdiff", .fx = LK_FX_READ},
    {.name = "who", .read_opts = &ro_who, .fx = LK_FX_READ},
    {.name = "whoami", .fx = LK_FX_READ},
    {.name = "whois", .fx = LK_FX_READ, .cls = LK_NETWORK, .net = "whois asks a server on the network (a DNS name can carry data out)"},
    {.name = "xmllint", .fx = LK_FX_READ, .net_subs = net_subs_xmllint},
    {.name = "yes", .read_opts = &ro_operands, .fx = LK_FX_READ},
    {.name = "yq", .read_opts = &ro_yq, .fx = LK_FX_READ},
    /* local files and shell state: write, move, archive, convert files in place; shell builtins */
    {.name = "alias", .fx = LK_FX_FILES},
    {.name = "bg", .fx = LK_FX_FILES},
    {.name = "compgen", .fx = LK_FX_FILES},
    {.name = "complete", .fx = LK_FX_FILES},
    {.name = "convert", .fx = LK_FX_FILES, .net_subs = net_subs_convert},
    {.name = "csplit", .fx = LK_FX_FILES},
    {.name = "disown", .fx = LK_FX_FILES},
    {.name = "dos2unix", .fx = LK_FX_FILES},
    {.name = "ffmpeg", .fx = LK_FX_FILES, .net_subs = net_subs_ffmpeg},
    {.name = "ffprobe", .fx = LK_FX_FILES, .net_subs = net_subs_ffprobe},
    {.name = "fg", .fx = LK_FX_FILES},
    {.name = "getopts", .fx = LK_FX_FILES},
    {.name = "let", .fx = LK_FX_FILES},
    {.name = "magick", .fx = LK_FX_FILES, .net_subs = net_subs_magick},
    {.name = "mapfile", .fx = LK_FX_FILES},
    {.name = "mktemp", .fx = LK_FX_FILES},
    {.name = "pandoc", .fx = LK_FX_FILES, .unseen_opts = unseen_opts_pandoc, .net_subs = net_subs_pandoc},
    {.name = "rar", .fx = LK_FX_FILES},
    {.name = "readarray", .fx = LK_FX_FILES},
    {.name = "split", .unseen_opts = unseen_opts_split, .fx = LK_FX_FILES},
    {.name = "sqlfluff-fix", .fx = LK_FX_FILES},
    {.name = "ulimit", .fx = LK_FX_FILES},
    {.name = "unalias", .fx = LK_FX_FILES},
    {.name = "unix2dos", .fx = LK_FX_FILES},
    {.name = "zip", .fx = LK_FX_FILES, .unseen_opts = unseen_opts_zip, .delete_opts = delete_opts_zip,
     .patterns = "|-x|-i|--exclude|--include|", .pattern_lists = true},
    {.name = "zipinfo", .fx = LK_FX_FILES},
    /* local build, test, lint, format: compilers, linkers, linters, formatters, test runners */
    {.name = "actionlint", .fx = LK_FX_BUILD},
    {.name = "as", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_as},
    {.name = "autopep8", .fx = LK_FX_BUILD},
    {.name = "ava", .fx = LK_FX_BUILD},
    {.name = "babel", .fx = LK_FX_BUILD},
    {.name = "bandit", .fx = LK_FX_BUILD},
    {.name = "bats", .fx = LK_FX_BUILD},
    {.name = "bear", .fx = LK_FX_BUILD, .cls = LK_WRAPPER, .opts = OPTS(.longs = "output:-1|append:-0|config:-1|force-preload:-0|force-wrapper:-0|verbose:-0")},
    {.name = "biome", .fx = LK_FX_BUILD},
    {.name = "black", .checks = "|*|", .fx = LK_FX_BUILD},
    {.name = "buf", .fx = LK_FX_BUILD, .net_subs = net_subs_buf},
    {.name = "c++", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_cxx, .value_runs = value_runs_cxx},
    {.name = "cargo-clippy", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_cargo_clippy},
    {.name = "cc", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_cc, .value_runs = value_runs_cc, .names = LK_VERSIONED},
    {.name = "ccache", .fx = LK_FX_BUILD, .cls = LK_WRAPPER, .opts = OPTS(.short_flag = "cCpsVxz", .short_val = "dkoMFX", .flags = LK_OPT_ASSIGNS)},
    {.name = "clang", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_clang, .value_runs = value_runs_clang, .names = LK_VERSIONED},
    {.name = "clang++", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_clangxx, .value_runs = value_runs_clangxx, .names = LK_VERSIONED},
    {.name = "clang-format", .fx = LK_FX_BUILD, .names = LK_VERSIONED},
    {.name = "clang-tidy", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_clang_tidy, .compiler_args = "clang", .arg_opts = "|-extra-arg|-extra-arg-before|", .names = LK_VERSIONED},
    {.name = "clangd", .fx = LK_FX_BUILD, .names = LK_VERSIONED},
    {.name = "clippy-driver", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_clippy_driver},
    {.name = "codespell", .fx = LK_FX_BUILD},
    {.name = "coverage", .fx = LK_FX_BUILD},
    {.name = "cpp", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_cpp, .value_runs = value_runs_cpp, .names = LK_VERSIONED},
    {.name = "cppcheck", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_cppcheck},
    {.name = "crystal", .fx = LK_FX_BUILD},
    {.name = "cspell", .fx = LK_FX_BUILD},
    {.name = "ctest", .unseen_opts = unseen_opts_ctest, .checks = "|*|", .fx = LK_FX_BUILD},
    {.name = "cypress", .fx = LK_FX_BUILD},
    {.name = "detekt", .fx = LK_FX_BUILD},
    {.name = "doxygen", .fx = LK_FX_BUILD},
    {.name = "dune", .fx = LK_FX_BUILD, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|exec|", .short_flag = "w", .longs = "root:-1|profile:-1|build-dir:-1|watch:w0|display:-1|no-build:-0|context:-1|release:-0|cache:-1")},
    {.name = "esbuild", .fx = LK_FX_BUILD},
    {.name = "eslint", .checks = "|*|", .fx = LK_FX_BUILD},
    {.name = "flake8", .checks = "|*|", .fx = LK_FX_BUILD},
    {.name = "flatc", .fx = LK_FX_BUILD},
    {.name = "g++", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_gxx, .value_runs = value_runs_gxx, .names = LK_VERSIONED},
    {.name = "gcc", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_gcc, .value_runs = value_runs_gcc, .names = LK_VERSIONED},
    {.name = "gcov", .fx = LK_FX_BUILD},
    {.name = "gcovr", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_gcovr},
    {.name = "gfortran", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_gfortran, .value_runs = value_runs_gfortran, .names = LK_VERSIONED},
    {.name = "ghc", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_ghc},
    {.name = "gofmt", .fx = LK_FX_BUILD},
    {.name = "goimports", .fx = LK_FX_BUILD},
    {.name = "golangci-lint", .fx = LK_FX_BUILD},
    {.name = "gold", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_gold},
    {.name = "golint", .fx = LK_FX_BUILD},
    {.name = "gotestsum", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_gotestsum},
    {.name = "hadolint", .fx = LK_FX_BUILD},
    {.name = "hlint", .fx = LK_FX_BUILD},
    {.name = "hugo", .fx = LK_FX_BUILD},
    {.name = "include-what-you-use", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_iwyu_long, .value_runs = value_runs_iwyu_long},
    {.name = "isort", .fx = LK_FX_BUILD},
    {.name = "iwyu", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_iwyu, .value_runs = value_runs_iwyu},
    {.name = "jar", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_jar},
    {.name = "javac", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_javac},
    {.name = "jest", .checks = "|*|", .fx = LK_FX_BUILD},
    {.name = "jsdoc", .fx = LK_FX_BUILD},
    {.name = "karma", .fx = LK_FX_BUILD},
    {.name = "kotlinc", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_kotlinc},
    {.name = "ktlint", .fx = LK_FX_BUILD},
    {.name = "kube-linter", .fx = LK_FX_BUILD},
    {.name = "kubeconform", .fx = LK_FX_BUILD},
    {.name = "lcov", .fx = LK_FX_BUILD},
    {.name = "ld", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_ld},
    {.name = "ld.gold", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_ld_gold},
    {.name = "ld.lld", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_ld_lld, .names = LK_VERSIONED},
    {.name = "lessc", .fx = LK_FX_BUILD},
    {.name = "lld", .fx = LK_FX_BUILD, .names = LK_VERSIONED},
    {.name = "llvm-cov", .fx = LK_FX_BUILD, .names = LK_VERSIONED},
    {.name = "llvm-profdata", .fx = LK_FX_BUILD, .names = LK_VERSIONED},
    {.name = "markdownlint", .fx = LK_FX_BUILD},
    {.name = "markdownlint-cli2", .fx = LK_FX_BUILD},
    {.name = "mdbook", .fx = LK_FX_BUILD},
    {.name = "mdformat", .fx = LK_FX_BUILD},
    {.name = "mkdocs", .net_subs = net_subs_mkdocs, .fx = LK_FX_BUILD},
    {.name = "mocha", .fx = LK_FX_BUILD},
    {.name = "mypy", .checks = "|*|", .fx = LK_FX_BUILD},
    {.name = "nasm", .fx = LK_FX_BUILD},
    {.name = "nim", .fx = LK_FX_BUILD},
    {.name = "ninja", .fx = LK_FX_BUILD},
    {.name = "objcopy", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_objcopy},
    {.name = "ocamlfind", .fx = LK_FX_BUILD},
    {.name = "ormolu", .fx = LK_FX_BUILD},
    {.name = "oxlint", .fx = LK_FX_BUILD},
    {.name = "parcel", .fx = LK_FX_BUILD},
    {.name = "php-cs-fixer", .fx = LK_FX_BUILD},
    {.name = "phpcs", .fx = LK_FX_BUILD},
    {.name = "phpstan", .fx = LK_FX_BUILD},
    {.name = "phpunit", .fx = LK_FX_BUILD},
    {.name = "playwright", .fx = LK_FX_BUILD, .net_subs = net_subs_playwright},
    {.name = "postcss", .fx = LK_FX_BUILD},
    {.name = "prettier", .checks = "|*|", .fx = LK_FX_BUILD},
    {.name = "protoc", .fx = LK_FX_BUILD},
    {.name = "psalm", .fx = LK_FX_BUILD},
    {.name = "py.test", .checks = "|*|", .fx = LK_FX_BUILD},
    {.name = "pycodestyle", .fx = LK_FX_BUILD},
    {.name = "pydocstyle", .fx = LK_FX_BUILD},
    {.name = "pyflakes", .fx = LK_FX_BUILD},
    {.name = "pylint", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_pylint},
    {.name = "pyright", .checks = "|*|", .fx = LK_FX_BUILD},
    {.name = "pytest", .checks = "|*|", .fx = LK_FX_BUILD, .delete_opts = delete_opts_pytest},
    {.name = "ranlib", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_ranlib},
    {.name = "revive", .fx = LK_FX_BUILD},
    {.name = "rollup", .fx = LK_FX_BUILD},
    {.name = "rspec", .fx = LK_FX_BUILD},
    {.name = "rubocop", .fx = LK_FX_BUILD},
    {.name = "ruff", .checks = "|*|", .fx = LK_FX_BUILD},
    {.name = "rustc", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_rustc},
    {.name = "rustfmt", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_rustfmt},
    {.name = "sass", .fx = LK_FX_BUILD},
    {.name = "scalac", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_scalac},
    {.name = "sccache", .fx = LK_FX_BUILD, .cls = LK_WRAPPER, .opts = OPTS(.short_flag = "szC", .longs = "show-stats:s0|show-adv-stats:-0|zero-stats:z0|start-server:-0|stop-server:-0|dist-status:-0|dist-auth:-0|clear-cache:C0")},
    {.name = "shellcheck", .fx = LK_FX_BUILD},
    {.name = "shfmt", .fx = LK_FX_BUILD},
    {.name = "sphinx-build", .fx = LK_FX_BUILD},
    {.name = "standardrb", .fx = LK_FX_BUILD},
    {.name = "staticcheck", .fx = LK_FX_BUILD},
    {.name = "strip", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_strip},
    {.name = "stylelint", .fx = LK_FX_BUILD},
    {.name = "swc", .fx = LK_FX_BUILD},
    {.name = "swiftc", .fx = LK_FX_BUILD},
    {.name = "swiftformat", .fx = LK_FX_BUILD},
    {.name = "swiftlint", .fx = LK_FX_BUILD},
    {.name = "tailwindcss", .fx = LK_FX_BUILD},
    {.name = "tap", .fx = LK_FX_BUILD},
    {.name = "terser", .fx = LK_FX_BUILD},
    {.name = "tflint", .fx = LK_FX_BUILD},
    {.name = "tsc", .checks = "|*|", .fx = LK_FX_BUILD},
    {.name = "typedoc", .fx = LK_FX_BUILD},
    {.name = "uglifyjs", .fx = LK_FX_BUILD},
    {.name = "vale", .net_subs = net_subs_vale, .fx = LK_FX_BUILD},
    {.name = "vite", .fx = LK_FX_BUILD},
    {.name = "vitest", .checks = "|*|", .fx = LK_FX_BUILD},
    {.name = "webpack", .fx = LK_FX_BUILD},
    {.name = "yamllint", .fx = LK_FX_BUILD},
    {.name = "yapf", .fx = LK_FX_BUILD},
    {.name = "yasm", .fx = LK_FX_BUILD},
    {.name = "zig", .fx = LK_FX_BUILD, .net_subs = net_subs_zig},
    /* runs workspace code: build systems and task runners run the project's own files */
    {.name = "alembic", .fx = LK_FX_WORKSPACE},
    {.name = "ant", .fx = LK_FX_WORKSPACE},
    {.name = "astro", .fx = LK_FX_WORKSPACE},
    {.name = "bazel", .fx = LK_FX_WORKSPACE},
    {.name = "bazelisk", .fx = LK_FX_WORKSPACE},
    {.name = "buck2", .fx = LK_FX_WORKSPACE},
    {.name = "cabal", .net_subs = net_subs_cabal, .own_subs = LK_CABAL_SUBS, .fx = LK_FX_WORKSPACE},
    {.name = "celery", .fx = LK_FX_WORKSPACE},
    {.name = "cmake",
     .fx = LK_FX_WORKSPACE,
     .run_subs = run_subs_cmake,
     .defines = "-D",
     .destroys = "cmake -E remove, remove_directory and rm delete files",
     .destroys_by = &destroys_cmake},
    {.name = "dart", .net_subs = net_subs_dart, .fx = LK_FX_WORKSPACE},
    {.name = "django-admin", .fx = LK_FX_WORKSPACE},
    {.name = "flask", .fx = LK_FX_WORKSPACE},
    /* python -m NAME: the standard library's web servers listen on every
       interface by default and serve the folder */
    {.name = "http.server", .cls = LK_NETWORK,
     .net = "python -m http.server serves the folder on a network port"},
    {.name = "SimpleHTTPServer", .cls = LK_NETWORK,
     .net = "python -m SimpleHTTPServer serves the folder on a network port"},
    {.name = "CGIHTTPServer", .cls = LK_NETWORK,
     .net = "python -m CGIHTTPServer serves the folder on a network port"},
    {.name = "wsgiref.simple_server", .cls = LK_NETWORK,
     .net = "python -m wsgiref.simple_server serves on a network port"},
    {.name = "xmlrpc.server", .cls = LK_NETWORK,
     .net = "python -m xmlrpc.server serves on a network port"},
    {.name = "smtpd", .cls = LK_NETWORK,
     .net = "python -m smtpd serves on a network port"},
    /* the standard library's clients with a command line of their own */
    {.name = "ftplib", .cls = LK_NETWORK, .net = "python -m ftplib reaches the network"},
    {.name = "telnetlib", .cls = LK_NETWORK, .net = "python -m telnetlib reaches the network"},
    {.name = "smtplib", .cls = LK_NETWORK, .net = "python -m smtplib sends mail"},
    {.name = "poplib", .cls = LK_NETWORK, .net = "python -m poplib reaches the network"},
    {.name = "imaplib", .cls = LK_NETWORK, .net = "python -m imaplib reaches the network"},
    {.name = "nntplib", .cls = LK_NETWORK, .net = "python -m nntplib reaches the network"},
    {.name = "webbrowser", .cls = LK_NETWORK, .net = "python -m webbrowser opens a URL in a browser"},
    /* pydoc -p/-b/-n serves documentation, importing modules on request */
    {.name = "pydoc", .fx = LK_FX_WORKSPACE, .names = LK_VERSIONED, .net_subs = net_subs_pydoc},
    {.name = "flutter", .net_subs = net_subs_flutter, .fx = LK_FX_WORKSPACE},
    {.name = "gunicorn", .fx = LK_FX_WORKSPACE},
    {.name = "hypercorn", .fx = LK_FX_WORKSPACE},
    {.name = "invoke", .fx = LK_FX_WORKSPACE},
    {.name = "jupyter", .fx = LK_FX_WORKSPACE},
    {.name = "just", .fx = LK_FX_WORKSPACE},
    {.name = "lein", .fx = LK_FX_WORKSPACE},
    {.name = "lerna", .fx = LK_FX_WORKSPACE},
    {.name = "mage", .fx = LK_FX_WORKSPACE},
    {.name = "manage", .fx = LK_FX_WORKSPACE},
    {.name = "meson", .unseen_opts = unseen_opts_meson, .run_subs = run_subs_meson, .net_subs = net_subs_meson, .checks = "|test|", .fx = LK_FX_WORKSPACE, .defines = "-D"},
    {.name = "mix", .net_subs = net_subs_mix, .fx = LK_FX_WORKSPACE},
    {.name = "next", .fx = LK_FX_WORKSPACE},
    {.name = "ng", .fx = LK_FX_WORKSPACE},
    {.name = "nox", .checks = "|*|", .fx = LK_FX_WORKSPACE},
    {.name = "nuxt", .fx = LK_FX_WORKSPACE},
    {.name = "nx", .fx = LK_FX_WORKSPACE},
    {.name = "pants", .fx = LK_FX_WORKSPACE},
    {.name = "rails", .fx = LK_FX_WORKSPACE},
    {.name = "rake", .fx = LK_FX_WORKSPACE, .unseen_opts = unseen_opts_rake},
    {.name = "react-scripts", .fx = LK_FX_WORKSPACE},
    {.name = "rebar3", .fx = LK_FX_WORKSPACE},
    {.name = "sbt", .net_subs = net_subs_sbt, .fx = LK_FX_WORKSPACE},
    {.name = "scons", .fx = LK_FX_WORKSPACE},
    {.name = "stack", .fx = LK_FX_WORKSPACE},
    {.name = "storybook", .fx = LK_FX_WORKSPACE},
    {.name = "streamlit", .fx = LK_FX_WORKSPACE},
    {.name = "swift", .net_subs = net_subs_swift, .fx = LK_FX_WORKSPACE},
    {.name = "task", .fx = LK_FX_WORKSPACE},
    {.name = "tox", .checks = "|*|", .fx = LK_FX_WORKSPACE},
    {.name = "turbo", .fx = LK_FX_WORKSPACE},
    {.name = "uvicorn", .fx = LK_FX_WORKSPACE},
    {.name = "vue-cli-service", .fx = LK_FX_WORKSPACE},
    {.name = "xcodebuild", .fx = LK_FX_WORKSPACE},
    /* package and language version managers (installs reach the network by the subcommand table) */
    {.name = "bundle", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|exec|")},
    {.name = "bundler", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|exec|")},
    {.name = "carthage", .fx = LK_FX_PACKAGES},
    {.name = "composer", .fx = LK_FX_PACKAGES},
    {.name = "conan", .fx = LK_FX_PACKAGES},
    {.name = "corepack", .fx = LK_FX_PACKAGES},
    {.name = "cpan", .fx = LK_FX_PACKAGES},
    {.name = "cpanm", .fx = LK_FX_PACKAGES},
    {.name = "create-react-app", .fx = LK_FX_PACKAGES},
    {.name = "create-vite", .fx = LK_FX_PACKAGES},
    {.name = "fnm", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|exec|")},
    {.name = "goenv", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|exec|")},
    {.name = "jenv", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|exec|")},
    {.name = "luarocks", .fx = LK_FX_PACKAGES},
    {.name = "maturin", .fx = LK_FX_PACKAGES},
    {.name = "micromamba", .fx = LK_FX_PACKAGES},
    {.name = "mise", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|exec|x|")},
    {.name = "nimble", .fx = LK_FX_PACKAGES},
    {.name = "nodenv", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|exec|")},
    {.name = "nuget", .fx = LK_FX_PACKAGES},
    {.name = "opam", .fx = LK_FX_PACKAGES},
    {.name = "pip-compile", .fx = LK_FX_PACKAGES},
    {.name = "pip-sync", .fx = LK_FX_PACKAGES},
    {.name = "pixi", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|run|")},
    {.name = "pod", .fx = LK_FX_PACKAGES},
    {.name = "proto", .fx = LK_FX_PACKAGES},
    {.name = "pyenv", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|exec|")},
    {.name = "rbenv", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|exec|")},
    {.name = "rtx", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|exec|x|")},
    {.name = "rye", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|run|")},
    {.name = "sdk", .fx = LK_FX_PACKAGES},
    {.name = "spack", .fx = LK_FX_PACKAGES},
    {.name = "tfenv", .fx = LK_FX_PACKAGES},
    {.name = "tfswitch", .fx = LK_FX_PACKAGES},
    {.name = "vcpkg", .fx = LK_FX_PACKAGES},
    {.name = "volta", .fx = LK_FX_PACKAGES, .cls = LK_WRAPPER, .opts = OPTS(.sub = "|run|")},
    /* shells and interpreters */
    {.name = "bc", .fx = LK_FX_INTERP},
    {.name = "dc", .fx = LK_FX_INTERP, .unseen_opts = unseen_opts_dc},
    {.name = "elixir", .fx = LK_FX_INTERP},
    {.name = "erl", .fx = LK_FX_INTERP},
    {.name = "escript", .fx = LK_FX_INTERP},
    {.name = "ghci", .fx = LK_FX_INTERP},
    {.name = "groovy", .fx = LK_FX_INTERP},
    {.name = "iex", .fx = LK_FX_INTERP},
    {.name = "irb", .fx = LK_FX_INTERP},
    {.name = "java", .fx = LK_FX_INTERP, .unseen_opts = unseen_opts_java},
    {.name = "kotlin", .fx = LK_FX_INTERP},
    {.name = "ocaml", .fx = LK_FX_INTERP},
    {.name = "scala", .fx = LK_FX_INTERP},
    /* system administration */
    {.name = "fuser", .fx = LK_FX_SYSTEM},
    {.name = "hostname", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "hostnamectl", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "ifconfig", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "init", .stop_subs = stop_subs_init, .fx = LK_FX_SYSTEM},
    {.name = "ip", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "ldconfig", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "localectl", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "modprobe", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "mount", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "route", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "sysctl", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "telinit", .stop_subs = stop_subs_telinit, .fx = LK_FX_SYSTEM},
    {.name = "timedatectl", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    {.name = "umount", .fx = LK_FX_SYSTEM, .pack = LK_PACK_SYSTEM},
    /* service and cloud CLIs: exec:network, and the generic destructive-verb rule (labels/service.c) */
    {.name = "aliyun", .fx = LK_FX_SERVICE},
    {.name = "amplify", .fx = LK_FX_SERVICE},
    {.name = "argocd", .fx = LK_FX_SERVICE},
    {.name = "auth0", .fx = LK_FX_SERVICE},
    {.name = "azcopy", .fx = LK_FX_SERVICE},
    {.name = "borg", .fx = LK_FX_SERVICE},
    {.name = "borgmatic", .fx = LK_FX_SERVICE},
    {.name = "cdk", .fx = LK_FX_SERVICE},
    {.name = "b2", .fx = LK_FX_SERVICE},
    {.name = "cf", .fx = LK_FX_SERVICE},
    {.name = "chamber", .fx = LK_FX_SERVICE},
    {.name = "circleci", .fx = LK_FX_SERVICE},
    {.name = "cloudflared", .fx = LK_FX_SERVICE},
    {.name = "confluent", .fx = LK_FX_SERVICE},
    {.name = "consul", .fx = LK_FX_SERVICE},
    {.name = "copilot", .fx = LK_FX_SERVICE},
    {.name = "cosign", .fx = LK_FX_SERVICE},
    {.name = "crane", .fx = LK_FX_SERVICE},
    {.name = "databricks", .fx = LK_FX_SERVICE},
    {.name = "dbt", .fx = LK_FX_SERVICE},
    {.name = "drush", .fx = LK_FX_SERVICE},
    {.name = "duplicity", .fx = LK_FX_SERVICE},
    {.name = "eas", .fx = LK_FX_SERVICE},
    {.name = "eb", .fx = LK_FX_SERVICE},
    {.name = "ecs-cli", .fx = LK_FX_SERVICE},
    {.name = "eksctl", .fx = LK_FX_SERVICE},
    {.name = "etcdctl", .fx = LK_FX_SERVICE},
    {.name = "exo", .fx = LK_FX_SERVICE},
    {.name = "expo", .fx = LK_FX_SERVICE},
    {.name = "firebase", .fx = LK_FX_SERVICE},
    {.name = "flux", .fx = LK_FX_SERVICE},
    {.name = "gitlab-runner", .fx = LK_FX_SERVICE},
    {.name = "grype", .fx = LK_FX_SERVICE},
    {.name = "helmfile", .fx = LK_FX_SERVICE},
    {.name = "ibmcloud", .fx = LK_FX_SERVICE},
    {.name = "istioctl", .fx = LK_FX_SERVICE},
    {.name = "jira", .fx = LK_FX_SERVICE},
    {.name = "k9s", .fx = LK_FX_SERVICE},
    {.name = "kafka-acls", .fx = LK_FX_SERVICE, .cls = LK_ABBREVS},
    {.name = "kafka-configs", .fx = LK_FX_SERVICE, .cls = LK_ABBREVS},
    {.name = "kafka-console-consumer", .fx = LK_FX_SERVICE, .cls = LK_ABBREVS},
    {.name = "kafka-console-producer", .fx = LK_FX_SERVICE, .cls = LK_ABBREVS},
    {.name = "kafka-consumer-groups", .fx = LK_FX_SERVICE, .cls = LK_ABBREVS},
    {.name = "kafka-reassign-partitions", .fx = LK_FX_SERVICE, .cls = LK_ABBREVS},
    {.name = "kafka-topics", .fx = LK_FX_SERVICE, .cls = LK_ABBREVS},
    {.name = "kafkactl", .fx = LK_FX_SERVICE},
    {.name = "kn", .fx = LK_FX_SERVICE},
    {.name = "kopia", .fx = LK_FX_SERVICE},
    {.name = "kops", .fx = LK_FX_SERVICE},
    {.name = "kubectx", .fx = LK_FX_SERVICE},
    {.name = "kubens", .fx = LK_FX_SERVICE},
    {.name = "kubeseal", .fx = LK_FX_SERVICE},
    {.name = "linkerd", .fx = LK_FX_SERVICE},
    {.name = "mc", .fx = LK_FX_SERVICE},
    {.name = "nats", .fx = LK_FX_SERVICE},
    {.name = "ngrok", .fx = LK_FX_SERVICE},
    {.name = "nomad", .fx = LK_FX_SERVICE},
    {.name = "oras", .fx = LK_FX_SERVICE},
    {.name = "packer", .fx = LK_FX_SERVICE},
    {.name = "rabbitmq-plugins", .fx = LK_FX_SERVICE},
    {.name = "rabbitmqadmin", .fx = LK_FX_SERVICE},
    {.name = "rabbitmqctl", .fx = LK_FX_SERVICE},
    {.name = "railway", .fx = LK_FX_SERVICE},
    {.name = "regctl", .fx = LK_FX_SERVICE},
    {.name = "render", .fx = LK_FX_SERVICE},
    {.name = "restic", .fx = LK_FX_SERVICE},
    {.name = "rpk", .fx = LK_FX_SERVICE},
    {.name = "rustic", .fx = LK_FX_SERVICE},
    {.name = "s3cmd", .fx = LK_FX_SERVICE},
    {.name = "s5cmd", .fx = LK_FX_SERVICE},
    {.name = "sam", .fx = LK_FX_SERVICE},
    {.name = "saml2aws", .fx = LK_FX_SERVICE},
    {.name = "sentry-cli", .fx = LK_FX_SERVICE},
    {.name = "serverless", .fx = LK_FX_SERVICE},
    {.name = "shopify", .fx = LK_FX_SERVICE},
    {.name = "skaffold", .fx = LK_FX_SERVICE},
    {.name = "skopeo", .fx = LK_FX_SERVICE},
    {.name = "sls", .fx = LK_FX_SERVICE},
    {.name = "snyk", .fx = LK_FX_SERVICE},
    {.name = "stern", .fx = LK_FX_SERVICE},
    {.name = "stripe", .fx = LK_FX_SERVICE},
    {.name = "supabase", .fx = LK_FX_SERVICE},
    {.name = "surge", .fx = LK_FX_SERVICE},
    {.name = "tailscale", .fx = LK_FX_SERVICE},
    {.name = "tea", .fx = LK_FX_SERVICE},
    {.name = "temporal", .fx = LK_FX_SERVICE},
    {.name = "tilt", .fx = LK_FX_SERVICE},
    {.name = "trivy", .fx = LK_FX_SERVICE},
    {.name = "twilio", .fx = LK_FX_SERVICE},
    {.name = "velero", .fx = LK_FX_SERVICE},
    {.name = "wp", .fx = LK_FX_SERVICE},
    {.name = "wrangler", .fx = LK_FX_SERVICE},
    {.name = "zerotier-cli", .fx = LK_FX_SERVICE},
    /* runs workspace code */
    {.name = "pre-commit", .fx = LK_FX_WORKSPACE, .pack = LK_PACK_PERSISTENCE},
    /* more of the tail: database tools, infra linters, key tools */
    {.name = "createdb", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "pg_isready", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "mysqldump", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "mongodump", .fx = LK_FX_DATABASE, .pack = LK_PACK_DATABASES},
    {.name = "ansible-lint", .fx = LK_FX_BUILD},
    {.name = "ansible-inventory", .fx = LK_FX_WORKSPACE},
    {.name = "kustomize", .fx = LK_FX_BUILD},
    {.name = "husky", .fx = LK_FX_WORKSPACE, .pack = LK_PACK_PERSISTENCE},
    {.name = "ssh-keygen", .fx = LK_FX_FILES, .unseen_opts = unseen_opts_ssh_keygen, .pack = LK_PACK_SECRETS},
    {.name = "atq", .fx = LK_FX_READ},
    {.name = "getcap", .fx = LK_FX_READ},
    /* ---- rows from public tool lists (tldr-pages' command pages, the
       awesome-linters list), not from the everyday corpus; each with its
       effect class.  Left out: tools that run a command or code given
       on the line or on stdin (tcc -run, dmd/ldc2 -run -, makensis -X,
       prove --exec, mold -run, TeX engines, scan-build, c8, gdb), start a
       daemon (flow, dmypy, pyre) or fetch by default (dprint, kubeval,
       semgrep, typst, xmake, scalafmt) ---- */
    /* read-only: print what they read (symbols, build flags, a report of test output) */
    {.name = "addr2line", .fx = LK_FX_READ},
    {.name = "c++filt", .fx = LK_FX_READ},
    {.name = "jdeps", .fx = LK_FX_READ, .unseen_opts = unseen_opts_jdeps},
    {.name = "llvm-config", .fx = LK_FX_READ},
    {.name = "pkg-config", .read_opts = &ro_pkg_config, .fx = LK_FX_READ},
    {.name = "tparse", .fx = LK_FX_READ},
    /* local files: rewrite a file in place */
    {.name = "patchelf", .fx = LK_FX_FILES},
    {.name = "tidy", .fx = LK_FX_FILES},
    {.name = "upx", .fx = LK_FX_FILES},
    /* local build, test, lint, format: compilers, generators, linters, formatters, analysers and test runners over the workspace's files */
    {.name = "aapt", .fx = LK_FX_BUILD},
    {.name = "alejandra", .fx = LK_FX_BUILD},
    {.name = "alex", .fx = LK_FX_BUILD},
    {.name = "ast-grep", .fx = LK_FX_BUILD},
    {.name = "astyle", .fx = LK_FX_BUILD},
    {.name = "atoum", .fx = LK_FX_BUILD},
    {.name = "autoflake", .fx = LK_FX_BUILD},
    {.name = "bashate", .fx = LK_FX_BUILD},
    {.name = "behave", .fx = LK_FX_BUILD},
    {.name = "bison", .fx = LK_FX_BUILD},
    {.name = "c89", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_c89, .value_runs = value_runs_c89},
    {.name = "c99", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_c99, .value_runs = value_runs_c99},
    {.name = "checkmake", .fx = LK_FX_BUILD},
    {.name = "cmake-format", .fx = LK_FX_BUILD},
    {.name = "cmake-lint", .fx = LK_FX_BUILD},
    {.name = "comby", .fx = LK_FX_BUILD},
    {.name = "commitlint", .fx = LK_FX_BUILD},
    {.name = "coqc", .fx = LK_FX_BUILD},
    {.name = "cpplint", .fx = LK_FX_BUILD},
    {.name = "csc", .fx = LK_FX_BUILD},
    {.name = "csslint", .fx = LK_FX_BUILD},
    {.name = "cython", .fx = LK_FX_BUILD},
    {.name = "detect-secrets", .fx = LK_FX_BUILD},
    {.name = "djlint", .fx = LK_FX_BUILD},
    {.name = "doc8", .fx = LK_FX_BUILD},
    {.name = "docformatter", .fx = LK_FX_BUILD},
    {.name = "dtc", .fx = LK_FX_BUILD},
    {.name = "eclint", .fx = LK_FX_BUILD},
    {.name = "editorconfig-checker", .fx = LK_FX_BUILD},
    {.name = "elm-format", .fx = LK_FX_BUILD},
    {.name = "errcheck", .fx = LK_FX_BUILD},
    {.name = "flawfinder", .fx = LK_FX_BUILD},
    {.name = "flex", .fx = LK_FX_BUILD},
    {.name = "fourmolu", .fx = LK_FX_BUILD},
    {.name = "gccgo", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_gccgo, .value_runs = value_runs_gccgo},
    {.name = "gdc", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_gdc, .value_runs = value_runs_gdc},
    {.name = "gitleaks", .fx = LK_FX_BUILD},
    {.name = "gitlint", .fx = LK_FX_BUILD},
    {.name = "glib-compile-resources", .fx = LK_FX_BUILD},
    {.name = "gnatprep", .fx = LK_FX_BUILD},
    {.name = "gofumpt", .fx = LK_FX_BUILD},
    {.name = "golines", .fx = LK_FX_BUILD},
    {.name = "google-java-format", .fx = LK_FX_BUILD},
    {.name = "gosec", .fx = LK_FX_BUILD},
    {.name = "hipcc", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_hipcc, .value_runs = value_runs_hipcc},
    {.name = "htmlhint", .fx = LK_FX_BUILD},
    {.name = "ineffassign", .fx = LK_FX_BUILD},
    {.name = "infection", .fx = LK_FX_BUILD},
    {.name = "iverilog", .fx = LK_FX_BUILD},
    {.name = "jasmine", .fx = LK_FX_BUILD},
    {.name = "javadoc", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_javadoc},
    {.name = "jshint", .fx = LK_FX_BUILD},
    {.name = "jsonlint", .fx = LK_FX_BUILD},
    {.name = "kahlan", .fx = LK_FX_BUILD},
    {.name = "ktfmt", .fx = LK_FX_BUILD},
    {.name = "kube-score", .fx = LK_FX_BUILD},
    {.name = "lebab", .fx = LK_FX_BUILD},
    {.name = "lex", .fx = LK_FX_BUILD},
    {.name = "llc", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_llc},
    {.name = "llvm-as", .fx = LK_FX_BUILD},
    {.name = "lockfile-lint", .fx = LK_FX_BUILD},
    {.name = "luac", .fx = LK_FX_BUILD},
    {.name = "mcs", .fx = LK_FX_BUILD},
    {.name = "misspell", .fx = LK_FX_BUILD},
    {.name = "mpic++", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_mpicpp, .value_runs = value_runs_mpicpp},
    {.name = "mpicc", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_mpicc, .value_runs = value_runs_mpicc},
    {.name = "mpicxx", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_mpicxx, .value_runs = value_runs_mpicxx},
    {.name = "msgfmt", .fx = LK_FX_BUILD},
    {.name = "nixfmt", .fx = LK_FX_BUILD},
    {.name = "nixpkgs-fmt", .fx = LK_FX_BUILD},
    {.name = "nose2", .fx = LK_FX_BUILD},
    {.name = "nosetests", .fx = LK_FX_BUILD},
    {.name = "npm-package-json-lint", .fx = LK_FX_BUILD},
    {.name = "nvcc", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_nvcc, .value_runs = value_runs_nvcc},
    {.name = "ocamlc", .fx = LK_FX_BUILD},
    {.name = "ocamlformat", .fx = LK_FX_BUILD},
    {.name = "ocamlopt", .fx = LK_FX_BUILD},
    {.name = "oclint", .fx = LK_FX_BUILD},
    {.name = "parallel-lint", .fx = LK_FX_BUILD},
    {.name = "perlcritic", .fx = LK_FX_BUILD},
    {.name = "perltidy", .fx = LK_FX_BUILD},
    {.name = "pest", .fx = LK_FX_BUILD},
    {.name = "pg_format", .fx = LK_FX_BUILD},
    {.name = "phan", .fx = LK_FX_BUILD},
    {.name = "phplint", .fx = LK_FX_BUILD},
    {.name = "phpmd", .fx = LK_FX_BUILD},
    {.name = "progpilot", .fx = LK_FX_BUILD},
    {.name = "proselint", .fx = LK_FX_BUILD},
    {.name = "prospector", .fx = LK_FX_BUILD},
    {.name = "protolint", .fx = LK_FX_BUILD},
    {.name = "prqlc", .fx = LK_FX_BUILD},
    {.name = "pug-lint", .fx = LK_FX_BUILD},
    {.name = "puppet-lint", .fx = LK_FX_BUILD},
    {.name = "purs", .fx = LK_FX_BUILD},
    {.name = "pytype", .fx = LK_FX_BUILD},
    {.name = "pyupgrade", .fx = LK_FX_BUILD},
    {.name = "qunit", .fx = LK_FX_BUILD},
    {.name = "reek", .fx = LK_FX_BUILD},
    {.name = "rstcheck", .fx = LK_FX_BUILD},
    {.name = "rufo", .fx = LK_FX_BUILD},
    {.name = "rustdoc", .fx = LK_FX_BUILD, .unseen_opts = unseen_opts_rustdoc},
    {.name = "scalastyle", .fx = LK_FX_BUILD},
    {.name = "shc", .fx = LK_FX_BUILD},
    {.name = "solcjs", .fx = LK_FX_BUILD},
    {.name = "sqlfluff", .fx = LK_FX_BUILD},
    {.name = "sqlfmt", .fx = LK_FX_BUILD},
    {.name = "standard", .fx = LK_FX_BUILD},
    {.name = "stylua", .fx = LK_FX_BUILD},
    {.name = "svelte-check", .fx = LK_FX_BUILD},
    {.name = "swift-format", .fx = LK_FX_BUILD},
    {.name = "swig", .fx = LK_FX_BUILD},
    {.name = "tex-fmt", .fx = LK_FX_BUILD},
    {.name = "textlint", .fx = LK_FX_BUILD},
    {.name = "tslint", .fx = LK_FX_BUILD},
    {.name = "typos", .fx = LK_FX_BUILD},
    {.name = "uncrustify", .fx = LK_FX_BUILD},
    {.name = "valac", .fx = LK_FX_BUILD},
    {.name = "verilator", .fx = LK_FX_BUILD},
    {.name = "vue-tsc", .fx = LK_FX_BUILD},
    {.name = "vulture", .fx = LK_FX_BUILD},
    {.name = "wasm-opt", .fx = LK_FX_BUILD},
    {.name = "wasm2c", .fx = LK_FX_BUILD},
    {.name = "wasm2wat", .fx = LK_FX_BUILD},
    {.name = "wat2wasm", .fx = LK_FX_BUILD},
    {.name = "write-good", .fx = LK_FX_BUILD},
    {.name = "xo", .fx = LK_FX_BUILD},
    {.name = "yacc", .fx = LK_FX_BUILD},
    {.name = "yamlfmt", .fx = LK_FX_BUILD},
    {.name = "yarac", .fx = LK_FX_BUILD},
    /* runs workspace code: task runners, build-script generators and test drivers that run the project's own files */
    {.name = "aclocal", .fx = LK_FX_WORKSPACE},
    {.name = "autoconf", .fx = LK_FX_WORKSPACE},
    {.name = "autoheader", .fx = LK_FX_WORKSPACE},
    {.name = "automake", .fx = LK_FX_WORKSPACE},
    {.name = "autoreconf", .fx = LK_FX_WORKSPACE},
    {.name = "codecept", .fx = LK_FX_WORKSPACE},
    {.name = "cucumber", .fx = LK_FX_WORKSPACE},
    {.name = "gn", .fx = LK_FX_WORKSPACE},
    {.name = "gnatmake", .fx = LK_FX_WORKSPACE},
    {.name = "gprbuild", .fx = LK_FX_WORKSPACE},
    {.name = "grunt", .fx = LK_FX_WORKSPACE},
    {.name = "gulp", .fx = LK_FX_WORKSPACE},
    {.name = "libtoolize", .fx = LK_FX_WORKSPACE},
    {.name = "lit", .fx = LK_FX_WORKSPACE},
    {.name = "mk", .fx = LK_FX_WORKSPACE},
    {.name = "ncc", .fx = LK_FX_WORKSPACE},
    {.name = "phing", .fx = LK_FX_WORKSPACE},
    {.name = "premake5", .fx = LK_FX_WORKSPACE},
    {.name = "pyinstaller", .fx = LK_FX_WORKSPACE},
    {.name = "qmake", .fx = LK_FX_WORKSPACE},
    {.name = "robo", .fx = LK_FX_WORKSPACE},
    {.name = "robot", .fx = LK_FX_WORKSPACE},
    /* package and language version managers: exec:network in every form but a local one (labels/service.c) */
    {.name = "alr", .fx = LK_FX_PACKAGES},
    {.name = "berks", .fx = LK_FX_PACKAGES},
    {.name = "bower", .fx = LK_FX_PACKAGES},
    {.name = "bpkg", .fx = LK_FX_PACKAGES},
    {.name = "choco", .fx = LK_FX_PACKAGES},
    {.name = "dub", .fx = LK_FX_PACKAGES},
    {.name = "fvm", .fx = LK_FX_PACKAGES},
    {.name = "ghcup", .fx = LK_FX_PACKAGES},
    {.name = "guix", .fx = LK_FX_PACKAGES},
    {.name = "jbang", .fx = LK_FX_PACKAGES},
    {.name = "juliaup", .fx = LK_FX_PACKAGES},
    {.name = "kerl", .fx = LK_FX_PACKAGES},
    {.name = "mas", .fx = LK_FX_PACKAGES},
    {.name = "ncu", .fx = LK_FX_PACKAGES},
    {.name = "ni", .fx = LK_FX_PACKAGES},
    {.name = "nvm", .fx = LK_FX_PACKAGES},
    {.name = "phpenv", .fx = LK_FX_PACKAGES},
    {.name = "port", .fx = LK_FX_PACKAGES},
    {.name = "rush", .fx = LK_FX_PACKAGES},
    {.name = "rvm", .fx = LK_FX_PACKAGES},
    {.name = "scoop", .fx = LK_FX_PACKAGES},
    {.name = "shards", .fx = LK_FX_PACKAGES},
    {.name = "spago", .fx = LK_FX_PACKAGES},
    {.name = "virtualenv", .fx = LK_FX_PACKAGES,
     .delete_opts = delete_opts_virtualenv},
    /* python -m venv: offline, but --upgrade-deps installs pip from the
       index */
    {.name = "venv", .fx = LK_FX_PACKAGES, .net_subs = net_subs_venv,
     .delete_opts = delete_opts_venv},
    /* python -m compileall: with no folder or file operand it compiles
       every folder of sys.path (site-packages, the standard library),
       writing __pycache__ there (platforms pack) */
    {.name = "compileall", .fx = LK_FX_BUILD, .pack = LK_PACK_PLATFORMS},
    {.name = "wapm", .fx = LK_FX_PACKAGES},
    {.name = "winget", .fx = LK_FX_PACKAGES},
    {.name = "dd",
     .fx = LK_FX_FILES,
     .destroys = "dd overwrites its output",
     .destroys_by = &destroys_dd},
};
/* clang-format on */

#define NPROGRAMS (sizeof programs / sizeof *programs)

/* Names a program goes by that no version or build rule derives: the
   distribution's renames and the alternatives it installs, and a Python
   module's name for its program (`python -m pre_commit`). */
/* clang-format off */
static const struct {
	const char *alias, *name;
} aliases[] = {
    {"nodejs", "node"},       {"iojs", "node"},         {"js", "node"},
    {"ipython", "python"},    {"jruby", "ruby"},        {"truffleruby", "ruby"},
    {"mruby", "ruby"},        {"php-cli", "php"},       {"php-cgi", "php"},
    {"sh.distrib", "sh"},     {"bash.distrib", "bash"}, {"ksh93", "ksh"},
    {"ksh2020", "ksh"},       {"jimsh", "tclsh"},       {"gsed", "sed"},
    {"ncat.openbsd", "ncat"}, {"gfind", "find"},        {"fdfind", "fd"},
    {"gmake", "make"},        {"bmake", "make"},        {"pmake", "make"},
    {"remake", "make"},       {"pre_commit", "pre-commit"},
    {"awscli", "aws"},
};
/* clang-format on */

/*
 * The name index is a hash table (knowledge/gen_index.c builds it at build
 * time from these tables): FNV-1a over the name's bytes, open addressing
 * with linear probing, slots holding a row (or alias) index + 1, 0 empty.
 * The generator and the library share this function, so they agree.
 */
#define LK_HASH_BASIS 2166136261u
#define LK_HASH_STEP(h, byte) (((h) ^ (unsigned char)(byte)) * 16777619u)

static inline uint32_t lk_hash_n(const char *name, size_t n)
{
	uint32_t h = LK_HASH_BASIS;
	for (size_t i = 0; i < n; i++)
		h = LK_HASH_STEP(h, name[i]);
	return h;
}

/* A hash's first slot in a table of `slots` (a power of two) slots. */
static inline size_t lk_hash_slot(uint32_t h, size_t slots)
{
	return (size_t)(h ^ (h >> 15)) & (slots - 1);
}

/* The n bytes of name (no NUL among them) are exactly the string s.  A
   byte loop: names are short, and a call to strncmp cost more than the
   compare.  It stops at s's NUL, which no byte of name is. */
static inline bool lk_name_is(const char *name, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != name[i])
			return false;
	return s[n] == '\0';
}

#ifndef LK_GEN_INDEX /* the generator includes the tables only */
/* row_slots, alias_slots: the hash tables of row and alias names
   (knowledge/gen_index.c, generated at build time). */
#include "knowledge/programs_index.h"

_Static_assert((ROW_SLOTS & (ROW_SLOTS - 1)) == 0 && ROW_SLOTS > NPROGRAMS,
               "the row index has a free slot");
_Static_assert((ALIAS_SLOTS & (ALIAS_SLOTS - 1)) == 0 &&
                   ALIAS_SLOTS > sizeof aliases / sizeof *aliases,
               "the alias index has a free slot");

/* The row named exactly by the n bytes (n > 0) of name, whose hash is h. */
static const lk_program *exact_h(const char *name, size_t n, uint32_t h)
{
	for (size_t i = lk_hash_slot(h, ROW_SLOTS); row_slots[i];
	     i = (i + 1) & (ROW_SLOTS - 1)) {
		const lk_program *r = &programs[row_slots[i] - 1];
		if (lk_name_is(name, n, r->name))
			return r;
	}
	return NULL;
}

static const lk_program *exact(const char *name)
{
	size_t n = strlen(name);
	return exact_h(name, n, lk_hash_n(name, n));
}

/* The alias entry named by the n bytes of name (hash h), or -1. */
static long alias_h(const char *name, size_t n, uint32_t h)
{
	for (size_t i = lk_hash_slot(h, ALIAS_SLOTS); alias_slots[i];
	     i = (i + 1) & (ALIAS_SLOTS - 1)) {
		size_t a = alias_slots[i] - 1u;
		if (lk_name_is(name, n, aliases[a].alias))
			return (long)a;
	}
	return -1;
}

/* `rest` (what follows a row's name) is a version or build suffix the
   row allows: [-]1.2.3, -static, -dbg, or a version then a build. */
static bool suffix_ok(uint32_t names, const char *rest)
{
	if (names & LK_VERSIONED) {
		const char *p = rest + (rest[0] == '-');
		size_t digits = strspn(p, "0123456789.");
		if (digits && p[0] >= '0' && p[0] <= '9') {
			rest = p + digits;
			if (!*rest)
				return true;
		}
	}
	if (names & LK_BUILDS)
		return strcmp(rest, "-static") == 0 ||
		       strcmp(rest, "-dbg") == 0;
	if (names & LK_DOTTED)
		return rest[0] == '.' && rest[1] != '\0';
	return false;
}

/* A version or build suffix starts here: what suffix_ok() accepts
   begins with '-', '.' or a digit. */
static bool suffix_start(char c)
{
	return c == '-' || c == '.' || (c >= '0' && c <= '9');
}

/*
 * Every prefix of `name` that ends where a suffix may start is looked up;
 * of the rows (then aliases) it names whose rule allows the rest, the
 * first in table order wins, as a scan of the table in order would give.
 */
const lk_program *lk_program_find(const char *name)
{
	if (!name || !*name)
		return NULL;
	/* one pass: the length, the hash, and whether a version or build
	   suffix may start after the first byte (most names have none,
	   and then no prefix is looked up) */
	size_t len = 1;
	uint32_t hlen = LK_HASH_STEP(LK_HASH_BASIS, name[0]);
	bool any_start = false;
	for (; name[len]; len++) {
		hlen = LK_HASH_STEP(hlen, name[len]);
		any_start |= suffix_start(name[len]);
	}
	const lk_program *p = exact_h(name, len, hlen);
	if (p)
		return p;
	long a = alias_h(name, len, hlen);
	if (a >= 0)
		return exact(aliases[a].name);
	if (!any_start)
		return NULL;
	/* h: the hash of the first n bytes, for the prefix lookups */
	const lk_program *best = NULL;
	uint32_t h = LK_HASH_STEP(LK_HASH_BASIS, name[0]);
	for (size_t n = 1; n < len; h = LK_HASH_STEP(h, name[n]), n++) {
		if (!suffix_start(name[n]))
			continue;
		const lk_program *r = exact_h(name, n, h);
		if (r && r->names && suffix_ok(r->names, name + n) &&
		    (!best || r < best))
			best = r;
	}
	if (best)
		return best;
	/* a versioned alias: ipython3, nodejs18 */
	long first = -1;
	h = LK_HASH_STEP(LK_HASH_BASIS, name[0]);
	for (size_t n = 1; n < len; h = LK_HASH_STEP(h, name[n]), n++) {
		if (!suffix_start(name[n]))
			continue;
		long k = alias_h(name, n, h);
		const lk_program *r;
		if (k >= 0 && (first < 0 || k < first) &&
		    (r = exact(aliases[k].name)) != NULL && r->names &&
		    suffix_ok(r->names, name + n))
			first = k;
	}
	return first >= 0 ? exact(aliases[first].name) : NULL;
}

uint32_t lk_classes(const char *name)
{
	const lk_program *p = lk_program_find(name);
	return p ? p->cls : 0;
}

/* The effect class a row's class bits give when the row sets none,
   first match wins: what the bits already say the program does.  Rows
   whose bits say nothing about effects (LK_SUBCOMMANDS, a pack only,
   no bits) set .fx themselves. */
static const struct {
	uint32_t cls;
	lk_effect fx;
} fx_from_cls[] = {
    {LK_WIPES_DEVICE | LK_DELETES, LK_FX_DESTROYS},
    {LK_SHELL | LK_INTERP | LK_AWK | LK_EVAL | LK_SOURCE, LK_FX_INTERP},
    {LK_DOWNLOADER | LK_NETWORK, LK_FX_NETWORK},
    {LK_WRAPPER | LK_SEES, LK_FX_WRAPPER},
    {LK_NAMES_DATA | LK_PAGER, LK_FX_READ},
    {LK_DECODER | LK_COPIES | LK_WRITES_ARGS | LK_EXTRACTS | LK_INERT,
     LK_FX_FILES},
};

lk_effect lk_effect_of(const lk_program *p)
{
	if (!p)
		return LK_FX_NONE;
	if (p->fx != LK_FX_NONE)
		return p->fx;
	for (size_t i = 0; i < sizeof fx_from_cls / sizeof *fx_from_cls; i++)
		if (p->cls & fx_from_cls[i].cls)
			return fx_from_cls[i].fx;
	return LK_FX_NONE;
}

static const char *const fx_names[LK_FX_COUNT] = {
    [LK_FX_NONE] = "",
    [LK_FX_READ] = "read-only",
    [LK_FX_FILES] = "local files",
    [LK_FX_BUILD] = "local build, test, lint or format",
    [LK_FX_WORKSPACE] = "runs workspace code",
    [LK_FX_PACKAGES] = "package manager",
    [LK_FX_INTERP] = "shell or interpreter",
    [LK_FX_VCS] = "version control",
    [LK_FX_NETWORK] = "network client",
    [LK_FX_SERVICE] = "service or cloud CLI",
    [LK_FX_SECRETS] = "credential store",
    [LK_FX_DATABASE] = "database client",
    [LK_FX_CONTAINERS] = "containers and VMs",
    [LK_FX_SYSTEM] = "system administration",
    [LK_FX_WRAPPER] = "runs another command",
    [LK_FX_DESTROYS] = "deletes or erases",
};

const char *lk_effect_name(lk_effect fx)
{
	return (unsigned)fx < LK_FX_COUNT ? fx_names[fx] : "";
}

const lk_program *lk_program_at(size_t i)
{
	return i < NPROGRAMS ? &programs[i] : NULL;
}

const lk_program *lk_programs(size_t *n)
{
	*n = NPROGRAMS;
	return programs;
}

/* Append s to buf (with regex metacharacters escaped) if it fits. */
static bool put_re(char *buf, size_t cap, size_t *len, const char *s,
                   bool escape)
{
	for (; *s; s++) {
		bool meta = escape && strchr(".+*?()[]{}|^$\\", *s);
		if (*len + 2 + meta >= cap)
			return false;
		if (meta)
			buf[(*len)++] = '\\';
		buf[(*len)++] = *s;
	}
	buf[*len] = '\0';
	return true;
}

/* Names of one or two letters (R, rc, es, nu) are left out: matched
   case-insensitively as words anywhere in a line they would put ordinary
   text on the floor; `sh` is kept. */
static bool regex_name(const char *name)
{
	return strlen(name) >= 3 || strcmp(name, "sh") == 0;
}

static bool put_name(char *buf, size_t cap, size_t *len, bool *first,
                     const char *name, uint32_t names)
{
	if (!regex_name(name))
		return true;
	if (!*first && !put_re(buf, cap, len, "|", false))
		return false;
	*first = false;
	if (!put_re(buf, cap, len, name, true))
		return false;
	if ((names & LK_VERSIONED) &&
	    !put_re(buf, cap, len, "-?[0-9.]*", false))
		return false;
	if ((names & LK_DOTTED) &&
	    !put_re(buf, cap, len, "(?:\\.\\w+)?", false))
		return false;
	return true;
}

size_t lk_names_regex(uint32_t cls, char *buf, size_t cap)
{
	size_t len = 0;
	bool first = true;
	if (!put_re(buf, cap, &len, "(?:", false))
		return 0;
	for (size_t i = 0; i < NPROGRAMS; i++)
		if ((programs[i].cls & cls) &&
		    !put_name(buf, cap, &len, &first, programs[i].name,
		              programs[i].names))
			return 0;
	for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++) {
		const lk_program *r = exact(aliases[i].name);
		if (r && (r->cls & cls) &&
		    !put_name(buf, cap, &len, &first, aliases[i].alias,
		              r->names))
			return 0;
	}
	if (!put_re(buf, cap, &len, ")", false))
		return 0;
	return len;
}
#endif /* LK_GEN_INDEX */

bool lk_bar_has(const char *list, const char *s, size_t n)
{
	for (const char *p = list; p && (p = strchr(p, '|')) != NULL; p++)
		if (n && !strncmp(p + 1, s, n) && p[1 + n] == '|')
			return true;
	return false;
}

bool lk_has_letter(const char *set, char c)
{
	return set && c && strchr(set, c) != NULL;
}

/* --name (n bytes) is a prefix, one letter or more, of a name in list. */
bool lk_bar_prefix(const char *list, const char *name, size_t n)
{
	if (!list || !n)
		return false;
	for (const char *p = list; (p = strchr(p, '|')) != NULL && p[1]; p++)
		if (!strncmp(p + 1, name, n) &&
		    (size_t)(strchr(p + 1, '|') - (p + 1)) >= n)
			return true;
	return false;
}

/* argv[i] sets a letter of `letters` or a long option of `longs` (any
   prefix); `oldstyle`: argv[1] without a dash is a cluster too. */
static bool sets(const lk_extract *x, const char *const *argv, size_t i,
                 const char *letters, const char *longs)
{
	const char *a = argv[i];
	if (a[0] == '-' && a[1] == '-')
		return lk_bar_prefix(longs, a + 2, strcspn(a + 2, "="));
	if (a[0] == '-')
		return letters && a[1] && strpbrk(a + 1, letters);
	return i == 1 && x->oldstyle && letters && strpbrk(a, letters);
}

bool lk_extracts(const lk_program *p, const char *const *argv, size_t argc)
{
	if (!p || !(p->cls & LK_EXTRACTS))
		return false;
	const lk_extract *x = p->extract;
	if (!x || (!x->x_short && !x->x_long))
		return true; /* unzip, 7z, unrar, ar, pax: assume they do */
	for (size_t i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (sets(x, argv, i, x->x_short, x->x_long))
			return true;
	}
	return false;
}

bool lk_names_from_list(const lk_program *p, const char *const *argv,
                        size_t argc)
{
	const lk_extract *x = p && (p->cls & LK_EXTRACTS) ? p->extract : NULL;
	if (!x || !x->list_long)
		return false;
	bool list = false, fills = false;
	for (size_t i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		const char *a = argv[i];
		list |= a[0] == '-' && a[1] == '-'
		            ? lk_long_abbrev(a, x->list_long, x->list_min)
		            : sets(x, argv, i, x->list_short, NULL);
		fills |= sets(x, argv, i, x->in_short, x->in_long);
	}
	return list && (fills || lk_extracts(p, argv, argc));
}

bool lk_extracts_anywhere(const lk_program *p, const char *const *argv,
                          size_t argc)
{
	if (!lk_extracts(p, argv, argc) || !p->extract)
		return false;
	const lk_extract *x = p->extract;
	bool safe = false;
	for (size_t i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (sets(x, argv, i, x->abs_short, x->abs_long))
			return true;
		const char *a = argv[i];
		if (a[0] == '-' && a[1] == '-' &&
		    lk_bar_has(x->safe_long, a + 2, strlen(a + 2)))
			safe = true;
	}
	return x->abs_default && !safe;
}

bool lk_writes_operand(const lk_program *p, const char *const *argv, size_t i)
{
	if (!p || i < 2)
		return false;
	const char *o = argv[i - 1];
	if (p->writes && lk_bar_has(p->writes, o, strlen(o)))
		return true;
	/* a letter in any cluster: tree's parser gives the next word to
	   each such letter (`tree -ao FILE`) */
	if (p->writes_letters && o[0] == '-' && o[1] && o[1] != '-' &&
	    strpbrk(o + 1, p->writes_letters))
		return true;
	if (!p->writes_tail || argv[i][0] == '-')
		return false;
	for (size_t j = 1; j < i; j++)
		if (argv[j][0] != '-' || !argv[j][1])
			return true; /* an operand before it (`-` is stdin) */
	return false;
}

bool lk_pattern_operand(const lk_program *p, const char *const *argv, size_t i)
{
	if (!p || !p->patterns || i < 1)
		return false;
	const char *a = argv[i];
	const char *eq = a[0] == '-' && a[1] == '-' ? strchr(a, '=') : NULL;
	if (eq)
		return lk_bar_has(p->patterns, a, (size_t)(eq - a));
	for (size_t j = i - 1; j >= 1; j--) {
		const char *w = argv[j];
		if (lk_bar_has(p->patterns, w, strlen(w))) {
			/* not when an option before it may take it as its
			   value (`tar -xf --exclude .git`: the archive is
			   --exclude, .git a member it writes) */
			const char *b = argv[j - 1];
			return j == 1 || b[0] != '-' || !b[1] || strchr(b, '=');
		}
		if (!p->pattern_lists || w[0] == '-' || j == 1)
			return false;
	}
	return false;
}

bool lk_copy_writes(const lk_program *p, const char *const *argv, size_t argc,
                    size_t i)
{
	if (!p || !(p->cls & LK_COPIES) || p->sources_written)
		return true;
	size_t last = 0;
	bool dd = false, target = false; /* -t: the last operand is a source */
	for (size_t k = 1; k < argc; k++) {
		const char *a = argv[k];
		if (!dd && !strcmp(a, "--")) {
			dd = true;
			continue;
		}
		if (dd || a[0] != '-' || !a[1]) {
			last = k;
			continue;
		}
		if (a[1] == '-') {
			target |= lk_long_abbrev(a, "target-directory", 1);
			if (lk_long_abbrev(a, "link", 1) ||
			    lk_long_abbrev(a, "symbolic-link", 2) ||
			    (p->dirs_opt && lk_long_abbrev(a, "directory", 2)))
				return true; /* links: sources get a name */
			if (lk_long_abbrev(a, "target-directory", 1) &&
			    (k == i || (!strchr(a, '=') && k + 1 == i)))
				return true;
			continue;
		}
		if (strpbrk(a + 1, "ls") || (p->dirs_opt && strchr(a + 1, 'd')))
			return true; /* -l, -s (install -s strips: over-read) */
		/* a `t` after a letter that takes a value is that value
		   (`-St`: the suffix t): not a folder option */
		const char *v = a + 1 + strcspn(a + 1, LK_COPY_VALUE_LETTERS);
		target |= *v == 't';
		const char *t = strchr(a + 1, 't');
		if (t && (k == i || (!t[1] && k + 1 == i)))
			return true;
	}
	return i == last && !target;
}

size_t lk_module_name_len(const char *mod)
{
	static const char main_mod[] = ".__main__";
	size_t n = strlen(mod), k = sizeof main_mod - 1;
	return n > k && !strcmp(mod + n - k, main_mod) ? n - k : n;
}

bool lk_long_abbrev(const char *a, const char *name, size_t min)
{
	if (a[0] != '-' || a[1] != '-')
		return false;
	size_t n = strcspn(a + 2, "=");
	return n >= min && n <= strlen(name) && !strncmp(a + 2, name, n);
}

/* The module runner m's arguments from argv[i]: the module it runs, or
   NULL (a script, or none); *next its first argument. */
static const char *runner_inner(const lk_module *m, const char *const *argv,
                                size_t argc, size_t i, size_t *next)
{
	const lk_interp *g = m->grammar;
	bool flag = false;
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (a[1] == '-') {
			size_t n = strcspn(a + 2, "=");
			if ((m->how & LK_M_RUNS_FLAG) &&
			    lk_long_abbrev(a, "module", 1))
				flag = true;
			else if (!a[2 + n] && g &&
			         lk_bar_has(g->val_long, a + 2, n))
				i++;
			continue;
		}
		for (size_t j = 1; a[j]; j++) {
			if (g && lk_has_letter(g->stop, a[j])) {
				*next = a[j + 1] ? i + 1 : i + 2;
				return a[j + 1]       ? a + j + 1
				       : i + 1 < argc ? argv[i + 1]
				                      : NULL;
			}
			if (g && (lk_has_letter(g->val, a[j]) ||
			          lk_has_letter(g->code, a[j]))) {
				i += !a[j + 1];
				break;
			}
		}
	}
	if (i < argc && ((m->how & LK_M_RUNS_FIRST) ||
	                 ((m->how & LK_M_RUNS_FLAG) && flag))) {
		*next = i + 1;
		return argv[i];
	}
	return NULL;
}

const char *lk_module_runs(const lk_interp *it, const char *mod,
                           const char *const *argv, size_t argc, size_t *at)
{
	for (unsigned depth = 0; it && it->modules && mod && depth < 4;
	     depth++) {
		const lk_module *m = it->modules;
		size_t mn = lk_module_name_len(mod);
		while (m->name && (strlen(m->name) != mn ||
		                   strncmp(m->name, mod, mn) != 0))
			m++;
		size_t next = 0;
		const char *inner =
		    m->name ? runner_inner(m, argv, argc, *at, &next) : NULL;
		if (!inner)
			break;
		mod = inner;
		*at = next;
	}
	return mod;
}

const char *lk_destroyed_file(const lk_program *p, const char *a)
{
	const char *k = p && p->destroys_by ? p->destroys_by->assign : NULL;
	size_t n = k ? strlen(k) : 0;
	return n && !strncmp(a, k, n) ? a + n : NULL;
}

bool lk_destroys_arg(const lk_program *p, const char *a)
{
	if (!p || !p->destroys_by)
		return false;
	return lk_bar_has(p->destroys_by->words, a, strlen(a)) ||
	       lk_destroyed_file(p, a);
}

unsigned lk_reads_word(const lk_reads *r, const char *w, const char **value)
{
	*value = NULL;
	if (w[0] != '-' || !w[1])
		return 0;
	if (w[1] == '-') {
		const char *name = w + 2, *eq = strchr(name, '=');
		size_t n = eq ? (size_t)(eq - name) : strlen(name);
		if (!lk_bar_has(r->file_long, name, n))
			return 0;
		*value = eq ? eq + 1 : NULL;
		return eq ? LK_RW_FILE : LK_RW_FILE | LK_RW_NEXT;
	}
	unsigned q = 0;
	for (const char *p = w + 1; *p; p++) {
		if (lk_has_letter(r->file, *p)) {
			*value = p[1] ? p + 1 : NULL;
			return q | LK_RW_FILE | (p[1] ? 0 : LK_RW_NEXT);
		}
		if (lk_has_letter(r->val, *p)) /* the rest is its value */
			return q | (p[1] ? 0 : LK_RW_NEXT);
		if (lk_has_letter(r->query, *p))
			q = LK_RW_QUERY;
	}
	return q;
}

/* The entry "name:LA" of a `longs` list whose name is the n bytes at
   name, whole (no abbreviation): its arity A, or 0 when absent. */
static char long_arity(const char *longs, const char *name, size_t n)
{
	for (const char *e = longs; e && *e;) {
		size_t len = strcspn(e, "|");
		if (len == n + 3 && e[n] == ':' && !memcmp(e, name, n))
			return e[n + 2];
		e += len + (e[len] == '|');
	}
	return 0;
}

static int long_word(const lk_optspec *s, const char *name)
{
	const char *eq = strchr(name, '=');
	size_t n = eq ? (size_t)(eq - name) : strlen(name);
	char a = n ? long_arity(s->longs, name, n) : 0;
	if (!a && n == 4 && !memcmp(name, "help", 4))
		a = '0';
	if (!a && n == 7 && !memcmp(name, "version", 7))
		a = '0';
	if (!a || ((a == '0' || a == 'c') && eq))
		return -1;
	if (a == 'c')
		return LK_OPTW_COMMAND;
	if (a == '0' || a == '?')
		return 0;
	return (a - '0') - (eq != NULL);
}

int lk_optspec_word(const lk_optspec *s, const char *w)
{
	if (!s || !w || w[0] != '-' || !w[1])
		return -1;
	if (w[1] == '-')
		return w[2] ? long_word(s, w + 2) : -1;
	for (const char *p = w + 1; *p; p++) {
		if ((s->flags & LK_OPT_NUMERIC) && isdigit((unsigned char)*p))
			return 0; /* -10: a number, to the end of the word */
		if (lk_has_letter(s->runs, *p))
			return p[1] ? -1 : LK_OPTW_COMMAND;
		if (lk_has_letter(s->short_val, *p))
			return p[1] ? 0 : 1; /* the rest, or the next word */
		if (lk_has_letter(s->short_opt, *p))
			return 0; /* an optional value, attached only */
		if (!lk_has_letter(s->short_flag, *p) &&
		    !lk_has_letter(s->query, *p))
			return -1;
	}
	return 0;
}

const char *lk_cluster_value(const char *spec, char c, const char *p)
{
	const char *e = spec;
	while (e && *e && !(e[0] == c && e[1] == ':')) {
		e = strchr(e, '|');
		e = e ? e + 1 : NULL;
	}
	if (!e || !*e)
		return NULL;
	const char *set = e + 2;
	size_t sn = strcspn(set, "|");
	bool number = memchr(set, '#', sn) != NULL,
	     value = memchr(set, '=', sn) != NULL, one = sn && set[0] == '1';
	if (number && (*p == 'x' || *p == 'X') &&
	    isxdigit((unsigned char)p[1])) {
		for (p++; isxdigit((unsigned char)*p);)
			p++;
	} else {
		bool any = memchr(set, '*', sn) != NULL;
		while (*p) {
			bool in = (number && isdigit((unsigned char)*p)) ||
			          (any && !strchr(" \t\n", *p)) ||
			          (*p != '#' && *p != '=' && *p != '1' &&
			           *p != '*' && memchr(set, *p, sn));
			if (!in)
				break;
			p++;
			if (one)
				break;
		}
	}
	if (value && (*p == ':' || *p == '='))
		p += strlen(p);
	return p;
}
