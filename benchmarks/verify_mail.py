"""How long `pbem verify EXPORT --mail DIR --as PLAYER` takes on a 1,000-order game.

    python benchmarks/verify_mail.py [--orders 1000] [--runs 2]

Builds the game fast, without mail in: Sixteen Thirty Something with six bot
players (the kind whose bot games run longest per second, about a thousand
orders), played by `pbem.engine.bots` and applied to a real SQLite record
through `pbem.app.apply`, each order as an accepted message with its
acknowledgement and the reports the pipeline would send to the watched
player (Alice), rendered with their receipts.  Alice's mail is taken from the
outbox into a Maildir; the game is exported.  Then timed, in the same run:

* `check_seconds`: reading the Maildir and checking it (`pbem.trust.receipts.verify_mail`);
* `cli_seconds`: the whole command, `pbem verify EXPORT --mail DIR --as Alice`
  in a fresh process (which also replays the export from the seed);

each as wall-clock and CPU seconds (the CPU figure does not depend on a busy machine).

Prints one JSON document.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import mailbox
import resource
import statistics
import subprocess
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import common

from pbem.home.app import Home

KIND = "sixteen-thirty"
PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"]
WATCHED = "Alice"
SEED = "5eed" * 8  # 128 bits: the seed rules of issue 13


def bot_game(orders: int) -> tuple[str, list[tuple[str, list[str]]]]:
    """(bot seed, inputs) of the first bot game with at least `orders` inputs."""
    from pbem import engine as registry
    from pbem.engine.bots import play

    eng = registry.get(KIND)
    for n in range(50):
        pt = play(eng, PLAYERS, SEED, bot_seed=f"verify-mail-{n}")
        if len(pt.inputs) >= orders:
            return f"verify-mail-{n}", list(pt.inputs)
    raise SystemExit(f"no bot game of {KIND} reached {orders} orders")


def build(home: Path, inputs: list[tuple[str, list[str]]]) -> tuple[Path, Path, int]:
    """Apply every input as the pipeline does; returns (export, Alice's Maildir, mails to her)."""
    from sqlmodel import col, select

    from pbem.app import views
    from pbem.app.apply import apply
    from pbem.app.decision import Decision, Effect, Input, Report
    from pbem.app.games import create_game
    from pbem.engine.base import apply_defaults
    from pbem.history.export import build as export
    from pbem.mail.inbound.message import Inbound
    from pbem.record import store
    from pbem.record.db import session
    from pbem.record.models import OutboxMail, OutboxMessage

    cfg = common.make_home(home)
    start = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
    name = "vm1"
    addresses = {p: common.player_address(p) for p in PLAYERS}
    create_game(Home.of(cfg), KIND, name, [(p, addresses[p]) for p in PLAYERS], seed=SEED, clock=lambda: start)
    with session(cfg.database_url) as s:
        game = store.game_by_name(s, name)
        assert game is not None and game.id is not None
        loaded = store.load(s, game)
        eng = loaded.engine
        for i, (player, lines) in enumerate(inputs, 1):
            when = start + timedelta(minutes=i)
            before = views.asked_steps(eng, loaded.state)
            effects: list[Effect] = []
            inbound = None
            if player == "!deadline":
                out = apply_defaults(eng, loaded.state)
                effects.append(Input("deadline", "", (), out))
            else:
                out = eng.apply(loaded.state, player, lines)
                assert out.accepted, (i, player, lines)
                mid = f"<o{i}@players.bench.test>"
                body = "\n".join(lines)
                inbound = Inbound(mid, hashlib.sha256(body.encode()).hexdigest(), addresses[player], player,
                                  f"Re: [pbem {name}] orders", name, body, None, None)  # fmt: skip
                effects.append(Input("orders", player, tuple(lines), out))
                if player == WATCHED:
                    effects.append(_ack(name, addresses[player], player, lines, mid, game.id))
            movers = views.players_to_report(eng, out.state, PLAYERS, out.events, before)
            if WATCHED in movers:
                effects.append(Report(WATCHED))
            d = Decision("accepted", game=name, player=player if inbound else "", effects=effects)
            apply(s, cfg, d, when, loaded, inbound=(inbound, b"") if inbound else None)
            if i % 200 == 0:
                s.commit()
        s.commit()
        doc = export(s, game)
        raws = s.exec(
            select(OutboxMail.raw)
            .join(OutboxMessage, OutboxMessage.id == OutboxMail.id)  # type: ignore[arg-type]
            .where(OutboxMessage.game_id == game.id, OutboxMessage.player == WATCHED)
            .order_by(col(OutboxMessage.id))
        ).all()
    path = home / f"{name}.json"
    path.write_text(json.dumps(doc))
    folder = home / "alice-mail"
    md = mailbox.Maildir(str(folder), factory=None, create=True)
    for raw in raws:
        md.add(raw)
    return path, folder, len(raws)


def _ack(game: str, to: str, player: str, lines: list[str], mid: str, game_id: int) -> object:
    from pbem.mail.outbound.outgoing import Mail

    ctx = dict(chatter=[], subject_in=f"Re: [pbem {game}] orders", game_name=game, applied=True,
               lines=[{"line": ln, "ok": True, "reason": "", "legal": (), "understood": ln} for ln in lines],
               rejected_count=0, problems=[], press_failed=[], no_orders=False, press_sent=[], held=False,
               on_file=[], waiting=[], report_follows=False)  # fmt: skip
    return Mail(to, "ack", ctx, "ack", (mid, to, "ack", 0), player=player, in_reply_to=mid, game_id=game_id)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--orders", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args()
    from pbem.trust.receipts import read_folder, verify_mail

    bot_seed, inputs = bot_game(args.orders)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        export, folder, mails = build(Path(tmp) / "home", inputs)
        built = time.perf_counter() - t0
        doc = json.loads(export.read_text())
        checks, clis, check_cpu, cli_cpu = [], [], [], []
        for _ in range(args.runs):
            t0, c0 = time.perf_counter(), time.process_time()
            c = verify_mail(doc, read_folder(folder), "Alice")
            checks.append(time.perf_counter() - t0)
            check_cpu.append(time.process_time() - c0)
            assert c.ok, c.problems[:3]
            t0, c0 = time.perf_counter(), _children_cpu()
            proc = subprocess.run(
                common.pbem_cmd("verify", str(export), "--mail", str(folder), "--as", "Alice"),
                capture_output=True,
                text=True,
            )
            clis.append(time.perf_counter() - t0)
            cli_cpu.append(_children_cpu() - c0)
            assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    print(
        json.dumps(
            {
                "kind": KIND,
                "players": len(PLAYERS),
                "bot_seed": bot_seed,
                "orders": len(inputs),
                "entries": doc["chain"]["entries"],
                "mails_to_alice": mails,
                "heads_checked": c.heads,
                "inputs_checked": c.inputs,
                "build_seconds": round(built, 2),
                "check_seconds_median": round(statistics.median(checks), 3),
                "check_cpu_seconds_median": round(statistics.median(check_cpu), 3),
                "cli_seconds_median": round(statistics.median(clis), 3),
                "cli_cpu_seconds_median": round(statistics.median(cli_cpu), 3),
            }
        )
    )


if __name__ == "__main__":
    main()
