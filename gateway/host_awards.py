"""Legacy bonus awards (the server's mystery awards paid by LP 8A, each exactly once) and the server's
remote handpay reset (LP 94), as a machine host carries them out.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from gateway.host_io import Kept
from gateway.host_polls import HostPolls, log
from gateway.link import Poll
from gateway.sas import frames as f
from gateway.sas.frames import ExceptionReport


class HostAwards(HostPolls):
    """Paying the server's awards by LP 8A, each once, and resetting handpays by LP 94."""

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
