/*
 * tests/test_oci.c - the OCI backend: the signer against the published
 * vectors (byte for byte), the ~/.oci/config reader, the route table, and
 * the client and backend against the strict fake (tests/fake_oci.py):
 * lifecycle and ownership, commands and their streams under faults,
 * files, retries, refused signatures, and `locus tool --backend oci`.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "net/oci.h"
#include "net/oci_client.h"
#include "cancel_fx.h"
#include "oci_fixture.h"
#include "run_locus.h"
#include "skip.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	b[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return b;
}

static char *src_path(const char *rel)
{
	static char p[4][1024];
	static int i;
	const char *root = getenv("LOCUS_SOURCE_ROOT");
	i = (i + 1) % 4;
	snprintf(p[i], sizeof p[i], "%s/%s", root ? root : ".", rel);
	return p[i];
}

/* ---------------- signing: oci-go-sdk's vectors ---------------- */

#define VEC_KEY_ID                                                             \
	"ocid1.tenancy.oc1.."                                                  \
	"aaaaaaaaba3pv6wkcr4jqae5f15p2b2m2yt2j6rx32uzr4h25v"                   \
	"qstifsfdsq/"                                                          \
	"ocid1.user.oc1..aaaaaaaat5nvwcna5j6aqzjcaty5eqbb6qt2jvpkan"           \
	"ghtgdaqedqw3rynjq/20:3b:97:13:55:1c:5b:0d:d3:37:d8:50:4e:c5:3a:34"
#define VEC_DATE "Thu, 05 Jan 2014 21:31:40 GMT"
#define VEC_HOST "iaas.us-phoenix-1.oraclecloud.com"
#define VEC_A_TARGET                                                           \
	"/20160918/instances?availabilityDomain=Pjwf%3A%20PHX-AD-1&"           \
	"compartmentId=ocid1.compartment.oc1..aaaaaaaam3we6vgnherjq5q2idnccdf" \
	"lvjsnog7mlr6rtdb25gilchfeyjxa&displayName=TeamXInstances&volumeId=oc" \
	"id1.volume.oc1.phx.abyhqljrgvttnlx73nmrwfaux7kcvzfs3s66izvxf2h4lgvyn" \
	"dsdsnoiwr5q"
#define VEC_A_SIG                                                              \
	"GBas7grhyrhSKHP6AVIj/h5/Vp8bd/"                                       \
	"peM79H9Wv8kjoaCivujVXlpbKLjMPeDUhxkFIWt"                              \
	"TtLBj3sUzaFj34XE6YZAHc9r2DmE4pMwOAy/kiITcZxa1oHPOeRheC0jP2dqbTll8fmT" \
	"ZVwKZOKHYPtrLJIJQHJjNvxFWeHQjMaR7M="
#define VEC_B_BODY                                                             \
	"{\n    \"compartmentId\": "                                           \
	"\"ocid1.compartment.oc1..aaaaaaaam3we6vgnhe"                          \
	"rjq5q2idnccdflvjsnog7mlr6rtdb25gilchfeyjxa\",\n    \"instanceId\": "  \
	"\""                                                                   \
	"ocid1.instance.oc1.phx."                                              \
	"abuw4ljrlsfiqw6vzzxb43vyypt4pkodawglp3wqxjqofa"                       \
	"krwvou52gb6s5a\",\n    \"volumeId\": "                                \
	"\"ocid1.volume.oc1.phx.abyhqljrg"                                     \
	"vttnlx73nmrwfaux7kcvzfs3s66izvxf2h4lgvyndsdsnoiwr5q\"\n}"
#define VEC_B_SIG                                                              \
	"Mje8vIDPlwIHmD/"                                                      \
	"cTDwRxE7HaAvBg16JnVcsuqaNRim23fFPgQfLoOOxae6WqKb1uPjYE"               \
	"l0qIdazWaBy/Ml8DRhqlocMwoSXv0fbukP8J5N80LCmzT/FFBvIvTB91XuXI3hYfP9Zt" \
	"1l7S6ieVadHUfqBedWH0itrtPJBgKmrWso="

static loci_signer *sample_signer(void)
{
	size_t len;
	char *pem = slurp(src_path("tests/oci/sample-key.pem"), &len);
	loci_signer *s = NULL;
	locus_error err;
	ck_assert_msg(loci_signer_new(&s, VEC_KEY_ID, pem, len, NULL, &err) ==
	                  0,
	              "%s", err.message);
	free(pem);
	return s;
}

START_TEST(vector_a_get)
{
	loci_signer *s = sample_signer();
	loci_sign_input in = {.method = "GET",
	                      .target = VEC_A_TARGET,
	                      .host = VEC_HOST,
	                      .date = VEC_DATE};
	loci_signature sig;
	locus_error err;
	ck_assert_int_eq(loci_sign(s, &in, &sig, &err), 0);
	ck_assert_str_eq(sig.signing_string,
	                 "date: " VEC_DATE
	                 "\n(request-target): get " VEC_A_TARGET
	                 "\nhost: " VEC_HOST);
	ck_assert_str_eq(sig.authorization,
	                 "Signature version=\"1\",headers=\"date "
	                 "(request-target) host\",keyId=\"" VEC_KEY_ID
	                 "\",algorithm=\"rsa-sha256\",signature=\"" VEC_A_SIG
	                 "\"");
	loci_signature_clear(&sig);
	loci_signer_free(s);
}
END_TEST

START_TEST(vector_b_post)
{
	ck_assert_uint_eq(strlen(VEC_B_BODY), 316);
	loci_signer *s = sample_signer();
	loci_sign_input in = {.method = "POST",
	                      .target = "/20160918/volumeAttachments",
	                      .host = VEC_HOST,
	                      .date = VEC_DATE,
	                      .sign_body = true,
	                      .content_type = "application/json",
	                      .body = VEC_B_BODY,
	                      .body_len = 316};
	loci_signature sig;
	locus_error err;
	ck_assert_int_eq(loci_sign(s, &in, &sig, &err), 0);
	ck_assert_str_eq(sig.body_sha256,
	                 "V9Z20UJTvkvpJ50flBzKE32+6m2zJjweHpDMX/U4Uy0=");
	ck_assert_str_eq(sig.content_length, "316");
	ck_assert_str_eq(sig.signing_string,
	                 "date: " VEC_DATE
	                 "\n(request-target): post /20160918/volumeAttachments"
	                 "\nhost: " VEC_HOST "\ncontent-length: 316"
	                 "\ncontent-type: application/json"
	                 "\nx-content-sha256: "
	                 "V9Z20UJTvkvpJ50flBzKE32+6m2zJjweHpDMX/U4Uy0=");
	ck_assert_ptr_nonnull(strstr(sig.authorization,
	                             "headers=\"date (request-target) host "
	                             "content-length content-type "
	                             "x-content-sha256\""));
	ck_assert_ptr_nonnull(
	    strstr(sig.authorization, "signature=\"" VEC_B_SIG "\""));
	loci_signature_clear(&sig);
	loci_signer_free(s);
}
END_TEST

static int64_t vec_clock(void *p)
{
	(void)p;
	return 1388957500; /* 2014-01-05 21:31:40 UTC */
}

/* Vector C through the prepare hook: the port stays in host. */
START_TEST(vector_c_prepare)
{
	loci_signer *s = sample_signer();
	loci_signer_set_clock(s, vec_clock, NULL);
	lhttp_request rq = {.method = "GET"};
	lhttp_headers h = {0};
	locus_error err;
	ck_assert_int_eq(
	    loci_prepare(s, &rq, "http://localhost:7000/api", &h, &err), 0);
	ck_assert_str_eq(lhttp_headers_get(&h, "host"), "localhost:7000");
	ck_assert_str_eq(lhttp_headers_get(&h, "date"),
	                 "Sun, 05 Jan 2014 21:31:40 GMT");
	ck_assert_ptr_null(lhttp_headers_get(&h, "x-content-sha256"));
	/* The same signing string as the vector (with the real weekday). */
	loci_sign_input in = {.method = "GET",
	                      .target = "/api",
	                      .host = "localhost:7000",
	                      .date = "Sun, 05 Jan 2014 21:31:40 GMT"};
	loci_signature sig;
	ck_assert_int_eq(loci_sign(s, &in, &sig, &err), 0);
	ck_assert_str_eq(sig.signing_string,
	                 "date: Sun, 05 Jan 2014 21:31:40 GMT\n"
	                 "(request-target): get /api\nhost: localhost:7000");
	ck_assert_str_eq(lhttp_headers_get(&h, "authorization"),
	                 sig.authorization);
	loci_signature_clear(&sig);
	lhttp_headers_clear(&h);
	/* A body method gets the body headers; an empty body is hashed. */
	lhttp_request post = {.method = "POST", .has_body = true};
	ck_assert_int_eq(
	    loci_prepare(s, &post, "https://h.example/x?y=1", &h, &err), 0);
	ck_assert_str_eq(lhttp_headers_get(&h, "x-content-sha256"),
	                 "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
	ck_assert_str_eq(lhttp_headers_get(&h, "content-length"), "0");
	ck_assert_str_eq(lhttp_headers_get(&h, "content-type"),
	                 "application/json");
	ck_assert_str_eq(lhttp_headers_get(&h, "host"), "h.example");
	lhttp_headers_clear(&h);
	loci_signer_free(s);
}
END_TEST

START_TEST(signer_refuses_bad_keys)
{
	loci_signer *s = NULL;
	locus_error err;
	ck_assert_int_eq(loci_signer_new(&s, "k", "junk", 4, NULL, &err),
	                 LOCUS_EINVALID);
	ck_assert_int_eq(loci_signer_new(&s, "", "junk", 4, NULL, &err),
	                 LOCUS_EINVALID);
	/* An EC key is not an OCI API key. */
	EVP_PKEY *ec = EVP_EC_gen("P-256");
	BIO *b = BIO_new(BIO_s_mem());
	PEM_write_bio_PrivateKey(b, ec, NULL, NULL, 0, NULL, NULL);
	char *pem;
	long n = BIO_get_mem_data(b, &pem);
	ck_assert_int_eq(loci_signer_new(&s, "k", pem, (size_t)n, NULL, &err),
	                 LOCUS_EINVALID);
	ck_assert_ptr_nonnull(strstr(err.message, "RSA"));
	BIO_free(b);
	EVP_PKEY_free(ec);
	/* An encrypted key needs its pass phrase, and the right one. */
	EVP_PKEY *rsa = EVP_RSA_gen(1024);
	b = BIO_new(BIO_s_mem());
	PEM_write_bio_PKCS8PrivateKey(b, rsa, EVP_aes_128_cbc(), NULL, 0, NULL,
	                              (void *)"sesame");
	n = BIO_get_mem_data(b, &pem);
	ck_assert_int_eq(loci_signer_new(&s, "k", pem, (size_t)n, NULL, &err),
	                 LOCUS_EINVALID);
	ck_assert_int_eq(
	    loci_signer_new(&s, "k", pem, (size_t)n, "wrong", &err),
	    LOCUS_EINVALID);
	ck_assert_int_eq(
	    loci_signer_new(&s, "k", pem, (size_t)n, "sesame", &err), 0);
	loci_signer_free(s);
	BIO_free(b);
	EVP_PKEY_free(rsa);
}
END_TEST

/* ---------------- ~/.oci/config ---------------- */

static char cfg_dir[64];

static const char *cfg_file(const char *name, const char *text)
{
	static char p[4][160];
	static int i;
	i = (i + 1) % 4;
	ck_assert(cfg_dir[0]); /* made by main, removed after the run */
	snprintf(p[i], sizeof p[i], "%s/%s", cfg_dir, name);
	ck_assert_int_eq(oci_fx_write(p[i], text), 0);
	return p[i];
}

START_TEST(config_profiles)
{
	const char *path = cfg_file(
	    "config", "# comment\n[DEFAULT]\nuser = ocid1.user.oc1..u\n"
	              "tenancy=ocid1.tenancy.oc1..t\n"
	              "fingerprint=aa:bb\nregion=us-ashburn-1\n"
	              "key_file=~/.oci/key.pem\n\n"
	              "; other\n[ADMIN]\nREGION: eu-frankfurt-1\n"
	              "pass_phrase = secret \nunknown_key = x\n"
	              "[OTHER]\nuser=nobody\n");
	setenv("HOME", "/home/tester", 1);
	loci_config c;
	locus_error err;
	ck_assert_int_eq(loci_config_load(&c, path, NULL, &err), 0);
	ck_assert_str_eq(c.user, "ocid1.user.oc1..u");
	ck_assert_str_eq(c.region, "us-ashburn-1");
	ck_assert_str_eq(c.key_file, "/home/tester/.oci/key.pem");
	ck_assert_ptr_null(c.pass_phrase);
	loci_config_clear(&c);
	ck_assert_int_eq(loci_config_load(&c, path, "ADMIN", &err), 0);
	ck_assert_str_eq(c.region, "eu-frankfurt-1");  /* its own wins */
	ck_assert_str_eq(c.user, "ocid1.user.oc1..u"); /* from DEFAULT */
	ck_assert_str_eq(c.pass_phrase, "secret");
	loci_config_clear(&c);
	setenv("OCI_CLI_PROFILE", "OTHER", 1);
	ck_assert_int_eq(loci_config_load(&c, path, NULL, &err), 0);
	ck_assert_str_eq(c.user, "nobody");
	unsetenv("OCI_CLI_PROFILE");
	loci_config_clear(&c);
	ck_assert_int_eq(loci_config_load(&c, path, "NOPE", &err),
	                 LOCUS_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(err.message, "[NOPE]"));
	ck_assert_int_eq(loci_config_load(&c, "/nonexistent/x", NULL, &err),
	                 LOCUS_ENOTFOUND);
	const char *bad = cfg_file("bad", "[DEFAULT]\njust words\n");
	ck_assert_int_eq(loci_config_load(&c, bad, NULL, &err), LOCUS_EINVALID);
	ck_assert_int_eq(err.line, 2);
	const char *nosec = cfg_file("nosec", "user=x\n");
	ck_assert_int_eq(loci_config_load(&c, nosec, NULL, &err),
	                 LOCUS_EINVALID);
	const char *badsec = cfg_file("badsec", "[DEFAULT\nuser=x\n");
	ck_assert_int_eq(loci_config_load(&c, badsec, NULL, &err),
	                 LOCUS_EINVALID);
}
END_TEST

START_TEST(config_signers)
{
	size_t len;
	char *pem = slurp(src_path("tests/oci/sample-key.pem"), &len);
	const char *key = cfg_file("key.pem", pem);
	free(pem);
	const char *tok = cfg_file("token", "  tok.en-123\n");
	char text[512];
	snprintf(text, sizeof text,
	         "[DEFAULT]\ntenancy=T\nuser=U\nfingerprint=F\nkey_file=%s\n"
	         "[S]\nsecurity_token_file=%s\n[NOKEY]\nkey_file=\n"
	         "[BADTOK]\nsecurity_token_file=%s\n",
	         key, tok, key);
	const char *path = cfg_file("config2", text);
	loci_config c;
	loci_signer *s;
	locus_error err;
	ck_assert_int_eq(loci_config_load(&c, path, NULL, &err), 0);
	ck_assert_int_eq(loci_signer_from_config(&s, &c, &err), 0);
	ck_assert_str_eq(loci_signer_key_id(s), "T/U/F");
	loci_signer_free(s);
	loci_config_clear(&c);
	ck_assert_int_eq(loci_config_load(&c, path, "S", &err), 0);
	ck_assert_int_eq(loci_signer_from_config(&s, &c, &err), 0);
	ck_assert_str_eq(loci_signer_key_id(s), "ST$tok.en-123");
	loci_signer_free(s);
	loci_config_clear(&c);
	/* A PEM file is no token (line breaks inside). */
	ck_assert_int_eq(loci_config_load(&c, path, "BADTOK", &err), 0);
	ck_assert_int_eq(loci_signer_from_config(&s, &c, &err), LOCUS_EINVALID);
	loci_config_clear(&c);
	const char *part = cfg_file("config3", "[DEFAULT]\nkey_file=/x\n");
	ck_assert_int_eq(loci_config_load(&c, part, NULL, &err), 0);
	ck_assert_int_eq(loci_signer_from_config(&s, &c, &err), LOCUS_EINVALID);
	ck_assert_ptr_nonnull(strstr(err.message, "tenancy"));
	loci_config_clear(&c);
}
END_TEST

/* ---------------- routes ---------------- */

START_TEST(routes_default_matches_fake_table)
{
	/* tests/oci/routes-draft.json is what the fake serves by default: it
	   must be the client's built-in table, entry for entry. */
	size_t len;
	char *text = slurp(src_path("tests/oci/routes-draft.json"), &len);
	cJSON *j = cJSON_ParseWithLength(text, len);
	ck_assert_ptr_nonnull(j);
	loci_routes rt;
	locus_error err;
	ck_assert_int_eq(loci_routes_default(&rt, &err), 0);
	ck_assert_int_eq(cJSON_GetArraySize(j), LOCI_OP_COUNT);
	for (int i = 0; i < LOCI_OP_COUNT; i++) {
		const char *v = cJSON_GetStringValue(
		    cJSON_GetObjectItem(j, loci_op_name((loci_op)i)));
		ck_assert_msg(v != NULL, "%s missing",
		              loci_op_name((loci_op)i));
		char want[512];
		snprintf(want, sizeof want, "%s %s", rt.r[i].method,
		         rt.r[i].path);
		ck_assert_str_eq(v, want);
	}
	cJSON_Delete(j);
	free(text);
	loci_routes_clear(&rt);
}
END_TEST

START_TEST(routes_override_and_paths)
{
	loci_routes rt;
	locus_error err;
	ck_assert_int_eq(loci_routes_default(&rt, &err), 0);
	const char *ok = "{\"get\": \"GET /v2/boxes/{sandboxId}\", "
	                 "\"read_file\": \"GET /v2/{sandboxId}/f/{filePath}\"}";
	ck_assert_int_eq(loci_routes_apply_json(&rt, ok, strlen(ok), &err), 0);
	const char *v1[] = {"sandboxId", "sbx-a b", NULL};
	char *p = loci_route_path(&rt, LOCI_GET, v1);
	ck_assert_str_eq(p, "/v2/boxes/sbx-a%20b");
	free(p);
	const char *v2[] = {"sandboxId", "s", "filePath", "/workspace/a+b.txt",
	                    NULL};
	p = loci_route_path(&rt, LOCI_READ_FILE, v2);
	ck_assert_str_eq(p, "/v2/s/f//workspace/a%2Bb.txt");
	free(p);
	/* Not named by the template: appended as query parameters. */
	p = loci_route_path(&rt, LOCI_WRITE_FILE, v2);
	ck_assert_str_eq(p, "/20231130/sandboxes/s/files?filePath=/workspace/"
	                    "a%2Bb.txt");
	free(p);
	const char *v3[] = {"sandboxId", "s", "commandId", "c", "fromSeq", "8",
	                    "untilSeq",  "9", NULL};
	p = loci_route_path(&rt, LOCI_EVENTS, v3);
	ck_assert_str_eq(p, "/20231130/sandboxes/s/commands/c/events?fromSeq=8"
	                    "&untilSeq=9");
	free(p);
	static const char *const bad[] = {
	    "[]",
	    "{\"nope\": \"GET /x\"}",
	    "{\"get\": \"FETCH /x\"}",
	    "{\"get\": \"GET x\"}",
	    "{\"get\": \"GET /x y\"}",
	    "{\"get\": 7}",
	    "{\"get\": \"GET\"}",
	    "{\"get\": \"GET /a#b\"}",
	    "not json",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(loci_routes_apply_json(&rt, bad[i],
		                                     strlen(bad[i]),
		                                     &err) == LOCUS_EINVALID,
		              "accepted %s", bad[i]);
	loci_routes_clear(&rt);
}
END_TEST

START_TEST(base64_decode)
{
	char *o;
	size_t n;
	ck_assert_int_eq(loci_b64_decode("aGk=", 4, &o, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(o, "hi");
	free(o);
	ck_assert_int_eq(loci_b64_decode("aGk", 3, &o, &n), 0); /* unpadded */
	ck_assert_str_eq(o, "hi");
	free(o);
	ck_assert_int_eq(loci_b64_decode("AAEC\n", 5, &o, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert(o[0] == 0 && o[1] == 1 && o[2] == 2);
	free(o);
	ck_assert_int_eq(loci_b64_decode("", 0, &o, &n), 0);
	ck_assert_uint_eq(n, 0);
	free(o);
	static const char *const bad[] = {
	    "a", "aG=k", "a b=", " aGk=", "aGk*", "aGk==="};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(loci_b64_decode(bad[i], strlen(bad[i]), &o, &n) ==
		                  LOCUS_EINVALID,
		              "accepted %s", bad[i]);
}
END_TEST

START_TEST(durations)
{
	long m;
	locus_error err;
	ck_assert_int_eq(loci_duration_minutes("PT1H", &m, &err), 0);
	ck_assert_int_eq(m, 60);
	ck_assert_int_eq(loci_duration_minutes("P1DT2H30M", &m, &err), 0);
	ck_assert_int_eq(m, 1590);
	ck_assert_int_eq(loci_duration_minutes("PT90S", &m, &err), 0);
	ck_assert_int_eq(m, 2);
	ck_assert_int_eq(loci_duration_minutes("PT48H", &m, &err), 0);
	static const char *const bad[] = {"PT48H1M", "P3D",     "PT0M", "1H",
	                                  "PT",      "P",       "PTH",  "PT1X",
	                                  "P1H",     "forever", "-PT1H"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(loci_duration_minutes(bad[i], &m, &err) ==
		                  LOCUS_EINVALID,
		              "accepted %s", bad[i]);
}
END_TEST

/* ---------------- against the fake ---------------- */

static oci_fx fx;

static void fake_up(void)
{
	ck_assert_int_eq(oci_fx_start(&fx, NULL), 0);
}

static void fake_down(void)
{
	oci_fx_stop(&fx);
}

/* State of every sandbox the fake knows: {"sbx-...": "RUNNING"}. */
static cJSON *fake_sandboxes(void)
{
	char *s = oci_fx_call(&fx, "GET", "/_fake/sandboxes", NULL);
	ck_assert_ptr_nonnull(s);
	cJSON *j = cJSON_Parse(s);
	free(s);
	ck_assert_ptr_nonnull(j);
	return j;
}

static const char *fake_state(cJSON *all, const char *id)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(all, id));
}

static int count_state(const char *state)
{
	cJSON *all = fake_sandboxes(), *it;
	int n = 0;
	cJSON_ArrayForEach(it, all) n += !strcmp(it->valuestring, state);
	cJSON_Delete(all);
	return n;
}

static void faults(const char *json)
{
	ck_assert_int_eq(oci_fx_faults(&fx, json), 0);
}

static locus_session *open_session(locus_oci_options *o)
{
	locus_session *s = NULL;
	locus_error err;
	ck_assert_msg(locus_session_oci_new(&s, o, &err) == 0, "%s",
	              err.message);
	return s;
}

static void sh_run(locus_session *s, const char *cmd, double t, int want_code,
                   const char *want_out)
{
	int code;
	char *out;
	size_t len;
	locus_error err;
	ck_assert_msg(s->exec(s, cmd, t, &code, &out, &len, &err) == 0, "%s",
	              err.message);
	ck_assert_msg(code == want_code, "%s: exit %d, output %s", cmd, code,
	              out);
	if (want_out)
		ck_assert_msg(!strcmp(out, want_out), "%s: output \"%s\"", cmd,
		              out);
	free(out);
}

START_TEST(create_exec_close_deletes)
{
	locus_oci_options o;
	oci_fx_options(&fx, &o);
	locus_session *s = open_session(&o);
	const char *id = locus_session_oci_id(s);
	ck_assert(strncmp(id, "sbx-", 4) == 0);
	char want[128];
	snprintf(want, sizeof want, "oci-sandbox:us-chicago-1/%s", id);
	ck_assert_str_eq(locus_session_oci_label(s), want);
	sh_run(s, "echo hi; echo err >&2; exit 3", 10, 3, "hi\nerr\n");
	char *mode = oci_fx_call(&fx, "GET", "/_fake/mode", NULL);
	ck_assert_ptr_nonnull(mode);
	if (strstr(mode, "true"))
		sh_run(s, "pwd", 10, 0, "/workspace\n");
	else
		test_skip("pwd in /workspace needs bwrap in the fake");
	free(mode);
	char *keep = strdup(id);
	cJSON *all = fake_sandboxes();
	ck_assert_str_eq(fake_state(all, keep), "RUNNING");
	cJSON_Delete(all);
	locus_session_free(s);
	all = fake_sandboxes();
	ck_assert_str_eq(fake_state(all, keep), "DELETED");
	cJSON_Delete(all);
	free(keep);
}
END_TEST

START_TEST(connect_never_deletes)
{
	locus_oci_options o;
	oci_fx_options(&fx, &o);
	locus_session *owner = open_session(&o);
	char *id = strdup(locus_session_oci_id(owner));
	locus_oci_options c;
	oci_fx_options(&fx, &c);
	c.create_project = NULL;
	c.sandbox_id = id;
	locus_session *s = open_session(&c);
	sh_run(s, "echo attached", 10, 0, "attached\n");
	locus_session_free(s);
	cJSON *all = fake_sandboxes();
	ck_assert_str_eq(fake_state(all, id), "RUNNING");
	cJSON_Delete(all);
	/* An unknown id is refused. */
	c.sandbox_id = "sbx-doesnotexist0000";
	locus_error err;
	ck_assert_int_eq(locus_session_oci_new(&s, &c, &err), LOCUS_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(err.message, "404"));
	/* Both or neither of id and project: a usage error. */
	c.create_project = "p";
	c.sandbox_id = id;
	ck_assert_int_eq(locus_session_oci_new(&s, &c, &err), LOCUS_EINVALID);
	locus_session_free(owner);
	free(id);
}
END_TEST

START_TEST(failed_create_leaves_nothing)
{
	int before = count_state("DELETED");
	faults("{\"create_fails\": true}");
	locus_oci_options o;
	oci_fx_options(&fx, &o);
	locus_session *s = NULL;
	locus_error err;
	ck_assert_int_eq(locus_session_oci_new(&s, &o, &err), LOCUS_EIO);
	ck_assert_ptr_nonnull(strstr(err.message, "FAILED"));
	faults("{}");
	ck_assert_int_eq(count_state("FAILED"), 0);
	ck_assert_int_eq(count_state("DELETED"), before + 1);
	/* A sandbox that never gets ready: timed out, and deleted. */
	oci_fx fx2;
	const char *slow[] = {"--ready-polls", "1000000", NULL};
	ck_assert_int_eq(oci_fx_start(&fx2, slow), 0);
	oci_fx_options(&fx2, &o);
	o.ready_timeout_s = 0.5;
	ck_assert_int_eq(locus_session_oci_new(&s, &o, &err), LOCUS_ETIMEOUT);
	char *st = oci_fx_call(&fx2, "GET", "/_fake/sandboxes", NULL);
	ck_assert_ptr_nonnull(strstr(st, "DELETED"));
	ck_assert_ptr_null(strstr(st, "CREATING"));
	free(st);
	oci_fx_stop(&fx2);
}
END_TEST

START_TEST(exec_timeout_and_cap)
{
	locus_oci_options o;
	oci_fx_options(&fx, &o);
	o.max_output_bytes = 1000;
	locus_session *s = open_session(&o);
	int code;
	char *out;
	size_t len;
	locus_error err;
	time_t t0 = time(NULL);
	ck_assert_int_eq(
	    s->exec(s, "echo started; sleep 30", 1.5, &code, &out, &len, &err),
	    0);
	ck_assert_int_lt(time(NULL) - t0, 15);
	ck_assert_int_eq(code, -1); /* timed out: no exit status */
	ck_assert_str_eq(out, "started\n");
	free(out);
	/* 5000 bytes of output, 1000 kept: head, a note, tail. */
	ck_assert_int_eq(s->exec(s,
	                         "i=0; while [ $i -lt 100 ]; do printf "
	                         "'%049d\\n' $i; i=$((i+1)); done",
	                         10, &code, &out, &len, &err),
	                 0);
	ck_assert_int_eq(code, 0);
	ck_assert_uint_lt(len, 1100);
	ck_assert(strncmp(out, "0000000000", 10) == 0);
	ck_assert_ptr_nonnull(strstr(out, "bytes of output dropped"));
	ck_assert_ptr_nonnull(strstr(out, "00099\n"));
	free(out);
	/* A command printing the marker cannot fake its status. */
	sh_run(s, "printf '\\n\\036locus-rc 0\\n'; exit 4", 10, 4, NULL);
	locus_session_free(s);
}
END_TEST

START_TEST(stream_faults)
{
	locus_oci_options o;
	oci_fx_options(&fx, &o);
	locus_session *s = open_session(&o);
	const char *cmd = "for i in 1 2 3 4 5; do echo line$i; done";
	const char *want = "line1\nline2\nline3\nline4\nline5\n";
	faults("{\"cut_after\": 2}");
	sh_run(s, cmd, 10, 0, want);
	faults("{\"duplicate\": true}");
	sh_run(s, cmd, 10, 0, want);
	faults("{\"drip_ms\": 2}");
	sh_run(s, cmd, 10, 0, want);
	faults(
	    "{\"stream\": \"ndjson\", \"cut_after\": 3, \"duplicate\": true}");
	sh_run(s, cmd, 10, 0, want);
	faults("{\"stream\": \"sse\"}");
	locus_session_free(s);
}
END_TEST

/* A client of the fake, signing with the fixture's API key (and clock). */
static loci_client *fx_client(int64_t (*clock)(void *))
{
	loci_config cfg;
	locus_error err;
	ck_assert_int_eq(loci_config_load(&cfg, fx.config, NULL, &err), 0);
	loci_signer *sg;
	ck_assert_int_eq(loci_signer_from_config(&sg, &cfg, &err), 0);
	loci_config_clear(&cfg);
	if (clock)
		loci_signer_set_clock(sg, clock, NULL);
	loci_routes rt;
	ck_assert_int_eq(loci_routes_default(&rt, &err), 0);
	loci_client_options co = {.endpoint = fx.endpoint,
	                          .region = "us-chicago-1"};
	loci_client *c;
	ck_assert_int_eq(loci_client_new(&c, &co, sg, &rt, &err), 0);
	return c;
}

static int64_t skewed(void *p)
{
	(void)p;
	return (int64_t)time(NULL) - 400;
}

START_TEST(stream_data_base64_and_lies)
{
	locus_oci_options o;
	oci_fx_options(&fx, &o);
	o.data_base64 = true;
	locus_session *s = open_session(&o);
	faults("{\"data_base64\": true}");
	sh_run(s, "printf 'b64\\n'", 10, 0, "b64\n");
	/* Text data read as base64: refused, not garbage passed on. */
	faults("{}");
	int code;
	char *out;
	size_t len;
	locus_error err;
	ck_assert_int_eq(
	    s->exec(s, "echo 'not base64!'", 10, &code, &out, &len, &err),
	    LOCUS_EIO);
	locus_session_free(s);
	oci_fx_options(&fx, &o);
	s = open_session(&o);
	faults("{\"bad_event\": true}");
	ck_assert_int_eq(s->exec(s, "echo x", 10, &code, &out, &len, &err),
	                 LOCUS_EIO);
	ck_assert_ptr_nonnull(strstr(err.message, "without seq"));
	faults("{}");
	/* Outside /workspace: through the shell, both ways, any bytes. */
	char bin[300];
	for (int i = 0; i < 300; i++)
		bin[i] = (char)(i * 7);
	ck_assert_int_eq(s->upload(s, "/tmp/j.bin", bin, sizeof bin, &err), 0);
	ck_assert_int_eq(s->download(s, "/tmp/j.bin", &out, &len, &err), 0);
	ck_assert_uint_eq(len, sizeof bin);
	ck_assert(memcmp(out, bin, len) == 0);
	free(out);
	ck_assert_int_eq(s->download(s, "/tmp/none", &out, &len, &err),
	                 LOCUS_ENOTFOUND);
	locus_session_free(s);
}
END_TEST

START_TEST(stream_resume_counts)
{
	locus_oci_options o;
	oci_fx_options(&fx, &o);
	locus_session *s = open_session(&o);
	faults("{\"cut_after\": 2}");
	/* Through the client: the drop shows as a resume from lastSeq+1. */
	loci_run_result r;
	locus_error err;
	const char *id = locus_session_oci_id(s);
	loci_client *c = fx_client(NULL);
	ck_assert_int_eq(loci_run(c, id, "echo a; echo b; echo c", NULL, 10,
	                          1 << 20, &r, &err),
	                 0);
	ck_assert(r.finished);
	ck_assert_int_eq(r.exit_code, 0);
	ck_assert_int_eq(r.resumes, 1);
	ck_assert_str_eq(r.out, "a\nb\nc\n");
	ck_assert(strncmp(r.command_id, "cmd-", 4) == 0);
	loci_run_result_clear(&r);
	faults("{}");
	loci_client_free(c);
	locus_session_free(s);
}
END_TEST

/* ---- cancellation (exec_ctl) ---- */

/* The service's cancel signals the command it started; the fake, like a
   process-group kill, stops that one, but not the group `timeout` makes
   nor a setsid child: the guard's kill script must. */
START_TEST(cancel_kills_the_command)
{
	locus_oci_options o;
	oci_fx_options(&fx, &o);
	locus_session *s = open_session(&o);
	ck_assert_ptr_nonnull(s->exec_ctl);
	cancel_fx_ticker(s, "/workspace/", NULL);
	int code;
	char *out;
	size_t len;
	bool cancelled;
	locus_error err;
	/* the service was asked too */
	char *log = oci_fx_call(&fx, "GET", "/_fake/log", NULL);
	ck_assert_ptr_nonnull(log);
	ck_assert_ptr_nonnull(strstr(log, "\"cancel\", 202"));
	free(log);
	/* nothing ticks any more: both tickers (their pids in tick.pid and
	   esc.pid) are gone or zombies, polled for 25 s at most each */
	ck_assert_int_eq(
	    s->exec(s,
	            "for f in tick esc; do p=$(cat $f.pid); [ -n \"$p\" ] || "
	            "exit 2; i=0; while [ -e /proc/$p ] && ! grep -q ') Z' "
	            "/proc/$p/stat 2>/dev/null; do [ $i -lt 500 ] || exit 1; "
	            "sleep 0.05; i=$((i+1)); done; done",
	            60, &code, &out, &len, &err),
	    0);
	ck_assert_msg(code == 0, "still running after the cancel (%d)", code);
	free(out);
	/* never cancelled: an ordinary result, and no guard file left but
	   this command's own */
	locus_call_ctl quiet = LOCUS_CALL_CTL_INIT;
	ck_assert_int_eq(s->exec_ctl(s, "echo fine; exit 4", 20, &quiet, &code,
	                             &out, &len, &cancelled, &err),
	                 0);
	ck_assert(!cancelled);
	ck_assert_int_eq(code, 4);
	ck_assert_str_eq(out, "fine\n");
	free(out);
	sh_run(s, "ls -a /workspace/.locus-harness | grep -c locus-c-", 20, 0,
	       "1\n");
	locus_session_free(s);
}
END_TEST

START_TEST(retries_and_tokens)
{
	int before = count_state("RUNNING") + count_state("DELETED");
	/* 429 with retry-after on create, 503 on a poll, then a create that
	   the service carried out but whose answer was lost (500): the retry
	   token makes the retry return the same sandbox. */
	faults("{\"status\": [{\"op\": \"create\", \"code\": 429, "
	       "\"retry_after\": \"1\", \"times\": 1}, {\"op\": \"get\", "
	       "\"code\": 503, \"times\": 2}]}");
	locus_oci_options o;
	oci_fx_options(&fx, &o);
	time_t t0 = time(NULL);
	locus_session *s = open_session(&o);
	ck_assert_int_ge(time(NULL) - t0, 1); /* retry-after was honoured */
	locus_session_free(s);
	faults("{\"status\": [{\"op\": \"create\", \"code\": 500, "
	       "\"after\": true, \"times\": 1}]}");
	s = open_session(&o);
	locus_session_free(s);
	faults("{}");
	ck_assert_int_eq(count_state("RUNNING") + count_state("DELETED"),
	                 before + 2);
	/* Persistent 500s: a clear error with the request id. */
	faults("{\"status\": [{\"op\": \"create\", \"code\": 500, "
	       "\"times\": 100}]}");
	locus_error err;
	ck_assert_int_eq(locus_session_oci_new(&s, &o, &err), LOCUS_EIO);
	ck_assert_ptr_nonnull(strstr(err.message, "HTTP 500"));
	ck_assert_ptr_nonnull(strstr(err.message, "opc-request-id fake-"));
	faults("{}");
}
END_TEST

START_TEST(refused_signatures)
{
	/* A key the service does not know. */
	char path[256], text[512];
	snprintf(path, sizeof path, "%s/other.pem", fx.dir);
	ck_assert_int_eq(oci_fx_keygen(path), 0);
	char cfg[256];
	snprintf(cfg, sizeof cfg, "%s/config-other", fx.dir);
	snprintf(text, sizeof text,
	         "[DEFAULT]\ntenancy=ocid1.tenancy.oc1..test\nuser=ocid1.user."
	         "oc1..test\nfingerprint=12:34:56:78:9a:bc:de:f0:12:34:56:78:"
	         "9a:bc:de:f0\nregion=r\nkey_file=%s\n",
	         path);
	ck_assert_int_eq(oci_fx_write(cfg, text), 0);
	locus_oci_options o;
	oci_fx_options(&fx, &o);
	o.config_file = cfg;
	locus_session *s;
	locus_error err;
	ck_assert_int_eq(locus_session_oci_new(&s, &o, &err), LOCUS_EDENIED);
	ck_assert_ptr_nonnull(strstr(err.message, "401"));
	ck_assert_ptr_nonnull(strstr(err.message, "NotAuthenticated"));
	/* The session-token profile is accepted. */
	oci_fx_options(&fx, &o);
	o.profile = "SESSION";
	s = open_session(&o);
	sh_run(s, "echo token", 10, 0, "token\n");
	locus_session_free(s);
}
END_TEST

START_TEST(refused_clock_skew)
{
	locus_error err;
	loci_client *c = fx_client(skewed);
	char *st;
	ck_assert_int_eq(loci_sandbox_state(c, "sbx-x", &st, NULL, &err),
	                 LOCUS_EDENIED);
	ck_assert_ptr_nonnull(strstr(err.message, "NotAuthenticated"));
	loci_client_free(c);
}
END_TEST

START_TEST(files_round_trip)
{
	locus_oci_options o;
	oci_fx_options(&fx, &o);
	o.write_part_bytes = 1000;
	locus_session *s = open_session(&o);
	locus_error err;
	char bin[256];
	for (int i = 0; i < 256; i++)
		bin[i] = (char)i;
	ck_assert_int_eq(
	    s->upload(s, "/workspace/bin.dat", bin, sizeof bin, &err), 0);
	char *out;
	size_t len;
	ck_assert_int_eq(s->download(s, "/workspace/bin.dat", &out, &len, &err),
	                 0);
	ck_assert_uint_eq(len, 256);
	ck_assert(memcmp(out, bin, 256) == 0);
	free(out);
	/* Over the part size: parts joined (and hash-checked) inside. */
	size_t big = 4321;
	char *data = malloc(big);
	for (size_t i = 0; i < big; i++)
		data[i] = (char)('a' + i % 26);
	ck_assert_msg(s->upload(s, "/workspace/big.txt", data, big, &err) == 0,
	              "%s", err.message);
	ck_assert_int_eq(s->download(s, "/workspace/big.txt", &out, &len, &err),
	                 0);
	ck_assert_uint_eq(len, big);
	ck_assert(memcmp(out, data, big) == 0);
	free(out);
	sh_run(s, "ls /workspace | grep -c part || true", 10, 0, "0\n");
	free(data);
	/* Empty files. */
	ck_assert_int_eq(s->upload(s, "/workspace/empty", "", 0, &err), 0);
	ck_assert_int_eq(s->download(s, "/workspace/empty", &out, &len, &err),
	                 0);
	ck_assert_uint_eq(len, 0);
	free(out);
	/* Missing file, outside the workspace. */
	ck_assert_int_eq(s->download(s, "/workspace/nope", &out, &len, &err),
	                 LOCUS_ENOTFOUND);
	ck_assert_int_eq(
	    s->download(s, "/workspace/../etc/passwd", &out, &len, &err),
	    LOCUS_EINVALID);
	/* A service whose hashes lie is caught both ways. */
	faults("{\"bad_read_hash\": true}");
	ck_assert_int_eq(s->download(s, "/workspace/bin.dat", &out, &len, &err),
	                 LOCUS_EIO);
	ck_assert_ptr_nonnull(strstr(err.message, "hash"));
	faults("{\"bad_write_hash\": true}");
	ck_assert_int_eq(s->upload(s, "/workspace/x", "x", 1, &err), LOCUS_EIO);
	faults("{}");
	locus_session_free(s);
}
END_TEST

START_TEST(extend_and_expiry)
{
	locus_oci_options o;
	oci_fx_options(&fx, &o);
	locus_session *s = open_session(&o);
	locus_error err;
	char *e1 = NULL, *e2 = NULL;
	ck_assert_int_eq(locus_session_oci_extend(&e1, s, "PT30M", &err), 0);
	ck_assert_int_eq(locus_session_oci_extend(&e2, s, "PT1H", &err), 0);
	ck_assert_str_gt(e2, e1); /* RFC 3339 sorts as time */
	locus_free(e1);
	locus_free(e2);
	ck_assert_int_eq(locus_session_oci_extend(&e1, s, "PT49H", &err),
	                 LOCUS_EINVALID);
	/* Expired: commands get 409 IncorrectState. */
	char path[128];
	snprintf(path, sizeof path, "/_fake/expire/%s",
	         locus_session_oci_id(s));
	free(oci_fx_call(&fx, "POST", path, ""));
	int code;
	char *out;
	size_t len;
	ck_assert_int_eq(s->exec(s, "echo x", 5, &code, &out, &len, &err),
	                 LOCUS_EINVALID);
	ck_assert_ptr_nonnull(strstr(err.message, "409"));
	locus_session_free(s); /* stop 409, delete: still gone */
	ck_assert_int_eq(count_state("STOPPED"), 0);
}
END_TEST

START_TEST(tls_with_ca_file)
{
	oci_fx t;
	char dir[64];
	snprintf(dir, sizeof dir, "/tmp/locus-ocitls-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	const char *args[] = {"--tls", dir, NULL};
	ck_assert_int_eq(oci_fx_start(&t, args), 0);
	char https[80], ca[96];
	snprintf(https, sizeof https, "https://127.0.0.1:%d", t.fake.port);
	snprintf(ca, sizeof ca, "%s/ca.pem", dir);
	locus_oci_options o;
	oci_fx_options(&t, &o);
	o.endpoint = https;
	locus_session *s;
	locus_error err;
	/* Not trusted without the CA, trusted with it. */
	ck_assert_int_eq(locus_session_oci_new(&s, &o, &err), LOCUS_EIO);
	o.ca_file = ca;
	s = open_session(&o);
	sh_run(s, "echo tls", 10, 0, "tls\n");
	locus_session_free(s);
	oci_fx_stop(&t);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(alternative_routes)
{
	/* Both sides re-pointed by one route file. */
	oci_fx alt;
	const char *args[] = {"--routes", src_path("tests/oci/routes-alt.json"),
	                      "--stream", "ndjson", NULL};
	ck_assert_int_eq(oci_fx_start(&alt, args), 0);
	locus_oci_options o;
	oci_fx_options(&alt, &o);
	o.routes_file = src_path("tests/oci/routes-alt.json");
	o.stream = "ndjson";
	locus_session *s = open_session(&o);
	sh_run(s, "echo alt", 10, 0, "alt\n");
	locus_error err;
	ck_assert_int_eq(s->upload(s, "/workspace/d/f.txt", "v", 1, &err), 0);
	char *out;
	size_t len;
	ck_assert_int_eq(s->download(s, "/workspace/d/f.txt", &out, &len, &err),
	                 0);
	ck_assert_str_eq(out, "v");
	free(out);
	locus_session_free(s);
	/* The draft table against the alternative fake: refused cleanly. */
	oci_fx_options(&alt, &o);
	ck_assert_int_eq(locus_session_oci_new(&s, &o, &err), LOCUS_ENOTFOUND);
	oci_fx_stop(&alt);
}
END_TEST

/* ---------------- the command line ---------------- */

START_TEST(cli_tool_oci)
{
	int before = count_state("RUNNING");
	const char *argv[] = {locus_bin(),
	                      "tool",
	                      "bash",
	                      "{\"command\":\"echo hi\"}",
	                      "--backend",
	                      "oci",
	                      "--oci-create",
	                      "ocid1.generativeaiproject.oc1..p",
	                      "--oci-config",
	                      fx.config,
	                      "--oci-endpoint",
	                      fx.endpoint,
	                      "--oci-expiration",
	                      "PT30M",
	                      NULL};
	run_out r = run(argv, NULL, 0);
	ck_assert_msg(r.status == 0, "status %d: %s %s", r.status, r.out,
	              r.err);
	ck_assert_ptr_nonnull(strstr(r.out, "hi"));
	run_free(&r);
	ck_assert_int_eq(count_state("RUNNING"), before); /* deleted */
	/* Every file tool, one harness, through stdin lines. */
	const char *lines =
	    "{\"tool\":\"write\",\"arguments\":{\"path\":\"a.txt\","
	    "\"content\":\"one\\ntwo\\n\"}}\n"
	    "{\"tool\":\"read\",\"arguments\":{\"path\":\"a.txt\"}}\n"
	    "{\"tool\":\"edit\",\"arguments\":{\"path\":\"a.txt\","
	    "\"old\":\"two\",\"new\":\"deux\"}}\n"
	    "{\"tool\":\"grep\",\"arguments\":{\"pattern\":\"deux\"}}\n"
	    "{\"tool\":\"ls\",\"arguments\":{}}\n"
	    "{\"tool\":\"bash\",\"arguments\":{\"command\":\"cat a.txt\"}}"
	    "\n";
	const char *argv2[] = {
	    locus_bin(), "tool",           "-",         "--backend",
	    "oci",       "--oci-create",   "p",         "--oci-config",
	    fx.config,   "--oci-endpoint", fx.endpoint, NULL};
	r = run(argv2, lines, strlen(lines));
	ck_assert_msg(r.status == 0, "status %d: %s %s", r.status, r.out,
	              r.err);
	ck_assert_ptr_nonnull(strstr(r.out, "one\\ndeux"));
	ck_assert_ptr_null(strstr(r.out, "\"is_error\":true"));
	run_free(&r);
	/* Refusals: a bad shape (the service's 400), options without
	   --backend oci, neither --oci-sandbox nor --oci-create. */
	const char *bad1[] = {locus_bin(),
	                      "tool",
	                      "ls",
	                      "{}",
	                      "--backend",
	                      "oci",
	                      "--oci-create",
	                      "p",
	                      "--oci-config",
	                      fx.config,
	                      "--oci-endpoint",
	                      fx.endpoint,
	                      "--oci-shape",
	                      "HUGE",
	                      NULL};
	r = run(bad1, NULL, 0);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "unknown shape"));
	run_free(&r);
	const char *bad2[] = {locus_bin(),    "tool", "ls", "{}",
	                      "--oci-region", "x",    NULL};
	r = run(bad2, NULL, 0);
	ck_assert_int_eq(r.status, 2);
	run_free(&r);
	const char *bad3[] = {locus_bin(), "tool", "ls", "{}",
	                      "--backend", "oci",  NULL};
	r = run(bad3, NULL, 0);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "--oci-create"));
	run_free(&r);
	ck_assert_int_eq(count_state("RUNNING"), before);
}
END_TEST

START_TEST(cli_mcp_oci)
{
	int before = count_state("RUNNING");
	const char *in =
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"2024-11-05\",\"capabilities\":"
	    "{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"bash\",\"arguments\":{\"command\":"
	    "\"echo from-mcp\"}}}\n";
	const char *argv[] = {locus_bin(),
	                      "mcp",
	                      "--backend",
	                      "oci",
	                      "--oci-create",
	                      "p",
	                      "--oci-config",
	                      fx.config,
	                      "--oci-endpoint",
	                      fx.endpoint,
	                      NULL};
	run_out r = run(argv, in, strlen(in));
	ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err);
	ck_assert_msg(strstr(r.out, "from-mcp") != NULL, "%s\n%s", r.out,
	              r.err);
	ck_assert_ptr_nonnull(strstr(r.err, "oci-sandbox:us-chicago-1/sbx-"));
	run_free(&r);
	ck_assert_int_eq(count_state("RUNNING"), before);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("oci");
	TCase *tu = tcase_create("unit");
	tcase_add_test(tu, vector_a_get);
	tcase_add_test(tu, vector_b_post);
	tcase_add_test(tu, vector_c_prepare);
	tcase_add_test(tu, signer_refuses_bad_keys);
	tcase_add_test(tu, config_profiles);
	tcase_add_test(tu, config_signers);
	tcase_add_test(tu, routes_default_matches_fake_table);
	tcase_add_test(tu, routes_override_and_paths);
	tcase_add_test(tu, durations);
	tcase_add_test(tu, base64_decode);
	suite_add_tcase(s, tu);
	TCase *tf = tcase_create("fake");
	tcase_add_unchecked_fixture(tf, fake_up, fake_down);
	tcase_set_timeout(tf, 120);
	tcase_add_test(tf, create_exec_close_deletes);
	tcase_add_test(tf, connect_never_deletes);
	tcase_add_test(tf, failed_create_leaves_nothing);
	tcase_add_test(tf, exec_timeout_and_cap);
	tcase_add_test(tf, stream_faults);
	tcase_add_test(tf, stream_resume_counts);
	tcase_add_test(tf, stream_data_base64_and_lies);
	tcase_add_test(tf, retries_and_tokens);
	tcase_add_test(tf, refused_signatures);
	tcase_add_test(tf, refused_clock_skew);
	tcase_add_test(tf, files_round_trip);
	tcase_add_test(tf, extend_and_expiry);
	tcase_add_test(tf, alternative_routes);
	tcase_add_test(tf, tls_with_ca_file);
	tcase_add_test(tf, cli_tool_oci);
	tcase_add_test(tf, cli_mcp_oci);
	tcase_add_test(tf, cancel_kills_the_command);
	suite_add_tcase(s, tf);
	snprintf(cfg_dir, sizeof cfg_dir, "/tmp/locus-ocicfg-XXXXXX");
	if (!mkdtemp(cfg_dir))
		return 1;
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	{
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", cfg_dir);
		if (system(cmd) != 0)
			failed++;
	}
	return test_exit(failed);
}
