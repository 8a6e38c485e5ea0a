/*
 * fuzz_check.h - invariant checks shared by the fuzz targets.  A broken
 * invariant prints what broke and aborts: libFuzzer records the input as a
 * crash, the standalone replay dies and its test fails.
 */
#ifndef LOCUS_FUZZ_CHECK_H
#define LOCUS_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond, ...)                                                  \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr,                                        \
			        "invariant broken (%s:%d): %s: ", __FILE__,    \
			        __LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

#endif
