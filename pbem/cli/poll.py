"""`pbem poll`: the cron job."""

from __future__ import annotations

import typer

from pbem.cli.common import _cfg, app, fail, open_log


@app.command()
def poll(
    dry_run: bool = typer.Option(False, "--dry-run", help="Parse and report, change nothing, send nothing."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log each message handled."),
    timings: bool = typer.Option(False, "--timings", help="Also print where the run's time went."),
    trust_clock: bool = typer.Option(
        False,
        "--trust-clock",
        help="The machine's clock is right now: an earlier run whose clock was ahead recorded a later time, and "
        "polls are refused until real time catches up with it.  Run once after fixing the clock, or to go on with "
        "a database older than the home or the IMAP server's filed mail, or another home folder's (a backup restored: "
        "the home's ledger of mails sent is read, and the mails it names are not sent again), or to apply the deadlines held because the IMAP "
        "server's arrival dates showed the clock ahead.",
    ),
    restored: bool = typer.Option(
        False,
        "--restored",
        help="This home's database was restored from a backup where pbem cannot tell (the whole home folder copied "
        "back, no mail read since): --trust-clock, and the mail waiting in it is held unless the mail server's "
        "pbem/sent-ids folder proves it unsent (pbem outbox held lists it).  Run once, before the first poll after "
        "such a restore.",
    ),
    new_outbox_key: bool = typer.Option(
        False,
        "--new-outbox-key",
        help="The home's outbox.key is lost for good: the record forgets it and pbem makes a new one; the mails "
        "sealed with the lost one go out with the players' codes redacted.  Run once, when a poll refused to run "
        "without it.",
    ),
) -> None:
    """Read new mail, apply orders and due deadlines, send queued mail.  Run it from cron.

    Exit codes:

    \b
      0  done (or another poll was already running on this home)
      1  an unexpected error, a bug: the traceback is printed; nothing is lost
      2  bad configuration (pbem.toml, or a password_env that names a variable not set), or the database needs
         `pbem upgrade` (one line says what to run)
      3  the mail server, a mail folder, a password_command or token_command that failed or the database could not be used, the home's game-keys.secret is missing, its outbox.key is missing or another home's,
         the poll passed [mail] poll_deadline, another poll holding the lock is stuck, the clock is
         behind the record, the database is older than the home or the IMAP server's filed mail, or
         another home folder's (a backup restored), or the [log] file cannot be written now (another process holds a lease on it,
         its disk is full or read-only)
         (one line says which; nothing is lost: the next run carries on)
      4  the database is damaged on disk (SQLite found a page that is not what it wrote): the run stopped
         there; stop the cron poll and restore the newest intact backup (README: Backups)

    Example: pbem --config ~/pbem/pbem.toml poll
    """
    from pbem.app.cron import run_poll
    from pbem.home.config import ConfigError
    from pbem.mail.transports.seam import TransportError
    from pbem.record.db import DatabaseError

    cfg = _cfg()
    open_log(cfg, "DEBUG" if verbose else cfg.log_level)
    from pbem.cli import deadline

    deadline.handed_over()  # the poll's own watchdog from here: sockets shut at [mail] poll_deadline, a backstop
    trusted: bool | str = trust_clock
    if restored:  # (imported only then: an idle cron run imports no more than before)
        from pbem.app.sent_witness import SAID_RESTORED

        trusted = SAID_RESTORED
    try:
        run = run_poll(cfg, dry_run=dry_run, trust_clock=trusted, new_key=new_outbox_key)
    except (TransportError, DatabaseError, ConfigError) as exc:
        import logging

        from pbem.home.logs import TOLD

        logging.getLogger("pbem").error("poll stopped: %s", exc, extra=TOLD)  # the log file's; stderr has `fail`'s
        from pbem.mail.check import hinted

        fail(hinted(str(exc)), _exit_of(exc))
    if run.summary is None:
        typer.echo(run.skipped)
        return
    typer.echo(("dry run: " if dry_run else "") + run.summary.line())
    for note in run.summary.told:  # what the moderator should look at: mail the server would not file, a clock jump
        typer.echo(f"note: {note}")
    if timings and run.summary.timings:
        typer.echo(run.summary.timing_line())


def _exit_of(exc: Exception) -> int:
    """The exit status `--help` gives: 2 for bad configuration (an unset `password_env` ended 3 before walk10, as for
    a server that cannot be reached: a fault no later run mends), 3 for what the next run may find mended (a server,
    a lock, a `password_command` that failed, README "Mail servers"), 4 for a damaged database."""
    from pbem.home.config import ConfigError
    from pbem.mail.transports.credentials import CredentialError
    from pbem.record.db import DAMAGED_EXIT, DatabaseDamaged

    if isinstance(exc, DatabaseDamaged):
        return DAMAGED_EXIT
    return 2 if isinstance(exc, ConfigError) and not isinstance(exc, CredentialError) else 3
