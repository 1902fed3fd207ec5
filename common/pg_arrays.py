"""A list as PostgreSQL's text form of an array, for the hot statements that pass columns as arrays.

psycopg adapts a Python list element by element in Python: 1.7 µs an integer and 8.8 µs a datetime
(measured, 100-element arrays, text or binary alike), so the eight machine columns and the three of a
gateway's 100-machine batch cost the server more than the rest of its storing. Written here as one string,
the same array costs a join. The statement casts the parameter (``%s::bigint[]``), so PostgreSQL reads it
with the element type's own input function, exactly as it reads a literal.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime


def array_literal(values: Iterable[int | str | datetime | bool | None]) -> str:
    """``values`` as an array literal: integers as they are, None as NULL, booleans as t/f, text and
    instants (ISO 8601 with their offset) double-quoted with backslashes and quotes escaped."""
    return "{" + ",".join(map(_element, values)) + "}"


def _element(value: int | str | datetime | bool | None) -> str:
    if value is None:
        return "NULL"
    if value is True or value is False:
        return "t" if value else "f"
    if type(value) is int:
        return str(value)
    text = value.isoformat() if isinstance(value, datetime) else value
    if not isinstance(text, str):
        raise TypeError(f"no array literal for {type(value).__name__}")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
