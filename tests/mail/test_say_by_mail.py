"""The moderator's message to every player (`pbem game say`, SAY by mail) over real IMAP and SMTP, then verify.

Before (judges2), the moderator had no way to write to all the players of a game (Judge's broadcast): a mail
to each by hand, which neither the record nor the export showed.  Now SAY (or `pbem game say`) records a public
moderator event and mails every current player a `control_say` notice; `pbem verify` checks the event.  A text
too long, with a control character or shaped like a code is refused in one line and changes nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from pbem.app.decision import GameError
from pbem.app.moderating import make_code
from pbem.app.say import say
from pbem.history.export import build, verify
from pbem.home.app import Home
from pbem.orders.moderator import SAY_MAX
from pbem.record import store
from pbem.record.db import session
from pbem.trust.receipts import verify_mail
from tests.mail.conftest import MODERATOR
from tests.mail.test_e2e import World
from tests.mail.test_moderator_tools_e2e import Moderated

SUBJECT = "[pbem g1] A message from the moderator to every player"


@pytest.fixture
def world(pip_servers, tmp_path, monkeypatch) -> Iterator[World]:
    w = World(pip_servers, tmp_path, monkeypatch)
    with w.readers:
        yield w


def _export(w: World) -> dict:
    with session(w.cfg.database_url) as s:
        return json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))


def test_say_reaches_every_player_by_mail_and_verify_checks_it(world: World) -> None:
    w, m = world, Moderated(world)
    w.new_game("habsburg", 3)
    code = make_code(Home.of(w.cfg), w.clock.now)
    m.poll()
    for p in ("Alice", "Bob", "Carol"):
        w.new_mail(p)

    w.send(f"Test Moderator <{MODERATOR}>", f"CODE {code}\nSAY The deadline holds over the holidays;\nplay on.")
    assert m.poll().accepted == 1
    for p in ("Alice", "Bob", "Carol"):
        ((mail, text),) = w.new_mail(p)
        assert mail["Subject"] == SUBJECT, mail["Subject"]
        assert "The moderator writes to every player of g1:\n\nThe deadline holds over the holidays;" in text, text
        html = mail.get_body(("html",)).get_content()
        assert "The deadline holds over the holidays;</p>" in html
        assert code not in text and code not in html
    ack = m.moderators_mail("Re: [pbem g1] orders")
    said = ack.get_body(("plain",)).get_content()
    assert "done: SAY The deadline holds over the holidays; -> your message is queued to every player" in said, said

    before = _export(w)
    bad = {
        "x" * (SAY_MAX + 1): f"at most {SAY_MAX}",
        "Alice, your code is K7QX-2MPD": "shaped like a player's code",
        "clear\x1b[2Jscreen": "control character U+001B",
        "   ": "the message is empty",
    }
    for text, why in bad.items():
        with pytest.raises(GameError, match=re.escape(why)):
            say(Home.of(w.cfg), "g1", text, w.clock.now)
    w.send(f"Test Moderator <{MODERATOR}>", f"CODE {code}\n" + "\n".join(f"SAY {text}" for text in bad))
    assert m.poll().accepted == 0
    refused = m.moderators_mail("Re: [pbem g1] orders").get_body(("plain",)).get_content()
    for why in bad.values():
        assert why in refused, (why, refused)
    assert "write SAY <a message to every player" in refused, refused
    assert _export(w)["events"] == before["events"], "a refused message records nothing"

    doc = _export(w)
    (event,) = [e for e in doc["events"] if e["kind"] == "moderator" and e["data"]["action"] == "say"]
    assert event["visibility"] == "public" and event["text"] == "The moderator says: " + event["data"]["text"]
    v = verify(doc, partial=True)
    assert v.ok, v.problem
    assert any("say 1" in line for line in v.checked), v.checked
    event["text"] = "The moderator says: Bob is cheating."  # a message the players were never sent
    assert not verify(doc, partial=True).ok

    # Alice's mailbox against the export (`pbem verify --mail`): the message she was mailed is the one recorded;
    # the same mail with other words (its signed receipt unchanged) is caught
    client = w.reader(w.address("Alice"))
    client.select_folder("INBOX", readonly=True)
    fetched = client.fetch(sorted(client.search(["ALL"])), [b"BODY.PEEK[]"])
    raws = [bytes(f[b"BODY[]"]) for f in fetched.values()]
    checked = verify_mail(_export(w), raws, "Alice")
    assert checked.ok, checked.problems
    (said,) = [r for r in raws if SUBJECT.encode() in r]
    forged = said.replace(b"The deadline holds over the holidays;", b"Bob is out; Alice wins this round.  ")
    assert forged != said
    checked = verify_mail(_export(w), [r if r is not said else forged for r in raws], "Alice")
    assert not checked.ok
    assert any('the moderator wrote "Bob is out; Alice wins this round.' in p for p in checked.problems), checked


def test_verify_refuses_a_message_event_out_of_its_bounds() -> None:
    """`_message` on its own (the chain would refuse a changed entry first; a forger recomputing it would not)."""
    from pbem.trust.verify import Refused, _message

    good = {"seq": 4, "kind": "moderator", "visibility": "public", "text": "The moderator says: hi", "data": {}}
    _message({**good, "data": {"action": "say", "text": "hi"}})
    for change, why in (
        ({"visibility": ["Alice"]}, "is not public"),
        ({"data": {"action": "say", "text": "hi", "to": "Bob"}}, "action and text only"),
        (
            {"data": {"action": "say", "text": "x" * (SAY_MAX + 1)}, "text": "The moderator says: " + "x" * 401},
            "at most",
        ),
        ({"data": {"action": "say", "text": "code ABCD-2345"}, "text": "The moderator says: code ABCD-2345"}, "code"),
        ({"data": {"action": "say", "text": "hello"}}, "where its text is"),
    ):
        with pytest.raises(Refused, match=why):
            _message({**good, "data": {"action": "say", "text": "hi"}, **change})


def test_say_is_read_as_typed_and_a_say_in_passing_is_chatter() -> None:
    from pbem.orders.moderator import read

    r = read("- SAY: Bob's mail bounced (he is told), please   be patient!\nSay, is this thing on?\nSAY")
    assert [(c.word, c.args) for c in r.commands] == [("SAY", ("Bob's mail bounced (he is told), please be patient!",))]
    assert r.chatter == ["Say, is this thing on?"] and r.problems[0][0] == "SAY"
    long = read("SAY " + "word " * 200)  # longer than any other command line: refused saying so, not chatter
    assert not long.commands and not long.chatter and "at most 400" in long.problems[0][1]


def test_a_code_in_a_message_to_everyone_is_refused_in_any_case_and_word_pairs_are_not() -> None:
    """Codes as pbem makes them, typed in capitals, in lower case (as players and moderators type them; only the
    capitals were caught) and mixed, anywhere in the text: refused whenever the code holds a digit or is in capitals.
    Hyphenated word pairs of the same shape in ordinary prose go out."""
    import random

    from pbem.orders.moderator import say_problem
    from pbem.trust.codes import ALPHABET

    rng = random.Random("say-codes")
    tried = 0
    for _ in range(300):
        raw = "".join(rng.choice(ALPHABET) for _ in range(8))
        code = f"{raw[:4]}-{raw[4:]}"
        forms = [code] + ([code.lower(), code[:4].lower() + code[4:]] if any(c.isdigit() for c in code) else [])
        for form in forms:
            for text in (form, f"Alice, yours is {form}.", f"({form}) play on"):
                tried += 1
                assert "shaped like a player's code" in say_problem(text), text
    assert tried > 1000
    for prose in ("A self-help note: make-sure you play, well-done all, turn-base rules hold.", "Back next week."):
        assert say_problem(prose) == "", prose
