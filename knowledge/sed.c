/*
 * knowledge/sed.c - GNU sed script addresses and commands (see sed.h).
 */
#include "sed.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

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

/* Skip to the end of a `;`- or newline-terminated argument. */
static const char *to_end(const char *p, bool semicolon)
{
	while (*p && *p != '\n' && !(semicolon && (*p == ';' || *p == '}')))
		p++;
	return p;
}

/* A file name after r R w W (blanks skipped), to the end of the line. */
static const char *file_arg(const char *p, char cmd, const lk_sed_visitor *v,
                            void *arg)
{
	while (*p == ' ' || *p == '\t')
		p++;
	const char *e = to_end(p, false);
	if (v->file && e > p)
		v->file(arg, cmd, p, (size_t)(e - p));
	return e;
}

/* The s or y command at p (after its letter): past its flags, or NULL. */
static const char *subst(const char *p, char cmd, const lk_sed_visitor *v,
                         void *arg)
{
	char d = *p;
	if (!d || d == '\n' || d == '\\')
		return NULL;
	p = lk_sed_delimited(p + 1, d);
	p = p ? lk_sed_delimited(p, d) : NULL;
	if (!p || cmd == 'y')
		return p;
	/* flags: g p i I m M e NUMBER, w FILE ends the line */
	for (; *p && strchr("gpiImMe0123456789w", *p); p++) {
		if (*p == 'e' && v->run_space)
			v->run_space(arg);
		if (*p == 'w')
			return file_arg(p + 1, 'w', v, arg);
	}
	return p;
}

bool lk_sed_walk(const char *p, const lk_sed_visitor *v, void *arg)
{
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == ';' ||
		       *p == '}')
			p++;
		if (!*p)
			return true;
		if (*p == '#') {
			p = to_end(p, false);
			continue;
		}
		p = lk_sed_address(p);
		if (!p)
			return false;
		while (*p == ' ' || *p == '\t' || *p == '!')
			p++;
		char cmd = *p ? *p++ : 0;
		if (cmd && strchr("{=dDgGhHxnNpPzF", cmd))
			continue;
		if (cmd && strchr("qQlLv:btT", cmd)) {
			p = to_end(p, cmd != ':');
		} else if (cmd && strchr("aic", cmd)) {
			p = to_end(p, false); /* text to the end of the line */
		} else if (cmd && strchr("rRwW", cmd)) {
			p = file_arg(p, cmd, v, arg);
		} else if (cmd == 'e') {
			while (*p == ' ' || *p == '\t')
				p++;
			const char *e = to_end(p, false);
			if (v->exec)
				v->exec(arg, p, (size_t)(e - p));
			p = e;
		} else if (cmd == 's' || cmd == 'y') {
			p = subst(p, cmd, v, arg);
			if (!p)
				return false;
		} else {
			return false;
		}
	}
}

void lk_sed_scripts(const char *(*word)(const void *, size_t),
                    const void *words, size_t from, size_t n,
                    void (*cb)(void *arg, size_t i, const char *text),
                    void *arg)
{
	bool given = false; /* a script given by -e or -f */
	size_t first = n;
	for (size_t i = from; i < n; i++) {
		const char *v = word(words, i);
		v = v ? v : "";
		if (!strcmp(v, "--")) {
			if (first == n && i + 1 < n)
				first = i + 1;
			break;
		}
		if (!strncmp(v, "--expression", 12)) {
			given = true;
			if (v[12] == '=')
				cb(arg, i, v + 13);
			else if (i + 1 < n) {
				i++;
				cb(arg, i, word(words, i));
			}
			continue;
		}
		if (!strncmp(v, "--file", 6)) {
			given = true;
			continue;
		}
		if (v[0] == '-' && v[1] && v[1] != '-') {
			for (const char *q = v + 1; *q; q++) {
				if (*q != 'e' && *q != 'f' && *q != 'l')
					continue;
				size_t at = i;
				const char *val = q + 1;
				if (!*val && i + 1 < n)
					val = word(words, at = ++i);
				given |= *q != 'l'; /* -l N: a line length */
				if (*q == 'e')
					cb(arg, at, val);
				break;
			}
			continue;
		}
		if (first == n && v[0] != '-')
			first = i;
	}
	if (!given && first < n)
		cb(arg, first, word(words, first));
}
