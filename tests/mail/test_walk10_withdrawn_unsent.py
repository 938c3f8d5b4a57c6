"""A mail the sender had read before `pbem game abandon` withdrew it is not sent (walk10, walk9's leftover).

The sender reads the queued mails a few at a time (`READ_AHEAD`, 16) just before sending; walk9 made a mail that
went out while the game was abandoned recorded `sent`, but the ones read with it still went out after the abandon
had withdrawn them.  Now the sender reads each mail's status again right before handing it to the server (one
read by the primary key) and skips a withdrawn one.

The generator (walk9's race, `tests/mail/test_walk9_withdraw_race.py`): a real SMTP server on 127.0.0.1 holds its
answer to the k-th of a new Habsburg game's three Turn 1 reports (k = 1, 2, 3) until the abandon has committed;
required: no mail after the k-th reaches the server, each one withdrawn in the record, each one that went out
`sent`.  On b1f92b21 2 of 3 cases failed (k = 1 and 2: the 2 and 1 reports after the k-th went out after the
abandon; k = 3 leaves none after it); 0 now.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mail.test_walk9_withdraw_race import race


@pytest.mark.parametrize("k", [1, 2, 3])
def test_no_mail_goes_out_after_the_abandon_withdrew_it(tmp_path: Path, k: int) -> None:
    before, after, went = race(tmp_path, k, "walk10")
    assert len(went) == k, f"{len(went) - k} mail(s) went out after the abandon withdrew them: {went}"
    assert {after[mid] for mid in went} == {"sent"}, after
    assert {status for mid, status in after.items() if mid in before and mid not in went} <= {"withdrawn"}, after
