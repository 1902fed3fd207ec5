"""The stable error codes of the link's API (docs/wide-area.md "The wire"), each with its sentence.

Sites branch on the code; the sentence is for people. Codes are never renamed, only added.
"""

from __future__ import annotations

from typing import Any

from common.api_errors import API_ERRORS, ApiError

LINK_ERRORS: dict[str, str] = {
    **API_ERRORS,
    "key_invalid": "A site key is required (Authorization: Bearer <key>); this one is unknown or revoked.",
    "not_a_member": "This site is not an active member of that pool.",
    "invalid_body": "The body is not what the link accepts.",
    "invalid_query": "The query is not what the link accepts.",
    "entry_gap": "The batch starts after a gap: send the entries from the expected seq.",
    "entry_conflict": "A different entry was already received under this seq.",
}


class LinkRefused(ApiError):
    """A request refused with one of LINK_ERRORS; ``extra`` goes into the answer beside the code and the
    sentence (entry_gap: the seq expected)."""

    errors = LINK_ERRORS

    def __init__(self, status: int, code: str, detail: str | None = None, **extra: Any) -> None:
        super().__init__(status, code, detail)
        self.extra = extra

    def answer(self) -> dict[str, Any]:
        """The error's answer with its extra fields (``as_dict`` is the shape every API shares)."""
        return {**self.as_dict(), **self.extra}


def invalid_body(field: str, sentence: str) -> LinkRefused:
    """400 invalid_body naming the field (``entries[3].rate``) and what it must be."""
    return LinkRefused(400, "invalid_body", f"{field}: {sentence}", field=field)
