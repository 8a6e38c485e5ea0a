#!/usr/bin/python3
"""README's `Use` block points at sample inputs that exist, and its gate,
audit verify and hook lines work on them.

Usage: test_readme.py LOCUS SOURCE_ROOT
"""
import os
import re
import subprocess
import sys
import tempfile

LOCUS, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
fails = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)


readme = open(os.path.join(SRC, "README.md")).read()
use = readme.split("## Use", 1)[1].split("```", 2)[1]
for path in sorted(set(re.findall(r"docs/examples/[\w.-]+", use))):
    check(os.path.isfile(os.path.join(SRC, path)), f"{path} exists")
check("meson install" in readme.split("## Use", 1)[0],
      "the PATH step (meson install) comes before the Use block")
with tempfile.TemporaryDirectory() as d:
    audit = os.path.join(d, "audit.jsonl")
    calls = open(os.path.join(SRC, "docs/examples/calls.jsonl"), "rb").read()
    g = subprocess.run([LOCUS, "gate", "--preset", "standard", "--audit",
                        audit], input=calls, capture_output=True, cwd=SRC)
    outs = [l for l in g.stdout.decode().split("\n") if l]
    check(g.returncode == 0 and len(outs) == len(calls.splitlines()),
          "gate answers every sample call")
    v = subprocess.run([LOCUS, "audit", "verify", audit], capture_output=True)
    check(v.returncode == 0 and b"chain intact" in v.stdout,
          "audit verify accepts the trail gate wrote")
    with open(os.path.join(SRC, "docs/examples/hook-payload.json"), "rb") as f:
        h = subprocess.run([LOCUS, "hook", "claude-code"], stdin=f,
                           capture_output=True)
    check(h.returncode == 0 and b'"permissionDecision":"ask"' in h.stdout,
          "the sample hook payload is answered (a push is held)")
print(f"{len(fails)} failed")
sys.exit(1 if fails else 0)
