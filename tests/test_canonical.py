"""`pbem.trust.canonical.canonical` writes RFC 8785 bytes: its fast path (the standard library's C encoder, for
the plain values every chained entry and receipt is) gives exactly the bytes of the `rfc8785` package, and a
value it cannot write canonically is refused the same way, on generated values of every JSON shape, with the
keys and strings where the two could differ (characters beyond U+FFFF, U+E000-U+FFFF, controls, surrogates)."""

from __future__ import annotations

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.trust.canonical import MAX_INT, BadJson, _plain, canonical

TRICKY = st.sampled_from(["\x00", "\x1f", "\x7f", '"', "\\", "\b", "\f", "\n", "\r", "\t", "\u2028", "\ud800",
                          "\ue000", "\uffff", "\U0001f600", "é", "a", "Z", "0", " "])  # fmt: skip
TEXT = st.one_of(st.text(), st.lists(TRICKY, max_size=6).map("".join))
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-MAX_INT - 2, MAX_INT + 2),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.tuples(inner, inner), st.dictionaries(TEXT, inner, max_size=5)
    ),
    max_leaves=30,
)


def _reference(value: object) -> bytes | type:
    try:
        return rfc8785.dumps(value)  # type: ignore[arg-type]
    except rfc8785.CanonicalizationError:
        return BadJson
    except UnicodeEncodeError:  # the package's own failure on a surrogate key: canonical() lets it through too
        return UnicodeEncodeError


def _ours(value: object) -> bytes | type:
    try:
        return canonical(value)
    except BadJson:
        return BadJson
    except UnicodeEncodeError:
        return UnicodeEncodeError


@settings(max_examples=200, deadline=None)
@given(VALUES)
def test_canonical_equals_the_rfc8785_package_on_every_value(value: object) -> None:
    assert _ours(value) == _reference(value)


@pytest.mark.parametrize(
    "value",
    [
        {"\U0001f600": 1, "\uffff": 2},  # UTF-16 order differs from code-point order here
        {"b": [1, "x\n\u2028"], "a": {"é": None, "": True}},
        [MAX_INT, -MAX_INT, "\x00\x1f\x7f"],
    ],
)
def test_the_keys_and_strings_where_the_encoders_could_differ(value: object) -> None:
    assert canonical(value) == rfc8785.dumps(value)  # type: ignore[arg-type]


def test_the_fast_path_takes_the_chained_entries_and_leaves_the_rest() -> None:
    entry = {"seq": 7, "kind": "input", "player": "Alice", "lines": ["MELD x"], "data": {"ok": True, "n": None}}
    assert _plain(entry) and _plain(("a", [1]))
    for other in (1.5, MAX_INT + 1, {1: "x"}, {"\U0001f600": 1}, b"x", {"a": {1, 2}}):
        assert not _plain(other), other
    with pytest.raises(BadJson):
        canonical("\ud800")
