"""Picture versions (phones2): mail an older pbem drew with version 1's pictures still passes `pbem verify --mail`.

Version 2 lays the boards out and draws them 340 px wide (`pbem.render.pictures.phone`), so a report written
before it carries pictures, and an `<img width="680" ...>`, that the replay's version 2 does not draw.  `pbem verify
--mail` tries each version of `pbem.render.pictures.VERSIONS`, newest first, and compares the report's prose with
the figure of the version its pictures were found in.  Here a whole Italian Wars game is played with version 1's
pictures (as pbem 0.3.0 before phones2 drew them): every report verifies (Alice's 17 and Bob's 17 reports with a
picture: 0 problems; with version 2 alone, 34 for each, every picture and every figure's size named, which is what a
mail an older pbem drew would meet without the versions kept), and a picture of version 1 changed by one pixel is
still named.  The suite checks Bob's mail.
"""

from __future__ import annotations

import io
import re
from functools import cache
from pathlib import Path

import pytest
from PIL import Image

from pbem import engine as registry
from pbem.render import pictures
from pbem.render.pictures import MODULES
from pbem.trust import shown
from pbem.trust.receipts import read_folder, verify_mail
from tests import picture_bytes


def _old(raw: bytes) -> bool:
    """Whether a mail shows a picture of version 1 (its HTML's figure 680 px wide)."""
    from pbem.trust.told import html

    return 'width="680"' in (html(raw) or "")


@cache
def _old_game(tmp: str) -> tuple[dict, list[tuple[str, list[bytes]]]]:
    """An Italian Wars game played with version 1's pictures: its export and each player's mail."""
    import json

    import pbem.render.templates as templates
    from pbem.cli.demo import run
    from tests.conftest import Clock

    real = templates.board
    templates.board = lambda view: pictures.board(view, 1)  # type: ignore[assignment]
    try:
        r = run("italian-wars", 2, "phones2-v1", Path(tmp) / "home", bot_seed="golden", clock=Clock(), max_polls=3000)
    finally:
        templates.board = real  # type: ignore[assignment]
    assert "did not finish" not in r.summary, r.summary
    home = Path(tmp) / "home"
    doc = json.loads((home / "italian-wars-demo.json").read_text())
    sent = list(read_folder(home / "mail" / "sent"))
    out = []
    for p in doc["players"]:
        pattern = re.compile(rb"^To: .*<" + re.escape(p["address"].encode()) + rb">", re.M)
        out.append((p["name"], [raw for raw in sent if pattern.search(raw)]))
    return doc, out


@pytest.fixture(scope="module")
def old(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, list[tuple[str, list[bytes]]]]:
    return _old_game(str(tmp_path_factory.mktemp("v1")))


def test_mail_drawn_with_version_1s_pictures_verifies(old) -> None:  # type: ignore[no-untyped-def]
    doc, boxes = old
    name, raws = boxes[1]  # (one player's mail: each report of Bob's, 17, shows a picture)
    assert sum(_old(raw) for raw in raws) > 4, "the game's reports carry no picture of version 1: nothing compared"
    check = verify_mail(doc, raws, name)
    assert check.ok, (name, check.problems[:3])
    assert any("pictures of the board" in line for line in check.checked), check.checked


def test_with_version_2_alone_the_older_pictures_would_be_named(old, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    doc, boxes = old
    monkeypatch.setattr(shown, "VERSIONS", (pictures.VERSION,))
    name, raws = boxes[1]
    check = verify_mail(doc, raws, name)
    assert not check.ok and any("picture" in p for p in check.problems), check.problems[:3]


def test_a_version_1_picture_changed_by_one_pixel_is_named(old) -> None:  # type: ignore[no-untyped-def]
    import base64

    doc, boxes = old
    name, raws = boxes[1]
    at = next(i for i, raw in enumerate(raws) if _old(raw))
    head, _, rest = raws[at].partition(b"Content-Type: image/png")
    headers, _, body = rest.partition(b"\n\n")
    data, sep, tail = body.partition(b"\n--")
    image = Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")
    image.putpixel((5, 5), (0, 0, 0))
    out = io.BytesIO()
    image.save(out, "PNG")
    forged = head + b"Content-Type: image/png" + headers + b"\n\n" + base64.encodebytes(out.getvalue()) + sep + tail
    check = verify_mail(doc, [*raws[:at], forged, *raws[at + 1 :]], name)
    assert not check.ok and any("picture" in p for p in check.problems), check.problems[:3]


@pytest.mark.parametrize("kind", sorted(MODULES))
def test_a_reports_pictures_in_version_2_weigh_at_most_half_again_version_1s(kind: str) -> None:
    """A report's pictures are sent in every report (base64, stored, mailed): version 2's PNG bytes are at most
    `BOUND` (1.5) times version 1's, report by report.  phones2 drew version 2 at twice its layout's size: every
    report was over, 630 of the 630 of the whole generator (`python benchmarks/picture_versions.py --reports`:
    each kind at its fewest and most players, 3 seeds, 6 moments, every reader and the public view; up to 4.58
    times), and a reply cost 1.22 times main's instructions; drawn at its layout's size, 0 of 630 (at most 1.22
    times).  The suite's sample: each kind at its fewest players, one seed, 4 moments."""
    eng = registry.get(kind)
    sizes = list(picture_bytes.reports(kind, eng.min_players, 0, 4))
    assert len(sizes) > 6
    over = [(old, new) for old, new in sizes if new > picture_bytes.BOUND * old]
    assert not over, (
        f"{kind}: {len(over)} of {len(sizes)} reports' pictures weigh over 1.5 times version 1's: {over[:3]}"
    )
