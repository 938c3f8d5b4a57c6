"""`pbem init`, `pbem upgrade`, `pbem check` and `pbem moderator code`: making a home, migrating its database,
checking its mail, and the moderator code that moderator mail carries (issue 28)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from pbem.cli.common import _cfg, _home, app, checked, fail, need_folder, trail
from pbem.home import config as config_mod

if TYPE_CHECKING:
    from pbem.home.app import Home

moderator_app = typer.Typer(help="The moderator's own settings: the moderator code.", no_args_is_help=True)
app.add_typer(moderator_app, name="moderator")


@app.command()
def init(
    directory: Path = typer.Argument(..., help="Folder for pbem.toml, the database and the Maildirs."),
    address: str = typer.Option("moderator@example.org", help="The moderator's email address."),
    name: str = typer.Option("pbem moderator", help="The moderator's display name."),
    force: bool = typer.Option(False, help="Overwrite an existing pbem.toml."),
    database_url: str = typer.Option(
        "", "--database-url", help="The record's database instead of a SQLite pbem.db (postgresql+psycopg://...)."
    ),
) -> None:
    """Create a moderator home: DIR/pbem.toml (every key explained) and the database (a SQLite pbem.db beside it, or
    the schema in the empty database --database-url names).

    Example: pbem init ~/pbem --address games@example.org
    """
    from pbem.cli.support import init_home
    from pbem.record.move import redacted, refused_url
    from pbem.record.schema import SchemaError, stored_version

    need_folder(directory, "the home")
    if database_url and (why := refused_url(database_url)):  # (without it the record is pbem.db)
        fail(f"--database-url {redacted(database_url)}: {why}; without the option the record is a SQLite pbem.db", 2)
    kept = (
        stored_version(database_url) is not None  # (a server that does not answer: one line, exit 3)
        if database_url
        else (
            directory.expanduser().resolve() / "pbem.db"
        ).exists()  # the file pbem.toml (rewritten with --force) names
    )
    try:
        path = init_home(directory, address=address, name=name, force=force, database_url=database_url or None)
    except (FileExistsError, SchemaError, ValueError) as exc:  # ValueError: an --address or --name pbem.toml refuses
        fail(str(exc), 2)
    except OSError as exc:
        fail(f"{directory}: cannot make the home there: {exc.strerror or exc}", 2)
    where = f" {redacted(database_url)}" if database_url else ""
    db = f"kept the database{where} (its schema is this pbem's)" if kept else f"created the database{where}"
    typer.echo(f"wrote {path} and {db}; edit the file, then run: pbem --config {path} game new ...")
    from pbem.app.moderating import make_code
    from pbem.home.app import Home
    from pbem.record.store import now_utc

    code = make_code(Home.of(config_mod.load(path)), now_utc(), replace=False)
    if code:
        typer.echo(f"moderator code: {code} (shown only now; commands you mail to pbem carry a line CODE {code})")
    else:
        typer.echo("the moderator code is kept as it was (pbem moderator code makes a new one)")
    typer.echo(  # (walk11: a url changed after init left the new database without a schema, and said so only later)
        f"to keep the record elsewhere later, set [database] url in {path}, then run pbem --config {path} upgrade "
        "(it makes the schema in an empty database)"
        + ("" if database_url else f", or pbem --config {path} move-record URL to move this one there")
    )


@app.command()
def upgrade() -> None:
    """Upgrade the database schema to this version of pbem (run after every pip upgrade).

    Example: pbem --config ~/pbem/pbem.toml upgrade
    """
    from pbem.record.db import migrate
    from pbem.record.schema import describe, newer, sqlite_file, stored_version

    cfg = _cfg(schema=False)
    if (file := sqlite_file(cfg.database_url)) is not None:
        file.parent.mkdir(parents=True, exist_ok=True)
    before = stored_version(cfg.database_url)
    if before is not None and (why := newer(cfg.database_url)):  # nothing is changed: the newer pbem's record stays
        fail(why, 2)
    migrate(cfg.database_url)
    after = stored_version(cfg.database_url)
    if file is not None and before is not None and before != after:
        # a table rebuilt leaves free pages: kept for the upkeep look, told while they last
        from pbem.record.upkeep import keep_free_left

        keep_free_left(cfg.database_url)
    if before is None:
        typer.echo(f"created the pbem schema in {describe(cfg.database_url)} (it had none)")
    else:
        typer.echo("database schema is up to date" + (f" (upgraded from {before})" if before != after else ""))
    narrowed = _narrow_private_files(cfg)
    if narrowed:
        typer.echo("made private (mode 0600; they hold every game's seed or keys): " + ", ".join(narrowed))
    from pbem.app.outbox_key import refusal

    if foreign := refusal(cfg.database_url, cfg.home):  # the key's check value kept (a home made before), or told
        typer.echo(f"note: {foreign}")


def _narrow_private_files(cfg: config_mod.Config) -> list[str]:
    """The database (with its -wal and -shm) and the home's key files, narrowed to the moderator when an older
    pbem left them readable by others (it created them with the umask's mode)."""
    from pbem.mail.outbound.sealed import KEY_FILE
    from pbem.record import private, sealing

    files = [cfg.path.parent / sealing.FILE, cfg.path.parent / KEY_FILE]
    if (db := private.database_path(cfg.database_url)) is not None:
        files = [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm"), *files]
    return [str(f) for f in files if private.narrow(f)]


@app.command()
def check() -> None:
    """Try the mail settings: log in to IMAP and SMTP and list the folders pbem uses.  Sends nothing.  Then the
    home's upkeep: a `note` line for each thing that needs you now (no backup or an old one, a key file no backup
    holds, a disk filling, a size past its limit, free pages of pbem.db, mail to prune, a deadline extended again and again) with the
    command that acts on it, and each key file's last change.

    Last, each game's hash chain in the record: a FAIL line, exit 4, when one does not check (a page overwritten).

    Exit codes: 0 a poll would work; 1 a check failed (its line says what to change);
    2 the configuration file is wrong; 4 the record is damaged.

    Example: pbem --config ~/pbem/pbem.toml check
    """
    from pbem.mail.check import checks

    failed = False
    cfg = _cfg()
    for result in checks(cfg):
        typer.echo(result.line())
        failed = failed or not result.ok
    for line in _upkeep(cfg):
        typer.echo(line)
    from pbem.app.chains import record_line
    from pbem.cli import deadline
    from pbem.record.backup import now
    from pbem.record.db import DAMAGED_EXIT

    left = deadline.left()  # the chains stop, told, before the command's deadline would end the process (costs27)
    by = None if left is None else now() + max(0.0, left - min(CHAINS_MARGIN, left / 10))
    line, damaged = record_line(cfg.database_url, by)  # each game's chain: an event SQLite cannot see changed (walk12)
    typer.echo(line)
    if damaged:
        raise typer.Exit(DAMAGED_EXIT)
    if failed or damaged is None:
        raise typer.Exit(1)


def _upkeep(cfg: config_mod.Config) -> list[str]:
    """The home's upkeep (`pbem.app.upkeep`): what holds now, each with its command, and the newest backup."""
    from pbem.app import upkeep
    from pbem.app.upkeep_look import facts
    from pbem.home.app import Home
    from pbem.record.store import now_utc

    try:
        found = facts(Home.of(cfg), now_utc())
    except Exception as exc:  # a database that cannot be read: the mail checks above still say what they found
        return [f"note  the home's upkeep could not be looked at: {type(exc).__name__}: {str(exc)[:200]}"]
    held = upkeep.conditions(found)
    out = [f"note  {c.text}; to act on it: {c.act}" for c in held]
    if found.backup_at is not None:
        out.append(f"ok    newest backup: {found.backup_folder}, {found.backup_at:%Y-%m-%d %H:%M} UTC")
    for name, changed in sorted(found.keys.items()):
        out.append(f"ok    {name}: last changed {changed:%Y-%m-%d %H:%M} UTC (no rotation needed: docs/security.md)")
    if not held:
        out.append("ok    the home's upkeep: nothing to tell (backups, key files, disk, sizes, prune, deadlines)")
    return out


#: Seconds before the command's deadline at which `pbem check` stops reading the games' chains and says how far it
#: got (a tenth of the time left if less): the process is not ended mid-read with the rest unsaid.
CHAINS_MARGIN = 60.0


@moderator_app.command("code")
def moderator_code() -> None:
    """Make a new moderator code, shown once: a mail of commands from the moderator address carries it as a line
    CODE <code> (or is a reply to a mail pbem sent that address).  The old code stops working.

    Example: pbem --config ~/pbem/pbem.toml moderator code
    """
    from pbem.app.moderating import make_code

    home = _home()
    now = checked(home)  # a restored database or home: its code would be lost with it, refused as the poll is
    code = make_code(home, now)
    typer.echo(f"new moderator code (shown only now; the old one no longer works): {code}")
    trail("a new moderator code was made; the old one no longer works (the code is never logged)")


@app.command()
def prune(
    older_than: str = typer.Option(
        "30d", "--older-than", help="Only games over or abandoned at least this long ago, e.g. 30d or 12w."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Count what would be dropped; change nothing."),
    vacuum: bool = typer.Option(
        False,
        "--vacuum",
        help="Then give the SQLite file's free pages back to the disk (VACUUM), with the poll lock held, within 8/10 "
        "of [limits] command_deadline; needs as much free space as the file takes.  On PostgreSQL a plain VACUUM "
        "(ANALYZE) of the mail tables, which no poll waits on.",
    ),
) -> None:
    """Drop the text of the mails sent in games over or abandoned long ago: each keeps its Message-ID, recipient and
    SHA-256; the record of play, the mail read, `pbem export` and `pbem verify` (--mail too) are untouched.
    With --vacuum, then VACUUM the SQLite file (what `pbem upgrade` and earlier prunes left free); exit 3 when a
    poll holds the lock or the deadline passed (the file is then as it was).

    Example: pbem --config ~/pbem/pbem.toml prune --older-than 30d --vacuum
    """
    from pbem.app.prune import prune as dropped
    from pbem.app.prune import said
    from pbem.home.config import parse_duration

    try:
        span = parse_duration(older_than)
    except ValueError as exc:
        fail(str(exc), 2)
    home = _home()
    now = checked(home)
    done_now = dropped(home, span, now, dry_run=dry_run)
    lines = said(done_now, older_than, dry_run)
    for line in lines[:1] if vacuum and not dry_run else lines:  # what was pruned, said before any VACUUM fails
        typer.echo(line)
    if not dry_run:
        trail(lines[0])
    if vacuum and not dry_run:
        line = _vacuum(home)
        typer.echo(line)
        trail(line)


def _vacuum(home: Home) -> str:
    import sqlite3

    from sqlalchemy.exc import DBAPIError

    from pbem.app.prune import Busy, vacuumed
    from pbem.cli.backup import SHARE

    try:
        return vacuumed(home, SHARE * home.cfg.command_deadline)
    except (Busy, TimeoutError, sqlite3.Error, OSError) as exc:
        fail(f"VACUUM: {exc}", 3)
    except DBAPIError as exc:  # PostgreSQL's (a permission, the server gone): its first line
        fail(f"VACUUM: {str(exc.orig).splitlines()[0] if exc.orig else exc}", 3)


@app.command("move-record")
def move_record(
    url: str = typer.Argument(..., help="The empty PostgreSQL database: postgresql+psycopg://USER:PASSWORD@HOST/DB"),
    edit_config: bool = typer.Option(
        False, "--edit-config", help="Set [database] url in pbem.toml to URL (the file as it was kept beside it)."
    ),
) -> None:
    """Move the home's SQLite record into an empty PostgreSQL database: every table copied in one transaction while
    the poll lock is held, checked row by row and each game's chain, the SQLite file left as it was.  Then set
    [database] url (or pass --edit-config) and poll as before.

    Example: pbem --config ~/pbem/pbem.toml move-record postgresql+psycopg://pbem:PASSWORD@db.example.org/pbem
    """
    from pbem.app.move import Refused, move
    from pbem.engine.words import count
    from pbem.record.move import redacted
    from pbem.record.schema import sqlite_file

    cfg = _cfg()
    checked(_home())  # a restored database or home: refused as every command that acts on it is
    try:
        done = move(cfg, cfg.path, url, edit=edit_config)
    except Refused as exc:
        fail(str(exc), 2)
    moved, file, where = done.moved, sqlite_file(cfg.database_url), redacted(url)
    games = count(len(moved.chains), "game", "games")
    typer.echo(
        f"copied the SQLite record {file} ({moved.rows:,} rows in {len(moved.tables)} tables, {games}) into "
        f"{where} in {done.seconds:.1f} s: every table's row count and digest read back alike, and every game's "
        "chain checks from the copy as from the SQLite record"
    )
    for game, said in sorted(moved.chains.items()):
        if not said.startswith("ok "):
            typer.echo(f"note: game {game}: its chain {said} in the SQLite record too (copied as it is)")
    typer.echo(
        f"the SQLite file is unchanged and no longer used once pbem.toml names {where}; keep it until the "
        "first polls on PostgreSQL went well"
    )
    if done.edited is not None:
        typer.echo(f"set [database] url in {cfg.path} (the file as it was: {done.edited})")
    else:
        typer.echo(f'now edit {cfg.path}: under [database], url = "{where}" (the url given here, with its password)')
    typer.echo(f"then run: pbem --config {cfg.path} check, and pbem --config {cfg.path} poll")
    trail(f"moved the SQLite record into {where} ({moved.rows:,} rows)")
