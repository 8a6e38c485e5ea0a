#!/usr/bin/env bash
# The speed target on both batches in one command (docs/benchmark.md,
# "Both batches"): locus classify against a raw tree-sitter parse and walk
# of the same lines (bench/ts_raw), as instruction counts and as CPU time.
#
#     bash bench/ratios.sh [RUNS]        RUNS paired CPU rounds, 11 by default
#
# Sets: the project's batch (bench/make_batch.sh), batch 2 whole
# (bench/batch2/lines.txt, never tuned on), and batch 2's two halves: the
# odd lines (1, 3, 5, ...: the half profiled while making locus faster) and
# the even lines (the held-out half, measured only).  For each set:
#   - instructions: callgrind, whole process, locus and ts_raw, and their
#     ratio (repeatable on a loaded machine);
#   - CPU: RUNS paired rounds (locus then ts_raw back to back, user +
#     system time from wait4), the median of the per-round ratios and the
#     median milliseconds of each side (meaningful on a quiet machine only).
# Targets: at most 1.2x instructions and 1.3x CPU on every set.
# The locus output of every set must be the same with and without the
# fast path (checked first).  INSTR_ONLY=1 skips the CPU rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-11}
B=build-bench
if [ ! -f $B/build.ninja ]; then
	meson setup $B --buildtype=release -Dtests=false -Dbench=true >/dev/null
fi
ninja -C $B >/dev/null
command -v valgrind >/dev/null || { echo "valgrind missing (bash .ci/setup)" >&2; exit 2; }
out=bench/out
mkdir -p $out
[ -s $out/batch.txt ] || bash bench/make_batch.sh >/dev/null
awk 'NR % 2 == 1' bench/batch2/lines.txt > $out/batch2-tune.txt
awk 'NR % 2 == 0' bench/batch2/lines.txt > $out/batch2-held.txt
locus=$B/locus ts=$B/bench/ts_raw timeit=$B/bench/timeit

instr() {
	local in=$1; shift
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" \
		< "$in" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
field() { sed "s/.*$1=\([0-9.]*\).*/\1/" <<<"$2"; }
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); main at $(git rev-parse --short HEAD); $runs paired CPU rounds"
printf '%-34s %7s %9s %9s %7s   %8s %8s %7s\n' set lines "locus Mi" "ts Mi" "instr" "locus ms" "ts ms" "CPU"
for set in "batch:$out/batch.txt" "batch 2:bench/batch2/lines.txt" \
	"batch 2, odd lines (profiled):$out/batch2-tune.txt" \
	"batch 2, even lines (held out):$out/batch2-held.txt"; do
	name=${set%%:*} file=${set#*:}
	$locus classify < "$file" > $out/ratios-fast.jsonl || true
	LOCUS_FASTPATH=0 $locus classify < "$file" > $out/ratios-tree.jsonl || true
	cmp -s $out/ratios-fast.jsonl $out/ratios-tree.jsonl ||
		{ echo "$name: outputs with and without the fast path DIFFER" >&2; exit 1; }
	il=$(instr "$file" $locus classify)
	it=$(instr /dev/null $ts "$file")
	cl=- ct=- cr=-
	if [ -z "${INSTR_ONLY:-}" ]; then
		rs=() as=() bs=()
		for ((r = 0; r < runs; r++)); do
			a=$(field cpu_ms "$($timeit -n 1 -i "$file" -- $locus classify)")
			b=$(field cpu_ms "$($timeit -n 1 -- $ts "$file")")
			as+=("$a") bs+=("$b")
			rs+=("$(awk -v x="$a" -v y="$b" 'BEGIN { printf "%.4f", x / y }')")
		done
		cl=$(printf '%s\n' "${as[@]}" | med)
		ct=$(printf '%s\n' "${bs[@]}" | med)
		cr=$(printf '%s\n' "${rs[@]}" | med)
	fi
	awk -v n="$name" -v k="$(wc -l < "$file")" -v l="$il" -v t="$it" \
	    -v cl="$cl" -v ct="$ct" -v cr="$cr" 'BEGIN {
		c = cr == "-" ? "      -" : sprintf("%6.2fx", cr)
		printf "%-34s %7d %9.0f %9.0f %6.2fx   %8s %8s %s\n", n, k, l / 1e6, t / 1e6, l / t, cl, ct, c
	}'
done
echo "targets: instructions <= 1.2x, CPU <= 1.3x (paired median) on every set"
