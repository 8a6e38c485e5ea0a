#!/usr/bin/env bash
# fuzz/campaign.sh - run every libFuzzer target for a set time, keeping the
# corpora between runs (docs/fuzzing.md, "Campaigns").
#
#   bash fuzz/campaign.sh [--seconds S] [--jobs J] [--out DIR] [TARGET...]
#
# --seconds S   per target (default 3600: the release campaign)
# --jobs J      targets run at once (default 1; the CI uses 2)
# --out DIR     where the corpora, findings and logs live (default
#               fuzz/out, ignored by git): DIR/corpus/TARGET grows from
#               run to run, DIR/findings/TARGET/ holds crash-*, leak-*,
#               timeout-* and oom-* inputs (and libFuzzer's slow-unit-*:
#               a unit past 10 s, counted and shown apart, no failure:
#               the parse budgets are part of the targets' contract),
#               DIR/logs/TARGET.log the last
#               run's output, DIR/campaign.tsv one line per run:
#               date target seconds executions findings
# TARGET...     default: every target of fuzz/meson.build
#
# The build is build-fuzz (clang, ASan+UBSan, -Dfuzzing=true), made here
# when it is missing.  Exit status: 0 when no target found anything, 1
# when one did (its inputs are in DIR/findings), 2 for a usage or build
# error.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=3600
jobs=1
out=fuzz/out
targets=()
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h | --help) sed -n '2,21p' "$0"; exit 0 ;;
	-*) echo "campaign.sh: unknown option $1" >&2; exit 2 ;;
	*) targets+=("$1"); shift ;;
	esac
done
case "$seconds$jobs" in
*[!0-9]*) echo "campaign.sh: --seconds and --jobs take numbers" >&2; exit 2 ;;
esac
all=(fuzz_shell fuzz_json fuzz_policy fuzz_gate fuzz_grpc fuzz_mcp
	fuzz_fastpath fuzz_runner)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

if [ ! -f build-fuzz/build.ninja ]; then
	CC=clang meson setup build-fuzz -Dfuzzing=true \
		-Db_sanitize=address,undefined -Db_lundef=false >/dev/null ||
		{ echo "campaign.sh: cannot set up build-fuzz (clang?)" >&2; exit 2; }
fi
ninja -C build-fuzz $(printf 'fuzz/%s ' "${targets[@]}") >/dev/null ||
	{ echo "campaign.sh: the fuzz build failed" >&2; exit 2; }

mkdir -p "$out/corpus" "$out/findings" "$out/logs"
out=$(cd "$out" && pwd)

# One target: its kept corpus, then the committed seeds (read, never
# written); libFuzzer's final stats give the executions.
run_one() {
	local t=$1 corpus="$out/corpus/$1" found="$out/findings/$1"
	mkdir -p "$corpus" "$found"
	local before slow_before
	before=$(find "$found" -type f ! -name 'slow-unit-*' | wc -l)
	slow_before=$(find "$found" -type f -name 'slow-unit-*' | wc -l)
	local rc=0
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"build-fuzz/fuzz/$t" -max_total_time="$seconds" -timeout=25 \
		-rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
		-artifact_prefix="$found/" "$corpus" "fuzz/$t/corpus" \
		>"$out/logs/$t.log" 2>&1 || rc=$?
	local execs secs after
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
		"$out/logs/$t.log" | tail -n 1)
	secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' \
		"$out/logs/$t.log" | tail -n 1)
	after=$(find "$found" -type f ! -name 'slow-unit-*' | wc -l)
	local slow
	slow=$(($(find "$found" -type f -name 'slow-unit-*' | wc -l) - slow_before))
	printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" \
		"${secs:-?}" "${execs:-?}" "$((after - before))" \
		>>"$out/campaign.tsv"
	printf '%-14s %6ss %12s executions, %d new findings%s%s\n' "$t" \
		"${secs:-?}" "${execs:-?}" "$((after - before))" \
		"$([ "$slow" = 0 ] || echo ", $slow slow units (no failure)")" \
		"$([ "$rc" = 0 ] || echo " (exit $rc: see $out/logs/$t.log)")"
	[ "$rc" = 0 ] && [ "$after" = "$before" ]
}

status=0
pids=()
for t in "${targets[@]}"; do
	run_one "$t" &
	pids+=($!)
	if [ ${#pids[@]} -ge "$jobs" ]; then
		wait "${pids[0]}" || status=1
		pids=("${pids[@]:1}")
	fi
done
for p in "${pids[@]}"; do
	wait "$p" || status=1
done
exit $status
