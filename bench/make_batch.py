#!/usr/bin/python3
"""Build the benchmark batch: at least WANT distinct one-line commands.

    /usr/bin/python3 bench/make_batch.py OUTDIR [WANT]

Sources, half and half: the everyday agent lines (corpus/everyday, what an
agent sends in a working session) and the golden corpus's `$ ` lines
(corpus/shell: wrappers, nested scripts, hostile shapes).  Each source line
must satisfy `bash -n` with nothing on stderr and parse in shfmt (shfmt
stops at the first line it cannot read and would then be timed on a
fraction of the batch).  To reach WANT lines, variants are made by
replacing file names and numbers with others from a fixed vocabulary and
by joining two lines with && | or ;.  No line appears twice.  The PRNG is
seeded, so the batch is the same on every machine.
Writes OUTDIR/batch.txt and prints how it was made.
"""
import json
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PATHS = ["src/main.c", "src/app/main.py", "lib/util.js", "README.md",
         "docs/design.md", "tests/test_api.py", "Cargo.toml", "go.mod",
         "package.json", "cmd/server/main.go", "include/api.h", "setup.cfg",
         "web/index.ts", "scripts/build.sh", "Makefile", "config.yaml",
         "src/lib.rs", "app/models.py", "pkg/http/client.go", "notes.txt",
         "build/out.log", "data/input.csv", "src/parser/walk.c",
         "tests/fixtures/a.json", "server.js", "CHANGELOG.md", ".env",
         "src/components/Button.tsx", "internal/db/db.go", "tox.ini"]
PATH_RE = re.compile(r"(?<![\w$/.-])(?:[\w-]+/)*[\w-]+\.(?:py|js|ts|tsx|c|h|"
                     r"md|txt|json|go|rs|sh|toml|yaml|yml|cfg|ini|log|csv)"
                     r"(?![\w.])")
NUM_RE = re.compile(r"(?<=[ -])(\d{1,3})(?=[ ,]|$)")


def ok(line):
    """bash -n without a word on stderr, and shfmt, accept the line."""
    b = subprocess.run(["bash", "-n"], input=line + "\n", text=True,
                       capture_output=True)
    if b.returncode or b.stderr:
        return False
    s = subprocess.run(["shfmt"], input=line + "\n", text=True,
                       capture_output=True)
    return s.returncode == 0


def sources():
    every = []
    with open(os.path.join(ROOT, "corpus/everyday/agent-lines.jsonl")) as f:
        for raw in f:
            line = json.loads(raw)
            if "\n" not in line and line.strip():
                every.append(line)
    shell = []
    d = os.path.join(ROOT, "corpus/shell")
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name), errors="replace") as f:
            for raw in f:
                if raw.startswith("$ "):
                    line = raw[2:].rstrip("\n")
                    if 0 < len(line) < 300 and not line.endswith("\\"):
                        shell.append(line)
    return every, sorted(set(shell))


def variant(rng, line):
    line = PATH_RE.sub(lambda m: rng.choice(PATHS), line)
    return NUM_RE.sub(lambda m: str(rng.randint(1, 400)), line)


def main():
    out = sys.argv[1]
    want = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    os.makedirs(out, exist_ok=True)
    every, shell = sources()
    every = [l for l in every if ok(l)]
    shell = [l for l in shell if ok(l)]
    rng = random.Random(42)
    seen, batch = set(), []

    def add(line):
        if line not in seen:
            seen.add(line)
            batch.append(line)

    for l in every + shell:
        add(l)
    tries = 0
    while len(batch) < want and tries < want * 50:
        tries += 1
        pool = every if rng.random() < 0.5 else shell
        a = rng.choice(pool)
        r = rng.random()
        if r < 0.6:
            line = variant(rng, a)
        else:
            b = variant(rng, rng.choice(pool))
            sep = " && " if r < 0.8 else " | " if r < 0.9 else "; "
            line = variant(rng, a) + sep + b
        if line in seen:
            continue
        # joined lines and new names can change how bash reads a line
        if ok(line):
            add(line)
    rng.shuffle(batch)
    with open(os.path.join(out, "batch.txt"), "w") as f:
        f.write("\n".join(batch) + "\n")
    path = os.path.join(out, "batch.txt")
    # the batch as a whole must be accepted too (a line could end in a way
    # that changes how the next one reads)
    if subprocess.run(["bash", "-n", path]).returncode or \
            subprocess.run(["shfmt", path], stdout=subprocess.DEVNULL).returncode:
        print("bash -n or shfmt rejects the batch", file=sys.stderr)
        return 1
    print("batch: %d distinct lines (%d everyday and %d corpus source "
          "lines, the rest variants)" % (len(batch), len(every), len(shell)))
    return 0 if len(batch) >= want else 1


if __name__ == "__main__":
    sys.exit(main())
