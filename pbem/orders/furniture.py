"""Mail furniture (pure): what mail clients put around a person's own text.

`own_lines` keeps the lines the sender wrote in this message and drops:

* quoted lines (``>``), whether the reply is top- or bottom-posted, except a line of the mail answered (quoted
  once) that the writer marked as their choice and that is an order (``> NO EVENT <-- this``, ``> [x] VOTE RED``:
  `pbem.orders.typed.chosen`, the order told by the caller), or with a mark typed on a line of its own right
  under it (``<-- this``, ``^ this one``, ``x``: `pbem.orders.typed.points_up`), which stands for it;
* attributions over one to three lines in English, Spanish, French, German,
  Italian, Portuguese, Dutch and a few more, and in any language a line naming an
  address and ending in a colon above quoted lines (Gmail in Japanese, Chinese,
  Korean, Russian, Polish ...) (``On ... wrote:``, Gmail's
  ``On Mon, 30 Nov 2026 at 21:08, X <x@y>`` / ``wrote:`` wrap,
  ``El ... escribió:``, ``Le ... a écrit :``, ``Am ... schrieb X:``,
  ``X schrieb am ...:``, ``Il giorno ... ha scritto:``, ``Em ... escreveu:``,
  ``Op ... schreef X:``).  An attribution followed by quoted lines is dropped
  and reading goes on (bottom-posting); one followed by unquoted text (Yahoo's
  plain part) ends the sender's text;
* GroupWise's ``>>> X <x@y> 11/30/2026 9:08 PM >>>`` above the mail answered, copied unquoted: the rest of the
  message is someone else's;
* Outlook header blocks (``From:`` with ``Sent:``/``To:``/``Subject:`` below, in
  the common languages: en de fr es it pt nl sv da pl ru uk ja zh ko tr hu cs; full-width
  colons too) and QQ Mail's ``------------------ 原始邮件 ------------------``, forwarded and original-message markers: the rest of
  the message is someone else's;
* (in `pbem.orders.extract`, by `sign_off`) the signature below a sign-off line after the orders ("Best regards,");
* the signature after ``-- `` (or ``--`` alone, its space lost, or the em or en dash a phone's smart punctuation
  makes of it) up to the quote it stands above, if any (a bottom-posted answer below the quote is read:
  `_signature_end`; an order typed between the signature and the quote is the caller's to tell: `own_lines`'s
  `signed`), and the one-line signatures of mobile and webmail
  clients (``Sent from my iPhone``, ``Get Outlook for Android`` and its translations, ``Sent with
  Proton Mail secure email.``, ``Envoyé de mon iPhone`` ...).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pbem.orders.typed import cleaned, points_up

_CLOSER = (
    r"(?:wrote|writes|escribió|escribio|a\s+écrit|a\s+ecrit|schrieb|ha\s+scritto|escreveu|schreef|skrev|"
    r"kirjoitti|napisał|napisal|написал\(а\)|написал|написала|yazdı)"
)
_OPENER = r"(?:on|el|le|am|il\s+giorno|il|em|op|den|d\.|w\s+dniu|el\s+día|на|в)"
_ATTRIBUTION = re.compile(
    rf"^\s*+(?:{_OPENER}\s.*|[^@<]*[@<].*)\s{_CLOSER}(?:\s[^:]{{0,120}}|\s.{{0,80}}\d\d?:\d\d)?\s*:\s*$", re.IGNORECASE
)
_ATTRIBUTION_INLINE = re.compile(  # Yahoo's plain part: the quoted text runs on after "wrote:"
    rf"^\s*{_OPENER}\s.{{5,200}}[@<].{{0,120}}\s{_CLOSER}\s*:\s{{2,}}\S", re.IGNORECASE
)
_ATTRIBUTION_START = re.compile(rf"^\s*+(?:{_OPENER}\s|[^@<]*[@<])", re.IGNORECASE)
# Any language: a line naming an address and ending in a colon, with quoted lines below (checked by the caller):
# "2026年11月30日(月) 21:08 X <x@y>:", "X <x@y> 于2026年11月30日周一 21:08写道：", "... X <x@y>님이 작성:",
# "пн, 30 нояб. 2026 г. в 21:08, X <x@y>:", "pon., 30 lis 2026 o 21:08 X <x@y> napisał(a):".
# The address's local part starts where its run does, and its domain's first dot after its first character is
# found by a run that holds no dot: two runs that could both take the dots of "a@......" were split every way
# (4 s for 58 KB of such lines).  The same lines match.
_ATTRIBUTION_ANY = re.compile(r"^.{0,160}<?(?<![^\s<>@])[^\s<>@]++@[^\s<>@][^\s<>@.]*+\.[^\s<>@]+>?.{0,60}[:：]\s*$")

_MARKER_WORDS = (
    r"original|forward|message|mensaje|nachricht|messaggio|mensagem|bericht|reenviad|transf|inoltrat|"
    r"encaminhad|doorgestuurd|weitergeleitet|ursprüngliche|origine|meddelande|videresendt|oorspronkelijk|"
    r"wiadomość|wiadomosc|сообщение|原始邮件|原始郵件|原始信件|元のメッセージ|転送|转发|轉寄|원본\s*메시지|전달된\s*메시지|"
    r"orijinal|eredeti|původní|повідомлення"
)
MARKER = re.compile(  # a forwarded or original-message marker, or a long rule
    rf"^\s*+(?:[-_=*]{{2,}}+\s*+(?=[^\n]*(?:{_MARKER_WORDS}))[^-_=*\s][^-_=*]{{2,60}}?\s*[-_=*]{{2,}}|_{{8,}}|"
    r"(?:begin forwarded message|début du message réexpédié|debut du message reexpedie|"
    r"anfang der weitergeleiteten nachricht|inizio messaggio inoltrato|comienzo del mensaje reenviado|"
    r"início da mensagem reencaminhada|inicio da mensagem encaminhada|begin doorgestuurd bericht)\s*:?)\s*$",
    re.IGNORECASE,
)
_HEADER_FROM = re.compile(
    r"^\s*+\**+\s*+(?:from|von|de|da|van|från|fra|od|от|lähettäjä|差出人|送信者|发件人|發件人|寄件者|寄件人|보낸\s*사람|"
    r"kimden|feladó|odesílatel|від|απο|από|mittente|remetente|afzender|nadawca)\s*[:：]\**\s*\S",
    re.IGNORECASE,
)
_HEADER_NEXT = re.compile(
    r"^\s*+\**+\s*+(?:sent|date|to|cc|subject|gesendet|datum|an|betreff|envoyé|envoye|date|à|a|objet|enviado|"
    r"fecha|para|asunto|inviato|data|oggetto|verzonden|aan|onderwerp|assunto|skickat|till|ämne|sendt|emne|"
    r"til|wysłane|wysłano|data|do|temat|dw|отправлено|дата|кому|копия|тема|送信日時|日付|宛先|件名|cc|"
    r"发送时间|發送時間|时间|時間|日期|收件人|收件者|抄送|副本|主题|主旨|主題|보낸\s*날짜|날짜|받는\s*사람|참조|제목|"
    r"gönderildi|tarih|kime|konu|elküldve|címzett|tárgy|odesláno|komu|předmět|надіслано|кому|тема)\s*[:：]",
    re.IGNORECASE,
)
_CLIENT_SIGNATURE = re.compile(
    r"^\s*(?:sent (?:from|with|via|using) .{1,60}|get outlook for .{1,40}|envoyé (?:de|depuis|avec) .{1,60}|"
    r"envoye (?:de|depuis|avec) .{1,60}|(?:von meinem|gesendet (?:von|mit)) .{1,60}|"
    r"enviado (?:desde|do|con|com|de) .{1,60}|inviato (?:da|dal|con) .{1,60}|"
    r"(?:verzonden|verstuurd) (?:vanaf|met|van) .{1,60}|skickat från .{1,60}|sendt fra .{1,60}|"
    r"download outlook for .{1,40}|sent from mail for windows.{0,20}|wysłane z .{1,60}|"
    r"obtenir outlook pour .{1,40}|outlook für .{1,40} herunterladen(?:<[^<>]{1,80}>)?|obtener outlook para .{1,40}|"
    r"scarica outlook per .{1,40}|outlook voor .{1,40} downloaden(?:<[^<>]{1,80}>)?|"
    r"(?:obter|baixe) o outlook para .{1,40}|"
    r"отправлено (?:с|из) .{1,60}|iPhoneから送信|从我的\s?iPhone发送|發自我的\s?iPhone|来自.{1,30}|"
    r"나의 iPhone에서 보냄|galaxy에서 보냄|.{1,30}에서 보냄|gönderildiği yer: .{1,40})\s*$",
    re.IGNORECASE,
)


#: A signature's separator alone on its line: "-- " with its space lost, or as a phone's smart punctuation types
#: "--" (an em or en dash: "Play hard, play fair" under it was read as an order and the message refused).
_SEPARATORS = frozenset(("--", "\u2014", "\u2013"))


def _quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def attribution_at(lines: list[str], i: int) -> int:
    """How many lines (1 to 3) starting at `i` form an attribution, or 0."""
    if not _ATTRIBUTION_START.match(lines[i]):
        return 0
    joined = ""
    for n in range(3):
        if i + n >= len(lines) or not lines[i + n].strip() or _quoted(lines[i + n]):
            return 0
        joined = f"{joined} {lines[i + n].strip()}".strip()
        if len(joined) > 300:
            return 0
        if _ATTRIBUTION.match(joined) or (_ATTRIBUTION_ANY.match(joined) and _next_is_quote(lines, i + n + 1)):
            return n + 1
    return 0


def header_block_at(lines: list[str], i: int) -> bool:
    """An Outlook-style "From: ... / Sent: ... / To: ..." block of the quoted message starts at `i`."""
    if not _HEADER_FROM.match(lines[i]):
        return False
    following = [ln for ln in lines[i + 1 : i + 5] if ln.strip()]
    return any(_HEADER_NEXT.match(ln) for ln in following[:3])


def _next_is_quote(lines: list[str], i: int) -> bool:
    """The first non-blank line from `i` on is quoted (or there is none).  Read by index up to that line: a copy
    of the rest (`lines[i:]`) for every line that names an address and ends in a colon was quadratic."""
    for k in range(i, len(lines)):
        if lines[k].strip():
            return _quoted(lines[k])
    return True


def groupwise(line: str) -> bool:
    """GroupWise's attribution, above the mail answered copied unquoted: ``>>> "X" <x@y> 11/30/2026 9:08 PM >>>``
    or ``>>> X 30.11.2026 21:08 >>>`` (its lines were read as the writer's: every order a report listed, a refusal
    with a dozen lines quoted)."""
    bare = line.strip()
    return (
        len(bare) <= 300
        and bare.startswith(">>>")
        and bare.endswith(">>>")
        and bool(bare[3:-3].strip())
        and any(ch.isdigit() for ch in bare)
    )


def client_signature(line: str) -> bool:
    """A signature line a mail client adds by itself ("Sent from my iPhone")."""
    return bool(_CLIENT_SIGNATURE.match(line))


def unquoted(line: str) -> str | None:
    """A line quoted once (``> NO EVENT <-- this``) without its quote mark; None for any other line (not quoted,
    or quoted twice or more: an older mail's, never the writer's answer to this one)."""
    bare = line.lstrip()
    if not bare.startswith(">"):
        return None
    rest = bare[1:]
    return None if rest.lstrip().startswith(">") else rest[1:] if rest.startswith(" ") else rest


#: Every line break a text may hold, as `str.splitlines` knows them: a vertical tab is Word's and Outlook's line break
#: typed with Shift+Enter, a form feed a page break pasted with the text, NEL a mainframe's or a C1 text's.  Only
#: CR, LF, CRLF, U+2028 and U+2029 broke lines before: "NO EVENT\vthanks\fAlice" was refused as one order line
#: with words after it (explore35).  Split by `str.replace` and `str.split` (a pattern's split took 6 times as long:
#: 2.8 ms for a body of 60 KB).
LINE_BREAKS = ("\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def lines_of(text: str) -> list[str]:
    """`text`'s lines, split at every one of `LINE_BREAKS` and LF (a text ending in a break ends in an empty line)."""
    for brk in LINE_BREAKS:
        if brk in text:
            text = text.replace(brk, "\n")
    return text.split("\n")


def own_lines(
    text: str, marked: Callable[[str], bool] | None = None, signed: list[str] | None = None
) -> tuple[list[str], list[str]]:
    """The sender's own lines, and the furniture lines dropped among them (for the record).  `marked(line)`: a line
    of the mail answered, quoted once, that the writer marked as their choice ("> NO EVENT <-- this", "> [x] VOTE
    RED") is theirs, kept without its quote mark.  `signed`: where the lines of a signature above a quote go (its
    "-- " left out), which may hold an answer typed under the signature (the caller tells it)."""
    lines = lines_of(text)
    out: list[str] = []
    dropped: list[str] = []
    chose: list[int] = []  # where in `out` the lines of the mail answered the writer marked are
    i = 0
    while i < len(lines):
        raw = lines[i]
        if raw == ">":  # a quote's bare mark (a copy's line taken out, `own_mail.without_copies`): nothing of theirs
            i += 1
            continue
        if raw.rstrip() in _SEPARATORS or raw.startswith("-- "):
            end = _signature_end(lines, i + 1)
            if end is None:
                break
            dropped.extend(lines[i:end])
            if signed is not None:
                signed.extend(lines[i + 1 : end])
            i = end  # above the quote of a bottom-posted answer their text goes on below it; or the mail ends here
            continue
        if groupwise(raw):
            break  # GroupWise's attribution: the mail answered follows, unquoted
        if _quoted(raw):
            mine = unquoted(raw) if marked is not None else None
            if mine is not None and marked is not None and marked(mine):
                chose.append(len(out))
                out.append(mine)
            i += 1
            continue
        n = attribution_at(lines, i)
        if n:
            dropped.extend(lines[i : i + n])
            if not _next_is_quote(lines, i + n):
                break
            i += n
            continue
        if MARKER.match(raw) or header_block_at(lines, i) or _ATTRIBUTION_INLINE.match(raw):
            break
        if client_signature(raw):
            dropped.append(raw)
        elif marked is not None and points_up(raw) and (pointed := _pointed_at(lines, i, marked)) is not None:
            if not out or out[-1] != pointed:
                chose.append(len(out))
                out.append(pointed)  # "> VOTE RED" then "<-- this" below it: the quoted order is the writer's choice
        else:
            out.append(raw)
        i += 1
    return _once(out, chose), dropped


SIGNATURE_LINES = 12  # lines of a signature above the quote of a bottom-posted answer, at most
QUOTE_RUN = 3  # quoted lines in a row that start the quote under a signature with no attribution above them


def _signature_end(lines: list[str], i: int) -> int | None:
    """Where the quote starts that a signature (from `i`, under its "-- ") stands above: its attribution or its first
    quoted line, within `SIGNATURE_LINES`; the mail's end when the signature ends it within `SIGNATURE_LINES` (an
    answer typed under it, no quote below, was dropped untold); None when it runs on longer or into a header block or
    a marker (the rest is someone else's).  A phone answering at the bottom puts the signature above the quote and the
    answer below it ("-- " / "Alice Martin", the quote, then "NO EVENT"): that answer was cut off with the signature.
    Each line is looked at by at most `SIGNATURE_LINES` separators' scans, so the cost stays linear."""
    for k in range(i, min(i + SIGNATURE_LINES, len(lines))):
        line = lines[k]
        n = 0 if _quoted(line) else attribution_at(lines, k)
        if (n and _next_is_quote(lines, k + n)) or all(_quoted(q) for q in lines[k : k + QUOTE_RUN]):
            return k  # the quote: a signature's own quoted motto ("> Carpe diem") is shorter
        if MARKER.match(line) or header_block_at(lines, k) or groupwise(line):
            return None
    return len(lines) if len(lines) <= i + SIGNATURE_LINES else None


def _once(out: list[str], chose: list[int]) -> list[str]:
    """`out` without each marked line of the mail answered that repeats an order the writer typed themselves (the
    same words, case and marks aside): "DECLINE ALL" typed above the quote and "> DECLINE ALL <-- this" marked in
    it are one answer, which was refused as two ("send only the one you mean") or as a card played twice.  A marked
    line that differs from what was typed is a second order, read as any other (`pbem.engine.slots`)."""
    if not chose:
        return out
    marked = set(chose)
    typed = {_key(line) for k, line in enumerate(out) if k not in marked}
    return [line for k, line in enumerate(out) if k not in marked or _key(line) not in typed]


def _key(line: str) -> str:
    return " ".join((cleaned(line) or line).casefold().split())


def _pointed_at(lines: list[str], i: int, marked: Callable[[str], bool]) -> str | None:
    """The line quoted once right above `lines[i]` (a blank line between at most), without its quote mark, when
    it is an order marked so (`marked`); else None."""
    for k in (i - 1, i - 2):
        if k < 0:
            return None
        mine = unquoted(lines[k])
        if mine is not None:
            return mine if marked(f"{mine} <--") else None
        if lines[k].strip():
            return None
    return None


#: The lines that close a letter, alone on their line (a comma or "!" after them), in the players' languages.
SIGN_OFFS = frozenset(
    [
        *("regards", "best regards", "kind regards", "warm regards", "warmest regards", "best wishes", "all the best"),
        *("best", "cheers", "thanks", "thank you", "many thanks", "thanks a lot", "thx", "yours", "yours truly"),
        *("sincerely", "yours sincerely", "cordially", "gruß", "grüße", "viele grüße", "liebe grüße", "beste grüße"),
        *("mit freundlichen grüßen", "freundliche grüße", "mfg", "lg", "vg", "danke", "vielen dank", "cordialement"),
        *("bien cordialement", "bien à vous", "amicalement", "amitiés", "merci", "merci beaucoup", "bonne journée"),
        *("saludos", "un saludo", "saludos cordiales", "atentamente", "gracias", "muchas gracias", "un abrazo"),
        *("saluti", "cordiali saluti", "un saluto", "distinti saluti", "grazie", "a presto", "ciao", "groeten"),
        *("met vriendelijke groet", "vriendelijke groet", "groetjes", "bedankt", "atenciosamente", "abraços"),
        *("abraço", "obrigado", "obrigada", "cumprimentos", "pozdrawiam", "z poważaniem", "dzięki", "hälsningar"),
        *("vänliga hälsningar", "mvh", "tack", "よろしくお願いします", "よろしく"),
    ]
)


def sign_off(line: str) -> bool:
    """Whether `line` closes a letter ("Best regards,", "Cheers!", "Mit freundlichen Grüßen"): below it, after the
    orders, comes the signature, whose lines are never orders ("Play Corp Ltd.", "Keep calm and carry on", "Trade
    Desk | Example Bank" refused the orders above them)."""
    bare = line.strip().rstrip(",.!;:-–— ").strip()
    if len(bare) > SIGNED_LONGEST:
        return False
    if " ".join(bare.lower().split()) in SIGN_OFFS:
        return True
    named = _NAMED.fullmatch(bare)  # "Thanks, Bob", "Cheers - Alice Martin" (players31)
    return named is not None and " ".join(named.group(1).lower().split()) in SIGN_OFFS


SIGNED_LONGEST = 50  # characters of a sign-off line, its name included, at most
#: A sign-off and the writer's name on one line: "Thanks, Bob", "Cheers - Alice", "Best regards, A. Martin"; the name
#: one to three words, each starting with a capital, no digit.  "Thanks, Bob" was a remark: an order under it was
#: read (or refused, the mail with it) where under "Thanks," / "Bob" it is the signature's, set aside and told.
_NAMED = re.compile(
    r"\A([^\W\d_][^,\-–—!\d]{0,30}?)\s*+[,\-–—]\s*+[A-ZÀ-Þ][^\W\d_]{0,20}+\.?(?:\s+[A-ZÀ-Þ][\w'’.\-]{0,20}+){0,2}"
)
