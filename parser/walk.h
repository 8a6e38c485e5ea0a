/*
 * parser/walk.h - what the walk side's files share (parse.c, cursor.c,
 * treepass.c, walk.c, word.c, checks.c, vars.c, arith.c).  Not seen by the see-through side, which only
 * uses internal.h.
 */
#ifndef LOCUS_PARSER_WALK_H
#define LOCUS_PARSER_WALK_H

#include <tree_sitter/api.h>

#include "internal.h"
#include "../util/array.h"

const TSLanguage *tree_sitter_bash(void);

/* Classes of node kinds (lp_syms.classes, the lists in parse.c). */
enum {
	LP_KIND_STATEMENT = 1, /* walked as a statement (walk.c) */
	LP_KIND_TEST_WORD = 2, /* a word of [ ] / [[ ]], taken whole */
	LP_KIND_QUOTED = 4,    /* quoted text: its gaps are not checked */
};
/* Symbols of the grammar a class table covers (tree-sitter-bash has 280;
   lp_syms_init fails on a grammar with more). */
#define LP_SYMS_MAX 512

/* Node kinds and fields, looked up once per parser so that the walk
   compares integers, never strings. */
typedef struct lp_syms {
	TSSymbol program, command, command_name, word, string, string_content,
	    raw_string, ansi_c_string, translated_string, number,
	    simple_expansion, expansion, command_substitution,
	    process_substitution, arithmetic_expansion, brace_expression,
	    concatenation, variable_name, special_variable_name,
	    variable_assignment, variable_assignments, pipeline, list,
	    redirected_statement, subshell, compound_statement, negated_command,
	    if_statement, elif_clause, else_clause, while_statement,
	    for_statement, c_style_for_statement, do_group, case_statement,
	    case_item, function_definition, declaration_command, unset_command,
	    test_command, file_redirect, heredoc_redirect, herestring_redirect,
	    heredoc_start, heredoc_body, heredoc_content, heredoc_end,
	    file_descriptor, comment, extglob_pattern, regex, array, subscript,
	    test_operator, binary_expression, postfix_expression,
	    unary_expression;
	TSFieldId f_name, f_argument, f_redirect, f_value, f_body,
	    f_destination, f_descriptor, f_operator, f_right, f_variable;
	uint8_t classes[LP_SYMS_MAX]; /* LP_KIND_* bits of each symbol */
} lp_syms;

/* Is k in the class (a set of kinds, filled by lp_syms_init)?  One load
   instead of a chain of comparisons; ERROR (65535) is in none. */
static inline bool lp_kind_is(const lp_syms *sy, TSSymbol k, unsigned cls)
{
	return k < LP_SYMS_MAX && (sy->classes[k] & cls);
}

/* Fill `s` from the bash grammar; false if a name is missing (grammar
   mismatch). */
bool lp_syms_init(lp_syms *s, const TSLanguage *lang);

typedef struct lp_func lp_func;

/* One script being walked: the top-level line or a nested script. */
typedef struct lp_tree {
	lp_ctx *ctx;
	const lp_syms *sy;
	const char *src; /* arena copy, NUL-terminated */
	size_t len;
	bool top; /* node byte ranges are ranges of the input line */
	size_t range_start, range_end; /* for nested scripts: the span
	                                   reported for every command */
	lp_vars *vars;
	bool test_keyword; /* emitting a `[[ ]]` test: its name is the
	                      keyword itself, not a misparse */
	lp_func *funcs;    /* functions defined / called (fork bomb shape) */
	size_t nfuncs, capfuncs;
} lp_tree;

/* ---- cursor.c --------------------------------------------------------- */

/* A preorder walk of the subtree at one node (the one copy of the cursor
   loop): lp_cursor_node() is the current node, lp_cursor_next() steps into
   its children when `enter` (and it has any), else past them; false when
   the subtree is done.  `depth` is the current node's depth below the
   start node (0 again once done). */
typedef struct lp_cursor {
	TSTreeCursor c;
	uint32_t depth;
	bool done;
} lp_cursor;
void lp_cursor_init(lp_cursor *cur, TSNode start);
TSNode lp_cursor_node(const lp_cursor *cur);
TSFieldId lp_cursor_field(const lp_cursor *cur);
bool lp_cursor_next(lp_cursor *cur, bool enter);
void lp_cursor_free(lp_cursor *cur);

/* ---- posix_for.c ------------------------------------------------------ */

/* Replace the blank before `do` of each `for NAME do` outside quotes by `;`
   (in place, same length); their offsets in offs (at most max: 0 past it).
   Returns how many. */
size_t lp_posix_for_rewrite(char *s, size_t len, uint32_t *offs, size_t max);
/* The rewritten tree is good: no error, and each offset is the `;` of a
   for/select statement. */
bool lp_posix_for_verify(const lp_syms *sy, TSNode root, const uint32_t *offs,
                         size_t n);

/* ---- treepass.c ------------------------------------------------------- */

/* What the tree pass keeps about a node on its stack while its subtree is
   visited: the node, and what each visitor hands to the node's children. */
typedef struct lp_tnode {
	TSNode node;
	TSSymbol kind;
	bool named;
	uint32_t start, end; /* clamped to the script */
	/* checks.c */
	bool in_test;  /* under a [[ ]] test, not inside a substitution */
	bool in_arith; /* inside $(( )), $[ ], (( )), for (( )) or a
	                  subscript, not inside a substitution */
	bool has_prev; /* the previous child seen: */
	TSSymbol prev_kind;
	uint32_t prev_end;
	char prev_last; /* its last byte */
	/* vars.c */
	bool runs;      /* runs unconditionally, in its scope's shell */
	bool var_arith; /* a value assigned here is an arithmetic result */
	bool in_func;   /* in a function body of its scope */
	uint32_t scope; /* the subshell scope it is in (vars.c; 0: none) */
	/* arith.c */
	bool in_site; /* inside an arithmetic context already collected */
} lp_tnode;

/* The checks' state across nodes (checks.c). */
typedef struct lp_checks_state {
	const char *delim; /* current heredoc's delimiter, unquoted */
	size_t delim_len;
	bool dash; /* <<- */
	bool have_row;
	uint32_t last_row;
} lp_checks_state;

/* Arithmetic to scan once the constants are known (arith.c). */
typedef struct lp_arith_site {
	TSNode node;
	enum { LP_SITE_CONTEXT, LP_SITE_LET, LP_SITE_INT_DECL } what;
} lp_arith_site;
typedef Array(lp_arith_site) lp_arith_sites;

/* The one cursor pass over a parsed script before the walk (treepass.c):
   the fail-closed checks over the tree, then (when `constants`) the
   same-line constants into t->vars and the arithmetic they decide; see
   docs/design.md, "One traversal". */
void lp_tree_pass(lp_tree *t, TSNode root, bool constants);

/* ---- parse.c ---------------------------------------------------------- */

/* The one depth check: a script or substitution at `depth` is within
   opts.max_depth, or the line is unparsed (false). */
bool lp_depth_ok(lp_ctx *ctx, unsigned depth);
/* Parse and walk one script.  Used for the line and by lp_parse_nested. */
void lp_walk_text(lp_ctx *ctx, const char *text, size_t len, bool top,
                  const char *origin, size_t parent, unsigned depth);

/* ---- walk.c ----------------------------------------------------------- */

void lp_walk_tree(lp_tree *t, TSNode root, const char *origin, size_t parent,
                  unsigned depth);

/* ---- plaintext.c ------------------------------------------------------ */

/* Parse the substitutions (backticks, $(..), <(..) / >(..) unless
   `quoted`) found in s[0..n) as scripts under `parent` at `depth`.
   True when one was found (or the text was unterminated: unparsed). */
bool lp_text_substs(lp_ctx *ctx, const char *s, size_t n, bool quoted,
                    size_t parent, unsigned depth);

/* lp_text_substs() over a leaf node (an expansion's operand, a [[ ]]
   pattern or regex), quoted when it sits in double quotes or a heredoc. */
bool lp_leaf_substs(lp_tree *t, TSNode leaf, size_t parent, unsigned depth);

/* ---- word.c ----------------------------------------------------------- */

/* Growable array of words (a word may split into several fields). */
typedef struct lp_wordvec {
	lp_word *v;
	size_t n, cap;
} lp_wordvec;
bool lp_wordvec_push(lp_arena *a, lp_wordvec *wv, lp_word w);

/* Evaluate a word node to its argv fields (field splitting of resolved
   unquoted constants included).  `use_vars` false disables constant
   resolution (assignment values seen by the vars pre-pass). */
void lp_word_fields(lp_tree *t, TSNode n, lp_wordvec *out);
/* Evaluate a word node to one value (no field splitting: assignment values,
   redirect targets, herestrings). */
lp_word lp_word_value(lp_tree *t, TSNode n, bool use_vars);
/* The body of a heredoc. */
lp_word lp_heredoc_value(lp_tree *t, TSNode body, bool quoted, bool strip_tabs);
/* A command_substitution that is really $((..)) (upstream #325). */
bool lp_is_fake_arith(lp_tree *t, TSNode n);
/* Decode $'...' contents (between the quotes) into `out`. */
bool lp_ansi_c_decode(lp_arena *a, lp_buf *out, const char *s, size_t n);
/* Node text as an arena string. */
const char *lp_node_text(lp_tree *t, TSNode n);
/* True when n or a named node under it has one of the `nkinds` kinds. */
bool lp_has_descendant(TSNode n, const TSSymbol *kinds, size_t nkinds);

/* checks.c: the bytes src[s..e) between two children of a node are blanks
   (spaces, tabs, line continuations) and lone `-` words with a blank of
   the gap on each side; the start byte of each `-` goes to pos[] (up to
   max; *n counts them all).  tree-sitter-bash drops such a word before a
   descriptor redirect or `<<` (`cat a - 2>/dev/null` has argv `cat a`);
   the walk restores it. */
bool lp_gap_dashes(const char *src, uint32_t s, uint32_t e, uint32_t *pos,
                   size_t max, size_t *n);

/* ---- vars.c ----------------------------------------------------------- */

/* The tree pass's constants visitor: a new table (NULL when out of
   memory), one call per node with its parent's frame, and abandon (resolve
   nothing) when the pass stops early. */
lp_vars *lp_vars_new(lp_tree *t);
void lp_vars_node(lp_tree *t, lp_vars *v, lp_tnode *f, const lp_tnode *p);
void lp_vars_abandon(lp_vars *v);
/* The pass is over: the uses are ordered for lp_vars_lookup. */
void lp_vars_finish(lp_vars *v);
/* Constant value of `name` for a use at byte `at`, or NULL (dynamic). */
const char *lp_vars_lookup(const lp_vars *v, const char *name, size_t nlen,
                           size_t at);
/* The first name the script assigns among those that change what later
   commands run (BASH_CMDS, BASH_ALIASES, PS0-PS4, PROMPT_COMMAND,
   BASH_ENV, ENV, SHELLOPTS, BASHOPTS), or NULL. */
const char *lp_vars_sensitive(const lp_vars *v);
/* The text holds one of those names (cheap byte scan): the pre-pass must
   run even without a `$`. */
bool lp_mentions_sensitive(const char *s, size_t n);
/* Every assignment of `name` on the line is a number literal or an
   arithmetic result (and there is one): read as arithmetic, its value is
   a number, not an expression.  False for names the line never assigns. */
bool lp_vars_numeric(const lp_vars *v, const char *name, size_t nlen);
/* A declaration with -i was seen (assignments to it are evaluated as
   arithmetic) and some name is assigned a value that is not a number. */
bool lp_vars_int_decl(const lp_vars *v);
/* n is a declaration with -i (declare -i, local -i, typeset -i). */
bool lp_int_declaration(const lp_tree *t, TSNode n);
/* Arithmetic that reads a value which is not a static number (a name the
   line does not assign a number, a substitution's output) makes the line
   unparsed (arith.c).  lp_arith_node() is the tree pass's visitor that
   collects the contexts (not those inside one already taken whole);
   lp_arith_scan() reads them once t->vars is complete. */
void lp_arith_node(lp_tree *t, lp_arith_sites *sites, lp_tnode *f,
                   const lp_tnode *p);
void lp_arith_scan(lp_tree *t, const lp_arith_sites *sites);
/* IFS is assigned on the line: every unquoted expansion is dynamic. */
bool lp_vars_ifs_assigned(const lp_vars *v);

/* ---- checks.c --------------------------------------------------------- */

/* Tree-wide fail-closed checks (docs/design.md): syntax errors, newlines
   inside commands, commands under test_command, heredoc shapes, backticks,
   control characters, line continuations inside words.  The tree pass's
   first visitor: lp_checks_begin() before the first node (byte scans, the
   syntax error, the bytes around the root), lp_checks_node() on each node
   with its parent's frame (the gap before it, then the node),
   lp_checks_leave() once its children are done (the gap after the last). */
void lp_checks_begin(lp_tree *t, lp_checks_state *cs, TSNode root);
void lp_checks_node(lp_tree *t, lp_checks_state *cs, lp_tnode *f, lp_tnode *p);
void lp_checks_leave(lp_tree *t, const lp_tnode *f);
/* Checks on one simple command's evaluated words. */
void lp_checks_command(lp_tree *t, const lp_raw_command *raw);
/* Line-level checks after the walk (parser/checks.c): literal command text
   on a line that evaluates data; source fed by the line. */
void lp_checks_reeval(lp_ctx *ctx);
void lp_checks_source(lp_ctx *ctx);
/* Environment names that carry code: parsed, or unparsed when hidden. */
void lp_checks_env(lp_ctx *ctx);
/* Shells reading a script from input, or from a file the line wrote. */
void lp_checks_shell_input(lp_ctx *ctx);
/* Reserved words the grammar lets through as command names. */
bool lp_is_reserved_word(const char *s);

/* The n bytes at s start what bash expands after a `$`: a name, a
   digit, a special parameter (@*#?-$!), `{` or `(`. */
bool lp_starts_name(const char *s, size_t n);

#endif
