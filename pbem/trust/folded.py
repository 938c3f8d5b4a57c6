"""`pbem verify --mail`: one replay of the record shared by every check of a mailbox that needs its past states.

The tables a report showed (`pbem.trust.shown`), the steps its deadline bound (`receipts._steps`), the
acknowledgements of applied orders and the refusals (`pbem.trust.refused`), the notices (`pbem.trust.noticed`), the
dropped lines (`pbem.trust.dropped`) and what the engine understood of each quoted line (`receipts._readings`) each
replayed the game from its seed up to the last state they read: the largest seeded game's mailbox (Sixteen Thirty,
273 inputs) folded 1,088 inputs for its four replays (costs12).  Inside `sharing(doc, rows)` (one mailbox's
`receipts.check_mail`) the record is folded forward once, as far as the checks ask, and each check takes the states
it asks for from there; inside `across(doc)` (`pbem verify --mail A --mail B ...`) every mailbox takes the same fold, and so does the
export's own replay (`started`, costs13).  The state after every input folded is kept while the mailbox is checked: as many as one
check's replay kept at most (they ask for most of them: 178 of those 273 for the tables), and shared among the
states as the engine shares them.

Each check still gets the states it asked for and no others, and the errors its own replay raised (an input refused
on replay, a malformed record): what every check says is the same.  Outside `sharing` each replay is its own.
Pure; held only while its mailbox is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pbem import engine as registry
from pbem.engine.base import Engine
from pbem.trust import deal as joining
from pbem.trust.fold import Fold

State = dict[str, Any]


class Folded:
    """The record `rows` (the chain in order) of the export `doc` folded forward from its seed as far as asked, with
    the state after every `KEEP`th input kept, what the engine understood of each input's lines, and where the fold
    first failed: an input refused (the fold goes on, as `receipts._readings` did) or an error (it stops)."""

    def __init__(self, doc: dict[str, Any], rows: list[dict[str, Any]]) -> None:
        eng: Engine = registry.get(doc["game"]["kind"])
        players, seed, options = [str(p["name"]) for p in doc["players"]], str(doc["seed"]), doc["game"]["options"]
        self.reader: Callable[[State], Engine] = lambda st: joining.step_engine(eng, st, players, seed, options)
        self.start: State = joining.open_state(players) if "salts" in doc else eng.setup(players, seed, options)[0]
        self.doc, self.rows = doc, rows
        self.fold = Fold(self.start, self.reader, seed)
        self.at, self.state = 0, self.start  # the position folded to and the state there
        self.after: dict[int, State] = {}  # the state after each input position folded
        self.understood: dict[int, list[str]] = {}  # input seq -> what the engine understood of each line
        self.refused: tuple[int, str] | None = None  # the first input refused on replay: (position, why)
        self.failed: tuple[int, Exception] | None = None  # the error the fold stopped on: (position, the error)
        self.last: Any = None  # the outcome of the last input folded (`next_input`)
        self.steps: dict[int, Any] = {}  # input position -> the step open after it (`paced.step_of`), as read

    def forward(self, to: int) -> None:
        """Fold on up to position `to` (or where it fails)."""
        while self.at < min(to, len(self.rows)) and self.failed is None:
            i, row = self.at + 1, self.rows[self.at]
            if "lines" in row:
                try:
                    out = self.fold.run(row["seq"], row["kind"], row["player"], row["lines"], self.state)
                    self.understood[int(row["seq"])] = [r.understood for r in out.lines]
                except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
                    self.failed = (i, exc)
                    return
                self.last = out
                if not out.accepted and self.refused is None:
                    self.refused = (i, f"input {row['seq']} is refused on replay")
                self.state = self.after[i] = out.state
            self.at = i

    def next_input(self) -> Any:
        """Fold on through the next input and give its outcome (`Fold.run`'s), raising what its run raised: the
        export's own replay (`pbem.trust.verify._replay`) drives the fold so, input by input."""
        to = self.at + 1
        while to < len(self.rows) and "lines" not in self.rows[to - 1]:
            to += 1
        self.forward(to)
        if self.failed is not None:
            raise self.failed[1]
        return self.last

    def states(self, wanted: set[int]) -> dict[int, State]:
        """The state after each input position of `wanted` (and 0, the start), as a replay from the seed up to the
        last of them keeps them (`shown.Replay`); raises what that replay raised."""
        last = max(wanted, default=0)
        self.forward(last)
        if self.refused is not None and self.refused[0] <= last:
            raise ValueError(self.refused[1])
        if self.failed is not None and self.failed[0] <= last:
            raise self.failed[1]
        out: dict[int, State] = {0: self.start} if 0 in wanted else {}
        out.update((q, self.after[q]) for q in sorted(wanted) if q in self.after)
        return out

    def readings(self) -> dict[int, list[str]] | None:
        """What the engine understood of each line of each input, the whole record folded; None if it fails."""
        self.forward(len(self.rows))
        return None if self.failed is not None else dict(self.understood)


_SHARED: ContextVar[Folded | None] = ContextVar("folded", default=None)
_ASKED: ContextVar[tuple[dict[str, Any], list[dict[str, Any]]] | None] = ContextVar("asked", default=None)


_KEPT: ContextVar[tuple[dict[str, Any], list[Folded]] | None] = ContextVar("kept", default=None)


@contextmanager
def across(doc: dict[str, Any]) -> Iterator[None]:
    """Within it, every mailbox checked against `doc` (this very object: `pbem verify --mail A --mail B`) shares the
    fold the first made: its record's rows are the same, so each mailbox's `sharing` takes it on."""
    outer = _KEPT.get()
    if outer is not None and outer[0] is doc:  # inside one already (`pbem verify`: its own replay's, `started`)
        yield
        return
    kept = _KEPT.set((doc, []))
    try:
        yield
    finally:
        _KEPT.reset(kept)


def started(doc: dict[str, Any], rows: list[dict[str, Any]]) -> Folded | None:
    """Inside `across(doc)` before any mailbox took a fold: a fold of `rows` for the export's own replay to drive
    (`Folded.next_input`), which the mailboxes then take on: `pbem verify EXPORT --mail ...` folded the record twice,
    once to check the export and once for its mailboxes (costs13).  None elsewhere: the replay folds alone, keeping
    no state."""
    kept = _KEPT.get()
    if not kept or kept[0] is not doc or kept[1]:
        return None
    try:
        shared = Folded(doc, rows)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, registry.UnknownKind):
        return None
    kept[1].append(shared)
    return shared


@contextmanager
def sharing(doc: dict[str, Any], rows: list[dict[str, Any]]) -> Iterator[None]:
    """Within it, the replays of `doc`'s record `rows` (these very objects) share one fold (`of`): inside `across`
    the fold an earlier mailbox made of the same rows."""
    kept = _KEPT.get()
    earlier = kept[1][0] if kept and kept[0] is doc and kept[1] and kept[1][0].rows == rows else None
    asked, shared = _ASKED.set((doc, rows)), _SHARED.set(earlier)
    try:
        yield
    finally:
        _SHARED.reset(shared)
        _ASKED.reset(asked)


def of(doc: dict[str, Any], rows: list[dict[str, Any]]) -> Folded | None:
    """The fold shared by the replays of `doc`'s `rows` inside `sharing` (made at the first), or None: outside it,
    for another record, or when the record cannot be replayed from its start (each replay then raises as before)."""
    asked = _ASKED.get()
    if asked is None or asked[0] is not doc or asked[1] is not rows:
        return None
    shared = _SHARED.get()
    if shared is None:
        try:
            shared = Folded(doc, rows)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, registry.UnknownKind):
            return None
        _SHARED.set(shared)
        kept = _KEPT.get()
        if kept and kept[0] is doc and not kept[1]:
            kept[1].append(shared)  # for the next mailbox (`across`)
    return shared
