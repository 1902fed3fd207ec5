"""What runs beside the ASGI server's requests for as long as it serves, without the server importing the
app that owns it (the one-way house: nothing imports ``demo``).

An app registers a coroutine function once, in its ``AppConfig.ready()``; ``config/lifespan.py`` starts
each as a task at ``lifespan.startup`` and cancels it at ``lifespan.shutdown``. Nothing registered: the
server runs nothing beside its requests, which is the production case (beat and the workers do the work).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

ServerTask = Callable[[], Coroutine[Any, Any, None]]


@dataclass
class LifespanHooks:
    # Run until the server stops (demo: the floor ticker on the embedded default).
    server_tasks: list[ServerTask] = field(default_factory=list)


hooks = LifespanHooks()


def server_task_register(task: ServerTask) -> None:
    """Adds ``task`` once; ``ready()`` may run more than once (tests), the task still starts once."""
    if task not in hooks.server_tasks:
        hooks.server_tasks.append(task)
