/*
 * parser/fastpath.c - lines of plain words, read without tree-sitter.
 *
 * Most agent lines are plain words joined by `|`, `&&`, `||` and `;`, with
 * some single- and double-quoted strings.  For them the tree-sitter parse
 * and the walks over its tree are most of the cost.  This file reads such
 * a script with a small hand-written lexer and builds the same raw
 * commands (lp_raw_command: words, connector, pipeline, stdin) that
 * walk.c and word.c build from the tree, and hands each to lp_emit(), so
 * every later stage (see-through, nested scripts, line-level checks,
 * labels) is unchanged.  It is used for the top-level line and for nested
 * scripts (`sh -c 'ls | wc -l'`) alike.
 *
 * Accepted, and nothing else:
 *   - words of the bytes [A-Za-z0-9] and - _ . / : , + % @ ^ = ~
 *     (a tilde is kept as written on both paths: word.c does not expand
 *     `~/x` or `HEAD~1`, the labeller reads the text), and
 *     strings '...' (any printable byte, tab and newline inside) and
 *     "..." (the same, except backquote and a `$` that does not start an
 *     expansion below; a backslash before a newline or a blank is
 *     refused), glued together in any order;
 *   - expansions of a name, $NAME and ${NAME}, and of the positional
 *     and special parameters $0..$9 ${N} $@ $* $? ${@} ${*}, bare or
 *     inside "...": no name of such a line has a value the constants
 *     pre-pass knows (nor do parameters: it never gives them one)
 *     (only an assignment word gives one: the grammar reads those in a
 *     first word, below, or after a declaration word, refused; read,
 *     printf -v and the rest make names dynamic), so word.c keeps each as
 *     written, flagged EXPANSION and DYNAMIC, as is done here; a bare
 *     parameter after another bare expansion in a word is refused
 *     (`x=$y.$1`: the grammar ends the word before the digit);
 *   - command substitutions $(..), bare or inside "..." (not a command
 *     name, not after a quoted part), whose script is read by these
 *     same rules, nested up to FP_MAX_LEVEL deep: the word keeps the
 *     text as written, flagged SUBST and DYNAMIC (word.c's opaque), and
 *     the script's commands are emitted after the command holding it,
 *     as walk.c's F_SUBST frame does (emit_subst);
 *   - assignments NAME=value before a command's words, or alone: the
 *     same words, their argv form "NAME=value" in the command's
 *     assignments; a line whose expansions name a name it assigns is
 *     refused (the constants pass resolves `X=rm; $X`), so every name
 *     stays unresolved as above;
 *   - in an argument (not a command name, not an assignment) that holds
 *     no quote, expansion or substitution: the globs `*` and `?` (the
 *     word is flagged GLOB, as word.c's shape does), the empty pair `{}`
 *     (find's and xargs' placeholder: no brace expansion); a backslash
 *     escaping one of ;()*?.|+{}[]!&<>,:=@%^~/_'" (the byte is its
 *     value, flagged QUOTED: `\;`, `\(`), also in a word with quoted
 *     parts (`'it'\''s'`) but not with an expansion or substitution;
 *   - redirects after a command's words, preceded by a blank: `>`,
 *     `>>`, `&>`, `<` and `1>`, `2>`, `1>>`, `2>>` with a target of plain
 *     bytes, and `>&1`, `>&2`, `1>&2`, `2>&1`; at most FP_MAX_REDIRS, no
 *     word after them, and only on the first command after the line's
 *     start or a `;` (the grammar hangs a later command's redirect on
 *     every command of the list or pipeline before it: walk.c
 *     chain_redirects; left to tree-sitter);
 *   - blanks (space, tab) between words, and the operators | && || ;
 *     between commands (a `;` may end the line);
 *   - a command's first word must not be or start with a reserved or
 *     declaration word of the grammar (if, then, for, export, unset...)
 *     or `let`, nor hold = % @ + outside quotes (first_word_ok); no word
 *     may start with `=` (`==` and `=~` are tokens of the grammar);
 *   - a pipeline of three or more stages must not be followed by && or
 *     || (the grammar reads the next command into the pipeline).
 * Refused to tree-sitter: every other byte (a `$` of anything else:
 * $$ $# $! $-, ${..} with operators, $((..)); backquote,
 * `[`, braces but `{}`, #, !, other backslashes outside double quotes,
 * other redirects, ( ) &, control and non-ASCII bytes, a newline outside
 * quotes), a
 * keyword glued to a quote or a `$` as a first word, an empty command,
 * and any line naming a variable that changes what runs (vars.c
 * sensitive names), since those need the constants pre-pass.
 *
 * The claim that both paths give the same result is checked rather than
 * argued: fuzz/fuzz_fastpath.c (libFuzzer) and tests/test_fastpath.c
 * compare the `locus classify` JSON of each line with the fast path on and
 * off, byte for byte (docs/design.md, "The fast path").
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fastpath.h"

#define NONE LOCUS_SHELL_NO_PARENT

typedef enum fp_op {
	FP_END,
	FP_SEMI,
	FP_AND,
	FP_OR,
	FP_PIPE,
	FP_CLOSE /* the `)` that ends a substitution */
} fp_op;

/* Connector strings as walk.c spells them (compared by value only). */
static const char *const fp_conn[] = {"", ";", "&&", "||", "|", ""};

/* What the lexer knows about each byte (one lookup instead of ranges
   and a strchr per byte). */
enum {
	FP_PLAIN = 1 << 0,  /* an unquoted byte of a plain word */
	FP_QUOTED = 1 << 1, /* inside quotes: printable ASCII, tab, newline */
	FP_FIRST = 1 << 2,  /* refused unquoted in a first word: = % @ + */
};
#define FP_PQ (FP_PLAIN | FP_QUOTED)
#define FP_PQF (FP_PLAIN | FP_QUOTED | FP_FIRST)
/* clang-format off */
static const unsigned char fp_byte[256] = {
	['\t'] = FP_QUOTED, ['\n'] = FP_QUOTED,
	[' '] = FP_QUOTED, ['!'] = FP_QUOTED, ['"'] = FP_QUOTED,
	['#'] = FP_QUOTED, ['$'] = FP_QUOTED, ['%'] = FP_PQF,
	['&'] = FP_QUOTED, ['\''] = FP_QUOTED, ['('] = FP_QUOTED,
	[')'] = FP_QUOTED, ['*'] = FP_QUOTED, ['+'] = FP_PQF,
	[','] = FP_PQ, ['-'] = FP_PQ, ['.'] = FP_PQ, ['/'] = FP_PQ,
	['0'] = FP_PQ, ['1'] = FP_PQ, ['2'] = FP_PQ, ['3'] = FP_PQ,
	['4'] = FP_PQ, ['5'] = FP_PQ, ['6'] = FP_PQ, ['7'] = FP_PQ,
	['8'] = FP_PQ, ['9'] = FP_PQ, [':'] = FP_PQ, [';'] = FP_QUOTED,
	['<'] = FP_QUOTED, ['='] = FP_PQF, ['>'] = FP_QUOTED,
	['?'] = FP_QUOTED, ['@'] = FP_PQF,
	['A'] = FP_PQ, ['B'] = FP_PQ, ['C'] = FP_PQ, ['D'] = FP_PQ,
	['E'] = FP_PQ, ['F'] = FP_PQ, ['G'] = FP_PQ, ['H'] = FP_PQ,
	['I'] = FP_PQ, ['J'] = FP_PQ, ['K'] = FP_PQ, ['L'] = FP_PQ,
	['M'] = FP_PQ, ['N'] = FP_PQ, ['O'] = FP_PQ, ['P'] = FP_PQ,
	['Q'] = FP_PQ, ['R'] = FP_PQ, ['S'] = FP_PQ, ['T'] = FP_PQ,
	['U'] = FP_PQ, ['V'] = FP_PQ, ['W'] = FP_PQ, ['X'] = FP_PQ,
	['Y'] = FP_PQ, ['Z'] = FP_PQ, ['['] = FP_QUOTED,
	['\\'] = FP_QUOTED, [']'] = FP_QUOTED, ['^'] = FP_PQ,
	['_'] = FP_PQ, ['`'] = FP_QUOTED,
	['a'] = FP_PQ, ['b'] = FP_PQ, ['c'] = FP_PQ, ['d'] = FP_PQ,
	['e'] = FP_PQ, ['f'] = FP_PQ, ['g'] = FP_PQ, ['h'] = FP_PQ,
	['i'] = FP_PQ, ['j'] = FP_PQ, ['k'] = FP_PQ, ['l'] = FP_PQ,
	['m'] = FP_PQ, ['n'] = FP_PQ, ['o'] = FP_PQ, ['p'] = FP_PQ,
	['q'] = FP_PQ, ['r'] = FP_PQ, ['s'] = FP_PQ, ['t'] = FP_PQ,
	['u'] = FP_PQ, ['v'] = FP_PQ, ['w'] = FP_PQ, ['x'] = FP_PQ,
	['y'] = FP_PQ, ['z'] = FP_PQ, ['{'] = FP_QUOTED,
	['|'] = FP_QUOTED, ['}'] = FP_QUOTED, ['~'] = FP_PQ,
};
/* clang-format on */

/* Unquoted bytes of a plain word: [A-Za-z0-9] and - _ . / : , + % @ ^ = ~. */
static bool plain_byte(unsigned char c)
{
	return fp_byte[c] & FP_PLAIN;
}

/* A byte a word may start with: a plain byte, a quote, `$`. */
static bool word_start(unsigned char c)
{
	return plain_byte(c) || c == '\'' || c == '"' || c == '$' || c == '*' ||
	       c == '?' || c == '{' || c == '\\';
}

/* Bytes a backslash may escape in an unquoted word on the fast path
   (`find . -exec rm {} \;`, `\( -name a \)`, `'it'\''s'`): the byte
   is its value, quoted (word.c: put_unquoted).  Not `$`, backquote,
   blanks, newline, `#` or a backslash; not `-` either: after a quoted
   part, before a descriptor redirect (`echo ''\- 2>x`), the grammar
   drops `\-` and reports a syntax error (found by a red team of stop
   47; bash prints `-`): left to tree-sitter. */
static bool escapable(unsigned char c)
{
	return c && strchr(";()*?.|+{}[]!&<>,:=@%^~/_'\"", c) != NULL;
}

/* Inside quotes: printable ASCII, tab, newline. */
static bool quoted_byte(unsigned char c)
{
	return fp_byte[c] & FP_QUOTED;
}

/* Words the grammar reads as keywords in a command's first position
   (statements, declarations), and `let` (arithmetic: arith.c). */
/* clang-format off */
static const char *const first_word_refused[] = {
	"if", "then", "elif", "else", "fi", "case", "esac", "for", "select",
	"while", "until", "do", "done", "in", "function", "declare",
	"typeset", "export", "local", "readonly", "unset", "unsetenv", "let",
	"-", /* `- a=b x`: the grammar drops the `-` and reads an assignment */
	NULL,
};
/* clang-format on */

/* Substitutions `$(..)` a word may hold (more: left to tree-sitter), and
   how deep they may nest. */
enum { FP_MAX_SUBST = 8, FP_MAX_LEVEL = 3 };

/* Redirects one command may have on the fast path (more: tree-sitter). */
enum { FP_MAX_REDIRS = 4 };

typedef struct fp_word {
	size_t start, end;
	bool quoted;    /* some part is quoted */
	bool expansion; /* some part is $NAME or ${NAME} */
	/* a bare `$` after a bare expansion or substitution */
	bool second_bare;
	/* some byte is a glob (`*`, `?`), an empty pair of braces `{}` or
	   an escape `\;`: such a word is no command name and no
	   assignment, holds no expansion or substitution, and holds a
	   quoted part only with escapes alone (lex_word) */
	bool special;
	bool glob;    /* an unquoted `*` or `?` */
	bool escaped; /* a backslash escape (quotes allowed around it) */
	size_t nsub;  /* its substitutions $(..), bare or in "..." */
	size_t sub_start[FP_MAX_SUBST], sub_end[FP_MAX_SUBST];
} fp_word;

/* The names a line assigns and expands (fp_names), at most
   FP_MAX_NAMES of each. */
enum { FP_MAX_NAMES = 32 };
typedef struct fp_names {
	const char *name[FP_MAX_NAMES];
	size_t len[FP_MAX_NAMES];
	size_t at[FP_MAX_NAMES]; /* an expansion's `$`, an assignment's end */
	size_t n;
	bool full; /* a name was not recorded */
} fp_names;

static void names_add(fp_names *a, const char *name, size_t len, size_t at)
{
	if (a->n == FP_MAX_NAMES) {
		a->full = true;
		return;
	}
	a->name[a->n] = name;
	a->len[a->n] = len;
	a->at[a->n++] = at;
}

/* What the check of a line gathers (NULL while emitting: the line was
   accepted). */
typedef struct fp_scan {
	fp_names assigned, expanded;
} fp_scan;

static bool accepts_seq(const char *s, size_t n, size_t *i, unsigned level,
                        fp_scan *sc);
static inline void word_decode(const char *s, const fp_word *w, char *v);

static bool name_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool name_byte(unsigned char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

/* The special parameters read here: $@ $* $? (one byte each).  `$$`
   is not: glued after a word (`a$$`) the grammar does not read it as an
   expansion (found by the differential test). */
static bool special_param(unsigned char c)
{
	return c == '@' || c == '*' || c == '?';
}

/* The end of the expansion at s[k] (a `$`): $NAME, ${NAME}, a positional
   parameter ($0..$9, ${N}) or a special one ($@ $* $?, ${@} ${*});
   0 for any other `$`: ${..} with operators, $(..), $$ $# $! $-. */
static size_t expansion_end(const char *s, size_t n, size_t k)
{
	size_t j = k + 1;
	bool braced = j < n && s[j] == '{';
	if (braced)
		j++;
	if (j < n && (special_param((unsigned char)s[j]) ||
	              (s[j] >= '0' && s[j] <= '9'))) {
		/* `$10` is `$1` then `0` to bash; `${10}` one parameter */
		bool digit = s[j] >= '0' && s[j] <= '9';
		if (!braced)
			return j + 1;
		if (s[j] == '?')
			return 0; /* ${?}: rare, left to tree-sitter */
		j++;
		while (digit && j < n && s[j] >= '0' && s[j] <= '9')
			j++;
		return j < n && s[j] == '}' ? j + 1 : 0;
	}
	if (j >= n || !name_start((unsigned char)s[j]))
		return 0;
	while (j < n && name_byte((unsigned char)s[j]))
		j++;
	if (!braced)
		return j;
	return j < n && s[j] == '}' ? j + 1 : 0;
}

/* The name of the expansion s[k..e) (a `$`), for the check of names a
   line both assigns and expands; parameters are no names. */
static void note_expansion(const char *s, size_t k, size_t e, fp_scan *sc)
{
	size_t b = k + 1 + (s[k + 1] == '{');
	if (sc && name_start((unsigned char)s[b]))
		names_add(&sc->expanded, s + b, e - b - (s[k + 1] == '{'), k);
}

/* The substitution `$(..)` at s[k] (`$(`, not `$((`): its end after the
   `)`, or 0 when its script is not one the fast path reads. */
static size_t subst_end(const char *s, size_t n, size_t k, unsigned level,
                        fp_scan *sc, fp_word *w)
{
	if (k + 2 >= n || s[k + 2] == '(' || level + 1 > FP_MAX_LEVEL ||
	    w->nsub == FP_MAX_SUBST)
		return 0;
	size_t j = k + 2;
	if (!accepts_seq(s, n, &j, level + 1, sc))
		return 0;
	w->sub_start[w->nsub] = k;
	w->sub_end[w->nsub++] = j;
	return j;
}

/* Lex one word at s[*i]; false when it holds anything not accepted.
   level: how many substitutions the word is in; sc: NULL once the line
   is accepted. */
static bool lex_word(const char *s, size_t n, size_t *i, fp_word *w,
                     unsigned level, fp_scan *sc)
{
	size_t k = *i;
	w->start = k;
	w->quoted = false;
	w->expansion = false;
	w->nsub = 0;
	w->second_bare = false;
	w->special = w->glob = w->escaped = false;
	bool bare_dyn = false; /* a bare expansion or substitution so far */
	if (s[k] == '=')
		return false;
	while (k < n) {
		unsigned char c = (unsigned char)s[k];
		if (c == '$') {
			/* after a quoted part the grammar reads `b$x,` as a
			   plain word, the $x literal (word.c then keeps it
			   static, `"a"b$x,`): such words stay with
			   tree-sitter (found by the differential test);
			   the same for a substitution there */
			if (w->quoted)
				return false;
			w->second_bare |= bare_dyn;
			if (k + 1 < n && s[k + 1] == '(') {
				size_t e = subst_end(s, n, k, level, sc, w);
				if (!e)
					return false;
				k = e;
				bare_dyn = true;
				continue;
			}
			/* in an assignment's value the grammar ends the word
			   before the digit of `$1` that follows an expansion
			   and text (`x=$y.$1` is `x=$y.$` and a command `1`;
			   found by the differential test): a bare parameter
			   after another bare expansion stays with
			   tree-sitter, in any word */
			if (bare_dyn && k + 1 < n &&
			    (special_param((unsigned char)s[k + 1]) ||
			     (s[k + 1] >= '0' && s[k + 1] <= '9')))
				return false;
			bare_dyn = true;
			size_t e = expansion_end(s, n, k);
			if (!e)
				return false;
			note_expansion(s, k, e, sc);
			k = e;
			w->expansion = true;
		} else if (c == '\'') {
			for (k++; k < n && s[k] != '\''; k++)
				if (!quoted_byte((unsigned char)s[k]))
					return false;
			if (k >= n)
				return false;
			k++;
			w->quoted = true;
		} else if (c == '"') {
			bool blank = true;
			for (k++; k < n && s[k] != '"'; k++) {
				if (s[k] != ' ' && s[k] != '\t' && s[k] != '\n')
					blank = false;
				unsigned char q = (unsigned char)s[k];
				if (q == '$' && k + 1 < n && s[k + 1] == '(') {
					size_t e =
					    subst_end(s, n, k, level, sc, w);
					if (!e)
						return false;
					k = e - 1;
					blank = false;
					continue;
				}
				if (q == '$') {
					size_t e = expansion_end(s, n, k);
					if (!e)
						return false;
					note_expansion(s, k, e, sc);
					k = e - 1;
					w->expansion = true;
					continue;
				}
				if (!quoted_byte(q) || q == '`')
					return false;
				if (q == '\\') {
					/* `"\ "`: the grammar's closing quote
					   takes the blank (libFuzzer) */
					if (k + 1 >= n || s[k + 1] == '\n' ||
					    s[k + 1] == ' ' ||
					    s[k + 1] == '\t' ||
					    !quoted_byte(
					        (unsigned char)s[k + 1]) ||
					    s[k + 1] == '$' || s[k + 1] == '`')
						return false;
					k++; /* the escaped byte */
				}
			}
			if (k >= n)
				return false;
			/* The grammar makes the closing quote of a string of
			   blanks one token with the blanks (found by the
			   differential test); word.c takes the blanks out of
			   that token, and this rare shape stays with
			   tree-sitter. */
			if (blank && s[k - 1] != '"')
				return false;
			k++;
			w->quoted = true;
		} else if (plain_byte(c)) {
			k++;
		} else if (c == '*' || c == '?') {
			w->special = w->glob = true;
			k++;
		} else if (c == '{' && k + 1 < n && s[k + 1] == '}') {
			w->special = true;
			k += 2;
		} else if (c == '\\' && k + 1 < n &&
		           escapable((unsigned char)s[k + 1])) {
			w->escaped = true;
			k += 2;
		} else {
			break;
		}
	}
	/* globs and `{}` in plain words only; escapes also next to quoted
	   parts (`'a'\''b'`), never next to an expansion or a
	   substitution (`\;$x`: left to tree-sitter) */
	if ((w->special && (w->quoted || w->expansion || w->nsub)) ||
	    (w->escaped && (w->expansion || w->nsub)))
		return false;
	w->special |= w->escaped;
	w->end = k;
	*i = k;
	return k > w->start;
}

static size_t skip_blanks(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* A redirect may start at s[k]: `>`, `<`, `&>`, or a descriptor 1 or 2
   glued to `>`, after a blank (a redirect glued to a word, `ls>x`, is
   left to tree-sitter). */
static bool redirect_start(const char *s, size_t n, size_t k)
{
	if (k == 0 || k >= n || (s[k - 1] != ' ' && s[k - 1] != '\t'))
		return false;
	char c = s[k], d = k + 1 < n ? s[k + 1] : '\0';
	return c == '>' || c == '<' || (c == '&' && d == '>') ||
	       ((c == '1' || c == '2') && d == '>');
}

/* One redirect the fast path reads, from s[k] (redirect_start): `>`,
   `>>`, `&>`, `<`, with a descriptor 1 or 2 before `>` and `>>`, then
   a target of plain bytes (no quote, no expansion: its value is its
   text); or `>&1`, `>&2` with such a descriptor.  Its end, 0 for any
   other shape (`<<`, `<<<`, `<&`, `<>`, `>|`, `&>>`, `>(..)`, `0<`,
   other descriptors: left to tree-sitter).  The target must end the
   word: a blank, `;`, `|`, `&`, `)` or the end follows. */
typedef struct fp_redir {
	const char *op;
	int fd;             /* -1: none written */
	size_t target, end; /* the target s[target..end) */
} fp_redir;

static size_t redirect_end(const char *s, size_t n, size_t k, fp_redir *rd)
{
	size_t j = k;
	int fd = -1;
	const char *op;
	if (s[j] == '1' || s[j] == '2')
		fd = s[j++] - '0';
	if (s[j] == '&') {
		if (fd >= 0 || j + 2 >= n || s[j + 2] == '>')
			return 0;
		op = "&>";
		j += 2;
	} else if (s[j] == '<') {
		j++;
		if (fd >= 0 || j >= n || s[j] == '<' || s[j] == '&' ||
		    s[j] == '>')
			return 0;
		op = "<";
	} else {
		j++; /* `>` */
		op = ">";
		if (j < n && s[j] == '>') {
			op = ">>";
			j++;
		} else if (j < n && s[j] == '&') {
			j++;
			if (j >= n || (s[j] != '1' && s[j] != '2'))
				return 0;
			op = ">&";
		} else if (j < n && s[j] == '|') {
			return 0;
		}
	}
	size_t t0 = op[1] == '&' ? j : skip_blanks(s, n, j), e = t0;
	while (e < n && plain_byte((unsigned char)s[e]))
		e++;
	if (e == t0 || s[t0] == '=' || (op[1] == '&' && e != t0 + 1))
		return 0;
	if (e < n && s[e] != ' ' && s[e] != '\t' && s[e] != ';' &&
	    s[e] != '|' && s[e] != '&' && s[e] != ')')
		return 0;
	rd->op = op;
	rd->fd = fd;
	rd->target = t0;
	rd->end = e;
	return e;
}

/* The operator at s[*i] (after blanks), or FP_END at the end, FP_CLOSE
   at a `)`; -1 for anything else. */
static int lex_op(const char *s, size_t n, size_t *i)
{
	size_t k = *i;
	if (k >= n)
		return FP_END;
	int op;
	if (s[k] == ';') {
		op = FP_SEMI;
		k++;
		if (k < n && (s[k] == ';' || s[k] == '&'))
			return -1; /* ;; ;& */
	} else if (s[k] == '&' && k + 1 < n && s[k + 1] == '&') {
		op = FP_AND;
		k += 2;
	} else if (s[k] == '|' && k + 1 < n && s[k + 1] == '|') {
		op = FP_OR;
		k += 2;
	} else if (s[k] == '|') {
		op = FP_PIPE;
		k++;
		if (k < n && s[k] == '&')
			return -1; /* |& */
	} else if (s[k] == ')') {
		op = FP_CLOSE;
		k++;
	} else {
		return -1;
	}
	*i = k;
	return op;
}

/* The closing quote of the quoted part that opens at s[k] (' or "; a
   backslash in double quotes escapes the next byte): the lexer accepted
   the word, so the quote closes. */
static size_t quote_end(const char *s, size_t k)
{
	char q = s[k];
	for (k++; s[k] != q; k++)
		if (q == '"' && s[k] == '\\')
			k++;
	return k;
}

/* The grammar's rules for a command's first word, narrower than bash's
   (each found by the differential test, tests/test_fastpath.c): an
   unquoted `=` makes an assignment (also `1=x`, which bash runs as a
   command); `%` or `@` after a word byte (`x%1`, `z@x`) and `+:` (`x+:`)
   are syntax errors to the grammar; a keyword glued to a quote
   (`if"x"`, `typeset'a'`) is read as the keyword. */
static bool first_word_ok(const char *s, const fp_word *w)
{
	if (w->nsub || w->special)
		return false; /* a command name computed by a substitution,
		                 or a glob, braces, an escape */
	size_t run = 0;       /* the leading unquoted bytes */
	while (w->start + run < w->end && s[w->start + run] != '\'' &&
	       s[w->start + run] != '"' && s[w->start + run] != '$')
		run++;
	for (size_t k = w->start; k < w->end; k++) {
		if (s[k] == '\'' || s[k] == '"') {
			k = quote_end(s, k);
			continue;
		}
		if (fp_byte[(unsigned char)s[k]] & FP_FIRST)
			return false;
	}
	for (const char *const *kw = first_word_refused; *kw; kw++)
		if ((*kw)[0] == s[w->start] && strlen(*kw) == run &&
		    !memcmp(*kw, s + w->start, run))
			return false;
	return true;
}

/* The value of accepted word w (word_decode) is one of `list`; a value
   computed at run time is none.  A text of 256 bytes or more counts as
   one (the callers then leave the line to tree-sitter: safe). */
static bool word_in_list(const char *s, const fp_word *w,
                         const char *const *list)
{
	if (w->expansion || w->nsub)
		return false;
	size_t n = w->end - w->start;
	if (!w->quoted && !w->escaped) { /* the value is the text */
		for (; *list; list++)
			if (!strncmp(s + w->start, *list, n) && !(*list)[n])
				return true;
		return false;
	}
	char v[256];
	if (n >= sizeof v)
		return true;
	word_decode(s, w, v);
	for (; *list; list++)
		if (!strcmp(v, *list))
			return true;
	return false;
}

/* `command` and `builtin` run the word after them as the command: the
   constants pass reads a declaration there (`builtin declare -i x=a`:
   vars.c on_command), which the fast path does not, so a line where one
   of them is followed by a word of first_word_refused is left to
   tree-sitter (found by test_fastpath). */
static const char *const runs_next_word[] = {"command", "builtin", NULL};

/* A word that is an assignment to the grammar and to bash, NAME=value
   with NAME unquoted: the length of NAME=, else 0.  A value that starts
   with `=` is left to tree-sitter (as a word starting with `=` is). */
static size_t assignment_len(const char *s, const fp_word *w)
{
	size_t k = w->start;
	if (!name_start((unsigned char)s[k]))
		return 0;
	while (k < w->end && name_byte((unsigned char)s[k]))
		k++;
	if (k >= w->end || s[k] != '=' || (k + 1 < w->end && s[k + 1] == '='))
		return 0;
	/* `_=x` is a command word to the grammar (`_` is special) */
	if (k == w->start + 1 && s[w->start] == '_')
		return 0;
	return k + 1 - w->start;
}

/* After assignments the grammar reads a command word of name bytes and
   `:` as a syntax error (`x=1 a:b`; found by the differential test): no
   unquoted `:` there. */
static bool after_assignment_ok(const char *s, const fp_word *w)
{
	if (w->nsub)
		return false;
	for (size_t k = w->start; k < w->end; k++) {
		if (s[k] == '\'' || s[k] == '"')
			k = quote_end(s, k);
		else if (s[k] == ':')
			return false;
	}
	return true;
}

/* An assignment in a of the name, ending at or before `at`. */
static bool assigned_before(const fp_names *a, const char *name, size_t len,
                            size_t at)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->len[i] == len && a->at[i] <= at &&
		    !memcmp(a->name[i], name, len))
			return true;
	return false;
}

/* No expansion of the accepted line comes after an assignment of its
   name: the constants pass would resolve it (`X=rm; $X -rf /`, also
   inside a substitution), which is left to tree-sitter.  An expansion
   before the end of the name's first assignment (`x="$x a"`, `echo $x;
   x=1`) has no value to the pass (vars.c: lp_vars_lookup reads a value
   only from the end of the assignment that set it on), nor has any
   other name. */
static bool expands_no_assigned(const fp_scan *sc)
{
	if (sc->assigned.n == 0)
		return true;
	if (sc->assigned.full || sc->expanded.full)
		return false;
	for (size_t i = 0; i < sc->expanded.n; i++)
		if (assigned_before(&sc->assigned, sc->expanded.name[i],
		                    sc->expanded.len[i], sc->expanded.at[i]))
			return false;
	return true;
}

/* The redirects after a command's words, from s[*i] (none is fine): at
 * most FP_MAX_REDIRS of the shapes redirect_end reads, and no word after
 * them (`git >/dev/null push`: the grammar misreads the word, misparse S9).
 * Only the first command after the line's start or a `;` may have them:
 * the grammar hangs a redirect of a later command of a list or pipeline
 * on everything before it since then (`a | b > y` and `a && b > y` give
 * `a` the redirect too; walk.c chain_redirects reads it so), which is
 * left to tree-sitter. */
static bool accepts_redirects(const char *s, size_t n, size_t *i,
                              bool seg_first)
{
	size_t count = 0;
	while (*i < n && redirect_start(s, n, *i)) {
		fp_redir rd;
		size_t e = redirect_end(s, n, *i, &rd);
		if (!e || !seg_first || ++count > FP_MAX_REDIRS)
			return false;
		*i = skip_blanks(s, n, e);
	}
	return count == 0 || *i >= n || !word_start((unsigned char)s[*i]);
}

/* The commands of a script from s[*i]: its words and operators are all
   the fast path reads.  At level 0 the script is the line and ends with
   it; inside a substitution (level > 0) it ends with the `)` after a
   command, which is consumed. */
static bool accepts_seq(const char *s, size_t n, size_t *i, unsigned level,
                        fp_scan *sc)
{
	size_t stages = 1;     /* of the current pipeline */
	bool seg_first = true; /* the command is the first after `;` */
	for (;;) {
		/* one command: leading assignments, then words; at least one
		   of either */
		*i = skip_blanks(s, n, *i);
		size_t nw = 0, na = 0;
		bool runs_next = false; /* the name is command or builtin */
		for (;;) {
			fp_word w;
			if (*i >= n || !word_start((unsigned char)s[*i]) ||
			    (nw > 0 && redirect_start(s, n, *i)))
				break;
			if (!lex_word(s, n, i, &w, level, sc))
				return false;
			size_t al = nw == 0 ? assignment_len(s, &w) : 0;
			/* `x=|`: the grammar takes the | into the value */
			if (al && w.end == w.start + al && *i < n &&
			    (s[*i] == '|' || s[*i] == ')'))
				return false;
			/* in an assignment's value the grammar may end the
			   word at a second bare expansion (`S=$T:$L,c` is
			   `S=$T:$` and a command `L,c`; `S=$T$L$M,c`; found on
			   batch 2's held-out lines): such values stay with
			   tree-sitter */
			if (al && (w.second_bare || w.special))
				return false;
			if (al) {
				if (sc)
					names_add(&sc->assigned, s + w.start,
					          al - 1, w.end);
				na++;
			} else if (nw++ == 0) {
				if (!first_word_ok(s, &w) ||
				    (na && !after_assignment_ok(s, &w)))
					return false;
				runs_next = word_in_list(s, &w, runs_next_word);
			} else if (runs_next &&
			           word_in_list(s, &w, first_word_refused)) {
				return false;
			}
			*i = skip_blanks(s, n, *i);
		}
		if (nw + na == 0)
			return false; /* empty command, or a refused byte */
		if (nw > 0 && !accepts_redirects(s, n, i, seg_first))
			return false;
		int op = lex_op(s, n, i);
		if (op < 0 || (op == FP_END && level > 0) ||
		    (op == FP_CLOSE && level == 0))
			return false;
		if (op == FP_END || op == FP_CLOSE)
			return true;
		/* The grammar reads `a | b | c && d` as a pipeline whose last
		   stage is `c && d` (found by the differential test; bash
		   runs d after the pipeline): a different pipeline number,
		   so leave such lines to tree-sitter. */
		if ((op == FP_AND || op == FP_OR) && stages >= 3)
			return false;
		stages = op == FP_PIPE ? stages + 1 : 1;
		seg_first = op == FP_SEMI;
		if (op == FP_SEMI) {
			size_t k = skip_blanks(s, n, *i);
			if (level == 0 && k >= n)
				return true; /* `cmd;` */
			if (level > 0 && k < n && s[k] == ')') {
				*i = k + 1; /* `$(cmd;)` */
				return true;
			}
		}
	}
}

static bool accepts_shape(const char *s, size_t n)
{
	fp_scan sc;
	sc.assigned.n = sc.expanded.n = 0;
	sc.assigned.full = sc.expanded.full = false;
	size_t i = 0;
	return accepts_seq(s, n, &i, 0, &sc) && expands_no_assigned(&sc);
}

/* `$`, backslash, newline anywhere, quoted or not: the tree pass's raw
   scan (checks.c, check_dollar_continuation) reads the whole line's bytes
   and fails it closed at the first; a line the fast path read would fail
   later, inside a nested script, with another byte in its reason (found
   by fuzz_fastpath: `sudo sh -c 'rm -rf$\<newline>x'`). */
static bool dollar_continuation(const char *s, size_t n)
{
	for (size_t i = 0; i + 2 < n; i++)
		if (s[i] == '$' && s[i + 1] == '\\' && s[i + 2] == '\n')
			return true;
	return false;
}

bool lp_fastpath_accepts(const char *s, size_t n)
{
	/* the lexer first: it stops at the first byte it refuses (most
	   lines the fast path leaves have one early), the scan for
	   sensitive names reads the whole line */
	return s && n > 0 && accepts_shape(s, n) &&
	       !lp_mentions_sensitive(s, n) && !dollar_continuation(s, n);
}

/* ---- building the raw commands ------------------------------------------ */

/* The substitution of w at s[*k], if one starts there: copied as written
   (word.c keeps a substitution's text), *k at its last byte. */
static bool copy_subst(const char *s, const fp_word *w, size_t *sj, size_t *k,
                       char *v, size_t *o)
{
	if (*sj >= w->nsub || w->sub_start[*sj] != *k)
		return false;
	size_t l = w->sub_end[*sj] - *k;
	memcpy(v + *o, s + *k, l);
	*o += l;
	*k += l - 1;
	++*sj;
	return true;
}

/* The value of accepted word w into v, which holds its text's length
   and a NUL (a value is never longer): quote removal as word.c does it
   (inside "...", a backslash escapes only \ and "; outside, an escape is
   its byte; a substitution is kept as written). */
static inline __attribute__((always_inline)) void
word_decode(const char *s, const fp_word *w, char *v)
{
	size_t o = 0, sj = 0;
	for (size_t k = w->start; k < w->end; k++) {
		char c = s[k];
		if (copy_subst(s, w, &sj, &k, v, &o)) {
			continue;
		} else if (c == '\'') {
			for (k++; s[k] != '\''; k++)
				v[o++] = s[k];
		} else if (c == '"') {
			for (k++; s[k] != '"'; k++) {
				if (copy_subst(s, w, &sj, &k, v, &o))
					continue;
				if (s[k] == '\\' &&
				    (s[k + 1] == '\\' || s[k + 1] == '"'))
					k++;
				v[o++] = s[k];
			}
		} else if (c == '\\') {
			v[o++] = s[++k]; /* an escape (lex_word) */
		} else {
			v[o++] = c;
		}
	}
	v[o] = '\0';
}

/* The argv value of an accepted word (word_decode), in the arena. */
static const char *word_value(lp_arena *a, const char *s, const fp_word *w)
{
	char *v = lp_arena_alloc_raw(a, w->end - w->start + 1);
	if (v)
		word_decode(s, w, v);
	return v;
}

typedef struct fp_state {
	lp_tree *t;
	const char *origin;
	size_t parent;
	unsigned depth;
	const char *connector;
	bool piped;
	size_t producer;
	size_t
	    pipeline;   /* SIZE_MAX: a number of its own (finish() in walk.c) */
	unsigned level; /* how many substitutions the script is in */
} fp_state;

static int emit_one(fp_state *st, size_t *i);

/* The commands of the substitution at s[at] (`$(`), as walk.c's F_SUBST
   frame emits them after the command idx whose word holds it: origin
   "substitution", idx their parent, one level deeper, a sequence of its
   own (connector "", pipeline numbers from the context's counter). */
static void emit_subst(const fp_state *st, size_t at, size_t idx)
{
	lp_ctx *ctx = st->t->ctx;
	if (!lp_depth_ok(ctx, st->depth + 1))
		return;
	fp_state in = {st->t,
	               LOCUS_ORIGIN_SUBSTITUTION,
	               idx != NONE ? idx : st->parent,
	               st->depth + 1,
	               "",
	               false,
	               NONE,
	               SIZE_MAX,
	               st->level + 1};
	const char *s = st->t->src;
	size_t n = st->t->len, i = at + 2;
	for (;;) {
		if (lp_out_of_time(ctx))
			break;
		int op = emit_one(&in, &i);
		if (op == FP_CLOSE || op == FP_END)
			break;
		size_t k = skip_blanks(s, n, i);
		if (op == FP_SEMI && k < n && s[k] == ')')
			break; /* `$(cmd;)` */
	}
}

/* The substitutions in the words of the command from s[from], in source
   order, each after the command idx (walk.c: push_substs); the words are
   lexed again (only a command that holds one pays for it). */
static void emit_substs(const fp_state *st, size_t from, size_t idx)
{
	const char *s = st->t->src;
	size_t n = st->t->len, i = skip_blanks(s, n, from);
	while (i < n && word_start((unsigned char)s[i]) &&
	       !(i > from && redirect_start(s, n, i))) {
		fp_word w;
		lex_word(s, n, &i, &w, st->level, NULL);
		for (size_t k = 0; k < w.nsub; k++)
			emit_subst(st, w.sub_start[k], idx);
		i = skip_blanks(s, n, i);
	}
}

/* The redirects accepts_redirects() read, from s[*i], into raw as
   walk.c's file_redirect builds them: op, descriptor, the target as
   written (plain bytes), a file written (`>`, `>>`, `&>` to anything but
   /dev/null) or read (`<`: stdin, the last one winning); *end past the
   last. */
static void emit_redirects(lp_arena *a, const char *s, size_t n, size_t *i,
                           lp_raw_command *raw, size_t *end)
{
	locus_shell_redirect *v = NULL;
	size_t k = 0;
	while (*i < n && redirect_start(s, n, *i)) {
		fp_redir fr;
		size_t e = redirect_end(s, n, *i, &fr);
		if (!e)
			break; /* not reached: the line was accepted */
		if (!v) {
			v = lp_arena_alloc_raw(a, FP_MAX_REDIRS * sizeof *v);
			if (!v)
				return;
		}
		locus_shell_redirect *rd = &v[k++];
		rd->op = fr.op;
		rd->fd = fr.fd;
		rd->target =
		    lp_arena_strndup(a, s + fr.target, fr.end - fr.target);
		if (!rd->target)
			rd->target = "";
		rd->target_flags = 0;
		if (fr.op[0] == '<') {
			raw->flags |= LOCUS_CMD_READS_FILE;
			raw->stdin_kind = LP_STDIN_FILE;
			raw->stdin_text = rd->target;
			raw->stdin_flags = 0;
		} else if (fr.op[1] != '&' && strcmp(rd->target, "/dev/null")) {
			raw->flags |= LOCUS_CMD_WRITES_FILES;
		}
		*end = e;
		*i = skip_blanks(s, n, e);
		if (k == FP_MAX_REDIRS)
			break;
	}
	raw->nredirects = k;
	raw->redirects = v;
}

/* One command from s[*i]; returns the operator after it. */
static int emit_one(fp_state *st, size_t *i)
{
	lp_tree *t = st->t;
	lp_ctx *ctx = t->ctx;
	const char *s = t->src;
	size_t n = t->len;
	lp_wordvec words = {0}, assigns = {0};
	size_t start = 0, end = 0;
	*i = skip_blanks(s, n, *i);
	size_t from = *i;
	bool substs = false;
	while (*i < n && word_start((unsigned char)s[*i]) &&
	       !(words.n > 0 && redirect_start(s, n, *i))) {
		fp_word w;
		lex_word(s, n, i, &w, st->level, NULL);
		substs |= w.nsub > 0;
		if (words.n == 0 && assigns.n == 0)
			start = w.start;
		end = w.end;
		/* NAME=value: its argv form is the word's (the value's
		   quotes removed), its flags the value's */
		bool assign = words.n == 0 && assignment_len(s, &w) > 0;
		lp_word lw = {
		    word_value(ctx->arena, s, &w),
		    lp_arena_strndup(ctx->arena, s + w.start, w.end - w.start),
		    (w.quoted || w.escaped ? LOCUS_WORD_QUOTED : 0) |
		        (w.glob ? LOCUS_WORD_GLOB : 0) |
		        (w.expansion ? LOCUS_WORD_EXPANSION | LOCUS_WORD_DYNAMIC
		                     : 0) |
		        (w.nsub ? LOCUS_WORD_SUBST | LOCUS_WORD_DYNAMIC : 0)};
		if (!lw.value || !lw.text)
			lw.value = lw.text = "";
		lp_wordvec_push(ctx->arena, assign ? &assigns : &words, lw);
		*i = skip_blanks(s, n, *i);
	}
	lp_raw_command raw;
	memset(&raw, 0, sizeof raw);
	if (words.n > 0)
		emit_redirects(ctx->arena, s, n, i, &raw, &end);
	int op = lex_op(s, n, i);

	/* A pipeline's number is taken when it starts, a lone command's in
	   finish(): both before the first command is emitted. */
	if (!st->piped)
		st->pipeline = op == FP_PIPE ? ctx->next_pipeline++ : SIZE_MAX;
	raw.nwords = words.n;
	raw.words = words.v;
	raw.nassigns = assigns.n;
	raw.assigns = assigns.v;
	if (words.n == 0)
		raw.flags |= LOCUS_CMD_ASSIGN_ONLY;
	raw.connector = st->connector;
	raw.pipeline =
	    st->pipeline == SIZE_MAX ? ctx->next_pipeline++ : st->pipeline;
	raw.origin = st->origin;
	raw.parent = st->parent;
	raw.depth = st->depth;
	if (t->top) {
		raw.start = start;
		raw.end = end;
	} else {
		raw.start = t->range_start;
		raw.end = t->range_end;
	}
	raw.stdin_producer = NONE;
	if (st->piped) {
		/* as walk.c's finish(): an own `<` beats the pipe */
		raw.flags |= LOCUS_CMD_PIPED_IN;
		if (raw.stdin_kind == LP_STDIN_NONE) {
			raw.stdin_kind = LP_STDIN_PIPE;
			raw.stdin_producer = st->producer;
		}
	}
	lp_checks_command(t, &raw);
	size_t idx = lp_emit(ctx, &raw);
	if (substs)
		emit_substs(st, from, idx);

	st->piped = op == FP_PIPE;
	st->producer = st->piped ? idx : NONE;
	st->connector = op > FP_END ? fp_conn[op] : "";
	return op;
}

bool lp_fastpath_walk(lp_tree *t, const char *origin, size_t parent,
                      unsigned depth)
{
	lp_ctx *ctx = t->ctx;
	if ((ctx->opts.flags & LOCUS_SHELL_NO_FASTPATH) ||
	    !lp_fastpath_accepts(t->src, t->len))
		return false;
	/* As the walk does: no constants for this script's words. */
	lp_vars *saved = ctx->vars;
	ctx->vars = NULL;
	fp_state st = {t, origin, parent, depth, "", false, NONE, SIZE_MAX, 0};
	size_t i = 0;
	for (;;) {
		if (lp_out_of_time(ctx))
			break;
		int op = emit_one(&st, &i);
		if (op == FP_END || skip_blanks(t->src, t->len, i) >= t->len)
			break;
	}
	ctx->vars = saved;
	return true;
}

bool lp_fastpath_env_off(void)
{
	const char *e = getenv("LOCUS_FASTPATH");
	return e && (!strcmp(e, "0") || !strcmp(e, "off"));
}
