"""The live floor: machine states per room, pushed to the floor map after each committed change."""

from workspace.live.publish import machines_changed, room_group

__all__ = ["machines_changed", "room_group"]
