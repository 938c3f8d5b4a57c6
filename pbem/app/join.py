"""The join step as the moderator runs it: invitations, JOIN messages, the deadline, `pbem game start`.

The rules (the join state, the salts, the dealing seed) are in `pbem.trust.deal`;
this module decides what each event of the step does, pure on plain objects:

* `invitation` is the first mail of a game with a join step (its code, the
  seed commitment, how to JOIN and SALT); `pbem.app.reporting` sends it in
  place of a report while the step is open (creation, STATUS, a replacement).
* `decide_join` takes one authenticated player's JOIN (and SALT) lines: it is
  recorded as a "join" input in the chain and acknowledged; a second JOIN is
  refused politely (the salt is fixed once given).  The JOIN that completes the
  step deals: every player gets their first report, which says the salts; the
  joiner's answers their JOIN at its top (one mail, as a reply's report does).
* `decide_join_deadline`: nobody is defaulted in; the moderator is mailed who
  is missing and the two commands that go on (`replace`, `start`), again after
  each further period while the step stays open.  Each move of the join
  deadline is a public `join-missing` event stating the new one, mailed to
  nobody, so `pbem verify` computes it (`pbem.trust.paced`, fairness17).
* `decide_start`: the moderator starts without the missing salts (they count
  as empty), recorded as a "start" input in the chain.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pbem.app import views
from pbem.app.answers import Outgoing, ack_context
from pbem.app.decision import Control, Decision, Effect, Events, GameError, Input, NewDeadline, Report
from pbem.app.lines import repeat_note, without_prose
from pbem.engine.base import Engine, Event, Outcome, State
from pbem.mail.inbound.message import Inbound
from pbem.mail.outbound.outgoing import Mail
from pbem.record import store
from pbem.record.db import Unit
from pbem.record.rows import Deadline, Game, Seat
from pbem.trust import deal as joining
from pbem.trust import paced
from pbem.trust.chain import iso


def is_open(loaded: store.Loaded) -> bool:
    return joining.is_joining(loaded.state)


def missing(loaded: store.Loaded) -> list[str]:
    """The players who have not joined, in seat order."""
    done = joining.joined(loaded.state)
    return [p for p in views.players(loaded) if p not in done]


def invitation(
    loaded: store.Loaded,
    player: str,
    *,
    code: str | None,
    due: datetime | None,
    takeover: bool = False,
    moderator: str = "",
) -> dict[str, Any]:
    """The context of the join invitation (template join_invite) for `player`."""
    game = loaded.game
    done = joining.joined(loaded.state)
    return {
        "title": views.engine(loaded).title,
        "game_name": game.name,
        "player": player,
        "players": views.players(loaded),
        "joined": player in done,
        "salt": done.get(player),
        "waiting": missing(loaded),
        "commitment": game.seed_commitment,
        "insecure_seed": bool(game.insecure_seed),
        "salt_max": joining.SALT_MAX,
        "deadline": f"{due:%Y-%m-%d %H:%M} UTC" if due else None,
        "code": code,
        "takeover": takeover,
        "moderator": moderator,
    }


def decide_join(
    d: Decision, out: Outgoing, msg: Inbound, loaded: store.Loaded, seat: Seat, lines: list[str], notes: Any = ()
) -> Decision:
    """One authenticated player's JOIN / SALT lines (the code was checked): record, acknowledge, deal if complete.
    `notes`: what the acknowledgement says besides (a reply's CODE line that was not the player's code)."""
    eng = views.engine(loaded)
    lines, said, result = joined_lines(eng, loaded.state, seat.player, lines)
    notes = [*notes, *said]
    salt = joining.joined(result.state).get(seat.player) if joining.is_joining(result.state) else None
    dealt = not joining.is_joining(result.state)
    if dealt:
        salt = _salt_of(result, views.players(loaded).index(seat.player))
    ctx: dict[str, Any] = {
        "game_name": loaded.game.name,
        "subject_in": msg.subject,
        "player": seat.player,
        "accepted": result.accepted,
        "already": seat.player in joining.joined(loaded.state),
        "refused": [{"line": r.line, "reason": r.reason, "legal": list(r.legal)} for r in result.lines if not r.ok],
        "salt": salt,
        "waiting": [] if dealt else sorted(p for p in views.players(loaded) if p not in joining.joined(result.state)),
        "dealt": dealt,
        "problems": [str(n) for n in notes],
    }
    if not result.accepted:
        d.outcome = "rejected"
        d.reason = "; ".join(f"{r.line!r}: {r.reason}" for r in result.lines if not r.ok)
    else:
        d.outcome, d.reason = "accepted", "joined"
        d.effects.append(Input("join", seat.player, tuple(lines), result))
    admitted = out.admit(d, seat.address, player=seat.player, to_name=seat.display_name)
    if admitted and not dealt:
        d.effects.append(out.mail(seat.address, "join_ack", "ack", ctx, player=seat.player, to_name=seat.display_name))
    if dealt:
        acked = _acked(msg, loaded, result, notes) if admitted else None
        d.effects += [_first_report(p, seat.player, acked, msg) for p in views.players(loaded)]
    return d


def joined_lines(eng: Engine, state: State, player: str, lines: list[str]) -> tuple[list[str], list[str], Outcome]:
    """(the JOIN and SALT lines kept, the notes on the lines set aside, their outcome): a line typed twice read once,
    and a footer or a closing under a JOIN (`pbem.app.lines.without_prose`: "Join us on Discord", "Join the club!")
    not read, as under any order: "JOIN" above "Join us on Discord" was refused whole (players27)."""
    lines = joining.split_join(lines)
    result: Outcome = eng.apply(state, player, lines)
    lines, repeats, result = once(eng, state, player, lines, result)
    kept, aside, result = (lines, [], result) if result.accepted else without_prose(eng, state, player, lines, result)
    return kept, [*(repeat_note(x) for x in repeats), *(footer_note(x) for x in aside)], result


def footer_note(line: str) -> str:
    """The note on a line under a JOIN set aside as a footer or a closing (`joined_lines`)."""
    return f'"{line}" was not read: it reads as a footer or a closing, not as a JOIN or SALT line'


def _first_report(player: str, joiner: str, acked: dict[str, Any] | None, msg: Inbound) -> Report:
    """A player's first report after the deal; the joiner's answers their JOIN at its top, one mail (walk6: they got
    "joined ... Your first report follows." and then the report, as a reply's acknowledgement and report were
    before issue 23).  The report lists every salt, theirs too, and its receipt names the JOIN input."""
    if player != joiner or acked is None:
        return Report(player, since=0, extra="dealt")
    return Report(player, since=0, extra="dealt", ack=acked, in_reply_to=msg.message_id, references=msg.references)


def _acked(msg: Inbound, loaded: store.Loaded, result: Outcome, notes: Any) -> dict[str, Any]:
    """The acknowledgement at the top of the joiner's first report: their JOIN and SALT lines applied, as an order
    message's ("Accepted and applied:", `pbem.trust.acked` reads them against the input), without the join step's
    readings (the salt as read is in the report's list of salts)."""
    lines = [{"line": r.line, "ok": True, "understood": ""} for r in result.lines if r.ok]
    return ack_context(msg, loaded, [], applied=True, lines=lines, problems=[str(n) for n in notes])


def once(
    eng: Engine, state: State, player: str, lines: list[str], result: Outcome
) -> tuple[list[str], list[str], Outcome]:
    """(lines kept, the repeats set aside, their outcome): a JOIN or SALT line typed again in the same message, the
    same words whatever the order word's case ("JOIN" then "join"; a salt's text as typed), is read once and the
    answer says so, as an order is (`pbem.app.lines.once`): "JOIN" twice was recorded "JOIN / JOIN" with no note,
    a SALT twice refused (walk6).  Kept as typed where reading it once changes the outcome otherwise."""
    seen: set[str] = set()
    kept: list[str] = []
    repeats: list[str] = []
    for line in lines:
        word, _, rest = line.strip().partition(" ")
        key = f"{word.casefold()} {' '.join(rest.split())}"  # a salt's text is the player's, case and all
        (repeats if key in seen else kept).append(line)
        seen.add(key)
    if not repeats:
        return lines, [], result
    again = eng.apply(state, player, kept)
    if again.accepted and (not result.accepted or again.state == result.state):
        return kept, repeats, again
    return lines, [], result


def _salt_of(result: Outcome, position: int) -> str:
    ev = next(e for e in result.events if e.kind == "salts")
    salt: str = ev.data["salts"][position]
    return salt


def decide_join_deadline(loaded: store.Loaded, dl: Deadline, when: datetime, moderator: str) -> Decision:
    """The join deadline passed with players missing: tell the moderator; ask again after another period."""
    name = loaded.game.name
    absent = [
        {"player": p, "address": st.address if st else "", "name": st.display_name if st else p}
        for p in missing(loaded)
        for st in [loaded.seat_for_player(p)]
    ]
    due = store.aware(dl.due_at) or when
    ctx = {"game_name": name, "missing": absent, "joined": sorted(joining.joined(loaded.state)), "due": _stamp(due)}
    again = when + timedelta(seconds=loaded.game.deadline_seconds)
    who = [p["player"] for p in absent]
    text = f"The join deadline passed without {', '.join(who)}; the moderator is told, and it moves to {_stamp(again)}."
    facts = {"action": paced.JOIN_MISSING, "step": joining.STEP, "deadline": iso(again), "players": who}
    effects: list[Effect] = [
        Mail(moderator, "join_missing", ctx, "alert", ("join-missing", name, dl.id), game_id=loaded.game.id),
        NewDeadline(joining.STEP, again, "join deadline passed: moderator told"),
        Events((Event("moderator", text, "public", facts),)),  # chained: the move is computed (fairness17)
    ]
    return Decision(game=name, effects=effects)


def decide_start(loaded: store.Loaded, control: str) -> Decision:
    """`pbem game start`: deal now; whoever has not joined counts with the empty salt."""
    name = loaded.game.name
    if control == "abandoned":
        raise GameError(f"game {name} is abandoned")
    if not is_open(loaded):
        raise GameError(f"game {name} has no open join step: it is already dealt")
    absent = missing(loaded)
    out = views.engine(loaded).timeout(loaded.state)
    effects: list[Effect] = [Control("start", ", ".join(absent)), Input("start", "", (), out)]
    effects += [Report(p, since=0, extra="dealt") for p in views.players(loaded)]
    return Decision(game=name, effects=effects)


def _stamp(due: datetime) -> str:
    return f"{due:%Y-%m-%d %H:%M} UTC"


# --------------------------------------------------------------------------- the shells


def order_words(s: Unit, game: Game) -> tuple[str, ...]:
    """The words an order line of `game` starts with now: JOIN and SALT while its join step is open."""
    assert game.id is not None
    step = store.current_step_name(s, game.id)
    if step == joining.STEP:
        return joining.ORDER_WORDS
    from pbem import engine as registry

    words: tuple[str, ...] = registry.get(game.kind).order_words
    return words
