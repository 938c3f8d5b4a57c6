"""A/B of two checkouts of pbem on the same replies over real IMAP/SMTP: which code polls faster.

    python benchmarks/poll_ab.py OLD_CHECKOUT NEW_CHECKOUT [--messages 400] [--games 150] [--rounds 3]
        [--imap-delay MS]

The games are created and their first reports sent once (Dovecot + Postfix, `tests/servers/debian-mail.sh`),
the replies built as `poll_throughput.py` builds them, and the home saved.  Then, alternated for `--rounds`
rounds, one `pbem poll --timings` of each checkout (its directory first on PYTHONPATH) on the home restored
and the same replies put in the INBOX again, once Postfix has delivered the mail of the run before (it
answers before it delivers); the order alternates from round to round (old, new, new, old, ...).  Prints JSON: per checkout, every round's wall time, the
poll's handling, fetching and filing steps, the poll thread's CPU, the sender thread's CPU, and the CPU of the whole process.
Alternating cancels most of a busy machine's drift; compare the checkouts within one run.  Both checkouts
must read the same record schema (the home is made by this checkout's code).  `--imap-delay MS` puts pbem's
IMAP connection behind a proxy that delays every answer by MS (`latency.py`): a server across a network.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import common
import poll_throughput as tp
from latency import DelayedServer


def main() -> None:
    from tests.servers.testservers import debian_mail_servers, debian_unavailable

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", help="a checkout of pbem (the directory that holds pbem/)")
    ap.add_argument("new", help="another checkout")
    ap.add_argument("--messages", type=int, default=400)
    ap.add_argument("--games", type=int, default=150)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--imap-delay", type=float, default=0.0, help="ms each IMAP answer is delayed (a remote server)")
    args = ap.parse_args()
    if debian_unavailable():
        common.emit({"benchmark": "poll_ab", "skipped": debian_unavailable()})
        return
    checkouts = {"old": str(Path(args.old).resolve()), "new": str(Path(args.new).resolve())}
    results: dict[str, list[dict[str, float]]] = {k: [] for k in checkouts}
    with tempfile.TemporaryDirectory(prefix="pbem-ab-") as tmp_name:
        tmp = Path(tmp_name)
        with (
            debian_mail_servers(tmp / "servers", tp.users()) as servers,
            DelayedServer(servers.imap_host, servers.imap_port, args.imap_delay / 1000) as remote,
        ):
            home = tmp / "home"
            cfg = common.make_home(home)
            tp.wire(cfg, servers)
            if args.imap_delay:  # pbem's IMAP goes through the proxy (the set-up, the baseline: straight)
                text = cfg.path.read_text().replace(f"port = {servers.imap_port}\n", f"port = {remote.port}\n", 1)
                cfg.path.write_text(text)
            env = dict(os.environ, PBEM_CONFIG=str(cfg.path), PBEM_BENCH_PASSWORD=common.PASSWORD)
            players = tp.players_per_game(args.messages, args.games, False)
            names = common.create_games(cfg, args.games, players=players)
            common.run_timed(common.pbem_cmd("poll"), env)
            orders = common.order_mails(names, args.messages, players=players, distinct_seats=True)
            mails = tp.as_replies(orders, tp.last_sent(cfg))
            tp.checkpoint(cfg)
            saved = tmp / "saved"
            shutil.copytree(home, saved)
            for r in range(args.rounds):
                order = list(checkouts.items())
                for name, path in order if r % 2 == 0 else order[::-1]:  # ABBA: neither always goes second
                    tp.restore(saved, home)
                    servers.delivered()  # the last run's mail delivered, not on this one's time
                    tp.clear_players(servers)
                    tp.clear_filed(servers)
                    tp.deliver_all(servers, mails)
                    got = tp.timed_poll(cfg, dict(env, PYTHONPATH=path), args.messages)
                    t = common.parse_timings(got["timing"])
                    run = {
                        "wall_s": round(got["s"], 2),
                        "handling_s": round(t["handling"], 2),
                        "fetching_s": round(t["fetching"], 2),  # the poll's thread waiting for the inbox
                        "filing_s": round(t["filing"], 2),
                        "poll_thread_cpu_s": round(t["poll_thread_cpu"], 2),
                        "sender_cpu_s": round(t.get("sender_cpu", 0.0), 2),
                        "process_cpu_s": round(got["cpu"], 2),
                    }
                    results[name].append(run)
                    print(f"round {r + 1} {name}: {run}", file=sys.stderr, flush=True)
    doc = {
        "benchmark": "poll_ab",
        "messages": args.messages,
        "games": args.games,
        "imap_delay_ms": args.imap_delay,
        "checkouts": checkouts,
        "runs": results,
        "median_wall_s": {k: statistics.median(x["wall_s"] for x in v) for k, v in results.items()},
    }
    doc["new_over_old"] = common.ratio(doc["median_wall_s"]["new"], doc["median_wall_s"]["old"])
    common.emit(doc)


if __name__ == "__main__":
    main()
