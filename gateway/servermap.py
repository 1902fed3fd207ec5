"""The machine map from the server: GET /api/v1/gateway/config with the gateway key.

The answer lists the venue's SAS machines (code, line, address, denomination, group, max bet, handpay
limit) and its progressive groups (group, SAS level -> level id, reset amounts, broadcast LP). The last
good answer is kept next to the event store, so a gateway that starts while the server is away still
knows its machines and captures their events; it fetches again periodically and on every reconnect.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

import httpx

log = logging.getLogger(__name__)

MAP_PATH = "/api/v1/gateway/config"


class MapUnavailable(RuntimeError):
    """Neither the server nor the local copy gave a machine map; the message says why."""


def fetch_map(url: str, key: str, timeout: float = 10.0) -> dict[str, Any]:
    try:
        response = httpx.get(
            url.rstrip("/") + MAP_PATH, headers={"Authorization": f"Bearer {key}"}, timeout=timeout
        )
    except httpx.HTTPError as exc:
        raise MapUnavailable(f"server unreachable: {exc}") from exc
    if response.status_code != 200:
        raise MapUnavailable(f"server answered {response.status_code}: {response.text[:200]}")
    try:
        answer: dict[str, Any] = response.json()
    except ValueError as exc:
        raise MapUnavailable("server answered without JSON") from exc
    if not isinstance(answer.get("machines"), list) or not isinstance(answer.get("groups"), list):
        raise MapUnavailable("the map has no machines and groups lists")
    return answer


def map_copy_path(store: str) -> str:
    return f"{store}.map.json"


def save_map(path: str, answer: dict[str, Any]) -> None:
    """Written whole or not at all: a gateway killed while writing keeps the previous copy."""
    temporary = f"{path}.tmp"
    with open(temporary, "w", encoding="utf-8") as fh:
        json.dump(answer, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(temporary, path)


def current_map(url: str, key: str, copy: str) -> dict[str, Any]:
    """The server's map, kept as the local copy; the local copy when the server cannot answer."""
    try:
        answer = fetch_map(url, key)
    except MapUnavailable as exc:
        if not os.path.exists(copy):
            raise MapUnavailable(f"{exc}; and no local copy of the map yet") from exc
        log.warning("machine map from the local copy: %s", exc)
        with open(copy, encoding="utf-8") as fh:
            local: dict[str, Any] = json.load(fh)
            return local
    save_map(copy, answer)
    return answer
