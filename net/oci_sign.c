/*
 * net/oci_sign.c - OCI request signing, signature version 1.
 *
 * draft-cavage-http-signatures-08 as the OCI SDKs do it: signed
 * headers "date (request-target) host", plus
 * "content-length content-type x-content-sha256" on POST, PUT and PATCH;
 * the signing string is one "name: value" line per header joined by "\n";
 * the signature is base64(RSASSA-PKCS1-v1_5(SHA-256)).  The vectors
 * A, B and C of oci-go-sdk's common/http_signer_test.go are reproduced byte for byte in tests/test_oci.c.
 */
#include "net/oci.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

#include <ctype.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/buf.h"
#include "util/error.h"
#include "../util/base64.h"
#include "../util/sha256.h"

struct loci_signer {
	char *key_id;
	EVP_PKEY *key;
	int64_t (*now)(void *);
	void *now_payload;
};

void loci_sha256_b64(const void *data, size_t len, char out[48])
{
	unsigned char md[32];
	if (lu_sha256(data, len, md))
		memset(md, 0, sizeof md); /* never a real body's digest */
	EVP_EncodeBlock((unsigned char *)out, md, sizeof md);
}

int loci_b64_decode(const char *s, size_t n, char **out, size_t *len)
{
	int rc = lu_base64_decode(s, n, false, out, len);
	return rc < 0 ? LOCUS_ENOMEM : rc ? LOCUS_EINVALID : 0;
}

/* A passphrase callback that never prompts on a terminal. */
static int pass_cb(char *buf, int size, int rwflag, void *u)
{
	(void)rwflag;
	const char *p = u;
	if (!p)
		return -1;
	int n = (int)strlen(p);
	if (n > size)
		n = size;
	memcpy(buf, p, (size_t)n);
	return n;
}

int loci_signer_new(loci_signer **out, const char *key_id, const char *pem,
                    size_t pem_len, const char *passphrase, locus_error *err)
{
	*out = NULL;
	if (!key_id || !*key_id)
		return lu_err(err, LOCUS_EINVALID, "OCI signer: empty keyId");
	BIO *bio = BIO_new_mem_buf(pem, (int)pem_len);
	if (!bio)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, pass_cb,
	                                        (void *)(uintptr_t)passphrase);
	BIO_free(bio);
	if (!key)
		return lu_err(err, LOCUS_EINVALID,
		              "OCI signer: the private key cannot be read%s",
		              passphrase ? " (wrong pass_phrase?)"
		                         : " (encrypted? set pass_phrase)");
	if (EVP_PKEY_get_base_id(key) != EVP_PKEY_RSA) {
		EVP_PKEY_free(key);
		return lu_err(err, LOCUS_EINVALID,
		              "OCI signer: the key is not an RSA key");
	}
	loci_signer *s = calloc(1, sizeof *s);
	if (!s || !(s->key_id = strdup(key_id))) {
		free(s);
		EVP_PKEY_free(key);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	s->key = key;
	*out = s;
	return 0;
}

void loci_signer_free(loci_signer *s)
{
	if (!s)
		return;
	EVP_PKEY_free(s->key);
	free(s->key_id);
	free(s);
}

const char *loci_signer_key_id(const loci_signer *s)
{
	return s->key_id;
}

void loci_signer_set_clock(loci_signer *s, int64_t (*now)(void *), void *p)
{
	s->now = now;
	s->now_payload = p;
}

void loci_signature_clear(loci_signature *sig)
{
	free(sig->signing_string);
	free(sig->authorization);
	memset(sig, 0, sizeof *sig);
}

/* base64(RSA-SHA256(data)), malloc'd. */
static int rsa_sha256_b64(EVP_PKEY *key, const char *data, size_t len,
                          char **out, locus_error *err)
{
	*out = NULL;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char *sig = NULL;
	size_t slen = 0;
	int rc = LOCUS_EIO;
	if (!md)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key) != 1 ||
	    EVP_DigestSign(md, NULL, &slen, (const unsigned char *)data, len) !=
	        1)
		goto done;
	sig = malloc(slen);
	if (!sig || EVP_DigestSign(md, sig, &slen, (const unsigned char *)data,
	                           len) != 1)
		goto done;
	*out = malloc(4 * ((slen + 2) / 3) + 1);
	if (!*out)
		goto done;
	EVP_EncodeBlock((unsigned char *)*out, sig, (int)slen);
	rc = 0;
done:
	free(sig);
	EVP_MD_CTX_free(md);
	if (rc)
		lu_err(err, rc, "OCI signer: RSA-SHA256 signing failed");
	return rc;
}

int loci_sign(const loci_signer *s, const loci_sign_input *in,
              loci_signature *out, locus_error *err)
{
	memset(out, 0, sizeof *out);
	if (!in->method || !in->target || !in->host || !in->date)
		return lu_err(err, LOCUS_EUSAGE, "OCI signer: missing input");
	char method[16];
	size_t ml = strlen(in->method);
	if (ml == 0 || ml >= sizeof method)
		return lu_err(err, LOCUS_EINVALID, "OCI signer: bad method");
	for (size_t i = 0; i <= ml; i++)
		method[i] = (char)tolower((unsigned char)in->method[i]);
	lu_buf b = {0};
	lu_buf_printf(&b, "date: %s\n(request-target): %s %s\nhost: %s",
	              in->date, method, in->target, in->host);
	const char *names = "date (request-target) host";
	if (in->sign_body) {
		loci_sha256_b64(in->body, in->body_len, out->body_sha256);
		snprintf(out->content_length, sizeof out->content_length, "%zu",
		         in->body_len);
		lu_buf_printf(&b,
		              "\ncontent-length: %s\ncontent-type: %s\n"
		              "x-content-sha256: %s",
		              out->content_length,
		              in->content_type ? in->content_type : "",
		              out->body_sha256);
		names = "date (request-target) host content-length "
		        "content-type x-content-sha256";
	}
	if (b.oom) {
		lu_buf_free(&b);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	char *sig = NULL;
	int rc = rsa_sha256_b64(s->key, b.d, b.len, &sig, err);
	if (rc) {
		lu_buf_free(&b);
		return rc;
	}
	out->signing_string = lu_buf_take(&b);
	lu_buf a = {0};
	/* The Go SDK's parameter order. */
	lu_buf_printf(&a,
	              "Signature version=\"1\",headers=\"%s\",keyId=\"%s\","
	              "algorithm=\"rsa-sha256\",signature=\"%s\"",
	              names, s->key_id, sig);
	free(sig);
	if (a.oom || !out->signing_string) {
		lu_buf_free(&a);
		loci_signature_clear(out);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	out->authorization = lu_buf_take(&a);
	return 0;
}

static bool body_method(const char *m)
{
	return strcasecmp(m, "POST") == 0 || strcasecmp(m, "PUT") == 0 ||
	       strcasecmp(m, "PATCH") == 0;
}

int loci_prepare(void *ctx, const lhttp_request *req, const char *url,
                 lhttp_headers *h, locus_error *err)
{
	const loci_signer *s = ctx;
	const char *method = req->method ? req->method : "GET";
	char host[256], date[32];
	int rc = lhttp_url_authority(url, host, sizeof host, err);
	if (rc)
		return rc;
	int64_t now = s->now ? s->now(s->now_payload) : (int64_t)time(NULL);
	lhttp_format_date(now, date);
	bool sb = body_method(method);
	if (sb && !lhttp_headers_get(h, "content-type") &&
	    (rc = lhttp_headers_set(h, "content-type", "application/json")))
		return lu_err(err, rc, "out of memory");
	loci_sign_input in = {
	    .method = method,
	    .target = lhttp_url_target(url),
	    .host = host,
	    .date = date,
	    .sign_body = sb,
	    .content_type = lhttp_headers_get(h, "content-type"),
	    .body = req->body,
	    .body_len = req->has_body ? req->body_len : 0,
	};
	loci_signature sig;
	if ((rc = loci_sign(s, &in, &sig, err)))
		return rc;
	if (lhttp_headers_set(h, "date", date) ||
	    lhttp_headers_set(h, "host", host) ||
	    (sb &&
	     (lhttp_headers_set(h, "content-length", sig.content_length) ||
	      lhttp_headers_set(h, "x-content-sha256", sig.body_sha256))) ||
	    lhttp_headers_set(h, "authorization", sig.authorization))
		rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
	loci_signature_clear(&sig);
	return rc;
}
