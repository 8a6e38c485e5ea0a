/*
 * parser/checks.c - fail-closed checks (research tree-sitter-bash.md 2.4).
 *
 * tree-sitter-bash has valid lines it silently misreads: a command bash
 * runs shows up as an argument, a redirect target or heredoc text, with no
 * ERROR node.  Each check below spots one such shape from the tree or the
 * bytes and marks the line unparsed with the reason.  They err on the side
 * of firing: a false "unparsed" costs a question to a human, a missed one
 * costs a hidden command.
 *
 * One cursor walk over the tree; an explicit per-depth array remembers the
 * previous sibling so that the bytes *between* siblings (the gaps, where
 * tree-sitter put whitespace, line continuations and control characters it
 * skipped) can be checked.
 */
#include <stdlib.h>
#include <string.h>

#include "walk.h"
#include "../knowledge/programs.h"

/* Reserved words (and `{ }`) that bash never runs as a command name when
   unquoted; tree-sitter lets some through (research S2, S3, `fi;`).
   `time` and `coproc` are not here: before a simple command they are
   wrappers; before a compound command see lp_checks_command.  Sorted
   (strcmp order) for a binary search: tests/test_parser.c looks every
   word up. */
static const char *const reserved[] = {
	"!", "[[", "]]", "case", "do", "done", "elif", "else", "esac", "fi",
	"for", "function", "if", "in", "select", "then", "until", "while",
	"{", "}",
};

static int cmp_word(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

/* Builtins that rebind what a command name runs for the rest of the line:
   `hash -p /bin/rm ls` makes `ls` run rm; `enable -f x.so NAME` loads a
   builtin; an alias definition is expanded on later lines when
   expand_aliases is on.  The line then runs what it does not name
   (found by the oracle).  `opt` is a short option letter that must be
   given, or 0 when any NAME=VALUE argument does it. */
static const struct rebinder {
	const char *name;
	char opt;
} rebinders[] = {
	{"hash", 'p'},
	{"enable", 'f'},
	{"alias", 0},
	{"declare", 'n'}, /* a nameref: assignments go elsewhere */
	{"typeset", 'n'},
	{"local", 'n'},
	{"compgen", 'C'}, /* runs its -C text as a command */
	{"compgen", 'F'}, /* calls a function */
	{"complete", 'C'}, /* registers a command run on completion */
	{"mapfile", 'C'}, /* evaluates its -C callback every -c lines */
	{"readarray", 'C'},
	{"bind", 'x'},    /* binds a key to a shell command */
	{NULL, 0},
};

static bool rebinds(const lp_raw_command *raw, const char *name)
{
	for (const struct rebinder *r = rebinders; r->name; r++) {
		if (strcmp(r->name, name))
			continue;
		for (size_t i = 1; i < raw->nwords; i++) {
			const char *v = raw->words[i].value;
			if (!v)
				continue;
			if (r->opt && v[0] == '-' && v[1] != '-' &&
			    strchr(v + 1, r->opt))
				return true;
			if (!r->opt && strchr(v, '='))
				return true;
		}
	}
	return false;
}

/*
 * History expansion and `fc`: with `set -o history` (and -H /
 * histexpand), bash -c expands `!!`, `!str` on the lines it reads next and
 * `fc -s` / `fc -e PROG` re-run earlier commands (fc -e runs PROG as the
 * editor, then the edited text; checked in a sandbox).  A line that turns
 * history on, or runs fc other than to list, does what its text does not
 * show.  Shells started with -H, -o history or -i (interactive: history
 * expansion on its input, and its startup files) are caught the same way.
 */
static bool history_on(const lp_raw_command *raw, const char *name)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	bool is_set = !strcmp(base, "set") || lk_is(base, LK_SHELL);
	if (!strcmp(base, "fc")) {
		for (size_t i = 1; i < raw->nwords; i++) {
			const char *v = raw->words[i].value;
			if (v && v[0] == '-' && strchr(v, 'l') && !strchr(v, 'e') &&
			    !strchr(v, 's'))
				return false; /* fc -l lists */
		}
		return true;
	}
	if (!is_set)
		return false;
	for (size_t i = 1; i < raw->nwords; i++) {
		const char *v = raw->words[i].value;
		if (!v || (v[0] != '-' && v[0] != '+'))
			break;
		if (v[0] == '-' && v[1] != '-' && strchr(v + 1, 'H'))
			return true;
		/* an interactive shell expands history on what it reads and
		   runs its startup files */
		if (strcmp(base, "set") && v[0] == '-' && v[1] != '-' &&
		    strchr(v + 1, 'i'))
			return true;
		if (strchr(v + 1, 'o') && i + 1 < raw->nwords) {
			const char *o = raw->words[i + 1].value;
			if (v[0] == '-' && o &&
			    (!strcmp(o, "history") || !strcmp(o, "histexpand")))
				return true;
		}
	}
	return false;
}

bool lp_is_reserved_word(const char *s)
{
	return bsearch(s, reserved, sizeof reserved / sizeof *reserved,
	               sizeof *reserved, cmp_word) != NULL;
}

/* Commands that evaluate an argument (or what they read) as a variable
   name or an arithmetic expression, where a subscript is expanded
   again: `test -v 'a[$(rm y)]'`, `printf -v`, `declare`, `unset`, `let`,
   `read` into a name, `[[ x -eq y ]]`.  env and export pass values on to
   a shell that may do the same. */
static const char *const subscript_evaluators[] = {
	"test", "[", "[[", "printf", "declare", "typeset", "local", "export",
	"readonly", "unset", "let", "read", "mapfile", "readarray", "getopts",
	"wait", "env", "shift", "return", "exit", "ulimit", NULL,
};

/* NAME[ ... $( or a backtick: once the value reaches arithmetic (`$((x))`,
   `${!x}`, `[[ $x -eq 1 ]]`, `declare -i`) bash expands the subscript,
   command substitution included. */
static bool subscript_code(const char *s)
{
	if (!s)
		return false;
	for (size_t i = 1; s[i]; i++) {
		char c = s[i - 1];
		if (s[i] != '[' ||
		    !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			continue;
		return strchr(s + i, '`') || strstr(s + i, "$(");
	}
	return false;
}

static void check_subscripts(lp_ctx *ctx, const lp_raw_command *raw)
{
	for (size_t i = 0; i < raw->nassigns; i++) {
		if (subscript_code(raw->assigns[i].value)) {
			lp_unparsed(ctx, "subscript could run code: %s",
			            raw->assigns[i].value);
			return;
		}
	}
	if (raw->nwords == 0 || !raw->words[0].value)
		return;
	const char *name = raw->words[0].value;
	bool eval = false;
	for (size_t k = 0; subscript_evaluators[k] && !eval; k++)
		eval = !strcmp(name, subscript_evaluators[k]);
	if (!eval)
		return;
	for (size_t i = 1; i < raw->nwords; i++) {
		if (subscript_code(raw->words[i].value)) {
			lp_unparsed(ctx, "subscript could run code: %s",
			            raw->words[i].value);
			return;
		}
	}
	if ((raw->stdin_kind == LP_STDIN_HERESTRING ||
	     raw->stdin_kind == LP_STDIN_HEREDOC) &&
	    subscript_code(raw->stdin_text))
		lp_unparsed(ctx, "subscript could run code in %s's input",
		            name);
}

void lp_checks_command(lp_tree *t, const lp_raw_command *raw)
{
	lp_ctx *ctx = t->ctx;
	check_subscripts(ctx, raw);
	if (raw->nwords == 0)
		return;
	const lp_word *w0 = &raw->words[0];
	const char *name = w0->value ? w0->value : "";
	if (w0->flags & LOCUS_WORD_DYNAMIC) {
		lp_unparsed(ctx, "command name is dynamic: %s",
		            w0->text ? w0->text : name);
		return;
	}
	const char *slash = strrchr(name, '/');
	if ((slash ? slash[1] : name[0]) == '\0') {
		/* `"" rm -rf x`, `dir/ x`: the name (its basename) is empty
		   and bash runs nothing; a line we cannot read as bash does
		   is not understood (fuzz_shell). */
		lp_unparsed(ctx, "command name is empty");
		return;
	}
	if (history_on(raw, name)) {
		lp_unparsed(ctx, "'%s' turns on history or re-runs history: "
		                 "later text is expanded or re-executed",
		            name);
		return;
	}
	if (rebinds(raw, name)) {
		lp_unparsed(ctx, "'%s' rebinds a command name or runs command "
		                 "text", name);
		return;
	}
	if (lp_is_reserved_word(name) && !t->test_keyword) {
		lp_unparsed(ctx, "reserved word '%s' used as a command name "
		                 "(misparse)", name);
		return;
	}
	if (w0->flags & (LOCUS_WORD_GLOB | LOCUS_WORD_BRACE)) {
		lp_unparsed(ctx, "command name is a glob or brace pattern: %s",
		            w0->text ? w0->text : name);
		return;
	}
	if (name[0] == '{') {
		lp_unparsed(ctx, "command name starts with '{' (brace "
		                 "expansion): %s", name);
		return;
	}
	if (!strcmp(name, "time") || !strcmp(name, "coproc")) {
		/* The grammar has no rule for `time { ..; }`, `coproc NAME
		   { ..; }`, `time ( .. )`: it reads them as words. */
		for (size_t i = 1; i < raw->nwords; i++) {
			const char *v = raw->words[i].value;
			if (!v)
				continue;
			if (lp_is_reserved_word(v) || v[0] == '(' ||
			    !strcmp(v, "((")) {
				lp_unparsed(ctx, "%s before a compound command "
				                 "(misparse)", name);
				return;
			}
		}
	}
}

typedef struct cframe {
	TSSymbol kind;
	uint32_t start, end;
	bool in_test;
	bool in_arith; /* inside $(( )), $[ ], (( )), for (( )) or a
	                  subscript, not inside a substitution */
	bool has_prev;
	uint32_t prev_end;
	char prev_last; /* last byte of the previous sibling */
	TSSymbol prev_kind;
} cframe;

typedef struct cstate {
	lp_tree *t;
	const char *delim; /* current heredoc's delimiter, unquoted */
	size_t delim_len;
	bool dash;         /* <<- */
	bool have_row;
	uint32_t last_row;
} cstate;

static bool quoted_kind(const lp_syms *sy, TSSymbol k)
{
	return k == sy->string || k == sy->raw_string ||
	       k == sy->ansi_c_string || k == sy->translated_string ||
	       k == sy->heredoc_body || k == sy->heredoc_content ||
	       k == sy->comment || k == sy->string_content;
}

static void check_gap(cstate *cs, const cframe *p, uint32_t s, uint32_t e,
                      char next_first, TSSymbol next_kind)
{
	lp_tree *t = cs->t;
	const lp_syms *sy = t->sy;
	if (e > t->len)
		e = (uint32_t)t->len;
	if (s >= e || quoted_kind(sy, p->kind))
		return;
	const char *g = t->src + s;
	size_t n = e - s;
	for (size_t i = 0; i < n; i++) {
		char c = g[i];
		if (c == '\r' || c == '\v' || c == '\f') {
			lp_unparsed(t->ctx, "control character outside quotes "
			                    "at byte %zu", (size_t)s + i);
			return;
		}
		if (c == '\n' && (i == 0 || g[i - 1] != '\\') &&
		    (p->kind == sy->command || p->kind == sy->file_redirect)) {
			lp_unparsed(t->ctx, "newline inside a command at byte "
			                    "%zu (misparse)", (size_t)s + i);
			return;
		}
	}
	/* Research S1: `r\<newline>m` is one word to bash, two to
	   tree-sitter.  A gap made only of line continuations between two
	   non-blank, non-operator bytes joins words. */
	if (!p->has_prev || p->kind == sy->concatenation || n < 2 || n % 2)
		return;
	for (size_t i = 0; i < n; i += 2)
		if (g[i] != '\\' || g[i + 1] != '\n')
			return;
	/* Words of one command joined by continuations are joined by the
	   walk (emit_command), as bash does; only redirects and
	   assignments next to the join are left to fail closed. */
	if (p->kind == sy->command && p->prev_kind != sy->file_redirect &&
	    p->prev_kind != sy->herestring_redirect &&
	    p->prev_kind != sy->variable_assignment &&
	    next_kind != sy->file_redirect &&
	    next_kind != sy->herestring_redirect &&
	    next_kind != sy->variable_assignment)
		return;
	static const char sep[] = " \t\n;&|()";
	if (!p->prev_last || strchr(sep, p->prev_last) || !next_first ||
	    strchr(sep, next_first))
		return;
	lp_unparsed(t->ctx, "line continuation inside a word at byte %u", s);
}

/* Heredoc delimiter as written: NAME, 'NAME', "NAME" or \NAME, with NAME
   in [A-Za-z0-9_.-]+.  Anything else the scanner may read differently
   from bash (research S4). */
static bool delim_shape(const char *s, size_t n, const char **d, size_t *dn)
{
	if (n >= 2 && (s[0] == '\'' || s[0] == '"') && s[n - 1] == s[0]) {
		s++;
		n -= 2;
	} else if (n >= 1 && s[0] == '\\') {
		s++;
		n--;
	}
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-'))
			return false;
	}
	*d = s;
	*dn = n;
	return true;
}

/* ${x@P}, ${a[@]@P}: the `@` operator followed by P. */
static bool prompt_expansion(lp_tree *t, TSNode n)
{
	uint32_t cc = ts_node_child_count(n);
	for (uint32_t i = 0; i + 1 < cc; i++) {
		TSNode a = ts_node_child(n, i), b = ts_node_child(n, i + 1);
		uint32_t as = ts_node_start_byte(a), bs = ts_node_start_byte(b);
		if (ts_node_is_named(a) || ts_node_is_named(b) ||
		    ts_node_end_byte(a) != as + 1 || bs >= t->len ||
		    ts_node_end_byte(b) != bs + 1)
			continue;
		if (t->src[as] == '@' && t->src[bs] == 'P')
			return true;
	}
	return false;
}

/* Nodes whose text bash evaluates as arithmetic: $(( )), $[ ], (( )),
   for (( )), and the index of a subscript. */
static bool arith_context(lp_tree *t, TSNode n)
{
	const lp_syms *sy = t->sy;
	TSSymbol k = ts_node_symbol(n);
	if (k == sy->arithmetic_expansion || k == sy->c_style_for_statement ||
	    k == sy->subscript)
		return true;
	if (k == sy->compound_statement) {
		uint32_t s = ts_node_start_byte(n);
		return s + 1 < t->len && t->src[s] == '(' && t->src[s + 1] == '(';
	}
	return false;
}

static bool has_code_text(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '`' || (s[i] == '$' && i + 1 < n && s[i + 1] == '('))
			return true;
	return false;
}

/* Research (oracle): inside arithmetic single quotes do not quote, and
   text that reads `$(`/a backtick after the first expansion is expanded
   again when it lands in a subscript.  A literal node holding such text
   (single quotes, $'..' once decoded, an escaped \$( or \`) is code we
   cannot see.  Real substitutions are command_substitution nodes and are
   walked as usual. */
static bool arith_literal_code(lp_tree *t, TSNode n)
{
	const lp_syms *sy = t->sy;
	TSSymbol k = ts_node_symbol(n);
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	if (e > t->len || s >= e)
		return false;
	const char *txt = t->src + s;
	size_t len = e - s;
	if (k == sy->raw_string)
		return has_code_text(txt, len);
	if (k == sy->ansi_c_string) {
		lp_buf out = {0};
		if (len < 3 ||
		    !lp_ansi_c_decode(t->ctx->arena, &out, txt + 2, len - 3))
			return true;
		return out.data && has_code_text(out.data, out.len);
	}
	if (k == sy->command_substitution || k == sy->process_substitution ||
	    ts_node_child_count(n) > 0)
		return false; /* children are visited on their own */
	for (size_t i = 0; i + 1 < len; i++)
		if (txt[i] == '\\' && (txt[i + 1] == '`' ||
		                        (txt[i + 1] == '$' && i + 2 < len &&
		                         txt[i + 2] == '(')))
			return true;
	return false;
}

static void visit(cstate *cs, TSNode n, const cframe *p, bool in_test)
{
	lp_tree *t = cs->t;
	lp_ctx *ctx = t->ctx;
	const lp_syms *sy = t->sy;
	TSSymbol k = ts_node_symbol(n);
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	if (e > t->len)
		e = (uint32_t)t->len;
	if (s > e)
		s = e;
	(void)p;
	if (!ts_node_is_named(n)) {
		if (t->src[s] == '<' && (e - s == 2 || e - s == 3) &&
		    t->src[s + 1] == '<' && (e - s == 2 || t->src[s + 2] == '-'))
			cs->dash = e - s == 3;
		return;
	}
	if (in_test && (k == sy->command || k == sy->redirected_statement)) {
		lp_unparsed(ctx, "a command inside a test expression at byte "
		                 "%u (misparse)", s);
		return;
	}
	if (k == sy->expansion && prompt_expansion(t, n)) {
		lp_unparsed(ctx, "${..@P} at byte %u expands a prompt (runs "
		                 "command substitutions in the value)", s);
		return;
	}
	if (((p && p->in_arith) || arith_context(t, n)) &&
	    arith_literal_code(t, n)) {
		lp_unparsed(ctx, "quoted command text inside arithmetic at "
		                 "byte %u (bash expands it)", s);
		return;
	}
	if (k == sy->word) {
		/* An unquoted word never holds a raw newline in bash (only
		   `\<newline>`, which is removed).  The scanner makes one of
		   a heredoc body line starting with a backslash:
		   `sh <<'E'` / `\rm -rf /` / `E` (fuzz_bypass). */
		for (uint32_t i = s; i < e; i++)
			if (t->src[i] == '\n' && (i == s || t->src[i - 1] != '\\')) {
				lp_unparsed(ctx, "newline inside a word at byte "
				                 "%u (misparse)", i);
				return;
			}
	}
	if (k == sy->heredoc_start) {
		TSPoint pt = ts_node_start_point(n);
		if (cs->have_row && pt.row == cs->last_row) {
			lp_unparsed(ctx, "more than one heredoc on one line");
			return;
		}
		cs->have_row = true;
		cs->last_row = pt.row;
		if (!delim_shape(t->src + s, e - s, &cs->delim,
		                 &cs->delim_len)) {
			lp_unparsed(ctx, "unusual heredoc delimiter at byte %u",
			            s);
			cs->delim = NULL;
		}
		return;
	}
	if (k == sy->heredoc_end) {
		if (!cs->delim || cs->delim_len != e - s ||
		    memcmp(cs->delim, t->src + s, e - s) != 0) {
			lp_unparsed(ctx, "heredoc end at byte %u does not match "
			                 "its delimiter", s);
			return;
		}
		if (e < t->len && t->src[e] != '\n') {
			lp_unparsed(ctx, "text after a heredoc delimiter at "
			                 "byte %u", e);
			return;
		}
		/* bash wants the delimiter alone on its line; <<- strips
		   tabs only (the scanner also strips spaces). */
		uint32_t b = s;
		while (b > 0 && t->src[b - 1] != '\n') {
			if (!cs->dash || t->src[b - 1] != '\t') {
				lp_unparsed(ctx, "heredoc delimiter at byte %u "
				                 "is not alone on its line", s);
				return;
			}
			b--;
		}
		return;
	}
	if (k == sy->command_substitution && t->src[s] == '`') {
		const char *txt = t->src + s;
		size_t len = e - s;
		if (memchr(txt, '\n', len)) {
			lp_unparsed(ctx, "backtick substitution spanning lines "
			                 "at byte %u", s);
			return;
		}
		for (size_t i = 0; i + 1 < len; i++) {
			if (txt[i] == '\\' && txt[i + 1] == '`') {
				lp_unparsed(ctx, "escaped backticks inside a "
				                 "backtick substitution at byte "
				                 "%u", s);
				return;
			}
		}
	}
}

static uint32_t first_error_byte(TSNode root)
{
	TSTreeCursor c = ts_tree_cursor_new(root);
	uint32_t at = ts_node_start_byte(root);
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&c);
		if (ts_node_is_error(n) || ts_node_is_missing(n)) {
			at = ts_node_start_byte(n);
			break;
		}
		/* Only descend where the error is. */
		if (ts_node_has_error(n) && ts_tree_cursor_goto_first_child(&c))
			continue;
		bool done = false;
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) {
				done = true;
				break;
			}
		}
		if (done)
			break;
	}
	ts_tree_cursor_delete(&c);
	return at;
}

/*
 * Backslash-newline is removed by bash before tokens are formed, also
 * inside double quotes and unquoted heredoc bodies, where the grammar
 * keeps it: `"$\<newline>(cmd)"` runs cmd, `"$\<newline>X"` expands X
 * (checked in a sandbox).  A `$` followed by line continuations and then
 * anything that can follow `$` in an expansion is a join the grammar does
 * not see: fail closed.  (Between other characters the join is done by
 * the walk for words, and is harmless inside quotes: "a\<newline>b".)
 */
static void check_dollar_continuation(lp_tree *t)
{
	const char *s = t->src;
	size_t n = t->len;
	for (size_t i = 0; i + 2 < n; i++) {
		if (s[i] == '\\') {
			i++; /* an escaped byte, `\$` included */
			continue;
		}
		if (s[i] != '$' || s[i + 1] != '\\' || s[i + 2] != '\n')
			continue;
		size_t j = i + 1;
		while (j + 1 < n && s[j] == '\\' && s[j + 1] == '\n')
			j += 2;
		if (j < n && !strchr(" \t\n\"'", s[j])) {
			lp_unparsed(t->ctx, "a line continuation after $ at byte "
			                    "%zu joins an expansion the grammar "
			                    "does not see", i);
			return;
		}
	}
}

void lp_checks_tree(lp_tree *t, TSNode root)
{
	lp_ctx *ctx = t->ctx;
	const lp_syms *sy = t->sy;
	check_dollar_continuation(t);
	if (ts_node_has_error(root))
		lp_unparsed(ctx, "the parser found a syntax error at byte %u%s",
		            first_error_byte(root),
		            t->top ? "" : " of a nested script");

	cstate cs;
	memset(&cs, 0, sizeof cs);
	cs.t = t;
	/* Bytes outside the root (leading/trailing blanks) */
	{
		cframe outer = {0};
		outer.kind = sy->program;
		check_gap(&cs, &outer, 0, ts_node_start_byte(root), 0, 0);
		check_gap(&cs, &outer, ts_node_end_byte(root), (uint32_t)t->len,
		          0, 0);
	}

	size_t cap = 64, depth = 0;
	cframe *st = malloc(cap * sizeof *st);
	if (!st) {
		lp_unparsed(ctx, "out of memory");
		return;
	}
	TSTreeCursor c = ts_tree_cursor_new(root);
	for (;;) {
		if (lp_out_of_time(ctx))
			break;
		TSNode n = ts_tree_cursor_current_node(&c);
		TSSymbol k = ts_node_symbol(n);
		uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
		if (e > t->len)
			e = (uint32_t)t->len;
		if (s > e)
			s = e;
		bool in_test = depth > 0 && st[depth - 1].in_test;
		if (depth > 0) {
			cframe *p = &st[depth - 1];
			uint32_t gs = p->has_prev ? p->prev_end : p->start;
			check_gap(&cs, p, gs, s, s < t->len ? t->src[s] : 0, k);
			p->has_prev = true;
			p->prev_kind = k;
			p->prev_end = e;
			p->prev_last = e > s ? t->src[e - 1] : 0;
		}
		visit(&cs, n, depth > 0 ? &st[depth - 1] : NULL, in_test);
		st[depth] = (cframe){.kind = k,
		                     .start = s,
		                     .end = e,
		                     /* substitutions inside [[ ]] are
		                        ordinary commands */
		                     .in_test = ts_node_is_named(n) &&
		                                (k == sy->test_command ||
		                                 (in_test &&
		                                  k != sy->command_substitution &&
		                                  k != sy->process_substitution)),
		                     /* a substitution inside arithmetic is
		                        a script of its own */
		                     .in_arith = k != sy->command_substitution &&
		                                 k != sy->process_substitution &&
		                                 ((depth > 0 &&
		                                   st[depth - 1].in_arith) ||
		                                  arith_context(t, n))};
		if (ts_tree_cursor_goto_first_child(&c)) {
			if (depth + 2 > cap) {
				cframe *ns = realloc(st, cap * 2 * sizeof *st);
				if (!ns) {
					lp_unparsed(ctx, "out of memory");
					break;
				}
				st = ns;
				cap *= 2;
			}
			depth++;
			continue;
		}
		bool done = false;
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (depth == 0 || !ts_tree_cursor_goto_parent(&c)) {
				done = true;
				break;
			}
			depth--;
			/* trailing gap inside the node we leave */
			cframe *f = &st[depth];
			if (f->has_prev)
				check_gap(&cs, f, f->prev_end, f->end, 0, 0);
		}
		if (done)
			break;
	}
	ts_tree_cursor_delete(&c);
	free(st);
}

/* ---- text that bash evaluates again (found by the oracle) ---------------

   Bash runs command substitutions found in *data* in a few places: an
   arithmetic context reads a variable's value as an expression, and an
   array subscript in it runs `$(..)` (`x='a[$(rm y)]'; echo $((x))`,
   `let`, `[[ $x -eq 1 ]]`, `declare -i`, `test -v`, `printf -v`, `read`
   into a name); `${x@P}` and PS4 under `set -x` expand prompts; `compgen
   -C` runs a command; `declare -a a='(..)'` re-parses.  When the line holds
   literal command text (`$(` or a backtick inside single quotes or
   escaped) and one of these evaluators, it is not understood. */
static const char *const reeval_cmds[] = {
	"let", "declare", "typeset", "local", "readonly", "export", "printf",
	"read", "mapfile", "readarray", "test", "[", "compgen", "complete",
	"set", "unset", NULL,
};
static const char *const reeval_text[] = {
	"((", "$[", "[[", "@P", "PS0=", "PS1=", "PS2=", "PS4=",
	"PROMPT_COMMAND=", "${", NULL, /* ${a[..]}: a subscript */
};

/* `$'\x24('`: ANSI-C text that decodes to `$(` or a backtick. */
static const char *const ansi_code[] = {
	"\\x24(", "\\044(", "\\u0024(", "\\U00000024(", "\\x60", "\\140",
	"\\u0060", NULL,
};

static bool literal_code_text(const char *s, size_t n)
{
	bool sq = false, dq = false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!sq && !dq && c == '$' && i + 1 < n && s[i + 1] == '\'') {
			/* $'...': scan to its end (\' does not close it) */
			size_t j = i + 2;
			while (j < n && s[j] != '\'') {
				for (size_t k = 0; ansi_code[k]; k++)
					if (!strncmp(s + j, ansi_code[k],
					             strlen(ansi_code[k])))
						return true;
				if (s[j] == '`' || (s[j] == '$' && j + 1 < n &&
				                    s[j + 1] == '('))
					return true;
				j += s[j] == '\\' ? 2 : 1;
			}
			i = j;
			continue;
		}
		if (sq) {
			if (c == '\'' )
				sq = false;
			else if (c == '`' || (c == '$' && i + 1 < n &&
			                      s[i + 1] == '('))
				return true;
			continue;
		}
		if (c == '\\' && i + 1 < n) {
			if (s[i + 1] == '`' || (s[i + 1] == '$' && i + 2 < n &&
			                        s[i + 2] == '('))
				return true;
			i++;
			continue;
		}
		/* "$(( '$(rm y)' ))": single quotes are literal inside
		   double quotes, and the substitution runs */
		if (dq && c == '\'' && i + 2 < n && s[i + 1] == '$' &&
		    s[i + 2] == '(')
			return true;
		if (c == '"')
			dq = !dq;
		else if (c == '\'' && !dq)
			sq = true;
	}
	return false;
}

/* Bash's own tables of command names: writing them (by assignment,
   printf -v, declare, read...) rebinds names like `hash -p`. */
static const char *const name_tables[] = {
	"BASH_CMDS", "BASH_ALIASES", NULL,
};

void lp_checks_reeval(lp_ctx *ctx)
{
	const locus_shell_result *r = ctx->result;
	size_t len = 0;
	const char *src = locus_shell_result_source(r, &len);
	if (!locus_shell_result_parsed(r))
		return;
	for (size_t i = 0; name_tables[i]; i++)
		if (strstr(src, name_tables[i])) {
			lp_unparsed(ctx, "the line touches %s (rebinds command "
			                 "names)", name_tables[i]);
			return;
		}
	if (!literal_code_text(src, len))
		return;
	bool trigger = false;
	for (size_t i = 0; reeval_text[i] && !trigger; i++)
		trigger = strstr(src, reeval_text[i]) != NULL;
	size_t n = locus_shell_result_count(r);
	for (size_t i = 0; i < n && !trigger; i++) {
		if (lp_out_of_time(ctx))
			return;
		const locus_shell_command *c = locus_shell_result_command(r, i);
		for (size_t k = 0; reeval_cmds[k] && !trigger; k++)
			trigger = !strcmp(c->name, reeval_cmds[k]);
		/* printf evaluates only what -v names */
		if (trigger && !strcmp(c->name, "printf")) {
			trigger = false;
			for (size_t k = 1; k < c->argc && !trigger; k++)
				trigger = !strncmp(c->argv[k], "-v", 2);
		}
	}
	if (trigger)
		lp_unparsed(ctx, "literal command text on a line that "
		                 "evaluates data (arithmetic, declare, prompt "
		                 "expansion)");
}

/* `source /dev/stdin <<< 'rm y'`, `. <(echo rm y)`: source runs text the
   line feeds it, which we do not parse (found by the oracle). */
static const char *const fed_paths[] = {
	"/dev/stdin", "/dev/fd/", "/proc/self/fd/", "-", NULL,
};

/* What the children of each command are (one pass; children come after
   their parent), so that no check scans the line once per command. */
enum { CHILD_DOWNLOADER = 1, CHILD_STDIN_SCRIPT = 2 };

static unsigned char *child_facts(lp_ctx *ctx)
{
	const locus_shell_result *r = ctx->result;
	size_t n = locus_shell_result_count(r);
	unsigned char *f = lp_arena_alloc(ctx->arena, n ? n : 1);
	for (size_t j = 0; f && j < n; j++) {
		const locus_shell_command *d = locus_shell_result_command(r, j);
		if (d->parent >= j)
			continue;
		if (lk_is(d->name, LK_DOWNLOADER))
			f[d->parent] |= CHILD_DOWNLOADER;
		if (!strcmp(d->origin, LOCUS_ORIGIN_STDIN_SCRIPT))
			f[d->parent] |= CHILD_STDIN_SCRIPT;
	}
	return f;
}

void lp_checks_source(lp_ctx *ctx)
{
	const locus_shell_result *r = ctx->result;
	size_t n = locus_shell_result_count(r);
	unsigned char *kids = NULL;
	for (size_t i = 0; i < n; i++) {
		if (lp_out_of_time(ctx))
			return;
		const locus_shell_command *c = locus_shell_result_command(r, i);
		if (c->argc < 2 || (strcmp(c->name, "source") &&
		                    strcmp(c->name, ".")))
			continue;
		const char *f = c->argv[1];
		bool fed = (c->argv_flags[1] & LOCUS_WORD_SUBST) != 0;
		for (size_t k = 0; fed_paths[k] && !fed; k++)
			fed = !strncmp(f, fed_paths[k], strlen(fed_paths[k])) &&
			      (fed_paths[k][strlen(fed_paths[k]) - 1] == '/' ||
			       !strcmp(f, fed_paths[k]));
		/* a download sourced is remote code, labelled as such
		   (spec: `source <(curl ...)`); leave it parsed */
		if (fed && !kids && !(kids = child_facts(ctx)))
			return;
		if (fed && (kids[i] & CHILD_DOWNLOADER))
			fed = false;
		if (fed) {
			lp_unparsed(ctx, "'%s' runs text fed by the line",
			            c->name);
			return;
		}
	}
}

/* ---- environment that carries code (found by hand with the oracle) ------

   Programs run shell text taken from the environment: `GIT_PAGER='rm -rf
   x' git -p log` runs rm.  Those values are parsed as nested scripts
   (origin "environment"); names whose code we cannot see (a function
   imported by bash, a startup file, a preloaded library) make the line
   unparsed.  Assignments before a command, through env, and given to
   export/declare all count. */
static const char *const env_shell_text[] = {
	"GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL",
	"GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS",
	"SSH_ASKPASS", "GIT_SEQUENCE_EDITOR", "GIT_PROXY_COMMAND", "MANPAGER",
	"SYSTEMD_PAGER", "LESSOPEN", "LESSCLOSE", "PROMPT_COMMAND",
	/* issue 9: programs named by the environment of rsync, cvs, sudo,
	   fc, kubectl, systemctl edit, xdg-open and friends */
	"RSYNC_RSH", "RSYNC_CONNECT_PROG", "CVS_RSH", "SUDO_ASKPASS",
	"SUDO_EDITOR", "FCEDIT", "KUBE_EDITOR", "SYSTEMD_EDITOR", "BROWSER",
	"GIT_SSH_VARIANT", "SVN_EDITOR", "SVN_SSH", "HGEDITOR", "TAR_RSH",
	NULL,
};
static const char *const env_hidden_code[] = {
	"BASH_FUNC_", /* prefix: an exported function */
	"BASH_ENV", "ENV", "LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH",
	"SHELLOPTS", "BASHOPTS", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	"GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "PYTHONSTARTUP", "PERL5OPT",
	"NODE_OPTIONS", "RUBYOPT",
	/* prompts a child shell imports (PS4 is expanded for `-x`) */
	"PS0", "PS1", "PS2", "PS3", "PS4", NULL,
};
static const char *const declaring_cmds[] = {
	"export", "declare", "typeset", "readonly", "local", NULL,
};

static bool env_name_is(const char *a, size_t n, const char *name)
{
	size_t l = strlen(name);
	if (name[l - 1] == '_') /* prefix entry */
		return n >= l && !strncmp(a, name, l);
	return n == l && !strncmp(a, name, l);
}

static void env_assignment(lp_ctx *ctx, const char *a, size_t idx,
                           unsigned depth)
{
	const char *eq = strchr(a, '=');
	if (!eq)
		return;
	size_t n = (size_t)(eq - a);
	if (n > 0 && a[n - 1] == '+') /* NAME+=value */
		n--;
	for (size_t k = 0; env_hidden_code[k]; k++)
		if (env_name_is(a, n, env_hidden_code[k])) {
			lp_unparsed(ctx, "%.*s in the environment runs code "
			                 "the line does not show", (int)n, a);
			return;
		}
	for (size_t k = 0; env_shell_text[k]; k++)
		if (env_name_is(a, n, env_shell_text[k]) && eq[1]) {
			lp_parse_nested(ctx, eq + 1, strlen(eq + 1),
			                "environment", idx, depth + 1);
			return;
		}
}

void lp_checks_env(lp_ctx *ctx)
{
	const locus_shell_result *r = ctx->result;
	size_t n = locus_shell_result_count(r); /* nested ones come after */
	for (size_t i = 0; i < n; i++) {
		if (lp_out_of_time(ctx))
			return;
		const locus_shell_command *c = locus_shell_result_command(r, i);
		for (size_t k = 0; k < c->nassignments; k++)
			env_assignment(ctx, c->assignments[k], i, c->depth);
		bool decl = false;
		for (size_t k = 0; declaring_cmds[k] && !decl; k++)
			decl = !strcmp(c->name, declaring_cmds[k]);
		for (size_t k = 1; decl && k < c->argc; k++)
			env_assignment(ctx, c->argv[k], i, c->depth);
	}
}

/* ---- shells fed a script the walk did not parse (found by the oracle) ---

   `bash < <(echo rm -rf /)`, `sh 0<<<'rm -rf /'`: a shell with no -c and
   no script file reads its program from stdin.  When no command was
   parsed from that input (origin stdin-script), the line is not
   understood.  (A script file the line wrote is parsed in written.c.) */
static bool is_shell(const char *name)
{
	return lk_is(name, LK_SHELL);
}

void lp_checks_shell_input(lp_ctx *ctx)
{
	const locus_shell_result *r = ctx->result;
	if (!locus_shell_result_parsed(r))
		return;
	size_t n = locus_shell_result_count(r);
	unsigned char *kids = NULL;
	for (size_t i = 0; i < n; i++) {
		if (lp_out_of_time(ctx))
			return;
		const locus_shell_command *c = locus_shell_result_command(r, i);
		if (c->argc == 0 || !is_shell(c->name) ||
		    (c->flags & LOCUS_CMD_QUERY_ONLY))
			continue;
		const char *script = NULL;
		bool inline_c = false;
		for (size_t k = 1; k < c->argc; k++) {
			const char *a = c->argv[k];
			if (a[0] == '-' && a[1] != '-' && strchr(a + 1, 'c'))
				inline_c = true;
			if (a[0] == '-' && strchr(a, 's') && a[1] != '-')
				break; /* -s: the rest are positional */
			if (a[0] != '-' && a[0] != '+') {
				script = a;
				break;
			}
		}
		if (inline_c)
			continue;
		if (script)
			continue; /* a file: written.c */
		bool fed = (c->flags & (LOCUS_CMD_PIPED_IN |
		                        LOCUS_CMD_STDIN_SCRIPT)) != 0;
		for (size_t k = 0; k < c->nredirects && !fed; k++) {
			const char *op = c->redirects[k].op;
			int fd = c->redirects[k].fd;
			fed = (fd == -1 || fd == 0) && op[0] == '<' &&
			      strcmp(op, "<&") != 0;
		}
		if (!fed)
			continue;
		if (!kids && !(kids = child_facts(ctx)))
			return;
		bool seen = (kids[i] & CHILD_STDIN_SCRIPT) != 0;
		if (!seen && !(c->flags & LOCUS_CMD_PIPED_IN)) {
			lp_unparsed(ctx, "%s reads a script from its input that "
			                 "was not parsed", c->name);
			return;
		}
	}
}
