/*
 * util/error.c - filling a locus_error (see error.h).
 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int lu_err(locus_error *err, int code, const char *fmt, ...)
{
	if (err) {
		memset(err, 0, sizeof *err);
		err->code = code;
		err->offset = -1;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
	}
	return code;
}
