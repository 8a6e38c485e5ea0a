/*
 * tests/oci_fixture.h - the strict OCI fake (tests/fake_oci.py) with a
 * fresh RSA key, an OCI config file naming it, and helpers for the fake's
 * unsigned /_fake/ control routes.  Used by test_oci.c and by the shared
 * tool suite in test_harness.c.  Header-only.
 */
#ifndef LOCUS_TESTS_OCI_FIXTURE_H
#define LOCUS_TESTS_OCI_FIXTURE_H

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_proc.h"
#include "locus/harness.h"
#include "net/http.h"

#define OCI_FX_KEY_ID                                                          \
	"ocid1.tenancy.oc1..test/ocid1.user.oc1..test/"                        \
	"12:34:56:78:9a:bc:de:f0:12:34:56:78:9a:bc:de:f0"
#define OCI_FX_TOKEN "eyJ0ZXN0IjoidG9rZW4ifQ.sess"

typedef struct oci_fx {
	fake_proc fake;
	char dir[64];
	char config[128]; /* profiles DEFAULT (API key) and SESSION (token) */
	char endpoint[64];
	char key[128];
} oci_fx;

static inline int oci_fx_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static inline int oci_fx_keygen(const char *path)
{
	EVP_PKEY *k = EVP_RSA_gen(2048);
	FILE *f = k ? fopen(path, "w") : NULL;
	int ok = f && PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL);
	if (f)
		fclose(f);
	EVP_PKEY_free(k);
	return ok ? 0 : -1;
}

/* Start the fake; extra fake arguments in args (NULL-terminated). */
static inline int oci_fx_start(oci_fx *f, const char *const *args)
{
	memset(f, 0, sizeof *f);
	snprintf(f->dir, sizeof f->dir, "/tmp/locus-oci-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	char path[256], text[1024];
	snprintf(f->key, sizeof f->key, "%s/key.pem", f->dir);
	if (oci_fx_keygen(f->key))
		return -1;
	snprintf(path, sizeof path, "%s/token", f->dir);
	oci_fx_write(path, OCI_FX_TOKEN "\n");
	snprintf(f->config, sizeof f->config, "%s/config", f->dir);
	snprintf(text, sizeof text,
	         "[DEFAULT]\nuser=ocid1.user.oc1..test\n"
	         "fingerprint=12:34:56:78:9a:bc:de:f0:12:34:56:78:9a:bc:de:f0\n"
	         "tenancy=ocid1.tenancy.oc1..test\nregion=us-chicago-1\n"
	         "key_file=%s\n\n[SESSION]\nsecurity_token_file=%s\n",
	         f->key, path);
	if (oci_fx_write(f->config, text))
		return -1;
	char keys[256];
	snprintf(keys, sizeof keys, "%s/keys.json", f->dir);
	snprintf(text, sizeof text, "{\"%s\": \"%s\", \"ST$%s\": \"%s\"}",
	         OCI_FX_KEY_ID, f->key, OCI_FX_TOKEN, f->key);
	if (oci_fx_write(keys, text))
		return -1;
	const char *root = getenv("LOCUS_SOURCE_ROOT");
	char routes[512];
	snprintf(routes, sizeof routes, "%s/tests/oci/routes-draft.json",
	         root ? root : ".");
	const char *argv[24] = {"--keys", keys, "--routes", routes};
	int n = 4;
	for (int i = 0; args && args[i] && n < 22; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (fake_start(&f->fake, "fake_oci.py", argv))
		return -1;
	snprintf(f->endpoint, sizeof f->endpoint, "http://127.0.0.1:%d",
	         f->fake.port);
	return 0;
}

static inline void oci_fx_stop(oci_fx *f)
{
	fake_stop(&f->fake);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	if (f->dir[0] && system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", f->dir);
}

/* Options for a sandbox created in the fake. */
static inline void oci_fx_options(const oci_fx *f, locus_oci_options *o)
{
	locus_oci_options def = LOCUS_OCI_OPTIONS_INIT;
	*o = def;
	o->config_file = f->config;
	o->endpoint = f->endpoint;
	o->create_project = "ocid1.generativeaiproject.oc1..test";
	o->poll_interval_s = 0.05;
	o->ready_timeout_s = 20;
}

/* An unsigned call to the fake's /_fake/ routes; the body (malloc'd) or
   NULL. */
static inline char *oci_fx_call(const oci_fx *f, const char *method,
                                const char *path, const char *body)
{
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.base_url = f->endpoint;
	o.max_attempts = 1;
	lhttp_client *c = NULL;
	if (lhttp_client_new(&c, &o, NULL))
		return NULL;
	lhttp_request rq = {.method = method,
	                    .url = path,
	                    .body = body,
	                    .body_len = body ? strlen(body) : 0,
	                    .has_body = body != NULL};
	lhttp_response r;
	char *out = NULL;
	if (!lhttp_perform(c, &rq, &r, NULL) && r.status == 200) {
		out = r.body ? r.body : calloc(1, 1);
		r.body = NULL;
	}
	lhttp_response_clear(&r);
	lhttp_client_free(c);
	return out;
}

/* Set the fake's faults (a JSON object); 0 on success. */
static inline int oci_fx_faults(const oci_fx *f, const char *json)
{
	char *r = oci_fx_call(f, "POST", "/_fake/faults", json);
	free(r);
	return r ? 0 : -1;
}

/* The shared tool suite's OCI backend (tests/harness_fx.h): a fake per
   test process, one created sandbox, both gone at fx_oci_close. */
static oci_fx g_oci_fx;

static inline int fx_oci_open(locus_backend **b, locus_error *err)
{
	if (oci_fx_start(&g_oci_fx, NULL)) {
		snprintf(err->message, sizeof err->message,
		         "the OCI fake did not start");
		return LOCUS_EIO;
	}
	locus_oci_options o;
	oci_fx_options(&g_oci_fx, &o);
	return locus_backend_oci_new(b, NULL, &o, err);
}

static inline void fx_oci_close(void)
{
	oci_fx_stop(&g_oci_fx);
}

#endif
