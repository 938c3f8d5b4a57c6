"""How the sweep reads a pair's growth (`tests.reliability.sweep24.Reading`), and the caps costs25 gave (costs25).

The generator `curves` makes the readings a pair could give: a run's fixed part (none, or the 1.07 MB and 40,000
lines a command that opens a home costs whatever its input) plus an input's own part at x1, x4, x16, x64 and x256,
linear or a square of a unit from 64 bytes to 64 KB, and a step (a cache of 300 KB filled from x16 on) inside a run:
30 curves.  A square must be flagged and nothing else.  costs24's reading (`flags_by(False)`: x1 to x16, and x64
where x16 was steep; its gate a quarter of x1, fixed part and all) missed 3 of the 12 squares, those whose part at
x16 stayed under a quarter of the fixed part (a square of 1 KB at x1: 1.07 MB, 1.09 MB, 1.33 MB at x1, x4, x16).  The
reading now (gates of 256 KiB and 2,000 lines over no floor, a window's baseline at least 64 KiB; any two windows
running steep, the sizes read on to x64 and x256 while the last is steep) misses 1 of 12, the square of 64 bytes at
x1 (4.2 MB at x256: its two steep windows are x256 and x1024), and flags none of the 18 others (nor did costs24's),
nor the full sweep's noisy knee (`test_a_noisy_knee_is_no_square`, which a gate of 64 KiB flagged).  Cost: some
milliseconds; the name's cap, two refused `pbem init`s (0.05 s).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.reliability import sweep24

FLOORS = (0, 1_070_000)
UNITS = (64, 256, 1024, 4096, 16_384, 65_536)
SHAPES = {"linear": lambda k: k, "square": lambda k: k * k}
CACHE = 300_000  # bytes a cache filled at x16 takes (`poll`'s peak for N games rose 0.46 MB between 4 and 12 games)


def curves() -> Iterator[tuple[str, int, int, tuple[int, ...]]]:
    """(shape, floor, unit, the bytes at x1 to x256): linear and square over each floor, and a step (linear, and a
    cache filled from x16 on) inside a command's run."""
    sizes = (1, 4, 16, 64, 256)
    for shape, f in SHAPES.items():
        for floor in FLOORS:
            for unit in UNITS:
                yield shape, floor, unit, tuple(floor + int(unit * f(k)) for k in sizes)
    for unit in UNITS:
        yield "step", FLOORS[1], unit, tuple(FLOORS[1] + unit * k + (CACHE if k >= 16 else 0) for k in sizes)


CASE = sweep24.CASES[0]


def _flagged(got: tuple[int, ...], noise: bool) -> bool:
    """As `sweep24.measure` reads it (not the full sweep's `larger`): x1, x4, x16, then a size more while the last
    window is steep."""
    n = 3
    while n < len(got) and sweep24.Reading(CASE, (1,) * n, got[:n]).steep():
        n += 1
    return bool(sweep24.Reading(CASE, (1,) * n, got[:n]).flags_by(noise))


def _costs24(got: tuple[int, ...]) -> bool:
    """costs24's reading: x1, x4, x16, and x64 read only where x16 was steep (and not already 20 times x1)."""
    first = got[:3]
    reading = sweep24.Reading(CASE, (1, 1, 1), first)
    if reading.steep(noise=False):
        first = got[:4]
    return _flagged(first, noise=False)


def test_every_square_is_flagged_and_nothing_else() -> None:
    missed = [(s, f, u) for s, f, u, got in curves() if s == "square" and not _flagged(got, True)]
    wrong = [(s, f, u) for s, f, u, got in curves() if s != "square" and _flagged(got, True)]
    assert missed == [("square", 1_070_000, 64)] and not wrong, (missed, wrong)


def test_a_noisy_knee_is_no_square() -> None:
    """The full sweep's "poll / one mail of 8N Received headers" read to x256: its x4 read 150 KB above its x16 (the
    run's noise), and its peak leaves the fixed part's between x64 and x256 (a knee: the poll's peak is the most of
    its stages', the mail's stage passing the engine's); with a gate of 64 KiB and a baseline of 1 KiB a window it read
    as a square."""
    got = (1_140_906, 1_298_054, 1_162_396, 1_485_042, 5_845_868)
    assert not sweep24.Reading(CASE, (1,) * 5, got).flags_by(True)


def test_costs24s_reading_missed_the_squares_under_the_floor() -> None:
    """The figures in the docstring: what the old reading made of the same curves."""
    squares = [(f, u) for s, f, u, got in curves() if s == "square" and not _costs24(got)]
    others = [(s, f, u) for s, f, u, got in curves() if s != "square" and _costs24(got)]
    assert len(squares) == 3 and not others, (len(squares), squares, others)


def test_the_inputs_own_part_reads_as_its_growth() -> None:
    """100 KB at x1 and 1.6 MB at x16 over the 1.07 MB floor: read 16 times, not 2.3."""
    got = tuple(1_070_000 + 100_000 * k for k in (1, 4, 16))
    floor = sweep24.own_floor(got)
    assert floor == 1_070_000 and (got[2] - floor) / (got[0] - floor) == 16
    assert "x16 16.0 times x1" in str(sweep24.Reading(CASE, (1, 2, 3), got))


@pytest.mark.parametrize("length", [201, 100_000])
def test_the_moderators_name_is_at_most_200_characters(tmp_path, length: int) -> None:
    """`[moderator] name` heads every mail pbem sends: a name of 100,000 characters went whole into every From
    (the sweep's "init / a --name of 100N characters", uncapped until costs25); `pbem init` refuses it, exit 2."""
    from pbem.home import config

    assert config.SCHEMA["moderator"]["name"]("M" * 200) == "M" * 200
    res = sweep24.invoke(["init", str(tmp_path / "h"), "--address", "m@pbem.test", "--name", "M" * length])
    assert res.exit_code == 2 and "a display name is at most 200" in res.output, res.output[-500:]
    assert not (tmp_path / "h" / "pbem.toml").exists()
