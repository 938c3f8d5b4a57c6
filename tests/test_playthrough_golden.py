"""One seeded playthrough per game, by email, whose per-player mail is compared as text.

The whole game runs through the real pipeline (Maildir in and out, SQLite),
with a fixed clock, seed and bot seed, so every report, acknowledgement and
notice each player receives is reproducible.  A change in the rules, the
reports or the order grammar shows up here as a readable diff.
Run with PBEM_UPDATE_GOLDEN=1 to rewrite the files after a deliberate change.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from pbem import engine as registry
from tests.conftest import Clock, body_of, sent_mail

ROOT = Path(__file__).resolve().parent / "golden" / "playthrough"
LARGE = 400_000  # transcripts above this many characters are stored gzipped (read them with zcat)
GAMES = [
    ("habsburg", 3, "golden-hh"),
    ("italian-wars", 2, "golden-iw"),
    ("dynasties", 3, "golden-dy"),
    ("sixteen-thirty", 3, "golden-st"),
]


def transcript(cfg) -> dict[str, str]:
    per: dict[str, list[str]] = {}
    for n, m in enumerate(sent_mail(cfg), 1):
        to = m["To"].addresses[0].display_name
        per.setdefault(to, []).append(f"##### mail {n}: {m['Subject']}\n{body_of(m).rstrip()}\n")
    return {p: "\n".join(mails) for p, mails in per.items()}


@pytest.mark.parametrize("kind, players, seed", GAMES, ids=[g[0] for g in GAMES])
def test_seeded_playthrough_reports_match_golden_text(tmp_path: Path, kind: str, players: int, seed: str) -> None:
    from pbem.demo import run

    if kind not in registry.available():
        pytest.skip(f"{kind} engine not installed")
    r = run(kind, players, seed, tmp_path / "home", bot_seed="golden", clock=Clock())
    assert r.verified
    from pbem import config as config_mod

    got = transcript(config_mod.load(tmp_path / "home" / "pbem.toml"))
    folder = ROOT / kind
    if os.environ.get("PBEM_UPDATE_GOLDEN"):
        folder.mkdir(parents=True, exist_ok=True)
        for old in [*folder.glob("*.txt"), *folder.glob("*.txt.gz")]:
            old.unlink()
        for player, text in got.items():
            if len(text) > LARGE:
                (folder / f"{player}.txt.gz").write_bytes(gzip.compress(text.encode(), mtime=0))
            else:
                (folder / f"{player}.txt").write_text(text)
        return
    expected = {
        p.name.split(".")[0]: (gzip.decompress(p.read_bytes()).decode() if p.suffix == ".gz" else p.read_text())
        for p in [*folder.glob("*.txt"), *folder.glob("*.txt.gz")]
    }
    assert sorted(got) == sorted(expected)
    for player in got:
        assert got[player] == expected[player], f"{kind}: {player}'s mail differs from {folder / player}.txt"
