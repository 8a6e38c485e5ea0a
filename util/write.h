/*
 * util/write.h - write a whole buffer to a file descriptor.
 */
#ifndef LOCUS_UTIL_WRITE_H
#define LOCUS_UTIL_WRITE_H

#include <stddef.h>

/*
 * Write data[0..len) to fd, retrying short writes and EINTR.  0 when every
 * byte was written; -1 with errno set otherwise (EIO when write made no
 * progress).  The descriptor is not closed.  Allocates nothing and calls
 * only write(2), so a forked child may use it before exec.
 */
int lu_write_all(int fd, const void *data, size_t len);

#endif
