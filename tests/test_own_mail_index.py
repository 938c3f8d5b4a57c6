"""`pbem.orders.own_mail._SentIndex` (each sent word's places, a chain followed word by word) finds what `_places`
(every run of the sent mails joined and hashed, the chain followed run by run) finds: the same places for every run
of the reply, and the same chains, on generated replies made of pieces of generated sent mails (repetitive ones
too: runs found at many places, in both texts) with words changed, dropped and typed between; and a sent mail with
a word at more than `PLACES` places goes the old way."""

from __future__ import annotations

import random

import pytest

from pbem.orders.own_mail import (
    GRAM,
    PLACES,
    _chains,
    _Costly,
    _found_at,
    _places,
    _SentIndex,
    _words,
    without_copies,
)

VOCABULARY = ["play", "gold", "7", "no", "event", "the", "a", "tribute", "copper", "pass", "vote", "red", "x", "é"]


def _text(rng: random.Random, n: int, words: list[str]) -> str:
    """`n` words of `words`, on lines of 1 to 12 words, some with quote marks and punctuation."""
    lines, out = [], []
    for w in rng.choices(words, k=n):
        out.append(w.upper() if rng.random() < 0.2 else w)
        if rng.random() < 0.15:
            lines.append(rng.choice(["", "> ", "- "]) + " ".join(out) + rng.choice(["", ".", ":"]))
            out = []
    return "\n".join([*lines, " ".join(out)])


def _reply(rng: random.Random, sent: list[str]) -> str:
    """Pieces of the sent texts, some changed, with the writer's words between."""
    pieces = []
    for _ in range(rng.randint(0, 6)):
        if rng.random() < 0.3:
            pieces.append(_text(rng, rng.randint(1, 20), VOCABULARY))
            continue
        lines = rng.choice(sent).split("\n")
        a = rng.randrange(len(lines))
        part = lines[a : a + rng.randint(1, 40)]
        if part and rng.random() < 0.4:
            k = rng.randrange(len(part))
            part[k] = rng.choice(["", part[k] + " " + rng.choice(VOCABULARY), " ".join(part[k].split()[1:])])
        pieces.append("\n".join(("> " if rng.random() < 0.5 else "") + line for line in part))
    return "\n".join(pieces)


def _same(sent: list[str], reply: str) -> bool:
    """Whether the index found the chains itself (else it tried too many places, `_Costly`)."""
    stream = _words(reply)
    old, new = _found_at(_places(sent), stream), _SentIndex(sent).found_at(stream)
    assert len(old) == len(new)
    assert [old[i] for i in range(len(old))] == [new[i] for i in range(len(new))]
    new.budget = len(stream) * len(new.sent.words)  # every place tried
    assert list(old.chains()) == list(new.chains())
    return _by_index(sent, stream)


def _by_index(sent: list[str], stream: list[str]) -> bool:
    try:
        list(_SentIndex(sent).found_at(stream).chains())
    except _Costly:
        return False
    return True


def test_the_index_finds_the_places_and_chains_of_every_run() -> None:
    rng = random.Random(27)
    indexed = 0
    for case in range(400):
        vocabulary = VOCABULARY[: rng.randint(2, len(VOCABULARY))]  # few words: runs found at many places
        sent = [_text(rng, rng.randint(0, 120), vocabulary) for _ in range(rng.randint(1, 3))]
        index = _SentIndex(sent)
        assert index.plain, case
        if not index.runs:
            continue
        indexed += _same(sent, _reply(rng, sent))
    assert indexed > 300, indexed  # few replies try too many places, even of a sent mail of five words


def test_a_word_at_more_places_than_remembered_goes_the_old_way() -> None:
    sent = [" ".join(["pass"] * (PLACES + GRAM + 3)), "play gold 7 no event now and then"]
    assert not _SentIndex(sent).plain
    # as 10a295e read them: a run's places remembered are its first PLACES, so the long line's chain breaks
    reply = "PLAY Gold 7\n\n> " + "\n> ".join(sent)
    assert without_copies(reply, sent) == reply
    reply = "PLAY Gold 7\n\n> play gold 7 no event now and then\n" + " ".join(["pass"] * 40)
    assert without_copies(reply, sent) == "PLAY Gold 7\n\n> play gold 7 no event now and then"


def test_a_reply_that_would_try_too_many_places_goes_the_old_way() -> None:
    """A reply of a word the sent mails have at many places ("the the the ..."), each run tried at all of them,
    cost several times the old way's look-up a word; past `WORK` look-ups a word the chains are found by every run."""
    sent = [" ".join(["the", "x" + str(k)]) for k in range(300)]
    sent = ["\n".join(sent), "the end of the mail and more"]
    stream = ["the"] * 5000
    found_at = _SentIndex(sent).found_at(stream)
    with pytest.raises(_Costly):
        list(found_at.chains())
    assert _chains(_SentIndex(sent), sent, stream)[1] == list(_found_at(_places(sent), stream).chains())
    reply = "\n".join(["the the the the"] * 100 + ["> the end of the mail and more"])
    assert without_copies(reply, sent) == reply
