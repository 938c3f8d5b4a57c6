"""Chart data for the history page: which charts a document's scores events support, no game named.

`charts(doc)` draws a line chart of every per-player number the scores events
carry (scores, tokens, streaks...), a line of every plain number that changes
(stakes) and strip charts of every per-entity field (a country's status and
faction over time).  Titles, axis labels, the order of the charts and the
fields worth a strip come from the game's `HistorySpec`; a number the spec
does not declare is still charted, titled after its key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pbem.engine.declare import HistorySpec
from pbem.history.story import Doc, holders, of_seat, per_player, scores_events, spec_of, step_number
from pbem.history.svg import category_strip, fmt, heat_strip, line_chart, strip_desc


@dataclass
class Chart:
    id: str
    title: str
    desc: str
    svg: str


def charts(doc: Doc) -> list[Chart]:
    """Every chart the document's scores events support, in the order the game declares its series."""
    evs = scores_events(doc)
    if not evs:
        return []
    spec = spec_of(doc)
    seats = holders(doc)  # a replaced seat's line is one, named by its holder now (walk8)
    players = [n for h in seats for n in h.names]
    word = spec.step
    xs = [step_number(spec, e["data"], i + 1) for i, e in enumerate(evs)]
    keys: list[str] = []
    for e in evs:
        keys += [k for k in e["data"] if k not in keys and k not in spec.step_keys]
    declared = [s.key for s in spec.series]
    keys.sort(key=lambda k: (k != "scores", declared.index(k) if k in declared else len(declared), k))
    out: list[Chart] = []
    for key in keys:
        values = [e["data"].get(key) for e in evs]
        present = [v for v in values if v is not None]
        if not present:
            continue
        title, label = _title(spec, key), _label(spec, key)
        if all(per_player(v, players) for v in present):
            series = {h.name: [of_seat(v or {}, h) for v in values] for h in seats}
            out.append(_line(key, title, word, label, xs, series))
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
            if len(set(present)) == 1:
                continue  # a constant (e.g. stakes always emptied by the scoring) says nothing
            out.append(_line(key, title, word, label, xs, {key.capitalize(): values}))
        elif all(_per_entity(v) for v in present):
            out += _entity_charts(spec, key, xs, values)
    return out


def _title(spec: HistorySpec, key: str) -> str:
    declared = spec.series_for(key)
    title = declared.title if declared else key.replace("_", " ").capitalize() + " after each {step}"
    return title.format(step=spec.step.lower())


def _label(spec: HistorySpec, key: str) -> str:
    declared = spec.series_for(key)
    return declared.label if declared else key


def _per_entity(value: Any) -> bool:
    return isinstance(value, dict) and bool(value) and all(isinstance(v, dict) for v in value.values())


def _line(cid: str, title: str, word: str, ylabel: str, xs: list[int], series: dict[str, list[Any]]) -> Chart:
    desc = f"{title}. " + " ".join(
        f"{name}: " + ", ".join(f"{word.lower()} {x} {fmt(v)}" for x, v in zip(xs, vals) if v is not None) + "."
        for name, vals in series.items()
    )
    return Chart(
        cid, title, desc, line_chart(cid, title, desc, xs, series, word, ylabel.replace("_", " ").capitalize())
    )


def _entity_charts(spec: HistorySpec, key: str, xs: list[int], values: list[Any]) -> list[Chart]:
    word = spec.step
    entities: list[str] = []
    fields: list[str] = []
    for v in values:
        for name, rec in (v or {}).items():
            entities += [name] if name not in entities else []
            fields += [f for f in rec if f not in fields]
    chosen = [f for f in spec.entity_fields if f in fields] or fields
    out = []
    for f in chosen:
        grid = [[((v or {}).get(ent) or {}).get(f) for v in values] for ent in entities]
        numeric = all(isinstance(c, (int, float)) or c is None for row in grid for c in row)
        title = f"{_singular(key)} {f} after each {word.lower()}"
        cid = f"{key}-{f}"
        svg = (
            heat_strip(cid, title, xs, word, entities, grid)
            if numeric
            else category_strip(cid, title, xs, word, entities, grid, spec.colours)
        )
        out.append(Chart(cid, title, strip_desc(title, entities, xs, word), svg))
    return out


def _singular(key: str) -> str:
    word = key[:-3] + "y" if key.endswith("ies") else key[:-1] if key.endswith("s") else key
    return word.replace("_", " ").capitalize()
