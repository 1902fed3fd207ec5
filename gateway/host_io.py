"""What a machine host is given and what it gives: the machine's configuration, the events vocabulary
(SAS meter codes and exceptions as the events API names them), and the callbacks its outputs go to.

Events are dicts in the shape of POST /api/v1/events without `seq`: the store assigns the machine's seq
when it keeps the event (gateway/queue.py). Amounts are converted from credits to cents by the host, with
the machine's denomination, because only the gateway knows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from gateway.sas import frames as f
from gateway.sas.frames import ExceptionReport

# LP 2F meter codes (SAS Table C-7) and the names the events API gives them. All are in credits.
METER_CODES = {
    0x00: "coin_in",
    0x01: "coin_out",
    0x02: "jackpot",
    0x03: "handpay",  # hand-paid cancelled credits
    0x05: "games_played",
    0x0B: "bills_in",
    0x15: "ticket_in",
    0x16: "ticket_out",
    0x1D: "progressive_machine_paid",
    0x20: "progressive_attendant_paid",
}
COUNT_METERS = {"games_played"}

STATUS_BY_EXCEPTION = {
    0x11: "door_open",
    0x12: "door_closed",
    0x17: "power_on",
    0x18: "power_off",
    0x52: "handpay_reset",
}
# 20-2A are the tilts of SAS Appendix A (general, coin in/out, hopper, reverse coin, ...).
TILT_EXCEPTIONS = set(range(0x20, 0x2B))


def now_rfc3339() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class MachineConfig:
    code: str  # the server's machine code, e.g. NOG-0101
    address: int
    denomination: int  # cents per credit
    rte: bool = True  # real-time event reporting (LP 0E); False: games from meter deltas
    group: int = 0  # SAS progressive group, 0 for none
    levels: dict[int, int] = field(default_factory=dict)  # SAS level -> server level id
    interval: float = 0.2
    # The meters read every 20 s keep an idle machine heard: the server marks a machine silent for 30 s
    # (MACHINE_OFFLINE_AFTER_SECONDS) offline, and games dated in an offline period count for no level,
    # so a longer period would cost the first game after every idle minute its contribution.
    meters_every: float = 20.0
    wins_lp: int = f.LP_SAS_PROGRESSIVE_WIN  # 85, 87, or 84 for machines without SAS progressives
    handpay_limit: int = 120_000  # cents; awards above it are paid by an attendant
    link_down_after: float = 5.0
    # With real-time reporting a machine may leave a general poll unanswered (nothing to report, SAS 6.02
    # §12.6): after this long without any answer a long poll that must be answered (LP 0E) asks instead.
    probe_after: float = 1.0
    meters_lp: int = f.LP_SELECTED_METERS  # 0x2F, or 0x6F / 0xAF for machines with extended meters


# An answer the machine holds until the host's implied ACK, as (kind, its bytes): "exception" (a general
# poll's) or "win" (LP 85/87's). SAS answers carry no id: their bytes are all there is to recognise them.
Kept = tuple[str, bytes]
KINDS = ("exception", "win")


def exception_key(report: ExceptionReport) -> Kept:
    return "exception", bytes([report.code]) + report.data


def award_result(award: dict[str, Any]) -> dict[str, Any]:
    """What the server is told of an award with an outcome (the machine code is added by the sender)."""
    return {key: award[key] for key in ("award", "amount", "status", "paid")}


class Callbacks:
    """Where a machine's outputs go; the defaults drop them (tests and the CLI override).

    `kept`, when given, is the answer the write comes from: kept with it, in the same transaction, until
    `settled` (see MachineHost.on_exception).
    """

    def event(self, machine: str, event: dict[str, Any], kept: Kept | None = None) -> None: ...

    def answer_events(self, machine: str, events: list[dict[str, Any]], kept: Kept | None = None) -> None:
        for event in events:
            self.event(machine, event, kept)

    def progressive_hit(self, group: int, level: int) -> None: ...

    def award_done(self, machine: str, result: dict[str, Any]) -> None:
        """Tell the server an award's outcome (`award_result`)."""

    def award_received(self, machine: str, award: dict[str, Any]) -> bool:
        """Keep a new award; False when it is known already (the server sent it again)."""
        if award["state"] == "done":
            self.award_done(machine, award_result(award))
        return True

    def award_saved(self, machine: str, award: dict[str, Any], kept: Kept | None = None) -> None:
        """An award's new state, kept with `kept`; once `done`, its outcome goes to the server."""
        if award["state"] == "done":
            self.award_done(machine, award_result(award))

    def awards(self, machine: str) -> list[dict[str, Any]]:
        """Awards without an outcome, oldest first (kept on disk by the gateway across a restart)."""
        return []

    def open_game_set(self, machine: str, credits: int | None, kept: Kept | None = None) -> None: ...

    def open_game(self, machine: str) -> int | None:
        return None

    def wins_due_set(self, machine: str, due: bool, kept: Kept | None = None) -> None: ...

    def wins_due(self, machine: str) -> bool:
        """A 56 acknowledged and its wins not all read yet (kept on disk by the gateway)."""
        return False

    def settled(self, machine: str, kind: str) -> None: ...

    def kept(self, machine: str) -> dict[str, bytes]:
        return {}

    def last_meters(self, machine: str) -> dict[str, int] | None:
        """The meters of the machine's last `meters` event (the gateway keeps them with it)."""
        return None
