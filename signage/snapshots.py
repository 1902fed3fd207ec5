"""Snapshot reads shared by the signs of one screen that connect together (after a server restart all of
them do): one database read serves every sign that joined its groups before the read began, so no
update can fall between a sign's snapshot and its first update. A sign that joins while a read is
running waits for the next one, which every later sign shares too: at most one read per screen runs
at a time and one waits."""

from __future__ import annotations

import asyncio
from typing import NamedTuple

from channels.db import database_sync_to_async
from rest_framework import serializers

from common.loops import loop_local
from jackpots.apis import LevelPublicSerializer, ProgressivePublicSerializer
from signage.currency import ScreenContent
from signage.selectors import declaration_frames, signage_snapshot

Key = ScreenContent


class SignageLevelSerializer(LevelPublicSerializer):
    """A level as the API shows it and, on a screen whose venue's currency is not the pool's, the
    amounts in minor units of ``currency`` (absent otherwise)."""

    amount = serializers.IntegerField(required=False)
    reset = serializers.IntegerField(required=False)
    currency = serializers.CharField(required=False)
    mystery = serializers.BooleanField()
    must_hit_by_eur = serializers.CharField(required=False, help_text="A mystery level's must-hit-by amount.")
    must_hit_by = serializers.IntegerField(required=False)


class SignageProgressiveSerializer(ProgressivePublicSerializer):
    rate = serializers.CharField(required=False, help_text="Venue currency per pool unit, when converted.")
    levels = SignageLevelSerializer(many=True)
    theme = serializers.DictField(help_text="Title, colours and logo of the progressive's card.")
    rules = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="The rules the player is told, per language code (it, en): one line each.",
    )


class Snapshot(NamedTuple):
    """A screen's first frames: its jackpots and the table declarations pending on them (one read for the
    signs connecting together, like the jackpots)."""

    jackpots: list[dict]
    declarations: list[dict]


def _snapshot_read(key: Key) -> Snapshot:
    jackpots = SignageProgressiveSerializer(signage_snapshot(key), many=True).data
    return Snapshot(jackpots, declaration_frames(list(key.progressives)))


class SnapshotShare:
    def __init__(self) -> None:
        self.running: dict[Key, asyncio.Task] = {}
        self.waiting: dict[Key, asyncio.Task] = {}

    async def get(self, key: Key) -> Snapshot:
        """The snapshot of the progressives ``key``, read after the call began. Call it after joining."""
        task = self.waiting.get(key)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._read(key, self.running.get(key)))
            if key in self.running:
                self.waiting[key] = task
            else:
                self.running[key] = task
        return await asyncio.shield(task)

    async def _read(self, key: Key, before: asyncio.Task | None) -> Snapshot:
        if before is not None:
            await asyncio.wait([before])
            me = self.waiting.pop(key)
            self.running[key] = me
        try:
            return await database_sync_to_async(_snapshot_read)(key)
        finally:
            if self.running.get(key) is asyncio.current_task():
                del self.running[key]


_shares: dict[asyncio.AbstractEventLoop, SnapshotShare] = {}


def snapshot_share() -> SnapshotShare:
    return loop_local(_shares, SnapshotShare)
