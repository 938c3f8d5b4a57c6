"""Helpers behind the CLI commands (kept out of cli.py so that it stays thin)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def init_home(
    directory: Path,
    address: str = "moderator@example.org",
    name: str = "pbem moderator",
    force: bool = False,
    database_url: str | None = None,
) -> Path:
    """Write DIR/pbem.toml (commented) and create the database with the migrations: the SQLite file beside it, or
    the schema in the database `database_url` names (walk11: `pbem init --database-url`, no SQLite file made)."""
    from pbem.home import config as config_mod
    from pbem.record.db import migrate
    from pbem.record.files import write_whole
    from pbem.render.templates import render

    for key, value in (("address", address), ("name", name)):
        try:
            config_mod.SCHEMA["moderator"][key](value)
        except ValueError as exc:  # the file was written, then refused by its own reading: a traceback
            raise ValueError(f"--{key} {_clip(value)!r}: {exc}") from None
    directory = Path(directory).expanduser().resolve()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / config_mod.DEFAULT_NAME
    if path.exists() and not force:
        raise FileExistsError(f"{path} already exists; pass --force to overwrite it")
    write_whole(
        path,
        render(
            "pbem.toml.j2",
            address=toml_text(address),
            name=toml_text(name),
            created=datetime.now(UTC).strftime("written by pbem init on %Y-%m-%d"),
            **({"database_url": toml_text(database_url)} if database_url else {}),
        ),
    )
    cfg = config_mod.load(path)
    from pbem.record.schema import SchemaError, newer, sqlite_file

    file = sqlite_file(cfg.database_url)
    if (file is None or file.exists()) and (why := newer(cfg.database_url)):  # `--force` on a newer pbem's home
        raise SchemaError(why)
    migrate(cfg.database_url)
    from pbem.app.whose import claim

    claim(cfg.database_url, directory)  # the database this home's (`pbem.app.whose`)
    for sub in ("inbox", "sent", "processed", "rejected"):
        for leaf in ("new", "cur", "tmp"):
            (cfg.maildir_path / sub / leaf).mkdir(parents=True, exist_ok=True)
    return path


def toml_text(value: str) -> str:
    """`value` as the inside of a TOML basic string ("..."): a quote, a backslash or a line break in a name given to
    `pbem init --name` wrote a pbem.toml that could not be read (and a traceback; `Bob "the mod"`)."""
    import json

    return json.dumps(value, ensure_ascii=False)[1:-1].replace("\x7f", "\\u007f")  # JSON's escapes are TOML's


def _clip(value: str) -> str:
    from pbem.trust.quote import clip

    return clip(value)


MAX_ADDRESS = 254  # characters of an address (RFC 5321's path of 256, less its angle brackets)


def parse_player(text: str) -> tuple[str, str]:
    """'Alice <alice@example.org>' -> ('Alice', 'alice@example.org'); names as in `player_name`."""
    from pbem.engine.names import player_name
    from pbem.trust.addresses import address
    from pbem.trust.quote import clip

    name, addr = address(text)  # parseaddr, whose nested comments raised a RecursionError
    if "@" not in addr:
        raise ValueError(f'"{clip(text)}" is not a player; write "Name <address@example.org>"')
    if len(addr) > MAX_ADDRESS:  # a From header of more than 2,000 characters is refused: such a player never plays
        raise ValueError(
            f'"{clip(text)}": the address is {len(addr):,} characters long; at most {MAX_ADDRESS} (RFC 5321)'
        )
    return player_name(name.strip() or addr.split("@")[0]), addr


def parse_options(items: list[str]) -> dict[str, Any]:
    import json

    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f'option "{item}" must be written KEY=VALUE, e.g. legacy=20')
        try:
            out[key.strip()] = json.loads(value)
        except (ValueError, RecursionError):  # nested arrays: a RecursionError traceback before (costs4)
            out[key.strip()] = value
    return out
