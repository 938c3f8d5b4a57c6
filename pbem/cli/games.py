"""`pbem game ...`: create, list and show games, and the moderator's commands on a running game."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

import typer

from pbem.cli.common import _home, _why, checked, done, fail, game_app
from pbem.engine import kinds_text
from pbem.engine.words import count

T = TypeVar("T")


@game_app.command("new")
def game_new(
    kind: str = typer.Argument(..., help=kinds_text() + " (any case)."),
    name: str = typer.Option(..., "--name", help="Short game name used in subjects: [pbem NAME]."),
    player: list[str] = typer.Option(..., "--player", help='"Name <address>", once per player, in seat order.'),
    seed: str | None = typer.Option(
        None,
        help="Seed: 32 or more hex digits from a random source, e.g. `openssl rand -hex 32` (default: 256 random bits).",
    ),
    insecure_seed: bool = typer.Option(
        False, "--insecure-seed", help="Accept a weaker --seed; every report and the export then say so."
    ),
    deadline: str | None = typer.Option(None, help="Time per step, e.g. 48h (default from pbem.toml)."),
    option: list[str] = typer.Option(
        [], "--option", help="Game option KEY=VALUE: dynasties legacy=20, italian-wars sides=fixed (or lot)."
    ),
    join: bool = typer.Option(
        True,
        "--join/--no-join",
        help="Deal only once every player has replied JOIN (optionally with a SALT that stirs the deal), so that "
        "nobody, the moderator included, picks the deal. --no-join deals at once, for players who trust you.",
    ),
) -> None:
    """Create a game and queue every player's first mail: the invitation to JOIN (the deal follows the last
    JOIN), or with --no-join the first report of a game dealt at once.

    Example: pbem game new habsburg --name hh1 --player "Alice <a@x.org>" --player "Bob <b@x.org>" --player "Carol <c@x.org>"
    """
    from pbem.app.decision import GameError
    from pbem.app.games import Table, check_options, create_game
    from pbem.cli.support import parse_options, parse_player
    from pbem.engine import UnknownKind, canonical, get
    from pbem.home.config import step_length
    from pbem.trust.seeds import ascii_seed_problem, seed_problem

    weak = False
    if seed is not None:
        if problem := ascii_seed_problem(seed):
            fail(problem, 2)
        weak = seed_problem(seed) is not None
        if weak and not insecure_seed:
            fail(seed_problem(seed) or "", 2)
    try:  # usage errors (exit 2) before the home is opened
        kind = canonical(get(kind).kind)
        players = [parse_player(p) for p in player]
        dl = step_length(deadline) if deadline is not None else None
        options = check_options(kind, parse_options(option))
        table = Table(deadline=dl, options=options, insecure_seed=weak, join=join)
    except (ValueError, UnknownKind, GameError) as exc:
        fail(_why(exc), 2)
    home = _home()
    now = checked(home)
    try:
        game = create_game(home, kind, name, players, seed=seed, table=table, clock=lambda: now)
    except (ValueError, GameError) as exc:
        fail(_why(exc), 2)
    first = "invitations to JOIN queued; the deal follows the last JOIN" if join else "first reports queued"
    done(
        f"created {game.kind} game {game.name} for {', '.join(p for p, _ in players)}; "
        f"seed commitment {game.seed_commitment}; {first} (run pbem poll to send)",
        game.name,
    )
    if weak:
        typer.echo("warning: the seed is weaker than 128 bits (--insecure-seed); every report and the export say so")


ENDED = ("over", "abandoned")
TOLD = "; the players are told (run pbem poll to send)"  # as every command that mails them says (walk8)


@game_app.command("list")
def game_list(
    every: bool = typer.Option(False, "--all", help="Also list the games that are over or abandoned."),
) -> None:
    """List the running and paused games with their kind, players, status and current step; the games over or
    abandoned are counted in one line (`--all` lists them too).

    Example: pbem game list --all
    """
    from pbem.app.games import list_games

    rows = list_games(_home())
    if not rows:
        typer.echo("no games yet; create one with: pbem game new KIND --name NAME --player ...")
    ended = sum(g.status in ENDED for g in rows)
    for g in rows if every else [g for g in rows if g.status not in ENDED]:
        due = f"  (step {g.step}, due {g.due:%Y-%m-%d %H:%M} UTC)" if g.due else ""  # a time printed names its zone
        typer.echo(f"{g.name:16} {g.kind:15} {g.status:9} {', '.join(g.players)}{due}")
    if ended and not every:  # months of games: 500 ended ones hid the few running (benchmarks/months.py)
        typer.echo(f"and {count(ended, 'game')} over or abandoned (pbem game list --all lists them)")


@game_app.command("waiting")
def game_waiting(
    within: str | None = typer.Option(
        None,
        "--within",
        help="Only the games due within this time, e.g. 24h (those past their deadline always; 0m: only those).",
    ),
) -> None:
    """Who every running game waits for, at a glance: each game's deadline (those past it first), each player it
    waits for, when they last wrote to the game, whether they are away and what they are asked.  Changes nothing.

    Example: pbem game waiting --within 24h
    """
    from pbem.app.waiting import listed, waiting
    from pbem.home.config import parse_duration
    from pbem.record.store import now_utc

    try:
        span = parse_duration(within) if within is not None else None
    except ValueError as exc:
        fail(str(exc), 2)
    now = now_utc()
    games = waiting(_home(), now, span)
    if not games:
        typer.echo("no game waits for anyone" + (f" due within {within}" if within else ""))
        return
    for line in listed(games, now):
        typer.echo(line)


@game_app.command("show")
def game_show(
    name: str,
    as_player: str | None = typer.Option(
        None, "--as", help="Show exactly what this player is told (a unique prefix or first name will do)."
    ),
) -> None:
    """Show a game: the public view, or a player's private report with --as.

    Example: pbem game show hh1 --as Alice
    """
    from pbem.app.decision import GameError
    from pbem.app.games import show_game
    from pbem.render.templates import render

    try:
        shown = show_game(_home(), name, as_player)
    except GameError as exc:
        fail(str(exc), 2)
    if shown.report is not None:
        from pbem.record.store import now_utc

        # a report shown now: its deadline is told from now, as a mail rendered now would tell it
        context = {"now": now_utc().isoformat(), "record": None, "receipt": None, **shown.report}
        typer.echo(render("mail/report.txt.j2", **context))
        return
    assert shown.view is not None
    typer.echo(f"{shown.title}: {shown.name} - {shown.view['turn']}")
    typer.echo(render("mail/_sections.txt.j2", sections=shown.view["sections"]))
    typer.echo(waiting_line(shown.state, shown.waiting, shown.due))
    for line in shown.bouncing:
        typer.echo(line)


def waiting_line(state: str, waiting: list[str], due: datetime | None) -> str:
    """Who the game waits for, and until when: nobody in a game that is over or abandoned (it listed the players
    of its last step as awaited)."""
    if state in ("over", "abandoned"):
        return f"the game is {state}: it waits for nobody"
    until = f" (deadline {due:%Y-%m-%d %H:%M} UTC)" if due is not None and waiting else ""
    paused = "; the game is paused: no deadline passes until pbem game resume" if state == "paused" else ""
    return f"waiting for: {', '.join(waiting) or 'nobody'}{until}{paused}"


def _control(fn: Callable[..., T], name: str, *args: object) -> tuple[T, str]:
    """Run the use case `fn` on the game `name` names (any case) with `args` and now; its result, and the game's
    name as the game is named (what the command prints and logs: the name as typed named it in any case)."""
    from pbem.app.decision import GameError
    from pbem.app.games import game_named

    home = _home()
    now = checked(home)
    try:
        name = game_named(home, name)
        return fn(home, name, *args, now), name
    except GameError as exc:
        fail(str(exc), 2)


@game_app.command("extend", context_settings={"ignore_unknown_options": True})
def game_extend(name: str, by: str = typer.Argument(..., help="How much longer, e.g. 24h or 2d.")) -> None:
    """Move the current deadline of a game later; every player is told.

    Example: pbem game extend hh1 24h
    """
    from pbem.app.control import extend
    from pbem.home.config import extension

    try:
        delta = extension(by)
    except ValueError as exc:
        fail(str(exc), 2)
    due, name = _control(extend, name, delta)
    done(f"deadline of {name} is now {due:%Y-%m-%d %H:%M} UTC" + TOLD, name)


@game_app.command("pause")
def game_pause(name: str) -> None:
    """Pause a game: no deadline passes until it is resumed.

    Example: pbem game pause hh1
    """
    from pbem.app.control import pause

    _, name = _control(pause, name)
    done(f"{name} paused" + TOLD, name)


@game_app.command("resume")
def game_resume(name: str) -> None:
    """Resume a paused game; the deadline moves on by the time it was paused.

    Example: pbem game resume hh1
    """
    from pbem.app.control import resume

    due, name = _control(resume, name)
    done(f"{name} resumed" + (f"; deadline {due:%Y-%m-%d %H:%M} UTC" if due else "") + TOLD, name)


@game_app.command("abandon")
def game_abandon(name: str) -> None:
    """Abandon a game: no more orders are accepted; players are told.

    Example: pbem game abandon hh1
    """
    from pbem.app.control import abandon

    _, name = _control(abandon, name)
    done(f"{name} abandoned" + TOLD, name)


@game_app.command("keep")
def game_keep(name: str) -> None:
    """Keep a game running whose players have gone silent (the moderator was mailed after `[games] silent_deadlines`
    deadlines without their mail): told again only after as many deadlines more.  The players are not told.

    Example: pbem game keep hh1
    """
    from pbem.app.silence import keep

    _, name = _control(keep, name)
    done(f"{name} kept running; you are told again if it goes on without a player's mail", name)


@game_app.command("process")
def game_process(name: str) -> None:
    """Apply the open step's deadline now, when it asks nobody but players who resigned: the next poll applies
    their seats' published defaults, as at any deadline; every other player is told.  Refused while anyone who
    did not resign is still asked (the deadline is theirs), in a paused game, and in the join step.

    Example: pbem game process hh1
    """
    from pbem.app.processing import process

    players, name = _control(process, name)
    done(f"the deadline of {name} is now: the next pbem poll applies the defaults of {', '.join(players)}", name)


@game_app.command("address")
def game_address(
    name: str,
    player: str = typer.Argument(..., help="The player whose seat gets its mail at the new address."),
    address: str = typer.Argument(..., help="The new address, e.g. alice@example.org."),
) -> None:
    """Move a seat's mail to a new address (same player, code and history); the old address, the new one and the
    moderator are told.  A player can do it by mail (ADDRESS new@example.org, confirmed from the new address).

    Example: pbem game address hh1 Alice alice@example.org
    """
    from pbem.app.addresses import move

    player, name = _control(lambda home, n, p, when: move(home, n, p, address, when), name, player)
    done(
        f"{player}'s seat in {name} gets its mail at {address.lower()} from now on; the old and new addresses are told",
        name,
    )


@game_app.command("replace")
def game_replace(
    name: str,
    old: str = typer.Argument(..., help="The player whose seat is taken over."),
    new: str = typer.Argument(..., help='The newcomer, "Name <address>".'),
) -> None:
    """Give a seat to a new person under their own name: a fresh code and a full report go to the new address,
    the replaced player and the others are told.

    Example: pbem game replace hh1 Carol "Dora <dora@example.org>"
    """
    from pbem.app.control import replace
    from pbem.cli.support import parse_player

    try:
        newcomer = parse_player(new)
    except ValueError as exc:
        fail(str(exc), 2)
    old, name = _control(lambda home, n, o, when: replace(home, n, o, newcomer, when), name, old)
    done(
        f"{newcomer[0]} <{newcomer[1]}> now plays the seat of {old} in {name} as {newcomer[0]}; "
        "their code and the seat's mail (its full report; before the deal, the invitation to JOIN) are queued, and "
        "the players are told (run pbem poll to send)",
        name,
    )


@game_app.command("start")
def game_start(name: str) -> None:
    """Deal a game whose join step is still open: players who have not joined count with no salt.

    Example: pbem game start hh1
    """
    from pbem.app.control import start

    absent, name = _control(start, name)
    without = f" without the salt of {', '.join(absent)}" if absent else ""
    done(f"{name} dealt{without}; first reports queued (run pbem poll to send)", name)


@game_app.command("code")
def game_code(name: str, player: str) -> None:
    """Issue a new secret code to a player (mailed only to their registered address).

    Example: pbem game code hh1 Alice
    """
    from pbem.app.control import new_player_code

    player, name = _control(new_player_code, name, player)
    done(f"a new code for {player} is queued; run pbem poll to send it (it is never shown here)", name)


@game_app.command("resend")
def game_resend(name: str, player: str) -> None:
    """Mail a player their current report again (as their STATUS would): the state, what is asked now and the
    deadline, to their registered address only; in a game paused, over or abandoned too.  Changes nothing.

    Example: pbem game resend hh1 Alice
    """
    from pbem.app.resend import resend

    player, name = _control(resend, name, player)
    done(f"{player}'s current report is queued to their registered address; run pbem poll to send it", name)


@game_app.command("say")
def game_say(
    name: str,
    text: str = typer.Argument(..., help="The message: one paragraph, at most 400 characters, no player code."),
) -> None:
    """Send a message to every player of a game (Judge's broadcast): kept in the game's record as a public
    moderator event (the export, the site and pbem verify show it), mailed to every current player.

    Example: pbem game say hh1 "The deadline holds over the holidays; play on."
    """
    from pbem.app.say import say

    told, name = _control(say, name, text)
    done(f"your message to every player of {name} ({', '.join(told)}) is queued; run pbem poll to send it", name)


@game_app.command("away", context_settings={"ignore_unknown_options": True})
def game_away(
    name: str,
    player: str,
    until: str = typer.Argument(..., help="When they are back: a date (2026-12-24), a number of days, or back."),
) -> None:
    """Set a player's absence, as if they had written AWAY (or with `back`, BACK).

    While a step waits for an away player, its deadline moves to their return, for
    at most [games] max_away in all per player and game; everyone is told.

    Example: pbem game away hh1 Alice 2026-12-24
    """
    from pbem.app.absence import set_away

    try:
        (player, back), name = _control(set_away, name, player, until)
    except ValueError as exc:  # not a date, a number of days or back: a usage error
        fail(str(exc), 2)
    said = f"{player} is away in {name} until {back:%Y-%m-%d %H:%M} UTC" if back else f"{player} is back in {name}"
    done(said + TOLD, name)  # the date as every other line of pbem's prints one (walk8: "Wed 09 Dec 2026 05:06 UTC")


@game_app.command("undo")
def game_undo(
    name: str,
    to: int = typer.Option(..., "--to", help="The input to go back to: the game is as it was right after it."),
    why: str = typer.Option(..., "--why", help="The reason, told to every player and kept in the record."),
    reroll: bool = typer.Option(
        False, "--reroll", help="Draw anew after the undo (public); by default draws are replayed as they were."
    ),
) -> None:
    """Take a game back to the state after input SEQ (see the inputs with pbem game inputs NAME).

    The later inputs stay in the record, marked undone by a chained undo input that
    pbem verify replays; every player gets a report saying to which point the game
    went back, which of their own orders were undone, and what is asked now (no
    player reads SEQ: it counts everyone's inputs).  By default the random draws after that point come out as they did
    (nobody can undo a draw to get another); --reroll makes them new, and says so.

    Example: pbem game undo hh1 --to 12 --why "Bob's order was misread"
    """
    from pbem.app.undo import undo

    undone, name = _control(undo, name, to, why, reroll)
    done(f"{name} is back after input {to}; undone: {_spans(undone) or 'nothing'}", name)


def _spans(seqs: list[int]) -> str:
    """Numbers as runs: [4, 5, 6, 9] -> "4 to 6, 9"."""
    runs: list[list[int]] = []
    for n in seqs:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(str(a) if a == b else f"{a} to {b}" for a, b in runs)


@game_app.command("inputs")
def game_inputs(
    name: str,
    last: int = typer.Option(0, "--last", min=0, help="Only the last N inputs (0: all)."),
) -> None:
    """List a game's inputs, numbered as pbem game undo --to takes them: when, whose, and the lines applied.

    Inputs a later undo took back are marked. The lines are the moderator's to see: secret orders too.

    Example: pbem game inputs hh1 --last 10
    """
    from pbem.app.decision import GameError
    from pbem.app.undo import listed

    try:
        rows = listed(_home(), name)
    except GameError as exc:
        fail(str(exc), 2)
    if not rows:
        typer.echo(f"{name} has no input yet")
        return
    for r in rows[-last:] if last else rows:
        who = r.player or "moderator"
        what = " / ".join(" ".join(line.split()) for line in r.lines)
        if r.kind == "undo" and len(r.lines) == 3:
            what = f"back to input {r.back_to if r.back_to is not None else r.lines[0]} ({r.lines[1]}): {r.lines[2]}"
        what = what if len(what) <= 100 else what[:99] + "…"
        mark = f"  (undone by {r.undone_by})" if r.undone_by else ""
        typer.echo(f"{r.seq:5}  {r.when:%Y-%m-%d %H:%M}  {r.kind:8} {who:16} {what}{mark}")


@game_app.command("mail")
def game_mail(
    name: str, mode: str = typer.Argument(..., help="watch (every move), normal (when it matters) or digest.")
) -> None:
    """Set how much mail the players of a game get by default; each player may still choose for
    themselves by sending WATCH, NORMAL or DIGEST alone on a line.

    Example: pbem game mail hh1 digest
    """
    from pbem.app.mailing import said, set_default

    (chosen, already), name = _control(set_default, name, mode)
    if already:  # nothing to do: said in one line, exit 2, as a second `game pause` is (walk7: it exited 0)
        fail(said(name, chosen, already), 2)
    done(said(name, chosen, already), name)
