"""Server-rendered SVG charts: no script, no network, readable without a browser plug-in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from common.money import cents_eur_grouped

WIDTH, HEIGHT, PAD_LEFT, PAD_BOTTOM, PAD_TOP = 760, 240, 80, 28, 12


@dataclass
class Bar:
    label: str
    value: int  # cents
    title: str = ""


def _scale(top: int) -> int:
    return max(top, 1)


def bar_chart(bars: Sequence[Bar], caption: str) -> SafeString:
    """A bar per item; heights in integer pixels computed from integer cents."""
    plot_w, plot_h = WIDTH - PAD_LEFT - 8, HEIGHT - PAD_BOTTOM - PAD_TOP
    top = _scale(max((bar.value for bar in bars), default=0))
    step = plot_w // max(len(bars), 1)
    parts = [
        format_html(
            '<svg class="chart" role="img" aria-label="{}" viewBox="0 0 {} {}" width="{}" height="{}" '
            'xmlns="http://www.w3.org/2000/svg">',
            caption,
            WIDTH,
            HEIGHT,
            WIDTH,
            HEIGHT,
        ),
        format_html(
            '<text x="{}" y="{}" font-size="11" text-anchor="end">{}</text>',
            PAD_LEFT - 6,
            PAD_TOP + 8,
            cents_eur_grouped(top if bars else 0),
        ),
        format_html(
            '<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#888"/>',
            PAD_LEFT,
            PAD_TOP + plot_h,
            WIDTH - 8,
            PAD_TOP + plot_h,
        ),
    ]
    for index, bar in enumerate(bars):
        height = bar.value * plot_h // top
        x = PAD_LEFT + index * step
        parts.append(
            format_html(
                '<rect x="{}" y="{}" width="{}" height="{}" fill="#417690"><title>{}</title></rect>'
                '<text x="{}" y="{}" font-size="10" text-anchor="middle">{}</text>',
                x + 1,
                PAD_TOP + plot_h - height,
                max(step - 2, 1),
                height,
                bar.title or f"{bar.label}: {cents_eur_grouped(bar.value)}",
                x + step // 2,
                HEIGHT - 10,
                bar.label,
            )
        )
    parts.append(mark_safe("</svg>"))
    return mark_safe("".join(str(part) for part in parts))


@dataclass
class Point:
    x: int  # any integer axis (e.g. epoch seconds)
    y: int  # millicents or cents
    title: str = ""


def line_chart(points: Sequence[Point], marks: Sequence[Point], caption: str, y_label: str) -> SafeString:
    """A line through the points, the marks (e.g. hits) as red dots with their title on hover."""
    plot_w, plot_h = WIDTH - PAD_LEFT - 8, HEIGHT - PAD_BOTTOM - PAD_TOP
    everything = [*points, *marks]
    if not everything:
        return format_html('<p class="chart-empty">{}</p>', caption)
    x0, x1 = min(p.x for p in everything), max(p.x for p in everything)
    y1 = _scale(max(p.y for p in everything))
    span = max(x1 - x0, 1)

    def xy(point: Point) -> tuple[int, int]:
        return PAD_LEFT + (point.x - x0) * plot_w // span, PAD_TOP + plot_h - point.y * plot_h // y1

    path = " ".join(f"{x},{y}" for x, y in map(xy, points))
    dots = "".join(
        str(
            format_html(
                '<circle class="mark" cx="{}" cy="{}" r="4" fill="#ba2121"><title>{}</title></circle>',
                *xy(mark),
                mark.title,
            )
        )
        for mark in marks
    )
    return mark_safe(
        f'<svg class="chart" role="img" aria-label="{escape(caption)}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" xmlns="http://www.w3.org/2000/svg">'
        f'<text x="{PAD_LEFT - 6}" y="{PAD_TOP + 8}" font-size="11" text-anchor="end">'
        f"{escape(y_label)}</text>"
        f'<polyline fill="none" stroke="#417690" stroke-width="2" points="{path}"/>{dots}</svg>'
    )
