"""Mail that must never be answered (pure): auto-replies, bounces, lists, bulk, our own.

Follows the standards rather than a list of cases (issue 12):
* RFC 3834 `Auto-Submitted`: only the exact value `no` (any case, comments and
  `;` parameters allowed) is a human's mail; every other value, including
  `notification` and an empty one, is automatic.
* The de-facto vacation markers `X-Autoreply`, `X-Autorespond` and
  `Precedence: auto_reply` (also `bulk`, `junk`, `list`), and the subjects
  autoresponders write ("Automatic reply:", "Abwesenheitsnotiz:", "Réponse
  automatique :", ... `_AUTO_SUBJECT`) for those that send no header.
* Bounces: a null or daemon sender (`<>`, MAILER-DAEMON, postmaster), a
  `multipart/report` (RFC 6522: DSNs, MDNs, feedback reports), a top-level
  `message/delivery-status`, or `X-Failed-Recipients`.
* Mailing lists (`List-Id`, `List-Unsubscribe`, RFC 2369/2919) and mail whose
  `X-Loop` names the moderator.

flufl.bounce was weighed: it finds *which* address bounced in dozens of
vendor formats, which pbem does not need; every format it parses is sent from
a null or daemon sender or as a DSN, which the checks here already refuse to
answer, so it is not a dependency.
"""

from __future__ import annotations

import re
from email.message import Message

from pbem.mail.inbound.words import decoded

_COMMENT = re.compile(r"\([^()]*\)")
_AUTO_PRECEDENCE = {"bulk", "list", "junk", "auto_reply", "auto-reply"}
_DAEMONS = {"mailer-daemon", "postmaster", "mail-daemon", "mailerdaemon"}
_NO = {"no", "false", "0", "off"}


#: characters of a header these checks read: each needs a few (a keyword, an address, an auto-reply's subject's first
#: 300 once decoded, which 300 encoded words of 78 characters write); `re.sub` over the whole of a Subject of 280 KB
#: held a piece a word and a blank, 8.8 bytes a byte, the peak of a poll's reading of it (costs26)
MOST_READ = 24_000


#: a message's headers by their names in lower case, each with its name as written and its raw value, in order
_Heads = dict[str, list[tuple[str, object]]]


def _heads(msg: Message) -> _Heads | None:
    """`msg`'s headers by lower-case name, read once for every check (None: its headers cannot be read).  Each check
    walked every header and lowered its name again: eleven walks a message, on the parse-ahead threads (perf37)."""
    try:
        out: _Heads = {}
        for k, v in msg.raw_items():
            out.setdefault(k.lower(), []).append((k, v))
        return out
    except Exception:
        return None


def _values(msg: Message, name: str, heads: _Heads | None) -> list[str]:
    """Every `name` header of `msg`, as `msg.get_all(name)` reads it, of its first `MOST_READ` characters (cut before
    the policy reads it: of a value of 8-bit bytes compat32 makes a `Header` first, some 8 bytes a byte).  `heads`:
    `_heads(msg)`."""
    try:
        if heads is None:
            raise ValueError("unreadable headers")
        out = []
        for k, v in heads.get(name.lower(), ()):
            value = msg.policy.header_fetch_parse(k, v[:MOST_READ] if isinstance(v, str) else v)  # type: ignore[arg-type]
            out.append(re.sub(r"\s+", " ", str(value)[:MOST_READ]).strip())
        return out
    except Exception:  # a header that cannot be read is not a reason to answer
        return ["(unreadable)"]


def auto_submitted_is_human(value: str) -> bool:
    """RFC 3834 section 5: `auto-submitted *( ";" parameter )`, CFWS allowed; only `no` is human."""
    text = value
    for _ in range(5):  # nested comments
        text = _COMMENT.sub(" ", text)
    keyword = text.split(";", 1)[0].strip().lower()
    return keyword == "no"


def auto_reason(msg: Message, sender: str, moderator: str) -> str | None:
    """Why `msg` must never be answered, or None for mail a person wrote."""
    heads = _heads(msg)
    return _automatic(msg, heads) or _bounce_or_report(msg, sender, heads) or _list_or_loop(msg, moderator, heads)


def _automatic(msg: Message, heads: _Heads | None) -> str | None:
    """A header saying a program wrote the message (RFC 3834 and the older conventions)."""
    for value in _values(msg, "Auto-Submitted", heads):
        if not auto_submitted_is_human(value):
            return f"Auto-Submitted: {value[:80]}"
    for name in ("X-Autoreply", "X-Autorespond", "X-Autorespond-Sent"):
        for value in _values(msg, name, heads):
            if name != "X-Autoreply" or value.lower() not in _NO:
                return f"{name}: {value[:80]}"
    for value in _values(msg, "Precedence", heads):
        if _COMMENT.sub(" ", value).strip().lower() in _AUTO_PRECEDENCE:
            return f"Precedence: {value[:80]}"
    for value in _values(msg, "Subject", heads)[:1]:
        subject = decoded(value)[:300]
        if _AUTO_SUBJECT.match(subject):
            return f"an auto-reply's subject: {subject[:80]}"
    return None


#: The subjects autoresponders give their replies, in the languages of the clients and servers that send them
#: without any header saying so (older Exchange and Lotus servers, hosting control panels' responders): such a
#: reply that held a line like "Away until Monday." was refused ("write AWAY UNTIL 2026-12-24 ...") and answered
#: again at each of its returns.
_AUTO_SUBJECT = re.compile(
    r"^\s*+(?:(?:re|aw|sv|fw|fwd|tr|rv)\s*+:\s*+)?(?:automatic\s+reply|auto(?:matic)?[\s-]*repl(?:y|ied)|autoreply|"
    r"auto-?response|out\s+of\s+(?:the\s+)?office|abwesenheitsnotiz|automatische\s+antwort|"
    r"r[ée]ponse\s+automatique|absence\s+du\s+bureau|respuesta\s+autom[áa]tica|fuera\s+de\s+la\s+oficina|"
    r"risposta\s+automatica|fuori\s+sede|automatisch\s+antwoord|afwezig|resposta\s+autom[áa]tica|"
    r"fora\s+do\s+escrit[óo]rio|odpowied[źz]\s+automatyczna|poza\s+biurem|automatiskt\s+svar|自動応答|自動返信|"
    r"自动回复|自動回覆|자동\s*회신|автоматический\s+ответ)\s*[:\uff1a]",
    re.IGNORECASE,
)


def is_daemon(sender: str) -> bool:
    """A null sender or a mail system's (MAILER-DAEMON, postmaster): bounces come from these."""
    return not sender or sender == "<>" or sender.split("@")[0] in _DAEMONS


def _bounce_or_report(msg: Message, sender: str, heads: _Heads | None) -> str | None:
    """A bounce, a null sender or a delivery/read report."""
    if is_daemon(sender):
        return "bounce or null sender"
    if any(v.strip("<> ") == "" for v in _values(msg, "Return-Path", heads)):
        return "bounce: null Return-Path"
    try:
        ctype = msg.get_content_type()
    except Exception:
        ctype = ""
    if ctype in ("multipart/report", "message/delivery-status", "message/disposition-notification"):
        return f"delivery or read report ({ctype})"
    if _values(msg, "X-Failed-Recipients", heads):
        return "bounce: X-Failed-Recipients"
    return None


def _list_or_loop(msg: Message, moderator: str, heads: _Heads | None) -> str | None:
    """Mail that went round through the moderator already, or a mailing list's."""
    for loop in _values(msg, "X-Loop", heads):
        if moderator and moderator.lower() in loop.lower():
            return "X-Loop names the moderator"
    if _values(msg, "List-Id", heads) or _values(msg, "List-Unsubscribe", heads):
        return "mailing-list message"
    return None
