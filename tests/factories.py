"""factory_boy factories for the floor, the machines and the progressives."""

from __future__ import annotations

from decimal import Decimal

import factory

from floor.models import Bank, Room, SignageScreen, Venue
from jackpots.models import Level, Progressive, ProgressiveMachine
from slots.models import SlotMachine


class VenueFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Venue
        django_get_or_create = ("code",)

    code = "NOG"
    name = "Ca' Noghera"
    address = "via Paliaga 4/8, 30173 Tessera (VE)"


class RoomFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Room

    venue = factory.SubFactory(VenueFactory)
    number = factory.Sequence(lambda n: n + 1)
    name = factory.LazyAttribute(lambda room: f"Sala {room.number}")


class BankFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Bank

    room = factory.SubFactory(RoomFactory)
    code = factory.Sequence(lambda n: f"B{n:03d}")


class SlotMachineFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = SlotMachine

    asset_number = factory.Sequence(lambda n: f"NOG-{n + 1:04d}")
    serial = factory.Sequence(lambda n: f"SN{n:08d}")
    manufacturer = "IGT"
    game_title = "Diamond Vault"
    denomination_cents = 50
    min_bet_cents = 50
    max_bet_cents = 450
    room = factory.SubFactory(RoomFactory)
    bank = factory.LazyAttribute(lambda machine: BankFactory(room=machine.room))


class ProgressiveFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Progressive

    name = factory.Sequence(lambda n: f"Progressive {n}")
    kind = Progressive.Kind.LINKED


class LevelFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Level

    progressive = factory.SubFactory(ProgressiveFactory)
    name = "Grand"
    reset_mc = 100_000_000  # €1,000.00
    rate = Decimal("0.01")
    reserve_rate = Decimal("0.002")
    current_mc = factory.LazyAttribute(lambda level: level.reset_mc)


class ProgressiveMachineFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ProgressiveMachine

    progressive = factory.SubFactory(ProgressiveFactory)
    machine = factory.SubFactory(SlotMachineFactory)


class SignageScreenFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = SignageScreen

    venue = factory.SubFactory(VenueFactory)
    slug = factory.Sequence(lambda n: f"screen-{n}")
