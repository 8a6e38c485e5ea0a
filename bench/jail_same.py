#!/usr/bin/python3
"""Does the jail change ordinary work?  The everyday corpus's allowed lines,
run outside and inside `locus jail`, compared byte for byte.

Every line of corpus/everyday/agent-lines.jsonl goes through `locus hook
claude-code --jail --preset standard` (as an agent's Bash call would).  For
each line the hook allows (outright or confined), the line runs twice in a
fresh copy of a small fixture workspace (a git repository with a Python
package, a Node package, a Makefile, tests) at the same path:

  outside: /bin/bash -c LINE in a read-only view of the host with the
           workspace writable and a private /tmp (bwrap --ro-bind / /,
           no network): the machine is never exposed to the corpus's
           lines, and the only differences left are the jail's own;
  jailed:  the hook's rewritten command (locus jail --root WS -- ...).

It prints how many lines give the same exit status, stdout and stderr, and
every line that differs, with both results, so that each difference can be
explained (a masked credential store, a pid namespace...).

    /usr/bin/python3 bench/jail_same.py [--locus build/locus] [--limit N]
"""
import argparse
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

FIXTURE = {
    "README.md": "# demo\n\nA small project.\nTODO: more\n",
    "src/app/__init__.py": "",
    "src/app/main.py": "def main():\n    return 42  # TODO\n\n"
                       "if __name__ == '__main__':\n    print(main())\n",
    "src/app/models.py": "class User:\n    name = 'a'\n",
    "tests/test_main.py": "from app.main import main\n\n"
                          "def test_main():\n    assert main() == 42\n",
    "package.json": '{"name": "demo", "version": "1.0.0", "scripts": '
                    '{"test": "echo ok", "build": "echo built"}}\n',
    "Makefile": "all:\n\t@echo building\ntest:\n\t@echo tests pass\n",
    "setup.cfg": "[metadata]\nname = demo\n",
    ".gitignore": "node_modules/\n__pycache__/\n",
}


def make_fixture(path, env):
    os.makedirs(path)
    for name, text in FIXTURE.items():
        p = os.path.join(path, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
    subprocess.run(["git", "init", "-q", "-b", "main", "."], cwd=path,
                   env=env, check=True)
    subprocess.run(["git", "add", "-A"], cwd=path, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=path, env=env,
                   check=True)
    with open(os.path.join(path, "README.md"), "a") as f:
        f.write("changed\n")


# What differs between any two runs of the same line, jailed or not: times,
# timestamps and the log files named after them, process ids.  Compared
# after these are blanked (and once more without, for the raw figure).
VOLATILE = [re.compile(rb"\b\d+(\.\d+)?\s?(ms|s|sec|seconds)\b"),
            re.compile(rb"\d{4}-\d\d-\d\dT[0-9_:.\-]+Z?"),
            re.compile(rb"(real|user|sys)\t\S+")]


def normal(res):
    rc, out, err = res
    for r in VOLATILE:
        out, err = r.sub(b"#", out), r.sub(b"#", err)
    return (rc, out, err)


def run(argv, cwd, env):
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True,
                           stdin=subprocess.DEVNULL, timeout=30)
        return (p.returncode, p.stdout, p.stderr)
    except subprocess.TimeoutExpired:
        return ("timeout", b"", b"")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--locus", default=os.path.join(ROOT, "build", "locus"))
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--preset", default="standard")
    ap.add_argument("--only", help="a file of JSON lines: run only these")
    a = ap.parse_args()
    locus = os.path.abspath(a.locus)
    if not shutil.which("bwrap"):
        print("jail_same: no bwrap", file=sys.stderr)
        return 77
    with open(os.path.join(ROOT, "corpus", "everyday",
                           "agent-lines.jsonl")) as f:
        lines = [json.loads(l) for l in f if l.strip()]
    if a.only:
        with open(a.only) as f:
            keep = {json.loads(l) for l in f if l.strip()}
        lines = [l for l in lines if l in keep]
    if a.limit:
        lines = lines[:a.limit]
    top = tempfile.mkdtemp(prefix="locus-jail-same-")
    ws = os.path.join(top, "ws")
    fixture = os.path.join(top, "fixture")
    home = os.path.join(top, "home")
    os.makedirs(home)
    env = dict(PATH="/usr/local/bin:/usr/bin:/bin", HOME=home, LC_ALL="C",
               TERM="dumb", GIT_AUTHOR_NAME="a", GIT_AUTHOR_EMAIL="a@b",
               GIT_COMMITTER_NAME="a", GIT_COMMITTER_EMAIL="a@b",
               GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
               GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    make_fixture(fixture, env)
    payloads = [{"hook_event_name": "PreToolUse", "cwd": ws,
                 "tool_name": "Bash", "tool_input": {"command": l}}
                for l in lines]
    p = subprocess.run([locus, "hook", "claude-code", "--jsonl", "--jail",
                        "--preset", a.preset],
                       input="".join(json.dumps(x) + "\n"
                                     for x in payloads).encode(),
                       capture_output=True, timeout=1800)
    answers = [json.loads(l) for l in p.stdout.decode().splitlines() if l]
    if len(answers) != len(lines):
        print("jail_same: the hook answered %d of %d lines: %s" %
              (len(answers), len(lines), p.stderr[-300:]), file=sys.stderr)
        return 1
    outside = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc",
               "/proc", "--tmpfs", "/tmp", "--bind", top, top,
               "--unshare-net", "--unshare-pid", "--die-with-parent",
               "--chdir", ws, "/bin/bash", "-c"]
    allowed = same = raw_same = 0
    differ = []
    for line, ans in zip(lines, answers):
        h = (ans.get("answer") or {}).get("hookSpecificOutput", {})
        cmd = h.get("updatedInput", {}).get("command")
        if h.get("permissionDecision") != "allow" or not cmd:
            continue
        allowed += 1
        results = []
        for argv in (outside + [line], ["/bin/bash", "-c", cmd]):
            shutil.rmtree(ws, ignore_errors=True)
            shutil.copytree(fixture, ws, symlinks=True)
            results.append(run(argv, ws, env))
        raw_same += results[0] == results[1]
        if normal(results[0]) == normal(results[1]):
            same += 1
        else:
            differ.append((line, results))
    shutil.rmtree(top, ignore_errors=True)
    print("%d everyday lines, %d allowed under --preset %s with --jail; "
          "same exit status, stdout and stderr inside and outside the "
          "jail: %d of %d byte for byte, %d of %d with times and "
          "timestamps blanked" % (len(lines), allowed, a.preset, raw_same,
                                  allowed, same, allowed))
    for line, (o, j) in differ:
        o, j = normal(o), normal(j)
        k = 0  # show where they part
        while k < len(o[1] + o[2]) and (o[1] + o[2])[k:k + 1] == \
                (j[1] + j[2])[k:k + 1]:
            k += 1
        k = max(0, k - 60)
        print("  differs: %r\n    outside: %r\n    jailed:  %r" %
              (line, (o[0], (o[1] + o[2])[k:k + 240]),
               (j[0], (j[1] + j[2])[k:k + 240])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
