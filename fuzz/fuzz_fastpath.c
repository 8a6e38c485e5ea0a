/*
 * fuzz_fastpath - the plain-word fast path (parser/fastpath.c) against
 * tree-sitter.
 *
 * Each input is one bash line, classified twice: by a parser with the fast
 * path and by one with LOCUS_SHELL_NO_FASTPATH, where every script goes
 * through tree-sitter.  The two `locus classify` JSON objects (with
 * commands) must be byte-identical.  Every input is compared, not only
 * those the fast path reads at the top: a nested script (`sh -c '...'`)
 * of a refused line may still take the fast path.  A difference prints
 * both objects and aborts.
 *
 * Also built into tests/test_fastpath.c (a generated batch) and replayed
 * on fuzz/fuzz_fastpath/corpus by the plain standalone driver.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "locus/labels.h"
#include "locus/shell.h"
#include "parser/fastpath.h"

#include "fuzz_check.h"

/* Each parser's time budget (see LLVMFuzzerTestOneInput). */
#define FUZZ_BUDGET_MS 5000u

size_t fuzz_fastpath_accepted; /* inputs the fast path read at the top */
size_t fuzz_fastpath_total;
/* Set by tests/test_fastpath.c --keep-going: count and print differences
   instead of aborting on the first. */
bool fuzz_fastpath_keep_going;
size_t fuzz_fastpath_differences;

static char *classify(locus_shell_parser *p, const uint8_t *data, size_t size)
{
	locus_action *a = NULL;
	locus_error err = {0};
	int rc = locus_action_classify_opts(&a, p, (const char *)data, size,
	                                    NULL, &err);
	char *txt = NULL;
	if (rc == 0 && a)
		FUZZ_CHECK(locus_action_json(&txt, a, LOCUS_JSON_COMMANDS) == 0,
		           "locus_action_json failed");
	else
		FUZZ_CHECK(rc == LOCUS_EINVALID || rc == LOCUS_ETOOBIG,
		           "classify returned %d", rc);
	locus_action_free(a);
	return txt;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* One parser of each kind for the whole run, as a caller keeps it. */
	static locus_shell_parser *fast, *tree;
	if (!fast) {
		/* LOCUS_FASTPATH=0 would turn it off in both */
		FUZZ_CHECK(!lp_fastpath_env_off(), "LOCUS_FASTPATH is off");
		/* The line's wall-clock budget (500 ms by default) is no part
		   of what is compared, and on a loaded machine it fires in one
		   run and not the other (the filter below ignores such a
		   difference: a budget that fired is always in the reasons,
		   after an earlier unparsed reason too, lp_unparsed_budget).
		   Both parsers get FUZZ_BUDGET_MS so that it rarely fires;
		   the two runs together stay below libFuzzer's -timeout of
		   25 s (fuzz/campaign.sh), so a slow input is still a
		   finding, as a timeout. */
		locus_shell_options o = LOCUS_SHELL_OPTIONS_INIT;
		o.budget_ms = FUZZ_BUDGET_MS;
		if (locus_shell_parser_new(&fast, &o) != 0)
			abort();
		o.flags = LOCUS_SHELL_NO_FASTPATH;
		if (locus_shell_parser_new(&tree, &o) != 0)
			abort();
	}
	fuzz_fastpath_total++;
	if (lp_fastpath_accepts((const char *)data, size))
		fuzz_fastpath_accepted++;
	char *a = classify(fast, data, size);
	char *b = classify(tree, data, size);
	bool same = (a == NULL) == (b == NULL) && (!a || !strcmp(a, b));
	/* a parse or labelling that ran out of its wall-clock budget is
	   unparsed (fail closed) whatever path it took: on a loaded machine
	   one of the two runs may hit it (a fuzzing campaign saw it at
	   12 runs a second), which is no difference of the fast path */
	if (!same && ((a && strstr(a, "time budget")) ||
	              (b && strstr(b, "time budget"))))
		same = true;
	if (!same && fuzz_fastpath_keep_going) {
		fuzz_fastpath_differences++;
		fprintf(stderr, "DIFF %.*s\n  fast: %s\n  tree: %s\n",
		        (int)size, (const char *)data, a ? a : "(error)",
		        b ? b : "(error)");
		same = true;
	}
	FUZZ_CHECK(same,
	           "the fast path changes the output of %.*s\n"
	           "  fast path:   %s\n  tree-sitter: %s",
	           (int)size, (const char *)data, a ? a : "(error)",
	           b ? b : "(error)");
	locus_free(a);
	locus_free(b);
	return 0;
}
