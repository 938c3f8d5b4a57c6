"""What reading many mails leaves behind, a mail at a time (costs27).

`pbem verify --sent` held some 24 KB a mail at its peak past x16 (sweep24's "verify / --sent: N mails a player
sent": 0.02, 2.94, 15.2 MB of its own at 32, 128, 512 mails), 2.4 GB at its cap of 100,000 mails if linear.  What
held them: the standard library's `HeaderRegistry` (3.11) makes a new class at every header it reads, a reference
cycle only the cyclic collector frees, and the modern parser (`pbem.trust.addresses.read_mail`: `verify --sent`, the
DKIM evidence, the export's checks) asks it for every header of every mail.  `addresses._Registry` makes each kind's
class once.  Held with the collector off (`tests.growth.held`), as a long run between two collections holds them.

The suite reads 20 and 80 generated mails (8 header shapes, read and dropped: nothing of them need stay):
over on ab18255d, not here.  `PBEM_FULL_SIZE=1` also reads the sweep's case itself at 64 and 256 mails.

A player's mail stored up to `[mail] max_stored_player`'s most, 64 MiB (`config.MOST_STORED`): costs26 read the
poll's stages on one mail at 1 MiB (`tests.reliability.mailbytes26`, stored up to 4 MiB); `PBEM_COSTS27_MIB=16` (or
64) reads its shapes at that many MiB, stored up to 64 MiB, each held to the same bound (each shape some minutes at
16 MiB under load: a forked child each, `tests.growth.alone` given 30 minutes).
"""

from __future__ import annotations

import os
import random
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest

from tests import growth
from tests.growth import held, held_growth
from tests.sizes import FULL

#: What 60 more mails, each read and dropped, may add to the peak: none of them is kept, but the parser compiles a
#: pattern for each multipart mail's boundary, kept in `re`'s cache of at most 512 (some 1.2 KB each: 34 KB here);
#: on ab18255d 2.6 MB (43 KB a mail).
MORE_HELD = 256 * 1024

_NAMES = ["Alice", "Bob Smith", "=?utf-8?q?Jos=C3=A9?=", '"Carol, Q."', "D (the duke)"]


def _mail(rng: random.Random, i: int) -> bytes:
    msg = EmailMessage()
    msg["From"] = f"{rng.choice(_NAMES)} <p{i}@players.test>"
    msg["To"] = ", ".join(f"m{j}@pbem.test" for j in range(rng.randrange(1, 4)))
    if rng.random() < 0.5:
        msg["Cc"] = f"{rng.choice(_NAMES)} <c{i}@players.test>"
    msg["Subject"] = rng.choice(["[pbem hh1] orders", "Re: [pbem hh1] turn 3", "=?utf-8?q?[pbem_hh1]_caf=C3=A9?="])
    msg["Date"] = format_datetime(datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=i))
    msg["Message-ID"] = make_msgid(domain="players.test")
    if rng.random() < 0.5:
        msg["In-Reply-To"] = make_msgid(domain="pbem.test")
        msg["References"] = " ".join(make_msgid(domain="pbem.test") for _ in range(rng.randrange(1, 5)))
    msg.set_content(f"STATUS\n\n(question {i})\n", charset=rng.choice(["utf-8", "us-ascii", "iso-8859-1"]))
    if rng.random() < 0.3:
        msg.add_attachment(b"x" * rng.randrange(10, 200), maintype="application", subtype="octet-stream")
    return msg.as_bytes()


def _reading(k: int) -> Callable[[], object]:
    from pbem.trust.sent import parse_sent

    rng = random.Random(27)
    raws = [_mail(rng, i) for i in range(k)]

    def run() -> object:
        n = 0
        for raw in raws:
            n += len(parse_sent(raw).message_id)  # read, then dropped
        return n

    return run


def test_reading_mails_one_after_another_leaves_nothing_of_each_behind() -> None:
    g = held_growth(_reading, 20)
    assert g.large - g.small <= MORE_HELD, f"parse_sent of 20 and 80 mails: {g}"


def _verify_sent(k: int) -> Callable[[], object]:
    from tests.reliability import sweep24

    folder = Path(tempfile.mkdtemp(prefix="costs27-"))
    return sweep24.verify_sent(folder, k)


@pytest.mark.skipif(not FULL, reason="the sweep's case at 64 and 256 mails: PBEM_FULL_SIZE=1")
def test_verify_sent_holds_a_few_kb_a_mail_past_its_knee() -> None:
    small, large = held(_verify_sent(64)), held(_verify_sent(256))
    per_mail = (large - small) / 192
    assert per_mail <= 4096, f"verify --sent: {small:,} bytes at 64 mails, {large:,} at 256 ({per_mail:,.0f} a mail)"


STORED_MIB = int(os.environ.get("PBEM_COSTS27_MIB", "0") or 0)


@pytest.mark.skipif(not STORED_MIB, reason="a mail of 16 or 64 MiB stored whole: PBEM_COSTS27_MIB=16")
@pytest.mark.parametrize("shape", ["a body of lines", "a body in 8-bit UTF-8", "one long line", "References of ids"])
def test_a_mail_stored_up_to_64_mib_is_read_within_the_bound(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.home.config import MOST_STORED
    from tests.reliability import mailbytes26

    monkeypatch.setattr(mailbytes26, "MAX_STORED", MOST_STORED)
    monkeypatch.setattr(
        growth.alone, "__kwdefaults__", {"wait": 1800.0, "tries": 1}
    )  # (a 16 MiB mail traced takes minutes)
    n, peak, ratio = mailbytes26.held_per_byte(shape, STORED_MIB * 1024 * 1024)
    assert ratio <= mailbytes26.bound(shape), f"{shape}: {n:,} bytes held {peak:,} at the peak ({ratio:.1f} a byte)"
