#!/usr/bin/env bash
# tests/test_tsan.sh - `--jobs N` under ThreadSanitizer.
#
# The test build is ASan+UBSan, which cannot be mixed with TSan, so this
# builds its own copy of `locus` with -Db_sanitize=thread in a separate
# meson build folder (BUILD/tsan-build, kept between runs so later runs
# only recompile what changed), then runs `locus classify --jobs 4` on
# every command line of the golden corpus, `locus corpus --jobs 4` and
# `locus audit transcripts --jobs 4` on the recorded sessions, and the
# arena suite (tests/test_arena.c: results freed on another thread than
# their parser's, through the pool's lock-free stack), with TSan halting
# on the first report.  Each output must be byte-identical to
# --jobs 1.  Exit 77 (skipped, never passed) when TSan cannot run a
# threaded program here.
set -u
src=${LOCUS_SOURCE_ROOT:?}
build=${1:?usage: test_tsan.sh BUILD_DIR}
tsan=$build/tsan-build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL - $*"; exit 1; }

# 1. Can TSan run here at all?  (A racy program must be reported.)
cat > "$work/race.c" <<'C'
#include <pthread.h>
int x;
static void *f(void *p) { (void)p; x++; return 0; }
int main(void) { pthread_t a, b; pthread_create(&a, 0, f, 0);
  pthread_create(&b, 0, f, 0); pthread_join(a, 0); pthread_join(b, 0);
  return 0; }
C
if ! ${CC:-cc} -fsanitize=thread -g -O1 "$work/race.c" -o "$work/race" 2>"$work/cc.err"; then
	echo "SKIPPED (not passed): the compiler cannot build with -fsanitize=thread:"
	cat "$work/cc.err"
	exit 77
fi
TSAN_OPTIONS=exitcode=66 "$work/race" >/dev/null 2>"$work/race.err"
rc=$?
if [ $rc -ne 66 ]; then
	echo "SKIPPED (not passed): ThreadSanitizer does not run here (exit $rc):"
	head -5 "$work/race.err"
	exit 77
fi
echo "ok - ThreadSanitizer runs here and reports a planted race"

# 2. The TSan build of locus (its own meson build folder).
if [ ! -f "$tsan/build.ninja" ]; then
	meson setup "$tsan" "$src" --buildtype=debugoptimized \
		-Db_sanitize=thread -Dtests=true -Dwerror=false >"$work/setup.log" 2>&1 ||
		{ cat "$work/setup.log"; fail "meson setup of the TSan build"; }
fi
# (a folder made before the arena suite was added has tests off)
meson configure "$tsan" -Dtests=true >"$work/configure.log" 2>&1 ||
	{ cat "$work/configure.log"; fail "meson configure of the TSan build"; }
ninja -C "$tsan" locus tests/test_arena >"$work/ninja.log" 2>&1 ||
	{ tail -30 "$work/ninja.log"; fail "building locus with TSan"; }
bin=$tsan/locus
echo "ok - locus and the arena suite built with -fsanitize=thread"

export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
same() { # what, then the two files
	if cmp -s "$2" "$3"; then echo "ok - $1"; else
		diff "$2" "$3" | head -10; fail "$1"; fi
}
run() { # out-file err-file command...: TSan must stay quiet
	local out=$1 err=$2; shift 2
	"$@" >"$out" 2>"$err"
	local rc=$?
	if grep -q "ThreadSanitizer" "$err"; then
		head -60 "$err"; fail "TSan report: $*"
	fi
	return $rc
}

# 3. The arena suite: the parser's block pool shared with results freed on
#    other threads (Check's own output on stdout, TSan's on stderr).
run "$work/arena.out" "$work/arena.err" "$tsan/tests/test_arena" ||
	{ cat "$work/arena.out" "$work/arena.err" | tail -20; fail "test_arena under TSan"; }
echo "ok - the arena suite under TSan: $(grep -o 'Checks: [0-9]*, Failures: [0-9]*, Errors: [0-9]*' "$work/arena.out")"

# 4. classify: every command line of the corpus, plain and --jsonl.
grep -h '^\$ ' "$src"/corpus/shell/*.txt | cut -c3- > "$work/lines"
n=$(wc -l < "$work/lines")
[ "$n" -gt 500 ] || fail "too few corpus lines ($n)"
cp "$work/lines" "$work/lines3"
run "$work/c1" "$work/e1" "$bin" classify --root "$src" < "$work/lines3"; r1=$?
run "$work/c4" "$work/e4" "$bin" classify --root "$src" --jobs 4 < "$work/lines3"; r4=$?
[ "$r1" = "$r4" ] || fail "classify exit $r1 vs $r4"
same "classify --jobs 4: $n lines, the bytes of --jobs 1" "$work/c1" "$work/c4"
same "and the same stderr" "$work/e1" "$work/e4"
/usr/bin/python3 -c '
import json, sys
for l in open(sys.argv[1], encoding="utf-8", errors="surrogateescape"):
    print(json.dumps({"command": l.rstrip("\n")}, ensure_ascii=True))
print("not json")
print(json.dumps({"tool": "read", "arguments": {"path": "/etc/passwd"}}))
' "$work/lines" > "$work/jsonl"
run "$work/j1" "$work/f1" "$bin" classify --jsonl --root "$src" < "$work/jsonl"; r1=$?
run "$work/j4" "$work/f4" "$bin" classify --jsonl --root "$src" --jobs 3 < "$work/jsonl"; r4=$?
[ "$r1" = 2 ] && [ "$r4" = 2 ] || fail "classify --jsonl exit $r1 vs $r4 (want 2: a bad line)"
same "classify --jsonl --jobs 3: the bytes of --jobs 1" "$work/j1" "$work/j4"
same "and the same stderr" "$work/f1" "$work/f4"

# 5. corpus: the whole golden corpus.
run "$work/k1" "$work/g1" "$bin" corpus "$src/corpus"; r1=$?
run "$work/k4" "$work/g4" "$bin" corpus --jobs 4 "$src/corpus"; r4=$?
[ "$r1" = "$r4" ] || fail "corpus exit $r1 vs $r4"
same "corpus --jobs 4: the bytes of --jobs 1 ($(tail -1 "$work/k1"))" "$work/k1" "$work/k4"

# 6. audit transcripts: the recorded sessions.
run "$work/a1" "$work/h1" "$bin" audit transcripts --quiet --format jsonl \
	"$src/tests/transcripts"; r1=$?
run "$work/a4" "$work/h4" "$bin" audit transcripts --quiet --format jsonl \
	--jobs 4 "$src/tests/transcripts"; r4=$?
[ "$r1" = "$r4" ] || fail "audit exit $r1 vs $r4"
[ -s "$work/a1" ] || fail "audit printed nothing"
same "audit transcripts --jobs 4: the bytes of --jobs 1 ($(wc -l < "$work/a1") records)" \
	"$work/a1" "$work/a4"
echo "ok - no ThreadSanitizer report"
