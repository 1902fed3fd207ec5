"""Exchange rates between currencies, appended and never edited."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ExchangeRate(models.Model):
    """``1 base = rate quote`` from ``valid_from`` on. Rows are appended, never edited: a round records
    the row and rate it used, so every conversion can be traced."""

    base = models.CharField(_("base currency"), max_length=3)
    quote = models.CharField(_("quote currency"), max_length=3)
    rate = models.DecimalField(_("rate"), max_digits=18, decimal_places=8)
    valid_from = models.DateTimeField(_("valid from"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    source = models.CharField(_("source"), max_length=120, blank=True)

    class Meta:
        ordering = ["base", "quote", "-valid_from", "-id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(rate__gt=0), name="exchange_rate_positive"),
        ]
        indexes = [models.Index(fields=["base", "quote", "valid_from"], name="exchange_rate_lookup")]
        verbose_name = _("exchange rate")
        verbose_name_plural = _("exchange rates")

    def __str__(self) -> str:
        return f"1 {self.base} = {self.rate} {self.quote} from {self.valid_from:%Y-%m-%d %H:%M}"
