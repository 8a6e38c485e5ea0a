/*
 * runner/files.c - the runner's files in its state folder (.locus):
 * paths, whole-file replacement, JSON files read and written whole.
 *
 * The folder is in the box, where commands can write: whatever is read
 * back goes through the strict reader, bounded, and a file that cannot be
 * read is reported as such (the caller decides what that means), never
 * cut at a fixed buffer.
 */
#include "runner/runner.h"

#include "util/error.h"
#include "util/read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *lr_path(const char *dir, const char *name)
{
	return lr_strf("%s/%s", dir, name);
}

int lr_file_replace(const char *path, const char *text, size_t len)
{
	char *tmp = lr_strf("%s.tmp", path);
	if (!tmp)
		return LOCUS_ENOMEM;
	FILE *f = fopen(tmp, "we");
	int rc = 0;
	if (!f || fwrite(text, 1, len, f) != len)
		rc = LOCUS_EIO;
	if (f && fclose(f))
		rc = LOCUS_EIO;
	if (!rc && rename(tmp, path))
		rc = LOCUS_EIO;
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

int lr_json_file_write(const char *dir, const char *name, const cJSON *v)
{
	char *path = lr_path(dir, name);
	char *t = lr_json_canonical(v);
	int rc = path && t ? lr_file_replace(path, t, strlen(t)) : LOCUS_ENOMEM;
	free(path);
	free(t);
	return rc;
}

int lr_json_file_read(const char *dir, const char *name, size_t max,
                      cJSON **out, locus_error *err)
{
	*out = NULL;
	char *path = lr_path(dir, name);
	if (!path)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	char *text = NULL;
	size_t len = 0;
	int got = lu_read_path(path, max, &text, &len);
	int e = errno;
	free(path);
	if (got < 0 && e == ENOMEM)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (got < 0)
		return lu_err(err, LOCUS_ENOTFOUND, "%s could not be read",
		              name);
	if (got > 0)
		return lu_err(err, LOCUS_EINVALID,
		              "%s is larger than %zu bytes", name, max);
	int rc = lr_json_parse(text, len, out, err);
	free(text);
	return rc;
}
