"""A mail refused whole for its code is answered with the verdict in its subject, as an acknowledgement is (walk7).

Found walking the README as four players: Carol, who had just asked for a new code, replied to an older report with
her placements and was answered "Re: [pbem st1] Set-up: every player places three starting Influence cards", the
subject of a report: on a phone's list of mail nothing said her orders were not applied (the README: "The answer to
a message says its verdict in its subject ... a phone's list of mail tells them apart").  The moderator's mail
refused for its code was answered the same way.  The corpus: each way a player's or the moderator's mail is refused
for its code (no code, a wrong one, a reply to mail older than the code, a reply to another seat's mail), each
subject typed as players type them; 16 of 16 subjects stated no verdict on efd12b07, 0 now.
"""

from __future__ import annotations

import pytest

from pbem.render.templates import render_mail

SUBJECTS = ["[pbem st1] orders", "Re: Re: [pbem st1] Set-up: every player places three starting Influence cards"]
PLAYER = [
    dict(code_missing=True),
    dict(code_missing=False),
    dict(code_missing=True, before="2026-12-07 02:31 UTC"),
    dict(code_missing=True, other="Bob"),
]
MODERATOR = [dict(code_given=False), dict(code_given=True)]


@pytest.mark.parametrize("subject_in", SUBJECTS)
def test_a_mail_refused_for_its_code_says_so_in_the_answers_subject(subject_in: str) -> None:
    base = dict(game_name="st1", subject_in=subject_in, moderator="pbem moderator", moderator_address="g@example.org")
    said = [render_mail("refused_code", {**base, "sent": "Mon, 07 Dec 2026 02:33:01 -0000", **c}) for c in PLAYER]
    said += [render_mail("moderator_refused", {**base, "accepted": [], **c}) for c in MODERATOR]
    said += [render_mail("moderator_refused", {**base, "game_name": "", "accepted": [], **c}) for c in MODERATOR]
    for mail in said:
        assert "NOT " in mail.subject and mail.subject.count("Re:") == 1, mail.subject
        assert "player code)" in mail.subject or "moderator code)" in mail.subject, mail.subject
