/*
 * cli/parallel.c - the threads of `--jobs N` (see parallel.h).
 */
#include "parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "locus/shell.h"

typedef struct pjob {
	const cli_parallel *p;
	atomic_size_t next;
	size_t to;
	atomic_bool failed;
} pjob;

static void *worker(void *vp)
{
	pjob *j = vp;
	void *st = j->p->state_new ? j->p->state_new(j->p->arg) : NULL;
	if (j->p->state_new && !st) {
		atomic_store(&j->failed, true);
		return NULL;
	}
	for (;;) {
		size_t i = atomic_fetch_add(&j->next, 1);
		if (i >= j->to)
			break;
		j->p->run(st, i, j->p->arg);
	}
	if (j->p->state_free)
		j->p->state_free(st, j->p->arg);
	return NULL;
}

int cli_parallel_run(const cli_parallel *p, size_t from, size_t to)
{
	pjob j = {.p = p, .to = to};
	atomic_init(&j.next, from);
	atomic_init(&j.failed, false);
	size_t n = p->jobs < 1 ? 1 : p->jobs;
	if (n > to - from)
		n = to - from ? to - from : 1;
	if (n == 1) {
		worker(&j);
		return atomic_load(&j.failed) ? -1 : 0;
	}
	pthread_t th[CLI_MAX_JOBS];
	size_t started = 0;
	for (; started < n && started < CLI_MAX_JOBS; started++)
		if (pthread_create(&th[started], NULL, worker, &j))
			break;
	if (started == 0)
		worker(&j); /* no thread at all: do it here */
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	return atomic_load(&j.failed) ? -1 : 0;
}

void *cli_parallel_parser_new(void *arg)
{
	(void)arg;
	locus_shell_parser *p = NULL;
	return locus_shell_parser_new(&p, NULL) ? NULL : p;
}

void cli_parallel_parser_free(void *state, void *arg)
{
	(void)arg;
	locus_shell_parser_free(state);
}

bool cli_parse_jobs(const char *cmd, const char *value, size_t *jobs)
{
	char *end;
	long v = strtol(value, &end, 10);
	if (!*value || *end || v < 1 || v > CLI_MAX_JOBS) {
		fprintf(stderr,
		        "locus %s: --jobs takes a number of threads, "
		        "1 to %d\n",
		        cmd, CLI_MAX_JOBS);
		return false;
	}
	*jobs = (size_t)v;
	return true;
}

bool cli_capture_open(cli_capture *c)
{
	memset(c, 0, sizeof *c);
	c->fout = open_memstream(&c->out, &c->out_len);
	c->ferr = c->fout ? open_memstream(&c->err, &c->err_len) : NULL;
	if (!c->ferr) {
		if (c->fout)
			fclose(c->fout);
		free(c->out);
		memset(c, 0, sizeof *c);
		return false;
	}
	return true;
}

void cli_capture_close(cli_capture *c)
{
	if (c->fout)
		fclose(c->fout);
	if (c->ferr)
		fclose(c->ferr);
	c->fout = c->ferr = NULL;
}

void cli_capture_flush(cli_capture *c)
{
	cli_capture_close(c);
	if (c->out_len)
		fwrite(c->out, 1, c->out_len, stdout);
	if (c->err_len)
		fwrite(c->err, 1, c->err_len, stderr);
	free(c->out);
	free(c->err);
	memset(c, 0, sizeof *c);
}

void cli_capture_discard(cli_capture *c)
{
	cli_capture_close(c);
	free(c->out);
	free(c->err);
	memset(c, 0, sizeof *c);
}
