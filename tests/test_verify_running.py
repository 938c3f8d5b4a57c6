"""`pbem verify --partial` on the exports of a game in progress (README, "Exporting a game's history": an export
"can be handed to anyone, during the game or after it"): the public export and each player's list only what their
audience may see, with gaps where entries are hidden; they verify with --partial, at every moment of the game, in
every kind, with and without a join step, alone and against the player's own mail.  A changed entry is still named.
"""

from __future__ import annotations

import copy
import itertools
import json
import mailbox
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pbem import engine as registry
from pbem.cli import app
from pbem.history.export import build, verify
from pbem.record import store
from pbem.record.db import session
from pbem.trust import chain
from tests.conftest import Clock

pytestmark = pytest.mark.slow

CASES = [(kind, join) for kind in registry.available() for join in (False, True)]


def _players(kind: str) -> int:
    eng = registry.get(kind)
    return min(max(3, eng.min_players), eng.max_players)


def _alices_mail(cfg: Any, folder: Path) -> Path:
    """A copy of the mail pbem sent to Alice so far: her mailbox."""
    sent = mailbox.Maildir(str(cfg.maildir_path / "sent"), factory=None, create=False)
    box = mailbox.Maildir(str(folder), factory=None, create=True)
    have = set(box.iterkeys())
    for key in sent.iterkeys():
        raw = sent.get_bytes(key)
        if key not in have and re.search(rb"^To: .*<alice@players\.example>", raw, re.M):
            box.add(raw)
    return folder


def _tampered(doc: dict[str, Any]) -> dict[str, Any] | None:
    """The export with the text of an event changed (None when there is none to change): in the moderator's export
    one that directly follows a listed entry (its hash is recomputed from it); in a partial export (version 2,
    whose hashes cannot be recomputed before the seed is out) the last listed event, which the signature covers."""
    if doc["version"] == 2:
        if not doc["events"] or "signature" not in doc:
            return None
        forged = copy.deepcopy(doc)
        forged["events"][-1]["text"] += " (changed)"
        return forged
    placed = chain.places(doc["orders"], doc["events"])
    linked = [
        row for (_, before), (row, at) in itertools.pairwise(placed) if "text" in row and before and at == before + 1
    ]
    if not linked:
        return None
    forged = copy.deepcopy(doc)
    target = next(e for e in forged["events"] if e["seq"] == linked[-1]["seq"])
    target["text"] += " (changed)"
    return forged


@pytest.mark.parametrize("kind, join", CASES, ids=[f"{k}-{'join' if j else 'dealt'}" for k, j in CASES])
def test_every_export_of_a_running_game_verifies_with_partial(tmp_path: Path, kind: str, join: bool) -> None:
    from pbem.cli.demo import run

    seen = {"polls": 0, "exports": 0, "mail": 0, "tampered": 0}
    failures: list[str] = []

    def after_poll(cfg: Any, name: str) -> None:
        seen["polls"] += 1
        if seen["polls"] not in (1, 2, 4, 9, 20):
            return
        with session(cfg.database_url) as s:
            game = store.game_by_name(s, name)
            assert game is not None and game.id is not None
            if store.is_over(s, game.id):
                return
            players = json.loads(game.players_json)
            docs = {"public": build(s, game, public=True), "moderator": build(s, game)}
            docs |= {p: build(s, game, as_player=p) for p in players}
        for who, doc in docs.items():
            doc = json.loads(json.dumps(doc))
            v = verify(doc, partial=True)
            seen["exports"] += 1
            if not v.ok:
                failures.append(f"poll {seen['polls']}, the {who} export: {v.problem}")
            if verify(doc).ok:
                failures.append(f"poll {seen['polls']}, the {who} export: verified without --partial")
            forged = _tampered(doc)
            if forged is not None:
                seen["tampered"] += 1
                if verify(forged, partial=True).ok:
                    failures.append(f"poll {seen['polls']}, the {who} export: a changed event verified")
        alice = _alices_mail(cfg, tmp_path / f"alice-{seen['polls']}")
        for who in ("public", "Alice"):
            path = tmp_path / f"{who}-{seen['polls']}.json"
            path.write_text(json.dumps(docs[who]))
            res = CliRunner().invoke(app, ["verify", str(path), "--partial", "--mail", str(alice), "--as", "Alice"])
            seen["mail"] += 1
            if res.exit_code != 0:
                failures.append(f"poll {seen['polls']}, the {who} export against Alice's mail:\n{res.output}")

    run(
        kind,
        _players(kind),
        f"running-{kind}",
        tmp_path / "home",
        bot_seed="running-bots",
        clock=Clock(),
        max_polls=22,
        after_poll=after_poll,
        join_salts={"Alice": "mine"} if join else None,
    )
    assert not failures, "\n".join(failures[:6])
    assert seen["exports"] >= 3 * (_players(kind) + 2) and seen["mail"] >= 6 and seen["tampered"] >= 3, seen
