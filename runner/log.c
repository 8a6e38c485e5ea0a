/*
 * runner/log.c - .locus/runner.log: one line per step, with names,
 * statuses and counts only.  Callers never pass a value that could be a
 * secret (the token, a placeholder, a decision token, a request body).
 */
#include "runner/runner.h"

#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

void lr_log_open(lr_log *l, const char *path)
{
	l->f = fopen(path, "ae");
	if (l->f)
		setvbuf(l->f, NULL, _IOLBF, 0);
}

void lr_logf(lr_log *l, const char *fmt, ...)
{
	if (!l || !l->f)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	char when[32];
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(l->f, "%s.%03ldZ [%ld] ", when, ts.tv_nsec / 1000000,
	        (long)getpid());
	va_list ap;
	va_start(ap, fmt);
	vfprintf(l->f, fmt, ap);
	va_end(ap);
	fputc('\n', l->f);
}

char *lr_strf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *t = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (t) {
		va_start(ap, fmt);
		vsnprintf(t, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	return t;
}

void lr_log_close(lr_log *l)
{
	if (l->f)
		fclose(l->f);
	l->f = NULL;
}
