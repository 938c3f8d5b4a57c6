#!/usr/bin/env python3
"""Recompute every random value of a finished pbem game from its revealed seed, without pbem.

Usage:  python3 audit_randomness.py GAME.json

GAME.json is the JSON export of a finished game (`pbem export NAME --format json`).
Only the Python standard library is used, so anyone can read and run this file.

What it checks (docs/export-format.md, "Randomness"):

1. SHA-256 of the seed equals the commitment every player received at the start.
   A game with a join step (its export has `salts`, in seat order) is dealt from
   the dealing seed: the 64 hex digits of SHA-256 over the seed's ASCII bytes,
   then for each seat in order the salt's length in UTF-8 bytes (4 bytes,
   big-endian) and the salt's UTF-8 bytes; the generator below runs on it.  A seat
   whose JOIN was DKIM-signed by the player's provider (the salts event's data
   `signed`) counts with the text "DKIM <hex>" in place of its salt.
2. Every draw the game made is listed, in order, in the `rng` field of the event
   that reports it, and the draws use the generator's blocks 0, 1, 2, ... with no
   gap and no block used twice: nobody can have skipped or re-rolled a value.
3. Each draw's value is what the generator gives from the seed:
   block i = SHA-256(seed ":" i) read as a 256-bit big-endian integer;
   below(n) takes blocks until one is under the largest multiple of n that fits in
   256 bits and returns it modulo n; a die is below(sides) + 1; a coin below(2);
   a shuffle is Fisher-Yates over the listed `before` order: for i from the last
   index down to 1, swap item i with item below(i + 1).
4. Where the event states the result in a field of its own (a deck order, a
   seating, a coin), that field equals the recomputed value.
5. The trail is complete: every event of a kind that draws (a shuffle, a die
   roll, a stolen card...; `DRAWING` below) carries its draws, and an export
   without a hash chain or with events marked as recorded before it (whose
   trails could be missing) is refused.
6. What was shuffled is what the rules say: the set-up's deck is the rulebook's
   deck in its printed order (`RULES_DECKS`: the SHA-256 of its JSON list), a
   reshuffle holds only cards of that deck, and a seating shuffles the players
   in seat order.  So the moderator cannot choose the deck by listing it in the
   order that a known seed shuffles into the deal he wants.
7. Each draw is used as the events say (`USES`, every game).  House of
   Habsburg: the cards dealt and drawn are the ones at those positions of the
   recomputed shuffle (the top card is the last; the deal goes round the seats
   three times, one card each; a `draw` event takes its `n` cards; a player's
   `dealt` and `drew` events, where the export shows them, must name exactly
   those cards); a stolen card is the one at the drawn position of the victim's
   hand as the events built it (dealt and drawn cards appended, played, melded
   and discarded cards removed, the first of equal names).
   Italian Wars: the sides' coin makes the player in its seat (0 first) French;
   cards come off the deck order top first, a public `draw` or `replace` takes
   its `count` and the player's `draw-private` / `replace-private` names them;
   each `reveal` shows the hand those cards make, less the `discard-private`;
   each negation coin names the player in its seat as the first to act.
   Dynasties: the Noble Deck is drawn top first; each `draw` names the next
   cards and each `enquire` the next flipped card; gambit 1's First Player drawn
   at random is the tied seat (highest Tribute, seat order) at the drawn index.
   Sixteen Thirty Something: the counter bag gives each player, in seat order,
   the next `each` counters (and the rest are unused), and the end reveals
   those; the deck's top card is the last; each private `deal` holds the next
   thirteen and each `drew` the cards its public `draw` took (as sets: hands
   are shown sorted); the
   first-player dice are the contenders' in seat order, ties rolling again, and
   the first player the one left; a war's dice are the attacker's two, then the
   defender's, its totals add the modifiers to the dice's difference and its
   winner has the higher total; a random end ends the game exactly on the
   rules' number or less after turns 7, 8 and 9, and no turn follows it.
   In every game a reshuffle's new order goes after the cards the draw that
   needed it took from the old deck.  Checking stops at an `undo` event (it
   rewinds the deck) or a seat replacement, and the summary says so; a public
   draw whose cards the export never names is followed by its count, and the
   summary says how many there were.

It prints "OK" and a one-line summary, or "MISMATCH" naming the first event that
differs, and exits 0 or 1.
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

#: Event fields that state a draw's result, checked against the recomputed value.
RESULT_FIELDS = {"shuffle": ("deck", "seats", "players"), "coin": ("coin",), "die": ("roll",)}
#: Per game kind, the events that always draw: each must carry its `rng` trail.
DRAWING = {
    "habsburg": {"seating", "shuffle", "stolen"},
    "italian-wars": {"sides", "deck-order", "coin"},
    "sixteen-thirty": {"shuffle", "first-roll", "war", "random-end"},  # "counters": only the draw itself
    "dynasties": {"seating", "shuffle"},
}
#: Per game kind and set-up event, SHA-256 of the compact JSON list (UTF-8, ", " and ": " without spaces) of what
#: the rules shuffle at the set-up, in the rulebook's order (the default options).
RULES_DECKS = {
    "habsburg": {"shuffle": "50d58a14787f2f2543db741c805d283b1c7e109f5bad5ec3138bbd50ef517e92"},
    "italian-wars": {"deck-order": "9b71010dbdd8dc705ff44a384c5115def7e963e49aa814caf6afac3e66fdb88f"},
    "sixteen-thirty": {
        "shuffle": "a6455778d3f7192a36954d7489181d3cf30bf97ca643b5db38cda6c89197b953",
        "counters": "54e8c6d013dfe20392ea086e192e9200066594cdb5304bfe240f308ec612bf1b",
    },
    "dynasties": {"shuffle": "3d68f483058af42f5b9a9f6759689e0396fcb8e09c4ff366cee244fb31621e8c"},
}
SEATING = {"seating"}


def _digest(items: list[Any]) -> str:
    return hashlib.sha256(json.dumps(items, ensure_ascii=False, separators=(",", ":")).encode("utf-8")).hexdigest()


def _within(items: list[Any], deck: list[Any]) -> bool:
    """Every item of `items` is in `deck`, no more often than there."""
    left: dict[str, int] = {}
    for card in deck:
        left[json.dumps(card)] = left.get(json.dumps(card), 0) + 1
    for card in items:
        key = json.dumps(card)
        if left.get(key, 0) == 0:
            return False
        left[key] -= 1
    return True


def rules_problem(doc: dict[str, Any], ev: dict[str, Any], rec: dict[str, Any], decks: dict[str, list[Any]]) -> str:
    """Why what this shuffle shuffled is not what the rules say ("" if it is)."""
    kind = doc["game"]["kind"]
    before = rec.get("before")
    if not isinstance(before, list):
        return "its shuffle does not list what it shuffled"
    if ev["kind"] in SEATING:
        players = [p["name"] for p in doc.get("players", [])]
        return "" if before == players else f"it seats {before!r}, not the players in seat order {players!r}"
    want = RULES_DECKS.get(kind, {}).get(ev["kind"])
    if want is None:
        return ""
    if ev["kind"] not in decks:
        if doc["game"].get("options"):
            decks[ev["kind"]] = before  # other options, another deck: the auditor knows the default's only
            return ""
        if _digest(before) != want:
            return "it shuffles a deck that is not the rulebook's (other cards, or not in the printed order)"
        decks[ev["kind"]] = before
        return ""
    return "" if _within(before, decks[ev["kind"]]) else "it reshuffles cards that are not in the game's deck"


class Generator:
    """SHA-256 in counter mode, as pbem's engines use it."""

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.n = 0

    def block(self) -> int:
        digest = hashlib.sha256(f"{self.seed}:{self.n}".encode("ascii")).digest()
        self.n += 1
        return int.from_bytes(digest, "big")

    def below(self, bound: int) -> int:
        limit = (1 << 256) - ((1 << 256) % bound)
        while True:
            x = self.block()
            if x < limit:
                return x % bound

    def shuffle(self, items: list[Any]) -> list[Any]:
        items = list(items)
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


def recompute(gen: Generator, rec: dict[str, Any]) -> Any:
    op = rec.get("op")
    if op == "shuffle":
        return gen.shuffle(rec["before"])
    if op == "below":
        return gen.below(rec["bound"])
    if op == "die":
        return gen.below(rec["sides"]) + 1
    if op == "coin":
        return gen.below(2)
    raise ValueError(f"unknown draw {op!r}")


def deal_seed(seed: str, salts: list[str], signed: list[str] | None = None) -> str:
    """The seed a game with a join step is dealt from (see point 1 above): a seat whose JOIN its provider
    signed counts with "DKIM <hex>" in place of its salt (`signed`, from the salts event's data)."""
    h = hashlib.sha256(seed.encode("ascii"))
    for salt, sig in zip(salts, signed or [""] * len(salts)):
        raw = (f"DKIM {sig}" if sig else salt).encode("utf-8")
        h.update(len(raw).to_bytes(4, "big") + raw)
    return h.hexdigest()


def audit(doc: dict[str, Any]) -> tuple[bool, str]:
    """(True, summary) if every random value is reproduced from the seed; else (False, the first mismatch)."""
    seed, kind = doc.get("seed"), doc.get("game", {}).get("kind")
    refusal = _refusal(doc, seed, kind)
    if refusal:
        return False, refusal
    assert isinstance(seed, str)
    if doc.get("salts") is not None:
        dealt: dict[str, Any] = next((e for e in doc.get("events", []) if e.get("kind") == "salts"), {})
        seed = deal_seed(seed, doc["salts"], dealt.get("data", {}).get("signed"))
    gen = Generator(seed)
    draws = 0
    decks: dict[str, list[Any]] = {}
    for ev in sorted(doc.get("events", []), key=lambda e: e["seq"]):
        where = f"event {ev['seq']} ({ev['kind']}: {ev['text'][:60]!r})"
        if ev["kind"] in DRAWING[kind] and not ev.get("data", {}).get("rng"):
            return False, f"{where}: a {ev['kind']} event always draws, but its draw trail is missing"
        for rec in ev.get("data", {}).get("rng", []):
            why = _draw_problem(doc, ev, rec, decks, gen)
            if why:
                return False, f"{where}: {why}"
            draws += 1
    misuse, used = USES[kind](doc)
    if misuse:
        return False, misuse
    return (
        True,
        f"{draws} random draws ({gen.n} generator blocks) reproduced from the seed; each draw's use checked: {used}",
    )


def _refusal(doc: dict[str, Any], seed: Any, kind: Any) -> str:
    """Why this export cannot be audited at all ("" when it can)."""
    if not seed:
        return "the seed is not revealed in this export (is the game over?)"
    if kind not in DRAWING:
        return f"this auditor does not know the rules of {kind!r}"
    ch = doc.get("chain")
    if not isinstance(ch, dict) or ch.get("legacy_events") or not all("hash" in e for e in doc.get("events", [])):
        return "the export has no hash chain, or marks events as recorded before it: draw trails could be missing"
    if hashlib.sha256(seed.encode("ascii")).hexdigest() != doc.get("seed_commitment"):
        return "SHA-256 of the seed does not equal the commitment"
    return ""


def _draw_problem(
    doc: dict[str, Any], ev: dict[str, Any], rec: dict[str, Any], decks: dict[str, list[Any]], gen: Any
) -> str:
    """What is wrong with one draw record of event `ev` ("" if the seed reproduces it and its use)."""
    if rec.get("op") == "shuffle":
        why = rules_problem(doc, ev, rec, decks)
        if why:
            return why
    if rec.get("at") != gen.n:
        return f"its draw starts at block {rec.get('at')}, but the previous draw ended at " + (
            f"block {gen.n} (a draw is missing, hidden or repeated)"
        )
    try:
        value = recompute(gen, rec)
    except (KeyError, TypeError, ValueError) as exc:
        return f"unreadable draw record {rec!r} ({exc})"
    if value != rec.get("value"):
        return f"the seed gives {value!r}, the export says {rec.get('value')!r}"
    for name in RESULT_FIELDS.get(rec["op"], ()):
        if name in ev["data"] and len(ev["data"]["rng"]) == 1 and ev["data"][name] != value:
            return f"its {name!r} is {ev['data'][name]!r}, the seed gives {value!r}"
    return ""


#: House of Habsburg: the events that take cards out of their player's hand, and the fields naming them.
HABSBURG_PLAYS = {"claim": ("card",), "person": ("card",), "disaster": ("card",), "succession": ("card",)}


def _habsburg_uses(doc: dict[str, Any]) -> str:
    """Every card dealt or drawn is the one at its position of the recomputed deck, and every stolen card the one
    at the drawn position of the victim's hand as the events built it ("" if so)."""
    deck: list[Any] | None = None
    seats: list[str] = []
    dealt: dict[str, list[Any]] = {}
    drawn: list[tuple[str, list[Any]]] = []  # (player, cards) of each `draw`, matched by the next `drew` of theirs
    hands: dict[str, list[Any]] = {}
    unknown: set[str] = set()  # players whose hand the export does not show whole (a draw without its drew)
    for ev in sorted(doc.get("events", []), key=lambda e: e["seq"]):
        kind, data = ev["kind"], ev.get("data", {})
        where = f"event {ev['seq']} ({kind}: {ev['text'][:60]!r})"
        if _stops(ev):
            return ""  # an undo rewinds the deck; a replacement renames a seat: checked up to there
        why = _habsburg_hand(kind, data, hands, unknown, where)
        if why:
            return why
        if kind == "seating":
            seats = list(data.get("seats", []))
        elif kind == "shuffle" and deck is None:
            deck = list(data["rng"][0]["value"])
        elif kind == "deal" and deck is not None and seats:
            rounds = (len(deck) - int(data.get("deck", len(deck)))) // len(seats)
            dealt = {p: [] for p in seats}
            for _ in range(rounds):
                for p in seats:
                    dealt[p].append(deck.pop())
            hands.update({p: list(cards) for p, cards in dealt.items()})
        elif kind == "dealt" and data.get("player") in dealt:
            if data.get("cards") != dealt[data["player"]]:
                return f"{where}: the recomputed deck deals {data['player']} {dealt[data['player']]!r}, not {data.get('cards')!r}"
        elif kind == "draw" and deck is not None:
            n = int(data.get("n", 0))
            if n > len(deck):
                return f"{where}: it draws {n} cards from a deck of {len(deck)}"
            got = [deck.pop() for _ in range(n)]
            drawn.append((str(data.get("player")), got))
            hands.setdefault(str(data.get("player")), []).extend(got)
        elif kind == "drew":
            why = _habsburg_drew(data, drawn, where)
            if why:
                return why
    return ""


def _habsburg_drew(data: dict[str, Any], drawn: list[tuple[str, list[Any]]], where: str) -> str:
    """A player's `drew` names the cards of their last `draw` from the recomputed deck ("" if so)."""
    mine = next((i for i, (p, _) in enumerate(drawn) if p == data.get("player")), None)
    if mine is None:
        return f"{where}: {data.get('player')} is said to draw, but no draw from the deck precedes it"
    _, cards = drawn.pop(mine)
    if data.get("cards") != cards:
        return f"{where}: the recomputed deck gives {data.get('player')} {cards!r}, not {data.get('cards')!r}"
    return ""


def _habsburg_hand(kind: str, data: dict[str, Any], hands: dict[str, list[Any]], unknown: set[str], where: str) -> str:
    """Follow one event's effect on the hands; for a stolen card, check it ("" if it holds)."""
    player = str(data.get("player"))
    hand = hands.get(player)
    if kind == "stolen":
        victim, rec = str(data.get("victim")), (data.get("rng") or [{}])[0]
        theirs = hands.get(victim)
        if theirs is None or victim in unknown or player in unknown:
            unknown.add(player)
            return ""
        if rec.get("bound") != len(theirs):
            return f"{where}: the draw picks among {rec.get('bound')} cards, but {victim}'s hand holds {len(theirs)}"
        if theirs[rec["value"]] != data.get("stolen"):
            return f"{where}: the drawn position {rec['value']} of {victim}'s hand holds {theirs[rec['value']]!r}, not {data.get('stolen')!r}"
        hands.setdefault(player, []).append(theirs.pop(rec["value"]))
        return ""
    if hand is None:
        return ""
    gone: list[Any] = []
    if kind in HABSBURG_PLAYS:
        gone = [data.get(f) for f in HABSBURG_PLAYS[kind]]
    elif kind == "meld":
        gone = [data.get("person"), data.get("claim")] + ([] if data.get("from_discard") else [data.get("holding")])
    elif kind == "discard":
        gone = list(data.get("cards", []))
    for card in gone:
        if card in hand:
            hand.remove(card)
        else:
            unknown.add(player)  # the export does not show this hand whole: its stolen cards are not checked
    return ""


def _stops(ev: dict[str, Any]) -> bool:
    """An undo (it rewinds the deck) or a seat replacement (it renames a seat): uses are checked up to it."""
    return ev["kind"] == "undo" or (ev["kind"] == "moderator" and "replace" in ev["text"].lower())


class Misuse(Exception):
    """A draw is used otherwise than its recomputed value gives (the message says how; the caller names the event)."""


def _value(ev: dict[str, Any]) -> Any:
    """The recomputed value of the event's first draw (checked against the seed before any use is followed)."""
    return (ev.get("data", {}).get("rng") or [{}])[0].get("value")


def _seen_by(ev: dict[str, Any]) -> str:
    """The one player a private event went to ("" for a public or moderator-only event)."""
    vis = ev.get("visibility")
    return str(vis[0]) if isinstance(vis, list) and len(vis) == 1 else ""


class Pile:
    """The cards still to come off a recomputed deck, in the order they are drawn.  A reshuffle happens the moment
    a draw finds the deck empty, so its new order goes after what that draw took from the old one."""

    def __init__(self) -> None:
        self.order: list[Any] | None = None

    def refill(self, cards: list[Any]) -> None:
        self.order = (self.order or []) + list(cards)

    def take(self, n: int) -> list[Any]:
        if self.order is None:
            raise Misuse("it draws from the deck before any shuffle of it")
        if n > len(self.order):
            raise Misuse(f"it draws {n} cards from a deck of {len(self.order)}")
        got, self.order = self.order[:n], self.order[n:]
        return got


def _follow(doc: dict[str, Any], handlers: dict[str, Any], st: dict[str, Any]) -> str:
    """Run each event through its kind's handler, in order; the first Misuse, naming its event ("" if none).
    Stops at an undo (it rewinds the deck) or a seat replacement (it renames a seat), as Habsburg's check does."""
    for ev in sorted(doc.get("events", []), key=lambda e: e["seq"]):
        if _stops(ev):
            st["stopped"] = ev["seq"]
            return ""
        handler = handlers.get(ev["kind"])
        if handler is None:
            continue
        where = f"event {ev['seq']} ({ev['kind']}: {ev['text'][:60]!r})"
        try:
            handler(st, ev.get("data", {}), ev)
        except Misuse as exc:
            return f"{where}: {exc}"
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
            return f"{where}: its data do not say what the draw was used for ({type(exc).__name__}: {exc})"
    return ""


def _take_for(st: dict[str, Any], player: str, n: int) -> None:
    """A public draw of `n` cards by `player`: take them off the pile, to match the private event that names them."""
    st["pending"].setdefault(player, []).append(st["pile"].take(n))


def _named(st: dict[str, Any], player: str, cards: Any, same: Any = list) -> None:
    """A private event names the cards of `player`'s earliest unmatched public draw (compared by `same`)."""
    queue = st["pending"].get(player)
    if not queue:
        raise Misuse(f"{player} is said to draw, but no draw from the deck precedes it")
    got = queue.pop(0)
    if same(cards) != same(got):
        raise Misuse(f"the recomputed deck gives {player} {same(got)!r}, not {cards!r}")


def _unmatched(st: dict[str, Any]) -> int:
    """How many public draws the export never names the cards of (another player's export hides them)."""
    return sum(len(q) for q in st["pending"].values())


# Italian Wars: the coin of the sides, the deck order (top first) and its reshuffles, draws and replacements, and
# the coin of who acts first in each negation step.


def _iw_sides(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    if not data.get("rng"):
        return  # sides fixed by option: nothing was drawn
    players = st["players"]
    french = players[_value(ev)]
    want = {p: "French" if p == french else "Spanish" for p in players}
    if data.get("sides") != want:
        raise Misuse(f"the coin {_value(ev)} makes {french} French, but it says {data.get('sides')!r}")


def _iw_coin(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    first = st["players"][_value(ev)]
    if data.get("first") != first:
        raise Misuse(f"the coin {_value(ev)} makes {first} act first, not {data.get('first')!r}")


def _iw_drew(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    player = str(data.get("player"))
    _named(st, player, data.get("cards"))
    st["hands"].setdefault(player, []).extend(data["cards"])


def _iw_discard(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    hand = st["hands"].setdefault(str(data.get("player")), [])
    for card in data.get("cards", []):
        if card in hand:
            hand.remove(card)
        elif _unmatched(st) == 0:  # every draw's cards are known, so this one was never drawn
            raise Misuse(f"{data.get('player')} discards {card!r}, which the recomputed deck did not give them")


def _iw_reveal(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    """IW-R6: the whole hand is revealed, and the next hand starts empty."""
    player = str(data.get("player"))
    hand = st["hands"].pop(player, [])
    if _unmatched(st) == 0 and sorted(hand) != _sorted(data.get("cards")):
        raise Misuse(
            f"the recomputed deck left {player} {sorted(hand)!r} (drawn less discarded), not {data.get('cards')!r}"
        )


ITALIAN_WARS_USES = {
    "sides": _iw_sides,
    "deck-order": lambda st, data, ev: st["pile"].refill(_value(ev)),
    "draw": lambda st, data, ev: _take_for(st, str(data.get("player")), int(data.get("count", 0))),
    "replace": lambda st, data, ev: _take_for(st, str(data.get("player")), int(data.get("count", 0))),
    "draw-private": _iw_drew,
    "replace-private": _iw_drew,
    "discard-private": _iw_discard,
    "reveal": _iw_reveal,
    "coin": _iw_coin,
}


def _italian_wars_uses(doc: dict[str, Any]) -> tuple[str, str]:
    st: dict[str, Any] = {"players": [p["name"] for p in doc.get("players", [])], "pile": Pile(), "pending": {}}
    st["hands"] = {}
    problem = _follow(doc, ITALIAN_WARS_USES, st)
    return problem, _note(st, "the sides, every card drawn, replaced and revealed and every first actor")


# Dynasties: the seating, the Noble Deck (top first) and its Graveyard reshuffles, every draw and every card
# flipped when enquiring prospects, and gambit 1's First Player drawn among the tied Tributes.


def _dy_card_value(card: Any) -> int:
    word = str(card).rsplit(" ", 1)[-1]
    special = {"King": 13, "Coronation": 1}
    if word in special:
        return special[word]
    if not word.isdigit():
        raise Misuse(f"{card!r} is not a Noble")
    return int(word)


def _dy_draw(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    cards = data.get("cards")
    got = st["pile"].take(len(cards) if isinstance(cards, list) else 0)
    if cards != got:
        raise Misuse(f"the recomputed deck gives {data.get('player')} {got!r}, not {cards!r}")


def _dy_enquire(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    got = st["pile"].take(1)
    if [data.get("card")] != got:
        raise Misuse(f"the top card of the recomputed deck is {got[0]!r}, not {data.get('card')!r}")


def _dy_first(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    if not data.get("rng"):
        return  # chosen by the unique-value rule or by seat order: nothing was drawn
    trib, high, seats = st.get("tributes", {}), st.get("high"), st.get("seats", [])
    tied = [p for p in seats if p in trib and _dy_card_value(trib[p]) == high] or list(seats)
    rec = data["rng"][0]
    if rec.get("bound") != len(tied):
        raise Misuse(f"the draw picks among {rec.get('bound')}, but {len(tied)} players tie: {tied!r}")
    if data.get("player") != tied[rec["value"]]:
        raise Misuse(
            f"the drawn position {rec['value']} of {tied!r} is {tied[rec['value']]}, not {data.get('player')!r}"
        )


DYNASTIES_USES = {
    "seating": lambda st, data, ev: st.update(seats=list(_value(ev))),
    "shuffle": lambda st, data, ev: st["pile"].refill(_value(ev)),
    "draw": _dy_draw,
    "enquire": _dy_enquire,
    "tributes": lambda st, data, ev: st.update(tributes=data.get("tributes", {}), high=data.get("high")),
    "first-player": _dy_first,
}


def _dynasties_uses(doc: dict[str, Any]) -> tuple[str, str]:
    st: dict[str, Any] = {"pile": Pile(), "pending": {}}
    problem = _follow(doc, DYNASTIES_USES, st)
    return problem, _note(st, "every Noble drawn and flipped and a First Player drawn at random")


# Sixteen Thirty Something: the player deck (top last) and its reshuffles, the counter bag, the deal of thirteen,
# every draw, the first-player rolls (ties roll again), the wars' dice, totals and winner, and the random end.

#: ST-R14: after these turns a die ends the game on this number or less.
RANDOM_END_RULES = {7: 1, 8: 2, 9: 3}
DEAL = 13


def _st_counters(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    if not data.get("rng"):  # a player's own counters, told before the moderator's record of the draw
        st["told"][_seen_by(ev)] = (ev["seq"], data.get("counters", []))
        return
    bag, each = list(_value(ev)), int(data.get("each", 0))
    for i, p in enumerate(st["players"]):
        st["counters"][p] = bag[i * each : (i + 1) * each]
    for p, (seq, told) in st["told"].items():
        if sorted(st["counters"].get(p, [])) != sorted(told):
            raise Misuse(
                f"the recomputed bag gives {p} {sorted(st['counters'].get(p, []))!r}, but event {seq} told them {told!r}"
            )
    for p, want in st["counters"].items():
        if sorted(want) != sorted(data.get("counters", {}).get(p, [])):
            raise Misuse(f"the recomputed bag gives {p} {sorted(want)!r}, not {data.get('counters', {}).get(p)!r}")
    st["unused"] = bag[len(st["players"]) * each :]
    if sorted(st["unused"]) != sorted(data.get("unused", [])):
        raise Misuse(f"the recomputed bag leaves {sorted(st['unused'])!r} unused, not {data.get('unused')!r}")


def _st_revealed(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    """The end reveals (and scores) the counters each player drew, and the unused ones: the bag's, as drawn."""
    player = data.get("player")
    drawn = st["counters"].get(player) if "counters" in data else st.get("unused")
    shown = data.get("counters", data.get("unused", []))
    if drawn is not None and sorted(drawn) != sorted(shown):
        whose = player if "counters" in data else "the unused counters"
        raise Misuse(f"the recomputed bag gives {whose} {sorted(drawn)!r}, not {shown!r}")


def _st_deal(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    if "cards" in data:  # a player's own deal; the public one only says it happened
        _take_for(st, _seen_by(ev), DEAL)
        _named(st, _seen_by(ev), data.get("cards"), same=_sorted)


def _sorted(cards: Any) -> list[str]:
    return sorted(map(str, cards)) if isinstance(cards, list) else []


def _st_first_roll(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    contenders = st.get("contenders") or list(st["players"])
    rolls, dice = data.get("rolls", {}), [r.get("value") for r in data.get("rng", [])]
    if sorted(rolls) != sorted(contenders) or len(dice) != len(contenders):
        raise Misuse(f"it rolls for {sorted(rolls)!r}, but the contenders are {contenders!r}")
    for p, die in zip(contenders, dice):
        if rolls[p] != die:
            raise Misuse(f"{p}'s die is {die}, not {rolls[p]!r}")
    st["contenders"] = [p for p in contenders if rolls[p] == max(dice)]


def _st_first_player(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    if st.get("contenders") != [data.get("player")]:
        raise Misuse(f"the rolls leave {st.get('contenders')!r} highest, not {data.get('player')!r} alone")


def _st_war(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    dice = [r.get("value") for r in data.get("rng", [])]
    sides, totals = data.get("sides", {}), []
    for k, country in enumerate((data.get("attacker"), data.get("defender"))):
        side = sides.get(country, {})
        mine = dice[2 * k : 2 * k + 2]
        if side.get("dice") != mine or len(mine) != 2:
            raise Misuse(f"{country} rolls {mine!r}, not {side.get('dice')!r}")
        total = sum(v for _, v in side.get("mods", [])) + abs(mine[0] - mine[1])
        if side.get("total") != total:
            raise Misuse(f"{country}'s total is {total}, not {side.get('total')!r}")
        totals.append((total, country))
    (a, att), (d, dfn) = totals
    winner, loser = (None, None) if a == d else ((att, dfn) if a > d else (dfn, att))
    if (data.get("winner"), data.get("loser")) != (winner, loser):
        raise Misuse(f"the dice make {winner} win and {loser} lose, not {data.get('winner')!r}, {data.get('loser')!r}")


def _st_random_end(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    roll, ends_on = _value(ev), RANDOM_END_RULES.get(data.get("turn", 0))
    if ends_on is None:
        raise Misuse(f"the rules roll for a random end after turns 7, 8 and 9 only, not {data.get('turn')!r}")
    if data.get("ends_on") != ends_on:
        raise Misuse(f"the rules end the game after turn {data.get('turn')} on {ends_on}, not {data.get('ends_on')!r}")
    if data.get("ends") is not (roll <= ends_on):
        raise Misuse(
            f"a roll of {roll} {'ends' if roll <= ends_on else 'does not end'} the game, but it says otherwise"
        )
    st["ended"] = roll <= ends_on


def _st_turn(st: dict[str, Any], data: dict[str, Any], ev: dict[str, Any]) -> None:
    if st.get("ended"):
        raise Misuse("the random end roll ended the game, but play goes on")


SIXTEEN_THIRTY_USES = {
    "shuffle": lambda st, data, ev: st["pile"].refill(list(reversed(_value(ev)))),
    "counters": _st_counters,
    "deal": _st_deal,
    "draw": lambda st, data, ev: _take_for(st, str(data.get("player")), int(data.get("count", 0))),
    "drew": lambda st, data, ev: _named(st, _seen_by(ev), data.get("cards"), same=_sorted),
    "first-roll": _st_first_roll,
    "first-player": _st_first_player,
    "war": _st_war,
    "reveal-counters": _st_revealed,
    "reveal-unused": _st_revealed,
    "random-end": _st_random_end,
    "player-turn": _st_turn,
}


def _sixteen_thirty_uses(doc: dict[str, Any]) -> tuple[str, str]:
    st: dict[str, Any] = {"players": [p["name"] for p in doc.get("players", [])], "pile": Pile(), "pending": {}}
    st["counters"], st["told"] = {}, {}
    problem = _follow(doc, SIXTEEN_THIRTY_USES, st)
    return problem, _note(
        st,
        "the counters (drawn and revealed), the deal, every card drawn, the first player, every war and the random end",
    )


def _note(st: dict[str, Any], what: str) -> str:
    """The summary's account of the uses checked, and of what the export did not let the auditor check."""
    note = f"{what} are the ones the recomputed values give"
    if st.get("stopped"):
        note += f" (checked up to event {st['stopped']}: an undo or a seat replacement)"
    hidden = _unmatched(st)
    if hidden:
        note += f"; {hidden} draws whose cards this export does not show were followed by their count only"
    return note


def _habsburg(doc: dict[str, Any]) -> tuple[str, str]:
    note = "every card dealt, drawn and stolen is the one the recomputed deck gives"
    stop = next((e["seq"] for e in sorted(doc.get("events", []), key=lambda e: e["seq"]) if _stops(e)), None)
    if stop is not None:
        note += f" (checked up to event {stop}: an undo or a seat replacement)"
    return _habsburg_uses(doc), note


#: Per game kind: a check that each draw is used as the events say: (the first problem or "", what was checked).
USES = {
    "habsburg": _habsburg,
    "italian-wars": _italian_wars_uses,
    "dynasties": _dynasties_uses,
    "sixteen-thirty": _sixteen_thirty_uses,
}


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        doc = json.load(f, object_pairs_hook=_unique)
    ok, message = audit(doc)
    print(("OK: " if ok else "MISMATCH: ") + message)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
