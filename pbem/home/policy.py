"""The settings the deciding functions read, frozen: what a home's `pbem.toml` says about policy.

`Policy.of(cfg)` takes them from the configuration once (`pbem.home.app.Home` holds it); the pure
use cases (`pbem.app.intake`, `finish`, `reporting`, `deadlines`) take the Policy, never the whole
configuration with its paths, transports and credentials.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pbem.home.config import Config


@dataclass(frozen=True)
class Policy:
    moderator_address: str = "moderator@pbem.invalid"
    moderator_name: str = "pbem moderator"
    domain: str = "pbem.invalid"  # of the moderator's address: the Message-IDs' right-hand side
    default_deadline: timedelta = timedelta(hours=48)
    reminders: tuple[timedelta, ...] = (timedelta(hours=24), timedelta(hours=2))
    resolve: str = "asap"
    replies_per_hour: int = 30
    max_stored_stranger: int = 256 * 1024
    max_stored_player: int = 4 * 1024 * 1024
    trust_authentication_results: str = ""
    stranger_answers_per_day: int = 0
    stranger_answers_per_hour: int = 60
    max_away: timedelta = timedelta(days=14)  # how long a game waits for one player's absences (pbem.app.absence)
    outage_after: timedelta = timedelta(hours=6)  # a longer gap between polls moves deadlines (pbem.app.outages)
    home: Path | None = None  # the home directory: its wrapping key seals the games' signing keys (record.sealing)
    press_per_day: int = 60  # press mails one sender's messages may cause in 24 hours (issue 26)
    silent_deadlines: int = 3  # deadlines without a player's mail before the moderator is told (pbem.app.silence)

    @classmethod
    def of(cls, cfg: Config) -> Policy:
        return cls(
            moderator_address=cfg.moderator_address,
            moderator_name=cfg.moderator_name,
            domain=cfg.domain,
            default_deadline=cfg.default_deadline,
            reminders=tuple(cfg.reminders),
            resolve=cfg.resolve,
            replies_per_hour=cfg.replies_per_hour,
            max_stored_stranger=cfg.max_stored_stranger,
            max_stored_player=cfg.max_stored_player,
            trust_authentication_results=cfg.trust_authentication_results,
            stranger_answers_per_day=cfg.stranger_answers_per_day,
            stranger_answers_per_hour=cfg.stranger_answers_per_hour,
            max_away=cfg.max_away,
            outage_after=cfg.outage_after,
            home=cfg.home,
            press_per_day=cfg.press_per_day,
            silent_deadlines=cfg.silent_deadlines,
        )
