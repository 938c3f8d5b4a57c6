"""CPU instructions per reply: a poll's cost counted by valgrind, the same figure on a busy machine or a quiet one.

    python benchmarks/instructions.py [--messages 300] [--games 100] [--population reply|code]
                                      [--against OTHER_CHECKOUT] [--home SAVED_HOME]

The wall-clock benchmarks (`poll_throughput.py`) compare pbem with its baseline in one run, but on a shared
2-core machine the same baseline takes 5 to 11 s within an hour, so a change of a tenth to pbem's own cost
is lost in the noise.  This script counts instead: `valgrind --tool=callgrind` runs one in-process poll
(`pbem.app.cron.run_poll`, the Maildir transport of the embedded defaults, SQLite) and reports the
instructions the process executed (every thread: the poll's, the sender's, the parse-ahead threads'); `--threads`
adds each thread's own count a message, by valgrind's thread number (1 the poll's thread).  The count does not depend
on what else the machine is doing: on one built home it repeats within 0.2%; homes built anew (other random
codes, Message-IDs and seeds) have counted the same checkout up to 2.5% apart, so compare checkouts within
one run (`--against`) and read a difference under about 2.5% as none.

For each checkout (this one, and `--against` another: a `git worktree add /tmp/old <commit>`), a home is
built with that checkout's code (`--games` three-to-six-player House of Habsburg games, their first reports
sent), and `--messages` order mails made as `poll_throughput.py` makes them: replies to the newest mail each
seat got, with the report quoted (`reply`), or new mails with a CODE line (`code`).  Two polls are counted,
of a third of the mails and of all of them; their difference over the difference in mails is the cost of
one mail in a running poll (the start of the process, the imports and the first renders fall out).
Prints JSON: per checkout, both counts and `instructions_per_message`; with `--against`, `new_over_old`.

`--home DIR` counts every checkout on one home saved before (`--build DIR --messages N --games G`, run with
the older checkout): the same games, codes and mails for both (homes built anew differ by up to 2.5%).  Each
checkout counts on a copy of it upgraded to its own schema first (`pbem upgrade`, not counted: a checkout with a
newer migration, such as perf29's 0022, reads its copy as a moderator's upgraded home).  Each checkout polls once
uncounted first (its templates compiled into Jinja's cache), and every count runs with one hash seed
(`PYTHONHASHSEED`, 0 unless set): a checkout's count then repeats within 0.01%.

Needs valgrind (Debian: `apt-get install valgrind`).  The full size takes about 5 minutes a checkout;
the two checkouts run side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent


def _checkouts_pbem() -> None:
    """Import pbem from PYTHONPATH (the checkout counted) before `common` puts this checkout on the path."""
    import pbem  # noqa: F401


def build(where: Path, messages: int, games: int, population: str) -> None:
    """A home with `games` games, their first reports sent, and the mails of `population`, saved in `where`."""
    _checkouts_pbem()
    import common
    import poll_throughput as tp

    cfg = common.make_home(where / "home")
    players = tp.players_per_game(messages, games, False)
    names = common.create_games(cfg, games, players=players)
    env = dict(os.environ, PBEM_CONFIG=str(cfg.path))
    common.run_timed(common.pbem_cmd("poll"), env)  # the first reports: the mails the replies answer
    orders = common.order_mails(names, messages, players=players, distinct_seats=True)
    mails = tp.as_replies(orders, tp.last_sent(cfg)) if population == "reply" else orders
    tp.checkpoint(cfg)
    (where / "mails").mkdir()
    for i, raw in enumerate(mails):
        (where / "mails" / f"{i:06d}").write_bytes(raw)


def poll(where: Path, n: int) -> None:
    """One in-process poll of the first `n` saved mails, on a copy of the saved home."""
    _checkouts_pbem()
    import common

    from pbem.app.cron import run_poll
    from pbem.home import config as config_mod

    with tempfile.TemporaryDirectory(prefix="pbem-instr-") as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(where / "home", home)
        cfg = config_mod.load(home / "pbem.toml")
        common.fill_maildir(cfg, [p.read_bytes() for p in sorted((where / "mails").iterdir())[:n]])
        run = run_poll(cfg)
        assert run.summary is not None and run.summary.accepted == n, run.summary or run.skipped


def counted(checkout: Path, where: Path, n: int, threads: bool = False) -> tuple[int, dict[str, int]]:
    """Instructions of `poll(where, n)` run with `checkout`'s pbem, as callgrind counts them (every thread's); with
    `threads`, each thread's own count too, by valgrind's thread number (1 the poll's thread; the others in the order
    they started: the same in every poll of one home, so two polls' counts of one number compare)."""
    with tempfile.TemporaryDirectory(prefix="pbem-instr-cg-") as out:
        cmd = ["valgrind", "--tool=callgrind"]
        cmd += (
            [f"--callgrind-out-file={out}/cg", "--separate-threads=yes"]
            if threads
            else ["--callgrind-out-file=/dev/null"]
        )
        cmd += [sys.executable, str(HERE), "--poll", str(where), "--n", str(n)]
        res = subprocess.run(cmd, capture_output=True, text=True, env=_env(checkout), check=False)
        found = re.search(r"Collected : (\d+)", res.stderr)
        if res.returncode != 0 or found is None:
            raise SystemExit(f"valgrind run failed ({res.returncode}): {res.stderr[-2000:]}")
        each: dict[str, int] = {}
        for path in sorted(Path(out).glob("cg-*")) if threads else []:
            summary = re.search(r"^summary: (\d+)", path.read_text(errors="replace"), re.MULTILINE)
            each[path.name.rpartition("-")[2].lstrip("0") or "0"] = int(summary.group(1)) if summary else 0
    return int(found.group(1)), each


def _env(checkout: Path) -> dict[str, str]:
    """`checkout` first on the path; one hash seed for every count (Python's default is a random one a process)."""
    path = os.pathsep.join([str(checkout), str(ROOT / "benchmarks")])
    return dict(os.environ, PYTHONPATH=path, PYTHONHASHSEED=os.environ.get("PYTHONHASHSEED", "0"))


def measure(checkout: Path, root: Path, args: argparse.Namespace) -> dict[str, object]:
    import compileall

    compileall.compile_dir(str(checkout / "pbem"), quiet=2)  # as installed: no module compiled in the count
    if args.home is not None:  # one saved home for every checkout: no build's own randomness in the comparison
        where = root / checkout.name  # a copy, its schema upgraded to the checkout's (`pbem upgrade`, uncounted)
        shutil.copytree(args.home, where)
        upgrade = [sys.executable, "-m", "pbem", "--config", str(where / "home" / "pbem.toml"), "upgrade"]
        subprocess.run(upgrade, check=True, env=_env(checkout), capture_output=True, cwd=checkout)
        many = len(list((where / "mails").iterdir()))
    else:
        where = root / checkout.name
        where.mkdir()
        cmd = [sys.executable, str(HERE), "--build", str(where), "--messages", str(args.messages)]
        cmd += ["--games", str(args.games), "--population", args.population]
        subprocess.run(cmd, check=True, env=_env(checkout), capture_output=True, cwd=checkout)  # `-m pbem`: its own
        many = args.messages
    few = many // 3
    # one poll uncounted first: the first run of a checkout compiles its templates into Jinja's cache (keyed by their
    # paths), which fell in the small count alone (430 M instructions: a count 5% low a message)
    warm = [sys.executable, str(HERE), "--poll", str(where), "--n", "1"]
    subprocess.run(warm, check=True, env=_env(checkout), capture_output=True)
    (small, small_each), (large, large_each) = (counted(checkout, where, k, args.threads) for k in (few, many))
    doc: dict[str, object] = {
        "checkout": str(checkout),
        "instructions": {str(few): small, str(many): large},
        "instructions_per_message": round((large - small) / (many - few)),
    }
    if args.threads:  # each thread's share of a message (valgrind's thread numbers: 1 the poll's thread)
        doc["instructions_per_message_by_thread"] = {
            t: round((large_each[t] - small_each.get(t, 0)) / (many - few)) for t in large_each
        }
    return doc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=300)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--population", choices=["reply", "code"], default="reply")
    ap.add_argument("--against", type=Path, help="another checkout to count the same way (the old code)")
    ap.add_argument(
        "--home",
        type=Path,
        help="count every checkout on a copy of this saved home (made once by --build DIR with the older checkout), "
        "upgraded to the checkout's schema: the comparison then repeats within 0.2%%",
    )
    ap.add_argument(
        "--threads",
        action="store_true",
        help="also count each thread on its own (callgrind --separate-threads): the poll's thread is number 1",
    )
    ap.add_argument("--build", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--poll", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.build:
        return build(args.build, args.messages, args.games, args.population)
    if args.poll:
        return poll(args.poll, args.n)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    import common

    checkouts = {"new": ROOT, **({"old": args.against.resolve()} if args.against else {})}
    with tempfile.TemporaryDirectory(prefix="pbem-instructions-") as tmp:
        roots = {}
        for name in checkouts:
            roots[name] = Path(tmp) / name
            roots[name].mkdir()
        with ThreadPoolExecutor(len(checkouts)) as pool:
            jobs = {name: pool.submit(measure, c, roots[name], args) for name, c in checkouts.items()}
            results = {name: job.result() for name, job in jobs.items()}
    doc: dict[str, object] = {
        "benchmark": "instructions",
        "messages": args.messages if args.home is None else len(list((args.home / "mails").iterdir())),
        "home": str(args.home) if args.home is not None else "built for each checkout",
        "games": args.games if args.home is None else "as built",
        "population": args.population,
        **results,
    }
    if "old" in results:
        doc["new_over_old"] = common.ratio(
            float(results["new"]["instructions_per_message"]),  # type: ignore[arg-type]
            float(results["old"]["instructions_per_message"]),  # type: ignore[arg-type]
        )
    common.emit(doc)
    print(json.dumps({k: doc[k] for k in doc if k == "new_over_old"}))


if __name__ == "__main__":
    main()
