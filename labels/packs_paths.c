/*
 * labels/packs_paths.c - path facts for the secrets, persistence and
 * privilege packs: which files hold credentials, which make programs run
 * later, which grant root.  Fragments are matched inside a word, so the
 * same tables catch `cat ~/.aws/credentials`, `tar czf x ~/.ssh` and
 * `python3 -c "open('/home/u/.netrc')"`.
 */
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../util/str.h"
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

/* clang-format off */
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
    {".config/gh", ANYWHERE},
    /* the agents' own login tokens (the jail masks them too) */
    {".claude/.credentials.json", ANYWHERE},
    {".codex/auth.json", ANYWHERE},
    {".gemini/oauth_creds.json", ANYWHERE},
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
    /* What secret scanners and sensitive-file lists name */
    {".pem", SUFFIX}, /* a key or a certificate (cert_pem() below) */
    {".ppk", SUFFIX},
    {".p8", SUFFIX},
    {".kdbx", SUFFIX},
    {".tfstate", ANYWHERE}, /* terraform.tfstate(.backup) */
    {".tfvars", SUFFIX},      /* terraform variables: provider keys */
    {".tfvars.json", SUFFIX},
    {".dockercfg", COMPONENT}, /* the old docker registry auths */
    {"vault_pass", ANYWHERE},
    {"master.key", COMPONENT},
    {"secrets.yml", COMPONENT},
    {"secrets.yaml", COMPONENT},
    {"secrets.toml", COMPONENT},  /* streamlit's .streamlit/secrets.toml */
    {"secrets.json", COMPONENT},
    {"serviceAccountKey.json", COMPONENT}, /* firebase admin key */
    {"local.settings.json", COMPONENT},    /* Azure Functions */
    {"auth.json", COMPONENT},              /* composer's registry auths */
    {".yarnrc.yml", COMPONENT},            /* yarn's npmAuthToken */
    {".dev.vars", COMPONENT},              /* wrangler's secrets */
    {"wp-config.php", COMPONENT},
    {".bash_history", COMPONENT},
    {".zsh_history", COMPONENT},
    {".psql_history", COMPONENT},
    {".mysql_history", COMPONENT},
    {NULL, ANYWHERE},
};
/* clang-format on */

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
    /* a submodule's own config and hooks (.git/modules/NAME/config) */
    {".git/modules/", ANYWHERE},
    /* Files that make git, editors, direnv or CI run code */
    {".git/info/attributes", ANYWHERE}, /* filters and diff drivers */
    {".gitmodules", COMPONENT},         /* submodule URLs and commands */
    {".envrc", COMPONENT},              /* direnv runs it on cd */
    {".vscode/tasks.json", ANYWHERE},
    {".vscode/settings.json", ANYWHERE},
    {".github/workflows", ANYWHERE},
    {".gitlab-ci.yml", COMPONENT},
    {".circleci/config.yml", ANYWHERE},
    {".travis.yml", COMPONENT},
    {"Jenkinsfile", COMPONENT},
    {"azure-pipelines.yml", COMPONENT},
    {"bitbucket-pipelines.yml", COMPONENT},
    {".buildkite/", ANYWHERE},
    {".drone.yml", COMPONENT},
    {".woodpecker.yml", COMPONENT},
    {".woodpecker/", ANYWHERE},
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

#ifndef PK_GEN_PATHS /* the generator includes the tables only */
/* pp_class, pp_mask: the fragments' prefilter (labels/gen_paths.c,
   generated at build time from the tables above). */
#include "labels/packs_paths_index.h"

enum { PP_SECRET, PP_PERSISTENCE }; /* gen_paths.c's order of the tables */

/* Every fragment (and `.env`) holds one of these bytes, so a word with
   none of them names no path of the tables: most words (`status`, `-la`,
   `main`) are rejected by one strpbrk instead of a scan of ~110
   fragments.  pk_path_tables_consistent() checks it (tests). */
static const char path_bytes[] = "./_KJ";

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

/* The fragment f occurs at w + i where its table says it may sit. */
static bool fragment_at(const char *w, size_t i, const fragment *f)
{
	size_t m = strlen(f->text);
	if (strncmp(w + i, f->text, m) != 0)
		return false;
	char before = i == 0 ? '/' : w[i - 1];
	char after = w[i + m];
	switch (f->at) {
	case ANYWHERE: return true;
	case COMPONENT:
		return (f->text[0] == '/' || before_ok(before)) &&
		       after_ok(after);
	case SUFFIX: return after_ok(after) && after != '/';
	}
	return true; /* not reached: every `where` is handled */
}

/*
 * Some fragment of `table` (number `id` of the generated prefilter)
 * occurs in w where it may sit.  One pass over the word: at position i
 * the AND of the masks of its bytes i, i+1, i+2 is exactly the set of
 * fragments whose first three bytes are there (most positions of most
 * words: none), and only those are compared (pk_path_reference() is the
 * same answer trying every fragment everywhere; tests compare them).
 */
static bool any_fragment(const char *w, const fragment *table, size_t id)
{
	const uint64_t(*mask)[PP_CLASSES][PP_WORDS] = pp_mask[id];
	for (size_t i = 0; w[i]; i++) {
		unsigned c0 = pp_class[(unsigned char)w[i]];
		for (size_t k = 0; k < PP_WORDS; k++) {
			uint64_t m = mask[0][c0][k];
			if (!m)
				continue; /* no fragment starts with w[i] */
			unsigned c1 = pp_class[(unsigned char)w[i + 1]];
			unsigned c2 =
			    w[i + 1] ? pp_class[(unsigned char)w[i + 2]] : 0;
			m &= mask[1][c1][k] & mask[2][c2][k];
			while (m) {
				unsigned b = (unsigned)__builtin_ctzll(m);
				m &= m - 1;
				if (fragment_at(w, i, &table[k * 64 + b]))
					return true;
			}
		}
	}
	return false;
}

/* The same answer with no prefilter: every fragment at every position
   where its first byte is (memchr finds those; the compare runs only
   there). */
static bool any_fragment_slow(const char *w, const fragment *table)
{
	size_t n = strlen(w);
	for (const fragment *f = table; f->text; f++)
		for (const char *q = memchr(w, f->text[0], n); q;
		     q = memchr(q + 1, f->text[0], n - (size_t)(q + 1 - w)))
			if (fragment_at(w, (size_t)(q - w), f))
				return true;
	return false;
}

/* The files named like .env: .env, wrangler's .dev.vars. */
static const char *const env_bases[] = {".env", ".dev.vars", NULL};

/* After an env file's name: a variant (.env.prod, .env-prod, .env_prod)
   or an editor's backup or swap (.env~, .env.swp, #.env#). */
static bool env_variant(char c)
{
	return c == '.' || c == '-' || c == '_' || c == '~' || c == '#';
}

/* The variant after an env file's name at sfx is a template
   (.env.example, .env-sample): it holds no secret. */
static bool env_template(const char *sfx)
{
	static const char *const templates[] = {
	    "example", "sample", "template",     "dist", "defaults",
	    "tmpl",    "schema", "test.example", NULL,
	};
	for (const char *const *t = templates; *t; t++) {
		size_t n = strlen(*t);
		if (strncmp(sfx, *t, n) == 0 && after_ok(sfx[n]))
			return true;
	}
	return false;
}

/* .env, .env.local, .env-prod, prod.env, .env~, ..env.swp (vim's swap
   of .env), .dev.vars ... but not .env.example and its kin. */
static bool env_file(const char *w)
{
	for (const char *const *b = env_bases; *b; b++) {
		size_t bn = strlen(*b);
		for (const char *p = strstr(w, *b); p; p = strstr(p + 1, *b)) {
			char after = p[bn];
			bool variant = env_variant(after);
			if (!(after_ok(after) || variant))
				continue; /* .envrc, .environment */
			const char *start = p;
			if (start > w && (start[-1] == '.' || start[-1] == '#'))
				start--; /* a swap or autosave file's prefix */
			char before = start == w ? '/' : start[-1];
			/* NAME.env: a whole word ending in .env */
			if (!before_ok(before)) {
				if (after_ok(after))
					return true;
				continue; /* x.env.y: not an env file name */
			}
			if (variant && env_template(p + bn + 1))
				continue;
			return true;
		}
	}
	return false;
}

/* Credential files known by how their name starts (and ends): a key
   with a suffix (id_rsa_deploy, id_ed25519_sk, id_rsa.bak; a `.pub` is
   public), Google's client_secret_*.json, service account keys, a kube
   config kept under another name (kubeconfig, kubeconfig-prod.yaml). */
#define STEM(s, e)                                                             \
	{                                                                      \
		s, e, sizeof s - 1, sizeof e - 1                               \
	}
static const struct {
	const char *start, *end;
	size_t start_len, end_len;
} stems[] = {
    STEM("id_rsa", ""),
    STEM("id_ed25519", ""),
    STEM("id_ecdsa", ""),
    STEM("id_dsa", ""),
    STEM("client_secret", ".json"),
    STEM("service-account", ".json"),
    STEM("service_account", ".json"),
    STEM("serviceAccount", ".json"),
    STEM("kubeconfig", ""),
};
#undef STEM

/* The component c (n bytes) is a public key or a copy of one
   (id_rsa.pub, id_rsa.pub.bak). */
static bool public_copy(const char *c, size_t n)
{
	for (size_t i = 0; i + 4 <= n; i++)
		if (!strncmp(c + i, ".pub", 4) &&
		    (i + 4 == n || c[i + 4] == '.' || c[i + 4] == '~'))
			return true;
	return false;
}

/* A component of w (it starts after before_ok, ends at after_ok) starts
   and ends as a stem says. */
static bool stem_file(const char *w)
{
	for (size_t i = 0; w[i]; i++) {
		/* every stem starts with one of these bytes */
		if ((w[i] != 'i' && w[i] != 'c' && w[i] != 's' &&
		     w[i] != 'k') ||
		    (i && !before_ok(w[i - 1])))
			continue;
		size_t len = SIZE_MAX; /* the component's length, when needed */
		for (size_t k = 0; k < sizeof stems / sizeof *stems; k++) {
			size_t sn = stems[k].start_len, en = stems[k].end_len;
			if (w[i] != stems[k].start[0] ||
			    strncmp(w + i, stems[k].start, sn))
				continue;
			if (len == SIZE_MAX)
				for (len = 0;
				     w[i + len] && !after_ok(w[i + len]);)
					len++;
			if (len >= sn + en &&
			    !strncmp(w + i + len - en, stems[k].end, en) &&
			    !public_copy(w + i, len))
				return true;
		}
	}
	return false;
}

/* NAME.pem whose name says it holds certificates only. */
static bool cert_pem(const char *p, size_t n)
{
	static const char *const marks[] = {"cert", "chain",  "bundle", "ca.",
	                                    "ca-",  "public", NULL};
	if (n < 4 || strcmp(p + n - 4, ".pem") != 0)
		return false;
	const char *base = strrchr(p, '/');
	base = base ? base + 1 : p;
	for (const char *const *m = marks; *m; m++)
		if (strstr(base, *m))
			return true;
	return false;
}

/* An editor's or a person's copy of a file: the name with a suffix
   (id_rsa~, .netrc.bak, credentials.json.orig) and, for vim's swap
   files, a leading dot (..netrc.swp, .id_rsa.swp). */
static const struct {
	const char *suffix;
	bool dot; /* a leading dot of the last component is the copy's */
	          /* clang-format off */
} backups[] = {
    {"~", false},     {".bak", false},  {".backup", false},
                  /* clang-format on */
    {".old", false},
    {".orig", false},
    {".save", false},
    {".swp", true},
    {".swo", true},
    {"#", false},
};

/* The name p is a copy of a secret file (backups), the original judged
   by the fragment search `any` and the stems (not the .env names:
   env_file takes their copies itself); a public key's copy is public. */
static bool backup_of_secret(const char *p, size_t n,
                             bool (*any)(const char *, const fragment *,
                                         size_t))
{
	char buf[1024];
	for (size_t k = 0; k < sizeof backups / sizeof *backups; k++) {
		size_t sl = strlen(backups[k].suffix);
		if (n <= sl || strcmp(p + n - sl, backups[k].suffix) ||
		    !lu_copy_fits(buf, sizeof buf, p, n - sl))
			continue;
		char *comp = strrchr(buf, '/');
		comp = comp ? comp + 1 : buf;
		if (comp[0] == '#' || (backups[k].dot && comp[0] == '.'))
			memmove(comp, comp + 1, strlen(comp));
		size_t bn = strlen(buf);
		if (!(bn > 4 && !strcmp(buf + bn - 4, ".pub")) &&
		    (any(buf, secret_fragments, PP_SECRET) || stem_file(buf)))
			return true;
	}
	return false;
}

/* pk_secret_path() with the fragment search `any`, and the one-strpbrk
   reject with `prefilter`. */
static bool secret_path(const char *p,
                        bool (*any)(const char *, const fragment *, size_t),
                        bool prefilter)
{
	if (!p || !*p)
		return false;
	if (prefilter && !strpbrk(p, path_bytes))
		return strstr(p, "kubeconfig") && stem_file(p); /* no byte */
	/* A public key is not a secret, nor a certificate by its name
	   (cert.pem, fullchain.pem, ca-bundle.pem). */
	size_t n = strlen(p);
	bool pub = (n > 4 && strcmp(p + n - 4, ".pub") == 0) || cert_pem(p, n);
	if (!pub && (any(p, secret_fragments, PP_SECRET) || stem_file(p)))
		return true;
	return env_file(p) || (!pub && backup_of_secret(p, n, any));
}

/* ---- glob words ----------------------------------------------------------

   `cat .e*`, `cat ?env`, `cat .[e]nv`: bash hands the program every name
   the pattern matches, so a glob is matched against the names the tables
   describe (a fragment spelled as a file name), as if any of them could
   exist.  Wildcards match a leading dot too (`shopt -s dotglob` or
   GLOBIGNORE may be on).  A broad glob, whose last component also matches
   an ordinary file name (`*`, `*.json`, a directory's `*`), is not aimed at a
   secret and is not counted: like `grep -r x .`, it reads whatever is
   there. */
/* clang-format off */
static const char *const ordinary_names[] = {
	"README.md", "Makefile", "src", "main.c", "x.h", "x.json", "x.txt",
	"x.md", "x.yml", "x.toml", "x.lock", "x.log", "x.sh", "x.py", "x.ts",
	"x.js", "x.go", "x.rs", "x.html", "x.css", "x.xml", "x.csv", NULL,
};
/* clang-format on */

/* The component of s that ends before `end` (exclusive): its start. */
static const char *comp_start(const char *s, const char *end)
{
	while (end > s && end[-1] != '/')
		end--;
	return end;
}

/* A cheap necessary condition of fnmatch(g, n, 0) on one component of
   each, read from g once: the bytes before g's first special byte
   (* ? [ \\) start n, and with no [ or \\ in g, the bytes after its last
   * or ? end n; a g without special bytes is n itself.  Most names of a
   table fail it (glob_hits tries ~110 of them for each glob word). */
typedef struct comp_filter {
	const char *g;
	size_t gl;
	size_t p;  /* literal prefix */
	size_t sl; /* literal suffix, 0 when not checked */
	bool exact;
} comp_filter;

static void comp_filter_init(comp_filter *f, const char *g, size_t gl)
{
	size_t p = 0;
	while (p < gl && g[p] != '*' && g[p] != '?' && g[p] != '[' &&
	       g[p] != '\\')
		p++;
	f->g = g;
	f->gl = gl;
	f->p = p;
	f->exact = p == gl;
	f->sl = 0;
	if (f->exact || memchr(g, '[', gl) || memchr(g, '\\', gl))
		return;
	size_t s = gl;
	while (s > p && g[s - 1] != '*' && g[s - 1] != '?')
		s--;
	f->sl = gl - s;
}

static bool comp_filter_may(const comp_filter *f, const char *n, size_t nl)
{
	if (f->exact)
		return f->gl == nl && !memcmp(f->g, n, nl);
	return nl >= f->p + f->sl && !memcmp(f->g, n, f->p) &&
	       !memcmp(f->g + f->gl - f->sl, n + nl - f->sl, f->sl);
}

static bool comp_may_match(const char *g, size_t gl, const char *n, size_t nl)
{
	comp_filter f;
	comp_filter_init(&f, g, gl);
	return comp_filter_may(&f, n, nl);
}

/* glob's components match name's, aligned at their ends (the glob may
   have more, leading ones: any directory; or fewer: it names a tail). */
static bool glob_tail_match(const char *glob, const char *name)
{
	const char *ge = glob + strlen(glob), *ne = name + strlen(name);
	while (ge > glob && ge[-1] == '/')
		ge--;
	while (ne > name && ne[-1] == '/')
		ne--;
	while (ge > glob && ne > name) {
		const char *gs = comp_start(glob, ge),
		           *ns = comp_start(name, ne);
		char g[256], n[256];
		size_t gl = (size_t)(ge - gs), nl = (size_t)(ne - ns);
		if (gl >= sizeof g || nl >= sizeof n)
			return true; /* too long to tell: it may */
		if (!comp_may_match(gs, gl, ns, nl))
			return false;
		memcpy(g, gs, gl);
		g[gl] = '\0';
		memcpy(n, ns, nl);
		n[nl] = '\0';
		if (fnmatch(g, n, 0) != 0)
			return false;
		ge = gs > glob ? gs - 1 : gs;
		ne = ns > name ? ns - 1 : ns;
	}
	return true;
}

/* fnmatch(g, name, 0) == 0 for some ordinary name, each tried after
   the prefilter (a necessary condition of the match: most names fail it
   at their first or last bytes, where fnmatch was ~400 instructions a
   name, 22 names a glob component). */
static bool matches_ordinary(const char *g)
{
	comp_filter f;
	comp_filter_init(&f, g, strlen(g));
	for (const char *const *o = ordinary_names; *o; o++)
		if (comp_filter_may(&f, *o, strlen(*o)) &&
		    fnmatch(g, *o, 0) == 0)
			return true;
	return false;
}

bool pk_glob_ordinary(const char *g, bool prefilter)
{
	if (prefilter)
		return matches_ordinary(g);
	for (const char *const *o = ordinary_names; *o; o++)
		if (fnmatch(g, *o, 0) == 0)
			return true;
	return false;
}

static bool broad_glob(const char *glob)
{
	const char *last = strrchr(glob, '/');
	last = last && last[1] ? last + 1 : glob;
	return matches_ordinary(last);
}

/* The last component of s, trailing slashes dropped: false when there is
   none or it is too long for glob_tail_match to tell. */
static bool last_comp(const char *s, const char **c, size_t *cl)
{
	const char *e = s + strlen(s);
	while (e > s && e[-1] == '/')
		e--;
	if (e == s)
		return false;
	*c = comp_start(s, e);
	*cl = (size_t)(e - *c);
	return *cl < 256;
}

/* A name whose last component cannot match the glob's (glob_tail_match
   would say false); nothing known of either: false. */
static bool last_fails(const comp_filter *gf, bool on, const char *name)
{
	const char *c;
	size_t cl;
	return on && last_comp(name, &c, &cl) && !comp_filter_may(gf, c, cl);
}

/* The glob may match a name of the table. */
static bool glob_hits(const char *glob, const fragment *table)
{
	comp_filter gf;
	const char *gc;
	size_t gcl;
	bool on = last_comp(glob, &gc, &gcl);
	if (on)
		comp_filter_init(&gf, gc, gcl);
	for (const fragment *f = table; f->text; f++) {
		/* the fragment as a file name: x.pem for a suffix .pem, a
		   directory without its slash, and x appended to a fragment
		   found anywhere (memcpy: snprintf was most of the cost) */
		char name[128];
		size_t n = strlen(f->text);
		if (n + 3 > sizeof name)
			continue;
		if (f->at == SUFFIX && f->text[n - 1] == '/') {
			memcpy(name, f->text, n - 1);
			name[n - 1] = '\0';
		} else if (f->at == SUFFIX) {
			name[0] = 'x';
			memcpy(name + 1, f->text, n + 1);
		} else {
			memcpy(name, f->text, n + 1);
		}
		if (!last_fails(&gf, on, name) && glob_tail_match(glob, name))
			return true;
		if (f->at == ANYWHERE) {
			memcpy(name, f->text, n);
			name[n] = 'x';
			name[n + 1] = '\0';
			if (!last_fails(&gf, on, name) &&
			    glob_tail_match(glob, name))
				return true;
		}
	}
	return false;
}

static bool glob_secret(const char *glob)
{
	static const char *const env_names[] = {".env", ".env.local", "x.env",
	                                        NULL};
	if (broad_glob(glob))
		return false;
	for (const char *const *e = env_names; *e; e++)
		if (glob_tail_match(glob, *e))
			return true;
	return glob_hits(glob, secret_fragments);
}

/*
 * A glob may name a path that holds one of the table's fragments
 * (`printf x > .git/hoo?s/pre-commit`, `cp f .cla[u]de/settings.json`, `tee
 * .git/conf?g`, `cat > ~/.bas?rc`): the fragment's components are matched
 * against consecutive components of the glob, any directory before them
 * and any path inside them.  A fragment that may sit anywhere (`/etc/cron`
 * in `/etc/crontab`) may end a longer first component and start a longer
 * last one.  A broad wildcard (`*`, `*.py`: one that matches ordinary names)
 * is not aimed at anything, as for secrets: it never matches a dot-led
 * component (`.git`: bash's `*` skips dot names unless dotglob is on), and a
 * match counts only when some component of it is aimed (a literal or a
 * narrow glob): `.git/STAR/pre-commit` counts, `sed -i ... STAR` and
 * `src/STAR.py` (sitecustomize.py) do not. */
enum { GLOB_MAX_COMPS = 32 };

static size_t split_comps(char *buf, char **comps, size_t max)
{
	size_t n = 0;
	for (char *t = buf; *t && n < max;) {
		char *e = strchr(t, '/');
		if (e)
			*e = '\0';
		if (*t)
			comps[n++] = t;
		if (!e)
			break;
		t = e + 1;
	}
	return n;
}

/* g has a wildcard as bash and fnmatch read it: `*`, `?`, or a `[` that a
   `]` closes (an unterminated `[` matches itself: `nh[Mp` names one
   file; read as a bracket it was matched against every fragment at
   every place, 1.7G instructions for one 172-byte line fuzz_shell
   found). */
static bool has_wildcard(const char *g)
{
	if (!g)
		return false;
	if (strpbrk(g, "*?"))
		return true;
	const char *b = strchr(g, '[');
	return b && strchr(b + 1, ']');
}

static bool broad_comp(const char *g)
{
	return has_wildcard(g) && matches_ordinary(g);
}

/* One glob component, read once for every fragment tried against it:
   its text, its fnmatch prefilter and whether it is broad (broad_comp). */
typedef struct glob_comp {
	const char *g;
	comp_filter f;
	bool broad;
	bool any; /* only `*`: fnmatch matches every name */
} glob_comp;

/* fnmatch(g->g, n, 0) == 0, its prefilter first. */
static bool comp_fnmatch(const glob_comp *g, const char *n, size_t nl)
{
	return g->any ||
	       (comp_filter_may(&g->f, n, nl) && fnmatch(g->g, n, 0) == 0);
}

/* Glob component g may match a component holding f (longer_start: more
   bytes may come before f; longer_end: after it). */
static bool comp_may(const glob_comp *g, const char *f, bool longer_start,
                     bool longer_end, bool computed)
{
	if (!computed && f[0] == '.' && g->broad)
		return false;
	char r[160];
	size_t fl = strlen(f);
	if (fl + 4 > sizeof r)
		return true; /* too long to tell: it may */
	if (comp_fnmatch(g, f, fl))
		return true;
	static const char *const tails[] = {"x", ".d", "tab", NULL};
	for (const char *const *t = tails; longer_end && *t; t++) {
		size_t tl = strlen(*t);
		memcpy(r, f, fl);
		memcpy(r + fl, *t, tl + 1);
		if (comp_fnmatch(g, r, fl + tl))
			return true;
	}
	if (longer_start) {
		r[0] = 'x';
		memcpy(r + 1, f, fl + 1);
		if (comp_fnmatch(g, r, fl + 1))
			return true;
	}
	return false;
}

/* The fragment's components (f) at glob components g[j...]. */
static bool fragment_at_comps(const glob_comp *g, size_t j, char *const *f,
                              size_t nf, const fragment *fr, bool computed)
{
	size_t len = strlen(fr->text);
	bool lead = fr->text[0] == '/', trail = fr->text[len - 1] == '/';
	bool aimed = false;
	for (size_t t = 0; t < nf; t++) {
		bool ls = fr->at != COMPONENT && t == 0 && !lead;
		bool le = fr->at == ANYWHERE && t == nf - 1 && !trail;
		if (!comp_may(&g[j + t], f[t], ls, le, computed))
			return false;
		aimed |= !g[j + t].broad;
	}
	return aimed;
}

/* computed: glob is the glob form of a word computed at run time
   (pk_glob_form), whose `*` may be any text, a leading dot included.
   Each glob component is read once (its prefilter, whether it is broad:
   22 fnmatch calls), not once per fragment and position. */
static bool glob_path_hits(const char *glob, const fragment *table,
                           bool computed)
{
	char gb[1024];
	char *gs[GLOB_MAX_COMPS];
	glob_comp g[GLOB_MAX_COMPS];
	if (strlen(glob) >= sizeof gb)
		return true; /* too long to tell: it may */
	memcpy(gb, glob, strlen(glob) + 1);
	size_t ng = split_comps(gb, gs, GLOB_MAX_COMPS);
	bool aimed = false; /* some component is aimed */
	for (size_t j = 0; j < ng; j++) {
		g[j].g = gs[j];
		comp_filter_init(&g[j].f, gs[j], strlen(gs[j]));
		g[j].broad = broad_comp(gs[j]);
		g[j].any = gs[j][strspn(gs[j], "*")] == '\0';
		aimed |= !g[j].broad;
	}
	/* a match counts only when one of its components is aimed
	   (fragment_at_comps, computed or not): when every component is
	   broad (`*.py`, `STAR/STAR.ts`), none can */
	if (!aimed)
		return false;
	for (const fragment *fr = table; fr->text; fr++) {
		char fb[128];
		char *f[GLOB_MAX_COMPS];
		if (strlen(fr->text) >= sizeof fb)
			continue;
		memcpy(fb, fr->text, strlen(fr->text) + 1);
		size_t nf = split_comps(fb, f, GLOB_MAX_COMPS);
		for (size_t j = 0; nf && j + nf <= ng; j++)
			if (fragment_at_comps(g, j, f, nf, fr, computed))
				return true;
	}
	return false;
}

static bool is_glob(const char *p)
{
	return has_wildcard(p);
}

bool pk_secret_path(const char *p)
{
	if (has_wildcard(p) && glob_secret(p))
		return true;
	return secret_path(p, any_fragment, true);
}

/* pk_secret_name_hit's probe of one table name (as glob_hits builds it:
   x.pem for a suffix, a directory without its slash, x after a fragment
   found anywhere), written ./NAME as find and fd give it. */
static bool name_probe(const fragment *f, bool tail,
                       bool (*hit)(const char *, const void *), const void *arg)
{
	char name[160];
	size_t n = strlen(f->text);
	const char *pre =
	    f->at == SUFFIX && f->text[n - 1] != '/' ? "./x" : "./";
	if (f->text[0] == '/')
		pre = ".";
	if (f->at == SUFFIX && f->text[n - 1] == '/')
		n--;
	/* memcpy, not snprintf: ~1,000 instructions a probe, 20 probes a
	   name test */
	size_t pn = strlen(pre);
	if (pn + n + (tail ? 1 : 0) >= sizeof name)
		return false;
	memcpy(name, pre, pn);
	memcpy(name + pn, f->text, n);
	if (tail)
		name[pn + n++] = 'x';
	name[pn + n] = '\0';
	return hit(name, arg);
}

bool pk_secret_name_hit(bool (*hit)(const char *path, const void *arg),
                        const void *arg, bool base)
{
	static const char *const env_names[] = {"./.env", "./.env.local",
	                                        "./x.env", NULL};
	bool found = false;
	for (const char *const *e = env_names; *e && !found; e++)
		found = hit(*e, arg);
	for (const fragment *f = secret_fragments; f->text && !found; f++)
		found = !(base && strchr(f->text, '/')) &&
		        (name_probe(f, false, hit, arg) ||
		         (f->at == ANYWHERE && name_probe(f, true, hit, arg)));
	if (!found)
		return false;
	for (const char *const *o = ordinary_names; *o; o++) {
		char name[64];
		snprintf(name, sizeof name, "./%s", *o);
		if (hit(name, arg))
			return false;
	}
	return true;
}

/* A path in another spelling (`.git//hooks`, `.git/info/../hooks`,
   `./.git/./config`) is matched in its lexically normal form too. */
static bool normal_match(const char *p, bool (*match)(const char *))
{
	/* only a word with a `//`, `.` or `..` segment has another form */
	/* (one walk over the slashes: a `//`, or a `/.` or `/..` that
	   ends a segment) */
	bool other = !strncmp(p, "./", 2) || !strncmp(p, "../", 3);
	for (const char *d = strchr(p, '/'); !other && d;
	     d = strchr(d + 1, '/')) {
		if (d[1] == '/') {
			other = true;
		} else if (d[1] == '.') {
			size_t dots = d[2] == '.' ? 2 : 1;
			char after = d[1 + dots];
			other = after == '/' || after == '\0';
		}
	}
	if (!other)
		return false;
	char buf[1024];
	const char *n = ll_normal_path(p, buf, sizeof buf);
	return n && strcmp(n, p) != 0 && match(n);
}

static bool persistence_raw(const char *p)
{
	return any_fragment(p, persistence_fragments, PP_PERSISTENCE);
}

bool pk_persistence_path(const char *p)
{
	if (is_glob(p) && glob_path_hits(p, persistence_fragments, false))
		return true;
	return p && *p && strpbrk(p, path_bytes) &&
	       (persistence_raw(p) || normal_match(p, persistence_raw));
}

/* The last components of the persistence fragments' leading components
   (".git" of ".git/hooks", "etc" of "/etc/cron"): a folder whose last
   component is none of them holds no persistence path
   (pk_persistence_folder_name's quick answer, most paths' only one).
   pk_path_tables_consistent() checks the list against the table. */
enum { FOLDER_NAME_MAX = 16 }; /* a folder_names name is shorter */
static const char *const folder_names =
    ".buildkite .circleci .config .git .github .husky .ssh .vscode "
    ".woodpecker Library apt etc info init lib modules spool ssh udev var "
    "xdg";

/* What a walk over the folder prefixes looks at: path p (len bytes), or
   the message buffer of the table check. */
typedef struct prefix_probe {
	const char *p;
	size_t len;
	char *why;
	size_t cap;
} prefix_probe;

/* Every leading part of fragment text t that ends at a '/' (the folder
   prefixes t[0..k)), passed to fn with the bytes of its last component;
   true as soon as fn says so. */
static bool folder_prefixes(const char *t,
                            bool (*fn)(const char *t, size_t k,
                                       const char *last, size_t n,
                                       prefix_probe *pr),
                            prefix_probe *pr)
{
	size_t from = t[0] == '/'; /* "/etc/cron": the first is "etc" */
	for (const char *s = strchr(t + 1, '/'); s; s = strchr(s + 1, '/')) {
		size_t k = (size_t)(s - t);
		if (fn(t, k, t + from, k - from, pr))
			return true;
		from = k + 1;
	}
	return false;
}

/* p (its length in arg) ends with the prefix t[0..k) as whole
   components; an absolute prefix ("/etc" of "/etc/cron") is p whole. */
static bool ends_with_prefix(const char *t, size_t k, const char *last,
                             size_t n, prefix_probe *pr)
{
	(void)last;
	(void)n;
	const char *p = pr->p;
	size_t len = pr->len;
	if (k > len || strncmp(p + len - k, t, k) != 0)
		return false;
	return t[0] == '/' ? len == k : len == k || p[len - k - 1] == '/';
}

bool pk_persistence_folder_name(const char *p)
{
	size_t len = strlen(p);
	while (len > 1 && p[len - 1] == '/')
		len--;
	size_t b = len;
	while (b && p[b - 1] != '/')
		b--;
	char last[FOLDER_NAME_MAX];
	if (len - b >= sizeof last)
		return false; /* longer than any name of folder_names */
	memcpy(last, p + b, len - b);
	last[len - b] = '\0';
	if (!pk_word_in(folder_names, last))
		return false;
	prefix_probe pr = {.p = p, .len = len};
	for (const fragment *f = persistence_fragments; f->text; f++)
		if (folder_prefixes(f->text, ends_with_prefix, &pr))
			return true;
	return false;
}

/* folder_names holds the last component of every folder prefix. */
static bool prefix_listed(const char *t, size_t k, const char *last, size_t n,
                          prefix_probe *pr)
{
	char name[FOLDER_NAME_MAX];
	if (n && n < sizeof name) {
		memcpy(name, last, n);
		name[n] = '\0';
		if (pk_word_in(folder_names, name))
			return false;
	}
	snprintf(pr->why, pr->cap,
	         "persistence folder '%.*s' has a last component folder_names "
	         "does not list",
	         (int)k, t);
	return true;
}

/* The configuration of coding agents and their tool servers
   (`.claude/settings.json` grants permissions, `.mcp.json` starts
   programs).  Instruction files (CLAUDE.md, AGENTS.md, GEMINI.md) are
   data: not listed. */
/* clang-format off */
static const fragment agent_fragments[] = {
    {".claude", COMPONENT},  {".claude.json", COMPONENT},
    {".mcp.json", COMPONENT}, {".codex", COMPONENT},
    {".gemini", COMPONENT},  {".cursor", COMPONENT},
    {".windsurf", COMPONENT}, {".continue", COMPONENT},
    {".aider.conf.yml", COMPONENT}, {".locus", COMPONENT},
    {NULL, ANYWHERE},
};
/* clang-format on */

/* any_fragment_slow(p, agent_fragments), one pass: every agent fragment
   is a COMPONENT starting with '.' (pk_path_tables_consistent checks
   it), so only a '.' that starts a component is compared (`x.py` and
   `1.2` are passed over at their first byte). */
static bool agent_raw(const char *p)
{
	for (const char *q = strchr(p, '.'); q; q = strchr(q + 1, '.')) {
		if (!before_ok(q == p ? '/' : q[-1]))
			continue;
		for (const fragment *f = agent_fragments; f->text; f++)
			if (fragment_at(p, (size_t)(q - p), f))
				return true;
	}
	return false;
}

bool pk_agent_config_path(const char *p)
{
	if (is_glob(p) && glob_path_hits(p, agent_fragments, false))
		return true;
	/* every fragment holds a '.': most words are rejected by strchr */
	return p && strchr(p, '.') &&
	       (agent_raw(p) || normal_match(p, agent_raw));
}

bool pk_persistence_computed(const char *form)
{
	return glob_path_hits(form, persistence_fragments, true);
}

bool pk_agent_config_computed(const char *form)
{
	return glob_path_hits(form, agent_fragments, true);
}

static bool persistence_slow(const char *p)
{
	return any_fragment_slow(p, persistence_fragments);
}

static bool any_slow(const char *w, const fragment *table, size_t id)
{
	(void)id;
	return any_fragment_slow(w, table);
}

bool pk_path_reference(bool secret, const char *p)
{
	if (secret)
		return (has_wildcard(p) && glob_secret(p)) ||
		       secret_path(p, any_slow, false);
	return p && *p &&
	       ((is_glob(p) &&
	         glob_path_hits(p, persistence_fragments, false)) ||
	        any_fragment_slow(p, persistence_fragments) ||
	        normal_match(p, persistence_slow));
}

static bool agent_slow(const char *p)
{
	return any_fragment_slow(p, agent_fragments);
}

bool pk_agent_reference(const char *p)
{
	return p &&
	       ((is_glob(p) && glob_path_hits(p, agent_fragments, false)) ||
	        agent_slow(p) || normal_match(p, agent_slow));
}

const char *pk_path_fragment(bool secret, size_t i)
{
	const fragment *t = secret ? secret_fragments : persistence_fragments;
	for (size_t k = 0; t[k].text; k++)
		if (k == i)
			return t[k].text;
	return NULL;
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
	for (const fragment *f = agent_fragments; f->text; f++)
		if (f->text[0] != '.' || f->at != COMPONENT) {
			snprintf(why, cap,
			         "agent fragment '%s' is not a component "
			         "starting with '.' (agent_raw)",
			         f->text);
			return false;
		}
	prefix_probe pr = {.why = why, .cap = cap};
	for (const fragment *f = persistence_fragments; f->text; f++)
		if (folder_prefixes(f->text, prefix_listed, &pr))
			return false;
	return table_has_path_bytes(secret_fragments, "secret", why, cap) &&
	       table_has_path_bytes(persistence_fragments, "persistence", why,
	                            cap);
}

bool pk_sudoers_path(const char *p)
{
	return p && strstr(p, "/etc/sudoers") != NULL;
}
#endif /* PK_GEN_PATHS */
