"""`pbem publish DIR` and `[publish] dir`: the public site, written from public facts only.

The site is an index (`index.html`) and one page per game (`NAME.html`, named as
`pbem export --all` names files): the game's public history page opened by a "Now"
section (whose move it is and until when).  A page is built from the game's public
export document (pbem/history/export.py, `public=True`), which holds public events
only and the seed only after the end, so the site can show nothing a player could
not already tell everyone.

Writing is incremental: `.pbem-site-positions.json` in the moderator's home remembers each
game's record position when its page was last written (pbem/record/site.py); a run builds
again the pages of games whose record, control actions or deadlines changed, and writes a
page, the index and `.pbem-site.json` (beside the pages: each page's file and index row)
only when their text changed.  The positions count every entry, hidden ones included, so
they stay out of the site: a page, its file's time and the site's own manifest change only
when what the public may see does (docs/security.md, "What the numbering of a running game
reveals").  Files are written to a temporary name and renamed, so a web server never serves
a half-written page.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pbem.app import views
from pbem.app.game_names import export_stem, inside
from pbem.history.site import Entry, Now, entry, game_page, index_page
from pbem.home.app import Home
from pbem.record import private, site, store

MANIFEST = ".pbem-site.json"
VERSION = 2  # 1 kept each game's record position in the site itself
POSITIONS = ".pbem-site-positions.json"  # in the home: {"version": 1, "sites": {folder: {game id: position}}}


@dataclass(frozen=True)
class Published:
    """What one run wrote: pages rewritten, games on the index, pages removed (games no longer in the record)."""

    written: int
    games: int
    removed: int

    def line(self, directory: Path) -> str:
        return (
            f"published {self.games} game(s) to {directory}: {self.written} page(s) rewritten, {self.removed} removed"
        )


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


#: The site's manifest is a line or two a game; one larger than this (or no regular file) is not the one pbem wrote.
MAX_MANIFEST_BYTES = 64 * 1024 * 1024


def _json_of(path: Path, version: int) -> dict[str, Any]:
    """The JSON document pbem wrote at `path` ({}: unknown, every page is written again).  A manifest made a
    device, a FIFO or nested arrays read until memory ran out, waited, or ended in a RecursionError (tests/
    reliability/test_costs4_files.py); each is now read as none."""
    from pbem.record.files import read_at_most
    from pbem.trust.canonical import MAX_VALUES, measured

    try:
        text = read_at_most(path, MAX_MANIFEST_BYTES, "the site's manifest").decode("utf-8")
        if measured(text)[1] > MAX_VALUES:  # 64 MiB of `{},` held 1.6 GB once read (costs22)
            return {}
        doc = json.loads(text)
    except (OSError, ValueError, RecursionError):  # Unreadable and UnicodeDecodeError are ValueErrors
        return {}
    return doc if isinstance(doc, dict) and doc.get("version") == version else {}


def _manifest(directory: Path) -> dict[str, Any]:
    return _json_of(directory / MANIFEST, VERSION)


def _changed(path: Path, text: str) -> bool:
    """Write `text` to `path` unless it already holds it (True if written): a page whose public facts did not
    change keeps its bytes and its file's time."""
    from pbem.record.files import read_at_most

    try:  # a page made a FIFO or a device is written anew, never waited on
        if read_at_most(path, MAX_MANIFEST_BYTES, "a page").decode("utf-8") == text:
            return False
    except (OSError, ValueError):
        pass
    _write(path, text)
    return True


def _now(s: Any, loaded: store.Loaded) -> Now:
    gid = loaded.game.id
    assert gid is not None
    if store.is_over(s, gid):
        return Now("over", (), None)
    status = store.control_state(s, gid)
    eng = views.engine(loaded)
    waiting = tuple(views.waiting(eng, loaded.state)) if status == "running" else ()
    dl = store.current_deadline(s, gid) if status == "running" and waiting else None
    return Now(status, waiting, store.aware(dl.due_at) if dl else None)


def publish(
    home: Home,
    directory: Path,
    when: datetime,
    everything: bool = False,
    progress: Callable[[str], None] | None = None,
) -> Published:
    """Bring the site in `directory` up to date with the record (every page with `everything`)."""
    from pbem.history.export import build

    directory.mkdir(parents=True, exist_ok=True)
    old = {} if everything else _manifest(directory)
    known: dict[str, Any] = old.get("games", {})
    where = str(directory.resolve())
    kept = _json_of(home.cfg.home / POSITIONS, 1)
    sites: dict[str, Any] = kept.get("sites", {}) if isinstance(kept.get("sites"), dict) else {}
    was: dict[str, Any] = {} if everything else sites.get(where, {})
    games: dict[str, Any] = {}
    now_at: dict[str, list[int]] = {}
    written = 0
    with home.units() as s:
        for gid, position in sorted(site.positions(s).items()):
            key = str(gid)
            before = known.get(key)
            if before is not None and was.get(key) == list(position) and (directory / before["page"]).exists():
                games[key], now_at[key] = before, list(position)
                continue
            name = site.game_name(s, gid)
            game = store.game_by_name(s, name) if name is not None else None
            if game is None:
                continue
            loaded = store.load(s, game)
            doc = json.loads(json.dumps(build(s, game, public=True)))
            now = _now(s, loaded)
            page = inside(directory, export_stem(game.name, gid), "html")
            text = game_page(doc, now)
            if everything:
                _write(page, text)
            if everything or _changed(page, text):
                written += 1
                if progress:
                    progress(game.name)
            games[key], now_at[key] = {"page": page.name, "entry": entry(doc, now, page.name).as_json()}, list(position)
    removed = 0
    for key, gone in known.items():
        if key not in games:
            page = directory / Path(gone["page"]).name
            if page.exists():
                page.unlink()
            removed += 1
    if written or removed or not (directory / "index.html").exists():
        entries = [Entry.from_json(g["entry"]) for g in games.values()]
        _write(directory / "index.html", index_page(entries, when, home.cfg.publish_title))
    _changed(directory / MANIFEST, json.dumps({"version": VERSION, "games": games}, indent=1, sort_keys=True))
    if sites.get(where) != now_at:  # the moderator's own record of what each page was written at
        private.write(home.cfg.home / POSITIONS, json.dumps({"version": 1, "sites": sites | {where: now_at}}))
    return Published(written, len(games), removed)
