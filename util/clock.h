/*
 * util/clock.h - the monotonic clock in seconds, for deadlines and
 * progress (never for the wall-clock time of day), and the deadlines
 * built on it.  The only file that reads the clocks is util/clock.c
 * (tests/test_layers.py fails on a direct CLOCK_MONOTONIC read elsewhere).
 */
#ifndef LOCUS_UTIL_CLOCK_H
#define LOCUS_UTIL_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in seconds. */
double lu_now(void);

/* *d = the monotonic clock `ms` milliseconds from now (a deadline for
   lu_deadline_passed: the parser's time budget of a line). */
void lu_deadline_ms(struct timespec *d, uint64_t ms);

/* The monotonic clock has reached *d (lu_deadline_ms). */
bool lu_deadline_passed(const struct timespec *d);

/* *d = CLOCK_REALTIME `ms` milliseconds from now: the absolute time
   pthread_cond_timedwait takes (a condition variable's default clock),
   not a time of day to show or record. */
void lu_cond_deadline_ms(struct timespec *d, int64_t ms);

#endif
