"""Work on another thread, with its own database connection (closed when the work ends)."""

from __future__ import annotations

import threading
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
