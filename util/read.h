/*
 * util/read.h - read a whole file descriptor, bounded.
 */
#ifndef LOCUS_UTIL_READ_H
#define LOCUS_UTIL_READ_H

#include <stddef.h>

/*
 * Read fd to its end into *out, malloc'd and NUL-terminated (the NUL is
 * not counted in *len; the caller frees).  0 on success; 1 when there
 * are more than `max` bytes (nothing is returned); -1 on a read error or
 * out of memory, with errno set (ENOMEM for the latter).  EINTR is retried.
 * The descriptor is neither closed nor rewound.
 */
int lu_read_all(int fd, size_t max, char **out, size_t *len);

/* The same for the file at `path` (opened read-only, close-on-exec). */
int lu_read_path(const char *path, size_t max, char **out, size_t *len);

#endif
