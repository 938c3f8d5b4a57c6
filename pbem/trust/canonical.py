"""Canonical JSON (RFC 8785) for the hashes, and the strict reader every export goes through.

`canonical` is the JSON Canonicalization Scheme of RFC 8785 (the `rfc8785`
package): sorted keys by UTF-16 code units, no spaces, the shortest number
forms, UTF-8.  So a verifier in any language that implements RFC 8785
computes the same chain hashes.  For every entry pbem has ever chained
(integers, strings, lists, objects with ASCII keys) its bytes equal those of
the earlier ``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)``,
so the hashes of existing exports still hold and the format version stays 1.

`load_export` reads an export's text and refuses, in one sentence, anything a
reader in another language could read differently or that costs more than its
size: text over `MAX_BYTES`, nesting deeper than `MAX_DEPTH`, more than `MAX_VALUES` values, a key given twice
in one object, NaN or Infinity, numbers outside the range RFC 8785 (IEEE 754
doubles) can write exactly.  The depth is measured before parsing (and the values counted), in C
(`measured`), so a thousand nested lists cost a few passes over their brackets, not a traceback.
"""

from __future__ import annotations

import json
import re
from array import array
from itertools import accumulate
from typing import Any

import rfc8785

MAX_BYTES = 64 * 1024 * 1024  # an export of a long game is a few MB
MAX_DEPTH = 32  # an export nests 7 levels deep; event data a few more
MAX_INT = 2**53 - 1  # RFC 8785 writes numbers as IEEE 754 doubles
#: values (objects, lists, strings, numbers) of one export: pbem's take 22 to 25 bytes each (the four seeded games), so
#: one at `MAX_BYTES` holds some 3 million.  64 MiB of `{},` held 1.6 GB once read (each empty object 64 bytes, 25
#: times its text; 15 MB 392 MB); at this cap such a text holds some 300 MB (costs22)
MAX_VALUES = 4_000_000


class BadJson(ValueError):
    """The text is not an export pbem reads; the message says why in one sentence."""


#: Writes what `rfc8785` writes for a value `_plain` accepts, in C: the same separators, keys in code-point order
#: (equal to UTF-16 order for keys without characters beyond U+FFFF), the same escapes (the two characters and
#: C0 controls, as \\u00xx in lower case), integers as digits.
_FAST = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False, check_circular=False
)


def _plain(value: Any) -> bool:
    """True if `value` holds only None, booleans, strings, integers RFC 8785 writes exactly, lists, tuples and
    objects with string keys of the Basic Multilingual Plane: what every chained entry and signed receipt is.
    Floats, big integers, other types and other keys go the `rfc8785` way (which writes or refuses them)."""
    t = type(value)
    if t is str or t is bool or value is None:
        return True
    if t is int:
        return bool(-MAX_INT <= value <= MAX_INT)
    if t is list or t is tuple:
        return all(_plain(v) for v in value)
    if t is dict:
        return all(type(k) is str and (k.isascii() or max(k) <= "\uffff") and _plain(v) for k, v in value.items())
    return False


def canonical(value: Any) -> bytes:
    """The RFC 8785 canonical UTF-8 bytes of `value` (written by the standard library's C encoder when that
    gives the same bytes, `_plain`: the hash chain canonicalizes every entry it links, issue 27)."""
    if _plain(value):
        try:
            return _FAST.encode(value).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: rfc8785 refuses it, below
            pass
    try:
        return rfc8785.dumps(value)
    except rfc8785.CanonicalizationError as exc:
        raise BadJson(f"the value cannot be written canonically (RFC 8785): {exc}") from None


def depth_of(text: str) -> int:
    """The deepest nesting of [ and { in JSON `text`, outside strings (one pass)."""
    return measured(text)[0]


#: a string of the text as the JSON grammar reads it (a backslash takes the character after it), possessive (no
#: backtracking): what `measured` removes in C before it counts the structure left
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.S)
#: what of a text from where it starts outside a string is whole strings and what lies between them: it stops at a
#: quote whose string does not close (where it is matched to)
_CLOSED = re.compile(r'(?:[^"]*+"[^"\\]*+(?:\\.[^"\\]*+)*+")*+[^"]*+', re.S)
_LEVELS = bytes.maketrans(b"[{]}", b"(())")
_NOT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
_SIGNS = bytes.maketrans(b"()", b"\x01\xff")  # as signed bytes: +1 and -1
_RUN = re.compile(rb"\(+|\)+")


def measured(text: str) -> tuple[int, int]:
    """(the deepest nesting of [ and {, the values at most) of JSON `text`, outside strings: a value is counted at
    each [, { and comma (one more than the values of a valid text, never fewer).  On 90a53973 one pass of Python over
    every character (costs22); now in C (costs23): the strings removed by one regex (a string left open takes the
    rest of the text, as the pass had it), the structure counted by `str.count`, and the nesting read from the
    brackets alone (`_deepest`).  The values are exactly what the pass counted, for any text (so no text of more
    passes to the parser, which holds 25 times the text of `{},`); the nesting too wherever the brackets pair, as in
    every JSON text: where they do not (no JSON, refused either way) it may be more than the pass's, never less
    (a pass of peeling lowers the highest level by one at most).  The text is taken a `PIECE` at a time
    (`_structure`): what is held is a piece and the brackets.  `tests/reliability/test_costs23_measured.py`
    compares both on generated texts."""
    values, at = 1, 0
    brackets: list[bytes] = []
    while at < len(text) or not brackets:
        end, rest = _structure(text, at)
        values += rest.count(",") + rest.count("[") + rest.count("{")
        brackets.append(rest.encode("ascii", "ignore").translate(_LEVELS, _NOT_BRACKETS))  # (no bracket beyond ASCII)
        at = end
    return _deepest(b"".join(brackets)), values


#: characters of the text `measured` takes at once (a piece held while its strings are removed, not the whole text)
PIECE = 1 << 20


def _structure(text: str, at: int) -> tuple[int, str]:
    """(where the piece ends, the piece without its strings) of `text` from `at`, outside a string: a piece ends
    outside a string, else it is taken on to its next quote (the string cut may end there), once, then to the end of
    the text, where a string never closed takes the rest.  Where the strings close is found by one possessive match
    resumed where it stopped (`_CLOSED`), so the regex that removes them meets only strings that close: one left
    open made every quote inside it a start that was read to the end of the text (a square)."""
    end, closed = min(at + PIECE, len(text)), at
    for tries in range(3):
        whole = _CLOSED.match(text, closed, end)
        closed = whole.end() if whole else closed  # (it matches wherever it starts)
        if closed == end or end == len(text):
            break
        end = (text.find('"', end) + 1 or len(text)) if tries == 0 else len(text)
    if closed == end:
        return end, _STRING.sub("", text[at:end])
    return len(text), _STRING.sub("", text[at:closed])  # a string never closed: the rest of the text is in it


def _deepest(pairs: bytes) -> int:
    """The highest level `pairs` (of "(" and ")") reaches from 0: the innermost pairs taken away while that halves
    what is left (each pass lowers a nesting that pairs by one), then the level counted over the rest: a
    step of Python a run where the runs are long (64 MiB nested 32 million deep: two runs), else in C
    (`itertools.accumulate`, about 27 ns a bracket: those 64 MiB 1.7 s)."""
    peeled = 0
    while pairs and 4 * pairs.count(b"()") >= len(pairs):
        pairs = pairs.replace(b"()", b"")
        peeled += 1
    if not pairs:
        return peeled
    if 64 * (pairs.count(b"()") + pairs.count(b")(") + 1) > len(pairs):
        return peeled + max(accumulate(array("b", pairs.translate(_SIGNS)), initial=0))
    level = deepest = 0  # runs 64 brackets long or more: a step of Python a run
    for run in _RUN.finditer(pairs):
        level += len(run[0]) if run[0][0] == ord("(") else -len(run[0])
        deepest = max(deepest, level)
    return peeled + deepest


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise BadJson(f"the key {key!r} appears twice in one object (readers would disagree on its value)")
        out[key] = value
    return out


def _constant(name: str) -> Any:
    raise BadJson(f"{name} is not a JSON number")


def _int(text: str) -> int:
    if len(text) > 17 or abs(int(text)) > MAX_INT:
        raise BadJson(f"the number {text[:20]} is outside the range RFC 8785 writes exactly (±2^53-1)")
    return int(text)


def load_export(text: str | bytes) -> Any:
    """Parse an export strictly (see the module docstring); raises BadJson with one sentence."""
    if len(text) > MAX_BYTES:
        raise BadJson(f"the export is {len(text)} bytes, more than the {MAX_BYTES} pbem reads")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadJson(f"the export is not UTF-8 text (byte {exc.start})") from None
    depth, values = measured(text)
    if depth > MAX_DEPTH:
        raise BadJson(f"the export nests {depth} levels deep, more than the {MAX_DEPTH} an export can need")
    if values > MAX_VALUES:
        raise BadJson(f"the export holds {values:,} values, more than the {MAX_VALUES:,} an export can need")
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant, parse_int=_int)
    except BadJson:
        raise
    except (ValueError, RecursionError) as exc:
        raise BadJson(f"the export is not valid JSON: {exc}") from None
