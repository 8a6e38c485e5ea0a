/*
 * fuzz_bypass - the metamorphic bypass fuzzer (issue 4, docs/fuzzing.md).
 *
 *   fuzz_bypass [--seed N] [--count N] [--time SECONDS] [--one SEED]
 *               [--emit] [--quiet] CORPUS_PATH...
 *
 * Loads the corpus lines locus tags with a dangerous exec:* tag, rewrites
 * them with gen_transform() and checks the invariant: the new line keeps
 * every such tag of the original or is exec:unparsed, and is never
 * workspace.read.  A violation prints a BYPASS line with the case seed
 * (`--one SEED` replays exactly that case).  Exit status: 0 no bypass, 1
 * bypasses found, 2 usage or setup error.  `--emit` prints the generated
 * lines NUL-terminated instead of checking them (input for the oracle).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gen.h"
#include "locus/labels.h"
#include "locus/shell.h"

static void print_tags(FILE *f, uint32_t tags)
{
	for (uint32_t b = 1; b < (1u << LOCUS_TAG_COUNT); b <<= 1)
		if (tags & b)
			fprintf(f, " %s", locus_tag_name(b));
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Print a line on one line: a newline as \n and a backslash as \\ (the
   `$e` escapes of the corpus format, so a BYPASS pastes into a case). */
static void print_escaped(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			fputs("\\n", stdout);
		else if (*s == '\\')
			fputs("\\\\", stdout);
		else
			putchar(*s);
	}
}

/* SIGINT/SIGTERM end the run with its summary, like --time. */
static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int dynamic_args(const locus_shell_result *r)
{
	size_t n = r ? locus_shell_result_count(r) : 0;
	for (size_t i = 0; i < n; i++)
		if (locus_shell_result_command(r, i)->flags &
		    LOCUS_CMD_DYNAMIC_ARGS)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t seed = 1, one = 0;
	int have_one = 0, emit = 0, quiet = 0, show_limits = 0;
	unsigned long long count = 100000;
	double limit = 0;
	const char *paths[64];
	size_t npaths = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--count") && i + 1 < argc)
			count = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--time") && i + 1 < argc)
			limit = strtod(argv[++i], NULL);
		else if (!strcmp(a, "--one") && i + 1 < argc) {
			one = strtoull(argv[++i], NULL, 0);
			have_one = 1;
		} else if (!strcmp(a, "--emit"))
			emit = 1;
		else if (!strcmp(a, "--quiet"))
			quiet = 1;
		else if (!strcmp(a, "--limits"))
			show_limits = 1;
		else if (a[0] == '-') {
			fprintf(stderr,
			        "usage: fuzz_bypass [--seed N] [--count N] "
			        "[--time S] [--one SEED] [--emit] [--quiet] "
			        "[--limits] "
			        "CORPUS_PATH...\n");
			return 2;
		} else if (npaths < 64)
			paths[npaths++] = a;
	}
	if (!npaths) {
		fprintf(stderr, "fuzz_bypass: no corpus path given\n");
		return 2;
	}
	locus_shell_parser *p = NULL;
	if (locus_shell_parser_new(&p, NULL) != 0)
		return 2;
	gen_corpus c = {0};
	if (gen_corpus_load(&c, p, paths, npaths, 1) != 0 || c.n == 0) {
		fprintf(stderr, "fuzz_bypass: no tagged corpus lines loaded\n");
		locus_shell_parser_free(p);
		gen_corpus_free(&c);
		return 2;
	}
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	double t0 = now_s();
	unsigned long long done = 0, bypasses = 0, unparsed = 0, limits = 0;
	char trace[256];
	for (unsigned long long it = 0; have_one ? it < 1 : it < count; it++) {
		if (stop_requested ||
		    (limit > 0 && (it & 63) == 0 && now_s() - t0 > limit))
			break;
		uint64_t cs = have_one ? one : gen_mix(seed ^ gen_mix(it));
		const gen_line *base = &c.lines[gen_mix(cs ^ 0x5eed) % c.n];
		char *t = gen_transform(base->text, cs, trace, sizeof trace);
		if (!t)
			break;
		done++;
		if (emit) {
			if (!base->fork_bomb)
				fwrite(t, 1, strlen(t) + 1, stdout);
			free(t);
			continue;
		}
		locus_action *a = NULL;
		if (locus_action_classify(&a, p, t, strlen(t), NULL) != 0) {
			fprintf(stderr, "classify failed on seed %llu\n",
			        (unsigned long long)cs);
			free(t);
			bypasses++;
			continue;
		}
		uint32_t got = locus_action_exec_tags(a);
		uint32_t want = base->tags & GEN_DANGER_TAGS;
		int is_unparsed = (got & LOCUS_TAG_UNPARSED) != 0;
		unparsed += is_unparsed;
		int bad = locus_action_kind(a) == LOCUS_KIND_READ ||
		          (!is_unparsed && (got & want) != want);
		/* Known limit (docs/fuzzing.md): a tag that depends on an
		   argument whose value is only known at run time (`init
		   $(echo 6)`, `git push $F`) is not derived; the command
		   itself stays visible and exec. */
		int limit_case = bad &&
		                 locus_action_kind(a) != LOCUS_KIND_READ &&
		                 dynamic_args(locus_action_shell(a));
		if (limit_case) {
			limits++;
			bad = 0;
			if (show_limits)
				printf("LIMIT seed=%llu dynamic argument: %s\n",
				       (unsigned long long)cs, t);
		}
		if (bad || have_one) {
			printf("%s seed=%llu steps=%s\n  from: $e ",
			       bad ? "BYPASS" : "ok", (unsigned long long)cs,
			       trace);
			print_escaped(base->text);
			printf("\n  to:   $e ");
			print_escaped(t);
			printf("\n  lost:");
			print_tags(stdout, want & ~got);
			printf("\n  got: %s",
			       locus_kind_name(locus_action_kind(a)));
			print_tags(stdout, got);
			printf("\n");
			bypasses += bad;
		}
		locus_action_free(a);
		free(t);
	}
	if (!emit && !quiet)
		fprintf(stderr,
		        "fuzz_bypass: %llu lines from %zu bases in %.1f s, "
		        "%llu unparsed, %llu known-limit, %llu bypasses\n",
		        done, c.n, now_s() - t0, unparsed, limits, bypasses);
	if (!emit)
		printf("%llu lines, %llu bypasses\n", done, bypasses);
	gen_corpus_free(&c);
	locus_shell_parser_free(p);
	return bypasses ? 1 : 0;
}
