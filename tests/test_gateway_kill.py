#!/usr/bin/python3
"""`locus gateway` killed with SIGKILL in a loop while a client does what
the runner does (issue 27, item 6; docs/gateway.md): events in numbered
batches, admissions, holds, checkpoints, a result, each retried until the
gateway answers, as the runner retries.  The gateway is killed every time
the audit trail has grown by two records and restarted at once on the
same database and port.  Afterwards nothing the client was told was taken
is missing, nothing is there twice, the audit chain verifies and SQLite
finds the database intact.

Run with /usr/bin/python3; LOCUS_BIN names the locus binary.  127.0.0.1
only; no fixed sleeps (the killer waits on the database, the client
retries a refused connection at once, with a deadline).
"""
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request
import uuid

LOCUS = os.environ.get("LOCUS_BIN", "")
SAN = {k: os.environ[k] for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS")
       if k in os.environ}
DEADLINE_S = 240


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class KillLoop(unittest.TestCase):
    def setUp(self):
        if not LOCUS or not os.access(LOCUS, os.X_OK):
            self.fail("LOCUS_BIN does not name the locus binary")
        self.folder = tempfile.mkdtemp(prefix="locus-gw-kill-")
        self.db = os.path.join(self.folder, "gw.db")
        self.op = "op-" + uuid.uuid4().hex
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.proc = None
        self.kills = 0
        self.lock = threading.Lock()
        self.start()

    def tearDown(self):
        with self.lock:
            if self.proc and self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                self.proc.wait(timeout=60)
            self.close_pipes()
        shutil.rmtree(self.folder, ignore_errors=True)

    def close_pipes(self):
        if self.proc:
            self.proc.stdout.close()
            self.proc.stderr.close()

    def start(self):
        env = {"PATH": "/usr/bin:/bin", "LOCUS_GATEWAY_TOKEN": self.op, **SAN}
        self.proc = subprocess.Popen(
            [LOCUS, "gateway", "serve", "--db", self.db, "--listen",
             "127.0.0.1:%d" % self.port],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.folder)
        line = self.proc.stdout.readline().decode()
        self.assertIn("listening on", line, line)

    def audit_count(self):
        try:
            con = sqlite3.connect(self.db, timeout=30)
            try:
                return con.execute("SELECT count(*) FROM audit").fetchone()[0]
            finally:
                con.close()
        except sqlite3.Error:
            return -1

    def killer(self, stop):
        last = self.audit_count()
        while not stop.is_set():
            n = self.audit_count()
            if n >= last + 2:
                with self.lock:
                    self.proc.send_signal(signal.SIGKILL)
                    self.proc.wait(timeout=30)
                    self.close_pipes()
                    self.kills += 1
                    self.start()
                last = self.audit_count()

    def http(self, method, path, body=None, token=None):
        """Retried until the gateway answers (a transport error or a 5xx
        is an outage, as for the runner); (status, answer)."""
        end = time.monotonic() + DEADLINE_S
        data = None if body is None else json.dumps(body).encode()
        while True:
            req = urllib.request.Request(self.url + path, data=data, method=method)
            req.add_header("Authorization", "Bearer " + (token or self.op))
            if data is not None:
                req.add_header("Content-Type", "application/json")
            try:
                with urllib.request.urlopen(req, timeout=30) as r:
                    return r.status, json.loads(r.read() or b"{}")
            except urllib.error.HTTPError as e:
                if e.code < 500:
                    return e.code, json.loads(e.read() or b"{}")
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            self.assertLess(time.monotonic(), end, "the gateway never came back")

    def test_kill_in_a_loop_loses_nothing(self):
        definition = {"input": "go", "tools": [{"name": "bash", "runs": "box"}],
                      "model": {"model": "m", "base_url": "http://127.0.0.1:9/v1",
                                "api_key_env": "OPENAI_API_KEY"},
                      "policy": {"preset": "standard"}, "workspace": self.folder}
        status, run = self.http("POST", "/v1/runs", {"definition": definition, "box": "none"})
        self.assertEqual(status, 201, run)
        rid, tok = run["run_id"], run["token"]
        stop = threading.Event()
        t = threading.Thread(target=self.killer, args=(stop,), daemon=True)
        t.start()
        try:
            self.assertEqual(self.http("GET", "/internal/v1/runner/next", token=tok),
                             (200, {"op": "start"}))
            sent, seq, holds, checkpoints, allowed = [], 0, {}, [], []
            for i in range(40):
                batch = [{"type": "token", "text": "step %d.%d" % (i, k)} for k in range(3)]
                status, ans = self.http("POST", "/internal/v1/runs/%s/events" % rid,
                                        {"seq_from": seq, "events": batch}, token=tok)
                # 200: taken; 409: taken before an answer was lost
                self.assertIn(status, (200, 409), ans)
                self.assertEqual(ans["next_seq"], seq + 3, ans)
                sent += batch
                seq += 3
                held = i % 5 == 4
                cmd = "git push origin main" if held else "echo %d" % i
                adm = {"run_id": rid, "call_id": "c%d" % i, "tool": "bash",
                       "arguments": {"command": cmd}}
                status, ans = self.http("POST", "/v1/admit", adm, token=tok)
                self.assertEqual(status, 200, ans)
                if held:
                    self.assertEqual(ans["outcome"], "require_human", ans)
                    # asked again (the runner after a lost answer): the same hold
                    status, again = self.http("POST", "/v1/admit", adm, token=tok)
                    self.assertEqual(again.get("approval_id"), ans["approval_id"])
                    holds["c%d" % i] = ans["approval_id"]
                else:
                    self.assertEqual(ans["outcome"], "allow", ans)
                    allowed.append("c%d" % i)
                if i % 10 == 9:
                    status, ans = self.http("PUT", "/internal/v1/runs/%s/checkpoint" % rid,
                                            {"thread_id": rid, "state": {"i": i}}, token=tok)
                    self.assertEqual(status, 200, ans)
                    checkpoints.append((ans["checkpoint_id"], i))
            for call, ap in holds.items():
                status, ans = self.http("POST", "/v1/approvals/" + ap,
                                        {"decision": "approve", "by": "erin", "why": "ok"})
                self.assertIn(status, (200, 409), ans)  # 409: decided before the answer was lost
            status, ans = self.http("POST", "/internal/v1/runs/%s/result" % rid,
                                    {"status": "done", "final_message": "all steps"}, token=tok)
            self.assertEqual(status, 200, ans)
        finally:
            stop.set()
            t.join(timeout=60)
        self.assertGreaterEqual(self.kills, 10, "the gateway was killed often enough")
        print("killed %d times" % self.kills, file=sys.stderr)

        status, shown = self.http("GET", "/v1/runs/" + rid)
        self.assertEqual(status, 200)
        self.assertEqual(shown["run"]["state"], "done")
        # every event once, in order, as sent
        self.assertEqual([e["seq"] for e in shown["events"]], list(range(len(sent))))
        self.assertEqual([e["event"] for e in shown["events"]], sent)
        # one approval per held call, each approved; no other
        aps = {a["call_id"]: (a["approval_id"], a["state"], a["decided_by"])
               for a in shown["approvals"]}
        self.assertEqual(len(shown["approvals"]), len(holds))
        self.assertEqual(aps, {c: (ap, "approved", "erin") for c, ap in holds.items()})
        # every checkpoint the client was given reads back
        for cid, i in checkpoints:
            status, ans = self.http("GET", "/internal/v1/runs/%s/checkpoint?thread_id=%s"
                                    "&checkpoint_id=%s" % (rid, rid, cid), token=tok)
            self.assertEqual((status, ans["state"]), (200, {"i": i}))
        # every decision the client got is on record
        con = sqlite3.connect(self.db)
        try:
            recs = [json.loads(r) for (r,) in con.execute(
                "SELECT record FROM audit WHERE kind = 'admission'")]
            self.assertEqual(con.execute("PRAGMA integrity_check").fetchone()[0], "ok")
        finally:
            con.close()
        got = {r["call_id"] for r in recs if r["outcome"] == "allow"}
        self.assertTrue(set(allowed) <= got)
        self.assertEqual({r["call_id"] for r in recs if r["outcome"] == "require_human"},
                         set(holds))
        status, v = self.http("GET", "/v1/audit/verify")
        self.assertTrue(v["intact"], v)


if __name__ == "__main__":
    unittest.main(verbosity=2)
