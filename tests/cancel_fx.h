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
	pthread_t th;
} canceller;

static void *cancel_fx_thread(void *p)
{
	canceller *c = p;
	usleep((useconds_t)(c->after_s * 1e6));
	locus_call_cancel(&c->ctl);
	return NULL;
}

static void cancel_fx_progress(double elapsed, size_t bytes, void *p)
{
	(void)elapsed;
	(void)bytes;
	((canceller *)p)->progress_calls++;
}

/* Start: c->ctl is cancelled after_s seconds from now; progress counted. */
static inline int cancel_fx_start(canceller *c, double after_s)
{
	locus_call_ctl init = LOCUS_CALL_CTL_INIT;
	c->ctl = init;
	c->ctl.progress = cancel_fx_progress;
	c->ctl.payload = c;
	c->after_s = after_s;
	c->progress_calls = 0;
	return pthread_create(&c->th, NULL, cancel_fx_thread, c);
}

static inline void cancel_fx_join(canceller *c)
{
	pthread_join(c->th, NULL);
}

static inline double cancel_fx_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Run a ticking command under exec_ctl, cancelled after 1.6 s: a loop
 * writing a counter to PREFIXtick every 50 ms, and a setsid child doing
 * the same to PREFIXesc.  It must come back cancelled (exit -1) within
 * 10 s, with progress reported on the way.
 */
static inline void cancel_fx_ticker(locus_session *s, const char *prefix)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd,
	         "setsid sh -c 'i=0; while :; do i=$((i+1)); echo $i > "
	         "%sesc; sleep 0.05; done' & i=0; while :; do i=$((i+1)); "
	         "echo $i > %stick; sleep 0.05; done",
	         prefix, prefix);
	canceller c;
	ck_assert_int_eq(cancel_fx_start(&c, 1.6), 0);
	int code = 0;
	char *out = NULL;
	size_t len;
	bool cancelled = false;
	locus_error err;
	double t0 = cancel_fx_now();
	int rc = s->exec_ctl(s, cmd, 60, &c.ctl, &code, &out, &len, &cancelled,
	                     &err);
	double took = cancel_fx_now() - t0;
	cancel_fx_join(&c);
	ck_assert_msg(rc == 0, "%s", err.message);
	ck_assert(cancelled);
	ck_assert_int_eq(code, -1);
	ck_assert_msg(took < 10, "cancel took %.1f s", took);
	ck_assert_int_ge(c.progress_calls, 1);
	free(out);
}

#endif
