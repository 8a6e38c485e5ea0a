#!/usr/bin/python3
"""Every command a line runs is listed once.

    /usr/bin/python3 tests/test_seen_once.py LOCUS SOURCE_ROOT

The scanners of the see-through once reported one call twice: two inline
code patterns matching the same `os.system(...)`, and an environment
assignment scanned on a wrapper and again on the command peeled from it
(`SUDO_ASKPASS=/tmp/x sudo -A true` listed x twice).  This loop feeds
every one-line input of the golden corpus (corpus/shell/*.txt), alone and
behind a few wrappers and nested shells, to `locus classify --jsonl`, and
fails when a parsed line lists a nested command (same argv, origin and
depth) more often than its argv text appears in the line: a command
written twice is two commands, one written once and listed twice is the
bug.  (Unparsed lines are left out: their list is partial by definition,
and a dynamic heredoc's text is read both as the substitution and as the
script it feeds.)
"""
import collections
import json
import os
import subprocess
import sys


def corpus_lines(root):
    d = os.path.join(root, "corpus", "shell")
    lines = set()
    for name in sorted(os.listdir(d)):
        if not name.endswith(".txt"):
            continue
        with open(os.path.join(d, name), errors="replace") as f:
            for raw in f:
                if raw.startswith("$ "):
                    line = raw[2:].rstrip("\n")
                    if 0 < len(line) < 400:
                        lines.add(line)
    return sorted(lines)


def variants(line):
    q = "'" + line.replace("'", "'\\''") + "'"
    return [line, "sudo " + line, "X=1 env A=1 " + line, "sh -c " + q,
            "eval " + q, "GIT_PAGER=less sudo " + line]


def doubles(obj):
    """The first nested command listed more often than it is written."""
    src = obj.get("command")
    if src is None or not obj.get("parsed"):
        return None
    seen = collections.Counter()
    for c in obj.get("commands") or []:
        if not c["argv"] or c["origin"] in ("", "function"):
            continue
        seen[(" ".join(c["argv"]), c["origin"], c["depth"])] += 1
    for (text, origin, depth), n in seen.items():
        written = src.count(text)
        if n > 1 and 1 <= written < n:
            return "%s (origin %s, depth %d) listed %d times, written %d" % (
                text, origin, depth, n, written)
    return None


def main():
    locus, root = sys.argv[1], sys.argv[2]
    inputs = [v for line in corpus_lines(root) for v in variants(line)]
    feed = "".join(json.dumps({"command": v}) + "\n" for v in inputs)
    p = subprocess.run([locus, "classify", "--jsonl"], input=feed,
                       capture_output=True, text=True)
    out = p.stdout.splitlines()
    if len(out) != len(inputs):
        print("expected %d answers, got %d (exit %d): %s" %
              (len(inputs), len(out), p.returncode, p.stderr[-500:]))
        return 1
    bad = 0
    for line, ans in zip(inputs, out):
        why = doubles(json.loads(ans))
        if why:
            bad += 1
            if bad <= 20:
                print("DOUBLE %r: %s" % (line, why))
    print("%d lines, %d with a command listed twice" % (len(inputs), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
