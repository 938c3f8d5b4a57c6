"""Reading and checking `pbem.toml`.

The file is TOML.  Every key is known and checked: an unknown key or a bad
value is reported with the file, the key and what is allowed.  Relative paths
(the Maildir path, a SQLite database file, the log file) are relative to the
folder that holds the file, so cron can run pbem from anywhere.

`[imap]` and `[smtp]` say how to log in: `auth = "password"` with one of
`password_command` (a command, as a list of arguments, printing the
password), `password_env` or `password`; or `auth = "xoauth2"` /
`"oauthbearer"` with `token_command` (printing a current OAuth2 access
token).  The commands are run by `pbem.mail.transports.credentials`, not here.
`cafile` names a private CA's certificates for verifying the server.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from pbem.mail.transports.registry import TRANSPORTS
from pbem.record import sealing

DEFAULT_NAME = "pbem.toml"
#: Seconds any command but `pbem poll` may take (`[limits] command_deadline`), and every command before its
#: configuration is read or when it reads none (`pbem verify`, `rules`, `init`): `pbem.cli.deadline`.
#: An hour: `export --all --moderator` took 1.9 s a finished six-player Sixteen Thirty game (1.5 MB in three
#: formats), so an hour is about 1,900 such games (docs/performance.md); a larger home sets its own.
COMMAND_DEADLINE = 3600


class ConfigError(Exception):
    """One clear sentence about what is wrong in the configuration."""


# "48h", and as people write it: "48 h", "2 days", "1 Week", "30 min" (the digits bounded: int() of a huge run)
_DURATION = re.compile(r"^\s*(\d+)\s*(m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?)\s*$", re.IGNORECASE)
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
_UNIT_MINUTES = {"m": 1, "h": 60, "d": 24 * 60, "w": 7 * 24 * 60}
MAX_DURATION = timedelta(days=365)  # the longest duration any setting or command takes (README "Configuration")
_LONGEST = "at most 365 days (365d, 52w or 8760h)"


def parse_duration(text: str, zero: str = "") -> timedelta:
    """'48h' -> 48 hours; units m, h, d, w (or written out: '2 days', '30 min'); at most MAX_DURATION.  With `zero`, a duration of 0 is refused
    with that reason (a step of no time, an extension that changes nothing); without, 0 is allowed."""
    text = str(text)
    shown = repr(text if len(text) <= 60 else text[:60] + "...")
    m = _DURATION.match(text) if len(text) <= 1000 else None
    if not m:
        raise ValueError(f"{shown} is not a duration; write a whole number and a unit: 30m, 48h, 3d or 1w ({_LONGEST})")
    if m.group(2) == "M":  # minutes or months? ("EXTEND 2M" moving a deadline by 2 minutes)
        raise ValueError(f"{shown} could be minutes or months; write 30m or 30 min for minutes, 60d for two months")
    digits, unit = m.group(1).lstrip("0") or "0", m.group(2)[0].lower()
    if len(digits) > 12 or int(digits) * _UNIT_MINUTES[unit] > MAX_DURATION // timedelta(minutes=1):
        raise ValueError(f"{shown} is too long: {_LONGEST}")
    number = int(digits)
    if zero and number == 0:
        raise ValueError(f"{shown} {zero}")
    return timedelta(**{_UNITS[unit]: number})


def step_length(text: str) -> timedelta:
    """The time players have for a step: `--deadline`, `[games] default_deadline`."""
    return parse_duration(text, zero="is no time: give a step at least 1m, " + _LONGEST)


def extension(text: str) -> timedelta:
    """How much later `pbem game extend` (or EXTEND by mail) moves a deadline."""
    if str(text).strip().startswith("-"):  # "-3h": a deadline the players plan on is never moved earlier
        shown = repr(str(text) if len(str(text)) <= 60 else str(text)[:60] + "...")
        raise ValueError(f"{shown}: a deadline is never moved earlier (the players plan on it); extend by 1m or more")
    return parse_duration(text, zero="changes nothing: extend by at least 1m, " + _LONGEST)


def reminder(text: str) -> timedelta:
    """How long before a deadline a reminder goes out: `[games] reminders`."""
    return parse_duration(text, zero="is the deadline itself: a reminder goes at least 1m before it")


@dataclass
class MailConfig:
    host: str = "127.0.0.1"
    port: int = 0
    ssl: bool = False
    starttls: bool = False
    username: str = ""
    password_env: str = ""
    password: str = ""
    password_command: list[str] = field(default_factory=list)
    auth: str = "password"
    token_command: list[str] = field(default_factory=list)
    cafile: Path | None = None

    def secret(self, file: Path, section: str) -> str:
        """The password: from the named environment variable, else the plain key."""
        if self.password_env:
            value = os.environ.get(self.password_env)
            if value is None:
                raise ConfigError(f"{file}: [{section}] password_env names ${self.password_env}, which is not set")
            return value
        return self.password


@dataclass
class ImapConfig(MailConfig):
    port: int = 993
    ssl: bool = True
    folder: str = "INBOX"
    processed_folder: str = "pbem/processed"
    rejected_folder: str = "pbem/rejected"


@dataclass
class SmtpConfig(MailConfig):
    port: int = 587
    starttls: bool = True
    max_attempts: int = 8
    connections: int = 1  # SMTP connections sending at once (for servers that accept more)


@dataclass(frozen=True)
class Upkeep:
    """[upkeep]: past these the moderator is told about the home (`pbem.app.upkeep`; README "What pbem tells you
    about the home itself").  A size, count or duration of 0 turns its notice off (`backup_late = "0h"`: a home
    backed up by cp, rsync or restic, which pbem cannot see)."""

    backup_late: timedelta = timedelta(hours=36)  # the newest `pbem backup` (nightly, with 12 hours of slack)
    database_size: int = 1 << 30  # pbem.db: 28 MB a month for 8 games
    free_pages: int = 25  # percent of an SQLite file that is free pages (after `pbem upgrade` or `pbem prune`)
    maildir_size: int = 1 << 30  # each Maildir folder (sent, processed, rejected) ...
    maildir_mails: int = 100_000  # ... or this many mails in it
    cron_log_size: int = 8 << 20  # cron/pbem-poll starts cron.log anew past 8 MiB
    disk_free: int = 1 << 30  # free on the home's file system (or twice the database, if more)
    prune_after: timedelta = timedelta(days=30)  # games ended this long whose sent mail keeps its text
    extended_times: int = 3  # a step's deadline extended this many times in a row


@dataclass
class Config:
    path: Path
    moderator_address: str = "moderator@pbem.invalid"
    moderator_name: str = "pbem moderator"
    database_url: str = "sqlite:///pbem.db"
    transport: str = "maildir"
    maildir_path: Path = Path("mail")
    default_deadline: timedelta = timedelta(hours=48)
    reminders: list[timedelta] = field(default_factory=lambda: [timedelta(hours=24), timedelta(hours=2)])
    resolve: str = "asap"
    replies_per_hour: int = 30
    max_away: timedelta = timedelta(days=14)  # [games] max_away: how long a game waits for one player's absences
    silent_deadlines: int = 3  # [games] silent_deadlines: the moderator is told of a game or seat this long silent
    outage_after: timedelta = timedelta(hours=6)  # [games] outage_after: a longer gap between runs is an outage
    server_clock_margin: timedelta = timedelta(minutes=10)  # [games]: IMAP arrival dates past it (`app.arrivals`)
    max_stored_stranger: int = 256 * 1024  # bytes of one stranger's mail kept in the record (issue 12)
    max_stored_player: int = 4 * 1024 * 1024  # bytes of one player's mail kept in the record
    trust_authentication_results: str = ""  # authserv-id whose Authentication-Results pbem believes ("": none)
    stranger_answers_per_day: int = 0  # short answers to one address that is no player's, per day (0: none)
    stranger_answers_per_hour: int = 60  # answers to all such addresses together, per hour
    press_per_day: int = 60  # [mail] press_per_day: press mails one sender's messages may cause in 24 h (issue 26)
    poll_deadline: int = 900  # seconds one poll may take before it stops and exits non-zero (issue 26)
    command_deadline: int = COMMAND_DEADLINE  # [limits] command_deadline: seconds any other command may take
    log_file: Path | None = None
    log_level: str = "INFO"
    publish_dir: Path | None = None  # [publish] dir: the public site every poll refreshes (None: not published)
    publish_title: str = "pbem games"  # [publish] title: the index page's title
    imap: ImapConfig = field(default_factory=ImapConfig)
    smtp: SmtpConfig = field(default_factory=SmtpConfig)
    upkeep: Upkeep = field(default_factory=Upkeep)  # [upkeep]: the limits the home's look tells past

    @property
    def home(self) -> Path:
        return self.path.parent

    def sent_before(self) -> bool:
        """Whether this home has sent mail: its ledger of mails sent is there (`pbem.record.sentlog`); a Maildir
        root missing then was moved, not never made (`pbem.mail.transports.maildir.moved`)."""
        from pbem.record.sentlog import LEDGER, journal_dir

        return (journal_dir(self.home) / LEDGER).is_file()

    @property
    def domain(self) -> str:
        return self.moderator_address.rpartition("@")[2] or "pbem.invalid"


def _check_bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    raise ValueError("must be true or false")


def _check_str(v: Any) -> str:
    if isinstance(v, str):
        return v
    raise ValueError("must be a quoted string")


def _check_port(v: Any) -> int:
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 65535:
        return v
    raise ValueError("must be a port number from 1 to 65535")


def _check_pos(v: Any) -> int:
    if isinstance(v, int) and not isinstance(v, bool) and v > 0:
        return v
    raise ValueError("must be a whole number above 0")


def _choice(*allowed: str) -> Callable[[Any], str]:
    def check(v: Any) -> str:
        if v in allowed:
            return str(v)
        raise ValueError("must be one of " + ", ".join(f'"{a}"' for a in allowed))

    return check


MAX_ADDRESS = 254  # characters of an address (RFC 5321's path of 256, less its angle brackets)
#: characters of the moderator's display name: it heads every mail pbem sends (the From) and every report, so a name
#: of 100,000 characters (`pbem init --name`, or pbem.toml) went whole into every From header and every mail (costs25)
MAX_NAME = 200


def _check_name(v: Any) -> str:
    if isinstance(v, str) and len(v) <= MAX_NAME:
        return v
    if isinstance(v, str):
        raise ValueError(f"is {len(v):,} characters long; a display name is at most {MAX_NAME}")
    raise ValueError("must be a quoted string")


def _check_address(v: Any) -> str:
    if isinstance(v, str) and len(v) <= MAX_ADDRESS and re.fullmatch(r"\A[^@\s<>]+@[^@\s<>]+", v):
        return v
    raise ValueError(f'must be a bare email address such as "moderator@example.org", at most {MAX_ADDRESS} characters')


def _check_command(v: Any) -> list[str]:
    if isinstance(v, list) and v and all(isinstance(x, str) and x for x in v):
        return list(v)
    raise ValueError(
        'must be a command as a list of arguments, such as ["pass", "show", "games"] (run without a shell)'
    )


# the spaces after the number taken whole (`\s*+`): split between it and the last `\s*`, a run of spaces before a
# character that fails cost its square (tests/reliability/test_costs3_regexes.py, config no longer left out)
_SIZE = re.compile(r"^\s*(\d+)\s*+(B|KB|KiB|MB|MiB|GB|GiB|TB|TiB)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"b": 1, "kb": 1000, "kib": 1024, "mb": 1000**2, "mib": 1024**2}
_SIZE_UNITS |= {"gb": 1000**3, "gib": 1024**3, "tb": 1000**4, "tib": 1024**4}


#: The most a count of seconds or of connections may be: past it a timer cannot be set (a value past the platform's
#: time_t killed the watchdog's thread, so the run had no deadline at all) or a poll would start a thread and a
#: connection for each (costs8).
MOST_POLL_SECONDS = 86_400  # [mail] poll_deadline: a day (cron runs it every few minutes; the default is 900)
MOST_COMMAND_SECONDS = 7 * 86_400  # [limits] command_deadline: a week (the default is an hour)
MOST_CONNECTIONS = 16  # [smtp] connections sending at once


def _check_upto(most: int, what: str) -> Callable[[Any], int]:
    def check(v: Any) -> int:
        if isinstance(v, int) and not isinstance(v, bool) and 0 < v <= most:
            return v
        raise ValueError(f"must be a whole number from 1 to {most:,} ({what})")

    return check


def _check_count(v: Any) -> int:
    if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
        return v
    raise ValueError("must be a whole number, 0 or more")


MOST_STORED = 64 * 1024 * 1024  # [mail] max_stored_*: a mail is read whole up to it, and IMAP asks for at most it


def _check_size(v: Any) -> int:
    """A size in bytes: a whole number, or a string such as "256 KiB" or "4 MiB"; from 1 KiB to `MOST_STORED`."""
    m = _SIZE.match(v) if isinstance(v, str) else None
    size = v if isinstance(v, int) and not isinstance(v, bool) else None
    if m:
        size = int(m.group(1)) * _SIZE_UNITS[(m.group(2) or "b").lower()]
    if size is not None and 1024 <= size <= MOST_STORED:
        return size
    raise ValueError('must be a size from 1 KiB to 64 MiB: a number of bytes or a string such as "256 KiB" or "4 MiB"')


MOST_LIMIT = 1 << 50  # [upkeep] sizes: a PiB (a number past it is a typo, not a disk)


def _size_of(v: Any) -> int | None:
    m = _SIZE.match(v) if isinstance(v, str) and len(v) <= 100 else None
    if m:
        return int(m.group(1)) * _SIZE_UNITS[(m.group(2) or "b").lower()]
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _check_limit(v: Any) -> int:
    """An [upkeep] size: bytes, or a string such as "1 GiB" or "8 MiB"; 0 turns its notice off."""
    size = _size_of(v)
    if size is not None and 0 <= size <= MOST_LIMIT:
        return size
    raise ValueError('must be a size: a number of bytes or a string such as "1 GiB" or "8 MiB" (0: never told)')


def _check_percent(v: Any) -> int:
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 100:
        return v
    raise ValueError("must be a whole number of percent, from 0 (never told) to 100")


def _check_authserv_id(v: Any) -> str:
    if isinstance(v, str) and re.fullmatch(r"\A[A-Za-z0-9.-]{1,253}", v):
        return v
    raise ValueError('must be the authserv-id of your receiving mail server, such as "mx.example.org"')


def _check_duration(v: Any) -> timedelta:
    return parse_duration(v)


def _check_step_length(v: Any) -> timedelta:
    return step_length(v)


#: Reminders before one deadline: each is a mail to every player the step waits for, outside the answers budget;
#: 200,000 were accepted (a mail each, every step), within a 1 MiB file.
MAX_REMINDERS = 24


def _check_reminders(v: Any) -> list[timedelta]:
    if not isinstance(v, list):
        raise ValueError('must be a list of durations such as ["24h", "2h"]')
    if len(v) > MAX_REMINDERS:
        raise ValueError(f"{len(v):,} reminders; at most {MAX_REMINDERS} (each is a mail to every player asked)")
    return [reminder(x) for x in v]


_MAIL_KEYS = {
    "host": _check_str,
    "port": _check_port,
    "ssl": _check_bool,
    "starttls": _check_bool,
    "username": _check_str,
    "password_env": _check_str,
    "password": _check_str,
    "password_command": _check_command,
    "auth": _choice("password", "xoauth2", "oauthbearer"),
    "token_command": _check_command,
    "cafile": _check_str,
}

SCHEMA: dict[str, dict[str, Any]] = {
    "moderator": {"address": _check_address, "name": _check_name},
    "database": {"url": _check_str},
    "mail": {
        "transport": _choice(*TRANSPORTS),
        "max_stored_stranger": _check_size,
        "max_stored_player": _check_size,
        "trust_authentication_results": _check_authserv_id,
        "stranger_answers_per_day": _check_count,
        "stranger_answers_per_hour": _check_count,
        "poll_deadline": _check_upto(MOST_POLL_SECONDS, "seconds: a day"),
        "press_per_day": _check_count,
    },
    "maildir": {"path": _check_str},
    "games": {
        "default_deadline": _check_step_length,
        "reminders": _check_reminders,
        "resolve": _choice("asap", "deadline"),
        "replies_per_hour": _check_pos,
        "outage_after": _check_duration,
        "server_clock_margin": _check_duration,
        "max_away": _check_duration,
        "silent_deadlines": _check_count,
    },
    "imap": {**_MAIL_KEYS, "folder": _check_str, "processed_folder": _check_str, "rejected_folder": _check_str},
    "smtp": {
        **_MAIL_KEYS,
        "max_attempts": _check_pos,
        "connections": _check_upto(MOST_CONNECTIONS, "SMTP connections sending at once"),
    },
    "log": {"file": _check_str, "level": _choice("DEBUG", "INFO", "WARNING", "ERROR")},
    "publish": {"dir": _check_str, "title": _check_str},
    "limits": {"command_deadline": _check_upto(MOST_COMMAND_SECONDS, "seconds: a week")},
    "upkeep": {
        "backup_late": _check_duration,
        "database_size": _check_limit,
        "free_pages": _check_percent,
        "maildir_size": _check_limit,
        "maildir_mails": _check_count,
        "cron_log_size": _check_limit,
        "disk_free": _check_limit,
        "prune_after": _check_duration,
        "extended_times": _check_count,
    },
}


def _resolve_db_url(url: str, home: Path) -> str:
    """Make a relative SQLite file path relative to the config file's folder."""
    prefix = "sqlite:///"
    if url.startswith(prefix) and not url.startswith("sqlite:////") and url != "sqlite:///:memory:":
        rest = url[len(prefix) :]
        path, sep, query = rest.partition("?")
        return prefix + str((home / path).resolve()) + sep + query
    return url


def _check_driver(file: Path, url: str) -> None:
    """A database URL other than SQLite names a driver this Python may not have (PostgreSQL's comes with
    `pip install 'pbem[postgres]'`): one line naming the fix instead of an ImportError's traceback."""
    if url.startswith("sqlite"):
        return
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    try:
        dialect = make_url(url).get_dialect()
    except (ArgumentError, NoSuchModuleError, ValueError):
        raise ConfigError(
            f"{file}: bad value for [database] url: not a database URL pbem can use "
            "(sqlite:///pbem.db or postgresql+psycopg://USER:PASSWORD@HOST/DATABASE)"
        ) from None
    try:
        dialect.import_dbapi()
    except ImportError as exc:
        extra = ""
        if dialect.name == "postgresql":
            extra = " (pbem's PostgreSQL extra installs psycopg: python3 -m pip install 'pbem[postgres]'"
            extra += ")" if dialect.driver == "psycopg" else ", with a URL postgresql+psycopg://...)"
        raise ConfigError(
            f"{file}: [database] url needs the Python module {exc.name or 'of its driver'}, which is not "
            f"installed{extra}"
        ) from None


def _check_connect_timeout(file: Path, url: str) -> None:
    """A PostgreSQL URL's own `connect_timeout` is a whole number of seconds from 1 to `db.PG_CONNECT_MOST`: libpq
    reads 0 or a negative one as "wait for ever", and a server that accepts and never answers held every command so
    (costs19)."""
    if not url.startswith("postgresql"):
        return
    from sqlalchemy.engine import make_url

    from pbem.record.db import PG_CONNECT_MOST, PG_CONNECT_TIMEOUT

    given = make_url(url).query.get("connect_timeout")
    if given is None:
        return
    text = given if isinstance(given, str) else ",".join(given)  # given twice: a tuple
    if not (text.isascii() and text.isdigit() and len(text) <= 12 and 1 <= int(text) <= PG_CONNECT_MOST):
        raise ConfigError(
            f"{file}: bad value for [database] url: connect_timeout={text[:20]!r} is no wait pbem keeps (0 or less "
            f"waits for ever): give a whole number of seconds from 1 to {PG_CONNECT_MOST}, or leave it out "
            f"({PG_CONNECT_TIMEOUT} s)"
        )


#: A pbem.toml with every key explained is about 12 KB; tomllib's reading is linear, but a cap ends a wrong
#: path (`--config /dev/zero`) or a runaway file at once.
MAX_CONFIG_BYTES = 1024 * 1024


def load(path: str | Path | None = None) -> Config:
    """Load and check a config file (default: $PBEM_CONFIG or ./pbem.toml)."""
    from pbem.record.files import Unreadable, read_at_most

    file = Path(path or os.environ.get("PBEM_CONFIG") or DEFAULT_NAME).expanduser().resolve()
    try:
        raw = tomllib.loads(read_at_most(file, MAX_CONFIG_BYTES, "the configuration file").decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"{file}: no such configuration file; create one with `pbem init DIR` or pass --config PATH"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}") from None
    except (Unreadable, OSError) as exc:
        raise ConfigError(f"{file}: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{file}: not UTF-8 text (byte {exc.start}); TOML is UTF-8") from None
    except RecursionError:  # tomllib reads nested arrays and tables by recursion
        raise ConfigError(f"{file}: values nested too deep to read (a pbem.toml nests two levels)") from None
    values: dict[str, dict[str, Any]] = {}
    for section, body in raw.items():
        if section not in SCHEMA:
            meant = _meant(section, list(SCHEMA), "[{}]")
            raise ConfigError(f"{file}: unknown section [{section}]{meant}; allowed sections: {', '.join(SCHEMA)}")
        if not isinstance(body, dict):
            raise ConfigError(f"{file}: {section} must be a [section] table")
        for key, value in body.items():
            checks = SCHEMA[section]
            if key not in checks:
                meant = _meant(key, list(checks), "{}", section)
                raise ConfigError(f"{file}: unknown key [{section}] {key}{meant}; allowed keys: {', '.join(checks)}")
            try:
                values.setdefault(section, {})[key] = checks[key](value)
            except ValueError as exc:
                raise ConfigError(f"{file}: bad value for [{section}] {key}: {exc}") from None
    return _build(file, values)


def _meant(typed: str, names: list[str], shown: str, section: str | None = None) -> str:
    """ " (did you mean ...?)" for a mistyped section or key: the nearest names (a letter left out, one too many, two
    swapped), or the section a key belongs to when it was put under another ("[mail] poll_deadline"); else ""."""
    import difflib

    if section is not None:
        homes = [f"[{other}] {typed}" for other, keys in SCHEMA.items() if other != section and typed in keys]
        if homes:
            return f" (did you mean {' or '.join(homes)}?)"
    near = difflib.get_close_matches(typed[:60].lower(), names, n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(shown.format(n) for n in near)}?)" if near else ""


def _build(file: Path, v: dict[str, dict[str, Any]]) -> Config:
    home = file.parent
    cfg = Config(path=file)
    sealing.register(home)  # the wrapping key of this home's game keys, if it has one yet
    mod, games, log = v.get("moderator", {}), v.get("games", {}), v.get("log", {})
    cfg.moderator_address = mod.get("address", cfg.moderator_address)
    cfg.moderator_name = mod.get("name", cfg.moderator_name)
    cfg.database_url = _resolve_db_url(v.get("database", {}).get("url", cfg.database_url), home)
    _check_driver(file, cfg.database_url)
    _check_connect_timeout(file, cfg.database_url)
    mail = v.get("mail", {})
    cfg.transport = mail.get("transport", cfg.transport)
    cfg.max_stored_stranger = mail.get("max_stored_stranger", cfg.max_stored_stranger)
    cfg.max_stored_player = mail.get("max_stored_player", cfg.max_stored_player)
    cfg.trust_authentication_results = mail.get("trust_authentication_results", cfg.trust_authentication_results)
    cfg.stranger_answers_per_day = mail.get("stranger_answers_per_day", cfg.stranger_answers_per_day)
    cfg.stranger_answers_per_hour = mail.get("stranger_answers_per_hour", cfg.stranger_answers_per_hour)
    cfg.poll_deadline = mail.get("poll_deadline", cfg.poll_deadline)
    cfg.press_per_day = mail.get("press_per_day", cfg.press_per_day)
    cfg.command_deadline = v.get("limits", {}).get("command_deadline", cfg.command_deadline)
    cfg.upkeep = Upkeep(**v.get("upkeep", {}))
    cfg.maildir_path = (home / v.get("maildir", {}).get("path", "mail")).resolve()
    cfg.default_deadline = games.get("default_deadline", cfg.default_deadline)
    cfg.reminders = games.get("reminders", cfg.reminders)
    cfg.resolve = games.get("resolve", cfg.resolve)
    cfg.replies_per_hour = games.get("replies_per_hour", cfg.replies_per_hour)
    cfg.outage_after = games.get("outage_after", cfg.outage_after)
    cfg.server_clock_margin = games.get("server_clock_margin", cfg.server_clock_margin)
    cfg.max_away = games.get("max_away", cfg.max_away)
    cfg.silent_deadlines = games.get("silent_deadlines", cfg.silent_deadlines)
    if "file" in log:
        cfg.log_file = (home / log["file"]).resolve()
    cfg.log_level = log.get("level", cfg.log_level)
    publish = v.get("publish", {})
    if "dir" in publish:
        cfg.publish_dir = (home / publish["dir"]).resolve()
    cfg.publish_title = publish.get("title", cfg.publish_title)
    cfg.imap = ImapConfig(**_mail_section(file, "imap", v.get("imap", {})))
    cfg.smtp = SmtpConfig(**_mail_section(file, "smtp", v.get("smtp", {})))
    if cfg.transport == "imap" and not v.get("imap", {}).get("host"):
        raise ConfigError(f'{file}: [mail] transport = "imap" needs [imap] host (and [smtp] host)')
    if "address" not in mod:
        raise ConfigError(
            f"{file}: [moderator] address is missing; it is the address players write to and the From of every "
            'report, e.g. address = "games@example.org"'
        )
    return cfg


def _mail_section(file: Path, section: str, keys: dict[str, Any]) -> dict[str, Any]:
    """Check that [imap] / [smtp] name one way to log in; resolve cafile."""
    keys = dict(keys)
    auth = keys.get("auth", "password")
    secrets = [k for k in ("password_command", "password_env", "password") if k in keys]
    if auth == "password":
        if "token_command" in keys:
            raise ConfigError(f'{file}: [{section}] token_command is used only with auth = "xoauth2" or "oauthbearer"')
        if len(secrets) > 1:
            raise ConfigError(f"{file}: [{section}] give one of {', '.join(secrets)}, not several")
    else:
        if "token_command" not in keys:
            raise ConfigError(
                f'{file}: [{section}] auth = "{auth}" needs token_command, a command printing a current access token'
            )
        if secrets:
            raise ConfigError(f'{file}: [{section}] auth = "{auth}" logs in with a token: remove {", ".join(secrets)}')
        if not keys.get("username"):
            raise ConfigError(
                f'{file}: [{section}] auth = "{auth}" needs username, the mailbox address the token is for'
            )
    if "cafile" in keys:
        cafile = (file.parent / Path(keys["cafile"]).expanduser()).resolve()
        if not cafile.is_file():
            raise ConfigError(f"{file}: [{section}] cafile {cafile}: no such file (the CA certificates, PEM)")
        keys["cafile"] = cafile
    return keys
