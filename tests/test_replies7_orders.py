"""What a player means by an order word closed by a comma, and by a quoted order line they changed (replies7).

* An order word with a comma after it ("PASS, NEGATE Drive Them Off > Men-at-Arms", "Pass, I keep my cards",
  "Play, Platinum 9", "DECLINE, ACCEPT Bob GIVING Spain 1") was set aside as chatter: alone in a message, the player
  was told no order was found; beside another order, the message was applied without it (Italian Wars applied PASS
  and dropped "Negate, Resist Cavalry > Attack Rear" below it).  The comma after the order word is read as the colon
  of a label (`pbem.orders.extract._labelled`): the order word and what follows it are one order ("Play, Platinum
  9" is PLAY Platinum 9); a second order after it is refused as two orders on one line, each offered to send
  (`pbem.app.refusals.joined`: "only one of them can be sent now" when both answer one question); a remark after it
  is refused with the order alone to send (`pbem.app.refusals._cut_short`).  For every game, at its first report
  and a later step, from every legal line.
"""

from __future__ import annotations

import pytest

from pbem import engine as registry
from pbem.engine.base import Engine
from pbem.orders.extract import extract
from tests.test_replies3_players import KINDS, Moment, shared_moments
from tests.test_replies6_players import _pipeline


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


REMARKS = ("I have thought about it", "nothing better to do", "see you next turn", "sorry Bob")


def _phrase_orders(moment: Moment) -> list[str]:
    """The legal lines that are an order word alone ("PASS", "NO EVENT"), else the first word of a legal line that the
    engine takes alone now ("DECLINE", read as DECLINE ALL)."""
    eng = registry.get(moment.kind)
    words = {w.upper() for w in eng.order_words}
    alone = [line for line in moment.legal if line.upper() in words]
    if alone:
        return alone
    firsts = dict.fromkeys(line.split()[0] for line in moment.legal)
    return [w for w in firsts if eng.apply(moment.state, moment.player, [w]).accepted][:1]


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_word_closed_by_a_comma_is_read_as_the_order(moments: dict[str, Moment], kind: str) -> None:
    """ "Play, Platinum 9", "DISCARD, NONE": the order word, a comma, the rest of a legal line: that order."""
    moment = moments[kind]
    eng = registry.get(moment.kind)
    tried = 0
    for line in moment.legal:
        word, _, rest = line.partition(" ")
        if not rest or word.upper() not in {w.upper() for w in eng.order_words}:
            continue
        for typed in (f"{word}, {rest}", f"{word.capitalize()}, {rest}"):
            tried += 1
            result = _pipeline(moment, f"Hi,\n{typed}\nThanks")
            intended = eng.apply(moment.state, moment.player, [line])
            assert result.accepted and result.state == intended.state, (kind, typed, result.lines)
    assert tried or kind.startswith("italian-wars+"), kind  # the negation step's lines: PASS, NEGATE <card> > <card>


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_then_a_comma_then_another_order_is_refused_as_two_with_each_offered(
    moments: dict[str, Moment], kind: str
) -> None:
    """ "PASS, NEGATE Resist Cavalry > Attack Rear", "NO EVENT, DISCARD-IF-NEEDED LOWEST": never chatter, never one of
    them applied: refused as two orders on one line, both offered to send."""
    moment = moments[kind]
    firsts = _phrase_orders(moment)
    tried = 0
    for first in firsts:
        for other in moment.legal:
            if other.upper() == first.upper() or other.upper().startswith(first.upper() + " "):
                continue
            typed = f"{first}, {other}"
            tried += 1
            ex = extract(f"Hi,\n{typed}", "", registry.get(moment.kind).order_words)
            assert typed not in ex.chatter, (kind, typed)
            result = _pipeline(moment, f"Hi,\n{typed}")
            refused = [r for r in result.lines if not r.ok]
            assert not result.accepted and len(refused) == 1, (kind, typed, result.lines)
            offered = {x.upper() for x in refused[0].legal}
            assert "orders on one line" in refused[0].reason, (kind, typed, refused[0].reason)
            assert {first.upper(), other.upper()} <= offered, (kind, typed, refused[0].legal)
    assert tried or not firsts, kind


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_then_a_comma_then_a_remark_is_refused_with_the_order_alone_offered(
    moments: dict[str, Moment], kind: str
) -> None:
    """ "Pass, I keep my cards", "Decline, sorry Bob", "NO EVENT I have thought about it": the player's order with a
    remark after it.  Never set aside unseen, never applied without its words: refused with the line quoted and the
    order alone to send (the order word alone was refused with the engine's reason, every legal order offered)."""
    moment = moments[kind]
    eng = registry.get(moment.kind)
    for first in _phrase_orders(moment):
        for n, remark in enumerate(REMARKS):
            for typed in (f"{first.capitalize() if n % 2 else first}, {remark}", f"{first} {remark}"):
                _refused_with_the_order_alone(moment, eng, first, typed)


def _refused_with_the_order_alone(moment: Moment, eng: Engine, first: str, typed: str) -> None:
    """The message `typed` is refused, that line quoted, the order `first` alone means offered to send."""
    result = _pipeline(moment, f"Hi,\n{typed}\nThanks")
    refused = [r for r in result.lines if not r.ok]
    assert not result.accepted and len(refused) == 1, (moment.kind, typed, result.lines)
    alone = eng.apply(moment.state, moment.player, [first]).state  # "DECLINE" offered as DECLINE ALL
    assert len(refused[0].legal) == 1, (moment.kind, typed, refused[0].legal)
    assert eng.apply(moment.state, moment.player, list(refused[0].legal)).state == alone, (moment.kind, typed)
    assert "send the order alone" in refused[0].reason, (moment.kind, typed, refused[0].reason)


DASHES = (" - ", " \u2013 ", " \u2014 ")  # typed, and as a phone's autocorrect leaves " - " or " -- "


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_then_a_dash_then_a_remark_is_refused_with_the_order_alone_offered(
    moments: dict[str, Moment], kind: str
) -> None:
    """ "DISCARD NONE – I think", "TRIBUTE Copper Coronation — if Bob agrees", "VOTE RED - ok": refused with the
    order alone to send, as after a comma or a semicolon; it was refused for a card named "none" or "if", a player
    named "Bob - if Bob agrees"."""
    moment = moments[kind]
    eng = registry.get(moment.kind)
    for n, line in enumerate(moment.legal[:6]):
        for dash in DASHES:
            _refused_with_the_order_alone(moment, eng, line, f"{line}{dash}{REMARKS_AFTER[n % len(REMARKS_AFTER)]}")


REMARKS_AFTER = ("if Bob agrees", "I think", "ok", "unless it is too late")
#: After a long dash, any words are a remark: none of these holds a remark's word ("VOTE RED — later please" was
#: refused with the engine's reason, '"RED — later please" is not a colour').
PLAIN_REMARKS = ("see you Friday", "fingers crossed", "your move Bob", "go team")


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_then_a_long_dash_then_any_words_is_refused_with_the_order_alone_offered(
    moments: dict[str, Moment], kind: str
) -> None:
    moment = moments[kind]
    eng = registry.get(moment.kind)
    for n, line in enumerate(moment.legal[:6]):
        for dash in (" \u2013 ", " \u2014 ", " -- "):
            _refused_with_the_order_alone(moment, eng, line, f"{line}{dash}{PLAIN_REMARKS[n % len(PLAIN_REMARKS)]}")


@pytest.mark.parametrize("kind", KINDS)
def test_a_line_with_an_order_word_closed_by_a_comma_is_never_dropped_beside_another_order(
    moments: dict[str, Moment], kind: str
) -> None:
    """ "PASS" then "Negate, Resist Cavalry > Attack Rear": the second line was chatter and PASS was applied alone.
    Now the message is applied with both lines or refused, never without the second."""
    moment = moments[kind]
    eng = registry.get(moment.kind)
    for first in moment.legal[:4]:
        for other in moment.legal[:6]:
            word, _, rest = other.partition(" ")
            if other == first or not rest or word.upper() not in {w.upper() for w in eng.order_words}:
                continue  # "No, EVENT": a phrase's words are not parted so
            result = _pipeline(moment, f"{first}\n{word.capitalize()}, {rest}")
            both = eng.apply(moment.state, moment.player, [first, other])
            assert not result.accepted or (both.accepted and result.state == both.state), (kind, first, other)


# ----------------------------------------------------------------------------------------------- a quoted line changed

#: How the report is quoted around the changed line (the quote marks of Gmail, of a tight client, after an answer).
QUOTINGS = ("gmail", "tight", "bottom")


def _quoting(style: str, original: list[str], own: list[str]) -> list[str]:
    from tests.test_replies3_players import ATTRIBUTIONS, _quoted

    if style == "gmail":
        return [*own, "", ATTRIBUTIONS["gmail-android"][0], "", *_quoted(original)]
    if style == "tight":
        return [*own, "", "On Mon, 30 Nov 2026 at 21:08, pbem <games@example.org> wrote:", *_quoted(original, ">")]
    return [ATTRIBUTIONS["apple"][0], "", *_quoted(original), "", *own]


def _listed(moment: Moment) -> list[int]:
    from tests.test_replies3_players import _plain

    original = _plain(moment.report)
    start = next(i for i, line in enumerate(original) if line.startswith("Legal orders now"))
    return [i for i in range(start + 1, start + 1 + len(moment.legal)) if original[i].strip() in moment.legal]


def _changed(moment: Moment, body: list[str]) -> tuple[str, list[tuple[str, str]]]:
    """The reply's text as read (copies of the report out) and the quoted lines found changed, as the poll finds
    them (`pbem.app.reading.own_text`)."""
    from pbem.app.reading import own_text
    from pbem.mail.inbound.message import parse
    from pbem.mail.inbound.replies import SentMail
    from tests.test_replies4_phones import reply

    raw = moment.report.as_bytes()
    mid = str(moment.report["Message-ID"])
    sent = {mid: SentMail(mid, 1, moment.player, moment.address, None, raw)}
    changed: list[tuple[str, str]] = []
    msg = parse(reply(moment, body))
    text = own_text(msg, sent, 1, tuple(registry.get(moment.kind).order_words), changed)
    return text, changed


@pytest.mark.parametrize("kind", KINDS)
def test_a_listed_order_changed_in_the_quote_is_not_read_and_the_player_is_told(
    moments: dict[str, Moment], kind: str
) -> None:
    """ "> VOTE RED" of the quoted report's list edited into "> VOTE BLUE": not read (a quoted listed order is pbem's),
    but no longer unseen: found, with the line pbem wrote there, for a note that quotes it and shows the line to send.
    A quote left as pbem wrote it, trimmed, or with a line of prose changed holds no such line."""
    from tests.test_replies3_players import _plain, read
    from tests.test_replies4_phones import reply

    moment = moments[kind]
    original = _plain(moment.report)
    listed = _listed(moment)
    assert len(listed) >= 2, kind
    for n, i in enumerate(listed):
        other = moment.legal[(moment.legal.index(original[i].strip()) + 1) % len(moment.legal)]
        indent = original[i][: len(original[i]) - len(original[i].lstrip())]
        edited = [*original[:i], indent + other, *original[i + 1 :]]
        body = _quoting(QUOTINGS[n % len(QUOTINGS)], edited, ["Hi,", "Thinking."])
        _, changed = _changed(moment, body)
        assert [(line.lstrip("> ").strip(), was) for line, was in changed] == [(other, original[i].strip())], (
            kind,
            other,
            changed,
        )
        assert read(moment, reply(moment, body)) == (), (kind, other)
    for quoted in (original, [*original[: listed[0]], *original[listed[-1] + 1 :]], [*original[:3], "  I will think"]):
        assert (
            _changed(moment, _quoting("gmail", [*quoted, *original[len(quoted) :]][: len(original)], ["Hi,"]))[1] == []
        )


def test_the_player_is_told_of_a_changed_quoted_line_in_the_answer(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Through a real poll: the answer's subject says no order was found, and its text quotes the changed line, says
    why it was not read, and shows the line to send."""
    from tests.conftest import deliver, sent_mail
    from tests.test_replies3_players import _moment, _plain, _poll
    from tests.test_replies4_phones import reply

    moment = _moment(tmp_path, "dynasties")
    original = _plain(moment.report)
    i = _listed(moment)[0]
    other = next(x for x in moment.legal if x != original[i].strip())
    deliver(moment.cfg, reply(moment, _quoting("gmail", [*original[:i], "    " + other, *original[i + 1 :]], ["Hi,"])))
    _poll(moment.cfg, moment.clock)
    answer = [m for m in sent_mail(moment.cfg) if m["To"].addresses[0].addr_spec == moment.address][-1]
    assert str(answer["Subject"]) == "Re: [pbem g1] your orders: none found"
    text = " ".join(str(answer.get_body(preferencelist=("plain",)).get_content()).split())  # type: ignore[union-attr]
    assert f'"> {other}": a changed line of the quote is not read' in text, text
    assert f"write it above the quote: {other}" in text, text


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_typed_inside_the_quote_is_not_read_and_the_player_is_told(
    moments: dict[str, Moment], kind: str
) -> None:
    """An order typed into the quoted report on a line of its own, quoted with it: in a plain quote ("> TRIBUTE Gold
    4" between two quoted lines), or in an HTML one (iOS and Gmail keep what is typed inside <blockquote> quoted).
    Not read (a quoted line is not the player's), but told, quoting it, with the line to send."""
    import html as html_mod

    from tests.test_replies3_players import _html, _plain, read
    from tests.test_replies4_phones import reply
    from tests.test_replies7_clients import _html_mail

    moment = moments[kind]
    original = _plain(moment.report)
    order = moment.legal[-1]
    for n, i in enumerate(_listed(moment)[:3]):
        body = _quoting(QUOTINGS[n % len(QUOTINGS)], [*original[:i], order, *original[i:]], ["Hi,"])
        assert [(x.lstrip("> "), was) for x, was in _changed(moment, body)[1]] == [(order, "")], (kind, n)
        assert read(moment, reply(moment, body)) == (), (kind, n)
    page = _html(moment.report)
    at = page.rfind("<", 0, page.find(html_mod.escape(moment.legal[0]), page.find("Legal orders now")))
    inside = f"{page[:at]}<div>{html_mod.escape(order)}</div>{page[at:]}"
    raw = _html_mail(moment, f'<div dir="ltr">Hi,</div><blockquote type="cite">{inside}</blockquote>')
    assert read(moment, raw) == (), kind
    from pbem.app.reading import own_text
    from pbem.mail.inbound.message import parse
    from pbem.mail.inbound.replies import SentMail

    mid = str(moment.report["Message-ID"])
    sent = {mid: SentMail(mid, 1, moment.player, moment.address, None, moment.report.as_bytes())}
    changed: list[tuple[str, str]] = []
    own_text(parse(raw), sent, 1, tuple(registry.get(moment.kind).order_words), changed)
    assert changed == [(f"> {order}", "")], (kind, changed)
