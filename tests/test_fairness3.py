"""Third red team of the fairness checks (docs/security.md, "Red team of the fairness checks, third round").

The moderator wants to favour one player without being caught by players who run `pbem verify` with their own
mail.  Each test builds one attack on real mail of real games (the seeded games every kind plays once per test run,
`tests.test_history_golden.seeded_home`), and shows the check that catches it; each failed on the code before its
fix.  Honest mail must still pass.
"""

from __future__ import annotations

import email
import json
import quopri
import re
from collections.abc import Callable
from datetime import datetime
from email import policy
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.trust.receipts import lines, read_folder, verify_mail
from tests.test_history_golden import KINDS, seeded_home

pytestmark = pytest.mark.xdist_group("fairness3")  # a unit per module, not one for all


@cache
def _sent(kind: str) -> tuple[bytes, ...]:
    """The seeded game's sent mail in the order it was delivered (`read_folder` sorted Maildir names as strings, which
    within one second is not the order of their microseconds: "the first report with ..." changed with the clock of
    the run that played the game, found by `make fuzz`)."""
    return tuple(read_folder(seeded_home(kind) / "mail" / "sent"))


def _mails(kind: str, address: str) -> list[bytes]:
    """What the seeded game of `kind` sent to `address`: that player's received mail."""
    pattern = re.compile(rb"^To: .*<" + re.escape(address.encode()) + rb">", re.M)
    return [raw for raw in _sent(kind) if pattern.search(raw)]


def _doc(kind: str) -> dict:
    return json.loads((seeded_home(kind) / f"{kind}-demo.json").read_text())


def _text_of(raw: bytes) -> str:
    msg = email.message_from_bytes(raw, policy=policy.default)
    part = next(p for p in msg.walk() if p.get_content_type() == "text/plain")
    return str(part.get_content())


def _edited(raw: bytes, edit: Callable[[str], str]) -> bytes:
    """`raw` with its plain text changed by `edit`, every header and the receipt untouched (the signature covers the
    receipt, not the text: what a moderator who rewrites a report before sending it can do)."""
    msg = email.message_from_bytes(raw)
    part = next(p for p in msg.walk() if p.get_content_type() == "text/plain")
    text = part.get_payload(decode=True).decode("utf-8")
    changed = edit(text)
    assert changed != text, "the edit changed nothing"
    body = quopri.encodestring(changed.encode("utf-8")).decode("ascii")
    old = part.get_payload()
    assert isinstance(old, str) and part["Content-Transfer-Encoding"] == "quoted-printable"
    at = raw.index(old.encode("ascii"))
    return raw[:at] + body.encode("ascii") + raw[at + len(old) :]


def _players(doc: dict) -> list[tuple[str, str]]:
    return [(p["name"], p["address"]) for p in doc["players"]]


# ------------------------------------------------------------------ 1. a true head over a false table


@pytest.mark.parametrize("seat", [0, 1, 2])
@pytest.mark.parametrize("kind", KINDS)
def test_every_honest_report_shows_the_readers_view_of_the_replayed_game(kind: str, seat: int) -> None:
    """Generator: every report to the first three players of a seeded finished game of each kind (deadlines, secret
    steps, trades, ballots) is compared with the reader's view replayed at its head: none may be called false."""
    doc = _doc(kind)
    if seat >= len(doc["players"]):
        pytest.skip(f"the seeded {kind} game has {len(doc['players'])} players")
    name, address = _players(doc)[seat]
    c = verify_mail(doc, _mails(kind, address), name)
    assert c.ok, (name, lines(c))
    said = next(x for x in c.checked if x.startswith("the tables of "))
    assert int(said.split()[3]) > 3, said


def _report_with(kind: str, address: str, needle: str) -> tuple[list[bytes], int]:
    """The player's mails and the index of the first report whose text holds `needle`."""
    raws = _mails(kind, address)
    at = next(i for i, raw in enumerate(raws) if "Private report for" in (t := _text_of(raw)) and needle in t)
    return raws, at


def _forged(raws: list[bytes], at: int, edit: Callable[[str], str]) -> list[bytes]:
    return [*raws[:at], _edited(raws[at], edit), *raws[at + 1 :]]


def _one_row(title: str, change: Callable[[str], str]) -> Callable[[str], str]:
    """Change the first row of the section `title` (its line after the heading, or after the table's rule)."""

    def edit(text: str) -> str:
        head = text.index(f"== {title}")
        body = text.index("\n", head) + 1
        if text.startswith("  --", text.index("\n", body) + 1):  # a table: its first row follows the rule
            body = text.index("\n", text.index("\n", body) + 1) + 1
        end = text.index("\n", body)
        return text[:body] + change(text[body:end]) + text[end:]

    return edit


def test_a_report_showing_a_false_public_score_under_a_true_head_is_caught() -> None:
    """Gap: only the "What happened" lines of a report were read back; its tables were not.  The moderator tells Bob
    that Alice's treasury holds one Gold more than it does (so Bob bids or plays against a false position), under
    the true head and signature: `verify --mail` passed.  Now each report's sections are the reader's view of the
    game replayed to its head."""
    doc = _doc("dynasties")
    bob, address = _players(doc)[1]
    raws, at = _report_with("dynasties", address, "== Treasuries and Families ==")
    assert verify_mail(doc, raws, bob).ok

    def richer(text: str) -> str:
        table = text.index("== Treasuries and Families ==")
        row = re.compile(r"^(  Player: Alice\n    Gold: )(\d+)", re.M).search(text, table)  # its row's block
        assert row is not None
        return text[: row.start(2)] + str(int(row.group(2)) + 1) + text[row.end(2) :]

    c = verify_mail(doc, _forged(raws, at, richer), bob)
    assert not c.ok
    said = next(p for p in c.problems if "Treasuries and Families" in p)
    assert said.count('"Player: Alice Gold: ') == 2 and "where the replay gives" in said, (
        said
    )  # the two rows (the subject may name her)
    assert "your view of the game replayed up to entry #" in said and "this mail is your evidence" in said, said
    assert "check it again with the version that wrote it" not in said, said  # written by this pbem

    # A report written by another pbem (its X-Mailer) may read differently after an upgrade: the mismatch says so.
    from pbem import __version__

    for mailer, named in ((b"pbem 0.0.9", "pbem 0.0.9"), (b"pbem", "a pbem that did not name its version")):
        forged = _forged(raws, at, richer)
        forged[at] = forged[at].replace(f"X-Mailer: pbem {__version__}".encode(), b"X-Mailer: " + mailer, 1)
        said = next(p for p in verify_mail(doc, forged, bob).problems if "Treasuries and Families" in p)
        assert f"written by {named} and you check with pbem {__version__}" in said, said


def test_a_report_showing_the_reader_a_false_hand_is_caught() -> None:
    """The reader's own secret state, what they act on: the moderator shows Alice a hand she does not hold."""
    doc = _doc("habsburg")
    name, address = _players(doc)[0]
    raws, at = _report_with("habsburg", address, "(private: only you see this) ==")
    title = re.search(r"== (.+?\(private: only you see this\)) ==", _text_of(raws[at])).group(1)  # type: ignore[union-attr]

    def swap(line: str) -> str:
        return line + ", Plague" if "," in line or line.strip() else line + "  Plague"

    c = verify_mail(doc, _forged(raws, at, _one_row(title, swap)), name)
    assert not c.ok and any(title in p and "Plague" in p for p in c.problems), lines(c)

    def unnamed(text: str) -> str:  # the same, without the line that says whose report it is
        return re.sub(r"^Private report for .*\n", "", _one_row(title, swap)(text), count=1, flags=re.M)

    c = verify_mail(doc, _forged(raws, at, unnamed), name)
    assert not c.ok and any(title in p and "Plague" in p for p in c.problems), lines(c)


def test_a_section_the_view_does_not_give_and_a_section_left_out_are_caught() -> None:
    """A section added under a heading of its own (a note "from the table" about another player's cards), or one
    left out (the reader not shown a track that moved), is no view of the game."""
    doc = _doc("italian-wars")
    name, address = _players(doc)[0]
    raws, at = _report_with("italian-wars", address, "== The board (")

    def added(text: str) -> str:
        i = text.index("\n== ", text.index("== The board (") + 5)
        return text[: i + 1] + "== Bob's hand ==\n  Ottoman Advance, Plague\n\n" + text[i + 1 :]

    c = verify_mail(doc, _forged(raws, at, added), name)
    assert not c.ok and any('has a section "Bob\'s hand"' in p for p in c.problems), lines(c)

    def dropped(text: str) -> str:
        i = text.index("\n== ", text.index("== The board (") + 5) + 1
        j = text.index("\n== ", i)
        return text[:i] + text[j + 1 :]

    c = verify_mail(doc, _forged(raws, at, dropped), name)
    assert not c.ok and any("has no section" in p for p in c.problems), lines(c)


def test_a_report_naming_the_wrong_player_awaited_or_hiding_a_legal_order_is_caught() -> None:
    """The opening lines are what a player acts on first: who the game waits for, what is asked of them and the
    legal orders.  The moderator tells Alice that the game waits for someone else than it does, or leaves a legal
    order out of Bob's list (so he does not play it): each is no view of the replayed game.  The deadline's words
    are left out of this comparison (they hold the time the mail was written); `pbem.trust.due` checks its time."""
    doc = _doc("dynasties")
    (alice, a_address), (bob, b_address) = _players(doc)[0], _players(doc)[1]
    raws, at = _report_with("dynasties", a_address, "\nWaiting for ")
    names = [p["name"] for p in doc["players"]]

    def other(text: str) -> str:
        line = re.search(r"^Waiting for (\w+)", text, re.M)
        assert line is not None
        instead = next(n for n in names if n not in (line.group(1), alice))
        return text[: line.start(1)] + instead + text[line.end(1) :]

    c = verify_mail(doc, _forged(raws, at, other), alice)
    assert not c.ok and any("the opening lines" in p and "Waiting for" in p for p in c.problems), lines(c)
    raws, at = _report_with("dynasties", b_address, "Legal orders now (copy one per line):\n    PLAY")

    def fewer(text: str) -> str:
        start = text.index("Legal orders now (copy one per line):\n") + len("Legal orders now (copy one per line):\n")
        return text[:start] + text[text.index("\n", start) + 1 :]

    c = verify_mail(doc, _forged(raws, at, fewer), bob)
    assert not c.ok and any("the opening lines" in p and "leaves out" in p for p in c.problems), lines(c)


def _html_edited(raw: bytes, edit: Callable[[str], str]) -> bytes:
    """`raw` with its HTML part changed by `edit` (the text part and every header untouched)."""
    msg = email.message_from_bytes(raw)
    part = next(p for p in msg.walk() if p.get_content_type() == "text/html")
    page = part.get_payload(decode=True).decode("utf-8")
    changed = edit(page)
    assert changed != page, "the edit changed nothing"
    old = part.get_payload()
    assert isinstance(old, str) and part["Content-Transfer-Encoding"] == "quoted-printable"
    at = raw.index(old.encode("ascii"))
    return raw[:at] + quopri.encodestring(changed.encode("utf-8")) + raw[at + len(old) :]


def test_a_false_table_in_the_html_part_alone_is_caught() -> None:
    """Most mail programs show the HTML part: a moderator who leaves the plain text true and gives Bob a false
    treasury in the HTML table is caught as well (each HTML section against the view rendered by the report's own
    `mail/_sections.html.j2`)."""
    doc = _doc("dynasties")
    bob, address = _players(doc)[1]
    raws, at = _report_with("dynasties", address, "== Treasuries and Families ==")

    def richer(page: str) -> str:
        row = re.search(r'<td data-label="Player">Alice</td><td data-label="Gold">(\d+)</td>', page)
        assert row is not None
        return page[: row.start(1)] + str(int(row.group(1)) + 1) + page[row.end(1) :]

    forged = [*raws[:at], _html_edited(raws[at], richer), *raws[at + 1 :]]
    c = verify_mail(doc, forged, bob)
    assert not c.ok and any("the HTML part's <h2>Treasuries and Families</h2>" in p for p in c.problems), lines(c)

    def elsewhere(page: str) -> str:  # the same false table, out of the sections the check reads
        return richer(page).replace("<section>\n", "<div>\n").replace('<section class="private">\n', "<div>\n")

    c = verify_mail(doc, [*raws[:at], _html_edited(raws[at], elsewhere), *raws[at + 1 :]], bob)
    assert not c.ok and any("has no section \"the HTML part's" in p for p in c.problems), lines(c)


def test_a_false_event_or_a_hidden_legal_order_in_the_html_part_alone_is_caught() -> None:
    """The HTML part's "What happened" list is read back as the text's is, and its opening lines (what is asked,
    the legal orders) are compared with the replay: a lie told only where most players read it is caught."""
    doc = _doc("dynasties")
    bob, address = _players(doc)[1]
    raws, at = _report_with("dynasties", address, "== What happened since your last report ==")

    def lie(page: str) -> str:
        i = page.index("<h2>What happened since your last report</h2><ul>") + len(
            "<h2>What happened since your last report</h2><ul>"
        )
        return page[:i] + "<li>Alice plays Plague against you.</li>" + page[i:]

    c = verify_mail(doc, [*raws[:at], _html_edited(raws[at], lie), *raws[at + 1 :]], bob)
    assert not c.ok and any("the HTML part of" in p and "Alice plays Plague" in p for p in c.problems), lines(c)
    raws, at = _report_with("dynasties", address, "Legal orders now (copy one per line):\n    PLAY")

    def fewer(page: str) -> str:
        return re.sub(r'(<ul class="legal">)<li>[^<]*</li>', r"\1", page, count=1)

    c = verify_mail(doc, [*raws[:at], _html_edited(raws[at], fewer), *raws[at + 1 :]], bob)
    assert not c.ok and any("the HTML part's the opening lines" in p for p in c.problems), lines(c)


# ------------------------------------------------------------------ 2. the "What happened" list read whole


def test_lines_a_report_lists_after_a_blank_line_are_read() -> None:
    """Gap: `told` stopped reading a report's list at its first blank line, so an undo's reason holding a paragraph
    break was read cut (an honest report called untrue), and whatever a forged report listed after a blank line was
    never read: the moderator could tell Bob "Alice played Plague" there.  The list is now read up to the board's
    note that the template prints after it."""
    doc = _doc("habsburg")
    name, address = _players(doc)[1]
    raws, at = _report_with("habsburg", address, "== What happened since your last report ==")

    def lie(text: str) -> str:
        i = text.index("\n", text.index("== What happened since your last report ==")) + 1
        j = text.index("\n", i) + 1  # after the first line listed
        return text[:j] + "\n  * Alice plays Plague against you.\n" + text[j:]

    c = verify_mail(doc, _forged(raws, at, lie), name)
    assert not c.ok and any("Alice plays Plague against you." in p for p in c.problems), lines(c)


# ------------------------------------------------------------------ 4. the same game started again under another name


@pytest.fixture(scope="module")
def given_up(tmp_path_factory) -> dict:
    """The moderator deals a game of Italian Wars for Alice and Bob under the name "iw-first", sees the deal and
    leaves it without a word; he starts it again as the seeded game, same kind, options and players, another name."""
    from pbem.cli.demo import run
    from tests.conftest import Clock

    root = tmp_path_factory.mktemp("given-up")
    players, seed = 2, "golden-iw-first"
    first = run("italian-wars", players, seed, root / "first", clock=Clock(), max_polls=2, name="iw-first")
    return {"first": first, "root": root}


def _first_mails(given_up: dict, address: str) -> list[bytes]:
    pattern = re.compile(rb"^To: .*<" + re.escape(address.encode()) + rb">", re.M)
    return [raw for raw in read_folder(given_up["first"].home / "mail" / "sent") if pattern.search(raw)]


def test_a_game_dealt_and_started_again_under_another_name_is_named_by_the_players_mail(given_up) -> None:
    """Gap: a game started over under another name with the same players left nothing in the new game's record or
    mail, and `verify --mail` read only the mail tagged with the new name: the moderator could deal, look, and deal
    again.  Now the player's mail of any other game whose signed header is this one's kind, options and players
    (under its own name and commitment) is named: a WARNING when it never ended."""
    doc = _doc("italian-wars")
    name, address = _players(doc)[0]
    before = verify_mail(doc, _mails("italian-wars", address), name)
    assert before.ok and not any("iw-first" in n for n in before.notes)
    c = verify_mail(doc, _first_mails(given_up, address) + _mails("italian-wars", address), name)
    assert c.ok, lines(c)
    said = next(n for n in c.notes if '"iw-first"' in n)
    assert said.startswith("WARNING: ") and "never ended" in said and "saw its deal" in said, said
    assert "signed for the same kind, options and players" in said and "pbem export iw-first" in said, said


def test_a_finished_game_of_the_same_players_is_a_rematch_and_another_game_is_not_named(given_up) -> None:
    """The other game ended (its final report reveals a seed whose SHA-256 is its commitment): a rematch, said in a
    note without a warning.  The mail of a game of other players or another kind is not named at all."""
    first = json.loads(given_up["first"].export.read_text())  # the game he left: the seeded one came after it
    name, address = _players(first)[0]
    mine = _mails("italian-wars", address)
    c = verify_mail(first, _first_mails(given_up, address) + mine, name)
    said = next(n for n in c.notes if '"italian-wars-demo"' in n)
    assert not said.startswith("WARNING") and "it ended" in said, said
    other = _doc("habsburg")
    c = verify_mail(other, _mails("habsburg", other["players"][0]["address"]) + mine, other["players"][0]["name"])
    assert c.ok and not any("italian-wars-demo" in n for n in c.notes), lines(c)


# ------------------------------------------------------------------ 3. a deadline moved earlier by hand


def _deadline_game(home, clock) -> None:
    from datetime import timedelta

    from pbem.app import games
    from pbem.home.app import Home
    from tests.conftest import CODES
    from tests.test_undo import run

    players = [("Alice", "alice@players.example"), ("Bob", "bob@players.example"), ("Carol", "carol@players.example")]
    games.create_game(Home.of(home), "habsburg", "hh3", players, seed="9c1e4b7a2f0d83e5b6a147c92d0f5e3a", clock=clock,
                      codes=CODES, table=games.Table(deadline=timedelta(days=1)))  # fmt: skip
    run(home, clock)  # the first reports: the deadline in a day


def _export(home) -> dict:
    from pbem.history.export import build
    from pbem.record import store
    from pbem.record.db import session

    with session(home.database_url) as s:
        return json.loads(json.dumps(build(s, store.game_by_name(s, "hh3"))))


def _received(home, address: str) -> list[bytes]:
    pattern = re.compile(rb"^To: .*<" + re.escape(address.encode()) + rb">", re.M)
    return [raw for raw in read_folder(home.maildir_path / "sent") if pattern.search(raw)]


def test_defaults_applied_before_the_deadline_a_report_stated_are_caught(home, clock) -> None:
    """Gap: a step's deadline is no entry of the chain.  The moderator edits the deadline in the database (not with
    `pbem game extend`, which is chained) to an hour after the step opened, and the next poll applies the defaults of
    the players who had not answered: their orders sent before the deadline their report stated would be refused
    as late, and every check passed.  pbem never moves a deadline back, so every deadline input after a report's
    head must be applied no earlier than the deadline that report stated: one applied before is now a mismatch.
    An honest deadline (defaults applied after the stated one) passes."""
    from datetime import timedelta

    from sqlmodel import select

    from pbem.record import store
    from pbem.record.db import session
    from pbem.record.models import Deadline, Due
    from tests.test_undo import run

    _deadline_game(home, clock)
    clock.advance(days=1, minutes=5)
    run(home, clock)  # honest: the first step's defaults, a day after it opened
    doc = _export(home)
    assert [o["kind"] for o in doc["orders"]].count("deadline") == 1
    for _, address in [("Alice", "alice@players.example"), ("Bob", "bob@players.example")]:
        c = verify_mail(doc, _received(home, address))
        assert c.ok, lines(c)
    with session(home.database_url) as s:  # the next step's deadline, a day away, set an hour away by hand
        lo = store.load(s, store.game_by_name(s, "hh3"))
        asked = next(r.player for r in lo.engine.requests(lo.state) if not r.answered)
        row = s.exec(select(Deadline).order_by(Deadline.id.desc())).first()  # type: ignore[union-attr]
        assert row is not None
        row.due_at = row.due_at - timedelta(hours=23)
        s.add(row)
        for due in s.exec(select(Due).where(Due.game_id == row.game_id, Due.done == False)):  # noqa: E712
            due.due_at, due.deadline_at = due.due_at - timedelta(hours=23), due.deadline_at - timedelta(hours=23)
            s.add(due)  # and its index of what is due when, as a moderator who knows the schema would
        s.commit()
    clock.advance(hours=2)
    run(home, clock)
    doc = _export(home)
    deadline = [o for o in doc["orders"] if o["kind"] == "deadline"][-1]
    c = verify_mail(doc, _received(home, f"{asked.lower()}@players.example"))
    assert not c.ok, lines(c)
    said = next(p for p in c.problems if f"input {deadline['seq']} (the deadline)" in p)
    assert "22.0 hours before the deadline" in said and "moved earlier outside the record" in said, said


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_honest_deadline_is_called_early_whatever_the_moderator_did(home, clock, seed: int) -> None:
    """Generator: a game played by the real poll with a day per step, where players answer late or not at all
    (defaults at each deadline), and the moderator extends, pauses and resumes, and undoes, in a random order: every
    player's mail passes (pbem never moves a deadline back, whatever it did)."""
    import random
    from datetime import timedelta

    from pbem.app import control, games
    from pbem.app.decision import GameError
    from pbem.app.undo import undo
    from pbem.home.app import Home
    from tests.conftest import CODES, deliver, order_mail, signed
    from tests.test_undo import PLAYERS, exported, loaded, run

    rng = random.Random(seed)
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="9c1e4b7a2f0d83e5b6a147c92d0f5e3a",
                      clock=clock, codes=CODES, table=games.Table(deadline=timedelta(days=1)))  # fmt: skip
    run(home, clock)
    paused = False
    for _ in range(18):
        act = rng.choice(["answer", "answer", "wait", "wait", "extend", "pause", "undo"])
        try:
            if act == "answer" and not paused:
                lo = loaded(home)
                req = next(r for r in lo.engine.requests(lo.state) if not r.answered)
                body = signed(req.player, rng.choice(req.legal))
                deliver(home, order_mail(f"{req.player} <{dict(PLAYERS)[req.player]}>", "hh1", body))
            elif act == "wait":
                clock.advance(hours=rng.choice([2, 20, 25, 30]))
            elif act == "extend" and not paused:
                control.extend(Home.of(home), "hh1", timedelta(hours=rng.choice([1, 12])), clock.now)
            elif act == "pause":
                (control.resume if paused else control.pause)(Home.of(home), "hh1", clock.now)
                paused = not paused
            elif act == "undo" and loaded(home).seq > 2:
                undo(Home.of(home), "hh1", loaded(home).seq - 2, "a misread order", rng.random() < 0.5, clock.now)
        except GameError:
            pass
        clock.advance(minutes=rng.choice([1, 30]))
        run(home, clock)
    if paused:
        control.resume(Home.of(home), "hh1", clock.now)
    clock.advance(hours=25)
    run(home, clock)  # one deadline at least
    doc = exported(home)
    assert any(o["kind"] == "deadline" for o in doc["orders"]), [o["kind"] for o in doc["orders"]]
    for name, address in PLAYERS:
        c = verify_mail(doc, _received(home, address), name)
        assert c.ok, (name, lines(c))


@settings(max_examples=300, deadline=None)
@given(
    st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2040, 12, 31)),
    st.integers(min_value=-3 * 24 * 60, max_value=365 * 24 * 60),
    st.booleans(),
)
def test_the_deadline_a_report_states_is_read_back_whatever_the_date(due_at: datetime, ahead: int, asked: bool) -> None:
    """Generator: a report states its deadline without the year ("Wed 7 Jan 12:00 UTC"); it is read back in the year
    that puts its weekday nearest the mail's Date, across new years and leap days, up to a year ahead and past
    due ("now (it was due ...)"), whether the reader is asked or waits for another."""
    from datetime import UTC, timedelta

    from pbem.render.asking import first_lines
    from pbem.trust.due import stated

    due_at = due_at.replace(tzinfo=UTC)
    now = due_at - timedelta(minutes=ahead)
    req = {"prompt": "Turn 3: play", "answered": False, "legal": [], "syntax": [], "default": [], "on_file": []}
    opening = first_lines([req] if asked else [], ["Bob"], due_at.isoformat(), now.isoformat(), None, "Alice")
    text = "Title\n\n" + "\n".join(opening) + "\nPrivate report for Alice.\n"
    assert stated(text, now.timestamp()) == due_at.replace(second=0, microsecond=0), text
