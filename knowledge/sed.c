/*
 * knowledge/sed.c - GNU sed script addresses (see sed.h).
 */
#include "sed.h"

#include <stdbool.h>
#include <stddef.h>

const char *lk_sed_delimited(const char *p, char d)
{
	for (; *p && *p != d; p++)
		if (*p == '\\' && p[1])
			p++;
	return *p == d ? p + 1 : NULL;
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* One regex address, p at its `/` or `\`: past its flags, or NULL. */
static const char *regex_address(const char *p)
{
	char d = '/';
	if (*p == '\\') {
		p++;
		/* GNU sed refuses these delimiters; fail closed */
		if (!*p || *p == '\n' || *p == '\\')
			return NULL;
		d = *p;
	}
	p = lk_sed_delimited(p + 1, d);
	while (p && (*p == 'I' || *p == 'M'))
		p++;
	return p;
}

const char *lk_sed_address(const char *p)
{
	for (int k = 0; k < 2; k++) {
		if (digit(*p)) {
			while (digit(*p) || *p == '~') /* N, first~step */
				p++;
		} else if (*p == '$') {
			p++;
		} else if (*p == '/' || *p == '\\') {
			p = regex_address(p);
			if (!p)
				return NULL;
		} else if (k == 1 && (*p == '+' || *p == '~')) {
			p++; /* addr1,+N and addr1,~N */
			while (digit(*p))
				p++;
		}
		if (k == 0 && *p == ',')
			p++;
		else
			break;
	}
	return p;
}
