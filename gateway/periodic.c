/*
 * gateway/periodic.c - a background thread's loop: one sweep every so
 * often until the server stops (the approval sweeper of expiry.c and the
 * OpenShell box monitor of box_openshell.c).
 */
#include "gateway/gw.h"

#include "util/clock.h"

void gw_every(gw_server *s, int64_t every_ms,
              int (*sweep)(gw_server *s, locus_error *err))
{
	pthread_mutex_lock(&s->change_lock);
	while (!s->stopping) {
		struct timespec ts;
		lu_cond_deadline_ms(&ts, every_ms);
		pthread_cond_timedwait(&s->stop_cond, &s->change_lock, &ts);
		if (s->stopping)
			break;
		pthread_mutex_unlock(&s->change_lock);
		locus_error err;
		sweep(s, &err); /* a failed sweep: the next one */
		pthread_mutex_lock(&s->change_lock);
	}
	pthread_mutex_unlock(&s->change_lock);
}
