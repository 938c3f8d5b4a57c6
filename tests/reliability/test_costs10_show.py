"""`pbem game show NAME --as PLAYER` reads what it prints, not the whole game (costs10).

It prints a player's report from the start with its last 20 events, and read (`recent.read`) and decoded every
event of the game to build it: a game of 500 and 2,000 events cost 10 and 29 ms (costs8, not changed then).  Now
`pbem.record.recent.shown` reads the events from the 20th newest the player may see, and the game's deal.

The generator: a House of Habsburg game with n (and 4n) decisions of 100 public events, one only Alice sees and
one only Bob sees; the event rows Alice's `show_game` loads: 519 and 2,049 on ba1be06 (5.5 and 20.5 ms, the old read
and report context), 21 at both sizes on 4adb736 (Bob's among them; 1.3 ms), 20 since costs11 (Bob's not read).  The context it prints equals the whole
report's sliced as before, for every player of each seeded finished game (hidden hands, the end).
"""

from __future__ import annotations

import pytest

from pbem.app import games
from pbem.app.decision import Decision, Events
from pbem.app.reporting import Reader, report_context
from pbem.app.settle import settle
from pbem.engine.base import PUBLIC, Event
from pbem.home import config as config_mod
from pbem.home.app import Home
from pbem.record import recent, store
from tests.test_former_players import replaced  # noqa: F401  (the fixture)
from tests.test_history_golden import KINDS, seeded_home
from tests.test_moderator import new_game
from tests.test_names_every_command import made  # noqa: F401  (the fixture `replaced` uses)

N = 5  # decisions at n; 4n at 4n
EVENTS = 100  # public events in each
SHOWN = 20  # the events `pbem game show --as` prints


def _game(cfg, clock, name: str, n: int) -> None:
    new_game(cfg, clock, name=name)
    home = Home.of(cfg)
    for i in range(n):
        clock.advance(minutes=1)
        with home.units() as s:
            loaded = store.load(s, store.game_by_name(s, name))
            news = [Event("note", f"Note {i}.{k}.", PUBLIC) for k in range(EVENTS)]
            news.insert(EVENTS - 5, Event("note", f"Only Alice reads {i}.", ("Alice",)))
            news.insert(EVENTS - 5, Event("note", f"Only Bob reads {i}.", ("Bob",)))
            settle(s, home.policy, Decision(game=name, effects=[Events(tuple(news))]), clock.now, loaded)
            s.commit()


def test_show_as_a_player_reads_the_events_it_prints_whatever_the_games_length(home, clock, monkeypatch) -> None:
    loaded_rows: dict[int, int] = {}
    shown = recent.shown

    def counting(s, loaded, player, most):
        got = shown(s, loaded, player, most)
        loaded_rows[n] = len(got.events)
        return got

    monkeypatch.setattr(recent, "shown", counting)
    for n, name in ((N, "hh1"), (4 * N, "hh4")):
        _game(home, clock, name, n)
        ctx = games.show_game(Home.of(home), name, "Alice").report
        assert ctx is not None and len(ctx["happened"]) == SHOWN
        assert ctx["happened"][-1] == f"Note {n - 1}.{EVENTS - 1}."
        assert f"Only Alice reads {n - 1}." in ctx["happened"] and f"Only Bob reads {n - 1}." not in ctx["happened"]
    # the events it prints and no other: Bob's among them too until costs11 (`event_readers`)
    assert loaded_rows == {N: SHOWN, 4 * N: SHOWN}, f"events read to show n and 4n decisions: {loaded_rows}"


def _whole(cfg, name: str, player: str) -> dict:
    """The report from the start, read whole and sliced (`show_game` on ba1be06)."""
    home = Home.of(cfg)
    with home.units() as s:
        loaded = store.load(s, store.game_by_name(s, name))
        recent.read(s, loaded, [(player, 0)])
        ctx = report_context(home.policy.moderator_name, loaded, Reader(player, 0))
    ctx["happened"] = ctx["happened"][-SHOWN:]
    return ctx


@pytest.mark.parametrize("kind", KINDS)
def test_show_as_prints_what_the_whole_report_sliced_printed_for_every_player(kind: str) -> None:
    cfg = config_mod.load(seeded_home(kind) / "pbem.toml")
    (game,) = games.list_games(Home.of(cfg))
    name = game.name
    for player in game.players:
        shown = games.show_game(Home.of(cfg), name, player).report
        assert shown == _whole(cfg, name, player), f"{kind}: {player}'s report as shown"


def test_show_as_a_seat_given_twice_prints_what_the_whole_report_sliced_printed(replaced) -> None:  # noqa: F811
    """Eve holds the seat Carol and then Dora held: her report from the start reads the seat's events under every
    name (`tests.test_former_players`)."""
    cfg = config_mod.load(replaced / "pbem.toml")
    for player in ("Alice", "Bob", "Eve"):
        assert games.show_game(Home.of(cfg), "hh1", player).report == _whole(cfg, "hh1", player), player
