/*
 * util/read.c - bounded whole-descriptor reads.
 */
#include "read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "array.h"

int lu_read_all(int fd, size_t max, char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		/* room for at least 64 KiB more and the NUL */
		if (cap - n < 65536 + 1) {
			if (!lu_reserve(&buf, &cap, n + 65536 + 1)) {
				free(buf);
				errno = ENOMEM;
				return -1;
			}
		}
		ssize_t got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;
			free(buf);
			errno = e;
			return -1;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > max) {
			free(buf);
			return 1;
		}
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int lu_read_path(const char *path, size_t max, char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = lu_read_all(fd, max, out, len);
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}
