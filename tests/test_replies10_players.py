"""Replies still misread or silently dropped (replies10): a fresh corpus, each reply built from a real report pbem sent.

Orders after an ordinal label ("1st: PASS", "2nd - NO EVENT") or a keycap digit ("Step 1\ufe0f\u20e3: PASS"); an order
marked ">> " or "> " by the player inside Outlook's unquoted original (under "-----Original Message-----" and the
report below it, not quoted); a label naming a step of the game ("Turn 3: PASS") that is not the step the mail
answers (told, never guessed: the turn-5 report answered with "Turn 3: PASS"), and the step's own label (read); the
player's own "> PASS" in a fresh mail with the code, which names no pbem mail, as in a reply; an order typed inside
the quoted report at its top or bottom, or quoted twice there (told, as one typed between its lines is).  Each is
read as the player meant or, where the meaning is not sure, set aside and told; each shape with no order reads no
line at all, and a thread's earlier answer quoted above the quoted report is not told.  On cc9d072, 210 of the 442
cases failed (ordinal and keycap labels 64, ">>" in Outlook's original 32, step labels 34, a fresh mail's "> " and a
reply's ">>" 24, typed inside the quote 56), and the poll test.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from pbem import engine as registry
from pbem.app.reading import extracted
from pbem.mail.inbound.message import parse
from pbem.mail.inbound.replies import SentMail
from pbem.orders.extract import Extracted
from tests.conftest import CODES
from tests.test_replies3_players import ATTRIBUTIONS, KINDS, Moment, _block, _plain, _quoted, shared_moments
from tests.test_replies7_clients import _text_mail
from tests.test_replies8_players import _misread


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


KEYCAP = "\ufe0f\u20e3"  # after a digit: the emoji keycap ("1️⃣")

#: Labels that number a list, whatever the game: the order after them is read.
NUMBERED: dict[str, Callable[[str], str]] = {
    "ordinal-colon": lambda o: f"1st: {o}",
    "ordinal-dash": lambda o: f"2nd - {o}",
    "ordinal-paren": lambda o: f"3rd) {o}",
    "ordinal-stop": lambda o: f"1st. {o}",
    "ordinal-word": lambda o: f"First: {o}",
    "step-keycap": lambda o: f"Step 1{KEYCAP}: {o}",
    "order-keycap": lambda o: f"Order 2{KEYCAP} - {o}",
    "keycap-colon": lambda o: f"1{KEYCAP}: {o}",
    "step-number": lambda o: f"Step 1: {o}",
    "order-number": lambda o: f"Order 2: {o}",
}

#: Lines of the same shapes that hold no order.
NO_ORDER = (
    "1st: thinking about it",
    "2nd - not sure yet",
    f"Step 1{KEYCAP}: no idea",
    "Turn 9: still thinking",
    "Hand 7 - no idea yet",
)

_STEP = re.compile(r"\b(Turn|Hand|Gambit) (\d{1,3})\b")


def steps(moment: Moment) -> dict[str, int]:
    """The steps the report's title names ("Gambit 1, Turn 1, Carol to play": Gambit 1 and Turn 1)."""
    title = str(moment.report["Subject"]).split("]", 1)[1]
    return {m.group(1): int(m.group(2)) for m in _STEP.finditer(title)}


def labelled(moment: Moment) -> list[tuple[str, Callable[[str], str], bool]]:
    """(name, typing, read) of the labels naming a step: the step the report names (read), another number of it,
    and a step word the report does not name (both told, never guessed)."""
    named = steps(moment)
    out: list[tuple[str, Callable[[str], str], bool]] = []
    for word, n in named.items():
        out.append((f"own-{word}", lambda o, w=word, k=n: f"{w} {k}: {o}", True))
        out.append((f"own-{word}-dash-lower", lambda o, w=word, k=n: f"{w.lower()} {k} - {o}", True))
        out.append((f"other-{word}", lambda o, w=word, k=n: f"{w} {k + 2}: {o}", False))
        out.append((f"other-{word}-hash", lambda o, w=word, k=n: f"{w} #{k + 1}: {o}", False))
    out += [(f"unnamed-{w}", lambda o, w=w: f"{w} 3: {o}", False) for w in ("Turn", "Hand", "Round") if w not in named]
    return out


def outlook_original(moment: Moment, typed: list[str], where: str) -> list[str]:
    """Outlook's answer above "-----Original Message-----", its header block and the report unquoted below, the
    player's `typed` lines put inside that report: at its top, or under its line listing the legal orders."""
    original = _plain(moment.report)
    at = 0 if where == "top" else next(i for i, x in enumerate(original) if x.startswith("Legal orders")) + 1
    head = ["See below.", "", "-----Original Message-----", *_block("en", moment.report), ""]
    return [*head, *original[:at], *typed, *original[at:]]


def in_quote(moment: Moment, typed: str, where: str) -> list[str]:
    """Gmail's reply, `typed` inside the quoted report: as its first line, under it, under its line listing the legal
    orders, or as its last line."""
    quoted = _quoted(_plain(moment.report))
    at = {"top": 0, "first": 1, "last": len(quoted)}.get(where)
    at = next(i for i, x in enumerate(quoted) if "Legal orders" in x) + 1 if at is None else at
    return ["Hi,", "", ATTRIBUTIONS["gmail-en"][0], *quoted[:at], typed, *quoted[at:]]


def _top(moment: Moment, own: list[str]) -> list[str]:
    return [*own, "", ATTRIBUTIONS["gmail-en"][0], "", *_quoted(_plain(moment.report))]


def fresh(moment: Moment, own: list[str]) -> bytes:
    """A fresh mail naming no pbem mail (no In-Reply-To), the code in the body, the game's tag in the subject."""
    tag = str(moment.report["Subject"]).split("]", 1)[0] + "]"
    return _text_mail(moment, [f"CODE {CODES[moment.player]}", *own, "", "Thanks"], f"{tag} orders", reply=False)


TOLD = None  # the case's order is set aside and told, never read
QUIET: list[str] = []  # no order, and nothing told


def cases(moment: Moment) -> list[tuple[str, bytes, list[str] | None]]:
    """(label, the reply, the orders meant; TOLD where the line must be set aside and told) for one moment."""
    legal = moment.legal
    out: list[tuple[str, bytes, list[str] | None]] = []
    for n, (name, typing) in enumerate(NUMBERED.items()):
        o = legal[n % len(legal)]
        out.append((f"numbered/{name}", _text_mail(moment, _top(moment, ["Hi,", typing(o), "", "Thanks"])), [o]))
    for n, (name, typing, read) in enumerate(labelled(moment)):
        o = legal[(n * 3) % len(legal)]
        out.append(
            (f"step/{name}", _text_mail(moment, _top(moment, ["Hi,", typing(o), "", "Thanks"])), [o] if read else TOLD)
        )
    for n, line in enumerate(NO_ORDER):
        out.append((f"none/{n}", _text_mail(moment, _top(moment, ["Hi,", line, "", "Thanks"])), []))
    for n, (mark, where) in enumerate((m, w) for m in (">> ", "> ", ">>") for w in ("top", "listed")):
        o = legal[(n * 5) % len(legal)]
        out.append((f"outlook/{mark!r}/{where}", _text_mail(moment, outlook_original(moment, [mark + o], where)), [o]))
        none = outlook_original(moment, [f"{mark}not sure yet"], where)
        out.append((f"outlook/{mark!r}/{where}/none", _text_mail(moment, none), []))
    for n, (mark, where) in enumerate((m, w) for m in ("> ", ">> ") for w in ("top", "first", "listed", "last")):
        o = legal[(n * 7) % len(legal)]
        out.append((f"in-quote/{mark!r}/{where}", _text_mail(moment, in_quote(moment, mark + o, where)), TOLD))
        out.append((f"in-quote/{mark!r}/{where}/none", _text_mail(moment, in_quote(moment, mark + "hmm", where)), []))
    thread = ["Still thinking.", "", ATTRIBUTIONS["gmail-en"][0], f"> {legal[0]}", ">"]  # an earlier answer quoted
    out.append(("thread/none", _text_mail(moment, thread + _quoted(in_quote(moment, "", "top")[2:])), QUIET))
    o = legal[-1]
    out.append(("fresh/quoted", fresh(moment, [f"> {o}"]), [o]))
    out.append(("fresh/quoted-double", fresh(moment, [f">> {o}"]), [o]))
    out.append(("fresh/quoted/none", fresh(moment, ["> not sure yet"]), []))
    out.append(("reply/quoted", _text_mail(moment, _top(moment, ["Hi,", f"> {o}", "", "Thanks"])), [o]))
    out.append(("reply/quoted-double", _text_mail(moment, _top(moment, ["Hi,", f">> {o}", "", "Thanks"])), [o]))
    return out


_SENT: dict[int, dict[str, SentMail]] = {}


def reading(moment: Moment, raw: bytes) -> Extracted:
    """pbem's reading of `raw`, its notes too, the report it answers known (as the poll and `pbem verify` know it)."""
    if id(moment) not in _SENT:
        mid = str(moment.report["Message-ID"])
        _SENT[id(moment)] = {mid: SentMail(mid, 0, "", moment.address, None, moment.report.as_bytes())}
    return extracted(parse(raw), _SENT[id(moment)], 0, tuple(registry.get(moment.kind).order_words))


@pytest.mark.parametrize("kind", KINDS)
def test_each_reply_of_the_replies10_corpus_is_read_as_the_player_meant_or_told(
    moments: dict[str, Moment], kind: str
) -> None:
    failures = misread_or_untold(moments[kind], cases(moments[kind]))
    assert not failures, f"{len(failures)} misread:\n" + "\n".join(failures)


def misread_or_untold(moment: Moment, built: list[tuple[str, bytes, list[str] | None]]) -> list[str]:
    """Why each case of `built` (label, the reply, the orders meant: TOLD, QUIET or a list) was not read as meant: an
    order read where it was to be told, or not told; orders other than meant; anything told where nothing was."""
    failures = []
    for label, raw, want in built:
        ex = reading(moment, raw)
        if want is TOLD:
            if ex.orders or not ex.problems:
                failures.append(f"{moment.kind} / {label}: to be told, pbem read {ex.orders}, told {ex.problems}")
        elif why := _misread(moment, raw, want, label, ex.orders):
            failures.append(why)
        elif not want and ex.orders:
            failures.append(f"{moment.kind} / {label}: no order meant, pbem read {ex.orders}")
        elif want is QUIET and ex.problems:
            failures.append(f"{moment.kind} / {label}: nothing to tell, pbem told {ex.problems}")
    return failures


def test_through_a_real_poll_a_label_of_another_step_is_told_and_a_fresh_quoted_order_read(tmp_path) -> None:
    """Habsburg's turn-1 report answered "Turn 3: NO EVENT", then ">> NO EVENT" typed as the quote's last line: nothing
    applied, each answer quotes the line, says why and what to send (a note `pbem verify --mail` knows); then a fresh
    mail with the code and ">> NO EVENT" is applied."""
    from pbem.trust.acked import unnoted
    from tests.conftest import deliver, order_mail, sent_mail
    from tests.test_replies3_players import _moment, _poll

    moment = _moment(tmp_path, "habsburg")
    deliver(moment.cfg, _text_mail(moment, _top(moment, ["Hi,", "Turn 3: NO EVENT", "", "Thanks"])))
    summary = _poll(moment.cfg, moment.clock)
    assert summary.accepted == 0, summary.line()
    answer = str(sent_mail(moment.cfg)[-1].get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]
    note = (
        '"Turn 3: NO EVENT" was not read as an order: it names Turn 3, but the mail it answers is for Turn 1; '
        "to order for this step, send the order alone: NO EVENT"
    )
    assert note in " ".join(answer.split()) and unnoted(answer) == "", answer
    deliver(moment.cfg, _text_mail(moment, in_quote(moment, ">> NO EVENT", "last")))
    assert _poll(moment.cfg, moment.clock).accepted == 0
    answer = str(sent_mail(moment.cfg)[-1].get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]
    note = '">> NO EVENT": a line typed inside the quote is not read; to send it, write it above the quote: NO EVENT'
    assert note in " ".join(answer.split()) and unnoted(answer) == "", answer
    sender = f"{moment.player} <{moment.address}>"
    deliver(moment.cfg, order_mail(sender, "g1", f"CODE {CODES[moment.player]}\n\n>> NO EVENT\n\nThanks"))
    assert _poll(moment.cfg, moment.clock).accepted == 1
