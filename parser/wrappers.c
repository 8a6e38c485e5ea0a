/*
 * parser/wrappers.c - option grammars of wrappers and see-through programs.
 *
 * A wrapper runs another command given after its own options (sudo,
 * timeout, env...).  To find that command we must know which options take
 * a value: skipping `-u root` as one word would make `root` the command.
 * The grammars below come from the programs' manuals.  An option that is
 * not listed is never skipped silently: the scan reports it and the line
 * is unparsed, because we cannot tell where the command starts.
 */
#include <ctype.h>
#include <string.h>

#include "seethrough.h"

/* Wrappers: programs whose operand is a command they run (peeled). */
static const lp_optspec wrappers[] = {
	{ .name = "sudo",
	  .short_val = "aCcDgprRtTUu",
	  .short_flag = "ABbEeHiKklNnPSsVv",
	  .longs = "askpass:A0|bell:B0|background:b0|close-from:C1|chdir:D1|"
	           "preserve-env:E?|edit:e0|group:g1|set-home:H0|host:-1|"
	           "login:i0|remove-timestamp:K0|reset-timestamp:k0|list:l0|"
	           "no-update:N0|non-interactive:n0|preserve-groups:P0|"
	           "prompt:p1|chroot:R1|role:r1|stdin:S0|shell:s0|type:t1|"
	           "command-timeout:T1|other-user:U1|user:u1|validate:v0|"
	           "login-class:c1|auth-type:a1",
	  .query = "KlvV",
	  .nocmd = "e",
	  .background = "b",
	  .flags = LP_OPT_ASSIGNS | LP_OPT_H_HOST },
	{ .name = "doas",
	  .short_val = "Cu",
	  .short_flag = "Lns",
	  .query = "CL",
	  .nocmd = "s" },
	{ .name = "su",
	  .short_val = "cgGsw",
	  .short_flag = "flmpPhV",
	  .longs = "command:c1|session-command:c1|fast:f0|group:g1|"
	           "supp-group:G1|login:l0|preserve-environment:p0|pty:P0|"
	           "shell:s1|whitelist-environment:w1",
	  .query = "hV",
	  .script = "c",
	  .flags = LP_OPT_DASH | LP_OPT_SU },
	{ .name = "runuser",
	  .short_val = "cgGswu",
	  .short_flag = "flmpPhV",
	  .longs = "command:c1|session-command:c1|fast:f0|group:g1|"
	           "supp-group:G1|login:l0|preserve-environment:p0|pty:P0|"
	           "shell:s1|whitelist-environment:w1|user:u1",
	  .query = "hV",
	  .script = "c",
	  .flags = LP_OPT_DASH | LP_OPT_SU },
	{ .name = "run0",
	  .short_val = "ugD",
	  .longs = "no-ask-password:-0|unit:-1|property:-1|description:-1|"
	           "slice:-1|slice-inherit:-0|user:u1|group:g1|nice:-1|"
	           "chdir:D1|setenv:-1|background:-1|pty:-0|pipe:-0|"
	           "shell-prompt-prefix:-1|lightweight:-1|machine:-1|"
	           "area:-1|via-shell:-0|empower:-0" },
	{ .name = "pkexec",
	  .longs = "user:u1|keep-cwd:-0|disable-internal-agent:-0" },
	{ .name = "env",
	  .short_val = "uCSa",
	  .short_flag = "i0v",
	  .longs = "ignore-environment:i0|null:00|unset:u1|chdir:C1|"
	           "split-string:S1|debug:v0|block-signal:-?|"
	           "default-signal:-?|ignore-signal:-?|"
	           "list-signal-handling:-0|argv0:a1",
	  .split = "S",
	  .flags = LP_OPT_ASSIGNS | LP_OPT_DASH },
	{ .name = "nohup" },
	{ .name = "time",
	  .short_val = "fo",
	  .short_flag = "apqvV",
	  .longs = "format:f1|output:o1|append:a0|portability:p0|verbose:v0|"
	           "quiet:q0",
	  .query = "V" },
	{ .name = "command", .short_flag = "pvV", .query = "vV" },
	{ .name = "builtin" },
	{ .name = "exec", .short_val = "a", .short_flag = "cl" },
	{ .name = "nice",
	  .short_val = "n",
	  .longs = "adjustment:n1",
	  .flags = LP_OPT_NUMERIC },
	{ .name = "ionice",
	  .short_val = "cnpPu",
	  .short_flag = "t",
	  .longs = "class:c1|classdata:n1|pid:p1|pgid:P1|uid:u1|ignore:t0",
	  .nocmd = "pPu" },
	{ .name = "stdbuf",
	  .short_val = "ioe",
	  .longs = "input:i1|output:o1|error:e1" },
	{ .name = "timeout",
	  .short_val = "sk",
	  .short_flag = "fpv",
	  .longs = "signal:s1|kill-after:k1|foreground:f0|preserve-status:p0|"
	           "verbose:v0",
	  .npos = 1 },
	{ .name = "unbuffer", .short_flag = "p" },
	{ .name = "chronic", .short_flag = "ev" },
	{ .name = "setsid",
	  .short_flag = "cfw",
	  .longs = "ctty:c0|fork:f0|wait:w0" },
	{ .name = "flock",
	  .short_val = "wEc",
	  .short_flag = "sexnouFhV",
	  .longs = "shared:s0|exclusive:x0|unlock:u0|nonblock:n0|nb:n0|"
	           "timeout:w1|wait:w1|conflict-exit-code:E1|close:o0|"
	           "command:c1|no-fork:F0|verbose:-0",
	  .query = "hV",
	  .script = "c",
	  .npos = 1,
	  .flags = LP_OPT_POS_SCRIPT },
	{ .name = "taskset",
	  .short_flag = "acphV",
	  .longs = "all-tasks:a0|cpu-list:c0|pid:p0",
	  .query = "hV",
	  .nocmd = "p",
	  .npos = 1 },
	{ .name = "chroot",
	  .longs = "groups:-1|userspec:-1|skip-chdir:-0",
	  .npos = 1,
	  .flags = LP_OPT_OPT_POS },
	{ .name = "unshare",
	  .short_val = "RwSG",
	  .short_opt = "muinpUCT",
	  .short_flag = "frchV",
	  .longs = "mount:m?|uts:u?|ipc:i?|net:n?|pid:p?|user:U?|cgroup:C?|"
	           "time:T?|fork:f0|kill-child:-?|mount-proc:-?|"
	           "map-root-user:r0|map-current-user:c0|map-user:-1|"
	           "map-group:-1|map-users:-1|map-groups:-1|map-auto:-0|"
	           "propagation:-1|setgroups:-1|root:R1|wd:w1|setuid:S1|"
	           "setgid:G1|monotonic:-1|boottime:-1|keep-caps:-0|"
	           "load-interp:-1",
	  .query = "hV" },
	{ .name = "nsenter",
	  .short_val = "tSGW",
	  .short_opt = "muinpCUTrw",
	  .short_flag = "aFZechV",
	  .longs = "target:t1|all:a0|mount:m?|uts:u?|ipc:i?|net:n?|pid:p?|"
	           "cgroup:C?|user:U?|time:T?|setuid:S1|setgid:G1|"
	           "preserve-credentials:-0|root:r?|wd:w?|wdns:W1|env:e0|"
	           "no-fork:F0|follow-context:Z0|join-cgroup:c0|"
	           "user-parent:-0|keep-caps:-0",
	  .query = "hV" },
	{ .name = "strace",
	  .short_val = "abeIoOpPsSUXEu",
	  .short_flag = "AcCdDfFhiknqrtTvVwxyYzZ",
	  .longs = "output:o1|output-separately:-0|trace:-1|trace-path:-1|"
	           "trace-fds:-1|status:-1|signal:-1|abbrev:-1|verbose:-1|"
	           "raw:-1|read:-1|write:-1|fault:-1|inject:-1|kvm:-1|"
	           "quiet:-?|silent:-?|decode-fds:-?|decode-pids:-1|"
	           "secontext:-?|summary-only:c0|summary:C0|"
	           "summary-wall-clock:w0|summary-sort-by:S1|"
	           "summary-columns:U1|summary-syscall-overhead:O1|"
	           "syscall-times:-?|timestamps:-?|absolute-timestamps:-?|"
	           "relative-timestamps:-?|follow-forks:f0|daemonize:-?|"
	           "attach:p1|user:u1|env:E1|columns:a1|string-limit:s1|"
	           "strings-in-hex:-?|const-print-style:X1|seccomp-bpf:-0|"
	           "stack-trace:k0|stack-traces:k0|debug:d0|tips:-?|"
	           "instruction-pointer:i0|no-abbrev:v0|interruptible:I1|"
	           "argv0:-1|successful-only:z0|failed-only:Z0|"
	           "syscall-limit:-1|always-show-pid:-0",
	  .query = "hV" },
	{ .name = "ltrace",
	  .short_val = "aADeFlnopsuwxX",
	  .short_flag = "bcCfhiLrStTV",
	  .longs = "output:o1|library:l1|config:F1|align:a1|demangle:C0|"
	           "indent:n1",
	  .query = "hV" },
	{ .name = "systemd-run",
	  .short_val = "upEHM",
	  .short_flag = "rtPqGdSh",
	  .longs = "unit:u1|property:p1|description:-1|slice:-1|"
	           "slice-inherit:-0|remain-after-exit:r0|send-sighup:-0|"
	           "service-type:-1|uid:-1|gid:-1|nice:-1|"
	           "working-directory:-1|same-dir:d0|setenv:E1|pty:t0|"
	           "pipe:P0|quiet:q0|collect:G0|user:-0|system:-0|host:H1|"
	           "machine:M1|scope:-0|on-active:-1|on-boot:-1|"
	           "on-startup:-1|on-unit-active:-1|on-unit-inactive:-1|"
	           "on-calendar:-1|on-clock-change:-0|on-timezone-change:-0|"
	           "timer-property:-1|path-property:-1|socket-property:-1|"
	           "no-block:-0|wait:-0|shell:S0|no-ask-password:-0|"
	           "job-mode:-1|expand-environment:-1|json:-1|"
	           "ignore-failure:-0|background:-1",
	  .query = "h",
	  .nocmd = "S" },
	/* firejail takes every option as one word, values after '='. */
	{ .name = "firejail", .flags = LP_OPT_LONG_EQ },
	{ .name = "bwrap",
	  .longs = "args:-1|argv0:-1|level-prefix:-0|unshare-all:-0|"
	           "share-net:-0|unshare-user:-0|unshare-user-try:-0|"
	           "unshare-ipc:-0|unshare-pid:-0|unshare-net:-0|"
	           "unshare-uts:-0|unshare-cgroup:-0|unshare-cgroup-try:-0|"
	           "userns:-1|userns2:-1|disable-userns:-0|"
	           "assert-userns-disabled:-0|pidns:-1|uid:-1|gid:-1|"
	           "hostname:-1|chdir:-1|clearenv:-0|setenv:-2|unsetenv:-1|"
	           "lock-file:-1|sync-fd:-1|bind:-2|bind-try:-2|dev-bind:-2|"
	           "dev-bind-try:-2|ro-bind:-2|ro-bind-try:-2|remount-ro:-1|"
	           "overlay-src:-1|overlay:-3|tmp-overlay:-1|ro-overlay:-1|"
	           "exec-label:-1|file-label:-1|proc:-1|dev:-1|tmpfs:-1|"
	           "mqueue:-1|dir:-1|file:-2|bind-data:-2|ro-bind-data:-2|"
	           "symlink:-2|seccomp:-1|add-seccomp-fd:-1|block-fd:-1|"
	           "userns-block-fd:-1|info-fd:-1|json-status-fd:-1|"
	           "new-session:-0|die-with-parent:-0|as-pid-1:-0|"
	           "cap-add:-1|cap-drop:-1|perms:-1|size:-1|chmod:-2|"
	           "bind-fd:-2|ro-bind-fd:-2" },
	{ .name = "xvfb-run",
	  .short_val = "efnpsw",
	  .short_flag = "adlh",
	  .longs = "auto-servernum:a0|auto-display:d0|error-file:e1|"
	           "auth-file:f1|server-num:n1|listen-tcp:l0|"
	           "xauth-protocol:p1|server-args:s1|wait:w1",
	  .query = "h" },
	{ .name = "caffeinate", .short_val = "tw", .short_flag = "dimsu" },
	{ .name = "coproc", .flags = LP_OPT_BACKGROUND },
	{ .name = "busybox",
	  .longs = "list:L0|list-full:L0|install:L0|show:L1",
	  .nocmd = "L" },
	{ .name = "chrt",
	  .short_val = "TPD",
	  .short_flag = "bdfiormRapvhV",
	  .longs = "batch:b0|deadline:d0|fifo:f0|idle:i0|other:o0|rr:r0|"
	           "ext:e0|reset-on-fork:R0|all-tasks:a0|max:m0|pid:p0|"
	           "verbose:v0|sched-runtime:T1|sched-period:P1|"
	           "sched-deadline:D1",
	  .query = "mhV",
	  .nocmd = "p",
	  .npos = 1 },
	{ .name = "script",
	  .short_val = "cEBIOTmo",
	  .short_opt = "t",
	  .short_flag = "aefqhV",
	  .longs = "append:a0|command:c1|echo:E1|return:e0|flush:f0|"
	           "force:-0|log-io:B1|log-in:I1|log-out:O1|log-timing:T1|"
	           "logging-format:m1|output-limit:o1|quiet:q0|timing:t?",
	  .query = "hV",
	  .script = "c",
	  /* the operand is the typescript file, never a command; util-linux
	     permutes, so `script FILE -qc CMD` still runs CMD */
	  .nocmd = "",
	  .npos = 1,
	  .flags = LP_OPT_PERMUTE },
	{ .name = "eatmydata" },
	{ .name = "fakeroot",
	  .short_val = "lfsib",
	  .short_flag = "uhv",
	  .longs = "lib:l1|faked:f1|unknown-is-real:u0",
	  .query = "hv" },
	{ .name = "torsocks",
	  .short_val = "uapP",
	  .short_flag = "idqh",
	  .longs = "user:u1|pass:p1|address:a1|port:P1|isolate:i0|debug:d0|"
	           "quiet:q0|shell:-0",
	  .query = "h" },
	{ .name = "proxychains", .short_val = "f", .short_flag = "q" },
	{ .name = "proxychains4", .short_val = "f", .short_flag = "q" },
	{ .name = "dbus-run-session",
	  .longs = "config-file:-1|dbus-daemon:-1" },
	{ .name = "catchsegv" },
	{ .name = "nocache" },
	/* toybox is busybox's sibling: `toybox APPLET ARGS` */
	{ .name = "toybox", .longs = "long:L0", .nocmd = "L" },
	/* libfaketime: faketime [-m] [-f] [-p PID] TIMESTAMP PROG ARGS */
	{ .name = "faketime",
	  .short_val = "p",
	  .short_flag = "mf",
	  .longs = "exclude-monotonic:-0|disable-shm:-0|date-prog:-1",
	  .npos = 1 },
	{ .name = "setpriv",
	  .short_flag = "dhV",
	  .longs = "dump:d0|no-new-privs:-0|nnp:-0|inh-caps:-1|"
	           "ambient-caps:-1|bounding-set:-1|keep-groups:-0|"
	           "clear-groups:-0|init-groups:-0|groups:-1|rgid:-1|egid:-1|"
	           "regid:-1|ruid:-1|euid:-1|reuid:-1|securebits:-1|"
	           "pdeathsig:-1|selinux-label:-1|apparmor-profile:-1|"
	           "landlock-access:-1|landlock-rule:-1|reset-env:-0",
	  .query = "dhV" },
	{ .name = "prlimit",
	  .short_val = "po",
	  .short_opt = "cdefilmnqrstuvxy",
	  .short_flag = "hV",
	  .longs = "core:c?|data:d?|nice:e?|fsize:f?|sigpending:i?|"
	           "memlock:l?|rss:m?|nofile:n?|msgqueue:q?|rtprio:r?|"
	           "stack:s?|cpu:t?|nproc:u?|as:v?|locks:x?|rttime:y?|pid:p1|"
	           "output:o1|noheadings:-0|raw:-0|verbose:-0",
	  .query = "hV",
	  .nocmd = "p" },
	{ .name = "numactl",
	  .short_val = "ipPmNCwoLMISf",
	  .short_flag = "albsHtuTV",
	  .longs = "all:a0|interleave:i1|preferred:p1|preferred-many:P1|"
	           "membind:m1|cpunodebind:N1|physcpubind:C1|localalloc:l0|"
	           "balancing:b0|weighted-interleave:w1|show:s0|hardware:H0|"
	           "offset:o1|length:L1|shmmode:M1|shmid:I1|shm:S1|file:f1|"
	           "strict:t0|huge:u0|touch:T0",
	  .query = "sHV" },
	{ .name = "cgexec",
	  .short_val = "g",
	  .short_flag = "h",
	  .longs = "sticky:-0",
	  .query = "h" },
	/* valgrind takes every option as --name=value */
	{ .name = "valgrind",
	  .short_flag = "hvqd",
	  .query = "h",
	  .flags = LP_OPT_LONG_EQ },
	{ .name = "dbus-launch", .flags = LP_OPT_LONG_EQ },
	{ .name = "ssh-agent",
	  .short_val = "aEOPt",
	  .short_flag = "csDdk",
	  .nocmd = "k" },
	{ .name = "fakechroot",
	  .short_val = "ldec",
	  .short_flag = "shv",
	  .longs = "lib:l1|elfloader:d1|use-system-libs:s0|environment:e1|"
	           "config-dir:c1",
	  .query = "hv" },
	{ .name = "schroot",
	  .short_val = "cudno",
	  .short_flag = "hVlipaqvbref",
	  .longs = "chroot:c1|user:u1|directory:d1|session-name:n1|option:o1|"
	           "preserve-environment:p0|all:a0|quiet:q0|verbose:v0|"
	           "begin-session:b0|run-session:r0|end-session:e0|force:f0|"
	           "list:l0|info:i0|config:l0|location:l0|"
	           "automatic-session:-0|recover-session:-0|all-chroots:a0|"
	           "all-sessions:a0|all-source-chroots:a0|"
	           "exclude-aliases:-0",
	  .query = "hVli",
	  .nocmd = "be" },
	{ .name = "daemonize",
	  .short_val = "ceopluE",
	  .short_flag = "av",
	  .flags = LP_OPT_BACKGROUND },
	/* task spooler: queues the command */
	{ .name = "tsp",
	  .short_val = "LDWN",
	  .short_flag = "ngfmdEBhVlKCS",
	  .query = "hVlKCS",
	  .flags = LP_OPT_BACKGROUND },
	{ .name = "nq", .short_flag = "cqt", .flags = LP_OPT_BACKGROUND },
	/* entr -s makes the operand a shell string: not listed, so the
	   scan reports it and the line is unparsed */
	{ .name = "entr", .short_flag = "acdnprz" },
	{ .name = "screen",
	  .short_val = "cehpSTt",
	  .short_flag = "aAdDfilLmOqQrRUvx",
	  .query = "v" },
	{ .name = "dtach",
	  .short_val = "acAner",
	  .short_flag = "Ez",
	  .nocmd = "a" },
	{ .name = "sshpass",
	  .short_val = "fdpP",
	  .short_flag = "evhV",
	  .query = "hV" },
	{ .name = "retry",
	  .short_val = "tsmx",
	  .longs = "tries:t1|sleep:s1|min:m1|max:x1|until:-1|delay:-1|"
	           "times:-1" },
	{ .name = "ifne", .short_flag = "n" },
	{ .name = "systemd-inhibit",
	  .longs = "what:-1|who:-1|why:-1|mode:-1|list:-0|no-pager:-0|"
	           "no-legend:-0" },
	{ .name = "systemd-cat",
	  .short_val = "tp",
	  .longs = "identifier:t1|priority:p1|stderr-priority:-1|"
	           "level-prefix:-1|namespace:-1" },
	/* sg [-] [group [-c] command]: like su, the rest goes to sh */
	{ .name = "sg", .flags = LP_OPT_DASH | LP_OPT_SU },
	/* subcommand runners: the rest of argv after their options */
	{ .name = "npm", .sub = "|exec|x|",
	  .short_val = "cw",
	  .short_flag = "y",
	  .longs = "package:-1|call:c1|workspace:w1|workspaces:-0|"
	           "include-workspace-root:-0|yes:y0|no:-0",
	  .script = "c" },
	{ .name = "npx",
	  .short_val = "pc",
	  .short_flag = "yq",
	  .longs = "package:p1|call:c1|yes:y0|no:-0|quiet:q0",
	  .script = "c" },
	{ .name = "pnpm", .sub = "|exec|dlx|",
	  .short_val = "cF",
	  .longs = "recursive:r0|parallel:-0|package:-1|shell-mode:c0|"
	           "filter:F1|silent:s0|no-bail:-0",
	  .short_flag = "rs" },
	{ .name = "yarn", .sub = "|exec|dlx|",
	  .short_val = "p",
	  .short_flag = "q",
	  .longs = "package:p1|quiet:q0" },
	{ .name = "bun", .sub = "|x|",
	  .longs = "bun:-0|silent:-0|verbose:-0|package:-1" },
	{ .name = "bunx", .longs = "bun:-0|silent:-0|verbose:-0|package:-1" },
	{ .name = "uv", .sub = "|run|",
	  .short_val = "p",
	  .short_flag = "qv",
	  .longs = "python:p1|with:-1|with-requirements:-1|with-editable:-1|"
	           "project:-1|directory:-1|package:-1|extra:-1|group:-1|"
	           "env-file:-1|index:-1|index-url:-1|all-extras:-0|"
	           "all-packages:-0|all-groups:-0|no-project:-0|no-sync:-0|"
	           "frozen:-0|locked:-0|isolated:-0|active:-0|no-dev:-0|"
	           "no-env-file:-0|only-dev:-0|offline:-0|quiet:q0|"
	           "verbose:v0|script:-0|module:-0|no-config:-0|exact:-0" },
	{ .name = "uvx",
	  .short_val = "p",
	  .short_flag = "qv",
	  .longs = "python:p1|with:-1|from:-1|quiet:q0|verbose:v0|"
	           "isolated:-0|offline:-0" },
	{ .name = "poetry", .sub = "|run|",
	  .short_val = "CP",
	  .short_flag = "qvn",
	  .longs = "directory:C1|project:P1|quiet:q0|verbose:v0|"
	           "no-interaction:n0|no-ansi:-0|ansi:-0" },
	{ .name = "pipenv", .sub = "|run|",
	  .longs = "python:-1|verbose:-0|quiet:-0" },
	{ .name = "conda", .sub = "|run|",
	  .short_val = "np",
	  .short_flag = "qv",
	  .longs = "name:n1|prefix:p1|cwd:-1|no-capture-output:-0|live-stream:-0|"
	           "quiet:q0|verbose:v0|dev:-0" },
	{ .name = "mamba", .sub = "|run|",
	  .short_val = "np",
	  .longs = "name:n1|prefix:p1|cwd:-1|no-capture-output:-0|live-stream:-0" },
	{ .name = "asdf", .sub = "|exec|" },
	{ .name = "direnv", .sub = "|exec|", .npos = 1 },
	{ .name = "devcontainer", .sub = "|exec|",
	  .longs = "workspace-folder:-1|container-id:-1|id-label:-1|"
	           "config:-1|remote-env:-1|user-data-folder:-1|"
	           "docker-path:-1|log-level:-1|log-format:-1|"
	           "skip-post-create:-0|terminal-columns:-1|terminal-rows:-1" },
	/* docker run IMAGE CMD / docker exec CONTAINER CMD */
	{ .name = "docker", .sub = "|run|exec|",
	  .short_val = "acehlmpuvwe",
	  .short_flag = "diPqt",
	  .longs = "rm:-0|detach:d0|interactive:i0|tty:t0|privileged:-0|"
	           "init:-0|read-only:-0|publish-all:P0|quiet:q0|"
	           "no-healthcheck:-0|oom-kill-disable:-0|sig-proxy:-?|"
	           "attach:a1|cpu-shares:c1|env:e1|env-file:-1|hostname:h1|"
	           "label:l1|memory:m1|publish:p1|user:u1|volume:v1|"
	           "workdir:w1|name:-1|network:-1|net:-1|entrypoint:-1|"
	           "mount:-1|platform:-1|pull:-1|cpus:-1|gpus:-1|"
	           "add-host:-1|cap-add:-1|cap-drop:-1|device:-1|dns:-1|"
	           "ipc:-1|pid:-1|restart:-1|runtime:-1|security-opt:-1|"
	           "shm-size:-1|stop-signal:-1|tmpfs:-1|ulimit:-1|"
	           "userns:-1|uts:-1|volumes-from:-1|expose:-1|"
	           "health-cmd:-1|log-driver:-1|log-opt:-1|cidfile:-1|"
	           "group-add:-1|memory-swap:-1|detach-keys:-1|"
	           "privileged:-0|network-alias:-1|label-file:-1",
	  .npos = 1 },
	{ .name = "podman", .sub = "|run|exec|",
	  .short_val = "acehlmpuvwe",
	  .short_flag = "diPqt",
	  .longs = "rm:-0|detach:d0|interactive:i0|tty:t0|privileged:-0|"
	           "init:-0|read-only:-0|publish-all:P0|quiet:q0|"
	           "attach:a1|env:e1|env-file:-1|hostname:h1|label:l1|"
	           "memory:m1|publish:p1|user:u1|volume:v1|workdir:w1|"
	           "name:-1|network:-1|net:-1|entrypoint:-1|mount:-1|"
	           "platform:-1|pull:-1|cap-add:-1|cap-drop:-1|device:-1|"
	           "security-opt:-1|userns:-1|pod:-1",
	  .npos = 1 },
	/* kubectl exec POD [-c C] -- CMD */
	{ .name = "kubectl", .sub = "|exec|",
	  .short_val = "cnf",
	  .short_flag = "itq",
	  .longs = "container:c1|namespace:n1|filename:f1|stdin:i0|tty:t0|"
	           "quiet:q0|pod-running-timeout:-1|context:-1|"
	           "kubeconfig:-1",
	  .npos = 1,
	  .flags = LP_OPT_PERMUTE },
};

/* Programs seen through without being wrappers: their command operand is
   nested with an origin of its own. */
static const lp_optspec programs[] = {
	{ .name = "xargs",
	  .short_val = "aEdIsnPLJRS",
	  .short_opt = "eil",
	  .short_flag = "0optrx",
	  .longs = "null:00|arg-file:a1|delimiter:d1|eof:e?|replace:i?|"
	           "max-lines:l?|max-args:n1|max-procs:P1|open-tty:o0|"
	           "interactive:p0|process-slot-var:-1|no-run-if-empty:r0|"
	           "max-chars:s1|show-limits:-0|verbose:t0|exit:x0" },
	{ .name = "parallel",
	  .short_val = "aCdEIjLnNPsSe",
	  .short_flag = "0kmquvXrg",
	  .longs = "arg-file:a1|arg-file-sep:-1|arg-sep:-1|bar:-0|"
	           "basefile:-1|bf:-1|block:-1|block-size:-1|cat:-0|"
	           "colsep:C1|delay:-1|delimiter:d1|env:-1|eta:-0|fifo:-0|"
	           "group:-0|halt:-1|halt-on-error:-1|header:-1|joblog:-1|"
	           "jobs:j1|keep-order:k0|max-lines:L1|max-args:n1|nice:-1|"
	           "pipe:-0|progress:-0|results:-1|res:-1|retries:-1|"
	           "return:-1|sshlogin:S1|sshloginfile:-1|slf:-1|tag:-0|"
	           "tagstring:-1|timeout:-1|tmpdir:-1|trc:-1|transferfile:-1|"
	           "tf:-1|workdir:-1|wd:-1|dry-run:-0|null:00|memfree:-1|"
	           "load:-1|line-buffer:-0|lb:-0|ungroup:u0|xargs:m0|"
	           "max-chars:s1|will-cite:-0|no-notice:-0|quote:q0|"
	           "shuf:-0|verbose:v0|no-run-if-empty:r0|linebuffer:-0|"
	           "keep-order:k0|plus:-0|resume:-0|resume-failed:-0|"
	           "compress:-0|eof:E1|replace:I1|max-replace-args:N1|"
	           "max-procs:P1|transfer:-0|cleanup:-0|fg:-0|bg:-0|"
	           "tty:-0|id:-1|semaphore:-0|shebang:-0|citation:-0" },
	{ .name = "ssh",
	  .short_val = "BbcDEeFIiJLlmOoPpQRSWw",
	  .short_flag = "46AaCfGgKkMNnqsTtVvXxYy",
	  .query = "GVQ",
	  .nocmd = "NsOW",
	  .npos = 1,
	  .flags = LP_OPT_PERMUTE },
	{ .name = "watch",
	  .short_val = "nq",
	  .short_flag = "bcCdegprtwxhv",
	  .longs = "beep:b0|color:c0|no-color:C0|differences:d?|errexit:e0|"
	           "chgexit:g0|interval:n1|precise:p0|no-rerun:r0|"
	           "no-title:t0|no-wrap:w0|exec:x0|equexit:q1",
	  .query = "hv" },
};

const char *lp_base_name(const char *s)
{
	const char *slash = strrchr(s, '/');
	return slash ? slash + 1 : s;
}

bool lp_is_assignment(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	while (isalnum((unsigned char)*s) || *s == '_')
		s++;
	return *s == '=';
}

static bool has_letter(const char *set, unsigned char c)
{
	return set && c && strchr(set, c) != NULL;
}

/* Find --name in a "name:LA|..." list. */
static bool find_long(const char *list, const char *name, size_t n,
                      char *letter, char *arity)
{
	const char *p = list;
	while (p && *p) {
		const char *colon = strchr(p, ':');
		if (!colon)
			return false;
		if ((size_t)(colon - p) == n && !strncmp(p, name, n)) {
			*letter = colon[1];
			*arity = colon[2];
			return true;
		}
		const char *bar = strchr(colon, '|');
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

static void apply(const lp_optspec *s, lp_optscan *o, unsigned char c,
                  const char *value, const lp_word *word)
{
	if (c == '-' || c >= 128)
		return;
	o->seen[c] = true;
	if (has_letter(s->query, c))
		o->query = true;
	if (has_letter(s->nocmd, c))
		o->nocmd = true;
	if (has_letter(s->script, c)) {
		o->script = word;
		o->script_value = value;
	}
	if (has_letter(s->background, c))
		o->seen_bg = true;
	if ((c == 'I' || c == 'i') && !strcmp(s->name, "xargs"))
		o->replace = value ? value : "{}";
	if (has_letter(s->split, c)) {
		o->split_word = word;
		o->split_value = value;
	}
}

enum scan_state { SCAN_MORE, SCAN_STOP, SCAN_END_OPTS };

/* Scan options from words[*i]; stops at the first operand. */
static enum scan_state scan_options(const lp_optspec *s, const lp_word *words,
                                    size_t n, size_t *pi, lp_optscan *o)
{
	size_t i = *pi;
	enum scan_state st = SCAN_MORE;
	while (i < n) {
		const lp_word *w = &words[i];
		const char *v = w->value ? w->value : "";
		/* A dynamic word may be an option or the command: stop, and
		   let the caller see a dynamic command name. */
		if (w->flags & LOCUS_WORD_DYNAMIC)
			break;
		if (!strcmp(v, "--")) {
			i++;
			st = SCAN_END_OPTS;
			break;
		}
		if (v[0] != '-' || v[1] == '\0') {
			if (v[0] == '-' && (s->flags & LP_OPT_DASH)) {
				o->seen['-'] = true;
				i++;
				continue;
			}
			break;
		}
		if (v[1] == '-') {
			const char *name = v + 2;
			const char *eq = strchr(name, '=');
			size_t nl = eq ? (size_t)(eq - name) : strlen(name);
			char letter, arity;
			if (!find_long(s->longs, name, nl, &letter, &arity)) {
				if ((nl == 4 && !strncmp(name, "help", 4)) ||
				    (nl == 7 && !strncmp(name, "version", 7))) {
					o->query = true;
					i++;
					continue;
				}
				if (s->flags & LP_OPT_LONG_EQ) {
					i++;
					continue;
				}
				o->unknown = w->text ? w->text : v;
				*pi = i;
				return SCAN_STOP;
			}
			const char *val = NULL;
			const lp_word *valw = NULL;
			if (arity == '0') {
				if (eq) {
					o->unknown = w->text ? w->text : v;
					*pi = i;
					return SCAN_STOP;
				}
			} else if (arity == '?') {
				if (eq) {
					val = eq + 1;
					valw = w;
				}
			} else {
				size_t nv = (size_t)(arity - '0');
				if (eq) {
					val = eq + 1;
					valw = w;
					nv--;
				} else if (i + 1 < n) {
					valw = &words[i + 1];
					val = valw->value;
				}
				if (i + nv >= n) {
					/* missing value: the program fails */
					o->nocmd = true;
					*pi = n;
					return SCAN_STOP;
				}
				i += nv;
			}
			apply(s, o, (unsigned char)letter, val, valw);
			i++;
			continue;
		}
		/* a cluster of short options */
		for (size_t j = 1; v[j]; j++) {
			unsigned char c = (unsigned char)v[j];
			if ((s->flags & LP_OPT_NUMERIC) && isdigit(c))
				break;
			if (has_letter(s->short_val, c)) {
				if (v[j + 1]) {
					apply(s, o, c, v + j + 1, w);
				} else if (i + 1 < n) {
					i++;
					apply(s, o, c, words[i].value, &words[i]);
				} else {
					o->nocmd = true;
					*pi = n;
					return SCAN_STOP;
				}
				break;
			}
			if (has_letter(s->short_opt, c)) {
				apply(s, o, c, v[j + 1] ? v + j + 1 : NULL, w);
				break;
			}
			if ((s->flags & LP_OPT_H_HOST) && c == 'h') {
				/* sudo: -hHOST, -h HOST, or -h alone = help */
				if (v[j + 1])
					break;
				if (i + 1 < n &&
				    !(words[i + 1].flags & LOCUS_WORD_DYNAMIC) &&
				    words[i + 1].value &&
				    words[i + 1].value[0] != '-')
					i++;
				else
					o->query = true;
				break;
			}
			if (has_letter(s->short_flag, c)) {
				apply(s, o, c, NULL, NULL);
				continue;
			}
			o->unknown = w->text ? w->text : v;
			*pi = i;
			return SCAN_STOP;
		}
		i++;
	}
	*pi = i;
	return st;
}

void lp_optscan_run(const lp_optspec *s, const lp_word *words, size_t n,
                    size_t at, lp_optscan *o)
{
	memset(o, 0, sizeof *o);
	o->cmd = n;
	o->pos_first = n;
	size_t i = at + 1;
	enum scan_state st = scan_options(s, words, n, &i, o);
	if (st == SCAN_STOP || o->query || o->nocmd || o->unknown)
		return;
	o->assign_first = o->assign_end = i;
	if (s->flags & LP_OPT_ASSIGNS) {
		while (i < n) {
			const lp_word *w = &words[i];
			const char *t = (w->flags & LOCUS_WORD_DYNAMIC) ? w->text
			                                                : w->value;
			/* env and sudo take any NAME=VALUE word here, not
			   only shell identifiers: `env 'A%=1' rm` runs rm, and
			   `env 'BASH_FUNC_ls%%=() {..}' bash` imports a function
			   (found by the oracle). */
			if (!t || t[0] == '=' || !strchr(t, '='))
				break;
			i++;
		}
		o->assign_end = i;
	}
	o->pos_first = i;
	for (unsigned k = 0; k < s->npos; k++) {
		if (i >= n)
			return;
		i++;
	}
	if ((s->flags & LP_OPT_PERMUTE) && st != SCAN_END_OPTS && s->npos) {
		st = scan_options(s, words, n, &i, o);
		if (st == SCAN_STOP || o->query || o->nocmd || o->unknown)
			return;
	}
	if ((s->flags & LP_OPT_POS_SCRIPT) && i < n && words[i].value &&
	    !(words[i].flags & LOCUS_WORD_DYNAMIC) &&
	    (!strcmp(words[i].value, "-c") ||
	     !strcmp(words[i].value, "--command"))) {
		if (i + 1 < n) {
			o->script = &words[i + 1];
			o->script_value = words[i + 1].value;
		}
		return;
	}
	/* script(1): operands are a file name, never a command */
	if (s->nocmd && !*s->nocmd)
		return;
	o->cmd = i;
}

static const lp_optspec *find_spec(const lp_optspec *t, size_t n,
                                   const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

const lp_optspec *lp_wrapper_find(const char *name)
{
	/* subcommand runners (npm exec) need the next word: see
	   lp_wrapper_match() */
	for (size_t i = 0; i < sizeof wrappers / sizeof *wrappers; i++)
		if (!wrappers[i].sub && lp_streq(wrappers[i].name, name))
			return &wrappers[i];
	return NULL;
}

static bool in_sub_list(const char *list, const char *s)
{
	size_t n = strlen(s);
	for (const char *p = list; (p = strchr(p, '|')) != NULL; p++)
		if (n && !strncmp(p + 1, s, n) && p[1 + n] == '|')
			return true;
	return false;
}

const lp_optspec *lp_wrapper_match(const lp_word *words, size_t n,
                                   size_t pos, size_t *at)
{
	const char *name = lp_base_name(words[pos].value ? words[pos].value
	                                                 : "");
	*at = pos;
	for (size_t i = 0; i < sizeof wrappers / sizeof *wrappers; i++) {
		const lp_optspec *s = &wrappers[i];
		if (!lp_streq(s->name, name))
			continue;
		if (!s->sub)
			return s;
		if (pos + 1 < n && !(words[pos + 1].flags & LOCUS_WORD_DYNAMIC) &&
		    words[pos + 1].value &&
		    in_sub_list(s->sub, words[pos + 1].value)) {
			*at = pos + 1;
			return s;
		}
	}
	return NULL;
}

const lp_optspec *lp_program_spec(const char *name)
{
	return find_spec(programs, sizeof programs / sizeof *programs, name);
}
