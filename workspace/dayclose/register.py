"""The daily progressive register: a venue's business day, one row per level, read from the ledger alone.

For each level: the amount it held when the day opened, what came in and went out during the day (by
ledger column, kind by kind), the amount it held when the day closed, and the identity between them

    opening + contributions + reset values + top-ups - awards + voids + corrections + transfers = closing

to the millicent. ``closing`` is the sum of the meter deltas (current + reserve + overflow) of every ledger
row before the day's end; the terms are the sums of the money columns of the day's rows, so a row that
does not conserve money shows here as a ``difference`` (the audit names the row). Every amount is an
integer of millicents. docs/day-register.md describes each field and the CSV's columns.

A pure read of the ledger and the hits: any past day can be computed again, and gives the same rows (the
ledger is append-only; a hit's paid and void times are written once).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import date, datetime

from django.db.models import Exists, OuterRef, Q, Sum

from common.days import business_days_bounds
from common.money import MC_PER_CENT
from floor.models import Venue
from jackpots.hooks import places_of
from jackpots.models import Hit, LedgerEntry, Level, ProgressiveMachine

Kind = LedgerEntry.Kind
# The columns whose sum over the day make up each term. A void's compensating row gives back its award
# (a negative ``awarded_mc``), takes back the reset value the award put in and recounts the carry: all of
# it is the one ``voids`` term, so the awards column stays the awards the day paid out.
_NOT_VOID = ~Q(kind=Kind.VOID)
_TERMS = {
    "contributions_mc": Sum("contributed_mc", filter=_NOT_VOID),
    "reset_values_mc": Sum("seeded_mc", filter=_NOT_VOID & ~Q(kind=Kind.TOPUP)),
    "topups_mc": Sum("seeded_mc", filter=Q(kind=Kind.TOPUP)),
    "awards_mc": Sum("awarded_mc", filter=_NOT_VOID),
    "voids_in_mc": Sum("contributed_mc", filter=Q(kind=Kind.VOID)),
    "voids_seeded_mc": Sum("seeded_mc", filter=Q(kind=Kind.VOID)),
    "voids_corrected_mc": Sum("corrected_mc", filter=Q(kind=Kind.VOID)),
    "voids_transferred_mc": Sum("transferred_mc", filter=Q(kind=Kind.VOID)),
    "voids_awarded_mc": Sum("awarded_mc", filter=Q(kind=Kind.VOID)),
    "corrections_mc": Sum("corrected_mc", filter=_NOT_VOID),
    "transfers_mc": Sum("transferred_mc", filter=_NOT_VOID),
}
# The terms that are one column's sum as they stand (voids are added up from five).
_PLAIN_TERMS = (
    "contributions_mc",
    "reset_values_mc",
    "topups_mc",
    "awards_mc",
    "corrections_mc",
    "transfers_mc",
)
_METERS = {
    "current_mc": Sum("current_delta_mc"),
    "reserve_mc": Sum("reserve_delta_mc"),
    "overflow_mc": Sum("overflow_delta_mc"),
}


@dataclass(frozen=True)
class RegisterRow:
    """One level's business day. Money fields are integer millicents (``*_mc``); the identity's
    ``difference_mc`` is ``closing_mc`` less what the terms add up to (0: it holds)."""

    level_id: int
    progressive: str
    level: str
    state: str
    # The other venues a linked progressive's machines or tables stand in (it is in their registers too).
    shared_with: list[str]
    opening_mc: int
    contributions_mc: int
    reset_values_mc: int
    topups_mc: int
    awards_mc: int
    voids_mc: int
    corrections_mc: int
    transfers_mc: int
    closing_mc: int
    difference_mc: int
    current_mc: int
    signs_mc: int
    reserve_mc: int
    overflow_mc: int
    unpaid_count: int
    unpaid_mc: int
    award_refs: list[str] = field(default_factory=list)
    void_refs: list[str] = field(default_factory=list)
    unpaid_refs: list[str] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return self.difference_mc == 0

    def as_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> RegisterRow:
        return cls(**data)


def register_expected_closing(
    *,
    opening_mc: int,
    contributions_mc: int,
    reset_values_mc: int,
    topups_mc: int,
    awards_mc: int,
    voids_mc: int,
    corrections_mc: int,
    transfers_mc: int,
) -> int:
    """The identity's right-hand side: what the day's terms say the level should close at."""
    came_in = contributions_mc + reset_values_mc + topups_mc + voids_mc + corrections_mc + transfers_mc
    return opening_mc + came_in - awards_mc


def venue_register_levels(venue: Venue, end: datetime) -> list[Level]:
    """The levels in ``venue``'s register: those of a progressive with a member machine or a table at the
    venue, that existed before ``end`` (a ledger row before it). Suspended and retired levels stay."""
    here = [place.progressive_id for place in places_of(None) if place.venue_id == venue.pk]
    placed = Q(progressive__members__machine__room__venue=venue) | Q(progressive_id__in=here)
    # Per level through its (level, id) index: the first rows are its seed, so the search stops at once.
    existed = Exists(LedgerEntry.objects.filter(level_id=OuterRef("pk"), at__lt=end))
    candidates = Level.objects.filter(placed).values("pk")
    return list(
        Level.objects.filter(existed, pk__in=candidates)
        .select_related("progressive")
        .order_by("progressive__name", "progressive_id", "position", "id")
    )


def _progressive_venues(progressive_ids: set[int]) -> dict[int, set[str]]:
    """The venue codes each progressive stands in (its member machines' and its tables')."""
    venues: dict[int, set[str]] = defaultdict(set)
    members = ProgressiveMachine.objects.filter(progressive_id__in=progressive_ids)
    for progressive_id, code in members.values_list("progressive_id", "machine__room__venue__code"):
        venues[progressive_id].add(code)
    for place in places_of(list(progressive_ids)):
        venues[place.progressive_id].add(place.venue_code)
    return venues


def _sums(entries, **sums) -> dict[int, dict[str, int]]:
    rows = entries.values("level_id").annotate(**sums).order_by()
    return {row["level_id"]: {name: int(row[name] or 0) for name in sums} for row in rows}


def _award_refs(level_ids: list[int], start: datetime, end: datetime) -> dict[str, dict[int, list[str]]]:
    """The hit numbers of the day's awards and voids, per level. An award's ledger row names its first
    winner; the other winners of the same award share its cycle and value sequence."""
    rows = LedgerEntry.objects.filter(
        level_id__in=level_ids, at__gte=start, at__lt=end, kind__in=[Kind.HIT, Kind.AWARD, Kind.VOID]
    ).exclude(hit=None)
    awards: list[tuple[int, int, int]] = []  # (level, cycle, value sequence) of each award, in ledger order
    voided: list[int] = []
    for kind, level_id, hit_id, cycle, seq in rows.values_list(
        "kind", "level_id", "hit_id", "hit__cycle", "hit__level_seq"
    ).order_by("id"):
        if kind == Kind.VOID:
            voided.append(hit_id)
        else:
            awards.append((level_id, cycle, seq))
    refs: dict[str, dict[int, list[str]]] = {"award": defaultdict(list), "void": defaultdict(list)}
    if awards:
        winners: dict[tuple[int, int, int], list[str]] = defaultdict(list)
        shared = Q()
        for level_id, cycle, seq in set(awards):
            shared |= Q(level_id=level_id, cycle=cycle, level_seq=seq)
        for level_id, cycle, seq, ref, pk in (
            Hit.objects.filter(shared)
            .order_by("number", "id")
            .values_list("level_id", "cycle", "level_seq", "ref", "pk")
        ):
            winners[level_id, cycle, seq].append(ref or f"#{pk}")
        for award in awards:
            refs["award"][award[0]].extend(winners[award])
    for level_id, ref, pk in (
        Hit.objects.filter(pk__in=voided).order_by("at", "id").values_list("level_id", "ref", "pk")
    ):
        refs["void"][level_id].append(ref or f"#{pk}")
    return refs


def _unpaid(level_ids: list[int], end: datetime) -> dict[int, list[tuple[str, int]]]:
    """Each level's hits won before ``end`` and, at ``end``, neither paid nor voided: (hit number, cents).
    A shared table prize is paid when its last part is, so it counts whole until then."""
    hits = (
        Hit.objects.filter(level_id__in=level_ids, at__lt=end)
        .exclude(paid_at__lt=end)
        .exclude(voided_at__lt=end)
        .order_by("at", "id")
    )
    unpaid: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for level_id, ref, pk, cents in hits.values_list("level_id", "ref", "pk", "amount_cents"):
        unpaid[level_id].append((ref or f"#{pk}", cents))
    return unpaid


def _amounts(opened: dict[str, int], day: dict[str, int]) -> dict[str, int]:
    """The identity's left-hand side: the opening and the day's terms (a void's compensating rows whole)."""
    voids = (
        day["voids_in_mc"]
        + day["voids_seeded_mc"]
        + day["voids_corrected_mc"]
        + day["voids_transferred_mc"]
        - day["voids_awarded_mc"]
    )
    return {
        "opening_mc": sum(opened.values()),
        "voids_mc": voids,
        **{name: day[name] for name in _PLAIN_TERMS},
    }


def _register_row(
    level: Level, opened: dict[str, int], day: dict[str, int], owed: list[tuple[str, int]], **lists
) -> RegisterRow:
    """One level's line: ``opened`` its meters before the day, ``day`` the day's sums, ``owed`` its hits
    unpaid at the close; ``lists``: its other venues and the day's hit numbers."""
    amounts = _amounts(opened, day)
    closed = {meter: opened[meter] + day[meter] for meter in _METERS}
    closing = sum(closed.values())
    return RegisterRow(
        level_id=level.id,
        progressive=level.progressive.name,
        level=level.name,
        state=level.state,
        **amounts,
        closing_mc=closing,
        difference_mc=closing - register_expected_closing(**amounts),
        current_mc=closed["current_mc"],
        # What the signs show: the current amount rounded down to the cent (common.money).
        signs_mc=closed["current_mc"] // MC_PER_CENT * MC_PER_CENT,
        reserve_mc=closed["reserve_mc"],
        overflow_mc=closed["overflow_mc"],
        unpaid_count=len(owed),
        unpaid_mc=sum(cents for _ref, cents in owed) * MC_PER_CENT,
        unpaid_refs=[ref for ref, _cents in owed],
        **lists,
    )


def day_register(venue: Venue, day: date) -> list[RegisterRow]:
    """The register of ``venue``'s business ``day`` (its window from ``common.days``), one row per level."""
    start, end = business_days_bounds(day, day, venue.time_zone)
    levels = venue_register_levels(venue, end)
    ids = [level.id for level in levels]
    ledger = LedgerEntry.objects.filter(level_id__in=ids)
    # The history is read once (before the day); the day's rows give its meter deltas and its terms.
    before = _sums(ledger.filter(at__lt=start), **_METERS)
    during = _sums(ledger.filter(at__gte=start, at__lt=end), **_METERS, **_TERMS)
    refs = _award_refs(ids, start, end)
    unpaid = _unpaid(ids, end)
    venues = _progressive_venues({level.progressive_id for level in levels})
    return [
        _register_row(
            level,
            before.get(level.id) or dict.fromkeys(_METERS, 0),
            during.get(level.id) or dict.fromkeys([*_METERS, *_TERMS], 0),
            unpaid.get(level.id, []),
            shared_with=sorted(venues[level.progressive_id] - {venue.code}),
            award_refs=refs["award"].get(level.id, []),
            void_refs=refs["void"].get(level.id, []),
        )
        for level in levels
    ]


@dataclass(frozen=True)
class RegisterTotals:
    """The venue's levels added up (a linked level shared with another venue is counted in each)."""

    opening_mc: int
    closing_mc: int
    difference_mc: int
    unpaid_mc: int
    unheld: int  # levels whose identity does not hold


def register_total(rows: list[RegisterRow]) -> RegisterTotals:
    return RegisterTotals(
        opening_mc=sum(row.opening_mc for row in rows),
        closing_mc=sum(row.closing_mc for row in rows),
        difference_mc=sum(row.difference_mc for row in rows),
        unpaid_mc=sum(row.unpaid_mc for row in rows),
        unheld=sum(1 for row in rows if not row.holds),
    )
