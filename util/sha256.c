/*
 * util/sha256.c - SHA-256 over libcrypto's EVP interface, and hex.
 */
#include "sha256.h"

#include <openssl/evp.h>
#include <string.h>

void lu_hex(const void *p, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[2 * n] = '\0';
}

int lu_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int lu_sha256(const void *data, size_t len, unsigned char md[32])
{
	unsigned char buf[EVP_MAX_MD_SIZE];
	unsigned int ml = 0;
	if (!EVP_Digest(data ? data : "", len, buf, &ml, EVP_sha256(), NULL) ||
	    ml != 32)
		return -1;
	memcpy(md, buf, 32);
	return 0;
}

int lu_sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[32];
	if (lu_sha256(data, len, md)) {
		memset(out, '?', 64);
		out[64] = '\0';
		return -1;
	}
	lu_hex(md, 32, out);
	return 0;
}
