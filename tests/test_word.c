/*
 * tests/test_word.c - word evaluation: quote removal, escapes, $'...',
 * $"...", concatenation, arithmetic, flags, field splitting of same-line
 * constants.  Each row parses a line whose first command is `echo ...`
 * (no wrapper, so the see-through side leaves it alone) and checks argv
 * and the flags of one argument.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locus/shell.h"

typedef struct word_case {
	const char *line;
	const char *argv; /* the last command's argv joined with '|' */
	int arg;          /* argv index whose flags are checked */
	uint32_t must;    /* flags that must be set */
	uint32_t mustnot; /* flags that must be clear */
} word_case;

enum {
	DYN = LOCUS_WORD_DYNAMIC,
	GLOB = LOCUS_WORD_GLOB,
	BRACE = LOCUS_WORD_BRACE,
	SUBST = LOCUS_WORD_SUBST,
	EXP = LOCUS_WORD_EXPANSION,
	ARITH = LOCUS_WORD_ARITH,
	QUOT = LOCUS_WORD_QUOTED,
};

/* clang-format off */
static const word_case cases[] = {
	{"echo rm", "echo|rm", 1, 0, DYN | QUOT | GLOB},
	{"echo r''m", "echo|rm", 1, QUOT, DYN},
	{"echo \"r\"m", "echo|rm", 1, QUOT, DYN},
	{"echo \\rm", "echo|rm", 1, QUOT, DYN},
	{"echo $'\\x72\\x6d'", "echo|rm", 1, QUOT, DYN},
	{"echo $'\\162\\155'", "echo|rm", 1, QUOT, DYN},
	{"echo $'\\u0072m'", "echo|rm", 1, QUOT, DYN},
	{"echo $'\\U00000072m'", "echo|rm", 1, QUOT, DYN},
	{"echo $'a\\tb'", "echo|a\tb", 1, QUOT, DYN},
	{"echo $'a\\nb'", "echo|a\nb", 1, QUOT, DYN},
	{"echo $'\\e[0m'", "echo|\033[0m", 1, QUOT, DYN},
	{"echo $'a\\0b'c", "echo|ac", 1, QUOT, DYN},
	{"echo $'a\\x00b'", "echo|a", 1, QUOT, DYN},
	{"echo $'\\cA'", "echo|\001", 1, QUOT, DYN},
	{"echo $'\\'q\\''", "echo|'q'", 1, QUOT, DYN},
	{"echo $'\\q'", "echo|\\q", 1, QUOT, DYN},
	{"echo $\"rm\"", "echo|rm", 1, QUOT, DYN},
	{"echo 'a b'", "echo|a b", 1, QUOT, DYN},
	{"echo 'a\\nb'", "echo|a\\nb", 1, QUOT, DYN},
	{"echo \"a\\$b\"", "echo|a$b", 1, QUOT, DYN},
	{"echo \"a\\qb\"", "echo|a\\qb", 1, QUOT, DYN},
	{"echo \"a\\\"b\"", "echo|a\"b", 1, QUOT, DYN},
	{"echo \"a\\\\b\"", "echo|a\\b", 1, QUOT, DYN},
	{"echo \"a\\`b\"", "echo|a`b", 1, QUOT, DYN},
	{"echo \"\"", "echo|", 1, QUOT, DYN},
	{"echo a\"\"b", "echo|ab", 1, QUOT, DYN},
	{"echo a'b'\"c\"$'d'", "echo|abcd", 1, QUOT, DYN},
	{"echo \\*", "echo|*", 1, QUOT, GLOB},
	{"echo *.c", "echo|*.c", 1, GLOB, DYN | QUOT},
	{"echo a?c", "echo|a?c", 1, GLOB, DYN},
	{"echo [ab]c", "echo|[ab]c", 1, GLOB, DYN},
	{"echo \"*.c\"", "echo|*.c", 1, QUOT, GLOB},
	{"echo '*'", "echo|*", 1, QUOT, GLOB},
	{"echo {a,b}", "echo|a|b", 1, BRACE, DYN},
	{"echo {a,'b c'}", "echo|a|b c", 2, BRACE, DYN},
	{"echo {a,{b,c}}", "echo|a|b|c", 1, BRACE, DYN},
	{"echo {1..3}", "echo|{1..3}", 1, BRACE, DYN},
	{"echo x{a,b}y", "echo|xay|xby", 2, BRACE, DYN},
	{"echo r\\\nm", "echo|rm", 1, 0, DYN},
	{"echo '{a,b}'", "echo|{a,b}", 1, QUOT, BRACE},
	{"echo {}", "echo|{}", 1, 0, BRACE | DYN},
	{"echo $HOME", "echo|$HOME", 1, DYN | EXP, SUBST},
	{"echo \"$HOME\"", "echo|$HOME", 1, DYN | EXP | QUOT, SUBST},
	{"echo ${HOME}", "echo|${HOME}", 1, DYN | EXP, SUBST},
	{"echo ${x:-a}", "echo|${x:-a}", 1, DYN | EXP, SUBST},
	{"echo ${x:-$(id)}", "echo|${x:-$(id)}", 1, DYN | EXP | SUBST, 0},
	{"echo ${x@P}", "echo|${x@P}", 1, DYN | EXP, 0},
	{"echo ${!x}", "echo|${!x}", 1, DYN | EXP, 0},
	{"echo $(id)", "echo|$(id)", 1, DYN | SUBST, 0},
	{"echo `id`", "echo|`id`", 1, DYN | SUBST, 0},
	{"echo <(id)", "echo|<(id)", 1, DYN | SUBST, 0},
	{"echo \"a$(id)b\"", "echo|a$(id)b", 1, DYN | SUBST | QUOT, 0},
	{"echo $((1+2))", "echo|3", 1, ARITH, DYN | SUBST},
	{"echo $((2*(3+4)-1))", "echo|13", 1, ARITH, DYN},
	{"echo $((-5/2))", "echo|-2", 1, ARITH, DYN},
	{"echo $((x+1))", "echo|$((x+1))", 1, ARITH | DYN, 0},
	{"echo $((16#$(id)))", "echo|$((16#$(id)))", 1, ARITH | DYN | SUBST, 0},
	{"echo $((1/0))", "echo|$((1/0))", 1, ARITH, DYN},
	{"echo -0 -30 2", "echo|-0|-30|2", 2, 0, DYN},
	{"echo ~/x", "echo|~/x", 1, 0, DYN},
	{"echo $1 $@ $?", "echo|$1|$@|$?", 2, DYN | EXP, 0},
	{"X=rm; echo $X", "echo|rm", 1, EXP, DYN},
	{"X='a b'; echo $X", "echo|a|b", 2, EXP, DYN},
	{"X='a b'; echo \"$X\"", "echo|a b", 1, EXP | QUOT, DYN},
	{"X='a  b '; echo x$X", "echo|xa|b", 1, EXP, DYN},
	{"X=; echo $X y", "echo|y", 1, 0, DYN},
	{"X=; echo \"$X\" y", "echo||y", 2, 0, DYN},
	{"X='*'; echo $X", "echo|*", 1, GLOB | EXP, DYN},
	{"X='*'; echo \"$X\"", "echo|*", 1, EXP, GLOB | DYN},
	{"X=a; X=b; echo $X", "echo|$X", 1, DYN, 0},
	{"X=a; X=a; echo $X", "echo|a", 1, EXP, DYN},
	{"echo $X; X=a", "echo|$X", 1, DYN, 0},
	{"IFS=:; X=a; echo $X", "echo|$X", 1, DYN, 0},
	{"X=a; echo ${X}", "echo|a", 1, EXP, DYN},
};
/* clang-format on */

static void join(const locus_shell_command *c, char *buf, size_t n)
{
	buf[0] = 0;
	for (size_t i = 0; i < c->argc; i++) {
		if (i)
			strncat(buf, "|", n - strlen(buf) - 1);
		strncat(buf, c->argv[i], n - strlen(buf) - 1);
	}
}

START_TEST(word_table)
{
	const word_case *wc = &cases[_i];
	locus_shell_result *r =
	    locus_shell_parse(wc->line, strlen(wc->line), NULL);
	ck_assert_ptr_nonnull(r);
	size_t n = locus_shell_result_count(r);
	ck_assert_msg(n >= 1, "%s: no command", wc->line);
	/* the echo: the last top-level command */
	const locus_shell_command *c = NULL;
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *x = locus_shell_result_command(r, i);
		if (x->depth == 0 && x->argc)
			c = x;
	}
	ck_assert_ptr_nonnull(c);
	char buf[512];
	join(c, buf, sizeof buf);
	ck_assert_msg(!strcmp(buf, wc->argv), "%s: argv '%s', want '%s'",
	              wc->line, buf, wc->argv);
	ck_assert((size_t)wc->arg < c->argc);
	uint32_t f = c->argv_flags[wc->arg];
	ck_assert_msg((f & wc->must) == wc->must, "%s: flags %#x lack %#x",
	              wc->line, f, wc->must);
	ck_assert_msg((f & wc->mustnot) == 0, "%s: flags %#x have %#x",
	              wc->line, f, f & wc->mustnot);
	locus_shell_result_free(r);
}
END_TEST

/* A word that is only a line continuation joined inside double quotes. */
START_TEST(word_dq_continuation)
{
	const char *s = "echo \"a\\\nb\"";
	locus_shell_result *r = locus_shell_parse(s, strlen(s), NULL);
	ck_assert(locus_shell_result_parsed(r));
	const locus_shell_command *c = locus_shell_result_command(r, 0);
	ck_assert_str_eq(c->argv[1], "ab");
	locus_shell_result_free(r);
}
END_TEST

START_TEST(word_words_as_written)
{
	const char *s = "X=1 echo 'a b' \"$c\" > out";
	locus_shell_result *r = locus_shell_parse(s, strlen(s), NULL);
	const locus_shell_command *c = locus_shell_result_command(r, 0);
	ck_assert_uint_eq(c->nwords, 4);
	ck_assert_str_eq(c->words[0], "X=1");
	ck_assert_str_eq(c->words[1], "echo");
	ck_assert_str_eq(c->words[2], "'a b'");
	ck_assert_str_eq(c->words[3], "\"$c\"");
	ck_assert_uint_eq(c->nassignments, 1);
	ck_assert_str_eq(c->assignments[0], "X=1");
	locus_shell_result_free(r);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("word");
	TCase *tc = tcase_create("eval");
	tcase_add_loop_test(tc, word_table, 0,
	                    (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, word_dq_continuation);
	tcase_add_test(tc, word_words_as_written);
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
