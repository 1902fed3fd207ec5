"""A contributions worker in its own process, for the PostgreSQL tests.

    python -m tests.jackpots.worker <database name> <stop file> [<killed-marker file>]

Applies pending events until the stop file exists and nothing is pending. With a marker file it instead
stops inside its first batch's transaction (after the level updates and ledger rows, before the commit),
creates the marker and sleeps, so the test can kill it with SIGKILL there.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def main() -> None:
    database, stop = sys.argv[1], Path(sys.argv[2])
    marker = Path(sys.argv[3]) if len(sys.argv) > 3 else None
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.test_settings"
    os.environ["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:5432/{database}"
    import django

    django.setup()
    from jackpots.services.contributions import contributions_apply

    def hang() -> None:
        marker.touch()
        time.sleep(120)

    while True:
        applied = contributions_apply(batch_size=500, before_commit=hang if marker is not None else None)
        if applied == 0:
            if stop.exists():
                return
            time.sleep(0.01)


if __name__ == "__main__":
    main()
