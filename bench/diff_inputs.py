#!/usr/bin/python3
"""Inputs for bench/diff_classify.sh: every line locus is known to meet.

    /usr/bin/python3 bench/diff_inputs.py OUTDIR [BATCH [EXTRA]]

Writes OUTDIR/inputs.jsonl, one {"command": TEXT} object a line, for every
input that is valid UTF-8: each golden-corpus case (corpus/**/*.txt: `$`,
`$e` and `>` lines as docs/corpus.md reads them), each line of BATCH (the
bench/make_batch.sh output), each fuzz seed file under fuzz/*/corpus/
(whole, and every line of it), each line of corpus/everyday, pairs of
corpus inputs joined by a newline and by `; ` (so that several checks meet
on one line and the first reason is put to the test), and the
NUL-terminated lines of EXTRA (`fuzz_bypass --emit` output).  Inputs
that are not valid UTF-8 (JSON cannot carry them) and hold no newline go
to OUTDIR/raw.txt, one a line, for `locus classify < raw.txt`.  Prints the
counts.
"""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

ESC = {"0": b"\0", "n": b"\n", "t": b"\t", "r": b"\r", "v": b"\v",
       "f": b"\f", "a": b"\a", "e": b"\x1b", "s": b" ", "\\": b"\\"}


def decode_escapes(text):
    """The `$e` line decoding of docs/corpus.md; None on a format error."""
    out = bytearray()
    raw = text.encode()
    i = 0
    while i < len(raw):
        c = raw[i:i + 1]
        if c != b"\\":
            out += c
            i += 1
            continue
        e = raw[i + 1:i + 2].decode("latin-1")
        if e == "x":
            out.append(int(raw[i + 2:i + 4], 16))
            i += 4
        elif e in ESC:
            out += ESC[e]
            i += 2
        else:
            return None
    return bytes(out)


def corpus_inputs():
    for path in sorted(glob.glob(os.path.join(ROOT, "corpus/**/*.txt"),
                                 recursive=True)):
        if "/policy/" in path:
            continue
        cur, esc = None, False
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", "surrogateescape").split("\n")
        for line in lines + [""]:
            line = line[:-1] if line.endswith("\r") else line
            if cur is not None and (line == ">" or line.startswith("> ")):
                part = line[2:]
                cur += b"\n" + (decode_escapes(part) or b"" if esc
                                else part.encode("utf-8", "surrogateescape"))
                continue
            if cur is not None:
                yield cur
                cur = None
            if line == "$" or line.startswith("$ "):
                cur, esc = line[2:].encode("utf-8", "surrogateescape"), False
            elif line.startswith("$e "):
                cur, esc = decode_escapes(line[3:]), True
                if cur is None:
                    cur = None


def main():
    out = sys.argv[1]
    batch = sys.argv[2] if len(sys.argv) > 2 else None
    inputs = []
    inputs += list(corpus_inputs())
    n_corpus = len(inputs)
    if batch:
        with open(batch, "rb") as f:
            inputs += [l for l in f.read().split(b"\n") if l]
    n_batch = len(inputs) - n_corpus
    seeds = sorted(glob.glob(os.path.join(ROOT, "fuzz/*/corpus/*")))
    for s in seeds:
        with open(s, "rb") as f:
            data = f.read()
        inputs.append(data)
        inputs += data.split(b"\n")
    n_seed = len(inputs) - n_corpus - n_batch
    with open(os.path.join(ROOT, "corpus/everyday/agent-lines.jsonl")) as f:
        for raw in f:
            inputs.append(json.loads(raw).encode())
    corpus = inputs[:n_corpus]
    for i, a in enumerate(corpus):
        b = corpus[(i * 7 + 3) % len(corpus)]
        inputs.append(a + (b"\n" if i % 2 else b"; ") + b)
    if len(sys.argv) > 3:
        with open(sys.argv[3], "rb") as f:
            inputs += [l for l in f.read().split(b"\0") if l]
    os.makedirs(out, exist_ok=True)
    nj = nr = 0
    with open(os.path.join(out, "inputs.jsonl"), "w") as j, \
            open(os.path.join(out, "raw.txt"), "wb") as r:
        for b in inputs:
            try:
                t = b.decode("utf-8")
            except UnicodeDecodeError:
                if b"\n" not in b:
                    r.write(b + b"\n")
                    nr += 1
                continue
            j.write(json.dumps({"command": t}) + "\n")
            nj += 1
    print(f"{n_corpus} corpus, {n_batch} batch, {n_seed} fuzz seed inputs: "
          f"{nj} in inputs.jsonl, {nr} in raw.txt")


if __name__ == "__main__":
    main()
