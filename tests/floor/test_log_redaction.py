"""Screen tokens in query strings never reach the logs (uvicorn's access and websocket lines, Django's
request and server logs)."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from uvicorn.logging import AccessFormatter

from bench.stack import free_port
from config.log_redaction import QueryTokenRedactFilter, query_tokens_redact

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "pv_scr_Zk3-9qA_secret"


@pytest.fixture
def captured() -> Iterator[tuple[io.StringIO, list[logging.Handler]]]:
    """A stream and the handlers added to write into it, removed after the test."""
    stream = io.StringIO()
    added: list[tuple[logging.Logger, logging.Handler]] = []

    def attach(name: str, formatter: logging.Formatter) -> None:
        handler = logging.StreamHandler(stream)
        handler.setFormatter(formatter)
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        added.append((logger, handler))

    yield stream, attach
    for logger, handler in added:
        logger.removeHandler(handler)


def test_the_request_loggers_carry_the_filter_after_django_configured_logging() -> None:
    for name in ("uvicorn.access", "uvicorn.error", "django.request", "django.server"):
        assert [type(f) for f in logging.getLogger(name).filters] == [QueryTokenRedactFilter], name
    [console] = [h for h in logging.getLogger().handlers if type(h) is logging.StreamHandler]
    assert [type(f) for f in console.filters] == [QueryTokenRedactFilter]


def test_uvicorn_access_line_of_a_sign_page_is_written_without_its_token(captured) -> None:
    stream, attach = captured
    attach(
        "uvicorn.access",
        AccessFormatter(fmt='%(client_addr)s - "%(request_line)s" %(status_code)s', use_colors=False),
    )
    # Exactly the call of uvicorn's HTTP protocol (h11_impl / httptools_impl).
    logging.getLogger("uvicorn.access").info(
        '%s - "%s %s HTTP/%s" %d',
        "10.0.0.7:51234",
        "GET",
        f"/signage/nog-1/?token={TOKEN}&rotate=1",
        "1.1",
        200,
    )
    assert (
        stream.getvalue()
        == '10.0.0.7:51234 - "GET /signage/nog-1/?token=[redacted]&rotate=1 HTTP/1.1" 200 OK\n'
    )


def test_uvicorn_websocket_line_is_written_without_its_token(captured) -> None:
    stream, attach = captured
    attach("uvicorn.error", logging.Formatter("%(message)s"))
    logging.getLogger("uvicorn.error").info(
        '%s - "WebSocket %s" [accepted]', "10.0.0.7:51235", f"/ws/signage/nog-1/?token={TOKEN}"
    )
    assert (
        stream.getvalue() == '10.0.0.7:51235 - "WebSocket /ws/signage/nog-1/?token=[redacted]" [accepted]\n'
    )


def test_django_server_and_request_lines_are_written_without_the_token(captured) -> None:
    stream, attach = captured
    attach("django.server", logging.Formatter("%(message)s"))
    attach("django.request", logging.Formatter("%(message)s"))
    logging.getLogger("django.server").info(
        '"%s" %s %s', f"GET /signage/ven-2/?TOKEN={TOKEN} HTTP/1.1", "200", "912"
    )
    logging.getLogger("django.request").warning("Bad request: %(path)s", {"path": f"/x/?a=1;token={TOKEN}"})
    assert stream.getvalue() == (
        '"GET /signage/ven-2/?TOKEN=[redacted] HTTP/1.1" 200 912\nBad request: /x/?a=1;token=[redacted]\n'
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/signage/nog-1/?token=abc", "/signage/nog-1/?token=[redacted]"),
        ("/s/?a=1&token=abc#top", "/s/?a=1&token=[redacted]#top"),
        ("/s/?csrftoken=abc&mytoken=x", "/s/?csrftoken=abc&mytoken=x"),  # other parameters are kept
        ("/s/?token=", "/s/?token=[redacted]"),
        ("token=abc without a query", "token=abc without a query"),
    ],
)
def test_query_tokens_redact(text: str, expected: str) -> None:
    assert query_tokens_redact(text) == expected


def test_a_real_uvicorn_server_logs_the_sign_page_without_its_token(tmp_path: Path) -> None:
    """uvicorn configures its logging before loading the application; Django's configuration must add
    the filter without losing uvicorn's access handler."""
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "REDIS_URL")} | {
        "DJANGO_SETTINGS_MODULE": "config.test_settings",
        "SQLITE_PATH": str(tmp_path / "db.sqlite3"),
        "PYTHONUNBUFFERED": "1",
    }
    log_path = tmp_path / "uvicorn.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            [str(Path(sys.executable).parent / "uvicorn"), "config.asgi:application", "--host", "127.0.0.1",
             "--port", str(port), "--lifespan", "off"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/no-such-page/?token={TOKEN}", timeout=2)
                except urllib.error.HTTPError as error:
                    assert error.code == 404
                    break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise AssertionError(log_path.read_text()) from None
                    time.sleep(0.2)
            time.sleep(0.3)
        finally:
            server.terminate()
            server.wait(timeout=10)
    written = log_path.read_text()
    assert '"GET /no-such-page/?token=[redacted] HTTP/1.1" 404' in written
    assert TOKEN not in written
