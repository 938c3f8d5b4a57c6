"""Noninterference by generator: two worlds a player cannot tell apart, the same inputs from them, every byte.

For a player P at a state of a seeded bot game, `worlds` makes a second state that differs only in what P may not
know: cards permuted among the places hidden from P (another player's hand, the deck, a face-down pile, a Sixteen
Thirty player's victory counters and the counters never drawn), a few swaps at a time, kept only while P's view,
P's requests and who is awaited stay the same (every public fact and P's own are the same in both).  `inputs`
is what P may send there: HELP, STATUS, their legal orders, a bad order, a card name mistyped (of a card hidden
from them and of one of their own), a card they do not hold, an order of an earlier state (late), of another
player or of a later state (out of turn), a question, press, the moderator's commands, HISTORY, RESIGN, UNDO.  Both
worlds are fed each input through the pure pipeline the poll runs (`tests.test_secrecy_pairs.mails`: decide,
finish, compose), and every byte of every mail to P (and to each other player who may not tell the worlds
apart either) is compared: headers (Subject, Message-ID, References, X-Pbem-*), boundaries, text, HTML, the
pictures, and the number of mails.

Run every kind over more seeds and states with `PBEM_NONINTERFERENCE=full` (`python3 -m pytest
tests/test_noninterference.py`), or `python3 tests/noninterference.py [SEEDS]` to count the failing cases by channel.
"""

from __future__ import annotations

import random
import re
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pbem.app import views
from pbem.engine.base import Engine, clone
from tests.test_secrecy_pairs import FACE_DOWN, accepted_input, address, engine, mails, message, players, states

KINDS = ("habsburg", "italian-wars", "dynasties", "sixteen-thirty")
SWAPS = 3  # swaps of hidden cards tried per world


@dataclass(frozen=True)
class World:
    """`s` and `t` differ only in what `reader` may not know; `earlier` and `later`: states of the same game
    before and after `s` (for late orders and orders out of turn)."""

    s: dict[str, Any]
    t: dict[str, Any]
    reader: str
    moved: tuple[str, ...]  # the hidden cards that changed place
    earlier: dict[str, Any]
    later: dict[str, Any]


def _cells(state: dict[str, Any], reader: str, kind: str) -> list[tuple[str, str | None, int]]:
    """The places hidden from `reader`: (key, owner, index) of each card of another player's hand, the deck, a
    face-down pile, another player's victory counters and the counters never drawn."""
    out: list[tuple[str, str | None, int]] = []
    for q, hand in (state.get("hands") or {}).items():
        if q != reader and isinstance(hand, list):
            out += [("hands", q, i) for i in range(len(hand))]
    for pile in ("deck", *FACE_DOWN.get(kind, ())):
        if isinstance(state.get(pile), list):
            out += [(pile, None, i) for i in range(len(state[pile]))]
    return out


def _counter_cells(state: dict[str, Any], reader: str) -> list[tuple[str, str | None, int]]:
    out: list[tuple[str, str | None, int]] = []
    for q, mine in (state.get("counters") or {}).items():
        if q != reader:
            out += [("counters", q, i) for i in range(len(mine))]
    out += [("unused_counters", None, i) for i in range(len(state.get("unused_counters") or []))]
    return out


def _get(state: dict[str, Any], cell: tuple[str, str | None, int]) -> Any:
    key, owner, i = cell
    return (state[key][owner] if owner is not None else state[key])[i]


def _put(state: dict[str, Any], cell: tuple[str, str | None, int], value: Any) -> None:
    key, owner, i = cell
    (state[key][owner] if owner is not None else state[key])[i] = value


def _strings(x: Any) -> Iterator[str]:
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from _strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v)


def tied(state: dict[str, Any]) -> set[str]:
    """Cards named by what is on file beside the places (an answer, a ballot, a placement, an offer, a play list):
    moving such a card out of its owner's hand makes a state no game reaches (the engine then refuses its own
    answer on file), so it stays where it is."""
    return {c for k, v in state.items() if isinstance(v, dict) and k not in ("hands", "counters") for c in _strings(v)}


def seen(eng: Engine, state: dict[str, Any], reader: str) -> tuple[object, ...]:
    """What `reader` may know of `state`: their view, their requests, who is awaited."""
    return (
        eng.view(state, reader),
        [r for r in eng.requests(state) if r.player == reader],
        views.waiting(eng, state),
    )


def permuted(
    kind: str, state: dict[str, Any], reader: str, rng: random.Random, tries: int = SWAPS
) -> tuple[dict[str, Any], list[str]]:
    """`state` with up to `tries` swaps of hidden cards (each kept only if `reader` sees the same), and the cards
    moved."""
    eng = engine(kind)
    want = seen(eng, state, reader)
    t = state
    moved: list[str] = []
    fixed = tied(state)
    for cells in (_cells(state, reader, kind), _counter_cells(state, reader)):
        places: dict[tuple[str, str | None], list[tuple[str, str | None, int]]] = {}
        for c in cells:
            places.setdefault(c[:2], []).append(c)
        if len(places) < 2:
            continue
        for _ in range(tries):
            a, b = (rng.choice(places[k]) for k in rng.sample(sorted(places, key=str), 2))
            if _get(t, a) == _get(t, b) or {str(_get(t, a)), str(_get(t, b))} & fixed:
                continue  # the same card: nothing hidden changes
            u = clone(t)
            x, y = _get(u, a), _get(u, b)
            _put(u, a, y)
            _put(u, b, x)
            if seen(eng, u, reader) == want:
                t = u
                moved += [str(x), str(y)]
    return t, list(dict.fromkeys(moved))


def worlds(kind: str, seed: str, count: int) -> Iterator[World]:
    """At `count` states of a bot game of `kind`, for each player in turn, a second world (when one is found)."""
    rng = random.Random(f"noninterference-{kind}-{seed}")
    ps = players(kind)
    got = states(kind, seed, count)
    for i, s in enumerate(got):
        reader = ps[i % len(ps)]
        t, moved = permuted(kind, s, reader, rng)
        if moved:
            yield World(s, t, reader, tuple(moved), got[max(0, i - 1)], got[min(len(got) - 1, i + 1)])


def answered(kind: str, seed: str, count: int) -> Iterator[World]:
    """At `count` states of a bot game of `kind`: another player's secret answer on file, one legal order or
    another (a ballot, a tribute, a discard, a standing order), where the reader sees the same after either."""
    eng = engine(kind)
    ps = players(kind)
    got = states(kind, seed, count)
    for i, s in enumerate(got):
        for q in ps:
            orders = [r for r in eng.requests(s) if r.player == q and not r.answered and len(set(r.legal)) >= 2]
            if not orders:
                continue
            legal = list(dict.fromkeys(orders[0].legal))
            for one, other in dict.fromkeys([(legal[0], legal[-1]), (legal[1], legal[-2])]):
                a, b = eng.apply(s, q, [one]), eng.apply(s, q, [other])
                if one == other or not (a.accepted and b.accepted):
                    continue
                for reader in ps:
                    if reader != q and seen(eng, a.state, reader) == seen(eng, b.state, reader):
                        yield World(a.state, b.state, reader, (), got[max(0, i - 1)], got[min(len(got) - 1, i + 1)])
                        break


def _leaves(x: Any, owner: str | None, names: set[str]) -> Iterator[tuple[Any, Any, str, str | None]]:
    """(container, key, value, owner) of each string under `x`; the owner is the first player's name on the path."""
    items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else ()
    for k, v in items:
        who = owner or (k if isinstance(k, str) and k in names else None)
        if isinstance(v, str):
            yield x, k, v, who
        else:
            yield from _leaves(v, who, names)


def reanswered(kind: str, seed: str, count: int) -> Iterator[World]:
    """At `count` states of a bot game of `kind`: a card named in another player's answer on file (a Tribute, a
    discard, a placement, an offer, a play list) replaced by another card of their hand, where the reader sees the
    same (a Sixteen Thirty offer shows only its cards' types, so one card for another of its type)."""
    eng = engine(kind)
    ps = players(kind)
    for i, s in enumerate(got := states(kind, seed, count * 5)):
        reader = ps[i % len(ps)]
        hands = s.get("hands") or {}
        for key in [k for k, v in s.items() if isinstance(v, dict) and k not in ("hands", "counters")]:
            done = False
            for n, (_, _k, v, who) in enumerate(_leaves(s[key], None, set(ps))):
                if who is None or who == reader or v not in hands.get(who, ()):
                    continue
                for other in dict.fromkeys(hands[who]):
                    if other == v:
                        continue
                    t = clone(s)
                    box, at, _, _ = list(_leaves(t[key], None, set(ps)))[n]
                    box[at] = other
                    if seen(eng, t, reader) == seen(eng, s, reader):
                        yield World(s, t, reader, (v, other), got[max(0, i - 1)], got[min(len(got) - 1, i + 1)])
                        done = True
                        break
                if done:
                    break


def typos(name: str) -> list[str]:
    """`name` one typo off: a letter dropped, two swapped, one doubled (each where the name is long enough)."""
    word = max(name.split(), key=len)
    if len(word) < 5:
        return []
    i = len(word) // 2
    out = [
        word[:i] + word[i + 1 :],
        word[: i - 1] + word[i] + word[i - 1] + word[i + 1 :],
        word[:i] + word[i] + word[i:],
    ]
    return [name.replace(word, w, 1) for w in out if w.casefold() != word.casefold()]


_CARD = re.compile(r"[A-Z][a-z]+(?: [A-Z0-9&][a-z0-9]*)*")


def legal(eng: Engine, state: dict[str, Any], who: str) -> list[str]:
    out: list[str] = []
    for r in eng.requests(state):
        if r.player == who and r.legal:
            out += [r.legal[0], r.legal[len(r.legal) // 2], r.legal[-1]]
    return list(dict.fromkeys(out))


def inputs(kind: str, w: World) -> dict[str, list[str]]:
    """What `w.reader` sends, by channel."""
    eng = engine(kind)
    p = w.reader
    others = [q for q in players(kind) if q != p]
    mine = [str(c) for c in (w.s.get("hands") or {}).get(p, [])]
    hidden = list(w.moved[:4])
    words = eng.order_words
    own = legal(eng, w.s, p)
    out: dict[str, list[str]] = {
        "help-status": ["HELP", "STATUS", "HELP\nSTATUS"],
        "legal": own,
        "bad order": [f"{words[i % len(words)]} xyzzy plugh" for i in range(min(4, len(words)))],
        "hidden card named": [f"{ow} {x}" for ow in words[:6] for x in hidden[:2]],
        "hidden card mistyped": [f"{ow} {t}" for ow in words[:6] for x in hidden for t in typos(x)[:2]],
        "hidden card by a prefix": [f"{ow} {x[:4]}" for ow in words[:6] for x in hidden[:2]]
        + [f"{ow} {x.split()[0]}" for ow in words[:3] for x in hidden[:2] if " " in x],
        "own card mistyped": [f"{ow} {t}" for ow in words[:4] for x in mine[:2] for t in typos(x)[:1]],
        "legal with a hidden card": [],
        "question": [f"{ln}?" for ln in own[:2]] + [f"{words[0]} {x}?" for x in hidden[:2]],
        "late": [ln for ln in legal(eng, w.earlier, p) if ln not in own],
        "out of turn": [ln for q in others for ln in legal(eng, w.s, q)[:2]]
        + [ln for ln in legal(eng, w.later, p) if ln not in own],
        "press": [f"PRESS TO {others[0]}: {hidden[0] if hidden else 'hello'}?", "PRESS TO ALL: who holds what?"],
        "moderator command": [
            "EXTEND 2d",
            "UNDO TO 3 WHY misread",
            f"NEW CODE {others[0]}",
            f"RESEND {others[0]}",
            "PROCESS",
            "WAITING",
            f"SAY {others[0]} holds {hidden[0] if hidden else 'nothing'}",
            f"REPLACE {others[0]} WITH Dora <dora@example.test>",
        ],
        "history": ["HISTORY", "HISTORY 1"],
        "resign": ["RESIGN", "RESIGN 123456"],
        "sentence": [f"I play {x} please" for x in hidden[:2]] + [f"{x} from me" for x in hidden[:2]],
    }
    for ln in own[:3]:
        for m in mine:
            if m in ln:
                out["legal with a hidden card"] += [ln.replace(m, x, 1) for x in hidden[:2]]
                out["hidden card mistyped"] += [ln.replace(m, t, 1) for x in hidden[:2] for t in typos(x)[:1]]
                break
    return {k: list(dict.fromkeys(v)) for k, v in out.items() if v}


def same_after(kind: str, w: World, body: str, readers: tuple[str, ...]) -> tuple[str, ...]:
    """Of `readers`, those who may see nothing different after `body` is applied in either world."""
    eng = engine(kind)
    ia, ib = accepted_input(kind, w.s, message(w.reader, body)), accepted_input(kind, w.t, message(w.reader, body))
    if ia is None and ib is None:
        return readers
    if ia is None or ib is None:
        return readers  # applied in one world only: a leak whoever reads it
    sa, sb = ia.outcome.state, ib.outcome.state
    out = []
    for r in readers:
        ea = [e.text for e in ia.outcome.events if e.visible_to(r)]
        eb = [e.text for e in ib.outcome.events if e.visible_to(r)]
        if seen(eng, sa, r) == seen(eng, sb, r) and ea == eb:
            out.append(r)
    return tuple(out)


def differs(kind: str, w: World, body: str, resolve: str) -> str:
    """ "" when every mail `body` from `w.reader` gives the reader (and each other player who sees the same in
    both worlds) is byte-identical in both worlds, in the same number; else what differs first."""
    msg = message(w.reader, body)
    a, b = mails(kind, w.s, msg, resolve), mails(kind, w.t, msg, resolve)
    if a["outcome"] != b["outcome"]:
        return f"outcome {a['outcome']} / {b['outcome']}"
    eng = engine(kind)
    readers = tuple(r for r in players(kind) if r == w.reader or seen(eng, w.s, r) == seen(eng, w.t, r))
    for r in same_after(kind, w, body, readers) if resolve == "asap" else readers:
        x, y = a.get(address(r), []), b.get(address(r), [])
        if len(x) != len(y):
            return f"{r}: {len(x)} mails / {len(y)}"
        for m, n in zip(x, y):
            if m != n:
                i = next((i for i, (c, d) in enumerate(zip(m, n)) if c != d), min(len(m), len(n)))
                return f"{r}: byte {i}: {m[max(0, i - 200) : i + 120]!r} / {n[max(0, i - 200) : i + 120]!r}"
    return ""


def run(
    kinds: tuple[str, ...], seeds: list[str], count: int, resolves: tuple[str, ...] = ("asap", "deadline")
) -> Counter[tuple[str, str]]:
    """Cases failing by (kind, channel); prints each failing case's first difference."""
    failed: Counter[tuple[str, str]] = Counter()
    cases: Counter[str] = Counter()
    for kind in kinds:
        for seed in seeds:
            for w in [*worlds(kind, seed, count), *answered(kind, seed, count), *reanswered(kind, seed, count)]:
                for channel, bodies in inputs(kind, w).items():
                    for body in bodies:
                        for resolve in resolves:
                            cases[kind] += 1
                            why = differs(kind, w, body, resolve)
                            if why:
                                failed[(kind, channel)] += 1
                                print(f"LEAK {kind} {seed} {channel} {resolve} {w.reader} {body!r}: {why[:900]}")
    print("cases", dict(cases))
    return failed


if __name__ == "__main__":
    seeds = sys.argv[1].split(",") if len(sys.argv) > 1 else ["n1"]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    kinds = tuple(sys.argv[3].split(",")) if len(sys.argv) > 3 else KINDS
    print(run(kinds, seeds, count))
