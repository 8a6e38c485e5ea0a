/*
 * util/path.c - lexical path normalisation (no file system access), and
 * the PATH lookup (see path.h).
 */
#include "path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Lexical normalisation: collapse "//" and ".", resolve "..".  `abs`
 * keeps a leading '/'.  *escapes: a relative path climbing out. */
char *lu_path_collapse(const char *in, bool *escapes)
{
	bool abs = in[0] == '/';
	size_t n = strlen(in);
	char *out = malloc(n + 2);
	if (!out)
		return NULL;
	size_t o = 0;
	size_t floor = 0; /* output length that ".." may not pop below */
	if (abs)
		out[o++] = '/';
	floor = o;
	const char *p = in;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *e = strchr(p, '/');
		size_t sl = e ? (size_t)(e - p) : strlen(p);
		if (sl == 1 && p[0] == '.') {
			/* skip */
		} else if (sl == 2 && p[0] == '.' && p[1] == '.') {
			if (o > floor) {
				while (o > floor && out[o - 1] != '/')
					o--;
				if (o > floor)
					o--; /* the separator */
				else if (abs)
					o = floor;
			} else if (!abs) {
				if (escapes)
					*escapes = true;
				if (o)
					out[o++] = '/';
				memcpy(out + o, "..", 2);
				o += 2;
				floor = o;
			}
		} else {
			if (o > 0 && out[o - 1] != '/')
				out[o++] = '/';
			memcpy(out + o, p, sl);
			o += sl;
		}
		p += sl;
	}
	if (o == 0)
		out[o++] = '.';
	out[o] = '\0';
	return out;
}

bool lu_path_find(const char *path, const char *name, bool empty_is_cwd,
                  char *out, size_t cap)
{
	while (path && *path) {
		size_t n = strcspn(path, ":");
		if ((n || empty_is_cwd) &&
		    (size_t)snprintf(out, cap, "%.*s/%s", n ? (int)n : 1,
		                     n ? path : ".", name) < cap &&
		    access(out, X_OK) == 0)
			return true;
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}
