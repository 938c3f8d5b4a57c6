"""`pbem.home.stages`: the poll thread's CPU by stage, a stage inside another counted for itself only
(a fake thread clock: the arithmetic, not the machine's speed, is what is checked)."""

from __future__ import annotations

import threading

import pytest

from pbem.home import stages


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [0.0]
    monkeypatch.setattr(stages.time, "thread_time", lambda: now[0])
    stages.taken()
    return now


def test_nested_stages_count_for_themselves(clock: list[float]) -> None:
    with stages.stage("appending"):
        clock[0] += 1.0
        with stages.stage("rendering"):
            clock[0] += 3.0
            with stages.stage("composing"):
                clock[0] += 0.5
        clock[0] += 2.0
        with stages.stage("rendering"):
            clock[0] += 1.5
    with stages.stage("committing"):
        clock[0] += 0.25
    assert stages.taken() == {"appending": 3.0, "rendering": 4.5, "composing": 0.5, "committing": 0.25}
    assert stages.taken() == {}  # a fresh start


def test_a_stage_that_raises_still_counts(clock: list[float]) -> None:
    with pytest.raises(ValueError), stages.stage("reading"):
        clock[0] += 2.0
        raise ValueError("bad mail")
    with stages.stage("reading"):
        clock[0] += 1.0
    assert stages.taken() == {"reading": 3.0}


def test_each_thread_has_its_own_open_stages(clock: list[float]) -> None:
    inside, leave = threading.Event(), threading.Event()

    def other() -> None:
        with stages.stage("other"):
            inside.set()
            leave.wait(5)

    t = threading.Thread(target=other)
    with stages.stage("outer"):
        t.start()
        assert inside.wait(5)
        clock[0] += 1.0  # the other thread's open stage is no stage inside this one
    leave.set()
    t.join(5)
    got = stages.taken()
    assert got == {"outer": 1.0, "other": 1.0}  # one shared stack would have taken the second off the first


def test_runqueue_wait_is_the_second_field_of_schedstat_in_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    """`poll thread waiting for a core` of `pbem poll --timings`: nanoseconds runnable but not running."""

    class Schedstat:
        def __init__(self, text: str | None) -> None:
            self.text = text

        def __call__(self, path: str) -> Schedstat:
            assert path == "/proc/thread-self/schedstat"
            return self

        def read_text(self) -> str:
            if self.text is None:
                raise FileNotFoundError(2, "no /proc")
            return self.text

    monkeypatch.setattr(stages, "Path", Schedstat("123456789 2500000000 71\n"))
    assert stages.runqueue_wait() == 2.5
    for broken in (None, "", "12 x 3"):  # no /proc (not Linux), an empty or garbled file: 0.0, never an error
        monkeypatch.setattr(stages, "Path", Schedstat(broken))
        assert stages.runqueue_wait() == 0.0


def test_runqueue_wait_reads_this_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    first = stages.runqueue_wait()
    sum(range(200_000))  # some CPU: the counter never goes back
    assert 0.0 <= first <= stages.runqueue_wait()
