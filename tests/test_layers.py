"""The imports run one way: CLI -> use cases (pbem.app) -> engines, record, mail; and no cycles.

Checked by reading every module's imports (as tests/engine/test_engine_purity.py
does for the engines), with tests showing that the check itself catches a
wrong-way import and a cycle.  Imports under `if TYPE_CHECKING:` count for
the direction (a type is a dependency too) but not as cycles (they never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The outer layer: drivers that may use every other layer.
CLI = ("pbem.cli", "pbem.__main__")  # with every module under pbem.cli
USE_CASES = "pbem.app"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                lines.update(range(sub.lineno, (sub.end_lineno or sub.lineno) + 1))
    return lines


def imports_of(path: Path, root: Path, modules: set[str]) -> list[tuple[str, int, bool]]:
    """(imported module, line, only for type checking) for every import of a module under `root`."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(), filename=str(path))
    typing_only = _type_checking_lines(tree)
    found = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:  # `from . import views` names a module
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in modules else base)
        for t in targets:
            found.append((t, node.lineno, node.lineno in typing_only))
    return found


def graph(root: Path, top: str = "pbem") -> dict[str, list[tuple[str, int, bool]]]:
    files = {module_name(p, root): p for p in (root / top).rglob("*.py")}
    modules = set(files)
    return {
        name: [(t, line, tc) for t, line, tc in imports_of(path, root, modules) if t in modules and t != name]
        for name, path in files.items()
    }


def _layer(module: str, top: str) -> int:
    cli = tuple(c.replace("pbem", top, 1) for c in CLI)
    app = USE_CASES.replace("pbem", top, 1)
    if module in cli or any(module.startswith(c + ".") for c in cli):
        return 2
    if module == app or module.startswith(app + "."):
        return 1
    return 0


def wrong_way(g: dict[str, list[tuple[str, int, bool]]], top: str = "pbem") -> list[str]:
    """Imports from a lower layer into a higher one (engine/record/mail -> use cases or CLI; use cases -> CLI)."""
    return [
        f"{src}:{line} imports {dst}"
        for src, deps in sorted(g.items())
        for dst, line, _ in deps
        if _layer(dst, top) > _layer(src, top)
    ]


def cycles(g: dict[str, list[tuple[str, int, bool]]]) -> list[list[str]]:
    """Strongly connected groups of modules (more than one) over imports that run."""
    edges = {m: sorted({d for d, _, tc in deps if not tc}) for m, deps in g.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


#: Mutual recursion inside one game's rules, through function-level imports (a turn ends a hand that
#: starts a turn).  Listed exactly, so that a new cycle fails here and a removed one must be struck off.
KNOWN_ENGINE_CYCLES: list[list[str]] = []


def test_imports_run_one_way() -> None:
    assert wrong_way(graph(ROOT)) == []


def test_no_import_cycles_between_pbem_modules() -> None:
    assert cycles(graph(ROOT)) == KNOWN_ENGINE_CYCLES


def test_the_use_case_layer_keeps_its_modules_small() -> None:
    long = {p.name: n for p in (ROOT / "pbem" / "app").glob("*.py") if (n := len(p.read_text().splitlines())) > 300}
    assert long == {}


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_the_direction_check_catches_a_record_module_importing_the_use_cases(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/app/__init__.py": "",
            "pkg/app/poll.py": "from ..record import store\n",
            "pkg/record/__init__.py": "",
            "pkg/record/store.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..app import poll\n",
            "pkg/cli.py": "from .app import poll\n",
        },
    )
    assert wrong_way(graph(root, "pkg"), "pkg") == ["pkg.record.store:3 imports pkg.app.poll"]


def test_the_cycle_check_catches_a_cycle_through_a_function_level_import(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from . import b\n",
            "pkg/b.py": "def f():\n    from .c import g\n",
            "pkg/c.py": "import pkg.a\n",
            "pkg/d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n",
        },
    )
    assert cycles(graph(root, "pkg")) == [["pkg.a", "pkg.b", "pkg.c"]]
