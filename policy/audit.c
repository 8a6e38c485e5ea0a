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
 * lock and gives no exclusion.  The lock is taken with LOCK_NB and retried
 * until a deadline, so a process that holds it cannot stall the gate.
 *
 * The trail cannot be ended silently: the writer remembers the file's
 * device, inode and size and the hash of the last record, and checks them
 * under the lock before each append (the path still names the same inode,
 * which still has a link; the line that ends where we stopped is still
 * ours; what others appended since continues the chain).  Any mismatch
 * latches `broken`: every later append fails, and the gate refuses.
 *
 * Keyed checkpoints: with a key, a record {"checkpoint":{"final":B,
 * "hmac":H}} is appended every N records and at close, H =
 * HMAC-SHA256(key, "locus-audit-checkpoint v1\n" seq "\n" prev "\n" B).
 * `prev` commits to every line before it, so the key holder can tell a
 * trail that was cut at a record boundary (it does not end with a final
 * checkpoint), appended to (records after it) or re-chained (HMACs fail).
 *
 * Record MACs: chaining needs no secret, so anyone who
 * can write the file can append a correctly chained record, and a writer
 * that continued the chain over it would seal it with its next checkpoint.
 * With a key every record (checkpoints too) carries
 * "mac" = HMAC-SHA256(key, "locus-audit-record v1
" BODY), BODY being the
 * record's text before "mac" was added (its last member, just before
 * "hash").  A writer with a key adopts another writer's record only when
 * its MAC checks out (co-writers share the key), and continues a trail
 * only when its last record does; verification with the key refuses any
 * record without a valid MAC.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "internal.h"
#include "../util/clock.h"
#include "../util/sha256.h"

#define HASH_TAIL_LEN 75 /* ,"hash":"<64 hex>"} */
#define MAX_LINE ((size_t)64 << 20)

static const char zero_hash[65] =
    "0000000000000000000000000000000000000000000000000000000000000000";

#define KEY_MIN 16
#define KEY_MAX 4096
#define CKPT_TAG "locus-audit-checkpoint v1\n"
#define REC_TAG "locus-audit-record v1\n"
#define MAC_TAIL_LEN 73 /* ,"mac":"<64 hex>" before the closing brace */

struct locus_audit {
	int fd;
	int flags;
	char *path; /* realpath */
	char *key_path;
	unsigned char *key;
	size_t key_len;
	unsigned every, since_ckpt;
	double lock_timeout;
	/* what we last saw: the file and the end of the chain */
	dev_t dev;
	ino_t ino;
	off_t size;
	char last[65];
	double seq; /* seq of the last record */
	bool broken;
};

static int sys_error(locus_error *err, const char *what, const char *path)
{
	int e = errno;
	lu_err(err, LOCUS_EIO, "%s %s: %s", what, path, strerror(e));
	if (err)
		err->sys = e;
	return LOCUS_EIO;
}

/* Read the last line (without its newline) of the file; *line NULL for an
 * empty file.  LOCUS_EINVALID when the file does not end with '\n'.
 * line_before: the line that ends at byte `size` (the file's end, or where
 * this writer stopped). */
static int line_before(int fd, off_t size, const char *path, char **line,
                       size_t *len, locus_error *err)
{
	*line = NULL;
	*len = 0;
	if (size == 0)
		return 0;
	char c;
	if (pread(fd, &c, 1, size - 1) != 1)
		return sys_error(err, "cannot read", path);
	if (c != '\n')
		return lu_err(
		    err, LOCUS_EINVALID,
		    "%s ends with a partial line: the chain cannot be "
		    "continued",
		    path);
	/* scan back for the previous newline */
	off_t end = size - 1, pos = end;
	char chunk[4096];
	off_t start = 0;
	bool found = false;
	while (pos > 0 && !found) {
		size_t n =
		    pos > (off_t)sizeof(chunk) ? sizeof(chunk) : (size_t)pos;
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
			return lu_err(err, LOCUS_EINVALID,
			              "%s: last line too long", path);
	}
	size_t ll = (size_t)(end - start);
	char *buf = malloc(ll + 1);
	if (!buf)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
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
	    memcmp(line + len - HASH_TAIL_LEN, tail_head,
	           sizeof(tail_head) - 1))
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
	if (lu_sha256_hex(body, bl + 1, h)) {
		why = "hashing failed";
	} else if (memcmp(h, line + len - 66, 64) != 0) {
		why = "the record does not match its hash (it was changed)";
	} else {
		cJSON *o = cJSON_ParseWithLength(body, bl + 1);
		const cJSON *prev = cJSON_GetObjectItemCaseSensitive(o, "prev");
		const cJSON *seq = cJSON_GetObjectItemCaseSensitive(o, "seq");
		if (!cJSON_IsObject(o))
			why = "the record is not a JSON object";
		else if (!cJSON_IsString(prev) ||
		         strcmp(prev->valuestring, expect_prev) != 0)
			why = "\"prev\" does not match the hash of the "
			      "previous line";
		else if (!cJSON_IsNumber(seq) || seq->valuedouble != expect_seq)
			why = "\"seq\" is out of order";
		cJSON_Delete(o);
	}
	free(body);
	return why;
}

static void when_now(char when[96])
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	/* Wide enough for any int fields gcc can imagine, so -O2's
	   format-truncation analysis has nothing to warn about. */
	snprintf(when, 96, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	         tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	         tm.tm_min, tm.tm_sec, (int)(ts.tv_nsec / 1000000));
}

static int hmac_hex(const unsigned char *key, size_t kl, double seq,
                    const char *prev, bool final, char out[65])
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg), CKPT_TAG "%.0f\n%s\n%d", seq, prev,
	                 final ? 1 : 0);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int ml = 0;
	if (n < 0 ||
	    !HMAC(EVP_sha256(), key, (int)kl, (unsigned char *)msg, (size_t)n,
	          md, &ml) ||
	    ml != 32)
		return LOCUS_ENOMEM;
	lu_hex(md, 32, out);
	return 0;
}

/* HMAC-SHA256(key, REC_TAG body) in hex. */
static int record_mac(const unsigned char *key, size_t kl, const char *body,
                      size_t bl, char out[65])
{
	size_t tl = sizeof(REC_TAG) - 1;
	unsigned char *msg = malloc(tl + bl);
	if (!msg)
		return LOCUS_ENOMEM;
	memcpy(msg, REC_TAG, tl);
	memcpy(msg + tl, body, bl);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int ml = 0;
	bool ok =
	    HMAC(EVP_sha256(), key, (int)kl, msg, tl + bl, md, &ml) && ml == 32;
	free(msg);
	if (!ok)
		return LOCUS_ENOMEM;
	lu_hex(md, 32, out);
	return 0;
}

/* Does a whole record line (hash checked, no newline) carry a valid MAC
   under the key?  The MAC is its last member before "hash". */
static bool record_mac_ok(const unsigned char *key, size_t kl, const char *line,
                          size_t len)
{
	static const char head[] = ",\"mac\":\"";
	if (len < HASH_TAIL_LEN + MAC_TAIL_LEN + 2)
		return false;
	size_t end = len - HASH_TAIL_LEN; /* where ,"hash": starts */
	const char *m = line + end - MAC_TAIL_LEN;
	if (memcmp(m, head, sizeof(head) - 1) || m[MAC_TAIL_LEN - 1] != '"')
		return false;
	size_t bl = (size_t)(m - line);
	char *body = malloc(bl + 2);
	if (!body)
		return false;
	memcpy(body, line, bl);
	body[bl] = '}';
	char mac[65];
	bool ok = record_mac(key, kl, body, bl + 1, mac) == 0 &&
	          CRYPTO_memcmp(mac, m + sizeof(head) - 1, 64) == 0;
	free(body);
	return ok;
}

/* The lock, waited for until the deadline (never forever). */
static int lock_bounded(locus_audit *a, locus_error *err)
{
	double t0 = lu_now();
	useconds_t nap = 1000;
	for (;;) {
		if (flock(a->fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return sys_error(err, "cannot lock", a->path);
		if (lu_now() - t0 >= a->lock_timeout)
			return lu_err(
			    err, LOCUS_EIO,
			    "%s: another process has held the lock for "
			    "more than %.1f s: nothing recorded",
			    a->path, a->lock_timeout);
		usleep(nap);
		if (nap < 50000)
			nap *= 2;
	}
}

static int tampered(locus_audit *a, locus_error *err, const char *why)
{
	a->broken = true;
	return lu_err(err, LOCUS_EINVALID,
	              "%s: %s: the trail is no longer the one this writer "
	              "kept; nothing more is recorded",
	              a->path, why);
}

/* Seq and hash of a line (already checked). */
static int line_state(const char *line, size_t ll, double *seq, char hash[65])
{
	cJSON *lo = cJSON_ParseWithLength(line, ll);
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(lo, "seq");
	bool ok = cJSON_IsNumber(s);
	if (ok)
		*seq = s->valuedouble;
	cJSON_Delete(lo);
	if (!ok)
		return LOCUS_EINVALID;
	return lu_sha256_hex(line, ll, hash) ? LOCUS_ENOMEM : 0;
}

/*
 * Under the lock: is the file still ours, and where does the chain end?
 * First use: take the end as it is (its last line must check out).
 * Later: same inode at the path, still linked, not shorter, the line that
 * ends where we stopped hashes to our last record, and every line added
 * since (by other writers) continues the chain.
 */
static int sync_state(locus_audit *a, locus_error *err)
{
	if (a->broken)
		return lu_err(err, LOCUS_EINVALID,
		              "%s: the trail was tampered with earlier: "
		              "nothing more is recorded",
		              a->path);
	struct stat fs, ps;
	if (fstat(a->fd, &fs))
		return sys_error(err, "cannot stat", a->path);
	if (a->dev || a->ino) {
		if (fs.st_nlink == 0)
			return tampered(a, err, "the file was removed");
		if (stat(a->path, &ps) || ps.st_dev != a->dev ||
		    ps.st_ino != a->ino)
			return tampered(a, err,
			                "the path names another file now "
			                "(replaced or moved)");
		if (fs.st_size < a->size)
			return tampered(a, err, "the file was truncated");
	}
	char *line = NULL;
	size_t ll = 0;
	int rc = 0;
	if (a->dev || a->ino) {
		rc = line_before(a->fd, a->size, a->path, &line, &ll, err);
		char h[65] = "";
		if (!rc && a->size &&
		    (!line || lu_sha256_hex(line, ll, h) || strcmp(h, a->last)))
			rc = tampered(a, err, "the last record was rewritten");
		if (!rc && !a->size && strcmp(a->last, zero_hash))
			rc = tampered(a, err, "the file was emptied");
		free(line);
		line = NULL;
		if (rc)
			return rc;
		/* lines others appended since must continue our chain */
		off_t pos = a->size;
		while (!rc && pos < fs.st_size) {
			size_t n = (size_t)(fs.st_size - pos);
			if (n > MAX_LINE)
				n = MAX_LINE;
			char *buf = malloc(n + 1);
			if (!buf)
				return lu_err(err, LOCUS_ENOMEM,
				              "out of memory");
			ssize_t r = pread(a->fd, buf, n, pos);
			char *nl = r > 0 ? memchr(buf, '\n', (size_t)r) : NULL;
			if (!nl) {
				free(buf);
				return lu_err(
				    err, LOCUS_EINVALID,
				    "%s ends with a partial line: the "
				    "chain cannot be continued",
				    a->path);
			}
			size_t l = (size_t)(nl - buf);
			const char *why =
			    check_line(buf, l, a->last, a->seq + 1);
			if (!why && a->key &&
			    !record_mac_ok(a->key, a->key_len, buf, l))
				why = "a record this writer did not write and "
				      "cannot authenticate under the key was "
				      "appended (forged, or a writer without "
				      "the key)";
			if (why) {
				free(buf);
				return tampered(a, err, why);
			}
			rc = line_state(buf, l, &a->seq, a->last);
			pos += (off_t)l + 1;
			free(buf);
		}
		a->size = pos;
		return rc;
	}
	rc = line_before(a->fd, fs.st_size, a->path, &line, &ll, err);
	if (rc)
		return rc;
	memcpy(a->last, zero_hash, sizeof(a->last));
	a->seq = 0;
	if (line && line_state(line, ll, &a->seq, a->last))
		rc =
		    lu_err(err, LOCUS_EINVALID,
		           "%s: the last line is not an audit record", a->path);
	else if (line && a->key && !record_mac_ok(a->key, a->key_len, line, ll))
		rc = lu_err(err, LOCUS_EINVALID,
		            "%s: the last record carries no valid MAC under "
		            "the key: it was not written by a holder of the "
		            "key (forged, or a trail written without it); "
		            "start a new trail",
		            a->path);
	free(line);
	if (!rc) {
		a->dev = fs.st_dev;
		a->ino = fs.st_ino;
		a->size = fs.st_size;
	}
	return rc;
}

/* Hash `o` (with prev), write it as one line; the state moves on. */
static int write_record(locus_audit *a, cJSON *o, locus_error *err)
{
	char *body = NULL, *line = NULL;
	int rc = 0;
	if (!cJSON_AddStringToObject(o, "prev", a->last) ||
	    !(body = cJSON_PrintUnformatted(o)))
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (a->key) {
		/* the MAC over the body so far, then the body again with it
		   as the last member */
		char mac[65];
		bool ok = record_mac(a->key, a->key_len, body, strlen(body),
		                     mac) == 0 &&
		          cJSON_AddStringToObject(o, "mac", mac);
		cJSON_free(body);
		body = ok ? cJSON_PrintUnformatted(o) : NULL;
		if (!body)
			return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	size_t bl = strlen(body);
	char h[65];
	if (lu_sha256_hex(body, bl, h)) {
		rc = lu_err(err, LOCUS_ENOMEM, "hashing failed");
		goto out;
	}
	/* body ends with '}': replace it by ,"hash":"H"}\n */
	size_t n = bl - 1 + HASH_TAIL_LEN + 1;
	line = malloc(n + 1);
	if (!line) {
		rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
		goto out;
	}
	memcpy(line, body, bl - 1);
	snprintf(line + bl - 1, n - bl + 2, ",\"hash\":\"%s\"}\n", h);
	ssize_t w = write(a->fd, line, n);
	if (w < 0) {
		rc = sys_error(err, "cannot write", a->path);
	} else if ((size_t)w != n) {
		rc = lu_err(err, LOCUS_EIO, "short write to %s", a->path);
	} else if ((a->flags & LOCUS_AUDIT_FSYNC) && fsync(a->fd)) {
		rc = sys_error(err, "cannot fsync", a->path);
	}
	if (!rc) {
		a->size += (off_t)n;
		a->seq += 1;
		if (lu_sha256_hex(line, n - 1, a->last))
			rc = lu_err(err, LOCUS_ENOMEM, "hashing failed");
	} else {
		a->broken = true; /* a torn or missing line: stop */
	}
out:
	cJSON_free(body);
	free(line);
	return rc;
}

static int write_checkpoint(locus_audit *a, bool final, locus_error *err)
{
	char when[96], mac[65];
	when_now(when);
	if (hmac_hex(a->key, a->key_len, a->seq + 1, a->last, final, mac))
		return lu_err(err, LOCUS_ENOMEM, "HMAC failed");
	cJSON *o = cJSON_CreateObject(), *c = NULL;
	bool ok = o && cJSON_AddNumberToObject(o, "seq", a->seq + 1) &&
	          cJSON_AddStringToObject(o, "time", when) &&
	          (c = cJSON_AddObjectToObject(o, "checkpoint")) &&
	          cJSON_AddBoolToObject(c, "final", final) &&
	          cJSON_AddStringToObject(c, "hmac", mac);
	int rc = ok ? write_record(a, o, err)
	            : lu_err(err, LOCUS_ENOMEM, "out of memory");
	cJSON_Delete(o);
	if (!rc)
		a->since_ckpt = 0;
	return rc;
}

int locus_audit_append(locus_audit *a, const locus_decision *d,
                       locus_error *err)
{
	if (!a || !d)
		return lu_err(err, LOCUS_EUSAGE,
		              "audit and decision are required");
	int rc = lock_bounded(a, err);
	if (rc)
		return rc;
	cJSON *o = NULL;
	rc = sync_state(a, err);
	if (rc)
		goto out;
	char when[96];
	when_now(when);
	o = cJSON_CreateObject();
	bool ok = o && cJSON_AddNumberToObject(o, "seq", a->seq + 1) &&
	          cJSON_AddStringToObject(o, "time", when) &&
	          pl_decision_fields(d, o);
	rc = ok ? write_record(a, o, err)
	        : lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (!rc && a->key && ++a->since_ckpt >= a->every)
		rc = write_checkpoint(a, false, err);
out:
	flock(a->fd, LOCK_UN);
	cJSON_Delete(o);
	return rc;
}

static int read_key(const char *path, unsigned char **key, size_t *len,
                    locus_error *err)
{
	*key = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return sys_error(err, "cannot open the audit key", path);
	unsigned char *k = malloc(KEY_MAX);
	ssize_t n = k ? read(fd, k, KEY_MAX) : -1;
	close(fd);
	if (n < KEY_MIN) {
		if (k)
			OPENSSL_cleanse(k, KEY_MAX);
		free(k);
		return lu_err(err, LOCUS_EINVALID,
		              "the audit key %s must hold at least %d bytes",
		              path, KEY_MIN);
	}
	*key = k;
	*len = (size_t)n;
	return 0;
}

int locus_audit_check_key(const char *key_path, const char *workspace,
                          locus_error *err)
{
	char cwd[PATH_MAX];
	if (!workspace && !(workspace = getcwd(cwd, sizeof cwd)))
		return sys_error(err, "cannot tell the workspace", ".");
	char *k = key_path ? realpath(key_path, NULL) : NULL;
	char *r = realpath(workspace, NULL);
	int rc = 0;
	if (!k || !r) {
		rc = lu_err(err, LOCUS_ENOTFOUND, "cannot resolve %s",
		            !k ? (key_path ? key_path : "(null)") : workspace);
	} else {
		size_t rl = strlen(r);
		if (!strcmp(r, "/") ||
		    (!strncmp(k, r, rl) && (k[rl] == '/' || k[rl] == '\0')))
			rc = lu_err(
			    err, LOCUS_EDENIED,
			    "the audit key %s lies inside the workspace "
			    "%s: keep it where the agent cannot reach it",
			    key_path, workspace);
	}
	free(k);
	free(r);
	return rc;
}

int locus_audit_open_opts(locus_audit **out, const char *path,
                          const locus_audit_options *opts, locus_error *err)
{
	if (!out)
		return lu_err(err, LOCUS_EUSAGE, "out is required");
	*out = NULL;
	locus_audit_options def = LOCUS_AUDIT_OPTIONS_INIT;
	const locus_audit_options *o = opts ? opts : &def;
	if (!path)
		return lu_err(err, LOCUS_EUSAGE, "an audit path is required");
	if (o->version != LOCUS_AUDIT_OPTIONS_VERSION)
		return lu_err(err, LOCUS_EINVALID,
		              "audit options: unknown version %u", o->version);
	locus_audit *a = calloc(1, sizeof(*a));
	if (!a)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	a->fd = -1;
	a->flags = o->flags;
	a->every = o->checkpoint_every ? o->checkpoint_every : 100;
	a->lock_timeout = o->lock_timeout_s > 0 ? o->lock_timeout_s : 5;
	int rc = 0;
	a->fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	             0600);
	struct stat st;
	if (a->fd < 0 || fstat(a->fd, &st)) {
		rc = sys_error(err, "cannot open audit file", path);
	} else if (!S_ISREG(st.st_mode)) {
		rc = lu_err(err, LOCUS_EINVALID,
		            "the audit file %s is not a regular file", path);
	} else {
		if (st.st_uid == geteuid() && (st.st_mode & 077))
			(void)fchmod(a->fd, st.st_mode & 0700); /* ours: 0600 */
		a->path = realpath(path, NULL);
		if (!a->path)
			rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	if (!rc && o->key_path)
		rc = locus_audit_check_key(o->key_path, o->workspace, err);
	if (!rc && o->key_path) {
		rc = read_key(o->key_path, &a->key, &a->key_len, err);
		if (!rc && !(a->key_path = realpath(o->key_path, NULL)))
			rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	if (!rc && !(rc = lock_bounded(a, err))) {
		rc = sync_state(a, err);
		flock(a->fd, LOCK_UN);
	}
	if (rc) {
		if (a->key)
			OPENSSL_cleanse(a->key, KEY_MAX);
		free(a->key);
		free(a->key_path);
		if (a->fd >= 0)
			close(a->fd);
		free(a->path);
		free(a);
		return rc;
	}
	*out = a;
	return 0;
}

int locus_audit_open(locus_audit **out, const char *path, unsigned flags,
                     locus_error *err)
{
	locus_audit_options o = LOCUS_AUDIT_OPTIONS_INIT;
	o.flags = flags;
	return locus_audit_open_opts(out, path, &o, err);
}

const char *locus_audit_path(const locus_audit *a)
{
	return a ? a->path : NULL;
}

const char *locus_audit_key_path(const locus_audit *a)
{
	return a ? a->key_path : NULL;
}

int locus_audit_finish(locus_audit *a, locus_error *err)
{
	if (!a)
		return 0;
	int rc = 0;
	if (a->key && !a->broken && !(rc = lock_bounded(a, err))) {
		rc = sync_state(a, err);
		if (!rc)
			rc = write_checkpoint(a, true, err);
		flock(a->fd, LOCK_UN);
	}
	if (a->fd >= 0)
		close(a->fd);
	if (a->key)
		OPENSSL_cleanse(a->key, KEY_MAX);
	free(a->key);
	free(a->key_path);
	free(a->path);
	free(a);
	return rc;
}

void locus_audit_close(locus_audit *a)
{
	locus_error e;
	(void)locus_audit_finish(a, &e);
}

/* A checkpoint line: its HMAC under the key (when there is one). */
static const char *check_checkpoint(const char *line, size_t len,
                                    const unsigned char *key, size_t kl,
                                    const char *prev, double seq, bool *is_ckpt,
                                    bool *final)
{
	*is_ckpt = *final = false;
	if (!memmem(line, len, "\"checkpoint\":", 13))
		return NULL;
	cJSON *o = cJSON_ParseWithLength(line, len);
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "checkpoint");
	const char *why = NULL;
	if (c) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(c, "final");
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(c, "hmac");
		*is_ckpt = true;
		*final = cJSON_IsTrue(f);
		char mac[65];
		if (!cJSON_IsBool(f) || !cJSON_IsString(h))
			why = "a malformed checkpoint";
		else if (key && hmac_hex(key, kl, seq, prev, *final, mac))
			why = "HMAC failed";
		else if (key && (strlen(h->valuestring) != 64 ||
		                 CRYPTO_memcmp(mac, h->valuestring, 64)))
			why = "the checkpoint's HMAC does not match the key "
			      "(forged "
			      "or re-chained)";
	}
	cJSON_Delete(o);
	return why;
}

int locus_audit_verify_report(locus_audit_report *rep, const char *path,
                              const char *key_path, locus_error *err)
{
	locus_audit_report mine;
	if (!rep)
		rep = &mine;
	memset(rep, 0, sizeof(*rep));
	memcpy(rep->last_hash, zero_hash, sizeof(rep->last_hash));
	if (!path)
		return lu_err(err, LOCUS_EUSAGE, "an audit path is required");
	unsigned char *key = NULL;
	size_t kl = 0;
	if (key_path) {
		int krc = read_key(key_path, &key, &kl, err);
		if (krc)
			return krc;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		if (key)
			OPENSSL_cleanse(key, KEY_MAX);
		free(key);
		return sys_error(err, "cannot open", path);
	}
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
		bool ck = false, fin = false;
		if (line[len - 1] != '\n')
			why = "partial line (no newline at the end)";
		else
			len--;
		if (!why && memchr(line, '\0', len))
			why = "NUL byte in the record";
		if (!why)
			why = check_line(line, len, prev, (double)lineno);
		if (!why && key && !record_mac_ok(key, kl, line, len))
			why = "the record carries no valid MAC under the key: "
			      "not written by a holder of the key (forged, or "
			      "appended by a writer without it)";
		if (!why)
			why = check_checkpoint(line, len, key, kl, prev,
			                       (double)lineno, &ck, &fin);
		if (why) {
			rc = LOCUS_EINVALID;
			if (err) {
				lu_err(err, rc, "%s: line %zu: %s", path,
				       lineno, why);
				err->line = (int)lineno;
			}
			rep->bad_line = lineno;
			break;
		}
		if (lu_sha256_hex(line, len, prev)) {
			rc = lu_err(err, LOCUS_ENOMEM, "hashing failed");
			break;
		}
		rep->records = lineno;
		rep->checkpoints += ck;
		rep->closed = ck && fin;
		memcpy(rep->last_hash, prev, sizeof(prev));
	}
	if (!rc && ferror(f))
		rc = sys_error(err, "cannot read", path);
	if (!rc && key && !rep->closed)
		rc =
		    lu_err(err, LOCUS_EINVALID,
		           "%s: %zu records, but the trail does not end with a "
		           "closing checkpoint: cut short, appended to without "
		           "the key, or still being written",
		           path, rep->records);
	free(line);
	fclose(f);
	if (key)
		OPENSSL_cleanse(key, KEY_MAX);
	free(key);
	return rc;
}

int locus_audit_verify(size_t *records, size_t *bad_line, const char *path,
                       locus_error *err)
{
	locus_audit_report r;
	int rc = locus_audit_verify_report(&r, path, NULL, err);
	if (records)
		*records = r.records;
	if (bad_line)
		*bad_line = r.bad_line;
	return rc;
}
