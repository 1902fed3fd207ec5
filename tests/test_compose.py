"""The production compose file starts every long-running process the manual tells operators about."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def test_every_long_running_process_has_a_service() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    commands = {name: service.get("command", []) for name, service in services.items()}
    assert commands["link-forward"] == ["python", "manage.py", "link_forward"]
    assert commands["link-listen"] == ["python", "manage.py", "link_listen"]
    assert commands["beat"][:4] == ["celery", "-A", "config", "beat"]
    assert commands["worker"][:4] == ["celery", "-A", "config", "worker"]
    # Each after the migrations, as the web server and the worker are.
    for name in ("link-forward", "link-listen"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
