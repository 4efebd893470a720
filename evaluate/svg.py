"""Small inline-SVG charts: histograms, bar charts, grouped bars, line charts.

Generated as strings, so the report is one static file with no script, no
chart library and no network: it opens offline, in any browser.

Charts meant to be read side by side take their axis maximum from the caller
(``y_max``), so small multiples share a scale. Line charts tell series apart by
colour, dash and marker shape, and label each line at its end, saying which
series coincide there (a line drawn over another would otherwise hide it).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from html import escape

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#bab0ac")
DASHES = ("", "7 4", "2 3", "10 3 2 3", "4 2", "1 2")
MARKERS = ("circle", "square", "triangle", "diamond", "down", "cross")
LINE_LABELS_WIDTH = 150  # the right margin of a line chart, where its lines are labelled
LABEL_CHARS = 22  # a line label's line, before the next series of one curve goes below
LINE_HEIGHT = 12
WIDTH, HEIGHT = 360, 200
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 44, 12, 24, 34


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def dash(index: int) -> str:
    return DASHES[index % len(DASHES)]


def marker(index: int, x: float, y: float, size: float, fill: str, title: str = "") -> str:
    """Series ``index``'s marker at ``(x, y)``: a circle, square, triangle, diamond…"""
    shape = MARKERS[index % len(MARKERS)]
    tip = f"<title>{escape(title)}</title>" if title else ""
    r = size
    if shape == "circle":
        return (f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{fill}">'
                f"{tip}</circle>")
    points = {
        "square": [(-r, -r), (r, -r), (r, r), (-r, r)],
        "triangle": [(0, -1.2 * r), (1.1 * r, 0.8 * r), (-1.1 * r, 0.8 * r)],
        "diamond": [(0, -1.3 * r), (1.3 * r, 0), (0, 1.3 * r), (-1.3 * r, 0)],
        "down": [(0, 1.2 * r), (1.1 * r, -0.8 * r), (-1.1 * r, -0.8 * r)],
        "cross": [(-r, -0.35 * r), (-0.35 * r, -0.35 * r), (-0.35 * r, -r), (0.35 * r, -r),
                  (0.35 * r, -0.35 * r), (r, -0.35 * r), (r, 0.35 * r), (0.35 * r, 0.35 * r),
                  (0.35 * r, r), (-0.35 * r, r), (-0.35 * r, 0.35 * r), (-r, 0.35 * r)],
    }[shape]
    path = " ".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in points)
    return f'<polygon class="point" points="{path}" fill="{fill}">{tip}</polygon>'


def nice_ceiling(value: float) -> float:
    """Smallest 1/2/4/8 × 10^k at or above ``value``: an axis maximum whose quarters
    (the grid lines) are round numbers."""
    if value <= 0:
        return 1.0
    exponent = math.floor(math.log10(value))
    for step in (1, 2, 4, 8, 10):
        candidate = step * 10 ** exponent
        if candidate >= value:
            return float(candidate)
    return float(10 ** (exponent + 1))


def _fmt(value: float) -> str:
    if abs(value) >= 10_000:
        return f"{value / 1000:.0f}k"
    return f"{value:.0f}" if abs(value) >= 10 or value == int(value) else f"{value:.2g}"


def _frame(title: str, css_class: str, body: list[str], y_max: float, x_labels: list[str],
           percent: bool = False, labels_at_edges: bool = False, width: int = WIDTH,
           plot_right: float | None = None) -> str:
    plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM
    plot_right = plot_right if plot_right is not None else width - MARGIN_RIGHT
    parts = [f'<svg class="chart {css_class}" viewBox="0 0 {width} {HEIGHT}" '
             f'width="{width}" height="{HEIGHT}" role="img" aria-label="{escape(title)}">',
             f'<text class="title" x="{MARGIN_LEFT}" y="15">{escape(title)}</text>']
    for i in range(5):
        y = MARGIN_TOP + plot_h * (1 - i / 4)
        tick = y_max * i / 4
        label = f"{tick:.0%}" if percent else _fmt(tick)
        parts.append(f'<line class="grid" x1="{MARGIN_LEFT}" x2="{plot_right:.1f}" '
                     f'y1="{y:.1f}" y2="{y:.1f}"/>')
        parts.append(f'<text class="tick" x="{MARGIN_LEFT - 4}" y="{y + 3:.1f}" '
                     f'text-anchor="end">{escape(label)}</text>')
    parts.extend(body)
    plot_w = width - MARGIN_LEFT - MARGIN_RIGHT
    for i, label in enumerate(x_labels):
        if not label:
            continue
        x = MARGIN_LEFT + plot_w * (i + (0 if labels_at_edges else 0.5)) / max(len(x_labels), 1)
        parts.append(f'<text class="tick" x="{x:.1f}" y="{HEIGHT - MARGIN_BOTTOM + 13}" '
                     f'text-anchor="middle">{escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def bin_counts(values: Sequence[float], bins: Sequence[float]) -> list[int]:
    """Counts of ``values`` in ``[bins[i], bins[i+1])``; the last bin takes the rest."""
    counts = [0] * (len(bins) - 1)
    for v in values:
        counts[min(max(bisect.bisect_right(bins, v) - 1, 0), len(counts) - 1)] += 1
    return counts


def histogram(counts: Sequence[int], bins: Sequence[float], title: str, fill: str,
              y_max: float | None = None, cap: float | None = None) -> str:
    """Share of the chunks in each bin (``y_max``: the axis maximum, a share, the same for
    every histogram shown beside this one); ``cap``: a dashed line at the size cap."""
    total = sum(counts) or 1
    shares = [count / total for count in counts]
    y_max = y_max or min(1.0, nice_ceiling(max(shares, default=0)))
    plot_w = WIDTH - MARGIN_LEFT - MARGIN_RIGHT
    plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM
    bar_w = plot_w / len(counts)
    body = []
    for i, (count, share) in enumerate(zip(counts, shares, strict=True)):
        h = plot_h * min(share / y_max, 1.0)
        body.append(f'<rect class="bar" x="{MARGIN_LEFT + i * bar_w + 0.5:.1f}" '
                    f'y="{MARGIN_TOP + plot_h - h:.1f}" width="{max(bar_w - 1, 1):.1f}" '
                    f'height="{h:.1f}" fill="{fill}"><title>{_fmt(bins[i])}–{_fmt(bins[i + 1])}'
                    f' tokens: {count} chunks ({share:.0%})</title></rect>')
    if cap is not None and bins[0] <= cap <= bins[-1]:
        x = MARGIN_LEFT + plot_w * (cap - bins[0]) / (bins[-1] - bins[0])
        body.append(f'<line class="cap" x1="{x:.1f}" x2="{x:.1f}" y1="{MARGIN_TOP}" '
                    f'y2="{MARGIN_TOP + plot_h}" stroke="#444" stroke-dasharray="3 3"/>'
                    f'<text class="tick" x="{x - 3:.1f}" y="{MARGIN_TOP + 9}" '
                    f'text-anchor="end">cap {_fmt(cap)}</text>')
    step = max(1, len(counts) // 4)
    labels = [_fmt(bins[i]) if i % step == 0 else "" for i in range(len(counts))]
    return _frame(title, "histogram", body, y_max, labels, percent=True,
                  labels_at_edges=True)


def bar_chart(values: Mapping[str, float], title: str, percent: bool = False) -> str:
    names = list(values)
    top = max(values.values(), default=0) * 1.15  # headroom for the value labels
    y_max = min(1.0, nice_ceiling(top)) if percent else nice_ceiling(top)
    # Wide enough for every label: ~80 px a bar.
    width = max(WIDTH, MARGIN_LEFT + MARGIN_RIGHT + 80 * len(names))
    plot_w = width - MARGIN_LEFT - MARGIN_RIGHT
    plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM
    slot = plot_w / max(len(names), 1)
    body = []
    for i, name in enumerate(names):
        v = values[name]
        h = plot_h * v / y_max if y_max else 0
        shown = f"{v:.1%}" if percent else _fmt(v)
        x = MARGIN_LEFT + i * slot + slot * 0.15
        body.append(f'<rect class="bar" x="{x:.1f}" y="{MARGIN_TOP + plot_h - h:.1f}" '
                    f'width="{slot * 0.7:.1f}" height="{h:.1f}" fill="{colour(i)}">'
                    f'<title>{escape(name)}: {shown}</title></rect>')
        # Above the bar, or inside its top where the bar reaches the axis maximum.
        inside = h > plot_h - 12
        y = MARGIN_TOP + plot_h - h + (11 if inside else -3)
        fill = ' style="fill: #fff"' if inside else ""
        body.append(f'<text class="value" x="{x + slot * 0.35:.1f}" y="{y:.1f}"{fill} '
                    f'text-anchor="middle">{shown}</text>')
    return _frame(title, "bars", body, y_max, names, percent, width=width)


def _label_lines(names: Sequence[str], width: int = LABEL_CHARS) -> list[list[str]]:
    """Names of one curve's series in lines of at most ``width`` characters."""
    lines: list[list[str]] = [[]]
    for name in names:
        if lines[-1] and len(" = ".join([*lines[-1], name])) > width:
            lines.append([])
        lines[-1].append(name)
    return lines


def _spread_blocks(ys: Sequence[float], heights: Sequence[int], line: float, low: float,
                   high: float) -> list[float]:
    """Tops of label blocks (``heights`` lines each) as near ``ys`` (sorted) as they go
    without overlapping, within ``[low, high]``."""
    tops: list[float] = []
    below = low
    for y, lines in zip(ys, heights, strict=True):
        top = max(y, below)
        tops.append(top)
        below = top + lines * line + 2
    overflow = below - 2 - high
    if overflow > 0:  # pushed past the bottom: shift up, keeping the gaps
        tops = [max(low, t - overflow) for t in tops]
    return tops


def line_chart(series: Mapping[str, Sequence[tuple[float, float]]], title: str,
               y_max: float = 1.0, x_label: str = "") -> str:
    """One line per series over a shared numeric x axis, told apart by colour, dash and
    marker, each labelled at its end; series with the same last point share a label
    ("a = b"), and series equal everywhere say so."""
    xs = sorted({x for points in series.values() for x, _ in points})
    if not xs:
        xs = [0.0, 1.0]
    x_lo, x_hi = xs[0], xs[-1] if xs[-1] > xs[0] else xs[0] + 1
    width = WIDTH + LINE_LABELS_WIDTH
    plot_w = WIDTH - MARGIN_LEFT - MARGIN_RIGHT
    plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM

    def px(x: float) -> float:
        return MARGIN_LEFT + plot_w * (x - x_lo) / (x_hi - x_lo)

    def py(y: float) -> float:
        return MARGIN_TOP + plot_h * (1 - y / y_max)

    names = list(series)
    body = []
    for i, name in enumerate(names):
        points = series[name]
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in points)
        # Earlier series are drawn wider, so identical curves stay visible underneath.
        stroke = 1.6 + 1.4 * (len(names) - 1 - i)
        dashes = f' stroke-dasharray="{dash(i)}"' if dash(i) else ""
        body.append(f'<polyline class="curve" data-series="{escape(name)}" points="{path}" '
                    f'fill="none" stroke="{colour(i)}" stroke-width="{stroke:.1f}"{dashes} '
                    'stroke-linejoin="round"/>')
        for x, y in points:
            body.append(marker(i, px(x), py(y), 2.2 + 1.1 * (len(names) - 1 - i), colour(i),
                               f"{name} @ {_fmt(x)}: {y:.1%}"))
    # Each curve labelled at its end, series with the same points together ("a = b"),
    # continued on further lines where long; labels pushed apart where ends meet.
    curves: dict[tuple[tuple[float, float], ...], list[int]] = {}
    for i, name in enumerate(names):
        if series[name]:
            curves.setdefault(tuple(series[name]), []).append(i)
    labels = [(py(points[-1][1]), members, _label_lines([names[i] for i in members]))
              for points, members in curves.items()]
    labels.sort(key=lambda label: label[0])
    tops = _spread_blocks([y for y, _, _ in labels], [len(lines) for _, _, lines in labels],
                          LINE_HEIGHT, MARGIN_TOP + 4, HEIGHT - 6)
    x = WIDTH - MARGIN_RIGHT + 6
    for (_, members, lines), top in zip(labels, tops, strict=True):
        spans = []
        k = 0
        for row, line in enumerate(lines):
            pieces = []
            for j, piece in enumerate(line):
                sep = "= " if (row or j) else ""
                pieces.append(f'{sep}<tspan fill="{colour(members[k])}">{escape(piece)}</tspan>')
                k += 1
            spans.append(f'<tspan x="{x:.1f}" dy="{LINE_HEIGHT if row else 0}">'
                         f'{" ".join(pieces)}</tspan>')
        body.append(f'<text class="end-label" x="{x:.1f}" y="{top + 4:.1f}" fill="#666" '
                    f'data-series="{escape(" ".join(names[i] for i in members))}">'
                    f'{"".join(spans)}</text>')
    frame = _frame(title, "lines", body, y_max, [], percent=True, width=width,
                   plot_right=WIDTH - MARGIN_RIGHT)
    ticks = []
    for x in xs[:: max(1, len(xs) // 5)]:
        ticks.append(f'<text class="tick" x="{px(x):.1f}" y="{HEIGHT - MARGIN_BOTTOM + 13}" '
                     f'text-anchor="middle">{_fmt(x)}</text>')
    if x_label:
        ticks.append(f'<text class="tick" x="{MARGIN_LEFT + plot_w / 2:.1f}" '
                     f'y="{HEIGHT - 4}" text-anchor="middle">{escape(x_label)}</text>')
    return frame.replace("</svg>", "".join(ticks) + "</svg>")


def grouped_bars(groups: Mapping[str, Mapping[str, float]], names: Sequence[str], title: str,
                 percent: bool = False, y_max: float | None = None) -> str:
    """Per group (a media type), one bar per name (a strategy) in its colour; a name
    without a value in a group leaves a gap."""
    labels = list(groups)
    top = max((v for g in groups.values() for v in g.values()), default=0)
    y_max = y_max or (min(1.0, nice_ceiling(top * 1.05)) if percent else nice_ceiling(top))
    slot_w = max(24.0 * len(names) + 16, 70.0)
    width = max(WIDTH, int(MARGIN_LEFT + MARGIN_RIGHT + slot_w * len(labels)))
    plot_w = width - MARGIN_LEFT - MARGIN_RIGHT
    plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM
    slot = plot_w / max(len(labels), 1)
    bar = slot * 0.8 / max(len(names), 1)
    body = []
    for g, label in enumerate(labels):
        for i, name in enumerate(names):
            if name not in groups[label]:
                continue
            v = groups[label][name]
            h = plot_h * min(v / y_max, 1.0) if y_max else 0
            shown = f"{v:.1%}" if percent else _fmt(v)
            x = MARGIN_LEFT + g * slot + slot * 0.1 + i * bar
            body.append(f'<rect class="bar" x="{x:.1f}" y="{MARGIN_TOP + plot_h - h:.1f}" '
                        f'width="{max(bar - 1, 1):.1f}" height="{h:.1f}" fill="{colour(i)}">'
                        f'<title>{escape(label)} · {escape(name)}: {shown}</title></rect>')
    return _frame(title, "grouped", body, y_max, labels, percent, width=width)


def legend(names: Sequence[str], lines: bool = False) -> str:
    """Swatches for ``names`` in chart order; ``lines``: a sample of each line's colour,
    dash and marker, as the line charts draw them."""
    items = []
    for i, name in enumerate(names):
        if lines:
            dashes = f' stroke-dasharray="{dash(i)}"' if dash(i) else ""
            key = (f'<svg class="key" width="34" height="12" viewBox="0 0 34 12">'
                   f'<line x1="1" x2="33" y1="6" y2="6" stroke="{colour(i)}" stroke-width="2"'
                   f'{dashes}/>{marker(i, 17, 6, 3.2, colour(i))}</svg>')
        else:
            key = f'<i style="background:{colour(i)}"></i>'
        items.append(f'<span class="legend-item">{key}{escape(name)}</span>')
    return f'<div class="legend">{"".join(items)}</div>'
