"""Second red team of the fairness checks (docs/security.md, "Red team of the fairness checks, second round").

The moderator attacks his own games on real homes (`pbem demo`, a game with a join step, the real poll), then the
players run their checks (`pbem verify`, `--mail` with their receipts, `--sent` with their Sent folder).  Each test
builds one attack: the gaps it found fail on the code before the fix; the attacks caught are kept as regressions.
"""

from __future__ import annotations

import copy
import json
import mailbox
import re
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from pbem.history.export import verify
from pbem.trust.receipts import read_folder
from pbem.trust.sent import check_sent
from tests.conftest import Clock
from tests.test_fairness import _box, _cli_verify, _sent_box

pytestmark = pytest.mark.xdist_group("fairness2")  # a unit per module, not one for all
SEED = "9c1e4b7a2f0d83e5b6a147c92d0f5e3a"  # random-looking: pbem takes it, and so the moderator can choose it


# ------------------------------------------------------------------ 1. seed grinding


@pytest.fixture(scope="module")
def nojoin() -> SimpleNamespace:
    """A game dealt at once (the demo's way, `pbem game new --no-join`): the seeded Italian Wars game of two the
    history tests play (`seeded_home`, played once per test run; only read here), where a game of its own was
    played before."""
    from tests.test_history_golden import seeded_home

    home = seeded_home("italian-wars")
    return SimpleNamespace(home=home, export=home / "italian-wars-demo.json")


@pytest.fixture(scope="module")
def restarted(tmp_path_factory) -> dict:
    """The moderator deals a game with a join step (seed, key and name fixed), sees the deal the players' JOINs
    give, wipes it and makes the same game again (same name, seed, key and players: the same invitation), and
    asks them to JOIN again: `game` is the one he publishes.  `first` is played to the end too, so that it also
    serves as a second history signed by the same key (shown to Alice while Bob is shown `game`)."""
    from pbem.cli.demo import run
    from pbem.trust import signing

    root = tmp_path_factory.mktemp("restart")
    key = signing.new_key()
    mp = pytest.MonkeyPatch()
    mp.setattr(signing, "new_key", lambda: key)
    try:
        first = run("italian-wars", 2, SEED, root / "first", clock=Clock(),
                    join_salts={"Alice": "my first words", "Bob": "bob"})  # fmt: skip
        game = run("italian-wars", 2, SEED, root / "game", clock=Clock(),
                   join_salts={"Alice": "my second words", "Bob": "bob"})  # fmt: skip
    finally:
        mp.undo()
    alice = _box(first.home / "mail" / "sent", b"alice@players.example", root / "alice")
    bob = _box(game.home / "mail" / "sent", b"bob@players.example", root / "bob")
    return {"first": first, "game": game, "root": root, "alice": alice, "bob": bob}


def _up_to(entries: int):
    """Keep a mail only while its receipt is at most `entries` (the first game's mails up to the JOINs)."""

    def keep(raw: bytes) -> bytes:
        m = re.search(rb"^X-Pbem-Record: (\d+)\s", raw, re.M)
        return raw if m and int(m.group(1)) <= entries else b""

    return keep


def test_a_game_dealt_without_a_join_step_says_the_moderator_alone_chose_its_deal(nojoin, restarted) -> None:
    """Gap: a game made with --no-join (and every demo) is dealt from the seed alone, and the moderator picks the seed
    (`--seed` takes any 32 random-looking hex digits): he can try seeds offline until he likes the deal, and
    `pbem verify` passed it without a word.  Now it warns; a game with a join step does not get the warning."""
    from pbem.trust.verify import NO_JOIN

    v = verify(json.loads(nojoin.export.read_text()))
    assert v.ok and NO_JOIN in v.notes, v.notes
    assert "could have tried seeds" in NO_JOIN
    joined = verify(json.loads(restarted["game"].export.read_text()))
    assert joined.ok and NO_JOIN not in joined.notes, joined.notes


def test_a_game_made_again_after_the_moderator_saw_the_joins_is_caught_by_each_players_mail(restarted) -> None:
    """Regression: the same name, seed, key and players give the very same invitation, so the second game looks
    like the first; but the first JOIN's signed acknowledgement is on another chain (`--mail`), and the first JOIN
    is not in the published record (`--sent`: DROPPED, with what to do)."""
    first, game, root = restarted["first"], restarted["game"], restarted["root"]
    box = _box(first.home / "mail" / "sent", b"alice@players.example", root / "alice-again", _up_to(3))
    _box(game.home / "mail" / "sent", b"alice@players.example", box)
    res = _cli_verify(game.export, "--mail", str(box))
    assert res.exit_code == 1 and "the history differs from the one played at" in res.output, res.output
    sent = _sent_box(game.home, b"alice@players.example", root / "alice-sent")
    joins = [
        r for r in read_folder(_sent_box(first.home, b"alice@players.example", root / "first-sent")) if b"\nJOIN" in r
    ]
    assert len(joins) == 1  # her JOIN to the first game, the one whose salt he saw
    mailbox.Maildir(str(sent), factory=None, create=False).add(joins[0])
    res = _cli_verify(game.export, "--sent", str(sent))
    assert res.exit_code == 1, res.output
    line = next(x for x in res.output.splitlines() if "DROPPED" in x)
    assert "neither applied nor refused" in line and "ask why" in line, line


# ------------------------------------------------------------------ 2. equivocation: a line players can compare


def _last_record_line(box: Path) -> str:
    lines = [x for p in (box / "new").iterdir() for x in p.read_text(errors="replace").splitlines()]
    found = [m for x in lines if (m := re.fullmatch(r"Record #(\d+), ([0-9a-f]{16})\.\.\.", x.strip()))]
    n, head = max(((int(m.group(1)), m.group(2)) for m in found), key=lambda t: t[0])
    return f"Record #{n}, {head}..."


def test_players_shown_different_histories_each_get_a_line_to_compare(restarted) -> None:
    """Gap: the moderator gives Alice and Bob each an export matching their own mail (two histories from one seed,
    both signed by the game key).  Each one's `verify --mail` passes alone, and it printed nothing short that they
    could compare without sharing their mail (which holds their secrets).  Now it prints the newest receipt as the
    "Record #N, HEAD..." line their last report ends with, and `pbem verify` says which line the export gives."""
    a, b = restarted["first"], restarted["game"]
    alice = _cli_verify(a.export, "--mail", str(restarted["alice"]))
    bob = _cli_verify(b.export, "--mail", str(restarted["bob"]))
    assert alice.exit_code == 0 and bob.exit_code == 0, (alice.output, bob.output)
    said = {}
    for who, res in (("alice", alice), ("bob", bob)):
        line = next(x for x in res.output.splitlines() if "your newest receipt is" in x)
        assert "every player's last report ends with this same line" in line, line
        said[who] = re.search(r'"(Record #\d+, [0-9a-f]{16}\.\.\.)"', line).group(1)  # type: ignore[union-attr]
        assert said[who] == _last_record_line(restarted[who])
    assert said["alice"] != said["bob"]  # compared, the two lines show the split
    plain = _cli_verify(a.export)
    assert f'ends with "{said["alice"]}"' in plain.output, plain.output


# ------------------------------------------------------------------ 3. dropped and reordered mail


def _dated(raws: list[bytes], dates: dict[bytes, datetime], extra: dict[bytes, bytes] | None = None) -> list[bytes]:
    """Each raw mail given the Date (and extra header lines) of its Message-ID, as the player's client wrote it."""
    out = []
    for raw in raws:
        mid = next((m for m in dates if m in raw), None)
        if mid is None:
            out.append(raw)
            continue
        eol = b"\r\n" if b"\r\n" in raw[:200] else b"\n"
        head = b"Date: " + format_datetime(dates[mid]).encode() + eol + (extra or {}).get(mid, b"")
        out.append(head + raw)
    return out


@pytest.fixture(scope="module")
def alice_sent(nojoin, tmp_path_factory) -> dict:
    a = nojoin
    doc = json.loads(a.export.read_text())
    raws = read_folder(_sent_box(a.home, b"alice@players.example", tmp_path_factory.mktemp("sent") / "alice"))
    received = {m["message_id"].strip("<>").encode(): datetime.fromisoformat(m["received"]) for m in doc["messages"]}
    mine = {mid: at for mid, at in received.items() if any(mid in r for r in raws)}
    theirs = [o for o in doc["orders"] if o["player"] == "Alice" and o["kind"] == "orders"]
    return {"doc": doc, "raws": raws, "received": mine, "theirs": theirs}


def _swapped(doc: dict, one: dict, two: dict) -> dict:
    """The export as the moderator applied two of a player's mails in the other order (each input names the other
    mail and holds its lines; the rest of the record played on from there)."""
    forged = copy.deepcopy(doc)
    x, y = (next(o for o in forged["orders"] if o["seq"] == s["seq"]) for s in (one, two))
    for f in ("message_id", "lines"):
        x[f], y[f] = y[f], x[f]
    return forged


@pytest.mark.parametrize("gap, verdict", [(timedelta(hours=2), "REORDERED"), (timedelta(minutes=20), "note")])
def test_two_mails_applied_in_the_other_order_are_named(alice_sent, gap: timedelta, verdict: str) -> None:
    """Gap: Alice sends orders, then a correction; the moderator applies the correction first, so her first
    orders stand.  Each mail was "applied as written" and `--sent` passed.  Now the order she sent them in (the
    Dates of one client: one clock, whatever its error) is compared with the order applied: two hours apart is
    REORDERED, twenty minutes (mail can overtake mail) a note; the honest record gives neither."""
    doc, theirs = alice_sent["doc"], alice_sent["theirs"]
    one, two = theirs[2], theirs[3]
    t0 = datetime(2026, 1, 5, 12, tzinfo=UTC)
    dates = {mid: t0 + i * gap for i, mid in enumerate(sorted(alice_sent["received"], key=alice_sent["received"].get))}
    raws = _dated(alice_sent["raws"], dates)
    honest = check_sent(doc, raws)
    assert honest.ok and not any("other order" in n for n in honest.notes), (honest.problems, honest.notes)
    c = check_sent(_swapped(doc, one, two), raws)
    said = [p for p in c.problems if p.startswith("REORDERED")] if verdict == "REORDERED" else c.notes
    line = next((x for x in said if "applied it after it" in x), None)
    assert line is not None, (c.problems, c.notes)
    assert f"input {two['seq']} after input {one['seq']}" in line and "your earlier orders replaced" in line, line
    assert c.ok == (verdict == "note")


# ------------------------------------------------------------------ 4. HELD BACK: whose clock


def _held(alice_sent, behind: timedelta, extra: bytes = b"") -> list[str]:
    """Alice's client clock is `behind`; her third order arrived five minutes after a deadline input (honest:
    she sent it late) unless `extra` (a header of her provider's, on her Sent copy) says when it really left."""
    doc, theirs = alice_sent["doc"], alice_sent["theirs"]
    target = theirs[2]
    mid = target["message_id"].strip("<>").encode()
    arrived = alice_sent["received"][mid]
    dates = {m: at - behind for m, at in alice_sent["received"].items()}
    raws = _dated(alice_sent["raws"], dates, {mid: extra})
    forged = copy.deepcopy(doc)
    forged["orders"].append(
        {"seq": 10_000, "kind": "deadline", "player": "", "lines": [], "message_id": "",
         "at": (arrived - timedelta(minutes=5)).isoformat()}
    )  # fmt: skip
    return [p for p in check_sent(forged, raws).problems if p.startswith("HELD BACK")]


def test_a_client_clock_hours_behind_is_not_taken_for_a_held_back_mail(alice_sent) -> None:
    """Gap: HELD BACK trusted the player's own Date.  A client clock three hours slow made a mail sent just after
    the deadline look sent hours before it: the honest moderator was accused.  Her other mails, which the record
    shows arriving three hours after their Dates too, now tell how far behind her clock may be."""
    assert _held(alice_sent, timedelta(hours=3)) == []
    assert _held(alice_sent, timedelta(0)) == []  # a right clock: sent just after the deadline, fine too


def test_the_providers_stamp_on_the_sent_copy_outweighs_the_client_clock(alice_sent) -> None:
    """Better evidence, which the moderator cannot forge: the player's provider's DKIM `t=` (or Received stamp) on
    the copy in their Sent folder.  It says the mail left three hours before it was recorded: HELD BACK, naming the
    provider's stamp; the client's Date alone is named as such."""
    doc = alice_sent["doc"]
    mid = alice_sent["theirs"][2]["message_id"].strip("<>").encode()
    left = alice_sent["received"][mid] - timedelta(hours=3)
    dkim = (
        f"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/simple; d=players.example; s=s1;\n t={int(left.timestamp())};"
        " h=from:subject:date:message-id; bh=AAAA; b=AAAA\n"
    ).encode()
    (line,) = _held(alice_sent, timedelta(hours=3), dkim)
    assert "by your provider's DKIM signature (t=)" in line and "2.9 hours before the deadline" in line, line
    assert "the moderator cannot change your copy" in line
    received = f"Received: from [192.0.2.7] by smtp.players.example; {format_datetime(left)}\n".encode()
    (line,) = _held(alice_sent, timedelta(0), received)
    assert "by your provider's Received stamp" in line, line
    assert doc == alice_sent["doc"]


def test_a_held_back_mail_dated_by_a_right_clock_is_still_named_and_says_whose_clock(alice_sent) -> None:
    """Regression: a mail held back three hours, dated by a right client clock, is HELD BACK, and the verdict says
    it rests on the player's mail program's clock and where better evidence is."""
    doc, theirs = alice_sent["doc"], alice_sent["theirs"]
    target = theirs[2]
    mid = target["message_id"].strip("<>").encode()
    raws = _dated(alice_sent["raws"], dict(alice_sent["received"]))
    forged = copy.deepcopy(doc)
    arrived = alice_sent["received"][mid]
    forged["orders"].append(
        {"seq": 10_000, "kind": "deadline", "player": "", "lines": [], "message_id": "",
         "at": (arrived + timedelta(hours=2)).isoformat()}
    )  # fmt: skip
    rec = next(m for m in forged["messages"] if m["message_id"] == target["message_id"])
    rec["received"] = (arrived + timedelta(hours=3)).isoformat()
    (line,) = [p for p in check_sent(forged, raws).problems if p.startswith("HELD BACK")]
    assert "by your mail program's clock" in line and "your provider's copy" in line, line


# ------------------------------------------------------------------ 5. the moderator's actions, counted by verify


def test_a_reroll_and_an_extension_are_counted_by_verify_and_a_reroll_is_warned_about(home, clock) -> None:
    """Gap: an undo with new draws (`--reroll`) is public and replayed, but verify said nothing of it: a moderator
    who rerolls until he likes a draw shows only in mails a player may have missed.  Verify now counts every
    action besides the players' orders, and warns of each reroll with its reason."""
    from pbem.app import control, games
    from pbem.app.undo import undo
    from pbem.home.app import Home
    from tests.conftest import CODES
    from tests.test_undo import PLAYERS, exported, play, run

    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="undo-test", clock=clock, codes=CODES)
    run(home, clock)
    play(home, clock, 3)
    undo(Home.of(home), "hh1", 1, "the card fell on the floor", True, clock.now)
    control.extend(Home.of(home), "hh1", timedelta(days=1), clock.now)
    v = verify(exported(home), partial=True)
    assert v.ok, v.problem
    line = next(x for x in v.checked if x.startswith("actions on the game besides the players' orders"))
    assert "extend 1" in line and "undo 1" in line, line
    warning = next(n for n in v.notes if n.startswith("WARNING: the moderator undid the game with new draws"))
    assert "the card fell on the floor" in warning and "back to a marked point" in warning, warning


def test_a_signed_mail_held_back_past_a_deadline_is_shown_by_verify_alone(home, clock, monkeypatch) -> None:
    """Gap: HELD BACK needed the player's own Sent folder and rested on their client's Date.  The export already
    holds better evidence for everyone: the provider's DKIM signature, whose t= the moderator cannot move.  He sits
    on Alice's signed mail (moves it out of the inbox), lets the deadline apply her default a day later, then reads
    it: `pbem verify` alone now warns, naming the provider's signing time and the deadline input."""
    from types import SimpleNamespace

    import dkim as dkimpy

    from pbem.app import games
    from pbem.history.export import build
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from pbem.trust import dkim
    from tests.conftest import CODES, deliver, order_mail, signed
    from tests.test_dkim_game import PEM, _dns
    from tests.test_undo import run

    players = [("Alice", "alice@players.example"), ("Bob", "bob@players.example"), ("Carol", "carol@players.example")]
    monkeypatch.setattr(dkim, "resolver", _dns)
    monkeypatch.setattr(dkim, "_cache", {})
    monkeypatch.setattr(dkimpy, "time", SimpleNamespace(time=lambda: clock.now.timestamp()))  # the provider's clock
    games.create_game(Home.of(home), "habsburg", "hh2", players, seed=SEED, clock=clock, codes=CODES,
                      table=games.Table(deadline=timedelta(days=1)))  # fmt: skip
    run(home, clock)
    with session(home.database_url) as s:
        lo = store.load(s, store.game_by_name(s, "hh2"))
        req = next(r for r in lo.engine.requests(lo.state) if not r.answered)
    raw = order_mail(f"{req.player} <{dict(players)[req.player]}>", "hh2", signed(req.player, req.legal[0]))
    heads = [b"from", b"to", b"subject", b"message-id"]
    held = dkimpy.sign(raw, b"s1", b"players.example", PEM, include_headers=heads) + raw  # signed as it left
    clock.advance(days=1, hours=1)
    run(home, clock)  # the deadline, while the mail is held
    deliver(home, held)
    clock.advance(minutes=5)
    run(home, clock)
    with session(home.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "hh2"))))
    deadline = next(o for o in doc["orders"] if o["kind"] == "deadline")
    v = verify(doc, partial=True)
    assert v.ok, v.problem
    warning = next(n for n in v.notes if "was signed by their provider at" in n)
    assert warning.startswith(f"WARNING: {req.player}'s mail") and f"input {deadline['seq']}" in warning, warning
    assert "25.0 hours before the deadline" in warning or "24.0 hours before the deadline" in warning, warning
    assert "or the moderator held it back" in warning


def test_a_report_that_tells_another_story_under_a_true_head_is_named(restarted, tmp_path: Path) -> None:
    """Gap: the signature covers a report's receipt, not its text.  The moderator keeps every head of Bob's mail
    right and tells him, in one report, that Alice played another card than the record says (and Alice the truth):
    `verify --mail` passed.  Each line a report lists as happened must now be an event Bob may see, recorded by
    then; his honest mail passes."""
    from pbem.trust.told import bullets

    game, bob = restarted["game"], restarted["bob"]
    assert _cli_verify(game.export, "--mail", str(bob)).exit_code == 0
    box = mailbox.Maildir(str(tmp_path / "bob"), factory=None, create=True)
    lied = ""
    for raw in read_folder(bob):
        told = bullets(raw)
        true = [t for t in told if "Alice" in t and b"  * " + t.encode() + b"\n" in raw]
        if not lied and true:  # the text part as sent (its headers, receipt and signature untouched)
            lied = true[0]
            raw = raw.replace(b"  * " + lied.encode() + b"\n", b"  * " + lied.encode() + b" and a Famous Captain\n")
        box.add(raw)
    assert lied
    res = _cli_verify(game.export, "--mail", str(tmp_path / "bob"))
    assert res.exit_code == 1, res.output
    line = next(x for x in res.output.splitlines() if "told you" in x)
    assert f'told you "{lied[:40]}' in line and "is not the history published" in line, line


def test_a_join_held_back_past_the_moderators_start_is_held_back(restarted, tmp_path: Path) -> None:
    """Gap: HELD BACK looked at deadline inputs only.  A moderator who reads the last JOIN, dislikes the deal it
    gives, and runs `pbem game start` before recording it (then refuses it as late) chooses between two deals; the
    player's Sent copy, sent hours before the start, now shows it."""
    game = restarted["game"]
    doc = json.loads(game.export.read_text())
    (join,) = [o for o in doc["orders"] if o["player"] == "Alice" and o["kind"] == "join"]
    mid = join["message_id"].strip("<>").encode()
    rec = next(m for m in doc["messages"] if m["message_id"] == join["message_id"])
    sent_at = datetime.fromisoformat(rec["received"])
    raws = _dated(read_folder(_sent_box(game.home, b"alice@players.example", tmp_path / "sent")), {mid: sent_at})
    assert check_sent(doc, raws).ok
    forged = copy.deepcopy(doc)
    forged["orders"].append(
        {"seq": 10_000, "kind": "start", "player": "", "lines": [], "message_id": "",
         "at": (sent_at + timedelta(hours=2)).isoformat()}
    )  # fmt: skip
    next(m for m in forged["messages"] if m["message_id"] == join["message_id"])["received"] = (
        sent_at + timedelta(hours=3)
    ).isoformat()
    (line,) = [p for p in check_sent(forged, raws).problems if p.startswith("HELD BACK")]
    assert "the moderator's start (input 10000), which dealt the game" in line, line
    assert "the game was dealt without the JOINs not yet in while it waited" in line, line


def test_no_client_clock_makes_an_honest_record_held_back_and_no_clock_hides_a_held_mail(alice_sent) -> None:
    """The class of the clock gap: for client clocks from six hours behind to six hours ahead and several of Alice's
    mails, an honest record (each mail arrived minutes after it left, one of them just after a deadline) is never
    HELD BACK; the same mail held three hours with her provider's stamp on her copy always is."""
    doc, theirs = alice_sent["doc"], alice_sent["theirs"]
    for target in theirs[1:6:2]:
        mid = target["message_id"].strip("<>").encode()
        arrived = alice_sent["received"][mid]
        forged = dict(doc, orders=[*doc["orders"], {"seq": 10_000, "kind": "deadline", "player": "", "lines": [],
                      "message_id": "", "at": (arrived - timedelta(minutes=1)).isoformat()}])  # fmt: skip
        for offset in (-6, -1, 0, 6):
            clock = timedelta(hours=offset)
            dates = {m: at - timedelta(minutes=2) + clock for m, at in alice_sent["received"].items()}
            honest = [p for p in check_sent(forged, _dated(alice_sent["raws"], dates)).problems if "HELD" in p]
            assert honest == [], (offset, honest)
            left = int((arrived - timedelta(hours=3)).timestamp())
            stamp = {mid: f"DKIM-Signature: v=1; d=players.example; s=s1; t={left}; b=AA\n".encode()}
            held = check_sent(forged, _dated(alice_sent["raws"], dates, stamp)).problems
            assert any(p.startswith("HELD BACK") and "DKIM signature (t=)" in p for p in held), (offset, held)
