"""Every command's every text value given as bytes that are not UTF-8 is refused in one clear line, exit 2 (judges4).

A shell passes a command line's bytes as they are; Python keeps a byte that is not UTF-8 as a lone surrogate
(`\\udcff`).  `pbem init --name $'Mod\\xff'` ended in "'utf-8' codec can't encode character '\\udcff' in position
365: surrogates not allowed" (a position in pbem.toml the moderator never saw), and the class was wider: `game say`
and `game show` with such a value ended in a traceback (the chain's canonical JSON, the database's query), `game
new --name` in the codec's line.  Now every parameter a command reads as text refuses such a value before the
command runs, naming the parameter and showing the bytes escaped; a path (`--output`, `verify FILE`) is the file
system's and may hold any bytes.  The generator takes every command and parameter of typer's own list
(`tests.reliability.test_costs5_commands`), so a command added later is tried too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from tests.reliability.test_costs5_commands import GIANT, _args, _cases, _command
from tests.reliability.test_costs5_commands import home as home  # the fixture

NOT_UTF8 = "Mod\udcff\udcfeerator"  # the bytes 'Mod\xff\xfeerator' as Python's command line gives them


def _texts() -> list[tuple[str, str]]:
    out = []
    for path, name in _cases():
        p = next((q for q in _command(path).params if q.name == name), None)
        annotation = getattr(getattr(p, "type_descriptor", None), "annotation", None)
        if annotation in (str, list[str]):
            out.append((path, name))
    return out


@pytest.mark.parametrize(("path", "param"), _texts())
def test_a_value_not_utf8_is_refused_in_one_line_naming_it(home: Path, path: str, param: str) -> None:
    args = [NOT_UTF8 if a == GIANT else a for a in _args(path, param, home)]
    res = CliRunner().invoke(app, args)
    raised = res.exception if not isinstance(res.exception, SystemExit) else None
    assert raised is None, f"{path} {param}: {raised!r}"
    assert res.exit_code == 2, (path, param, res.exit_code, res.output)
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1, (path, param, res.output)
    assert "is not UTF-8 text" in lines[0] and "Mod\\xff\\xfeerator" in lines[0], (path, param, res.output)


def test_init_refuses_a_name_not_utf8_before_writing_anything(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["init", str(tmp_path / "h"), "--address", "m@x.test", "--name", NOT_UTF8])
    assert res.exit_code == 2, res.output
    assert res.output.strip() == (
        "pbem: --name 'Mod\\xff\\xfeerator' is not UTF-8 text (bytes shown as \\xNN): give it as UTF-8"
    ), res.output
    assert not (tmp_path / "h").exists()
