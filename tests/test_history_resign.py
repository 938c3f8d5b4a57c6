"""HISTORY and RESIGN by mail, the two player commands the classic Diplomacy judge has that pbem lacked (judges4).

HISTORY (`pbem.app.histories`): a player's mail asks for the game's history so far, or one turn of it; the answer
goes to the registered address only (no code needed, as HELP) and holds the public events and the seat's own, never
another player's hidden facts: a generator over a finished seeded game of every kind asks for it as every player,
whole and turn by turn, and checks each answer against the moderator's record (every line an event that player may
see; no text of an event hidden from them; no hidden card of another player at the end that nothing shown to them
named).  RESIGN (`pbem.app.resigning`): a first mail only asks; a second, with the six digits the answer gave,
resigns: the moderator is asked to replace the seat, every player is told; a wrong or old word, or a second
resignation, changes nothing.  Played on the embedded defaults (real SQLite, real Maildirs, the real poll), in every
game.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from sqlmodel import select

from pbem import engine as registry
from pbem.app import histories, resigning, waiting
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from pbem.record.models import ControlAction
from pbem.render.templates import render_mail
from tests.conftest import CODES, body_of, deliver, order_mail, sent_mail, signed
from tests.reliability.test_costs8_history import append, reference, said, seen_by
from tests.secrets_by_kind import HIDDEN
from tests.test_mail_templates import RECORD, M
from tests.test_moderator import new_game, run_poll

KINDS = registry.available()
PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
MOD = "moderator@pbem.test"


def _players(kind: str) -> list[tuple[str, str]]:
    return PLAYERS[: max(registry.get(kind).min_players, min(3, registry.get(kind).max_players))]


def _to(mails: list, addr: str) -> list:
    return [m for m in mails if m["To"].addresses[0].addr_spec == addr]


@pytest.mark.parametrize("kind", KINDS)
def test_history_never_shows_another_players_hidden_facts(kind: str) -> None:
    from pbem.home import config as config_mod
    from tests.test_history_golden import seeded_home

    cfg = config_mod.load(seeded_home(kind) / "pbem.toml")
    with session(cfg.database_url) as s:
        game = next(g for g in (store.game_by_name(s, n) for n in store.game_names(s)) if g is not None)
        loaded = store.load(s, game)
        rows = store.events_for(s, game.id)
        hidden_from: dict[str, list[str]] = {}
        checked = 0
        for seat in loaded.seats:
            p = seat.player
            mine = [r for r in rows if store.event_of(r).visible_to(p)]
            theirs = {r.text for r in rows if not store.event_of(r).visible_to(p)} - {r.text for r in mine}
            hidden_from[p] = sorted(theirs)
            known = "\n".join(r.text + json.dumps(json.loads(r.data_json)) for r in mine)
            everything = seen_by(s, game, p)
            whole = reference(everything, kind, "", p, True, 10**6)
            assert sum(len(lines) for _, lines in whole["groups"]) == len(mine), f"{kind}: {p}"
            numbers = [int(title.split()[-1]) for title, _ in whole["groups"] if title[-1].isdigit()]
            for asked in ["", *map(str, numbers), str((numbers or [0])[-1] + 5), "0"]:
                ctx = histories.load(s, loaded, seat, asked)  # read for the answer alone: the whole record's answer
                assert said(ctx) == reference(everything, kind, asked, p, True, histories.MAX_EVENTS), (
                    f"{kind}: {p} {asked}"
                )
                lines = [line for g in ctx["groups"] for line in g["lines"]]
                assert len(lines) <= histories.MAX_EVENTS and all(len(x) <= histories.MAX_CHARS + 40 for x in lines)
                texts = {re.sub(r" \[to [^\]]*\]$", "", line) for line in lines}
                assert texts <= {r.text for r in mine}, f"{kind}: {p}'s history holds a line of no event of theirs"
                text = render_mail("history", {"game_name": game.name, **ctx, **M, **RECORD}).text
                leaked = [t for t in theirs if len(t) > 20 and t in text]
                assert not leaked, f"{kind}: {p}'s history holds events hidden from them: {leaked[:3]}"
                for q in loaded.state["players"]:
                    for item in HIDDEN.get(kind, lambda st, pl: [])(loaded.state, q) if q != p else []:
                        named = re.search(rf"(?<![\w-]){re.escape(item)}(?![\w-])", text)
                        assert not (named and item not in known), f"{kind}: {p}'s history names {q}'s hidden {item}"
                checked += 1
        assert checked > len(loaded.seats) and any(hidden_from.values()), f"{kind}: nothing hidden to check"


@pytest.mark.parametrize("kind", KINDS)
def test_history_by_mail_answers_the_registered_address_in_every_game(home, clock, kind: str) -> None:
    players = _players(kind)
    name = new_game(home, clock, kind=kind, players=players)
    run_poll(home, clock)
    seen: set[str] = set()
    sent_mail(home, seen)
    alice = f"Alice <{players[0][1]}>"
    deliver(home, order_mail(alice, name, "Hello,\nHISTORY\nthanks"))  # a new mail without a code: like HELP
    deliver(home, order_mail(alice, name, "", subject=f"[pbem {name}] history 1"))
    deliver(home, order_mail(alice, name, "History of turn 40."))
    deliver(home, order_mail("Mallory <mallory@evil.test>", name, "HISTORY"))
    run_poll(home, clock)
    mails = sent_mail(home, seen)
    assert len(mails) == 3 and not _to(mails, "mallory@evil.test"), [str(m["Subject"]) for m in mails]
    whole, one, missing = (body_of(m) for m in mails)
    assert all(m["To"].addresses[0].addr_spec == players[0][1] for m in mails)
    assert "History so far" in str(mails[0]["Subject"]) and "--- Set-up ---" in whole, whole
    step = registry.get(kind).history.step
    assert f"History: {step} 1" in str(mails[1]["Subject"]) and "Nothing is needed from you" in one, one
    assert f"There is no {step} 40 in it yet" in missing, missing
    assert CODES["Bob"] not in whole + one and "Record #" in whole


@pytest.mark.parametrize("kind", KINDS)
def test_resign_needs_the_word_of_a_second_mail_then_the_moderator_and_every_player_are_told(
    home, clock, kind: str
) -> None:
    players = _players(kind)
    name = new_game(home, clock, kind=kind, players=players)
    run_poll(home, clock)
    seen: set[str] = set()
    sent_mail(home, seen)
    alice = f"Alice <{players[0][1]}>"
    deliver(home, order_mail(alice, name, "RESIGN"))  # no code, no reply: it acts, so it is refused
    run_poll(home, clock)
    (refused,) = sent_mail(home, seen)
    assert "it carried no player code" in body_of(refused) or "code" in body_of(refused).lower()
    deliver(home, order_mail(alice, name, signed("Alice", "Resign.\nPRESS TO ALL: bye")))
    run_poll(home, clock)
    (ask,) = sent_mail(home, seen)
    word = re.search(r"RESIGN (\d{6})", body_of(ask)).group(1)
    assert "nothing is changed yet" in body_of(ask) and "The rest of your mail was not read" in body_of(ask)
    assert not _resigned(home), "one RESIGN line resigns nobody"
    deliver(home, order_mail(alice, name, "RESIGN 111111", In_Reply_To=ask["Message-ID"]))  # a wrong word
    run_poll(home, clock)
    (again,) = sent_mail(home, seen)
    assert "is not the one that confirms it now" in body_of(again) and not _resigned(home)
    clock.advance(hours=20)
    deliver(home, order_mail(alice, name, f"> RESIGN {word}\nRESIGN {word}", In_Reply_To=ask["Message-ID"]))
    run_poll(home, clock)
    mails = sent_mail(home, seen)
    (mod,) = _to(mails, MOD)
    assert f'pbem game replace {name} Alice "New Name <address>"' in body_of(mod)
    for player, addr in players:
        (told,) = [m for m in _to(mails, addr) if "resigned" in str(m["Subject"])]
        assert ("You resigned" if player == "Alice" else "Alice resigned") in body_of(told), body_of(told)
    assert _resigned(home) == ["Alice"]
    listed = waiting.listed(waiting.waiting(Home.of(home), clock.now), clock.now)  # the moderator's late list
    assert all(("RESIGNED" in line) == line.startswith("  Alice:") for line in listed if line.startswith("  ")), listed
    assert kind != "habsburg" or any("RESIGNED" in line for line in listed), listed  # Alice moves first there
    deliver(home, order_mail(alice, name, f"RESIGN {word}", In_Reply_To=ask["Message-ID"]))
    run_poll(home, clock)
    (once,) = sent_mail(home, seen)
    assert "You resigned from game" in body_of(once) and _resigned(home) == ["Alice"]
    if kind == "habsburg":  # the moderator replies to that mail with the line it offers: the seat is given
        reply = order_mail(f"Moderator <{MOD}>", name, "REPLACE Alice WITH Dora <dora@players.test>",
                           subject=f"Re: {mod['Subject']}", In_Reply_To=mod["Message-ID"])  # fmt: skip
        deliver(home, reply)
        run_poll(home, clock)
        with session(home.database_url) as s:
            seats = store.load(s, store.game_by_name(s, name)).seats
        assert seats[0].player == "Dora", [st.player for st in seats]


def test_the_word_is_the_seats_and_good_for_the_day_it_was_given_and_the_next(clock) -> None:
    key = b"k" * 32
    today = resigning.words(key, 1, 7, clock.now)
    assert today[0] in resigning.words(key, 1, 7, clock.now + timedelta(days=1))
    assert today[0] not in resigning.words(key, 1, 7, clock.now + timedelta(days=2))
    assert today[0] not in resigning.words(key, 1, 8, clock.now) and today[0] not in resigning.words(
        key, 2, 7, clock.now
    )
    assert all(re.fullmatch(r"\d{6}", w) for w in today)


def _resigned(cfg) -> list[str]:
    with session(cfg.database_url) as s:
        return list(s.exec(select(ControlAction.detail).where(ControlAction.action == "resign")).all())


def test_a_players_mail_with_history_and_resign_still_verifies(home, clock, tmp_path) -> None:
    """The new mails carry the game's receipts like any other: `pbem verify --mail` of the resigning player's folder,
    HISTORY answers and RESIGN notices in it, passes against the game's export."""
    import mailbox

    from typer.testing import CliRunner

    from pbem.app import control
    from pbem.cli import app

    name = new_game(home, clock)
    run_poll(home, clock)
    deliver(home, order_mail("Alice <alice@players.test>", name, "HISTORY"))
    deliver(home, order_mail("Alice <alice@players.test>", name, signed("Alice", "RESIGN")))
    run_poll(home, clock)
    (ask,) = [m for m in sent_mail(home) if "To resign" in str(m["Subject"])]
    word = re.search(r"RESIGN (\d{6})", body_of(ask)).group(1)
    deliver(home, order_mail("Alice <alice@players.test>", name, f"RESIGN {word}", In_Reply_To=ask["Message-ID"]))
    run_poll(home, clock)
    control.abandon(Home.of(home), name, clock.now)
    run_poll(home, clock)
    folder = mailbox.Maildir(str(tmp_path / "alice"), factory=None, create=True)
    sent = mailbox.Maildir(str(home.maildir_path / "sent"), factory=None, create=False)
    kinds = set()
    for key in sent.iterkeys():
        raw = sent.get_bytes(key)
        if re.search(rb"^To: .*alice@players\.test", raw, re.M):
            folder.add(raw)
            kinds.add(re.search(rb"^Subject: (.*)$", raw, re.M).group(1).decode())
    assert any("History" in k for k in kinds) and any("resigned" in k for k in kinds), kinds
    export = tmp_path / "hh1.json"
    res = CliRunner().invoke(app, ["-c", str(home.path), "export", name, "-o", str(export)])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["verify", str(export), "--mail", str(tmp_path / "alice"), "--as", "Alice"])
    assert res.exit_code == 0 and res.output.rstrip().endswith("verification passed"), res.output


def test_a_long_history_is_cut_to_its_latest_events_and_says_so(home, clock) -> None:
    """One mail holds at most `MAX_EVENTS` events, the latest, each line at most `MAX_CHARS` characters; a turn is
    asked for alone; a turn that is not there is said so, with the turns there are."""
    name = new_game(home, clock)
    events = []
    for seq in range(1, 451):
        scores = seq % 50 == 0
        text = "scores" if scores else f"event {seq} " + "x" * (1_000 if seq == 449 else 5)
        data = {"scores": {"Alice": seq}, "turn": seq // 50} if scores else {}
        events.append(("scores" if scores else "note", text, "public" if seq % 7 else ["Alice"], data))
    append(home.database_url, events)
    with session(home.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, name))
        alice = loaded.seats[0]
        ctx = histories.load(s, loaded, alice, "")
        lines = [line for g in ctx["groups"] for line in g["lines"]]
        assert len(lines) == histories.MAX_EVENTS and ctx["left_out"]
        assert lines[-1] == "scores" and lines[-2].startswith("event 449 xxx") and lines[0].startswith("event 251")
        assert max(len(x) for x in lines) <= histories.MAX_CHARS + len(" [to you]")
        one = histories.load(s, loaded, alice, "3")
        assert [g["title"] for g in one["groups"]] == ["Turn 3"] and not one["missing"] and not one["left_out"]
        assert histories.load(s, loaded, alice, "30")["missing"]
    text = render_mail("history", {"game_name": "hh1", **ctx, **M, **RECORD}).text
    assert "Its earlier events are left out (a mail holds the latest 200)" in text, text
