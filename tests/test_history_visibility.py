"""Exports hold exactly their audience's knowledge, in every format, at every moment of a game.

Random bot games are played by email (the real pipeline).  Every few polls,
while the game runs, each player's export (`--as`) and the public one are
built and checked against the record: `--as P` holds exactly the events P
was shown, only P's orders and messages, P's own view, and no hidden item of
another player that no event shown to P had named; `--public` holds only
public events, no orders, no seed.  The JSON, text and HTML forms of each
document are checked alike.  Once the game is over, the public export reveals
everything, with the seed.
"""

from __future__ import annotations

import html as htmllib
import json
import logging
import re
from pathlib import Path

import pytest

from pbem import engine as registry
from pbem.engine.base import Event
from pbem.history.export import build, render
from pbem.record import store
from pbem.record.db import session
from tests.conftest import Clock
from tests.secrets_by_kind import HIDDEN
from tests.secrets_by_kind import names as _names
from tests.test_secrecy_mail import seats

#: Every registered kind, with 3 players where it seats 3 (else the nearest count it seats).
GAMES = [(kind, seats(kind), f"vis-{kind}") for kind in registry.available()]


def _plain(page: str) -> str:
    """The text a reader of the HTML page sees (tags stripped, entities decoded)."""
    return htmllib.unescape(re.sub(r"<[^>]+>", " ", page))


def check_player_export(s, loaded, player: str, checked: dict) -> None:
    game, eng, state = loaded.game, loaded.engine, loaded.state
    rows = store.events_for(s, game.id)
    shown = {r.hash for r in rows if store.event_of(r).visible_to(player)}
    doc = json.loads(json.dumps(build(s, game, as_player=player)))
    assert doc["audience"] == player and doc["seed"] is None and not doc["game"]["over"]
    assert {e["hash"] for e in doc["events"]} == shown, "exactly the events shown to the player"
    numbers = sorted(r["seq"] for r in doc["orders"] + doc["events"])  # as the player's receipts count them
    assert numbers == list(range(1, doc["chain"]["entries"] + 1))
    assert all(Event.from_json(e).visible_to(player) for e in doc["events"])
    assert {o["player"] for o in doc["orders"]} <= {player, ""}  # their own, the deadlines' and the moderator's
    assert {m["player"] for m in doc["messages"]} <= {player}
    assert all("address" not in p for p in doc["players"])
    assert doc["final_view"] == json.loads(json.dumps(eng.view(state, player)))
    known = "\n".join(e["text"] + json.dumps(e["data"]) for e in doc["events"])
    hidden_texts = {r.text for r in rows if r.hash not in shown} - {e["text"] for e in doc["events"]}
    forms = {"json": json.dumps(doc), "text": render(doc, "text"), "html": _plain(render(doc, "html"))}
    for fmt, body in forms.items():
        for text in hidden_texts:
            assert text not in body, f"{player}'s {fmt} export holds an event they never saw: {text!r}"
        if eng.kind in HIDDEN:
            for q in state["players"]:
                if q == player:
                    continue
                for item in HIDDEN[eng.kind](state, q):
                    if _names(item, body) and not _names(item, known):
                        raise AssertionError(f"{player}'s {fmt} export names {q}'s hidden {item!r}")
    checked["player"] += 1


def check_public_export(s, loaded, checked: dict) -> None:
    doc = json.loads(json.dumps(build(s, loaded.game, public=True)))
    assert doc["audience"] == "public" and doc["seed"] is None
    assert all(e["visibility"] == "public" for e in doc["events"])
    assert {o["player"] for o in doc["orders"]} <= {""} and doc["messages"] == []  # no player's orders
    public = {r.hash for r in store.events_for(s, loaded.game.id) if store.event_of(r).visible_to(None)}
    assert {e["hash"] for e in doc["events"]} == public
    page, text = render(doc, "html"), render(doc, "text")
    assert "Everything that was secret" not in page and '<code class="seed">' not in page
    assert "[moderator only]" not in text and "[to " not in text
    assert loaded.game.seed not in (_plain(page) + text).split()
    checked["public"] += 1


@pytest.mark.slow
@pytest.mark.parametrize("kind, players, seed", GAMES, ids=[g[0] for g in GAMES])
def test_exports_during_a_random_game_hold_only_what_their_audience_knew(
    tmp_path: Path, kind: str, players: int, seed: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The same whole game also carries the public site's checks (tests/test_publish.py's `check_site`, every fifth
    poll and at the end), for a kind of searchable secrets the mail's (tests/test_secrecy_mail.py's `mail_check`,
    after every poll), and at the end the codes' (tests/reliability/test_secrecy_at_scale.py's
    `codes_only_in_their_own_first_report`, over every log line of the game): each of those tests played random
    games of their own."""
    from pbem.cli.demo import run
    from tests.reliability.test_secrecy_at_scale import codes_only_in_their_own_first_report
    from tests.test_publish import check_site
    from tests.test_secrecy_mail import mail_check

    if kind not in registry.available():
        pytest.skip(f"the {kind} engine is not installed")
    checked = {"polls": 0, "player": 0, "public": 0}
    site, on_site = tmp_path / "site", {"running": 0, "over": 0}
    mails, mailed = mail_check(kind) if kind in HIDDEN else (None, {})

    def after_poll(cfg, name) -> None:
        checked["polls"] += 1
        if mails is not None:
            mails(cfg, name)
        if checked["polls"] % 5 == 1:
            check_site(cfg, site, name, on_site)
        if checked["polls"] % 4 != 1:
            return
        with session(cfg.database_url) as s:
            game = store.game_by_name(s, name)
            if store.is_over(s, game.id):
                return
            loaded = store.load(s, game)
            for p in json.loads(game.players_json):
                check_player_export(s, loaded, p, checked)
            check_public_export(s, loaded, checked)

    caplog.set_level(logging.DEBUG, logger="pbem")
    r = run(
        kind,
        players,
        seed,
        tmp_path / "home",
        bot_seed=f"{seed}-bots",
        clock=Clock(),
        max_polls=3000,
        after_poll=after_poll,
    )
    assert r.verified and "did not finish" not in r.summary, r.summary
    assert checked["public"] >= 2 and checked["player"] >= 2 * players, checked
    assert mails is None or mailed["mails"] > 10, mailed
    codes_only_in_their_own_first_report(tmp_path / "home", f"{seed}-bots", players, caplog.records)

    # the public site once the game is over
    from pbem.home import config as config_mod

    cfg = config_mod.load(tmp_path / "home" / "pbem.toml")
    check_site(cfg, site, f"{kind}-demo", on_site)
    assert on_site["running"] >= 2 and on_site["over"] >= 1, on_site

    # After the end, the public export reveals everything the end reveals.
    with session(cfg.database_url) as s:
        game = store.game_by_name(s, f"{kind}-demo")
        full = build(s, game)
        pub = json.loads(json.dumps(build(s, game, public=True)))
        assert pub["seed"] == game.seed and pub["game"]["over"]
        assert [e["seq"] for e in pub["events"]] == [e["seq"] for e in full["events"]]
        assert len(pub["orders"]) == len(full["orders"])
        assert any(e["visibility"] != "public" for e in pub["events"])
        page = render(pub, "html")
        assert "Everything that was secret" in page and f'<code class="seed">{game.seed}</code>' in page
        plain = _plain(page)
        for e in pub["events"]:
            if e["visibility"] != "public":
                assert e["text"] in plain
