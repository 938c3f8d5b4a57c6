"""perf12 (issue 27): a report's templates with less of Jinja's bookkeeping for each include, the same mail.

`pbem.render.templates` finds a template asked for again in a dict (`_Environment.get_template`), makes the set of
a context's globals' names only when `{% import %}` reads it (`_Context`), and remembers which template names are
escaped (`autoescape`): each include of a report's two templates (11 a report) paid all three.  Every kind of mail
renders here with a stock Jinja environment of the same options too: the same subject, text and HTML.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from pbem.render import tables, templates
from pbem.render.resources import templates_dir
from pbem.render.tables import _shown
from tests.test_mail_templates import CONTEXTS, NOT_ABOUT_A_GAME, RECORD, VARIANTS, M


def _stock() -> Environment:
    """Jinja's own environment with `templates.env()`'s options, filters and globals."""
    e = Environment(
        loader=FileSystemLoader(str(templates_dir())),
        undefined=StrictUndefined,
        autoescape=select_autoescape(["html", "html.j2"], default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
        finalize=_shown,
    )
    e.filters.update(templates.env().filters)
    e.globals.update(templates.env().globals)
    return e


def _render(e: Environment, kind: str, ctx: dict[str, Any]) -> tuple[str, str, str]:
    ctx = {"now": None, **ctx}
    module = e.get_template(f"mail/{kind}.txt.j2").make_module(ctx)
    subject = " ".join(str(getattr(module, "subject", "")).split())
    return subject, str(module), e.get_template(f"mail/{kind}.html.j2").render(ctx)


def test_every_kind_of_mail_renders_as_with_jinjas_own_environment() -> None:
    stock = _stock()
    for kind in sorted(CONTEXTS):
        ctx = {**CONTEXTS[kind], **M, **({} if kind in NOT_ABOUT_A_GAME else RECORD), "boards": []}
        name = VARIANTS.get(kind, kind)
        for _ in range(2):  # the second time from `_loaded`
            assert _render(templates.env(), name, ctx) == _render(stock, name, ctx), kind


def test_a_template_asked_for_again_is_the_one_jinja_gives() -> None:
    e = templates.env()
    assert isinstance(e, templates._Environment)
    for path in sorted((templates_dir() / "mail").glob("*.j2")):
        name = f"mail/{path.name}"
        for parent in (None, "mail/report.txt.j2"):
            first = e.get_template(name, parent)
            assert e.get_template(name, parent) is first
            assert Environment.get_template(e, name, parent) is first
    with pytest.raises(Exception, match="no_such"):
        e.get_template("mail/no_such.txt.j2")
    assert ("mail/no_such.txt.j2", None) not in e._loaded  # a name not found is not kept


def test_a_context_tells_its_globals_names_when_asked() -> None:
    e = templates.env()
    template = e.get_template("mail/report.txt.j2")
    ctx = template.new_context({"player": "Alice"})
    assert isinstance(ctx, templates._Context)
    assert ctx.globals_keys == set(template.globals) and "first_lines" in ctx.globals_keys
    assert template.new_context({}, shared=True).globals_keys == set(template.globals)
    # `{% import ... with context %}` reads them: a module made with the importer's globals, as Jinja makes it
    page = e.from_string('{% import "mail/_record.txt.j2" as r with context %}[{{ player }}]', {"extra": 1})
    assert page.render(player="Bob", record=None) == "[Bob]"


def test_autoescape_is_asked_once_a_name_and_answers_as_before() -> None:
    choose = select_autoescape(["html", "html.j2"], default_for_string=False)
    for name in [None, "mail/report.html.j2", "mail/report.txt.j2", "x.HTML", "a.html.j2", "b.j2", ""]:
        assert templates.env().autoescape(name) == choose(name)  # type: ignore[operator]


def _old_cells(labels: list[str], shown: list[Any]) -> str:
    """7f9524d's row of `html_table`, cell by cell."""
    cells = "".join(
        f"{labels[i]}{v}</td>" if i < len(labels) else f'<td data-label="">{v}</td>' for i, v in enumerate(shown)
    )
    return f"<tr>{cells}</tr>\n"


def _old_filled(units: list[str], indent: str) -> list[str]:
    """7f9524d's `_filled`: every unit put together word by word."""
    room, lines, line = tables.NARROW - len(indent), [], ""
    for unit in units:
        if line and len(line) + 1 + len(unit) <= room:
            line += " " + unit
            continue
        if line:
            lines.append(indent + line)
        line = ""
        for word in unit.split(" "):
            if line and len(line) + 1 + len(word) > room:
                lines.append(indent + line)
                line = word
            else:
                line = f"{line} {word}" if line else word
    return [*lines, indent + line] if line else lines


PIECES = ["a", "Bob", "{", "}", "{}", "&", "<b>", '"', "é", "\x1b", " ", "  ", "word", "x" * 30, ""]


def _value(rnd: random.Random) -> Any:
    kind = rnd.randrange(6)
    if kind == 0:
        return rnd.choice([0, 7, -3, True, False, None, 2.5])
    if kind == 1:
        return Markup(rnd.choice(["<i>x</i>", "{a}", "&amp;"]))
    return "".join(rnd.choices(PIECES, k=rnd.randrange(4)))


def test_html_tables_and_filled_lines_are_written_as_on_7f9524d() -> None:
    """2,000 generated tables (columns and cells with braces, markup, controls; rows shorter, as long as and longer
    than the columns) and unit lists (empty units, units with leading, doubled and trailing spaces, wider than a
    line): each the old way's."""
    rnd = random.Random(12)
    for _ in range(2000):
        columns = [_value(rnd) for _ in range(rnd.randrange(1, 6))]
        rows = [[_value(rnd) for _ in range(max(0, len(columns) + rnd.choice([-1, 0, 0, 0, 1])))] for _ in range(3)]
        got = tables.html_table({"columns": columns, "rows": rows})
        labels = [f'<td data-label="{escape(_shown(str(c)))}">' for c in columns]
        for row in rows:
            assert _old_cells(labels, [escape(_shown(v)) for v in row]) in got
        units = ["".join(rnd.choices(PIECES, k=rnd.randrange(6))) for _ in range(rnd.randrange(6))]
        indent = rnd.choice(["  ", "    "])
        assert tables._filled(units, indent) == _old_filled(units, indent)
