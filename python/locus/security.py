"""locus.security - the evidence types approve() reads (the original's
module): a finding's Severity, Evidence, a VerificationResult."""
from .control import Evidence, Severity, VerificationResult  # noqa: F401

__all__ = ["Evidence", "Severity", "VerificationResult"]
