/*
 * bench/ts_raw.c - the baseline: raw tree-sitter parsing of a batch.
 *
 *   ts_raw FILE        every line of FILE parsed on its own
 *   ts_raw -w FILE     the whole file parsed as one script
 *
 * One reused TSParser; the tree is walked with a cursor (so both sides of
 * the comparison touch every node), and the node count is printed so the
 * work cannot be optimised away.  This is the floor locus's own cost is
 * measured against.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_bash(void);

static unsigned long parse_walk(TSParser *p, const char *s, size_t n)
{
	unsigned long nodes = 0;
	TSTree *t = ts_parser_parse_string(p, NULL, s, (uint32_t)n);
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
	return nodes;
}

int main(int argc, char **argv)
{
	bool whole = argc == 3 && !strcmp(argv[1], "-w");
	if (argc != 2 && !whole) {
		fprintf(stderr, "usage: ts_raw [-w] FILE\n");
		return 2;
	}
	const char *path = argv[argc - 1];
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
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
	if (whole) {
		/* the file as one script, like one --jsonl command */
		n = getdelim(&line, &cap, '\0', f);
		if (n > 0) {
			nodes = parse_walk(p, line, (size_t)n);
			lines = 1;
		}
	}
	while (!whole && (n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		nodes += parse_walk(p, line, (size_t)n);
		lines++;
	}
	free(line);
	fclose(f);
	ts_parser_delete(p);
	printf("%lu lines, %lu nodes\n", lines, nodes);
	return 0;
}
