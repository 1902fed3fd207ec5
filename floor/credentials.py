"""API keys and screen tokens: random, shown once, stored only as a SHA-256 digest.

Keys carry 256 bits of randomness, so a fast digest is enough (no password stretching needed) and lets
the events API authenticate a request with one indexed lookup.
"""

from __future__ import annotations

import hashlib
import secrets


def key_generate(kind: str) -> str:
    """A new key such as ``pv_mach_3Xy...``; the prefix tells a human what it is for."""
    return f"pv_{kind}_{secrets.token_urlsafe(32)}"


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def key_display_prefix(key: str) -> str:
    """What the admin shows of a key so people can tell keys apart without seeing the secret."""
    return key[:16]
