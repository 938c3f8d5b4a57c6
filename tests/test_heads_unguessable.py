"""A player's mail gives two heads around the public events their own orders caused (`X-Pbem-Input`, the head
right after their input, and `X-Pbem-Record`, the head after those events).  Every field of those events'
chained entries but the salt is known to the player or guessable (the text, the data, the time to the second
from the Date header, and the global numbers `seq` and `input_seq`, which count every player's inputs, secret
revisions included).  Unsalted, a search over the numbers found them (the third secrecy red team,
docs/security.md): every event entry is salted from the seed now, so the head cannot be recomputed without it.

For every acknowledgement in the seeded finished games whose input caused only public events: the head after
them is the export's chain (with the salts the finished game reveals), and is NOT the chain over the same
entries with the exact global numbers and times but no salt (the best guess a player can make).
"""

from __future__ import annotations

from email import policy
from email.parser import BytesParser

import pytest

from pbem.trust import chain
from tests.test_history_golden import seeded_export, seeded_home


@pytest.mark.parametrize("kind", ["dynasties", "habsburg", "italian-wars", "sixteen-thirty"])
def test_the_heads_in_a_players_mail_cannot_be_recomputed_from_the_public_events_without_their_salts(kind: str) -> None:
    doc = seeded_export(kind)
    rows = chain.sequence(doc["orders"], doc["events"])
    at = {row["hash"]: i for i, row in enumerate(rows)}
    checked = 0
    for path in sorted((seeded_home(kind) / "mail" / "sent" / "new").iterdir()):
        m = BytesParser(policy=policy.compat32).parsebytes(path.read_bytes(), headersonly=True)
        if not (m["X-Pbem-Input"] and m["X-Pbem-Record"]):
            continue
        after_input = str(m["X-Pbem-Input"]).split()[1]
        head = str(m["X-Pbem-Record"]).split()[1]
        if after_input not in at or head not in at or at[head] <= at[after_input]:
            continue  # an acknowledgement whose input caused nothing the reader saw
        between = rows[at[after_input] + 1 : at[head] + 1]
        if any("text" not in r or r["visibility"] != "public" for r in between):
            continue  # a hidden entry among them: its salt was always there
        guessed, salted = after_input, after_input
        for row in between:
            entry = chain.entry_of(row)
            assert "salt" in entry, f"{kind}: public event {row['seq']} is chained without a salt"
            salted = chain.link(salted, entry)
            guessed = chain.link(guessed, {k: v for k, v in entry.items() if k != "salt"})
        assert salted == head, f"{kind}: the export's chain does not give the mail's head"
        assert guessed != head, f"{kind}: the head after public events is computed from their fields without a salt"
        checked += 1
    assert checked > 0, f"{kind}: no acknowledgement followed only by public events was found"
