"""`tests.timeline`'s account of a run, read from reports made up here (the plugin itself only collects them)."""

from __future__ import annotations

from tests.timeline import summary


def _report(worker: str, test: str, when: str, start: float, stop: float) -> dict:
    return {"worker": worker, "test": test, "when": when, "start": start, "stop": stop, "outcome": "passed"}


def test_the_tail_is_the_time_the_last_worker_ran_alone_and_files_split_set_up_from_call() -> None:
    reports = [
        _report("gw0", "tests/a.py::t1", "setup", 100.0, 104.0),  # a set-up that played a game
        _report("gw0", "tests/a.py::t1", "call", 104.0, 110.0),
        _report("gw0", "tests/a.py::t1", "teardown", 110.0, 110.5),
        _report("gw1", "tests/b.py::t2", "setup", 100.5, 100.6),
        _report("gw1", "tests/b.py::t2", "call", 100.6, 117.0),
        _report("gw1", "tests/b.py::t2", "teardown", 117.0, 117.0),
    ]
    out = summary(reports)
    assert out[1].split() == ["gw0", "0.0", "10.5", "10.5", "1"]
    assert out[2].split() == ["gw1", "0.5", "17.0", "16.5", "1"]
    assert out[3] == "  tail (the last worker alone): 6.5 s of 17.0 s"
    files = out[out.index("timeline: the 25 longest files (s): all, set-up, call, teardown") + 1 :][:2]
    assert [f.split() for f in files] == [
        ["16.5", "0.1", "16.4", "0.0", "tests/b.py"],
        ["10.5", "4.0", "6.0", "0.5", "tests/a.py"],
    ]
    first_setup = out[out.index("timeline: the longest set-ups (s, worker, start)") + 1]
    assert first_setup.split() == ["4.0", "gw0", "0.0", "tests/a.py::t1"]


def test_with_three_workers_the_tail_starts_when_the_second_last_ends() -> None:
    ends = {"gw0": 10.0, "gw1": 15.0, "gw2": 16.0}
    out = summary([_report(w, f"tests/{w}.py::t", "call", 0.0, end) for w, end in ends.items()])
    assert out[4] == "  tail (the last worker alone): 1.0 s of 16.0 s"


def test_one_process_has_no_tail_and_no_run_says_so() -> None:
    one = summary([_report("main", "tests/a.py::t", "call", 5.0, 7.0)])
    assert one[2] == "  tail (the last worker alone): 0.0 s of 2.0 s"
    assert summary([]) == ["timeline: no test ran"]
