"""TLS for the IMAP and SMTP connections: the context, and errors a moderator can act on.

Verification is always on: the server's certificate must chain to a trusted
CA and name the host pbem connects to.  The CAs are the system's, or the
PEM file `[imap] cafile` / `[smtp] cafile` names (a private CA).  `describe`
turns a TLS failure into one line that names the problem and what to change.
"""

from __future__ import annotations

import ssl
from pathlib import Path


def context(cafile: Path | str | None = None) -> ssl.SSLContext:
    """A verifying client context: the system CAs, or only those in ``cafile``."""
    return ssl.create_default_context(cafile=str(cafile) if cafile else None)


def describe(exc: BaseException, section: str) -> str | None:
    """What went wrong with TLS, in one line with the key to change; None if ``exc`` is not about TLS."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        problem = str(exc.verify_message or exc.reason or "verification failed").rstrip(".")
        hint = (
            f"check [{section}] host"
            if "mismatch" in str(problem).lower()
            else f"if the server uses a private CA, set [{section}] cafile to its certificate"
        )
        return f"certificate not accepted: {problem}; {hint}"
    if isinstance(exc, ssl.SSLError):
        reason = exc.reason or str(exc)
        if reason in ("WRONG_VERSION_NUMBER", "UNKNOWN_PROTOCOL", "RECORD_LAYER_FAILURE"):
            return (
                f"no TLS on this port ({reason}); for a STARTTLS port set [{section}] ssl = false and starttls = true"
            )
        return f"TLS failed ({reason})"
    return None
