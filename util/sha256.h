/*
 * util/sha256.h - SHA-256 (libcrypto's) and lower-case hex.
 */
#ifndef LOCUS_UTIL_SHA256_H
#define LOCUS_UTIL_SHA256_H

#include <stddef.h>

/* Write 2*n lower-case hex digits of p[0..n) and a NUL to out. */
void lu_hex(const void *p, size_t n, char *out);

/* The value of one hex digit (either case), or -1. */
int lu_hex_digit(int c);

/* The digest of data[0..len) (data may be NULL when len is 0) into md.
   0, or -1 when libcrypto fails (out of memory). */
int lu_sha256(const void *data, size_t len, unsigned char md[32]);

/* The same as 64 hex digits and a NUL.  On failure (-1) out holds 64 '?'
   instead: never a valid digest, so it compares unequal to any real one. */
int lu_sha256_hex(const void *data, size_t len, char out[65]);

#endif
