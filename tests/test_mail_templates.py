"""Every kind of mail pbem writes, rendered from a fixed context and compared with its golden text.

One template pair per kind (templates/mail/KIND.txt.j2 with the subject,
KIND.html.j2); the golden files are tests/golden/mail/outgoing/KIND.txt
(subject, blank line, text part) and KIND.html.  A change of wording shows up
here as a diff.  Run with PBEM_UPDATE_GOLDEN=1 to rewrite them after a
deliberate change.  A new kind of mail needs a context here (the first test
fails until it has one).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pbem.render.templates import mail_kinds, render_mail

ROOT = Path(__file__).resolve().parent / "golden" / "mail" / "outgoing"
M = {"moderator": "Test Moderator", "moderator_address": "games@pbem.test"}
#: Where the game's record stood when a mail about a game was rendered (`pbem.mail.outbound.outgoing.Receipt`).
RECORD = {"record": {"entries": 214, "head": "4f1a9c2e" * 8}, "receipt": None}
NOT_ABOUT_A_GAME = {
    "address_bounced",
    "clock_ahead",
    "clock_jump",
    "home_upkeep",
    "inbox_left",
    "inbox_left_kept",
    "inbox_misnumbered",
    "message_failed",
    "poll_overrun",
    "games_list",
    "no_game",
    "outage_moderator",
    "send_failed",
    "stranger",
}  # no game loaded: no record line
ASKED = [
    {
        "prompt": "Play a card or pass",
        "syntax": ["PLAY <card>", "PASS"],
        "legal": ["PLAY Ottoman Advance", "PASS"],
        "default": ["PASS"],
        "on_file": [],
        "answered": False,
    }
]
VIEW = {
    "turn": "Turn 3",
    "sections": [
        {"title": "Your hand", "private": True, "lines": ["Ottoman Advance", "Plague"]},
        {
            "title": "Scores",
            "private": False,
            "table": {"columns": ["Player", "VP"], "rows": [["Alice", 4], ["Bob", 2]]},
        },
    ],
}
LINES = [
    {"line": "PLAY Ottoman Advance", "ok": True, "reason": "", "legal": (), "understood": "PLAY Ottoman Advance"},
    {"line": "MELD Nobody", "ok": False, "reason": "no such order", "legal": ("PASS",), "understood": ""},
]

#: What the join step asks (pbem.trust.deal.JoinStep.requests): it says what the deadline does, so the reminder does not.
JOIN_PROMPT = (
    "Join the game: reply JOIN, and if you like add a line SALT <any text> (up to 200 characters) that will stir the "
    "deal. If you have not joined by the deadline, the moderator may start without your salt or give your seat to "
    "someone else."
)

_ASKED = dict(game_name="hh1", subject_in="ADDRESS", others=False, good_until="", problem="", accepted="")
_MOVED = dict(game_name="hh1", player="Carol", old="carol@players.test", new="carol@new.test")
#: An acknowledgement's context with nothing in it: each golden variant of players17 says what it adds.
_ACK: dict[str, Any] = dict(
    subject_in="Re: [pbem hh1] Turn 1, Alice to play",
    game_name="hh1",
    applied=False,
    lines=[],
    rejected_count=0,
    problems=[],
    press_failed=[],
    no_orders=False,
    press_sent=[],
    held=False,
    on_file=[],
    waiting=[],
    report_follows=False,
    chatter=[],
    more_chatter=0,
    more_lines=0,
    more_notes=0,
)
CONTEXTS: dict[str, dict[str, Any]] = {
    "ack": dict(
        subject_in="[pbem hh1] orders",
        game_name="hh1",
        applied=False,
        lines=LINES,
        rejected_count=1,
        problems=['"PRESS TO Bob": press must end with a line "END PRESS"; nothing was sent'],
        press_failed=['no player matches "Zed"'],
        no_orders=False,
        press_sent=[["Bob"], ["Bob", "Carol"]],
        held=False,
        on_file=["PLAY Plague"],
        waiting=["Alice", "Carol"],
        report_follows=False,
        chatter=["Hello all,", "see you Friday"],
        more_chatter=41,
        more_lines=3,
        more_notes=2,
    ),
    "ack_none": dict(  # no order found, a line one typo from one told the order to send (replies16)
        subject_in="Re: [pbem hh1] Turn 2, Alice to play",
        game_name="hh1",
        applied=False,
        lines=[],
        rejected_count=0,
        problems=[
            '"PLAYS Plague" was not read as an order: an order line starts with its order word, so write it as: '
            "PLAY Plague"
        ],
        press_failed=[],
        no_orders=True,
        asked=[{"prompt": "Play a card or pass.", "legal": ["PLAY Plague", "PLAY Ottoman Advance", "PASS"]}],
        press_sent=[],
        held=False,
        on_file=[],
        waiting=["Alice"],
        report_follows=False,
        chatter=["Hi all,", "PLAYS Plague"],
        more_chatter=0,
        more_lines=0,
        more_notes=0,
    ),
    "ack_press": dict(  # a press alone, no order line: the subject says where it went (players17)
        _ACK,
        press_failed=['no player matches "Zed"'],
        press_sent=[["Bob", "Carol"], ["Bob"]],
        waiting=["Alice"],
    ),
    "ack_closed": dict(  # a reply after its step closed: told first when, the default applied (players17)
        _ACK,
        lines=[{**LINES[1], "line": "PASS", "reason": "you are not asked anything now; waiting for Bob", "legal": ()}],
        rejected_count=1,
        closed="The step your mail answered closed at its deadline, 2026-12-05 12:00 UTC (applied at 2026-12-05 12:07 UTC), "
        "before your mail arrived: its deadline "
        "passed and your default orders were applied: PASS. Nothing is asked of you now.",
        waiting=["Bob"],
    ),
    "code_misuse_alert": dict(
        game_name="hh1", sender="carol@players.test", sender_as="Carol in this game", owner="Bob"
    ),
    "code_misused": dict(game_name="hh1", sender="carol@players.test"),
    "control_abandon": dict(game_name="hh1"),
    "control_extend": dict(game_name="hh1", due="2026-01-08 12:00 UTC", again=""),
    "control_extend_again": dict(  # months6: the third extension of a step in a row says so
        game_name="hh1", due="2026-01-10 12:00 UTC", again="3 times in a row; it was first due 2026-01-07 12:00 UTC"
    ),
    "away_ack": dict(
        game_name="hh1",
        subject_in="[pbem hh1] away",
        back=False,
        until="Thu 24 Dec 2026 00:00 UTC",
        max_days=14,
        by_moderator=False,
        unchanged=False,
        was_until="",
    ),
    "away_back": dict(
        game_name="hh1",
        subject_in="[pbem hh1] back",
        back=True,
        until="",
        max_days=14,
        by_moderator=False,
        unchanged=False,
        was_until="",
    ),
    "away_not_away": dict(
        game_name="hh1",
        subject_in="[pbem hh1] back",
        back=True,
        until="",
        max_days=14,
        by_moderator=False,
        unchanged=True,
        was_until="",
    ),
    "away_moved": dict(
        game_name="hh1",
        subject_in="[pbem hh1] away",
        back=False,
        until="Thu 24 Dec 2026 00:00 UTC",
        max_days=14,
        by_moderator=False,
        unchanged=False,
        was_until="Mon 21 Dec 2026 00:00 UTC",
    ),
    "control_wait": dict(
        game_name="hh1", due="Thu 24 Dec 2026 00:00 UTC", away="Alice (away until Thu 24 Dec 2026 00:00 UTC)"
    ),
    "message_failed": dict(
        sender="bob@players.test", about="Re: [pbem hh1] Turn 3", message_id="<x1@players.test>", error="KeyError"
    ),
    "home_upkeep": dict(
        items=[
            dict(
                text="the newest backup is 3 days old (/backups/pbem/pbem-2026-12-03T031500Z): the nightly one stopped",
                act="pbem backup --keep 30 /backups/pbem (cron/crontab runs it every night)",
            ),
            dict(
                text="game hh1: this step's deadline was extended 3 times in a row (first due 2026-12-01 09:00, "
                "now 2026-12-08 09:00 UTC)",
                act="pbem game waiting hh1; pbem game process hh1 (defaults now) or pbem game replace hh1",
            ),
        ]
    ),
    "inbox_left": dict(
        inbox="INBOX",
        unflagged=6,
        flagged=2,
        store_refusal="[NOPERM] Permission denied",
        expunge_refusal="[NOPERM] Expunge not allowed",
        folders="pbem/processed or pbem/rejected",
    ),
    "inbox_left_kept": dict(  # a server whose EXPUNGE answers OK and keeps the messages
        inbox="INBOX", unflagged=0, flagged=3, store_refusal="", expunge_refusal="", folders="Done or Junk"
    ),
    "inbox_misnumbered": dict(server="IMAP imap.example.test:993", count=2, inbox="INBOX"),
    "poll_overrun": dict(
        reason="the poll passed its deadline of 900 s after reading 40 message(s); what it finished is filed, the "
        "rest stays in the inbox for the next run ([mail] poll_deadline)",
        seconds=900,
    ),
    "clock_ahead": dict(
        ahead="2.0 hours", arrived="2026-01-08 10:00 UTC", reference="2026-01-08 11:58 UTC", margin="10 min"
    ),
    "clock_jump": dict(
        note="the clock is 5.0 days ahead of the last poll (2026-01-03 10:00 UTC)",
        seen="2026-01-03 10:00 UTC",
        this_run="2026-01-08 10:00 UTC",
        now="2026-01-08T10:00:00.369178+00:00",  # every render sets `now` to the ISO time: never shown here
        deadlines=2,
        reminders=1,
    ),
    "press_limit": dict(game_name="hh1", again_at="2026-01-09 10:05 UTC", per_day=60, held=2),
    "control_held": dict(game_name="hh1", due="2026-01-09 02:00 UTC", players=["Bob"]),
    "paused_game": dict(
        game_name="hh1",
        since="2026-01-05 09:00 UTC",
        days=21,
        players=["Alice", "Bob", "Carol"],
        every=7,
    ),
    "silent_game": dict(
        game_name="hh1",
        deadlines=3,
        since="2026-01-05 09:00 UTC",
        days=6,
        began="start",
        players=["Alice", "Bob", "Carol"],
        mode="normal",
        most=3,
    ),
    "silent_game_kept": dict(  # counted from the moderator's `pbem game keep`, its players on digests already
        game_name="hh1",
        deadlines=4,
        since="2026-01-11 10:00 UTC",
        days=8,
        began="moderator",
        players=["Alice", "Bob", "Carol"],
        mode="digest",
        most=4,
    ),
    "silent_seat": dict(
        game_name="hh1",
        player="Bob",
        address="bob@players.test",
        deadlines=3,
        since="2026-01-07 18:20 UTC",
        began="mail",
        most=3,
    ),
    "silent_seat_named": dict(  # a player whose name has a space: the commands quote it
        game_name="hh1",
        player="Anne Marie",
        address="am@players.test",
        deadlines=3,
        since="2026-01-05 09:00 UTC",
        began="seat",
        most=3,
    ),
    "silent_seat_moved": dict(  # counted from their address moved (months3: not from another seat's move)
        game_name="hh1",
        player="Bob",
        address="bob@new.test",
        deadlines=3,
        since="2026-01-09 10:00 UTC",
        began="address",
        most=3,
    ),
    "address_bounced": dict(
        address="bob@players.test",
        reason="<bob@players.test>: host mx.players.test said: 550 5.1.1 no such user",
        seats=[{"game": "hh1", "player": "Bob"}, {"game": "dy2", "player": "Bob"}],
        day="2026-01-08",
        since="2026-01-05 09:12 UTC",
        bounces=7,
        next="2026-01-12 09:12 UTC",
        quiet_days=7,
    ),
    "control_process": dict(game_name="hh1", players=["Bob"]),
    "report_undelivered": dict(
        game_name="hh1",
        step="Turn 3 orders",
        due="2026-01-08 12:00 UTC",
        players=["Bob"],
        pending=[{"player": "Bob", "id": 17, "status": "failed"}],
        retry="pbem outbox retry 17",
    ),
    "control_outage": dict(
        game_name="hh1",
        due="2026-01-09 02:00 UTC",
        start="2026-01-07 10:00 UTC",
        end="2026-01-08 00:00 UTC",
        hours="14",
    ),
    "outage_moderator": dict(
        start="2026-01-07 10:00 UTC",
        end="2026-01-08 00:00 UTC",
        hours="14",
        moved=[{"game": "hh1", "was": "2026-01-07 12:00 UTC", "now": "2026-01-08 02:00 UTC"}],
    ),
    "control_pause": dict(game_name="hh1"),
    "control_say": dict(game_name="hh1", message="The deadline holds over the holidays; play on. <Bob> & co."),
    "control_replace": dict(game_name="hh1", newcomer="Dora", seat="Carol"),
    "deadline_applied": dict(game_name="hh1", due="2026-01-07 12:00 UTC", prompt="Play a card or pass", lines=["PASS"]),
    "control_resume": dict(game_name="hh1", due="2026-01-09 12:00 UTC"),
    "game_closed": dict(game_name="hh1", subject_in="[pbem hh1] orders", state="paused"),
    "held_applied": dict(game_name="iwd", due="2026-01-07 12:00 UTC", lines=["DISCARD Milan", "DISCARD Genoa"]),
    "held_failed": dict(
        game_name="iwd", rejected=[{"line": "DISCARD Milan", "reason": "you hold no Milan"}], defaulted=True
    ),
    "help": dict(game_name="hh1", handbook="HOUSE OF HABSBURG: the handbook\n  `PLAY <card>`", asked=ASKED, waiting=[]),
    "new_code": dict(game_name="hh1", code="NEWB-7777"),
    "lost_code_recent": dict(
        game_name="hh1",
        subject_in="[pbem hh1] lost code",
        sent_at="Mon 05 Jan 12:00 UTC",
        again_at="Tue 06 Jan 12:00 UTC",
    ),
    "join_status": dict(  # STATUS from a player who has joined: the same template, no call to JOIN
        title="House of Habsburg",
        game_name="hh1",
        player="Bob",
        players=["Alice", "Bob", "Carol"],
        joined=True,
        salt="blue moon",
        waiting=["Alice", "Carol"],
        commitment="ab" * 32,
        insecure_seed=False,
        salt_max=200,
        deadline="2026-01-07 12:00 UTC",
        code=None,
        takeover=False,
    ),
    "join_invite": dict(
        title="House of Habsburg",
        game_name="hh1",
        player="Alice",
        players=["Alice", "Bob", "Carol"],
        joined=False,
        salt=None,
        waiting=["Alice", "Carol"],
        commitment="ab" * 32,
        insecure_seed=False,
        salt_max=200,
        deadline="2026-01-07 12:00 UTC",
        code="AAAA-2222",
        takeover=False,
    ),
    "join_ack": dict(
        game_name="hh1",
        subject_in="Re: [pbem hh1] Join the game: reply JOIN",
        player="Bob",
        accepted=True,
        already=False,
        refused=[],
        salt="blue moon <b>",
        waiting=["Carol"],
        dealt=False,
    ),
    "join_missing": dict(
        game_name="hh1",
        missing=[{"player": "Carol", "name": "Carol", "address": "carol@players.test"}],
        joined=["Alice", "Bob"],
        due="2026-01-07 12:00 UTC",
    ),
    "join_missing_many": dict(
        game_name="hh6",
        missing=[
            {"player": p, "name": f"{p} Longname-Example", "address": f"{p.lower()}.longname@players.example.org"}
            for p in ("Bob", "Carol", "Dave", "Erin", "Frank")
        ],
        joined=["Alice"],
        due="2026-01-07 12:00 UTC",
    ),
    "games_list": dict(
        games=[
            dict(name="hh1", title="House of Habsburg", player="Zoë Müller"),
            dict(name="iw2", title="Italian Wars", player="Zoë"),
        ]
    ),
    "no_game": dict(subject_in="orders", tag="hh9", games=["hh1", "iw2"]),
    "not_your_game": dict(game_name="hh1", subject_in="[pbem hh1] orders", games=["iw2", "dy3"]),
    "press": dict(game_name="hh1", sender="Alice", recipients=["Bob"], to_all=False, text="Bob, let us share."),
    "refused_code": dict(game_name="hh1", subject_in="[pbem hh1] orders", code_missing=True, sent=""),
    "refused_code_unasked": dict(  # players28: the game asks the sender nothing now, no reply line
        game_name="hh1", subject_in="[pbem hh1] orders", code_missing=True, sent="", unasked=True
    ),
    "refused_code_before": dict(
        game_name="hh1", subject_in="Re: [pbem hh1] Turn 3", code_missing=True, sent="", before="2026-01-06 10:00 UTC"
    ),
    "replaced": dict(game_name="hh1", player="Carol", newcomer="Dora"),
    "reminder": dict(game_name="hh1", due="2026-01-07 12:00 UTC", left="23 hours", asked=ASKED),
    "reminder_join": dict(
        game_name="hh1",
        due="2026-01-07 12:00 UTC",
        left="23 hours",
        joining=True,
        asked=[{"prompt": JOIN_PROMPT, "legal": ["JOIN"], "default": []}],  # the join step's own (pbem.trust.deal)
    ),
    "report": dict(
        title="House of Habsburg",
        game_name="hh1",
        player="Alice",
        view=VIEW,
        sections=VIEW["sections"],
        happened=["Bob played Plague."],
        asked=ASKED,
        deadline="2026-01-07 12:00 UTC",
        due_at="2026-01-07T12:00:00+00:00",
        now="2026-01-06T13:00:00+00:00",
        waiting=["Alice"],
        commitment="ab" * 32,
        result=None,
        seed=None,
        commitment_final="ab" * 32,
        insecure_seed=False,
        code="AAAA-2222",
        takeover=False,
        salts=None,
        former=[],
    ),
    "report_dealt": dict(
        title="House of Habsburg",
        game_name="hh1",
        player="Alice",
        view=VIEW,
        sections=VIEW["sections"],
        happened=["Carol joined the game.", "Every player has joined. The deal is made from ..."],
        asked=ASKED,
        deadline="2026-01-07 12:00 UTC",
        due_at="2026-01-07T12:00:00+00:00",
        now="2026-01-06T13:00:00+00:00",
        waiting=["Alice"],
        commitment="ab" * 32,
        result=None,
        seed=None,
        commitment_final="ab" * 32,
        insecure_seed=False,
        code=None,
        takeover=False,
        salts=[{"player": "Alice", "salt": "blue moon <b>"}, {"player": "Bob", "salt": ""}],
        former=[],
    ),
    "report_waiting": dict(
        title="House of Habsburg",
        game_name="hh1",
        player="Alice",
        view=VIEW,
        sections=VIEW["sections"],
        happened=["Alice played Plague."],
        asked=[],
        deadline=None,
        due_at="2026-01-07T12:00:00+00:00",
        now="2026-01-06T13:00:00+00:00",
        waiting=["Bob"],
        commitment=None,
        result=None,
        seed=None,
        commitment_final="ab" * 32,
        insecure_seed=False,
        code=None,
        takeover=False,
        salts=None,
        former=[],
    ),
    "revision_on_file": dict(
        game_name="dy1",
        subject_in="[pbem dy1] my tribute",
        sent="2026-01-05 09:00 UTC",
        why="older",
        on_file_subject="[pbem dy1] tribute, second thoughts",
        on_file_sent="2026-01-05 11:30 UTC",
        on_file_lines=["TRIBUTE Gold"],
    ),
    "revision_earlier": dict(
        game_name="hh1",
        subject_in="Re: [pbem hh1] Turn 1, Cy to play",
        sent="2026-01-05 09:00 UTC",
        why="earlier",
        on_file_subject="Re: [pbem hh1] Turn 1, Cy to play",
        on_file_sent="2026-01-05 09:01 UTC",
        on_file_lines=[],
    ),
    "revision_earlier_unasked": dict(  # players29: the game asks the sender nothing now, no reply line
        game_name="hh1",
        subject_in="Re: [pbem hh1] Turn 1, Cy to play",
        sent="2026-01-05 09:00 UTC",
        why="earlier",
        on_file_subject="Re: [pbem hh1] Turn 1, Cy to play",
        on_file_sent="2026-01-05 09:01 UTC",
        on_file_lines=[],
        unasked=True,
    ),
    "send_failed": dict(
        to="bob@players.test", message_id="<pbem.1@pbem.test>", purpose="report", attempts=8, error="550 no such user"
    ),
    "stranger": dict(per_day=1),
    "stranger_code": dict(game_name="hh1", sender="mallory@evil.test"),
    "too_many": dict(again_at="13:05 UTC", per_hour=30),
    "unreadable": dict(
        game_name="hh1",
        subject_in="[pbem hh1] orders",
        problem="the message is too long",
        asked=[{"prompt": "Play a card or pass.", "legal": ["PLAY Plague", "PLAY Ottoman Advance", "PASS"]}],
    ),
    "moderator_ack": dict(
        game_name="hh1",
        subject_in="[pbem hh1] commands",
        accepted=["EXTEND 2d (a number and a unit: 30m, 48h, 3d, 1w)", "PAUSE", "UNDO TO <input number> WHY <reason>"],
        done=[
            {"line": "EXTEND 2d", "done": "the deadline is now Thu 08 Jan 2026 12:00 UTC", "listed": [], "told": True}
        ],
        refused=[{"line": "RESUME", "why": "game hh1 is not paused"}],
        left=["AWAY Alice 5"],
        chatter=["Thanks, all"],
    ),
    "moderator_ack_nothing": dict(
        game_name="",
        subject_in="commands",
        accepted=["GAME <name>", "PAUSE"],
        done=[],
        refused=[{"line": "", "why": "name the game: a line GAME <name>"}],
        left=[],
        chatter=[],
    ),
    "moderator_ack_waiting": dict(
        game_name="",
        subject_in="commands",
        accepted=["GAME <name>", "WAITING [24h]"],
        done=[
            {
                "line": "WAITING",
                "done": "2 game(s) wait for 2 player(s); 1 past the deadline",
                "listed": [
                    "dy1 (dynasties): LATE: the deadline passed at 2026-01-05 14:00 UTC, 30 min ago",
                    "  Bob: never wrote; missed 1 deadline(s); asked: Gambit 1: choose your secret Tribute",
                    "hh1 (habsburg): deadline 2026-01-07 12:00 UTC, in 1 d 21 h",
                    "  Carol & <Dora>: last mail 2026-01-05 12:30 UTC (2 h ago); asked: Your turn",
                ],
                "told": False,
            }
        ],
        refused=[],
        left=[],
        chatter=[],
    ),
    "moderator_refused": dict(game_name="hh1", subject_in="[pbem hh1] pause", code_given=True),
    "history": dict(
        game_name="hh1",
        step="Turn",
        turn="",
        groups=[
            {"title": "Set-up", "lines": ["The cards are dealt.", "You were dealt Rudolph II, Bohemia. [to you]"]},
            {
                "title": "Turn 1",
                "lines": ["Alice melded Otto, Austria, Archduke.", "Bob to Zoë: shall we? [to Bob, Zoë]"],
            },
        ],
        left_out=True,
        known="1 to 9",
        missing=False,
        max_events=200,
    ),
    "history_missing": dict(
        game_name="hh1",
        step="Turn",
        turn="12",
        groups=[],
        left_out=False,
        known="1 to 9",
        missing=True,
        max_events=200,
    ),
    "resign_confirm": dict(
        game_name="hh1",
        subject_in="RESIGN",
        others=True,
        resigned_at="",
        word="482193",
        good_until="Sun 06 Dec 2026 23:59 UTC",
        wrong=False,
    ),
    "resign_confirm_footer": dict(  # players28: a footer under RESIGN, left unread and listed
        game_name="hh1",
        subject_in="RESIGN",
        others=False,
        left=["Pass it on!"],
        more_left=0,
        resigned_at="",
        word="482193",
        good_until="Sun 06 Dec 2026 23:59 UTC",
        wrong=False,
    ),
    "resign_confirm_done": dict(
        game_name="hh1", subject_in="RESIGN", others=False, resigned_at="Sat 05 Dec 2026 18:20 UTC"
    ),
    "resigned": dict(game_name="hh1", resigner="Carol", you=False),
    "resigned_you": dict(game_name="hh1", resigner="Carol", you=True),
    "resign_moderator": dict(game_name="hh1", resigner="Carol", address="carol@players.test"),
    "address_asked": dict(_ASKED, new="carol@new.test", good_until="Sun 06 Dec 2026 23:59 UTC", others=True),
    "address_asked_refused": dict(
        _ASKED,
        new="bob@players.test",
        problem="bob@players.test is the address of another player of hh1",
        accepted="ADDRESS followed by your new mail address alone, e.g. ADDRESS alice@example.org",
    ),
    "address_confirm": dict(game_name="hh1", player="Carol", word="482193", good_until="Sun 06 Dec 2026 23:59 UTC"),
    "address_word_bounced": dict(  # months3: the word of an ADDRESS came back undelivered
        game_name="hh1",
        player="Carol",
        new="carol@nowhere.test",
        reason="host nowhere.test said: 550 5.1.1 no such user",
        accepted="ADDRESS followed by your new mail address alone, e.g. ADDRESS alice@example.org",
    ),
    "address_moved": dict(_MOVED, by="player", to="old"),
    "address_moved_new": dict(_MOVED, by="player", to="new"),
    "address_moved_moderator": dict(_MOVED, by="moderator", to="moderator"),
}
# the join reminder as pbem wrote it up to 9fb0ae7, rendered again by pbem verify --mail (its golden files are
# 9fb0ae7's reminder_join ones, byte for byte)
CONTEXTS["reminder_join_older"] = CONTEXTS["reminder_join"] | dict(
    older_join=True,
    asked=[{"prompt": "Join the game: reply JOIN", "legal": ["JOIN", "JOIN <your salt>"], "default": []}],
)


#: Golden contexts that render another kind's template (a variant worth its own golden file).
VARIANTS = {
    "control_extend_again": "control_extend",
    "ack_none": "ack",
    "ack_press": "ack",
    "ack_closed": "ack",
    "report_dealt": "report",
    "revision_earlier": "revision_on_file",
    "revision_earlier_unasked": "revision_on_file",
    "join_status": "join_invite",
    "reminder_join": "reminder",
    "reminder_join_older": "reminder",
    "refused_code_before": "refused_code",
    "refused_code_unasked": "refused_code",
    "report_waiting": "report",
    "away_back": "away_ack",
    "away_not_away": "away_ack",
    "away_moved": "away_ack",
    "moderator_ack_nothing": "moderator_ack",
    "moderator_ack_waiting": "moderator_ack",
    "inbox_left_kept": "inbox_left",
    "silent_game_kept": "silent_game",
    "silent_seat_named": "silent_seat",
    "silent_seat_moved": "silent_seat",
    "history_missing": "history",
    "join_missing_many": "join_missing",
    "resign_confirm_done": "resign_confirm",
    "resign_confirm_footer": "resign_confirm",
    "resigned_you": "resigned",
    "address_asked_refused": "address_asked",
    "address_moved_new": "address_moved",
    "address_moved_moderator": "address_moved",
}


def test_every_kind_of_mail_has_a_golden_context() -> None:
    assert sorted(k for k in CONTEXTS if k not in VARIANTS) == mail_kinds()


@pytest.mark.parametrize("kind", sorted(CONTEXTS))
def test_mail_wording_matches_golden(kind: str) -> None:
    r = render_mail(VARIANTS.get(kind, kind), {**CONTEXTS[kind], **M, **({} if kind in NOT_ABOUT_A_GAME else RECORD)})
    _compare(kind, {f"{kind}.txt": f"Subject: {r.subject}\n\n{r.text}", f"{kind}.html": r.html})


#: The kinds of mail that ask the player for orders: only these end with "Reply to this mail with your orders"
#: (a final report asks for none: `report_final` below).  Notices of what the moderator or a deadline did, the
#: "too many messages" notice, press and every mail to the moderator ask for nothing (issue 27's testers found
#: the line on the moderator's join alert and on a deadline moved for a player whose orders were on file), nor a
#: report to a player asked nothing now (`report_waiting`: players28, `tests/test_replies28_closing.py`).
ASK_FOR_ORDERS = {"ack", "ack_closed", "ack_none", "ack_press", "help", "refused_code", "refused_code_before", "reminder", "reminder_join", "reminder_join_older", "revision_earlier", "report", "report_dealt",
                  "revision_on_file", "unreadable"}  # fmt: skip
HINT = "Reply to this mail with your orders"


@pytest.mark.parametrize("kind", sorted(CONTEXTS))
def test_only_mail_that_asks_for_orders_says_to_reply_with_orders(kind: str) -> None:
    r = render_mail(VARIANTS.get(kind, kind), {**CONTEXTS[kind], **M, **RECORD})
    assert (HINT in r.text, HINT in r.html) == ((kind in ASK_FOR_ORDERS,) * 2), kind
    if VARIANTS.get(kind, kind) == "report":
        result = {"summary": "Ann wins", "scores": {"Ann": 3}}
        final = render_mail("report", {**CONTEXTS[kind], **M, **RECORD, "result": result, "seed": "00" * 16})
        assert HINT not in final.text and HINT not in final.html


@pytest.mark.parametrize("kind", sorted(CONTEXTS))
def test_no_mail_says_how_to_reply_twice(kind: str) -> None:
    """A report ended with its own reply line and the record's hint, two wordings of the same advice (found by
    reading the demo's mail on a phone): every kind says it at most once, in text and in HTML."""
    r = render_mail(VARIANTS.get(kind, kind), {**CONTEXTS[kind], **M, **RECORD})
    for body in (r.text, r.html):
        said = [
            line for line in body.replace("<p", "\n<p").splitlines() if "reply" in line.lower() and "orders" in line
        ]
        assert len([s for s in said if "with your orders" in s]) <= 1, (kind, said)


def test_the_acknowledgement_of_recorded_orders_shows_its_receipt() -> None:
    """Accepted orders: the ack names the input they were recorded as, with its hash (issue 13)."""
    ctx = {**CONTEXTS["ack"], "applied": True, "lines": LINES[:1], "rejected_count": 0, "problems": []}
    receipt = {"seq": 12, "hash": "9f3a" * 16}
    r = render_mail("ack", {**ctx, **M, **RECORD, "receipt": receipt})
    _compare("ack_recorded", {"ack_recorded.txt": f"Subject: {r.subject}\n\n{r.text}", "ack_recorded.html": r.html})
    assert "entry #12" in r.text and receipt["hash"] in r.text and receipt["hash"] in r.html


def _compare(kind: str, got: dict[str, str]) -> None:
    if os.environ.get("PBEM_UPDATE_GOLDEN"):
        ROOT.mkdir(parents=True, exist_ok=True)
        for name, text in got.items():
            (ROOT / name).write_text(text)
        return
    for name, text in got.items():
        assert text == (ROOT / name).read_text(), f"{kind}: the wording differs from {ROOT / name}"


def test_a_template_given_less_than_it_names_fails_loudly() -> None:
    from jinja2 import UndefinedError

    with pytest.raises(UndefinedError):
        render_mail("reminder", {"game_name": "hh1", **M})


def test_the_redacted_copy_of_a_code_mail_keeps_no_code() -> None:
    from pbem.mail.outbound.outgoing import REDACTED

    kept = render_mail("new_code", {**CONTEXTS["new_code"], "code": REDACTED, **M})
    assert "NEWB-7777" not in kept.text + kept.html + kept.subject


def test_the_redacted_copy_of_a_join_invitation_keeps_no_code() -> None:
    from pbem.mail.outbound.outgoing import REDACTED

    kept = render_mail("join_invite", {**CONTEXTS["join_invite"], "code": REDACTED, **M})
    assert "AAAA-2222" not in kept.text + kept.html + kept.subject and REDACTED in kept.text
