/*
 * bench/ts_raw.c - the baseline: raw tree-sitter parsing of a batch.
 *
 * Reads lines from a file, parses each with one reused TSParser and walks
 * the tree with a cursor (so both sides of the comparison touch every node),
 * and prints the node count so the work cannot be optimised away.  This is
 * the floor locus's own cost is measured against.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_bash(void);

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ts_raw FILE\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	TSParser *p = ts_parser_new();
	if (!ts_parser_set_language(p, tree_sitter_bash())) {
		fprintf(stderr, "ts_raw: grammar ABI mismatch\n");
		return 2;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned long nodes = 0, lines = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		TSTree *t = ts_parser_parse_string(p, NULL, line, (uint32_t)n);
		TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(t));
		for (bool more = true; more;) {
			nodes++;
			if (ts_tree_cursor_goto_first_child(&c))
				continue;
			while (more && !ts_tree_cursor_goto_next_sibling(&c))
				more = ts_tree_cursor_goto_parent(&c);
		}
		ts_tree_cursor_delete(&c);
		ts_tree_delete(t);
		lines++;
	}
	free(line);
	fclose(f);
	ts_parser_delete(p);
	printf("%lu lines, %lu nodes\n", lines, nodes);
	return 0;
}
