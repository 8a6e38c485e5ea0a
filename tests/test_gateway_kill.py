#!/usr/bin/python3
"""`locus gateway` killed with SIGKILL in a loop (docs/gateway.md,
"Nothing lost").  The gateway is killed every time the audit trail has
grown by two records and restarted at once on the same database and the
same listening socket, which the test holds and hands to each gateway
(`--listen fd:N`, as a supervisor or systemd's socket activation does):
a connection made while the gateway is down waits in the socket's backlog
instead of being refused.

Two clients: a script that does what the runner does (events in numbered
batches, admissions, holds asked twice, checkpoints, approvals, a result,
each retried until answered), and `locus runner` itself, a real run with
the scripted loopback model (tests/fake_model.py) that writes, reads, runs
commands, parks on held calls that a person approves or denies, and is
started again after each decision.  Afterwards nothing either was told
was taken is missing, nothing is there twice, every call that ran has its
allow on record, the audit chain verifies and SQLite finds the database
intact.

Run with /usr/bin/python3; LOCUS_BIN names the locus binary.  127.0.0.1
only; no fixed sleeps (the killer waits on the database, clients retry
with a deadline).
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_model import FakeModel  # noqa: E402

LOCUS = os.environ.get("LOCUS_BIN", "")
SAN = {k: os.environ[k] for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS")
       if k in os.environ}
DEADLINE_S = 240


class KillLoop(unittest.TestCase):
    def setUp(self):
        if not LOCUS or not os.access(LOCUS, os.X_OK):
            self.fail("LOCUS_BIN does not name the locus binary")
        self.folder = tempfile.mkdtemp(prefix="locus-gw-kill-")
        self.db = os.path.join(self.folder, "gw.db")
        self.op = "op-" + uuid.uuid4().hex
        # the listening socket outlives every gateway process
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
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
        self.sock.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def close_pipes(self):
        if self.proc:
            self.proc.stdout.close()
            self.proc.stderr.close()

    def start(self):
        env = {"PATH": "/usr/bin:/bin", "LOCUS_GATEWAY_TOKEN": self.op, **SAN}
        fd = self.sock.fileno()
        self.proc = subprocess.Popen(
            [LOCUS, "gateway", "serve", "--db", self.db, "--listen", "fd:%d" % fd],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.folder,
            pass_fds=(fd,))
        line = self.proc.stdout.readline().decode()
        self.assertIn("listening on " + self.url, line, line)

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
        while not stop.wait(0.01):
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

    def run_runner(self, run, key):
        env = {"PATH": "/usr/bin:/bin", "HOME": self.box, "LOCUS_ADMIT_URL": self.url,
               "LOCUS_ADMIT_TOKEN": run["token"], "LOCUS_RUN_ID": run["run_id"],
               "LOCUS_RUNNER_ROOT": self.box, "OPENAI_API_KEY": key, **SAN}
        p = subprocess.run([LOCUS, "runner"], env=env, capture_output=True, timeout=600)
        return p.returncode, p.stderr.decode(errors="replace")

    def runner_log(self):
        try:
            with open(os.path.join(self.box, ".locus", "runner.log")) as f:
                return f.read()
        except OSError as e:
            return str(e)

    def test_real_runner_in_the_kill_loop_loses_nothing(self):
        self.box = os.path.join(self.folder, "box")
        os.mkdir(self.box)
        key = "ph-model-" + uuid.uuid4().hex
        model = FakeModel(key)
        self.addCleanup(model.close)
        turns, kinds = [], {}
        for i in range(36):
            if i % 9 == 4:
                c = ("p%d" % i, "bash", {"command": "git push origin main"})
            elif i % 3 == 0:
                c = ("w%d" % i, "write", {"path": "f%d.txt" % i, "content": "note %d\n" % i})
            elif i % 3 == 1:
                c = ("b%d" % i, "bash", {"command": "echo ran %d" % i})
            else:
                c = ("r%d" % i, "read", {"path": "f%d.txt" % (i - 2)})
            kinds[c[0]] = c
            turns.append({"tool_calls": [{"id": c[0], "name": c[1], "arguments": c[2]}]})
        turns.append({"content": "All notes written."})
        model.scripts["write the notes"] = turns
        definition = {"input": "write the notes",
                      "tools": [{"name": n, "runs": "box"} for n in ("bash", "read", "write")],
                      "model": {"model": "fake-model", "base_url": model.url,
                                "api_key_env": "OPENAI_API_KEY"},
                      "budgets": {"max_iterations": 60, "park_ttl_s": 0},
                      "policy": {"preset": "standard"}, "workspace": self.box}
        status, run = self.http("POST", "/v1/runs", {"definition": definition, "box": "none"})
        self.assertEqual(status, 201, run)
        rid = run["run_id"]
        stop = threading.Event()
        t = threading.Thread(target=self.killer, args=(stop,), daemon=True)
        t.start()
        decided, starts = {}, 0
        try:
            while True:
                rc, err = self.run_runner(run, key)
                starts += 1
                self.assertEqual(rc, 0, "runner: %s\n%s" % (err, self.runner_log()))
                status, shown = self.http("GET", "/v1/runs/" + rid)
                self.assertEqual(status, 200, shown)
                state = shown["run"]["state"]
                if state == "done":
                    break
                self.assertEqual(state, "parked", shown["run"]["result"])
                waiting = shown["run"]["result"]["waiting"]
                ap = waiting["approval_id"]
                # every other hold is denied, with who and why
                approve = len(decided) % 2 == 0
                status, ans = self.http("POST", "/v1/approvals/" + ap,
                                        {"decision": "approve" if approve else "deny",
                                         "by": "erin", "why": "hold %d" % len(decided)})
                self.assertIn(status, (200, 409), ans)  # 409: decided, answer lost
                decided[waiting["call_id"]] = (ap, approve)
                self.assertLess(starts, 20, "the run never ended")
        finally:
            stop.set()
            t.join(timeout=60)
        print("real runner: killed %d times, %d runner processes" % (self.kills, starts),
              file=sys.stderr)
        self.assertGreaterEqual(self.kills, 8, "the gateway was killed often enough")
        self.assertEqual(model.violations, [])

        status, shown = self.http("GET", "/v1/runs/" + rid)
        self.assertEqual(shown["run"]["result"]["final_message"], "All notes written.")
        # every event the runner numbered is there once, in order; none is
        # left in its spool
        with open(os.path.join(self.box, ".locus", "events.seq")) as f:
            next_seq = int(f.read().strip())
        self.assertEqual([e["seq"] for e in shown["events"]], list(range(next_seq)))
        self.assertFalse(os.path.exists(os.path.join(self.box, ".locus", "events.jsonl")))
        evs = [e["event"] for e in shown["events"]]
        done = {}
        for e in evs:
            if e["type"] == "tool_complete":
                self.assertNotIn(e["call_id"], done, "a call completed twice")
                done[e["call_id"]] = e
        self.assertEqual(set(done), set(kinds), "every call has its one tool_complete")
        # what the model was told is what the gateway recorded
        told = {}
        for r in model.requests:
            for m in r["messages"]:
                if m["role"] == "tool":
                    told.setdefault(m["tool_call_id"], m["content"])
        self.assertEqual(set(told), set(kinds))
        con = sqlite3.connect(self.db)
        try:
            recs = [json.loads(r) for (r,) in con.execute(
                "SELECT record FROM audit WHERE kind = 'admission' ORDER BY seq")]
            cps = {c for (c,) in con.execute(
                "SELECT checkpoint_id FROM checkpoints WHERE run_id = ?", (rid,))}
            cp_recs = [json.loads(r)["checkpoint_id"] for (r,) in con.execute(
                "SELECT record FROM audit WHERE kind = 'checkpoint'")]
            self.assertEqual(con.execute("PRAGMA integrity_check").fetchone()[0], "ok")
        finally:
            con.close()
        allowed = {r["call_id"] for r in recs if r["outcome"] == "allow"}
        ran = 0
        for cid, (_, tool, args) in kinds.items():
            result = told[cid]
            not_run = result.startswith("not run:") or result.startswith("denied by")
            if not not_run:
                ran += 1
                # a call that ran was allowed, and that allow is on record
                self.assertIn(cid, allowed, result)
            if tool == "write":
                self.assertEqual(os.path.exists(os.path.join(self.box, args["path"])),
                                 not not_run, result)
        self.assertGreater(ran, len(kinds) // 2, "most calls ran")
        # each held call has exactly one approval, decided as the person said
        aps = {}
        for a in shown["approvals"]:
            self.assertNotIn(a["call_id"], aps, "one approval per held call")
            aps[a["call_id"]] = a
        for cid, (ap, approve) in decided.items():
            a = aps[cid]
            self.assertEqual(a["approval_id"], ap)
            self.assertEqual(a["state"], "consumed" if approve else "denied")
            self.assertEqual(a["decided_by"], "erin")
            if not approve:
                self.assertTrue(told[cid].startswith("denied by a person"), told[cid])
        self.assertGreaterEqual(len(decided), 2, "the run parked and was decided")
        # every checkpoint the gateway recorded is stored
        self.assertTrue(cp_recs and set(cp_recs) <= cps, (cp_recs, cps))
        status, v = self.http("GET", "/v1/audit/verify")
        self.assertTrue(v["intact"], v)


if __name__ == "__main__":
    unittest.main(verbosity=2)
