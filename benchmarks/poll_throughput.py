"""Poll throughput: `pbem poll` over real IMAP/SMTP vs raw imapclient + smtplib on the same mail.

    python benchmarks/poll_throughput.py [--messages 1000] [--games 300] [--servers pip,debian]
        [--same-seat] [--connections N] [--timings]

Every message comes from a different seat (games get 3 to 6 players, two more than
messages per game, and a game whose player to move has sent is passed over), so each
pays its code check; `--same-seat` uses three players
per game, so that a seat sends several messages and its check is paid once.
`--connections N` sets pbem's `[smtp] connections`.  `--kdf-rounds N` stores the seats'
codes hashed with N PBKDF2 rounds instead of the real 60,000, to show what the
rest of the poll costs (a figure for analysis, not the goal's).

For each server pair (pymap + aiosmtpd always; Dovecot + Postfix when installed and
running as root), in one run:

* pbem: --messages order emails across --games games are put in the moderator's
  INBOX; one `pbem poll` process fetches them, applies them, files them (one MOVE per batch) in the
  processed folder and sends every reply and report it queued (timed as a whole,
  interpreter start included).
* baseline: the same messages put in the INBOX again; imapclient fetches them in
  the same batches and moves each batch with one MOVE (what pbem's IMAP side does), then smtplib
  sends the same number of outgoing messages (pbem's own, read from its outbox)
  over one connection.  No game logic, no database.

Prints both times and the ratio pbem/baseline (goal <= 1.5), plus the ratio against
a fetch-only baseline (no moves), for reference, and pbem's own CPU time over all
its threads with `cpu_floor_ratio`: that CPU time divided by the number of cores,
over the baseline (the best ratio any schedule could reach on this machine, if the
mail servers cost nothing), and `machine_cpu_s`: the whole machine's busy CPU time
during each run (pbem or the baseline, and the mail servers).  `--timings` adds where pbem's
time went (`pbem poll --timings`: the poll's steps, its sender threads' time on
the server and on journaling what they sent, and the folding of the journal
into the outbox; the threads overlap) and prints it on stderr.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import smtplib
import sys
import tempfile
import time
from pathlib import Path

import common

BATCH = 50  # pbem's ImapInbox batch


def users() -> dict[str, str]:
    everyone = common.MORE_PLAYERS
    return {common.MODERATOR: common.PASSWORD, **{common.player_address(p): common.PASSWORD for p in everyone}}


def wire(cfg, servers, connections: int = 1) -> None:
    extra = f"connections = {connections}\n" if connections > 1 else ""
    servers.wire_home(cfg.path, common.MODERATOR, "PBEM_BENCH_PASSWORD", smtp_extra=extra)


def players_per_game(messages: int, games: int, same_seat: bool) -> list[str]:
    """Enough seats per game that no seat sends twice (unless `same_seat`)."""
    if same_seat:
        return common.PLAYERS
    n = min(6, max(3, -(-messages // games) + 2))  # spares: a player sometimes has two requests in a row
    return common.MORE_PLAYERS[:n]


def machine_busy() -> float:
    """Seconds of CPU the whole machine has been busy (all cores, every process), from /proc/stat."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle and iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def rehash_codes(cfg, rounds: int) -> None:
    """Store every seat's code hashed with `rounds` PBKDF2 rounds instead of the real 60,000 (each stored hash
    names its rounds, so the poll checks with them): what the rest of the poll costs, without the derivations."""
    from sqlalchemy import text

    from pbem.record.db import transaction
    from pbem.trust.codes import hash_code

    with transaction(cfg.database_url) as conn:
        seats = conn.execute(text("SELECT id, player FROM seats")).all()
        conn.execute(
            text("UPDATE seats SET code_hash = :h WHERE id = :i"),
            [{"h": hash_code(common.code(player), rounds=rounds), "i": i} for i, player in seats],
        )


def seats_used(mails: list[bytes]) -> dict[str, int]:
    """How many messages came from a seat (game, sender) that had already sent one in this run."""
    import email

    seen: set[tuple[str, str]] = set()
    again = 0
    for raw in mails:
        msg = email.message_from_bytes(raw)
        seat = (msg["Subject"], msg["From"])
        again += seat in seen
        seen.add(seat)
    return {"distinct_seats": len(seen), "messages_from_a_seat_seen_before": again}


def deliver_all(servers, mails: list[bytes]) -> None:
    with servers.imap(common.MODERATOR) as client:
        common_nodelay(client)
        for raw in mails:
            client.append("INBOX", raw)


def common_nodelay(client) -> None:
    from tests.servers.testservers import _nodelay

    _nodelay(client)


def clear_players(servers) -> None:
    for p in common.MORE_PLAYERS:
        with servers.imap(common.player_address(p)) as client:
            client._imap.sock.settimeout(600)  # a slow server (pymap) needs minutes to expunge thousands of mails
            client.select_folder("INBOX")
            uids = client.search(["ALL"])
            if uids:
                client.delete_messages(uids)
                client.expunge()


def baseline(servers, outgoing: list[tuple[str, bytes]], move: bool) -> float:
    import imapclient

    t0 = time.perf_counter()
    client = imapclient.IMAPClient(servers.imap_host, servers.imap_port, ssl=False, timeout=30)
    client.login(common.MODERATOR, common.PASSWORD)
    client.select_folder("INBOX")
    if move and not client.folder_exists("baseline"):
        client.create_folder("baseline")
    uids = sorted(client.search(["NOT", "DELETED"]))
    fetched = 0
    for start in range(0, len(uids), BATCH):
        chunk = uids[start : start + BATCH]
        data = client.fetch(chunk, ["BODY.PEEK[]"])
        for uid in chunk:
            fetched += len(data[uid][b"BODY[]"])
        if move:
            client.move(chunk, "baseline")  # pbem files each batch with one MOVE
    client.logout()
    smtp = smtplib.SMTP(servers.smtp_host, servers.smtp_port, timeout=30)
    smtp.login(common.MODERATOR, common.PASSWORD) if smtp.has_extn("auth") else None
    for to, raw in outgoing:
        smtp.sendmail(common.MODERATOR, [to], re.sub(rb"\r?\n", b"\r\n", raw))  # SMTP wants CRLF, as pbem sends
    smtp.quit()
    return time.perf_counter() - t0


def one_pair(kind: str, factory, tmp: Path, messages: int, games: int, args) -> dict:
    from sqlmodel import select

    from pbem.record.db import session
    from pbem.record.models import OutboxMessage

    with factory(tmp / f"{kind}-servers", users()) as servers:
        cfg = common.make_home(tmp / f"{kind}-home")
        wire(cfg, servers, args.connections)
        env = dict(os.environ, PBEM_CONFIG=str(cfg.path), PBEM_BENCH_PASSWORD=common.PASSWORD)
        players = players_per_game(messages, games, args.same_seat)
        names = common.create_games(cfg, games, players=players)
        if args.kdf_rounds:
            rehash_codes(cfg, args.kdf_rounds)
        common.run_timed(common.pbem_cmd("poll"), env)  # first reports out of the way (untimed)
        with session(cfg.database_url) as s:
            before = {m.id for m in s.exec(select(OutboxMessage)).all()}
        mails = common.order_mails(names, messages, players=players, distinct_seats=not args.same_seat)
        clear_players(servers)
        deliver_all(servers, mails)
        cpu0, busy0 = resource.getrusage(resource.RUSAGE_CHILDREN), machine_busy()
        pbem_s, out_text = common.run_timed(common.pbem_cmd("poll", "--timings"), env)
        cpu1, pbem_busy = resource.getrusage(resource.RUSAGE_CHILDREN), machine_busy() - busy0
        pbem_cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)  # all its threads
        line, _, timing = out_text.partition("\n")
        assert f"read {messages} messages: {messages} accepted" in line, line
        with session(cfg.database_url) as s:
            out = [
                (m.to_addr, m.raw)
                for m in s.exec(select(OutboxMessage).order_by(OutboxMessage.id)).all()
                if m.id not in before
            ]
            assert all(m.status == "sent" for m in s.exec(select(OutboxMessage)).all())
        clear_players(servers)
        deliver_all(servers, mails)
        busy0 = machine_busy()
        base_s = baseline(servers, out, move=True)
        base_busy = machine_busy() - busy0
        print(f"{kind}: pbem {pbem_s:.2f} s, baseline {base_s:.2f} s", file=sys.stderr, flush=True)
        clear_players(servers)
        deliver_all(servers, mails)
        fetch_only_s = baseline(servers, out, move=False)
        out_doc = {
            "players_per_game": len(players),
            **seats_used(mails),
            "pbem_poll_s": round(pbem_s, 2),
            "baseline_s": round(base_s, 2),
            "baseline_fetch_only_s": round(fetch_only_s, 2),
            "outgoing_messages": len(out),
            "ratio": common.ratio(pbem_s, base_s),
            "ratio_vs_fetch_only": common.ratio(pbem_s, fetch_only_s),
            "pbem_messages_per_second": round(messages / pbem_s, 1),
            # pbem's own CPU time (every thread: handling, key derivations, sending), and the ratio it would
            # reach if that CPU were spread perfectly over every core and the mail servers cost nothing:
            # no poll on this machine can do better than `cpu_floor_ratio`.
            "pbem_cpu_s": round(pbem_cpu, 2),
            "cpu_floor_ratio": common.ratio(pbem_cpu / (os.cpu_count() or 1), base_s),
            # the whole machine's busy CPU time while each ran (pbem or the baseline, the mail servers, the rest)
            "machine_cpu_s": {"pbem": round(pbem_busy, 2), "baseline": round(base_busy, 2)},
            "summary": line,
        }
        if args.timings:
            out_doc["pbem_timings_s"] = common.parse_timings(timing)
            out_doc["pbem_over_baseline_s"] = round(pbem_s - base_s, 2)
            print(f"{kind}: pbem - baseline = {pbem_s - base_s:.2f} s; {timing}", file=sys.stderr, flush=True)
        return out_doc


def main() -> None:
    from tests.servers.testservers import Unavailable, debian_mail_servers, debian_unavailable, pip_mail_servers

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--servers", default="pip,debian")
    ap.add_argument("--same-seat", action="store_true", help="three seats a game: seats send several messages")
    ap.add_argument("--connections", type=int, default=1, help="pbem's [smtp] connections")
    ap.add_argument("--timings", action="store_true", help="where pbem's time went (pbem poll --timings)")
    ap.add_argument(
        "--kdf-rounds",
        type=int,
        default=0,
        help="store the codes hashed with this many rounds (default: the real 60,000)",
    )
    args = ap.parse_args()
    doc = {
        "benchmark": "poll_throughput",
        "messages": args.messages,
        "games": args.games,
        "same_seat": args.same_seat,
        "connections": args.connections,
        "kdf_rounds": args.kdf_rounds or None,
        "goal": 1.5,
        "servers": {},
    }
    with tempfile.TemporaryDirectory(prefix="pbem-tp-") as tmp:
        for kind in args.servers.split(","):
            factory = pip_mail_servers if kind == "pip" else debian_mail_servers
            if kind == "debian" and debian_unavailable():
                doc["servers"][kind] = {"skipped": debian_unavailable()}
                continue
            try:
                doc["servers"][kind] = one_pair(kind, factory, Path(tmp), args.messages, args.games, args)
            except Unavailable as exc:
                doc["servers"][kind] = {"skipped": str(exc)}
    common.emit(doc)


if __name__ == "__main__":
    main()
