"""The original's public names and signatures over liblocus:
shell parsing, labels, the policy, permission rules, the gate,
the harness and its backends; errors as Python exceptions."""
import asyncio
import inspect
import json

import pytest

import locus
from locus.control import (Action, ApprovalOutcome, AdmissionError,
                           AuditTrail, ControlPolicy, PermissionRule,
                           PermissionRules, Severity, VerificationResult,
                           approve, gate_tool)
from locus.control.shell import parse_command
from locus.harness import (ALL_TOOLS, DEFAULT_TOOLS, PATCH_TOOLS, KIND_EXEC,
                           KIND_READ, HarnessConfig, LocalBackend,
                           MemoryBackend, OCISandboxBackend,
                           OpenShellBackend, SessionBackend, build_harness)
from locus.harness.labels import (TOOL_KINDS, action_spec, classify_command,
                                  never, read_only)


def test_version_and_library():
    assert locus.__version__.count(".") == 2
    assert locus.LIBRARY


def test_parse_command():
    s = parse_command("sudo rm -rf build > log.txt && echo $(whoami) | tee x")
    assert s.parsed and s.has_substitution and not s.is_single
    rm = s.commands[0]
    assert rm.argv == ("rm", "-rf", "build") and rm.name == "rm"
    assert rm.wrappers == ("sudo",)
    assert rm.redirects == ((">", "log.txt"),) and rm.writes_files
    assert rm.connector == "" and not rm.nested
    who = [c for c in s.commands if c.name == "whoami"][0]
    assert who.nested and who.origin == "substitution"
    assert who not in s.top_level
    assert [c.connector for c in s.top_level] == ["", "&&", "|"]
    assert parse_command("ls").is_single
    bad = parse_command("if then")
    assert not bad.parsed and bad.reason
    assert not parse_command("a\0b").parsed


def test_classify_and_floor():
    c = classify_command("ls -la")
    assert c.kind == KIND_READ and not c.tags and c.never is None
    assert read_only("git status")
    c = classify_command("rm -rf /")
    assert c.kind == KIND_EXEC and "exec:destructive" in c.tags
    assert c.never == "recursive delete" == never("rm -rf /")
    assert isinstance(c.tags, frozenset) and isinstance(c.reasons, tuple)
    assert "exec:network" in classify_command("curl https://x.io").tags
    assert "exec:unparsed" in classify_command("if then").tags
    assert not read_only("touch x")


def test_action_spec():
    spec = action_spec("bash", environment="staging")
    assert spec.kind == KIND_EXEC and spec.tags == frozenset({"bash"})
    assert spec.environment == "staging"
    assert action_spec("read").kind == KIND_READ
    assert TOOL_KINDS["write"] == "workspace.write"
    with pytest.raises(ValueError):
        action_spec("no_such_tool")


def test_control_policy_defaults_and_errors():
    p = ControlPolicy()
    assert p.require_verification_score == 0.8 and p.max_blast_radius == 1
    assert p.require_human_for == frozenset({"production"})
    assert p.min_severity == Severity.LOW and p.spend_limit_usd is None
    with pytest.raises(ValueError, match="max_blast_radius"):
        ControlPolicy(max_blast_radius=-1)
    with pytest.raises(ValueError, match="require_verification_score"):
        ControlPolicy(require_verification_score=2.0)


def test_approve():
    p = ControlPolicy(require_verification_score=0.0,
                      require_human_for=frozenset({"workspace.exec"}),
                      deny_for=frozenset({"irreversible"}))
    d = approve(Action("ls", kind=KIND_READ), policy=p)
    assert d.allowed and d.outcome == ApprovalOutcome.ALLOW
    assert d.outcome == "allow" and d.checks == ()
    d = approve(Action("deploy", kind=KIND_EXEC), policy=p)
    assert d.outcome == ApprovalOutcome.REQUIRE_HUMAN and not d.allowed
    d = approve(Action("wipe", kind=KIND_EXEC, blast_radius=9,
                       tags=frozenset({"irreversible"})), policy=p)
    assert d.outcome == "deny" and len(d.checks) == 3
    assert "irreversible" in d.reason and "blast radius 9" in d.reason
    # verification: below the bar is held, survives=False is denied
    q = ControlPolicy(require_human_for=frozenset())
    a = Action("x", kind=KIND_READ)
    assert approve(a, policy=q).outcome == "require_human"
    assert approve(a, policy=q, verdict=VerificationResult(
        True, 0.9)).allowed
    assert approve(a, policy=q, verdict=VerificationResult(
        False, 0.9)).outcome == "deny"
    # spend limit
    s = ControlPolicy(require_verification_score=0, spend_limit_usd=1.0,
                      require_human_for=frozenset())
    assert approve(Action("x", cost_usd=0.5), policy=s, spent_usd=0.7
                   ).outcome == "deny"
    with pytest.raises(ValueError):
        approve(Action("x", cost_usd=-1), policy=s)
    # an unknown kind is decided as exec, fail closed, and kept as a label
    d = approve(Action("y", kind="deploy.prod"), policy=p)
    assert d.outcome == "require_human" and "deploy.prod" in d.labels


def test_permission_rules():
    r = PermissionRule.parse("Bash(git diff:*)")
    assert (r.tool, r.specifier) == ("Bash", "git diff:*")
    assert PermissionRule.parse("mcp__prod").specifier is None
    with pytest.raises(ValueError, match="bad rule"):
        PermissionRule.parse("Bash(")
    rules = PermissionRules.from_settings({"permissions": {
        "allow": ["Bash(git diff:*)"], "ask": ["Bash(git push:*)"],
        "deny": ["Edit(/etc/**)"]}})
    assert len(rules) == 3
    m = rules.match("Bash", command="git diff HEAD")
    assert m.outcome == "allow" and m.tag == "permission:allow"
    assert rules.match("Bash", command="git push origin main"
                       ).outcome == "ask"
    assert rules.match("Edit", file_path="/etc/passwd").outcome == "deny"
    assert rules.match("Bash", command="ls") is None
    # a compound line is not allowed by a prefix rule
    assert rules.match("Bash", command="git diff && make") is None
    more = rules.with_rule("deny", "Bash(curl:*)")
    assert len(more) == 4 and more.match("Bash", command="curl x"
                                         ).outcome == "deny"
    assert len(rules.merged(more)) == 7


class Echo:
    name = "echo_tool"
    description = "echo"
    parameters = {"type": "object"}

    def __init__(self):
        self.calls = 0

    def __call__(self, **kw):
        self.calls += 1
        return "ran"


def test_gate_tool_custom_tool():
    p = ControlPolicy(require_verification_score=0.0,
                      require_human_for=frozenset({"workspace.exec"}))
    t = Echo()
    g = gate_tool(t, policy=p, action=Action("echo_tool", kind=KIND_READ))
    assert g(x=1) == "ran" and t.calls == 1
    trail = AuditTrail()
    g = gate_tool(t, policy=p, trail=trail)  # no spec: exec, held
    out = json.loads(g(x=1))
    assert out["status"] == "held_for_approval" and t.calls == 1
    assert trail.records()[0].payload["outcome"] == "require_human"
    g = gate_tool(t, policy=p, on_refusal="raise")
    with pytest.raises(AdmissionError) as e:
        g()
    assert e.value.decision.outcome == "require_human"
    assert asyncio.run(gate_tool(t, policy=p, action=Action(
        "echo_tool", kind=KIND_READ)).execute()) == "ran"
    sig = inspect.signature(gate_tool)
    assert list(sig.parameters)[:5] == ["tool", "policy", "action", "trail",
                                        "on_refusal"]
    assert sig.parameters["on_refusal"].default == "return"


def test_audit_trail_file(tmp_path):
    path = tmp_path / "audit.jsonl"
    trail = AuditTrail(str(path))
    p = ControlPolicy(require_verification_score=0.0)
    g = gate_tool(Echo(), policy=p, trail=trail,
                  action=Action("echo_tool", kind=KIND_READ))
    g()
    g()
    trail.close()
    assert trail.verify() and len(path.read_text().splitlines()) == 2
    path.write_text(path.read_text().replace("allow", "deny", 1))
    assert not trail.verify()


def test_harness_memory_backend():
    b = MemoryBackend({"a.txt": "hello\n"})
    h = build_harness(b)
    names = [t.name for t in h.tools]
    assert "bash" not in names and "read" in names
    assert set(names) <= set(DEFAULT_TOOLS)
    assert set(h.specs) == set(names)
    t = h.tool("read")
    assert t.description and t.parameters["type"] == "object"
    assert "hello" in t(path="a.txt")
    # read before edit: the config's default
    diff = h.preview("edit", {"path": "a.txt", "old": "hello",
                              "new": "bye"})
    assert "-hello" in diff and "+bye" in diff
    assert "bye" not in b.read("a.txt")
    h.tool("edit")(path="a.txt", old="hello", new="bye")
    assert b.read("a.txt") == "bye\n"
    assert isinstance(h.prompt_fragment, str) and h.prompt_fragment
    h.tool("todo_write")(todos=[{"content": "x", "status": "pending"}])
    assert h.context.todos.snapshot()
    with pytest.raises(KeyError):
        h.tool("nope")


def test_harness_require_read():
    b = MemoryBackend({"a.txt": "one\n"})
    h = build_harness(b)
    h.tool("write")(path="a.txt", content="two\n")
    assert h.tool("write").last_error and b.read("a.txt") == "one\n"
    h = build_harness(b, config=HarnessConfig(require_read=False))
    h.tool("write")(path="a.txt", content="two\n")
    assert b.read("a.txt") == "two\n"


def test_harness_tools_and_errors(tmp_path):
    assert "apply_patch" in PATCH_TOOLS and "edit" not in PATCH_TOOLS
    assert set(DEFAULT_TOOLS) < set(ALL_TOOLS)
    with pytest.raises(LookupError, match="nope"):
        build_harness(LocalBackend(str(tmp_path)), tools=["nope"])
    with pytest.raises(ValueError):
        build_harness(MemoryBackend(), tools=["bash"])
    with pytest.raises(LookupError):
        LocalBackend(str(tmp_path / "missing"))
    recs = []
    h = build_harness(LocalBackend(str(tmp_path)), tools=["bash"],
                      config=HarnessConfig(on_exec=recs.append))
    assert "hi" in h.tools[0](command="echo hi")
    assert recs and recs[0].exit_code == 0 and len(recs[0].command_sha256) \
        == 64


def test_session_errors_are_reported():
    class Broken:
        def exec(self, command, *, timeout):
            raise RuntimeError("the sandbox fell over")

        def upload_file(self, path, data):
            raise RuntimeError("no")

        def download_file(self, path):
            raise FileNotFoundError(path)

    try:
        b = SessionBackend(Broken(), root="/workspace")
    except Exception as e:  # the backend checks the sandbox first
        assert "fell over" in str(e)
        return
    h = build_harness(b, tools=["bash", "read"])
    out = h.tool("bash")(command="ls")
    assert "fell over" in out and h.tool("bash").last_error


def test_remote_backends_report_errors():
    # nothing listens on this loopback port: a clear error, no crash
    with pytest.raises(Exception) as e:
        OpenShellBackend("127.0.0.1:9", sandbox_id="x",
                         ready_timeout_s=1)
    assert str(e.value)
    with pytest.raises(Exception) as e:
        OCISandboxBackend.connect("ocid1.x", config_file="/nonexistent")
    assert str(e.value)


def test_admit_and_modules():
    from locus.control import admit, admit_sync
    from locus.control.action import resolve_action
    from locus.security import Evidence, Severity as S2
    assert S2 is Severity and Evidence().severity == Severity.LOW
    assert resolve_action(None, "t", {}).kind == KIND_EXEC
    p = ControlPolicy(require_verification_score=0.0,
                      require_human_for=frozenset({"workspace.exec"}),
                      deny_for=frozenset({"irreversible"}))
    ran = []
    read = Action("look", kind=KIND_READ)
    held = Action("deploy", kind=KIND_EXEC)
    denied = Action("wipe", kind=KIND_READ, tags=frozenset({"irreversible"}))
    assert admit_sync(read, lambda: ran.append(1) or "done", policy=p) \
        == "done"
    with pytest.raises(AdmissionError):
        admit_sync(held, lambda: ran.append(2), policy=p)
    admit_sync(held, lambda: ran.append(3), policy=p, approved_by="ana")
    with pytest.raises(AdmissionError):
        admit_sync(denied, lambda: ran.append(4), policy=p,
                   approved_by="ana")

    async def perform():
        ran.append(5)
        return "async"
    assert asyncio.run(admit(read, perform, policy=p)) == "async"
    assert ran == [1, 3, 5]
