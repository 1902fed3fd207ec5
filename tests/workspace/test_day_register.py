"""The daily progressive register: a business day of each level from the ledger, its identity to the
millicent, on the day close page, in CSV and PDF, and frozen by the sign-off.

The expected amounts are worked out by hand from the scenario's wagers, rates, hits and moves (see each
constant), never by summing the ledger: the register must agree with what happened."""

from __future__ import annotations

import dataclasses
import io
from datetime import date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.template.loader import render_to_string
from django.utils import timezone, translation
from pypdf import PdfReader

from jackpots.models import Hit, LedgerEntry, Level
from jackpots.services import core, hit_pay, hit_verify, hit_void, level_award, level_hit, level_wager_add
from jackpots.services.level_write import Written, levels_write
from jackpots.services.levels import ledger_entry, level_create
from slots.models import MachineEvent
from tables.models import Table
from tables.rules import Game
from tests.browser import ARTIFACTS
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory, VenueFactory
from tests.staff_fixtures import game_event
from workspace.dayclose.register import RegisterRow, day_register, register_total
from workspace.dayclose.services import dayclose_register, dayclose_sign
from workspace.models import DayClose

pytestmark = pytest.mark.django_db

ROME = ZoneInfo("Europe/Rome")
DAY = date(2026, 11, 20)  # the business day 2026-11-20 06:00 to 2026-11-21 06:00, Rome time


def rome(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 11, day, hour, minute, tzinfo=ROME)


def level_move(level: Level, kind: str, at: datetime, amount_mc: int, column: str) -> None:
    """A two-person move (top-up, correction, transfer) as its services will write it: the level's current
    amount changes by ``amount_mc`` and the ledger row says where it came from (``column``), through the
    level write choke point, so the money conserves."""

    def step(locked) -> Written:
        state = locked.state(level.id)
        after = dataclasses.replace(state, current_mc=state.current_mc + amount_mc, seq=state.seq + 1)
        movement = core.Movement(current_delta_mc=amount_mc, **{column: amount_mc})
        entry = ledger_entry(locked.levels[level.id], kind, movement, after, at=at, reference="test")
        return Written({level.id: after}, [entry])

    levels_write([level.id], step)


@pytest.fixture
def clock(monkeypatch):
    """Services that stamp ``timezone.now()`` (verify, pay, void) do so at the time set here."""
    when = {"now": timezone.now()}
    monkeypatch.setattr(timezone, "now", lambda: when["now"])

    def set_to(at: datetime) -> None:
        when["now"] = at

    return set_to


# Grand: reset €1,000.00, 1% to the amount and 0.2% to the reserve. Major: reset €100.00.
GRAND = core.Params(reset_mc=100_000_000, rate=Decimal("0.01"), reserve_rate=Decimal("0.002"))
MAJOR = core.Params(reset_mc=10_000_000, rate=Decimal("0.005"))


@pytest.fixture
def day(db, clock, manager):
    """Ca' Noghera's 20 November 2026. The progressive is linked to a machine at Ca' Vendramin too."""
    machine = SlotMachineFactory(asset_number="NOG-0001")
    vendramin = VenueFactory(code="VEN", name="Ca' Vendramin Calergi")
    other = SlotMachineFactory(asset_number="VEN-0001", room__venue=vendramin)
    progressive = ProgressiveFactory(name="Grease")
    for member in (machine, other):
        ProgressiveMachineFactory(progressive=progressive, machine=member)
    # The day before: both levels open, €100.00 played on Grand (+100,000 mc amount, +20,000 mc reserve).
    grand = level_create(progressive, name="Grand", position=1, params=GRAND, at=rome(19, 12))
    major = level_create(progressive, name="Major", position=2, params=MAJOR, at=rome(19, 12))
    level_wager_add(grand.id, 10_000, at=rome(19, 13))
    clock(rome(19, 13))  # the venue's first business day on this installation: its first event arrived
    MachineEvent.objects.bulk_create([game_event(machine, 1, rome(19, 13), 10_000, 0)])
    # The day: €500.00 played (+500,000 amount, +100,000 reserve); a hit takes €1,006.00 and resets at
    # €1,000 + the reserve's €1.20; €200.00 played (+200,000, +40,000); a second hit takes €1,003.20 and
    # resets at €1,000.40; it is voided (the level back to €1,003.20 with €0.40 in reserve).
    level_wager_add(grand.id, 50_000, at=rome(20, 10))
    first = level_hit(grand.id, machine_id=machine.id, at=rome(20, 11))
    level_wager_add(grand.id, 20_000, at=rome(20, 12))
    second = level_hit(grand.id, machine_id=machine.id, at=rome(20, 13))
    clock(rome(20, 14))
    hit_void(second, manager, "Machine fault confirmed by the technician")
    clock(rome(20, 15))
    hit_pay(hit_verify(first, manager), manager)
    # A correction of 12,345 mc (€0.12345), a €50.00 top-up, €10.00 moved from Grand to Major.
    level_move(grand, LedgerEntry.Kind.CORRECTION, rome(20, 16), 12_345, "corrected_mc")
    level_move(grand, LedgerEntry.Kind.TOPUP, rome(20, 17), 5_000_000, "seeded_mc")
    level_move(grand, LedgerEntry.Kind.TRANSFER_OUT, rome(20, 18), -1_000_000, "transferred_mc")
    level_move(major, LedgerEntry.Kind.TRANSFER_IN, rome(20, 18), 1_000_000, "transferred_mc")
    # Major hit at 05:59 next morning (still the 20th's business day) for €110.00, paid on the 21st.
    third = level_hit(major.id, machine_id=machine.id, at=rome(21, 5, 59))
    # The next business day (from 06:00 on the 21st): not in the register of the 20th.
    level_wager_add(grand.id, 70_000, at=rome(21, 6))
    clock(rome(21, 10))
    hit_pay(hit_verify(third, manager), manager)
    return {"venue": machine.room.venue, "grand": grand, "major": major, "hits": (first, second, third)}


# Grand, worked out by hand (millicents).
G_OPENING = 100_000_000 + 100_000 + 20_000  # the seed and the day before's €100.00 played
G_CONTRIBUTIONS = (500_000 + 100_000) + (200_000 + 40_000)
G_RESETS = 2 * 100_000_000  # two hits, each resets with the €1,000 reset value
G_TOPUPS = 5_000_000
G_AWARDS = 100_600_000 + 100_320_000
G_VOIDS = 100_320_000 - 100_000_000  # the second award back, its reset value taken back
G_CORRECTIONS = 12_345
G_TRANSFERS = -1_000_000
# After the void: 100,320,000 amount and 40,000 reserve; then the correction, the top-up, the transfer.
G_CURRENT = 100_320_000 + 12_345 + 5_000_000 - 1_000_000
G_RESERVE = 40_000


def test_the_identity_holds_after_a_day_of_hits_a_void_a_correction_a_top_up_and_a_transfer(day):
    rows = {row.level: row for row in day_register(day["venue"], DAY)}
    grand = rows["Grand"]
    # The closing amount, independently: what the level held after the day's last move.
    assert grand.closing_mc == G_CURRENT + G_RESERVE == 104_372_345
    independent = (
        G_OPENING + G_CONTRIBUTIONS + G_RESETS + G_TOPUPS - G_AWARDS + G_VOIDS + G_CORRECTIONS + G_TRANSFERS
    )
    assert independent == grand.closing_mc
    first, second, third = (Hit.objects.get(pk=hit.pk) for hit in day["hits"])
    assert (first.ref, second.ref, third.ref) == ("NOG-2026-00001", "NOG-2026-00002", "NOG-2026-00003")
    assert grand == RegisterRow(
        level_id=day["grand"].id,
        progressive="Grease",
        level="Grand",
        state="active",
        shared_with=["VEN"],
        opening_mc=G_OPENING,
        contributions_mc=G_CONTRIBUTIONS,
        reset_values_mc=G_RESETS,
        topups_mc=G_TOPUPS,
        awards_mc=G_AWARDS,
        voids_mc=G_VOIDS,
        corrections_mc=G_CORRECTIONS,
        transfers_mc=G_TRANSFERS,
        closing_mc=104_372_345,
        difference_mc=0,
        current_mc=G_CURRENT,
        signs_mc=104_332_000,  # the signs show whole cents: €1,043,32
        reserve_mc=G_RESERVE,
        overflow_mc=0,
        unpaid_count=0,  # the first hit was paid at 15:00, the second voided
        unpaid_mc=0,
        award_refs=["NOG-2026-00001", "NOG-2026-00002"],
        void_refs=["NOG-2026-00002"],
        unpaid_refs=[],
    )
    assert rows["Major"] == RegisterRow(
        level_id=day["major"].id,
        progressive="Grease",
        level="Major",
        state="active",
        shared_with=["VEN"],
        opening_mc=10_000_000,
        contributions_mc=0,
        reset_values_mc=10_000_000,
        topups_mc=0,
        awards_mc=11_000_000,  # €100.00 + the €10.00 moved in
        voids_mc=0,
        corrections_mc=0,
        transfers_mc=1_000_000,
        closing_mc=10_000_000,
        difference_mc=0,
        current_mc=10_000_000,
        signs_mc=10_000_000,
        reserve_mc=0,
        overflow_mc=0,
        unpaid_count=1,  # won at 05:59, paid at 10:00 of the next business day
        unpaid_mc=11_000_000,
        award_refs=["NOG-2026-00003"],
        void_refs=[],
        unpaid_refs=["NOG-2026-00003"],
    )
    assert register_total(list(rows.values())).unheld == 0


def test_a_linked_progressive_is_in_the_register_of_each_of_its_venues_and_retired_levels_stay(day):
    Level.objects.filter(pk=day["major"].pk).update(state=Level.State.RETIRED)
    ven = VenueFactory(code="VEN")
    rows = day_register(ven, DAY)
    assert [(row.level, row.state, row.shared_with, row.closing_mc) for row in rows] == [
        ("Grand", "active", ["NOG"], 104_372_345),
        ("Major", "retired", ["NOG"], 10_000_000),
    ]
    # A progressive with no machine nor table at the venue is not in its register.
    alone = ProgressiveFactory(name="Elsewhere")
    ProgressiveMachineFactory(progressive=alone, machine=SlotMachineFactory(room=ven.rooms.first()))
    level_create(alone, name="Solo", position=1, params=MAJOR, at=rome(19, 12))
    assert [row.level for row in day_register(day["venue"], DAY)] == ["Grand", "Major"]


def test_a_past_day_before_the_new_kinds_is_computed_and_a_level_not_yet_created_is_left_out(day):
    rows = day_register(day["venue"], date(2026, 11, 19))
    grand, major = rows
    assert (grand.opening_mc, grand.reset_values_mc, grand.contributions_mc, grand.closing_mc) == (
        0,
        100_000_000,
        120_000,
        100_120_000,
    )
    assert (major.opening_mc, major.reset_values_mc, major.closing_mc, major.difference_mc) == (
        0,
        10_000_000,
        10_000_000,
        0,
    )
    assert day_register(day["venue"], date(2026, 11, 18)) == []
    assert day_register(day["venue"], date(2000, 1, 1)) == []


def _unbalanced(level: Level, at: datetime, delta_mc: int) -> None:
    """A ledger row that does not conserve money (its amount moves, nothing came in): never written by
    the engine, only to see the register say so."""
    LedgerEntry.objects.create(
        level=level, kind=LedgerEntry.Kind.CORRECTION, at=at, cycle=1, level_seq=99, current_delta_mc=delta_mc
    )


def test_a_level_whose_ledger_does_not_add_up_shows_its_difference_in_red(day, client, manager):
    _unbalanced(day["major"], rome(20, 20), 5)
    rows = {row.level: row for row in day_register(day["venue"], DAY)}
    major_row = rows["Major"]
    assert (major_row.closing_mc, major_row.difference_mc, major_row.holds) == (10_000_005, 5, False)
    assert rows["Grand"].holds
    client.force_login(manager)
    client.cookies["django_language"] = "it"
    page = client.get("/dayclose/?day=2026-11-20").content.decode()
    major, grand = day["major"].id, day["grand"].id
    assert f'<tr id="register-{major}" class="flagged">' in page
    assert '<td class="identity differs">differenza di 5 millesimi di centesimo</td>' in page
    assert f'<tr id="register-{grand}">' in page
    assert '<td class="identity holds">quadra</td>' in page
    assert "L\u2019identità non quadra per 1 livello" in page


def test_the_template_shows_holds_or_the_difference(day):
    row = day_register(day["venue"], DAY)[0]
    wrong = dataclasses.replace(row, difference_mc=-1_234)
    context = {"venue": day["venue"], "day": DAY, "register_totals": register_total([row, wrong])}
    with translation.override("en"):
        html = render_to_string("workspace/dayclose/register.html", {**context, "register": [row, wrong]})
    assert html.count('<td class="identity holds">holds</td>') == 1
    assert '<td class="identity differs">difference of -1234 millicents</td>' in html
    assert "The identity does not hold for 1 level" in html


def test_the_csv_has_its_documented_columns_and_exact_rows(day, client, manager):
    client.force_login(manager)
    answer = client.get("/dayclose/NOG/2026-11-20/register.csv")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/csv; charset=utf-8"
    assert answer["Content-Disposition"] == 'attachment; filename="register-NOG-2026-11-20.csv"'
    grand, major = day["grand"].id, day["major"].id
    assert answer.content.decode().split("\r\n") == [
        "venue,business_day,level_id,progressive,level,state,shared_with,opening_mc,contributions_mc,"
        "reset_values_mc,topups_mc,awards_mc,voids_mc,corrections_mc,transfers_mc,closing_mc,difference_mc,"
        "holds,signs_mc,current_mc,reserve_mc,overflow_mc,unpaid_count,unpaid_mc,award_hit_numbers,"
        "void_hit_numbers,unpaid_hit_numbers",
        f"NOG,2026-11-20,{grand},Grease,Grand,active,VEN,100120000,840000,200000000,5000000,200920000,"
        "320000,12345,-1000000,104372345,0,yes,104332000,104332345,40000,0,0,0,"
        "NOG-2026-00001 NOG-2026-00002,NOG-2026-00002,",
        f"NOG,2026-11-20,{major},Grease,Major,active,VEN,10000000,0,10000000,0,11000000,0,0,1000000,"
        "10000000,0,yes,10000000,10000000,0,0,1,11000000,NOG-2026-00003,,NOG-2026-00003",
        "",
    ]


def test_the_pdf_lists_each_level_with_its_hit_numbers(day, client, manager):
    client.force_login(manager)
    answer = client.get("/dayclose/NOG/2026-11-20/register.pdf")
    assert (answer.status_code, answer["Content-Type"]) == (200, "application/pdf")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "dayclose-register.pdf").write_bytes(answer.content)
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(answer.content)).pages)
    assert "Registro progressivi / Progressive register 20/11/2026" in text
    assert "Grease Grand" in text and "1,043.32" in text  # the signs' amount
    assert "NOG-2026-00001 NOG-2026-00002" in text and "Non pagate / Unpaid: NOG-2026-00003" in text
    assert "Identità verificata / Identity holds: 2 / 2" in text


BAD_PATHS = {
    "/dayclose/XXX/2026-11-20/register.csv": (404, "There is no venue with the code XXX."),
    "/dayclose/XXX/2026-11-20/register.pdf": (404, "There is no venue with the code XXX."),
    "/dayclose/NOG/2026-13-40/register.csv": (400, "Enter a valid date."),
    "/dayclose/NOG/1999-12-31/register.csv": (400, "Business days run from"),
    "/dayclose/NOG/2100-01-01/register.pdf": (400, "Business days run from"),
    "/dayclose/NOG/9999-12-31/register.csv": (400, "Business days run from"),
}


@pytest.mark.parametrize("path", BAD_PATHS)
def test_a_bad_venue_or_day_is_a_sentence_not_a_500(day, client, manager, path):
    client.force_login(manager)
    answer = client.get(path)
    status, sentence = BAD_PATHS[path]
    assert answer.status_code == status
    assert sentence in answer.content.decode()


def test_an_attendant_cannot_read_the_register(day, client, attendant):
    client.force_login(attendant)
    assert client.get("/dayclose/NOG/2026-11-20/register.csv").status_code == 403


def test_the_sign_off_keeps_the_register_as_shown(day, clock, manager):
    shown = day_register(day["venue"], DAY)
    clock(rome(22, 9))
    closed = dayclose_sign(day["venue"], DAY, manager, now=rome(22, 9))
    assert closed.register == [row.as_json() for row in shown]
    # A row dated inside the signed day, written afterwards: the register now computed differs, the
    # signed one does not.
    _unbalanced(day["grand"], rome(20, 20), 7)
    assert day_register(day["venue"], DAY)[0].difference_mc == 7
    rows, found = dayclose_register(day["venue"], DAY)
    assert (found, rows) == (closed, shown)
    assert DayClose.objects.get().register[0]["difference_mc"] == 0


def test_a_day_signed_before_the_register_existed_is_recomputed(day, manager):
    DayClose.objects.create(
        venue=day["venue"],
        business_day=DAY,
        tolerance_cents=100,
        lines=[],
        signed_by=manager,
        signed_at=rome(22, 9),
    )
    rows, closed = dayclose_register(day["venue"], DAY)
    assert closed.register is None and rows == day_register(day["venue"], DAY)


def test_a_progressive_played_only_at_a_table_is_in_its_venue_s_register_with_its_unpaid_prize(day):
    ven = VenueFactory(code="VEN")
    progressive = ProgressiveFactory(name="Caribbean Stud", kind="standalone")
    Table.objects.create(venue=ven, code="VEN-CSP-1", game=Game.CARIBBEAN_STUD, progressive=progressive)
    royal = level_create(progressive, name="Royal", position=1, params=MAJOR, at=rome(19, 12))
    # A whole award at 21:00: €100.00 out, reset at €100.00; the prize is not paid by the day's end.
    prize = level_award(royal.id, mode=core.AwardMode.WHOLE, at=rome(20, 21), reference="round R-1")
    hit = Hit.objects.get(pk=prize.hits[0].pk)
    rows = {row.level: row for row in day_register(ven, DAY)}
    row = rows["Royal"]
    assert (row.opening_mc, row.reset_values_mc, row.awards_mc, row.closing_mc, row.difference_mc) == (
        10_000_000,
        10_000_000,
        10_000_000,
        10_000_000,
        0,
    )
    # Awarded outside a round, the prize has no venue of its own: its number is the casino's (CDV).
    assert hit.ref == "CDV-2026-00001"
    assert (row.shared_with, row.unpaid_count, row.unpaid_mc) == ([], 1, 10_000_000)
    assert (row.award_refs, row.unpaid_refs) == (["CDV-2026-00001"], ["CDV-2026-00001"])
    assert "Royal" not in [row.level for row in day_register(day["venue"], DAY)]
