/*
 * util/path.h - lexical path normalisation, and a program's lookup in a
 * PATH-style folder list.
 */
#ifndef LOCUS_UTIL_PATH_H
#define LOCUS_UTIL_PATH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Collapse "//" and ".", resolve ".." lexically (no file system access:
 * links are not followed).  An absolute path keeps its leading '/' and
 * ".." never climbs above it ("/../a" is "/a"); a relative path keeps the
 * ".." that climb out of it ("../a"), and then *escapes (optional) is set.
 * A relative path that collapses to nothing is ".".  Malloc'd (the caller
 * frees), NULL when out of memory.
 */
char *lu_path_collapse(const char *in, bool *escapes);

/*
 * The first FOLDER/name, for FOLDER in `path` (a colon-separated list, as
 * PATH; NULL: none), that this process may execute (access X_OK), into
 * `out` (`cap` bytes).  An empty FOLDER before a colon or at the start is
 * the working folder when `empty_is_cwd` (as a shell reads PATH), else it
 * is skipped.  false when there is none (or the path does not fit).
 */
bool lu_path_find(const char *path, const char *name, bool empty_is_cwd,
                  char *out, size_t cap);

#endif
