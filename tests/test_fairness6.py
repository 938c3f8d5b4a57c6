"""Sixth round of the fairness checks (docs/security.md, "Red team of the fairness checks, sixth round").

What a player's mail or export still held on the moderator's word alone: the position a partial export shows
(`final_view`, unsigned), and the reasons an acknowledgement gives for refusing a player's lines (a valid order
could be refused with a made-up reason and never applied).  Each test failed on the code before this round; the
honest mail and exports pass.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pbem.trust.verify import check, earlier

pytestmark = pytest.mark.xdist_group("fairness6")  # a unit per module, not one for all

FIXTURES = Path(__file__).resolve().parent / "fixtures"


# ------------------------------------------------------------------ a partial export's final view is signed


def _running(root: Path) -> dict[str, Any]:
    """Alice's and the public export of a running Dynasties game, and the final export once abandoned (this pbem)."""
    from tests.fixtures.make_partial_view_unsigned import make

    return json.loads(json.dumps(make(root)))


def _forgeries(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The export with its final view changed: a line of the position, and a value of the reader's secrets."""
    turn = json.loads(json.dumps(doc))
    turn["final_view"]["turn"] = str(turn["final_view"].get("turn")) + " (your move)"
    out = [("the turn", turn)]
    if "treasury" in doc["final_view"].get("data", {}):
        rich = json.loads(json.dumps(doc))
        who = next(iter(rich["final_view"]["data"]["treasury"]))
        rich["final_view"]["data"]["treasury"][who] += 1
        out.append(("a treasury", rich))
    return out


def test_a_partial_exports_final_view_is_signed_and_a_forged_one_is_named(tmp_path: Path) -> None:
    """Gap: a partial export's signature covered its listing, not its `final_view`, the position it shows its reader
    (their hand, their treasury, whose move it is): the moderator could hand a player a signed export of the running
    game showing a false position, and `pbem verify --partial` passed it; only `--earlier` at the end compared it,
    as the holder's word.  Now the signature covers the view's digest too: a changed view is named at once, and the
    pair of documents at the end is proof.  Generator: Alice's and the public export, each forged two ways."""
    docs = _running(tmp_path / "home")
    for who in ("alice", "public"):
        honest = check(docs[who], partial=True)
        assert honest.ok and any("final view" in c for c in honest.checked), (who, honest.problem)
        assert earlier(docs["final"], docs[who]).ok
        for what, forged in _forgeries(docs[who]):
            caught = check(forged, partial=True)
            assert not caught.ok and "final view" in caught.problem and "changed" in caught.problem, (who, what)
            later = earlier(docs["final"], forged)
            assert not later.ok and "final view" in later.problem, (who, what, later.problem)


def test_a_partial_export_made_before_the_view_was_signed_verifies_byte_for_byte() -> None:
    """Old exports keep verifying: `tests/fixtures/partial_view_unsigned.json` was written by main before this round
    (its signatures do not cover the view).  Each verifies alone with a word that its view is not signed, and against
    the final export; a view changed in it is still caught at the end (`--earlier`), as the holder's evidence."""
    stored = json.loads((FIXTURES / "partial_view_unsigned.json").read_text())
    for who in ("alice", "public"):
        assert "view" not in stored[who]["signature"]
        alone = check(stored[who], partial=True)
        assert alone.ok and any("final view is not signed" in c for c in alone.checked), (who, alone.problem)
        assert earlier(stored["final"], stored[who]).ok
        for _, forged in _forgeries(stored[who]):
            assert check(forged, partial=True).ok  # (nothing binds it before the end)
            caught = earlier(stored["final"], forged)
            assert not caught.ok and "not signed in an export made before" in caught.problem, caught.problem


# ------------------------------------------------------------------ the reasons given for refused lines


def _refused_game(kind: str, root: Path) -> tuple[dict[str, Any], str, list[bytes], list[str], list[bytes]]:
    """A game of `kind` played by the real poll: a player asked something sends, in one poll, a mistyped order
    ("typo"), a legal order with a mistyped one for the same question (both refused, told together), a legal order
    asked as a question, two on one line, two for one question, one with a condition after it (each refused, or
    applied where the game takes it), then the legal order alone; the game is abandoned (the seed out).  (the final
    export, the player, their mail in the order delivered, the legal order, the mails they sent: their Sent
    folder)."""
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

    cfg = kp.make_home(root)
    players = PLAYERS[:2] if kind == "italian-wars" else PLAYERS
    games.create_game(Home.of(cfg), kind, "g1", players, seed=f"refused-{kind}-0123456789abcdef", codes=CODES,
                      clock=lambda: T0)  # fmt: skip
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=1))
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        asked = next(r for r in views.engine(loaded).requests(loaded.state) if not r.answered and r.legal)
    legal = list(asked.legal)
    word = legal[0].split()[0]
    tried = {  # honest refusals of many shapes, read in one poll: each must verify as pbem's reading
        "typo": f"Hello all,\nPRESS Bob nice move\n{word} Nothing 99",
        "twice": f"{legal[0]}\n{word} Nothing 99",
        "asked": f"{legal[0]}?",
        "joined": f"{legal[0]} {legal[-1]}",
        "both": f"{legal[0]}\n{legal[-1]}",
        "remark": f"{legal[0]}, but only if Bob agrees",
    }
    sent = [_mail(asked.player, label, body) for label, body in tried.items()]
    kp.deliver_in_order(cfg, sent)
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=2))
    sent.append(_mail(asked.player, "good", legal[0]))
    kp.deliver_in_order(cfg, sent[-1:])
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=4))
    abandon(Home.of(cfg), "g1", T0 + timedelta(minutes=5))
    with session(cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))
    address = dict(PLAYERS)[asked.player].encode()
    out = in_delivered_order((Path(cfg.maildir_path) / "sent").glob("*/*"))
    return doc, asked.player, [raw for p in out if address in (raw := p.read_bytes())], legal, sent


def per_kind(factory: pytest.TempPathFactory, prefix: str, build: Callable[[str, Path], Any]) -> Any:
    """A getter of the game `build(kind, home)` makes, played once per module for each kind asked: its export (the
    first item) copied for each call, as tests change it, the rest as built."""
    games: dict[str, Any] = {}

    def get(kind: str) -> Any:
        if kind not in games:
            games[kind] = build(kind, factory.mktemp(f"{prefix}-{kind}") / "home")
        doc, *rest = games[kind]
        return (json.loads(json.dumps(doc)), *rest)

    return get


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """`_refused_game` of a kind, played once per module (its export copied for each test: tests change it)."""
    return per_kind(tmp_path_factory, "refused", _refused_game)


def _edit_reason(doc: dict[str, Any], message: str, edit: Any) -> dict[str, Any]:
    """The export with the recorded reason of a message edited (the moderator writes the record)."""
    out = json.loads(json.dumps(doc))
    for rec in out["messages"]:
        if rec["message_id"].strip("<>").startswith(message):
            rec["reason"] = edit(rec["reason"])
    return out


@pytest.mark.parametrize("kind", ["habsburg", "italian-wars", "dynasties", "sixteen-thirty"])
def test_a_refusal_whose_reasons_are_not_pbems_reading_of_the_lines_is_named(kind: str, played: Any) -> None:
    """Gap: the reasons an acknowledgement gives for refusing a message ("NOTHING WAS APPLIED", each line "NO" with
    why and what would be accepted) were the moderator's word: he could refuse a valid order with a made-up reason
    and never apply it, record the refusal with that reason, and every check passed.  Now, once the seed is out,
    pbem's own reading of the lines the acknowledgement quotes is run again at the state the message met
    (`pbem.trust.refused`, with `pbem.app.rereading.refused` as `pbem verify --mail` passes it), in the text and the
    HTML part, with what it says of the game then (the player's orders on file, who is awaited).  Generator: a
    refused message in each kind's game played by the poll, forged five ways (a reason changed, what would be
    accepted changed, the HTML's reason changed, a valid order refused with a made-up reason, the record's reason
    made to agree, and who is awaited changed); the honest mailbox, with refusals of six shapes, passes."""
    import re

    from pbem.app.rereading import refused
    from pbem.trust.receipts import lines, verify_mail
    from tests.test_fairness3 import _edited, _html_edited, _text_of

    doc, name, mails, legal, _ = played(kind)
    honest = verify_mail(doc, mails, name, refused)
    assert honest.ok, lines(honest)
    refusals = sum("\nNOTHING WAS APPLIED: " in _text_of(r) for r in mails)
    assert refusals >= 3 and any(f"reasons {refusals} acknowledgements gave" in x for x in honest.checked), lines(
        honest
    )
    at = next(i for i, r in enumerate(mails) if b"typo@" in r and "\nNOTHING WAS APPLIED: " in _text_of(r))
    text = _text_of(mails[at])
    why = re.search(r"(?m)^       why: (.*)$", text)
    assert why is not None, text
    made_up = "you are not asked anything now; waiting for Bob"
    word = legal[0].split()[0]
    valid = re.sub(r'(?ms)^  NO   ".*?\n\n', f'  NO   "{legal[0]}"\n       why: {made_up}\n\n', text, count=1)
    forgeries: list[tuple[str, Any, dict[str, Any], str]] = [
        ("a reason changed", lambda t: t.replace(why[1], made_up, 1), doc, "says"),
        ("what would be accepted changed", lambda t: re.sub(r"(?m)^(         )\S.*$", r"\1PASS", t, count=1), doc, "says"),
        # the player sent a valid order; the moderator refused it with a made-up reason, the record agreeing
        ("a valid order refused", lambda _: valid, _edit_reason(doc, "typo@", lambda _: f"{legal[0]!r}: {made_up}"),
         "accepts them"),
    ]  # fmt: skip
    assert f'NO   "{word} Nothing 99"' in text and f'NO   "{legal[0]}"' in valid
    assert verify_mail(doc, [mails[at]], name, refused).ok
    forgeries.append(
        ("who is awaited changed", lambda t: re.sub(r"(?m)^Still awaited from: .*$", "Still awaited from: Zed.", t), doc,
         "Still awaited from: Zed"),
    )  # fmt: skip
    missed = []
    for what, edit, export, phrase in forgeries:
        c = verify_mail(export, [_edited(mails[at], edit)], name, refused)  # (alone: its head, its refusal; quick)
        said = [p for p in c.problems if phrase in p and "replayed" in p and "not pbem's" in p]
        if c.ok or not said:
            missed.append((what, c.problems or lines(c)))
    page = _html_edited(mails[at], lambda p: p.replace(why[1].replace('"', "&#34;"), made_up, 1))
    c = verify_mail(doc, [page], name, refused)
    if c.ok or not any("in its HTML part" in p and "pbem's reading" in p for p in c.problems):
        missed.append(("the HTML's reason", c.problems or lines(c)))
    assert not missed, missed


# ------------------------------------------------------------------ an acknowledgement's fixed words, whole


@pytest.mark.parametrize("kind", ["habsburg", "italian-wars", "dynasties", "sixteen-thirty"])
def test_an_acknowledgements_fixed_lines_title_and_heading_are_read_whole(kind: str) -> None:
    """Gap: an acknowledgement's unindented lines were read by their first words only ("Accepted and applied:",
    "Correct the line", 'Your message "'), so the rest of such a line was free ("Accepted and applied: Bob has
    voted."), as were the game's name in its first line, its record line, and the title and heading of its HTML part
    (`<h1>` was allowed, its words never read).  Now each line is one pbem writes, whole, naming this game and the
    mail's own receipt, and the title and heading are the template's.  Generator: an acknowledgement's own mail and a
    report answering orders, of each kind, forged seven ways; the honest mails pass."""
    import re

    from pbem.trust.receipts import lines, verify_mail
    from tests.test_fairness3 import _edited, _html_edited, _text_of
    from tests.test_fairness4 import _box

    doc, name, raws = _box(kind, 1)
    game = doc["game"]["name"]
    report = next(
        r for r in raws if b"X-Pbem-Input" in r and "Private report for" in _text_of(r) and "Accepted" in _text_of(r)
    )
    ack = next((r for r in raws if b"X-Pbem-Input" in r and _text_of(r).startswith("Your message")), None)
    for raw in (ack, report):
        assert raw is None or verify_mail(doc, [raw], name).ok
    forgeries = [
        (report, lambda t: t.replace("\nAccepted and applied:\n", "\nAccepted and applied: Bob has voted red.\n", 1)),
    ]
    if ack is not None:
        forgeries += [
            (ack, lambda t: t.replace("\nAccepted and applied:\n", "\nAccepted and applied: Bob has voted red.\n", 1)),
            (ack, lambda t: re.sub(r"(?m)( was read\.)$", r"\1 Bob has voted red.", t, count=1)),
            (ack, lambda t: t.replace(f'for game "{game}" was read', 'for game "another" was read', 1)),
            (ack, lambda t: re.sub(r"(?m)^Record #(\d+),", lambda m: f"Record #{int(m[1]) + 1},", t, count=1)),
        ]
    missed = []
    for raw, edit in forgeries:
        c = verify_mail(doc, [_edited(raw, edit)], name)
        if c.ok:
            missed.append((_text_of(_edited(raw, edit))[:300], lines(c)))
    if ack is not None:
        for edit in (
            lambda p: p.replace(
                f"<title>Orders for {game}</title>", f"<title>Orders for {game}: Bob voted red</title>"
            ),
            lambda p: p.replace("<h1>Your orders for game", "<h1>Bob voted red. Your orders for game", 1),
        ):
            c = verify_mail(doc, [_html_edited(ack, edit)], name)
            if c.ok or not any("in its HTML part has the" in p and "Bob voted red" in p for p in c.problems):
                missed.append(("html", lines(c)))
    assert not missed, missed


# ------------------------------------------------------------------ what an answer quotes of the player's own mail


@pytest.mark.parametrize("kind", ["dynasties", "sixteen-thirty"])
def test_an_answer_quoting_a_subject_or_a_remark_the_player_never_wrote_is_named_by_their_sent_folder(
    kind: str, played: Any
) -> None:
    """Gap: an acknowledgement quotes the subject of the message it answers ('Your message "..."') and lists the lines
    it set aside as "not read as orders", and its notes quote lines of it ('NOTE "line": why'); all were the
    moderator's word, read by nobody.  With the player's Sent
    folder (`pbem verify --sent`) and their received mail (`--mail`) both given, each answer that names one of the
    sent mails (In-Reply-To) and carries a receipt the game key signed must quote that mail's subject and list only
    words it holds.  Real mail of a game played by the poll (a greeting set aside, refused and accepted orders); the
    honest folders pass, an answer forged any of three ways (a subject, a remark, a note quoting a line) is named
    QUOTED OTHERWISE; and the HTML part's list of lines set aside must be the text's (`--mail` alone)."""
    import re

    from pbem.cli.history import _answers
    from pbem.trust.receipts import parse_folder
    from pbem.trust.sent import check_sent
    from tests.test_fairness3 import _edited, _text_of

    doc, name, mails, _, sent = played(kind)
    answers = _answers(doc, [parse_folder(mails)])
    assert any(b"Not read as orders" in raw for _, raw in answers) or any(
        "Not read as orders" in _text_of(raw) for _, raw in answers
    )
    honest = check_sent(doc, sent, name, None, answers)
    assert honest.ok, honest.problems
    assert any('  NOTE "PRESS Bob nice move": ' in _text_of(raw) for _, raw in answers)
    at = next(i for i, r in enumerate(mails) if "\n    Hello all," in _text_of(r))
    forged = [
        lambda t: t.replace('Your message "[pbem g1] orders"', 'Your message "[pbem g1] orders, and I resign"', 1),
        lambda t: t.replace("\n    Hello all,", "\n    Hello all,\n    I give my vote to Bob", 1),
        lambda t: t.replace(
            "\nNot read as orders", '\n  NOTE "I resign": your seat is given up\nNot read as orders', 1
        ),
    ]
    for edit in forged:
        box = [*mails[:at], _edited(mails[at], edit), *mails[at + 1 :]]
        c = check_sent(doc, sent, name, None, _answers(doc, [parse_folder(box)]))
        assert not c.ok and any(p.startswith("QUOTED OTHERWISE") for p in c.problems), c.problems
    assert re.search("I give my vote to Bob", _text_of(_edited(mails[at], forged[1])))
    # the HTML part, which --sent does not read, must list what the text part lists
    from pbem.trust.receipts import lines, verify_mail
    from tests.test_fairness3 import _html_edited

    assert verify_mail(doc, [mails[at]], name).ok
    page = _html_edited(
        mails[at], lambda p: p.replace("<pre>Hello all,\n", "<pre>Hello all,\nI give my vote to Bob\n", 1)
    )
    c = verify_mail(doc, [page], name)
    assert not c.ok and any("in its HTML part lists" in p and "I give my vote" in p for p in c.problems), lines(c)


# ------------------------------------------------------------------ the readings never raise, and a masked code


_PIECES = [
    "NOTHING WAS APPLIED: x", "\n", "\n\n", "  ok   ", '  NO   "', '"', "       why: ", "  ... and 3 more lines not shown.",
    "Orders now on file for you (revisable until the step resolves):", "    (on file) ", "Still awaited from: Bob.",
    "<p><strong>Nothing was applied</strong>", "</tbody></table>", "<p>Still awaited from: a</p>", "<pre>", "</pre>",
    'Your message "', '" for game "g1" was read.', "Not read as orders (set aside:", "    ", '  NOTE "', '": why',
    "[code]", "x" * 250, "\u2026",
]  # fmt: skip


def test_no_text_makes_the_refusals_or_the_quotes_reading_raise() -> None:
    """Fuzzer: whatever an acknowledgement's text and HTML hold (pieces of what the readings look for, in any order),
    reading its refusal, what it says of the game and what it quotes of the player's mail returns a value, never
    raises; and a line quoted with a code masked ("[code]", as pbem quotes one) is held by the mail it came from."""
    import random

    from pbem.trust import refused
    from pbem.trust.sent import _holds, _said

    rng = random.Random(6)
    for _ in range(400):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randrange(30)))
        rows = refused.block(text)
        assert rows is None or isinstance(refused.quoted(rows), (list, type(None)))
        assert isinstance(refused.status(text), list) and isinstance(refused.html_status(text), list)
        assert isinstance(refused.html_block(text), str)
        said = _said(text)
        assert said is None or isinstance(said[0], str)
        wrote = "".join(rng.choice("ab K7QX-2MPD.") for _ in range(rng.randrange(1, 40)))
        start = rng.randrange(len(wrote))
        line = wrote[start : start + rng.randrange(1, 20)]
        masked = line.replace("K7QX-2MPD", "[code]")
        assert _holds(wrote, masked), (wrote, masked)
        assert _holds(wrote, wrote.replace("K7QX-2MPD", "[code]"), whole=True), wrote


# ------------------------------------------------------------------ an acknowledgement's notes


def test_the_notes_pbem_writes_in_fixed_words_are_the_use_cases_own() -> None:
    """`pbem.trust.acked.FIXED_NOTES` mirrors notes the use cases write (the trust layer does not import them)."""
    from pbem.app.misuse import IGNORED_CODE, IGNORED_CODE_ASKING
    from pbem.app.notify import ALREADY, PROMISES
    from pbem.trust.acked import FIXED_NOTES

    assert {IGNORED_CODE, IGNORED_CODE_ASKING, *PROMISES.values(), *ALREADY.values()} <= set(FIXED_NOTES)


@pytest.mark.parametrize("kind", ["dynasties", "sixteen-thirty"])
def test_a_note_pbem_does_not_write_is_named(kind: str, played: Any) -> None:
    """Gap: an acknowledgement's notes ("  NOTE ...", in its own mail and in a report's "Your message" block) were
    free text, the moderator's word: "NOTE Bob has already voted red." passed.  Each note must now be one pbem
    writes: a fixed one or one of the reading's forms (a line of the player's quoted, then pbem's words, which
    `--sent` holds to the player's mail).  Real mail of a game played by the poll (a press line written wrongly is
    noted); the honest mailbox passes, a note added or one whose words after the quoted line were changed is named,
    in the text and as a paragraph of the HTML part (where the notes were free paragraphs too)."""
    from pbem.trust.receipts import lines, verify_mail
    from pbem.trust.told import html as _html_of
    from tests.test_fairness3 import _edited, _html_edited, _text_of

    doc, name, mails, _, _ = played(kind)
    assert verify_mail(doc, mails, name).ok
    noted = next(i for i, r in enumerate(mails) if '  NOTE "PRESS Bob nice move": ' in _text_of(r))
    answered = next(i for i, r in enumerate(mails) if "\nAccepted and applied:\n" in _text_of(r))
    lie = "\n  NOTE Bob has already voted red.\n"
    forgeries = [
        (noted, lambda t: t.replace("; nothing was sent", "; it was sent to everyone", 1)),
        (noted, lambda t: t.replace('\n  NOTE "PRESS', lie + '  NOTE "PRESS', 1)),
        (answered, lambda t: t.replace("\nAccepted and applied:\n", "\nAccepted and applied:\n" + lie[1:], 1)),
    ]
    for at, edit in forgeries:
        c = verify_mail(doc, [_edited(mails[at], edit)], name)
        assert not c.ok and any("no note pbem writes" in p for p in c.problems), lines(c)
    # most mail programs show the HTML part, where a note is a paragraph: the same forms
    for at in (noted, answered):
        for edit in (
            lambda p: p.replace(
                "<p>Accepted and applied:</p>", "<p>Bob has already voted red.</p><p>Accepted and applied:</p>", 1
            ),
            lambda p: p.replace("; nothing was sent</p>", "; it was sent to everyone</p>", 1),
            lambda p: p.replace(
                "<p>Still awaited from: ", "<p>Bob has already voted red.</p><p>Still awaited from: ", 1
            ),
        ):
            page = _html_edited(mails[at], edit) if edit(_html_of(mails[at])) != _html_of(mails[at]) else None
            if page is not None:
                c = verify_mail(doc, [page], name)
                assert not c.ok and any("a paragraph pbem does not write" in p for p in c.problems), lines(c)


def test_honest_refusals_in_a_game_resolved_at_the_deadline_are_pbems_reading(tmp_path: Path) -> None:
    """Where orders are held until the deadline, a message refused while others are on file, and one after the
    deadline resolved the step, are still pbem's reading at the replayed state (nothing held is in the state until
    the deadline's input): the honest mailbox passes, with every refusal worked out again."""
    from datetime import timedelta

    from pbem.app import games, views
    from pbem.app.control import abandon
    from pbem.app.cron import run_poll
    from pbem.app.games import Table
    from pbem.app.rereading import refused
    from pbem.history.export import build
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from pbem.trust.receipts import lines, verify_mail
    from tests.conftest import CODES, in_delivered_order
    from tests.reliability import killpoints as kp
    from tests.test_hidden_count import PLAYERS, T0, _mail

    cfg = kp.make_home(tmp_path / "home")
    games.create_game(Home.of(cfg), "dynasties", "g1", PLAYERS, seed="held-refusals-0123456789abcdef", codes=CODES,
                      clock=lambda: T0, table=Table(resolve="deadline"))  # fmt: skip
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=1))
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        asked = next(r for r in views.engine(loaded).requests(loaded.state) if r.player == "Alice")
    legal = list(asked.legal)
    kp.deliver_in_order(cfg, [_mail("Alice", "held", legal[0]), _mail("Alice", "typo", "TRIBUTE Nothing 99"),
                              _mail("Alice", "both", f"{legal[0]}\n{legal[-1]}")])  # fmt: skip
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=2))
    run_poll(cfg, clock=lambda: T0 + timedelta(days=2, minutes=1))  # the deadline: the held tribute applied
    kp.deliver_in_order(cfg, [_mail("Alice", "after", "TRIBUTE Nothing 98")])
    run_poll(cfg, clock=lambda: T0 + timedelta(days=2, minutes=2))
    abandon(Home.of(cfg), "g1", T0 + timedelta(days=2, minutes=3))
    with session(cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))
    sent = in_delivered_order((Path(cfg.maildir_path) / "sent").glob("*/*"))
    mails = [raw for p in sent if b"alice@" in (raw := p.read_bytes())]
    c = verify_mail(doc, mails, "Alice", refused)
    n = sum(b"NOT applied" in r for r in mails)  # (the subject of a refusal: "your orders: NOT applied")
    assert n >= 2 and c.ok and any(f"reasons {n} acknowledgements gave for refusing" in x for x in c.checked), lines(c)


@pytest.mark.parametrize("kind", ["dynasties", "sixteen-thirty"])
def test_an_acknowledgement_of_applied_orders_says_who_is_awaited_as_the_replay_does(kind: str) -> None:
    """Gap: an acknowledgement of applied orders (its own mail) ends with the player's orders on file and "Still
    awaited from: ...", written from the state the orders made, and nobody compared them: it could tell Alice that
    Bob had answered, or show her an order on file she never sent.  Once the seed is out they must be the state's
    right after the input its receipt names.  The seeded game's acknowledgements of each kind pass; one with who is
    awaited changed, in the text or the HTML, and one with an order on file added, are named."""
    import re

    from pbem.app.rereading import refused
    from pbem.trust.receipts import lines, verify_mail
    from tests.test_fairness3 import _edited, _html_edited, _text_of
    from tests.test_fairness4 import _box

    doc, name, raws = _box(kind, 0)
    acks = [r for r in raws if b"X-Pbem-Input" in r and _text_of(r).startswith("Your message")]
    honest = verify_mail(doc, acks, name, refused)
    assert acks and honest.ok, lines(honest)
    raw = next(r for r in acks if "\nStill awaited from: " in _text_of(r))
    forged = [
        _edited(raw, lambda t: re.sub(r"(?m)^Still awaited from: .*$", "Still awaited from: Zed.", t, count=1)),
        _html_edited(raw, lambda p: re.sub(r"<p>Still awaited from: [^<]*</p>", "<p>Still awaited from: Zed.</p>", p)),
        _edited(raw, lambda t: t.replace("\nStill awaited from: ", "\nOrders now on file for you (revisable until the "
                                         "step resolves):\n    (on file) PASS\n\nStill awaited from: ", 1)),
    ]  # fmt: skip
    for mail in forged:
        c = verify_mail(doc, [mail], name, refused)
        assert not c.ok and any("right after that input" in p for p in c.problems), lines(c)
