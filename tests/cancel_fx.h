/*
 * tests/cancel_fx.h - a thread that cancels a call after a while, and a
 * progress counter, for the exec_ctl tests of the sandbox sessions
 * (test_oci.c, test_openshell.c).  Header-only.
 */
#ifndef LOCUS_TESTS_CANCEL_FX_H
#define LOCUS_TESTS_CANCEL_FX_H

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "locus/harness.h"

typedef struct canceller {
	locus_call_ctl ctl;
	double after_s;
	int progress_calls;
	/* When set: files that must have content before the wait starts (a
	   loaded machine can take longer than after_s to start the command,
	   and a cancel before it ran proves nothing). */
	const char *ready[2];
	double cancelled_at; /* cancel_fx_now() when the cancel was sent */
	pthread_t th;
} canceller;

static inline double cancel_fx_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cancel_fx_has_content(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	int ch = fgetc(f);
	fclose(f);
	return ch != EOF;
}

static void *cancel_fx_thread(void *p)
{
	canceller *c = p;
	/* at most 60 s for the command to start, polled every 50 ms */
	for (int i = 0; i < 1200; i++) {
		int ready = 1;
		for (int k = 0; k < 2; k++)
			if (c->ready[k] && !cancel_fx_has_content(c->ready[k]))
				ready = 0;
		if (ready)
			break;
		usleep(50000);
	}
	usleep((useconds_t)(c->after_s * 1e6));
	c->cancelled_at = cancel_fx_now();
	locus_call_cancel(&c->ctl);
	return NULL;
}

static void cancel_fx_progress(double elapsed, size_t bytes, void *p)
{
	(void)elapsed;
	(void)bytes;
	((canceller *)p)->progress_calls++;
}

/* Start: c->ctl is cancelled after_s seconds after both ready files (NULL:
   none) have content, or from now; progress counted. */
static inline int cancel_fx_start_when(canceller *c, double after_s,
                                       const char *ready0, const char *ready1)
{
	locus_call_ctl init = LOCUS_CALL_CTL_INIT;
	c->ctl = init;
	c->ctl.progress = cancel_fx_progress;
	c->ctl.payload = c;
	c->after_s = after_s;
	c->progress_calls = 0;
	c->ready[0] = ready0;
	c->ready[1] = ready1;
	c->cancelled_at = 0;
	return pthread_create(&c->th, NULL, cancel_fx_thread, c);
}

/* Start: c->ctl is cancelled after_s seconds from now; progress counted. */
static inline int cancel_fx_start(canceller *c, double after_s)
{
	return cancel_fx_start_when(c, after_s, NULL, NULL);
}

static inline void cancel_fx_join(canceller *c)
{
	pthread_join(c->th, NULL);
}

/*
 * Run a ticking command under exec_ctl, cancelled after 1.6 s: a loop
 * writing a counter to PREFIXtick every 50 ms, and a setsid child doing
 * the same to PREFIXesc.  It must come back cancelled (exit -1) within
 * 10 s of the cancel, with progress reported on the way.  host_dir, when
 * not NULL, is where the host sees those two files: the 1.6 s then count
 * from the moment both have content, so a slow start is not a cancel of
 * a command that never ran.  Each count is written whole (a temporary file
 * renamed over it): a kill mid-write never leaves a file empty.
 */
static inline void cancel_fx_ticker(locus_session *s, const char *prefix,
                                    const char *host_dir)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd,
	         "setsid sh -c 'i=0; while :; do i=$((i+1)); echo $i > "
	         "%sesc.n; mv -f %sesc.n %sesc; sleep 0.05; done' & i=0; "
	         "while :; do i=$((i+1)); echo $i > %stick.n; "
	         "mv -f %stick.n %stick; sleep 0.05; done",
	         prefix, prefix, prefix, prefix, prefix, prefix);
	canceller c;
	char tick[512] = "", esc[512] = "";
	if (host_dir) {
		snprintf(tick, sizeof tick, "%s/tick", host_dir);
		snprintf(esc, sizeof esc, "%s/esc", host_dir);
	}
	ck_assert_int_eq(cancel_fx_start_when(&c, 1.6, host_dir ? tick : NULL,
	                                      host_dir ? esc : NULL),
	                 0);
	int code = 0;
	char *out = NULL;
	size_t len;
	bool cancelled = false;
	locus_error err;
	int rc = s->exec_ctl(s, cmd, 60, &c.ctl, &code, &out, &len, &cancelled,
	                     &err);
	double end = cancel_fx_now();
	cancel_fx_join(&c);
	double took = end - c.cancelled_at;
	ck_assert_msg(rc == 0, "%s", err.message);
	ck_assert(cancelled);
	ck_assert_int_eq(code, -1);
	ck_assert_msg(c.cancelled_at > 0, "the call ended before the cancel");
	ck_assert_msg(took < 10, "cancel took %.1f s", took);
	ck_assert_int_ge(c.progress_calls, 1);
	free(out);
}

#endif
