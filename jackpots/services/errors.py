"""The engine's domain error: a stable code the admin and the APIs can show, and a sentence."""

from __future__ import annotations


class EngineError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"
