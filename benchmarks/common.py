"""Shared pieces of the benchmarks: homes, games, order mail, timing, JSON output.

Benchmarks are scripts, not tests: each prints one JSON document and compares
figures measured in the same run as ratios (never against fixed thresholds).
"""

from __future__ import annotations

import json
import mailbox
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from pbem.home.app import Home

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

MODERATOR = "moderator@bench.test"
PLAYERS = ["Alice", "Bob", "Carol"]
MORE_PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"]  # up to six seats per game (habsburg seats 3-6)
PASSWORD = "bench-password"
KIND = "habsburg"


def player_address(player: str) -> str:
    return f"{player.lower()}@bench.test"


def code(player: str) -> str:
    return f"{player[:4].upper():X<4}-2222"


def make_home(directory: Path, database_url: str | None = None, extra: str = "") -> object:
    """A moderator home (SQLite by default), replies uncapped so that benchmarks measure work, not the cap."""
    from pbem.cli.support import init_home
    from pbem.home import config as config_mod

    path = init_home(directory, address=MODERATOR, name="Bench Moderator")
    text = path.read_text()
    if database_url:
        text = (
            "\n".join(
                f'url = "{database_url}"' if ln.strip().startswith('url = "sqlite') else ln for ln in text.splitlines()
            )
            + "\n"
        )
    text = (
        text.replace("[games]\n", "[games]\nreplies_per_hour = 1000000\n", 1)
        if "replies_per_hour" not in text
        else "\n".join(
            "replies_per_hour = 1000000" if ln.strip().startswith("replies_per_hour") else ln
            for ln in text.splitlines()
        )
        + "\n"
    )
    path.write_text(text + extra)
    cfg = config_mod.load(path)
    assert cfg.replies_per_hour >= 1000000, "could not lift the reply cap in pbem.toml"
    return cfg


def create_games(
    cfg, games: int, prefix: str = "g", when: datetime | None = None, players: list[str] | None = None
) -> list[str]:
    from pbem.app import games as games_app

    when = when or datetime.now(UTC)
    names = []
    players = players or PLAYERS
    codes = {p: code(p) for p in players}
    for g in range(games):
        name = f"{prefix}{g}"
        games_app.create_game(
            Home.of(cfg),
            KIND,
            name,
            [(p, player_address(p)) for p in players],
            seed=f"bench-{name}",
            clock=lambda: when,
            codes=codes,
        )
        names.append(name)
    return names


def order_mails(
    names: list[str],
    messages: int,
    prefix_seed: str = "bench",
    players: list[str] | None = None,
    distinct_seats: bool = False,
) -> list[bytes]:
    """`messages` order emails spread evenly over the games, each a legal order at its turn (in list order).

    `distinct_seats`: no seat (game, player) sends twice; a game whose player to move has already
    sent is passed over for the next one."""
    from email.message import EmailMessage

    from pbem import engine as registry
    from pbem.engine.bots import choose
    from pbem.engine.rng import Rng, init_state

    eng = registry.get(KIND)
    states = {n: eng.setup(list(players or PLAYERS), f"bench-{n}", {})[0] for n in names}
    rngs = {n: Rng(init_state(f"{prefix_seed}-{n}")) for n in names}
    out = []
    used: set[tuple[str, str]] = set()
    for i in range(messages):
        for k in range(len(names)):
            name = names[(i + k) % len(names)]
            state = states[name]
            if eng.result(state) is not None:
                raise SystemExit(f"game {name} ended before {messages} messages: use more games")
            req = next(r for r in eng.requests(state) if not r.answered)
            if not distinct_seats or (name, req.player) not in used:
                break
        else:
            raise SystemExit(f"no seat left that has not sent: use more games or players for {messages} messages")
        used.add((name, req.player))
        lines = choose(req, rngs[name])
        states[name] = eng.apply(state, req.player, lines).state
        msg = EmailMessage()
        msg["From"] = f"{req.player} <{player_address(req.player)}>"
        msg["To"] = MODERATOR
        msg["Subject"] = f"Re: [pbem {name}] orders"
        msg["Message-ID"] = f"<{prefix_seed}.{i}.{name}@players.bench.test>"
        msg["Date"] = "Mon, 05 Jan 2026 12:00:00 +0000"
        msg.set_content(f"CODE {code(req.player)}\n" + "\n".join(lines) + "\n\n-- \nbenchmark bot\n")
        out.append(msg.as_bytes())
    return out


def fill_maildir(cfg, mails) -> None:
    md = mailbox.Maildir(str(cfg.maildir_path / "inbox"), factory=None, create=True)
    base = time.time_ns() - 10**6 * 1000
    for i, raw in enumerate(mails):
        key = md.add(raw)
        p = cfg.maildir_path / "inbox" / "new" / key
        os.utime(p, ns=(base + i * 1000, base + i * 1000))  # a strict fetch order


def parse_timings(line: str) -> dict[str, float]:
    """`timings: total 3.45 s, handling 2.55 s, ...` (from `pbem poll --timings`) as a dict."""
    out = {}
    for part in line.removeprefix("timings:").split(","):
        name, _, value = part.strip().rpartition(" s")[0].rpartition(" ")
        if name:
            out[name.replace(" ", "_")] = float(value)
    return out


def pbem_cmd(*args: str) -> list[str]:
    _compiled()
    return [sys.executable, "-m", "pbem", *args]


_COMPILED: list[bool] = []


def _compiled() -> None:
    """pbem's modules as pip installs them: with their bytecode written (pip compiles a wheel's modules at
    install).  A checkout run under PYTHONDONTWRITEBYTECODE=1 would otherwise compile every module it imports
    in every timed `pbem` process (about 0.2 s each here), which no installed pbem does.  Done once per run."""
    if not _COMPILED:
        import compileall

        import pbem

        compileall.compile_dir(str(Path(pbem.__file__).parent), quiet=2)
        _COMPILED.append(True)


def run_timed(cmd: list[str], env: dict | None = None, check: bool = True) -> tuple[float, str]:
    """Run `cmd`, timed, from the temporary directory: `python -m` puts its working directory first on the
    path, so run from a checkout it would import that checkout's pbem whatever PYTHONPATH names
    (`poll_ab.py` compares two checkouts by PYTHONPATH)."""
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
    dt = time.perf_counter() - t0
    if check and res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr[-2000:]}")
    return dt, res.stdout.strip()


def median(values: list[float]) -> float:
    return statistics.median(values)


def emit(doc: dict) -> None:
    doc.setdefault("python", sys.version.split()[0])
    doc.setdefault("cpus", os.cpu_count())
    doc.setdefault("when", datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    print(json.dumps(doc, indent=2))


def ratio(a: float, b: float) -> float:
    return round(a / b, 3) if b else float("inf")
