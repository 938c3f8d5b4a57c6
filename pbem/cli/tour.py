"""`pbem rules` and `pbem demo`: a game's rulings, and a whole game played on the embedded defaults."""

from __future__ import annotations

from pathlib import Path

import typer

from pbem.cli.common import _why, app, exists, fail
from pbem.engine.words import count


@app.command()
def rules(kind: str = typer.Argument(..., help="The game kind.")) -> None:
    """Print a game's player handbook (every order with examples), then every ruling it plays by, at 40 columns.

    The rulings are those of docs/rulings.md, by number (HH-R5 ...): the numbers refusals cite.
    Players get the same text by mail when they send HELP.

    Example: pbem rules habsburg
    """
    from pbem import engine as registry
    from pbem.engine.rulings import RULINGS
    from pbem.render.handbook import narrow

    try:
        eng = registry.get(kind)
    except registry.UnknownKind as exc:
        fail(_why(exc), 2)
    typer.echo(narrow(eng.handbook()))  # at 40 columns, as the HELP mail has it: a phone's screen
    typer.echo("")
    typer.echo(narrow(RULINGS.get(eng.kind, f"No rulings are written down for {eng.kind}.")))


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
    if directory and exists(directory / "pbem.toml", "the demo's home"):
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
