/*
 * test_fastpath - the plain-word fast path (parser/fastpath.c) proven
 * against tree-sitter on a generated batch.
 *
 *   test_fastpath [--seed N] [--count N] [--print]
 *
 * 1. Rules: lines the fast path must read and lines it must refuse
 *    (docs/design.md, "The fast path").
 * 2. A seeded batch of generated lines (plain words of every accepted
 *    byte, keywords in every position, quoted strings holding scripts fed
 *    to `sh -c`, the refused bytes, every operator) goes through the
 *    differential check of fuzz/fuzz_fastpath.c: classify JSON with and
 *    without the fast path must be byte-identical.  The fast path must
 *    read at least a fifth of the batch, so a fast path that refuses
 *    everything fails too.
 * --print writes the generated lines (one per line) instead of checking;
 * --keep-going prints every difference instead of stopping at the first.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/fastpath.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern size_t fuzz_fastpath_accepted, fuzz_fastpath_total;
extern bool fuzz_fastpath_keep_going;
extern size_t fuzz_fastpath_differences;

/* clang-format off */
static const char *const must_accept[] = {
	"ls -la",
	"git status --short | head -3",
	"a && b || c; d;",
	"grep -rn 'foo bar' src | wc -l",
	"echo \"it's \\\"quoted\\\"\" 'x\"y'",
	"bash -c 'ls | wc -l'",
	"env A=1 B=2 make -j4",
	"git commit -m \"line one\nline two\"",
	"time make",
	"x'y'\"z\"w",
	"A=1 ls", "A=1 B='x y' make -j4", "X=$HOME/bin", "CC=gcc; $LD -o x",
	"X=", "X=\"a $B\" Y=c env",
	"echo $HOME", "echo \"$x\"", "cp \"${SRC}/a\" $DEST/b_$N.txt",
	"$CC -o x x.c", "echo \"a $B c\" $D'e'", "grep -q x$_ \"$A1$B2\"",
	"echo $1", "echo $@", "echo $?", "echo ${1}", "x=\"$1\"",
	"f \"$@\" $* ${10} $10 ${@} ${*} $0", "$1 -rf /", "\"$@\"",
	"set -- rm -rf; $1 $2 /", "eval \"$@\"", "sh -c \"$1\" $2",
	"x=$(ls)", "x=\"$(git rev-parse HEAD)\"", "echo $(a | b) \"$(c && d)\"",
	"a $(b $(c)) d", "echo \"$(echo \"a b\")\"", "echo $(ls;)",
	"f \"x $(g 'y z') w\"", "echo $(rm -rf /)", "cat $(find . -name x) | wc",
	"x=$(a) y=\"$(b)\" c $(d) e", "echo $(a)$(b)x$(c)", "v=$(sh -c 'rm x')",
	"echo $( ls ) \"$( a; b )\"", "a $(b) | c $(d) && e $(f) || g",
	"echo \"$(echo \")\")\"", "echo $(echo ')') \"$(echo '\"')\"",
	"echo $(echo \"$(echo \"$(id)\")\")", "sudo $(which ls) -la",
	"echo $(sudo rm -rf / | tee x)", "x=$(eval \"$1\")", "x=\"$x a\"", "x=${x}y z=$z",
	"echo $x; x=1", "x=\"$(f \"$x\")\"", "a $x | x=2",
	"cd ~", "git diff HEAD~1 --stat", "cat ~/.bashrc", "X=~/bin a",
	"a=~ b", "x=a:~/b", "ls ~+ ~- ~root/x", "~/bin/tool -v", "a~b~",
	"ls >out", "ls > out", "ls 2>/dev/null", "ls 2>&1 | tail -5",
	"ls >> log; wc -l < log", "cat < in | wc", "make &> build.log && echo ok",
	"ls 1>&2", "ls >&2", "ls 2> err 1> out", "git push 2>&1", "a > x || b",
	"echo $(ls 2>&1)", "echo $(a &> x)", "x=$(git rev-parse HEAD 2>/dev/null)",
	"echo \"$(cat < f)\"", "cat a - 2>/dev/null", "A=1 ls > x",
	"ls > ~/.bashrc", "sh -c 'rm -rf x > /dev/null'",
	"ls *.c", "rm -f *.o ?", "find . -name x -exec rm {} \\;",
	"find . \\( -name a -o -name b \\) -print", "cp {} {}.bak",
	"git add src/*.c && git commit -m x", "grep -r a --include=*.py .",
	"echo \\*", "ls a\\;b", "find . -exec sh -c 'rm {}' \\;",
	"command -v node", "builtin cd x",
	"sh -c 'echo '\\''it'\\''s'\\'' > x'", "echo \\'a\\' \\\"b\\\"",
	"ssh h 'sed -i '\\''s/a/b/'\\'' ~/.bashrc'", "echo 'a'\\''b'\"c\"\\;",
	NULL,
};
/* clang-format on */

/* clang-format off */
static const char *const must_refuse[] = {
	"", " ", "ls &", "ls |& wc", "ls>out", "echo `id`",
	"ls*.c *", "echo {a,b}", "ls # c", "X=1; echo $X",
	/* globs, `{}` and escapes outside the plain words the fast path reads */
	"*.sh", "./*.sh x", "\\rm x", "{} x", "X=*.c ls", "X={} ls", "echo \"a\"*",
	"echo '*'?", "echo $x*", "echo *$x", "echo $(ls)*", "echo [ab]", "echo ?(a)",
	"echo {x}", "echo {", "echo }", "echo a\\", "echo \\$x", "echo \\'x$y",
	"echo $x\\\"", "echo \\ x", "echo 'a'*", "echo \\;$(ls)", "\\'x y", "echo \\#", "echo \\\\", "echo \\`id`",
	"echo x{,y}", "echo {a..b}", "ls > *.txt", "ls > {}",
	"X=a echo \"${X}\"", "X+=1", "X==1", "a[0]=1", "PS4=x ls", "X=1 if",
	"X=1 export Y", "X=1 Y=$X", "echo \"a\"b$x,", "x=| y", "_=z ls",
	"x=1 a:b", "x==b ls", "echo a\\ b",
	"echo $#", "echo $!", "echo $$", "x$$", "echo $-", "echo ${x:-y}", "echo ${1-}",
	"echo ${#}", "echo ${?}", "echo ${$}", "echo ${1", "echo ${1x}",
	"echo ${@:2}", "echo ${*-a}", "echo \"a\"b$1", "echo \"a\"b$@",
	"echo ${#x}", "echo ${x", "echo $", "echo \"$\"",
	"echo ${x[0]}", "echo \"\\$x\"",
	"if$x", "do${x}", "cd $CDPATH", "echo \"$PS4\"", "$X=1 ls",
	"if true; then ls; fi", "export A", "unset A", "let x", "! ls",
	"ls\nwc", "echo \" \"", "echo \"\t\"x", "z@x", "x%1", "x+: a",
	"if\"x\"", "typeset'a'", "- a=b x", "\"\\ \"\"h\"", "ls |", "| ls", "ls;;", "ls ; ; wc", "(ls)",
	"echo \"a\\\n\"", "echo 'open", "echo \xc3\xa9", "ls\r", "read PS4",
	"a | b | c && d", "a | b | c | d || e", "echo ==", "== x", "[ -f x ]",
	"echo $((1+2))", "echo $(", "echo $(ls", "echo $()", "echo $( )",
	"echo $(ls) )", "echo $(a\nb)", "echo $(ls #c)", "echo $(`id`)",
	"echo $(cat <<E\nx\nE\n)", "echo $(a & b)", "$(which rm) -rf /",
	"x$(a) b", "x=$(ls) $x", "x=$(a); echo $x", "echo $(x=1; echo $x)",
	"echo \"a\"$(b)", "echo $(a $(b $(c $(d))))",
	"echo $(ls >|x)", "echo $(a;;)", "echo $(case x in a) b;; esac)",
	"echo $(x=)", "echo $(a || )", "x=$1.$2", "x=$y.$1", "x=$x.a; y=$x", "x=1 y=\"$x\"", "x=1; $(echo $x)",
	"$(x=1) $x", "x=\"$x\" $x", "x=$(a).$2", "x=$y-$@", "x=$?.$1", "echo $x.$2", "echo $x.$@",
	"S=$T:$L,c", "S=$T$L$M,c", "S=${T}:$L,c", "S=$(a):$L,c", "S=a:$L:$M,c",
	"S=$S:$Le_HTTPPort,crlf", "x=1 S=$T:$L.c y", "echo $(| a)", "echo \"$(a\")",
	"echo $(PS4=x a)", "echo $(a |& b)",
	"echo $(<x)", "echo $(a <<< x)", "echo $(exec 3>&1)",
	/* redirects the fast path leaves to tree-sitter */
	"a | b > y", "a && b > y", "a || b 2>&1", "a | b 2>&1 | c", "ls > x y",
	"git >/dev/null push", "cat 0<x", "ls 3>x", "ls >| x", "ls &>> x",
	"ls > 'x'", "ls > \"x\"", "ls > $x", "ls > $(a)", "ls <<< x", "ls <& 3",
	"ls <> x", "ls > >(x)", "cat < <(x)", "ls 2>&3", "ls >&-", "ls >&x",
	"X=1 > f", "> f ls", "ls 2>", "ls >", "ls > =x", "ls 2>&1x", "echo a\"b\">x",
	"builtin typeset msg -d-i.c", "builtin 'declare' -i x", "command -p declare -i x=a",
	"\"command\" typeset -i x", "builtin \"typ\"'eset' -i x", "builtin let x=1",
	"echo ''\\- 2>x", "echo 'a'\\- 1>x", "find {}\\- 2>&1", "echo a\\- x",
	"ls > x\\y", "ls > x#y", "a > 1 > 2 > 3 > 4 > 5", "ls 2 > x >", "ls >x<y",
	"x=$(a) y=$x b", "echo $(if true; then rm x; fi)",
	"echo $(ls)\\", "echo $(ls)'", "echo ${x:-$(rm x)}", "echo `rm x`",
	NULL,
};
/* clang-format on */

/* ---- generator (splitmix64) ---------------------------------------------- */

static uint64_t rng;
static uint64_t next(void)
{
	uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
static size_t pick(size_t n)
{
	return (size_t)(next() % n);
}
#define PICK(a) ((a)[pick(sizeof(a) / sizeof(a)[0])])

/* clang-format off */
static const char *const programs[] = {
	"ls", "cat", "grep", "git", "rm", "sudo", "sh", "bash", "env", "xargs",
	"find", "curl", "wget", "python3", "node", "timeout", "nohup", "time",
	"coproc", "command", "builtin", "exec", "eval", "source", ".", "read",
	"printf", "echo", "test", "true", "false", "kill", "make", "npm",
	"docker", "ssh", "tee", "sed", "awk", "head", "tail", "wc", "sort",
	"chmod", "mv", "cp", "mkdir", "dd", "tar", "base64", "perl", "watch",
	"nice", "su", "busybox", "parallel", "mapfile", "hash", "alias",
	"enable", "fc", "set", "shopt", "trap", "cd", "exit", "shift", "wait",
	"getopts", "compgen", "complete", "bind", "type", "which", "zsh",
	"dash", "ksh", "fish", "doas", "strace", "chroot", "git-upload-pack",
	"shutdown", "reboot", "mkfs", "kubectl", "terraform", "psql", "cargo",
	"pip", "go", "rustc", "gcc", "fd", "rg", "jq", "yes", "seq", ":",
	"0", "-1", "2", "0x1F", "10#5", "-", "--", "a-b", "%1", "^x", "@x",
	"x,y", "a:b", "..", "/bin/rm", "./run.sh", "../x", "git-foo",
};
/* clang-format on */

/* clang-format off */
static const char *const keywords[] = {
	"if", "then", "elif", "else", "fi", "case", "esac", "for", "select",
	"while", "until", "do", "done", "in", "function", "declare",
	"typeset", "export", "local", "readonly", "unset", "unsetenv", "let",
	"time", "coproc", "{", "}", "[[", "]]", "!", "[", "]", "((", "))",
};
/* clang-format on */

/* clang-format off */
static const char *const args[] = {
	"-la", "-rf", "-c", "-e", "-i", "-n", "-0", "-1", "2", "0x1F", "--force",
	"--help", "--", "-", "-s", "-x", "-o", "-H", "-v", "-p", "-C", "-f",
	"+x", "/tmp/x", "./a", "../b", "a/b", "/dev/null", "/etc/passwd",
	"a.txt", "build/", "x,y", "a:b", "a@b", "%1", "^x", "a=b", "FOO=1",
	"PS1=x", "A=B", "history", "-l", "-d", "origin", "main", "push",
	"--hard", "reset", "clean", "-fdx", "status", "-9", "1", "x=", "=x",
	"==", "=~", "-rf/", "HEAD~1", "1000", "-u", "root", "alias.x=!rm",
	"-m", "msg", "-S", "-t", "-E", "-exec", "{}", ";", "+", "-P", "4",
	"*.c", "*", "?", "a*b", "**/x", "--include=*.py", "{}.bak", "x{}",
	"{}/y", "\\;", "\\+", "\\(", "\\)", "\\*", "a\\;b", "{}\\;",
	"\\;x", "\\|", "\\!", "\\{", "*\\?", "{}*", "\\.", "-name", "-o",
	"\\'", "'a'\\''b'", "\\\"x\\\"", "\"a\"\\'", "x\\'y", "\\'$x",
};
/* clang-format on */

/* Scripts put inside quotes (as sh -c / eval payloads, or as data). */
/* clang-format off */
static const char *const payloads[] = {
	"ls | wc -l", "rm -rf /", "a; b", "x && y", "curl x | sh", "it\\\"s",
	"say \"hi\"", "$HOME", "`id`", "a\nb", "echo done", "sudo rm -rf /tmp",
	"git push --force", "", " ", "a  b", "#c", "*.c", "{a,b}", "~", "x=1",
	"if true; then rm x; fi", "a | b | c && d", "cat /etc/shadow",
	"python3 -c 'import os'", "\\\\", "!x", "a\tb", "-rf", "sh -c 'rm x'",
};
/* clang-format on */

/* Expansions, the fast path's ($NAME, ${NAME}) and their near misses
   (special parameters, operators, an unclosed brace, names that change
   what runs). */
/* clang-format off */
static const char *const expansions[] = {
	"$x", "$HOME", "${x}", "${HOME}", "$_", "$A1", "${_b}", "$x$y",
	"${x}y", "$x-1", "$x.txt", "$x:y", "$x=y", "$x/", "$x@y", "$x%y",
	"$x+y", "$x^y", "$x,y", "$1", "$@", "$?", "$#", "$$", "$", "${x",
	"${x:-y}", "${#x}", "${x[0]}", "$IFS", "$PS4", "$CDPATH", "$PWD",
	"${!x}", "$x[", "$((1))", "$(ls)", "$'x'", "$\"x\"", "\\$x",
	"$0", "$9", "$10", "${1}", "${10}", "${01}", "$1x", "$1_", "$@x",
	"$@$@", "$*", "${@}", "${*}", "${1-}", "${1:-x}", "${#}", "$-", "$!",
	"${?}", "${$}", "$?$?", "$$x", "${@:2}", "${1", "$@/", "$1=x",
	"$1.$2", "$*.c",
};
/* clang-format on */

/* clang-format off */
static const char *const assignments[] = {
	"x=1", "x=", "HOME=/tmp", "A1=\"$y\"", "y='a b'", "x=$x", "_=z",
	"IFS=:", "x=$HOME/bin", "CC=gcc", "x=a=b", "x==b", "x+=1", "x[0]=1",
	"x=%1", "x=a@b", "x=+1", "x=rm", "x='$x'", "x=\"${y}\"z", "PS4=x",
	"CDPATH=/", "x=-", "x=--", "a-b=1", "1x=2", "x=if", "x=\"\"",
};
/* clang-format on */

/* Redirects after a command's words: the shapes the fast path reads
   and their near misses (other operators, descriptors, quoted or
   computed targets, a redirect glued to a word). */
/* clang-format off */
static const char *const redirects[] = {
	" > x", " >x", " 2>&1", " 2>/dev/null", " >> log", " < in", " &> out",
	" 1>&2", " >&2", ">x", " 2> x", " 1>x", " 2>>err", " > /dev/null",
	" < /etc/passwd", " > ~/.bashrc", " > .git/hooks/pre-commit", " > -",
	" 0<x", " 3>x", " >| x", " &>> x", " <<< x", " <& 3", " <> x",
	" > 'q'", " > \"q\"", " > $x", " > $(a)", " 2>&3", " >&-", " > >(a)",
	" <(a)", " > x y", " >&x", " 2>", " > =x", " > a,b", " > 1", " >&12",
	" 2>&1|", " >x;", " > x&&", " > x)", " \t>\tx", " <x", " 1>>x", " 2>&1x",
};
/* clang-format on */

static const char charset[] =
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCXYZ[\\]^_`abcxyz{|}~\t\n";

static void add(char *buf, size_t *n, size_t cap, const char *s)
{
	size_t l = strlen(s);
	if (*n + l + 1 >= cap)
		return;
	memcpy(buf + *n, s, l);
	*n += l;
	buf[*n] = '\0';
}

static void add_quoted(char *buf, size_t *n, size_t cap, const char *s)
{
	char q[2] = {pick(2) ? '\'' : '"', 0};
	add(buf, n, cap, q);
	add(buf, n, cap, s);
	add(buf, n, cap, q);
}

static void gen_line(char *buf, size_t cap);
static int gen_depth; /* substitutions generated inside each other */

static void gen_word(char *buf, size_t *n, size_t cap, bool first)
{
	size_t pieces = 1 + (pick(4) == 0) + (pick(8) == 0);
	for (size_t p = 0; p < pieces; p++) {
		size_t r = pick(100);
		if (r < 8) {
			add(buf, n, cap, PICK(keywords));
		} else if (r < 16) {
			add_quoted(buf, n, cap, PICK(payloads));
		} else if (r < 22) {
			add_quoted(buf, n, cap, PICK(programs));
		} else if (r < 26) {
			/* an expansion, bare or in double quotes */
			size_t q = pick(3);
			if (q == 0)
				add(buf, n, cap, "\"");
			if (q == 1)
				add(buf, n, cap, "\"a ");
			add(buf, n, cap, PICK(expansions));
			if (q == 0)
				add(buf, n, cap, "\"");
			if (q == 1)
				add(buf, n, cap, pick(2) ? " b\"" : "\"");
		} else if (r < 29 && gen_depth < 3) {
			/* a substitution of a generated line, bare or in
			   double quotes, or an assignment of one */
			char inner[200];
			size_t q = pick(4);
			gen_depth++;
			gen_line(inner, sizeof inner);
			gen_depth--;
			if (q == 0)
				add(buf, n, cap, "\"");
			if (q == 1)
				add(buf, n, cap, "\"a ");
			bool dq = q == 0 || (q == 2 && pick(2));
			if (q == 2)
				add(buf, n, cap, dq ? "x=\"" : "x=");
			add(buf, n, cap, "$(");
			add(buf, n, cap, inner);
			add(buf, n, cap, pick(8) ? ")" : pick(2) ? ";)" : " )");
			if (dq)
				add(buf, n, cap, "\"");
			if (q == 1)
				add(buf, n, cap, pick(2) ? " b\"" : "\"");
		} else if (r < 30) {
			/* random bytes: probes which ones are accepted */
			char w[8];
			size_t l = 1 + pick(5);
			for (size_t i = 0; i < l; i++)
				w[i] = charset[pick(sizeof charset - 1)];
			w[l] = '\0';
			add(buf, n, cap, w);
		} else if (first) {
			add(buf, n, cap, PICK(programs));
		} else {
			add(buf, n, cap, PICK(args));
		}
	}
}

static void gen_line(char *buf, size_t cap);

/* `sh -c '<a generated line>'`: a nested script for the fast path. */
static void gen_nested(char *buf, size_t *n, size_t cap)
{
	static const char *const shells[] = {
	    "sh -c ",           "bash -c ",     "eval ",    "sudo sh -c ",
	    "env A=1 bash -c ", "xargs sh -c ", "ssh host "};
	char inner[160];
	gen_line(inner, sizeof inner);
	if (strchr(inner, '\''))
		return;
	add(buf, n, cap, PICK(shells));
	add(buf, n, cap, "'");
	add(buf, n, cap, inner);
	add(buf, n, cap, "'");
}

static void gen_line(char *buf, size_t cap)
{
	static const char *const ops[] = {" | ", "|",  " && ",  "||",
	                                  " ; ", ";",  " || ",  " | ",
	                                  " & ", "\n", "  |  ", "\t&&\t"};
	size_t n = 0;
	buf[0] = '\0';
	size_t cmds = 1 + pick(4);
	for (size_t c = 0; c < cmds; c++) {
		if (c)
			add(buf, &n, cap, PICK(ops));
		if (pick(8) == 0) {
			gen_nested(buf, &n, cap);
			continue;
		}
		/* leading assignments, some of names the expansions use */
		for (size_t a = pick(4) == 0 ? 1 + pick(2) : 0; a > 0; a--) {
			add(buf, &n, cap, PICK(assignments));
			add(buf, &n, cap, " ");
		}
		size_t words = pick(8) == 0 ? pick(2) : 1 + pick(5);
		for (size_t w = 0; w < words; w++) {
			if (w)
				add(buf, &n, cap, pick(10) ? " " : "  ");
			gen_word(buf, &n, cap, w == 0);
		}
		/* redirects the fast path reads, and near misses */
		for (size_t r = pick(4) == 0 ? 1 + pick(2) : 0; r > 0; r--)
			add(buf, &n, cap, PICK(redirects));
		if (pick(40) == 0)
			gen_word(buf, &n, cap, false); /* a word after them */
	}
	if (pick(10) == 0)
		add(buf, &n, cap, pick(2) ? ";" : " ");
}

/* A line of the shapes the fast path reads, dense in substitutions (the
   batch above draws too many refused bytes to reach one often): plain
   words, arguments, expansions and quoted strings, `$(..)` bare, in
   double quotes and as an assignment's value, nested up to four deep
   (three are read), with hostile contents drawn now and then. */
static void gen_subst_line(char *buf, size_t cap, int depth)
{
	static const char *const ops[] = {" | ",  " && ", "; ",
	                                  " || ", "|",    ";"};
	/* clang-format off */
	static const char *const odd[] = {
		"2>&1", ">|x", "&>x", "<<<x", "3>&1", ">$(a)", "`id`", "$((1))",
		"'a;b'", "\"a|b\"", "\")\"", "')'", "#", "&", "\"$(\"", "(a)",
		"${x:-$(a)}", "$@", "\"$@\"", "$1", "${10}", "$?", "$#", "$$",
		"x=$(a)", "=x", "\"\"", "''", "\"\\\"\"", "$x", "\"$x\"",
	};
	static const char *const plain_programs[] = {
	    "ls",   "cat",  "grep", "git",     "rm",   "echo", "printf",
	    "sh",   "bash", "sudo", "env",     "find", "curl", "eval",
	    "tr",   "cut",  "head", "python3", "jq",   "xargs", "sed",
	    "date", "id",   "tee",  "command", "exec", "nohup", "basename"};
	/* clang-format on */
	size_t n = 0;
	buf[0] = '\0';
	size_t cmds = 1 + pick(depth ? 2 : 3);
	for (size_t c = 0; c < cmds; c++) {
		if (c)
			add(buf, &n, cap, PICK(ops));
		if (pick(4) == 0) {
			add(buf, &n, cap, pick(2) ? "x=" : "PATH_X=");
			if (pick(2) == 0) {
				add(buf, &n, cap, PICK(args));
				add(buf, &n, cap, " ");
			}
		} else if (pick(4) == 0) {
			/* a value of expansions and text glued (the grammar
			   ends some at a second expansion) */
			static const char *const pieces[] = {
			    "$a", "${b}", "$1", "$@",   ":",      ",",
			    ".",  "-c",   "/",  "$(a)", "\"$c\"", "'d'",
			    "e",  "+",    "^",  "%",    "="};
			add(buf, &n, cap, "v=");
			for (size_t p = 1 + pick(4); p > 0; p--)
				add(buf, &n, cap, PICK(pieces));
			add(buf, &n, cap, pick(2) ? " " : "; ");
		}
		size_t words = 1 + pick(depth ? 2 : 4);
		for (size_t w = 0; w < words; w++) {
			if (w)
				add(buf, &n, cap, " ");
			size_t r = pick(10);
			if (w == 0 && !(buf[n ? n - 1 : 0] == '='))
				add(buf, &n, cap,
				    pick(4) ? PICK(plain_programs)
				            : PICK(programs));
			else if (r < 4 && depth < 4) {
				char inner[200];
				gen_subst_line(inner, sizeof inner, depth + 1);
				size_t q = pick(3);
				if (q == 0)
					add(buf, &n, cap, "\"");
				if (q == 1)
					add(buf, &n, cap, "\"a ");
				add(buf, &n, cap, "$(");
				add(buf, &n, cap, inner);
				add(buf, &n, cap, pick(10) ? ")" : ";)");
				if (q == 0)
					add(buf, &n, cap, "\"");
				if (q == 1)
					add(buf, &n, cap, " b\"");
			} else if (r < 5 && pick(2)) {
				add(buf, &n, cap, PICK(odd));
			} else if (r < 6) {
				add_quoted(buf, &n, cap, PICK(payloads));
			} else if (r < 7) {
				add(buf, &n, cap, PICK(expansions));
			} else {
				add(buf, &n, cap, PICK(args));
			}
		}
	}
}

/* Every byte in four places, against the byte classes the fast path's
   header states (parser/fastpath.c, a table): in a word,
   in single quotes, in double quotes, in a first word. */
static bool plain_spec(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("-_./:,+%@^=~", c));
}

static bool quoted_spec(int c)
{
	return (c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n';
}

static int check_bytes(void)
{
	int fails = 0;
	for (int c = 0; c < 256; c++) {
		bool sep = c == ' ' || c == '\t' || c == ';' || c == '|';
		struct {
			const char *pre, *post;
			bool want;
			/* clang-format off */
		} at[] = {
		    /* `$b`: an expansion of a name; a glob in an argument */
		    {"x a", "b", plain_spec(c) || sep || c == '$' || c == '*' ||
		                     c == '?'},
		    /* clang-format on */
		    {"x 'a", "b'", quoted_spec(c) && c != '\''},
		    {"x \"a", "b\"",
		     quoted_spec(c) && !strchr("\"`", c) && c != '\0'},
		    /* `a=b x`: an assignment before the command x */
		    {"a", "b x",
		     (plain_spec(c) && !strchr("%@+", c)) || sep || c == '$'},
		};
		for (size_t k = 0; k < sizeof at / sizeof *at; k++) {
			char line[16];
			size_t n = strlen(at[k].pre);
			memcpy(line, at[k].pre, n);
			line[n++] = (char)c;
			memcpy(line + n, at[k].post, strlen(at[k].post));
			n += strlen(at[k].post);
			if (lp_fastpath_accepts(line, n) != at[k].want) {
				fprintf(stderr, "byte 0x%02x in '%s_%s': %s\n",
				        c, at[k].pre, at[k].post,
				        at[k].want ? "refused" : "accepted");
				fails++;
			}
		}
	}
	return fails;
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	size_t count = 20000;
	bool print = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--print"))
			print = true;
		else if (!strcmp(argv[i], "--keep-going"))
			fuzz_fastpath_keep_going = true;
		else {
			fprintf(stderr, "usage: test_fastpath [--seed N] "
			                "[--count N] [--print]\n");
			return 2;
		}
	}
	/* The comparison needs the fast path on in one of the parsers. */
	unsetenv("LOCUS_FASTPATH");
	rng = seed;
	char line[512];
	if (print) {
		for (size_t i = 0; i < count; i++) {
			if (i % 4 == 3)
				gen_subst_line(line, sizeof line, 0);
			else
				gen_line(line, sizeof line);
			printf("%s\n", line);
		}
		return 0;
	}
	int fails = check_bytes();
	for (size_t i = 0; must_accept[i]; i++) {
		if (!lp_fastpath_accepts(must_accept[i],
		                         strlen(must_accept[i]))) {
			fprintf(stderr, "not accepted: %s\n", must_accept[i]);
			fails++;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)must_accept[i],
		                       strlen(must_accept[i]));
	}
	for (size_t i = 0; must_refuse[i]; i++) {
		if (lp_fastpath_accepts(must_refuse[i],
		                        strlen(must_refuse[i]))) {
			fprintf(stderr, "not refused: %s\n", must_refuse[i]);
			fails++;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)must_refuse[i],
		                       strlen(must_refuse[i]));
	}
	size_t acc0 = fuzz_fastpath_accepted, tot0 = fuzz_fastpath_total;
	for (size_t i = 0; i < count; i++) {
		if (i % 4 == 3)
			gen_subst_line(line, sizeof line, 0);
		else
			gen_line(line, sizeof line);
		LLVMFuzzerTestOneInput((const uint8_t *)line, strlen(line));
	}
	size_t acc = fuzz_fastpath_accepted - acc0;
	size_t tot = fuzz_fastpath_total - tot0;
	printf("seed %llu: %zu lines, %zu read by the fast path at the top\n",
	       (unsigned long long)seed, tot, acc);
	if (acc * 5 < tot) {
		fprintf(stderr, "the fast path read fewer than a fifth of "
		                "the batch\n");
		fails++;
	}
	if (fuzz_fastpath_differences) {
		fprintf(stderr, "%zu lines differ\n",
		        fuzz_fastpath_differences);
		fails++;
	}
	return fails ? 1 : 0;
}
