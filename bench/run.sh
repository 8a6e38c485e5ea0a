#!/usr/bin/env bash
# The benchmark (docs/benchmark.md).
#     bash bench/run.sh [RUNS]
# Builds its own release build with the helpers (build-bench/, -Dbench=true),
# makes the batch if missing (bench/make_batch.sh: 10,000 distinct lines),
# and prints each figure with its target, met or missed:
#   - callgrind instruction counts (repeatable: the noise-free figure) of
#     locus, locus without the fast path, and raw tree-sitter on the batch;
#   - CPU time, paired: RUNS rounds, each running locus then the baseline
#     back to back, the median of the per-round ratios (the machine is shared
#     and noisy; a pair sees the same load);
#   - the one-line process (`locus classify "git status --short"`, the hook
#     path), peak RSS on the batch, and single 1/16/256/1024 KiB scripts.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
B=build-bench
if [ ! -f $B/build.ninja ]; then
	meson setup $B --buildtype=release -Dtests=false -Dbench=true >/dev/null
fi
ninja -C $B >/dev/null
command -v shfmt >/dev/null || { echo "shfmt missing (bash .ci/setup)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "valgrind missing (bash .ci/setup)" >&2; exit 2; }

out=bench/out
mkdir -p $out
# BATCH=FILE measures another batch (bench/batch2/lines.txt: lines the
# project never tuned on); the default is make_batch.sh's
if [ -z "${BATCH:-}" ]; then
	[ -s $out/batch.txt ] || bash bench/make_batch.sh
fi
batch=${BATCH:-$out/batch.txt}
lines=$(wc -l < $batch)
distinct=$(sort -u $batch | wc -l)
locus=$B/locus
timeit=$B/bench/timeit
ts=$B/bench/ts_raw

field() { sed "s/.*$1=\([0-9.]*\).*/\1/" <<<"$2"; }

# Instructions of one command under callgrind (stdin from $1, or /dev/null).
instr() {
	local in=$1; shift
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" \
		< "$in" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

# Paired CPU ratio: RUNS rounds of A then B; prints "median_ratio A_ms B_ms".
# A and B are given as two strings "STDIN_FILE CMD ARGS..." (env VAR=... via env).
paired() {
	local a=$1 b=$2 ratios=() as=() bs=()
	for ((r = 0; r < runs; r++)); do
		# shellcheck disable=SC2086
		local ra rb
		ra=$($timeit -n 1 -i ${a%% *} -- ${a#* })
		rb=$($timeit -n 1 -i ${b%% *} -- ${b#* })
		as+=("$(field cpu_ms "$ra")")
		bs+=("$(field cpu_ms "$rb")")
		ratios+=("$(awk -v x="${as[-1]}" -v y="${bs[-1]}" 'BEGIN { printf "%.4f", x / y }')")
	done
	med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
	echo "$(med "${ratios[@]}") $(med "${as[@]}") $(med "${bs[@]}")"
}

echo "machine: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); batch: $lines lines, $distinct distinct; $runs paired rounds"
echo "fast path reads $($B/bench/fastpath_share $batch) of the batch"

# Byte-identical output with and without the fast path, on the batch.
$locus classify < $batch > $out/fast.jsonl || true
LOCUS_FASTPATH=0 $locus classify < $batch > $out/tree.jsonl || true
if cmp -s $out/fast.jsonl $out/tree.jsonl; then
	echo "outputs with and without the fast path: identical"
else
	echo "outputs with and without the fast path DIFFER" >&2; exit 1
fi

echo
echo "== instructions (callgrind, whole batch) =="
i_locus=$(instr $batch $locus classify)
i_tree=$(LOCUS_FASTPATH=0 instr $batch $locus classify)
i_ts=$(instr /dev/null $ts $batch)
i_one=$(instr /dev/null $locus classify "git status --short")
i_true=$(instr /dev/null /bin/true)
awk -v l="$i_locus" -v t="$i_tree" -v s="$i_ts" -v o="$i_one" -v tr="$i_true" -v n="$lines" '
function v(ok) { return ok ? "met" : "MISSED" }
BEGIN {
	printf "locus                      %12.0f  (%6.0f per line)\n", l, l / n
	printf "locus, no fast path        %12.0f  (%6.0f per line)\n", t, t / n
	printf "raw tree-sitter            %12.0f  (%6.0f per line)\n", s, s / n
	printf "locus / raw tree-sitter        %6.2fx  target <= 1.5x  %s\n", l / s, v(l / s <= 1.5)
	printf "  without the fast path        %6.2fx\n", t / s
	printf "one-line process           %12.0f  (/bin/true %.0f)\n", o, tr
}'

echo
echo "== CPU time (paired rounds, medians) =="
read -r r_ts c_locus c_ts < <(paired "$batch $locus classify" "/dev/null $ts $batch")
read -r r_tree c_tree _ < <(paired "$batch env LOCUS_FASTPATH=0 $locus classify" "/dev/null $ts $batch")
read -r r_sh _ c_sh < <(paired "$batch $locus classify" "/dev/null shfmt $batch")
awk -v r="$r_ts" -v rt="$r_tree" -v rs="$r_sh" -v a="$c_locus" -v b="$c_ts" -v c="$c_tree" -v d="$c_sh" '
function v(ok) { return ok ? "met" : "MISSED" }
BEGIN {
	printf "locus %.0f ms, no fast path %.0f ms, raw tree-sitter %.0f ms, shfmt %.0f ms\n", a, c, b, d
	printf "locus / raw tree-sitter        %6.2fx  target <= 1.5x  %s\n", r, v(r <= 1.5)
	printf "  without the fast path        %6.2fx\n", rt
	printf "locus / shfmt                  %6.2fx  (for scale)\n", rs
}'

echo
echo "== one-line process and memory =="
one=$($timeit -n $((runs * 5)) -- $locus classify "git status --short")
tru=$($timeit -n $((runs * 5)) -- /bin/true)
big=$($timeit -n 3 -i $batch -- $locus classify)
awk -v o="$(field median_ms "$one")" -v oc="$(field cpu_ms "$one")" -v t="$(field median_ms "$tru")" \
    -v rss="$(field maxrss_kb "$big")" -v orss="$(field maxrss_kb "$one")" '
function v(ok) { return ok ? "met" : "MISSED" }
BEGIN {
	printf "one-line process  %.2f ms wall, %.2f ms CPU (/bin/true %.2f ms)  target <= 1.5 ms  %s\n", o, oc, t, v(o <= 1.5)
	printf "peak RSS: batch %.1f MB, one line %.1f MB  target <= 16 MB  %s\n", rss / 1024, orss / 1024, v(rss / 1024 <= 16)
}'

# Single inputs of growing size: a realistic script made of everyday agent
# lines (corpus/everyday) that locus parses on their own (one line with a
# syntax error would make the whole script unparsed early and flatter the
# figure; the batch's hostile corpus lines trip line-level rules when joined),
# fed as one command through --jsonl; the same text parsed whole by ts_raw -w.
echo
echo "== single scripts =="
if [ ! -s $out/parsed-lines.txt ]; then
	/usr/bin/python3 -c 'import json, sys
for l in open(sys.argv[1]):
    s = json.loads(l)
    if "\n" not in s: print(s)' corpus/everyday/agent-lines.jsonl > $out/everyday.txt
	$locus classify < $out/everyday.txt | paste -d '\t' - $out/everyday.txt |
		awk -F '\t' 'index($1, "\"parsed\":true") { print $2 }' > $out/parsed-lines.txt
fi
for kib in 1 16 256 1024; do
	f=$out/single-$kib
	if [ ! -s $f.jsonl ]; then
		node -e '
			const fs = require("fs");
			const lines = fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean);
			/* under the 1 MiB input limit with room for the last line
			   (a 1 KiB script was empty: 1024 - 1024) */
			const want = Math.min(Number(process.argv[2]) * 1024, 1048576 - 1024);
			let s = "", i = 0;
			/* `;` before each newline: a multi-stage pipeline followed by a
			   line with && is a known grammar misparse (S6 in docs/design.md) that
			   would make the whole script unparsed */
			const sep = (l) => /&\s*$/.test(l) ? "\n" : ";\n";
			for (;;) {
				const l = lines[i++ % lines.length];
				if (Buffer.byteLength(s) + Buffer.byteLength(l) + 2 >= want) break;
				s += l + sep(l);
			}
			fs.writeFileSync(process.argv[3] + ".sh", s);
			process.stdout.write(JSON.stringify({command: s}) + "\n");' \
			$out/parsed-lines.txt $kib $f > $f.jsonl
	fi
	n=$((kib >= 256 ? 3 : runs))
	rl=$($timeit -n $n -i $f.jsonl -- $locus classify --jsonl)
	rt=$($timeit -n $n -- $ts -w $f.sh)
	state=$($locus classify --jsonl < $f.jsonl | grep -o '"parsed":[a-z]*\|"unparsed_reason":"[^"]*"' | head -2 | tr '\n' ' ')
	awk -v k=$kib -v a="$(field cpu_ms "$rl")" -v b="$(field cpu_ms "$rt")" -v r="$(field maxrss_kb "$rl")" -v s="$state" '
	BEGIN { printf "%5d KiB  locus %8.1f ms CPU (%.2f ms/KiB, peak RSS %.1f MB), raw tree-sitter %8.1f ms: %.2fx  %s\n", k, a, a / k, r / 1024, b, a / b, s }'
done

# Memory per input byte: the realistic 1 MiB script and
# the worst shapes through tree-sitter, one process each, judged whole
# (bench/bigline: budget 60 s; heap = the parse's growth through the
# allocator hook, which its 96 MiB budget counts).
echo
echo "== memory per input byte (bigline) =="
bl=$B/bench/bigline
$bl $out/single-1024.sh | sed 's/^/realistic 1 MiB  /'
LOCUS_FASTPATH=0 $bl $out/single-1024.sh | sed 's/^/  no fast path   /'
for shape in "pipe 20000" "pipe 100000" "semi 100000" "subst 40000"; do
	# shellcheck disable=SC2086
	LOCUS_FASTPATH=0 $bl -s $shape | sed "s/^/${shape// /:} (tree-sitter)  /"
done
$bl -s pipe 100000 | sed 's/^/pipe:100000 (fast path)  /'
