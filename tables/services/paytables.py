"""Pay table edits: checked, logged (who, when, old, new, why) and staged like level parameters."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from jackpots import hooks
from jackpots.models import Level
from jackpots.services.errors import EngineError
from jackpots.services.levels import levels_lock
from tables.models import PayLine, PayTable, PayTableChange
from tables.rules import Hand
from tables.selectors import lines_as_data


def pay_lines_validate(lines: list[dict]) -> list[dict]:
    """Normalises new lines; a bad one raises EngineError with a sentence naming it."""
    clean: list[dict] = []
    seen: set[str] = set()
    for index, line in enumerate(lines):
        hand, kind = line.get("hand"), line.get("kind")
        where = f"line {index + 1}"
        if hand not in Hand.values:
            raise EngineError("bad_pay_line", f"{where}: {hand!r} is not a hand.")
        if hand in seen:
            raise EngineError("bad_pay_line", f"{where}: {hand} appears twice.")
        seen.add(hand)
        if kind == PayLine.Kind.PERCENT:
            try:
                percent = Decimal(str(line.get("percent")))
            except InvalidOperation:
                percent = Decimal(-1)
            if not Decimal(0) < percent <= Decimal(100) or percent.as_tuple().exponent < -4:
                raise EngineError("bad_pay_line", f"{where}: a percentage must be above 0 and at most 100.")
            clean.append({"hand": hand, "kind": kind, "percent": str(percent), "fixed_cents": None})
        elif kind == PayLine.Kind.FIXED:
            cents = line.get("fixed_cents")
            if isinstance(cents, bool) or not isinstance(cents, int) or cents <= 0:
                raise EngineError("bad_pay_line", f"{where}: a fixed amount is a positive number of cents.")
            clean.append({"hand": hand, "kind": kind, "percent": None, "fixed_cents": cents})
        else:
            raise EngineError("bad_pay_line", f"{where}: kind must be 'percent' or 'fixed'.")
    return clean


def _lines_write(pay_table: PayTable, lines: list[dict]) -> None:
    pay_table.lines.all().delete()
    PayLine.objects.bulk_create(
        PayLine(
            pay_table=pay_table,
            hand=line["hand"],
            kind=line["kind"],
            percent=None if line["percent"] is None else Decimal(line["percent"]),
            fixed_cents=line["fixed_cents"],
        )
        for line in lines
    )


def pay_table_change(pay_table: PayTable, user, lines: list[dict], reason: str) -> PayTableChange:
    """Requests new lines. Applied at once while the level is suspended, otherwise staged until the first
    round after the level's next reset (NY 5321.18); a newer request replaces nothing: they apply in order."""
    if not reason or not reason.strip():
        raise EngineError("reason_required", _("A pay table change needs a reason."))
    clean = pay_lines_validate(lines)
    with transaction.atomic():
        level = levels_lock([pay_table.level_id])[pay_table.level_id]
        now = timezone.now()
        change = PayTableChange.objects.create(
            pay_table=pay_table,
            user=user,
            at=now,
            old=lines_as_data(pay_table),
            new=clean,
            reason=reason.strip(),
            state=PayTableChange.State.STAGED,
            requested_cycle=level.cycle,
        )
        if level.suspended:
            _lines_write(pay_table, clean)
            change.state, change.applied_at, change.applied_cycle = (
                PayTableChange.State.APPLIED,
                now,
                level.cycle,
            )
            change.save(update_fields=["state", "applied_at", "applied_cycle"])
            hooks.rules_changed_on_commit(pay_table.progressive_id)
    return change


def pay_table_staged_apply(pay_table: PayTable, level: Level) -> None:
    """Under the level's lock: staged changes whose level has reset since take effect, oldest first."""
    due = PayTableChange.objects.filter(
        pay_table=pay_table, state=PayTableChange.State.STAGED, requested_cycle__lt=level.cycle
    ).order_by("id")
    now = timezone.now()
    for change in due:
        _lines_write(pay_table, change.new)
        change.state, change.applied_at, change.applied_cycle = PayTableChange.State.APPLIED, now, level.cycle
        change.save(update_fields=["state", "applied_at", "applied_cycle"])
    if due:
        hooks.rules_changed_on_commit(pay_table.progressive_id)
