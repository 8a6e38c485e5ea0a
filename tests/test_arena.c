/*
 * tests/test_arena.c - the result arena and the parser's block pool
 * (parser/arena.c, parser/pool.c; the memory half):
 * blocks reused across lines, the pool's bound, results freed after their
 * parser or on another thread, the memory budget still counting reused
 * blocks, and the zeroing rule's terminators.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locus/shell.h"
#include "parser/internal.h"
#include "parser/walk.h" /* TSNode */
#include "parser/pool.h"

/* util/alloc.h: a parse's peak heap growth, through the hook */
size_t locus__mem_peak(void);

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define T_ASAN 1
#endif
#ifdef T_ASAN
#include <sanitizer/asan_interface.h>
#endif

static size_t made(locus_shell_parser *p)
{
	size_t m;
	lp_pool_stats(p->pool, &m, NULL);
	return m;
}

static size_t kept(locus_shell_parser *p)
{
	size_t k;
	lp_pool_stats(p->pool, NULL, &k);
	return k;
}

static locus_shell_result *parse(locus_shell_parser *p, const char *s)
{
	locus_shell_result *r = locus_shell_parser_parse(p, s, strlen(s));
	ck_assert_ptr_nonnull(r);
	return r;
}

/* A distinct everyday-looking line for each i, through tree-sitter or the
   fast path depending on i. */
static const char *line(char *buf, size_t n, int i)
{
	int j = i * 7;
	switch (i % 5) {
	case 0:
		snprintf(buf, n, "git log --oneline -n %d | head -%d", i, j);
		break;
	case 1:
		snprintf(buf, n, "grep -rn 'pattern%d' src/ && echo done%d", i,
		         j);
		break;
	case 2:
		snprintf(
		    buf, n,
		    "for f in *.c; do wc -l \"$f\" > out%d.txt; done; ls %d", i,
		    j);
		break;
	case 3:
		snprintf(buf, n,
		         "cat file%d | sort | uniq -c | sort -rn | head -n %d",
		         i, j);
		break;
	default:
		snprintf(buf, n, "X=%d; echo \"$X\" $(date +%%s) %d", i, j);
		break;
	}
	return buf;
}

/* After the first lines, a parser reading one line at a time takes no new
   block from the allocator: 1,000 lines reuse what the first ones took. */
START_TEST(pool_reuses_blocks_across_lines)
{
	locus_shell_parser *p;
	ck_assert_int_eq(locus_shell_parser_new(&p, NULL), 0);
	char buf[256];
	for (int i = 0; i < 5; i++)
		locus_shell_result_free(parse(p, line(buf, sizeof buf, i)));
	size_t warm = made(p);
	ck_assert_uint_ge(warm, 1);
	for (int i = 5; i < 1005; i++) {
		locus_shell_result *r = parse(p, line(buf, sizeof buf, i));
		ck_assert_msg(locus_shell_result_parsed(r), "%s: %s", buf,
		              locus_shell_result_reason(r));
		locus_shell_result_free(r);
	}
	ck_assert_uint_eq(made(p), warm);
	/* two results alive at once: one more block, then flat again */
	locus_shell_result *a = parse(p, "ls -la");
	locus_shell_result *b = parse(p, "ls -la");
	locus_shell_result_free(a);
	locus_shell_result_free(b);
	size_t two = made(p);
	ck_assert_uint_le(two, warm + 1);
	for (int i = 0; i < 100; i++) {
		a = parse(p, "echo a | wc -c");
		b = parse(p, "echo b && true");
		locus_shell_result_free(b);
		locus_shell_result_free(a);
	}
	ck_assert_uint_eq(made(p), two);
	locus_shell_parser_free(p);
}
END_TEST

/* `a;` repeated: a line whose arena takes several MB in blocks up to the
   largest size. */
static char *semis(size_t k, size_t *len)
{
	char *s = malloc(2 * k + 1);
	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < k; i++)
		memcpy(s + 2 * i, "a;", 2);
	s[2 * k] = '\0';
	*len = 2 * k;
	return s;
}

/* The pool keeps at most LP_POOL_MAX_BYTES, whatever a line took, and
   small lines after a huge one still reuse its blocks. */
START_TEST(pool_bound_after_huge_line)
{
	locus_shell_parser *p;
	locus_shell_options o = LOCUS_SHELL_OPTIONS_INIT;
	o.budget_ms = 60000; /* the whole line, on a loaded machine too */
	ck_assert_int_eq(locus_shell_parser_new(&p, &o), 0);
	size_t n;
	char *s = semis(20000, &n);
	locus_shell_result *r = locus_shell_parser_parse(p, s, n);
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(locus_shell_result_parsed(r), "%s",
	              locus_shell_result_reason(r));
	ck_assert_uint_eq(locus_shell_result_count(r), 20000);
	size_t big = 0;
	for (lp_arena_block *b = r->arena.head; b; b = b->next)
		big += b->size;
	ck_assert_uint_gt(big, 4 * LP_POOL_MAX_BYTES);
	locus_shell_result_free(r);
	ck_assert_uint_gt(kept(p), 0);
	ck_assert_uint_le(kept(p), LP_POOL_MAX_BYTES);
	size_t after = made(p);
	char buf[256];
	for (int i = 0; i < 200; i++) {
		r = parse(p, line(buf, sizeof buf, i));
		locus_shell_result_free(r);
		ck_assert_uint_le(kept(p), LP_POOL_MAX_BYTES);
	}
	ck_assert_uint_eq(made(p), after);
	/* and again: the bound holds with a pool that was full already */
	r = locus_shell_parser_parse(p, s, n);
	ck_assert_ptr_nonnull(r);
	locus_shell_result_free(r);
	ck_assert_uint_le(kept(p), LP_POOL_MAX_BYTES);
	free(s);
	/* many mid-sized results alive at once, each in blocks the pool
	   keeps (4 to 64 KiB): together far past the bound */
	s = semis(400, &n);
	locus_shell_result *live[12];
	size_t all = 0;
	for (int i = 0; i < 12; i++) {
		live[i] = locus_shell_parser_parse(p, s, n);
		ck_assert_ptr_nonnull(live[i]);
		for (lp_arena_block *b = live[i]->arena.head; b; b = b->next)
			all += b->size;
	}
	ck_assert_uint_gt(all, 2 * LP_POOL_MAX_BYTES);
	for (int i = 0; i < 12; i++)
		locus_shell_result_free(live[i]);
	ck_assert_uint_gt(kept(p), LP_POOL_MAX_BYTES / 2);
	ck_assert_uint_le(kept(p), LP_POOL_MAX_BYTES);
	free(s);
	locus_shell_parser_free(p);
}
END_TEST

/* A result outlives its parser: it reads and frees cleanly (ASan would
   report a pool reached after it was freed), and so do results of the
   one-shot locus_shell_parse(), whose parser is gone before it returns. */
START_TEST(pool_result_after_parser)
{
	locus_shell_parser *p;
	ck_assert_int_eq(locus_shell_parser_new(&p, NULL), 0);
	locus_shell_result *keep[8];
	for (int i = 0; i < 8; i++)
		keep[i] = parse(p, i % 2 ? "sudo rm -rf /tmp/x" : "a | b; c");
	/* some go back before the parser is freed, the rest after */
	locus_shell_result_free(keep[0]);
	locus_shell_result_free(keep[1]);
	locus_shell_parser_free(p);
	for (int i = 2; i < 8; i++) {
		const locus_shell_command *c =
		    locus_shell_result_command(keep[i], i % 2 ? 1 : 0);
		ck_assert_ptr_nonnull(c);
		ck_assert_str_eq(c->argv[0], i % 2 ? "rm" : "a");
		ck_assert_ptr_null(c->argv[c->argc]);
		locus_shell_result_free(keep[i]);
	}
	locus_shell_result *r =
	    locus_shell_parse("echo hi | tr a-z A-Z", 20, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(locus_shell_result_count(r), 2);
	ck_assert_str_eq(locus_shell_result_command(r, 1)->name, "tr");
	locus_shell_result_free(r);
}
END_TEST

/* Results freed on another thread while their parser keeps parsing: the
   returned-blocks stack is shared (ASan, and the counts below). */
typedef struct handoff {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	locus_shell_result *q[64];
	size_t head, tail;
	bool done;
	size_t freed, empty;
} handoff;

static void *freer(void *arg)
{
	handoff *h = arg;
	pthread_mutex_lock(&h->mu);
	for (;;) {
		while (h->head == h->tail && !h->done)
			pthread_cond_wait(&h->cv, &h->mu);
		if (h->head == h->tail && h->done)
			break;
		locus_shell_result *r = h->q[h->head++ % 64];
		pthread_cond_broadcast(&h->cv);
		pthread_mutex_unlock(&h->mu);
		bool empty = locus_shell_result_count(r) == 0;
		locus_shell_result_free(r);
		pthread_mutex_lock(&h->mu);
		h->freed++;
		h->empty += empty;
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

START_TEST(pool_results_freed_on_another_thread)
{
	locus_shell_parser *p;
	ck_assert_int_eq(locus_shell_parser_new(&p, NULL), 0);
	handoff h;
	memset(&h, 0, sizeof h);
	pthread_mutex_init(&h.mu, NULL);
	pthread_cond_init(&h.cv, NULL);
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, freer, &h), 0);
	char buf[256];
	for (int i = 0; i < 2000; i++) {
		locus_shell_result *r = parse(p, line(buf, sizeof buf, i));
		pthread_mutex_lock(&h.mu);
		while (h.tail - h.head == 64)
			pthread_cond_wait(&h.cv, &h.mu);
		h.q[h.tail++ % 64] = r;
		pthread_cond_broadcast(&h.cv);
		pthread_mutex_unlock(&h.mu);
	}
	/* the parser goes first; the other thread frees what is left */
	locus_shell_parser_free(p);
	pthread_mutex_lock(&h.mu);
	h.done = true;
	pthread_cond_broadcast(&h.cv);
	pthread_mutex_unlock(&h.mu);
	pthread_join(th, NULL);
	ck_assert_uint_eq(h.freed, 2000);
	ck_assert_uint_eq(h.empty, 0);
	pthread_mutex_destroy(&h.mu);
	pthread_cond_destroy(&h.cv);
}
END_TEST

/* The memory budget counts a reused block as allocated: the same line
   parsed again with a parser whose pool holds its blocks peaks at no less
   than the first time.  (`echo a;` repeated goes through the fast path,
   so tree-sitter's own reuse across parses is not in the figure.) */
START_TEST(pool_budget_counts_reused_blocks)
{
	locus_shell_parser *p;
	ck_assert_int_eq(locus_shell_parser_new(&p, NULL), 0);
	char s[200 * 8 + 1];
	for (int i = 0; i < 200; i++)
		memcpy(s + 8 * i, "echo a; ", 8);
	s[sizeof s - 1] = '\0';
	locus_shell_result *r = locus_shell_parser_parse(p, s, strlen(s));
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(locus_shell_result_count(r), 200);
	size_t first = locus__mem_peak();
	size_t blocks = 0;
	for (lp_arena_block *b = r->arena.head; b; b = b->next)
		blocks += b->size;
	locus_shell_result_free(r);
	/* the arena's blocks are all kept: the second parse reuses them */
	ck_assert_uint_le(blocks, LP_POOL_MAX_BYTES);
	ck_assert_uint_ge(kept(p), blocks);
	size_t m = made(p);
	r = locus_shell_parser_parse(p, s, strlen(s));
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(made(p), m);
	size_t second = locus__mem_peak();
	ck_assert_uint_ge(first, blocks);
	ck_assert_msg(second >= first, "peak %zu, reused %zu", second, first);
	locus_shell_result_free(r);
	locus_shell_parser_free(p);
}
END_TEST

#ifdef T_ASAN
/* A freed result's memory kept by the pool is poisoned: a read of it is a
   use-after-poison report, as a read of freed memory would be. */
START_TEST(pool_kept_blocks_poisoned)
{
	locus_shell_parser *p;
	ck_assert_int_eq(locus_shell_parser_new(&p, NULL), 0);
	locus_shell_result *r = parse(p, "ls -la /tmp");
	const char *name = locus_shell_result_command(r, 0)->name;
	ck_assert(!__asan_address_is_poisoned(name));
	locus_shell_result_free(r);
	ck_assert_uint_gt(kept(p), 0);
	ck_assert(__asan_address_is_poisoned(name));
	/* taken back into use: no longer poisoned */
	r = parse(p, "ls -la /tmp");
	ck_assert(!__asan_address_is_poisoned(
	    locus_shell_result_command(r, 0)->name));
	locus_shell_result_free(r);
	locus_shell_parser_free(p);
}
END_TEST
#endif

/* The zeroing rule: the NULL-ended lists of a command are terminated
   although their memory is no longer zeroed, on a block that held other
   data before (reused). */
START_TEST(arena_terminators_on_reused_blocks)
{
	locus_shell_parser *p;
	ck_assert_int_eq(locus_shell_parser_new(&p, NULL), 0);
	/* fill a block with non-zero bytes, then free it to the pool */
	char big[3000];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	memcpy(big, "echo ", 5);
	locus_shell_result_free(parse(p, big));
	locus_shell_result *r =
	    parse(p, "sudo env A=1 B=2 nice -n 5 rm -f x y; FOO=1 ls");
	size_t n = locus_shell_result_count(r);
	ck_assert_uint_ge(n, 4);
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *c = locus_shell_result_command(r, i);
		ck_assert_ptr_null(c->argv[c->argc]);
		ck_assert_uint_eq(c->argv_flags[c->argc], 0);
		ck_assert_ptr_null(c->words[c->nwords]);
		ck_assert_ptr_null(c->wrappers[c->nwrappers]);
		ck_assert_ptr_null(c->assignments[c->nassignments]);
	}
	const locus_shell_command *rm = NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(locus_shell_result_command(r, i)->name, "rm"))
			rm = locus_shell_result_command(r, i);
	ck_assert_ptr_nonnull(rm);
	ck_assert_uint_eq(rm->nwrappers, 3);
	ck_assert_uint_eq(rm->nassignments, 2);
	ck_assert_str_eq(rm->assignments[1], "B=2");
	locus_shell_result_free(r);
	locus_shell_parser_free(p);
}
END_TEST

/* The first LP_FIRST_COMMANDS commands live in the arena; past them both
   arrays move to the heap with their contents (names, pipe producers). */
START_TEST(arena_commands_then_heap)
{
	locus_shell_parser *p;
	ck_assert_int_eq(locus_shell_parser_new(&p, NULL), 0);
	locus_shell_result *r = parse(p, "a | b | c");
	ck_assert_uint_eq(locus_shell_result_count(r), 3);
	ck_assert(r->commands_in_arena);
	ck_assert_uint_eq(r->producers[0], LOCUS_SHELL_NO_PARENT);
	ck_assert_uint_eq(r->producers[1], 0);
	ck_assert_uint_eq(r->producers[2], 1);
	locus_shell_result_free(r);
	static const char *const names[] = {"a", "b", "c", "d", "e",
	                                    "f", "g", "h", "i"};
	for (unsigned fast = 0; fast < 2; fast++) {
		locus_shell_options o = LOCUS_SHELL_OPTIONS_INIT;
		o.flags = fast ? 0 : LOCUS_SHELL_NO_FASTPATH;
		locus_shell_parser *q;
		ck_assert_int_eq(locus_shell_parser_new(&q, &o), 0);
		r = parse(q, "a | b | c | d | e | f | g | h | i");
		ck_assert_uint_eq(locus_shell_result_count(r), 9);
		ck_assert(!r->commands_in_arena);
		for (size_t i = 0; i < 9; i++) {
			ck_assert_str_eq(locus_shell_result_command(r, i)->name,
			                 names[i]);
			ck_assert_uint_eq(r->producers[i],
			                  i ? i - 1 : LOCUS_SHELL_NO_PARENT);
		}
		locus_shell_result_free(r);
		locus_shell_parser_free(q);
	}
	locus_shell_parser_free(p);
}
END_TEST

/* The walk's heap scratch (frames, log, node lists) is kept by the parser
   across lines, but not past LP_SPARE_MAX_BYTES a buffer. */
START_TEST(spare_kept_and_bounded)
{
	locus_shell_options o = LOCUS_SHELL_OPTIONS_INIT;
	o.flags = LOCUS_SHELL_NO_FASTPATH; /* the tree walk */
	o.budget_ms = 60000;
	locus_shell_parser *p;
	ck_assert_int_eq(locus_shell_parser_new(&p, &o), 0);
	locus_shell_result_free(parse(p, "echo $(date) | grep x > out"));
	ck_assert_ptr_nonnull(p->spare[LP_SPARE_FRAMES].v);
	ck_assert_ptr_nonnull(p->spare[LP_SPARE_WORDS].v);
	void *frames = p->spare[LP_SPARE_FRAMES].v;
	locus_shell_result_free(parse(p, "ls -la; cat x | wc -l"));
	ck_assert_ptr_eq(p->spare[LP_SPARE_FRAMES].v, frames);
	/* a command of 20,000 words: its node list is past the bound */
	size_t k = 20000, n = 0;
	char *s = malloc(2 * k + 8);
	ck_assert_ptr_nonnull(s);
	memcpy(s, "echo", 4);
	n = 4;
	for (size_t i = 0; i < k; i++) {
		memcpy(s + n, " a", 2);
		n += 2;
	}
	locus_shell_result *r = locus_shell_parser_parse(p, s, n);
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(locus_shell_result_parsed(r), "%s",
	              locus_shell_result_reason(r));
	ck_assert_uint_eq(locus_shell_result_command(r, 0)->argc, k + 1);
	locus_shell_result_free(r);
	ck_assert_uint_le(p->spare[LP_SPARE_WORDS].cap * sizeof(TSNode),
	                  LP_SPARE_MAX_BYTES);
	free(s);
	/* nested walks (each substitution is a script) borrow and give back
	   without mixing up buffers */
	r = parse(p, "echo $(a $(b $(c))) `d` <(e) | f");
	ck_assert_uint_ge(locus_shell_result_count(r), 6);
	locus_shell_result_free(r);
	locus_shell_parser_free(p);
}
END_TEST

/* A pass that parses nested scripts while it reads a command must not
   keep a pointer into the command array, which those scripts' commands
   may move (lp_checks_env kept one: a use after free under ASan, found by
   fuzz-bypass once the first arrays got smaller; before, lines past 16
   commands had it).  Every array size is crossed: m commands in front. */
START_TEST(env_pass_survives_array_move)
{
	static const char *const want[] = {"a1", "a2", "b1", "b2",
	                                   "c1", "c2", "git"};
	for (unsigned fast = 0; fast < 2; fast++) {
		locus_shell_options o = LOCUS_SHELL_OPTIONS_INIT;
		o.flags = fast ? 0 : LOCUS_SHELL_NO_FASTPATH;
		locus_shell_parser *p;
		ck_assert_int_eq(locus_shell_parser_new(&p, &o), 0);
		for (int m = 0; m < 40; m++) {
			char s[1024] = "";
			for (int i = 0; i < m; i++)
				strcat(s, "true; ");
			strcat(s, "GIT_PAGER='a1; a2' EDITOR='b1; b2' "
			          "git log; export PAGER='c1; c2'");
			locus_shell_result *r = parse(p, s);
			for (size_t k = 0; k < sizeof want / sizeof *want;
			     k++) {
				bool found = false;
				for (size_t i = 0;
				     i < locus_shell_result_count(r); i++)
					found |= !strcmp(
					    locus_shell_result_command(r, i)
					        ->name,
					    want[k]);
				ck_assert_msg(found, "m=%d: no %s in %s", m,
				              want[k], s);
			}
			locus_shell_result_free(r);
		}
		locus_shell_parser_free(p);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("arena");
	TCase *tc = tcase_create("pool");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, pool_reuses_blocks_across_lines);
	tcase_add_test(tc, pool_bound_after_huge_line);
	tcase_add_test(tc, pool_result_after_parser);
	tcase_add_test(tc, pool_results_freed_on_another_thread);
	tcase_add_test(tc, pool_budget_counts_reused_blocks);
#ifdef T_ASAN
	tcase_add_test(tc, pool_kept_blocks_poisoned);
#endif
	tcase_add_test(tc, arena_terminators_on_reused_blocks);
	tcase_add_test(tc, arena_commands_then_heap);
	tcase_add_test(tc, spare_kept_and_bounded);
	tcase_add_test(tc, env_pass_survives_array_move);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
