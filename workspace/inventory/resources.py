"""How a machine maps to a CSV row. Rooms are named by venue code and room number, banks by code."""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from import_export import fields, resources

from floor.models import Bank, Room
from slots.models import SlotMachine

COLUMNS = (
    "asset_number",
    "serial",
    "manufacturer",
    "game_title",
    "denomination_cents",
    "min_bet_cents",
    "max_bet_cents",
    "stations",
    "venue",
    "room",
    "bank",
    "pos_x",
    "pos_y",
    "status",
    "meter_digits",
    "sas_line",
    "sas_address",
    "sas_group",
    "sas_handpay_limit_cents",
)


INTEGER_COLUMNS = (
    "denomination_cents",
    "min_bet_cents",
    "max_bet_cents",
    "stations",
    "pos_x",
    "pos_y",
    "meter_digits",
    "sas_group",
)
# May be empty: a machine not on SAS, a handpay limit not known.
OPTIONAL_INTEGER_COLUMNS = ("sas_address", "sas_handpay_limit_cents")

# The form the events API addresses a machine by (its asset number, compared exactly): upper-case ASCII
# letters and digits, with inner hyphens; a space, a lower case letter or another script's digit made a
# machine no gateway or simulator could ever post for.
ASSET_NUMBER = re.compile(r"[A-Z0-9]+(-[A-Z0-9]+)*")
VENUE_CODE = re.compile(r"[A-Z0-9]{1,8}")
ROOM_NUMBER = re.compile(r"0|[1-9][0-9]{0,4}")
# SAS meters: LP 2F answers 4 or 5 BCD bytes (8 or 10 digits), LP 6F/AF up to 9 BCD bytes (18 digits)
# (gateway/README.md, "Frames"); a meter of another size is one the gateway cannot read or wraps wrong.
SAS_METER_DIGITS = (8, 18)
# The SAS denominations that are whole cents (SAS 6.02 table C-4, the codes of LP 1F / B1): the gateway
# turns credits into cents by multiplying by it, and an award into credits by dividing by it.
SAS_DENOMINATIONS_CENTS = frozenset(
    {1, 2, 3, 5, 10, 15, 20, 25, 40, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10_000, 20_000, 25_000,
     50_000, 100_000, 200_000, 250_000, 500_000}
)  # fmt: skip
# A cell a spreadsheet runs as a formula when the file is opened starts with one of these (OWASP, "CSV
# injection"); the export writes a ' before it, the import takes that ' off again.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell_escape(value: object) -> object:
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def cell_unescape(value: object) -> object:
    if isinstance(value, str) and value.startswith("'") and value[1:].startswith(FORMULA_STARTS):
        return value[1:]
    return value


class SlotMachineResource(resources.ModelResource):
    venue = fields.Field(attribute="room__venue__code", column_name="venue", readonly=True)
    room = fields.Field(attribute="room__number", column_name="room", readonly=True)
    bank = fields.Field(attribute="bank__code", column_name="bank", readonly=True)

    class Meta:
        model = SlotMachine
        import_id_fields = ("asset_number",)
        fields = COLUMNS
        export_order = COLUMNS
        skip_unchanged = True
        report_skipped = True
        clean_model_instances = True

    def __init__(self) -> None:
        super().__init__()
        # One query each for the whole file, not one per row.
        self._rooms = {(room.venue.code, room.number): room for room in Room.objects.select_related("venue")}
        self._banks = {(bank.room_id, bank.code): bank for bank in Bank.objects.all()}

    def get_export_queryset(self, request=None):
        return SlotMachine.objects.select_related("room__venue", "bank").order_by("asset_number")

    def before_import_row(self, row, **kwargs) -> None:
        for name in ("serial", "manufacturer", "game_title", "sas_line"):
            if name in row:
                row[name] = cell_unescape(row[name])
        # The numeric widgets' own errors name no column; say which value is wrong instead.
        wrong = {
            name: _("%(value)s is not a whole number.") % {"value": repr(row.get(name))}
            for name in INTEGER_COLUMNS
            if name in row and not _ascii_digits(row.get(name))
        } | {
            name: _("%(value)s is not a whole number.") % {"value": repr(row.get(name))}
            for name in OPTIONAL_INTEGER_COLUMNS
            if str(row.get(name) or "").strip() and not _ascii_digits(row.get(name))
        }
        if wrong:
            raise ValidationError(wrong)

    def import_instance(self, instance: SlotMachine, row, **kwargs) -> None:
        super().import_instance(instance, row, **kwargs)
        venue, number = (row.get("venue") or "").strip(), (row.get("room") or "").strip()
        canonical = VENUE_CODE.fullmatch(venue) and ROOM_NUMBER.fullmatch(number)
        if not canonical or (venue, int(number)) not in self._rooms:
            empty = _("(empty)")
            raise ValidationError(
                {
                    "room": _("No room %(room)s in venue %(venue)s.")
                    % {"room": number or empty, "venue": venue or empty}
                }
            )
        room = self._rooms[(venue, int(number))]
        instance.room = room
        bank_code = (row.get("bank") or "").strip()
        if bank_code:
            bank = self._banks.get((room.id, bank_code))
            if bank is None:
                raise ValidationError(
                    {"bank": _("No bank %(bank)s in %(room)s.") % {"bank": bank_code, "room": room}}
                )
            instance.bank = bank
        else:
            instance.bank = None
        problems = machine_problems(instance)
        if instance.pos_x is not None and instance.pos_x >= room.grid_columns:
            problems["pos_x"] = _("Column %(x)d is outside the room's %(columns)d columns.") % {
                "x": instance.pos_x,
                "columns": room.grid_columns,
            }
        if instance.pos_y is not None and instance.pos_y >= room.grid_rows:
            problems["pos_y"] = _("Row %(y)d is outside the room's %(rows)d rows.") % {
                "y": instance.pos_y,
                "rows": room.grid_rows,
            }
        if problems:
            raise ValidationError(problems)


def _ascii_digits(value: object) -> bool:
    text = str(value or "").strip()
    return text.isascii() and text.isdigit()


def machine_problems(machine: SlotMachine) -> dict[str, str]:
    """What the floor and the gateway could not run in a machine's row, by column."""
    problems = {}
    if not ASSET_NUMBER.fullmatch(machine.asset_number or ""):
        problems["asset_number"] = _(
            "%(asset)s is not an asset number: upper-case letters and digits with inner hyphens, as NOG-0101."
        ) % {"asset": repr(machine.asset_number)}
    if machine.stations is not None and machine.stations < 1:
        problems["stations"] = _("A machine has at least one station.")
    if machine.min_bet_cents is not None and machine.min_bet_cents < 1:
        problems["min_bet_cents"] = _("The minimum bet is at least a cent.")
    bets = (machine.min_bet_cents, machine.max_bet_cents)
    if None not in bets and bets[0] > bets[1]:
        problems["max_bet_cents"] = _("The maximum bet is below the minimum bet.")
    if machine.denomination_cents is not None and machine.denomination_cents < 1:
        problems["denomination_cents"] = _("The denomination is at least a cent.")
    elif machine.sas_address is not None and machine.denomination_cents not in SAS_DENOMINATIONS_CENTS:
        problems["denomination_cents"] = _(
            "%(cents)d cents is not a SAS denomination the gateway can convert "
            "(1, 2, 5, 10, 25, 50, 100... cents)."
        ) % {"cents": machine.denomination_cents}
    low, high = SAS_METER_DIGITS
    if machine.meter_digits is not None and not low <= machine.meter_digits <= high:
        problems["meter_digits"] = _("SAS meters have %(low)d to %(high)d digits, not %(digits)d.") % {
            "low": low,
            "high": high,
            "digits": machine.meter_digits,
        }
    return problems
