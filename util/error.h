/*
 * util/error.h - filling a locus_error: the one error setter below the
 * harness, the backends, the protocol clients and the runner.
 */
#ifndef LOCUS_UTIL_ERROR_H
#define LOCUS_UTIL_ERROR_H

#include "locus/common.h"

/* Fill err (if any: NULL is allowed) with code, offset -1 and the
   formatted message (cut to the message's size); return code. */
int lu_err(locus_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
