"""Asking the worker's engine to apply stored events, from a web process, without a request ever waiting
on the broker or failing because of it.

A request only raises a flag after its commit; the process's sender (common.background) sends
``contributions_apply_task`` at most once every ENGINE_NOTIFY_INTERVAL seconds: an engine run applies
every pending event, so at high rates one task serves many requests and saves each a broker round trip,
and every committed event has a task sent after its commit. When the broker is down the events are stored
and pending all the same: the request is answered as usual, and the sender keeps trying every
BROKER_RETRY_SECONDS until the broker takes the task.
"""

from __future__ import annotations

from common.background import BackgroundSender
from slots.hooks import engine_wake

ENGINE_NOTIFY_INTERVAL = 0.1
BROKER_RETRY_SECONDS = 1.0

# The engine registers its wake-up in slots.hooks (it is above slots in the house).
engine_notifier = BackgroundSender(
    engine_wake, name="engine-notify", interval=ENGINE_NOTIFY_INTERVAL, retry=BROKER_RETRY_SECONDS
)
