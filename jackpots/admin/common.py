"""What the jackpot admins share: the workspace permissions, euro columns, the audit trail."""

from __future__ import annotations

from common.admin import ReadOnlyAdmin, audit
from common.money import mc_eur_grouped

__all__ = ["ReadOnlyAdmin", "audit", "eur_mc"]

VERIFY_HIT = "floor.verify_hit"
PAY_HIT = "floor.pay_hit"
VOID_HIT = "floor.void_hit"
CHANGE_LEVEL_PARAMETERS = "floor.change_level_parameters"
SEE_MYSTERY_TRIGGER = "floor.see_mystery_trigger"
SEE_WINNER_IDENTITY = "floor.see_winner_identity"
CHANGE_SAS_MAP = "floor.change_sas_map"


def eur_mc(millicents: int | None) -> str:
    return "-" if millicents is None else mc_eur_grouped(millicents)
