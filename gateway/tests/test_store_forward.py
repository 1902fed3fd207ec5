"""Store and forward: every event reaches the server exactly once and in order, whatever happens."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gateway.forward import Forwarder
from gateway.queue import EventStore
from gateway.tests.fake_server import FakeEventsServer
from gateway.tests.helpers import wait_for

ROOT = Path(__file__).resolve().parents[2]


def game(n: int) -> dict:
    return {"at": "2026-11-21T18:03:05.120Z", "type": "game", "wager": 100 + n, "win": 0}


def fill(
    path: str, count: int, machines: tuple[str, ...] = ("NOG-0101", "NOG-0102")
) -> list[tuple[str, int]]:
    store = EventStore(path)
    keys = []
    for n in range(count):
        machine = machines[n % len(machines)]
        keys.append((machine, store.put(machine, game(n))))
    store.close()
    return keys


@pytest.fixture
def server():
    srv = FakeEventsServer()
    yield srv
    srv.close()


def stored_keys(server: FakeEventsServer) -> list[tuple[str, int]]:
    return [(e["machine"], e["seq"]) for e in server.stored]


def test_seq_is_per_machine_and_survives_reopening(store_path):
    path = store_path
    assert fill(path, 4) == [("NOG-0101", 1), ("NOG-0102", 1), ("NOG-0101", 2), ("NOG-0102", 2)]
    store = EventStore(path)
    assert store.put("NOG-0101", game(9)) == 3  # never reused, even after the rows are gone
    store.done([row_id for row_id, _ in store.oldest(10)], {})
    assert store.put("NOG-0101", game(10)) == 4
    store.close()


def test_server_down_then_up_delivers_everything_in_order(store_path):
    path = store_path
    keys = fill(path, 2500)
    probe = FakeEventsServer()
    port = probe.port
    probe.close()  # nothing listens on this port now: the server is down
    store = EventStore(path)
    forwarder = Forwarder(store, f"http://127.0.0.1:{port}", "gw-key", batch=1000, timeout=2)
    assert forwarder.send_once() == 0
    assert store.backlog() == 2500
    assert not forwarder.reachable

    server = FakeEventsServer(port=port)  # back on the same address
    try:
        while forwarder.send_once():
            pass
        assert stored_keys(server) == keys
        assert server.requests == 3  # batches of at most 1000
        assert server.duplicates == 0
        assert store.backlog() == 0
    finally:
        forwarder.close()
        store.close()
        server.close()


def test_run_loop_keeps_retrying_until_the_server_answers(store_path):
    path = store_path
    keys = fill(path, 10)
    probe = FakeEventsServer()
    port = probe.port
    probe.close()
    store = EventStore(path)
    forwarder = Forwarder(store, f"http://127.0.0.1:{port}", "gw-key", timeout=1)
    thread = threading.Thread(target=forwarder.run, kwargs={"idle": 0.05, "max_backoff": 0.2}, daemon=True)
    thread.start()
    server = None
    try:
        wait_for(lambda: not forwarder.reachable, what="a failed attempt")
        server = FakeEventsServer(port=port)
        wait_for(lambda: store.backlog() == 0, what="the backlog to drain")
        assert stored_keys(server) == keys
    finally:
        forwarder.stop.set()
        thread.join(timeout=5)
        forwarder.close()
        store.close()
        if server:
            server.close()


def test_an_event_stored_while_the_forwarder_idles_is_sent_at_once_not_at_its_next_round(store_path, server):
    store = EventStore(store_path)
    forwarder = Forwarder(store, server.url, "gw-key")
    thread = threading.Thread(target=forwarder.run, kwargs={"idle": 30.0}, daemon=True)
    thread.start()
    try:
        time.sleep(0.3)  # the forwarder found nothing to send and waits
        seq = store.put("NOG-0101", game(1))
        wait_for(lambda: store.backlog() == 0, timeout=5.0, what="the event to be sent")  # not in 30 s
        assert stored_keys(server) == [("NOG-0101", seq)]
    finally:
        forwarder.stop.set()
        store.arrived.set()  # wakes its idle wait
        thread.join(timeout=5)
        forwarder.close()
        store.close()


FORWARD_CHILD = """
import sys
from gateway.forward import Forwarder
from gateway.queue import EventStore
Forwarder(EventStore(sys.argv[1]), sys.argv[2], "gw-key", batch=10).run(idle=0.05)
"""


def test_gateway_killed_mid_forward_delivers_each_event_once_in_order(store_path, server):
    path = store_path
    keys = fill(path, 30)
    server.hold.set()  # the first batch is stored, its answer never reaches the gateway
    child = subprocess.Popen([sys.executable, "-c", FORWARD_CHILD, path, server.url], cwd=ROOT)
    try:
        assert server.stored_batch.wait(15)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=5)
    finally:
        if child.poll() is None:
            child.kill()
    server.hold.clear()
    assert stored_keys(server) == keys[:10]

    store = EventStore(path)  # the gateway starts again from its file
    assert store.backlog() == 30
    forwarder = Forwarder(store, server.url, "gw-key", batch=10)
    try:
        while forwarder.send_once():
            pass
    finally:
        forwarder.close()
    assert stored_keys(server) == keys
    assert server.duplicates == 10  # the lost answer's batch came back as duplicates, counted once
    assert store.backlog() == 0
    store.close()


def test_rejected_events_are_kept_aside_and_not_sent_again(store_path, server):
    path = store_path
    keys = fill(path, 3, machines=("NOG-0101",))
    server.reject_seqs = {("NOG-0101", 2)}
    store = EventStore(path)
    forwarder = Forwarder(store, server.url, "gw-key")
    try:
        assert forwarder.send_once() == 3
        assert forwarder.send_once() == 0
    finally:
        forwarder.close()
    assert stored_keys(server) == [keys[0], keys[2]]
    assert [(e["seq"], error) for e, error in store.rejected()] == [(2, "invalid_wager")]
    assert server.requests == 1
    store.close()


def test_a_wrong_key_keeps_every_event(store_path, server):
    path = store_path
    fill(path, 5)
    store = EventStore(path)
    forwarder = Forwarder(store, server.url, "not-the-key")
    try:
        assert forwarder.send_once() == 0
    finally:
        forwarder.close()
    assert store.backlog() == 5
    assert server.stored == []
    store.close()


def test_a_gateway_killed_between_game_start_and_end_still_reports_the_game(store_path):
    """The 7E's wager is kept on disk: the 7F that reaches the next gateway process ends that game."""
    from gateway.egm.config import EgmConfig
    from gateway.egm.machine import Egm
    from gateway.host import MachineHost
    from gateway.host_io import MachineConfig
    from gateway.link import Link
    from gateway.queue import EventStore
    from gateway.tests.helpers import Wire, store_callbacks

    egm = Egm(EgmConfig(address=3, denomination=20, spin=0.0))
    egm.rte = True
    wire, config = Wire(egm), MachineConfig("VEN-0007", 3, 20)
    link = Link(wire, 0.01, 0.01)
    egm.play(7)
    first = EventStore(store_path)
    host = MachineHost(config, store_callbacks(first))
    host.start_session()  # a link-up: the session start keeps an open game (only a power-up ends it)
    host.pending.clear()
    poll = host.general_poll()
    answered, report = link.exchange(poll)
    assert answered and report.code == 0x7E
    poll.handle(report)
    first.close()  # the process dies here, before the ACK: the machine still holds its 7E, then its 7F

    second = EventStore(store_path)
    host = MachineHost(config, store_callbacks(second))
    host.start_session()
    host.pending.clear()
    assert host.wager == 7
    codes = []
    while not codes or codes[-1]:
        poll = host.general_poll()
        answered, report = link.exchange(poll)
        assert answered
        codes.append(report.code)
        poll.handle(report)
        link.handled(poll, report)
    assert codes == [0x7E, 0x7F, 0x00]  # the 7E again (the kept one: not a new game), then its end
    ((_, game),) = second.oldest(10)
    assert (game["type"], game["wager"], game["win"]) == ("game", 140, egm.games[0][1] * 20)
    assert second.open_game("VEN-0007") is None
    assert second.kept("VEN-0007") == {}  # settled by the machine's "nothing" after the ACK
    second.close()


def status(n: int) -> dict:
    return {"at": f"2026-11-21T18:{n // 60:02d}:{n % 60:02d}.000Z", "type": "status", "status": "tilt"}


def deliver(path: str, server: FakeEventsServer, count: int, machines=("NOG-0101", "NOG-0102")) -> None:
    """A gateway run: `count` events captured in the store at `path`, all sent."""
    store = EventStore(path)
    for n in range(count):
        store.put(machines[n % len(machines)], status(len(server.stored) + n))
    forwarder = Forwarder(store, server.url, "gw-key")
    try:
        while forwarder.send_once():
            pass
    finally:
        forwarder.close()
    assert store.backlog() == 0
    assert store.rejected() == []
    store.close()


def wipe(path: str) -> None:
    """The store's disk lost (or the file moved aside): the next run starts from an empty store."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


SAS_MAP = {"machines": [{"code": "NOG-0101"}, {"code": "NOG-0102"}], "groups": []}


def test_a_gateway_with_an_empty_store_numbers_after_the_servers_last_seq(store_path, server):
    # Issue 21, finding 4: an empty store numbered every machine from seq 1 again; the server refused
    # each as seq_conflict and the gateway dropped them (76 events in 60 s in the demo).
    server.gateway_map = SAS_MAP
    deliver(store_path, server, 152)
    assert (server.last_seq("NOG-0101"), server.last_seq("NOG-0102")) == (76, 76)
    wipe(store_path)
    deliver(store_path, server, 10)
    assert server.conflicts == 0
    assert len(server.stored) == 162
    assert [e["seq"] for e in server.stored[152:] if e["machine"] == "NOG-0101"] == [77, 78, 79, 80, 81]
    assert [e["seq"] for e in server.stored[152:] if e["machine"] == "NOG-0102"] == [77, 78, 79, 80, 81]
    store = EventStore(store_path)  # and the store goes on from there
    assert store.put("NOG-0101", status(999)) == 82
    assert store.provisional() == set()
    store.close()


def test_a_seq_conflict_keeps_the_events_and_numbers_them_after_the_servers_last(store_path, server):
    # The server's map was not there when the empty store first posted: the events went out numbered
    # from 1 and met seq_conflict. They are kept, not dropped, and sent again after the server's seqs.
    server.gateway_map = SAS_MAP
    deliver(store_path, server, 6, machines=("NOG-0101",))
    wipe(store_path)
    server.gateway_map = None
    store = EventStore(store_path)
    for n in range(4):
        store.put("NOG-0101", status(100 + n))
    forwarder = Forwarder(store, server.url, "gw-key")
    try:
        assert forwarder.send_once() == 0  # seqs 1-4: all conflicts, all kept
        assert (server.conflicts, store.backlog(), store.rejected()) == (4, 4, [])
        assert store.provisional() == {"NOG-0101"}
        server.gateway_map = SAS_MAP
        assert forwarder.send_once() == 4
    finally:
        forwarder.close()
    assert [e["seq"] for e in server.stored] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert [e["at"] for e in server.stored[6:]] == [status(100 + n)["at"] for n in range(4)]
    assert store.backlog() == 0
    store.close()


def test_a_machines_first_event_arriving_while_another_is_numbered_again_is_numbered_too(store_path, server):
    # Seen end to end: the batch read again after NOG-0101 was numbered held NOG-0102's first event,
    # still numbered from 1, and the server refused it as seq_conflict.
    server.gateway_map = SAS_MAP
    deliver(store_path, server, 8)
    wipe(store_path)
    store = EventStore(store_path)
    store.put("NOG-0101", status(50))
    renumber = store.renumber

    def renumber_while_a_line_captures(machine: str, server_last: int | None) -> None:
        renumber(machine, server_last)
        if machine == "NOG-0101":
            store.put("NOG-0102", status(51))

    store.renumber = renumber_while_a_line_captures  # type: ignore[method-assign]
    forwarder = Forwarder(store, server.url, "gw-key")
    try:
        assert forwarder.send_once() == 2
    finally:
        forwarder.close()
    assert server.conflicts == 0
    assert [(e["machine"], e["seq"]) for e in server.stored[8:]] == [("NOG-0101", 5), ("NOG-0102", 5)]
    store.close()


FOUR_MAP = {"machines": [{"code": f"NOG-010{n}"} for n in range(1, 5)], "groups": []}


def test_machines_first_events_arriving_one_per_renumbering_are_all_numbered_before_the_post(
    store_path, server
):
    # Seen end to end under load (four machines after a lost store): each renumbering let one more
    # machine's first event in, and the batch read after the third went out with NOG-0104 still
    # numbered from 1 (a seq_conflict alert). The batch is checked again until no machine is provisional.
    server.gateway_map = FOUR_MAP
    deliver(store_path, server, 8, machines=tuple(m["code"] for m in FOUR_MAP["machines"]))
    wipe(store_path)
    store = EventStore(store_path)
    store.put("NOG-0101", status(50))
    renumber = store.renumber
    arriving = iter(["NOG-0102", "NOG-0103", "NOG-0104"])

    def renumber_while_the_next_machine_arrives(machine: str, server_last: int | None) -> None:
        renumber(machine, server_last)
        following = next(arriving, None)
        if following is not None:
            store.put(following, status(51))

    store.renumber = renumber_while_the_next_machine_arrives  # type: ignore[method-assign]
    forwarder = Forwarder(store, server.url, "gw-key")
    try:
        assert forwarder.send_once() == 4
    finally:
        forwarder.close()
    assert server.conflicts == 0
    assert [(e["machine"], e["seq"]) for e in server.stored[8:]] == [
        ("NOG-0101", 3),
        ("NOG-0102", 3),
        ("NOG-0103", 3),
        ("NOG-0104", 3),
    ]
    store.close()
