"""A number pbem reads from outside is taken only as ASCII digits of a bounded length (costs23).

`str.isdigit` is true of "²", which `int` refuses (ValueError), of "٣" (which it reads as 3), and of any number of
digits, which `int` refuses past 4,300 (Python's limit) and SQLite past 19 (OverflowError).  Four readers took a
word as a number on `isdigit` alone: the ledger of mails sent (`pbem poll --trust-clock`'s `replay`, a file the
moderator may add to) and a sending run's journal (`recover`'s `read_ids`), an IMAP server's `* N EXPUNGE`
(`_shifted`), and an SMTP server's SIZE in its EHLO answer (`pbem mail check`); and the check of a scratch
database's name on a PostgreSQL server (`restore_probe`, the same test, not run here).  The generator: each reader
given each of "²", "٣", 19 digits and 5,000 digits beside a number it should read.  On 90a53973 9 of 12 cases
failed: the ledger and journal 4 of 4 (a traceback of the run), EXPUNGE's 5,000 digits (ValueError), SIZE's 4 of 4
("²" and 5,000 digits ValueError, "٣" shown as "0 MB", 19 digits as 9,999,999,999,999 MB); now 0 of 12: only
ASCII digits, at most 18, are a number.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pbem.mail import check as mail_check
from pbem.mail.transports.imap import ImapInbox
from pbem.record import sentlog

WORDS = {"superscript two": "²", "arabic three": "٣", "19 digits": "9" * 19, "5,000 digits": "9" * 5000}


def _raises(run: Any) -> str | None:
    try:
        run()
    except Exception as exc:  # what the reader let out: a traceback of the run
        return f"{type(exc).__name__}: {str(exc)[:80]}"
    return None


@pytest.mark.parametrize("word", sorted(WORDS))
def test_a_ledger_word_that_is_no_id_is_not_read_as_one(word: str, home: Any) -> None:
    from pbem.record.store import now_utc

    folder = sentlog.journal_dir(Path(home.home))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / sentlog.LEDGER).write_text(f"{WORDS[word]}\n12\n")
    got: list[int] = []
    failure = _raises(lambda: got.append(sentlog.replay(Path(home.home), home.database_url, now_utc())))
    assert failure is None, f"the ledger's {word}: {failure}"
    journal = folder / f"run{sentlog.SUFFIX}"
    journal.write_text(f"{WORDS[word]}\n7\n", encoding="utf-8")
    assert sentlog.read_ids(journal) == {7}, word


@pytest.mark.parametrize("word", sorted(WORDS))
def test_an_expunge_the_server_tells_of_that_is_no_number_moves_nothing(word: str) -> None:
    box = ImapInbox.__new__(ImapInbox)  # (only what `_shifted` reads: the server's untagged EXPUNGE answers)
    told = {"EXPUNGE": [WORDS[word].encode("utf-8"), b"3"]}
    box._client = SimpleNamespace(_imap=SimpleNamespace(untagged_responses=told))  # type: ignore[attr-defined]
    box.exists = 10
    got: list[int] = []
    failure = _raises(lambda: got.append(box._shifted(5)))
    assert failure is None and got == [4], f"EXPUNGE {word}: {failure or got}"


@pytest.mark.parametrize("word", sorted(WORDS))
def test_a_size_the_smtp_server_states_that_is_no_number_is_not_shown(word: str) -> None:
    failure = _raises(lambda: mail_check._size_limit(WORDS[word]))
    assert failure is None and mail_check._size_limit(WORDS[word]) == "", f"SIZE {word}: {failure}"
    assert mail_check._size_limit("35882577") == "; message size limit 35 MB"
