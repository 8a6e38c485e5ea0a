"""tests/jail_common.py - what tests/test_jail.py and tests/test_hook_jail.py
share: the check list, the bubblewrap probe, a loopback server that counts
connections, the setpriv prefix for another user and chown of what a test
made for that user.  Every server binds 127.0.0.1 only.
"""
import os
import socket
import subprocess
import threading
import time

NOBODY = 65534
FAILS = []


def check(ok, what):
    """Print ok/FAIL for one promise; failures are kept in FAILS."""
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILS.append(what)
    return ok


def finish():
    """The exit status of a run: 1 when any check failed."""
    print(f"{len(FAILS)} failed")
    return 1 if FAILS else 0


def bwrap_usable():
    """bubblewrap can make its namespaces here (else the suite exits 77)."""
    try:
        probe = subprocess.run(["bwrap", "--unshare-all", "--ro-bind", "/",
                                "/", "true"], capture_output=True)
    except FileNotFoundError:
        return False
    return probe.returncode == 0


def as_user(uid):
    """The argv prefix that runs a command as uid (its own group too, no
    supplementary groups); [] for the user the test runs as."""
    if uid == os.geteuid():
        return []
    return ["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}",
            "--clear-groups"]


def chown_tree(uid, *paths):
    """Give every folder and file under paths (links not followed) to uid."""
    for p in paths:
        os.lchown(p, uid, uid)
        for d, dirs, files in os.walk(p):
            for n in dirs + files:
                os.lchown(os.path.join(d, n), uid, uid)


class Server(threading.Thread):
    """A loopback TCP server that counts connections (hits) and sends
    `greeting` to each before closing it."""

    def __init__(self, greeting=b""):
        super().__init__(daemon=True)
        self.greeting = greeting
        self.s = socket.socket()
        self.s.bind(("127.0.0.1", 0))
        self.s.listen(8)
        self.port = self.s.getsockname()[1]
        self.hits = 0

    def seen(self, timeout):
        """A connection was counted within `timeout` seconds: the count is
        the accept thread's, which may run after the client has returned
        (a loaded machine: the control of test_hook_jail failed so)."""
        end = time.monotonic() + timeout
        while self.hits == 0 and time.monotonic() < end:
            time.sleep(0.02)
        return self.hits > 0

    def run(self):
        while True:
            try:
                c, _ = self.s.accept()
            except OSError:
                return
            self.hits += 1
            if self.greeting:
                c.sendall(self.greeting)
            c.close()
