"""Helpers of the table games' tests: the seeded tables, their keys and round bodies."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.contrib.auth import get_user_model
from django.test import Client

from common.api_errors import ApiError
from jackpots.audit import level_audit
from jackpots.models import LedgerEntry, Level
from tables.models import Table
from tables.seed import tables_seed
from tables.services import round_void, table_key_issue

# Ahead of the server's clock: a shared prize's window (which closes by that clock too) stays open in the
# tests that do not say otherwise, whatever the day they run.
T0 = datetime(2036, 11, 21, 18, 0, tzinfo=UTC)


def at(seconds: float = 0) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat()


def seat(number: int, cards: str, bet: int = 100, changed: bool = False) -> dict:
    return {"seat": number, "jackpot_bet": bet, "cards": cards.split(), "changed_card": changed}


def body(round_id: str, seats: list[dict], community: str = "", seconds: float = 0, **extra) -> dict:
    return {"round": round_id, "at": at(seconds), "community": community.split(), "seats": seats, **extra}


@dataclass(frozen=True)
class _Answer:
    status_code: int
    body: dict

    def json(self) -> dict:
        return self.body


@dataclass
class Tables:
    client: Client
    keys: dict[str, str]

    def table(self, code: str) -> Table:
        return Table.objects.select_related("progressive__pay_table__level").get(code=code)

    def level(self, code: str) -> Level:
        return Level.objects.get(pk=self.table(code).progressive.pay_table.level_id)

    def post(self, code: str, data: dict, key: str | None = None):
        return self.client.post(
            f"/api/v1/tables/{code}/rounds",
            data,
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {key or self.keys[code]}",
        )

    def void(self, code: str, round_id: str, reason: str = "shuffler jammed", *, by_key: bool = False):
        """A round's void by a person in the workspace (the service, as the desk calls it), answered as the
        API would; ``by_key``: through the API with the table's key (refused for a prize at or above the
        two-person threshold)."""
        if not by_key:
            user, _created = get_user_model().objects.get_or_create(username="floor-manager")
            try:
                return _Answer(200, round_void(self.table(code), round_id, reason=reason, user=user))
            except ApiError as error:
                return _Answer(error.status, error.as_dict())
        return self.client.post(
            f"/api/v1/tables/{code}/rounds/{round_id}/void",
            {"reason": reason},
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {self.keys[code]}",
        )


def tables_ready() -> Tables:
    # The pools' arithmetic is checked from an empty Jumbo 7 meter; where the seed opens it has its own
    # test (tests/jackpots/test_tables_seed_opening.py).
    tables_seed(jumbo_7_opening_mc=None)
    keys = {table.code: table_key_issue(table)[1] for table in Table.objects.all()}
    return Tables(Client(), keys)


def level_money(level: Level) -> dict[str, int]:
    """The level's meters and what its ledger says they should be."""
    level.refresh_from_db()
    rows = LedgerEntry.objects.filter(level=level)
    return {
        "current": level.current_mc,
        "reserve": level.reserve_mc,
        "overflow": level.overflow_mc,
        "ledger_current": sum(r.current_delta_mc for r in rows),
        "ledger_reserve": sum(r.reserve_delta_mc for r in rows),
        "ledger_overflow": sum(r.overflow_delta_mc for r in rows),
        "in": sum(r.contributed_mc + r.seeded_mc for r in rows),
        "out": sum(r.awarded_mc for r in rows),
    }


def assert_conserved(level: Level) -> None:
    """The level's meters match its ledger, money is conserved and the engine's audit finds nothing."""
    money = level_money(level)
    assert money["current"] == money["ledger_current"]
    assert money["reserve"] == money["ledger_reserve"]
    assert money["overflow"] == money["ledger_overflow"]
    assert money["in"] == money["current"] + money["reserve"] + money["overflow"] + money["out"]
    assert [str(d) for d in level_audit(level)] == []
