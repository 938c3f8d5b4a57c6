"""What the last sessions added to the reading of a mail, at n and 4n: all sound on 10a295e (costs14).

Counted, not timed, where a count exists:
* `pbem.orders.near` (players16: a line one typo from a legal order, or its words reordered): a mail of 300 and
  1,200 lines near Habsburg's orders made 192 letter-by-letter comparisons and 2 of the engine's `apply` both
  times (`CHATTER` lines looked at, `SEEMING` told, `LEGAL` orders compared each); a step of 400 or 1,600 legal
  orders, 400 comparisons a line; a line of 100,000 characters none.
* `extract.sentence` (players15: openers taken off in turn): at most `SENTENCE_OPENERS` matches a line.
* `furniture._signature_end` (players15: the quote under a "-- " signature): at most `SIGNATURE_LINES` lines
  looked at for each signature, each line by at most that many: signatures of eleven lines above quotes, 551 and
  2,201 looks for 751 and 3,001 lines; 12 for a mail of 51 or 201 separators.
* the HTML reading's colour counting (`html_to_text`) on quotes nested 500 and 2,000 deep, a coloured line in
  each, and a whole mail's odd shapes (100,000 tiny parts, 10,000 headers, a header of 1 MB, a References of
  100,000 ids, base64 with garbage, quoted-printable of one 10 MB line), timed with `tests.growth`: linear, each
  cut at its cap (`MAX_PARTS`, `MAX_BODY_CHARS`, the 4 MiB + 1 fetched of any mail) and told.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from pbem import engine as registry
from pbem.app import lines
from pbem.mail.inbound.message import html_to_text, parse
from pbem.orders import extract, furniture, near
from tests.growth import growth


class _Count:
    def __init__(self) -> None:
        self.n = 0

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any) -> Any:
            self.n += 1
            return fn(*args)

        return counted


@pytest.fixture(scope="module")
def habsburg() -> tuple[Any, dict[str, Any], str, tuple[str, ...]]:
    eng = registry.get("habsburg")
    state, _ = eng.setup(["Alice", "Bob", "Carol"], "ab" * 16, {})
    (asked,) = eng.requests(state)
    return eng, state, asked.player, asked.legal


def test_lines_near_orders_cost_the_same_however_many(habsburg, monkeypatch) -> None:
    eng, state, player, legal = habsburg
    compared, applied = _Count(), _Count()
    monkeypatch.setattr(near, "one_off", compared.wrap(near.one_off))

    class Counted:
        order_words = eng.order_words
        requests = staticmethod(eng.requests)
        apply = staticmethod(applied.wrap(eng.apply))

    def counts(n: int) -> tuple[int, int]:
        compared.n = applied.n = 0
        typed = [o.replace("EVENT", "EVNET").replace("PERSON", "PERSNO") for o in legal]  # "NO EVNET" ...
        ex = extract.extract("\n".join(typed * n), order_words=eng.order_words)
        told = lines.seeming_told(Counted(), state, player, ex)
        assert any("write it as: NO EVENT" in p for p in told.problems), told.problems
        return compared.n, applied.n

    assert counts(75) == counts(300), "a mail of lines near orders: comparisons and engine calls"


def test_a_step_of_many_legal_orders_and_a_long_line_cost_their_caps(monkeypatch) -> None:
    compared = _Count()
    monkeypatch.setattr(near, "one_off", compared.wrap(near.one_off))
    for n in (400, 1_600):
        compared.n = 0
        many = [f"PLAY Card{i} Silver {i}" for i in range(n)]
        assert near.nearest("PLY Card7 Silver 7", many) == "PLAY Card7 Silver 7"
        assert compared.n == near.LEGAL, (n, compared.n)
    compared.n = 0
    assert near.nearest("PLAY " * 20_000, many) == "" and compared.n == 0
    assert near.tries("PLAY " * 20_000, ("PLAY",)) and compared.n <= near.LONGEST


def test_openers_are_taken_off_a_few_times_a_line(monkeypatch) -> None:
    matched = _Count()

    class Pattern:
        match = staticmethod(matched.wrap(extract._SENTENCE.match))

    monkeypatch.setattr(extract, "_SENTENCE", Pattern)
    for n in (50, 200):
        matched.n = 0
        text = "\n".join(["ok ok ok ok ok I'll go with please hi " + "x " * 5, "ok " * 100 + "PASS"] * n)
        extract.extract(text, order_words=("PASS", "VOTE"))
        assert matched.n <= extract.SENTENCE_OPENERS * 2 * n, (n, matched.n)


SIGNED = {
    "signatures above quotes": lambda n: ("-- \nAlice\n> q\n> q\n> q\nPASS\n") * n,
    "signatures of eleven lines": lambda n: ("-- \n" + "x\n" * 11 + "> a\n> b\n> c\n") * n,
    "separators": lambda n: "-- \n" * n + "PASS",
    "separators and quotes": lambda n: "-- \n> a\n" * n + "PASS",
}


@pytest.mark.parametrize("shape", SIGNED)
def test_a_signatures_end_is_looked_for_a_few_lines_a_line(shape: str, monkeypatch) -> None:
    looked = _Count()
    monkeypatch.setattr(furniture, "attribution_at", looked.wrap(furniture.attribution_at))
    for n in (50, 200):
        looked.n = 0
        text = SIGNED[shape](n)
        furniture.own_lines(text)
        assert looked.n <= furniture.SIGNATURE_LINES * (text.count("\n") + 1), (shape, n, looked.n)


def test_coloured_lines_in_deep_quotes_are_read_in_linear_time() -> None:
    def work(n: int) -> Any:
        deep = "<blockquote>" * n + "<span style='color:red'>PASS</span><br>" * n + "</blockquote>" * n
        wide = "<blockquote>" + "<p><font color=red>" * 8 + "VOTE red" + "</font></p>" * 8 + "</blockquote>"
        marked = ("<b>" * 64 + "<mark>x</mark>" + "</b>" * 64 + "<br>") * (n // 10)
        return lambda: (html_to_text(deep), html_to_text(wide * n), html_to_text(marked))

    g = growth(work, 100, bound=7)
    assert g.ratio <= 7, f"coloured lines in quotes nested 100 and 400 deep: {g}"


HEAD = "From: a@b.c\r\nTo: m@p.t\r\nSubject: x\r\nMessage-ID: <x@b.c>\r\nMIME-Version: 1.0\r\n"
_ids = itertools.count()


def _shapes(size: int) -> dict[str, bytes]:
    parts = "".join("--b\r\nContent-Type: text/plain\r\n\r\nx\r\n" for _ in range(size // 40))
    b64 = "Content-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n"
    qp = "Content-Type: text/plain\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nPASS=0A"
    shapes = {
        "tiny parts": f'Content-Type: multipart/mixed; boundary="b"\r\n\r\n{parts}--b--\r\n',
        "headers": "".join(f"X-H{i}: v\r\n" for i in range(size // 12)) + "\r\nPASS\r\n",
        "a header line": "X-Long: " + "a" * size + "\r\n\r\nPASS\r\n",
        "references": "References: " + " ".join(f"<{i}@x>" for i in range(size // 8)) + "\r\n\r\nPASS\r\n",
        "base64 garbage": b64 + "UEFTUw==!!*&^%\r\n" * (size // 16),
        "quoted-printable line": qp + "=3D" * (size // 3),
    }
    return {k: (HEAD + v).encode() for k, v in shapes.items()}


def test_a_whole_mails_shapes_are_read_in_linear_time_each_cut_and_told() -> None:
    shapes = _shapes(240_000)
    told = {k: parse(raw).problem for k, raw in shapes.items() if k in ("tiny parts", "quoted-printable line")}
    assert "more than 1000 parts" in str(told.pop("tiny parts"))
    assert "orders must fit in" in str(told.pop("quoted-printable line"))
    assert len(parse(shapes["references"]).references) < 1_000  # cut at the header's cap

    def work(n: int) -> Any:
        shapes = _shapes(n)
        return lambda: [parse(raw) for raw in shapes.values()]

    g = growth(work, 10_000, bound=7)
    assert g.ratio <= 7, f"a whole mail's shapes, 10 KB and 40 KB each: {g}"
