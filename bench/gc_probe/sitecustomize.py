"""Loaded by every Python process the benchmarks start with this folder on PYTHONPATH: when
BENCH_GC_LOG_DIR is set, each garbage collection of the process is written to <dir>/<pid>.log as
"<unix time at its end> <generation> <milliseconds>", so a benchmark can tell the collector's pauses in the
servers and the worker from the rest of their latency. Nothing of it is in the product."""

from __future__ import annotations

import gc
import os
import time

_DIR = os.environ.get("BENCH_GC_LOG_DIR")

if _DIR:
    _started: list[float] = [0.0]

    def _collection_log(phase: str, info: dict) -> None:
        if phase == "start":
            _started[0] = time.perf_counter()
            return
        milliseconds = (time.perf_counter() - _started[0]) * 1000
        with open(os.path.join(_DIR, f"{os.getpid()}.log"), "a") as log:
            log.write(f"{time.time():.4f} {info['generation']} {milliseconds:.3f}\n")

    gc.callbacks.append(_collection_log)
