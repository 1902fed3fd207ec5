"""Store and forward: every event is numbered and kept on disk until the server has it.

SQLite in WAL mode with synchronous=FULL: an event the gateway captured survives a kill or a power
cut, and its seq (per machine, never reused) is written in the same transaction as the event, so a
retry after a crash sends the same seq and the server's dedupe makes it count once.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS machine_seq (machine TEXT PRIMARY KEY, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS open_game (machine TEXT PRIMARY KEY, credits INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS wins_due (machine TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS kept_answer (machine TEXT NOT NULL, kind TEXT NOT NULL, answer BLOB NOT NULL,
                                        PRIMARY KEY (machine, kind));
CREATE TABLE IF NOT EXISTS run (id INTEGER PRIMARY KEY CHECK (id = 1), stopped_cleanly INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS last_meters (machine TEXT PRIMARY KEY, meters TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS award (award INTEGER PRIMARY KEY, machine TEXT NOT NULL, amount INTEGER NOT NULL,
                                  credits INTEGER NOT NULL, state TEXT NOT NULL, before INTEGER,
                                  status TEXT, paid INTEGER, answered INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS provisional (machine TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS rejected (id INTEGER PRIMARY KEY, body TEXT NOT NULL, error TEXT NOT NULL,
                                     detail TEXT NOT NULL);
"""


class EventStore:
    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)
        self.lock = threading.Lock()  # one connection shared by the line threads and the forwarder
        self.arrived = threading.Event()  # set by every put: the forwarder sends at once, not next round

    def put(self, machine: str, event: dict[str, Any], kept: tuple[str, bytes] | None = None) -> int:
        """Number the event with the machine's next seq and keep it; returns the seq."""
        return self.put_all(machine, [event], kept)[0]

    def put_all(
        self, machine: str, events: list[dict[str, Any]], kept: tuple[str, bytes] | None = None
    ) -> list[int]:
        """Number and keep the events in one transaction, with `kept`: the SAS answer (kind, bytes) they
        come from (gateway/host_polls.py HostPolls.on_exception says why)."""
        with self._kept_with(machine, kept):
            row = self.db.execute("SELECT seq FROM machine_seq WHERE machine = ?", (machine,)).fetchone()
            last = row[0] if row else 0
            if row is None:  # numbered from 1 by this store only: the server may know later seqs
                self.db.execute("INSERT OR IGNORE INTO provisional (machine) VALUES (?)", (machine,))
            seqs = list(range(last + 1, last + 1 + len(events)))
            self.db.execute(
                "INSERT INTO machine_seq (machine, seq) VALUES (?, ?) "
                "ON CONFLICT (machine) DO UPDATE SET seq = excluded.seq",
                (machine, last + len(events)),
            )
            for event in events:  # where the next read's deltas count from (games without 7E/7F)
                if event.get("type") == "meters":
                    self.db.execute(
                        "INSERT INTO last_meters (machine, meters) VALUES (?, ?) "
                        "ON CONFLICT (machine) DO UPDATE SET meters = excluded.meters",
                        (machine, json.dumps(event["meters"])),
                    )
            self.db.executemany(
                "INSERT INTO outbox (body) VALUES (?)",
                [
                    (json.dumps({**event, "machine": machine, "seq": seq}, separators=(",", ":")),)
                    for event, seq in zip(events, seqs, strict=True)
                ],
            )
        self.arrived.set()
        return seqs

    def open_game_set(self, machine: str, credits: int | None, kept: tuple[str, bytes] | None = None) -> None:
        """The wager of the game a machine started (7E) and has not ended (7F) yet, kept on disk: a
        gateway killed between the two would otherwise lose the game when its 7F comes to the next one."""
        with self._kept_with(machine, kept):
            if credits is None:
                self.db.execute("DELETE FROM open_game WHERE machine = ?", (machine,))
            else:
                self.db.execute(
                    "INSERT INTO open_game (machine, credits) VALUES (?, ?) "
                    "ON CONFLICT (machine) DO UPDATE SET credits = excluded.credits",
                    (machine, credits),
                )

    def wins_due_set(self, machine: str, due: bool, kept: tuple[str, bytes] | None = None) -> None:
        """Whether the machine holds progressive wins not read yet: set with the 56 that told of them
        (before its ACK), cleared once a read found them all. A process that dies in between reads them
        at its start: no 56 is left on the machine to ask for them."""
        with self._kept_with(machine, kept):
            if due:
                self.db.execute("INSERT OR IGNORE INTO wins_due (machine) VALUES (?)", (machine,))
            else:
                self.db.execute("DELETE FROM wins_due WHERE machine = ?", (machine,))

    def wins_due(self, machine: str) -> bool:
        with self.lock:
            return (
                self.db.execute("SELECT 1 FROM wins_due WHERE machine = ?", (machine,)).fetchone() is not None
            )

    @contextmanager
    def _kept_with(self, machine: str, kept: tuple[str, bytes] | None) -> Iterator[None]:
        """One transaction: the writes of the block and the answer they come from."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self._keep_answer(machine, kept)
                yield
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def _keep_answer(self, machine: str, kept: tuple[str, bytes] | None) -> None:
        if kept is not None:
            self.db.execute(
                "INSERT INTO kept_answer (machine, kind, answer) VALUES (?, ?, ?) "
                "ON CONFLICT (machine, kind) DO UPDATE SET answer = excluded.answer",
                (machine, *kept),
            )

    def kept(self, machine: str) -> dict[str, bytes]:
        """The last answer of each kind whose handling was kept and may not have been acknowledged."""
        with self.lock:
            rows = self.db.execute(
                "SELECT kind, answer FROM kept_answer WHERE machine = ?", (machine,)
            ).fetchall()
        return {kind: bytes(answer) for kind, answer in rows}

    def settled(self, machine: str, kind: str) -> None:
        with self.lock:
            self.db.execute("DELETE FROM kept_answer WHERE machine = ? AND kind = ?", (machine, kind))

    def last_meters(self, machine: str) -> dict[str, int] | None:
        with self.lock:
            row = self.db.execute("SELECT meters FROM last_meters WHERE machine = ?", (machine,)).fetchone()
        return json.loads(row[0]) if row else None

    def open_game(self, machine: str) -> int | None:
        with self.lock:
            row = self.db.execute("SELECT credits FROM open_game WHERE machine = ?", (machine,)).fetchone()
        return row[0] if row else None

    # --- mystery awards (gateway/host_awards.py): kept from their arrival to the server's answer

    def award_add(self, machine: str, award: dict[str, Any]) -> bool:
        """Keep an award the server asked for; False when it was already kept (a re-sent award)."""
        with self.lock:
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO award (award, machine, amount, credits, state, status, paid) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    award["award"],
                    machine,
                    *(award.get(k) for k in ("amount", "credits", "state", "status", "paid")),
                ),
            )
        return cursor.rowcount == 1

    def award_save(self, machine: str, award: dict[str, Any], kept: tuple[str, bytes] | None = None) -> None:
        """An award's new state (and its outcome once `done`), with the SAS answer it comes from."""
        with self._kept_with(machine, kept):
            self.db.execute(
                "UPDATE award SET state = ?, before = ?, status = ?, paid = ? WHERE award = ?",
                (award["state"], award.get("before"), award.get("status"), award.get("paid"), award["award"]),
            )

    def awards_open(self, machine: str) -> list[dict[str, Any]]:
        """The machine's awards without an outcome yet, oldest first."""
        with self.lock:
            rows = self.db.execute(
                "SELECT award, amount, credits, state, before FROM award "
                "WHERE machine = ? AND state != 'done' ORDER BY award",
                (machine,),
            ).fetchall()
        keys = ("award", "amount", "credits", "state", "before")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def award_results(self, award: int | None = None) -> list[dict[str, Any]]:
        """Outcomes to tell the server: of `award` if it has one, else every one the server has not
        acknowledged yet."""
        where, args = ("award = ?", (award,)) if award is not None else ("answered = 0", ())
        with self.lock:
            rows = self.db.execute(
                f"SELECT award, machine, amount, status, paid FROM award WHERE state = 'done' AND {where} "
                "ORDER BY award",
                args,
            ).fetchall()
        keys = ("award", "machine", "amount", "status", "paid")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def award_answered(self, award: int) -> None:
        """The server recorded the award's result: it is no longer sent (the row stays, so an award
        the server sends again is recognised and never paid twice)."""
        with self.lock:
            self.db.execute("UPDATE award SET answered = 1 WHERE award = ? AND state = 'done'", (award,))

    # --- seq numbers the server may already hold (a store lost or wiped, a machine moved) ------------

    def provisional(self) -> set[str]:
        """Machines whose seqs this store began from 1 (or that met a seq_conflict): their events wait
        to be numbered after the server's last seq (`renumber`) before they are posted."""
        with self.lock:
            return {row[0] for row in self.db.execute("SELECT machine FROM provisional")}

    def provisional_set(self, machine: str) -> None:
        with self.lock:
            self.db.execute("INSERT OR IGNORE INTO provisional (machine) VALUES (?)", (machine,))

    def renumber(self, machine: str, server_last: int | None) -> None:
        """Number the machine's waiting events after `server_last`, the last seq the server stored for
        it, in their order, and go on from there; None (the server does not know the machine): keep
        the store's numbers. Only events never accepted are waiting, so no seq the server holds moves."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            if server_last is not None:
                mine = self.db.execute(
                    "SELECT id FROM outbox WHERE json_extract(body, '$.machine') = ? ORDER BY id", (machine,)
                ).fetchall()
                self.db.executemany(
                    "UPDATE outbox SET body = json_set(body, '$.seq', ?) WHERE id = ?",
                    [(seq, row_id) for seq, (row_id,) in enumerate(mine, start=server_last + 1)],
                )
                self.db.execute(
                    "INSERT INTO machine_seq (machine, seq) VALUES (?, ?) "
                    "ON CONFLICT (machine) DO UPDATE SET seq = excluded.seq",
                    (machine, server_last + len(mine)),
                )
            self.db.execute("DELETE FROM provisional WHERE machine = ?", (machine,))
            self.db.execute("COMMIT")

    def oldest(self, limit: int) -> list[tuple[int, dict[str, Any]]]:
        with self.lock:
            rows = self.db.execute("SELECT id, body FROM outbox ORDER BY id LIMIT ?", (limit,)).fetchall()
        return [(row_id, json.loads(body)) for row_id, body in rows]

    def done(self, ids: list[int], rejected: dict[int, tuple[str, str]]) -> None:
        """Drop delivered events; keep the ones the server rejected, with why, for a person to see."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            for row_id, (error, detail) in rejected.items():
                self.db.execute(
                    "INSERT OR REPLACE INTO rejected (id, body, error, detail) "
                    "SELECT id, body, ?, ? FROM outbox WHERE id = ?",
                    (error, detail, row_id),
                )
            self.db.executemany("DELETE FROM outbox WHERE id = ?", [(i,) for i in ids])
            self.db.execute("COMMIT")

    def run_started(self) -> bool:
        """Mark a gateway process running on this store; False when the previous one did not stop cleanly."""
        with self.lock:
            row = self.db.execute("SELECT stopped_cleanly FROM run WHERE id = 1").fetchone()
            self.db.execute(
                "INSERT INTO run (id, stopped_cleanly) VALUES (1, 0) "
                "ON CONFLICT (id) DO UPDATE SET stopped_cleanly = 0"
            )
        return row is None or bool(row[0])

    def run_stopped(self) -> None:
        with self.lock:
            self.db.execute("UPDATE run SET stopped_cleanly = 1 WHERE id = 1")

    def backlog(self) -> int:
        with self.lock:
            count: int = self.db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0]
        return count

    def rejected(self) -> list[tuple[dict[str, Any], str]]:
        with self.lock:
            rows = self.db.execute("SELECT body, error FROM rejected ORDER BY id").fetchall()
        return [(json.loads(body), error) for body, error in rows]

    def close(self) -> None:
        self.db.close()
