"""How a machine maps to a CSV row. Rooms are named by venue code and room number, banks by code."""

from __future__ import annotations

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
)


INTEGER_COLUMNS = (
    "denomination_cents",
    "min_bet_cents",
    "max_bet_cents",
    "stations",
    "pos_x",
    "pos_y",
    "meter_digits",
)


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
        # The numeric widgets' own errors name no column; say which value is wrong instead.
        wrong = {
            name: _("%(value)s is not a whole number.") % {"value": repr(row.get(name))}
            for name in INTEGER_COLUMNS
            if name in row and not str(row.get(name) or "").strip().isdigit()
        }
        if wrong:
            raise ValidationError(wrong)

    def import_instance(self, instance: SlotMachine, row, **kwargs) -> None:
        super().import_instance(instance, row, **kwargs)
        venue, number = (row.get("venue") or "").strip(), (row.get("room") or "").strip()
        if not number.isdigit() or (venue, int(number)) not in self._rooms:
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
        problems = {}
        bets = (instance.min_bet_cents, instance.max_bet_cents)
        if None not in bets and bets[0] > bets[1]:
            problems["max_bet_cents"] = _("The maximum bet is below the minimum bet.")
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
