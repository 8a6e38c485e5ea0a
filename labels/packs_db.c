/*
 * labels/packs_db.c - the databases pack: SQL and document-store clients
 * with statements given inline (judged by the SQL classifier, sql.c), and
 * the tools that drop databases or users (rules language: pack.h).
 *
 * Where the statements come from: `-c`/`-e`/`--eval`-style options,
 * operands (sqlite3 DB SQL, redis-cli CMD), a heredoc or herestring, or a
 * literal pipe (`echo 'DROP TABLE t' | psql`: see pk_db_piped).  SQL read
 * from a file (`-f f`, `< f`) or from another program's output is not
 * visible: the command stays plain workspace.exec.
 */
#include <string.h>
#include <strings.h>

#include "pack.h"
#include "../util/str.h"

#define D LOCUS_TAG_DESTRUCTIVE
#define U LOCUS_TAG_UNKNOWN

/* How one client takes statements inline. */
typedef struct client {
	const char *names;      /* space separated */
	char short_opt;         /* -c, -e ... (in clusters too), or 0 */
	const char *long_opts;  /* "--command --execute", space separated */
	unsigned operands_from; /* operands from this index on are statements
	                           (1: all, 2: after the database), 0: none */
} client;

static const client clients[] = {
    {"psql", 'c', "--command", 0},
    {"mysql mariadb", 'e', "--execute", 0},
    {"sqlite3 sqlite duckdb", 'c', "-cmd --cmd", 2},
    {"mongosh mongo", 0, "--eval", 0},
    {"redis-cli valkey-cli keydb-cli", 0, NULL, 1},
    {"clickhouse-client", 'q', "--query", 0},
    {"clickhouse", 'q', "--query", 0},
    {"cqlsh", 'e', "--execute", 0},
    {"sqlcmd", 'Q', "-q", 0},
    {"usql", 'c', "--command", 0},
    {"snowsql", 'q', "--query", 0},
    {"cockroach", 'e', "--execute", 0},
    {"bq", 0, NULL, 2},
    {NULL, 0, NULL, 0},
};

/* Options of redis-cli and sqlite3 that take a value (so the value is not
   read as a statement operand). */
static const char *const operand_values =
    "-h -p -s -a -u -r -i -n -d -D --user --pass -x --eval -init -vfs "
    "-separator -newline -nullvalue -mmap -cmd --cmd";

static const client *client_of(const char *name)
{
	for (const client *k = clients; k->names; k++)
		if (pk_word_in(k->names, name))
			return k;
	return NULL;
}

static bool text_destroys(const char *t)
{
	return t && pk_sql_destructive(t, strlen(t));
}

/* The value of a long option at argv[i] (`--o=V` or `--o V`). */
static const char *long_value(const locus_shell_command *c, size_t *i,
                              const char *opts)
{
	const char *a = c->argv[*i];
	const char *eq = strchr(a, '=');
	size_t n = eq ? (size_t)(eq - a) : strlen(a);
	char name[32];
	if (n == 0 || !lu_copy_fits(name, sizeof name, a, n))
		return NULL;
	if (!pk_word_in(opts, name))
		return NULL;
	if (eq)
		return eq + 1;
	if (*i + 1 < c->argc)
		return c->argv[++*i];
	return NULL;
}

static bool inline_statements_destroy(const locus_shell_command *c,
                                      const client *k)
{
	unsigned operand = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (k->long_opts && a[0] == '-') {
			size_t j = i;
			const char *v = long_value(c, &j, k->long_opts);
			if (v) {
				i = j;
				if (text_destroys(v))
					return true;
				continue;
			}
		}
		if (k->short_opt && a[0] == '-' && a[1] != '-') {
			const char *at = strchr(a + 1, k->short_opt);
			if (at) {
				const char *v = at[1]             ? at + 1
				                : i + 1 < c->argc ? c->argv[++i]
				                                  : NULL;
				if (text_destroys(v))
					return true;
				continue;
			}
		}
		if (pk_is_option(a)) {
			if (pk_word_in(operand_values, a))
				i++;
			continue;
		}
		operand++;
		if (k->operands_from && operand >= k->operands_from &&
		    text_destroys(a))
			return true;
	}
	/* redis-cli FLUSHALL as separate words: the operands together. */
	return false;
}

static bool body_destroys(const locus_shell_command *c)
{
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *r = &c->redirects[i];
		if (r->op && r->target && strncmp(r->op, "<<", 2) == 0 &&
		    text_destroys(r->target))
			return true;
	}
	return false;
}

bool pk_sql_statements_destroy(const locus_shell_command *c,
                               const ll_context *ctx)
{
	(void)ctx;
	const client *k = client_of(c->name);
	return k && (inline_statements_destroy(c, k) || body_destroys(c));
}

/* t holds w (lower case ASCII) in any case. */
static bool strcasestr_ascii(const char *t, const char *w)
{
	size_t n = strlen(w);
	for (; *t; t++)
		if (!strncasecmp(t, w, n))
			return true;
	return false;
}
/* psql's \! and \o |cmd, mysql's system / \!, sqlite's .shell / .system:
   the client runs a shell command we do not see. */
/* A psql meta-command (\\ followed by letters) whose argument pipes into
   a command (`\\g |CMD`, `\\gx  |CMD`, `\\out |CMD`, any blanks), or a
   line holding one and a backquote (psql runs `CMD` in a meta-command's
   arguments: `\\echo `CMD``, `\\set x `CMD``). */
static bool meta_escape(const char *t)
{
	for (const char *b = strchr(t, '\\'); b; b = strchr(b + 1, '\\')) {
		const char *p = b + 1;
		while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		       *p == '_')
			p++;
		if (p == b + 1)
			continue;
		p += strspn(p, " \t");
		if (*p == '|')
			return true;
		size_t line = strcspn(p, "\n");
		if (memchr(p, '`', line))
			return true;
	}
	return false;
}

static bool shell_escape(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	/* psql: \\! CMD, \\o |CMD, \\g |CMD, \\w |CMD, \\copy ... program
	   'CMD' and COPY ... PROGRAM 'CMD' (checked by a red team on psql
	   15); mysql: system CMD */
	/* clang-format off */
	static const char *const escapes[] = {
	    "\\!", ".shell", ".system", "\\o |", "\\o|", "\\g |", "\\g|",
	    "\\w |", "\\w|", "system ", NULL,
	};
	/* clang-format on */
	for (const char *const *e = escapes; *e; e++)
		if (pk_any_arg_contains(c, *e))
			return true;
	for (size_t i = 1; i < c->argc; i++)
		if (strcasestr_ascii(c->argv[i], "program") ||
		    meta_escape(c->argv[i]))
			return true;
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *r = &c->redirects[i];
		if (!r->op || !r->target || strncmp(r->op, "<<", 2))
			continue;
		if (strcasestr_ascii(r->target, "program") ||
		    meta_escape(r->target))
			return true;
		for (const char *const *e = escapes; *e; e++)
			if (strstr(r->target, *e))
				return true;
	}
	return false;
}

/* What sqlite3's SQL functions and dot-commands, and DuckDB's
   statements, do with files the statements name (sqlite.org/cli.html,
   DuckDB's COPY and EXPORT): write, read, attach or load them (checked
   by a red team: writefile, VACUUM INTO, .output, .backup wrote outside
   the workspace; readfile printed .env).  Lower case. */
/* clang-format off */
static const char *const file_io[] = {
    "load_extension", "attach", "copy",   "export database",
    "install ",       "load ",  "program", NULL,
};

/* The shell's dot-commands that run a program or touch a file (sqlite's
   shell.c, DuckDB's CLI); the shell takes any prefix of a command (`.sy
   CMD` is .system, `.sh` .shell: strncmp(azArg[0], "shell", n)), so a
   dot-command that begins one of these counts. */
static const char *const dot_commands[] = {
    "archive", "ar",       "backup",   "cd",     "clone",   "connection",
    "edit",    "excel",    "filectrl", "import", "iotrace", "load",
    "log",     "nonce",    "once",     "open",   "output",  "read",
    "recover", "restore",  "save",     "selftest", "shell", "system",
    "testcase", "testctrl", "trace",   "www",    NULL,
};

/* The dot-command at d (after its `.`) begins one of dot_commands. */
static bool dot_command_io(const char *d)
{
	size_t n = 0;
	while ((d[n] >= 'a' && d[n] <= 'z') || (d[n] >= 'A' && d[n] <= 'Z') ||
	       (d[n] >= '0' && d[n] <= '9') || d[n] == '_')
		n++;
	if (!n)
		return false;
	for (const char *const *c = dot_commands; *c; c++)
		if (n <= strlen(*c) && !strncasecmp(d, *c, n))
			return true;
	return false;
}

/* Text t holds one of file_io's words, in any case, or a line of it
   starts with a dot-command of dot_commands. */
/* SQL functions that write, read, run or load (sqlite3, checked by a red
   team in every spelling SQL takes: `WRITEFILE (`, `"writefile"(`,
   `[edit](`, a comment between the name and its parenthesis). */
static const char *const file_functions[] = {
    "writefile", "readfile", "edit", "load_extension", "fts3_tokenizer", NULL,
};

/* At p, after a function's name: quotes, brackets, blanks and comments,
   then `(`. */
static bool call_follows(const char *p)
{
	for (;;) {
		p += strspn(p, "\"'`[] \t\r\n");
		if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			if (!e)
				return true; /* unterminated: may be */
			p = e + 2;
			continue;
		}
		return *p == '(';
	}
}

static bool text_file_io(const char *t)
{
	for (const char *const *w = file_io; *w; w++) {
		size_t n = strlen(*w);
		for (const char *p = t; *p; p++)
			if (!strncasecmp(p, *w, n))
				return true;
	}
	for (const char *const *f = file_functions; *f; f++) {
		size_t n = strlen(*f);
		for (const char *p = t; *p; p++)
			if (!strncasecmp(p, *f, n) && call_follows(p + n))
				return true;
	}
	/* VACUUM [schema] INTO file */
	if (strcasestr_ascii(t, "vacuum") && strcasestr_ascii(t, "into"))
		return true;
	for (const char *l = t; l; l = strchr(l, '\n')) {
		l += *l == '\n';
		l += strspn(l, " \t;");
		if (*l == '.' && dot_command_io(l + 1))
			return true;
	}
	return false;
}

static bool statements_touch_files(const locus_shell_command *c,
                                   const ll_context *ctx)
{
	(void)ctx;
	for (size_t i = 1; i < c->argc; i++)
		if (text_file_io(c->argv[i]) ||
		    /* -A: sqlar archive mode (absolute member names);
		       file: URIs name any file */
		    !strncmp(c->argv[i], "-A", 2) ||
		    !strncmp(c->argv[i], "--A", 3) ||
		    !strncmp(c->argv[i], "file:", 5))
			return true;
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *r = &c->redirects[i];
		if (r->op && r->target && !strncmp(r->op, "<<", 2) &&
		    text_file_io(r->target))
			return true;
	}
	return false;
}

void pk_db_piped(const locus_shell_command *client_cmd,
                 const locus_shell_command *producer, ll_judgement *j)
{
	if (!client_of(client_cmd->name) || producer->argc == 0)
		return;
	bool literal = strcmp(producer->name, "echo") == 0 ||
	               strcmp(producer->name, "printf") == 0;
	bool bad = false;
	if ((literal || !strcmp(producer->name, "cat")) &&
	    pk_word_in("psql mysql mariadb sqlite3 sqlite duckdb",
	               client_cmd->name) &&
	    shell_escape(producer, NULL)) {
		j->tags |= D;
		ll_judgement_reason(j, "databases: the statements piped into "
		                       "the client hold a shell escape (\\!, "
		                       "\\g |CMD, .shell) that runs a command "
		                       "locus does not see");
	}
	if (pk_word_in("sqlite3 sqlite duckdb", client_cmd->name) &&
	    (literal || !strcmp(producer->name, "cat")) &&
	    statements_touch_files(producer, NULL)) {
		j->tags |= U;
		ll_judgement_reason(j, "databases: the statements piped into "
		                       "the client write, read, attach or "
		                       "load files they name: not judged");
	}
	for (size_t i = 1; literal && !bad && i < producer->argc; i++)
		bad = text_destroys(producer->argv[i]);
	if (!bad && strcmp(producer->name, "cat") == 0)
		bad = body_destroys(producer);
	if (!bad)
		return;
	j->tags |= D;
	static const char reason[] =
	    "databases: the statements piped into the client destroy data";
	ll_judgement_reason(j, reason);
}

/* ---- the server a client reaches ---------------------------------------
 *
 * A client given a host, a URL or a libpq conninfo naming one connects to
 * it (checked by a red team: `psql -h NAME` resolved NAME, `psql
 * postgres://IP/db` dialled IP).  The machine's own server stays as it
 * was: no host, `localhost`, a 127.* or ::1 address, or a socket folder
 * (a host starting with `/`, `%2F` in a URL). */
typedef struct server_opts {
	const char *names;     /* space separated */
	char host_short;       /* -h HOST, -hHOST; 0: none */
	const char *host_long; /* "--host" (any abbreviation: `--h` is refused as
	                          ambiguous, counting it costs nothing) */
	const char *schemes;   /* URL schemes, space separated */
	bool conninfo;   /* libpq: `host=H`, `hostaddr=H`, `service=S` */
	bool address;    /* mongosh HOST/DB, HOST:PORT/DB as an operand */
	const char *skip; /* options whose value is no server (-U USER,
	                     -f FILE): a run-time value there is not judged */
	const char *config; /* options naming an option file, which may name
	                       the host (mysql --defaults-file=F): held */
} server_opts;

/* clang-format off */
static const server_opts servers[] = {
    {"psql pg_dump pg_restore pg_isready createdb dropdb", 'h', "--host",
     "postgres:// postgresql://", true, false,
     "-c --command -f --file -U --username -p --port -o --output -L "
     "--log-file -P --pset -v --set --variable -F --field-separator -R "
     "--record-separator -T --table-attr -t --table -n --schema -j --jobs "
     "-Z --compress -E --encoding -S --superuser -I --index -L --use-list",
     NULL},
    {"mysql mariadb mysqldump mysqladmin mariadb-admin", 'h', "--host",
     "mysql:// mariadb://", false, false, "",
     "--defaults-file --defaults-extra-file --login-path"},
    {"redis-cli valkey-cli keydb-cli", 'h', NULL,
     "redis:// rediss:// valkey:// valkeys://", false, false, "", NULL},
    {"mongosh mongo", 0, "--host", "mongodb:// mongodb+srv://", false, true,
     "--eval -f --file -u --username -p --password", NULL},
    {"mongodump mongorestore", 'h', "--host", "mongodb:// mongodb+srv://",
     false, false, "", "--config"},
    {"clickhouse-client clickhouse", 'h', "--host", "clickhouse://", false,
     false, "", "-C --config-file --config"},
    {NULL, 0, NULL, NULL, false, false, NULL, NULL},
};
/* clang-format on */

/* The n bytes at h name this machine (or a socket folder). */
static bool local_host(const char *h, size_t n)
{
	static const char *const names[] = {"localhost", "::1", "[::1]", NULL};
	if (n == 0 || h[0] == '/' || (n >= 3 && !strncasecmp(h, "%2f", 3)))
		return true;
	for (const char *const *w = names; *w; w++)
		if (strlen(*w) == n && !strncasecmp(h, *w, n))
			return true;
	if (n < 4 || strncmp(h, "127.", 4))
		return false;
	for (size_t i = 4; i < n; i++)
		if (!((h[i] >= '0' && h[i] <= '9') || h[i] == '.'))
			return false;
	return true;
}

/* A host list `h1:p1,h2` (up to a blank, `/`, `?`, `&` or a quote): some
   host is not this machine's. */
static bool hosts_remote(const char *h)
{
	for (;;) {
		size_t n = h[0] == '[' ? strcspn(h, "]") + 1
		                       : strcspn(h, ":,/?& \t'\"");
		if (!local_host(h, n))
			return true;
		h += n;
		h += strcspn(h, ",/?& \t'\"");
		if (*h != ',')
			return false;
		h++;
	}
}

/* Word w holds a URL of one of `schemes` whose host is not this
   machine's. */
static bool url_remote(const char *w, const char *schemes)
{
	size_t n;
	for (const char *t = pk_next_tok(&schemes, &n); t;
	     t = pk_next_tok(&schemes, &n)) {
		for (const char *at = w; (at = strstr(at, "://")) != NULL;
		     at += 3) {
			size_t k = n - 3; /* the scheme without :// */
			if ((size_t)(at - w) < k || strncasecmp(at - k, t, k))
				continue;
			const char *h = at + 3, *end = h + strcspn(h, "/?");
			for (const char *u = h; u < end; u++)
				if (*u == '@') /* user:password@ */
					h = u + 1;
			if (hosts_remote(h))
				return true;
		}
	}
	return false;
}

/* Word w is or holds a libpq conninfo (or URL query) key `host=` or
   `hostaddr=` naming another machine, or `service=` (the host is in a
   service file, not on the line). */
static bool conninfo_remote(const char *w)
{
	static const char *const keys[] = {
	    "host=", "hostaddr=", "service=", NULL};
	for (const char *const *k = keys; *k; k++) {
		size_t n = strlen(*k);
		for (const char *p = w; (p = strstr(p, *k)) != NULL; p += n) {
			if (p > w && !strchr(" \t?&", p[-1]))
				continue;
			const char *v = p + n;
			v += strspn(v, " \t'");
			if (**k == 's' || hosts_remote(v))
				return true;
		}
	}
	return false;
}

/* Option word a is the client's host option: its value attached (after
   `=` or the letter), or "" when it is the next word. */
static const char *host_option(const server_opts *s, const char *a)
{
	if (s->host_short && a[0] == '-' && a[1] == s->host_short)
		return a + 2;
	if (!s->host_long || a[0] != '-' || a[1] != '-')
		return NULL;
	size_t n = strcspn(a, "=");
	if (n < 3 || n > strlen(s->host_long) || strncmp(a, s->host_long, n))
		return NULL;
	return a[n] ? a + n + 1 : a + n;
}

/* The operand w of mongosh is an address HOST/DB or HOST:PORT[/DB] of
   another machine (not a URL, judged by its scheme, nor a script file:
   .js, ./x, /x). */
static bool address_remote(const char *w)
{
	size_t n = strlen(w);
	if (!strpbrk(w, "/:") || strstr(w, "://") ||
	    (n > 3 && !strcmp(w + n - 3, ".js")) || w[0] == '.' || w[0] == '/')
		return false;
	return hosts_remote(w);
}

/* Option word a is one of `config` (space separated), a long one in
   any abbreviation from `--` and a letter (MySQL's option parser takes
   every unambiguous prefix; an ambiguous one is an error: `--d` costs
   nothing to count). */
static bool names_config(const char *config, const char *a)
{
	size_t n = strcspn(a, "="), k;
	if (!config || a[0] != '-' || n < 2)
		return false;
	for (const char *t = pk_next_tok(&config, &k); t;
	     t = pk_next_tok(&config, &k))
		if (t[1] == '-'
		        ? a[1] == '-' && n >= 3 && n <= k && !strncmp(a, t, n)
		        : n == k && !strncmp(a, t, n))
			return true;
	return false;
}

static bool word_dynamic(const locus_shell_command *c, size_t i)
{
	return c->argv_flags && (c->argv_flags[i] & LOCUS_WORD_DYNAMIC);
}

/* c's words name another machine (s: how the client takes a server; k:
   how it takes statements, whose values are skipped). */
static bool names_remote_server(const locus_shell_command *c,
                                const server_opts *s, const client *k)
{
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (k && k->long_opts && a[0] == '-') {
			size_t j = i; /* the statements: not a server */
			if (long_value(c, &j, k->long_opts)) {
				i = j;
				continue;
			}
		}
		const char *h = a[0] == '-' ? host_option(s, a) : NULL;
		if (h) {
			size_t at = i;
			if (!*h && i + 1 < c->argc)
				h = c->argv[at = ++i];
			if (hosts_remote(h) || word_dynamic(c, at))
				return true;
			continue;
		}
		if (url_remote(a, s->schemes) ||
		    (s->conninfo && conninfo_remote(a)))
			return true;
		if (names_config(s->config, a))
			return true;
		if (a[0] == '-') {
			if (pk_word_in(s->skip, a) && i + 1 < c->argc)
				i++;
			continue;
		}
		if ((s->conninfo || s->address) && word_dynamic(c, i))
			return true; /* a run-time operand may be a URL */
		if (s->address && address_remote(a))
			return true;
	}
	return false;
}

static bool connects_remote(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	for (const server_opts *s = servers; s->names; s++)
		if (pk_word_in(s->names, c->name))
			return names_remote_server(c, s, client_of(c->name));
	return false;
}

#define CLIENTS                                                                \
	"psql mysql mariadb sqlite3 sqlite duckdb mongosh mongo redis-cli "    \
	"valkey-cli keydb-cli clickhouse-client clickhouse cqlsh sqlcmd "      \
	"usql snowsql cockroach"

static const pk_grammar grammars[] = {
    {"redis-cli valkey-cli keydb-cli",
     "-h -p -s -a -u -r -i -n -d -D --user --pass --eval --cacert "
     "--cert --key --sni",
     "-c -x --tls --no-auth-warning --raw"},
    {NULL, NULL, NULL},
};

#define SERVER_CLIENTS                                                         \
	"psql pg_dump pg_restore pg_isready createdb dropdb mysql mariadb "    \
	"mysqldump mysqladmin mariadb-admin redis-cli valkey-cli keydb-cli "   \
	"mongosh mongo mongodump mongorestore clickhouse-client clickhouse"

/* clang-format off */
static const pk_rule rules[] = {
    {SERVER_CLIENTS, NULL, NULL, "--help --version -?", LOCUS_TAG_NETWORK,
     "databases: the client connects to another machine (a host, URL or "
     "conninfo the line names, or one computed at run time)",
     connects_remote, 0},
    {CLIENTS, NULL, NULL, NULL, D,
     "databases: the statements given to the client destroy data (DROP, "
     "TRUNCATE, DELETE/UPDATE without WHERE, FLUSHALL...)",
     pk_sql_statements_destroy, 0},
    {"psql mysql mariadb sqlite3 sqlite duckdb", NULL, NULL, NULL, D,
     "databases: a client's shell escape (\\!, .shell, system) runs a "
     "command locus does not see",
     shell_escape, 0},
    {"sqlite3 sqlite duckdb", NULL, NULL, "--help -help --version -version",
     U,
     "databases: the statements write, read, attach or load files they "
     "name (writefile, VACUUM INTO, .output, ATTACH, COPY...): not judged",
     statements_touch_files, 0},
    {"redis-cli valkey-cli keydb-cli",
     "flushall|flushdb|shutdown|del|unlink|swapdb", NULL, NULL, D,
     "databases: redis-cli FLUSHALL/FLUSHDB/DEL deletes keys", NULL, PK_NOCASE},
    {"redis-cli valkey-cli keydb-cli",
     "config|debug|script|function|cluster set|segfault|sleep|flush|"
     "reset|reload",
     NULL, NULL, D,
     "databases: redis-cli CONFIG SET/DEBUG/FLUSH changes or crashes the "
     "server",
     NULL, PK_NOCASE},
    {"dropdb dropuser pg_dropcluster", NULL, NULL, "--help -? --version", D,
     "databases: dropdb/dropuser deletes a database or role", NULL, 0},
    {"mysqladmin mariadb-admin", "drop|shutdown|flush-*|purge", NULL,
     "--help -? --version", D, "databases: mysqladmin drop deletes a database",
     NULL, PK_NOCASE},
    {"pg_restore", NULL, "-c --clean", NULL, D,
     "databases: pg_restore --clean drops objects before restoring", NULL, 0},
    {"mongorestore", NULL, "--drop", NULL, D,
     "databases: mongorestore --drop drops collections before restoring", NULL,
     0},
    {"influx", "delete|bucket delete", NULL, "--help -h", D,
     "databases: influx delete removes data", NULL, 0},
    {NULL, NULL, NULL, NULL, 0, NULL, NULL, 0},
};
/* clang-format on */

const pk_pack pk_databases = {"databases", grammars, rules};
