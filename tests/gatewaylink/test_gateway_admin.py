"""The SAS fields in the admin: a machine's line, address, group and limit; a progressive's group and its
levels' SAS numbers (the only things editable on those pages); the gateways' award answers."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from gatewaylink.models import SasAward
from jackpots.models import Hit, HitKind, Level, Progressive
from slots.models import SlotMachine
from tests.gatewaylink.helpers import Floor


@pytest.fixture
def superuser(db):
    return get_user_model().objects.create_superuser("root", "root@example.org", "x")


def machine_form(machine: SlotMachine, **changes) -> dict:
    data = {
        "asset_number": machine.asset_number,
        "serial": machine.serial,
        "manufacturer": machine.manufacturer,
        "game_title": machine.game_title,
        "stations": machine.stations,
        "denomination_cents": machine.denomination_cents,
        "min_bet_cents": machine.min_bet_cents,
        "max_bet_cents": machine.max_bet_cents,
        "meter_digits": machine.meter_digits,
        "room": machine.room_id,
        "bank": machine.bank_id or "",
        "pos_x": machine.pos_x,
        "pos_y": machine.pos_y,
        "status": machine.status,
        "sas_line": machine.sas_line,
        "sas_address": machine.sas_address or "",
        "sas_group": machine.sas_group,
        "sas_handpay_limit_cents": machine.sas_handpay_limit_cents or "",
        "last_seen_0": "",
        "last_seen_1": "",
        "last_game_at_0": "",
        "last_game_at_1": "",
        "keys-TOTAL_FORMS": 0,
        "keys-INITIAL_FORMS": 0,
    }
    return {**data, **changes}


def test_a_machine_is_put_on_sas_in_the_admin(client, superuser, floor_db: Floor):
    client.force_login(superuser)
    url = reverse("admin:slots_slotmachine_change", args=[floor_db.plain.pk])
    page = client.get(url)
    assert page.status_code == 200 and b'name="sas_address"' in page.content
    form = machine_form(floor_db.plain, sas_line="line-2", sas_address="1", sas_group="1")
    response = client.post(url, form)
    assert response.status_code == 302, response.context["adminform"].form.errors
    floor_db.plain.refresh_from_db()
    assert (floor_db.plain.sas_line, floor_db.plain.sas_address, floor_db.plain.sas_group) == ("line-2", 1, 1)


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        (
            {"sas_line": "line-1", "sas_address": "2"},
            "sas_address",
            "NOG-0102 already has SAS address 2 on line line-1.",
        ),
        (
            {"sas_line": "line-1", "sas_address": "128"},
            "sas_address",
            "Ensure this value is less than or equal to 127.",
        ),
        (
            {"sas_line": "line-1", "sas_address": "0"},
            "sas_address",
            "Ensure this value is greater than or equal to 1.",
        ),
        (
            {"sas_line": "", "sas_address": "5"},
            "sas_line",
            "A machine on SAS needs both its SAS line and its SAS address; leave both empty otherwise.",
        ),
    ],
)
@pytest.mark.usefixtures("floor_db")
def test_bad_sas_fields_are_refused(client, superuser, changes, field, message):
    plain = SlotMachine.objects.get(asset_number="NOG-0103")
    client.force_login(superuser)
    url = reverse("admin:slots_slotmachine_change", args=[plain.pk])
    response = client.post(url, machine_form(plain, **changes))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors[field] == [message]
    plain.refresh_from_db()
    assert (plain.sas_line, plain.sas_address) == ("", None)


def test_the_same_address_on_another_line_or_venue_is_fine(floor_db: Floor):
    floor_db.plain.sas_line, floor_db.plain.sas_address = "line-2", 1
    floor_db.plain.full_clean()


def progressive_form(floor: Floor, group: str, levels: dict[int, str]) -> dict:
    data = {
        "sas_group": group,
        "levels-TOTAL_FORMS": 2,
        "levels-INITIAL_FORMS": 2,
        "levels-MIN_NUM_FORMS": 0,
        "levels-MAX_NUM_FORMS": 1000,
    }
    for i, level in enumerate((floor.grand, floor.minor)):
        data[f"levels-{i}-id"] = level.pk
        data[f"levels-{i}-progressive"] = floor.progressive.pk
        data[f"levels-{i}-sas_level"] = levels[level.pk]
    return data


def test_the_sas_group_and_levels_are_edited_and_nothing_else_moves(client, superuser, floor_db: Floor):
    client.force_login(superuser)
    url = reverse("admin:jackpots_progressive_change", args=[floor_db.progressive.pk])
    assert client.get(url).status_code == 200
    # The engine moves the level after the page was read: the save must not write the old amount back.
    Level.objects.filter(pk=floor_db.grand.pk).update(current_mc=160_000_000, seq=9)
    response = client.post(
        url, progressive_form(floor_db, "7", {floor_db.grand.pk: "3", floor_db.minor.pk: ""})
    )
    assert response.status_code == 302
    assert Progressive.objects.get(pk=floor_db.progressive.pk).sas_group == 7
    assert list(Level.objects.order_by("position").values_list("sas_level", "current_mc", "seq")) == [
        (3, 160_000_000, 9),
        (None, 10_500_000, 3),
    ]


def test_a_sas_level_out_of_range_is_refused(client, superuser, floor_db: Floor):
    client.force_login(superuser)
    url = reverse("admin:jackpots_progressive_change", args=[floor_db.progressive.pk])
    response = client.post(
        url, progressive_form(floor_db, "1", {floor_db.grand.pk: "33", floor_db.minor.pk: "2"})
    )
    assert response.status_code == 200
    assert response.context["inline_admin_formsets"][0].formset.errors[0] == {
        "sas_level": ["Ensure this value is less than or equal to 32."]
    }
    assert Level.objects.get(pk=floor_db.grand.pk).sas_level == 1


def test_an_attendant_cannot_edit_the_sas_map(client, floor_db: Floor, attendant):
    client.force_login(attendant)
    url = reverse("admin:jackpots_progressive_change", args=[floor_db.progressive.pk])
    assert client.get(url).status_code == 200  # may look
    client.post(url, progressive_form(floor_db, "7", {floor_db.grand.pk: "3", floor_db.minor.pk: "2"}))
    assert Progressive.objects.get(pk=floor_db.progressive.pk).sas_group == 1


def test_a_floor_manager_edits_the_sas_map_and_no_money_parameter(client, floor_db: Floor, manager):
    """The SAS map (machines' line, address, group and limit; the progressive's group and its levels'
    SAS numbers) is the floor's wiring, a floor manager's job; the level's money stays with the engine."""
    client.force_login(manager)
    machine_url = reverse("admin:slots_slotmachine_change", args=[floor_db.plain.pk])
    form = machine_form(
        floor_db.plain, sas_line="line-2", sas_address="4", sas_group="1", sas_handpay_limit_cents="90000"
    )
    assert client.post(machine_url, form).status_code == 302
    got = SlotMachine.objects.values_list("sas_line", "sas_address", "sas_group", "sas_handpay_limit_cents")
    assert got.get(pk=floor_db.plain.pk) == ("line-2", 4, 1, 90_000)

    url = reverse("admin:jackpots_progressive_change", args=[floor_db.progressive.pk])
    before = list(Level.objects.order_by("position").values_list("current_mc", "reset_mc", "rate", "seq"))
    form = progressive_form(floor_db, "7", {floor_db.grand.pk: "3", floor_db.minor.pk: ""})
    form.update(
        {"name": "Renamed", "levels-0-reset_mc": "1", "levels-0-rate": "0.5", "levels-0-current_mc": "1"}
    )
    assert client.post(url, form).status_code == 302
    progressive = Progressive.objects.get(pk=floor_db.progressive.pk)
    assert (progressive.sas_group, progressive.name) == (7, floor_db.progressive.name)
    assert list(Level.objects.order_by("position").values_list("sas_level", flat=True)) == [3, None]
    assert (
        list(Level.objects.order_by("position").values_list("current_mc", "reset_mc", "rate", "seq"))
        == before
    )

    # The level's own page stays read-only for them: its parameters change only through the engine.
    level_url = reverse("admin:jackpots_level_change", args=[floor_db.grand.pk])
    assert client.post(level_url, {"reset_mc": "1", "rate": "0.5"}).status_code == 403
    assert not manager.has_perm("jackpots.change_level") and not manager.has_perm(
        "jackpots.change_progressive"
    )


def test_an_attendant_cannot_edit_a_machine_on_sas(client, floor_db: Floor, attendant):
    client.force_login(attendant)
    url = reverse("admin:slots_slotmachine_change", args=[floor_db.plain.pk])
    assert (
        client.post(url, machine_form(floor_db.plain, sas_line="line-2", sas_address="4")).status_code == 403
    )
    floor_db.plain.refresh_from_db()
    assert (floor_db.plain.sas_line, floor_db.plain.sas_address) == ("", None)


def test_the_award_answers_are_listed_with_their_difference(client, superuser, floor_db: Floor):
    hit = Hit.objects.create(
        level=floor_db.minor,
        machine=floor_db.sas1,
        at=timezone.now(),
        amount_cents=10_525,
        level_seq=4,
        cycle=1,
        kind=HitKind.MYSTERY,
    )
    SasAward.objects.create(
        hit=hit,
        machine=floor_db.sas1,
        status="paid",
        asked_cents=10_525,
        paid_cents=10_500,
        difference_cents=-25,
        at=timezone.now(),
    )
    client.force_login(superuser)
    page = client.get(reverse("admin:gatewaylink_sasaward_changelist"))
    assert page.status_code == 200
    text = page.content.decode()
    assert "105.25" in text and "105.00" in text and "-0.25" in text
