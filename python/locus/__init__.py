"""locus - the policy and shell-analysis engine for AI coding agents, from
Python (liblocus through cffi; docs/python.md).

    from locus.harness import build_harness, LocalBackend
    from locus.control import ControlPolicy, gate_tool
"""
from ._ffi import LocusError, lib as _lib, text as _text, LIBRARY

__version__ = _text(_lib.locus_version())

__all__ = ["LocusError", "LIBRARY", "__version__"]
