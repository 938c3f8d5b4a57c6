"""Pure game engines and the registry of game kinds.

`get(kind)` returns the engine object for a kind name, in any case; `KINDS` lists them.
Engines are imported lazily so that a cron run with nothing to do stays cheap.
A new game is its package (exporting ``ENGINE``) plus one line in `KINDS`:
the CLI help, the history and the contract tests all read this registry.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from pbem.engine.base import Engine

#: kind name -> module that defines ENGINE
KINDS: dict[str, str] = {
    "habsburg": "pbem.engine.habsburg",
    "italian-wars": "pbem.engine.italian_wars",
    "sixteen-thirty": "pbem.engine.sixteen_thirty",
    "dynasties": "pbem.engine.dynasties",
}


class UnknownKind(KeyError):
    pass


def canonical(kind: str) -> str:
    """The kind name as registered: kinds are typed in any case (`Habsburg`, `HABSBURG`), with a space or `_` for
    the `-` (`italian wars`, `Sixteen_Thirty`)."""
    return "-".join(kind.lower().replace("_", " ").split())


#: kind name as asked -> its engine's module, once found (`get` is asked about 20 times a reply, by every use of a
#: loaded game: the name's canonical form and the module's import looked up again each time were about 1% of a
#: reply).  The module, not its ENGINE, so that an ENGINE replaced in the module is the one `get` gives.
_FOUND: dict[str, Any] = {}  # the modules (types.ModuleType: the engine imports only its allowlist)


def get(kind: str) -> Engine:
    """The engine for `kind` (any case); raises UnknownKind naming the known kinds."""
    found = _FOUND.get(kind)
    if found is not None:
        cached: Engine = found.ENGINE
        return cached
    try:
        module = KINDS[canonical(kind)]
    except KeyError:
        near = [k for k in KINDS if _near(canonical(kind)[:60], k)]
        meant = f" (did you mean {' or '.join(near)}?)" if near else ""
        raise UnknownKind(f"unknown game kind {kind!r}{meant}; known kinds: {', '.join(available())}") from None
    loaded = importlib.import_module(module)
    engine: Engine = loaded.ENGINE
    if type(kind) is str and len(kind) <= 64:  # the names asked are the registry's few: bounded all the same
        if len(_FOUND) >= 64:
            _FOUND.clear()
        _FOUND[kind] = loaded
    return engine


def _near(typed: str, kind: str) -> bool:
    """Whether `typed` looks like a slip for `kind`: two edits at most (a letter left out, one too many, two
    swapped), or the same first four letters (`dynasty`, `sixteen`)."""
    if len(typed) >= 4 and kind.startswith(typed[:4]):
        return True
    row = list(range(len(kind) + 1))  # Levenshtein, one row at a time
    for i, a in enumerate(typed, 1):
        prev, row[0] = row[0], i
        for j, b in enumerate(kind, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (a != b))
    return row[-1] <= 2


def kinds_text() -> str:
    """The registered kinds for help text: "a, b, c or d"."""
    names = list(KINDS)
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]


def available() -> list[str]:
    """Kinds whose engine module is present in this install."""
    out: list[str] = []
    for kind, module in KINDS.items():
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError:
            continue
        if hasattr(mod, "ENGINE"):
            out.append(kind)
    return out
