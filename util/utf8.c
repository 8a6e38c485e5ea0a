/*
 * util/utf8.c - strict UTF-8: one decoder for every validator.
 */
#include "utf8.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>

size_t lu_utf8_seq(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	if (n == 0)
		return 0;
	unsigned c = p[0];
	if (c < 0x80)
		return 1;
	size_t len;
	unsigned lo = 0x80, hi = 0xBF; /* the range of the second byte */
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0; /* overlong */
		else if (c == 0xED)
			hi = 0x9F; /* surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90; /* overlong */
		else if (c == 0xF4)
			hi = 0x8F; /* past U+10FFFF */
	} else {
		return 0; /* a continuation byte, C0/C1, or F5..FF */
	}
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t k = 2; k < len; k++)
		if ((p[k] & 0xC0) != 0x80)
			return 0;
	return len;
}

size_t lu_utf8_invalid_at(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		/* ASCII, most of every line: eight bytes at a time, then
		   a byte at a time without a call per byte */
		if (n - i >= 8) {
			uint64_t x;
			memcpy(&x, s + i, 8);
			if (!(x & 0x8080808080808080u)) {
				i += 8;
				continue;
			}
		}
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		size_t k = lu_utf8_seq(s + i, n - i);
		if (!k)
			return i;
		i += k;
	}
	assert(i == n);
	return n;
}

bool lu_utf8_valid(const char *s, size_t n)
{
	return lu_utf8_invalid_at(s, n) == n;
}

void lu_utf8_clean_into(lu_buf *b, const char *s, size_t n)
{
	size_t run = 0; /* start of the pending valid run */
	size_t i = 0;
	while (i < n) {
		size_t k = lu_utf8_seq(s + i, n - i);
		if (k) {
			i += k;
			continue;
		}
		lu_buf_add(b, s + run, i - run);
		lu_buf_add(b, "\xEF\xBF\xBD", 3);
		run = ++i;
	}
	lu_buf_add(b, s + run, n - run);
}

char *lu_utf8_clean(const char *s, size_t n)
{
	lu_buf b = LU_BUF_INIT;
	lu_utf8_clean_into(&b, s, n);
	return lu_buf_take(&b);
}

size_t lu_utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}
