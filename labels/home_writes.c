/*
 * labels/home_writes.c - programs that write the person's own files with
 * no path on the line (ssh-keygen's ~/.ssh, gpg's key ring): the
 * predicates of the secrets pack's outside-workspace rules
 * (packs_secrets.c).  Checked by a red team in bubblewrap: ssh-keygen -R,
 * -H, -p and a generation without -f rewrote ~/.ssh, -A wrote /etc/ssh;
 * gpg --import and --import-ownertrust changed ~/.gnupg.
 */
#include <string.h>

#include "../knowledge/programs.h"
#include "pack.h"

/* ssh-keygen's getopt letters that take a value (OpenSSH 9; G and T
   took one in older releases: read as values, so that `-Gf` is not
   taken for -f). */
#define KEYGEN_VALUES "CDEFGIMNOPRTVYZabfmnrstwz"
/* Forms that write the default key or known_hosts unless -f names
   another file: -R and -H (known_hosts), -p and -c (a key). */
#define KEYGEN_HOME "RHpc"
/* Forms that do something else than generate a key: print or convert
   (read), sign, test or build KRLs and moduli, download resident keys
   into the current folder, load a PKCS#11 library (judged elsewhere). */
#define KEYGEN_OTHER "FlLyYBekQrsDKMGTu"

/* The letters of the short options of c (getopt's reading: a value
   letter takes the rest of its cluster or the next word), up to `--`,
   as a set: seen[ch] != 0. */
static void keygen_letters(const locus_shell_command *c, char seen[128])
{
	memset(seen, 0, 128);
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "--") == 0)
			return;
		if (a[0] != '-' || !a[1])
			continue; /* an operand: getopt permutes */
		for (const char *p = a + 1; *p; p++) {
			unsigned char ch = (unsigned char)*p;
			if (ch >= 128)
				break;
			seen[ch] = 1;
			if (strchr(KEYGEN_VALUES, ch)) {
				i += !p[1]; /* the next word is the value */
				break;
			}
		}
	}
}

static bool any_of(const char seen[128], const char *set)
{
	for (; *set; set++)
		if (seen[(unsigned char)*set])
			return true;
	return false;
}

bool pk_ssh_keygen_writes_home(const locus_shell_command *c,
                               const ll_context *ctx)
{
	(void)ctx;
	char seen[128];
	keygen_letters(c, seen);
	if (seen['A'])
		return true; /* host keys in /etc/ssh */
	if (seen['f'])
		return false; /* the file is on the line */
	if (any_of(seen, KEYGEN_HOME))
		return true;
	return !any_of(seen, KEYGEN_OTHER); /* a new key in ~/.ssh */
}

/* gpg's commands that change the key ring or trust database
   (~/.gnupg): gpg takes any unique prefix of a long option, and an
   exact name before a longer one (`--sign` is not `--sign-key`): `min`
   is the shortest prefix that is no other option's whole name. */
static const struct {
	const char *name;
	unsigned char min;
} gpg_keyring[] = {
    {"import", 1},
    {"import-ownertrust", 7},
    {"edit-key", 1},
    {"delete-key", 1},
    {"delete-keys", 1},
    {"delete-secret-keys", 1},
    {"delete-secret-and-public-key", 1},
    {"delete-secret-and-public-keys", 1},
    {"gen-key", 1},
    {"generate-key", 1},
    {"full-gen-key", 1},
    {"full-generate-key", 1},
    {"quick-gen-key", 1},
    {"quick-generate-key", 1},
    {"quick-add-key", 1},
    {"quick-addkey", 1},
    {"quick-add-uid", 1},
    {"quick-adduid", 1},
    {"quick-revoke-uid", 1},
    {"quick-revuid", 1},
    {"quick-revoke-sig", 1},
    {"quick-set-expire", 1},
    {"quick-set-primary-uid", 1},
    {"quick-update-pref", 1},
    {"quick-sign-key", 1},
    {"quick-lsign-key", 1},
    {"sign-key", 5},
    {"lsign-key", 1},
    {"nrsign-key", 1},
    {"passwd", 1},
    {"change-passphrase", 1},
    {"desig-revoke", 1},
    {"generate-designated-revocation", 1},
    {"recv-keys", 1},
    {"receive-keys", 1},
    {"fetch-keys", 1},
    {"refresh-keys", 1},
    {"locate-keys", 1},
    {"locate-external-keys", 1},
    {"update-trustdb", 1},
    {"check-trustdb", 1},
    {"fix-trustdb", 1},
    {"rebuild-keydb-caches", 1},
    {"tofu-policy", 1},
    {"card-edit", 1},
    {"edit-card", 1},
};

bool pk_gpg_writes_keyring(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "--") == 0)
			return false;
		for (size_t k = 0; k < sizeof gpg_keyring / sizeof *gpg_keyring;
		     k++)
			if (lk_long_abbrev(a, gpg_keyring[k].name,
			                   gpg_keyring[k].min))
				return true;
	}
	return false;
}
