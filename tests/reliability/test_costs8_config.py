"""A configuration's numbers are bounded where a larger one would take a deadline away or cost without end (costs8).

`[mail] poll_deadline` and `[limits] command_deadline` took any whole number above 0.  Past the platform's time_t
(`10**20`), the watchdog's timer thread died at once ("OverflowError: timestamp out of range", a traceback on
stderr) and the run went on with no deadline at all; below that, a poll lock's holder was never judged stuck.
`[smtp] connections` started a sender and a thread for each at the start of every poll, and `[mail]
max_stored_player` / `max_stored_stranger` set how much of one mail is read whole (and the byte count IMAP is
asked for, which past 2^32 is no IMAP number).  Now each has a most (`pbem.home.config.MOST_*`): a day, a week,
16 connections, 64 MiB; a larger value is refused in the configuration's one line.  The generator: every key of
the schema that takes a number, given numbers from its most to 10**20 (on cc9d072 five keys took them all), the
watchdog armed at each most keeps its timer, and `PBEM_COMMAND_DEADLINE` is taken up to the same most.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from pbem.home import config as config_mod
from pbem.home.config import SCHEMA, ConfigError
from pbem.mail.transports.deadline import Watchdog

BOUNDED = {  # key: the most it takes
    ("mail", "poll_deadline"): getattr(config_mod, "MOST_POLL_SECONDS", 86_400),
    ("limits", "command_deadline"): getattr(config_mod, "MOST_COMMAND_SECONDS", 7 * 86_400),
    ("smtp", "connections"): getattr(config_mod, "MOST_CONNECTIONS", 16),
    ("mail", "max_stored_player"): getattr(config_mod, "MOST_STORED", 64 * 1024 * 1024),
    ("mail", "max_stored_stranger"): getattr(config_mod, "MOST_STORED", 64 * 1024 * 1024),
    ("imap", "port"): 65535,
    ("smtp", "port"): 65535,
}
#: Numbers that are only compared with a count, never a timer, a size read or a number of threads: any is harmless.
COMPARED = {
    ("mail", "stranger_answers_per_day"),
    ("mail", "stranger_answers_per_hour"),
    ("mail", "press_per_day"),
    ("games", "replies_per_hour"),
    ("games", "silent_deadlines"),  # compared with a count of deadlines (`pbem.app.silence`)
    ("smtp", "max_attempts"),
    # months6: the home's upkeep limits, compared with a file's bytes, a folder's mails, a percent, a count of
    # extensions (`pbem.app.upkeep.conditions`); never a timer, a read or a thread
    ("upkeep", "database_size"),
    ("upkeep", "free_pages"),
    ("upkeep", "maildir_size"),
    ("upkeep", "maildir_mails"),
    ("upkeep", "cron_log_size"),
    ("upkeep", "disk_free"),
    ("upkeep", "extended_times"),
}


def _numbers() -> list[tuple[str, str]]:
    """Every key of the schema whose check takes a whole number."""
    out = []
    for section, keys in SCHEMA.items():
        for key, check in keys.items():
            for probe in (1, 1024):
                try:
                    check(probe)
                except (ValueError, TypeError):
                    continue
                out.append((section, key))
                break
    return out


def _load(home: Path, section: str, key: str, value: int) -> config_mod.Config:
    text = home.read_text()
    line = f"{key} = {value}\n"
    head = re.compile(rf"^\[{section}\]\n", re.M)  # the section's own line, not a commented example
    text = head.sub(lambda m: m.group(0) + line, text, 1) if head.search(text) else f"{text}\n[{section}]\n{line}"
    path = home.parent / f"{section}-{key}-{value}.toml"
    path.write_text(text)
    return config_mod.load(path)


def test_every_number_of_the_schema_is_bounded_or_only_compared(home) -> None:
    found = _numbers()
    assert set(BOUNDED) | COMPARED == set(found), f"a number key neither bounded nor known harmless: {found}"
    for section, key in found:
        if (section, key) in COMPARED:
            continue
        most = BOUNDED[section, key]
        _load(home.path, section, key, most)  # the most is taken
        for value in (most + 1, 2**40, 10**20):
            with pytest.raises(ConfigError, match=rf"bad value for \[{section}\] {key}: must be .* to "):
                _load(home.path, section, key, value)


@pytest.mark.parametrize("most", [BOUNDED["mail", "poll_deadline"], BOUNDED["limits", "command_deadline"]])
def test_the_watchdog_armed_at_the_most_keeps_its_timer(most: int) -> None:
    dog = Watchdog(most)
    try:
        time.sleep(0.02)
        assert dog._timer.is_alive() and not dog.expired
    finally:
        dog.cancel()


def test_a_huge_deadline_in_the_environment_is_taken_as_the_most(monkeypatch) -> None:
    """`PBEM_COMMAND_DEADLINE=1e30` killed the command watchdog's timer as the configuration's did (cc9d072)."""
    from pbem.cli import deadline

    monkeypatch.setenv(deadline.ENV, "1e30")
    assert deadline.default() == (float(BOUNDED["limits", "command_deadline"]), deadline.ENV)
