"""An order written into a quoted line of the report, without a mark: the player edits "> PLAY <card>" of the quoted
"How to write it" into "> PLAY Gold 7", or one quoted legal line into another order, inside the quote, as a phone
that quotes the whole report invites.  Before, such a line was dropped with the quote, unread, and the player was
told only that no orders were found.

Now (`pbem.orders.own_mail._edited_in_quote`) a line quoted once, inside the quoted copy of pbem's mail, that is an
order and is no line pbem's mail had at that place (between the quoted lines around it) is the player's, read as
the order.  A quoted line pbem wrote, unchanged, is never read: the whole report quoted, a quote trimmed, a
quoted line edited into a remark, all read no order.  For all four games, at their first report and a later one,
from several clients' ways of quoting.
"""

from __future__ import annotations

import pytest

from pbem.orders.own_mail import _BLANK as BLANK
from tests.test_replies3_players import ATTRIBUTIONS, KINDS, Moment, _plain, _quoted, check, read, shared_moments
from tests.test_replies4_phones import reply


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


def _quoting(client: str, original: list[str], own: list[str]) -> list[str]:
    """A reply quoting `original` whole, with `own` lines of the player's (perhaps none)."""
    if client == "gmail-top":
        return [*own, "", ATTRIBUTIONS["gmail-android"][0], "", *_quoted(original)]
    if client == "ios-bottom":
        return [ATTRIBUTIONS["apple"][0], "", *_quoted(original), "", *own]
    return [*own, "", "On Mon, 30 Nov 2026 at 21:08, pbem <games@example.org> wrote:", *_quoted(original, ">")]


CLIENTS = ("gmail-top", "ios-bottom", "tight")


def _syntax_at(original: list[str], order: str) -> int | None:
    """Where the report's "How to write it" shows the form of `order` (its first word), or None."""
    start = next((i for i, line in enumerate(original) if line.startswith("How to write it")), None)
    if start is None:
        return None
    first = order.split()[0].upper()
    for i in range(start + 1, len(original)):
        if not original[i].strip():
            return None
        if original[i].split()[0].upper() == first and BLANK.search(original[i]):
            return i
    return None


def _legal_at(original: list[str], legal: list[str]) -> list[int]:
    start = next(i for i, line in enumerate(original) if line.startswith("Legal orders now"))
    return [i for i in range(start + 1, start + 1 + len(legal)) if original[i].strip() in legal]


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_edited_into_a_quoted_line_is_read(moments: dict[str, Moment], kind: str) -> None:
    failures: list[str] = []
    tried = 0
    for moment in (moments[kind],):
        original = _plain(moment.report)
        for n, order in enumerate(moment.legal[:40]):
            client = CLIENTS[n % len(CLIENTS)]
            at = _syntax_at(original, order)
            edits = [at] if at is not None else []
            for i in edits:
                indent = original[i][: len(original[i]) - len(original[i].lstrip())]
                body = _quoting(client, [*original[:i], indent + order, *original[i + 1 :]], ["Hi,"] if n % 2 else [])
                tried += 1
                try:
                    check(moment, reply(moment, body), [order], f"{client}: line {i} {original[i]!r} -> {order!r}")
                except AssertionError as err:
                    failures.append(str(err))
    assert tried >= 2, f"{kind}: only {tried} edits tried"
    assert not failures, f"{len(failures)} of {tried} misread:\n" + "\n".join(failures[:10])


@pytest.mark.parametrize("kind", KINDS)
def test_a_quoted_line_pbem_wrote_is_never_read(moments: dict[str, Moment], kind: str) -> None:
    """The whole report quoted; a quote with lines cut out of it (as a player trims a quote, around the legal
    orders and in the middle of them); a quoted line edited into a remark; a listed legal order (no blank in it)
    changed into another (a listed order is pbem's, chosen by a mark or typed as the player's own): no order is
    read."""
    for moment in (moments[kind],):
        original = _plain(moment.report)
        legal = _legal_at(original, moment.legal)
        trims = [
            original,
            [*original[: legal[0]], *original[legal[-1] + 1 :]],  # the legal orders cut out
            [line for k, line in enumerate(original) if k not in legal[1::2]],  # every other legal line cut out
            [*original[: legal[0] - 1], *original[legal[0] : legal[0] + 3], *original[legal[-1] + 8 :]],
            [*original[:3], "  I will think about it", *original[4:]],  # a line of prose changed
            [*original[: legal[0]], "    " + moment.legal[-1], *original[legal[0] + 1 :]],  # a listed order, no blank
        ]
        for client in CLIENTS:
            for k, quoted in enumerate(trims):
                got = read(moment, reply(moment, _quoting(client, quoted, ["Hi,", "Thinking."])))
                assert got == (), f"{kind} / {client} / quote {k}: read {got} from pbem's own quoted lines"


def _reports(kind: str) -> list[bytes]:
    """The reports of the seeded game of `kind` that ask their reader for orders (their raw bytes, as sent)."""
    from tests.test_phone_columns import sent_raw

    return [raw for raw in sent_raw(kind) if b"Legal orders now (copy one per line)" in raw]


@pytest.mark.parametrize("kind", sorted({k.split("+")[0] for k in KINDS}))
def test_every_seeded_report_quoted_unchanged_or_trimmed_reads_no_line_and_a_filled_blank_reads_one(kind: str) -> None:
    """Every report of the seeded game asking for orders, quoted whole, and trimmed at a seeded place (a run of
    lines cut out): no quoted line comes out as the writer's.  With its first blank line ("EVENT PERSON <card>")
    filled with a listed order of the same order word, that line and only it comes out."""
    import random

    from pbem import engine as registry
    from pbem.app.reading import _parts, sent_texts
    from pbem.orders.extract import own_line
    from pbem.orders.own_mail import without_copies

    keep = own_line(tuple(registry.get(kind).order_words))
    rng = random.Random(f"quoted-edits-{kind}")
    reports = _reports(kind)
    assert len(reports) >= 10, kind
    filled = 0
    for raw in reports[:: max(1, len(reports) // 40)]:
        plain = _parts(raw)["plain"]
        texts, original = sent_texts(raw), plain.rstrip("\n").split("\n")
        cut = rng.randrange(len(original))
        for quoted in (original, [*original[:cut], *original[cut + rng.randrange(1, 6) :]]):
            out = without_copies("Hi,\n\n" + "\n".join(_quoted(quoted)), texts, keep=keep, edited=[plain])
            assert [line for line in out.split("\n") if line.strip() and not line.startswith(">")] == ["Hi,"], out
        start = original.index("Legal orders now (copy one per line):")
        listed = [line.strip() for line in original[start + 1 :] if line.startswith("    ")]
        blank = next(
            (
                (i, o)
                for i, line in enumerate(original)
                if BLANK.search(line) and line.startswith("  ") and not line.startswith("   ")
                for o in listed
                if o.split()[0] == line.split()[0] and o != line.strip()
            ),
            None,
        )
        if blank is None:
            continue
        i, order = blank
        edited = [*original[:i], "  " + order, *original[i + 1 :]]
        out = without_copies("Hi,\n\n" + "\n".join(_quoted(edited)), texts, keep=keep, edited=[plain])
        assert [line.strip() for line in out.split("\n") if line.strip() and not line.startswith(">")] == [
            "Hi,",
            order,
        ], out
        filled += 1
    assert filled >= 3, f"{kind}: only {filled} reports with a blank to fill"


@pytest.mark.parametrize("kind", sorted({k.split("+")[0] for k in KINDS}))
def test_the_search_for_a_filled_blank_is_skipped_only_while_every_blank_is_quoted_as_sent(kind: str) -> None:
    """The shortcut (`_all_still_blank`) that spares a reply the search of every quoted order line: taken for every
    seeded report quoted whole (the poll's common reply), never when one blank's line was filled in, nor when a
    blank's line is only inside a longer line of the reply (Sixteen Thirty's asked-now sentence holds its order's
    blank form: a count of the text alone took it for the line, and the filled line went unread)."""
    from pbem.app.reading import _parts
    from pbem.orders.own_mail import _BLANK, _all_still_blank

    reports = _reports(kind)
    for raw in reports[:: max(1, len(reports) // 20)]:
        plain = _parts(raw)["plain"]
        sent = [plain.split("\n")]
        prompts = {(0, i) for i, line in enumerate(sent[0]) if _BLANK.search(line)}
        quoted = _quoted(plain.rstrip("\n").split("\n"))
        assert _all_still_blank(["Hi,", "", *quoted], sent, prompts)
        for i in sorted(prompts)[:3]:
            line = sent[0][i[1]].strip()
            edited = [q if q.lstrip("> \t").rstrip() != line else "> " + line.split()[0] + " filled" for q in quoted]
            inside = [q if q.lstrip("> \t").rstrip() != line else "> see " + line + " above" for q in quoted]
            assert not _all_still_blank(["Hi,", "", *edited], sent, prompts), (kind, line)
            assert not _all_still_blank(["Hi,", "", *inside], sent, prompts), (kind, line)
