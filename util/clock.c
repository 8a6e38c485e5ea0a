/*
 * util/clock.c - the monotonic clock (see clock.h).
 */
#include "clock.h"

double lu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* *d += ms, normalised (tv_nsec below one second). */
static void add_ms(struct timespec *d, uint64_t ms)
{
	d->tv_sec += (time_t)(ms / 1000u);
	d->tv_nsec += (long)(ms % 1000u) * 1000000L;
	if (d->tv_nsec >= 1000000000L) {
		d->tv_sec++;
		d->tv_nsec -= 1000000000L;
	}
}

void lu_deadline_ms(struct timespec *d, uint64_t ms)
{
	clock_gettime(CLOCK_MONOTONIC, d);
	add_ms(d, ms);
}

bool lu_deadline_passed(const struct timespec *d)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > d->tv_sec ||
	       (now.tv_sec == d->tv_sec && now.tv_nsec >= d->tv_nsec);
}

void lu_cond_deadline_ms(struct timespec *d, int64_t ms)
{
	clock_gettime(CLOCK_REALTIME, d);
	add_ms(d, ms > 0 ? (uint64_t)ms : 0);
}
