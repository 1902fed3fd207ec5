"""Server time of one gateway connection: the handshake, the key's check and claim, the snapshot of the
venue's map and amounts, then the close; N connections one after the other, in-process through the real
ASGI application and channel layer (Redis when REDIS_URL is set).

    DATABASE_URL=... REDIS_URL=... python -m bench.gateway_connect --venue NOG --count 50

Prints the wall time per connection (p50, p90, max) and the process CPU per connection."""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


async def _connect_once(application, token: str) -> float:
    from channels.testing import WebsocketCommunicator

    started = time.perf_counter()
    socket = WebsocketCommunicator(application, f"/ws/gateway/?token={token}")
    connected, _ = await socket.connect(timeout=10)
    assert connected
    first = await socket.receive_json_from(timeout=10)  # the gateway's first frame (its snapshot)
    assert first["type"] != "error", first
    elapsed = time.perf_counter() - started
    await socket.disconnect()
    return elapsed


async def _run(venue: str, count: int) -> None:
    from asgiref.sync import sync_to_async

    from common.credentials import credential_issue
    from config.asgi import application
    from floor.models import Venue
    from slots.models import GatewayKey

    venue_row = await sync_to_async(Venue.objects.get)(code=venue)
    _, token = await sync_to_async(credential_issue)(GatewayKey, kind="gateway", venue=venue_row)
    await _connect_once(application, token)  # warms imports and caches
    cpu, times = time.process_time(), []
    for _ in range(count):
        times.append(await _connect_once(application, token))
        await asyncio.sleep(0)
    cpu = time.process_time() - cpu
    times.sort()
    p90 = times[int(0.9 * (len(times) - 1))]
    print(
        f"{count} gateway connections to {venue}: wall p50 {statistics.median(times) * 1000:.1f} ms, "
        f"p90 {p90 * 1000:.1f} ms, max {times[-1] * 1000:.1f} ms; CPU {cpu / count * 1000:.1f} ms each"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venue", default="NOG")
    parser.add_argument("--count", type=int, default=50)
    args = parser.parse_args()
    import django

    django.setup()
    asyncio.run(_run(args.venue, args.count))


if __name__ == "__main__":
    main()
