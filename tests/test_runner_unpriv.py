#!/usr/bin/python3
"""`locus runner` as an unprivileged uid (setpriv), without
LOCUS_RUNNER_HARDEN: a command run by the runner, under the same uid, must
not read the runner's memory (/proc/<runner pid>/mem) nor find the token or
a placeholder in it, because the runner is non-dumpable by default
(docs/runner.md, "Security model").  Root reads any process's memory, so the
case needs another uid: it exits 77 (skipped) when it cannot drop
privileges (not root, no setpriv, or setpriv refused).
"""
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_runner as T  # noqa: E402
from test_runner import Box, bash  # noqa: E402

UID = 65534

MEMREAD = r'''
import os, re, sys
def ppid(p):
    s = open("/proc/%s/stat" % p).read()
    return int(s[s.rindex(")") + 2:].split()[1])
def cmd(p):
    return open("/proc/%s/cmdline" % p, "rb").read()
a, runner = os.getppid(), None
while a > 1:
    if cmd(a).endswith(b"runner\0"):
        runner = a
    elif runner:
        break
    a = ppid(a)
secrets = [s.encode() for s in sys.argv[1:]]
found = set()
readable = False
try:
    mem = open("/proc/%d/mem" % runner, "rb", buffering=0)
    for line in open("/proc/%d/maps" % runner):
        addr, perms = line.split()[:2]
        if "r" not in perms or "[vvar]" in line or "[vsyscall]" in line:
            continue
        lo, hi = (int(x, 16) for x in addr.split("-"))
        if hi - lo > (64 << 20):
            continue   # sanitizer shadow and reserved ranges
        try:
            mem.seek(lo)
            data = mem.read(hi - lo)
        except OSError:
            continue
        readable = True
        for s in secrets:
            if s in data:
                found.add(s)
    print("MEM %s, found %d secrets" % ("READABLE" if readable else "NOT READABLE: no range", len(found)))
except OSError as e:
    print("MEM NOT READABLE: %s" % e.strerror)
'''


def can_drop():
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        return False
    p = subprocess.run(["setpriv", "--reuid=%d" % UID, "--regid=%d" % UID, "--clear-groups",
                        "/bin/true"], capture_output=True)
    return p.returncode == 0


class Unprivileged(unittest.TestCase):
    def test_runner_memory_not_readable_by_its_commands(self):
        b = Box(self)
        os.chown(b.root, UID, UID)
        script = os.path.join(b.root, "memread.py")
        with open(script, "w") as f:
            f.write(MEMREAD)
        os.chown(script, UID, UID)
        cmdline = "/usr/bin/python3 memread.py %s %s" % (b.run.token, b.key)
        b.script([bash(cmdline, "m1"), {"content": "looked"}])
        try:
            p = subprocess.run(["setpriv", "--reuid=%d" % UID, "--regid=%d" % UID,
                                "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
                                T.LOCUS, "runner"], env=b.env(), capture_output=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr.decode(errors="replace"))
            seen = b.tool_results()["m1"]
            self.assertIn("MEM NOT READABLE", seen)
            self.assertNotIn(b.run.token, seen)
        finally:
            b.finish()


if __name__ == "__main__":
    if not T.LOCUS or not os.access(T.LOCUS, os.X_OK):
        sys.exit("LOCUS_BIN does not name the locus binary")
    if not can_drop():
        print("skipped: cannot run as uid %d (needs root and setpriv)" % UID)
        sys.exit(77)
    unittest.main(verbosity=2)
