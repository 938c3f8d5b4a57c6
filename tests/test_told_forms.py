"""`pbem verify --mail` reads the "What happened" lines of a player's reports back against the export's event
texts (`pbem.trust.told`): an honest report must never be called untrue, whatever an event's text holds.

Generator: event texts with what players can put in press and names (control characters, line and paragraph
separators, bidirectional marks, trailing blanks, "=", tabs, accents, CJK, emoji, 2,000 characters), rendered
into a real report and composed as pbem sends it (`outbox_row`: templates, quoted-printable or base64), then
read back.  Before the fix, six of these forms were called untrue on an honest report (a template shows
control characters escaped, and `bullets` strips trailing blanks); and, until the third red team, a text holding a
blank line (an undo's reason in paragraphs) was read cut at it.  A changed text is still named.
"""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.mail.outbound.outgoing import Mail, outbox_row
from pbem.trust.told import bullets, untrue
from tests.test_mail_templates import CONTEXTS, RECORD, M


class _Head:
    domain = "pbem.test"
    moderator_address = "games@pbem.test"
    moderator_name = "Test Moderator"
    home = None


_CHARS = st.one_of(
    st.characters(codec="utf-8", exclude_characters="\n\r"),
    st.sampled_from(list("\t\x0b\x0c\x1b\x1c\x1d\x1e\x85\u2028\u2029\u202e\u200b =éè中文😀")),
)
_TEXT = st.text(_CHARS, min_size=1, max_size=80).map(lambda t: "Press from Alice to Bob: " + t)
#: An undo's reason, or press, holding paragraph breaks: read cut at the first blank line before (third red team).
_PARAGRAPHS = st.lists(st.text(_CHARS, min_size=1, max_size=30), min_size=2, max_size=3).map(
    lambda parts: "The moderator took the game back. Reason: " + "\n\n".join(parts)
)


def _report(texts: list[str]) -> bytes:
    board = {"cid": "board", "alt": "the board", "width": 10, "height": 10}  # every game's report has one
    ctx = {**CONTEXTS["report"], **M, **RECORD, "happened": texts, "boards": [board]}
    mail = Mail(to="bob@players.test", kind="report", context=ctx, purpose="report", key=("told",))
    return bytes(outbox_row(_Head(), mail, datetime(2026, 12, 5, tzinfo=UTC), b"k" * 32)["raw"])


def _events(texts: list[str]) -> list[dict]:
    return [{"text": t, "visibility": "public", "seq": i} for i, t in enumerate(texts, 1)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_TEXT, _PARAGRAPHS), min_size=1, max_size=4, unique=True))
def test_an_honest_report_is_never_called_untrue_whatever_its_events_say(texts: list[str]) -> None:
    told = bullets(_report(texts))
    assert len(told) == len(texts)
    assert untrue(_events(texts), [(len(texts), "the report", told)], ["Bob"]) == []


def test_the_forms_found_and_a_changed_text() -> None:
    texts = [
        "Press from Alice to Bob: " + "x" * 1_900,
        "Press from Alice to Bob: a\u2028b",
        "Press from Alice to Bob: a\x0cb",
        "Press from Alice to Bob: trailing   ",
        "Press from Alice to Bob: a\x85b\x1cc\x1dd\x1ee\x0bf",
        "Press from Alice to Bob: " + "word " * 300,
        "Press from Alice to Bob: two\nlines",
        "The moderator took the game back. Reason: a misread order.\n\nBob wrote PLAY 7, not 1.",
        "Press from Alice to Bob: a\n\n== The table ==\n  Bob holds Plague\n\nRecord #3, 00",
        "Alice played Ottoman Advance",
    ]
    told = bullets(_report(texts))
    assert untrue(_events(texts), [(len(texts), "the report", told)], ["Bob"]) == []
    lied = [*texts[:-1], "Alice played Plague"]
    assert [line for _, _, line in untrue(_events(lied), [(len(texts), "the report", told)], ["Bob"])] == [
        "Alice played Ottoman Advance"
    ]
