"""A PostgreSQL URL's own `connect_timeout` cannot make the connection's wait endless (costs19).

libpq reads a `connect_timeout` of 0 or less as "wait for ever", and pbem kept a URL's own: a moderator's URL with
`?connect_timeout=0` to a server that accepts and never answers held any command without end (the wait
`PG_CONNECT_TIMEOUT` closed for a URL without one: tests/reliability/test_waits_database.py).  The generator: ten
values (0, -5, -0, 00, +0, a 14-digit number, abc, 1.5, empty, 3) against a silent server on 127.0.0.1, each
given 15 s: on e5c877a 6 of 10 were still waiting at 15 s (0, -5, -0, 00, +0 and the 14-digit one), abc raised
ValueError (a traceback, not the one line), 1.5 ended at 2.4 s, empty and 3 at their 10 and 3 s.  Now 0 of 10 wait
past `PG_CONNECT_MOST` (3 s for the run: 3.2 to 3.6 s, unreadable ones the default 10), each wait from 1 to
`PG_CONNECT_MOST` seconds (`db.connect_seconds`), and the configuration refuses a URL whose value is not one of them in one line.  The suite
runs the values through `connect_seconds` and the configuration, and one (0) against the silent server with
`PG_CONNECT_MOST` at 1 s; `PBEM_COSTS19_FULL=1` all ten against it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.home import config
from pbem.record import db
from tests.mail.test_deadlines import server
from tests.reliability.test_waits_database import _ends_in_one_line
from tests.reliability.test_waits_servers import silent

ENDLESS = ["0", "-5", "-0", "00", "+0"]  # libpq waits for ever
ODD = ["99999999999999", "abc", "1.5", ""]
URL = "postgresql+psycopg://pbem:secret-pw@127.0.0.1:{port}/pbem?connect_timeout={value}"


@pytest.fixture()
def fresh_engines() -> Iterator[None]:
    db.engine_for.cache_clear()
    yield
    db.engine_for.cache_clear()


def test_every_value_is_a_wait_of_1_to_the_most_seconds() -> None:
    for value in [*ENDLESS, *ODD, "3", "300", "301", None, " 7 "]:
        assert 1 <= db.connect_seconds(value) <= db.PG_CONNECT_MOST, value
    assert [db.connect_seconds(v) for v in ("3", " 7 ", None, "abc", "0", "301")] == [3, 7, 10, 10, 300, 300]


@pytest.mark.parametrize("value", [*ENDLESS, *ODD[:3]])  # (an empty one is none: the default)
def test_the_configuration_refuses_a_url_whose_wait_is_not_one_in_one_line(tmp_path: Path, value: str) -> None:
    toml = tmp_path / "pbem.toml"
    toml.write_text(f'[database]\nurl = "{URL.format(port=5432, value=value)}"\n')
    with pytest.raises(config.ConfigError) as err:
        config.load(toml)
    line = str(err.value)
    assert "connect_timeout" in line and "from 1 to 300" in line and "\n" not in line, line
    assert "secret-pw" not in line, line


@pytest.mark.parametrize("value", [*ENDLESS, *ODD] if os.environ.get("PBEM_COSTS19_FULL") else ["0"])
def test_a_url_waiting_for_ever_on_a_silent_server_ends_at_the_most(monkeypatch, fresh_engines, value: str) -> None:
    monkeypatch.setattr(db, "PG_CONNECT_MOST", 1)
    monkeypatch.setattr(db, "PG_CONNECT_TIMEOUT", 1)
    with server(silent) as (port, _):
        _ends_in_one_line(URL.format(port=port, value=value), within=2)  # libpq's least wait is 2 s
