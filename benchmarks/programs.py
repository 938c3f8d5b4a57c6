"""Which programs used the machine's CPU between two moments: every process's CPU read from /proc by a child
process four times a second, summed by program name (`pbem` is `python`; Dovecot's `lmtp`, Postfix's
`cleanup`, `smtpd`, `qmgr` ...).

    with ProgramCpu(path) as programs:
        t0 = time.time(); ...; t1 = time.time()
        programs.between([(t0, t1)])   # [{"python": 17.9, "lmtp": 9.3, ...}]: seconds of CPU, largest first

A process's own CPU (user and system) counts from the sample before `t0` (0 for one started since) to the
first sample after `t1`, or to its last sample if it ended before.  What a process used after its last sample,
and a process that lived between two samples, is not seen: it is in the machine's total (`/proc/stat`), not
here.  Linux only; elsewhere `between` gives an empty dict per window.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

INTERVAL = 0.25  # seconds between two samples
LIFETIME = 6 * 3600  # the sampler's deadline, should nothing stop it

_SAMPLER = r"""
import json, os, sys, time
hz, parent, end = os.sysconf("SC_CLK_TCK"), os.getppid(), time.monotonic() + float(sys.argv[3])
with open(sys.argv[1], "w") as out:
    while os.getppid() == parent and time.monotonic() < end:  # ends with the benchmark, killed or not
        now, procs = time.time(), {}
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/stat") as f:
                    s = f.read()
            except OSError:
                continue
            r = s.rindex(")")
            fields = s[r + 2 :].split()
            procs[pid + "/" + fields[19]] = [s[s.index("(") + 1 : r], (int(fields[11]) + int(fields[12])) / hz]
        out.write(json.dumps([now, procs]) + "\n")
        out.flush()
        time.sleep(float(sys.argv[2]))
"""


class ProgramCpu:
    """A sampler of every process's CPU, running while the `with` block does."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> ProgramCpu:
        if Path("/proc/self/stat").exists():
            self.proc = subprocess.Popen([sys.executable, "-c", _SAMPLER, str(self.path), str(INTERVAL), str(LIFETIME)])
            time.sleep(2 * INTERVAL)  # a first sample before anything is timed
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)

    def between(self, windows: list[tuple[float, float]], top: int = 8) -> list[dict[str, float]]:
        """Per window (t0, t1), in order of t0 and not overlapping: the seconds of CPU each program used in it
        (the `top` largest, the rest as "other").  Read once, after the last window."""
        if self.proc is None:
            return [{} for _ in windows]
        time.sleep(2 * INTERVAL)  # a sample after the last t1
        out: list[dict[str, float]] = []
        todo = iter(windows)
        window = next(todo, None)
        before: dict = {}
        last: dict = {}  # each process's newest sample in the window (one that ended in it counts up to there)
        with self.path.open() as samples:
            for line in samples:
                if window is None:
                    break
                try:
                    when, procs = json.loads(line)
                except ValueError:
                    continue  # a line the sampler was still writing
                if when <= window[0]:
                    before = procs
                    continue
                last.update(procs)
                if when >= window[1]:
                    out.append(_used(before, last, top))
                    before, last = procs, {}
                    window = next(todo, None)
        while len(out) < len(windows):
            out.append({})
        return out


def _used(before: dict, last: dict, top: int) -> dict[str, float]:
    used: dict[str, float] = {}
    for key, (name, cpu) in last.items():
        spent = cpu - (before[key][1] if key in before else 0.0)
        if spent > 0:
            name = name.split("/")[0].split(":")[0]  # kworker/1:0H -> kworker
            used[name] = used.get(name, 0.0) + spent
    ranked = sorted(used.items(), key=lambda kv: -kv[1])
    out = {name: round(cpu, 2) for name, cpu in ranked[:top]}
    rest = sum(cpu for _, cpu in ranked[top:])
    if rest:
        out["other"] = round(rest, 2)
    return out
