"""The progressive wins a machine reports (SAS 6.02 §10): read by LP 85 or 87 after its 56, each kept
once with its answer's key, who paid each (the machine's handpay state read just before), and the reset
broadcast at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from gateway.host_io import Kept
from gateway.host_polls import UNKNOWN, HostPolls, log
from gateway.link import Poll
from gateway.sas import frames as f

PROGRESSIVE_HANDPAY_LEVELS = range(0x01, 0x21)  # LP 1B level 01-20: a progressive level's handpay


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


class HostWins(HostPolls):
    """Reading and keeping the progressive wins a machine holds."""

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

    def on_handpay_peek(self, info: f.HandpayInfo) -> None:
        self.handpay_seen = info if info.level in PROGRESSIVE_HANDPAY_LEVELS else None

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
