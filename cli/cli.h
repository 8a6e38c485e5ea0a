/*
 * cli/cli.h - the `locus` command's subcommands.
 *
 * main.c dispatches `locus NAME ARGS...` to cli_NAME(argc, argv) with
 * argv[0] == "NAME".  Each returns the process exit status: 0 success,
 * 2 usage error or malformed input (after processing the other inputs),
 * other codes as the subcommand documents.  Only cli/ prints or exits.
 */
#ifndef LOCUS_CLI_H
#define LOCUS_CLI_H

#include <stdbool.h>
#include <stdio.h>

int cli_classify(int argc, char **argv); /* cli/classify.c */
int cli_corpus(int argc, char **argv);   /* cli/corpus.c */

/* The workspace root shell corpus cases are judged against
   (docs/corpus.md). */
#define CLI_CORPUS_ROOT "/home/user/project"

int cli_gate(int argc, char **argv);   /* cli/gate.c (policy engine) */
int cli_policy(int argc, char **argv); /* cli/policy.c: policy show */
int cli_audit(int argc, char **argv);  /* cli/audit.c: audit verify */
/* cli/audit_transcripts.c: `locus audit transcripts` (argv[1] ==
   "transcripts") */
int cli_audit_transcripts(int argc, char **argv);
/* cli/policy_fuzz_cmd.c: `locus policy fuzz` (argv[1] == "fuzz") */
int cli_policy_fuzz(int argc, char **argv);
int cli_tool(int argc, char **argv); /* cli/tool.c (harness) */
int cli_jail(int argc, char **argv); /* cli/jail.c: locus jail */
int cli_hook(int argc, char **argv); /* cli/hook.c: agent hooks */
/* cli/hook_install.c: `locus hook install ...` and `locus hook doctor`. */
int cli_hook_install(int argc, char **argv);
int cli_hook_doctor(int argc, char **argv);
int cli_mcp(int argc, char **argv);     /* cli/mcp.c: MCP server */
int cli_runner(int argc, char **argv);  /* cli/runner.c: the box runner */
int cli_gateway(int argc, char **argv); /* cli/gateway.c: the gateway */

/*
 * Policy golden cases, hooked into `locus corpus` (cli/corpus.c).  A file is
 * handed to this runner when its first non-comment line is `format: policy`
 * or when it sits in a directory named `policy` (corpus/policy/...).  The
 * runner prints each failure to `out` (expected vs got), adds its counts to
 * *passed and *failed, and returns 0, or 2 on a format error in the file.
 * Defined in cli/gate.c; the format is in docs/corpus.md.
 */
int cli_corpus_policy_file(const char *path, FILE *out, int *passed,
                           int *failed);

/* cli/backend.c: the cloud sandbox backends' --oci-* options. */
#include "locus/harness.h"
#include "openshell_cli.h"
typedef struct cli_backend_opts {
	locus_oci_options oci;
	bool any_oci;
	cli_openshell os;          /* --openshell-* (cli/openshell_cli.c) */
	locus_bwrap_options bwrap; /* --bwrap-uid, --bwrap-gid */
	bool any_bwrap;
	/* --base-env NAME[,NAME...] (local backend): the variables its
	   commands get (the argument as given); NULL: all of them. */
	const char *base_env;
} cli_backend_opts;
void cli_backend_init(cli_backend_opts *o);
/* argv[*i] is one of ours: 1 (and *i moved past its value), not ours: 0,
   ours but malformed: -1. */
int cli_backend_flag(cli_backend_opts *o, int argc, char **argv, int *i);
/* Build backend "oci" or "openshell" from the options; 0 or a LOCUS_E*
   code with the message in err. */
int cli_backend_open(const cli_backend_opts *o, const char *backend,
                     locus_backend **out, locus_error *err);
/* The bwrap session over root (with --bwrap-uid/--bwrap-gid) and the
   SessionBackend over it; 0 or a LOCUS_E* code with the message in err.
   A --bwrap-* option with another backend is LOCUS_EINVALID. */
int cli_bwrap_open(const cli_backend_opts *o, const char *root,
                   locus_backend **out, locus_error *err);
/* The backend when --backend is not given: the bwrap sandbox.  Where it
   cannot start there is no fallback to the unconfined local backend: the
   caller refuses, printing the reason and then this text (the way to
   choose the local backend on purpose). */
#define CLI_DEFAULT_BACKEND "bwrap"
#define CLI_BWRAP_DEFAULT_FAILED                                               \
	"the bwrap sandbox is the default backend and locus never falls "      \
	"back to running commands unconfined: fix the cause above, or give "   \
	"--backend local to run them on the host (a host shell, no isolation)"
int cli_bwrap_check(const cli_backend_opts *o, const char *backend,
                    locus_error *err);
/* The LocalBackend over real (with --base-env); 0 or a LOCUS_E* code.
   NULL real: another backend was chosen with --base-env, LOCUS_EINVALID. */
int cli_local_open(const cli_backend_opts *o, const char *real,
                   locus_backend **out, locus_error *err);

/* cli/util.c: the subcommand's name ("gate") for messages of shared
   helpers ("locus gate: ..."), "" before main sets it. */
void cli_set_command(const char *name);
const char *cli_command(void);

/* cli/util.c: the path of the executable `name` in the directory of the
   running one (/proc/self/exe), into out (cap bytes); false when it
   cannot be read or does not fit.  `locus gateway` runs locus-gateway
   there, and the gateway runs `locus` from beside itself. */
bool cli_sibling_exe(const char *name, char *out, size_t cap);

/* cli/gateway_exec.c: `locus gateway ARGS`: replaces this process with
   locus-gateway ARGS (same pid); returns only when that fails (1). */
int cli_gateway_exec(int argc, char **argv);

/* cli/util.c: `dir` as an absolute, symlink-free path (realpath), malloc'd;
   NULL when it is not an existing directory. */
char *cli_absolute_dir(const char *dir);

/* cli/lines.c: the lines of `f`.  cli_lines_next() gives the next one in
   *line (NUL-terminated, owned by `l`, valid until the next call) with
   its "\n" removed and its length, NUL bytes counted, in *n, and counts
   it in l->lineno (from 1); false at the end of input or on a read error
   (ferror(f) tells which).  cli_lines_free() frees the buffer.
   A front end that answers each line sets `answers` (stdout): before
   waiting for input that is not there yet, cli_lines_next() flushes it, so
   a client that waits for one answer per line gets it at once, and a batch
   from a file or a full pipe is not written a line at a time.
   cli_lines_idle(): nothing is waiting on the stream's fd. */
typedef struct cli_lines {
	FILE *f;
	char *buf;
	size_t cap;
	unsigned long lineno; /* of the line last returned */
	FILE *answers;        /* flushed before a wait for input, or NULL */
} cli_lines;
#define CLI_LINES_INIT(f)                                                      \
	{                                                                      \
		(f), NULL, 0, 0, NULL                                          \
	}
bool cli_lines_idle(const cli_lines *l);
bool cli_lines_next(cli_lines *l, char **line, size_t *n);
void cli_lines_free(cli_lines *l);

#endif
