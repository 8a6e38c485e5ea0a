#!/usr/bin/env python3
"""The layering test (docs/design.md, "Target layout"): no dependency runs up the layers,
and no two files need each other.

  test_layers.py BUILD_DIR SOURCE_ROOT

Two views of the same rule, both from the build, none from a hand-kept list of files:

- includes: every `#include "..."` of every C file of ours (compile_commands.json),
  resolved as the compiler does (the including file's folder first, then the source
  root); a file may include headers of its own folder, of a folder below it, and the
  public API (include/locus/), and no files may include each other;
- executables: the `locus` executable needs none of GATEWAY_ONLY's libraries
  (readelf -d): they are locus-gateway's (cli/gateway_exec.c);
- fork children: the files of FORK_CHILD (code run in a child forked from a process that
  may have threads) use only the async-signal-safe symbols of AS_SAFE (nm);
- symbols: every object file of ours (nm): file A depends on file B when A uses a symbol
  B defines.  A dependency may not run up the layers, and the file graph may have no
  cycle (two or more files that need each other) outside the groups of CYCLES_OK
  (only the parser's recursion).  A recursion outside the parser is inverted: the
  lower file gets the upper entry as a function pointer it is given (the labeller's
  ll_context, the gateway's box ops), which is no symbol dependency.

KNOWN_UP is empty: every dependency up the layers fails the test.  (Should one ever
have to be let through for a while, it goes there with what removes it, and comes off
when it no longer occurs: the test fails on a stale entry too.)

Exit 0 when both hold, 1 with every violation listed.
"""
import json
import os
import re
import subprocess
import sys

# Bottom to top; a folder may use its own files and the folders before it.
LAYERS = ['util', 'knowledge', 'parser', 'labels', 'policy', 'net', 'backends', 'harness',
          'agents', 'runner', 'gateway', 'cli']
RANK = {name: i for i, name in enumerate(LAYERS)}
PUBLIC = 'include/locus'
# The folders that are not layers of the product: tests, fuzz targets and benchmarks
# may use anything; nothing of the product may use them.
OUTSIDE = {'tests', 'fuzz', 'bench', 'python'}

# Dependencies up the layers let through for a while, each with what removes
# it (none now).  An entry that no longer occurs fails the test too.
KNOWN_UP = {}

# Groups of files allowed to need each other (a cycle must lie inside one
# group: a folder prefix, or a tuple of exact files), with the reason.  A
# group with no cycle left in it fails the test too (take it off).
CYCLES_OK = {
    # The parser's recursion: a nested line ($(...), bash -c '...', eval,
    # a here-document run by a shell, git's aliases) is parsed again from
    # the walk, the see-through and the word expansion; word expansion reads
    # variables whose values are words (docs/design.md, "The parser").
    'parser/': 'the parser\'s recursion',
}

# Code that runs in a child forked from a process that may have threads (an
# MCP server's workers, a test's watcher) may call only what is
# async-signal-safe: a lock another thread held at the fork (the allocator's;
# ASan's is not reset at fork) is never released in the child, and one
# malloc, opendir or snprintf there can wait for ever (the harness suite's
# CI hang, backends/supervise.c).  Each file's object may use the symbols
# below and nothing else: POSIX's async-signal-safe functions and Linux
# system calls it uses, our own helpers that are only system calls, and
# what the sanitizers and coverage add.
FORK_CHILD = {'backends/supervise.c'}
AS_SAFE = {
    '_exit', 'close', 'dup2', 'execl', 'execve', 'fchdir', 'fcntl', 'fcntl64',
    '_Fork', 'getpid', 'getppid', 'kill', 'nanosleep', 'open', 'open64', 'pipe2',
    'poll', 'prctl', 'read', 'setpgid', 'setrlimit', 'setrlimit64', 'setsid',
    'sigaddset', 'sigemptyset', 'signal', 'signalfd', 'sigprocmask', 'syscall',
    'waitpid', 'write', '__errno_location',
    'lu_write_all',  # util/write.c: write() until done, EINTR retried
}
AS_SAFE_PREFIXES = ('__asan_', '__ubsan_', '__sanitizer_', '__gcov_', '__tsan_',
                    '_GLOBAL_OFFSET_TABLE_', '__stack_chk_fail')


def fork_child_violations(objects):
    """Symbols a FORK_CHILD file's object uses that are not async-signal-safe."""
    files = sorted(f for f in FORK_CHILD if f in objects)
    bad = ['fork child: %s is not built (FORK_CHILD names it)' % f
           for f in sorted(FORK_CHILD - set(files))]
    if not files:
        return bad
    for obj, syms in nm([objects[f] for f in files], '--undefined-only').items():
        src = next(f for f in files if objects[f] == obj)
        for sym in sorted(set(syms)):
            if sym not in AS_SAFE and not sym.startswith(AS_SAFE_PREFIXES):
                bad.append('fork child: %s calls %s, which is not async-signal-safe'
                           % (src, sym))
    return bad


# The gateway's libraries, linked into locus-gateway only: loaded by `locus` they
# cost every process (one per tool call under the hooks) ~6 ms of CPU and ~12M
# instructions before main (docs/benchmark.md).
GATEWAY_ONLY = ('libmicrohttpd', 'libsqlite3', 'libpq')


def executable_violations(build):
    """Gateway libraries the `locus` executable needs (readelf -d)."""
    exe = os.path.join(build, 'locus')
    if not os.path.isfile(exe):
        return ['executables: %s is not built' % exe]
    out = subprocess.run(['readelf', '-d', exe], check=True, capture_output=True,
                         text=True).stdout
    needed = re.findall(r'\(NEEDED\)\s+Shared library: \[([^\]]+)\]', out)
    if not needed:
        return ['executables: readelf -d %s lists no NEEDED library' % exe]
    return ['executables: locus needs %s, a library of locus-gateway only' % n
            for n in needed if n.startswith(GATEWAY_ONLY)]


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# One home per helper (docs/design.md, util/): a C file of the folders named
# that writes one of these again fails, unless it is one of the files let
# through (the helper's home first).  The programs built alone (no library of
# ours linked) are exempt.
ONE_HOME = [
    (re.compile(r'\bCLOCK_MONOTONIC\b'), set(LAYERS) | {'fuzz'}, {'util/clock.c'},
     'reads CLOCK_MONOTONIC itself: use util/clock.h (lu_now, lu_deadline_ms)'),
    # a read into `buf + n`: a buffer filled to the end of a file or pipe
    (re.compile(r'\bfread\s*\(\s*\w+\s*\+|\bread\s*\(\s*[^,()]+,\s*\w+\s*\+'),
     set(LAYERS), {
         'util/read.c',
         'agents/hook_codex.c',   # codex app-server's JSON-RPC lines, under a deadline
         'cli/mcp.c',             # the MCP stream on stdin, a line at a time
     },
     'reads a file or descriptor whole itself: use util/read.h (lu_read_all, lu_read_path)'),
]
STANDALONE = {
    'fuzz/oracle/driver.c',  # linked statically alone, run in the sandbox
    'bench/timeit.c',        # times a child process, links nothing of ours
}
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def folder(path):
    """The layer a source-root-relative path belongs to (None: not ours)."""
    if path.startswith(PUBLIC + '/'):
        return PUBLIC
    top = path.split('/', 1)[0]
    if top in RANK or top in OUTSIDE:
        return top
    return None


def may_use(src, dst):
    if src == dst or dst == PUBLIC:
        return True
    if src in OUTSIDE:
        return dst not in OUTSIDE or dst == src
    if src == PUBLIC:
        return False
    if dst in OUTSIDE:
        return False
    return RANK[dst] <= RANK[src]


def ours(root, path):
    rel = os.path.relpath(os.path.realpath(path), root)
    if rel.startswith('..') or rel.startswith('node_modules') or '/build' in '/' + rel:
        return None
    return rel


def include_violations(root, sources, edges):
    """Includes up the layers; edges gets {file: {included file}}."""
    bad = []
    seen = set()
    todo = list(sources)
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        seen.add(rel)
        try:
            text = open(os.path.join(root, rel), encoding='utf-8').read()
        except OSError:
            continue
        for name in INCLUDE.findall(text):
            here = os.path.join(root, os.path.dirname(rel), name)
            cands = [here, os.path.join(root, name), os.path.join(root, 'include', name)]
            target = next((c for c in cands if os.path.isfile(c)), None)
            if target is None:
                continue  # generated (openshell.pb.h) or a system header in quotes
            trel = ours(root, target)
            if trel is None:
                continue
            todo.append(trel)
            edges.setdefault(rel, {})[trel] = []
            a, b = folder(rel), folder(trel)
            if a is None or b is None:
                continue
            if not may_use(a, b):
                bad.append('include: %s includes %s (%s -> %s runs up the layers)'
                           % (rel, trel, a, b))
    return bad


def one_home_violations(root, sources):
    bad = []
    for rel in sorted(sources):
        if not rel.endswith('.c') or folder(rel) == 'tests' or rel in STANDALONE:
            continue
        try:
            text = COMMENT.sub(' ', open(os.path.join(root, rel), encoding='utf-8').read())
        except OSError:
            continue
        for pattern, scope, homes, why in ONE_HOME:
            if folder(rel) in scope and rel not in homes and pattern.search(text):
                bad.append('helper: %s %s' % (rel, why))
    return bad


def nm(objects, *flags):
    """{object path: [symbol]} in one nm run over every object."""
    out = subprocess.run(['nm', '-A', '--format=posix', *flags, *objects],
                         capture_output=True, text=True, check=True).stdout
    syms = {obj: [] for obj in objects}
    for line in out.splitlines():
        name, _, rest = line.partition(': ')
        if rest.strip() and name in syms:
            syms[name].append(rest.split()[0])
    return syms


def symbol_graph(root, objects):
    """objects: {source rel path: object path}.  Returns {a: {b: [symbols]}}."""
    by_obj = {obj: src for src, obj in objects.items()}
    defined = {}
    for obj, syms in nm(list(by_obj), '--defined-only', '--extern-only').items():
        for sym in syms:
            defined.setdefault(sym, set()).add(by_obj[obj])
    graph = {}
    for obj, syms in nm(list(by_obj), '--undefined-only').items():
        src = by_obj[obj]
        for sym in syms:
            for dst in defined.get(sym, ()):
                if dst != src:
                    graph.setdefault(src, {}).setdefault(dst, []).append(sym)
    return graph


def cycles(graph):
    """Strongly connected components of more than one file (Tarjan, iterative)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, {}))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, {})))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(tuple(sorted(comp)))
    return out


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    build, root = os.path.realpath(argv[1]), os.path.realpath(argv[2])
    with open(os.path.join(build, 'compile_commands.json'), encoding='utf-8') as f:
        commands = json.load(f)
    objects, sources = {}, set()
    for c in commands:
        path = c['file'] if os.path.isabs(c['file']) else os.path.join(c['directory'], c['file'])
        rel = ours(root, path)
        if rel is None or folder(rel) is None:
            continue
        sources.add(rel)
        # the product's own objects (a test or fuzz binary compiles some of them again)
        obj = os.path.join(c['directory'], c['output'])
        if folder(rel) in RANK and os.path.isfile(obj) and rel not in objects:
            objects[rel] = obj
    if not objects:
        print('test_layers: no object files in %s (build first)' % build, file=sys.stderr)
        return 1
    includes = {}
    bad = include_violations(root, sorted(sources), includes)
    # headers that include each other (guards hide it from the compiler)
    for comp in cycles(includes):
        bad.append('include cycle: ' + ' <-> '.join(comp))
    bad += one_home_violations(root, sources)
    bad += fork_child_violations(objects)
    bad += executable_violations(build)
    graph = symbol_graph(root, objects)
    for a in sorted(graph):
        for b in sorted(graph[a]):
            fa, fb = folder(a), folder(b)
            if not may_use(fa, fb):
                bad.append('symbol: %s uses %s of %s (%s -> %s runs up the layers)'
                           % (a, ', '.join(sorted(set(graph[a][b]))[:3]), b, fa, fb))
    allowed = set()
    for comp in cycles(graph):
        groups = [g for g in CYCLES_OK if (set(comp) <= set(g) if isinstance(g, tuple)
                                           else all(f.startswith(g) for f in comp))]
        if not groups:
            bad.append('cycle: ' + ' <-> '.join(comp))
        allowed.update(groups)
    for g in sorted(set(CYCLES_OK) - allowed, key=str):
        bad.append('no cycle left in %s, take it off CYCLES_OK' % (g,))
    ups = set()
    for line in list(bad):
        m = re.search(r'\((\S+) -> (\S+) runs up the layers\)$', line)
        if m and (m.group(1), m.group(2)) in KNOWN_UP:
            ups.add((m.group(1), m.group(2)))
            bad.remove(line)
    for pair in sorted(set(KNOWN_UP) - ups):
        bad.append('no longer up the layers, take it off KNOWN_UP: %s -> %s' % pair)
    for line in bad:
        print(line)
    print('%d files, %d objects, %d violations' % (len(sources), len(objects), len(bad)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
