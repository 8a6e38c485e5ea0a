#!/usr/bin/env python3
"""python/bench/classify_speed.py - the binding's own speed (issue 28):
classify the benchmark batch through locus.harness.labels.classify_command
and through `locus classify --jsonl` on the same lines; print both and
the ratio (target: within 1.5x).

  python3 python/bench/classify_speed.py BATCH_FILE [LOCUS_BIN]

BATCH_FILE is one bash line per line (bench/make_batch.sh makes the
benchmark's batch, bench/out/batch.txt); the CLI gets the same lines as
{"command": LINE} objects.  CPU time of the process (this one for Python, the
child's for the CLI), best of 3; on a busy machine compare instruction
counts instead (valgrind --tool=callgrind on both).  Not a test: a
figure, measured on a quiet machine.
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from locus.harness.labels import classify_command  # noqa: E402


def python_cpu(lines):
    t0 = time.process_time()
    for line in lines:
        classify_command(line)
    return time.process_time() - t0


def cli_cpu(bin_, path):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(path, "rb") as f:  # {"command": line} per line
        subprocess.run([bin_, "classify", "--jsonl"], stdin=f,
                       stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime) +
            (after.ru_stime - before.ru_stime))


def main():
    path = sys.argv[1]
    repo = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    bin_ = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        repo, "build", "locus")
    with open(path, "rb") as f:
        lines = [ln.rstrip(b"\n").decode("utf-8", "surrogateescape")
                 for ln in f if ln.strip()]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl",
                                     delete=False) as f:
        for line in lines:
            f.write(json.dumps({"command": line}) + "\n")
    try:
        py = min(python_cpu(lines) for _ in range(3))
        cli = min(cli_cpu(bin_, f.name) for _ in range(3))
    finally:
        os.unlink(f.name)
    print("%d lines: classify_command %.3f s CPU, locus classify --jsonl "
          "%.3f s CPU, ratio %.2fx" % (len(lines), py, cli, py / cli))


if __name__ == "__main__":
    main()
