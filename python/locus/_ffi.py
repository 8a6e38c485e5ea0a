"""locus._ffi - liblocus.so loaded through cffi's ABI mode (docs/python.md).

The declarations are python/locus/_cdef.h (a copy of the part of
include/locus/*.h the package calls).  ABI mode (`ffi.dlopen`) needs no C
compiler when the package is installed or imported: Debian's python3-cffi
and the built liblocus.so are all it takes.

Which liblocus.so: $LOCUS_LIBRARY when set, else the repository's own
build (build/liblocus.so beside python/), else the system's (ld.so search,
`liblocus.so.<SOVERSION>`).
"""
import os
import threading

from cffi import FFI

ffi = FFI()
_here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(_here, "_cdef.h"), encoding="utf-8") as _f:
    ffi.cdef(_f.read())
# the C library's allocator: buffers handed *to* liblocus from callbacks
# (a session's output, a download) are malloc'd and freed by it with free()
ffi.cdef("void *malloc(size_t size); void free(void *ptr);")


def _find_library():
    env = os.environ.get("LOCUS_LIBRARY")
    if env:
        return env
    repo = os.path.dirname(os.path.dirname(_here))
    for d in ("build", "build-release"):
        p = os.path.join(repo, d, "liblocus.so")
        if os.path.exists(p):
            return p
    return "liblocus.so.0.3"


LIBRARY = _find_library()
lib = ffi.dlopen(LIBRARY)
libc = ffi.dlopen(None)

LOCUS_OK = 0
LOCUS_ENOMEM = -1
LOCUS_EINVALID = -2
LOCUS_EUSAGE = -3
LOCUS_ENOTFOUND = -4
LOCUS_EIO = -5
LOCUS_EPATTERN = -6
LOCUS_ETOOBIG = -7
LOCUS_EDENIED = -8
LOCUS_ETIMEOUT = -9
LOCUS_ECONFLICT = -10

# the versions this package was written against (include/locus/*.h)
SHELL_OPTIONS_VERSION = 1
GATE_INPUT_VERSION = 1
BACKEND_VERSION = 1
SESSION_VERSION = 1
HARNESS_CONFIG_VERSION = 2
OCI_OPTIONS_VERSION = 1
OPENSHELL_OPTIONS_VERSION = 1


class LocusError(Exception):
    """An error from liblocus: `code` (a LOCUS_E* number), `name`
    ("LOCUS_EINVALID"...) and the library's message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.name = text(lib.locus_error_code_name(code))


def text(p):
    """A borrowed C string as str (None for NULL)."""
    if p == ffi.NULL:
        return None
    return ffi.string(p).decode("utf-8", "surrogateescape")


def take(p):
    """A C string the library handed over (freed with locus_free) as str."""
    if p == ffi.NULL:
        return None
    try:
        return ffi.string(p).decode("utf-8", "surrogateescape")
    finally:
        lib.locus_free(p)


def new_error():
    return ffi.new("locus_error *")


def raise_for(rc, err, what=""):
    """Raise the Python exception for a LOCUS_E* code (no-op for 0)."""
    if rc == 0:
        return
    msg = text(err.message) if err is not None and err.message[0] else ""
    if not msg:
        msg = text(lib.locus_error_code_name(rc))
    if what:
        msg = "%s: %s" % (what, msg)
    if rc == LOCUS_ENOMEM:
        raise MemoryError(msg)
    if rc in (LOCUS_EINVALID, LOCUS_EUSAGE):
        raise ValueError(msg)
    if rc == LOCUS_ENOTFOUND:
        raise LookupError(msg)
    if rc == LOCUS_EDENIED:
        raise PermissionError(msg)
    if rc == LOCUS_ETIMEOUT:
        raise TimeoutError(msg)
    raise LocusError(rc, msg)


def cstr(s):
    """str -> bytes for a NUL-terminated C string (a NUL inside is refused:
    the library would read a different, shorter name)."""
    if isinstance(s, str):
        s = s.encode("utf-8", "surrogateescape")
    if b"\0" in s:
        raise ValueError("a NUL byte in a name")
    return s


def cbytes(s):
    """str or bytes -> bytes for a (ptr, len) argument."""
    if isinstance(s, str):
        return s.encode("utf-8", "surrogateescape")
    return bytes(s)


def str_list(arr):
    """A NULL-terminated const char *const[] -> tuple of str."""
    out = []
    i = 0
    while arr[i] != ffi.NULL:
        out.append(text(arr[i]))
        i += 1
    return tuple(out)


class _ThreadParser(threading.local):
    parser = None


_tls = _ThreadParser()


def parser():
    """This thread's reusable shell parser (one per thread: a parser is not
    shared between threads).  Freed when the thread's state goes."""
    p = _tls.parser
    if p is None:
        out = ffi.new("locus_shell_parser **")
        rc = lib.locus_shell_parser_new(out, ffi.NULL)
        raise_for(rc, None, "shell parser")
        p = ffi.gc(out[0], lib.locus_shell_parser_free)
        _tls.parser = p
    return p


def set_error(err, code, message):
    """Fill a C locus_error from a callback (err may be NULL)."""
    if err == ffi.NULL:
        return code
    err.code = code
    err.offset = -1
    err.line = 0
    err.sys = 0
    b = cbytes(message)[:255]
    ffi.memmove(err.message, b + b"\0", len(b) + 1)
    return code


def malloc_copy(data):
    """A malloc'd copy of data, NUL-terminated past its length (the
    library frees it with free())."""
    p = libc.malloc(len(data) + 1)
    if p == ffi.NULL:
        raise MemoryError("out of memory")
    buf = ffi.cast("char *", p)
    if data:
        ffi.memmove(buf, data, len(data))
    buf[len(data)] = b"\0"
    return buf
