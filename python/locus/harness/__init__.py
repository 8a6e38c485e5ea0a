"""locus.harness - the coding tools over a workspace backend (liblocus's
harness: docs/harness.md, docs/python.md).

    from locus.harness import build_harness, LocalBackend
    from locus.control import ControlPolicy, gate_tool

    policy = ControlPolicy(require_verification_score=0.0,
                           require_human_for=frozenset({"workspace.exec"}))
    h = build_harness(LocalBackend("."),
                      wrap=lambda tool, spec: gate_tool(tool, policy=policy,
                                                        action=spec))
    h.tool("bash")(command="ls")
"""
from dataclasses import dataclass
import asyncio
import json
import os
import threading
import weakref

from .._ffi import (ffi, lib, libc, text, take, cbytes, cstr, new_error,
                    raise_for, str_list, set_error, malloc_copy,
                    LOCUS_EIO, LOCUS_ENOTFOUND, LOCUS_EDENIED,
                    LOCUS_ETIMEOUT, LOCUS_ENOMEM, HARNESS_CONFIG_VERSION)
from .labels import (KIND_READ, KIND_WRITE, KIND_EXEC, KIND_NETWORK,
                     TOOL_KINDS, action_spec, classify_command)

__all__ = [
    "build_harness", "Harness", "HarnessConfig", "ExecRecord", "Tool",
    "ALL_TOOLS", "DEFAULT_TOOLS", "PATCH_TOOLS", "WorkspaceBackend",
    "LocalBackend", "MemoryBackend", "SessionBackend", "OCISandboxBackend",
    "OpenShellBackend", "BackendError", "KIND_READ", "KIND_WRITE",
    "KIND_EXEC", "KIND_NETWORK", "TOOL_KINDS", "action_spec",
    "classify_command",
]

ALL_TOOLS = str_list(lib.locus_all_tools)
DEFAULT_TOOLS = str_list(lib.locus_default_tools)
PATCH_TOOLS = str_list(lib.locus_patch_tools)


class BackendError(Exception):
    def __init__(self, code, message, path=None):
        super().__init__(message)
        self.code = code
        self.path = path


# ---- backends ---------------------------------------------------------------

def _free_backend(ptr, keep):
    lib.locus_backend_free(ptr)


class WorkspaceBackend:
    """A liblocus backend (a vtable the harness calls).  Freed with the
    last reference to it (harnesses built over it hold one)."""

    def _adopt(self, ptr, keep=()):
        self._b = ptr
        self._finalizer = weakref.finalize(self, _free_backend, ptr, keep)

    @property
    def label(self):
        return text(self._b.label) or ""

    @property
    def root(self):
        return text(self._b.root) or ""

    @property
    def isolated(self):
        return bool(self._b.isolated)

    @property
    def can_exec(self):
        return bool(self._b.can_exec)

    def close(self):
        """Free the backend now (harnesses over it must be gone)."""
        self._finalizer()

    def __repr__(self):
        return "%s(root=%r, label=%r)" % (type(self).__name__, self.root,
                                          self.label)


class LocalBackend(WorkspaceBackend):
    """A folder on the host (not isolated: commands run on this machine)."""

    def __init__(self, root, *, env=None, base_env=None, label=None,
                 isolated=False):
        if env is not None or base_env is not None or isolated:
            raise NotImplementedError(
                "env, base_env and isolated are not provided by liblocus's "
                "LocalBackend")
        root = os.path.abspath(os.fspath(root))
        out = ffi.new("locus_backend **")
        err = new_error()
        rc = lib.locus_backend_local_new(
            out, cstr(root), cstr(label) if label else ffi.NULL, err)
        raise_for(rc, err, "LocalBackend")
        self._adopt(out[0])


class MemoryBackend(WorkspaceBackend):
    """An in-memory map of files (no shell)."""

    def __init__(self, files=None):
        out = ffi.new("locus_backend **")
        err = new_error()
        rc = lib.locus_backend_memory_new(out, err)
        raise_for(rc, err, "MemoryBackend")
        self._adopt(out[0])
        for path, data in (files or {}).items():
            self.write(path, data)

    def write(self, path, data):
        d = cbytes(data)
        err = new_error()
        rc = self._b.write(self._b, cstr(path), d, len(d), err)
        raise_for(rc, err, "write")

    def read(self, path):
        out = ffi.new("char **")
        n = ffi.new("size_t *")
        err = new_error()
        rc = self._b.read(self._b, cstr(path), out, n, err)
        raise_for(rc, err, "read")
        try:
            return ffi.unpack(out[0], n[0]).decode("utf-8",
                                                   "surrogateescape")
        finally:
            libc.free(out[0])


def _session_code(e):
    if isinstance(e, FileNotFoundError):
        return LOCUS_ENOTFOUND
    if isinstance(e, PermissionError):
        return LOCUS_EDENIED
    if isinstance(e, TimeoutError):
        return LOCUS_ETIMEOUT
    if isinstance(e, MemoryError):
        return LOCUS_ENOMEM
    return LOCUS_EIO


def _session_struct(session):
    """A locus_session whose members call the Python object back.  Returns
    (struct, callbacks) — both must outlive the C backend."""
    s = ffi.new("locus_session *")
    s.version = 1

    def fail(err, e):
        return set_error(err, _session_code(e),
                         "%s: %s" % (type(e).__name__, e))

    @ffi.callback("int(locus_session *, const char *, double, int *, "
                  "char **, size_t *, locus_error *)")
    def c_exec(_s, command, timeout_s, exit_code, out, n, err):
        try:
            code, output = session.exec(text(command), timeout=timeout_s)
            data = cbytes(output or b"")
            buf = malloc_copy(data)
            exit_code[0] = -1 if code is None else int(code)
            out[0] = buf
            n[0] = len(data)
            return 0
        except BaseException as e:  # noqa: B036 (never unwind through C)
            return fail(err, e)

    @ffi.callback("int(locus_session *, const char *, const char *, "
                  "size_t, locus_error *)")
    def c_upload(_s, path, data, n, err):
        try:
            session.upload_file(text(path), ffi.unpack(data, n))
            return 0
        except BaseException as e:  # noqa: B036
            return fail(err, e)

    @ffi.callback("int(locus_session *, const char *, char **, size_t *, "
                  "locus_error *)")
    def c_download(_s, path, out, n, err):
        try:
            data = cbytes(session.download_file(text(path)))
            out[0] = malloc_copy(data)
            n[0] = len(data)
            return 0
        except BaseException as e:  # noqa: B036
            return fail(err, e)

    @ffi.callback("void(locus_session *)")
    def c_free(_s):
        pass  # the struct is Python's; freed with the backend object

    s.exec = c_exec
    s.upload = c_upload
    s.download = c_download
    s.free = c_free
    return s, (c_exec, c_upload, c_download, c_free, session)


class SessionBackend(WorkspaceBackend):
    """A workspace inside a sandbox reached through three calls, written in
    Python: `session.exec(command, *, timeout) -> (exit_code | None,
    bytes)`, `session.upload_file(path, data)`,
    `session.download_file(path) -> bytes` (FileNotFoundError when absent).
    liblocus calls them back for every file operation and command."""

    def __init__(self, session, *, root, state_dir=None, label=None,
                 isolated=True):
        if state_dir is not None:
            raise NotImplementedError(
                "state_dir is not provided by liblocus's SessionBackend")
        for m in ("exec", "upload_file", "download_file"):
            if not callable(getattr(session, m, None)):
                raise TypeError("session has no %s()" % m)
        s, cbs = _session_struct(session)
        out = ffi.new("locus_backend **")
        err = new_error()
        rc = lib.locus_backend_session_new(
            out, s, cstr(root), cstr(label or "session"), bool(isolated),
            err)
        raise_for(rc, err, "SessionBackend")
        self.session = session
        self._adopt(out[0], (s, cbs))


def _strings(keep, value):
    if value is None:
        return ffi.NULL
    c = ffi.new("char[]", cstr(value))
    keep.append(c)
    return c


def _string_list(keep, values):
    if values is None:
        return ffi.NULL
    cs = [ffi.new("char[]", cstr(v)) for v in values]
    arr = ffi.new("const char *[]", cs + [ffi.NULL])
    keep += cs + [arr]
    return arr


class OCISandboxBackend(WorkspaceBackend):
    """An OCI Generative AI sandbox (docs/backends.md): `create(project,
    ...)` makes one (deleted when the backend goes), `connect(sandbox_id,
    ...)` attaches to one.  Keyword options are locus_oci_options' fields
    (region, config_file, profile, endpoint, ca_file, routes_file, stream,
    expiration, shape, runtime, display_name, warmpool_name, env,
    max_output_bytes, ready_timeout_s, poll_interval_s, data_base64,
    expires_in_minutes, write_part_bytes)."""

    _STR = ("region", "config_file", "profile", "endpoint", "ca_file",
            "routes_file", "stream", "expiration", "shape", "runtime",
            "display_name", "warmpool_name")
    _NUM = ("max_output_bytes", "ready_timeout_s", "poll_interval_s",
            "data_base64", "expires_in_minutes", "write_part_bytes")

    def __init__(self, *, sandbox_id=None, create_project=None, **opts):
        keep = []
        o = ffi.new("locus_oci_options *")
        o.version = 1
        o.sandbox_id = _strings(keep, sandbox_id)
        o.create_project = _strings(keep, create_project)
        for k, v in opts.items():
            if k in self._STR:
                setattr(o, k, _strings(keep, v))
            elif k in self._NUM:
                setattr(o, k, v)
            elif k == "env":
                o.env = _string_list(keep, ["%s=%s" % kv
                                            for kv in dict(v).items()])
            else:
                raise TypeError("unknown OCI option %r" % (k,))
        out = ffi.new("locus_backend **")
        err = new_error()
        rc = lib.locus_backend_oci_new(out, ffi.NULL, o, err)
        raise_for(rc, err, "OCISandboxBackend")
        self._adopt(out[0])

    @classmethod
    def create(cls, project, **opts):
        return cls(create_project=project, **opts)

    @classmethod
    def connect(cls, sandbox_id, **opts):
        return cls(sandbox_id=sandbox_id, **opts)


class OpenShellBackend(WorkspaceBackend):
    """An NVIDIA OpenShell sandbox through its gateway (docs/openshell.md):
    OpenShellBackend(endpoint, sandbox_id=... | create_name=..., ...)."""

    _STR = ("workspace", "image", "bearer_token", "ca_file", "cert_file",
            "key_file")
    _NUM = ("ready_timeout_s", "poll_interval_s", "output_max")

    def __init__(self, endpoint=None, *, sandbox_id=None, create_name=None,
                 providers=None, **opts):
        keep = []
        o = ffi.new("locus_openshell_options *")
        o.version = 1
        o.endpoint = _strings(keep, endpoint)
        o.sandbox_id = _strings(keep, sandbox_id)
        o.create_name = _strings(keep, create_name)
        o.providers = _string_list(keep, providers)
        for k, v in opts.items():
            if k in self._STR:
                setattr(o, k, _strings(keep, v))
            elif k in self._NUM:
                setattr(o, k, v)
            else:
                raise TypeError("unknown OpenShell option %r" % (k,))
        out = ffi.new("locus_backend **")
        err = new_error()
        rc = lib.locus_backend_openshell_new(out, o, err)
        raise_for(rc, err, "OpenShellBackend")
        self._adopt(out[0])


# ---- the harness ------------------------------------------------------------

@dataclass(frozen=True)
class ExecRecord:
    """What one command did (for evidence): the SHA-256 of the command and
    of its kept output, exit code (None when it did not finish), timing,
    the backend's label."""

    command_sha256: str
    exit_code: int
    duration_s: float
    timed_out: bool
    output_sha256: str
    output_bytes: int
    truncated: bool
    backend: str
    background: bool


@dataclass(frozen=True)
class HarnessConfig:
    environment: str = "unknown"
    require_read: bool = True
    vision: bool = False
    on_timeout: str = "background"
    bash_timeout: int = 120
    bash_max_timeout: int = 600
    output_chars: int = 30000
    output_head_chars: int = 8000
    result_store: object = None
    on_exec: object = None
    on_change: object = None
    search_budget_s: float = 0.0


def _record(rec):
    return ExecRecord(
        command_sha256=text(rec.command_sha256),
        exit_code=int(rec.exit_code) if rec.has_exit_code else None,
        duration_s=float(rec.duration_s), timed_out=bool(rec.timed_out),
        output_sha256=text(rec.output_sha256),
        output_bytes=int(rec.output_bytes), truncated=bool(rec.truncated),
        backend=text(rec.backend_label) or "",
        background=bool(rec.background))


def _c_config(cfg):
    """A locus_harness_config for cfg and what it points to."""
    if cfg.on_timeout not in ("background", "kill"):
        raise ValueError('on_timeout must be "background" or "kill"')
    c = ffi.new("locus_harness_config *")
    keep = [c]
    c.version = HARNESS_CONFIG_VERSION
    c.allow_unread_edits = not cfg.require_read
    c.bash_timeout = int(cfg.bash_timeout)
    c.bash_max_timeout = int(cfg.bash_max_timeout)
    c.on_timeout_kill = cfg.on_timeout == "kill"
    c.output_chars = int(cfg.output_chars)
    c.output_head_chars = int(cfg.output_head_chars)
    c.vision = bool(cfg.vision)
    env = ffi.new("char[]", cstr(cfg.environment))
    keep.append(env)
    c.environment = env
    c.search_budget_s = float(cfg.search_budget_s)
    if cfg.on_exec is not None:
        @ffi.callback("void(const locus_exec_record *, void *)")
        def on_exec(rec, _p):
            try:
                cfg.on_exec(_record(rec))
            except Exception:  # a callback's failure never unwinds C
                pass
        c.on_exec = on_exec
        keep.append(on_exec)
    if cfg.on_change is not None:
        @ffi.callback("void(const char *, void *)")
        def on_change(path, _p):
            try:
                cfg.on_change(text(path))
            except Exception:
                pass
        c.on_change = on_change
        keep.append(on_change)
    if cfg.result_store is not None:
        @ffi.callback("char *(const char *, size_t, void *)")
        def result_store(data, n, _p):
            try:
                rid = cfg.result_store(ffi.unpack(data, n).decode(
                    "utf-8", "surrogateescape"))
                if rid is None:
                    return ffi.NULL
                return malloc_copy(cbytes(rid))
            except Exception:
                return ffi.NULL
        c.result_store = result_store
        keep.append(result_store)
    return c, keep


def _free_harness(ptr, keep):
    lib.locus_harness_free(ptr)


class _Handle:
    """The C harness, the backend it borrows and the config's callbacks;
    one call at a time (the C harness is not thread-safe)."""

    def __init__(self, backend, names, cfg):
        self.backend = backend
        self.lock = threading.Lock()
        ccfg, keep = _c_config(cfg)
        if names is None:
            arr = ffi.NULL
        else:
            cs = [ffi.new("char[]", cstr(n)) for n in names]
            arr = ffi.new("const char *[]", cs + [ffi.NULL])
            keep += cs + [arr]
        out = ffi.new("locus_harness **")
        err = new_error()
        rc = lib.locus_harness_new(out, backend._b, arr, ffi.NULL, ffi.NULL,
                                   ccfg, err)
        raise_for(rc, err, "build_harness")
        self.h = out[0]
        self.keep = keep
        weakref.finalize(self, _free_harness, self.h, (backend, keep))

    def call(self, name, kwargs):
        args = json.dumps(kwargs).encode()
        out = ffi.new("char **")
        is_error = ffi.new("bool *")
        err = new_error()
        with self.lock:
            rc = lib.locus_harness_call(out, is_error, self.h, cstr(name),
                                        args, len(args), err)
        raise_for(rc, err, name)
        return take(out[0]), bool(is_error[0])


class Tool:
    """One harness tool as a plain object any agent framework can hand to
    a model: `name`, `description`, `parameters` (JSON Schema), a sync call
    `tool(**arguments) -> str` and `await tool.execute(**arguments)`.
    A refused or failed call returns the text the model should see;
    `last_error` says whether the last call failed."""

    def __init__(self, handle, name, root):
        self._handle = handle
        self.name = name
        self.description = text(lib.locus_harness_tool_description(
            handle.h, cstr(name)))
        self.parameters = json.loads(text(lib.locus_harness_tool_schema(
            handle.h, cstr(name))))
        self.root = root
        self.last_error = False

    def __call__(self, **kwargs):
        out, self.last_error = self._handle.call(self.name, kwargs)
        return out

    def call(self, arguments=None):
        return self(**(arguments or {}))

    async def execute(self, **kwargs):
        return await asyncio.to_thread(self.__call__, **kwargs)

    def __repr__(self):
        return "Tool(%r)" % (self.name,)


class _Todos:
    def __init__(self, handle):
        self._handle = handle

    def snapshot(self):
        out = ffi.new("char **")
        with self._handle.lock:
            rc = lib.locus_harness_todos_json(out, self._handle.h)
        raise_for(rc, None, "todos")
        return json.loads(take(out[0]))


class _Context:
    def __init__(self, handle):
        self.todos = _Todos(handle)


class Harness:
    """The tools built over one backend (`tools`, wrapped when a wrap was
    given), their Action specs, the prompt fragment and the context."""

    def __init__(self, handle, tools, specs, gated, config):
        self._handle = handle
        self.tools = tuple(tools)
        self.specs = dict(specs)
        self.gated = gated
        self.backend = handle.backend
        self.config = config
        self.context = _Context(handle)
        self._by_name = {t.name: t for t in self.tools}

    def tool(self, name):
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError("no tool named %r in this harness" % (name,))

    @property
    def prompt_fragment(self):
        out = ffi.new("char **")
        with self._handle.lock:
            rc = lib.locus_harness_prompt_fragment(out, self._handle.h)
        raise_for(rc, None, "prompt_fragment")
        return take(out[0])

    def preview(self, name, arguments=None):
        """The diff a file-changing call would make (or the refusal it
        would get), without making it; None for other tools."""
        args = json.dumps(arguments or {}).encode()
        out = ffi.new("char **")
        err = new_error()
        with self._handle.lock:
            rc = lib.locus_harness_preview(out, self._handle.h, cstr(name),
                                           args, len(args), err)
        raise_for(rc, err, name)
        return take(out[0])


def build_harness(backend, *, tools=None, wrap=None, config=None):
    """Build the harness over `backend`: `tools` (names; None: the default
    set, less the shell tools on a backend without a shell), `wrap(tool,
    spec) -> tool` to gate every tool (gate_tool), `config` a
    HarnessConfig."""
    if not isinstance(backend, WorkspaceBackend):
        raise TypeError("backend must be a locus.harness backend")
    config = config or HarnessConfig()
    names = None if tools is None else [
        t if isinstance(t, str) else t.name for t in tools]
    handle = _Handle(backend, names, config)
    root = backend.root if os.path.isabs(backend.root or "") else None
    built, specs = [], {}
    for i in range(lib.locus_harness_tool_count(handle.h)):
        name = text(lib.locus_harness_tool_name(handle.h, i))
        t = Tool(handle, name, root)
        spec = action_spec(name, environment=config.environment)
        specs[name] = spec
        built.append(wrap(t, spec) if wrap is not None else t)
    return Harness(handle, built, specs, wrap is not None, config)
