"""What every `pbem` command shares: the Typer apps, `--config` everywhere, failing with a code.

Heavy modules are imported inside the commands, so that an idle cron run
(`pbem poll` with nothing to do) costs little more than starting Python.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from typer.core import TyperGroup

if TYPE_CHECKING:
    from datetime import datetime

    from pbem.home.app import Home
    from pbem.home.config import Config

_state: dict[str, Any] = {"config": None}


def _set_config(ctx: object, _param: object, value: object) -> None:
    if value is not None:
        _state["config"] = Path(str(value))
    path = getattr(ctx, "command_path", None)  # run for every command, before its own options' callbacks
    if isinstance(path, str):
        from pbem.cli import deadline

        deadline.named(path)


def _add_config_option(group: TyperGroup, template: Any) -> None:
    for cmd in group.commands.values():
        if not any(p.name == "config" for p in cmd.params):
            opt = copy.copy(template)
            opt.expose_value, opt.callback, opt.envvar = False, _set_config, None
            cmd.params.insert(0, opt)
        if isinstance(cmd, TyperGroup):
            _add_config_option(cmd, template)


def _utf8(callback: Any) -> Any:
    """A parameter's callback that first refuses a value holding bytes that are not UTF-8 (a shell passes them as
    they are; Python keeps each as a lone surrogate): one line naming the parameter, exit 2, before the command
    runs.  `pbem init --name $'Mod\\xff'` ended in the codec's line about a position in pbem.toml, `game say` and
    `game show` in a traceback (judges4)."""

    def check(ctx: Any, param: Any, value: Any) -> Any:
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(v, str) and not v.isascii() and any("\udc80" <= c <= "\udcff" for c in v):
                shown = v.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                what = param.opts[-1] if param.param_type_name == "option" else str(param.name).upper()
                fail(f"{what} '{shown}' is not UTF-8 text (bytes shown as \\xNN): give it as UTF-8", 2)
        return callback(ctx, param, value) if callback is not None else value

    return check


def _add_text_checks(group: TyperGroup) -> None:
    """Every parameter read as text (`str`, `list[str]`; a path may hold any bytes) gets `_utf8`."""
    for cmd in group.commands.values():
        for p in cmd.params:
            if getattr(getattr(p, "type_descriptor", None), "annotation", None) in (str, list[str]):
                p.callback = _utf8(p.callback)
        if isinstance(cmd, TyperGroup):
            _add_text_checks(cmd)


class _ConfigEverywhere(TyperGroup):
    """The root group: `--config PATH` is taken before the command and after it, by every command; no text value
    holds bytes that are not UTF-8 (`_utf8`)."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        _add_config_option(self, next(p for p in self.params if p.name == "config"))
        _add_text_checks(self)


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
    """One line on stderr and exit `code`: 2 a command refused as given (usage, configuration, a game it
    cannot act on), 3 the database or the home's files could not be used, 1 only for a failed verification
    (1 is otherwise a bug, with its traceback).  The line is `clipped`, whatever value it quotes."""
    typer.echo(f"pbem: {clipped(message)}", err=True)
    raise typer.Exit(code)


LONG_WORD = 200  # characters of one word of a refusal shown whole; a longer one is a giant value given: clipped
MAX_FAIL = 2_000  # characters of a refusal's line at most
_LONG_WORD = re.compile(rf"(?<!\S)\S{{{LONG_WORD + 1},}}")  # each from a word's start only: one scan of a run


def clipped(message: str) -> str:
    """`message` with every word longer than `LONG_WORD` characters shown by its start and end and its length, and
    at most `MAX_FAIL` characters in all: a value given as 200,000 characters (a kind, a mode, a format, a date, a
    path) was quoted whole, once or twice, in the one line that refused it (found by costs5's generator over every
    command's every parameter, tests/reliability/test_costs5_commands.py)."""

    def short(m: re.Match[str]) -> str:
        word = m.group(0)
        return f"{word[:60]}...{word[-12:]} ({len(word):,} characters)"

    out = _LONG_WORD.sub(short, message) if len(message) > LONG_WORD else message
    return out if len(out) <= MAX_FAIL else f"{out[:MAX_FAIL]}... ({len(message):,} characters)"


def exists(path: Path, what: str) -> bool:
    """`path.exists()`, or exit 2 with one line when the file system cannot say (a name longer than it allows, a
    folder on the way that may not be read): `pbem init`, `publish`, `export --all` and `demo --dir` ended in an
    OSError traceback for a folder name of 300 characters."""
    try:
        return path.expanduser().exists()
    except OSError as exc:
        fail(f"{path}: cannot use it for {what}: {exc.strerror or exc}", 2)


def need_folder(directory: Path, what: str) -> None:
    """Exit 2 with one line when `directory`, where a command writes `what`, is a file (a missing one is made), or
    cannot be looked at (`exists`)."""
    if exists(directory, what) and not directory.expanduser().is_dir():
        fail(f"{directory} is a file, not a folder; give a new or existing folder for {what}", 2)


def _cfg(schema: bool = True) -> Config:
    """The configuration; with `schema`, also a database holding this pbem's tables (else exit 2 naming the fix)."""
    from pbem.home.config import ConfigError, load

    try:
        cfg = load(_state["config"])
    except ConfigError as exc:
        fail(str(exc), 2)
    from pbem.cli import deadline

    deadline.configured(cfg.command_deadline, cfg.poll_deadline)  # the home's budget, from the command's start
    if schema:
        from pbem.record.db import DAMAGED_EXIT, DatabaseDamaged, DatabaseError
        from pbem.record.schema import SchemaError, check

        try:
            check(cfg.database_url, cfg.path)
        except SchemaError as exc:
            fail(str(exc), 2)
        except DatabaseError as exc:
            fail(str(exc), DAMAGED_EXIT if isinstance(exc, DatabaseDamaged) else 3)
    return cfg


def _env_secrets(cfg: Config) -> list[str]:
    import os

    return [os.environ.get(v, "") for v in (cfg.imap.password_env, cfg.smtp.password_env) if v]


def _login_secrets(cfg: Config) -> list[str]:
    """The SASL PLAIN forms of each server's login (`logs.login_forms`), for the password as configured."""
    import os

    from pbem.home.logs import login_forms

    out: list[str] = []
    for m in (cfg.imap, cfg.smtp):
        password = os.environ.get(m.password_env, "") if m.password_env else m.password
        out += login_forms(m.username, password)
    return out


def open_log(cfg: Config, level: str, stderr: bool = True) -> None:
    """Logging as the home sets it (`pbem.home.logs.setup`: `[log] file`, passwords and codes masked), or one line
    and exit: 3 when the file cannot be written now but will be (a lease, a full disk), 2 when the setting names
    no file pbem can write (a folder, a FIFO no process reads).  Before anything is changed."""
    from pbem.home.logs import passing, setup

    secrets = [cfg.imap.password, cfg.smtp.password, *_env_secrets(cfg), *_login_secrets(cfg)]
    try:
        setup(level, cfg.log_file, secrets=secrets, stderr=stderr)
    except OSError as exc:  # a folder, a FIFO no process reads: a traceback, or a wait without end, before
        why = f"[log] file {cfg.log_file} cannot be written: {exc.strerror or exc}"
        if passing(exc):  # a lease another process holds, a full disk: it passes (exit 2 said "fix the setting")
            fail(f"{why}; nothing was done, the next run tries again (in {cfg.path})", 3)
        fail(f"{why} (in {cfg.path})", 2)


def logged(cfg: Config) -> None:
    """A command that changes something keeps a trail in `[log] file` (README "Operations"): set up here, before
    the change, so that a log that cannot be written refuses the command as it stops the poll; nothing on stderr
    (the command prints its own line).  `done` writes the line once the change is made."""
    if cfg.log_file is not None:
        open_log(cfg, cfg.log_level, stderr=False)


def done(line: str, game: str | None = None) -> None:
    """Print the command's line and keep it in the log (`trail`)."""
    typer.echo(line)
    trail(line, game)


def trail(line: str, game: str | None = None) -> None:
    """One line in the log: which command, run by whom, on which game, what it did.  Never a code or a password:
    the line given never holds one, and the log masks them anyway."""
    import getpass
    import logging
    import os

    from pbem.cli import deadline

    armed = deadline.current()  # the command's whole name, as click found it ("pbem game extend")
    path = " ".join(["pbem", *(armed[0].split()[1:] if armed else [])])
    try:
        who = getpass.getuser()
    except (KeyError, OSError):  # no user name for this uid (a container)
        who = f"uid {os.getuid()}"
    where = f" (game {game})" if game else ""
    logging.getLogger("pbem.moderator").info("%s by %s%s: %s", path, who, where, line)


def checked(home: Home) -> datetime:
    """Now, unless the clock is behind the latest time the record has seen: a command timing a deadline from
    it would set one in the past (a resume would move it back by the difference), so it is refused as the
    poll is, exit 3 (`pbem.app.clock`).  Refused the same way: a database older than the home, or a home older
    than this machine's mark of it (a backup restored, `clock.restored`), which a command would write on as the
    poll would, forking the history the players were sent.  Every command that changes something in the home
    calls it (tests/test_moderator_trail.py).  Logging is set up here, before anything changes (`logged`)."""
    from pbem.app.clock import MarkHeld, behind, latest, restored
    from pbem.record.store import now_utc

    now = now_utc()
    seen = latest(home.cfg.database_url)
    try:
        why = behind(seen, now) or restored(seen, home.cfg.home)
        if not why:  # a database restored into another folder or onto another machine (`pbem.app.whose`)
            from pbem.app.whose import whose

            owner = whose(home.cfg.database_url, home.cfg.home)
            if not (why := owner.refusal(home.cfg.home)) and owner.kept is None:
                owner.adopt(home.cfg.database_url, home.cfg.home)  # (a database that names no home yet)
    except MarkHeld as exc:  # (a mark leased by another process: `pbem.app.clock._read_mark`)
        why = str(exc)
    if not why:  # another home's outbox.key (`pbem.app.outbox_key`)
        from pbem.app.outbox_key import refusal

        why = refusal(home.cfg.database_url, home.cfg.home)
    if why:
        fail(why.replace("nothing was done", "nothing was changed"), 3)
    logged(home.cfg)
    return now


def _home(schema: bool = True) -> Home:
    """The composition root of this home (`pbem.home.app.Home`): what every use case takes."""
    from pbem.home.app import Home

    return Home.of(_cfg(schema))


def _show_version(value: bool) -> None:
    if value:
        from pbem import __version__

        typer.echo(f"pbem {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    ctx: typer.Context,
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
    from pbem.cli import deadline

    deadline.arm(f"pbem {ctx.invoked_subcommand or ''}".strip())  # every command: README "Operations"
    ctx.call_on_close(deadline.stop)
