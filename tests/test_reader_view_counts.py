"""A reader's receipt counts (`pbem.record.reader_view`) carried on from the last count equal a count of the whole
record, however the record grew, and whatever happened to what was counted (real SQLite, the real schema).

The carried-on count reads only the entries after the newest order and event it counted, and is used only if
those two are still there with the same hashes.  A generator grows one game's record in random batches of
orders and events (every visibility: public, the moderator's, one player's, several), hashed as a chain, and
after each batch checks every player's (count, head) against a count from nothing.  Batches are also written
and rolled back after a reader was counted on them, and one record is replaced by another game's at the same
path: the count is then made again, never carried on from entries that are gone.
"""

from __future__ import annotations

import hashlib
import json
import random
from datetime import UTC, datetime

from sqlalchemy import text

from pbem.app import games
from pbem.engine.base import PUBLIC
from pbem.home.app import Home
from pbem.record import reader_view, store
from pbem.record.db import session
from pbem.record.models import readers_of
from tests.conftest import CODES

# "mod" is a part of the word "moderator": a visibility is a list of names or a word, never a text to search in
PLAYERS = [("Alice", "alice@example.test"), ("Bob", "bob@example.test"), ("mod", "carol@example.test")]
NAMES = [p for p, _ in PLAYERS]
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


class Record:
    """Appends hashed orders and events to one game, as the record does (chain order: an input, its events)."""

    def __init__(self, game_id: int, rng: random.Random, salt: str) -> None:
        self.game_id, self.rng, self.salt = game_id, rng, salt
        self.order_seq = self.event_seq = 0
        self.head = "commitment"

    def _link(self, entry: str) -> str:
        self.head = hashlib.sha256(f"{self.head}|{self.salt}|{entry}".encode()).hexdigest()
        return self.head

    def batch(self, s, inputs: int) -> None:
        conn = s.connection()
        for _ in range(inputs):
            self.order_seq += 1
            player = self.rng.choice([*NAMES, ""])
            conn.execute(
                text(
                    "INSERT INTO orders (game_id, seq, kind, player, lines_json, created_at, hash) "
                    "VALUES (:g, :s, 'orders', :p, '[]', :t, :h)"
                ),
                {"g": self.game_id, "s": self.order_seq, "p": player, "t": T0, "h": self._link(f"o{player}")},
            )
            self.events(conn, self.rng.randrange(4))

    def events(self, conn, k: int) -> None:
        """`k` events of the newest input (press and moderator notices come after an input's own)."""
        for _ in range(k):
            self.event_seq += 1
            vis = self.rng.choice([PUBLIC, "moderator", *([n] for n in NAMES), NAMES[:2], NAMES[1:]])
            conn.execute(
                text(
                    "INSERT INTO events (game_id, seq, input_seq, kind, text, visibility_json, data_json, "
                    "created_at, hash) VALUES (:g, :s, :i, 'x', '', :v, '{}', :t, :h)"
                ),
                {
                    "g": self.game_id,
                    "s": self.event_seq,
                    "i": self.order_seq,
                    "v": json.dumps(vis),
                    "t": T0,
                    "h": self._link(f"e{vis}"),
                },
            )
            for reader in readers_of(vis):  # who may see it, as `store.append_events` writes them
                conn.execute(
                    text("INSERT INTO event_readers (game_id, reader, seq) VALUES (:g, :r, :s)"),
                    {"g": self.game_id, "r": reader, "s": self.event_seq},
                )


def counts(s, game_id: int, commitment: str) -> dict[str, tuple[int, str]]:
    return {p: reader_view.visible_record(s, game_id, p, commitment) for p in NAMES}


def from_nothing(s, game_id: int, commitment: str) -> dict[str, tuple[int, str]]:
    reader_view.forget()
    return counts(s, game_id, commitment)


def brute(s, game_id: int, commitment: str, names: list[str] = NAMES) -> dict[str, tuple[int, str]]:
    """The receipts by their definition, from every row: the entries a player may see, in chain order (an
    input, then the events it produced), and the hash of the last of them."""
    conn = s.connection()
    orders = conn.execute(text("SELECT seq, player, hash FROM orders WHERE game_id = :g"), {"g": game_id}).all()
    events = conn.execute(
        text("SELECT seq, input_seq, visibility_json, hash FROM events WHERE game_id = :g"), {"g": game_id}
    ).all()
    chain = sorted(
        [((seq, 0, 0), lambda p, who=who: who in ("", p), h) for seq, who, h in orders]
        + [((i, 1, seq), lambda p, vis=vis: _sees(vis, p), h) for seq, i, vis, h in events],
        key=lambda entry: entry[0],
    )
    out = {}
    for p in names:
        seen = [h for _, sees, h in chain if sees(p)]
        out[p] = (len(seen), seen[-1] if seen else commitment)
    return out


def _sees(vis_json: str, player: str) -> bool:
    vis = json.loads(vis_json)
    return vis == PUBLIC or (isinstance(vis, list) and player in vis)


def _game(cfg, name: str) -> tuple[int, str]:
    games.create_game(Home.of(cfg), "italian-wars", name, PLAYERS[:2], seed=f"rv-{name}", codes=CODES, clock=lambda: T0)
    with session(cfg.database_url) as s:
        game = store.game_by_name(s, name)
        assert game is not None and game.id is not None
        return game.id, game.seed_commitment


def _bare_game(cfg, name: str) -> tuple[int, str]:
    """A game without its own set-up events: the chain the generator writes starts at its commitment."""
    gid, commitment = _game(cfg, name)
    with session(cfg.database_url) as s:
        s.execute(text("DELETE FROM events WHERE game_id = :g"), {"g": gid})
        s.execute(text("DELETE FROM event_readers WHERE game_id = :g"), {"g": gid})
        s.commit()
    return gid, commitment


def test_counts_carried_on_equal_counts_from_nothing_as_the_record_grows(home) -> None:
    rng = random.Random(7)
    gid, commitment = _bare_game(home, "rv1")
    record = Record(gid, rng, "one")
    reader_view.forget()
    for step in range(40):
        with session(home.database_url) as s:
            record.batch(s, rng.randrange(1, 6))
            s.commit()
        with session(home.database_url) as s:
            carried = counts(s, gid, commitment)
            assert carried == from_nothing(s, gid, commitment), f"batch {step}"
            if step % 8 == 0:
                assert carried == brute(s, gid, commitment), f"batch {step}"
            counts(s, gid, commitment)  # remembered again, for the next batch


def test_counts_brought_up_from_a_snapshot_equal_counts_from_nothing(home) -> None:
    """`reader_view.cached`: the counts kept with a snapshot, brought up over the events written after it (every
    visibility, "moderator" with a player named "mod" among them), equal a count from nothing."""
    rng = random.Random(13)
    gid, commitment = _bare_game(home, "rv4")
    record = Record(gid, rng, "four")
    for step in range(12):
        with session(home.database_url) as s:
            record.batch(s, rng.randrange(1, 4))
            s.commit()
            kept = reader_view.snapshot_json(from_nothing(s, gid, commitment), NAMES, record.event_seq)
            assert kept is not None
            record.events(s.connection(), rng.randrange(1, 6))
            s.commit()
            brought = reader_view.cached(s.connection(), gid, kept, record.event_seq)
            assert brought == from_nothing(s, gid, commitment) == brute(s, gid, commitment), f"step {step}"


def test_a_count_made_on_rolled_back_entries_is_made_again(home) -> None:
    rng = random.Random(11)
    gid, commitment = _bare_game(home, "rv2")
    record = Record(gid, rng, "two")
    with session(home.database_url) as s:
        record.batch(s, 5)
        s.commit()
    reader_view.forget()
    for step in range(15):
        kept = (record.order_seq, record.event_seq, record.head)
        with session(home.database_url) as s:  # counted on a batch that is then rolled back
            record.batch(s, rng.randrange(1, 5))
            counts(s, gid, commitment)
            s.rollback()
        record.order_seq, record.event_seq, record.head = kept
        record.salt = f"two-{step}"  # the entries written instead hash differently
        with session(home.database_url) as s:
            record.batch(s, rng.randrange(0, 5))
            s.commit()
        with session(home.database_url) as s:
            assert counts(s, gid, commitment) == from_nothing(s, gid, commitment) == brute(s, gid, commitment)


def test_another_record_at_the_same_path_is_counted_afresh(home) -> None:
    """A home restored from a backup or made again at the same path: the game id, the seqs, even the number of
    entries may be the same; the hashes are not, so nothing counted before is carried on."""
    gid, commitment = _bare_game(home, "rv3")
    first = Record(gid, random.Random(1), "first")
    with session(home.database_url) as s:
        first.batch(s, 10)
        s.commit()
    reader_view.forget()
    with session(home.database_url) as s:
        counts(s, gid, commitment)
        s.execute(text("DELETE FROM orders WHERE game_id = :g"), {"g": gid})
        s.execute(text("DELETE FROM events WHERE game_id = :g"), {"g": gid})
        s.execute(text("DELETE FROM event_readers WHERE game_id = :g"), {"g": gid})
        second = Record(gid, random.Random(2), "second")
        second.batch(s, 10)
        s.commit()
    with session(home.database_url) as s:
        assert counts(s, gid, commitment) == from_nothing(s, gid, commitment) == brute(s, gid, commitment)


def test_the_counts_kept_with_the_snapshot_equal_the_definition_in_every_new_process(home) -> None:
    """Each poll is a new process: the readers' counts it starts from come with the game's snapshot
    (`reader_view.snapshot_json`, `cached`), brought up to the newest event.  Played by mail through the real
    poll with random moves, press between moves (events with no input after the snapshot), secret tributes and
    revisions: after every poll, the counts a fresh load holds equal the definition over every row, and they
    came from the snapshot (not counted)."""
    from pbem.app import poll as polling
    from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
    from tests.conftest import deliver, order_mail, signed

    rng = random.Random(5)
    players = [("Alice", "alice@example.test"), ("Bob", "bob@example.test"), ("Carol", "carol@example.test")]
    names = [p for p, _ in players]
    games.create_game(Home.of(home), "dynasties", "rvd", players, seed="rv-dyn", codes=CODES, clock=lambda: T0)
    connected = Home.of(home, inbox=MaildirInbox(home.maildir_path), sender=MaildirSender(home.maildir_path))
    polling.poll(connected)
    from_cache = 0
    for step in range(30):
        with session(home.database_url) as s:
            game = store.game_by_name(s, "rvd")
            assert game is not None and game.id is not None
            reader_view.forget()  # what a new process remembers: nothing
            loaded = store.load(s, game)
            if loaded.over:
                break
            if loaded.readers:
                from_cache += 1
                assert {p: loaded.readers[p] for p in names} == brute(s, game.id, game.seed_commitment, names), step
                assert reader_view._memo == {}, "the counts came from the snapshot, not from counting"
            asked = [r for r in loaded.engine.requests(loaded.state) if not r.answered]
        for req in rng.sample(asked, len(asked)):
            speaker = rng.choice(names)
            if rng.random() < 0.5:  # press: an event after the snapshot, for all or for one
                to = rng.choice(["ALL", *[n for n in names if n != speaker]])
                body = signed(speaker, f"PRESS {to} hello from {speaker} at {step}")
                deliver(home, order_mail(f"{speaker} <{dict(players)[speaker]}>", "rvd", body))
            deliver(
                home,
                order_mail(
                    f"{req.player} <{dict(players)[req.player]}>", "rvd", signed(req.player, rng.choice(req.legal))
                ),
            )
        polling.poll(connected)
    assert from_cache >= 10, f"only {from_cache} loads found the counts with the snapshot"
