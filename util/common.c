/* util/common.c - version and error-code names (shared by every module). */
#include <stdlib.h>

#include "locus/common.h"

const char *locus_version(void)
{
	return LOCUS_VERSION;
}

const char *locus_error_code_name(int code)
{
	switch (code) {
	case LOCUS_OK: return "ok";
	case LOCUS_ENOMEM: return "out of memory";
	case LOCUS_EINVALID: return "invalid input";
	case LOCUS_EUSAGE: return "usage error";
	case LOCUS_ENOTFOUND: return "not found";
	case LOCUS_EIO: return "i/o error";
	case LOCUS_EPATTERN: return "pattern limit";
	case LOCUS_ETOOBIG: return "too big";
	case LOCUS_EDENIED: return "denied";
	case LOCUS_ETIMEOUT: return "timed out";
	case LOCUS_ECONFLICT: return "changed since it was read";
	}
	return "unknown error";
}

void locus_free(void *ptr)
{
	free(ptr);
}
