"""Small inline-SVG charts: histograms, bar charts, line charts.

Generated as strings, so the report is one static file with no script, no
chart library and no network: it opens offline, in any browser.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from html import escape

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#bab0ac")
WIDTH, HEIGHT = 360, 200
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 44, 12, 24, 34


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


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
           percent: bool = False, labels_at_edges: bool = False, width: int = WIDTH) -> str:
    plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM
    parts = [f'<svg class="chart {css_class}" viewBox="0 0 {width} {HEIGHT}" '
             f'width="{width}" height="{HEIGHT}" role="img" aria-label="{escape(title)}">',
             f'<text class="title" x="{MARGIN_LEFT}" y="15">{escape(title)}</text>']
    for i in range(5):
        y = MARGIN_TOP + plot_h * (1 - i / 4)
        tick = y_max * i / 4
        label = f"{tick:.0%}" if percent else _fmt(tick)
        parts.append(f'<line class="grid" x1="{MARGIN_LEFT}" x2="{width - MARGIN_RIGHT}" '
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


def histogram(counts: Sequence[int], bins: Sequence[float], title: str, fill: str) -> str:
    y_max = nice_ceiling(max(counts, default=0))
    plot_w = WIDTH - MARGIN_LEFT - MARGIN_RIGHT
    plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM
    bar_w = plot_w / len(counts)
    body = []
    for i, count in enumerate(counts):
        h = plot_h * count / y_max
        body.append(f'<rect class="bar" x="{MARGIN_LEFT + i * bar_w + 0.5:.1f}" '
                    f'y="{MARGIN_TOP + plot_h - h:.1f}" width="{max(bar_w - 1, 1):.1f}" '
                    f'height="{h:.1f}" fill="{fill}"><title>{_fmt(bins[i])}–{_fmt(bins[i + 1])}'
                    f' tokens: {count} chunks</title></rect>')
    step = max(1, len(counts) // 4)
    labels = [_fmt(bins[i]) if i % step == 0 else "" for i in range(len(counts))]
    return _frame(title, "histogram", body, y_max, labels, labels_at_edges=True)


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
        body.append(f'<text class="value" x="{x + slot * 0.35:.1f}" '
                    f'y="{MARGIN_TOP + plot_h - h - 3:.1f}" text-anchor="middle">{shown}</text>')
    return _frame(title, "bars", body, y_max, names, percent, width=width)


def line_chart(series: Mapping[str, Sequence[tuple[float, float]]], title: str,
               y_max: float = 1.0, x_label: str = "") -> str:
    """One polyline per series over a shared numeric x axis."""
    xs = sorted({x for points in series.values() for x, _ in points})
    if not xs:
        xs = [0.0, 1.0]
    x_lo, x_hi = xs[0], xs[-1] if xs[-1] > xs[0] else xs[0] + 1
    plot_w = WIDTH - MARGIN_LEFT - MARGIN_RIGHT
    plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM

    def px(x: float) -> float:
        return MARGIN_LEFT + plot_w * (x - x_lo) / (x_hi - x_lo)

    def py(y: float) -> float:
        return MARGIN_TOP + plot_h * (1 - y / y_max)

    body = []
    for i, (name, points) in enumerate(series.items()):
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in points)
        # Earlier series are drawn wider, so identical curves stay visible underneath.
        width = 1.5 + 1.2 * (len(series) - 1 - i)
        body.append(f'<polyline class="curve" data-series="{escape(name)}" points="{path}" '
                    f'fill="none" stroke="{colour(i)}" stroke-width="{width:.1f}" '
                    'stroke-opacity="0.85" stroke-linejoin="round"/>')
        for x, y in points:
            body.append(f'<circle class="point" cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.5" '
                        f'fill="{colour(i)}"><title>{escape(name)} @ {_fmt(x)}: {y:.1%}'
                        f'</title></circle>')
    frame = _frame(title, "lines", body, y_max, [], percent=True)
    ticks = []
    for x in xs[:: max(1, len(xs) // 5)]:
        ticks.append(f'<text class="tick" x="{px(x):.1f}" y="{HEIGHT - MARGIN_BOTTOM + 13}" '
                     f'text-anchor="middle">{_fmt(x)}</text>')
    if x_label:
        ticks.append(f'<text class="tick" x="{MARGIN_LEFT + plot_w / 2:.1f}" '
                     f'y="{HEIGHT - 4}" text-anchor="middle">{escape(x_label)}</text>')
    return frame.replace("</svg>", "".join(ticks) + "</svg>")


def legend(names: Sequence[str]) -> str:
    items = "".join(f'<span class="legend-item"><i style="background:{colour(i)}"></i>'
                    f"{escape(n)}</span>" for i, n in enumerate(names))
    return f'<div class="legend">{items}</div>'
