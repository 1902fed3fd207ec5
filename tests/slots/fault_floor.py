"""The floor of the fault tests, created in the private database they start:

    python -m tests.slots.fault_floor <machines>

prints, as JSON, a gateway key, the machines' asset numbers and the level they feed.
"""

from __future__ import annotations

import json
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")
    import django

    django.setup()
    from common.credentials import credential_issue
    from jackpots.services.levels import level_create
    from slots.models import GatewayKey
    from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, RoomFactory, SlotMachineFactory
    from tests.jackpots.conftest import GRAND

    room = RoomFactory()
    progressive = ProgressiveFactory(name="Fault Vault")
    machines = [SlotMachineFactory(room=room) for _ in range(int(sys.argv[1]))]
    for machine in machines:
        ProgressiveMachineFactory(progressive=progressive, machine=machine)
    level = level_create(progressive, name="Grand", position=1, params=GRAND)
    _credential, key = credential_issue(GatewayKey, kind="gw", venue=room.venue)
    print(json.dumps({"key": key, "machines": [m.asset_number for m in machines], "level": level.pk}))


if __name__ == "__main__":
    main()
