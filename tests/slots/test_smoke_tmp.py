from slots.models import MachineEvent
from tests.slots.conftest import game


def test_smoke(machine, machine_key, post_events):
    status, body = post_events([game(machine, 1), game(machine, 2), game(machine, 1)], key=machine_key)
    assert (status, body) == (200, {"accepted": 2, "duplicates": 1, "rejected": []})
    assert MachineEvent.objects.count() == 2
