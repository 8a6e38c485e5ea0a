/*
 * policy/audit.c - the hash-chained audit trail (spec policy.md section 4).
 *
 * One JSON object per line.  `prev` is the SHA-256 of the previous line
 * (its bytes without the newline; 64 zeros for the first record) and `hash`
 * the SHA-256 of the record itself without `hash` (the line's text up to
 * `,"hash":` plus `}`), so a changed line breaks its own hash and the next
 * line's link, and a changed last line is seen too.
 *
 * Concurrency: each append takes an exclusive flock(2), reads the last
 * line, and writes the new record with one write(2) on an O_APPEND
 * descriptor, then unlocks.  The lock keeps the chain linear when several
 * processes append; O_APPEND and the single write keep lines whole.  flock
 * locks belong to the open file description: each process (or thread) must
 * open the file itself; a descriptor inherited across fork() shares the
 * lock and gives no exclusion.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "internal.h"

#define HASH_TAIL_LEN 75 /* ,"hash":"<64 hex>"} */
#define MAX_LINE ((size_t)64 << 20)

static const char zero_hash[65] =
        "0000000000000000000000000000000000000000000000000000000000000000";

struct locus_audit {
	int fd;
	int flags;
	char *path;
};

int pl_sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int ml = 0;
	if (!EVP_Digest(data, len, md, &ml, EVP_sha256(), NULL) || ml != 32)
		return LOCUS_ENOMEM;
	static const char hex[] = "0123456789abcdef";
	for (unsigned i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
	return 0;
}

static int sys_error(locus_error *err, const char *what, const char *path)
{
	int e = errno;
	pl_error(err, LOCUS_EIO, "%s %s: %s", what, path, strerror(e));
	if (err)
		err->sys = e;
	return LOCUS_EIO;
}

int locus_audit_open(locus_audit **out, const char *path, int flags,
                     locus_error *err)
{
	*out = NULL;
	locus_audit *a = calloc(1, sizeof(*a));
	if (!a || !(a->path = strdup(path))) {
		free(a);
		return pl_error(err, LOCUS_ENOMEM, "out of memory");
	}
	a->flags = flags;
	a->fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (a->fd < 0) {
		int rc = sys_error(err, "cannot open audit file", path);
		free(a->path);
		free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void locus_audit_close(locus_audit *a)
{
	if (!a)
		return;
	if (a->fd >= 0)
		close(a->fd);
	free(a->path);
	free(a);
}

/* Read the last line (without its newline) of the file; *line NULL for an
 * empty file.  LOCUS_EINVALID when the file does not end with '\n'. */
static int last_line(int fd, const char *path, char **line, size_t *len,
                     locus_error *err)
{
	*line = NULL;
	*len = 0;
	struct stat st;
	if (fstat(fd, &st))
		return sys_error(err, "cannot stat", path);
	off_t size = st.st_size;
	if (size == 0)
		return 0;
	char c;
	if (pread(fd, &c, 1, size - 1) != 1)
		return sys_error(err, "cannot read", path);
	if (c != '\n')
		return pl_error(err, LOCUS_EINVALID,
		                "%s ends with a partial line: the chain cannot be "
		                "continued",
		                path);
	/* scan back for the previous newline */
	off_t end = size - 1, pos = end;
	char chunk[4096];
	off_t start = 0;
	bool found = false;
	while (pos > 0 && !found) {
		size_t n = pos > (off_t)sizeof(chunk) ? sizeof(chunk) : (size_t)pos;
		if (pread(fd, chunk, n, pos - (off_t)n) != (ssize_t)n)
			return sys_error(err, "cannot read", path);
		for (size_t i = n; i-- > 0;) {
			if (chunk[i] == '\n') {
				start = pos - (off_t)n + (off_t)i + 1;
				found = true;
				break;
			}
		}
		pos -= (off_t)n;
		if ((size_t)(end - pos) > MAX_LINE)
			return pl_error(err, LOCUS_EINVALID, "%s: last line too long",
			                path);
	}
	size_t ll = (size_t)(end - start);
	char *buf = malloc(ll + 1);
	if (!buf)
		return pl_error(err, LOCUS_ENOMEM, "out of memory");
	if (ll && pread(fd, buf, ll, start) != (ssize_t)ll) {
		free(buf);
		return sys_error(err, "cannot read", path);
	}
	buf[ll] = '\0';
	*line = buf;
	*len = ll;
	return 0;
}

/* Check one line: its own hash, JSON shape, `prev`; *seq gets its seq. */
static const char *check_line(const char *line, size_t len,
                              const char *expect_prev, double expect_seq)
{
	static const char tail_head[] = ",\"hash\":\"";
	if (len < HASH_TAIL_LEN + 2 || line[len - 1] != '}' ||
	    line[len - 2] != '"' ||
	    memcmp(line + len - HASH_TAIL_LEN, tail_head, sizeof(tail_head) - 1))
		return "the record has no trailing \"hash\"";
	size_t bl = len - HASH_TAIL_LEN;
	char *body = malloc(bl + 2);
	if (!body)
		return "out of memory";
	memcpy(body, line, bl);
	body[bl] = '}';
	body[bl + 1] = '\0';
	char h[65];
	const char *why = NULL;
	if (pl_sha256_hex(body, bl + 1, h)) {
		why = "hashing failed";
	} else if (memcmp(h, line + len - 66, 64) != 0) {
		why = "the record does not match its hash (it was changed)";
	} else {
		cJSON *o = cJSON_ParseWithLength(body, bl + 1);
		const cJSON *prev = cJSON_GetObjectItemCaseSensitive(o, "prev");
		const cJSON *seq = cJSON_GetObjectItemCaseSensitive(o, "seq");
		if (!cJSON_IsObject(o))
			why = "the record is not a JSON object";
		else if (!cJSON_IsString(prev) || strcmp(prev->valuestring,
		                                         expect_prev) != 0)
			why = "\"prev\" does not match the hash of the previous line";
		else if (!cJSON_IsNumber(seq) || seq->valuedouble != expect_seq)
			why = "\"seq\" is out of order";
		cJSON_Delete(o);
	}
	free(body);
	return why;
}

int locus_audit_append(locus_audit *a, const locus_decision *d,
                       locus_error *err)
{
	if (!a || !d)
		return pl_error(err, LOCUS_EUSAGE, "audit and decision are required");
	if (flock(a->fd, LOCK_EX))
		return sys_error(err, "cannot lock", a->path);
	char *last = NULL, *body = NULL, *line = NULL;
	size_t ll = 0;
	cJSON *o = NULL;
	int rc = last_line(a->fd, a->path, &last, &ll, err);
	if (rc)
		goto out;
	char prev[65];
	double seq = 1;
	memcpy(prev, zero_hash, sizeof(prev));
	if (last) {
		cJSON *lo = cJSON_ParseWithLength(last, ll);
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(lo, "seq");
		if (!cJSON_IsNumber(s)) {
			cJSON_Delete(lo);
			rc = pl_error(err, LOCUS_EINVALID,
			              "%s: the last line is not an audit record",
			              a->path);
			goto out;
		}
		seq = s->valuedouble + 1;
		cJSON_Delete(lo);
		if (pl_sha256_hex(last, ll, prev)) {
			rc = pl_error(err, LOCUS_ENOMEM, "hashing failed");
			goto out;
		}
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	/* Wide enough for any int fields gcc can imagine, so -O2's
	   format-truncation analysis has nothing to warn about. */
	char when[96];
	snprintf(when, sizeof(when), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	         tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	         tm.tm_min, tm.tm_sec, (int)(ts.tv_nsec / 1000000));
	o = cJSON_CreateObject();
	bool ok = o && cJSON_AddNumberToObject(o, "seq", seq) &&
	          cJSON_AddStringToObject(o, "time", when) &&
	          pl_decision_fields(d, o) &&
	          cJSON_AddStringToObject(o, "prev", prev);
	body = ok ? cJSON_PrintUnformatted(o) : NULL;
	if (!body) {
		rc = pl_error(err, LOCUS_ENOMEM, "out of memory");
		goto out;
	}
	size_t bl = strlen(body);
	char h[65];
	if (pl_sha256_hex(body, bl, h)) {
		rc = pl_error(err, LOCUS_ENOMEM, "hashing failed");
		goto out;
	}
	/* body ends with '}': replace it by ,"hash":"H"}\n */
	size_t n = bl - 1 + HASH_TAIL_LEN + 1;
	line = malloc(n + 1);
	if (!line) {
		rc = pl_error(err, LOCUS_ENOMEM, "out of memory");
		goto out;
	}
	memcpy(line, body, bl - 1);
	snprintf(line + bl - 1, n - bl + 2, ",\"hash\":\"%s\"}\n", h);
	ssize_t w = write(a->fd, line, n);
	if (w < 0) {
		rc = sys_error(err, "cannot write", a->path);
	} else if ((size_t)w != n) {
		rc = pl_error(err, LOCUS_EIO, "short write to %s", a->path);
	} else if ((a->flags & LOCUS_AUDIT_FSYNC) && fsync(a->fd)) {
		rc = sys_error(err, "cannot fsync", a->path);
	}
out:
	flock(a->fd, LOCK_UN);
	cJSON_Delete(o);
	if (body)
		cJSON_free(body);
	free(line);
	free(last);
	return rc;
}

int locus_audit_verify(const char *path, size_t *records, size_t *bad_line,
                       locus_error *err)
{
	if (records)
		*records = 0;
	if (bad_line)
		*bad_line = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return sys_error(err, "cannot open", path);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	size_t lineno = 0;
	char prev[65];
	memcpy(prev, zero_hash, sizeof(prev));
	int rc = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		lineno++;
		const char *why = NULL;
		size_t len = (size_t)n;
		if (line[len - 1] != '\n')
			why = "partial line (no newline at the end)";
		else
			len--;
		if (!why && memchr(line, '\0', len))
			why = "NUL byte in the record";
		if (!why)
			why = check_line(line, len, prev, (double)lineno);
		if (why) {
			rc = LOCUS_EINVALID;
			if (err) {
				pl_error(err, rc, "%s: line %zu: %s", path, lineno, why);
				err->line = (int)lineno;
			}
			if (bad_line)
				*bad_line = lineno;
			break;
		}
		if (pl_sha256_hex(line, len, prev)) {
			rc = pl_error(err, LOCUS_ENOMEM, "hashing failed");
			break;
		}
		if (records)
			*records = lineno;
	}
	if (!rc && ferror(f))
		rc = sys_error(err, "cannot read", path);
	free(line);
	fclose(f);
	return rc;
}
