"""locus.control - the ControlPolicy, Actions, approval, permission rules,
the tool gate and the audit trail, decided by liblocus's policy engine
(locus_decide / locus_gate; docs/policy.md, docs/python.md)."""
from dataclasses import dataclass, field, replace
import enum
import json
import math
import threading

from .._ffi import (ffi, lib, text, take, cbytes, cstr, new_error, raise_for,
                    parser)
from . import shell  # noqa: F401  (locus.control.shell)

__all__ = [
    "Severity", "ControlPolicy", "Action", "ApprovalOutcome",
    "ApprovalDecision", "approve", "AdmissionError", "PermissionRule",
    "PermissionRules", "PermissionMatch", "gate_tool", "GatedTool",
    "AuditTrail", "AuditRecord", "VerificationResult", "Evidence",
    "SANDBOXED_TAG", "VERDICT_POLICY", "verdict_tag", "verdict_action",
    "resolve_action", "admit", "admit_sync",
]

SANDBOXED_TAG = "sandboxed"
VERDICT_POLICY = "permission"


class Severity(str, enum.Enum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


_SEVERITY_NUM = {"low": 0, "medium": 1, "high": 2, "critical": 3}


class ApprovalOutcome(str, enum.Enum):
    ALLOW = "allow"
    REQUIRE_HUMAN = "require_human"
    DENY = "deny"


_OUTCOMES = {0: ApprovalOutcome.ALLOW, 1: ApprovalOutcome.REQUIRE_HUMAN,
             2: ApprovalOutcome.DENY}


@dataclass(frozen=True)
class VerificationResult:
    survives: bool
    confidence: float
    evidence_quality: float = 0.0


@dataclass(frozen=True)
class Evidence:
    title: str = ""
    description: str = ""
    severity: Severity = Severity.LOW
    asset: str = ""
    remediation: str = ""
    gsar_score: float = 0.0
    confidence: float = 0.0
    evidence_refs: tuple = ()


@dataclass(frozen=True)
class ControlPolicy:
    """What may run without a person (the original's fields and defaults).
    `permissions` (an extension) adds permission rules in the coding
    agents' syntax to the policy."""

    require_verification_score: float = 0.8
    max_blast_radius: int = 1
    require_human_for: frozenset = frozenset({"production"})
    deny_for: frozenset = frozenset()
    min_severity: Severity = Severity.LOW
    require_sandbox_for: frozenset = frozenset()
    version: str = ""
    require_human_over_usd: float = None
    spend_limit_usd: float = None
    permissions: "PermissionRules" = None
    _c: object = field(default=None, init=False, repr=False, compare=False)

    def to_json(self):
        doc = {
            "version": self.version,
            "deny_for": sorted(self.deny_for),
            "require_sandbox_for": sorted(self.require_sandbox_for),
            "min_severity": Severity(self.min_severity).value,
            "require_verification_score": self.require_verification_score,
            "max_blast_radius": self.max_blast_radius,
            "require_human_over_usd": self.require_human_over_usd,
            "spend_limit_usd": self.spend_limit_usd,
            "require_human_for": sorted(self.require_human_for),
        }
        if self.permissions is not None:
            doc["permissions"] = self.permissions._lists()
        return json.dumps(doc)

    def _policy(self):
        """The liblocus policy (loaded once; ValueError with the library's
        message for a field it refuses)."""
        p = self._c
        if p is None:
            data = self.to_json().encode()
            out = ffi.new("locus_policy **")
            err = new_error()
            rc = lib.locus_policy_load(out, data, len(data), err)
            raise_for(rc, err)
            p = ffi.gc(out[0], lib.locus_policy_free)
            object.__setattr__(self, "_c", p)
        return p

    def __post_init__(self):
        self._policy()


@dataclass(frozen=True)
class Action:
    """What a call would do.  `kind` is one of the library's kinds
    (workspace.read/write/exec, network); another or an empty kind is
    decided as workspace.exec (fail closed) with the kind kept as a
    label."""

    name: str
    asset: str = ""
    blast_radius: int = 1
    environment: str = "unknown"
    kind: str = ""
    tags: frozenset = frozenset()
    cost_usd: float = 0.0

    def labels(self):
        return frozenset(x for x in {self.environment, self.kind}
                         | set(self.tags) if x)


@dataclass(frozen=True)
class ApprovalDecision:
    outcome: ApprovalOutcome
    reason: str
    action: Action = None
    checks: tuple = ()
    policy_outcome: ApprovalOutcome = None
    model_outcome: ApprovalOutcome = None
    labels: frozenset = frozenset()
    permission: str = None
    record: dict = field(default=None, repr=False, compare=False)

    @property
    def allowed(self):
        return self.outcome == ApprovalOutcome.ALLOW

    @property
    def escalated_by_model(self):
        return False


class AdmissionError(Exception):
    """A call the policy did not allow (gate_tool(on_refusal="raise"))."""

    def __init__(self, decision):
        super().__init__(decision.reason)
        self.decision = decision


_KIND_NUM = {"workspace.read": 0, "workspace.write": 1, "workspace.exec": 2,
             "network": 3}


def _gate_input(environment=None, blast_radius=None, cost_usd=None,
                tags=(), verdict=None, finding=None, spent_usd=0.0,
                workspace_root=None):
    """A locus_gate_input and the cdata it points to (kept alive)."""
    gi = ffi.new("locus_gate_input *")
    keep = [gi]
    gi.version = 1
    if environment is not None:
        s = ffi.new("char[]", cstr(environment))
        keep.append(s)
        gi.environment = s
    if blast_radius is not None:
        gi.has_blast_radius = True
        gi.blast_radius = int(blast_radius)
    if cost_usd is not None:
        gi.has_cost = True
        gi.cost_usd = float(cost_usd)
    tags = [t for t in tags if t]
    if tags:
        cs = [ffi.new("char[]", cstr(t)) for t in tags]
        arr = ffi.new("const char *[]", cs)
        keep += cs + [arr]
        gi.tags = arr
        gi.ntags = len(cs)
    if verdict is not None:
        gi.has_verification = True
        gi.survives = bool(verdict.survives)
        gi.confidence = float(verdict.confidence)
    if finding is not None:
        gi.has_finding = True
        sev = getattr(finding, "severity", finding)
        gi.finding_severity = _SEVERITY_NUM[Severity(sev).value]
    gi.spent_usd = float(spent_usd)
    if workspace_root is not None:
        s = ffi.new("char[]", cstr(workspace_root))
        keep.append(s)
        gi.workspace_root = s
    return gi, keep


def _decision(d, action):
    """ApprovalDecision from a C decision (borrowed)."""
    out = ffi.new("char **")
    raise_for(lib.locus_decision_json(out, d, 0), None, "decision")
    rec = json.loads(take(out[0]))
    outcome = ApprovalOutcome(rec["outcome"])
    checks = tuple((ApprovalOutcome(c["outcome"]), c["reason"])
                   for c in rec.get("checks", ()))
    perm = rec.get("permission")
    return ApprovalDecision(
        outcome=outcome, reason=rec["reason"], action=action, checks=checks,
        policy_outcome=outcome, model_outcome=None,
        labels=frozenset(rec.get("labels", ())),
        permission=perm["verdict"] if perm else None, record=rec)


def _refusal(d):
    out = ffi.new("char **")
    rc = lib.locus_decision_refusal_json(out, d)
    if rc:
        return None
    return take(out[0])


def _c_action(action):
    kind = _KIND_NUM.get(action.kind)
    out = ffi.new("locus_action **")
    err = new_error()
    rc = lib.locus_action_new(out, cstr(action.name),
                              2 if kind is None else kind,
                              cstr(action.asset or ""), err)
    raise_for(rc, err, "action")
    a = ffi.gc(out[0], lib.locus_action_free)
    extra = set(action.tags)
    if kind is None and action.kind:
        extra.add(action.kind)
    for t in sorted(extra):
        raise_for(lib.locus_action_add_tag(a, cstr(t)), None, "action tag")
    raise_for(lib.locus_action_set_environment(a, cstr(action.environment)),
              None, "environment")
    raise_for(lib.locus_action_set_blast_radius(a, int(action.blast_radius)),
              None, "blast_radius must not be negative")
    if (not isinstance(action.cost_usd, (int, float)) or
            math.isnan(action.cost_usd) or action.cost_usd < 0):
        raise ValueError("cost_usd must be a non-negative number")
    raise_for(lib.locus_action_set_cost_usd(a, float(action.cost_usd)),
              None, "cost_usd")
    return a


def _approve(action, policy, finding, verdict, spent_usd, trail):
    a = _c_action(action)
    gi, keep = _gate_input(verdict=verdict, finding=finding,
                           spent_usd=spent_usd)
    out = ffi.new("locus_decision **")
    err = new_error()
    rc = lib.locus_decide(out, policy._policy(), a, gi, err)
    raise_for(rc, err, "decide")
    d = ffi.gc(out[0], lib.locus_decision_free)
    try:
        if trail is not None:
            trail._append(d)
        return _decision(d, action), _refusal(d)
    finally:
        ffi.release(d)
        ffi.release(a)


def approve(action, *, policy, finding=None, verdict=None, advisor=None,
            spent_usd=0.0):
    """Decide on an Action under a ControlPolicy -> ApprovalDecision."""
    if advisor is not None:
        raise NotImplementedError(
            "a model advisor is not provided by the liblocus binding")
    return _approve(action, policy, finding, verdict, spent_usd, None)[0]


def admit_sync(action, perform, *, policy, trail=None, context=None,
               approved_by=None):
    """Decide on `action`; when allowed, return perform()'s result, else
    raise AdmissionError.  `approved_by` (a person's name) admits a call
    held for a person (require_human), never a denied one; the decision
    goes to `trail` either way."""
    decision, _ = _approve(action, policy, None, None, 0.0, trail)
    if decision.allowed or (approved_by and decision.outcome ==
                            ApprovalOutcome.REQUIRE_HUMAN):
        return perform()
    raise AdmissionError(decision)


async def admit(action, perform, *, policy, trail=None, context=None,
                approved_by=None):
    """admit_sync for coroutines: `perform` is awaited when it returns an
    awaitable."""
    import inspect
    decision, _ = _approve(action, policy, None, None, 0.0, trail)
    if decision.allowed or (approved_by and decision.outcome ==
                            ApprovalOutcome.REQUIRE_HUMAN):
        r = perform()
        return await r if inspect.isawaitable(r) else r
    raise AdmissionError(decision)


def resolve_action(spec, name, kwargs):
    """The Action of one call: the spec (an Action, a kind string, or
    None: an exec action named after the tool), with the call's asset."""
    if isinstance(spec, Action):
        return spec
    if isinstance(spec, str):
        return Action(name, kind=spec, tags=frozenset({name}))
    return Action(name, kind="workspace.exec", tags=frozenset({name}))


def verdict_tag(outcome):
    return "permission:%s" % (outcome,)


def verdict_action(tool, outcome, asset=""):
    return Action(tool, asset=asset, kind="workspace.exec",
                  tags=frozenset({tool, verdict_tag(outcome)}))


# ---- permission rules ------------------------------------------------------

@dataclass(frozen=True)
class PermissionRule:
    tool: str
    specifier: str = None
    source: str = field(default="", compare=False)

    @classmethod
    def parse(cls, text_, source=""):
        """Parse "Bash(git diff:*)", "Edit(/etc/**)", "mcp__server"...;
        ValueError with the library's message for a rule it refuses."""
        if not isinstance(text_, str):
            raise TypeError("a permission rule is a string")
        doc = json.dumps({"require_human_for": [],
                          "permissions": {"deny": [text_]}}).encode()
        out = ffi.new("locus_policy **")
        err = new_error()
        rc = lib.locus_policy_load(out, doc, len(doc), err)
        if rc == 0:
            lib.locus_policy_free(out[0])
        raise_for(rc, err)
        t = text_.strip()
        if t.endswith(")") and "(" in t:
            i = t.index("(")
            return cls(t[:i], t[i + 1:-1], source)
        return cls(t, None, source)

    def __str__(self):
        if self.specifier is None:
            return self.tool
        return "%s(%s)" % (self.tool, self.specifier)


@dataclass(frozen=True)
class PermissionMatch:
    outcome: str
    rule: str

    @property
    def tag(self):
        return verdict_tag(self.outcome)


class PermissionRules:
    """Permission rules (deny > ask > allow), matched by liblocus's rule
    engine: `match(tool, **arguments)` -> PermissionMatch or None."""

    def __init__(self, allow=(), ask=(), deny=(), aliases=None, root=None):
        def rules(xs):
            return tuple(x if isinstance(x, PermissionRule)
                         else PermissionRule.parse(x) for x in xs)
        self.allow = rules(allow)
        self.ask = rules(ask)
        self.deny = rules(deny)
        self.aliases = dict(aliases or {})
        self.root = root
        self._c = None
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, mapping, source="", root=None):
        perms = (mapping or {}).get("permissions", {}) or {}
        if not isinstance(perms, dict):
            raise ValueError("settings: permissions must be an object")

        def rules(k):
            v = perms.get(k, ()) or ()
            if not isinstance(v, (list, tuple)):
                raise ValueError("settings: permissions.%s must be a list"
                                 % k)
            return tuple(PermissionRule.parse(x, source) for x in v)
        return cls(rules("allow"), rules("ask"), rules("deny"), root=root)

    def _lists(self):
        return {"allow": [str(r) for r in self.allow],
                "ask": [str(r) for r in self.ask],
                "deny": [str(r) for r in self.deny]}

    def rules(self):
        return (tuple(("allow", r) for r in self.allow) +
                tuple(("ask", r) for r in self.ask) +
                tuple(("deny", r) for r in self.deny))

    def __len__(self):
        return len(self.allow) + len(self.ask) + len(self.deny)

    def merged(self, other):
        return PermissionRules(self.allow + other.allow,
                               self.ask + other.ask,
                               self.deny + other.deny,
                               {**self.aliases, **other.aliases},
                               self.root or other.root)

    def with_rule(self, outcome, rule):
        if isinstance(rule, str):
            rule = PermissionRule.parse(rule)
        lists = {"allow": self.allow, "ask": self.ask, "deny": self.deny}
        if outcome not in lists:
            raise ValueError("outcome must be allow, ask or deny")
        lists[outcome] = lists[outcome] + (rule,)
        return PermissionRules(lists["allow"], lists["ask"], lists["deny"],
                               self.aliases, self.root)

    def _policy(self):
        with self._lock:
            if self._c is None:
                self._c = ControlPolicy(
                    require_verification_score=0.0,
                    max_blast_radius=2 ** 53 - 1, require_human_for=frozenset(),
                    permissions=self)
            return self._c

    def match(self, tool, **detail):
        tool = self.aliases.get(tool, tool)
        args = json.dumps(detail).encode()
        gi, keep = _gate_input(workspace_root=self.root)
        out = ffi.new("locus_decision **")
        err = new_error()
        rc = lib.locus_gate(out, self._policy()._policy(), parser(),
                            cstr(tool), args, len(args), gi, err)
        raise_for(rc, err, "match")
        try:
            v = text(lib.locus_decision_permission(out[0]))
            if v is None:
                return None
            return PermissionMatch(
                v, text(lib.locus_decision_permission_rule(out[0])))
        finally:
            lib.locus_decision_free(out[0])


# ---- the audit trail --------------------------------------------------------

@dataclass(frozen=True)
class AuditRecord:
    payload: dict


class AuditTrail:
    """Every decision the gate made, in order.  In memory by default; with
    `path`, also appended to liblocus's hash-chained audit file
    (docs/policy.md), which verify() then checks."""

    def __init__(self, path=None):
        self.path = path
        self._records = []
        self._lock = threading.Lock()
        self._audit = None
        if path is not None:
            out = ffi.new("locus_audit **")
            err = new_error()
            rc = lib.locus_audit_open(out, cstr(path), 0, err)
            raise_for(rc, err, "audit")
            self._audit = ffi.gc(out[0], lib.locus_audit_close)

    def _append(self, d):
        out = ffi.new("char **")
        raise_for(lib.locus_decision_json(out, d, 0), None, "decision")
        rec = json.loads(take(out[0]))
        with self._lock:
            if self._audit is not None:
                err = new_error()
                rc = lib.locus_audit_append(self._audit, d, err)
                raise_for(rc, err, "audit")
            self._records.append(AuditRecord(rec))

    def records(self):
        with self._lock:
            return tuple(self._records)

    def __len__(self):
        return len(self._records)

    def verify(self):
        """True when the file's chain is intact (always True in memory)."""
        if self.path is None:
            return True
        n = ffi.new("size_t *")
        bad = ffi.new("size_t *")
        err = new_error()
        return lib.locus_audit_verify(n, bad, cstr(self.path), err) == 0

    def close(self):
        if self._audit is not None:
            ffi.release(self._audit)
            self._audit = None


# ---- the gate ---------------------------------------------------------------

class GatedTool:
    """A tool behind the policy: same name, description and parameters;
    every call is decided first and runs only when allowed."""

    def __init__(self, tool, policy, action, trail, on_refusal, verdict,
                 finding):
        if on_refusal not in ("return", "raise"):
            raise ValueError('on_refusal must be "return" or "raise"')
        if not isinstance(policy, ControlPolicy):
            raise TypeError("policy must be a ControlPolicy")
        self.inner = tool
        self.name = tool.name
        self.description = getattr(tool, "description", "")
        self.parameters = getattr(tool, "parameters", {})
        self.policy = policy
        self.action = action
        self.trail = trail
        self.on_refusal = on_refusal
        self.verdict = verdict
        self.finding = finding

    def decide(self, **kwargs):
        """(ApprovalDecision, refusal text or None) for a call."""
        from ..harness.labels import TOOL_KINDS
        spec = self.action
        if self.name in TOOL_KINDS and (spec is None or
                                        isinstance(spec, Action)):
            return self._gate(spec, kwargs)
        return _approve(resolve_action(spec, self.name, kwargs),
                        self.policy, self.finding, self.verdict, 0.0,
                        self.trail)

    def _gate(self, spec, kwargs):
        args = json.dumps(kwargs).encode()
        root = getattr(self.inner, "root", None)
        if spec is not None:
            gi, keep = _gate_input(
                environment=spec.environment,
                blast_radius=spec.blast_radius, cost_usd=spec.cost_usd,
                tags=sorted(set(spec.tags) - {self.name}),
                verdict=self.verdict, finding=self.finding,
                workspace_root=root)
        else:
            gi, keep = _gate_input(verdict=self.verdict,
                                   finding=self.finding, workspace_root=root)
        out = ffi.new("locus_decision **")
        err = new_error()
        rc = lib.locus_gate(out, self.policy._policy(), parser(),
                            cstr(self.name), args, len(args), gi, err)
        raise_for(rc, err, "gate")
        d = ffi.gc(out[0], lib.locus_decision_free)
        try:
            if self.trail is not None:
                self.trail._append(d)
            return (_decision(d, spec or resolve_action(None, self.name,
                                                        kwargs)),
                    _refusal(d))
        finally:
            ffi.release(d)

    def __call__(self, **kwargs):
        decision, refusal = self.decide(**kwargs)
        if decision.allowed:
            return self.inner(**kwargs)
        if self.on_refusal == "raise":
            raise AdmissionError(decision)
        return refusal

    async def execute(self, **kwargs):
        import asyncio
        return await asyncio.to_thread(self.__call__, **kwargs)

    def __repr__(self):
        return "GatedTool(%r)" % (self.name,)


def gate_tool(tool, *, policy, action=None, trail=None, on_refusal="return",
              approval=None, principal=None, advisor=None, verdict=None,
              finding=None):
    """Wrap a tool so that each call is decided by `policy` first: allowed
    calls run; others return the refusal JSON the model sees
    (on_refusal="return") or raise AdmissionError ("raise").  Decisions go
    to `trail` when given."""
    if approval is not None or advisor is not None:
        raise NotImplementedError(
            "approval bridges and model advisors are not provided by the "
            "liblocus binding")
    return GatedTool(tool, policy, action, trail, on_refusal, verdict,
                     finding)
