/*
 * parser/arith.c - arithmetic that evaluates a value as an expression.
 *
 * Bash evaluates the value of a name read in arithmetic as an expression
 * of its own, and a subscript in it runs its command substitutions:
 * `x='a[$(cmd)]'; (( x ))` runs cmd (checked in a sandbox), also through
 * $((x)), $[x], for (( )), [[ x -eq 0 ]], [[ -v a[x] ]], an array
 * subscript, ${s:x:y}, let and declare -i.  A value the line does not
 * show (read from input, the environment, a substitution's output) may be
 * such an expression, so arithmetic that reads a name the line does not
 * assign a static number, or the output of a substitution, makes the line
 * unparsed.  Names bash sets to numbers itself ($#, $?, RANDOM...) are
 * safe; a number literal is safe.
 */
#include <string.h>

#include "walk.h"

/* Names and parameters whose value is always a number. */
/* clang-format off */
static const char *const numeric_names[] = {
	"RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID",
	"EUID", "OPTIND", "EPOCHSECONDS", "HISTCMD", "BASH_SUBSHELL",
	"SHLVL", NULL,
};
/* clang-format on */

static bool ident_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

static bool safe_name(lp_tree *t, const char *s, size_t n)
{
	for (size_t i = 0; numeric_names[i]; i++)
		if (strlen(numeric_names[i]) == n &&
		    !memcmp(numeric_names[i], s, n))
			return true;
	return lp_vars_numeric(t->vars, s, n);
}

/* Scan arithmetic text s[0..n): every name read must be safe.  Returns
   false (line unparsed) at the first one that is not. */
static bool scan_expr(lp_tree *t, const char *s, size_t n, uint32_t at)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9') {
			/* 12, 0x1f, 2#z9: a number, letters included */
			while (i + 1 < n &&
			       (ident_char(s[i + 1], false) ||
			        s[i + 1] == '#' || s[i + 1] == '@'))
				i++;
			continue;
		}
		if (c == '`' || (c == '$' && i + 1 < n && s[i + 1] == '(' &&
		                 !(i + 2 < n && s[i + 2] == '('))) {
			lp_unparsed(t->ctx,
			            "arithmetic at byte %u evaluates the "
			            "output of a command as an expression",
			            at);
			return false;
		}
		if (c == '$' && i + 1 < n) {
			char d = s[i + 1];
			/* $#, $?, $$, $!: numbers */
			if (strchr("#?$!", d)) {
				i++;
				continue;
			}
			if (d == '{' && i + 2 < n && s[i + 2] == '#') {
				/* ${#x}: a length */
				const char *e = memchr(s + i, '}', n - i);
				i = e ? (size_t)(e - s) : n;
				continue;
			}
			if (d == '{')
				i++;
			if (i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9') {
				lp_unparsed(t->ctx,
				            "arithmetic at byte %u reads a "
				            "positional parameter, whose "
				            "value may be an expression",
				            at);
				return false;
			}
			continue; /* the name follows */
		}
		if (!ident_char(c, true))
			continue;
		size_t j = i;
		while (j < n && ident_char(s[j], false))
			j++;
		size_t k = j;
		while (k < n && (s[k] == ' ' || s[k] == '\t'))
			k++;
		bool target =
		    k < n && s[k] == '=' && (k + 1 >= n || s[k + 1] != '=');
		if (!target && !safe_name(t, s + i, j - i)) {
			lp_unparsed(t->ctx,
			            "arithmetic at byte %u reads %.*s, "
			            "whose value is not a static number "
			            "(it may be an expression that runs "
			            "code)",
			            at, (int)(j - i), s + i);
			return false;
		}
		i = j - 1;
	}
	return true;
}

static bool node_text(lp_tree *t, TSNode n, const char **s, size_t *len)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	if (b > t->len || a >= b)
		return false;
	*s = t->src + a;
	*len = b - a;
	return true;
}

/* Names declared associative (`declare -A m`): their subscripts are
   strings, not arithmetic.  A byte scan of the script for declare,
   typeset or local with an A in an option cluster, then the name. */
static bool assoc_array(lp_tree *t, const char *sub, const char *bracket)
{
	size_t nl = (size_t)(bracket - sub);
	static const char *const decl[] = {"declare ", "typeset ", "local ",
	                                   NULL};
	for (size_t d = 0; decl[d]; d++) {
		for (const char *p = strstr(t->src, decl[d]); p;
		     p = strstr(p + 1, decl[d])) {
			const char *q = p + strlen(decl[d]);
			bool assoc = false;
			while (*q == '-' || *q == ' ') {
				const char *w = q;
				while (*q && *q != ' ')
					q++;
				assoc |= w[0] == '-' && memchr(w, 'A', q - w);
				while (*q == ' ')
					q++;
			}
			if (assoc && !strncmp(q, sub, nl) &&
			    !ident_char(q[nl], false))
				return true;
		}
	}
	return false;
}

/* clang-format off */
static const char *const arith_test_ops[] = {
	"-eq", "-ne", "-lt", "-le", "-gt", "-ge", NULL,
};
/* clang-format on */

/* The arithmetic text of node n, when n is an arithmetic context:
   $(( )), $[ ], (( )), for (( )), a subscript's index, the operands of
   [[ A -eq B ]], ${s:off:len}.  False when it is not one. */
static bool arith_text(lp_tree *t, TSNode n, const char **s, size_t *len,
                       const char **skip, size_t *skip_len)
{
	*skip = NULL;
	*skip_len = 0;
	const lp_syms *sy = t->sy;
	TSSymbol k = ts_node_symbol(n);
	const char *x;
	size_t xl;
	if (!node_text(t, n, &x, &xl))
		return false;
	if (k == sy->arithmetic_expansion || k == sy->c_style_for_statement ||
	    (k == sy->compound_statement && xl > 1 && x[0] == '(' &&
	     x[1] == '(')) {
		*s = x;
		*len = xl;
		if (k == sy->c_style_for_statement) {
			/* the header only: `for ((...))` */
			const char *b = strstr(x, "((");
			const char *e = b ? strstr(b, "))") : NULL;
			if (!b || !e || e >= x + xl)
				return true;
			*s = b + 2;
			*len = (size_t)(e - b - 2);
		}
		return true;
	}
	if (k == sy->subscript ||
	    (k == sy->unary_expression && xl > 3 && !strncmp(x, "-v", 2))) {
		/* a[i], [[ -v a[i] ]] */
		const char *b = memchr(x, '[', xl);
		if (!b || b[1] == '@' || b[1] == '*' || assoc_array(t, x, b))
			return false;
		*s = b + 1;
		*len = xl - (size_t)(b + 1 - x);
		return true;
	}
	if (k == sy->binary_expression) {
		TSNode op = ts_node_child_by_field_id(n, sy->f_operator);
		const char *o;
		size_t ol;
		if (ts_node_is_null(op) || !node_text(t, op, &o, &ol))
			return false;
		for (size_t i = 0; arith_test_ops[i]; i++)
			if (ol == 3 && !memcmp(o, arith_test_ops[i], 3)) {
				/* both operands, not the operator */
				*s = x;
				*len = xl;
				*skip = o;
				*skip_len = ol;
				return true;
			}
		return false;
	}
	if (k == sy->expansion && xl > 3) {
		/* ${s:off:len}: a ':' not followed by - = + ? */
		for (size_t i = 2; i + 1 < xl; i++) {
			if (!ident_char(x[i], i == 2) && x[i] != '#' &&
			    x[i] != '!')
				break;
			if (x[i + 1] == ':' && !strchr("-=+?", x[i + 2])) {
				*s = x + i + 2;
				*len = xl - i - 2;
				return true;
			}
		}
	}
	return false;
}

/* The command is `let`. */
static bool is_let(lp_tree *t, TSNode cmd, TSNode *name)
{
	*name = ts_node_child_by_field_id(cmd, t->sy->f_name);
	const char *x;
	size_t xl;
	return !ts_node_is_null(*name) && node_text(t, *name, &x, &xl) &&
	       xl == 3 && !memcmp(x, "let", 3);
}

/* let ARG...: each argument is an expression; a leading NAME= is the
   target, not a read. */
static bool scan_let(lp_tree *t, TSNode cmd)
{
	TSNode name;
	const char *x;
	size_t xl;
	if (!is_let(t, cmd, &name))
		return true;
	uint32_t cc = ts_node_named_child_count(cmd);
	for (uint32_t i = 0; i < cc; i++) {
		TSNode a = ts_node_named_child(cmd, i);
		if (ts_node_eq(a, name) || !node_text(t, a, &x, &xl))
			continue;
		size_t j = 0;
		while (j < xl && ident_char(x[j], j == 0))
			j++;
		/* NAME=VALUE: the value only; NAME op= VALUE reads NAME
		   too (`let x+=1` with x='a[$(cmd)]' from the environment
		   runs cmd: checked in a sandbox), as does anything else */
		if (j && j < xl && x[j] == '=' &&
		    (j + 1 >= xl || x[j + 1] != '='))
			j++;
		else
			j = 0;
		if (!scan_expr(t, x + j, xl - j, ts_node_start_byte(a)))
			return false;
	}
	return true;
}

/* declare -i X=VALUE: VALUE is an expression. */
static bool scan_int_values(lp_tree *t, TSNode decl)
{
	uint32_t cc = ts_node_named_child_count(decl);
	for (uint32_t i = 0; i < cc; i++) {
		TSNode a = ts_node_named_child(decl, i);
		if (ts_node_symbol(a) != t->sy->variable_assignment)
			continue;
		TSNode v = ts_node_child_by_field_id(a, t->sy->f_value);
		const char *x;
		size_t xl;
		if (!ts_node_is_null(v) && node_text(t, v, &x, &xl) &&
		    !scan_expr(t, x, xl, ts_node_start_byte(v)))
			return false;
	}
	return true;
}

void lp_arith_node(lp_tree *t, lp_arith_sites *sites, lp_tnode *f,
                   const lp_tnode *p)
{
	f->in_site = p && p->in_site;
	if (f->in_site || !f->named ||
	    !locus_shell_result_parsed(t->ctx->result))
		return; /* inside a context taken whole, or nothing to add */
	lp_arith_site site = {f->node, LP_SITE_CONTEXT};
	const char *s, *skip;
	size_t len, skip_len;
	TSNode name;
	if (arith_text(t, f->node, &s, &len, &skip, &skip_len))
		f->in_site = true; /* scanned whole: not inside it */
	else if (f->kind == t->sy->command && is_let(t, f->node, &name))
		site.what = LP_SITE_LET;
	else if (lp_int_declaration(t, f->node))
		site.what = LP_SITE_INT_DECL;
	else
		return;
	if (!lu_array_push(sites, site))
		lp_unparsed(t->ctx, "out of memory");
}

/* One site; false (the line unparsed) when it reads a value that may be
   an expression. */
static bool scan_site(lp_tree *t, const lp_arith_site *site)
{
	TSNode n = site->node;
	if (site->what == LP_SITE_LET)
		return scan_let(t, n);
	if (site->what == LP_SITE_INT_DECL)
		return scan_int_values(t, n);
	const char *s, *skip;
	size_t len, skip_len;
	if (!arith_text(t, n, &s, &len, &skip, &skip_len))
		return true;
	if (!skip)
		return scan_expr(t, s, len, ts_node_start_byte(n));
	return scan_expr(t, s, (size_t)(skip - s), ts_node_start_byte(n)) &&
	       scan_expr(t, skip + skip_len,
	                 len - (size_t)(skip + skip_len - s),
	                 ts_node_start_byte(n));
}

void lp_arith_scan(lp_tree *t, const lp_arith_sites *sites)
{
	if (!locus_shell_result_parsed(t->ctx->result))
		return; /* already unparsed: nothing to add */
	if (lp_vars_int_decl(t->vars)) {
		lp_unparsed(t->ctx,
		            "declare -i makes assignments arithmetic, and "
		            "the line assigns a value that is not a "
		            "number");
		return;
	}
	for (size_t i = 0; i < sites->size; i++) {
		if (lp_out_of_time(t->ctx) ||
		    !scan_site(t, lu_array_get(sites, i)))
			break;
	}
}
