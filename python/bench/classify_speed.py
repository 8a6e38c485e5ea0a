#!/usr/bin/env python3
"""python/bench/classify_speed.py - the binding's own speed:
classifying the benchmark batch through
locus.harness.labels.classify_command against `locus classify --jsonl` on
the same lines (target: within 1.5x).  A figure, not a test.

  python3 python/bench/classify_speed.py [--cpu] BATCH_FILE [LOCUS_BIN]

BATCH_FILE holds one bash line per line (bench/make_batch.sh makes the
benchmark's batch, bench/out/batch.txt); the CLI gets the same lines as
{"command": LINE} objects.  By default both sides are counted in
instructions under callgrind (this machine is shared: wall and CPU time
are not figures here), each minus the same program on no lines (the
interpreter's start and the import; the CLI's start).  --cpu measures CPU
time instead (best of 3), for a quiet machine.
"""
import json
import os
import re
import resource
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)
REPO = os.path.dirname(PKG)
PY = "/usr/bin/python3"

# the Python side: classify every line of argv[1]
CHILD = """import sys
sys.path.insert(0, %r)
from locus.harness.labels import classify_command
with open(sys.argv[1], 'rb') as f:
    lines = [l.rstrip(b'\\n').decode('utf-8', 'surrogateescape')
             for l in f if l.strip()]
for l in lines:
    classify_command(l)
""" % PKG


def instructions(argv, stdin_path=None):
    with open(stdin_path or os.devnull, "rb") as f:
        p = subprocess.run(["valgrind", "--tool=callgrind",
                            "--callgrind-out-file=/dev/null"] + argv,
                           stdin=f, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, check=True)
    m = re.search(rb"Collected : (\d+)", p.stderr)
    return int(m.group(1))


def cpu(argv, stdin_path=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(stdin_path or os.devnull, "rb") as f:
        subprocess.run(argv, stdin=f, stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime) +
            (after.ru_stime - before.ru_stime))


def main():
    args = sys.argv[1:]
    use_cpu = "--cpu" in args
    args = [a for a in args if a != "--cpu"]
    path = args[0]
    bin_ = args[1] if len(args) > 1 else os.path.join(REPO, "build", "locus")
    with open(path, "rb") as f:
        lines = [ln.rstrip(b"\n").decode("utf-8", "surrogateescape")
                 for ln in f if ln.strip()]
    with tempfile.TemporaryDirectory() as d:
        txt, jsonl = os.path.join(d, "l.txt"), os.path.join(d, "l.jsonl")
        empty = os.path.join(d, "empty")
        open(empty, "w").close()
        with open(txt, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.writelines(line + "\n" for line in lines)
        with open(jsonl, "w") as f:
            f.writelines(json.dumps({"command": line}) + "\n"
                         for line in lines)
        child = os.path.join(d, "child.py")
        with open(child, "w") as f:
            f.write(CHILD)
        if use_cpu:
            py = min(cpu([PY, child, txt]) for _ in range(3)) - \
                min(cpu([PY, child, empty]) for _ in range(3))
            cli = min(cpu([bin_, "classify", "--jsonl"], jsonl)
                      for _ in range(3))
            unit = "s CPU"
        else:
            py = instructions([PY, child, txt]) - \
                instructions([PY, child, empty])
            cli = instructions([bin_, "classify", "--jsonl"], jsonl) - \
                instructions([bin_, "classify", "--jsonl"], empty)
            unit = "instructions"
    print("%d lines: classify_command %s %s, locus classify --jsonl %s %s, "
          "ratio %.2fx" % (len(lines), format(py, ",") if not use_cpu else
                           "%.3f" % py, unit,
                           format(cli, ",") if not use_cpu else "%.3f" % cli,
                           unit, py / cli))


if __name__ == "__main__":
    main()
