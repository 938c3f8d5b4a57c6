"""What a reply is an answer to: the mail pbem sent that it names, for its authentication and its reading.

`reply_of`: the mail among the message's references that pbem sent to the sender's seat, which
authenticates the message without a code (`pbem.mail.inbound.replies`).  `own_text`: the message's text
without any copy of the mails pbem sent this address in this game that it names (`pbem.orders.own_mail`),
so that a quoted acknowledgement is never read as new orders, under whatever client's header block.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from html import unescape
from typing import Any, cast

from pbem.app import notify, views
from pbem.app.named import Answered, Named
from pbem.mail.inbound.message import BLOCK_TAGS, CELL_TAGS, Inbound, parse, parse_bytes, subject_of
from pbem.mail.inbound.replies import SentMail, answered, looked_up
from pbem.mail.outbound.bodies import text_bodies
from pbem.mail.outbound.outgoing import REDACTED
from pbem.orders.extract import Extracted, extract, own_line, subject_line, tagged
from pbem.orders.own_mail import bold_texts, changed_note, without_copies
from pbem.orders.own_quotes import mine_quoted, read_alone
from pbem.record import modes, store
from pbem.record.answered import sent_mails
from pbem.record.db import Unit
from pbem.record.rows import Game, Seat
from pbem.record.store import Loaded

MAX_ANSWERED = 3  # sent mails whose copies are looked for in one message (the newest it names)


def reply_of(msg: Inbound, sent: dict[str, SentMail], loaded: Loaded, seat: Seat | None) -> SentMail | None:
    """The mail pbem sent to `seat` that `msg` answers (so `msg` needs no code), or None."""
    if seat is None or loaded.game.id is None or not sent:
        return None
    return answered(
        msg.references, sent, game_id=loaded.game.id, player=seat.player, address=seat.address, since=seat.created_at
    )


def answered_other(sent: dict[str, SentMail], loaded: Loaded, seat: Seat | None) -> str:
    """The player of this game another seat's mail that a message answers went to ("" if none): a reply to a
    report forwarded by, or shared with, another player needs that player's code, and is told why."""
    if seat is None:
        return ""
    return next(
        (m.player for m in sent.values() if m.game_id == loaded.game.id and m.player and m.player != seat.player), ""
    )


def answered_before(sent: dict[str, SentMail], loaded: Loaded, seat: Seat | None) -> str:
    """When a message answers a mail this game sent this seat before its current code (a new code, or the
    seat replaced): when that code was given ("" if not so), to tell the player why the reply needs it."""
    if seat is None or seat.created_at is None:
        return ""
    since = seat.created_at.replace(tzinfo=None)
    mine = (m for m in sent.values() if m.game_id == loaded.game.id and m.player == seat.player)
    if any(m.created_at is not None and m.created_at.replace(tzinfo=None) < since for m in mine):
        return f"{since:%Y-%m-%d %H:%M} UTC"
    return ""


def sent_texts(raw: bytes) -> list[str]:
    """The texts a copy of a mail pbem sent may take: its plain part and its HTML part flattened to words.

    pbem composed `raw` itself (`pbem.mail.outbound.compose`), so its two bodies are read by its MIME
    boundaries (`pbem.mail.outbound.bodies`: the parts' headers only, never the lines of its pictures), as
    `get_body` finds them in pbem's layout (alternative, its HTML part perhaps inside a related part).
    Only the words of these texts count (`pbem.orders.own_mail`), so the HTML part is flattened by
    `html_words`, which yields the words `html_to_text` does at a tenth of its cost."""
    return _texts(_parts(raw))


def _parts(raw: bytes) -> dict[str, str]:
    """The text bodies of a mail pbem composed (`sent_texts`), by kind ("plain", "html"); none if unreadable."""
    try:
        return dict(text_bodies(raw))
    except Exception:
        return {}


def _texts(found: dict[str, str]) -> list[str]:
    return [html_words(found[kind]) if kind == "html" else found[kind] for kind in ("plain", "html") if kind in found]


_UNSHOWN = re.compile(r"<!--.*?-->|<![^>]*>|<\?[^>]*>|<(script|style|head)\b.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
_TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9]*)\b[^<>]*>")  # no "<" inside a tag: an unclosed one is tried once
# the tags `_TAG` reads whose name is one of BLOCK_TAGS (in any ASCII case: no IGNORECASE, which folds more)
_BLOCK_TAG = re.compile(
    r"</?(?:"
    + "|".join("".join(f"[{c}{c.upper()}]" if c.isalpha() else c for c in t) for t in sorted(BLOCK_TAGS))
    + r")\b[^<>]*>"
)
_CELL_END = re.compile(  # the end tags of CELL_TAGS, a tab in the text as in `html_to_text`'s
    r"</(?:" + "|".join("".join(f"[{c}{c.upper()}]" for c in t) for t in sorted(CELL_TAGS)) + r")\b[^<>]*>"
)


def html_words(html: str) -> str:
    """A text with the words, in order, that `html_to_text` finds in pbem's own HTML (tests/test_sent_texts.py
    checks it on every mail of a game): what is never shown (comments, declarations, head, style, script) dropped, a line
    break for each block tag, nothing for an inline one (its words run on, as the parser's do), entities
    decoded, a tab for a cell's end tag.  pbem wrote this HTML: its tags never hold a bare ">" inside an
    attribute."""
    text = _UNSHOWN.sub("", html)
    if "<<" in text or "<>" in text:  # a tag could start right after a bare "<": one pass, tag by tag
        return unescape(_TAG.sub(_flat, text))
    text = _CELL_END.sub("\t", text) if "</" in text else text
    # Two passes in C, no call per tag: each block tag becomes "<>" (never a tag, and it stops `_TAG`'s
    # "[^<>]*" as the tag did), the other tags go, then each "<>" becomes the line break.  A tag of the text is a
    # tag of the first pass's text and no other is (no tag holds "<"); with no "<<" nor "<>" in the text, every
    # "<>" left is a block tag's.
    text = _TAG.sub("", _BLOCK_TAG.sub("<>", text)).replace("<>", "\n")
    return unescape(text)


def _flat(m: re.Match[str]) -> str:
    """What a tag of pbem's HTML stands for in its text: a line break (a block), a space (a cell's end), nothing."""
    name = m.group(1).lower()
    return "\n" if name in BLOCK_TAGS else "\t" if name in CELL_TAGS and m.group(0).startswith("</") else ""


def own_text(
    msg: Inbound,
    sent: dict[str, SentMail],
    game_id: int | None,
    words: tuple[str, ...] | None = None,
    changed: list[tuple[str, str]] | None = None,
) -> str:
    """`msg.text` without the copies of pbem's mails to its sender that it names (`_mine`; naming none, its own
    quoted orders unquoted all the same: `mine_quoted`); a line
    that starts with one of the game's order `words` (every game's: None) or a command is the sender's own.  Each
    quoted line of pbem's the sender changed into another order is added to `changed` (`without_copies`)."""
    if game_id is None:
        return msg.text
    parts = [_parts(m.raw) for m in _mine(msg, sent, game_id)] if sent else []
    texts = [t for found in parts for t in _texts(found) if t]
    plain = [found["plain"] for found in parts if found.get("plain")]  # laid out as sent, line by line
    if not texts:  # a fresh mail (the code in it): its own "> PASS" is read as a reply's is
        return mine_quoted(msg.text, own_line(words))
    bold = (t for found in parts for t in bold_texts(found.get("html", "")))  # read only if a line is starred
    return without_copies(msg.text, texts, own_line(words), plain, changed, REDACTED, mine_quoted=True, bold=bold)


def pbems_title(msg: Inbound, sent: dict[str, SentMail], game_id: int | None) -> Callable[[str], bool]:
    """`extract`'s `pbems`: whether a subject line (after the game tag) is the title of one of the mails pbem sent
    `msg`'s sender that it names.  A reply keeps the subject it answers: with no order in its body, the
    invitation's "Join the game: reply JOIN" was read as the player's JOIN line and refused as one."""

    titles: list[str] = []  # read once, on the first question: white space folded (a long subject is folded)

    def pbems(line: str) -> bool:
        if not titles:
            titles.extend(" ".join(subject_line(_subject(m.raw)).split()) for m in _mine(msg, sent, game_id))
        return " ".join(line.split()) in titles

    return pbems


def _mine(msg: Inbound, sent: dict[str, SentMail], game_id: int | None) -> list[SentMail]:
    """The mails pbem sent `msg`'s sender that it names, the newest first, MAX_ANSWERED at most: of any game (a
    player of two games who answers one's report with the other's tag in the subject had that report, pasted under
    a header block no rule knows, read as orders of the subject's game; `pbem verify`'s reading, which knows no
    game, removed it), those of game `game_id` first."""
    named = [r for r in looked_up(msg.references) if r in sent and sent[r].to_addr.lower() == msg.sender.lower()]
    return sorted((sent[r] for r in named), key=lambda m: m.game_id != game_id)[:MAX_ANSWERED]


def _subject(raw: bytes) -> str:
    """The Subject of a mail pbem wrote, decoded as a reply's is (its header block only is read)."""
    cut = min((i for i in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if i >= 0), default=len(raw))
    return subject_of(raw[:cut] + b"\r\n\r\n")


def mailing_facts(s: Unit, loaded: Loaded) -> dict[str, Any]:
    """The game's mail modes, and for players in DIGEST mode when their last report went out (`intake.Facts`)."""
    assert loaded.game.id is not None
    mailing = modes.mailing(s, loaded.game.id)
    digest = [p for p in views.players(loaded) if mailing.players.get(p, mailing.default) == notify.DIGEST]
    return {"mailing": mailing, "last_reports": modes.last_reports(s, loaded.game.id, digest) if digest else {}}


def answered_mails(
    s: Unit, msg: Inbound, game: Game | None, words: tuple[str, ...] | None = None
) -> tuple[dict[str, SentMail], str, list[str]]:
    """The mails pbem sent that `msg` names (in game `game`, whose order words are `words`), `msg`'s text without
    copies of them, and a note for each quoted line of theirs the sender changed into another order (not read)."""
    sent = sent_mails(s, msg.references) if (game is not None and msg.references) else {}
    changed: list[tuple[str, str]] = []
    text = own_text(msg, sent, game.id if game else None, words, changed)
    return sent, text, [changed_note(line, was) for line, was in changed]


def stored_orders(s: Unit, raw: bytes, game_id: int, words: tuple[str, ...]) -> tuple[str, ...]:
    """The order lines of a message the record kept (`raw`, its redacted copy), read again exactly as the poll
    read them when it came: without the copies of pbem's mails it answers.  A message held for the deadline
    is applied from this reading, and "on file" shows it; read from its whole text instead, an Outlook reply
    under a header block no rule knows had the copied report's order lines applied with the player's own
    (and refused whole for them), though its acknowledgement had quoted only the player's lines."""
    m = parse(raw)
    return _orders(m, sent_mails(s, m.references) if m.references else {}, game_id, words)


def _orders(m: Inbound, sent: dict[str, SentMail], game_id: int, words: tuple[str, ...]) -> tuple[str, ...]:
    """`m`'s order lines as the poll reads them (`decide_and_apply`): copies of the `sent` mails it names removed, a
    subject that repeats their title not read."""
    return tuple(extracted(m, sent, game_id, words).orders)


def extracted(m: Inbound, sent: dict[str, SentMail], game_id: int, words: tuple[str, ...]) -> Extracted:
    """`m` read as the poll reads it (`decide_and_apply`), its notes too: each quoted line of pbem's changed.  A mail
    naming none of the `sent` mails is read by `read_alone`, as `pbem verify`'s readers given no received mail read
    it (tests/test_replies11_players.py checks the poll's reading of such a mail is the same)."""
    if not _mine(m, sent, game_id):
        return read_alone(m.text, m.subject, words, bool(m.references))
    changed: list[tuple[str, str]] = []
    ex = read_text(own_text(m, sent, game_id, words, changed), m, sent, game_id, words)
    ex.problems += [changed_note(line, was) for line, was in changed]
    return ex


def read_text(
    text: str, m: Inbound, sent: dict[str, SentMail], game_id: int | None, words: tuple[str, ...] | None
) -> Extracted:
    """`text`, `m`'s own (`own_text`), read: its subject read where it is no title of the `sent` mails it names, a
    label naming a step checked by the title of the newest of them of game `game_id` (`answered_title`)."""
    subject = tagged(m.subject) if _mine(m, sent, game_id) else m.subject  # "Help", answering a report: read
    return extract(text, subject, words, pbems_title(m, sent, game_id), answered_title(m, sent, game_id))


def named_game(s: Unit, msg: Inbound, registered: bool) -> tuple[Inbound, Game | None]:
    """The game of a registered sender's `msg`: the one its subject's tag names; for a reply whose subject names
    none ("Help", "PASS", a client that dropped the tag), that of the newest mail of pbem's to its sender it names
    (its In-Reply-To first), `msg` given its name.  It was answered that its subject named no game; the reply
    proves the seat as a tagged one does (`pbem.mail.inbound.replies.answered`)."""
    if not registered or msg.game:
        return msg, (store.game_by_name(s, msg.game) if (msg.game and registered) else None)
    sent = sent_mails(s, msg.references) if msg.references else {}
    named = [sent[r] for r in looked_up(msg.references) if r in sent and sent[r].to_addr.lower() == msg.sender.lower()]
    game = store.game_by_id(s, named[0].game_id) if named and named[0].game_id is not None else None
    return (replace(msg, game=game.name) if game is not None else msg), game


def answered_title(msg: Inbound, sent: dict[str, SentMail], game_id: int | None) -> Callable[[], str]:
    """`extract`'s `answers`: the title (the subject after the game's tag) of the newest mail of game `game_id` pbem
    sent `msg`'s sender that it names; of a reply naming none of them, its own subject's ("Re: [pbem g1] Turn 4, Alice
    to play": `pbem verify` given none of the player's received mail reads a reply as the poll did); "" for a fresh
    mail.  Read once, on the first question."""
    found: list[str] = []

    def title() -> str:
        if not found:
            mine = [m for m in _mine(msg, sent, game_id) if m.game_id == game_id] if sent else []
            found.append(subject_line(_subject(mine[0].raw) if mine else msg.subject if msg.references else ""))
        return found[0]

    return title


#: How a verifier reads a player's mail: its raw bytes and the game's order words -> the order lines.
MailReader = Callable[[bytes, tuple[str, ...]], tuple[str, ...]]


def mail_reader(received: Iterable[bytes] = ()) -> MailReader:
    """How `pbem verify` reads the order lines of a mail a player sent (from their Sent folder, or the copy their
    provider signed): exactly as the poll read it.  `message.parse` chooses the text (the HTML part of a mail
    whose text part is empty or missing), and the copies of the mails it names among `received` (the player's
    received mail: pbem's mails to them, as they got them) are removed.  Read from its plain part alone and with
    the copies, an honest history was called SUBSTITUTED for an HTML-only Outlook reply and for one pasted
    under a header block no rule knows."""
    from pbem.trust.receipts import names  # not imported by a poll, which never verifies

    named: list[tuple[str, str, bytes]] = []
    for raw in received:
        try:
            name = names(parse_bytes(raw, headersonly=True))
        except Exception:  # a mail that cannot be read names nothing
            continue
        if name is not None:
            named.append((*name, raw))
    return named_reader(named)


def named_reader(named: Iterable[Named]) -> MailReader:
    """`mail_reader` of received mails whose headers were read already (`pbem.trust.receipts.Folder.named`: `pbem
    verify --mail` reads each folder's headers once): (Message-ID, To address, the mail) each."""
    answered = cast(dict[str, SentMail], Answered(named))  # a kept folder's mail read when named

    def read(raw: bytes, words: tuple[str, ...]) -> tuple[str, ...]:
        return _orders(parse(raw), answered, 0, words)

    return read
