"""The join step before the deal (issue 13, "Nobody picks the deal"): its rules, shared by the moderator,
the replay and `pbem verify`.

A game created with a join step is not dealt at once.  Its state is a small
join state (`open_state`) until every player has answered ``JOIN`` (with an
optional ``SALT <any text>``) or the moderator ran ``pbem game start``.  Then
the engine deals from the *dealing seed*

    SHA-256( seed as ASCII bytes
             || for each seat in seat order: len(salt) as 4 bytes big-endian || salt as UTF-8 bytes )

written as 64 lowercase hex digits (`deal_seed`); a player who never joined
counts with the empty salt.

A salt alone can be ground: a moderator who drops a player's JOIN and forges
one knows the seed and the other salts, and tries salts until the deal suits
him.  So a JOIN that the player's provider signed (DKIM, issue 25) counts in
the hash not with its salt but with the text ``DKIM <hex>``, hex being SHA-256
of the signature's b= value (pbem adds that line to the JOIN input at arrival,
`pbem.app.vouch`).  The signature covers the player's mail, salt included; the
moderator cannot make it, and it is fixed once the mail is sent, so he has
nothing to grind.  `pbem verify` re-checks each one against the evidence kept
with its mail (`pbem.trust.vouched`).  A game without a signed JOIN deals
exactly as before; a seat whose JOIN was not signed, had no salt or never came
is named in the report listing the salts and in the final one (`weakness`) and by `pbem verify`.  So nobody, the moderator included, picks the deal:
the moderator committed to the seed before any salt was known, and every
player's salt changes it.

`JoinStep` shows the join state through the engine contract (who is asked,
the view, the handbook), so the pipeline, the reminders, the reports and the
export treat it as one more step; its ``apply`` takes one player's JOIN and
its ``timeout`` is the moderator's start.  The input that completes the step
produces a public ``joined`` event, then the ``salts`` event (the salts in
seat order), then the engine's set-up events.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from pbem.engine.base import PUBLIC, Engine, Event, LineResult, Outcome, Request, Result, State
from pbem.engine.views import View, lines, make_view

STEP = "join"
KEY = "pbem_join"
KINDS = ("join", "start")  # the inputs of the join step: a player's JOIN, the moderator's start
ORDER_WORDS: tuple[str, ...] = ("JOIN", "SALT")
SALT_MAX = 200
_SALT = re.compile(r"^salt\b[:=]?\s*(.*)$", re.IGNORECASE | re.DOTALL)
_JOIN = re.compile(r"^join\b[\s.!:]*$", re.IGNORECASE)


DKIM_WORD = "DKIM"
_DKIM = re.compile(r"^DKIM ([0-9a-f]{64})$")


def deal_seed(seed: str, salts: list[str], signed: list[str] | None = None) -> str:
    """The seed the engine deals from: see the module docstring for the exact bytes (`signed`: per seat, the
    contribution of its signed JOIN, "" for none)."""
    h = hashlib.sha256(seed.encode("ascii"))
    sigs = signed or [""] * len(salts)
    for salt, sig in zip(salts, sigs, strict=True):
        raw = (f"{DKIM_WORD} {sig}" if sig else salt).encode("utf-8")
        h.update(len(raw).to_bytes(4, "big"))
        h.update(raw)
    return h.hexdigest()


def weakness(data: dict[str, Any]) -> str | None:
    """What the deal (the `salts` event's data) lacks, said to every player in every report; None when every
    seat's JOIN was signed by the player's provider, so that nobody, the moderator included, could choose it."""
    players, salts = list(data.get("players", [])), list(data.get("salts", []))
    signed = list(data.get("signed") or [""] * len(players))
    missing = set(data.get("missing", []))
    said = []
    for p, salt, sig in zip(players, salts, signed):
        if p in missing:
            said.append(f"{p} never joined")
        elif not sig:
            said.append(f"{p}'s JOIN was not signed by their provider" + ("" if salt else " and had no salt"))
    if not said:
        return None
    whole = len(said) == len(players)
    return (
        "; ".join(said)
        + ". "
        + (
            "So nothing the moderator could not write went into the deal: he, who chose the seed, could have chosen it."
            if whole
            else "Only the signed JOINs stirred the deal in a way the moderator could not choose."
        )
    )


def is_join_line(line: str) -> bool:
    return bool(_JOIN.match(line.strip()))


def signature_line(lines: list[str]) -> str:
    """The DKIM contribution pbem added to a JOIN input's lines ("" for none)."""
    found = [m.group(1) for line in lines for m in [_DKIM.match(line)] if m]
    return found[0] if found else ""


def signatures(state: State) -> dict[str, str]:
    """The players whose JOIN was signed by their provider, with its contribution (hex)."""
    signed: dict[str, str] = state[KEY].get("signed", {})
    return signed


def open_state(players: list[str]) -> State:
    """The state of a game waiting for its players to join: the seats' names (which a `pbem game replace`
    renames, `pbem.engine.seats`) and who joined, with which salt."""
    return {KEY: {"salts": {}}, "players": list(players)}


def seated(state: State, players: list[str]) -> list[str]:
    """The seats' names now (`players`: as set up, for a join state from before names were kept in it)."""
    names: list[str] = state.get("players", players)
    return list(names)


def is_joining(state: State) -> bool:
    return KEY in state


def joined(state: State) -> dict[str, str]:
    """The players who joined, with their salts ("" = none)."""
    salts: dict[str, str] = state[KEY]["salts"]
    return salts


def read_join(text: list[str]) -> tuple[str | None, list[LineResult]]:
    """The salt one message gives ("" for JOIN alone), or None with the refused lines."""
    salt = ""
    results: list[LineResult] = []
    salts = 0
    for line in text:
        if _DKIM.match(line) and line == text[-1] and text.count(line) == 1:  # added by pbem, last, once
            results.append(LineResult(line, True, understood="the provider's signature"))
            continue
        if _JOIN.match(line.strip()):
            results.append(LineResult(line, True, understood="JOIN"))
            continue
        m = _SALT.match(line.strip())
        if m is None:
            why = 'write JOIN alone on its line; put your text on a line "SALT <any text>"'
            results.append(LineResult(line, False, why, ("JOIN", "SALT <any text>")))
            continue
        salts += 1
        salt = m.group(1).strip()
        if not salt:
            results.append(
                LineResult(line, False, "write your text after the word: SALT <any text>", ("SALT <any text>",))
            )
        elif len(salt) > SALT_MAX:
            results.append(LineResult(line, False, f"a salt holds at most {SALT_MAX} characters, not {len(salt)}"))
        elif salts > 1:
            results.append(LineResult(line, False, "send one SALT line only: the salt is fixed once given"))
        else:
            results.append(LineResult(line, True, understood=f"SALT {salt}"))
    return (salt if all(r.ok for r in results) else None), results


class JoinStep:
    """The join state seen through the engine contract (`Engine`), for the game of `eng` seated by `players`.

    `seed` is the moderator's seed: it is used only to deal, never shown.
    """

    def __init__(self, eng: Engine, players: list[str], seed: str, options: dict[str, Any]) -> None:
        self.eng, self.players, self.seed, self.options = eng, list(players), seed, options
        self.kind, self.title = eng.kind, eng.title
        self.min_players, self.max_players = eng.min_players, eng.max_players
        self.history, self.declared_options = eng.history, eng.declared_options
        self.order_words: tuple[str, ...] = ORDER_WORDS

    def setup(self, players: list[str], seed: str, options: dict[str, Any]) -> tuple[State, list[Event]]:
        return open_state(players), []

    def requests(self, state: State) -> list[Request]:
        salts, players = joined(state), seated(state, self.players)
        prompt = (
            "Join the game: reply JOIN, and if you like add a line SALT <any text> (up to "
            f"{SALT_MAX} characters) that will stir the deal. If you have not joined by the deadline, the moderator "
            "may start without your salt or give your seat to someone else."
        )
        syntax = ("JOIN", "SALT <any text>")
        return [Request(p, STEP, prompt, ("JOIN",), syntax, ()) for p in players if p not in salts]

    def apply(self, state: State, player: str, text: list[str]) -> Outcome:
        salts = joined(state)
        if player in salts:
            why = "you have already joined; your salt is fixed once given"
            return Outcome(state, [], [LineResult(line, False, why) for line in text])
        salt, results = read_join(text)
        if salt is None:
            return Outcome(state, [], results)
        salts = {**salts, player: salt}
        signed = dict(signatures(state))
        if signature_line(text):
            signed[player] = signature_line(text)
        ev = Event("joined", f"{player} joined the game.", PUBLIC, {"player": player})
        if len(salts) < len(self.players):
            return Outcome({**state, KEY: {"salts": salts} | ({"signed": signed} if signed else {})}, [ev], results)
        dealt, events = self.deal({**state, KEY: {"salts": salts, "signed": signed}}, salts, started=False)
        return Outcome(dealt, [ev, *events], results)

    def standing(self, state: State, player: str) -> tuple[str, ...]:
        return ()  # nothing is kept for later before the deal

    def timeout(self, state: State) -> Outcome:
        """The moderator's `pbem game start`: whoever has not joined counts with the empty salt."""
        dealt, events = self.deal(state, joined(state), started=True)
        return Outcome(dealt, events, [])

    def deal(self, state: State, salts: dict[str, str], started: bool) -> tuple[State, list[Event]]:
        """The engine's set-up from the dealing seed, after the public `salts` event."""
        players = seated(state, self.players)
        order = [salts.get(p, "") for p in players]
        missing = [p for p in players if p not in salts]
        said = ", ".join(f"{p} {_quoted(s)}" for p, s in zip(players, order))
        text = "Every player has joined" if not started else "The moderator started the game"
        if missing:
            text += f" without {' and '.join(missing)} (counted with no salt)"
        text += f". The deal is made from SHA-256 of the seed and the salts, {LISTED}: {said}."
        data: dict[str, Any] = {"players": players, "salts": order, "missing": missing, "started": started}
        signed = signatures(state)
        by_sig = [signed.get(p, "") for p in players]
        if any(by_sig):  # the providers' signatures stir it too (issue 25); a game without any deals as before
            data["signed"] = by_sig
            unsigned = [p for p, sig in zip(players, by_sig) if not sig]
            text += (
                " The providers' DKIM signatures of the JOIN mails of "
                + " and ".join(p for p, sig in zip(players, by_sig) if sig)
                + " stir it too"
                + (f"; {' and '.join(unsigned)}'s JOIN was not signed" if unsigned else "")
                + "."
            )
        dealt, events = self.eng.setup(players, deal_seed(self.seed, order, by_sig), self.options)
        return dealt, [Event("salts", text, PUBLIC, data), *events]

    def view(self, state: State, player: str | None) -> View:
        salts, players = joined(state), seated(state, self.players)
        rows = [f"{p}: {'joined' if p in salts else 'not joined yet'}" for p in players]
        sections = [lines("Seats", rows)]
        if player in salts:
            sections.append(lines("Your salt", [_quoted(salts[player])], private=True))
        data = {"joined": [p for p in players if p in salts]}
        return make_view(self, players, player, turn="Joining", over=False, sections=sections, data=data)

    def result(self, state: State) -> Result | None:
        return None

    def handbook(self) -> str:
        return (
            f"{self.title.upper()}: JOINING THE GAME\n"
            "The cards are dealt once every player has joined.\n"
            "  `JOIN`                take your seat\n"
            f"  `SALT <any text>`     optional, up to {SALT_MAX} characters: stirs the deal\n"
            "The deal is made from SHA-256 of the moderator's sealed seed and every player's salt,\n"
            "so nobody, the moderator included, can choose it. Your salt is fixed once given.\n"
            "A reply to this game's mail needs no CODE line; a new mail needs it, as for any order.\n"
        )

    def scramble(self, state: State, player: str) -> State:
        salts = {**joined(state), **({player: "scrambled"} if player in joined(state) else {})}
        return {**state, KEY: {"salts": salts}}

    def hidden_names(self, state: State, player: str) -> list[str] | None:
        return None

    def earlier_forms(self, event: Event) -> tuple[Event, ...]:
        return earlier_salts(event)


LISTED = "in the order of the players' list"  # the order the salts are combined in (not the order of play)


def earlier_salts(event: Event) -> tuple[Event, ...]:
    """The salts event said "in seat order" before walk10, beside a House of Habsburg deal's "Seating drawn at
    random" (HH-R4): two seat orders; the list's order is the one the salts are combined in.  `pbem verify` accepts
    the earlier words whatever engine replays the deal."""
    if event.kind == "salts" and LISTED in event.text:
        return (Event(event.kind, event.text.replace(LISTED, "in seat order", 1), event.visibility, event.data),)
    return ()


def _quoted(salt: str) -> str:
    return f'"{salt}"' if salt else "(no salt)"


def step_engine(eng: Engine, state: State, players: list[str], seed: str, options: dict[str, Any]) -> Engine:
    """The engine that reads `state`: the join step while it is open, else the game's own."""
    return JoinStep(eng, players, seed, options) if is_joining(state) else eng


def split_join(lines: list[str]) -> list[str]:
    """``JOIN SALT words`` on one line means JOIN, then SALT words (what the player meant: issue 23)."""
    out: list[str] = []
    for line in lines:
        words = line.split(None, 2)
        if len(words) == 3 and words[0].upper() == "JOIN" and words[1].upper().rstrip(":") == "SALT":
            out += [words[0], f"SALT {words[2]}"]
        else:
            out.append(line)
    return out
