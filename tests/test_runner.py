#!/usr/bin/python3
"""`locus runner` end to end against the strict fake gateway
(tests/fake_gateway.py) and the scripted fake model (tests/fake_model.py).

Run with /usr/bin/python3; LOCUS_BIN names the locus binary.  Each case
starts its own fakes on 127.0.0.1:0 and its own box (a mktemp folder).
Every case also asserts that the fakes saw no protocol violation and that
neither the token nor a placeholder appears in .locus/runner.log.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_gateway import ApiServer, Gateway, McpServer, digest  # noqa: E402
from fake_model import FakeModel  # noqa: E402

LOCUS = os.environ.get("LOCUS_BIN", "")

BOX_TOOLS = [{"name": n, "runs": "box"} for n in ("bash", "read", "write")]


def manifest(run_id, tools=None, input_="do the task", **extra):
    definition = {"name": "box-agent", "revision": 3,
                  "note": "caf\u00e9 \u2013 \"quoted\" \\ back\nslash",
                  "limits": {"Mid": {"a": "1", "b": "2"}, "alpha": [True, False, None],
                             "zeta": 1, "f": [1.0, 0.5, 1e-05, 1e16, 123456789012345678901234567890, -0.0]}}
    m = {"version": 1, "run_id": run_id, "tenant": "acme", "agent": "box-agent",
         "agent_version": "3", "definition": definition,
         "definition_digest": digest(definition), "instructions": "You are a box agent.",
         "input": input_, "tools": json.loads(json.dumps(BOX_TOOLS if tools is None else tools)),
         "mcp": [], "api": [], "harness": None, "playbook": None,
         "budgets": {"max_iterations": 10, "max_tokens": 100000, "max_cost_usd": 5.0,
                     "timeout_s": 120, "park_ttl_s": 600},
         "model": {"model": "fake-model", "base_url": None, "api_key_env": "OPENAI_API_KEY",
                   "provider": "openai"}}
    m.update(extra)
    return m


class Box:
    def __init__(self, case, tools=None, **extra):
        self.case = case
        self.gw = Gateway()
        self.key = "ph-model-" + uuid.uuid4().hex
        self.model = FakeModel(self.key)
        self.root = tempfile.mkdtemp(prefix="locus-runner-")
        m = manifest("run-1", tools, **extra)
        m["model"]["base_url"] = self.model.url
        self.manifest = m
        self.run = self.gw.add_run("run-1", m)
        self.extra_env = {}
        self.servers = [self.gw, self.model]

    def script(self, turns, input_="do the task"):
        self.model.scripts[input_] = turns

    def env(self, token=None, url=None):
        e = {"PATH": "/usr/bin:/bin", "HOME": self.root,
             "LOCUS_ADMIT_URL": url or self.gw.url,
             "LOCUS_ADMIT_TOKEN": token or self.run.token,
             "LOCUS_RUN_ID": self.run.run_id, "LOCUS_RUNNER_ROOT": self.root,
             "OPENAI_API_KEY": self.key, "LOCUS_SENTINEL": "visible-sentinel"}
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
            if k in os.environ:
                e[k] = os.environ[k]
        e.update({k: v for k, v in self.extra_env.items() if not k.startswith("_")})
        return e

    def start(self, **kw):
        return subprocess.Popen([LOCUS, "runner"], env=self.env(**kw),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def go(self, **kw):
        p = self.start(**kw)
        out, err = p.communicate(timeout=120)
        self.last_stderr = err.decode(errors="replace") + json.dumps(self.run.results[-1:])
        return p.returncode

    def state(self, name):
        return os.path.join(self.root, ".locus", name)

    def log(self):
        try:
            with open(self.state("runner.log"), encoding="utf-8") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def secrets(self):
        return [self.run.token, self.key] + list(self.extra_env.get("_secrets", []))

    def finish(self):
        """No violations; no secret in the log; the fakes closed."""
        try:
            for s in self.servers:
                self.case.assertEqual(s.violations, [], "protocol violations")
            log = self.log()
            for s in self.secrets():
                self.case.assertNotIn(s, log)
        finally:
            for s in self.servers:
                s.close()
            shutil.rmtree(self.root, ignore_errors=True)

    def events(self, run=None):
        run = run or self.run
        seqs = [s for s, _ in run.events]
        self.case.assertEqual(seqs, list(range(len(seqs))), "events numbered once, in order")
        return [e for _, e in run.events]

    def tool_results(self):
        """Tool messages the model received, by call id."""
        out = {}
        for req in self.model.requests:
            for m in req["messages"]:
                if m["role"] == "tool":
                    out[m["tool_call_id"]] = m["content"]
        return out


def task_box(case):
    """A box whose manifest has the task tool and whose gateway makes child
    runs (each with the default manifest, its input the task's prompt)."""
    b = Box(case, tools=BOX_TOOLS + [{"name": "task", "runs": "box"}])

    def child_manifest(parent, body, child_id):
        m = manifest(child_id, input_=body["prompt"])
        m["model"]["base_url"] = b.model.url
        return m
    b.gw.child_manifest = child_manifest
    return b


def bash(cmd, id_=None):
    tc = {"name": "bash", "arguments": {"command": cmd}}
    if id_:
        tc["id"] = id_
    return {"tool_calls": [tc]}


class RunnerTest(unittest.TestCase):
    def setUp(self):
        if not LOCUS or not os.access(LOCUS, os.X_OK):
            self.fail("LOCUS_BIN does not name the locus binary")

    def test_full_run_to_done(self):
        b = Box(self)
        try:
            b.script([
                {"reasoning": "write then read", **bash("echo hello > out.txt && cat out.txt", "c1")},
                {"tool_calls": [{"id": "c2", "name": "read", "arguments": {"path": "out.txt"}}],
                 "mode": "json"},
                {"content": "All done: the file says hello.", "cost": 0.25},
            ])
            self.assertEqual(b.go(), 0, b.last_stderr)
            self.assertEqual(len(b.run.results), 1)
            res = b.run.results[0]
            self.assertEqual(res["status"], "done")
            self.assertEqual(res["final_message"], "All done: the file says hello.")
            self.assertEqual(res["usage_reported"]["prompt_tokens"], 300)
            self.assertEqual(res["cost_usd_reported"], 0.25)
            with open(os.path.join(b.root, "out.txt")) as f:
                self.assertEqual(f.read(), "hello\n")
            tr = b.tool_results()
            self.assertTrue(tr["c1"].startswith("exit 0"), tr["c1"])
            self.assertIn("hello", tr["c2"])
            self.assertEqual([a["call_id"] for a in b.run.admissions], ["c1", "c2"])
            self.assertEqual(b.run.admissions[0], {"run_id": "run-1", "call_id": "c1", "tool": "bash",
                                                   "arguments": {"command": "echo hello > out.txt && cat out.txt"}})
            evs = b.events()
            types = [e["type"] for e in evs]
            for t in ("token", "think", "tool_start", "tool_complete", "harness.exec"):
                self.assertIn(t, types)
            ex = [e for e in evs if e["type"] == "harness.exec"]
            self.assertEqual(len(ex), 1)
            self.assertEqual(ex[0]["call_id"], "c1")
            self.assertEqual(ex[0]["exit_code"], 0)
            think = [e for e in evs if e["type"] == "think"]
            self.assertEqual(think[0], {"type": "think", "iteration": 1, "text": "write then read",
                                        "tool_calls": [{"id": "c1", "name": "bash"}]})
            self.assertEqual("".join(e["text"] for e in evs if e["type"] == "token"),
                             "All done: the file says hello.")
            # the model saw the harness's schemas for box tools
            tools = {t["function"]["name"]: t["function"] for t in b.model.requests[0]["tools"]}
            self.assertIn("command", json.dumps(tools["bash"]["parameters"]))
            self.assertFalse(os.path.exists(b.state("parked.json")))
            self.assertFalse(os.path.exists(b.state("events.jsonl")))
        finally:
            b.finish()

    def test_denied_call_never_runs(self):
        b = Box(self)
        answers = {
            "d1": {"outcome": "deny", "allowed": False, "reason": "rm is never allowed"},
            "d2": {"outcome": "allow", "allowed": False},
            "d3": {"outcome": "allow", "surprise": 1},             # unknown field
            "d4": 500,                                             # the gateway fails
            "d5": {"outcome": "require_human"},                    # no approval id
            "d6": {"outcome": "maybe"},
            "d7": b"{not json",
            "d8": {"outcome": ["allow"]},                          # wrong type
        }
        b.gw.policy = lambda run, body: answers[body["call_id"]]
        turns = [bash("touch ran-%s" % k, k) for k in answers] + [{"content": "gave up"}]
        b.script(turns)
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            for k in answers:
                self.assertFalse(os.path.exists(os.path.join(b.root, "ran-" + k)), k)
            tr = b.tool_results()
            self.assertEqual(tr["d1"], "denied by the gateway: rm is never allowed")
            self.assertTrue(tr["d4"].startswith("not run: the gateway could not decide this call ("), tr["d4"])
            self.assertTrue(tr["d3"].startswith("not run: the gateway could not decide"), tr["d3"])
            self.assertTrue(tr["d7"].startswith("not run: the gateway could not decide"), tr["d7"])
            for k in ("d2", "d5", "d6", "d8"):
                self.assertTrue(tr[k].startswith("denied by the gateway") or tr[k].startswith("not run"), tr[k])
            self.assertNotIn("harness.exec", [e["type"] for e in b.events()])
            self.assertEqual(b.run.results[0]["status"], "done")
        finally:
            b.finish()

    def test_refused_manifests(self):
        cases = {
            "another run": lambda m: m.update(run_id="run-2"),
            "unknown tool": lambda m: m["tools"].append({"name": "frobnicate", "runs": "box"}),
            "unknown field": lambda m: m.update(surprise=True),
            "digest": lambda m: m.update(definition_digest="sha256:" + "0" * 64),
            "sse mount": lambda m: (m["mcp"].append({"id": "x", "url": "http://127.0.0.1:1/mcp",
                                                      "transport": "sse"}),
                                    m["tools"].append({"name": "t", "runs": "mcp:x"})),
            "no such mount": lambda m: m["tools"].append({"name": "t", "runs": "mcp:nope"}),
            "provider": lambda m: m["model"].update(provider="anthropic"),
            "no credential": lambda m: (m["api"].append({"id": "gh", "base_url": "http://127.0.0.1:1",
                                                          "credential_env": "GH_PLACEHOLDER"}),
                                        m["tools"].append({"name": "t", "runs": "api:gh",
                                                           "operation": {"path": "/x"}})),
            "wrong type": lambda m: m["budgets"].update(max_iterations="10"),
            "tool field": lambda m: m["tools"].append({"name": "t", "runs": "gateway", "extra": 1}),
            "token as model key": lambda m: m["model"].update(api_key_env="LOCUS_ADMIT_TOKEN"),
            "harness not an object": lambda m: m.update(harness="plan"),
            "playbook not an object": lambda m: m.update(playbook=["s1"]),
        }
        for name, edit in cases.items():
            with self.subTest(name):
                b = Box(self)
                edit(b.manifest)
                try:
                    self.assertEqual(b.go(), 2, name + ": " + b.last_stderr)
                    self.assertEqual([r["status"] for r in b.run.results], ["refused"], name)
                    self.assertEqual(b.model.requests, [], name)
                    self.assertEqual(b.run.admissions, [], name)
                finally:
                    b.finish()

    def system_prompt_of(self, **extra):
        """The system message the model got for a one-turn run with the
        manifest edited by extra (None when there was none)."""
        b = Box(self, **extra)
        try:
            b.script([{"content": "planned."}])
            self.assertEqual(b.go(), 0, b.last_stderr)
            self.assertEqual([r["status"] for r in b.run.results], ["done"])
            msgs = b.model.requests[0]["messages"]
            sys_ = [m["content"] for m in msgs if m["role"] == "system"]
            self.assertLessEqual(len(sys_), 1)
            return sys_[0] if sys_ else None
        finally:
            b.finish()

    def test_harness_and_playbook_shape_the_prompt(self):
        """decision 17: harness and playbook are accepted, carried as the
        original does: plan_mode adds a section, the playbook an outline,
        other keys are read by nobody."""
        harness = {"plan_mode": True, "profile": "strict", "limits": {"x": [1, 2]}}
        playbook = {"name": "release", "version": 2, "owner": {"team": "infra"},
                    "steps": [{"id": "s1", "title": "Build", "instructions": "run make",
                               "gate": "ci"},
                              {"id": "s2", "description": "ship it"},
                              "not a step",
                              {"id": "s3", "title": "Tell", "instructions": "",
                               "description": "post a note"}]}
        text = self.system_prompt_of(harness=harness, playbook=playbook)
        self.assertEqual(text, "You are a box agent.\n\n## Plan mode\n"
                         "You are in plan mode: investigate and write a plan, but change "
                         "nothing. When the plan is ready, present it and wait. Calls that "
                         "change the workspace are refused until the plan is accepted.\n\n"
                         "## Playbook: release\n- s1: Build -- run make\n- s2: s2 -- ship it\n"
                         "- s3: Tell -- post a note\n"
                         "Work through the steps in order. The gateway checks every step.")
        for k in ("strict", "infra", "ci", "limits"):
            self.assertNotIn(k, text)

    def test_plan_mode_off_and_playbook_by_id(self):
        # plan_mode false (or absent) adds nothing; a playbook without a name
        # is named by its id; no instructions: the outline alone
        self.assertEqual(self.system_prompt_of(harness={"plan_mode": False}),
                         "You are a box agent.")
        self.assertEqual(self.system_prompt_of(harness={}), "You are a box agent.")
        self.assertEqual(self.system_prompt_of(instructions="", playbook={"id": "pb-7"}),
                         "## Playbook: pb-7\nWork through the steps in order. "
                         "The gateway checks every step.")
        self.assertIsNone(self.system_prompt_of(instructions="", harness={"plan_mode": 0}))
        self.assertIn("## Plan mode", self.system_prompt_of(harness={"plan_mode": "yes"}))

    def test_gateway_url_with_a_slash(self):
        b = Box(self)
        b.script([{"content": "fine"}])
        try:
            self.assertEqual(b.go(url=b.gw.url + "/"), 0, b.last_stderr)
        finally:
            b.finish()

    def test_no_gateway(self):
        b = Box(self)
        s = __import__("socket").socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()  # nothing listens there now
        try:
            # go() waits 120 s at most: a runner that kept retrying fails
            self.assertEqual(b.go(url="http://127.0.0.1:%d" % port), 1)
            self.assertEqual(b.model.requests, [])
            self.assertIn("next", b.log())
        finally:
            b.finish()

    def test_wrong_token_is_an_error(self):
        b = Box(self)
        try:
            self.assertEqual(b.go(token="not-the-token"), 1)
            self.assertEqual(b.model.requests, [])
            b.gw.violations.clear()  # the fake recorded the refusal on purpose
        finally:
            b.finish()

    def test_stop_and_unknown_op(self):
        for op in ({"op": "stop", "reason": "cancelled"}, {"op": "dance"},
                   {"op": "start", "extra": 1}, {"op": "resume"}):
            with self.subTest(op=op):
                b = Box(self)
                b.run.next_ops = [op]
                try:
                    self.assertEqual(b.go(), 0)
                    self.assertEqual(b.run.results, [])
                    self.assertEqual(b.model.requests, [])
                finally:
                    b.finish()

    def test_malformed_model_answer_fails_closed(self):
        for mode in ("garbage", "no_done", "no_id", "bad_index"):
            with self.subTest(mode):
                b = Box(self)
                b.script([{"mode": mode, **bash("touch never")}])
                try:
                    self.assertEqual(b.go(), 1, mode)
                    self.assertFalse(os.path.exists(os.path.join(b.root, "never")))
                    self.assertEqual(b.run.admissions, [])
                    self.assertEqual(b.run.results[0]["status"], "error")
                finally:
                    b.finish()

    def test_gateway_outage_mid_run(self):
        # the gateway goes away at the second call's admission and for the
        # event posts after it: that call does not run, the events are
        # spooled, and once it is back they arrive once, in order
        b = Box(self)

        def policy(run, body):
            if body["call_id"] == "g2":
                b.gw.down_requests = 3
                return 503
            return {"outcome": "allow"}
        b.gw.policy = policy
        b.script([bash("touch ran-g1", "g1"), bash("touch ran-g2", "g2"), bash("touch ran-g3", "g3"),
                  {"content": "done"}])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            self.assertTrue(os.path.exists(os.path.join(b.root, "ran-g1")))
            self.assertFalse(os.path.exists(os.path.join(b.root, "ran-g2")))
            self.assertTrue(os.path.exists(os.path.join(b.root, "ran-g3")))
            self.assertTrue(b.tool_results()["g2"].startswith("not run: the gateway could not decide"))
            evs = b.events()
            self.assertEqual([e["call_id"] for e in evs if e["type"] == "tool_complete"], ["g1", "g2", "g3"])
            self.assertIn("spooled", b.log())
            self.assertFalse(os.path.exists(b.state("events.jsonl")))
        finally:
            b.finish()

    def test_lost_event_answer_is_not_sent_twice(self):
        b = Box(self)
        b.gw.lose_event_answers = 2
        b.script([bash("echo a", "l1"), bash("echo b", "l2"), {"content": "done"}])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            evs = b.events()   # numbered once, in order: nothing twice
            self.assertEqual([e["call_id"] for e in evs if e["type"] == "harness.exec"], ["l1", "l2"])
            self.assertIn("already", b.log())
        finally:
            b.finish()

    def test_forged_spool_lines_are_dropped(self):
        b = Box(self)
        b.gw.events_down = 10 ** 6
        b.script([bash("echo first", "f1"), {"content": "finished"}])
        try:
            self.assertEqual(b.go(), 1)
            with open(b.state("events.jsonl")) as f:
                lines = f.read().splitlines()
            last = json.loads(lines[-1])
            forged = {"seq": last["seq"] + 1, "mac": "0" * 64,
                      "event": {"type": "harness.exec", "call_id": "f1", "command_sha256": "forged",
                                "exit_code": 0, "duration_s": 0, "timed_out": False,
                                "output_sha256": "forged", "output_bytes": 0, "truncated": False,
                                "background": False, "attested_by": "runner"}}
            unsigned = dict(forged, seq=last["seq"] + 2)
            del unsigned["mac"]
            with open(b.state("events.jsonl"), "a") as f:
                f.write(json.dumps(forged) + "\n" + json.dumps(unsigned) + "\n")
            b.gw.events_down = 0
            b.run.next_ops = [{"op": "start"}]
            b.model.scripts["do the task"] = [{"content": "again"}]
            self.assertEqual(b.go(), 0, b.last_stderr)
            evs = b.events()
            self.assertEqual(len(evs), len(lines) + 2)   # the spooled ones, then this run's think + token
            self.assertNotIn("forged", json.dumps(evs))
            self.assertIn("2 spool lines dropped", b.log())
        finally:
            b.finish()

    def test_outage_spools_and_replays_once(self):
        b = Box(self)
        b.gw.events_down = 3   # the first three event posts fail (retries included)
        b.script([bash("echo one", "o1"), bash("echo two", "o2"), bash("echo three", "o3"),
                  {"content": "done"}])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            evs = b.events()
            self.assertEqual([e["call_id"] for e in evs if e["type"] == "harness.exec"], ["o1", "o2", "o3"])
            self.assertFalse(os.path.exists(b.state("events.jsonl")))
            self.assertIn("spooled", b.log())
            self.assertIn("replayed", b.log())
        finally:
            b.finish()

    def test_outage_mid_run_then_resume_replays_spool(self):
        # the gateway is down for the events and the result of the first
        # process: its events stay in the spool; a second process replays
        # them before anything new, exactly once
        b = Box(self)
        b.gw.events_down = 10 ** 6
        b.script([bash("echo first", "f1"), {"content": "finished"}])
        try:
            self.assertEqual(b.go(), 1)
            self.assertTrue(os.path.exists(b.state("events.jsonl")))
            self.assertEqual(b.run.events, [])
            b.gw.events_down = 0
            b.run.next_ops = [{"op": "stop", "reason": "seen"}]
            self.assertEqual(b.go(), 0)   # a stop does not replay: nothing posted
            b.run.next_ops = [{"op": "start"}]
            b.model.scripts["do the task"] = [bash("echo second", "s1"), {"content": "again"}]
            self.assertEqual(b.go(), 0, b.last_stderr)
            evs = b.events()
            self.assertEqual([e["call_id"] for e in evs if e["type"] == "harness.exec"], ["f1", "s1"])
            self.assertFalse(os.path.exists(b.state("events.jsonl")))
        finally:
            b.finish()

    def test_hold_approved_in_time(self):
        b = Box(self)
        b.gw.policy = lambda run, body: {"outcome": "require_human", "approval_id": "ap-1",
                                         "reason": "writes outside"}

        def approve_on_third(a, n):
            if n >= 3 and a["state"] == "pending":
                a["state"] = "approved"
        b.script([bash("touch held-ok", "h1"), {"content": "done"}])
        try:
            p = b.start()
            # the approval exists once the first admission answered
            # (polled, 60 s at most)
            end = time.monotonic() + 60
            while "ap-1" not in b.gw.approvals and time.monotonic() < end:
                time.sleep(0.02)
            b.gw.approvals["ap-1"]["on_poll"] = approve_on_third
            out, err = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 0, err.decode())
            self.assertTrue(os.path.exists(os.path.join(b.root, "held-ok")))
            self.assertEqual([a.get("approval_id") for a in b.run.admissions], [None, "ap-1"])
            self.assertEqual(b.gw.approvals["ap-1"]["state"], "consumed")
            self.assertEqual(b.run.results[0]["status"], "done")
        finally:
            b.finish()

    def test_park_and_resume(self):
        b = Box(self)
        b.manifest["budgets"]["park_ttl_s"] = 1
        b.gw.policy = lambda run, body: {"outcome": "require_human", "approval_id": "ap-9",
                                         "reason": "a person decides"}
        b.script([bash("echo before", "p0"), bash("touch parked-cmd", "p1"),
                  {"content": "finished after the approval"}])
        allow_first = {"n": 0}

        def policy(run, body):
            allow_first["n"] += 1
            if body["call_id"] == "p0":
                return {"outcome": "allow"}
            return {"outcome": "require_human", "approval_id": "ap-9", "reason": "a person decides"}
        b.gw.policy = policy
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            self.assertFalse(os.path.exists(os.path.join(b.root, "parked-cmd")))
            res = b.run.results[-1]
            self.assertEqual(res["status"], "parked")
            self.assertEqual(res["waiting"], {"kind": "approval", "call_id": "p1", "tool": "bash",
                                              "approval_id": "ap-9"})
            with open(b.state("parked.json")) as f:
                parked = json.load(f)
            self.assertEqual(parked["waiting"], res["waiting"])
            self.assertEqual(len(b.run.checkpoints), 1)
            state = b.run.checkpoints[parked["checkpoint_id"]]
            self.assertEqual(state["pending"], res["waiting"])
            self.assertEqual(state["counters"]["iterations"], 2)
            n_events = len(b.run.events)
            # the person approves; the gateway starts the box again
            b.gw.approvals["ap-9"]["state"] = "approved"
            b.run.next_ops = [{"op": "resume", "resume": {"approval_id": "ap-9", "decision": "approved"}}]
            self.assertEqual(b.go(), 0, b.last_stderr)
            self.assertTrue(os.path.exists(os.path.join(b.root, "parked-cmd")))
            self.assertEqual(b.run.admissions[-1]["approval_id"], "ap-9")
            self.assertEqual(b.run.admissions[-1]["call_id"], "p1")
            res = b.run.results[-1]
            self.assertEqual(res["status"], "done")
            self.assertEqual(res["final_message"], "finished after the approval")
            evs = b.events()   # numbering continued across the two processes
            self.assertGreater(len(evs), n_events)
            self.assertEqual([e["call_id"] for e in evs if e["type"] == "harness.exec"], ["p0", "p1"])
            self.assertEqual(res["usage_reported"]["iterations"], 3)
        finally:
            b.finish()

    def test_resume_naming_another_approval_is_refused(self):
        b = Box(self)
        b.manifest["budgets"]["park_ttl_s"] = 0
        b.gw.policy = lambda run, body: {"outcome": "require_human", "approval_id": "ap-1"}
        b.script([bash("touch never", "x1"), {"content": "no"}])
        try:
            self.assertEqual(b.go(), 0)
            b.run.next_ops = [{"op": "resume", "resume": {"approval_id": "ap-other", "decision": "approved"}}]
            self.assertEqual(b.go(), 1)
            self.assertFalse(os.path.exists(os.path.join(b.root, "never")))
            self.assertEqual(b.run.results[-1]["status"], "error")
        finally:
            b.finish()

    def test_ask_user_parks_and_the_answer_resumes(self):
        tools = BOX_TOOLS + [{"name": "ask_user", "runs": "box",
                              "parameters": {"type": "object",
                                             "properties": {"question": {"type": "string"}}}}]
        b = Box(self, tools=tools)
        b.script([{"tool_calls": [{"id": "q1", "name": "ask_user",
                                   "arguments": {"question": "Which branch?"}}]},
                  lambda msgs: {"content": "using " + msgs[-1]["content"]}])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            self.assertEqual(b.run.results[-1]["waiting"],
                             {"kind": "question", "call_id": "q1", "question": "Which branch?"})
            b.run.next_ops = [{"op": "resume", "resume": {"answer": "main"}}]
            self.assertEqual(b.go(), 0, b.last_stderr)
            self.assertEqual(b.run.results[-1]["final_message"], "using main")
            b.events()
        finally:
            b.finish()

    def test_child_task_run(self):
        b = task_box(self)
        b.script([{"tool_calls": [{"id": "t1", "name": "task",
                                   "arguments": {"agent": "helper", "prompt": "count files"}}]},
                  lambda msgs: {"content": "parent got: " + msgs[-1]["content"]}])
        b.extra_env = {"CONN_PLACEHOLDER": "ph-conn-parent", "_secrets": ["ph-conn-parent"]}
        b.manifest["api"] = [{"id": "c", "base_url": "http://127.0.0.1:9", "credential_env": "CONN_PLACEHOLDER"}]
        b.manifest["tools"].append({"name": "noop", "runs": "api:c", "operation": {"path": "/"}})
        b.script([bash("echo child-was-here > child.txt; env", "k1"), {"content": "child says hi"}],
                 input_="count files")
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            child = b.gw.runs["run-1-c1"]
            self.assertEqual(child.results[0]["status"], "done")
            self.assertEqual([a["call_id"] for a in child.admissions], ["k1"])
            seen = b.tool_results()["k1"]
            self.assertIn("LOCUS_SENTINEL=visible-sentinel", seen)
            for s in b.secrets() + [child.token]:
                self.assertNotIn(s, seen)
            with open(os.path.join(b.root, ".locus", "children", "run-1-c1", "runner.log")) as f:
                clog = f.read()
            for s in b.secrets() + [child.token]:
                self.assertNotIn(s, clog)
            self.assertEqual(b.run.results[0]["final_message"], "parent got: child says hi")
            self.assertTrue(os.path.exists(os.path.join(b.root, "child.txt")))
            self.assertTrue(os.path.exists(os.path.join(b.root, ".locus", "children", "run-1-c1",
                                                        "runner.log")))
            b.events(child)
            b.events()
        finally:
            b.finish()

    def test_long_parked_file_names_its_checkpoint(self):
        # parked.json was read into 4 KiB: a longer one (a long question)
        # failed to parse and the resume asked for the newest checkpoint
        tools = BOX_TOOLS + [{"name": "ask_user", "runs": "box",
                              "parameters": {"type": "object",
                                             "properties": {"question": {"type": "string"}}}}]
        b = Box(self, tools=tools)
        question = "Which branch? " + "x" * 8000
        b.script([{"tool_calls": [{"id": "q1", "name": "ask_user",
                                   "arguments": {"question": question}}]},
                  lambda msgs: {"content": "using " + msgs[-1]["content"]}])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            self.assertGreater(os.path.getsize(b.state("parked.json")), 8000)
            b.run.next_ops = [{"op": "resume", "resume": {"answer": "main"}}]
            self.assertEqual(b.go(), 0, b.last_stderr)
            self.assertEqual(b.run.checkpoint_gets[-1].get("checkpoint_id"), ["cp-1"])
            self.assertEqual(b.run.results[-1]["final_message"], "using main")
            b.events()
        finally:
            b.finish()

    def test_child_result_past_64_kib(self):
        # the child's result.json was read into 64 KiB: a longer final
        # message was "a child run without a readable result"
        b = task_box(self)
        b.script([{"tool_calls": [{"id": "t1", "name": "task",
                                   "arguments": {"agent": "helper", "prompt": "say a lot"}}]},
                  lambda msgs: {"content": "parent got %d" % len(msgs[-1]["content"])}])
        b.script([{"content": "y" * 100000}], input_="say a lot")
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            self.assertEqual(b.run.results[0]["final_message"], "parent got 100000")
            b.events()
        finally:
            b.finish()

    def test_mcp_and_api_tools_carry_the_decision(self):
        b = Box(self)
        mcp = McpServer(b.gw, "ph-mcp-secret", {"create_issue": lambda a: "issue #7: " + a["title"]})
        routes = {("GET", "/base/repos/acme/issues"):
                  ("list_issues", lambda q, body: ({"owner": "acme", "state": q["state"][0]}, "[1, 2]"))}
        api = ApiServer(b.gw, "ph-api-secret", routes)
        b.servers += [mcp, api]
        b.extra_env = {"MCP_PLACEHOLDER": "ph-mcp-secret", "API_PLACEHOLDER": "ph-api-secret",
                       "_secrets": ["ph-mcp-secret", "ph-api-secret"]}
        b.manifest["mcp"] = [{"id": "gh", "url": mcp.url + "/mcp", "transport": "streamable_http",
                              "tools": ["create_issue"], "credential_env": "MCP_PLACEHOLDER"}]
        b.manifest["api"] = [{"id": "rest", "base_url": api.url + "/base/",
                              "credential_env": "API_PLACEHOLDER"}]
        b.manifest["tools"] = BOX_TOOLS + [
            {"name": "create_issue", "runs": "mcp:gh", "description": "make an issue"},
            {"name": "list_issues", "runs": "api:rest",
             "operation": {"method": "GET", "path": "/repos/{owner}/issues", "query": ["state"]}},
            {"name": "open_port", "runs": "gateway"}]
        b.gw.gateway_tools["open_port"] = lambda a: {"content": "port %d open" % a["port"]}
        b.script([{"tool_calls": [{"id": "m1", "name": "create_issue", "arguments": {"title": "bug"}}]},
                  {"tool_calls": [{"id": "a1", "name": "list_issues",
                                   "arguments": {"owner": "acme", "state": "open"}}]},
                  {"tool_calls": [{"id": "g1", "name": "open_port", "arguments": {"port": 8080}}]},
                  {"content": "ok"}])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            tr = b.tool_results()
            self.assertEqual(tr["m1"], "issue #7: bug")
            self.assertEqual(tr["a1"], "[1, 2]")
            self.assertEqual(tr["g1"], "port 8080 open")
            self.assertEqual(mcp.calls, [("create_issue", {"title": "bug"})])
            self.assertEqual(len(api.calls), 1)
            # the gateway tool is not admitted by the runner
            self.assertEqual([a["call_id"] for a in b.run.admissions], ["m1", "a1"])
            self.assertEqual(len(b.gw.used_decisions), 2)
            for ev in b.events():
                self.assertNotIn("dt-", json.dumps(ev))
        finally:
            b.finish()

    def _mcp_prefix_case(self, prefix):
        """One tools/call whose SSE answer has `prefix` before the answer's
        event; the tool result the model got, and the server's calls."""
        b = Box(self)
        mcp = McpServer(b.gw, "ph-mcp-secret", {"create_issue": lambda a: "issue #7"})
        mcp.prefix_events = prefix
        b.servers += [mcp]
        b.extra_env = {"MCP_PLACEHOLDER": "ph-mcp-secret", "_secrets": ["ph-mcp-secret"]}
        b.manifest["mcp"] = [{"id": "gh", "url": mcp.url + "/mcp", "transport": "streamable_http",
                              "tools": ["create_issue"], "credential_env": "MCP_PLACEHOLDER"}]
        b.manifest["tools"] = BOX_TOOLS + [
            {"name": "create_issue", "runs": "mcp:gh", "description": "make an issue"}]
        b.script([{"tool_calls": [{"id": "m1", "name": "create_issue", "arguments": {"title": "bug"}}]},
                  {"content": "ok"}])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            return b.tool_results()["m1"], list(mcp.calls)
        finally:
            b.finish()

    def test_mcp_events_without_data_are_passed_over(self):
        # a keep-alive event with empty data and the id-only event MCP lets
        # a server send first carry no message (docs/runner.md)
        got, calls = self._mcp_prefix_case("data:\r\n\r\nid: 0\r\ndata: \r\n\r\n")
        self.assertEqual(got, "issue #7")
        self.assertEqual(len(calls), 1)

    def test_mcp_event_that_is_no_message_fails_the_call(self):
        # an event whose data is not a JSON-RPC message (not JSON, a JSON
        # array, a string) makes the answer unreadable: a clear error to
        # the model, never the answer event after it
        for prefix in ("data: not json\r\n\r\n", "data: [1, 2]\r\n\r\n",
                       'data: "x"\r\n\r\n'):
            with self.subTest(prefix=prefix):
                got, calls = self._mcp_prefix_case(prefix)
                self.assertEqual(got, "MCP gh: the answer has an event that is not a "
                                      "JSON-RPC message (the call may have run)")
                self.assertEqual(len(calls), 1)   # the server ran it: the error says so

    def _secret_case(self, harden):
        b = Box(self)
        b.extra_env = {"CONN_PLACEHOLDER": "ph-conn-" + uuid.uuid4().hex}
        b.extra_env["_secrets"] = [b.extra_env["CONN_PLACEHOLDER"]]
        b.manifest["api"] = [{"id": "c", "base_url": "http://127.0.0.1:9", "credential_env": "CONN_PLACEHOLDER"}]
        b.manifest["tools"] = BOX_TOOLS + [{"name": "noop", "runs": "api:c", "operation": {"path": "/"}}]
        if harden:
            b.extra_env["LOCUS_RUNNER_HARDEN"] = "non-dumpable"
        holder = {}
        b.script([lambda msgs: bash("tr '\\0' '\\n' < /proc/%d/environ; echo ---; env; "
                                    "echo ---; tr '\\0' '\\n' < /proc/self/environ" % holder["pid"], "e1"),
                  {"content": "looked"}])
        try:
            p = subprocess.Popen([LOCUS, "runner"], env=b.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            holder["pid"] = p.pid
            out, err = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 0, err.decode())
            seen = b.tool_results()["e1"]
            self.assertIn("LOCUS_SENTINEL=visible-sentinel", seen)   # the command did read
            for s in b.secrets():
                self.assertNotIn(s, seen)
            for ev in b.events():
                for s in b.secrets():
                    self.assertNotIn(s, json.dumps(ev))
            for s in b.secrets():
                self.assertNotIn(s, err.decode())
            self.assertIn("wiped", b.log())
        finally:
            b.finish()

    def test_secrets_kept_from_commands(self):
        self._secret_case(False)

    def test_secrets_kept_from_commands_hardened(self):
        self._secret_case(True)

    def test_digest_vector(self):
        # the canonical-JSON vector (docs/runner.md), its digest written out (not computed
        # by the fake): the runner's canonical JSON must reproduce it
        b = Box(self)
        b.manifest["definition"] = {"environment": "dev", "limits": {"Mid": {"a": "1", "b": "2"},
                                    "alpha": [True, False, None], "zeta": 1}, "name": "box-agent",
                                    "note": "caf\u00e9 \u2013 \"quoted\" \\ back\nslash", "revision": 3}
        b.manifest["definition_digest"] = \
            "sha256:566fc5ed4eaa12106b413d569e31c5d2f3074e46af774b9b2bd101af11bb905f"
        b.script([{"content": "fine"}])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            b.manifest["definition"]["revision"] = 4
            b.run.next_ops = [{"op": "start"}]
            self.assertEqual(b.go(), 2)
        finally:
            b.finish()

    def test_budget_max_iterations(self):
        b = Box(self)
        b.manifest["budgets"]["max_iterations"] = 2
        b.script([bash("echo 1", "b1"), bash("echo 2", "b2"), bash("echo 3", "b3")])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            res = b.run.results[0]
            self.assertEqual((res["status"], res["stop_reason"]), ("done", "max_iterations"))
            self.assertEqual(len(b.model.requests), 2)
        finally:
            b.finish()


if __name__ == "__main__":
    unittest.main(verbosity=2)
