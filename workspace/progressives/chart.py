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

from common.money import mc_eur_grouped
from jackpots.models import LedgerEntry
from workspace.progressives.selectors import Step

WIDTH, HEIGHT = 1200, 360
LEFT, RIGHT, TOP, BOTTOM = 96, 20, 16, 56
_HIT = LedgerEntry.Kind.HIT
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


def _merged(steps: list[Step], x_of) -> list[tuple[int, int]]:
    """(x, amount) vertices of the step line, merged to one column per pixel except at hits."""
    vertices: list[tuple[int, int]] = []
    for step in steps:
        x = x_of(step.at)
        vertices.append((x, step.before_mc))
        vertices.append((x, step.after_mc))
    merged: list[tuple[int, int]] = []
    column: list[tuple[int, int]] = []
    for vertex in vertices:
        if column and vertex[0] != column[0][0]:
            merged.extend(_column(column))
            column = []
        column.append(vertex)
    merged.extend(_column(column))
    return merged


def _column(column: list[tuple[int, int]]) -> list[tuple[int, int]]:
    if len(column) <= 4:
        return column
    amounts = [amount for _x, amount in column]
    x = column[0][0]
    return [column[0], (x, max(amounts)), (x, min(amounts)), column[-1]]


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
        parts.append(f'<text x="{LEFT - 8}" y="{y + 4}" text-anchor="end">€ {mc_eur_grouped(tick)}</text>')
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


def level_chart(
    opening_mc: int, steps: list[Step], start: datetime, end: datetime, *, zone: str, caption: str
) -> SafeString:
    tz = ZoneInfo(zone)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    span = max((end - start).total_seconds(), 1)
    ticks = _euro_ticks(max([opening_mc, *(s.before_mc for s in steps), *(s.after_mc for s in steps)]))
    top = ticks[-1] or 1

    def x_of(at: datetime) -> int:
        return LEFT + int((at - start).total_seconds() * plot_w / span)

    def y_of(amount_mc: int) -> int:
        return TOP + plot_h - max(amount_mc, 0) * plot_h // top

    points = [(LEFT, opening_mc), *_merged(steps, x_of)]
    last = points[-1][1]
    points.append((LEFT + plot_w, last))
    path = " ".join(f"{x},{y_of(a)}" for x, a in points)
    parts = [
        f'<svg class="chart" role="img" aria-label="{escape(caption)}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'xmlns="http://www.w3.org/2000/svg">',
        *_euro_axis(ticks, y_of),
        *_time_axis(start, end, x_of, tz),
        f'<text x="{LEFT + plot_w // 2}" y="{HEIGHT - 8}" text-anchor="middle">{escape(zone)}</text>',
    ]
    parts.append(f'<polyline class="value" points="{path}"/>')
    for step in steps:
        if step.kind == _HIT:
            when = step.at.astimezone(tz).strftime("%d/%m %H:%M:%S")
            parts.append(
                f'<circle class="hit" cx="{x_of(step.at)}" cy="{y_of(step.before_mc)}" r="5">'
                f"<title>{when}: € {mc_eur_grouped(step.before_mc)}</title></circle>"
            )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every value above is a number, a fixed word or escaped
