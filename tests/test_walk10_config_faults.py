"""Every configuration fault ends `pbem poll` as its `--help` and the README say (walk10, walk9's leftover).

`pbem poll --help` lists "bad configuration" as exit 2; an unset `password_env` ended exit 3, as for a mail server
that cannot be reached, so a cron wrapper told "try again later" for a fault that never mends itself.

Generator: a home whose `[mail] transport = "imap"` reads and sends through 127.0.0.1:9 (nothing listens, so a
home configured right ends exit 3, "could not connect"), and each fault alone:
  * every key of the file taken out (an optional one falls back to its default: exit 3 as the intact home, or 0
    for `transport`, whose default is the Maildir; a needed one is refused: exit 2), required: exit 0, 2 or 3, one
    line "pbem: ..." unless 0, no traceback;
  * every key of every section pbem reads (`pbem.home.config.SCHEMA`) given a value of the wrong type, required:
    exit 2, one line naming "[section] key";
  * `password_env` naming a variable that is not set, in [imap] and in [smtp], required: exit 2 naming it;
  * the file itself: missing, a folder, a FIFO, not UTF-8, not TOML, over 1 MiB, required: exit 2 naming it;
  * `password_command` failing (README: "prints one line naming the key and the exit status and stops (exit 3)"),
    required: exit 3 naming the key.
On b1f92b21 2 of the 81 cases failed (the two unset `password_env`: exit 3); 0 now.  The README's command runs
the first 8 keys taken out and the first 6 wrong types, 23 cases (2 of 23 failed on b1f92b21; `PBEM_FULL_SIZE=1`:
all 81).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from pbem.cli import app
from pbem.home.config import SCHEMA
from tests.sizes import FULL

MAIL = {"host": "127.0.0.1", "port": 9, "ssl": False, "starttls": False, "username": "m"}
LIST_KEYS = {"reminders", "password_command", "token_command"}  # the keys whose value is a list


def _toml(doc: dict[str, dict[str, Any]]) -> str:
    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + "}"
        return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'

    return "".join(f"[{s}]\n" + "".join(f"{k} = {value(v)}\n" for k, v in keys.items()) for s, keys in doc.items())


def _home(root: Path) -> dict[str, dict[str, Any]]:
    """The intact home's configuration (its database made by `pbem init`)."""
    from pbem.cli.support import init_home

    init_home(root, address="moderator@pbem.test")
    return {
        "moderator": {"address": "moderator@pbem.test", "name": "pbem moderator"},
        "database": {"url": "sqlite:///pbem.db"},
        "mail": {"transport": "imap"},
        "maildir": {"path": "mail"},
        "games": {"default_deadline": "48h", "reminders": ["24h", "2h"], "resolve": "asap"},
        "imap": {**MAIL, "password_env": "PBEM_WALK10_SET"},
        "smtp": {**MAIL, "password_env": "PBEM_WALK10_SET"},
    }


def cases(doc: dict[str, dict[str, Any]]) -> Iterator[tuple[str, Any, tuple[int, ...], str]]:
    """(name, the file's text or a maker of the file, the exit codes allowed, words the line must hold)."""
    present = [(s, k) for s, keys in doc.items() for k in keys]
    for section, key in present if FULL else present[:8]:
        rest = {s: {k: v for k, v in ks.items() if (s, k) != (section, key)} for s, ks in doc.items()}
        yield f"without [{section}] {key}", _toml(rest), (0, 2, 3), ""
    wrong = [(s, k) for s, keys in SCHEMA.items() for k in keys]
    for section, key in wrong if FULL else wrong[:6]:
        bad = 7 if key in LIST_KEYS else [[1]]
        changed = {**doc, section: {**doc.get(section, {}), key: bad}}
        yield f"[{section}] {key} = {bad}", _toml(changed), (2,), f"[{section}] {key}"
    for section in ("imap", "smtp"):
        unset = {**doc, section: {**doc[section], "password_env": "PBEM_WALK10_UNSET"}}
        yield f"[{section}] password_env unset", _toml(unset), (2,), "PBEM_WALK10_UNSET"
    failing = {**doc, "imap": {**MAIL, "password_command": ["false"]}}
    yield "[imap] password_command failing", _toml(failing), (3,), "password_command"
    yield "no file", None, (2,), "pbem.toml"
    yield "a folder", "folder", (2,), "pbem.toml"
    yield "a FIFO", "fifo", (2,), "pbem.toml"
    yield "not UTF-8", b'[moderator]\naddress = "\xff"\n', (2,), "UTF-8"
    yield "not TOML", "[moderator\n", (2,), "TOML"
    yield "over 1 MiB", "#" * (1 << 20) + "\n" + _toml(doc), (2,), "pbem.toml"


def _write(path: Path, made: Any) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    if made is None:
        return
    if made == "folder":
        path.mkdir()
    elif made == "fifo":
        os.mkfifo(path)
    else:
        path.write_bytes(made if isinstance(made, bytes) else made.encode())


def failures(root: Path, only: list[str] | None = None) -> tuple[int, list[str]]:
    doc = _home(root)
    path = root / "pbem.toml"
    wrong, n = [], 0
    for name, made, allowed, words in cases(doc):
        if only is not None and name not in only:
            continue
        n += 1
        _write(path, made)
        got = CliRunner().invoke(app, ["--config", str(path), "poll"], env={"PBEM_WALK10_SET": "secret"})
        said = got.output.strip()
        why = []
        if got.exception is not None and not isinstance(got.exception, SystemExit):
            why.append(f"a traceback ({type(got.exception).__name__}: {got.exception})")
        if got.exit_code not in allowed:
            why.append(f"exit {got.exit_code}, not {' or '.join(map(str, allowed))}")
        if got.exit_code != 0 and (len(said.splitlines()) != 1 or not said.startswith("pbem: ") or words not in said):
            why.append("not one line 'pbem: ...'" + (f" naming {words!r}" if words else ""))
        if why:
            wrong.append(f"{name}: {', '.join(why)}: {said[-300:]}")
    return n, wrong


def test_every_configuration_fault_ends_the_poll_as_its_help_says(tmp_path: Path) -> None:
    n, wrong = failures(tmp_path / "home")
    assert n >= 20 and wrong == [], f"{len(wrong)} of {n} faults:\n" + "\n".join(wrong)
