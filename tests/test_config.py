"""Configuration: `pbem init`, defaults, relative paths and clear errors."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from pbem.home import config as config_mod
from pbem.home.config import ConfigError, load


def test_init_writes_a_commented_file_that_loads_with_defaults(home) -> None:
    text = home.path.read_text()
    assert text.count("#") > 20, "every key should be explained"
    assert home.moderator_address == "moderator@pbem.test"
    assert home.transport == "maildir"
    assert home.default_deadline == timedelta(hours=48)
    assert home.database_url == f"sqlite:///{home.path.parent / 'pbem.db'}"
    assert home.maildir_path == home.path.parent / "mail"
    assert (home.maildir_path / "inbox" / "new").is_dir()


def test_relative_paths_are_relative_to_the_file_not_the_working_directory(tmp_path: Path, monkeypatch) -> None:
    cfgdir = tmp_path / "conf"
    cfgdir.mkdir()
    (cfgdir / "pbem.toml").write_text(
        '[moderator]\naddress = "m@x.org"\n[database]\nurl = "sqlite:///data/x.db"\n[maildir]\npath = "../box"\n'
    )
    monkeypatch.chdir(tmp_path)
    cfg = load(cfgdir / "pbem.toml")
    assert cfg.database_url == f"sqlite:///{cfgdir / 'data' / 'x.db'}"
    assert cfg.maildir_path == tmp_path / "box"


def test_pbem_config_environment_variable_is_used(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "elsewhere.toml").write_text('[moderator]\naddress = "m@x.org"\n')
    monkeypatch.setenv("PBEM_CONFIG", str(tmp_path / "elsewhere.toml"))
    assert load().moderator_address == "m@x.org"


@pytest.mark.parametrize(
    "body, fragment",
    [
        ('[database]\nuri = "x"\n', "unknown key [database] uri (did you mean url?); allowed keys: url"),
        ("[mailer]\nx = 1\n", "unknown section [mailer]"),
        ('[mail]\ntransport = "pop3"\n', 'bad value for [mail] transport: must be one of "maildir", "imap"'),
        ('[games]\ndefault_deadline = "two days"\n', "bad value for [games] default_deadline"),
        ('[moderator]\naddress = "not an address"\n', "bad value for [moderator] address"),
        ("[imap]\nport = 99999\n", "bad value for [imap] port"),
        ('[mail]\ntransport = "imap"\n', "needs [imap] host"),
        ("not toml = = 1", "not valid TOML"),
    ],
)
def test_bad_files_are_reported_with_file_key_and_what_is_allowed(tmp_path: Path, body: str, fragment: str) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text(body)
    with pytest.raises(ConfigError) as err:
        load(path)
    assert str(path) in str(err.value)
    assert fragment in str(err.value)


def test_missing_file_says_how_to_create_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="pbem init"):
        load(tmp_path / "nope.toml")


def test_the_example_file_is_complete_and_valid() -> None:
    example = Path(__file__).resolve().parents[1] / "examples" / "pbem.toml"
    cfg = load(example)
    text = example.read_text()
    for section, keys in config_mod.SCHEMA.items():
        assert f"[{section}]" in text, section
        for key in keys:
            assert f"{key} =" in text or f"#{key} =" in text, (section, key)
    assert cfg.transport in ("maildir", "imap")


def test_password_comes_from_the_named_environment_variable(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text(
        '[moderator]\naddress = "m@x.org"\n'
        '[mail]\ntransport = "imap"\n[imap]\nhost = "h"\npassword_env = "PBEM_TEST_PW"\n[smtp]\nhost = "h"\n'
    )
    cfg = load(path)
    with pytest.raises(ConfigError, match="PBEM_TEST_PW"):
        cfg.imap.secret(path, "imap")
    monkeypatch.setenv("PBEM_TEST_PW", "s3cret")
    assert cfg.imap.secret(path, "imap") == "s3cret"


def test_stored_mail_limits_and_trusted_authserv_id(tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text('[moderator]\naddress = "m@x.test"\n')
    cfg = load(path)
    assert (cfg.max_stored_stranger, cfg.max_stored_player, cfg.trust_authentication_results) == (
        256 * 1024,
        4 * 1024 * 1024,
        "",
    )
    path.write_text(
        '[moderator]\naddress = "m@x.test"\n[mail]\nmax_stored_stranger = "64 KiB"\nmax_stored_player = 2000000\n'
        'trust_authentication_results = "mx.example.org"\n'
    )
    cfg = load(path)
    assert (cfg.max_stored_stranger, cfg.max_stored_player, cfg.trust_authentication_results) == (
        65536,
        2_000_000,
        "mx.example.org",
    )
    for bad in ('max_stored_stranger = "lots"', "max_stored_player = 10", 'trust_authentication_results = "a b"'):
        path.write_text(f'[moderator]\naddress = "m@x.test"\n[mail]\n{bad}\n')
        with pytest.raises(ConfigError, match=r"\[mail\]"):
            load(path)
