"""A machine seen from the host, its base: the state the host keeps of it, the polls that ask it (with
their answers' handlers), the events its answers make, and the keys that make each answer count once.

`MachineHost` (gateway/host.py) is this with the progressive wins (gateway/host_wins.py), the legacy
bonus awards and handpay resets (gateway/host_awards.py), and the handling of each exception.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from gateway.host_io import (
    COUNT_METERS,
    KINDS,
    METER_CODES,
    Callbacks,
    Kept,
    MachineConfig,
    exception_key,
    now_rfc3339,
)
from gateway.link import Poll
from gateway.sas import frames as f
from gateway.sas.frames import ExceptionReport
from gateway.sas.meters import (
    EXTENDED_METER_LPS,
    decode_extended_meters,
    decode_selected_meters,
    extended_meters_request,
    selected_meters_request,
)

# The machine host's one logger, whichever of its modules a line comes from.
log = logging.getLogger("gateway.host")


@dataclass(frozen=True)
class Preempted:
    """A real-time event the machine sent in place of a long poll's answer (SAS 6.02 §12.3): the long
    poll was not carried out and is asked again once the event is handled."""

    report: ExceptionReport


UNKNOWN = object()  # the machine's handpay state was not read


class HostPolls:
    """The base of `MachineHost`: its state of the machine, its polls, events and exactly-once keys."""

    def __init__(self, config: MachineConfig, callbacks: Callbacks) -> None:
        self.config = config
        self.address = config.address
        self.interval = config.interval
        self.next_due = 0.0
        self.out = callbacks
        self.pending: deque[Poll] = deque()  # filled from other threads too: deque ops are atomic
        # Awards without an outcome, oldest first, paid one at a time (award_step). The server channel's
        # thread appends to it.
        self.awards: deque[dict[str, Any]] = deque(callbacks.awards(config.code))
        self.award_asked: tuple[Any, str] | None = None  # (award, state) whose poll is queued
        self.up = False
        self.last_answer = 0.0
        self.next_meters = float("inf")  # the session start reads them; then every meters_every
        # Credits of the game started (7E) and not yet ended, kept by the callbacks (on disk in the gateway)
        self.wager: int | None = callbacks.open_game(config.code)
        # The last meters read (cents), kept with their event: games from deltas count from there
        self.meters: dict[str, int] | None = callbacks.last_meters(config.code)
        self.in_handpay = False  # a lockup already reported: a repeated 51 is not a new one
        # Who pays the wins about to be read: the machine's handpay as LP 1B answered just before them
        # (None: not in a handpay), or UNKNOWN when it did not answer: those wins then say nothing.
        self.handpay_seen: f.HandpayInfo | object | None = UNKNOWN
        # Answered an idle general poll in real-time mode (00 or addr FF 00): its silence is no answer
        self.says_nothing = False
        self.rte_acked = False  # LP 0E's ACK read: the machine reports in real time from now on
        # The last answers whose handling went to disk, maybe not acknowledged by the machine: the previous
        # process may have died before the ACK, so this one's first answer of each kind can be that again.
        self.repeat: dict[str, bytes] = callbacks.kept(config.code)
        self.kept: set[str] = set(self.repeat)  # kinds the store holds a key of
        self.key: Kept | None = None  # the answer being handled, until a write keeps it
        # A 56 was acknowledged and a read has not found all its wins yet: the machine holds wins that no
        # exception will ask for again
        self.wins_due = callbacks.wins_due(config.code)

    # --- polls -------------------------------------------------------------------------------

    def _ack_length(self, head: bytes) -> int:
        return 1

    def _ack(self, raw: bytes) -> None:
        if raw != f.ack(self.address):
            raise f.FrameError(f"expected an ack, got {raw.hex()}")

    def rte_poll(self) -> Poll:
        return self._long_poll(
            Poll(f.enable_rte(self.address, self.config.rte), self._ack_length, self._ack, self._on_rte_ack)
        )

    def _long_poll(self, poll: Poll) -> Poll:
        """`poll`, also reading a real-time event (address, FF, code, data, CRC) sent in its answer's place
        (SAS 6.02 §12.3; issue 22's independent machine does so for every long poll while an event is
        queued). The event is handled as a general poll's (kept, then its implied ACK: acknowledge) and
        the long poll goes again on the machine's next turn, first: the machine did not carry it out."""
        length, decode, handle, acknowledge = poll.length, poll.decode, poll.handle, poll.acknowledge

        def event_length(head: bytes) -> int | None:
            if self.config.rte and head[0] == self.address:
                if len(head) < 2:  # an ACK is this one byte; an event has FF next: wait for it (a gap)
                    return None
                if head[1] == f.RTE_MARKER:
                    return f.rte_length(head)
            return length(head)

        def event_decode(raw: bytes) -> Any:
            if len(raw) >= 2 and raw[0] == self.address and raw[1] == f.RTE_MARKER:
                return Preempted(f.decode_rte_exception(raw, self.address))
            return decode(raw)

        def event_handle(value: Any) -> None:
            if not isinstance(value, Preempted):
                handle(value)
                return
            log.info(
                "%s: event %02X in place of LP %02X's answer",
                self.config.code,
                value.report.code,
                poll.request[1],
            )
            self.on_exception(value.report)
            self.pending.appendleft(poll)

        def event_acknowledge(value: Any) -> bool:
            if isinstance(value, Preempted):
                return self._gp_acknowledge(value.report)
            return acknowledge is not None and acknowledge(value)

        poll.length, poll.decode, poll.handle, poll.acknowledge = (
            event_length,
            event_decode,
            event_handle,
            event_acknowledge,
        )
        return poll

    def general_poll(self) -> Poll:
        # A garbled answer is asked again by the same poll (the implied NACK: the machine repeats it);
        # anything else would be its implied ACK. A machine that is down is not waited for three times,
        # nor one whose silence is "nothing to report" (silence_ok, SAS 6.02 §12.6).
        attempts = 3 if self.up else 1
        return Poll(
            f.general_poll(self.address),
            self._gp_length,
            self._gp_decode,
            self.on_exception,
            attempts,
            acknowledge=self._gp_acknowledge,
            # Only for a machine that never said "nothing" in words: from one that does, silence is an
            # answer that came late or was lost, asked again (the implied NACK), as a poll to another
            # machine next would acknowledge it unread on a multi-drop line.
            silence_ok=self.config.rte and not self.says_nothing,
        )

    def _gp_acknowledge(self, report: ExceptionReport) -> bool:
        return report.code != 0

    def _gp_length(self, head: bytes) -> int | None:
        # With RTE on, an event comes framed (address, FF, code, data, CRC); "nothing" stays one 00 byte.
        return f.rte_length(head) if head[0] == self.address and self.config.rte else 1

    def _gp_decode(self, raw: bytes) -> ExceptionReport:
        # One byte even with RTE configured: the machine is not in real-time mode yet (before LP 0E, after
        # a power-up) and reports its exceptions by code; it repeats each until acknowledged, so it must
        # be read, not retried.
        if len(raw) == 1:
            return ExceptionReport(raw[0])
        return f.decode_rte_exception(raw, self.address)

    def _data_length(self, head: bytes) -> int | None:
        if len(head) >= 2 and head[1] == 0x00:  # busy (SAS 6.02 §4.1): read it whole, the decoder
            # rejects it and the poll is repeated
            return 2
        return f.frame_length(head, f.RESPONSE_LENGTH)

    def _data_poll(
        self,
        request: bytes,
        decode: Callable[[bytes], Any],
        handle: Callable[[Any], None],
        acknowledge: Callable[[Any], bool] | None = None,
    ) -> Poll:
        return self._long_poll(Poll(request, self._data_length, decode, handle, acknowledge=acknowledge))

    def meters_poll(self) -> Poll:
        lp = self.config.meters_lp
        if lp in EXTENDED_METER_LPS:
            request = extended_meters_request(self.address, list(METER_CODES), command=lp)
            decode = partial(decode_extended_meters, address=self.address, command=lp)
        else:
            request = selected_meters_request(self.address, list(METER_CODES))
            decode = partial(decode_selected_meters, address=self.address, codes=list(METER_CODES))
        return self._data_poll(request, decode, self.on_meters)

    def _on_rte_ack(self, _ack: None) -> None:
        self.rte_acked = self.config.rte

    # --- answers -> events ---------------------------------------------------------------------

    def event(self, kind: str, **fields: Any) -> dict[str, Any]:
        return {"machine": self.config.code, "at": now_rfc3339(), "type": kind, **fields}

    def emit(self, kind: str, **fields: Any) -> None:
        self.out.event(self.config.code, self.event(kind, **fields), self._take_key())

    def _take_key(self) -> Kept | None:
        """The key of the answer being handled, for the first write it makes (then none)."""
        key, self.key = self.key, None
        if key is not None:
            self.kept.add(key[0])
        return key

    def settle(self) -> None:
        """The machine answered a general poll: it had the ACK of every answer before. Forget their keys
        on disk, except one still to be compared with the machine's first answer of its kind."""
        for kind in KINDS:
            if kind in self.kept and kind not in self.repeat:
                self.out.settled(self.config.code, kind)
                self.kept.discard(kind)

    def cents(self, credits: int) -> int:
        return credits * self.config.denomination

    def on_exception(self, report: ExceptionReport) -> None:
        """One general poll's answer, handled before the line sends the machine its implied ACK.

        Exactly once across a kill: what an exception makes (a game, a status, an open game) is written
        together with its key, and the ACK goes out only after that. A machine repeats an exception it
        was not acknowledged, so the first answer after a start is a repeat when it is byte for byte the
        kept one: the previous process stored it and died before the ACK. It is acknowledged and not
        handled again. The key is settled (forgotten) on the machine's next answer, so a new exception
        identical to an old, acknowledged one is never mistaken for a repeat past that point.
        """
        repeat = self.repeat.pop("exception", None)
        code = report.code
        if code == 0x00:
            self.says_nothing = self.says_nothing or self.rte_acked
            self.settle()
            return
        key = exception_key(report)
        if key[1] == repeat:
            log.info(
                "%s: exception %02X again, kept before the restart: not counted twice", self.config.code, code
            )
            return
        self.key = key
        self.handle_exception(report)
        if self.key is not None:  # its handling wrote nothing; the machine is past the kept key
            self.key = None
            self.settle()

    def handle_exception(self, report: ExceptionReport) -> None:
        """One exception, its key in `self.key` (MachineHost says what each makes)."""
        raise NotImplementedError

    # --- readings -------------------------------------------------------------------------------

    def on_meters(self, answer: tuple[int, dict[int, int]]) -> None:
        _, raw = answer
        meters = {
            name: raw[code] if name in COUNT_METERS else self.cents(raw[code])
            for code, name in METER_CODES.items()
            if code in raw
        }
        events = []
        if not self.config.rte and self.meters is not None:
            events += self.game_from_deltas(self.meters, meters)
        self.meters = meters
        # The game and the meters it counts from in one transaction: a restart neither repeats nor
        # loses it (the store keeps these meters as the next read's starting point).
        events.append(self.event("meters", meters=meters))
        self.out.answer_events(self.config.code, events, self._take_key())

    def game_from_deltas(self, before: dict[str, int], after: dict[str, int]) -> list[dict[str, Any]]:
        """Without real-time events: what was wagered and won since the last read, as one game event."""
        wagered = after.get("coin_in", 0) - before.get("coin_in", 0)
        won = after.get("coin_out", 0) - before.get("coin_out", 0)
        if wagered > 0 and won >= 0:  # a decrease is a rollover or a reset: the server flags those
            games = after.get("games_played", 0) - before.get("games_played", 0)
            return [self.event("game", wager=wagered, win=won, games=games)]
        return []

    def handpay_peek_poll(self, handle: Callable[[f.HandpayInfo], None]) -> Poll:
        """LP 1B read for the machine's handpay state, not for a 51 (its 51 still makes the lockup)."""
        poll = self._data_poll(
            f.read_poll(self.address, f.LP_HANDPAY_INFO),
            partial(f.decode_handpay_info, address=self.address),
            handle,
        )
        poll.failed = self.on_handpay_unknown
        return poll

    def on_handpay_unknown(self) -> None:
        self.handpay_seen = UNKNOWN
