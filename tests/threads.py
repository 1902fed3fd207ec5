"""Work on another thread, with its own database connection (closed when the work ends)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from django.db import connection


def thread_with_own_connection(work: Callable[[], object]) -> threading.Thread:
    """Starts ``work`` on a new thread; its connection (Django's are per thread) is closed after it."""

    def run() -> None:
        try:
            work()
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def lock_waiter_await(timeout: float = 10.0) -> None:
    """Returns once a session of the test database waits on a lock (another thread's work blocked where the
    test means it to be); AssertionError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE wait_event_type = 'Lock' AND datname = current_database()"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.05)
    raise AssertionError("no session waited on a lock")
