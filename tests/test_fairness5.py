"""Fifth round of the fairness checks (docs/security.md, "Red team of the fairness checks, fifth round").

What the fourth round left to the moderator's word: the lines an acknowledgement quotes as applied ("Your
message"), and a report saying "No deadline is set" (masked like a deadline's time).  Each forgery is made on real
mail of the seeded finished game of each kind, under its true signed receipt; each test failed on the code before
this round, and the honest mailbox passes (tests/test_fairness3.py's generator checks every whole mailbox).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.trust.receipts import lines, verify_mail
from tests.test_fairness3 import _edited, _html_edited, _text_of
from tests.test_fairness4 import _box, _entries
from tests.test_history_golden import KINDS

Forgery = Callable[[bytes], bytes]


def _first_ok(text: str) -> str:
    m = re.search(r"^  OK   (.*)$", text, re.M)
    assert m is not None
    return m.group(1)


def _swap_ok(raw: bytes) -> bytes:
    """The first quoted line says another order than the one applied (the applied lines in the export)."""
    return _edited(raw, lambda t: re.sub(r"^(  OK   ).*$", r"\1PASS", t, count=1, flags=re.M))


def _add_ok(raw: bytes) -> bytes:
    return _edited(raw, lambda t: re.sub(r"^(  OK   .*)$", r"\1\n  OK   VOTE RED", t, count=1, flags=re.M))


def _drop_ok(raw: bytes) -> bytes:
    return _edited(raw, lambda t: re.sub(r"^  OK   .*\n", "", t, count=1, flags=re.M))


def _html_swap(raw: bytes) -> bytes:
    return _html_edited(raw, lambda p: re.sub(r"(<tr><td><code>)[^<]*(</code></td><td>ok)", r"\1PASS\2", p, count=1))


def _html_add(raw: bytes) -> bytes:
    return _html_edited(
        raw,
        lambda p: p.replace(
            "</tbody></table>", "<tr><td><code>VOTE RED</code></td><td>ok</td></tr>\n</tbody></table>", 1
        ),
    )


def _html_cell(raw: bytes) -> bytes:
    return _html_edited(raw, lambda p: re.sub(r"(</code></td><td>ok)", r"\1, and Bob passed", p, count=1))


#: (what the forgery is, how it is made, a phrase its mismatch holds)
QUOTES: list[tuple[str, Forgery, str]] = [
    ("a quoted line says another order", _swap_ok, "'PASS'"),
    ("a line quoted that was not applied", _add_ok, "VOTE RED"),
    ("an applied line left out of the quote", _drop_ok, "leaves out"),
    ("the HTML quotes another order", _html_swap, "in its HTML part"),
    ("the HTML quotes a line not applied", _html_add, "VOTE RED"),
    ("the HTML says more after ok", _html_cell, "Bob passed"),
]


def _cut(raws: list[bytes], *needles: bytes) -> tuple[list[bytes], int]:
    """The first mail whose text holds `needles`, as a mailbox of its own, and its index there."""
    at = next(i for i, r in enumerate(raws) if b"X-Pbem-Input" in r and all(n in _text_of(r).encode() for n in needles))
    return [raws[at]], 0  # (checked alone: its receipt, its quote, its tables; quick)


@pytest.mark.parametrize("kind", KINDS)
def test_an_acknowledgement_quoting_other_lines_than_the_input_applied_is_named(kind: str) -> None:
    """Gap: "Your message" quoted the player's applied lines and nobody compared them: the moderator could apply
    PASS, record PASS, and tell the player "OK   VOTE RED" under the true receipt (the tables true of PASS).  Now
    the quote, text and HTML, must be the lines of the input its receipt names: each forgery is named, the honest
    mail passes.  Generator: a report answering the player's orders in each kind, forged six ways."""
    doc, name, raws = _box(kind, 1)
    box, at = _cut(raws, b"Accepted and applied:", b"Private report for")
    honest = verify_mail(doc, box, name)
    assert honest.ok, lines(honest)
    raw = box[at]
    assert _first_ok(_text_of(raw))
    missed = []
    for what, forge, phrase in QUOTES:
        c = verify_mail(doc, [*box[:at], forge(raw), *box[at + 1 :]], name)
        said = [p for p in c.problems if phrase.lower() in p.lower() and "the one its receipt names" in p]
        if c.ok or not said:
            missed.append((what, c.problems or lines(c)))
        else:
            assert "this mail is your evidence" in said[0], said[0]
    assert not missed, missed


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "italian-wars"])  # (no reading there differs from its line)
def test_what_the_engine_understood_of_a_quoted_line_is_the_replays(kind: str) -> None:
    """ "(understood as: ...)" after a quoted line is the engine's reading of it ("I pass" as NO EVENT): once the
    seed is out it must be the replay's, in the text and the HTML; the honest acknowledgement passes."""
    doc, name, raws = _box(kind, 0)
    raw = next(r for r in raws if b"X-Pbem-Input" in r and "\n       understood as: " in _text_of(r))
    assert verify_mail(doc, [raw], name).ok
    # mail sent before the reading moved below its row had it as a third column: it verifies as it did
    old = _edited(raw, lambda t: re.sub(r"\n       understood as: ([^\n]*)", r"   (understood as: \1)", t))
    assert "   (understood as: " in _text_of(old) and verify_mail(doc, [old], name).ok
    below = re.compile(r"^       understood as: .*$", re.M)
    text = _edited(raw, lambda t: below.sub("       understood as: NO EVENT", t, count=1))
    page = _html_edited(raw, lambda p: re.sub(r"(</code></td><td>ok) \([^<]*\)", r"\1 (NO EVENT)", p, count=1))
    for forged in (text, page):
        c = verify_mail(doc, [forged], name)
        assert not c.ok and any("NO EVENT" in p and "replay's reading of your line" in p for p in c.problems), lines(c)


def test_the_notice_of_held_orders_applied_at_the_deadline_quotes_the_input() -> None:
    """The notice of orders held until the deadline ("were applied:", `mail/held_applied`) quotes the input applied:
    its honest text and HTML agree, a changed line in either is named."""
    from pbem.render.templates import render_mail
    from pbem.trust import acked

    applied = ["DISCARD Milan", "DISCARD <Genoa> & 'Pisa'"]
    r = render_mail(
        "held_applied", {"game_name": "iwd", "due": "2026-01-07 12:00 UTC", "lines": applied, "moderator": "M"}
    )
    assert acked.differs(r.text, r.html, applied) == ""
    assert "'PASS'" in acked.differs(r.text.replace("    DISCARD Milan", "    PASS"), r.html, applied)
    html = acked.differs(r.text, r.html.replace("<code>DISCARD Milan", "<code>PASS"), applied)
    assert html.startswith("in its HTML part") and "'PASS'" in html
    assert "leaves out" in acked.differs(r.text, r.html, [*applied, "DISCARD Rome"])


def test_the_quote_follows_the_acknowledgements_own_bounds() -> None:
    """pbem quotes at most `MANY` accepted lines of `LINE_CHARS` characters each (`pbem.app.answers.quoted_lines`);
    the trust layer's copy of those bounds is the intake's, so an honest long message, and a long line, pass, in
    the acknowledgement's text and HTML as `mail/ack` renders them; a wrong count of the lines not shown does not."""
    from pbem.app import answers
    from pbem.render.templates import render_mail
    from pbem.trust import acked

    assert (acked.MANY, acked.LINE_CHARS) == (answers.MANY, answers.LINE_CHARS)
    applied = [f"PLAY card {i}" for i in range(103)] + ["x" * 300, "VOTE   (understood as: PASS)"]
    quoted, more = answers.quoted_lines([{"line": x, "ok": True, "understood": x.upper()} for x in applied])
    ctx = {**CONTEXT, "applied": True, "lines": quoted, "more_lines": more}
    r = render_mail("ack", ctx)
    assert more == 5 and acked.differs(r.text, r.html, applied) == ""
    assert "counts 4 more" in acked.differs(r.text.replace("and 5 more", "and 4 more"), r.html, applied)
    assert "counts 4 more" in acked.differs(r.text, r.html.replace("and 5 more", "and 4 more"), applied)
    short = applied[-2:]
    quoted, more = answers.quoted_lines([{"line": x, "ok": True, "understood": ""} for x in short])
    r = render_mail("ack", {**ctx, "lines": quoted, "more_lines": more})
    assert acked.differs(r.text, r.html, short) == ""
    assert acked.differs(r.text, r.html, ["y" * 300, short[1]]) != ""


CONTEXT = dict(
    subject_in="Re: [pbem hh1] orders", game_name="hh1", rejected_count=0, problems=[], press_failed=[], more_notes=0,
    no_orders=False, press_sent=[], held=False, on_file=[], waiting=[], report_follows=False, chatter=[],
    more_chatter=0, moderator="M",
)  # fmt: skip


# ------------------------------------------------------------------ "No deadline is set" was masked like a deadline


@pytest.mark.parametrize("kind", KINDS)
def test_a_report_saying_no_deadline_is_set_while_the_step_has_one_is_named(kind: str) -> None:
    """Gap: the opening lines' deadline words were left out of the comparison, "No deadline is set for this step."
    with them, so a report could tell a player there was no deadline (and the defaults then came as a surprise)
    while the replay had one, and `--mail` passed.  Only the time inside a sentence that states a deadline is left
    out now; an open step always has a deadline in pbem, so the other sentence is named, in the text and the
    HTML, and in the "Waiting for" form too."""
    doc, name, raws = _box(kind, 1)
    asked = [i for i, r in enumerate(raws) if re.search(rb"^Deadline: in ", r, re.M) and b"Private report" in r]
    box = [r for r in raws if _entries(r) <= _entries(raws[asked[0]])]
    at = box.index(raws[asked[0]])
    assert verify_mail(doc, box, name).ok
    raw = box[at]
    forgeries = [
        _edited(raw, lambda t: re.sub(r"^Deadline: .*\.$", "No deadline is set for this step.", t, count=1, flags=re.M)),
        _html_edited(raw, lambda p: re.sub(r"<p>Deadline: [^<]*</p>", "<p>No deadline is set for this step.</p>", p, count=1)),
    ]  # fmt: skip
    waiting = [i for i, r in enumerate(raws) if re.search(rb"; deadline in ", r) and b"Private report" in r]
    if waiting:
        box2 = [r for r in raws if _entries(r) <= _entries(raws[waiting[0]])]
        at2 = box2.index(raws[waiting[0]])
        w = _edited(box2[at2], lambda t: re.sub(r"; deadline in [^\n]*UTC\.", "; no deadline is set.", t, count=1))
        c = verify_mail(doc, [*box2[:at2], w, *box2[at2 + 1 :]], name)
        assert not c.ok and any("no deadline is set" in p for p in c.problems), lines(c)
    for forged in forgeries:
        c = verify_mail(doc, [*box[:at], forged, *box[at + 1 :]], name)
        assert not c.ok and any("no deadline is set" in p.lower() for p in c.problems), lines(c)


# ------------------------------------------------------------------ an undo while the join step is open


JOIN_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "undo_join_numbered.json"


def test_an_undo_taken_while_the_join_step_is_open_is_marked_with_the_committed_seed(tmp_path: Path) -> None:
    """Gap (secrecy): an undo taken before the deal kept the numbered form (no generator yet to key a mark), so its
    input and public event named global input numbers, which every player read in their report, export and the
    site.  The game's own seed exists from `game new` and is committed in the invitation before any input: it keys
    the join step's marks now (its own label), so the input holds a mark, the public event no number, and the player
    whose JOIN was taken back is told privately; the moderator's tools read the number back, and once the seed is
    out `pbem verify` replays it, refuses a changed mark, and every player's mail checks."""
    from pbem.app.undo import listed
    from pbem.history.export import verify
    from pbem.home.app import Home
    from pbem.trust import deal
    from pbem.trust.fold import undo_mark
    from pbem.trust.verify import earlier
    from tests.fixtures.make_undo_join_numbered import play
    from tests.test_hidden_count import PLAYERS

    cfg, alice, final = play(tmp_path / "home")
    (inp,) = [o for o in final["orders"] if o["kind"] == "undo"]
    names = [p for p, _ in PLAYERS]
    assert inp["lines"][0] == undo_mark(deal.open_state(names), 1, final["seed"]), inp["lines"]
    public = [e for e in final["events"] if e["kind"] == "undo" and e["visibility"] == "public"]
    assert [sorted(e["data"]) for e in public] == [["after", "reroll", "why"]], public
    assert not re.search(r"\binputs? \d", public[0]["text"]), public[0]["text"]
    private = [e for e in final["events"] if e["kind"] == "undo" and e["visibility"] != "public"]
    assert [(e["visibility"], e["data"]) for e in private] == [(["Bob"], {"yours": [["JOIN", "SALT bob's words"]]})]
    (back,) = [r for r in listed(Home.of(cfg), "g1") if r.kind == "undo"]
    assert back.back_to == 1
    for check in (verify(final), verify(alice, partial=True), earlier(final, alice)):
        assert check.ok, check.problem
    everything = [p.read_bytes() for p in sorted((Path(cfg.maildir_path) / "sent").glob("*/*"))]
    for who, address in PLAYERS:
        mine = [raw for raw in everything if re.search(rb"(?m)^To: [^\n]*" + re.escape(address.encode()), raw)]
        c = verify_mail(final, mine, who)
        assert c.ok and c.heads > 0, (who, lines(c))
    forged = json.loads(json.dumps(final))
    next(o for o in forged["orders"] if o["kind"] == "undo")["lines"][0] = undo_mark({}, 0, final["seed"])
    assert not verify(forged).ok, "an undo input naming another input passed"


def test_an_undo_in_the_join_step_recorded_before_keeps_its_numbers_and_verifies_as_before() -> None:
    """The fixture was made by the pbem before this round: its join step's undo names input 1 and its public event
    the input undone by its global number.  The replay gives the same events (text and data), the chain and the
    salts check byte for byte, and Alice's partial export verifies alone and against the final record."""
    from pbem.history.export import verify
    from pbem.trust.verify import earlier

    stored = json.loads(JOIN_FIXTURE.read_text())
    final, alice = stored["final"], stored["alice"]
    (inp,) = [o for o in final["orders"] if o["kind"] == "undo"]
    (ev,) = [e for e in final["events"] if e["kind"] == "undo"]
    assert inp["lines"][0] == "1" and ev["data"]["undone"] == [2] and "after input 1" in ev["text"]
    for check in (verify(final), verify(alice, partial=True), earlier(final, alice)):
        assert check.ok, check.problem


def test_a_seat_given_to_someone_else_while_the_join_step_is_open_verifies(tmp_path: Path) -> None:
    """Found with the join step's undo: `pbem verify` refused every input of the moderator's taken while the join
    step was open but JOIN and start ("does not fit the join step"), so a game whose moderator undid a JOIN, or
    gave a seat to someone else (`pbem game replace`, a `rename` input) before the deal, could never be verified
    once finished.  Both kinds belong to either step now; a player's orders before the deal are still refused."""
    from datetime import timedelta

    from pbem.app import control, games
    from pbem.app.cron import run_poll
    from pbem.app.games import Table
    from pbem.history.export import build, verify
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import CODES
    from tests.reliability import killpoints as kp
    from tests.test_hidden_count import PLAYERS, T0, _mail

    cfg = kp.make_home(tmp_path / "home")
    home = Home.of(cfg)
    games.create_game(home, "italian-wars", "g1", PLAYERS[:2], seed="join-rename-0123456789abcdef", codes=CODES,
                      clock=lambda: T0, table=Table(join=True))  # fmt: skip
    kp.deliver_in_order(cfg, [_mail("Alice", "a-join", "JOIN\nSALT mine")])
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=1))
    control.replace(home, "g1", "Bob", ("Dora", "dora@players.test"), T0 + timedelta(minutes=2), code="DORA-1111")
    control.start(home, "g1", T0 + timedelta(minutes=3))
    control.abandon(home, "g1", T0 + timedelta(minutes=4))
    with session(cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))
    assert [o["kind"] for o in doc["orders"]] == ["join", "rename", "start"]
    v = verify(doc)
    assert v.ok, v.problem
    early = json.loads(json.dumps(doc))
    early["orders"][1] = {**early["orders"][1], "kind": "orders", "lines": ["DISCARD Milan"]}
    assert not verify(early).ok


# ------------------------------------------------------------------ --earlier compares the position shown then


@pytest.mark.parametrize("kind", ["dynasties", "sixteen-thirty"])
def test_the_position_an_earlier_export_showed_is_the_final_records_replayed(kind: str, tmp_path: Path) -> None:
    """Gap: `pbem verify FINAL --earlier PARTIAL` compared the earlier export's entries with the final chain, not its
    `final_view` (the position its reader was shown then): the moderator could hand Alice an export of the running
    game showing her a false position and nothing said so at the end.  Now, once the seed is out, it must be the
    reader's view of the final record replayed to the export's place (after their last listed entry, or after one
    of the hidden inputs before their next): honest exports of each reader taken after another player's hidden
    steps pass, and one value of the view changed is named; without the seed it is a note."""
    from datetime import timedelta

    from pbem.app.control import abandon
    from pbem.history.export import build
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from pbem.trust.verify import earlier
    from tests.test_hidden_count import T0, play

    cfg, _, observers = play(kind, tmp_path / "home", 2)
    with session(cfg.database_url) as s:
        game = store.game_by_name(s, "g1")
        partials = {
            w: json.loads(json.dumps(build(s, game, as_player=w, public=w is None))) for w in [None, *observers]
        }
        running = json.loads(json.dumps(build(s, game)))
    abandon(Home.of(cfg), "g1", T0 + timedelta(minutes=30))
    with session(cfg.database_url) as s:
        final = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))
    for who, doc in partials.items():
        good = earlier(final, doc)
        assert good.ok and any("final view is" in c for c in good.checked), (who, good.problem)
        assert any("final view" in n for n in earlier(running, doc).notes), "without the seed: a note"
        forged = json.loads(json.dumps(doc))
        forged["final_view"]["turn"] = str(forged["final_view"].get("turn")) + " (your move)"
        caught = earlier(final, forged)
        assert not caught.ok and "final view" in caught.problem, (who, caught.problem)
    for path in (JOIN_FIXTURE, Path(__file__).resolve().parent / "fixtures" / "undo_numbered.json"):
        stored = json.loads(path.read_text())
        assert earlier(stored["final"], stored["alice"]).ok
        stored["alice"]["final_view"]["data"]["treasury"]["Alice"] += 1
        assert "final view" in earlier(stored["final"], stored["alice"]).problem


def test_every_counted_noun_whose_plural_is_not_noun_s_names_its_plural() -> None:
    """Found: `--earlier` said "every one of the 5 entrys": `count(n, "entry")` adds "s".  Every `count` and `plural`
    call in pbem whose noun is a literal ending where English does not just add "s" (a consonant and "y", "s", "x",
    "ch", "sh") must give its plural."""
    import ast

    root = Path(__file__).resolve().parent.parent / "pbem"
    bad = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", "")) in ("count", "plural")
            ):
                continue
            if len(node.args) != 2 or node.keywords or not isinstance(node.args[1], ast.Constant):
                continue
            noun = str(node.args[1].value)
            if re.search(r"(?:[^aeiou]y|s|x|ch|sh)$", noun):
                bad.append(f"{path.relative_to(root.parent)}:{node.lineno} {noun!r}")
    assert not bad, bad


# ------------------------------------------------------------------ a MIME preamble or epilogue; the moderator's name


def _boundaries(raw: bytes) -> list[bytes]:
    return re.findall(rb'boundary="([^"]+)"', raw)


def _preamble(raw: bytes) -> bytes:
    """Text before the first part of the mail's outer multipart (some mail programs show it above the message)."""
    mark = b"\n--" + _boundaries(raw)[0] + b"\n"
    return raw.replace(mark, b"\nBob holds Plague.\n" + mark, 1)


def _nested_preamble(raw: bytes) -> bytes:
    """Text before the first part of the inner multipart (the HTML and its pictures)."""
    mark = b"\n--" + _boundaries(raw)[1] + b"\n"
    return raw.replace(mark, b"\nBob holds Plague.\n" + mark, 1)


def _epilogue(raw: bytes) -> bytes:
    return raw.rstrip(b"\n") + b"\nBob holds Plague.\n"


def _inner_epilogue(raw: bytes) -> bytes:
    close = b"\n--" + _boundaries(raw)[1] + b"--\n"
    return raw.replace(close, close + b"Bob holds Plague.\n", 1)


def _signed_otherwise(raw: bytes) -> bytes:
    return _edited(raw, lambda t: re.sub(r"(?m)^(-- \n).*$", r"\1Bob (who has already sent his orders)", t, count=1))


@pytest.mark.parametrize("kind", KINDS)
def test_text_outside_a_reports_parts_and_a_signature_not_the_senders_are_named(kind: str) -> None:
    """Gap: the text of a multipart mail outside its parts (its MIME preamble and epilogue, which some mail programs
    show) was read by nobody, nor the name under a report's signature ("-- "), masked whatever it said.  pbem
    writes no text outside the parts: any is named as a part pbem does not write; and the name under the signature
    must be the sender's (the From header's display name, pbem's `[moderator] name`).  Generator: a report of each
    kind forged five ways; the honest report passes."""
    doc, name, raws = _box(kind, 1)
    at = next(i for i, r in enumerate(raws) if b"Private report for" in r and b"image/png" in r)
    raw = raws[at]
    assert len(_boundaries(raw)) >= 2
    honest = verify_mail(doc, [raw], name)
    assert honest.ok, lines(honest)
    outside = "text outside the mail's parts"
    missed = []
    for what, forge, phrase in [
        ("a preamble", _preamble, outside),
        ("a preamble of the inner multipart", _nested_preamble, outside),
        ("an epilogue", _epilogue, outside),
        ("an epilogue of the inner multipart", _inner_epilogue, outside),
        ("another name under the signature", _signed_otherwise, "signed so by the sender"),
    ]:
        c = verify_mail(doc, [forge(raw)], name)
        if c.ok or not any(phrase in p for p in c.problems):
            missed.append((what, c.problems or lines(c)))
    assert not missed, missed


# ------------------------------------------------------------------ a newcomer's receipt numbers in a partial export


def test_a_newcomers_receipt_numbers_are_checked_against_their_export_of_the_running_game(tmp_path: Path) -> None:
    """Gap: against a partial export, a seat's newcomer's receipts were found by their heads only, not at the numbers
    they state (those written before counted the newcomer's own name alone), so an export that left an entry out
    before a receipt's head, renumbered and signed again by the game key, passed their mail.  Now either count must
    give the number the receipt states: Eve's honest mail passes, the export with an entry left out does not."""
    from datetime import timedelta

    from pbem.app.control import replace
    from pbem.app.cron import run_poll
    from pbem.history.export import build
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import in_delivered_order
    from tests.reliability import killpoints as kp
    from tests.test_hidden_count import T0, _mail, _resigned, play

    cfg, mover, _ = play("dynasties", tmp_path / "home", 2)
    kp.deliver_in_order(cfg, [_mail(mover, "press", "PRESS TO Carol: a word in private")])
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=4))
    replace(Home.of(cfg), "g1", mover, ("Eve", "eve@example.test"), T0 + timedelta(minutes=5))
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=6))
    sent = in_delivered_order((Path(cfg.maildir_path) / "sent").glob("*/*"))
    mails = [raw for p in sent if b"eve@example.test" in (raw := p.read_bytes())]
    with session(cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"), as_player="Eve")))
    honest = verify_mail(doc, mails, "Eve")
    assert honest.ok and honest.heads > 0, lines(honest)
    left_out = json.loads(json.dumps(doc))  # the first event dropped, the rest renumbered, signed again
    gone = left_out["events"].pop(0)["seq"]
    for row in left_out["orders"] + left_out["events"]:
        row["seq"] -= row["seq"] > gone
    left_out["chain"]["entries"] -= 1
    c = verify_mail(_resigned(cfg, left_out), mails, "Eve")
    assert not c.ok and any("entries were added or left out before it" in p for p in c.problems), lines(c)
    # Receipts written before counted Eve's own name's entries alone: the same heads at those numbers, signed by the
    # game key as that pbem signed them, still pass; a number neither count gives does not.
    from pbem.trust import receipts, signing

    with session(cfg.database_url) as s:
        private = signing.private_of(store.game_by_name(s, "g1"))
    assert private
    alone = receipts._alone([*doc["orders"], *doc["events"]], "Eve")

    def counted(raw: bytes, shift: int) -> bytes:
        m = re.search(rb"(?m)^X-Pbem-Record: (\d+)\s+([0-9a-f]{64})\n", raw)  # (folded: the head on its own line)
        if m is None:  # (a mail without a receipt)
            return raw
        head = m.group(2).decode()
        n = alone[head] + shift
        game = re.search(rb"(?m)^X-Pbem-Game: ([0-9a-f]+)", raw)
        got = re.search(rb"(?m)^X-Pbem-Input: (\d+)\s+([0-9a-f]{64})", raw)
        assert game is not None and private
        sig = signing.sign(private, signing.statement("g1", game.group(1).decode(), n, head,
                                                      (int(got.group(1)), got.group(2).decode()) if got else None))  # fmt: skip
        raw = raw.replace(m.group(0), f"X-Pbem-Record: {n} {head}\n".encode(), 1)
        return re.sub(rb"(?m)^X-Pbem-Signature: .*(\n[ \t].*)*", f"X-Pbem-Signature: {sig}".encode(), raw, count=1)

    assert any(
        alone[h] != n for n, h in [receipts.parse_mail(r).record for r in mails if receipts.parse_mail(r).record]
    )
    assert [counted(r, 0) for r in mails] != mails
    old = verify_mail(doc, [counted(r, 0) for r in mails], "Eve")
    assert old.ok and old.heads == honest.heads, lines(old)
    wrong = verify_mail(doc, [counted(r, 1) for r in mails], "Eve")
    assert not wrong.ok and any("entries were added or left out before it" in p for p in wrong.problems), lines(wrong)


# ------------------------------------------------------------------ what an acknowledgement says became of a message


def test_an_acknowledgement_saying_otherwise_than_the_export_what_became_of_a_message_is_named(tmp_path: Path) -> None:
    """Gap: an acknowledgement answers one of the player's messages (its In-Reply-To), and the export records what
    became of that message (accepted, held, refused and why), but nothing compared the two: the moderator could
    apply Alice's orders and tell her they were refused (so that she sends others), or quote other lines as refused
    than the ones the record refused.  Now "Accepted and applied" must answer a message accepted or held, "NOTHING
    WAS APPLIED" one refused, and its refused lines must be the ones the record's reason names.  Real mail of a
    game played by the poll (a refused message, then accepted orders); the honest mailbox passes."""
    from datetime import timedelta

    from pbem.app import games, views
    from pbem.app.control import abandon
    from pbem.app.cron import run_poll
    from pbem.history.export import build
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import CODES, in_delivered_order
    from tests.reliability import killpoints as kp
    from tests.test_hidden_count import PLAYERS, T0, _mail

    cfg = kp.make_home(tmp_path / "home")
    games.create_game(Home.of(cfg), "dynasties", "g1", PLAYERS, seed="acked-0123456789abcdef0123", codes=CODES,
                      clock=lambda: T0)  # fmt: skip
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=1))
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        legal = next(r for r in views.engine(loaded).requests(loaded.state) if r.player == "Alice").legal
    kp.deliver_in_order(cfg, [_mail("Alice", "a-bad", "TRIBUTE Nothing 99\nTRIBUTE Nothing 98")])
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=2))
    kp.deliver_in_order(cfg, [_mail("Alice", "a-good", legal[0])])
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=3))
    abandon(Home.of(cfg), "g1", T0 + timedelta(minutes=4))
    with session(cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))
    sent = in_delivered_order((Path(cfg.maildir_path) / "sent").glob("*/*"))
    mails = [raw for p in sent if b"alice@" in (raw := p.read_bytes())]
    honest = verify_mail(doc, mails, "Alice")
    assert honest.ok, lines(honest)
    refused = next(i for i, r in enumerate(mails) if "\nNOTHING WAS APPLIED: " in _text_of(r))
    applied = next(i for i, r in enumerate(mails) if "\nAccepted and applied:\n" in _text_of(r))
    assert b"a-bad@" in mails[refused] and b"a-good@" in mails[applied]

    def forged(at: int, edit: Callable[[str], str]) -> list[str]:
        c = verify_mail(doc, [*mails[:at], _edited(mails[at], edit), *mails[at + 1 :]], "Alice")
        assert not c.ok
        return c.problems

    said = forged(
        applied, lambda t: t.replace("Accepted and applied:", "NOTHING WAS APPLIED: one line was not accepted.", 1)
    )
    assert any(
        'says of your message <a-good@example.test> "NOTHING WAS APPLIED"' in p and "accepted" in p for p in said
    ), said
    said = forged(refused, lambda t: re.sub(r"(?m)^NOTHING WAS APPLIED: .*$", "Accepted and applied:", t, count=1))
    assert any('"Accepted and applied", but the export records it rejected' in p for p in said), said
    said = forged(refused, lambda t: t.replace('NO   "TRIBUTE Nothing 99"', 'NO   "TRIBUTE Gold 3"', 1))
    assert any("quotes as refused" in p and "TRIBUTE Gold 3" in p for p in said), said


_PIECES = st.sampled_from(
    ["Accepted and applied:", "  OK   ", "   (understood as: ", ")", "  ... and 3 more lines not shown.", "\n", "\n\n",
     "NOTHING WAS APPLIED: x", '  NO   "', '"', "<p>Accepted and applied:</p>", "<tbody>", "</tbody></table>\n",
     "<tr><td><code>", "</code></td><td>ok", "</td></tr>", "<p>\u2026 and 2 more lines not shown.</p>", "&amp;", "<",
     "The orders you sent, held until then, were applied:", "    ", 'were applied:</p>\n<ul class="legal">',
     "<li><code>", "</code></li>", "</ul>", "'a': why; ", "'b\\'c': ", "VOTE RED", "x" * 250]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30), st.lists(_PIECES, max_size=30), st.lists(st.text(max_size=30), max_size=5))
def test_no_text_makes_the_acknowledgements_reading_raise(text: list[str], page: list[str], applied: list[str]) -> None:
    """Fuzzer: whatever a mail's text and HTML hold (pieces of what the acknowledgement's reading looks for, in any
    order) and whatever lines an input applied, reading the quote and comparing it returns a phrase, never raises."""
    from pbem.trust import acked

    t, p = "".join(text), "".join(page)
    for reading in (None, [x.upper() for x in applied]):
        assert isinstance(acked.differs(t, p, applied, reading), str)
    assert acked.said_outcome(t) in (None, "applied", "refused")
    assert isinstance(acked.refused_quoted(t), list)
    assert acked.reason_lines(t) is None or isinstance(acked.reason_lines(t), list)


@pytest.mark.parametrize("kind", KINDS)
def test_words_and_markup_an_acknowledgement_never_holds_are_named(kind: str) -> None:
    """Gap: the HTML block "Your message" of a report was left out of the comparison whole, and the acknowledgement's
    own mail was not read at all but for its receipt (and now its quote): a heading, a section or a style in that
    HTML, a line "Bob has already sent his orders." in the acknowledgement's text, or another name under its
    signature, passed.  The player's own words are quoted indented (text) and escaped (HTML), so an
    acknowledgement may hold only the lines and markup its templates write: anything else is named.  Generator: an
    acknowledgement's own mail and a report answering orders, of each kind; the honest mails pass."""
    doc, name, raws = _box(kind, 1)
    report = next(
        r for r in raws if b"X-Pbem-Input" in r and "Private report for" in _text_of(r) and "Accepted" in _text_of(r)
    )
    # (where the mover is always mailed a report, the acknowledgement is in it: no mail of its own)
    ack = next((r for r in raws if b"X-Pbem-Input" in r and _text_of(r).startswith("Your message")), report)
    for raw in (ack, report):
        assert verify_mail(doc, [raw], name).ok
    forgeries = [
        (ack, lambda r: _edited(r, lambda t: t.replace("\nAccepted and applied:", "\nBob has already sent his orders.\nAccepted and applied:", 1)), "Bob has already"),
        (ack, lambda r: _edited(r, lambda t: re.sub(r"(?m)^(-- \n).*$", r"\1Bob", t, count=1)), 'is signed "Bob"'),
        (ack, lambda r: _html_edited(r, lambda p: p.replace("<p>Accepted and applied:</p>", "<h2>Bob has passed</h2><p>Accepted and applied:</p>", 1)), "<h2>"),
        (report, lambda r: _html_edited(r, lambda p: p.replace("<p>Accepted and applied:</p>", "<section><p>Bob holds Plague.</p></section><p>Accepted and applied:</p>", 1)), "<section>"),
        (report, lambda r: _html_edited(r, lambda p: p.replace("<p>Accepted and applied:</p>", '<p style="color:red">Accepted and applied:</p>', 1)), "style="),
    ]  # fmt: skip
    if ack is report:
        forgeries = forgeries[3:]
    assert kind not in ("dynasties", "sixteen-thirty") or ack is not report
    missed = []
    for raw, forge, phrase in forgeries:
        c = verify_mail(doc, [forge(raw)], name)
        if c.ok or not any(phrase in p and "not what pbem writes" in p for p in c.problems):
            missed.append((phrase, c.problems or lines(c)))
    assert not missed, missed


def test_the_senders_name_is_read_from_a_bounded_from() -> None:
    """The name under a report's signature is compared with its From's display name, read by the standard library's
    address parser, whose cost grows faster than its input on some shapes (a long list, encoded words): it reads
    at most `MAX_FROM` characters, so a hostile mail of the folder costs what a short one does."""
    import functools

    from pbem.trust.receipts import MAX_FROM, parse_mail
    from tests.growth import growth

    def raw(shape: str, k: int) -> bytes:
        return f"From: {shape * k}<x@y>\nTo: bob@x\nSubject: [pbem g] x\n\nbody\n".encode()

    for shape in ("a@b, ", "=?utf-8?q?a?= ", "<"):
        # the parser reads at most MAX_FROM characters: what is left grows as the mail's bytes (linear is 4;
        # the whole field parsed grows as its square)
        g = growth(lambda k: functools.partial(parse_mail, raw(shape, k)), 10_000, bound=9.0)  # noqa: B023
        assert g.ratio <= 9.0, f"{shape!r}: {g}"
    assert parse_mail(b'From: "pbem moderator" <m@x>\nTo: a@x\n\n').sender_name == "pbem moderator"
    assert MAX_FROM >= 998
