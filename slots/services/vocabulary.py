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

# Largest value a bigint column holds: any integer beyond it cannot be a seq, an amount or a meter.
BIGINT_MAX = 2**63 - 1
MAX_EVENTS_PER_REQUEST = 1000
