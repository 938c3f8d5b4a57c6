"""Poll throughput: `pbem poll` over real IMAP/SMTP vs raw imapclient + smtplib on the same mail.

    python benchmarks/poll_throughput.py [--messages 150] [--games 50] [--rounds 1] [--servers debian]
        [--populations reply,code] [--same-seat] [--connections N] [--kdf-rounds N] [--timings] [--programs]

    # the issue's full size, three rounds (issue 27):
    python benchmarks/poll_throughput.py --messages 1000 --games 300 --rounds 3

Two populations of the same orders, measured in one run (issue 27):

* reply: each order mail is a reply as mail clients send it, to the newest mail pbem sent the seat (its
  In-Reply-To and References name it), with no CODE line, the orders on top and the mail it answers quoted
  below an attribution line ("On ..., Bench Moderator <...> wrote:", every line behind "> ").  It
  authenticates by the mail it answers: no key derivation (issue 23).  Goal: at most 1.5x the baseline.
* code: the same orders as new mails with a CODE line (each pays one check of the code, on the code-check
  threads: an HMAC of microseconds for the keyed hash new codes get, docs/security.md).  Goal: at most 2.0x.

Every message comes from a different seat (games get 3 to 6 players, two more than messages per game, and a
game whose player to move has sent is passed over); `--same-seat` uses three players per game, so that a
seat sends several messages.  `--connections N` sets pbem's `[smtp] connections`.  `--kdf-rounds N` stores
the seats' codes hashed with N PBKDF2 rounds instead of the real keyed hash (`--kdf-rounds 10000`: the codes as
pbem stored them before the keyed hash, to compare with earlier figures).

For each server pair (Dovecot + Postfix by default, `tests/servers/debian-mail.sh`; `--servers pip` for
pymap + aiosmtpd), the games are created and their first reports sent once, and the home is saved.  Then for
each of `--rounds` rounds and each population in turn (alternated: pbem, its baseline, the next
population's pbem, its baseline, ...):

* pbem: the home restored, the messages put in the moderator's INBOX; one `pbem poll --timings` process
  fetches them, applies them, files them (one MOVE per batch) and sends every reply and report it queued
  (timed as a whole, interpreter start included);
* before each of the two: Postfix's queue emptied (`delivered`): it delivers after it answered, so the mail of
  the run before would otherwise be delivered on the next one's time;
* baseline: the same messages put in the INBOX again; imapclient fetches them in the same batches and moves
  each batch with one MOVE (what pbem's IMAP side does), then smtplib sends the same outgoing messages
  (pbem's own, read from its outbox) over one connection.  No game logic, no database.

Prints, per population, every round's ratio pbem/baseline, and per round: pbem's CPU over all its threads
with `cpu_floor_ratio` (that CPU divided by the cores, over the baseline: the best ratio any schedule could
reach if the mail servers cost nothing), `machine_cpu_s` (the whole machine's busy CPU during each run),
`machine_floor_ratio` (pbem's run's machine CPU, the servers' included, divided by the cores, over the
baseline: the best ratio that much work allows on this machine), `poll_thread_floor_ratio` (the CPU of
the poll's own thread, which handles every message in turn, over the baseline: the best ratio on any number
of idle cores while that thread costs what it does), and
`poll_thread_cpu_ms_per_message`: the CPU of the poll's own thread per message by stage (`cpu ...` of
`pbem poll --timings`: reading the message and the mail it answers, storing the redacted copy, loading the
game, deciding, rendering, composing, appending to the record, committing) and in all, and
`poll_thread_waiting_for_a_core_s`: how long that thread was ready to run while other processes (the mail
servers) held both cores, and `until_delivered`: each run timed until Postfix had delivered all its mail to
the players' mailboxes, with the machine's CPU until then.  Postfix delivers after it answered, so each run's
time stops before the servers' work for it does; the baseline hands its mail over faster than Postfix
delivers it, so more of its servers' work falls after its time.  The issue's ratio is the first one; this
one counts the servers' delivering for both.  `thread_cpu_ms_per_message`: every Python thread of pbem's process by name
(`threadcpu.py`: `main` holds the poll's thread and the imports, `pbem-codes` the parse ahead and the code checks,
`pbem-sender` the SMTP sending, `pbem-imap` the reader), and `baseline_client_cpu_ms_per_message` the baseline
client's own CPU fetching and sending the same mail: what pbem's IO threads cost beyond a bare client.  `--timings` adds
pbem's whole timing line (its wall-clock steps, the sender threads, the code derivations); `--programs` adds,
under `until_delivered`, the CPU each program used in each run until its mail was delivered (`programs.py`:
`python` is pbem's process or the baseline's, `lmtp` Dovecot delivering to the players' mailboxes, `cleanup`,
`smtpd`, `qmgr` Postfix, `imap` Dovecot's IMAP).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import shutil
import smtplib
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import common
from programs import ProgramCpu

BATCH = 50  # pbem's ImapInbox batch
GOALS = {"reply": 1.5, "code": 2.0}  # issue 27


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
    """Store every seat's code hashed with `rounds` PBKDF2 rounds instead of the real keyed hash (each stored hash
    names its form and rounds, so the poll checks with them): what the poll cost with the codes stored before."""
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


def clear_filed(servers) -> None:
    """The mail earlier rounds' polls filed, taken out of the moderator's processed and rejected folders: each round
    starts from the saved home, a restored one, and a poll refuses a record older than the mail the server's folders
    hold (`pbem.app.witness`), as it must for a moderator's restored backup."""
    with servers.imap(common.MODERATOR) as client:
        client._imap.sock.settimeout(600)
        for folder in ("pbem/processed", "pbem/rejected"):
            if client.folder_exists(folder):
                client.select_folder(folder)
                uids = client.search(["ALL"])
                if uids:
                    client.delete_messages(uids)
                    client.expunge()


def baseline(servers, outgoing: list[tuple[str, bytes]], move: bool, cpu: dict[str, float] | None = None) -> float:
    """The raw client's run: its wall time; `cpu` gets its own CPU (this thread's) fetching and sending."""
    import imapclient

    t0, c0 = time.perf_counter(), time.thread_time()
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
    c1 = time.thread_time()
    smtp = smtplib.SMTP(servers.smtp_host, servers.smtp_port, timeout=30)
    smtp.login(common.MODERATOR, common.PASSWORD) if smtp.has_extn("auth") else None
    for to, raw in outgoing:
        smtp.sendmail(common.MODERATOR, [to], re.sub(rb"\r?\n", b"\r\n", raw))  # SMTP wants CRLF, as pbem sends
    smtp.quit()
    if cpu is not None:
        cpu.update(fetching=c1 - c0, sending=time.thread_time() - c1)
    return time.perf_counter() - t0


def mail_bytes() -> Any:
    """The column of an outbox mail's bytes: `outbox_mail.raw` (migration 0022), or `outbox.raw` in a checkout
    before it (`instructions.py --against` builds an older checkout's home with these helpers)."""
    from pbem.record import models

    table = getattr(models, "OutboxMail", models.OutboxMessage)
    return table.raw


def with_bytes(query: Any) -> Any:
    """`query` joined to the outbox mails' bytes where they have a table of their own (`mail_bytes`)."""
    from pbem.record import models

    mail = getattr(models, "OutboxMail", None)
    return query if mail is None else query.join_from(models.OutboxMessage, mail, mail.id == models.OutboxMessage.id)


def last_sent(cfg) -> dict[tuple[str, str], tuple[str, bytes]]:
    """The newest mail pbem sent each seat (game name, player), by outbox order: its Message-ID and the bytes
    the player received (the code a game-start mail carries included)."""
    from sqlmodel import select

    from pbem.record.models import Game, OutboxMessage

    out: dict[tuple[str, str], tuple[str, bytes]] = {}
    found = rows(
        cfg,
        with_bytes(select(Game.name, OutboxMessage.player, OutboxMessage.message_id, mail_bytes()))
        .join(Game, Game.id == OutboxMessage.game_id)  # type: ignore[arg-type]
        .order_by(OutboxMessage.id),  # type: ignore[arg-type]
    )
    for name, player, message_id, raw in found:
        if player:
            out[(name, player)] = (message_id, bytes(raw))
    return out


def quoted(raw: bytes) -> str:
    """The plain text of a mail as a mail client quotes it below a reply: an attribution line, then every line
    behind "> "."""
    import email
    from email import policy

    mail = email.message_from_bytes(raw, policy=policy.default)
    body = mail.get_body(preferencelist=("plain",))
    text = str(body.get_content()) if body is not None else ""
    who = mail["From"] or common.MODERATOR
    lines = [(f"> {ln}" if ln else ">") for ln in text.rstrip("\n").splitlines()]
    return f"On Mon, 5 Jan 2026 at 11:00, {who} wrote:\n" + "\n".join(lines) + "\n"


def as_replies(mails: list[bytes], answered: dict[tuple[str, str], tuple[str, bytes]]) -> list[bytes]:
    """The same orders as players send them: a reply to the newest mail pbem sent their seat (In-Reply-To and
    References name it; no CODE line), orders on top, then the signature and the quoted mail, as Gmail,
    Apple Mail and Thunderbird (top-posting) lay a reply out."""
    import email
    from email import policy
    from email.message import EmailMessage

    out = []
    for raw in mails:
        src = email.message_from_bytes(raw, policy=policy.default)
        name = re.search(r"\[pbem ([^\]]+)\]", str(src["Subject"])).group(1)  # type: ignore[union-attr]
        player = str(src["From"]).split(" <", 1)[0]
        message_id, sent = answered[(name, player)]
        body = str(src.get_content())
        lines = [ln for ln in body.splitlines() if not ln.startswith("CODE ")]
        original = email.message_from_bytes(sent, policy=policy.default)
        msg = EmailMessage()
        for h in ("From", "To", "Message-ID", "Date"):
            msg[h] = src[h]
        msg["Subject"] = "Re: " + re.sub(r"^(Re: )+", "", str(original["Subject"] or src["Subject"]))
        msg["In-Reply-To"] = message_id
        msg["References"] = message_id
        msg.set_content("\n".join(lines).rstrip("\n") + "\n\n" + quoted(sent))
        out.append(msg.as_bytes())
    return out


def checkpoint(cfg) -> None:
    """SQLite's WAL written into the database file, so that a copy of the home is whole."""
    from sqlalchemy import create_engine

    eng = create_engine(cfg.database_url)
    with eng.connect() as c:
        c.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    eng.dispose()


def restore(saved: Path, home: Path) -> None:
    """The home as `saved` holds it (this process reads the record through `rows`, never a pooled connection)."""
    shutil.rmtree(home)
    shutil.copytree(saved, home)


def rows(cfg, statement) -> list:
    """The rows of one statement, on a connection opened for it: the file may be replaced between calls."""
    from sqlalchemy import create_engine

    eng = create_engine(cfg.database_url)
    try:
        with eng.connect() as c:
            return list(c.execute(statement).all())
    finally:
        eng.dispose()


def timed_poll(cfg, env: dict, messages: int, tmp: Path) -> dict:
    """One `pbem poll --timings` of the INBOX as it is: its wall time, every thread's CPU, the machine's; each
    Python thread's CPU by name (`threadcpu.py`, two `thread_time` calls a thread)."""
    threads_out = tmp / "threadcpu.json"
    cmd = common.pbem_cmd("poll", "--timings")
    cmd[1:1] = [str(Path(__file__).resolve().parent / "threadcpu.py"), str(threads_out)]
    cpu0, busy0 = resource.getrusage(resource.RUSAGE_CHILDREN), machine_busy()
    pbem_s, out_text = common.run_timed(cmd, env)
    cpu1, busy = resource.getrusage(resource.RUSAGE_CHILDREN), machine_busy() - busy0
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)  # all its threads
    line, _, timing = out_text.partition("\n")
    assert f"read {messages} messages: {messages} accepted" in line, line
    threads = json.loads(threads_out.read_text())["threads"]
    return {"s": pbem_s, "cpu": cpu, "busy": busy, "line": line, "timing": timing, "threads": threads}


def outgoing(cfg, before: set[int]) -> list[tuple[str, bytes]]:
    """What the poll sent (every outbox row not in `before`), all of it sent."""
    from sqlmodel import select

    from pbem.record.models import OutboxMessage

    found = rows(cfg, with_bytes(select(OutboxMessage.id, OutboxMessage.status, OutboxMessage.to_addr, mail_bytes())))
    assert all(status == "sent" for _, status, _, _ in found), "a mail was left unsent"
    return [(to, bytes(raw)) for i, _, to, raw in sorted(found, key=lambda r: r[0]) if i not in before]


def per_message_ms(timings: dict[str, float], messages: int) -> dict[str, float]:
    """pbem's CPU on the poll's thread per message by stage (`cpu_*` of `pbem poll --timings`), in ms."""
    out = {k.removeprefix("cpu_"): round(1000 * v / messages, 2) for k, v in timings.items() if k.startswith("cpu_")}
    if "poll_thread_cpu" in timings:  # the whole of the poll's thread: the stages and the rest (fetch, filing, ...)
        out["poll_thread_total"] = round(1000 * timings["poll_thread_cpu"] / messages, 2)
    return out


def one_pair(kind: str, factory, tmp: Path, messages: int, games: int, args) -> dict:
    from sqlmodel import select

    from pbem.record.models import OutboxMessage

    with contextlib.ExitStack() as stack:
        servers = stack.enter_context(factory(tmp / f"{kind}-servers", users()))
        home = tmp / f"{kind}-home"
        cfg = common.make_home(home)
        wire(cfg, servers, args.connections)
        env = dict(os.environ, PBEM_CONFIG=str(cfg.path), PBEM_BENCH_PASSWORD=common.PASSWORD)
        players = players_per_game(messages, games, args.same_seat)
        names = common.create_games(cfg, games, players=players)
        if args.kdf_rounds:
            rehash_codes(cfg, args.kdf_rounds)
        common.run_timed(common.pbem_cmd("poll"), env)  # first reports out of the way (untimed)
        before = {i for (i,) in rows(cfg, select(OutboxMessage.id))}
        with_code = common.order_mails(names, messages, players=players, distinct_seats=not args.same_seat)
        populations = {"reply": as_replies(with_code, last_sent(cfg)), "code": with_code}
        populations = {p: populations[p] for p in args.populations.split(",")}
        checkpoint(cfg)
        saved = tmp / f"{kind}-home.saved"
        shutil.copytree(home, saved)  # every timed poll starts from this record
        runs: dict[str, list[dict]] = {p: [] for p in populations}
        windows: list[tuple[float, float]] = []  # each run until its mail was delivered, pbem's then the baseline's
        programs = ProgramCpu(tmp / f"{kind}-programs.jsonl") if args.programs else None
        if programs is not None:
            stack.enter_context(programs)  # stopped when the servers are
        for r in range(args.rounds):
            for pop, mails in populations.items():  # alternated: pbem, its baseline, the other population's ...
                restore(saved, home)
                drained = servers.delivered()  # the last run's mail delivered, not on this one's time
                clear_players(servers)
                clear_filed(servers)
                deliver_all(servers, mails)
                t0 = time.time()
                got = timed_poll(cfg, env, messages, tmp)
                busy0 = machine_busy()
                tail = servers.delivered()  # the servers' work pbem's time left for later: its mail delivered
                tail_busy = machine_busy() - busy0
                windows.append((t0, time.time()))
                out = outgoing(cfg, before)
                drained += tail
                clear_players(servers)
                deliver_all(servers, mails)
                busy0, t0 = machine_busy(), time.time()
                base_cpu: dict[str, float] = {}
                base_s = baseline(servers, out, move=True, cpu=base_cpu)
                base_busy = machine_busy() - busy0
                base_tail = servers.delivered()  # and the baseline's: at its pace, part of its mail waits here
                base_tail_busy = machine_busy() - busy0 - base_busy
                windows.append((t0, time.time()))
                timings = common.parse_timings(got["timing"])
                run = {
                    "pbem_poll_s": round(got["s"], 2),
                    "baseline_s": round(base_s, 2),
                    "ratio": common.ratio(got["s"], base_s),
                    "outgoing_messages": len(out),
                    "pbem_messages_per_second": round(messages / got["s"], 1),
                    # pbem's own CPU time (every thread: handling, key derivations, sending), and the ratio it
                    # would reach if that CPU were spread perfectly over every core and the mail servers cost
                    # nothing: no poll on this machine can do better than `cpu_floor_ratio`.
                    "pbem_cpu_s": round(got["cpu"], 2),
                    "cpu_floor_ratio": common.ratio(got["cpu"] / (os.cpu_count() or 1), base_s),
                    # the whole machine's busy CPU during pbem's run (pbem and the mail servers it kept busy) spread
                    # perfectly over the cores, over the baseline: the best ratio this much work allows
                    "machine_floor_ratio": common.ratio(got["busy"] / (os.cpu_count() or 1), base_s),
                    # the whole machine's busy CPU time while each ran (pbem or the baseline, the servers, the rest)
                    "machine_cpu_s": {"pbem": round(got["busy"], 2), "baseline": round(base_busy, 2)},
                    "poll_thread_cpu_ms_per_message": per_message_ms(timings, messages),
                    # every Python thread of pbem's process by name (`threadcpu.py`), and the baseline client's own
                    # CPU fetching and sending the same mail: what pbem's IO threads cost beyond a bare client
                    "thread_cpu_ms_per_message": {k: round(1000 * v / messages, 2) for k, v in got["threads"].items()},
                    "baseline_client_cpu_ms_per_message": {
                        k: round(1000 * v / messages, 2) for k, v in base_cpu.items()
                    },
                    # one thread handles every message in turn, so its CPU alone, on however many idle cores,
                    # over the baseline: a bound no schedule beats without a cheaper or a split poll thread
                    "poll_thread_floor_ratio": (
                        common.ratio(timings["poll_thread_cpu"], base_s) if "poll_thread_cpu" in timings else None
                    ),
                    # the poll's thread runnable but every core taken (the mail servers, pbem's sender): with its
                    # CPU, this is most of pbem's wall time (Linux's schedstat; 0 where there is none)
                    "poll_thread_waiting_for_a_core_s": round(timings.get("poll_thread_waiting_for_a_core", 0.0), 2),
                    # each run timed until Postfix had delivered every mail it sent (the players have their mail),
                    # and the machine's CPU until then: the servers' delivery work counted for both, where the
                    # ratio above counts it only while each run lasts (the baseline hands its mail over faster
                    # than Postfix delivers it, so more of its delivering falls after its time)
                    "until_delivered": {
                        "pbem_s": round(got["s"] + tail, 2),
                        "baseline_s": round(base_s + base_tail, 2),
                        "ratio": common.ratio(got["s"] + tail, base_s + base_tail),
                        "machine_cpu_s": {
                            "pbem": round(got["busy"] + tail_busy, 2),
                            "baseline": round(base_busy + base_tail_busy, 2),
                        },
                    },
                    "summary": got["line"],
                    "waited_for_deliveries_s": round(drained, 2),  # untimed: Postfix's queue emptied before each
                }
                if args.timings:
                    run["pbem_timings_s"] = timings
                runs[pop].append(run)
                print(
                    f"{kind} {pop} round {r + 1}: pbem {got['s']:.2f} s, baseline {base_s:.2f} s,"
                    f" ratio {run['ratio']}; {got['timing']}",
                    file=sys.stderr,
                    flush=True,
                )
        if programs is not None:  # the runs in the order they were timed: pbem's, then its baseline, per run
            used = iter(programs.between(windows))
            for r in range(args.rounds):
                for pop in populations:
                    runs[pop][r]["until_delivered"]["programs_cpu_s"] = {"pbem": next(used), "baseline": next(used)}
        doc: dict = {"players_per_game": len(players), **seats_used(with_code)}
        for pop, rs in runs.items():
            doc[pop] = {
                "goal": GOALS[pop],
                "ratios": [x["ratio"] for x in rs],
                "poll_thread_cpu_ms_per_message": rs[-1]["poll_thread_cpu_ms_per_message"],
                "runs": rs,
            }
        return doc


def main() -> None:
    from tests.servers.testservers import Unavailable, debian_mail_servers, debian_unavailable, pip_mail_servers

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=150, help="order mails a poll reads (full size: 1000)")
    ap.add_argument("--games", type=int, default=50, help="games they go to (full size: 300)")
    ap.add_argument("--servers", default="debian", help="pip, debian or both (pip,debian)")
    ap.add_argument("--rounds", type=int, default=1, help="pbem and baseline alternated this many times")
    ap.add_argument("--populations", default="reply,code", help="reply (no code, answering a report), code")
    ap.add_argument("--same-seat", action="store_true", help="three seats a game: seats send several messages")
    ap.add_argument("--connections", type=int, default=1, help="pbem's [smtp] connections")
    ap.add_argument("--timings", action="store_true", help="where pbem's time went (pbem poll --timings)")
    ap.add_argument("--programs", action="store_true", help="which programs used the machine's CPU in each run")
    ap.add_argument(
        "--kdf-rounds",
        type=int,
        default=0,
        help="store the codes hashed with this many PBKDF2 rounds (default: the real keyed hash)",
    )
    args = ap.parse_args()
    doc = {
        "benchmark": "poll_throughput",
        "messages": args.messages,
        "games": args.games,
        "same_seat": args.same_seat,
        "connections": args.connections,
        "kdf_rounds": args.kdf_rounds or None,
        "rounds": args.rounds,
        "goals": GOALS,
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
