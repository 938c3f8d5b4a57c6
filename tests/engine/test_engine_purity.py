"""Principle 1: nothing under pbem/engine imports the database, templates,
mail, the clock or the global random module."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "pbem" / "engine"

ALLOWED = {
    "__future__",
    "abc",
    "bisect",
    "collections",
    "copy",
    "dataclasses",
    "enum",
    "functools",
    "hashlib",
    "heapq",
    "importlib",
    "itertools",
    "json",
    "math",
    "operator",
    "re",
    "statistics",
    "string",
    "textwrap",
    "typing",
    "fractions",
    "contextvars",  # pure: `pbem.engine.views.as_kept`, a reading's setting for verify, per thread
    "unicodedata",  # pure: names match without accents
}
FORBIDDEN_HINTS = (
    "random",
    "secrets",
    "time",
    "datetime",
    "sqlite3",
    "sqlalchemy",
    "sqlmodel",
    "alembic",
    "jinja2",
    "smtplib",
    "imaplib",
    "imapclient",
    "email",
    "mailbox",
    "socket",
    "os",
    "pathlib",
    "subprocess",
    "uuid",
    "pbem.record",
    "pbem.mail",
    "pbem.render.templates",
    "pbem.app",
    "pbem.cli",
)


def imports_of(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, node.lineno))
    return found


def test_engine_imports_only_the_standard_library_allowlist_and_itself() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert files, "no engine modules found"
    bad = []
    for path in files:
        for name, line in imports_of(path):
            top = name.split(".")[0]
            if name.startswith("pbem.engine") or top in ALLOWED:
                continue
            bad.append(f"{path.relative_to(ENGINE.parent.parent)}:{line} imports {name}")
    assert not bad, "engine modules must stay pure:\n" + "\n".join(bad)


def test_the_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    for mod in FORBIDDEN_HINTS:
        probe = tmp_path / "probe.py"
        probe.write_text(f"import {mod}\n")
        ((name, _),) = imports_of(probe)
        assert not (name.startswith("pbem.engine") or name.split(".")[0] in ALLOWED), mod
