"""Two installations on one Redis server: each hears only its own group messages (pub/sub ignores the
database number, so the channel layer's names must carry it)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.utils.module_loading import import_string

from config.env import channel_layer_prefix

ROOT = Path(__file__).resolve().parents[2]
# A group no other test sends to: under pytest-xdist the other worker's layer has one of these prefixes
# (databases 0 and 1 are CI's two workers'), and its progressive 1 may well be on the air meanwhile.
GROUP = f"signage.isolation-{uuid.uuid4().hex}"


def test_prefix_carries_the_database_and_the_installation() -> None:
    assert channel_layer_prefix("redis://127.0.0.1:6379/0", "progressivo") == "progressivo.db0."
    assert channel_layer_prefix("redis://127.0.0.1:6379/1", "progressivo") == "progressivo.db1."
    assert channel_layer_prefix("redis://127.0.0.1:6379?db=4", "progressivo") == "progressivo.db4."
    assert channel_layer_prefix("redis://127.0.0.1:6379", "lido") == "lido.db0."


def installation_layer_config(redis_url: str, **env: str) -> dict:
    """The channel layer an installation with this REDIS_URL gets from the settings, read in a process
    of its own as a real start-up would."""
    code = (
        "from django.conf import settings; import json; print(json.dumps(settings.CHANNEL_LAYERS['default']))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.test_settings", "REDIS_URL": redis_url, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(completed.stdout)


def layer_build(config: dict):
    return import_string(config["BACKEND"])(**config["CONFIG"])


async def heard(sender, listener) -> bool:
    channel = await listener.new_channel()
    await listener.group_add(GROUP, channel)
    await asyncio.sleep(0.2)  # the subscription reaches Redis
    try:
        await sender.group_send(GROUP, {"type": "levels.changed", "levels": [{"id": 1, "seq": 9}]})
        await asyncio.wait_for(listener.receive(channel), timeout=1)
    except TimeoutError:
        return False
    finally:
        await listener.group_discard(GROUP, channel)
        await sender.flush()
        await listener.flush()
    return True


@pytest.mark.redis
async def test_two_installations_on_one_redis_do_not_hear_each_other() -> None:
    base = settings.REDIS_URL.rsplit("/", 1)[0]
    first = installation_layer_config(f"{base}/0")
    second = installation_layer_config(f"{base}/1")
    named = installation_layer_config(f"{base}/0", CHANNEL_LAYER_PREFIX="lido")

    assert await heard(layer_build(first), layer_build(second)) is False
    assert await heard(layer_build(second), layer_build(first)) is False
    assert await heard(layer_build(first), layer_build(named)) is False
    # The same installation's processes do hear each other.
    assert await heard(layer_build(first), layer_build(first)) is True
