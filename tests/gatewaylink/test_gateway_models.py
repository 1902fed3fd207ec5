"""The database holds the SAS rules even past the forms: address range, SAS level range and uniqueness."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from jackpots.models import Level
from slots.models import SlotMachine
from tests.gatewaylink.helpers import Floor


@pytest.mark.parametrize("address", [0, 128])
def test_an_address_out_of_range_is_refused_by_the_database(floor_db: Floor, address: int):
    with pytest.raises(IntegrityError), transaction.atomic():
        SlotMachine.objects.filter(pk=floor_db.plain.pk).update(sas_line="line-9", sas_address=address)
    assert SlotMachine.objects.get(pk=floor_db.plain.pk).sas_address is None


@pytest.mark.parametrize("sas_level", [0, 33])
def test_a_sas_level_out_of_range_is_refused_by_the_database(floor_db: Floor, sas_level: int):
    with pytest.raises(IntegrityError), transaction.atomic():
        Level.objects.filter(pk=floor_db.minor.pk).update(sas_level=sas_level)
    assert Level.objects.get(pk=floor_db.minor.pk).sas_level == 2


def test_two_levels_of_a_progressive_cannot_share_a_sas_level(floor_db: Floor):
    with pytest.raises(IntegrityError), transaction.atomic():
        Level.objects.filter(pk=floor_db.minor.pk).update(sas_level=1)
    assert Level.objects.get(pk=floor_db.minor.pk).sas_level == 2


def test_levels_off_sas_are_many(floor_db: Floor):
    Level.objects.filter(progressive=floor_db.progressive).update(sas_level=None)
    assert Level.objects.filter(progressive=floor_db.progressive, sas_level__isnull=True).count() == 2
