"""One machine seen from the host: what to poll next, and which events its answers make.

Events are dicts in the shape of POST /api/v1/events without `seq`: the store assigns the machine's seq
when it keeps the event (gateway/queue.py). Amounts are converted from credits to cents here, with the
machine's denomination, because only the gateway knows it.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from typing import Any

from gateway.link import Poll
from gateway.sas import frames as f
from gateway.sas.frames import ExceptionReport

log = logging.getLogger(__name__)

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


@dataclass(frozen=True)
class Preempted:
    """A real-time event the machine sent in place of a long poll's answer (SAS 6.02 §12.3): the long
    poll was not carried out and is asked again once the event is handled."""

    report: ExceptionReport


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


UNKNOWN = object()  # the machine's handpay state was not read
PROGRESSIVE_HANDPAY_LEVELS = range(0x01, 0x21)  # LP 1B level 01-20: a progressive level's handpay


# An answer the machine holds until the host's implied ACK, as (kind, its bytes): "exception" (a general
# poll's) or "win" (LP 85/87's). SAS answers carry no id: their bytes are all there is to recognise them.
Kept = tuple[str, bytes]
KINDS = ("exception", "win")


def exception_key(report: ExceptionReport) -> Kept:
    return "exception", bytes([report.code]) + report.data


def award_result(award: dict[str, Any]) -> dict[str, Any]:
    """What the server is told of an award with an outcome (the machine code is added by the sender)."""
    return {key: award[key] for key in ("award", "amount", "status", "paid")}


def wins_of(answer: f.ProgressiveWin | f.ProgressiveWins) -> list[tuple[int, int]]:
    """(SAS level, cents) of each win an LP 85/87 answer reports; LP 85's level 0 is none."""
    if isinstance(answer, f.ProgressiveWin):
        return [(answer.level, answer.amount)] if answer.level else []
    return list(answer.wins)


def win_key(answer: f.ProgressiveWin | f.ProgressiveWins) -> bytes:
    return repr(answer).encode()


def wins_kept_before(answer: f.ProgressiveWin | f.ProgressiveWins, kept: bytes | None) -> int:
    """How many of the answer's first wins are the kept answer's: read and stored by a process that died
    before the implied ACK. LP 87 answers with every win queued, so wins that came after the kill follow
    the kept ones in the same answer: the kept answer is a prefix of it, not all of it."""
    if kept is None:
        return 0
    if isinstance(answer, f.ProgressiveWin):
        return 1 if win_key(answer) == kept else 0
    for count in range(len(answer.wins), 0, -1):
        if win_key(replace(answer, wins=answer.wins[:count])) == kept:
            return count
    return 0


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


class MachineHost:
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

    # --- scheduling ------------------------------------------------------------------------

    def next_poll(self, now: float) -> Poll:
        # While the link is down only general polls go out: a queued command waits for the machine
        # instead of being spent on silence.
        if self.awards and self.up:
            self.award_step()
        if self.pending and self.up:
            return self.pending.popleft()
        if now >= self.next_meters and self.up:
            self.next_meters = now + self.config.meters_every
            return self.meters_poll()
        if self.config.rte and now - self.last_answer >= self.config.probe_after:
            # Silence to general polls is no news in real-time mode: whether the machine is there is
            # asked by a long poll it must answer, the one that also sets its reporting mode again.
            probe = self.rte_poll()
            probe.attempts = 3 if self.up else 1
            return probe
        return self.general_poll()

    def on_silence(self, now: float, poll: Poll | None = None) -> None:
        if poll is not None and poll.silence_ok:
            return  # nothing to report (SAS 6.02 §12.6): the link is judged by long polls
        if self.up and now - self.last_answer >= self.config.link_down_after:
            self.up = False
            log.warning("%s: link down (no answer for %.1f s)", self.config.code, now - self.last_answer)

    def answered(self, now: float) -> None:
        if not self.up:
            log.info("%s: link up", self.config.code)
            self.up = True
            self.start_session()
            self.next_meters = now + self.config.meters_every
        self.last_answer = now

    def start_session(self) -> None:
        """After start-up, a link-down or a power-up: set the reporting mode, then read the meters.

        These go ahead of whatever is queued; queued commands (awards, resets) are kept. A game started
        and not ended stays open: the machine still holds its 7F (only a power-up forgets it).
        """
        first = [self.rte_poll(), self.meters_poll()]
        if self.reads_sas_wins() and (self.wins_due or "win" in self.repeat):
            # Wins the machine holds and no 56 will ask for: a 56 acknowledged before its wins were all
            # read (by a process that died, or before a link down), or wins kept and not acknowledged
            # (then the first answer is compared with the kept one). Any other win still has its 56
            # queued behind its game's 7E/7F: read at the start, a hit on a game played just after it
            # would reach the server before that game and be refused for want of the game that won it.
            first += self.wins_read()
        self.pending.extendleft(reversed(first))
        self.award_asked = None  # the award in hand is looked at again: its queued poll may be lost

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
        if lp in f.EXTENDED_METER_LPS:
            request = f.extended_meters_request(self.address, list(METER_CODES), command=lp)
            decode = partial(f.decode_extended_meters, address=self.address, command=lp)
        else:
            request = f.selected_meters_request(self.address, list(METER_CODES))
            decode = partial(f.decode_selected_meters, address=self.address, codes=list(METER_CODES))
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
        code = report.code
        if code == 0x7E:
            self.set_wager(f.decode_game_started(report.data).credits_wagered)
        elif code == 0x7F:
            self.on_game_ended(f.decode_game_ended(report.data))
        elif code in STATUS_BY_EXCEPTION or code in TILT_EXCEPTIONS:
            self.emit("status", status=STATUS_BY_EXCEPTION.get(code, "tilt"))
            self.after_status(code)
        elif code == 0x51 and not self.in_handpay:
            # Behind the wins read its 56 queued: the hit reaches the server before the lockup it caused
            self.pending.append(
                self._data_poll(
                    f.read_poll(self.address, f.LP_HANDPAY_INFO),
                    partial(f.decode_handpay_info, address=self.address),
                    self.on_handpay,
                )
            )
        elif code == 0x56 or (code == 0x54 and self.config.wins_lp == f.LP_PROGRESSIVE_WIN):
            if self.reads_sas_wins():
                self.set_wins_due(True)  # with the 56: acknowledged, it is not asked for again
            if not self.config.rte:
                # The game that won was not reported (no 7E/7F): the meters read first post it from their
                # deltas, so it comes before its jackpot in the machine's seq order, as the server needs.
                self.pending.append(self.meters_poll())
            self.pending.extend(self.wins_read())
        elif code == 0x7C:
            self.on_bonus_exception(report)
        else:
            self.log_exception(code)

    def after_status(self, code: int) -> None:
        if code == 0x52:
            self.in_handpay = False
        if code == 0x17:  # power applied: the machine forgot the reporting mode and any game in play
            self.set_wager(None)
            self.start_session()
        elif code != 0x18:
            self.pending.append(self.meters_poll())

    def log_exception(self, code: int) -> None:
        if code == 0x53:
            log.warning("%s: no progressive information for 5 s", self.config.code)
        elif code == 0x70:
            log.error("%s: exception queue overflow, events were lost", self.config.code)
        elif code in (0x54, 0x7A):
            self.pending.append(self.meters_poll())
        if code == 0x70 and self.reads_sas_wins():  # a lost 56 would leave its wins unread
            self.set_wins_due(True)
            self.pending.extend(self.wins_read())

    def on_game_ended(self, win_credits: int) -> None:
        if self.wager is None:
            log.warning("%s: game ended without its start; the meters will carry it", self.config.code)
            return
        if self.wager > 0:
            self.emit("game", wager=self.cents(self.wager), win=self.cents(win_credits))
        self.set_wager(None)

    def set_wager(self, credits: int | None) -> None:
        self.wager = credits
        self.out.open_game_set(self.config.code, credits, self._take_key())

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

    def on_handpay(self, info: f.HandpayInfo) -> None:
        self.in_handpay = True
        self.emit(
            "status", status="handpay_lockup", amount=info.amount, sas_level=info.level, group=info.group
        )

    def reads_sas_wins(self) -> bool:
        return bool(self.config.levels) and self.config.wins_lp != f.LP_PROGRESSIVE_WIN

    def set_wins_due(self, due: bool) -> None:
        if due != self.wins_due or self.key is not None:
            self.wins_due = due
            self.out.wins_due_set(self.config.code, due, self._take_key())

    def wins_read(self) -> list[Poll]:
        """LP 1B, then the wins: SAS 6.02 §10.4 has a machine report a progressive win with 54 (paid to
        its credit meter or cashout device) or 51 (handpay pending) besides the 56, in no set order,
        and LP 85/87 carry no pay method. The machine's handpay read just before the wins says which
        of them it locked up on (`who_paid`)."""
        return [self.handpay_peek_poll(self.on_handpay_peek), self.wins_poll()]

    def handpay_peek_poll(self, handle: Callable[[f.HandpayInfo], None]) -> Poll:
        """LP 1B read for the machine's handpay state, not for a 51 (its 51 still makes the lockup)."""
        poll = self._data_poll(
            f.read_poll(self.address, f.LP_HANDPAY_INFO),
            partial(f.decode_handpay_info, address=self.address),
            handle,
        )
        poll.failed = self.on_handpay_unknown
        return poll

    def on_handpay_peek(self, info: f.HandpayInfo) -> None:
        self.handpay_seen = info if info.level in PROGRESSIVE_HANDPAY_LEVELS else None

    def on_handpay_unknown(self) -> None:
        self.handpay_seen = UNKNOWN

    def who_paid(self, group: int, wins: list[tuple[int, int]]) -> list[dict[str, Any]]:
        """`paid` (and `paid_amount`) of each win of one answer: the attendant pays the one the machine
        is locked up on (its last win of the handpay's level: a locked machine plays no further game),
        the machine paid the others to its credit meter, in whole credits (the fraction of a credit is
        not credited, as for a legacy bonus). Nothing when the handpay state is unknown: the server then
        has attendants pay it, as before the field existed."""
        seen = self.handpay_seen
        if seen is UNKNOWN:
            return [{} for _ in wins]
        locked = None
        if isinstance(seen, f.HandpayInfo) and seen.group == group:
            locked = max((i for i, (level, _) in enumerate(wins) if level == seen.level), default=None)
        paid: list[dict[str, Any]] = []
        for index, (_, amount) in enumerate(wins):
            credited = self.cents(amount // self.config.denomination)
            if index == locked:
                paid.append({"paid": "attendant"})
            elif credited:
                paid.append({"paid": "machine", "paid_amount": credited})
            else:  # less than one credit: the machine credited nothing, attendants pay it
                paid.append({})
        return paid

    def wins_poll(self) -> Poll:
        lp = self.config.wins_lp
        if lp == f.LP_MULTI_PROGRESSIVE_WINS:
            decode: Callable[[bytes], Any] = partial(f.decode_multi_progressive_wins, address=self.address)
        else:
            decode = partial(f.decode_progressive_win, address=self.address, command=lp)
        # The machine drops the wins it sent on the implied ACK, which the line sends once they are kept
        # (the next LP 85 right after would be the NACK and bring the same win back).
        return self._data_poll(
            f.read_poll(self.address, lp), decode, self.on_wins, lambda answer: bool(wins_of(answer))
        )

    def on_wins(self, answer: f.ProgressiveWin | f.ProgressiveWins) -> None:
        wins = wins_of(answer)
        repeat = self.repeat.pop("win", None)
        again = wins_kept_before(answer, repeat)
        if again:  # read by the previous process, which died before the implied ACK
            log.info(
                "%s: %d progressive win(s) read again, kept before the restart: not counted twice",
                self.config.code,
                again,
            )
        if again < len(wins):
            paid = self.who_paid(answer.group, wins)[again:]
            self.wins_kept(answer.group, wins[again:], paid, ("win", win_key(answer)))
            self.pending.append(self.meters_poll())
        if wins and isinstance(answer, f.ProgressiveWin):  # one win per answer: ask for the next until
            # none, also after a repeat (the wins behind it may have no 56 left to ask for them)
            self.pending.appendleft(self.wins_poll())
        else:  # LP 87 answers with all the machine holds: none is left past these once they are kept
            self.set_wins_due(False)

    def wins_kept(
        self, group: int, wins: list[tuple[int, int]], paid: list[dict[str, Any]], key: Kept
    ) -> None:
        """The jackpots of one answer in one transaction with its key, then their resets broadcast."""
        events, hits = [], []
        for (level, amount), who in zip(wins, paid, strict=True):
            level_id = self.config.levels.get(level)
            if level_id is None:
                log.error("%s: hit of SAS level %d, mapped to no level", self.config.code, level)
                continue
            events.append(self.event("jackpot", level=level_id, amount=amount, **who))
            hits.append(level)
        self.key = key
        self.out.answer_events(self.config.code, events, self._take_key())
        for level in hits:
            self.out.progressive_hit(group, level)  # SAS 6.02 §10.5: broadcast the reset at once

    # --- legacy bonus (mystery awards) and remote handpay reset ---------------------------------------

    def award(self, award: dict[str, Any]) -> None:
        """An award from the server: `award["amount"]` cents, by LP 8A up to the handpay limit, else by
        an attendant. Called from the server channel's thread; the line's thread pays it (award_step).

        A machine credits whole credits only: the fraction of a credit is not paid, and the server
        records what was credited and the difference. An award smaller than one credit would credit
        nothing, so an attendant pays it, like one above the limit. The award is kept before anything is
        sent: one the server sends again (on every connection until it has the result) is not paid again.
        """
        amount = int(award["amount"])
        credits = amount // self.config.denomination
        entry: dict[str, Any] = {"award": award["award"], "amount": amount, "credits": credits}
        entry.update(state="new", before=None, status=None, paid=None)
        if amount > self.config.handpay_limit or credits == 0:
            entry.update(state="done", status="handpay", paid=0)
        if any(held["award"] == entry["award"] for held in list(self.awards)):
            return  # in hand already
        if self.out.award_received(self.config.code, entry) and entry["state"] != "done":
            self.awards.append(entry)

    def award_step(self) -> None:
        """Queue what the award in hand needs next, once per state it reaches.

        new -> (LP 9A: the legacy bonus meters before) sending -> (LP 8A, its ACK) sent -> (7C with
        its amount; or 7C then LP 90 via confirming) done. Each state is on disk before the poll it
        leads to goes out, so LP 8A is sent at most once per award: a process that finds an award
        `sending` (8A sent or about to be, its ACK not kept) asks the machine's bonus meters instead.
        """
        award = self.awards[0]
        step = (award["award"], award["state"])
        if step == self.award_asked or (award["state"] == "new" and "exception" in self.repeat):
            # A new award waits for the machine's first answer after a start: a 7C kept by the previous
            # process is told from this award's own 7C only by coming first.
            return
        self.award_asked = step
        if award["state"] == "new":  # behind a session start's LP 0E: its 7C must come in real time
            self.pending.append(self.bonus_meters_poll(self.on_bonus_meters_before))
        elif award["state"] == "sending":
            self.pending.append(self.bonus_meters_poll(self.on_bonus_meters_after))
        elif award["state"] == "confirming":
            self.pending.append(self.bonus_win_poll())
        # "sent": the machine credited it; its 7C comes to a general poll (the machine keeps it until
        # the ACK, which follows the write of what it made)

    def _award_in_hand(self, *states: str) -> dict[str, Any] | None:
        award = self.awards[0] if self.awards else None
        return award if award is not None and award["state"] in states else None

    def _award_save(self, award: dict[str, Any], kept: Kept | None = None, **changes: Any) -> None:
        award.update(changes)
        self.out.award_saved(self.config.code, award, kept)
        if award["state"] == "done":
            self.awards.popleft()
            self.pending.append(self.meters_poll())

    def bonus_meters_poll(self, handle: Callable[[f.LegacyBonusMeters], None]) -> Poll:
        request = f.legacy_bonus_meters_request(self.address)
        return self._data_poll(request, partial(f.decode_legacy_bonus_meters, address=self.address), handle)

    def bonus_win_poll(self) -> Poll:
        request = f.read_poll(self.address, f.LP_LEGACY_BONUS_WIN)
        decode = partial(f.decode_legacy_bonus_win, address=self.address)
        return self._data_poll(request, decode, self.on_bonus_win)

    def on_bonus_meters_before(self, meters: f.LegacyBonusMeters) -> None:
        award = self._award_in_hand("new")
        if award is None:
            return
        # The machine answered a long poll, the implied ACK of every earlier answer: their keys go now,
        # so the 7C of this award is never taken for the repeat of the last award's (all 7C bytes are
        # alike without real-time reporting).
        self.settle()
        self._award_save(award, state="sending", before=meters.total)  # from here on, no second 8A
        self.award_asked = (award["award"], "sending")
        # One attempt: an 8A repeated because its ACK was garbled could be credited twice. Without an
        # ACK the bonus meters decide.
        poll = Poll(
            f.legacy_bonus(self.address, award["credits"]), self._ack_length, self._ack, self.on_bonus_sent
        )
        poll.attempts, poll.failed = 1, self.on_bonus_unsure
        self.pending.appendleft(self._long_poll(poll))  # the machine's next turn

    def on_bonus_sent(self, _ack: None) -> None:
        award = self._award_in_hand("sending")
        if award is not None:
            self._award_save(award, state="sent")

    def on_bonus_unsure(self) -> None:
        self.award_asked = None  # award_step asks the bonus meters whether the machine took the 8A

    def on_bonus_meters_after(self, meters: f.LegacyBonusMeters) -> None:
        """LP 8A went out (or was about to) and no ACK was kept: the machine's legacy bonus meters say
        whether it credited the award. Credited: its 7C follows. Not: an attendant pays it."""
        award = self._award_in_hand("sending")
        if award is None:
            return
        if meters.total - award["before"] >= award["credits"]:
            self._award_save(award, state="sent")
            return
        log.warning(
            "%s: award %s not credited by the machine: to an attendant", self.config.code, award["award"]
        )
        self._award_save(award, state="done", status="handpay", paid=0)

    def on_bonus_exception(self, report: ExceptionReport) -> None:
        award = self._award_in_hand("sending", "sent")
        if award is None:
            log.warning("%s: legacy bonus (7C) and no award waiting for one", self.config.code)
            return
        if report.data:  # real-time: 7C carries the amount
            self.bonus_credited(award, f.decode_legacy_bonus_win_data(report.data), self._take_key())
            return
        # Kept with the 7C: a process that dies before LP 90's answer leaves it `confirming`, and the
        # next one reads LP 90 (the machine's last bonus, which is this one: one award at a time).
        self._award_save(award, self._take_key(), state="confirming")
        self.award_asked = (award["award"], "confirming")
        self.pending.append(self.bonus_win_poll())

    def on_bonus_win(self, win: f.LegacyBonusWin) -> None:
        award = self._award_in_hand("confirming")
        if award is not None:
            self.bonus_credited(award, win)

    def bonus_credited(self, award: dict[str, Any], win: f.LegacyBonusWin, kept: Kept | None = None) -> None:
        self._award_save(award, kept, state="done", status="paid", paid=self.cents(win.bonus))

    def handpay_reset(self) -> None:
        """The server's handpay reset: LP 94 only to a machine that says it is in a handpay (LP 1B), never
        to one that paid its win itself (the reset it would refuse). Both on the machine's next turns: a
        command never waits behind the line's routine polls."""
        self.pending.appendleft(self.handpay_peek_poll(self.on_reset_check))

    def on_reset_check(self, info: f.HandpayInfo) -> None:
        if not (info.level or info.amount):
            log.warning(
                "%s: handpay reset asked, the machine is in no handpay: LP 94 not sent", self.config.code
            )
            return
        request = f.handpay_reset(self.address)
        decode = partial(f.decode_handpay_reset_answer, address=self.address)
        self.pending.appendleft(self._data_poll(request, decode, self.on_handpay_reset))  # next turn

    def on_handpay_reset(self, code: int) -> None:
        if code != f.HANDPAY_RESET_DONE:
            log.warning("%s: remote handpay reset refused (code %02X)", self.config.code, code)
