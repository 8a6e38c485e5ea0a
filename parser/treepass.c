/*
 * parser/treepass.c - the one cursor pass over a parsed script before the
 * walk.
 *
 * Every node of the tree is reached once, in preorder, with the frames of
 * its ancestors on one explicit stack (never recursion on the input), and
 * handed to each visitor in a fixed order:
 *   1. the fail-closed checks (checks.c): the gap before the node, then
 *      the node itself; the gap after its last child when it is left;
 *   2. the same-line constants (vars.c), when the script may need them;
 *   3. the arithmetic contexts (arith.c), collected to be scanned once the
 *      constants are complete (whether a name holds a number depends on
 *      every assignment of the line, later ones included).
 * The visitors do not stop the pass: a check that fires marks the line
 * unparsed (its reason kept when it is the first) and the pass goes on,
 * as the separate passes it replaces did, so the first reason is the one
 * they gave.  The walk (walk.c) comes after, as it needs the constants of
 * the whole script before it reads its first word.
 */
#include <string.h>

#include "walk.h"

typedef Array(lp_tnode) tnode_stack;

/* The next node onto the stack, its frame filled by every visitor. */
static bool enter_node(lp_tree *t, tnode_stack *st, TSNode n,
                       lp_checks_state *cs, lp_vars *v, lp_arith_sites *sites)
{
	if (!lu_array_reserve(st, st->size + 1)) {
		lp_unparsed(t->ctx, "out of memory");
		return false;
	}
	lp_tnode *p = st->size ? &st->contents[st->size - 1] : NULL;
	lp_tnode *f = &st->contents[st->size++];
	memset(f, 0, sizeof *f);
	f->node = n;
	f->kind = ts_node_symbol(n);
	f->named = ts_node_is_named(n);
	f->end = ts_node_end_byte(n);
	f->start = ts_node_start_byte(n);
	if (f->end > t->len)
		f->end = (uint32_t)t->len;
	if (f->start > f->end)
		f->start = f->end;
	lp_checks_node(t, cs, f, p);
	if (v) {
		lp_vars_node(t, v, f, p);
		lp_arith_node(t, sites, f, p);
	}
	return true;
}

void lp_tree_pass(lp_tree *t, TSNode root, bool constants)
{
	lp_checks_state cs;
	lp_checks_begin(t, &cs, root);
	lp_vars *v = constants ? lp_vars_new(t) : NULL;
	/* without the table no name resolves, but neither would an
	   assignment to PS4 or BASH_ENV be seen: fail closed */
	if (constants && !v)
		lp_unparsed(t->ctx, "out of memory");
	lp_arith_sites sites = LU_ARRAY_INIT;
	/* the stack is the parser's, kept across lines (spare.c) */
	tnode_stack st = LU_ARRAY_INIT;
	st.contents =
	    lp_spare_take(t->ctx->parser, LP_SPARE_TNODES, &st.capacity);
	lp_cursor c;
	lp_cursor_init(&c, root);
	for (bool more = true; more;) {
		if (lp_out_of_time(t->ctx) ||
		    !enter_node(t, &st, lp_cursor_node(&c), &cs, v, &sites)) {
			if (v)
				lp_vars_abandon(v);
			break;
		}
		more = lp_cursor_next(&c, true);
		/* leave the nodes whose subtrees are done, innermost first:
		   the next node sits at c.depth (a child, a sibling or
		   that of an ancestor); once done, every frame is left */
		while (st.size > c.depth) {
			lp_checks_leave(t, lu_array_back(&st));
			st.size--;
		}
	}
	lp_cursor_free(&c);
	lp_spare_give(t->ctx->parser, LP_SPARE_TNODES, st.contents, st.capacity,
	              sizeof *st.contents);
	lp_vars_finish(v);
	t->vars = v;
	if (lp_vars_sensitive(v))
		lp_unparsed(t->ctx, "assignment to %s changes what runs",
		            lp_vars_sensitive(v));
	if (v)
		lp_arith_scan(t, &sites);
	lu_array_delete(&sites);
}
