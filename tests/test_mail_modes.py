"""A mail only when it matters (issue 23), in a real game on SQLite and Maildirs: the default mails the
player asked next and answers the mover in one mail; the moderator's WATCH default mails everyone; a
player's own word wins over the default; the record is the same whatever was mailed."""

from __future__ import annotations

import pytest

from pbem.app.decision import GameError
from pbem.app.mailing import set_default
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from tests.conftest import CODES, deliver, order_mail, sent_mail
from tests.test_moderator import PLAYERS, address_of, asked, new_game, run_poll


def _move(cfg, clock, name, seen):
    reqs, _ = asked(cfg, name)
    player = reqs[0].player
    deliver(cfg, order_mail(address_of(player), name, f"CODE {CODES[player]}\n{reqs[0].legal[0]}"))
    run_poll(cfg, clock)
    got: dict[str, int] = {}
    for m in sent_mail(cfg, seen):
        to = m["To"].addresses[0].addr_spec
        got[to] = got.get(to, 0) + 1
    return player, got


def _started(cfg, clock):
    name = new_game(cfg, clock)
    run_poll(cfg, clock)
    seen: set = set()
    sent_mail(cfg, seen)
    return name, seen


def test_by_default_a_move_mails_the_mover_once_and_the_player_asked_next(home, clock) -> None:
    name, seen = _started(home, clock)
    mover, got = _move(home, clock, name, seen)
    assert got.get(address_of(mover)) == 1, "the answer and what comes next in one mail"
    reqs, _ = asked(home, name)
    idle = [a for p, a in PLAYERS if p != mover and p not in {r.player for r in reqs}]
    assert all(a not in got for a in idle), "a player neither asked nor concerned gets nothing"


def test_the_moderators_watch_default_mails_everyone_and_a_players_word_wins(home, clock) -> None:
    name, seen = _started(home, clock)
    set_default(Home.of(home), name, "watch", clock())
    reqs, _ = asked(home, name)
    quiet = next(p for p, _ in PLAYERS if p != reqs[0].player)
    deliver(home, order_mail(address_of(quiet), name, f"CODE {CODES[quiet]}\nNORMAL"))
    run_poll(home, clock)
    sent_mail(home, seen)
    mover, got = _move(home, clock, name, seen)
    after, _ = asked(home, name)
    others = [p for p, _ in PLAYERS if p not in (mover, quiet)]
    assert all(got.get(address_of(p)) == 1 for p in others), got
    if quiet not in {r.player for r in after}:
        assert address_of(quiet) not in got, "NORMAL chosen by the player wins over the game's WATCH"


def test_an_unknown_mode_or_game_is_refused(home, clock) -> None:
    name, _ = _started(home, clock)
    with pytest.raises(GameError):
        set_default(Home.of(home), name, "loud", clock())
    with pytest.raises(GameError):
        set_default(Home.of(home), "nope", "watch", clock())


def test_the_record_is_the_same_whatever_was_mailed(home, clock, tmp_path) -> None:
    from pbem.cli.support import init_home
    from pbem.history.export import build
    from pbem.home import config as config_mod

    other = config_mod.load(init_home(tmp_path / "other", address="moderator@pbem.test", name="Test Moderator"))
    docs = []
    for cfg, mode in ((home, "normal"), (other, "watch")):
        name, seen = _started(cfg, clock)
        set_default(Home.of(cfg), name, mode, clock())
        for _ in range(4):
            _move(cfg, clock, name, seen)
        with session(cfg.database_url) as s:
            doc = build(s, store.game_by_name(s, name))
        orders = [(o["seq"], o["kind"], o["player"], o["lines"]) for o in doc["orders"]]
        events = [(e["seq"], e["kind"], e["text"], e["visibility"], e["data"]) for e in doc["events"]]
        docs.append((orders, events, doc["final_view"], doc["chain"]["entries"]))
    assert len(docs[0][0]) >= 4 and docs[0] == docs[1]


def test_a_mode_said_again_says_it_changed_nothing(home, clock) -> None:
    """players26: a repeated `pbem game mail NAME watch` said the mode as if new and wrote a row each time, and a
    player's WATCH sent twice was promised WATCH "from now on" again.  Now the moderator's second one records nothing
    and says so (`set_default` returns whether it was the default already), and the player's second WATCH is told
    "you already get ...; nothing changed" (`pbem.app.notify.ALREADY`, which `pbem verify --mail` knows), one mail
    each as before.  On 8080c21 both failed (2 of 2)."""
    from pbem.app.notify import ALREADY, PROMISES, WATCH
    from pbem.record.modes import mailing
    from tests.conftest import body_of

    name, seen = _started(home, clock)
    assert set_default(Home.of(home), name, "watch", clock()) == ("watch", False)
    assert set_default(Home.of(home), name, "Watch", clock()) == ("watch", True)
    assert set_default(Home.of(home), name, "normal", clock()) == ("normal", False)
    player = PLAYERS[0][0]
    texts, subjects = [], []
    for _ in range(2):
        deliver(home, order_mail(address_of(player), name, f"CODE {CODES[player]}\nWATCH"))
        run_poll(home, clock)
        [mail] = [m for m in sent_mail(home, seen) if m["To"].addresses[0].addr_spec == address_of(player)]
        texts.append(" ".join(body_of(mail).split()))
        subjects.append(mail["Subject"])
    assert PROMISES[WATCH] in texts[0] and ALREADY[WATCH] not in texts[0]
    # walk7: the second was subjected "your mail: WATCH noted" above "nothing changed"
    assert subjects == [
        f"Re: [pbem {name}] your mail: WATCH noted",
        f"Re: [pbem {name}] your mail: already WATCH, nothing changed",
    ]
    assert ALREADY[WATCH] in texts[1] and PROMISES[WATCH] not in texts[1]
    with session(home.database_url) as s:
        assert mailing(s, store.game_by_name(s, name).id).modes() == {"": "normal", player: "watch"}
