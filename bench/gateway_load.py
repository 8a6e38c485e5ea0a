#!/usr/bin/python3
"""Load on `locus gateway` (figures in docs/benchmark.md).

Not a test.  Starts a gateway on SQLite (a fresh database in a temporary
folder, 127.0.0.1 only) from the given locus binary, makes R runs, and has
R client processes (one per run, each a keep-alive HTTP connection, as
runners would) each send N admissions of allowed calls (`bash` with
`echo I`, so the policy engine parses and labels every line) as fast as
the gateway answers.  Reports admissions per second over the whole
round, the p50/p99 latency of one admission, and how many other
admissions were answered while one waited (p50/p99/max: a count the
machine's load hardly moves, the measure of the gateway's fairness), for
each R given.

  bench/gateway_load.py LOCUS [--runs 1,4,16,64] [--admissions 200]
  bench/gateway_load.py LOCUS --callgrind [--admissions 200]

  bench/gateway_load.py LOCUS --postgres [--runs 1,4,16,64] [--admissions 200]

--postgres starts a throwaway PostgreSQL cluster under /tmp (Debian's
initdb and pg_ctl, on 127.0.0.1, as tests/test_gateway_pg.py does) and two
gateway replicas over it; run i's client talks to replica i mod 2 (makes
its run there too), so both replicas admit at once and every write takes
the one advisory lock all replicas share.

--callgrind runs the gateway under valgrind's callgrind for one client's
N admissions (after the run is made) and prints the instructions the
gateway executed per admission: a figure the other builds on this shared
machine do not move.  With --postgres the gateway (not the PostgreSQL
server) is counted, over the cluster.
"""
import argparse
import bisect
import glob
import pwd
import socket
import sys
import http.client
import json
import multiprocessing
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
import uuid

OP = "op-" + uuid.uuid4().hex


class Cluster:
    """A throwaway PostgreSQL cluster under /tmp on 127.0.0.1."""

    def __init__(self):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            sys.exit("no PostgreSQL server (initdb)")
        self.bin = os.path.dirname(bins[-1])
        self.dir = tempfile.mkdtemp(prefix="locus-pg-bench-")
        self.data = os.path.join(self.dir, "data")
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.prefix = []
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self.prefix = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
        opts = "-h 127.0.0.1 -p %d -k %s -c fsync=on" % (self.port, self.dir)
        try:
            subprocess.run(self.prefix + [self.bin + "/initdb", "-D", self.data, "-A",
                                          "trust", "-U", "locus", "--no-sync"],
                           capture_output=True, env=env, timeout=300, check=True)
            subprocess.run(self.prefix + [self.bin + "/pg_ctl", "-D", self.data, "-o", opts,
                                          "-l", os.path.join(self.dir, "log"), "-w", "-t",
                                          "120", "start"],
                           capture_output=True, env=env, timeout=300, check=True)
        except BaseException:
            # a start that failed half-way (pg_ctl timed out with the server
            # still coming up, say) leaves nothing running and no folder
            self.stop()
            raise
        self.url = "postgresql://locus@127.0.0.1:%d/postgres" % self.port

    def stop(self):
        subprocess.run(self.prefix + [self.bin + "/pg_ctl", "-D", self.data, "-m", "immediate",
                                      "-w", "stop"], capture_output=True, timeout=120)
        shutil.rmtree(self.dir, ignore_errors=True)


def start(locus, folder, wrap=(), db=None):
    env = {"PATH": "/usr/bin:/bin", "LOCUS_GATEWAY_TOKEN": OP}
    p = subprocess.Popen([*wrap, locus, "gateway", "serve", "--db",
                          db or os.path.join(folder, "gw.db"), "--listen", "127.0.0.1:0"],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         cwd=folder)
    line = p.stdout.readline().decode()
    if "listening on " not in line:
        p.kill()
        p.wait()
        sys.exit("the gateway did not start (exit %s)" % p.returncode)
    url = line.split("listening on ")[1].split()[0]
    return p, url


def request(conn, method, path, body, token):
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Authorization": "Bearer " + token}
    if data is not None:
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=headers)
    r = conn.getresponse()
    return r.status, json.loads(r.read() or b"{}")


def make_runs(url, folder, n):
    host, port = url[len("http://"):].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=120)
    definition = {"input": "go", "tools": [{"name": "bash", "runs": "box"}],
                  "model": {"model": "m", "base_url": "http://127.0.0.1:9/v1",
                            "api_key_env": "OPENAI_API_KEY"},
                  "policy": {"preset": "standard"}, "workspace": folder}
    runs = []
    for _ in range(n):
        status, run = request(conn, "POST", "/v1/runs",
                              {"definition": definition, "box": "none"}, OP)
        assert status == 201, run
        status, op = request(conn, "GET", "/internal/v1/runner/next", None, run["token"])
        assert op == {"op": "start"}, op
        runs.append((run["run_id"], run["token"]))
    conn.close()
    return runs


def client(args):
    url, run_id, token, n, start_at = args
    host, port = url[len("http://"):].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=120)
    while time.time() < start_at:
        time.sleep(0.001)
    lat = []
    for i in range(n):
        body = {"run_id": run_id, "call_id": "c%d" % i, "tool": "bash",
                "arguments": {"command": "echo %d" % i}}
        t = time.perf_counter()
        status, ans = request(conn, "POST", "/v1/admit", body, token)
        t2 = time.perf_counter()
        lat.append((t, t2))
        assert status == 200 and ans["outcome"] == "allow", ans
    conn.close()
    return lat


def served_while_waiting(spans):
    """For each admission, how many others were answered while it waited
    (sent before its answer, answered after it was sent): a count, not a
    time, so the machine's load moves it far less.  With R clients each
    waiting on one admission and the gateway serving in arrival order it
    stays under R; a lock that lets later requests go first makes a tail
    of many more.  perf_counter is the system's monotonic clock, the same
    in every client process."""
    ends = sorted(t2 for _, t2 in spans)
    return sorted(bisect.bisect_left(ends, t2) - bisect.bisect_right(ends, t)
                  for t, t2 in spans)


def round_(locus, r, n, postgres=False):
    folder = tempfile.mkdtemp(prefix="locus-gw-bench-")
    cluster = None
    procs, urls = [], []
    try:
        cluster = Cluster() if postgres else None
        for _ in range(2 if postgres else 1):
            p, url = start(locus, folder, db=cluster.url if cluster else None)
            procs.append(p)
            urls.append(url)
        # run i made on, and admitted through, replica i mod 2
        work = []
        for i in range(r):
            url = urls[i % len(urls)]
            (rid, tok), = make_runs(url, folder, 1)
            work.append((url, rid, tok))
        start_at = time.time() + 0.5
        t0 = time.perf_counter()
        with multiprocessing.Pool(r) as pool:
            lats = pool.map(client, [(url, rid, tok, n, start_at) for url, rid, tok in work])
        wall = time.perf_counter() - t0 - max(0.0, start_at - time.time())
        spans = [x for l in lats for x in l]
        all_ = sorted(t2 - t for t, t2 in spans)
        total = len(all_)
        # the slowest client's busy time
        span = max(sum(t2 - t for t, t2 in l) for l in lats)
        served = served_while_waiting(spans)
        return {"db": "postgresql, 2 replicas" if postgres else "sqlite",
                "runs": r, "admissions": total,
                "per_s": round(total / span, 1),
                "p50_ms": round(statistics.median(all_) * 1000, 2),
                "p99_ms": round(all_[int(0.99 * (total - 1))] * 1000, 2),
                "served_while_waiting_p50": served[total // 2],
                "served_while_waiting_p99": served[int(0.99 * (total - 1))],
                "served_while_waiting_max": served[-1],
                "wall_s": round(wall, 2)}
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=120)
        if cluster:
            cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)


def callgrind_per_admission(locus, n, postgres=False):
    """Ir of the dump taken after the N admissions (the counters are zeroed
    at each dump, so it holds exactly the admissions), over N."""
    folder = tempfile.mkdtemp(prefix="locus-gw-cg-")
    out = os.path.join(folder, "cg.out")
    cluster, p = None, None
    try:
        # inside the try: a cluster, or a gateway, that fails to start
        # still has the cluster stopped and the folder removed
        cluster = Cluster() if postgres else None
        p, url = start(locus, folder, ("valgrind", "--tool=callgrind",
                                       "--callgrind-out-file=" + out),
                       db=cluster.url if cluster else None)
        runs = make_runs(url, folder, 1)
        subprocess.run(["callgrind_control", "--zero", str(p.pid)],
                       capture_output=True, check=True)
        client((url, runs[0][0], runs[0][1], n, 0))
        subprocess.run(["callgrind_control", "--dump=admissions", str(p.pid)],
                       capture_output=True, check=True)
        ir = None
        for f in glob.glob(out + "*"):
            with open(f) as fh:
                text = fh.read()
            if "admissions" not in text[:2000]:
                continue
            for line in text.splitlines():
                if line.startswith("summary:"):
                    ir = int(line.split()[1])
        return ir
    finally:
        if p:
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=300)
        if cluster:
            cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("locus")
    ap.add_argument("--runs", default="1,4,16,64")
    ap.add_argument("--admissions", type=int, default=200)
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--postgres", action="store_true")
    a = ap.parse_args()
    if a.callgrind:
        ir = callgrind_per_admission(a.locus, a.admissions, a.postgres)
        print(json.dumps({"db": "postgresql" if a.postgres else "sqlite",
                          "admissions": a.admissions, "instructions": ir,
                          "per_admission": ir // a.admissions if ir else None}))
        return
    for r in (int(x) for x in a.runs.split(",")):
        print(json.dumps(round_(a.locus, r, a.admissions, a.postgres)), flush=True)


if __name__ == "__main__":
    main()
