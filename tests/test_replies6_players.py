"""Players of all four games answering as real people do, sixth round (replies6): clients and languages not in the
earlier corpora, orders typed several to a line or with a sentence after them, and prose that starts with an order word.

The replies3 harness (`tests.test_replies3_players`: a real game per kind at its first report and at a later step,
each reply read exactly as the poll reads it, the orders read applied) answers from GroupWise, Lotus Notes, Outlook
in Spanish, Italian, Dutch, Portuguese, German without its rule and French with its space before the colon,
Thunderbird bottom-posted in French, Spanish, Italian, Dutch, Portuguese and Polish ("W dniu ... pisze:"), Apple Mail
in Japanese ("...のメッセージ:"), a Gmail reply to a forwarded report, and HTML-only replies (Gmail's nested
gmail_quote, Outlook's divRplyFwdMsg in German).

What players meant and pbem misread before (each a class, fixed, its cases generated here for every game):

* GroupWise's attribution (``>>> X <x@y> 11/30/2026 9:08 PM >>>``, the mail answered copied unquoted below it)
  was taken for a quoted line and the copy read as the player's: every order a report listed was read, the reply
  refused with a dozen lines quoted (`pbem.orders.furniture.groupwise`);
* an order with a separator and more after it ("DECLINE ALL; unless Bob offers more", "DECLINE ALL, ACCEPT Alice
  ...") was taken as the order alone, the rest unread: the word before the separator ("ALL;") did not count as the
  order's last word (`pbem.app.unread.shortened`); two orders on one line parted by ";" or "/" were refused with a
  reason about a card named "/" or offered back as "TRIBUTE Gold 7;";
* an order with a second sentence after it ("DISCARD NONE. Thanks for running the game") was refused for a card
  named "none." (`pbem.app.refusals._sentence_cut`: refused as the order with words after it, the order offered);
* a line of prose starting with an order word and a pronoun ("Accept my apologies for the delay" in Sixteen
  Thirty, where ACCEPT is an order word) refused the valid order below it (`pbem.orders.typed.prose`).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from pbem import engine as registry
from pbem.app.lines import read_again
from pbem.app.refusals import worded
from pbem.engine import slots
from pbem.orders.extract import extract
from tests.test_replies3_players import KINDS, WHO, Moment, _html, _plain, _quoted, check, meant, shared_moments


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)  # test_replies3_players' games, built once per process


def _block(labels: tuple[str, str, str, str], date: str, sent: EmailMessage) -> list[str]:
    frm, when, to, subject = labels
    return [f"{frm} {sent['From']}", f"{when} {date}", f"{to} {sent['To']}", f"{subject} {sent['Subject']}"]


Body = Callable[[EmailMessage, list[str]], "list[str] | str"]


def _top(attribution: list[str]) -> Body:
    return lambda sent, own: [*own, "", *attribution, "", *_quoted(_plain(sent))]


def _bottom(attribution: list[str]) -> Body:
    return lambda sent, own: [*attribution, *_quoted(_plain(sent)), "", *own]


def _outlook(labels: tuple[str, str, str, str], date: str, rule: str = "_" * 32) -> Body:
    return lambda sent, own: [*own, "", *([rule] if rule else []), *_block(labels, date, sent), "", *_plain(sent)]


def _groupwise(head: str) -> Body:
    return lambda sent, own: [*own, "", head, *_plain(sent)]


def _gmail_nested(sent: EmailMessage, own: list[str]) -> str:
    """Gmail's HTML-only reply to a mail that itself quoted: a gmail_quote inside a gmail_quote."""
    inner = (
        f'<div class="gmail_quote">On Sun, Bob wrote:<blockquote class="gmail_quote">{_html(sent)}</blockquote></div>'
    )
    mine = "".join(f"<div>{html.escape(x)}</div>" for x in own)
    return (
        f'<div dir="ltr">{mine}</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
        f"{html.escape('On Mon, 30 Nov 2026 at 21:08, ' + WHO + ' wrote:')}<br></div>"
        f'<blockquote class="gmail_quote">{inner}</blockquote></div>'
    )


def _outlook_html_de(sent: EmailMessage, own: list[str]) -> str:
    block = "<br>".join(
        html.escape(x)
        for x in _block(("Von:", "Gesendet:", "An:", "Betreff:"), "Montag, 30. November 2026 21:08", sent)
    )
    mine = "".join(f'<p class="MsoNormal">{html.escape(x)}</p>' for x in own)
    return (
        f'<html><body lang="DE"><div class="WordSection1">{mine}<div style="border:none;border-top:solid #E1E1E1 '
        f'1.0pt"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri"><b>{block}</b></font></div></div>'
        f"<div>{_html(sent)}</div></div></body></html>"
    )


def _forwarded_then_replied(sent: EmailMessage, own: list[str]) -> list[str]:
    """The player forwarded the report to themselves (or a friend) and answered from that mail."""
    fwd = ["---------- Forwarded message ---------", f"From: {sent['From']}", "Date: Mon, 30 Nov 2026 at 21:08"]
    fwd += [f"Subject: {sent['Subject']}", f"To: <{sent['To'].addresses[0].addr_spec}>", "", *_plain(sent)]
    return [*own, "", "On Tue, 1 Dec 2026 at 08:00, Alice <alice@example.net> wrote:", "", *_quoted(fwd)]


WHEN_PL = "W dniu 30.11.2026 o 21:08, pbem moderator pisze:"
CLIENTS: dict[str, Body] = {
    "groupwise": _groupwise(f">>> {WHO} 11/30/2026 9:08 PM >>>"),
    "groupwise-quoted-name": _groupwise('>>> "pbem moderator" <games@example.org> 30.11.2026 21:08 >>>'),
    "groupwise-no-address": _groupwise(">>> pbem moderator 30/11/2026 21:08 >>>"),
    "lotus-notes": lambda sent, own: [
        *own,
        "",
        "",
        WHO,
        "30.11.2026 21:08",
        "",
        "To",
        str(sent["To"]),
        "cc",
        "",
        "Subject",
        str(sent["Subject"]),
        "",
        *_plain(sent),
    ],
    "lotus-wrote-on": _top([f"{WHO} wrote on 30/11/2026 21:08:57:"]),
    "outlook-es": _outlook(("De:", "Enviado el:", "Para:", "Asunto:"), "lunes, 30 de noviembre de 2026 21:08"),
    "outlook-it": _outlook(("Da:", "Inviato:", "A:", "Oggetto:"), "lunedì 30 novembre 2026 21:08"),
    "outlook-nl": _outlook(("Van:", "Verzonden:", "Aan:", "Onderwerp:"), "maandag 30 november 2026 21:08"),
    "outlook-pt": _outlook(("De:", "Enviada em:", "Para:", "Assunto:"), "segunda-feira, 30 de novembro de 2026 21:08"),
    "outlook-de-no-rule": _outlook(("Von:", "Gesendet:", "An:", "Betreff:"), "Montag, 30. November 2026", rule=""),
    "outlook-fr-spaced": _outlook(("De :", "Envoyé :", "À :", "Objet :"), "lundi 30 novembre 2026 21:08"),
    "thunderbird-fr": _bottom(["Le 30/11/2026 à 21:08, pbem moderator a écrit :"]),
    "thunderbird-es": _bottom(["El 30/11/26 a las 21:08, pbem moderator escribió:"]),
    "thunderbird-it": _bottom(["Il 30/11/2026 21:08, pbem moderator ha scritto:"]),
    "thunderbird-nl": _bottom(["Op 30-11-2026 om 21:08 schreef pbem moderator:"]),
    "thunderbird-pt": _bottom(["Em 30/11/2026 21:08, pbem moderator escreveu:"]),
    "thunderbird-pl": _bottom([WHEN_PL]),
    "thunderbird-pl-top": _top([WHEN_PL]),
    "apple-ja": _top(["2026/11/30 21:08、pbem moderator <games@example.org>のメッセージ:"]),
    "apple-ja-bottom": _bottom(["2026/11/30 21:08、pbem moderator <games@example.org>のメッセージ:", ""]),
    "forwarded-then-replied": _forwarded_then_replied,
    "gmail-html-nested": _gmail_nested,
    "outlook-html-de": _outlook_html_de,
}


def reply(moment: Moment, body: list[str] | str, subject: str = "") -> bytes:
    sent = moment.report
    msg = EmailMessage()
    msg["From"] = f"{moment.player} <{moment.address}>"
    msg["To"] = str(sent["From"])
    msg["Subject"] = subject or "Re: " + str(sent["Subject"])
    msg["Message-ID"] = make_msgid(domain="players.example")
    msg["In-Reply-To"] = msg["References"] = str(sent["Message-ID"])
    if isinstance(body, str):
        msg.set_content(body, subtype="html")
    else:
        msg.set_content("\n".join(body) + "\n")
    return msg.as_bytes()


def test_the_client_corpus_names_every_client_of_the_brief() -> None:
    assert len(CLIENTS) == 23
    assert {"groupwise", "lotus-notes", "thunderbird-pl", "apple-ja", "outlook-html-de"} <= set(CLIENTS)


@pytest.mark.parametrize("kind", KINDS)
def test_each_new_client_reply_is_read_as_the_player_meant(moments: dict[str, Moment], kind: str) -> None:
    moment = moments[kind]
    failures = []
    for n, (name, body) in enumerate(CLIENTS.items()):
        want = meant(moment, n)
        own = ["Hi,", "", *want, "", "Thanks, Alice"]
        try:
            check(moment, reply(moment, body(moment.report, own)), want, name)
        except AssertionError as err:
            failures.append(str(err))
    assert not failures, "\n".join(failures)


# ----------------------------------------------------------------------------------------------- several to a line


def _pipeline(moment: Moment, text: str):
    """The message's outcome as the intake words it (`pbem.app.intake`), from its text."""
    eng = registry.get(moment.kind)
    ex = extract(text, "", eng.order_words)
    result = eng.apply(moment.state, moment.player, ex.orders)
    orders, result, _, _ = read_again(eng, moment.state, moment.player, ex.orders, result, {"problems": []}, ex)
    result = slots.one_per_slot(eng, moment.state, moment.player, orders, result)
    return worded(eng, moment.state, moment.player, result)


SEPARATORS = {
    "semicolon": "; ",
    "slash": " / ",
    "spaced-semicolon": " ; ",
    "bar": " | ",
    "and": " and ",
    "ampersand": " & ",
    "then": " then ",
    "numbered": " 2) ",
}


@pytest.mark.parametrize("kind", KINDS)
def test_two_orders_on_one_line_parted_by_a_separator_are_refused_as_such_and_offered_clean(
    moments: dict[str, Moment], kind: str
) -> None:
    """ "TRIBUTE Copper 7; TRIBUTE Gold 4", "DISCARD NONE / DISCARD Trench", "PLAY Gold 9 & PLAY Copper 10": refused
    as two orders on one line, each offered as it would be accepted (not "TRIBUTE Copper 7;" or "PLAY Gold 9 &"),
    never one of them taken and the other unread; and "put each on its own line" only when so written they would be
    taken (two plays for one turn were told so, then refused as two orders for one thing)."""
    moment = moments[kind]
    first, second = moment.legal[0], moment.legal[1]
    if first.split()[0] != second.split()[0] and first.upper().startswith(second.split()[0].upper()):
        pytest.skip("no two distinct orders")
    for name, sep in SEPARATORS.items():
        out = _pipeline(moment, f"Hi,\n{first}{sep}{second}\nThanks")
        assert not out.accepted, (name, first, second)
        refused = [r for r in out.lines if not r.ok]
        assert len(refused) == 1 and "orders on one line" in refused[0].reason, (name, refused)
        assert [x.upper() for x in refused[0].legal] == [first.upper(), second.upper()], (name, refused[0].legal)
        if "put each on its own line" in refused[0].reason:
            assert _pipeline(moment, f"{first}\n{second}").accepted, (name, refused[0].reason)


AFTER = {
    "condition": "; unless Bob objects",
    "comma-condition": ", but only if Bob agrees",
    "second-sentence": ". Thanks for running the game",
    "exclaimed-sentence": "! Sorry for the delay",
    "slash-remark": " / maybe later",
}


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_with_more_words_after_a_separator_is_refused_and_the_order_alone_offered(
    moments: dict[str, Moment], kind: str
) -> None:
    """ "DECLINE ALL; unless Bob objects" was applied as DECLINE ALL (the condition unread), "DISCARD NONE. Thanks for
    running the game" refused for a card named "none.": refused in every game, the reason quoting the order, and
    the order alone offered."""
    moment = moments[kind]
    failures = []
    for n, (name, after) in enumerate(AFTER.items()):
        order = meant(moment, n)[0]
        out = _pipeline(moment, f"{order}{after}")
        refused = [r for r in out.lines if not r.ok]
        if out.accepted or len(refused) != 1:
            failures.append(f"{kind} / {name}: {order}{after} -> accepted={out.accepted} {refused}")
        elif [x.upper() for x in refused[0].legal] != [order.upper()] or f'"{order}"' not in refused[0].reason:
            failures.append(f"{kind} / {name}: {refused[0].reason} offered {refused[0].legal}")
    assert not failures, "\n".join(failures)


# ----------------------------------------------------------------------------------------------- prose


PROSE = [
    "{Word} my apologies for the delay.",
    "{Word} my word for it, this is my last move.",
    "{Word} me a message if you are stuck.",
    "{Word} your time, there is no rush.",
    "{Word} us out of the loop for once, ha.",
]


@pytest.mark.parametrize("kind", KINDS)
def test_prose_starting_with_an_order_word_and_a_pronoun_is_set_aside_beside_a_valid_order(
    moments: dict[str, Moment], kind: str
) -> None:
    """ "Accept my apologies for the delay." refused a Sixteen Thirty player's valid order below it ("my apologies
    for the delay" is not a player): a line whose order word a pronoun follows is a sentence, set aside as chatter
    when the rest of the message is accepted, for every order word of every game."""
    moment = moments[kind]
    eng = registry.get(moment.kind)
    # DECLINE: Sixteen Thirty's engine reads DECLINE and any words after it as DECLINE ALL (left to the engine's owner)
    words = sorted({w.split()[0] for w in eng.order_words if w.isalpha()} - {"END", "NONE", "DONE", "DECLINE"})
    failures = []
    for n, word in enumerate(words):
        want = meant(moment, n)
        for k, said in enumerate(PROSE):
            prose = said.format(Word=word.capitalize())
            body = [prose, *want, "", "Thanks"] if (n + k) % 2 else ["Hi,", *want, "", prose]
            try:
                check(moment, reply(moment, body), want, prose)
            except AssertionError as err:
                failures.append(str(err))
    assert not failures, "\n".join(failures)


# ----------------------------------------------------------------------------------------------- auto-replies


AUTO_SUBJECTS = [
    "Automatic reply: {s}",
    "Out of Office: {s}",
    "AutoReply: {s}",
    "Abwesenheitsnotiz: {s}",
    "Automatische Antwort: {s}",
    "Réponse automatique : {s}",
    "Respuesta automática: {s}",
    "Risposta automatica: {s}",
    "Automatisch antwoord: {s}",
    "Resposta automática: {s}",
    "Odpowiedź automatyczna: {s}",
    "Automatiskt svar: {s}",
    "自動応答: {s}",
    "自动回复: {s}",
]
AWAY_TEXT = [
    "Thank you for your message.",
    "I am out of the office until Monday 7 December with no access to e-mail.",
    "Away until Monday.",
    "For urgent matters please call +44 20 7946 0958.",
]


def test_an_auto_reply_without_headers_is_recognised_by_its_subject_in_every_language() -> None:
    from pbem.mail.inbound.message import parse

    for subject in AUTO_SUBJECTS:
        msg = EmailMessage()
        msg["From"], msg["To"] = "Alice <alice@example.net>", "games@example.org"
        msg["Subject"] = subject.format(s="Re: [pbem g1] Your turn")
        msg.set_content("\n".join(AWAY_TEXT) + "\n")
        assert parse(msg.as_bytes()).auto, subject
    for person in ("Re: [pbem g1] out of office next week, my orders", "Re: [pbem g1] automatic reply? no, me"):
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = "Alice <alice@example.net>", "games@example.org", person
        msg.set_content("NO EVENT\n")
        assert parse(msg.as_bytes()).auto is None, person


@pytest.mark.parametrize("subject", [AUTO_SUBJECTS[0], AUTO_SUBJECTS[5]])
def test_an_unmarked_out_of_office_reply_to_a_report_changes_nothing_and_gets_no_answer(
    tmp_path: pytest.TempPathFactory, subject: str
) -> None:
    """An autoresponder that sends no Auto-Submitted header answered a report; its "Away until Monday." was read as a
    malformed AWAY and refused, the refusal answered again at each of its returns (up to the hourly cap)."""
    from tests.conftest import deliver, sent_mail
    from tests.test_replies3_players import _moment, _poll

    moment = _moment(tmp_path, "dynasties")  # type: ignore[arg-type]
    before = len(sent_mail(moment.cfg))
    deliver(moment.cfg, reply(moment, AWAY_TEXT, subject=subject.format(s="Re: " + str(moment.report["Subject"]))))
    summary = _poll(moment.cfg, moment.clock)
    assert (summary.accepted, summary.rejected) == (0, 0), summary.line()
    assert len(sent_mail(moment.cfg)) == before


# ----------------------------------------------------------------------------------------------- typed and marked


MARKS: dict[str, Callable[[str], list[str]]] = {
    "arrow": lambda q: [q + "  <-- this"],
    "ticked": lambda q: ["> [x] " + q[2:]],
    "check-mark": lambda q: ["> ✓ " + q[2:]],
    "pointer-below": lambda q: [q, "^ this one"],
}


def _typed_and_marked(moment: Moment, typed: str, marked: str, mark: str, top: bool) -> list[str]:
    """A reply with `typed` written by the player (above the quote, or below it) and `marked` marked in the quote."""
    quoted = _quoted(_plain(moment.report))
    at = next(i for i, q in enumerate(quoted) if q[2:].strip() == marked)
    body = [f"On Mon, 30 Nov 2026 at 21:08, {WHO} wrote:", *quoted[:at], *MARKS[mark](quoted[at]), *quoted[at + 1 :]]
    return ["Hi,", typed, "", *body] if top else [*body, "", typed, "Thanks"]


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_typed_and_marked_in_the_quote_too_is_one_answer(moments: dict[str, Moment], kind: str) -> None:
    """The same order typed above (or below) the quoted report and marked in it ("DECLINE ALL", then "> DECLINE ALL
    <-- this") is one answer: it was refused as two ("send only the one you mean") or as a card played twice."""
    moment = moments[kind]
    failures = []
    for n, mark in enumerate(MARKS):
        want = meant(moment, n)
        for top in (True, False):
            body = _typed_and_marked(moment, want[0].lower() if top else want[0], want[0], mark, top)
            try:
                check(moment, reply(moment, body), want, f"{mark}/{'top' if top else 'bottom'}")
            except AssertionError as err:
                failures.append(str(err))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_typed_and_another_marked_in_the_quote_are_two_orders(moments: dict[str, Moment], kind: str) -> None:
    """Two answers, one typed and another marked in the quote: two orders for one thing, as two typed lines are (the
    later stands where the rules let it replace the earlier, and the answer says so; else both are quoted in the
    refusal, or the engine takes both when they are two legal orders, as two melds)."""
    from pbem.app.lines import replaced

    moment = moments[kind]
    eng = registry.get(moment.kind)
    first, other = moment.legal[0], moment.legal[1]
    text = "\n".join(_typed_and_marked(moment, first, other, "arrow", True))
    got = list(extract(text, "", eng.order_words).orders)
    assert [g.upper() for g in got] == [first.upper(), other.upper()], got
    out = _pipeline(moment, text)
    both = eng.apply(moment.state, moment.player, [first, other])
    if out.accepted and not both.accepted:
        pytest.fail(f"{kind}: {got} accepted")
    if out.accepted and both.state == eng.apply(moment.state, moment.player, [other]).state:
        assert replaced(eng, moment.state, moment.player, got, out), kind  # the answer says the later one stands
    if not out.accepted:
        reasons = " ".join(r.reason for r in out.lines if not r.ok)
        assert first in reasons or other in reasons or any(r.line == other for r in out.lines if not r.ok), reasons


# ----------------------------------------------------------------------------------------------- what a phone shows


def test_the_answers_subject_says_whether_the_orders_were_applied(tmp_path: pytest.TempPathFactory) -> None:
    """A phone's list of mail shows the subject and a line or two: a refused message was answered "Re: [pbem g1] your
    orders" like an accepted one, its first line "Your message ... was read." the same too.  The subject now says
    it: accepted, NOT applied, or none found."""
    from tests.conftest import deliver, sent_mail
    from tests.test_replies3_players import _moment, _poll

    moment = _moment(tmp_path, "italian-wars")  # type: ignore[arg-type]
    to_them = lambda: [m for m in sent_mail(moment.cfg) if m["To"].addresses[0].addr_spec == moment.address]  # noqa: E731
    for body, verdict in ((["DISCARD Nothing at all"], "NOT applied"), (["Hi, back soon"], "none found")):
        before = len(to_them())
        deliver(moment.cfg, reply(moment, body))
        _poll(moment.cfg, moment.clock)
        answer = to_them()[before:]
        assert [str(m["Subject"]) for m in answer] == [f"Re: [pbem g1] your orders: {verdict}"], body
    deliver(moment.cfg, reply(moment, [meant(moment, 0)[0]]))
    before = len(to_them())
    _poll(moment.cfg, moment.clock)
    assert [str(m["Subject"]) for m in to_them()[before:]] == ["Re: [pbem g1] your orders: accepted"]


#: The answers to a player's message that apply nothing, and the words that say so.
NOT_APPLIED = {
    "ack": "NOT applied",
    "refused_code": "Nothing was applied",
    "refused_code_before": "Nothing was applied",
    "revision_earlier": "Not applied",
    "revision_on_file": "Not applied",
    "unreadable": "could not be read",
    "not_your_game": "Nothing was applied",
    "no_game": "Nothing was applied",
    "game_closed": "no orders can be applied",
    "held_failed": "not applied",
}
PREVIEW = 60  # characters of a mail's text a phone's list shows under its subject, about


@pytest.mark.parametrize("kind", sorted(NOT_APPLIED))
def test_an_answer_that_applied_nothing_says_so_in_its_subject_or_first_words(kind: str) -> None:
    """A phone lists a mail by its subject and a line of its text: an answer that applied nothing says so there.
    The refusal of a message without a code opened "We received a message from your address for game hh1, subject
    ..." (its verdict on the second line), a revision refused "Your message for game hh1, subject ..., sent ...,
    was not applied" (after a hundred characters)."""
    from pbem.render.templates import render_mail
    from tests.test_mail_templates import CONTEXTS, NOT_ABOUT_A_GAME, RECORD, VARIANTS, M

    context = {**CONTEXTS[kind], **M, **({} if kind in NOT_ABOUT_A_GAME else RECORD)}
    r = render_mail(VARIANTS.get(kind, kind), context)
    said = NOT_APPLIED[kind].lower()
    assert said in r.subject.lower() or said in r.text.lstrip()[:PREVIEW].lower(), (r.subject, r.text[:120])


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_word_written_as_a_label_with_an_equals_sign_is_read(moments: dict[str, Moment], kind: str) -> None:
    """ "VOTE = red", "DISCARD = NONE", as "Tribute: Gold 7" is: Habsburg refused "MELD = ..." for a card named "="."""
    moment = moments[kind]
    failures = []
    for n in range(min(4, len(moment.legal))):
        want = meant(moment, n)
        word, _, rest = want[0].partition(" ")
        if not rest or word.upper() not in registry.get(moment.kind).order_words:
            continue  # "NO EVENT": no word of it alone is an order word
        for typed in (f"{word} = {rest}", f"{word.lower()}={rest.lower()}"):
            try:
                check(moment, reply(moment, ["Hi,", typed, "Thanks"]), want, typed)
            except AssertionError as err:
                failures.append(str(err))
    assert not failures, "\n".join(failures)


# ----------------------------------------------------------------------------------------------- signatures


SIGN_OFFS = ["Best regards,", "Kind regards", "Cheers!", "Thanks,", "Mit freundlichen Grüßen", "Cordialement,"]
SIGN_OFFS += ["Saludos,", "Cordiali saluti", "Met vriendelijke groet,", "Atenciosamente,", "Pozdrawiam", "MfG"]
COMPANY = [  # a signature without "-- " whose lines start with an order word of some game
    "Play Corp Ltd.",
    "Leader, Product Team",
    "Trade Desk | Example Bank",
    "Offer valid while stocks last.",
    "Place: Berlin, Germany",
    "Vote for us at the 2026 awards!",
    "Keep calm and carry on",
    "Drop by our booth at Essen Spiel, hall 3",
    "Plan ahead: book your seat now",
    "Done is better than perfect.",
    "Decline all meetings on Fridays",
    "Take a look at our new website.",
    "Tribute to the old days",
    "Conclave of Gamers, Secretary",
    "Play hard, play fair",
]


@pytest.mark.parametrize("kind", KINDS)
def test_a_signature_under_a_sign_off_never_refuses_the_orders_above_it(moments: dict[str, Moment], kind: str) -> None:
    """A signature without "-- " under "Best regards," whose lines start with order words ("Play Corp Ltd.", "Keep
    calm and carry on", "Trade Desk | Example Bank") refused the orders above it in every game but Habsburg: below
    a sign-off, after the orders, no line is an order (a CODE line still counts)."""
    moment = moments[kind]
    failures = []
    for n, line in enumerate(COMPANY):
        want = meant(moment, n)
        sig = [SIGN_OFFS[n % len(SIGN_OFFS)], "Alice Martin", line, "+44 20 7946 0958"]
        try:
            check(moment, reply(moment, ["Hi,", "", *want, "", *sig]), want, f"{sig[0]} / {line}")
        except AssertionError as err:
            failures.append(str(err))
    assert not failures, "\n".join(failures)


def test_below_a_sign_off_a_code_is_read_and_before_any_order_a_sign_off_ends_nothing() -> None:
    words = registry.get("dynasties").order_words
    ex = extract("TRIBUTE Gold 7\nThanks,\nAlice\nCODE K7QX-2MPD\nPlay Corp Ltd.", "", words)
    assert (ex.orders, ex.code) == (["TRIBUTE Gold 7"], "K7QX-2MPD")
    assert "Play Corp Ltd." in ex.chatter
    assert extract("Thanks for the report!\nThanks,\nTRIBUTE Gold 7", "", words).orders == ["TRIBUTE Gold 7"]


# ----------------------------------------------------------------------------------------------- rewrapped quotes


def _rewrapped(lines: list[str], width: int) -> list[str]:
    """The report quoted by a client that rewraps at `width` and quotes only the first piece of each line."""
    import textwrap

    out: list[str] = []
    for line in lines:
        pieces = textwrap.wrap(line, width) or [""]
        out += ["> " + pieces[0], *pieces[1:]]
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_a_quote_rewrapped_without_its_marks_is_not_read_and_an_answer_typed_in_it_is(
    moments: dict[str, Moment], kind: str
) -> None:
    """A client that rewrapped the quoted report and quoted only each line's first piece left the rest of its lines
    unquoted between quoted ones: read as answers typed into the quote, "EVENT (add DISCARD-IF-NEEDED ...", "Negate
    effect of your cards ...", "Unrest" and "decline them all" were orders and refused the reply.  The pieces are
    the quoted line's rest (`pbem.orders.own_mail._cut_from_above`); an order typed between the quoted lines is
    still read."""
    moment = moments[kind]
    failures = []
    attribution = f"On Mon, 30 Nov 2026 at 21:08, {WHO} wrote:"
    for n, width in enumerate((36, 40, 48, 60, 72)):
        want = meant(moment, n)
        quoted = _rewrapped(_plain(moment.report), width)
        at = len(quoted) // 2 + n
        for name, body in (
            ("top", [*want, "", attribution, *quoted]),
            ("bottom", [attribution, *quoted, "", *want, "", "Thanks"]),
            ("inline", [attribution, *quoted[:at], "> x", *want, *quoted[at:]]),
        ):
            try:
                check(moment, reply(moment, body), want, f"{width}/{name}")
            except AssertionError as err:
                failures.append(str(err)[:300])
    assert not failures, "\n".join(failures)


def test_a_held_reply_signed_off_over_a_company_signature_is_applied_at_the_deadline(
    tmp_path: pytest.TempPathFactory,
) -> None:
    """The deadline reads a held mail again: its signature under "Best regards," is set aside there too, so the
    orders acknowledged as on file are the ones applied."""
    from pbem.app.games import Table
    from pbem.history.export import build as export
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import deliver
    from tests.test_replies3_players import _moment, _poll

    moment = _moment(tmp_path, "dynasties", table=Table(resolve="deadline"))  # type: ignore[arg-type]
    want = meant(moment, 2)
    deliver(moment.cfg, reply(moment, ["Hi,", *want, "", "Best regards,", "Alice", "Play Corp Ltd.", "Take care"]))
    summary = _poll(moment.cfg, moment.clock)
    assert (summary.accepted, summary.rejected) == (1, 0), summary.line()
    moment.clock.advance(hours=49)
    assert _poll(moment.cfg, moment.clock).deadlines == 1
    with session(moment.cfg.database_url) as s:
        doc = export(s, store.game_by_name(s, "g1"))
    mine = [o for o in doc["orders"] if o["player"] == moment.player]
    assert [(o["kind"], [x.upper() for x in o["lines"]]) for o in mine] == [("orders", [w.upper() for w in want])]


LISTED = [
    "1 - {o}",
    "2: {o}",
    "1.) {o}",
    "3 – {o}",
    "» {o}",
    "\u203a {o}",
    "Order 1: {o}",
    "Move 2 - {o}",
    "Answer 1: {o}",
]


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_in_a_numbered_or_labelled_list_is_read(moments: dict[str, Moment], kind: str) -> None:
    """ "1 - NO EVENT", "2: PASS", "1.) VOTE RED", "» DISCARD NONE", "Order 1: TRIBUTE Gold 7" were chatter: the
    player was told no order was found (as "1) NO EVENT" and "My order: NO EVENT" were read already)."""
    moment = moments[kind]
    failures = []
    for n, form in enumerate(LISTED):
        want = meant(moment, n)
        try:
            check(moment, reply(moment, ["Hi,", form.format(o=want[0]), "Thanks"]), want, form)
        except AssertionError as err:
            failures.append(str(err)[:300])
    assert not failures, "\n".join(failures)


def test_a_name_with_initials_is_no_sentence_end() -> None:
    """ "J. R. Smith" holds no sentence end: an order naming such a player is never cut at "J."."""
    from pbem.app.refusals import _SENTENCE_END

    assert not _SENTENCE_END.search("ACCEPT J. R. Smith GIVING Spain 1")
    ends = [m.end() - 1 for m in _SENTENCE_END.finditer("TRIBUTE Gold 7. Sorry. PASS! Ok")]
    assert ends == [14, 21, 27]
