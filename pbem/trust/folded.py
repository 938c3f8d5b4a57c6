"""`pbem verify --mail`: one replay of the record shared by every check of a mailbox that needs its past states.

The tables a report showed (`pbem.trust.shown`), the steps its deadline bound (`receipts._steps`), the
acknowledgements of applied orders and the refusals (`pbem.trust.refused`), the notices (`pbem.trust.noticed`), the
dropped lines (`pbem.trust.dropped`) and what the engine understood of each quoted line (`receipts._readings`) each
replayed the game from its seed up to the last state they read: the largest seeded game's mailbox (Sixteen Thirty,
273 inputs) folded 1,088 inputs for its four replays (costs12).  Inside `sharing(doc, rows)` (one mailbox's
`receipts.check_mail`) the record is folded forward once, as far as the checks ask, and each check takes the states
it asks for from there; inside `across(doc)` (`pbem verify --mail A --mail B ...`) every mailbox takes the same fold, and so does the
export's own replay (`started`, costs13).

The states are not all kept (costs17): on 7f9524d the state after every input was, about 8 KB each in Sixteen
Thirty, so an export at its 64 MiB cap (some 100,000 inputs) would have held on the order of 1 GB while a player
checked it.  The state after every `KEEP`th input is kept, and the `RECENT` states last folded or asked for; any
other is folded again from the nearest before it (the fold is deterministic: an undo's state is the one the fold
gives for it, `Fold.restored`, from its own tree of states).  A check reads its states in order, so each is folded again at most once a check;
a record of at most `RECENT` inputs is never folded again.  `states` gives a mapping that folds a state when it is
read: the checks keep none of them.

Each check still gets the states it asked for and no others, and the errors its own replay raised (an input refused
on replay, a malformed record): what every check says is the same.  Outside `sharing` each replay is its own.
Pure; held only while its mailbox is checked.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pbem import engine as registry
from pbem.engine.base import Engine
from pbem.trust import deal as joining
from pbem.trust.fold import UNDO, Fold, run_input

State = dict[str, Any]
KEEP = 64  # inputs between the states kept for the whole check
RECENT = 1024  # the states last folded or asked for, kept besides (about 8 MB of Sixteen Thirty)


class Folded:
    """The record `rows` (the chain in order) of the export `doc` folded forward from its seed as far as asked, with
    the state after every `KEEP`th input kept and the `RECENT` last folded or asked for (any other folded again),
    what the engine understood of each input's lines, and where the fold first failed: an input refused (the fold
    goes on, as `receipts._readings` did) or an error (it stops)."""

    def __init__(self, doc: dict[str, Any], rows: list[dict[str, Any]]) -> None:
        eng: Engine = registry.get(doc["game"]["kind"])
        players, seed, options = [str(p["name"]) for p in doc["players"]], str(doc["seed"]), doc["game"]["options"]
        self.reader: Callable[[State], Engine] = lambda st: joining.step_engine(eng, st, players, seed, options)
        self.start: State = joining.open_state(players) if "salts" in doc else eng.setup(players, seed, options)[0]
        self.doc, self.rows = doc, rows
        self.fold = Fold(self.start, self.reader, seed)
        self.at, self.state = 0, self.start  # the position folded to and the state there
        self.marks: dict[int, State] = {0: self.start}  # the state after every `KEEP`th input position folded
        self.marked: list[int] = [0]  # their positions, in order
        self.recent: OrderedDict[int, State] = OrderedDict()  # the states last folded or asked for, the latest last
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
                self.state = out.state
                self._keep(i, out.state)
                if i - self.marked[-1] >= KEEP:
                    self.marks[i] = out.state
                    self.marked.append(i)
            self.at = i

    def _keep(self, i: int, state: State) -> None:
        self.recent[i] = state
        self.recent.move_to_end(i)
        if len(self.recent) > RECENT:
            self.recent.popitem(last=False)

    def state_at(self, q: int) -> State:
        """The state after input position `q` (folded to already, and before any input refused there): kept, or
        folded again from the nearest state kept before it."""
        if q in self.recent:
            self.recent.move_to_end(q)
            return self.recent[q]
        at = self.marked[bisect_right(self.marked, q) - 1]
        if at == q:
            return self.marks[q]
        at = next((p for p in range(q - 1, at, -1) if p in self.recent), at)
        state = self.recent[at] if at in self.recent else self.marks[at]
        for i in range(at + 1, q + 1):
            row = self.rows[i - 1]
            if "lines" in row:
                if row["kind"] == UNDO:  # (the state the fold's undo left: going back again is the fold's own)
                    state = self.fold.restored(row["seq"])
                else:
                    state = run_input(self.reader(state), state, row["kind"], row["player"], row["lines"]).state
                self._keep(i, state)
        return state

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

    def states(self, wanted: set[int]) -> Mapping[int, State]:
        """The state after each input position of `wanted` (and 0, the start), as a replay from the seed up to the
        last of them keeps them (`shown.Replay`), each folded when read (`States`); raises what that replay
        raised."""
        last = max(wanted, default=0)
        self.forward(last)
        if self.refused is not None and self.refused[0] <= last:
            raise ValueError(self.refused[1])
        if self.failed is not None and self.failed[0] <= last:
            raise self.failed[1]
        kept = [q for q in sorted(wanted) if q == 0 or (0 < q <= self.at and "lines" in self.rows[q - 1])]
        return States(self, kept)

    def readings(self) -> dict[int, list[str]] | None:
        """What the engine understood of each line of each input, the whole record folded; None if it fails."""
        self.forward(len(self.rows))
        return None if self.failed is not None else dict(self.understood)


class States(Mapping[int, State]):
    """The states after the input positions `kept` (in order) of a fold, each taken from it when read
    (`Folded.state_at`): none held here."""

    def __init__(self, folded: Folded, kept: list[int]) -> None:
        self.folded, self.kept, self._in = folded, kept, set(kept)

    def __getitem__(self, q: int) -> State:
        if q not in self._in:
            raise KeyError(q)
        return self.folded.state_at(q)

    def __iter__(self) -> Iterator[int]:
        return iter(self.kept)

    def __len__(self) -> int:
        return len(self.kept)

    def __contains__(self, q: object) -> bool:
        return q in self._in


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
