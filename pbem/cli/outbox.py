"""`pbem outbox list` and `pbem outbox retry`: the mails pbem gave up sending, and queuing them again (issue 26)."""

from __future__ import annotations

import typer

from pbem.cli.common import _cfg, _home, app, checked, done, fail

outbox_app = typer.Typer(
    help="Mail pbem could not send: list it, queue it again.", no_args_is_help=True, rich_markup_mode=None
)
app.add_typer(outbox_app, name="outbox")


LISTED = 200  # mails `pbem outbox list` shows at most, the newest; a line counts the rest
NAMED = 20  # outbox numbers one line names at most; a line of more counts them


def _numbers(ids: list[int]) -> str:
    """`ids` as "#3, #5", or, past `NAMED` of them, the first ones and how many more (a line of bounded length)."""
    shown = ", ".join(f"#{i}" for i in ids[:NAMED])
    return shown if len(ids) <= NAMED else f"{shown} and {len(ids) - NAMED} more ({len(ids)} in all)"


@outbox_app.command("list")
def outbox_list() -> None:
    """List the mails given up on (after [smtp] max_attempts, or refused for good), newest first.

    Example: pbem outbox list
    """
    from pbem.record import outbox
    from pbem.record.db import session
    from pbem.render.sanitize import visible

    cfg = _cfg()
    with session(cfg.database_url) as s:
        rows = outbox.given_up(s, LISTED)
        total = outbox.failed_count(s) if len(rows) == LISTED else len(rows)
    if not rows:
        typer.echo("no mail was given up on")
        return
    for r in rows:
        who = f" ({r.player})" if r.player else ""
        typer.echo(
            f"#{r.id:<6} {r.created_at:%Y-%m-%d %H:%M}  {r.purpose:8} to {visible(r.to)}{who}, "
            f"{r.attempts} attempt(s): {visible(r.last_error)}"
        )
    if total > len(rows):
        typer.echo(f"... and {total - len(rows)} older mail(s) given up on, not listed (--all queues every one)")
    typer.echo(f"queue them again with: pbem outbox retry {rows[0].id} (or --all)")


@outbox_app.command("retry")
def outbox_retry(
    ids: list[int] = typer.Argument(None, help="Outbox numbers as `pbem outbox list` shows them."),
    all_failed: bool = typer.Option(False, "--all", help="Every mail given up on."),
) -> None:
    """Queue mails given up on again; the next `pbem poll` sends them (same Message-ID: never a second copy).

    Example: pbem outbox retry 12 14    or    pbem outbox retry --all
    """
    from pbem.record import outbox
    from pbem.record.db import session

    if not ids and not all_failed:
        fail("name the mails to queue again (numbers from `pbem outbox list`) or give --all", 2)
    home = _home()
    now = checked(home)  # a restored database or home, a clock behind: refused before anything is queued
    with session(home.cfg.database_url) as s:
        queued = outbox.requeue(s, None if all_failed else ids, now)
        s.commit()
    missing = sorted(set(ids or []) - set(queued))
    if queued:
        done(f"queued again: {_numbers(queued)}; the next pbem poll sends them")
    if missing:
        fail(f"not given up on (or no such mail): {_numbers(missing)}", 2)
    if not queued and not missing:
        typer.echo("no mail was given up on")


def _held(ids: list[int] | None, all_held: bool, verb: str) -> tuple[str, list[int], list[int]]:
    """The database's URL (the home checked: a restored database not yet gone on with is refused) and the held mails named."""
    from pbem.record.db import transaction
    from pbem.record.sent_witness import held

    if not ids and not all_held:
        fail(f"name the held mails to {verb} (numbers from `pbem outbox held`) or give --all", 2)
    home = _home()
    checked(home)
    with transaction(home.cfg.database_url) as conn:
        found = held(conn, None if all_held else ids)
    return home.cfg.database_url, found, sorted(set(ids or []) - set(found))


@outbox_app.command("held")
def outbox_held() -> None:
    """List the mails a restored home held: waiting when its backup was made, not proved unsent since.

    Example: pbem outbox held
    """
    from sqlalchemy import select

    from pbem.record.db import reading
    from pbem.record.models import OutboxMessage
    from pbem.record.sent_witness import HELD
    from pbem.render.sanitize import visible

    cfg = _cfg()
    c = OutboxMessage.__table__.c  # type: ignore[attr-defined]
    with reading(cfg.database_url) as conn:
        rows = conn.execute(
            select(c.id, c.created_at, c.purpose, c.to_addr).where(c.status == HELD).order_by(c.id).limit(LISTED)
        ).all()
    if not rows:
        typer.echo("no mail is held")
        return
    for oid, created, purpose, to in rows:
        typer.echo(f"#{oid:<6} {created:%Y-%m-%d %H:%M}  {purpose:8} to {visible(to)}")
    typer.echo("send them with: pbem outbox release --all; or, if the old home sent them: pbem outbox drop --all")


@outbox_app.command("release")
def outbox_release(
    ids: list[int] = typer.Argument(None, help="Outbox numbers as `pbem outbox held` shows them."),
    all_held: bool = typer.Option(False, "--all", help="Every held mail."),
) -> None:
    """Send mails a restored home held (the old home did not send them); the next `pbem poll` sends them.

    Example: pbem outbox release --all
    """
    from datetime import UTC, datetime

    from pbem.record.db import transaction
    from pbem.record.sent_witness import release

    url, found, missing = _held(ids, all_held, "release")
    with transaction(url) as conn:
        release(conn, found, datetime.now(UTC))
    _said(found, missing, "queued again; the next pbem poll sends them")


@outbox_app.command("drop")
def outbox_drop(
    ids: list[int] = typer.Argument(None, help="Outbox numbers as `pbem outbox held` shows them."),
    all_held: bool = typer.Option(False, "--all", help="Every held mail."),
) -> None:
    """Mark sent, without sending, mails a restored home held (the old home sent them: the players have them).

    Example: pbem outbox drop --all
    """
    from datetime import UTC, datetime

    from pbem.record.db import transaction
    from pbem.record.sent_witness import release
    from pbem.record.sentlog import fold

    url, found, missing = _held(ids, all_held, "drop")
    with transaction(url) as conn:
        now = datetime.now(UTC)
        release(conn, found, now)
        fold(conn, found, now)
    _said(found, missing, "marked sent, not sent again")


def _said(found: list[int], missing: list[int], what: str) -> None:
    if found:
        done(f"{_numbers(found)}: {what}")
    if missing:
        fail(f"not held (or no such mail): {_numbers(missing)}", 2)
    if not found and not missing:
        typer.echo("no mail is held")
