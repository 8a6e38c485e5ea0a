"""The seed's own example: build_harness over a
LocalBackend with every tool gated by a ControlPolicy that holds
workspace.exec for a person: `touch made.txt` is held (the file is not
made), `ls` runs; the same through a SessionBackend over a sandbox written
in Python."""
import json
import os
import subprocess

from locus.harness import build_harness, LocalBackend, SessionBackend
from locus.control import ControlPolicy, gate_tool, AuditTrail


def policy():
    return ControlPolicy(require_verification_score=0.0,
                         require_human_for=frozenset({"workspace.exec"}))


def check_harness(h, exists):
    bash = h.tool("bash")
    out = bash(command="touch made.txt")
    refusal = json.loads(out)
    assert refusal["status"] == "held_for_approval"
    assert refusal["outcome"] == "require_human"
    assert "workspace.exec" in refusal["reason"]
    assert not exists("made.txt")
    out = bash(command="ls")
    assert "seed.txt" in out
    assert not exists("made.txt")


def test_local_backend(tmp_path):
    (tmp_path / "seed.txt").write_text("x\n")
    p = policy()
    trail = AuditTrail()
    h = build_harness(LocalBackend(str(tmp_path)),
                      wrap=lambda tool, spec: gate_tool(
                          tool, policy=p, action=spec, trail=trail))
    assert h.gated
    check_harness(h, lambda n: (tmp_path / n).exists())
    outcomes = [r.payload["outcome"] for r in trail.records()]
    assert outcomes == ["require_human", "allow"]
    # a read-kind tool passes the same policy
    assert "x" in h.tool("read")(path="seed.txt")


class HostSandbox:
    """A 'sandbox' written in Python: the three calls of the original's
    SessionLike protocol, over a temporary folder (commands under
    /bin/sh with that folder as the working directory)."""

    def __init__(self, root):
        self.root = str(root)
        self.calls = []

    def exec(self, command, *, timeout):
        self.calls.append(("exec", command))
        try:
            p = subprocess.run(["/bin/sh", "-c", command], cwd=self.root,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=timeout)
            return p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            return None, e.stdout or b""

    def _path(self, path):
        return path if path.startswith("/") else os.path.join(self.root,
                                                               path)

    def upload_file(self, path, data):
        self.calls.append(("upload", path))
        p = self._path(path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)

    def download_file(self, path):
        self.calls.append(("download", path))
        with open(self._path(path), "rb") as f:
            return f.read()


def test_session_backend(tmp_path):
    (tmp_path / "seed.txt").write_text("x\n")
    box = HostSandbox(tmp_path)
    p = policy()
    h = build_harness(SessionBackend(box, root=str(tmp_path),
                                     label="python-sandbox",
                                     isolated=False),
                      wrap=lambda tool, spec: gate_tool(tool, policy=p,
                                                        action=spec))
    check_harness(h, lambda n: (tmp_path / n).exists())
    # the commands went through the Python object, the held one did not
    cmds = [c for k, c in box.calls if k == "exec"]
    assert any("ls" in c for c in cmds)
    assert not any("made.txt" in c for c in cmds)
