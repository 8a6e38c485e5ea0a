"""locus.control.shell - a bash line into the simple commands it would run.

`parse_command(line)` never raises on input: text that does not parse
gives a ShellCommand whose `parsed` is False, still listing every command
that could be found (liblocus's locus_shell_parse, docs/python.md).
"""
from dataclasses import dataclass, field
import posixpath

from .._ffi import ffi, lib, text, cbytes, parser

_WRITES_FILES = 1 << 1  # LOCUS_CMD_WRITES_FILES
_WRAPPER = 1 << 9  # LOCUS_CMD_WRAPPER: listed again, peeled, as `wrappers`


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command: what runs (`argv`), as written (`words`), the
    wrappers peeled off, its redirections ((op, target) pairs), the
    connector before it, its pipeline number and where it was found
    (`origin`: "" at top level, "substitution", "shell -c", "eval",
    "xargs", ...)."""

    argv: tuple = ()
    words: tuple = ()
    wrappers: tuple = ()
    redirects: tuple = ()
    connector: str = ""
    pipeline: int = 0
    origin: str = ""
    _writes_files: bool = field(default=False, repr=False, compare=False)

    @property
    def name(self):
        return posixpath.basename(self.argv[0]) if self.argv else ""

    @property
    def text(self):
        return " ".join(self.words)

    @property
    def nested(self):
        return self.origin != ""

    @property
    def writes_files(self):
        return self._writes_files


@dataclass(frozen=True)
class ShellCommand:
    """A parsed line: `source`, its `commands` (nested ones included, in
    source order), whether it `parsed` cleanly, whether it holds a command
    substitution; `reason` says why a line did not parse."""

    source: str
    commands: tuple = ()
    parsed: bool = True
    has_substitution: bool = False
    reason: str = None

    @property
    def top_level(self):
        return tuple(c for c in self.commands if not c.nested)

    @property
    def is_single(self):
        return len(self.commands) == 1


def _strs(arr, n):
    return tuple(text(arr[i]) for i in range(n))


def _command(c):
    redirects = tuple((text(c.redirects[i].op), text(c.redirects[i].target))
                      for i in range(c.nredirects))
    return SimpleCommand(
        argv=_strs(c.argv, c.argc),
        words=_strs(c.words, c.nwords),
        wrappers=_strs(c.wrappers, c.nwrappers),
        redirects=redirects,
        connector=text(c.connector) or "",
        pipeline=int(c.pipeline),
        origin=text(c.origin) or "",
        _writes_files=bool(c.flags & _WRITES_FILES))


def parse_command(line):
    """Parse one bash line (str or bytes) into a ShellCommand."""
    data = cbytes(line)
    r = lib.locus_shell_parser_parse(parser(), data, len(data))
    if r == ffi.NULL:
        raise MemoryError("out of memory parsing a shell line")
    try:
        n = lib.locus_shell_result_count(r)
        # the library also lists each wrapper (sudo, env) as a command of
        # its own; the original lists the peeled command once, with the
        # wrappers' names in `wrappers`
        cmds = []
        for i in range(n):
            c = lib.locus_shell_result_command(r, i)
            if not c.flags & _WRAPPER:
                cmds.append(_command(c))
        cmds = tuple(cmds)
        return ShellCommand(
            source=line if isinstance(line, str) else
            data.decode("utf-8", "surrogateescape"),
            commands=cmds,
            parsed=bool(lib.locus_shell_result_parsed(r)),
            has_substitution=bool(
                lib.locus_shell_result_has_substitution(r)),
            reason=text(lib.locus_shell_result_reason(r)))
    finally:
        lib.locus_shell_result_free(r)
