"""Replies still misread or silently dropped (replies11): a fresh corpus, each reply built from a real report pbem sent.

Attributions in nine languages wrapped over two or three lines as Gmail wraps them (inside the address, by words),
French ones with a no-break space before the colon; Outlook's header block in ten languages (its rule or its
"-----Ursprüngliche Nachricht-----" marker, a Cc line, the bold labels a forwarded HTML mail keeps); a signature above
the quote of a bottom-posted answer; disclaimers in other languages; orders in small letters with a stop, an ellipsis
or a comma; labels naming the order in other languages ("Meine Wahl: PASS"), a postscript ("PS: PASS"), a word of
assent before it ("OK: PASS", told), courtesies after it ("PASS por favor"); the order typed twice; an order typed in
Outlook's unquoted original, or its line marked there; format=flowed or quoted-printable soft breaks between an
order's words.  Each shape also comes without an order, which must read no line and tell nothing.

On ba1be06, 246 of the 936 cases failed: 144 labels and courtesies abroad (set aside untold, or refused), 56 words of
assent (set aside untold), 24 postscripts (untold), 14 orders typed twice (refused as two), 8 answers below the quote
under a signature above it (dropped).  Left: a listed line wrapped in asterisks in Outlook's unquoted original
("*NO EVENT*") is read as pbem's copy (pbem's own HTML bolds lines too: a mark must be told from its emphasis).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import pytest

from pbem import engine as registry
from tests.test_replies3_players import KINDS, WHO, Moment, _plain, _quoted, shared_moments
from tests.test_replies7_clients import _message, _text_mail
from tests.test_replies10_players import QUIET, TOLD, misread_or_untold


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


_LINES: dict[int, list[str]] = {}


def _report(moment: Moment) -> list[str]:
    """The report's text lines, read once a moment (each case copies them)."""
    return list(_LINES.get(id(moment)) or _LINES.setdefault(id(moment), _plain(moment.report)))


ADDR = "games@example.org"
#: Attributions as Gmail writes them in these languages, before it wraps them at 76 columns.
ATTRIBUTIONS = {
    "de": f"Am Mo., 30. Nov. 2026 um 21:08 Uhr schrieb pbem moderator <{ADDR}>:",
    "fr": f"Le lun. 30 nov. 2026 à 21:08, pbem moderator <{ADDR}> a écrit :",
    "es": f"El lun, 30 nov 2026 a las 21:08, pbem moderator (<{ADDR}>) escribió:",
    "nl": f"Op ma 30 nov 2026 om 21:08 schreef pbem moderator <{ADDR}>:",
    "it": f"Il giorno lun 30 nov 2026 alle ore 21:08 pbem moderator <{ADDR}> ha scritto:",
    "pt": f"Em seg., 30 de nov. de 2026 às 21:08, pbem moderator <{ADDR}> escreveu:",
    "sv": f"Den mån 30 nov. 2026 kl 21:08 skrev pbem moderator <{ADDR}>:",
    "de-after": f"pbem moderator <{ADDR}> schrieb am Mo., 30. Nov. 2026, 21:08:",
    "fr-thunderbird": "Le 30/11/2026 à 21:08, pbem moderator a écrit\u00a0:",
    "fr-narrow": f"Le lun. 30 nov. 2026 à 21:08, pbem moderator <{ADDR}> a écrit\u202f:",
    "da": f"Den man. 30. nov. 2026 kl. 21.08 skrev pbem moderator <{ADDR}>:",
}


def wrapped(line: str, how: str) -> list[str]:
    """`line` over two lines: Gmail's break inside the address ("... <" / "games@example.org>:"), or at the last space
    that keeps the first line under 60 columns; "one": as it was."""
    if how == "address" and "<" in line:
        at = line.index("<") + 1
        return [line[:at], line[at:]]
    if how in ("words", "narrow"):
        return textwrap.wrap(line, 60 if how == "words" else 40, break_on_hyphens=False, break_long_words=False)
    return [line]


OUTLOOK = {  # (From, Sent, To, Subject, Cc, the date, its original-message marker)
    "de": ("Von", "Gesendet", "An", "Betreff", "Cc", "Montag, 30. November 2026 21:08", "Ursprüngliche Nachricht"),
    "fr": ("De ", "Envoyé ", "À ", "Objet ", "Cc ", "lundi 30 novembre 2026 21:08", "Message d'origine"),
    "es": ("De", "Enviado el", "Para", "Asunto", "CC", "lunes, 30 de noviembre de 2026 21:08", "Mensaje original"),
    "it": ("Da", "Inviato", "A", "Oggetto", "Cc", "lunedì 30 novembre 2026 21:08", "Messaggio originale"),
    "nl": ("Van", "Verzonden", "Aan", "Onderwerp", "CC", "maandag 30 november 2026 21:08", "Oorspronkelijk bericht"),
    "pt": (
        "De",
        "Enviada",
        "Para",
        "Assunto",
        "Cc",
        "segunda-feira, 30 de novembro de 2026 21:08",
        "Mensagem original",
    ),
}


STYLES = ("rule", "marker", "cc", "bold")


def outlook_block(moment: Moment, lang: str, style: str) -> list[str]:
    """The header block Outlook writes above the unquoted original: under a rule or its marker, with a Cc line, or
    with the labels in bold as a forwarded HTML mail's text keeps them."""
    frm, sent, to, subj, cc, date, marker = OUTLOOK[lang]
    b = "*" if style == "bold" else ""
    head = [f"{b}{frm}:{b} {WHO}", f"{b}{sent}:{b} {date}", f"{b}{to}:{b} {moment.report['To']}"]
    if style == "cc":
        head.append(f"{cc}: Bob <bob@example.net>")
    head.append(f"{b}{subj}:{b} {moment.report['Subject']}")
    rule = f"-----{marker}-----" if style == "marker" else "_" * 32
    return [rule, *head, ""]


SIGNED_ABOVE = (  # what a phone puts above the quote, the answer typed under the quote (bottom-posting)
    ["Sent from my iPhone"],
    ["Von meinem iPhone gesendet"],
    ["Get Outlook for Android<https://aka.ms/AAb9ysg>"],
    ["-- ", "Alice Martin"],
)

DISCLAIMERS = (
    [
        "Mit freundlichen Grüßen",
        "Alice Martin",
        "",
        "Diese E-Mail enthält vertrauliche Informationen. Wenn Sie nicht der richtige Adressat sind, informieren Sie",
        "bitte sofort den Absender und vernichten Sie diese Mail.",
    ],
    [
        "Cordialement,",
        "Alice",
        "",
        "Ce message et ses pièces jointes sont confidentiels. Si vous n'êtes pas le destinataire, merci de le",
        "détruire et d'en avertir l'expéditeur.",
    ],
    [
        "--",
        "Alice Martin",
        "AVISO LEGAL: Este mensaje es confidencial. Si no es usted el destinatario, le rogamos que lo elimine.",
    ],
)

#: How the order is typed: small letters, an end stop, an ellipsis, a comma.
TYPINGS: dict[str, Callable[[str], str]] = {
    "lower-stop": lambda o: o.lower() + ".",
    "lower-ellipsis": lambda o: o.lower() + "...",
    "ellipsis-char": lambda o: o + "\u2026",
    "comma": lambda o: o + ",",
    "spaced-stop": lambda o: o.lower() + " .",
    "lower-bang": lambda o: o.lower() + "!",
}

#: Labels naming the order, in English and the players' languages: read as the order ("My order: PASS" is).
LABELS: dict[str, Callable[[str], str]] = {
    "decision": lambda o: f"Decision: {o}",
    "selection": lambda o: f"My selection - {o}",
    "de-wahl": lambda o: f"Meine Wahl: {o}",
    "de-entscheidung": lambda o: f"Entscheidung: {o.lower()}",
    "fr-choix": lambda o: f"Mon choix : {o}",
    "fr-ordre": lambda o: f"Ordre : {o}",
    "es-eleccion": lambda o: f"Mi elección: {o}",
    "es-orden": lambda o: f"Orden: {o}",
    "it-scelta": lambda o: f"La mia scelta: {o}",
    "nl-keuze": lambda o: f"Mijn keuze: {o}",
    "pt-escolha": lambda o: f"Minha escolha: {o}",
}

#: A word of assent or a plea before the order: told how to write it, never read ("OK pass" may agree to another's
#: "pass"), as "Ok NO EVENT" and "please pass" are.  An acknowledgement and its mark before the order in capitals
#: ("OK: TRIBUTE Gold 4", "Sure - NO EVENT") is read since players34 (`pbem.orders.openers.ACKNOWLEDGED`): `READ`.
ASSENTS: dict[str, Callable[[str], str]] = {
    "ok-colon": lambda o: f"OK: {o}",
    "sure-dash": lambda o: f"Sure - {o}",
    "ok-lower": lambda o: f"OK: {o.lower()}",
    "bitte": lambda o: f"Bitte {o}",
    "por-favor": lambda o: f"Por favor, {o}",
    "going-with": lambda o: f"Going with {o}",
    "go-with": lambda o: f"I'll go with {o}",
    "lets-go": lambda o: f"Let's go {o}",
}
READ = frozenset({"ok-colon", "sure-dash"})

#: Courtesies after the order in the players' languages: taken off, as "please" and "danke" are.
COURTESIES: dict[str, Callable[[str], str]] = {
    "por-favor": lambda o: f"{o} por favor",
    "svp": lambda o: f"{o} s'il vous plaît",
    "per-favore": lambda o: f"{o}, per favore",
    "alsjeblieft": lambda o: f"{o} alsjeblieft",
    "vielen-dank": lambda o: f"{o} - vielen Dank!",
    "muchas-gracias": lambda o: f"{o}, muchas gracias",
    "merci-beaucoup": lambda o: f"{o} merci beaucoup",
}

#: The same order typed twice: as it was, in small letters with a stop, apart by a blank line.
TWICE: dict[str, Callable[[str], list[str]]] = {
    "same": lambda o: [o, o],
    "lower": lambda o: [o, o.lower() + "."],
    "apart": lambda o: [o, "", o],
}


def _top(moment: Moment, own: list[str], attribution: list[str] | None = None) -> list[str]:
    return [*own, "", *(attribution or [ATTRIBUTIONS["de"]]), "", *_quoted(_report(moment))]


def in_original(moment: Moment, typed: list[str], where: str, lang: str = "de") -> list[str]:
    """Outlook's answer above its header block, the report unquoted below, `typed` put inside that report: under the
    block, in its middle, under the line listing the legal orders, or at its end."""
    original = _report(moment)
    listed = next(i for i, x in enumerate(original) if x.startswith("Legal orders")) + 1
    at = {"top": 0, "middle": len(original) // 2, "listed": listed, "end": len(original)}[where]
    return ["Siehe unten.", "", *outlook_block(moment, lang, "marker"), *original[:at], *typed, *original[at:]]


def _raw(moment: Moment, head: str, body: str) -> bytes:
    msg = _message(moment)
    lines = [f"{k}: {v}" for k, v in msg.items()]
    return ("\r\n".join([*lines, "MIME-Version: 1.0", head, "", ""])).encode() + body.encode("utf-8")


def flowed(moment: Moment, own: list[str], delsp: bool) -> bytes:
    """format=flowed: each line of the player's with a space in it broken after its first word (a soft break: the
    space ends the line; DelSp=yes adds one, taken off on reading); the quote below as it is."""
    out: list[str] = []
    for line in _top(moment, ["Hi,", *own, "", "Thanks"]):
        if line in own and " " in line:
            first, rest = line.split(" ", 1)
            out += [first + (" " if delsp else "") + " ", rest]
        else:
            out.append(line)
    head = "Content-Type: text/plain; charset=utf-8; format=flowed" + ("; delsp=yes" if delsp else "")
    return _raw(moment, head + "\r\nContent-Transfer-Encoding: 8bit", "\r\n".join(out) + "\r\n")


def soft_broken(moment: Moment, own: list[str]) -> bytes:
    """Quoted-printable, a soft break in each of the player's lines right after a space between its words ("NO =" /
    "EVENT"), the space written as =20 where it ends the line."""
    parts: list[str] = []
    for line in _top(moment, ["Hi,", *own, "", "Thanks"]):
        q = "".join(c if 32 <= ord(c) < 127 and c != "=" else "".join(f"={b:02X}" for b in c.encode()) for c in line)
        if line in own and " " in q:
            at = q.index(" ")
            q = q[:at] + "=20=\r\n" + q[at + 1 :]
        parts.append(q)
    head = "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable"
    return _raw(moment, head, "\r\n".join(parts) + "\r\n")


MARKS: dict[str, Callable[[str], str]] = {  # the player's choice marked on its line of Outlook's unquoted original
    "arrow": lambda line: f"{line}   <-- this one",
    "ticked": lambda line: line.replace(line.strip(), f"[x] {line.strip()}"),
    "mine": lambda line: f"{line}  <== mine",
}


def marked_original(moment: Moment, order: str, mark: Callable[[str], str]) -> list[str]:
    """Outlook's answer "see below", the report unquoted under its header block, the line listing `order` marked."""
    original = _report(moment)
    at = next(i for i, x in enumerate(original) if x.strip() == order)
    rest = [*original[:at], mark(original[at]), *original[at + 1 :]]
    return ["Meine Wahl ist unten markiert.", "", *outlook_block(moment, "de", "rule"), *rest]


POSTSCRIPTS: dict[str, Callable[[str], list[str]]] = {  # the order after the sign-off and the name
    "ps": lambda o: ["Thanks,", "Alice", "", f"PS: {o}"],
    "p.s.": lambda o: ["Cheers,", "Alice", "", f"P.S. {o}"],
    "pps": lambda o: ["Gruß", "Alice", "", f"PS {o.lower()}"],
}

NONE = "Noch nicht sicher, melde mich morgen."  # no order: "not sure yet, I'll write tomorrow"


def cases(moment: Moment) -> list[tuple[str, bytes, list[str] | None]]:
    """(label, the reply, the orders meant) for one moment: every shape with an order, and without."""
    legal = moment.legal
    out: list[tuple[str, bytes, list[str] | None]] = []
    for n, (lang, line) in enumerate(ATTRIBUTIONS.items()):  # each wrap, and each layout, in turn
        for k, how in enumerate(("address", "words", "narrow")):
            attr, o, at = wrapped(line, how), legal[(n * 3 + k) % len(legal)], (n + k) % 4
            quote = _quoted(_report(moment))
            body, want = (
                (_top(moment, ["Hallo,", o, "", "Gruß"], attr), [o]),
                ([*attr, *quote, "", o, "", "Gruß"], [o]),
                (_top(moment, [NONE], attr), QUIET),
                ([*attr, *quote, "", NONE], QUIET),
            )[at]
            out.append((f"attribution/{lang}/{how}/{at}", _text_mail(moment, body), want))
    for n, lang in enumerate(OUTLOOK):  # two of the block's styles a language, an order under one
        for k, style in enumerate(STYLES[n % 4 :][:2] if n % 4 < 3 else (STYLES[3], STYLES[0])):
            o = legal[(n * 2 + k) % len(legal)]
            rest = [*outlook_block(moment, lang, style), *_report(moment)]
            body, want = (["Hallo,", o, "", "Gruß", "", *rest], [o]) if k == 0 else ([NONE, "", *rest], QUIET)
            out.append((f"outlook/{lang}/{style}/{k}", _text_mail(moment, body), want))
    for n, sig in enumerate(SIGNED_ABOVE):
        o = legal[(n * 3) % len(legal)]
        quote = [ATTRIBUTIONS["fr"], *_quoted(_report(moment))]
        out.append((f"signed-above/{n}", _text_mail(moment, [*sig, "", *quote, "", o]), [o]))
        out.append((f"signed-above/{n}/none", _text_mail(moment, [*sig, "", *quote, "", NONE]), QUIET))
    motto = ["-- ", "Alice Martin", "> Carpe diem", "Play hard, play fair"]  # a quoted motto is the signature's
    body = ["Hi,", legal[0], "", *motto, "", *_quoted(_report(moment))]  # no attribution: the quote alone
    out.append(("signed-motto", _text_mail(moment, body), [legal[0]]))
    for n, disclaimer in enumerate(DISCLAIMERS):
        o = legal[(n * 5) % len(legal)]
        out.append((f"disclaimer/{n}", _text_mail(moment, _top(moment, ["Hallo,", o, "", *disclaimer])), [o]))
        out.append((f"disclaimer/{n}/none", _text_mail(moment, _top(moment, [NONE, "", *disclaimer])), QUIET))
    for n, (name, typing) in enumerate(TYPINGS.items()):
        o = legal[(n * 7) % len(legal)]
        out.append((f"typed/{name}", _text_mail(moment, _top(moment, ["Hi,", typing(o), "", "Thanks"])), [o]))
    for n, (name, typing) in enumerate([*LABELS.items(), *COURTESIES.items()]):
        o = legal[(n * 5 + 3) % len(legal)]
        out.append((f"labelled/{name}", _text_mail(moment, _top(moment, ["Hi,", typing(o), "", "Thanks"])), [o]))
    for n, (name, typing) in enumerate(ASSENTS.items()):
        o = legal[(n * 3 + 2) % len(legal)]
        meant = [o] if name in READ else TOLD
        out.append((f"assent/{name}", _text_mail(moment, _top(moment, ["Hi,", typing(o), "", "Thanks"])), meant))
    for n, (name, twice) in enumerate(TWICE.items()):
        o = legal[(n * 11) % len(legal)]
        out.append((f"twice/{name}", _text_mail(moment, _top(moment, ["Hi,", *twice(o), "", "Thanks"])), [o]))
    o = legal[-1]
    tag = str(moment.report["Subject"]).split("]", 1)[0] + "]"
    body = _top(moment, ["Hi,", o, "", "Thanks"])
    out.append(("twice/subject", _text_mail(moment, body, f"Re: {tag} {o}"), [o]))
    for n, where in enumerate(("top", "middle", "listed", "end")):
        o = legal[(n * 13) % len(legal)]
        out.append((f"in-original/{where}", _text_mail(moment, in_original(moment, [o], where)), [o]))
        out.append((f"in-original/{where}/none", _text_mail(moment, in_original(moment, [NONE], where)), QUIET))
    for n, (name, mark) in enumerate(MARKS.items()):
        o = legal[(n * 3 + 1) % len(legal)]
        out.append((f"marked-original/{name}", _text_mail(moment, marked_original(moment, o, mark)), [o]))
    for n, (name, tail) in enumerate(POSTSCRIPTS.items()):
        o = legal[(n * 5 + 2) % len(legal)]
        out.append((f"postscript/{name}", _text_mail(moment, _top(moment, ["Hi,", "", *tail(o)])), [o]))
        out.append((f"postscript/{name}/none", _text_mail(moment, _top(moment, [*tail("still thinking")])), QUIET))
    spaced = [o for o in legal if " " in o] or legal
    for n, (name, build) in enumerate(
        (
            ("flowed", lambda m, own: flowed(m, own, False)),
            ("flowed-delsp", lambda m, own: flowed(m, own, True)),
            ("qp-soft", soft_broken),
        )
    ):
        o = spaced[(n * 3) % len(spaced)]
        out.append((f"soft/{name}", build(moment, [o]), [o]))
        out.append((f"soft/{name}/none", build(moment, ["not sure yet"]), QUIET))
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_each_reply_of_the_replies11_corpus_is_read_as_the_player_meant(moments: dict[str, Moment], kind: str) -> None:
    failures = misread_or_untold(moments[kind], cases(moments[kind]))
    assert not failures, f"{len(failures)} misread:\n" + "\n".join(failures)


def _plain_cases(moment: Moment) -> list[tuple[str, bytes]]:
    """This corpus's and replies10's replies whose text part is plain (not format=flowed, which the poll's parse
    undoes and a Sent folder's plain reading does not), each also as a fresh mail naming no mail of pbem's."""
    from tests.test_replies10_players import cases as cases10

    out = [(label, raw) for label, raw, _ in [*cases(moment), *cases10(moment)] if b"format=flowed" not in raw]
    return out[::2] + [(f"{label}/unnamed", _unnamed(raw)) for label, raw in out[1::6]]


def _unnamed(raw: bytes) -> bytes:
    from email import message_from_bytes, policy

    msg = message_from_bytes(raw, policy=policy.default)
    del msg["In-Reply-To"], msg["References"]
    return msg.as_bytes()


def test_verify_without_received_mail_reads_each_mail_as_the_poll_reads_one_naming_no_mail_of_pbems(
    moments: dict[str, Moment],
) -> None:
    """`pbem verify --sent` and its DKIM check given no reader (`read_plain`) read a mail's order lines as the poll
    reads a mail naming none of pbem's mails (`pbem.app.reading.mail_reader()` with no received mail, and the poll's
    own path, `own_text` then `read_text`): the same lines for every plain-text reply of replies10 and replies11, and
    for them sent as fresh mails.  On ba1be06 the fallback was `extract` alone: "Turn 3: PASS" answering Turn 5 and
    "> PASS" were read otherwise (6 of the 112 replies this test reads)."""
    from pbem.app.reading import mail_reader, own_text, read_text
    from pbem.mail.inbound.message import parse
    from pbem.trust.sent import answering, parse_sent, read_plain

    moment = moments["habsburg+later"]
    words = tuple(registry.get(moment.kind).order_words)
    verify = mail_reader()
    differ = []
    for label, raw in _plain_cases(moment):
        sent = parse_sent(raw)
        fallback = read_plain(sent.text, sent.subject, words, answering(raw))
        m = parse(raw)
        poll = read_text(own_text(m, {}, 0, words), m, {}, 0, words).orders
        if not fallback == poll == list(verify(raw, words)):
            differ.append(f"{label}: fallback {fallback}, poll {poll}, verify {list(verify(raw, words))}")
    assert not differ, f"{len(differ)} differ:\n" + "\n".join(differ)


def test_a_repeat_verify_finds_left_out_is_noted_never_called_substituted() -> None:
    """The input that read "PLAY Silver 11" / "play silver 11" once left the second line out: `set_aside` names it
    (a note), where a line the input did not apply and no repeat is still SUBSTITUTED (None)."""
    from pbem.trust.sent import set_aside

    assert set_aside(["PLAY Silver 11", "play silver 11"], ["PLAY Silver 11"], set()) == ["play silver 11"]
    assert set_aside(["PLAY Silver 11", "PLAY Gold 4"], ["PLAY Silver 11"], {"SILVER", "GOLD"}) is None
    assert set_aside(["play silver 11", "PLAY Silver 11"], ["PLAY Silver 11"], set()) is None  # not above it


def test_through_a_real_poll_an_order_typed_twice_is_applied_once_and_noted(tmp_path) -> None:
    """Habsburg's turn-1 report answered "NO EVENT" and "no event.": applied once (it was refused as two orders for the
    turn's event), the answer notes the repeat, a note `pbem verify --mail` knows."""
    from pbem.trust.acked import unnoted
    from tests.conftest import deliver, sent_mail
    from tests.test_replies3_players import _moment, _poll

    moment = _moment(tmp_path, "habsburg")
    before = len(sent_mail(moment.cfg))
    deliver(moment.cfg, _text_mail(moment, _top(moment, ["Hi,", "NO EVENT", "no event.", "", "Thanks"])))
    summary = _poll(moment.cfg, moment.clock)
    assert summary.accepted == 1, summary.line()
    ack = next(m for m in sent_mail(moment.cfg)[before:] if m["To"].addresses[0].addr_spec == moment.address)
    answer = str(ack.get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]
    note = '"no event" repeats an order above it in the same message: read once'
    assert note in " ".join(answer.split()) and unnoted(answer) == "", answer
