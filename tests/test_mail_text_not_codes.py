"""No sentence of pbem's own mail looks like a stated code (issue 23): the stored-copy redactor takes the
word after "CODE" for a code (`pbem.mail.inbound.redact.codes_in_text`), so a quoted reply whose quote said
"add your CODE line" had "line" redacted out of its orders ("EVENT DISASTER Line Dies Out")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.mail.inbound.redact import codes_in_text

GOLDEN = Path(__file__).resolve().parent / "golden" / "mail" / "outgoing"
MAILS = sorted(GOLDEN.glob("*.txt"))


@pytest.mark.parametrize("path", MAILS, ids=[p.stem for p in MAILS])
def test_only_real_codes_read_as_codes_in_pbems_mail(path: Path) -> None:
    found = codes_in_text(path.read_text())
    assert all(re.fullmatch(r"[A-Z0-9]{4}-[A-Z0-9]{4}|<[^>]*>|\[[^\]]*\]", c) for c in found), found
