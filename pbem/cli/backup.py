"""`pbem backup DEST` and `pbem backup --check DIR`: the home saved whole and private, and a backup checked
(`pbem.app.backup`, `pbem.app.backup_check`)."""

from __future__ import annotations

from pathlib import Path

import typer

from pbem.cli.common import _cfg, app, exists, fail

WITHIN = 900.0  # seconds a backup may take by default
SHARE = 0.8  # of [limits] command_deadline at most: past that the watchdog ends the command, leaving the copy behind


@app.command("backup")
def backup_command(
    dest: Path | None = typer.Argument(None, help="Folder the backup is made in (a new folder inside it)."),
    name: str | None = typer.Option(None, "--name", help="The backup's folder name (default pbem-DATE-TIME)."),
    within: float = typer.Option(
        WITHIN,
        "--within",
        min=0.0,
        help="Seconds the copy may take (at most 8/10 of [limits] command_deadline), or with --check the hashes and "
        "SQLite's quick_check (and --restore-into's restore); past them it stops, said (--check: exit 3).",
    ),
    check: Path | None = typer.Option(None, "--check", metavar="DIR", help="Check the backup in DIR instead."),
    restore_into: str | None = typer.Option(
        None,
        "--restore-into",
        metavar="URL",
        help="With --check: prove a pg_dump restores, into a scratch database made (and dropped) on this "
        "PostgreSQL server (its role needs CREATEDB); --within bounds it.",
    ),
    keep: int | None = typer.Option(
        None,
        "--keep",
        min=1,
        metavar="N",
        help="Then remove all but the newest N of pbem's dated backups in DEST (never anything else there).",
    ),
) -> None:
    """Save the home: the database (consistent while a poll runs), game-keys.secret, outbox.key, pbem.toml and a
    manifest of their SHA-256, in a new private folder (0700, files 0600) inside DEST; never overwrites one.

    With --keep N: then remove the older of pbem's own dated backups in DEST, keeping the newest N and never the
    one just made; each removal is said.  A folder a stopped run left unfinished is removed once its process is
    gone and it is older than [limits] command_deadline.

    With --check DIR: say whether that backup is complete and intact.  With --restore-into URL too, a PostgreSQL
    backup's dump is restored into a new database made for it on that server, checked as a SQLite backup is (the
    schema, every game's key, outbox.key), and dropped, within --within seconds.  Exit codes: 0 done (intact); 1 the backup
    checked is incomplete or damaged; 2 DEST or DIR refused as given; 3 the database could not be copied (in time), or
    --restore-into's server would not make a scratch database (the backup was not checked); 4 the home's database is
    damaged (it fails SQLite's quick_check, or a queued mail's bytes are not those queued: the copy holds it as it is,
    and --keep removed nothing).

    Example: pbem --config ~/pbem/pbem.toml backup --keep 30 /backups/pbem    or    pbem backup --check /backups/pbem/pbem-...
    """
    if (dest is None) == (check is None):
        fail("give either DEST (the folder to make a backup in) or --check DIR (a backup to check)", 2)
    if check is not None:
        if keep is not None:
            fail("--keep goes with DEST (a backup made), not with --check", 2)
        _check(check, restore_into, within)
        return
    if restore_into is not None:
        fail("--restore-into goes with --check DIR (a backup checked), not with DEST", 2)
    assert dest is not None
    _take(dest, name, within, keep)


def _take(dest: Path, name: str | None, within: float, keep: int | None) -> None:
    import sqlite3

    from pbem.app.backup import Refused, dated, take
    from pbem.app.backup_clear import cleared
    from pbem.record.backup import Late
    from pbem.record.db import DAMAGED_EXIT, DatabaseDamaged, DatabaseError, damage_of
    from pbem.record.store import now_utc

    cfg = _cfg(schema=False)  # a database that needs `pbem upgrade` is saved too: before an upgrade is the time
    exists(dest, "a backup")
    now = now_utc()
    try:
        # within the command's own deadline, which would end the process before the copy could be cleared away
        taken = take(cfg, dest.expanduser(), name or dated(now), now, min(within, SHARE * cfg.command_deadline))
    except Refused as exc:
        fail(str(exc), 2)
    except Late as exc:
        fail(f"{exc}: no backup was made (nothing is left of it); give --within more seconds", 3)
    except (OSError, sqlite3.Error, DatabaseError) as exc:
        why = f"{exc.filename}: {exc.strerror}" if isinstance(exc, OSError) and exc.strerror else str(exc)
        hurt = isinstance(exc, DatabaseDamaged) or damage_of(exc) is not None  # a page the copy could not read
        fail(f"no backup was made (nothing is left of it): {why}", DAMAGED_EXIT if hurt else 3)
    if not taken.damaged and not taken.unlike:  # the older backups may be the only intact ones left
        cleared(taken, keep, cfg.command_deadline)  # a run stopped before its deadline's end is gone by then
    for note in taken.notes:
        typer.echo(f"note: {note}")
    typer.echo(
        f"backup made: {taken.folder} ({', '.join(taken.files)}); check it with: pbem backup --check {taken.folder}"
    )
    if taken.damaged or taken.unlike:  # a note in cron.log went unseen while the polls went on reading what they need
        said = f"fails SQLite's quick_check ({'; '.join(taken.damaged)})" if taken.damaged else "is damaged"
        fail(
            f"the database {said}{''.join(f' ({u})' for u in taken.unlike)}: the backup holds it as it is and "
            "--keep removed no older one; stop the cron poll and restore the newest backup that `pbem backup --check` "
            "finds intact",
            DAMAGED_EXIT,
        )


def _check(folder: Path, restore_into: str | None, within: float) -> None:
    from pbem.app.backup_check import Restore, check

    if not exists(folder, "a backup to check") or not folder.expanduser().is_dir():
        fail(f"{folder} is no folder: give the folder a backup was made in (pbem-DATE-TIME)", 2)
    restore = None
    if restore_into is not None:
        if not restore_into.startswith(("postgresql://", "postgresql+")):
            fail(
                "--restore-into takes a PostgreSQL server's URL (postgresql://USER@HOST/DATABASE), whose role may "
                "create databases: the dump is restored into a new one, dropped after",
                2,
            )
        restore = Restore(restore_into, within)
    got = check(folder.expanduser(), restore, within)
    for line in got.lines:
        typer.echo(line)
    if got.unchecked is not None and got.wrong:
        typer.echo(got.unchecked.split(": ", 1)[1])
    if got.unchecked is not None and not got.wrong:  # the server's fault, not the backup's
        fail(got.unchecked.split(": ", 1)[1], 3)
    if not got.ok:
        problems = "1 problem" if len(got.wrong) == 1 else f"{len(got.wrong)} problems"
        typer.echo(f"the backup in {folder} is incomplete or damaged: {problems} above")
        raise typer.Exit(1)
    typer.echo(f"the backup in {folder} is complete and intact")
