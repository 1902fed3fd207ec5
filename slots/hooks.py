"""What slots tells the apps above it, without importing them (the one-way house).

slots stores the machines' events; the engine (jackpots) and the live floor map (workspace) are above it
and must hear of them. Each app above registers its listener once, in its ``AppConfig.ready()``, before
any request is served; slots calls whatever is registered. Nothing registered means nobody listens: for
the engine wake-up and the membership check that would be a configuration error, so they say so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.core.exceptions import ImproperlyConfigured

MachineLevel = tuple[int, int]


@dataclass
class SlotsHooks:
    # Asks the engine to apply the stored game and jackpot events (jackpots: the engine task).
    engine_wake: Callable[[], object] | None = None
    # Which (machine_id, level_id) pairs are a level the machine plays (jackpots: progressive membership).
    levels_played: Callable[[set[MachineLevel]], set[MachineLevel]] | None = None
    # Machines whose live state changed, called after the commit (workspace: the floor maps).
    machines_changed: list[Callable[[set[int]], None]] = field(default_factory=list)
    # Machines that just played a game (workspace: a map turns them "playing"); called on every game
    # batch, so a listener keeps its own pace.
    machines_played: list[Callable[[set[int]], None]] = field(default_factory=list)


hooks = SlotsHooks()


def engine_wake() -> None:
    if hooks.engine_wake is None:
        raise ImproperlyConfigured("No engine registered to apply events (is the jackpots app installed?)")
    hooks.engine_wake()


def levels_played(pairs: Iterable[MachineLevel]) -> set[MachineLevel]:
    if hooks.levels_played is None:
        raise ImproperlyConfigured("No progressive membership registered (is the jackpots app installed?)")
    return hooks.levels_played(set(pairs))


def machines_changed(machine_ids: Iterable[int]) -> None:
    """Tells the listeners which machines changed; the listeners defer their own work to the commit."""
    ids = set(machine_ids)
    if ids:
        for listener in hooks.machines_changed:
            listener(ids)


def machines_played(machine_ids: Iterable[int]) -> None:
    """Tells the listeners which machines just played; they defer their own work to the commit."""
    ids = set(machine_ids)
    if ids:
        for listener in hooks.machines_played:
            listener(ids)
