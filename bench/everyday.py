#!/usr/bin/python3
"""Precision on everyday agent traffic.

Runs every line of corpus/everyday/agent-lines.jsonl (one JSON string per
line: a bash command as an agent sends it) through `locus gate` under a
preset (standard by default), with a fresh empty directory as the workspace
root, and prints how many lines are allowed, held and denied, and why (the
labels that held them, with examples).

    /usr/bin/python3 bench/everyday.py [--locus build/locus] [--preset standard]
                                       [--examples N] [--max-asked N]
    /usr/bin/python3 bench/everyday.py --confined [--locus build/locus]

--confined prints, for every preset, how many lines are allowed outright,
allowed only when confined (the same call tagged `sandboxed`, as `locus
hook --jail` tags a shell call it will run in the jail: the policy's
allow_sandboxed_for, docs/jail.md) and held or denied.

--max-asked N fails (exit 1) when more than N lines are held or denied:
the `everyday` test guards the figure of docs/tags.md this way (a bound,
so a change elsewhere that asks less does not break it).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def fired_labels(decision):
    """The labels named by the checks that fired ("labels ['a', 'b'] ...")."""
    fired = set()
    for c in decision["checks"]:
        r = c["reason"]
        if "[" in r:
            fired.update(x.strip(" '") for x in
                         r[r.index("[") + 1:r.index("]")].split(","))
    return fired


def gate(locus, preset, lines, tags):
    """The decisions of `locus gate` for lines, each call given tags."""
    calls = "".join(json.dumps({"tool": "bash", "arguments": {"command": l},
                                "tags": tags}) + "\n" for l in lines)
    with tempfile.TemporaryDirectory() as root:
        p = subprocess.run([locus, "gate", "--preset", preset,
                            "--root", root], input=calls.encode(),
                           stdout=subprocess.PIPE, check=False)
    if p.returncode != 0:
        raise SystemExit("locus gate exited %d" % p.returncode)
    out = [json.loads(l) for l in p.stdout.decode().splitlines()]
    if len(out) != len(lines):
        raise SystemExit("got %d decisions for %d lines"
                         % (len(out), len(lines)))
    return out


def confined(a, lines):
    """Outright, confined and held per preset."""
    names = ["standard", "strict", "permissive", "readonly"]
    n = len(lines)
    for preset in names:
        plain = gate(a.locus, preset, lines, [])
        boxed = gate(a.locus, preset, lines, ["sandboxed"])
        outright = sum(1 for d in plain if d["outcome"] == "allow")
        conf = [l for l, d, e in zip(lines, plain, boxed)
                if d["outcome"] != "allow" and e["outcome"] == "allow"]
        worse = sum(1 for d, e in zip(plain, boxed)
                    if d["outcome"] == "allow" and e["outcome"] != "allow")
        held = n - outright - len(conf)
        print("%-10s %d lines: %d allowed outright (%.1f%%), %d allowed "
              "confined (%.1f%%), together %d (%.1f%%); %d held or denied"
              % (preset, n, outright, 100.0 * outright / n, len(conf),
                 100.0 * len(conf) / n, outright + len(conf),
                 100.0 * (outright + len(conf)) / n, held))
        for l in conf[:a.examples]:
            print("    confined: %s" % l.replace("\n", "\\n")[:70])
        if worse:
            print("    %d lines allowed outright are held when confined"
                  % worse)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--locus", default=os.path.join(ROOT, "build", "locus"))
    ap.add_argument("--preset", default="standard")
    ap.add_argument("--lines",
                    default=os.path.join(ROOT, "corpus", "everyday",
                                         "agent-lines.jsonl"))
    ap.add_argument("--examples", type=int, default=3)
    ap.add_argument("--max-asked", type=int, default=None)
    ap.add_argument("--confined", action="store_true")
    a = ap.parse_args()

    with open(a.lines, encoding="utf-8") as f:
        lines = [json.loads(l) for l in f if l.strip()]
    if a.confined:
        return confined(a, lines)
    calls = "".join(json.dumps({"tool": "bash", "arguments": {"command": l}})
                    + "\n" for l in lines)
    with tempfile.TemporaryDirectory() as root:
        p = subprocess.run([a.locus, "gate", "--preset", a.preset,
                            "--root", root], input=calls.encode(),
                           stdout=subprocess.PIPE, check=False)
    if p.returncode != 0:
        print("locus gate exited %d" % p.returncode, file=sys.stderr)
        return 2
    out = [json.loads(l) for l in p.stdout.decode().splitlines()]
    if len(out) != len(lines):
        print("got %d decisions for %d lines" % (len(out), len(lines)),
              file=sys.stderr)
        return 2
    count = collections.Counter(d["outcome"] for d in out)
    why = collections.Counter()
    examples = collections.defaultdict(list)
    for line, d in zip(lines, out):
        if d["outcome"] == "allow":
            continue
        for lab in sorted(fired_labels(d)):
            why[(d["outcome"], lab)] += 1
            if len(examples[(d["outcome"], lab)]) < a.examples:
                examples[(d["outcome"], lab)].append(line)
    n = len(lines)
    A, H, D = count["allow"], count["require_human"], count["deny"]
    print("%d everyday lines under --preset %s: %d allowed (%.1f%%), "
          "%d held (%.1f%%), %d denied (%.1f%%)"
          % (n, a.preset, A, 100.0 * A / n, H, 100.0 * H / n, D,
             100.0 * D / n))
    new = {"exec:secrets", "exec:persistence", "exec:privilege",
           "outside-workspace", "network", "unknown-tool"}
    only_new = 0
    for d in out:
        if d["outcome"] == "allow":
            continue
        fired = fired_labels(d)
        if fired and fired <= new:
            only_new += 1
    print("held only by the labels the fear-labels round added (secrets, persistence, "
          "privilege, outside-workspace): %d" % only_new)
    # The closed world (a program in no row of the program
    # table) and the options that run code locus does not see
    only_unknown = sum(1 for d in out if d["outcome"] != "allow"
                       and fired_labels(d) == {"exec:unknown"})
    print("held only by the closed world (exec:unknown): %d"
          % only_unknown)
    print("why (a line can carry several labels):")
    for (oc, lab), k in why.most_common():
        ex = "; ".join(x.replace("\n", "\\n")[:60] for x in examples[(oc, lab)])
        print("  %-14s %-22s %4d   e.g. %s" % (oc, lab, k, ex))
    if a.max_asked is not None and H + D > a.max_asked:
        print("%d lines held or denied, more than the bound %d: a person "
              "would be asked about everyday work (docs/tags.md)"
              % (H + D, a.max_asked), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
