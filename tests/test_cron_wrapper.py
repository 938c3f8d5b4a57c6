"""`cron/pbem-poll` under cron's own environment (walk6).

cron runs a job with `PATH=/usr/bin:/bin`, and no `pip install` puts `pbem` there (`/usr/local/bin`,
`~/.local/bin`, a virtualenv's `bin`).  The wrapper called `pbem` from `PATH`, so the line cron/README.md gave,
`*/5 * * * * /path/to/cron/pbem-poll .../pbem.toml`, polled nothing: every run wrote "exec: pbem: not found" to
cron.log and exited 127, on the README's own install (`pip install .` in a fresh venv, walked by hand).  Now the
wrapper runs `$PBEM` when the crontab sets it, and without it (nor pbem on PATH) says in cron.log what to set and
exits 2.  Both cases, under cron's environment (`env -i`, `PATH=/usr/bin:/bin`), fail on e5c877a.  The home is
one with no pbem.toml yet: pbem's own answer to it ("no such configuration file", exit 2) in cron.log shows the
wrapper found and ran it, for the cost of one start of pbem (about 1 s) rather than of a home made and polled.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WRAPPER = ROOT / "cron" / "pbem-poll"
CRON_PATH = "/usr/bin:/bin"  # what cron gives a job (Debian's cron, Vixie cron, cronie)


def _cron(env: dict[str, str], toml: Path) -> subprocess.CompletedProcess[str]:
    """The wrapper as cron starts it: a bare environment but for the crontab's own variables."""
    bare = {"PATH": CRON_PATH, "HOME": str(toml.parent), "LANG": "C.UTF-8", **env}
    return subprocess.run(["/bin/sh", str(WRAPPER), str(toml)], env=bare, capture_output=True, text=True, timeout=120)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    if shutil.which("pbem", path=CRON_PATH):
        pytest.skip("pbem is on cron's PATH on this machine")
    (tmp_path / "home").mkdir()
    return tmp_path / "home" / "pbem.toml"


def test_the_wrapper_without_pbem_on_crons_path_says_what_to_set(home: Path) -> None:
    r = _cron({}, home)
    log = (home.parent / "cron.log").read_text()
    assert r.returncode == 2 and "PBEM=/path/to/bin/pbem" in log and "not found" not in log, (r, log)


def test_the_wrapper_runs_the_pbem_the_crontab_names(home: Path, tmp_path: Path) -> None:
    shim = tmp_path / "venv-bin" / "pbem"  # a pbem outside cron's PATH, as a virtualenv's is
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m pbem "$@"\n')
    shim.chmod(0o755)
    r = _cron({"PBEM": str(shim)}, home)
    log = (home.parent / "cron.log").read_text()
    assert r.returncode == 2 and log.startswith(f"pbem: {home}: no such configuration file"), (r, log[-1500:])
