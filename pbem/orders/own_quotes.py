"""Order lines a player quoted themselves at the top level of a reply (pure).

Some players mark their order with a "> " of their own, as if quoting it, on a line apart from any quoted mail:
"Hi," / "> TRIBUTE Gold 4" / "Thanks", above or below the quoted report, or in a reply that quotes nothing.  Every
quoted line was dropped as someone else's text, so the message was answered "no orders found".  Such a line is the
writer's (`typed_quoted`) when all of these hold:

* it is quoted once and is an order or command of the game (`keep`), and no part of a copy of pbem's mail (the
  caller's `drop`, `pbem.orders.own_mail.without_copies`);
* it is not inside a quoted copy (a copied line above it and one below: a line typed inside the quote is not read
  and is told, `pbem.orders.own_mail.changed_in_quote`);
* it is not a line of a mail pbem sent as laid out there: a quote trimmed down to a line of the report's list
  (">     PLAY Platinum 9", quoted with its indentation) is pbem's, not typed;
* every other line with words in its run of quoted lines is such a line too (a quote of prose is someone's mail),
  and no attribution ("On ... wrote:") stands right above the run (a quote of an earlier mail of the player's, or of
  another player's, is not this message's order).

Linear in the reply and the sent mails' lines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pbem.orders.furniture import attribution_at, unquoted


def unquote_typed(
    lines: list[str], per_line: list[list[str]], drop: list[bool], sent: list[str], keep: Callable[[str], bool] | None
) -> None:
    """`lines` with the writer's own orders quoted at the top level (`typed_quoted`) unquoted, read as theirs; none
    when no line is taken as an order (`keep` None)."""
    if keep is not None:
        for n in typed_quoted(lines, per_line, drop, sent, keep):
            lines[n] = unquoted(lines[n]) or ""


def typed_quoted(
    lines: list[str], per_line: list[list[str]], drop: list[bool], sent: list[str], keep: Callable[[str], bool]
) -> list[int]:
    """The indexes of the lines of `lines` that are the writer's own orders quoted at the top level (the module
    docstring).  `per_line`: each line's words; `drop`: whether each is part of a copy; `sent`: the sent texts."""
    runs = list(_runs(lines))
    if not runs:
        return []
    copied = [n for n, ws in enumerate(per_line) if ws and drop[n] and lines[n].lstrip().startswith(">")]
    pbems: set[str] | None = None
    out: list[int] = []
    for start, end in runs:
        worded = [n for n in range(start, end) if per_line[n]]
        if not worded or any(drop[n] for n in worded):
            continue
        mines = [unquoted(lines[n]) for n in worded]
        if any(m is None or not keep(m) for m in mines):
            continue
        if any(c < start for c in copied) and any(c >= end for c in copied):
            continue  # inside a quoted copy
        if _attributed(lines, start):
            continue
        if pbems is None:
            pbems = {line.rstrip() for text in sent for line in text.split("\n") if line.strip()}
        if any(_laid_out(lines[n], pbems) for n in worded):
            continue  # a line of pbem's mail as laid out there: a trimmed quote
        out += worded
    return out


def _runs(lines: list[str]) -> Iterator[tuple[int, int]]:
    """The runs of consecutive quoted lines (start, end), each with no line quoted twice (an older mail's)."""
    start = -1
    for n, line in enumerate([*lines, ""]):
        quoted = line.lstrip().startswith(">")
        if quoted and start < 0:
            start = n
        elif not quoted and start >= 0:
            if all(unquoted(lines[k]) is not None or not lines[k].strip(" >") for k in range(start, n)):
                yield start, n
            start = -1


def _attributed(lines: list[str], start: int) -> bool:
    """Whether an attribution (1 to 3 lines) ends on the line with words right above `start` (blank lines between)."""
    above = next((k for k in range(start - 1, max(-1, start - 3), -1) if lines[k].strip()), None)
    if above is None:
        return False
    return any(k >= 0 and attribution_at(lines, k) == above - k + 1 for k in range(above - 2, above + 1))


def _laid_out(line: str, pbems: set[str]) -> bool:
    """Whether a quoted line is one of pbem's as laid out there, quoted by "> " or by a tight ">" (">    PLAY ...")."""
    after = line.lstrip()[1:].rstrip()
    return after in pbems or after[1:] in pbems
