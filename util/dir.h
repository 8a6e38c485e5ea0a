/*
 * util/dir.h - a folder's entries, sorted.
 */
#ifndef LOCUS_UTIL_DIR_H
#define LOCUS_UTIL_DIR_H

#include <stddef.h>

/*
 * The entries of folder `dir` but "." and "..", each as "dir/name", in
 * strcmp() order of the names (so a listing is the same on every machine
 * and in every locale), into *paths (malloc'd, each path malloc'd; free
 * with lu_dir_free()) and their count into *n.  0, or -1 with errno set
 * (the folder cannot be opened or read, or ENOMEM: nothing is returned).
 */
int lu_dir_paths(const char *dir, char ***paths, size_t *n);

/* Free what lu_dir_paths() returned. */
void lu_dir_free(char **paths, size_t n);

#endif
