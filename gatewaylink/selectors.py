"""Reads for a venue's SAS gateway: who it is, its machines and groups, and what it still has to do.

Everything the gateway is sent besides amounts is derived from the database, never from memory, so a
gateway that reconnects (or a server that restarted) gets again what is still open: mystery awards it
has not answered and handpay resets for machines still locked on a paid hit.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef, QuerySet

from common.credentials import credential_find
from common.money import mc_eur
from gatewaylink.models import SasAward
from jackpots.models import Hit, HitKind, Level, Progressive, ProgressiveMachine
from jackpots.selectors import progressives_list, progressives_public
from slots.models import GatewayKey, SlotMachine
from slots.selectors import machines_last_seq

# The LP the gateway broadcasts a group's levels with: 0x86, all levels in one frame (gateway/README.md).
BROADCAST_LP = 0x86


class GroupConflict(Exception):
    """Two progressives played by the venue's SAS machines use the same SAS group."""

    def __init__(self, group: int, names: list[str]) -> None:
        super().__init__(group, names)
        self.group = group
        self.names = names


def gateway_venue(token: str) -> int | None:
    """The venue whose current (unrevoked) gateway key ``token`` is, or None."""
    key = credential_find(GatewayKey, token)
    return None if key is None else key.venue_id


def gateway_key_active(token: str) -> bool:
    return gateway_venue(token) is not None


def sas_machines(venue_id: int) -> QuerySet[SlotMachine]:
    """The venue's machines on SAS (with an address), in line and address order."""
    return SlotMachine.objects.filter(room__venue_id=venue_id, sas_address__isnull=False).order_by(
        "sas_line", "sas_address"
    )


def gateway_progressive_ids(venue_id: int) -> list[int]:
    """The progressives the venue's SAS machines play: the ones whose amounts the gateway is sent."""
    return sorted(
        set(
            ProgressiveMachine.objects.filter(
                machine__room__venue_id=venue_id, machine__sas_address__isnull=False
            ).values_list("progressive_id", flat=True)
        )
    )


def gateway_snapshot(progressive_ids: list[int]) -> list[dict]:
    """The progressives as GET /api/v1/jackpots shows them (amounts in the pool's currency, rounded
    down to the cent)."""
    return progressives_public(progressives_list().filter(id__in=progressive_ids).order_by("name", "id"))


def _machine_config(machine: SlotMachine, last_seq: int) -> dict:
    return {
        "code": machine.asset_number,
        "line": machine.sas_line,
        "address": machine.sas_address,
        "denomination": machine.denomination_cents,
        "group": machine.sas_group,
        "min_bet": machine.min_bet_cents,
        "max_bet": machine.max_bet_cents,
        "handpay_limit": machine.sas_handpay_limit_cents,
        "last_seq": last_seq,
    }


def _groups_config(progressive_ids: list[int]) -> list[dict]:
    """Each SAS group of the progressives: its SAS levels -> server level ids and reset amounts.
    Raises GroupConflict when two of them share a group (the gateway could not tell their levels apart)."""
    groups: dict[int, dict] = {}
    owners: dict[int, str] = {}
    progressives = Progressive.objects.filter(id__in=progressive_ids, sas_group__gt=0).order_by("id")
    for progressive in progressives:
        if progressive.sas_group in owners:
            raise GroupConflict(progressive.sas_group, [owners[progressive.sas_group], progressive.name])
        owners[progressive.sas_group] = progressive.name
        levels = Level.objects.filter(progressive=progressive, sas_level__isnull=False).order_by("sas_level")
        groups[progressive.sas_group] = {
            "group": progressive.sas_group,
            "progressive": progressive.id,
            "broadcast_lp": BROADCAST_LP,
            "levels": {str(level.sas_level): level.id for level in levels},
            "reset_eur": {str(level.sas_level): mc_eur(level.reset_mc) for level in levels},
            # What a machine's game must be to win each level: the engine refuses a machine's report
            # of any other win (hits.machine_report_refusal). Mystery levels are drawn by the server.
            "min_wager": {str(level.sas_level): level.min_wager_cents for level in levels},
            "max_bet_only": {str(level.sas_level): level.max_bet_only for level in levels},
            "mystery": {str(level.sas_level): level.mystery for level in levels},
        }
    return [groups[group] for group in sorted(groups)]


def gateway_config(venue_id: int) -> dict:
    """GET /api/v1/gateway/config: the venue's SAS machines and progressive groups."""
    machines = list(sas_machines(venue_id))
    last = machines_last_seq([m.id for m in machines])
    return {
        "machines": [_machine_config(m, last.get(m.id, 0)) for m in machines],
        "groups": _groups_config(gateway_progressive_ids(venue_id)),
    }


def _award_message(hit: Hit) -> dict:
    return {"type": "award", "award": hit.id, "machine": hit.machine.asset_number, "amount": hit.amount_cents}


def _awards_open() -> QuerySet[Hit]:
    """Mystery hits of SAS machines still open and not answered by a gateway."""
    return (
        Hit.objects.filter(kind=HitKind.MYSTERY, state=Hit.State.HIT, machine__sas_address__isnull=False)
        .filter(~Exists(SasAward.objects.filter(hit_id=OuterRef("pk"))))
        .select_related("machine")
        .order_by("id")
    )


def awards_open(venue_id: int) -> list[dict]:
    """The award messages the venue's gateway has still to answer, oldest first."""
    return [_award_message(hit) for hit in _awards_open().filter(machine__room__venue_id=venue_id)]


def award_target(hit_id: int) -> tuple[int, dict] | None:
    """The venue and the ``award`` message for a hit just announced, when it is an open mystery hit of a
    SAS machine; None otherwise."""
    hit = _awards_open().filter(id=hit_id).select_related("machine__room").first()
    return None if hit is None else (hit.machine.room.venue_id, _award_message(hit))


def handpay_reset_target(hit_id: int) -> tuple[int, dict] | None:
    """The venue and the ``handpay_reset`` message for a paid hit of a SAS machine, or None."""
    hit = (
        # A win the machine paid itself left no lockup: a reset would be refused by the machine.
        Hit.objects.filter(
            id=hit_id, state=Hit.State.PAID, machine__sas_address__isnull=False, paid_by_machine__isnull=True
        )
        .select_related("machine__room")
        .first()
    )
    if hit is None:
        return None
    return hit.machine.room.venue_id, {"type": "handpay_reset", "machine": hit.machine.asset_number}


def handpay_resets_open(venue_id: int) -> list[dict]:
    """A reset for each SAS machine of the venue still in handpay lockup whose latest hit is paid: sent
    again on every connection until the machine reports the reset (its lockup flag clears)."""
    messages = []
    for machine in sas_machines(venue_id).filter(handpay_locked=True):
        latest = (
            Hit.objects.filter(machine=machine).exclude(state=Hit.State.VOIDED).order_by("-at", "-id").first()
        )
        if latest is not None and latest.state == Hit.State.PAID and latest.paid_by_machine_id is None:
            messages.append({"type": "handpay_reset", "machine": machine.asset_number})
    return messages
