"""The server's arrival dates (costs13): what a mail server's answers cost the arrivals and witness checks.

`Arrivals.saw` keeps two times whatever the count (sound: 20,000 messages, one object).  An INTERNALDATE that
imapclient reads but that is past year 9999 in UTC ("31-Dec-9999 23:30:00 -0100", which a client's APPEND can set)
raised OverflowError out of the fetch of the whole inbox on 8edb878, every run, and one of "+9999" (100 hours, read
by imapclient) ValueError there and in the witness's comparison: now the first is no evidence, and the witness reads
it as a mail with no date (as late).  The witness
(`ImapInbox.filed_since`) asks for at most `witness.MOST` messages, one EXAMINE and one FETCH, however far the
processed folder moved on (sound: 100,000 filed mails since, 20 UIDs asked), counted on a client that answers
like a server.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from imapclient.response_parser import parse_fetch_response

from pbem.app import witness
from pbem.mail.transports.imap import ImapInbox
from pbem.mail.transports.seam import Arrivals

WIRE = [  # INTERNALDATEs as a server sends them, read by imapclient as the inbox reads them (its zone kept)
    b"31-Dec-9999 23:30:00 -0100",  # past year 9999 in UTC: OverflowError on 8edb878
    b"31-Dec-9999 23:59:59 -2359",
    b"01-Jan-2020 00:00:00 +9999",  # an offset of 100 hours: read, and ValueError when used
    b"01-Jan-0000 00:00:00 +0000",
    b"32-Jan-2020 00:00:00 +0000",  # not a date: None
    b"06-Dec-2026 08:00:00 +0100",
]


def _read(date: bytes) -> Any:
    line = b'1 (UID 5 INTERNALDATE "' + date + b'" RFC822.SIZE 10)'
    return parse_fetch_response([line], normalise_times=False)[5][b"INTERNALDATE"]


ODD = [*(_read(d) for d in WIRE), None, "01-Jan-2020", datetime(2026, 12, 5, 6, 0)]  # the last: no zone, local


def test_odd_arrival_dates_are_no_evidence_and_no_crash() -> None:
    seen = Arrivals(since=3, reference=datetime(2026, 12, 6, tzinfo=UTC))
    for uid, when in enumerate(ODD, 1):
        seen.saw(uid, when)  # raised on 8edb878 (three of the nine)
    assert seen.newest == datetime(2026, 12, 6, 7, 0, tzinfo=UTC)
    seen.saw(9, datetime(2026, 12, 6, 9, 0, tzinfo=UTC))
    assert seen.newest_new == datetime(2026, 12, 6, 9, 0, tzinfo=UTC)


def test_the_witness_compares_every_odd_date_or_reads_it_as_late() -> None:
    since = datetime(2026, 12, 6, tzinfo=UTC)
    read = [witness._aware(when) for when in ODD]
    late = [when is None or when >= since for when in read]  # no date, or none in UTC: as late
    assert late == [True, True, True, False, True, True, True, True, False]
    assert read[-4] == datetime(2026, 12, 6, 7, 0, tzinfo=UTC)


def test_many_arrivals_keep_two_times() -> None:
    seen = Arrivals(since=10_000)
    base = datetime(2026, 1, 1, tzinfo=UTC)
    for uid in range(1, 20_001):
        seen.saw(uid, base + timedelta(seconds=uid % 977))
    assert vars(seen).keys() == {"since", "reference", "newest_new", "newest"}
    assert seen.newest == base + timedelta(seconds=976)


class _Server:
    """An imapclient stand-in holding a processed folder of `filed` mails: each command counted."""

    def __init__(self, filed: int) -> None:
        self.filed, self.commands, self.asked = filed, [], 0

    def select_folder(self, name: str, readonly: bool = False) -> dict[bytes, int]:
        self.commands.append("EXAMINE" if readonly else "SELECT")
        return {b"UIDNEXT": self.filed + 1}

    def fetch(self, uids: list[int], items: list[str]) -> dict[int, dict[bytes, Any]]:
        self.commands.append("FETCH")
        self.asked += len(uids)
        stamp = datetime(2026, 12, 6, tzinfo=UTC)
        return {
            u: {b"BODY[HEADER.FIELDS (MESSAGE-ID)]": b"Message-ID: <%d@x>\r\n" % u, b"INTERNALDATE": stamp}
            for u in uids
        }


def test_the_witness_asks_for_the_newest_few_whatever_was_filed_since() -> None:
    for filed in (1_000, 100_000):
        box = ImapInbox("localhost", 143, connect=False)
        box._client = server = _Server(filed)
        got = box.filed_since("processed", 1, witness.MOST)
        assert len(got) == witness.MOST and server.asked == witness.MOST, (filed, server.asked)
        assert server.commands == ["EXAMINE", "FETCH"]
        assert got[-1][0] == b"Message-ID: <%d@x>\r\n" % filed  # the newest
