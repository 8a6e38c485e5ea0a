#!/usr/bin/python3
"""`locus hook --jail` (docs/jail.md, docs/integrations.md).

1. The rewrite keeps every line: each golden-corpus line (corpus/shell)
   sent as a Claude Code Bash call under a policy that allows everything
   and wants it confined comes back as `allow` with an updatedInput whose
   command, split into words by real bash (inside a bubblewrap sandbox,
   `set -- REWRITTEN`), is exactly [locus, jail, --root, CWD, --, bash,
   -c, LINE] with LINE byte for byte the original.  The same for Codex's
   argv form and Gemini's run_shell_command.  A line holding a NUL cannot
   be rewritten: the payload is blocked (exit 2).
2. Everyday allowed lines give the same stdout, stderr and exit status
   run as the rewrite (in the jail) and run as written.
3. Misses stay inside: lines a permissive policy allows (standing in for
   the analyzer's misses) run through the rewrite cannot write outside
   the workspace, read a masked credential or reach a loopback server.
4. Held and denied calls are answered as without --jail; a hold in
   Codex's PreToolUse is a deny with the reason; the standard preset
   wants workspace.exec and workspace.read confined and jails `ls`.

Run as root, 2 and 3 are run again as uid 65534 (the hook and the agent's
shell both through setpriv, in a workspace of that user's), so misses stay
inside and everyday output is the same for an unprivileged user too.

Usage: test_hook_jail.py LOCUS SOURCE_ROOT
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import jail_common
from jail_common import NOBODY, Server, as_user, bwrap_usable, chown_tree

LOCUS = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
# the user the hook and the agent's shell run as: [] (ours), or setpriv
AS = []

ALLOW_ALL = {
    "require_verification_score": 0,
    "require_human_for": [],
    "deny_for": [],
    "require_sandbox_for": ["workspace.exec", "workspace.read",
                            "workspace.write"],
    "require_sandbox_strict": False,
}


def check(ok, what):
    return jail_common.check(ok, ("uid 65534: " if AS else "") + what)


ESC = {"0": "\0", "n": "\n", "t": "\t", "r": "\r", "v": "\v", "f": "\f",
       "a": "\a", "e": "\x1b", "s": " ", "\\": "\\"}


def unescape(t):
    out, i = [], 0
    b = bytearray()
    while i < len(t):
        c = t[i]
        if c == "\\" and i + 1 < len(t):
            n = t[i + 1]
            if n == "x":
                b.append(int(t[i + 2:i + 4], 16))
                i += 4
                continue
            b.extend(ESC.get(n, n).encode())
            i += 2
            continue
        b.extend(c.encode())
        i += 1
    return bytes(b)


def corpus_lines():
    lines = []
    for f in sorted(glob.glob(os.path.join(SRC, "corpus", "shell", "*.txt"))):
        cur, esc = None, False
        for raw in open(f, encoding="utf-8", errors="surrogateescape"):
            raw = raw.rstrip("\n")
            if raw.startswith("$ ") or raw.startswith("$e "):
                if cur is not None:
                    lines.append(cur)
                esc = raw.startswith("$e ")
                body = raw[3:] if esc else raw[2:]
                cur = unescape(body) if esc else body.encode(
                    "utf-8", "surrogateescape")
            elif raw.startswith("> ") and cur is not None:
                body = raw[2:]
                cur += b"\n" + (unescape(body) if esc else body.encode(
                    "utf-8", "surrogateescape"))
            elif raw == ">" and cur is not None:
                cur += b"\n"
            else:
                if cur is not None:
                    lines.append(cur)
                cur = None
        if cur is not None:
            lines.append(cur)
    return lines


def hook(agent, payload, *args):
    p = subprocess.run([*AS, LOCUS, "hook", agent, *args],
                       input=json.dumps(payload).encode(),
                       capture_output=True, timeout=60)
    out = json.loads(p.stdout) if p.stdout.strip() else None
    return p.returncode, out


def hook_many(agent, payloads, *args):
    """Many payloads through one `locus hook --jsonl` run."""
    text = "".join(json.dumps(p) + "\n" for p in payloads)
    p = subprocess.run([LOCUS, "hook", agent, "--jsonl", *args],
                       input=text.encode(), capture_output=True, timeout=900)
    res = [json.loads(l) for l in p.stdout.decode().split("\n") if l]
    assert len(res) == len(payloads), p.stderr[-500:]
    return [(r["exit"], r["answer"]) for r in res]


def updated_command(agent, out):
    if out is None:
        return None
    if agent == "gemini":
        if out.get("decision") != "allow":
            return None
        return out.get("hookSpecificOutput", {}).get("tool_input", {}).get(
            "command")
    h = out.get("hookSpecificOutput", {})
    if h.get("permissionDecision") != "allow":
        return None
    return h.get("updatedInput", {}).get("command")


def bash_words(rewrites):
    """Split each rewritten line into words with real bash, in a bwrap
    sandbox (nothing but `set --` and printf run)."""
    script = []
    for r in rewrites:
        script.append("set -- " + r + "\nprintf '%s\\0' \"$@\"; "
                      "printf '\\1\\0'\n")
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False,
                                     encoding="utf-8",
                                     errors="surrogateescape") as f:
        f.write("".join(script))
        path = f.name
    try:
        p = subprocess.run(["bwrap", "--unshare-all", "--die-with-parent",
                            "--ro-bind", "/", "/", "--dev", "/dev",
                            "--tmpfs", "/tmp", "--ro-bind", path, "/tmp/s.sh",
                            "/bin/bash", "/tmp/s.sh"], capture_output=True,
                           timeout=300)
    finally:
        os.unlink(path)
    groups, cur = [], []
    for w in p.stdout.split(b"\0")[:-1]:
        if w == b"\1":
            groups.append(cur)
            cur = []
        else:
            cur.append(w)
    return groups


def roundtrip(ws, policy):
    lines = corpus_lines()
    texts, nul = [], 0
    for line in lines:
        try:
            texts.append(line.decode("utf-8"))
        except UnicodeDecodeError:
            continue  # JSON cannot carry it: the agent cannot send it
    payloads = [{"hook_event_name": "PreToolUse", "cwd": ws,
                 "tool_name": "Bash",
                 "tool_input": {"command": t, "description": "d"}}
                for t in texts]
    answers = hook_many("claude-code", payloads, "--jail", "--policy",
                        policy)
    sent, rewrites = [], []
    for text, (rc, out) in zip(texts, answers):
        cmd = updated_command("claude-code", out)
        if "\0" in text:
            nul += 1
            if not (rc == 2 and cmd is None):
                check(False, f"a NUL line is blocked: {text!r}")
            continue
        if rc != 0 or cmd is None:
            # only the floor (deny) may stop a line here
            dec = (out or {}).get("hookSpecificOutput", {}).get(
                "permissionDecision")
            if dec != "deny":
                check(False, f"allowed and rewritten: {text!r} -> {out}")
            continue
        sent.append(text)
        rewrites.append(cmd)
    words = bash_words(rewrites)
    bad = 0
    for text, w in zip(sent, words):
        want = [LOCUS.encode(), b"jail", b"--root", ws.encode(), b"--",
                b"/bin/bash", b"-c", text.encode()]
        if w != want and w != want[:4] + [b"--network"] + want[4:]:
            bad += 1
            if bad <= 5:
                print(f"  rewrite changed {text!r}: {w!r}")
    check(len(words) == len(sent) and bad == 0 and len(sent) > 1000,
          f"the rewrite keeps every corpus line byte for byte "
          f"({len(sent)} lines, {nul} with a NUL blocked)")


def other_agents(ws, policy):
    line = "printf '%s\\n' \"it's\" $'a\\tb' `echo x` <<'EOF'\nbody $HOME\nEOF"
    rc, out = hook("gemini", {"hook_event_name": "BeforeTool", "cwd": ws,
                              "tool_name": "run_shell_command",
                              "tool_input": {"command": line,
                                             "dir_path": "."}},
                   "--jail", "--policy", policy)
    cmd = updated_command("gemini", out)
    w = bash_words([cmd]) if cmd else []
    check(bool(w) and w[0][-1] == line.encode(),
          "gemini: allow with hookSpecificOutput.tool_input rewritten")
    argv = ["bash", "-lc", "echo 'a b' \"$HOME\""]
    rc, out = hook("codex", {"hook_event_name": "PreToolUse", "cwd": ws,
                             "tool_name": "Bash",
                             "tool_input": {"command": argv}},
                   "--jail", "--policy", policy)
    h = (out or {}).get("hookSpecificOutput", {})
    check(h.get("permissionDecision") == "allow" and
          h.get("updatedInput", {}).get("command") ==
          [LOCUS, "jail", "--root", ws, "--"] + argv,
          "codex: an argv command becomes the argv that runs it jailed")


def own(*paths):
    """When the test runs as another user (AS), what it made is theirs."""
    if AS:
        chown_tree(NOBODY, *paths)


def run_bash(cmd, cwd, env):
    return subprocess.run([*AS, "/bin/bash", "-c", cmd], cwd=cwd, env=env,
                          capture_output=True, timeout=120)


def everyday(ws):
    os.makedirs(os.path.join(ws, "src"))
    with open(os.path.join(ws, "src", "main.c"), "w") as f:
        f.write("int main(void) { return 0; } /* TODO: more */\n")
    # the build's output in /tmp (the jail's own; outside, the host's),
    # named after this run's folder so that no earlier run's file is in
    # the way
    mout = "/tmp/" + os.path.basename(os.path.dirname(ws)) + "-m"
    with open(os.path.join(ws, "Makefile"), "w") as f:
        f.write(f"all:\n\t@echo building\n\t@cc -o {mout} src/main.c && "
                "echo built\ntest:\n\t@echo 'tests pass'\n")
    with open(os.path.join(ws, "README.md"), "w") as f:
        f.write("# demo\nline two\n")
    own(ws)
    env = dict(os.environ, GIT_AUTHOR_NAME="a", GIT_AUTHOR_EMAIL="a@b",
               GIT_COMMITTER_NAME="a", GIT_COMMITTER_EMAIL="a@b",
               GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
               GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
               HOME=os.path.join(ws, ".."), LC_ALL="C")
    run_bash("git init -q -b main . && git add -A && git commit -qm init "
             "&& echo change >> README.md", ws, env)
    lines = [
        "git status", "git status --short", "git diff", "git diff --stat",
        "git log --oneline", "git log -1 --format=%H%n%s", "git branch -a",
        "git show --stat HEAD", "ls", "ls -la src | wc -l",
        "grep -rn TODO .", "grep -rn 'TODO' src/ | head -5",
        "cat README.md", "head -1 README.md && tail -1 README.md",
        "wc -l README.md src/main.c", "find . -name '*.c' | sort",
        "make", "make test", "python3 -c 'print(6*7)'", "echo $((1+2))",
        "sort README.md | uniq -c", "sed -n '1p' README.md",
        "awk '{print NF}' README.md", "pwd", "cat missing.txt",
        "git rev-parse --show-toplevel", "diff README.md src/main.c",
        "ls nonexistent; echo status $?", "printf 'a\\nb\\n' | grep -c b",
        "test -f Makefile && echo yes", "cd src && ls", "true", "false",
    ]
    policy = os.path.join(ws, "..", "allow-all.json")
    same = 0
    for line in lines:
        rc, out = hook("claude-code", {
            "hook_event_name": "PreToolUse", "cwd": ws, "tool_name": "Bash",
            "tool_input": {"command": line}}, "--jail", "--preset",
            "standard")
        cmd = updated_command("claude-code", out)
        if cmd is None:
            rc, out = hook("claude-code", {
                "hook_event_name": "PreToolUse", "cwd": ws,
                "tool_name": "Bash", "tool_input": {"command": line}},
                "--jail", "--policy", policy)
            cmd = updated_command("claude-code", out)
        a = run_bash(line, ws, env)
        b = run_bash(cmd, ws, env) if cmd else None
        ok = b is not None and (a.returncode, a.stdout, a.stderr) == (
            b.returncode, b.stdout, b.stderr)
        if not ok:
            print(f"  differs: {line!r}\n    outside: {a}\n    jailed: {b}")
        same += ok
    if os.path.exists(mout):
        os.unlink(mout)
    check(same == len(lines),
          f"everyday lines: same output inside and outside the jail "
          f"({same} of {len(lines)})")


def misses(base, ws, policy):
    outside = os.path.join(base, "outside")
    home = os.path.join(base, "home")
    os.makedirs(outside)
    os.makedirs(os.path.join(home, ".ssh"))
    with open(os.path.join(home, ".ssh", "id_rsa"), "w") as f:
        f.write("SSH-SECRET\n")
    own(outside, home)
    srv = Server()
    srv.start()
    env = dict(os.environ, HOME=home)
    attempts = [
        f"python3 -c \"open('{outside}/x','w').write('1')\"",
        f"perl -e 'open(F, \">{outside}/y\"); print F 1'",
        f"cp /etc/hostname {outside}/z",
        f"python3 -c \"print(open('{home}/.ssh/id_rsa').read())\"",
        "cat ~/.ssh/id_rsa",
        f"python3 -c \"import socket; "
        f"socket.create_connection(('127.0.0.1',{srv.port}),3)\"",
    ]
    for line in attempts:
        # the control: run as written, the line does reach outside
        r = run_bash(line, ws, env)
        connects = "create_connection" in line
        reached = (bool(os.listdir(outside)) or b"SECRET" in r.stdout or
                   (srv.seen(10) if connects else srv.hits > 0))
        for f in os.listdir(outside):
            os.unlink(os.path.join(outside, f))
        srv.hits = 0
        rc, out = hook("claude-code", {
            "hook_event_name": "PreToolUse", "cwd": ws, "tool_name": "Bash",
            "tool_input": {"command": line}}, "--jail", "--policy", policy)
        cmd = updated_command("claude-code", out)
        r = run_bash(cmd, ws, env) if cmd else None
        if connects:
            srv.seen(1)  # a connection that got through is counted late
        check(reached and cmd is not None and r is not None and
              not os.listdir(outside) and b"SECRET" not in r.stdout and
              srv.hits == 0,
              f"an allowed miss stays inside the jail (run as written, "
              f"it reaches outside): {line}")
    srv.s.close()
    # a line labelled network that the policy allows (an allow rule of
    # the user's) keeps the network in its jail: still confined to the
    # workspace, but it can connect
    rc, out = hook("claude-code", {
        "hook_event_name": "PreToolUse", "cwd": ws, "tool_name": "Bash",
        "tool_input": {"command": "curl -s https://example.com"}},
        "--jail", "--policy", policy)
    cmd = updated_command("claude-code", out) or ""
    check(" --network -- " in cmd,
          "an allowed network call is jailed with --network")


def held_and_denied(ws):
    for agent, ev, tool in (("claude-code", "PreToolUse", "Bash"),
                            ("gemini", "BeforeTool", "run_shell_command")):
        for line, want in (("curl https://example.com", "ask"),
                           ("rm -rf /", "deny")):
            p = {"hook_event_name": ev, "cwd": ws, "tool_name": tool,
                 "tool_input": {"command": line}}
            rc1, a = hook(agent, p, "--jail")
            rc2, b = hook(agent, p)
            check(rc1 == rc2 == 0 and a == b and json.dumps(a).count(want),
                  f"{agent}: {line} is answered {want} as without --jail")
    p = {"hook_event_name": "PreToolUse", "cwd": ws, "tool_name": "Bash",
         "tool_input": {"command": "curl https://example.com"}}
    rc, out = hook("codex", p, "--jail")
    h = (out or {}).get("hookSpecificOutput", {})
    check(h.get("permissionDecision") == "deny" and
          "approval" in h.get("permissionDecisionReason", ""),
          "codex: a hold in PreToolUse is a deny with the reason")
    rc, out = hook("claude-code", {"hook_event_name": "PreToolUse",
                                   "cwd": ws, "tool_name": "Bash",
                                   "tool_input": {"command": "ls"}},
                   "--jail")
    check(updated_command("claude-code", out) is not None,
          "standard: an allowed `ls` is jailed")
    rc, out = hook("claude-code", {"hook_event_name": "PreToolUse",
                                   "cwd": ws, "tool_name": "Bash",
                                   "tool_input": {"command": "ls"}},
                   "--jail", "--preset", "permissive")
    check(out is None or updated_command("claude-code", out) is None,
          "permissive (no require_sandbox_for): `ls` is not rewritten")
    rc, out = hook("claude-code", {"hook_event_name": "PreToolUse",
                                   "cwd": ws, "tool_name": "Read",
                                   "tool_input": {"file_path": ws + "/x"}},
                   "--jail")
    h = (out or {}).get("hookSpecificOutput", {})
    check(h.get("permissionDecision") == "allow" and
          "updatedInput" not in h, "a file tool is answered as without "
          "--jail (only shell calls are rewritten)")


def unprivileged():
    """Misses and everyday lines again, as uid 65534 (root only)."""
    global AS
    base = tempfile.mkdtemp(prefix="locus-hook-jail-65534-")
    try:
        os.chmod(base, 0o755)
        ws = os.path.join(base, "ws")
        os.makedirs(ws)
        policy = os.path.join(base, "allow-all.json")
        with open(policy, "w") as f:
            json.dump(ALLOW_ALL, f)
        AS = as_user(NOBODY)
        own(base)
        misses(base, ws, policy)
        everyday(ws)
    finally:
        AS = []
        shutil.rmtree(base, ignore_errors=True)


def confined_allows(base, ws):
    """A confined allow (allow_sandboxed_for: standard's scratch files in
    /tmp) is an allow only where the hook really jails the call: held
    without --jail, rewritten with it (also under a policy whose
    require_sandbox_for is empty), and what it writes to /tmp stays in
    the jail's private /tmp."""
    name = "locus-confined-%d" % os.getpid()
    line = f"echo hi > /tmp/{name} && cat /tmp/{name}"
    p = {"hook_event_name": "PreToolUse", "cwd": ws, "tool_name": "Bash",
         "tool_input": {"command": line}}
    rc, out = hook("claude-code", p)
    h = (out or {}).get("hookSpecificOutput", {})
    check(rc == 0 and h.get("permissionDecision") == "ask",
          "standard, no --jail: a /tmp scratch line is held")
    only = os.path.join(base, "confined-only.json")
    with open(only, "w") as f:
        json.dump({"require_verification_score": 0,
                   "require_human_for": ["outside-workspace"],
                   "allow_sandboxed_for": ["outside-workspace:tmp"]}, f)
    for args in (("--jail",), ("--jail", "--policy", only)):
        rc, out = hook("claude-code", p, *args)
        cmd = updated_command("claude-code", out)
        check(rc == 0 and cmd is not None,
              f"{args}: a confined allow is answered with the jailed "
              f"rewrite")
        if cmd is None:
            continue
        r = subprocess.run(["bash", "-c", cmd], cwd=ws, capture_output=True,
                           timeout=60)
        check(r.returncode == 0 and r.stdout == b"hi\n" and
              not os.path.exists(f"/tmp/{name}"),
              f"{args}: the scratch file lives in the jail's /tmp only "
              f"({r.returncode}, {r.stdout!r}, {r.stderr[-200:]!r})")
    p["tool_input"]["command"] = f"cat /tmp/../etc/hostname > /tmp/{name}"
    rc, out = hook("claude-code", p, "--jail")
    h = (out or {}).get("hookSpecificOutput", {})
    check(h.get("permissionDecision") == "ask",
          "--jail: a path out of /tmp is still held")


def main():
    if not bwrap_usable():
        sys.stderr.write("bwrap cannot make namespaces here: skipped\n")
        return 77
    base = tempfile.mkdtemp(prefix="locus-hook-jail-", dir=os.getcwd())
    try:
        ws = os.path.join(base, "ws")
        os.makedirs(ws)
        policy = os.path.join(base, "allow-all.json")
        with open(policy, "w") as f:
            json.dump(ALLOW_ALL, f)
        roundtrip(ws, policy)
        other_agents(ws, policy)
        held_and_denied(ws)
        confined_allows(base, ws)
        misses(base, ws, policy)
        everyday(ws)
        if os.geteuid() == 0:
            unprivileged()
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return jail_common.finish()


if __name__ == "__main__":
    sys.exit(main())
