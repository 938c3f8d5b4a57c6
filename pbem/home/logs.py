"""Logging to stderr and optionally a file, with secrets masked.

Player codes (anything after CODE) and the configured mail passwords are
replaced by "[redacted]" in every record before it is written.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

_CODE = re.compile(r"(?i)(\bcode\s*[:=]?\s*)([A-Za-z0-9-]{4,64})")


# Control characters shown as escapes, as `pbem.render.sanitize.visible` does (home may not import render):
# no escape sequence in a logged subject or server answer reaches the moderator's terminal (issue 26).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match[str]) -> str:
    n = ord(m.group())
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


class RedactFilter(logging.Filter):
    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s and len(s) >= 3]

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        clean = _CONTROL.sub(_escape, _CODE.sub(r"\1[redacted]", msg))
        for secret in self.secrets:
            clean = clean.replace(secret, "[redacted]")
        if clean != msg:
            record.msg, record.args = clean, ()
        return True


def setup(level: str = "INFO", file: Path | None = None, secrets: list[str] | None = None) -> None:
    root = logging.getLogger("pbem")
    root.setLevel(level)
    root.propagate = False
    for h in list(root.handlers):
        root.removeHandler(h)
    fmt = logging.Formatter("%(asctime)s pbem %(levelname)s %(name)s: %(message)s")
    handlers: list[logging.Handler] = [logging.StreamHandler()]
    if file:
        file.parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(file, encoding="utf-8"))
    redact = RedactFilter(secrets or [])
    for h in handlers:
        h.setFormatter(fmt)
        h.addFilter(redact)
        root.addHandler(h)
