"""The commands of a moderator's mail (issue 28), each run as its `pbem game ...` command runs it.

`run` loads the game (`pbem.app.control.Command`), calls the same deciding function as the CLI
(`pbem.app.control`, `undo`, `absence`, `join`) and applies the decision in the message's
transaction, without committing (`pbem.app.moderating` records the message and commits with it).
`arguments_problem` checks what can be checked before anything is run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from pbem.app import join
from pbem.app.absence import absences, decide_set_by_moderator, stamp, until_of
from pbem.app.addresses import decide_move
from pbem.app.control import (
    Command,
    decide_abandon,
    decide_extend,
    decide_new_code,
    decide_pause,
    decide_replace,
    decide_resume,
)
from pbem.app.decision import Decision
from pbem.app.mailing import choose_default, said
from pbem.app.processing import asked, decide_process
from pbem.app.resend import decide_resend
from pbem.app.say import codes_of, decide_say
from pbem.app.settle import settle
from pbem.app.silence import decide_keep
from pbem.app.undo import decide_undo
from pbem.engine.names import player_name
from pbem.home.config import extension, parse_duration
from pbem.home.policy import Policy
from pbem.mail.outbound.outgoing import Mail
from pbem.orders.away import MAX_DAYS, Away, read_away
from pbem.orders.moderator import Command as Line
from pbem.record import listing, lookups, store
from pbem.record.absence import rows as away_rows
from pbem.record.db import Unit
from pbem.trust import codes
from pbem.trust.addresses import address

if TYPE_CHECKING:
    from pbem.app.waiting import Waiting

log = logging.getLogger("pbem.moderator")


def _person(text: str) -> tuple[str, str]:
    """'Dora <dora@example.org>' or 'dora@example.org' -> (name, address), as `pbem game replace` reads it."""
    name, addr = address(text)  # parseaddr, whose nested comments raised a RecursionError
    if "@" not in addr or " " in addr:
        raise ValueError(f'"{text}" is not a person; write Name <address@example.org>')
    return player_name(name.strip() or addr.split("@")[0]), addr


def _away(c: Line) -> Away:
    spec = c.args[1] if c.word == "AWAY" else "back"
    return read_away("BACK" if c.word == "BACK" else f"AWAY {spec}")


def arguments_problem(c: Line) -> str:
    """Why the arguments of `c` cannot be used ("" if they can): checked before any command is run."""
    try:
        if c.word == "EXTEND":
            extension(c.args[0])
        elif c.word == "REPLACE":
            _person(c.args[1])
        elif c.word == "WAITING" and c.args:
            parse_duration(c.args[0])
        elif c.word in ("AWAY", "BACK"):
            away = _away(c)
            if away.problem:
                return f"give a date (2026-12-24) or a number of days from 1 to {MAX_DAYS}"
    except ValueError as exc:
        return str(exc)
    return ""


# --------------------------------------------------------------------------- running one command


def waiting_lines(
    s: Unit, c: Line, when: datetime, every: list[Waiting] | None = None, most: int | None = None
) -> tuple[str, list[str]]:
    """WAITING: `pbem game waiting`'s list, in the message's transaction (every game: it needs none named, and
    changes nothing, so it is not logged, as the command is not): what was done, and the list's lines.  `every`:
    `waiting_in`'s list of every game, when an earlier WAITING of the mail loaded it (each game is loaded once a
    mail, not once a WAITING).  `most`: the lines the list may still take in the mail (`waiting.listed`)."""
    from pbem.app.waiting import listed, order, waiting_in

    within = parse_duration(c.args[0]) if c.args else None
    games = waiting_in(s, when, within) if every is None else order(every, when, within)
    if not games:
        return "no game waits for anyone" + (f" due within {c.args[0]}" if c.args else ""), []
    lines = listed(games, when, most)
    return lines[-1], lines[:-1]


def run(s: Unit, policy: Policy, name: str, c: Line, when: datetime, i: int = 0) -> str:
    """Decide and apply one command (the `i`-th of its mail) in the message's transaction, as its CLI command
    does; what was done."""
    cmd = Command(s, name)
    handler = _HANDLERS[c.word]
    d, said = handler(cmd, policy, c, when)
    if i:  # the CLI keys some notices by the command's time: two commands for one player in one mail (AWAY,
        # then BACK) keep distinct Message-IDs, the same each time the mail is read
        d.effects = [replace(e, key=(*e.key, "command", i)) if isinstance(e, Mail) else e for e in d.effects]
    settle(s, policy, d, when, cmd.loaded)  # as `Command.apply`, but the message's transaction commits
    log.info("%s by mail from %s (game %s): %s", c.word, policy.moderator_address, cmd.loaded.game.name, said)
    return said


def _extend(c: Command, policy: Policy, line: Line, when: datetime) -> tuple[Decision, str]:
    by = extension(line.args[0])
    d = decide_extend(c.loaded, c.control, c.step, c.due, by, listing.in_a_row(c.s, c.gid))
    assert c.due is not None
    return d, f"the deadline is now {stamp(c.due + by)}"


def _pause(c: Command, policy: Policy, line: Line, when: datetime) -> tuple[Decision, str]:
    return decide_pause(c.loaded, c.control, when), "paused: no deadline passes until RESUME"


def _resume(c: Command, policy: Policy, line: Line, when: datetime) -> tuple[Decision, str]:
    d = decide_resume(c.loaded, c.control, listing.paused_at(c.s, c.gid), c.step, c.due, when)
    due = next((e.due_at for e in d.effects if hasattr(e, "due_at")), None)
    return d, "resumed" + (f"; the deadline is {stamp(due)}" if due else "")


def _abandon(c: Command, policy: Policy, line: Line, when: datetime) -> tuple[Decision, str]:
    return decide_abandon(c.loaded, c.control), "abandoned: no more orders are accepted"


def _process(c: Command, policy: Policy, line: Line, when: datetime) -> tuple[Decision, str]:
    d = decide_process(c.loaded, c.control, c.step, c.due, when)
    return d, f"the deadline is now: the next poll applies the defaults of {', '.join(asked(c.loaded))}"


def _keep(c: Command, policy: Policy, line: Line, when: datetime) -> tuple[Decision, str]:
    return decide_keep(c.loaded, c.control), "kept running: you are told again if it goes on without a player's mail"


def _start(c: Command, policy: Policy, line: Line, when: datetime) -> tuple[Decision, str]:
    absent = join.missing(c.loaded) if join.is_open(c.loaded) else []
    d = join.decide_start(c.loaded, c.control)
    c.reads(since=0)  # everyone's first report follows the deal
    return d, "dealt" + (f" without the salt of {', '.join(absent)}" if absent else "") + "; first reports queued"


def _new_code(c: Command, policy: Policy, line: Line, when: datetime) -> tuple[Decision, str]:
    code = codes.new_code()
    d = decide_new_code(c.loaded, c.control, line.args[0], code, codes.hash_code(code, home=policy.home), when)
    return d, f"a new code for {d.player} is queued to their registered address (it is not shown here)"


def _replace(c: Command, policy: Policy, line: Line, when: datetime) -> tuple[Decision, str]:
    newcomer = _person(line.args[1])
    code = codes.new_code()
    c.reads(since=0)  # the newcomer's report tells the seat's whole story
    hashed = codes.hash_code(code, home=policy.home)
    args = (c.loaded, c.control, line.args[0], newcomer, code, hashed, c.step, c.due)
    d = decide_replace(*args, moderator=policy.moderator_address)
    return d, f"{newcomer[0]} <{newcomer[1]}> now plays the seat of {_replaced(d)}; their code and report are queued"


def _address(c: Command, policy: Policy, line: Line, when: datetime) -> tuple[Decision, str]:
    d = decide_move(c.loaded, c.control, line.args[0], line.args[1], policy.moderator_address)
    return d, f"{d.player}'s seat gets its mail at {line.args[1].lower()} from now on; both addresses are told"


def _replaced(d: Decision) -> str:
    """The player a `decide_replace` decision takes the seat of (as `player_named` read the name typed)."""
    return next(str(m.context["player"]) for m in d.mails if m.kind == "replaced")


def _undo(c: Command, policy: Policy, line: Line, when: datetime) -> tuple[Decision, str]:
    fold, _, _ = store.folded(c.loaded.game, store.inputs(c.s, c.gid), join=store.join_opened(c.s, c.gid))
    to = int(line.args[0])
    is_code = codes_of(c.loaded, lookups.open_code_hashes(c.s))
    d = decide_undo(c.loaded, c.control, fold, to, line.args[1], line.reroll, when, is_code)
    undone = fold.undos[c.loaded.seq + 1][1]  # the moderator's numbers: his acknowledgement only
    c.reads()  # what every player's report reads: the events since their last one
    return d, f"back after input {to}; undone: {', '.join(map(str, undone)) or 'nothing'}"


def _set_away(c: Command, policy: Policy, line: Line, when: datetime) -> tuple[Decision, str]:
    away = _away(line)
    now = absences(away_rows(c.s, c.gid), when)
    d = decide_set_by_moderator(c.loaded, c.control, line.args[0], away, when, policy.max_away, now)
    back = until_of(away, when)
    return d, f"{d.player} is away until {stamp(back)}" if back else f"{d.player} is back"


def _resend(c: Command, policy: Policy, line: Line, when: datetime) -> tuple[Decision, str]:
    d = decide_resend(c.loaded, line.args[0], when)
    c.reads()  # what the report reads: the events since the player's last one
    return d, f"{d.player}'s current report is queued to their registered address"


def _say(c: Command, policy: Policy, line: Line, when: datetime) -> tuple[Decision, str]:
    d = decide_say(c.loaded, c.control, line.args[0], codes_of(c.loaded, lookups.open_code_hashes(c.s)))
    return d, f"your message is queued to every player ({', '.join(st.player for st in c.loaded.seats)})"


def _mail(c: Command, policy: Policy, line: Line, when: datetime) -> tuple[Decision, str]:
    mode, already = choose_default(c.s, c.gid, line.args[0], when)
    return Decision(game=c.loaded.game.name), said(c.loaded.game.name, mode, already).split(": ", 1)[1]


Handler = Callable[[Command, Policy, Line, datetime], tuple[Decision, str]]
_HANDLERS: dict[str, Handler] = {
    "EXTEND": _extend,
    "PAUSE": _pause,
    "RESUME": _resume,
    "ABANDON": _abandon,
    "START": _start,
    "PROCESS": _process,
    "KEEP": _keep,
    "NEW CODE": _new_code,
    "REPLACE": _replace,
    "ADDRESS": _address,
    "UNDO": _undo,
    "AWAY": _set_away,
    "BACK": _set_away,
    "RESEND": _resend,
    "SAY": _say,
    "MAIL": _mail,
}
