"""perf14 (issue 27): an HTML template's values written out without a `Markup` made for each, the same mail.

`pbem.render.templates` rebinds the name `escape` in each shipped template's compiled module to `_escaped_output`:
a plain string escaped by markupsafe's C function and written as a `str`, a `Markup` (a table) as it is, anything
else through `escape`.  Every kind of mail still renders as a stock Jinja environment renders it
(tests/test_perf12_render.py); here the values themselves, generated, and the rebinding.
"""

from __future__ import annotations

import random

from markupsafe import Markup, escape

from pbem.render import templates
from pbem.render.resources import templates_dir

_PIECES = ["a", "é", "<", ">", "&", '"', "'", "&amp;", "<b>", " ", "\u200b", "Ω", "1", "{{", "\\", "\n"]


class _Html:
    def __html__(self) -> str:
        return "<i>kept</i>"


class _Text(str):
    pass


def _values(rnd: random.Random) -> list[object]:
    text = "".join(rnd.choice(_PIECES) for _ in range(rnd.randint(0, 12)))
    return [text, Markup(text), _Text(text), len(text), len(text) / 3, None, True, _Html(), [text], escape(text)]


def test_every_value_is_written_as_jinjas_escape_writes_it() -> None:
    rnd = random.Random(14)
    for _ in range(2_000):
        for value in _values(rnd):
            assert str(templates._escaped_output(value)) == str(escape(value)), repr(value)


def test_every_shipped_html_template_writes_its_values_with_the_faster_escape() -> None:
    e = templates.env()
    names = sorted(p.relative_to(templates_dir()).as_posix() for p in (templates_dir() / "mail").glob("*.html.j2"))
    assert len(names) > 20
    for name in names:
        assert e.get_template(name).root_render_func.__globals__["escape"] is templates._escaped_output, name
