"""The cost tests' growth reading (tests/growth.py) on a scripted clock: noise cannot fail a linear stage, and no
reading can pass a square one."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from tests.growth import alone, growth, held_growth, least, step_growth, steps


class Clock:
    """Virtual CPU seconds: a run of size k costs `cost(k)` plus the next scripted noise (0 when none is left)."""

    def __init__(self, cost: Callable[[int], float], noise: list[float] | None = None) -> None:
        self.now = 0.0
        self.cost = cost
        self.noise = list(noise or [])
        self.runs: list[int] = []

    def __call__(self) -> float:
        return self.now

    def work(self, k: int) -> Callable[[], None]:
        def run() -> None:
            self.runs.append(k)
            self.now += self.cost(k) + (self.noise.pop(0) if self.noise else 0.0)

        return run


def linear(k: int) -> float:
    return 4e-6 * k


def square(k: int) -> float:
    return 4e-6 * k + 1e-9 * k * k


def test_a_linear_stage_whose_first_large_reading_was_slowed_passes_after_reading_again() -> None:
    # the CI failure of ed6741a: 4 ms at n, a large reading slowed to 8.1 times that
    clock = Clock(linear, noise=[0.0, 0.0, 0.0165, 0.0, 0.0165])  # small, small, large, ...: two large slowed
    g = growth(clock.work, 1000, bound=8.0, clock=clock)
    assert g.ratio == pytest.approx(4.0) and len(g.larges) == 3, g


def test_a_linear_stage_on_a_quiet_machine_is_read_twice_small_and_once_large() -> None:
    clock = Clock(linear)
    g = growth(clock.work, 1000, bound=8.0, clock=clock)
    assert clock.runs == [1000, 1000, 4000] and g.ratio == pytest.approx(4.0)


@pytest.mark.parametrize("seed", range(20))
def test_a_square_stage_fails_however_the_noise_falls(seed: int) -> None:
    rng = random.Random(seed)
    noise = [rng.choice([0.0, 0.0, rng.uniform(0, 0.05)]) for _ in range(13)]
    clock = Clock(square, noise=noise)
    g = growth(clock.work, 20_000, bound=9.0, clock=clock)  # 0.48 s -> 6.72 s: 14 times
    assert g.ratio > 9.0 and len(g.larges) == 6 and len(g.smalls) == 7, g


@pytest.mark.parametrize("seed", range(20))
def test_a_linear_stage_passes_when_all_large_readings_but_one_are_slowed_past_the_bound(seed: int) -> None:
    rng = random.Random(seed)
    quiet = rng.randrange(6)  # the readings go small, small, large, small, large...: one large reading quiet
    large = [0.0 if k == quiet else rng.uniform(0.02, 0.05) for k in range(6)]  # 16 ms + 20 ms: over 8 x 4 ms
    noise = [0.0, 0.0] + [x for t in large for x in (t, 0.0)]
    clock = Clock(linear, noise=noise)
    g = growth(clock.work, 1000, bound=8.0, clock=clock)
    assert g.ratio == pytest.approx(4.0) and len(g.larges) == quiet + 1, g


def test_the_floor_keeps_a_timer_tick_from_reading_as_growth() -> None:
    clock = Clock(lambda k: 1e-5 if k == 10 else 2e-3)  # 10 us against 2 ms: 200 times, below the timer's use
    assert growth(clock.work, 10, bound=8.0, floor=2e-3, clock=clock).ratio == pytest.approx(1.0)


def test_least_stops_at_the_first_reading_within_its_bound() -> None:
    clock = Clock(linear, noise=[0.5, 0.0, 0.0])
    assert least(lambda: clock.work(1000), within=0.01, clock=clock) == pytest.approx(0.004)
    assert len(clock.runs) == 2


def test_steps_count_the_lines_a_stage_runs_linear_four_and_square_sixteen_at_four_times() -> None:
    def linear_work(k: int) -> Callable[[], object]:
        items = list(range(k))
        return lambda: [x + 1 for x in items]

    def square_work(k: int) -> Callable[[], object]:
        items = list(range(k))
        return lambda: [any(y == x for y in items) for x in items]  # every item scanned from the first

    line, square_ = step_growth(linear_work, 200), step_growth(square_work, 50)
    assert 3.9 <= line.ratio <= 4.1 and square_.ratio >= 14, (line, square_)
    assert steps(linear_work(200)) == line.small, "the same input, the same count"


def test_held_counts_the_bytes_a_stage_keeps_at_its_peak() -> None:
    def kept(k: int) -> Callable[[], object]:
        return lambda: ["x" * k for _ in range(k)]  # k strings of k characters: k squared bytes held

    def passing(k: int) -> Callable[[], object]:
        return lambda: sum(len("x" * k) for _ in range(k))  # each string freed before the next

    assert held_growth(kept, 200).ratio >= 12 and held_growth(passing, 200).ratio <= 4.5


def test_alone_answers_what_its_run_returns_or_raises_and_leaves_nothing_here() -> None:
    kept: list[int] = []
    assert alone(lambda: (kept.append(1), {"a": [1, 2]})[1]) == {"a": [1, 2]} and kept == []

    def fails() -> None:
        raise ValueError("in the child")

    with pytest.raises(AssertionError, match="ValueError: in the child"):
        alone(fails)


def test_alone_forks_again_after_a_child_that_never_answers_and_then_gives_up() -> None:
    """A child forked while another thread held a lock it needs would wait for ever: killed at `wait`, `tries`
    children in all (here one that sleeps, 2 of 0.2 s)."""
    import time

    with pytest.raises(AssertionError, match="2 forked children each gave no answer"):
        alone(lambda: time.sleep(30), wait=0.2, tries=2)
