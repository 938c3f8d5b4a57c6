"""`pip install .` into a fresh virtual environment gives a working `pbem` anywhere."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import tomllib
import venv
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def discovered_packages() -> set[str]:
    """The packages setuptools puts in the wheel, found from pyproject.toml as `pip wheel` finds them."""
    from setuptools.config.pyprojecttoml import apply_configuration
    from setuptools.dist import Distribution

    dist = Distribution()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        apply_configuration(dist, str(ROOT / "pyproject.toml"))
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            dist.set_defaults()
        finally:
            os.chdir(cwd)
    return set(dist.packages)


def test_every_package_folder_ships_with_the_templates_and_migrations() -> None:
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "packages" not in cfg, "packages are discovered from [tool.setuptools.package-dir]: list none"
    assert cfg["package-dir"] == {"pbem": "pbem", "pbem._templates": "templates", "pbem._migrations": "migrations"}
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "pbem").rglob("__init__.py")}
    shipped = discovered_packages()
    assert found | {"pbem._templates", "pbem._migrations"} <= shipped, sorted(found - shipped)
    assert all(p == "pbem" or p.startswith("pbem.") for p in shipped), sorted(shipped)


def declared_closure(requires: list[str]) -> set[str]:
    """The distributions `requires` (Requires-Dist lines, no extra asked) brings, and theirs, as installed here."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import requires as requires_of

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen: set[str] = set()
    todo = list(requires)
    while todo:
        req = Requirement(todo.pop())
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        seen.add(name)
        with contextlib.suppress(PackageNotFoundError):  # not installed here: the caller's version check names it
            todo.extend(requires_of(req.name) or [])
    return seen


def imported_top_names(stderr: str) -> set[str]:
    """The top-level modules a run with PYTHONPROFILEIMPORTTIME=1 imported (its `import time:` lines)."""
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "package":  # the header line
                names.add(name.split(".")[0])
    return names


def not_import_times(stderr: str) -> str:
    return "\n".join(line for line in stderr.splitlines() if not line.startswith("import time:"))[-2000:]


def wheel_requires(wheel: Path) -> list[str]:
    import zipfile

    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode()
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Requires-Dist:")]


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_venv_and_runs_the_demo_from_any_directory(tmp_path: Path) -> None:
    """The wheel, built from this checkout, installed into a fresh venv, runs the demo and verify from another folder,
    reads its templates and migrations from the venv, and imports no library its metadata does not bring.

    The venv sees this machine's libraries (`--system-site-packages`) and the wheel is installed without them
    (`--no-deps`): resolving and unpacking pbem's 75 libraries into the venv took 8 of the test's 19 CPU s.  What that
    install checked is checked here from the wheel's metadata: every Requires-Dist is met by the version installed
    (so pip would choose those), and every library the demo and verify import (`PYTHONPROFILEIMPORTTIME`) belongs
    to a distribution those requirements bring, directly or through another - a library pbem imports but does not
    declare, which the fresh venv's demo failed on, is named.  pbem itself is the venv's: the checkout's editable
    install (a finder after the path's) is never reached, as the `where` run below shows."""
    from importlib.metadata import PackageNotFoundError, packages_distributions, version

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheel = next(wheels.glob("pbem-*.whl"))
    requires = wheel_requires(wheel)
    assert any(r.startswith("sqlmodel") for r in requires), requires
    for line in requires:
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        try:
            got = version(req.name)
        except PackageNotFoundError:
            pytest.fail(f"{line}: not installed here")
        assert req.specifier.contains(got, prereleases=True), f"{line}: {got} installed"
    closure = declared_closure(requires)
    env_dir = tmp_path / "venv"
    # No pip inside the venv (ensurepip costs about 6 CPU s): this pip installs into it with `--python`.
    venv.create(env_dir, with_pip=False, system_site_packages=True)
    py = env_dir / "bin" / "python"
    # nothing from this checkout on the path (PYTHONPATH=. would make pip see pbem as installed, via its egg-info)
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # --no-compile: Python compiles what the demo imports as it imports it; --ignore-installed: the checkout's
    # editable pbem, which the venv sees, is neither uninstalled nor taken for this one
    res = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-compile", "--no-deps"),
            *("--ignore-installed", str(wheel)),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=clean,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    work = tmp_path / "somewhere" / "else"
    work.mkdir(parents=True)
    timed = {**clean, "PYTHONPROFILEIMPORTTIME": "1"}
    demo = subprocess.run(
        [str(env_dir / "bin" / "pbem"), "demo", "italian-wars", "--seed", "pkg", "--dir", str(tmp_path / "demo-home")],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
        env=timed,
    )
    assert demo.returncode == 0, not_import_times(demo.stderr)
    assert "verify: passed" in demo.stdout
    export = re.search(r"history: (\S+)", demo.stdout).group(1)
    ver = subprocess.run(
        [str(env_dir / "bin" / "pbem"), "verify", export], cwd=work, capture_output=True, text=True, env=timed
    )
    assert ver.returncode == 0 and "verification passed" in ver.stdout, not_import_times(ver.stderr)
    # the installed copy must not read templates or migrations from this checkout (nor the editable one's)
    where = subprocess.run(
        [
            str(py),
            "-c",
            "import pbem; from pbem.render.resources import templates_dir; from pbem.record.db import migrations_dir;"
            "print(pbem.__file__); print(templates_dir()); print(migrations_dir())",
        ],
        cwd=work,
        capture_output=True,
        text=True,
        env=timed,
    )
    lines = where.stdout.split()
    assert len(lines) == 3 and all(line.startswith(str(env_dir)) for line in lines), where.stdout
    assert "_templates" in where.stdout
    # the libraries imported: none that pbem's requirements do not bring (Python's own and the interpreter's
    # start-up, `site`'s .pth files, aside)
    started = imported_top_names(where.stderr) - imported_top_names(ver.stderr) - imported_top_names(demo.stderr)
    assert not started, started  # `where` imports no more than the commands do: its start-up is theirs
    bare = subprocess.run([str(py), "-c", "pass"], cwd=work, capture_output=True, text=True, env=timed)
    used = imported_top_names(demo.stderr) | imported_top_names(ver.stderr)
    used -= imported_top_names(bare.stderr) | set(sys.stdlib_module_names) | set(sys.builtin_module_names) | {"pbem"}
    owners = packages_distributions()
    undeclared = {}
    for name in sorted(used):
        dists = {canonicalize_name(d) for d in owners.get(name, [])}
        if dists and not dists & closure:  # no distribution's: the interpreter's own (an extension module, say)
            undeclared[name] = sorted(dists)
    assert not undeclared, f"imported, but no requirement of pbem brings them: {undeclared}"
