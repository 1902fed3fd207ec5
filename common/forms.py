"""Form widgets every app shares."""

from __future__ import annotations

from typing import Any

from django import forms


class IsoDateInput(forms.DateInput):
    """``<input type=date>``: the browser shows the date in the reader's language but its value must be
    ``YYYY-MM-DD``; Django's default, the language's format ("25/11/2026" in Italian), leaves it empty."""

    input_type = "date"

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs, format="%Y-%m-%d")
