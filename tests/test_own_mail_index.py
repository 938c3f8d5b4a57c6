"""`pbem.orders.own_mail._SentIndex` (each sent word's places, a chain followed word by word) finds what `_places`
(every run of the sent mails joined and hashed, the chain followed run by run) finds: the same places for every run
of the reply, and the same chains, on generated replies made of pieces of generated sent mails (repetitive ones
too: runs found at many places, in both texts) with words changed, dropped and typed between; and a sent mail with
a word at more than `PLACES` places goes the old way."""

from __future__ import annotations

import random

from pbem.orders.own_mail import GRAM, PLACES, _found_at, _places, _SentIndex, _words, without_copies

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


def _same(sent: list[str], reply: str) -> None:
    stream = _words(reply)
    old, new = _found_at(_places(sent), stream), _SentIndex(sent).found_at(stream)
    assert len(old) == len(new)
    assert [old[i] for i in range(len(old))] == [new[i] for i in range(len(new))]
    assert list(old.chains()) == list(new.chains())


def test_the_index_finds_the_places_and_chains_of_every_run() -> None:
    rng = random.Random(27)
    for case in range(400):
        vocabulary = VOCABULARY[: rng.randint(2, len(VOCABULARY))]  # few words: runs found at many places
        sent = [_text(rng, rng.randint(0, 120), vocabulary) for _ in range(rng.randint(1, 3))]
        index = _SentIndex(sent)
        assert index.plain, case
        if not index.runs:
            continue
        _same(sent, _reply(rng, sent))


def test_a_word_at_more_places_than_remembered_goes_the_old_way() -> None:
    sent = [" ".join(["pass"] * (PLACES + GRAM + 3)), "play gold 7 no event now and then"]
    assert not _SentIndex(sent).plain
    # as 10a295e read them: a run's places remembered are its first PLACES, so the long line's chain breaks
    reply = "PLAY Gold 7\n\n> " + "\n> ".join(sent)
    assert without_copies(reply, sent) == reply
    reply = "PLAY Gold 7\n\n> play gold 7 no event now and then\n" + " ".join(["pass"] * 40)
    assert without_copies(reply, sent) == "PLAY Gold 7\n\n> play gold 7 no event now and then"
