"""Two processes adding to the ledger of mails sent at once lose none of the newest lines (months4).

The ledger (`outbox-sent/sent-ids.ledger`, `pbem.record.sentlog.kept`) keeps the newest `LEDGER_BYTES` of the ids
of the mails a home sent, so that a restored database does not send them again.  Each writer appended, and the one
that saw it pass `LEDGER_BYTES` read its newest half and replaced the file.  Two at once (a poll's sender and a
command's, both on one home): lines appended between the other's read and its replace were lost, and a writer
that had measured the file before the other replaced it read past the new file's end and wrote the ledger empty.
Now appending and trimming hold a lock on `sent-ids.ledger.lock` (waited for at most `LOCK_SECONDS`).

The generator (`rounds`): two real processes started together, each adding `batches` batches of five ids of its own
(increasing) to one ledger whose `LEDGER_BYTES` is drawn small (so that it is trimmed often), on a slow disk (each
replace of the file 2 ms after its read, as a loaded machine's may be), then, once both are
done, one batch more each (both fit in the half a trim keeps).  The oracle: each replace of the ledger writes the
end of the file it replaces, at least its newest half less a line (checked in the writer, just before the replace:
lines appended since the trim read the file, or a trim that read past the end of a file replaced meanwhile, fail
it); at the end, every line is a whole id of one of them, each process's ids left form one unbroken run ending at
its last batch, and the ledger is no longer than `LEDGER_BYTES`.

Of 20 rounds (`PBEM_LEDGER_ROUNDS=20`), 17 fail on 90a53973 (a replace that was not the end of the file it replaced:
lines lost) and none now.  The suite runs `ROUNDS` (1).  Cost: 0.3 s
at a load of 14, the two writers forked (`python3 -m pytest tests/test_sent_ledger_trim.py --durations=5 -n 0`).
"""

from __future__ import annotations

import multiprocessing
import os
import random
from pathlib import Path

import pytest

ROUNDS = int(os.environ.get("PBEM_LEDGER_ROUNDS", "1"))


def _child(folder: Path, tag: int, most: int, batches: int) -> None:
    """One writer (a forked process): `batches` batches of five ids of its own, then one more once both are done."""
    import time

    from pbem.record import files, sentlog

    sentlog.LEDGER_BYTES = most
    whole = files.write_whole

    def checked(path: Path, data: bytes, *a: object, **k: object) -> bool:  # each replace of the ledger: the end
        time.sleep(0.001)  # of the file it replaces, its newest half; a slow disk: a little after the read
        before = path.read_bytes()
        if not before.endswith(data) or len(data) < min(len(before), most // 2) - 20:
            with open(folder / f"bad-{tag}", "a") as f:
                f.write(f"{len(before)} bytes replaced by {len(data)}, not their end\n")
        return whole(path, data, *a, **k)  # type: ignore[arg-type]

    files.write_whole = checked  # type: ignore[assignment]
    deadline = time.monotonic() + 60
    while not (folder / "go").exists():  # both begin together
        if time.monotonic() > deadline:
            raise SystemExit("never told to go")
        time.sleep(0.001)
    for b in range(batches):
        sentlog.kept(folder, "".join(f"{tag * 10**7 + b * 5 + k}\n" for k in range(5)).encode())
    (folder / f"done-{tag}").touch()
    while not all((folder / f"done-{t}").exists() for t in (1, 2)):
        if time.monotonic() > deadline:
            raise SystemExit("the other never finished")
        time.sleep(0.001)
    sentlog.kept(folder, "".join(f"{tag * 10**7 + batches * 5 + k}\n" for k in range(5)).encode())


def rounds(seed: int) -> tuple[int, int]:
    """(LEDGER_BYTES, batches per process) of a round."""
    rng = random.Random(seed)
    return rng.choice([256, 512, 1024]), rng.randint(60, 150)


def problems(text: str, batches: int, most: int) -> list[str]:
    """What is wrong with the ledger `text` two processes (tags 1 and 2) wrote `batches` batches to."""
    out = []
    ids = [int(x) for x in text.split("\n") if x]
    if any(not x.isdigit() for x in text.split("\n")[:-1]) or not text.endswith("\n"):
        out.append("a torn or foreign line")
    if len(text.encode()) > most:
        out.append(f"{len(text.encode())} bytes, more than {most}")
    for tag in (1, 2):
        mine = [i - tag * 10**7 for i in ids if i // 10**7 == tag]
        newest = batches * 5 + 4  # the batch each adds last
        if not mine or sorted(mine) != list(range(newest - len(mine) + 1, newest + 1)):
            out.append(f"process {tag}: {len(mine)} ids, not its newest unbroken")
    return out


@pytest.mark.parametrize("seed", range(ROUNDS))
def test_two_processes_trimming_the_ledger_at_once_lose_none_of_its_newest_lines(tmp_path: Path, seed: int) -> None:
    most, batches = rounds(seed)
    fork = multiprocessing.get_context("fork")  # two real processes, pbem imported already
    procs = [fork.Process(target=_child, args=(tmp_path, tag, most, batches)) for tag in (1, 2)]
    for p in procs:
        p.start()
    (tmp_path / "go").touch()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0]
    text = (tmp_path / "sent-ids.ledger").read_text()
    bad = [
        ln
        for tag in (1, 2)
        if (tmp_path / f"bad-{tag}").exists()
        for ln in (tmp_path / f"bad-{tag}").read_text().splitlines()
    ]
    assert not bad, (most, batches, bad[:3], len(bad))
    assert not problems(text, batches, most), (most, batches, problems(text, batches, most))
