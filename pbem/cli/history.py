"""`pbem export` and `pbem verify`: a game's history out, and checked."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from pbem.cli.common import _home, app, fail, need_folder
from pbem.engine.words import count
from pbem.history.formats import FORMATS as EXPORT_FORMATS
from pbem.history.formats import help_text as formats_help

if TYPE_CHECKING:
    from pbem.trust.receipts import Folder
    from pbem.trust.sent import Exact, Reader


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

    if format.strip().lower() in FORMATS:  # in any case, as kinds and mail modes are
        format = format.strip().lower()
    else:
        fail(f'--format must be {names()}, not "{format}"', 2)
    if sum(map(bool, (as_player, public, moderator))) > 1:
        fail("give one of --as PLAYER, --public and --moderator", 2)
    if all_dir is not None:
        if name or output or as_player:
            fail("--all exports every game: give no game name, -o or --as with it", 2)
        need_folder(all_dir, "the exports")
        return _export_all(all_dir, moderator)
    if not name:
        fail("name the game to export (or give --all DIR); see pbem game list", 2)
    try:
        body = export_game(_home(), name, format, as_player=as_player, moderator=moderator)
    except GameError as exc:
        fail(str(exc), 2)
    if output is None and moderator:
        output = Path(f"{name}-moderator.{FORMATS[format].suffix}")
    if output and str(output) != "-":
        from pbem.record import private
        from pbem.record.files import write_whole

        try:  # whole or not at all: a full disk or a command stopped at its deadline leaves no file half-written
            if moderator:  # the whole record, seed and hands: readable by the moderator only (mode 0600)
                private.write(output, body)
            else:
                write_whole(output, body)
        except OSError as exc:  # a traceback before, and half of the file
            given = isinstance(exc, (FileNotFoundError, NotADirectoryError, IsADirectoryError, PermissionError))
            fail(
                f"{output} could not be written: {exc.strerror or exc}; a file there is left as it was",
                2 if given else 3,
            )
        typer.echo(f"wrote {output}" + (" (the moderator's record: not for players)" if moderator else ""))
    else:
        sys.stdout.write(body)


def _export_all(directory: Path, moderator: bool) -> None:
    """Every game in every registered format (NAME.json, NAME.txt, NAME.html...; public, or NAME-moderator.*) in `directory`."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from pbem.app.exports import export_all, game_names

    home = _home()
    total = len(game_names(home))
    if not total:
        typer.echo("no games to export; create one with: pbem game new KIND --name NAME --player ...")
        return
    columns = (TextColumn("exporting {task.description:<20}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task("", total=total)
        try:
            written, games = export_all(
                home, directory, moderator, lambda n: bar.update(task, description=n, advance=1)
            )
        except OSError as exc:  # each file is written whole or not at all; those written are kept
            fail(f"the exports in {directory} could not all be written: {exc.strerror or exc}", 3)
    typer.echo(f"wrote {count(written, 'file')} for {count(games, 'game')} in {directory}")


@app.command()
def verify(
    file: Path = typer.Argument(..., help="A JSON export of a finished game."),
    partial: bool = typer.Option(
        False, "--partial", help="Accept a history that stops before the game's end; say up to where it is proven."
    ),
    mail: list[Path] = typer.Option(
        [],
        "--mail",
        help="Also check a player's received mail (a Maildir, an mbox file or a folder of .eml); give it once per "
        "player to find out whether everyone was shown the same history.",
    ),
    as_player: str | None = typer.Option(
        None, "--as", help="Whose mail to check when the folder holds several players' (name or address)."
    ),
    sent_folders: list[Path] = typer.Option(
        [],
        "--sent",
        help="Also check the player's own Sent folder: every mail they sent about the game is in the export, "
        "applied as written or refused with its reason, and no input of theirs comes from elsewhere. Give it "
        "once per folder when they wrote from two addresses (a seat moved with ADDRESS: both Sent folders).",
    ),
    legacy: bool = typer.Option(
        False,
        "--legacy",
        help="Also check an export made before the chain (or with legacy events); says what is not proven.",
    ),
    earlier: list[Path] = typer.Option(
        [],
        "--earlier",
        help="Also check an export of the game in progress that you kept (yours or the public one): every entry "
        "it listed must be in this final export, in order, with the same content and hash.",
    ),
) -> None:
    """Check every field of an export: the hash chain from the seed commitment, the numbering, each input's
    message, the replay of every input from the seed (every event reproduced exactly), the result and that
    the history is complete.  With --mail, also that the player's own mail agrees with it: the commitment
    of their first report, every record head they received, every input they were acknowledged.

    Example: pbem verify hh1.json --mail ~/Mail/pbem --as Alice
    """
    from pbem.app.reading import named_reader
    from pbem.history.export import verify as run_verify
    from pbem.record.files import Unreadable, read_at_most
    from pbem.trust.canonical import MAX_BYTES, BadJson, load_export
    from pbem.trust.receipts import parse_folder
    from pbem.trust.stored import Gone, Stored, unique

    try:
        doc = load_export(read_at_most(file, MAX_BYTES, "the export"))
    except (OSError, BadJson, Unreadable) as exc:
        fail(f"cannot read {file}: {exc}", 2)
    # a Sent folder that is no --mail folder is kept where it is, each mail read again when needed (costs28)
    boxes = {folder: _read_folder(folder, folder not in mail) for folder in [*mail, *sent_folders]}
    sent = sent_folders[0] if sent_folders else None
    # the Sent folders as one: a mail in two of them (one client, two accounts) read once
    kept = [box for folder in sent_folders if isinstance(box := boxes[folder], Stored)]
    sent_raws: Sequence[bytes] = (
        unique(kept)
        if len(kept) == len(sent_folders)
        else list(dict.fromkeys(raw for folder in sent_folders for raw in boxes[folder]))
    )
    try:  # a kept folder's mail gone or changed since it was read: said, never read as another
        parsed = {folder: parse_folder(raws) for folder, raws in boxes.items()}  # each mail's headers, read once
        _whose_mail(doc, [(f, parsed[f]) for f in mail], as_player)
        # a player's mail is read as the poll read it: without the copies of pbem's mails to them that it names
        named = [name for folder in parsed.values() for name in folder.named]
        read = named_reader(named)
        from pbem.trust import folded

        with folded.across(doc) if mail else nullcontext():  # the export's replay and the mailboxes: one fold
            v = run_verify(doc, partial=partial, legacy=legacy, read=read)
            for line in v.checked:
                typer.echo(f"ok: {line}")
            for line in v.notes:
                typer.echo(f"note: {line}")
            for line in v.vouched:
                typer.echo(line)
            mail_ok = True
            if not v.shaped and (mail or earlier or sent is not None):  # read as an export, it raised (27 of 84 fields)
                typer.echo("note: nothing else is compared with it: it is no export pbem writes (see below)")
                fail(f"verification FAILED: {v.problem}")
            for path in earlier:
                mail_ok = _verify_earlier(doc, path) and mail_ok
            if mail:
                from pbem.trust.sent import written

                wrote = written(doc, sent_raws, read) if sent is not None and isinstance(doc, dict) else None
                mail_ok = _verify_mails(doc, [(f, parsed[f]) for f in mail], as_player, wrote)
        if sent is not None:
            answers = _answers(doc, [parsed[f] for f in mail])
            from pbem.app.rereading import named_extractor

            exact = named_extractor(named)  # a reply's press blocks as the poll read them (fairness26)
            mail_ok = _verify_sent(doc, sent_raws, as_player, read, bool(mail), answers, exact) and mail_ok
        if not v.ok:
            fail(f"verification FAILED: {v.problem}")
        if not mail_ok:
            fail(
                "verification FAILED: "
                + ("an earlier export or " if earlier else "")
                + "the player's mail does not match this export"
            )
    except Gone as exc:
        fail(f"cannot read the mail: {exc}", 2)
    typer.echo("verification passed")


def _verify_earlier(doc: dict[str, Any], path: Path) -> bool:
    """One --earlier export against the final `doc` (`pbem.trust.verify.earlier`)."""
    from pbem.record.files import Unreadable, read_at_most
    from pbem.trust.canonical import MAX_BYTES, BadJson, load_export
    from pbem.trust.verify import earlier

    try:
        old = load_export(read_at_most(path, MAX_BYTES, "the earlier export"))
    except (OSError, BadJson, Unreadable) as exc:
        fail(f"cannot read {path}: {exc}", 2)
    v = earlier(doc, old) if isinstance(old, dict) else None
    if v is None or not v.ok:
        typer.echo(f"MISMATCH: {path}: {v.problem if v else 'an export is a JSON object'}")
        return False
    for line in v.checked:
        typer.echo(f"ok: {path.name}: {line}")
    return True


def _whose_mail(doc: Any, folders: list[tuple[Path, Folder]], as_player: str | None) -> None:
    """Whose mail each --mail folder holds must be clear before anything is checked: else a usage error, one line."""
    from pbem.trust.receipts import unchosen

    if as_player and len(folders) > 1:
        fail("--as chooses whose mail to check in one folder; give one folder per player with several --mail", 2)
    if not isinstance(doc, dict) or not isinstance(doc.get("game"), dict):
        return
    for folder, raws in folders:
        why = unchosen(doc, raws, as_player)
        if why:
            fail(f"{folder}: {why}", 2)


SHOWN_SET_ASIDE = 10  # files of a mail folder not read, each named, before a count of the rest


def _read_folder(folder: Path, kept: bool = False) -> Sequence[bytes]:
    from pbem.trust.receipts import NoMail, read_folder

    set_aside: list[str] = []
    try:
        raws = read_folder(folder, set_aside, kept)
    except (OSError, NoMail) as exc:
        fail(f"cannot read the mail in {folder}: {exc}", 2)
    for why in set_aside[:SHOWN_SET_ASIDE]:
        typer.echo(f"note: not read: {why}")
    if len(set_aside) > SHOWN_SET_ASIDE:
        typer.echo(f"note: not read: {len(set_aside) - SHOWN_SET_ASIDE} more files in {folder}")
    return raws


def _answers(doc: Any, folders: list[Folder]) -> list[tuple[str, bytes]]:
    """(the Message-ID it answers, the mail) of each mail of the received folders that answers one and carries a
    receipt the game key signed: what `--sent` compares with the player's own mail (`pbem.trust.sent._quoted`)."""
    game = doc.get("game") if isinstance(doc, dict) else None
    if not isinstance(game, dict) or not game.get("key"):
        return []
    key = str(game["key"])
    return [
        (m.in_reply_to, m.raw) for f in folders for m in f.mails if m.in_reply_to and m.signed_by(key, game["name"])
    ]


def _verify_sent(
    doc: dict[str, Any],
    raws: Sequence[bytes],
    as_player: str | None,
    read: Reader,
    received: bool,
    answers: list[tuple[str, bytes]] | None = None,
    exact: Exact | None = None,
) -> bool:
    from pbem.trust.sent import check_sent, lines

    c = check_sent(doc, raws, as_player, read, answers or [], exact)
    if not received:
        c.notes.append(
            "each mail was read without the mails it answers (give your received mail with --mail too): a copy of "
            "pbem's mail pasted unquoted under a header block may be read as yours"
        )
    for line in lines(c):
        typer.echo(line)
    return c.ok


def _verify_mails(
    doc: dict[str, Any],
    folders: list[tuple[Path, Folder]],
    as_player: str | None,
    wrote: dict[str, list[str]] | None = None,
) -> bool:
    """Each --mail folder against the export; `wrote`: the order lines of the mails of --sent, by Message-ID (a
    refusal quoting only its first lines is worked out again from them)."""
    from pbem.app.rereading import failed, hint, refused
    from pbem.trust import folded
    from pbem.trust.receipts import apart, lines, split, verify_mail
    from pbem.trust.refused import Readings

    if as_player and len(folders) > 1:
        fail("--as chooses whose mail to check in one folder; give one folder per player with several --mail", 2)
    boxes: list[tuple[str, list[bytes] | Folder]] = []
    ok = True
    whose: list[str] = []
    checks = []
    with folded.across(doc):  # the mailboxes share one fold of the record
        for folder, raws in folders:
            c = verify_mail(
                doc, raws, as_player, refused, wrote, Readings(hint, failed)
            )  # a refusal's reasons: pbem's reading, worked out again
            if c.usage:  # whose mail to check cannot be told: the command was given wrongly, nothing differs
                fail(f"{folder}: {c.problems[0]}", 2)
            if len(folders) > 1:
                typer.echo(f"-- {folder}")
            for line in lines(c):
                typer.echo(line)
            ok = ok and c.ok
            boxes.append((c.reader or c.player or str(folder), raws))
            whose.append(c.reader)
            checks.append((boxes[-1][0], c))
    if len(folders) > 1:
        proofs = split(doc, boxes, whose)
        for line in proofs:
            typer.echo(f"SPLIT HISTORY: {line}")
        if not proofs and doc["game"].get("key"):
            typer.echo(f"ok: the signed heads of these {len(folders)} mailboxes agree wherever they overlap")
        told = apart(checks)
        for line in told:
            typer.echo(f"MISMATCH: {line}")
        ok = ok and not proofs and not told
    return ok


@app.command()
def publish(
    directory: Path = typer.Argument(..., help="The folder to write the site to (created if missing)."),
    everything: bool = typer.Option(False, "--all", help="Rewrite every page, not only those of games that changed."),
) -> None:
    """Write the public site: an index of games and one public page per game.

    Only what every player knows is shown: standings, what happened, whose move it
    is and until when, the seed commitment, and after the end the whole history
    with the seed.  The pages are self-contained HTML: serve the folder with any
    web server or open index.html as a file.  Set [publish] dir in pbem.toml to have
    every poll refresh it.

    Example: pbem publish /var/www/games
    """
    from datetime import UTC, datetime

    from pbem.app.publish import publish as write_site

    need_folder(directory, "the site")
    try:
        done = write_site(_home(), directory, datetime.now(UTC), everything=everything)
    except OSError as exc:
        fail(f"{directory}: cannot write the site there: {exc.strerror or exc} ({exc.filename or directory})", 2)
    typer.echo(done.line(directory))
