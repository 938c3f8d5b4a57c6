"""`pbem verify --mail` on plain values: a small chained export and mails built as pbem builds them.

The end-to-end test over a game played by mail is tests/test_verify_mail.py; here every check and
every way of reading a folder (Maildir, mbox, .eml) is exercised on hand-made data.
"""

from __future__ import annotations

import copy
import mailbox
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from pbem.mail.outbound.compose import Body, Envelope, compose
from pbem.mail.outbound.outgoing import Receipt
from pbem.trust import chain
from pbem.trust.receipts import NoMail, check_mail, lines, parse_mail, pick, read_folder, verify_mail

COMMITMENT = "c0" * 32
T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def _export() -> dict[str, Any]:
    """Two players' inputs with an event each, chained from the commitment as the record chains them."""
    orders: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = [
        {"seq": 1, "input_seq": 0, "kind": "setup", "text": "Cards are dealt.", "visibility": "public", "data": {}}
    ]
    for seq, (player, line) in enumerate([("Alice", "PLAY Plague"), ("Bob", "PASS"), ("Alice", "PASS")], 1):
        orders.append({"seq": seq, "kind": "orders", "player": player, "lines": [line], "message_id": f"<m{seq}@x>"})
        text = f"{player}: {line}."
        events.append(
            {"seq": seq + 1, "input_seq": seq, "kind": "play", "text": text, "visibility": "public", "data": {}}
        )
    for i, row in enumerate(orders + events):
        row["at"] = (T0 + timedelta(minutes=i)).isoformat()
    _rechain(orders, events)
    return {"game": {"name": "hh1"}, "players": [{"name": "Alice"}, {"name": "Bob"}], "seed_commitment": COMMITMENT,
            "orders": orders, "events": events}  # fmt: skip


def _rechain(orders: list[dict[str, Any]], events: list[dict[str, Any]]) -> None:
    head = COMMITMENT
    for row in chain.sequence(orders, events):
        head = chain.link(head, chain.entry_of(row))
        row["hash"] = head


def _heads(doc: dict[str, Any]) -> list[str]:
    out = [COMMITMENT]
    for row in chain.sequence(doc["orders"], doc["events"]):
        out.append(row["hash"])
    return out


def _mail(to: str, subject: str, n: int, head: str, minute: int, **kw: Any) -> bytes:
    receipt = Receipt(n, head, kw.pop("input", None))
    extra = receipt.headers() + ((("X-Pbem-Commitment", kw.pop("commitment")),) if "commitment" in kw else ())
    envelope = Envelope(
        sender="moderator@pbem.test",
        sender_name="Test Moderator",
        to=to,
        to_name=to.split("@")[0].capitalize(),
        message_id=f"<pbem.{minute}.{to}@pbem.test>",
        when=T0 + timedelta(minutes=minute),
        extra=extra,
    )
    said = kw.pop("said", None)  # a mail with an input's receipt is an acknowledgement quoting its lines
    body = (
        f'Your message "orders" for game "hh1" was read.\n\nAccepted and applied:\n  OK   {said}\n'
        if said
        else "body\n"
    )
    return compose(envelope, Body(subject, body))


@pytest.fixture
def doc() -> dict[str, Any]:
    return _export()


def _alice(doc: dict[str, Any]) -> list[bytes]:
    """Alice's mail: her first report, the acks of her inputs 1 and 3, a report between, a mail of another game."""
    h = _heads(doc)
    return [
        _mail("alice@p.test", "[pbem hh1] Turn 1", 1, h[1], 0, commitment=COMMITMENT),
        _mail("alice@p.test", "Re: [pbem hh1] your orders", 3, h[3], 1, input=(1, h[2]), said="PLAY Plague"),
        _mail("alice@p.test", "[pbem hh1] Turn 2", 5, h[5], 2),
        _mail("alice@p.test", "Re: [pbem hh1] your orders", 7, h[7], 3, input=(3, h[6]), said="PASS"),
        _mail("alice@p.test", "[pbem other] Turn 9", 99, "ab" * 32, 4),  # another game: not checked
    ]


def test_the_true_export_agrees_with_every_receipt(doc) -> None:
    c = verify_mail(doc, _alice(doc))
    assert c.ok, c.problems
    assert (c.mails, c.heads, c.inputs, c.commitments) == (4, 4, 2, 1)
    assert "4 mails to alice@p.test: 4 record heads" in lines(c)[0]


def test_a_changed_order_names_the_mail_and_the_input(doc) -> None:
    doc["orders"][2]["lines"] = ["PLAY Plague"]  # Alice's input 3, the hashes left as they were
    c = verify_mail(doc, _alice(doc))
    assert not c.ok
    first = c.earliest()[0]
    assert 'Re: [pbem hh1] your orders" acknowledged your orders as input 3' in first
    assert "input 3 (Alice: PLAY Plague)" in first and "it was changed" in first and "before it" not in first
    assert "Mon, 05 Jan 2026 12:03:00 +0000" in first


def test_a_re_chained_forgery_is_caught_where_the_histories_part(doc) -> None:
    received = _alice(doc)
    doc["orders"][1]["lines"] = ["PLAY Plague"]  # Bob's input 2, and every hash recomputed to match
    _rechain(doc["orders"], doc["events"])
    c = verify_mail(doc, received)
    assert not c.ok and len(c.problems) == 3  # heads 5 and 7, and the ack of input 3
    assert (
        "(Record #5) carries the head" in c.earliest()[0]
        and "entry #5 of the export, where that receipt stands" in c.earliest()[0]
        and "entry 4, input 2 (Bob: PLAY Plague) to entry 5" in c.earliest()[0]
    )


def test_a_history_cut_short_is_caught(doc) -> None:
    received = _alice(doc)
    doc["orders"], doc["events"] = doc["orders"][:2], doc["events"][:3]
    c = verify_mail(doc, received)
    assert not c.ok
    assert any("the export holds only 5: entries are missing" in p for p in c.problems)
    assert any("input 3" in p and "does not hold" in p for p in c.problems)


def test_another_commitment_is_caught(doc) -> None:
    raws = _alice(doc)
    raws[0] = _mail("alice@p.test", "[pbem hh1] Turn 1", 1, _heads(doc)[1], 0, commitment="d1" * 32)
    c = verify_mail(doc, raws)
    assert not c.ok and "states the seed commitment " + "d1" * 32 in c.earliest()[0]


def test_mail_without_receipts_checks_nothing_and_says_so(doc) -> None:
    plain = compose(Envelope("m@x", "M", "alice@p.test", "", "<1@x>", T0), Body("[pbem hh1] hi", "hi"))
    c = verify_mail(doc, [plain])
    assert not c.ok and "nothing could be checked" in c.problems[0]


def test_whose_mail_is_inferred_or_chosen(doc) -> None:
    h = _heads(doc)
    both = [*_alice(doc), _mail("bob@p.test", "Re: [pbem hh1] your orders", 5, h[5], 2, input=(2, h[4]), said="PASS")]
    c = verify_mail(doc, both)
    assert not c.ok and "choose one with --as" in c.problems[0]
    for who in ("Bob", "bob@p.test"):
        c = verify_mail(doc, both, as_player=who)
        assert c.ok and c.inputs == 1, c.problems
    moderators = copy.deepcopy(doc)
    moderators["players"][0]["address"] = "alice@p.test"
    mails = [parse_mail(r) for r in both]
    assert pick(mails, moderators, "alice")[1] == mails[:5]  # the name, through the export's address
    with pytest.raises(NoMail, match="went to Carol"):
        pick(mails, doc, "Carol")


def test_a_malformed_receipt_header_is_refused(doc) -> None:
    raw = _alice(doc)[0].replace(b"X-Pbem-Record: 1", b"X-Pbem-Record: one")
    c = verify_mail(doc, [raw, *_alice(doc)[1:]])
    assert not c.ok and "malformed receipt header" in c.problems[-1]


@pytest.mark.parametrize("kind", ["maildir", "mbox", "eml"])
def test_every_kind_of_folder_is_read(doc, tmp_path: Path, kind: str) -> None:
    raws = _alice(doc)
    if kind == "maildir":
        path = tmp_path / "Maildir"
        md = mailbox.Maildir(str(path), create=True)
        for raw in raws:
            md.add(raw)
    elif kind == "mbox":
        path = tmp_path / "pbem.mbox"
        box = mailbox.mbox(str(path), create=True)
        for raw in raws:
            box.add(raw)
        box.flush()
    else:
        path = tmp_path / "saved"
        path.mkdir()
        for i, raw in enumerate(raws):
            (path / f"{i:03}.eml").write_bytes(raw)
        (path / "notes.txt").write_text("not a mail")
    read = read_folder(path)
    assert sorted(read) == sorted(raws) if kind != "mbox" else len(read) == len(raws)
    c = check_mail(doc, [m for m in map(parse_mail, read) if "[pbem hh1]" in m.subject], "Alice")
    assert c.ok and c.heads == 4, c.problems


def test_a_missing_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(NoMail):
        read_folder(tmp_path / "nowhere")


def test_a_maildir_is_read_in_the_order_its_mail_was_delivered(tmp_path) -> None:
    """Maildir names start with the seconds and microseconds of delivery; sorted as strings, "M99" came after
    "M100" within one second, so "the first report that ..." depended on the clock of the run that sent them."""
    from pbem.trust.receipts import read_folder

    for sub in ("cur", "new", "tmp"):
        (tmp_path / sub).mkdir()
    names = ["1700000000.M99P7.host", "1700000000.M100P7.host", "1700000001.M5P7.host", "999999999.M900000P7.host"]
    for n, name in enumerate(names):
        (tmp_path / ("cur" if n % 2 else "new") / (name + (":2,S" if n % 2 else ""))).write_bytes(
            b"Subject: %d\n\n" % n
        )
    assert read_folder(tmp_path) == [b"Subject: 3\n\n", b"Subject: 0\n\n", b"Subject: 1\n\n", b"Subject: 2\n\n"]
