/*
 * backends/jail.h - the pieces of `locus jail` (backends/jail*.c), not
 * public; the API is locus_jail_run() in locus/harness.h.
 *
 *   jail.c          the profile, the bwrap command line, the run
 *   jail_seccomp.c  the filter that keeps setuid/setgid bits out
 */
#ifndef LOCUS_HARNESS_JAIL_H
#define LOCUS_HARNESS_JAIL_H

#include "locus/harness.h"

/* A file descriptor holding the seccomp program (classic BPF, as bwrap's
 * --seccomp reads it), positioned at its start, close-on-exec; or a
 * negative locus error code. */
int lh_jail_seccomp_fd(locus_error *err);

#endif
