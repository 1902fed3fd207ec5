"""The session engine: Django's database sessions, with the cookie's key checked before it is looked up."""

from __future__ import annotations

from django.contrib.sessions.backends import db


class SessionStore(db.SessionStore):
    """Django makes keys of ASCII letters and digits; anything else in the cookie (a NUL, which the
    cookie parser unquotes from ``\\000`` and PostgreSQL refuses with an error) is no session, so the
    request goes on without one instead of failing."""

    def _validate_session_key(self, key: str | None) -> bool:
        # The stubs omit SessionBase's private _validate_session_key, which Django's own code calls.
        valid = super()._validate_session_key(key)  # type: ignore[misc]
        # Django's check refuses None, so `key is not None` only tells the type checker what holds.
        return bool(valid) and key is not None and key.isascii() and key.isalnum()
