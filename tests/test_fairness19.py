"""Nineteenth round: a verify line that names a mail by a number gives the number that mail shows.

Each mail pbem sends ends "Record #N, HEAD...", N the entries of the record its reader may see; `verify --mail`
named mails by their head's place on the finished export's chain, which counts the entries hidden from them while
the game ran (docs5: "(record #67)" for a mail ending "Record #51"), and named places on the export "record #K" too.
Now a mail is named with the number it shows (`Received.numbered`) and a place on the export is "entry #K of the
export".  The generator forges, on a seeded finished game, each kind of line naming a mail: a history re-chained
(its heads off the chain), a report withheld, the seed in a header before the end, a report's time left, a deadline
told an hour early (by itself and against another player's mail).  On c43e2ee 4 of its 6 kinds gave a number the
mail does not show ("(record #207)" for a mail ending "Record #154"); the withheld report's was fixed by
fairness18 and the time left gave none.  Each now names the mail by its own.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest

from pbem.render.asking import due_phrase
from pbem.trust import chain, due, leaked, told
from pbem.trust.receipts import apart, lines, parse_mail, verify_mail
from tests.test_fairness3 import _mails
from tests.test_fairness13 import _headed
from tests.test_fairness18 import _withheld
from tests.test_history_golden import KINDS, seeded_export

KIND = "habsburg" if "habsburg" in KINDS else KINDS[0]
_SHOWS = re.compile(r"^Record #(\d{1,9}), [0-9a-f]{16}\.\.\.$", re.M)
_NUMBER = re.compile(r"[Rr]ecord #(\d{1,9})")


def _shown(boxes: list[list[bytes]]) -> dict[str, set[int]]:
    """Each mail's name (as verify names it) -> the numbers its last line shows ("Record #51")."""
    out: dict[str, set[int]] = {}
    for box in boxes:
        for raw in box:
            if found := _SHOWS.findall(told.plain(raw)):
                out.setdefault(parse_mail(raw).name, set()).update(int(n) for n in found)
    return out


def _misnumbered(said: list[str], shows: dict[str, set[int]]) -> list[str]:
    """The lines of `said` that give a record number no mail they name shows (a place on the export called a record
    number is one), or that name a mail with a number it does not show."""
    bad = []
    for line in said:
        named = {n for name, numbers in shows.items() if name in line for n in numbers}
        wrong = [int(n) for n in _NUMBER.findall(line) if int(n) not in named]
        wrong += [
            n
            for name, numbers in shows.items()
            for n in map(int, re.findall(re.escape(name) + r" \(Record #(\d{1,9})\)", line))
            if n not in numbers
        ]
        if wrong:
            bad.append(f"{wrong}: {line}")
    return bad


def _numbered(said: list[str], shows: dict[str, set[int]]) -> bool:
    """Some line of `said` names a mail followed by the number it shows."""
    return any(f"{name} (Record #{n})" in line for line in said for name, ns in shows.items() for n in ns)


def _rechained(doc: dict) -> dict:
    """The export with a public event halfway through reworded and every hash after it recomputed, the game key kept
    (the moderator re-signs what he likes): the player's receipts after it lie off the chain."""
    rows = chain.sequence(doc["orders"], doc["events"])
    row = next(r for r in rows[len(rows) // 2 :] if "lines" not in r and r.get("visibility") == "public")
    row["text"] = f"{row['text']} (reworded)"
    head = doc["seed_commitment"]
    for r in rows:
        head = r["hash"] = chain.link(head, chain.entry_of(r))
    doc["chain"] = dict(doc["chain"], head=head)
    return doc


def _earlier(raw: bytes, left: bool) -> bytes:
    """The report `raw` stating its deadline an hour earlier: with the time left it stated ("in 2 days", `left`: other
    than its Date gives) or with the one its Date gives (a deadline other than the chain gives); its receipt as it was."""
    text, sent = told.plain(raw), parse_mail(raw).sort_key
    found, when = due.STATED.search(text), due.stated(text, sent)
    assert found is not None and when is not None
    was, when = found[0], when - timedelta(hours=1)
    if left:
        now = was.replace(f"{found[4]}:{found[5]} UTC", f"{when:%H:%M} UTC")
    else:
        lead = "Deadline: " if was.startswith("Deadline: ") else "; deadline "
        now = lead + due_phrase(when, datetime.fromtimestamp(sent, UTC)).removesuffix(")")
    assert was.encode() in raw and now != was, was
    return raw.replace(was.encode(), now.encode(), 1)


MARKS = {
    "re-chained": "carries the head",
    "withheld": "listed by none of your reports",
    "seed early": "written before the game's end",
    "time left": "the time left it told you",
    "deadline": "stated the deadline",
    "apart": "stated the deadline",
}


def _forged(how: str) -> tuple[list[str], list[list[bytes]]]:
    """What verify --mail prints of the last player's mail of the seeded game forged as `how`, and the mailboxes."""
    doc = seeded_export(KIND)
    player, other = doc["players"][-1], doc["players"][0]
    box = _mails(KIND, player["address"])
    reports = [i for i, raw in enumerate(box) if due.stated(told.plain(raw), parse_mail(raw).sort_key)]
    k = reports[len(reports) // 2]
    if how == "re-chained":
        return lines(verify_mail(_rechained(doc), box, player["name"])), [box]
    if how == "withheld":  # fairness18's
        doc, name, box, _ = _withheld(KIND)
        return lines(verify_mail(doc, box, name)), [box]
    if how == "seed early":
        seed = doc["seed"].lower()  # (a short seed typed by hand: the whole of it looked for)
        box = [*box[:k], _headed(box[k], f"X-Moderator-Note: {seed}".encode()), *box[k + 1 :]]
        with mock.patch.object(leaked, "WINDOW", len(seed)), mock.patch.object(leaked, "secret", lambda *s: [seed]):
            return lines(verify_mail(doc, box, player["name"])), [box]
    box = [*box[:k], _earlier(box[k], how == "time left"), *box[k + 1 :]]
    c = verify_mail(doc, box, player["name"])
    if how != "apart":
        return lines(c), [box]
    theirs = _mails(KIND, other["address"])
    return apart([(player["name"], c), (other["name"], verify_mail(doc, theirs, other["name"]))]), [box, theirs]


@pytest.mark.parametrize("how", list(MARKS))
def test_a_line_naming_a_mail_gives_the_record_number_the_mail_shows(how: str) -> None:
    """The generator: each forgery is named (so the test can fail), every record number its lines give is one a mail
    they name shows (a place on the export is an entry, no record number), and the mail is named with its own."""
    said, boxes = _forged(how)
    shows = _shown(boxes)
    assert any(MARKS[how] in line for line in said), said
    assert not _misnumbered(said, shows), _misnumbered(said, shows)
    assert _numbered([line for line in said if MARKS[how] in line], shows), said
