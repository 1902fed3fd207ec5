"""A long-running process's garbage collector set for a server: its objects from the start frozen, and its
young generation collected less often.

Why: CPython's full collection walks every object the collector tracks, and while it runs the process does
nothing else: no frame is written and no post answered. In the signage benchmark (bench/signage.py, 1,000
signs on two server processes) the servers made 5-6 full collections in each round of about 50 s, the
longest 140-193 ms, some during the probes; with this, none in three rounds.

- ``gc.freeze`` moves the objects alive at the start (Django, the apps, their modules, classes, functions:
  about 170,000) into a generation the collector never walks. Garbage made later is collected as before;
  a cycle among the frozen objects that later became garbage would not be, which costs nothing for what a
  process builds once at its start.
- The young generation is collected after YOUNG_THRESHOLD new objects instead of CPython's 700. A full
  collection is considered after every tenth collection of the middle generation, which follows every
  tenth of the young one: at 700 that was every 70,000 allocations, a few seconds of a busy server; at
  10,000 it is every 1,000,000. A young collection's cost follows the objects it finds, so the total work
  is about the same, done in fewer and slightly longer passes (10,000 young objects hold well under a MiB).
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000


def heap_freeze() -> int:
    """Collects what is garbage now (so none of it is kept for ever), freezes everything left and sets the
    young generation's threshold; returns how many objects the process now holds frozen."""
    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
    return gc.get_freeze_count()
