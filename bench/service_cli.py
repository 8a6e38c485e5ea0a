#!/usr/bin/python3
"""Service-CLI lines from the tools' own documentation.

bench/service-cli-docs.jsonl holds command lines of service and cloud
CLIs (velero, restic, stripe, wrangler, mc, rclone, rabbitmqctl, borg,
supabase, doppler, heroku, fly, kafka tools, azcopy, kafkactl, rpk) taken
from their manuals and reference pages (the "source" of each line), each
marked destructive or not by what the documentation says the command does.
It is kept apart from what the labels were tuned on (the everyday corpus
and corpus/): the figures below are measured, not fitted.  Lines that were
missed are reported, not fixed here.

    /usr/bin/python3 bench/service_cli.py [--locus build/locus]
                                          [--preset standard]

Prints: destructive lines tagged exec:destructive and held or denied under
the preset; non-destructive lines tagged exec:destructive (over-holding)
and held; and the misses.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--locus", default=os.path.join(ROOT, "build", "locus"))
    ap.add_argument("--preset", default="standard")
    ap.add_argument("--lines",
                    default=os.path.join(HERE, "service-cli-docs.jsonl"))
    a = ap.parse_args()
    with open(a.lines, encoding="utf-8") as f:
        rows = [json.loads(l) for l in f if l.strip()]
    lines = [r["line"] for r in rows]
    with tempfile.TemporaryDirectory() as root:
        cls = subprocess.run(
            [a.locus, "classify", "--jsonl", "--root", root],
            input="".join(json.dumps({"command": l}) + "\n"
                          for l in lines).encode(),
            stdout=subprocess.PIPE, check=False)
        gate = subprocess.run(
            [a.locus, "gate", "--preset", a.preset, "--root", root],
            input="".join(json.dumps({"tool": "bash",
                                      "arguments": {"command": l}}) + "\n"
                          for l in lines).encode(),
            stdout=subprocess.PIPE, check=False)
    tags = [set(json.loads(l)["tags"]) for l in
            cls.stdout.decode().splitlines()]
    outs = [json.loads(l)["outcome"] for l in
            gate.stdout.decode().splitlines()]
    if len(tags) != len(rows) or len(outs) != len(rows):
        print("locus answered %d/%d of %d lines"
              % (len(tags), len(outs), len(rows)), file=sys.stderr)
        return 2
    d = [i for i, r in enumerate(rows) if r["destructive"]]
    n = [i for i, r in enumerate(rows) if not r["destructive"]]
    tagged = [i for i in d if "exec:destructive" in tags[i]]
    held = [i for i in d if outs[i] != "allow"]
    fp = [i for i in n if "exec:destructive" in tags[i]]
    nheld = [i for i in n if outs[i] != "allow"]
    print("%d service-CLI lines from the tools' documentation "
          "(%d destructive, %d not), --preset %s"
          % (len(rows), len(d), len(n), a.preset))
    print("destructive: %d tagged exec:destructive (%.0f%%), %d held or "
          "denied (%.0f%%)" % (len(tagged), 100.0 * len(tagged) / len(d),
                               len(held), 100.0 * len(held) / len(d)))
    print("not destructive: %d tagged exec:destructive (over-holding), "
          "%d held or denied (exec:network or unknown), %d allowed"
          % (len(fp), len(nheld), len(n) - len(nheld)))
    for i in d:
        if i not in tagged:
            print("  destructive, not tagged: %s  [%s]"
                  % (lines[i], " ".join(sorted(tags[i]))))
    for i in fp:
        print("  not destructive, tagged: %s" % lines[i])
    return 0


if __name__ == "__main__":
    sys.exit(main())
