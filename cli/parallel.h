/*
 * cli/parallel.h - `--jobs N` of the batch commands (locus classify,
 * corpus, audit transcripts; docs/design.md "Batch mode").
 *
 * One loop shape for all three: items 0..n-1 are taken by N threads in
 * turn (an atomic counter), each thread with a state of its own (its own
 * parser: a parser is never shared), and every item's result goes to the
 * item's own slot, so the caller prints the slots in input order and the
 * output is the same bytes whatever N is.  N = 1 runs on the calling
 * thread.
 */
#ifndef LOCUS_CLI_PARALLEL_H
#define LOCUS_CLI_PARALLEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CLI_MAX_JOBS 256

typedef struct cli_parallel {
	size_t jobs; /* 1..CLI_MAX_JOBS */
	/* Per-thread state: made once per thread (NULL: failure), freed at
	   the end.  `arg` is the caller's. */
	void *(*state_new)(void *arg);
	void (*state_free)(void *state, void *arg);
	/* Item i, on some thread, with that thread's state. */
	void (*run)(void *state, size_t i, void *arg);
	void *arg;
} cli_parallel;

/*
 * Run items [from, to).  0, or -1 when a thread or a state could not be
 * made (items may then have run or not: the caller treats it as out of
 * memory).
 */
int cli_parallel_run(const cli_parallel *p, size_t from, size_t to);

/* A thread state that is just a parser of its own (state_new and
   state_free of a cli_parallel). */
void *cli_parallel_parser_new(void *arg);
void cli_parallel_parser_free(void *state, void *arg);

/* "--jobs N": N in 1..CLI_MAX_JOBS into *jobs; false (message printed,
   naming cmd) for anything else. */
bool cli_parse_jobs(const char *cmd, const char *value, size_t *jobs);

/* One item's captured output: what it printed to stdout and stderr
   (open_memstream), printed later in order. */
typedef struct cli_capture {
	char *out, *err;
	size_t out_len, err_len;
	FILE *fout, *ferr;
} cli_capture;

/* Open the two streams; false when they could not be made. */
bool cli_capture_open(cli_capture *c);
/* Close the streams (the text stays). */
void cli_capture_close(cli_capture *c);
/* Write the text to stdout and stderr, then free it. */
void cli_capture_flush(cli_capture *c);
/* Free the text unwritten. */
void cli_capture_discard(cli_capture *c);

#endif
