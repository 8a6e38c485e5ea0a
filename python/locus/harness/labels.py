"""locus.harness.labels - kinds, exec:* tags and the never-allow floor.

`classify_command(line)` is liblocus's labeller (locus_action_classify):
the same verdict as `locus classify`, the gate and the hooks give.
"""
from dataclasses import dataclass

from .._ffi import (ffi, lib, text, cbytes, cstr, new_error, raise_for,
                    parser, str_list)

KIND_READ = "workspace.read"
KIND_WRITE = "workspace.write"
KIND_EXEC = "workspace.exec"
KIND_NETWORK = "network"

_KINDS = {0: KIND_READ, 1: KIND_WRITE, 2: KIND_EXEC, 3: KIND_NETWORK}
_KIND_NUMBERS = {v: k for k, v in _KINDS.items()}

# every exec:* tag (and outside-workspace), from the library's table
EXEC_TAGS = frozenset(
    t for t in (text(lib.locus_tag_name(1 << i)) for i in range(15))
    if t and t.startswith("exec:"))
NEVER = "exec:never"
# the tags that mark a check (tests, linters): allowed like read-only
CHECKS = "exec:check"
# what a command may carry and still be auto-approved by the floor
AUTO_OK = frozenset({CHECKS})


@dataclass(frozen=True)
class CommandClass:
    """The verdict for one bash line: its kind (workspace.read or
    workspace.exec), its exec:* tags, the reasons in the order found, and
    the never-allow floor's reason (None when the floor does not hold
    it)."""

    kind: str
    tags: frozenset = frozenset()
    reasons: tuple = ()
    never: str = None


def _action_classify(line):
    data = cbytes(line)
    out = ffi.new("locus_action **")
    err = new_error()
    rc = lib.locus_action_classify(out, parser(), data, len(data), err)
    raise_for(rc, err, "classify")
    return ffi.gc(out[0], lib.locus_action_free)


def _tags(a):
    return frozenset(text(lib.locus_action_tag(a, i))
                     for i in range(lib.locus_action_tag_count(a)))


def classify_command(line):
    """Classify one bash line (str or bytes) -> CommandClass.  Never raises
    on input: unparsable text is kind workspace.exec with exec:unparsed."""
    a = _action_classify(line)
    try:
        tags = frozenset(t for t in _tags(a) if t != "bash")
        reasons = tuple(text(lib.locus_action_reason(a, i))
                        for i in range(lib.locus_action_reason_count(a)))
        return CommandClass(
            kind=_KINDS.get(lib.locus_action_kind(a), KIND_EXEC),
            tags=tags, reasons=reasons,
            never=text(lib.locus_action_never(a)))
    finally:
        ffi.release(a)


def never(line):
    """The never-allow floor's reason for a line ("recursive delete"...),
    or None."""
    return classify_command(line).never


def read_only(line):
    """True when the line only reads: kind workspace.read, no exec:* tag
    but exec:check, nothing on the floor."""
    c = classify_command(line)
    return (c.kind == KIND_READ and c.never is None and
            not (c.tags & EXEC_TAGS) - AUTO_OK)


def _tool_kinds():
    kinds = {}
    for t in str_list(lib.locus_all_tools):
        out = ffi.new("locus_action **")
        args = b'{"command":""}' if t == "bash" else b"{}"
        rc = lib.locus_action_derive(out, parser(), cstr(t), args,
                                     len(args), ffi.NULL)
        if rc == 0:
            kinds[t] = _KINDS.get(lib.locus_action_kind(out[0]), KIND_EXEC)
            lib.locus_action_free(out[0])
    kinds["bash"] = KIND_EXEC
    return kinds


# every harness tool's kind, as the library derives it
TOOL_KINDS = _tool_kinds()


def action_spec(name, *, environment="unknown"):
    """The Action a harness tool's calls start from: its kind, its name as
    a tag, the environment.  ValueError for a name that is not a harness
    tool."""
    from ..control import Action
    kind = TOOL_KINDS.get(name)
    if kind is None:
        raise ValueError("no harness tool named %r" % (name,))
    return Action(name, kind=kind, tags=frozenset({name}),
                  environment=environment)
