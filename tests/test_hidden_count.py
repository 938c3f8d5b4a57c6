"""The exports of a running game and the public site reveal no more than the mail does: not how many hidden entries
the record holds (branch `hiddencount`, docs/security.md "What the numbering of a running game reveals").

A generator over the four games: two homes play the same seeded game alike, except that in one of them another
player takes two more hidden steps (revises their secret answer twice where the game asks for one at once and in
secret: Italian Wars, Sixteen Thirty Something, Dynasties; in House of Habsburg, where one player moves at a time,
sends two private press messages), at the same moment.  Then the observer (a player who sees none of it) moves.
The public export and each observer's export (JSON, text, HTML) and the published site must be byte-identical in
both homes, hashes and signatures aside (they bind the hidden entries, salted, and must differ); the moderator's
exports must differ (the test can tell the homes apart).  Both partial exports verify alone, and against the final
export with `--earlier` (`tests/test_hidden_count.py::test_an_earlier_partial_export_is_checked_against_the_final`).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from pbem.app import games, views
from pbem.app.cron import run_poll
from pbem.app.publish import publish
from pbem.history.export import build, render
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from tests.conftest import CODES, in_delivered_order
from tests.reliability import killpoints as kp

KINDS = ["habsburg", "italian-wars", "sixteen-thirty", "dynasties"]
PLAYERS = [("Alice", "alice@example.test"), ("Bob", "bob@example.test"), ("Carol", "carol@example.test")]
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
HEX = re.compile(r"[0-9a-f]{16,}")  # hashes, heads, signatures, keys and their 16-digit prefixes


def _mail(player: str, label: str, body: str) -> bytes:
    return (
        f"From: {player} <{dict(PLAYERS)[player]}>\nTo: moderator@pbem.test\nSubject: [pbem g1] orders\n"
        f"Message-ID: <{label}@example.test>\nDate: Tue, 01 Dec 2026 09:00:00 +0000\n"
        f"Content-Type: text/plain; charset=utf-8\n\nCODE {CODES[player]}\n{body}\n"
    ).encode()


def play(kind: str, root: Path, hidden: int, watch: Callable[[Any], None] | None = None) -> tuple[Any, str, list[str]]:
    """The home, the player who moves in secret (or writes private press), and the observers: who see none of it.
    `watch(cfg)` is called just before the hidden steps and again just after them (games answered at once)."""
    players = PLAYERS[:2] if kind == "italian-wars" else PLAYERS
    cfg = kp.make_home(root)
    games.create_game(
        Home.of(cfg), kind, "g1", players, seed=f"hidden-count-{kind}-0123456789abcdef", codes=CODES, clock=lambda: T0
    )

    def poll(minutes: int, mails: list[bytes]) -> None:
        kp.deliver_in_order(cfg, mails)
        assert run_poll(cfg, clock=lambda: T0 + timedelta(minutes=minutes)).summary is not None

    poll(1, [])
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        asked = {r.player: r for r in views.engine(loaded).requests(loaded.state) if not r.answered and r.legal}
    if len(asked) >= 2:  # an answer given at once and in secret: B answers, revises `hidden` times, then A answers
        a, b = sorted(asked)[:2]
        legal = asked[b].legal
        poll(2, [_mail(b, "b-first", legal[0])])
        if watch is not None:
            watch(cfg)
        for i in range(hidden):  # at the same moment, back to the first answer: only the count of hidden inputs differs
            poll(2, [_mail(b, f"b-again-{i}", legal[1] if i < hidden - 1 else legal[0])])
        if watch is not None:
            watch(cfg)
        poll(3, [_mail(a, "a-answer", asked[a].legal[0])])
        return cfg, b, [p for p, _ in players if p != b]
    (mover,) = asked  # one player moves at a time: the mover writes to a third player in private first
    other = next(p for p, _ in players if p != mover and p != "Alice")
    for i in range(hidden):
        poll(2, [_mail(mover, f"press-{i}", f"PRESS TO {other}: a word in private, number {i}")])
    poll(3, [_mail(mover, "mover", asked[mover].legal[0])])
    return cfg, mover, [p for p, _ in players if p not in (mover, other)]


def test_the_site_does_not_move_while_only_hidden_steps_are_taken(tmp_path: Path) -> None:
    """Published before and after Bob revises his secret tribute twice: no file of the site is written again (its
    bytes and its time stay), though the record grew; the positions pbem compares are kept in the home."""
    site = tmp_path / "site"
    stamps: list[dict[str, tuple[int, str]]] = []

    def watch(cfg: Any) -> None:
        publish(Home.of(cfg), site, T0 + timedelta(minutes=2))
        stamps.append({p.name: (p.stat().st_mtime_ns, p.read_text()) for p in sorted(site.iterdir())})

    cfg, _, _ = play("dynasties", tmp_path / "home", 2, watch=watch)
    assert len(stamps) == 2 and stamps[0] == stamps[1], "a hidden step rewrote the site"
    assert (Path(cfg.path).parent / ".pbem-site-positions.json").exists()


def _masked(text: str) -> str:
    return HEX.sub("#", text)


def _exports(cfg: Any, audiences: list[str | None]) -> dict[str, str]:
    out: dict[str, str] = {}
    with session(cfg.database_url) as s:
        game = store.game_by_name(s, "g1")
        for who in audiences:
            doc = json.loads(json.dumps(build(s, game, as_player=who, public=who is None)))
            for fmt in ("json", "text", "html"):
                out[f"{who or 'public'}.{fmt}"] = _masked(render(doc, fmt))
    return out


def _site(cfg: Any, folder: Path) -> dict[str, str]:
    publish(Home.of(cfg), folder, T0 + timedelta(minutes=5))
    return {p.name: _masked(p.read_text(encoding="utf-8")) for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("kind", KINDS)
def test_no_export_or_page_of_a_running_game_counts_the_hidden_entries(kind: str, tmp_path: Path) -> None:
    once, mover, observers = play(kind, tmp_path / "once", 0)
    twice, mover2, observers2 = play(kind, tmp_path / "twice", 2)
    assert (mover, observers) == (mover2, observers2)
    audiences: list[str | None] = [None, *observers]
    with session(once.database_url) as s, session(twice.database_url) as t:
        full = [
            len(build(x, store.game_by_name(x, "g1"))["orders"]) + len(build(x, store.game_by_name(x, "g1"))["events"])
            for x in (s, t)
        ]
    assert full[1] >= full[0] + 2, f"{kind}: the hidden steps are not entries of the record ({full})"
    a, b = _exports(once, audiences), _exports(twice, audiences)
    for key in a:
        assert a[key] == b[key], f"{kind}: the {key} export counts {mover}'s hidden steps:\n" + _first_difference(
            a[key], b[key]
        )
    sa, sb = _site(once, tmp_path / "site-once"), _site(twice, tmp_path / "site-twice")
    assert sa.keys() == sb.keys()
    for name in sa:
        assert sa[name] == sb[name], f"{kind}: the site's {name} counts the hidden steps:\n" + _first_difference(
            sa[name], sb[name]
        )


def _first_difference(x: str, y: str) -> str:
    i = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
    return f"...{x[max(0, i - 120) : i + 80]!r}\n   vs\n...{y[max(0, i - 120) : i + 80]!r}"


def _schema() -> Any:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parent.parent / "docs" / "export.schema.json").read_text())
    return jsonschema.Draft202012Validator(schema)


def _resigned(cfg: Any, doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` signed again with the game's own key: what a moderator who lies in a partial export can make."""
    from pbem.trust import signing

    with session(cfg.database_url) as s:
        private = signing.private_of(store.game_by_name(s, "g1"))
    assert private
    return doc | {"signature": signing.export_signature(private, doc, partial=True)}


@pytest.mark.parametrize("kind", ["dynasties", "habsburg"])
def test_an_earlier_partial_export_is_checked_against_the_final(kind: str, tmp_path: Path) -> None:
    """A partial export (version 2) verifies alone with --partial, validates against the schema, and fails when an
    entry is changed; kept until the end, `pbem verify FINAL --earlier PARTIAL` finds each of its entries in the
    whole record, and names the one a moderator changed or left out even when he signed the lie with the game key."""
    from typer.testing import CliRunner

    from pbem.cli import app
    from pbem.history.export import verify
    from pbem.trust.receipts import verify_mail
    from pbem.trust.verify import PARTIAL_VERSION, earlier

    cfg, _, observers = play(kind, tmp_path / "home", 2)
    validator = _schema()
    with session(cfg.database_url) as s:
        game = store.game_by_name(s, "g1")
        partials = {
            who: json.loads(json.dumps(build(s, game, as_player=who, public=who is None))) for who in [None, *observers]
        }
        final = json.loads(json.dumps(build(s, game)))  # the whole record: every entry, with its salt
    for who, doc in partials.items():
        assert doc["version"] == PARTIAL_VERSION and all("salt" not in r for r in doc["orders"] + doc["events"])
        assert [r["seq"] for r in sorted(doc["orders"] + doc["events"], key=lambda r: r["seq"])] == list(
            range(1, doc["chain"]["entries"] + 1)
        )
        assert [e.message for e in validator.iter_errors(doc)] == [], who
        v = verify(doc, partial=True)
        assert v.ok, (who, v.problem)
        assert not verify(doc).ok, "a partial export verifies only with --partial"
        changed = json.loads(json.dumps(doc))
        changed["events"][-1]["text"] += " (changed)"
        assert "signature" in verify(changed, partial=True).problem
        good = earlier(final, doc)
        assert good.ok, (who, good.problem)
        lie = _resigned(cfg, changed)
        assert verify(lie, partial=True).ok, "signed by the game key, the lie passes alone"
        caught = earlier(final, lie)
        assert not caught.ok and f"entry {changed['events'][-1]['seq']}" in caught.problem and "text" in caught.problem
        left_out = json.loads(json.dumps(doc))  # the first event dropped, the rest renumbered and signed again
        gone = left_out["events"].pop(0)["seq"]
        for row in left_out["orders"] + left_out["events"]:
            row["seq"] -= row["seq"] > gone
        left_out["chain"]["entries"] -= 1
        left_out = _resigned(cfg, left_out)
        assert verify(left_out, partial=True).ok
        assert not earlier(final, left_out).ok, f"{who}: an entry left out of the earlier export went unnoticed"
        if who is not None:  # during the game, the reader's own mail finds each head at the number it states
            address = dict(PLAYERS)[who].encode()
            mail = [p.read_bytes() for p in in_delivered_order((Path(cfg.maildir_path) / "sent").glob("*/*"))]
            theirs = [raw for raw in mail if address in raw]
            honest = verify_mail(doc, theirs, who)
            assert honest.ok and honest.heads > 0, (who, honest.problems)
            assert not verify_mail(left_out, theirs, who).ok, f"{who}'s mail did not notice an entry left out"
            assert not verify_mail(left_out, theirs).ok, "nor without --as, the mail being addressed to them"
    path, final_path = tmp_path / "mine.json", tmp_path / "final.json"
    path.write_text(json.dumps(partials[observers[0]]))
    final_path.write_text(json.dumps(final))
    res = CliRunner().invoke(app, ["verify", str(final_path), "--partial", "--earlier", str(path)])
    assert res.exit_code == 0 and "with the same content and hash" in res.output, res.output
    path.write_text(json.dumps(_resigned(cfg, changed)))
    res = CliRunner().invoke(app, ["verify", str(final_path), "--partial", "--earlier", str(path)])
    assert res.exit_code != 0 and "MISMATCH" in res.output and "proof" in res.output, res.output


def _mutations(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Changed copies of a partial export, each of which `pbem verify --partial` must refuse with a reason."""
    out: list[tuple[str, dict[str, Any]]] = []

    def changed(what: str, edit: Callable[[dict[str, Any]], None]) -> None:
        copy = json.loads(json.dumps(doc))
        edit(copy)
        out.append((what, copy))

    rows = lambda d: sorted(d["orders"] + d["events"], key=lambda r: r["seq"])  # noqa: E731
    changed("an entry left out", lambda d: d["events"].pop(len(d["events"]) // 2))
    changed("two entries swapped", lambda d: d["events"].reverse())
    changed("a salt added", lambda d: d["events"][-1].update(salt="0" * 32))
    changed("a global number added", lambda d: d["events"][-1].update(input_seq=3))
    changed("a number repeated", lambda d: rows(d)[-1].update(seq=rows(d)[-2]["seq"]))
    changed("the head changed", lambda d: d["chain"].update(head="0" * 64))
    changed("the count changed", lambda d: d["chain"].update(entries=d["chain"]["entries"] + 1))
    changed("a hash changed", lambda d: rows(d)[0].update(hash="1" * 64))
    changed("a seed given", lambda d: d.update(seed="x" * 32))
    changed("the moderator's", lambda d: d.update(audience="moderator"))
    changed("a time going back", lambda d: rows(d)[-1].update(at="2000-01-01T00:00:00+00:00"))
    changed("the signature removed", lambda d: d.pop("signature"))
    changed("the listing's digest changed", lambda d: d["signature"].update(listed="2" * 64))
    changed("an unknown field", lambda d: d["events"][0].update(extra=1))
    changed("a number as text", lambda d: d["events"][0].update(seq="1"))
    changed("the version as true", lambda d: d.update(version=True))
    return out


def test_a_changed_partial_export_is_refused_with_a_reason_never_a_crash(tmp_path: Path) -> None:
    from pbem.history.export import verify

    cfg, _, observers = play("sixteen-thirty", tmp_path / "home", 2)
    with session(cfg.database_url) as s:
        game = store.game_by_name(s, "g1")
        docs = [json.loads(json.dumps(build(s, game, as_player=who, public=who is None))) for who in [None, *observers]]
    for doc in docs:
        assert verify(doc, partial=True).ok
        for what, bad in _mutations(doc):
            v = verify(bad, partial=True)
            assert not v.ok and v.problem and "malformed" not in v.problem, (doc["audience"], what, v.problem)


def test_a_partial_export_written_before_version_2_verifies_as_before(tmp_path: Path) -> None:
    """A version 1 partial export (global numbers and salts, gaps where entries are hidden, as pbem wrote them before
    version 2) still verifies with --partial, and a changed entry that follows a listed one is still named."""
    from pbem.history.export import verify

    cfg, _, observers = play("dynasties", tmp_path / "home", 2)
    with session(cfg.database_url) as s:
        whole = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))
    who = observers[0]
    old = whole | {
        "audience": who,
        "players": [{k: v for k, v in p.items() if k != "address"} for p in whole["players"]],
        "messages": [m for m in whole["messages"] if m["player"] == who],
        "orders": [o for o in whole["orders"] if o["player"] == who],
        "events": [e for e in whole["events"] if e["visibility"] == "public" or who in e["visibility"]],
    }
    assert old["version"] == 1 and len(old["orders"]) + len(old["events"]) < old["chain"]["entries"]
    v = verify(old, partial=True)
    assert v.ok, v.problem
    from pbem.trust import chain

    placed = chain.places(old["orders"], old["events"])
    linked = [
        row["seq"] for (_, at), (row, place) in itertools.pairwise(placed) if "text" in row and place == (at or -9) + 1
    ]
    assert linked, "some listed event directly follows a listed entry"
    forged = json.loads(json.dumps(old))
    next(e for e in forged["events"] if e["seq"] == linked[-1])["text"] += " (changed)"
    assert "chain breaks" in verify(forged, partial=True).problem
