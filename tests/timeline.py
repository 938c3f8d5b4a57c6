"""Where the suite's time goes, worker by worker: `python3 -m pytest -p tests.timeline` (any other options too).

At the end of the run it prints, for each xdist worker (or the one process of `-n 0`), when its first test started
and its last ended, and the seconds its tests took (set-up, call and teardown); the *tail*, the seconds the last
worker ran alone after the one before it had finished (the whole suite's time is bounded by the longest worker, so a
long tail is time a better order would save); the files whose tests took longest, with set-up and call apart (a
set-up that plays a game or waits for another worker's `tests.shared.once` shows there); and the longest single
set-ups.  `PBEM_TIMELINE_JSON=FILE` also writes every report (worker, test, phase, start, stop) as JSON lines, for
a closer look.

It reads only the reports pytest already makes (each has its start and stop, sent by the workers to the process
that started them), so it changes nothing the tests do and costs nothing while they run.  It is not loaded by the
README's test command: `make test` stays as it is."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from typing import Any

import pytest

_REPORTS: list[dict[str, Any]] = []


def _worker(report: pytest.TestReport) -> str:
    node = getattr(report, "node", None)  # set by xdist on the reports a worker sends
    gateway = getattr(node, "gateway", None)
    return str(getattr(gateway, "id", "main"))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):  # a worker: its controller gets the same report and keeps it
        return
    _REPORTS.append(
        {
            "worker": _worker(report),
            "test": report.nodeid,
            "when": report.when,
            "start": report.start,
            "stop": report.stop,
            "outcome": report.outcome,
        }
    )


def summary(reports: list[dict[str, Any]], top: int = 25) -> list[str]:
    """The lines `pytest_terminal_summary` prints (pure, for a file written by PBEM_TIMELINE_JSON too)."""
    if not reports:
        return ["timeline: no test ran"]
    t0 = min(r["start"] for r in reports)
    spans: dict[str, list[float]] = {}
    for r in reports:
        first, last, busy = spans.setdefault(r["worker"], [r["start"], r["stop"], 0.0])
        spans[r["worker"]] = [min(first, r["start"]), max(last, r["stop"]), busy + r["stop"] - r["start"]]
    out = ["timeline: worker, first start and last end (s from the first test), seconds in tests, tests run"]
    for w, (first, last, busy) in sorted(spans.items()):
        n = sum(1 for r in reports if r["worker"] == w and r["when"] == "call")
        out.append(f"  {w:>6} {first - t0:8.1f} {last - t0:8.1f} {busy:9.1f} {n:6d}")
    ends = sorted(last for _, last, _ in spans.values())
    tail = ends[-1] - ends[-2] if len(ends) > 1 else 0.0
    out.append(f"  tail (the last worker alone): {tail:.1f} s of {ends[-1] - t0:.1f} s")
    files: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for r in reports:
        files[r["test"].split("::")[0]][r["when"]] += r["stop"] - r["start"]
    out.append(f"timeline: the {top} longest files (s): all, set-up, call, teardown")
    for f, t in sorted(files.items(), key=lambda kv: -sum(kv[1].values()))[:top]:
        out.append(f"  {sum(t.values()):8.1f} {t['setup']:7.1f} {t['call']:8.1f} {t['teardown']:6.1f}  {f}")
    setups = sorted((r for r in reports if r["when"] == "setup"), key=lambda r: r["start"] - r["stop"])[:10]
    out.append("timeline: the longest set-ups (s, worker, start)")
    out += [f"  {r['stop'] - r['start']:7.1f} {r['worker']:>6} {r['start'] - t0:8.1f}  {r['test']}" for r in setups]
    return out


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    path = os.environ.get("PBEM_TIMELINE_JSON")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in _REPORTS)
    for line in summary(_REPORTS):
        terminalreporter.write_line(line)
