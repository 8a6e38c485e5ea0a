"""locus.harness.labels - kinds, exec:* tags and the never-allow floor.

`classify_command(line)` is liblocus's labeller (locus_action_classify):
the same verdict as `locus classify`, the gate and the hooks give.
"""
import threading
from typing import NamedTuple

from .._ffi import (ffi, lib, text, cbytes, cstr, new_error, raise_for,
                    parser, str_list)

KIND_READ = "workspace.read"
KIND_WRITE = "workspace.write"
KIND_EXEC = "workspace.exec"
KIND_NETWORK = "network"

_KINDS = {0: KIND_READ, 1: KIND_WRITE, 2: KIND_EXEC, 3: KIND_NETWORK}
_KIND_NUMBERS = {v: k for k, v in _KINDS.items()}

# every exec:* tag (and outside-workspace), from the library's table: every
# bit of the 32 (a NULL name past the last; exec:unknown is the newest)
EXEC_TAGS = frozenset(
    t for t in (text(lib.locus_tag_name(1 << i)) for i in range(32))
    if t and t.startswith("exec:"))
NEVER = "exec:never"
# the tags that mark a check (tests, linters): allowed like read-only
CHECKS = "exec:check"
# what a command may carry and still be auto-approved by the floor
AUTO_OK = frozenset({CHECKS})


class CommandClass(NamedTuple):
    """The verdict for one bash line: its kind (workspace.read or
    workspace.exec), its exec:* tags (and outside-workspace), the reasons
    in the order found, and the never-allow floor's reason (None when the
    floor does not hold it)."""

    kind: str
    tags: frozenset = frozenset()
    reasons: tuple = ()
    never: str = None


# LOCUS_TAG_* bits -> the tag set (a line's tags are few distinct sets)
_TAG_BITS = tuple((1 << i, text(lib.locus_tag_name(1 << i)))
                  for i in range(15) if lib.locus_tag_name(1 << i))
_tag_sets = {}


def _tag_set(bits):
    t = _tag_sets.get(bits)
    if t is None:
        t = frozenset(name for bit, name in _TAG_BITS if bits & bit)
        if len(_tag_sets) < 4096:
            _tag_sets[bits] = t
    return t


class _Slots(threading.local):
    out = None


_slots = _Slots()
_classify = lib.locus_action_classify
_kind = lib.locus_action_kind
_exec_tags = lib.locus_action_exec_tags
_reason_count = lib.locus_action_reason_count
_reason = lib.locus_action_reason
_never = lib.locus_action_never
_free = lib.locus_action_free
_string = ffi.string
_NULL = ffi.NULL


def classify_command(line):
    """Classify one bash line (str or bytes) -> CommandClass.  Never raises
    on input: unparsable text is kind workspace.exec with exec:unparsed."""
    data = line.encode("utf-8", "surrogateescape") \
        if isinstance(line, str) else bytes(line)
    out = _slots.out
    if out is None:
        out = _slots.out = ffi.new("locus_action **")
    rc = _classify(out, parser(), data, len(data), _NULL)
    if rc:
        err = new_error()
        raise_for(_classify(out, parser(), data, len(data), err), err,
                  "classify")
    a = out[0]
    try:
        n = _reason_count(a)
        reasons = tuple(_string(_reason(a, i)).decode(
            "utf-8", "surrogateescape") for i in range(n)) if n else ()
        nv = _never(a)
        return CommandClass(
            _KINDS.get(_kind(a), KIND_EXEC), _tag_set(_exec_tags(a)),
            reasons,
            None if nv == _NULL else _string(nv).decode("utf-8",
                                                        "surrogateescape"))
    finally:
        _free(a)


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
