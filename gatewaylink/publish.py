"""Commands to a venue's SAS gateway connections, after the engine's commit (``consumers``).

The engine tells of its hits through ``jackpots.hooks``; this app listens there itself (registered in
``GatewaylinkConfig.ready``), so an award or a reset reaches the machines whatever the signs do with the
same news. Amounts and WIN frames reach the gateways through the progressives' groups (``progressive_group``).
"""

from __future__ import annotations

from common.channels import groups_send
from gatewaylink.selectors import award_target, handpay_reset_target


def gateway_group(venue_id: int) -> str:
    """The venue's SAS gateway connections; amounts and hits reach them through the progressives' groups,
    like the signs."""
    return f"gateway.venue.{venue_id}"


def _command_send(found: tuple[int, dict] | None) -> None:
    if found is not None:
        venue_id, frame = found
        groups_send([(gateway_group(venue_id), {"type": "gateway.command", "frame": frame})])


def hit_announced(hit_id: int) -> None:
    """A hit was recorded: a mystery award of a SAS machine is sent to its venue's gateway to credit."""
    _command_send(award_target(hit_id))


def hit_paid(hit_id: int) -> None:
    """A hit was paid by the floor: a SAS machine in handpay lockup is reset by its venue's gateway."""
    _command_send(handpay_reset_target(hit_id))


def listeners_register() -> None:
    """The engine's news the gateways listen to (``jackpots.hooks``)."""
    from jackpots.hooks import hooks

    hooks.hit_announced.append(hit_announced)
    hooks.hit_paid.append(hit_paid)
