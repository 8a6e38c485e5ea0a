"""locus.control.action - the Action of a call (the original's module)."""
from . import Action, resolve_action  # noqa: F401

__all__ = ["Action", "resolve_action"]
