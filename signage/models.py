"""What the signs keep in the database: each progressive's theme, and each screen's presence (whether a
sign is connected and when it was last sent a frame), which the workspace shows the floor."""

from __future__ import annotations

from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

HEX_COLOUR = RegexValidator(r"^#[0-9a-fA-F]{6}$", _("A colour as #rrggbb, e.g. #d9b45a."))


class SignTheme(models.Model):
    """How a progressive looks on the signs: a preset palette, optionally its background and accent
    colours changed, a title in place of the progressive's name and a small logo."""

    class Preset(models.TextChoices):
        CLASSIC = "classic", _("Red and gold (classic)")
        ICE = "ice", _("Blue and silver")
        EMERALD = "emerald", _("Emerald and gold")

    progressive = models.OneToOneField(
        "jackpots.Progressive", on_delete=models.CASCADE, related_name="theme", verbose_name=_("progressive")
    )
    preset = models.CharField(_("preset"), max_length=16, choices=Preset.choices, default=Preset.CLASSIC)
    title = models.CharField(
        _("title"), max_length=60, blank=True, help_text=_("Shown on the signs instead of the name.")
    )
    background = models.CharField(
        _("background colour"), max_length=7, blank=True, validators=[HEX_COLOUR], help_text=_("#rrggbb")
    )
    accent = models.CharField(
        _("accent colour"), max_length=7, blank=True, validators=[HEX_COLOUR], help_text=_("#rrggbb")
    )
    # A small image kept as a data: URL, so a sign needs no request beyond its own server's page.
    logo = models.TextField(_("logo"), blank=True, editable=False)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        # The table keeps the name it had in the jackpots app, where the signs were first (signage 0001).
        db_table = "jackpots_signtheme"
        ordering = ["progressive__name", "id"]
        verbose_name = _("sign theme")
        verbose_name_plural = _("sign themes")

    def __str__(self) -> str:
        return f"{self.progressive} · {self.get_preset_display()}"


class ScreenPresence(models.Model):
    """A screen's connections as the sign servers last wrote them: open connections, when the first
    opened and the last closed, and the last time one of them was sent a frame (written by every
    server process once per link check, not per frame)."""

    screen = models.OneToOneField(
        "floor.SignageScreen", on_delete=models.CASCADE, related_name="presence", verbose_name=_("screen")
    )
    connections = models.PositiveIntegerField(_("open connections"), default=0)
    connected_at = models.DateTimeField(_("connected at"), null=True, blank=True)
    disconnected_at = models.DateTimeField(_("disconnected at"), null=True, blank=True)
    last_frame_at = models.DateTimeField(_("last frame at"), null=True, blank=True)

    class Meta:
        db_table = "jackpots_screenpresence"
        verbose_name = _("screen presence")
        verbose_name_plural = _("screen presences")

    def __str__(self) -> str:
        return f"{self.screen_id}: {self.connections}"
