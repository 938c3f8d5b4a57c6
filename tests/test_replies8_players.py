"""Replies still misread (replies8): a fresh corpus, each reply built from a real report pbem sent.

Voice dictation and phone keyboards ("Vote red.", "Pass!", every word in lower or upper case, autocorrect's wrong
case in names, a doubled word "vote vote red"), orders numbered "1)", "2.", "a)" or bulleted with emoji, an order
the player marked with a "> " of their own at the top level, signatures whose "--" lost its trailing space, "Sent
from my iPhone" in other languages, replies in the subject line only, and an order top-posted above a thread of
three earlier reports.  Each is read as the player meant (the state the order gives), and each shape with no order
of the player's in it applies nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from pbem import engine as registry
from pbem.app.lines import read_again
from pbem.app.reading import MailReader, mail_reader
from pbem.app.refusals import worded
from pbem.engine import slots
from tests.conftest import sent_mail
from tests.test_replies3_players import ATTRIBUTIONS, KINDS, Moment, _plain, _quoted, shared_moments


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


def _first_capital(o: str) -> str:
    return o[:1].upper() + o[1:].lower()


def _doubled(o: str) -> str:
    word = o.split()[0]
    return f"{word.lower()} {o.lower()}"


def _names_case(o: str) -> str:
    """Autocorrect's case in the names: the order word kept, each name's first letter small, the rest capital."""
    word, _, rest = o.partition(" ")
    return f"{word} {' '.join(w[:1].lower() + w[1:].upper() for w in rest.split())}".rstrip()


#: How the order line was typed, dictated or listed.
TYPINGS: dict[str, Callable[[str], str]] = {
    "dictated-stop": lambda o: _first_capital(o) + ".",  # "Vote red."
    "dictated-period": lambda o: o.lower() + " period",  # "vote Red period" as dictated
    "bang": lambda o: o.title() + "!",  # "Pass!"
    "all-lower": str.lower,
    "all-upper": str.upper,
    "capitalised": _first_capital,
    "names-case": _names_case,
    "doubled-word": _doubled,  # "vote vote red": dictation repeats a word
    "doubled-word-capital": lambda o: _first_capital(_doubled(o)),
    "numbered-paren": lambda o: "1) " + o,
    "numbered-dot": lambda o: "2. " + o,
    "lettered": lambda o: "a) " + o,
    "lettered-capital": lambda o: "A. " + o,
    "bracketed-number": lambda o: "(1) " + o,
    "hash-number": lambda o: "#1 " + o,  # a list numbered with a hash: not a comment (the line was dropped, untold)
    "hash-number-dot": lambda o: "#2. " + o,
    "number-sign": lambda o: re.sub(r" (\d+)\b", r" #\1", o),  # "TRIBUTE Copper #4": not a comment
    "keycap": lambda o: "1\ufe0f\u20e3 " + o,  # 1️⃣
    "diamond": lambda o: "\U0001f539 " + o,  # 🔹
    "check-box": lambda o: "\u2705 " + o,  # ✅
    "arrow-emoji": lambda o: "\u27a1\ufe0f " + o,  # ➡️
    "small-square": lambda o: "\u25aa\ufe0f " + o,  # ▪️
    "en-dash-bullet": lambda o: "\u2013 " + o,
    "white-bullet": lambda o: "\u25e6 " + o,
}

SENT_FROM = (
    "Sent from my iPhone",
    "Enviado desde mi iPhone",
    "Von meinem iPhone gesendet",
    "Envoyé de mon iPhone",
    "从我的iPhone发送",
    "Inviato da iPhone",
    "Verzonden met iPhone",
    "Enviado do meu iPhone",
    "Skickat från min iPhone",
    "Wysłane z iPhone'a",
    "iPhoneから送信",
    "Отправлено с iPhone",  # noqa: RUF001
    "Envoyé de mon Android",
    "Von meinem Samsung Galaxy Smartphone gesendet.",
)

#: A signature under the order whose lines start with order words of some game, after a separator typed without the
#: space "-- " has (or another rule of dashes).
SIGNATURES = (
    ["--", "Alice Martin", "Play fair. Take care."],
    ["--", "Pass the salt, and call me on +44 20 7946 0958"],
    ["---", "Alice", "Discard this e-mail if you are not the intended recipient."],
    ["\u2014", "Alice Martin", "Play hard, play fair"],
    ["--", "Event planning | Example Ltd", "Tribute bands booked weekly"],
    ["__", "Alice", "Decline all unsolicited mail."],
)


#: Quoted lines at the top level that are no order of this message: a quote trimmed to a line of the report's list
#: (with its layout) above a doubt, an earlier mail of the player's quoted under its attribution, quoted prose, and
#: what dictation and a phone's list make of a line with no order.
NO_ORDER_QUOTED = (
    ["{said_by}", "> {order}", "", "Changed my mind, not sure yet."],
    [">{listed}", "", "Not this one, still thinking."],
    ["{said_by}", "", "> {order}", "> I think", "", "Still thinking."],
    ["> I would rather wait and see", "", "Hi all"],
    ["No no, not yet.", "", "1\ufe0f\u20e3 thinking about it"],
    ["> no no not yet", "Thanks"],
)


def _reply(moment: Moment, body: list[str], subject: str = "", refs: list[str] | None = None) -> bytes:
    sent = moment.report
    msg = EmailMessage()
    msg["From"] = f"{moment.player} <{moment.address}>"
    msg["To"] = str(sent["From"])
    msg["Subject"] = subject or "Re: " + str(sent["Subject"])
    msg["Message-ID"] = make_msgid(domain="players.example")
    msg["In-Reply-To"] = str(sent["Message-ID"])
    msg["References"] = " ".join(refs or [str(sent["Message-ID"])])
    msg.set_content("\n".join(body) + "\n")
    return msg.as_bytes()


_REPORTS: dict[int, list[EmailMessage]] = {}
_READERS: dict[int, MailReader] = {}


def _reports(moment: Moment) -> list[EmailMessage]:
    """The reports pbem sent the player, the oldest first (the newest is `moment.report`); read once per moment."""
    if id(moment) in _REPORTS:
        return _REPORTS[id(moment)]
    return _REPORTS.setdefault(
        id(moment),
        [
            m
            for m in sent_mail(moment.cfg)
            if m["To"].addresses[0].addr_spec == moment.address and str(m["Subject"]).startswith("[pbem")
        ],
    )


def _read(moment: Moment, raw: bytes) -> list[str]:
    words = tuple(registry.get(moment.kind).order_words)
    if id(moment) not in _READERS:
        _READERS[id(moment)] = mail_reader([m.as_bytes() for m in _reports(moment)])
    return list(_READERS[id(moment)](raw, words))


def _misread(moment: Moment, raw: bytes, want: list[str], label: str, got: list[str] | None = None) -> str:
    """ "" if pbem reads `raw` as the player meant (`want`; [] for no order: nothing applied), else what it read
    (`got`, if given: the lines pbem read from it)."""
    eng = registry.get(moment.kind)
    got = _read(moment, raw) if got is None else got
    applied = eng.apply(moment.state, moment.player, got)  # then as the intake reads again and words a refusal
    got, applied, _, _ = read_again(eng, moment.state, moment.player, got, applied, {"problems": []}, [])
    applied = worded(
        eng, moment.state, moment.player, slots.one_per_slot(eng, moment.state, moment.player, got, applied)
    )
    if not want:
        took = applied.accepted and any(r.ok for r in applied.lines)
        return f"{moment.kind} / {label}: no order meant, pbem read {got}" if took else ""
    intended = eng.apply(moment.state, moment.player, want)
    assert intended.accepted, (label, want)
    if applied.accepted and applied.state == intended.state:
        return ""
    why = "; ".join(r.reason for r in applied.lines if not r.ok)
    return f"{moment.kind} / {label}: the player meant {want}, pbem read {got} {why}"


def _top(moment: Moment, own: list[str]) -> list[str]:
    return [*own, "", ATTRIBUTIONS["gmail-android"][0], "", *_quoted(_plain(moment.report))]


def cases(moment: Moment) -> list[tuple[str, bytes, list[str]]]:
    """(label, the reply, the orders meant) for one moment: every shape, with an order and without."""
    legal = moment.legal
    out: list[tuple[str, bytes, list[str]]] = []
    for n, (name, typing) in enumerate(TYPINGS.items()):
        o = legal[n % len(legal)]
        out.append((f"typing/{name}", _reply(moment, _top(moment, ["Hi,", typing(o), "", "Thanks"])), [o]))
    for n, line in enumerate(SENT_FROM):
        o = legal[(n * 3) % len(legal)]
        quoted = _quoted([ATTRIBUTIONS["apple"][0], "", *_plain(moment.report)])
        layouts = (
            ("top", [typing_of(n)(o), "", line, "", *quoted], [o]),
            ("bottom", [*quoted, "", o, "", line], [o]),
            ("none", ["", line, "", *quoted], []),
        )
        name, body, want = layouts[n % 3]
        out.append((f"sent-from/{n}/{name}", _reply(moment, body), want))
    for n, sig in enumerate(SIGNATURES):
        o = legal[(n * 5) % len(legal)]
        out.append((f"signature/{n}", _reply(moment, _top(moment, ["Hi,", o, "", *sig])), [o]))
        out.append((f"signature/{n}/none", _reply(moment, _top(moment, ["Hi, thinking about it.", "", *sig])), []))
    for n, o in enumerate(legal[:3]):  # each layout once a moment, each with another order
        layouts = (
            ("alone", ["Hi,", "", f"> {o}", "", "Thanks"]),
            ("quote", _top(moment, ["Hi,", "", f"> {o}", "", "Thanks"])),
            ("tight", _top(moment, [f"> {o}"])),
        )
        name, body = layouts[n % 3]
        out.append((f"marked/{n}/{name}", _reply(moment, body), [o]))
    listed = next(line for line in _plain(moment.report) if line.strip() == legal[0])  # as laid out in the list
    said_by = "On Sun, 29 Nov 2026 at 10:00, Alice Martin <alice@example.net> wrote:"
    for n, shape in enumerate(NO_ORDER_QUOTED):
        body = [part.format(listed=listed, order=legal[0], said_by=said_by) for part in shape]
        out.append((f"marked/none/{n}", _reply(moment, _top(moment, body) if n % 2 else body), []))
    title = str(moment.report["Subject"])
    tag = title.split("]", 1)[0] + "]"
    empty = ["", "Sent from my iPhone"]
    quoted = ["", ATTRIBUTIONS["gmail-android"][0], "", *_quoted(_plain(moment.report))]
    for n, o in enumerate((legal * 4)[:4]):  # each subject once a moment
        subjects = (
            ("replaced", empty, f"Re: {tag} {o}"),
            ("after-title", quoted, f"Re: {title} {o}"),
            ("after-title-dash", quoted, f"Re: {title} - {o}"),
            ("lower", empty, f"RE: {tag} {o.lower()}"),
        )
        name, body, subject = subjects[n]
        out.append((f"subject/{n}/{name}", _reply(moment, body, subject=subject), [o]))
    out.append(("subject/none", _reply(moment, ["", "Sent from my iPhone"], subject=f"Re: {title}"), []))
    out += _threads(moment)
    return out


def typing_of(n: int) -> Callable[[str], str]:
    return list(TYPINGS.values())[n % 3]


def _threads(moment: Moment) -> list[tuple[str, bytes, list[str]]]:
    """An order top-posted above the three latest reports quoted one inside another ("> ", "> > ", ...), or one
    under another as Outlook lays a conversation out (a header block above each, nothing quoted)."""
    reports = _reports(moment)[-3:]
    if len(reports) < 3:
        return []
    refs = [str(m["Message-ID"]) for m in reports]
    nested: list[str] = []
    blocks: list[str] = []
    for m in reports:  # the oldest first: each later one quotes the thread so far
        nested = [ATTRIBUTIONS["gmail-en"][0], *_quoted([*_plain(m), "", *nested])]
        block = [f"From: {m['From']}", "Sent: Monday, November 30, 2026 9:08 PM", f"To: {m['To']}"]
        blocks = ["_" * 32, *block, f"Subject: {m['Subject']}", "", *_plain(m), "", *blocks]
    out = []
    for n, o in enumerate(moment.legal[:2]):
        out.append((f"thread/{n}/nested", _reply(moment, ["Hi,", o, "", *nested], refs=refs), [o]))
        out.append((f"thread/{n}/outlook", _reply(moment, [o, "", *blocks], refs=refs), [o]))
    out.append(("thread/none/nested", _reply(moment, ["Hi, not sure yet.", "", *nested], refs=refs), []))
    out.append(("thread/none/outlook", _reply(moment, ["Not sure yet.", "", *blocks], refs=refs), []))
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_each_reply_of_the_replies8_corpus_is_read_as_the_player_meant(moments: dict[str, Moment], kind: str) -> None:
    moment = moments[kind]
    failures = [why for label, raw, want in cases(moment) if (why := _misread(moment, raw, want, label))]
    assert not failures, f"{len(failures)} misread:\n" + "\n".join(failures)


def test_a_command_the_moderator_quoted_apart_from_any_quote_is_never_run(moments: dict[str, Moment]) -> None:
    """The writer's own quoted order is a player's reply's (`mine_quoted`): a moderator's mail answering pbem with
    "> PAUSE" on a line of its own (an earlier command of theirs, quoted without attribution) runs nothing,
    while a player's "> <order>" so typed is read."""
    from pbem.orders.extract import extract, own_line
    from pbem.orders.moderator import is_command, read
    from pbem.orders.own_mail import without_copies

    moment = moments["dynasties"]
    sent = ["\n".join(_plain(moment.report))]
    quote = _quoted(_plain(moment.report))
    text = without_copies("\n".join(["Hi,", "> PAUSE", "", *quote]), sent, keep=is_command)
    assert read(text).commands == [], text
    words = tuple(registry.get(moment.kind).order_words)
    mine = without_copies(
        "\n".join(["Hi,", f"> {moment.legal[0]}", "", *quote]), sent, own_line(words), mine_quoted=True
    )
    assert extract(mine, "", words).orders == [moment.legal[0]]
