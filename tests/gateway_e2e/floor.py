"""The floor of the gateway end-to-end tests, created in the private database they start:

    python -m tests.gateway_e2e.floor <machines> [<machines per line, default 2>]

Two progressives with the same Grand level: one played by <machines> SAS machines through the gateway
(SAS group 1: Grand is SAS level 1, and a mystery Minor, SAS level 2, that must hit within EUR 0.50 of
play), its twin by as many machines whose games the test posts as JSON. Two SAS machines a line unless told
(line-1, line-2, ...; addresses 1, 2, ...); the first has a handpay limit below the Grand. Prints, as
JSON, the venue's gateway key, both sets of asset numbers and the levels.
"""

from __future__ import annotations

import json
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")
    import django

    django.setup()
    from decimal import Decimal

    from jackpots.models import Level
    from jackpots.services import core
    from jackpots.services.levels import level_create
    from slots.models import SlotMachine
    from slots.services.keys import gateway_key_issue
    from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, RoomFactory, SlotMachineFactory

    grand_params = core.Params(reset_mc=100_000_000, rate=Decimal("0.01"), reserve_rate=Decimal("0.002"))
    minor_params = core.Params(10_000_000, Decimal("0.01"), limit_mc=10_050_000, mystery=True)
    count = int(sys.argv[1])
    per_line = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    room = RoomFactory()
    floor: dict = {"machines": {}, "levels": {}}
    progressives = {}
    for side in ("sas", "json"):
        progressive = ProgressiveFactory(name=f"{side.upper()} Vault", sas_group=1 if side == "sas" else 0)
        machines = [SlotMachineFactory(room=room, denomination_cents=50) for _ in range(count)]
        for machine in machines:
            ProgressiveMachineFactory(progressive=progressive, machine=machine)
        progressives[side] = progressive
        grand = level_create(progressive, name="Grand", position=1, params=grand_params)
        floor["levels"][side] = grand.pk
        floor["machines"][side] = [m.asset_number for m in machines]
    Level.objects.filter(pk=floor["levels"]["sas"]).update(sas_level=1)
    minor = level_create(progressives["sas"], name="Minor", position=2, params=minor_params)
    Level.objects.filter(pk=minor.pk).update(sas_level=2)
    floor["levels"]["minor"] = minor.pk
    for index, machine in enumerate(
        SlotMachine.objects.filter(asset_number__in=floor["machines"]["sas"]).order_by("asset_number")
    ):
        machine.sas_line = f"line-{1 + index // per_line}"
        machine.sas_address = 1 + index % per_line
        machine.sas_group = 1
        machine.sas_handpay_limit_cents = 50_000 if index == 0 else 200_000
        machine.save()
    floor["key"] = gateway_key_issue(room.venue)[1]
    # A second key of the venue for whatever watches the server's broadcasts beside the gateway (the
    # benchmark's listener): one live connection per key, so a watcher on the gateway's own key would take
    # its place whenever the gateway restarts.
    floor["watch_key"] = gateway_key_issue(room.venue)[1]
    print(json.dumps(floor))


if __name__ == "__main__":
    main()
