"""A batch's machines as runs (first and last seq, last game), and what this process remembers of the
seqs it stored: the storage's choice of route (slots.services.storage)."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from slots.models import MachineEvent
from slots.services.parsing import ParsedEvent

# The highest seq of each machine this process stored or saw stored. A batch reaching back to it holds
# events probably stored already (a retry, on the keep-alive connection it came by) and goes straight to the
# staged move: a direct COPY would stop on the first of them and roll back, and psycopg forgets the
# session's prepared statements at every rollback, so both would be planned again. Only a guess at the
# route: the unique key decides what is stored, whatever this process remembers.
_seq_high: dict[int, int] = {}


class Run(NamedTuple):
    """A machine's events in a batch: its first and last seq, its last game's moment (None: no game)."""

    first_seq: int
    last_seq: int
    game_at: datetime | None


def machine_runs(events: list[ParsedEvent]) -> dict[int, Run]:
    """Each machine's run in ``events``, sorted by (machine, seq)."""
    runs: dict[int, Run] = {}
    for event in events:
        run = runs.get(event.machine.id)
        game_at = event.at if event.type == MachineEvent.Type.GAME else None
        if run is None:
            runs[event.machine.id] = Run(event.seq, event.seq, game_at)
        else:
            if run.game_at is not None and (game_at is None or run.game_at > game_at):
                game_at = run.game_at
            runs[event.machine.id] = Run(run.first_seq, event.seq, game_at)
    return runs


def stored_before(runs: dict[int, Run]) -> bool:
    return any(run.first_seq <= _seq_high.get(machine_id, 0) for machine_id, run in runs.items())


def stored_note(runs: dict[int, Run]) -> None:
    for machine_id, run in runs.items():
        if run.last_seq > _seq_high.get(machine_id, 0):
            _seq_high[machine_id] = run.last_seq
