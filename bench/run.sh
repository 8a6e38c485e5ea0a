#!/usr/bin/env bash
# The benchmark of issue 2, item 8.  Run after `bash .ci/setup`:
#     bash bench/run.sh [RUNS]
# Prints each figure (median wall time of RUNS runs, peak RSS) and the ratios
# the targets are stated in.  All figures come from one run on one machine,
# so compare ratios, not absolute numbers, across machines.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
B=build
[ -x $B/locus ] && [ -x $B/bench/ts_raw ] && [ -x $B/bench/timeit ] || {
	echo "build first: bash .ci/setup" >&2; exit 2; }
command -v shfmt >/dev/null || { echo "shfmt missing (apt-get install shfmt)" >&2; exit 2; }

out=bench/out
[ -s $out/batch.txt ] || bash bench/make_batch.sh
batch=$out/batch.txt
lines=$(wc -l < $batch)

t() { # label, then timeit args; prints and returns "median maxrss"
	local label=$1; shift
	local r; r=$($B/bench/timeit -n "$runs" "$@")
	local med rss
	med=$(sed 's/.*median_ms=\([0-9.]*\).*/\1/' <<<"$r")
	rss=$(sed 's/.*maxrss_kb=\([0-9]*\).*/\1/' <<<"$r")
	printf '%-44s %10.2f ms  peak RSS %7d KB   (%s)\n' "$label" "$med" "$rss" "$r" >&2
	echo "$med $rss"
}

echo "machine: $(nproc) cores, $(uname -r); $lines lines in the batch; $runs runs each, medians" >&2
read -r locus_ms locus_rss < <(t "locus classify (batch, one process)" -i $batch -- $B/locus classify)
read -r ts_ms _ < <(t "raw tree-sitter parse+walk (batch)" -- $B/bench/ts_raw $batch)
read -r bashn_ms _ < <(t "bash -n (batch)" -- bash -n $batch)
read -r shfmt_ms _ < <(t "shfmt (batch)" -- shfmt $batch)
read -r one_ms one_rss < <(t "one-line locus classify process" -n $((runs * 5)) -- $B/locus classify "git status --short")
read -r true_ms _ < <(t "baseline: /bin/true process" -n $((runs * 5)) -- /bin/true)

# Single inputs of growing size: a realistic script made of batch lines that
# locus parses on their own (one line with a syntax error would make the
# whole script unparsed early and flatter the figure), fed as one command
# through --jsonl.
declare -A size_ms
if [ ! -s $out/parsed-lines.txt ]; then
	$B/locus classify < $batch | paste -d '\t' - $batch |
		awk -F '\t' 'index($1, "\"parsed\":true") { print $2 }' > $out/parsed-lines.txt
fi
for kib in 1 16 256 1024; do
	f=$out/single-$kib.jsonl
	if [ ! -s $f ]; then
		node -e '
			const fs = require("fs");
			const lines = fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean);
			const want = Number(process.argv[2]) * 1024 - 1024;
			let s = "", i = 0;
			/* `;` before each newline: a multi-stage pipeline followed by a
			   line with && is a known grammar misparse (research S6) that
			   would make the whole script unparsed */
			const sep = (l) => /&\s*$/.test(l) ? "\n" : ";\n";
			for (;;) {
				const l = lines[i++ % lines.length];
				if (Buffer.byteLength(s) + Buffer.byteLength(l) + 2 >= want) break;
				s += l + sep(l);
			}
			process.stdout.write(JSON.stringify({command: s}) + "\n");' $out/parsed-lines.txt $kib > $f
	fi
	read -r ms _ < <(t "single input ${kib} KiB" -i $f -- $B/locus classify --jsonl)
	size_ms[$kib]=$ms
	echo "  $( $B/locus classify --jsonl < $f | grep -o '"parsed":[a-z]*' | head -1) $( $B/locus classify --jsonl < $f | grep -o '"unparsed_reason":"[^"]*"' | head -1)" >&2
done

echo
echo "== ratios and targets =="
awk -v l="$locus_ms" -v ts="$ts_ms" -v sh="$shfmt_ms" -v bn="$bashn_ms" \
    -v one="$one_ms" -v tr="$true_ms" -v rss="$locus_rss" \
    -v s1="${size_ms[1]}" -v s16="${size_ms[16]}" -v s256="${size_ms[256]}" -v s1024="${size_ms[1024]}" '
function verdict(ok) { return ok ? "met" : "MISSED" }
BEGIN {
	printf "locus / raw tree-sitter      %6.2fx  (target <= 1.5x)   %s\n", l/ts, verdict(l/ts <= 1.5)
	printf "locus / shfmt                %6.2fx  (target <= 1.0x)   %s\n", l/sh, verdict(l/sh <= 1.0)
	printf "locus / bash -n              %6.2fx  (for scale)\n", l/bn
	printf "one-line process             %6.2f ms (target <= 2 ms)  %s   [/bin/true: %.2f ms]\n", one, verdict(one <= 2.0), tr
	printf "peak RSS on the batch        %6.1f MB (target <= 16 MB) %s\n", rss/1024, verdict(rss/1024 <= 16)
	printf "per-KiB cost 1K/16K/256K/1M  %.3f / %.3f / %.3f / %.3f ms per KiB (linear when flat)\n", s1/1, s16/16, s256/256, s1024/1024
}'
