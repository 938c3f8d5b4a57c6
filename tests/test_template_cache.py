"""The compiled-template cache (`pbem.render.templates._Compiled`) is an optimisation only: the same mail
comes out compiled, from the cache, from a broken cache entry, and with a folder that cannot be used."""

from __future__ import annotations

from pathlib import Path

from jinja2 import DictLoader, Environment

from pbem.render.templates import _Compiled, env

SOURCE = {"mail.txt.j2": "{% for p in players %}{{ p|upper }}{% if not loop.last %}, {% endif %}{% endfor %}\n"}
WANT = "ALICE, BOB"  # (a plain Environment drops the trailing newline)


def rendered(cache: _Compiled) -> str:
    return (
        Environment(loader=DictLoader(SOURCE), bytecode_cache=cache)
        .get_template("mail.txt.j2")
        .render(players=["alice", "bob"])
    )


def test_compiled_then_cached_then_broken(tmp_path: Path) -> None:
    cache = _Compiled(str(tmp_path))
    assert rendered(cache) == WANT  # compiled, and written
    entries = list(tmp_path.iterdir())
    assert len(entries) == 1
    assert rendered(cache) == WANT  # read back from the cache
    entries[0].write_bytes(entries[0].read_bytes()[:40] + b"\x00garbage")  # right header, broken code
    assert rendered(cache) == WANT
    entries[0].write_bytes(b"not a cache entry at all")
    assert rendered(cache) == WANT


def test_a_folder_that_cannot_be_used(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("in the way")
    assert rendered(_Compiled(str(blocked))) == WANT  # nothing can be written there: compiled every time
    assert not list(tmp_path.glob("a-file*.tmp"))


def test_the_mail_templates_use_it() -> None:
    assert isinstance(env().bytecode_cache, _Compiled)
