"""A mistyped section or key of pbem.toml, or a key put under the wrong section, is refused naming what was meant.

Found by this file: `[games] default_deadlin` and `[limits] poll_deadline` (a key of `[mail]`) were refused with
the list of every allowed key and nothing more; now the nearest section or key, or the section the key belongs
to, is named ("did you mean [mail] poll_deadline?").  Every key of every section is mistyped each way a person
does: a letter left out, two letters swapped, capitals, and under another section.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.home import config as config_mod

SCHEMA = config_mod.SCHEMA
HEAD = '[moderator]\naddress = "games@example.test"\n'


def _refused(tmp_path: Path, section: str, key: str) -> str:
    file = tmp_path / "pbem.toml"
    body = HEAD if section == "moderator" else HEAD + f"[{section}]\n"
    file.write_text(body + f'"{key}" = 1\n', encoding="utf-8")
    with pytest.raises(config_mod.ConfigError) as exc:
        config_mod.load(file)
    return str(exc.value)


def _typos(key: str) -> list[str]:
    i = len(key) // 2
    return [key[:-1], key[:i] + key[i + 1] + key[i] + key[i + 2 :], key.upper()]


def test_every_key_mistyped_is_refused_naming_it(tmp_path: Path) -> None:
    for section, keys in SCHEMA.items():
        for key in keys:
            for typo in _typos(key):
                if typo in keys:
                    continue
                said = _refused(tmp_path, section, typo)
                assert f"unknown key [{section}] {typo} (did you mean " in said and f" {key}" in said, said


def test_every_key_under_another_section_names_its_own(tmp_path: Path) -> None:
    for section, keys in SCHEMA.items():
        other = next(s for s in SCHEMA if s != section and s != "moderator" and not set(keys) <= set(SCHEMA[s]))
        for key in keys:
            if key in SCHEMA[other]:
                continue
            said = _refused(tmp_path, other, key)
            assert f"unknown key [{other}] {key} (did you mean " in said and f"[{section}] {key}" in said, said


def test_a_mistyped_section_is_refused_naming_it(tmp_path: Path) -> None:
    for section in SCHEMA:
        file = tmp_path / "pbem.toml"
        file.write_text(HEAD + f"[{section}s]\nx = 1\n", encoding="utf-8")
        with pytest.raises(
            config_mod.ConfigError, match=rf"unknown section \[{section}s\] \(did you mean \[{section}\]"
        ):
            config_mod.load(file)
