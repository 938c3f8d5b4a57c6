"""Strangers cost what junk costs: a poll of strangers' mails naming a running game vs mails naming no game.

    python benchmarks/strangers.py [--mails 10000] [--rounds 1] [--stranger-answers-per-day 1]

Each round builds two fresh homes with the same running game, fills one inbox
with --mails mails from distinct addresses that are no player's, naming the
game, and the other with the same mails naming no game (in both, half carry
a player's real code, as a thief would); then runs
`pbem poll` on each as a subprocess, alternating which goes first.  A
stranger's mail costs no key derivation and does not load the game (issue
12), so the two polls should cost the same: goal ratio <= 1.1.  Printed: both
times (medians over rounds), their ratio, and the peak RSS of each poll
(`os.wait4` of the subprocess).  The mails are written straight into the
Maildir (no email package), so building 10,000 takes a second.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

import common

from pbem.home.app import Home

GAME = "g0"


def mail(i: int, named: bool, stolen: str) -> bytes:
    """One stranger's mail, as plain bytes."""
    subject = f"Re: [pbem {GAME}] orders" if named else "cheap watches"
    body = f"CODE {stolen}\nNO EVENT\n" if i % 2 == 0 else "Buy now http://spam.test/\n"  # the same in both polls
    return (
        f"From: Stranger {i} <s{i}@junk{i % 97}.test>\r\nTo: {common.MODERATOR}\r\nSubject: {subject}\r\n"
        f"Message-ID: <junk.{i}.{int(named)}@junk.test>\r\nDate: Mon, 05 Jan 2026 12:00:00 +0000\r\n"
        f"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}"
    ).encode()


def fill(cfg, mails: int, named: bool) -> None:
    """Write the mails straight into inbox/new, named so that they are fetched in order."""
    new = cfg.maildir_path / "inbox" / "new"
    for sub in ("new", "cur", "tmp"):
        (cfg.maildir_path / "inbox" / sub).mkdir(parents=True, exist_ok=True)
    stolen = common.code("Bob")
    stamp = int(time.time())
    for i in range(mails):
        (new / f"{stamp}.{i:07d}.bench").write_bytes(mail(i, named, stolen))


def home(root: Path, label: str, mails: int, named: bool, per_day: int):
    cfg = common.make_home(root / label)
    text = cfg.path.read_text()
    key = f"stranger_answers_per_day = {per_day}\n"
    cfg.path.write_text(
        text.replace("[mail]\n", "[mail]\n" + key, 1) if "[mail]\n" in text else text + "[mail]\n" + key
    )
    from pbem.app import games

    players = [(p, common.player_address(p)) for p in common.PLAYERS]
    codes = {p: common.code(p) for p in common.PLAYERS}
    games.create_game(Home.of(cfg), common.KIND, GAME, players, seed="bench-strangers", codes=codes)
    fill(cfg, mails, named)
    return cfg


def polled(cfg) -> tuple[float, float, str]:
    """(seconds, peak RSS in MiB, summary line) of one `pbem poll` subprocess (rusage from os.wait4)."""
    cmd = common.pbem_cmd("--config", str(cfg.path), "poll")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        dt = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(f"pbem poll failed ({proc.returncode}): {err.read().decode()[-2000:]}")
        lines = out.read().decode().strip().splitlines()
    return dt, usage.ru_maxrss / 1024, lines[-1] if lines else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mails", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--stranger-answers-per-day", type=int, default=1, help="[mail] key in both homes")
    args = ap.parse_args()
    times: dict[str, list[float]] = {"named_game": [], "no_game": []}
    rss: dict[str, list[float]] = {"named_game": [], "no_game": []}
    summaries: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="pbem-strangers-") as tmp:
        for r in range(args.rounds):
            homes = {
                label: home(
                    Path(tmp) / f"r{r}", label, args.mails, label == "named_game", args.stranger_answers_per_day
                )
                for label in ("named_game", "no_game")
            }
            order = ["named_game", "no_game"] if r % 2 == 0 else ["no_game", "named_game"]
            for label in order:
                dt, peak, line = polled(homes[label])
                times[label].append(dt)
                rss[label].append(peak)
                summaries[label] = line
    named, none = common.median(times["named_game"]), common.median(times["no_game"])
    common.emit(
        {
            "benchmark": "strangers",
            "mails_per_poll": args.mails,
            "rounds": args.rounds,
            "stranger_answers_per_day": args.stranger_answers_per_day,
            "named_game_s": round(named, 2),
            "no_game_s": round(none, 2),
            "ratio": common.ratio(named, none),
            "goal": "ratio <= 1.1",
            "peak_rss_mib": {k: round(max(v), 1) for k, v in rss.items()},
            "per_mail_ms": {
                "named_game": round(1000 * named / args.mails, 3),
                "no_game": round(1000 * none / args.mails, 3),
            },
            "summaries": summaries,
        }
    )


if __name__ == "__main__":
    main()
