"""Pictures of a game's board for the reports: pure functions from a player's View to PNG bytes (issue 24).

One module per game draws from `view["data"]` only, so a picture can hold no fact its reader may not know
(the secrecy scramble runs over the bytes, tests/test_pictures.py).  Mail carries the PNG as a
`multipart/related` part referenced by `cid:`, with alt text; the same facts are in the report's text.
Pillow draws them directly (no SVG step, no system library, its own embedded font): see README, "Reports".

Picture versions: 1 laid each board out 680 px wide (its words 5.5 to 7 CSS px on a phone); 2, the one drawn now,
lays it out and draws it 340 px wide, its words 12 to 14 px (`phone.py`).  A version's drawing never changes once mail carries it:
`pbem verify --mail` draws a report's pictures again, trying each version of `VERSIONS`, newest first.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import import_module
from typing import Any

#: Game kind -> module drawing its board.
MODULES = {
    "sixteen-thirty": "pbem.render.pictures.sixteen_thirty",
    "habsburg": "pbem.render.pictures.habsburg",
    "dynasties": "pbem.render.pictures.dynasties",
    "italian-wars": "pbem.render.pictures.italian_wars",
}


VERSION = 2  # the pictures drawn for mail now (`phone.py`)
VERSIONS = (2, 1)  # every version a mail may carry, newest first
#: The drawing functions of each version: (a reader's own picture, the public one shared by every reader).
_DRAW = {1: ("draw", "draw_public"), 2: ("draw_phone", "draw_public_phone")}


@dataclass(frozen=True)
class Picture:
    """A drawn board: PNG bytes, the words for those who cannot see it, and the Content-ID naming it in a mail;
    `width` and `height` are its size, the HTML's (a phone shows it at most 340 px wide)."""

    png: bytes
    alt: str
    width: int
    height: int

    @cached_property
    def cid(self) -> str:  # asked for by the HTML and by the mail's part: hashed once
        return "board." + hashlib.sha256(self.png).hexdigest()[:16] + "@pbem"


def _module(kind: str) -> Any:
    name = MODULES.get(kind)
    return None if name is None else import_module(name)


def board(view: dict[str, Any], version: int = VERSION) -> list[Picture]:
    """The pictures of `view`'s game as its reader may see it ([] for a game with none): a public picture shared
    by every reader of one moment where the game has one (Sixteen Thirty's map), then the reader's own.

    A picture is a function of what it shows, so one drawn moments ago is reused (a report and its copy kept
    with the code redacted; the map, which every report of one moment shows): keys are canonical JSON.  A game
    whose module says `FROM_VIEW` (House of Habsburg) has its reader's picture drawn from the view itself, with
    no key: each reader's picture shows their own hand, so 2% of them were found in the cache, and writing the
    view as JSON and reading it back cost more than the pictures it found (issue 27).  `version`: the layout
    (`VERSIONS`), the one drawn now unless `pbem verify --mail` asks for an older one."""
    mod = _module(view.get("kind", ""))
    if mod is None:
        return []
    out = [_public(view["kind"], mod.public_key(view), version)] if hasattr(mod, "public_key") else []
    if getattr(mod, "FROM_VIEW", False):
        own = _picture(getattr(mod, _DRAW[version][0])(view))
    else:
        own = _drawn(json.dumps([view["kind"], view["players"], view["data"]], sort_keys=True, default=str), version)
    return out + ([own] if own is not None else [])


@lru_cache(maxsize=8)
def _public(kind: str, key: str, version: int = VERSION) -> Picture:
    canvas, alt = getattr(_module(kind), _DRAW[version][1])(key)
    return Picture(canvas.png(), alt, canvas.width, canvas.height)


@lru_cache(maxsize=32)
def _drawn(key: str, version: int = VERSION) -> Picture | None:
    kind, players, data = json.loads(key)
    return _picture(getattr(_module(kind), _DRAW[version][0])({"kind": kind, "players": players, "data": data}))


def _picture(drawn: Any) -> Picture | None:
    if drawn is None:
        return None
    canvas, alt = drawn
    return Picture(canvas.png(), alt, canvas.width, canvas.height)
