"""Issuing the keys of machines and gateways (their digests and checks: common.credentials)."""

from __future__ import annotations

from django.contrib.auth.models import User

from common.credentials import credential_issue
from floor.models import Venue
from slots.models import GatewayKey, MachineKey, SlotMachine

MACHINE_KEY_KIND = "mach"
GATEWAY_KEY_KIND = "gw"


def machine_key_issue(machine: SlotMachine, *, created_by: User | None = None) -> tuple[MachineKey, str]:
    """A new key for one machine; the machine's earlier keys stay valid until revoked (key rotation)."""
    return credential_issue(MachineKey, kind=MACHINE_KEY_KIND, created_by=created_by, machine=machine)


def gateway_key_issue(venue: Venue, *, created_by: User | None = None) -> tuple[GatewayKey, str]:
    """A new key for a venue's gateway (the site controller that posts for all its machines)."""
    return credential_issue(GatewayKey, kind=GATEWAY_KEY_KIND, created_by=created_by, venue=venue)
