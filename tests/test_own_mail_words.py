"""`pbem.orders.own_mail._words` (a byte table for ASCII, whitespace tokens otherwise) finds exactly the words
the regex `\\w+` finds in the case-folded text: on generated text, and on every character of Unicode between
ASCII words."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pbem.orders.own_mail import _each_lines_words, _words

WORD = re.compile(r"\w+")
MIXED = st.lists(st.sampled_from(["a", "Z", "_", "0", "ß", "İ", "ǅ", "\u0300", "\ufb01", "\u0661", "\u00b2", "\u00bd", " ", "\t", "\n",
                                  "\u00a0", "\u2028", "\u3000", ".", "\u2014", "\u201c", "\u00e9", "\x00", "\x1c"]), max_size=40)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), MIXED.map("".join)))
def test_words_are_the_regexs_words_of_the_case_folded_text(text: str) -> None:
    assert _words(text) == WORD.findall(text.casefold())


def test_every_character_of_unicode_splits_or_joins_words_as_the_regex_does() -> None:
    chars = [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF]
    for i in range(0, len(chars), 512):
        text = "x".join(chars[i : i + 512]) + " ab-c_d e"
        assert _words(text) == WORD.findall(text.casefold()), i


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["a", "É", "“", "\ud800", "\udcff", " ", "-", "ß", "7"]), max_size=30).map("".join))
def test_a_lone_surrogate_is_no_word_and_parts_words_as_the_regex_does(text: str) -> None:
    """A mail decoded with `surrogateescape` keeps the bytes it could not read as lone surrogates: the non-ASCII
    path reads them through UTF-8 (`surrogatepass`), and they part words as the regex's `\\w` does."""
    assert _words(text) == WORD.findall(text.casefold())


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.one_of(st.text(alphabet=st.characters(max_codepoint=127, exclude_characters="\n")), MIXED.map("".join)))
)
def test_each_lines_words_are_its_words_read_one_line_at_a_time(lines: list[str]) -> None:
    """An ASCII reply's lines are read in one pass (`_each_lines_words`): the same words as line by line."""
    lines = [line.replace("\n", " ") for line in lines]
    assert _each_lines_words(lines) == [_words(line) for line in lines]


#: Characters that part words (no letter nor digit), for `test_..._linear_in_its_size`.
PARTING_CHARS = [chr(c) for c in range(0x2000, 0xD800) if not chr(c).isalnum()]


def test_a_text_of_many_distinct_characters_that_part_words_costs_time_linear_in_its_size() -> None:
    """Each distinct non-ASCII character that parts words is replaced in a pass of its own, `PARTING` of them at
    most: with a pass for each, a text of k characters and k / 4 distinct ones read 12 times slower at 4x."""
    from tests.growth import growth

    def work(k: int) -> Callable[[], object]:
        text = "".join(PARTING_CHARS[i % (k // 4)] + "ab" for i in range(k))
        return lambda: _words(text)

    g = growth(work, 4_000, bound=8.0, floor=5e-4)
    assert g.ratio <= 8.0, str(g)


# `extract.own_line`: its quick test (a regex over the first words) never says "not the writer's" of a line the
# whole reading would keep, on lines built from every game's order words, command words, labels and markers.
from pbem.orders.extract import (  # noqa: E402
    CONTROL_WORDS,
    _control,
    _labelled_by_other,
    _opened,
    _opened_command,
    _strip_comment,
    all_order_words,
    is_order,
    labelled_order,
    opened_command,
    own_line,
    undoubled,
)
from pbem.orders.typed import cleaned  # noqa: E402

PIECES = st.sampled_from(
    [*all_order_words(), *CONTROL_WORDS, "From", "Note", "Sent", "wrote", "Franz", "7", "no", "event", "PS",
     "increase_army", "Increase-Army", "差出人", "Từ", "#", "*", "•", "1.", "-", ">", "(", ")", "'", "“",
     # what `typed.cleaned` takes off a line's start: markers (one ran the first words past the quick test's three:
     # " 1. 1. 1. ACCEPT"), ticks, emoji, full-width letters typed on Japanese phones
     # labels the writer names their order with (players11): a postscript, a label in another language
     "P.S.", "PPS", "Decision", "Meine", "Wahl", "La", "mia", "scelta", "Mon", "choix", "-",
     # greetings and connectives before a command (replies21), a player's name as a label
     "Hi", "Hallo", "zusammen", "Also", ",", "Bob",
     "[x]", "[my answer is]", "a)", "(2)", "x", "✓", "👉", "->", "**", "\uff2e\uff2f", "\uff25\uff36\uff25\uff2e\uff34", "\uff30\uff21\uff33\uff33", "\uff11.", "「"]
)  # fmt: skip


def _whole(line: str, words: tuple[str, ...]) -> bool:
    """The whole reading: an order or a command once cleaned, an order typed twice on the line, or a labelled one
    ("PS ACCEPT": a postscript's, read since 69018ba, which this reading did not know and failed on), a label naming
    someone ("Meine: ACCEPT": told, `_labelled_by_other`) or a command after a greeting (`opened_command`)."""
    typed = _strip_comment(line)
    bare = undoubled((cleaned(typed) or typed).replace(":", " ", 1).replace("\uff1a", " ", 1), words)
    base = cleaned(typed) or typed
    told = _labelled_by_other(base, words) or opened_command(base)  # "Bob: ACCEPT", "Hi, HELP" (replies21)
    # "Hello everyone and good luck: ACCEPT", "Hi, Help" (players22): told, so kept above a quote
    told = told or _opened(base, words) or _opened_command(base)
    return bool(typed) and (
        is_order(bare, words) or _control(bare) is not None or bool(labelled_order(typed, words)) or bool(told)
    )


@settings(max_examples=400, deadline=None)
@example(["La", "mia", "scelta", "ACCEPT"], ":", 3, str.title)  # three words of label: the quick test read three words
@example(["PS", "ACCEPT"], "", 0, str.upper)  # a postscript's label (players11) was kept, not in the whole reading
@example(["From", "P.S.", "P.S.", "ACCEPT"], ":", 1, str.upper)  # labels past the 4th token (make fuzz found it)
@example(["Hi", "ACCEPT", "ACCEPT", "Hi", "-", "ACCEPT"], ":", 3, str.upper)  # a greeting's rest, told (players22)
@given(
    st.lists(PIECES, min_size=1, max_size=6),
    st.sampled_from(["", ":", "\uff1a", " :"]),
    st.integers(0, 3),
    st.sampled_from([str.upper, str.lower, str.title]),
)
def test_own_lines_quick_test_agrees_with_the_whole_reading(pieces, colon, at, case) -> None:
    words = all_order_words()
    line = case(" ".join(pieces[:at]) + colon + " " + " ".join(pieces[at:]))
    assert own_line(words)(line) == _whole(line, words), line
