/*
 * util/path.h - lexical path normalisation.
 */
#ifndef LOCUS_UTIL_PATH_H
#define LOCUS_UTIL_PATH_H

#include <stdbool.h>

/*
 * Collapse "//" and ".", resolve ".." lexically (no file system access:
 * links are not followed).  An absolute path keeps its leading '/' and
 * ".." never climbs above it ("/../a" is "/a"); a relative path keeps the
 * ".." that climb out of it ("../a"), and then *escapes (optional) is set.
 * A relative path that collapses to nothing is ".".  Malloc'd (the caller
 * frees), NULL when out of memory.
 */
char *lu_path_collapse(const char *in, bool *escapes);

#endif
