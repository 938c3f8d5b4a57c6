"""Found by the operations testers. A clock behind the record stops the moderator's commands as it stops the poll, and a clock that was ahead can
be taken back (found by the operations testers: `game resume` with the clock five days behind the pause moved
the deadline five days into the past, and the next poll applied every default; one poll with a clock two days
ahead then refused every later poll for two days, with no way out).

The class: every command that times something from "now".  Each `pbem game ...` command that writes is run
with the record's newest time two days ahead of the clock: refused with one line, exit 3, nothing written."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.conftest import in_delivered_order
from tests.test_cli_bad_input import PLAYERS3, WRITERS, make_home, one_line, pbem

TIMED = [c for c in WRITERS if c[0] == "game"] + [["game", "resume", "g1"], ["game", "start", "g1"]]
TIMED += [["game", "undo", "g1", "--to", "1", "--why", "test"]]


def _dump(cfg: str) -> list[str]:
    """Every row of the record but the poll marks (which hold the newest time seen)."""
    with sqlite3.connect(Path(cfg).parent / "pbem.db") as conn:
        return [line for line in conn.iterdump() if "poll_marks" not in line]


def _clock_was_ahead(cfg: str, by: timedelta) -> None:
    from pbem.home.config import load
    from pbem.record.marks import reset_last_run

    reset_last_run(load(Path(cfg)).database_url, datetime.now(UTC) + by)


@pytest.mark.parametrize("cmd", TIMED, ids=[" ".join(c[:2]) for c in TIMED])
def test_a_command_timing_from_now_is_refused_when_the_clock_is_behind_the_record(
    tmp_path: Path, cmd: list[str]
) -> None:
    cfg = make_home(tmp_path, "g1")
    if cmd[1] == "resume":
        assert pbem("--config", cfg, "game", "pause", "g1").returncode == 0
    _clock_was_ahead(cfg, timedelta(days=2))
    before = _dump(cfg)
    one_line(pbem("--config", cfg, *cmd), 3, "behind the latest time this record has seen", "nothing was changed")
    assert _dump(cfg) == before, "nothing may be written"


def test_a_clock_within_the_tolerance_is_not_refused(tmp_path: Path) -> None:
    cfg = make_home(tmp_path, "g1")
    _clock_was_ahead(cfg, timedelta(minutes=2))  # an NTP correction
    assert pbem("--config", cfg, "game", "pause", "g1").returncode == 0


def test_after_a_run_whose_clock_was_ahead_the_moderator_takes_the_clock_back_once(tmp_path: Path) -> None:
    cfg = make_home(tmp_path, "g1")
    _clock_was_ahead(cfg, timedelta(days=2))
    refused = pbem("--config", cfg, "poll")
    one_line(refused, 3, "fix the machine's clock", "pbem poll --trust-clock")
    assert pbem("--config", cfg, "poll", "--trust-clock").returncode == 0
    assert pbem("--config", cfg, "poll").returncode == 0, "later polls run again"
    extended = pbem("--config", cfg, "game", "extend", "g1", "1h")
    assert extended.returncode == 0, extended.stderr


def test_a_resume_before_the_pause_is_refused_and_never_moves_a_deadline_back() -> None:
    """The pure decision: a clock that reads before the pause (the CLI check did not catch it: no poll ran
    since) is refused; one within the tolerance moves the deadline by nothing, never back."""
    from pbem.app.control import decide_resume
    from pbem.app.decision import GameError, NewDeadline
    from tests.app.plain import loaded

    g = loaded()
    paused = datetime(2027, 3, 2, 12, 0, tzinfo=UTC)
    due = datetime(2027, 3, 3, 9, 0, tzinfo=UTC)
    with pytest.raises(GameError, match="before the game was paused"):
        decide_resume(g, "paused", paused, "orders", due, paused - timedelta(hours=5))
    d = decide_resume(g, "paused", paused, "orders", due, paused - timedelta(minutes=2))
    assert [e.due_at for e in d.effects if isinstance(e, NewDeadline)] == [due]
    later = decide_resume(g, "paused", paused, "orders", due, paused + timedelta(hours=3))
    assert [e.due_at for e in later.effects if isinstance(e, NewDeadline)] == [due + timedelta(hours=3)]


def test_game_new_is_refused_too(tmp_path: Path) -> None:
    cfg = make_home(tmp_path)
    _clock_was_ahead(cfg, timedelta(hours=3))
    made = pbem("--config", cfg, "game", "new", "habsburg", "--name", "g9", "--no-join", *PLAYERS3)
    one_line(made, 3, "behind the latest time")


def test_the_moderators_notices_do_not_use_up_a_players_answers(tmp_path: Path) -> None:
    """Notices of the game moving on (a moderator's command, a deadline) answer no mail of the player's, so the
    answers budget (`replies_per_hour`) does not count them (found by the operations testers: a moderator who
    paused, extended and resumed a player's games used up 28 of their 30 answers, and the refusal of the
    player's next order never went out, with a warning that someone was sending mail in their name)."""
    from email import message_from_bytes

    from pbem.home.config import load
    from tests.conftest import deliver, order_mail

    cfg = make_home(tmp_path, "g1")
    for _ in range(40):  # 40 notices to each player within the hour, past the budget of 30
        assert pbem("--config", cfg, "game", "extend", "g1", "1m").returncode == 0
    assert pbem("--config", cfg, "poll").returncode == 0
    home = load(Path(cfg))
    deliver(home, order_mail("Ann <ann@example.test>", "g1", "PASS"))  # a new mail without her code
    assert pbem("--config", cfg, "poll").returncode == 0
    sent = [message_from_bytes(p.read_bytes()) for p in (home.maildir_path / "sent").glob("*/*")]
    to_ann = [str(m["Subject"]) for m in sent if "ann@example.test" in str(m["To"])]
    assert sum("extended" in s.lower() for s in to_ann) == 40, to_ann
    assert "Re: [pbem g1] your message: NOT applied (no player code)" in to_ann, "her refusal went out"
    assert not any("Too many messages" in s for s in to_ann), to_ann


def test_a_reply_to_mail_older_than_a_new_code_is_told_why_it_needs_the_code(tmp_path: Path) -> None:
    """A new code makes replies to earlier mail need the code (whoever held the old code may hold the old mail):
    the refusal said "reply to a mail this game sent you", which is what the player had done.  It now says the
    mail answered is older than the code and which mail to answer; a reply to the new code's mail is taken."""
    from email import message_from_bytes
    from email.message import Message

    from pbem.home.config import load
    from tests.conftest import deliver, order_mail

    cfg = make_home(tmp_path, "g1")
    home = load(Path(cfg))

    def to_ann() -> list[Message]:
        mails = [
            message_from_bytes(p.read_bytes()) for p in in_delivered_order((home.maildir_path / "sent").glob("*/*"))
        ]
        return sorted((m for m in mails if "ann@example.test" in str(m["To"])), key=lambda m: str(m["Date"]))

    def reply(to: Message, body: str) -> None:
        mid = str(to["Message-ID"])
        raw = order_mail("Ann <ann@example.test>", "g1", body, subject=f"Re: {to['Subject']}", In_Reply_To=mid)
        deliver(home, raw)

    assert pbem("--config", cfg, "poll").returncode == 0
    [first] = [m for m in to_ann() if "Turn" in str(m["Subject"]) or "report" in str(m["Subject"]).lower()][:1]
    assert pbem("--config", cfg, "game", "code", "g1", "Ann").returncode == 0
    assert pbem("--config", cfg, "poll").returncode == 0
    [new_code] = [m for m in to_ann() if "new player code" in str(m["Subject"])]
    seen = {str(m["Message-ID"]) for m in to_ann()}  # by id: mails of one second have no order by Date
    reply(first, "PASS")
    assert pbem("--config", cfg, "poll").returncode == 0
    [refusal] = [m for m in to_ann() if str(m["Message-ID"]) not in seen]
    body = refusal.get_payload(0).get_payload(decode=True).decode() if refusal.is_multipart() else ""
    text = " ".join(body.split())
    assert "before your player code was changed" in text and "the one with your new code" in text, text
    assert "Reply to a mail this game sent you (your orders" not in text
    with sqlite3.connect(Path(cfg).parent / "pbem.db") as conn:
        [(reason,)] = conn.execute("SELECT reason FROM inbound_messages ORDER BY id DESC LIMIT 1").fetchall()
    assert "older than the code" in reason
    reply(new_code, "PASS")
    assert pbem("--config", cfg, "poll").returncode == 0
    with sqlite3.connect(Path(cfg).parent / "pbem.db") as conn:
        [(taken,)] = conn.execute("SELECT reason FROM inbound_messages ORDER BY id DESC LIMIT 1").fetchall()
    assert "code" not in taken, f"the reply to the new code's mail needs no code: {taken}"


def test_pbem_poll_prints_the_runs_notes_for_the_moderator(tmp_path: Path) -> None:
    """`pbem poll` printed only its summary line, so a clock jump or mail the server refused to file (found by
    the transport testers: every message stayed in the inbox while the run said "6 accepted") went unseen."""
    cfg = make_home(tmp_path, "g1")
    _clock_was_ahead(cfg, -timedelta(days=5))  # the last poll five days ago: this clock jumped ahead
    polled = pbem("--config", cfg, "poll")
    notes = [x for x in polled.stdout.splitlines() if x.startswith("note: ")]
    assert polled.returncode == 0 and len(notes) == 1 and "5.0 days ahead of the last poll" in notes[0], polled.stdout
    again = pbem("--config", cfg, "poll")
    assert "note:" not in again.stdout, "a note is said once, by the run it concerns"


def test_game_show_as_a_player_ignores_case_and_accents(tmp_path: Path) -> None:
    """Mail reads "zoe" as Zoë Müller; `pbem game show g1 --as "zoe muller"` refused (found by the players'
    testers)."""
    home = tmp_path / "home"
    assert pbem("init", str(home), "--address", "games@example.test").returncode == 0
    cfg = str(home / "pbem.toml")
    seats = ["--player", "Zoë Müller <zoe@example.test>", "--player", "Ben <ben@example.test>"]
    assert pbem("--config", cfg, "game", "new", "italian-wars", "--name", "g1", "--no-join", *seats).returncode == 0
    shown = pbem("--config", cfg, "game", "show", "g1", "--as", "zoe muller")
    assert shown.returncode == 0 and "Private report for Zoë Müller" in shown.stdout, shown.stderr


def test_game_show_as_takes_a_unique_prefix_or_first_name_and_refuses_an_ambiguous_one(tmp_path: Path) -> None:
    """Found by the players' testers: `--as zoe` was refused although one player only starts so. A unique
    prefix or a unique first name is taken (case and accents ignored, as mail reads names); one that could be
    several players is refused with them listed, exit 2; one that is nobody's names the players."""
    home = tmp_path / "home"
    assert pbem("init", str(home), "--address", "games@example.test").returncode == 0
    cfg = str(home / "pbem.toml")
    seats = [
        "--player",
        "Zoë Müller <zoe@example.test>",
        "--player",
        "Ben Ames <ben@example.test>",
        "--player",
        "Benedikt Roth <bene@example.test>",
    ]
    assert pbem("--config", cfg, "game", "new", "habsburg", "--name", "g1", "--no-join", *seats).returncode == 0
    for typed, who in [("zoe", "Zoë Müller"), ("ZOË M", "Zoë Müller"), ("ben", "Ben Ames"), ("bened", "Benedikt Roth")]:
        shown = pbem("--config", cfg, "game", "show", "g1", "--as", typed)
        assert shown.returncode == 0 and f"Private report for {who}" in shown.stdout, (typed, shown.stderr)
    one_line(pbem("--config", cfg, "game", "show", "g1", "--as", "be"), 2, "could be any of", "Ben Ames, Benedikt Roth")
    one_line(pbem("--config", cfg, "game", "show", "g1", "--as", "carol"), 2, "is not a player of g1", "Zoë Müller")
