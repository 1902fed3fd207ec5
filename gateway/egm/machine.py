"""A SAS slot machine's state: meters, games, exceptions, progressives, handpays, legacy bonuses.

Driven by `tick(now)` for the passage of time and by `answer(frame, now)` for each host frame; it
answers only with frames built by gateway/sas/frames.py and gateway/sas/meters.py, the same bytes a real
machine would send. What it is (its configuration, its meters) is in gateway/egm/config.py.
"""

from __future__ import annotations

import random
import threading
from collections import deque
from dataclasses import dataclass

from gateway.egm.config import (
    ATTENDANT_PAID_PROG,
    COIN_IN,
    COIN_OUT,
    GAMES_PLAYED,
    GAMES_WON,
    JACKPOT,
    MACHINE_PAID_PROG,
    METERS,
    EgmConfig,
)
from gateway.sas import frames as f
from gateway.sas.meters import (
    decode_extended_meters_request,
    decode_selected_meters_request,
    extended_meters,
    selected_meters,
)

QUEUE_SIZE = 20  # SAS 6.02 §2.2.1: at least 20 exceptions, the oldest lost on overrun
NO_PROGRESSIVE_AFTER = 5.0  # §10: no broadcast for 5 s -> exception 53, progressive play disabled
HANDPAY_REPEAT = 15.0  # 51 is repeated every 15 s until the host reads LP 1B
# SAS 6.02 §3.1 (README S2): the same general poll again is the host's implied NACK, answered with the
# same bytes; its second repeat is the final NACK, left unanswered, and the exception stays first in the
# queue for the next poll.
FINAL_NACK = 2
LINK_DOWN_AFTER = 5.0  # no frame for 5 s: the link is down, an unacknowledged answer counts as NACKed
NOTHING = f.ExceptionReport(0)
OVERFLOW = f.ExceptionReport(0x70)


@dataclass
class HandpayPending:
    info: f.HandpayInfo
    kind: str  # "progressive" or "bonus"
    credits: int
    tax_status: int = 0  # of the legacy bonus paid at the reset
    read: bool = False
    last_raised: float | None = None  # set by the first tick after the handpay began


@dataclass
class Spin:
    """A game between its 7E and its 7F: the outcome is drawn at the press and shown when the reels stop."""

    bet: int  # credits
    win: int  # credits
    ends: float
    reported: bool  # its 7E was queued (real-time reporting on): only such a game can win a progressive


@dataclass
class Unacknowledged:
    """A general poll's answer that carried an exception, held until the host's implied ACK."""

    poll: bytes
    reply: bytes
    report: f.ExceptionReport  # the queue's entry itself: the ACK takes exactly this one off
    nacks: int = 0


class Egm:
    def __init__(self, config: EgmConfig, now: float = 0.0) -> None:
        self.config = config
        self.address = config.address
        self.rng = random.Random(config.seed)
        self.lock = threading.RLock()  # the line thread answers while tests press buttons
        self.meters = dict.fromkeys(METERS, 0)
        self.queue: deque[f.ExceptionReport] = deque()
        self.overflowed = False
        self.unacked: Unacknowledged | None = None
        self.last_frame = now
        self.now = now  # the last tick's time (a line ticks every 20 ms): the clock of a game on command
        self.rte = False
        self.powered = True
        self.door_open = False
        self.displayed: dict[int, int] = dict.fromkeys(config.levels, 0)  # level -> cents shown
        self.last_broadcast = now
        self.progressive_enabled = False  # until the first broadcast
        self.no_progressive_reported = False
        self.wins: deque[tuple[int, int]] = deque()  # SAS progressive wins not yet read by the host
        self.wins_sent: tuple[int, int] | None = None  # (85 or 87, how many wins it carried)
        self.handpay: HandpayPending | None = None
        self.last_bonus = f.LegacyBonusWin(0, 0, 0, 0)
        self.bonus_meters = [0, 0, 0]  # credits paid by LP 8A per tax status (LP 9A), at the payment
        self.bonus_tax = 0  # the tax status of the bonus being paid
        self.spinning: Spin | None = None
        self.next_game = now + self._game_gap()
        self.games: list[tuple[int, int]] = []  # (wager, win) credits of every game ended, for tests

    # --- exceptions ------------------------------------------------------------------------------

    def raise_exception(self, code: int, data: bytes = b"") -> None:
        with self.lock:
            if code in (0x7E, 0x7F) and not self.rte:
                return  # game start/end are real-time events only; 7C exists in both modes
            if len(self.queue) >= QUEUE_SIZE:
                self.queue.popleft()
                self.overflowed = True
            self.queue.append(f.ExceptionReport(code, data if self.rte else b""))

    def head_exception(self) -> f.ExceptionReport:
        """What the next general poll reports; it leaves the queue only when the host acknowledges it."""
        if self.overflowed:
            return OVERFLOW
        return self.queue[0] if self.queue else NOTHING

    def _exception_acknowledged(self) -> None:
        assert self.unacked is not None
        report, self.unacked = self.unacked.report, None
        if report is OVERFLOW:
            self.overflowed = False
        elif self.queue and self.queue[0] is report:  # an overrun may have dropped it meanwhile
            self.queue.popleft()

    def _exception_again(self) -> bytes | None:
        """The implied NACK: the same answer again, then (final NACK) silence; the exception stays first."""
        assert self.unacked is not None
        self.unacked.nacks += 1
        if self.unacked.nacks < FINAL_NACK:
            return self.unacked.reply
        self.unacked = None
        return None

    # --- time ---------------------------------------------------------------------------------------

    def _game_gap(self) -> float:
        """Start to start: the spin, then the player's pause, exponential with the rest of the mean (no
        pause when a spin is longer than the mean: the machine then plays slower than asked)."""
        rate, spin = self.config.games_per_minute, self.config.spin
        if rate <= 0:
            return float("inf")
        if not spin:
            return self.rng.expovariate(rate / 60.0)
        pause = 60.0 / rate - spin
        return spin + (self.rng.expovariate(1.0 / pause) if pause > 0 else 0.0)

    def tick(self, now: float) -> None:
        with self.lock:
            self.now = now
            if not self.powered:
                return  # the reels stopped with the power: a game spinning ends at power-up
            if now - self.last_frame > LINK_DOWN_AFTER:  # link down: an implied NACK of the last answer
                self.unacked = None  # the exception is reported again
                self.wins_sent = None  # the wins stay queued for the next LP 85/87
            self._check_progressive(now)
            hp = self.handpay
            if hp is not None:
                if hp.last_raised is None:
                    hp.last_raised = now
                elif not hp.read and now - hp.last_raised >= HANDPAY_REPEAT:
                    hp.last_raised = now
                    self.raise_exception(0x51)
            if self.spinning is not None and now >= self.spinning.ends:
                self._end_game()  # even in a handpay lockup begun mid-spin: only a new game waits
            if now >= self.next_game:
                self.next_game = now + self._game_gap()
                self.play()

    def _check_progressive(self, now: float) -> None:
        if not self.config.levels:
            return
        if not self.no_progressive_reported and now - self.last_broadcast > NO_PROGRESSIVE_AFTER:
            self.progressive_enabled = False
            self.no_progressive_reported = True
            self.raise_exception(0x53)

    # --- play ---------------------------------------------------------------------------------------

    def can_play(self) -> bool:
        return self.powered and self.handpay is None and self.spinning is None

    def play(self, bet: int | None = None) -> bool:
        """The press: the wager on coin in and 7E now; the outcome (win, 7F, maybe a progressive hit) when
        the spin ends, at once with `spin` 0. False when the machine cannot play: off, locked up, or a game
        still spinning."""
        with self.lock:
            if not self.can_play():
                return False
            if bet is None:
                bets, weights = zip(*self.config.bet_mix, strict=True)
                bet = self.rng.choices(bets, weights)[0]
            pays, weights = zip(*self.config.pays, strict=True)
            win = bet * self.rng.choices(pays, weights)[0]
            self.meters[COIN_IN] += bet
            self.meters[GAMES_PLAYED] += 1
            start = f.GameStarted(bet, self.meters[COIN_IN] % 10**8, 0, self.config.group)
            self.raise_exception(0x7E, f.game_started_data(start))
            self.spinning = Spin(bet, win, self.now + self.config.spin, self.rte)
            if not self.config.spin:
                self._end_game()
            return True

    def _end_game(self) -> None:
        """The reels stop: the win on the meters, 7F, then any progressive hit of this game."""
        game, self.spinning = self.spinning, None
        assert game is not None
        if game.win:
            self.meters[COIN_OUT] += game.win
            self.meters[GAMES_WON] += 1
        self.games.append((game.bet, game.win))
        self.raise_exception(0x7F, f.game_ended_data(game.win))
        # A random hit only on a game the host saw as one (its 7E and 7F queued, both before the 56): the
        # server accepts a machine's jackpot only after the game that won it. A game started before the
        # host turned real-time reporting on is seen only in the meters, which the host reads after the
        # hit. `hit()` still hits in any mode and at any time, for the host's tests.
        if (
            game.reported
            and self.rte
            and self.progressive_enabled
            and self.rng.random() < self.config.hit_chance
        ):
            levels = self.levels_won_by(game.bet)
            if levels:
                self.hit(self.rng.choice(levels))

    def levels_won_by(self, bet: int) -> list[int]:
        """The levels a game of `bet` credits can win."""
        config = self.config
        top = max(credits for credits, _ in config.bet_mix)
        return [
            level
            for level in config.levels
            if level not in config.mystery_levels
            and (bet >= top or level not in config.max_bet_levels)
            and bet * config.denomination >= config.min_wager.get(level, 0)
        ]

    def hit(self, level: int) -> bool:
        """A SAS progressive hit on `level` at the amount shown; paid by the machine or by hand."""
        with self.lock:
            if not self.progressive_enabled or level not in self.displayed:
                return False
            amount = self.displayed[level]
            self.wins.append((level, amount))
            credits = amount // self.config.denomination
            self.raise_exception(0x56)
            if amount > self.config.handpay_limit:
                self.enter_handpay(f.HandpayInfo(self.config.group, level, amount), "progressive", credits)
            else:
                self.meters[MACHINE_PAID_PROG] += credits
                self.raise_exception(0x54)
            return True

    def enter_handpay(self, info: f.HandpayInfo, kind: str, credits: int, tax_status: int = 0) -> None:
        self.handpay = HandpayPending(info, kind, credits, tax_status)
        self.raise_exception(0x51)

    def reset_handpay(self) -> bool:
        """The attendant's key, or LP 94: the win goes on the meters and play resumes."""
        with self.lock:
            hp = self.handpay
            if hp is None:
                return False
            self.meters[JACKPOT] += hp.credits
            if hp.kind == "progressive":
                self.meters[ATTENDANT_PAID_PROG] += hp.credits
            self.handpay = None
            self.raise_exception(0x52)
            if hp.kind == "bonus":
                self.bonus_tax = hp.tax_status
                self._bonus_paid(hp.credits)
            return True

    def _bonus_paid(self, credits: int) -> None:
        self.bonus_meters[self.bonus_tax] += credits
        self.last_bonus = f.LegacyBonusWin(0, 0, self.bonus_tax, credits)
        self.raise_exception(0x7C, f.legacy_bonus_win_data(self.last_bonus))

    def legacy_bonus(self, credits: int, tax_status: int = 0) -> None:
        with self.lock:
            if credits * self.config.denomination > self.config.handpay_limit:
                info = f.HandpayInfo(0, f.HANDPAY_NON_PROGRESSIVE, credits * self.config.denomination)
                self.enter_handpay(info, "bonus", credits, tax_status)
            else:
                self.meters[COIN_OUT] += credits  # credited to the player like any win
                self.bonus_tax = tax_status
                self._bonus_paid(credits)

    # --- doors and power -------------------------------------------------------------------------------

    def open_door(self) -> None:
        with self.lock:
            self.door_open = True
            self.raise_exception(0x11)

    def close_door(self) -> None:
        with self.lock:
            self.door_open = False
            self.raise_exception(0x12)

    def power_off(self) -> None:
        """Power lost: 18 goes to non-volatile memory and is reported once power is back."""
        with self.lock:
            self.raise_exception(0x18)
            self.powered = False

    def power_on(self, now: float) -> None:
        with self.lock:
            self.powered = True
            self.now = now
            self.unacked = None
            self.rte = False  # the reporting mode is the host's to set again
            self.raise_exception(0x17)
            if self.spinning is not None:
                # Game recovery: a game interrupted by the power loss ends at power-up with the outcome
                # drawn at its press. Real-time reporting is off by then, so no 7F: the host forgets an
                # open game on 17 and finds this one in the meters it reads at the session start.
                self._end_game()
            self.last_broadcast = now
            self.next_game = now + self._game_gap()

    # --- progressive broadcasts -----------------------------------------------------------------------

    def broadcast(self, group: int, levels: dict[int, int], now: float) -> None:
        if group != self.config.group or not self.config.levels:
            return
        with self.lock:
            for level, amount in levels.items():
                if level in self.displayed:
                    self.displayed[level] = amount
            self.last_broadcast = now
            self.progressive_enabled = True
            self.no_progressive_reported = False

    # --- the host's frames ---------------------------------------------------------------------------

    def answer(self, frame: bytes, now: float) -> bytes | None:
        """The bytes this machine sends back for one complete host frame; None: stay silent."""
        with self.lock:
            if not self.powered or not frame:
                return None
            self.last_frame = now
            if self.unacked is not None and frame == self.unacked.poll:
                return self._exception_again()
            if self.unacked is not None:
                self._exception_acknowledged()  # any other frame on the line is the implied ACK
            command = frame[1] if frame[0] == self.address and len(frame) > 1 else None
            if self.wins_sent is not None and command != self.wins_sent[0]:
                self._drop_sent_wins()  # SAS 6.02 §3.1: any other poll is the implied ack
            if frame[0] == f.GLOBAL_ADDRESS:
                self._global(frame, now)
                return None
            if frame[0] == self.address | f.GENERAL_POLL_FLAG and len(frame) == 1:
                return self._general_poll(frame)
            if command is None:
                return None
            if self.rte and self.config.rte_preempts and self.head_exception().code:
                return self._general_poll(frame)  # SAS 6.02 §12.3: the long poll is not carried out
            handler = self._HANDLERS.get(command)
            try:
                return handler(self, frame, now) if handler else None  # unsupported: ignored (§4.4)
            except f.FrameError:
                return None  # bad CRC or data: ignore, the host repeats the poll

    def _general_poll(self, frame: bytes) -> bytes | None:
        """The answer to a general poll, or to a long poll an event pre-empts (`frame` the poll)."""
        report = self.head_exception()
        if not report.code:
            return self._idle()
        if self.rte:
            reply = f.rte_exception(self.address, report.code, report.data)
        else:
            reply = f.exception_byte(report.code)
        self.unacked = Unacknowledged(frame, reply, report)
        return reply

    def _idle(self) -> bytes | None:
        if not self.rte or self.config.rte_idle == "00":
            return f.exception_byte(0)
        if self.config.rte_idle == "silent":
            return None
        return f.rte_exception(self.address, 0)

    def _global(self, frame: bytes, now: float) -> None:
        try:
            if len(frame) > 1 and frame[1] == f.LP_SINGLE_BROADCAST:
                self.broadcast(*f.decode_single_broadcast(frame), now)
            elif len(frame) > 1 and frame[1] == f.LP_MULTI_BROADCAST:
                self.broadcast(*f.decode_multi_broadcast(frame), now)
        except f.FrameError:
            pass  # a type G poll is never answered, not even with a NACK

    def _drop_sent_wins(self) -> None:
        assert self.wins_sent is not None
        for _ in range(self.wins_sent[1]):
            self.wins.popleft()
        self.wins_sent = None

    def _lp_enable_rte(self, frame: bytes, now: float) -> bytes:
        self.rte = f.decode_enable_rte(frame, self.address)
        return f.ack(self.address)

    def _lp_handpay_info(self, frame: bytes, now: float) -> bytes:
        hp = self.handpay
        if hp is None:
            return f.handpay_info(self.address, f.HandpayInfo(0, 0, 0))
        hp.read = True
        return f.handpay_info(self.address, hp.info)

    def _lp_selected_meters(self, frame: bytes, now: float) -> bytes | None:
        game, codes = decode_selected_meters_request(frame, self.address)
        if game != 0:
            return None  # a single-game machine ignores polls for other games
        meters = {c: self.meters[c] for c in codes if c in self.meters}
        return selected_meters(self.address, meters, size=self.config.meter_size)

    def _lp_extended_meters(self, frame: bytes, now: float) -> bytes | None:
        command = frame[1]
        game, codes = decode_extended_meters_request(frame, self.address, command)
        if game != 0:
            return None
        # A meter this machine does not keep is answered with size 0, as SAS asks, not left out.
        return extended_meters(self.address, {c: self.meters.get(c) for c in codes}, command=command)

    def _lp_broadcast(self, frame: bytes, now: float) -> bytes:
        decode = f.decode_single_broadcast if frame[1] == f.LP_SINGLE_BROADCAST else f.decode_multi_broadcast
        self.broadcast(*decode(frame, self.address), now)
        return f.ack(self.address)

    def _lp_sas_win(self, frame: bytes, now: float) -> bytes:
        level, amount = self.wins[0] if self.wins else (0, 0)
        self.wins_sent = (f.LP_SAS_PROGRESSIVE_WIN, 1 if self.wins else 0)
        return f.progressive_win(self.address, f.ProgressiveWin(self.config.group, level, amount))

    def _lp_sas_wins(self, frame: bytes, now: float) -> bytes:
        wins = list(self.wins)[:32]
        self.wins_sent = (f.LP_MULTI_PROGRESSIVE_WINS, len(wins))
        return f.multi_progressive_wins(self.address, f.ProgressiveWins(self.config.group, wins))

    def _lp_legacy_bonus(self, frame: bytes, now: float) -> bytes | None:
        credits, tax_status = f.decode_legacy_bonus(frame, self.address)
        if tax_status > 2:
            return None  # not a tax status SAS defines: the poll is ignored
        self.legacy_bonus(credits, tax_status)
        return f.ack(self.address)

    def _lp_legacy_bonus_win(self, frame: bytes, now: float) -> bytes:
        return f.legacy_bonus_win(self.address, self.last_bonus)

    def _lp_legacy_bonus_meters(self, frame: bytes, now: float) -> bytes | None:
        if f.decode_legacy_bonus_meters_request(frame, self.address) != 0:
            return None
        return f.legacy_bonus_meters(self.address, f.LegacyBonusMeters(0, *self.bonus_meters))

    def _lp_handpay_reset(self, frame: bytes, now: float) -> bytes:
        f.decode_handpay_reset(frame, self.address)
        code = f.HANDPAY_RESET_DONE if self.reset_handpay() else f.HANDPAY_RESET_NOT_IN_HANDPAY
        return f.handpay_reset_answer(self.address, code)

    _HANDLERS = {
        f.LP_ENABLE_RTE: _lp_enable_rte,
        f.LP_HANDPAY_INFO: _lp_handpay_info,
        f.LP_SELECTED_METERS: _lp_selected_meters,
        f.LP_EXTENDED_METERS: _lp_extended_meters,
        f.LP_EXTENDED_METERS_ALT: _lp_extended_meters,
        f.LP_SINGLE_BROADCAST: _lp_broadcast,
        f.LP_MULTI_BROADCAST: _lp_broadcast,
        f.LP_SAS_PROGRESSIVE_WIN: _lp_sas_win,
        f.LP_MULTI_PROGRESSIVE_WINS: _lp_sas_wins,
        f.LP_LEGACY_BONUS: _lp_legacy_bonus,
        f.LP_LEGACY_BONUS_WIN: _lp_legacy_bonus_win,
        f.LP_HANDPAY_RESET: _lp_handpay_reset,
        f.LP_LEGACY_BONUS_METERS: _lp_legacy_bonus_meters,
    }
