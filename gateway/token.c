/*
 * gateway/token.c - ids and bearer tokens: 128 random bits from
 * OpenSSL's generator, written as hex after a prefix that says what they
 * are ("run-", "lgr_" a run token, "lgo_" an operator token...).  Tokens
 * are kept at rest only as their SHA-256 (a database copy gives nobody a
 * token to present).  Operator tokens beyond the first are minted and
 * revoked by whoever can open the database (`locus gateway token`): the
 * operator API cannot make a token, so no tenant's operator can make one
 * for another tenant.
 */
#include "gateway/gw.h"

#include <stdio.h>

#include "harness/internal.h"
#include "net/http.h"
#include "util/sha256.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int gw_new_id(const char *prefix, char *out, locus_error *err)
{
	char hex[33];
	if (lhttp_random_token(hex))
		return lu_err(err, LOCUS_EIO, "the random generator failed");
	snprintf(out, 48, "%.14s%s", prefix, hex);
	return 0;
}

void gw_token_hash(const char *token, char out[65])
{
	lu_sha256_hex(token, strlen(token), out);
}

int gw_bootstrap_operator(gw_db *db, const char *given, char *minted,
                          bool *did_mint, locus_error *err)
{
	*did_mint = false;
	minted[0] = 0;
	int rc = gw_tx_begin(db, err);
	if (rc)
		return rc;
	gw_stmt *st = gw_q(db, err,
	                   "SELECT count(*) FROM tokens WHERE kind = "
	                   "'operator' AND revoked = 0",
	                   "");
	long n = st && gw_row(st) ? (long)gw_int(st, 0) : -1;
	gw_done(st);
	if (n < 0)
		rc = LOCUS_EIO;
	if (!rc && n == 0) {
		const char *tok = given;
		if (!tok || !*tok) {
			rc = gw_new_id("lgo_", minted, err);
			tok = minted;
			*did_mint = rc == 0;
		} else if (strlen(tok) < 16)
			rc = lu_err(err, LOCUS_EINVALID,
			            "LOCUS_GATEWAY_TOKEN: shorter than 16 "
			            "characters");
		char hash[65];
		gw_token_hash(tok, hash);
		if (!rc)
			rc =
			    gw_exec(db, err,
			            "INSERT INTO tokens VALUES (?, 'operator', "
			            "NULL, 'default', ?, 0)",
			            "si", hash, (int64_t)time(NULL));
		cJSON *rec = cJSON_CreateObject();
		cJSON_AddStringToObject(rec, "source",
		                        *did_mint ? "minted" : "environment");
		if (!rc)
			rc = gw_audit(db, "operator.token", NULL, rec, NULL,
			              err);
		cJSON_Delete(rec);
	}
	int end = gw_tx_end(db, rc == 0, err);
	return rc ? rc : end;
}

bool gw_tenant_ok(const char *t)
{
	size_t n = t ? strlen(t) : 0;
	return n && n <= 64 &&
	       strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                 "0123456789._-") == n;
}

int gw_token_create(gw_db *db, const char *tenant, char *token, char *id,
                    locus_error *err)
{
	token[0] = id[0] = 0;
	if (!gw_tenant_ok(tenant))
		return lu_err(err, LOCUS_EINVALID,
		              "a tenant is 1-64 of A-Z a-z 0-9 . _ -");
	int rc = gw_new_id("lgo_", token, err);
	char hash[65];
	gw_token_hash(token, hash);
	snprintf(id, 24, "tok-%.16s", hash);
	if (!rc)
		rc = gw_tx_begin(db, err);
	if (rc) {
		explicit_bzero(token, 48);
		return rc;
	}
	rc = gw_exec(db, err,
	             "INSERT INTO tokens VALUES (?, 'operator', NULL, ?, ?, 0)",
	             "ssi", hash, tenant, (int64_t)time(NULL));
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "source", "token create");
	cJSON_AddStringToObject(rec, "token_id", id);
	cJSON_AddStringToObject(rec, "tenant", tenant);
	if (!rc)
		rc = gw_audit(db, "operator.token", NULL, rec, NULL, err);
	cJSON_Delete(rec);
	int end = gw_tx_end(db, rc == 0, err);
	if (rc || end)
		explicit_bzero(token, 48);
	return rc ? rc : end;
}

int gw_token_revoke(gw_db *db, const char *id, locus_error *err)
{
	if (strncmp(id, "tok-", 4) || strlen(id) != 20 ||
	    strspn(id + 4, "0123456789abcdef") != 16)
		return lu_err(err, LOCUS_EINVALID,
		              "a token id is tok- and 16 hex digits (token "
		              "list shows them)");
	int rc = gw_tx_begin(db, err);
	if (rc)
		return rc;
	rc = gw_exec(db, err,
	             "UPDATE tokens SET revoked = 1 WHERE kind = 'operator' "
	             "AND revoked = 0 AND substr(hash, 1, 16) = ?",
	             "s", id + 4);
	long n = rc ? 0 : gw_changes(db);
	if (!rc && n == 0)
		rc = lu_err(err, LOCUS_ENOTFOUND, "no live operator token %s",
		            id);
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "token_id", id);
	cJSON_AddStringToObject(rec, "action", "revoke");
	if (!rc)
		rc = gw_audit(db, "operator.token", NULL, rec, NULL, err);
	cJSON_Delete(rec);
	int end = gw_tx_end(db, rc == 0, err);
	return rc ? rc : end;
}

cJSON *gw_token_list(gw_db *db, locus_error *err)
{
	cJSON *list = cJSON_CreateArray();
	gw_db_lock(db);
	gw_stmt *st = gw_q(db, err,
	                   "SELECT substr(hash, 1, 16), tenant, created_at, "
	                   "revoked FROM tokens WHERE kind = 'operator' "
	                   "ORDER BY created_at, hash",
	                   "");
	while (list && st && gw_row(st)) {
		cJSON *o = cJSON_CreateObject();
		char id[24];
		snprintf(id, sizeof id, "tok-%.16s", gw_text(st, 0));
		cJSON_AddStringToObject(o, "token_id", id);
		cJSON_AddStringToObject(o, "tenant", gw_text(st, 1));
		cJSON_AddNumberToObject(o, "created_at", (double)gw_int(st, 2));
		cJSON_AddBoolToObject(o, "revoked", gw_int(st, 3) != 0);
		cJSON_AddItemToArray(list, o);
	}
	bool failed = !st || gw_failed(st);
	gw_done(st);
	gw_db_unlock(db);
	if (failed) {
		cJSON_Delete(list);
		return NULL;
	}
	return list;
}
