"""The staff roles and what each may do: the one place where the role → permission mapping lives.

The groups are created by a data migration (floor 0003) and their permissions are (re)applied after every
``migrate`` by ``roles_apply`` (a post_migrate handler), so a model added later by any app is covered as
soon as its rule is listed here. Applying is idempotent: a group ends up with exactly the permissions its
rules give, so a permission removed from a rule is also removed from the group.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.apps import AppConfig
from django.apps import apps as global_apps
from django.db.models import Q

FLOOR_MANAGER = "Floor manager"
SLOT_ATTENDANT = "Slot attendant"
AUDITOR = "Auditor"
ROLES = (FLOOR_MANAGER, SLOT_ATTENDANT, AUDITOR)

VIEW = ("view",)
EDIT = ("view", "add", "change", "delete")


@dataclass(frozen=True)
class Rule:
    """Grants ``actions`` (view/add/change/delete or a custom codename prefix) on models of an app.

    ``model`` is a model name in lower case, or "*" for every model of the app; ``app_label`` "*" means
    every installed app. ``exclude`` names models the rule does not cover.
    """

    app_label: str
    model: str
    actions: tuple[str, ...]
    exclude: tuple[str, ...] = ()


# Raw machine events are the source of truth for every amount: nobody edits them through the admin.
_SLOTS_READ_ONLY = ("machineevent",)

# The floor managers' workspace (floor.Workspace permissions): reports, the live map, the hits queue, level
# parameters. Floor managers get every workspace permission but the mystery triggers through their
# floor rule; the others are listed.
_WORKSPACE = "workspace"

ROLE_RULES: dict[str, list[Rule]] = {
    FLOOR_MANAGER: [
        Rule("floor", "*", EDIT, exclude=("staffprofile", _WORKSPACE, "significantevent")),
        Rule("floor", "staffprofile", VIEW),
        # The significant-events register is append-only: read by everyone, written only by the product.
        Rule("floor", "significantevent", VIEW),
        Rule("floor", _WORKSPACE, ("view", "import", "verify", "pay", "void", "change")),
        Rule("slots", "*", EDIT, exclude=_SLOTS_READ_ONLY),
        Rule("slots", "machineevent", VIEW),
        Rule("jackpots", "*", VIEW),
        Rule("gatewaylink", "*", VIEW),
        Rule("signage", "*", VIEW),
        Rule("signage", "signtheme", EDIT),
        Rule("jackpots", "exchangerate", ("add",)),
        # Maker-checker: a manager proposes a change of a level's money or parameters, another approves.
        Rule("jackpots", "changeproposal", ("propose", "approve")),
        Rule("tables", "*", VIEW),
        Rule("tables", "table", EDIT),
        # add: issue a table key; change: revoke one (keys are never edited otherwise).
        Rule("tables", "tablekey", ("add", "change")),
        Rule("tables", "paytable", ("stage",)),
        # A supervisor releases a Caribbean Stud declaration: play resumes at the linked tables.
        Rule("tables", "tabledeclaration", ("release",)),
        # The wide-area link (on the link's installation): a manager adds a casino and issues its key
        # (add) or revokes it (change); what the sites sent and the awards are the product's, read only.
        Rule("linkcentral", "*", VIEW),
        Rule("linkcentral", "linksite", ("add", "change")),
        Rule("linkcentral", "linksitekey", ("add", "change")),
        # A site's membership of a link (its URL and key) is set up by a manager; its outbox is read only.
        Rule("linksite", "*", VIEW),
        Rule("linksite", "linkmembership", EDIT),
        # The workspace's records: a manager signs a business day off (add); slips are made by paying.
        Rule("workspace", "dayclose", ("view", "add")),
        Rule("workspace", "hitslip", VIEW),
    ],
    SLOT_ATTENDANT: [
        Rule(
            "floor", "*", VIEW, exclude=("staffprofile", _WORKSPACE, "machinehourstat", "reportrefreshstate")
        ),
        # The live map and the hits queue; an attendant verifies, a floor manager pays and voids (rule 8).
        Rule("floor", _WORKSPACE, ("view_floor", "verify")),
        Rule("slots", "*", VIEW),
        Rule("jackpots", "progressive", VIEW),
        Rule("jackpots", "level", VIEW),
        Rule("jackpots", "hit", VIEW),
    ],
    # Reads everything, edits nothing; the only role that sees mystery triggers (rule 9).
    AUDITOR: [
        Rule("*", "*", VIEW),
        Rule("floor", _WORKSPACE, ("see",)),
    ],
}


def _rule_filter(rule: Rule) -> Q:
    codenames = Q()
    for action in rule.actions:
        codenames |= Q(codename__startswith=f"{action}_")
    query = codenames
    if rule.app_label != "*":
        query &= Q(content_type__app_label=rule.app_label)
    if rule.model != "*":
        query &= Q(content_type__model=rule.model)
    if rule.exclude:
        query &= ~Q(content_type__model__in=rule.exclude)
    return query


def role_permission_ids(role: str, *, apps=global_apps, using: str = "default") -> set[int]:
    Permission = apps.get_model("auth", "Permission")
    ids: set[int] = set()
    for rule in ROLE_RULES[role]:
        ids.update(Permission.objects.using(using).filter(_rule_filter(rule)).values_list("id", flat=True))
    return ids


def roles_apply(*, apps=global_apps, using: str = "default") -> None:
    """Creates the role groups if missing and gives each exactly the permissions of its rules."""
    Group = apps.get_model("auth", "Group")
    for role in ROLES:
        group, _created = Group.objects.using(using).get_or_create(name=role)
        wanted = role_permission_ids(role, apps=apps, using=using)
        current = set(group.permissions.values_list("id", flat=True))
        if wanted != current:
            group.permissions.set(wanted)


def roles_post_migrate(sender, *, apps=global_apps, using: str = "default", **kwargs) -> None:
    """post_migrate is sent once per app with models (after a migrate, and after every flush of a test
    database), and permissions are created app by app: the roles are applied once, at the last app's
    signal, when every app's permissions exist (auth's handler runs before this one, its app being
    installed first). Applied at every app's signal they cost ~1,500 queries each time, for the same
    groups. Nothing is written when nothing changed."""
    if sender is not _last_app_with_models():
        return
    try:
        apps.get_model("auth", "Group")
    except LookupError:  # auth not migrated in this state
        return
    roles_apply(apps=apps, using=using)


def _last_app_with_models() -> AppConfig:
    """The app post_migrate is sent for last (Django sends it in the registry's order, for each app with a
    models module)."""
    return [config for config in global_apps.get_app_configs() if config.models_module is not None][-1]
