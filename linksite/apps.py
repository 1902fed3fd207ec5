from typing import Any

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LinksiteConfig(AppConfig):
    """The site's role in a wide-area progressive: its outbox up to the link, the pool it hears back."""

    name = "linksite"
    verbose_name = _("Wide-area site")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """The tables tell this app of every round, in its transaction; the engine asks it what the signs
        show of a linked pool (neither can import it)."""
        from jackpots.hooks import providers
        from linksite.selectors import levels_shown_elsewhere, progressives_down
        from linksite.services.outbox import membership_active, outbox_round_write
        from linksite.services.pending import pending_frames, pending_strings
        from tables.hooks import hooks

        if outbox_round_write not in hooks.round_recorded:
            hooks.round_recorded.append(outbox_round_write)
        if membership_active not in hooks.percent_award_deferred:
            hooks.percent_award_deferred.append(membership_active)
        # The engine's providers for a pool kept elsewhere (where this installation's engine has them).
        shown: list[Any] | None = getattr(providers, "levels_shown_elsewhere", None)
        if shown is not None and levels_shown_elsewhere not in shown:
            shown.append(levels_shown_elsewhere)
        down: list[Any] | None = getattr(providers, "progressives_down", None)
        if down is not None and progressives_down not in down:
            down.append(progressives_down)
        frames: list[Any] | None = getattr(providers, "sign_frames", None)
        if frames is not None and pending_frames not in frames:
            frames.append(pending_frames)
        strings: list[Any] | None = getattr(providers, "sign_strings", None)
        if strings is not None and pending_strings not in strings:
            strings.append(pending_strings)
