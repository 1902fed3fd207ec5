"""Settings for the test suite: production-like, with only what a test client over plain HTTP
cannot do (HTTPS redirect, secure-only cookies) relaxed. The environment still picks the services."""

import os

# The suite never reads a checkout's local settings file (.env): its own tests name their files.
os.environ.setdefault("ENV_FILE", "")

os.environ.setdefault("SECRET_KEY", "test-secret-key-that-is-long-enough-for-checks-0123456789")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,127.0.0.1,localhost")
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
os.environ.setdefault("SESSION_COOKIE_SECURE", "0")
os.environ.setdefault("CSRF_COOKIE_SECURE", "0")
# Tests write events stamped "now" and apply them at once; the settle window's own tests set it.
os.environ.setdefault("ENGINE_SETTLE_MILLISECONDS", "0")

from config.settings import *  # noqa: F403
