#!/usr/bin/python3
"""The precision of `locus policy fuzz` on realistic Claude Code settings,
against findings judged true or false by hand (judged.json: settings,
rule, intent, example, true, why).

  precision.py LOCUS [SETTINGS.json...]   (default: realistic*.json)

Runs the fuzzer (default count and seed, no time limit that could end it
early) on each settings file in this folder and prints every finding with
its verdict (TRUE, FALSE, or UNJUDGED), then precision = true / judged
reported findings.  Exit 0; the test (tests/test_policy_fuzz.py) asserts
on the returned figures."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def judged():
    with open(os.path.join(HERE, "judged.json")) as f:
        return {(j["settings"], j["rule"], j["intent"]): j for j in json.load(f)}


def run(locus, settings, count=20000):
    p = subprocess.run([locus, "policy", "fuzz", "--claude-settings", settings,
                        "--count", str(count), "--time", "3600", "--quiet",
                        "--format", "jsonl"], cwd=HERE, capture_output=True,
                       text=True, timeout=3600)
    if p.returncode not in (0, 1):
        raise SystemExit("locus policy fuzz %s: exit %d: %s" % (settings, p.returncode, p.stderr))
    return [r for r in map(json.loads, p.stdout.splitlines()) if r["type"] == "finding"]


def measure(locus, files, count=20000):
    j = judged()
    rows = []
    for s in files:
        for f in run(locus, s, count):
            v = j.get((s, f["rule"], f["intent"]))
            rows.append((s, f, None if v is None else v["true"]))
    true = sum(1 for r in rows if r[2] is True)
    false = sum(1 for r in rows if r[2] is False)
    return rows, true, false


if __name__ == "__main__":
    locus = sys.argv[1]
    files = sys.argv[2:] or sorted(f for f in os.listdir(HERE) if f.startswith("realistic"))
    rows, true, false = measure(locus, files)
    for s, f, v in rows:
        print("%-9s %s %s: %s" % ({True: "TRUE", False: "FALSE", None: "UNJUDGED"}[v], s,
                                  f["rule"], f["example"]))
    judged_n = true + false
    print("%d findings, %d judged: %d true, %d false; precision %.1f%%" %
          (len(rows), judged_n, true, false, 100.0 * true / judged_n if judged_n else 0))
