"""The websocket to the server: amounts and commands in, award results out (expected server route)."""

from __future__ import annotations

import json
import threading
from typing import Any

from websockets.sync.server import serve

from gateway.broadcast import GroupBroadcaster, ProgressiveBoard, ServerChannel
from gateway.sas import frames as f
from gateway.tests.helpers import wait_for

SNAPSHOT = {
    "type": "snapshot",
    "jackpots": [
        {
            "id": 3,
            "levels": [
                {"id": 17, "amount_eur": "1523.41", "reset_eur": "1000.00", "seq": 1},
                {"id": 18, "amount_eur": "50.00", "reset_eur": "20.00", "seq": 1},
                {"id": 99, "amount_eur": "7.00", "reset_eur": "1.00", "seq": 1},
            ],
        },
    ],
}


def test_snapshot_updates_commands_and_results_over_a_real_websocket():
    received: list[dict[str, Any]] = []
    commands: list[dict[str, Any]] = []

    def handler(ws: Any) -> None:
        ws.send(json.dumps(SNAPSHOT))
        ws.send(json.dumps({"type": "update", "levels": [{"id": 18, "amount_eur": "50.07", "seq": 2}]}))
        ws.send(json.dumps({"type": "award", "award": 4, "machine": "NOG-0101", "amount": 2500}))
        for raw in ws:
            received.append(json.loads(raw))

    with serve(handler, "127.0.0.1", 0) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        port = server.socket.getsockname()[1]
        board = ProgressiveBoard({17: (1, 1), 18: (1, 2)}, fresh_for=10.0)
        channel = ServerChannel(f"ws://127.0.0.1:{port}/ws/gateway/?token=k", board, commands.append)
        thread = threading.Thread(target=channel.run, daemon=True)
        thread.start()
        try:
            wait_for(lambda: commands, what="the award command")
            assert board.group_amounts(1, board.heard) == {1: 152341, 2: 5007}
            assert board.resets == {(1, 1): 100000, (1, 2): 2000}
            assert commands == [{"type": "award", "award": 4, "machine": "NOG-0101", "amount": 2500}]
            channel.send({"type": "award_result", "award": 4, "status": "paid", "paid": 2500})
            wait_for(lambda: received, what="the award result at the server")
            assert received == [{"type": "award_result", "award": 4, "status": "paid", "paid": 2500}]
        finally:
            channel.stop.set()
            thread.join(timeout=5)
            server.shutdown()


def test_a_hit_message_shows_the_reset_unless_the_amount_after_the_hit_came_first():
    commands: list[dict[str, Any]] = []
    board = ProgressiveBoard({17: (1, 1)}, fresh_for=10.0)
    channel = ServerChannel("ws://unused", board, commands.append)
    channel.handle({"type": "update", "levels": [{"id": 17, "amount_eur": "1988.20", "seq": 5}]})
    hit = {"type": "hit", "level": 17, "amount_eur": "1988.20", "machine": "NOG-0101", "reset_eur": "1000.00"}
    channel.handle(hit)  # before the update after the hit: the reset is shown at once
    assert board.group_amounts(1, board.heard) == {1: 100000}
    channel.handle({"type": "update", "levels": [{"id": 17, "amount_eur": "1000.04", "seq": 7}]})
    channel.handle(hit)  # the same hit message arriving after that update changes nothing
    assert board.group_amounts(1, board.heard) == {1: 100004}
    assert commands == []


def test_a_hit_message_older_than_the_last_update_is_not_shown_even_below_its_amount():
    """A mystery hit drawn just above the reset: the amount after it can be above the hit's amount."""
    board = ProgressiveBoard({18: (1, 2)}, fresh_for=10.0)
    channel = ServerChannel("ws://unused", board, lambda message: None)
    channel.handle({"type": "update", "levels": [{"id": 18, "amount_eur": "100.02", "seq": 41}]})
    hit = {"type": "hit", "level": 18, "amount_eur": "100.01", "reset_eur": "100.00", "seq": 40}
    channel.handle(hit)
    assert board.group_amounts(1, board.heard) == {2: 10002}
    channel.handle({**hit, "seq": 41})  # a hit at the level's last known value: its reset is news
    assert board.group_amounts(1, board.heard) == {2: 10000}


def test_a_suspended_level_leaves_the_broadcast_frame_until_resumed():
    """The server's update says a level is suspended: the LP 86 frame no longer carries it, so the
    machines disable it by SAS's 5 s rule; an update saying active brings it back."""
    board = ProgressiveBoard({17: (1, 1), 18: (1, 2)}, fresh_for=10.0)
    channel = ServerChannel("ws://unused", board, lambda message: None)
    line = GroupBroadcaster(board, {1: f.LP_MULTI_BROADCAST}, every=1.0)
    channel.handle(SNAPSHOT)
    assert line.frames_due(board.heard) == [f.multi_broadcast(1, {1: 152341, 2: 5000})]
    channel.handle(
        {"type": "update", "levels": [{"id": 17, "amount_eur": "1523.41", "seq": 2, "state": "suspended"}]}
    )
    # At once (a change), not at the next period: the frame carries the other level only.
    assert line.frames_due(board.heard) == [f.multi_broadcast(1, {2: 5000})]
    channel.handle({"type": "update", "levels": [{"id": 18, "amount_eur": "50.01", "seq": 2}]})
    assert line.frames_due(board.heard) == [f.multi_broadcast(1, {2: 5001})]
    channel.handle(
        {"type": "update", "levels": [{"id": 17, "amount_eur": "1523.41", "seq": 3, "state": "active"}]}
    )
    assert line.frames_due(board.heard) == [f.multi_broadcast(1, {1: 152341, 2: 5001})]


def test_a_snapshot_takes_off_a_suspended_level_and_one_it_no_longer_names():
    board = ProgressiveBoard({17: (1, 1), 18: (1, 2)}, fresh_for=10.0)
    channel = ServerChannel("ws://unused", board, lambda message: None)
    channel.handle(SNAPSHOT)
    levels = [
        {"id": 17, "amount_eur": "1523.41", "reset_eur": "1000.00", "seq": 2, "state": "suspended"},
        {"id": 99, "amount_eur": "7.00", "reset_eur": "1.00", "seq": 1, "state": "active"},
    ]  # 18 retired while the gateway was away: not in the snapshot
    channel.handle({"type": "snapshot", "jackpots": [{"id": 3, "levels": levels}]})
    assert board.group_amounts(1, board.heard) is None  # nothing of group 1 left to broadcast
    assert board.by_id == {99: 700}
