"""`pbem verify`: every player a `process` event names resigned in an earlier entry of the chain.

`pbem game process` moves a step's deadline to now only when the step asks nobody but players who resigned
(`pbem.app.processing`), and `pbem.trust.due` then lets its defaults fall early for the players the event names.
A resignation was only a control row, so a moderator could write a `process` event naming Bob, who never resigned,
and apply Bob's defaults early: Bob's own mail showed he never got "You resigned", the others' showed nothing
(fairness11).  Each resignation is now a public moderator event (`action` resign, the `player` and their `seat`,
`pbem.app.resigning`), and here:

* each `resign` event is public, names the player who held that seat then (`name_at`), once until the seat is given
  again (a second RESIGN is answered "you resigned already"), in exactly the text pbem writes;
* a `replace` event gives the seat to someone else: the resignation before it no longer counts;
* each player a `process` event names has a `resign` event of their seat before it, since the seat was last given.

Records made before pbem chained resignations hold none.  Such a record is told from a forgery by two marks: it holds
no `resign` event before the `process` event, and the event is dated before `SINCE` (times never go back along the
chain, so the whole game before it would have to be dated back too, against every player's mail).  A `resign` event
after it is a game upgraded since, honest (fairness12: 4adb736 refused any record holding one anywhere).  Then verify says in one note that those resignations are the moderator's word.  The dates are the
moderator's to write, so what binds them is what the players' providers signed: a player's mail recorded before the
event whose DKIM signature's `t=` (the provider's clock, bound by its signature) lies at or after `SINCE` by more
than `SKEW` proves the event was dated back, and the old path is refused (`Resigned.dated_back`, fairness12).
Pure; linear.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.orders.moderator import resigned as resigned_text
from pbem.trust import signing
from pbem.trust.quote import clip, quote

RESIGN = "resign"
READ = frozenset({RESIGN, "replace", "process"})  # the moderator events whose order `Resigned.read` follows
#: The first day of pbem's releases that chain each resignation: a `process` event dated from then on must follow one.
SINCE = datetime(2026, 12, 7, tzinfo=UTC)
#: The word that confirmed a resignation (``word``, since fairness24; required in a game that declares `pbem.trust.asked.BINDINGS`).
WORD = re.compile(r"\A[1-9][0-9]{5}")
#: How far ahead of the record's clock a provider's may be: a signature this much after `SINCE` is not a record's
#: from before it, whatever the two clocks.
SKEW = timedelta(hours=1)

NameAt = Callable[[dict[str, Any], dict[str, Any], int], "str | None"]


def _action(e: dict[str, Any]) -> str:
    data = e.get("data")
    return str(data.get("action", "")) if e.get("kind") == "moderator" and isinstance(data, dict) else ""


class Resigned:
    """The resignations of a record's events, read in their order (`resign`, `replace`, `process`); each method
    returns the problem it finds ("" when none)."""

    def __init__(self, doc: dict[str, Any], name_at: NameAt) -> None:
        self.doc, self.name_at = doc, name_at
        self.seats: dict[int, int] = {}  # a seat -> the seq of its resignation since it was last given
        self.chained = False  # a resignation read already: the record chained them from then on
        self.unproven: list[str] = []  # process events of a record from before: who they name
        self.old: list[dict[str, Any]] = []  # those events

    def read(self, e: dict[str, Any], processed: list[str]) -> str:
        """The next moderator event of `READ` (`processed`: the players a `process` event names)."""
        action = _action(e)
        if action == "replace":
            self.replace(e)
            return ""
        return self.resign(e) if action == RESIGN else self.process(e, processed)

    def resign(self, e: dict[str, Any]) -> str:
        """A player's resignation: public, its data the action, the player and their seat only, the player the one
        who held the seat then, not resigned already, in exactly pbem's text."""
        where = f"event {e.get('seq', '?')} (a player's resignation)"
        data = e["data"]
        if e["visibility"] != "public":
            return f"{where} is not public: every player was told of it"
        if sorted(data) not in (["action", "player", "seat"], ["action", "player", "seat", "word"]):
            return f"{where}: its data holds {quote(sorted(data))}; a resignation's holds its action, player and seat"
        if "word" in data and not (isinstance(data["word"], str) and WORD.fullmatch(data["word"])):
            return f"{where}: its word is {quote(data['word'])}; pbem writes the six digits that confirmed it"
        if "word" not in data and signing.marked(self.doc.get("game") or {}):
            return (
                f"{where} holds no word: pbem writes the six digits that confirmed it in every resignation of a game "
                "that declares its bindings, as this one does (game.bindings)"
            )
        seat, player = data["seat"], data["player"]
        name = self.name_at(self.doc, e, seat) if isinstance(seat, int) and not isinstance(seat, bool) else None
        if name is None or player != name:
            held = f"seat {clip(str(seat))} was {name}'s then" if name else f"the game has no seat {quote(seat)}"
            return f"{where} resigns {quote(player)}, but {held}"
        if seat in self.seats:
            return f"{where} resigns {player} again (event {self.seats[seat]} did): pbem answers a second RESIGN"
        if e["text"] != resigned_text(player):
            return f"{where} says {quote(e['text'])} where its text is {quote(resigned_text(player))}"
        self.seats[seat] = e.get("seq", 0)
        self.chained = True
        return ""

    def replace(self, e: dict[str, Any]) -> None:
        """The seat given to someone else: its resignation no longer counts."""
        seat = e["data"].get("seat")
        if isinstance(seat, int):
            self.seats.pop(seat, None)

    def process(self, e: dict[str, Any], players: list[str]) -> str:
        """The players of a `process` event who have no resignation before it ("" when each has one)."""
        seats = [p.get("seat", i) for i, p in enumerate(self.doc["players"])]
        named = {self.name_at(self.doc, e, seat): seat for seat in seats}
        missing = [p for p in players if named.get(p) not in self.seats]
        if not missing:
            return ""
        if not self.chained and _dated_before(e):
            self.unproven.append(f"event {e.get('seq', '?')} ({', '.join(missing)})")
            self.old.append(e)
            return ""
        return (
            f"event {e.get('seq', '?')} (a step's deadline applied now) names {', '.join(missing)}, who had not "
            "resigned: no resignation of theirs comes before it in the record, and pbem processes a step only when "
            "it asks nobody but players who resigned"
        )

    def note(self) -> str:
        """The note on `process` events of a record made before resignations were chained ("" when none)."""
        if not self.unproven:
            return ""
        return (
            f"the record holds no resignation entry before them (made before pbem chained them, {SINCE:%Y-%m-%d}): that "
            f"the players named by {'; '.join(self.unproven)} had resigned, which let their step's deadline be "
            'applied now, is the moderator\'s word; every player was mailed "... resigned" when it happened'
        )

    def dated_back(self, signed: dict[int, tuple[str, int]]) -> str:
        """Why a `process` event taken as a record's from before `SINCE` was dated back ("" when nothing shows it):
        `signed` maps a player input's seq to (the player, the `t=` of the provider's signature that holds on it).
        An input before the event in the chain whose provider signed it at `SINCE` + `SKEW` or later arrived then,
        so the event, recorded after it, was too (fairness12)."""
        bound = (SINCE + SKEW).timestamp()
        latest = _Latest(signed, bound) if self.old else None
        for e in self.old:
            found = latest.upto(e.get("input_seq", 0)) if latest else None
            if found is None:
                continue
            t, seq, who = found
            return (
                f"event {e.get('seq', '?')} (a step's deadline applied now) is dated {clip(str(e.get('at')))}, before "
                f"pbem chained resignations ({SINCE:%Y-%m-%d}), but input {seq}, before it in the chain, was signed by "
                f"{clip(who)}'s provider at {datetime.fromtimestamp(t, UTC):%Y-%m-%d %H:%M} UTC (its t=, bound by the "
                "signature): the record was dated back, and the resignation it needs is missing"
            )
        return ""


class _Latest:
    """The latest signature at `bound` or later among the inputs up to a place, for each of many places: the inputs
    signed then in order, each with the latest of them so far, so a place is one search.  Each `process` event of
    `Resigned.old` read every signed input: 2,000 of each took 0.16 s, 8,000 about 2.6 s (costs12)."""

    def __init__(self, signed: dict[int, tuple[str, int]], bound: float) -> None:
        self.signed, self.bound = signed, bound
        self.seqs: list[int] | None = None
        self.best: list[tuple[int, int, str]] = []  # (t, seq, who): the latest of the first k + 1 in order of seq
        try:
            late = sorted((seq, t, who) for seq, (who, t) in signed.items() if t >= bound)
        except TypeError:  # not numbers (a malformed export): each place reads them all, as it did
            return
        for seq, t, who in late:
            self.best.append(max(self.best[-1], (t, seq, who)) if self.best else (t, seq, who))
        self.seqs = [seq for seq, _, _ in late]

    def upto(self, at: Any) -> tuple[int, int, str] | None:
        """The latest (t, seq, who) of the inputs up to seq `at` signed at `bound` or later, or None."""
        if self.seqs is None or not isinstance(at, int | float):
            found = [(t, seq, who) for seq, (who, t) in self.signed.items() if seq <= at and t >= self.bound]
            return max(found) if found else None
        k = bisect_right(self.seqs, at)
        return self.best[k - 1] if k else None


def _dated_before(e: dict[str, Any]) -> bool:
    """Whether event `e` is dated before `SINCE` (a date that cannot be read is not)."""
    try:
        at = datetime.fromisoformat(str(e.get("at")))
    except ValueError:
        return False
    return (at if at.tzinfo else at.replace(tzinfo=UTC)) < SINCE


class Gone:
    """Who resigned at each point of a chain's `rows` (in order, 1-based places): a `resign` event at or before it
    whose seat was not given (a `replace` event) since.  `pbem verify --mail` reads a press's "Bob resigned: ..."
    against it (`pbem.trust.pressed`).  One pass over the rows keeps who had resigned after each such event (a
    record `pbem verify` accepts names only the game's seats in them), and a question bisects: each read every such
    event up to its place, so n presses not sent after n resignations and replacements cost n squared (300: 42 ms,
    1,200: 0.67 s, costs11)."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.places: list[int] = []
        self.gone: list[frozenset[str]] = []
        seats: dict[object, str] = {}
        for n, row in enumerate(rows, 1):
            action = _action(row)
            if action == RESIGN:
                seats[row["data"].get("seat")] = str(row["data"].get("player"))
            elif action == "replace":
                seats.pop(row["data"].get("seat"), None)
            else:
                continue
            self.places.append(n)
            self.gone.append(frozenset(seats.values()))

    def at(self, place: int) -> set[str]:
        k = bisect_right(self.places, place)
        return set(self.gone[k - 1]) if k else set()
