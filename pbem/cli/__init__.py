"""The `pbem` command line (Typer).  Thin: parse options, call one function, print.

Heavy modules are imported inside the commands, so that an idle cron run
(`pbem poll` with nothing to do) costs little more than starting Python.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer
from typer.core import TyperGroup

from pbem.engine import kinds_text
from pbem.engine.words import count
from pbem.history.formats import FORMATS as EXPORT_FORMATS
from pbem.history.formats import help_text as formats_help

_state: dict = {"config": None}


def _set_config(_ctx: object, _param: object, value: object) -> None:
    if value is not None:
        _state["config"] = Path(str(value))


def _add_config_option(group: TyperGroup, template: Any) -> None:
    for cmd in group.commands.values():
        if not any(p.name == "config" for p in cmd.params):
            opt = copy.copy(template)
            opt.expose_value, opt.callback, opt.envvar = False, _set_config, None
            cmd.params.insert(0, opt)
        if isinstance(cmd, TyperGroup):
            _add_config_option(cmd, template)


class _ConfigEverywhere(TyperGroup):
    """The root group: `--config PATH` is taken before the command and after it, by every command."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        _add_config_option(self, next(p for p in self.params if p.name == "config"))


# rich_markup_mode=None: help texts are printed as written (rich markup would eat "[pbem NAME]").
app = typer.Typer(
    cls=_ConfigEverywhere,
    help="pbem: a play-by-email moderator for hidden-information card and board games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
game_app = typer.Typer(help="Create, list and inspect games.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(game_app, name="game")


def _why(exc: Exception) -> str:
    """An exception's own message, intact (str() of a KeyError adds quotes; stripping them garbled quoted input)."""
    return exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)


def fail(message: str, code: int = 1) -> NoReturn:
    typer.echo(f"pbem: {message}", err=True)
    raise typer.Exit(code)


def _cfg(schema: bool = True):
    """The configuration; with `schema`, also a database holding this pbem's tables (else exit 2 naming the fix)."""
    from pbem.home.config import ConfigError, load

    try:
        cfg = load(_state["config"])
    except ConfigError as exc:
        fail(str(exc), 2)
    if schema:
        from pbem.record.db import DatabaseError
        from pbem.record.schema import SchemaError, check

        try:
            check(cfg.database_url, cfg.path)
        except SchemaError as exc:
            fail(str(exc), 2)
        except DatabaseError as exc:
            fail(str(exc), 3)
    return cfg


def _show_version(value: bool) -> None:
    if value:
        from pbem import __version__

        typer.echo(f"pbem {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    config: Path | None = typer.Option(
        None,
        "--config",
        "-c",
        envvar="PBEM_CONFIG",
        help="The configuration file (default ./pbem.toml); before or after the command.",
    ),
    version: bool = typer.Option(False, "--version", callback=_show_version, is_eager=True, help="Print the version."),
) -> None:
    """Run `pbem COMMAND --help` for each command's options and an example."""
    _state["config"] = config


@app.command()
def init(
    directory: Path = typer.Argument(..., help="Folder for pbem.toml, the database and the Maildirs."),
    address: str = typer.Option("moderator@example.org", help="The moderator's email address."),
    name: str = typer.Option("pbem moderator", help="The moderator's display name."),
    force: bool = typer.Option(False, help="Overwrite an existing pbem.toml."),
) -> None:
    """Create a moderator home: DIR/pbem.toml (every key explained) and the database.

    Example: pbem init ~/pbem --address games@example.org
    """
    from pbem.cli.support import init_home

    try:
        path = init_home(directory, address=address, name=name, force=force)
    except FileExistsError as exc:
        fail(str(exc))
    typer.echo(f"wrote {path} and created the database; edit the file, then run: pbem --config {path} game new ...")


@app.command()
def upgrade() -> None:
    """Upgrade the database schema to this version of pbem (run after every pip upgrade).

    Example: pbem --config ~/pbem/pbem.toml upgrade
    """
    from pbem.record.db import migrate
    from pbem.record.schema import sqlite_file

    cfg = _cfg(schema=False)
    if (file := sqlite_file(cfg.database_url)) is not None:
        file.parent.mkdir(parents=True, exist_ok=True)
    migrate(cfg.database_url)
    typer.echo("database schema is up to date")


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
    option: list[str] = typer.Option([], "--option", help="Game option KEY=VALUE, e.g. legacy=20."),
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
    from pbem.app.games import create_game
    from pbem.cli.support import parse_options, parse_player
    from pbem.engine import UnknownKind, canonical
    from pbem.home.config import parse_duration
    from pbem.trust.seeds import ascii_seed_problem, seed_problem

    weak = False
    if seed is not None:
        if problem := ascii_seed_problem(seed):
            fail(problem)
        weak = seed_problem(seed) is not None
        if weak and not insecure_seed:
            fail(seed_problem(seed) or "")
    cfg = _cfg()
    try:
        players = [parse_player(p) for p in player]
        dl = parse_duration(deadline) if deadline else None
        game = create_game(
            cfg,
            canonical(kind),
            name,
            players,
            seed=seed,
            deadline=dl,
            options=parse_options(option),
            insecure_seed=weak,
            join=join,
        )
    except (ValueError, GameError, UnknownKind) as exc:
        fail(_why(exc))
    first = "invitations to JOIN queued; the deal follows the last JOIN" if join else "first reports queued"
    typer.echo(
        f"created {game.kind} game {game.name} for {', '.join(p for p, _ in players)}; "
        f"seed commitment {game.seed_commitment}; {first} (run pbem poll to send)"
    )
    if weak:
        typer.echo("warning: the seed is weaker than 128 bits (--insecure-seed); every report and the export say so")


@game_app.command("list")
def game_list() -> None:
    """List games with their kind, players, status and current step.

    Example: pbem game list
    """
    from pbem.app.games import list_games

    rows = list_games(_cfg())
    if not rows:
        typer.echo("no games yet; create one with: pbem game new KIND --name NAME --player ...")
    for g in rows:
        due = f"  (step {g.step}, due {g.due:%Y-%m-%d %H:%M})" if g.due else ""
        typer.echo(f"{g.name:16} {g.kind:15} {g.status:9} {', '.join(g.players)}{due}")


@game_app.command("show")
def game_show(
    name: str, as_player: str | None = typer.Option(None, "--as", help="Show exactly what this player is told.")
) -> None:
    """Show a game: the public view, or a player's private report with --as.

    Example: pbem game show hh1 --as Alice
    """
    from pbem.app.decision import GameError
    from pbem.app.games import show_game
    from pbem.render.templates import render

    try:
        shown = show_game(_cfg(), name, as_player)
    except GameError as exc:
        fail(str(exc))
    if shown.report is not None:
        typer.echo(render("mail/report.txt.j2", **shown.report))
        return
    assert shown.view is not None
    typer.echo(f"{shown.title}: {shown.name} - {shown.view['turn']}")
    typer.echo(render("mail/_sections.txt.j2", sections=shown.view["sections"]))
    typer.echo(f"waiting for: {', '.join(shown.waiting) or 'nobody'}")


def _control(fn, *args):
    from pbem.app.decision import GameError
    from pbem.record.store import now_utc

    cfg = _cfg()
    try:
        return fn(cfg, *args, now_utc())
    except GameError as exc:
        fail(str(exc))


@game_app.command("extend")
def game_extend(name: str, by: str = typer.Argument(..., help="How much longer, e.g. 24h or 2d.")) -> None:
    """Move the current deadline of a game later; every player is told.

    Example: pbem game extend hh1 24h
    """
    from pbem.app.control import extend
    from pbem.home.config import parse_duration

    try:
        delta = parse_duration(by)
    except ValueError as exc:
        fail(str(exc), 2)
    due = _control(extend, name, delta)
    typer.echo(f"deadline of {name} is now {due:%Y-%m-%d %H:%M} UTC")


@game_app.command("pause")
def game_pause(name: str) -> None:
    """Pause a game: no deadline passes until it is resumed.

    Example: pbem game pause hh1
    """
    from pbem.app.control import pause

    _control(pause, name)
    typer.echo(f"{name} paused")


@game_app.command("resume")
def game_resume(name: str) -> None:
    """Resume a paused game; the deadline moves on by the time it was paused.

    Example: pbem game resume hh1
    """
    from pbem.app.control import resume

    due = _control(resume, name)
    typer.echo(f"{name} resumed" + (f"; deadline {due:%Y-%m-%d %H:%M} UTC" if due else ""))


@game_app.command("abandon")
def game_abandon(name: str) -> None:
    """Abandon a game: no more orders are accepted; players are told.

    Example: pbem game abandon hh1
    """
    from pbem.app.control import abandon

    _control(abandon, name)
    typer.echo(f"{name} abandoned")


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
    _control(lambda cfg, n, o, when: replace(cfg, n, o, newcomer, when), name, old)
    typer.echo(
        f"{newcomer[0]} <{newcomer[1]}> now plays the seat of {old} in {name} as {newcomer[0]}; "
        "their code and report are queued, and the players are told"
    )


@game_app.command("start")
def game_start(name: str) -> None:
    """Deal a game whose join step is still open: players who have not joined count with no salt.

    Example: pbem game start hh1
    """
    from pbem.app.control import start

    absent = _control(start, name)
    without = f" without the salt of {', '.join(absent)}" if absent else ""
    typer.echo(f"{name} dealt{without}; first reports queued (run pbem poll to send)")


@game_app.command("code")
def game_code(name: str, player: str) -> None:
    """Issue a new secret code to a player (mailed only to their registered address).

    Example: pbem game code hh1 Alice
    """
    from pbem.app.control import new_player_code

    _control(new_player_code, name, player)
    typer.echo(f"a new code for {player} is queued; run pbem poll to send it (it is never shown here)")


@app.command()
def poll(
    dry_run: bool = typer.Option(False, "--dry-run", help="Parse and report, change nothing, send nothing."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log each message handled."),
    timings: bool = typer.Option(False, "--timings", help="Also print where the run's time went."),
) -> None:
    """Read new mail, apply orders and due deadlines, send queued mail.  Run it from cron.

    Exit codes:

    \b
      0  done (or another poll was already running on this home)
      1  an unexpected error, a bug: the traceback is printed; nothing is lost
      2  bad configuration, or the database needs `pbem upgrade` (one line says what to run)
      3  the mail server or the database could not be used (nothing is lost: the next run carries on)

    Example: pbem --config ~/pbem/pbem.toml poll
    """
    from pbem.app.cron import run_poll
    from pbem.home.config import ConfigError
    from pbem.home.logs import setup
    from pbem.mail.transports.seam import TransportError
    from pbem.record.db import DatabaseError

    cfg = _cfg()
    setup(
        "DEBUG" if verbose else cfg.log_level,
        cfg.log_file,
        secrets=[cfg.imap.password, cfg.smtp.password] + _env_secrets(cfg),
    )
    try:
        run = run_poll(cfg, dry_run=dry_run)
    except (TransportError, DatabaseError, ConfigError) as exc:
        import logging

        logging.getLogger("pbem").error("poll stopped: %s", exc)
        fail(str(exc), 3)
    if run.summary is None:
        typer.echo(run.skipped)
        return
    typer.echo(("dry run: " if dry_run else "") + run.summary.line())
    if timings and run.summary.timings:
        typer.echo(run.summary.timing_line())


@app.command()
def check() -> None:
    """Try the mail settings: log in to IMAP and SMTP and list the folders pbem uses.  Sends nothing.

    Exit codes: 0 a poll would work; 1 a check failed (its line says what to change);
    2 the configuration file is wrong.

    Example: pbem --config ~/pbem/pbem.toml check
    """
    from pbem.mail.check import checks

    failed = False
    for result in checks(_cfg()):
        typer.echo(result.line())
        failed = failed or not result.ok
    if failed:
        raise typer.Exit(1)


def _env_secrets(cfg) -> list[str]:
    import os

    return [os.environ.get(v, "") for v in (cfg.imap.password_env, cfg.smtp.password_env) if v]


@app.command()
def export(
    name: str | None = typer.Argument(None, help="The game to export."),
    format: str = typer.Option(
        "json",
        "--format",
        "-f",
        help=formats_help() + ".",
    ),
    output: Path | None = typer.Option(
        None,
        "-o",
        "--output",
        help="Write to FILE (- for stdout); default: stdout, or NAME-moderator.EXT with --moderator.",
    ),
    as_player: str | None = typer.Option(None, "--as", help="Only what this player knows."),
    public: bool = typer.Option(False, "--public", help="Only what every player knows (the default)."),
    moderator: bool = typer.Option(
        False, "--moderator", help="The moderator's record: every secret, address and refusal; not for players."
    ),
    all_dir: Path | None = typer.Option(
        None,
        "--all",
        help="Export every game into DIR, one file per format ("
        + ", ".join(f"NAME.{f.suffix}" for f in EXPORT_FORMATS.values())
        + "; NAME-moderator.* with --moderator).",
    ),
) -> None:
    """Export a game's history: JSON, a readable text record, or an HTML page with charts.

    By default the export holds what every player knows (the public record), so it can
    be given to anyone; --as PLAYER gives what that player knows, and --moderator the
    complete record, written to NAME-moderator.EXT unless -o says otherwise.

    Example: pbem export hh1 --format html -o hh1.html
    """
    from pbem.app.decision import GameError
    from pbem.app.exports import export_game
    from pbem.history.formats import FORMATS, names

    if format not in FORMATS:
        fail(f'--format must be {names()}, not "{format}"', 2)
    if sum(map(bool, (as_player, public, moderator))) > 1:
        fail("give one of --as PLAYER, --public and --moderator", 2)
    if all_dir is not None:
        if name or output or as_player:
            fail("--all exports every game: give no game name, -o or --as with it", 2)
        return _export_all(all_dir, moderator)
    if not name:
        fail("name the game to export (or give --all DIR); see pbem game list", 2)
    try:
        body = export_game(_cfg(), name, format, as_player=as_player, moderator=moderator)
    except GameError as exc:
        fail(str(exc))
    if output is None and moderator:
        output = Path(f"{name}-moderator.{FORMATS[format].suffix}")
    if output and str(output) != "-":
        output.write_text(body, encoding="utf-8")
        typer.echo(f"wrote {output}" + (" (the moderator's record: not for players)" if moderator else ""))
    else:
        sys.stdout.write(body)


def _export_all(directory: Path, moderator: bool) -> None:
    """Every game in every registered format (NAME.json, NAME.txt, NAME.html...; public, or NAME-moderator.*) in `directory`."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from pbem.app.exports import export_all, game_names

    cfg = _cfg()
    total = len(game_names(cfg))
    if not total:
        typer.echo("no games to export; create one with: pbem game new KIND --name NAME --player ...")
        return
    columns = (TextColumn("exporting {task.description:<20}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task("", total=total)
        written, games = export_all(cfg, directory, moderator, lambda n: bar.update(task, description=n, advance=1))
    typer.echo(f"wrote {count(written, 'file')} for {count(games, 'game')} in {directory}")


@app.command()
def verify(
    file: Path = typer.Argument(..., help="A JSON export of a finished game."),
    partial: bool = typer.Option(
        False, "--partial", help="Accept a history that stops before the game's end; say up to where it is proven."
    ),
    mail: Path | None = typer.Option(
        None, "--mail", help="Also check a player's received mail (a Maildir, an mbox file or a folder of .eml)."
    ),
    as_player: str | None = typer.Option(
        None, "--as", help="Whose mail to check when the folder holds several players' (name or address)."
    ),
) -> None:
    """Check every field of an export: the hash chain from the seed commitment, the numbering, each input's
    message, the replay of every input from the seed (every event reproduced exactly), the result and that
    the history is complete.  With --mail, also that the player's own mail agrees with it: the commitment
    of their first report, every record head they received, every input they were acknowledged.

    Example: pbem verify hh1.json --mail ~/Mail/pbem --as Alice
    """
    from pbem.history.export import verify as run_verify

    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        fail(f"cannot read {file}: {exc}", 2)
    v = run_verify(doc, partial=partial)
    for line in v.checked:
        typer.echo(f"ok: {line}")
    for line in v.notes:
        typer.echo(f"note: {line}")
    mail_ok = True
    if mail is not None:
        mail_ok = _verify_mail(doc, mail, as_player)
    if not v.ok:
        fail(f"verification FAILED: {v.problem}")
    if not mail_ok:
        fail("verification FAILED: the player's mail does not match this export")
    typer.echo("verification passed")


def _verify_mail(doc: dict, folder: Path, as_player: str | None) -> bool:
    from pbem.trust.receipts import NoMail, lines, read_folder, verify_mail

    try:
        raws = read_folder(folder)
    except (OSError, NoMail) as exc:
        fail(f"cannot read the mail in {folder}: {exc}", 2)
    c = verify_mail(doc, raws, as_player)
    for line in lines(c):
        typer.echo(line)
    return c.ok


@app.command()
def rules(kind: str = typer.Argument(..., help="The game kind.")) -> None:
    """Print a game's player handbook: every order with examples.

    Example: pbem rules habsburg
    """
    from pbem import engine as registry

    try:
        typer.echo(registry.get(kind).handbook())
    except registry.UnknownKind as exc:
        fail(_why(exc), 2)


@app.command()
def demo(
    kind: str = typer.Argument("habsburg", help="The game kind to play."),
    players: int | None = typer.Option(
        None, help="Number of bot players (default: the fewest allowed, at least 3 where possible)."
    ),
    seed: str | None = typer.Option(None, help="The game seed (default: random)."),
    directory: Path | None = typer.Option(None, "--dir", help="Home folder to create (default: a temporary one)."),
    bot_seed: str = typer.Option("demo", help="Seed of the bots' choices."),
) -> None:
    """Play a whole game by email with bot players on the embedded defaults (SQLite + Maildir).

    Example: pbem demo italian-wars --seed 42
    """
    import tempfile

    from pbem import engine as registry
    from pbem.cli.demo import run

    try:
        eng = registry.get(kind)
    except registry.UnknownKind as exc:
        fail(_why(exc), 2)
    kind = eng.kind
    n = players or max(eng.min_players, min(3, eng.max_players))
    home = directory or Path(tempfile.mkdtemp(prefix=f"pbem-demo-{kind}-"))
    if directory and (directory / "pbem.toml").exists():
        fail(f"{directory} already holds a pbem home; give an empty or new folder", 2)
    typer.echo(f"playing {eng.title} with {count(n, 'bot player')} by email in {home} ...")
    try:
        r = run(kind, n, seed, home, bot_seed=bot_seed)
    except ValueError as exc:
        fail(str(exc), 2)
    typer.echo(f"result: {r.summary}")
    typer.echo(
        f"{count(r.polls, 'poll')}, {count(r.messages_in, 'order email')} read, "
        f"{count(r.messages_out, 'email')} sent, {r.seconds:.1f} s"
    )
    typer.echo(
        f"mail folders: {home / 'mail' / 'inbox'} (orders in), {home / 'mail' / 'sent'} (reports out), "
        f"{home / 'mail' / 'processed'}"
    )
    typer.echo(f"history: {r.export}")
    for line in r.checked:
        typer.echo(f"verify: {line}")
    typer.echo(f"verify: {'passed' if r.verified else 'FAILED'} (pbem verify {r.export})")
    if not r.verified:
        raise typer.Exit(1)


def main() -> None:
    app(prog_name="pbem")


if __name__ == "__main__":  # pragma: no cover
    main()
