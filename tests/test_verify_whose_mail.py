"""Whose mail `pbem verify --mail/--sent` checks, told from what the mail proves (README, "Fairness"): an honest
game verifies against each player's own mail with the public export (which lists no addresses) as with the
moderator's, in every kind and every way of choosing the mail (no --as on one player's mailbox, --as a name, an
address, mail sent to a bare address, two mailboxes, --sent with --mail); a folder of several players' mail
without --as is a usage error, not a mismatch; after `pbem game replace` both the old and the new holder of the
seat verify.  The README's command verifies each kind against one of the two exports (Italian Wars against both);
`.ci/run`'s step every kind against both (`AUDIENCES`).
"""

from __future__ import annotations

import json
import mailbox
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem import engine as registry
from pbem.cli import app
from pbem.history.export import build
from pbem.home import config as config_mod
from pbem.record import store
from pbem.record.db import session
from tests.sizes import FULL

ROOT = Path(__file__).resolve().parent.parent
KINDS = registry.available()
# the withheld-mail cases read only the export's `messages` and one mail's order lines, the same in every kind; each
# is a whole `verify --sent --mail` of Alice's mail, so they run on the kind with the fewest mails
WITHHELD_KIND = "italian-wars"
# The exports each kind's honest game is verified against: in `.ci/run`'s step both for every kind
# (`PBEM_FULL_SIZE=1`, `tests.sizes`); in the README's command both for the withheld kind and one for each other kind,
# so that every way of choosing the mail is still run against both exports there (Sixteen Thirty's case, the
# longest, took 17-19 s of the suite's 563 s with both).
AUDIENCES = {
    kind: ("moderator", "public") if FULL or kind == WITHHELD_KIND else (("moderator",), ("public",))[i % 2]
    for i, kind in enumerate(KINDS)
}


def _box(folder: Path, raws: list[bytes]) -> Path:
    box = mailbox.Maildir(str(folder), factory=None, create=True)
    for raw in raws:
        box.add(raw)
    return folder


def _to(raws: list[bytes], address: str) -> list[bytes]:
    return [r for r in raws if re.search(rb"^To: .*" + re.escape(address.encode()), r, re.M | re.I)]


def _verify(*args: object) -> tuple[int, str]:
    res = CliRunner().invoke(app, ["verify", *map(str, args)])
    return res.exit_code, res.output


def _mails_checked(out: str, who: str) -> int:
    m = re.search(rf"ok: (\d+) mails? to {re.escape(who)}: (\d+) record heads? on the export's chain", out)
    assert m, out
    return int(m[2])


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_an_honest_game_verifies_against_each_players_mail_however_it_is_chosen(tmp_path: Path, kind: str) -> None:
    from pbem.trust.receipts import read_folder
    from tests.test_history_golden import seeded_home

    # the seeded finished game of the kind (played once per run, verified as it was played), only read here
    cfg = config_mod.load(seeded_home(kind) / "pbem.toml")
    with session(cfg.database_url) as s:
        game = store.game_by_name(s, f"{kind}-demo")
        assert game is not None
        exports = {"moderator": build(s, game), "public": build(s, game, public=True)}
    sent = cfg.maildir_path / "sent"
    everything = read_folder(sent)
    alice, bob = _to(everything, "alice@players.example"), _to(everything, "bob@players.example")
    boxes = {"alice": _box(tmp_path / "alice", alice), "bob": _box(tmp_path / "bob", bob)}
    bare = [re.sub(rb"^To: .*$", b"To: alice@players.example", raw, count=1, flags=re.M) for raw in alice]
    boxes["bare"] = _box(tmp_path / "bare", bare)
    heads = sum(b"X-Pbem-Record:" in raw for raw in alice)
    for audience, doc in exports.items():
        if audience not in AUDIENCES[kind]:
            continue
        path = tmp_path / f"{audience}.json"
        path.write_text(json.dumps(doc))
        ways = {  # (her mailbox alone, no --as: read as the first of the two mailboxes below, the same call)
            "--as her name": ("--mail", sent, "--as", "Alice"),
            "--as her address": ("--mail", sent, "--as", "alice@players.example"),
            "--as her name, mail to her bare address": ("--mail", boxes["bare"], "--as", "Alice"),
            "--sent and --mail --as her name": (
                "--sent",
                cfg.maildir_path / "processed",
                "--mail",
                sent,
                "--as",
                "Alice",
            ),
        }
        for way, args in ways.items():
            code, out = _verify(path, *args)
            assert code == 0 and "MISMATCH" not in out, f"{audience} export, {way}:\n{out}"
            if way != "--sent and --mail --as her name":
                assert _mails_checked(out, out.split("mails to ")[1].split(":")[0]) == heads, f"{way}:\n{out}"
        # her mailbox without --as, then Bob's: each folder is checked by the same `verify_mail` call as one --mail
        # alone (it was run alone too, the whole check of her mail once more), then their signed heads compared
        code, out = _verify(path, "--mail", boxes["alice"], "--mail", boxes["bob"])
        assert code == 0 and "SPLIT" not in out and "MISMATCH" not in out, f"{audience} export, two mailboxes:\n{out}"
        assert "signed heads of these 2 mailboxes agree" in out
        assert _mails_checked(out, "alice@players.example") == heads, f"her mailbox, no --as:\n{out}"
        if kind == WITHHELD_KIND:
            _withheld(tmp_path, audience, doc, cfg.maildir_path / "processed", sent)
        code, out = _verify(path, "--mail", sent)  # everyone's mail: whose is to be said
        assert code == 2 and "choose one with --as" in out and len(out.strip().splitlines()) == 1, out


def _withheld(tmp_path: Path, audience: str, doc: dict, processed: Path, received: Path) -> None:
    """A mail of Alice's holding orders that the export lists in `messages` but no input applies: marked accepted it
    is WITHHELD; held, a note; ignored or rejected with a reason, the reason is shown to her; without one, a mismatch."""
    from pbem.trust.receipts import read_folder

    orders = next(o for o in doc["orders"] if o["player"] == "Alice" and o["kind"] == "orders")
    mid = f"<withheld-{audience}@players.example>"
    raw = (
        f"From: Alice <alice@players.example>\nTo: moderator@pbem.example\nSubject: Re: [pbem {doc['game']['name']}] "
        f"orders\nMessage-ID: {mid}\nDate: Mon, 05 Jan 2026 12:30:00 +0000\nContent-Type: text/plain; charset=utf-8\n"
        "MIME-Version: 1.0\n\n" + "\n".join(orders["lines"]) + "\n"
    ).encode()
    mine = [r for r in read_folder(processed) if re.search(rb"^From: .*alice@players\.example", r, re.M | re.I)]
    box = _box(tmp_path / f"alice-sent-{audience}", [*mine, raw])
    cases = {
        ("accepted", ""): (1, "MISMATCH: WITHHELD: your mail of"),
        ("held", "held until the deadline"): (0, "is marked held until the deadline, but no input"),
        ("ignored", "duplicate"): (0, f"is marked ignored: duplicate; it held your orders {orders['lines'][0]}"),
        ("rejected", ""): (1, "REFUSED WITHOUT A REASON")
        if audience != "public"
        else (0, "the public export gives no reasons"),  # reasons are the sender's and the moderator's only
    }
    for (outcome, reason), (want, said) in cases.items():
        forged = json.loads(json.dumps(doc))
        at = forged["messages"][0]["received"]
        forged["messages"].insert(
            1, {"message_id": mid, "player": "Alice", "received": at, "outcome": outcome, "reason": reason}
        )
        path = tmp_path / f"withheld-{audience}-{outcome}.json"
        path.write_text(json.dumps(forged))
        code, out = _verify(path, "--sent", box, "--mail", received, "--as", "Alice")
        assert code == want and said in out, f"{audience} export, a withheld mail marked {outcome}:\n{out}"
        if outcome == "accepted":
            assert "; ".join(orders["lines"])[:60] in out, out


def _pbem(home: Path, *args: str) -> str:
    from tests.reliability import forkserver

    env = os.environ | {"PBEM_CONFIG": str(home / "pbem.toml"), "PYTHONPATH": str(ROOT)}
    done = forkserver.pbem(list(args), env=env, cwd=ROOT)  # `python -m pbem`, forked from one that imported pbem
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def replaced_seat(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home whose game g1 had Bob's seat given to Dora, then was extended and abandoned (by the CLI); only read
    by the tests (each exports it for one audience)."""
    root = tmp_path_factory.mktemp("replaced")
    home = root / "home"
    _pbem(root, "init", str(home), "--address", "mod@example.org")
    run = lambda *a: _pbem(home, *a)  # noqa: E731
    run("game", "new", "habsburg", "--name", "g1", "--no-join", "--player", "Alice <a@x.org>",
        "--player", "Bob <b@x.org>", "--player", "Carol <c@x.org>")  # fmt: skip
    run("poll")
    run("game", "replace", "g1", "Bob", "Dora <d@x.org>")
    run("poll")
    run("game", "extend", "g1", "24h")
    run("poll")
    run("game", "abandon", "g1")
    run("poll")
    return home


@pytest.mark.slow
@pytest.mark.xdist_group("replaced-seat")  # both audiences on one worker: the home is made once
@pytest.mark.parametrize("audience", ["--moderator", "--public"])
def test_both_holders_of_a_replaced_seat_verify_their_mail(tmp_path: Path, replaced_seat: Path, audience: str) -> None:
    home = replaced_seat
    _pbem(home, "export", "g1", audience, "-o", str(tmp_path / "g1.json"))
    sent = home / "mail" / "sent"
    for who in ("Dora", "d@x.org", "Bob", "b@x.org", "Alice"):
        code, out = _verify(tmp_path / "g1.json", "--mail", sent, "--as", who)
        assert code == 0 and "MISMATCH" not in out, f"--as {who}:\n{out}"
