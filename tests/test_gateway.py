#!/usr/bin/python3
"""`locus gateway` end to end (docs/gateway.md): a gateway on
SQLite, the real `locus runner` started by the test (`--box none`) with the
scripted loopback model (tests/fake_model.py), everything on 127.0.0.1.

Run with /usr/bin/python3; LOCUS_BIN names the locus binary.  Each case
starts its own gateway on 127.0.0.1:0 over a database in a fresh folder,
and polls (never sleeps a fixed time) for what it waits on.
"""
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
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


class Gateway:
    """`locus gateway serve` on 127.0.0.1:0 over dir/gw.db."""

    def __init__(self, case, folder, token=None, env=None, args=()):
        self.case = case
        self.env = env or {}
        self.args = list(args)
        self.folder = folder
        self.db = os.path.join(folder, "gw.db")
        self.token = token or "op-" + uuid.uuid4().hex
        self.start()

    def start(self):
        env = {"PATH": "/usr/bin:/bin", "LOCUS_GATEWAY_TOKEN": self.token, **SAN, **self.env}
        self.proc = subprocess.Popen(
            [LOCUS, "gateway", "serve", "--db", self.db, "--listen", "127.0.0.1:0",
             *self.args],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.folder)
        line = self.proc.stdout.readline().decode()
        self.case.assertIn("listening on http://127.0.0.1:", line,
                           self.proc.stderr.read().decode() if not line else line)
        self.url = line.split("listening on ")[1].split()[0]

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        self.proc.stdout.close()
        self.proc.stderr.close()

    def stop(self):
        if self.proc.stdout.closed:
            return ""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)
        self.proc.stdout.close()
        err = self.proc.stderr.read().decode()
        self.proc.stderr.close()
        self.case.assertEqual(self.proc.returncode, 0, err)
        return err

    def cli(self, *args, check=True, token=None):
        p = subprocess.run([LOCUS, "gateway", *args, "--url", self.url,
                            "--token", token or self.token],
                           capture_output=True, timeout=60, env={"PATH": "/usr/bin:/bin", **SAN})
        if check:
            self.case.assertEqual(p.returncode, 0, p.stderr.decode())
        return p

    def http(self, method, path, body=None, token=None, raw=None, ctype="application/json"):
        """(status, parsed answer) of one request."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if token is not False:
            req.add_header("Authorization", "Bearer " + (token or self.token))
        if data is not None:
            req.add_header("Content-Type", ctype)
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def sql(self, query, *args):
        con = sqlite3.connect(self.db, timeout=30)
        try:
            return con.execute(query, args).fetchall()
        finally:
            con.close()


def definition(model, workspace, **extra):
    d = {"instructions": "You keep notes.", "input": "write the notes",
         "tools": [{"name": n, "runs": "box"} for n in ("bash", "read", "write")],
         "model": {"model": "fake-model", "base_url": model.url,
                   "api_key_env": "OPENAI_API_KEY"},
         "budgets": {"max_iterations": 10, "park_ttl_s": 0},
         "policy": {"preset": "standard"}, "workspace": workspace,
         "definition": {"name": "note-taker", "revision": 1}}
    d.update(extra)
    return d


def call(name, args, id_):
    return {"tool_calls": [{"id": id_, "name": name, "arguments": args}]}


class ExecutableTest(unittest.TestCase):
    """`locus gateway` runs locus-gateway from beside `locus` (cli/gateway_exec.c)."""

    def run_help(self, exe, *pre):
        return subprocess.run([exe, *pre, "--help"], capture_output=True, text=True,
                              timeout=60, env={**os.environ, **SAN})

    def test_locus_gateway_is_the_same_command(self):
        via = self.run_help(LOCUS, "gateway")
        alone = self.run_help(os.path.join(os.path.dirname(LOCUS), "locus-gateway"))
        self.assertIn("usage: locus gateway serve", via.stdout + via.stderr)
        self.assertEqual((via.returncode, via.stdout, via.stderr),
                         (alone.returncode, alone.stdout, alone.stderr))

    def test_missing_locus_gateway_is_a_clear_error(self):
        folder = tempfile.mkdtemp(prefix="locus-gw-exe-")
        try:
            lone = os.path.join(folder, "locus")
            shutil.copy(LOCUS, lone)
            r = subprocess.run([lone, "gateway", "runs"], capture_output=True, text=True,
                               timeout=60, env={**os.environ, **SAN})
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("locus gateway: cannot run %s/locus-gateway" % folder, r.stderr)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


class GatewayTest(unittest.TestCase):
    def setUp(self):
        if not LOCUS or not os.access(LOCUS, os.X_OK):
            self.fail("LOCUS_BIN does not name the locus binary")
        self.folder = tempfile.mkdtemp(prefix="locus-gw-")
        self.root = os.path.join(self.folder, "box")
        os.mkdir(self.root)
        self.key = "ph-model-" + uuid.uuid4().hex
        self.model = FakeModel(self.key)
        # a local box gets the gateway's own value of the model's key
        self.gw = Gateway(self, self.folder, env={"OPENAI_API_KEY": self.key})

    def tearDown(self):
        self.gw.stop()
        self.model.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def create(self, box="none", **extra):
        path = os.path.join(self.folder, "def-%s.json" % uuid.uuid4().hex[:6])
        with open(path, "w") as f:
            json.dump(definition(self.model, self.root, **extra), f)
        out = json.loads(self.gw.cli("run", "create", "--definition", path,
                                     "--box", box).stdout)
        self.assertEqual(set(out), {"run_id", "token", "url", "box"})
        self.assertEqual(out["url"], self.gw.url)
        return out

    def runner(self, run, url=None):
        env = {"PATH": "/usr/bin:/bin", "HOME": self.root,
               "LOCUS_ADMIT_URL": url or run["url"], "LOCUS_ADMIT_TOKEN": run["token"],
               "LOCUS_RUN_ID": run["run_id"], "LOCUS_RUNNER_ROOT": self.root,
               "OPENAI_API_KEY": self.key, **SAN}
        p = subprocess.run([LOCUS, "runner"], env=env, capture_output=True, timeout=300)
        return p.returncode, p.stderr.decode(errors="replace")

    def show(self, run_id):
        return json.loads(self.gw.cli("show", run_id).stdout)

    def wait_state(self, run_id, states, deadline_s=120):
        """Poll the run until its state is one of states."""
        end = time.monotonic() + deadline_s
        while True:
            shown = self.show(run_id)
            if shown["run"]["state"] in states:
                return shown
            if time.monotonic() > end:
                try:
                    with open(os.path.join(self.root, ".locus", "runner.log")) as f:
                        log = f.read()
                except OSError as e:
                    log = str(e)
                self.fail("run %s is still %s; runner.log:\n%s" % (
                    run_id, shown["run"]["state"], log))
            time.sleep(0.05)

    def test_local_box_parks_and_is_started_again_on_the_decision(self):
        if not os.access("/usr/bin/bwrap", os.X_OK):
            raise unittest.SkipTest("no bubblewrap")
        self.model.scripts["write the notes"] = [
            call("write", {"path": "notes.txt", "content": "from the box\n"}, "w1"),
            call("bash", {"command": "cat notes.txt"}, "b1"),
            call("bash", {"command": "git push origin main"}, "p1"),
            {"content": "Done in the box."},
        ]
        run = self.create(box="local")
        shown = self.wait_state(run["run_id"], ("parked", "done", "error", "refused"))
        self.assertEqual(shown["run"]["state"], "parked", shown["run"]["result"])
        # the printed token was superseded by the box's own
        self.assertEqual(self.gw.http("GET", "/internal/v1/runner/next", token=run["token"])[0],
                         401)
        ap = json.loads(self.gw.cli("approvals").stdout.splitlines()[0])
        out = json.loads(self.gw.cli("decide", ap["approval_id"], "approve", "--by", "carol",
                                     "--why", "fine").stdout)
        self.assertTrue(out["resumed"])
        shown = self.wait_state(run["run_id"], ("done", "error", "refused"))
        self.assertEqual(shown["run"]["state"], "done", shown["run"]["result"])
        self.assertEqual(shown["run"]["result"]["final_message"], "Done in the box.")
        with open(os.path.join(self.root, "notes.txt")) as f:
            self.assertEqual(f.read(), "from the box\n")
        done = {e["event"]["call_id"]: e["event"] for e in shown["events"]
                if e["event"]["type"] == "tool_complete"}
        self.assertIn("from the box", done["b1"]["result"])
        # the runner ran in the box's own pid namespace (bwrap is pid 1 there)
        with open(os.path.join(self.root, ".locus", "runner.log")) as f:
            pids = {line.split()[1] for line in f if line.strip()}
        self.assertEqual(pids, {"[2]"})
        starts = self.gw.sql("SELECT count(*) FROM audit WHERE kind = 'box.start'")[0][0]
        self.assertEqual(starts, 2)

    def test_run_writes_tests_parks_is_approved_and_finishes(self):
        self.model.scripts["write the notes"] = [
            call("write", {"path": "test.sh", "content": "grep -q hello notes.txt && echo PASS\n"}, "w1"),
            call("write", {"path": "notes.txt", "content": "hello\n"}, "w2"),
            call("bash", {"command": "sh test.sh"}, "t1"),
            call("bash", {"command": "git push origin main"}, "p1"),
            {"content": "Notes written, tests pass."},
        ]
        run = self.create()
        rc, err = self.runner(run)
        self.assertEqual(rc, 0, err)
        shown = self.show(run["run_id"])
        self.assertEqual(shown["run"]["state"], "parked")
        self.assertEqual(shown["run"]["result"]["waiting"]["kind"], "approval")

        # the held call, as a person sees it
        lines = [json.loads(l) for l in self.gw.cli("approvals").stdout.splitlines()]
        self.assertEqual(len(lines), 1, lines)
        ap = lines[0]
        for k in ("approval_id", "run_id", "call_id", "tool", "reason"):
            self.assertIn(k, ap)
        self.assertEqual((ap["run_id"], ap["call_id"], ap["tool"]), (run["run_id"], "p1", "bash"))
        self.assertIn("exec:vcs-push", ap["labels"])
        self.assertIn("require human approval", ap["reason"])

        # the gateway dies hard while the run is parked: nothing is lost
        self.gw.kill()
        self.gw.start()
        self.assertEqual(self.show(run["run_id"])["run"]["state"], "parked")

        out = json.loads(self.gw.cli("decide", ap["approval_id"], "approve", "--by", "alice",
                                     "--why", "pushing is expected here").stdout)
        self.assertEqual(out["state"], "approved")
        self.assertTrue(out["resumed"])
        self.assertEqual(self.gw.cli("approvals").stdout, b"")
        # deciding twice is refused
        p = self.gw.cli("decide", ap["approval_id"], "deny", "--by", "bob", "--why", "late",
                        check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"409", p.stderr)

        rc, err = self.runner({**run, "url": self.gw.url})
        self.assertEqual(rc, 0, err)
        shown = self.show(run["run_id"])
        self.assertEqual(shown["run"]["state"], "done", shown["run"]["result"])
        self.assertEqual(shown["run"]["result"]["final_message"], "Notes written, tests pass.")
        with open(os.path.join(self.root, "notes.txt")) as f:
            self.assertEqual(f.read(), "hello\n")
        seqs = [e["seq"] for e in shown["events"]]
        self.assertEqual(seqs, list(range(len(seqs))), "events numbered once, in order")
        done = {e["event"]["call_id"]: e["event"] for e in shown["events"]
                if e["event"]["type"] == "tool_complete"}
        self.assertEqual(set(done), {"w1", "w2", "t1", "p1"})
        self.assertIn("PASS", done["t1"]["result"])
        self.assertEqual([a["state"] for a in shown["approvals"]], ["consumed"])

        # the decisions and the audit chain are in the database and verify
        adm = self.gw.sql("SELECT record FROM audit WHERE kind = 'admission' ORDER BY seq")
        got = [(json.loads(r)["call_id"], json.loads(r)["outcome"]) for (r,) in adm]
        self.assertEqual(got, [("w1", "allow"), ("w2", "allow"), ("t1", "allow"),
                               ("p1", "require_human"), ("p1", "allow")])
        kinds = {k for (k,) in self.gw.sql("SELECT kind FROM audit")}
        self.assertTrue({"run.create", "run.state", "admission", "approval.decide",
                         "run.result", "checkpoint", "operator.token"} <= kinds, kinds)
        v = json.loads(self.gw.cli("verify").stdout)
        self.assertTrue(v["intact"], v)
        n = v["records"]
        self.assertEqual(n, self.gw.sql("SELECT count(*) FROM audit")[0][0])
        # neither token is kept in the clear
        with open(self.gw.db, "rb") as f:
            raw = f.read()
        if os.path.exists(self.gw.db + "-wal"):
            with open(self.gw.db + "-wal", "rb") as f:
                raw += f.read()
        self.assertNotIn(run["token"].encode(), raw)
        self.assertNotIn(self.gw.token.encode(), raw)

        # an edited record breaks the chain, and verify says where
        self.gw.stop()
        con = sqlite3.connect(self.gw.db)
        con.execute("UPDATE audit SET record = replace(record, 'alice', 'mallory') "
                    "WHERE kind = 'approval.decide'")
        con.commit()
        con.close()
        self.gw.start()
        p = self.gw.cli("verify", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertFalse(json.loads(p.stdout)["intact"])

    def test_a_person_approves_on_the_page(self):
        page = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gateway_page.mjs")
        modules = os.path.join(os.path.dirname(page), "..", "node_modules", "puppeteer-core")
        for need in ("/usr/bin/node", "/usr/bin/chromium", "/usr/bin/bwrap"):
            if not os.access(need, os.X_OK):
                raise unittest.SkipTest("no " + need)
        if not os.path.isdir(modules):
            raise unittest.SkipTest("no node_modules/puppeteer-core (npm ci)")
        self.model.scripts["write the notes"] = [
            call("write", {"path": "notes.txt", "content": "hello\n"}, "w1"),
            call("bash", {"command": "git push origin main"}, "p1"),
            {"content": "Pushed after a person said yes."},
        ]
        run = self.create(box="local")
        self.wait_state(run["run_id"], ("parked",))
        ap = json.loads(self.gw.cli("approvals").stdout.splitlines()[0])
        p = subprocess.run(["/usr/bin/node", page, self.gw.url, self.gw.token, ap["approval_id"],
                            run["run_id"]], capture_output=True, timeout=300,
                           env={"PATH": "/usr/bin:/bin", "HOME": self.folder})
        self.assertEqual(p.returncode, 0, p.stderr.decode(errors="replace"))
        saw = json.loads(p.stdout.decode().splitlines()[-1])
        self.assertIn("git push origin main", saw["seen"]["call"])
        self.assertIn("exec:vcs-push", saw["seen"]["labels"])
        self.assertIn("require human approval", saw["seen"]["reason"])
        self.assertIn("Policy sha256:", saw["seen"]["text"])
        self.assertIn("Pushed after a person said yes.", saw["timeline"])
        self.assertEqual(saw["external"], [], "the page loads nothing from elsewhere")
        shown = self.show(run["run_id"])
        self.assertEqual(shown["run"]["state"], "done")
        self.assertEqual([(a["state"], a["decided_by"], a["justification"])
                          for a in shown["approvals"]],
                         [("consumed", "dana", "checked the remote, push is expected")])

    def test_child_run_of_the_task_tool(self):
        # task is the runner's own tool: a child run whose every call is
        # admitted under this policy (agent:task, allowed by standard)
        policy = {"preset": "standard"}
        tools = [{"name": n, "runs": "box"} for n in ("bash", "read", "write", "task")]
        self.model.scripts["write the notes"] = [
            call("task", {"agent": "helper", "prompt": "count the notes"}, "k1"),
            {"content": "The helper counted."},
        ]
        self.model.scripts["count the notes"] = [
            call("bash", {"command": "echo 3 notes"}, "h1"),
            {"content": "There are 3 notes."},
        ]
        run = self.create(policy=policy, tools=tools)
        rc, err = self.runner(run)
        self.assertEqual(rc, 0, err)
        runs = [json.loads(l) for l in self.gw.cli("runs").stdout.splitlines()]
        child = [r for r in runs if r["parent_id"] == run["run_id"]]
        self.assertEqual(len(child), 1, runs)
        self.assertEqual((child[0]["agent"], child[0]["box"]), ("helper", "child"))
        shown = self.show(child[0]["run_id"])
        self.assertEqual(shown["run"]["state"], "done")
        self.assertEqual(shown["run"]["result"]["final_message"], "There are 3 notes.")
        self.assertEqual(shown["run"]["manifest"]["input"], "count the notes")
        self.assertNotIn("task", [t["name"] for t in shown["run"]["manifest"]["tools"]])
        parent = self.show(run["run_id"])
        self.assertEqual(parent["run"]["state"], "done")
        done = {e["event"]["call_id"]: e["event"] for e in parent["events"]
                if e["event"]["type"] == "tool_complete"}
        self.assertIn("There are 3 notes.", done["k1"]["result"])
        # the child's admissions are its own, on record under its run id
        adm = self.gw.sql("SELECT run_id, record FROM audit WHERE kind = 'admission'")
        self.assertEqual([(r, json.loads(t)["call_id"]) for r, t in adm],
                         [(run["run_id"], "k1"), (child[0]["run_id"], "h1")])
        k1 = json.loads(adm[0][1])
        self.assertEqual(k1["outcome"], "allow", k1)
        self.assertIn("agent:task", k1["labels"])
        self.assertNotIn("unknown-tool", k1["labels"])
        # a policy that wants a person to see child runs holds them by label
        for tool, args, label in (("task", {"agent": "a", "prompt": "p"}, "agent:task"),
                                  ("ask_user", {"question": "q?"}, "agent:question")):
            other = self.create(tools=tools + [{"name": "ask_user", "runs": "box"}], policy={
                "require_verification_score": 0, "deny_for": ["exec:never"],
                "require_human_for": [label]})
            tok = other["token"]
            self.gw.http("GET", "/internal/v1/runner/next", token=tok)
            status, ans = self.gw.http("POST", "/v1/admit", {
                "run_id": other["run_id"], "call_id": "x", "tool": tool, "arguments": args},
                token=tok)
            self.assertEqual((status, ans["outcome"]), (200, "require_human"), ans)
            self.assertIn(label, ans["labels"])
            # an argument of the wrong type: the engine cannot decide, a deny
            status, ans = self.gw.http("POST", "/v1/admit", {
                "run_id": other["run_id"], "call_id": "y", "tool": tool,
                "arguments": {k: 1 for k in args}}, token=tok)
            self.assertEqual((status, ans["outcome"]), (200, "deny"), ans)

    def test_a_question_is_answered_and_a_run_stopped(self):
        # ask_user is a question to a person (agent:question): standard allows it
        policy = {"preset": "standard"}
        tools = [{"name": n, "runs": "box"} for n in ("bash", "ask_user")]
        self.model.scripts["write the notes"] = [
            call("ask_user", {"question": "Which colour?"}, "q1"),
            {"content": "Colour noted."},
        ]
        run = self.create(policy=policy, tools=tools)
        self.assertEqual(self.runner(run)[0], 0)
        shown = self.show(run["run_id"])
        self.assertEqual(shown["run"]["state"], "parked")
        self.assertEqual(shown["run"]["result"]["waiting"]["question"], "Which colour?")
        self.gw.cli("answer", run["run_id"], "blue")
        rc, err = self.runner(run)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.show(run["run_id"])["run"]["state"], "done")
        tool_msgs = {m["tool_call_id"]: m["content"] for r in self.model.requests
                     for m in r["messages"] if m["role"] == "tool"}
        self.assertEqual(tool_msgs["q1"], "blue")
        # answering a run that is not parked on a question is refused
        p = self.gw.cli("answer", run["run_id"], "red", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"409", p.stderr)

        other = self.create()
        # a hold of the run, pending when it is stopped, is abandoned
        tok = other["token"]
        self.gw.http("GET", "/internal/v1/runner/next", token=tok)
        status, ans = self.gw.http("POST", "/v1/admit", {
            "run_id": other["run_id"], "call_id": "p9", "tool": "bash",
            "arguments": {"command": "git push origin main"}}, token=tok)
        self.assertEqual(ans["outcome"], "require_human", ans)
        self.gw.cli("stop", other["run_id"])
        status, ans = self.gw.http("GET", "/v1/approvals?state=abandoned")
        self.assertEqual([(a["call_id"], a["decided_by"], a["justification"])
                          for a in ans["approvals"]], [("p9", "gateway", "the run was stopped")])
        self.assertEqual(self.gw.cli("approvals").stdout, b"")
        rc, err = self.runner(other)
        self.assertEqual(rc, 0, err)
        shown = self.show(other["run_id"])
        self.assertEqual((shown["run"]["state"], shown["run"]["result"]), ("stopped", None))
        self.assertEqual(self.gw.cli("stop", other["run_id"], check=False).returncode, 1)

    def test_denied_by_a_person(self):
        self.model.scripts["write the notes"] = [
            call("bash", {"command": "git push origin main"}, "p1"),
            {"content": "Could not push."},
        ]
        run = self.create()
        self.assertEqual(self.runner(run)[0], 0)
        ap = json.loads(self.gw.cli("approvals").stdout.splitlines()[0])
        self.gw.cli("decide", ap["approval_id"], "deny", "--by", "bob", "--why", "not today")
        rc, err = self.runner(run)
        self.assertEqual(rc, 0, err)
        shown = self.show(run["run_id"])
        self.assertEqual(shown["run"]["state"], "done")
        tool_msgs = [m["content"] for r in self.model.requests for m in r["messages"]
                     if m["role"] == "tool"]
        # who denied it and why reach the model
        self.assertIn("denied by a person (%s): denied by bob: not today" % ap["approval_id"],
                      tool_msgs)
        self.assertEqual([a["state"] for a in shown["approvals"]], ["denied"])

    def test_gateway_performs_web_search(self):
        import http.server
        import threading
        import urllib.parse
        asked = []

        class Search(http.server.BaseHTTPRequestHandler):
            """A SearXNG-style JSON search API on 127.0.0.1."""
            def do_GET(self):
                u = urllib.parse.urlsplit(self.path)
                asked.append((u.path, urllib.parse.parse_qs(u.query)))
                body = json.dumps({"query": "x", "results": [
                    {"title": "Locus gateway", "url": "https://example.org/gw",
                     "content": "the control plane"},
                    {"title": "no url here"},
                    {"title": "Runner", "url": "https://example.org/runner", "content": ""},
                ] + [{"title": "r%d" % i, "url": "https://example.org/%d" % i}
                     for i in range(20)]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Search)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        self.addCleanup(srv.server_close)
        self.addCleanup(srv.shutdown)
        self.gw.stop()
        self.gw = Gateway(self, tempfile.mkdtemp(dir=self.folder),
                          env={"OPENAI_API_KEY": self.key},
                          args=["--web-search-url",
                                "http://127.0.0.1:%d/search?lang=en" % srv.server_address[1]])
        policy = {"require_verification_score": 0, "deny_for": ["exec:never"],
                  "require_human_for": ["network", "unknown-tool"],
                  "permissions": {"allow": ["WebSearch"]}}
        tools = [{"name": "web_search", "runs": "gateway"}]
        self.model.scripts["write the notes"] = [
            call("web_search", {"query": "locus gateway & co"}, "s1"),
            call("web_search", {"query": ""}, "s2"),
            call("web_search", {"query": "x", "limit": 3}, "s3"),
            {"content": "Searched."},
        ]
        run = self.create(policy=policy, tools=tools)
        rc, err = self.runner(run)
        self.assertEqual(rc, 0, err)
        shown = self.show(run["run_id"])
        self.assertEqual(shown["run"]["state"], "done", shown["run"]["result"])
        told = {m["tool_call_id"]: m["content"] for r in self.model.requests
                for m in r["messages"] if m["role"] == "tool"}
        lines = told["s1"].splitlines()
        self.assertEqual(lines[:5], ["1. Locus gateway", "   https://example.org/gw",
                                     "   the control plane", "",
                                     "2. Runner"])
        self.assertEqual(sum(1 for l in lines if l[:1].isdigit()), 10, told["s1"])
        for k in ("s2", "s3"):
            self.assertTrue(told[k].startswith("web_search failed: web_search takes exactly"),
                            told[k])
        # one question asked, with the query encoded, the service's own
        # query kept
        self.assertEqual(asked, [("/search", {"lang": ["en"], "q": ["locus gateway & co"],
                                              "format": ["json"]})])
        adm = [json.loads(r) for (r,) in self.gw.sql(
            "SELECT record FROM audit WHERE kind = 'admission' ORDER BY seq")]
        self.assertEqual([(a["call_id"], a["tool"], a["outcome"]) for a in adm],
                         [("s1", "WebSearch", "allow")])
        did = [json.loads(r) for (r,) in self.gw.sql(
            "SELECT record FROM audit WHERE kind = 'tool.gateway' ORDER BY seq")]
        self.assertEqual([(d["call_id"], d["tool"], d["status"]) for d in did],
                         [("s1", "web_search", 200)])

    def test_gateway_performs_web_fetch(self):
        import http.server
        import threading
        seen = []

        class Page(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                seen.append(self.path)
                body = b"three notes\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        self.addCleanup(srv.server_close)
        self.addCleanup(srv.shutdown)
        port = srv.server_address[1]
        policy = {"require_verification_score": 0, "deny_for": ["exec:never"],
                  "require_human_for": ["network", "unknown-tool"],
                  "permissions": {"allow": ["WebFetch(domain:127.0.0.1)"]}}
        tools = [{"name": "bash", "runs": "box"},
                 {"name": "web_fetch", "runs": "gateway", "description": "fetch a URL",
                  "parameters": {"type": "object", "properties": {"url": {"type": "string"}},
                                 "required": ["url"]}},
                 {"name": "lookup", "runs": "gateway"},
                 {"name": "web_search", "runs": "gateway"}]
        self.model.scripts["write the notes"] = [
            call("web_fetch", {"url": "http://127.0.0.1:%d/notes.txt" % port}, "f1"),
            call("web_fetch", {"url": "http://localhost:%d/secret" % port}, "f2"),
            call("web_fetch", {"url": "file:///etc/passwd"}, "f3"),
            call("lookup", {"q": "x"}, "l1"),
            call("web_search", {"query": "notes"}, "s1"),
            {"content": "Fetched."},
        ]
        run = self.create(policy=policy, tools=tools)
        rc, err = self.runner(run)
        self.assertEqual(rc, 0, err)
        shown = self.show(run["run_id"])
        self.assertEqual(shown["run"]["state"], "done", shown["run"]["result"])
        told = {m["tool_call_id"]: m["content"] for r in self.model.requests
                for m in r["messages"] if m["role"] == "tool"}
        self.assertEqual(told["f1"], "HTTP 200\n\nthree notes\n")
        self.assertTrue(told["f2"].startswith("web_fetch failed: held by the gateway's policy"),
                        told["f2"])
        self.assertIn("nothing was fetched", told["f2"])
        self.assertTrue(told["f3"].startswith("web_fetch failed: web_fetch takes exactly"),
                        told["f3"])
        self.assertTrue(told["l1"].startswith("lookup failed: this gateway performs no tool "
                                              "named lookup"), told["l1"])
        # a gateway without a search service asks nothing and says so
        self.assertEqual(told["s1"], "web_search failed: web_search: this gateway has no "
                                     "search service (serve --web-search-url)")
        self.assertEqual(seen, ["/notes.txt"], "only the allowed URL was fetched")
        # each decision and what was done are on record; a hold makes no approval
        adm = [json.loads(r) for (r,) in self.gw.sql(
            "SELECT record FROM audit WHERE kind = 'admission' ORDER BY seq")]
        self.assertEqual([(a["call_id"], a["tool"], a["outcome"], a.get("performed_by"))
                          for a in adm],
                         [("f1", "WebFetch", "allow", "gateway"),
                          ("f2", "WebFetch", "require_human", "gateway")])
        done = [json.loads(r) for (r,) in self.gw.sql(
            "SELECT record FROM audit WHERE kind = 'tool.gateway'")]
        self.assertEqual([(d["call_id"], d["status"]) for d in done], [("f1", 200)])
        self.assertEqual(shown["approvals"], [])
        # a tool the run's manifest does not list for the gateway is refused
        status, ans = self.gw.http("POST", "/internal/v1/runs/%s/tools/bash" % run["run_id"],
                                   {"call_id": "z", "arguments": {}}, token=run["token"])
        self.assertEqual(status, 404, ans)

    def test_an_approval_nobody_decides_expires(self):
        self.gw.stop()
        self.gw = Gateway(self, self.folder, token=self.gw.token,
                          env={"OPENAI_API_KEY": self.key}, args=["--approval-ttl", "1"])
        # parked: the expiry is a deny the next runner process is told about
        self.model.scripts["write the notes"] = [
            call("bash", {"command": "git push origin main"}, "p1"),
            {"content": "Not pushed."},
        ]
        run = self.create()
        self.assertEqual(self.runner(run)[0], 0)
        self.assertEqual(self.show(run["run_id"])["run"]["state"], "parked")
        end = time.monotonic() + 120
        while True:
            status, ans = self.gw.http("GET", "/v1/approvals?state=expired")
            if ans["approvals"]:
                break
            self.assertLess(time.monotonic(), end, "the approval never expired")
            time.sleep(0.05)
        ap = ans["approvals"][0]
        self.assertEqual((ap["decided_by"], ap["justification"]),
                         ("gateway", "expired: nobody decided within 1 s"))
        # too late for a person
        p = self.gw.cli("decide", ap["approval_id"], "approve", "--by", "al", "--why", "late",
                        check=False)
        self.assertIn(b"409", p.stderr)
        rc, err = self.runner(run)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.show(run["run_id"])["run"]["state"], "done")
        told = [m["content"] for r in self.model.requests for m in r["messages"]
                if m["role"] == "tool"]
        self.assertIn("not approved (%s): expired by gateway: expired: nobody decided within "
                      "1 s" % ap["approval_id"], told)
        recs = [json.loads(r) for (r,) in self.gw.sql(
            "SELECT record FROM audit WHERE kind = 'approval.expire'")]
        self.assertEqual([r["approval_id"] for r in recs], [ap["approval_id"]])
        # a runner still polling is told when its hold expires, and goes on
        self.model.scripts["push again"] = [
            call("bash", {"command": "git push origin main"}, "p2"),
            {"content": "Gave up."},
        ]
        shutil.rmtree(os.path.join(self.root, ".locus"))  # the first run's, done
        run = self.create(input="push again",
                          budgets={"max_iterations": 10, "park_ttl_s": 300})
        rc, err = self.runner(run)
        self.assertEqual(rc, 0, err)
        shown = self.show(run["run_id"])
        self.assertEqual(shown["run"]["state"], "done", shown["run"]["result"])
        told = [m["content"] for r in self.model.requests for m in r["messages"]
                if m["role"] == "tool"]
        self.assertIn("denied by the gateway: the approval %s was expired by gateway: "
                      "expired: nobody decided within 1 s" % shown["approvals"][0]["approval_id"],
                      told)

    def test_who_may_do_what(self):
        a, b = self.create(), self.create()
        refusals = lambda: self.gw.sql("SELECT count(*) FROM audit WHERE kind = 'refusal'")[0][0]
        before = refusals()
        cases = [
            # a run token: not the operator API, not another run, not approvals
            ("GET", "/v1/runs", None, a["token"], 403),
            ("POST", "/v1/approvals/ap-x", {"decision": "approve", "by": "a", "why": "b"},
             a["token"], 403),
            ("GET", "/internal/v1/runs/%s/checkpoint?thread_id=%s" % (b["run_id"], b["run_id"]),
             None, a["token"], 403),
            ("POST", "/v1/admit", {"run_id": b["run_id"], "call_id": "c", "tool": "bash",
                                   "arguments": {}}, a["token"], 403),
            # an operator token does not reach the runner's routes
            ("GET", "/internal/v1/runner/next", None, None, 403),
            # no token, or one nobody issued
            ("GET", "/v1/runs", None, False, 401),
            ("GET", "/v1/runs", None, "lgo_" + "0" * 32, 401),
            ("GET", "/nowhere", None, None, 404),
        ]
        for method, path, body, tok, want in cases:
            with self.subTest(path=path, want=want):
                status, ans = self.gw.http(method, path, body, token=tok)
                self.assertEqual(status, want, ans)
                self.assertIn("detail", ans)
        self.assertEqual(refusals(), before + len(cases))
        # the operator's view is unchanged by all that
        self.assertEqual(self.show(a["run_id"])["run"]["state"], "created")

    def test_tenants_are_isolated(self):
        # a second operator token, for another tenant, minted on the database
        p = subprocess.run([LOCUS, "gateway", "token", "create", "--tenant", "beta",
                            "--db", self.gw.db], capture_output=True, timeout=60,
                           env={"PATH": "/usr/bin:/bin", **SAN})
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        beta = json.loads(p.stdout)
        self.assertEqual(set(beta), {"tenant", "token", "token_id"})
        self.assertEqual(beta["tenant"], "beta")
        # the operator API cannot mint one
        self.assertEqual(self.gw.http("POST", "/v1/tokens", {"tenant": "beta"})[0], 404)
        a = self.create()
        path = os.path.join(self.folder, "def-beta.json")
        self.model.scripts["write the notes"] = [
            call("bash", {"command": "git push origin main"}, "p1"),
            {"content": "Pushed."},
        ]
        with open(path, "w") as f:
            json.dump(definition(self.model, self.root), f)
        b = json.loads(self.gw.cli("run", "create", "--definition", path,
                                   token=beta["token"]).stdout)
        self.assertEqual(self.runner(b)[0], 0)
        ap_b = json.loads(self.gw.cli("approvals", token=beta["token"]).stdout)
        self.assertEqual(ap_b["run_id"], b["run_id"])
        # a parked run admits nothing
        status, adm = self.gw.http("POST", "/v1/admit",
                                   {"run_id": b["run_id"], "call_id": "r1", "tool": "read",
                                    "arguments": {"path": "notes.txt"}}, token=b["token"])
        self.assertEqual(status, 409, adm)  # beta's run is parked: nothing admitted
        refusals = lambda: self.gw.sql(
            "SELECT record FROM audit WHERE kind = 'refusal' ORDER BY seq")
        before = len(refusals())
        bid, apid = b["run_id"], ap_b["approval_id"]
        decide = {"decision": "approve", "by": "mallory", "why": "mine now"}
        cases = [
            # the default tenant's operator: beta's run and approval do not exist
            ("GET", "/v1/runs/" + bid, None, None, 404),
            ("POST", "/v1/approvals/" + apid, decide, None, 404),
            ("POST", "/v1/runs/%s/stop" % bid, {}, None, 404),
            ("POST", "/v1/runs/%s/answer" % bid, {"answer": "x"}, None, 404),
            # nor may it make a run in beta's name
            ("POST", "/v1/runs", {"definition": {**definition(self.model, self.root),
                                                 "tenant": "beta"}}, None, 403),
            # beta's operator: the same for the default tenant's run
            ("GET", "/v1/runs/" + a["run_id"], None, beta["token"], 404),
            ("POST", "/v1/runs/%s/stop" % a["run_id"], {}, beta["token"], 404),
            # a run token: never an approval, another run, or the operator API
            ("POST", "/v1/approvals/" + apid, decide, a["token"], 403),
            ("GET", "/v1/approvals", None, a["token"], 403),
            ("GET", "/v1/runs/" + bid, None, a["token"], 403),
            ("GET", "/v1/admit/approval/" + apid, None, a["token"], 404),
            ("GET", "/internal/v1/runs/%s/checkpoint?thread_id=%s" % (bid, bid), None,
             a["token"], 403),
            ("POST", "/internal/v1/runs/%s/result" % bid, {"status": "done"}, a["token"], 403),
            ("POST", "/v1/admit", {"run_id": bid, "call_id": "c", "tool": "bash",
                                   "arguments": {}}, a["token"], 403),
            # not even its own run's approval
            ("POST", "/v1/approvals/" + apid, decide, b["token"], 403),
        ]
        for method, path, body, tok, want in cases:
            with self.subTest(method=method, path=path, want=want):
                status, ans = self.gw.http(method, path, body, token=tok)
                self.assertEqual(status, want, ans)
                self.assertTrue(ans.get("detail"), ans)
        # every refusal is an audit record naming the request and its status
        recs = [json.loads(r) for (r,) in refusals()][before:]
        self.assertEqual([(r["method"], r["path"], r["status"]) for r in recs],
                         [(m, p.split("?")[0], w) for m, p, _, _, w in cases])
        # lists show only the operator's own tenant
        ids = lambda tok: {json.loads(l)["run_id"]
                           for l in self.gw.cli("runs", token=tok).stdout.splitlines()}
        self.assertEqual(ids(None), {a["run_id"]})
        self.assertEqual(ids(beta["token"]), {bid})
        self.assertEqual(self.gw.cli("approvals").stdout, b"")
        # nothing changed: beta's approval is pending, its run parked
        shown = json.loads(self.gw.cli("show", bid, token=beta["token"]).stdout)
        self.assertEqual(shown["run"]["state"], "parked")
        self.assertEqual([x["state"] for x in shown["approvals"]], ["pending"])
        # beta's operator decides its own; the run goes on
        self.gw.cli("decide", apid, "approve", "--by", "bea", "--why", "ours",
                    token=beta["token"])
        self.assertEqual(self.runner(b)[0], 0)
        shown = json.loads(self.gw.cli("show", bid, token=beta["token"]).stdout)
        self.assertEqual(shown["run"]["state"], "done")
        # a revoked token is no token at all
        p = subprocess.run([LOCUS, "gateway", "token", "revoke", beta["token_id"],
                            "--db", self.gw.db], capture_output=True, timeout=60,
                           env={"PATH": "/usr/bin:/bin", **SAN})
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        self.assertEqual(self.gw.http("GET", "/v1/runs", token=beta["token"])[0], 401)
        listed = subprocess.run([LOCUS, "gateway", "token", "list", "--db", self.gw.db],
                                capture_output=True, timeout=60,
                                env={"PATH": "/usr/bin:/bin", **SAN}).stdout
        tokens = [json.loads(l) for l in listed.splitlines()]
        self.assertEqual(sorted((t["tenant"], t["revoked"]) for t in tokens),
                         [("beta", True), ("default", False)])
        self.assertNotIn(beta["token"].encode(), listed)

    def test_bad_input_changes_nothing(self):
        run = self.create()
        tok = run["token"]
        self.assertEqual(self.gw.http("GET", "/internal/v1/runner/next", token=tok),
                         (200, {"op": "start"}))
        ev = "/internal/v1/runs/%s/events" % run["run_id"]
        count = lambda: self.gw.sql("SELECT count(*) FROM events")[0][0]
        bad = [
            (b'{"seq_from": 0, "events": [', "application/json", 400),
            (b'{"seq_from": 0, "seq_from": 0, "events": []}', "application/json", 400),
            (b'{"seq_from": 0, "events": [{"type": "token", "text": "x"}], "x": 1}',
             "application/json", 422),
            (b'{"seq_from": "0", "events": [{"type": "token", "text": "x"}]}',
             "application/json", 422),
            (b'{"seq_from": 0, "events": [{"type": "shell", "text": "x"}]}',
             "application/json", 422),
            (b'{"seq_from": 0, "events": [{"type": "token", "text": "x", "more": 1}]}',
             "application/json", 422),
            (b'{"seq_from": 0, "events": [{"type": "token", "text": "x"}]}', "text/plain", 415),
            (b'{"seq_from": 0, "events": [{"type": "token", "text": "\\u0000"}]}',
             "application/json", 400),
            (b'\xff{}', "application/json", 400),
            (b' ' * (16 << 20) + b'{}', "application/json", 413),
        ]
        for raw, ctype, want in bad:
            with self.subTest(raw=raw[:40], want=want):
                status, ans = self.gw.http("POST", ev, raw=raw, ctype=ctype, token=tok)
                self.assertEqual(status, want, ans)
                self.assertEqual(count(), 0)
        # a batch taken once; sent again (a lost answer) it is not taken twice
        batch = {"seq_from": 0, "events": [{"type": "token", "text": "a"},
                                           {"type": "token", "text": "b"}]}
        self.assertEqual(self.gw.http("POST", ev, batch, token=tok), (200, {"next_seq": 2}))
        status, ans = self.gw.http("POST", ev, batch, token=tok)
        self.assertEqual((status, ans["next_seq"]), (409, 2))
        status, ans = self.gw.http("POST", ev, {**batch, "seq_from": 5}, token=tok)
        self.assertEqual((status, ans["next_seq"]), (409, 2))
        self.assertEqual(count(), 2)
        # a decision token is taken once, for exactly its call
        adm = {"run_id": run["run_id"], "call_id": "c1", "tool": "read",
               "arguments": {"path": "notes.txt"}}
        status, ans = self.gw.http("POST", "/v1/admit", adm, token=tok)
        self.assertEqual((status, ans["outcome"]), (200, "allow"), ans)
        dt = ans["decision_token"]
        take = {"decision_token": dt, "tool": "read", "arguments": {"path": "other.txt"}}
        self.assertEqual(self.gw.http("POST", "/v1/decisions/take", take)[0], 403)
        take["arguments"] = {"path": "notes.txt"}
        self.assertEqual(self.gw.http("POST", "/v1/decisions/take", take)[0], 200)
        self.assertEqual(self.gw.http("POST", "/v1/decisions/take", take)[0], 403)
        # a re-admission naming an approval of another call is a deny
        status, ans = self.gw.http("POST", "/v1/admit", {**adm, "approval_id": "ap-nope"},
                                   token=tok)
        self.assertEqual((status, ans["outcome"]), (200, "deny"))
        # a definition the runner would refuse is never stored
        path = os.path.join(self.folder, "bad.json")
        with open(path, "w") as f:
            json.dump(definition(self.model, self.root, surprise=1), f)
        p = self.gw.cli("run", "create", "--definition", path, check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"422", p.stderr)
        with open(path, "w") as f:
            json.dump(definition(self.model, self.root, policy={"preset": "nope"}), f)
        self.assertEqual(self.gw.cli("run", "create", "--definition", path,
                                     check=False).returncode, 1)
        self.assertEqual(self.gw.sql("SELECT count(*) FROM runs")[0][0], 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
