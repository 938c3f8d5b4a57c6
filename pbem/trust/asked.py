"""`pbem verify --sent`: a resignation, a move of the seat's mail or a press that the record says the player asked for.

Two public moderator events of the chain stand for a request of the player's own: `resign` (RESIGN, then the line
``RESIGN <word>`` with the six digits pbem mailed them, `pbem.app.resigning`) and `address` with ``by: player``
(``ADDRESS new@example.org`` from the seat's address, then the word sent back from the new one,
`pbem.app.addresses`); and a `press` event (``from`` the player) stands for a press block of a mail of theirs
(`pbem.app.press`).  None names the message it came from: the chain binds the event, not who asked.  So the
moderator, who holds the database, could resign Bob by writing the very effects a confirmed RESIGN writes (the
control row and the event): Bob gets no more reports (a resigned player gets nothing of the game's flow), `pbem game
process` then applies his defaults early, `pbem.trust.due.unasked` owes a resigned name nothing, and every check
passed, `--sent` included (fairness23: every generated forgery verified on 90a53973).  Likewise a move recorded as
Bob's own hands his seat to another address while hiding that the moderator did it (his own move says ``by:
moderator``, counted among his interventions), and a press in Alice's name tells Bob what she never wrote.

Here, each such event of the player must be matched by a mail of their Sent folder that asked it: for a
resignation one holding a ``RESIGN <word>`` line (the confirmation: a bare RESIGN only asks for the word), for a move
one holding an ``ADDRESS <new address>`` line, for a press a press block of the same lines (each stripped and case
folded, the code as pbem relays it), read as the poll reads a mail (`pbem.orders.own_quotes.read_alone`, quoted
lines of pbem's not the player's), each mail answering one event, which the export records as read in the
`WINDOW` before the event (a mail the export does not list is DROPPED already).  Otherwise UNASKED, naming the
event.  As for INVENTED, a player who also writes from another device gives the mail they have.

fairness23 left the match loose, and the moderator used it (fairness24: 9 of 11 generated forgeries passed every
check on b1f92b21): now a resignation names its word (``word``: spent once the seat resigned) and a mail must give
that word; a move the player asked holds ``to``, the SHA-256 of the game, the word the new address sent back and the
address (`moved_to`: no address is published), which the player's ``ADDRESS`` line and ``ADDRESS CONFIRM`` word must
give; a press must go to the players its ``PRESS TO`` line names (`_to`), and its lines found in a mail's text rather
than its block count only under such a line, in order, in a reply no other event took (`_written`); a `wait` event
that names an absence as the player's own (``asked``, `pbem.app.absence.askers`) needs an ``AWAY`` line.  Entries of
a game that declares `BINDINGS` (its format mark, signed in every receipt's header) without the word, the binding
or who set an absence were not written by pbem (fairness25: fairness24 required them by a date, `BOUND_SINCE`, that
the moderator could date a game's entries before).  A move's binding is keyed with the seed (`address_key`) and
checked from the ADDRESS CONFIRM the new address sent (`_confirmed`), and, since fairness26, from the ADDRESS line
that asked for it where the old address's Sent folder is given (the moderator can mail the word unasked); a reply
whose answered mail is given is read as the poll read it and its press blocks matched exactly (`exact`), and a game
that declares no bindings is said to (`declared`).  Pure; linear in the mails and events (each mail read once; at
most `PAIRS` squared hashes a move).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from html.parser import HTMLParser
from typing import Any, Protocol

from pbem.engine.base import RuleError
from pbem.engine.names import match_many
from pbem.orders.away import MAX_DAYS
from pbem.orders.extract import Extracted
from pbem.orders.own_quotes import read_alone
from pbem.trust import dkim, signing
from pbem.trust import when_sent as when
from pbem.trust.addresses import content_text, read_mail
from pbem.trust.quote import clip

#: The events that stand for a request of the player's, by action: (what the player must have sent, in words).
ASKED = {
    "resign": "a line RESIGN with the six-digit word pbem mailed you to confirm it (a RESIGN alone only asks for it)",
    "address": "the line ADDRESS CONFIRM with the word pbem mailed the new address, sent from there and read in "
    "the hour before the move (give the Sent folder of the new address: --sent may be given once per folder; a move "
    "that carries no binding, made before fairness24: a line ADDRESS with the new address, read in the 2 days before)",
    "press": "a press block (PRESS TO ...) with these very lines",
    "away": "a line AWAY (AWAY UNTIL <date> or AWAY <days>)",
}
PRESS = "press"
#: How long before its event the mail that asked it was read, at most.  A RESIGN with its word is recorded with the
#: resignation it makes, at the same time (`pbem.app.apply`: one step, one time; an hour allowed); an ADDRESS line
#: asks for a word good on the day it was given and the next (`pbem.app.addresses.DAYS`), and the move is made when
#: the new address sends it back, so within two days of the request.
WINDOW = {"resign": timedelta(hours=1), "address": timedelta(days=2), "press": timedelta(hours=1)}
#: An absence lasts at most `pbem.orders.away.MAX_DAYS` days from the AWAY that set it, and the game waits for it
#: at a deadline within them (the `wait` event names who set it since fairness24: `pbem.app.absence.askers`).
WINDOW["away"] = timedelta(days=MAX_DAYS + 1)
#: What the moderator did if the player did not ask.
WROTE = {
    "resign": "resigned you: pbem sends a resigned player no more reports, and `pbem game process` may apply their "
    "defaults at once",
    "address": "moved your seat's mail to an address of his choosing and recorded it as your request",
    "press": "wrote this press in your name: its readers cannot tell",
    "away": "set your absence himself, and the game waited for you, recorded as your request (his own is recorded "
    "as his)",
}
#: The HTML elements that end a line of text (a mail program writes each line a <div> or <p>, or ends it with <br>).
BLOCKS = frozenset(
    [
        "address",
        "blockquote",
        "br",
        "dd",
        "div",
        "dl",
        "dt",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "li",
        "ol",
        "p",
        "pre",
        "table",
        "td",
        "th",
        "tr",
        "ul",
    ]
)


class _Page(HTMLParser):
    """An HTML part's text as lines (`page`): a block element ends a line, an inline one (a ``mailto:`` link, a bold
    word) does not, a line inside a <blockquote> is quoted with "> " as the poll quotes it, script and style are
    skipped."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = [""]
        self.quoted = 0
        self.skipped = 0

    def _end(self) -> None:
        if self.lines[-1].strip():
            self.lines.append("")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.skipped += tag in ("script", "style")
        if tag in BLOCKS:
            self._end()
        self.quoted += tag == "blockquote"

    def handle_endtag(self, tag: str) -> None:
        self.skipped -= tag in ("script", "style") and self.skipped > 0
        self.quoted -= tag == "blockquote" and self.quoted > 0
        if tag in BLOCKS:
            self._end()

    def handle_data(self, data: str) -> None:
        if self.skipped:
            return
        for n, piece in enumerate(data.replace("\r", "").split("\n")):
            if n:
                self._end()
            if piece.strip():
                if not self.lines[-1]:
                    self.lines[-1] = "> " * self.quoted
                self.lines[-1] += piece


def page(markup: str) -> str:
    """An HTML part's text as the poll reads its lines (`pbem.mail.inbound.message.html_to_text`, which the trust
    layer does not import): a line a block element, an inline element part of its line, a quote's lines quoted.
    fairness28: a tag read as a line break parted ``ADDRESS <a href="mailto:...">...</a>`` from its address."""
    parser = _Page()
    try:
        parser.feed(markup)
        parser.close()
    except Exception:  # a broken page still yields what was read so far
        pass
    return "\n".join(" ".join(line.replace("\xa0", " ").split(" ")) for line in parser.lines if line.strip())


#: The format mark of a game made since fairness25 (`games.bindings`, the export's ``game.bindings``, signed in the
#: header of every receipt: `pbem.trust.signing.header`): its player's `resign` entries name the word that confirmed
#: them (``word``), its player's moves the keyed binding of the new address (``to``, `moved_to` with `address_key`),
#: and its `wait` events who set each absence (``asked``); an entry without them was not written by pbem.  A game
#: without the mark (made before) is checked by what its entries carry.  fairness24 required them of entries dated
#: 2026-12-08 or later instead, and the moderator could date a game's entries before that day to escape them; the
#: mark is the game's own, and one removed later no longer gives the header every player's mail was signed for.
BINDINGS = 1
#: How many ADDRESS lines and CONFIRM words of the player's, each, are tried against one move's binding (a hostile
#: Sent folder makes no quadratic work: 64 * 64 hashes at most per move).
PAIRS = 64


def declared(doc: dict[str, Any]) -> list[str]:
    """`pbem verify`'s note for a game that declares no bindings (no ``game.bindings``: made by a pbem before
    fairness25, or its row edited before its first mail went out, which every receipt then signs): its resignations,
    moves and waits are checked by what they carry, and nothing says so unless this note does (fairness26: such a
    game gave no word of it, so a player could not tell the weaker checks applied).  It counts the entries that lean
    on it: a resignation without its word, a player's move without its binding, a wait that names nobody."""
    if signing.marked(doc.get("game") or {}) >= BINDINGS:
        return []
    bare = {"resign": 0, "address": 0, "away": 0}
    for e in doc.get("events") or []:
        action = _action(e) if isinstance(e, dict) else ""
        data = e.get("data") if isinstance(e, dict) else None
        if not action or not isinstance(data, dict):
            continue
        if action == "away":  # a wait names who set each absence it waits for (`_unnamed`)
            players = data.get("players")
            bare[action] += isinstance(players, list) and any(_unnamed(e, str(p).lower()) for p in players)
        else:
            bare[action] += ("word" if action == "resign" else "to") not in data
    leaning = [
        f"{n} {what}"
        for n, what in zip(
            bare.values(), ("resignation(s) name no word", "player's move(s) no binding", "wait(s) nobody who asked")
        )
        if n
    ]
    return [
        "this game declares no bindings (no game.bindings: made by a pbem before fairness25, or the mark taken off its row "
        "before its first mail, which every receipt then signs): a resignation, a player's move of their mail and a "
        "wait for an absence are checked by what each entry carries, and one that carries no word, binding or asker "
        "is taken on the moderator's word ("
        + ("; ".join(leaning) if leaning else "none of this record's entries leans on it")
        + "). pbem marks every game it makes since fairness25: if your invitation said the game binds its entries, "
        "the mark was taken off after it, and --mail names every receipt signed for the other header"
    ]


def moved_to(game: str, word: str, address: str, key: str = "") -> str:
    """The binding of a move the player asked to `address` (``to`` of the `address` event, `pbem.app.addresses`):
    of the game, the six-digit word that confirmed the move and the address, lower case.  In a game that declares
    `BINDINGS` it is an HMAC-SHA256 under `key` (`address_key`: derived from the seed, which the moderator committed
    to before the game began and which is revealed at its end), so that nobody can test a guessed address while the
    game runs, and after its end only at 900,000 HMACs a guess, as before; the player, who typed the word from the
    address, checks it against their Sent folder once the seed is out (`unasked`).  Without `key` (a game made
    before fairness25) it is SHA-256 of the same, which anyone could test at 900,000 hashes a guessed address."""
    said = f"pbem address|{game}|{word}|{address.strip().lower()}".encode()
    if key:
        return hmac.new(bytes.fromhex(key), said, hashlib.sha256).hexdigest()
    return hashlib.sha256(said).hexdigest()


def address_key(seed: str) -> str:
    """The key of a marked game's move bindings (`moved_to`): SHA-256 of a label and the seed, so committed to by
    the seed commitment every invitation states, and known to all once the seed is revealed."""
    return hashlib.sha256(f"pbem address key|{seed}".encode()).hexdigest()


class Mail(Protocol):
    """A mail of the Sent folder (`pbem.trust.sent.Sent`)."""

    @property
    def message_id(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def subject(self) -> str: ...


def pressed(lines: list[str] | tuple[str, ...], code: str | None = None) -> str:
    """The key of a press's lines: each stripped and case folded, the sender's code as pbem relays it ("[code]")."""
    said = [line.replace(code, "[code]") if code else line for line in lines]
    return PRESS + "\n".join(" ".join(line.split()).casefold() for line in said)


#: Between a press key's lines and the names its PRESS TO line typed (`_asks`).
TO = "\x00to "


def requests_of(ex: Extracted) -> set[str]:
    """What a mail read as `ex` asks of the kinds `ASKED` names (`requests`; `pbem.trust.sent` passes the reading of a
    reply with the copies of pbem's mails it answers removed, as the poll read it, when the received mail is given)."""
    return _asks(ex)


def _asks(ex: Extracted) -> set[str]:
    out = {pressed(p.body, ex.code) + TO + "\n".join(p.to) for p in ex.press}
    if ex.resign:  # "RESIGN 482193": the confirmation; "" (RESIGN alone) asks for the word
        out |= {"resign", f"resign {ex.resign}"}
    if ex.address is not None:
        out |= {"address", f"address {ex.address.strip().lower()}"}
    if ex.address_confirm is not None:
        out.add(f"confirm {ex.address_confirm}")
    if ex.away is not None and not ex.away.back:
        out.add("away")
    return out


def requests(mail: Mail, words: tuple[str, ...], reply: bool, html_text: str = "") -> set[str]:
    """What `mail` asks of the kinds `ASKED` names, read as the poll reads it (its HTML part's text where the plain
    part is empty: a mail program that sends HTML only)."""
    text = mail.text or page(html_text)
    return _asks(read_alone(text, mail.subject, words, reply))


def _asked(e: dict[str, Any], who: str) -> tuple[str, str]:
    """(the kind of request the event `e` stands for, the key of the mail that asked it) when it is one of the
    player's `who` (lower case); ("", "") when it is not.  A resignation that names its word asks for a mail with
    that word (fairness24); a move's binding is compared in `_bound`."""
    data = e.get("data")
    if e.get("kind") == "press" and isinstance(data, dict) and str(data.get("from", "")).lower() == who:
        lines = data.get("lines")
        return (PRESS, pressed([str(x) for x in lines])) if isinstance(lines, list) else ("", "")
    action = _action(e)
    if action == "away":
        asked = e["data"].get("asked")
        by = {str(k).lower(): v for k, v in asked.items()} if isinstance(asked, dict) else {}
        return ("away", "away") if by.get(who) == "player" else ("", "")
    if not action or str(e["data"].get("player", "")).lower() != who:
        return "", ""
    if action == "resign" and e["data"].get("word") is not None:
        return action, f"resign {e['data']['word']}"
    return action, action


def _action(e: dict[str, Any]) -> str:
    data = e.get("data")
    if e.get("kind") != "moderator" or not isinstance(data, dict):
        return ""
    action = str(data.get("action", ""))
    if action == "address" and data.get("by") != "player":
        return ""  # the moderator's own move says so, and verify counts it among his actions
    if action == "wait":
        return "away"  # the game waited for absent players: `asked` names who set each absence
    return action if action in ("resign", "address") else ""


@dataclass
class _Asks:
    """The player's mails by what they ask: `left`, by key, the mails not yet matched to an event; `typed`, by the
    press key and Message-ID, the names each PRESS TO typed; the export's `received` times; the mails that answer
    one of pbem's (`replies`); the players; who resigned; whether the game declares `BINDINGS` (`marked`) and the
    key of its move bindings once its seed is out (`key`)."""

    left: dict[str, list[Mail]]
    typed: dict[tuple[str, str], list[list[str]]]
    received: dict[str, datetime | None]
    replies: set[str]
    players: list[str]
    resigned: set[str]
    game: str = ""
    marked: bool = False
    key: str = ""
    exact: frozenset[str] = frozenset()  # the replies read as the poll read them (the mails they answer given)
    sent_from: list[tuple[datetime, str]] = field(default_factory=list)  # (read at, sender) of each mail given
    notes: list[str] = field(default_factory=list)
    used: set[str] = field(default_factory=set)  # the mails an event took: each mail one event (one press block)
    addresses: list[tuple[datetime, str]] = field(default_factory=list)  # (read at, address) of each ADDRESS line
    # (read at, word, the address that sent it, its Message-ID) of each ADDRESS CONFIRM
    confirms: list[tuple[datetime, str, str, str]] = field(default_factory=list)
    # (when, the address it went to, "" when unknown, its seq) of each move of the player's seat checked so far
    moves: list[tuple[datetime, str, object]] = field(default_factory=list)
    # the export's DKIM evidence by Message-ID, and (read at, Message-ID) of each message of the player's it lists
    evidence: dict[str, dict[str, Any]] = field(default_factory=dict)
    listed: list[tuple[datetime, str]] = field(default_factory=list)
    given: set[str] = field(default_factory=set)  # the Message-IDs of the mails given (the Sent folders)
    moved_at: list[datetime] = field(default_factory=list)  # when each move of the player's own was recorded


def unasked(
    doc: dict[str, Any],
    mails: list[Mail],
    player: str,
    asks: dict[str, set[str]],
    replies: set[str] | frozenset[str] = frozenset(),
    exact: frozenset[str] = frozenset(),
    notes: list[str] | None = None,
) -> list[str]:
    """UNASKED, for each `resign`, player's `address` or `press` event of `player`'s that no mail of theirs (`mails`,
    the Sent folder; `asks`: what each asks, by Message-ID, `requests`; `replies`: the Message-IDs of those that
    answer a mail) read in its `WINDOW` asked for (or wrote): since fairness24 with the same word (a resignation),
    to the same address (a move: `moved_to`), to the same players (a press); and, in a game that declares
    `BINDINGS`, for each `wait` for the player that does not say who set their absence.  `exact`: the replies read as
    the poll read them (`requests_of` of the reading without the copies of the mails they answer): their press blocks
    are matched exactly, never by `_written`'s loose reading (fairness26).  `notes`: what could not be checked is added
    to it (a move matched by its confirmation alone, the folder of the old address not given: `_confirmed`)."""
    names = [str(p.get("name", "")) for p in doc.get("players") or [] if isinstance(p, dict)]
    game = doc.get("game") or {}
    a = _Asks({}, {}, {}, set(replies), names, set(), str(game.get("name", "")), exact=frozenset(exact))
    a.marked = signing.marked(game) >= BINDINGS
    seed = doc.get("seed")
    a.key = address_key(seed) if a.marked and isinstance(seed, str) and seed else ""
    a.received = {
        "".join(str(m.get("message_id") or "").split()).strip("<>").lower(): when.iso(m.get("received"))
        for m in doc.get("messages") or []
        if isinstance(m, dict)
    }
    _listed(a, doc, player)
    for m in mails:
        a.given.add(m.message_id)
        read = a.received.get(m.message_id)
        if read is not None:
            a.sent_from.append((read, str(getattr(m, "sender", "") or "").strip().lower()))
        for key in sorted(asks.get(m.message_id, set())):
            key, _, typed = key.partition(TO)
            a.left.setdefault(key, []).append(m)  # (one entry a press block: the same lines to Bob, then to Carol)
            if key.startswith(PRESS):
                a.typed.setdefault((key, m.message_id), []).append(typed.split("\n") if typed else [])
            elif key.startswith("address ") and read is not None:
                a.addresses.append((read, key.split(" ", 1)[1]))
            elif key.startswith("confirm ") and read is not None:
                sender = str(getattr(m, "sender", "") or "").strip().lower()
                a.confirms.append((read, key.split(" ", 1)[1], sender, m.message_id))
    a.confirms.sort()
    a.addresses.sort()
    out = []
    who = player.lower()
    a.moved_at = [t for e in doc.get("events") or [] if _asked(e, who)[0] == "address" and (t := when.iso(e.get("at")))]
    for e in doc.get("events") or []:
        if _action(e) == "resign":
            a.resigned.add(str(e["data"].get("player", "")))
        action, key = _asked(e, who)
        if action and not _matched(a, e, action, key, mails):
            out.append(_unasked_line(e, action, player))
        elif a.marked and _unnamed(e, who):
            out.append(_unnamed_line(e, player))
    if notes is not None:
        notes += a.notes
    return out


def _matched(a: _Asks, e: dict[str, Any], action: str, key: str, mails: list[Mail]) -> bool:
    """Whether a mail of the player's asked the event `e` (and takes it: each mail one event)."""
    at = when.iso(e.get("at"))
    data = e["data"]
    bound = _binds(a, e, action)
    if bound and action == "resign" and "word" not in data:
        return False  # pbem names the word in a marked game: an entry without it is not pbem's
    if bound and action == "address":
        return _confirmed(a, str(data.get("to", "")), at, e)
    ways = a.left.get(key, [])
    for m in ways:
        if not _within(a.received.get(m.message_id), at, WINDOW[action]):
            continue
        if action == PRESS and not any(_to(a, t, data) for t in a.typed.get((key, m.message_id), [])):
            continue
        if action != "away":  # one AWAY may make the game wait at several deadlines
            ways.remove(m)
            a.used.add(m.message_id)
        return True
    if action == PRESS and _written(a, data, mails, at):
        a.notes.append(_loose_line(e))
        return True
    return False


def _binds(a: _Asks, e: dict[str, Any], action: str) -> bool:
    """Whether the entry `e` must carry a resignation's word or a move's binding: in a game that declares
    `BINDINGS`, always; in one made before, when it carries them (fairness24's pbem wrote them)."""
    data = e["data"]
    return action in ("resign", "address") and (a.marked or "word" in data or "to" in data)


def _confirmed(a: _Asks, to: str, at: datetime | None, e: dict[str, Any]) -> bool:
    """Whether an ADDRESS CONFIRM of the player's that no other move took, read in the hour before `at`, gives the
    move's binding `to` with the address that sent it or an ADDRESS line of the two days before (`moved_to`; at most
    `PAIRS` of each tried), and was asked for.  In a marked game whose seed is not out yet (a game in progress) the
    binding cannot be computed: the confirmation of the hour is taken as from the address moved to, and the address
    is compared once the seed is revealed.

    fairness25 took the confirmation alone as the player's evidence, trusting that pbem mails the word only when the
    seat's address asked to move there; but the moderator holds the home's secret, can mail the word for any address
    unasked, and a player who sends it back (the mail looks like pbem's) was moved as by their own request, every
    check passing (fairness26).  So the request is the player's own ``ADDRESS <new address>`` line, of the two days
    before, read before the confirmation: when the Sent folders given hold mail of those two days from another
    address than the new one (the old address's folder), a move whose new address no such line named is not
    matched.  Given the new address's folder alone, the move is matched by its confirmation and a note says what was
    not checked (a player who lost the old address cannot give its folder)."""
    if at is None or not to:
        return False
    first = bisect_left(a.confirms, (at - WINDOW[PRESS],))
    since = at - WINDOW["address"]
    lines = a.addresses[bisect_left(a.addresses, (since,)) :]
    asked = [(read, x) for read, x in lines if read <= at][:PAIRS]
    unknown = a.marked and not a.key  # the key is the seed's: a game in progress cannot be checked yet
    before = a.moves[-1] if a.moves and a.moves[-1][0] >= since else None  # the seat moved in the two days
    start = before[0] if before else since
    for read, word, sender, mid in a.confirms[first : first + PAIRS]:
        if read > at:
            break
        if mid in a.used:
            continue
        bound = (
            [sender]
            if unknown
            else [x for x in [sender, *(x for _, x in asked)] if moved_to(a.game, word, x, a.key) == to]
        )
        if not bound:
            continue
        if not any(x == bound[0] and r <= read for r, x in asked):
            if _old_given(a, before, start, at, bound[0]):
                continue  # the old address's folder is given and holds no ADDRESS line asking for this move
            vouched = _vouched(a, since, read, bound[0])
            if vouched is False:
                continue  # the old address's provider signed every mail of the two days: none asked for it
            if vouched is None:
                a.notes.append(_alone_line(e, bound[0], before))
        a.used.add(mid)
        a.moves.append((at, bound[0], e.get("seq")))
        return True
    return _unconfirmed(a, at, first, asked, e)


def _listed(a: _Asks, doc: dict[str, Any], player: str) -> None:
    """The export's DKIM evidence (`pbem.trust.dkim`) and the messages of `player`'s it lists, for `_vouched`."""
    for x in doc.get("evidence") or []:
        if isinstance(x, dict):
            a.evidence["".join(str(x.get("message_id") or "").split()).strip("<>").lower()] = x
    for m in doc.get("messages") or []:
        if isinstance(m, dict) and str(m.get("player") or "").lower() == player.lower():
            mid = "".join(str(m.get("message_id") or "").split()).strip("<>").lower()
            if (read := a.received.get(mid)) is not None:
                a.listed.append((read, mid))
    a.listed.sort()


_ADDRESS_LINE = re.compile(r"^[ \t]*address[ \t]+<?([^\s<>]+@[^\s<>]+?)>?[ \t\r]*$", re.M | re.I)


def _vouched(a: _Asks, since: datetime, read: datetime, new: str | None) -> bool | None:
    """What the export's DKIM evidence says of a move's request that the Sent folders given do not hold (the new
    address's folder alone): True when a mail of the player's, read in the two days before the confirmation and
    signed whole by its provider from another address than the new one, holds the line ``ADDRESS <new>``; False
    when every mail of theirs the export lists for those days (but those given) is so signed and none does; None
    when the evidence cannot tell (a mail unsigned, or kept without its body: it carried a code).  The request,
    from the old address, is signed by the old address's provider, which the moderator cannot sign for: so the new
    folder alone decides where the old provider signs (fairness27; fairness26 left it a note).  `new` None: the
    address moved to is not known (`_between`), and any ``ADDRESS`` line is the request.  At most `PAIRS` mails
    rechecked."""
    mids = [mid for r, mid in a.listed[bisect_left(a.listed, (since,)) :] if r <= read and mid not in a.given]
    if not mids or len(mids) > PAIRS:
        return None
    every, other = True, False
    for mid in mids:
        entry = a.evidence.get(mid)
        r = dkim.recheck(entry) if entry is not None else None
        text = (r.text if r.text.strip() else _html_of(r.raw)) if r is not None and r.ok and r.whole else ""
        if r is None or not r.ok or not r.whole or r.message_id != mid or not text.strip():
            every = False  # (a mail with no text read: its lines are not known)
            continue
        if r.sender == new:
            continue
        other = True
        if any(new is None or x.lower() == new for x in _ADDRESS_LINE.findall(text)):
            return True
    return False if every and other else None


def _html_of(raw: bytes) -> str:
    """The text of a signed mail's HTML part (`page`), for a mail with no plain part (a mail program that sends HTML
    only: the poll reads that part so, fairness28); "" when it has none."""
    try:
        part = read_mail(raw).get_body(("html",))
        return page(content_text(part)) if part is not None else ""
    except (LookupError, ValueError):
        return ""


def _old_given(a: _Asks, before: tuple[datetime, str, object] | None, start: datetime, at: datetime, new: str) -> bool:
    """Whether the Sent folder of the address the seat moves from is among those given: one holding mail of the two
    days before the move from another address than the new one; when the seat moved in those two days, the address
    it moved to then is the old one, its folder given if any mail was sent from it (its own ADDRESS CONFIRM), and
    the mails of the address before it say nothing of this move (fairness27: a player who moved twice and gave the
    first and last folders was told UNASKED)."""
    if before is not None and before[1]:
        return any(s == before[1] for _, s in a.sent_from)
    return any(start <= r <= at and s and s != new for r, s in a.sent_from)


def _unconfirmed(a: _Asks, at: datetime, first: int, asked: list[tuple[datetime, str]], e: dict[str, Any]) -> bool:
    """A move no confirmation given matched (`_confirmed`): whether it is left to a note because the folder of the
    address it went to was not given.  A player who moved twice within two days and gave the folders of the first
    and last addresses only holds the first move's ADDRESS line but not its ADDRESS CONFIRM, which the middle
    address sent (fairness27: such an honest player was told UNASKED).  So when no ADDRESS CONFIRM at all was read in
    the hour before the move and an ADDRESS line of the two days before names an address that no mail given was
    sent from, and the player moved again within the two days after (so a folder between is missing), the note
    names that folder; given it, the move is checked (no confirmation there is UNASKED).  A move with no later one
    stays UNASKED: a seat moved to another address than the one asked (fairness24's forgery)."""
    confirmed = any(r <= at and mid not in a.used for r, _, _, mid in a.confirms[first:])
    senders = {s for _, s in a.sent_from}
    missing = [x for _, x in asked if x not in senders]
    again = any(at < t <= at + WINDOW["address"] for t in a.moved_at)  # the seat moved on within the two days
    if not confirmed and not asked and _between(a, at):
        a.notes.append(_between_line(e))
        a.moves.append((at, "", e.get("seq")))
        return True
    if confirmed or not missing or not again:
        a.moves.append((at, "", e.get("seq")))
        return False
    a.notes.append(_missing_line(e, missing[-1]))
    a.moves.append((at, missing[-1], e.get("seq")))
    return True


def _between(a: _Asks, at: datetime) -> bool:
    """Whether a move no mail given can check is left to a note because the folders given are all of a later address:
    no mail given was read in the two days before it (neither the old address's folder nor the new one's), the seat
    moved on within the two days after, that later move confirmed from a folder given (an ADDRESS CONFIRM read in the
    hour before it) and every mail given sent from the address that confirmed it, and the export's DKIM evidence does not show every mail of the player's of the two days signed
    whole with no ``ADDRESS`` line in it (`_vouched`).  A player who moved A -> B -> C within two days and gave C's
    folder alone holds nothing of the first move (its request is A's, its confirmation B's), and was told UNASKED
    (fairness28): the same folder holds the very lines an honest player's does, so the note names the folder that
    decides.  A single move with no mail given stays UNASKED (fairness24's move to Eve)."""
    since, hour = at - WINDOW["address"], WINDOW[PRESS]
    later = [t for t in a.moved_at if at < t <= at + WINDOW["address"]]
    later_addresses = {s for r, _, s, _ in a.confirms if any(t - hour <= r <= t for t in later)}
    if not later_addresses or any(s not in later_addresses or since <= r <= at for r, s in a.sent_from):
        return False  # a folder of another address is given, or a mail of the two days: `_unconfirmed` decides
    return _vouched(a, since, at, None) is not False


def _between_line(e: dict[str, Any]) -> str:
    return (
        f'event {e.get("seq")} of the export ("{clip(str(e.get("text", "")))}") moved your seat\'s mail, and the seat '
        "moved on within two days, but the Sent folders given hold no mail of the 2 days before it: its ADDRESS line "
        "(sent from the address the seat moved from) and its ADDRESS CONFIRM (sent from the address it moved to, the "
        "one the next move moved it from) are in folders not given, so the move was not checked. Give the Sent folder "
        "of the address you moved to then, and of the one before if you have it (--sent may be given once per folder); "
        "if you never wrote from an address between, the moderator moved your seat"
    )


def _missing_line(e: dict[str, Any], address: str) -> str:
    return (
        f'event {e.get("seq")} of the export ("{clip(str(e.get("text", "")))}") moved your seat\'s mail after your '
        f"ADDRESS {clip(address)}, but the Sent folders given hold no mail sent from {clip(address)}, where its "
        "ADDRESS CONFIRM would be: the move was not checked. Give the Sent folder of that address too (--sent may be "
        "given once per folder)"
    )


def _alone_line(e: dict[str, Any], address: str, before: tuple[datetime, str, object] | None = None) -> str:
    old = "your old address"
    if before is not None:  # the seat moved within the two days: its old address is the one moved to then
        old = (
            f"{clip(before[1])}, the address event {before[2]} moved it to"
            if before[1]
            else f"the address event {before[2]} moved it to"
        )
    return (
        f'event {e.get("seq")} of the export ("{clip(str(e.get("text", "")))}") moved your seat\'s mail to '
        f"{clip(address)} on your ADDRESS CONFIRM alone: the Sent folders given hold no mail of the 2 days before it "
        f"from {old}, so the ADDRESS line that asked for the move was not looked for. pbem mails that word "
        "only when the seat's address asks; the moderator can mail it unasked. Give the Sent folder of "
        + (old if before is not None else "your old address")
        + " too, if you have it"
    )


def _unnamed(e: dict[str, Any], who: str) -> bool:
    """Whether `e` is a `wait` for the player `who` (lower case) that does not say who set their absence (``asked``):
    pbem names it for every absence of a game that declares `BINDINGS` (each absence row of such a game says
    ``by``, `pbem.app.absence.askers`), so an entry that does not was not written by pbem."""
    if _action(e) != "away":
        return False
    data = e["data"]
    players, asked = data.get("players"), data.get("asked")
    if not isinstance(players, list) or who not in {str(p).lower() for p in players}:
        return False
    return not isinstance(asked, dict) or who not in {str(k).lower() for k in asked}


def _unnamed_line(e: dict[str, Any], player: str) -> str:
    return (
        f'UNASKED: event {e.get("seq")} of the export ("{clip(str(e.get("text", "")))}", {clip(str(e.get("at")))}) '
        f"makes the game wait for {clip(player)} without saying who set the absence: pbem says it (yours or the "
        "moderator's) in every game that declares its bindings, as this one does. The moderator set it, or wrote "
        "the entry himself"
    )


def _to(a: _Asks, typed: list[str], data: dict[str, Any]) -> bool:
    """Whether the press's recipients (`data["to"]`) are those the names `typed` on its PRESS TO line give, as
    `pbem.app.press.relay` reads them: ALL, or each name typed matched among the other players; a player who resigned
    before it is left out (the record holds the resignation).  A recipient added is a press shown to a player its
    writer did not choose, one left out a press kept from them (fairness24)."""
    sender = str(data.get("from", ""))
    got = data.get("to")
    if not isinstance(got, list):
        return False
    to = {str(x) for x in got}
    others = [p for p in a.players if p != sender]
    if any(t.strip().upper() == "ALL" for t in typed):
        meant = set(others)
    else:
        try:
            meant = {p for t in typed for p in match_many(t, others, "player")}
        except RuleError:
            return False
    return to <= meant and not (meant - to - a.resigned)


def _written(a: _Asks, data: dict[str, Any], mails: list[Mail], at: datetime | None) -> bool:
    """Whether a reply of the player's read in the hour before `at` holds a PRESS TO line naming the press's
    recipients followed by the press's lines, in order and one after another (spaces and case folded, blank lines
    skipped; a line with "[code]" in it taken as the player's): the press block as pbem's poll read it, when the Sent
    copy's reading ends it elsewhere (a copy of pbem's mail pasted under it, which the poll took off with the mail it
    answers, `pbem.app.reading`: so only a reply), and no other event took.  Lines found anywhere in the text of any
    mail, in any order, matched before fairness24: a press made of the player's own sentences, reordered, cut or
    shown to another player, passed.  And the block must end where the lines end (`_ends`): a press cut at its end
    from a reply pbem refused whole (so relayed nothing of it) matched until fairness25.  A reply whose answered mail
    the player gave (`pbem verify --mail` with `--sent`) is read as the poll read it and never matched here: a block
    that goes on after a blank line with lines shaped as a pasted header naming the game could be cut there
    (fairness25's limit, fairness26)."""
    want = [" ".join(str(x).split()).casefold() for x in data.get("lines") or []]
    want = [x for x in want if x]
    if not want:
        return False
    for m in mails:
        if m.message_id in a.used or m.message_id not in a.replies or m.message_id in a.exact:
            continue  # a mail another event took (a press cut from it, or shown to others), one the poll read alone,
            # or one read as the poll read it (the mail it answers given: its press blocks are exact, fairness26)
        if not _within(a.received.get(m.message_id), at, WINDOW[PRESS]):
            continue
        folded = [" ".join(line.split()).casefold() for line in m.text.splitlines()]
        places = [i for i, key in enumerate(folded) if key]  # where each line that is not blank stands
        have = [folded[i] for i in places]
        for n, line in enumerate(have):
            head = _PRESS_TO.match(line)
            if head is None:
                continue
            first = head.group(2).strip()
            run = ([first] if first else []) + have[n + 1 : n + 1 + len(want)]
            last = n + len(want) - (1 if first else 0)  # the index in `have` of the press's last line
            if (
                _same(run[: len(want)], want)
                and _to(a, head.group(1).split(","), data)
                and _ends(have, places, last, f"[pbem {a.game.casefold()}]")
            ):
                a.used.add(m.message_id)
                return True
    return False


def _loose_line(e: dict[str, Any]) -> str:
    """The note for a press matched by `_written`'s loose reading: with the Sent folder alone (no `--mail`), a reply
    with pbem's mail pasted under its press block cannot be read as the poll read it, which took the copy off with
    the text of the mail it answers; only that mail tells where the block ended (fairness27)."""
    return (
        f'event {e.get("seq")} of the export ("{clip(str(e.get("text", "")))}", {clip(str(e.get("at")))}) was matched '
        "to a press block of a reply of yours with pbem's mail pasted under it, read without the mail it answers: "
        "where the block ended could not be checked exactly (the moderator could relay it cut above lines of yours "
        "shaped as a mail's header). Give the mail you received too (--mail with --sent) to check it line for line"
    )


#: How many lines after a press a copy of pbem's mail pasted under it names the game in (its subject, in a header
#: block of a client pbem's rules do not know: `_ends`).
HEAD = 8


def _ends(have: list[str], places: list[int], last: int, tag: str) -> bool:
    """Whether a press block whose last line is `have[last]` ends there as the poll read it: at the mail's end, at an
    END PRESS line, or where a copy of pbem's mail begins, after a blank line: a line naming the game (`tag`, its
    subject's "[pbem NAME]"), or a header block that does within `HEAD` lines (each line before it a field, "Von:
    pbem", or a rule of dashes).  The only end the Sent copy's reading can miss is that copy, which the poll took
    off with the mail the reply answers.  A line that follows the press's last with no blank line between, or a
    paragraph of the player's own after it, is the press going on: a press cut there is not the one written."""
    after = last + 1
    if after >= len(have) or have[after] == "end press":
        return True
    if places[after] == places[last] + 1:
        return False
    for line in have[after : after + HEAD]:
        if tag in line:
            return True
        if not _FIELD.match(line):
            return False
    return False


#: A line of a header block a mail client writes over a copy of a mail ("From: pbem <...>", "Betreff: ..."), or the
#: rule of dashes over it.
_FIELD = re.compile(r"\A(?:[^\W\d][\w-]{0,23}:(?: |$)|[-_=*]{5})")


_PRESS_TO = re.compile(r"\Apress to ([^:]*+):?+(.*+)")


def _same(have: list[str], want: list[str]) -> bool:
    return len(have) == len(want) and all(h == w or ("[code]" in w and _coded(h, w)) for h, w in zip(have, want))


def _coded(have: str, want: str) -> bool:
    """Whether `have` is the line `want` with its "[code]" standing for any word (the code pbem relays so)."""
    parts = want.split("[code]")
    return have.startswith(parts[0]) and have.endswith(parts[-1])


def _unasked_line(e: dict[str, Any], action: str, player: str) -> str:
    return (
        f'UNASKED: event {e.get("seq")} of the export ("{clip(str(e.get("text", "")))}", {clip(str(e.get("at")))}) '
        f"says {clip(player)} {'wrote' if action == PRESS else 'asked'} it, but your Sent folder holds no mail with "
        f"{ASKED[action]}"
        + ("" if action == "address" else f" that the export records as read in the {_said(WINDOW[action])} before it")
        + ". If you did not "
        "ask, the moderator " + WROTE[action] + "; if you asked from another device, give that mail too"
    )


def _said(window: timedelta) -> str:
    return f"{window.days} days" if window.days else f"{window.seconds // 3600} hour"


def _within(received: datetime | None, at: datetime | None, window: timedelta) -> bool:
    return received is None or at is None or at - window <= received <= at
