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

    out = [fmt(cols), fmt(["-" * w for w in widths])]
    out += [fmt(r + [""] * (len(cols) - len(r))) for r in rows]
    return "\n".join("  " + line for line in out)


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


@settings(max_examples=400, deadline=None)
@given(BLOCKS)
def test_tables_are_written_as_the_plain_way_writes_them(block: dict[str, Any]) -> None:
    assert text_table(block) == _reference_text(block)
    assert str(html_table(block)) == _reference_html(block)
    for row in block["rows"]:
        for v in row:
            assert _shown(v) == _shown_reference(v)
