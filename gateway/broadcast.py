"""Progressive amounts from the server to the machines, and commands from the server to the gateway.

The server pushes level amounts over a websocket (expected route in gateway/README.md, modelled on the
signage protocol). Each line broadcasts its groups' current amounts by LP 86 (or LP 80 per level) every
`every` seconds, well inside the machines' 5 s rule, and a changed amount or a hit on its next turn: the
board wakes the lines that wait, so a machine's display follows the server within milliseconds. When the
server has said nothing for `fresh_for` seconds the board goes stale and the lines stop broadcasting: the
machines then raise exception 53 and disable progressive play, which is what a progressive must do when
its controller is gone.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from gateway.sas import frames as f

log = logging.getLogger(__name__)


def eur_to_cents(text: str) -> int:
    cents = Decimal(text) * 100
    if cents != cents.to_integral_value():
        raise ValueError(f"{text} is not a whole number of cents")
    return int(cents)


# How long the server may say nothing before the board goes stale (the lines stop broadcasting; a machine
# raises exception 53 five seconds later). Well above the server's heartbeat.
FRESH_FOR_SECONDS = 12.0


class ProgressiveBoard:
    """Current amount of every SAS (group, level) this gateway drives, keyed from server level ids."""

    def __init__(self, mapping: dict[int, tuple[int, int]], fresh_for: float = FRESH_FOR_SECONDS) -> None:
        self.mapping = mapping  # server level id -> (SAS group, SAS level)
        self.fresh_for = fresh_for
        self.amounts: dict[tuple[int, int], int] = {}
        self.resets: dict[tuple[int, int], int] = {}
        self.by_id: dict[int, int] = {}  # every amount heard, mapped or not: a new map needs no snapshot
        self.seqs: dict[int, int] = {}  # the server's value sequence of each level's last amount
        self.heard = float("-inf")
        self.hits = 0  # bumped on every hit: each line broadcasts at once when it sees a new value
        self.changes = 0  # bumped when a broadcast amount changes: lines send it without waiting a period
        self.lock = threading.Lock()
        self.news = threading.Condition(self.lock)  # notified with every bump of `hits` or `changes`

    def heard_from_server(self, now: float | None = None) -> None:
        self.heard = time.monotonic() if now is None else now

    def set_mapping(self, mapping: dict[int, tuple[int, int]], resets: dict[tuple[int, int], int]) -> None:
        """A new machine map from the server: the amounts already heard move to their new places."""
        with self.lock:
            self.mapping = dict(mapping)
            self.resets = {**self.resets, **resets}
            self.amounts = {key: self.by_id[lid] for lid, key in mapping.items() if lid in self.by_id}

    def set_level(self, level_id: int, amount: int, reset: int | None = None, seq: int | None = None) -> None:
        with self.lock:
            self.by_id[level_id] = amount
            if seq is not None:
                self.seqs[level_id] = seq
            key = self.mapping.get(level_id)
            if key is None:
                return
            if self.amounts.get(key) != amount:
                self.changes += 1
                self.news.notify_all()
            self.amounts[key] = amount
            if reset is not None:
                self.resets[key] = reset

    def level_off(self, level_id: int, seq: int | None = None) -> None:
        """The server took the level out of play (suspended or retired): it leaves the broadcast, so its
        machines disable it by SAS's 5 s rule, until an amount for it comes again (resumed)."""
        with self.lock:
            if seq is not None:
                self.seqs[level_id] = seq
            self.by_id.pop(level_id, None)
            key = self.mapping.get(level_id)
            if key is not None and self.amounts.pop(key, None) is not None:
                self.changes += 1
                self.news.notify_all()

    def levels_keep(self, level_ids: set[int]) -> None:
        """A snapshot is the whole truth: a level it no longer names (retired while the gateway was away)
        leaves the broadcast."""
        with self.lock:
            gone = [level_id for level_id in self.by_id if level_id not in level_ids]
        for level_id in gone:
            self.level_off(level_id)

    def hit_reported(self, level_id: int, amount: int, reset: int, seq: int | None = None) -> None:
        """The server says the level hit for `amount`: show its reset, unless the server's amount after
        the hit already arrived (an update can overtake the hit message). The hit's `seq` (the level's
        value sequence at the hit) tells; without one, an amount below the hit's is taken as after it."""
        with self.lock:
            known = self.seqs.get(level_id)
            if seq is not None and known is not None:
                if known > seq:
                    return
            elif self.by_id.get(level_id, amount) < amount:
                return
            self.by_id[level_id] = reset
            key = self.mapping.get(level_id)
            if key is not None:
                self.amounts[key] = reset
                self.changes += 1
                self.news.notify_all()

    def hit(self, group: int, level: int) -> None:
        """A machine hit this level: show its reset amount until the server sends the new one."""
        with self.lock:
            if (group, level) in self.resets:
                self.amounts[(group, level)] = self.resets[(group, level)]
            self.hits += 1
            self.news.notify_all()

    def wait_for_news(self, seen: tuple[int, int], timeout: float) -> None:
        """Returns once (hits, changes) differ from `seen`, or after `timeout` seconds."""
        with self.news:
            self.news.wait_for(lambda: (self.hits, self.changes) != seen, timeout)

    def group_amounts(self, group: int, now: float) -> dict[int, int] | None:
        """The group's levels, or None when stale: no broadcast at all is better than a frozen one."""
        if now - self.heard > self.fresh_for:
            return None
        with self.lock:
            levels = {lvl: amt for (grp, lvl), amt in self.amounts.items() if grp == group}
        return levels or None


class GroupBroadcaster:
    """One line's broadcasts: the groups of its machines, each by LP 86 or by LP 80 per level."""

    def __init__(self, board: ProgressiveBoard, groups: dict[int, int], every: float = 1.0) -> None:
        self.board = board
        self.groups = groups  # group -> 0x86 or 0x80
        self.every = every
        self.next_due = 0.0
        self.hits_seen = 0
        self.changes_seen = 0

    def frames_due(self, now: float) -> list[bytes]:
        """The periodic refresh when due; a changed amount or a hit at once. The line asks once per turn,
        before its due poll, so however busy the server a poll waits for at most one broadcast."""
        hits, changes = self.board.hits, self.board.changes
        if (hits, changes) == (self.hits_seen, self.changes_seen) and now < self.next_due:
            return []
        self.hits_seen, self.changes_seen = hits, changes
        frames = []
        for group, lp in self.groups.items():
            levels = self.board.group_amounts(group, now)
            if levels is None:
                continue
            if lp == f.LP_MULTI_BROADCAST:
                frames.append(f.multi_broadcast(group, levels))
            else:
                frames.extend(f.single_broadcast(group, lvl, amt) for lvl, amt in sorted(levels.items()))
        if frames:  # while stale, look again at every step: fresh amounts go out at once
            self.next_due = now + self.every
        return frames

    def wait(self, timeout: float) -> None:
        """The line's idle wait: over after `timeout` s, or as soon as an amount changes or a hit comes."""
        if not self.groups:  # nothing of ours to broadcast: a change is no reason to wake
            time.sleep(timeout)
            return
        self.board.wait_for_news((self.hits_seen, self.changes_seen), timeout)


class ServerChannel:
    """The websocket to the server: amounts in, commands in, award results out. Reconnects forever."""

    def __init__(
        self,
        url: str,
        board: ProgressiveBoard,
        on_command: Callable[[dict[str, Any]], None],
        on_connect: Callable[[], None] | None = None,
    ) -> None:
        self.url = url
        self.board = board
        self.on_command = on_command
        self.on_connect = on_connect  # e.g. fetch the machine map again: it may have changed meanwhile
        self.stop = threading.Event()
        self.outbox: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        with self.lock:
            self.outbox.append(message)

    def handle(self, message: dict[str, Any]) -> None:
        self.board.heard_from_server()
        kind = message.get("type")
        if kind == "snapshot":
            named = set()
            for jackpot in message.get("jackpots", []):
                for level in jackpot.get("levels", []):
                    named.add(level["id"])
                    if not self._in_play(level):
                        continue
                    reset = eur_to_cents(level["reset_eur"]) if "reset_eur" in level else None
                    amount = eur_to_cents(level["amount_eur"])
                    self.board.set_level(level["id"], amount, reset, level.get("seq"))
            self.board.levels_keep(named)
        elif kind == "update":
            for level in message.get("levels", []):
                if self._in_play(level):
                    self.board.set_level(level["id"], eur_to_cents(level["amount_eur"]), seq=level.get("seq"))
        elif kind == "hit":
            amount, reset = eur_to_cents(message["amount_eur"]), eur_to_cents(message["reset_eur"])
            self.board.hit_reported(message["level"], amount, reset, message.get("seq"))
        elif kind in ("award", "handpay_reset"):
            self.on_command(message)

    def _in_play(self, level: dict[str, Any]) -> bool:
        """Whether a level the server sent is broadcast; a suspended or retired one is taken off."""
        if level.get("state", "active") == "active":
            return True
        self.board.level_off(level["id"], level.get("seq"))
        return False

    def run(self) -> None:
        from websockets.sync.client import connect

        while not self.stop.is_set():
            try:
                with connect(self.url, open_timeout=5) as ws:
                    log.info("server channel up")
                    if self.on_connect is not None:
                        self.on_connect()
                    self._pump(ws)
            except Exception as exc:  # any failure: wait and reconnect; the board goes stale meanwhile
                log.warning("server channel down: %s", exc)
                self.stop.wait(2.0)

    def _pump(self, ws: Any) -> None:
        while not self.stop.is_set():
            while self.outbox:
                ws.send(json.dumps(self.outbox[0]))
                with self.lock:
                    self.outbox.pop(0)  # only once sent: a dropped connection keeps it for the next one
            try:
                raw = ws.recv(timeout=0.2)
            except TimeoutError:
                continue
            self.handle(json.loads(raw))
