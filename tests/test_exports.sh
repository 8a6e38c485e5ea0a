#!/usr/bin/env bash
# tests/test_exports.sh - liblocus.so exports the public API and nothing
# else (docs/api.md "API and ABI policy").
#
#   test_exports.sh LIBLOCUS.so INCLUDE_DIR SONAME
#
# Fails when a defined dynamic symbol is not a locus_* name (tree-sitter's
# ts_*, nanopb's pb_*, the lp_/lh_/ll_ internals would clash with other
# libraries in one process, py-tree-sitter's in Python), when a function or
# table declared LOCUS_API in include/locus/*.h is not exported, or when the
# SONAME is not the versioned one.  In sanitizer builds ASan adds one
# `__odr_asan.NAME` indicator per exported global; it is accepted for a
# locus_ NAME only.
set -euo pipefail
lib=$1 inc=$2 soname=$3
command -v nm >/dev/null || { echo "no nm"; exit 77; }
fail=0

exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
[ -n "$exported" ] || { echo "FAIL: $lib exports nothing"; exit 1; }
bad=$(grep -v -E '^(locus_[a-z0-9_]+|__odr_asan\.locus_[a-z0-9_]+)$' \
	<<<"$exported" || true)
if [ -n "$bad" ]; then
	echo "FAIL: $(wc -l <<<"$bad") symbols other than locus_* exported:"
	head -20 <<<"$bad"
	fail=1
fi

# Every LOCUS_API declaration names a symbol the library exports: the name
# is the first locus_ identifier followed by `(` or `[` after the macro
# (the declaration may wrap onto the next line).
declared=$(cat "$inc"/*.h | tr '\n' ' ' |
	grep -o -E 'LOCUS_API [^;]*' |
	grep -o -E 'locus_[a-z0-9_]+ *[[(]' | tr -d ' [(' | sort -u)
ndecl=$(wc -l <<<"$declared")
[ "$ndecl" -ge 100 ] || { echo "FAIL: only $ndecl LOCUS_API names read"; fail=1; }
missing=$(comm -23 <(echo "$declared") <(grep '^locus_' <<<"$exported"))
if [ -n "$missing" ]; then
	echo "FAIL: declared LOCUS_API but not exported:"
	echo "$missing"
	fail=1
fi
# ...and nothing locus_ is exported that no header declares.
extra=$(comm -13 <(echo "$declared") <(grep '^locus_' <<<"$exported"))
if [ -n "$extra" ]; then
	echo "FAIL: exported but not declared LOCUS_API in $inc:"
	echo "$extra"
	fail=1
fi

got=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$got" != "$soname" ]; then
	echo "FAIL: SONAME '$got', expected '$soname'"
	fail=1
fi
[ "$fail" = 0 ] && echo "ok: $ndecl locus_* symbols exported, nothing else; SONAME $got"
exit "$fail"
