/*
 * util/base64.c - the one base64 decoder (util/base64.h).
 */
#include "base64.h"

#include <stdlib.h>

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

static bool is_break(char c)
{
	return c == '\n' || c == '\r';
}

int lu_base64_decode(const char *s, size_t n, bool line_breaks, char **out,
                     size_t *len)
{
	*out = NULL;
	*len = 0;
	while (n && is_break(s[n - 1]))
		n--;
	char *o = malloc(n / 4 * 3 + 3);
	if (!o)
		return -1;
	size_t k = 0, chars = 0, pad = 0;
	unsigned acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		if (line_breaks && is_break(s[i]))
			continue;
		if (s[i] == '=') {
			pad++;
			continue;
		}
		int v = b64_value((unsigned char)s[i]);
		if (v < 0 || pad)
			goto bad; /* not the alphabet, or text after '=' */
		chars++;
		acc = (acc << 6 | (unsigned)v) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			o[k++] = (char)(acc >> bits);
		}
	}
	if (pad > 2 || chars % 4 == 1)
		goto bad;
	o[k] = '\0';
	*out = o;
	*len = k;
	return 0;
bad:
	free(o);
	return 1;
}
