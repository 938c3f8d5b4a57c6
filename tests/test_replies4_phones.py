"""Players of all four games answering from phones: what the player meant is what pbem reads, or a clear refusal
(replies4).

The replies3 harness (`tests.test_replies3_players`: a real game per kind, its first report and a later step's,
read exactly as the poll reads a reply) answers here as people do on a phone: the Gmail app, iOS Mail, Outlook
mobile, K-9 Mail and FairEmail, an Apple Watch's short reply, voice dictation ("Vote red period", "No event
question mark"), autocorrect ("No event.", "Vote Red."), smart dashes, non-breaking spaces, top posting with the
whole report quoted and bottom posting, and a reply to an older mail of the game than the newest.

What players meant and pbem misread before (each a class, fixed, its cases generated here for every game):

* a courtesy, smiley, tick or dictated punctuation after the order ("VOTE RED - thanks", "NO EVENT :)", "PASS [x]",
  "Vote red period") made it no order, refused with a reason about a card named "-" or ":)";
* a line of the quoted report the player marked as their choice ("> NO EVENT <-- this", "> [x] VOTE RED",
  "> * VOTE RED (my pick)", "> NO EVENT x") was dropped with the quote: the answer said no orders were found;
* an order asked as a question ("NO EVENT?") was set aside silently as chatter in Habsburg, refused for a card
  named "emperor?" elsewhere, and taken at its word in Dynasties ("TRIBUTE Gold 7?"): now it is refused in every
  game, the reason says a question is not read as an order, and what would be accepted is the order itself.
"""

from __future__ import annotations

import html
import random
import re
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest

from pbem import engine as registry
from pbem.app.lines import read_again
from pbem.app.refusals import worded
from pbem.engine import slots
from pbem.orders.extract import extract, own_line
from pbem.orders.typed import chosen, cleaned, points_up
from tests.test_replies3_players import (
    ATTRIBUTIONS,
    KINDS,
    Moment,
    _html,
    _moment,
    _plain,
    _quoted,
    check,
    meant,
    shared_moments,
)

WATCH = "Sent from my Apple Watch"
K9 = "Sent from my Android device with K-9 Mail. Please excuse my brevity."


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)  # test_replies3_players' games, built once per process


# ----------------------------------------------------------------------------------------------- typing on a phone


def _first_capital(o: str) -> str:
    return o[:1].upper() + o[1:].lower()


SAID = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
]

#: An order as phones type it: autocorrect, dictation, courtesies, smileys and ticks after it.
PHONE_TYPINGS: dict[str, Callable[[str], str]] = {
    "autocorrect": lambda o: _first_capital(o) + ".",  # "No event."
    "title-stop": lambda o: o.title() + ".",  # "Vote Red."
    "dictated-period": lambda o: _first_capital(o) + " period",  # "Vote red period"
    "dictated-full-stop": lambda o: o.lower() + " full stop",
    "dictated-exclamation": lambda o: _first_capital(o) + " exclamation mark",
    "dash-thanks": lambda o: o + " - thanks",
    "en-dash-thanks": lambda o: o + " \u2013 thanks!",  # iOS smart punctuation
    "em-dash-cheers": lambda o: o + " \u2014 cheers",
    "comma-cheers": lambda o: o + ", cheers",
    "smiley": lambda o: o + " :)",
    "nose-smiley": lambda o: o + " :-)",
    "wink": lambda o: o + " ;)",
    "grin": lambda o: o.lower() + " :D",
    "heart": lambda o: o + " <3",
    "please-smiley": lambda o: o + " please :)",
    "thanks-smiley": lambda o: o + ". Thanks :)",
    "thx": lambda o: o + " thx",
    "tnx": lambda o: o + ", tnx!",
    "kiss": lambda o: o + " x",
    "kisses": lambda o: o + " xx",
    "tick-after": lambda o: o + " [x]",
    "tick-before": lambda o: "x " + o,
    "nbsp-thanks": lambda o: o.replace(" ", "\xa0") + "\xa0- thanks",
    "dash-thank-you": lambda o: o + " - thank you!",
    "many-thanks": lambda o: o + ". Many thanks",
    "thanks-very-much": lambda o: o + ", thank you very much!",
    "xd": lambda o: o + " xD",
    "thumbs": lambda o: o + " \U0001f44d",
    "dictated-numbers": lambda o: _first_capital(re.sub(r"(?<= )\d{1,2}\b", lambda m: SAID[int(m.group(0))], o)),
    "non-breaking-hyphen": lambda o: o.replace("-", "\u2011"),  # copied from a web page
    "narrow-spaces": lambda o: o.replace(" ", "\u202f") + "\u202f!",  # iOS French keyboard
}

#: Where the order goes in a reply written on a phone, and what the client adds.
PHONE_CLIENTS = (
    "gmail-app",
    "gmail-app-bottom",
    "ios-mail",
    "ios-mail-bottom",
    "outlook-mobile",
    "k9",
    "k9-dash",
    "fairemail",
    "watch",
)


def phone_body(client: str, sent: EmailMessage, own: list[str]) -> list[str]:
    """The text of a reply typed on a phone to `sent` (the whole report quoted, as phones do)."""
    original = _plain(sent)
    if client == "gmail-app":
        return [*own, "", ATTRIBUTIONS["gmail-android"][0], "", *_quoted(original)]
    if client == "gmail-app-bottom":
        return [ATTRIBUTIONS["gmail-android"][0], *_quoted(original), "", *own]
    if client == "ios-mail":
        return [*own, "", "Sent from my iPhone", "", *_quoted([ATTRIBUTIONS["apple"][0], "", *original])]
    if client == "ios-mail-bottom":
        return [ATTRIBUTIONS["apple"][0], "", *_quoted(original), "", *own, "", "Sent from my iPhone"]
    if client == "outlook-mobile":
        block = [f"From: {sent['From']}", "Sent: Monday, November 30, 2026 9:08:00 PM", f"To: {sent['To']}"]
        block.append(f"Subject: {sent['Subject']}")
        return [*own, "", "Get Outlook for iOS<https://aka.ms/o0ukef>", "", "_" * 32, *block, "", *original]
    if client == "k9":
        when = "On November 30, 2026 9:08:00 PM UTC, pbem moderator <games@example.org> wrote:"
        return [*own, "", K9, "", when, *_quoted(original)]
    if client == "k9-dash":
        when = "On November 30, 2026 9:08:00 PM UTC, pbem moderator <games@example.org> wrote:"
        return [*own, "-- ", K9, "", when, *_quoted(original)]
    if client == "fairemail":
        return [*own, "", "30 Nov 2026 21:08:00 pbem moderator <games@example.org>:", *_quoted(original)]
    if client == "watch":
        return [*own, "", WATCH]
    raise ValueError(client)


def reply(moment: Moment, body: list[str], sent: EmailMessage | None = None) -> bytes:
    sent = sent or moment.report
    msg = EmailMessage()
    msg["From"] = f"{moment.player} <{moment.address}>"
    msg["To"] = str(sent["From"])
    msg["Subject"] = "Re: " + str(sent["Subject"])
    msg["Message-ID"] = make_msgid(domain="players.example")
    msg["In-Reply-To"] = msg["References"] = str(sent["Message-ID"])
    msg.set_content("\n".join(body) + "\n")
    return msg.as_bytes()


@pytest.mark.parametrize("kind", KINDS)
def test_every_order_typed_on_a_phone_is_read_as_meant_from_every_phone_client(
    moments: dict[str, Moment], kind: str
) -> None:
    """Every phone typing, each with another legal order and another phone client: the state pbem reaches is the
    one the order gives (`test_typings_in_layers_are_read_as_meant` tries each again inside another typing)."""
    moment = moments[kind]
    failures = []
    for n, typing in enumerate(PHONE_TYPINGS):
        order = moment.legal[(n * 7) % len(moment.legal)]
        client = PHONE_CLIENTS[n % len(PHONE_CLIENTS)]
        own = ["Hi," if n % 2 else "", PHONE_TYPINGS[typing](order)]
        try:
            check(moment, reply(moment, phone_body(client, moment.report, own)), [order], f"{client}/{typing}")
        except AssertionError as err:
            failures.append(str(err))
    assert not failures, f"{len(failures)} misread:\n" + "\n".join(failures[:20])


@pytest.mark.parametrize("kind", KINDS)
def test_typings_in_layers_are_read_as_meant(moments: dict[str, Moment], kind: str) -> None:
    """A phone typing inside or around a typing of the replies3 corpus ("“VOTE RED - thanks”", "NO EVENT xx;",
    "👉 PASS 👍🏽. Thanks :)", "x 👉 DISCARD NONE"): each layer hid the next, and 67 of 600 such replies were
    misread.  Seeded; every phone typing at least once."""
    from tests.test_replies3_players import TYPINGS

    moment = moments[kind]
    rng = random.Random(f"replies4-layers:{kind}")
    failures = []
    for n, phone in enumerate([*PHONE_TYPINGS, *PHONE_TYPINGS][:40]):
        typing, order = rng.choice(list(TYPINGS)), moment.legal[rng.randrange(len(moment.legal))]
        typed = TYPINGS[typing](PHONE_TYPINGS[phone](order)) if n % 2 else PHONE_TYPINGS[phone](TYPINGS[typing](order))
        client = PHONE_CLIENTS[n % len(PHONE_CLIENTS)]
        try:
            check(moment, reply(moment, phone_body(client, moment.report, ["Hi,", typed])), [order], f"{typed!r}")
        except AssertionError as err:
            failures.append(str(err))
    assert not failures, "\n".join(failures[:20])


VOICED = ("dictated-numbers", "non-breaking-hyphen", "narrow-spaces", "dictated-period", "title-stop")


@pytest.mark.parametrize("kind", KINDS)
def test_every_legal_line_dictated_or_pasted_reads_as_itself(moments: dict[str, Moment], kind: str) -> None:
    """Every legal line of the step (its numbers dictated as words, its hyphens non-breaking, its spaces narrow, a
    dictated "period", title case) is read as the line itself: the engine reaches the same state."""
    moment = moments[kind]
    eng = registry.get(moment.kind)
    failures = []
    for order in moment.legal[:60]:
        want = eng.apply(moment.state, moment.player, [order]).state
        for typing in VOICED:
            typed = PHONE_TYPINGS[typing](order)
            got = extract(f"Hi,\n{typed}", "", eng.order_words).orders
            out = eng.apply(moment.state, moment.player, got)
            if not (out.accepted and out.state == want):
                failures.append(f"{typing}: {typed!r} read as {got} {[r.reason for r in out.lines if not r.ok]}")
    assert not failures, "\n".join(failures[:20])


# ----------------------------------------------------------------------------------------------- a quoted line marked


#: Marks a player puts on the line of the quoted report they choose (the line as the report prints it: `q`).
MARKS: dict[str, Callable[[str], str]] = {
    "arrow-this": lambda q: f"{q} <-- this",
    "double-arrow": lambda q: f"{q}   <== this one",
    "chevrons": lambda q: f"{q} <<",
    "unicode-arrow": lambda q: f"{q} \u2190 my choice",
    "star-pick": lambda q: f"* {q.strip()} (my pick)",
    "ticked-box": lambda q: f"[x] {q.strip()}",
    "ticked-box-after": lambda q: f"{q} [X]",
    "x-after": lambda q: f"{q}   x",
    "x-before": lambda q: f"x {q.strip()}",
    "check-mark": lambda q: f"\u2713 {q.strip()}",
    "pointing-hand": lambda q: f"{q} \U0001f448",
    "this-one": lambda q: f"{q} (this one)",
}


#: A mark typed on its own line under the quoted line chosen (Gmail's "respond inline", a phone's uneditable quote).
BELOW = ("<-- this", "^ this one", "x", "This one", "\u261d\ufe0f this", "[x]", "my pick", "\u2190")


def _listed(moment: Moment) -> list[tuple[int, str]]:
    """The report's lines that list a legal order as it is (an index of `_plain(report)`, the order)."""
    legal = {o.upper(): o for o in moment.legal}
    out = []
    for i, line in enumerate(_plain(moment.report)):
        order = legal.get((cleaned(line) or line).strip().upper())
        if order is not None:
            out.append((i, order))
    return out


def marked_html_reply(moment: Moment, client: str, order: str) -> bytes | None:
    """An HTML-only reply (Gmail's, Apple's) whose quoted report has "<-- this" after the element listing `order`."""
    body, listed = _html(moment.report), html.escape(order) + "<"
    if listed not in body:
        return None
    marked = body.replace(listed, html.escape(order) + " &lt;-- this<", 1)
    if client == "gmail-html":
        attr = f'<div dir="ltr" class="gmail_attr">{html.escape(ATTRIBUTIONS["gmail-en"][0])}<br></div>'
        text = f'<div dir="ltr">Marked below</div><br><div class="gmail_quote">{attr}<blockquote class="gmail_quote">'
        text += f"{marked}</blockquote></div>"
    else:
        text = (
            f'<html><body dir="auto"><div>Marked below</div><blockquote type="cite">{marked}</blockquote></body></html>'
        )
    msg = EmailMessage()
    msg["From"], msg["To"] = f"{moment.player} <{moment.address}>", str(moment.report["From"])
    msg["Subject"], msg["Message-ID"] = "Re: " + str(moment.report["Subject"]), make_msgid(domain="players.example")
    msg["In-Reply-To"] = msg["References"] = str(moment.report["Message-ID"])
    msg.set_content(text, subtype="html")
    return msg.as_bytes()


def marked_reply(moment: Moment, client: str, mark: str, at: int) -> bytes:
    original = _plain(moment.report)
    quoted = _quoted(original)
    if mark in MARKS:
        quoted[at] = "> " + MARKS[mark](original[at])
    else:  # a mark of its own under the line, a blank line between or not
        quoted[at + 1 : at + 1] = [mark] if at % 2 else ["", mark]
    attribution = ATTRIBUTIONS["gmail-android" if "gmail" in client else "apple"][0]
    if client.endswith("bottom"):
        body = [attribution, "", *quoted, "", "Thanks"]
    elif client == "ios-in-quote":  # iOS: the attribution inside the quote
        body = ["See my pick below", "", "Sent from my iPhone", "", f"> {attribution}", ">", *quoted]
    else:
        body = ["Marked my choice below.", "", attribution, "", *quoted]
    return reply(moment, body)


@pytest.mark.parametrize("kind", KINDS)
def test_a_line_of_the_quoted_report_marked_as_the_choice_is_read(moments: dict[str, Moment], kind: str) -> None:
    """ "> NO EVENT <-- this", "> [x] VOTE RED", "> * VOTE RED (my pick)": the player's mark on the line of the quoted
    report they choose, on each line that lists an order, each mark, top or bottom posted."""
    moment = moments[kind]
    listed = _listed(moment)
    assert listed, (kind, moment.legal[:3])
    failures = []
    clients = ("gmail-top", "gmail-bottom", "ios-in-quote")
    for n, (mark, (at, order)) in enumerate(
        (m, listed[k % len(listed)]) for k, m in enumerate([*MARKS, *MARKS][: max(len(MARKS), 2 * len(listed))])
    ):
        raw = marked_reply(moment, clients[n % len(clients)], mark, at)
        try:
            check(moment, raw, [order], f"{clients[n % len(clients)]}/{mark}")
        except AssertionError as err:
            failures.append(str(err))
    for n, mark in enumerate(BELOW):
        at, order = listed[n % len(listed)]
        raw = marked_reply(moment, clients[n % len(clients)], mark, at)
        try:
            check(moment, raw, [order], f"{clients[n % len(clients)]}/below {mark!r}")
        except AssertionError as err:
            failures.append(str(err))
    in_html = 0
    for client in ("gmail-html", "apple-html"):
        for order in {o for _, o in listed}:
            raw_html = marked_html_reply(moment, client, order)
            in_html += raw_html is not None
            try:
                if raw_html is not None:
                    check(moment, raw_html, [order], f"{client}/arrow")
            except AssertionError as err:
                failures.append(str(err))
    assert in_html, "no order line found in the report's HTML to mark"
    assert not failures, "\n".join(failures[:20])


def test_no_line_of_any_mail_pbem_writes_reads_as_a_marked_choice() -> None:
    """A quoted line is read only when the player marked it: no line pbem writes (every outgoing golden mail, every
    playthrough's mails) carries a mark, so a quoted report is never read back as orders."""
    import gzip

    root = Path(__file__).parent / "golden"
    words = tuple(sorted({w for kind in registry.available() for w in registry.get(kind).order_words}))
    own = own_line(words)
    seen = 0
    for path in sorted((root / "mail" / "outgoing").glob("*.txt")) + sorted((root / "playthrough").rglob("*.txt*")):
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        above = ""
        for line in data.decode("utf-8", "replace").splitlines():
            seen += 1
            assert not (chosen(line) and own(line)), (path.name, line)
            assert not (points_up(line) and own(above)), (path.name, above, line)  # "<-- this" under an order
            above = line if line.strip() else above
    assert seen > 10_000


def test_yes_under_a_quoted_order_agrees_and_does_not_order() -> None:
    """ "Yes" under another player's press quoted in a relay ("> VOTE RED with me", "> VOTE RED") agrees with them: it
    is not the writer's vote.  Only a pointer or a tick under a quoted line chooses it."""
    words = registry.get("sixteen-thirty").order_words
    for text in ("On Mon wrote:\n> Bob: VOTE RED\n> VOTE RED\nYes\n", "On Mon wrote:\n> VOTE RED\n\nyes!\n"):
        assert extract(text, "", words).orders == [], text
    assert extract("On Mon wrote:\n> VOTE RED\n^ this\n", "", words).orders == ["VOTE RED"]


def test_a_mark_on_a_line_quoted_twice_is_an_older_mails_and_not_read() -> None:
    """Only the mail answered (quoted once) is the player's to mark: "> > NO EVENT <-- this" is an earlier mail's."""
    words = registry.get("habsburg").order_words
    text = "Hi\n\nOn Mon wrote:\n> Earlier:\n> > NO EVENT <-- this\n> Deadline soon"
    assert extract(text, "", words).orders == []
    assert extract(text.replace("> > ", "> "), "", words).orders == ["NO EVENT"]


# ----------------------------------------------------------------------------------------------- a question


def _pipeline(moment: Moment, text: str):
    """The message's outcome as the intake words it (`pbem.app.intake._orders`), from its text."""
    eng = registry.get(moment.kind)
    ex = extract(text, "", eng.order_words)
    result = eng.apply(moment.state, moment.player, ex.orders)
    orders, result, _, _ = read_again(eng, moment.state, moment.player, ex.orders, result, {"problems": []}, ex)
    result = slots.one_per_slot(eng, moment.state, moment.player, orders, result)
    return ex, worded(eng, moment.state, moment.player, result)


QUESTIONS: dict[str, Callable[[str], str]] = {
    "plain": lambda o: o + "?",
    "lower": lambda o: o.lower() + "?",
    "french-space": lambda o: o + " ?",
    "doubt": lambda o: o + "?!",
    "dictated": lambda o: _first_capital(o) + " question mark",
    "full-width": lambda o: o + "\uff1f",
    "remark-asks": lambda o: o + " (right?)",
    "remark-asks-thanks": lambda o: o + " (or is it too late?) - thanks",
}


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_asked_as_a_question_is_refused_clearly_with_the_order_to_send(
    moments: dict[str, Moment], kind: str
) -> None:
    """ "NO EVENT?": never applied, never set aside unseen; refused with its line quoted, the reason (a question is
    not read as an order), and what would be accepted: the order itself.  With another order before it or a
    closing after it, the whole message is refused (a turn is never applied half)."""
    moment = moments[kind]
    failures = []
    for n, order in enumerate(moment.legal[:10]):
        for name, ask in QUESTIONS.items():
            line = ask(order)
            text = ["Hi,", line, "Thanks"] if n % 2 else [line, "", "Take care,", "Alice"]
            ex, result = _pipeline(moment, "\n".join(text))
            refused = [r for r in result.lines if not r.ok]
            why = refused[0].reason if refused else ""
            if result.accepted or len(refused) != 1 or "question" not in why or list(refused[0].legal) != [order]:
                failures.append(
                    f"{kind} {name} {line!r}: {ex.orders} -> {[(r.line, r.reason, r.legal) for r in refused]}"
                )
    assert not failures, "\n".join(failures[:20])


def test_a_question_that_is_no_order_is_still_a_remark(moments: dict[str, Moment]) -> None:
    """ "Play again next time?" after the orders (PLAY is a Dynasties order word) is set aside, as before."""
    moment = moments["dynasties"]
    want = meant(moment, 1)
    _, result = _pipeline(moment, "\n".join(["Hi,", *want, "", "Play again next time?"]))
    assert result.accepted, [(r.line, r.reason) for r in result.lines if not r.ok]


# ----------------------------------------------------------------------------------------------- a sentence

#: How people start a sentence that says an order, as phones type it (a phone's apostrophe, autocorrect's "Ill").
LEADS = (
    "I",
    "I'll",
    "I\u2019ll",
    "I will",
    "I\u2019d like to",
    "I would like to",
    "Ill",
    "I am going to",
    "Please",
    "ok,",
    "Hi,",  # an Apple Watch's one line: "Hi, vote red"
    "Hey",
    "Yes",
)
#: Sentences that hold an order but mean something else: never read, never told to be sent as they are.
REMARKS = (
    "{lead} {order} next time?",
    "{lead} {order} if Bob does",
    "{lead} {order} later, not now",
    "{lead} {order}?",
)


def _told(moment: Moment, text: str) -> tuple[list[str], list[str]]:
    """(orders read, notes the answer gives) for `text`, as the intake tells them (`pbem.app.lines.seeming_told`)."""
    from pbem.app.lines import seeming_told

    eng = registry.get(moment.kind)
    ex = seeming_told(eng, moment.state, moment.player, extract(text, "", eng.order_words))
    return ex.orders, ex.problems


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_said_in_a_sentence_is_not_read_and_the_answer_shows_exactly_the_line_to_send(
    moments: dict[str, Moment], kind: str
) -> None:
    """ "I vote red", "I will discard none", "I am going to pass": not read (a sentence is the writer's, and the
    deadline's and `pbem verify`'s readings have no game state to tell one from a remark), and the answer shows the
    legal line to send as the report prints it.  A sentence that holds an order but means something else ("I vote
    red next time?", "I'll discard none if Bob does") is never told to be sent: it is only listed as not read."""
    moment = moments[kind]
    eng = registry.get(moment.kind)
    failures = []
    for n, order in enumerate((moment.legal * len(LEADS))[: len(LEADS)]):
        lead = LEADS[n % len(LEADS)]
        orders, notes = _told(moment, f"Hi,\n{lead} {order.lower()}.\nThanks")
        if orders or not any(p.endswith(f"write it as: {order}") for p in notes):
            failures.append(f"{lead} {order.lower()}: read {orders}, told {notes}")
        for remark in REMARKS:
            line = remark.format(lead=lead, order=order.lower())
            if eng.apply(moment.state, moment.player, [line.split(" ", 1)[1]]).accepted:
                continue  # not a remark in this game
            orders, notes = _told(moment, f"Hi,\n{line}\nThanks")
            if orders or any("write it as" in p for p in notes):
                failures.append(f"{line}: read {orders}, told {notes}")
    for remark in ("I pass on my thanks to all of you", "I take it you are away", "Ill be away next week"):
        orders, notes = _told(moment, remark)
        if orders or notes:
            failures.append(f"{remark}: read {orders}, told {notes}")
    assert not failures, "\n".join(failures[:20])


def test_through_a_real_poll_a_question_is_refused_clearly_and_a_sentence_is_told_the_line_to_send(
    tmp_path: Path,
) -> None:
    """The player's answers as mailed: "NO EVENT?" refuses the message (nothing applied) with the line quoted, the
    reason and the order to send; "I'll <order>" alone is answered with no orders found and the line to send."""
    from tests.conftest import deliver, sent_mail
    from tests.test_replies3_players import _poll

    moment = _moment(tmp_path, "habsburg")
    order = meant(moment, 0)[0]
    for text, outcome in ((f"Hi,\n{order}?\nThanks", "question"), (f"I\u2019ll {order.lower()}", "sentence")):
        deliver(moment.cfg, reply(moment, phone_body("ios-mail", moment.report, text.split("\n"))))
        summary = _poll(moment.cfg, moment.clock)
        assert (summary.accepted, summary.rejected) == (0, 1), summary.line()
        answer = [m for m in sent_mail(moment.cfg) if m["To"].addresses[0].addr_spec == moment.address][-1]
        body = " ".join(_plain(answer))
        if outcome == "question":
            assert f"{order}?" in body and "a question is not read as an order" in body, body
        else:
            assert f"write it as: {order}" in body, body
        assert order in body


# ----------------------------------------------------------------------------------------------- not the report


def _to_player(moment: Moment) -> list[EmailMessage]:
    from tests.conftest import sent_mail

    return [m for m in sent_mail(moment.cfg) if m["To"].addresses[0].addr_spec == moment.address]


def _state(moment: Moment) -> dict:
    from pbem.record import store
    from pbem.record.db import session

    with session(moment.cfg.database_url) as s:
        return store.load(s, store.game_by_name(s, "g1")).state


@pytest.mark.parametrize("kind", registry.available())
def test_a_phone_reply_to_a_reminder_or_to_a_refusal_is_read_as_meant(tmp_path: Path, kind: str) -> None:
    """Players answer the newest mail in their inbox, which is often not the report: a reminder, or the refusal of
    their last message.  From a phone (the whole mail quoted, the order typed with a courtesy after it), each is
    read as the order meant, through real polls."""
    from tests.conftest import deliver
    from tests.test_replies3_players import _poll

    moment = _moment(tmp_path, kind)
    eng = registry.get(kind)
    moment.clock.advance(hours=25)  # past the first reminder (24 h before the 48 h deadline)
    _poll(moment.cfg, moment.clock)
    reminder = _to_player(moment)[-1]
    assert reminder["Message-ID"] != moment.report["Message-ID"] and "remind" in str(reminder["Subject"]).lower()
    order = meant(moment, 1)[0]
    deliver(moment.cfg, reply(moment, phone_body("gmail-app", reminder, [f"{order}?"]), reminder))  # asked: refused
    summary = _poll(moment.cfg, moment.clock)
    assert (summary.accepted, summary.rejected) == (0, 1), summary.line()
    refusal = _to_player(moment)[-1]
    assert _state(moment) == moment.state
    own = ["Sorry!", PHONE_TYPINGS["dash-thanks"](order)]
    deliver(moment.cfg, reply(moment, phone_body("ios-mail", refusal, own), refusal))
    summary = _poll(moment.cfg, moment.clock)
    assert (summary.accepted, summary.rejected) == (1, 0), summary.line()
    assert _state(moment) == eng.apply(moment.state, moment.player, [order]).state


@pytest.mark.parametrize("kind", registry.available())
def test_a_phone_reply_to_an_older_report_is_read_as_meant(moments: dict[str, Moment], kind: str) -> None:
    """A later step answered from the first report of the game (the newest mail lost in a thread): the old
    report's copy is never read, the order typed or marked is."""
    from dataclasses import replace

    moment = moments[f"{kind}+later"]
    older = replace(moment, report=_to_player(moment)[0])
    assert older.report["Message-ID"] != moment.report["Message-ID"]
    failures = []
    for n, client in enumerate(PHONE_CLIENTS):
        order = moment.legal[(n * 5) % len(moment.legal)]
        own = [PHONE_TYPINGS[list(PHONE_TYPINGS)[n * 3 % len(PHONE_TYPINGS)]](order)]
        try:
            check(older, reply(older, phone_body(client, older.report, own)), [order], client)
        except AssertionError as err:
            failures.append(str(err))
    assert not failures, "\n".join(failures)


# ----------------------------------------------------------------------------------------------- press as typed

PRESS_TEXTS = (
    "good game, thanks :)",
    "*really* sorry!",
    "deal? x",
    "see you at three",
    "shall we? period",
    "no event from me this time.",
    "VOTE RED - please",
    "it's on (my word)",
    "\u2192 Bohemia is yours",
)


@pytest.mark.parametrize("kind", registry.available())
def test_a_one_line_press_is_relayed_as_typed_not_as_an_order_is_read(kind: str) -> None:
    """ "PRESS TO Bob: *really* sorry!" was relayed as "really sorry" (the order reading took off its emphasis, its
    "!", a courtesy, a smiley): what a player writes to others is theirs, relayed as written, in any list form."""
    words = registry.get(kind).order_words
    failures = []
    for n, said in enumerate(PRESS_TEXTS):
        for head in ("PRESS TO Bob: ", "- PRESS TO ALL: ", "**PRESS TO Bob:** ", "press to bob, carol: "):
            typed = head + said
            got = extract(f"Hi,\n{typed}\nThanks" if n % 2 else typed, "", words).press
            if [p.body for p in got] != [[said]]:
                failures.append(f"{typed!r}: {[p.body for p in got]}")
    assert not failures, "\n".join(failures)


# ----------------------------------------------------------------------------------------------- a condition after it

CONDITIONS = (
    " if Bob does",
    " next time",
    " later",
    " unless Bob calls",
    " mate",
    " (unless Bob votes first)",
    " (only if Carol agrees)",
    " - but not yet",
    " if Bob does?",
)


@pytest.mark.parametrize("kind", registry.available())
def test_an_order_with_a_condition_after_it_is_never_applied_without_it(kind: str) -> None:
    """ "NO TRADE if Bob does", "DECLINE ALL later", "PLAY Vote next time": Sixteen Thirty's engine took the order
    and left the rest unread, so a condition was applied as no condition.  Over a bot game of each kind, every
    legal line with words after it is refused, as the intake words it, the order alone offered."""
    from pbem.engine.bots import choose
    from pbem.engine.rng import Rng, init_state

    eng = registry.get(kind)
    players = ["Alice", "Bob", "Carol"][: 2 if kind == "italian-wars" else 3]
    state, _ = eng.setup(players, f"conditions-{kind}", {})
    rng = Rng(init_state(f"conditions-{kind}"))
    failures, seen = [], 0
    for step in range(80):
        reqs = [r for r in eng.requests(state) if not r.answered]
        if not reqs or eng.result(state):
            break
        for r in reqs:
            for k, line in enumerate(r.legal[:6]):
                said = line + CONDITIONS[(step + k) % len(CONDITIONS)]
                read = extract(said, "", eng.order_words).orders
                out = eng.apply(state, r.player, read)
                orders, out, _, _ = read_again(eng, state, r.player, read, out, {"problems": []}, [])
                out = worded(eng, state, r.player, slots.one_per_slot(eng, state, r.player, orders, out))
                seen += 1
                if out.accepted and read:
                    failures.append(f"{said!r} accepted as {[x.understood for x in out.lines]}")
                refused = [x for x in out.lines if not x.ok]
                if refused and (not refused[0].reason or refused[0].reason.endswith("; ")):
                    failures.append(f"{said!r} refused without a reason: {refused[0]}")
        req = reqs[rng.below(len(reqs))]
        state = eng.apply(state, req.player, choose(req, rng)).state
    assert seen > 100
    assert not failures, f"{len(failures)} accepted:\n" + "\n".join(failures[:20])


def test_a_player_named_like_a_courtesy_is_still_named() -> None:
    """Texting's "ty" and "ta" are not taken off the end of an order as courtesies: "Ty" and "Ta" are names
    ("EVENT CLAIM Emperor TARGET Ty")."""
    for name in ("Ty", "Ta", "Xi", "Cheng"):
        line = f"EVENT CLAIM Emperor TARGET {name}"
        assert cleaned(line) == line, name


def test_a_salt_is_the_rest_of_its_line_as_typed() -> None:
    """ "SALT one two three" was read "one two 3" and "SALT lucky :)" lost its smiley on this branch: what is taken
    off or read around an order is not done to a salt, which is any words the player likes (README, "Joining")."""
    words = ("JOIN", "SALT")
    for salt in ("one two three", "lucky :) thanks", "*bold* seven!", "what? x", "My salt.", "full stop period"):
        for line in (f"SALT {salt}", f"- SALT {salt}", f"JOIN SALT {salt}"):
            got = extract(f"CODE K7QX-2MPD\nJOIN\n{line}", "", words).orders
            assert got[-1] == line.lstrip("- "), (line, got)


TAIL_WORDS = (
    *("please", "pls", "plz", "thanks", "thanks a lot", "thanks very much", "thank you so much", "thank u"),
    *("thanks again", "many thanks", "much appreciated", "thx", "tnx", "cheers", "merci", "danke", "bitte"),
    *("gracias", "grazie", "obrigado", "obrigada", "dank je", "dzięki", "tack", "period", "full stop"),
    *("exclamation mark", "exclamation point", "x", "xx", "xxx", "[x]", "(x)", "[✓]", ":)", ":-)", ";)", ":D"),
    *(":P", "<3", "^^", "^_^", "xD", "=)", ":o)"),
)


def test_every_tail_is_taken_off_in_any_case_after_any_separator() -> None:
    """Every courtesy, tick, smiley and dictated mark `cleaned` knows, after a space, a comma or a dash, in lower
    and upper case, with "!" after it: a short cut that skips lines whose last word ends no tail must skip none."""
    failures = []
    for tail in TAIL_WORDS:
        for typed in (f"NO EVENT {tail}", f"NO EVENT, {tail.upper()}!", f"NO EVENT - {tail}", f"No event. {tail}"):
            if cleaned(typed).upper() != "NO EVENT":
                failures.append(f"{typed!r} -> {cleaned(typed)!r}")
    assert not failures, failures
