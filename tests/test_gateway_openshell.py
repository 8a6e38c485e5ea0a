#!/usr/bin/python3
"""`locus gateway` with the `openshell` box (docs/gateway.md): the runner is
the main process of a sandbox the gateway creates through its OpenShell
client, against the strict loopback fake of OpenShell's gateway
(tests/fake_openshell.py, with --share-net so that the runner in the
sandbox reaches this gateway and the scripted model on 127.0.0.1, and the
locus binary where the image would hold it).  Everything listens on
127.0.0.1.

A run parks on a held call; its runner exits, the sandbox is over (any exit
of a main process is terminal upstream) and is deleted; a person approves
through the API; the gateway creates the run's next sandbox, whose runner
resumes from the gateway's checkpoint and finishes; that sandbox is deleted
too.  Failure paths: the fake refusing CreateSandbox, and the runner killed
mid-run: the run is `error` with the reason, nothing recorded is lost.

Exit 77 (skip) only when the fake cannot run here: /usr/bin/python3 without
grpcio and protobuf, no protoc, or bubblewrap unable to make a user
namespace.  Run with /usr/bin/python3; LOCUS_BIN names the locus binary.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_model import FakeModel  # noqa: E402
from test_gateway import SAN, Gateway, call, definition  # noqa: E402

LOCUS = os.environ.get("LOCUS_BIN", "")
HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.path.join(HERE, "..", "net", "openshell.proto")
RUNNER = "/opt/locus/locus"  # where the fake's "image" holds the binary
PLACEHOLDER = "openshell:resolve:env:OPENAI_API_KEY"
PB = None  # openshell_pb2, generated on first use


def why_not():
    """Why the fake cannot run here, or None."""
    p = subprocess.run(["/usr/bin/python3", "-c", "import grpc, google.protobuf"],
                       capture_output=True)
    if p.returncode:
        return "python3-grpcio or python3-protobuf missing"
    if not (shutil.which("protoc") or os.access("/usr/bin/protoc", os.X_OK)):
        return "protoc missing"
    p = subprocess.run(["bwrap", "--unshare-user", "--unshare-pid", "--ro-bind", "/", "/",
                        "true"], capture_output=True)
    if p.returncode:
        return "bubblewrap cannot make a user namespace here"
    return None


class FakeOpenShell:
    """tests/fake_openshell.py on 127.0.0.1 (ends when its stdin closes)."""

    def __init__(self, *faults):
        args = ["/usr/bin/python3", os.path.join(HERE, "fake_openshell.py"), "--proto", PROTO,
                "--share-net", "--image-file", "%s:%s" % (os.path.realpath(LOCUS), RUNNER),
                "--polls", "1", "--lifetime", "550"]
        for f in faults:
            args += ["--fault", f]
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, env={"PATH": "/usr/bin:/bin", **SAN})
        line = self.proc.stdout.readline().decode()
        if not line.startswith("PORT "):
            raise RuntimeError("the fake did not start: " + self.stderr())
        self.endpoint = "127.0.0.1:" + line.split()[1]

    def get_sandbox(self, name):
        """GetSandbox through grpcio with messages from the same .proto:
        the sandbox's phase name, or the status code's name."""
        import grpc
        global PB
        if PB is None:
            out = tempfile.mkdtemp(prefix="locus-os-pb-")
            protoc = shutil.which("protoc") or "/usr/bin/protoc"
            subprocess.run([protoc, "-I", os.path.dirname(PROTO), "--python_out", out, PROTO],
                           check=True)
            sys.path.insert(0, out)
            import openshell_pb2
            PB = openshell_pb2
            shutil.rmtree(out, ignore_errors=True)
        with grpc.insecure_channel(self.endpoint) as ch:
            get = ch.unary_unary("/openshell.v1.OpenShell/GetSandbox",
                                 request_serializer=lambda m: m.SerializeToString(
                                     deterministic=True),
                                 response_deserializer=PB.SandboxResponse.FromString)
            try:
                r = get(PB.GetSandboxRequest(name=name), timeout=30)
            except grpc.RpcError as e:
                return e.code().name
        return PB.SandboxPhase.Name(r.sandbox.status.phase)

    def stderr(self):
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        self.proc.stdout.close()
        self.log.close()

    def runner_pids(self):
        """The runners running in this fake's sandboxes (its descendants
        started as RUNNER runner), found through /proc."""
        parent = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open("/proc/%s/stat" % d) as f:
                        parent[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    pass
        out = []
        for pid in parent:
            p, seen = pid, 0
            while p in parent and p != self.proc.pid and seen < 64:
                p, seen = parent[p], seen + 1
            if p != self.proc.pid:
                continue
            try:
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            if argv[:2] == [RUNNER.encode(), b"runner"]:
                out.append(pid)
        return out


class OpenShellBoxTest(unittest.TestCase):
    def setUp(self):
        if not LOCUS or not os.access(LOCUS, os.X_OK):
            self.fail("LOCUS_BIN does not name the locus binary")
        self.folder = tempfile.mkdtemp(prefix="locus-gw-os-")
        # the model sees the placeholder the sandbox holds (the fake has
        # no proxy to swap it for a provider's secret)
        self.model = FakeModel(PLACEHOLDER)
        self.fakes, self.gws = [], []

    def tearDown(self):
        for g in self.gws:
            g.stop()
        for f in self.fakes:
            f.close()
        self.model.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def start(self, *faults):
        fake = FakeOpenShell(*faults)
        self.fakes.append(fake)
        # no OPENAI_API_KEY here: the gateway holds no model secret
        gw = Gateway(self, self.folder if not self.gws else tempfile.mkdtemp(dir=self.folder),
                     args=["--openshell-endpoint", fake.endpoint, "--openshell-runner", RUNNER,
                           "--openshell-poll", "0.1"])
        self.gws.append(gw)
        return fake, gw

    def create(self, gw, check=True, **extra):
        path = os.path.join(self.folder, "def-%s.json" % uuid.uuid4().hex[:6])
        with open(path, "w") as f:
            json.dump(definition(self.model, "/sandbox", **extra), f)
        p = gw.cli("run", "create", "--definition", path, "--box", "openshell", check=check)
        return json.loads(p.stdout) if check else p

    def wait(self, gw, fake, run_id, states, what="", deadline_s=180):
        """Poll the run until its state is in states (and what, a SQL
        condition on the run's row, holds)."""
        end = time.monotonic() + deadline_s
        while True:
            shown = json.loads(gw.cli("show", run_id).stdout)
            ok = shown["run"]["state"] in states
            if ok and what:
                ok = bool(gw.sql("SELECT 1 FROM runs WHERE run_id = ? AND " + what, run_id))
            if ok:
                return shown
            if time.monotonic() > end:
                self.fail("run %s is still %s (%s); the fake said:\n%s" % (
                    run_id, shown["run"]["state"], what, fake.stderr()[-6000:]))
            time.sleep(0.05)

    def audit(self, gw, kind):
        return [json.loads(r) for (r,) in
                gw.sql("SELECT record FROM audit WHERE kind = ? ORDER BY seq", kind)]

    def test_parks_is_approved_and_finishes_in_a_new_sandbox(self):
        fake, gw = self.start()
        self.model.scripts["write the notes"] = [
            call("write", {"path": "notes.txt", "content": "from the sandbox\n"}, "w1"),
            call("bash", {"command": "cat notes.txt; echo root=$PWD"}, "b1"),
            call("bash", {"command": "git push origin main"}, "p1"),
            {"content": "Done in OpenShell."},
        ]
        run = self.create(gw)
        rid = run["run_id"]
        shown = self.wait(gw, fake, rid, ("parked", "done", "error", "refused"),
                          "sandbox IS NULL")
        self.assertEqual(shown["run"]["state"], "parked", shown["run"]["result"])
        # the printed token was superseded by the sandbox's own
        self.assertEqual(gw.http("GET", "/internal/v1/runner/next", token=run["token"])[0], 401)
        done = {e["event"]["call_id"]: e["event"] for e in shown["events"]
                if e["event"]["type"] == "tool_complete"}
        self.assertIn("from the sandbox", done["b1"]["result"])
        self.assertIn("root=/sandbox", done["b1"]["result"])
        # the parked runner exited (0); its sandbox is over and deleted
        ends = self.audit(gw, "box.end")
        self.assertEqual([(e["exit_code"], e["run_state"]) for e in ends], [(0, "parked")])
        first = ends[0]["sandbox"]
        self.assertRegex(first, r"^lb-[0-9a-f]{12}-1$")

        ap = json.loads(gw.cli("approvals").stdout.splitlines()[0])
        self.assertEqual((ap["run_id"], ap["call_id"]), (rid, "p1"))
        out = json.loads(gw.cli("decide", ap["approval_id"], "approve", "--by", "erin",
                                "--why", "the remote is ours").stdout)
        self.assertTrue(out["resumed"])
        shown = self.wait(gw, fake, rid, ("done", "error", "refused"), "sandbox IS NULL")
        self.assertEqual(shown["run"]["state"], "done", shown["run"]["result"])
        self.assertEqual(shown["run"]["result"]["final_message"], "Done in OpenShell.")
        seqs = [e["seq"] for e in shown["events"]]
        self.assertEqual(seqs, list(range(len(seqs))), "events numbered once, in order")
        done = [e["event"]["call_id"] for e in shown["events"]
                if e["event"]["type"] == "tool_complete"]
        self.assertEqual(sorted(done), ["b1", "p1", "w1"])
        self.assertEqual([(a["state"], a["decided_by"]) for a in shown["approvals"]],
                         [("consumed", "erin")])
        starts = self.audit(gw, "box.start")
        self.assertEqual([(s["box"], s["sandbox"]) for s in starts],
                         [("openshell", first), ("openshell", first[:-1] + "2")])
        ends = self.audit(gw, "box.end")
        self.assertEqual([(e["sandbox"], e["exit_code"], e["run_state"]) for e in ends],
                         [(first, 0, "parked"), (first[:-1] + "2", 0, "done")])
        # both sandboxes are gone from the fake
        for name in (first, first[:-1] + "2"):
            self.assertEqual(fake.get_sandbox(name), "NOT_FOUND")
        self.assertEqual(fake.runner_pids(), [])
        self.assertEqual(self.model.violations, [])
        # the model only ever saw the placeholder (the fake model refuses
        # any other key), and no model secret is in the gateway's database
        self.assertTrue(json.loads(gw.cli("verify").stdout)["intact"])

    def test_a_refused_create_is_a_clear_error(self):
        fake, gw = self.start("refuse-create")
        self.model.scripts["write the notes"] = [{"content": "never asked"}]
        p = self.create(gw, check=False)
        self.assertEqual(p.returncode, 1)
        err = p.stderr.decode()
        self.assertIn("could not start", err)
        self.assertIn("UNAVAILABLE", err)
        runs = [json.loads(l) for l in gw.cli("runs").stdout.splitlines()]
        self.assertEqual(len(runs), 1)
        shown = json.loads(gw.cli("show", runs[0]["run_id"]).stdout)
        self.assertEqual(shown["run"]["state"], "error")
        self.assertIn("could not be created", shown["run"]["result"]["error"])
        self.assertIn("UNAVAILABLE", shown["run"]["result"]["error"])
        recs = self.audit(gw, "box.error")
        self.assertEqual(len(recs), 1)
        self.assertEqual(recs[0]["run_state"], "error")
        self.assertEqual(self.model.requests, [])
        # a gateway started without an OpenShell endpoint refuses the box
        plain = Gateway(self, tempfile.mkdtemp(dir=self.folder))
        self.gws.append(plain)
        path = os.path.join(self.folder, "def.json")
        with open(path, "w") as f:
            json.dump(definition(self.model, "/sandbox"), f)
        p = plain.cli("run", "create", "--definition", path, "--box", "openshell", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"--openshell-endpoint", p.stderr)
        self.assertEqual(plain.cli("runs").stdout, b"")

    def test_a_runner_killed_mid_run_is_an_error_and_nothing_is_lost(self):
        fake, gw = self.start()
        self.model.scripts["write the notes"] = [
            call("write", {"path": "notes.txt", "content": "kept\n"}, "w1"),
            # a long harmless command the test interrupts by killing the runner
            call("bash", {"command": "sleep 400"}, "s1"),
            {"content": "never reached"},
        ]
        run = self.create(gw)
        rid = run["run_id"]
        end = time.monotonic() + 180
        # the runner delivers its events after each model turn: the
        # admission of s1 is what says the sleep is about to run
        while True:
            admitted = [r for r in self.audit(gw, "admission") if r["call_id"] == "s1"]
            pids = fake.runner_pids()
            if admitted and pids:
                break
            self.assertLess(time.monotonic(), end, fake.stderr()[-4000:])
            time.sleep(0.05)
        shown = json.loads(gw.cli("show", rid).stdout)
        events_before = [e["seq"] for e in shown["events"]]
        self.assertTrue(events_before, "the first turn's events were delivered")
        # a pid may be a short-lived fork of the runner (still named
        # `locus runner`) that has exited since the listing: skip it, but
        # the runner itself must have been killed
        killed = 0
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
        self.assertGreater(killed, 0, "no runner left to kill: %r" % pids)
        shown = self.wait(gw, fake, rid, ("error", "done", "parked", "refused"),
                          "sandbox IS NULL")
        self.assertEqual(shown["run"]["state"], "error", shown["run"]["result"])
        err = shown["run"]["result"]["error"]
        self.assertIn("the box ended before the run did", err)
        self.assertIn("exited with code", err)
        self.assertIn("MainProcessExited", err)
        # every event delivered before the box died is still there
        self.assertEqual([e["seq"] for e in shown["events"]][:len(events_before)],
                         events_before)
        ends = self.audit(gw, "box.end")
        self.assertEqual(len(ends), 1)
        self.assertEqual(ends[0]["run_state"], "error")
        self.assertNotEqual(ends[0]["exit_code"], 0)
        adm = [(r["call_id"], r["outcome"]) for r in self.audit(gw, "admission")]
        self.assertEqual(adm, [("w1", "allow"), ("s1", "allow")])
        self.assertEqual(fake.runner_pids(), [])
        self.assertTrue(json.loads(gw.cli("verify").stdout)["intact"])


if __name__ == "__main__":
    if LOCUS:
        why = why_not()
        if why:
            print("skip:", why)
            sys.exit(77)
    unittest.main(verbosity=2)
