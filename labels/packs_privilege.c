/*
 * labels/packs_privilege.c - exec:privilege: setuid/setgid bits,
 * recursive world-writable modes, recursive ownership changes of home or
 * system paths, file capabilities, sudoers and privileged groups (rules
 * language: pack.h).  Running a command under sudo is not itself tagged
 * (the spec's classify example): what the command does is.
 */
#include <string.h>

#include "pack.h"

#define V LOCUS_TAG_PRIVILEGE

typedef struct mode_facts {
	bool setid;       /* sets setuid or setgid */
	bool world_write; /* gives others write permission */
} mode_facts;

static bool octal_digits(const char *m)
{
	if (!*m)
		return false;
	for (const char *p = m; *p; p++)
		if (*p < '0' || *p > '7')
			return false;
	return true;
}

/* A chmod mode: octal (755, 4755, 02775) or symbolic (u+s,g=rwxs,o+w,
   +w, a+rwx...).  Unknown text counts as both (fail closed). */
static mode_facts mode_of(const char *m)
{
	mode_facts f = {false, false};
	if (octal_digits(m)) {
		size_t n = strlen(m);
		unsigned v = 0;
		for (const char *p = m; *p; p++)
			v = v * 8 + (unsigned)(*p - '0');
		(void)n;
		f.setid = (v & 06000) != 0;
		f.world_write = (v & 0002) != 0;
		return f;
	}
	/* symbolic: clauses separated by ',' */
	const char *p = m;
	while (*p) {
		bool who_o = false, who_any = false;
		while (*p && strchr("ugoa", *p)) {
			who_any = true;
			if (*p == 'o' || *p == 'a')
				who_o = true;
			p++;
		}
		if (!who_any)
			who_o =
			    true; /* +w: all, minus the umask we cannot see */
		if (!*p || !strchr("+-=", *p)) {
			f.setid = f.world_write = true;
			return f;
		}
		while (*p && strchr("+-=", *p)) {
			char op = *p++;
			while (*p && strchr("rwxXstugo", *p)) {
				if (op != '-' && *p == 's')
					f.setid = true;
				if (op != '-' && who_o && *p == 'w')
					f.world_write = true;
				p++;
			}
		}
		if (*p == ',')
			p++;
		else if (*p) {
			f.setid = f.world_write = true;
			return f;
		}
	}
	return f;
}

static bool recursive(const locus_shell_command *c)
{
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "--") == 0)
			return false;
		if (strcmp(a, "--recursive") == 0)
			return true;
		if (a[0] == '-' && a[1] != '-' && strchr(a + 1, 'R'))
			return true;
	}
	return false;
}

/* chmod: the mode is the first operand (GNU chmod also takes `-w` as a
   mode, so a word of mode letters after '-' counts too). */
static bool chmod_privilege(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	bool rec = recursive(c);
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strncmp(a, "--reference", 11) == 0)
			return rec; /* copied from a file we cannot see */
		if (a[0] == '-' && a[1] &&
		    strspn(a + 1, "rwxXst") == strlen(a + 1)) {
			mode_facts f = mode_of(a);
			if (f.setid || (rec && f.world_write))
				return true;
			continue;
		}
		if (pk_is_option(a))
			continue;
		if (c->argv_flags && (c->argv_flags[i] & LOCUS_WORD_DYNAMIC))
			return true; /* a computed mode */
		mode_facts f = mode_of(a);
		return f.setid || (rec && f.world_write);
	}
	return false;
}

/* install -m MODE / --mode=MODE, mkdir -m MODE with setuid or setgid. */
static bool mode_option_setid(const locus_shell_command *c,
                              const ll_context *ctx)
{
	(void)ctx;
	for (size_t i = 1; i < c->argc; i++) {
		const char *m = pk_option_value(c, &i, "-m", "--mode");
		if (m && mode_of(m).setid)
			return true;
	}
	return false;
}

/* A path outside any project: absolute, under home, or computed. */
static bool system_or_home(const locus_shell_command *c, size_t i)
{
	const char *a = c->argv[i];
	if (c->argv_flags && (c->argv_flags[i] & LOCUS_WORD_DYNAMIC))
		return true;
	return a[0] == '/' || a[0] == '~';
}

/* chown/chgrp -R OWNER PATH... with a home or system PATH; chown to root
   (or uid 0) of anything. */
static bool chown_privilege(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	bool rec = recursive(c), owner_seen = false;
	bool chown = strcmp(c->name, "chown") == 0;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (pk_is_option(a))
			continue;
		if (!owner_seen) {
			owner_seen = true;
			if (chown &&
			    (strncmp(a, "root", 4) == 0 ||
			     strncmp(a, "0:", 2) == 0 || strcmp(a, "0") == 0) &&
			    (a[0] == '0' || a[4] == '\0' || a[4] == ':' ||
			     a[4] == '.'))
				return true;
			continue;
		}
		if (rec && system_or_home(c, i))
			return true;
	}
	return false;
}

static bool sudoers_write(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	/* (a copy into /etc makes /etc/sudoers: outside-workspace
	   already; no FOLDER/NAME is joined for it) */
	return pk_writes_path(c, pk_sudoers_path, NULL);
}

#define ROOT_GROUPS "~sudo ~wheel ~admin ~root ~docker ~adm ~lxd ~libvirt ~disk"

/* The rule for every program first (pack.c reads those up to the first
   program's rule). */
/* clang-format off */
static const pk_rule rules[] = {
    {"*", NULL, NULL, NULL, V | LOCUS_TAG_PERSISTENCE,
     "privilege: sudoers is edited", sudoers_write, 0},
    {"chmod", NULL, NULL, NULL, V,
     "privilege: chmod sets setuid/setgid or makes a tree world-writable",
     chmod_privilege, 0},
    {"install mkdir", NULL, NULL, NULL, V,
     "privilege: install -m sets setuid/setgid", mode_option_setid, 0},
    {"chown chgrp", NULL, NULL, NULL, V,
     "privilege: chown -R of home or system paths, or to root", chown_privilege,
     0},
    {"setcap", NULL, NULL, "-v -h --help", V,
     "privilege: setcap grants file capabilities", NULL, 0},
    {"usermod gpasswd adduser addgroup useradd groupmod", NULL,
     ROOT_GROUPS " -o --non-unique -u=0 --uid=0", "--help -h", V,
     "privilege: a user joins a privileged group", NULL, 0},
    {"useradd usermod adduser addgroup groupmod", NULL, NULL,
     "--help -h", V,
     "privilege: an account or group is created or changed (checked: "
     "useradd wrote /etc/passwd)",
     NULL, 0},
    {"passwd chpasswd chsh chage", NULL, NULL, "--help -h -S --status", V,
     "privilege: passwd changes an account's credentials", NULL, 0},
    {NULL, NULL, NULL, NULL, 0, NULL, NULL, 0},
};
/* clang-format on */

const pk_pack pk_privilege = {"privilege", NULL, rules};
