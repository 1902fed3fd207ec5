"""Server-rendered SVG charts: no script, no network, readable without a browser plug-in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator

from common.money import cents_money

WIDTH, HEIGHT, PAD_LEFT, PAD_BOTTOM, PAD_TOP = 760, 240, 80, 28, 12


@dataclass
class Bar:
    label: str
    value: int  # cents
    title: str = ""


def _scale(top: int) -> int:
    return max(top, 1)


def _money_axis(top: int, plot_h: int) -> list[SafeString]:
    """The amount axis of ``bar_chart``: a line, and 0, half and the top (cents) each with its grid line,
    in the reader's language with the currency."""
    parts = [
        format_html(
            '<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#888"/>',
            PAD_LEFT,
            PAD_TOP,
            PAD_LEFT,
            PAD_TOP + plot_h,
        ),
        format_html(
            '<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#888"/>',
            PAD_LEFT,
            PAD_TOP + plot_h,
            WIDTH - 8,
            PAD_TOP + plot_h,
        ),
    ]
    for value in (0, top // 2, top):
        y = PAD_TOP + plot_h - value * plot_h // _scale(top)
        parts.append(
            format_html(
                '<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#e6e0da"/>'
                '<text x="{}" y="{}" font-size="11" text-anchor="end">{}</text>',
                PAD_LEFT, y, WIDTH - 8, y, PAD_LEFT - 6, y + 4, cents_money(value),
            )
        )  # fmt: skip
    return parts


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
        *_money_axis(top if bars else 0, plot_h),
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
                bar.title or f"{bar.label}: {cents_money(bar.value)}",
                x + step // 2,
                HEIGHT - 10,
                bar.label,
            )
        )
    parts.append(mark_safe("</svg>"))
    return mark_safe("".join(str(part) for part in parts))


# The horizontal bar chart: one row per item, so any number of banks or machines stays readable.
HBAR_ROW, HBAR_LABEL, HBAR_VALUE, HBAR_TOP_N = 22, 220, 130, 20


def bars_top(bars: Sequence[Bar], top_n: int, others: str) -> list[Bar]:
    """The ``top_n`` largest bars, largest first; the rest summed into one last bar named ``others``."""
    ranked = sorted(bars, key=lambda bar: (-bar.value, bar.label))
    if len(ranked) <= top_n:
        return ranked
    rest = ranked[top_n - 1 :]
    label = f"{others} ({len(rest)})"
    return [*ranked[: top_n - 1], Bar(label=label, value=sum(bar.value for bar in rest))]


def hbar_chart(bars: Sequence[Bar], caption: str) -> SafeString:
    """Bars drawn left to right, a label before each and its euros after; integer pixels from cents."""
    plot_w = WIDTH - HBAR_LABEL - HBAR_VALUE
    top = _scale(max((bar.value for bar in bars), default=0))
    height = PAD_TOP + len(bars) * HBAR_ROW + 8
    parts = [
        format_html(
            '<svg class="chart hbars" role="img" aria-label="{}" viewBox="0 0 {} {}" width="{}" height="{}" '
            'xmlns="http://www.w3.org/2000/svg">',
            caption,
            WIDTH,
            height,
            WIDTH,
            height,
        )
    ]
    for index, bar in enumerate(bars):
        y = PAD_TOP + index * HBAR_ROW
        width = max(bar.value, 0) * plot_w // top
        parts.append(
            format_html(
                '<text x="{}" y="{}" text-anchor="end">{}</text>'
                '<rect x="{}" y="{}" width="{}" height="{}" fill="#5b1426"><title>{}</title></rect>'
                '<text x="{}" y="{}">{}</text>',
                HBAR_LABEL - 8,
                y + 15,
                Truncator(bar.label).chars(30),  # ends in "…" inside the label column
                HBAR_LABEL,
                y + 3,
                width,
                HBAR_ROW - 6,
                bar.title or f"{bar.label}: {cents_money(bar.value)}",
                HBAR_LABEL + width + 6,
                y + 15,
                cents_money(bar.value),
            )
        )
    parts.append(mark_safe("</svg>"))
    return mark_safe("".join(str(part) for part in parts))
