"""The level history chart, drawn server-side as SVG: the amount as a step line through every ledger row
(contributions climb, a hit drops it to the reset: the saw-tooth), each hit a red dot, with a time axis
and a euro axis, both labelled.

Rows closer together than one pixel are merged to the pixel (its first, lowest, highest and last amount
are kept), so a day of one-second contributions draws the same picture in a few hundred points; hits are
never merged away."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from common.money import cents_money, mc_to_cents
from workspace.progressives.selectors import Series

WIDTH, HEIGHT = 1200, 360
LEFT, RIGHT, TOP, BOTTOM = 96, 20, 16, 56
_NICE = (1, 2, 5)
_TIME_STEPS = [timedelta(minutes=m) for m in (5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080)]


def _euro_ticks(top_mc: int) -> list[int]:
    """About five round euro values from 0 to at least ``top_mc`` (millicents)."""
    top_cents = max(top_mc // 1000, 100)
    raw = top_cents // 5 or 1
    magnitude = 10 ** (len(str(raw)) - 1)
    step = next((n * magnitude for n in _NICE if n * magnitude >= raw), 10 * magnitude)
    count = -(-top_cents // step)
    return [i * step * 1000 for i in range(count + 1)]


def _time_ticks(start: datetime, end: datetime) -> list[datetime]:
    span = end - start
    step = next((s for s in _TIME_STEPS if span / s <= 8), _TIME_STEPS[-1])
    seconds = int(step.total_seconds())
    first = datetime.fromtimestamp(-(-int(start.timestamp()) // seconds) * seconds, tz=start.tzinfo)
    ticks, tick = [], first
    while tick <= end:
        ticks.append(tick)
        tick += step
    return ticks


def _vertices(series: Series) -> list[tuple[int, int]]:
    """(x offset, amount) of the step line: flat between columns, within one from the amount before its
    first row through its extremes to the amount after its last."""
    vertices = [(0, series.opening_mc)]
    for column in series.columns:
        vertices += [
            (column.x, column.first_mc),
            (column.x, column.high_mc),
            (column.x, column.low_mc),
            (column.x, column.last_mc),
        ]
    return vertices


def _euro_axis(ticks: list[int], y_of) -> list[str]:
    """The euro axis: a line, and a grid line and a label per tick."""
    right, y_bottom = WIDTH - RIGHT, HEIGHT - BOTTOM
    parts = [
        f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{y_bottom}"/>',
        f'<text x="14" y="{(TOP + y_bottom) // 2}" text-anchor="middle" '
        f'transform="rotate(-90 14 {(TOP + y_bottom) // 2})">€</text>',
    ]
    for tick in ticks:
        y = y_of(tick)
        parts.append(f'<line class="gridline" x1="{LEFT}" y1="{y}" x2="{right}" y2="{y}"/>')
        parts.append(
            f'<text x="{LEFT - 8}" y="{y + 4}" text-anchor="end">{cents_money(mc_to_cents(tick))}</text>'
        )
    return parts


def _time_axis(start: datetime, end: datetime, x_of, tz: ZoneInfo) -> list[str]:
    """The time axis in the venue's wall clock: hours within a day, day and hour beyond."""
    y_bottom = HEIGHT - BOTTOM
    parts = [f'<line class="axis" x1="{LEFT}" y1="{y_bottom}" x2="{WIDTH - RIGHT}" y2="{y_bottom}"/>']
    one_day = (end - start) <= timedelta(days=1)
    for tick in _time_ticks(start, end):
        x, local = x_of(tick), tick.astimezone(tz)
        label = local.strftime("%H:%M") if one_day else local.strftime("%d/%m %H:%M")
        parts.append(f'<line class="axis" x1="{x}" y1="{y_bottom}" x2="{x}" y2="{y_bottom + 5}"/>')
        parts.append(f'<text x="{x}" y="{y_bottom + 20}" text-anchor="middle">{label}</text>')
    return parts


PLOT_WIDTH = WIDTH - LEFT - RIGHT


def level_chart(series: Series, start: datetime, end: datetime, *, zone: str, caption: str) -> SafeString:
    """``series`` must have been read with ``PLOT_WIDTH`` columns."""
    tz = ZoneInfo(zone)
    plot_w, plot_h = PLOT_WIDTH, HEIGHT - TOP - BOTTOM
    span = max((end - start).total_seconds(), 1)
    extremes = [series.opening_mc, *(c.high_mc for c in series.columns)]
    ticks = _euro_ticks(max(extremes))
    top = ticks[-1] or 1

    def x_of(at: datetime) -> int:
        return LEFT + min(int((at - start).total_seconds() * plot_w / span), plot_w)

    def y_of(amount_mc: int) -> int:
        return TOP + plot_h - max(amount_mc, 0) * plot_h // top

    points = [*_vertices(series), (plot_w, series.closing_mc)]
    path = " ".join(f"{LEFT + x},{y_of(amount)}" for x, amount in points)
    parts = [
        f'<svg class="chart" role="img" aria-label="{escape(caption)}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'xmlns="http://www.w3.org/2000/svg">',
        *_euro_axis(ticks, y_of),
        *_time_axis(start, end, x_of, tz),
        f'<text x="{LEFT + plot_w // 2}" y="{HEIGHT - 8}" text-anchor="middle">{escape(zone)}</text>',
        f'<polyline class="value" points="{path}"/>',
    ]
    for at, before_mc in series.hits:
        when = at.astimezone(tz).strftime("%d/%m %H:%M:%S")
        parts.append(
            f'<circle class="hit" cx="{x_of(at)}" cy="{y_of(before_mc)}" r="5">'
            f"<title>{when}: {cents_money(mc_to_cents(before_mc))}</title></circle>"
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every value above is a number, a fixed word or escaped
