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
import re
from pathlib import Path

import pytest

from pbem import engine as registry
from tests.conftest import body_of, sent_mail

ROOT = Path(__file__).resolve().parent / "golden" / "playthrough"
LARGE = 400_000  # transcripts above this many characters are stored gzipped (read them with zcat)


def _read(path: Path) -> str:
    return gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()


def game_of(kind: str) -> tuple[str, int, str]:
    """(kind, players, seed) of the seeded playthrough of `kind`; the bot seed is "golden".

    The golden transcripts hold one file per player and the final report names
    the seed, so both are read from them; a kind without transcripts yet plays
    3 players (or the nearest count it seats) with the seed "golden-<kind>".
    """
    files = sorted([*(ROOT / kind).glob("*.txt"), *(ROOT / kind).glob("*.txt.gz")])
    seed = re.search(r"^The seed was: (\S+)$", _read(files[0]), re.M) if files else None
    if seed:
        return kind, len(files), seed.group(1)
    eng = registry.get(kind)
    return kind, min(max(3, eng.min_players), eng.max_players), f"golden-{kind}"


GAMES = [game_of(kind) for kind in registry.available()]


#: The record's hashes (issue 13) cover the bots' Message-IDs, which are random: the transcripts keep the
#: record's positions ("Record #214") and mask the hashes.
HASHES = [(re.compile(r"^(Record #\d+, )[0-9a-f]{16}\.\.\.$", re.M), r"\1<head>..."),
          (re.compile(r"(its hash is\n  )[0-9a-f]{64}$", re.M), r"\1<hash>"),
          (re.compile(r"(fingerprint )[0-9a-f]{4}( [0-9a-f]{4}){4}"), r"\1<key>"),  # a fresh key per game
          (re.compile(r"(record #\d+, head )[0-9a-f]{64}$", re.M), r"\1<head>")]  # fmt: skip


def masked(text: str) -> str:
    for pattern, repl in HASHES:
        text = pattern.sub(repl, text)
    return text


def transcript(cfg) -> dict[str, str]:
    per: dict[str, list[str]] = {}
    for n, m in enumerate(sent_mail(cfg), 1):
        to = m["To"].addresses[0].display_name
        per.setdefault(to, []).append(f"##### mail {n}: {m['Subject']}\n{masked(body_of(m).rstrip())}\n")
    return {p: "\n".join(mails) for p, mails in per.items()}


@pytest.mark.parametrize("kind, players, seed", GAMES, ids=[g[0] for g in GAMES])
def test_seeded_playthrough_reports_match_golden_text(kind: str, players: int, seed: str) -> None:
    from pbem.home import config as config_mod
    from tests.test_history_golden import seeded_home

    if kind not in registry.available():
        pytest.skip(f"{kind} engine not installed")
    # the seeded game of the kind (played once per run, verified as it was played): its record is the other golden
    got = transcript(config_mod.load(seeded_home(kind) / "pbem.toml"))
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
    expected = {p.name.split(".")[0]: _read(p) for p in [*folder.glob("*.txt"), *folder.glob("*.txt.gz")]}
    assert sorted(got) == sorted(expected)
    for player in got:
        assert got[player] == expected[player], f"{kind}: {player}'s mail differs from {folder / player}.txt"
