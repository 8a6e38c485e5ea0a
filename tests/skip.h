/*
 * tests/skip.h - a skipped check is reported as skipped, never as passed.
 *
 * A Check case whose environment is missing (no bwrap, not root, no fake
 * gateway) calls test_skip("why") and returns.  Check runs each case in a
 * child process, so the count lives in a shared anonymous mapping made
 * before main runs.  main ends with `return test_exit(failed);`: 1 when a
 * case failed, 77 (meson counts the suite as skipped) when none failed but
 * one was skipped, 0 only when every check ran and passed.  A suite whose
 * whole environment is missing returns 77 from main before running.
 */
#ifndef LOCUS_TESTS_SKIP_H
#define LOCUS_TESTS_SKIP_H

#include <stdio.h>
#include <sys/mman.h>

#define TEST_SKIPPED 77 /* meson's exit status for a skipped test */

static int *g_test_skips; /* shared with Check's forked cases */

__attribute__((constructor)) static void test_skip_init(void)
{
	void *p = mmap(NULL, sizeof *g_test_skips, PROT_READ | PROT_WRITE,
	               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	g_test_skips = p == MAP_FAILED ? NULL : p;
}

/* Record that the running case skipped a check (stderr says which). */
static inline void test_skip(const char *why)
{
	fprintf(stderr, "SKIPPED (not passed): %s\n", why);
	if (g_test_skips)
		__atomic_add_fetch(g_test_skips, 1, __ATOMIC_SEQ_CST);
}

/* main's exit status: failures first, then skips, then success.  Without
   the shared count a skip cannot be seen, so that is a failure too. */
static inline int test_exit(int failed)
{
	if (failed || !g_test_skips)
		return 1;
	if (*g_test_skips) {
		fprintf(stderr,
		        "%d check(s) skipped: the suite is reported as "
		        "skipped, not passed\n",
		        *g_test_skips);
		return TEST_SKIPPED;
	}
	return 0;
}

#endif
