#!/usr/bin/env bash
# Build bench/out/batch.txt (bench/make_batch.py): at least 10,000 distinct
# one-line commands, half everyday agent lines, half golden-corpus lines,
# each accepted by `bash -n` and shfmt.
set -euo pipefail
cd "$(dirname "$0")/.."
exec /usr/bin/python3 bench/make_batch.py bench/out "${1:-10000}"
