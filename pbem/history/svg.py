"""Inline SVG drawing for the history page: line charts and strip charts, no game named.

Series differ by a colour-blind-safe colour, a dash pattern and a marker, so
they survive print.  Strip charts show one row per entity (a country, say)
and one cell per scoring point: a heat strip for numbers, a category strip
(coloured and lettered) for names, with the game's own colours for its
categories where it declares them (`HistorySpec.colours`).
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

#: Okabe-Ito colours (colour-blind safe), without black and yellow, then a grey.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#7f7f7f", "#9467bd"]
DASHES = ["", "8 4", "2 3", "10 3 2 3", "5 2", "1 4", "12 4 2 4 2 4", "3 6"]
MARKERS = ["circle", "square", "triangle", "diamond", "cross", "plus", "tri-down", "bar"]


def strip_desc(title: str, rows: list[str], xs: list[int], word: str) -> str:
    return f"{title}: one row per {', '.join(rows)}; one column per {word.lower()} {xs[0]} to {xs[-1]}."


def nice_ticks(lo: float, hi: float, want: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten, at least 1)."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / want
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    step = max(step, 1)
    start = math.floor(lo / step) * step
    ticks: list[float] = []
    t = start
    while t < hi + step * 0.999:
        ticks.append(t)
        t += step
    return ticks


def fmt(v: float) -> str:
    """A number as an axis or cell shows it: whole numbers without a decimal point."""
    return str(int(v)) if float(v).is_integer() else f"{v:.1f}"


def marker(kind: str, x: float, y: float, r: float = 4.0) -> str:
    if kind == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}"/>'
    if kind == "square":
        return f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r:.1f}" height="{2 * r:.1f}"/>'
    pts = {
        "triangle": [(0, -r * 1.2), (r * 1.1, r * 0.8), (-r * 1.1, r * 0.8)],
        "tri-down": [(0, r * 1.2), (r * 1.1, -r * 0.8), (-r * 1.1, -r * 0.8)],
        "diamond": [(0, -r * 1.3), (r * 1.1, 0), (0, r * 1.3), (-r * 1.1, 0)],
        "bar": [(-r * 1.3, -r * 0.5), (r * 1.3, -r * 0.5), (r * 1.3, r * 0.5), (-r * 1.3, r * 0.5)],
    }
    if kind in pts:
        return '<path d="M' + " L".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in pts[kind]) + ' Z"/>'
    d = r * 1.1
    if kind == "cross":
        path = f"M{x - d:.1f},{y - d:.1f} L{x + d:.1f},{y + d:.1f} M{x - d:.1f},{y + d:.1f} L{x + d:.1f},{y - d:.1f}"
    else:  # plus
        path = f"M{x - d:.1f},{y:.1f} L{x + d:.1f},{y:.1f} M{x:.1f},{y - d:.1f} L{x:.1f},{y + d:.1f}"
    return f'<path class="stroke-only" d="{path}"/>'


def _open_svg(cid: str, title: str, desc: str, width: int, height: int, kind: str = "line") -> list[str]:
    return [
        f'<svg id="chart-{escape(cid)}" class="chart {kind}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="chart-{escape(cid)}-title chart-{escape(cid)}-desc" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="chart-{escape(cid)}-title">{escape(title)}</title>',
        f'<desc id="chart-{escape(cid)}-desc">{escape(desc)}</desc>',
    ]


def line_chart(
    cid: str, title: str, desc: str, xs: list[int], series: dict[str, list[Any]], xlabel: str, ylabel: str
) -> str:
    """A line chart: every series its colour, dash and marker; axes with ticks and labels; a legend below."""
    W, L, R, T, PH = 640, 64, 18, 14, 240
    names = list(series)
    per_row = max(1, (W - L) // 140)
    legend_rows = math.ceil(len(names) / per_row)
    H = T + PH + 64 + legend_rows * 24
    vals = [v for vs in series.values() for v in vs if v is not None]
    ticks = nice_ticks(min(0, min(vals, default=0)), max(vals, default=1))
    y0, y1 = ticks[0], ticks[-1]
    x0, x1 = min(xs), max(xs)
    pw = W - L - R

    def X(x: float) -> float:
        return L + (pw / 2 if x1 == x0 else (x - x0) / (x1 - x0) * pw)

    def Y(y: float) -> float:
        return T + PH - (y - y0) / (y1 - y0) * PH

    out = _open_svg(cid, title, desc, W, H)
    out.append('<g class="grid" aria-hidden="true">')
    for t in ticks:
        out.append(f'<line x1="{L}" x2="{W - R}" y1="{Y(t):.1f}" y2="{Y(t):.1f}"/>')
    out.append("</g>")
    out.append('<g class="axis" aria-hidden="true">')
    out.append(
        f'<line x1="{L}" x2="{L}" y1="{T}" y2="{T + PH}"/><line x1="{L}" x2="{W - R}" y1="{T + PH}" y2="{T + PH}"/>'
    )
    for t in ticks:
        out.append(
            f'<line x1="{L - 5}" x2="{L}" y1="{Y(t):.1f}" y2="{Y(t):.1f}"/>'
            f'<text x="{L - 8}" y="{Y(t) + 4:.1f}" text-anchor="end">{fmt(t)}</text>'
        )
    step = max(1, math.ceil(len(xs) / 12))
    last = len(xs) - 1
    for i, x in enumerate(xs):
        if i != last and (i % step or last - i < step * 0.75):
            continue
        out.append(
            f'<line x1="{X(x):.1f}" x2="{X(x):.1f}" y1="{T + PH}" y2="{T + PH + 5}"/>'
            f'<text x="{X(x):.1f}" y="{T + PH + 20}" text-anchor="middle">{x}</text>'
        )
    out.append(
        f'<text class="label" x="{L + pw / 2:.1f}" y="{T + PH + 42}" text-anchor="middle">{escape(xlabel)}</text>'
    )
    out.append(
        f'<text class="label" transform="translate(14 {T + PH / 2:.1f}) rotate(-90)" text-anchor="middle">'
        f"{escape(ylabel)}</text>"
    )
    out.append("</g>")
    mark_every = max(1, math.ceil(len(xs) / 24))
    for i, name in enumerate(names):
        colour, dash, mk = PALETTE[i % len(PALETTE)], DASHES[i % len(DASHES)], MARKERS[i % len(MARKERS)]
        pts = [(X(x), Y(v), x, v) for x, v in zip(xs, series[name]) if v is not None]
        if not pts:
            continue
        d = "M" + " L".join(f"{px:.1f},{py:.1f}" for px, py, _, _ in pts)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<g class="series s{i}" data-series="{escape(name)}" style="--c:{colour}">')
        out.append(f"<title>{escape(name)}</title>")
        out.append(f'<path class="line" d="{d}"{dash_attr}/>')
        out.append('<g class="markers">')
        for j, (px, py, x, v) in enumerate(pts):
            if j % mark_every == 0 or j == len(pts) - 1:
                out.append(
                    marker(mk, px, py).replace(
                        "/>", f"><title>{escape(name)}, {xlabel.lower()} {x}: {fmt(v)}</title></" + _tag(mk) + ">", 1
                    )
                )
        out.append("</g></g>")
    out.append(f'<g class="legend" transform="translate({L} {T + PH + 64})">')
    for i, name in enumerate(names):
        colour, dash, mk = PALETTE[i % len(PALETTE)], DASHES[i % len(DASHES)], MARKERS[i % len(MARKERS)]
        lx, ly = (i % per_row) * 140, (i // per_row) * 24
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<g class="series s{i}" style="--c:{colour}" transform="translate({lx} {ly})">'
            f'<path class="line" d="M0,0 L34,0"{dash_attr}/><g class="markers">{marker(mk, 17, 0)}</g>'
            f'<text x="42" y="4">{escape(name)}</text></g>'
        )
    out.append("</g></svg>")
    return "\n".join(out)


def _tag(mk: str) -> str:
    return {"circle": "circle", "square": "rect"}.get(mk, "path")


def _strip_frame(
    cid: str, title: str, desc: str, xs: list[int], word: str, rows: list[str], extra_h: int = 0
) -> tuple[list[str], float, float, int, int]:
    L = max(60, 14 + 9.6 * max((len(r) for r in rows), default=4))
    cw = max(18.0, min(56.0, (640 - L - 10) / max(1, len(xs))))
    ch = 24
    W = int(L + cw * len(xs) + 10)
    H = 10 + ch * len(rows) + 40 + extra_h
    out = _open_svg(cid, title, desc, max(W, 360), H, "strip")
    out.append('<g class="axis" aria-hidden="true">')
    for r, name in enumerate(rows):
        out.append(f'<text x="{L - 6}" y="{10 + r * ch + ch / 2 + 4:.1f}" text-anchor="end">{escape(name)}</text>')
    step = max(1, math.ceil(len(xs) / 20))
    for i, x in enumerate(xs):
        if i % step == 0 or i == len(xs) - 1:
            out.append(
                f'<text x="{L + cw * i + cw / 2:.1f}" y="{10 + ch * len(rows) + 16}" text-anchor="middle">{x}</text>'
            )
    out.append(
        f'<text class="label" x="{L + cw * len(xs) / 2:.1f}" y="{10 + ch * len(rows) + 34}" '
        f'text-anchor="middle">{escape(word)}</text></g>'
    )
    return out, L, cw, ch, H


def heat_strip(cid: str, title: str, xs: list[int], word: str, rows: list[str], grid: list[list[Any]]) -> str:
    """One row per entity, one cell per scoring point; darker = higher, with the number written in the cell."""
    desc = (
        strip_desc(title, rows, xs, word)
        + " "
        + " ".join(
            f"{name}: " + ", ".join("-" if v is None else fmt(v) for v in vals) + "." for name, vals in zip(rows, grid)
        )
    )
    out, L, cw, ch, _H = _strip_frame(cid, title, desc, xs, word, rows, extra_h=32)
    hi = max([v for r in grid for v in r if v is not None] + [1])
    lo = min([v for r in grid for v in r if v is not None] + [0])
    out.append('<g class="cells">')
    for r, (name, vals) in enumerate(zip(rows, grid)):
        for i, v in enumerate(vals):
            x, y = L + cw * i, 10 + r * ch
            if v is None:
                out.append(f'<rect class="empty" x="{x:.1f}" y="{y}" width="{cw - 2:.1f}" height="{ch - 2}"/>')
                continue
            a = 0.12 + 0.78 * (v / hi if hi else 0)
            dark = a > 0.55
            out.append(
                f'<rect class="heat" x="{x:.1f}" y="{y}" width="{cw - 2:.1f}" height="{ch - 2}" '
                f'fill="#0072B2" fill-opacity="{a:.2f}"><title>{escape(name)}, {word.lower()} {xs[i]}: '
                f"{fmt(v)}</title></rect>"
                f'<text class="cell{" on-dark" if dark else ""}" x="{x + cw / 2 - 1:.1f}" y="{y + ch / 2 + 3:.1f}" '
                f'text-anchor="middle">{fmt(v)}</text>'
            )
    out.append("</g>")
    steps = nice_ticks(lo, hi, 6) if hi - lo > 8 else list(range(int(lo), int(hi) + 1))
    out.append(
        f'<g class="legend" transform="translate(10 {10 + ch * len(rows) + 62})"><text x="0" y="0">Scale:</text>'
    )
    for i, v in enumerate(steps):
        a = 0.12 + 0.78 * (v / hi if hi else 0)
        out.append(
            f'<g transform="translate({70 + i * 30} 0)"><rect x="0" y="-14" width="26" height="18" fill="#0072B2" '
            f'fill-opacity="{max(0.0, a):.2f}"/><text class="cell{" on-dark" if a > 0.55 else ""}" x="13" y="0" '
            f'text-anchor="middle">{fmt(v)}</text></g>'
        )
    out.append("</g></svg>")
    return "\n".join(out)


def category_strip(
    cid: str,
    title: str,
    xs: list[int],
    word: str,
    rows: list[str],
    grid: list[list[Any]],
    colours: dict[str, str] | None = None,
) -> str:
    """One row per entity, one cell per scoring point, coloured and lettered by category (e.g. faction).

    `colours` maps a category (upper case) to its colour; the others take the free palette colours.
    """
    cats = sorted({str(c) for row in grid for c in row if c is not None})
    colours = colours or {}
    free = [c for c in PALETTE if c not in colours.values()]
    colour_of = {c: colours.get(c.upper()) or free[i % len(free)] for i, c in enumerate(cats)}
    desc = (
        strip_desc(title, rows, xs, word)
        + " "
        + " ".join(
            f"{name}: " + ", ".join("none" if v is None else str(v) for v in vals) + "."
            for name, vals in zip(rows, grid)
        )
    )
    items = [(c, colour_of[c], c[:1].upper()) for c in cats] + [("none", None, "·")]
    per_row = 4
    out, L, cw, ch, _H = _strip_frame(
        cid, title, desc, xs, word, rows, extra_h=8 + 24 * math.ceil(len(items) / per_row)
    )
    out.append('<g class="cells">')
    for r, (name, vals) in enumerate(zip(rows, grid)):
        for i, v in enumerate(vals):
            x, y = L + cw * i, 10 + r * ch
            if v is None:
                out.append(
                    f'<rect class="empty" x="{x:.1f}" y="{y}" width="{cw - 2:.1f}" height="{ch - 2}">'
                    f"<title>{escape(name)}, {word.lower()} {xs[i]}: none</title></rect>"
                    f'<text class="cell" x="{x + cw / 2 - 1:.1f}" y="{y + ch / 2 + 3:.1f}" text-anchor="middle">·</text>'
                )
                continue
            out.append(
                f'<rect class="cat" x="{x:.1f}" y="{y}" width="{cw - 2:.1f}" height="{ch - 2}" '
                f'fill="{colour_of[str(v)]}"><title>{escape(name)}, {word.lower()} {xs[i]}: {escape(str(v))}</title></rect>'
                f'<text class="cell on-dark" x="{x + cw / 2 - 1:.1f}" y="{y + ch / 2 + 3:.1f}" '
                f'text-anchor="middle">{escape(str(v)[:1].upper())}</text>'
            )
    out.append("</g>")
    out.append(f'<g class="legend" transform="translate(10 {10 + ch * len(rows) + 62})">')
    for i, (c, colour, letter) in enumerate(items):
        fill = f'fill="{colour}"' if colour else 'class="empty"'
        out.append(
            f'<g transform="translate({(i % per_row) * 90} {(i // per_row) * 24})"><rect x="0" y="-12" width="16" height="16" {fill}/>'
            f'<text class="cell{" on-dark" if colour else ""}" x="8" y="0" text-anchor="middle">{escape(letter)}</text>'
            f'<text x="22" y="0">{escape(c.capitalize())}</text></g>'
        )
    out.append("</g></svg>")
    return "\n".join(out)
