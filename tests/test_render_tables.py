"""The report's tables (`text_table`, `html_table`) against the plain way of writing them: the fast paths for
rows of plain values (issue 27) print every cell as the templates would, escaped and with controls made visible."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import Markup, escape

from pbem.render.sanitize import visible
from pbem.render.templates import _shown, html_table, text_table


def _reference_text(block: dict[str, Any]) -> str:
    cols = [str(c) for c in block["columns"]]
    rows = [[("" if v is None else str(v)) for v in row] for row in block["rows"]]
    widths = [max([len(c)] + [len(r[i]) for r in rows if i < len(r)]) for i, c in enumerate(cols)]

    def fmt(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    full = [(r + [""] * len(cols))[: len(cols)] for r in rows]
    if max(len(fmt(cols)), len(fmt(["-" * w for w in widths]))) + 2 > 40 or any(
        len(fmt(r)) + 2 > 40 for r in full
    ):  # wider than a phone: a block per row
        if not full:
            return "\n".join(_reference_fill([c + ";" for c in cols[:-1]] + cols[-1:], "  "))
        numbers = {i for i in range(len(cols)) if all(r[i].isdigit() for r in full)}  # a seat number names no row
        key = min(set(range(len(cols))) - numbers, default=0)
        return "\n".join(line for r in full for line in _reference_block(cols, r, key))
    out = [fmt(cols), fmt(["-" * w for w in widths])]
    out += [fmt(r) for r in full]
    return "\n".join("  " + line for line in out)


def _reference_block(cols: list[str], row: list[str], key: int) -> list[str]:
    """A row of a wide table, the plain way: its cell of the first column not all digits named, then every other
    non-empty cell named, filled into lines of 40 columns."""
    named = [(f"{c}: {v}" if c else v) for c, v in zip(cols, row)]
    out = _reference_fill([named[key]] if row[key] else [], "  ")
    rest = [named[i] for i in range(len(cols)) if row[i] and i != key]
    return out + _reference_fill([p + ";" for p in rest[:-1]] + rest[-1:], "    ")


def _reference_fill(units: list[str], indent: str) -> list[str]:
    lines: list[list[str]] = []
    for unit in units:
        if lines and len(indent + " ".join([*lines[-1], unit])) <= 40:
            lines[-1].append(unit)
            continue
        lines.append([])
        for word in unit.split(" "):
            if lines[-1] and len(indent + " ".join([*lines[-1], word])) > 40:
                lines.append([])
            lines[-1].append(word)
    return [indent + " ".join(words) for words in lines if " ".join(words)]


def _shown_reference(value: Any) -> Any:
    return visible(value, keep_lines=True) if isinstance(value, str) and not isinstance(value, Markup) else value


def _reference_html(block: dict[str, Any]) -> str:
    cols = [escape(_shown_reference(str(c))) for c in block["columns"]]
    head = "".join(f'<th scope="col">{c}</th>' for c in cols)
    rows = []
    for row in block["rows"]:
        cells = "".join(
            f'<td data-label="{cols[i] if i < len(cols) else ""}">{escape(_shown_reference(v))}</td>'
            for i, v in enumerate(row)
        )
        rows.append(f"<tr>{cells}</tr>\n")
    return f'<table class="cards">\n<thead><tr>{head}</tr></thead>\n<tbody>\n{"".join(rows)}</tbody>\n</table>'


CELLS = st.one_of(
    st.none(),
    st.integers(-5, 5000),
    st.booleans(),
    st.sampled_from(["Maria Theresa", "Erin*", "-", "<b>", "a & b", '"quoted"', "it's", "\x1b[31m", "\u202e", "é"]),
    st.text(max_size=12),
    st.builds(Markup, st.sampled_from(["<i>kept</i>", "&amp;"])),
)
BLOCKS = st.fixed_dictionaries(
    {
        "columns": st.lists(st.sampled_from(["Seat", "Player", "Score", "", "<Melds>"]), max_size=5),
        "rows": st.lists(st.lists(CELLS, max_size=7), max_size=6),
    }
)


WIDE = st.fixed_dictionaries(
    {
        "columns": st.lists(st.sampled_from(["Seat", "Player", "Victory points", "Family (value)", ""]), max_size=7),
        "rows": st.lists(
            st.lists(st.one_of(CELLS, st.sampled_from(["Silver King (13), Platinum 10 (10)", "x" * 45])), max_size=7),
            max_size=4,
        ),
    }
)


@settings(max_examples=400, deadline=None)
@given(WIDE)
def test_a_table_wider_than_a_phone_is_a_block_per_row_within_40_columns(block: dict[str, Any]) -> None:
    """A table whose aligned lines would pass 40 columns is written a block per row (the plain way), and no line
    of it passes 40 columns but one holding a single word wider than that."""
    text = text_table(block)
    assert text == _reference_text(block)
    for line in text.split("\n"):
        assert len(line) <= 40 or " " not in line.strip(), line


@settings(max_examples=400, deadline=None)
@given(BLOCKS)
def test_tables_are_written_as_the_plain_way_writes_them(block: dict[str, Any]) -> None:
    assert text_table(block) == _reference_text(block)
    assert str(html_table(block)) == _reference_html(block)
    for row in block["rows"]:
        for v in row:
            assert _shown(v) == _shown_reference(v)
