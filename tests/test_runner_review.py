#!/usr/bin/python3
"""Regression cases of the runner's security review (docs/runner.md,
"Security model"), run like tests/test_runner.py: /usr/bin/python3, LOCUS_BIN
names the locus binary, each case its own loopback fakes and box.

Each case fails on the runner before its fix: forged spool lines sent as the
runner's own events, spool lines of any shape replayed, the child run's token
in its exec environment, an endless model stream read without bound, API
path arguments `.`/`..`/empty sent, `allowed: null` run, a manifest's
`harness`/`playbook` ignored, numbers out of range cast to integers.
"""
import hashlib
import hmac
import json
import os
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_runner as T  # noqa: E402
from test_runner import BOX_TOOLS, Box, bash, task_box  # noqa: E402
from fake_gateway import ApiServer, canonical  # noqa: E402

def writers(marker):
    """Pids of live processes (not zombies) whose command line holds marker."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if marker not in f.read():
                    continue
            with open("/proc/%s/stat" % pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    continue
        except (OSError, IndexError):
            continue
        found.append(int(pid))
    return found


def spool_line(seq, event):
    """A spool line to be signed with the run's token (sign()): the seq as
    written (an int, or its text)."""
    return (event, str(seq))


def sign(line, token):
    """The line with the MAC the runner writes (HMAC-SHA256 keyed with the
    token over the canonical {"event","seq"}); a str is written as is."""
    if isinstance(line, str):
        return line
    event, seq = line
    plain = '{"event":%s,"seq":%s}' % (canonical(event), seq)
    mac = hmac.new(token.encode(), plain.encode(), hashlib.sha256).hexdigest()
    return '{"event":%s,"mac":"%s","seq":%s}' % (json.dumps(event), mac, seq)


GOOD_TOKEN = spool_line(0, {"text": "replayed-ok", "type": "token"})


class ReviewTest(unittest.TestCase):
    def setUp(self):
        if not T.LOCUS or not os.access(T.LOCUS, os.X_OK):
            self.fail("LOCUS_BIN does not name the locus binary")

    # ---- 1. events: the spool is read only at start-up, each line checked

    def test_spool_forged_while_running_is_not_sent(self):
        """A command rewrites .locus/events.jsonl with 'runner-attested'
        events under the next numbers; the runner must send its own."""
        b = Box(self)
        forged = ('N=$(cat .locus/events.seq); '
                  'printf \'{"event":{"type":"tool_start","call_id":"c1","tool":"bash",'
                  '"arguments":{"command":"echo harmless"}},"seq":%d}\\n'
                  '{"event":{"type":"harness.exec","call_id":"c1","command_sha256":"%s",'
                  '"exit_code":0,"duration_s":0.01,"timed_out":false,"output_sha256":"%s",'
                  '"output_bytes":8,"truncated":false,"background":false,'
                  '"attested_by":"runner"},"seq":%d}\\n\' $N ' + "f" * 64 + ' ' + "e" * 64 +
                  ' $((N+1)) > .locus/events.jsonl; echo REAL-WORK-DONE > real.txt')
        b.script([bash(forged, "c1"), {"content": "done"}])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            evs = b.events()
            self.assertEqual(len([e for e in evs if e["type"] == "tool_start"]), 1)
            execs = [e for e in evs if e["type"] == "harness.exec"]
            self.assertEqual(len(execs), 1)
            self.assertNotEqual(execs[0]["command_sha256"], "f" * 64)
            starts = [e for e in evs if e["type"] == "tool_start"]
            self.assertEqual(starts[0]["arguments"]["command"], forged)
        finally:
            b.finish()

    def test_spool_written_by_a_command_does_not_outlive_the_run(self):
        """A (valid-looking) line a command puts in the spool is gone once
        the run has delivered everything: the next process of the run
        would replay it."""
        b = Box(self)
        line = sign(spool_line(900, {"type": "token", "text": "forged-for-the-next-process"}),
                    b.run.token)
        b.script([bash("echo '%s' > .locus/events.jsonl" % line, "w1"),
                  {"tool_calls": [{"id": "w2", "name": "bash", "arguments": {
                      "command": "while :; do echo '%s' >> .locus/events.jsonl; sleep 0.02; done"
                      % line, "background": True}}]},
                  {"content": "done"}])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            self.assertFalse([e for e in b.events() if e["type"] == "token" and "forged" in e["text"]])
            # the writer is gone (polled, 30 s at most): nothing can put the
            # line back once the run has ended
            end = time.monotonic() + 30
            while writers(b"forged-for-the-next-process") and time.monotonic() < end:
                time.sleep(0.02)
            self.assertFalse(writers(b"forged-for-the-next-process"), "the writer outlived the run")
            self.assertFalse(os.path.exists(b.state("events.jsonl")))
        finally:
            b.finish()

    def _spool_case(self, lines, want_replayed, dropped=True):
        b = Box(self)
        os.makedirs(b.state(""), exist_ok=True)
        with open(b.state("events.jsonl"), "w") as f:
            f.write("".join(sign(line, b.run.token) + "\n" for line in lines))
        b.script([{"content": "fine"}])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            evs = b.events()
            got = [e["text"] for e in evs if e["type"] == "token" and e["text"].startswith("replayed")]
            self.assertEqual(got, want_replayed, lines)
            self.assertNotIn("BAD", json.dumps(evs))
            self.assertFalse(os.path.exists(b.state("events.jsonl")))
            self.assertEqual("spool lines dropped" in b.log(), dropped)
        finally:
            b.finish()

    def test_spool_at_start_up_is_validated(self):
        exec_ev = {"type": "harness.exec", "call_id": "BAD", "command_sha256": "a" * 64,
                   "exit_code": 0, "duration_s": 0.1, "timed_out": False,
                   "output_sha256": "b" * 64, "output_bytes": 1, "truncated": False,
                   "background": False, "attested_by": "runner"}
        bad = [
            spool_line("1e300", {"type": "token", "text": "BAD-huge"}),
            spool_line("-1", {"type": "token", "text": "BAD-negative"}),
            spool_line("1.5", {"type": "token", "text": "BAD-fraction"}),
            spool_line("9007199254740993", {"type": "token", "text": "BAD-2^53"}),
            spool_line(5, {"type": "token", "text": "BAD-gap"}),
            spool_line(0, {"type": "token", "text": "BAD-repeat"}),
            spool_line(1, {"type": "token", "text": "BAD-extra", "x": 1}),
            spool_line(1, {"type": "token", "text": 7, "BAD": 1}),
            spool_line(1, {"type": "playbook_step", "text": "BAD-type"}),
            spool_line(1, {"type": "forged", "text": "BAD-type"}),
            spool_line(1, dict(exec_ev, attested_by="BAD-someone")),
            spool_line(1, {k: v for k, v in exec_ev.items() if k != "exit_code"}),
            '{"event":{"text":"BAD-more","type":"token"},"seq":1,"x":1}',
            '{"seq":1}',
            'not json BAD',
        ]
        for line in bad:
            with self.subTest(line=line):
                # a bad line ends the replay: what follows it is dropped too
                self._spool_case([GOOD_TOKEN, line, spool_line(2, {"type": "token", "text": "BAD-after"})],
                                 ["replayed-ok"])
        good_exec = spool_line(1, dict(exec_ev, call_id="c0"))
        self._spool_case([GOOD_TOKEN, good_exec,
                          spool_line(2, {"type": "token", "text": "replayed-2"})],
                         ["replayed-ok", "replayed-2"], dropped=False)

    # ---- 2. the child run's token and placeholders never in its envp

    def test_child_token_not_in_child_exec_environment(self):
        b = task_box(self)
        b.extra_env = {"CONN_PLACEHOLDER": "ph-conn-parent-x", "_secrets": ["ph-conn-parent-x"]}
        b.manifest["api"] = [{"id": "c", "base_url": "http://127.0.0.1:9",
                              "credential_env": "CONN_PLACEHOLDER"}]
        b.manifest["tools"].append({"name": "noop", "runs": "api:c", "operation": {"path": "/"}})
        b.script([{"tool_calls": [{"id": "t1", "name": "task",
                                   "arguments": {"agent": "helper", "prompt": "child work"}}]},
                  {"content": "bye"}])
        b.script([{"content": "child says hi"}], input_="child work")
        # hold the child's first request so its exec environment can be read
        seen = {}
        route = b.gw._route
        env_read = threading.Event()

        def slow_route(h, method, parts, q, run):
            if parts[1:] == ["internal", "v1", "runner", "next"] and run.run_id != "run-1":
                seen["child_asked"] = True
                env_read.wait(60)  # until the test has read its environment
            return route(h, method, parts, q, run)
        b.gw._route = slow_route
        try:
            p = b.start()
            envs = []
            end = time.time() + 60
            while p.poll() is None and time.time() < end:
                for pid in os.listdir("/proc"):
                    if not pid.isdigit():
                        continue
                    try:
                        with open("/proc/%s/stat" % pid) as f:
                            st = f.read()
                        if int(st[st.rindex(")") + 2:].split()[1]) != p.pid:
                            continue
                        with open("/proc/%s/environ" % pid, "rb") as f:
                            env = f.read()
                    except (OSError, ValueError):
                        continue
                    if b"LOCUS_RUN_ID=run-1-c1" in env:
                        envs.append(env)
                if envs and seen.get("child_asked"):
                    env_read.set()
                time.sleep(0.02)
            env_read.set()
            out, err = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 0, err.decode())
            self.assertTrue(seen.get("child_asked"))
            self.assertTrue(envs, "the child runner was never seen")
            child = b.gw.runs["run-1-c1"]
            self.assertEqual(child.results[0]["status"], "done")
            for env in envs:
                for s in b.secrets() + [child.token]:
                    self.assertNotIn(s.encode(), env)
                self.assertNotIn(b"LOCUS_ADMIT_TOKEN=", env)
            b.events(child)
        finally:
            b.finish()

    def test_token_fd_that_is_not_a_socket_is_refused(self):
        b = Box(self)
        b.script([{"content": "fine"}])
        env = b.env()
        del env["LOCUS_ADMIT_TOKEN"]
        r, w = os.pipe()
        os.write(w, ("LOCUS_ADMIT_TOKEN=%s\n" % b.run.token).encode())
        os.close(w)
        env["LOCUS_ADMIT_TOKEN_FD"] = str(r)
        try:
            p = subprocess.run([T.LOCUS, "runner"], env=env, pass_fds=(r,),
                               capture_output=True, timeout=60)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertEqual(b.run.results, [])
        finally:
            os.close(r)
            b.finish()

    # ---- 4. an endless model stream fails the turn

    def test_endless_model_stream_fails_the_turn(self):
        b = Box(self)
        b.script([{"mode": "endless"}])
        try:
            self.assertEqual(b.go(), 1, b.last_stderr)
            res = b.run.results[-1]
            self.assertEqual(res["status"], "error")
            self.assertIn("too large", res["error"])
        finally:
            b.finish()

    # ---- 5. API path arguments `.`, `..` and empty are refused

    def test_api_dot_segments_are_not_sent(self):
        for value in ("..", ".", ""):
            with self.subTest(value=value):
                b = Box(self)
                api = ApiServer(b.gw, "ph-api-secret", {})
                b.servers.append(api)
                b.extra_env = {"API_PLACEHOLDER": "ph-api-secret", "_secrets": ["ph-api-secret"]}
                b.manifest["api"] = [{"id": "rest", "base_url": api.url + "/base/",
                                      "credential_env": "API_PLACEHOLDER"}]
                b.manifest["tools"] = BOX_TOOLS + [
                    {"name": "get_repo", "runs": "api:rest",
                     "operation": {"method": "GET", "path": "/repos/{owner}/x"}}]
                b.script([{"tool_calls": [{"id": "a1", "name": "get_repo",
                                           "arguments": {"owner": value}}]},
                          {"content": "ok"}])
                try:
                    self.assertEqual(b.go(), 0, b.last_stderr)
                    self.assertEqual(api.calls, [])
                    self.assertIn("not run", b.tool_results()["a1"])
                    api.violations.clear()   # nothing reached it: no route is no violation
                finally:
                    b.finish()

    # ---- 6. `allowed: null` does not run the call

    def test_allowed_null_is_not_allow(self):
        b = Box(self)
        b.gw.policy = lambda run, body: {"outcome": "allow", "allowed": None}
        b.script([bash("echo ran > ran.txt", "n1"), {"content": "ok"}])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            self.assertFalse(os.path.exists(os.path.join(b.root, "ran.txt")))
            self.assertIn("denied by the gateway", b.tool_results()["n1"])
        finally:
            b.finish()

    # ---- 7. manifest: harness/playbook objects (carried as the original
    # does, decision 17; other types refused), version required

    def test_manifest_harness_playbook_version(self):
        for extra in ({"harness": {"profile": "strict"}}, {"playbook": {"steps": []}}):
            with self.subTest(extra=extra):
                b = Box(self)
                b.manifest.update(extra)
                b.script([{"content": "fine"}])
                try:
                    self.assertEqual(b.go(), 0, b.last_stderr)
                    self.assertEqual(b.run.results[-1]["status"], "done")
                finally:
                    b.finish()
        cases = [{"harness": "strict"}, {"playbook": []}, {"harness": True},
                 {"version": None}, {"version": 2}, {"version": 1.0}]
        for extra in cases:
            with self.subTest(extra=extra):
                b = Box(self)
                b.manifest.update(extra)
                b.script([{"content": "fine"}])
                try:
                    self.assertEqual(b.go(), 2, b.last_stderr)
                    self.assertEqual(b.run.results[-1]["status"], "refused")
                    self.assertEqual(b.model.requests, [])
                finally:
                    b.finish()
        b = Box(self)
        del b.manifest["version"]
        b.script([{"content": "fine"}])
        try:
            self.assertEqual(b.go(), 2, b.last_stderr)
        finally:
            b.finish()

    # ---- 8. numbers out of range are errors, not casts

    def test_model_usage_out_of_range_fails_the_turn(self):
        for value in (1e300, 1.5, -1, 9007199254740993):
            with self.subTest(value=value):
                b = Box(self)
                b.script([{"content": "fine", "usage": {"prompt_tokens": value,
                                                         "completion_tokens": 1, "total_tokens": 2}}])
                try:
                    self.assertEqual(b.go(), 1, b.last_stderr)
                    self.assertEqual(b.run.results[-1]["status"], "error")
                finally:
                    b.finish()

    def test_park_ttl_out_of_range_is_refused(self):
        for value in (1e300, -1, float("inf")):
            with self.subTest(value=value):
                b = Box(self)
                if value == float("inf"):
                    b.run.manifest = json.dumps(b.manifest).replace(
                        '"park_ttl_s": 600', '"park_ttl_s": 1e999').encode()
                else:
                    b.manifest["budgets"]["park_ttl_s"] = value
                b.script([{"content": "fine"}])
                try:
                    self.assertEqual(b.go(), 2, b.last_stderr)
                finally:
                    b.finish()

    def test_checkpoint_counters_out_of_range_fail_the_resume(self):
        for bad in ({"iterations": 1e300}, {"next_seq": 1e300}, {"prompt_tokens": -5},
                    {"iterations": 0.5}):
            with self.subTest(bad=bad):
                b = Box(self)
                b.gw.policy = lambda run, body: {"outcome": "require_human", "approval_id": "ap-1"}
                b.manifest["budgets"]["park_ttl_s"] = 0
                b.script([bash("echo 1", "h1"), {"content": "after"}])
                try:
                    self.assertEqual(b.go(), 0, b.last_stderr)
                    self.assertEqual(b.run.results[-1]["status"], "parked")
                    b.gw.approvals["ap-1"]["state"] = "approved"
                    for st in b.run.checkpoints.values():
                        st["counters"].update(bad)
                    b.run.next_ops = [{"op": "resume", "resume": {"approval_id": "ap-1",
                                                                  "decision": "approved"}}]
                    self.assertEqual(b.go(), 1, b.last_stderr)
                    self.assertEqual(b.run.results[-1]["status"], "error")
                finally:
                    b.finish()

    # ---- budgets

    def test_budget_max_tokens(self):
        b = Box(self)
        b.manifest["budgets"]["max_tokens"] = 200   # each turn reports 110
        b.script([bash("echo 1", "b1"), bash("echo 2", "b2"), bash("echo 3", "b3")])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            res = b.run.results[0]
            self.assertEqual((res["status"], res["stop_reason"]), ("done", "max_tokens"))
            self.assertEqual(len(b.model.requests), 2)
            self.assertEqual(res["usage_reported"]["total_tokens"], 220)
        finally:
            b.finish()

    def test_budget_max_cost_usd(self):
        b = Box(self)
        b.manifest["budgets"]["max_cost_usd"] = 0.25
        b.script([dict(bash("echo 1", "b1"), cost=0.2), dict(bash("echo 2", "b2"), cost=0.1),
                  dict(bash("echo 3", "b3"), cost=0.1)])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            res = b.run.results[0]
            self.assertEqual((res["status"], res["stop_reason"]), ("done", "max_cost_usd"))
            self.assertEqual(len(b.model.requests), 2)
            self.assertAlmostEqual(res["cost_usd_reported"], 0.3)
        finally:
            b.finish()

    def test_budget_timeout_s(self):
        b = Box(self)
        b.manifest["budgets"]["timeout_s"] = 1
        b.script([bash("sleep 1.5", "b1"), bash("echo 2", "b2")])
        try:
            self.assertEqual(b.go(), 0, b.last_stderr)
            res = b.run.results[0]
            self.assertEqual((res["status"], res["stop_reason"]), ("done", "timeout_s"))
            self.assertEqual(len(b.model.requests), 1)
        finally:
            b.finish()


if __name__ == "__main__":
    unittest.main(verbosity=2)
