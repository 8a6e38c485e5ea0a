#!/usr/bin/env bash
# Build bench/out/batch.txt: 10,000 realistic one-line commands made from the
# golden corpus, each accepted by `bash -n`.  Corpus inputs are the `$ ` lines
# of corpus/shell/*.txt; those that bash rejects, that span lines or that are
# hostile on purpose (huge, NUL) are left out.  To reach 10,000 lines the
# accepted ones are repeated with varied file names, and pairs are joined
# with `&&` and `|` (a pair is kept only when bash accepts it too).
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
want=${1:-10000}

grep -h '^\$ ' corpus/shell/*.txt | sed 's/^\$ //' |
	awk 'length($0) > 0 && length($0) < 300 && $0 !~ /\\$/' | sort -u > "$out/seed.raw"
: > "$out/seed.txt"
# A seed line must satisfy `bash -n` without a word on stderr (a heredoc
# cut off at the line's end is only a warning for bash) and parse in shfmt,
# since shfmt stops at the first line it cannot read and would then be timed
# on a fraction of the batch.
ok() {
	[ -z "$(bash -n <(printf '%s\n' "$1") 2>&1)" ] &&
		printf '%s\n' "$1" | shfmt >/dev/null 2>&1
}
while IFS= read -r l; do
	if ok "$l"; then
		printf '%s\n' "$l" >> "$out/seed.txt"
	fi
done < "$out/seed.raw"
n=$(wc -l < "$out/seed.txt")
[ "$n" -gt 0 ] || { echo "no usable corpus lines" >&2; exit 1; }

awk -v want="$want" -v n="$n" '
	{ seed[NR-1] = $0 }
	END {
		srand(42)
		for (i = 0; i < want; i++) {
			a = seed[int(rand() * n)]
			r = rand()
			if (r < 0.15) {
				b = seed[int(rand() * n)]
				line = a " && " b
			} else if (r < 0.25) {
				b = seed[int(rand() * n)]
				line = a " | " b
			} else {
				line = a
			}
			gsub(/build/, "build" (i % 97), line)
			print line
		}
	}' "$out/seed.txt" > "$out/candidates.txt"

# Keep only lines bash accepts; refill from the seed lines when one is dropped.
: > "$out/batch.txt"
while IFS= read -r l; do
	if ok "$l"; then
		printf '%s\n' "$l" >> "$out/batch.txt"
	else
		sed -n "$(( (RANDOM % n) + 1 ))p" "$out/seed.txt" >> "$out/batch.txt"
	fi
done < "$out/candidates.txt"
echo "batch: $(wc -l < "$out/batch.txt") lines from $n corpus lines"
# The batch as a whole must be accepted too (a line could end in a way that
# changes how the next one reads).
bash -n "$out/batch.txt" || { echo "bash -n rejects the batch" >&2; exit 1; }
shfmt "$out/batch.txt" > /dev/null || { echo "shfmt rejects the batch" >&2; exit 1; }
