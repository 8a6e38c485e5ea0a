#!/usr/bin/env bash
# valgrind memcheck over `locus classify` on a sample of the bench batch,
# with and without the fast path: reads of memory never written (which
# ASan does not report) fail the run.  The parser's pooled arena blocks are
# marked undefined when reused (parser/pool.c), so this covers reused
# memory as well as fresh.
#
#   bash bench/memcheck.sh [LOCUS] [EVERY_NTH_LINE]
#
# LOCUS defaults to build/locus; a build with symbols (build-prof, see
# TEAM.md) names the frames of a report.  Exit 0 when clean.
set -euo pipefail
cd "$(dirname "$0")/.."
locus=${1:-build/locus}
nth=${2:-10}
[ -s bench/out/batch.txt ] || bash bench/make_batch.sh
sample=$(mktemp)
trap 'rm -f "$sample"' EXIT
awk -v n="$nth" 'NR % n == 0' bench/out/batch.txt > "$sample"
status=0
for fp in 1 0; do
	if LOCUS_FASTPATH=$fp valgrind -q --error-exitcode=1 \
	    --suppressions=bench/pcre2-jit.supp "$locus" classify \
	    < "$sample" > /dev/null; then
		echo "memcheck clean: $(wc -l < "$sample") lines, LOCUS_FASTPATH=$fp"
	else
		echo "memcheck REPORTS: LOCUS_FASTPATH=$fp" >&2
		status=1
	fi
done
exit $status
