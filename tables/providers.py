"""What the table games tell the engine and the signs when asked (``jackpots.hooks.providers``): the
engine knows machines, and of a table's prize only the Hit it recorded; where a table stands, who paid at
it, how its prizes are voided and audited and what its rules say, the tables answer. Registered once, in
``TablesConfig.ready()``."""

from __future__ import annotations

from django.core.management.base import CommandError
from django.db.models import Min, Q
from django.utils.translation import gettext as _

from floor.models import Venue
from jackpots.hooks import HitPlace, KeyIssuer, Place, providers
from jackpots.models import Hit, HitKind
from tables.audit import table_prizes_audit
from tables.models import HitTablePayment, PrizeShare, Table, TableKey, TableSeat
from tables.rules import DECLARED_HANDS, Hand
from tables.selectors import declaration_frames
from tables.services import table_hit_void, table_key_issue
from tables.sign_rules import progressive_rules_extra


def table_places(progressive_ids: list[int] | None) -> list[Place]:
    """The tables' venues of the given progressives (None: of every progressive)."""
    tables = (
        Table.objects.all()
        if progressive_ids is None
        else Table.objects.filter(progressive_id__in=progressive_ids)
    )
    rows = tables.order_by().values_list("progressive_id", "venue_id", "venue__code").distinct()
    return [Place(progressive_id, venue_id, code) for progressive_id, venue_id, code in rows]


def progressives_with_tables_up(progressive_ids: list[int]) -> set[int]:
    """An active table is up: it has no connection state of its own, it posts whole rounds."""
    active = Table.objects.filter(progressive_id__in=progressive_ids, active=True)
    return set(active.order_by().values_list("progressive_id", flat=True).distinct())


def hit_table_place(hit: Hit) -> HitPlace | None:
    """The table whose round won a shared prize first: its code, and its room and game."""
    seat = (
        TableSeat.objects.filter(share__hit=hit).select_related("round__table__room").order_by("id").first()
    )
    if seat is None:
        return None
    table = seat.round.table
    game = table.get_game_display()
    return HitPlace(table.code, f"{table.room.name} · {game}" if table.room_id else game)


def hit_table_venue(hit: Hit) -> Venue | None:
    """The venue of the table whose seat won a fixed prize that is a hit of its own."""
    return Venue.objects.filter(tables__rounds__seat_rows__fixed_hit=hit).first()


def hit_table_threshold_cents(hit: Hit) -> int | None:
    """A table hit's two-person threshold: the lowest of the venues of the tables that won it."""
    if hit.kind != HitKind.TABLE:
        return None
    won = Q(rounds__seat_rows__share__hit=hit) | Q(rounds__seat_rows__fixed_hit=hit)
    return Table.objects.filter(won).aggregate(lowest=Min("venue__handpay_threshold_cents"))["lowest"]


def hit_table_payer(hit: Hit) -> str | None:
    payment = HitTablePayment.objects.filter(hit=hit).select_related("table").first()
    return _("table %(code)s") % {"code": payment.table.code} if payment is not None else None


def hit_paid_at_table(hit: Hit) -> bool:
    return HitTablePayment.objects.filter(hit=hit).exists()


def hit_shared(hit: Hit) -> bool:
    return PrizeShare.objects.filter(hit=hit).exists()


def table_key_for(table_code: str) -> str:
    table = Table.objects.filter(code=table_code.upper()).first()
    if table is None:
        raise CommandError(f"No table has the code {table_code!r}.")
    return table_key_issue(table)[1]


def sign_hand_names() -> dict[str, object]:
    """The names of the hands a ``declaration`` frame names, in the active language."""
    return {"hands": {hand: str(Hand(hand).label) for hand in DECLARED_HANDS}}


def providers_register() -> None:
    providers.credential_models.append(TableKey)
    providers.key_issuers["table"] = KeyIssuer(
        "CODE", "A table code (NOG-CSP-1): a key for its rounds.", table_key_for
    )
    providers.progressive_places.append(table_places)
    providers.progressives_up.append(progressives_with_tables_up)
    providers.hit_place.append(hit_table_place)
    providers.hit_venue.append(hit_table_venue)
    providers.hit_threshold_cents.append(hit_table_threshold_cents)
    providers.hit_payer.append(hit_table_payer)
    providers.hit_payment_voidable.append(hit_paid_at_table)
    providers.hit_paid_in_parts.append(hit_shared)
    providers.hit_voiders[HitKind.TABLE] = table_hit_void
    providers.level_audits.append(table_prizes_audit)
    providers.progressive_rules_extra.append(progressive_rules_extra)
    providers.sign_frames.append(declaration_frames)
    providers.sign_strings.append(sign_hand_names)
