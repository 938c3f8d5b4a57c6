"""The handbook and the rulings on a phone: `pbem rules KIND` and the HELP mail at 40 columns, all four games.

Their two-column layout ("ORDER      what it does", examples side by side, rulings wrapped at 90 columns) fell
apart on a phone held upright: every line wider than the screen wrapped into the next.  The engines now keep
their handbook in a small layout language (`pbem.render.handbook`) and one layout writes it at 40 columns for
`pbem rules`, the HELP mail's text part and (as blocks, nothing aligned by spaces) its HTML part.

Checked for every kind and for the join step's handbook: every line within 40 columns but an order to copy
(never cut) or one word; no word lost, added or reordered by the layout; every order whole on one line, and in
the HTML a <code> of its own.
"""

from __future__ import annotations

import re

import pytest
from markupsafe import escape
from typer.testing import CliRunner

from pbem import engine as registry
from pbem.cli import app
from pbem.engine.rulings import RULINGS
from pbem.render.templates import NARROW, render_mail
from pbem.trust.deal import JoinStep

KINDS = registry.available()
SPAN = re.compile(r"`([^`]+)`")


def _join_handbook(kind: str) -> str:
    eng = registry.get(kind)
    return JoinStep(eng, [f"P{i}" for i in range(eng.min_players)], "seed", {}).handbook()


def sources() -> dict[str, str]:
    """Every handbook and rulings text a player can be sent: {name: the engine's source text}."""
    out = {}
    for kind in KINDS:
        out[f"{kind} handbook"] = registry.get(kind).handbook()
        out[f"{kind} rulings"] = RULINGS[kind]
        out[f"{kind} joining"] = _join_handbook(kind)
    return out


def too_wide(text: str, source: str) -> list[str]:
    """The lines of `text` wider than a phone that are neither an order of `source` to copy nor one word."""
    orders = set(SPAN.findall(source))
    return [
        f"{len(line)}: {line!r}"
        for line in text.split("\n")
        if len(line) > NARROW and " " in line.strip() and line.strip() not in orders
    ]


def _help(kind: str, handbook: str) -> str:
    ctx = dict(game_name="g1", handbook=handbook, rulings=RULINGS[kind], asked=[], waiting=["Bob"])
    r = render_mail("help", {**ctx, "moderator": "M", "moderator_address": "m@x.test", "record": None})
    return r.text


@pytest.mark.parametrize("kind", KINDS)
def test_pbem_rules_and_the_help_mail_fit_40_columns(kind: str) -> None:
    res = CliRunner().invoke(app, ["rules", kind])
    assert res.exit_code == 0, res.output
    source = registry.get(kind).handbook() + RULINGS[kind]
    wide = too_wide(res.output, source)
    assert not wide, f"pbem rules {kind}: {len(wide)} lines wider than {NARROW} columns, e.g.\n" + "\n".join(wide[:6])
    for handbook in (registry.get(kind).handbook(), _join_handbook(kind)):
        text = _help(kind, handbook)
        section = text[text.index(handbook.split("\n")[0][:20]) :]  # the handbook and rulings the mail carries
        wide = too_wide(section, handbook + RULINGS[kind])
        assert not wide, f"HELP of {kind}: {len(wide)} lines too wide, e.g.\n" + "\n".join(wide[:6])


def _words(text: str) -> list[str]:
    """The words of a text, a heading's rule (``=====``) aside."""
    return [w for w in text.replace("`", "").split() if not re.fullmatch(r"[=-]{3,}", w)]


def test_the_layout_keeps_every_word_in_order_and_every_order_whole() -> None:
    from pbem.render.handbook import as_html, narrow

    seen = 0
    for name, source in sources().items():
        laid = narrow(source)
        if not any(line.startswith("|") for line in source.split("\n")):  # a table is written as `text_table` does
            assert _words(laid) == _words(source), name
        html = str(as_html(source))
        assert "<pre" not in html, name
        for order in SPAN.findall(source):
            seen += 1
            assert any(order in line for line in laid.split("\n")), f"{name}: the order {order!r} is cut"
            assert f"<code>{escape(order)}</code>" in html, f"{name}: {order!r} is no <code> of its own"
    assert seen > 100, seen  # the four handbooks and the join step mark their orders


def test_a_two_column_entry_is_written_one_column_at_a_time() -> None:
    from pbem.render.handbook import narrow

    source = (
        "ORDERS\n"
        "  `NO EVENT`        (aliases: PASS, NONE) play no event; ends your turn if\n"
        "                    your hand is 5 cards or fewer.\n"
        "      `MELD Otto Spain King`        `MELD maria th top archduke`\n"
        "  * a list item that is long enough to be wrapped onto a second line\n"
        "\n"
        "| Lineage | Power |\n|---|---|\n| Copper | Coin of the Realm: take 2 Gold from the Stakes |\n"
    )
    assert narrow(source).split("\n") == [
        "ORDERS",
        "  NO EVENT",
        "    (aliases: PASS, NONE) play no event;",
        "    ends your turn if your hand is 5",
        "    cards or fewer.",
        "    MELD Otto Spain King",
        "    MELD maria th top archduke",
        "  * a list item that is long enough to",
        "    be wrapped onto a second line",
        "",
        "  Lineage: Copper",
        "    Power: Coin of the Realm: take 2",
        "    Gold from the Stakes",
    ]
