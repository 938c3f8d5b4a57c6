"""Folding recorded inputs into a state: one input at a time, undo included (pure).

Both the moderator (`pbem.record.store.replay`) and `pbem verify` fold a game's
inputs with `Fold`, so they agree on what every input does:

* a player's orders, the deadline's defaults (`deadline`), the moderator's start of
  a game whose join step was open (`start`), a seat renamed (`pbem.engine.seats`);
* `undo` (issue 28, `pbem game undo NAME --to SEQ`): its lines are the target,
  `replay` or `reroll`, and the moderator's reason.  The state becomes the state
  after input SEQ again (earlier undos honoured).  The later inputs stay in the
  record, chained as ever; only their effect is gone.

The target, and what the undo's events say, come in two forms (the record says which, as the salts of
2026-12-05 do: a game recorded before keeps its form and verifies as before):

* a *marked* undo (every undo since branch `undocount`, once the game is dealt): the target is
  `mark:` + `undo_mark(seed, SEQ)`, an HMAC of the input number under the game's generator seed, so a player
  reading the input (a partial export, the site) learns nothing of how many inputs came before it; whoever
  holds the seed (the moderator, `pbem verify` once it is revealed) finds SEQ.  Its public `undo` event holds
  no global number: it names the point gone back to by the last event everyone had seen there (`after`),
  whether draws are replayed, and why; each player whose own inputs no longer count gets a private `undo`
  event listing their lines (`yours`).  So nobody learns how many inputs of others were undone.
  An undo taken while a join step is open (no generator yet) is marked too, since branch `fairness5`: keyed with
  the game's own seed (`Fold.secret`), committed in the invitation before any input and revealed at the end like
  the generator's, under its own label (`JOIN_LABEL`), so that it never names the same input as a generator's mark.
* a numbered undo (recorded before; in a join step, before branch `fairness5`): the target is SEQ itself, and
  one public `undo` event holds `to` and `undone` (global input numbers), as before.

Randomness after an undo: with `replay` (the default) the generator goes back with
the state, so a result that is played again the same way comes out the same: nobody,
the moderator included, can undo a draw to get another.  With `reroll` (a public
choice, stated in the undo event and every report) the generator keeps the counter
the undone inputs had reached, so the draws that follow are ones nobody has seen.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import re
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from pbem.engine.base import PUBLIC, Engine, Event, LineResult, Outcome, apply_defaults
from pbem.engine.seats import RENAME, rename

UNDO = "undo"
MODES = ("replay", "reroll")
MARK = "mark:"
_MARKED = re.compile(r"\Amark:[0-9a-f]{32}")
KEEP = 8  # nodes between the states a fold going back keeps (`Fold.kept`): where it passed, 2 * KEEP - 1 inputs at most


JOIN_LABEL = "pbem-undo-join-target"  # the HMAC's label of a mark made in a join step, keyed with the game's seed


def undo_key(state: dict[str, Any], secret: str | None = None) -> tuple[str, str] | None:
    """(key, label) of the marks an undo on `state` records: the seed of `state`'s generator once the game is dealt,
    else (a join step still open) `secret`, the game's own seed, committed before any input; None without either."""
    rng = state.get("rng")
    seed = rng.get("seed") if isinstance(rng, dict) else None
    if isinstance(seed, str) and seed:
        return seed, "pbem-undo-target"
    return (secret, JOIN_LABEL) if isinstance(secret, str) and secret else None


def undo_mark(state: dict[str, Any], to: int, secret: str | None = None) -> str | None:
    """The target an undo records for input `to`, keyed with the seed of `state`'s generator, or in a join step with
    the game's seed `secret` (both secret until the end, `undo_key`): `mark:` and 32 hex digits; None without a
    key (a join step folded without the game's seed)."""
    key = undo_key(state, secret)
    if key is None:
        return None
    return MARK + hmac.new(key[0].encode(), f"{key[1]}:{to}".encode(), hashlib.sha256).hexdigest()[:32]


def undo_lines(to: int | str, reroll: bool, why: str) -> list[str]:
    """The lines an undo input records: its target (a mark, or a number), the mode, the reason."""
    return [str(to), "reroll" if reroll else "replay", why]


def read_undo(lines: list[str]) -> tuple[int | str, bool, str]:
    """(target input, or its mark; reroll; reason) of an undo input's lines; ValueError if they are not an undo's."""
    if len(lines) != 3 or not (lines[0].isdigit() or _MARKED.fullmatch(lines[0])) or lines[1] not in MODES:
        raise ValueError(f"not the lines of an undo input: {lines!r}")
    return int(lines[0]) if lines[0].isdigit() else lines[0], lines[1] == "reroll", lines[2]


def run_input(eng: Engine, state: dict[str, Any], kind: str, player: str, lines: list[str]) -> Outcome:
    """One recorded input other than undo: a player's orders, the deadline's defaults, a start, a rename."""
    if kind == "deadline":
        return apply_defaults(eng, state)
    if kind == "start":  # the moderator started a game whose join step was open
        return eng.timeout(state)
    if kind == RENAME:
        return rename(state, player, lines[0])
    return eng.apply(state, player, lines)


def _seq(done: tuple[int, str, str, list[str]]) -> int:
    return done[0]


def _refused(state: dict[str, Any], line: str, reason: str) -> Outcome:
    return Outcome(state, [], [LineResult(line, False, reason, ())])


class Undos(Mapping[int, tuple[int, list[int]]]):
    """Each accepted undo of a fold: (the input it went back to, the inputs other than undos it undid), the list made
    when read from the span of `done` it undid.  On 9fb0ae7 each undo kept its list: a record of k undos each going
    back over the n inputs before it held k times n numbers (costs18)."""

    def __init__(self, done: list[tuple[int, str, str, list[str]]]) -> None:
        self.done = done
        self.spans: dict[int, tuple[int, int, int]] = {}  # undo seq -> (the input gone back to, `done` from, to)

    def __getitem__(self, seq: int) -> tuple[int, list[int]]:
        to, first, end = self.spans[seq]
        return to, [d[0] for d in self.done[first:end] if d[1] != UNDO]

    def __iter__(self) -> Iterator[int]:
        return iter(self.spans)

    def __len__(self) -> int:
        return len(self.spans)


class Fold:
    """A game's inputs folded one by one from its starting state; remembers them so undo can go back.

    What an undo goes back to is found in a tree of the states the game has been in (costs18): each accepted input
    other than an undo is a node whose parent is the state it was applied to; an undo that replays is the node it
    goes back to, one that rerolls a node setting the generator's counter.  No state is kept for a node but the start
    and, as a fold going back passes, one every `KEEP` nodes along its way where at least `KEEP` more follow
    (`_state`): any state is folded again from the nearest kept above it, at most `2 * KEEP - 1` inputs where a fold
    going back passed before (the first time, the whole way from the nearest kept: each input once).  On 9fb0ae7
    a whole state was kept for every undo (`restored`) and every 16 inputs once an undo folded back: a record of an
    input and an undo, again and again, held a state for every two inputs."""

    def __init__(
        self, start: dict[str, Any], engine_for: Callable[[dict[str, Any]], Engine], secret: str | None = None
    ) -> None:
        self.start = copy.deepcopy(start)
        self.engine_for = engine_for  # the engine that reads a state (the join step while it is open)
        self.secret = secret  # the game's seed: the key of a join step's undo marks (`undo_key`); None: unknown
        self.done: list[tuple[int, str, str, list[str]]] = []  # (seq, kind, player, lines) accepted so far
        self.undos = Undos(self.done)  # each accepted undo: (the input gone back to, the inputs it undid)
        self.points: dict[int, str | None] = {}  # each accepted undo's point: the last public event it went back to
        # The tree: node 0 is the start; node k > 0 folds `done[row[k]]` on its parent's state, or (row -1) sets
        # the generator's counter to `counters[k]` (an undo that rerolls).  `nodes[i]`: the node after `done[i]`.
        self.parent, self.row, self.nodes = array("q", [0]), array("q", [-1]), array("q")
        self.counters: dict[int, int] = {}
        # The states kept (and the last public event of the play up to there): node -> (state, last).
        self.kept: dict[int, tuple[dict[str, Any], str | None]] = {}
        self._back: tuple[int, int | None] = (0, None)  # the node an accepted undo went back to, its counter if reroll
        self._marks: tuple[Any, dict[str, int], int] | None = None  # (key, mark -> input, inputs marked so far)

    def run(self, seq: int, kind: str, player: str, lines: list[str], state: dict[str, Any]) -> Outcome:
        """Input `seq` on `state` (the state after the inputs run so far)."""
        out = (
            self._undo(seq, lines, state)
            if kind == UNDO
            else run_input(self.engine_for(state), state, kind, player, lines)
        )
        if out.accepted:
            self.done.append((seq, kind, player, list(lines)))
            if kind != UNDO:
                self.nodes.append(self._node(self.nodes[-1] if len(self.nodes) else 0, len(self.done) - 1))
            elif self._back[1] is None:
                self.nodes.append(self._back[0])
            else:
                self.nodes.append(self._node(self._back[0], -1))
                self.counters[len(self.row) - 1] = self._back[1]
        return out

    def _node(self, parent: int, row: int) -> int:
        self.parent.append(parent)
        self.row.append(row)
        return len(self.row) - 1

    def restored(self, seq: int) -> dict[str, Any]:
        """The state the accepted undo `seq` left (a copy): the state it went back to, folded again."""
        return self._state(self.nodes[bisect_right(self.done, seq, key=_seq) - 1])[0]

    def state_after(self, to: int) -> dict[str, Any]:
        """The state after input `to`, folded again from the nearest state kept (undos among them honoured)."""
        return self._again(to)[0]

    def _again(self, to: int) -> tuple[dict[str, Any], str | None]:
        """`state_after(to)`, and the text of the last public event of the play up to there (None: none since
        the set-up); an undo's own events are not the play's, and quoting them would nest quotes."""
        upto = bisect_right(self.done, to, key=_seq)  # the inputs up to `to`: `done` is in order
        return self._state(self.nodes[upto - 1] if upto else 0)

    def _state(self, node: int) -> tuple[dict[str, Any], str | None]:
        """The state at `node` (a copy) and its last public event: folded down from the nearest kept above it,
        keeping the state every `KEEP` nodes of the way that has at least `KEEP` more after it."""
        path: list[int] = []
        while node and node not in self.kept:
            path.append(node)
            node = self.parent[node]
        kept, last = self.kept[node] if node else (self.start, None)
        state = copy.deepcopy(kept)
        for k, at in enumerate(reversed(path), 1):
            row = self.row[at]
            if row < 0:  # an undo that rerolls: the counter the undone inputs had reached
                state["rng"]["n"] = self.counters[at]
            else:
                _, kind, player, lines = self.done[row]
                out = run_input(self.engine_for(state), state, kind, player, lines)
                state = out.state
                last = next((e.text for e in reversed(out.events) if e.visibility == PUBLIC and e.kind != UNDO), last)
            if k % KEEP == 0 and k <= len(path) - KEEP:
                self.kept[at] = (copy.deepcopy(state), last)
        return state, last

    def target(self, mark: str, state: dict[str, Any]) -> int | None:
        """The input (0: the start) an undo's mark names, keyed as `undo_key` says; None if none.  The marks
        of the inputs done so far are kept and extended (each input's mark made once a fold), so a game of n inputs
        and k undos costs n marks, not n for every undo."""
        key = undo_key(state, self.secret)
        if self._marks is None or self._marks[0] != key:
            self._marks = (key, {m: 0} if (m := undo_mark(state, 0, self.secret)) else {}, 0)
        _, marks, upto = self._marks
        for s, _, _, _ in self.done[upto:]:
            if (m := undo_mark(state, s, self.secret)) is not None:
                marks[m] = s
        self._marks = (key, marks, len(self.done))
        return marks.get(mark)

    def _undo(self, seq: int, lines: list[str], state: dict[str, Any]) -> Outcome:
        try:
            named, reroll, why = read_undo(lines)
        except ValueError as exc:
            return _refused(state, " ".join(lines), str(exc))
        to = named if isinstance(named, int) else self.target(named, state)
        if to is None:
            return _refused(state, lines[0], "this mark names no earlier input of the game")
        if not 0 <= to < seq - 1:
            return _refused(state, lines[0], f"input {to} is not an earlier input to go back to")
        upto = bisect_right(self.done, to, key=_seq)  # `done` is in order
        later = [d for d in self.done[upto:] if d[1] != UNDO]
        undone = [d[0] for d in later]
        back = self.nodes[upto - 1] if upto else 0
        restored, last = self._state(back)
        counter = None
        if reroll:
            if not isinstance(restored.get("rng"), dict) or not isinstance(state.get("rng"), dict):
                return _refused(state, lines[1], "this game keeps no generator to reroll")
            counter = restored["rng"]["n"] = max(int(restored["rng"]["n"]), int(state["rng"]["n"]))
        self._back = (back, counter)
        self.undos.spans[seq] = (to, upto, len(self.done))
        self.points[seq] = last
        if isinstance(named, str):
            return self._marked(restored, lines, later, last, reroll, why)
        span = f"input {undone[0]}" if len(undone) == 1 else f"inputs {undone[0]} to {undone[-1]}" if undone else ""
        text = f"The moderator took the game back to where it stood after input {to}" + (
            f"; {span} no longer count." if span else "."
        )
        text += " Later draws are new ones (reroll)." if reroll else " Draws are replayed as they were."
        if why:
            text += f" Reason: {why}"
        data = {"to": to, "undone": undone, "reroll": reroll, "why": why}
        return Outcome(restored, [Event("undo", text, PUBLIC, data)], [LineResult(" ".join(lines), True, "", ())])

    def _marked(
        self,
        restored: dict[str, Any],
        lines: list[str],
        undone: list[tuple[int, str, str, list[str]]],
        last: str | None,
        reroll: bool,
        why: str,
    ) -> Outcome:
        """A marked undo's events: one public, which counts nothing, and one to each player whose own inputs it
        took back, listing their lines (what they sent, no number of anyone's)."""
        point = f'after "{last}", the last event everyone had seen there' if last else "after the set-up"
        text = f"The moderator took the game back to where it stood {point}."
        text += " Later draws are new ones (reroll)." if reroll else " Draws are replayed as they were."
        text += " Each player is told which of their own orders no longer count."
        if why:
            text += f" Reason: {why}"
        events = [Event(UNDO, text, PUBLIC, {"after": last, "reroll": reroll, "why": why})]
        yours: dict[str, list[list[str]]] = {}
        for _, kind, player, said in undone:
            if player and kind != RENAME:
                yours.setdefault(player, []).append(list(said))
        for player, inputs in sorted(yours.items()):
            listed = "; ".join(" / ".join(said) or "(no lines)" for said in inputs)
            events.append(
                Event(
                    UNDO,
                    f"These orders of yours no longer count (the undo took them back): {listed}.",
                    (player,),
                    {"yours": inputs},
                )
            )
        return Outcome(restored, events, [LineResult(" ".join(lines), True, "", ())])
