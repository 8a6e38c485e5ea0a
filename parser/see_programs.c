/*
 * parser/see_programs.c - programs that run commands found in their
 * arguments: xargs, parallel, find -exec, fd -x, ssh's remote command and
 * config, watch, at, crontab, make, program-valued options
 * (--rsh=CMD, --pager=CMD ...), and dynamic subcommands.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "seethrough.h"

/* ---- xargs, parallel, find, fd ---------------------------------------- */

/*
 * Scan the options of a see-through program (`name`, from the spec table)
 * in words[pos..n).  False when it runs nothing to see: an unknown option
 * (the line is then unparsed: we cannot tell where its command starts), a
 * query-only form, or an option that takes no command.
 */
static bool scan_program(lp_ctx *ctx, const char *name,
                         const lp_raw_command *raw, size_t n, size_t pos,
                         lp_optscan *sc)
{
	lp_optscan_run(lp_program_spec(name), raw->words, n, pos, sc);
	if (sc->unknown) {
		lp_unparsed(ctx, "unknown option %s of %s", sc->unknown, name);
		return false;
	}
	return !sc->query && !sc->nocmd;
}

/* Emit words[0..n) of `raw` as the command a program runs with its
   input put in per `in` (input.c). */
static void emit_with_input(lp_ctx *ctx, const lp_raw_command *raw,
                            const lp_word *words, size_t n, const lp_input *in,
                            const char *origin, size_t idx)
{
	size_t m;
	if (n == 0)
		return; /* no command (`fd -x`): the program refuses it */
	lp_word *w = lp_input_words(ctx, in, words, n, &m);
	if (w)
		lp_emit_nested(ctx, raw, w, m, origin, idx,
		               LOCUS_CMD_DYNAMIC_ARGS);
}

void lp_see_xargs(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                  size_t idx)
{
	lp_optscan sc;
	if (!scan_program(ctx, "xargs", raw, raw->nwords, pos, &sc))
		return;
	/* Without -I, xargs appends its input to the command; with -I R
	   it puts it where R stands: run-time words either way. */
	bool replace = sc.seen['I'] || sc.seen['i'];
	const char *rs = sc.replace;
	lp_input in = {replace ? LP_INPUT_REPLACE : LP_INPUT_APPEND,
	               replace ? (rs && *rs ? rs : "{}") : NULL, false,
	               sc.seen['a'] ? NULL : lp_input_piped(ctx, raw)};
	if (replace && sc.replace_dynamic) {
		lp_unparsed(ctx, "xargs -I has a replace string only known "
		                 "at run time");
		return;
	}
	/* -I R with R other than {}: a shell script holding R runs input */
	if (rs && *rs && strcmp(rs, "{}")) {
		bool shell = false, holds = false;
		for (size_t i = sc.cmd; i < raw->nwords; i++) {
			const char *v = wval(&raw->words[i]);
			shell |= lp_is_shell(lp_base_name(v));
			holds |= i > sc.cmd && strstr(v, rs) != NULL;
		}
		if (shell && holds)
			lp_unparsed(ctx,
			            "xargs puts its input into a shell "
			            "script (-I %s)",
			            rs);
	}
	/* xargs -I X X ARGS: the program is the input */
	if (replace && sc.cmd < raw->nwords &&
	    strstr(wval(&raw->words[sc.cmd]), in.replace))
		lp_unparsed(ctx,
		            "xargs fills the program name in from its input "
		            "(-I %s)",
		            in.replace);
	if (sc.cmd >= raw->nwords) {
		lp_word *echo = lp_arena_alloc(ctx->arena, sizeof *echo);
		if (!echo)
			return;
		echo->value = echo->text = "echo";
		emit_with_input(ctx, raw, echo, 1, &in, LOCUS_ORIGIN_XARGS,
		                idx);
		return;
	}
	emit_with_input(ctx, raw, raw->words + sc.cmd, raw->nwords - sc.cmd,
	                &in, LOCUS_ORIGIN_XARGS, idx);
}

static bool is_parallel_sep(const lp_word *w)
{
	const char *v = wval(w);
	return !wdyn(w) && (lu_streq(v, ":::") || lu_streq(v, "::::") ||
	                    lu_streq(v, ":::+") || lu_streq(v, "::::+"));
}

/* The literal option `opt` is among words (from..to) of raw. */
static bool has_long(const lp_raw_command *raw, size_t from, size_t to,
                     const char *opt)
{
	for (size_t i = from + 1; i < to && i < raw->nwords; i++)
		if (!wdyn(&raw->words[i]) &&
		    lu_streq(wval(&raw->words[i]), opt))
			return true;
	return false;
}

/* What parallel's input is (lp_input.value): the arguments after :::
   (`$(echo ARGS)`), or its stdin's producer; NULL when it reads a file
   (-a, ::::). */
static const char *parallel_source(lp_ctx *ctx, const lp_raw_command *raw,
                                   const lp_optscan *sc, size_t sep)
{
	size_t n = raw->nwords;
	if (sc->seen['a'])
		return NULL;
	if (sep >= n)
		return lp_input_piped(ctx, raw);
	for (size_t i = sep; i < n; i++)
		if (is_parallel_sep(&raw->words[i]) &&
		    strcmp(wval(&raw->words[i]), ":::"))
			return NULL;
	lp_word *args = lp_arena_alloc(ctx->arena, n * sizeof *args);
	size_t m = 0;
	if (!args)
		return NULL;
	for (size_t i = sep; i < n; i++)
		if (!is_parallel_sep(&raw->words[i]))
			args[m++] = raw->words[i];
	return lp_input_subst(ctx, "echo", args, 0, m);
}

/* parallel's command text words[from..to), its input put in: parsed
   with the words holding a replacement string flagged (ctx->input),
   `{}` appended when none holds one (parallel appends the input). */
static void parallel_text(lp_ctx *ctx, const lp_raw_command *raw, size_t from,
                          size_t to, const lp_input *in, size_t idx)
{
	const char *text = lp_join_words(ctx, raw->words, from, to, false);
	if (!text)
		return;
	if (!lp_input_flags(in, text))
		text = lp_arena_printf(ctx->arena, "%s {}", text);
	const lp_input *outer = ctx->input;
	ctx->input = in;
	lp_parse_text(ctx, text, LOCUS_ORIGIN_PARALLEL, idx, raw->depth + 1);
	ctx->input = outer;
}

/* GNU parallel composes a command line and runs it with a shell, unless
   -q quotes it: without -q the command words are shell text.  Its input
   (or the arguments after :::) fills the replacement strings in, or is
   appended: run-time words (input.c). */
void lp_see_parallel(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                     size_t idx)
{
	lp_optscan sc;
	size_t n = raw->nwords;
	if (!scan_program(ctx, "parallel", raw, n, pos, &sc))
		return;
	size_t sep = sc.cmd;
	while (sep < n && !is_parallel_sep(&raw->words[sep]))
		sep++;
	if (sep > sc.cmd) {
		lp_input in = {LP_INPUT_PARALLEL, sc.replace,
		               has_long(raw, pos, sc.cmd, "--plus"),
		               parallel_source(ctx, raw, &sc, sep)};
		if (sc.replace && sc.replace_dynamic) {
			lp_unparsed(ctx, "parallel -I has a replace string "
			                 "only known at run time");
			return;
		}
		if (sc.seen['q'])
			emit_with_input(ctx, raw, raw->words + sc.cmd,
			                sep - sc.cmd, &in,
			                LOCUS_ORIGIN_PARALLEL, idx);
		else
			parallel_text(ctx, raw, sc.cmd, sep, &in, idx);
		return;
	}
	/* No command: the arguments are the commands. */
	if (sep >= n || strcmp(wval(&raw->words[sep]), ":::")) {
		lp_unparsed(ctx, "parallel runs commands read from its input");
		return;
	}
	for (size_t i = sep + 1; i < n; i++) {
		const lp_word *w = &raw->words[i];
		if (is_parallel_sep(w)) {
			if (strcmp(wval(w), ":::")) {
				lp_unparsed(ctx, "parallel runs commands read "
				                 "from a file");
				return;
			}
			continue;
		}
		if (wdyn(w)) {
			lp_unparsed(ctx,
			            "parallel runs a command only known "
			            "at run time: %s",
			            w->text ? w->text : "");
			return;
		}
		if (raw->depth + 1 > lp_max_depth(ctx)) {
			lp_unparsed(ctx, "see-through deeper than %u levels",
			            lp_max_depth(ctx));
			return;
		}
		lp_parse_text(ctx, wval(w), LOCUS_ORIGIN_PARALLEL, idx,
		              raw->depth + 1);
	}
}

/* The command of find -exec / fd -x at words[start..end): emitted, and
   the line unparsed when its program holds the placeholder (the file
   found becomes the program). */
static void emit_exec(lp_ctx *ctx, const lp_raw_command *raw, size_t start,
                      size_t end, const char *placeholder, const char *what,
                      const char *origin, size_t idx, const lp_input *in)
{
	const lp_word *w = raw->words;
	if (start < end && strstr(wval(&w[start]), placeholder))
		lp_unparsed(ctx, "%s runs the file it found as the program: %s",
		            what, wval(&w[start]));
	if (in) {
		emit_with_input(ctx, raw, w + start, end - start, in, origin,
		                idx);
		return;
	}
	const lp_word *fw = lp_input_find_words(ctx, w + start, end - start);
	if (fw)
		lp_emit_nested(ctx, raw, fw, end - start, origin, idx, 0);
}

/* clang-format off */
static const char *const find_exec[] = {
	"-exec", "-execdir", "-ok", "-okdir", NULL,
};
/* find primaries and fd options whose next word is their value */
static const char *const find_valued[] = {
	"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename",
	"-regex", "-iregex", "-lname", "-ilname", "-type", "-xtype",
	"-newer", "-anewer", "-cnewer", "-user", "-group", "-perm", "-size",
	"-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin", "-used",
	"-maxdepth", "-mindepth", "-samefile", "-inum", "-links", "-fstype",
	"-uid", "-gid", "-printf", "-fprintf", "-fprint", "-fprint0", "-fls",
	"-context", "-regextype", NULL,
};
static const char *const fd_valued[] = {
	"-e", "--extension", "-t", "--type", "-d", "--max-depth",
	"--min-depth", "--exact-depth", "-E", "--exclude", "-S", "--size",
	"-c", "--color", "-j", "--threads", "--changed-within",
	"--changed-before", "-o", "--owner", "--base-directory",
	"--path-separator", "--search-path", "--max-results",
	"--max-buffer-time", "--ignore-file", "--batch-size", "--format", NULL,
};
/* clang-format on */

/* fd -x CMD... [;]  fd -X CMD... [;] (also in a cluster such as -Hx) */
static bool is_fd_exec(const char *v)
{
	/* a prefix of --exec or --exec-batch too: fd (clap) refuses it, a
	   getopt-style reader would take it; read as the option, the line
	   only over-reports (found by fuzz_bypass) */
	size_t vl = strlen(v);
	if (vl > 2 && !strncmp(v, "--exec-batch", vl < 13 ? vl : 13))
		return true;
	if (v[0] != '-' || v[1] == '-' || !v[1])
		return false;
	size_t n = strlen(v);
	for (size_t i = 1; i < n; i++)
		if (!isalpha((unsigned char)v[i]))
			return false;
	return v[n - 1] == 'x' || v[n - 1] == 'X';
}

/* fd's exec option with its command in the same word: `--exec=CMD`,
   `--exec-batch=CMD` (or a prefix of them before the '='), `-xCMD`,
   `-HxCMD` (clap takes the rest of a cluster as the value).  The command
   is not followed there: the line is unparsed (found by a red-team pass:
   `fd -e log -xrm` ran rm on every file unseen). */
static bool is_fd_exec_attached(const char *v)
{
	const char *eq = strchr(v, '=');
	if (v[0] == '-' && v[1] == '-' && eq) {
		size_t n = (size_t)(eq - v);
		return n > 2 && !strncmp(v, "--exec-batch", n < 13 ? n : 13);
	}
	if (v[0] != '-' || v[1] == '-' || !v[1])
		return false;
	for (size_t i = 1; v[i] && isalpha((unsigned char)v[i]); i++)
		if ((v[i] == 'x' || v[i] == 'X') && v[i + 1])
			return true;
	return false;
}

static bool is_find_exec(const char *v)
{
	return lp_in_list(find_exec, v);
}

/* How find and fd take the option that runs a command. */
typedef struct exec_grammar {
	const char *prog;
	const char *const *valued;      /* options whose next word is a value */
	bool (*is_exec)(const char *v); /* a literal option that runs one */
	bool terminated; /* find: -exec needs a later `;` or `+` (without
	                    one find refuses the line and runs nothing) */
} exec_grammar;

static const exec_grammar find_grammar = {"find", find_valued, is_find_exec,
                                          true};
static const exec_grammar fd_grammar = {"fd", fd_valued, is_fd_exec, false};

/* A `;` or `+` may end a command started after word i: a literal one
   after it, or a run-time word after it. */
static bool may_terminate(const lp_word *w, size_t n, size_t i)
{
	for (size_t j = i + 1; j < n; j++)
		if (wdyn(&w[j]) || lu_streq(wval(&w[j]), ";") ||
		    lu_streq(wval(&w[j]), "+"))
			return true;
	return false;
}

/*
 * Word i of find or fd, only known at run time, may be the option that
 * runs a command (`fd "--$x" rm -rf` is `fd --exec rm -rf` for x=exec,
 * `find . "-$x" rm {} \;` is find -exec; fuzz-bypass found the fd form):
 * the line is then unparsed, and true is returned.  Not when its first
 * byte is known and not '-' and it cannot split (lp_word_may_be_option;
 * for find lp_dyn_may_be_option, as -exec takes no value in its own
 * word: a lone "$x" ending the line is no -exec), and for find not
 * when it cannot split and either no `;` or `+` may follow or the word
 * after it is a literal option (`find "$dir" -name x -exec grep y {} +`:
 * with dir=-exec the command would be the program `-name`, which PATH
 * holds nowhere).  The caller skips the values of valued options and
 * the commands of literal exec options.
 */
static bool dynamic_exec_word(lp_ctx *ctx, const lp_word *w, size_t n, size_t i,
                              const exec_grammar *g)
{
	/* fd (clap) takes `--exec=CMD` and `-xCMD` in one word; find's
	   -exec never does */
	if (g->terminated ? !lp_dyn_may_be_option(w, n, i)
	                  : !lp_word_may_be_option(&w[i]))
		return false;
	if (g->terminated && !lp_dyn_may_split(&w[i]) &&
	    (!may_terminate(w, n, i) ||
	     (i + 1 < n && !wdyn(&w[i + 1]) && wval(&w[i + 1])[0] == '-')))
		return false;
	lp_unparsed(ctx,
	            "%s has an argument only known at run time that may be "
	            "an option running a command: %s",
	            g->prog, w[i].text ? w[i].text : "");
	return true;
}

/* Word i is a literal option of g taking the next word as its value:
   the index of that value when it cannot split (`find . -name "$x"`,
   `fd -e "$ext"`), else i (an unquoted `-name $x` may split into
   `x -exec rm -rf / ;`, so it is read as words of its own). */
static size_t skip_value(const lp_word *w, size_t n, size_t i,
                         const exec_grammar *g)
{
	if (!lp_in_list(g->valued, wval(&w[i])) || i + 1 >= n ||
	    (wdyn(&w[i + 1]) && lp_dyn_may_split(&w[i + 1])))
		return i;
	return i + 1;
}

/* A run-time word of the command words[start..end) (of n) that find -exec
   or fd -x runs may be the `;` that ends it, and the words after it the
   program's own: one of those that runs a command (`find . -exec echo
   "$x" -exec rm -rf {} \;` with x=';') makes the line unparsed (true). */
static bool exec_may_end_early(lp_ctx *ctx, const lp_word *w, size_t n,
                               size_t start, size_t end, const exec_grammar *g)
{
	size_t k = start;
	while (k < end && !wdyn(&w[k]))
		k++;
	for (size_t m = k + 1; m < end; m++) {
		if (wdyn(&w[m])) {
			if (dynamic_exec_word(ctx, w, n, m, g))
				return true;
		} else if (g->is_exec(wval(&w[m]))) {
			lp_unparsed(ctx,
			            "a word only known at run time may end the "
			            "command %s runs before %s",
			            g->prog, wval(&w[m]));
			return true;
		}
	}
	return false;
}

void lp_see_find(lp_ctx *ctx, const lp_raw_command *raw, size_t pos, size_t idx)
{
	const lp_word *w = raw->words;
	size_t n = raw->nwords;
	for (size_t i = pos + 1; i < n; i++) {
		if (wdyn(&w[i])) {
			if (dynamic_exec_word(ctx, w, n, i, &find_grammar))
				return;
			continue;
		}
		if (!is_find_exec(wval(&w[i]))) {
			i = skip_value(w, n, i, &find_grammar);
			continue;
		}
		size_t start = i + 1, j = start;
		/* `;` ends it; `+` only right after {} */
		for (; j < n; j++) {
			const char *v = wval(&w[j]);
			if (wdyn(&w[j]))
				continue;
			if (lu_streq(v, ";"))
				break;
			if (lu_streq(v, "+") && j > start &&
			    lu_streq(wval(&w[j - 1]), "{}"))
				break;
		}
		emit_exec(ctx, raw, start, j, "{}", "find -exec",
		          LOCUS_ORIGIN_FIND_EXEC, idx, NULL);
		if (exec_may_end_early(ctx, w, n, start, j, &find_grammar))
			return;
		i = j;
	}
}

/* `$(fd ...)`: fd's words w[pos..n) without its exec option at x and
   the command after it up to end (its `;`), as lp_input.value. */
static const char *fd_source(lp_ctx *ctx, const lp_word *w, size_t n,
                             size_t pos, size_t x, size_t end)
{
	lp_word *v = lp_arena_alloc(ctx->arena, n * sizeof *v);
	size_t m = 0;
	if (!v)
		return NULL;
	for (size_t i = pos; i < n; i++)
		if (i < x || i > end)
			v[m++] = w[i];
	return lp_input_subst(ctx, NULL, v, 0, m);
}

void lp_see_fd(lp_ctx *ctx, const lp_raw_command *raw, size_t pos, size_t idx)
{
	const lp_word *w = raw->words;
	size_t n = raw->nwords;
	bool options = true; /* before fd's `--`: after it, operands */
	for (size_t i = pos + 1; i < n; i++) {
		if (wdyn(&w[i])) {
			if (options &&
			    dynamic_exec_word(ctx, w, n, i, &fd_grammar))
				return;
			continue;
		}
		if (lu_streq(wval(&w[i]), "--"))
			options = false;
		if (options && is_fd_exec_attached(wval(&w[i]))) {
			lp_unparsed(
			    ctx,
			    "fd runs a command given in the option's own "
			    "word: %s",
			    wval(&w[i]));
			return;
		}
		/* a literal -x after `--` is a pattern, but read as -x: the
		   safe side */
		if (!is_fd_exec(wval(&w[i]))) {
			if (options)
				i = skip_value(w, n, i, &fd_grammar);
			continue;
		}
		size_t start = i + 1, j = start;
		for (; j < n; j++)
			if (!wdyn(&w[j]) && lu_streq(wval(&w[j]), ";"))
				break;
		/* fd -x/-X puts the file found where its placeholders
		   stand, or appends it: the output of fd without -x */
		lp_input in = {LP_INPUT_FD, NULL, false,
		               fd_source(ctx, w, n, pos, i, j)};
		emit_exec(ctx, raw, start, j, "{", "fd -x",
		          LOCUS_ORIGIN_FD_EXEC, idx, &in);
		if (exec_may_end_early(ctx, w, n, start, j, &fd_grammar))
			return;
		i = j;
	}
}

/* ---- ssh, watch ------------------------------------------------------ */

void lp_see_ssh(lp_ctx *ctx, const lp_raw_command *raw, size_t pos, size_t idx)
{
	lp_optscan sc;
	if (!scan_program(ctx, "ssh", raw, raw->nwords, pos, &sc) ||
	    sc.cmd >= raw->nwords)
		return;
	/* the remote shell gets the words joined with spaces */
	lp_parse_text(
	    ctx, lp_join_words(ctx, raw->words, sc.cmd, raw->nwords, false),
	    LOCUS_ORIGIN_SSH, idx, raw->depth + 1);
}

void lp_see_watch(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                  size_t idx)
{
	lp_optscan sc;
	if (!scan_program(ctx, "watch", raw, raw->nwords, pos, &sc) ||
	    sc.cmd >= raw->nwords)
		return;
	if (sc.seen['x']) {
		lp_emit_nested(ctx, raw, raw->words + sc.cmd,
		               raw->nwords - sc.cmd, LOCUS_ORIGIN_WATCH, idx,
		               0);
		return;
	}
	/* watch runs `sh -c` with its arguments joined by spaces */
	lp_parse_text(
	    ctx, lp_join_words(ctx, raw->words, sc.cmd, raw->nwords, false),
	    LOCUS_ORIGIN_WATCH, idx, raw->depth + 1);
}

/* ---- scheduled and stdin-fed programs --------------------------------- */

/*
 * The options of a program that runs a file it names (the row's lk_reads:
 * at -f JOB, make -f MAKEFILE), one word at i: the option's bits, *i past
 * a value in the next word, *file the file named (NULL if none).  A file
 * option left without its value before a heredoc is `-`: tree-sitter-bash
 * drops a lone `-` right before `<<` (`make -f - <<EOF` reads as `make
 * -f`), and a real `make -f <<EOF` fails without running anything.
 */
static unsigned read_option(const lp_raw_command *raw, const lk_reads *r,
                            size_t *i, const char **file)
{
	const char *attached;
	unsigned bits = lk_reads_word(r, wval(&raw->words[*i]), &attached);
	*file = attached;
	if (!(bits & LK_RW_NEXT))
		return bits;
	if (*i + 1 < raw->nwords)
		*file = wval(&raw->words[++*i]);
	else
		*file = raw->stdin_kind == LP_STDIN_HEREDOC ? "-" : "";
	if (!(bits & LK_RW_FILE))
		*file = NULL;
	return bits;
}

/* The lk_reads row of the program at words[pos]. */
static const lk_reads *reads_of(const lp_raw_command *raw, size_t pos)
{
	const lk_program *p = lp_program(wval(&raw->words[pos]));
	return p ? p->reads : NULL;
}

/* at/batch read a shell script on stdin (or -f FILE) and run it later. */
void lp_see_at(lp_ctx *ctx, const lp_raw_command *raw, size_t pos, size_t idx)
{
	const lk_reads *r = reads_of(raw, pos);
	for (size_t i = pos + 1; r && i < raw->nwords; i++) {
		const lp_word *w = &raw->words[i];
		if (wdyn(w) || lu_streq(wval(w), "--"))
			continue;
		const char *f;
		unsigned bits = read_option(raw, r, &i, &f);
		if (bits & LK_RW_FILE) {
			if (!lp_in_list(lp_stdin_paths, f))
				return; /* a file: see written.c */
		} else if (bits & LK_RW_QUERY) {
			return; /* list, remove, cat, version: nothing queued */
		}
	}
	if (lp_stdin_procsub(raw)) {
		lp_unparsed(ctx, "at reads its script from a process "
		                 "substitution");
		return;
	}
	if (raw->stdin_kind == LP_STDIN_FILE && raw->stdin_text &&
	    strcmp(raw->stdin_text, "/dev/null")) {
		/* `at now < job`: a file, maybe one the line wrote */
		lp_unparsed(ctx, "at reads its script from a file: %s",
		            raw->stdin_text);
		return;
	}
	if (raw->stdin_kind != LP_STDIN_HEREDOC &&
	    raw->stdin_kind != LP_STDIN_HERESTRING &&
	    raw->stdin_kind != LP_STDIN_PIPE)
		return;
	ctx->result->commands[idx].flags |= LOCUS_CMD_STDIN_SCRIPT;
	lp_parse_text(ctx, lp_stdin_text(ctx, raw, "at"),
	              LOCUS_ORIGIN_STDIN_SCRIPT, idx, raw->depth + 1);
}

/* crontab FILE / crontab - / crontab fed on stdin installs commands that
   run later, in a format we do not parse. */
void lp_see_crontab(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                    size_t idx)
{
	(void)idx;
	const lk_reads *r = reads_of(raw, pos);
	bool operand = false;
	for (size_t i = pos + 1; r && i < raw->nwords; i++) {
		const lp_word *w = &raw->words[i];
		const char *v = wval(w);
		if (!wdyn(w) && v[0] == '-' && v[1]) {
			const char *f;
			if (read_option(raw, r, &i, &f) & LK_RW_QUERY)
				return; /* list, edit, remove, test, version */
			continue;
		}
		operand = true;
	}
	if (operand || raw->stdin_kind != LP_STDIN_NONE)
		lp_unparsed(ctx,
		            "crontab installs a table of commands that run "
		            "later");
}

void lp_make_recipes(lp_ctx *ctx, const char *text, size_t idx, unsigned depth)
{
	/* recipe lines start with a tab; @ - + are make's prefixes */
	for (const char *p = text; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (*p == '\t') {
			size_t k = strspn(p, "\t @-+");
			if (k < len)
				lp_parse_nested(ctx, p + k, len - k,
				                LOCUS_ORIGIN_STDIN_SCRIPT, idx,
				                depth);
		}
		p = e ? e + 1 : NULL;
	}
}

/* A make value whose `$` are only `$$` and references to a variable by
   name (`$(PWD)`, `${CC}`, `$X`): no function ($(shell ...), $(file
   ...), $(eval ...)) is called.  A variable the line defines is judged
   where it is defined; one of the environment is the environment rule's
   (labels: a variable not known inert is exec:unknown). */
static bool make_plain(const char *p)
{
	for (; (p = strchr(p, '$')) != NULL;) {
		char open = p[1], close = open == '(' ? ')' : '}';
		if (open != '(' && open != '{') {
			p += p[1] ? 2 : 1; /* `$$`, `$X` */
			continue;
		}
		p += 2;
		p += strspn(
		    p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		       "0123456789_.-");
		if (*p != close)
			return false;
		p++;
	}
	return true;
}

/*
 * A variable defined on make's command line (GNU make 4.3, checked in a
 * sandbox with no makefile): `X!=CMD` runs CMD with the shell, and `X:=`
 * expands its value at once, so `$(shell CMD)` in it runs even when make
 * then finds no makefile; a `=` value runs when a recipe uses it.  CMD is
 * parsed; a value calling a make function is unparsed (make_plain), and
 * so is a word only known at run time that may define one.  Whatever a
 * makefile does with a plain value (`make CC=clang`) is the workspace's
 * code.
 */
/* The variables that name a program make's rules run (GNU make's manual,
   "Variables Used by Implicit Rules", the recursive $(MAKE) and the
   common build helpers): a value given on the line is a command a recipe
   runs with the shell.  Left as before (docs/tags.md): another variable
   a makefile may run (`$(DOCKER) build`), the interpreters the recipes
   run under (SHELL, PYTHON: they run the makefile's own text).  `CC+=X`
   on the line is X alone when no other word set CC (checked: make ran
   `X -v`), so it is read as `CC=X`. */
/* clang-format off */
static const char *const make_program_vars[] = {
	"AR", "AS", "CC", "CXX", "CPP", "FC", "M2C", "PC", "CO", "GET", "LEX",
	"YACC", "LINT", "MAKEINFO", "TEX", "TEXI2DVI", "WEAVE", "CWEAVE",
	"TANGLE", "CTANGLE", "RM", "MAKE", "LD", "INSTALL", "STRIP",
	"OBJCOPY", "OBJDUMP", "RANLIB", "NM", "PKG_CONFIG", "HOSTCC",
	"CC_FOR_BUILD", "CXX_FOR_BUILD", "LINK", NULL,
};
/* clang-format on */

/* The n bytes at v (what is before `=`) name a program variable, with
   the assignment's own operator (`CC:=`, `CC::=`, `CC+=`, `CC?=`) and
   blanks make strips. */
static bool make_name(const char *v, size_t n, char *name, size_t cap)
{
	while (n && strchr(":+? \t", v[n - 1]))
		n--;
	while (n && (*v == ' ' || *v == '\t')) {
		v++;
		n--;
	}
	if (!n || n >= cap)
		return false;
	memcpy(name, v, n);
	name[n] = '\0';
	return true;
}

static bool make_program_variable(const char *v, size_t n)
{
	char name[32];
	return make_name(v, n, name, sizeof name) &&
	       lp_in_list(make_program_vars, name);
}

/* The definition v (n bytes before `=`) is of variable `var`. */
static bool make_named(const char *v, size_t n, const char *var)
{
	char name[32];
	return make_name(v, n, name, sizeof name) && !strcmp(name, var);
}

/* Every blank-separated word of t is an option (`-ec`, `-o pipefail`
   aside: its value is a plain word). */
static bool only_options(const char *t)
{
	for (const char *p = t;;) {
		p += strspn(p, " \t");
		if (!*p)
			return true;
		size_t n = strcspn(p, " \t");
		if (p[0] != '-' || memchr(p, '"', n) || memchr(p, '\'', n) ||
		    memchr(p, ';', n))
			return false;
		p += n;
	}
}

static void make_variable(lp_ctx *ctx, const lp_raw_command *raw,
                          const lp_word *w, size_t idx)
{
	const char *v = wval(w);
	const char *eq = strchr(v, '=');
	if (wdyn(w)) {
		if (w->text && strchr(w->text, '='))
			lp_unparsed(ctx,
			            "make defines a variable only known at "
			            "run time: %s",
			            w->text);
		return;
	}
	if (!eq || eq == v)
		return; /* a target (blanks around `=` are make's too) */
	if (eq[-1] == '!') {
		lp_parse_text(ctx, eq + 1, LOCUS_ORIGIN_OPTION, idx,
		              raw->depth + 1);
		return;
	}
	if (!make_plain(eq + 1))
		lp_unparsed(ctx,
		            "make expands a variable given on the line, "
		            "which may call $(shell): %s",
		            v);
	else if (make_named(v, (size_t)(eq - v), ".SHELLFLAGS") &&
	         !only_options(eq + 1))
		/* the flags the recipe shell gets before the recipe:
		   `.SHELLFLAGS='-c "CMD"; echo '` runs CMD (checked by a red
		   team) */
		lp_unparsed(ctx,
		            "make's .SHELLFLAGS given on the line hold "
		            "more than options: %s",
		            v);
	else if (make_program_variable(v, (size_t)(eq - v)))
		/* `make CC='rm -rf src'`: the recipes run the value */
		lp_parse_text(ctx, eq + 1, LOCUS_ORIGIN_OPTION, idx,
		              raw->depth + 1);
}

/* make -f - / -f /dev/stdin reads its makefile (recipes are shell) from
   stdin; a makefile the line wrote is handled in written.c.  Variables
   defined on the line: make_variable. */
void lp_see_make(lp_ctx *ctx, const lp_raw_command *raw, size_t pos, size_t idx)
{
	const lk_reads *r = reads_of(raw, pos);
	for (size_t i = pos + 1; r && i < raw->nwords; i++) {
		const char *f;
		const char *v = wval(&raw->words[i]);
		if (wdyn(&raw->words[i]) || v[0] != '-') {
			make_variable(ctx, raw, &raw->words[i], idx);
			continue;
		}
		if (!(read_option(raw, r, &i, &f) & LK_RW_FILE))
			continue;
		if (!strncmp(f, "<(", 2) || !strncmp(f, "/dev/fd/", 8) ||
		    !strncmp(f, "/proc/", 6)) {
			/* make -f <(echo 'all:;CMD'): another command's
			   output (checked by a red team) */
			lp_unparsed(ctx,
			            "make reads a makefile another "
			            "command writes: %s",
			            f);
			return;
		}
		if (!lp_in_list(lp_stdin_paths, f))
			continue;
		lp_unparsed(ctx, "make reads a makefile fed by the line: "
		                 "its recipes are not fully analysed");
		lp_make_recipes(ctx, lp_stdin_text(ctx, raw, "make"), idx,
		                raw->depth + 1);
		return;
	}
}

/*
 * cmake --build DIR [OPTIONS] -- ARGS: cmake runs the generator's build
 * tool (make, ninja) with ARGS (checked by a red team with the Unix
 * Makefiles generator: `cmake --build build -- 'X!=CMD'` ran CMD).  The
 * tool is not on the line: ARGS are emitted as the arguments of each,
 * `make ARGS` and `ninja ARGS`, judged as those commands.  A run-time
 * word after --build that may be `--` starts them too.
 */
void lp_see_cmake(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                  size_t idx)
{
	const lp_word *w = raw->words;
	size_t n = raw->nwords, i = pos + 1, from = n;
	while (i < n && (wdyn(&w[i]) || !lu_streq(wval(&w[i]), "--build")))
		i++;
	for (i++; i < n && from == n; i++) {
		if (!wdyn(&w[i]) && lu_streq(wval(&w[i]), "--"))
			from = i + 1;
		else if (wdyn(&w[i]) && lp_word_may_be_option(&w[i]))
			from = i + 1;
	}
	if (from >= n)
		return;
	static const char *const tools[] = {"make", "ninja"};
	for (size_t t = 0; t < sizeof tools / sizeof *tools; t++) {
		lp_word *argv =
		    lp_arena_alloc(ctx->arena, (n - from + 1) * sizeof *argv);
		if (!argv)
			return;
		argv[0].value = argv[0].text = tools[t];
		memcpy(argv + 1, w + from, (n - from) * sizeof *argv);
		lp_emit_nested(ctx, raw, argv, n - from + 1,
		               LOCUS_ORIGIN_OPTION, idx, 0);
	}
}

/* ---- program-valued options -------------------------------------------- */

/*
 * Options whose value is a command the program runs with a shell (or as a
 * program): the value is parsed as shell with origin "option".  `longs`
 * accept abbreviations as getopt_long and git parse-options do: any prefix,
 * one letter or more (`git grep --op=CMD`, `sort --co=CMD`).  A
 * prefix that is ambiguous for the program makes it fail, so reading every
 * prefix as the option over-reports only; `keys` are -o KEY=VALUE
 * settings (ssh -o ProxyCommand=...), compared without case after the
 * blanks ssh skips; `prefix` is a value prefix (tar
 * --checkpoint-action=exec=CMD).  `oldstyle`: the first word may be a
 * dashless cluster (`tar cIf PROG x.tar f`) whose letters in `vals` or
 * `shorts` take the next words in order.
 */
static const struct optval_rule {
	const char *prog;
	const char *sub;    /* "|clone|" or NULL */
	const char *shorts; /* letters taking a command value */
	const char *longs;  /* "|upload-pack|" */
	const char *keys;   /* "|proxycommand|": -o KEY=CMD */
	const char *prefix; /* the value starts with this: the rest runs */
	const char *vals;   /* old-style cluster letters taking a value */
	                    /* clang-format off */
} optval_rules[] = {
	{ "git", "|grep|", "O", "|open-files-in-pager|", NULL, NULL, NULL},
                            /* clang-format on */
    {"git", "|clone|", "u", "|upload-pack|", NULL, NULL, NULL},
    {"git", "|fetch|pull|ls-remote|fetch-pack|", NULL, "|upload-pack|exec|",
     NULL, NULL, NULL},
    {"git", "|push|send-pack|", NULL, "|receive-pack|exec|", NULL, NULL, NULL},
    {"git", "|archive|", NULL, "|exec|", NULL, NULL, NULL},
    {"man", NULL, "P", "|pager|", NULL, NULL, NULL},
    /* GNU tar's letters taking a value (tar.c), read in an old-style
       cluster too: `tar cIf PROG x.tar f` */
    {"tar", NULL, "IF",
     "|to-command|use-compress-program|info-script|new-volume-script|"
     "rsh-command|",
     NULL, NULL, "bCfFgHIKLNTVX"},
    {"gtar", NULL, "IF",
     "|to-command|use-compress-program|info-script|new-volume-script|"
     "rsh-command|",
     NULL, NULL, "bCfFgHIKLNTVX"},
    {"tar", NULL, NULL, "|checkpoint-action|", NULL, "exec=", NULL},
    {"gtar", NULL, NULL, "|checkpoint-action|", NULL, "exec=", NULL},
    {"rg", NULL, NULL, "|pre|", NULL, NULL, NULL},
    {"sort", NULL, NULL, "|compress-program|", NULL, NULL, NULL},
    {"ssh", NULL, NULL, NULL, "|proxycommand|localcommand|knownhostscommand|",
     NULL, NULL},
    {"scp", NULL, "S", NULL, "|proxycommand|localcommand|knownhostscommand|",
     NULL, NULL},
    /* sftp -D runs a local sftp server program */
    {"sftp", NULL, "SD", NULL, "|proxycommand|localcommand|knownhostscommand|",
     NULL, NULL},
    {"rsync", NULL, "e", "|rsh|rsync-path|", NULL, NULL, NULL},
    {"nodemon", NULL, "x", "|exec|", NULL, NULL, NULL},
    {"nix-shell", NULL, NULL, "|run|command|", NULL, NULL, NULL},
    {"vagrant", "|ssh|", "c", "|command|", NULL, NULL, NULL},
    {"zip", NULL, NULL, "|unzip-command|", NULL, NULL, NULL},
    /* start-stop-daemon --start --exec PROG -- ARGS: PROG runs (not
       --startas here: its abbreviation rule would take --start) */
    {"start-stop-daemon", NULL, "xa", "|exec|", NULL, NULL, NULL},
};

/* --name (n bytes) is `name` from the list or an abbreviation of one. */
static bool long_matches(const char *list, const char *name, size_t n)
{
	if (!list || !n)
		return false;
	for (const char *p = list; (p = strchr(p, '|')) != NULL && p[1]; p++) {
		const char *e = strchr(p + 1, '|');
		size_t len = e ? (size_t)(e - p - 1) : strlen(p + 1);
		if (n <= len && !strncmp(p + 1, name, n))
			return true;
	}
	return false;
}

/* the blanks OpenSSH's config reader skips (misc.c, WHITESPACE) */
#define SSH_BLANKS " \t\r\n"

static void optval_run(lp_ctx *ctx, const lp_raw_command *raw,
                       const struct optval_rule *rl, const lp_word *w,
                       const char *value, size_t idx)
{
	if (!value)
		return;
	if (rl->keys) {
		/* ssh reads -o as a config line: blanks before the key and
		   around '=' are skipped, and the key may be quoted
		   (`-o ' ProxyCommand=..'`, `-o '"ProxyCommand" ..'`) */
		value += strspn(value, SSH_BLANKS);
		char key[64];
		size_t kl = 0;
		const char *p = value;
		for (; *p && !strchr("=" SSH_BLANKS, *p); p++) {
			if (*p == '"' || *p == '\'' || *p == '\\')
				continue;
			if (kl + 1 >= sizeof key)
				return;
			key[kl++] = (char)tolower((unsigned char)*p);
		}
		key[kl] = '\0';
		if (kl == 0 || !lk_bar_has(rl->keys, key, kl))
			return;
		if ((size_t)(p - value) != kl) {
			lp_unparsed(ctx,
			            "%s -o %s: a quoted key whose value ssh "
			            "splits itself",
			            rl->prog, key);
			return;
		}
		value = p + strspn(p, SSH_BLANKS);
		if (*value == '=')
			value++;
		value += strspn(value, SSH_BLANKS);
	}
	if (rl->prefix) {
		size_t pl = strlen(rl->prefix);
		if (strncmp(value, rl->prefix, pl))
			return;
		value += pl;
	}
	if (wdyn(w)) {
		lp_unparsed(ctx,
		            "%s runs a command given in an option only "
		            "known at run time: %s",
		            rl->prog, w->text ? w->text : "");
		return;
	}
	lp_parse_text(ctx, value, LOCUS_ORIGIN_OPTION, idx, raw->depth + 1);
}

/* tar's old-style first word (`tar cIf PROG x.tar f`): each letter of
   `vals` takes the next word not yet taken, in order; those of
   `shorts` run it.  Returns the index of the last word taken. */
static size_t oldstyle_cluster(lp_ctx *ctx, const lp_raw_command *raw,
                               const struct optval_rule *rl, const lp_word *w,
                               size_t n, size_t i, size_t idx)
{
	const char *v = wval(&w[i]);
	size_t next = i + 1;
	for (size_t j = 0; v[j]; j++) {
		if (!strchr(rl->vals, v[j]))
			continue;
		if (next >= n)
			break; /* missing value: tar fails */
		if (rl->shorts && strchr(rl->shorts, v[j])) {
			struct optval_rule plain = *rl;
			plain.keys = NULL;
			optval_run(ctx, raw, &plain, &w[next], wval(&w[next]),
			           idx);
		}
		next++;
	}
	return next - 1;
}

/* Look for program-valued options of words[pos] (sub: index of its
   subcommand word, or 0). */
void lp_see_optvals(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                    size_t sub, size_t idx)
{
	const char *name = lp_base_name(wval(&raw->words[pos]));
	const lp_word *w = raw->words;
	size_t n = raw->nwords;
	for (size_t r = 0; r < sizeof optval_rules / sizeof *optval_rules;
	     r++) {
		const struct optval_rule *rl = &optval_rules[r];
		if (!lu_streq(rl->prog, name))
			continue;
		size_t from = pos + 1;
		if (rl->sub) {
			if (!sub || sub >= n || wdyn(&w[sub]) ||
			    !lk_bar_has(rl->sub, wval(&w[sub]),
			                strlen(wval(&w[sub]))))
				continue;
			from = sub + 1;
		}
		char both[16];
		const char *shorts = rl->shorts ? rl->shorts
		                     : rl->keys ? "o"
		                                : "";
		if (rl->keys && rl->shorts) {
			/* -o KEY=CMD and the command letters */
			snprintf(both, sizeof both, "o%s", rl->shorts);
			shorts = both;
		}
		for (size_t i = from; i < n; i++) {
			const char *v = wval(&w[i]);
			if (lp_word_may_be_option(&w[i])) {
				/* `rg "-"$(echo -pre) rm x .`: --pre rm;
				   `rg foo "$D"`: --pre=CMD in one word;
				   `tar czf a.tgz *` with a file named
				   --checkpoint-action=exec=CMD */
				lp_unparsed(
				    ctx,
				    "%s may take an option only known at "
				    "run time, and some of its options run "
				    "a command: %s",
				    rl->prog, w[i].text ? w[i].text : "");
				return;
			}
			if (lu_streq(v, "--"))
				break;
			if (i == from && rl->vals && v[0] && v[0] != '-') {
				i = oldstyle_cluster(ctx, raw, rl, w, n, i,
				                     idx);
				continue;
			}
			if (v[0] != '-' || !v[1])
				continue;
			if (v[1] == '-') {
				const char *nm = v + 2, *eq = strchr(nm, '=');
				size_t nl = eq ? (size_t)(eq - nm) : strlen(nm);
				if (!long_matches(rl->longs, nm, nl))
					continue;
				if (eq)
					optval_run(ctx, raw, rl, &w[i], eq + 1,
					           idx);
				else if (i + 1 < n) {
					i++;
					optval_run(ctx, raw, rl, &w[i],
					           wval(&w[i]), idx);
				}
				continue;
			}
			for (size_t j = 1; v[j]; j++) {
				if (!strchr(shorts, v[j]))
					continue;
				bool key_only = rl->keys && v[j] == 'o';
				bool cmd =
				    rl->shorts && strchr(rl->shorts, v[j]);
				if (!key_only && !cmd)
					break;
				const struct optval_rule *use = rl;
				struct optval_rule plain = *rl;
				if (!key_only) {
					plain.keys = NULL;
					use = &plain;
				}
				if (v[j + 1])
					optval_run(ctx, raw, use, &w[i],
					           v + j + 1, idx);
				else if (i + 1 < n) {
					i++;
					optval_run(ctx, raw, use, &w[i],
					           wval(&w[i]), idx);
				}
				break;
			}
		}
	}
}

/* Environment values that carry code (GIT_EDITOR=..., LD_PRELOAD=...) are
   handled once for the whole line by lp_checks_env() in checks.c. */

/* ---- dynamic subcommands ---------------------------------------------- */

/* Programs whose first operand picks what they do: a dynamic one could
   be anything (`systemctl ${X:-poweroff}`), and for a wrapper that runs a
   command after a subcommand (`perf stat`, `npm exec`) the command is
   then unknown (`perf sta$X -- rm -rf /`: found by fuzz_bypass). */
void lp_check_dynamic_subcommand(lp_ctx *ctx, const lp_raw_command *raw,
                                 size_t pos, const char *name,
                                 const lk_program *p)
{
	/* a subcommand runner (perf stat, npm exec: the row's `sub`) is
	   peeled only when the next word names the runner; a dynamic one
	   could be it, and the command after it would go unseen */
	if (p && p->opts && p->opts->sub && pos + 1 < raw->nwords &&
	    wdyn(&raw->words[pos + 1])) {
		lp_unparsed(ctx, "subcommand of %s is dynamic: %s", name,
		            raw->words[pos + 1].text ? raw->words[pos + 1].text
		                                     : "");
		return;
	}
	if (!p || !(p->cls & LK_SUBCOMMANDS))
		return;
	for (size_t i = pos + 1; i < raw->nwords; i++) {
		const lp_word *w = &raw->words[i];
		if (wdyn(w)) {
			lp_unparsed(ctx, "subcommand of %s is dynamic: %s",
			            name, w->text ? w->text : "");
			return;
		}
		if (wval(w)[0] != '-')
			return;
	}
}

/* ---- ssh's other ways to name local code ---------------------- */

/* ssh, scp, sftp: a config read from stdin or a descriptor (-F), a
   PKCS#11 or security-key library (-I, -o PKCS11Provider=,
   SecurityKeyProvider=) and config includes load code the line does not
   show. */
void lp_ssh_config_sources(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                           const char *name)
{
	static const char *const family[] = {"ssh",     "scp",   "sftp",
	                                     "autossh", "sshfs", NULL};
	if (!lp_in_list(family, name))
		return;
	/* clang-format off */
	static const char *const code_keys[] = {
		"pkcs11provider", "securitykeyprovider", "include", "match",
		NULL,
	};
	/* clang-format on */
	for (size_t i = pos + 1; i < raw->nwords; i++) {
		const char *v = wval(&raw->words[i]);
		const char *val = NULL;
		if (v[0] != '-' || v[1] == '-')
			continue;
		char opt = v[1];
		if (opt != 'F' && opt != 'I' && opt != 'o')
			continue;
		val = v[2]                  ? v + 2
		      : i + 1 < raw->nwords ? wval(&raw->words[i + 1])
		                            : "";
		if (opt == 'I') {
			lp_unparsed(ctx, "%s -I loads a PKCS#11 library", name);
			return;
		}
		if (opt == 'F') {
			if (lp_in_list(lp_stdin_paths, val) ||
			    !strncmp(val, "/dev/fd/", 8) ||
			    !strncmp(val, "/proc/", 6) ||
			    !strncmp(val, "<(", 2)) {
				lp_unparsed(ctx,
				            "%s reads its configuration from "
				            "input: %s",
				            name, val);
				return;
			}
			continue;
		}
		for (size_t k = 0; code_keys[k]; k++) {
			size_t kl = strlen(code_keys[k]);
			if (!strncasecmp(val, code_keys[k], kl) &&
			    (val[kl] == '=' || val[kl] == ' ')) {
				lp_unparsed(ctx,
				            "%s -o %s names code the line does "
				            "not show",
				            name, code_keys[k]);
				return;
			}
		}
	}
}
