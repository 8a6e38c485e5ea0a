/*
 * fuzz_bypass - the metamorphic bypass fuzzer (docs/fuzzing.md).
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

#include "policy/fuzz_gen.h"
#include "util/clock.h"
#include "locus/labels.h"
#include "locus/policy.h"
#include "locus/shell.h"

static void print_tags(FILE *f, uint32_t tags)
{
	for (uint32_t b = 1; b < (1u << LOCUS_TAG_COUNT); b <<= 1)
		if (tags & b)
			fprintf(f, " %s", locus_tag_name(b));
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

/* `name` is the name of some command of `r` that has LOCUS_CMD_DYNAMIC_ARGS
   (want_dynamic) or of any command (!want_dynamic). */
static int has_command(const locus_shell_result *r, const char *name,
                       int want_dynamic)
{
	size_t n = r ? locus_shell_result_count(r) : 0;
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *c = locus_shell_result_command(r, i);
		if (strcmp(c->name, name) == 0 &&
		    (!want_dynamic || (c->flags & LOCUS_CMD_DYNAMIC_ARGS)))
			return 1;
	}
	return 0;
}

/*
 * The known limit (docs/fuzzing.md): a tag that needs the literal value
 * of an argument computed at run time (`init $(echo 6)`, `rm $(echo -rf)
 * /`, `git push $F`).  Such a word is matched as any value (labels/
 * dynamic.c), so every tag but the floor's exec:never is kept; the case
 * passes only when all of this holds, and `why` says what did not:
 *  - the only tag lost is exec:never (the floor needs the literal);
 *  - the line is workspace.exec;
 *  - every program of the original is still a command, and one of them
 *    has LOCUS_CMD_DYNAMIC_ARGS (the run-time word is where it was);
 *  - the default policy (the `standard` preset) does not allow it.
 */
static int limit_ok(const locus_action *a, const locus_action *base,
                    const locus_policy *standard, uint32_t lost,
                    const char **why)
{
	const locus_shell_result *r = locus_action_shell(a);
	const locus_shell_result *b = locus_action_shell(base);
	if (lost & ~LOCUS_TAG_NEVER) {
		*why = "a tag other than exec:never was lost";
		return 0;
	}
	if (locus_action_kind(a) != LOCUS_KIND_EXEC) {
		*why = "not workspace.exec";
		return 0;
	}
	int dynamic = 0;
	size_t nb = b ? locus_shell_result_count(b) : 0;
	for (size_t i = 0; i < nb; i++) {
		const char *name = locus_shell_result_command(b, i)->name;
		if (!name[0])
			continue;
		if (!has_command(r, name, 0)) {
			*why = "a program of the original is not listed";
			return 0;
		}
		dynamic |= has_command(r, name, 1);
	}
	if (!dynamic) {
		*why = "no program of the original has a run-time argument";
		return 0;
	}
	locus_decision *d = NULL;
	int rc = locus_decide(&d, standard, a, NULL, NULL);
	locus_outcome o = locus_decision_outcome(d);
	locus_decision_free(d);
	if (rc != 0 || o == LOCUS_OUTCOME_ALLOW) {
		*why = "the standard preset allows it";
		return 0;
	}
	return 1;
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
	locus_policy *standard = NULL;
	if (locus_policy_preset(&standard, "standard", NULL) != 0) {
		locus_shell_parser_free(p);
		return 2;
	}
	gen_corpus c = {0};
	if (gen_corpus_load(&c, p, paths, npaths, 1) != 0 || c.n == 0) {
		fprintf(stderr, "fuzz_bypass: no tagged corpus lines loaded\n");
		locus_shell_parser_free(p);
		locus_policy_free(standard);
		gen_corpus_free(&c);
		return 2;
	}
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	double t0 = lu_now();
	unsigned long long done = 0, bypasses = 0, unparsed = 0, limits = 0;
	char trace[256];
	for (unsigned long long it = 0; have_one ? it < 1 : it < count; it++) {
		if (stop_requested ||
		    (limit > 0 && (it & 63) == 0 && lu_now() - t0 > limit))
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
		/* Known limit (limit_ok): a dynamic argument costs at most
		   the floor's exec:never, and the line is still held. */
		const char *why = NULL;
		if (bad && locus_action_kind(a) != LOCUS_KIND_READ &&
		    (got & LOCUS_TAG_UNPARSED) == 0) {
			locus_action *ba = NULL;
			if (locus_action_classify(&ba, p, base->text,
			                          strlen(base->text),
			                          NULL) == 0 &&
			    limit_ok(a, ba, standard, want & ~got, &why)) {
				limits++;
				bad = 0;
				if (show_limits) {
					printf("LIMIT seed=%llu dynamic "
					       "argument: $e ",
					       (unsigned long long)cs);
					print_escaped(t);
					putchar('\n');
				}
			}
			locus_action_free(ba);
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
			if (why)
				printf("\n  limit: %s", why);
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
		        done, c.n, lu_now() - t0, unparsed, limits, bypasses);
	if (!emit)
		printf("%llu lines, %llu bypasses\n", done, bypasses);
	gen_corpus_free(&c);
	locus_shell_parser_free(p);
	locus_policy_free(standard);
	return bypasses ? 1 : 0;
}
