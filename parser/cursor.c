/*
 * parser/cursor.c - the one preorder walk of a subtree.
 *
 * Every stage that looks at all the nodes under one (the tree pass, the
 * first syntax error, "has a descendant of kind K", the words of a test,
 * the substitutions inside a fake $((..))) steps with this: one
 * tree-sitter cursor, first child / next sibling / parent, never recursion
 * on the input.  The cursor is created at the start node, so it cannot
 * climb above it: the walk ends when the start node's subtree is done.
 */
#include "walk.h"

void lp_cursor_init(lp_cursor *cur, TSNode start)
{
	cur->c = ts_tree_cursor_new(start);
	cur->depth = 0;
	cur->done = false;
}

TSNode lp_cursor_node(const lp_cursor *cur)
{
	return ts_tree_cursor_current_node(&cur->c);
}

TSFieldId lp_cursor_field(const lp_cursor *cur)
{
	return ts_tree_cursor_current_field_id(&cur->c);
}

bool lp_cursor_next(lp_cursor *cur, bool enter)
{
	if (cur->done)
		return false;
	if (enter && ts_tree_cursor_goto_first_child(&cur->c)) {
		cur->depth++;
		return true;
	}
	while (!ts_tree_cursor_goto_next_sibling(&cur->c)) {
		if (cur->depth == 0 || !ts_tree_cursor_goto_parent(&cur->c)) {
			cur->done = true;
			cur->depth = 0;
			return false;
		}
		cur->depth--;
	}
	return true;
}

void lp_cursor_free(lp_cursor *cur)
{
	ts_tree_cursor_delete(&cur->c);
}
