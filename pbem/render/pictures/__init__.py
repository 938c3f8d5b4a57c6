"""Pictures of a game's board for the reports: pure functions from a player's View to PNG bytes (issue 24).

One module per game draws from `view["data"]` only, so a picture can hold no fact its reader may not know
(the secrecy scramble runs over the bytes, tests/test_pictures.py).  Mail carries the PNG as a
`multipart/related` part referenced by `cid:`, with alt text; the same facts are in the report's text.
Pillow draws them directly (no SVG step, no system library, its own embedded font): see README, "Reports".
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib import import_module
from typing import Any

#: Game kind -> module drawing its board.
MODULES = {
    "sixteen-thirty": "pbem.render.pictures.sixteen_thirty",
    "habsburg": "pbem.render.pictures.habsburg",
    "dynasties": "pbem.render.pictures.dynasties",
    "italian-wars": "pbem.render.pictures.italian_wars",
}


@dataclass(frozen=True)
class Picture:
    """A drawn board: PNG bytes, the words for those who cannot see it, and the Content-ID naming it in a mail."""

    png: bytes
    alt: str
    width: int
    height: int

    @property
    def cid(self) -> str:
        return "board." + hashlib.sha256(self.png).hexdigest()[:16] + "@pbem"


def drawer(kind: str) -> Callable[[dict[str, Any]], Any] | None:
    name = MODULES.get(kind)
    return None if name is None else import_module(name).draw


def picture(view: dict[str, Any]) -> Picture | None:
    """The board of `view`'s game as seen by its reader, or None for a game with no picture.

    The same view draws the same picture, so one drawn moments ago (a report and its copy kept with the code
    redacted, a STATUS answered twice) is reused: the key is the view's facts, canonical JSON."""
    if drawer(view.get("kind", "")) is None:
        return None
    return _drawn(json.dumps([view["kind"], view["players"], view["data"]], sort_keys=True, default=str))


@lru_cache(maxsize=32)
def _drawn(key: str) -> Picture:
    kind, players, data = json.loads(key)
    canvas, alt = drawer(kind)({"kind": kind, "players": players, "data": data})  # type: ignore[misc]
    return Picture(canvas.png(), alt, canvas.width, canvas.height)
