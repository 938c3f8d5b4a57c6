"""How `pbem verify` quotes a value of an export or a mail in a message: bounded, whatever its length.

An export (or a mail) can hold text of any length, and a forged one text made to flood the report; every
value a message of verify's quotes goes through `quote`, so a report stays a few lines.  `difference` names
the first field where two JSON values part, so a message can say what differs rather than repeat what agrees.
`between` and `cut_between` find the parts of a mail between two marks (its HTML list's items) in time linear in the
text: a lazy pattern (`<li>(.*?)</li>`) read every mark left unclosed to the end again, the square of a forged part
(the seventh cost hunt).  `Alike` keeps the first `ALIKE` warnings of one kind whole and counts the rest in one line:
an export of n hostile entries made n warnings of 230 to 460 characters each, a report of megabytes (costs19).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

LIMIT = 80  # characters of a quoted value
ALIKE = 10  # warnings of one kind a report shows whole (`Alike`)


def quote(value: Any, limit: int = LIMIT) -> str:
    """`value` as a message quotes it: text in quotes, anything else as compact JSON, at most about `limit`
    characters (a longer one is cut, and its length said)."""
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def clip(text: str, limit: int = LIMIT) -> str:
    """`text` as a message shows it unquoted (names, order lines), at most about `limit` characters."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def apart(a: str, b: str, limit: int = LIMIT) -> tuple[str, str]:
    """Two texts that differ, each quoted from a little before the first character where they part (so the
    difference shows however long they are), at most about `limit` characters."""
    i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    start = max(0, i - 20)
    lead = f"(from character {start + 1}) " if start else ""
    return lead + quote(a[start:], limit), lead + quote(b[start:], limit)


def between(text: str, opening: str, closing: str, most: int | None = None) -> list[str]:
    """What stands between each `opening` and the first `closing` after it, left to right (as `findall` of
    `opening(.*?)closing` with DOTALL), at most `most` of them.  Once a `closing` is missing, no later `opening` has
    one: the search stops there (the lazy pattern tried each, to the end)."""
    out: list[str] = []
    at = text.find(opening)
    while at >= 0 and (most is None or len(out) < most):
        start = at + len(opening)
        end = text.find(closing, start)
        if end < 0:
            break
        out.append(text[start:end])
        at = text.find(opening, end + len(closing))
    return out


def cut_between(text: str, opening: str, closing: str) -> str:
    """`text` without each part from `opening` to the first `closing` after it, both marks included (as `sub` of
    `opening.*?closing` with DOTALL by "")."""
    kept: list[str] = []
    done = 0
    at = text.find(opening)
    while at >= 0:
        end = text.find(closing, at + len(opening))
        if end < 0:
            break
        kept.append(text[done:at])
        done = end + len(closing)
        at = text.find(opening, done)
    return "".join(kept) + text[done:]


_ABSENT = object()


def difference(want: Any, got: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The first place where `want` and `got` (JSON values) differ: (its path, e.g. ``data.rng[0].value``, the
    value in `want`, the value in `got`); an absent key gives the text "(absent)".  None when equal."""
    if isinstance(want, dict) and isinstance(got, dict):
        for key in sorted(set(want) | set(got), key=str):
            a, b = want.get(key, _ABSENT), got.get(key, _ABSENT)
            where = f"{path}.{key}" if path else str(key)
            if a is _ABSENT or b is _ABSENT:
                return where, "(absent)" if a is _ABSENT else a, "(absent)" if b is _ABSENT else b
            found = difference(a, b, where)
            if found:
                return found
        return None
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got, strict=True)):
            found = difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if want == got and type(want) is type(got) else (path, want, got)


@dataclass
class Alike:
    """Warnings of one kind, one an entry: the first `most` kept whole (`lines`), the others counted, with the places
    of the first and last of them, in one line (`out`).  The caller asks `room` before writing a warning, so one not
    shown costs no text: an export of n hostile entries made n warnings of 230 to 460 characters (costs19)."""

    what: str  # e.g. "starts before the join deadline"
    most: int = ALIKE
    lines: list[str] = field(default_factory=list)
    more: int = 0
    places: list[str] = field(default_factory=list)  # the first and the last place not shown

    def room(self, place: str) -> bool:
        """Whether the warning about `place` (e.g. "input 12") is to be written whole; if not, it is counted."""
        if len(self.lines) < self.most:
            return True
        self.more += 1
        self.places[1:] = [clip(place)] if self.places else [clip(place), clip(place)]
        return False

    def out(self) -> list[str]:
        """The warnings kept, and a line counting the others."""
        if not self.more:
            return list(self.lines)
        where = self.places[0] if self.more == 1 else f"{self.places[0]} to {self.places[1]}"
        return [*self.lines, f"WARNING: ... and {self.more:,} more like these ({self.what}), not shown: {where}"]
