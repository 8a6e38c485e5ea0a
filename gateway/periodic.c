/*
 * gateway/periodic.c - a background thread's loop: one sweep every so
 * often until the server stops (the approval sweeper of expiry.c and the
 * OpenShell box monitor of box_openshell.c), and its start and stop.
 */
#include "gateway/gw.h"

#include "util/clock.h"
#include "util/error.h"

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

int gw_thread_start(gw_server *s, pthread_t *th, bool *running,
                    void *(*body)(void *), const char *what, locus_error *err)
{
	if (pthread_create(th, NULL, body, s))
		return lu_err(err, LOCUS_EIO, "%s could not start", what);
	*running = true;
	return 0;
}

void gw_thread_stop(gw_server *s, pthread_t *th, bool *running)
{
	if (!*running)
		return;
	pthread_mutex_lock(&s->change_lock);
	s->stopping = 1;
	pthread_cond_broadcast(&s->stop_cond);
	pthread_mutex_unlock(&s->change_lock);
	pthread_join(*th, NULL);
	*running = false;
}
