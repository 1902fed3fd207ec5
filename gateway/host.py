"""One machine seen from the host: what to poll next, and which events its answers make.

Events are dicts in the shape of POST /api/v1/events without `seq` (gateway/host_io.py says more). The
host is built in parts: its state, polls and exactly-once keys (gateway/host_polls.py), the progressive
wins (gateway/host_wins.py), the legacy bonus awards and handpay resets (gateway/host_awards.py); here,
the scheduling of its polls and what each exception makes.
"""

from __future__ import annotations

from functools import partial

from gateway.host_awards import HostAwards
from gateway.host_io import STATUS_BY_EXCEPTION, TILT_EXCEPTIONS
from gateway.host_polls import log
from gateway.host_wins import HostWins
from gateway.link import Poll
from gateway.sas import frames as f
from gateway.sas.frames import ExceptionReport


class MachineHost(HostWins, HostAwards):
    """One machine on a line: the polls to send it, in order, and what its exceptions make."""

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

    # --- exceptions -----------------------------------------------------------------------------

    def handle_exception(self, report: ExceptionReport) -> None:
        code = report.code
        if code == 0x7E:
            self.on_game_started(f.decode_game_started(report.data).credits_wagered)
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

    def on_game_started(self, credits: int) -> None:
        if self.wager is not None:
            # The last game's 7F never reached us (an answer that came after the host stopped waiting, from
            # a machine silent when idle, is acknowledged unread by the next poll): its wager is known, its
            # win is not, so it is not posted; the meters carry its play, and the loss is said, not silent.
            log.warning(
                "%s: game started before the last one ended (its 7F was lost on the line); "
                "the meters will carry the last one",
                self.config.code,
            )
        self.set_wager(credits)

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

    def on_handpay(self, info: f.HandpayInfo) -> None:
        self.in_handpay = True
        self.emit(
            "status", status="handpay_lockup", amount=info.amount, sas_level=info.level, group=info.group
        )
