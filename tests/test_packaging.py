"""`pip install .` into a fresh virtual environment gives a working `pbem` anywhere."""

from __future__ import annotations

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


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_venv_and_runs_the_demo_from_any_directory(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheel = next(wheels.glob("pbem-*.whl"))
    env_dir = tmp_path / "venv"
    # No pip inside the venv (ensurepip costs about 6 CPU s): this pip installs into it with `--python`,
    # which runs pip under the venv's interpreter, so the wheel and its dependencies land in the fresh venv.
    venv.create(env_dir, with_pip=False)
    py = env_dir / "bin" / "python"
    # nothing from this checkout on the path (PYTHONPATH=. would make pip see pbem as installed, via its egg-info)
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # --no-compile: no .pyc written for the wheel and its dependencies (byte-compiling SQLAlchemy and the rest cost
    # 2 of the test's 19 CPU s); Python compiles what the demo imports as it imports it
    res = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-compile", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
        env=clean,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    work = tmp_path / "somewhere" / "else"
    work.mkdir(parents=True)
    demo = subprocess.run(
        [str(env_dir / "bin" / "pbem"), "demo", "italian-wars", "--seed", "pkg", "--dir", str(tmp_path / "demo-home")],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
        env=clean,
    )
    assert demo.returncode == 0, demo.stderr[-2000:]
    assert "verify: passed" in demo.stdout
    export = re.search(r"history: (\S+)", demo.stdout).group(1)
    ver = subprocess.run(
        [str(env_dir / "bin" / "pbem"), "verify", export], cwd=work, capture_output=True, text=True, env=clean
    )
    assert ver.returncode == 0 and "verification passed" in ver.stdout
    # the installed copy must not read templates or migrations from this checkout
    where = subprocess.run(
        [
            str(py),
            "-c",
            "from pbem.render.resources import templates_dir; from pbem.record.db import migrations_dir;print(templates_dir()); print(migrations_dir())",
        ],
        cwd=work,
        capture_output=True,
        text=True,
        env=clean,
    )
    assert str(ROOT) not in where.stdout and "_templates" in where.stdout
