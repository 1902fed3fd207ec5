"""Winner identification at payment: at or above the paying venue's ``winner_id_threshold_cents`` (default
€2,000, Italy's anti-money-laundering threshold for casino transactions) a hit or a prize part is paid only
with the winner's name and identity document, recorded with it (``jackpots.winner.WinnerIdentity``)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from common.money import cents_money
from floor.models import Venue
from jackpots.services.errors import EngineError
from jackpots.winner import WINNER_FIELDS, WinnerIdentity

DEFAULT_WINNER_ID_THRESHOLD_CENTS = 200_000


@dataclass(frozen=True)
class Winner:
    name: str = ""
    document_type: str = ""
    document_number: str = ""
    document_country: str = ""

    @property
    def complete(self) -> bool:
        return all(
            v.strip() for v in (self.name, self.document_type, self.document_number, self.document_country)
        )


def winner_id_threshold(venue: Venue | None) -> int:
    return venue.winner_id_threshold_cents if venue is not None else DEFAULT_WINNER_ID_THRESHOLD_CENTS


def winner_record(
    record: WinnerIdentity,
    *,
    label: str,
    cents: int,
    currency: str,
    venue: Venue | None,
    winner: Winner | None,
) -> list[str]:
    """Writes the winner onto ``record`` (unsaved) when given; refuses a payment at or above the venue's
    threshold without a complete identification. Returns the fields written."""
    threshold = winner_id_threshold(venue)
    if cents >= threshold and (winner is None or not winner.complete):
        raise EngineError(
            "winner_id_required",
            _(
                "%(hit)s pays %(amount)s: at or above %(threshold)s the winner's name and identity document "
                "(type, number, issuing country) must be recorded before paying."
            )
            % {
                "hit": label,
                "amount": cents_money(cents, currency),
                "threshold": cents_money(threshold, currency),
            },
        )
    if winner is None or not winner.complete:
        return []
    if winner.document_type not in WinnerIdentity.DocumentType.values:
        raise EngineError("winner_id_invalid", _("Unknown identity document type."))
    record.winner_name = winner.name.strip()[:120]
    record.winner_document_type = winner.document_type
    record.winner_document_number = winner.document_number.strip()[:40]
    record.winner_document_country = winner.document_country.strip().upper()[:2]
    return list(WINNER_FIELDS)
