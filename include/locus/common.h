/*
 * locus/common.h - error codes, the error detail struct and version.
 *
 * Every fallible function in liblocus returns 0 or a negative LOCUS_E* code.
 * The numbers are part of the ABI: they are never renumbered, and a retired
 * code keeps its number.  Error detail goes into an optional caller-owned
 * locus_error; the library has no global or thread-local "last error".
 */
#ifndef LOCUS_COMMON_H
#define LOCUS_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * LOCUS_API marks the public API: liblocus is built with hidden visibility
 * by default (meson.build), so only what carries this macro, every
 * locus_* function and table of include/locus/, leaves liblocus.so
 * (tree-sitter's ts_*, nanopb and the internals do not; docs/api.md,
 * tests/test_exports.sh).
 */
#if defined(__GNUC__) || defined(__clang__)
#define LOCUS_API __attribute__((visibility("default")))
#else
#define LOCUS_API
#endif

/* LOCUS_VERSION, LOCUS_VERSION_MAJOR/MINOR/PATCH and LOCUS_SOVERSION,
   generated from meson.build's project() version (the one place it is
   written).  0.2.0: the API pass (docs/api.md); 0.3.0 the ABI
   pass (LOCUS_API, *_init, one options suffix `_opts`). */
#include "locus/version.h"

typedef enum locus_error_code {
	LOCUS_OK = 0,
	LOCUS_ENOMEM = -1,   /* an allocation failed; nothing was changed */
	LOCUS_EINVALID = -2, /* malformed input (JSON, policy, arguments) */
	LOCUS_EUSAGE = -3,   /* a call that breaks the function's contract */
	LOCUS_ENOTFOUND =
	    -4, /* a named thing (tool, preset, file) does not exist */
	LOCUS_EIO =
	    -5, /* a read or write failed; errno is in locus_error.sys */
	LOCUS_EPATTERN =
	    -6,             /* a PCRE2 match hit a limit: callers fail closed */
	LOCUS_ETOOBIG = -7, /* input past a configured limit */
	LOCUS_EDENIED =
	    -8, /* refused by the gate or the backend (path escape) */
	LOCUS_ETIMEOUT = -9,   /* a deadline passed */
	LOCUS_ECONFLICT = -10, /* changed by someone else since it was read */
} locus_error_code;

/*
 * Optional error detail.  Callers own it (usually on the stack); the library
 * fills it on failure and leaves it untouched on success.
 */
typedef struct locus_error {
	int code;          /* a locus_error_code */
	long offset;       /* byte offset in the input, or -1 */
	int line;          /* 1-based line of the input, or 0 */
	int sys;           /* errno for LOCUS_EIO, else 0 */
	char message[256]; /* NUL-terminated, human readable */
} locus_error;

/** Return the library version string, e.g. "0.2.0".  Never NULL. */
LOCUS_API const char *locus_version(void);

/** Return a static English name for a locus_error_code.  Never NULL. */
LOCUS_API const char *locus_error_code_name(int code);

/**
 * Free a buffer the library returned through a `char **out` (JSON texts,
 * refusals, tool results, prompts, diffs...) or as a `char *` result.
 * Every such buffer has this one contract, whatever made it inside (our
 * writer, cJSON): do not mix allocators.  NULL is accepted.
 */
LOCUS_API void locus_free(void *ptr);

#ifdef __cplusplus
}
#endif
#endif
