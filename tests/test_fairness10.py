"""Tenth round of the fairness checks (docs/security.md, "Red team of the fairness checks, tenth round").

What `pbem verify --mail` still took on the moderator's word after the ninth round, in the order of its note: a
"Held orders not applied" notice quoting lines no held message put on file, a "write it as:" hint only in an HTML
part whose transfer encoding split its words, and a deadline's notice of the default it applied (a receipted mail
that answers no message).  Each forgery generator runs over the four games of the ninth round (`tests.test_fairness9`:
a held order the deadline could not apply, a refusal with a hint, the default applied instead) and passed on
cc9d072; the honest mail passes.
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem.trust.acked import DEFAULTED
from pbem.trust.receipts import lines, verify_mail
from tests.test_fairness6 import per_kind
from tests.test_fairness9 import KINDS, NO_LONGER, _game, _notice, _plain, _swapped, _verify

pytestmark = pytest.mark.xdist_group("fairness10")  # a unit per module, not one for all


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return per_kind(tmp_path_factory, "tenth", _game)


def _replaced(mails: list[bytes], k: int, old: str, new: str) -> list[bytes]:
    return [*mails[:k], _swapped(mails[k], old, new), *mails[k + 1 :]]


# ------------------------------------------------------------------ 1. a notice of held lines never on file


def _unfiled(mails: list[bytes], legal: str, asked: list[str]) -> list[tuple[str, list[bytes]]]:
    """The player's mailbox with the held_failed notice quoting lines their held message never put on file: another
    legal order (each of up to two), the line of the refused message, and another order quoted under the true one."""
    k = _notice(mails)
    true = f"'{legal}': {NO_LONGER}\n"
    others = [o for o in asked if o != legal][:2]
    lines_ = [*others, f"{legal.split()[0]} Nothing 99"]
    out = [(f"quotes {o}", _replaced(mails, k, true, f"'{o}': {NO_LONGER}\n")) for o in lines_]
    more = f"{true}  '{lines_[0]}': that is not a legal order now\n"
    return [*out, (f"adds {lines_[0]}", _replaced(mails, k, true, more))]


@pytest.mark.parametrize("kind", KINDS)
def test_a_held_failed_notice_quoting_lines_no_held_message_put_on_file_is_named(kind: str, games: Any) -> None:
    """Gap: a "Held orders not applied" notice was compared only with a held message whose lines on file hold every
    line it quotes; one quoting other lines was left out with a note, so the moderator could tell a player that
    orders they never sent (or sent in a refused message) were held and could not be applied.  pbem sends the notice
    only for a held message the deadline left unapplied, quoting its lines on file: with every such message of the
    export acknowledged in the player's mail, a line none of them put on file is named (`pbem.trust.dropped.unfiled`).
    Generator: each game's notice quoting another line three ways (two where one legal line is offered) and with a
    line added."""
    doc, player, mails, legal, asked = games(kind)
    forged = _unfiled(mails, legal, asked)
    assert len(forged) >= 3
    for what, box in forged:
        c = _verify(kind, doc, box, player, legal)
        assert any("no held message of yours put them on file" in p for p in c.problems), (what, lines(c))


@pytest.mark.parametrize("kind", KINDS[:1])
def test_a_notice_whose_held_message_is_not_acknowledged_in_the_folder_is_a_note(kind: str, games: Any) -> None:
    """Without the acknowledgement of the held message (a mail deleted), its lines on file are unknown: the forged
    notice cannot be told from a true one, and a note says so (naming the message), not a problem."""
    doc, player, mails, legal, asked = games(kind)
    _, box = _unfiled(mails, legal, asked)[0]
    box = [raw for raw in box if b"In-Reply-To: <held@" not in raw]
    c = _verify(kind, doc, box, player, legal)
    assert c.ok and any("its acknowledgement is not in this folder" in x for x in c.notes), lines(c)


# ------------------------------------------------------------------ 2. a hint in an HTML part its encoding split


def _recoded(raw: bytes, edit: Any, how: str) -> bytes:
    """`raw` with its HTML part changed by `edit` and sent as `how` says: "soft" (quoted-printable, a soft line break
    inside "write it as"), "escaped" (quoted-printable, its "w" written "=77"), "base64"; the text part and every other
    header untouched."""
    import base64
    import email
    import quopri

    msg = email.message_from_bytes(raw)
    part = next(p for p in msg.walk() if p.get_content_type() == "text/html")
    page = edit(part.get_payload(decode=True).decode("utf-8")).encode("utf-8")
    old = part.get_payload()
    assert isinstance(old, str) and part["Content-Transfer-Encoding"] == "quoted-printable"
    at = raw.index(old.encode("ascii"))
    if how == "base64":
        body = base64.encodebytes(page)
        start = raw.rindex(b"Content-Transfer-Encoding: quoted-printable", 0, at)
        raw = raw[:start] + raw[start:at].replace(b"quoted-printable", b"base64", 1) + raw[at:]
        at = raw.index(old.encode("ascii"))
    else:
        body = quopri.encodestring(page)
        assert body.count(b"write it as") == 1, "the hint's words are split already"
        body = body.replace(b"write it as", b"write it =\nas" if how == "soft" else b"=77rite it as")
    assert b"write it as" not in body
    return raw[:at] + body + raw[at + len(old) :]


def _html_only(mails: list[bytes], legal: str, asked: list[str]) -> list[tuple[str, list[bytes]]]:
    """The player's mailbox with a "write it as:" hint added to the HTML part alone of the acknowledgement of their held
    order (its text has none), offering another order than pbem's reading of "I <the order>" (another legal order, or
    the refused line where one is offered), its words split three ways by the transfer encoding."""
    from markupsafe import escape

    k = next(i for i, raw in enumerate(mails) if b"In-Reply-To: <held@" in raw)
    other = next((o for o in asked if o != legal), f"{legal.split()[0]} Nothing 99")
    note = f'"I {legal}" was not read as an order: an order line starts with its order word, so write it as: {other}'
    added = f"<p>{escape(note)}</p>"

    def edit(page: str) -> str:
        at = page.index("<p>")
        return page[:at] + added + page[at:]

    return [
        (how, [*mails[:k], _recoded(mails[k], edit, how), *mails[k + 1 :]]) for how in ("soft", "escaped", "base64")
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_a_hint_in_the_html_part_alone_whose_encoding_splits_its_words_is_read(kind: str, games: Any) -> None:
    """Gap: an answer's HTML part was decoded for "write it as:" hints only where its text or its raw bytes say
    "write it as", so a hint added to the HTML part alone (which most mail programs show) passed unread when its
    words were split by a quoted-printable soft line break, escaped ("=77rite") or sent in base64.  Now the part is
    read unless its bytes, read as quoted-printable, hold no paragraph a note starts with and no other encoding
    hides one (`pbem.trust.refused.html_may_hint`).  Generator: each game's acknowledgement of the held order with a
    hint offering another order added to its HTML part, encoded three ways."""
    doc, player, mails, legal, asked = games(kind)
    for what, box in _html_only(mails, legal, asked):
        c = _verify(kind, doc, box, player, legal)
        assert any("where pbem's reading of that line offers" in p for p in c.problems), (what, lines(c))


# ------------------------------------------------------------------ 3. a deadline's notice, which answers no message


def _defaulted(mails: list[bytes]) -> int:
    """The index of the deadline's notice of the default applied for the player."""
    return next(i for i, raw in enumerate(mails) if b"your default orders were applied" in raw.split(b"\n\n", 1)[0])


def _notices(mails: list[bytes], legal: str, asked: list[str]) -> list[tuple[str, list[bytes]]]:
    """The player's mailbox with the deadline's notice of their default forged (its receipt true): the default lines
    replaced by their held order, what they were asked made another step's, a sentence added, the deadline stated
    after the defaults were recorded, the default lines changed in the HTML part alone, and the whole text replaced."""
    from tests.test_fairness3 import _edited, _html_edited

    k = _defaulted(mails)
    text = _plain(mails[k])
    start = text.index(DEFAULTED) + len(DEFAULTED) + 1
    default = text[start : text.index("\n\n", start)]
    prompt = text.split("\n")[1]
    due = text[text.index("(") : text.index(")") + 1]
    forms = [
        ("the default lines", default, f"    {legal}"),
        ("what was asked", prompt, "  Nothing: you had no orders to send for this step."),
        ("a sentence", "Your report follows.", "Your orders arrived after the deadline. Your report follows."),
        ("the deadline", due, "(2099-01-01 09:00 UTC)"),
    ]
    out = [(what, _replaced(mails, k, a, b)) for what, a, b in forms]
    first = default.strip().split("\n")[0].strip()
    html = _html_edited(mails[k], lambda p: p.replace(f"<code>{first}</code>", f"<code>{legal}</code>", 1))
    whole = _edited(mails[k], lambda t: "Your orders arrived late and were not applied: send them again.\n")
    return [
        *out,
        ("in the HTML part", [*mails[:k], html, *mails[k + 1 :]]),
        ("whole", [*mails[:k], whole, *mails[k + 1 :]]),
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_a_deadlines_notice_of_the_default_is_its_templates_rendered_again(kind: str, games: Any) -> None:
    """Gap: the notice a deadline sends a player it applied the default for carries the receipt of its input but
    answers no message, so it was held to no form: the moderator could tell the player any default, any step, that
    they had sent nothing when he dropped their orders, or send any words under the true receipt, and every check
    passed.  Now its subject, text and HTML part must be its templates rendered again from the export (the default
    lines its input recorded for them, the prompt the replayed game asked at the state before it, the mail's receipt)
    and the deadline it states must have passed when the input was recorded (`pbem.trust.noticed`); and a mail
    carrying an input's receipt must be one of pbem's receipted forms whether it answers a message or not.
    Generator: each game's notice forged six ways.  The honest notice verifies (`test_fairness9`'s honest test)."""
    doc, player, mails, legal, asked = games(kind)
    c = _verify(kind, doc, mails, player, legal)
    assert c.ok and any("notice of what a deadline applied for you are pbem's" in x for x in c.checked), lines(c)
    for what, box in _notices(mails, legal, asked):
        c = _verify(kind, doc, box, player, legal)
        assert any("the notice you were shown is not" in p or "its text is none of these" in p for p in c.problems), (
            what,
            lines(c),
        )


# ------------------------------------------------------------------ 4. what stays a note


@pytest.mark.parametrize("kind", KINDS[:2])
def test_before_the_seed_is_out_a_refusals_words_are_a_note_and_a_reminders_too(kind: str, games: Any) -> None:
    """What cannot be worked out from what a player holds is told, not passed in silence.  Before the seed is out
    (the export with its seed withheld, as a running game's) the state a refused message met cannot be replayed,
    so a refusal's reasons and hints forged (`test_fairness9`'s generator, five ways) pass with a note to check
    again with the final export, as the deadline's notices and a reminder (a copy of a mail made one by its subject)
    do."""
    from tests.test_fairness9 import _forged_hints

    doc, player, mails, legal, asked = games(kind)
    doc["seed"] = None
    for what, box in _forged_hints(mails, legal, [o for o in asked if o != legal], "hinted"):
        c = _verify(kind, doc, box, player, legal)  # (a hint changed in the text alone: its HTML part's offer is
        # not the text's, which needs no seed: `pbem.trust.hint_markup`, eleventh round)
        assert c.ok or all("where its text part does not" in p for p in c.problems), (what, lines(c))
        assert any("refusing your lines are worked out again once the game is over" in x for x in c.notes), lines(c)
        assert any("applied for you (and what they say you were asked) is worked out" in x for x in c.notes), lines(c)
    k = _defaulted(mails)
    subject = b"Subject: [pbem g1] Deadline passed: your default orders were applied"
    reminder = mails[k].replace(subject, b"Subject: [pbem g1] Reminder: orders due", 1)
    c = _verify(kind, doc, [*mails, reminder], player, legal)
    assert any("1 reminder of a deadline say you are asked" in x for x in c.notes), lines(c)


# ------------------------------------------------------------------ 3. a reminder, which carries a head only


def _reminded_game(kind: str, root: Any) -> tuple[dict[str, Any], str, list[bytes], list[str]]:
    """A game of `kind` held until the deadline, polled a day before it: every player asked gets a reminder (what
    they are asked, the legal orders, the default); the game is abandoned (the seed out).  (the final export, the
    first player asked, their mail in the order delivered, the legal orders they were asked for)."""
    from datetime import timedelta

    from pbem.app.cron import run_poll
    from tests.test_fairness7 import held_start
    from tests.test_fairness9 import _ended
    from tests.test_hidden_count import T0

    cfg, players, asked = held_start(kind, root, f"reminded-{kind}-0123456789abcdef")
    run_poll(cfg, clock=lambda: T0 + timedelta(days=1, minutes=1))
    return (*_ended(cfg, T0 + timedelta(days=1, minutes=3), dict(players)[asked.player]), list(asked.legal))


@pytest.fixture(scope="module")
def reminded(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return per_kind(tmp_path_factory, "reminded", _reminded_game)


def _reminders(mails: list[bytes], legal: list[str]) -> list[tuple[str, list[bytes]]]:
    """The player's mailbox with its reminder forged (its head true): a legal order left out, the default made
    another order, the deadline's "in about" made longer, a sentence added, and the legal order changed in the HTML
    part alone."""
    from markupsafe import escape

    from tests.test_fairness3 import _html_edited

    k = next(i for i, raw in enumerate(mails) if b"Reminder: orders due" in raw.split(b"\n\n", 1)[0])
    text = _plain(mails[k])
    left = text[text.index("(in about ") : text.index(").") + 1]
    default = text.split("the published default is applied:\n", 1)[1].split("\n", 1)[0]
    forms = [
        ("a legal order left out", f"    {legal[-1]}\n", ""),
        ("another default", default, f"    {legal[-1]}X"),
        ("more time", left, "(in about 47 hours)"),
        ("a sentence", "Send STATUS", "Your last orders were lost: send them again. Send STATUS"),
    ]
    out = [(what, _replaced(mails, k, a, b)) for what, a, b in forms if a in text]
    item = f"<li>{escape(legal[0])}</li>"
    html = _html_edited(mails[k], lambda p: p.replace(item, "<li>NOTHING AT ALL</li>", 1))
    return [*out, ("in the HTML part", [*mails[:k], html, *mails[k + 1 :]])]


@pytest.mark.parametrize("kind", KINDS)
def test_a_reminder_is_its_templates_rendered_at_its_heads_state(kind: str, reminded: Any) -> None:
    """Gap: a reminder carries only a head, and nothing read its words: the moderator could leave a legal order out,
    tell the player another default, give them more time than they have, or tell them their orders were lost, and
    every check passed.  Now, once the seed is out, it must be its templates rendered at a state of its head's
    window (what the replayed game asked the player, the legal orders and the default, the deadline it states and how
    long before it the mail is dated: `pbem.trust.noticed.reminders_untrue`).  Generator: each game's reminder forged
    five ways (four where the default is no line)."""
    from pbem.app.rereading import refused as reread

    doc, player, mails, legal = reminded(kind)
    c = verify_mail(doc, mails, player, reread)
    assert c.ok and any("reminder of a deadline say what the game replayed" in x for x in c.checked), lines(c)
    forged = _reminders(mails, legal)
    assert len(forged) >= 4
    for what, box in forged:
        c = verify_mail(doc, box, player, reread)
        assert any("the reminder you were shown is not pbem's" in p for p in c.problems), (what, lines(c))
