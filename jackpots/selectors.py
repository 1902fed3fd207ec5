"""Reads of the jackpots app. Public views never see a mystery trigger, a reserve or a staged parameter:
``progressive_public`` builds the only shape the API and the signs get."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.db.models import F, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.utils import timezone

from common.money import cents_eur, mc_eur
from jackpots.hooks import first_answer, levels_shown_elsewhere, places_of, providers
from jackpots.models import Hit, Level, Progressive, ProgressiveMachine
from slots.models import MachineEvent, SlotMachine


def _last_hit_order() -> list:
    # The hit number orders simultaneous hits; a hit recorded without one (NULL, which PostgreSQL would
    # put first when descending) falls back to its time.
    return [F("number").desc(nulls_last=True), "-at", "-id"]


def progressives_list() -> QuerySet[Progressive]:
    """The progressives with their levels, each level carrying ``last_hit_id`` (its last win that was not
    voided): what ``progressives_public`` reads, in two queries for any number of progressives."""
    last_hit = Hit.objects.filter(level=OuterRef("pk")).exclude(state=Hit.State.VOIDED)
    levels = Level.objects.order_by("position", "id").annotate(
        last_hit_id=Subquery(last_hit.order_by(*_last_hit_order()).values("id")[:1])
    )
    return Progressive.objects.prefetch_related(Prefetch("levels", queryset=levels))


def progressive_venues(progressive_ids: list[int]) -> dict[int, list[str]]:
    """The codes of the venues each progressive is played at (its machines' and its tables'), sorted.
    Read as distinct pairs: a snapshot used to load every member machine, its room and venue to find
    them (most of a gateway connection's 45 ms of CPU on the demo floor)."""
    pairs = set(
        ProgressiveMachine.objects.filter(progressive_id__in=progressive_ids)
        .order_by()
        .values_list("progressive_id", "machine__room__venue__code")
        .distinct()
    )
    pairs |= {(place.progressive_id, place.venue_code) for place in places_of(progressive_ids)}
    venues: dict[int, list[str]] = {}
    for progressive_id, code in sorted(pairs):
        venues.setdefault(progressive_id, []).append(code)
    return venues


def progressives_at(venue) -> QuerySet[Progressive]:
    """The progressives played at ``venue`` (a ``floor.Venue``; None: every one): a machine of theirs stands
    there or a table of theirs is there. A wide-area progressive is at every venue it has members in; one
    with no machine and no table yet is at every venue (it still owes its amount somewhere)."""
    if venue is None:
        return Progressive.objects.all()
    places = places_of(None)
    here = [place.progressive_id for place in places if place.venue_id == venue.pk]
    placed = Q(members__machine__room__venue=venue) | Q(id__in=here)
    unplaced = Q(members__isnull=True) & ~Q(id__in=[place.progressive_id for place in places])
    return Progressive.objects.filter(placed | unplaced).distinct()


def progressive_venue_id(progressive_id: int) -> int | None:
    """The one venue a progressive is played at (its machines' and tables'); None for a link across
    venues or one placed nowhere yet (the significant-events register's "whole house")."""
    venues = set(
        ProgressiveMachine.objects.filter(progressive_id=progressive_id).values_list(
            "machine__room__venue_id", flat=True
        )
    ) | {place.venue_id for place in places_of([progressive_id])}
    return venues.pop() if len(venues) == 1 else None


def levels_show_elsewhere(levels: list[Level]) -> None:
    """Sets the amount and value sequence of the levels whose pool is kept elsewhere to what was heard from
    there (``providers.levels_shown_elsewhere``), on these instances only, for showing: never saved."""
    shown = levels_shown_elsewhere([level.id for level in levels]) if levels else {}
    for level in levels:
        if level.id in shown:
            level.current_mc, level.seq = shown[level.id]


def levels_shown(progressive: Progressive) -> list[Level]:
    """The levels the API, the signs and the gateways show: all but the retired ones (a retired level
    keeps its history in the reports, but no screen or machine shows it again). ``progressive``'s
    levels prefetched (``progressives_list``) cost no query."""
    return [level for level in progressive.levels.all() if level.state != Level.State.RETIRED]


def _hits_newest_first(hits: QuerySet[Hit]) -> QuerySet[Hit]:
    return hits.select_related("machine").order_by(*_last_hit_order())


def level_wins_recent(level: Level, count: int = 25) -> QuerySet[Hit]:
    """The last wins of a level, newest first (NY 5320.8(b) keeps at least 25). A voided hit is not a
    win: it paid nobody and its amount went back to the level; it stays in the hits list with who voided
    it and why, where an auditor looks for voids."""
    return _hits_newest_first(Hit.objects.filter(level=level).exclude(state=Hit.State.VOIDED))[:count]


def hit_place(hit: Hit) -> str | None:
    """Where a hit was won, as signs and the API name it: the machine's asset number or, for a table
    prize, the code of the table whose round won it first."""
    if hit.machine_id is not None:
        return hit.machine.asset_number
    place = first_answer(providers.hit_place, hit)
    return place.code if place is not None else None


# From the engine's queue, a handful of rows when the engine keeps up: no index of the events table names
# ``pending``, so the flag alone would mean scanning every event ever stored (51 ms at 900,000 events)
# every SIGNAGE_LINK_CHECK_SECONDS in every server process.
_STALE_SQL = """
SELECT DISTINCT pm.progressive_id
FROM slots_pendingevent q
JOIN slots_machineevent e ON e.id = q.event_id
JOIN jackpots_progressivemachine pm ON pm.machine_id = e.machine_id
WHERE e.pending AND e.received_at < %s AND pm.progressive_id = ANY(%s)
"""


def _progressives_with_stale_events(progressive_ids: list[int], cutoff: datetime) -> set[int]:
    """The progressives with a member's event left pending since before ``cutoff``."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_STALE_SQL, [cutoff, list(progressive_ids)])
            return {row[0] for row in cursor.fetchall()}
    # SQLite keeps no queue table; its events table is the demo's.
    return set(
        MachineEvent.objects.filter(
            pending=True,
            received_at__lt=cutoff,
            machine__memberships__progressive_id__in=progressive_ids,
        )
        .values_list("machine__memberships__progressive_id", flat=True)
        .distinct()
    )


LINK_UP = "up"
LINK_DOWN = "down"


def progressive_links(progressive_ids: list[int], *, now: datetime | None = None) -> dict[int, str]:
    """Link state per progressive (rule 5, NJ 13:69E-1.39B), the one answer the API and the signs give:
    down when the engine has left one of its pending events unapplied for LINK_STALE_AFTER_SECONDS, or
    when none of its members is up: an enabled machine in service or an active table (a table has no
    connection state of its own; it posts whole rounds, each applied at once: ``providers.progressives_up``).
    A query per kind of member and one for the stale events, for any number of progressives."""
    if not progressive_ids:
        return {}
    cutoff = (now or timezone.now()) - timedelta(seconds=settings.LINK_STALE_AFTER_SECONDS)
    machines_up = (
        ProgressiveMachine.objects.filter(
            progressive_id__in=progressive_ids,
            enabled=True,
            machine__status=SlotMachine.Status.IN_SERVICE,
        )
        .order_by()
        .values_list("progressive_id", flat=True)
    )
    online = set(machines_up)
    for provide in providers.progressives_up:
        online |= provide(progressive_ids)
    stale = _progressives_with_stale_events(progressive_ids, cutoff)
    for provide in providers.progressives_down:
        stale |= provide(progressive_ids)
    return {pid: LINK_UP if pid in online and pid not in stale else LINK_DOWN for pid in progressive_ids}


def progressives_public(progressives: Iterable[Progressive]) -> list[dict]:
    """The public shape of ``progressives`` (from ``progressives_list``), in their order: what the API, the
    gateways' snapshot and the signs show. A fixed number of queries for any number of progressives."""
    progressives = list(progressives)
    ids = [p.id for p in progressives]
    levels_show_elsewhere([level for p in progressives for level in p.levels.all()])
    links, venues = progressive_links(ids), progressive_venues(ids)
    last_ids = [level.last_hit_id for p in progressives for level in p.levels.all() if level.last_hit_id]
    last_hits = Hit.objects.filter(id__in=last_ids).select_related("machine").in_bulk()
    return [_progressive_shown(p, links[p.id], venues.get(p.id, []), last_hits) for p in progressives]


def progressive_public(progressive: Progressive) -> dict:
    """One progressive (from ``progressives_list``) as ``progressives_public`` shows it."""
    return progressives_public([progressive])[0]


def _progressive_shown(progressive: Progressive, link: str, venues: list[str], last_hits: dict) -> dict:
    levels = []
    for level in levels_shown(progressive):
        last = last_hits.get(level.last_hit_id)
        levels.append(
            {
                "id": level.id,
                "name": level.name,
                "amount_eur": mc_eur(level.current_mc),
                "reset_eur": mc_eur(level.reset_mc),
                "seq": level.seq,
                "state": level.state,
                "last_hit": None
                if last is None
                else {
                    "at": last.at,
                    "amount_eur": cents_eur(last.amount_cents),
                    "machine": hit_place(last),
                    "hit_number": last.ref,
                },
            }
        )
    return {
        "id": progressive.id,
        "name": progressive.name,
        "kind": progressive.kind,
        "currency": progressive.currency,
        "venues": venues,
        "link": link,
        "levels": levels,
    }


def levels_played(pairs: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Which (machine_id, level_id) of ``pairs`` are a level of a progressive the machine is an enabled
    member of, in one query."""
    if not pairs:
        return set()
    rows = ProgressiveMachine.objects.filter(
        enabled=True,
        machine_id__in={machine_id for machine_id, _ in pairs},
        progressive__levels__id__in={level_id for _, level_id in pairs},
    ).values_list("machine_id", "progressive__levels__id")
    return pairs & set(rows)
