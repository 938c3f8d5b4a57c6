"""A listed order changed in a quote its client rewrapped (replies8).

"> PLAY Copper 10" of the report's list edited into "> PLAY Copper 11" was found and told
(`pbem.orders.own_mail.changed_in_quote`) only where the quote kept pbem's lines; in a quote rewrapped at 72 to 78
columns (Outlook, Gmail) or reflowed (format=flowed: a paragraph's lines joined, then wrapped) the lines around it
are pieces of pbem's, and the change went unseen: not read, and not told.  It is found by words now
(`pbem.orders.own_quotes.changed_in_rewrapped`): the copy's words stop before the change and go on after it, and the
sent mail's words between are those of a listed order; the line as changed is told, with the line to send.  For
every game, at its first report and a later step, every listed line changed; a rewrapped quote left as pbem wrote
it, or with prose changed, holds none; no message with a change applies an order.
"""

from __future__ import annotations

import functools
import textwrap

import pytest

from pbem import engine as registry
from tests.growth import growth
from tests.test_replies3_players import KINDS, Moment, _plain, read, shared_moments
from tests.test_replies4_phones import reply
from tests.test_replies7_orders import _changed, _listed


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


def _wrapped(lines: list[str], width: int) -> list[str]:
    """Every line quoted and rewrapped at `width` columns, the quote mark counted (Outlook, Gmail)."""
    out: list[str] = []
    for line in lines:
        indent = line[: len(line) - len(line.lstrip())]
        pieces = textwrap.wrap(line, width - 2, initial_indent="", subsequent_indent="") if line.strip() else [""]
        out += [("> " + (indent if k == 0 and indent else "") + p.strip()).rstrip() for k, p in enumerate(pieces)]
    return out


def _flowed(lines: list[str], width: int) -> list[str]:
    """Each paragraph's lines joined (format=flowed read as one paragraph), then wrapped at `width` and quoted."""
    out: list[str] = []
    para: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            para.append(line.strip())
            continue
        if para:
            out += ["> " + p for p in textwrap.wrap(" ".join(para), width - 2)]
            para = []
        out.append(">")
    return out


def _first_piece(lines: list[str], width: int) -> list[str]:
    """Rewrapped at `width`, only the first piece of each line quoted (the rest left unquoted under it)."""
    out: list[str] = []
    for line in lines:
        pieces = textwrap.wrap(line, width) or [""]
        out += [("> " + (line[: len(line) - len(line.lstrip())] if line.strip() else "") + pieces[0]).rstrip()]
        out += pieces[1:]
    return out


STYLES = {
    "wrap-72": lambda ls: _wrapped(ls, 72),
    "wrap-78": lambda ls: _wrapped(ls, 78),
    "flowed-76": lambda ls: _flowed(ls, 76),
    "flowed-60": lambda ls: _flowed(ls, 60),
    "first-piece-60": lambda ls: _first_piece(ls, 60),
}
ATTRIBUTION = "On Mon, 30 Nov 2026 at 21:08, pbem moderator <games@example.org> wrote:"


@pytest.mark.parametrize("kind", KINDS)
def test_a_listed_order_changed_in_a_rewrapped_quote_is_not_read_and_the_player_is_told(
    moments: dict[str, Moment], kind: str
) -> None:
    moment = moments[kind]
    original = _plain(moment.report)
    failures = []
    styles = list(STYLES.items())
    for n, i in enumerate(_listed(moment)[:4]):  # two styles a line, every style at least once
        other = moment.legal[(moment.legal.index(original[i].strip()) + 1) % len(moment.legal)]
        indent = original[i][: len(original[i]) - len(original[i].lstrip())]
        edited = [*original[:i], indent + other, *original[i + 1 :]]
        for name, style in (styles[(2 * n) % len(styles)], styles[(2 * n + 1) % len(styles)]):
            body = ["Hi,", "Thinking.", "", ATTRIBUTION, *style(edited)]
            _, changed = _changed(moment, body)
            told = [(" ".join((line.lstrip("> ").strip()).split()), was) for line, was in changed]
            if told != [(other, original[i].strip())]:
                failures.append(f"{name} {other!r} <- {original[i].strip()!r}: {changed}")
            assert read(moment, reply(moment, body)) == (), (kind, name, other)
    assert not failures, f"{kind}: {len(failures)} not told:\n" + "\n".join(failures[:12])


@pytest.mark.parametrize("kind", KINDS)
def test_a_rewrapped_quote_unchanged_or_with_prose_changed_holds_no_changed_order(
    moments: dict[str, Moment], kind: str
) -> None:
    moment = moments[kind]
    original = _plain(moment.report)
    prose = next(k for k, line in enumerate(original) if len(line.split()) > 6 and not line.startswith(" "))
    reworded = [*original[:prose], original[prose].replace(" ", " really ", 1), *original[prose + 1 :]]
    for name, style in STYLES.items():
        for quoted in (original, reworded):
            body = ["Hi,", "", ATTRIBUTION, *style(quoted)]
            assert _changed(moment, body)[1] == [], (kind, name, quoted is original)


def test_reading_quotes_by_words_grows_linearly(moments: dict[str, Moment]) -> None:
    """The quoted orders of the writer's own and the changes in a reflowed quote cost time linear in the reply: many
    runs of "> PLAY ..." lines between lines of the writer's, many reflowed copies each with a listed order changed,
    a reflowed copy with a word changed every few words.  Four times the reply, at most `GROWTH` times the time."""
    from pbem.orders.extract import own_line
    from pbem.orders.own_mail import without_copies

    moment = moments["dynasties+later"]
    original = _plain(moment.report)
    sent = ["\n".join(original)]
    keep = own_line(registry.get(moment.kind).order_words)
    i = _listed(moment)[0]
    edited = [*original[:i], "    " + moment.legal[1], *original[i + 1 :]]
    noisy = [" ".join(f"{w} x" if k % 7 == 3 else w for k, w in enumerate(line.split())) for line in original]
    shapes = {
        "typed quoted": lambda n: ["Hi,", *(["> " + moment.legal[0], "ok", ""] * n), *_flowed(original, 76)],
        "reflowed changes": lambda n: ["Hi,", *(_flowed(edited, 76) * max(1, n // 60))],
        "reflowed noise": lambda n: ["Hi,", *(_flowed(noisy, 76) * max(1, n // 60))],
    }
    for name, shape in shapes.items():
        changed: list[tuple[str, str]] = []
        text = {n: "\n".join(shape(n)) for n in (300, 1200)}
        g = growth(
            lambda n: functools.partial(without_copies, text[n], sent, keep, sent, changed, mine_quoted=True),  # noqa: B023
            300,
            bound=GROWTH,
            floor=5e-3,
        )
        assert g.ratio <= GROWTH, f"{name}: {g}"
    changed = []
    assert moment.legal[0] in without_copies("\n".join(shapes["typed quoted"](3)), sent, keep, mine_quoted=True).split(
        "\n"
    )
    without_copies("\n".join(shapes["reflowed changes"](60)), sent, keep, sent, changed)
    assert changed == [("> " + moment.legal[1], moment.legal[0])], changed


GROWTH = 9.0  # linear is 4, quadratic 16
