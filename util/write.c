/*
 * util/write.c - write a whole buffer to a file descriptor (util/write.h).
 */
#include "write.h"

#include <errno.h>
#include <unistd.h>

int lu_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}
