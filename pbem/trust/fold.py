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
from bisect import bisect_right
from collections.abc import Callable
from typing import Any

from pbem.engine.base import PUBLIC, Engine, Event, LineResult, Outcome, apply_defaults
from pbem.engine.seats import RENAME, rename

UNDO = "undo"
MODES = ("replay", "reroll")
MARK = "mark:"
_MARKED = re.compile(r"mark:[0-9a-f]{32}")
KEEP = 16  # inputs between the states a fold going back keeps (`Fold.kept`)


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


class Fold:
    """A game's inputs folded one by one from its starting state; remembers them so undo can go back."""

    def __init__(
        self, start: dict[str, Any], engine_for: Callable[[dict[str, Any]], Engine], secret: str | None = None
    ) -> None:
        self.start = copy.deepcopy(start)
        self.engine_for = engine_for  # the engine that reads a state (the join step while it is open)
        self.secret = secret  # the game's seed: the key of a join step's undo marks (`undo_key`); None: unknown
        self.done: list[tuple[int, str, str, list[str]]] = []  # (seq, kind, player, lines) accepted so far
        self.undos: dict[int, tuple[int, list[int]]] = {}  # each accepted undo: (the input gone back to, undone)
        # The state each accepted undo left, shared with the folds that go back (`_again`): replaying an earlier
        # undo takes it from here instead of going back again, which made k nested undos cost 2^k replays.
        self.restored: dict[int, dict[str, Any]] = {}
        self.points: dict[int, str | None] = {}  # each accepted undo's point: the last public event it went back to
        # The state (and `_again`'s last public event) after the first (j + 1) * KEEP inputs of `done`, kept by the
        # folds going back as they pass there: the next one starts from the nearest instead of the set-up, which
        # made a game of k undos and n inputs cost k times n inputs (costs10).  `done` only grows: each stays true.
        self.kept: list[tuple[dict[str, Any], str | None]] = []
        self._marks: tuple[Any, dict[str, int], int] | None = None  # (key, mark -> input, inputs marked so far)

    def run(self, seq: int, kind: str, player: str, lines: list[str], state: dict[str, Any]) -> Outcome:
        """Input `seq` on `state` (the state after the inputs run so far)."""
        if kind == UNDO and seq in self.restored:  # replayed by a fold going back: it left this state before
            out = Outcome(copy.deepcopy(self.restored[seq]), [], [LineResult(" ".join(lines), True, "", ())])
        elif kind == UNDO:
            out = self._undo(seq, lines, state)
            if out.accepted:
                self.restored[seq] = copy.deepcopy(out.state)
        else:
            out = run_input(self.engine_for(state), state, kind, player, lines)
        if out.accepted:
            self.done.append((seq, kind, player, list(lines)))
        return out

    def state_after(self, to: int) -> dict[str, Any]:
        """The state after input `to`, folding again from the start (undos among them honoured)."""
        return self._again(to)[0]

    def _again(self, to: int) -> tuple[dict[str, Any], str | None]:
        """`state_after(to)`, and the text of the last public event of the play up to there (None: none since
        the set-up); an undo's own events are not the play's, and quoting them would nest quotes."""
        again = Fold(self.start, self.engine_for, self.secret)
        again.restored, again.points = self.restored, self.points
        upto = bisect_right(self.done, to, key=_seq)  # the inputs to fold again: `done` is in order
        at = min(len(self.kept), upto // KEEP) * KEEP  # the nearest kept (they are made in order, from the first)
        kept, last = self.kept[at // KEEP - 1] if at else (self.start, None)
        state = copy.deepcopy(kept)
        for i in range(at, upto):
            seq, kind, player, lines = self.done[i]
            out = again.run(seq, kind, player, lines, state)
            state = out.state
            if kind == UNDO:  # back at that undo's point: the events since it are no longer the game's
                last = self.points.get(seq, last)
            last = next((e.text for e in reversed(out.events) if e.visibility == PUBLIC and e.kind != UNDO), last)
            if (i + 1) % KEEP == 0 and (i + 1) // KEEP > len(self.kept):
                self.kept.append((copy.deepcopy(state), last))
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
        later = [d for d in self.done[bisect_right(self.done, to, key=_seq) :] if d[1] != UNDO]  # `done` in order
        undone = [d[0] for d in later]
        restored, last = self._again(to)
        if reroll:
            if not isinstance(restored.get("rng"), dict) or not isinstance(state.get("rng"), dict):
                return _refused(state, lines[1], "this game keeps no generator to reroll")
            restored["rng"]["n"] = max(int(restored["rng"]["n"]), int(state["rng"]["n"]))
        self.undos[seq] = (to, undone)
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
