"""The game history as a story: events grouped by scoring point, the standings, dates and notes.

Everything here is a pure function of an export document (`pbem.history.export.build`)
and of the game's `HistorySpec` (the engine's declaration: the word for one
step and the data key numbering it), so every audience gets a story built
from exactly what its document holds and nothing else.

* `turns(doc)` groups the events into set-up, one group per scoring point
  (each engine emits a public "scores" event after every turn, hand or
  gambit; it closes its group) and the end of the game.
* `standings(doc)` ranks the players from the result or the last scores event.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pbem.engine import UnknownKind, get
from pbem.engine.declare import HistorySpec

Doc = dict[str, Any]


def spec_of(doc: Doc) -> HistorySpec:
    """The history declaration of the document's game kind (a plain default if the kind is not installed)."""
    try:
        return get(doc["game"]["kind"]).history
    except UnknownKind:
        return HistorySpec()


@dataclass
class Group:
    """The events of one step (turn, hand, gambit), of the set-up or of the end."""

    key: str
    title: str
    events: list[dict[str, Any]] = field(default_factory=list)
    scores: dict[str, Any] | None = None  # the "scores" event closing the group


def step_word(doc: Doc) -> str:
    """The game's word for one step, capitalised ("Turn", "Hand", "Gambit")."""
    return spec_of(doc).step


def step_number(spec: HistorySpec, data: dict[str, Any], fallback: int) -> int:
    """The step a scores event closes (its ``spec.step_key``), else `fallback`."""
    n = data.get(spec.step_key)
    return n if isinstance(n, int) and not isinstance(n, bool) else fallback


def turns(doc: Doc, events: list[dict[str, Any]] | None = None) -> list[Group]:
    """`events` (default: all the document's) grouped by scoring point, in order."""
    spec = spec_of(doc)
    all_scores = [e for e in doc["events"] if e["kind"] == "scores"]
    bounds = [(e["seq"], step_number(spec, e["data"], i + 1), e) for i, e in enumerate(all_scores)]
    bounds.sort(key=lambda b: b[0])  # (a document pbem wrote holds them in order already)
    ends = [seq for seq, _, _ in bounds]  # the first at or after an event's position, found by bisection
    groups: dict[str, Group] = {}
    for ev in events if events is not None else doc["events"]:
        if ev.get("input_seq") == 0 and (not bounds or ev["seq"] < bounds[0][0]):
            key, title, closing = "setup", "Set-up", None
        else:
            at = bisect_left(ends, ev["seq"])
            nxt = (bounds[at][1], bounds[at][2]) if at < len(bounds) else None
            if nxt is None:
                over = doc["game"]["over"]
                key, title, closing = (
                    "end",
                    ("End of the game" if over else "Since the last scoring (in progress)"),
                    None,
                )
            else:
                key, title, closing = f"t{nxt[0]}", f"{spec.step} {nxt[0]}", nxt[1]
        g = groups.setdefault(key, Group(key, title, scores=closing))
        g.events.append(ev)
    return list(groups.values())


def visibility_label(vis: Any, audience: str) -> str:
    """'' for public events, else who saw it."""
    if vis == "public":
        return ""
    if vis == "moderator":
        return "moderator only"
    names = list(vis)
    if names == [audience]:
        return "seen by you"
    return "seen by " + ", ".join(names)


def scores_events(doc: Doc) -> list[dict[str, Any]]:
    return [e for e in doc["events"] if e["kind"] == "scores" and isinstance(e["data"].get("scores"), dict)]


def per_player(value: Any, players: list[str]) -> bool:
    """True for a non-empty {player: number} mapping."""
    return (
        isinstance(value, dict)
        and bool(value)
        and set(value) <= set(players)
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value.values())
    )


@dataclass(frozen=True)
class Holder:
    """A seat as the history's views name it: who holds it now, and every name it had (the set-up's first)."""

    seat: int
    name: str  # the seat's current holder
    names: tuple[str, ...]  # every name the seat had, in order, the current one last
    since: str | None = None  # when the current holder took it (ISO 8601; None: from the set-up)

    def line(self) -> str:
        """The seat's holder, and when a replacement gave it: "Erin (since 2026-12-07 04:41 UTC; earlier Carol)"."""
        if self.since is None:
            return self.name
        return f"{self.name} (since {when(self.since)}; earlier {', '.join(self.names[:-1])})"


def holders(doc: Doc) -> list[Holder]:
    """Each seat's holder now, in seat order, from the document alone: the set-up's names (`players`) followed through
    the moderator's public `replace` events (`pbem game replace`, REPLACE by mail).  A view that named the set-up's
    player named a replaced seat's former holder (walk8: the public export, its page and the site said Carol after
    `pbem game replace hh1 Carol Erin`; the standings showed Carol with no score, the final scores keyed by Erin)."""
    names = [[str(p["name"])] for p in sorted(doc["players"], key=lambda p: p["seat"])]
    since: list[str | None] = [None] * len(names)
    for ev in doc["events"]:
        data = ev.get("data") or {}
        seat, given = data.get("seat"), ev.get("kind") == "moderator" and data.get("action") == "replace"
        if given and isinstance(seat, int) and 0 <= seat < len(names) and isinstance(data.get("newcomer"), str):
            names[seat].append(data["newcomer"])
            since[seat] = ev.get("at")
    return [Holder(i, n[-1], tuple(n), since[i]) for i, n in enumerate(names)]


def of_seat(values: dict[str, Any], holder: Holder) -> Any:
    """A per-player value of a seat, under its newest name the mapping holds (scores before a replacement name the
    former holder): None when none."""
    return next((values[n] for n in reversed(holder.names) if n in values), None)


def _blank(value: Any) -> Any:
    return "" if value is None else value


def standings(doc: Doc) -> dict[str, Any]:
    """Rows (rank, player, score, extra per-player numbers, winner) and a caption."""
    spec = spec_of(doc)
    seats = holders(doc)
    everyone = [n for h in seats for n in h.names]
    evs = scores_events(doc)
    last = evs[-1]["data"] if evs else {}
    res = doc.get("result")
    raw = dict(res["scores"]) if res else dict(last.get("scores") or {})
    scores = {h.name: of_seat(raw, h) for h in seats if of_seat(raw, h) is not None}
    winners = {h.name for h in seats if set(h.names) & set(res["winners"])} if res else set()
    extra = [k for k, v in last.items() if k != "scores" and per_player(v, everyone)]
    order = sorted(seats, key=lambda h: (-(scores.get(h.name) or 0), h.seat))
    rows, rank, prev = [], 0, None
    for i, h in enumerate(order):
        p = h.name
        if scores.get(p) != prev:
            rank, prev = i + 1, scores.get(p)
        rows.append(
            {
                "rank": rank,
                "player": p,
                "score": scores.get(p, ""),
                "winner": p in winners,
                "extra": [_blank(of_seat(last[k], h)) for k in extra],
            }
        )
    word = spec.step.lower()
    if res:
        caption = "Final standings"
    elif last:
        caption = f"Standings after {word} {step_number(spec, last, len(evs))} (game in progress)"
    else:
        caption = "Standings (nothing scored yet)"
    return {"caption": caption, "columns": [_column(spec, k).format(step=word) for k in extra], "rows": rows}


def _column(spec: HistorySpec, key: str) -> str:
    declared = spec.series_for(key)
    return (declared.column if declared else "") or key.replace("_", " ").capitalize()


def when(iso: str | None) -> str:
    if not iso:
        return "-"
    return datetime.fromisoformat(iso).strftime("%Y-%m-%d %H:%M UTC")


def audience_note(doc: Doc) -> str:
    aud, over = doc["audience"], doc["game"]["over"]
    base = {
        "moderator": "Moderator's record: complete, every secret included.",
        "public": "Public record: what every player knew.",
    }.get(aud, f"{aud}'s record: what {aud} knew.")
    if over and aud != "moderator":
        base += " The game is over, so everything that was secret is revealed."
    return base
