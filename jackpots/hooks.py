"""What the engine tells the apps above it, without importing them (the one-way house).

The engine (jackpots) changes levels and records and pays hits; the signs (signage), the SAS gateways'
server side (gatewaylink) and the table games (tables) are above it and must hear of it. Each registers
its listeners once, in its ``AppConfig.ready()``; the engine calls whatever is registered, after its
transaction commits, so a listener only ever sees committed state. A listener that fails is logged and
the others still run: the engine's money is committed whatever a screen or a gateway does with the news.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db import transaction

if TYPE_CHECKING:
    from common.credentials import Credential
    from floor.models import Venue
    from jackpots.models import Hit, Level, Progressive

logger = logging.getLogger(__name__)


@dataclass
class JackpotsHooks:
    # Levels with new amounts, once per committed batch, never per event (signage: the signs' amounts;
    # the gateways hear them through the same progressive groups).
    levels_changed: list[Callable[[list[int]], None]] = field(default_factory=list)
    # A hit was recorded (signage: the WIN celebration; gatewaylink: a mystery award due to a SAS machine
    # is sent to its venue's gateway).
    hit_announced: list[Callable[[int], None]] = field(default_factory=list)
    # A hit was paid by the floor (gatewaylink: a SAS machine in handpay lockup is reset).
    hit_paid: list[Callable[[int], None]] = field(default_factory=list)
    # A progressive's rules changed: parameters or pay tables (signage: the rules on the screens).
    rules_changed: list[Callable[[int], None]] = field(default_factory=list)
    # News of one progressive for whatever shows it (signage forwards it to ``progressive_group``: the
    # signs and the gateways). The message is a channel-layer message ({"type": ..., ...}); tables: a
    # Caribbean Stud declaration opened or ended.
    progressive_news: list[Callable[[int, dict], None]] = field(default_factory=list)


hooks = JackpotsHooks()


# --- Providers: what the apps above add to the engine's own reads, and to the signs' --------------------
# Unlike the listeners above, the engine asks and uses the answers (in its transaction, at once). The
# table games (tables) register them in their ``AppConfig.ready()``: the engine knows machines, and of a
# table's prize only the Hit it recorded; what a table is, where it stands and who paid at it, tables
# answer. With nothing registered the engine is a machines-only engine.


@dataclass(frozen=True)
class Place:
    """A place a progressive is played at besides its member machines (a table)."""

    progressive_id: int
    venue_id: int
    venue_code: str


@dataclass(frozen=True)
class HitPlace:
    """Where a machine-less hit was won: ``code`` as the API and the signs name it (the table's code),
    ``where`` as a WIN says it ("Sala Uno · Caribbean Stud")."""

    code: str
    where: str


@dataclass(frozen=True)
class KeyIssuer:
    """``manage.py issue_key --<name> <value>``: ``issue`` answers the new key for ``value`` (raising
    ``CommandError`` for an unknown one)."""

    metavar: str
    help: str
    issue: Callable[[str], str]


@dataclass(frozen=True)
class RulesExtra:
    """The rules of a progressive whose prizes are not the machines' (a table progressive): ``head``
    comes before the levels' amounts (the bets), ``tail`` after (its pay table, how wins are shared).
    Each is called in the language the lines are wanted in and answers (key, text) pairs."""

    head: Callable[[], list[tuple[str, str]]]
    tail: Callable[[], list[tuple[str, str]]]


@dataclass
class JackpotsProviders:
    # Credential models ``revoke_key`` finds a key among, besides the machines' and gateways' (tables:
    # TableKey).
    credential_models: list[type[Credential]] = field(default_factory=list)
    # ``issue_key``'s other targets by option name (tables: "table").
    key_issuers: dict[str, KeyIssuer] = field(default_factory=dict)
    # The places of the given progressives (None: of every one) besides their machines (tables: the
    # tables). A progressive with no machine and no place is at every venue.
    progressive_places: list[Callable[[list[int] | None], list[Place]]] = field(default_factory=list)
    # Which of the given progressives have a member up besides a machine in service (tables: an active
    # table; a table has no connection state of its own).
    progressives_up: list[Callable[[list[int]], set[int]]] = field(default_factory=list)
    # Where a machine-less hit was won (tables: the table whose round won it first).
    hit_place: list[Callable[[Hit], HitPlace | None]] = field(default_factory=list)
    # The venue a machine-less hit is paid in (its currency, its significant-events register).
    hit_venue: list[Callable[[Hit], Venue | None]] = field(default_factory=list)
    # The two-person threshold of a machine-less hit, in cents (tables: the lowest of its tables' venues).
    hit_threshold_cents: list[Callable[[Hit], int | None]] = field(default_factory=list)
    # Who paid a paid hit when neither a person nor a machine did, as people read it ("table NOG-CSP-1").
    hit_payer: list[Callable[[Hit], str | None]] = field(default_factory=list)
    # A paid hit whose payment a void takes back (tables: paid at the table; a hand declared void at the
    # table takes back what the table paid, rule 8). A payment the floor made stands.
    hit_payment_voidable: list[Callable[[Hit], bool]] = field(default_factory=list)
    # A hit paid part by part to several winners, never as one (tables: a shared prize).
    hit_paid_in_parts: list[Callable[[Hit], bool]] = field(default_factory=list)
    # The void of a hit of this kind when more than the level is voided (tables: "table", its seats and
    # rounds too): (hit, user, reason) -> the voided hit.
    hit_voiders: dict[str, Callable[[Hit, Any, str], Hit]] = field(default_factory=dict)
    # The audit's checks of a level's records kept outside the engine; each reports through ``bad``.
    level_audits: list[Callable[[Level, Callable[[str], None]], None]] = field(default_factory=list)
    # The signs: rules lines beyond the levels' (tables: pay table, jackpot bets, sharing).
    progressive_rules_extra: list[Callable[[Progressive], RulesExtra | None]] = field(default_factory=list)
    # The signs: frames a sign connecting now gets after its snapshot (tables: pending declarations;
    # linksite: a jackpot pending at the link).
    sign_frames: list[Callable[[list[int]], list[dict]]] = field(default_factory=list)
    # The signs: words the sign's script needs besides its own, in the active language (tables: hands).
    sign_strings: list[Callable[[], dict[str, Any]]] = field(default_factory=list)
    # Levels whose pool is kept elsewhere, shown at the amount and value sequence heard from there
    # (linksite: a wide-area pool's level shows the link's amount), {level id: (amount_mc, seq)}. The level's
    # own row stays the installation's books of its own play; only what screens and the API show changes.
    levels_shown_elsewhere: list[Callable[[list[int]], dict[int, tuple[int, int]]]] = field(
        default_factory=list
    )
    # Progressives whose link is down for a reason only an app above knows (linksite: the link is silent).
    progressives_down: list[Callable[[list[int]], set[int]]] = field(default_factory=list)


providers = JackpotsProviders()


def levels_shown_elsewhere(level_ids: list[int]) -> dict[int, tuple[int, int]]:
    """{level id: (amount_mc, seq)} of the given levels whose pool is kept elsewhere (none: {})."""
    shown: dict[int, tuple[int, int]] = {}
    for provide in providers.levels_shown_elsewhere:
        shown |= provide(level_ids)
    return shown


def first_answer(askers: Iterable[Callable[..., Any]], *args: object) -> Any:
    """The first provider's answer that is not None (None when none answers)."""
    for ask in askers:
        answer = ask(*args)
        if answer is not None:
            return answer
    return None


def any_says(askers: Iterable[Callable[..., bool]], *args: object) -> bool:
    return any(ask(*args) for ask in askers)


def places_of(progressive_ids: list[int] | None) -> list[Place]:
    return [place for provide in providers.progressive_places for place in provide(progressive_ids)]


def progressive_group(progressive_id: int) -> str:
    """The channel-layer group of a progressive's news: the signs and the SAS gateways showing it join
    it (each app above names it through here, so they cannot drift apart)."""
    return f"signage.progressive.{progressive_id}"


def _call_all(listeners: Iterable[Callable[..., None]], *args: object) -> None:
    for listener in listeners:
        try:
            listener(*args)
        except Exception:
            logger.exception(
                "A listener of the engine failed: %s", getattr(listener, "__qualname__", listener)
            )


def levels_changed_on_commit(level_ids: list[int]) -> None:
    if level_ids:
        ids = list(level_ids)
        transaction.on_commit(lambda: _call_all(hooks.levels_changed, ids))


def hit_announced_on_commit(hit_id: int) -> None:
    transaction.on_commit(lambda: _call_all(hooks.hit_announced, hit_id))


def hit_paid_on_commit(hit_id: int) -> None:
    transaction.on_commit(lambda: _call_all(hooks.hit_paid, hit_id))


def progressive_news_send(progressive_id: int, message: dict) -> None:
    """Tells the listeners at once: the caller sends it after its own commit."""
    _call_all(hooks.progressive_news, progressive_id, message)


def rules_changed_on_commit(progressive_id: int) -> None:
    """Once the caller's transaction commits (at once outside one), the listeners see the rules as
    committed."""
    transaction.on_commit(lambda: _call_all(hooks.rules_changed, progressive_id))
