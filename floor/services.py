"""Writes of the floor app: issuing keys, the demo administrator, the embedded periodic-job ticker."""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import close_old_connections, transaction

from floor.credentials import credential_issue, credential_revoke
from floor.models import Venue
from floor.shared_redis import BEAT_KEY, WORKERS_KEY, shared_redis
from slots.models import GatewayKey, MachineKey, SlotMachine

logger = logging.getLogger(__name__)

MACHINE_KEY_KIND = "mach"
GATEWAY_KEY_KIND = "gw"


def machine_key_issue(machine: SlotMachine, *, created_by=None) -> tuple[MachineKey, str]:
    """A new key for one machine; the machine's earlier keys stay valid until revoked (key rotation)."""
    return credential_issue(MachineKey, kind=MACHINE_KEY_KIND, created_by=created_by, machine=machine)


def gateway_key_issue(venue: Venue, *, created_by=None) -> tuple[GatewayKey, str]:
    """A new key for a venue's gateway (the site controller that posts for all its machines)."""
    return credential_issue(GatewayKey, kind=GATEWAY_KEY_KIND, created_by=created_by, venue=venue)


def credentials_revoke(credentials) -> int:
    """Revokes every credential given; returns how many were active before."""
    revoked = 0
    with transaction.atomic():
        for credential in credentials:
            if credential.revoked_at is None:
                credential_revoke(credential)
                revoked += 1
    return revoked


def admin_user_ensure(username: str = "admin") -> str:
    """Creates or updates the superuser ``username`` with a freshly generated password and returns it."""
    password = secrets.token_urlsafe(12)
    User = get_user_model()
    user, _created = User.objects.get_or_create(username=username)
    user.is_staff = True
    user.is_superuser = True
    user.is_active = True
    user.set_password(password)
    user.save()
    return password


def beat_jobs_run_due(
    schedule: dict[str, dict],
    last_run: dict[str, float],
    now: float,
    run: Callable[[str], object],
) -> list[str]:
    """Runs each beat entry whose interval has elapsed since ``last_run``; returns the entries run.

    Used by the embedded default (no Celery beat or worker) so the safety-net jobs still happen. A job
    that fails is logged and retried at its next interval: one broken job never stops the others.
    """
    ran: list[str] = []
    for name, entry in schedule.items():
        interval = entry["schedule"]
        seconds = interval.total_seconds() if isinstance(interval, timedelta) else float(interval)
        if name in last_run and now - last_run[name] < seconds:
            continue
        last_run[name] = now
        try:
            run(entry["task"])
        except Exception:
            logger.exception("Periodic job %s (%s) failed", name, entry["task"])
        ran.append(name)
    return ran


def beat_jobs_loop(ticks: int | None = None, tick_seconds: float = 1.0) -> int:
    """Runs Celery beat's schedule in this process, calling each task in-process; returns ticks done."""
    from config.celery import app

    app.loader.import_default_modules()  # registers every app's tasks by name

    def run(task_name: str) -> object:
        return app.tasks[task_name]()

    last_run: dict[str, float] = {}
    done = 0
    while ticks is None or done < ticks:
        started = time.monotonic()
        close_old_connections()  # a long-lived process must survive a database restart
        beat_jobs_run_due(app.conf.beat_schedule, last_run, started, run)
        done += 1
        if ticks is not None and done >= ticks:
            break
        time.sleep(max(0.0, tick_seconds - (time.monotonic() - started)))
    return done


# --- Heartbeats of the worker and beat (read by /healthz) -----------------------------------------------


def worker_heartbeat_record(hostname: str) -> None:
    """A consuming worker says it is alive (every WORKER_HEARTBEAT_SECONDS, from its own timer)."""
    client = shared_redis()
    if client is not None:
        client.zadd(WORKERS_KEY, {hostname: time.time()})


def worker_heartbeat_clear(hostname: str) -> None:
    """A worker that stops consuming (shut down, or its broker connection lost) is no longer counted."""
    client = shared_redis()
    if client is not None:
        client.zrem(WORKERS_KEY, hostname)


def beat_heartbeat_record() -> None:
    """Beat ticked (it sends the engine's safety-net run every second)."""
    client = shared_redis()
    if client is not None:
        client.set(BEAT_KEY, time.time())
