# A data migration of its own: PostgreSQL creates the parts' indexes in 0014 and cannot write rows in the
# same transaction ("pending trigger events").

from django.db import migrations


def prize_parts_backfill(apps, schema_editor):
    """A part for every seat of a shared prize recorded before parts: its amount in its venue's currency
    (rounded down, as ``jackpots.tables.rules.convert_cents``), its state and payer from the prize's hit."""
    from decimal import Decimal

    Seat = apps.get_model("jackpots", "TableSeat")
    Part = apps.get_model("jackpots", "PrizePart")
    seats = Seat.objects.filter(share__isnull=False, part__isnull=True).select_related("round", "share__hit")
    for seat in seats.iterator():
        hit, round_ = seat.share.hit, seat.round
        num, den = Decimal(round_.rate).as_integer_ratio()
        part = Part(share=seat.share, seat=seat, amount_cents=seat.share_cents * num // den)
        part.currency = round_.currency
        if seat.share.voided or hit.state == "voided" or round_.state == "voided":
            part.state, part.amount_cents = "voided", 0
        elif hit.state == "paid":
            part.state, part.paid_at = "paid", hit.paid_at
            part.paid_by_id, part.paid_by_table_id = hit.paid_by_id, hit.paid_by_table_id
            part.paid_by_key_id = hit.paid_by_key_id
            if part.paid_by_id is None and part.paid_by_table_id is None:
                part.paid_by_table_id = round_.table_id  # a payer is required; the table's round paid it
        else:
            part.state = hit.state if hit.state == "verified" else "open"
            part.verified_by_id, part.verified_at = hit.verified_by_id, hit.verified_at
            part.second_verified_by_id, part.second_verified_at = hit.second_verified_by_id, hit.second_verified_at
        part.save()


class Migration(migrations.Migration):
    dependencies = [("jackpots", "0014_paydesk_part_void_by_two")]

    operations = [migrations.RunPython(prize_parts_backfill, migrations.RunPython.noop)]
