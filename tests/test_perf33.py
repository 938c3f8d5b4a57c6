"""perf33 (issue 27): a reply's lines asked "the writer's own?" once, not once a reply.

`own_mail.without_copies` asks `keep` (`extract.own_line`) of the lines above each paragraph of the quoted report
("> Deadline: ...", "> Keep it private: ...", the attribution) whether the writer typed them as an order or a
command: a client's ``Label: value`` block is dropped with the copy, the writer's own line never.  Each reply
built a new reader and asked it anew: 14.3 lines a reply of `poll_throughput.py`'s, 0.72 of them not asked
before in the poll, 0.35 ms of a reply's 9.9 ms on the poll's thread.  The answer is a function of the line and
the game's order words, so one reader a set of words now remembers its answers across mails (at most
`OWN_ANSWERS`, lines of at most `OWN_REMEMBERED` characters).  And the threads ahead looked the sender's seat up
for every reply whose quote holds the word "code" (below: `ahead.writers_code_word`), and every picture measured
each card's words again (below: `phone.fits`).

Generated: games of 3 to 6 players, each player's report (lines shared by the game's players, lines of the
player's own, label lines, listed orders, the commitment, the hand) and each player's reply to it as clients
write one (an attribution or a localised header block, the report quoted or unquoted, an order above or below,
a labelled order of the writer's own).  A game fails when its replies read a line (the reader's whole test) more
often than there are distinct lines asked, or when a reading differs from a fresh reader's.  4da2cbd6 fails 12 of
the suite's 12 games and 1,111 of the full 1,200 (`PBEM_PERF33_FULL=1`; any checkout: `PYTHONPATH=CHECKOUT:. python3
tests/test_perf33.py 400`, which counts 400 a seed), this branch 0 and 0.
"""

from __future__ import annotations

import os
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from typing import Any

import pytest

from pbem import engine as registry
from pbem.app import ahead
from pbem.mail.inbound.message import parse
from pbem.mail.outbound.outgoing import REDACTED
from pbem.orders import extract
from pbem.orders.own_mail import without_copies
from tests.growth import step_growth

FULL = os.environ.get("PBEM_PERF33_FULL") == "1"
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"]
WORDS = tuple(registry.get("habsburg").order_words)
_SHARED = [
    'House of Habsburg, game "g{g}": Turn {t}, {a} to play',
    "Deadline: in 2 days, Wed {d} Dec 13:08 UTC.",
    "Legal orders now (copy one per line):",
    "How to write it:",
    "  EVENT CLAIM <card> TARGET <player>",
    "  NO EVENT   (aliases: PASS, NONE)",
    "If no orders arrive by the deadline the published default is applied:",
    "    (default) NO EVENT",
    "Fairness: this game's random seed is fixed and sealed. Its SHA-256 commitment is",
    "  {h}",
    "Every mail about this game is signed with the game's key, fingerprint {f}.",
    "== Players (* = to play) ==",
    "  Discard pile (top first): empty.",
    "  TOP: the top card is not a Holding.",
    "Note: Wahl der Karte, 第三回合, ¿qué?",
]
_OWN = [
    "Asked of you now: Your turn: make any melds, then play one event or NO EVENT.",
    "Private report for {p}. Do not forward it: it holds what only you may know.",
    "Your secret player code is [redacted once sent].",
    "Keep it private: anyone with it and your mailbox could send orders as you.",
    "    EVENT CLAIM Marry Well TARGET {o}",
    "    EVENT PERSON {c}",
    "  Player: {o}",
    "    Seat: {s}; Tokens: {k}; Holdings: 0;",
    "    Score: {k}; Hand: {s}; Melds: -",
    "  {p}, you drew {c} (P{s}).",
]
_CARDS = ["Peter", "Leopold", "King", "Marry Well", "Franz"]


def report(rng: random.Random, game: int, player: str, players: list[str]) -> str:
    """A report as `player` of `game` gets it: paragraphs of lines the game's players share, and of their own."""
    shared = random.Random(game)
    facts = {
        "g": game,
        "t": shared.randrange(1, 30),
        "a": shared.choice(players),
        "d": shared.randrange(1, 29),
        "h": f"{shared.getrandbits(128):032x}",
        "f": f"{shared.getrandbits(40):010x}",
    }
    lines: list[str] = []
    for _ in range(rng.randrange(4, 9)):
        pool = _SHARED if rng.random() < 0.6 else _OWN
        for _ in range(rng.randrange(1, 5)):
            o, c = rng.choice(players), rng.choice(_CARDS)
            lines.append(
                rng.choice(pool).format(p=player, o=o, c=c, s=rng.randrange(1, 7), k=rng.randrange(9), **facts)
            )
        lines.append("")
    return "\n".join(lines)


def reply(rng: random.Random, sent: str) -> str:
    """`sent` answered as a client writes a reply: an order and perhaps a labelled one of the writer's own, then
    an attribution or a header block, and the report quoted (or unquoted under Outlook's block)."""
    own = [rng.choice(["NO EVENT", "EVENT PERSON Peter", "PASS"])]
    if rng.random() < 0.4:
        own.append(rng.choice(["Meine Wahl: NO EVENT", "PS: EVENT CLAIM King TARGET Bob", "Hi all: HELP"]))
    kind = rng.randrange(3)
    if kind == 0:
        head, body = (
            ["On Mon, 5 Jan 2026 at 11:00, Moderator <m@pbem.test> wrote:"],
            [f"> {x}".rstrip() for x in sent.split("\n")],
        )
    elif kind == 1:
        head = [
            "-----Original Message-----",
            "From: Moderator <m@pbem.test>",
            "Sent: Monday",
            "To: you",
            "Subject: Turn",
        ]
        body = sent.split("\n")
    else:
        head, body = ['30.11.2026, 21:08, "pbem" <m@pbem.test>:'], [f">{x}" for x in sent.split("\n")]
    lines = [*own, "", *head, *body] if rng.random() < 0.7 else [*head, *body, "", *own]
    return "\n".join(lines)


def read(text: str, sent: str) -> str:
    """`text` without its copy of `sent`, as `reading.own_text` reads a reply (one answered report)."""
    return without_copies(text, [sent], extract.own_line(WORDS), [sent], [], REDACTED, mine_quoted=True)


@contextmanager
def _asked() -> Iterator[Counter[str]]:
    """Each line the reader's whole test ran on (its first step, `typed.front`, as `extract` calls it), counted."""
    seen: Counter[str] = Counter()
    saved = extract.front

    def front(line: str) -> str:
        seen[line] += 1
        return saved(line)

    extract.front = front  # type: ignore[assignment]
    try:
        yield seen
    finally:
        extract.front = saved  # type: ignore[assignment]


def _forget() -> None:
    """Every reader kept forgotten (a checkout before perf33 keeps none): each game counted from nothing."""
    kept: Any = getattr(extract, "_own_reader", None)
    if kept is not None:
        kept.cache_clear()


def failures(cases: int, seed: int = 33, check: bool = True) -> list[str]:
    """The generated games whose replies ran the reader's test on a line twice, or read a reply otherwise than a
    fresh reader (`check`: this checkout's `_own_line`, none before perf33)."""
    rng = random.Random(seed)
    out = []
    for game in range(cases):
        players = NAMES[: rng.randrange(3, 7)]
        sent = {p: report(rng, game, p, players) for p in players}
        texts = {p: reply(rng, sent[p]) for p in players}
        _forget()
        with _asked() as seen:
            got = {p: read(texts[p], sent[p]) for p in players}
        again = {line: n for line, n in seen.items() if n > 1}
        if again:
            out.append(f"game {game}: {sum(again.values())} readings of {len(again)} lines read more than once")
        if check:
            fresh: Callable[[str], bool] = extract._own_line(WORDS)
            want = {
                p: without_copies(texts[p], [sent[p]], fresh, [sent[p]], [], REDACTED, mine_quoted=True)
                for p in players
            }
            if got != want:
                out.append(f"game {game}: read otherwise than by a fresh reader")
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_line_asked_of_the_reader_is_read_once(seed: int) -> None:
    found = failures(400 if FULL else 4, seed)
    assert not found, found[:3]


def test_the_reader_remembers_at_most_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract, "OWN_ANSWERS", 16)  # the bound read when an answer is kept: a small one tried
    _forget()
    reader = extract._own_reader(WORDS)
    rng = random.Random(7)
    lines = [f"Label {i}: {rng.choice(['NO EVENT', 'x', 'PASS'])}" for i in range(3 * extract.OWN_ANSWERS)]
    long = "Note: " + "x" * extract.OWN_REMEMBERED
    fresh = extract._own_line(WORDS)
    for line in [*lines, long]:
        assert reader(line) == fresh(line), line
        assert len(reader.answers) <= extract.OWN_ANSWERS
    assert long not in reader.answers
    assert extract.own_line(WORDS) is reader and extract.own_line(list(WORDS)) is reader


# The threads ahead (`ahead._warm_code`) looked the sender's seat up for every mail holding the word "code", which
# every reply quoting a report does ("> Your secret player code is ..."); only a line of the writer's own (or the
# subject) can give a CODE (`extract` reads no quoted line), so a reply whose own lines hold no such word is looked
# up no more.  Generated: replies (their quote in every style of ">" prefix, the word in any case) and mails with a
# code of the writer's own ("CODE ...", "code: ...", in the subject, above or below a quote).  A reply looked up, or a
# mail whose code `extract` reads and that is not looked up, fails.  4da2cbd6 fails 22 of the suite's 48 mails and
# 535 of the full 1,200 (the replies whose quote holds the word; half the mails are replies), this branch 0 and 0;
# no mail with a code `extract` reads went unlooked-up on either.
_OWN = ["NO EVENT", "PASS", "Hi all,", "EVENT PERSON Peter", "thanks!", "-- ", "benchmark bot", ""]
_QUOTE = ["> ", ">", "  > ", ">> ", "> > "]
_REPORT = [
    "Your secret player code is [redacted once sent].",
    'Put a line "CODE [redacted once sent]" in a new order message.',
    "Deadline: in 2 days.",
    "CODE K7QX-2MPD",
    "Keep it private: anyone with it and your mailbox could send orders as you.",
]
_CODED = ["CODE K7QX-2MPD", "code: K7QX-2MPD", "Code K7QX-2MPD", "  CODE k7qx-2mpd", "CODE: 'K7QX-2MPD'"]


def mail(rng: random.Random, coded: bool) -> tuple[str, str]:
    """A mail's (subject, text): a reply quoting a report, or (`coded`) one with a code of the writer's own."""
    own = [rng.choice(_OWN) for _ in range(rng.randrange(1, 5))]
    quote = rng.choice(_QUOTE)
    quoted = [quote + rng.choice(_REPORT) for _ in range(rng.randrange(1, 8))]
    subject = "[pbem hh1] orders"
    if coded:
        code = rng.choice(_CODED)
        if rng.random() < 0.2:
            subject += f" code {code.split()[-1]}"
        else:
            own.insert(rng.randrange(len(own) + 1), code)
    lines = [*own, "", "On Mon, the moderator wrote:", *quoted] if rng.random() < 0.7 else [*quoted, "", *own]
    text = "\n".join(line.upper() if rng.random() < 0.1 else line for line in lines)
    return subject, text.replace("\n", "\r\n") if rng.random() < 0.3 else text


def looked_up(cases: int, seed: int = 33) -> list[str]:
    """The generated replies whose seat the threads ahead looked up, and the mails with a code `extract` reads that
    they did not (`ahead._warm_code`'s look-up counted, answering "no seat")."""
    rng = random.Random(seed)
    asked: list[str] = []
    saved = ahead.seat_code

    def seat_code(url: str, game: str, address: str) -> None:
        asked.append(address)

    ahead.seat_code = seat_code  # type: ignore[assignment]
    out = []
    try:
        for i in range(cases):
            coded = i % 2 == 1
            subject, text = mail(rng, coded)
            msg = parse(_raw(subject, text), "moderator@pbem.test")
            asked.clear()
            ahead._warm_code(_HOME, msg)  # type: ignore[arg-type]
            reads = bool(extract.extract(msg.text, msg.subject, ()).code)
            if asked and not reads and not coded:
                out.append(f"mail {i}: a reply looked up: {text[:60]!r}")
            if reads and not asked:
                out.append(f"mail {i}: a code not looked up: {subject!r} {text[:60]!r}")
    finally:
        ahead.seat_code = saved  # type: ignore[assignment]
    return out


def _raw(subject: str, text: str) -> bytes:
    """A player's mail to the moderator (as `tests.conftest.order_mail` writes one)."""
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "Alice <alice@players.test>", "moderator@pbem.test", subject
    msg["Message-ID"] = "<m1@players.test>"
    msg.set_content(text)
    return msg.as_bytes()


class _Home:
    """What `_warm_code` reads of a home before its look-up: the record's address."""

    class cfg:
        database_url = "sqlite:///unused"


_HOME = _Home()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_reply_whose_own_lines_name_no_code_is_not_looked_up_ahead(seed: int) -> None:
    found = looked_up(1200 // 3 if FULL else 16, seed)
    assert not found, found[:3]


def test_the_writers_code_word_is_found_in_steps_linear_in_the_quoted_lines() -> None:
    """Each quoted line holding the word is stepped over once: four times the lines, four times the steps."""

    def work(k: int) -> Callable[[], object]:
        text = "PASS\n" + "> Your secret player code is [redacted once sent]. code code\n" * k
        return lambda: ahead.writers_code_word(text)

    g = step_growth(work, 200)
    assert g.ratio <= 4.2, str(g)
    assert ahead.writers_code_word("> quoted code\nmy CODE K7QX-2MPD") and not ahead.writers_code_word("> code\n >code")


# A picture's cards: each laid out (`phone.fits`: two words' widths a card) once for the picture's height and again
# drawing it, in every report, though a game's cards are few.  Generated: hands and melds of House of Habsburg's
# cards, laid out as two pictures of them are (`phone.cards`, no canvas, twice each).  A case fails when a card
# already laid out at its width has its words measured again.  4da2cbd6 fails 12 of the suite's 12 and 1,200 of the
# full 1,200, this branch 0 and 0.


def measured_again(cases: int, seed: int = 33) -> list[str]:
    """The generated hands whose second layout measured a word's width (`phone.width_of`) again."""
    from pbem.engine.habsburg.cards import TYPE
    from pbem.render.pictures import habsburg, phone

    rng = random.Random(seed)
    names = sorted(TYPE)
    widths: list[str] = []
    saved = phone.width_of

    def width_of(words: str, size: int) -> float:
        widths.append(words)
        return saved(words, size)

    phone.width_of = width_of  # type: ignore[assignment]
    out = []
    try:
        for i in range(cases):
            hand = [habsburg._card(rng.choice(names)) for _ in range(rng.randrange(1, 12))]
            phone.cards(None, 10, 30, phone.W - 20, hand)
            widths.clear()
            for _ in range(3):  # the second picture's height and drawing, a third picture's height
                phone.cards(None, 10, 30, phone.W - 20, hand)
            if widths:
                out.append(f"hand {i}: {len(widths)} widths measured again")
    finally:
        phone.width_of = saved  # type: ignore[assignment]
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_card_laid_out_once_is_not_measured_again(seed: int) -> None:
    found = measured_again(400 if FULL else 4, seed)
    assert not found, found[:3]


if __name__ == "__main__":  # the count with any checkout's pbem: PYTHONPATH=CHECKOUT:. python3 tests/test_perf33.py 400
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    found = [f for seed in (1, 2, 3) for f in failures(n, seed, check=hasattr(extract, "_own_line"))]
    print(f"{len(found)} failures in {3 * n} games", *found[:5], sep="\n")
    found = [f for seed in (1, 2, 3) for f in looked_up(n, seed)]
    print(f"{len(found)} failures in {3 * n} mails", *found[:5], sep="\n")
    found = [f for seed in (1, 2, 3) for f in measured_again(n, seed)]
    print(f"{len(found)} failures in {3 * n} hands", *found[:5], sep="\n")
