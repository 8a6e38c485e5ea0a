/*
 * tests/cancel_fx.h - a thread that cancels a call once it has run a while
 * (its first progress report), and a progress counter, for the exec_ctl
 * tests of the sandbox sessions (test_oci.c, test_openshell.c).
 * Header-only.
 */
#ifndef LOCUS_TESTS_CANCEL_FX_H
#define LOCUS_TESTS_CANCEL_FX_H

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "locus/harness.h"

typedef struct canceller {
	locus_call_ctl ctl;
	int progress_calls; /* atomic: the call's thread counts, the
	                       canceller reads */
	/* When set: files that must have content before the cancel (a cancel
	   before the command ran proves nothing). */
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

/* Cancel once the ready files have content and the first progress report
   came (the command has run a while: an event, not a time).  Polled every
   50 ms for at most 120 s, a hang guard only: the cancel is sent then
   anyway, and the test fails on what did not happen. */
static void *cancel_fx_thread(void *p)
{
	canceller *c = p;
	for (int i = 0; i < 2400; i++) {
		int ready =
		    __atomic_load_n(&c->progress_calls, __ATOMIC_ACQUIRE) > 0;
		for (int k = 0; k < 2; k++)
			if (c->ready[k] && !cancel_fx_has_content(c->ready[k]))
				ready = 0;
		if (ready)
			break;
		usleep(50000);
	}
	c->cancelled_at = cancel_fx_now();
	locus_call_cancel(&c->ctl);
	return NULL;
}

static void cancel_fx_progress(double elapsed, size_t bytes, void *p)
{
	(void)elapsed;
	(void)bytes;
	__atomic_add_fetch(&((canceller *)p)->progress_calls, 1,
	                   __ATOMIC_RELEASE);
}

/* Start: c->ctl is cancelled at the first progress report once both
   ready files (NULL: none) have content. */
static inline int cancel_fx_start(canceller *c, const char *ready0,
                                  const char *ready1)
{
	locus_call_ctl init = LOCUS_CALL_CTL_INIT;
	c->ctl = init;
	c->ctl.progress = cancel_fx_progress;
	c->ctl.payload = c;
	c->progress_calls = 0;
	c->ready[0] = ready0;
	c->ready[1] = ready1;
	c->cancelled_at = 0;
	return pthread_create(&c->th, NULL, cancel_fx_thread, c);
}

/* The process whose pid the file at path holds has ended (gone, or a
   zombie): polled every 20 ms for at most 60 s, a hang guard (a killed
   process takes a moment to go on a loaded machine).  False when it
   still runs then, or the file holds no pid. */
static inline bool cancel_fx_pid_gone(const char *path)
{
	FILE *f = fopen(path, "r");
	long pid = 0;
	if (f) {
		if (fscanf(f, "%ld", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	if (pid <= 0)
		return false;
	char stat[64], st[512];
	snprintf(stat, sizeof stat, "/proc/%ld/stat", pid);
	for (int i = 0; i < 3000; i++) {
		FILE *fp = fopen(stat, "r");
		if (!fp)
			return true;
		size_t n = fread(st, 1, sizeof st - 1, fp);
		fclose(fp);
		st[n] = '\0';
		const char *c = strrchr(st, ')');
		if (c && c[1] == ' ' && (c[2] == 'Z' || c[2] == 'X'))
			return true;
		usleep(20000);
	}
	return false;
}

static inline void cancel_fx_join(canceller *c)
{
	pthread_join(c->th, NULL);
}

/*
 * Run a ticking command under exec_ctl, cancelled at its first progress
 * report (so it has run a while; an event, not a time): a loop writing a
 * counter to PREFIXtick every 50 ms, and a setsid child doing the same to
 * PREFIXesc, each writing its pid first to PREFIXtick.pid / PREFIXesc.pid.
 * It must come back cancelled (exit -1), not at its 60 s timeout (a hang
 * guard: the loops never end on their own).  host_dir, when not NULL, is where the host sees
 * those files: the cancel then also waits until both counters have
 * content.  Each count is written whole (a temporary file renamed over
 * it): a kill mid-write never leaves a file empty.
 */
static inline void cancel_fx_ticker(locus_session *s, const char *prefix,
                                    const char *host_dir)
{
	char cmd[768];
	snprintf(cmd, sizeof cmd,
	         "setsid sh -c 'echo $$ > %sesc.pid; i=0; while :; do "
	         "i=$((i+1)); echo $i > %sesc.n; mv -f %sesc.n %sesc; sleep "
	         "0.05; done' & echo $$ > %stick.pid; i=0; "
	         "while :; do i=$((i+1)); echo $i > %stick.n; "
	         "mv -f %stick.n %stick; sleep 0.05; done",
	         prefix, prefix, prefix, prefix, prefix, prefix, prefix,
	         prefix);
	canceller c;
	char tick[512] = "", esc[512] = "";
	if (host_dir) {
		snprintf(tick, sizeof tick, "%s/tick", host_dir);
		snprintf(esc, sizeof esc, "%s/esc", host_dir);
	}
	ck_assert_int_eq(
	    cancel_fx_start(&c, host_dir ? tick : NULL, host_dir ? esc : NULL),
	    0);
	int code = 0;
	char *out = NULL;
	size_t len;
	bool cancelled = false;
	locus_error err;
	int rc = s->exec_ctl(s, cmd, 60, &c.ctl, &code, &out, &len, &cancelled,
	                     &err);
	cancel_fx_join(&c);
	ck_assert_msg(rc == 0, "%s", err.message);
	ck_assert(cancelled);
	ck_assert_int_eq(code, -1);
	ck_assert_msg(c.cancelled_at > 0, "the call ended before the cancel");
	ck_assert_int_ge(c.progress_calls, 1);
	free(out);
}

#endif
