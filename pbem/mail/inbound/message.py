"""Reading an inbound message (pure): headers, sender, game tag and order text.

Handles what ordinary mail clients send: multipart/alternative (text/plain is
preferred; HTML-only mail is turned into text; format=flowed is unwrapped), any charset and transfer
encoding (an unknown or missing charset is read as UTF-8, else Windows-1252, as is a Latin-1 one:
`pbem.orders.charsets.text_of`), attachments
ignored, missing Message-IDs (a stable one is made from the content without
trace headers: `pbem.mail.inbound.fingerprint`).
Nothing here raises on bad input: problems become `problem` text.
"""

from __future__ import annotations

import hashlib
import re
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from email import policy
from email.feedparser import FeedParser
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import getaddresses
from html.parser import HTMLParser
from itertools import islice
from typing import ClassVar

from pbem.mail.inbound.authentication import verdict
from pbem.mail.inbound.fingerprint import missing_message_id
from pbem.mail.inbound.identity import identify
from pbem.mail.inbound.loops import auto_reason
from pbem.mail.inbound.words import decoded
from pbem.orders import containers, params
from pbem.orders.charsets import decodable, text_of

MAX_BODY_CHARS = 64_000
MAX_RAW_BYTES = 2_000_000
MAX_MULTIPARTS = 64  # no mail client nests deeper; a hostile depth would make parsing quadratic
# A header whose parameters are read (Content-Type: charset, boundary, format): the standard library's loop over
# them copies the rest of the header for each one, so its cost grows with the square of the header (0.5 s for
# 400 KB of parameters, about 25 s for 2 MB).  A real one holds a few hundred characters.  The bound held one
# header, not a mail's many: they are now read in one pass (`params`, costs20), and the bound stays.
MAX_PARAMETER_FIELD = 8_000
# Parts one mail may have: the parser, the code search and the stored copy's rewrite cost 0.05 to 0.4 ms for each
# part, whatever its size, so 4 MiB of parts of a few bytes each took 15 s to read and store (a tenth of a second
# for one 4 MiB attachment; costs5).  A real mail has a few dozen; counted as the lines starting with "--" of a
# mail that declares a boundary (an upper bound of its delimiter lines, found in C).
MAX_PARTS = 1_000
_BOUNDARY = re.compile(rb"boundary\s*+\*?\s*+=", re.IGNORECASE)  # possessive: two runs split every way were quadratic
GAME_TAG = re.compile(r"\[pbem\s+([A-Za-z0-9][A-Za-z0-9_.-]{0,63})\]", re.IGNORECASE)


class FieldTooLong(ValueError):
    """A header whose parameters would be read is longer than `MAX_PARAMETER_FIELD`: the message is not read."""

    def __init__(self, name: str, length: int) -> None:
        super().__init__(f"its {name} header is {length} characters long; at most {MAX_PARAMETER_FIELD} are read")


class Bounded(Message):
    """A `compat32` message whose parameters (`get_param`, `get_boundary`, `get_content_charset` ...) are read
    only from a header of at most `MAX_PARAMETER_FIELD` characters (`FieldTooLong` otherwise): the parser itself
    asks a multipart container for its boundary, so the bound holds while parsing too.  Read in one pass
    (`pbem.orders.params`): the standard library's reading is the square of the header (costs20)."""

    def _get_params_preserve(self, failobj: object, header: str) -> object:
        value = self.get(header)
        if value is None:
            return failobj
        if len(str(value)) > MAX_PARAMETER_FIELD:
            raise FieldTooLong(header.title(), len(str(value)))
        return params.preserved(value)


#: characters of a mail's text fed to the parser at a time (`email.parser.Parser.parse` reads 8,192 at a time)
FEED = 8192


def parse_bytes(raw: bytes, headersonly: bool = False) -> Message:
    """`raw` parsed as pbem reads inbound mail: `policy.compat32`, parameters bounded (`Bounded`).

    The text is fed to the parser a piece at a time, as `BytesParser.parsebytes` feeds it (the same pieces, the same
    message), but from the text itself: `parsebytes` reads it through a `StringIO` of the whole text, four bytes a
    character, the largest thing a poll held for a long mail (a mail of 740 KB: 2.96 MB of its peak of 8.1 MB; costs26).
    """
    if headersonly:  # (the headers' reading stops at the blank line: callers give it the header block alone)
        return BytesParser(Bounded, policy=policy.compat32).parsebytes(raw, headersonly=True)
    text = raw.decode("ascii", errors="surrogateescape")
    parser: FeedParser[Message] = FeedParser(Bounded, policy=policy.compat32)
    for start in range(0, len(text), FEED):
        parser.feed(text[start : start + FEED])
    return parser.close()


def head_block(raw: bytes) -> bytes:
    """`raw`'s header block, its blank line included (all of `raw` if it has none): what a parse of the headers alone
    reads (given the whole mail, it holds the rest as the payload, and its `StringIO` four bytes a character of it)."""
    ends = [i for i in (raw.find(b"\n\n"), raw.find(b"\r\n\r\n")) if i >= 0]
    if not ends:
        return raw
    end = min(ends)
    return raw[: end + (2 if raw[end] == 10 else 4)]


@dataclass(frozen=True)
class Inbound:
    message_id: str
    body_hash: str
    sender: str  # bare address, lower case ("" if none)
    sender_name: str
    subject: str
    game: str | None  # from the [pbem NAME] tag
    text: str  # the chosen text body
    auto: str | None  # why this must never be answered (auto-reply, bulk, bounce, loop) or None
    problem: str | None  # why the body cannot be read (too long, binary) or None
    references: tuple[str, ...] = ()
    date: str = ""
    key: str = ""  # set when this Message-ID was already seen with other bytes
    # The whole message as parsed here, for the redaction to reuse instead of parsing it again; None when only
    # part of it was parsed.
    tree: ParsedOnce | None = field(default=None, compare=False, repr=False)

    @property
    def ident(self) -> str:
        """What outgoing Message-IDs caused by this message are derived from (unique per message)."""
        return self.key or self.message_id


class ParsedOnce:
    """A message's parse (`policy.compat32`), handed out once: whoever takes it may rewrite it
    (`storage.scrub` redacts it in place), so a second reader gets None and parses the bytes itself."""

    __slots__ = ("_lock", "_msg")

    def __init__(self, msg: Message) -> None:
        self._msg: Message | None = msg
        self._lock = threading.Lock()

    def take(self) -> Message | None:
        with self._lock:
            msg, self._msg = self._msg, None
        return msg


#: The tags that end a line of `html_to_text`'s text (the others run their words on, but for a cell's).
BLOCK_TAGS = frozenset({"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "pre", "blockquote", "table"})
#: The tags whose end parts their words from the next cell's with a tab, as a spreadsheet's row pastes (players29: a
#: remark's cell after an order is told apart, `pbem.app.cells`; an order's tabs read as spaces, `extract._order`):
#: an order in a table a player drew,
#: "<td>TRIBUTE</td><td>Gold 4</td>" or "<td>1.</td><td>NO EVENT</td>", was read "TRIBUTEGold 4", "1.NO EVENT".
CELL_TAGS = frozenset({"td", "th"})


#: Tags that set their text in bold or highlight it (and a <span> or <font> whose style or colour does): shown
#: "*...*", as a client's plain part shows bold.  A player marks their choice in the mail they answer by setting its
#: line in bold, or by colouring it (`<span style="color:red">`, `<font color>`, a background, `<mark>`: Outlook's
#: and Gmail's highlighter): flattened without its mark, the line was pbem's own words and dropped as the copy's.
_BOLD_TAGS = frozenset({"b", "strong", "span", "font", "mark"})
_BOLD_STYLE = re.compile(r"font-weight\s*:\s*(?:bold|[6-9]00)\b", re.IGNORECASE)
#: A colour a style sets: of the text ("color", not "caret-color"), of its ground, or Outlook's highlighter.
_COLOUR_STYLE = re.compile(r"(?:^|;)\s*+(?:color|background(?:-color)?|mso-highlight)\s*+:\s*+([^;]{1,60})", re.I)
_HEX = re.compile(r"^#([0-9a-f]{3}|[0-9a-f]{6})$", re.I)
_RGB = re.compile(r"^rgba?\(\s*+(\d{1,3})\s*+,\s*+(\d{1,3})\s*+,\s*+(\d{1,3})", re.I)
#: Colours that mark nothing: a client's text and ground (black, white, greys, the system's and CSS's keywords).
_PLAIN_COLOURS = frozenset(
    {"black", "white", "silver", "gainsboro", "whitesmoke", "snow", "ivory", "windowtext", "window", "inherit"}
    | {"initial", "unset", "currentcolor", "transparent", "auto", "none", "buttontext", "canvastext", "canvas"}
)
GREY_SPREAD = 48  # a colour whose channels differ by less than this is a grey (a client's dark text, not a mark)
BOLD_OPEN = 64  # bold tags open at once that are remembered, at most (deeper ones are read as plain text)
QUOTE_MARKS = 8  # quote marks a line of nested blockquotes gets, at most ("> > " for a quote inside a quote)
HIGHLIGHT_LINES = 6  # whole lines one colour may mark before it is the client's colour, not the player's marks


def _coloured(value: str) -> bool:
    """Whether a CSS or <font> colour stands out from text: not black, white, a grey or a keyword."""
    v = value.strip().lower().removesuffix("!important").strip()
    if v in _PLAIN_COLOURS or "gray" in v or "grey" in v:
        return False
    m = _HEX.match(v)
    if m:
        h = m.group(1) if len(m.group(1)) == 6 else "".join(c * 2 for c in m.group(1))
        rgb = [int(h[i : i + 2], 16) for i in (0, 2, 4)]
    elif m := _RGB.match(v):
        rgb = [min(255, int(x)) for x in m.groups()]
    else:
        return v.isalpha()  # a colour's name: red, yellow, navy ...
    return max(rgb) - min(rgb) >= GREY_SPREAD and rgb not in CLIENT_COLOURS


#: Colours a client sets on a quote by itself, never a player's mark: Gmail's purple for a quote inside a quote.
CLIENT_COLOURS = ([80, 0, 80],)


def highlight(tag: str, attrs: list[tuple[str, str | None]]) -> str:
    """The colour by which a <mark>, <span> or <font> marks its text ("mark" for a <mark>), or "" for none."""
    if tag == "mark":
        return "mark"
    for k, v in attrs:
        if k == "color" and tag == "font" and v and _coloured(v):
            return v.strip().lower()
        if k == "style" and v:
            for m in _COLOUR_STYLE.finditer(v[:400]):
                if _coloured(m.group(1)):
                    return m.group(1).strip().lower()
    return ""


class _HtmlText(HTMLParser):
    """The text of an HTML part, line by line: a line per block, "> " once at the start of a blockquote's, once for
    each blockquote it is in ("> > " for a quote inside a quote: an older mail's, as a plain-text client quotes it),
    a line set in bold or highlighted whole shown "*...*" (in a quote "> *...*"), as a plain-text client shows bold.
    A player marks the order they chose in the mail they answer by setting its line in bold or colouring it
    ("<li><b>NO EVENT</b></li>", "<li><mark>NO EVENT</mark></li>" in Outlook's unquoted original or in Gmail's
    quote): flattened without its mark, the line was pbem's own words and dropped as the copy's
    (`pbem.orders.own_mail._keep_starred`).  A colour on more than `HIGHLIGHT_LINES` whole lines of a quote is the
    client's (its quote's colour), no mark, and so is Gmail's purple (`CLIENT_COLOURS`) on any; the lines a player
    types in their own font colour (Outlook's blue, their signature too) are no quote's and are not counted: their
    choice marked in that colour in Outlook's unquoted original was unmarked with them and dropped as the copy's.
    Bold words inside a line are left as they are ("one<b>two</b>" stays one word, as `html_words` reads it)."""

    BLOCK: ClassVar[frozenset[str]] = BLOCK_TAGS

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.quote = 0
        self.breaks = 0  # line breaks written so far
        self.said = 0  # pieces of text with words written so far
        self.worded = False  # the line being written has words
        self.marked = False  # the line being written has its quote mark
        # open bold-capable tags: name, where, breaks, said (where -1: not bold), its colour ("": bold)
        self.bold: list[tuple[str, int, int, int, str]] = []
        self.starred: list[
            tuple[int, int, str]
        ] = []  # a run closed on this line: its places, colour; starred at its end
        self.lit: dict[str, list[tuple[int, int, int]]] = {}  # the places each colour starred: its "*" places

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "head"):
            self.skip += 1
        if tag == "blockquote":
            self.quote += 1
        if tag in _BOLD_TAGS and len(self.bold) < BOLD_OPEN:
            self._open_bold(tag, attrs)
        if tag == "br":
            self._break("\n")
        elif tag == "hr":  # a rule (Outlook's, above its header block) parts what is above from what is below
            self._newline()
            self._break("\n")
        elif tag in self.BLOCK:
            self._newline()

    def _open_bold(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Remember where a bold tag's text starts (a place kept for its "*") when nothing is written on its line
        yet; a <span> not in bold is remembered too, so that its end tag closes it and not a bold one around it."""
        styled = tag in ("span", "font")
        style = next((v for k, v in attrs if k == "style" and v), "") if styled else ""
        bold = (not styled and tag != "mark") or bool(_BOLD_STYLE.search(style[:400]))
        lit = "" if bold or self.skip or self.worded else highlight(tag, attrs)
        if (bold or lit) and not self.skip and not self.worded:
            self.bold.append((tag, len(self.out), self.breaks, self.said, lit))
            self.out.append("")
        else:
            self.bold.append((tag, -1, 0, 0, ""))

    def _close_bold(self, tag: str) -> None:
        """A bold tag that holds words, all on one line: its places are starred when the line ends with no more
        words on it (`_break`)."""
        if not self.bold or self.bold[-1][0] != tag:
            return  # not nested as opened: read as plain text
        _, at, breaks, said, lit = self.bold.pop()
        if at >= 0 and self.breaks == breaks and self.said > said:
            self.starred.append((at, len(self.out), lit))
            self.out.append("")

    def _break(self, text: str) -> None:
        """Write a line break: a bold run that is the whole line just ended gets its stars."""
        first = 0  # the first text of the run starred last: the runs inside it start there or later
        for at, end, lit in sorted(self.starred):  # the outermost first: each place is passed over once a line
            first = self._star(at, end, max(first, at + 1), lit)
        self.starred.clear()
        self.out.append(text)
        self.breaks += 1
        self.worded = False
        self.marked = self.marked and not text.endswith("\n")

    def _star(self, at: int, end: int, k: int, lit: str = "") -> int:
        """Star the bold or highlighted (`lit`: its colour) run written between places `at` and `end`: after the quote
        marks of a quoted line ("> *NO EVENT*"), else at its start.  Its first text is found from `k` on, past the
        places of the tags inside it; where it is is returned."""
        while k < end and not self.out[k]:
            k += 1
        marks = _marks(self.out[k]) if k < end else 0
        if marks:
            self.out[k] = self.out[k][:marks] + "*" + self.out[k][marks:]
        else:
            self.out[at] = "*"
        self.out[end] = "*"
        if lit:
            self.lit.setdefault(lit, []).append((k if marks else at, marks, end))
        return k

    def _newline(self) -> None:
        """End the current line once: consecutive blocks (<div>s) are consecutive lines, not blank lines."""
        if self.out and not self.out[-1].endswith("\n"):
            self._break("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head") and self.skip:
            self.skip -= 1
        if tag == "blockquote" and self.quote:
            self.quote -= 1
        if tag in _BOLD_TAGS:
            self._close_bold(tag)
        if tag in self.BLOCK and tag != "br":
            self._newline()
        elif tag in CELL_TAGS:
            self.out.append("\t")  # a cell ends: a row read as a spreadsheet pastes it (players29, `pbem.app.cells`)

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if not data.strip():
            if "\n" in data:
                self._break(self._quoted(data))
            else:
                self.out.append(self._quoted(data))
            return
        head, newline, tail = data.partition("\n")
        if head.strip():
            self.starred.clear()  # words after a bold run on its line: it was not the whole line
        self.said += 1
        if newline:
            self._break(self._quoted(head) + newline)  # the bold run before this text, the whole line, gets its stars
            self.out.append(self._quoted(tail))
            self.breaks += tail.count("\n")
            self.worded = bool(tail.rpartition("\n")[2].strip())
        else:
            self.out.append(self._quoted(data))
            self.worded = True

    def _quoted(self, text: str) -> str:
        """`text` as written: inside a blockquote, each line it starts after "> ".  A line is often built from several
        pieces of text (words in <span>s, a <b> or <a> word, a "&nbsp;" between tags): only its first gets the mark,
        else it read "> NO > EVENT", neither pbem's words nor an order."""
        if not self.quote:
            return text
        mark = "> " * min(self.quote, QUOTE_MARKS)
        head, newline, tail = text.partition("\n")
        first = head if self.marked else mark + head
        self.marked = True
        return first + newline + "\n".join(mark + ln for ln in tail.split("\n")) if newline else first

    def finish(self) -> str:
        """The text read: a bold run that is the last line gets its stars; a colour that starred more than
        `HIGHLIGHT_LINES` quoted lines is the client's (its quote all in one colour) and loses them."""
        self._break("")
        for places in self.lit.values():
            if sum(1 for _, marks, _ in places if marks) > HIGHLIGHT_LINES:
                for start, marks, end in places:
                    text = self.out[start]
                    self.out[start] = text[:marks] + text[marks + 1 :] if marks else ""
                    self.out[end] = ""
        return "".join(self.out)


#: The run of quote marks ("> > ") a text starts with: one pass in C.  A loop in Python read each mark, for each of up
#: to `BOLD_OPEN` bold runs around one text: 64 nested <b>s around 40,000 typed "> " took 0.2 s (costs12).
_MARKS = re.compile(r"^(?:> )*")


def _marks(text: str) -> int:
    """How long the run of quote marks ("> > ") at the start of `text` is."""
    m = _MARKS.match(text)
    return m.end() if m else 0


#: A "<" (not a comment's) with no ">" before the next "<" or the end.  Python's HTMLParser (3.11) looks for
#: the end of such a tag to the end of its buffer, again for each one: 64 KB of "<a " took 40 s.  A mail with
#: more than `UNCLOSED_TOLERATED` of them has them made text ("&lt;") first (each look ends at the next "<":
#: linear); one with a few (a "<" inside a quoted attribute, which no ">" follows before the next "<") is read
#: as it is, at the cost of a few passes.
_UNCLOSED = re.compile(r"<(?!!--)(?=[^<>]*(?:<|$))")
UNCLOSED_TOLERATED = 16


#: What ends a comment and a marked section for Python's HTMLParser (3.11: `html.parser.commentclose`,
#: `_markupbase._markedsectionclose` for <![CDATA[ and its kind, `_msmarkedsectionclose` for Microsoft Office's
#: <![if ...]>).  Each "<!--" or "<![" with no end after it is looked for to the end of the text, again for each
#: one and again when the parser is closed: 480 KB of "<!--" took 45 s, 120 KB 6 s.
_COMMENT_CLOSE = re.compile(r"--\s*>")
_SECTION_CLOSE = re.compile(r"]\s*]\s*>")
_MS_SECTION_CLOSE = re.compile(r"]\s*>")
_SECTION_NAMES = frozenset({"temp", "cdata", "ignore", "include", "rcdata"})
_MS_SECTION_NAMES = frozenset({"if", "else", "endif"})
_DECLARATION = re.compile(r"<!(?:--|\[([a-zA-Z][-_.a-zA-Z0-9]*)?)")


def _last_start(pattern: re.Pattern[str], text: str) -> int:
    """Where the last match of `pattern` in `text` starts (-1: none), in one pass."""
    last = -1
    for m in pattern.finditer(text):
        last = m.start()
    return last


def _unclosed_declarations(html: str) -> str:
    """`html` with its comments and marked sections that no end follows made text ("&lt;!--") when there are more
    than `UNCLOSED_TOLERATED` of them (each one made the parser look to the end of the text: quadratic); a few
    are read as they are.  An end follows the one at `i` when the last end starts at `i + 4` ("<!--") or
    `i + 3` ("<![") or later: where the parser starts looking for it."""
    comment = _last_start(_COMMENT_CLOSE, html)
    section = _last_start(_SECTION_CLOSE, html)
    ms_section = _last_start(_MS_SECTION_CLOSE, html)

    def unclosed(m: re.Match[str]) -> bool:
        if m.group(0) == "<!--":
            return comment < m.start() + 4
        name = (m.group(1) or "").lower()
        if name in _SECTION_NAMES:
            return section < m.start() + 3
        return name in _MS_SECTION_NAMES and ms_section < m.start() + 3

    if sum(1 for m in _DECLARATION.finditer(html) if unclosed(m)) <= UNCLOSED_TOLERATED:
        return html
    return _DECLARATION.sub(lambda m: "&lt;" + m.group(0)[1:] if unclosed(m) else m.group(0), html)


def html_to_text(html: str) -> str:
    parser = _HtmlText()
    if len(_UNCLOSED.findall(html)) > UNCLOSED_TOLERATED:
        html = _UNCLOSED.sub("&lt;", html)
    html = _unclosed_declarations(html)
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # a broken page still yields what was read so far
        pass
    return re.sub(r"\n{3,}", "\n\n", parser.finish()).strip()


class Unreadable(Exception):
    """A part of the message cannot be decoded; the text says why (becomes the message's `problem`)."""


def _decode(part: Message) -> str:
    try:
        payload = part.get_payload(decode=True)
        if payload is None:
            payload = str(part.get_payload()).encode("utf-8", "surrogateescape")
        charset = part.get_content_charset()
    except FieldTooLong as exc:
        raise Unreadable(f"a text part: {exc}") from None
    except Exception as exc:  # a broken transfer encoding or RFC 2231 parameter
        raise Unreadable(f"a text part cannot be decoded ({type(exc).__name__})") from None
    assert isinstance(payload, bytes)
    if charset and decodable(charset) != charset:  # punycode's decoder: the square of the text (costs19)
        raise Unreadable(
            f'its charset "{charset[:40]}" is no mail charset (its decoder costs the square of the text): send the '
            "text again as UTF-8"
        )
    try:
        return text_of(payload, charset)  # a mislabelled or unlabelled text as its writer meant it (explore35)
    except Exception as exc:  # a codec that fails in its own way (idna, punycode, undefined)
        raise Unreadable(
            f'its charset "{(charset or "utf-8")[:40]}" cannot decode the text ({type(exc).__name__})'
        ) from None


def _text_parts(msg: Message, depth: int = 0) -> tuple[str | None, str | None]:
    """The first text/plain and the first text/html part outside attachments."""
    plain = html = None
    if depth > 20:
        return None, None
    if msg.is_multipart():
        for sub in msg.get_payload() or []:
            if not isinstance(sub, Message):
                continue
            if _disposition(sub) == "attachment":
                continue
            p, h = _text_parts(sub, depth + 1)
            plain = plain if (plain and plain.strip()) else (p if p is not None else plain)
            html = html or h
            if plain and plain.strip():
                break
        return plain, html
    ctype = msg.get_content_type()
    if ctype == "text/plain":
        text = _decode(msg)
        if str(msg.get_param("format", "") or "").lower() == "flowed":
            text = unflow(text, str(msg.get_param("delsp", "") or "").lower() == "yes")
        return text, None
    if ctype == "text/html":
        return None, _decode(msg)
    return None, None


def unflow(text: str, delsp: bool = False) -> str:
    """Undo RFC 3676 format=flowed: join soft-broken lines (ending in a space) of the same quote depth.

    Space-stuffing is removed; with DelSp=yes the space before a soft break is deleted too.
    The signature separator "-- " is never a soft break.
    """
    out: list[str] = []
    parts: list[str] = []  # the pieces of a paragraph still open
    depth_open = -1  # its quote depth
    for raw in text.replace("\r\n", "\n").split("\n"):
        depth = len(raw) - len(raw.lstrip(">"))
        body = raw[depth:]
        if body.startswith(" "):
            body = body[1:]  # space-stuffing (or the space after the quote marks)
        if parts and depth_open != depth:
            out.append(_quoted_line(depth_open, "".join(parts)))
            parts = []
        flowed = body.endswith(" ") and body != "-- "
        if flowed and delsp:
            body = body[:-1]
        parts.append(body)  # joined once the paragraph ends: linear in its lines (a string grown by + was not)
        depth_open = depth
        if not flowed:
            out.append(_quoted_line(depth, "".join(parts)))
            parts = []
    if parts:
        out.append(_quoted_line(depth_open, "".join(parts)))
    return "\n".join(out)


def _quoted_line(depth: int, body: str) -> str:
    return (">" * depth + " " + body) if depth else body


def _disposition(part: Message) -> str:
    try:
        return part.get_content_disposition() or ""
    except Exception:  # an undecodable RFC 2231 parameter: read the part as inline
        return ""


def parse(raw: bytes, moderator: str = "", trust_authentication_results: str = "") -> Inbound:
    """What pbem reads in `raw`.  Never raises: whatever cannot be decoded becomes `problem`.

    `trust_authentication_results` names the authserv-id whose Authentication-Results are believed
    (`[mail]` key of that name; "" = off): a sender they fail is refused (`authentication.verdict`).
    """
    body_hash = hashlib.sha256(raw).hexdigest()
    whole, problem = raw, None
    if len(raw) > MAX_RAW_BYTES:
        problem = f"the message is {len(raw)} bytes long; orders must fit in {MAX_RAW_BYTES} bytes"
        raw = raw[:64_000]
    nested = too_nested(raw)
    if nested:  # the parser's cost grows with depth times lines: read the headers only
        problem = (
            problem or f"could not be read: the message nests more than {MAX_MULTIPARTS} multipart or forwarded parts"
        )
    elif too_many_parts(raw):  # each part costs the same however small: read the headers only
        nested, problem = True, problem or f"could not be read: the message has more than {MAX_PARTS} parts"
    tree: ParsedOnce | None = None
    try:
        try:
            msg: Message = parse_bytes(head_block(raw) if nested else raw, headersonly=nested)
        except FieldTooLong as exc:  # its headers can still say who sent it and what it is about
            problem, nested = problem or f"could not be read: {exc}", True
            msg = parse_bytes(head_block(raw), headersonly=True)
        tree = ParsedOnce(msg) if raw is whole and not nested else None
    except Exception as exc:  # the parser is lenient, but nothing here may raise
        msg, problem = (
            EmailMessage(),
            problem or f"could not be read: the message structure is broken ({type(exc).__name__})",
        )
    mid = _header(msg, "Message-ID").strip()
    if not mid or len(mid) > 900:
        mid = missing_message_id(whole)  # the same content delivered twice gets the same stand-in
    who = identify(msg)
    name, sender = _decoded(who.name), who.sender
    subject = _header(msg, "Subject")
    tag = GAME_TAG.search(subject)
    if tag is None and not subject.isascii() and (tag := GAME_TAG.search(folded := _tag_folded(subject))):
        subject = folded  # the tag typed in full-width (a Japanese or Chinese input method): read as the body is
    text = ""
    if problem is None:
        text, problem = _body(msg)
    problem = who.problem or problem  # an ambiguous sender is refused whatever the body says
    if trust_authentication_results and problem is None:
        problem = _guarded(lambda: verdict(msg, trust_authentication_results, sender), "could not be read: a header")
    refs = tuple(re.findall(r"<[^<>\s]+>", _header(msg, "References") + " " + _header(msg, "In-Reply-To")))
    return Inbound(
        message_id=mid,
        body_hash=body_hash,
        sender=sender,
        sender_name=_clean(name),
        subject=subject,
        game=tag.group(1).lower() if tag else None,
        text=text if problem is None else "",
        auto=_guarded(lambda: auto_reason(msg, sender, moderator), "a header cannot be read"),
        problem=problem,
        references=refs,
        date=_header(msg, "Date")[:100],
        tree=tree,
    )


def _tag_folded(subject: str) -> str:
    """`subject` in NFKC (cut as every header is: `_clean`), as the poll reads an order line (`pbem.orders.typed`): a
    tag typed with a Japanese or Chinese input method (full-width brackets, letters, digits, the ideographic space)
    was told "the subject does not name a game" (explore35)."""
    return _clean(unicodedata.normalize("NFKC", subject))


def subject_of(head: bytes) -> str:
    """The Subject of a mail's header block `head` (its blank line included), decoded as `parse` decodes it: the
    header block parsed alone, as headers.  Whole, `parse` also hashed the bytes, read who sent them and whether they
    were sent by a machine, and the parser compiled a pattern for a multipart mail's boundary (a new one for every mail:
    no cache holds it), five times this reading's cost for one header of a mail pbem wrote (perf32)."""
    if len(head) > MAX_RAW_BYTES:  # as `parse` cuts a mail this long
        head = head[:64_000]
    try:
        return _header(parse_bytes(head, headersonly=True), "Subject")
    except Exception:  # as `parse` reads a header block it cannot parse: no subject
        return ""


def too_nested(raw: bytes) -> bool:
    """More containers (multipart, `message/`) than any mail client makes: parsing the body would cost depth times
    lines, and recurse a level a container (counted up to the first one over).

    A container is a multipart boundary declared, or a `message/` part (a forwarded mail), which the parser reads by
    calling itself: 1,000 nested `message/rfc822` parts (40 KB, no boundary) raised RecursionError, told as a broken
    structure, and 100 to 900 of them cost depth times lines and were told "no text part" (costs19)."""
    return containers.more_than(raw, MAX_MULTIPARTS)  # counted in C first (`pbem.orders.containers`)


def too_many_parts(raw: bytes) -> bool:
    """More parts than `MAX_PARTS`: more lines starting with "--" (each delimiter line is one) in a mail that declares
    a boundary (a plain text mail of many rules or signatures is not multipart)."""
    return raw.count(b"\n--") > MAX_PARTS and _BOUNDARY.search(raw) is not None


def _guarded(read: Callable[[], str | None], failed: str) -> str | None:
    try:
        return read()
    except Exception:  # nothing in parse may raise
        return failed


def _body(msg: Message) -> tuple[str, str | None]:
    """The chosen text and the problem that keeps it from being read (None if it can be)."""
    try:
        plain, html = _text_parts(msg)
        if plain is not None and (plain.strip() or html is None):
            text = plain
        elif html is not None:  # HTML only, or an empty text part beside the HTML one
            text = html_to_text(html)
        else:
            return "", _no_text(msg)
    except Unreadable as exc:
        return "", f"could not be read: {exc}"
    except Exception as exc:  # any other failure in a part (recursion, a broken structure)
        return "", f"could not be read: a part of the message is broken ({type(exc).__name__})"
    if "\x00" in text:
        return "", "the message body holds binary data (NUL bytes)"
    if len(text) > MAX_BODY_CHARS:
        return "", f"the message body is {len(text)} characters long; orders must fit in {MAX_BODY_CHARS}"
    return text, None


#: The envelopes whose text pbem cannot open: S/MIME encrypted or signed as one blob, OpenPGP encrypted.
_SEALED = frozenset({"application/pkcs7-mime", "application/x-pkcs7-mime", "multipart/encrypted"})


def _no_text(msg: Message) -> str:
    """Why a mail with no text part cannot be read: an encrypted or opaque-signed one (Thunderbird's and Outlook's
    S/MIME, OpenPGP encryption) was told it had "only attachments", which the player could not act on."""
    if msg.get_content_type() in _SEALED:
        return (
            "its text is sealed (S/MIME or OpenPGP encryption, or an S/MIME signature that wraps the text), "
            "which pbem cannot open: send it again unencrypted (a signature attached beside the text is fine)"
        )
    kinds = {p.get_content_maintype() for p in islice(msg.walk(), MAX_PARTS) if not p.is_multipart()}
    if kinds == {"image"}:  # a phone's photo of the orders, a screenshot: "no text part" did not say what to do
        return "it holds only a picture, no text; pbem reads only orders typed in the mail, so type them in a reply"
    return "the message has no text part (only attachments or binary content)"


_SURROGATE = re.compile(r"[\ud800-\udfff]")  # (escaped: a pattern's source is ASCII)


def _header(msg: Message, name: str) -> str:
    """The first `name` header of `msg` as a reader sees it, as `msg.get(name)` gives it, but for a value holding raw
    8-bit bytes (RFC 6532): read from the raw value (`_eight_bit`), not through the `Header` that `msg.get` builds of
    it first, some 8 bytes a byte of the value (a poll's peak for a long 8-bit Subject; costs26)."""
    try:
        low = name.lower()
        value = next((v for k, v in msg.raw_items() if k.lower() == low), None)
        if isinstance(value, str) and _SURROGATE.search(value):  # (compat32's own test: `_has_surrogates`)
            value = _eight_bit(value)
        return "" if value is None else _decoded(str(value))
    except Exception:  # a header that cannot be read reads as absent
        return ""


def _eight_bit(value: str) -> str:
    """A header holding raw 8-bit bytes (kept by the parser as surrogates) read as UTF-8 (RFC 6532), else as
    Windows-1252: "Zoë" was quoted back as "Zo��" (found by the players' testers)."""
    data = value.encode("utf-8", "surrogateescape")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def _decoded(value: str) -> str:
    """RFC 2047 words decoded (in time linear in the header: `pbem.mail.inbound.words`), control characters
    removed."""
    return _clean(decoded(str(value)))


def _clean(text: str) -> str:
    """No control characters or line breaks (header injection) in a header value."""
    return re.sub(r"[\x00-\x1f\x7f]+", " ", text).strip()[:2000]


def all_recipients(msg: Message) -> list[str]:
    return [a for _, a in getaddresses(msg.get_all("To", []) + msg.get_all("Cc", []))]
