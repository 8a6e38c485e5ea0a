"""What the audit and policy-fuzz tests share: the paths meson hands them
(LOCUS_BIN, LOCUS_SOURCE_ROOT) and a check() that records failures, with
finish() exiting 1 when any failed."""
import os
import sys

BIN = os.environ["LOCUS_BIN"]
ROOT = os.environ["LOCUS_SOURCE_ROOT"]
SAMPLES = os.path.join(ROOT, "tests", "transcripts")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def finish():
    print("%d failures" % len(failures))
    sys.exit(1 if failures else 0)
