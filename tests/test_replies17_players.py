"""Replies still answered unhelpfully (replies17): an order split around the words a sentence ends with, the choice
said without its order word, a reply after its step closed, a press alone, a picture alone.

"I vote red on that", "I'll go with tribute silver 7 for me this time", "Fine, no event it is": `sentence` took off
one word or pair a sentence ends with ("then", "for me"), never two, never "on that", so the line was listed as not
read and told nothing.  "TRIBUTE Silver 7 from me", "vote red for me this time" (an order line, then such words):
refused for a card named "from", or "vote RED or BLUE", with no order offered.  "silver 7 from me" (the choice, no
order word: a phone's "yes from me"): listed as not read.  Now `pbem.orders.extract.without_afterwords` takes such
words off in turn ("for me", then "this time"; "from me", "on that", "it is", "for this turn" too),
`pbem.app.refusals` cuts a refused line before them and offers the order alone, and `pbem.orders.near.chosen_alone`
finds the one legal order whose words after its order word the line says (told by `pbem.app.lines.seeming_told`,
which `pbem verify`'s `hint` runs again).  None is ever read: the player is told the line to send.  Never told: the
choice alone ("Silver 7", a signature may be a name the game knows), a remark ("thanks from me"), a line in the quote.

A reply after its step's deadline was told only "you are not asked anything now"; now its answer opens with when
the step closed, the default applied (by name) and what is asked now (`pbem.app.closing`).  A press alone was
answered "Re: [pbem g] your orders", no verdict in the subject; now "your press: sent to 2 players" (and DIGEST
alone "your mail: DIGEST noted").  A picture alone
was told "no text part (only attachments or binary content)"; now to type the orders.

On 10a295e, 80 of the 112 cases of the generator failed (every split order and choice said without its order word
but Habsburg's NO EVENT, refused with the order alone already and no choice; the controls, a line in the quote and
"I'll {order}", already told, passed), and so did the four other tests of this file.  The suite runs every other
case of each moment (each shape in four of the eight moments: 40 of its 60 failed on 10a295e).
"""

from __future__ import annotations

import pytest

from pbem import engine as registry
from pbem.app import refusals
from pbem.app.lines import read_again, seeming_told
from pbem.app.rereading import hint
from pbem.engine import slots
from pbem.orders.extract import phrase_end, seeming_note
from tests.conftest import deliver, sent_mail
from tests.test_replies3_players import ATTRIBUTIONS, KINDS, Moment, _plain, _quoted, shared_moments
from tests.test_replies7_clients import _text_mail
from tests.test_replies10_players import reading


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


def _mail(moment: Moment, own: list[str], quoted: list[str] = ()) -> bytes:  # type: ignore[assignment]
    report = [*quoted, *_quoted(_plain(moment.report))]
    return _text_mail(moment, ["Hi,", *own, "", "Alice", "", *ATTRIBUTIONS["gmail-en"], "", *report])


def _choice(moment: Moment, order: str) -> str:
    """The words of `order` after its order word ("Silver 7" of TRIBUTE Silver 7), "" when two legal orders end so."""
    words = registry.get(moment.kind).order_words
    tail = order[phrase_end(order, words) :].strip()
    same = [o for o in moment.legal if o[phrase_end(o, words) :].strip().casefold() == tail.casefold()]
    return tail if tail and len(same) == 1 else ""


def cases(moment: Moment, share: int | None = None) -> list[tuple[str, str, str, str]]:
    """(label, the line typed, how it is told: "note", "refused" or "" for nothing, the order to be offered): every
    case, or (`share` 0 or 1) every other one, as the suite runs them (each shape in half of the moments)."""
    o = moment.legal[-1]
    out = [
        ("sentence/on-that", f"I {o.lower()} on that", "note", o),
        ("sentence/for-me-this-time", f"I'll go with {o.lower()} for me this time", "note", o),
        ("sentence/capitals", f"I {o.upper()} ON THAT", "note", o),
        ("sentence/told-before", f"I'll {o.lower()}", "note", o),
        ("order/from-me", f"{o} from me", "refused", o),
        ("order/for-me-this-time", f"{o.lower()} for me this time", "refused", o),
        ("order/capitals", f"{o.upper()} FROM ME", "refused", o),
        ("sentence/it-is", f"Fine, {o.lower()} it is", "note", o),
        ("order/for-this-turn", f"{o.lower()} for this turn please", "refused", o),
        ("control/remark", "thanks from me, good luck all", "", ""),
    ]
    if choice := _choice(moment, o):
        out += [
            ("choice/from-me", f"{choice.lower()} from me", "note", o),
            ("choice/capitals", f"{choice.upper()} FOR ME THIS TIME", "note", o),
            ("control/choice-alone", choice, "", ""),
        ]
    return out if share is None else out[share::2]


def judged(moment: Moment, share: int | None = None) -> list[str]:
    eng = registry.get(moment.kind)
    st, p = moment.state, moment.player
    failures = []
    for label, typed, how, offered in cases(moment, share):
        ex = seeming_told(eng, st, p, reading(moment, _mail(moment, [typed])))
        told = [x for x in ex.problems if x.startswith(f'"{typed}"')]
        refused: list[tuple[str, ...]] = []
        if ex.orders:
            result = eng.apply(st, p, ex.orders)
            orders, result, _, _ = read_again(eng, st, p, list(ex.orders), result, {"problems": []}, ex)
            result = refusals.worded(eng, st, p, slots.one_per_slot(eng, st, p, orders, result))
            if result.accepted:
                failures.append(f"{moment.kind} / {label} {typed!r}: read {orders}")
                continue
            refused = [tuple(x.casefold() for x in r.legal) for r in result.lines if not r.ok]
        if how == "note" and (ex.orders or told != [seeming_note(typed, offered)]):
            failures.append(f"{moment.kind} / {label} {typed!r}: read {ex.orders}, told {told}, meant {offered}")
        elif how == "note" and hint(eng, st, p, typed) != told[0]:
            failures.append(f"{moment.kind} / {label}: pbem verify's reading of the note differs")
        elif how == "refused" and refused != [(offered.casefold(),)]:
            failures.append(f"{moment.kind} / {label} {typed!r}: offered {refused}, meant {offered}")
        elif not how and (ex.orders or told):
            failures.append(f"{moment.kind} / {label} {typed!r}: read {ex.orders}, told {told}")
    quoted = f"I {moment.legal[-1].lower()} on that"  # the player's own older line, in the quote: never told
    ex = seeming_told(eng, st, p, reading(moment, _mail(moment, ["Thanks"], ["> " + quoted, ">"])))
    if ex.orders or any(quoted in x for x in ex.problems):
        failures.append(f"{moment.kind} / quoted: read {ex.orders}, told {ex.problems}")
    return failures


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_split_around_a_sentences_words_is_told_the_order_to_send(
    moments: dict[str, Moment], kind: str
) -> None:
    failures = judged(moments[kind], KINDS.index(kind) % 2)  # the whole generator: judged(moment)
    assert not failures, f"{len(failures)} answered unhelpfully:\n" + "\n".join(failures)


def test_the_choice_alone_is_offered_only_with_a_sentences_words_and_only_one() -> None:
    from pbem.orders.near import chosen_alone

    legal, words = ["VOTE RED", "VOTE BLUE", "TRIBUTE Silver 7", "PLAY Silver 7"], ("VOTE", "TRIBUTE", "PLAY")
    assert chosen_alone("red from me", legal, words) == "VOTE RED"
    assert chosen_alone("Blue, for me this time.", legal, words) == "VOTE BLUE"
    assert chosen_alone("red", legal, words) == "" and chosen_alone("thanks from me", legal, words) == ""
    assert chosen_alone("silver 7 from me", legal, words) == ""  # two orders end so
    assert chosen_alone("x" * 500 + " from me", legal, words) == ""


def test_through_a_real_poll_a_press_alone_is_answered_with_where_it_went(tmp_path) -> None:
    from tests.test_replies3_players import _moment, _poll

    moment = _moment(tmp_path, "dynasties")
    deliver(moment.cfg, _mail(moment, ["PRESS TO ALL: good luck, everyone"]))
    _poll(moment.cfg, moment.clock)
    answers = [str(m["Subject"]) for m in sent_mail(moment.cfg) if moment.address in str(m["To"])]
    assert answers[-1].endswith("your press: sent to 2 players"), answers
    deliver(moment.cfg, _mail(moment, ["DIGEST"]))  # how much mail, alone: its subject says so too
    _poll(moment.cfg, moment.clock)
    answers = [str(m["Subject"]) for m in sent_mail(moment.cfg) if moment.address in str(m["To"])]
    assert answers[-1].endswith("your mail: DIGEST noted"), answers


def test_through_a_real_poll_a_reply_after_its_deadline_is_told_the_step_closed_first(tmp_path) -> None:
    """Habsburg's first report answered after its deadline: the default (NO EVENT, ...) was applied for the player,
    and Bob is to play.  The answer's first note says the step closed, when, what was applied, and that nothing is
    asked now, in a form `pbem verify --mail` knows (`pbem.trust.acked.unnoted`, `unparagraphed`)."""
    from pbem.record import store
    from pbem.record.db import session
    from pbem.trust.acked import unnoted, unparagraphed
    from tests.test_replies3_players import _moment, _poll

    moment = _moment(tmp_path, "habsburg")
    with session(moment.cfg.database_url) as s:  # the deadline the report told the player
        dl = store.current_deadline(s, store.game_by_name(s, "g1").id)  # type: ignore[union-attr,arg-type]
        due = store.aware(dl.due_at) if dl else None
    moment.clock.advance(days=8)
    _poll(moment.cfg, moment.clock)
    moment.clock.advance(minutes=5)
    deliver(moment.cfg, _mail(moment, [moment.legal[-1]]))
    assert _poll(moment.cfg, moment.clock).accepted == 0
    answer = sent_mail(moment.cfg)[-1]
    text = str(answer.get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]
    page = str(answer.get_body(preferencelist=("html",)).get_content())  # type: ignore[union-attr]
    first = text.split("\n")[2]
    assert first.startswith("  NOTE The step your mail answered closed at "), text
    # the due time the player was told, then when the poll applied it (days later here); not that time alone (walk6)
    assert due is not None and first.startswith(
        f"  NOTE The step your mail answered closed at its deadline, {due:%Y-%m-%d %H:%M} UTC (applied at "
    ), first
    assert "your default orders were applied: " in first and "Nothing is asked of you now." in first, first
    assert unnoted(text) == "" and unparagraphed(page) == "", (unnoted(text), unparagraphed(page))
    assert _verified(moment, tmp_path) == 0  # `pbem verify --partial --mail` of the player's mail, this answer too


def _verified(moment: Moment, root, mails: int = 4) -> int:
    import json
    import mailbox
    import re

    from typer.testing import CliRunner

    from pbem.cli import app
    from pbem.history.export import build
    from pbem.record import store
    from pbem.record.db import session

    with session(moment.cfg.database_url) as s:
        doc = build(s, store.game_by_name(s, "g1"), as_player=moment.player)
    (root / "export.json").write_text(json.dumps(doc))
    box = mailbox.Maildir(str(root / "box"), factory=None, create=True)
    sent = mailbox.Maildir(str(moment.cfg.maildir_path / "sent"), factory=None, create=False)
    for key in sent.iterkeys():  # the player's mailbox: pbem's mail to them, byte for byte
        raw = sent.get_bytes(key)
        if re.search(rb"^To: .*" + re.escape(moment.address.encode()), raw, re.M):
            box.add(raw)
    args = ["verify", str(root / "export.json"), "--partial", "--mail", str(root / "box"), "--as", moment.player]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0 and f"{mails} mails to" in res.output, res.output
    return res.exit_code


def test_a_reply_of_a_picture_alone_is_told_to_type_the_orders(moments: dict[str, Moment]) -> None:
    """A phone's reply of a photo alone (no text part: the orders written on paper, a screenshot) was told "no text
    part (only attachments or binary content)"; now that it holds only a picture and to type the orders.  A picture
    beside the typed text is only an attachment: the order is read."""
    from email.message import EmailMessage

    from pbem.mail.inbound.message import parse
    from tests.test_replies7_clients import _message

    m = moments["habsburg"]
    alone = _message(m)
    alone.set_content(b"\xff\xd8\xff\xe0" + b"\x00" * 64, "image", "jpeg", filename="IMG_0412.jpg")
    msg = parse(alone.as_bytes())
    assert msg.text == "" and msg.problem is not None and "only a picture" in msg.problem, msg.problem
    beside = _message(m)
    beside.set_content("\n".join([m.legal[-1], "", "Sent from my iPhone"]) + "\n")
    photo = EmailMessage()
    photo.set_content(b"\xff\xd8\xff\xe0" + b"\x00" * 64, "image", "jpeg", filename="IMG_0412.jpg")
    beside.make_mixed()
    beside.attach(photo)
    assert reading(m, beside.as_bytes()).orders == [m.legal[-1]]
