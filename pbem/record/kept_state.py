"""A snapshot's engine state as stored: its JSON, led by the SHA-256 of the rest (walk12).

A snapshot is a cache of the state after an input (`store.load` rebuilds a missing or unreadable one by replaying
the chained inputs), and a long state's JSON runs past its row's first page into overflow pages, whose content
SQLite never checks.  A byte changed there that kept the JSON valid was the state a poll played on from (a
Sixteen Thirty's `"desc": false` read as `"Desc": false`: its players listed in another order, 1 of that home's 15
snapshot overflow pages with one letter's case flipped, `tests/test_walk12_event_pages.py`).  So the text is
`{"#sha256": "HEX", ...the state's keys...}`: still JSON, its digest over the state's own `json.dumps(state,
sort_keys=True)`; one whose digest differs is read as no snapshot (rebuilt).  A snapshot written before walk12 has
no digest and is read as it was.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

LEAD = '{"#sha256": "'
_HEX = 64


def dumps(state: dict[str, Any]) -> str:
    body = json.dumps(state, sort_keys=True)
    digest = hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()
    return f'{LEAD}{digest}"' + (", " + body[1:] if body != "{}" else "}")


def loads(text: str | None) -> dict[str, Any] | None:
    """The state `text` holds; None when it is no state or its digest differs (the caller rebuilds it)."""
    if text is None:
        return None
    if text.startswith(LEAD):
        digest, rest = text[len(LEAD) : len(LEAD) + _HEX], text[len(LEAD) + _HEX :]
        body = "{" + rest[3:] if rest.startswith('", ') else "{}" if rest == '"}' else None
        if body is None or hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest() != digest:
            return None
        text = body
    try:
        state = json.loads(text)
    except ValueError:
        return None
    return state if isinstance(state, dict) else None
