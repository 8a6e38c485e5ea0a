/*
 * util/clock.h - the monotonic clock in seconds, for deadlines and
 * progress (never for the wall-clock time of day).
 */
#ifndef LOCUS_UTIL_CLOCK_H
#define LOCUS_UTIL_CLOCK_H

/* CLOCK_MONOTONIC in seconds. */
double lu_now(void);

#endif
