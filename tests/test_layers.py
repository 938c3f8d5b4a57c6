"""The shape of the package, checked by reading every module's imports.

Four rules, each with a test below showing that a synthetic wrong-way tree fails it:

(a) the use cases (pbem.app) import no SQLAlchemy or SQLModel: every query lives in pbem.record
    (`SQL_IN_APP` lists today's offenders, exactly; it only shrinks);
(b) no import cycles between pbem modules, counting imports inside functions and the package
    `__init__` that an import of a submodule runs (`KNOWN_ENGINE_CYCLES`, exactly; it only shrinks);
(c) no loose modules at the top of pbem/ beyond the entry points (`__init__`, `__main__`);
(d) each package imports only the packages its row of `ALLOWED` names (and the layers run one way:
    CLI -> use cases -> everything else).

Imports under `if TYPE_CHECKING:` count for the direction and the table (a type is a dependency too)
but not as cycles (they never run).  docs/architecture.md describes the layers.
"""

from __future__ import annotations

import ast
from functools import cache
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


def _runs(module: str, target: str, modules: set[str]) -> set[str]:
    """What importing `target` from `module` runs: the target and each enclosing package's `__init__`
    (except those `module` itself sits in, which are already running)."""
    parts = target.split(".")
    parents = {".".join(parts[:i]) for i in range(1, len(parts))}
    return {target} | {p for p in parents if p in modules and not module.startswith(p + ".")}


def cycles(g: dict[str, list[tuple[str, int, bool]]]) -> list[list[str]]:
    """Strongly connected groups of modules (more than one) over imports that run."""
    modules = set(g)
    edges = {m: sorted({r for d, _, tc in deps if not tc for r in _runs(m, d, modules)} - {m}) for m, deps in g.items()}
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


def external_imports(path: Path) -> list[tuple[str, int]]:
    """(top-level distribution module, line) for every absolute import of a module, at any depth."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(a.name.split(".")[0], node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.append((node.module.split(".")[0], node.lineno))
    return found


#: Distributions that mean "talks SQL": only pbem.record may import them (of the inner layers).
SQL_LIBRARIES = {"sqlalchemy", "sqlmodel", "alembic", "psycopg"}


def sql_importers(root: Path, top: str = "pbem") -> list[str]:
    """Modules of the use-case layer (`top`.app) that import a SQL library, each once, sorted."""
    app = root / top / "app"
    return sorted(
        module_name(p, root) for p in app.rglob("*.py") if any(lib in SQL_LIBRARIES for lib, _ in external_imports(p))
    )


#: The use-case modules that still import SQLAlchemy/SQLModel (issue 22 moves their queries into
#: pbem.record).  Exact: a new one fails, and a module that no longer imports SQL must be struck off.
SQL_IN_APP: list[str] = []  # every query lives in pbem/record (issue 22): none is allowed back


def table_importers(g: dict[str, list[tuple[str, int, bool]]], top: str = "pbem") -> list[str]:
    """Modules of the use-case layer that import the record's tables (`top`.record.models), sorted.  The
    record hands out frozen rows (`top`.record.rows); only the writer names the tables it inserts into."""
    return sorted(
        m
        for m, deps in g.items()
        if m.startswith(f"{top}.app.") and any(t == f"{top}.record.models" for t, _, _ in deps)
    )


#: The one use-case module that names the record's tables: `apply`, the writer (its INSERT targets).
TABLES_IN_APP = ["pbem.app.apply"]


#: The only modules allowed directly in pbem/: the package itself and `python -m pbem`.
ENTRY_POINTS = {"__init__.py", "__main__.py"}


def loose_modules(root: Path, top: str = "pbem") -> list[str]:
    """Modules directly in `top`/ that are not entry points (every other module belongs in a package)."""
    return sorted(p.name for p in (root / top).glob("*.py") if p.name not in ENTRY_POINTS)


def unit(module: str, top: str = "pbem") -> str:
    """The row of `ALLOWED` a module falls under: its package below `top` (mail by its three parts)."""
    parts = module.split(".")[1:]
    if not parts:
        return top  # the package's own __init__
    if parts[0] == "mail" and len(parts) > 1 and parts[1] in ("inbound", "outbound", "transports"):
        return f"mail.{parts[1]}"
    return parts[0]


EVERYTHING = "*"

#: {package: the other packages it may import}.  A package may always import its own modules.
#: Derived from the imports on main after the issue-22 moves; each row says why.  A new package
#: needs a row (the test fails until it has one), and a new edge needs a reason here.
ALLOWED: dict[str, set[str]] = {
    # the CLI is the driver: it wires every layer together (thin Typer commands)
    "cli": {EVERYTHING},
    # `python -m pbem` starts the CLI and nothing else
    "__main__": {"cli"},
    # the package's __init__ holds the version only
    "pbem": set(),
    # use cases: decide with the engines and orders, keep in the record, write mail, prove with trust,
    # export history, read the home's settings, render reports.  Never the CLI.
    "app": {
        "engine",
        "orders",
        "record",
        "trust",
        "history",
        "render",
        "home",
        "mail",
        "mail.inbound",
        "mail.outbound",
        "mail.transports",
    },
    # the rules are pure: no db, mail, clock, global random; only other engine modules
    "engine": set(),
    # reading a mail body into order lines needs each game's order words, nothing else
    "orders": {"engine"},
    # seeds, codes, deal and chain are pure over engine types; verify re-reads the record to check it,
    # receipts name the headers outgoing mail carries; `verify --sent` reads a sent mail's order lines as pbem does
    "trust": {"engine", "record", "mail.outbound", "orders", "render"},  # render.sanitize: what reports print
    # the record stores engine states, chains events (trust.chain), deals seats (trust.deal), and finds
    # its shipped migrations through render.resources, and hands out the mails pbem sent as mail.inbound's
    # SentMail (what a reply answers); a database server's name is resolved with a deadline as the mail
    # servers' are (mail.transports.resolve)
    "record": {"engine", "trust", "render", "mail.inbound", "mail.transports"},
    # templates: engine words in the text, and reply subjects shaped as compose shapes them
    "render": {"engine", "mail.outbound"},
    # the history: engine events read from the record, seeds revealed (trust), pages through templates
    "history": {"engine", "record", "trust", "render"},
    # the home's configuration names the transport kinds it accepts; its composition root (home/app.py:
    # Home) builds the unit of work on the record and the composer of outgoing mail
    "home": {"mail.transports", "mail.outbound", "record"},
    # `pbem check` of a home's mail settings
    "mail": {"home", "mail.transports"},
    # reading a message: the order extraction of its body
    "mail.inbound": {"orders"},
    # composing and sending: the home's identity, templates, the outbox in the record, a transport, and the
    # game's key that signs each receipt (trust.signing)
    "mail.outbound": {"home", "render", "record", "mail.transports", "trust"},
    # Maildir, IMAP, SMTP: connection settings from the home
    "mail.transports": {"home"},
}


def disallowed(g: dict[str, list[tuple[str, int, bool]]], allowed: dict[str, set[str]], top: str = "pbem") -> list[str]:
    """Imports across packages that the table does not allow, and modules whose package has no row."""
    out = []
    for src, deps in sorted(g.items()):
        row = unit(src, top)
        if row not in allowed:
            out.append(f"{src} is in package {row!r}, which has no row in ALLOWED")
            continue
        for dst, line, _ in deps:
            to = unit(dst, top)
            if dst == top and not g.get(top):  # the package itself holds only its version and imports nothing
                continue
            if to != row and EVERYTHING not in allowed[row] and to not in allowed[row]:
                out.append(f"{src}:{line} imports {dst} ({row} -> {to} is not allowed)")
    return out


#: Mutual recursion inside one game's rules, through function-level imports (a turn ends a hand that
#: starts a turn).  Listed exactly, so that a new cycle fails here and a removed one must be struck off.
KNOWN_ENGINE_CYCLES: list[list[str]] = []


@cache
def main_graph() -> dict[str, list[tuple[str, int, bool]]]:
    """The graph of this checkout's pbem (read once per test run)."""
    return graph(ROOT)


def test_imports_run_one_way() -> None:
    assert wrong_way(main_graph()) == []


def test_no_import_cycles_between_pbem_modules() -> None:
    assert cycles(main_graph()) == KNOWN_ENGINE_CYCLES


def test_the_use_cases_import_no_sql_beyond_the_shrinking_list() -> None:
    assert sql_importers(ROOT) == SQL_IN_APP


def test_the_use_cases_hold_frozen_rows_and_only_the_writer_names_the_tables() -> None:
    assert table_importers(main_graph()) == TABLES_IN_APP


def test_the_table_check_catches_a_use_case_importing_the_tables(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/app/__init__.py": "",
            "pkg/app/reads.py": "from pkg.record.rows import Game\n",
            "pkg/app/sneaks.py": "def f():\n    from pkg.record.models import Game\n",
            "pkg/record/__init__.py": "",
            "pkg/record/models.py": "",
            "pkg/record/rows.py": "",
        },
    )
    assert table_importers(graph(root, "pkg"), "pkg") == ["pkg.app.sneaks"]


def test_pbem_has_no_loose_top_level_modules() -> None:
    assert loose_modules(ROOT) == []


def test_each_package_imports_only_what_its_row_allows() -> None:
    assert disallowed(main_graph(), ALLOWED) == []


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


def test_the_cycle_check_counts_the_package_init_an_import_runs(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "from pkg.sub import x\n",
            "pkg/sub/x.py": "from pkg import y\n",
            "pkg/y.py": "def f():\n    from pkg.sub.z import g\n",
            "pkg/sub/z.py": "",
        },
    )
    assert cycles(graph(root, "pkg")) == [["pkg.sub", "pkg.sub.x", "pkg.y"]]


def test_the_sql_check_catches_a_use_case_importing_sqlalchemy_even_inside_a_function(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/app/__init__.py": "",
            "pkg/app/clean.py": "from pkg.record import store\n",
            "pkg/app/late.py": "def f():\n    from sqlalchemy import text\n",
            "pkg/app/typed.py": "from sqlmodel import Session\n",
            "pkg/record/__init__.py": "",
            "pkg/record/store.py": "import sqlalchemy\n",
        },
    )
    assert sql_importers(root, "pkg") == ["pkg.app.late", "pkg.app.typed"]


def test_the_top_level_check_catches_a_loose_module(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/__main__.py": "", "pkg/helpers.py": "", "pkg/app/__init__.py": ""},
    )
    assert loose_modules(root, "pkg") == ["helpers.py"]


def test_the_table_check_catches_a_wrong_way_import_and_a_package_with_no_row(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/engine/__init__.py": "",
            "pkg/engine/rules.py": "def f():\n    from pkg.mail.outbound import compose\n",
            "pkg/orders/__init__.py": "",
            "pkg/orders/read.py": "from pkg.engine import rules\n",
            "pkg/mail/__init__.py": "",
            "pkg/mail/outbound/__init__.py": "",
            "pkg/mail/outbound/compose.py": "from pkg.orders import read\n",
            "pkg/extra/__init__.py": "",
        },
    )
    table = {"pkg": set(), "engine": set(), "orders": {"engine"}, "mail": set(), "mail.outbound": {"orders"}}
    assert disallowed(graph(root, "pkg"), table, "pkg") == [
        "pkg.engine.rules:2 imports pkg.mail.outbound.compose (engine -> mail.outbound is not allowed)",
        "pkg.extra is in package 'extra', which has no row in ALLOWED",
    ]
    assert disallowed(graph(root, "pkg"), {**table, "extra": set(), "engine": {"mail.outbound"}}, "pkg") == []
