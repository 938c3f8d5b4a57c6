"""Every JSON file pbem reads from outside is refused in one sentence, at a cost linear in its bytes (costs22).

`pbem verify EXPORT` reads a file a player got from anyone; `pbem backup --check DIR` and `--keep` read a backup's
`manifest.json` (`backup_check.manifest_of`, for each of pbem's dated folders), `pbem publish` the site's
`.pbem-site.json`.  The generator writes each hostile shape at n and 4n (arrays or objects nested n deep, an object
of n keys all the same, integers of n digits, n unicode escapes and surrogate pairs, a string of n characters, n
keys) and gives it to each reader: none may raise (a traceback), and the lines of Python each runs
(`tests.growth.step_growth`) may grow at most `MAX_GROWTH` times at 4x.

On c83d8ea7: 4 of 32 cases failed, each a RecursionError traceback: `backup --check` and `manifest_of` (so
`backup --keep`) of arrays and of objects nested 2,000 deep (a manifest of 4 KB).  Now 0 of 32: `backup_check`
refuses them ("it nests deeper than a manifest does").  None grew more than linearly.  The suite runs two cases
(chosen by the test's seed); `PBEM_COSTS22_FULL=1` runs every shape with every reader.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli import app
from tests.growth import step_growth

FULL = bool(os.environ.get("PBEM_COSTS22_FULL"))
#: units of a shape: 4 N = 2,000 deep passes the standard library's recursion (about 1,000)
N = 2_000 if FULL else 500
MAX_GROWTH = 6.0  # lines at 4x (linear 4; a square 16)

SHAPES: dict[str, Callable[[int], str]] = {
    "nested arrays": lambda n: "[" * n + "]" * n,
    "nested objects": lambda n: '{"files":' * n + "{}" + "}" * n,
    "duplicate keys": lambda n: "{" + ",".join('"files":{}' for _ in range(n)) + "}",
    "big integers": lambda n: '{"format":' + "9" * n + ',"files":{}}',
    "many big integers": lambda n: "[" + ",".join("9" * 30 for _ in range(n)) + "]",
    "unicode escapes": lambda n: '{"pbem":"' + "\\ud83d\\ude00\\u00e9\\ud800" * n + '","files":{}}',
    "long string": lambda n: '{"format":1,"pbem":"' + "x" * (50 * n) + '","files":{}}',
    "many keys": lambda n: '{"format":1,"files":{' + ",".join(f'"f{k}":{{"bytes":{k}}}' for k in range(n)) + "}}",
}


def _verify(tmp: Path, text: str) -> Callable[[], object]:
    export = tmp / "export.json"
    export.write_text(text)

    def run() -> None:
        res = CliRunner().invoke(app, ["verify", str(export)])
        assert res.exit_code in (1, 2) and isinstance(res.exception, SystemExit), res.output[-500:]

    return run


def _backup_check(tmp: Path, text: str) -> Callable[[], object]:
    folder = tmp / "backup"
    folder.mkdir(exist_ok=True)
    (folder / "manifest.json").write_text(text)

    def run() -> None:
        res = CliRunner().invoke(app, ["backup", "--check", str(folder)])
        assert res.exit_code in (1, 2) and isinstance(res.exception, SystemExit), res.output[-500:]
        assert "manifest" in res.output

    return run


def _manifest_of(tmp: Path, text: str) -> Callable[[], object]:
    """What `pbem backup --keep` reads of each of its dated folders."""
    from pbem.app.backup_check import manifest_of

    folder = tmp / "kept"
    folder.mkdir(exist_ok=True)
    (folder / "manifest.json").write_text(text)
    return lambda: manifest_of(folder)


def _site(tmp: Path, text: str) -> Callable[[], object]:
    from pbem.app import publish

    (tmp / publish.MANIFEST).write_text(text)
    return lambda: publish._manifest(tmp)


READERS: dict[str, Callable[[Path, str], Callable[[], object]]] = {
    "verify": _verify,
    "backup --check": _backup_check,
    "manifest_of": _manifest_of,
    "site manifest": _site,
}


def _cases(seed: int) -> list[tuple[str, str]]:
    if FULL:
        return [(s, r) for s in SHAPES for r in READERS]
    rng = random.Random(seed)  # two cases (each reading costs two collections of the worker's objects, 0.2 s)
    return [(rng.choice(sorted(SHAPES)), r) for r in rng.sample(sorted(READERS), 2)]


@pytest.mark.parametrize("seed", [22])
def test_no_json_file_pbem_reads_raises_or_costs_more_than_linear(seed: int, tmp_path: Path) -> None:
    failed = []
    for shape, reader in _cases(seed):
        where = tmp_path / f"{shape}-{reader}".replace(" ", "_")

        def work(n: int, shape: str = shape, reader: str = reader, where: Path = where) -> Callable[[], object]:
            (where / str(n)).mkdir(parents=True)
            return READERS[reader](where / str(n), SHAPES[shape](n))

        try:
            g = step_growth(work, N)
        except (AssertionError, RecursionError) as exc:
            failed.append(f"{shape} read by {reader}: {type(exc).__name__} {str(exc)[:200]}")
            continue
        if g.ratio > MAX_GROWTH:
            failed.append(f"{shape} read by {reader}: {g}")
    assert not failed, "\n".join(failed)


def test_a_manifest_nested_too_deep_is_told_in_one_sentence(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(SHAPES["nested arrays"](2_000))
    res = CliRunner().invoke(app, ["backup", "--check", str(tmp_path)])
    assert res.exit_code == 1 and "it nests deeper than a manifest does" in res.output, res.output
    assert json.dumps(res.output).count("Traceback") == 0


def test_an_export_of_more_values_than_one_needs_is_refused_before_it_is_held(tmp_path: Path) -> None:
    """64 MiB of `{},` (empty objects, 3 bytes each) held 1.6 GB once read: 25 times the text (`pbem verify` of a
        file from anyone).  Past `MAX_VALUES` (4,000,000; pbem's exports take 22 to 25 bytes a value, some 3 million at
        the 64 MiB cap) the export is refused from the one pass that measures its nesting.  Here the cap at 1,000 and
        20,000 empty objects, empty lists, strings and numbers: the bytes held at the peak over the text's were 24.2, 21.6,
        12.0 and 7.4 on c83d8ea7 (4 of 4 shapes over 4), 0.01 on 90a53973, now 2.0, 2.0, 3.7 and 2.0 (0 of 4: costs23's
    pass in C holds a piece of the text, up to 1 MiB, without its strings, and the brackets; 15 MB: 0.34 and 1.35); the same values in `pbem publish`'s
        site manifest were read (as held: 25.1, 22.4, 12.8 and 8.2 times its text at 960 KB), now read as none."""
    from pbem.app import publish
    from pbem.trust import canonical
    from tests.growth import held

    texts = {
        "objects": "[" + "{}," * 20_000 + "{}]",
        "lists": "[" + "[]," * 20_000 + "[]]",
        "strings": "[" + '"ab",' * 20_000 + '"ab"]',
        "numbers": "[" + "1000," * 20_000 + "1000]",
    }
    cap = getattr(canonical, "MAX_VALUES", None)
    try:
        canonical.MAX_VALUES = 1_000  # type: ignore[attr-defined]
        per, read = {}, {}
        for shape, text in texts.items():

            def run(text: str = text) -> None:
                with pytest.raises(canonical.BadJson, match="values, more than the 1,000 an export can need"):
                    canonical.load_export(text)

            per[shape] = held(run) / len(text)
            site = tmp_path / shape  # the same values in a manifest of the site's version: read as none
            site.mkdir()
            (site / publish.MANIFEST).write_text(f'{{"version":{publish.VERSION},"games":{text}}}')
            read[shape] = publish._manifest(site)
    finally:
        if cap is not None:
            canonical.MAX_VALUES = cap  # type: ignore[attr-defined]
    assert max(per.values()) <= 4, per
    assert read == {key: {} for key in texts}, "the site's manifest of too many values is read as none"
