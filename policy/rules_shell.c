/*
 * policy/rules_shell.c - what permission rules need to know about shell
 * commands (docs/policy.md, "Claude Code settings"):
 *
 *   - git's global options, seen through when a rule is matched
 *     (`git -C repo push` is `git push` for Bash(git push:*));
 *   - options that carry an action (find -delete, sed -i, git -c, curl -o,
 *     --output...): a wildcard allow rule never covers them unless it
 *     spells them itself;
 *   - the paths a command reads or writes, so that Read and Edit rules
 *     reach the shell (a Read deny on .env applies to `cat .env`, an Edit
 *     deny on src/ to `echo x > src/a.c`).
 *
 * These are facts about programs, kept as tables.  When unsure which
 * words are paths, every non-option word is taken as one: for ask and
 * deny rules an extra candidate can only make a line stricter.
 */
#include <stdlib.h>
#include <string.h>

#include <pcre2.h>

#include "internal.h"
#include "../parser/linefacts.h"
#include "../util/regex.h"
#include "../util/str.h"

static bool word_static(const locus_shell_command *c, size_t i)
{
	return !c->argv_flags || !(c->argv_flags[i] & LOCUS_WORD_DYNAMIC);
}

/* --- git's global options ------------------------------------------------ */

/* Options before the subcommand; those taking a separate value first. */
static const char *const git_valued[] = {
    "-C",          "-c",           "--git-dir",      "--work-tree",
    "--namespace", "--config-env", "--super-prefix", "--list-cmds",
    NULL};
/* clang-format off */
static const char *const git_flags[] = {
	"-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--bare",
	"--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs",
	"--icase-pathspecs", "--no-optional-locks", "--no-advice",
	"--no-lazy-fetch", "--exec-path", NULL};
/* clang-format on */

static bool in(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (lu_streq(*l, s))
			return true;
	return false;
}

size_t pl_git_globals(const locus_shell_command *c)
{
	if (c->argc < 2 || !c->name || !lu_streq(c->name, "git"))
		return 0;
	size_t i = 1;
	while (i < c->argc && c->argv[i][0] == '-' && word_static(c, i)) {
		const char *w = c->argv[i];
		const char *eqs = strchr(w, '=');
		size_t kl = eqs ? (size_t)(eqs - w) : strlen(w);
		char key[32];
		if (!lu_copy_fits(key, sizeof key, w, kl))
			break;
		if (in(git_valued, key)) {
			i += eqs ? 1 : 2;
		} else if (in(git_flags, key)) {
			i += 1;
		} else {
			break; /* not a global option: stop seeing through */
		}
	}
	if (i > c->argc)
		i = c->argc; /* `git -C` with nothing after it */
	return i - 1;
}

/* --- options that carry an action ---------------------------------------- */

/*
 * Per program: options that make it act (delete, write, run, send).  A
 * trailing '*' matches any continuation (`-i*` is -i, -i.bak;
 * `--output*` is --output, --output=f).  "*" as the program applies to
 * every program.
 */
static const struct {
	const char *prog;
	const char *const opts[16];
	/* clang-format off */
} actions[] = {
	{"*", {"--output*", NULL}},
    /* clang-format on */
    {"find",
     {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0",
      "-fprintf", "-fls", NULL}},
    {"fd", {"-x", "--exec*", "-X", "--exec-batch*", NULL}},
    {"sed", {"-i*", "--in-place*", NULL}},
    {"git", {"-c", "--config-env*", "--exec-path=*", NULL}},
    {"gh",
     {"-X", "--method*", "-f", "-F", "--field*", "--raw-field*", "--input*",
      NULL}},
    {"curl",
     {"-o", "-O", "--remote-name*", "-T", "--upload-file*", "-d", "--data*",
      "-F", "--form*", "-X", "--request*", "-K", "--config*", NULL}},
    {"wget",
     {"-O", "--output-document*", "-o", "--post-data*", "--post-file*",
      "--method*", "-i", "--input-file*", NULL}},
    {"sort", {"-o", NULL}},
    {"tar",
     {"--to-command*", "--checkpoint-action*", "-I", "--use-compress-program*",
      "--rsh-command*", "--rmt-command*", NULL}},
    {"rsync",
     {"-e", "--rsh*", "--rsync-path*", "--delete*", "--remove-*", NULL}},
    {"xargs", {"-a", "--arg-file*", NULL}},
    /* Options that run code locus does not see (labels'
       unseen_opts): a makefile given on the line, a pager command */
    {"make", {"-E*", "--eval*", NULL}},
    {"less", {"+*", NULL}},
    {"more", {"+*", NULL}},
};

static bool opt_matches(const char *pat, const char *w)
{
	size_t pl = strlen(pat);
	if (pl && pat[pl - 1] == '*')
		return strncmp(w, pat, pl - 1) == 0;
	return lu_streq(pat, w);
}

/* Does a sed script call `w` (write), `W` or `e` (execute), as a command
 * or as an s/// flag?  Conservative: when unsure, yes. */
static bool sed_script_acts(const char *script)
{
	static const char re[] =
	    /* a command letter after an address or a separator */
	    "(?:^|[;\\n{}])\\s*(?:[0-9$]+|/(?:[^/\\\\]|\\\\.)*/)?"
	    "(?:,(?:[0-9$]+|/(?:[^/\\\\]|\\\\.)*/))?\\s*!?\\s*[wWe]"
	    /* or a flag of s/// */
	    "|s(.)(?:(?!\\1)[^\\\\]|\\\\.)*\\1(?:(?!\\1)[^\\\\]|\\\\.)*\\1"
	    "[gpiImM0-9]*[we]";
	pcre2_code *code = lu_re_compile(re, 0, false, NULL);
	if (!code)
		return true;
	lu_re_result m = lu_re_match_once(code, script, strlen(script), NULL);
	pcre2_code_free(code);
	return m != LU_RE_NOMATCH;
}

const char *pl_action_word(const locus_shell_command *c, size_t *from)
{
	const char *name = c->name ? c->name : "";
	bool sed = lu_streq(name, "sed");
	bool sed_script_seen = false;
	for (size_t i = *from; i < c->argc; i++) {
		const char *w = c->argv[i];
		for (size_t k = 0; k < sizeof(actions) / sizeof(actions[0]);
		     k++) {
			if (!lu_streq(actions[k].prog, "*") &&
			    !lu_streq(actions[k].prog, name))
				continue;
			for (size_t o = 0; actions[k].opts[o]; o++)
				if (opt_matches(actions[k].opts[o], w)) {
					*from = i;
					return w;
				}
		}
		if (!sed)
			continue;
		/* sed's script: the value of -e/--expression, else the first
		   word that is not an option */
		bool is_script = false;
		if (i > 1 && (lu_streq(c->argv[i - 1], "-e") ||
		              lu_streq(c->argv[i - 1], "--expression")))
			is_script = true;
		else if (strncmp(w, "--expression=", 13) == 0) {
			is_script = true;
			w += 13;
		} else if (w[0] != '-' && !sed_script_seen &&
		           !(i > 1 && (lu_streq(c->argv[i - 1], "-f") ||
		                       lu_streq(c->argv[i - 1], "--file"))))
			is_script = true;
		if (is_script) {
			sed_script_seen = true;
			if (!word_static(c, i) || sed_script_acts(w)) {
				*from = i;
				return c->argv[i];
			}
		}
	}
	return NULL;
}

/* --- the paths a command reads and writes ------------------------------- */

/* Programs whose operands are files they read. */
/* clang-format off */
static const char *const readers[] = {
	"cat", "tac", "head", "tail", "less", "more", "most", "grep", "egrep",
	"fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "mawk", "nawk", "cut",
	"sort", "uniq", "wc", "nl", "od", "xxd", "hexdump", "strings", "base64",
	"base32", "diff", "cmp", "comm", "md5sum", "sha1sum", "sha256sum",
	"sha512sum", "cksum", "file", "stat", "jq", "yq", "bat", "batcat",
	"view", "tar", "zcat", "bzcat", "xzcat", "gzip", "gunzip", "zip",
	"unzip", "cp", "paste", "join", "fold", "fmt", "pr", "tr", "iconv",
	"source", ".", "ls", "find", "tree", "du", "readlink", "realpath",
	"openssl", "gpg", "scp", "rsync", "split", "csplit", "look", "column",
	NULL};
/* clang-format on */

/* Programs whose operands are text, never a file they open
   (every other program's operands may be files it reads). */
/* clang-format off */
static const char *const text_only[] = {
    "echo",  "printf", "basename", "dirname", "which", "type", "command",
    "true",  "false",  ":",        "test",    "[",     "[[",   "expr",
    "sleep", "kill",   "export",   "unset",   "set",   "cd",   "pushd",
    "mkdir", NULL};
/* clang-format on */

/* Readers whose first operand is a pattern or program, not a file (unless
 * -e / -f / --regexp gives it). */
static const char *const pattern_first[] = {
    "grep", "egrep", "fgrep", "rg", "ag", "ack",  "sed", "awk",
    "gawk", "mawk",  "nawk",  "jq", "yq", "look", NULL};

/* Programs whose operands are files they change. */
static const char *const writers[] = {
    "tee", "truncate", "touch", "rm",    "rmdir",   "mkdir", "shred", "unlink",
    "mv",  "chmod",    "chown", "chgrp", "setfacl", "patch", NULL};

/* Programs whose last operand is the file or folder they write. */
static const char *const last_writers[] = {"cp",    "ln",  "install",
                                           "rsync", "scp", NULL};

static bool is_option(const locus_shell_command *c, size_t i)
{
	return word_static(c, i) && c->argv[i][0] == '-' && c->argv[i][1];
}

static const char *const input_ops[] = {"<", "<&", "<>", NULL};

/* A word for the callback: NULL for a value known only at run time. */
static int emit(const locus_shell_command *c, size_t i, pl_path_cb cb,
                void *ctx)
{
	return cb(ctx, word_static(c, i) ? c->argv[i] : NULL);
}

static int redirect_paths(const locus_shell_command *c, int kind, pl_path_cb cb,
                          void *ctx)
{
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *r = &c->redirects[i];
		bool rd = in(input_ops, r->op), wr = lk_redirect_writes(r);
		if (!((kind & PL_PATHS_READ) && rd) &&
		    !((kind & PL_PATHS_WRITE) && wr))
			continue;
		const char *t = r->target;
		if (!(r->target_flags & LOCUS_WORD_DYNAMIC) &&
		    (lu_streq(t, "-") || strspn(t, "0123456789") == strlen(t) ||
		     lu_streq(t, "/dev/null")))
			continue; /* a descriptor, or nothing */
		int rc =
		    cb(ctx, (r->target_flags & LOCUS_WORD_DYNAMIC) ? NULL : t);
		if (rc)
			return rc;
	}
	return 0;
}

/* The operands (non-option words) of c, from argv[1]. */
static size_t operands(const locus_shell_command *c, size_t *idx, size_t cap)
{
	size_t n = 0;
	bool ended = false;
	for (size_t i = 1; i < c->argc && n < cap; i++) {
		if (!ended && word_static(c, i) && lu_streq(c->argv[i], "--")) {
			ended = true;
			continue;
		}
		if (!ended && is_option(c, i))
			continue;
		idx[n++] = i;
	}
	return n;
}

static bool has_option(const locus_shell_command *c, const char *const *opts)
{
	for (size_t i = 1; i < c->argc; i++)
		for (size_t k = 0; opts[k]; k++)
			if (strncmp(c->argv[i], opts[k], strlen(opts[k])) == 0)
				return true;
	return false;
}

static int operand_paths(const locus_shell_command *c, int kind, pl_path_cb cb,
                         void *ctx, const size_t *idx, size_t n);

static int command_paths(const locus_shell_command *c, int kind, pl_path_cb cb,
                         void *ctx)
{
	int rc = redirect_paths(c, kind, cb, ctx);
	if (rc || c->argc == 0 || !c->name)
		return rc;
	/* every operand (a fixed 256 let the 257th path of a long command
	   line past the Read/Edit rules); out of memory: a path
	   known only at run time, which the rules treat as a match */
	size_t *idx = malloc(c->argc * sizeof *idx);
	if (!idx)
		return cb(ctx, NULL);
	size_t n = operands(c, idx, c->argc);
	rc = operand_paths(c, kind, cb, ctx, idx, n);
	free(idx);
	return rc;
}

/* command_paths() over the operands idx[0..n-1] of c. */
static int operand_paths(const locus_shell_command *c, int kind, pl_path_cb cb,
                         void *ctx, const size_t *idx, size_t n)
{
	int rc = 0;
	const char *name = c->name;
	size_t first = 0;
	static const char *const pattern_opts[] = {
	    "-e", "-f", "--regexp", "--file", "--expression", NULL};
	if (in(pattern_first, name) && !has_option(c, pattern_opts))
		first = 1;
	bool search = lu_streq(name, "grep") || lu_streq(name, "rg") ||
	              lu_streq(name, "ag") || lu_streq(name, "egrep") ||
	              lu_streq(name, "fgrep");
	if (kind & PL_PATHS_READ) {
		/* A program not known to read only its file operands
		   (git diff --no-index, an interpreter, an unknown tool) may
		   read any operand or option value: a Read deny on ~/.ssh/...
		   holds against every spelling (more candidates only make an
		   ask or deny rule stricter; allow rules never read these) */
		if (!in(readers, name) && !in(text_only, name)) {
			for (size_t k = 0; k < n && !rc; k++)
				rc = emit(c, idx[k], cb, ctx);
			for (size_t i = 1; i < c->argc && !rc; i++) {
				const char *eqv = strchr(c->argv[i], '=');
				if (is_option(c, i) && eqv && eqv[1])
					rc = cb(ctx, eqv + 1);
			}
		}
		if (in(readers, name)) {
			for (size_t k = first; k < n && !rc; k++)
				rc = emit(c, idx[k], cb, ctx);
			/* a recursive search without a root searches "." */
			if (!rc && search && n <= first &&
			    (lu_streq(name, "rg") || lu_streq(name, "ag") ||
			     has_option(c, (const char *const[]){"-r", "-R",
			                                         "--recursive",
			                                         NULL})))
				rc = cb(ctx, ".");
		}
		for (size_t i = 1; i < c->argc && !rc; i++)
			if (strncmp(c->argv[i], "if=", 3) == 0 &&
			    lu_streq(name, "dd"))
				rc = word_static(c, i) ? cb(ctx, c->argv[i] + 3)
				                       : cb(ctx, NULL);
	}
	if ((kind & PL_PATHS_WRITE) && !rc) {
		bool sed_i =
		    lu_streq(name, "sed") &&
		    has_option(c,
		               (const char *const[]){"-i", "--in-place", NULL});
		if (in(writers, name) || sed_i)
			for (size_t k = sed_i ? first : 0; k < n && !rc; k++)
				rc = emit(c, idx[k], cb, ctx);
		else if (in(last_writers, name) && n >= 2)
			rc = emit(c, idx[n - 1], cb, ctx);
		for (size_t i = 1; i < c->argc && !rc; i++)
			if (strncmp(c->argv[i], "of=", 3) == 0 &&
			    lu_streq(name, "dd"))
				rc = word_static(c, i) ? cb(ctx, c->argv[i] + 3)
				                       : cb(ctx, NULL);
	}
	return rc;
}

int pl_shell_paths(const locus_shell_result *sh, int kind, pl_path_cb cb,
                   void *ctx)
{
	size_t n = sh ? locus_shell_result_count(sh) : 0;
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *c =
		    locus_shell_result_command(sh, i);
		int rc = c ? command_paths(c, kind, cb, ctx) : 0;
		if (rc)
			return rc;
	}
	return 0;
}
