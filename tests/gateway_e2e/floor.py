"""The floor of the gateway end-to-end tests, created in the private database they start:

    python -m tests.gateway_e2e.floor <machines>

Two progressives with the same Grand level: one played by <machines> SAS machines through the gateway,
its twin by as many machines whose games the test posts as JSON. Prints, as JSON, the venue's gateway
key, both sets of asset numbers and both levels.
"""

from __future__ import annotations

import json
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")
    import django

    django.setup()
    from floor.credentials import credential_issue
    from jackpots.services.levels import level_create
    from slots.models import GatewayKey
    from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, RoomFactory, SlotMachineFactory
    from tests.jackpots.conftest import GRAND

    count = int(sys.argv[1])
    room = RoomFactory()
    floor: dict = {"machines": {}, "levels": {}}
    for side in ("sas", "json"):
        progressive = ProgressiveFactory(name=f"{side.upper()} Vault")
        machines = [SlotMachineFactory(room=room, denomination_cents=50) for _ in range(count)]
        for machine in machines:
            ProgressiveMachineFactory(progressive=progressive, machine=machine)
        floor["levels"][side] = level_create(progressive, name="Grand", position=1, params=GRAND).pk
        floor["machines"][side] = [m.asset_number for m in machines]
    _credential, floor["key"] = credential_issue(GatewayKey, kind="gw", venue=room.venue)
    print(json.dumps(floor))


if __name__ == "__main__":
    main()
