"""What the venues' SAS gateways answered for the mystery awards they were sent."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class SasAward(models.Model):
    """What a venue's SAS gateway answered for a mystery hit it was asked to credit to its machine
    (``award_result``, gateway/README.md "Server route"). One answer per hit: the first is kept and a
    replay changes nothing. ``paid``: the machine credited ``paid_cents`` by legacy bonus (whole credits,
    so it may be less than ``asked_cents``; the difference is kept) and the hit is paid by the machine;
    ``handpay``: above the machine's limit, the hit stays for the attendants."""

    class Status(models.TextChoices):
        PAID = "paid", _("Credited by the machine")
        HANDPAY = "handpay", _("Handpay by an attendant")

    hit = models.OneToOneField(
        "jackpots.Hit", on_delete=models.PROTECT, related_name="sas_award", verbose_name=_("hit")
    )
    machine = models.ForeignKey(
        "slots.SlotMachine", on_delete=models.PROTECT, related_name="+", verbose_name=_("slot machine")
    )
    status = models.CharField(_("outcome"), max_length=8, choices=Status.choices)
    asked_cents = models.BigIntegerField(_("amount asked (cents)"))
    paid_cents = models.BigIntegerField(_("amount credited (cents)"), default=0)
    difference_cents = models.BigIntegerField(
        _("credited minus asked (cents)"),
        default=0,
        help_text=_("Nonzero: the machine credited another amount."),
    )
    at = models.DateTimeField(_("answered at"))

    class Meta:
        # Moved here from the engine with its table and rows (migrations gatewaylink 0001, jackpots 0021).
        db_table = "jackpots_sasaward"
        ordering = ["-at", "-id"]
        verbose_name = _("SAS award")
        verbose_name_plural = _("SAS awards")

    def __str__(self) -> str:
        return f"{self.hit} {self.status}"
