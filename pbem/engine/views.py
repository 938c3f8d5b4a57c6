"""The typed per-player view every engine returns and every template reads.

A view is the only way out of a state (boardgame.io's ``playerView``,
OpenSpiel's observation): `View` says what one player (or, with ``you`` =
None, the public) may know.  Its ``sections`` are what the reports print, in
order: each `Section` has a title, a ``private`` flag and either ``lines`` of
text or a `Table`.  Its ``data`` holds the same facts as JSON for exports and
bots.

The types are TypedDicts, so a view stays a plain JSON value: it is copied
into the history export (``final_view``), compared with ``==`` by the secrecy
tests, and read by the Jinja2 templates (``block.title``, ``block.table`` and
``block.lines``) exactly as before.  Engines build them with `lines`,
`table` and `make_view` rather than writing dict literals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import Any, NotRequired, Protocol, TypedDict, TypeVar

V = TypeVar("V")

#: Set only while `pbem verify --mail` reads a refusal again as pbem wrote it before order13 (`as_kept`).
_AS_KEPT: ContextVar[bool] = ContextVar("pbem_engine_as_kept", default=False)


def kept_order() -> bool:
    """Whether the engines are asked to iterate a dict of the state in the order of its keys, as pbem did before
    order13 (`as_kept`); never in a poll."""
    return _AS_KEPT.get()


class as_kept:
    """`with as_kept():` the lines an engine lists follow the order of the state's keys, as pbem listed them before
    order13 (the order a state was built in memory, or sorted when loaded from the record): how `pbem verify --mail`
    reads a refusal written then (`pbem.trust.refused`).  Nothing else ever sets it, and it changes no decision:
    the states and events a replay makes are the same either way."""

    def __enter__(self) -> None:
        self._token = _AS_KEPT.set(True)

    def __exit__(self, *exc: object) -> None:
        _AS_KEPT.reset(self._token)


class Table(TypedDict):
    """A table of a section: column headings and rows of printable cells."""

    columns: list[str]
    rows: list[list[Any]]


class Section(TypedDict):
    """One block of a report: a titled list of lines or a table; ``private`` = only the reader sees it."""

    title: str
    private: bool
    lines: NotRequired[list[str]]
    table: NotRequired[Table]


class View(TypedDict):
    """What one player (``you``; None = the public) may know of a game now."""

    kind: str
    title: str
    turn: str
    players: list[str]
    you: str | None
    over: bool
    sections: list[Section]
    data: dict[str, Any]


class Named(Protocol):
    """What `make_view` needs of an engine: its kind name and title."""

    @property
    def kind(self) -> str: ...

    @property
    def title(self) -> str: ...


def seated(d: Mapping[str, V], players: Sequence[str]) -> dict[str, V]:
    """`d`'s entries keyed by players in seat order (then any other key, sorted).  A dict of the state iterates in
    the order its keys were made in memory, or sorted when the state was loaded from the record (its JSON is
    written with sorted keys): a view, a request or a refusal takes no order from it (docs/architecture.md)."""
    out = {p: d[p] for p in players if p in d}
    out.update((k, d[k]) for k in sorted(d) if k not in out)
    return out


def keyed(d: Mapping[str, V]) -> dict[str, V]:
    """`d` copied with its keys sorted: a record of the state (a meld, a country's tracks) shown in one order
    whatever order its keys were made or loaded in (`seated`)."""
    return {k: d[k] for k in sorted(d)}


def ordered(value: Any, players: Sequence[str]) -> Any:
    """A JSON value of the state copied in one order at every depth: a dict keyed by players in seat order
    (`seated`), any other dict by its sorted keys (`keyed`), a list as it stands."""
    if isinstance(value, dict):
        if value and all(k in players for k in value):
            return {k: ordered(v, players) for k, v in seated(value, players).items()}
        return {k: ordered(value[k], players) for k in sorted(value)}
    if isinstance(value, list):
        return [ordered(v, players) for v in value]
    return value


def lines(title: str, text: Sequence[str], private: bool = False) -> Section:
    """A section of text lines."""
    return {"title": title, "private": private, "lines": list(text)}


def table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], private: bool = False) -> Section:
    """A section holding one table."""
    return {
        "title": title,
        "private": private,
        "table": {"columns": list(columns), "rows": [list(r) for r in rows]},
    }


def make_view(
    engine: Named,
    players: Sequence[str],
    player: str | None,
    *,
    turn: str,
    over: bool,
    sections: list[Section],
    data: dict[str, Any],
) -> View:
    """The view of `player` (None, or anyone not seated, gets the public view's ``you`` = None)."""
    return {
        "kind": engine.kind,
        "title": engine.title,
        "turn": turn,
        "players": list(players),
        "you": player if player in players else None,
        "over": over,
        "sections": sections,
        "data": data,
    }
