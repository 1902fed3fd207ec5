"""The fixed vocabulary of machine events (docs/api.md): types, meters and statuses."""

from __future__ import annotations

from slots.models import MachineEvent

EVENT_TYPES: dict[str, int] = {
    "game": MachineEvent.Type.GAME,
    "meters": MachineEvent.Type.METERS,
    "jackpot": MachineEvent.Type.JACKPOT,
    "status": MachineEvent.Type.STATUS,
}

# SAS meter vocabulary, in cents except games_played. The first eight are the ones docs/api.md names.
METER_NAMES: frozenset[str] = frozenset(
    {
        "coin_in",
        "coin_out",
        "jackpot",
        "games_played",
        "bills_in",
        "ticket_in",
        "ticket_out",
        "handpay",
        "progressive_machine_paid",
        "progressive_attendant_paid",
    }
)

# Each status sets one of the machine's condition flags. A tilt is cleared by the next power_on (the
# machine restarts out of it); the others come in pairs.
STATUS_FLAGS: dict[str, tuple[str, bool]] = {
    "door_open": ("door_open", True),
    "door_closed": ("door_open", False),
    "power_off": ("powered", False),
    "power_on": ("powered", True),
    "tilt": ("tilted", True),
    "handpay_lockup": ("handpay_locked", True),
    "handpay_reset": ("handpay_locked", False),
}
STATUS_CLEARS_TILT = "power_on"

# Each status as the significant-events register keeps it: its kind (floor.SignificantEvent.Kind; a
# handpay lockup and its reset are both "handpay") and the exception's description (SAS Appendix A
# general exceptions the gateway maps to it, gateway/host_io.py STATUS_BY_EXCEPTION).
STATUS_SIGNIFICANT: dict[str, tuple[str, str]] = {
    "door_open": ("door_open", "Slot door was opened (SAS exception 11)"),
    "door_closed": ("door_closed", "Slot door was closed (SAS exception 12)"),
    "power_off": ("power_off", "AC power was lost from the gaming machine (SAS exception 18)"),
    "power_on": ("power_on", "AC power was applied to the gaming machine (SAS exception 17)"),
    "tilt": ("tilt", "Machine tilt (SAS exceptions 20 to 2A)"),
    "handpay_lockup": ("handpay", "Handpay is pending: the machine is locked up (SAS exception 51)"),
    "handpay_reset": ("handpay", "Handpay was reset: the lockup is cleared (SAS exception 52)"),
}

# Largest value a bigint column holds: any integer beyond it cannot be a seq, an amount or a meter.
BIGINT_MAX = 2**63 - 1
MAX_EVENTS_PER_REQUEST = 1000
