from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LinkcentralConfig(AppConfig):
    """The link's role: the central pool of a wide-area progressive that sites of other casinos feed."""

    name = "linkcentral"
    verbose_name = _("Wide-area link")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from jackpots.hooks import KeyIssuer, providers
        from linkcentral.models import LinkSiteKey
        from linkcentral.providers import providers_register
        from linkcentral.publish import listeners_register
        from linkcentral.services.keys import site_key_for

        listeners_register()
        providers_register()
        # revoke_key finds a site key among the product's keys.
        if LinkSiteKey not in providers.credential_models:
            providers.credential_models.append(LinkSiteKey)
        providers.key_issuers["site"] = KeyIssuer(
            "CODE", "A link site's code: a key for its entries.", site_key_for
        )
