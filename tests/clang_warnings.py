#!/usr/bin/env python3
"""tests/clang_warnings.py BUILD_ROOT SOURCE_ROOT - the extra-warnings build.

Compiles every C file of ours that the build compiles (library, CLI, tests,
fuzz targets; not tree-sitter from node_modules, not generated sources) with
clang -fsyntax-only, the build's own flags (compile_commands.json) and
-Wshadow -Wcast-qual -Wcomma -Wformat=2 -Wmissing-prototypes.
Any warning fails the test.  Exits 77 (meson: skipped) only when clang is
not installed (.ci/setup installs it).
"""
import concurrent.futures
import json
import os
import shlex
import shutil
import subprocess
import sys

EXTRA = ["-Wshadow", "-Wcast-qual", "-Wcomma", "-Wformat=2",
         "-Wmissing-prototypes"]
# gcc-only or output flags of the build that clang -fsyntax-only must not get
DROP = {"-c", "-MD", "-Werror", "-Wno-format-truncation", "-pipe"}
DROP_WITH_VALUE = {"-o", "-MF", "-MQ", "-MT"}
DROP_PREFIX = ("-fsanitize", "-fdiagnostics-color", "-fno-sanitize")


def clang_args(command, clang):
    out, skip = [clang], False
    words = shlex.split(command)
    # a compiler launcher (ccache, configured machine-wide) before the compiler
    if os.path.basename(words[0]) in ("ccache", "sccache"):
        words = words[1:]
    for a in words[1:]:
        if skip:
            skip = False
        elif a in DROP_WITH_VALUE:
            skip = True
        elif a not in DROP and not a.startswith(DROP_PREFIX):
            out.append(a)
    return out + ["-fsyntax-only", "-ferror-limit=0",
                  "-fno-diagnostics-color"] + EXTRA


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    build, src = (os.path.realpath(p) for p in sys.argv[1:])
    clang = shutil.which("clang")
    if not clang:
        print("SKIP: clang is not installed (.ci/setup installs it)")
        return 77
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    jobs, seen = [], set()
    for e in entries:
        path = os.path.realpath(os.path.join(e["directory"], e["file"]))
        rel = os.path.relpath(path, src)
        if rel.startswith("..") or rel.startswith("node_modules/") or \
                path.startswith(build + os.sep) or path in seen:
            continue
        seen.add(path)
        jobs.append((rel, e["directory"], clang_args(e["command"], clang)))
    if not jobs:
        print("FAIL: no C file of ours in %s/compile_commands.json" % build)
        return 1

    def run(job):
        rel, cwd, args = job
        r = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
        return rel, r.returncode, r.stderr

    warnings, failed = set(), []
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for rel, rc, err in pool.map(run, jobs):
            if rc:
                failed.append(rel)
            for line in err.splitlines():
                if ": warning: " in line or ": error: " in line:
                    warnings.add(line)
    for w in sorted(warnings):
        print(w)
    print("%d files, %d warnings, %d failed to compile" %
          (len(jobs), len(warnings), len(failed)))
    return 1 if warnings or failed else 0


if __name__ == "__main__":
    sys.exit(main())
