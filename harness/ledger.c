/*
 * harness/ledger.c - the read ledger: the SHA-256 of every file read in
 * this session, so a change is made only against what the model saw.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "tools.h"
#include "locus/labels.h"
#include "../util/regex.h"
#include "../util/tools.h"
#include "../util/array.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- ledger ---------------- */

static char *ledger_key(locus_harness *h, const char *path)
{
	char *rel = NULL;
	locus_error err;
	if (lh_path_rel(h->b->root, path, &rel, &err))
		return NULL;
	return rel;
}

static ledger_ent *ledger_find(locus_harness *h, const char *key)
{
	for (size_t i = 0; i < h->nled; i++)
		if (!strcmp(h->led[i].key, key))
			return &h->led[i];
	return NULL;
}

void lh_ledger_note(locus_harness *h, const char *path, const char *data,
                    size_t len)
{
	char *key = ledger_key(h, path);
	if (!key)
		return;
	ledger_ent *e = ledger_find(h, key);
	if (!e) {
		if (!lu_reserve(&h->led, &h->capled, h->nled + 1)) {
			free(key);
			return; /* unnoted: a later change is refused */
		}
		e = &h->led[h->nled++];
		e->key = key;
	} else {
		free(key);
	}
	lu_sha256_hex(data, len, e->sha);
}

void lh_ledger_forget(locus_harness *h, const char *path)
{
	char *key = ledger_key(h, path);
	if (!key)
		return;
	ledger_ent *e = ledger_find(h, key);
	free(key);
	if (e)
		e->sha[0] = '\0';
}

/* NULL when a change to an existing file (with these current bytes) may
 * go ahead; else the refusal text (static format filled into out). */
bool lh_ledger_check(locus_harness *h, const char *path, const char *data,
                     size_t len, lu_buf *out)
{
	if (h->cfg.allow_unread_edits)
		return true;
	char *key = ledger_key(h, path);
	ledger_ent *e = key ? ledger_find(h, key) : NULL;
	free(key);
	if (!e || !e->sha[0]) {
		lu_buf_printf(out,
		              "%s has not been read in this session — read it "
		              "first, so the change is made against what is "
		              "there. Nothing was written.",
		              path);
		return false;
	}
	char sha[65];
	lu_sha256_hex(data, len, sha);
	if (strcmp(sha, e->sha)) {
		lu_buf_printf(out,
		              "%s has changed since you last read it — read it "
		              "again before changing it. Nothing was written.",
		              path);
		return false;
	}
	return true;
}
