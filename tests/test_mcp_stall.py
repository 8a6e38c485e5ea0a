#!/usr/bin/python3
"""tests/test_mcp_stall.py - `locus mcp` and a client that stops reading.

A client that stops reading stdout must not block the server for good: a
writer waits at most --write-timeout seconds without a byte taken, then the
client is dropped (a line on stderr) and the server ends with every job it
started; and SIGTERM ends it at once even while a write is stuck.  stdout
is a real pipe this test never reads after the first answers (os.pipe), so
the kernel's 64 KiB buffer fills for good.  Every wait is bounded.
"""
import fcntl
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

LOCUS = os.environ.get("LOCUS_BIN")
passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok - " + what)
    else:
        failed += 1
        print("FAIL - %s%s" % (what, ": " + str(detail) if detail else ""))
    return ok


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def until(pred, secs):
    end = time.time() + secs
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def msg(i, method, params=None):
    m = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        m["params"] = params
    return (json.dumps(m) + "\n").encode()


def read_answer(fd, want_id, secs=20):
    """Read lines from fd until the answer with id want_id (or give up)."""
    buf, end = b"", time.time() + secs
    os.set_blocking(fd, False)
    while time.time() < end:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            time.sleep(0.02)
            continue
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            a = json.loads(line)
            if a.get("id") == want_id:
                return a
    return None


def start(root, timeout):
    r, w = os.pipe()
    p = subprocess.Popen([LOCUS, "mcp", "--backend", "local", "--root", root,
                          "--preset", "permissive",
                          "--write-timeout", str(timeout)],
                         stdin=subprocess.PIPE, stdout=w, stderr=subprocess.PIPE)
    os.close(w)
    p.stdin.write(msg(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}))
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    # a background job that must not outlive the server
    p.stdin.write(msg(2, "tools/call", {"name": "bash", "arguments": {
        "command": "echo $$ > bg.pid; exec sleep 300", "background": True}}))
    p.stdin.flush()
    a = read_answer(r, 2)
    check(a is not None and not a["result"]["isError"], "a background job starts", a)
    pidf = os.path.join(root, "bg.pid")
    until(lambda: os.path.exists(pidf) and open(pidf).read().strip(), 5)
    bg = int(open(pidf).read().strip() or 0)
    check(bg > 0 and alive(bg), "it runs", bg)
    return p, r, bg


def wait_end(p, secs):
    """Exit status (None, after a kill, past secs: a hang guard)."""
    try:
        return p.wait(timeout=secs)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return None


def unread(fd):
    """Bytes in the pipe not read yet."""
    FIONREAD = 0x541B
    return int.from_bytes(fcntl.ioctl(fd, FIONREAD, b"\0\0\0\0"), sys.byteorder)


def pipe_stuck(fd, secs):
    """The pipe holds at least half of what it can and no byte more comes
    for ten polls in a row: the server, with ~1 MB of answers to write,
    waits for a reader.  (A pipe is filled a page at a time: a write that
    does not fit waits with pages still free, so "full" is not a byte
    count.)  Polled against a deadline."""
    F_GETPIPE_SZ = 1032
    half = fcntl.fcntl(fd, F_GETPIPE_SZ) // 2
    end = time.monotonic() + secs
    last, same = -1, 0
    while time.monotonic() < end:
        n = unread(fd)
        same = same + 1 if n == last else 0
        last = n
        if n >= half and same >= 10:
            return True
        time.sleep(0.05)
    return False


def flood(p):
    """Requests whose answers (tools/list, ~30 KB each) fill the pipe."""
    for i in range(100, 140):
        p.stdin.write(msg(i, "tools/list"))
    p.stdin.flush()


def main():
    if not LOCUS or not os.path.exists(LOCUS):
        print("FAIL - not run: LOCUS_BIN is not set")
        sys.exit(1)
    with tempfile.TemporaryDirectory() as root:
        # 1. a client that stops reading is dropped after --write-timeout
        p, r, bg = start(root, 2)
        t0 = time.monotonic()
        flood(p)
        code = wait_end(p, 120)
        took = time.monotonic() - t0
        err = p.stderr.read().decode()
        check(code == 0, "the server ends by itself", code)
        # a lower bound only (load makes it longer, never shorter)
        check(took >= 2, "not before the write timeout (2 s)", "%.1f s" % took)
        check("has not read its output for 2 s" in err and "dropped" in err,
              "and says why on stderr", err[-300:])
        check(until(lambda: not alive(bg), 3), "its background job is gone", bg)
        os.close(r)
        os.remove(os.path.join(root, "bg.pid"))

        # 2. SIGTERM while a write is stuck (a long write timeout)
        p, r, bg = start(root, 600)
        flood(p)
        check(pipe_stuck(r, 60), "the pipe fills: a writer waits")
        check(p.poll() is None, "with a long write timeout the server waits")
        p.send_signal(signal.SIGTERM)
        # far less than the 600 s write timeout: SIGTERM ended the write
        code = wait_end(p, 120)
        check(code == 0, "SIGTERM ends it while the write is stuck", code)
        check(until(lambda: not alive(bg), 3), "with its background job", bg)
        p.stderr.close()
        os.close(r)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
