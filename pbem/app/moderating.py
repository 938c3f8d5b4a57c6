"""Moderating by mail (issue 28): the moderator's address sends the commands of `pbem game ...`.

A mail from `[moderator] address` is read by `pbem.orders.moderator` (one command a line: EXTEND,
PAUSE, RESUME, START, ABANDON, PROCESS, NEW CODE, REPLACE, UNDO, AWAY, BACK, RESEND, SAY; the game named by a GAME
line or the subject's `[pbem NAME]`; WAITING, `pbem game waiting`'s list of every game, needs none).  It is taken, like a player's, only with proof of who wrote it:
  * a `CODE` line with the moderator code (`pbem init` makes it, `pbem moderator code` makes a new
    one; stored only hashed, `pbem.record.moderator_code`), checked only within the address's answers
    budget, as a player's own code is, and derived once per process and code; or
  * a reply naming a mail pbem sent to the moderator address (its keyed Message-ID, as player replies
    do: `pbem.mail.inbound.replies`) no older than the current moderator code.
Anything else from that address changes nothing: it is refused and the refusal goes to the
moderator address (`moderator_refused`).

Each command goes through the same deciding function as its CLI command (`pbem.app.control`,
`undo`, `absence`, `join`), so it writes the same chained moderator input or control row and the
players get the same notices and reports, and `verify` replays it.  All of it happens in the
message's transaction (exactly once: a poll killed before the commit applies nothing and reads
the mail again).  The commands run in order; a line that cannot be read refuses the whole mail
before anything is done; a command the game refuses (a GameError) stops there, and what was done
before it stays done.  The moderator gets one acknowledgement (`moderator_ack`) saying what was
done, what was refused with why, and what would be accepted.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from pbem.app.answers import Outgoing, short
from pbem.app.decision import Decision, GameError
from pbem.app.game_names import unknown_game
from pbem.app.moderator_commands import arguments_problem, run, waiting_lines
from pbem.app.settle import settle
from pbem.home.app import Home
from pbem.home.policy import Policy
from pbem.mail.inbound.message import Inbound
from pbem.mail.inbound.redact import codes_in_text, redact_text
from pbem.mail.inbound.replies import SentMail, looked_up
from pbem.mail.inbound.storage import scrub
from pbem.mail.outbound.outgoing import REDACTED
from pbem.orders.extract import Extracted
from pbem.orders.moderator import ACCEPTED, Read, is_command, read
from pbem.orders.own_mail import without_copies
from pbem.record import moderator_code, outbox, store
from pbem.record.answered import sent_mails
from pbem.record.db import Unit
from pbem.trust import codes

if TYPE_CHECKING:
    from pbem.app.waiting import Waiting


def is_moderator(policy: Policy, msg: Inbound) -> bool:
    """Is `msg` from the moderator's own address (then it is read as commands, never as orders)?"""
    return bool(msg.sender) and msg.sender.lower() == policy.moderator_address.lower()


# --------------------------------------------------------------------------- the moderator code


def make_code(home: Home, when: datetime, replace: bool = True) -> str | None:
    """A new moderator code, stored hashed; returned once to be shown.  `replace` False (`pbem init`): keep
    the code there is (returns None)."""
    with home.units() as s:
        if not replace and moderator_code.stored(s) is not None:
            return None
        code = codes.new_code()
        moderator_code.keep(s, codes.hash_code(code, home=home.policy.home), when)
        s.commit()
        return code


# --------------------------------------------------------------------------- the message


def _proof(s: Unit, msg: Inbound, policy: Policy, r: Read, sent: dict[str, SentMail], out: Outgoing) -> str:
    """How the mail proves it is the moderator's ("reply" or "code"), or "" (then it is refused)."""
    kept = moderator_code.stored(s)
    since = kept[1].replace(tzinfo=None) if kept else None
    for ref in looked_up(msg.references):
        mail = sent.get(ref)
        if mail is None or mail.to_addr.lower() != policy.moderator_address.lower() or mail.player:
            continue
        if since is None or mail.created_at is None or mail.created_at.replace(tzinfo=None) >= since:
            return "reply"
    if not r.code or kept is None:
        return ""
    # a forged From with made-up codes costs what a player's would: no code is checked past the address's
    # answers budget; the moderator's own code is derived once per process (the seat checks' cache, under a
    # key of its own for each stored hash, so a new code is never answered from the old one's entry)
    if not out.allowed(policy.moderator_address):
        return ""
    key = -1 - int(hashlib.sha256(kept[0].encode()).hexdigest()[:12], 16)
    return "code" if codes.check_seat_code(key, r.code, kept[0]) else ""


def _answered_before(s: Unit, msg: Inbound, policy: Policy, sent: dict[str, SentMail]) -> str:
    """When the refused mail answers pbem's mail to the moderator address sent before the moderator code was made:
    when the code was made ("" if not so), for the refusal to say why the reply counts for nothing (walk7: a reply to
    an older acknowledgement was told only "it carried no moderator code")."""
    kept = moderator_code.stored(s)
    if not kept:
        return ""
    since, mine = kept[1].replace(tzinfo=None), policy.moderator_address.lower()
    answered = [m for ref in looked_up(msg.references) if (m := sent.get(ref)) is not None]
    old = [
        m
        for m in answered
        if m.to_addr.lower() == mine and not m.player and (m.created_at or kept[1]).replace(tzinfo=None) < since
    ]
    return f"{since:%Y-%m-%d %H:%M} UTC" if old else ""


def decide_and_apply(
    s: Unit, policy: Policy, msg: Inbound, raw: bytes, when: datetime, first: object = None
) -> Decision:
    """Inside the message's transaction: read, authenticate, run the commands, acknowledge, record the message."""
    moderator = policy.moderator_address
    refs = tuple(msg.references)
    sent = sent_mails(s, refs) if refs else {}
    mine = [sent[r] for r in looked_up(refs) if r in sent and sent[r].to_addr.lower() == moderator.lower()]
    from pbem.app.reading import sent_texts

    texts = [t for m in mine[:3] for t in sent_texts(m.raw) if t]
    text = without_copies(msg.text, texts, keep=is_command, redacted=REDACTED) if texts else msg.text
    r = read(text) if not msg.problem else Read()
    msg, raw, _ = scrub(msg, raw, Extracted(code=r.code), policy.max_stored_player)
    hidden = ({r.code} if r.code else set()) | codes_in_text(text)
    r.chatter = [redact_text(x, hidden) for x in r.chatter]
    r.problems = [(redact_text(x, hidden), why) for x, why in r.problems]
    r.commands = [  # a code in a command (UNDO's reason is public) is never kept, echoed or run
        replace(c, line=redact_text(c.line, hidden), args=tuple(redact_text(a, hidden) for a in c.args))
        for c in r.commands
    ]
    name = r.game or msg.game
    game = store.game_by_name(s, name) if name else None
    windows = outbox.answers_in_last_hour(s, [moderator], when)
    out = Outgoing(msg, {}, policy.replies_per_hour, game.id if game else None, windows, when)
    d = Decision(game=game.name if game else "")
    loaded = store.load(s, game) if game is not None else None
    if first is not None:
        d = Decision("duplicate", "a copy of a moderator's mail already read", duplicate_of=getattr(first, "id", None))
    elif msg.auto:
        d = Decision("ignored", f"not answered: {msg.auto}")
    elif not (r.commands or r.problems) and not msg.problem:
        d = Decision("ignored", "a mail from the moderator address with no command")
    elif not _proof(s, msg, policy, r, sent, out):
        d.outcome, d.reason = "rejected", "moderator mail refused: no valid moderator code and no reply to pbem"
        _tell(d, out, "moderator_refused", code_given=bool(r.code), before=_answered_before(s, msg, policy, sent))
    else:
        _commands(s, policy, d, out, r, name, game is not None, msg, when)
        loaded = store.load(s, game) if game is not None else None  # as it stands after the commands
    settle(s, policy, d, when, loaded, inbound=(msg, raw))
    return d


def _commands(
    s: Unit,
    policy: Policy,
    d: Decision,
    out: Outgoing,
    r: Read,
    name: str | None,
    known: bool,
    msg: Inbound,
    when: datetime,
) -> None:
    """Run an authenticated mail's commands in order and queue the acknowledgement."""
    problems = list(r.problems)
    if msg.problem:
        problems.append(("", msg.problem))
    every = bool(r.commands) and all(c.word == "WAITING" for c in r.commands)  # every game's: none need be named
    if (not name or not known) and not (every and not name):
        why = unknown_game(name, store.game_names(s)) if name else "name the game: a line GAME <name>"
        problems.append((f"GAME {name}" if name else "", why))
    problems += [(c.line, p) for c in r.commands if (p := arguments_problem(c))]
    done: list[dict[str, object]] = []  # line, done (what it did), listed (WAITING's lines), told (players)
    refused: list[dict[str, str]] = [{"line": short(x), "why": why} for x, why in problems]
    left: list[str] = []
    all_waiting: list[Waiting] | None = None  # every game waiting, loaded once a mail (WAITING 20 times: once)
    if not problems:
        from pbem.app.waiting import MAIL_LINES, waiting_in

        room = MAIL_LINES  # lines the mail's WAITING lists may still take
        for i, c in enumerate(r.commands):
            try:
                if c.word == "WAITING":
                    all_waiting = waiting_in(s, when) if all_waiting is None else all_waiting
                    said, listed = waiting_lines(s, c, when, all_waiting, max(room, 0))
                    if listed and any(x["listed"] == listed for x in done):  # the same list: not written again
                        said, listed = f"{said} (listed above)", []
                    room -= len(listed)
                    done.append({"line": short(c.line), "done": said, "listed": listed, "told": False})
                    continue
                assert name is not None
                said = run(s, policy, name, c, when, i)
                done.append({"line": short(c.line), "done": said, "listed": [], "told": True})
            except GameError as exc:
                refused.append({"line": short(c.line), "why": str(exc)})
                left = [short(x.line) for x in r.commands[i + 1 :]]
                break
    d.outcome = "accepted" if done else "rejected"
    d.reason = f"moderator: {len(done)} done" + (f", refused: {refused[0]['why']}" if refused else "")
    _tell(d, out, "moderator_ack", done=done, refused=refused, left=left, chatter=[short(x) for x in r.chatter])


def _tell(d: Decision, out: Outgoing, kind: str, **ctx: object) -> None:
    """The answer to the moderator's mail, to the moderator address (within its answers budget)."""
    to = out.msg.sender.lower()
    if out.admit(d, to):
        context = {"game_name": d.game, "subject_in": short(out.msg.subject), "accepted": list(ACCEPTED), **ctx}
        d.effects.append(out.mail(to, kind, "ack", context))
