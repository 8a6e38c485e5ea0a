/*
 * bench/bigline.c - memory and time of one big line.
 *
 *   bigline [-b BUDGET_MS] FILE          the file's bytes as one line
 *   bigline [-b BUDGET_MS] -s SHAPE N    N copies of a shape (below)
 *
 * Parses and labels the line with one parser, as `locus classify` does,
 * and prints one line: bytes, commands, CPU milliseconds of the parse and
 * the label, the parse's peak heap growth (what its memory budget counts),
 * the process's peak RSS (so run it once per input), RSS per input byte,
 * and parsed or the unparsed reason.  The budget defaults to 60 s, so that what is
 * measured is the whole line, not how much of it fits in 500 ms on a
 * loaded machine; `-b 0` keeps the library's default.
 *
 * Shapes (the worst ones measured for tree-sitter and the walk):
 *   pipe   `cat | ` repeated (one long pipeline)
 *   semi   `a;` repeated
 *   subst  `echo $(a) ` repeated
 *   write  `echo a > fK; ` with K = 1..N (N distinct written files),
 *          then `sh f1` (one of them run)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "locus/labels.h"
#include "locus/shell.h"

/* util/alloc.h: the parse's peak heap growth, through the hook */
size_t locus__mem_peak(void);

static double cpu_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static char *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *s = malloc(cap);
	size_t got;
	while (s && (got = fread(s + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap) {
			char *t = realloc(s, cap *= 2);
			if (!t)
				free(s);
			s = t;
		}
	}
	fclose(f);
	*n = len;
	return s;
}

static char *shape(const char *name, size_t count, size_t *n)
{
	size_t cap = count * 24 + 64, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	for (size_t k = 1; k <= count; k++) {
		int w;
		if (!strcmp(name, "pipe"))
			w = snprintf(s + len, cap - len, "%s",
			             k < count ? "cat | " : "cat");
		else if (!strcmp(name, "semi"))
			w = snprintf(s + len, cap - len, "a;");
		else if (!strcmp(name, "subst"))
			w = snprintf(s + len, cap - len, "echo $(a) ");
		else if (!strcmp(name, "write"))
			w = snprintf(s + len, cap - len, "echo a > f%zu; ", k);
		else {
			free(s);
			return NULL;
		}
		len += (size_t)w;
	}
	if (!strcmp(name, "write"))
		len += (size_t)snprintf(s + len, cap - len, "sh f1");
	*n = len;
	return s;
}

int main(int argc, char **argv)
{
	unsigned budget = 60000;
	int a = 1;
	if (a + 1 < argc && !strcmp(argv[a], "-b")) {
		budget = (unsigned)strtoul(argv[a + 1], NULL, 10);
		a += 2;
	}
	size_t n = 0;
	char *s = NULL;
	if (a + 3 == argc && !strcmp(argv[a], "-s"))
		s = shape(argv[a + 1], strtoull(argv[a + 2], NULL, 10), &n);
	else if (a + 1 == argc)
		s = read_file(argv[a], &n);
	if (!s) {
		fprintf(stderr, "usage: bigline [-b MS] FILE | -s "
		                "pipe|semi|subst|write N\n");
		return 2;
	}
	locus_shell_options o = LOCUS_SHELL_OPTIONS_INIT;
	o.budget_ms = budget;
	locus_shell_parser *p = NULL;
	if (locus_shell_parser_new(&p, &o))
		return 2;
	double t0 = cpu_ms();
	locus_shell_result *r = locus_shell_parser_parse(p, s, n);
	double t1 = cpu_ms();
	size_t heap = locus__mem_peak();
	locus_shell_verdict *v = NULL;
	if (!r || locus_shell_label(&v, r)) {
		fprintf(stderr, "bigline: out of memory\n");
		return 1;
	}
	double t2 = cpu_ms();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	const char *why = locus_shell_result_reason(r);
	printf("bytes=%zu commands=%zu parse_ms=%.1f label_ms=%.1f "
	       "parse_heap_kb=%zu maxrss_kb=%ld bytes_per_byte=%.1f %s%s%s\n",
	       n, locus_shell_result_count(r), t1 - t0, t2 - t1, heap >> 10,
	       ru.ru_maxrss,
	       (double)ru.ru_maxrss * 1024.0 / (double)(n ? n : 1),
	       why ? "unparsed=\"" : "parsed", why ? why : "", why ? "\"" : "");
	locus_shell_verdict_free(v);
	locus_shell_result_free(r);
	locus_shell_parser_free(p);
	free(s);
	return 0;
}
