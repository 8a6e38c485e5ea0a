/*
 * gateway/token.c - ids and bearer tokens: 128 random bits from
 * OpenSSL's generator, written as hex after a prefix that says what they
 * are ("run-", "lgr_" a run token, "lgo_" an operator token...).  Tokens
 * are kept at rest only as their SHA-256 (a database copy gives nobody a
 * token to present).
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
