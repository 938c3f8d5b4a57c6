"""`pbem verify EXPORT --sent FOLDER`: a player's own outbox checked against a published history.

The moderator records whatever he likes as a player's input; the player's
Sent folder holds what they really wrote.  For every mail in it about the
game (its tag "[pbem NAME]" in the subject, invisible characters removed):

- DROPPED: its Message-ID is not among the export's messages;
- SUBSTITUTED: the export applied, from that message, other order lines than the
  ones the mail's body gives when read as pbem reads orders (`pbem.orders.extract`,
  with the game's order words);
- REFUSED WITHOUT A REASON: the export marks it refused, rejected or ignored but
  gives the sender no reason (a refusal with its reason is listed, and fine);
- HELD BACK: it left more than `HELD_BACK` before a deadline input of the export, which
  records it as arrived after that input: the defaults were applied while it waited (a
  moderator who sits on a mail until the deadline has passed, found by a red team; an
  honest pbem reads mail that came before a deadline before it).  When it left is the
  provider's stamp on the Sent copy, else its Date allowing for a slow client clock
  (`pbem.trust.when_sent`; second red team: a clock hours slow accused an honest moderator);
- REORDERED: two of the player's mails applied in the other order than they were sent,
  more than `HELD_BACK` apart (less: a note), so the earlier orders won (`_reordered`);
- QUOTED OTHERWISE: pbem's answer to it (given the received mail too: `answers`) quotes another subject than
  its own, or lists as "not read as orders", or quotes in a note, words it does not hold (`_quoted`);

and for every input of the player in the export:

- INVENTED: it names a message of theirs that the Sent folder does not hold
  (unless the folder holds none of the game's mail before that input: a
  player who also writes from another device says so with the mails they have);

and for every resignation, move of the seat's mail or press recorded as theirs:

- UNASKED: no mail of the Sent folder asked (or wrote) it (`pbem.trust.asked`, fairness23).

A player's export (`pbem export NAME --as PLAYER`) or the moderator's holds
their inputs and refusals; the public export of a game in progress holds none.
Pure but for `read_folder` (shared with `pbem.trust.receipts`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from email.parser import BytesHeaderParser
from email.policy import compat32
from typing import Any

from pbem import engine as registry
from pbem.engine.words import count
from pbem.orders.closings import KNOWN, closing_shape, footer_keys, footer_marked, footprint_key
from pbem.orders.extract import Extracted
from pbem.orders.own_quotes import read_alone
from pbem.orders.typed import cleaned, prose
from pbem.trust import asked
from pbem.trust import deal as joining
from pbem.trust import when_sent as when
from pbem.trust.addresses import MAX_FIELD, addresses, content_text, field_too_long, nests_too_deep, read_mail
from pbem.trust.quote import Alike, apart, clip, quote
from pbem.trust.receipts import MAX_FROM, readers, seat_of, visible
from pbem.trust.stored import Stored

SHOWN = 8
#: Mail takes minutes; a mail sent this long before a deadline and recorded as arrived after it was held back.
HELD_BACK = timedelta(hours=1)

#: A player's mail (raw) and the game's order words -> its order lines as the poll read them (`pbem verify` passes
#: `pbem.app.reading.mail_reader`, which removes the copies of the mails it answers); None: its plain part read.
Reader = Callable[[bytes, tuple[str, ...]], Sequence[str]]
#: A player's reply (raw) and the order words -> the whole reading the poll made of it, its press blocks included,
#: with the copies of the received mails it answers removed (`pbem.app.rereading.named_extractor`); None for a mail
#: that answers none of the received mails given (read then from its Sent copy alone: `asked.requests`).
Exact = Callable[[bytes, tuple[str, ...]], Extracted | None]


@dataclass
class SentCheck:
    ok: bool
    player: str = ""
    mails: int = 0
    checked: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)  # each of the player's mails refused or ignored, with why


@dataclass(frozen=True)
class Sent:
    message_id: str
    sender: str
    sender_name: str
    subject: str
    date: str
    text: str
    raw: bytes = field(default=b"", repr=False, compare=False)
    left: when.Stamp | None = field(default=None, compare=False)  # when it left, best evidence first
    again: Callable[[], bytes] | None = field(default=None, repr=False, compare=False)  # of a kept folder (`Stored`)

    def mail(self) -> bytes:
        """The mail: kept, or read again from a kept folder (costs28: `pbem.trust.stored`)."""
        return self.again() if self.again is not None else self.raw

    @property
    def name(self) -> str:
        return f'your mail of {self.date or "(no date)"} "{self.subject}"'


def _mid(value: str | None) -> str:
    return "".join(str(value or "").split()).strip("<>").lower()


def parse_sent(raw: bytes) -> Sent:
    """A mail of the player's Sent folder, read; ValueError for one pbem does not read (the folder's reading skips
    it): a header nesting comments deeper than `addresses.MAX_NESTING`, or a field it parses longer than
    `addresses.MAX_FIELD` (costs5)."""
    if nests_too_deep(raw):  # the modern header parser recurses once a nested comment: a RecursionError
        raise ValueError("a header nests comments deeper than pbem reads")
    if field_too_long(raw):  # the modern parser's cost: the square of a field
        raise ValueError(f"a header field is longer than the {MAX_FIELD} characters pbem reads")
    msg = read_mail(raw)  # (its MIME headers read from their text: costs21)
    body = msg.get_body(("plain",))
    try:
        text = content_text(body) if body is not None else ""  # (a slow codec's as UTF-8: costs19)
    except (LookupError, ValueError):
        text = ""
    frm = addresses(str(msg.get("From", "")), MAX_FROM)  # nested comments: a RecursionError in the parser
    return Sent(
        message_id=_mid(msg.get("Message-ID")),
        sender=(frm[0][1] if frm else "").lower(),
        sender_name=" ".join((frm[0][0] if frm else "").split()),
        subject=" ".join(str(msg.get("Subject", "")).split()),
        date=" ".join(str(msg.get("Date", "")).split()),
        text=str(text),
        raw=raw,
        left=when.sent_at(raw, " ".join(str(msg.get("Date", "")).split()), msg),
    )


_NAMED = re.compile(r"<[^<>\s]+>")  # a Message-ID named, as `pbem.mail.inbound.message` reads References


def answering(raw: bytes) -> bool:
    """Whether the mail `raw` names a mail it answers (In-Reply-To or References), as the poll's `Inbound.references`
    does: a reply's label naming a step is checked by its own subject (`pbem.orders.own_quotes.read_alone`).  Its
    header block read as plain strings (no field parsed), each field cut at `MAX_FIELD`."""
    head = BytesHeaderParser(policy=compat32).parsebytes(raw)
    return any(_NAMED.search(str(head.get(name, ""))[:MAX_FIELD]) for name in ("References", "In-Reply-To"))


def read_plain(text: str, subject: str, words: tuple[str, ...], reply: bool) -> list[str]:
    """The order lines of a mail's plain `text` where no `Reader` was given: as the poll reads a mail naming none of
    pbem's mails (`read_alone`: its own quoted orders read, a label naming another step than its subject set aside).
    It read them with `extract` alone: "> PASS" was no order and "Turn 3: PASS" answering Turn 5 was one."""
    return read_alone(text, subject, words, reply).orders


def written(doc: dict[str, Any], raws: Sequence[bytes], read: Reader) -> dict[str, list[str]]:
    """The order lines of each mail of `raws` (the player's Sent folder) as the poll read them once the game was
    dealt (the game's order words), by its Message-ID as `pbem.trust.receipts.message_key` writes it: what `pbem
    verify --mail` re-reads for a refusal that quotes only its first lines (`pbem.trust.refused.untrue`)."""
    try:
        words = tuple(registry.get(doc["game"]["kind"]).order_words)
    except (registry.UnknownKind, KeyError, TypeError):
        return {}
    from pbem.trust.receipts import headers, message_key

    out: dict[str, list[str]] = {}
    for raw in raws:
        try:
            mid = message_key(str(headers(raw).get("Message-ID", "")))
            if mid and mid not in out:
                out[mid] = list(read(raw, words))
        except Exception:  # a mail that cannot be read is left out: its refusal is not compared
            continue
    return out


def _order_words(doc: dict[str, Any]) -> tuple[str, ...]:
    try:
        words = tuple(registry.get(doc["game"]["kind"]).order_words)
    except registry.UnknownKind:
        words = ()
    return words + joining.ORDER_WORDS


_QUOTED_LINE = re.compile(r"""(?:^|; )('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"): """)
_MORE = re.compile(r"; and \d+ more refused lines?$")


def grouped(reason: str) -> str:
    """A refused message's reason as its acknowledgement tells it: the lines refused for one reason quoted together,
    the reason said once ("'a', 'b', 'c' (these 3 lines): why").  The record holds one "'line': why" per refused
    line, joined by "; " (`pbem.app.intake`); any other reason is returned as it is.  Linear in the reason."""
    more = _MORE.search(reason)
    body, tail = (reason[: more.start()], reason[more.start() :]) if more else (reason, "")
    starts = list(_QUOTED_LINE.finditer(body))
    if len(starts) < 2 or starts[0].start() != 0:
        return reason
    why: dict[str, list[str]] = {}
    for k, m in enumerate(starts):
        end = starts[k + 1].start() if k + 1 < len(starts) else len(body)
        why.setdefault(body[m.end() : end], []).append(m.group(1))
    if len(why) == len(starts):
        return reason  # no two lines refused alike
    told = [
        f"{', '.join(lines)}{f' (these {len(lines)} lines)' if len(lines) > 1 else ''}: {said}"
        for said, lines in why.items()
    ]
    return "; ".join(told) + tail


def set_aside(
    wrote: list[str], applied: list[str], known: set[str], commands: bool = False, footers: frozenset[str] = frozenset()
) -> list[str] | None:
    """The lines of `wrote` an input left out, when it applied `wrote` without only lines the intake sets aside
    (`pbem.app.lines`): lines that read as prose (`pbem.orders.typed.prose`: a footer, a disclaimer) anywhere,
    closings and footers after the last line applied (`pbem.orders.closings.closing_shape`: "Take care,", "Keep
    calm and carry on", "Vote for us in the Club of the Year awards", naming no word of `known`, the words of the
    export's inputs), and a repeat of a line applied above it, whatever its case
    (`pbem.app.lines.once`: "PLAY Silver 11" typed twice is read once); else None.  Told as a note, never hidden.
    With `commands`, `applied` may be empty: a message of commands whose every order line is a footer or a closing
    ("HELP" above "Pass it on!", `pbem.app.footers`) is accepted with no input.  `footers`: the lines of the player's
    other accepted mails that no input applied (`closings.footer_keys`), which the intake sets aside after the orders
    when they name nothing of the game's (players29, `pbem.app.footprints`)."""
    if not applied and not commands:
        return None
    out: list[str] = []
    seen: set[str] = set()  # the lines applied so far, folded
    k = 0
    for line in wrote:
        if k < len(applied) and line == applied[k]:
            seen.add(_folded(line))
            k += 1
            continue
        if _folded(line) in seen:
            out.append(line)
            continue
        signs = footprint_key(line) in footers and not any(
            len(w) >= KNOWN and w.upper() in known for w in _WORD.findall(line)[1:]
        )  # the player's own footer, as `pbem.app.footprints` learns it
        marked = commands and not applied and footer_marked(line, known)  # under a command alone: `app.footers`
        closing = k == len(applied) and (signs or marked or closing_shape(line, known))  # as `app.lines.closing`
        if not (prose(line) or closing):
            return None
        out.append(line)
    return out if k == len(applied) else None


_WORD = re.compile(r"[^\W_]+")
WRAPS = 4  # lines under an order line a wrap parted that the poll joins with it, at most (`pbem.app.wraps.WRAPS`)


def rejoined(wrote: list[str], applied: list[str], text: str) -> list[str]:
    """`wrote` with each line that an input applied joined with the lines right under it in the mail's `text` (at most
    `WRAPS`, unquoted, no blank line between) as that line of `applied`: the poll reads an order a hard wrap parted
    inside a name joined when the joined line is a legal order then ("PLACE-START Spain 3, France 1, German" over
    "States 2", `pbem.app.wraps.read_joined`), which this reading, without the game's state, cannot know; the mail
    holds the joined words as typed, so it is the player's line, never a substitution.  One pass of the text a line
    not applied as written."""
    if not applied or applied == wrote:
        return wrote
    rows = [row.strip() for row in text.replace("\r\n", "\n").split("\n")]
    wanted = {_folded(a) for a in applied}
    out = list(wrote)
    for k, line in enumerate(wrote):
        if _folded(line) in wanted:
            continue
        key = _folded(line)
        for i, row in enumerate(rows):
            if not row or row.startswith(">") or not _folded(row).endswith(key):
                continue
            rest = [r for r in rows[i + 1 : i + 1 + WRAPS]]
            joins = [" ".join([line, *rest[:n]]) for n in range(1, len(rest) + 1) if all(rest[:n])]
            found = next((j for j in joins if _folded(j) in wanted), None)
            if found is not None:
                out[k] = next(a for a in applied if _folded(a) == _folded(found))
                break
    return out


def _footprints(
    mails: Sequence[Any], messages: dict[str, dict[str, Any]], inputs: dict[str, list[dict[str, Any]]]
) -> tuple[dict[str, int], dict[str, frozenset[str]]]:
    """The lines of the player's accepted mails that no input applied (`closings.footer_keys`): in how many mails
    each is, and each mail's own, so a mail's footers are those of its other mails (the intake learns them from the
    player's earlier mails, `pbem.app.footprints`: any other accepted mail is as lenient, never stricter)."""
    counts: dict[str, int] = {}
    own: dict[str, frozenset[str]] = {}
    for m in mails:
        rec = messages.get(m.message_id)
        if rec is None or rec["outcome"] != "accepted":
            continue
        lines = tuple(str(x) for o in inputs.get(m.message_id, []) for x in o["lines"])
        own[m.message_id] = footer_keys([(m.text, lines)], cleaned)
        for k in own[m.message_id]:
            counts[k] = counts.get(k, 0) + 1
    return counts, own


def _others(learnt: tuple[dict[str, int], dict[str, frozenset[str]]], mid: str) -> frozenset[str]:
    """The footers of the mail `mid`: those of the player's other accepted mails (`_footprints`); asked only for a
    mail whose lines an input did not apply as written."""
    counts, own = learnt
    mine = own.get(mid, frozenset())
    return frozenset(k for k, n in counts.items() if n > (k in mine))


def known_words(doc: dict[str, Any]) -> set[str]:
    """The words of the export's inputs, in capitals (`set_aside`'s `known`)."""
    return {w.upper() for o in doc["orders"] for line in o["lines"] for w in _WORD.findall(str(line))}


def _folded(line: str) -> str:
    return " ".join(line.casefold().split())


def check_sent(
    doc: dict[str, Any],
    raws: Sequence[bytes],
    as_player: str | None = None,
    read: Reader | None = None,
    answers: Sequence[tuple[str, bytes]] = (),
    exact: Exact | None = None,
) -> SentCheck:
    """Check the mails a player sent (`raws`: their Sent folder) against the export `doc`, each read by `read`.
    `answers`: (the Message-ID it answers, the mail) of each of pbem's mails the player received with a receipt the
    game key signed (`pbem verify --mail` given too): what their acknowledgements quote of each mail (`_quoted`).
    `exact`: the poll's reading of a reply whose answered mail was received (`--mail` given too): its requests are
    read so, and its press blocks matched exactly (`asks_of`)."""
    c = SentCheck(ok=False)
    mails = _about_the_game(doc, raws, as_player, c)
    if not mails:
        return c
    player = _player(doc, mails, as_player)
    c.player, c.mails = player, len(mails)
    applied, refused = _compare(doc, mails, c, read)
    _read_early_all(doc, mails, c)
    _reordered(doc, mails, player, c)
    _unvouched(doc, mails, player, c)
    _quoted(mails, answers, c)
    replies = {m.message_id for m in mails if answering(m.mail())}
    asks, whole = asks_of(mails, _order_words(doc), exact)
    c.problems += asked.unasked(doc, list(mails), player, asks, replies, whole, c.notes)
    ours = {m.message_id for m in mails}
    for o in doc["orders"]:
        if o["player"] == player and o["message_id"] and _mid(o["message_id"]) not in ours:
            said = clip(str("; ".join(o["lines"]))) or "(nothing)"
            c.problems.append(
                f"INVENTED: input {o['seq']} ({said}) is said to come from your message <{_mid(o['message_id'])}>, "
                "which your Sent folder does not hold"
            )
    c.ok = not c.problems
    if c.ok:
        c.checked.append(
            f"{count(len(mails), 'mail')} {player} sent about the game: all in the export, {applied} applied as written "
            f"or accepted as commands, {refused} refused with their reasons; no input of {player} comes from elsewhere"
        )
    c.notes.append(
        "this proves the export against your Sent folder: mail you sent from elsewhere is not in it, so an input "
        "named INVENTED may be one of yours; the moderator's record of when it arrived is his word"
    )
    return c


def _about_the_game(doc: dict[str, Any], raws: Sequence[bytes], as_player: str | None, c: SentCheck) -> list[Sent]:
    """The player's mails about the game in `raws` (none, with the problem said in `c`, when they cannot be told).
    Of a kept folder (`Stored`) each keeps no bytes: it is read again when they are needed."""
    tag = visible(f"[pbem {doc['game']['name']}]").lower()
    mails = []
    for i, raw in enumerate(raws):
        try:
            m = parse_sent(raw)
        except (ValueError, LookupError, AssertionError):
            continue
        if tag in visible(m.subject).lower():
            mails.append(replace(m, raw=b"", again=raws.later(i)) if isinstance(raws, Stored) else m)
    senders = sorted({m.sender for m in mails})
    known = {str(p["name"]).lower(): str(p.get("address", "")).lower() for p in doc["players"]}
    if as_player:
        who = as_player.strip().lower()
        mails = [
            m for m in mails if m.sender in (who, known.get(who, "")) or m.sender in _addresses_of(doc, who, mails)
        ]
    elif len(senders) > 1:
        c.problems.append(
            f"the folder holds mail from {len(senders)} addresses ({', '.join(senders)}): choose with --as"
        )
        return []
    if not mails:
        c.problems.append(
            f"the folder holds no mail about game {doc['game']['name']}" + (f" from {as_player}" if as_player else "")
        )
    return mails


def _addresses_of(doc: dict[str, Any], who: str, mails: list[Sent]) -> set[str]:
    """The addresses a player (by name, lower case) sent from, when the export lists no addresses (the public
    export): the senders of the mails the export's `messages` attribute to them, and those whose From shows
    their name."""
    names = {n.lower() for n in seat_of(doc, next((n for n in readers(doc) if n.lower() == who), who))}
    theirs = {_mid(m["message_id"]) for m in doc["messages"] if str(m.get("player", "")).lower() in names}
    return {m.sender for m in mails if m.message_id in theirs or m.sender_name.lower() in names}


def _compare(doc: dict[str, Any], mails: list[Sent], c: SentCheck, read: Reader | None) -> tuple[int, int]:
    """Each sent mail against the export: dropped, substituted, refused without a reason.  (applied, refused)."""
    messages = {_mid(m["message_id"]): m for m in doc["messages"]}
    inputs: dict[str, list[dict[str, Any]]] = {}
    for o in doc["orders"]:
        if o["message_id"]:
            inputs.setdefault(_mid(o["message_id"]), []).append(o)
    words = _order_words(doc)
    deadlines = [
        (at, o) for o in doc["orders"] if o["kind"] in when.CUTOFFS and (at := when.iso(o.get("at"))) is not None
    ]
    delays = _delays(mails, messages)
    applied = refused = 0
    known = known_words(doc)
    learnt = _footprints(mails, messages, inputs)
    for m in mails:
        rec = messages.get(m.message_id)
        if rec is None:
            c.problems.append(
                f"DROPPED: {m.name} (Message-ID <{m.message_id}>) is not in the export: the moderator's record "
                "has no trace of it, neither applied nor refused. Unless your provider sent it back to you as "
                "undeliverable, it reached his server: send him this Message-ID and ask why"
            )
            continue
        held = _held_back(m, rec, deadlines, delays)
        if held:
            c.problems.append(held)
        wrote = (
            list(read(m.mail(), words))
            if read is not None
            else read_plain(m.text, m.subject, words, answering(m.mail()))
        )
        if rec["outcome"] in ("accepted", "held") and wrote and not inputs.get(m.message_id):
            said = clip("; ".join(wrote))
            if rec["outcome"] == "accepted" and set_aside(list(wrote), [], known, commands=True):
                c.notes.append(
                    f"{m.name} is marked accepted with no input: its lines ({said}) read as a footer or a closing, "
                    'which pbem sets aside as not orders under a command such as HELP (listed under "Not read as '
                    'orders")'
                )
            elif rec["outcome"] == "accepted":
                c.problems.append(
                    f"WITHHELD: {m.name} holds your orders ({said}) and is marked accepted, but no input of the "
                    "export applies it: your orders were left out"
                )
            else:
                c.notes.append(
                    f"{m.name} holds your orders ({said}) and is marked held until the deadline, but no input of the "
                    "export applies it: a later mail of yours replaced it, the deadline found them no longer legal, or "
                    "they were left out"
                )
            continue
        if rec["outcome"] in ("accepted", "held"):
            for o in inputs.get(m.message_id, []):
                applied_lines = [x for x in o["lines"] if not (o["kind"] == "join" and joining.signature_line([x]))]
                wrote = rejoined(wrote, applied_lines, m.text)  # "... German" / "States 2" read joined, as the poll
                aside = (
                    set_aside(list(wrote), applied_lines, known, footers=_others(learnt, m.message_id))
                    if applied_lines != list(wrote)
                    else []
                )
                if aside:
                    c.notes.append(
                        f"{m.name}: input {o['seq']} applied your orders without {clip('; '.join(aside))}, lines "
                        "that read as a footer or a closing, which pbem sets aside as not orders (its answer listed "
                        'them under "Not read as orders"), or repeat a line above them (read once, its answer noted)'
                    )
                elif o["kind"] in ("orders", "join") and applied_lines != list(wrote):
                    c.problems.append(
                        f"SUBSTITUTED: {m.name}: you wrote {clip(str('; '.join(wrote))) or '(no orders)'}, the export "
                        f"applied input {o['seq']}: {clip(str('; '.join(o['lines']))) or '(nothing)'}"
                    )
            applied += 1
        else:
            if not (rec.get("reason") or "").strip() and doc.get("audience") == "public":
                c.notes.append(
                    f"{m.name} is marked {clip(str(rec['outcome']))}; the public export gives no reasons (they are "
                    "for the moderator and the sender): your own export (pbem export NAME --as YOU) shows it"
                )
            elif not (rec.get("reason") or "").strip():
                c.problems.append(
                    f"REFUSED WITHOUT A REASON: {m.name} is marked {clip(str(rec['outcome']))}, with no reason given"
                )
            else:
                wrote_said = f"; it held your orders {clip('; '.join(wrote))}" if wrote else ""
                why = clip(grouped(str(rec["reason"])), 200)
                c.refusals.append(f"{m.name} is marked {clip(str(rec['outcome']))}: {why}{wrote_said}")
            refused += 1
    return applied, refused


SUBJECT_CHARS = 200  # as `pbem.app.answers.LINE_CHARS`: the subject an acknowledgement quotes
_ACK_FIRST = re.compile(r'\AYour message "(.{0,400})" for game "(?:.{1,200})" was read\.')
_ASIDE = "Not read as orders (set aside:"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
#: A note quoting a line of the player's message: '"LINE": why' or '"LINE" was ...' (`pbem.orders.extract`, the
#: absence's, `pbem.app.lines.replaced`); LINE is read up to the last quote before the note goes on.
_NOTE = re.compile(r'\A  NOTE "(.{1,400})"(?::| was) ')


def _said(text: str) -> tuple[str, list[str]] | None:
    """(the subject an acknowledgement's text quotes, the lines it lists as not read as orders); None for a mail that
    acknowledges no message (linear in the text)."""
    rows = [row.rstrip() for row in text.split("\n")]
    found = next(((i, m) for i, row in enumerate(rows) if (m := _ACK_FIRST.fullmatch(row))), None)
    if found is None:
        return None
    at, subject = found[0], found[1][1]
    aside: list[str] = []
    start = next((i for i in range(at, len(rows)) if rows[i].startswith(_ASIDE)), None)
    for row in rows[start + 1 :] if start is not None else []:
        if not row.startswith("    ") or row.startswith("    ... and "):
            break
        aside.append(row[4:])
    # a note that quotes a line of the message ('  NOTE "CODE is K7QX": write the code alone ...'): its line
    aside += [m[1] for row in rows[at:] if (m := _NOTE.match(row))]
    return subject, aside


def _flat(text: str) -> str:
    return " ".join(_CONTROL.sub(" ", text).split())


CODE_MASK = "[code]"  # as `pbem.mail.inbound.redact.REPLACEMENT`: a code in a mail pbem read is quoted back so


def _holds(wrote: str, said: str, whole: bool = False) -> bool:
    """Whether `wrote` holds the words `said` (`whole`: is them), where pbem quoted a code as `CODE_MASK`: the pieces
    between the masks, in order (pbem never echoes a code, so the words it stood for are not compared)."""
    if CODE_MASK not in said:
        return said == wrote if whole else said in wrote
    pieces, at = said.split(CODE_MASK), 0
    for k, piece in enumerate(pieces):
        found = wrote.find(piece.strip(), at)
        if found < 0 or (whole and k == 0 and not wrote.startswith(piece)):
            return False
        at = found + len(piece.strip())
    return not whole or not pieces[-1] or wrote.endswith(pieces[-1])


def _quoted(mails: list[Sent], answers: Sequence[tuple[str, bytes]], c: SentCheck) -> None:
    """What pbem's answers to each sent mail quote of it, against the mail: the subject its acknowledgement quotes
    ('Your message "..."') must be the mail's (as pbem quotes it: control characters and runs of blanks as one
    space, at most `SUBJECT_CHARS`), and each line it lists as "not read as orders" must be words the mail holds
    (its plain text, blanks as one space; a line cut at `SUBJECT_CHARS` by its start; a code pbem quoted as
    `CODE_MASK` stands for any words), as must each line a note quotes ('NOTE "line": ...').  They were the moderator's word (sixth round): an answer quoting a subject, a
    remark or a line the player never wrote is named."""
    from pbem.trust.told import plain

    by_id = {m.message_id: m for m in mails}
    for answered, raw in answers:
        m = by_id.get(_mid(answered))
        said = _said(plain(raw)) if m is not None else None
        if m is None or said is None:
            continue
        subject, aside = said
        wrote = _flat(m.subject)
        wrote = wrote if len(wrote) <= SUBJECT_CHARS else wrote[: SUBJECT_CHARS - 1] + "\u2026"
        if not _holds(wrote, _flat(subject), whole=True):
            got, want = apart(_flat(subject), wrote)
            c.problems.append(
                f"QUOTED OTHERWISE: pbem's answer to {m.name} quotes its subject as {got}, but you wrote {want}: that "
                "answer is not what pbem writes (its text is not signed: keep it as your evidence)"
            )
        body = _flat(m.text)
        for line in aside if body else []:
            words = _flat(line)
            words = words[:-1] if words.endswith("\u2026") and len(line) >= SUBJECT_CHARS else words
            if words and not _holds(body, words):
                c.problems.append(
                    f"QUOTED OTHERWISE: pbem's answer to {m.name} quotes {quote(line)} as a line of yours (not read "
                    "as orders, or in a note), but your mail holds no such words: that answer is not what pbem writes "
                    "(its text is not signed: keep it as your evidence)"
                )
                break


def _delays(mails: list[Sent], messages: dict[str, dict[str, Any]]) -> list[tuple[str, timedelta]]:
    """Per mail dated only by the player's client: how long after its Date the export records it as arrived."""
    out = []
    for m in mails:
        stamp = m.left
        arrived = when.iso((messages.get(m.message_id) or {}).get("received"))
        if stamp is not None and stamp.source == "client" and arrived is not None:
            out.append((m.message_id, arrived - stamp.at))
    return out


def _held_back(
    m: Sent, rec: dict[str, Any], deadlines: list[tuple[datetime, dict[str, Any]]], delays: list[tuple[str, timedelta]]
) -> str:
    """HELD BACK, when the export records `m` as arrived after a deadline input that fell well after it was sent:
    sent by the provider's stamp on the Sent copy, else by its Date allowing for a client clock behind."""
    stamp = m.left
    arrived = when.iso(rec.get("received"))
    if stamp is None or arrived is None:
        return ""
    slack = when.clock_slack(delays, m.message_id) if stamp.source == "client" else timedelta(0)
    sent = stamp.at + slack
    crossed = next(((at, o) for at, o in deadlines if sent + HELD_BACK < at < arrived), None)
    if crossed is None:
        return ""
    at, o = crossed
    hours = (at - sent).total_seconds() / 3600
    allowing = (
        f" (allowing for your clock being up to {slack.total_seconds() / 3600:.1f} hours behind, as your other mails "
        "took at least that long by the export's account)"
        if slack
        else ""
    )
    evidence = (
        "your provider stamped it, and the moderator cannot change your copy"
        if stamp.source == "provider"
        else "this rests on your mail program's clock: check it was right, or look at your provider's copy of the "
        "mail (its Received lines or DKIM t=) for when it left"
    )
    return (
        f"HELD BACK: {m.name} was sent {stamp.said}, {hours:.1f} hours before {when.cutoff(o)} "
        f"({clip(str(o['at']))}){allowing}, but the export records it as arrived at "
        f"{clip(str(rec.get('received')))}, after it: {when.CUTOFFS[o['kind']]} while it waited. Mail takes "
        f"minutes; {evidence}; ask the moderator where it waited"
    )


def _read_early_all(doc: dict[str, Any], mails: list[Sent], c: SentCheck) -> None:
    messages = {_mid(m["message_id"]): m for m in doc["messages"]}
    c.notes += [early for m in mails if m.message_id in messages and (early := _read_early(m, messages[m.message_id]))]


def _read_early(m: Sent, rec: dict[str, Any]) -> str:
    """A WARNING when the export records `m` as read more than `HELD_BACK` before its provider stamped it as leaving
    (DKIM t= or Received): `received` is the moderator's word, and UNASKED's windows (`pbem.trust.asked`) rest on
    it, so moving a mail's time earlier could put an old request into a forged entry's window; later is HELD BACK's.
    A warning: a provider's clock, or the moderator's, can be wrong (fairness24)."""
    stamp, read = m.left, when.iso(rec.get("received"))
    if stamp is None or stamp.source != "provider" or read is None or read >= stamp.at - HELD_BACK:
        return ""
    hours = (stamp.at - read).total_seconds() / 3600
    return (
        f"WARNING: {m.name} left {stamp.said}, but the export records it as read at {clip(str(rec.get('received')))}, "
        f"{hours:.1f} hours before it was sent: the time the moderator read it is his word, and a mail dated back so "
        "could be taken for a request you made later; unless a clock was wrong, ask him"
    )


def _unvouched(doc: dict[str, Any], mails: list[Sent], player: str, c: SentCheck) -> None:
    """A WARNING per mail of the player's that an input applies, whose Sent copy carries their provider's DKIM
    signature, but of which the export keeps no evidence where it shows evidence (the moderator's export, the
    player's own, any once the seed is out).  pbem keeps the evidence of every signed mail at arrival, even one that
    fails, so an applied mail without it was left out of the export (fairness13: a record dated back, its evidence
    taken out, was contradicted by nothing `pbem verify` read), unless a server on its way removed the signature."""
    if not (doc.get("seed") or doc.get("audience") in ("moderator", player)):
        return
    kept = {_mid(e.get("message_id")) for e in doc.get("evidence") or [] if isinstance(e, dict)}
    applied = {_mid(o["message_id"]): o["seq"] for o in doc["orders"] if o.get("message_id")}
    unkept = Alike("signed mails an input applies with no DKIM evidence in the export")  # at most `ALIKE` (costs19)
    for m in mails:
        if m.left is not None and m.left.signed and m.message_id in applied and m.message_id not in kept:
            if not unkept.room(m.name):
                continue
            unkept.lines.append(
                f"WARNING: {m.name} was signed by your provider (its Sent copy carries their DKIM signature, "
                f"d={clip(m.left.signed, 80)}), and input {applied[m.message_id]} applies it, but the export keeps no "
                "DKIM evidence of it (pbem keeps the signature of every signed mail it reads): the moderator left "
                "it out, or a server on its way removed the signature. Without it the export's record of that "
                "input, and its date, rest on the moderator's word and your Sent folder"
            )
    c.notes += unkept.out()


def _reordered(doc: dict[str, Any], mails: list[Sent], player: str, c: SentCheck) -> None:
    """REORDERED: two of the player's mails applied in the other order than they were sent, the later sent
    applied first (so the earlier one's orders won).  Both times are of one kind (provider stamps, else the
    same client's Dates: one clock, whatever its error); mail overtaking mail in transit takes minutes, so a gap
    under `HELD_BACK` is a note, over it a problem."""
    by_id = {m.message_id: m for m in mails}
    stamps = {mid: m.left for mid, m in by_id.items()}
    if all(s is not None and s.source == "provider" for s in stamps.values()):
        times = {mid: s.at for mid, s in stamps.items() if s is not None}
        by = "by your provider's stamps"
    else:  # the same client's Dates: one clock, whatever its error
        times = {mid: d for mid, m in by_id.items() if (d := when.date_of(m.date)) is not None}
        by = "by their Dates (your mail program's clock; if you wrote from two devices, both clocks)"
    latest: tuple[datetime, dict[str, Any]] | None = None
    for o in sorted(doc["orders"], key=lambda o: o["seq"]):
        mid = _mid(o["message_id"]) if o["player"] == player and o["message_id"] else ""
        at = times.get(mid)
        if at is None:
            continue
        if latest is not None and at < latest[0] - when.TRANSIT:
            first, gap = latest[1], latest[0] - at
            text = (
                f"{by_id[mid].name} was sent {gap.total_seconds() / 60:.0f} minutes {by} before "
                f"{by_id[_mid(first['message_id'])].name}, but the export applied it after it (input {o['seq']} "
                f"after input {first['seq']}): where both gave orders for one step, your earlier orders replaced "
                "your later ones"
            )
            if gap > HELD_BACK:
                c.problems.append(f"REORDERED: {text}. Mail takes minutes: ask the moderator")
            else:
                c.notes.append(f"{text} (mail can overtake other mail by minutes)")
        if latest is None or at > latest[0]:
            latest = (at, o)


def asks_of(
    mails: Sequence[Sent], words: tuple[str, ...], exact: Exact | None = None
) -> tuple[dict[str, set[str]], frozenset[str]]:
    """(what each mail asks of a resignation, an address move, a press or an absence (`pbem.trust.asked`), by
    Message-ID; the Message-IDs of the replies read as the poll read them, by `exact`).  Only the mails whose text
    names RESIGN, ADDRESS, PRESS or AWAY are read (case folded), an HTML-only one by its HTML part's text.  A reply
    whose answered mail was received is read by `exact` (the copies of pbem's mail removed, as the poll did): its
    press blocks are then the poll's, and `asked._written`'s loose reading is not needed for it (fairness26)."""
    out: dict[str, set[str]] = {}
    whole: set[str] = set()
    for m in mails:
        folded = m.text.lower()
        if m.text and not any(word in folded for word in ("resign", "address", "press", "away")):
            continue
        ex = _exactly(exact, m, words)
        if ex is not None:
            out[m.message_id] = asked.requests_of(ex)
            whole.add(m.message_id)
            continue
        page = ""
        if not m.text:
            try:
                part = read_mail(m.mail()).get_body(("html",))
                page = content_text(part) if part is not None else ""
            except (LookupError, ValueError):
                page = ""
        out[m.message_id] = asked.requests(m, words, answering(m.mail()), page)
    return out, frozenset(whole)


def _exactly(exact: Exact | None, m: Sent, words: tuple[str, ...]) -> Extracted | None:
    if exact is None or not (m.raw or m.again) or not answering(m.mail()):
        return None
    try:
        return exact(m.mail(), words)
    except Exception:  # a mail the poll's reading cannot take is read from its Sent copy, as before
        return None


def _player(doc: dict[str, Any], mails: list[Sent], as_player: str | None) -> str:
    """The player's name in the export: by --as, else by the sender's address or the messages they sent."""
    names = {str(p["name"]).lower(): str(p["name"]) for p in doc["players"]}
    if as_player and as_player.strip().lower() in names:
        return names[as_player.strip().lower()]
    by_address = {str(p.get("address", "")).lower(): str(p["name"]) for p in doc["players"] if p.get("address")}
    if mails[0].sender in by_address:
        return by_address[mails[0].sender]
    ids = {m.message_id for m in mails}
    for rec in doc["messages"]:
        if _mid(rec["message_id"]) in ids and rec.get("player"):
            return str(rec["player"])
    return as_player or mails[0].sender


def lines(c: SentCheck) -> list[str]:
    out = [f"ok: {line}" for line in c.checked] + [f"note: {line}" for line in c.notes]
    out += [f"refused: {line}" for line in c.refusals[:SHOWN]]
    if len(c.refusals) > SHOWN:
        out.append(f"refused: ... and {len(c.refusals) - SHOWN} more of your mails")
    out += [f"MISMATCH: {p}" for p in c.problems[:SHOWN]]
    if len(c.problems) > SHOWN:
        out.append(f"... and {len(c.problems) - SHOWN} more")
    return out
