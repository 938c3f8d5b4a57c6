"""`pbem publish DIR` and `[publish] dir`: the public site, written from public facts only.

The site is an index (`index.html`) and one page per game (`NAME.html`, named as
`pbem export --all` names files): the game's public history page opened by a "Now"
section (whose move it is and until when).  A page is built from the game's public
export document (pbem/history/export.py, `public=True`), which holds public events
only and the seed only after the end, so the site can show nothing a player could
not already tell everyone.

Writing is incremental: `.pbem-site.json` beside the pages remembers each game's
record position (pbem/record/site.py); a run rewrites the pages of games whose
record, control actions or deadlines changed, and the index when any page did.
Files are written to a temporary name and renamed, so a web server never serves a
half-written page.
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
from pbem.record import site, store

MANIFEST = ".pbem-site.json"
VERSION = 1


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


def _manifest(directory: Path) -> dict[str, Any]:
    """What the last `publish` wrote ({}: unknown, every page is written again).  A manifest made a device, a FIFO
    or nested arrays read until memory ran out, waited, or ended in a RecursionError (tests/reliability/
    test_costs4_files.py); each is now read as none."""
    from pbem.record.files import read_at_most

    try:
        doc = json.loads(read_at_most(directory / MANIFEST, MAX_MANIFEST_BYTES, "the site's manifest"))
    except (OSError, ValueError, RecursionError):  # Unreadable and UnicodeDecodeError are ValueErrors
        return {}
    return doc if isinstance(doc, dict) and doc.get("version") == VERSION else {}


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
    games: dict[str, Any] = {}
    written = 0
    with home.units() as s:
        for gid, position in sorted(site.positions(s).items()):
            key = str(gid)
            before = known.get(key)
            if (
                before is not None
                and before.get("position") == list(position)
                and (directory / before["page"]).exists()
            ):
                games[key] = before
                continue
            name = site.game_name(s, gid)
            game = store.game_by_name(s, name) if name is not None else None
            if game is None:
                continue
            loaded = store.load(s, game)
            doc = json.loads(json.dumps(build(s, game, public=True)))
            now = _now(s, loaded)
            page = inside(directory, export_stem(game.name, gid), "html")
            _write(page, game_page(doc, now))
            written += 1
            games[key] = {"position": list(position), "page": page.name, "entry": entry(doc, now, page.name).as_json()}
            if progress:
                progress(game.name)
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
        _write(directory / MANIFEST, json.dumps({"version": VERSION, "games": games}, indent=1, sort_keys=True))
    return Published(written, len(games), removed)
