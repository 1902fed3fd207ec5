"""Settings for the test suite: production-like, with only what a test client over plain HTTP
cannot do (HTTPS redirect, secure-only cookies) relaxed. The environment still picks the services."""

import os
from urllib.parse import parse_qs, urlencode, urlparse

# The suite never reads a checkout's local settings file (.env): its own tests name their files.
os.environ.setdefault("ENV_FILE", "")

os.environ.setdefault("SECRET_KEY", "test-secret-key-that-is-long-enough-for-checks-0123456789")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,127.0.0.1,localhost")
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
os.environ.setdefault("SESSION_COOKIE_SECURE", "0")
os.environ.setdefault("CSRF_COOKIE_SECURE", "0")
# Tests write events stamped "now" and apply them at once; the settle window's own tests set it.
os.environ.setdefault("ENGINE_SETTLE_MILLISECONDS", "0")


def redis_url_of_worker(url: str, worker: int) -> str:
    """REDIS_URL's database moved up by the pytest-xdist worker's number (gw0 keeps it, gw1 takes the next
    one): each worker has its own Celery queue and cache, and its own channel-layer names, since their
    prefix carries the database. pytest-django gives each worker its own test database the same way."""
    parsed = urlparse(url)
    query = parse_qs(parsed.query)
    database = int(query["db"][0] if "db" in query else parsed.path.lstrip("/") or 0) + worker
    if database > 15:
        raise ValueError(f"REDIS_URL {url} leaves no Redis database free for pytest-xdist worker gw{worker}.")
    if "db" in query:
        return parsed._replace(query=urlencode({**query, "db": database}, doseq=True)).geturl()
    return parsed._replace(path=f"/{database}").geturl()


# Set once, in the worker: the processes a test starts (uvicorn, Celery, a settings check) inherit the
# moved REDIS_URL, or the one the test gives them, and the marker that keeps them from moving it again.
if (
    os.environ.get("PYTEST_XDIST_WORKER", "").startswith("gw")
    and os.environ.get("REDIS_URL")
    and not os.environ.get("PROGRESSIVO_TEST_REDIS_OF_WORKER")
):
    os.environ["PROGRESSIVO_TEST_REDIS_OF_WORKER"] = os.environ["REDIS_URL"]  # the URL before the move
    os.environ["REDIS_URL"] = redis_url_of_worker(
        os.environ["REDIS_URL"], int(os.environ["PYTEST_XDIST_WORKER"][2:])
    )

from config.settings import *  # noqa: E402, F403
