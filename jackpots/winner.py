"""The winner's identification recorded with a payment at or above the venue's identification threshold
(``floor.Venue.winner_id_threshold_cents``, default €2,000: Italy's anti-money-laundering threshold for
casino transactions, D.Lgs. 231/2007). Shown to auditors only (permission ``jackpots.view_winner``)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

WINNER_FIELDS = ("winner_name", "winner_document_type", "winner_document_number", "winner_document_country")


class WinnerIdentity(models.Model):
    class DocumentType(models.TextChoices):
        ID_CARD = "id_card", _("Identity card")
        PASSPORT = "passport", _("Passport")
        DRIVING_LICENCE = "driving_licence", _("Driving licence")

    winner_name = models.CharField(_("winner's name"), max_length=120, blank=True)
    winner_document_type = models.CharField(
        _("identity document"), max_length=16, choices=DocumentType.choices, blank=True
    )
    winner_document_number = models.CharField(_("document number"), max_length=40, blank=True)
    winner_document_country = models.CharField(
        _("issuing country"), max_length=2, blank=True, help_text=_("ISO 3166 code, e.g. IT")
    )

    class Meta:
        abstract = True
