/*
 * labels/packs_paths.c - path facts for the secrets, persistence and
 * privilege packs: which files hold credentials, which make programs run
 * later, which grant root.  Fragments are matched inside a word, so the
 * same tables catch `cat ~/.aws/credentials`, `tar czf x ~/.ssh` and
 * `python3 -c "open('/home/u/.netrc')"`.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pack.h"

/* A fragment and where it must sit in the word. */
typedef enum where {
	ANYWHERE,  /* inside the word */
	COMPONENT, /* a whole path component (after start, '/', a quote, a
	              blank, '=' or '('), followed by end, '/', a quote, a
	              blank or one of ),;: */
	SUFFIX,    /* the word (or a component) ends with it */
} where;

typedef struct fragment {
	const char *text;
	where at;
} fragment;

static const fragment secret_fragments[] = {
    {".ssh/id_", ANYWHERE},
    {"id_rsa", COMPONENT},
    {"id_ed25519", COMPONENT},
    {"id_ecdsa", COMPONENT},
    {"id_dsa", COMPONENT},
    {".ssh/", SUFFIX}, /* the dir */
    {".ssh", COMPONENT},
    {".aws/credentials", ANYWHERE},
    {".aws/sso", ANYWHERE},
    {".aws", COMPONENT},
    {".config/gcloud", ANYWHERE},
    {".kube/config", ANYWHERE},
    {".kube", COMPONENT},
    {".docker/config.json", ANYWHERE},
    {".netrc", COMPONENT},
    {"_netrc", COMPONENT},
    {".git-credentials", COMPONENT},
    {".gnupg", COMPONENT},
    {"Keychains", COMPONENT},
    {".password-store", COMPONENT},
    {".pgpass", COMPONENT},
    {".my.cnf", COMPONENT},
    {".pypirc", COMPONENT},
    {".npmrc", COMPONENT},
    {".config/gh/hosts.yml", ANYWHERE},
    {".azure", COMPONENT},
    {".terraform.d/credentials", ANYWHERE},
    {".vault-token", COMPONENT},
    {".config/op", ANYWHERE},
    {"/environ", SUFFIX},
    {"/etc/shadow", ANYWHERE},
    {"/etc/gshadow", ANYWHERE},
    {".envrc", COMPONENT},
    {".key", SUFFIX},
    {".p12", SUFFIX},
    {".pfx", SUFFIX},
    {".keystore", SUFFIX},
    {".jks", SUFFIX},
    {"credentials.json", COMPONENT},
    {"service-account.json", COMPONENT},
    {".config/sops", ANYWHERE},
    {".cargo/credentials", ANYWHERE},
    {".gem/credentials", ANYWHERE},
    {".m2/settings.xml", ANYWHERE},
    {".boto", COMPONENT},
    {".s3cfg", COMPONENT},
    {".htpasswd", COMPONENT},
    {NULL, ANYWHERE},
};

static const fragment persistence_fragments[] = {
    /* shell startup files */
    {".bashrc", COMPONENT},
    {".bash_profile", COMPONENT},
    {".bash_login", COMPONENT},
    {".bash_logout", COMPONENT},
    {".bash_aliases", COMPONENT},
    {".profile", COMPONENT},
    {".zshrc", COMPONENT},
    {".zprofile", COMPONENT},
    {".zshenv", COMPONENT},
    {".zlogin", COMPONENT},
    {".zlogout", COMPONENT},
    {".kshrc", COMPONENT},
    {".mkshrc", COMPONENT},
    {".cshrc", COMPONENT},
    {".tcshrc", COMPONENT},
    {".login", COMPONENT},
    {".xprofile", COMPONENT},
    {".xinitrc", COMPONENT},
    {".xsession", COMPONENT},
    {".pam_environment", COMPONENT},
    {".config/fish", ANYWHERE},
    {".config/autostart", ANYWHERE},
    {"/etc/profile", ANYWHERE},
    {"/etc/bash.bashrc", ANYWHERE},
    {"/etc/bashrc", ANYWHERE},
    {"/etc/zsh", ANYWHERE},
    {"/etc/environment", ANYWHERE},
    {"/etc/xdg/autostart", ANYWHERE},
    {".vimrc", COMPONENT},
    {".exrc", COMPONENT},
    {"sitecustomize.py", COMPONENT},
    {"usercustomize.py", COMPONENT},
    /* schedulers and service managers */
    {"/etc/cron", ANYWHERE},
    {"/var/spool/cron", ANYWHERE},
    {"/etc/anacrontab", ANYWHERE},
    {"/etc/systemd", ANYWHERE},
    {".config/systemd", ANYWHERE},
    {"/lib/systemd", ANYWHERE},
    {"/etc/init.d", ANYWHERE},
    {"/etc/init/", ANYWHERE},
    {"/etc/rc.local", ANYWHERE},
    {"/etc/rc.d", ANYWHERE},
    {"/etc/update-motd.d", ANYWHERE},
    {"/etc/udev/rules.d", ANYWHERE},
    {"/etc/apt/apt.conf.d", ANYWHERE},
    {"/etc/pam.d", ANYWHERE},
    {"Library/LaunchAgents", ANYWHERE},
    {"Library/LaunchDaemons", ANYWHERE},
    /* git hooks and global config */
    {".git/hooks", ANYWHERE},
    {".husky/", ANYWHERE},
    {".gitconfig", COMPONENT},
    {".config/git", ANYWHERE},
    {"/etc/gitconfig", ANYWHERE},
    {".git/config", ANYWHERE},
    /* ssh */
    {"authorized_keys", ANYWHERE},
    {".ssh/config", ANYWHERE},
    {".ssh/rc", ANYWHERE},
    {".ssh/environment", ANYWHERE},
    {"/etc/ssh/", ANYWHERE},
    /* the loader and sudo */
    {"/etc/ld.so.preload", ANYWHERE},
    {"/etc/ld.so.conf", ANYWHERE},
    {"/etc/sudoers", ANYWHERE},
    {NULL, ANYWHERE},
};

/* Every fragment (and `.env`) holds one of these bytes, so a word with
   none of them names no path of the tables: most words (`status`, `-la`,
   `main`) are rejected by one strpbrk instead of a scan of ~110
   fragments.  pk_path_tables_consistent() checks it (tests). */
static const char path_bytes[] = "./_K";

static bool before_ok(char c)
{
	return c == '/' || c == '\'' || c == '"' || c == ' ' || c == '=' ||
	       c == '(' || c == '\t' || c == '\n' || c == ':' || c == '@' ||
	       c == '~' || c == ',';
}

static bool after_ok(char c)
{
	return c == '\0' || c == '/' || c == '\'' || c == '"' || c == ' ' ||
	       c == ')' || c == ',' || c == ';' || c == ':' || c == '\t' ||
	       c == '\n' || c == '}';
}

static bool fragment_in(const char *w, const fragment *f)
{
	size_t m = strlen(f->text);
	for (const char *p = strstr(w, f->text); p;
	     p = strstr(p + 1, f->text)) {
		char before = p == w ? '/' : p[-1];
		char after = p[m];
		switch (f->at) {
		case ANYWHERE: return true;
		case COMPONENT:
			if ((f->text[0] == '/' || before_ok(before)) &&
			    after_ok(after))
				return true;
			break;
		case SUFFIX:
			if (after_ok(after) && after != '/')
				return true;
			break;
		}
	}
	return false;
}

/* A literal prefilter: a fragment is searched for only when the word
   holds its first two bytes (most words hold few of the table's). */
static bool any_fragment(const char *w, const fragment *table)
{
	uint8_t bytes[32] = {0};
	for (const unsigned char *p = (const unsigned char *)w; *p; p++)
		bytes[*p >> 3] |= (uint8_t)(1u << (*p & 7));
	for (const fragment *f = table; f->text; f++) {
		const unsigned char *t = (const unsigned char *)f->text;
		if (!((bytes[t[0] >> 3] >> (t[0] & 7)) & 1u) ||
		    (t[1] && !((bytes[t[1] >> 3] >> (t[1] & 7)) & 1u)))
			continue;
		if (fragment_in(w, f))
			return true;
	}
	return false;
}

/* .env, .env.local, prod.env ... but not .env.example and its kin. */
static bool env_file(const char *w)
{
	static const char *const templates[] = {
	    "example", "sample", "template",     "dist", "defaults",
	    "tmpl",    "schema", "test.example", NULL,
	};
	for (const char *p = strstr(w, ".env"); p; p = strstr(p + 1, ".env")) {
		char after = p[4];
		if (!(after_ok(after) || after == '.'))
			continue; /* .envrc, .environment */
		char before = p == w ? '/' : p[-1];
		bool component_start = before_ok(before);
		/* NAME.env: a whole word ending in .env */
		if (!component_start && !after_ok(after))
			continue;
		if (after == '.') {
			const char *sfx = p + 5;
			bool tmpl = false;
			for (const char *const *t = templates; *t; t++) {
				size_t n = strlen(*t);
				if (strncmp(sfx, *t, n) == 0 &&
				    after_ok(sfx[n]))
					tmpl = true;
			}
			if (tmpl)
				continue;
			if (!component_start)
				continue; /* x.env.y: not an env file name */
		}
		return true;
	}
	return false;
}

bool pk_secret_path(const char *p)
{
	if (!p || !*p || !strpbrk(p, path_bytes))
		return false;
	/* A public key is not a secret. */
	size_t n = strlen(p);
	bool pub = n > 4 && strcmp(p + n - 4, ".pub") == 0;
	if (!pub && any_fragment(p, secret_fragments))
		return true;
	return env_file(p);
}

bool pk_persistence_path(const char *p)
{
	return p && *p && strpbrk(p, path_bytes) &&
	       any_fragment(p, persistence_fragments);
}

static bool table_has_path_bytes(const fragment *table, const char *what,
                                 char *why, size_t cap)
{
	for (const fragment *f = table; f->text; f++)
		if (!strpbrk(f->text, path_bytes)) {
			snprintf(why, cap,
			         "%s fragment '%s' holds none of \"%s\"", what,
			         f->text, path_bytes);
			return false;
		}
	return true;
}

bool pk_path_tables_consistent(char *why, size_t cap)
{
	return table_has_path_bytes(secret_fragments, "secret", why, cap) &&
	       table_has_path_bytes(persistence_fragments, "persistence", why,
	                            cap);
}

bool pk_sudoers_path(const char *p)
{
	return p && strstr(p, "/etc/sudoers") != NULL;
}

static const char *const readers =
    "cat head tail less more bat batcat grep egrep fgrep rg ag ack ls "
    "stat wc diff cmp file md5sum sha1sum sha256sum sha512sum du tree "
    "readlink realpath source . nl strings od hexdump xxd jq yq test [ "
    "type which basename dirname find fd locate";

bool pk_reader_program(const char *name)
{
	return pk_word_in(readers, name);
}
