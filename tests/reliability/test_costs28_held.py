"""`pbem verify --sent` keeps no mail of the Sent folder while it checks it (costs28).

costs27 measured 0.7 KB held a mail of 286 bytes, linear (tests/reliability/test_costs27_held.py): every mail's bytes
were held for the whole check, beside each reading of it, and a larger mail (a reply quoting a report, a picture
attached) is held whole, up to `receipts.MAX_FOLDER_BYTES` (1 GiB).  A Sent folder that is no --mail folder is now
kept where it is (`pbem.trust.stored.Stored`): each file's name and the digest of what was read, each mail read again
when a stage needs it.  Measured here with mails of a 24 KB attachment each, 4 and 16 of them (`tests.growth.held`):
on 36ff7173 25.3 KB more held a mail, now about 1.5 KB (what the check keeps of each: its Message-ID, subject, date,
text, and the line it says of it).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from tests.growth import held
from tests.reliability import sweep24

ATTACHED = 24 * 1024
MOST_A_MAIL = 4 * 1024  # bytes held a mail more: the check's own words of each, never the mail


def _runs(sizes: tuple[int, ...]) -> list[Callable[[], object]]:
    """`pbem verify --sent` of a folder of each of `sizes` mails, against one export (one home: its setup is most of
    the test's time)."""
    folder = Path(tempfile.mkdtemp(prefix="costs28-"))
    cfg = sweep24.home(folder)
    out = folder / "export.json"
    sweep24._cli(cfg, "export", sweep24.GAME, "--format", "json", "--output", str(out))
    runs = []
    for k in sizes:
        sent = folder / f"alice-sent-{k}"
        sent.mkdir()
        for i in range(k):
            msg = sweep24.mail(body=sweep24.signed(f"STATUS\n\n(my {i}th question)"))
            msg.add_attachment(bytes(range(256)) * (ATTACHED // 256), maintype="application", subtype="octet-stream")
            (sent / f"{i:04}.eml").write_bytes(msg.as_bytes())
        runs.append(sweep24.cli(cfg, "verify", str(out), "--partial", "--sent", str(sent), "--as", "Alice"))
    return runs


def test_verify_sent_keeps_no_mail_of_the_folder() -> None:
    few, many = _runs((4, 16))
    small, large = held(few), held(many)
    per_mail = (large - small) / 12
    assert per_mail <= MOST_A_MAIL, (
        f"verify --sent: {small:,} bytes at 4 mails, {large:,} at 16 ({per_mail:,.0f} a mail)"
    )


def test_a_mail_changed_while_it_is_checked_is_told_never_read_as_another(tmp_path: Path) -> None:
    from pbem.trust.receipts import read_folder
    from pbem.trust.stored import Gone

    (tmp_path / "a.eml").write_bytes(b"Subject: a\r\n\r\nhello\r\n")
    kept = read_folder(tmp_path, kept=True)
    assert list(kept) == [b"Subject: a\r\n\r\nhello\r\n"]
    (tmp_path / "a.eml").write_bytes(b"Subject: b\r\n\r\nhello\r\n")
    try:
        kept[0]
    except Gone as exc:
        assert "changed while pbem verify read it" in str(exc)
    else:
        raise AssertionError("a changed mail was read as the one checked")
    (tmp_path / "a.eml").unlink()
    try:
        kept[0]
    except Gone as exc:
        assert "cannot be read again" in str(exc)
    else:
        raise AssertionError("a mail gone was read")
