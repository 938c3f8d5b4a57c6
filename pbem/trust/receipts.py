"""`pbem verify EXPORT --mail PATH`: a player's own mailbox checked against a published history.

Every mail pbem sends about a game carries its receipt (`pbem.mail.outbound.outgoing.Receipt`):

- ``X-Pbem-Record: <entries> <head>``: to a player, the number of entries of the
  game's chained record that player may see (their own inputs, the moderator's
  and the deadline's, events public or visible to them) when the mail was
  rendered, and `head` the chain's hash right after the newest of them
  (`pbem.record.reader_view`: another player's secret actions move neither); to
  the moderator, all entries and the head (`pbem.trust.chain`);
- ``X-Pbem-Input: <seq> <hash>`` on the acknowledgement of accepted orders (or a JOIN)
  and on the notices of held orders or defaults applied at a deadline: the input
  recorded for the player, and that input's hash;
- ``X-Pbem-Commitment: <hex>`` on a report stating the seed commitment (the first one).

The checks, each over the mail of one player (`pick`) and one export:

1. the commitment in the player's reports equals the export's;
2. every head the player received lies on the export's chain at its position: the
   player's n-th visible entry (or entry n, for mail from before receipts were
   counted per reader); the chain recomputed from the export's entries, never
   from the hashes it states;
3. every input the player was acknowledged is in the export unchanged: the
   recomputed hash of the export's input at that seq is the acknowledged one.

4. every line a report lists as happened is an event the reader may see, recorded by
   its head (`pbem.trust.told`: the signature covers the receipt, not the text);
5. once the seed is revealed, every report's tables, pictures (`pbem.trust.pictured`) and prose
   (`pbem.trust.prose`) are the reader's view of the game replayed to its head (`pbem.trust.shown`);
6. no deadline's defaults were applied before the deadline a report with an earlier head
   stated (`pbem.trust.due`: pbem never moves a deadline back);
7. the player's mail of another game signed for this one's kind, options and players (the
   same game started again under another name, or a rematch) is named (`pbem.trust.restarts`);
8. the lines an acknowledgement quotes as applied are the lines of the input its receipt names, and once the seed
   is revealed what it says the engine understood of them is the replay's (`pbem.trust.acked`); what it says
   became of the message it answers (applied, or refused and which lines) is what the export records (`_answered`).
9. every moderator's message to every player (`pbem game say`) the player was mailed is one the export records,
   word for word (`_messages`).
10. once the seed is revealed, the reasons an acknowledgement gives for refusing the player's lines ("NOTHING WAS
   APPLIED") are pbem's reading of the lines it quotes at the replayed state (`pbem.trust.refused`, with the
   reading the command passes in, `pbem.app.rereading.refused`), and the orders on file and who is awaited an
   acknowledgement lists are the state's it was written from (`_refusals`, `_statuses`); a refusal that quotes only
   its first lines, with the player's Sent folder (`wrote`), pbem's reading of every line of the mail.
11. a JOIN's acknowledgement says what the join step folded from the record gives: the seat and salt of the input
   its receipt names, whether the player had joined, why a line was refused, who is awaited (`_joins`,
   `pbem.trust.joined`); an acknowledgement of orders held until the deadline quotes and lists as on file the lines
   the deadline applied for its message (`_held`); each "Press sent to" note is a press the export records (`_press`).
12. an answer whose receipt names an input answers the message that input came from (`_from`), and is one of the
   mails pbem writes with a receipt (`_formed`).
13. once the seed is revealed, orders held until the deadline that it never applied are ones pbem's reading refuses
   at the state the deadline met (`pbem.trust.dropped`); each "Press not sent: WHY" is the reason pbem's reading of
   the names it quotes gives (`pbem.trust.pressed`); what nothing can compare is named in a note (`_unread`,
   `_unsent`, a running game's export).

A mismatch names the mail (its date and subject) and the entry, and where
the player's heads allow, the span of entries where the histories part.
The newest receipt is printed as the "Record #N, HEAD..." line its report ends with
(`_newest`): players compare that line, not their mail, once the game is over.

For a game with a signing key (`pbem.trust.signing`, the export's `game.key`)
only receipts signed by that key are checked: a mail without a valid signature
(made up by anyone, or altered) is counted and reported, never trusted, so it
cannot make an honest export fail.  But receipts for the game validly signed by a second key beside the
export's are a mismatch (`_two_keys`): pbem never changes a game's key, and a moderator who re-keyed the game
would otherwise disown every receipt signed under the invitation's key.  A signed head that disagrees with the
export is proof, and `split` compares the signed heads of several players'
mailboxes with one another: two different heads at the same position, both
signed by the game key, prove that the moderator showed them different histories.
A mail is about the game when its subject holds the tag "[pbem NAME]" (invisible
format characters removed first) or its receipt is signed for the game.
Everything here is pure but `read_folder` (a Maildir, an mbox file or a folder of .eml files).
"""

from __future__ import annotations

import heapq
import mailbox
import os
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from email.header import decode_header, make_header
from email.message import Message
from email.parser import BytesHeaderParser
from email.utils import getaddresses, parsedate_to_datetime
from functools import partial
from pathlib import Path
from typing import Any

from pbem import engine as registry
from pbem.engine.words import count
from pbem.mail.outbound.outgoing import BINDINGS_HEADER, COMMITMENT_HEADER, INPUT_HEADER, RECORD_HEADER
from pbem.trust import (
    acked,
    arrived,
    chain,
    dkim,
    dropped,
    due,
    folded,
    hint_markup,
    joined,
    leaked,
    noticed,
    paced,
    pictured,
    pressed,
    prose,
    refused,
    resigns,
    restarts,
    shown,
    signing,
    told,
)
from pbem.trust import partial as partial_export
from pbem.trust.addresses import MAX_FIELD, MAX_NESTED, MAX_PARTS, addresses, field_too_long, too_many_parts, too_nested
from pbem.trust.quote import Alike, clip
from pbem.trust.stored import Stored

SHOWN = 6  # mismatches listed (the earliest first) before "and N more"


@dataclass(frozen=True)
class Received:
    """What `verify --mail` reads of one mail: where it went, and the receipts it carries."""

    date: str
    subject: str
    to: str  # the address, lower case
    to_name: str
    record: tuple[int, str] | None = None
    input: tuple[int, str] | None = None
    commitment: str | None = None
    bindings: str | None = None  # X-Pbem-Bindings: which checks the game promises (its first word, the mark)
    sort_key: float = 0.0  # the Date as a timestamp (0 when missing or unreadable)
    key: str | None = None  # X-Pbem-Key, X-Pbem-Game, X-Pbem-Signature (a signed receipt)
    game_header: str | None = None
    signature: str | None = None
    raw: bytes = field(default=b"", repr=False, compare=False)  # the mail, for what its report told (`_told`)
    mailer: str = ""  # X-Mailer: "pbem 0.3.0" (0.2.0 and 0.1.0 on 2026-12-06 and before; "pbem" before it named one)
    sender_name: str = ""  # the From header's display name: the moderator's name, which a report signs with
    in_reply_to: str = ""  # the Message-ID the mail answers (no angle brackets, lower case): a player's message

    def signed_by(self, key: str, game: str) -> bool:
        """The receipt is signed by `key` for `game` (its record, input and game header)."""
        if self.record is None or self.key != key or not self.signature or not self.game_header:
            return False
        message = signing.statement(game, self.game_header, self.record[0], self.record[1], self.input)
        return signing.valid(key, message, self.signature)

    @property
    def name(self) -> str:
        return f'the mail of {self.date or "(no date)"} "{self.subject}"'

    @property
    def numbered(self) -> str:
        """`name` with the number the mail's last line shows ("Record #51"): a line naming a mail by a number gives
        this one, never its head's place on the export's chain, which on a finished game counts the entries hidden
        from the reader while it ran (67 for that mail; fairness19)."""
        return f"{self.name} (Record #{self.record[0]})" if self.record is not None else self.name


@dataclass
class MailCheck:
    ok: bool
    player: str = ""
    reader: str = ""  # the export's name of the player whose mail it is (`reader_of`), "" when unknown
    usage: bool = False  # the mail to check could not be chosen (`NoMail`): the command was given wrongly
    mails: int = 0
    heads: int = 0
    inputs: int = 0
    commitments: int = 0
    checked: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    at: list[tuple[int, int]] = field(default_factory=list)  # (chain position, rank) of each problem
    stated: list[tuple[int, int, str, datetime]] = field(default_factory=list)  # deadlines stated (`due.apart`)

    def problem(self, position: int, text: str, rank: int = 1) -> None:
        """`position`: the chain position the problem is about (0: none); at one position the lower rank first."""
        self.problems.append(text)
        self.at.append((position, rank))

    def earliest(self) -> list[str]:
        """The problems, the earliest position in the chain first (a later one often follows from it)."""
        return [p for _, p in sorted(zip(self.at, self.problems), key=lambda pair: pair[0])]


class NoMail(Exception):
    """The folder cannot be read, or holds no mail for this game and player; one sentence."""


# --------------------------------------------------------------------------- reading mail


MAX_TEXT = 8_000  # characters of a header decoded (pbem's subjects, encoded, are a few hundred)


def _text(value: str | None) -> str:
    """A header's text, its encoded words decoded, of its first `MAX_TEXT` characters: the standard library's
    decoder costs the square of their number, and every mail of a folder has its Subject, Date, To and X-Mailer read
    (a spam's 200 KB Subject of encoded words cost 0.24 s, 12 times its 50 KB; 8 MB, minutes: costs5)."""
    if value is None:
        return ""
    if isinstance(value, str):
        value = value[:MAX_TEXT]
    try:
        return " ".join(str(make_header(decode_header(value))).split())
    except (ValueError, LookupError):
        return " ".join(value.split())


def _pair(value: str | None, what: str) -> tuple[int, str] | None:
    """`<number> <hex>` of a receipt header; a malformed one is refused (it would check nothing)."""
    if value is None:
        return None
    parts = value.split()
    if len(parts) != 2 or not parts[0].isdigit() or len(parts[1]) != 64:
        raise ValueError(f"a malformed {what} header: {' '.join(parts)!r}")
    return int(parts[0]), parts[1].lower()


#: Where a mail's first empty line starts: right after a line end ("\n", or a "\r" not followed by "\n"), a line
#: that is a line end itself ("\n", "\r\n" or "\r").
_EMPTY_LINE = re.compile(rb"\n[\r\n]|\r\r")


def headers(raw: bytes) -> Message:
    """The headers of `raw`, as `BytesHeaderParser` reads them from the whole mail.  The parser ends the headers at
    the first line that is no header (an empty line at the latest) but still reads every line after it into the
    payload, which costs as much as the headers' parse many times over for a report with pictures: it is given the
    mail up to and with the line end before the first empty line (the whole mail when there is none)."""
    blank = _EMPTY_LINE.search(raw)
    return BytesHeaderParser().parsebytes(raw if blank is None else raw[: blank.start() + 1])


def parse_mail(raw: bytes) -> Received:
    """The receipts of one mail, read from its headers only."""
    return _received(headers(raw), raw)


def _received(msg: Message, raw: bytes) -> Received:
    """The receipts of the mail `raw`, whose headers `msg` holds; ValueError for a malformed receipt header."""
    to = addresses(str(msg.get("To", "")), MAX_FROM)  # nested comments: a RecursionError in the parser
    to_name, to_addr = to[0] if to else ("", "")
    date = _text(msg.get("Date"))
    try:
        stamp = parsedate_to_datetime(date).timestamp() if date else 0.0
    except (TypeError, ValueError):
        stamp = 0.0
    commitment = msg.get(COMMITMENT_HEADER)

    def plain(name: str) -> str | None:
        value = msg.get(name)
        return "".join(str(value).split()).lower() if value is not None else None

    return Received(
        date=date,
        subject=_text(msg.get("Subject")),
        to=to_addr.lower(),
        to_name=_text(to_name),
        record=_pair(msg.get(RECORD_HEADER), RECORD_HEADER),
        input=_pair(msg.get(INPUT_HEADER), INPUT_HEADER),
        commitment=commitment.strip().lower() if commitment else None,
        bindings=(_text(msg.get(BINDINGS_HEADER)).split() or [""])[0][:8] if msg.get(BINDINGS_HEADER) else None,
        sort_key=stamp,
        key=plain(signing.KEY_HEADER),
        game_header=plain(signing.GAME_HEADER),
        signature=plain(signing.SIGNATURE_HEADER),
        raw=raw,
        mailer=_text(msg.get("X-Mailer"))[:80],
        sender_name=_sender_name(msg),
        in_reply_to=message_key(str(msg.get("In-Reply-To", ""))),
    )


def message_key(value: str) -> str:
    """A Message-ID as compared: no blanks, no angle brackets, lower case (as `pbem.trust.sent` reads them)."""
    return "".join(value.split()).strip("<>").lower()[:998]


MAX_FROM = 998  # characters of a From read for its display name (a line's limit, RFC 5322)


def _sender_name(msg: Message) -> str:
    """The display name of a mail's From (decoded; "" when it has none or it cannot be read)."""
    try:
        found = getaddresses([str(msg.get("From", ""))[:MAX_FROM]])  # (the standard library's parse: bounded)
    except Exception:  # any header a mail holds is read or skipped, never a crash
        return ""
    return _text(found[0][0])[:200] if found else ""


#: What `read_folder` reads: one mail (pbem's own are a few hundred KB with their pictures; a player's folder may
#: hold other mail with large attachments, which is set aside and told, not read) and a whole folder (held in
#: memory while it is checked).
MAX_MAIL_BYTES = 32 * 1024 * 1024
MAX_FOLDER_BYTES = 1024 * 1024 * 1024
#: mails of one folder: a player's mail of a long game is a few thousand.  An mbox of a million tiny mails (140 MB)
#: took some 110 s and 750 MB, and 1 GiB of them minutes and gigabytes; a folder of more is refused before a mail of
#: it is read, as one of more bytes is (counted in C for an mbox, by its names for a folder: costs22)
MAX_FOLDER_MAILS = 100_000
_TOO_MANY = "holds more than {:,} mails, more than pbem reads: give --mail a folder of this game's mail only"


def _names_over(folders: list[Path], suffix: str, most: int) -> bool:
    """True when `folders` hold more than `most` names (ending in `suffix`, or any for ":"): the count stops once
    past `most`, so a folder of a million files costs what one of `most` does."""
    count = 0
    for folder in folders:
        if not folder.is_dir():
            continue
        with os.scandir(folder) as entries:
            for entry in entries:
                count += suffix == ":" or entry.name.endswith(suffix)
                if count > most:
                    return True
    return False


def _mbox_over(path: Path, most: int) -> bool:
    """True when mbox `path` holds more than `most` mails: its lines starting "From " (as `mailbox.mbox` splits it)
    counted a megabyte at a time, in C; the count stops once past `most`."""
    count, tail = 0, b"\n"  # the file's start counts as after a line's end
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            joined = tail + chunk
            count += joined.count(b"\nFrom ")  # a match never lies in `tail` alone (5 bytes), so none counts twice
            if count > most:
                return True
            tail = joined[-5:]
    return False


def _read_mbox(path: Path, told: list[str]) -> list[bytes]:
    """The mails of mbox `path` (`read_folder`), each read only when within `MAX_MAIL_BYTES`."""
    box = mailbox.mbox(str(path), create=False)
    out = []
    for n, key in enumerate(box.iterkeys(), 1):  # a mailbox iterates its messages, not its keys
        with box.get_file(key) as part:  # its size from the mbox's table first: a mail of 1 GB was read whole
            part.seek(0, os.SEEK_END)  # before it was set aside, twice its size held (costs22)
            size = part.tell()
            if size > MAX_MAIL_BYTES:
                told.append(f"message {n} of {path} is {size:,} bytes, more than the {MAX_MAIL_BYTES:,} read")
                continue
            part.seek(0)
            raw = part.read()
        if os.linesep != "\n":  # as `get_bytes` gives it
            raw = raw.replace(os.linesep.encode(), b"\n")
        if (why := _unlike_pbems(raw, f"message {n} of {path}")) is not None:
            told.append(why)
            continue
        out.append(raw)
    return out


def _unlike_pbems(raw: bytes, name: str) -> str | None:
    """Why the mail `name` is set aside unread (more parts, or parts nested deeper, than pbem's mail has), or None."""
    if too_many_parts(raw):
        return f"{name} has more than {MAX_PARTS:,} parts; pbem's mail has a few"
    if too_nested(raw):
        return f"{name} has more than {MAX_NESTED} multipart or message parts; pbem's mail has a few"
    return None


def read_folder(path: Path, set_aside: list[str] | None = None, kept: bool = False) -> Sequence[bytes]:
    """Every message in `path`: a Maildir (cur/, new/), a folder of .eml files, or an mbox file.

    A message file that is no regular file (a FIFO waited for a writer without end) or larger than
    `MAX_MAIL_BYTES` is not read: one sentence for it goes to `set_aside`.  A folder holding more than
    `MAX_FOLDER_BYTES`, or more than `MAX_FOLDER_MAILS` mails, is refused (NoMail) before it fills the memory.
    `kept`: a folder of files is kept where it is (`pbem.trust.stored.Stored`), each mail read again when asked."""
    from pbem.record.files import Unreadable, read_at_most

    told = set_aside if set_aside is not None else []
    if path.is_file():
        if path.stat().st_size > MAX_FOLDER_BYTES:
            raise NoMail(f"{path} is {path.stat().st_size:,} bytes, more than the {MAX_FOLDER_BYTES:,} pbem reads")
        if _mbox_over(path, MAX_FOLDER_MAILS):
            raise NoMail(f"{path} {_TOO_MANY.format(MAX_FOLDER_MAILS)}")
        return _read_mbox(path, told)
    if not path.is_dir():
        raise NoMail(f"{path} is neither a Maildir, a folder of .eml files nor an mbox file")
    maildir = (path / "cur").is_dir() or (path / "new").is_dir()
    if _names_over([path / "cur", path / "new"] if maildir else [path], ":" if maildir else ".eml", MAX_FOLDER_MAILS):
        raise NoMail(f"{path} {_TOO_MANY.format(MAX_FOLDER_MAILS)}")
    files = _maildir_files(path) if maildir else sorted(path.glob("*.eml"))
    out: list[bytes] = []
    total = 0
    held = Stored(path, partial(_again, path))
    for file in files:
        try:
            raw = read_at_most(file, MAX_MAIL_BYTES, f"{file.name} in {path}")
        except Unreadable as exc:
            told.append(str(exc))
            continue
        total += len(raw)
        if total > MAX_FOLDER_BYTES:
            raise NoMail(f"{path} holds more than the {MAX_FOLDER_BYTES:,} bytes of mail pbem reads")
        if (why := _unlike_pbems(raw, f"{file.name} in {path}")) is not None:
            told.append(why)
            continue
        if kept:
            held.add(str(file.relative_to(path)), raw)
        else:
            out.append(raw)
    return held if kept else out


def _again(folder: Path, file: Path) -> bytes:
    """A mail of a kept folder read again (`Stored`), to the same bound."""
    from pbem.record.files import read_at_most

    return read_at_most(file, MAX_MAIL_BYTES, f"{file.name} in {folder}")


_DELIVERED = re.compile(r"\A(\d++)\.M(\d++)")  # a Maildir name's seconds and microseconds of delivery


def delivered(key: str) -> tuple[int, int, str]:
    """A Maildir key's place in the order of delivery: (seconds, microseconds, key)."""
    m = _DELIVERED.match(key)
    return (int(m.group(1)), int(m.group(2)), key) if m else (0, 0, key)


def _maildir_files(path: Path) -> list[Path]:
    """A Maildir's message files in the order they were delivered, as their names say (seconds, then microseconds:
    sorted as strings, "M99" came after "M100"); the same key in new/ and cur/ is new/'s, as in `mailbox.Maildir`."""
    found: dict[str, Path] = {}
    for sub in ("cur", "new"):
        folder = path / sub
        if folder.is_dir():
            for name in os.listdir(folder):
                if not (folder / name).is_dir():
                    found[name.split(":")[0]] = folder / name
    return [found[k] for k in sorted(found, key=delivered)]


@dataclass(frozen=True)
class Folder:
    """One mailbox as `pbem verify --mail` reads it, each mail's headers parsed once (`parse_folder`): choosing
    whose mail it is (`unchosen`), checking it (`verify_mail`), comparing it with other players' (`split`) and
    reading a sent mail without the copies of the mails it answers (`pbem.app.reading.named_reader`) all use this
    one reading.  Its cost is one header parse a mail, linear in the folder's size."""

    mails: tuple[Received, ...]  # the mails whose receipt headers (if any) are readable, in the folder's order
    unreadable: int  # mails with a malformed receipt header
    named: tuple[tuple[str, str, bytes | Callable[[], bytes]], ...]  # (Message-ID, To address lower case, the mail)


def parse_folder(raws: Sequence[bytes]) -> Folder:
    """The headers of every mail of `raws`, parsed once.  Of a kept folder (`Stored`: `verify --sent`'s) only what
    names a mail is kept, each mail read again when a reply names it: its receipts are not read (`verify --mail`'s)."""
    mails: list[Received] = []
    named: list[tuple[str, str, bytes | Callable[[], bytes]]] = []
    unreadable = 0
    for i, raw in enumerate(raws):
        try:
            msg = headers(raw)
        except Exception:  # a mail whose headers cannot be read carries no receipt and names nothing
            unreadable += 1
            continue
        name = names(msg)
        if name is not None:
            named.append((*name, raws.later(i) if isinstance(raws, Stored) else raw))
        if isinstance(raws, Stored):
            continue
        try:
            mails.append(_received(msg, raw))
        except ValueError:
            unreadable += 1
    return Folder(tuple(mails), unreadable, tuple(named))


def names(msg: Message) -> tuple[str, str] | None:
    """(Message-ID, the first To address in lower case) of a mail's headers, as a reply names the mail it answers
    (`pbem.app.reading`); None when it lacks either or they cannot be read."""
    try:
        mid, to = str(msg.get("Message-ID", "")).strip(), getaddresses([str(msg.get("To", ""))])
    except Exception:  # any header a client sends is read or skipped, never a crash
        return None
    return (mid, to[0][1].lower()) if mid and to and to[0][1] else None


def _folder(raws: list[bytes] | Folder) -> Folder:
    return raws if isinstance(raws, Folder) else parse_folder(raws)


# --------------------------------------------------------------------------- whose mail


def visible(text: str) -> str:
    """`text` without invisible format characters (zero-width spaces, joiners, marks): they hid a game's tag."""
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


def about_game(mails: list[Received], game: str, key: str | None = None) -> list[Received]:
    """The mails about `game`: its tag in the subject ("[pbem NAME]"), or a receipt signed by `key` for it."""
    tag = visible(f"[pbem {game}]").lower()
    return [m for m in mails if tag in visible(m.subject).lower() or (key and m.signed_by(key, game))]


def pick(mails: list[Received], doc: dict[str, Any], as_player: str | None) -> tuple[str, list[Received]]:
    """(who, their mails): `as_player` is a player's name, address or display name; without it the
    folder must hold one recipient's mail.  A name chooses every mail to the addresses its mail went to
    (by the display name, or the address the export lists); an export without addresses (the public one)
    and mail without display names leave the receipts: the addresses whose receipts the chain places at the
    entries that player may see (`reader_of`).  Raises NoMail when nothing matches."""
    addresses = sorted({m.to for m in mails})
    if not addresses:
        raise NoMail(f"the folder holds no mail about game {doc['game']['name']}")
    if as_player is None:
        if len(addresses) > 1:
            raise NoMail(
                f"the folder holds mail to {len(addresses)} addresses ({', '.join(addresses)}): "
                "choose one with --as PLAYER"
            )
        return addresses[0], mails
    who = as_player.strip().lower()
    names = {n.lower(): n for n in readers(doc)}
    seat = {n.lower() for n in seat_of(doc, names[who])} if who in names else set()
    listed = {str(p.get("address", "")).lower() for p in doc.get("players", []) if str(p["name"]).lower() in seat}
    to = {m.to for m in mails if who in (m.to, m.to_name.lower()) or m.to_name.lower() in seat or m.to in listed}
    if not to and seat and counted(doc):  # a partial export (version 2): whose receipts' heads it lists
        hashes = {str(r.get("hash")) for r in [*doc["orders"], *doc["events"]]}
        to = {m.to for m in mails if m.record is not None and m.record[1] in hashes}
    if not to and seat and not counted(doc):
        ch = _Chain.of(doc)
        for address in addresses:
            theirs = [m for m in mails if m.to == address]
            if reader_of(ch, doc, theirs).lower() in seat:
                to.add(address)
    chosen = [m for m in mails if m.to in to]
    if not chosen:
        raise NoMail(
            f"no mail about game {doc['game']['name']} went to {as_player} (found: {', '.join(addresses)})"
            + ("; the export lists no addresses, and no receipt in the folder is one of theirs" if seat else "")
        )
    return as_player, chosen


# --------------------------------------------------------------------------- the checks


@dataclass
class _Chain:
    """The export's chain recomputed from its entries: heads[n] is the hash after n entries."""

    rows: list[dict[str, Any]]
    heads: list[str]
    input_at: dict[int, int]  # input seq -> its position (1-based) in the chain
    seen: dict[str, list[int]] = field(default_factory=dict)  # per player: the positions they may see
    names: list[str] = field(default_factory=list)  # every reader a receipt may have been counted for (`readers`)
    back: dict[str, str] | None = None  # each newcomer's predecessor in their seat (`before`), read once
    chains: dict[str, list[str]] = field(default_factory=dict)  # each player's `before`, followed once
    seats: dict[str, frozenset[str]] = field(default_factory=dict)  # the same as a set with "", for `_input_place`

    @classmethod
    def of(cls, doc: dict[str, Any]) -> _Chain:
        rows = chain.sequence(doc["orders"], doc["events"])
        heads = [doc["seed_commitment"]]
        input_at = {}
        for i, row in enumerate(rows, 1):
            heads.append(chain.link(heads[-1], chain.entry_of(row)))
            if "lines" in row:
                input_at[row["seq"]] = i
        return cls(rows, heads, input_at, names=readers(doc))

    def seen_by(self, player: str, alone: bool = False) -> list[int]:
        """The positions (1-based) of the entries `player` may see, in order: a receipt shown to them counts
        these (`pbem.record.reader_view`): their own inputs, the moderator's and the deadline's, and the events
        public or visible to them; a seat's newcomer, those of the seat under its earlier names too (`alone`: as
        pbem counted a newcomer's receipts before, their own name's only)."""
        names = (player,) if alone else self._followed(player)  # (not copied: asked for each mail, costs13)
        key = player if len(names) == 1 else f"{player}\n*seat"
        if key not in self.seen:
            self.seen[key] = self._visible(set(names))  # (a set: a seat's names were each looked for, costs12)
        return self.seen[key]

    def seen_by_seat(self, seat: list[str]) -> list[int]:
        """The positions (1-based) of the entries any name of `seat` (`seat_of`) may see, as `seen_by` counts them
        (each name with its earlier names): the first after a mail's head is where it was written by.  One pass over
        the record for the whole seat: a list was made for each of its names, each a pass (a seat given away 1,000
        times in a record of 2,000 entries: 1,001 lists, 0.3 s and 502,500 positions; costs14)."""
        key = "\n*any\n" + "\n".join(seat)
        if not seat:
            return []  # no name: no entry (a mail's head is then written by the chain's end)
        if key not in self.seen:
            back, had, walked = self._back(), set(seat), set()
            for name in seat:  # each name's earlier names, each rename followed once for the whole seat
                at: str | None = name
                while at is not None and at not in walked:
                    walked.add(at)
                    had.add(at)
                    at = back.get(at)
            self.seen[key] = self._visible(had)
        return self.seen[key]

    def _visible(self, had: set[str]) -> list[int]:
        """The positions of the entries one of the names `had` may see: their inputs, the moderator's and the
        deadline's, and the events public or visible to one of them."""
        out = []
        for i, row in enumerate(self.rows, 1):
            vis = row.get("visibility") or ()
            if "lines" in row:
                if (who := row.get("player", "")) == "" or (isinstance(who, str) and who in had):
                    out.append(i)
            elif vis == "public" or (
                not isinstance(vis, str) and any(v in had for v in vis if isinstance(v, str))
            ):  # a visibility other than "public" that is a word ("moderator") names no player
                out.append(i)
        return out

    def before(self, player: str) -> list[str]:
        """`player` with the names their seat had before them (the renames of the record, followed back)."""
        return list(self._followed(player))

    def _followed(self, player: str) -> list[str]:
        """`before`'s names, kept (not to be changed by the caller)."""
        back = self._back()
        if player not in self.chains:  # (the names so far as a set: a tuple of them made a step cost costs12's
            names, had = [player], {player}  # seat of 1,000 renames 6.5 ms a call, once for each mail)
            while (earlier := back.get(names[-1])) is not None and earlier not in had:
                names.append(earlier)
                had.add(earlier)
            self.chains[player] = names
        return self.chains[player]

    def _back(self) -> dict[str, str]:
        """Each newcomer's predecessor in their seat (the record's renames), read once."""
        if self.back is None:
            self.back = {
                str(r["lines"][0]): str(r["player"]) for r in self.rows if r.get("kind") == "rename" and r.get("lines")
            }
        return self.back

    def seat(self, player: str) -> frozenset[str]:
        """`before(player)` as a set, with "" (the deadline's inputs), kept: asked for each mail (`_input_place`),
        a tuple of them made each mail cost the seat's names (costs13)."""
        if (names := self.seats.get(player)) is None:
            names = self.seats[player] = frozenset((*self._followed(player), ""))
        return names

    def counts(self, player: str) -> list[list[int]]:
        """The ways a receipt shown to `player` may have counted: with their seat's earlier names, and alone."""
        seat = self.seen_by(player)
        alone = self.seen_by(player, alone=True)
        return [seat] if seat is alone else [seat, alone]

    def place(self, n: int, head: str, readers: list[str]) -> int | None:
        """Where the head `head` of a receipt counting `n` entries lies on the chain: at the n-th entry one of
        `readers` may see, or at entry n (mail to the moderator, or to anyone once the game is over); None when
        nowhere.  Whoever the mail went to, a head equal to the chain's at a position binds the history up to
        there, so no reader need be known to prove it."""
        if 0 <= n < len(self.heads) and self.heads[n] == head:
            return n
        for reader in readers:
            for seen in self.counts(reader):
                if 0 < n <= len(seen) and self.heads[seen[n - 1]] == head:
                    return seen[n - 1]
        return None

    def position(self, n: int, head: str, player: str) -> int:
        """Where a receipt `(n, head)` shown to `player` stands in the chain: at their n-th visible entry, or
        (a mail from before receipts were counted per reader, or to the moderator) at entry n itself.  Past
        the entries they may see: beyond the chain's end (entries are missing)."""
        if not player or n <= 0:
            return n
        for seen in self.counts(player):
            if n <= len(seen) and self.heads[seen[n - 1]] == head:
                return seen[n - 1]
        seen = self.seen_by(player)
        if n < len(self.heads) and self.heads[n] == head:
            return n
        return seen[n - 1] if n <= len(seen) else len(self.rows) + n - len(seen)

    def entry(self, n: int) -> str:
        """Entry `n` (1-based) as a reader finds it in the export."""
        row = self.rows[n - 1]
        if "lines" in row:
            said = clip(str("; ".join(row["lines"]))) if row["lines"] else "the deadline's defaults"
            who = f"{clip(str(row['player']))}: " if row["player"] else ""
            return f"entry {n}, input {row['seq']} ({who}{said})"
        return f"entry {n}, event {row['seq']} ({clip(str(row['text']))})"


def readers(doc: dict[str, Any]) -> list[str]:
    """Every name a receipt may have been counted for: the players of the set-up, and the newcomers given a seat
    (an input of kind `rename` names them; a public `replace` event too)."""
    names = [str(p.get("name", "")) for p in doc.get("players", [])]
    names += [str(o["lines"][0]) for o in doc.get("orders", []) if o.get("kind") == "rename" and o.get("lines")]
    names += [
        str(e["data"]["newcomer"])
        for e in doc.get("events", [])
        if e.get("kind") == "moderator" and isinstance(e.get("data"), dict) and e["data"].get("newcomer")
    ]
    return list(dict.fromkeys(n for n in names if n))


def seat_of(doc: dict[str, Any], name: str) -> list[str]:
    """`name` with every other name its seat had (`pbem game replace`), as the export records them: in the order
    passes over the renames in record order find them (a pass adds the new name of a rename whose old one the seat
    has, then its old name if it has the new one; as many passes as renames).  Found by their place in those passes
    (`_joined`), not by making them: the passes read the seat for each rename again, as many times as renames, so
    200 renames of one seat took 0.23 s and 800 15.9 s, for each of the 18 checks that ask (costs12)."""
    renames = [
        (str(o["player"]), str(o["lines"][0]))
        for o in doc.get("orders", [])
        if o.get("kind") == "rename" and o.get("lines")
    ]
    renames += [
        (str(e["data"].get("player", "")), str(e["data"]["newcomer"]))
        for e in doc.get("events", [])
        if e.get("kind") == "moderator" and isinstance(e.get("data"), dict) and e["data"].get("newcomer")
    ]
    return _joined(name, renames)


def _joined(name: str, renames: list[tuple[str, str]]) -> list[str]:
    """`name` and the names `renames` join to it, in the order the passes of `seat_of` add them.  A pass looks at
    place 2j (rename j's new name, added if its old one is in) and 2j + 1 (its old name, if its new one is in): a name
    added at (pass, place) adds each partner at that partner's next place, later in the pass or in the next.  Each
    name is added at the least of those (a heap, as shortest paths are found): its renames read once."""
    where: dict[str, list[tuple[int, str]]] = {}  # name -> (the place its partner is added at, the partner)
    for j, (old, new) in enumerate(renames):
        where.setdefault(old, []).append((2 * j, new))
        where.setdefault(new, []).append((2 * j + 1, old))
    added: dict[str, tuple[int, int]] = {}
    heap: list[tuple[int, int, str]] = [(0, -1, name)]
    while heap:
        key = heapq.heappop(heap)
        if key[2] in added:
            continue
        added[key[2]] = key[:2]
        for place, partner in where.get(key[2], ()):
            if partner and partner not in added:
                heapq.heappush(heap, (key[0] + (place <= key[1]), place, partner))
    return sorted(added, key=added.__getitem__)


def reader_of(ch: _Chain, doc: dict[str, Any], mails: list[Received], who: str = "") -> str:
    """The export's name of the player whose mail this is, from what the mail proves: the name among `who`'s seat
    (a name, or an address the export lists) or among every reader whose visible entries place the most of its
    receipts on the chain (ties: the later name of a seat, else the first in seat order).  "" when no receipt is
    placed for any."""
    names = readers(doc)
    wanted = who.strip().lower()
    chosen = [n for n in names if n.lower() == wanted]
    chosen += [str(p["name"]) for p in doc.get("players", []) if wanted and str(p.get("address", "")).lower() == wanted]
    candidates = [n for c in chosen for n in seat_of(doc, c)] or names
    received = [m.record for m in mails if m.record is not None]

    def placed(reader: str) -> int:
        return sum(ch.place(n, head, [reader]) is not None and n != ch.place(n, head, []) for n, head in received)

    # ties: a newcomer's receipts count their seat's earlier entries as its earlier holders' did, so the newest name
    # of a seat places every holder's receipts; it reads the report lines of all of them (`pbem.trust.told`)
    best = max(candidates, key=lambda n: (placed(n), len(ch.before(n))), default="")
    return best if best and (placed(best) or chosen) else (chosen[0] if chosen else "")


def check_mail(
    doc: dict[str, Any],
    mails: list[Received],
    player: str = "",
    reread: refused.Reread | None = None,
    wrote: dict[str, list[str]] | None = None,
    more: refused.Readings = refused.Readings(),
) -> MailCheck:
    """Check one player's mails (about this game) against the export `doc`."""
    c = MailCheck(ok=False, player=player, mails=len(mails))
    try:
        ch = _Chain.of(doc) if not counted(doc) else _Chain([], [], {})
    except (KeyError, TypeError, ValueError) as exc:
        c.problem(0, f"the export is malformed: {type(exc).__name__} {exc}")
        return c
    ordered = sorted(mails, key=lambda m: (m.sort_key, m.record[0] if m.record else 0))
    key = doc["game"].get("key")
    if key and _another_game(doc, key, ordered, c):
        return c
    if key:
        _two_keys(doc, key, ordered, c)
        ordered = _signed_only(doc, key, ordered, c)
    elif any(m.signature for m in ordered):
        signer = next(m.key for m in ordered if m.signature)
        c.problem(
            0,
            f"your mail is signed by the game key {signing.fingerprint(signer) if signer and len(signer) == 64 else signer}, "
            "but the export carries no key: it is not the signed record you were sent",
        )
    ordered = _readable(ordered, c)
    _commitments(doc, ordered, c)
    if counted(doc):
        _counted(doc, ordered, c, player)
    elif doc.get("chain") is not None and len(ch.rows) != doc["chain"]["entries"]:
        _listed(doc, ordered, c)
    else:
        with folded.sharing(doc, ch.rows):  # the checks that replay the record share one fold
            _chained(ch, doc, ordered, c, player, reread, wrote, more)
    _answered(doc, ordered, c)
    _messages(doc, ordered, c)
    if not c.heads:
        c.problem(0, "none of these mails carries a record receipt (X-Pbem-Record): nothing could be checked")
    c.ok = not c.problems
    if c.ok:
        c.checked.append(
            f"{count(c.mails, 'mail')} to {player}: {count(c.heads, 'record head')} on the export's chain, "
            f"{count(c.inputs, 'acknowledged input')} unchanged, {count(c.commitments, 'commitment')} equal"
        )
    newest = _newest(doc, ordered)
    if newest:
        (c.checked if c.ok else c.notes).append(newest)
    return c


def _chained(
    ch: _Chain,
    doc: dict[str, Any],
    ordered: list[Received],
    c: MailCheck,
    player: str,
    reread: refused.Reread | None,
    wrote: dict[str, list[str]] | None,
    more: refused.Readings,
) -> None:
    """The checks of mails against a record whose chain the export lists in full."""
    c.reader = reader_of(ch, doc, ordered, player)
    good = _heads(ch, ordered, c, c.reader)
    notices = _inputs(ch, ordered, good, c, c.reader or player, doc)
    _noticed(ch, doc, notices, c)
    _reminded(ch, doc, ordered, c)
    texts = _texts(ch, ordered, c)
    _told(ch, doc, texts, c)
    _tables(ch, doc, texts, c)
    _deadlines(ch, doc, ordered, texts, c)
    _arrivals(ch, doc, ordered, c)
    _resigned_untold(ch, doc, ordered, c)
    _early_seed(ch, doc, ordered, c)
    _refusals(ch, doc, ordered, c, reread, wrote, more.hint)
    _statuses(ch, doc, ordered, c, reread)
    plains = _Plains()
    _joins(ch, doc, ordered, c, plains)
    _held(ch, doc, ordered, c, plains, reread, more.failed)
    _press(ch, doc, ordered, c, plains)
    _unread(ordered, c, plains)
    if wrote is None:
        _unsent(ordered, c, plains)


def _readable(mails: list[Received], c: MailCheck) -> list[Received]:
    """`mails` without those with a header field longer than `addresses.MAX_FIELD` (a From, Subject, Content-Type
    ...), each a problem: pbem writes none, and the standard library reads a field's parameters and encoded words at
    the square of its length (a signed report of 800 KB of Content-Type parameters cost 6 s for each reading of its
    text, a 32 MiB one hours: the check held past its deadline; costs5)."""
    out = []
    for m in mails:
        if field_too_long(m.raw):
            c.problem(
                m.record[0] if m.record else 0,
                f"{m.name} has a header field longer than {MAX_FIELD:,} characters, which pbem never writes: it was "
                "not read (it is not a mail as pbem sent it)",
            )
        else:
            out.append(m)
    return out


#: The subject and first line of the moderator's message to every player (templates/mail/control_say.txt.j2).
SAID_SUBJECT = "A message from the moderator to every player"
SAID_HEAD = "The moderator writes to every player of "


def _messages(doc: dict[str, Any], mails: list[Received], c: MailCheck) -> None:
    """Each moderator's message to every player (`pbem game say`) the player was mailed is one the export records:
    the receipt's signature covers the record's head, not the text, so a moderator could mail one player words
    the record (and the other players) never held (item 9)."""
    said = {str(e["data"].get("text")) for e in doc["events"] if e["kind"] == "moderator" and _says(e)}
    for m in mails:
        if m.record is None or not m.subject.endswith(SAID_SUBJECT):
            continue
        text = _said(told.plain(m.raw), str(doc["game"]["name"]))
        if text is None:
            continue
        if text not in said:
            c.problem(
                m.record[0],
                f'{m.name} says the moderator wrote "{clip(text)}" to every player, but the export records no such '
                "message: the words you were mailed are not the history published (keep this mail)",
            )


def _says(e: dict[str, Any]) -> bool:
    return isinstance(e.get("data"), dict) and e["data"].get("action") == "say"


def _said(text: str, game: str) -> str | None:
    """The message a `control_say` mail's text states (the template prints it whole on the first line after its
    heading and a blank line), or None when the text has no such heading."""
    lines = [line.strip() for line in text.splitlines()]
    head = f"{SAID_HEAD}{game}:"
    if head not in lines:
        return None
    return next((line for line in lines[lines.index(head) + 1 :] if line), "")


def _newest(doc: dict[str, Any], mails: list[Received]) -> str:
    """The newest receipt in a form players compare with one another without sharing their mail: the "Record #N,
    HEAD..." line its report ends with.  Two players shown different histories, each given an export that
    matches their own mail, both pass alone (second fairness red team); once the game is over every player's
    last report names the whole record, so the lines must be equal."""
    found = [m for m in mails if m.record is not None]
    if not found:
        return ""
    m = max(found, key=lambda m: (m.record or (0, ""))[0])
    n, head = m.record or (0, "")
    fp = signing.fingerprint(doc["game"]["key"]) if doc["game"].get("key") else ""
    whole = doc["game"].get("over") and n == doc.get("chain", {}).get("entries")
    return (
        f'your newest receipt is "Record #{n}, {head[:16]}..." ({m.name}'
        + (f", key {fp}" if fp else "")
        + "): "
        + (
            "the game is over, so every player's last report ends with this same line; compare it with theirs "
            "(a different line is a different history shown to them)"
            if whole
            else "compare it with another player's only at the same record number after the game is over (until "
            "then each player's count leaves out what is hidden from them)"
        )
    )


def _another_game(doc: dict[str, Any], key: str, mails: list[Received], c: MailCheck) -> bool:
    """No receipt is signed by the export's key, but they are by another one, validly: the mail is of another game
    (another home, another seed) whatever its subject says.  Said as one mismatch, with both keys and commitments."""
    game = doc["game"]["name"]
    if any(m.signed_by(key, game) for m in mails):
        return False
    others = sorted({m.key for m in mails if m.key and m.key != key and len(m.key) == 64 and m.signed_by(m.key, game)})
    if not others:
        return False
    stated = sorted({m.commitment for m in mails if m.commitment and m.key == others[0]})
    commits = f"commits to the seed {stated[0][:16]}..." if stated else "states no seed commitment"
    c.problem(
        0,
        f"your mail is signed by the game key {signing.fingerprint(others[0])} and {commits}; this export has the "
        f"key {signing.fingerprint(key)} and the commitment {str(doc['seed_commitment'])[:16]}...: it is another game "
        f"(not one of your {count(len(mails), 'mail')} is signed by its key)"
        + (f"; your mail is signed by {len(others)} keys" if len(others) > 1 else ""),
    )
    c.ok = False
    return True


def _two_keys(doc: dict[str, Any], key: str, mails: list[Received], c: MailCheck) -> None:
    """Receipts for this game validly signed by another key beside the export's: pbem makes one key per game and never
    changes it, so one of the two records is not the one the player was sent.  A moderator who re-keys the game and
    mails one report under the new key would otherwise have the export's key trusted and every receipt of the old one
    (the invitation's) set aside as "not trusted".  Said as one mismatch naming both keys; the fingerprint in the
    invitation tells which key is the game's (receipts made up by someone with a key of their own fail it too)."""
    game = doc["game"]["name"]
    others = [m for m in mails if m.key and m.key != key and len(m.key) == 64 and m.signed_by(m.key, game)]
    if not others or not any(m.signed_by(key, game) for m in mails):
        return
    old, ours = others[0].key or "", sum(m.signed_by(key, game) for m in mails)
    invitation = next((m for m in others if m.commitment and m.key == old), None)
    said = (
        f"{invitation.name} (it states the seed commitment: your invitation or first report)"
        if invitation
        else others[0].name
    )
    c.problem(
        0,
        f"your mail holds receipts for this game signed by two keys: {count(sum(m.key == old for m in others), 'mail')} "
        f"by {signing.fingerprint(old)}, "
        f"the first {said}, and {count(ours, 'mail')} by this export's key {signing.fingerprint(key)}. pbem never changes a "
        "game's key: compare both with the fingerprint in your invitation. If it is the export's, the other mails were made up; "
        "if not, the game was re-keyed and this export sets aside the receipts you were sent under the invitation's key",
    )


def _signed_only(doc: dict[str, Any], key: str, mails: list[Received], c: MailCheck) -> list[Received]:
    """The mails whose receipts the game key signed; the others are reported, not trusted."""
    game = doc["game"]["name"]
    header = signing.header_of_export(doc)
    signed = [m for m in mails if m.signed_by(key, game)]
    receipted = [m for m in mails if m.record is not None and not m.signed_by(key, game)]
    if receipted:
        other = sorted({m.key for m in receipted if m.key and m.key != key})
        c.notes.append(
            f"{count(len(receipted), 'mail')} carry a receipt not signed by the game key (made up or altered, "
            f"the first is {receipted[0].name}): not trusted, not checked"
            + (
                f"; signed by another key, fingerprint {signing.fingerprint(other[0])}: if that is the fingerprint "
                "in your invitation, this export is not the game you played"
                if other and len(other[0]) == 64
                else ""
            )
        )
    for m in signed:
        if m.game_header != header:
            c.problem(
                0,
                f"{m.name} is signed for the game's fields (options, players, insecure_seed, bindings...) {str(m.game_header)[:16]}..., "
                f"the export's give {header[:16]}...: they were changed (signed proof)",
            )
    unreceipted = [m for m in mails if m.record is None]
    if unreceipted:
        c.notes.append(f"{count(len(unreceipted), 'mail')} about the game carry no receipt (nothing to check)")
    c.checked.append(f"{count(len(signed), 'receipt')} signed by the game key, fingerprint {signing.fingerprint(key)}")
    return signed


def _commitments(doc: dict[str, Any], mails: list[Received], c: MailCheck) -> None:
    stated = [m for m in mails if m.commitment]
    if not stated:
        c.notes.append(
            "no mail states the seed commitment (the first report is missing); the heads still bind it, "
            "since the chain starts from it"
        )
    for m in stated:
        c.commitments += 1
        if m.commitment != doc["seed_commitment"]:
            c.problem(
                0, f"{m.name} states the seed commitment {m.commitment}, the export's is {doc['seed_commitment']}"
            )
        mark = str(signing.marked(doc["game"]))
        if m.bindings is not None and m.bindings != mark:  # (H differs too: this says which checks were promised)
            c.problem(
                0,
                f"{m.name} says the game promises the checks of bindings {clip(m.bindings)} ({BINDINGS_HEADER}), the "
                f"export declares {mark}: the game's format mark was changed after it",
            )


def _heads(ch: _Chain, mails: list[Received], c: MailCheck, player: str = "") -> list[int]:
    """Check each received head; returns the positions proven equal (sorted), for naming where histories part.
    A receipt shown to `player` counts the entries they may see (`_Chain.position`)."""
    good: set[int] = set()
    bad: list[tuple[Received, int, str]] = []
    total = len(ch.rows)
    for m in mails:
        if m.record is None:
            continue
        c.heads += 1
        at = ch.place(*m.record, [player, *ch.names] if player else ch.names)
        if at is not None:
            good.add(at)
            continue
        n, head = ch.position(*m.record, player), m.record[1]
        if n > total:
            c.problem(
                n,
                f"{m.numbered} was sent when the record held {n} entries ending at {head[:16]}..., "
                f"but the export holds only {total}: entries are missing",
            )
        elif ch.heads[n] == head:
            good.add(n)
        else:
            bad.append((m, n, head))
    proven = sorted(good)
    for m, n, head in bad:
        last = max((p for p in proven if p < n), default=0)
        span = ch.entry(n) if last == n - 1 else f"{ch.entry(last + 1)} to {ch.entry(n)}"
        c.problem(
            n,
            f"{m.numbered} carries the head {head[:16]}..., but entry #{n} of the export, where that receipt "
            f"stands, has {ch.heads[n][:16]}...: the history differs from the one played at {span}",
        )
    return proven


def _listed(doc: dict[str, Any], mails: list[Received], c: MailCheck) -> None:
    """Receipts against an export that lists only some entries (a player's or the public export of a game in
    progress): a head is found among the listed entries' hashes (which `pbem verify` links where it can), or it
    follows an entry hidden from the export's audience and is left to the final export; an acknowledged input the
    export lists must carry the acknowledged hash."""
    hashes = {str(row.get("hash")): place for row, place in chain.places(doc["orders"], doc["events"])}
    hashes[doc["seed_commitment"]] = 0
    inputs = {o["seq"]: o for o in doc["orders"]}
    by_hash = {str(o.get("hash")): o for o in doc["orders"]}
    hidden = unlisted = 0
    for m in mails:
        if m.record is not None:
            c.heads += 1
            hidden += m.record[1] not in hashes
        if m.input is None:
            continue
        seq, want = m.input
        if want in by_hash:  # numbered as the player's receipts count (a game in progress): found by its hash
            seq = by_hash[want]["seq"]
        c.inputs += seq in inputs
        if seq not in inputs:
            unlisted += 1
            if doc.get("audience") != "public":
                c.problem(
                    0,
                    f"{m.name} acknowledged your orders as input {seq} ({want[:16]}...), which the export does not list",
                    rank=0,
                )
        elif inputs[seq].get("hash") == want:
            _quoted(m, 0, seq, inputs[seq].get("lines"), c)
        elif inputs[seq].get("hash") != want:
            c.problem(
                0,
                f"{m.name} acknowledged your orders as input {seq} with hash {want[:16]}..., but the export's input "
                f"{seq} ({clip(str('; '.join(inputs[seq]['lines'])))}) states {str(inputs[seq].get('hash'))[:16]}...: it was changed",
                rank=0,
            )
    if hidden:
        c.notes.append(
            f"{count(hidden, 'head')} of your mail follow entries this export does not list (hidden from its "
            f"audience, {doc.get('audience')}, until the end): the export of the finished game checks them"
        )
    if unlisted and doc.get("audience") == "public":
        c.notes.append(
            f"{count(unlisted, 'acknowledged input')} of yours are not in this public export of a game in progress "
            "(it lists no orders): your own export (pbem export NAME --as YOU) or the final export checks them"
        )


def counted(doc: dict[str, Any]) -> bool:
    """A partial export (format version 2, `pbem.trust.partial`): its entries are numbered as its reader counts."""
    return doc.get("version") == partial_export.VERSION


def _counted(doc: dict[str, Any], mails: list[Received], c: MailCheck, player: str) -> None:
    """Receipts against a partial export (version 2): it lists every entry its reader may see, numbered as their
    receipts count, with its hash.  A head is found among the listed hashes (the commitment before any entry):
    in the reader's own export at the number the mail states; a mail counting more entries than the export lists
    came after it.  An acknowledged input is found by its hash.  The hashes are proven against the contents only
    by the final export (`pbem verify FINAL --earlier THIS`)."""
    rows = [*doc["orders"], *doc["events"]]
    at = {str(r.get("hash")): int(r["seq"]) for r in rows} | {str(doc["seed_commitment"]): 0}
    total = int(doc["chain"]["entries"]) if doc.get("chain") else len(rows)
    audience = str(doc.get("audience"))
    seat = {n.lower() for n in seat_of(doc, audience)}
    # the reader's own export: the mail is to them by the name given (--as) or by the name it is addressed to
    own = audience != "public" and (
        not player or player.lower() in seat or any(m.to_name.lower() in seat for m in mails if m.to_name)
    )
    # a seat's newcomer's receipts count the seat's entries under every name, as their export numbers them; those
    # written before (branch `undocount`) counted their own name's alone: either number is theirs (`_alone`)
    alone = _alone(rows, audience) if own and seat_of(doc, audience) != [audience] else {}
    later = hidden = 0
    for m in mails:
        if m.record is not None:
            c.heads += 1
            n, head = m.record
            if n > total and head not in at:
                later += 1
            elif head not in at:
                if own:
                    c.problem(
                        n,
                        f"{m.numbered} carries the head {head[:16]}..., but this export lists {audience}'s entry "
                        f"{n} with another hash: the history differs from the one your mail was written at",
                    )
                else:
                    hidden += 1
            elif own and at[head] != n and alone.get(head) != n:
                c.problem(
                    n,
                    f"{m.numbered} carries the head {head[:16]}..., but this export lists that head as {audience}'s "
                    f"entry {at[head]}: entries were added or left out before it",
                )
        if m.input is None:
            continue
        number, want = m.input
        if want in at and want != doc["seed_commitment"]:
            c.inputs += 1
            _quoted(
                m, number, at[want], next((r.get("lines") for r in doc["orders"] if r.get("hash") == want), None), c
            )
        elif own and number <= total:
            c.problem(
                number,
                f"{m.name} acknowledged your orders as entry {number} ({want[:16]}...), which the export does not list",
                rank=0,
            )
    if later:
        c.notes.append(f"{count(later, 'mail')} came after this export was made (a later record number): not checked")
    joins = sum(
        1 for m in mails if m.record is not None and b"you have " in m.raw and joined.is_join_ack(told.plain(m.raw))
    )
    c.notes.append(
        "this export is a running game's: only the heads and the acknowledged inputs of your mail were checked, and "
        "that no deadline applied your defaults with no mail of yours since the step last started again; what "
        "its reports and acknowledgements say"
        + (
            f" (and what {count(joins, 'acknowledgement')} of your JOIN said: your seat, your salt, who was awaited)"
            if joins
            else ""
        )
        + " is compared with the record against the final export: check again with it"
    )
    if hidden:
        c.notes.append(
            f"{count(hidden, 'head')} of your mail follow entries this export does not list (it is {audience}'s): "
            "your own export, or the final one, checks them"
        )
    if own:
        _unasked_running(doc, mails, at, audience, c)
    elif audience == "public" and (reader := player or next((m.to_name for m in mails if m.to_name), "")):
        _unasked_running(doc, mails, at, reader, c, public=True)


def _unasked_running(
    doc: dict[str, Any], mails: list[Received], at: dict[str, int], audience: str, c: MailCheck, public: bool = False
) -> None:
    """`_unasked` against the reader's own export of a running game: no seed, so no replay and no step, but the
    steps' restarts are listed (every `deadline` input and undo, which the reader may see) and so are the defaults
    applied for the reader (their `default-orders` events): a deadline's defaults applied for them with none of
    their mails written since the step last started again is named (`due.unasked_unseeded`; fairness22).  What
    waits for the seed: a step that opened after a mail of theirs written since that restart (the replay says where
    each step opened), and any other player's defaults.  A report that says nothing is asked of the reader was
    written while no step asked them, so it tells them of none (`due.asks_nothing`, fairness27): the step that
    applied their defaults opened after it."""
    rows = partial_export.listed(doc)
    if public:  # the public export lists who was defaulted (`default` events), and the heads it can place
        spans = _placed(mails, at, int(doc["chain"]["entries"]) if doc.get("chain") else len(rows))
        found = due.unasked_unseeded(rows, [], seat_of(doc, audience), spans)
    else:
        heads = [
            (at[m.record[1]], m.numbered, datetime.min)
            for m in mails
            if m.record and m.record[1] in at and not due.asks_nothing(told.plain(m.raw))
        ]
        found = due.unasked_unseeded(rows, heads, seat_of(doc, audience))
    for _, how in found:
        c.notes.append(
            f"WARNING: {how}: pbem mails every player a step asks the report that asks them, and a reminder before "
            "its deadline, so a report was written to you but not received (withheld by the moderator, or lost: look "
            "in your spam folder and the mail you deleted)"
        )


def _placed(mails: list[Received], at: dict[str, int], total: int) -> list[tuple[int, int]]:
    """Where on the public export of a running game each of the reader's mails may lie, as (first, last) entry numbers
    of the public count: a head the export lists is placed exactly; one it does not list (the newest entry the reader
    saw was their own input or an event shown to them alone) lies after the mail before it that is placed and at most
    as many public entries later as the reader's own count grew since (their count counts every public entry), and
    not after the next placed mail nor past the export's last entry (a count past the export's total may still lie
    within it: the reader counts more than the public does).  A report that asks its reader nothing is left out
    (`due.asks_nothing`).  In the order of the reader's count, so both ends rise."""
    got = sorted(
        (m.record[0], at.get(m.record[1])) for m in mails if m.record and not due.asks_nothing(told.plain(m.raw))
    )
    spans: list[tuple[int, int]] = []
    last = (0, 0)  # (the reader's count, the public number) of the last placed mail: the commitment at first
    for n, place in got:
        if place is not None:
            last = (n, place)
            spans.append((place, place))
        else:
            spans.append((last[1], last[1] + max(n - last[0], 0)))
    nxt = total
    for i in range(len(spans) - 1, -1, -1):  # and never after the next placed mail
        lo, hi = spans[i]
        spans[i] = (lo, min(hi, nxt))
        if lo == hi:
            nxt = lo
    return spans


def _alone(rows: list[dict[str, Any]], name: str) -> dict[str, int]:
    """Each listed entry's hash -> its number among the entries `name` alone may see (their own inputs, the
    moderator's and the deadline's, the events public or shown to them), in the listing's order: how a newcomer's
    receipts were counted before they counted the seat's entries under its earlier names."""
    out: dict[str, int] = {}
    for row in sorted(rows, key=lambda r: int(r["seq"])):
        if "lines" in row:
            mine = row.get("player", "") in ("", name)
        else:
            mine = row.get("visibility") == "public" or name in (row.get("visibility") or ())
        if mine:
            out[str(row.get("hash"))] = len(out) + 1
    return out


def _input_place(ch: _Chain, number: int, want: str, player: str) -> int | None:
    """Where an acknowledged input numbered `number` with hash `want` lies on the chain: the `number`-th entry
    `player` may see (as a receipt of a game in progress numbers it, `pbem.app.stamping`), or the input of that
    seq (a mail of a finished game, or from before inputs were numbered per reader); the one whose hash is `want`
    first, else the reader's entry when it is one of their inputs (changed), else the seq's; None when neither."""
    counts = ch.counts(player) if player else []
    places = [seen[number - 1] if 0 < number <= len(seen) else None for seen in counts] or [None]
    seat = ch.seat(player) if player else frozenset(("",))  # a replaced player's mail is read as their seat's newest
    places = [  # the reader's own input, or the deadline's (a notice of defaults applied for them counts it so)
        p if p is not None and "lines" in ch.rows[p - 1] and ch.rows[p - 1].get("player") in seat else None
        for p in places
    ]
    by_seq = ch.input_at.get(number)
    for n in (*places, by_seq):
        if n is not None and ch.heads[n] == want:
            return n
    mine = places[0]
    return mine if mine is not None else by_seq


def _inputs(
    ch: _Chain,
    mails: list[Received],
    good: list[int],
    c: MailCheck,
    player: str = "",
    doc: dict[str, Any] | None = None,
) -> list[noticed.Notice]:
    """Each input receipt must name an input of the export with its hash, and its mail say what that input holds;
    returns the deadline's notices among them (`pbem.trust.noticed`)."""
    readings = _readings(doc, ch.rows, mails) if doc is not None else None
    notices: list[noticed.Notice] = []
    for m in mails:
        if m.input is None:
            continue
        c.inputs += 1
        seq, want = m.input
        n = _input_place(ch, seq, want, player)
        seq = ch.rows[n - 1]["seq"] if n is not None else seq  # named by the export's numbering
        if n is None:
            c.problem(
                len(ch.rows) + 1,
                f"{m.name} acknowledged your orders as input {seq} ({want[:16]}...), which the export does not hold",
                rank=0,
            )
        elif ch.heads[n] != want:
            before = "" if (n - 1) in good else " (or an entry before it)"
            c.problem(
                n,
                f"{m.name} acknowledged your orders as input {seq} with hash {want[:16]}..., but the export's "
                f"{ch.entry(n)} hashes to {ch.heads[n][:16]}...: it was changed{before} (its lines, player, message or time)",
                rank=0,
            )
        else:
            text = told.plain(m.raw)
            _quoted(m, n, seq, ch.rows[n - 1].get("lines"), c, readings, text)
            _from(m, n, seq, ch.rows[n - 1], c)
            _formed(m, n, seq, ch.rows[n - 1], c, text)
            if not m.in_reply_to and m.record is not None and _noticing(ch.rows[n - 1], text):
                notices.append(
                    noticed.Notice(m.name, n, m.subject, text, told.html(m.raw), m.sender_name, m.record, m.input)
                )
    return notices


def _noticing(row: dict[str, Any], text: str) -> bool:
    """Whether a mail carrying the receipt of the input `row` and answering no message is a deadline's notice of
    what that input applied (an acknowledgement of a message without a Message-ID answers none either)."""
    return row.get("kind") == "deadline" or (
        row.get("kind") == "orders" and text.lstrip().startswith(acked.DEADLINE_FIRST)
    )


def _unseeded(doc: dict[str, Any], c: MailCheck, said: str) -> bool:
    """Whether the export's seed is not out yet: then a note that `said` (what a kind of mail says) is worked out
    again once the game is over."""
    if doc.get("seed"):
        return False
    c.notes.append(f"{said} worked out again once the game is over (its seed replays the game): check again with the "
                   "final export")  # fmt: skip
    return True


def _reminded(ch: _Chain, doc: dict[str, Any], mails: list[Received], c: MailCheck) -> None:
    """Each reminder of a deadline must be its templates rendered at a state of its head's window
    (`pbem.trust.noticed.reminders_untrue`): what the replayed game asked the player, the legal orders, the default;
    once the seed is out, before it a note.  Its receipt placed it on the record and nothing read its words."""
    subjects = noticed.subjects(doc["game"]["name"])
    found = [m for m in mails if m.subject in subjects and m.record is not None]
    if not found or not c.reader:
        return
    said = f"what {count(len(found), 'reminder')} of a deadline say you are asked, the orders they list and the default are"
    if _unseeded(doc, c, said):
        return
    seat = seat_of(doc, c.reader)
    seen = ch.seen_by_seat(seat)
    end = len(ch.rows) + 1
    inputs = [i for i, row in enumerate(ch.rows, 1) if "lines" in row]
    reminders = []
    for m in found:
        assert m.record is not None
        if (at := ch.place(*m.record, [c.reader, *ch.names])) is None:
            continue  # (a head off the chain: a problem of its own)
        upto = shown._after(seen, at, end)
        text = told.plain(m.raw)
        mail = noticed.Notice(m.name, at, m.subject, text, told.html(m.raw), m.sender_name, m.record, (0, ""))
        reminders.append((shown.windows(inputs, [(at, upto)])[0], m.sort_key, mail))
    try:
        wrong = noticed.reminders_untrue(doc, ch.rows, reminders, seat)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, registry.UnknownKind):
        c.notes.append("the reminders of a deadline in your mail were not compared: the record cannot be replayed")
        return
    for at, how in wrong:
        c.problem(
            at,
            f"{how}, in the game replayed to entry #{at} of the export: the reminder you were shown is not pbem's "
            "(its text is not signed, only its head: this mail is your evidence, keep it)",
        )
    if reminders and not wrong:
        c.checked.append(
            f"{count(len(reminders), 'reminder')} of a deadline say what the game replayed to their heads asked you"
        )


def _noticed(ch: _Chain, doc: dict[str, Any], notices: list[noticed.Notice], c: MailCheck) -> None:
    """Each deadline's notice of what it applied for the player must be its templates rendered again from the export
    (`pbem.trust.noticed`): once the seed is out; before, a note."""
    if not notices or not c.reader:
        return
    said = f"what {count(len(notices), 'notice')} of a deadline say it applied for you (and what they say you were asked) is"
    if _unseeded(doc, c, said):
        return
    try:
        wrong = noticed.untrue(doc, ch.rows, notices, seat_of(doc, c.reader))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, registry.UnknownKind):
        c.notes.append(
            "the notices of what a deadline applied for you were not compared: the record cannot be replayed"
        )
        return
    for at, how in wrong:
        c.problem(
            at,
            f"{how}: the notice you were shown is not the history published (its text is not signed, only its "
            "receipt: this mail is your evidence, keep it)",
            rank=0,
        )
    if not wrong:
        c.checked.append(
            f"the words of {count(len(notices), 'notice')} of what a deadline applied for you are pbem's for the "
            "export's input and the game replayed before it"
        )


def _from(m: Received, position: int, seq: int, row: dict[str, Any], c: MailCheck) -> None:
    """An answer to the player's message (its In-Reply-To) whose receipt names an input must name the input the
    export records as coming from that very message: else the lines it quotes as applied were applied from another
    message (or from none), and without the Sent folder nothing else tells (seventh round)."""
    recorded = message_key(str(row.get("message_id") or ""))
    if not m.in_reply_to or not recorded or recorded == m.in_reply_to:
        return
    c.problem(
        position,
        f"{m.name} answers your message <{clip(m.in_reply_to)}> with the receipt of input {seq}, which the export "
        f"records as coming from your message <{clip(recorded)}>: the acknowledgement you were shown is not the "
        "history published (this mail is your evidence, keep it)",
        rank=0,
    )


def _formed(m: Received, position: int, seq: int, row: dict[str, Any], c: MailCheck, text: str) -> None:
    """A mail carrying the receipt of an input of orders must be one of the mails pbem writes with one
    (`pbem.trust.acked.receipted`), each of which a check reads: a text in none of those forms was read by none, so
    the moderator could send any words under a true receipt ("your orders arrived late and were not applied, send
    them again") and every check passed (eighth round).  A JOIN's acknowledgement is `_joins`'s."""
    if row.get("kind") == "join" or acked.receipted(text):
        return
    c.problem(
        position,
        f"{m.name} carries the receipt of input {seq}, which pbem writes only on the acknowledgement of those orders, "
        "a report answering your message or a deadline's notice of what it applied, but its text is none of these: "
        "what it says is not what pbem writes (its text is not signed, only its receipt: this mail is your evidence, "
        "keep it)",
        rank=0,
    )


def _readings(doc: dict[str, Any], rows: list[dict[str, Any]], mails: list[Received]) -> dict[int, list[str]] | None:
    """What the engine understood of each line of each input (seq -> one reading a line), replayed from the seed,
    when the seed is out and a mail quotes a reading ("(understood as: ...)"); else None (not compared)."""
    if not doc.get("seed") or not any(b"understood as" in m.raw for m in mails if m.input is not None):
        return None
    shared = folded.of(doc, rows)  # the fold every check of the mailbox shares (`pbem.trust.folded`)
    if shared is not None:
        return shared.readings()
    from pbem.trust import deal as joining
    from pbem.trust.fold import Fold

    try:
        eng = registry.get(doc["game"]["kind"])
        players, seed, options = [str(p["name"]) for p in doc["players"]], str(doc["seed"]), doc["game"]["options"]
        state = joining.open_state(players) if "salts" in doc else eng.setup(players, seed, options)[0]
        fold = Fold(state, lambda st: joining.step_engine(eng, st, players, seed, options), seed)
        out: dict[int, list[str]] = {}
        for row in rows:
            if "lines" in row:
                done = fold.run(row["seq"], row["kind"], row["player"], row["lines"], state)
                state = done.state
                out[int(row["seq"])] = [r.understood for r in done.lines]
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, registry.UnknownKind):
        return None  # (a record that cannot be replayed: `pbem verify` says why, the tables' note too)
    return out


def _quoted(
    m: Received,
    position: int,
    seq: int,
    applied: Any,
    c: MailCheck,
    readings: dict[int, list[str]] | None = None,
    text: str | None = None,
) -> None:
    """The lines the acknowledgement `m` quotes as applied must be the lines of the input its receipt names
    (`pbem.trust.acked`): the receipt binds the input, the quote is what the player reads; what the engine
    understood of each, when `readings` (the replay's) are given.  `text`: its plain text, when decoded already."""
    if not isinstance(applied, list):
        return
    reading = readings.get(seq) if readings is not None else None
    text = told.plain(m.raw) if text is None else text
    how = acked.differs(text, told.html(m.raw), [str(x) for x in applied], reading)
    if how:
        c.problem(
            position,
            f"{m.name} {how} (input {seq}, the one its receipt names): the acknowledgement you were shown is not the "
            "history published (its text is not signed, only its receipt: this mail is your evidence, keep it)",
            rank=0,
        )


def _answered(doc: dict[str, Any], mails: list[Received], c: MailCheck) -> None:
    """What an acknowledgement says became of the player's message it answers (its In-Reply-To) must be what the
    export records of that message: "Accepted and applied" for a message accepted or held, "NOTHING WAS APPLIED"
    for one refused, and the lines it quotes as refused the ones the record's reason names.  A moderator who applied
    Alice's vote and told her it was refused (so that she sends another) was caught by nothing."""
    messages = {message_key(str(r.get("message_id", ""))): r for r in doc.get("messages", []) if isinstance(r, dict)}
    for m in mails:
        if b"Your message" not in m.raw:
            continue
        text = told.plain(m.raw)
        how = acked.unwritten(text, told.html(m.raw), m.sender_name, str(doc["game"]["name"]), m.record)
        if how:
            c.problem(
                0,
                f"{m.name} {how}: the acknowledgement you were shown is not what pbem writes (its text is not signed: "
                "this mail is your evidence, keep it)",
                rank=0,
            )
        rec = messages.get(m.in_reply_to) if m.in_reply_to else None
        if rec is None:
            continue
        claim, outcome = acked.said_outcome(text), str(rec.get("outcome"))
        applied = outcome in ("accepted", "held")
        if claim is not None and (claim == "applied") != applied:
            c.problem(
                0,
                f'{m.name} says of your message <{clip(m.in_reply_to)}> "'
                + ("Accepted and applied" if claim == "applied" else "NOTHING WAS APPLIED")
                + f'", but the export records it {clip(outcome)}'
                + (f" ({clip(str(rec.get('reason')), 120)})" if rec.get("reason") else "")
                + ": the acknowledgement you were shown is not the history published (this mail is your evidence, "
                "keep it)",
                rank=0,
            )
        elif claim == "refused" and (named := acked.reason_lines(str(rec.get("reason") or ""))) is not None:
            quoted = acked.refused_quoted(text)
            if quoted != named:
                c.problem(
                    0,
                    f"{m.name} quotes as refused {clip('; '.join(quoted)) or '(no line)'}, but the export's reason for "
                    f"your message <{clip(m.in_reply_to)}> names {clip('; '.join(named))}: the acknowledgement you were "
                    "shown is not the history published (this mail is your evidence, keep it)",
                    rank=0,
                )


Texts = list[tuple[int, "Received", str, str]]


def _texts(ch: _Chain, mails: list[Received], c: MailCheck) -> Texts:
    """(head's chain position, mail, plain text, HTML of a report or "") of each mail whose head is placed on the
    chain and that may be a report, for `_told`, `_tables` and `_deadlines`: only when whose mail it is is known.
    Each part is decoded once (the parse costs a millisecond)."""
    if not c.reader:
        return []
    places = [c.reader, *ch.names]
    return [
        (at, m, text, told.html(m.raw) if shown.MARK in text or told.BOARD in text else "")
        for m in mails
        if m.record is not None
        and (at := ch.place(*m.record, places)) is not None
        and told.may_report(m.raw)
        and (text := told.plain(m.raw))
    ]


def _told(ch: _Chain, doc: dict[str, Any], texts: Texts, c: MailCheck) -> None:
    """Each line a report listed as happened must be an event of the export its reader may see (`pbem.trust.told`)."""
    reports = [(at, m.name, lines) for at, m, text, _ in texts if (lines := told.listed(text)[0])]
    reports += [
        (at, f"the HTML part of {m.name}", lines) for at, m, _, page in texts if (lines := told.html_listed(page))
    ]
    for at, name, line in told.untrue(ch.rows, reports, seat_of(doc, c.reader)):
        c.problem(
            at,
            f'{name} told you "{clip(line)}" happened, but no event you may see up to entry #{at} of the '
            f"export says so: the report you were shown is not the history published (its text is not signed, only "
            "its head: this mail is your evidence, keep it)",
        )
    _untold(ch, doc, texts, c)


def _untold(ch: _Chain, doc: dict[str, Any], texts: Texts, c: MailCheck) -> None:
    """Every event the player may see up to their newest report's head must be listed by one of their reports
    (`pbem.trust.told.untold`): a report written to them, but withheld, told its events to nobody."""
    reports = [
        (at, m.numbered, told.listed(text)[0])  # named by the "Record #51" it shows (not `at`, 67: docs5)
        for at, m, text, _ in texts
        if shown.MARK in text or told.BOARD in text or told.HEADING in text
    ]
    for _, name, missed in told.untold(ch.rows, reports, seat_of(doc, c.reader)):
        events = "; ".join(f'entry {n}, "{clip(text, 60)}"' for n, text in missed[:3])
        more = f" and {len(missed) - 3} more" if len(missed) > 3 else ""
        c.notes.append(
            f"WARNING: {count(len(missed), 'event')} you may see before {name} "
            f"{'was' if len(missed) == 1 else 'were'} listed by none of your reports ({events}{more}): each report "
            "lists what happened since the last one pbem sent you, so a report was written to you but not received "
            "(withheld by the moderator, or lost: look in your spam folder and the mail you deleted)"
        )


def _tables(ch: _Chain, doc: dict[str, Any], texts: Texts, c: MailCheck) -> None:
    """Each report's tables must be the reader's view of the replayed game at its head (`pbem.trust.shown`): once
    the seed is revealed."""
    if not doc.get("seed"):
        return
    read = [
        (
            (at, m.name, shown_),
            pictured.of_mail(m.raw, page) if page else None,
            (prose.said(text, m.record, page, m.subject, m.sender_name), m.record),
        )
        for at, m, text, page in texts
        if (shown.MARK in text or told.BOARD in text) and (shown_ := shown.report_of(text, page))
    ]
    reports = [report for report, _, _ in read]
    if not reports:
        return
    try:
        seat = seat_of(doc, c.reader)
        found = shown.untrue(
            doc, ch.rows, reports, seat, ch.seen_by_seat(seat), [p for _, p, _ in read], [s for _, _, s in read]
        )
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, registry.UnknownKind):
        c.notes.append("the tables of your reports were not compared: the export's record cannot be replayed")
        return
    c.checked.append(
        f"the tables of {count(len(reports), 'report')} (and what each asked of whom, its pictures of the board and its "
        "other words) "
        "are your view of the replayed game at their heads"
    )
    writers = {m.name: m.mailer for _, m, _, _ in texts}
    for at, name, how in found:
        c.problem(
            at,
            f"{name} {how}, but your view of the game replayed up to entry #{at} of the export does not: the report "
            "you were shown is not the history published (its text is not signed, only its head: this mail is your "
            "evidence, keep it)" + other_version(writers.get(name, "")),
        )


def _met(ch: _Chain, m: Received, at: int, upto: int, c: MailCheck) -> tuple[int, int] | None:
    """The (head, next visible position) whose window holds the states an answer that refuses nothing may have
    met: its own when it names no input; (the input's position - 1, the input's) when it names one, whose window is
    the one state before that input (its orders were read, and its notes written, at that state); None when the
    input it names is not on the chain as named (a problem of its own)."""
    if m.input is None:
        return at, upto
    n = _input_place(ch, m.input[0], m.input[1], c.reader)
    return (n - 1, n) if n is not None and ch.heads[n] == m.input[1] else None


def _answers(
    ch: _Chain, mails: list[Received], c: MailCheck, seat: list[str], wrote: dict[str, list[str]] | None, hints: bool
) -> tuple[list[refused.Refusal], list[str], dict[str, list[str]], int, list[refused.Refusal]]:
    """The answers to the player's messages `_refusals` reads: (the refusals, the Message-ID each answers, by a
    refusal's name the lines of the message sent where it does not quote them all, the count of those not in
    `wrote`, and, when `hints`, the answers that refuse nothing but give a "write it as:" hint, placed by `_met`)."""
    seen = ch.seen_by_seat(seat)
    end = len(ch.rows) + 1
    found: list[refused.Refusal] = []
    replying: list[str] = []
    full: dict[str, list[str]] = {}
    cut = 0
    hinting: list[refused.Refusal] = []
    for m in mails:
        if m.record is None or not m.in_reply_to or (at := ch.place(*m.record, [c.reader, *ch.names])) is None:
            continue
        text = told.plain(m.raw)
        if how := hint_markup.untrue(m.raw, text):
            c.problem(at, f"{m.name} {how}; its text is not signed, only its head: this mail is your evidence, keep it")
        upto = shown._after(seen, at, end)
        if (rows := refused.block(text)) is None:
            page = told.html(m.raw) if hints and (_SO_WRITE in text or refused.html_may_hint(m.raw)) else None
            if page is not None and refused.hinted_notes(text, page) and (met := _met(ch, m, at, upto, c)):
                hinting.append((*met, m.name, text, page))
            continue
        if refused.quoted(rows) is None:
            if wrote is not None and m.in_reply_to in wrote:
                full[m.name] = wrote[m.in_reply_to]
            else:
                cut += 1
        found.append((at, upto, m.name, text, told.html(m.raw)))
        replying.append(m.in_reply_to)
    return found, replying, full, cut, hinting


def _refusals(
    ch: _Chain,
    doc: dict[str, Any],
    mails: list[Received],
    c: MailCheck,
    reread: refused.Reread | None,
    wrote: dict[str, list[str]] | None = None,
    hint: refused.Hint | None = None,
) -> None:
    """Each acknowledgement of a refused message must give pbem's reasons for the lines it quotes: once the seed is
    out, pbem's reading of them at the state the message met (`pbem.trust.refused`); one that quotes only its first
    lines, pbem's reading of every line of the message (`wrote`: the player's Sent folder), cut as pbem cuts it.
    The order a "write it as:" note offers in any answer must be pbem's reading at that state too (`hint`)."""
    if not c.reader:
        return
    seat = seat_of(doc, c.reader)
    found, replying, full, cut, hinting = _answers(ch, mails, c, seat, wrote, hint is not None)
    numbered = {m.name: m.numbered for m in mails}  # a note names a mail by the record number it shows
    if hint is not None and hinting:
        _hints(ch, doc, hinting, seat, c, hint, numbered)
    if not found:
        return
    if not doc.get("seed"):
        c.notes.append(
            f"the reasons {count(len(found), 'acknowledgement')} gave for refusing your lines are worked out again "
            "once the game is over (its seed replays the state your message met): check again with the final export"
        )
        return
    if reread is None:
        c.notes.append(
            f"the reasons {count(len(found), 'acknowledgement')} gave for refusing your lines were not worked out again"
        )
        return
    if cut:
        c.notes.append(
            f"{count(cut, 'acknowledgement')} quoted only the first of the lines they refused (or cut a long one): "
            "what they quote and count is worked out again from the mail you sent, given with --sent"
        )
    aside: list[tuple[int, str, int]] = []
    try:
        wrong = refused.untrue(doc, ch.rows, found, seat, reread, replying, aside, full, hint)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, registry.UnknownKind):
        c.notes.append("the reasons your refused messages were given were not compared: the record cannot be replayed")
        return
    _unplaced(c, aside, "refuses your lines with reasons that are not pbem's reading of them", numbered)
    if not wrong and not aside:
        hinted = sum(1 for _, _, _, text, _ in found if refused.hinted_notes(text)) if hint is not None else 0
        c.checked.append(
            f"the reasons {count(len(found), 'acknowledgement')} gave for refusing your lines are pbem's reading of "
            "the lines they quote, in the game replayed to their heads"
            + (
                f'; so are the orders their "write it as:" hints offer (in {count(hinted, "acknowledgement")})'
                if hinted
                else ""
            )
        )
    writers = {m.name: m.mailer for m in mails}
    for at, how in wrong:
        c.problem(
            at,
            f"{how}, in the game replayed up to entry #{at} of the export: the refusal you were shown is not pbem's, "
            "and a line it refused may have been a valid order never applied (its text is not signed, only its head: "
            "this mail is your evidence, keep it)"
            + next((other_version(w) for n, w in writers.items() if how.startswith(n)), ""),
        )


def _unplaced(c: MailCheck, aside: list[tuple[int, str, int]], does: str, numbered: dict[str, str]) -> None:
    """A note for each answer (position, name, the states its window holds) that `does` something at none of the
    first `refused.STATES` states of a longer window, named with the record number it shows (`numbered`)."""
    for _, name, states in aside:
        c.notes.append(
            f"{numbered.get(name, name)} {does} at any of the first {refused.STATES} of the {states} states its head "
            "allows (other players' entries you may not see): not compared at the rest (keep this mail)"
        )


_SO_WRITE = "so write it as: "  # (a "write it as:" hint's words: `pbem.trust.refused.hinted_notes`)


def _hints(
    ch: _Chain,
    doc: dict[str, Any],
    acks: list[refused.Refusal],
    seat: list[str],
    c: MailCheck,
    hint: refused.Hint,
    numbered: dict[str, str],
) -> None:
    """The "write it as:" hints of answers that refuse no line (orders applied, held, or none found) must be pbem's
    at the state the message met (`pbem.trust.refused.hints_untrue`); before the seed is out, a note (`numbered`:
    each mail's name with the record number it shows)."""
    if not doc.get("seed"):
        c.notes.append(
            f'the "write it as:" hints of {count(len(acks), "acknowledgement")} are worked out again once the game '
            "is over (its seed replays the state your message met): check again with the final export"
        )
        return
    try:
        wrong, aside = refused.hints_untrue(doc, ch.rows, acks, seat, hint)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, registry.UnknownKind):
        c.notes.append('the "write it as:" hints your mail was given were not compared: the record cannot be replayed')
        return
    _unplaced(c, aside, 'gives "write it as:" hints that are not pbem\'s reading of the lines they name', numbered)
    for at, how in wrong:
        c.problem(
            at,
            f"{how}, in the game replayed up to entry #{at} of the export: the hint you were shown is not pbem's (its "
            "text is not signed, only its head: this mail is your evidence, keep it)",
        )
    if not wrong and not aside:
        c.checked.append(
            f'the "write it as:" hints of {count(len(acks), "acknowledgement")} without a refusal are pbem\'s reading '
            "of the lines they name, in the game replayed to their heads"
        )


def _statuses(
    ch: _Chain, doc: dict[str, Any], mails: list[Received], c: MailCheck, reread: refused.Reread | None
) -> None:
    """An acknowledgement of applied orders (its own mail) lists the player's orders on file and who is awaited:
    once the seed is out they must be the state's right after the input its receipt names (`pbem.trust.refused`)."""
    if not c.reader or reread is None or not doc.get("seed"):
        return
    acks: list[refused.Status] = []
    for m in mails:
        if m.input is None or not m.in_reply_to:
            continue
        n = _input_place(ch, m.input[0], m.input[1], c.reader)
        if n is None or ch.heads[n] != m.input[1]:
            continue  # (a changed input is `_inputs`'s to name)
        text = told.plain(m.raw)
        if not text.lstrip().startswith('Your message "') or "\nAccepted and applied:\n" not in text:
            continue  # (a report answering the message lists neither)
        acks.append((n, m.name, text, told.html(m.raw)))
    if not acks:
        return
    try:
        wrong = refused.status_untrue(doc, ch.rows, acks, seat_of(doc, c.reader), reread)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, registry.UnknownKind):
        return  # (a record that cannot be replayed: `_tables` says so)
    for at, how in wrong:
        c.problem(
            at,
            f"{how}, right after that input: the acknowledgement you were shown is not the history published (its "
            "text is not signed, only its receipt: this mail is your evidence, keep it)",
        )


class _Plains(dict[int, str]):
    """Each mail's plain text (`told.plain`), decoded once for the checks that read every mail's (by `id`)."""

    def of(self, m: Received) -> str:
        if id(m) not in self:
            self[id(m)] = told.plain(m.raw)
        return self[id(m)]


def _join_ack(ch: _Chain, n: int | None, m: Received, text: str) -> bool:
    """Whether `_joins` reads a mail as a JOIN's acknowledgement: one in its form, or any mail whose receipt names a
    JOIN input (whatever its first line says), but the joiner's first report answering the JOIN that dealt
    (notices2), which the report checks read whole (its quote `acked`'s, its prose `prose`'s)."""
    if joined.is_join_ack(text):
        return True
    if n is None or ch.rows[n - 1].get("kind") != "join":
        return False
    return not (shown.MARK in text and shown.report_of(text, told.html(m.raw)))


def _joins(ch: _Chain, doc: dict[str, Any], mails: list[Received], c: MailCheck, plains: _Plains) -> None:
    """Each acknowledgement of a JOIN must say what the record folded to it gives (`pbem.trust.joined`): the game, the
    seat and salt of the input its receipt names, whether the player had joined, why a line was refused, who is
    awaited; and what became of the message it answers must be the export's outcome for it."""
    if not c.reader:
        return
    outcomes = {message_key(str(r.get("message_id", ""))): str(r.get("outcome")) for r in doc.get("messages", [])}
    acks: list[joined.Ack] = []
    invitations: list[tuple[int, Received, str]] = []
    for m in mails:
        if m.record is None:
            continue
        at = ch.place(*m.record, [c.reader, *ch.names])
        n = _input_place(ch, m.input[0], m.input[1], c.reader) if m.input is not None else None
        if at is None or (m.input is not None and (n is None or ch.heads[n] != m.input[1])):
            continue  # (a head or an input not on the chain: `_heads` and `_inputs` name it)
        text = plains.of(m)
        if m.input is None and joined.is_invitation(text):
            invitations.append((at, m, text))
            continue
        if not _join_ack(ch, n, m, text):
            continue
        if "salts" not in doc:
            c.problem(at, f"{m.name} answers a JOIN, but the export's game had no join step", rank=0)
            continue
        outcome = outcomes.get(m.in_reply_to) if m.in_reply_to else None
        if outcome is not None and (m.input is not None) != (outcome == "accepted"):
            c.problem(
                at,
                f"{m.name} says your JOIN was {'applied' if m.input is not None else 'not applied'}, but the export "
                f"records your message <{clip(m.in_reply_to)}> {clip(outcome)}: the acknowledgement you were shown is "
                "not the history published (this mail is your evidence, keep it)",
                rank=0,
            )
            continue
        acks.append((at, n, m.name, text, told.html(m.raw), ch.rows[n - 1] if n is not None else None))
    if invitations and "salts" in doc:
        _invitations(ch, doc, invitations, c)
    if not acks:
        return
    senders = {m.name: m.sender_name for m in mails}
    try:
        wrong = joined.untrue(doc, ch.rows, acks, seat_of(doc, c.reader), lambda name: senders.get(name, ""))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, registry.UnknownKind):
        c.notes.append("what your JOINs' acknowledgements say was not compared: the join step cannot be replayed")
        return
    left = joined.unfolded(doc, ch.rows, acks)
    if left:
        c.notes.append(
            f"what {count(left, 'acknowledgement')} of your JOINs said after an undo in the join step is compared once "
            "the game is over (the undo is read with the seed): check again with the final export"
        )
    if not wrong and len(acks) > left:
        c.checked.append(
            f"what {count(len(acks) - left, 'acknowledgement')} of your JOINs said (your seat, your salt, who was awaited) is the "
            "join step the record gives"
        )
    for at, how in wrong:
        c.problem(
            at,
            f"{how}, in the join step replayed up to entry #{at} of the export: the acknowledgement you were shown is "
            "not the history published (its text is not signed, only its receipt: this mail is your evidence, keep "
            "it)",
            rank=0,
        )


def _invitations(ch: _Chain, doc: dict[str, Any], found: list[tuple[int, Received, str]], c: MailCheck) -> None:
    """Each invitation to join (or STATUS while the join step is open) must say what the join step at its head gives
    (`pbem.trust.joined.invitation_untrue`): the seats, who is awaited, whether the reader had joined and with which
    salt, the commitment and the key's fingerprint."""
    try:
        steps = joined.states(doc, ch.rows, [at for at, _, _ in found])
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, registry.UnknownKind):
        return  # (a record that cannot be replayed: `pbem verify` and the tables' note say why)
    key = doc["game"].get("key")
    fp = signing.fingerprint(key) if key else ""
    seat = seat_of(doc, c.reader)
    compared = 0
    for at, m, text in found:
        if at not in steps:
            continue  # (after an undo in the join step, before the seed is out)
        compared += 1
        how = joined.invitation_untrue(text, told.html(m.raw), steps[at], seat, str(doc["seed_commitment"]), fp)
        if how:
            c.problem(
                at,
                f"{m.name} {how}, in the join step replayed up to entry #{at} of the export: the invitation you were "
                "shown is not the history published (its text is not signed, only its head: this mail is your "
                "evidence, keep it)",
                rank=0,
            )
            compared = -len(found)
    if compared > 0:
        c.checked.append(
            f"what {count(compared, 'invitation')} to join said (the seats, who was awaited, the commitment) is the "
            "join step the record gives"
        )


def _held(
    ch: _Chain,
    doc: dict[str, Any],
    mails: list[Received],
    c: MailCheck,
    plains: _Plains,
    reread: refused.Reread | None = None,
    failed: refused.Failed | None = None,
) -> None:
    """An acknowledgement of orders held until the deadline carries no receipt (no input is recorded until the
    deadline) and lists the lines it accepted and the orders it put on file: both must be the lines the deadline
    applied for that message (the export's input naming it), in the text and the HTML part (`pbem.trust.acked.held`).
    A held message the deadline never applied: once the seed is out, pbem's reading of the lines it put on file must
    refuse them at the state the deadline met (`pbem.trust.dropped`), and the reasons a held_failed notice gives
    for them must be that reading's (`failed`: `pbem.trust.dropped.failed_untrue`); before, a note."""
    if not c.reader:
        return
    held = {
        message_key(str(r.get("message_id", ""))): str(r.get("received"))
        for r in doc.get("messages", [])
        if r.get("outcome") == "held"
    }
    seat = set(seat_of(doc, c.reader))
    applied = {
        message_key(str(row.get("message_id") or "")): n
        for n, row in enumerate(ch.rows, 1)
        if row.get("kind") == "orders" and row.get("player") in seat and row.get("message_id")
    }
    compared = 0
    unapplied: list[dropped.Held] = []
    before = len(c.problems)
    notices: list[tuple[str, list[tuple[str, str]]]] = []
    for m in mails:
        if m.input is None and (said := dropped.notice(plains.of(m))) is not None:
            notices.append((m.name, said))  # a held_failed notice
        if m.input is not None or not m.in_reply_to or m.in_reply_to not in held:
            continue
        text = plains.of(m)  # (pbem's answer to a held message, with or without its note: both are read)
        if acked.said_outcome(text) != "applied" and "\nOrders now on file for you" not in text:
            continue
        n = applied.get(m.in_reply_to)
        if n is None:
            filed = acked.on_file([row.rstrip() for row in text.split("\n")])
            unapplied.append(dropped.Held(m.name, held[m.in_reply_to], filed, m.in_reply_to))
            continue
        compared += 1
        how = acked.held(text, told.html(m.raw), [str(x) for x in ch.rows[n - 1].get("lines", [])])
        if how:
            c.problem(
                n,
                f"{m.name} {how} (the lines the deadline applied for your message <{clip(m.in_reply_to)}>, "
                f"{ch.entry(n)}): the acknowledgement you were shown is not the history published (its text is not "
                "signed: this mail is your evidence, keep it)",
                rank=0,
            )
    left = _dropped(doc, ch, unapplied, c, reread)
    waiting = {
        key
        for r in doc.get("messages", [])
        if r.get("outcome") == "held" and r.get("player") in seat
        if (key := message_key(str(r.get("message_id", "")))) not in applied
    }
    _failed(doc, ch, unapplied, notices, c, failed, waiting)
    if left:
        c.notes.append(
            f"{count(left, 'acknowledgement')} of orders held until the deadline answer messages no input of the "
            "export applies: "
            + (
                "whether the deadline refused or dropped them is worked out again once the game is over (its seed "
                "replays the state the deadline met): check again with the final export"
                if not doc.get("seed")
                else "no deadline came after them (a game that ended first), or the record cannot be replayed: "
                "what they list was not compared"
            )
        )
    elif compared and len(c.problems) == before:
        c.checked.append(
            f"the lines {count(compared, 'acknowledgement')} of orders held until the deadline listed as accepted "
            "and on file are those the deadline applied"
        )


def _dropped(
    doc: dict[str, Any], ch: _Chain, unapplied: list[dropped.Held], c: MailCheck, reread: refused.Reread | None
) -> int:
    """Name each held message the deadline dropped (`pbem.trust.dropped`): the count left not compared."""
    if not unapplied or not doc.get("seed") or reread is None:
        return len(unapplied)
    try:
        wrong, compared, _ = dropped.untrue(doc, ch.rows, unapplied, seat_of(doc, c.reader), reread)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, registry.UnknownKind):
        return len(unapplied)
    for how in wrong:
        c.problem(
            len(ch.rows),
            f"{how} (the export records the message held and never applied: this mail is your evidence, keep it)",
            rank=0,
        )
    if compared and not wrong:
        c.checked.append(
            f"the orders {count(compared, 'acknowledgement')} of held orders put on file and the deadline never "
            "applied are refused by pbem's reading at the state the deadline met"
        )
    return len(unapplied) - compared


def _failed(
    doc: dict[str, Any],
    ch: _Chain,
    unapplied: list[dropped.Held],
    notices: list[tuple[str, list[tuple[str, str]]]],
    c: MailCheck,
    failed: refused.Failed | None,
    waiting: set[str],
) -> None:
    """Name each held_failed notice whose reasons are not pbem's reading at the state the deadline met
    (`pbem.trust.dropped.failed_untrue`), or that quotes lines no held message the deadline left unapplied
    (`waiting`, their Message-IDs) put on file (`pbem.trust.dropped.unfiled`); a note when they cannot be compared."""
    if not notices:
        return
    compared = settled = 0
    if doc.get("seed"):  # (a final export: every held message the deadline left unapplied is in it)
        unfiled, unsettled = dropped.unfiled(notices, unapplied, waiting)
        for how in unfiled:
            c.problem(len(ch.rows), f"{how} (the notice's text is not signed: this mail is your evidence, keep it)", 0)
        c.notes += unsettled
        settled = len(unfiled) + len(unsettled)
    if doc.get("seed") and failed is not None and unapplied:
        try:
            wrong, compared = dropped.failed_untrue(doc, ch.rows, unapplied, notices, seat_of(doc, c.reader), failed)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, registry.UnknownKind):
            wrong = []
        for how in wrong:
            c.problem(len(ch.rows), f"{how} (the notice's text is not signed: this mail is your evidence, keep it)", 0)
        if compared and not wrong:
            c.checked.append(
                f"the reasons {count(compared, 'notice')} of held orders not applied gave are pbem's reading at the "
                "state the deadline met"
            )
    if compared + settled < len(notices):
        c.notes.append(
            f"the reasons {count(len(notices) - compared - settled, 'notice')} of held orders not applied gave were not worked "
            "out again"
            + (
                ": check again with the final export (its seed replays the state the deadline met)"
                if not doc.get("seed")
                else ""
            )
        )


def _unread(mails: list[Received], c: MailCheck, plains: _Plains) -> None:
    """Name, in a note, each answer to the player's message without an input's receipt that is in none of the forms
    the checks read (an acknowledgement of orders or of a JOIN, a report, the invitation to join): pbem's answers to
    HELP, HISTORY, RESIGN, AWAY and the like are not compared with anything, so their words, or a moderator's in
    their place, are his alone (eighth round: such an answer passed without a word)."""
    found = []
    for m in mails:
        if m.record is None or m.input is not None or not m.in_reply_to:
            continue
        text = plains.of(m)
        first = text.lstrip().split("\n", 1)[0]
        if (first.startswith('Your message "') and '" for game "' in first) or shown.MARK in text:
            continue
        if joined.is_join_ack(text) or joined.is_invitation(text):
            continue
        found.append(m.name)
    if found:
        c.notes.append(
            f"what {count(len(found), 'answer')} to your messages said was compared with nothing (none is an "
            "acknowledgement of orders or of a JOIN, or a report: pbem's answers to HELP, HISTORY, RESIGN and the "
            f"like are not read): {'; '.join(clip(x, 120) for x in found[:3])}"
            + (f" and {len(found) - 3} more" if len(found) > 3 else "")
        )


def _unsent(mails: list[Received], c: MailCheck, plains: _Plains) -> None:
    """Without the player's Sent folder, a note that what answers quote of the player's own mail (its subject, the
    lines set aside as not orders, the lines their notes quote) was compared with nothing: the export holds no copy
    of a message, nor a digest of it (eighth round: they were left unchecked without a word)."""
    quoting = 0
    for m in mails:
        if m.record is None or not m.in_reply_to:
            continue
        text = plains.of(m)
        if text.lstrip().startswith('Your message "') or "\n== Your message ==\n" in text:
            quoting += 1
    if quoting:
        c.notes.append(
            f"the subject {count(quoting, 'answer')} to your messages quote, and the lines they set aside as not "
            "orders or quote in their notes, were not compared with what you sent: the export holds no copy of your "
            "mail (give your Sent folder with --sent)"
        )


_PRESS_SENT = re.compile(r"^  NOTE Press sent to ([^\n]{1,2000})\.$", re.M)
_HTML_PRESS_SENT = re.compile(r"<p>Press sent to ([^<\n]{1,2000})\.</p>")
_PRESS_FAILED = re.compile(r"^  NOTE Press not sent: ([^\n]{1,2000})\. Write PRESS TO ", re.M)
_HTML_PRESS_FAILED = re.compile(r"<p>Press not sent: ([^<\n]{1,2000})\. Write <code>PRESS TO ")


def _press_failed(
    doc: dict[str, Any],
    c: MailCheck,
    refusals: list[tuple[int, str, str, str]],
    seat: set[str],
    gone: resigns.Gone,
    held: pressed.Held,
) -> None:
    """Each "Press not sent: WHY." must be the reason pbem's reading of the names it quotes gives over the other
    players (`pbem.trust.pressed`): it was the moderator's word, so he could say a press to Bob was not sent and
    never relay it (eighth round)."""
    if not refusals:
        return
    pools = [[str(p["name"]) for p in doc["players"] if str(p["name"]) not in seat], readers(doc)]
    pools[1] = [n for n in pools[1] if n not in seat]
    for at, part, why, name in refusals:
        how = pressed.untrue(why, pools, gone.at(at), held.at(at))
        if how:
            c.problem(
                at,
                f"{name}{' in its HTML part' if part else ''} {how}: the answer you were shown is not pbem's (its text "
                "is not signed: this mail is your evidence, keep it)",
                rank=0,
            )


def _press(ch: _Chain, doc: dict[str, Any], mails: list[Received], c: MailCheck, plains: _Plains) -> None:
    """Each "Press sent to NAMES." an answer notes (in its text and its HTML part) must be a press of the reader's
    the export records by then (a `press` event from their seat to exactly those players, at or before the mail's
    head), each recorded press noted once: the names were the moderator's word, so he could tell Alice her press
    went to Bob and Carol and relay it to Bob alone, or to nobody."""
    if not c.reader:
        return
    from html import unescape

    seat, gone, held = set(seat_of(doc, c.reader)), resigns.Gone(ch.rows), pressed.Held(ch.rows)
    sent = [
        (n, ", ".join(str(x) for x in row["data"].get("to", [])))
        for n, row in enumerate(ch.rows, 1)
        if row.get("kind") == "press" and isinstance(row.get("data"), dict) and row["data"].get("from") in seat
    ]
    claims: list[tuple[int, str, str, str]] = []  # (head's place, part, names, mail's name)
    for m in mails:
        if m.record is None or (at := ch.place(*m.record, [c.reader, *ch.names])) is None:
            continue
        text = plains.of(m)  # (every mail's: a part in base64 hides its words from a look at the bytes)
        claims += [(at, "", names, m.name) for names in _PRESS_SENT.findall(text)]
        refusals = [(at, "", why, m.name) for why in _PRESS_FAILED.findall(text)]
        if "Your message" in text:  # (where pbem writes the note: an answer, a report's block answering it)
            page = told.html(m.raw)
            claims += [(at, "HTML part", unescape(names), m.name) for names in _HTML_PRESS_SENT.findall(page)]
            refusals += [(at, "HTML part", unescape(why), m.name) for why in _HTML_PRESS_FAILED.findall(page)]
        _press_failed(doc, c, refusals, seat, gone, held)
    by_names: dict[str, list[int]] = {}  # each list of names: the places of the presses to them, in order
    for n, to in sent:
        by_names.setdefault(to, []).append(n)
    for part in ("", "HTML part"):
        # the claims in order of their heads take the earliest press to their names not taken yet, at or before the
        # head: those taken are the first ones of each list, so a place a list is enough (a scan past every press
        # taken before was the square of the presses, 4,000 notes: seconds)
        taken = dict.fromkeys(by_names, 0)
        for at, _, names, name in sorted(x for x in claims if x[1] == part):
            places, k = by_names.get(names, []), taken.get(names, 0)
            if k < len(places) and places[k] <= at:
                taken[names] = k + 1
                continue
            c.problem(
                at,
                f"{name}{' in its HTML part' if part else ''} says your press was sent to {clip(names)}, but the "
                f"export records no {'other ' if names in by_names else ''}press of yours to "
                f"exactly them up to entry #{at} of the export: the answer you were shown is not the history "
                "published (its text is not signed: this mail is your evidence, keep it)",
                rank=0,
            )
        if part == "":
            _press_untold(c, by_names, taken, ch.rows)


def _press_untold(
    c: MailCheck,
    by_names: dict[str, list[int]],
    taken: dict[str, int],
    rows: list[dict[str, Any]],
) -> None:
    """A WARNING for each press of the reader's that no answer of pbem's they hold notes ("Press sent to NAMES.", in
    the answer to the mail that held it, written with the press): a press the moderator wrote in their name had no
    mail of theirs to answer, and without the Sent folder it was seen only by eye in a report (fairness24).  A
    warning: an answer can be lost, or not sent past the answers budget; `--sent` names a press never written
    (`pbem.trust.asked`).  Only the presses under the reader's own name: a seat given to them held others'."""
    for names, places in by_names.items():
        for n in places[taken.get(names, 0) :]:
            row = rows[n - 1]
            if str(row["data"].get("from", "")).casefold() != (c.reader or "").casefold():
                continue  # a press of the seat's before it was given to the reader (`seat_of`): not their mail's
            c.notes.append(
                f'WARNING: entry #{n} of the export ("{clip(str(row.get("text", "")))}", {clip(str(row.get("at")))}) '
                f'is a press of yours to {clip(names)}, but none of your mails notes "Press sent to {clip(names)}." '
                "(pbem notes each press in its answer to the mail that held it): if you did not write it, the "
                "moderator wrote it in your name (check with --sent); else that answer was lost or not sent"
            )


def other_version(mailer: str) -> str:
    """What to add to a table's mismatch when the report was written by another pbem than this one: the tables are
    rendered with this pbem's views and templates, so an upgrade that changed how one reads is named as a mismatch
    (docs/security.md); the report names its writer's version in X-Mailer ("pbem" alone before pbem did)."""
    from pbem import __version__

    ours = f"pbem {__version__}"
    if mailer == ours:
        return ""
    wrote = f"{clip(mailer, 40)}" if mailer.startswith("pbem ") else "a pbem that did not name its version"
    return (
        f"; that mail was written by {wrote} and you check with {ours}: check it again with the version that wrote it"
    )


def _deadlines(ch: _Chain, doc: dict[str, Any], mails: list[Received], texts: Texts, c: MailCheck) -> None:
    """No deadline's defaults were applied before a deadline a report or a reminder stated earlier for the same step
    (`pbem.trust.due`; the step each stated it of is the replayed game's once the seed is out); no mail stated a
    step's deadline earlier than one before it (`due.shrunk`), nor two in one state different ones (`due.split`);
    each report's time left is the one its Date gives
    (`due.left_untrue`)."""
    reports = [  # each named by the record number it shows (`Received.numbered`), as every line naming it
        (at, m.numbered, when, m.sort_key)
        for at, m, text, _ in texts
        if (shown.MARK in text or told.BOARD in text) and (when := due.stated(text, m.sort_key)) is not None
    ]  # reports only: an invitation's join deadline is no step's
    start = len(c.problems)
    subjects = noticed.subjects(doc["game"]["name"])
    reports += [
        (at, m.numbered, when, m.sort_key)
        for m in (mails if c.reader else [])
        if m.subject in subjects
        and m.record is not None
        and (at := ch.place(*m.record, [c.reader, *ch.names]))
        and (when := noticed.reminder_due(told.plain(m.raw))) is not None
    ]  # a reminder states the deadline of the step open at its head too
    c.stated = _pinned(ch, doc, reports, c.reader)  # compared with other players' mail (`apart`)
    signed = _signed_at(doc, ch.rows)  # the inputs' signing times: the step each answered is read too (`due.late`)
    paced_by = paced.pace(ch.rows) if doc.get("seed") else None  # every input's step is read then (fairness16)
    more = (*(n - 1 for n in signed), *(range(len(ch.rows) + 1) if paced_by else ()))
    step = _steps(doc, ch.rows, [r[0] for r in reports], more)
    for at, how in due.early(ch.rows, [r[:3] for r in reports], step):
        c.problem(
            at,
            f"{how}: the deadline was moved earlier outside the record (a deadline edited by hand is no entry of the "
            "chain), so orders you sent before it may have been refused as late or replaced by the default; that "
            "report is your evidence (its text is not signed, only its head), keep it",
        )
    late = Alike("inputs applied long after the deadline a report stated")  # at most `ALIKE` whole (costs19)
    for position, how in due.late(ch.rows, [r[:3] for r in reports], signed, step):
        if late.room(f"entry #{position}"):
            late.lines.append(
                f"WARNING: {how}, outside the record (a due time edited, the poll held), unless pbem held that deadline "
                "itself (a report undelivered, pbem down with outage_after off or longer, its clock ahead); that report is "
                "your evidence, keep it"
            )
    c.notes += late.out()
    for at, m, text, _ in texts:
        if (shown.MARK in text or told.BOARD in text) and (how := due.left_untrue(text, m.sort_key)):
            c.problem(
                at,
                f"{m.numbered}: {how}: the time left it told you is not the time you had (an old report sent "
                "again? its text is not signed, only its head: this mail is your evidence, keep it)",
            )
    for at, how in due.shrunk(ch.rows, reports, step):
        c.problem(
            at,
            f"{how}: you were told less time than the step had (its text is not signed, only its head: this mail "
            "and the one before are your evidence, keep them)",
        )
    said = "\n".join(c.problems[start:])
    for at, how, (one, two) in due.split(c.stated):
        if one not in said and two not in said:  # a mail named already is named once
            c.problem(at, f"{how}, so one of them told you another deadline than you had (keep both mails)")
    _unasked(ch, doc, mails, more, c)
    # the join step's moves are chained (fairness17): its deadline is computed too, and the invitations state it
    join = paced_by is not None and paced.joins(ch.rows)
    invited = _invited(ch, mails, c) if join and c.reader else []
    if step is None and invited:
        step = _steps(doc, ch.rows, [r[0] for r in invited], more)
    if paced_by is not None and step is not None:
        said = "\n".join(c.problems[start:])
        unnamed = [r for r in reports if r[1] not in said]  # a mail named already is named once
        _computed(ch, doc, unnamed + invited, paced.computed(ch.rows, step, paced_by, join), c)


def _unasked(ch: _Chain, doc: dict[str, Any], mails: list[Received], more: tuple[int, ...], c: MailCheck) -> None:
    """A deadline's defaults applied for the reader in a step none of their mails was written in (`due.unasked`): the
    report that asked them withheld, and the reminders too.  Any mail of theirs placed in that step counts (an
    acknowledgement answering a question still open in the same mail, a reminder, a report), so only a step they were
    mailed nothing in is named.  Once the seed is out (the step is the replayed game's)."""
    if not c.reader or not doc.get("seed") or not any(r.get("kind") == "deadline" for r in ch.rows):
        return
    places = [c.reader, *ch.names]
    heads = [(at, m.numbered, datetime.min) for m in mails if m.record and (at := ch.place(*m.record, places))]
    step = _steps(doc, ch.rows, [h[0] for h in heads] or [0], more)
    if step is None:
        return
    for _, how in due.unasked(ch.rows, heads, step, seat_of(doc, c.reader)):
        c.notes.append(
            f"WARNING: {how}: pbem mails every player a step asks the report that asks them, and a reminder before "
            "its deadline, so a report was written to you but not received (withheld by the moderator, or lost: look "
            "in your spam folder and the mail you deleted)"
        )


#: What pbem tells a player of a request of theirs it carried out, in the subject of the mail it writes them with it
#: (`pbem.app.resigning`, `pbem.app.addresses.moved`: the notice to the seat's old address), by the event's action.
TOLD_OF = {"resign": "You resigned", "address": "The mail of {player} goes to "}


def _resigned_untold(ch: _Chain, doc: dict[str, Any], mails: list[Received], c: MailCheck) -> None:
    """A WARNING for each resignation or move of the reader's seat's mail (a `resign` or `address` event naming them)
    that none of their mails written at it or after tells them of: pbem writes "You resigned", or "The mail of Alice
    goes to ... now" to the old address, in the step that records it (`TOLD_OF`), and a resigned or moved player gets
    no more reports there, so an event the moderator wrote himself (the effects of a confirmed RESIGN or ADDRESS,
    without their mails) left the player's mail silent, while `pbem game process` applied a resigned player's
    defaults at once and `due.unasked` owed them nothing (fairness23).  A warning: a mail can be lost; `--sent`
    names a request never sent (`pbem.trust.asked`).  One pass of the chain and of the mails."""
    if not c.reader:
        return
    who = c.reader.lower()
    events = [
        (n, row, str(row["data"]["action"]))
        for n, row in enumerate(ch.rows, 1)
        if row.get("kind") == "moderator"
        and isinstance(row.get("data"), dict)
        and row["data"].get("action") in TOLD_OF
        and str(row["data"].get("player", "")).lower() == who
    ]
    if not events:
        return
    places = [c.reader, *ch.names]
    tag = visible(f"[pbem {doc['game']['name']}] ").lower()
    told = [
        (subject, at)
        for m in mails
        if (subject := visible(m.subject).lower()).startswith(tag) and m.record and (at := ch.place(*m.record, places))
    ]
    for n, row, action in events:
        _word_unmailed(n, row, tag, told, c)
        said = (tag + TOLD_OF[action].format(player=c.reader)).lower()
        if any(subject.startswith(said) and at >= n for subject, at in told):
            continue
        what = "you resigned" if action == "resign" else "your seat's mail goes to a new address"
        c.notes.append(
            f'WARNING: entry #{n} of the export ("{clip(str(row.get("text", "")))}", {clip(str(row.get("at")))}) '
            f'says {what}, but none of your mails tells you so (pbem mails "{TOLD_OF[action].format(player=c.reader)}'
            f'..." when it records it, and sends you no more reports{" there" if action == "address" else ""}): if '
            "you never asked it, the moderator wrote it (check with --sent); else the mail was lost"
        )


#: The subject of pbem's answer to RESIGN that gives the word (templates/mail/resign_confirm.txt.j2), lower case.
WORD_SUBJECT = "to resign, reply with: resign "


def _word_unmailed(n: int, row: dict[str, Any], tag: str, told: list[tuple[str, int]], c: MailCheck) -> None:
    """A WARNING for a resignation of the reader's whose word (``word``, since fairness24) no mail of theirs before
    it gave ("To resign, reply with: RESIGN <word>"): the player's mail that confirmed it gave another word (a
    wrong one pbem refused, or one of a RESIGN the player never sent), and the moderator recorded the resignation
    anyway; `--sent` compares the word with the player's own mail (`pbem.trust.asked`).  A warning: a mail can be
    lost."""
    word = row["data"].get("word")
    if row["data"].get("action") != "resign" or not isinstance(word, str):
        return
    if any(subject == f"{tag}{WORD_SUBJECT}{word}" and at <= n for subject, at in told):
        return
    c.notes.append(
        f'WARNING: entry #{n} of the export ("{clip(str(row.get("text", "")))}", {clip(str(row.get("at")))}) says '
        f"you resigned with the word {clip(word)}, but no mail of yours before it gives that word (pbem mails it "
        f'as "To resign, reply with: RESIGN {clip(word)}"): if you did not confirm with it, the moderator resigned '
        "you (check with --sent); else that mail was lost"
    )


def _supported(
    claimed: arrived.Claims, late: list[tuple[str, datetime, datetime]], doc: dict[str, Any], ch: _Chain, c: MailCheck
) -> None:
    """For each chained outage that excuses a late mail of the reader's, who else the record shows was mailed inside
    it (`arrived.witnesses`: their mail was held too, so it can bear the claim out or belie it, `--mail` of theirs
    with yours), or that nobody was: then the claim rests on the moderator's word alone (twenty-seventh round)."""
    seen: set[int] = set()
    for _, d, a in late:
        why = claimed.excused(d, a)
        if why is None or why.place in seen:
            continue
        seen.add(why.place)
        others = arrived.witnesses(why, doc, ch.rows, c.reader or "")
        span_ = f"entry #{why.place} of the export ({why.start:%Y-%m-%d %H:%M} to {why.end:%Y-%m-%d %H:%M} UTC)"
        if others:
            c.notes.append(
                f"the outage {span_} held mail the record shows pbem wrote to {', '.join(map(clip, others[:5]))}"
                f"{' and others' if len(others) > 5 else ''} too: their mail of that time, late as yours, bears it "
                "out; received before its end, it belies it (verify theirs with yours: --mail once per mailbox)"
            )
        else:
            c.notes.append(
                f"the outage {span_} excuses your late mail, but the record shows no mail to anyone else written in "
                "that time (no message read, no input applied, no deadline): it rests on the moderator's word alone. "
                "An outage with only your mail waiting looks the same; if the game had news for others then, ask them"
            )


def _arrivals(ch: _Chain, doc: dict[str, Any], mails: list[Received], c: MailCheck) -> None:
    """When each mail reached the player (their provider's topmost `Received` field) against its Date, and each
    mail's Date against the next entry its reader may see (`pbem.trust.arrived`): a report held back, a clock ahead,
    a clock set back (twentieth round).  Warnings: each has an honest cause too."""
    dated = [(m.numbered, m.sort_key, arrived.arrival(m.raw)) for m in mails]
    claimed = arrived.Claims(ch.rows)
    late = arrived.late(dated)
    excused = [
        f"{name} reached your provider at {a:%Y-%m-%d %H:%M} UTC, {arrived.said(a - d)} after its Date "
        f"({d:%Y-%m-%d %H:%M} UTC): late: the moderator's server could not send from {why.start:%Y-%m-%d %H:%M}"
        f" to {why.end:%Y-%m-%d %H:%M} UTC (entry #{why.place} of the export, chained and told to every "
        "player); it left you less time than it says"
        for name, d, a in late
        if (why := claimed.excused(d, a)) is not None
    ]
    c.notes += excused[:SHOWN]
    if len(excused) > SHOWN:
        c.notes.append(f"and {count(len(excused) - SHOWN, 'more mail')} late the same way, inside a chained outage")
    _supported(claimed, late, doc, ch, c)
    found = [
        (
            f"{name} reached your provider at {a:%Y-%m-%d %H:%M} UTC (its topmost Received line), "
            f"{arrived.said(a - d)} after its Date ({d:%Y-%m-%d %H:%M} UTC): pbem dates a mail as it writes it and sends "
            "it in the same run, so it was held before it was sent (by the moderator, or by pbem's outbox while the "
            "mail server was down, which pbem then chains as an outage: none here covers this mail), or pbem's clock "
            "was behind; a report held back leaves you less time than it says"
            for name, d, a in late
            if claimed.excused(d, a) is None
        ),
        (
            f"{name}, dated {d:%Y-%m-%d %H:%M} UTC, reached your provider at {a:%Y-%m-%d %H:%M} UTC, inside the "
            f"outage entry #{w.place} of the export claims (pbem's mail server could not take mail from "
            f"{w.start:%Y-%m-%d %H:%M} to {w.end:%Y-%m-%d %H:%M} UTC): it was sent while the claim says nothing "
            "could be, so the claim is not true of your mail (one made to cover another player's mail held back?)"
            for name, d, a, w in claimed.belied(dated)
        ),
        (
            f"{name} reached your provider at {a:%Y-%m-%d %H:%M} UTC, inside the outage entry #{g.place} of the export "
            f"says pbem did not run in ({g.start:%Y-%m-%d %H:%M} to {g.end:%Y-%m-%d %H:%M} UTC): pbem sends mail only "
            "when it runs (a poll; `pbem outbox release` after a restore), so it ran then, and the outage excuses a "
            "mail held or never written"
            for name, a, g in arrived.sent_inside(ch.rows, dated)
        ),
        (
            f"{name} reached your provider at {a:%Y-%m-%d %H:%M} UTC (its topmost Received line), "
            f"{arrived.said(d - a)} before its Date ({d:%Y-%m-%d %H:%M} UTC): pbem's clock was ahead of your "
            "provider's, so the times the record holds (deadlines applied, orders read) are that much late"
            for name, d, a in arrived.ahead(dated)
        ),
    ]
    if c.reader:
        places = [c.reader, *ch.names]
        heads = [(at, m.numbered, m.sort_key) for m in mails if m.record and (at := ch.place(*m.record, places))]
        seen = ch.seen_by_seat(seat_of(doc, c.reader))
        found.append(
            f"{name} is dated {d:%Y-%m-%d %H:%M} UTC, {arrived.said(d - when)} after entry #{n} of the export "
            f"({ch.entry(n)}, dated {when:%Y-%m-%d %H:%M} UTC), the next you may see, which its head does not hold: "
            "pbem writes a mail before the next entry its reader may see, so the record's clock was set back between "
            "them (`pbem poll --trust-clock` after a clock that ran ahead, or the moderator dating entries earlier "
            "than they were made: an order read late recorded as on time)"
            for _, name, d, n, when in arrived.rewound(ch.rows, heads, seen)
        )
    for kind in found:
        said = list(kind)
        c.notes += [f"WARNING: {w}" for w in said[:SHOWN]]
        if len(said) > SHOWN:
            c.notes.append(f"WARNING: and {count(len(said) - SHOWN, 'more mail')} the same way")


def _invited(ch: _Chain, mails: list[Received], c: MailCheck) -> list[tuple[int, str, datetime, float]]:
    """(head, name, join deadline stated, sort key) of each invitation to join (or STATUS while the join step is
    open) of `mails` stating one ("Join by: ...", "The others have until ... to join."), in its text or its HTML part
    (`joined.joins_by`)."""
    out = []
    for m in mails:
        if m.record is None or m.input is not None or not (b"joining" in m.raw or b"base64" in m.raw):
            continue
        text = told.plain(m.raw)
        at = ch.place(*m.record, [c.reader, *ch.names])
        if at is not None and joined.is_invitation(text):
            out += [(at, m.numbered, when, m.sort_key) for when in joined.joins_by(text, told.html(m.raw))]
    return out


def _computed(
    ch: _Chain,
    doc: dict[str, Any],
    reports: list[tuple[int, str, datetime, float]],
    dues: list[paced.Due | None],
    c: MailCheck,
) -> None:
    """Each report or reminder of `reports` stating, for the step open at its head, another deadline than the one the
    chain gives (`pbem.trust.paced`: the step length chained in the first input, the `at` of the entry that opened
    the step, the deadline each moderator event that moved it states), in every state it may have been written in
    (from its head to the next entry its reader may see): a deadline told to this player alone, or bent for every
    player with no event, which no other check of their own mail could name (fairness16)."""
    seen = ch.seen_by_seat(seat_of(doc, c.reader)) if c.reader else []
    end, last, indexed = len(ch.rows) + 1, due.windows(ch.rows), paced.Told(dues)
    for at, name, when, _ in sorted(reports, key=lambda r: (r[0], r[3])):
        upto = shown._after(seen, at, end)
        if upto < end and last[upto] > at:
            upto = last[upto]  # the input of the next entry they may see: they were written together
        if (d := indexed.unlike(at, upto, when)) is None:
            continue
        way = "earlier" if when < d.when else "later"
        c.problem(
            at,
            f"{name} stated the deadline {when:%a %d %b %Y %H:%M} UTC, {due.span(abs(d.when - when))} "
            f"{way} than the deadline the chain gives for the step open then, {d.when:%a %d %b %Y %H:%M} UTC ({d.how}; "
            "the game's step length is chained in its first input, and every event that moves a deadline states the "
            "new one): you were told another deadline than the game had (its text is not signed, only its head: "
            "this mail is your evidence, keep it)",
        )


def _signed_at(doc: dict[str, Any], rows: list[dict[str, Any]]) -> dict[int, int]:
    """Position -> the provider's signing time (`t=`) of each input of `rows` whose mail the export's evidence keeps
    (`pbem.trust.dkim.stated_at`; `pbem verify` checks each signature, `pbem.trust.vouched`)."""
    times = {}
    for e in doc.get("evidence") or []:
        if isinstance(e, dict) and (t := dkim.stated_at(e)) is not None:
            times[message_key(str(e.get("message_id") or ""))] = t
    if not times:
        return {}
    return {
        n: times[mid]
        for n, row in enumerate(rows, 1)
        if "lines" in row and row.get("message_id") and (mid := message_key(str(row["message_id"]))) in times
    }


def _early_seed(ch: _Chain, doc: dict[str, Any], mails: list[Received], c: MailCheck) -> None:
    """No mail written before the game's end (its head before the entry that ends it) holds 16 hex digits in a row of
    the revealed seed (`pbem.trust.leaked`): a report's words are compared once the seed is out, its headers are
    not, and a header added to one player's report gave it to them alone (fairness13).  Searched: its plain text,
    the header fields of the mail and of each of its parts, and its pictures' bytes besides their pixels, text chunks
    inflated (`_unread`): a picture is compared by its pixels, so a board whose `tEXt` chunk or Content-ID held the
    seed verified (fairness14).  Its HTML part is compared as markup (`prose`): a comment or an attribute is named."""
    seeds = leaked.secret(doc.get("seed"))
    if not seeds:
        return
    end = leaked.end(ch.rows)
    for m in mails:
        at = ch.place(*m.record, [c.reader, *ch.names]) if m.record is not None else None
        if at is None or at >= end:
            continue
        budget = leaked.Inflating()
        if found := leaked.found_in(_uncompared(m.raw, budget), seeds) or leaked.found_in(
            told.plain(m.raw).lower(), seeds
        ):
            c.problem(
                at,
                f"{m.numbered}, written before the game's end, holds {leaked.WINDOW} hex digits in a row "
                f"of the seed ({found}): the seed was given to you early (keep this mail)",
            )
        elif budget.cut:
            c.notes.append(
                f"{m.name}'s pictures hold more compressed text than the {leaked.MAX_INFLATED // 1024} KB read of a "
                "mail: what is past that was not searched for the seed (pbem's own pictures hold none)"
            )


_IMAGE = re.compile(rb"^content-type:[ \t]{0,40}image/", re.I | re.M)
_BASE64 = re.compile(rb"^content-transfer-encoding:[ \t]{0,40}base64", re.I | re.M)


def _uncompared(raw: bytes, inflating: leaked.Inflating | None = None) -> str:
    """What no other check reads of the mail `raw`, lower case: the header fields of the mail and of each of its
    parts (a picture's Content-ID and file name, a boundary, any field added), and each picture's bytes besides its
    pixels (`leaked.pictured`).  Its texts are read as words (`told.plain`, `prose`), its pictures by their pixels.
    Linear: each part's headers end at the first empty line after its delimiter, and the next part starts at the
    first delimiter after that; its pictures' compressed text is inflated to `leaked.MAX_INFLATED` in all
    (`inflating`, which says whether some was left)."""
    out, at, budget = [], 0, leaked.Inflating() if inflating is None else inflating
    while True:
        blank = _EMPTY_LINE.search(raw, at)
        head = raw[at : len(raw) if blank is None else blank.start()]
        out.append(head.lower().decode("latin-1"))
        if blank is None:  # header fields to the end (no body)
            break
        nxt = raw.find(b"\n--", blank.end())
        if _IMAGE.search(head):
            body = raw[blank.end() : len(raw) if nxt < 0 else nxt]
            out.append(leaked.pictured(body, base64=_BASE64.search(head) is not None, inflating=budget))
        if nxt < 0:
            break
        at = nxt + 1
    return "\x00".join(out)


def _pinned(
    ch: _Chain, doc: dict[str, Any], reports: list[tuple[int, str, datetime, float]], reader: str
) -> list[tuple[int, int, str, datetime]]:
    """The stated deadlines of `reports` whose mail was written in one known state of the deadline (`due.epochs`), as
    (that state, head's position, mail name, deadline).  A mail was written after the entries up to its head and
    before the next one its reader may see, and before the input whose events that one is (an input and its events
    are written at once); only when no entry that may move a deadline lies between is its state known."""
    seen = ch.seen_by_seat(seat_of(doc, reader)) if reader else []
    end, bounds, last = len(ch.rows) + 1, due.epochs(ch.rows), due.windows(ch.rows)
    out = []
    for at, name, when, _ in sorted(reports, key=lambda r: (r[0], r[3])):
        upto = shown._after(seen, at, end)
        if upto < end and last[upto] > at:
            upto = last[upto]  # the input of the next entry they may see: they were written together
        if bounds[upto - 1] == bounds[at]:
            out.append((bounds[at], at, name, when))
    return out


def _steps(
    doc: dict[str, Any], rows: list[dict[str, Any]], heads: list[int], more: tuple[int, ...] = ()
) -> Callable[[int], object] | None:
    """The step open once the first k entries of `rows` are applied (the first request's step id of the replayed
    state), for the `heads` of the mails that stated a deadline, before each deadline input and at the places `more`
    (before each signed input, `due.late`); None (`due.early` then compares within the state of a head) while the
    seed is secret, or when the record cannot be replayed."""
    if not doc.get("seed") or not heads:
        return None
    last = due.windows(rows)
    places = [
        *heads,
        *more,
        *(n - 1 for n, row in enumerate(rows, 1) if row.get("kind") == "deadline" and "lines" in row),
    ]
    shared = folded.of(doc, rows)
    known = shared.steps if shared is not None else {}  # the export's own replay read them (`verify._replay`)
    try:
        wanted = {last[k] for k in places if 0 <= k < len(last)}
        replay = shown.Replay(doc, rows, wanted - set(known))
        steps: dict[int, object] = {}
        for q in wanted:
            if q not in known:
                state = replay.states[q]
                known[q] = paced.step_of(replay.reader(state), state)
            steps[q] = known[q] or ("no step", q)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, registry.UnknownKind):
        return None
    return lambda k: steps.get(last[k], ("state", last[k]))


_seated = paced.seated  # (fairness12's name for it)


def unchosen(doc: dict[str, Any], raws: list[bytes] | Folder, as_player: str | None = None) -> str | None:
    """Why the mail of one player cannot be chosen from `raws` (several recipients and no --as, nobody by that
    name, no mail about the game): a usage error, said before anything is checked.  None when it can."""
    mails = list(_folder(raws).mails)
    try:
        pick(about_game(mails, doc["game"]["name"], doc["game"].get("key")), doc, as_player)
    except NoMail as exc:
        return str(exc)
    except (KeyError, TypeError, AttributeError):
        return None  # a malformed export: verify names it
    return None


def verify_mail(
    doc: dict[str, Any],
    raws: list[bytes] | Folder,
    as_player: str | None = None,
    reread: refused.Reread | None = None,
    wrote: dict[str, list[str]] | None = None,
    more: refused.Readings = refused.Readings(),
) -> MailCheck:
    """Parse `raws` (unless parsed: a `Folder`), keep this game's mail to the player, and check it (`check_mail`).
    `reread`: pbem's reading of a refused message's lines (`pbem.app.rereading.refused`), for the reasons an
    acknowledgement gives (`pbem.trust.refused`); None: they are not worked out again (a note says so).  `wrote`:
    the order lines of each mail the player sent, by its Message-ID (`pbem.trust.sent.written`: `--sent` given
    too), for a refusal that quotes only its first lines.  `more`: pbem's other readings worked out again (a
    refusal's "write it as:" hints, a held_failed notice's reasons: `pbem.app.rereading.hint` and `.failed`)."""
    folder = _folder(raws)
    mails, unreadable = list(folder.mails), folder.unreadable
    try:
        who, theirs = pick(about_game(mails, doc["game"]["name"], doc["game"].get("key")), doc, as_player)
    except NoMail as exc:
        return MailCheck(ok=False, problems=[str(exc)], at=[(0, 0)], usage=True)
    c = check_mail(doc, theirs, who, reread, wrote, more)
    to, checked = {m.to for m in theirs}, {id(m) for m in theirs}
    since = min((m.sort_key for m in theirs if m.sort_key), default=0.0)  # this game's first mail to them
    c.notes += restarts.elsewhere(doc, [m for m in mails if m.to in to and id(m) not in checked], since)
    if unreadable:
        c.problem(0, f"{count(unreadable, 'mail')} in the folder carry a malformed receipt header")
        c.ok = False
    return c


def signed_heads(doc: dict[str, Any], raws: list[bytes] | Folder, reader: str = "") -> dict[int, tuple[str, Received]]:
    """The heads of one mailbox signed by the game key for this game: position -> (head, the first mail).  A head
    on the export's chain stands where the chain has it; another at the place `reader` (whose mail it is, as
    `reader_of` finds) would have seen it."""
    key, game = doc["game"].get("key"), doc["game"]["name"]
    out: dict[int, tuple[str, Received]] = {}
    if not key:
        return out
    mails = _folder(raws).mails
    ch = _Chain.of(doc)
    everyone = readers(doc)
    for m in mails:
        if m.record is not None and m.signed_by(key, game):
            at = ch.place(*m.record, everyone)
            out.setdefault(ch.position(*m.record, reader) if at is None else at, (m.record[1], m))
    return out


def split(
    doc: dict[str, Any], boxes: list[tuple[str, list[bytes] | Folder]], readers_of: list[str] | None = None
) -> list[str]:
    """Signed heads of several mailboxes that disagree at the same position: each line is proof of a split history
    (the moderator signed two different histories).  Empty when they agree or the game has no key.  `readers_of`:
    whose mail each box is (`reader_of`), in the order of `boxes`."""
    if counted(doc) or (
        doc.get("chain") is not None and len(doc["orders"]) + len(doc["events"]) != doc["chain"]["entries"]
    ):
        return []  # an export that lists only some entries: positions per reader cannot be compared (`gapped`)
    whose = readers_of or [""] * len(boxes)
    heads = [(name, signed_heads(doc, raws, reader)) for (name, raws), reader in zip(boxes, whose)]
    out: list[str] = []
    fp = signing.fingerprint(doc["game"]["key"]) if doc["game"].get("key") else ""
    for i, (a, ha) in enumerate(heads):
        for b, hb in heads[i + 1 :]:
            for n in sorted(set(ha) & set(hb)):
                if ha[n][0] != hb[n][0]:
                    out.append(
                        f"{a}'s {ha[n][1].numbered} and {b}'s {hb[n][1].numbered} carry different heads at entry #{n} "
                        "of the export "
                        f"({ha[n][0][:16]}... and {hb[n][0][:16]}...), both signed by the game key {fp}: "
                        "the moderator showed them different histories"
                    )
                    break
    return out


def apart(checks: list[tuple[str, MailCheck]]) -> list[str]:
    """Where several players' mailboxes (whose, their check) state different deadlines at the same head
    (`pbem.trust.due.apart`): each line is a deadline told to one player and not the game's."""
    return due.apart([(whose, c.stated) for whose, c in checks])


def lines(c: MailCheck) -> list[str]:
    """The report of a mail check, one line each (problems listed up to SHOWN)."""
    out = [f"ok: {line}" for line in c.checked] + [f"note: {line}" for line in c.notes]
    out += [f"MISMATCH: {p}" for p in c.earliest()[:SHOWN]]
    if len(c.problems) > SHOWN:
        out.append(f"... and {len(c.problems) - SHOWN} more mismatches, all later in the record")
    return out
