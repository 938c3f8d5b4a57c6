"""`pbem poll` as cron runs it: one run per home at a time, a cheap exit when there is nothing to do.

Heavy modules are imported only once there is work, so that an idle run
costs little more than starting Python.
"""

from __future__ import annotations

import fcntl
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pbem.home.config import Config

if TYPE_CHECKING:
    from pbem.app.poll import PollSummary


@dataclass
class Run:
    """What one run did: a summary, or why it did nothing."""

    summary: PollSummary | None = None
    skipped: str = ""


def run_poll(cfg: Config, dry_run: bool = False) -> Run:
    """Poll the configured transport once.  Raises TransportError or DatabaseError where the run cannot go on."""
    with open(cfg.home / ".pbem-poll.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return Run(skipped="another pbem poll is running on this home; nothing done")
        try:
            from pbem.app.idle import nothing_to_do, remember

            if not dry_run and nothing_to_do(cfg, datetime.now(UTC)):
                if cfg.publish_dir is not None and not (cfg.publish_dir / "index.html").exists():
                    _refresh_site(cfg)  # [publish] dir was just set: the site appears without waiting for mail
                return Run(skipped="nothing to do: no new mail, nothing queued or due")
            from pbem.app.poll import poll
            from pbem.mail.transports.seam import open_transport

            inbox, sender = open_transport(cfg)
            try:
                summary = poll(cfg, inbox, sender, dry_run=dry_run)
                if not dry_run:
                    remember(cfg, inbox)  # what this complete poll saw of the inbox, for the next idle check
                    if cfg.publish_dir is not None:
                        _refresh_site(cfg)
                return Run(summary)
            finally:
                inbox.close()
                sender.close()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _refresh_site(cfg: Config) -> None:
    """Rewrite the public site's pages of the games that changed (inside the poll's lock: one writer at a time)."""
    import logging

    from pbem.app.publish import publish

    assert cfg.publish_dir is not None
    try:
        done = publish(cfg, cfg.publish_dir, datetime.now(UTC))
    except OSError as exc:  # a full disk or a missing permission must not stop the game
        logging.getLogger("pbem").error("the public site in %s could not be written: %s", cfg.publish_dir, exc)
        return
    logging.getLogger("pbem").info("%s", done.line(cfg.publish_dir))
