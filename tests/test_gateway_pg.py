#!/usr/bin/python3
"""`locus gateway` on PostgreSQL, two replicas over one database
(docs/gateway.md).  The test starts a throwaway cluster under
/tmp (Debian's postgresql: initdb and pg_ctl, as the postgres user when
run as root), two gateways on it, and the real runner with the scripted
loopback model: the runner talks to replica A only, a person decides on
replica B, and the runner polling A sees the decision; a second run parks
through A and resumes through B.  Everything listens on 127.0.0.1.  Exit
77 (skip) only when no cluster can be started here.

Run with /usr/bin/python3; LOCUS_BIN names the locus binary.
"""
import glob
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_model import FakeModel  # noqa: E402
from test_gateway import SAN, Gateway, call, definition  # noqa: E402

LOCUS = os.environ.get("LOCUS_BIN", "")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Cluster:
    """A throwaway PostgreSQL cluster under /tmp on 127.0.0.1."""

    def __init__(self):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            raise unittest.SkipTest("no PostgreSQL server (initdb)")
        self.bin = os.path.dirname(bins[-1])
        self.dir = tempfile.mkdtemp(prefix="locus-pg-")
        self.data = os.path.join(self.dir, "data")
        self.port = free_port()
        self.prefix = []
        if os.geteuid() == 0:
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                raise unittest.SkipTest("root, and no postgres user to run the server")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self.prefix = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
        r = subprocess.run(self.prefix + [self.bin + "/initdb", "-D", self.data, "-A", "trust",
                                          "-U", "locus", "--no-sync"],
                           capture_output=True, env=env, timeout=300)
        if r.returncode:
            self.cleanup()
            raise unittest.SkipTest("initdb failed: " + r.stderr.decode()[-400:])
        opts = "-h 127.0.0.1 -p %d -k %s -c fsync=on" % (self.port, self.dir)
        r = subprocess.run(self.prefix + [self.bin + "/pg_ctl", "-D", self.data, "-o", opts,
                                          "-l", os.path.join(self.dir, "log"), "-w", "-t", "120",
                                          "start"],
                           capture_output=True, env=env, timeout=300)
        if r.returncode:
            self.cleanup()
            raise unittest.SkipTest("pg_ctl start failed: " + r.stderr.decode()[-400:])
        self.url = "postgresql://locus@127.0.0.1:%d/postgres" % self.port

    def stop(self):
        subprocess.run(self.prefix + [self.bin + "/pg_ctl", "-D", self.data, "-m", "immediate",
                                      "-w", "stop"], capture_output=True, timeout=120)
        self.cleanup()

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


class PgGateway(Gateway):
    """A replica: `locus gateway serve --db postgresql://...`."""

    def __init__(self, case, folder, url, token, env):
        self.pg_url = url
        super().__init__(case, folder, token=token, env=env)

    def start(self):
        env = {"PATH": "/usr/bin:/bin", "LOCUS_GATEWAY_TOKEN": self.token, **SAN, **self.env}
        self.proc = subprocess.Popen(
            [LOCUS, "gateway", "serve", "--db", self.pg_url, "--listen", "127.0.0.1:0"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.folder)
        line = self.proc.stdout.readline().decode()
        self.case.assertIn("listening on http://127.0.0.1:", line,
                           self.proc.stderr.read().decode() if not line else line)
        self.url = line.split("listening on ")[1].split()[0]

    def sql(self, query, *args):
        raise AssertionError("no SQLite file: ask the API")


class PostgresReplicas(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not LOCUS or not os.access(LOCUS, os.X_OK):
            raise AssertionError("LOCUS_BIN does not name the locus binary")
        cls.cluster = Cluster()
        # the database outlives each case: its first operator token too
        cls.token = "op-" + uuid.uuid4().hex

    @classmethod
    def tearDownClass(cls):
        cls.cluster.stop()

    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="locus-gw-pg-")
        self.root = os.path.join(self.folder, "box")
        os.mkdir(self.root)
        self.key = "ph-model-" + uuid.uuid4().hex
        self.model = FakeModel(self.key)
        token = self.token
        env = {"OPENAI_API_KEY": self.key}
        # both start at once: migrations and the first token are decided once
        out = {}

        def start(name):
            out[name] = PgGateway(self, self.folder, self.cluster.url, token, env)
        ts = [threading.Thread(target=start, args=(n,)) for n in ("a", "b")]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.a, self.b = out["a"], out["b"]

    def tearDown(self):
        self.a.stop()
        self.b.stop()
        self.model.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def create(self, gw, **extra):
        path = os.path.join(self.folder, "def-%s.json" % uuid.uuid4().hex[:6])
        d = definition(self.model, self.root, **extra)
        d["input"] = extra.get("input", "write the notes")
        with open(path, "w") as f:
            json.dump(d, f)
        return json.loads(gw.cli("run", "create", "--definition", path).stdout)

    def runner(self, run, url):
        env = {"PATH": "/usr/bin:/bin", "HOME": self.root,
               "LOCUS_ADMIT_URL": url, "LOCUS_ADMIT_TOKEN": run["token"],
               "LOCUS_RUN_ID": run["run_id"], "LOCUS_RUNNER_ROOT": self.root,
               "OPENAI_API_KEY": self.key, **SAN}
        return subprocess.Popen([LOCUS, "runner"], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)

    def pending(self, gw, deadline_s=120):
        end = time.monotonic() + deadline_s
        while True:
            lines = gw.cli("approvals").stdout.splitlines()
            if lines:
                return [json.loads(l) for l in lines]
            self.assertLess(time.monotonic(), end, "no approval appeared")
            time.sleep(0.05)

    def test_a_decision_on_one_replica_reaches_a_runner_on_the_other(self):
        self.model.scripts["write the notes"] = [
            call("write", {"path": "notes.txt", "content": "hello\n"}, "w1"),
            call("bash", {"command": "git push origin main"}, "p1"),
            {"content": "Pushed."},
        ]
        run = self.create(self.a, budgets={"max_iterations": 10, "park_ttl_s": 120})
        p = self.runner(run, self.a.url)
        # replica B sees the hold replica A made, and decides it
        ap = self.pending(self.b)
        self.assertEqual([(x["run_id"], x["call_id"]) for x in ap], [(run["run_id"], "p1")])
        self.b.cli("decide", ap[0]["approval_id"], "approve", "--by", "frank", "--why", "ok")
        _, err = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 0, err.decode(errors="replace"))
        for gw in (self.a, self.b):
            shown = json.loads(gw.cli("show", run["run_id"]).stdout)
            self.assertEqual(shown["run"]["state"], "done")
            self.assertEqual(shown["run"]["result"]["final_message"], "Pushed.")
            self.assertEqual([e["seq"] for e in shown["events"]],
                             list(range(len(shown["events"]))))
            self.assertEqual([(a["state"], a["decided_by"]) for a in shown["approvals"]],
                             [("consumed", "frank")])
        v = json.loads(self.b.cli("verify").stdout)
        self.assertTrue(v["intact"], v)

    def test_parked_on_one_replica_resumed_through_the_other(self):
        self.model.scripts["push it"] = [
            call("bash", {"command": "git push origin main"}, "p1"),
            {"content": "Pushed later."},
        ]
        run = self.create(self.a, input="push it")
        p = self.runner(run, self.a.url)
        _, err = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 0, err.decode(errors="replace"))
        self.assertEqual(json.loads(self.b.cli("show", run["run_id"]).stdout)["run"]["state"],
                         "parked")
        ap = [a for a in self.pending(self.b) if a["run_id"] == run["run_id"]]
        self.a.cli("decide", ap[0]["approval_id"], "approve", "--by", "gina", "--why", "ok")
        # decided twice, on either replica: the second is refused
        self.assertEqual(self.b.cli("decide", ap[0]["approval_id"], "deny", "--by", "h",
                                    "--why", "no", check=False).returncode, 1)
        p = self.runner(run, self.b.url)
        _, err = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 0, err.decode(errors="replace"))
        shown = json.loads(self.a.cli("show", run["run_id"]).stdout)
        self.assertEqual(shown["run"]["state"], "done")
        self.assertEqual(shown["run"]["result"]["final_message"], "Pushed later.")
        v = json.loads(self.a.cli("verify").stdout)
        self.assertTrue(v["intact"], v)


if __name__ == "__main__":
    try:
        Cluster().stop()
    except unittest.SkipTest as e:
        print("skip:", e)
        sys.exit(77)
    unittest.main(verbosity=2)
