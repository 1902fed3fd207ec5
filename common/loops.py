"""Per-event-loop state: each test and each server worker runs its own loop, and a closed loop's state
must not leak into the next (the signs' hubs and reads, the sockets' kept claims)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def loop_local(registry: dict[asyncio.AbstractEventLoop, T], make: Callable[[], T]) -> T:
    """The running loop's entry of ``registry``, made on first use; entries of closed loops dropped."""
    loop = asyncio.get_running_loop()
    for other in [known for known in registry if known.is_closed()]:
        del registry[other]
    if loop not in registry:
        registry[loop] = make()
    return registry[loop]
