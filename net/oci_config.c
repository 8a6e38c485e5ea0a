/*
 * net/oci_config.c - the ~/.oci/config reader.
 *
 * The file is INI as the OCI SDKs read it (Python configparser): sections
 * "[PROFILE]", "key = value" or "key: value" lines, '#' and ';' comments
 * on their own lines, keys case-insensitive, [DEFAULT] values inherited
 * by every profile.  Only the keys the signer needs are kept; others are
 * ignored, as the SDKs do.
 */
#include "net/oci.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/read.h"

static const char *const keys[] = {
    "user",        "fingerprint",        "tenancy", "region", "key_file",
    "pass_phrase", "security_token_file"};
#define NKEYS (sizeof keys / sizeof keys[0])

static char **slot(loci_config *c, size_t i)
{
	char **s[NKEYS] = {&c->user,
	                   &c->fingerprint,
	                   &c->tenancy,
	                   &c->region,
	                   &c->key_file,
	                   &c->pass_phrase,
	                   &c->security_token_file};
	return s[i];
}

void loci_config_clear(loci_config *c)
{
	for (size_t i = 0; i < NKEYS; i++)
		free(*slot(c, i));
	memset(c, 0, sizeof *c);
}

static char *join3(const char *a, const char *b, const char *c)
{
	lu_buf s = {0};
	lu_buf_puts(&s, a);
	lu_buf_puts(&s, b);
	lu_buf_puts(&s, c);
	char *r = s.oom ? NULL : lu_buf_take(&s);
	lu_buf_free(&s);
	return r;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* "~/x" -> "$HOME/x"; malloc'd. */
static char *expand_home(const char *v)
{
	const char *home = getenv("HOME");
	if (v[0] == '~' && v[1] == '/' && home) {
		size_t hl = strlen(home), vl = strlen(v);
		char *s = malloc(hl + vl);
		if (s) {
			memcpy(s, home, hl);
			memcpy(s + hl, v + 1, vl);
		}
		return s;
	}
	return strdup(v);
}

/* The whole file at path, at most 1 MiB (util/read.c). */
static int read_file(const char *path, char **out, size_t *len,
                     locus_error *err)
{
	int rc = lu_read_path(path, 1u << 20, out, len);
	if (rc > 0)
		return lu_err(err, LOCUS_ETOOBIG, "%s: over 1 MiB", path);
	if (rc < 0 && errno == ENOMEM)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (rc < 0)
		return lu_err(err,
		              errno == ENOENT ? LOCUS_ENOTFOUND : LOCUS_EIO,
		              "%s: %s", path, strerror(errno));
	return 0;
}

/* Set key i in c unless already set (the profile's own values win over
   [DEFAULT], whichever comes first in the file). */
static int put(loci_config *c, size_t i, const char *v, bool override)
{
	char **s = slot(c, i);
	if (*s && !override)
		return 0;
	bool path = !strcmp(keys[i], "key_file") ||
	            !strcmp(keys[i], "security_token_file");
	char *d = path ? expand_home(v) : strdup(v);
	if (!d)
		return LOCUS_ENOMEM;
	free(*s);
	*s = d;
	return 0;
}

static int parse(char *text, const char *path, const char *profile,
                 loci_config *out, bool *found, locus_error *err)
{
	int section = 0; /* 0 none, 1 DEFAULT, 2 profile, 3 other */
	int lineno = 0;
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		char *l = trim(line);
		if (!*l || *l == '#' || *l == ';')
			continue;
		if (*l == '[') {
			char *e = strchr(l, ']');
			if (!e || e[1]) {
				int rc = lu_err(err, LOCUS_EINVALID,
				                "%s:%d: bad section line", path,
				                lineno);
				if (err)
					err->line = lineno;
				return rc;
			}
			*e = '\0';
			char *name = trim(l + 1);
			bool is_profile = strcmp(name, profile) == 0;
			section = is_profile                 ? 2
			          : !strcmp(name, "DEFAULT") ? 1
			                                     : 3;
			if (is_profile)
				*found = true;
			continue;
		}
		size_t k = strcspn(l, "=:");
		if (!l[k] || section == 0) {
			int rc =
			    lu_err(err, LOCUS_EINVALID,
			           "%s:%d: expected key=value in a [section]",
			           path, lineno);
			if (err)
				err->line = lineno;
			return rc;
		}
		l[k] = '\0';
		char *key = trim(l), *val = trim(l + k + 1);
		if (section == 3)
			continue;
		for (size_t i = 0; i < NKEYS; i++)
			if (strcasecmp(key, keys[i]) == 0 &&
			    put(out, i, val, section == 2))
				return lu_err(err, LOCUS_ENOMEM,
				              "out of memory");
	}
	return 0;
}

int loci_config_load(loci_config *out, const char *path, const char *profile,
                     locus_error *err)
{
	memset(out, 0, sizeof *out);
	char *def = NULL;
	if (!path)
		path = getenv("OCI_CONFIG_FILE");
	if (!path) {
		const char *home = getenv("HOME");
		if (!home)
			return lu_err(err, LOCUS_ENOTFOUND,
			              "no OCI config: HOME is not set");
		if (!(def = join3(home, "/.oci/config", "")))
			return lu_err(err, LOCUS_ENOMEM, "out of memory");
		path = def;
	}
	if (!profile)
		profile = getenv("OCI_CLI_PROFILE");
	if (!profile)
		profile = "DEFAULT";
	char *text = NULL;
	size_t len;
	int rc = read_file(path, &text, &len, err);
	bool found = false;
	if (!rc && memchr(text, '\0', len))
		rc = lu_err(err, LOCUS_EINVALID, "%s: NUL byte", path);
	if (!rc)
		rc = parse(text, path, profile, out, &found, err);
	if (!rc && !found)
		rc = lu_err(err, LOCUS_ENOTFOUND, "%s: no profile [%s]", path,
		            profile);
	free(text);
	free(def);
	if (rc)
		loci_config_clear(out);
	return rc;
}

/* The token file's contents without surrounding whitespace. */
static int read_token(const char *path, char **out, locus_error *err)
{
	size_t len;
	char *t = NULL;
	int rc = read_file(path, &t, &len, err);
	if (rc)
		return rc;
	bool nul = memchr(t, '\0', len) != NULL;
	char *s = trim(t);
	if (nul || !*s || strpbrk(s, "\"\r\n")) {
		free(t);
		return lu_err(err, LOCUS_EINVALID,
		              "%s: not a session token (empty, or quotes or "
		              "line breaks inside)",
		              path);
	}
	*out = strdup(s);
	free(t);
	return *out ? 0 : lu_err(err, LOCUS_ENOMEM, "out of memory");
}

int loci_signer_from_config(loci_signer **out, const loci_config *c,
                            locus_error *err)
{
	*out = NULL;
	if (!c->key_file)
		return lu_err(err, LOCUS_EINVALID,
		              "OCI config: key_file is not set");
	char *key_id = NULL;
	int rc = 0;
	if (c->security_token_file) {
		char *tok = NULL;
		if ((rc = read_token(c->security_token_file, &tok, err)))
			return rc;
		key_id = join3("ST$", tok, "");
		free(tok);
	} else {
		if (!c->tenancy || !c->user || !c->fingerprint)
			return lu_err(err, LOCUS_EINVALID,
			              "OCI config: an API key needs tenancy, "
			              "user and fingerprint (or set "
			              "security_token_file)");
		lu_buf b = {0};
		lu_buf_printf(&b, "%s/%s/%s", c->tenancy, c->user,
		              c->fingerprint);
		key_id = b.oom ? NULL : lu_buf_take(&b);
		lu_buf_free(&b);
	}
	if (!key_id)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	char *pem = NULL;
	size_t len;
	rc = read_file(c->key_file, &pem, &len, err);
	if (!rc)
		rc =
		    loci_signer_new(out, key_id, pem, len, c->pass_phrase, err);
	if (pem) {
		memset(pem, 0, len); /* private key bytes */
		free(pem);
	}
	free(key_id);
	return rc;
}
